// Region bookkeeping of the cpu system (LightWSP III-B, IV-B/C): global region IDs, taken by a
// core when its region puts its first store on the persist path, from one counter shared by every
// core (the region execution order the controllers enforce); the writes of each region and their
// acknowledgements; when a region is durable. Flow control (persim's, not the paper's): a core
// takes a new ID only within `window` regions of the oldest region not yet durable, the window
// the controllers' WPQ gates track (wpq_gate.regions).
// With sim.crash_check it also keeps every path write (address, bytes) per region for the
// crash check (region_check.h).
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace persim {

class RegionBook {
public:
    explicit RegionBook(uint32_t window) : window_(window) {}
    // A new region ID, or -1 if the window is full (wait for on_window).
    int64_t take(int thread)
    {
        if (next_ - oldest_ >= window_) return -1;
        regs_.push_back(Reg{thread, 0, 0, false, 0, 0});
        return (int64_t)next_++;
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
    std::function<void()> on_window;     // called when the window moves

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
        bool moved = false;
        while (oldest_ < next_) {
            const Reg &g = reg(oldest_);
            if (!g.closed || g.acked != g.writes) break;
            if (g.durable_ps > g.end_ps) tp_ps_ += g.durable_ps - g.end_ps;
            ++oldest_;
            moved = true;
        }
        // drop records far behind (kept a little for durable_ps queries)
        while (!regs_.empty() && base_ + 4096 < oldest_) {
            regs_.pop_front();
            ++base_;
        }
        if (moved && on_window) on_window();
    }
    uint64_t window_;
    uint64_t next_ = 0, oldest_ = 0, base_ = 0;
    uint64_t tp_ps_ = 0;
    std::deque<Reg> regs_;
};

} // namespace persim
