// Directed block tests of the LightWSP gated WPQ (cores/wpq_gate, rtl/wpq_gate.v), written once
// (issue 22) as GoogleTest typed tests on the device-under-test interface (tb/dut.h). Instantiated
// with the C backend in tests/core_wpq_gate_test.cpp (core_tests, fast tier: ctest `core.WpqC.*`)
// and with the RTL lockstep backend in tb/wpq_gate_cosim.cpp (ctest `cosim.WpqRtl.*`), each on
// the RTL presets of configs/rtl_presets.json. Tests of the C core's transaction API and
// configuration stay in tests/core_wpq_gate_test.cpp; the random lockstep runs in the cosim file.
#pragma once
#include "wpq_gate_dut.h"
#include <deque>
#include <utility>
#include <vector>

namespace wpq_scen {

// A device plus the short-hands the scenarios use. A C/RTL mismatch fails the test at the step
// (the lockstep Checker reports it with the last inputs).
struct Drv {
    std::unique_ptr<dut::WpqDut> d;
    wpq_gate *g;
    explicit Drv(std::unique_ptr<dut::WpqDut> x) : d(std::move(x)), g(d->core()) {}
    const wpq_gate_cfg &cfg() const { return d->cfg(); }
    wpq_gate_out step(const wpq_gate_in &in)
    {
        wpq_gate_out o{};
        EXPECT_TRUE(d->step(in, &o));
        return o;
    }
    wpq_gate_out idle(uint8_t drain_ready = 1)
    {
        wpq_gate_in in{};
        in.drain_ready = drain_ready;
        return step(in);
    }
    wpq_gate_out push(uint16_t r, uint64_t a, uint64_t dt, uint8_t drain_ready = 1) { return step(pin(r, a, dt, drain_ready)); }
    wpq_gate_out bdry(uint16_t r, uint8_t drain_ready = 1)
    {
        wpq_gate_in in{};
        in.bdry_valid = 1; in.bdry_region = r; in.drain_ready = drain_ready;
        return step(in);
    }
    static wpq_gate_in pin(uint16_t r, uint64_t a, uint64_t dt, uint8_t drain_ready = 1)
    {
        wpq_gate_in in{};
        in.push_valid = 1; in.push_region = r; in.push_addr = a; in.push_data = dt; in.drain_ready = drain_ready;
        return in;
    }
};

template <class B>
class WpqBlock : public ::testing::Test {
protected:
    static Drv dev(dut::WpqPreset p) { return Drv(B::make(p)); }
};
TYPED_TEST_SUITE_P(WpqBlock);

using P = dut::WpqPreset;

// Figure 4 on one controller: threads 1, 2, 3 enter a critical section in this order with region
// IDs N, N+1, N+2. A store of thread 2 arrives before thread 1's boundary: only thread 1's stores
// flush (1), then thread 2's (2), then thread 3's (3), even though T3's boundary comes first.
TYPED_TEST_P(WpqBlock, Figure4OneController)
{
    Drv w = this->dev(P::one_mc);
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

// Figure 4 with two controllers: the stores all go to this MC, the other MC only exchanges ACKs
// (it echoes a bdry-ACK for each boundary and a flush-ACK for each of ours).
TYPED_TEST_P(WpqBlock, Figure4TwoControllers)
{
    Drv w = this->dev(P::table1);
    const uint16_t N = 0;
    wpq_gate_out o{};
    std::vector<std::pair<uint16_t, uint64_t>> drained;
    std::vector<uint16_t> committed;
    std::deque<wpq_gate_in> script;
    script.push_back(Drv::pin(N, 0x100, 0x11));       // thread 1, region N
    script.push_back(Drv::pin(N, 0x108, 0x12));
    script.push_back(Drv::pin(N + 1, 0x100, 0x21));   // thread 2, region N+1, before T1's boundary
    wpq_gate_in bd{}; bd.bdry_valid = 1; bd.drain_ready = 1;
    bd.bdry_region = N; script.push_back(bd);         // T1 releases the lock: boundary N
    script.push_back(Drv::pin(N + 1, 0x110, 0x22));
    script.push_back(Drv::pin(N + 2, 0x100, 0x31));   // thread 3
    bd.bdry_region = N + 1; script.push_back(bd);
    script.push_back(Drv::pin(N + 2, 0x118, 0x32));
    bd.bdry_region = N + 2; script.push_back(bd);
    for (int cyc = 0; cyc < 40; cyc++) {
        wpq_gate_in in{};
        in.drain_ready = 1;
        if (!script.empty()) { in = script.front(); script.pop_front(); }
        if (o.bdry_ack_valid) { in.back_valid = 1; in.back_region = o.bdry_ack_region; }
        if (o.fack_out_valid) { in.fack_valid = 1; in.fack_region = o.fack_out_region; }
        o = w.step(in);
        if (o.drain_valid) { drained.push_back({o.drain_region, o.drain_data}); EXPECT_EQ(o.drain_undo, 0); }
        if (o.commit_valid) committed.push_back(o.commit_region);
    }
    const std::vector<std::pair<uint16_t, uint64_t>> want = {
        {N, 0x11}, {N, 0x12}, {N + 1, 0x21}, {N + 1, 0x22}, {N + 2, 0x31}, {N + 2, 0x32}};
    EXPECT_EQ(drained, want);
    EXPECT_EQ(committed, (std::vector<uint16_t>{N, N + 1, N + 2}));
    EXPECT_EQ(o.flush_id, N + 3);
    EXPECT_EQ(o.count, 0);
}

TYPED_TEST_P(WpqBlock, TwoControllersNeedBdryAndFlushAcks)
{
    Drv w = this->dev(P::table1);
    w.push(0, 0x40, 1);
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

// drain_ready low holds the drain; within a region the order is FIFO, regions in order.
TYPED_TEST_P(WpqBlock, DrainReadyHoldsDrainAndOrderIsFifoWithinRegion)
{
    Drv w = this->dev(P::one_mc);
    const int n = (int)w.cfg().entries;               // 4: regions 0, 1, 0, 1
    for (int i = 0; i < n; i++) w.push(i & 1, 0x10 + i, 100 + i, 0);
    w.bdry(0, 0);
    w.bdry(1, 0);
    std::vector<uint64_t> got;
    for (int i = 0; i < 12; i++) {
        wpq_gate_out o = w.idle(i % 2);
        if (o.drain_valid) got.push_back(o.drain_data);
    }
    EXPECT_EQ(got, (std::vector<uint64_t>{100, 102, 101, 103}));
}

// IV-H: a load searches the queue by line (word 0x123 -> 64 B line 0x24).
TYPED_TEST_P(WpqBlock, LoadCamSearch)
{
    Drv w = this->dev(P::table1);
    EXPECT_EQ(w.push(0, 0x123, 7).push_result, WPQ_OK);
    wpq_gate_in in{};
    in.ld_valid = 1; in.ld_line = 0x24;
    EXPECT_EQ(w.step(in).ld_hit, 1);
    in.ld_line = 0x25;
    EXPECT_EQ(w.step(in).ld_hit, 0);
    EXPECT_TRUE(wpq_gate_load_hit(w.g, 0x24));
    EXPECT_FALSE(wpq_gate_load_hit(w.g, 0x25));
}

// IV-D deadlock, one controller: the 4-entry WPQ fills while region 0 (flush ID) has no boundary.
TYPED_TEST_P(WpqBlock, DeadlockOverflowWithUndoLog)
{
    Drv w = this->dev(P::one_mc);
    ASSERT_EQ(w.cfg().entries, 4u);
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
    o = w.idle(1);
    EXPECT_EQ(o.drain_data, 4u);
    EXPECT_EQ(w.push(0, 5, 5, 0).push_result, WPQ_OK);
    o = w.idle(1);
    EXPECT_EQ(o.drain_data, 5u);
    w.push(1, 30, 30, 0);                              // declined (no boundary yet)
    EXPECT_EQ(wpq_gate_count(w.g), 3u);
    o = w.bdry(0);                                     // boundary of region 0: commit, overflow ends
    EXPECT_EQ(o.commit_valid, 1);
    EXPECT_EQ(o.overflow, 0);
    EXPECT_EQ(wpq_gate_get_stats(w.g)->deadlocks, 1u);
}

// IV-D deadlock, two controllers: the 4-entry WPQ fills with region 1 while region 0 has no
// boundary; undo-logged drains, declined stores, then the boundary and ACKs end overflow mode.
TYPED_TEST_P(WpqBlock, DeadlockOverflowTwoControllers)
{
    Drv w = this->dev(P::small);
    wpq_gate_out o{};
    o = w.push(0, 1, 1, 0);
    for (int k = 0; k < 3; k++) o = w.push(1, 8 + k, 8 + k, 0);
    EXPECT_EQ(o.overflow, 1);
    EXPECT_EQ(o.bdry_bit, 0);
    o = w.idle(1);
    EXPECT_EQ(o.drain_valid, 1);
    EXPECT_EQ(o.drain_undo, 1);                  // region 0 drains before its boundary, undo-logged
    o = w.push(1, 12, 12);
    EXPECT_EQ(o.push_result, WPQ_DECLINED);      // other regions declined
    o = w.push(0, 2, 2, 0);
    EXPECT_EQ(o.push_result, WPQ_OK);            // queue full again
    o = w.push(0, 3, 3, 0);
    EXPECT_EQ(o.push_result, WPQ_FULL);
    o = w.push(0, 3, 3);                         // oldest region-0 entry drains, store queued
    EXPECT_EQ(o.drain_data, 2u);
    o = w.push(0, 4, 4);
    EXPECT_EQ(o.drain_data, 3u);
    o = w.push(1, 13, 13, 0);
    EXPECT_EQ(o.push_result, WPQ_DECLINED);
    wpq_gate_in in{};
    in.drain_ready = 1; in.bdry_valid = 1; in.bdry_region = 0; in.back_valid = 1; in.back_region = 0;
    o = w.step(in);
    EXPECT_EQ(o.drain_undo, 0);                  // persisted now: no undo needed
    EXPECT_EQ(o.fack_out_valid, 1);
    in = {}; in.fack_valid = 1; in.fack_region = 0;
    o = w.step(in);
    EXPECT_EQ(o.commit_valid, 1);
    EXPECT_EQ(o.overflow, 0);
    EXPECT_EQ(o.flush_id, 1);
}

TYPED_TEST_P(WpqBlock, OverflowBypassWhenFullOfYoungerRegions)
{
    Drv w = this->dev(P::one_mc);
    wpq_gate_out o{};
    for (uint32_t k = 0; k < w.cfg().entries; k++) o = w.push(1, 10 + k, 10 + k);
    EXPECT_EQ(o.overflow, 1);
    o = w.push(0, 1, 1, 1);                            // flush-ID region store, queue full
    EXPECT_EQ(o.push_result, WPQ_BYPASS);
    EXPECT_EQ(o.drain_valid, 1);
    EXPECT_EQ(o.drain_undo, 1);
    EXPECT_EQ(o.drain_data, 1u);
    o = w.push(0, 2, 2, 0);                            // no PM slot this cycle
    EXPECT_EQ(o.push_result, WPQ_FULL);
}

// The overflow retry, one decision per edge: the queue is full of region 1 when region 0 commits,
// so the new flush-ID region 1 has just deadlocked (full, boundary missing). A store of region 1
// offered at that edge is refused (FULL) and (8) enters overflow mode again; re-offered with PM
// free, the oldest queued entry of region 1 drains first (undo-logged) and the store takes its
// slot; once no entry of region 1 is left and the queue is full, the store is written through.
TYPED_TEST_P(WpqBlock, OverflowReenteredAfterCommit)
{
    for (uint8_t ready = 0; ready < 2; ready++) {
        Drv w = this->dev(P::one_mc);
        wpq_gate_out o{};
        for (uint32_t k = 0; k < w.cfg().entries; k++) o = w.push(1, 10 + k, 10 + k, 0);
        EXPECT_EQ(o.overflow, 1);                      // region 0 (flush ID) has no boundary
        wpq_gate_in in = Drv::pin(1, 20, 20, ready);
        in.bdry_valid = 1; in.bdry_region = 0;         // region 0 persisted (one MC), no entry here
        o = w.step(in);
        EXPECT_EQ(o.commit_valid, 1);
        EXPECT_EQ(o.flush_id, 1);
        EXPECT_EQ(o.push_result, WPQ_FULL);
        EXPECT_EQ(o.drain_valid, 0);
        EXPECT_EQ(o.overflow, 1);                      // re-entered for region 1 at this edge
        EXPECT_EQ(wpq_gate_get_stats(w.g)->deadlocks, 2u);
        o = w.push(1, 20, 20, 1);
        EXPECT_EQ(o.drain_valid, 1);
        EXPECT_EQ(o.drain_data, 10u);
        EXPECT_EQ(o.drain_undo, 1);
        EXPECT_EQ(o.push_result, WPQ_OK);
    }
    // a queue full of regions 1 and 2 with flush ID 0: the flush-ID store is written through
    Drv u = this->dev(P::one_mc);
    wpq_gate_out o{};
    for (int k = 0; k < 3; k++) u.push(1, 8 + k, 8 + k, 0);
    o = u.push(2, 11, 11, 0);
    EXPECT_EQ(o.overflow, 1);
    o = u.push(0, 1, 1, 0);
    EXPECT_EQ(o.push_result, WPQ_FULL);                // PM busy
    o = u.push(0, 1, 1, 1);
    EXPECT_EQ(o.push_result, WPQ_BYPASS);              // written through at (4)
    EXPECT_EQ(o.drain_undo, 1);
    EXPECT_EQ(o.drain_data, 1u);
}

// Window gating: a boundary beyond the window [flush ID, flush ID + REGIONS) is refused
// (bdry_wait), nothing changes, and it is taken once older regions committed.
TYPED_TEST_P(WpqBlock, BoundaryBeyondWindowWaits)
{
    Drv w = this->dev(P::one_mc);                       // REGIONS 4, RID_W 3
    wpq_gate_out o = w.bdry(4);                        // window [0, 4)
    EXPECT_EQ(o.bdry_wait, 1);
    EXPECT_EQ(o.bdry_ack_valid, 0);
    EXPECT_EQ(o.err, 0);
    EXPECT_EQ(o.progress, 0);
    o = w.push(0, 1, 1);
    o = w.bdry(0);                                     // region 0 persisted at once (one MC)
    EXPECT_EQ(o.bdry_wait, 0);
    EXPECT_EQ(o.drain_valid, 1);
    EXPECT_EQ(o.commit_valid, 1);                      // same edge: flush ID 1
    EXPECT_EQ(o.progress, 1);
    o = w.bdry(4);                                     // window [1, 5): taken now
    EXPECT_EQ(o.bdry_wait, 0);
    EXPECT_EQ(o.bdry_ack_valid, 1);
    EXPECT_EQ(o.bdry_ack_region, 4);
    o = w.bdry(5);                                     // still beyond
    EXPECT_EQ(o.bdry_wait, 1);
    o = w.bdry(0);                                     // wrapped: 0 - 1 = 7 mod 8, beyond too
    EXPECT_EQ(o.bdry_wait, 1);
    for (uint16_t r = 1; r < 4; r++) {
        o = w.bdry(r);
        EXPECT_EQ(o.commit_valid, 1);
    }
    EXPECT_EQ(o.flush_id, 4);
    o = w.idle();                                      // region 4's boundary was recorded
    EXPECT_EQ(o.commit_valid, 1);
    EXPECT_EQ(o.flush_id, 5);
    o = w.bdry(5);
    EXPECT_EQ(o.bdry_wait, 0);
    EXPECT_EQ(o.err, 0);
    // an ACK outside the window is an error (another controller is never that far ahead)
    Drv v = this->dev(P::small);
    wpq_gate_in in{};
    in.back_valid = 1; in.back_region = 5;
    o = v.step(in);
    EXPECT_EQ(o.err, 1);
}

// Power failure with region 0 persisted (boundary reached every MC) but not yet drained, and
// region 1 not persisted: only region 0 drains and commits, region 1 is discarded.
TYPED_TEST_P(WpqBlock, PowerFailureCommitsOnlyPersistedRegions)
{
    Drv w = this->dev(P::table1);
    const int pfw = (int)w.cfg().pf_wait;
    w.push(0, 0x10, 1, 0);
    w.push(1, 0x20, 2, 0);
    w.push(0, 0x18, 3, 0);
    w.push(1, 0x28, 4, 0);
    wpq_gate_in in{};
    in.bdry_valid = 1; in.bdry_region = 0; in.back_valid = 1; in.back_region = 0;
    w.step(in);                                        // region 0 persisted, PM busy
    in = Drv::pin(1, 0x30, 5, 0);
    in.power_fail = 1;
    wpq_gate_out o = w.step(in);
    EXPECT_EQ(o.push_result, WPQ_OFF);
    EXPECT_EQ(o.pf, 1);
    std::vector<uint64_t> drained;
    int done_at = -1;
    for (int cyc = 0; cyc < 60 && done_at < 0; cyc++) {
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
    EXPECT_EQ(done_at, 10 + pfw);                      // the commit at 10, then PF_WAIT idle cycles
    EXPECT_TRUE(wpq_gate_pf_done(w.g));
    EXPECT_EQ(wpq_gate_count(w.g), 0u);
}

// The same with the other MC answering: region 0 persisted but queued behind a busy PM, region 1
// unpersisted; region 0 drains and commits on battery, region 1 is discarded.
TYPED_TEST_P(WpqBlock, PowerFailureOnePersistedOneNot)
{
    Drv w = this->dev(P::table1);
    wpq_gate_out o{};
    o = w.push(0, 0x10, 0xA0, 0);
    o = w.push(1, 0x20, 0xB0, 0);
    o = w.push(0, 0x18, 0xA1, 0);
    o = w.push(1, 0x28, 0xB1, 0);
    wpq_gate_in in{};
    in.bdry_valid = 1; in.bdry_region = 0; in.back_valid = 1; in.back_region = 0;
    o = w.step(in);                                    // region 0 persisted
    EXPECT_EQ(o.drain_valid, 0);
    in = Drv::pin(1, 0x30, 0xB2, 0);
    in.power_fail = 1;
    o = w.step(in);
    EXPECT_EQ(o.push_result, WPQ_OFF);
    std::vector<uint64_t> drained;
    int done = -1;
    for (int cyc = 0; cyc < 60 && done < 0; cyc++) {
        in = {};
        in.drain_ready = cyc >= 5;
        if (o.fack_out_valid) { in.fack_valid = 1; in.fack_region = o.fack_out_region; }
        o = w.step(in);
        if (o.drain_valid) drained.push_back(o.drain_data);
        if (o.pf_done_pulse) {
            done = cyc;
            EXPECT_EQ(o.discarded, 2);
            EXPECT_EQ(o.undo_restore, 0);
            EXPECT_EQ(o.flush_id, 1);
            EXPECT_EQ(o.count, 0);
        }
    }
    EXPECT_EQ(drained, (std::vector<uint64_t>{0xA0, 0xA1}));
    EXPECT_GE(done, 5 + 2 + (int)w.cfg().pf_wait);     // PF_WAIT idle cycles after the last progress
}

// Power failure in overflow mode, one controller: region 0 had an undo-logged write reach PM but
// its boundary never arrived: the undo log must be applied, the rest discarded.
TYPED_TEST_P(WpqBlock, PowerFailureInOverflowNeedsUndoRestore)
{
    Drv w = this->dev(P::one_mc);
    w.push(0, 1, 1, 0);
    for (uint32_t k = 1; k < w.cfg().entries; k++) w.push(1, 1 + k, 1 + k, 0);   // full: overflow
    wpq_gate_out o = w.idle(1);
    EXPECT_EQ(o.drain_undo, 1);
    wpq_gate_in in{};
    in.power_fail = 1;
    bool done = false;
    for (int i = 0; i < 20 && !done; i++) {
        o = w.step(in);
        in.power_fail = 0;
        in.drain_ready = 1;
        EXPECT_EQ(o.drain_valid, 0);                   // nothing persisted drains
        if (o.pf_done_pulse) {
            done = true;
            EXPECT_EQ(o.undo_restore, 1);
            EXPECT_EQ(o.discarded, w.cfg().entries - 1);
        }
    }
    EXPECT_TRUE(done);
}

// The same with two controllers: undo-logged first store of region 0, power fails.
TYPED_TEST_P(WpqBlock, PowerFailureInOverflowTwoControllers)
{
    Drv w = this->dev(P::small);
    wpq_gate_out o{};
    o = w.push(0, 1, 1, 0);
    o = w.push(0, 2, 2, 0);
    for (int k = 0; k < 2; k++) o = w.push(1, 8 + k, 8 + k, 0);
    EXPECT_EQ(o.overflow, 1);
    o = w.idle(1);
    EXPECT_EQ(o.drain_undo, 1);                  // region 0's first store, undo-logged
    wpq_gate_in in{};
    in.power_fail = 1;
    bool done = false;
    for (int c = 0; c < 20 && !done; c++) {
        o = w.step(in);
        in = {};
        in.drain_ready = 1;
        EXPECT_EQ(o.drain_valid, 0);             // nothing persisted may drain now
        if (o.pf_done_pulse) {
            done = true;
            EXPECT_EQ(o.undo_restore, 1);
            EXPECT_EQ(o.discarded, 3);
            EXPECT_EQ(o.flush_id, 0);            // recovery point: region 0 again
        }
    }
    EXPECT_TRUE(done);
}

TYPED_TEST_P(WpqBlock, RegionIdsWrap)
{
    Drv w = this->dev(P::one_mc);                       // RID_W 3, REGIONS 4
    for (int r = 0; r < 20; r++) {
        w.push(r & 7, r, r);
        wpq_gate_out o = w.bdry(r & 7);
        EXPECT_EQ(o.drain_valid, 1);
        EXPECT_EQ(o.drain_data, (uint64_t)r);
        EXPECT_EQ(o.flush_id, (r + 1) & 7);
    }
    EXPECT_FALSE(wpq_gate_err(w.g));
}

// Region 0's stores, then a store of the younger region 1 before region 0's boundary, PM always
// ready, one controller. Gated: nothing drains before boundary 0, then region 0 before region 1.
// Ungated: everything drains in arrival order as soon as it is queued; boundaries still commit.
inline std::vector<std::pair<int, uint32_t>> younger_one_mc(Drv &w, std::vector<int> *commits)
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

TYPED_TEST_P(WpqBlock, GatedHoldsYoungerRegionOneController)
{
    Drv w = this->dev(P::one_mc);
    std::vector<int> commits;
    auto d = younger_one_mc(w, &commits);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0], (std::pair<int, uint32_t>{5, 0}));       // only once boundary 0 arrived
    EXPECT_EQ(d[1], (std::pair<int, uint32_t>{6, 0}));
    EXPECT_EQ(d[2].second, 1u);
    EXPECT_GT(d[2].first, commits.at(0));                    // after region 0 committed
    EXPECT_EQ(commits.size(), 2u);
    EXPECT_EQ(wpq_gate_flush_id(w.g), 2u);
}

TYPED_TEST_P(WpqBlock, UngatedDrainsYoungerRegionOneController)
{
    Drv w = this->dev(P::one_mc_ungated);
    std::vector<int> commits;
    auto d = younger_one_mc(w, &commits);
    EXPECT_EQ(d, (std::vector<std::pair<int, uint32_t>>{{1, 0}, {2, 0}, {3, 1}}));
    EXPECT_LT(d[2].first, 5);                                // region 1 in PM before boundary 0
    EXPECT_EQ(commits, (std::vector<int>{5, 6}));            // the region protocol still commits
    EXPECT_EQ(wpq_gate_flush_id(w.g), 2u);
    EXPECT_EQ(wpq_gate_get_stats(w.g)->drains, 3u);
    EXPECT_EQ(wpq_gate_get_stats(w.g)->commits, 2u);
}

// The same sequence with two controllers (the other echoes ACKs).
inline void younger_two_mc(Drv &w, std::vector<std::pair<int, uint16_t>> *drains,
                           std::vector<std::pair<int, uint16_t>> *commits, wpq_gate_out *last)
{
    wpq_gate_out o{};
    std::deque<wpq_gate_in> script;
    script.push_back(Drv::pin(0, 0x100, 0x11));
    script.push_back(Drv::pin(0, 0x108, 0x12));
    script.push_back(Drv::pin(1, 0x100, 0x21));   // younger region, before boundary 0
    script.push_back(wpq_gate_in{});
    script.back().drain_ready = 1;
    wpq_gate_in bd{}; bd.bdry_valid = 1; bd.drain_ready = 1;
    bd.bdry_region = 0; script.push_back(bd);     // cycle 4: boundary 0
    bd.bdry_region = 1; script.push_back(bd);
    for (int cyc = 0; cyc < 20; cyc++) {
        wpq_gate_in in{};
        in.drain_ready = 1;
        if (!script.empty()) { in = script.front(); script.pop_front(); }
        if (o.bdry_ack_valid) { in.back_valid = 1; in.back_region = o.bdry_ack_region; }
        if (o.fack_out_valid) { in.fack_valid = 1; in.fack_region = o.fack_out_region; }
        o = w.step(in);
        if (o.drain_valid) { drains->push_back({cyc, o.drain_region}); EXPECT_EQ(o.drain_undo, 0); }
        if (o.commit_valid) commits->push_back({cyc, o.commit_region});
    }
    *last = o;
}

TYPED_TEST_P(WpqBlock, GatedHoldsYoungerRegionTwoControllers)
{
    Drv w = this->dev(P::table1);
    std::vector<std::pair<int, uint16_t>> d, c;
    wpq_gate_out o{};
    younger_two_mc(w, &d, &c, &o);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_GT(d[0].first, 4);                     // nothing before boundary 0 (+ the other MC's ACK)
    EXPECT_EQ(d[0].second, 0); EXPECT_EQ(d[1].second, 0); EXPECT_EQ(d[2].second, 1);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_LT(c[0].first, d[2].first);            // region 0 committed before region 1 drained
    EXPECT_EQ(o.flush_id, 2);
}

TYPED_TEST_P(WpqBlock, UngatedDrainsYoungerRegionTwoControllers)
{
    Drv w = this->dev(P::table1_ungated);
    std::vector<std::pair<int, uint16_t>> d, c;
    wpq_gate_out o{};
    younger_two_mc(w, &d, &c, &o);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d, (std::vector<std::pair<int, uint16_t>>{{1, 0}, {2, 0}, {3, 1}}));   // a cycle after queued
    EXPECT_LT(d[2].first, 4);                     // region 1 in PM before boundary 0 arrived
    EXPECT_EQ(c.size(), 2u);                      // the protocol still commits both regions
    EXPECT_EQ(o.flush_id, 2);
    EXPECT_EQ(o.overflow, 0);
}

// Ungated, two controllers: a region whose entries all drained before its boundary still needs
// the boundary, the other MC's bdry-ACK and its flush-ACK to commit (commit rule of gated mode).
TYPED_TEST_P(WpqBlock, UngatedCommitStillNeedsTheProtocol)
{
    Drv w = this->dev(P::table1_ungated);
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

// Ungated power failure: nothing is discarded. Entries of unpersisted regions drain on battery
// (ADR), the sequence ends only once the queue is empty and idle for PF_WAIT cycles. The same
// sequence gated discards all three (no region persisted).
TYPED_TEST_P(WpqBlock, UngatedPowerFailureDiscardsNothing)
{
    Drv w = this->dev(P::table1_ungated);
    const int pfw = (int)w.cfg().pf_wait;
    w.push(0, 0x10, 1, 0);
    w.push(1, 0x20, 2, 0);
    w.push(2, 0x28, 3, 0);                                   // no boundary ever arrives
    wpq_gate_in in = Drv::pin(1, 0x30, 4, 0);
    in.power_fail = 1;
    wpq_gate_out o = w.step(in);
    EXPECT_EQ(o.push_result, WPQ_OFF);
    std::vector<uint64_t> drained;
    int done_at = -1;
    for (int cyc = 0; cyc < 60 && done_at < 0; cyc++) {
        in = {};
        in.drain_ready = cyc >= 8;                           // PM busy: ungated waits while entries are left
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
    EXPECT_EQ(done_at, 10 + pfw);                            // last drain at 10, then PF_WAIT idle cycles
    EXPECT_TRUE(wpq_gate_pf_done(w.g));
    EXPECT_EQ(wpq_gate_get_stats(w.g)->discarded, 0u);
    Drv g = this->dev(P::table1);
    g.push(0, 0x10, 1, 0);
    g.push(1, 0x20, 2, 0);
    g.push(2, 0x28, 3, 0);
    in = {};
    in.power_fail = 1;
    o = g.step(in);
    uint32_t discarded = 0;
    for (int cyc = 0; cyc < 60 && !wpq_gate_pf_done(g.g); cyc++) {
        in = {};
        in.drain_ready = 1;
        o = g.step(in);
        EXPECT_EQ(o.drain_valid, 0);
        discarded += o.discarded;
    }
    EXPECT_EQ(discarded, 3u);
}

// Ungated power failure with PM busy, two controllers, small queue: no store accepted (a full
// queue just refuses, no overflow mode), every queued entry drains once PM is ready, then the
// sequence ends with nothing discarded.
TYPED_TEST_P(WpqBlock, UngatedPowerFailureDrainsEverything)
{
    Drv w = this->dev(P::small_ungated);
    wpq_gate_out o{};
    o = w.push(0, 1, 1, 0);
    o = w.push(1, 2, 2, 0);
    o = w.push(2, 3, 3, 0);
    o = w.push(1, 4, 4, 0);
    EXPECT_EQ(o.count, 4);
    o = w.push(1, 5, 5, 0);
    EXPECT_EQ(o.push_result, WPQ_FULL);           // full queue just refuses, no overflow mode
    EXPECT_EQ(o.overflow, 0);
    wpq_gate_in in = Drv::pin(0, 6, 6, 0);
    in.power_fail = 1;
    o = w.step(in);
    EXPECT_EQ(o.push_result, WPQ_OFF);
    std::vector<uint64_t> drained;
    bool done = false;
    for (int cyc = 0; cyc < 40 && !done; cyc++) {
        in = {};
        in.drain_ready = cyc >= 10;               // PM busy for longer than PF_WAIT: still waits
        o = w.step(in);
        if (o.drain_valid) drained.push_back(o.drain_data);
        if (o.pf_done_pulse) {
            done = true;
            EXPECT_GE(cyc, 10 + 4 - 1 + 3);       // last drain at cyc 13, then PF_WAIT idle cycles
            EXPECT_EQ(o.discarded, 0);
            EXPECT_EQ(o.undo_restore, 0);
            EXPECT_EQ(o.flush_id, 0);             // no boundary arrived: nothing committed
        }
    }
    EXPECT_TRUE(done);
    EXPECT_EQ(drained, (std::vector<uint64_t>{1, 2, 3, 4}));
}

// Property: with random traffic (one controller), drains follow region order, each region's
// stores in FIFO order, and no store drains before its region's boundary unless undo-logged.
TYPED_TEST_P(WpqBlock, RandomOrderProperty)
{
    Drv w = this->dev(P::one_mc);
    const uint32_t rmask = (1u << w.cfg().rid_bits) - 1, regions = w.cfg().regions;
    uint32_t x = 99;
    auto rnd = [&x]() { x = x * 1664525u + 1013904223u; return x >> 8; };
    uint32_t cur = 0, seq = 0;                  // writer region; data = (region << 20) | seq
    uint32_t last_region = 0, last_seq = 0;
    std::vector<bool> bdry_sent(rmask + 1, false);
    uint64_t drains = 0, undo = 0;
    for (int cyc = 0; cyc < 50000; cyc++) {
        wpq_gate_in in{};
        in.drain_ready = rnd() % 3 != 0;
        uint32_t fid = wpq_gate_flush_id(w.g);
        if (rnd() % 4 == 0 && ((cur - fid) & rmask) < regions - 1) {
            in.bdry_valid = 1; in.bdry_region = cur; bdry_sent[cur] = true; cur = (cur + 1) & rmask;
        } else if (rnd() & 1) {
            uint32_t r = (cur + rnd() % 2) & rmask;           // current or next region
            in.push_valid = 1; in.push_region = r; in.push_addr = rnd() & 0xFF;
            in.push_data = ((uint64_t)r << 20) | seq;
        }
        wpq_gate_out o = w.step(in);
        if (in.push_valid && (o.push_result == WPQ_OK || o.push_result == WPQ_BYPASS)) seq++;
        if (o.drain_valid) {
            drains++;
            undo += o.drain_undo;
            uint32_t r = (uint32_t)(o.drain_data >> 20), s = o.drain_data & 0xFFFFF;
            EXPECT_EQ(r, o.drain_region);
            if (!o.drain_undo) { EXPECT_TRUE(bdry_sent[r]); }
            EXPECT_EQ(r, fid) << "cycle " << cyc;            // region order: the flush-ID region
            if (drains > 1 && r == last_region) { EXPECT_GT(s, last_seq); }
            last_region = r; last_seq = s;
        }
        if (o.commit_valid) bdry_sent[o.commit_region] = false;   // region IDs wrap
        if (::testing::Test::HasFailure()) break;
    }
    EXPECT_GT(drains, 5000u) << "flush ID " << wpq_gate_flush_id(w.g) << " count " << wpq_gate_count(w.g) << " cur " << cur
                             << " overflow " << wpq_gate_overflow(w.g) << " last region " << last_region;
    EXPECT_GT(undo, 0u);
    EXPECT_FALSE(wpq_gate_err(w.g));
}

REGISTER_TYPED_TEST_SUITE_P(WpqBlock, Figure4OneController, Figure4TwoControllers,
                            TwoControllersNeedBdryAndFlushAcks, DrainReadyHoldsDrainAndOrderIsFifoWithinRegion,
                            LoadCamSearch, DeadlockOverflowWithUndoLog, DeadlockOverflowTwoControllers,
                            OverflowBypassWhenFullOfYoungerRegions, OverflowReenteredAfterCommit, BoundaryBeyondWindowWaits,
                            PowerFailureCommitsOnlyPersistedRegions, PowerFailureOnePersistedOneNot,
                            PowerFailureInOverflowNeedsUndoRestore, PowerFailureInOverflowTwoControllers,
                            RegionIdsWrap, GatedHoldsYoungerRegionOneController,
                            UngatedDrainsYoungerRegionOneController, GatedHoldsYoungerRegionTwoControllers,
                            UngatedDrainsYoungerRegionTwoControllers, UngatedCommitStillNeedsTheProtocol,
                            UngatedPowerFailureDiscardsNothing, UngatedPowerFailureDrainsEverything,
                            RandomOrderProperty);

} // namespace wpq_scen
