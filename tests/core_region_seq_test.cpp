// Unit tests of the region sequencer core (cores/region_seq.{h,c}): region IDs from one counter,
// durability in ID order, the three end-of-region policies, the ID space of rid_bits, the
// checkpoint layout and T_p (LightWSP III-B, IV-A..C, eq. 1).
#include <gtest/gtest.h>
#include <cstdint>
#include <vector>
extern "C" {
#include "region_seq.h"
}

namespace {

struct Seq {
    std::vector<uint64_t> mem;
    region_seq *s = nullptr;
    explicit Seq(uint32_t threads, uint32_t policy = RSEQ_LAZY, uint32_t rid_bits = 16, uint64_t base = 0x1000,
                 uint32_t held = 0)
    {
        region_seq_cfg c{threads, rid_bits, policy, base, held};
        const size_t n = region_seq_bytes(&c);
        EXPECT_GT(n, 0u);
        mem.assign(n / 8 + 1, 0xDEADBEEFDEADBEEFull);   // garbage: init must clear it
        EXPECT_EQ(region_seq_init(mem.data(), &c), 0);
        s = reinterpret_cast<region_seq *>(mem.data());
    }
    // thread t stores `writes` words and ends its region at time `t_end`; returns the region
    uint64_t region(uint32_t t, uint32_t writes, uint64_t t_end)
    {
        const uint64_t id = rseq_open(s, t);
        for (uint32_t i = 0; i < writes; ++i) rseq_write(s, id);
        uint64_t ended = RSEQ_NO_ID;
        EXPECT_EQ(rseq_end(s, t, t_end, &ended), 1);
        EXPECT_EQ(ended, id);
        return id;
    }
};

TEST(RegionSeq, RejectsBadConfig)
{
    std::vector<uint64_t> mem(1 << 16);
    for (region_seq_cfg c : {region_seq_cfg{0, 16, RSEQ_LAZY, 0, 0}, region_seq_cfg{4097, 16, RSEQ_LAZY, 0, 0},
                             region_seq_cfg{4, 0, RSEQ_LAZY, 0, 0}, region_seq_cfg{4, 17, RSEQ_LAZY, 0, 0},
                             region_seq_cfg{4, 16, 3, 0, 0}, region_seq_cfg{4, 2, RSEQ_LAZY, 0, 4}}) {
        EXPECT_EQ(region_seq_bytes(&c), 0u);
        EXPECT_EQ(region_seq_init(mem.data(), &c), -1);
    }
    region_seq_cfg ok{4, 4, RSEQ_LAZY, 0, 0};
    EXPECT_EQ(region_seq_init(nullptr, &ok), -1);
    EXPECT_EQ(region_seq_init(reinterpret_cast<char *>(mem.data()) + 4, &ok), -1);   // misaligned
}

TEST(RegionSeq, IdsComeFromOneCounterInTakeOrder)
{
    Seq q(3);
    EXPECT_EQ(rseq_current(q.s, 0), RSEQ_NO_ID);
    EXPECT_EQ(rseq_open(q.s, 1), 0u);
    EXPECT_EQ(rseq_open(q.s, 0), 1u);
    EXPECT_EQ(rseq_open(q.s, 1), 0u);      // the open region, not a new one
    EXPECT_EQ(rseq_open(q.s, 2), 2u);
    EXPECT_EQ(rseq_taken(q.s), 3u);
    uint64_t id = 0;
    EXPECT_EQ(rseq_end(q.s, 1, 10, &id), 1);
    EXPECT_EQ(id, 0u);
    EXPECT_EQ(rseq_open(q.s, 1), 3u);
}

TEST(RegionSeq, EndWithoutStoresSendsNoBoundary)
{
    Seq q(1);
    uint64_t id = 77;
    EXPECT_EQ(rseq_end(q.s, 0, 5, &id), 0);
    EXPECT_EQ(id, 77u);
    EXPECT_EQ(rseq_taken(q.s), 0u);
    EXPECT_TRUE(rseq_durable_point(q.s, 0));
}

TEST(RegionSeq, DurableWhenEndedAndEveryWriteAcked)
{
    Seq q(2);
    const uint64_t a = q.region(0, 2, 100);
    EXPECT_FALSE(rseq_durable(q.s, a));
    rseq_ack(q.s, a, 150);
    EXPECT_FALSE(rseq_durable(q.s, a));
    rseq_ack(q.s, a, 130);
    EXPECT_TRUE(rseq_durable(q.s, a));
    EXPECT_TRUE(rseq_idle(q.s));
    // acked before the end: not durable until ended
    const uint64_t b = rseq_open(q.s, 1);
    rseq_write(q.s, b);
    rseq_ack(q.s, b, 200);
    EXPECT_FALSE(rseq_durable(q.s, b));
    uint64_t id;
    rseq_end(q.s, 1, 210, &id);
    EXPECT_TRUE(rseq_durable(q.s, b));
}

TEST(RegionSeq, OldestLiveAdvancesInIdOrderAndSumsTp)
{
    Seq q(2);
    const uint64_t a = q.region(0, 1, 100);    // durable at 400: T_p 300
    const uint64_t b = q.region(1, 1, 120);    // durable at 150: T_p 30
    rseq_ack(q.s, b, 150);
    EXPECT_TRUE(rseq_durable(q.s, b));         // durable, though an older region is not
    EXPECT_EQ(rseq_oldest_live(q.s), 0u);
    EXPECT_EQ(rseq_persist_latency_ps(q.s), 0u);
    rseq_ack(q.s, a, 400);
    EXPECT_EQ(rseq_oldest_live(q.s), 2u);
    EXPECT_EQ(rseq_persist_latency_ps(q.s), 330u);
}

TEST(RegionSeq, LazyPolicyNeverHolds)
{
    Seq q(1, RSEQ_LAZY);
    const uint64_t a = q.region(0, 1, 10);
    EXPECT_TRUE(rseq_core_may_go(q.s, 0));
    rseq_boundary_sent(q.s, 0, a);
    EXPECT_FALSE(rseq_path_holds(q.s, 0));
    EXPECT_TRUE(rseq_path_may_send(q.s, 0));
    EXPECT_FALSE(rseq_durable_point(q.s, 0));   // a durability point waits, whatever the policy
}

TEST(RegionSeq, CoreWaitsPolicyHoldsTheCoreUntilDurable)
{
    Seq q(2, RSEQ_CORE_WAITS);
    const uint64_t a = q.region(0, 1, 10);
    EXPECT_FALSE(rseq_core_may_go(q.s, 0));
    EXPECT_TRUE(rseq_core_may_go(q.s, 1));      // per thread
    rseq_boundary_sent(q.s, 0, a);
    EXPECT_TRUE(rseq_path_may_send(q.s, 0));    // the path is not held
    rseq_ack(q.s, a, 20);
    EXPECT_TRUE(rseq_core_may_go(q.s, 0));
}

TEST(RegionSeq, PathWaitsPolicyHoldsThePathUntilDurable)
{
    Seq q(1, RSEQ_PATH_WAITS);
    const uint64_t a = q.region(0, 1, 10);
    EXPECT_TRUE(rseq_core_may_go(q.s, 0));      // the core goes on
    EXPECT_TRUE(rseq_path_may_send(q.s, 0));    // nothing held before the boundary left
    rseq_boundary_sent(q.s, 0, a);
    EXPECT_TRUE(rseq_path_holds(q.s, 0));
    EXPECT_FALSE(rseq_path_may_send(q.s, 0));
    rseq_ack(q.s, a, 20);
    EXPECT_TRUE(rseq_path_may_send(q.s, 0));
    EXPECT_FALSE(rseq_path_holds(q.s, 0));      // the hold is cleared
}

TEST(RegionSeq, TagsWrapAndAtMostTwoToRidBitsRegionsAreLive)
{
    Seq q(1, RSEQ_LAZY, 2);      // 4 tags
    uint64_t ids[4];
    for (int i = 0; i < 4; ++i) ids[i] = q.region(0, 1, 10 + i);
    EXPECT_EQ(rseq_tag(q.s, ids[3]), 3u);
    EXPECT_EQ(rseq_open(q.s, 0), RSEQ_NO_ID);   // a fifth would alias region 0's tag
    rseq_ack(q.s, ids[1], 30);                   // not the oldest: still full
    EXPECT_EQ(rseq_open(q.s, 0), RSEQ_NO_ID);
    rseq_ack(q.s, ids[0], 30);
    const uint64_t e = rseq_open(q.s, 0);
    EXPECT_EQ(e, 4u);
    EXPECT_EQ(rseq_tag(q.s, e), 0u);
    rseq_write(q.s, e);
    EXPECT_FALSE(rseq_durable(q.s, e));          // the reused record starts clean
}

// The controllers may still hold `held` tags behind the oldest live region (their flush IDs trail
// it by up to the WPQ window): only 2^rid_bits - held regions may be live, or a new region's tag
// aliases one a controller has not committed yet (issue 27 item 1).
TEST(RegionSeq, TagsHeldByTheControllersAreNotReused)
{
    Seq q(1, RSEQ_LAZY, 3, 0x1000, 2);      // 8 tags, 2 held: 6 live
    uint64_t ids[6];
    for (int i = 0; i < 6; ++i) ids[i] = q.region(0, 1, 10 + i);
    EXPECT_TRUE(rseq_ids_exhausted(q.s));
    EXPECT_EQ(rseq_open(q.s, 0), RSEQ_NO_ID);
    rseq_ack(q.s, ids[0], 30);
    EXPECT_FALSE(rseq_ids_exhausted(q.s));
    EXPECT_EQ(rseq_open(q.s, 0), 6u);
    EXPECT_TRUE(rseq_ids_exhausted(q.s));
}

TEST(RegionSeq, CheckpointLayout)
{
    Seq q(4, RSEQ_LAZY, 16, 0x8000);
    uint64_t addr = 0, v = 0;
    rseq_ckpt(q.s, 2, 5, &addr, &v);
    EXPECT_EQ(addr, 0x8000u + 2 * 512 + 5 * 8);
    EXPECT_EQ(v, 5u);                            // no region open: ID 0
    rseq_open(q.s, 0);
    const uint64_t r = rseq_open(q.s, 2);
    rseq_ckpt(q.s, 2, RSEQ_PC_SLOT, &addr, &v);
    EXPECT_EQ(addr, 0x8000u + 2 * 512 + 63 * 8);
    EXPECT_EQ(v, r << 8 | 63);
}

} // namespace
