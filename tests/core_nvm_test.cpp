// Unit tests of cores/nvm.c (device timing behind one controller) and of cores/adr_wpq.c (the ADR
// write-pending queue front end in front of it; the controller composes them as the tests do).
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "adr_wpq.h"
#include "nvm.h"
}

namespace {

nvm_cfg base_cfg()
{
    nvm_cfg c{};
    c.channels = 1;
    c.banks = 4;
    c.line_bytes = 128;
    c.row_bytes = 2048;
    c.read_latency_ps = 100000;
    c.write_latency_ps = 300000;
    c.row_hit_latency_ps = 20000;
    c.bank_busy_miss_ps = 50000;
    c.bank_busy_hit_ps = 5000;
    c.read_gbps = 128.0;     // 128 B = 1000 ps on one channel
    c.write_gbps = 42.0;     // 128 B = ceil(128000 / 42) = 3048 ps on one channel
    return c;
}

struct Nvm {
    std::vector<uint64_t> mem;
    nvm *n = nullptr;
    explicit Nvm(const nvm_cfg &cfg)
    {
        size_t b = nvm_bytes(&cfg);
        EXPECT_GT(b, 0u);
        mem.assign((b + 7) / 8, 0xA5A5A5A5A5A5A5A5ull);
        EXPECT_EQ(nvm_init(mem.data(), &cfg), 0);
        n = reinterpret_cast<nvm *>(mem.data());
    }
};

TEST(Nvm, BadConfigRejected)
{
    std::vector<uint64_t> mem(4096);
    nvm_cfg c = base_cfg();
    EXPECT_EQ(nvm_init(mem.data(), &c), 0);
    c = base_cfg(); c.channels = 0;
    EXPECT_EQ(nvm_init(mem.data(), &c), -1);
    EXPECT_EQ(nvm_bytes(&c), 0u);
    c = base_cfg(); c.banks = 0;
    EXPECT_EQ(nvm_init(mem.data(), &c), -1);
    c = base_cfg(); c.line_bytes = 0;
    EXPECT_EQ(nvm_init(mem.data(), &c), -1);
    c = base_cfg(); c.row_bytes = 0;
    EXPECT_EQ(nvm_init(mem.data(), &c), -1);
    c = base_cfg(); c.write_gbps = -1.0;
    EXPECT_EQ(nvm_init(mem.data(), &c), -1);
}

TEST(Nvm, RowHitVersusMiss)
{
    Nvm d(base_cfg());
    EXPECT_EQ(nvm_read(d.n, 0, 0, 128), 100000u);            // miss: max(0 + 100000, 0 + 1000)
    EXPECT_EQ(nvm_read(d.n, 200000, 128, 128), 220000u);     // same row 0: hit latency
    EXPECT_EQ(nvm_read(d.n, 400000, 8192, 128), 500000u);    // row 4 -> bank 0, other row: miss
    EXPECT_EQ(nvm_read(d.n, 600000, 2048, 128), 700000u);    // row 1 -> bank 1, never opened
    EXPECT_EQ(nvm_read(d.n, 800000, 8192 + 64, 64), 820000u);// row 4 still open in bank 0
    const nvm_stats *s = nvm_get_stats(d.n);
    EXPECT_EQ(s->reads, 5u);
    EXPECT_EQ(s->read_bytes, 4 * 128u + 64u);
    EXPECT_EQ(s->row_hits, 2u);
    EXPECT_EQ(s->row_misses, 3u);
    EXPECT_EQ(s->bus_busy_ps, 4 * 1000u + 500u);
    EXPECT_EQ(s->last_done_ps, 820000u);
}

TEST(Nvm, WriteMissAndBankBusy)
{
    Nvm d(base_cfg());
    EXPECT_EQ(nvm_write(d.n, 0, 0, 128), 300000u);           // write miss latency
    // Row hit, but the bank is busy until 0 + 50000 (miss occupancy).
    EXPECT_EQ(nvm_write(d.n, 10, 128, 128), 70000u);
    // Next hit starts when the bank frees at 50000 + 5000.
    EXPECT_EQ(nvm_read(d.n, 20, 256, 128), 75000u);
    EXPECT_EQ(nvm_get_stats(d.n)->writes, 2u);
    EXPECT_EQ(nvm_get_stats(d.n)->last_done_ps, 300000u);    // latest completion, not last call
}

// The pure bank queries: nvm_bank_of is the bank the timing rules use; nvm_bank_free_at is the
// earliest bank_free of that bank index over the channels, and neither changes any state.
TEST(Nvm, BankQueries)
{
    nvm_cfg c = base_cfg();
    c.channels = 2;
    Nvm d(c);
    EXPECT_EQ(nvm_bank_of(d.n, 0), 0u);
    EXPECT_EQ(nvm_bank_of(d.n, 2047), 0u);
    EXPECT_EQ(nvm_bank_of(d.n, 2048), 1u);
    EXPECT_EQ(nvm_bank_of(d.n, 8192 + 3 * 2048), 3u);   // row 7 -> bank 3
    EXPECT_EQ(nvm_bank_free_at(d.n, 1), 0u);            // never used
    EXPECT_EQ(nvm_bank_free_at(d.n, 9), 0u);            // out of range
    nvm_write(d.n, 1000, 2048, 128);                    // channel 0, bank 1: busy until 1000 + 50000
    EXPECT_EQ(nvm_bank_free_at(d.n, 1), 0u);            // bank 1 of channel 1 is still free
    nvm_write(d.n, 2000, 2048 + 128, 128);              // channel 1, bank 1: busy until 52000
    EXPECT_EQ(nvm_bank_free_at(d.n, 1), 51000u);        // the earlier of the two channels
    EXPECT_EQ(nvm_bank_free_at(d.n, 0), 0u);
    const nvm_stats before = *nvm_get_stats(d.n);
    nvm_bank_of(d.n, 4096);
    nvm_bank_free_at(d.n, 1);
    EXPECT_EQ(nvm_get_stats(d.n)->writes, before.writes);
    // The bank the query names is the one the timing uses: a write to bank 1 starts at its free time.
    EXPECT_EQ(nvm_write(d.n, 3000, 2048 + 2 * 8192, 128), 51000u + 300000u);
}

TEST(Nvm, BandwidthLimitedWriteStream)
{
    nvm_cfg c = base_cfg();
    c.write_latency_ps = 0;
    c.row_hit_latency_ps = 0;
    c.bank_busy_miss_ps = 0;
    c.bank_busy_hit_ps = 0;
    Nvm d(c);
    const persim_ps xfer = 3048;   // ceil(128 * 1000 / 42)
    const int N = 10;
    persim_ps last = 0;
    for (int k = 0; k < N; k++) {
        last = nvm_write(d.n, 0, uint64_t(k) * 128, 128);
        EXPECT_EQ(last, persim_ps(k + 1) * xfer) << k;
    }
    EXPECT_GE(last, N * xfer);
    EXPECT_EQ(nvm_get_stats(d.n)->bus_busy_ps, N * xfer);

    // Two channels: per-channel bandwidth halves, lines alternate channels.
    c.channels = 2;
    Nvm d2(c);
    const persim_ps xfer2 = 6096;  // ceil(128 * 1000 / 21)
    for (int k = 0; k < N; k++) {
        last = nvm_write(d2.n, 0, uint64_t(k) * 128, 128);
        EXPECT_EQ(last, persim_ps(k / 2 + 1) * xfer2) << k;
    }
}

// A device behind an ADR write-pending queue of `entries` entries (0: no queue, write durable at
// the device), composed as the `adr_wpq` front end of a controller does (sc_models/mem/adr_wpq_fe.cpp).
struct Ctrl {
    Nvm dev;
    std::vector<uint64_t> qmem;
    adr_wpq *q = nullptr;
    Ctrl(const nvm_cfg &c, uint32_t entries) : dev(c)
    {
        if (!entries) return;
        adr_wpq_cfg qc{entries, c.line_bytes, 5000};
        qmem.assign((adr_wpq_bytes(&qc) + 7) / 8, 0x5A5A5A5A5A5A5A5Aull);
        EXPECT_EQ(adr_wpq_init(qmem.data(), &qc), 0);
        q = reinterpret_cast<adr_wpq *>(qmem.data());
    }
    // Returns the drain (device) completion; *acc = accept (durable) time.
    persim_ps write(persim_ps t, uint64_t addr, uint32_t bytes, persim_ps *acc)
    {
        if (!q) return *acc = nvm_write(dev.n, t, addr, bytes);
        *acc = adr_wpq_accept(q, t);
        return adr_wpq_commit(q, addr, t, *acc, nvm_write(dev.n, *acc, addr, bytes));
    }
    persim_ps read(persim_ps t, uint64_t addr, uint32_t bytes)
    {
        persim_ps r;
        if (q && adr_wpq_read(q, t, addr, &r)) return r;
        return nvm_read(dev.n, t, addr, bytes);
    }
    const adr_wpq_stats *qs() const { return adr_wpq_get_stats(q); }
};

nvm_cfg wpq_cfg()
{
    nvm_cfg c = base_cfg();
    c.banks = 1;
    c.write_latency_ps = 100000;
    c.row_hit_latency_ps = 20000;
    c.bank_busy_miss_ps = 100000;
    c.bank_busy_hit_ps = 10000;
    return c;
}

TEST(AdrWpq, BadConfigRejected)
{
    std::vector<uint64_t> mem(64);
    adr_wpq_cfg qc{0, 128, 0};
    EXPECT_EQ(adr_wpq_bytes(&qc), 0u);
    EXPECT_EQ(adr_wpq_init(mem.data(), &qc), -1);
    qc = adr_wpq_cfg{4, 0, 0};
    EXPECT_EQ(adr_wpq_init(mem.data(), &qc), -1);
    qc = adr_wpq_cfg{4, 128, 0};
    EXPECT_EQ(adr_wpq_init(mem.data(), &qc), 0);
}

TEST(AdrWpq, FullStall)
{
    Ctrl d(wpq_cfg(), 4);
    // All six writes arrive at t=0 to row 0 of the single bank.
    //   w0: miss, done 100000, bank free 100000
    //   w1..w3: hits starting at 100000, 110000, 120000 -> done 120000, 130000, 140000
    //   w4: accepted when w0 drains (100000), starts at 130000 -> 150000
    //   w5: accepted when w1 drains (120000), starts at 140000 -> 160000
    const persim_ps want_done[6] = {100000, 120000, 130000, 140000, 150000, 160000};
    const persim_ps want_acc[6] = {0, 0, 0, 0, 100000, 120000};
    persim_ps acc[6];
    for (int k = 0; k < 6; k++) {
        EXPECT_EQ(d.write(0, uint64_t(k) * 128, 128, &acc[k]), want_done[k]) << k;
        EXPECT_EQ(acc[k], want_acc[k]) << k;
    }
    EXPECT_EQ(d.qs()->full_stalls, 2u);
    EXPECT_EQ(d.qs()->stall_ps, 220000u);
    EXPECT_EQ(d.qs()->writes, 6u);
    EXPECT_EQ(adr_wpq_occupancy(d.q, 0), 4u);
    EXPECT_EQ(adr_wpq_occupancy(d.q, 125000), 4u);   // w2, w3, w4, w5
    EXPECT_EQ(adr_wpq_occupancy(d.q, 145000), 2u);   // w4, w5
    EXPECT_EQ(adr_wpq_occupancy(d.q, 160000), 0u);
}

TEST(AdrWpq, AcceptsImmediatelyWhenNotFull)
{
    Ctrl d(wpq_cfg(), 4);
    persim_ps acc = 1;
    EXPECT_EQ(d.write(500, 0, 128, &acc), 100500u);
    EXPECT_EQ(acc, 500u);
    EXPECT_EQ(adr_wpq_occupancy(d.q, 500), 1u);
    EXPECT_EQ(adr_wpq_occupancy(d.q, 100500), 0u);
    EXPECT_EQ(d.qs()->full_stalls, 0u);
}

TEST(AdrWpq, DrainsInFifoOrder)
{
    nvm_cfg c = wpq_cfg();
    c.banks = 2;
    c.bank_busy_miss_ps = 10000;
    c.read_gbps = 0;   // infinite bandwidth: latency only
    c.write_gbps = 0;
    for (uint32_t entries : {4u, 0u}) {
        Ctrl d(c, entries);
        EXPECT_EQ(d.read(0, 2048, 128), 100000u);               // opens row 1 in bank 1
        persim_ps acc;
        EXPECT_EQ(d.write(0, 0, 128, &acc), 100000u);           // bank 0 miss
        // Bank 1 row hit at 20000 finishes at 40000 on the device, but with a WPQ it cannot
        // drain before the earlier write.
        persim_ps w1 = d.write(20000, 2048 + 128, 128, &acc);
        if (entries) {
            EXPECT_EQ(w1, 100000u);
            EXPECT_EQ(acc, 20000u);
        } else {
            EXPECT_EQ(w1, 40000u);
            EXPECT_EQ(acc, 40000u);
        }
    }
}

TEST(AdrWpq, ReadForwardedFromQueue)
{
    Ctrl d(wpq_cfg(), 4);
    persim_ps acc;
    EXPECT_EQ(d.write(0, 0x1000, 128, &acc), 100000u);         // drains at 100000
    EXPECT_EQ(d.read(50000, 0x1000 + 64, 64), 55000u);         // same line: from the WPQ
    EXPECT_EQ(d.qs()->read_hits, 1u);
    const nvm_stats *s = nvm_get_stats(d.dev.n);
    EXPECT_EQ(s->row_hits + s->row_misses, 1u);                 // no device access for the read
    // Another line in the open row goes to the device: bank free at 100000, row hit.
    EXPECT_EQ(d.read(50000, 0x1080, 128), 120000u);
    // At t == drain the write has left the WPQ: device row hit once the bank frees (110000).
    EXPECT_EQ(d.read(100000, 0x1000, 128), 130000u);
    EXPECT_EQ(d.qs()->read_hits, 1u);
    EXPECT_EQ(s->reads, 2u);                                    // device reads only
}

TEST(AdrWpq, NoQueueNeverForwards)
{
    Ctrl d(wpq_cfg(), 0);
    persim_ps acc;
    EXPECT_EQ(d.write(0, 0x1000, 128, &acc), 100000u);
    EXPECT_EQ(d.read(50000, 0x1000, 128), 120000u);   // waits for the bank, row hit
}

}  // namespace

// BROI IV-D: the stride mapping keeps a row's lines in one bank (row hits for contiguous writes)
// and strides row-sized groups across banks; plain line interleaving spreads consecutive lines.
TEST(Nvm, BankMappingStrideVersusLine)
{
    nvm_cfg c = base_cfg();              // 128 B lines, 2 KB rows
    c.channels = 2;
    Nvm stride(c);
    c.bank_map = 1;
    Nvm line(c);
    // consecutive lines of one channel (every other line): one bank under stride, consecutive banks under line
    EXPECT_EQ(nvm_bank_of(stride.n, 0), nvm_bank_of(stride.n, 256));
    EXPECT_EQ(nvm_bank_of(line.n, 0), 0u);
    EXPECT_EQ(nvm_bank_of(line.n, 256), 1u);
    EXPECT_EQ(nvm_bank_of(stride.n, 2048), 1u);        // the next row-sized group: the next bank
    // a contiguous run of writes in one row: row hits under stride only
    for (uint64_t a = 0; a < 2048; a += 256) {
        nvm_write(stride.n, 0, a, 128);
        nvm_write(line.n, 0, a, 128);
    }
    EXPECT_GT(nvm_get_stats(stride.n)->row_hits, nvm_get_stats(line.n)->row_hits);
    c.bank_map = 2;
    EXPECT_EQ(nvm_bytes(&c), 0u) << "unknown mapping rejected";
}
