// Directed block tests of the SBRP persist buffer (cores/sbrp_pb, rtl/sbrp_pb.v), written once
// (issue 22) as GoogleTest typed tests on the device-under-test interface (tb/dut.h). Instantiated
// with the C backend in tests/core_sbrp_pb_test.cpp (ctest `core.SbrpC.*`, fast tier) and with
// the RTL lockstep backend in tb/sbrp_pb_cosim.cpp (ctest `cosim.SbrpRtl.*`). The tests of the
// C core's transaction API stay in tests/core_sbrp_pb_test.cpp; the random lockstep runs in the
// cosim file.
#pragma once
#include "sbrp_pb_dut.h"
#include <deque>
#include <vector>

namespace sbrp_scen {

// A device plus the environment the scenarios need: the writes in flight to the persistence
// domain (phases of flushes and evictions not yet acknowledged). A C/RTL mismatch fails the step.
struct Drv {
    std::unique_ptr<dut::SbrpDut> d;
    std::deque<uint8_t> inflight;
    explicit Drv(std::unique_ptr<dut::SbrpDut> x) : d(std::move(x)) {}
    sbrp_pb *core() { return d->core(); }
    bool step(const sbrp_pb_in &in, sbrp_pb_out *o)
    {
        bool ok = d->step(in, o);
        if (o->flush_valid) inflight.push_back(o->flush_phase);
        if (o->evict_valid) inflight.push_back(o->evict_phase);
        return ok;
    }
    // Acknowledge the oldest in-flight write (if any).
    void ack_oldest(sbrp_pb_in &in)
    {
        if (inflight.empty()) return;
        in.ack = 1;
        in.ack_phase = inflight.front();
        inflight.pop_front();
    }
};

inline sbrp_pb_in store(uint8_t warp, uint16_t line, uint16_t entry)
{
    sbrp_pb_in in{};
    in.op = SBRP_IN_STORE; in.warp = warp; in.line = line; in.entry = entry;
    return in;
}

template <class B>
class SbrpBlock : public ::testing::Test {
protected:
    static Drv dev(dut::SbrpPreset p) { return Drv(B::make(p)); }
};
TYPED_TEST_SUITE_P(SbrpBlock);

// Section 6.1: a thread (warp 0) sets pX = a, pY = b, issues an oFence, then pX = c. The second
// persist on pX may neither modify the line nor take a new PB entry until the first one is
// durable: the warp waits in the EDM while pX and pY flush and until ACTR returns to zero.
TYPED_TEST_P(SbrpBlock, Section61StallExample)
{
    Drv b = this->dev(dut::SbrpPreset::table1);
    const uint16_t X = 10, Y = 11;
    sbrp_pb_out o;
    ASSERT_TRUE(b.step(store(0, X, SBRP_NO_ENTRY), &o));       // (1) pX = a
    ASSERT_EQ(o.result, SBRP_ALLOCATED);
    const uint16_t ex = o.entry;
    ASSERT_TRUE(b.step(store(0, Y, SBRP_NO_ENTRY), &o));       // (2) pY = b
    ASSERT_EQ(o.result, SBRP_ALLOCATED);
    sbrp_pb_in f{};
    f.op = SBRP_IN_FENCE; f.warp = 0; f.fence_type = SBRP_OFENCE;
    ASSERT_TRUE(b.step(f, &o));                                 // (3) oFence: no stall
    EXPECT_EQ(o.result, SBRP_OK);
    EXPECT_EQ(o.count, 3);
    ASSERT_TRUE(b.step(store(0, X, ex), &o));                   // (4) pX = c
    EXPECT_EQ(o.result, SBRP_STALL_ORDER);
    EXPECT_EQ(o.edm, 1u);
    EXPECT_EQ(o.count, 3);                                      // neither coalesced nor allocated
    // another warp's store to pX still coalesces (no ordering entry of warp 1 after PB_k)
    ASSERT_TRUE(b.step(store(1, X, ex), &o));
    EXPECT_EQ(o.result, SBRP_OK);
    // the PB drains: pX flushes in phase 0; warp 0's target has left, so it now waits for a drain
    // point: the phase flips and pY flushes in phase 1 while warp 0 waits for phase 0 only
    std::vector<uint16_t> flushed;
    std::vector<int> phases;
    sbrp_pb_in go{};
    go.flush_ready = 1;
    for (int c = 0; c < 4; c++) {
        ASSERT_TRUE(b.step(go, &o));
        if (o.flush_valid) { flushed.push_back(o.flush_line); phases.push_back(o.flush_phase); }
        EXPECT_EQ(o.edm, 1u);                                   // still waiting: not durable yet
    }
    EXPECT_EQ(flushed, (std::vector<uint16_t>{X, Y}));
    EXPECT_EQ(phases, (std::vector<int>{0, 1}));
    EXPECT_EQ(o.actr, 2);
    EXPECT_EQ(o.fsm, 1u);                                       // the oFence retired over in-flight persists
    sbrp_pb_in a{};
    b.ack_oldest(a);                                            // pX = a acknowledged (phase 0)
    ASSERT_TRUE(b.step(a, &o));
    EXPECT_EQ(o.actr, 1);
    EXPECT_EQ(o.edm, 0u);                                       // warp 0 resumes: pX = a is durable
    ASSERT_TRUE(b.step(store(0, X, SBRP_NO_ENTRY), &o));       // the retried pX = c proceeds
    EXPECT_EQ(o.result, SBRP_ALLOCATED);
    // the new pX is ordered after the oFence: the FSM holds it until pY (phase 1) is acknowledged
    for (int c = 0; c < 3; c++) {
        ASSERT_TRUE(b.step(go, &o));
        EXPECT_FALSE(o.flush_valid);
        EXPECT_EQ(o.fsm, 1u);
    }
    EXPECT_EQ(o.count, 1);
    b.ack_oldest(go);                                           // pY acknowledged
    ASSERT_TRUE(b.step(go, &o));                                // ack clears FSM[1] first
    EXPECT_TRUE(o.flush_valid);
    EXPECT_EQ(o.flush_line, X);
    EXPECT_EQ(o.fsm, 0u);
    sbrp_pb_in last{};
    b.ack_oldest(last);                                         // pX = c acknowledged
    ASSERT_TRUE(b.step(last, &o));
    EXPECT_EQ(o.count, 0);
    EXPECT_EQ(o.actr, 0);
    const sbrp_pb_stats *st = sbrp_pb_get_stats(b.core());
    EXPECT_EQ(st->allocated, 3u);
    EXPECT_EQ(st->flushes, 3u);
    EXPECT_EQ(st->acks, 3u);
    EXPECT_EQ(st->stall_order, 1u);
    EXPECT_EQ(st->fsm_blocks, 1u);                              // one episode, not one per cycle
}

// dFence: the warp stalls in ODM, moves to EDM when the entry reaches the head, resumes at ACTR 0.
TYPED_TEST_P(SbrpBlock, DFenceOdmEdm)
{
    Drv b = this->dev(dut::SbrpPreset::small);
    sbrp_pb_out o;
    ASSERT_TRUE(b.step(store(2, 3, SBRP_NO_ENTRY), &o));
    sbrp_pb_in f{};
    f.op = SBRP_IN_FENCE; f.warp = 2; f.fence_type = SBRP_DFENCE;
    ASSERT_TRUE(b.step(f, &o));
    EXPECT_EQ(o.result, SBRP_STALL_FENCE);
    EXPECT_EQ(o.odm, 1u << 2);
    sbrp_pb_in go{};
    go.flush_ready = 1;
    ASSERT_TRUE(b.step(go, &o));                                // persist flushes (window 2)
    EXPECT_TRUE(o.flush_valid);
    ASSERT_TRUE(b.step(go, &o));                                // dFence at the head: ODM -> EDM
    EXPECT_EQ(o.odm, 0u);
    EXPECT_EQ(o.edm, 1u << 2);
    sbrp_pb_in a{};
    a.ack = 1;
    ASSERT_TRUE(b.step(a, &o));
    EXPECT_EQ(o.edm, 0u);
    EXPECT_EQ(o.stalled, 0u);
}

// Full PB (4 entries), fence coalescing, evictions leaving holes, wrap-around of head and tail.
TYPED_TEST_P(SbrpBlock, FullEvictWrap)
{
    Drv b = this->dev(dut::SbrpPreset::small);
    sbrp_pb_out o;
    uint16_t e[4];
    for (uint16_t l = 0; l < 4; l++) {
        ASSERT_TRUE(b.step(store(l % 4, l, SBRP_NO_ENTRY), &o));
        ASSERT_EQ(o.result, SBRP_ALLOCATED);
        e[l] = o.entry;
    }
    ASSERT_TRUE(b.step(store(0, 5, SBRP_NO_ENTRY), &o));
    EXPECT_EQ(o.result, SBRP_STALL_FULL);
    EXPECT_EQ(o.stalled, 1u);
    sbrp_pb_in ev{};
    ev.op = SBRP_IN_EVICT; ev.warp = 1; ev.entry = e[2];      // middle entry: leaves a hole
    ASSERT_TRUE(b.step(ev, &o));
    EXPECT_TRUE(o.evict_valid);
    EXPECT_EQ(o.evict_line, 2);
    EXPECT_EQ(o.count, 3);
    ev.entry = e[3];                                             // tail entry: tail retracts over the hole
    ASSERT_TRUE(b.step(ev, &o));
    EXPECT_EQ(o.stalled, 0u);                                    // a slot became allocatable
    for (int k = 0; k < 3; k++) {                                // fences coalesce into one entry
        sbrp_pb_in f{};
        f.op = SBRP_IN_FENCE; f.warp = (uint8_t)k; f.fence_type = SBRP_REL_BLK;
        ASSERT_TRUE(b.step(f, &o));
    }
    EXPECT_EQ(o.count, 3);
    ASSERT_TRUE(b.step(store(3, 6, SBRP_NO_ENTRY), &o));
    EXPECT_EQ(o.result, SBRP_ALLOCATED);                         // wraps to slot 0..1
    ev.entry = o.entry;
    ASSERT_TRUE(b.step(ev, &o));
    EXPECT_EQ(o.result, SBRP_STALL_ORDER);                       // an ordering entry precedes it
    for (int c = 0; c < 16; c++) {
        sbrp_pb_in go{};
        go.flush_ready = 1;
        b.ack_oldest(go);
        ASSERT_TRUE(b.step(go, &o));
    }
    EXPECT_EQ(o.count, 0);
    EXPECT_EQ(o.actr, 0);
    EXPECT_EQ(o.stalled, 0u);
}

REGISTER_TYPED_TEST_SUITE_P(SbrpBlock, Section61StallExample, DFenceOdmEdm, FullEvictWrap);

} // namespace sbrp_scen
