// Region bookkeeping of the cpu system (LightWSP III-B, IV-B/C): global region IDs, taken by a
// core when its region puts its first store on the persist path, from one counter shared by every
// core (the region execution order the controllers enforce); the writes of each region and their
// acknowledgements; when a region is durable. (The region window a controller tracks is the WPQ
// gate's: a boundary beyond it waits on its path, sc_models/mem/wpq_gate_fe.cpp.)
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

namespace persim {

class RegionBook {
public:
    // A new region ID.
    uint64_t take(int thread)
    {
        regs_.push_back(Reg{thread, 0, 0, false, 0, 0});
        return next_++;
    }
    void write(uint64_t r) { ++reg(r).writes; }
    // A write of region r acknowledged (durable) at t.
    void ack(uint64_t r, uint64_t t)
    {
        Reg &g = reg(r);
        ++g.acked;
        g.durable_ps = std::max(g.durable_ps, t);
        advance();
    }
    // The core ended region r at t (its boundary follows its stores on the path).
    void close(uint64_t r, uint64_t t)
    {
        Reg &g = reg(r);
        g.closed = true;
        g.end_ps = t;
        advance();
    }
    bool durable(uint64_t r) const { return r < oldest_ || (reg_c(r).closed && reg_c(r).acked == reg_c(r).writes); }
    uint64_t durable_ps(uint64_t r) const { return r < oldest_ ? 0 : reg_c(r).durable_ps; }
    uint64_t taken() const { return next_; }
    uint64_t oldest_open() const { return oldest_; }
    bool idle() const { return oldest_ == next_; }
    // Sum over durable regions of (durable - end): the persistence latency a core would pay if it
    // waited for each region (T_p of LightWSP eq. 1).
    uint64_t persist_latency_ps() const { return tp_ps_; }

private:
    struct Reg {
        int thread;
        uint64_t writes, acked;
        bool closed;
        uint64_t end_ps, durable_ps;
    };
    Reg &reg(uint64_t r) { return regs_[r - base_]; }
    const Reg &reg_c(uint64_t r) const { return regs_[r - base_]; }
    void advance()
    {
        while (oldest_ < next_) {
            const Reg &g = reg(oldest_);
            if (!g.closed || g.acked != g.writes) break;
            if (g.durable_ps > g.end_ps) tp_ps_ += g.durable_ps - g.end_ps;
            ++oldest_;
        }
        // drop records far behind (kept a little for durable_ps queries)
        while (!regs_.empty() && base_ + 4096 < oldest_) {
            regs_.pop_front();
            ++base_;
        }
    }
    uint64_t next_ = 0, oldest_ = 0, base_ = 0;
    uint64_t tp_ps_ = 0;
    std::deque<Reg> regs_;
};

} // namespace persim
