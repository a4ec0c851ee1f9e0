// The broi_sched lockstep bench: a Verilated rtl/broi_sched.v (model class V) and the C core
// (cores/broi_sched.c, broi_sched_step) get the same inputs each cycle, every output is compared.
// Used by tb/broi_sched_cosim.cpp (every preset; the RTL backend of the block tests written once,
// tb/dut.h) and tb/broi_sched_plant.cpp (planted core bugs).
#pragma once
#include "broi_sched_dut.h"
#include "cosim_common.h"
#include <algorithm>
#include <type_traits>

namespace broi_bench {

// Bit fields (w <= 64) of a Verilated port: an integer up to 64 bits, a VlWide (32-bit words)
// above; word by word.
template <class P>
uint64_t getbits(const P &port, unsigned lo, unsigned w)
{
    uint64_t v = 0;
    if constexpr (std::is_integral_v<P>) {
        v = (uint64_t)port >> lo;
    } else {
        for (unsigned k = 0; k < w;) {
            const unsigned bit = lo + k, sh = bit % 32, n = std::min(32 - sh, w - k);
            v |= (uint64_t)(port[bit / 32] >> sh) << k;
            k += n;
        }
    }
    return w >= 64 ? v : v & ((1ull << w) - 1);
}
template <class P>
void setbits(P &port, unsigned lo, unsigned w, uint64_t v)
{
    if constexpr (std::is_integral_v<P>) {
        const uint64_t m = (w >= 64 ? ~0ull : (1ull << w) - 1) << lo;
        port = (P)(((uint64_t)port & ~m) | ((v << lo) & m));
    } else {
        for (unsigned k = 0; k < w;) {
            const unsigned bit = lo + k, sh = bit % 32, n = std::min(32 - sh, w - k);
            const uint32_t m = (n >= 32 ? ~0u : (1u << n) - 1) << sh;
            port[bit / 32] = (port[bit / 32] & ~m) | ((uint32_t)(v >> k) << sh & m);
            k += n;
        }
    }
}

template <class V>
class BroiBench : public dut::BroiDut {
public:
    explicit BroiBench(const broi_sched_cfg &cfg)
        : cfg_(cfg), chk_("broi_sched", [this](const void *raw) { return fmt(*static_cast<const broi_sched_in *>(raw)); })
    {
        mem_.resize(broi_sched_bytes(&cfg) / 8 + 1);
        s_ = reinterpret_cast<broi_sched *>(mem_.data());
        EXPECT_EQ(broi_sched_init(s_, &cfg), 0);
        T_ = cfg.local_entries + cfg.remote_entries;
        ew_ = 1;
        while ((1u << ew_) < T_) ew_++;
        bw_ = 0;
        while ((1u << bw_) < cfg.banks) bw_++;
        if (bw_ == 0) bw_ = 1;
        static_assert(sizeof(dut_->issue_entry) <= 8 && sizeof(dut_->issue_tag) <= 8,
                      "testbench reads issue vectors as one word");
    }
    // dut::BroiDut: one edge of both models, outputs compared; *out = the C core's outputs.
    bool step(const broi_sched_in &in, broi_sched_out *out) override { return step_in(in, out); }
    broi_sched *core() override { return s_; }
    const broi_sched_cfg &cfg() const override { return cfg_; }
    bool rtl() const override { return true; }

    // The inputs of a cycle as the mismatch report shows them.
    std::string fmt(const broi_sched_in &in) const
    {
        char buf[160];
        std::snprintf(buf, sizeof buf, "in_valid=%u barrier=%u entry=%u bank=%u tag=%u bank_ready=0x%x mc_low=%u",
                      in.in_valid, in.in_barrier, in.in_entry, in.in_bank, in.in_tag, in.bank_ready, in.mc_low);
        std::string desc = buf;
        if (in.cpl_valid || in.now) {
            desc += " now=" + std::to_string(in.now);
            for (uint32_t c = 0; c < cfg_.banks; c++)
                if (in.cpl_valid >> c & 1u)
                    desc += " cpl[" + std::to_string(c) + "]={entry " + std::to_string(in.cpl_entry[c]) + ", line " +
                            std::to_string(in.cpl_line[c]) + ", time " + std::to_string(in.cpl_time[c]) + "}";
        }
        return desc;
    }

    // One cycle on both models (inputs cut to the port widths); returns false after a mismatch.
    bool step_in(broi_sched_in in, broi_sched_out *co = nullptr)
    {
        in.in_entry &= (uint8_t)((1u << ew_) - 1);          // port widths
        in.in_bank &= (uint8_t)((1u << bw_) - 1);
        in.in_tag &= (uint8_t)((1u << cfg_.tag_bits) - 1);
        in.bank_ready &= (uint32_t)((1ull << cfg_.banks) - 1);
        in.cpl_valid &= (uint32_t)((1ull << cfg_.banks) - 1);
        in.now &= tmask();
        for (uint32_t c = 0; c < cfg_.banks; c++) {
            in.cpl_entry[c] &= (uint8_t)((1u << ew_) - 1);
            in.cpl_line[c] &= lmask();
            in.cpl_time[c] &= tmask();
        }
        chk_.input(cyc_, in);
        dut_->in_valid = in.in_valid;
        dut_->in_barrier = in.in_barrier;
        dut_->in_entry = in.in_entry;
        dut_->in_bank = in.in_bank;
        dut_->in_tag = in.in_tag;
        dut_->bank_ready = in.bank_ready;
        dut_->mc_low = in.mc_low;
        dut_->now = (std::remove_reference_t<decltype(dut_->now)>)in.now;
        dut_->cpl_valid = in.cpl_valid;
        for (uint32_t c = 0; c < cfg_.banks; c++) {
            setbits(dut_->cpl_entry, c * ew_, ew_, in.cpl_entry[c]);
            setbits(dut_->cpl_line, c * lw(), lw(), in.cpl_line[c]);
            setbits(dut_->cpl_time, c * tw(), tw(), in.cpl_time[c]);
        }
        dut_.tick();
        broi_sched_out o;
        broi_sched_step(s_, &in, &o);
        if (co) *co = o;
        cyc_++;
        chk_.eq("result", dut_->result, o.result);
        chk_.eq("issue_valid", dut_->issue_valid, o.issue_valid);
        uint64_t ent = dut_->issue_entry, tag = dut_->issue_tag;
        for (uint32_t b = 0; b < cfg_.banks; b++) {
            chk_.eq("issue_entry", b, (ent >> (b * ew_)) & ((1u << ew_) - 1), o.issue_entry[b]);
            chk_.eq("issue_tag", b, (tag >> (b * cfg_.tag_bits)) & ((1u << cfg_.tag_bits) - 1), o.issue_tag[b]);
        }
        chk_.eq("barrier", dut_->barrier, o.barrier);
        chk_.eq("starving", dut_->starving, o.starving);
        chk_.eq("occupancy", dut_->occupancy, o.occupancy);
        chk_.eq("epoch_done", dut_->epoch_done, o.epoch_done);
        for (uint32_t b = 0; b < cfg_.banks; b++) {
            chk_.eq("issue_floor", b, getbits(dut_->issue_floor, b * tw(), tw()), o.issue_floor[b]);
            chk_.eq("cpl_done", b, getbits(dut_->cpl_done, b * tw(), tw()), o.cpl_done[b]);
            if ((o.issue_valid >> b & 1u) && o.issue_floor[b]) floors_++;
        }
        return chk_.ok();
    }
    void random(uint64_t seed, uint64_t n)
    {
        std::mt19937_64 rng(seed);
        uint32_t phase = 0, p_op = 60, p_bar = 20, p_ready = 50, p_low = 50, hot = 0, p_cpl = 80, nlines = 8;
        uint64_t now = 0;
        // issued requests not yet reported complete, per bank lane: {entry, floor}
        std::vector<std::deque<std::pair<uint8_t, uint64_t>>> pend(cfg_.banks);
        broi_sched_out o{};
        for (uint64_t i = 0; i < n; i++) {
            if (phase-- == 0) {
                phase = 30 + rng() % 300;
                p_op = rng() % 101; p_bar = rng() % 50; p_ready = rng() % 101; p_low = rng() % 101;
                hot = rng() % 3;   // 0: uniform entries, 1: few entries, 2: mostly remote
                p_cpl = 30 + rng() % 71;                   // completions reported at once or later
                nlines = 1u << (rng() % 5);                // 1..16 lines: same-line writes, table overflow
            }
            broi_sched_in in{};
            // completions: the device finishes an issued request at or after its floor and now
            now += rng() % 3;
            in.now = now;
            for (uint32_t b = 0; b < cfg_.banks; b++) {
                if (o.issue_valid >> b & 1u) pend[b].emplace_back(o.issue_entry[b], o.issue_floor[b]);
                if (pend[b].empty() || rng() % 100 >= p_cpl) {
                    if (rng() % 50 == 0) {                 // a report of no issued request (any entry)
                        in.cpl_valid |= 1u << b;
                        in.cpl_entry[b] = (uint8_t)rng();
                        in.cpl_line[b] = rng() % nlines;
                        in.cpl_time[b] = rng() % (now + 64);
                    }
                    continue;
                }
                auto [e, fl] = pend[b].front();
                pend[b].pop_front();
                in.cpl_valid |= 1u << b;
                in.cpl_entry[b] = e;
                in.cpl_line[b] = rng() % nlines;
                in.cpl_time[b] = std::max(fl, now) + rng() % 48;
            }
            in.in_valid = rng() % 100 < p_op;
            in.in_barrier = rng() % 100 < p_bar;
            uint32_t e = rng() % (1u << ew_);
            if (hot == 1) e = rng() % 2;
            if (hot == 2 && cfg_.remote_entries) e = cfg_.local_entries + rng() % cfg_.remote_entries;
            in.in_entry = (uint8_t)e;
            in.in_bank = (uint8_t)(rng() % 16);
            in.in_tag = (uint8_t)rng();
            in.bank_ready = 0;
            for (uint32_t b = 0; b < cfg_.banks; b++)
                if (rng() % 100 < p_ready) in.bank_ready |= 1u << b;
            in.mc_low = rng() % 100 < p_low;
            if (!step_in(in, &o)) return;
        }
        const broi_sched_stats *st = broi_sched_get_stats(s_);
        std::printf("cosim broi_sched: %" PRIu64 " cycles, %" PRIu64 " pushes, %" PRIu64 " barriers, %" PRIu64
                    " merged, %" PRIu64 " full, %" PRIu64 " issued, %" PRIu64 " barriers issued, %" PRIu64
                    " starvation grants\n",
                    n, st->pushes, st->barriers, st->merged, st->full, st->issued, st->barriers_issued,
                    st->starve_grants);
        if (n >= 5000) {
            EXPECT_GT(st->full, 0u);
            EXPECT_GT(st->merged, 0u);
            EXPECT_GT(st->barriers_issued, 0u);
            EXPECT_GT(st->starve_grants, 0u);
            if (cfg_.epoch_merge) {
                EXPECT_GT(st->global_epochs, 0u);
            }
        }
        if (cfg_.epoch_merge)
            std::printf("cosim broi_sched: %" PRIu64 " global epochs\n", st->global_epochs);
        if (cfg_.order) {
            std::printf("cosim broi_sched: %" PRIu64 " completions, %" PRIu64 " behind their line, %" PRIu64
                        " line-table overflows, %" PRIu64 " writes with a floor\n",
                        st->completions, st->line_waits, st->line_overflow, floors_);
            if (n >= 5000) {
                EXPECT_GT(st->line_waits, 0u);
                EXPECT_GT(floors_, 0u);
                if (cfg_.lines < 16) {
                    EXPECT_GT(st->line_overflow, 0u);
                }
            }
        }
    }
private:
    unsigned tw() const { return cfg_.order ? cfg_.time_bits : 1; }
    unsigned lw() const { return cfg_.order ? cfg_.line_bits : 1; }
    uint64_t tmask() const { return tw() >= 64 ? ~0ull : (1ull << tw()) - 1; }
    uint64_t lmask() const { return lw() >= 64 ? ~0ull : (1ull << lw()) - 1; }
    uint64_t floors_ = 0;   // issued requests with a non-zero floor
    broi_sched_cfg cfg_;
    cosim::Dut<V> dut_;
    std::vector<uint64_t> mem_;
    broi_sched *s_;
    cosim::Checker chk_;
    uint64_t cyc_ = 0;
    uint32_t T_ = 0, ew_ = 1, bw_ = 1;
};

} // namespace broi_bench
