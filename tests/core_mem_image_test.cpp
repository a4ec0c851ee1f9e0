// Unit tests of cores/mem_image.c (sparse functional memory image).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
#include "mem_image.h"
}

namespace {

struct Img {
    mem_image *m;
    Img() : m(mem_new()) { EXPECT_NE(m, nullptr); }
    explicit Img(mem_image *x) : m(x) {}
    ~Img() { mem_free(m); }
    Img(const Img &) = delete;
    Img &operator=(const Img &) = delete;
};

TEST(MemImage, UnwrittenReadsZeroAndAllocatesNothing)
{
    Img a;
    std::vector<uint8_t> buf(10000, 0xCC);
    mem_read(a.m, 0x123456789ull, buf.data(), buf.size());
    for (uint8_t b : buf) ASSERT_EQ(b, 0);
    EXPECT_EQ(mem_read_u64(a.m, 1ull << 40), 0u);
    EXPECT_EQ(mem_pages(a.m), 0u);
}

TEST(MemImage, CrossPageWrite)
{
    Img a;
    uint8_t src[100];
    for (int i = 0; i < 100; i++) src[i] = uint8_t(i + 1);
    mem_write(a.m, 4096 - 50, src, 100);
    EXPECT_EQ(mem_pages(a.m), 2u);
    uint8_t back[120];
    mem_read(a.m, 4096 - 60, back, 120);
    for (int i = 0; i < 10; i++) EXPECT_EQ(back[i], 0) << i;
    for (int i = 0; i < 100; i++) EXPECT_EQ(back[10 + i], uint8_t(i + 1)) << i;
    for (int i = 110; i < 120; i++) EXPECT_EQ(back[i], 0) << i;
    // A write spanning three pages.
    std::vector<uint8_t> big(2 * 4096 + 5, 0x5A);          // [3*4096-5, 5*4096)
    mem_write(a.m, 3 * 4096 - 5, big.data(), big.size());
    EXPECT_EQ(mem_pages(a.m), 5u);   // pages 0, 1, 2, 3, 4
    EXPECT_EQ(mem_read_u32(a.m, 3 * 4096 - 6), 0x5A5A5A00u);
    EXPECT_EQ(mem_read_u32(a.m, 5 * 4096 - 4), 0x5A5A5A5Au);
    EXPECT_EQ(mem_read_u32(a.m, 5 * 4096), 0u);
    EXPECT_EQ(mem_read_u32(a.m, 5 * 4096 - 2), 0x5A5Au);   // 2 written bytes then zeros
}

TEST(MemImage, LittleEndianHelpers)
{
    Img a;
    mem_write_u64(a.m, 4094, 0x0102030405060708ull);   // straddles a page boundary
    uint8_t b[8];
    mem_read(a.m, 4094, b, 8);
    EXPECT_EQ(b[0], 0x08);
    EXPECT_EQ(b[7], 0x01);
    EXPECT_EQ(mem_read_u64(a.m, 4094), 0x0102030405060708ull);
    EXPECT_EQ(mem_read_u32(a.m, 4094), 0x05060708u);
    mem_write_u32(a.m, 100, 0xDEADBEEFu);
    EXPECT_EQ(mem_read_u32(a.m, 100), 0xDEADBEEFu);
    EXPECT_EQ(mem_read_u64(a.m, 100), 0xDEADBEEFull);
    EXPECT_EQ(mem_read_u32(a.m, 101), 0x00DEADBEu);
}

TEST(MemImage, MaskedWrite)
{
    Img a;
    std::vector<uint8_t> bg(128, 0x11), src(128);
    for (int i = 0; i < 128; i++) src[i] = uint8_t(0x80 + i);
    const uint64_t base = 4096 - 64;                // the line crosses a page boundary
    mem_write(a.m, base, bg.data(), bg.size());
    const uint64_t mask[2] = {(1ull << 0) | (1ull << 2) | (1ull << 63), (1ull << 0) | (1ull << 63)};
    mem_write_masked(a.m, base, src.data(), 128, mask);
    std::vector<uint8_t> got(128);
    mem_read(a.m, base, got.data(), got.size());
    for (int i = 0; i < 128; i++) {
        bool set = i == 0 || i == 2 || i == 63 || i == 64 || i == 127;
        EXPECT_EQ(got[i], set ? uint8_t(0x80 + i) : 0x11) << i;
    }
    // Only bytes whose bit is set allocate pages.
    Img b;
    const uint64_t none[2] = {0, 0};
    mem_write_masked(b.m, 0x10000, src.data(), 128, none);
    EXPECT_EQ(mem_pages(b.m), 0u);
    const uint64_t hi[2] = {0, 1ull << 63};          // byte 127 only, in the next page
    mem_write_masked(b.m, 8192 - 64, src.data(), 128, hi);
    EXPECT_EQ(mem_pages(b.m), 1u);
    EXPECT_EQ(mem_read_u32(b.m, 8192 + 63), uint32_t(0x80 + 127));
    EXPECT_EQ(mem_read_u32(b.m, 8192 + 60), uint32_t(0x80 + 127) << 24);
}

// Masked writes of random masks at addresses whose 128 bytes cross a page boundary at various
// offsets write exactly the masked bytes (runs of set bits are copied a mask word at a time).
TEST(MemImage, MaskedWriteRandomMasksAcrossPages)
{
    std::mt19937_64 rng(11);
    for (int round = 0; round < 400; round++) {
        Img a;
        std::vector<uint8_t> bg(256), src(128), want(256);
        for (auto &b : bg) b = uint8_t(rng());
        for (auto &b : src) b = uint8_t(rng());
        const uint64_t base = 4096 - 64 - 64 + (rng() % 129);   // page boundary at byte 0..128 of the line
        const uint64_t start = base - 64;
        mem_write(a.m, start, bg.data(), bg.size());
        uint64_t mask[2] = {rng() & rng(), rng() | rng()};
        if (round % 4 == 0) mask[0] = ~0ull;
        if (round % 7 == 0) mask[1] = 0;
        const size_t len = round % 3 == 0 ? 128 : 1 + rng() % 128;
        mem_write_masked(a.m, base, src.data(), len, mask);
        want = bg;
        for (size_t i = 0; i < len; i++)
            if (mask[i / 64] >> (i % 64) & 1) want[64 + i] = src[i];
        std::vector<uint8_t> got(256);
        mem_read(a.m, start, got.data(), got.size());
        ASSERT_EQ(got, want) << "round " << round;
    }
}

TEST(MemImage, CloneIsIndependent)
{
    Img a;
    for (uint64_t p = 0; p < 20; p++) mem_write_u64(a.m, p * 4096 * 3 + 8, p * 1000 + 1);
    Img c(mem_clone(a.m));
    ASSERT_NE(c.m, nullptr);
    EXPECT_EQ(mem_pages(c.m), 20u);
    EXPECT_EQ(mem_diff(a.m, c.m, 0, 100 * 4096), -1);
    mem_write_u64(a.m, 5 * 4096 * 3 + 8, 42);
    EXPECT_EQ(mem_read_u64(c.m, 5 * 4096 * 3 + 8), 5001u);
    mem_write_u32(c.m, 4000, 9);                     // page 0 exists in both
    EXPECT_EQ(mem_read_u32(c.m, 4000), 9u);
    EXPECT_EQ(mem_read_u32(a.m, 4000), 0u);
    EXPECT_EQ(mem_diff(a.m, c.m, 0, 4096), 4000);
    mem_write_u32(c.m, 999999, 1);   // new page only in the clone
    EXPECT_EQ(mem_pages(c.m), 21u);
    EXPECT_EQ(mem_pages(a.m), 20u);
}

TEST(MemImage, DiffReportsFirstDifferingOffset)
{
    Img a, b;
    EXPECT_EQ(mem_diff(a.m, b.m, 0, 1 << 20), -1);
    mem_write_u32(a.m, 10000, 0x01000000u);          // only byte 10003 is non-zero
    EXPECT_EQ(mem_diff(a.m, b.m, 0, 1 << 20), 10003);
    EXPECT_EQ(mem_diff(b.m, a.m, 10000, 100), 3);    // offset relative to addr
    EXPECT_EQ(mem_diff(a.m, b.m, 10004, 100), -1);
    mem_write_u32(b.m, 10000, 0x01000000u);
    EXPECT_EQ(mem_diff(a.m, b.m, 0, 1 << 20), -1);
    // An explicitly written zero equals an absent page.
    mem_write_u32(a.m, 50000, 0);
    EXPECT_EQ(mem_diff(a.m, b.m, 0, 1 << 20), -1);
    mem_write_u32(b.m, 3 * 4096 + 4095, 0xFF);
    mem_write_u32(a.m, 3 * 4096 + 4095, 0xFE);
    EXPECT_EQ(mem_diff(a.m, b.m, 3 * 4096, 8192), 4095);
}

TEST(MemImage, ClearAndManyPages)
{
    Img a;
    const uint64_t n = 5000;
    for (uint64_t p = 0; p < n; p++) mem_write_u64(a.m, (p * 7 + (p << 32)) * 4096, p ^ 0xABCDu);
    EXPECT_EQ(mem_pages(a.m), n);
    for (uint64_t p = 0; p < n; p++) ASSERT_EQ(mem_read_u64(a.m, (p * 7 + (p << 32)) * 4096), p ^ 0xABCDu);
    EXPECT_EQ(mem_read_u64(a.m, 4096), 0u);
    mem_clear(a.m);
    EXPECT_EQ(mem_pages(a.m), 0u);
    EXPECT_EQ(mem_read_u64(a.m, 7 * 4096 + (1ull << 44)), 0u);
    mem_write_u64(a.m, 8, 3);
    EXPECT_EQ(mem_read_u64(a.m, 8), 3u);
    EXPECT_EQ(mem_pages(a.m), 1u);
}

}  // namespace
