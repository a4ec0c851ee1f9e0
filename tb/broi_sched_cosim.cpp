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

namespace {

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
        char buf[160];
        std::snprintf(buf, sizeof buf, "in_valid=%u barrier=%u entry=%u bank=%u tag=%u bank_ready=0x%x mc_low=%u",
                      in.in_valid, in.in_barrier, in.in_entry, in.in_bank, in.in_tag, in.bank_ready, in.mc_low);
        chk_.input(cyc_, buf);
        dut_->in_valid = in.in_valid;
        dut_->in_barrier = in.in_barrier;
        dut_->in_entry = in.in_entry;
        dut_->in_bank = in.in_bank;
        dut_->in_tag = in.in_tag;
        dut_->bank_ready = in.bank_ready;
        dut_->mc_low = in.mc_low;
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
        return chk_.ok();
    }
    void random(uint64_t seed, uint64_t n)
    {
        std::mt19937_64 rng(seed);
        uint32_t phase = 0, p_op = 60, p_bar = 20, p_ready = 50, p_low = 50, hot = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (phase-- == 0) {
                phase = 30 + rng() % 300;
                p_op = rng() % 101; p_bar = rng() % 50; p_ready = rng() % 101; p_low = rng() % 101;
                hot = rng() % 3;   // 0: uniform entries, 1: few entries, 2: mostly remote
            }
            broi_sched_in in{};
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
            if (!step(in)) return;
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
    }
    broi_sched *core() { return s_; }

private:
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

BROI_RANDOM_TEST(broi_small, 1)

} // namespace
