// Unit tests of cores/sbrp_pb.c: the SBRP per-SM persist buffer (ASPLOS'23, section 6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "sbrp_pb.h"
}

namespace {

constexpr uint32_t NO = SBRP_NO_ENTRY;

uint64_t bit(uint32_t w) { return uint64_t(1) << w; }

// Caller-owned PB state in an 8-byte aligned buffer.
class Pb {
public:
    Pb(uint32_t entries, uint32_t warps, uint32_t lines, uint32_t policy, uint32_t window = 4)
    {
        cfg_ = sbrp_pb_cfg{entries, warps, lines, policy, window};
        size_t n = sbrp_pb_bytes(&cfg_);
        EXPECT_GT(n, 0u);
        mem_.assign((n + 7) / 8, 0xA5A5A5A5A5A5A5A5ull);   // init must not rely on zeroed memory
        EXPECT_EQ(sbrp_pb_init(mem_.data(), &cfg_), 0);
    }
    Pb(const Pb &) = delete;
    Pb &operator=(const Pb &) = delete;
    operator sbrp_pb *() { return reinterpret_cast<sbrp_pb *>(mem_.data()); }
    sbrp_pb *get() { return reinterpret_cast<sbrp_pb *>(mem_.data()); }

private:
    sbrp_pb_cfg cfg_;
    std::vector<uint64_t> mem_;
};

struct Drained {
    sbrp_drain d;
    uint32_t line;
};
Drained drain(sbrp_pb *pb)
{
    Drained r{};
    r.d = sbrp_pb_drain(pb, &r.line);
    return r;
}

uint32_t alloc(sbrp_pb *pb, uint32_t warp, uint32_t line)
{
    uint32_t e = NO;
    EXPECT_EQ(sbrp_pb_store(pb, warp, line, NO, &e), SBRP_ALLOCATED);
    EXPECT_NE(e, NO);
    return e;
}

void expect_flush(sbrp_pb *pb, uint32_t line)
{
    Drained r = drain(pb);
    EXPECT_EQ(r.d, SBRP_DRAIN_FLUSH);
    EXPECT_EQ(r.line, line);
}

void expect_order(sbrp_pb *pb) { EXPECT_EQ(drain(pb).d, SBRP_DRAIN_ORDER); }
void expect_idle(sbrp_pb *pb) { EXPECT_EQ(drain(pb).d, SBRP_DRAIN_IDLE); }

// ---------------------------------------------------------------------------------------------

TEST(SbrpPb, ConfigValidation)
{
    sbrp_pb_cfg bad[] = {
        {0, 4, 16, SBRP_EAGER, 1},     {65535, 4, 16, SBRP_EAGER, 1}, {8, 0, 16, SBRP_EAGER, 1},
        {8, 65, 16, SBRP_EAGER, 1},    {8, 4, 0, SBRP_EAGER, 1},      {8, 4, 65536, SBRP_EAGER, 1},
        {8, 4, 16, 3, 1},              {8, 4, 16, SBRP_WINDOW, 0},
    };
    std::vector<uint64_t> mem(1024);
    for (const sbrp_pb_cfg &c : bad) {
        EXPECT_EQ(sbrp_pb_bytes(&c), 0u);
        EXPECT_EQ(sbrp_pb_init(mem.data(), &c), -1);
    }
    sbrp_pb_cfg ok{8, 64, 16, SBRP_LAZY, 0};   // window only matters under SBRP_WINDOW
    ASSERT_GT(sbrp_pb_bytes(&ok), 0u);
    ASSERT_LE(sbrp_pb_bytes(&ok), mem.size() * 8);
    EXPECT_EQ(sbrp_pb_init(mem.data(), &ok), 0);
    EXPECT_EQ(sbrp_pb_init(reinterpret_cast<char *>(mem.data()) + 4, &ok), -1);   // misaligned
    EXPECT_EQ(sbrp_pb_init(nullptr, &ok), -1);
    sbrp_pb *pb = reinterpret_cast<sbrp_pb *>(mem.data());
    EXPECT_EQ(sbrp_pb_config(pb)->entries, 8u);
    EXPECT_TRUE(sbrp_pb_empty(pb));
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    // Warp 63 works (no shift overflow).
    uint32_t e;
    EXPECT_EQ(sbrp_pb_store(pb, 63, 3, NO, &e), SBRP_ALLOCATED);
    uint64_t w;
    ASSERT_TRUE(sbrp_pb_entry(pb, 0, nullptr, nullptr, &w));
    EXPECT_EQ(w, bit(63));
}

TEST(SbrpPb, InvalidArgumentsAreNoOps)
{
    Pb pb(4, 4, 16, SBRP_EAGER);
    uint32_t e = 7, l = 7;
    EXPECT_EQ(sbrp_pb_store(pb, 4, 1, NO, &e), SBRP_OK);   // warp out of range
    EXPECT_EQ(e, NO);
    EXPECT_EQ(sbrp_pb_store(pb, 0, 16, NO, &e), SBRP_OK);  // line out of range
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_PERSIST), SBRP_OK);
    EXPECT_EQ(sbrp_pb_fence(pb, 0, static_cast<sbrp_type>(7)), SBRP_OK);
    EXPECT_EQ(sbrp_pb_evict(pb, 0, 2, &l), SBRP_OK);       // no such entry
    EXPECT_EQ(l, NO);
    EXPECT_EQ(sbrp_pb_count(pb), 0u);
    sbrp_pb_ack(pb);                                        // spurious ack ignored
    EXPECT_EQ(sbrp_pb_actr(pb), 0u);
    EXPECT_EQ(sbrp_pb_get_stats(pb)->acks, 0u);
    // A stale pb_index (entry of another line) is treated as "no entry".
    uint32_t ex = alloc(pb, 0, 1);
    EXPECT_EQ(sbrp_pb_store(pb, 0, 2, ex, &e), SBRP_ALLOCATED);
    EXPECT_NE(e, ex);
    EXPECT_EQ(sbrp_pb_count(pb), 2u);
}

TEST(SbrpPb, StoresCoalesceUnlessOrderedBySameWarp)
{
    Pb pb(8, 4, 16, SBRP_EAGER);
    uint32_t e0 = alloc(pb, 0, 1);
    uint32_t e;
    EXPECT_EQ(sbrp_pb_store(pb, 0, 1, e0, &e), SBRP_OK);   // same warp, no ordering: coalesce
    EXPECT_EQ(e, e0);
    EXPECT_EQ(sbrp_pb_store(pb, 1, 1, e0, &e), SBRP_OK);   // other warp: coalesce
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_OFENCE), SBRP_OK);
    EXPECT_EQ(sbrp_pb_store(pb, 1, 1, e0, &e), SBRP_OK);   // fence is warp 0's only
    EXPECT_EQ(sbrp_pb_store(pb, 0, 1, e0, &e), SBRP_STALL_ORDER);
    EXPECT_EQ(e, NO);
    uint64_t w;
    ASSERT_TRUE(sbrp_pb_entry(pb, 0, nullptr, nullptr, &w));
    EXPECT_EQ(w, 0x3u);
    const sbrp_pb_stats *st = sbrp_pb_get_stats(pb);
    EXPECT_EQ(st->stores, 4u);
    EXPECT_EQ(st->allocated, 1u);
    EXPECT_EQ(st->coalesced, 3u);
    EXPECT_EQ(st->stall_order, 1u);
}

// Section 6.1: (1) pX=a; (2) pY=b; (3) oFence; (4) pX=c by one warp.
TEST(SbrpPb, Sec61StoreStallExample)
{
    const uint32_t X = 1, Y = 2;
    Pb pb(8, 4, 16, SBRP_EAGER);
    uint32_t ex = alloc(pb, 0, X);
    uint32_t ey = alloc(pb, 0, Y);
    EXPECT_NE(ex, ey);
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_OFENCE), SBRP_OK);
    uint32_t e;
    EXPECT_EQ(sbrp_pb_store(pb, 0, X, ex, &e), SBRP_STALL_ORDER);   // (4) neither writes nor allocates
    EXPECT_EQ(sbrp_pb_edm(pb), bit(0));
    EXPECT_EQ(sbrp_pb_stalled(pb), bit(0));
    EXPECT_EQ(sbrp_pb_count(pb), 3u);

    expect_flush(pb, X);                 // PB_k leaves; the warp now waits for ACTR == 0
    EXPECT_EQ(sbrp_pb_actr(pb), 1u);
    EXPECT_EQ(sbrp_pb_edm(pb), bit(0));
    // Liveness hold: the warp's target left and ACTR > 0, so no new flush starts.
    expect_idle(pb);
    EXPECT_FALSE(sbrp_pb_can_evict(pb, ey));
    sbrp_pb_ack(pb);                     // pX=a durable
    EXPECT_EQ(sbrp_pb_actr(pb), 0u);
    EXPECT_EQ(sbrp_pb_edm(pb), 0u);
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);

    expect_flush(pb, Y);
    expect_order(pb);                    // oFence retires: warp 0 has an unacked flush -> FSM
    EXPECT_EQ(sbrp_pb_fsm(pb), bit(0));
    EXPECT_TRUE(sbrp_pb_empty(pb));
    // Retry of (4): the line's pb_index was cleared by the flush, so it allocates.
    uint32_t ex2 = alloc(pb, 0, X);
    (void)ex2;
    expect_idle(pb);                     // pX=c ordered after pY=b (FSM, ACTR == 1)
    expect_idle(pb);
    EXPECT_EQ(sbrp_pb_get_stats(pb)->fsm_blocks, 1u);   // one episode, not one per call
    sbrp_pb_ack(pb);                     // pY=b durable
    EXPECT_EQ(sbrp_pb_fsm(pb), 0u);
    expect_flush(pb, X);
    sbrp_pb_ack(pb);
    EXPECT_TRUE(sbrp_pb_empty(pb));
    EXPECT_EQ(sbrp_pb_actr(pb), 0u);
    const sbrp_pb_stats *st = sbrp_pb_get_stats(pb);
    EXPECT_EQ(st->allocated, 3u);
    EXPECT_EQ(st->flushes, 3u);
    EXPECT_EQ(st->acks, 3u);
    EXPECT_EQ(st->stall_order, 1u);
}

TEST(SbrpPb, OFenceCoalescingAcrossWarps)
{
    Pb pb(8, 4, 16, SBRP_EAGER);
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_OFENCE), SBRP_OK);
    EXPECT_EQ(sbrp_pb_fence(pb, 1, SBRP_OFENCE), SBRP_OK);
    EXPECT_EQ(sbrp_pb_count(pb), 1u);
    sbrp_type t;
    uint32_t line;
    uint64_t w;
    ASSERT_TRUE(sbrp_pb_entry(pb, 0, &t, &line, &w));
    EXPECT_EQ(t, SBRP_OFENCE);
    EXPECT_EQ(line, NO);
    EXPECT_EQ(w, 0x3u);
    EXPECT_FALSE(sbrp_pb_entry(pb, 1, &t, &line, &w));
    // Different type: new entry; same device type again: coalesces, both warps in ODM.
    EXPECT_EQ(sbrp_pb_fence(pb, 2, SBRP_DFENCE), SBRP_STALL_FENCE);
    EXPECT_EQ(sbrp_pb_fence(pb, 3, SBRP_DFENCE), SBRP_STALL_FENCE);
    EXPECT_EQ(sbrp_pb_count(pb), 2u);
    EXPECT_EQ(sbrp_pb_odm(pb), 0xCu);
    ASSERT_TRUE(sbrp_pb_entry(pb, 1, &t, nullptr, &w));
    EXPECT_EQ(t, SBRP_DFENCE);
    EXPECT_EQ(w, 0xCu);
    // An intervening persist breaks coalescing.
    alloc(pb, 0, 5);
    EXPECT_EQ(sbrp_pb_fence(pb, 1, SBRP_OFENCE), SBRP_OK);
    EXPECT_EQ(sbrp_pb_count(pb), 4u);
    const sbrp_pb_stats *st = sbrp_pb_get_stats(pb);
    EXPECT_EQ(st->fences, 5u);
    EXPECT_EQ(st->fences_coalesced, 2u);
    EXPECT_EQ(st->stall_fence, 2u);
}

// Section 6 "Hardware modifications": T0 writes pX, T32 (another warp) issues an oFence and
// writes pY. Per-warp tracking must not order pY after pX. The FSM gets only the fencing warps
// that have flushed, unacknowledged persists (the paper's "warps whose persists are currently
// being flushed"), so pY flushes while pX is still unacknowledged.
TEST(SbrpPb, FsmAvoidsFalseOrderingAcrossWarps)
{
    const uint32_t X = 1, Y = 2;
    Pb pb(8, 4, 16, SBRP_EAGER);
    alloc(pb, 0, X);
    EXPECT_EQ(sbrp_pb_fence(pb, 1, SBRP_OFENCE), SBRP_OK);
    alloc(pb, 1, Y);
    expect_flush(pb, X);
    expect_order(pb);
    EXPECT_EQ(sbrp_pb_fsm(pb), 0u);      // warp 1 has nothing in flight
    expect_flush(pb, Y);                 // no wait for pX's ack
    EXPECT_EQ(sbrp_pb_actr(pb), 2u);
    EXPECT_EQ(sbrp_pb_get_stats(pb)->fsm_blocks, 0u);
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
}

TEST(SbrpPb, FsmOrdersSameWarpAcrossOFence)
{
    const uint32_t X = 1, Y = 2, Z = 3;
    Pb pb(8, 4, 16, SBRP_EAGER);
    alloc(pb, 0, X);
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_OFENCE), SBRP_OK);
    alloc(pb, 0, Y);
    alloc(pb, 1, Z);                     // unrelated warp behind pY
    expect_flush(pb, X);
    expect_order(pb);
    EXPECT_EQ(sbrp_pb_fsm(pb), bit(0));
    expect_idle(pb);                     // pY held until pX is acknowledged
    expect_idle(pb);
    EXPECT_EQ(sbrp_pb_get_stats(pb)->fsm_blocks, 1u);
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);  // an oFence never stalls the warp
    sbrp_pb_ack(pb);
    EXPECT_EQ(sbrp_pb_fsm(pb), 0u);
    expect_flush(pb, Y);
    expect_flush(pb, Z);
}

// Intra-threadblock PMO: warp0 pX; pRel_block  ->  warp1 pAcq_block; pY.
TEST(SbrpPb, BlockScopeReleaseAcquire)
{
    const uint32_t X = 1, Y = 2, Z = 3;
    Pb pb(8, 4, 16, SBRP_EAGER);
    alloc(pb, 0, X);
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_REL_BLK), SBRP_OK);
    EXPECT_EQ(sbrp_pb_fence(pb, 1, SBRP_ACQ_BLK), SBRP_OK);
    uint32_t ey = alloc(pb, 1, Y);
    uint32_t ez = alloc(pb, 2, Z);       // unrelated warp
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    EXPECT_FALSE(sbrp_pb_can_evict(pb, ey));   // ordering entries precede
    EXPECT_FALSE(sbrp_pb_can_evict(pb, ez));
    expect_flush(pb, X);
    expect_order(pb);                    // pRel
    EXPECT_EQ(sbrp_pb_fsm(pb), bit(0));
    expect_order(pb);                    // pAcq inherits the persists in flight
    EXPECT_EQ(sbrp_pb_fsm(pb), bit(0) | bit(1));
    expect_idle(pb);                     // pY waits for pX's ack
    EXPECT_FALSE(sbrp_pb_can_evict(pb, ey));
    EXPECT_TRUE(sbrp_pb_can_evict(pb, ez));    // unrelated warp is not ordered
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    sbrp_pb_ack(pb);
    expect_flush(pb, Y);
    expect_flush(pb, Z);
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    EXPECT_EQ(sbrp_pb_get_stats(pb)->stall_fence, 0u);
}

// Inter-threadblock PMO: device-scope pRel stalls only its warp.
TEST(SbrpPb, DeviceScopeReleaseStallsOnlyItsWarp)
{
    const uint32_t X = 1, Y = 2, Z = 3;
    Pb pb(8, 4, 16, SBRP_EAGER);
    alloc(pb, 0, X);
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_REL_DEV), SBRP_STALL_FENCE);
    EXPECT_EQ(sbrp_pb_odm(pb), bit(0));
    EXPECT_EQ(sbrp_pb_stalled(pb), bit(0));
    uint32_t ey = alloc(pb, 1, Y);       // unrelated warp keeps storing
    uint32_t e;
    EXPECT_EQ(sbrp_pb_store(pb, 1, Y, ey, &e), SBRP_OK);
    expect_flush(pb, X);
    EXPECT_EQ(sbrp_pb_odm(pb), bit(0));
    expect_order(pb);                    // pRel at the head: ODM -> EDM
    EXPECT_EQ(sbrp_pb_odm(pb), 0u);
    EXPECT_EQ(sbrp_pb_edm(pb), bit(0));
    EXPECT_EQ(sbrp_pb_stalled(pb), bit(0));
    alloc(pb, 1, Z);
    EXPECT_EQ(sbrp_pb_stalled(pb), bit(0));
    expect_idle(pb);                     // liveness hold until ACTR == 0
    sbrp_pb_ack(pb);
    EXPECT_EQ(sbrp_pb_edm(pb), 0u);
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    expect_flush(pb, Y);
    expect_flush(pb, Z);
}

TEST(SbrpPb, DeviceScopeAcquireOnEmptyPbCompletesAtHead)
{
    Pb pb(8, 4, 16, SBRP_EAGER);
    EXPECT_EQ(sbrp_pb_fence(pb, 2, SBRP_ACQ_DEV), SBRP_STALL_FENCE);
    EXPECT_EQ(sbrp_pb_stalled(pb), bit(2));
    expect_order(pb);                    // ACTR already zero: resumes immediately
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    EXPECT_EQ(sbrp_pb_edm(pb), 0u);
}

TEST(SbrpPb, DFenceWaitsForAllAcks)
{
    Pb pb(8, 4, 16, SBRP_EAGER);
    alloc(pb, 0, 1);
    alloc(pb, 0, 2);
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_DFENCE), SBRP_STALL_FENCE);
    EXPECT_EQ(sbrp_pb_odm(pb), bit(0));
    expect_flush(pb, 1);
    expect_flush(pb, 2);
    EXPECT_EQ(sbrp_pb_odm(pb), bit(0));
    EXPECT_EQ(sbrp_pb_edm(pb), 0u);
    expect_order(pb);
    EXPECT_EQ(sbrp_pb_odm(pb), 0u);
    EXPECT_EQ(sbrp_pb_edm(pb), bit(0));
    EXPECT_EQ(sbrp_pb_actr(pb), 2u);
    sbrp_pb_ack(pb);
    EXPECT_EQ(sbrp_pb_stalled(pb), bit(0));   // ACTR 1: still waiting
    sbrp_pb_ack(pb);
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    EXPECT_EQ(sbrp_pb_get_stats(pb)->stall_fence, 1u);
}

TEST(SbrpPb, DFenceUnderWindowPolicy)
{
    Pb pb(8, 4, 16, SBRP_WINDOW, 2);
    for (uint32_t l = 0; l < 5; l++) alloc(pb, 0, l);
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_DFENCE), SBRP_STALL_FENCE);
    uint32_t flushed = 0, max_actr = 0, acks = 0;
    for (int guard = 0; guard < 100 && sbrp_pb_stalled(pb); guard++) {
        Drained r = drain(pb);
        if (r.d == SBRP_DRAIN_FLUSH) {
            EXPECT_EQ(r.line, flushed);
            flushed++;
        }
        max_actr = std::max(max_actr, sbrp_pb_actr(pb));
        if (r.d == SBRP_DRAIN_IDLE) {
            ASSERT_GT(sbrp_pb_actr(pb), 0u);
            EXPECT_TRUE(flushed == 5 || sbrp_pb_actr(pb) == 2u);   // held only by the window
            sbrp_pb_ack(pb);
            acks++;
        }
    }
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    EXPECT_EQ(flushed, 5u);
    EXPECT_EQ(acks, 5u);
    EXPECT_EQ(max_actr, 2u);
    EXPECT_TRUE(sbrp_pb_empty(pb));
}

TEST(SbrpPb, EvictionBlockedByEarlierOrderingEntry)
{
    const uint32_t X = 1, Y = 2;
    Pb pb(8, 4, 16, SBRP_EAGER);
    uint32_t ex = alloc(pb, 0, X);
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_OFENCE), SBRP_OK);
    uint32_t ey = alloc(pb, 0, Y);
    EXPECT_FALSE(sbrp_pb_can_evict(pb, ey));
    uint32_t l = 0;
    EXPECT_EQ(sbrp_pb_evict(pb, 2, ey, &l), SBRP_STALL_ORDER);
    EXPECT_EQ(l, NO);
    EXPECT_EQ(sbrp_pb_edm(pb), bit(2));
    EXPECT_EQ(sbrp_pb_stalled(pb), bit(2));
    // pX has no ordering entry before it: it may leave early.
    EXPECT_TRUE(sbrp_pb_can_evict(pb, ex));
    EXPECT_EQ(sbrp_pb_evict(pb, 3, ex, &l), SBRP_OK);
    EXPECT_EQ(l, X);
    EXPECT_EQ(sbrp_pb_actr(pb), 1u);
    EXPECT_EQ(sbrp_pb_count(pb), 2u);
    EXPECT_EQ(sbrp_pb_stalled(pb), bit(2));
    expect_order(pb);                    // the blocking oFence leaves; FSM gets warp 0
    EXPECT_EQ(sbrp_pb_fsm(pb), bit(0));
    EXPECT_EQ(sbrp_pb_edm(pb), bit(2));  // still waits for ACTR == 0
    EXPECT_FALSE(sbrp_pb_can_evict(pb, ey));
    sbrp_pb_ack(pb);
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    EXPECT_TRUE(sbrp_pb_can_evict(pb, ey));   // the retry succeeds
    EXPECT_EQ(sbrp_pb_evict(pb, 2, ey, &l), SBRP_OK);
    EXPECT_EQ(l, Y);
    EXPECT_TRUE(sbrp_pb_empty(pb));
    const sbrp_pb_stats *st = sbrp_pb_get_stats(pb);
    EXPECT_EQ(st->evictions, 2u);
    EXPECT_EQ(st->evict_blocked, 1u);
}

TEST(SbrpPb, EvictionBlockedByFsmAndByLivenessHold)
{
    const uint32_t X = 1, Y = 2, Z = 3;
    Pb pb(8, 4, 16, SBRP_EAGER);
    alloc(pb, 0, X);
    EXPECT_EQ(sbrp_pb_fence(pb, 0, SBRP_OFENCE), SBRP_OK);
    uint32_t ey = alloc(pb, 0, Y);
    uint32_t ez = alloc(pb, 1, Z);
    expect_flush(pb, X);
    expect_order(pb);
    expect_idle(pb);
    EXPECT_FALSE(sbrp_pb_can_evict(pb, ey));   // warp 0 in FSM, ACTR > 0
    EXPECT_TRUE(sbrp_pb_can_evict(pb, ez));
    uint32_t l;
    EXPECT_EQ(sbrp_pb_evict(pb, 3, ey, &l), SBRP_STALL_ORDER);
    EXPECT_EQ(sbrp_pb_edm(pb), bit(3));
    EXPECT_FALSE(sbrp_pb_can_evict(pb, ez));   // hold: an EDM warp waits for ACTR == 0
    EXPECT_EQ(sbrp_pb_evict(pb, 2, ez, &l), SBRP_STALL_ORDER);
    EXPECT_EQ(sbrp_pb_edm(pb), bit(3) | bit(2));
    sbrp_pb_ack(pb);
    EXPECT_EQ(sbrp_pb_edm(pb), 0u);
    EXPECT_TRUE(sbrp_pb_can_evict(pb, ey));
    EXPECT_TRUE(sbrp_pb_can_evict(pb, ez));
    EXPECT_EQ(sbrp_pb_evict(pb, 2, ez, &l), SBRP_OK);
    EXPECT_EQ(l, Z);
}

// Middle eviction leaves a hole (valid bit cleared); holes are reclaimed at head or tail only.
TEST(SbrpPb, EvictionHolesAndFullness)
{
    Pb pb(3, 4, 16, SBRP_EAGER);
    uint32_t ea = alloc(pb, 0, 1);
    uint32_t eb = alloc(pb, 0, 2);
    uint32_t ec = alloc(pb, 0, 3);
    uint32_t l, e;
    EXPECT_EQ(sbrp_pb_evict(pb, 0, eb, &l), SBRP_OK);
    EXPECT_EQ(l, 2u);
    EXPECT_EQ(sbrp_pb_count(pb), 2u);
    EXPECT_EQ(sbrp_pb_store(pb, 1, 4, NO, &e), SBRP_STALL_FULL);   // hole is not at the tail
    EXPECT_EQ(sbrp_pb_full_waiters(pb), bit(1));
    EXPECT_EQ(sbrp_pb_evict(pb, 0, ec, &l), SBRP_OK);             // tail retracts over c and b
    EXPECT_EQ(sbrp_pb_full_waiters(pb), 0u);
    EXPECT_EQ(sbrp_pb_count(pb), 1u);
    uint32_t ed = alloc(pb, 1, 4);
    EXPECT_EQ(ed, eb);                   // slot after a
    uint32_t line;
    ASSERT_TRUE(sbrp_pb_entry(pb, 0, nullptr, &line, nullptr));
    EXPECT_EQ(line, 1u);
    ASSERT_TRUE(sbrp_pb_entry(pb, 1, nullptr, &line, nullptr));
    EXPECT_EQ(line, 4u);
    expect_flush(pb, 1);
    expect_flush(pb, 4);
    (void)ea;
}

TEST(SbrpPb, EagerFlushesImmediately)
{
    Pb pb(8, 4, 16, SBRP_EAGER);
    alloc(pb, 0, 1);
    expect_flush(pb, 1);
    alloc(pb, 1, 2);
    expect_flush(pb, 2);
    EXPECT_EQ(sbrp_pb_actr(pb), 2u);
}

TEST(SbrpPb, LazyHoldsUntilForced)
{
    Pb pb(8, 4, 16, SBRP_LAZY);
    uint32_t ex = alloc(pb, 0, 1);
    alloc(pb, 0, 2);
    expect_idle(pb);
    uint32_t e;
    EXPECT_EQ(sbrp_pb_store(pb, 1, 1, ex, &e), SBRP_OK);   // coalescing opportunity kept
    expect_idle(pb);
    EXPECT_EQ(sbrp_pb_fence(pb, 2, SBRP_DFENCE), SBRP_STALL_FENCE);   // forces draining
    expect_flush(pb, 1);
    expect_flush(pb, 2);
    expect_order(pb);
    alloc(pb, 0, 3);
    expect_idle(pb);
    sbrp_pb_ack(pb);
    sbrp_pb_ack(pb);
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    expect_idle(pb);                     // nothing forces pZ
    sbrp_pb_drain_all(pb, 1);
    expect_flush(pb, 3);
    sbrp_pb_drain_all(pb, 0);
    alloc(pb, 0, 4);
    expect_idle(pb);
    EXPECT_EQ(sbrp_pb_get_stats(pb)->flushes, 3u);
}

TEST(SbrpPb, WindowCapsOutstandingFlushes)
{
    Pb pb(8, 4, 16, SBRP_WINDOW, 2);
    for (uint32_t l = 0; l < 5; l++) alloc(pb, l % 4, l);
    expect_flush(pb, 0);
    expect_flush(pb, 1);
    expect_idle(pb);
    EXPECT_EQ(sbrp_pb_actr(pb), 2u);
    sbrp_pb_drain_all(pb, 1);            // drain_all does not lift the window
    expect_idle(pb);
    sbrp_pb_drain_all(pb, 0);
    sbrp_pb_ack(pb);
    expect_flush(pb, 2);
    expect_idle(pb);
    sbrp_pb_ack(pb);
    sbrp_pb_ack(pb);
    expect_flush(pb, 3);
    expect_flush(pb, 4);
    EXPECT_EQ(sbrp_pb_actr(pb), 2u);
}

TEST(SbrpPb, FullPbStallsUntilAnEntryFrees)
{
    Pb pb(2, 4, 16, SBRP_LAZY);
    uint32_t ex = alloc(pb, 0, 1);
    alloc(pb, 0, 2);
    uint32_t e;
    EXPECT_EQ(sbrp_pb_store(pb, 1, 3, NO, &e), SBRP_STALL_FULL);
    EXPECT_EQ(e, NO);
    EXPECT_EQ(sbrp_pb_fence(pb, 2, SBRP_OFENCE), SBRP_STALL_FULL);
    EXPECT_EQ(sbrp_pb_full_waiters(pb), bit(1) | bit(2));
    EXPECT_EQ(sbrp_pb_stalled(pb), bit(1) | bit(2));
    EXPECT_EQ(sbrp_pb_store(pb, 3, 1, ex, &e), SBRP_OK);   // coalescing needs no entry
    expect_flush(pb, 1);                 // LAZY, forced by the full-waiters
    EXPECT_EQ(sbrp_pb_full_waiters(pb), 0u);
    EXPECT_EQ(sbrp_pb_stalled(pb), 0u);
    alloc(pb, 1, 3);                     // retry succeeds
    expect_idle(pb);                     // full again, but nobody waits: LAZY holds
    EXPECT_EQ(sbrp_pb_fence(pb, 2, SBRP_OFENCE), SBRP_STALL_FULL);
    expect_flush(pb, 2);
    EXPECT_EQ(sbrp_pb_fence(pb, 2, SBRP_OFENCE), SBRP_OK);
    const sbrp_pb_stats *st = sbrp_pb_get_stats(pb);
    EXPECT_EQ(st->stall_full, 3u);
    EXPECT_EQ(st->fences, 1u);
}

// A dFence warp must not starve while another warp streams persists to new lines (EAGER,
// acks arrive 8 cycles after each flush).
TEST(SbrpPb, LivenessDFenceUnderContinuousStores)
{
    Pb pb(64, 4, 4096, SBRP_EAGER);
    std::deque<uint64_t> ack_due;
    const uint64_t lat = 8;
    sbrp_pb_in in{};
    sbrp_pb_out out{};
    uint32_t next_line = 100;
    bool fenced = false, resumed = false, in_hold = false;
    uint64_t fence_cycle = 0, resume_cycle = 0;
    for (uint64_t cyc = 0; cyc < 400; cyc++) {
        std::memset(&in, 0, sizeof in);
        in.flush_ready = 1;
        in.ack = !ack_due.empty() && ack_due.front() <= cyc;
        if (in.ack) ack_due.pop_front();
        if (cyc == 20) {                 // warp 0: one persist, then dFence
            in.op = SBRP_IN_STORE;
            in.warp = 0;
            in.line = 1;
            in.entry = NO;
        } else if (cyc == 21) {
            in.op = SBRP_IN_FENCE;
            in.warp = 0;
            in.fence_type = SBRP_DFENCE;
        } else if (!(sbrp_pb_stalled(pb) & bit(1))) {   // warp 1 streams new lines
            in.op = SBRP_IN_STORE;
            in.warp = 1;
            in.line = static_cast<uint16_t>(next_line);
            in.entry = NO;
        }
        sbrp_pb_step(pb, &in, &out);
        if (in.op == SBRP_IN_STORE && in.warp == 1 && out.result == SBRP_ALLOCATED) next_line++;
        if (out.flush_valid) ack_due.push_back(cyc + lat);
        if (cyc == 21) {
            EXPECT_EQ(out.result, SBRP_STALL_FENCE);
            fenced = true;
            fence_cycle = cyc;
        }
        if (fenced && (out.edm & bit(0))) {
            if (in_hold) {
                EXPECT_FALSE(out.flush_valid);   // no new flush while it waits
            }
            in_hold = true;
        }
        EXPECT_EQ(out.stalled & bit(1), 0u);              // the streaming warp never stalls
        if (fenced && !resumed && cyc > fence_cycle && !(out.stalled & bit(0))) {
            resumed = true;
            resume_cycle = cyc;
            // ACTR reached zero at this edge's ack; the drain stage of the same edge may
            // already start the next flush.
            EXPECT_TRUE(in.ack);
            EXPECT_EQ(out.actr, out.flush_valid ? 1u : 0u);
        }
    }
    EXPECT_TRUE(resumed);
    EXPECT_LT(resume_cycle - fence_cycle, 40u);
    EXPECT_GT(next_line - 100, 300u);    // the stream kept going
}

// ---------------------------------------------------------------------------------------------
// Seeded random test with a reference model of the PMO guarantees.

struct RandomParams {
    uint32_t policy, entries, warps, lines, window;
    uint64_t seed;
    uint32_t ops;
};

class SbrpPbRandom : public ::testing::TestWithParam<RandomParams> {};

struct Checker {
    explicit Checker(const RandomParams &p)
        : P(p), pb(p.entries, p.warps, p.lines, p.policy, p.window), rng(p.seed),
          line_entry(p.lines, NO), line_stores(p.lines), line_alloc_time(p.lines, 0),
          line_mask(p.lines, 0), cur_req(p.warps, 0), last_store_id(p.warps, -1),
          rel_vec(p.warps, std::vector<int64_t>(p.warps, -1)), last_fence_time(p.warps, 0),
          unacked(p.warps), pending(p.warps), dev_wait(p.warps, false), dev_cut(p.warps, 0)
    {
        req_hist.push_back(std::vector<int64_t>(p.warps, -1));
        stores.push_back(Store{0, 0});   // ids start at 1
    }

    struct Store {
        uint32_t warp, req;
    };
    struct Op {
        int kind = 0;   // 0 none, 1 store(line), 2 fence(type), 3 evict(line)
        uint32_t arg = 0;
    };

    RandomParams P;
    Pb pb;
    std::mt19937_64 rng;
    std::vector<uint32_t> line_entry;
    std::vector<std::vector<uint64_t>> line_stores;
    std::vector<uint64_t> line_alloc_time;
    std::vector<uint64_t> line_mask;
    std::vector<Store> stores;
    std::vector<std::vector<int64_t>> req_hist;   // per-warp requirement snapshots
    std::vector<uint32_t> cur_req;
    std::vector<int64_t> last_store_id;
    std::vector<std::vector<int64_t>> rel_vec;
    std::vector<uint64_t> last_fence_time;
    uint64_t clock = 0;
    bool drain_all_on = false;
    std::vector<std::set<uint64_t>> unacked;
    std::set<uint64_t> unacked_all;
    std::vector<std::vector<uint64_t>> outstanding;   // flushed/evicted entries awaiting ack
    std::vector<Op> pending;
    std::vector<bool> dev_wait;
    std::vector<uint64_t> dev_cut;
    uint64_t failures = 0, flush_events = 0, evict_events = 0, dev_completions = 0;
    std::string first;

    void fail(const std::string &m)
    {
        if (failures++ == 0) first = m;
    }
    uint32_t rnd(uint32_t n) { return static_cast<uint32_t>(rng() % n); }

    void check_durable(const std::vector<uint64_t> &ids, const char *what)
    {
        for (uint64_t id : ids) {
            const std::vector<int64_t> &r = req_hist[stores[id].req];
            for (uint32_t w0 = 0; w0 < P.warps; w0++) {
                if (r[w0] < 0 || unacked[w0].empty()) continue;
                if (static_cast<int64_t>(*unacked[w0].begin()) <= r[w0]) {
                    std::ostringstream o;
                    o << what << ": store " << id << " of warp " << stores[id].warp
                      << " leaves before store " << *unacked[w0].begin() << " of warp " << w0
                      << " (ordered before it) is acknowledged";
                    fail(o.str());
                }
            }
        }
    }

    void entry_left(uint32_t line, const char *what)
    {
        if (line >= P.lines || line_entry[line] == NO) {
            fail(std::string(what) + " of a line without a live entry");
            return;
        }
        check_durable(line_stores[line], what);
        outstanding.push_back(line_stores[line]);
        line_stores[line].clear();
        line_entry[line] = NO;
        line_mask[line] = 0;
    }

    void accept_store(uint32_t w, uint32_t line)
    {
        uint64_t id = stores.size();
        stores.push_back(Store{w, cur_req[w]});
        last_store_id[w] = static_cast<int64_t>(id);
        unacked[w].insert(id);
        unacked_all.insert(id);
        line_stores[line].push_back(id);
        line_mask[line] |= bit(w);
    }

    void do_store(uint32_t w, uint32_t line)
    {
        uint32_t e = line_entry[line], out = 0;
        bool conflict = e != NO && last_fence_time[w] > line_alloc_time[line];
        sbrp_result r = sbrp_pb_store(pb, w, line, e, &out);
        pending[w] = Op{};
        switch (r) {
        case SBRP_ALLOCATED:
            if (e != NO) fail("store allocated although the line has an entry");
            for (uint32_t l = 0; l < P.lines; l++)
                if (line_entry[l] == out) fail("allocated entry already used by another line");
            line_entry[line] = out;
            line_alloc_time[line] = ++clock;
            accept_store(w, line);
            break;
        case SBRP_OK:
            if (e == NO || out != e || conflict) fail("bad coalesce");
            accept_store(w, line);
            break;
        case SBRP_STALL_ORDER:
            if (!conflict) fail("store stalled without an ordering entry of its warp after PB_k");
            if (!(sbrp_pb_edm(pb) & bit(w))) fail("store stall without EDM bit");
            pending[w] = Op{1, line};
            break;
        case SBRP_STALL_FULL:
            if (e != NO) fail("full stall for a coalescing store");
            if (!(sbrp_pb_full_waiters(pb) & bit(w))) fail("full stall without waiter bit");
            pending[w] = Op{1, line};
            break;
        default:
            fail("bad store result");
        }
        if (conflict && r != SBRP_STALL_ORDER) fail("conflicting store not stalled");
    }

    void do_fence(uint32_t w, uint32_t t)
    {
        sbrp_result r = sbrp_pb_fence(pb, w, static_cast<sbrp_type>(t));
        pending[w] = Op{};
        bool dev = t == SBRP_DFENCE || t == SBRP_ACQ_DEV || t == SBRP_REL_DEV;
        if (r == SBRP_STALL_FULL) {
            pending[w] = Op{2, t};
            return;
        }
        if (r != (dev ? SBRP_STALL_FENCE : SBRP_OK)) fail("bad fence result");
        std::vector<int64_t> q = req_hist[cur_req[w]];
        q[w] = std::max(q[w], last_store_id[w]);
        if (t == SBRP_ACQ_BLK || t == SBRP_ACQ_DEV)
            for (uint32_t w0 = 0; w0 < P.warps; w0++)
                for (uint32_t w1 = 0; w1 < P.warps; w1++) q[w1] = std::max(q[w1], rel_vec[w0][w1]);
        if (t == SBRP_REL_BLK || t == SBRP_REL_DEV) rel_vec[w] = q;   // cumulative release
        req_hist.push_back(q);
        cur_req[w] = static_cast<uint32_t>(req_hist.size() - 1);
        last_fence_time[w] = ++clock;
        if (dev) {
            dev_wait[w] = true;
            dev_cut[w] = stores.size() - 1;   // every store accepted so far
        }
    }

    // Is an ordering entry in front of the persist entry of `line`? (scan, independent of the
    // core's sequence-number shortcut)
    bool ordering_before(uint32_t line)
    {
        sbrp_type t;
        uint32_t l;
        for (uint32_t pos = 0; sbrp_pb_entry(pb, pos, &t, &l, nullptr); pos++) {
            if (t == SBRP_PERSIST && l == line) return false;
            if (t != SBRP_PERSIST) return true;
        }
        fail("live line not found in the PB");
        return false;
    }

    void do_evict(uint32_t w, uint32_t line)
    {
        pending[w] = Op{};
        uint32_t e = line_entry[line];
        if (e == NO) return;   // left meanwhile: nothing to evict
        bool blocked_by_order = ordering_before(line);
        int can = sbrp_pb_can_evict(pb, e);
        uint32_t l = 0;
        sbrp_result r = sbrp_pb_evict(pb, w, e, &l);
        if ((r == SBRP_OK) != (can != 0)) fail("can_evict disagrees with evict");
        if (blocked_by_order && r == SBRP_OK) fail("evicted behind an ordering entry");
        if (r == SBRP_OK) {
            if (l != line) fail("evict returned the wrong line");
            evict_events++;
            entry_left(line, "eviction");
        } else if (r == SBRP_STALL_ORDER) {
            if (!(sbrp_pb_edm(pb) & bit(w))) fail("evict stall without EDM bit");
            pending[w] = Op{3, line};
        } else {
            fail("bad evict result");
        }
    }

    sbrp_drain do_drain()
    {
        sbrp_type t = SBRP_PERSIST;
        uint32_t hl = NO;
        bool has = sbrp_pb_entry(pb, 0, &t, &hl, nullptr) != 0;
        uint32_t l = 0, actr = sbrp_pb_actr(pb);
        bool forced = drain_all_on || sbrp_pb_stalled(pb) != 0;
        sbrp_drain d = sbrp_pb_drain(pb, &l);
        if (d == SBRP_DRAIN_FLUSH) {
            if (!has || t != SBRP_PERSIST || l != hl) fail("flush is not the head persist");
            if (P.policy == SBRP_WINDOW && actr >= P.window) fail("flush beyond the window");
            if (P.policy == SBRP_LAZY && !forced) fail("lazy flush without a reason");
            flush_events++;
            entry_left(l, "flush");
        } else if (d == SBRP_DRAIN_ORDER) {
            if (!has || t == SBRP_PERSIST) fail("order retire without ordering head");
        }
        return d;
    }

    void set_drain_all(bool on)
    {
        drain_all_on = on;
        sbrp_pb_drain_all(pb, on);
    }

    void do_ack()
    {
        if (outstanding.empty()) {
            sbrp_pb_ack(pb);   // spurious: must be ignored
            if (sbrp_pb_actr(pb) != 0u) fail("spurious ack changed ACTR");
            return;
        }
        size_t i = rnd(static_cast<uint32_t>(outstanding.size()));
        std::swap(outstanding[i], outstanding.back());
        for (uint64_t id : outstanding.back()) {
            unacked[stores[id].warp].erase(id);
            unacked_all.erase(id);
        }
        outstanding.pop_back();
        sbrp_pb_ack(pb);
    }

    void do_pending(uint32_t w)
    {
        Op op = pending[w];
        if (op.kind == 1) do_store(w, op.arg);
        else if (op.kind == 2) do_fence(w, op.arg);
        else if (op.kind == 3) do_evict(w, op.arg);
    }

    void warp_op(uint32_t w)
    {
        if (sbrp_pb_stalled(pb) & bit(w)) return;   // stalled warps issue nothing
        if (pending[w].kind) {
            do_pending(w);
            return;
        }
        uint32_t a = rnd(100);
        if (a < 62) {
            do_store(w, rnd(P.lines));
        } else if (a < 82) {
            // oFence most often, the others evenly.
            static const uint32_t types[] = {SBRP_OFENCE, SBRP_OFENCE, SBRP_OFENCE, SBRP_DFENCE,
                                             SBRP_ACQ_BLK, SBRP_REL_BLK, SBRP_ACQ_DEV, SBRP_REL_DEV};
            do_fence(w, types[rnd(8)]);
        } else {
            uint32_t start = rnd(P.lines);
            for (uint32_t i = 0; i < P.lines; i++) {
                uint32_t l = (start + i) % P.lines;
                if (line_entry[l] != NO) {
                    do_evict(w, l);
                    return;
                }
            }
            do_store(w, start);
        }
    }

    void check_invariants()
    {
        sbrp_pb *p = pb;
        uint64_t odm = sbrp_pb_odm(p), edm = sbrp_pb_edm(p), fsm = sbrp_pb_fsm(p);
        uint64_t fw = sbrp_pb_full_waiters(p), st = sbrp_pb_stalled(p);
        uint32_t actr = sbrp_pb_actr(p), count = sbrp_pb_count(p);
        uint64_t wm = P.warps == 64 ? ~uint64_t(0) : bit(P.warps) - 1;
        if (count > P.entries) fail("count > entries");
        if (actr != outstanding.size()) fail("ACTR != flushed-but-unacknowledged persists");
        if (odm & edm) fail("warp in both ODM and EDM");
        if (fsm && !actr) fail("FSM set while ACTR == 0");
        if (st != (odm | edm | fw)) fail("stalled != ODM|EDM|full");
        if (st & ~wm) fail("mask bit beyond configured warps");
        for (uint32_t w = 0; w < P.warps; w++) {
            if ((odm & bit(w)) && !dev_wait[w]) fail("ODM warp without a device fence");
            if (((edm | fw) & bit(w)) && !pending[w].kind && !dev_wait[w])
                fail("warp stalled without a reason");
            if ((fw & bit(w)) && !pending[w].kind) fail("full waiter without a pending op");
        }
        // Entry contents against the model.
        uint32_t persists = 0, live = 0;
        sbrp_type t;
        uint32_t l;
        uint64_t m;
        for (uint32_t pos = 0; pos < count; pos++) {
            if (!sbrp_pb_entry(p, pos, &t, &l, &m)) {
                fail("entry() failed below count");
                break;
            }
            if (m == 0 || (m & ~wm)) fail("bad warp mask");
            if (t == SBRP_PERSIST) {
                persists++;
                if (l >= P.lines || line_entry[l] == NO) fail("PB entry for a line without one");
                else if (m != line_mask[l]) fail("entry warp mask differs from the model");
            }
        }
        if (sbrp_pb_entry(p, count, &t, &l, &m)) fail("entry() beyond count");
        for (uint32_t x = 0; x < P.lines; x++) live += line_entry[x] != NO;
        if (persists != live) fail("persist entries != live lines");
        // Device fences: the warp resumes only when every earlier store is durable.
        for (uint32_t w = 0; w < P.warps; w++) {
            if (!dev_wait[w] || (st & bit(w))) continue;
            if (!unacked_all.empty() && *unacked_all.begin() <= dev_cut[w])
                fail("device fence completed before earlier persists were acknowledged");
            dev_wait[w] = false;
            dev_completions++;
        }
        const sbrp_pb_stats *s = sbrp_pb_get_stats(p);
        if (s->stores != stores.size() - 1) fail("stats.stores != accepted stores");
        if (s->stores != s->allocated + s->coalesced) fail("stores != allocated + coalesced");
        if (s->flushes != flush_events || s->evictions != evict_events) fail("flush/evict stats");
    }

    void run()
    {
        for (uint32_t i = 0; i < P.ops && failures == 0; i++) {
            uint32_t a = rnd(100);
            if (a < 18) do_ack();
            else if (a < 40) do_drain();
            else if (a < 41) set_drain_all(rnd(4) == 0);
            else warp_op(rnd(P.warps));
            check_invariants();
        }
        // Quiesce: everything must drain and every warp must resume.
        set_drain_all(true);
        bool quiet = false;
        for (int it = 0; it < 100000 && !quiet && failures == 0; it++) {
            for (uint32_t w = 0; w < P.warps; w++)
                if (pending[w].kind && !(sbrp_pb_stalled(pb) & bit(w))) do_pending(w);
            check_invariants();
            while (do_drain() != SBRP_DRAIN_IDLE) check_invariants();
            if (!outstanding.empty()) do_ack();
            check_invariants();
            bool none_pending = true;
            for (uint32_t w = 0; w < P.warps; w++) none_pending = none_pending && !pending[w].kind;
            quiet = sbrp_pb_empty(pb) && outstanding.empty() && sbrp_pb_stalled(pb) == 0 &&
                    none_pending;
        }
        if (!quiet) fail("did not quiesce");
        for (uint32_t x = 0; x < P.lines; x++)
            if (line_entry[x] != NO) fail("line never left the PB");
        if (!unacked_all.empty()) fail("store never acknowledged");
        const sbrp_pb_stats *s = sbrp_pb_get_stats(pb);
        if (s->allocated != s->flushes + s->evictions) fail("an entry left more or less than once");
        if (s->acks != s->flushes + s->evictions) fail("acks != flushes + evictions");
    }
};

TEST_P(SbrpPbRandom, InvariantsAndPmo)
{
    Checker c(GetParam());
    c.run();
    EXPECT_EQ(c.failures, 0u) << c.first;
    const sbrp_pb_stats *s = sbrp_pb_get_stats(c.pb);
    // The stimulus exercised every mechanism.
    EXPECT_GT(s->coalesced, 1000u);
    EXPECT_GT(s->fences_coalesced, 10u);
    EXPECT_GT(s->stall_order, 100u);
    EXPECT_GT(s->stall_full, 100u);
    EXPECT_GT(s->evictions, 100u);
    EXPECT_GT(s->evict_blocked, 100u);
    EXPECT_GT(s->fsm_blocks, 10u);
    EXPECT_GT(c.dev_completions, 1000u);
}

std::string random_name(const ::testing::TestParamInfo<RandomParams> &i)
{
    static const char *const names[] = {"Eager", "Lazy", "Window"};
    return std::string(names[i.param.policy]) + "_w" + std::to_string(i.param.warps);
}

INSTANTIATE_TEST_SUITE_P(
    Seeded, SbrpPbRandom,
    ::testing::Values(RandomParams{SBRP_EAGER, 8, 6, 24, 1, 0x5eed0001, 100000},
                      RandomParams{SBRP_LAZY, 8, 6, 24, 1, 0x5eed0002, 100000},
                      RandomParams{SBRP_WINDOW, 8, 6, 24, 3, 0x5eed0003, 100000},
                      RandomParams{SBRP_EAGER, 16, 64, 48, 1, 0x5eed0004, 100000}),
    random_name);

// The cycle API (one clock edge) and the transaction API agree on a random stimulus.
TEST(SbrpPb, CycleApiMatchesTransactionApi)
{
    for (uint32_t policy : {SBRP_EAGER, SBRP_LAZY, SBRP_WINDOW}) {
        const uint32_t entries = 8, warps = 8, lines = 20;
        Pb a(entries, warps, lines, policy, 3), b(entries, warps, lines, policy, 3);
        std::mt19937_64 rng(0xC1C1E000u + policy);
        std::vector<uint32_t> line_entry(lines, NO);
        uint32_t inflight = 0;
        uint32_t flushes = 0;
        for (int cyc = 0; cyc < 50000; cyc++) {
            sbrp_pb_in in{};
            in.ack = (inflight > 0 && rng() % 3 == 0) || rng() % 50 == 0;   // some spurious
            in.flush_ready = rng() % 10 < 7;
            in.drain_all = (cyc / 500) % 4 == 3;
            uint32_t w = static_cast<uint32_t>(rng() % warps);
            in.warp = static_cast<uint8_t>(w);
            uint32_t k = static_cast<uint32_t>(rng() % 10);
            if (k < 5) {
                in.op = SBRP_IN_STORE;
                in.line = static_cast<uint16_t>(rng() % lines);
                in.entry = static_cast<uint16_t>(line_entry[in.line]);
            } else if (k < 7) {
                in.op = SBRP_IN_FENCE;
                in.fence_type = static_cast<uint8_t>(1 + rng() % 6);
            } else if (k < 8) {
                in.op = SBRP_IN_EVICT;
                uint32_t l = static_cast<uint32_t>(rng() % lines);
                in.entry = static_cast<uint16_t>(line_entry[l]);
            }
            sbrp_pb_out o;
            std::memset(&o, 0x5A, sizeof o);
            sbrp_pb_step(a, &in, &o);

            // Same edge through the transaction API.
            sbrp_pb_drain_all(b, in.drain_all);
            if (in.ack) sbrp_pb_ack(b);
            uint32_t res = SBRP_OK, ent = NO, evl = NO;
            if (in.op == SBRP_IN_STORE) res = sbrp_pb_store(b, w, in.line, in.entry, &ent);
            else if (in.op == SBRP_IN_FENCE) res = sbrp_pb_fence(b, w, sbrp_type(in.fence_type));
            else if (in.op == SBRP_IN_EVICT) res = sbrp_pb_evict(b, w, in.entry, &evl);
            sbrp_type ht;
            uint32_t fl = NO;
            sbrp_drain d = SBRP_DRAIN_IDLE;
            if (sbrp_pb_entry(b, 0, &ht, nullptr, nullptr) && (ht != SBRP_PERSIST || in.flush_ready))
                d = sbrp_pb_drain(b, &fl);

            ASSERT_EQ(o.result, res) << "cycle " << cyc;
            ASSERT_EQ(o.entry, in.op == SBRP_IN_STORE ? ent : NO);
            ASSERT_EQ(o.evict_valid, evl != NO ? 1 : 0);
            ASSERT_EQ(o.evict_line, evl);
            ASSERT_EQ(o.flush_valid, d == SBRP_DRAIN_FLUSH ? 1 : 0);
            ASSERT_EQ(o.flush_line, d == SBRP_DRAIN_FLUSH ? fl : NO);
            ASSERT_TRUE(in.flush_ready || !o.flush_valid);
            ASSERT_EQ(o.odm, sbrp_pb_odm(b));
            ASSERT_EQ(o.edm, sbrp_pb_edm(b));
            ASSERT_EQ(o.fsm, sbrp_pb_fsm(b));
            ASSERT_EQ(o.stalled, sbrp_pb_stalled(b));
            ASSERT_EQ(o.actr, sbrp_pb_actr(b));
            ASSERT_EQ(o.count, sbrp_pb_count(b));
            ASSERT_EQ(sbrp_pb_full_waiters(a), sbrp_pb_full_waiters(b));
            for (uint32_t pos = 0; pos <= entries; pos++) {
                sbrp_type t1 = SBRP_PERSIST, t2 = SBRP_PERSIST;
                uint32_t l1 = 0, l2 = 0;
                uint64_t m1 = 0, m2 = 0;
                int r1 = sbrp_pb_entry(a, pos, &t1, &l1, &m1);
                int r2 = sbrp_pb_entry(b, pos, &t2, &l2, &m2);
                ASSERT_EQ(r1, r2);
                ASSERT_EQ(t1, t2);
                ASSERT_EQ(l1, l2);
                ASSERT_EQ(m1, m2);
            }
            ASSERT_EQ(std::memcmp(sbrp_pb_get_stats(a), sbrp_pb_get_stats(b), sizeof(sbrp_pb_stats)), 0);

            // The L1 model: pb_index bookkeeping from the outputs.
            if (o.result == SBRP_ALLOCATED) line_entry[in.line] = o.entry;
            if (o.evict_valid) {
                line_entry[o.evict_line] = NO;
                inflight++;
            }
            if (o.flush_valid) {
                line_entry[o.flush_line] = NO;
                inflight++;
                flushes++;
            }
            inflight = o.actr;
        }
        EXPECT_GT(flushes, 1000u) << "policy " << policy;
        EXPECT_GT(sbrp_pb_get_stats(a)->evictions, 100u) << "policy " << policy;
    }
}

}   // namespace
