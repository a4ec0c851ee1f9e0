// Unit tests of the AGPM buffer core (cores/agpm_buf.{h,c}).
#include <gtest/gtest.h>
#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <vector>
extern "C" {
#include "agpm_buf.h"
}

namespace {

struct Buf {
    std::vector<uint64_t> mem;
    agpm_buf *b;
    explicit Buf(agpm_buf_cfg c)
    {
        mem.resize(agpm_buf_bytes(&c) / 8 + 1);
        b = reinterpret_cast<agpm_buf *>(mem.data());
        EXPECT_EQ(agpm_buf_init(b, &c), 0);
    }
};

agpm_buf_cfg paper() { return {1024, 2, 128, 5, 5, 64}; }

uint32_t blk(const agpm_buf *b, agpm_way w, uint64_t a)
{
    uint32_t n = 0;
    EXPECT_EQ(agpm_buf_entry(b, w, a, &n, nullptr), 1);
    return n;
}

uint8_t byte(const agpm_buf *b, agpm_way w, uint64_t a)
{
    uint8_t c[AGPM_MAX_BLOCK];
    EXPECT_EQ(agpm_buf_entry(b, w, a, nullptr, c), 1);
    return c[a % agpm_buf_config(b)->block_bytes];
}

agpm_vars vars(const agpm_buf *b, int resv = 1)
{
    agpm_vars v;
    agpm_buf_vars(b, resv, &v);
    return v;
}

TEST(AgpmBuf, RejectsBadConfig)
{
    std::vector<uint64_t> mem(1 << 16);
    agpm_buf_cfg ok = paper();
    EXPECT_GT(agpm_buf_bytes(&ok), 1024u * 128u);
    ASSERT_LE(agpm_buf_bytes(&ok), mem.size() * 8);
    EXPECT_EQ(agpm_buf_init(mem.data(), &ok), 0);
    agpm_buf_cfg bad[] = {
        {1024, 3, 128, 5, 5, 64},    // odd ways: no log/all split
        {1024, 0, 128, 5, 5, 64},
        {1000, 16, 128, 5, 5, 64},   // entries not a multiple of ways
        {1, 2, 128, 5, 5, 64},       // fewer entries than ways
        {1024, 2, 96, 5, 5, 64},     // block not a power of two
        {1024, 2, 8192, 5, 5, 64},   // block too large
        {1024, 2, 128, 0, 5, 64},    // byte counter bits 1..8
        {1024, 2, 128, 9, 5, 64},
        {1024, 2, 128, 5, 0, 64},    // block counter bits 1..32
        {1024, 2, 128, 5, 33, 64},
        {1024, 2, 128, 5, 5, (1u << 20) + 1},
    };
    for (const auto &c : bad) {
        EXPECT_EQ(agpm_buf_bytes(&c), 0u);
        EXPECT_EQ(agpm_buf_init(mem.data(), &c), -1);
    }
    EXPECT_EQ(agpm_buf_init(nullptr, &ok), -1);
    agpm_buf_cfg no_resv{16, 2, 128, 5, 5, 0};   // no reservation buffer is allowed
    EXPECT_EQ(agpm_buf_init(mem.data(), &no_resv), 0);
}

TEST(AgpmBuf, RejectsRangeOutsideOneBlock)
{
    Buf q(paper());
    EXPECT_EQ(agpm_buf_log_write(q.b, 120, 9, AGPM_PATH_NT, AGPM_PATH_NT), -1);   // crosses into the next block
    EXPECT_EQ(agpm_buf_log_write(q.b, 0, 0, AGPM_PATH_NT, AGPM_PATH_NT), -1);
    EXPECT_EQ(agpm_buf_access(q.b, 127, 2), -1);
    EXPECT_EQ(agpm_buf_log_write(q.b, 120, 8, AGPM_PATH_NT, AGPM_PATH_NT), 0);
    EXPECT_EQ(agpm_buf_get_stats(q.b)->log_writes, 1u);
}

// Section IV-B's description of the counters, step by step.
TEST(AgpmBuf, PaperCounterRules)
{
    Buf q(paper());
    const uint64_t B = 0x4000;   // an aligned 128-byte block
    // "When a new PM request is made, an associated entry will be initialized with 0 and added in
    // both ways ... The counters of the requested bytes are increased by 1."
    ASSERT_EQ(agpm_buf_log_write(q.b, B, 8, AGPM_PATH_NT, AGPM_PATH_NT), 0);
    for (agpm_way w : {AGPM_WAY_LOG, AGPM_WAY_ALL}) {
        EXPECT_EQ(blk(q.b, w, B), 0u);
        EXPECT_EQ(byte(q.b, w, B + 0), 1);
        EXPECT_EQ(byte(q.b, w, B + 7), 1);
        EXPECT_EQ(byte(q.b, w, B + 8), 0);
    }
    // A non-log hit on bytes with counter > 0: "both the byte and the cache block counters will be
    // increased", and only in the all way.
    EXPECT_EQ(agpm_buf_access(q.b, B + 4, 4), 1);
    EXPECT_EQ(byte(q.b, AGPM_WAY_ALL, B + 4), 2);
    EXPECT_EQ(byte(q.b, AGPM_WAY_ALL, B + 3), 1);
    EXPECT_EQ(blk(q.b, AGPM_WAY_ALL, B), 1u);
    EXPECT_EQ(byte(q.b, AGPM_WAY_LOG, B + 4), 1);
    EXPECT_EQ(blk(q.b, AGPM_WAY_LOG, B), 0u);
    // A hit on bytes with counter 0: "only the cache block counter will be increased".
    EXPECT_EQ(agpm_buf_access(q.b, B + 64, 8), 1);
    EXPECT_EQ(byte(q.b, AGPM_WAY_ALL, B + 64), 0);
    EXPECT_EQ(blk(q.b, AGPM_WAY_ALL, B), 2u);
    // A second log update is a hit in both ways ("counters in both ways ... will be updated").
    ASSERT_EQ(agpm_buf_log_write(q.b, B, 4, AGPM_PATH_NT, AGPM_PATH_NT), 0);
    EXPECT_EQ(byte(q.b, AGPM_WAY_LOG, B + 0), 2);
    EXPECT_EQ(byte(q.b, AGPM_WAY_LOG, B + 4), 1);
    EXPECT_EQ(blk(q.b, AGPM_WAY_LOG, B), 1u);
    EXPECT_EQ(byte(q.b, AGPM_WAY_ALL, B + 0), 2);
    EXPECT_EQ(blk(q.b, AGPM_WAY_ALL, B), 3u);
    // t = sum of byte counters > 1; s = that plus the block counters (IV-B).
    agpm_vars v = vars(q.b);
    EXPECT_EQ(v.t_log, 4u * 2);             // bytes 0..3 at 2
    EXPECT_EQ(v.s_log, 4u * 2 + 1);
    EXPECT_EQ(v.t_all, 8u * 2);             // bytes 0..7 at 2
    EXPECT_EQ(v.s_all, 8u * 2 + 3);
    EXPECT_EQ(agpm_buf_get_stats(q.b)->allocs, 2u);   // one entry per way, once
}

TEST(AgpmBuf, NonLogMissTakesNoAction)
{
    Buf q(paper());
    EXPECT_EQ(agpm_buf_access(q.b, 0x1000, 4), 0);
    EXPECT_EQ(agpm_buf_access(q.b, 0x1000, 4), 0);
    EXPECT_EQ(agpm_buf_valid_count(q.b, AGPM_WAY_ALL), 0u);
    EXPECT_EQ(agpm_buf_valid_count(q.b, AGPM_WAY_LOG), 0u);
    EXPECT_EQ(agpm_buf_get_stats(q.b)->access_misses, 2u);
    agpm_vars v = vars(q.b);
    EXPECT_EQ(v.s_all + v.t_all + v.s_log + v.t_log, 0u);
}

TEST(AgpmBuf, FiveBitCountersSaturate)
{
    Buf q(paper());
    ASSERT_EQ(agpm_buf_log_write(q.b, 0, 1, AGPM_PATH_T, AGPM_PATH_T), 0);
    for (int i = 0; i < 40; i++) EXPECT_EQ(agpm_buf_access(q.b, 0, 1), 1);
    EXPECT_EQ(byte(q.b, AGPM_WAY_ALL, 0), 31);
    EXPECT_EQ(blk(q.b, AGPM_WAY_ALL, 0), 31u);
    EXPECT_EQ(vars(q.b).t_all, 31u);
    Buf w({1024, 2, 128, 5, 16, 64});          // a wider block counter counts on
    ASSERT_EQ(agpm_buf_log_write(w.b, 0, 1, AGPM_PATH_T, AGPM_PATH_T), 0);
    for (int i = 0; i < 40; i++) agpm_buf_access(w.b, 0, 1);
    EXPECT_EQ(byte(w.b, AGPM_WAY_ALL, 0), 31);
    EXPECT_EQ(blk(w.b, AGPM_WAY_ALL, 0), 40u);
}

TEST(AgpmBuf, SetConflictGoesToReservationBufferAndRefills)
{
    Buf q({4, 2, 128, 5, 5, 8});               // 2 sets: blocks 0 and 2 collide in set 0
    const uint64_t A = 0 * 128, C = 2 * 128;
    ASSERT_EQ(agpm_buf_log_write(q.b, A, 4, AGPM_PATH_NT, AGPM_PATH_NT), 0);
    EXPECT_EQ(agpm_buf_access(q.b, A, 4), 1);  // A's all way: bytes 0..3 at 2, block counter 1
    ASSERT_EQ(agpm_buf_log_write(q.b, C, 4, AGPM_PATH_NT, AGPM_PATH_NT), 0);
    EXPECT_EQ(agpm_buf_get_stats(q.b)->conflicts, 2u);
    EXPECT_EQ(agpm_buf_resv_count(q.b), 2u);
    EXPECT_TRUE(agpm_buf_reserved(q.b, AGPM_WAY_LOG, A));
    EXPECT_TRUE(agpm_buf_reserved(q.b, AGPM_WAY_ALL, A));
    EXPECT_EQ(agpm_buf_entry(q.b, AGPM_WAY_ALL, A, nullptr, nullptr), 0);
    agpm_vars v = vars(q.b, 1), r = vars(q.b, 0);
    EXPECT_EQ(v.t_all, 8u);                    // A's statistics still count from the reservation
    EXPECT_EQ(r.t_all, 0u);                    // ... but not among the resident entries
    // The block comes back: refilled (a hit, not a miss), C displaced into the reservation buffer.
    EXPECT_EQ(agpm_buf_access(q.b, A, 4), 1);
    EXPECT_EQ(byte(q.b, AGPM_WAY_ALL, A), 3);
    EXPECT_EQ(blk(q.b, AGPM_WAY_ALL, A), 2u);
    EXPECT_EQ(byte(q.b, AGPM_WAY_LOG, A), 1);  // the log entry came back too, uncounted
    EXPECT_TRUE(agpm_buf_reserved(q.b, AGPM_WAY_ALL, C));
    EXPECT_FALSE(agpm_buf_reserved(q.b, AGPM_WAY_ALL, A));
    EXPECT_EQ(agpm_buf_resv_count(q.b), 2u);
    EXPECT_EQ(agpm_buf_get_stats(q.b)->refills, 2u);
}

TEST(AgpmBuf, FullReservationBufferDropsOldest)
{
    Buf q({2, 2, 128, 5, 5, 2});               // one set; reservation for 2 entries (one block)
    for (uint64_t k = 0; k < 3; k++) ASSERT_EQ(agpm_buf_log_write(q.b, k * 128, 1, AGPM_PATH_NT, AGPM_PATH_NT), 0);
    // block 0 was reserved, then displaced by block 1's entries
    EXPECT_EQ(agpm_buf_resv_count(q.b), 2u);
    EXPECT_EQ(agpm_buf_get_stats(q.b)->resv_dropped, 2u);
    EXPECT_FALSE(agpm_buf_reserved(q.b, AGPM_WAY_LOG, 0));
    EXPECT_TRUE(agpm_buf_reserved(q.b, AGPM_WAY_LOG, 128));
    EXPECT_EQ(agpm_buf_access(q.b, 0, 1), 0);  // block 0's statistics are gone
    Buf z({2, 2, 128, 5, 5, 0});               // no reservation buffer: a conflict drops
    agpm_buf_log_write(z.b, 0, 1, AGPM_PATH_NT, AGPM_PATH_NT);
    agpm_buf_log_write(z.b, 128, 1, AGPM_PATH_NT, AGPM_PATH_NT);
    EXPECT_EQ(agpm_buf_resv_count(z.b), 0u);
    EXPECT_EQ(agpm_buf_get_stats(z.b)->resv_dropped, 2u);
}

TEST(AgpmBuf, WritebackReservesAndResetFlushesBoth)
{
    Buf q(paper());
    ASSERT_EQ(agpm_buf_log_write(q.b, 0x80, 2, AGPM_PATH_T, AGPM_PATH_T), 0);
    agpm_buf_access(q.b, 0x80, 2);
    EXPECT_EQ(agpm_buf_writeback(q.b, 0x80), 2);
    EXPECT_EQ(agpm_buf_writeback(q.b, 0x80), 0);
    EXPECT_EQ(agpm_buf_valid_count(q.b, AGPM_WAY_ALL), 0u);
    EXPECT_EQ(agpm_buf_resv_count(q.b), 2u);
    EXPECT_EQ(vars(q.b).t_all, 4u);
    // fetched again by a log update: refilled, counted as a hit in both ways
    ASSERT_EQ(agpm_buf_log_write(q.b, 0x80, 1, AGPM_PATH_T, AGPM_PATH_T), 0);
    EXPECT_EQ(byte(q.b, AGPM_WAY_LOG, 0x80), 2);
    EXPECT_EQ(byte(q.b, AGPM_WAY_ALL, 0x80), 3);
    EXPECT_EQ(agpm_buf_resv_count(q.b), 0u);
    agpm_buf_log_write(q.b, 0x100, 1, AGPM_PATH_T, AGPM_PATH_T);
    agpm_buf_writeback(q.b, 0x100);
    agpm_buf_reset(q.b);                       // period end
    EXPECT_EQ(agpm_buf_resv_count(q.b), 0u);
    EXPECT_EQ(agpm_buf_valid_count(q.b, AGPM_WAY_LOG), 0u);
    EXPECT_EQ(agpm_buf_access(q.b, 0x80, 1), 0);
    EXPECT_EQ(agpm_buf_access(q.b, 0x100, 1), 0);
    agpm_vars v = vars(q.b);
    EXPECT_EQ(v.s_all + v.s_log, 0u);
}

// IV-B's path-change mark, including the NT -> T write-back: the program coded the log store
// for one path, the selector sent it over the other.
TEST(AgpmBuf, PathChangeMark)
{
    Buf q(paper());
    const uint64_t B = 0x2000;
    agpm_buf_log_write(q.b, B, 8, AGPM_PATH_NT, AGPM_PATH_NT);     // not redirected
    EXPECT_EQ(agpm_buf_mark(q.b, B), AGPM_MARK_NONE);
    EXPECT_EQ(agpm_buf_last_path(q.b, B), AGPM_PATH_NT);
    agpm_buf_log_write(q.b, B + 8, 8, AGPM_PATH_NT, AGPM_PATH_T);  // NT -> T: add a write-back
    EXPECT_EQ(agpm_buf_mark(q.b, B), AGPM_MARK_NT_TO_T);
    EXPECT_EQ(agpm_buf_last_path(q.b, B), AGPM_PATH_T);
    agpm_buf_access(q.b, B, 8);                                    // data updates leave it
    EXPECT_EQ(agpm_buf_mark(q.b, B), AGPM_MARK_NT_TO_T);
    agpm_buf_clear_mark(q.b, B);                                   // the wrapper added it
    EXPECT_EQ(agpm_buf_mark(q.b, B), AGPM_MARK_NONE);
    agpm_buf_log_write(q.b, B, 8, AGPM_PATH_T, AGPM_PATH_NT);      // T -> NT: drop the clwb
    EXPECT_EQ(agpm_buf_mark(q.b, B), AGPM_MARK_T_TO_NT);
    agpm_buf_log_write(q.b, B, 8, AGPM_PATH_T, AGPM_PATH_T);       // a later store as coded:
    EXPECT_EQ(agpm_buf_mark(q.b, B), AGPM_MARK_NONE);              // its clwb is needed again
    // the mark travels with the entry through the reservation buffer
    agpm_buf_log_write(q.b, B, 8, AGPM_PATH_NT, AGPM_PATH_T);
    agpm_buf_writeback(q.b, B);
    EXPECT_EQ(agpm_buf_mark(q.b, B), AGPM_MARK_NONE);              // not resident
    agpm_buf_access(q.b, B, 1);                                    // refilled
    EXPECT_EQ(agpm_buf_mark(q.b, B), AGPM_MARK_NT_TO_T);
    // "successive updates differ" reading: coded = the block's last path
    agpm_buf_clear_mark(q.b, B);
    agpm_buf_log_write(q.b, B, 8, agpm_buf_last_path(q.b, B), AGPM_PATH_NT);
    EXPECT_EQ(agpm_buf_mark(q.b, B), AGPM_MARK_T_TO_NT);
    // unknown paths leave mark and path alone; absent blocks have none
    agpm_buf_log_write(q.b, B, 8, AGPM_PATH_NONE, AGPM_PATH_NONE);
    EXPECT_EQ(agpm_buf_mark(q.b, B), AGPM_MARK_T_TO_NT);
    EXPECT_EQ(agpm_buf_last_path(q.b, B), AGPM_PATH_NT);
    EXPECT_EQ(agpm_buf_mark(q.b, 0x9000), AGPM_MARK_NONE);
    EXPECT_EQ(agpm_buf_log_write(q.b, B, 8, AGPM_PATH_NT, (agpm_path)3), -1);
    EXPECT_EQ(agpm_buf_log_write(q.b, B, 8, (agpm_path)3, AGPM_PATH_NT), -1);
}

// IV-B: an entry follows its block to the lower-level (L2) buffer.
TEST(AgpmBuf, TakeAndMergeIntoLowerLevel)
{
    Buf l1(paper()), l2(paper());
    const uint64_t B = 0x3000;
    agpm_buf_log_write(l1.b, B, 4, AGPM_PATH_NT, AGPM_PATH_NT);
    agpm_buf_access(l1.b, B, 4);
    agpm_buf_log_write(l1.b, B, 4, AGPM_PATH_T, AGPM_PATH_T);
    agpm_buf_log_write(l2.b, B, 2, AGPM_PATH_NONE, AGPM_PATH_NONE);
    agpm_buf_access(l2.b, B, 2);
    agpm_rec rec;
    EXPECT_EQ(agpm_buf_take(l1.b, B, &rec), 2);
    EXPECT_EQ(agpm_buf_valid_count(l1.b, AGPM_WAY_ALL), 0u);
    EXPECT_EQ(agpm_buf_take(l1.b, B, &rec), 0);        // gone from the L1 buffer
    EXPECT_EQ(rec.has[0] + rec.has[1], 0);
    Buf l1b(paper());                                  // the same history again, into rec
    agpm_buf_log_write(l1b.b, B, 4, AGPM_PATH_NT, AGPM_PATH_NT);
    agpm_buf_access(l1b.b, B, 4);
    agpm_buf_log_write(l1b.b, B, 4, AGPM_PATH_NT, AGPM_PATH_T);
    ASSERT_EQ(agpm_buf_take(l1b.b, B, &rec), 2);
    EXPECT_EQ(rec.mark, AGPM_MARK_NT_TO_T);
    agpm_buf_merge(l2.b, &rec);
    // all way: l1 bytes 0..3 at 3 (blk 2) + l2 bytes 0..1 at 2, 2..3 at 0 (blk 1)
    EXPECT_EQ(byte(l2.b, AGPM_WAY_ALL, B + 0), 5);
    EXPECT_EQ(byte(l2.b, AGPM_WAY_ALL, B + 3), 3);
    EXPECT_EQ(blk(l2.b, AGPM_WAY_ALL, B), 3u);
    EXPECT_EQ(byte(l2.b, AGPM_WAY_LOG, B + 0), 3);     // 2 + 1
    EXPECT_EQ(agpm_buf_mark(l2.b, B), AGPM_MARK_NT_TO_T);
    EXPECT_EQ(agpm_buf_last_path(l2.b, B), AGPM_PATH_T);
    // merging saturates
    for (int i = 0; i < 10; i++) agpm_buf_merge(l2.b, &rec);
    EXPECT_EQ(byte(l2.b, AGPM_WAY_ALL, B + 0), 31);
    EXPECT_EQ(blk(l2.b, AGPM_WAY_ALL, B), 23u);
    // a reserved entry can be taken too
    Buf r(paper());
    agpm_buf_log_write(r.b, B, 1, AGPM_PATH_NT, AGPM_PATH_NT);
    agpm_buf_writeback(r.b, B);
    EXPECT_EQ(agpm_buf_take(r.b, B, &rec), 2);
    EXPECT_EQ(agpm_buf_resv_count(r.b), 0u);
}

TEST(AgpmBuf, FourWaysUseLruWithinEachHalf)
{
    Buf q({8, 4, 128, 5, 5, 8});               // 2 sets, 2 log + 2 all ways each
    const uint64_t A = 0, C = 256, D = 512;    // all in set 0
    agpm_buf_log_write(q.b, A, 1, AGPM_PATH_NT, AGPM_PATH_NT);
    agpm_buf_log_write(q.b, C, 1, AGPM_PATH_NT, AGPM_PATH_NT);
    EXPECT_EQ(agpm_buf_get_stats(q.b)->conflicts, 0u);
    agpm_buf_access(q.b, A, 1);                // A is more recent than C in the all half only
    agpm_buf_log_write(q.b, D, 1, AGPM_PATH_NT, AGPM_PATH_NT);
    EXPECT_TRUE(agpm_buf_reserved(q.b, AGPM_WAY_LOG, A));   // log half: A was LRU
    EXPECT_TRUE(agpm_buf_reserved(q.b, AGPM_WAY_ALL, C));   // all half: C was LRU
    EXPECT_EQ(agpm_buf_valid_count(q.b, AGPM_WAY_ALL), 2u);
}

}  // namespace

// The log update's read of the data it copies (`ld log`, docs/models/agpm.md) is recorded with no
// path (coded and selected NONE): it allocates the data block in both ways, sets no path-change
// mark, and the data store that follows re-hits its bytes in the all way (temporal locality of
// all accesses, none of the log updates).
TEST(AgpmBuf, LogReadOfTheDataBlockThenTheDataStore)
{
    Buf q(paper());
    const uint64_t data = 0x5000;
    ASSERT_EQ(agpm_buf_log_write(q.b, data, 128, AGPM_PATH_NONE, AGPM_PATH_NONE), 0);
    EXPECT_EQ(agpm_buf_mark(q.b, data), AGPM_MARK_NONE);
    EXPECT_EQ(agpm_buf_last_path(q.b, data), AGPM_PATH_NONE);
    EXPECT_EQ(agpm_buf_access(q.b, data, 128), 1);   // the data store
    agpm_vars v = vars(q.b);
    EXPECT_EQ(v.t_all, 2u * 128);
    EXPECT_EQ(v.s_all, 2u * 128 + 1);
    EXPECT_EQ(v.t_log, 0u);
    EXPECT_EQ(v.s_log, 0u);
}

// The reservation buffer against a reference model of its policy (the buffer indexes its
// reservation entries; the behaviour is that of a scan: a block's entry is found, a full buffer
// drops its oldest entry). 2 ways (one log and one all way per set), small sets and a small
// reservation buffer so that conflicts, refills and drops are frequent; random log writes,
// accesses, write-backs, takes and resets; after every step the reserved set, the counts and
// the statistics agree.
TEST(AgpmBuf, ReservationBufferMatchesReferenceModel)
{
    for (uint32_t resv : {1u, 3u, 8u, 64u, 100u}) {
        const uint32_t entries = 16, sets = entries / 2;
        Buf x({entries, 2, 128, 5, 5, resv});
        std::map<uint64_t, uint64_t> resident[2];   // set -> block
        std::deque<std::pair<int, uint64_t>> rq;     // reserved (class, block), oldest first
        uint64_t conflicts = 0, refills = 0, dropped = 0;
        auto put = [&](int cls, uint64_t block) {
            if (rq.size() == resv) { rq.pop_front(); ++dropped; }
            rq.emplace_back(cls, block);
        };
        auto reserved = [&](int cls, uint64_t block) {
            return std::find(rq.begin(), rq.end(), std::make_pair(cls, block)) != rq.end();
        };
        auto unreserve = [&](int cls, uint64_t block) {
            rq.erase(std::find(rq.begin(), rq.end(), std::make_pair(cls, block)));
        };
        auto install = [&](int cls, uint64_t block) {
            auto it = resident[cls].find(block % sets);
            if (it != resident[cls].end()) { ++conflicts; put(cls, it->second); }
            resident[cls][block % sets] = block;
        };
        auto is_res = [&](int cls, uint64_t block) {
            auto it = resident[cls].find(block % sets);
            return it != resident[cls].end() && it->second == block;
        };
        // get(): resident, else refilled from the reservation buffer, else (alloc) fresh
        auto get = [&](int cls, uint64_t block, bool alloc) {
            if (is_res(cls, block)) return true;
            if (reserved(cls, block)) { unreserve(cls, block); install(cls, block); ++refills; return true; }
            if (!alloc) return false;
            install(cls, block);
            return true;
        };
        std::mt19937_64 rng(resv * 977u);
        for (int step = 0; step < 6000; step++) {
            const uint64_t block = rng() % 40;
            const uint64_t a = block * 128 + rng() % 120;
            switch (rng() % 10) {
            case 0: case 1: case 2: case 3:
                ASSERT_EQ(agpm_buf_log_write(x.b, a, 4, AGPM_PATH_T, AGPM_PATH_T), 0);
                get(AGPM_WAY_LOG, block, true);
                get(AGPM_WAY_ALL, block, true);
                break;
            case 4: case 5: case 6: {
                int want = get(AGPM_WAY_ALL, block, false) ? 1 : 0;
                if (want && !is_res(AGPM_WAY_LOG, block)) get(AGPM_WAY_LOG, block, false);
                ASSERT_EQ(agpm_buf_access(x.b, a, 4), want) << step;
                break;
            }
            case 7: case 8: {
                int n = 0;
                for (int cls = 0; cls < 2; cls++)
                    if (is_res(cls, block)) { put(cls, block); resident[cls].erase(block % sets); n++; }
                ASSERT_EQ(agpm_buf_writeback(x.b, a), n) << step;
                break;
            }
            default:
                if (rng() % 8 == 0) {
                    agpm_buf_reset(x.b);
                    resident[0].clear();
                    resident[1].clear();
                    rq.clear();
                } else {
                    int n = 0;
                    for (int cls = 0; cls < 2; cls++) {
                        if (is_res(cls, block)) { resident[cls].erase(block % sets); n++; }
                        else if (reserved(cls, block)) { unreserve(cls, block); n++; }
                    }
                    agpm_rec rec;
                    ASSERT_EQ(agpm_buf_take(x.b, a, &rec), n) << step;
                }
            }
            ASSERT_EQ(agpm_buf_resv_count(x.b), rq.size()) << "resv " << resv << " step " << step;
            for (uint64_t bl = 0; bl < 40; bl++)
                for (int cls = 0; cls < 2; cls++)
                    ASSERT_EQ(agpm_buf_reserved(x.b, (agpm_way)cls, bl * 128) != 0, reserved(cls, bl))
                        << "resv " << resv << " step " << step << " block " << bl << " class " << cls;
            const agpm_buf_stats *st = agpm_buf_get_stats(x.b);
            ASSERT_EQ(st->conflicts, conflicts);
            ASSERT_EQ(st->refills, refills);
            ASSERT_EQ(st->resv_dropped, dropped);
        }
    }
}
