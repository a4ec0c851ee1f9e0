// Unit tests of cores/pm_dimm.c (the Optane-class DIMM device): media lines, the combining / RMW
// buffer, the AIT cache, DIMM interleaving, wear counting and migrations, energy.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "pm_dimm.h"
}

namespace {

// Round numbers, so the expected times can be worked out by hand.
pm_dimm_cfg base_cfg()
{
    pm_dimm_cfg c{};
    c.dimms = 1;
    c.interleave_bytes = 4096;
    c.media_line_bytes = 256;
    c.burst_bytes = 64;
    c.bus_gbps = 64.0;            // 64 B = 1000 ps
    c.ctrl_ps = 10000;
    c.buf_entries = 4;
    c.ait_entries = 8;
    c.ait_ways = 2;
    c.ait_block_bytes = 4096;
    c.ait_miss_ps = 50000;
    c.media_read_ps = 100000;
    c.media_write_ps = 300000;
    c.media_read_gbps = 2.56;     // 256 B = 100000 ps of media occupancy
    c.media_write_gbps = 1.28;    // 256 B = 200000 ps
    c.wear_block_bytes = 4096;
    c.wear_writes = 0;
    c.wear_migrate_ps = 0;
    c.wear_slots = 64;
    c.access_pj = 1.0;
    c.read_pj_per_bit = 1.0;
    c.write_pj_per_bit = 10.0;
    return c;
}

struct Dev {
    std::vector<uint64_t> mem;
    pm_dimm *d = nullptr;
    explicit Dev(const pm_dimm_cfg &cfg)
    {
        const size_t n = pm_dimm_bytes(&cfg);
        EXPECT_GT(n, 0u);
        mem.assign(n / 8 + 1, 0);
        EXPECT_EQ(pm_dimm_init(mem.data(), &cfg), 0);
        d = reinterpret_cast<pm_dimm *>(mem.data());
    }
    const pm_dimm_stats &st() const { return *pm_dimm_get_stats(d); }
};

TEST(PmDimm, RejectsBadConfigs)
{
    std::vector<uint64_t> mem(1 << 16);
    auto bad = [&](void (*f)(pm_dimm_cfg &)) {
        pm_dimm_cfg c = base_cfg();
        f(c);
        EXPECT_EQ(pm_dimm_bytes(&c), 0u);
        EXPECT_EQ(pm_dimm_init(mem.data(), &c), -1);
    };
    bad([](pm_dimm_cfg &c) { c.dimms = 0; });
    bad([](pm_dimm_cfg &c) { c.media_line_bytes = 96; });
    bad([](pm_dimm_cfg &c) { c.media_line_bytes = 1024; });
    bad([](pm_dimm_cfg &c) { c.interleave_bytes = 300; });
    bad([](pm_dimm_cfg &c) { c.ait_ways = 3; });
    bad([](pm_dimm_cfg &c) { c.ait_block_bytes = 128; });
    bad([](pm_dimm_cfg &c) { c.wear_slots = 100; });
    bad([](pm_dimm_cfg &c) { c.burst_bytes = 0; });
    pm_dimm_cfg ok = base_cfg();
    EXPECT_EQ(pm_dimm_init(mem.data(), &ok), 0);
}

// A read miss: controller, AIT miss, media read, channel. The next three 64 B reads of the same
// 256 B media line hit the buffer: controller + channel only (the sequential-read advantage).
TEST(PmDimm, ReadMissThenLineHits)
{
    Dev v(base_cfg());
    EXPECT_EQ(pm_dimm_read(v.d, 0, 0, 64), 10000u + 50000u + 100000u + 1000u);
    EXPECT_EQ(pm_dimm_read(v.d, 1000000, 64, 64), 1000000u + 10000u + 1000u);
    EXPECT_EQ(pm_dimm_read(v.d, 2000000, 192, 64), 2000000u + 10000u + 1000u);
    EXPECT_EQ(v.st().media_reads, 1u);
    EXPECT_EQ(v.st().buf_read_hits, 2u);
    EXPECT_EQ(v.st().ait_misses, 1u);
    // Another line of the same 4 KB block: media read, but the AIT entry is cached now.
    EXPECT_EQ(pm_dimm_read(v.d, 3000000, 256, 64), 3000000u + 10000u + 100000u + 1000u);
    EXPECT_EQ(v.st().ait_hits, 1u);
}

// Without the buffer, the same sequence pays the media every time.
TEST(PmDimm, NoBufferNoLineHits)
{
    pm_dimm_cfg c = base_cfg();
    c.buf_entries = 0;
    Dev v(c);
    pm_dimm_read(v.d, 0, 0, 64);
    EXPECT_EQ(pm_dimm_read(v.d, 1000000, 64, 64), 1000000u + 10000u + 100000u + 1000u);
    EXPECT_EQ(v.st().media_reads, 2u);
    EXPECT_EQ(v.st().buf_read_hits, 0u);
}

// Four 64 B writes covering one media line combine into one media write without a read; one 64 B
// write to each of many lines makes every eviction a read-modify-write (write amplification 4).
TEST(PmDimm, CombiningAndReadModifyWrite)
{
    Dev seq(base_cfg());
    for (uint64_t a = 0; a < 256 * 64; a += 64) pm_dimm_write(seq.d, a * 1000, a, 64);
    EXPECT_EQ(seq.st().buf_write_hits, 3u * 64);
    EXPECT_EQ(seq.st().rmw_reads, 0u);
    EXPECT_EQ(seq.st().media_writes + pm_dimm_dirty_lines(seq.d), 64u);

    Dev rnd(base_cfg());
    for (uint64_t k = 0; k < 64; ++k) pm_dimm_write(rnd.d, k * 1000000, k * 256, 64);
    EXPECT_EQ(rnd.st().buf_write_hits, 0u);
    EXPECT_EQ(rnd.st().media_writes, 60u);            // 4 lines still in the buffer
    EXPECT_EQ(rnd.st().rmw_reads, 60u);
    EXPECT_EQ(pm_dimm_dirty_lines(rnd.d), 4u);
    const double wa = rnd.st().media_writes * 256.0 / (60 * 64.0);
    EXPECT_DOUBLE_EQ(wa, 4.0);
}

// A write is accepted when it is in the buffer; once the buffer is full of partial lines, the next
// write waits for the evicted line's media read and the start of its media write.
TEST(PmDimm, AcceptanceWaitsForEviction)
{
    Dev v(base_cfg());
    for (uint64_t k = 0; k < 4; ++k) EXPECT_EQ(pm_dimm_write(v.d, 0, k * 256, 64), (k + 1) * 1000 + 10000);
    // Fifth line at 10 us: channel 10 us .. +1 ns; the LRU line 0 is partial: its AIT entry misses
    // (buffered writes do not touch the AIT) 50 ns, media read 100 ns, then its media write starts
    // at once (AIT entry cached now; the media's 100 ns read occupancy ends with the read).
    const uint64_t t = 10000000;
    const uint64_t arrive = t + 1000;
    const uint64_t read_done = arrive + 50000 + 100000;
    const uint64_t write_start = read_done;
    EXPECT_EQ(pm_dimm_write(v.d, t, 4 * 256, 64), write_start + 10000);
    EXPECT_EQ(v.st().rmw_reads, 1u);
    EXPECT_EQ(v.st().buf_dirty_evictions, 1u);
}

// Pipelined evictions: the fifth write waits only until the media starts the eviction's read.
TEST(PmDimm, PipelinedEvictionWaitsForTheMediaStartOnly)
{
    pm_dimm_cfg c = base_cfg();
    c.evict_pipelined = 1;
    Dev v(c);
    for (uint64_t k = 0; k < 4; ++k) pm_dimm_write(v.d, 0, k * 256, 64);
    const uint64_t t = 10000000, arrive = t + 1000;
    EXPECT_EQ(pm_dimm_write(v.d, t, 4 * 256, 64), arrive + 50000 + 10000);   // read starts after the AIT miss
    EXPECT_EQ(v.st().rmw_reads, 1u);
    // A second eviction queues behind the first one's media occupancy (read 100 ns + write 200 ns).
    const uint64_t media_free = arrive + 50000 + 100000 + 200000;
    EXPECT_EQ(pm_dimm_write(v.d, t, 5 * 256, 64), media_free + 10000);
}

// The LSQ: writes are accepted once queued; the buffer controller takes them in order, so a write
// behind an eviction enters the buffer late but is accepted at once while the queue has room.
TEST(PmDimm, WriteQueueAcceptsAheadOfTheBuffer)
{
    pm_dimm_cfg c = base_cfg();
    c.lsq_entries = 2;
    Dev v(c);
    for (uint64_t k = 0; k < 4; ++k) pm_dimm_write(v.d, 0, k * 256, 64);   // buffer full of partial lines
    const uint64_t t = 10000000, arrive = t + 1000;
    // Line 4 evicts line 0 (AIT miss + media read 150 ns): accepted on arrival, in the queue.
    EXPECT_EQ(pm_dimm_write(v.d, t, 4 * 256, 64), arrive + 10000);
    const uint64_t entered4 = arrive + 50000 + 100000;
    EXPECT_EQ(pm_dimm_next_write_at(v.d), arrive + 0);   // the second slot is free
    // Line 5 (channel busy until arrive + 1 ns): accepted at once too; it enters the buffer after line
    // 4's eviction and its own (line 1: AIT hit, read after the media's read + write occupancy).
    EXPECT_EQ(pm_dimm_write(v.d, t, 5 * 256, 64), arrive + 1000 + 10000);
    // The third write finds both slots taken: it waits until line 4 has entered the buffer.
    EXPECT_EQ(pm_dimm_write(v.d, t, 6 * 256, 64), entered4 + 10000);
    EXPECT_EQ(v.st().lsq_full_waits, 1u);
}

// The media write bandwidth bounds a stream of full-line writes: steady state one line per 200 ns.
TEST(PmDimm, MediaWriteBandwidthBoundsAcceptance)
{
    Dev v(base_cfg());
    uint64_t last = 0, prev = 0;
    for (uint64_t k = 0; k < 40; ++k) {
        prev = last;
        last = pm_dimm_write(v.d, 0, k * 256, 256);
    }
    EXPECT_EQ(last - prev, 200000u);
    EXPECT_EQ(v.st().rmw_reads, 0u);
}

TEST(PmDimm, DimmInterleaving)
{
    pm_dimm_cfg c = base_cfg();
    c.dimms = 3;
    Dev v(c);
    EXPECT_EQ(pm_dimm_of(v.d, 0), 0u);
    EXPECT_EQ(pm_dimm_of(v.d, 4095), 0u);
    EXPECT_EQ(pm_dimm_of(v.d, 4096), 1u);
    EXPECT_EQ(pm_dimm_of(v.d, 3 * 4096), 0u);
    // Two DIMMs work in parallel: reads to DIMM 0 and 1 at the same time finish together.
    const uint64_t a = pm_dimm_read(v.d, 0, 0, 64), b = pm_dimm_read(v.d, 0, 4096, 64);
    EXPECT_EQ(a, b);
    // The same DIMM's media is busy for 100 ns after a read: a second line read queues.
    const uint64_t c2 = pm_dimm_read(v.d, 0, 512, 64);
    EXPECT_GT(c2, a);
    EXPECT_EQ(pm_dimm_free_at(v.d, 1), 1000u);   // the read took its channel slot on arrival
    EXPECT_EQ(pm_dimm_free_at(v.d, 7), 0u);
}

// The AIT cache: 8 entries (4 sets x 2 ways) of 4 KB cover 32 KB; a loop over 16 blocks misses always.
TEST(PmDimm, AitCacheCoverage)
{
    pm_dimm_cfg c = base_cfg();
    c.buf_entries = 0;
    Dev small(c), big(c);
    for (int r = 0; r < 3; ++r)
        for (uint64_t b = 0; b < 8; ++b) pm_dimm_read(small.d, 0, b * 4096, 64);
    EXPECT_EQ(small.st().ait_misses, 8u);
    EXPECT_EQ(small.st().ait_hits, 16u);
    for (int r = 0; r < 3; ++r)
        for (uint64_t b = 0; b < 16; ++b) pm_dimm_read(big.d, 0, b * 4096, 64);
    EXPECT_EQ(big.st().ait_hits, 0u);
    c.ait_entries = 0;
    Dev none(c);
    pm_dimm_read(none.d, 0, 0, 64);
    pm_dimm_read(none.d, 0, 0, 64);
    EXPECT_EQ(none.st().ait_misses, 2u);
}

// Wear: every wear_writes-th media write of one block migrates it (media busy), and the counters
// report the hottest block.
TEST(PmDimm, WearMigration)
{
    pm_dimm_cfg c = base_cfg();
    c.buf_entries = 0;
    c.wear_writes = 10;
    c.wear_migrate_ps = 5000000;
    Dev v(c);
    uint64_t t = 0, worst = 0;
    for (int k = 0; k < 25; ++k) {
        const uint64_t acc = pm_dimm_write(v.d, t, (uint64_t)(k % 4) * 256, 256);
        worst = std::max<uint64_t>(worst, acc - t);
        t = acc + 1000000;
    }
    EXPECT_EQ(v.st().migrations, 2u);
    EXPECT_EQ(v.st().wear_max, 25u);
    EXPECT_EQ(v.st().wear_blocks, 1u);
    EXPECT_GE(worst, 4000000u);   // a write behind a migration waits for it
    pm_dimm_write(v.d, t, 8192, 256);
    EXPECT_EQ(v.st().wear_blocks, 2u);
}

TEST(PmDimm, EnergyCountsMediaAccessesAndBits)
{
    pm_dimm_cfg c = base_cfg();
    c.buf_entries = 0;
    Dev v(c);
    pm_dimm_read(v.d, 0, 0, 64);
    EXPECT_DOUBLE_EQ(v.st().energy_pj, 1.0 + 2048.0 * 1.0);
    pm_dimm_write(v.d, 1000000, 256, 256);   // full line: no read
    EXPECT_DOUBLE_EQ(v.st().energy_pj, 1.0 + 2048.0 + 1.0 + 2048.0 * 10.0);
}

TEST(PmDimm, Deterministic)
{
    auto run = [] {
        Dev v(base_cfg());
        uint64_t h = 0, x = 12345;
        for (int k = 0; k < 2000; ++k) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const uint64_t addr = (x >> 20) % (1 << 20) / 8 * 8;
            h = h * 31 + ((x >> 7) & 1 ? pm_dimm_write(v.d, k * 50000ull, addr, 8) : pm_dimm_read(v.d, k * 50000ull, addr, 64));
        }
        return h;
    };
    EXPECT_EQ(run(), run());
}

} // namespace
