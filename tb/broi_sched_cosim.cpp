// Lockstep co-simulation of rtl/broi_sched.v against cores/broi_sched.c (broi_sched_step).
#include "cosim_common.h"
#include "Vbroi_sched_broi_small.h"
#include "Vbroi_sched_broi_table2.h"
#include "Vbroi_sched_broi_table2_serial.h"
#include "Vbroi_sched_broi_small_serial.h"
#include "Vbroi_sched_broi_small_serial3.h"
#include "Vbroi_sched_broi_table2_merge.h"
#include "Vbroi_sched_broi_small_merge.h"
#include "Vbroi_sched_broi_small_serial3_merge.h"
#include "Vbroi_sched_broi_table2_order.h"
#include <type_traits>

namespace {

// Bit fields of a Verilated port: an integer up to 64 bits, a VlWide (32-bit words) above.
template <class P>
uint64_t getbits(const P &port, unsigned lo, unsigned w)
{
    uint64_t v = 0;
    if constexpr (std::is_integral_v<P>) {
        v = (uint64_t)port >> lo;
    } else {
        for (unsigned k = 0; k < w; k++) {
            const unsigned bit = lo + k;
            v |= (uint64_t)(port[bit / 32] >> (bit % 32) & 1u) << k;
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
        for (unsigned k = 0; k < w; k++) {
            const unsigned bit = lo + k;
            if (v >> k & 1u) port[bit / 32] |= 1u << (bit % 32);
            else port[bit / 32] &= ~(1u << (bit % 32));
        }
    }
}

template <class V>
class BroiBench {
public:
    explicit BroiBench(const broi_sched_cfg &cfg) : cfg_(cfg), chk_("broi_sched")
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
    bool step(broi_sched_in in, broi_sched_out *co = nullptr)
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
        chk_.input(cyc_, desc);
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
            std::string sb = "issue_entry[" + std::to_string(b) + "]";
            chk_.eq(sb.c_str(), (ent >> (b * ew_)) & ((1u << ew_) - 1), o.issue_entry[b]);
            std::string st = "issue_tag[" + std::to_string(b) + "]";
            chk_.eq(st.c_str(), (tag >> (b * cfg_.tag_bits)) & ((1u << cfg_.tag_bits) - 1), o.issue_tag[b]);
        }
        chk_.eq("barrier", dut_->barrier, o.barrier);
        chk_.eq("starving", dut_->starving, o.starving);
        chk_.eq("occupancy", dut_->occupancy, o.occupancy);
        chk_.eq("epoch_done", dut_->epoch_done, o.epoch_done);
        for (uint32_t b = 0; b < cfg_.banks; b++) {
            std::string sf = "issue_floor[" + std::to_string(b) + "]";
            chk_.eq(sf.c_str(), getbits(dut_->issue_floor, b * tw(), tw()), o.issue_floor[b]);
            std::string sd = "cpl_done[" + std::to_string(b) + "]";
            chk_.eq(sd.c_str(), getbits(dut_->cpl_done, b * tw(), tw()), o.cpl_done[b]);
            if ((o.issue_valid >> b & 1u) && o.issue_floor[b]) floors_++;
        }
        return chk_.ok();
    }
    // Completions of the requests issued at the last cycle (lane = bank), as a system reports them.
    broi_sched_in complete(const broi_sched_out &o, const std::vector<uint64_t> &line,
                           const std::vector<uint64_t> &time, uint64_t now = 0)
    {
        broi_sched_in in{};
        in.now = now;
        for (uint32_t b = 0; b < cfg_.banks; b++)
            if (o.issue_valid >> b & 1u) {
                in.cpl_valid |= 1u << b;
                in.cpl_entry[b] = o.issue_entry[b];
                in.cpl_line[b] = line[b];
                in.cpl_time[b] = time[b];
            }
        return in;
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
            if (!step(in, &o)) return;
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
    broi_sched *core() { return s_; }

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

broi_sched_in op(int barrier, uint8_t entry, uint8_t bank = 0, uint8_t tag = 0)
{
    broi_sched_in in{};
    in.in_valid = 1; in.in_barrier = (uint8_t)barrier; in.in_entry = entry; in.in_bank = bank; in.in_tag = tag;
    return in;   // bank_ready = 0: nothing issues while the scenario is loaded
}

// Figure 6(c): Ready-SET (1.1, 1.2, 2.1, 3.1), all in bank 0; entry 1 has 2.2 (bank 1) behind a
// barrier. The scheduler picks 2.1 first, issues entry 1's barrier, and 2.2 joins the Ready-SET.
TEST(BroiSched, Directed_Figure6c)
{
    BroiBench<Vbroi_sched_broi_table2> b(rtlp_broi_table2_cfg());
    broi_sched_out o;
    ASSERT_TRUE(b.step(op(0, 0, 0, 0x1), &o));   // 1.1
    ASSERT_TRUE(b.step(op(0, 0, 0, 0x2), &o));   // 1.2
    ASSERT_TRUE(b.step(op(0, 1, 0, 0x3), &o));   // 2.1
    ASSERT_TRUE(b.step(op(1, 1), &o));           // barrier
    EXPECT_EQ(o.result, BROI_OK);
    ASSERT_TRUE(b.step(op(0, 1, 1, 0x4), &o));   // 2.2
    ASSERT_TRUE(b.step(op(0, 2, 0, 0x5), &o));   // 3.1
    EXPECT_EQ(broi_sched_key(b.core(), 1), 44u);
    EXPECT_GT(broi_sched_key(b.core(), 1), broi_sched_key(b.core(), 0));
    EXPECT_GT(broi_sched_key(b.core(), 1), broi_sched_key(b.core(), 2));
    broi_sched_in go{};
    go.bank_ready = 0xFF;
    ASSERT_TRUE(b.step(go, &o));
    EXPECT_EQ(o.issue_valid, 1u);                // Sch-SET = (2.1)
    EXPECT_EQ(o.issue_entry[0], 1);
    EXPECT_EQ(o.issue_tag[0], 0x3);
    EXPECT_EQ(o.barrier, 1u << 1);               // SubReady-SET drained: barrier to the MC
    ASSERT_TRUE(b.step(go, &o));                 // Ready-SET (1.1, 1.2, 2.2, 3.1)
    EXPECT_EQ(o.issue_valid, 3u);
    EXPECT_EQ(o.issue_tag[1], 0x4);              // 2.2 on bank 1 in parallel
    EXPECT_EQ(o.issue_tag[0], 0x5);              // 3.1 (smaller set) before 1.1
    ASSERT_TRUE(b.step(go, &o));
    EXPECT_EQ(o.issue_tag[0], 0x1);
    ASSERT_TRUE(b.step(go, &o));
    EXPECT_EQ(o.issue_tag[0], 0x2);
    EXPECT_EQ(o.occupancy, 0);
}

TEST(BroiSched, Directed_RemoteStarvation)
{
    BroiBench<Vbroi_sched_broi_small> b(rtlp_broi_small_cfg());   // 3 local + 1 remote, starve 5
    broi_sched_out o;
    ASSERT_TRUE(b.step(op(0, 3, 2, 5), &o));     // remote request, bank 2
    broi_sched_in busy{};
    busy.bank_ready = 0xF;                        // banks free but the MC queue is not "low"
    int granted = -1;
    for (int c = 0; c < 12 && granted < 0; c++) {
        broi_sched_in in = busy;
        in.in_valid = 1; in.in_entry = (uint8_t)(c % 3); in.in_bank = 2; in.in_tag = 1;   // local traffic on bank 2
        ASSERT_TRUE(b.step(in, &o));
        if ((o.issue_valid >> 2 & 1) && o.issue_entry[2] == 3) granted = c;
    }
    EXPECT_EQ(granted, 5);                        // waits exactly STARVE steps, then wins over locals
}

TEST(BroiSched, Directed_BarrierRegisters)
{
    BroiBench<Vbroi_sched_broi_table2> b(rtlp_broi_table2_cfg());
    broi_sched_out o;
    ASSERT_TRUE(b.step(op(1, 0), &o));
    EXPECT_EQ(o.result, BROI_MERGED);
    ASSERT_TRUE(b.step(op(0, 0, 3, 1), &o));
    ASSERT_TRUE(b.step(op(1, 0), &o));
    EXPECT_EQ(o.result, BROI_OK);
    ASSERT_TRUE(b.step(op(0, 0, 3, 2), &o));
    ASSERT_TRUE(b.step(op(1, 0), &o));
    EXPECT_EQ(o.result, BROI_OK);
    ASSERT_TRUE(b.step(op(0, 0, 3, 3), &o));
    ASSERT_TRUE(b.step(op(1, 0), &o));
    EXPECT_EQ(o.result, BROI_FULL);               // two barrier index registers in use
    ASSERT_TRUE(b.step(op(0, 9, 0, 0), &o));
    ASSERT_TRUE(b.step(op(1, 9), &o));
    EXPECT_EQ(o.result, BROI_OK);
    ASSERT_TRUE(b.step(op(0, 9, 0, 0), &o));
    ASSERT_TRUE(b.step(op(1, 9), &o));
    EXPECT_EQ(o.result, BROI_FULL);               // remote entry: one register
    ASSERT_TRUE(b.step(op(0, 12, 0, 0), &o));
    EXPECT_EQ(o.result, BROI_BAD);
    broi_sched_in go{};
    go.bank_ready = 0xFF; go.mc_low = 1;
    std::vector<int> tags;
    for (int c = 0; c < 8; c++) {
        ASSERT_TRUE(b.step(go, &o));
        if (o.issue_valid >> 3 & 1) tags.push_back(o.issue_tag[3]);
    }
    EXPECT_EQ(tags, (std::vector<int>{1, 2, 3}));  // one epoch per step, in order
}

// Figure 6(c) with the serial scheduler (SERIAL 1, 10 entries): same issue order as the parallel
// one, but a decision only at the last cycle of each 10-cycle sweep.
TEST(BroiSched, Directed_Figure6c_Serial)
{
    BroiBench<Vbroi_sched_broi_table2_serial> b(rtlp_broi_table2_serial_cfg());
    broi_sched_out o;
    ASSERT_TRUE(b.step(op(0, 0, 0, 0x1), &o));   // 1.1
    ASSERT_TRUE(b.step(op(0, 0, 0, 0x2), &o));   // 1.2
    ASSERT_TRUE(b.step(op(0, 1, 0, 0x3), &o));   // 2.1
    ASSERT_TRUE(b.step(op(1, 1), &o));           // barrier
    ASSERT_TRUE(b.step(op(0, 1, 1, 0x4), &o));   // 2.2
    ASSERT_TRUE(b.step(op(0, 2, 0, 0x5), &o));   // 3.1
    broi_sched_in idle{};
    while (broi_sched_sweep_pos(b.core()) != 0) ASSERT_TRUE(b.step(idle, &o));   // align to a sweep
    broi_sched_in go{};
    go.bank_ready = 0xFF;
    std::vector<int> when, tags;
    for (int c = 0; c < 60; c++) {
        ASSERT_TRUE(b.step(go, &o));
        for (int k = 0; k < 8; k++)
            if (o.issue_valid >> k & 1) { when.push_back(c); tags.push_back(o.issue_tag[k]); }
        if (o.issue_valid) EXPECT_EQ(c % 10, 9);   // decisions at the last cycle of a sweep
        if (c % 10 != 9) EXPECT_EQ(o.barrier, 0u);
    }
    EXPECT_EQ(tags, (std::vector<int>{0x3, 0x5, 0x4, 0x1, 0x2}));   // 2.1; 3.1 (bank 0) with 2.2 (bank 1); 1.1; 1.2
    EXPECT_EQ(when, (std::vector<int>{9, 19, 19, 29, 39}));
    EXPECT_EQ(o.occupancy, 0);
}

// ORDER 1, barrier sets: entry 0 holds A (bank 0), barrier, B (bank 1), C (bank 2); entry 1 holds D
// (bank 3). A and D issue at the first step (floor 0) and entry 0's barrier issues; their
// completions (A at 100, D at 900) come back at the next cycle, where B and C open entry 0's next
// set: both start no earlier than A's completion, not D's (another entry). A third set waits for
// the later of B and C.
TEST(BroiSched, Directed_Order_BarrierSetFloor)
{
    BroiBench<Vbroi_sched_broi_table2_order> b(rtlp_broi_table2_order_cfg());
    broi_sched_out o;
    ASSERT_TRUE(b.step(op(0, 0, 0, 1), &o));     // A
    ASSERT_TRUE(b.step(op(1, 0), &o));
    ASSERT_TRUE(b.step(op(0, 0, 1, 2), &o));     // B
    ASSERT_TRUE(b.step(op(0, 0, 2, 3), &o));     // C
    ASSERT_TRUE(b.step(op(1, 0), &o));
    ASSERT_TRUE(b.step(op(0, 1, 3, 4), &o));     // D
    broi_sched_in go{};
    go.bank_ready = 0xFF;
    go.now = 10;
    ASSERT_TRUE(b.step(go, &o));
    EXPECT_EQ(o.issue_valid, 0x9u);              // A (bank 0), D (bank 3)
    EXPECT_EQ(o.issue_floor[0], 0u);
    EXPECT_EQ(o.barrier, 1u);
    broi_sched_in in = b.complete(o, {7, 0, 0, 8, 0, 0, 0, 0}, {100, 0, 0, 900, 0, 0, 0, 0}, 20);
    in.bank_ready = 0xFF;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.cpl_done[0], 100u);
    EXPECT_EQ(o.cpl_done[3], 900u);
    EXPECT_EQ(o.issue_valid, 0x6u);              // B, C
    EXPECT_EQ(o.issue_floor[1], 100u);           // behind A
    EXPECT_EQ(o.issue_floor[2], 100u);
    EXPECT_EQ(broi_sched_floor(b.core(), 0), 100u);
    EXPECT_EQ(broi_sched_floor(b.core(), 1), 0u);
    ASSERT_TRUE(b.step(op(0, 0, 4, 5), &o));      // E after the second barrier (issued above)
    broi_sched_in c2{};
    c2.now = 30;
    c2.cpl_valid = 0x6; c2.cpl_entry[1] = 0; c2.cpl_entry[2] = 0;
    c2.cpl_line[1] = 1; c2.cpl_line[2] = 2; c2.cpl_time[1] = 400; c2.cpl_time[2] = 300;
    c2.bank_ready = 0xFF;
    ASSERT_TRUE(b.step(c2, &o));
    EXPECT_EQ(o.issue_valid, 0x10u);             // E
    EXPECT_EQ(o.issue_floor[4], 400u);           // the later of B and C
}

// ORDER 1, per-line order: completions of one line keep their report (issue) order while the line
// has a write in flight; a line whose last write completed (done <= now) is free again.
TEST(BroiSched, Directed_Order_LineOrder)
{
    BroiBench<Vbroi_sched_broi_small> b(rtlp_broi_small_cfg());   // 4 line slots
    broi_sched_out o;
    broi_sched_in in{};
    in.now = 10;
    in.cpl_valid = 0x3;                          // lane 0 then lane 1, both line 5
    in.cpl_line[0] = 5; in.cpl_time[0] = 500;
    in.cpl_line[1] = 5; in.cpl_time[1] = 300;    // the later write would finish first
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.cpl_done[0], 500u);
    EXPECT_EQ(o.cpl_done[1], 500u);              // held behind the earlier one
    in = broi_sched_in{};
    in.now = 400; in.cpl_valid = 0x1; in.cpl_line[0] = 5; in.cpl_time[0] = 450;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.cpl_done[0], 500u);
    in.now = 500; in.cpl_time[0] = 510;          // line 5 done at 500 <= now: free
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.cpl_done[0], 510u);
    // four other lines fill the table; a fifth is not remembered, the first is still in order
    in = broi_sched_in{};
    in.now = 600; in.cpl_valid = 0xF;
    for (int c = 0; c < 4; c++) { in.cpl_line[c] = (uint64_t)c; in.cpl_time[c] = 700 + (uint64_t)c; }
    ASSERT_TRUE(b.step(in, &o));
    in.cpl_valid = 0x3; in.cpl_line[0] = 6; in.cpl_time[0] = 650; in.cpl_line[1] = 0; in.cpl_time[1] = 640;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.cpl_done[0], 650u);
    EXPECT_EQ(o.cpl_done[1], 700u);
    EXPECT_EQ(broi_sched_get_stats(b.core())->line_overflow, 1u);
}

// ORDER 1 with MERGE 1: global epochs are one more floor. Entry 0: A (bank 0), barrier, B (bank 1);
// entry 1: D (bank 2). A and D form global epoch 0, which closes at the first step; B (epoch 1)
// starts after D (another thread's write of epoch 0) too, not only after A.
TEST(BroiSched, Directed_Order_MergeGlobalFloor)
{
    BroiBench<Vbroi_sched_broi_table2_merge> b(rtlp_broi_table2_merge_cfg());
    broi_sched_out o;
    ASSERT_TRUE(b.step(op(0, 0, 0, 1), &o));     // A
    ASSERT_TRUE(b.step(op(1, 0), &o));
    ASSERT_TRUE(b.step(op(0, 0, 1, 2), &o));     // B
    ASSERT_TRUE(b.step(op(0, 1, 2, 3), &o));     // D
    broi_sched_in go{};
    go.bank_ready = 0xFF;
    ASSERT_TRUE(b.step(go, &o));
    EXPECT_EQ(o.issue_valid, 0x5u);              // A, D
    EXPECT_EQ(o.epoch_done, 1);
    broi_sched_in in = b.complete(o, {1, 0, 2, 0, 0, 0, 0, 0}, {100, 0, 700, 0, 0, 0, 0, 0}, 5);
    in.bank_ready = 0xFF;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.issue_valid, 0x2u);              // B
    EXPECT_EQ(o.issue_floor[1], 700u);
    EXPECT_EQ(broi_sched_floor(b.core(), 0), 100u);                          // its entry's own floor
    EXPECT_EQ(broi_sched_floor(b.core(), broi_sched_entries(b.core())), 700u);   // the global one
}

// One random lockstep test per preset: PRESET's Verilated model against the C core on seeded traffic
// (seed offset K keeps the presets' streams apart).
#define BROI_RANDOM_TEST(PRESET, K)                                                      \
    TEST(BroiSched, Random_##PRESET)                                                     \
    {                                                                                    \
        uint64_t s = cosim::seed(), n = cosim::cycles();                                 \
        cosim::announce("broi_sched/" #PRESET, s, n);                                    \
        BroiBench<Vbroi_sched_##PRESET> b(rtlp_##PRESET##_cfg());                        \
        b.random(s + (K), n);                                                            \
    }

BROI_RANDOM_TEST(broi_table2_serial, 2)

BROI_RANDOM_TEST(broi_small_serial, 3)

BROI_RANDOM_TEST(broi_small_serial3, 4)

// Figure 3(a) with MERGE 1 (the Epoch baseline, cores/broi_sched epoch_merge): thread 1: 1.1, 1.2
// (bank 0), barrier, 1.3 (bank 1); thread 2: 2.1 (bank 0), barrier, 2.2 (bank 2); thread 3: 3.1
// (bank 0), barrier, 3.2 (bank 3). Global epoch 0 = (1.1, 1.2, 2.1, 3.1) in entry order on bank 0;
// then (1.3, 2.2, 3.2) together, though their banks were free all along.
TEST(BroiSched, Directed_Figure3a_Merge)
{
    BroiBench<Vbroi_sched_broi_table2_merge> b(rtlp_broi_table2_merge_cfg());
    broi_sched_out o;
    ASSERT_TRUE(b.step(op(0, 0, 0, 0x1), &o));   // 1.1
    ASSERT_TRUE(b.step(op(0, 0, 0, 0x2), &o));   // 1.2
    ASSERT_TRUE(b.step(op(1, 0), &o));
    ASSERT_TRUE(b.step(op(0, 0, 1, 0x3), &o));   // 1.3
    ASSERT_TRUE(b.step(op(0, 1, 0, 0x4), &o));   // 2.1
    ASSERT_TRUE(b.step(op(1, 1), &o));
    ASSERT_TRUE(b.step(op(0, 1, 2, 0x5), &o));   // 2.2
    ASSERT_TRUE(b.step(op(0, 2, 0, 0x6), &o));   // 3.1
    ASSERT_TRUE(b.step(op(1, 2), &o));
    ASSERT_TRUE(b.step(op(0, 2, 3, 0x7), &o));   // 3.2
    broi_sched_in go{};
    go.bank_ready = 0xFF;
    std::vector<std::vector<int>> steps;
    std::vector<int> done;
    for (int c = 0; c < 6; c++) {
        ASSERT_TRUE(b.step(go, &o));
        std::vector<int> t;
        for (int k = 0; k < 8; k++)
            if (o.issue_valid >> k & 1) t.push_back(o.issue_tag[k]);
        steps.push_back(t);
        done.push_back(o.epoch_done);
    }
    EXPECT_EQ(steps[0], (std::vector<int>{0x1}));
    EXPECT_EQ(steps[1], (std::vector<int>{0x2}));
    EXPECT_EQ(steps[2], (std::vector<int>{0x4}));
    EXPECT_EQ(steps[3], (std::vector<int>{0x6}));
    EXPECT_EQ(steps[4], (std::vector<int>{0x3, 0x5, 0x7}));
    EXPECT_EQ(done, (std::vector<int>{0, 0, 0, 1, 0, 0}));   // epoch 0 closes as 3.1 issues
    EXPECT_EQ(o.occupancy, 0);
}

BROI_RANDOM_TEST(broi_table2_merge, 5)

BROI_RANDOM_TEST(broi_small_merge, 6)

BROI_RANDOM_TEST(broi_small_serial3_merge, 7)

BROI_RANDOM_TEST(broi_table2, 0)

BROI_RANDOM_TEST(broi_table2_order, 8)

BROI_RANDOM_TEST(broi_small, 1)

} // namespace
