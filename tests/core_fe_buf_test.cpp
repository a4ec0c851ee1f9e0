// Unit tests of the LightWSP front-end buffer core (cores/fe_buf.{h,c}): FIFO persist path with
// acceptance ACKs, line CAM and the buffer-snooping victim policies (IV-G, Figures 13 and 14).
#include <gtest/gtest.h>
#include <cstdint>
#include <vector>
extern "C" {
#include "cache.h"
#include "fe_buf.h"
}

namespace {

struct Fe {
    std::vector<uint64_t> mem;
    fe_buf *b = nullptr;
    explicit Fe(uint32_t entries, uint32_t line_bytes = 64)
    {
        fe_buf_cfg c{entries, line_bytes};
        size_t n = fe_buf_bytes(&c);
        EXPECT_GT(n, 0u);
        mem.assign(n / 8 + 1, 0xDEADBEEFDEADBEEFull);   // garbage: init must clear it
        EXPECT_EQ(fe_buf_init(mem.data(), &c), 0);
        b = reinterpret_cast<fe_buf *>(mem.data());
    }
    uint64_t push(uint64_t word, uint64_t data = 0, uint32_t region = 0)
    {
        uint64_t seq = ~0ull;
        EXPECT_EQ(fe_buf_push(b, word, data, region, &seq), 1);
        return seq;
    }
};

struct Cache {
    std::vector<uint64_t> mem;
    cache *c = nullptr;
    Cache(uint64_t size, uint32_t line, uint32_t assoc, uint32_t tag_only)
    {
        cache_cfg cfg{size, line, assoc, tag_only};
        mem.assign(cache_bytes(&cfg) / 8 + 1, 0);
        EXPECT_EQ(cache_init(mem.data(), &cfg), 0);
        c = reinterpret_cast<cache *>(mem.data());
    }
};

TEST(FeBuf, RejectsBadConfig)
{
    std::vector<uint64_t> mem(4096 * 8);
    for (fe_buf_cfg c : {fe_buf_cfg{0, 64}, fe_buf_cfg{4097, 64}, fe_buf_cfg{64, 4}, fe_buf_cfg{64, 48},
                         fe_buf_cfg{64, 256}}) {
        EXPECT_EQ(fe_buf_bytes(&c), 0u);
        EXPECT_EQ(fe_buf_init(mem.data(), &c), -1);
    }
    fe_buf_cfg ok{64, 64};
    EXPECT_EQ(fe_buf_init(nullptr, &ok), -1);
    EXPECT_EQ(fe_buf_init(reinterpret_cast<char *>(mem.data()) + 4, &ok), -1);   // misaligned
    EXPECT_EQ(fe_buf_init(mem.data(), &ok), 0);
    fe_buf_cfg big{4096, 8};
    EXPECT_GT(fe_buf_bytes(&big), 0u);
}

TEST(FeBuf, FifoSendOrderAndStates)
{
    Fe f(8);
    for (uint64_t i = 0; i < 5; i++) EXPECT_EQ(f.push(0x100 + i, 10 + i, (uint32_t)(i / 2)), i);
    EXPECT_EQ(fe_buf_count(f.b), 5u);
    EXPECT_EQ(fe_buf_unsent(f.b), 5u);
    fe_buf_entry e{};
    ASSERT_EQ(fe_buf_peek(f.b, &e), 1);                 // peek changes nothing
    EXPECT_EQ(e.seq, 0u);
    EXPECT_EQ(e.sent, 0);
    EXPECT_EQ(fe_buf_unsent(f.b), 5u);
    std::vector<uint64_t> order;
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ(fe_buf_next_send(f.b, &e), 1);
        EXPECT_EQ(e.sent, 1);
        order.push_back(e.data);
    }
    EXPECT_EQ(order, (std::vector<uint64_t>{10, 11, 12}));   // oldest first
    EXPECT_EQ(e.region, 1);
    EXPECT_EQ(e.word_addr, 0x102u);
    EXPECT_EQ(fe_buf_count(f.b), 5u);                   // sent entries stay until ACKed
    EXPECT_EQ(fe_buf_unsent(f.b), 2u);
    ASSERT_EQ(fe_buf_entry_at(f.b, 2, &e), 0);
    EXPECT_EQ(e.sent, 1);
    ASSERT_EQ(fe_buf_entry_at(f.b, 3, &e), 0);
    EXPECT_EQ(e.sent, 0);
    EXPECT_EQ(fe_buf_entry_at(f.b, 5, &e), -1);
    ASSERT_EQ(fe_buf_next_send(f.b, nullptr), 1);
    ASSERT_EQ(fe_buf_next_send(f.b, &e), 1);
    EXPECT_EQ(e.data, 14u);
    EXPECT_EQ(fe_buf_next_send(f.b, &e), 0);            // nothing queued
    EXPECT_EQ(fe_buf_peek(f.b, &e), 0);
    EXPECT_EQ(fe_buf_get_stats(f.b)->sends, 5u);
}

TEST(FeBuf, FullRefusesAndAckFrees)
{
    Fe f(4);
    for (int i = 0; i < 4; i++) f.push(i);
    EXPECT_TRUE(fe_buf_full(f.b));
    uint64_t seq = 77;
    EXPECT_EQ(fe_buf_push(f.b, 9, 9, 0, &seq), 0);
    EXPECT_EQ(seq, 77u);                                 // untouched
    EXPECT_EQ(fe_buf_get_stats(f.b)->full, 1u);
    EXPECT_EQ(fe_buf_ack(f.b, 0), 0);                   // still queued: not ACKable
    fe_buf_next_send(f.b, nullptr);
    EXPECT_EQ(fe_buf_ack(f.b, 0), 1);
    EXPECT_EQ(fe_buf_ack(f.b, 0), 0);                   // already removed
    EXPECT_EQ(fe_buf_ack(f.b, 99), 0);                  // unknown
    EXPECT_EQ(fe_buf_get_stats(f.b)->unknown_acks, 3u);
    EXPECT_EQ(fe_buf_count(f.b), 3u);
    EXPECT_FALSE(fe_buf_full(f.b));
    EXPECT_EQ(f.push(9), 4u);                           // seq keeps counting
    EXPECT_EQ(fe_buf_push(f.b, 10, 0, 0, nullptr), 0);
}

// ACKs from different controllers come back in any order; the rest keeps FIFO order and an
// ACKed slot is free at once.
TEST(FeBuf, AcksInAnyOrder)
{
    Fe f(4);
    for (uint64_t i = 0; i < 4; i++) f.push(0x40 + i, i);
    for (int i = 0; i < 3; i++) fe_buf_next_send(f.b, nullptr);   // seq 0, 1, 2 sent; 3 queued
    EXPECT_EQ(fe_buf_ack(f.b, 3), 0);                   // queued: unknown to the ACK path
    EXPECT_EQ(fe_buf_ack(f.b, 1), 1);                   // middle first
    EXPECT_EQ(fe_buf_count(f.b), 3u);
    EXPECT_EQ(f.push(0x50, 4), 4u);                     // slot reused at once
    EXPECT_TRUE(fe_buf_full(f.b));
    std::vector<uint64_t> seqs;
    fe_buf_entry e;
    for (uint32_t k = 0; fe_buf_entry_at(f.b, k, &e) == 0; k++) seqs.push_back(e.seq);
    EXPECT_EQ(seqs, (std::vector<uint64_t>{0, 2, 3, 4}));
    ASSERT_EQ(fe_buf_next_send(f.b, &e), 1);
    EXPECT_EQ(e.seq, 3u);
    EXPECT_EQ(fe_buf_ack(f.b, 3), 1);                   // youngest sent
    EXPECT_EQ(fe_buf_ack(f.b, 0), 1);
    EXPECT_EQ(fe_buf_ack(f.b, 2), 1);
    EXPECT_EQ(fe_buf_count(f.b), 1u);
    EXPECT_EQ(fe_buf_unsent(f.b), 1u);
    ASSERT_EQ(fe_buf_next_send(f.b, &e), 1);
    EXPECT_EQ(e.seq, 4u);
    EXPECT_EQ(e.data, 4u);
    EXPECT_EQ(fe_buf_ack(f.b, 4), 1);
    EXPECT_EQ(fe_buf_count(f.b), 0u);
    EXPECT_EQ(fe_buf_get_stats(f.b)->acks, 5u);
}

// Ring wrap with a random mix of pushes, sends and ACKs (in and out of order) against a simple
// reference list.
TEST(FeBuf, RandomAgainstReference)
{
    Fe f(5);
    struct R { uint64_t seq, data; bool sent; };
    std::vector<R> ref;
    uint32_t x = 7;
    auto rnd = [&x]() { x = x * 1664525u + 1013904223u; return x >> 8; };
    uint64_t next = 0;
    for (int step = 0; step < 20000; step++) {
        uint32_t op = rnd() % 3;
        if (op == 0) {
            uint64_t seq;
            int ok = fe_buf_push(f.b, rnd() % 64, rnd(), 0, &seq);
            ASSERT_EQ(ok, ref.size() < 5 ? 1 : 0);
            if (ok) { ASSERT_EQ(seq, next); ref.push_back({next++, 0, false}); }
        } else if (op == 1) {
            fe_buf_entry e;
            int ok = fe_buf_next_send(f.b, &e);
            size_t k = 0;
            while (k < ref.size() && ref[k].sent) k++;
            ASSERT_EQ(ok, k < ref.size() ? 1 : 0);
            if (ok) { ASSERT_EQ(e.seq, ref[k].seq); ref[k].sent = true; }
        } else if (!ref.empty()) {
            size_t k = rnd() % ref.size();
            ASSERT_EQ(fe_buf_ack(f.b, ref[k].seq), ref[k].sent ? 1 : 0);
            if (ref[k].sent) ref.erase(ref.begin() + (long)k);
        }
        ASSERT_EQ(fe_buf_count(f.b), ref.size());
        for (size_t k = 0; k < ref.size(); k++) {
            fe_buf_entry e;
            ASSERT_EQ(fe_buf_entry_at(f.b, (uint32_t)k, &e), 0);
            ASSERT_EQ(e.seq, ref[k].seq);
            ASSERT_EQ(e.sent != 0, ref[k].sent);
        }
    }
}

// CAM by line: word addresses of the same cache line conflict, other lines do not; queued and
// sent entries both count, ACKed ones no longer.
TEST(FeBuf, ConflictCamByLine)
{
    Fe f(8, 64);                                         // 8 words per line
    f.push(0x123);                                       // word 0x123 -> line 0x24
    EXPECT_TRUE(fe_buf_conflict(f.b, 0x24));
    EXPECT_FALSE(fe_buf_conflict(f.b, 0x25));
    EXPECT_FALSE(fe_buf_conflict(f.b, 0x23));
    f.push(0x127);                                       // last word of line 0x24
    f.push(0x128);                                       // first word of line 0x25
    EXPECT_TRUE(fe_buf_conflict(f.b, 0x25));
    fe_buf_next_send(f.b, nullptr);
    fe_buf_next_send(f.b, nullptr);
    EXPECT_TRUE(fe_buf_conflict(f.b, 0x24));             // sent, not yet ACKed
    fe_buf_ack(f.b, 0);
    EXPECT_TRUE(fe_buf_conflict(f.b, 0x24));             // 0x127 still there
    fe_buf_ack(f.b, 1);
    EXPECT_FALSE(fe_buf_conflict(f.b, 0x24));
    EXPECT_TRUE(fe_buf_conflict(f.b, 0x25));
    Fe w(4, 8);                                          // 8 B lines: one word each
    w.push(0x10);
    EXPECT_TRUE(fe_buf_conflict(w.b, 0x10));
    EXPECT_FALSE(fe_buf_conflict(w.b, 0x11));
    Fe l(4, 128);                                        // 16 words per line
    l.push(0x1F);
    EXPECT_TRUE(fe_buf_conflict(l.b, 0x1));
    EXPECT_FALSE(fe_buf_conflict(l.b, 0x2));
}

// A hand-built 8-way set (one set, 64 B lines): way w holds line 100 + w, installed in way order,
// so the LRU order is ways 0, 1, ..., 7 (0 = LRU). Run in full and tag-only cache modes.
class FeVictim : public ::testing::TestWithParam<uint32_t> {
protected:
    Cache k{8 * 64, 64, 8, GetParam()};
    Fe f{64, 64};
    const uint64_t miss = 999;                           // the line being filled (same set)
    void SetUp() override
    {
        std::vector<uint8_t> d(64, 1);
        for (int32_t w = 0; w < 8; w++) {
            cache_install(k.c, w, 100 + (uint64_t)w, 1);
            cache_write(k.c, w, 0, d.data(), 8);         // every way dirty
        }
    }
    void entry_in_way(int32_t w, uint32_t word = 3) { f.push((100 + (uint64_t)w) * 8 + word); }
    int32_t victim(int policy, uint32_t *conf) { return fe_buf_victim(f.b, k.c, miss, policy, conf); }
};

// Full-victim finds a conflict-free way deep in the LRU order; half-victim does not when the only
// acceptable way is in the younger half; zero-victim waits whenever the LRU way conflicts; no
// snooping takes the LRU way regardless.
TEST_P(FeVictim, PoliciesOnConflictsInTheOlderWays)
{
    for (int32_t w = 0; w < 8; w++)
        if (w != 6) entry_in_way(w);                     // only way 6 is conflict-free
    uint32_t conf = 0;
    EXPECT_EQ(victim(FE_VICTIM_FULL, &conf), 6);
    EXPECT_EQ(conf, 6u);
    EXPECT_EQ(victim(FE_VICTIM_HALF, &conf), -1);        // scans ways 0..3 only
    EXPECT_EQ(conf, 4u);
    EXPECT_EQ(victim(FE_VICTIM_ZERO, &conf), -1);
    EXPECT_EQ(conf, 1u);
    EXPECT_EQ(victim(FE_VICTIM_NONE, &conf), 0);         // stale-load variant: plain LRU
    EXPECT_EQ(conf, 0u);
    EXPECT_EQ(victim(FE_VICTIM_NONE, nullptr), cache_victim(k.c, miss));
    const fe_buf_stats *s = fe_buf_get_stats(f.b);
    EXPECT_EQ(s->victim_waits, 2u);
    EXPECT_EQ(s->conflicts, 6u + 4u + 1u);
    EXPECT_EQ(s->conflict_checks, 7u + 4u + 1u);
    // LRU order, not way order: touching way 6 makes it MRU; full scan then finds nothing
    cache_touch(k.c, 6);
    EXPECT_EQ(victim(FE_VICTIM_FULL, &conf), 6);         // still the only acceptable way
    EXPECT_EQ(conf, 7u);
    entry_in_way(6);
    EXPECT_EQ(victim(FE_VICTIM_FULL, &conf), -1);        // every way conflicts: wait
    EXPECT_EQ(conf, 8u);
    EXPECT_EQ(victim(FE_VICTIM_ZERO, nullptr), -1);
    EXPECT_EQ(victim(FE_VICTIM_FULL, nullptr), -1);
}

// Half-victim succeeds when an acceptable way is among the oldest four.
TEST_P(FeVictim, HalfFindsAcceptableWayInTheOlderHalf)
{
    for (int32_t w = 0; w < 8; w++)
        if (w != 3 && w != 6) entry_in_way(w);
    uint32_t conf = 0;
    EXPECT_EQ(victim(FE_VICTIM_HALF, &conf), 3);
    EXPECT_EQ(conf, 3u);
    EXPECT_EQ(victim(FE_VICTIM_FULL, &conf), 3);         // first acceptable in LRU order
    EXPECT_EQ(victim(FE_VICTIM_ZERO, &conf), -1);
}

// Clean or non-present ways are never conflicts, even if the buffer holds an entry of their line
// (or of line 0, the tag of a non-present way).
TEST_P(FeVictim, CleanAndNonPresentWaysNeverConflict)
{
    for (int32_t w = 0; w < 8; w++) entry_in_way(w);     // every line has an entry
    cache_clean(k.c, 5);                                 // written back: clean
    uint32_t conf = 0;
    EXPECT_EQ(victim(FE_VICTIM_FULL, &conf), 5);
    EXPECT_EQ(conf, 5u);
    cache_clean(k.c, 0);                                 // the LRU way clean: every policy takes it
    for (int p : {FE_VICTIM_FULL, FE_VICTIM_HALF, FE_VICTIM_ZERO, FE_VICTIM_NONE}) {
        EXPECT_EQ(victim(p, &conf), 0) << p;
        EXPECT_EQ(conf, 0u) << p;
    }
    f.push(0);                                           // an entry of line 0
    f.push(7);
    cache_invalidate(k.c, 4);                            // a free way comes first
    for (int p : {FE_VICTIM_FULL, FE_VICTIM_HALF, FE_VICTIM_ZERO, FE_VICTIM_NONE}) {
        EXPECT_EQ(victim(p, &conf), 4) << p;
        EXPECT_EQ(conf, 0u) << p;
    }
}

// Zero-victim: the eviction waits until the LRU way's entry is ACKed, then proceeds.
TEST_P(FeVictim, ZeroWaitsUntilAck)
{
    entry_in_way(0, 1);
    entry_in_way(0, 6);                                  // two entries of the LRU line
    uint32_t conf = 0;
    EXPECT_EQ(victim(FE_VICTIM_ZERO, &conf), -1);
    EXPECT_EQ(victim(FE_VICTIM_FULL, &conf), 1);         // full-victim picks the next way
    EXPECT_EQ(conf, 1u);
    fe_buf_entry e;
    fe_buf_next_send(f.b, &e);
    fe_buf_ack(f.b, e.seq);
    EXPECT_EQ(victim(FE_VICTIM_ZERO, &conf), -1);        // one entry left
    fe_buf_next_send(f.b, &e);
    EXPECT_EQ(victim(FE_VICTIM_ZERO, &conf), -1);        // sent but not ACKed: still a conflict
    fe_buf_ack(f.b, e.seq);
    EXPECT_EQ(victim(FE_VICTIM_ZERO, &conf), 0);
    EXPECT_EQ(conf, 0u);
    EXPECT_EQ(victim(7, &conf), -1);                     // unknown policy
}

INSTANTIATE_TEST_SUITE_P(CacheModes, FeVictim, ::testing::Values(0u, 1u),
                         [](const ::testing::TestParamInfo<uint32_t> &i) { return i.param ? "TagOnly" : "Full"; });

// Two-way set: half-victim scans one way (assoc / 2), direct-mapped: at least one way.
TEST(FeBuf, HalfVictimOnSmallSets)
{
    Cache k2(4 * 64, 64, 2, 0);                          // 2 sets x 2 ways
    Fe f(8, 64);
    std::vector<uint8_t> d(8, 1);
    cache_install(k2.c, 0, 10, 1);                       // set 0: lines 10, 12
    cache_install(k2.c, 1, 12, 1);
    cache_write(k2.c, 0, 0, d.data(), 8);
    cache_write(k2.c, 1, 0, d.data(), 8);
    f.push(10 * 8);
    uint32_t conf = 0;
    EXPECT_EQ(fe_buf_victim(f.b, k2.c, 14, FE_VICTIM_HALF, &conf), -1);
    EXPECT_EQ(fe_buf_victim(f.b, k2.c, 14, FE_VICTIM_FULL, &conf), 1);
    Cache k1(4 * 64, 64, 1, 1);                          // direct-mapped, tag-only
    cache_install(k1.c, 2, 6, 1);
    cache_write(k1.c, 2, 0, nullptr, 8);
    f.push(6 * 8 + 5);
    EXPECT_EQ(fe_buf_victim(f.b, k1.c, 10, FE_VICTIM_HALF, &conf), -1);
    EXPECT_EQ(conf, 1u);
    EXPECT_EQ(fe_buf_victim(f.b, k1.c, 10, FE_VICTIM_NONE, &conf), 2);
    EXPECT_EQ(fe_buf_victim(f.b, nullptr, 10, FE_VICTIM_FULL, &conf), -1);
}

}  // namespace
