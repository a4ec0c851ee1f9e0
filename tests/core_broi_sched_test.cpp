// Unit tests of the BROI controller core (cores/broi_sched.{h,c}): the directed block scenarios
// (written once, tb/broi_sched_scenarios.h) on the C backend, plus the tests of the transaction
// API, the configuration and the reference models that only the C core has.
#include <gtest/gtest.h>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <tuple>
#include <vector>
#include "broi_sched_scenarios.h"
extern "C" {
#include "broi_sched.h"
}

// ctest core.BroiC.*: the block scenarios on the C core alone (fast tier); the same scenarios run
// in lockstep with the RTL as ctest cosim.BroiRtl.* (tb/broi_sched_cosim.cpp).
namespace broi_scen {
INSTANTIATE_TYPED_TEST_SUITE_P(BroiC, BroiBlock, ::testing::Types<dut::BroiC>);
}

namespace {

broi_sched_cfg table2()
{
    broi_sched_cfg c{};
    c.local_entries = 8; c.remote_entries = 2; c.units = 8; c.banks = 8;
    c.local_barriers = 2; c.remote_barriers = 1; c.sigma = 4; c.starve = 16; c.tag_bits = 4;
    return c;
}

struct Broi {
    std::vector<uint64_t> mem;
    broi_sched *s;
    explicit Broi(const broi_sched_cfg &c) : mem(broi_sched_bytes(&c) / 8 + 1)
    {
        s = reinterpret_cast<broi_sched *>(mem.data());
        EXPECT_EQ(broi_sched_init(s, &c), 0);
    }
    uint32_t step(uint32_t ready, int mc_low, broi_issue *iss, uint32_t *bar)
    {
        return broi_sched_schedule(s, ready, mc_low, iss, bar);
    }
};

TEST(BroiSched, RejectsBadConfig)
{
    broi_sched_cfg c = table2();
    std::vector<uint64_t> mem(broi_sched_bytes(&c) / 8 + 1);
    c.banks = 6;
    EXPECT_EQ(broi_sched_init(mem.data(), &c), -1);
    c = table2(); c.local_entries = 31; c.remote_entries = 2;
    EXPECT_EQ(broi_sched_init(mem.data(), &c), -1);
    c = table2(); c.local_barriers = 3;
    EXPECT_EQ(broi_sched_init(mem.data(), &c), -1);
}

// Figure 6(c): Ready-SET (1.1, 1.2, 2.1, 3.1) all in bank 0, 2.2 (bank 1) behind a barrier in
// entry 1. 2.1 has the highest priority: completing it brings 2.2 (a new bank) into R.
TEST(BroiSched, Figure6cChooses21First)
{
    Broi b(table2());
    ASSERT_EQ(broi_sched_push(b.s, 0, 0, 0x1), BROI_OK);   // 1.1
    ASSERT_EQ(broi_sched_push(b.s, 0, 0, 0x2), BROI_OK);   // 1.2
    ASSERT_EQ(broi_sched_push(b.s, 1, 0, 0x3), BROI_OK);   // 2.1
    ASSERT_EQ(broi_sched_barrier(b.s, 1), BROI_OK);
    ASSERT_EQ(broi_sched_push(b.s, 1, 1, 0x4), BROI_OK);   // 2.2
    ASSERT_EQ(broi_sched_push(b.s, 2, 0, 0x5), BROI_OK);   // 3.1
    // eq. 2 in eighths + sigma*units: entry0 BLP({2.1,3.1})=1, size 2 -> 8+4*6 = 32
    EXPECT_EQ(broi_sched_key(b.s, 0), 32u);
    // entry1 BLP({1.1,1.2,3.1} + {2.2}) = 2, size 1 -> 16+28 = 44
    EXPECT_EQ(broi_sched_key(b.s, 1), 44u);
    // entry2 BLP({1.1,1.2,2.1}) = 1, size 1 -> 8+28 = 36
    EXPECT_EQ(broi_sched_key(b.s, 2), 36u);

    broi_issue iss[8];
    uint32_t bar = 0;
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 1u);          // one request per bank: only bank 0 has any
    EXPECT_TRUE(iss[0].valid);
    EXPECT_EQ(iss[0].entry, 1);
    EXPECT_EQ(iss[0].tag, 0x3);                          // 2.1
    EXPECT_EQ(bar, 1u << 1);                             // SubReady-SET of entry 1 drained: barrier
    // Ready-SET is now (1.1, 1.2, 2.2, 3.1)
    EXPECT_EQ(broi_sched_ready_banks(b.s, 1), 1u << 1);
    EXPECT_EQ(broi_sched_pending_barriers(b.s, 1), 0u);
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 2u);
    EXPECT_TRUE(iss[1].valid);
    EXPECT_EQ(iss[1].tag, 0x4);                          // 2.2 on bank 1
    EXPECT_EQ(iss[0].entry, 2);                          // 3.1 (size 1) beats (1.1, 1.2) on bank 0
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 1u);
    EXPECT_EQ(iss[0].tag, 0x1);                          // oldest unit of the entry first
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 1u);
    EXPECT_EQ(iss[0].tag, 0x2);
    EXPECT_EQ(broi_sched_occupancy(b.s), 0u);
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 0u);
}

TEST(BroiSched, BarrierOrdersWithinEntry)
{
    Broi b(table2());
    broi_sched_push(b.s, 3, 2, 1);
    broi_sched_push(b.s, 3, 2, 2);
    EXPECT_EQ(broi_sched_barrier(b.s, 3), BROI_OK);
    broi_sched_push(b.s, 3, 5, 3);                        // other bank, but behind the barrier
    EXPECT_EQ(broi_sched_set_size(b.s, 3, 0), 2u);
    EXPECT_EQ(broi_sched_set_size(b.s, 3, 1), 1u);
    broi_issue iss[8];
    uint32_t bar;
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 1u);            // bank 5 must not issue yet
    EXPECT_FALSE(iss[5].valid);
    EXPECT_EQ(bar, 0u);
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 1u);
    EXPECT_EQ(iss[2].tag, 2);
    EXPECT_EQ(bar, 1u << 3);
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 1u);
    EXPECT_TRUE(iss[5].valid);
    EXPECT_EQ(iss[5].tag, 3);
}

TEST(BroiSched, BarrierRegistersMergeAndFull)
{
    Broi b(table2());
    EXPECT_EQ(broi_sched_barrier(b.s, 0), BROI_MERGED);   // nothing to order
    broi_sched_push(b.s, 0, 0, 1);
    EXPECT_EQ(broi_sched_barrier(b.s, 0), BROI_OK);
    EXPECT_EQ(broi_sched_barrier(b.s, 0), BROI_MERGED);   // back-to-back barriers
    broi_sched_push(b.s, 0, 0, 2);
    EXPECT_EQ(broi_sched_barrier(b.s, 0), BROI_OK);
    broi_sched_push(b.s, 0, 0, 3);
    EXPECT_EQ(broi_sched_barrier(b.s, 0), BROI_FULL);     // two barrier index registers
    // remote entries have one
    broi_sched_push(b.s, 8, 0, 1);
    EXPECT_EQ(broi_sched_barrier(b.s, 8), BROI_OK);
    broi_sched_push(b.s, 8, 0, 2);
    EXPECT_EQ(broi_sched_barrier(b.s, 8), BROI_FULL);
    EXPECT_EQ(broi_sched_barrier(b.s, 10), BROI_BAD);
    for (int i = 3; i < 8; i++) EXPECT_EQ(broi_sched_push(b.s, 0, 1, 0), BROI_OK);
    EXPECT_EQ(broi_sched_push(b.s, 0, 1, 0), BROI_FULL);  // 8 units
}

TEST(BroiSched, BarrierAfterIssuedSetStillReachesMemory)
{
    Broi b(table2());
    broi_issue iss[8];
    uint32_t bar;
    broi_sched_push(b.s, 0, 4, 9);
    b.step(0xFF, 0, iss, &bar);
    EXPECT_TRUE(iss[4].valid);
    EXPECT_EQ(broi_sched_barrier(b.s, 0), BROI_OK);       // orders the issued request before later ones
    b.step(0xFF, 0, iss, &bar);
    EXPECT_EQ(bar, 1u);
}

TEST(BroiSched, BankReadyGatesIssue)
{
    Broi b(table2());
    broi_issue iss[8];
    uint32_t bar;
    broi_sched_push(b.s, 0, 1, 1);
    broi_sched_push(b.s, 1, 2, 2);
    EXPECT_EQ(b.step(1u << 2, 0, iss, &bar), 1u);
    EXPECT_TRUE(iss[2].valid);
    EXPECT_FALSE(iss[1].valid);
    EXPECT_EQ(broi_sched_count(b.s, 0), 1u);
}

TEST(BroiSched, LocalBeforeRemoteAndStarvation)
{
    broi_sched_cfg c = table2();
    c.starve = 3;
    Broi b(c);
    broi_issue iss[8];
    uint32_t bar;
    broi_sched_push(b.s, 8, 0, 7);                        // remote request
    // memory controller busy: remote waits even with nothing local
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 0u);
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 0u);
    EXPECT_EQ(broi_sched_starving(b.s), 0u);
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 0u);
    EXPECT_EQ(broi_sched_starving(b.s), 1u);              // blocked for 3 steps
    for (int i = 0; i < 4; i++) broi_sched_push(b.s, 0, 0, 1);
    EXPECT_EQ(b.step(0xFF, 0, iss, &bar), 1u);            // starving remote beats the local entry
    EXPECT_EQ(iss[0].entry, 8);
    EXPECT_EQ(broi_sched_starving(b.s), 0u);
    // with mc_low a remote competes, but a local candidate in the same bank wins
    broi_sched_push(b.s, 9, 0, 5);
    broi_sched_push(b.s, 9, 3, 6);
    EXPECT_EQ(b.step(0xFF, 1, iss, &bar), 2u);
    EXPECT_EQ(iss[0].entry, 0);
    EXPECT_EQ(iss[3].entry, 9);
}

TEST(BroiSched, StepMatchesTransactionApi)
{
    Broi a(table2()), b(table2());
    uint32_t x = 12345;
    auto rnd = [&x]() { x = x * 1103515245u + 12345u; return x >> 8; };
    for (int cyc = 0; cyc < 5000; cyc++) {
        broi_sched_in in{};
        in.in_valid = rnd() & 1; in.in_barrier = (rnd() % 4) == 0; in.in_entry = rnd() % 11;
        in.in_bank = rnd() % 8; in.in_tag = rnd() % 16; in.bank_ready = rnd() & 0xFF; in.mc_low = rnd() & 1;
        broi_sched_out o;
        broi_sched_step(a.s, &in, &o);
        broi_issue iss[8];
        uint32_t bar;
        b.step(in.bank_ready, in.mc_low, iss, &bar);
        EXPECT_EQ(bar, o.barrier);
        for (int k = 0; k < 8; k++) {
            EXPECT_EQ(iss[k].valid, (o.issue_valid >> k) & 1u);
            if (iss[k].valid) {
                EXPECT_EQ(iss[k].entry, o.issue_entry[k]);
                // entry ordering invariants: issued unit belongs to a ready set
                EXPECT_LT(iss[k].entry, 10);
            }
        }
        if (in.in_valid) {
            broi_result r = in.in_barrier ? broi_sched_barrier(b.s, in.in_entry)
                                          : broi_sched_push(b.s, in.in_entry, in.in_bank, in.in_tag);
            EXPECT_EQ(r, o.result);
        }
        EXPECT_EQ(o.occupancy, broi_sched_occupancy(b.s));
    }
    EXPECT_GT(broi_sched_get_stats(a.s)->issued, 1000u);
}

// Property: requests of one entry leave in barrier order (no request passes an older barrier).
TEST(BroiSched, RandomBarrierOrderProperty)
{
    Broi b(table2());
    uint32_t x = 777;
    auto rnd = [&x]() { x = x * 1664525u + 1013904223u; return x >> 8; };
    // tag = epoch number of the request in its entry (mod 16)
    uint32_t epoch_in[10] = {0}, last_issued_epoch[10] = {0};
    bool any_issued[10] = {false};
    uint32_t bars_in[10] = {0}, bars_out[10] = {0};
    for (int cyc = 0; cyc < 20000; cyc++) {
        broi_issue iss[8];
        uint32_t bar;
        b.step(rnd() & 0xFF, rnd() & 1, iss, &bar);
        for (int k = 0; k < 8; k++) {
            if (!iss[k].valid) continue;
            uint32_t e = iss[k].entry;
            // the epoch of every issued request equals the number of barriers already issued
            EXPECT_EQ(iss[k].tag, bars_out[e] % 16) << "entry " << e;
            any_issued[e] = true;
            last_issued_epoch[e] = iss[k].tag;
        }
        for (int e = 0; e < 10; e++) if (bar >> e & 1) bars_out[e]++;
        uint32_t e = rnd() % 10;
        if (rnd() % 3 == 0) {
            if (broi_sched_barrier(b.s, e) == BROI_OK) { epoch_in[e]++; bars_in[e]++; }
        } else {
            broi_sched_push(b.s, e, rnd() % 8, epoch_in[e] % 16);
        }
    }
    for (int e = 0; e < 10; e++) EXPECT_LE(bars_out[e], bars_in[e]);
    (void)last_issued_epoch;
    (void)any_issued;
}

// ---- merged epochs (cfg.epoch_merge = 1: the Epoch baseline of the paper's Figure 3(a)) ----

broi_sched_cfg merged()
{
    broi_sched_cfg c = table2();
    c.epoch_merge = 1;
    return c;
}

TEST(BroiSchedMerged, ConfigChecked)
{
    broi_sched_cfg c = merged();
    std::vector<uint64_t> mem(broi_sched_bytes(&c) / 8 + 1);
    EXPECT_EQ(broi_sched_init(mem.data(), &c), 0);
    c.epoch_merge = 2;
    EXPECT_EQ(broi_sched_init(mem.data(), &c), -1);
}

// Figure 3(a): three independent threads, barriers between their epochs; 1.1, 1.2, 2.1, 3.1 in
// bank 0, the later epochs elsewhere. Prior work sends (1.1, 1.2, 2.1, 3.1), barrier, (1.3, 2.2,
// 3.2), barrier, ...: every thread's i-th epoch persists in global epoch i, and a thread's epoch
// i+1 waits for every thread's epoch i even when its bank is free. tag = 16*thread + epoch.
TEST(BroiSchedMerged, Figure3aIthEpochsPersistTogether)
{
    broi_sched_cfg c = merged();
    c.tag_bits = 8;
    Broi b(c);
    auto push = [&](uint32_t e, uint32_t bank, uint32_t tag) { ASSERT_EQ(broi_sched_push(b.s, e, bank, tag), BROI_OK); };
    push(0, 0, 0x00); push(0, 0, 0x00);                       // 1.1, 1.2
    ASSERT_EQ(broi_sched_barrier(b.s, 0), BROI_OK);
    push(0, 1, 0x01);                                         // 1.3
    ASSERT_EQ(broi_sched_barrier(b.s, 0), BROI_OK);
    push(0, 2, 0x02);                                         // 1.4
    push(1, 0, 0x10);                                         // 2.1
    ASSERT_EQ(broi_sched_barrier(b.s, 1), BROI_OK);
    push(1, 3, 0x11);                                         // 2.2
    ASSERT_EQ(broi_sched_barrier(b.s, 1), BROI_OK);
    push(1, 4, 0x12);                                         // 2.3
    push(2, 0, 0x20);                                         // 3.1
    ASSERT_EQ(broi_sched_barrier(b.s, 2), BROI_OK);
    push(2, 5, 0x21);                                         // 3.2
    ASSERT_EQ(broi_sched_barrier(b.s, 2), BROI_OK);
    push(2, 6, 0x22);                                         // 3.3
    std::vector<std::vector<int>> by_step;                    // tags issued per step
    std::vector<uint64_t> epoch_of_step;
    for (int st = 0; st < 20 && broi_sched_occupancy(b.s); st++) {
        const uint64_t g = broi_sched_global_epoch(b.s);
        broi_issue iss[8];
        uint32_t bar = 0;
        b.step(0xFF, 0, iss, &bar);
        std::vector<int> tags;
        for (int k = 0; k < 8; k++)
            if (iss[k].valid) {
                tags.push_back(iss[k].tag);
                EXPECT_EQ(iss[k].tag & 0xF, g) << "a thread's epoch i persists in global epoch i";
            }
        by_step.push_back(tags);
        epoch_of_step.push_back(g);
    }
    // no eq. 2 (every local key 0, ties to the lowest entry): bank 0 serialises global epoch 0 in
    // entry order (1.1 first, not 2.1 as BROI would choose);
    // 2.2 (bank 3, free all along) waits until 3.1, the last of the epoch-0 requests, has issued.
    ASSERT_GE(by_step.size(), 6u);
    EXPECT_EQ(by_step[0], (std::vector<int>{0x00}));
    EXPECT_EQ(by_step[1], (std::vector<int>{0x00}));
    EXPECT_EQ(by_step[2], (std::vector<int>{0x10}));
    EXPECT_EQ(by_step[3], (std::vector<int>{0x20}));
    EXPECT_EQ(by_step[4], (std::vector<int>{0x01, 0x11, 0x21}));   // (1.3, 2.2, 3.2) together
    EXPECT_EQ(by_step[5], (std::vector<int>{0x02, 0x12, 0x22}));   // (1.4, 2.3, 3.3) together
    EXPECT_EQ(epoch_of_step[4], 1u);
    EXPECT_EQ(epoch_of_step[5], 2u);
    EXPECT_EQ(broi_sched_get_stats(b.s)->global_epochs, 2u);   // epoch 2 stays open (no barrier)
    EXPECT_EQ(broi_sched_occupancy(b.s), 0u);

    // The same requests under BROI (epoch_merge 0) issue 2.1 first and 2.2 in the same step as 1.1.
    broi_sched_cfg rc = table2();
    rc.tag_bits = 8;
    Broi r(rc);
    for (auto [e, bank, tag, bar] : std::vector<std::tuple<int, int, int, int>>{
             {0, 0, 0x00, 0}, {0, 0, 0x00, 1}, {0, 1, 0x01, 1}, {0, 2, 0x02, 0}, {1, 0, 0x10, 1}, {1, 3, 0x11, 1},
             {1, 4, 0x12, 0}, {2, 0, 0x20, 1}, {2, 5, 0x21, 1}, {2, 6, 0x22, 0}}) {
        ASSERT_EQ(broi_sched_push(r.s, e, bank, tag), BROI_OK);
        if (bar) {
            ASSERT_EQ(broi_sched_barrier(r.s, e), BROI_OK);
        }
    }
    broi_issue iss[8];
    uint32_t bar = 0;
    r.step(0xFF, 0, iss, &bar);
    EXPECT_TRUE(iss[0].valid);
    EXPECT_EQ(iss[0].tag, 0x10);
    r.step(0xFF, 0, iss, &bar);
    EXPECT_TRUE(iss[3].valid);                                // 2.2 before 1.1, 1.2 and 3.1
    EXPECT_EQ(iss[3].tag, 0x11);
}

// The single in-order queue (persim's broi-epoch-1q: every thread in local entry 0, in arrival
// order) makes a barrier of one thread order every other thread's later writes; the merged
// baseline orders a thread's writes only after the other threads' epochs of a lower index.
// Arrival: A writes a1 (bank 0), barrier, a2 (bank 1); then B writes b1 (bank 2) and b2 (bank 3).
TEST(BroiSchedMerged, DiffersFromSingleQueue)
{
    // merged: B's first epoch is global epoch 0 with a1 -> a1, b1, b2 in the first step
    Broi m(merged());
    ASSERT_EQ(broi_sched_push(m.s, 0, 0, 1), BROI_OK);
    ASSERT_EQ(broi_sched_barrier(m.s, 0), BROI_OK);
    ASSERT_EQ(broi_sched_push(m.s, 0, 1, 2), BROI_OK);
    ASSERT_EQ(broi_sched_push(m.s, 1, 2, 3), BROI_OK);
    ASSERT_EQ(broi_sched_push(m.s, 1, 3, 4), BROI_OK);
    broi_issue iss[8];
    uint32_t bar = 0;
    EXPECT_EQ(m.step(0xFF, 0, iss, &bar), 3u);
    EXPECT_TRUE(iss[0].valid && iss[2].valid && iss[3].valid);
    EXPECT_FALSE(iss[1].valid);                               // a2 waits for global epoch 1
    EXPECT_EQ(m.step(0xFF, 0, iss, &bar), 1u);
    EXPECT_EQ(iss[1].tag, 2);

    // single queue: one local entry, the same operations in arrival order -> a1 alone first
    broi_sched_cfg c = table2();
    c.local_entries = 1; c.units = 16;
    Broi q(c);
    ASSERT_EQ(broi_sched_push(q.s, 0, 0, 1), BROI_OK);
    ASSERT_EQ(broi_sched_barrier(q.s, 0), BROI_OK);
    ASSERT_EQ(broi_sched_push(q.s, 0, 1, 2), BROI_OK);
    ASSERT_EQ(broi_sched_push(q.s, 0, 2, 3), BROI_OK);
    ASSERT_EQ(broi_sched_push(q.s, 0, 3, 4), BROI_OK);
    EXPECT_EQ(q.step(0xFF, 0, iss, &bar), 1u);
    EXPECT_EQ(iss[0].tag, 1);
    EXPECT_EQ(q.step(0xFF, 0, iss, &bar), 3u);                // a2, b1, b2 after the barrier
}

// A thread with nothing buffered when a global epoch closes joins the current epoch; a request
// arriving in an open, already drained set (no barrier yet) still cannot overtake an earlier
// thread epoch: checked on random traffic against the per-entry set order and the global order.
TEST(BroiSchedMerged, RandomOrderProperty)
{
    for (uint32_t serial_k : {0u, 1u, 3u}) {
        broi_sched_cfg c = merged();
        c.serial = serial_k;
        Broi b(c);
        uint32_t x = 4242 + serial_k;
        auto rnd = [&x]() { x = x * 1664525u + 1013904223u; return x >> 8; };
        uint32_t epoch_in[10] = {0}, bars_out[10] = {0};
        int64_t last_set[10], last_g[10];
        for (int e = 0; e < 10; e++) { last_set[e] = -1; last_g[e] = -1; }
        uint64_t issued = 0, closes = 0;
        for (int cyc = 0; cyc < 30000; cyc++) {
            const uint64_t g = broi_sched_global_epoch(b.s);
            broi_issue iss[8];
            uint32_t bar;
            b.step(rnd() & 0xFF, rnd() & 1, iss, &bar);
            for (int k = 0; k < 8; k++) {
                if (!iss[k].valid) continue;
                const uint32_t e = iss[k].entry;
                issued++;
                EXPECT_EQ(iss[k].tag, bars_out[e] % 16) << "entry " << e;
                if (e < 8 && last_set[e] >= 0 && iss[k].tag != last_set[e]) {
                    EXPECT_GT((int64_t)g, last_g[e]) << "a later set of entry " << e << " in the same global epoch";
                }
                last_set[e] = iss[k].tag;
                last_g[e] = (int64_t)g;
            }
            for (int e = 0; e < 10; e++) if (bar >> e & 1) bars_out[e]++;
            if (broi_sched_global_epoch(b.s) != g) closes++;
            EXPECT_LE(broi_sched_global_epoch(b.s), g + 1);
            const uint32_t e = rnd() % 10;
            if (rnd() % 3 == 0) {
                if (broi_sched_barrier(b.s, e) == BROI_OK) epoch_in[e]++;
            } else {
                broi_sched_push(b.s, e, rnd() % 8, epoch_in[e] % 16);
            }
        }
        EXPECT_GT(issued, 1000u) << "serial " << serial_k;
        EXPECT_GT(closes, 100u) << "serial " << serial_k;
        EXPECT_EQ(broi_sched_get_stats(b.s)->global_epochs, closes);
    }
}

// ---- serial mode (cfg.serial = K: K entries' priorities per clock, a decision per sweep) ----

broi_sched_cfg serial(uint32_t k)
{
    broi_sched_cfg c = table2();
    c.serial = k;
    return c;
}

TEST(BroiSchedSerial, ConfigAndDecisionCycles)
{
    broi_sched_cfg c = table2();
    EXPECT_EQ(broi_sched_decision_cycles(&c), 1u);       // parallel (the zero default)
    c.serial = 1;  EXPECT_EQ(broi_sched_decision_cycles(&c), 10u);
    c.serial = 2;  EXPECT_EQ(broi_sched_decision_cycles(&c), 5u);
    c.serial = 3;  EXPECT_EQ(broi_sched_decision_cycles(&c), 4u);
    c.serial = 10; EXPECT_EQ(broi_sched_decision_cycles(&c), 1u);
    c.serial = 32; EXPECT_EQ(broi_sched_decision_cycles(&c), 1u);
    std::vector<uint64_t> mem(broi_sched_bytes(&c) / 8 + 1);
    EXPECT_EQ(broi_sched_init(mem.data(), &c), 0);
    c.serial = 33;
    EXPECT_EQ(broi_sched_init(mem.data(), &c), -1);
    EXPECT_EQ(broi_sched_decision_cycles(&c), 0u);
}

void load_figure6c(broi_sched *s)
{
    ASSERT_EQ(broi_sched_push(s, 0, 0, 0x1), BROI_OK);   // 1.1
    ASSERT_EQ(broi_sched_push(s, 0, 0, 0x2), BROI_OK);   // 1.2
    ASSERT_EQ(broi_sched_push(s, 1, 0, 0x3), BROI_OK);   // 2.1
    ASSERT_EQ(broi_sched_barrier(s, 1), BROI_OK);
    ASSERT_EQ(broi_sched_push(s, 1, 1, 0x4), BROI_OK);   // 2.2
    ASSERT_EQ(broi_sched_push(s, 2, 0, 0x5), BROI_OK);   // 3.1
}

// Figure 6(c): the parallel scheduler issues 2.1 in one step; the serial one (1 entry per clock)
// walks the 10 entries first and issues 2.1 at the 10th clock. The issue order is the same:
// (2.1), (3.1 | 2.2), (1.1), (1.2), one decision per 10 clocks.
TEST(BroiSchedSerial, Figure6cTakesTenClocksPerDecisionSameOrder)
{
    Broi p(table2()), s(serial(1));
    load_figure6c(p.s);
    load_figure6c(s.s);
    broi_issue iss[8];
    uint32_t bar = 0;
    EXPECT_EQ(p.step(0xFF, 0, iss, &bar), 1u);
    EXPECT_EQ(iss[0].tag, 0x3);
    for (int c = 0; c < 9; c++) {
        EXPECT_EQ(broi_sched_sweep_pos(s.s), (uint32_t)c);
        EXPECT_EQ(s.step(0xFF, 0, iss, &bar), 0u) << "clock " << c;
        EXPECT_EQ(bar, 0u);
        EXPECT_FALSE(iss[0].valid);
    }
    EXPECT_EQ(broi_sched_sweep_pos(s.s), 9u);
    EXPECT_EQ(s.step(0xFF, 0, iss, &bar), 1u);           // 10th clock: the decision
    EXPECT_EQ(broi_sched_sweep_pos(s.s), 0u);
    EXPECT_EQ(iss[0].entry, 1);
    EXPECT_EQ(iss[0].tag, 0x3);                          // 2.1, as the parallel scheduler
    EXPECT_EQ(bar, 1u << 1);
    EXPECT_EQ(broi_sched_get_stats(s.s)->steps, 1u);
    EXPECT_EQ(broi_sched_get_stats(s.s)->clocks, 10u);

    // the rest, decision by decision, against the parallel scheduler
    std::vector<std::vector<int>> po, so;
    for (int d = 0; d < 4; d++) {
        std::vector<int> v;
        p.step(0xFF, 0, iss, &bar);
        for (int b = 0; b < 8; b++) if (iss[b].valid) v.push_back(iss[b].tag);
        po.push_back(v);
        v.clear();
        for (int c = 0; c < 10; c++) {
            uint32_t n = s.step(0xFF, 0, iss, &bar);
            if (c < 9) {
                EXPECT_EQ(n, 0u);
            }
        }
        for (int b = 0; b < 8; b++) if (iss[b].valid) v.push_back(iss[b].tag);
        so.push_back(v);
    }
    EXPECT_EQ(po, (std::vector<std::vector<int>>{{0x5, 0x4}, {0x1}, {0x2}, {}}));
    EXPECT_EQ(so, po);
}

// A request that enters an entry after that entry's evaluation in the sweep waits for the next
// sweep: 19 clocks from push to issue, against 1 in parallel.
TEST(BroiSchedSerial, RequestBehindThePointerWaitsOneSweep)
{
    Broi p(table2()), s(serial(1));
    broi_issue iss[8];
    uint32_t bar;
    EXPECT_EQ(s.step(0xFF, 0, iss, &bar), 0u);           // clock 0 evaluates entry 0 (empty)
    broi_sched_push(p.s, 0, 2, 7);
    broi_sched_push(s.s, 0, 2, 7);
    EXPECT_EQ(p.step(0xFF, 0, iss, &bar), 1u);
    int at = -1;
    for (int c = 1; c < 40 && at < 0; c++)
        if (s.step(0xFF, 0, iss, &bar)) { at = c; EXPECT_EQ(iss[2].tag, 7); }
    EXPECT_EQ(at, 19);                                    // end of the second sweep
}

// Where the order differs: keys come from different clocks of the sweep. Entry 1's Next-SET adds
// bank 5 (key 44 > entry 0's 36). After entry 0 was evaluated (clock 0), entry 0 gets a barrier
// and a Next-SET request in bank 6, which raises its key to 44 (a tie, which entry 0 wins by
// index): the parallel scheduler now issues entry 0's request on bank 0, the serial one still
// holds entry 0's stale key 36 and issues entry 1's.
TEST(BroiSchedSerial, StaleKeyChangesTheChoice)
{
    Broi p(table2()), s(serial(1));
    for (Broi *x : {&p, &s}) {
        broi_sched_push(x->s, 0, 0, 1);
        broi_sched_push(x->s, 1, 0, 2);
        ASSERT_EQ(broi_sched_barrier(x->s, 1), BROI_OK);
        broi_sched_push(x->s, 1, 5, 3);
    }
    EXPECT_EQ(broi_sched_key(s.s, 0), 36u);
    EXPECT_EQ(broi_sched_key(s.s, 1), 44u);
    broi_issue iss[8];
    uint32_t bar;
    EXPECT_EQ(s.step(0xFF, 0, iss, &bar), 0u);           // entry 0 evaluated: key 36
    for (Broi *x : {&p, &s}) {
        ASSERT_EQ(broi_sched_barrier(x->s, 0), BROI_OK);
        broi_sched_push(x->s, 0, 6, 4);
    }
    EXPECT_EQ(broi_sched_key(p.s, 0), 44u);
    EXPECT_EQ(p.step(0xFF, 0, iss, &bar), 1u);
    EXPECT_EQ(iss[0].entry, 0);
    EXPECT_EQ(iss[0].tag, 1);
    uint32_t n = 0;
    for (int c = 1; c < 10; c++) n += s.step(0xFF, 0, iss, &bar);
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(iss[0].entry, 1);
    EXPECT_EQ(iss[0].tag, 2);
}

// K >= T entries per clock: every clock is a decision, identical to the parallel scheduler.
TEST(BroiSchedSerial, WideSerialEqualsParallel)
{
    for (uint32_t k : {10u, 32u}) {
        broi_sched_cfg c = table2();
        c.starve = 5;
        broi_sched_cfg cs = c;
        cs.serial = k;
        Broi a(c), b(cs);
        uint32_t x = 99;
        auto rnd = [&x]() { x = x * 1103515245u + 12345u; return x >> 8; };
        for (int cyc = 0; cyc < 20000; cyc++) {
            broi_sched_in in{};
            in.in_valid = rnd() % 4 != 0; in.in_barrier = rnd() % 4 == 0; in.in_entry = rnd() % 10;
            in.in_bank = rnd() % 8; in.in_tag = rnd() % 16; in.bank_ready = rnd() & 0xFF; in.mc_low = rnd() % 3 == 0;
            broi_sched_out oa, ob;
            broi_sched_step(a.s, &in, &oa);
            broi_sched_step(b.s, &in, &ob);
            ASSERT_EQ(oa.result, ob.result) << cyc;
            ASSERT_EQ(oa.issue_valid, ob.issue_valid) << cyc;
            for (int q = 0; q < 8; q++)
                if (oa.issue_valid >> q & 1) {
                    ASSERT_EQ(oa.issue_entry[q], ob.issue_entry[q]);
                    ASSERT_EQ(oa.issue_tag[q], ob.issue_tag[q]);
                }
            ASSERT_EQ(oa.barrier, ob.barrier);
            ASSERT_EQ(oa.starving, ob.starving);
            ASSERT_EQ(oa.occupancy, ob.occupancy);
        }
        EXPECT_GT(broi_sched_get_stats(b.s)->starve_grants, 0u);
    }
}

// Barrier order still holds in serial mode (same property as RandomBarrierOrderProperty).
TEST(BroiSchedSerial, RandomBarrierOrderProperty)
{
    for (uint32_t k : {1u, 3u}) {
        Broi b(serial(k));
        uint32_t x = 4242 + k;
        auto rnd = [&x]() { x = x * 1664525u + 1013904223u; return x >> 8; };
        uint32_t epoch_in[10] = {0}, bars_in[10] = {0}, bars_out[10] = {0};
        uint64_t issued = 0;
        for (int cyc = 0; cyc < 40000; cyc++) {
            broi_issue iss[8];
            uint32_t bar;
            b.step(rnd() & 0xFF, rnd() & 1, iss, &bar);
            for (int q = 0; q < 8; q++) {
                if (!iss[q].valid) continue;
                EXPECT_EQ(iss[q].tag, bars_out[iss[q].entry] % 16) << "entry " << (int)iss[q].entry;
                issued++;
            }
            for (int e = 0; e < 10; e++) if (bar >> e & 1) bars_out[e]++;
            uint32_t e = rnd() % 10;
            if (rnd() % 3 == 0) {
                if (broi_sched_barrier(b.s, e) == BROI_OK) { epoch_in[e]++; bars_in[e]++; }
            } else {
                broi_sched_push(b.s, e, rnd() % 8, epoch_in[e] % 16);
            }
        }
        for (int e = 0; e < 10; e++) EXPECT_LE(bars_out[e], bars_in[e]);
        EXPECT_GT(issued, 1000u);
    }
}

// Scheduling-latency cost of the serial scheduler, core level (not the full system): 8 threads
// on broi_table2 (remote entries idle), each writes with probability `rate` per clock in epochs of
// 1..4 writes separated by barriers, banks uniform; a bank is busy `svc` clocks after an issue.
// Latency = clocks from the write's arrival at the controller (queued in the thread's FIFO while
// its entry is full) to its issue. Prints one line per (svc, load, mode); the table in
// results/area/broi_design_space.md comes from here (PERSIM_BROI_DSE=1 prints it; the test always
// checks that the serial modes only cost latency, never lose a write).
struct DseResult { double lat, thr; uint64_t issued; };

DseResult dse_run(uint32_t k, uint32_t svc, double rate, uint64_t clocks, uint64_t seed)
{
    Broi b(serial(k));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    struct Op { int bar; uint32_t bank; uint64_t t; };
    std::vector<std::deque<Op>> q(8);
    std::vector<std::vector<uint64_t>> born(10, std::vector<uint64_t>(16, 0));
    std::vector<uint32_t> left(8, 0), tagn(8, 0);
    std::vector<uint64_t> busy(8, 0);
    double sum = 0;
    uint64_t n = 0, warm = clocks / 10;
    for (uint64_t t = 0; t < clocks; t++) {
        uint32_t ready = 0;
        for (uint32_t bk = 0; bk < 8; bk++) if (busy[bk] <= t) ready |= 1u << bk;
        broi_issue iss[8];
        uint32_t bar;
        broi_sched_schedule(b.s, ready, 1, iss, &bar);
        for (uint32_t bk = 0; bk < 8; bk++) {
            if (!iss[bk].valid) continue;
            busy[bk] = t + svc;
            if (t >= warm) { sum += (double)(t - born[iss[bk].entry][iss[bk].tag]); n++; }
        }
        for (uint32_t e = 0; e < 8; e++) {
            if (u(rng) < rate) {
                if (left[e] == 0) left[e] = 1 + (uint32_t)(rng() % 4);
                q[e].push_back({0, (uint32_t)(rng() % 8), t});
                if (--left[e] == 0) q[e].push_back({1, 0, t});
            }
            while (!q[e].empty()) {
                Op &o = q[e].front();
                if (o.bar) {
                    if (broi_sched_barrier(b.s, e) == BROI_FULL) break;
                } else {
                    uint32_t tag = tagn[e] % 16;
                    if (broi_sched_push(b.s, e, o.bank, tag) != BROI_OK) break;
                    born[e][tag] = o.t;
                    tagn[e]++;
                }
                q[e].pop_front();
            }
        }
    }
    return {n ? sum / (double)n : 0.0, (double)n / (double)(clocks - warm), n};
}

TEST(BroiSchedSerial, LatencyCostCoreLevel)
{
    const bool print = std::getenv("PERSIM_BROI_DSE") != nullptr;
    const uint64_t clocks = print ? 400000 : 60000;
    const std::vector<uint64_t> seeds = print ? std::vector<uint64_t>{7, 8, 9} : std::vector<uint64_t>{7};
    auto avg = [&](uint32_t k, uint32_t svc, double rate) {
        DseResult m{0, 0, 0};
        for (uint64_t sd : seeds) {
            DseResult r = dse_run(k, svc, rate, clocks, sd);
            m.lat += r.lat / (double)seeds.size(); m.thr += r.thr / (double)seeds.size(); m.issued += r.issued;
        }
        return m;
    };
    for (uint32_t svc : {40u, 750u}) {
        const double cap = 8.0 / svc;                    // bank-limited writes per clock
        for (double load : {0.3, 0.6, 0.75}) {
            const double rate = load * cap / 8.0;
            DseResult par = avg(0, svc, rate);
            for (uint32_t k : {0u, 5u, 2u, 1u}) {
                DseResult r = k ? avg(k, svc, rate) : par;
                if (print)
                    std::printf("DSE svc=%u load=%.2f serial=%u decision_cycles=%u mean_latency=%.1f "
                                "delta=%.1f throughput=%.5f\n", svc, load, k,
                                k ? (10 + k - 1) / k : 1, r.lat, r.lat - par.lat, r.thr);
                EXPECT_GT(r.issued, 0u);
                if (load < 0.7) {   // below saturation: serial costs latency, carries the same load
                    EXPECT_GE(r.lat + 0.5, par.lat) << "serial " << k;
                    EXPECT_NEAR(r.thr, par.thr, 0.05 * par.thr);
                }
            }
        }
    }
}


// ---- durability order (cfg.order): completion floors and per-line completion order ----

broi_sched_cfg ordered(uint32_t lines, uint32_t merge = 0)
{
    broi_sched_cfg c = table2();
    c.order = 1; c.lines = lines; c.line_bits = 64; c.time_bits = 64; c.epoch_merge = merge;
    return c;
}

TEST(BroiSchedOrder, ConfigChecked)
{
    broi_sched_cfg c = ordered(8);
    std::vector<uint64_t> mem(broi_sched_bytes(&c) / 8 + 1);
    EXPECT_EQ(broi_sched_init(mem.data(), &c), 0);
    const broi_sched_cfg plain = table2();
    EXPECT_GT(broi_sched_bytes(&c), broi_sched_bytes(&plain));
    c.lines = 0;
    EXPECT_EQ(broi_sched_init(mem.data(), &c), -1);
    c = ordered(8); c.time_bits = 0;
    EXPECT_EQ(broi_sched_init(mem.data(), &c), -1);
    c = ordered(8); c.line_bits = 65;
    EXPECT_EQ(broi_sched_init(mem.data(), &c), -1);
    c = ordered(8); c.order = 2;
    EXPECT_EQ(broi_sched_init(mem.data(), &c), -1);
    broi_sched_cfg off = table2();   // order 0: floors 0, completions as given
    Broi b(off);
    EXPECT_EQ(broi_sched_complete(b.s, 0, 0, 1, 500), 500u);
    EXPECT_EQ(broi_sched_complete(b.s, 0, 0, 1, 300), 300u);
}

// A later barrier set of an entry starts after every write of its earlier sets; another entry's
// writes do not hold it.
TEST(BroiSchedOrder, FloorFollowsBarrierSets)
{
    Broi b(ordered(16));
    broi_issue iss[BROI_MAX_BANKS];
    uint32_t bar = 0;
    ASSERT_EQ(broi_sched_push(b.s, 0, 0, 1), BROI_OK);
    ASSERT_EQ(broi_sched_push(b.s, 0, 1, 2), BROI_OK);
    ASSERT_EQ(broi_sched_barrier(b.s, 0), BROI_OK);
    ASSERT_EQ(broi_sched_push(b.s, 0, 2, 3), BROI_OK);
    ASSERT_EQ(broi_sched_push(b.s, 1, 3, 4), BROI_OK);
    ASSERT_EQ(b.step(0xFF, 0, iss, &bar), 3u);          // 1, 2 (entry 0), 4 (entry 1)
    EXPECT_EQ(iss[0].floor, 0u);
    EXPECT_EQ(bar, 1u);
    EXPECT_EQ(broi_sched_complete(b.s, 0, 0, 10, 300), 300u);
    EXPECT_EQ(broi_sched_complete(b.s, 0, 0, 11, 200), 200u);
    EXPECT_EQ(broi_sched_complete(b.s, 0, 1, 12, 900), 900u);
    ASSERT_EQ(b.step(0xFF, 0, iss, &bar), 1u);          // 3: the next set
    EXPECT_TRUE(iss[2].valid);
    EXPECT_EQ(iss[2].floor, 300u);                       // the later of 1 and 2, not entry 1's 900
    EXPECT_EQ(broi_sched_floor(b.s, 0), 300u);
}

TEST(BroiSchedOrder, LineOrderAndFreeSlots)
{
    Broi b(ordered(2));
    EXPECT_EQ(broi_sched_complete(b.s, 0, 0, 7, 500), 500u);
    EXPECT_EQ(broi_sched_complete(b.s, 0, 1, 7, 300), 500u);   // behind the earlier write of line 7
    EXPECT_EQ(broi_sched_line_done(b.s, 100, 7), 500u);
    EXPECT_EQ(broi_sched_line_done(b.s, 500, 7), 0u);          // completed: forgotten
    EXPECT_EQ(broi_sched_complete(b.s, 500, 0, 7, 510), 510u);
    EXPECT_EQ(broi_sched_complete(b.s, 500, 0, 8, 600), 600u);
    EXPECT_EQ(broi_sched_complete(b.s, 500, 0, 9, 550), 550u);  // table full: not remembered
    EXPECT_EQ(broi_sched_get_stats(b.s)->line_overflow, 1u);
    EXPECT_EQ(broi_sched_complete(b.s, 500, 0, 9, 540), 540u);
    EXPECT_EQ(broi_sched_get_stats(b.s)->line_waits, 1u);
}

// The core's floors and line order against the bookkeeping the broi front end used to do itself
// (epoch numbers per write, an EpochOrder per entry and for the global epochs, a line -> last
// completion map), on random traffic with a timed device stand-in.
struct RefOrder {
    uint64_t issued = 0, floor = 0, set_done = 0;
    void enter(uint64_t e)
    {
        if (e == issued) return;
        floor = std::max(floor, set_done);
        set_done = 0;
        issued = e;
    }
};

void random_against_reference(uint32_t merge, uint32_t serial, uint64_t seed)
{
    broi_sched_cfg c = ordered(64 + 8, merge);
    c.serial = serial;
    Broi b(c);
    const uint32_t T = c.local_entries + c.remote_entries;
    std::mt19937_64 rng(seed);
    std::vector<RefOrder> ref(T);
    RefOrder g;
    std::vector<uint64_t> epoch(T, 0), since(T, 0);
    std::vector<std::vector<uint64_t>> tag_epoch(T, std::vector<uint64_t>(16, 0));
    std::vector<std::vector<int>> tag_used(T, std::vector<int>(16, 0));
    std::vector<std::vector<uint64_t>> tag_line(T, std::vector<uint64_t>(16, 0));
    std::map<uint64_t, uint64_t> line_done;
    broi_issue iss[BROI_MAX_BANKS];
    uint64_t t = 0, checked = 0, waited = 0;
    for (int step = 0; step < 20000; step++) {
        t += 400;
        for (int k = 0; k < 3; k++) {
            uint32_t e = (uint32_t)(rng() % T);
            if (rng() % 4 == 0) {
                broi_result r = broi_sched_barrier(b.s, e);
                if (r == BROI_OK || (r == BROI_MERGED && since[e])) ++epoch[e];
                if (r != BROI_FULL) since[e] = 0;
            } else {
                uint32_t tag = 0;
                while (tag < 16 && tag_used[e][tag]) ++tag;
                if (tag == 16 || broi_sched_push(b.s, e, (uint32_t)(rng() % 8), tag) != BROI_OK) continue;
                tag_used[e][tag] = 1; tag_epoch[e][tag] = epoch[e]; tag_line[e][tag] = rng() % 12; ++since[e];
            }
        }
        uint32_t bar = 0;
        const uint64_t gepoch = broi_sched_global_epoch(b.s);
        broi_sched_schedule(b.s, (uint32_t)rng() & 0xFF, (int)(rng() % 2), iss, &bar);
        for (uint32_t k = 0; k < c.banks; k++) {
            if (!iss[k].valid) continue;
            const uint32_t e = iss[k].entry, tag = iss[k].tag;
            ref[e].enter(tag_epoch[e][tag]);
            const bool merged = merge && e < c.local_entries;
            if (merged) g.enter(gepoch);
            const uint64_t want = std::max(ref[e].floor, merged ? g.floor : 0);
            ASSERT_EQ(iss[k].floor, want) << "step " << step << " bank " << k;
            const uint64_t start = std::max(t, want);
            if (start > t) waited++;
            uint64_t dev = start + 200 + rng() % 3000, rd = dev;
            auto it = line_done.find(tag_line[e][tag]);
            if (it != line_done.end()) rd = std::max(rd, it->second);
            line_done[tag_line[e][tag]] = rd;
            const uint64_t done = broi_sched_complete(b.s, t, e, tag_line[e][tag], dev);
            ASSERT_EQ(done, rd) << "step " << step << " bank " << k;
            ref[e].set_done = std::max(ref[e].set_done, done);
            if (merged) g.set_done = std::max(g.set_done, done);
            tag_used[e][tag] = 0;
            checked++;
        }
    }
    EXPECT_GT(checked, 10000u);
    EXPECT_GT(waited, 100u);
    EXPECT_GT(broi_sched_get_stats(b.s)->line_waits, 100u);
    EXPECT_EQ(broi_sched_get_stats(b.s)->line_overflow, 0u);
}

TEST(BroiSchedOrder, RandomMatchesFrontEndBookkeeping) { random_against_reference(0, 0, 11); }
TEST(BroiSchedOrder, RandomMatchesFrontEndBookkeepingMerged) { random_against_reference(1, 0, 12); }
TEST(BroiSchedOrder, RandomMatchesFrontEndBookkeepingSerial) { random_against_reference(0, 3, 13); }

} // namespace
