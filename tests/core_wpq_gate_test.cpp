// Unit tests of the LightWSP gated WPQ core (cores/wpq_gate.{h,c}).
#include <gtest/gtest.h>
#include <vector>
extern "C" {
#include "wpq_gate.h"
}

namespace {

wpq_gate_cfg table1(uint32_t mcs = 2)
{
    wpq_gate_cfg c{};
    c.entries = 64; c.mcs = mcs; c.regions = 8; c.rid_bits = 16;
    c.addr_bits = 32; c.data_bits = 64; c.line_words = 8; c.pf_wait = 4;
    return c;
}

struct Wpq {
    std::vector<uint64_t> mem;
    wpq_gate *g;
    explicit Wpq(const wpq_gate_cfg &c) : mem(wpq_gate_bytes(&c) / 8 + 1)
    {
        g = reinterpret_cast<wpq_gate *>(mem.data());
        EXPECT_EQ(wpq_gate_init(g, &c), 0);
    }
    wpq_gate_out step(const wpq_gate_in &in)
    {
        wpq_gate_out o;
        wpq_gate_step(g, &in, &o);
        return o;
    }
    wpq_gate_out idle(uint8_t drain_ready = 1)
    {
        wpq_gate_in in{};
        in.drain_ready = drain_ready;
        return step(in);
    }
    wpq_gate_out push(uint16_t r, uint64_t a, uint64_t d, uint8_t drain_ready = 1)
    {
        wpq_gate_in in{};
        in.push_valid = 1; in.push_region = r; in.push_addr = a; in.push_data = d;
        in.drain_ready = drain_ready;
        return step(in);
    }
    wpq_gate_out bdry(uint16_t r, uint8_t drain_ready = 1)
    {
        wpq_gate_in in{};
        in.bdry_valid = 1; in.bdry_region = r; in.drain_ready = drain_ready;
        return step(in);
    }
};

TEST(WpqGate, RejectsBadConfig)
{
    wpq_gate_cfg c = table1();
    std::vector<uint64_t> mem(wpq_gate_bytes(&c) / 8 + 1);
    c.regions = 6;
    EXPECT_EQ(wpq_gate_init(mem.data(), &c), -1);
    c = table1(); c.entries = 0;
    EXPECT_EQ(wpq_gate_init(mem.data(), &c), -1);
}

// Figure 4: threads 1, 2, 3 enter a critical section in this order with region IDs N, N+1, N+2;
// all stores go to one MC. A store of thread 2 arrives before thread 1's boundary: only thread
// 1's stores flush (1), then thread 2's (2), then thread 3's (3).
TEST(WpqGate, Figure4ThreeThreadsCriticalSection)
{
    Wpq w(table1(1));
    const uint16_t N = 0;
    EXPECT_EQ(w.push(N, 0x100, 11).push_result, WPQ_OK);       // thread 1
    EXPECT_EQ(w.push(N, 0x108, 12).push_result, WPQ_OK);
    EXPECT_EQ(w.push(N + 1, 0x100, 21).push_result, WPQ_OK);   // thread 2, before T1's boundary
    EXPECT_EQ(w.idle().drain_valid, 0);                        // nothing persisted yet
    wpq_gate_out o = w.bdry(N);                                // T1 leaves the critical section
    EXPECT_EQ(o.bdry_ack_valid, 1);
    EXPECT_EQ(o.drain_valid, 1);                               // (1)
    EXPECT_EQ(o.drain_data, 11u);
    EXPECT_EQ(o.drain_undo, 0);
    o = w.idle();
    EXPECT_EQ(o.drain_data, 12u);
    EXPECT_EQ(o.fack_out_valid, 1);                            // all of N flushed here
    EXPECT_EQ(o.commit_valid, 1);                              // single MC: committed
    EXPECT_EQ(o.flush_id, N + 1);
    o = w.idle();
    EXPECT_EQ(o.drain_valid, 0);                               // T2 has not reached its boundary
    EXPECT_EQ(w.push(N + 2, 0x100, 31).push_result, WPQ_OK);   // thread 3
    o = w.bdry(N + 2);                                         // T3's boundary arrives first
    EXPECT_EQ(o.drain_valid, 0);                               // N+2 waits for N+1
    o = w.bdry(N + 1);
    EXPECT_EQ(o.drain_data, 21u);                              // (2)
    EXPECT_EQ(o.commit_valid, 1);
    o = w.idle();
    EXPECT_EQ(o.drain_data, 31u);                              // (3)
    EXPECT_EQ(o.commit_valid, 1);
    EXPECT_EQ(o.flush_id, N + 3);
    EXPECT_EQ(o.count, 0);
}

TEST(WpqGate, TwoControllersNeedBdryAndFlushAcks)
{
    Wpq w(table1(2));
    w.push(5 - 5, 0x40, 1);
    wpq_gate_out o = w.bdry(0);
    EXPECT_EQ(o.bdry_ack_valid, 1);
    EXPECT_EQ(o.bdry_ack_region, 0);
    EXPECT_EQ(o.drain_valid, 0);                      // the other MC has not acknowledged
    EXPECT_EQ(w.idle().drain_valid, 0);
    wpq_gate_in in{};
    in.back_valid = 1; in.back_region = 0; in.drain_ready = 1;
    o = w.step(in);
    EXPECT_EQ(o.drain_valid, 1);                      // persisted: drains
    EXPECT_EQ(o.fack_out_valid, 1);
    EXPECT_EQ(o.commit_valid, 0);                     // waits for the other's flush-ACK
    EXPECT_EQ(w.idle().commit_valid, 0);
    in = {};
    in.fack_valid = 1; in.fack_region = 0;
    o = w.step(in);
    EXPECT_EQ(o.commit_valid, 1);
    EXPECT_EQ(o.flush_id, 1);
    // a region with no store at this MC still needs the protocol
    in = {};
    in.bdry_valid = 1; in.bdry_region = 1; in.back_valid = 1; in.back_region = 1;
    o = w.step(in);
    EXPECT_EQ(o.fack_out_valid, 1);
    in = {};
    in.fack_valid = 1; in.fack_region = 1;
    EXPECT_EQ(w.step(in).flush_id, 2);
}

TEST(WpqGate, DrainReadyHoldsDrainAndOrderIsFifoWithinRegion)
{
    Wpq w(table1(1));
    for (int i = 0; i < 5; i++) w.push(i & 1, 0x10 + i, 100 + i, 0);
    w.bdry(0, 0);
    w.bdry(1, 0);
    std::vector<uint64_t> got;
    for (int i = 0; i < 12; i++) {
        wpq_gate_out o = w.idle(i % 2);
        if (o.drain_valid) got.push_back(o.drain_data);
    }
    EXPECT_EQ(got, (std::vector<uint64_t>{100, 102, 104, 101, 103}));
}

TEST(WpqGate, LoadCamSearch)
{
    Wpq w(table1(1));
    w.push(0, 0x123, 1);                   // word 0x123 -> line 0x24
    wpq_gate_in in{};
    in.ld_valid = 1; in.ld_line = 0x24;
    EXPECT_EQ(w.step(in).ld_hit, 1);
    in.ld_line = 0x25;
    EXPECT_EQ(w.step(in).ld_hit, 0);
    EXPECT_TRUE(wpq_gate_load_hit(w.g, 0x24));
}

// IV-D: WPQ full of a younger region while the flush-ID region has no boundary: deadlock.
TEST(WpqGate, DeadlockOverflowWithUndoLog)
{
    wpq_gate_cfg c = table1(1);
    c.entries = 4;
    Wpq w(c);
    EXPECT_EQ(w.push(0, 1, 1).push_result, WPQ_OK);    // region 0 (flush ID)
    for (int i = 0; i < 3; i++) w.push(1, 10 + i, 10 + i);
    wpq_gate_out o = w.idle(0);
    EXPECT_EQ(o.count, 4);
    EXPECT_EQ(o.overflow, 1);                          // full, bdry bit 0
    EXPECT_EQ(o.bdry_bit, 0);
    o = w.idle(1);
    EXPECT_EQ(o.drain_valid, 1);                       // region 0 drains before it is persisted
    EXPECT_EQ(o.drain_undo, 1);
    EXPECT_EQ(w.push(1, 20, 20).push_result, WPQ_DECLINED);  // other regions declined
    EXPECT_EQ(w.push(0, 2, 2, 0).push_result, WPQ_OK);   // region 0 refills the free slot
    o = w.push(0, 3, 3, 1);                            // queue full: its oldest region-0 entry drains
    EXPECT_EQ(o.drain_data, 2u);
    EXPECT_EQ(o.push_result, WPQ_OK);
    o = w.push(0, 4, 4, 1);                            // again
    EXPECT_EQ(o.drain_data, 3u);
    // now the queue is full of region 1 + the newest region-0 store; drain it, then bypass
    o = w.idle(1);
    EXPECT_EQ(o.drain_data, 4u);
    EXPECT_EQ(w.push(0, 5, 5, 0).push_result, WPQ_OK);
    o = w.idle(1);
    EXPECT_EQ(o.drain_data, 5u);
    w.push(1, 30, 30, 0);                              // declined (no boundary yet)
    EXPECT_EQ(wpq_gate_count(w.g), 3u);
    // boundary of region 0 arrives: commit, overflow ends
    o = w.bdry(0);
    EXPECT_EQ(o.commit_valid, 1);
    EXPECT_EQ(o.overflow, 0);
    EXPECT_EQ(wpq_gate_get_stats(w.g)->deadlocks, 1u);
}

TEST(WpqGate, OverflowBypassWhenFullOfYoungerRegions)
{
    wpq_gate_cfg c = table1(1);
    c.entries = 2;
    Wpq w(c);
    w.push(1, 10, 10);
    wpq_gate_out o = w.push(1, 11, 11);
    EXPECT_EQ(o.overflow, 1);
    o = w.push(0, 1, 1, 1);                            // flush-ID region store, queue full
    EXPECT_EQ(o.push_result, WPQ_BYPASS);
    EXPECT_EQ(o.drain_valid, 1);
    EXPECT_EQ(o.drain_undo, 1);
    EXPECT_EQ(o.drain_data, 1u);
    o = w.push(0, 2, 2, 0);                            // no PM slot this cycle
    EXPECT_EQ(o.push_result, WPQ_FULL);
}

// Power failure with region 0 persisted (boundary reached every MC) but not yet drained, and
// region 1 not persisted: only region 0 commits, region 1 is discarded.
TEST(WpqGate, PowerFailureCommitsOnlyPersistedRegions)
{
    Wpq w(table1(2));
    w.push(0, 0x10, 1, 0);
    w.push(1, 0x20, 2, 0);
    w.push(0, 0x18, 3, 0);
    w.push(1, 0x28, 4, 0);
    wpq_gate_in in{};
    in.bdry_valid = 1; in.bdry_region = 0; in.back_valid = 1; in.back_region = 0;
    w.step(in);                                        // region 0 persisted, PM busy
    in = {};
    in.power_fail = 1;
    in.push_valid = 1; in.push_region = 1; in.push_addr = 0x30; in.push_data = 5;
    wpq_gate_out o = w.step(in);
    EXPECT_EQ(o.push_result, WPQ_OFF);
    EXPECT_EQ(o.pf, 1);
    std::vector<uint64_t> drained;
    int done_at = -1;
    for (int cyc = 0; cyc < 40 && done_at < 0; cyc++) {
        in = {};
        in.drain_ready = cyc >= 6;                     // PM busy for a while: no discard meanwhile
        if (cyc == 10) { in.fack_valid = 1; in.fack_region = 0; }   // in-flight flush-ACK
        o = w.step(in);
        if (o.drain_valid) drained.push_back(o.drain_data);
        if (o.pf_done_pulse) {
            done_at = cyc;
            EXPECT_EQ(o.discarded, 2);                 // region 1's two stores
            EXPECT_EQ(o.undo_restore, 0);
            EXPECT_EQ(o.flush_id, 1);                  // recovery point: region 1
        }
    }
    EXPECT_EQ(drained, (std::vector<uint64_t>{1, 3}));
    EXPECT_GE(done_at, 10 + 4);
    EXPECT_TRUE(wpq_gate_pf_done(w.g));
    EXPECT_EQ(wpq_gate_count(w.g), 0u);
}

TEST(WpqGate, PowerFailureInOverflowNeedsUndoRestore)
{
    wpq_gate_cfg c = table1(1);
    c.entries = 2;
    Wpq w(c);
    w.push(0, 1, 1, 0);
    w.push(1, 2, 2, 0);                                // full, no boundary: overflow
    wpq_gate_out o = w.idle(1);
    EXPECT_EQ(o.drain_undo, 1);
    wpq_gate_in in{};
    in.power_fail = 1;
    bool done = false;
    for (int i = 0; i < 10 && !done; i++) {
        o = w.step(in);
        in.power_fail = 0;
        in.drain_ready = 1;
        EXPECT_EQ(o.drain_valid, 0);                   // nothing persisted drains
        if (o.pf_done_pulse) {
            done = true;
            EXPECT_EQ(o.undo_restore, 1);
            EXPECT_EQ(o.discarded, 1);
        }
    }
    EXPECT_TRUE(done);
}

TEST(WpqGate, WindowErrors)
{
    Wpq w(table1(1));
    EXPECT_EQ(wpq_gate_boundary(w.g, 8), -1);          // window [0, 8)
    EXPECT_TRUE(wpq_gate_err(w.g));
    EXPECT_EQ(wpq_gate_boundary(w.g, 7), 0);
    EXPECT_EQ(wpq_gate_bdry_ack(w.g, 0xFFFF), -1);
}

TEST(WpqGate, RegionIdsWrap)
{
    wpq_gate_cfg c = table1(1);
    c.rid_bits = 3; c.regions = 4;
    Wpq w(c);
    for (int r = 0; r < 20; r++) {
        w.push(r & 7, r, r);
        wpq_gate_out o = w.bdry(r & 7);
        EXPECT_EQ(o.drain_valid, 1);
        EXPECT_EQ(o.drain_data, (uint64_t)r);
        EXPECT_EQ(o.flush_id, (r + 1) & 7);
    }
    EXPECT_FALSE(wpq_gate_err(w.g));
}

// The same sequence in both modes: region 0's stores, then a store of the younger region 1 before
// region 0's boundary, PM always ready. Gated: nothing drains before boundary 0, then region 0
// before region 1. Ungated: everything drains in arrival order as soon as it is queued, so region
// 1's store is in PM before boundary 0 arrives; boundaries still commit both regions.
std::vector<std::pair<int, uint32_t>> younger_region_sequence(Wpq &w, std::vector<int> *commits)
{
    std::vector<std::pair<int, uint32_t>> d;       // (cycle, region) of each drain
    auto note = [&](int cyc, const wpq_gate_out &o) {
        if (o.drain_valid) { d.push_back({cyc, o.drain_region}); EXPECT_EQ(o.drain_undo, 0); }
        if (o.commit_valid) commits->push_back(cyc);
    };
    note(0, w.push(0, 0x100, 11));
    note(1, w.push(0, 0x108, 12));
    note(2, w.push(1, 0x100, 21));                 // region 1, before region 0's boundary
    note(3, w.idle());
    note(4, w.idle());
    note(5, w.bdry(0));                            // boundary 0 (single MC: persisted at once)
    note(6, w.bdry(1));
    for (int cyc = 7; cyc < 12; cyc++) note(cyc, w.idle());
    return d;
}

TEST(WpqGate, GatedHoldsYoungerRegionUntilOlderBoundary)
{
    Wpq w(table1(1));
    std::vector<int> commits;
    auto d = younger_region_sequence(w, &commits);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0], (std::pair<int, uint32_t>{5, 0}));       // only once boundary 0 arrived
    EXPECT_EQ(d[1], (std::pair<int, uint32_t>{6, 0}));
    EXPECT_EQ(d[2].second, 1u);
    EXPECT_GT(d[2].first, commits.at(0));                    // after region 0 committed
    EXPECT_EQ(commits.size(), 2u);
    EXPECT_EQ(wpq_gate_flush_id(w.g), 2u);
}

TEST(WpqGate, UngatedDrainsYoungerRegionBeforeOlderBoundary)
{
    wpq_gate_cfg c = table1(1);
    c.ungated = 1;
    Wpq w(c);
    std::vector<int> commits;
    auto d = younger_region_sequence(w, &commits);
    // each store drains the cycle after it is queued, whatever its region
    EXPECT_EQ(d, (std::vector<std::pair<int, uint32_t>>{{1, 0}, {2, 0}, {3, 1}}));
    EXPECT_LT(d[2].first, 5);                                // region 1 in PM before boundary 0
    EXPECT_EQ(commits, (std::vector<int>{5, 6}));            // the region protocol still commits
    EXPECT_EQ(wpq_gate_flush_id(w.g), 2u);
    EXPECT_EQ(wpq_gate_get_stats(w.g)->drains, 3u);
    EXPECT_EQ(wpq_gate_get_stats(w.g)->commits, 2u);
}

// Ungated, two controllers: a region whose entries all drained before its boundary still needs
// the boundary, the other MC's bdry-ACK and its flush-ACK to commit (commit rule of gated mode).
TEST(WpqGate, UngatedCommitStillNeedsTheProtocol)
{
    wpq_gate_cfg c = table1(2);
    c.ungated = 1;
    Wpq w(c);
    w.push(0, 0x40, 1);
    EXPECT_EQ(w.idle().drain_valid, 1);
    EXPECT_EQ(wpq_gate_count(w.g), 0u);
    wpq_gate_out o = w.bdry(0);
    EXPECT_EQ(o.bdry_ack_valid, 1);
    EXPECT_EQ(o.fack_out_valid, 0);                          // not persisted: the other MC has not ACKed
    wpq_gate_in in{};
    in.back_valid = 1; in.back_region = 0;
    o = w.step(in);
    EXPECT_EQ(o.fack_out_valid, 1);
    EXPECT_EQ(o.commit_valid, 0);
    in = {};
    in.fack_valid = 1; in.fack_region = 0;
    o = w.step(in);
    EXPECT_EQ(o.commit_valid, 1);
    EXPECT_EQ(o.flush_id, 1);
}

// Ungated: a full queue refuses (WPQ_FULL), never overflow mode or bypass; the transaction API
// drains the oldest entry of any region.
TEST(WpqGate, UngatedFullQueueRefusesNoOverflow)
{
    wpq_gate_cfg c = table1(1);
    c.entries = 2;
    c.ungated = 1;
    Wpq w(c);
    EXPECT_EQ(wpq_gate_push(w.g, 1, 10, 10), WPQ_OK);
    EXPECT_EQ(wpq_gate_push(w.g, 2, 11, 11), WPQ_OK);
    EXPECT_EQ(wpq_gate_check_deadlock(w.g), 0);
    EXPECT_EQ(wpq_gate_overflow(w.g), 0);
    EXPECT_EQ(wpq_gate_bypass(w.g, 0, 1, 1), 0);
    wpq_gate_out o = w.push(0, 1, 1, 0);
    EXPECT_EQ(o.push_result, WPQ_FULL);
    EXPECT_EQ(o.overflow, 0);
    EXPECT_EQ(wpq_gate_get_stats(w.g)->deadlocks, 0u);
    wpq_entry e;
    int undo = 1;
    ASSERT_EQ(wpq_gate_next_drain(w.g, &e, &undo), 1);
    EXPECT_EQ(e.region, 1);
    EXPECT_EQ(e.data, 10u);
    EXPECT_EQ(undo, 0);
    c.ungated = 2;
    std::vector<uint64_t> mem(wpq_gate_bytes(&c) / 8 + 1);
    EXPECT_EQ(wpq_gate_init(mem.data(), &c), -1);
}

// Ungated power failure: nothing is discarded. Entries of unpersisted regions drain on battery
// (ADR), the sequence ends only once the queue is empty and idle for pf_wait cycles.
TEST(WpqGate, UngatedPowerFailureDiscardsNothing)
{
    wpq_gate_cfg c = table1(2);
    c.ungated = 1;
    Wpq w(c);
    w.push(0, 0x10, 1, 0);
    w.push(1, 0x20, 2, 0);
    w.push(2, 0x28, 3, 0);                                   // no boundary ever arrives
    wpq_gate_in in{};
    in.power_fail = 1;
    in.push_valid = 1; in.push_region = 1; in.push_addr = 0x30; in.push_data = 4;
    wpq_gate_out o = w.step(in);
    EXPECT_EQ(o.push_result, WPQ_OFF);
    std::vector<uint64_t> drained;
    int done_at = -1;
    for (int cyc = 0; cyc < 40 && done_at < 0; cyc++) {
        in = {};
        in.drain_ready = cyc >= 8;                           // PM busy longer than pf_wait
        o = w.step(in);
        if (o.drain_valid) drained.push_back(o.drain_data);
        if (o.pf_done_pulse) {
            done_at = cyc;
            EXPECT_EQ(o.discarded, 0);
            EXPECT_EQ(o.undo_restore, 0);
            EXPECT_EQ(o.flush_id, 0);                        // recovery point (not valid ungated)
        }
    }
    EXPECT_EQ(drained, (std::vector<uint64_t>{1, 2, 3}));
    EXPECT_EQ(done_at, 10 + 4);                              // last drain at 10, then 4 idle cycles
    EXPECT_TRUE(wpq_gate_pf_done(w.g));
    EXPECT_EQ(wpq_gate_get_stats(w.g)->discarded, 0u);
    int ur = 1;
    EXPECT_EQ(wpq_gate_pf_discard(w.g, &ur), 0u);
    EXPECT_EQ(ur, 0);
    // the same sequence gated discards all three (no region persisted)
    Wpq g(table1(2));
    g.push(0, 0x10, 1, 0);
    g.push(1, 0x20, 2, 0);
    g.push(2, 0x28, 3, 0);
    in = {};
    in.power_fail = 1;
    o = g.step(in);
    uint32_t discarded = 0;
    for (int cyc = 0; cyc < 40 && !wpq_gate_pf_done(g.g); cyc++) {
        in = {};
        in.drain_ready = 1;
        o = g.step(in);
        EXPECT_EQ(o.drain_valid, 0);
        discarded += o.discarded;
    }
    EXPECT_EQ(discarded, 3u);
}

// Property: with random traffic, drains follow region order, each region's stores in FIFO order,
// and no store drains before its region's boundary unless undo-logged.
TEST(WpqGate, RandomOrderProperty)
{
    wpq_gate_cfg c = table1(1);
    c.entries = 8;
    Wpq w(c);
    uint32_t x = 99;
    auto rnd = [&x]() { x = x * 1664525u + 1013904223u; return x >> 8; };
    uint32_t cur = 0, seq = 0;                  // writer region; data = (region << 20) | seq
    uint32_t last_region = 0, last_seq = 0;
    std::vector<bool> bdry_sent(1 << 16, false);
    uint64_t drains = 0;
    for (int cyc = 0; cyc < 50000; cyc++) {
        wpq_gate_in in{};
        in.drain_ready = rnd() % 3 != 0;
        uint32_t fid = wpq_gate_flush_id(w.g);
        if (rnd() % 4 == 0 && ((cur - fid) & 0xFFFF) < 7) {
            in.bdry_valid = 1; in.bdry_region = cur; bdry_sent[cur] = true; cur = (cur + 1) & 0xFFFF;
        } else if (rnd() & 1) {
            uint32_t r = (cur + rnd() % 2) & 0xFFFF;           // current or next region
            in.push_valid = 1; in.push_region = r; in.push_addr = rnd() & 0xFF;
            in.push_data = ((uint64_t)r << 20) | seq;
        }
        wpq_gate_out o = w.step(in);
        if (in.push_valid && (o.push_result == WPQ_OK || o.push_result == WPQ_BYPASS)) seq++;
        if (o.drain_valid) {
            drains++;
            uint32_t r = (uint32_t)(o.drain_data >> 20), s = o.drain_data & 0xFFFFF;
            EXPECT_EQ(r, o.drain_region);
            if (!o.drain_undo) { EXPECT_TRUE(bdry_sent[r]); }
            if (drains > 1) {
                EXPECT_LT((r - last_region) & 0xFFFF, 8u) << r << " after " << last_region;
                if (r == last_region) { EXPECT_GT(s, last_seq); }
            }
            last_region = r; last_seq = s;
        }
    }
    EXPECT_GT(drains, 5000u);
    EXPECT_FALSE(wpq_gate_err(w.g));
}

} // namespace
