// Unit tests of the BROI persist buffer core (cores/persist_buf.{h,c}): entries per cache block with
// coalescing inside a barrier epoch, FIFO release gated by inter-thread dependencies (the Figure
// 6(b) example of broi-persistence-parallelism.md IV-C), RAW dependencies, fences, acknowledgements.
#include <gtest/gtest.h>
#include <cstdint>
#include <vector>
extern "C" {
#include "persist_buf.h"
}

namespace {

struct Pb {
    std::vector<uint64_t> mem;
    persist_buf *b = nullptr;
    explicit Pb(uint32_t entries = 8, uint32_t coalesce = 1, uint32_t ignore = 0, uint32_t line = 64)
    {
        pbuf_cfg c{entries, line, coalesce, ignore};
        const size_t n = pbuf_bytes(&c);
        EXPECT_GT(n, 0u);
        mem.assign(n / 8 + 1, 0xDEADBEEFDEADBEEFull);   // garbage: init must clear it
        EXPECT_EQ(pbuf_init(mem.data(), &c), 0);
        b = reinterpret_cast<persist_buf *>(mem.data());
    }
    pbuf_result st(uint64_t line, uint32_t off, uint8_t v, std::vector<pbuf_dep> deps = {}, uint64_t *id = nullptr)
    {
        return pbuf_store(b, line, off, 1, &v, deps.data(), (uint32_t)deps.size(), id);
    }
    // Sends every READY head; returns how many.
    int send_all()
    {
        int n = 0;
        while (pbuf_head(b, nullptr) == PBUF_HEAD_READY) n += pbuf_send(b);
        return n;
    }
};

TEST(PersistBuf, BadConfigsAreRefused)
{
    std::vector<uint64_t> mem(1 << 16);
    for (pbuf_cfg c : {pbuf_cfg{0, 64, 1, 0}, pbuf_cfg{65, 64, 1, 0}, pbuf_cfg{8, 48, 1, 0}, pbuf_cfg{8, 256, 1, 0},
                       pbuf_cfg{8, 64, 2, 0}, pbuf_cfg{8, 64, 1, 2}}) {
        EXPECT_EQ(pbuf_bytes(&c), 0u);
        EXPECT_EQ(pbuf_init(mem.data(), &c), -1);
    }
    pbuf_cfg ok{8, 64, 1, 0};
    EXPECT_EQ(pbuf_init(reinterpret_cast<char *>(mem.data()) + 4, &ok), -1);   // misaligned
}

// Figure 6(b): core 0 stores X (no dependency); core 1 stores X, the snoop of its read-exclusive
// finds core 0's entry "0:0", so its entry waits; the controller acknowledges 0:0, the dependency
// resolves and 1:0 is released.
TEST(PersistBuf, Figure6bPersistPersistDependency)
{
    Pb c0, c1;
    const uint64_t X = 0x40;
    uint64_t id0 = 99, snooped = 99, id1 = 99;
    ASSERT_EQ(c0.st(X, 0, 'x', {}, &id0), PBUF_NEW);
    EXPECT_EQ(id0, 0u);
    ASSERT_EQ(pbuf_snoop(c0.b, X, &snooped), 1);          // step 5: D$0 snoops its persist buffer
    EXPECT_EQ(snooped, 0u);
    ASSERT_EQ(c1.st(X, 0, 'y', {{0, snooped}}, &id1), PBUF_NEW);   // step 6: DP field = 0:0
    pbuf_entry e;
    EXPECT_EQ(pbuf_head(c1.b, &e), PBUF_HEAD_BLOCKED);
    EXPECT_EQ(e.ndeps, 1u);
    EXPECT_EQ(e.deps[0].thread, 0u);
    EXPECT_EQ(pbuf_send(c1.b), 0);                        // not released while blocked
    EXPECT_EQ(c0.send_all(), 1);                          // step 7: 0:0 goes to the BROI queue
    EXPECT_EQ(pbuf_resolve(c1.b, 0, pbuf_live_min(c0.b)), 0u);   // sent is not acknowledged
    EXPECT_EQ(pbuf_head(c1.b, nullptr), PBUF_HEAD_BLOCKED);
    EXPECT_EQ(pbuf_ack(c0.b, id0), 1);                    // steps 8-10
    EXPECT_EQ(pbuf_live_min(c0.b), UINT64_MAX);
    EXPECT_EQ(pbuf_resolve(c1.b, 0, pbuf_live_min(c0.b)), 1u);
    EXPECT_EQ(pbuf_head(c1.b, &e), PBUF_HEAD_READY);
    EXPECT_EQ(e.data[0], 'y');
    EXPECT_EQ(c1.send_all(), 1);
    EXPECT_EQ(pbuf_get_stats(c1.b)->dep_entries, 1u);
}

// Figure 5 (IV-A): thread V = (a, barrier, c), thread P = (b, barrier, d); a and d write the same
// block and a comes first in volatile order. P's buffer records d's dependency on V's entry a: d
// is released only after a is acknowledged, whatever c (V's later epoch) does; b, before P's
// barrier, goes at once; the barrier keeps d behind b.
TEST(PersistBuf, Figure5ConflictOrdersDAfterA)
{
    Pb V, P;
    const uint64_t A = 10, C = 11, B = 12;        // blocks; d writes block A too
    uint64_t ia, ic, ib, snooped;
    V.st(A, 0, 'a', {}, &ia);
    ASSERT_EQ(pbuf_fence(V.b, nullptr), PBUF_NEW);
    V.st(C, 0, 'c', {}, &ic);
    P.st(B, 0, 'b', {}, &ib);
    ASSERT_EQ(pbuf_fence(P.b, nullptr), PBUF_NEW);
    ASSERT_EQ(pbuf_snoop(V.b, A, &snooped), 1);
    EXPECT_EQ(snooped, ia);
    ASSERT_EQ(P.st(A, 8, 'd', {{0, snooped}}), PBUF_NEW);
    EXPECT_EQ(P.send_all(), 2);                   // b and the barrier; d waits for a
    pbuf_entry e;
    ASSERT_EQ(pbuf_head(P.b, &e), PBUF_HEAD_BLOCKED);
    EXPECT_EQ(e.data[8], 'd');
    EXPECT_EQ(V.send_all(), 3);                   // a, barrier, c
    pbuf_resolve(P.b, 0, pbuf_live_min(V.b));
    EXPECT_EQ(pbuf_head(P.b, nullptr), PBUF_HEAD_BLOCKED);
    ASSERT_EQ(pbuf_ack(V.b, ia), 1);              // a durable; c still in flight
    pbuf_resolve(P.b, 0, pbuf_live_min(V.b));
    EXPECT_EQ(pbuf_head(P.b, nullptr), PBUF_HEAD_READY);
    EXPECT_EQ(pbuf_live_min(V.b), ic);
}

// A dependency (t, i) is resolved only when t holds no live entry with id <= i (chain rule).
TEST(PersistBuf, DependencyNeedsEveryOlderEntryAcknowledged)
{
    Pb c0, c1;
    uint64_t a, b2;
    c0.st(1, 0, 1, {}, &a);
    ASSERT_EQ(pbuf_fence(c0.b, nullptr), PBUF_NEW);
    c0.st(2, 0, 2, {}, &b2);
    c1.st(2, 0, 3, {{0, b2}});
    EXPECT_EQ(c0.send_all(), 3);               // store, fence, store
    EXPECT_EQ(pbuf_ack(c0.b, b2), 1);          // the younger one first (another bank)
    pbuf_resolve(c1.b, 0, pbuf_live_min(c0.b));
    EXPECT_EQ(pbuf_head(c1.b, nullptr), PBUF_HEAD_BLOCKED) << "entry a (older than b) is still live";
    EXPECT_EQ(pbuf_ack(c0.b, a), 1);
    pbuf_resolve(c1.b, 0, pbuf_live_min(c0.b));
    EXPECT_EQ(pbuf_head(c1.b, nullptr), PBUF_HEAD_READY);
}

TEST(PersistBuf, CoalescesInsideAnEpochOnly)
{
    Pb p;
    uint64_t i0, i1, i2, i3;
    EXPECT_EQ(p.st(7, 0, 0xA, {}, &i0), PBUF_NEW);
    EXPECT_EQ(p.st(8, 0, 0xB), PBUF_NEW);
    EXPECT_EQ(p.st(7, 5, 0xC, {}, &i1), PBUF_COALESCED);       // same block, same epoch, unsent
    EXPECT_EQ(i1, i0);
    EXPECT_EQ(pbuf_count(p.b), 2u);
    pbuf_entry e;
    ASSERT_EQ(pbuf_entry_at(p.b, 0, &e), 0);
    EXPECT_EQ(e.stores, 2u);
    EXPECT_EQ(e.mask[0], (1ull << 0) | (1ull << 5));
    EXPECT_EQ(e.data[5], 0xC);
    ASSERT_EQ(pbuf_fence(p.b, nullptr), PBUF_NEW);
    EXPECT_EQ(p.st(7, 1, 0xD, {}, &i2), PBUF_NEW) << "a fence between: no joining across the barrier";
    EXPECT_NE(i2, i0);
    EXPECT_EQ(p.send_all(), 4);
    EXPECT_EQ(p.st(7, 2, 0xE, {}, &i3), PBUF_NEW) << "a sent entry takes no more stores";
    const pbuf_stats *s = pbuf_get_stats(p.b);
    EXPECT_EQ(s->stores, 5u);
    EXPECT_EQ(s->coalesced, 1u);
    EXPECT_EQ(s->entries, 4u);
    EXPECT_EQ(s->fences, 1u);
}

TEST(PersistBuf, NoCoalescingWithADependencyOrWhenDisabled)
{
    Pb p;
    p.st(7, 0, 1);
    EXPECT_EQ(p.st(7, 1, 2, {{3, 10}}), PBUF_NEW) << "another thread holds the block: the store follows it";
    Pb r;
    r.st(7, 0, 1);
    const pbuf_dep raw{2, 4};
    pbuf_load(r.b, &raw, 1);
    EXPECT_EQ(pbuf_pending_raw(r.b), 1u);
    EXPECT_EQ(r.st(7, 1, 2), PBUF_NEW) << "a RAW dependency must not move the store into an older entry";
    EXPECT_EQ(pbuf_pending_raw(r.b), 0u);
    pbuf_entry e;
    ASSERT_EQ(pbuf_entry_at(r.b, 1, &e), 0);
    ASSERT_EQ(e.ndeps, 1u);
    EXPECT_EQ(e.deps[0].thread, 2u);
    EXPECT_EQ(e.deps[0].id, 4u);
    Pb off(8, 0);
    off.st(7, 0, 1);
    EXPECT_EQ(off.st(7, 1, 2), PBUF_NEW);
}

TEST(PersistBuf, FifoReleaseAFullBufferAndEmptyEpochs)
{
    Pb p(3);
    EXPECT_EQ(pbuf_fence(p.b, nullptr), PBUF_EMPTY_EPOCH);
    EXPECT_EQ(pbuf_epoch(p.b), 1u);
    uint64_t a, b, c;
    p.st(1, 0, 1, {}, &a);
    p.st(2, 0, 1, {{1, 0}}, &b);               // blocked: the next ones wait behind it (FIFO)
    p.st(3, 0, 1, {}, &c);
    EXPECT_TRUE(pbuf_full(p.b));
    EXPECT_EQ(p.st(4, 0, 1), PBUF_FULL);
    EXPECT_EQ(pbuf_fence(p.b, nullptr), PBUF_FULL);
    EXPECT_EQ(p.send_all(), 1);
    EXPECT_EQ(pbuf_unsent(p.b), 2u);
    pbuf_resolve(p.b, 1, 1);
    EXPECT_EQ(p.send_all(), 2);
    EXPECT_EQ(pbuf_ack(p.b, c), 1);            // any order
    EXPECT_EQ(pbuf_ack(p.b, c), 0);
    EXPECT_EQ(pbuf_ack(p.b, 77), 0);
    EXPECT_EQ(pbuf_get_stats(p.b)->unknown_acks, 2u);
    uint64_t y;
    EXPECT_EQ(pbuf_snoop(p.b, 2, &y), 1);
    EXPECT_EQ(y, b);
    EXPECT_EQ(pbuf_snoop(p.b, 3, &y), 0);
    EXPECT_EQ(pbuf_last_store(p.b), b);
    EXPECT_EQ(pbuf_live_min(p.b), a);
}

TEST(PersistBuf, FenceLeavesWhenSentAndUnsentStoresCannotBeAcked)
{
    Pb p;
    uint64_t a;
    p.st(1, 0, 1, {}, &a);
    EXPECT_EQ(pbuf_ack(p.b, a), 0) << "not sent yet";
    ASSERT_EQ(pbuf_fence(p.b, nullptr), PBUF_NEW);
    EXPECT_EQ(pbuf_count(p.b), 2u);
    pbuf_entry f;
    ASSERT_EQ(pbuf_entry_at(p.b, 1, &f), 0);
    EXPECT_EQ(f.kind, PBUF_FENCE);
    EXPECT_EQ(f.id, a + 1);
    EXPECT_EQ(p.send_all(), 2);
    EXPECT_EQ(pbuf_count(p.b), 1u);            // the fence left at its send
    EXPECT_EQ(pbuf_ack(p.b, a), 1);
    EXPECT_EQ(pbuf_count(p.b), 0u);
}

TEST(PersistBuf, BrokenVariantIgnoresDependencies)
{
    Pb p(8, 1, 1);
    p.st(1, 0, 1, {{2, 5}});
    const pbuf_dep raw{3, 1};
    pbuf_load(p.b, &raw, 1);
    EXPECT_EQ(pbuf_head(p.b, nullptr), PBUF_HEAD_READY);
    EXPECT_EQ(pbuf_get_stats(p.b)->dep_entries, 0u);
    EXPECT_EQ(pbuf_pending_raw(p.b), 0u);
}

TEST(PersistBuf, FindReturnsTheReleasedEntry)
{
    Pb p;
    uint64_t a, b;
    p.st(5, 3, 0x11, {}, &a);
    ASSERT_EQ(pbuf_fence(p.b, nullptr), PBUF_NEW);
    p.st(6, 0, 0x22, {}, &b);
    EXPECT_EQ(p.send_all(), 3);
    EXPECT_EQ(p.st(5, 4, 0x33), PBUF_NEW) << "the sent entry does not change";
    pbuf_entry e;
    ASSERT_EQ(pbuf_find(p.b, a, &e), 0);
    EXPECT_EQ(e.line, 5u);
    EXPECT_EQ(e.data[3], 0x11);
    EXPECT_EQ(e.mask[0], 1ull << 3);
    EXPECT_EQ(pbuf_find(p.b, a + 1, &e), -1) << "the fence left when it was sent";
    ASSERT_EQ(pbuf_ack(p.b, a), 1);
    EXPECT_EQ(pbuf_find(p.b, a, nullptr), -1);
    EXPECT_EQ(pbuf_find(p.b, b, nullptr), 0);
}

TEST(PersistBuf, StoresMayNotCrossTheBlock)
{
    Pb p;
    uint8_t d[8] = {0};
    EXPECT_EQ(pbuf_store(p.b, 1, 60, 8, d, nullptr, 0, nullptr), PBUF_BAD);
    EXPECT_EQ(pbuf_store(p.b, 1, 56, 8, d, nullptr, 0, nullptr), PBUF_NEW);
    EXPECT_EQ(pbuf_store(p.b, 1, 0, 0, d, nullptr, 0, nullptr), PBUF_BAD);
}

} // namespace
