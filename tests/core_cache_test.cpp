// Unit tests of cores/cache.c (set-associative tag/data array).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

extern "C" {
#include "cache.h"
}

namespace {

struct Cache {
    std::vector<uint64_t> mem;
    cache *c = nullptr;
    explicit Cache(uint64_t size, uint32_t line, uint32_t assoc, uint32_t tag_only = 0)
    {
        cache_cfg cfg{size, line, assoc, tag_only};
        size_t b = cache_bytes(&cfg);
        EXPECT_GT(b, 0u);
        mem.assign((b + 7) / 8, 0xDEADBEEFDEADBEEFull);   // garbage: init must clear it
        EXPECT_EQ(cache_init(mem.data(), &cfg), 0);
        c = reinterpret_cast<cache *>(mem.data());
    }
};

int init_rc(uint32_t size, uint32_t line, uint32_t assoc)
{
    cache_cfg cfg{size, line, assoc, 0};
    std::vector<uint64_t> mem(1 << 16);
    return cache_init(mem.data(), &cfg);
}

TEST(Cache, BadConfigsRejected)
{
    EXPECT_EQ(init_rc(4096, 64, 4), 0);
    EXPECT_EQ(init_rc(4096, 48, 4), -1);     // line not a power of two
    EXPECT_EQ(init_rc(4096, 256, 4), -1);    // line > 128
    EXPECT_EQ(init_rc(4096, 2, 4), -1);      // line < 4
    EXPECT_EQ(init_rc(4096, 0, 4), -1);
    EXPECT_EQ(init_rc(0, 64, 4), -1);        // zero size
    EXPECT_EQ(init_rc(100, 64, 1), -1);      // size not a multiple of line
    EXPECT_EQ(init_rc(384, 64, 4), -1);      // 6 lines, 4 ways
    EXPECT_EQ(init_rc(256, 64, 8), -1);      // more ways than lines
    EXPECT_EQ(init_rc(384, 64, 3), 0);       // 2 sets of 3 ways (sets need not be a power of two)
    cache_cfg bad{4096, 48, 4, 0};
    EXPECT_EQ(cache_bytes(&bad), 0u);
    cache_cfg good{4096, 64, 4, 0};
    EXPECT_EQ(cache_init(nullptr, &good), -1);
    std::vector<uint64_t> mem(cache_bytes(&good) / 8 + 2);
    EXPECT_EQ(cache_init(reinterpret_cast<char *>(mem.data()) + 4, &good), -1);  // misaligned
}

TEST(Cache, ConfigAndGeometry)
{
    Cache k(4096, 64, 4);
    EXPECT_EQ(cache_num_lines(k.c), 64u);
    EXPECT_EQ(cache_config(k.c)->assoc, 4u);
    EXPECT_EQ(cache_config(k.c)->line_bytes, 64u);
    for (int32_t i = 0; i < 64; i++) {
        EXPECT_EQ(cache_line_at(k.c, i)->present, 0);
        EXPECT_EQ(cache_line_at(k.c, i)->pb_index, CACHE_NO_PB);
    }
    EXPECT_EQ(cache_line_at(k.c, 64), nullptr);
    EXPECT_EQ(cache_line_at(k.c, -1), nullptr);
    EXPECT_EQ(cache_data(k.c, 1) - cache_data(k.c, 0), 64);
}

TEST(Cache, TwoWaySetHitMissAndLruVictimOrder)
{
    Cache k(4 * 64, 64, 2);           // 2 sets x 2 ways; set = line_addr % 2, set 0 = idx 0..1
    EXPECT_EQ(cache_lookup(k.c, 0), -1);
    EXPECT_EQ(cache_victim(k.c, 0), 0);
    cache_install(k.c, 0, 0, 0);
    EXPECT_EQ(cache_lookup(k.c, 0), 0);
    EXPECT_EQ(cache_victim(k.c, 2), 1);   // the free way
    cache_install(k.c, 1, 2, 0);
    EXPECT_EQ(cache_lookup(k.c, 2), 1);
    EXPECT_EQ(cache_lookup(k.c, 4), -1);
    EXPECT_EQ(cache_victim(k.c, 4), 0);   // line 0 is LRU
    cache_touch(k.c, 0);
    EXPECT_EQ(cache_victim(k.c, 4), 1);   // now line 2 is LRU
    EXPECT_EQ(cache_victim(k.c, 1), 2);   // set 1 is untouched: its first way
    EXPECT_EQ(cache_victim(k.c, 3), 2);
    cache_invalidate(k.c, 1);
    cache_install(k.c, 1, 4, 0);
    EXPECT_EQ(cache_lookup(k.c, 2), -1);
    EXPECT_EQ(cache_lookup(k.c, 4), 1);
    EXPECT_EQ(cache_lookup(k.c, 0), 0);
    EXPECT_EQ(cache_victim(k.c, 6), 0);   // 0 touched before 4 was installed
    EXPECT_LT(cache_line_at(k.c, 0)->lru, cache_line_at(k.c, 1)->lru);
    cache_invalidate(k.c, 1);
    EXPECT_EQ(cache_victim(k.c, 6), 1);   // free way beats LRU
    EXPECT_EQ(cache_line_at(k.c, 1)->present, 0);
}

TEST(Cache, VictimPrefersLowestFreeWay)
{
    Cache k(8 * 64, 64, 4);           // 2 sets x 4 ways, set 1 = idx 4..7
    cache_install(k.c, 4, 1, 0);
    cache_install(k.c, 6, 3, 0);
    EXPECT_EQ(cache_victim(k.c, 5), 5);
    cache_install(k.c, 5, 5, 0);
    EXPECT_EQ(cache_victim(k.c, 5), 7);
    cache_install(k.c, 7, 7, 0);
    EXPECT_EQ(cache_victim(k.c, 9), 4);   // install order 4,6,5,7
    cache_touch(k.c, 4);
    EXPECT_EQ(cache_victim(k.c, 9), 6);
}

TEST(Cache, VictimFiltered)
{
    Cache k(4 * 64, 64, 4);           // one set of 4 ways
    for (int32_t i = 0; i < 4; i++) cache_install(k.c, i, 100 + i, 1);
    auto skip_even = [](void *, uint32_t idx) -> int { return (idx % 2) == 0; };
    auto skip_all = [](void *, uint32_t) -> int { return 1; };
    auto skip_set = [](void *ctx, uint32_t idx) -> int {
        return (*static_cast<uint32_t *>(ctx) >> idx) & 1u;
    };
    EXPECT_EQ(cache_victim_filtered(k.c, 7, nullptr, nullptr), 0);
    EXPECT_EQ(cache_victim_filtered(k.c, 7, skip_even, nullptr), 1);
    EXPECT_EQ(cache_victim_filtered(k.c, 7, skip_all, nullptr), -1);
    uint32_t pinned = 0x3;  // idx 0 and 1
    EXPECT_EQ(cache_victim_filtered(k.c, 7, skip_set, &pinned), 2);
    cache_invalidate(k.c, 1);
    cache_invalidate(k.c, 3);
    EXPECT_EQ(cache_victim_filtered(k.c, 7, skip_set, &pinned), 3);   // free, not pinned
    pinned = 0xB;           // 0, 1, 3 pinned: the only unpinned way is present idx 2
    EXPECT_EQ(cache_victim_filtered(k.c, 7, skip_set, &pinned), 2);
}

TEST(Cache, FullyAssociative512Lines)
{
    Cache k(512 * 64, 64, 0);
    ASSERT_EQ(cache_num_lines(k.c), 512u);
    auto addr = [](uint32_t i) { return uint64_t(i) * 7919u + 13u + (uint64_t(i & 3) << 40); };
    for (uint32_t i = 0; i < 512; i++) {
        ASSERT_EQ(cache_victim(k.c, addr(i)), int32_t(i));
        cache_install(k.c, int32_t(i), addr(i), 0);
    }
    for (uint32_t i = 0; i < 512; i++) EXPECT_EQ(cache_lookup(k.c, addr(i)), int32_t(i));
    EXPECT_EQ(cache_lookup(k.c, addr(512)), -1);
    EXPECT_EQ(cache_lookup(k.c, 14), -1);
    EXPECT_EQ(cache_victim(k.c, addr(600)), 0);
    cache_touch(k.c, 0);
    cache_touch(k.c, 1);
    EXPECT_EQ(cache_victim(k.c, addr(600)), 2);
    cache_invalidate(k.c, 300);
    EXPECT_EQ(cache_lookup(k.c, addr(300)), -1);
    EXPECT_EQ(cache_victim(k.c, addr(600)), 300);
    // Drop every third line and check the rest are still found (hash deletions).
    for (uint32_t i = 0; i < 512; i += 3) cache_invalidate(k.c, int32_t(i));
    for (uint32_t i = 0; i < 512; i++) {
        int32_t want = (i % 3 == 0 || i == 300) ? -1 : int32_t(i);
        EXPECT_EQ(cache_lookup(k.c, addr(i)), want) << i;
    }
    // Re-install them under new addresses.
    for (uint32_t i = 0; i < 512; i += 3) cache_install(k.c, int32_t(i), addr(1000 + i), 0);
    for (uint32_t i = 0; i < 512; i += 3) EXPECT_EQ(cache_lookup(k.c, addr(1000 + i)), int32_t(i));
    EXPECT_EQ(cache_victim(k.c, 1), 2);   // oldest untouched survivor (0, 1 touched; 3k re-installed)
}

// Reference model: naive scan as specified (free way with the lowest index, else least lru stamp).
TEST(Cache, RandomOpsMatchReferenceModel)
{
    const uint32_t ways = 4, sets = 8, n = ways * sets;
    Cache k(n * 32, 32, ways);
    struct Ref { bool present = false; uint64_t tag = 0, lru = 0; };
    std::vector<Ref> ref(n);
    uint64_t clock = 0;
    std::mt19937_64 rng(12345);
    for (int step = 0; step < 20000; step++) {
        uint64_t a = rng() % 96;
        uint32_t set = uint32_t(a % sets);
        int32_t want = -1;
        for (uint32_t w = 0; w < ways; w++)
            if (ref[set * ways + w].present && ref[set * ways + w].tag == a) want = int32_t(set * ways + w);
        ASSERT_EQ(cache_lookup(k.c, a), want) << step;
        if (want >= 0) {
            if (rng() % 5 == 0) { cache_invalidate(k.c, want); ref[want].present = false; }
            else { cache_touch(k.c, want); ref[want].lru = ++clock; }
            continue;
        }
        int32_t v = -1;
        for (uint32_t w = 0; w < ways && v < 0; w++)
            if (!ref[set * ways + w].present) v = int32_t(set * ways + w);
        if (v < 0) {
            v = int32_t(set * ways);
            for (uint32_t w = 1; w < ways; w++)
                if (ref[set * ways + w].lru < ref[v].lru) v = int32_t(set * ways + w);
        }
        ASSERT_EQ(cache_victim(k.c, a), v) << step;
        cache_invalidate(k.c, v);
        cache_install(k.c, v, a, 0);
        ref[v] = Ref{true, a, ++clock};
    }
}

TEST(Cache, MaskHelpers)
{
    uint64_t m[2] = {123, 456};
    cache_mask_range(m, 60, 8);
    EXPECT_EQ(m[0], 0xF000000000000000ull);
    EXPECT_EQ(m[1], 0xFull);
    EXPECT_EQ(cache_mask_popcount(m), 8u);
    cache_mask_range(m, 0, 128);
    EXPECT_EQ(m[0], ~0ull);
    EXPECT_EQ(m[1], ~0ull);
    EXPECT_EQ(cache_mask_popcount(m), 128u);
    cache_mask_range(m, 64, 64);
    EXPECT_EQ(m[0], 0u);
    EXPECT_EQ(m[1], ~0ull);
    cache_mask_range(m, 120, 16);     // clamped to the 128-byte line
    EXPECT_EQ(m[0], 0u);
    EXPECT_EQ(m[1], 0xFF00000000000000ull);
    cache_mask_range(m, 3, 0);
    EXPECT_EQ(m[0], 0u);
    EXPECT_EQ(m[1], 0u);
}

TEST(Cache, PartialWriteThenFillKeepsDirtyBytes)
{
    Cache k(4 * 128, 128, 0);
    cache_install(k.c, 2, 77, 1);
    const cache_line *l = cache_line_at_const(k.c, 2);
    EXPECT_EQ(l->valid[0] | l->valid[1], 0u);
    EXPECT_FALSE(cache_range_valid(k.c, 2, 0, 1));
    const uint8_t w[4] = {1, 2, 3, 4};
    cache_write(k.c, 2, 8, w, 4);
    EXPECT_EQ(l->valid[0], 0xF00ull);
    EXPECT_EQ(l->dirty[0], 0xF00ull);
    EXPECT_EQ(l->dirty[1], 0u);
    EXPECT_TRUE(cache_range_valid(k.c, 2, 8, 4));
    EXPECT_FALSE(cache_range_valid(k.c, 2, 8, 5));
    EXPECT_FALSE(cache_range_valid(k.c, 2, 7, 2));
    EXPECT_TRUE(cache_is_dirty(k.c, 2));
    const uint8_t w2[2] = {9, 9};
    cache_write(k.c, 2, 126, w2, 2);   // top of the second mask word
    EXPECT_EQ(l->dirty[1], 0xC000000000000000ull);

    std::vector<uint8_t> fill(128, 0xAA);
    cache_fill(k.c, 2, fill.data());
    const uint8_t *d = cache_data_const(k.c, 2);
    EXPECT_EQ(d[7], 0xAA);
    EXPECT_EQ(d[8], 1);
    EXPECT_EQ(d[11], 4);
    EXPECT_EQ(d[12], 0xAA);
    EXPECT_EQ(d[125], 0xAA);
    EXPECT_EQ(d[126], 9);
    EXPECT_EQ(d[127], 9);
    EXPECT_EQ(l->valid[0], ~0ull);
    EXPECT_EQ(l->valid[1], ~0ull);
    EXPECT_EQ(l->dirty[0], 0xF00ull);               // fill does not change dirtiness
    EXPECT_EQ(l->dirty[1], 0xC000000000000000ull);
    EXPECT_TRUE(cache_range_valid(k.c, 2, 0, 128));
    EXPECT_FALSE(cache_range_valid(k.c, 2, 100, 29));   // beyond the line
    cache_clean(k.c, 2);
    EXPECT_FALSE(cache_is_dirty(k.c, 2));
    EXPECT_EQ(l->valid[0], ~0ull);                  // clean keeps data valid
    std::vector<uint8_t> fill2(128, 0x55);
    cache_fill(k.c, 2, fill2.data());               // no dirty bytes: all replaced
    EXPECT_EQ(d[8], 0x55);
    EXPECT_EQ(d[127], 0x55);
}

// A fill copies exactly the bytes whose dirty bit is clear (the fill copies runs of clean bytes a
// mask word at a time): random dirty masks, lines of 32, 64 and 128 bytes, against a byte-by-byte
// reference.
TEST(Cache, FillReplacesExactlyTheCleanBytes)
{
    std::mt19937_64 rng(7);
    for (uint32_t line : {32u, 64u, 128u}) {
        Cache k(4 * line, line, 0);
        for (int round = 0; round < 300; round++) {
            cache_install(k.c, 1, 100 + round, 0);
            std::vector<uint8_t> old(line), fill(line), want(line);
            for (auto &b : old) b = uint8_t(rng());
            for (auto &b : fill) b = uint8_t(rng());
            // dirty bytes: a few random runs (some crossing byte 64), or none, or all
            std::vector<bool> dirty(line, false);
            const int shape = round % 5;
            if (shape == 3) dirty.assign(line, true);
            for (int r = 0; shape < 3 && r < 1 + shape * 2; r++) {
                uint32_t a = uint32_t(rng() % line), n = 1 + uint32_t(rng() % 40);
                for (uint32_t i = a; i < std::min(line, a + n); i++) dirty[i] = true;
            }
            for (uint32_t i = 0; i < line;) {        // write the dirty runs
                if (!dirty[i]) { i++; continue; }
                uint32_t j = i;
                while (j < line && dirty[j]) j++;
                cache_write(k.c, 1, i, old.data() + i, j - i);
                i = j;
            }
            cache_fill(k.c, 1, fill.data());
            for (uint32_t i = 0; i < line; i++) want[i] = dirty[i] ? old[i] : fill[i];
            const uint8_t *d = cache_data_const(k.c, 1);
            ASSERT_EQ(std::vector<uint8_t>(d, d + line), want) << "line " << line << " round " << round;
            EXPECT_TRUE(cache_range_valid(k.c, 1, 0, line));
            cache_invalidate(k.c, 1);
        }
    }
}

TEST(Cache, InstallResetsLineState)
{
    Cache k(4 * 64, 64, 0);
    cache_install(k.c, 1, 5, 1);
    cache_line *l = cache_line_at(k.c, 1);
    l->pb_index = 7;
    l->ready_ps = 1234;
    const uint8_t w[1] = {0x42};
    cache_write(k.c, 1, 0, w, 1);
    uint64_t lru0 = l->lru;
    cache_invalidate(k.c, 1);
    EXPECT_EQ(l->present, 0);
    EXPECT_EQ(l->pb_index, CACHE_NO_PB);
    EXPECT_EQ(l->valid[0], 0u);
    EXPECT_EQ(cache_data(k.c, 1)[0], 0);
    cache_install(k.c, 1, 6, 0);
    EXPECT_EQ(l->present, 1);
    EXPECT_EQ(l->tag, 6u);
    EXPECT_EQ(l->pm, 0);
    EXPECT_EQ(l->pb_index, CACHE_NO_PB);
    EXPECT_EQ(l->dirty[0] | l->dirty[1] | l->valid[0] | l->valid[1], 0u);
    EXPECT_GT(l->lru, lru0);
    EXPECT_EQ(cache_lookup(k.c, 5), -1);
    EXPECT_EQ(cache_lookup(k.c, 6), 1);
}

TEST(Cache, DirtyCountersAndCollect)
{
    Cache k(8 * 64, 64, 0);
    const uint8_t b[1] = {1};
    cache_install(k.c, 5, 50, 1);
    cache_install(k.c, 1, 10, 1);
    cache_install(k.c, 3, 30, 0);
    cache_install(k.c, 6, 60, 0);
    EXPECT_EQ(cache_count_dirty(k.c, -1), 0u);
    cache_write(k.c, 5, 0, b, 1);
    cache_write(k.c, 1, 3, b, 1);
    cache_write(k.c, 3, 63, b, 1);
    cache_write(k.c, 1, 4, b, 1);            // already dirty: no double count
    EXPECT_EQ(cache_count_dirty(k.c, 1), 2u);
    EXPECT_EQ(cache_count_dirty(k.c, 0), 1u);
    EXPECT_EQ(cache_count_dirty(k.c, -1), 3u);

    int32_t out[8] = {-9, -9, -9, -9, -9, -9, -9, -9};
    ASSERT_EQ(cache_collect_dirty(k.c, -1, out, 8), 3u);
    EXPECT_EQ(out[0], 1);
    EXPECT_EQ(out[1], 3);
    EXPECT_EQ(out[2], 5);
    ASSERT_EQ(cache_collect_dirty(k.c, 1, out, 8), 2u);
    EXPECT_EQ(out[0], 1);
    EXPECT_EQ(out[1], 5);
    ASSERT_EQ(cache_collect_dirty(k.c, 0, out, 8), 1u);
    EXPECT_EQ(out[0], 3);
    out[1] = -9;
    ASSERT_EQ(cache_collect_dirty(k.c, -1, out, 1), 1u);   // truncated at max
    EXPECT_EQ(out[0], 1);
    EXPECT_EQ(out[1], -9);

    cache_clean(k.c, 1);
    EXPECT_EQ(cache_count_dirty(k.c, 1), 1u);
    EXPECT_EQ(cache_count_dirty(k.c, -1), 2u);
    cache_clean(k.c, 1);                     // cleaning a clean line changes nothing
    EXPECT_EQ(cache_count_dirty(k.c, -1), 2u);
    cache_invalidate(k.c, 3);
    EXPECT_EQ(cache_count_dirty(k.c, 0), 0u);
    EXPECT_EQ(cache_count_dirty(k.c, -1), 1u);
    cache_install(k.c, 5, 51, 0);            // re-install over a dirty PM line
    EXPECT_EQ(cache_count_dirty(k.c, 1), 0u);
    EXPECT_EQ(cache_count_dirty(k.c, -1), 0u);
    cache_fill(k.c, 6, std::vector<uint8_t>(64, 3).data());  // fill does not dirty
    EXPECT_EQ(cache_count_dirty(k.c, -1), 0u);
    EXPECT_EQ(cache_collect_dirty(k.c, -1, out, 8), 0u);
}

// ---- 64-bit sizes and tag-only mode ----

size_t bytes_of(uint64_t size, uint32_t line, uint32_t assoc, uint32_t tag_only)
{
    cache_cfg cfg{size, line, assoc, tag_only};
    return cache_bytes(&cfg);
}

TEST(Cache, SixtyFourBitSizes)
{
    // full mode: at most 2^30 lines (its hash has 2 slots per line, int32 indices)
    EXPECT_GT(bytes_of(1ull << 32, 4, 1, 0), 0u);             // 4 GiB of 4 B lines = 2^30 lines
    EXPECT_EQ(bytes_of((1ull << 32) + 4, 4, 1, 0), 0u);       // one line more
    EXPECT_EQ(bytes_of(1ull << 40, 64, 1, 0), 0u);            // 2^34 lines
    EXPECT_GT(bytes_of((1ull << 32) + 64, 64, 1, 0), 0u);     // size above 2^32, 2^26 + 1 lines
    // tag-only: below 2^31 lines
    EXPECT_GT(bytes_of(0x7FFFFFFFull * 4, 4, 1, 1), 0u);
    EXPECT_EQ(bytes_of(1ull << 33, 4, 1, 1), 0u);             // 2^31 lines
    EXPECT_EQ(bytes_of(1ull << 40, 64, 1, 1), 0u);
    EXPECT_GT(bytes_of(64ull << 30, 64, 8, 1), 0u);           // 64 GiB, 8 ways: 2^30 lines
    // tag-only: 1..256 ways, tag_only is 0 or 1
    EXPECT_GT(bytes_of(256 * 64, 64, 0, 1), 0u);              // fully associative, 256 lines
    EXPECT_EQ(bytes_of(512 * 64, 64, 0, 1), 0u);
    EXPECT_EQ(bytes_of(512 * 64, 64, 512, 1), 0u);
    EXPECT_EQ(bytes_of(4096, 64, 4, 2), 0u);
    // the existing rules hold with 64-bit sizes
    EXPECT_EQ(bytes_of((1ull << 32) + 32, 64, 1, 1), 0u);     // not a multiple of the line
}

TEST(Cache, TagOnlyGigabyteDirectMapped)
{
    const uint64_t size = 1ull << 30;
    const size_t b = bytes_of(size, 64, 1, 1);
    EXPECT_GT(b, 0u);
    EXPECT_LE(b, 256ull << 20);                               // <= 16 B per line (16 Mi lines)
    EXPECT_LE(b, (size / 64) * 10);                           // in fact ~9.1 B per line
    Cache k(size, 64, 1, 1);
    ASSERT_EQ(cache_num_lines(k.c), 1u << 24);
    EXPECT_TRUE(cache_tag_only(k.c));
    const uint64_t a = 0x123456, alias = a + (size / 64);    // same set, 1 GiB apart
    EXPECT_EQ(cache_lookup(k.c, a), -1);
    int32_t v = cache_victim(k.c, a);
    EXPECT_EQ(v, int32_t(a % (1u << 24)));
    cache_install(k.c, v, a, 1);
    EXPECT_EQ(cache_line_at(k.c, v), nullptr);                // no cache_line records
    EXPECT_EQ(cache_data(k.c, v), nullptr);                   // no data
    EXPECT_FALSE(cache_range_valid(k.c, v, 0, 64));
    cache_fill(k.c, v, nullptr);
    EXPECT_TRUE(cache_range_valid(k.c, v, 0, 64));
    cache_write(k.c, v, 8, nullptr, 8);
    EXPECT_TRUE(cache_line_dirty(k.c, v));
    EXPECT_TRUE(cache_line_pm(k.c, v));
    EXPECT_EQ(cache_line_tag(k.c, v), a);
    EXPECT_EQ(cache_count_dirty(k.c, 1), 1u);
    EXPECT_EQ(cache_lookup(k.c, a), v);
    EXPECT_EQ(cache_lookup(k.c, alias), -1);
    EXPECT_EQ(cache_victim(k.c, alias), v);                   // conflict: the dirty line goes
    cache_clean(k.c, v);
    cache_install(k.c, v, alias, 0);
    EXPECT_EQ(cache_lookup(k.c, a), -1);
    EXPECT_EQ(cache_line_tag(k.c, v), alias);
    EXPECT_FALSE(cache_line_dirty(k.c, v));
    EXPECT_EQ(cache_count_dirty(k.c, -1), 0u);
}

// cache_set_ways_lru: free ways first in index order, then present ways LRU -> MRU; out[0] is
// cache_victim's choice; max truncates. Both modes, 8-way and direct-mapped.
TEST(Cache, SetWaysLruOrder)
{
    for (uint32_t tag_only = 0; tag_only <= 1; tag_only++) {
        Cache k(2 * 8 * 64, 64, 8, tag_only);       // 2 sets of 8 ways; set s = line_addr % 2
        const uint64_t set1 = 1;                    // odd line addresses: ways 8..15
        int32_t out[16];
        ASSERT_EQ(cache_set_ways_lru(k.c, set1, out, 16), 8u);
        for (int i = 0; i < 8; i++) EXPECT_EQ(out[i], 8 + i);   // all free: index order
        // install ways 12, 9, 15, 8 (in this order), touch 9, invalidate 15
        cache_install(k.c, 12, 101, 1);
        cache_install(k.c, 9, 103, 1);
        cache_install(k.c, 15, 105, 1);
        cache_install(k.c, 8, 107, 1);
        cache_touch(k.c, 9);
        cache_invalidate(k.c, 15);
        ASSERT_EQ(cache_set_ways_lru(k.c, 7, out, 16), 8u);
        // free 10, 11, 13, 14, 15; then LRU -> MRU: 12, 8, 9
        EXPECT_EQ(std::vector<int32_t>(out, out + 8), (std::vector<int32_t>{10, 11, 13, 14, 15, 12, 8, 9}))
            << "tag_only " << tag_only;
        EXPECT_EQ(out[0], cache_victim(k.c, 7));
        // fill the set: no free ways, pure LRU order
        for (int32_t w : {10, 11, 13, 14, 15}) cache_install(k.c, w, 200 + 2 * (uint64_t)w + 1, 0);
        cache_touch(k.c, 12);
        ASSERT_EQ(cache_set_ways_lru(k.c, 3, out, 16), 8u);
        EXPECT_EQ(std::vector<int32_t>(out, out + 8), (std::vector<int32_t>{8, 9, 10, 11, 13, 14, 15, 12}))
            << "tag_only " << tag_only;
        EXPECT_EQ(out[0], cache_victim(k.c, 3));
        // truncation: only the 3 oldest
        int32_t three[3] = {-7, -7, -7};
        EXPECT_EQ(cache_set_ways_lru(k.c, 3, three, 3), 3u);
        EXPECT_EQ(std::vector<int32_t>(three, three + 3), (std::vector<int32_t>{8, 9, 10}));
        EXPECT_EQ(cache_set_ways_lru(k.c, 3, out, 0), 0u);
        EXPECT_EQ(cache_set_ways_lru(k.c, 3, nullptr, 4), 0u);
        // the other set is untouched (all free)
        ASSERT_EQ(cache_set_ways_lru(k.c, 0, out, 16), 8u);
        EXPECT_EQ(out[0], 0);
        EXPECT_EQ(out[7], 7);
    }
    for (uint32_t tag_only = 0; tag_only <= 1; tag_only++) {   // direct-mapped: one way
        Cache k(4 * 64, 64, 1, tag_only);
        int32_t out[2] = {-1, -1};
        EXPECT_EQ(cache_set_ways_lru(k.c, 6, out, 2), 1u);
        EXPECT_EQ(out[0], 2);
        cache_install(k.c, 2, 6, 0);
        EXPECT_EQ(cache_set_ways_lru(k.c, 10, out, 2), 1u);
        EXPECT_EQ(out[0], 2);
    }
}

// Tag-only and full mode driven by the same random sequence (accesses with write-allocate, victims
// with and without a skip filter, write-backs, invalidations, cleans): same hits, victims, tags,
// dirty and pm state, dirty counters and dirty-line lists.
struct Geo { uint64_t size; uint32_t line, assoc; };
class CacheTagOnly : public ::testing::TestWithParam<Geo> {};

int skip_some(void *ctx, uint32_t idx) { return ((idx * 2654435761u) >> 7) % 5 == *(uint32_t *)ctx; }

TEST_P(CacheTagOnly, MatchesFullModeOnRandomSequence)
{
    const Geo g = GetParam();
    Cache full(g.size, g.line, g.assoc, 0), tag(g.size, g.line, g.assoc, 1);
    const uint32_t n = cache_num_lines(full.c);
    ASSERT_EQ(cache_num_lines(tag.c), n);
    std::mt19937_64 rng(g.size * 31 + g.assoc);
    std::vector<uint8_t> data(g.line, 0x5A);
    std::vector<int32_t> la(n), lb(n);
    uint64_t hits = 0, victims_dirty = 0, skipped = 0;
    for (int step = 0; step < 200000; step++) {
        const uint32_t op = uint32_t(rng() % 100);
        if (op < 85) {                                        // access
            const uint64_t a = rng() % (4ull * n);
            const bool wr = rng() % 3 == 0;
            int32_t i = cache_lookup(full.c, a);
            ASSERT_EQ(cache_lookup(tag.c, a), i) << step;
            if (i >= 0) {
                ++hits;
                cache_touch(full.c, i);
                cache_touch(tag.c, i);
            } else {
                uint32_t sk = uint32_t(rng() % 8);           // 0..4: skip a fifth of the lines
                const bool filtered = rng() % 4 == 0;
                const int32_t v = filtered ? cache_victim_filtered(full.c, a, skip_some, &sk) : cache_victim(full.c, a);
                ASSERT_EQ(filtered ? cache_victim_filtered(tag.c, a, skip_some, &sk) : cache_victim(tag.c, a), v) << step;
                if (v < 0) {                                  // every way skipped
                    ++skipped;
                    continue;
                }
                ASSERT_EQ(cache_line_present(tag.c, v), cache_line_present(full.c, v)) << step;
                ASSERT_EQ(cache_line_tag(tag.c, v), cache_line_tag(full.c, v)) << step;
                ASSERT_EQ(cache_line_dirty(tag.c, v), cache_line_dirty(full.c, v)) << step;
                if (cache_line_dirty(full.c, v)) {
                    ++victims_dirty;
                    cache_clean(full.c, v);                   // write-back
                    cache_clean(tag.c, v);
                }
                const int pm = int(rng() & 1);
                cache_install(full.c, v, a, pm);
                cache_install(tag.c, v, a, pm);
                cache_fill(full.c, v, data.data());
                cache_fill(tag.c, v, nullptr);
                i = v;
            }
            if (wr) {
                const uint32_t off = uint32_t(rng() % g.line), len = 1 + uint32_t(rng() % (g.line - off));
                cache_write(full.c, i, off, data.data(), len);
                cache_write(tag.c, i, off, nullptr, len);
            }
            ASSERT_EQ(cache_range_valid(tag.c, i, 0, g.line), cache_range_valid(full.c, i, 0, g.line)) << step;
        } else if (op < 92) {                                 // invalidate a line
            const int32_t i = int32_t(rng() % n);
            cache_invalidate(full.c, i);
            cache_invalidate(tag.c, i);
        } else if (op < 98) {                                 // write back a line
            const int32_t i = int32_t(rng() % n);
            cache_clean(full.c, i);
            cache_clean(tag.c, i);
        } else {                                              // touch any line (present or not)
            const int32_t i = int32_t(rng() % n);
            cache_touch(full.c, i);
            cache_touch(tag.c, i);
        }
        for (int pm = -1; pm <= 1; pm++)
            ASSERT_EQ(cache_count_dirty(tag.c, pm), cache_count_dirty(full.c, pm)) << step;
        if (step % 997 == 0) {
            for (uint32_t i = 0; i < n; i++) {
                ASSERT_EQ(cache_line_present(tag.c, int32_t(i)), cache_line_present(full.c, int32_t(i)));
                ASSERT_EQ(cache_line_tag(tag.c, int32_t(i)), cache_line_tag(full.c, int32_t(i)));
                ASSERT_EQ(cache_line_dirty(tag.c, int32_t(i)), cache_line_dirty(full.c, int32_t(i)));
                if (cache_line_present(full.c, int32_t(i))) {
                    ASSERT_EQ(cache_line_pm(tag.c, int32_t(i)), cache_line_pm(full.c, int32_t(i)));
                }
            }
            {   // victim scan order: same in both modes, a permutation of the set, led by the victim
                const uint64_t a = rng() % (4ull * n);
                const uint32_t ka = cache_set_ways_lru(full.c, a, la.data(), n);
                const uint32_t kb = cache_set_ways_lru(tag.c, a, lb.data(), n);
                ASSERT_EQ(ka, kb);
                ASSERT_EQ(ka, g.assoc ? g.assoc : n);
                ASSERT_TRUE(std::equal(la.begin(), la.begin() + ka, lb.begin()));
                ASSERT_EQ(la[0], cache_victim(full.c, a));
                std::vector<int32_t> w(la.begin(), la.begin() + ka);
                std::sort(w.begin(), w.end());
                for (uint32_t i = 0; i < ka; i++) ASSERT_EQ(w[i], int32_t((a % (n / ka)) * ka + i));
            }
            for (int pm = -1; pm <= 1; pm++) {
                uint32_t ka = cache_collect_dirty(full.c, pm, la.data(), n);
                uint32_t kb = cache_collect_dirty(tag.c, pm, lb.data(), n);
                ASSERT_EQ(ka, kb);
                ASSERT_TRUE(std::equal(la.begin(), la.begin() + ka, lb.begin()));
            }
        }
    }
    EXPECT_GT(hits, 1000u);
    EXPECT_GT(victims_dirty, 1000u);
    EXPECT_LT(cache_bytes(cache_config(tag.c)), cache_bytes(cache_config(full.c)));
}

INSTANTIATE_TEST_SUITE_P(Geometries, CacheTagOnly,
                         ::testing::Values(Geo{4096, 64, 1}, Geo{4096, 64, 2}, Geo{8192, 64, 4},
                                           Geo{16384, 32, 8}, Geo{3 * 64 * 4, 64, 3}, Geo{16 * 64, 64, 0}));

// cache_init_zeroed on a zeroed block gives the block cache_init gives on garbage (both modes), and
// the cache then behaves the same; the DRAM cache's tags use it on calloc'd memory (zeroed once).
TEST(Cache, InitZeroedMatchesInit)
{
    for (uint32_t tag_only : {0u, 1u})
        for (uint32_t assoc : {1u, 4u, 16u}) {
            cache_cfg cfg{64 * 1024, 64, assoc, tag_only};
            const size_t b = cache_bytes(&cfg);
            ASSERT_GT(b, 0u);
            std::vector<uint64_t> a((b + 7) / 8, 0xDEADBEEFDEADBEEFull), z((b + 7) / 8, 0);
            ASSERT_EQ(cache_init(a.data(), &cfg), 0);
            ASSERT_EQ(cache_init_zeroed(z.data(), &cfg), 0);
            EXPECT_EQ(std::memcmp(a.data(), z.data(), b), 0) << tag_only << " " << assoc;
            cache *ca = reinterpret_cast<cache *>(a.data()), *cz = reinterpret_cast<cache *>(z.data());
            for (uint64_t line = 0; line < 5000; line += 7) {
                int32_t i = cache_lookup(ca, line % 1500);
                ASSERT_EQ(cache_lookup(cz, line % 1500), i);
                if (i >= 0) {
                    cache_touch(ca, i);
                    cache_touch(cz, i);
                    continue;
                }
                i = cache_victim(ca, line % 1500);
                ASSERT_EQ(cache_victim(cz, line % 1500), i);
                cache_install(ca, i, line % 1500, 1);
                cache_install(cz, i, line % 1500, 1);
            }
            EXPECT_EQ(std::memcmp(a.data(), z.data(), b), 0) << tag_only << " " << assoc;
            EXPECT_EQ(cache_init_zeroed(nullptr, &cfg), -1);
        }
}

// A touch of the most recently used way changes nothing (tag-only ranks): the victim order of the
// set is the same as without the touch.
TEST(Cache, TagOnlyTouchOfMruKeepsOrder)
{
    Cache t(4 * 64, 64, 4, 1), u(4 * 64, 64, 4, 1);
    for (uint64_t a : {0u, 1u, 2u, 3u}) {
        for (Cache *c : {&t, &u}) cache_install(c->c, cache_victim(c->c, a), a, 0);
    }
    cache_touch(t.c, cache_lookup(t.c, 3));    // 3 is already the MRU way
    cache_touch(t.c, cache_lookup(t.c, 3));
    int32_t ot[4], ou[4];
    ASSERT_EQ(cache_set_ways_lru(t.c, 0, ot, 4), 4u);
    ASSERT_EQ(cache_set_ways_lru(u.c, 0, ou, 4), 4u);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(ot[i], ou[i]);
    EXPECT_EQ(cache_line_tag(t.c, ot[0]), 0u);    // the LRU way holds line 0
    cache_touch(t.c, cache_lookup(t.c, 0));        // line 0 to MRU: line 1 is now the victim
    EXPECT_EQ(cache_line_tag(t.c, cache_victim(t.c, 0)), 1u);
}

} // namespace

// cache_invalidate_clean drops exactly the present lines that are clean, not held by a persist
// unit and (pm_only) PM lines; the rest stay present with their data.
TEST(Cache, InvalidateCleanKeepsDirtyHeldAndVolatile)
{
    Cache k(200 * 64, 64, 0);                     // 200 lines: more than three present-bitmap words
    const uint8_t b[1] = {7};
    for (int32_t i = 0; i < 200; i++) {
        if (i % 7 == 6) continue;                     // not present
        cache_install(k.c, i, 1000 + i, i % 2);       // odd lines are PM
        if (i % 5 == 0) cache_write(k.c, i, 3, b, 1); // dirty
        if (i % 11 == 0) cache_line_at(k.c, i)->pb_index = 4;   // held by a persist unit
    }
    auto expect_gone = [&](int32_t i, bool pm_only) {
        return i % 7 != 6 && i % 5 != 0 && i % 11 != 0 && (!pm_only || i % 2 == 1);
    };
    uint32_t want = 0;
    for (int32_t i = 0; i < 200; i++) want += expect_gone(i, true);
    EXPECT_EQ(cache_invalidate_clean(k.c, 1), want);
    for (int32_t i = 0; i < 200; i++) {
        bool present = i % 7 != 6 && !expect_gone(i, true);
        EXPECT_EQ(cache_line_present(k.c, i) != 0, present) << i;
        if (present) EXPECT_EQ(cache_lookup(k.c, 1000 + i), i);
        else EXPECT_EQ(cache_lookup(k.c, 1000 + i), -1);
    }
    want = 0;
    for (int32_t i = 0; i < 200; i++) want += expect_gone(i, false) && !expect_gone(i, true);
    EXPECT_EQ(cache_invalidate_clean(k.c, 0), want);  // now the volatile clean ones
    for (int32_t i = 0; i < 200; i++)
        EXPECT_EQ(cache_line_present(k.c, i) != 0, i % 7 != 6 && !expect_gone(i, false)) << i;
    EXPECT_EQ(cache_line_at_const(k.c, 5)->dirty[0], 1ull << 3);   // a dirty line keeps its bytes
    EXPECT_EQ(cache_data_const(k.c, 5)[3], 7);
}
