// Unit tests of the BROI controller core (cores/broi_sched.{h,c}).
#include <gtest/gtest.h>
#include <vector>
extern "C" {
#include "broi_sched.h"
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

} // namespace
