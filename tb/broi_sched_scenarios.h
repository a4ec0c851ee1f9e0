// Directed block tests of the BROI scheduler (cores/broi_sched, rtl/broi_sched.v), written once
// (issue 22) as GoogleTest typed tests on the device-under-test interface (tb/dut.h). Instantiated
// with the C backend in tests/core_broi_sched_test.cpp (ctest `core.BroiC.*`, fast tier) and with
// the RTL lockstep backend in tb/broi_sched_cosim.cpp (ctest `cosim.BroiRtl.*`). The tests of the
// C core's transaction API, configuration and reference models stay in
// tests/core_broi_sched_test.cpp; the random lockstep runs in the cosim file.
#pragma once
#include "broi_sched_dut.h"
#include <vector>

namespace broi_scen {

// One request (barrier 0) or barrier (barrier 1) offered to `entry`.
inline broi_sched_in op(int barrier, uint8_t entry, uint8_t bank = 0, uint8_t tag = 0)
{
    broi_sched_in in{};
    in.in_valid = 1; in.in_barrier = (uint8_t)barrier; in.in_entry = entry; in.in_bank = bank; in.in_tag = tag;
    return in;   // bank_ready = 0: nothing issues while the scenario is loaded
}

// Completions of the requests issued at the last cycle (lane = bank), as a system reports them.
inline broi_sched_in complete(dut::BroiDut &d, const broi_sched_out &o, const std::vector<uint64_t> &line,
                              const std::vector<uint64_t> &time, uint64_t now = 0)
{
    broi_sched_in in{};
    in.now = now;
    for (uint32_t b = 0; b < d.cfg().banks; b++)
        if (o.issue_valid >> b & 1u) {
            in.cpl_valid |= 1u << b;
            in.cpl_entry[b] = o.issue_entry[b];
            in.cpl_line[b] = line[b];
            in.cpl_time[b] = time[b];
        }
    return in;
}

template <class B>
class BroiBlock : public ::testing::Test {};
TYPED_TEST_SUITE_P(BroiBlock);

// Figure 6(c): Ready-SET (1.1, 1.2, 2.1, 3.1), all in bank 0; entry 1 has 2.2 (bank 1) behind a
// barrier. The scheduler picks 2.1 first, issues entry 1's barrier, and 2.2 joins the Ready-SET.
TYPED_TEST_P(BroiBlock, Figure6c)
{
    auto b = TypeParam::make(dut::BroiPreset::table2);
    broi_sched_out o;
    ASSERT_TRUE(b->step(op(0, 0, 0, 0x1), &o));   // 1.1
    ASSERT_TRUE(b->step(op(0, 0, 0, 0x2), &o));   // 1.2
    ASSERT_TRUE(b->step(op(0, 1, 0, 0x3), &o));   // 2.1
    ASSERT_TRUE(b->step(op(1, 1), &o));           // barrier
    EXPECT_EQ(o.result, BROI_OK);
    ASSERT_TRUE(b->step(op(0, 1, 1, 0x4), &o));   // 2.2
    ASSERT_TRUE(b->step(op(0, 2, 0, 0x5), &o));   // 3.1
    EXPECT_EQ(broi_sched_key(b->core(), 1), 44u);
    EXPECT_GT(broi_sched_key(b->core(), 1), broi_sched_key(b->core(), 0));
    EXPECT_GT(broi_sched_key(b->core(), 1), broi_sched_key(b->core(), 2));
    broi_sched_in go{};
    go.bank_ready = 0xFF;
    ASSERT_TRUE(b->step(go, &o));
    EXPECT_EQ(o.issue_valid, 1u);                // Sch-SET = (2.1)
    EXPECT_EQ(o.issue_entry[0], 1);
    EXPECT_EQ(o.issue_tag[0], 0x3);
    EXPECT_EQ(o.barrier, 1u << 1);               // SubReady-SET drained: barrier to the MC
    ASSERT_TRUE(b->step(go, &o));                 // Ready-SET (1.1, 1.2, 2.2, 3.1)
    EXPECT_EQ(o.issue_valid, 3u);
    EXPECT_EQ(o.issue_tag[1], 0x4);              // 2.2 on bank 1 in parallel
    EXPECT_EQ(o.issue_tag[0], 0x5);              // 3.1 (smaller set) before 1.1
    ASSERT_TRUE(b->step(go, &o));
    EXPECT_EQ(o.issue_tag[0], 0x1);
    ASSERT_TRUE(b->step(go, &o));
    EXPECT_EQ(o.issue_tag[0], 0x2);
    EXPECT_EQ(o.occupancy, 0);
}

TYPED_TEST_P(BroiBlock, RemoteStarvation)
{
    auto b = TypeParam::make(dut::BroiPreset::small);   // 3 local + 1 remote, starve 5
    broi_sched_out o;
    ASSERT_TRUE(b->step(op(0, 3, 2, 5), &o));     // remote request, bank 2
    broi_sched_in busy{};
    busy.bank_ready = 0xF;                        // banks free but the MC queue is not "low"
    int granted = -1;
    for (int c = 0; c < 12 && granted < 0; c++) {
        broi_sched_in in = busy;
        in.in_valid = 1; in.in_entry = (uint8_t)(c % 3); in.in_bank = 2; in.in_tag = 1;   // local traffic on bank 2
        ASSERT_TRUE(b->step(in, &o));
        if ((o.issue_valid >> 2 & 1) && o.issue_entry[2] == 3) granted = c;
    }
    EXPECT_EQ(granted, 5);                        // waits exactly STARVE steps, then wins over locals
}

TYPED_TEST_P(BroiBlock, BarrierRegisters)
{
    auto b = TypeParam::make(dut::BroiPreset::table2);
    broi_sched_out o;
    ASSERT_TRUE(b->step(op(1, 0), &o));
    EXPECT_EQ(o.result, BROI_MERGED);
    ASSERT_TRUE(b->step(op(0, 0, 3, 1), &o));
    ASSERT_TRUE(b->step(op(1, 0), &o));
    EXPECT_EQ(o.result, BROI_OK);
    ASSERT_TRUE(b->step(op(0, 0, 3, 2), &o));
    ASSERT_TRUE(b->step(op(1, 0), &o));
    EXPECT_EQ(o.result, BROI_OK);
    ASSERT_TRUE(b->step(op(0, 0, 3, 3), &o));
    ASSERT_TRUE(b->step(op(1, 0), &o));
    EXPECT_EQ(o.result, BROI_FULL);               // two barrier index registers in use
    ASSERT_TRUE(b->step(op(0, 9, 0, 0), &o));
    ASSERT_TRUE(b->step(op(1, 9), &o));
    EXPECT_EQ(o.result, BROI_OK);
    ASSERT_TRUE(b->step(op(0, 9, 0, 0), &o));
    ASSERT_TRUE(b->step(op(1, 9), &o));
    EXPECT_EQ(o.result, BROI_FULL);               // remote entry: one register
    ASSERT_TRUE(b->step(op(0, 12, 0, 0), &o));
    EXPECT_EQ(o.result, BROI_BAD);
    broi_sched_in go{};
    go.bank_ready = 0xFF; go.mc_low = 1;
    std::vector<int> tags;
    for (int c = 0; c < 8; c++) {
        ASSERT_TRUE(b->step(go, &o));
        if (o.issue_valid >> 3 & 1) tags.push_back(o.issue_tag[3]);
    }
    EXPECT_EQ(tags, (std::vector<int>{1, 2, 3}));  // one epoch per step, in order
}

// Figure 6(c) with the serial scheduler (SERIAL 1, 10 entries): same issue order as the parallel
// one, but a decision only at the last cycle of each 10-cycle sweep.
TYPED_TEST_P(BroiBlock, Figure6cSerial)
{
    auto b = TypeParam::make(dut::BroiPreset::table2_serial);
    broi_sched_out o;
    ASSERT_TRUE(b->step(op(0, 0, 0, 0x1), &o));   // 1.1
    ASSERT_TRUE(b->step(op(0, 0, 0, 0x2), &o));   // 1.2
    ASSERT_TRUE(b->step(op(0, 1, 0, 0x3), &o));   // 2.1
    ASSERT_TRUE(b->step(op(1, 1), &o));           // barrier
    ASSERT_TRUE(b->step(op(0, 1, 1, 0x4), &o));   // 2.2
    ASSERT_TRUE(b->step(op(0, 2, 0, 0x5), &o));   // 3.1
    broi_sched_in idle{};
    while (broi_sched_sweep_pos(b->core()) != 0) ASSERT_TRUE(b->step(idle, &o));   // align to a sweep
    broi_sched_in go{};
    go.bank_ready = 0xFF;
    std::vector<int> when, tags;
    for (int c = 0; c < 60; c++) {
        ASSERT_TRUE(b->step(go, &o));
        for (int k = 0; k < 8; k++)
            if (o.issue_valid >> k & 1) { when.push_back(c); tags.push_back(o.issue_tag[k]); }
        if (o.issue_valid) { EXPECT_EQ(c % 10, 9); }   // decisions at the last cycle of a sweep
        if (c % 10 != 9) { EXPECT_EQ(o.barrier, 0u); }
    }
    EXPECT_EQ(tags, (std::vector<int>{0x3, 0x5, 0x4, 0x1, 0x2}));   // 2.1; 3.1 (bank 0) with 2.2 (bank 1); 1.1; 1.2
    EXPECT_EQ(when, (std::vector<int>{9, 19, 19, 29, 39}));
    EXPECT_EQ(o.occupancy, 0);
}

// ORDER 1, barrier sets: entry 0 holds A (bank 0), barrier, B (bank 1), C (bank 2); entry 1 holds D
// (bank 3). A and D issue at the first step (floor 0) and entry 0's barrier issues; their
// completions (A at 100, D at 900) come back at the next cycle, where B and C open entry 0's next
// set: both start no earlier than A's completion, not D's (another entry). A third set waits for
// the later of B and C.
TYPED_TEST_P(BroiBlock, OrderBarrierSetFloor)
{
    auto b = TypeParam::make(dut::BroiPreset::table2_order);
    broi_sched_out o;
    ASSERT_TRUE(b->step(op(0, 0, 0, 1), &o));     // A
    ASSERT_TRUE(b->step(op(1, 0), &o));
    ASSERT_TRUE(b->step(op(0, 0, 1, 2), &o));     // B
    ASSERT_TRUE(b->step(op(0, 0, 2, 3), &o));     // C
    ASSERT_TRUE(b->step(op(1, 0), &o));
    ASSERT_TRUE(b->step(op(0, 1, 3, 4), &o));     // D
    broi_sched_in go{};
    go.bank_ready = 0xFF;
    go.now = 10;
    ASSERT_TRUE(b->step(go, &o));
    EXPECT_EQ(o.issue_valid, 0x9u);              // A (bank 0), D (bank 3)
    EXPECT_EQ(o.issue_floor[0], 0u);
    EXPECT_EQ(o.barrier, 1u);
    broi_sched_in in = complete(*b, o, {7, 0, 0, 8, 0, 0, 0, 0}, {100, 0, 0, 900, 0, 0, 0, 0}, 20);
    in.bank_ready = 0xFF;
    ASSERT_TRUE(b->step(in, &o));
    EXPECT_EQ(o.cpl_done[0], 100u);
    EXPECT_EQ(o.cpl_done[3], 900u);
    EXPECT_EQ(o.issue_valid, 0x6u);              // B, C
    EXPECT_EQ(o.issue_floor[1], 100u);           // behind A
    EXPECT_EQ(o.issue_floor[2], 100u);
    EXPECT_EQ(broi_sched_floor(b->core(), 0), 100u);
    EXPECT_EQ(broi_sched_floor(b->core(), 1), 0u);
    ASSERT_TRUE(b->step(op(0, 0, 4, 5), &o));      // E after the second barrier (issued above)
    broi_sched_in c2{};
    c2.now = 30;
    c2.cpl_valid = 0x6; c2.cpl_entry[1] = 0; c2.cpl_entry[2] = 0;
    c2.cpl_line[1] = 1; c2.cpl_line[2] = 2; c2.cpl_time[1] = 400; c2.cpl_time[2] = 300;
    c2.bank_ready = 0xFF;
    ASSERT_TRUE(b->step(c2, &o));
    EXPECT_EQ(o.issue_valid, 0x10u);             // E
    EXPECT_EQ(o.issue_floor[4], 400u);           // the later of B and C
}

// ORDER 1, per-line order: completions of one line keep their report (issue) order while the line
// has a write in flight; a line whose last write completed (done <= now) is free again.
TYPED_TEST_P(BroiBlock, OrderLineOrder)
{
    auto b = TypeParam::make(dut::BroiPreset::small);   // 4 line slots
    broi_sched_out o;
    broi_sched_in in{};
    in.now = 10;
    in.cpl_valid = 0x3;                          // lane 0 then lane 1, both line 5
    in.cpl_line[0] = 5; in.cpl_time[0] = 500;
    in.cpl_line[1] = 5; in.cpl_time[1] = 300;    // the later write would finish first
    ASSERT_TRUE(b->step(in, &o));
    EXPECT_EQ(o.cpl_done[0], 500u);
    EXPECT_EQ(o.cpl_done[1], 500u);              // held behind the earlier one
    in = broi_sched_in{};
    in.now = 400; in.cpl_valid = 0x1; in.cpl_line[0] = 5; in.cpl_time[0] = 450;
    ASSERT_TRUE(b->step(in, &o));
    EXPECT_EQ(o.cpl_done[0], 500u);
    in.now = 500; in.cpl_time[0] = 510;          // line 5 done at 500 <= now: free
    ASSERT_TRUE(b->step(in, &o));
    EXPECT_EQ(o.cpl_done[0], 510u);
    // four other lines fill the table; a fifth is not remembered, the first is still in order
    in = broi_sched_in{};
    in.now = 600; in.cpl_valid = 0xF;
    for (int c = 0; c < 4; c++) { in.cpl_line[c] = (uint64_t)c; in.cpl_time[c] = 700 + (uint64_t)c; }
    ASSERT_TRUE(b->step(in, &o));
    in.cpl_valid = 0x3; in.cpl_line[0] = 6; in.cpl_time[0] = 650; in.cpl_line[1] = 0; in.cpl_time[1] = 640;
    ASSERT_TRUE(b->step(in, &o));
    EXPECT_EQ(o.cpl_done[0], 650u);
    EXPECT_EQ(o.cpl_done[1], 700u);
    EXPECT_EQ(broi_sched_get_stats(b->core())->line_overflow, 1u);
}

// ORDER 1 with MERGE 1: global epochs are one more floor. Entry 0: A (bank 0), barrier, B (bank 1);
// entry 1: D (bank 2). A and D form global epoch 0, which closes at the first step; B (epoch 1)
// starts after D (another thread's write of epoch 0) too, not only after A.
TYPED_TEST_P(BroiBlock, OrderMergeGlobalFloor)
{
    auto b = TypeParam::make(dut::BroiPreset::table2_merge);
    broi_sched_out o;
    ASSERT_TRUE(b->step(op(0, 0, 0, 1), &o));     // A
    ASSERT_TRUE(b->step(op(1, 0), &o));
    ASSERT_TRUE(b->step(op(0, 0, 1, 2), &o));     // B
    ASSERT_TRUE(b->step(op(0, 1, 2, 3), &o));     // D
    broi_sched_in go{};
    go.bank_ready = 0xFF;
    ASSERT_TRUE(b->step(go, &o));
    EXPECT_EQ(o.issue_valid, 0x5u);              // A, D
    EXPECT_EQ(o.epoch_done, 1);
    broi_sched_in in = complete(*b, o, {1, 0, 2, 0, 0, 0, 0, 0}, {100, 0, 700, 0, 0, 0, 0, 0}, 5);
    in.bank_ready = 0xFF;
    ASSERT_TRUE(b->step(in, &o));
    EXPECT_EQ(o.issue_valid, 0x2u);              // B
    EXPECT_EQ(o.issue_floor[1], 700u);
    EXPECT_EQ(broi_sched_floor(b->core(), 0), 100u);                          // its entry's own floor
    EXPECT_EQ(broi_sched_floor(b->core(), broi_sched_entries(b->core())), 700u);   // the global one
}

// Figure 3(a) with MERGE 1 (the Epoch baseline, cores/broi_sched epoch_merge): thread 1: 1.1, 1.2
// (bank 0), barrier, 1.3 (bank 1); thread 2: 2.1 (bank 0), barrier, 2.2 (bank 2); thread 3: 3.1
// (bank 0), barrier, 3.2 (bank 3). Global epoch 0 = (1.1, 1.2, 2.1, 3.1) in entry order on bank 0;
// then (1.3, 2.2, 3.2) together, though their banks were free all along.
TYPED_TEST_P(BroiBlock, Figure3aMerge)
{
    auto b = TypeParam::make(dut::BroiPreset::table2_merge);
    broi_sched_out o;
    ASSERT_TRUE(b->step(op(0, 0, 0, 0x1), &o));   // 1.1
    ASSERT_TRUE(b->step(op(0, 0, 0, 0x2), &o));   // 1.2
    ASSERT_TRUE(b->step(op(1, 0), &o));
    ASSERT_TRUE(b->step(op(0, 0, 1, 0x3), &o));   // 1.3
    ASSERT_TRUE(b->step(op(0, 1, 0, 0x4), &o));   // 2.1
    ASSERT_TRUE(b->step(op(1, 1), &o));
    ASSERT_TRUE(b->step(op(0, 1, 2, 0x5), &o));   // 2.2
    ASSERT_TRUE(b->step(op(0, 2, 0, 0x6), &o));   // 3.1
    ASSERT_TRUE(b->step(op(1, 2), &o));
    ASSERT_TRUE(b->step(op(0, 2, 3, 0x7), &o));   // 3.2
    broi_sched_in go{};
    go.bank_ready = 0xFF;
    std::vector<std::vector<int>> steps;
    std::vector<int> done;
    for (int c = 0; c < 6; c++) {
        ASSERT_TRUE(b->step(go, &o));
        std::vector<int> t;
        for (int k = 0; k < 8; k++)
            if (o.issue_valid >> k & 1) t.push_back(o.issue_tag[k]);
        steps.push_back(t);
        done.push_back(o.epoch_done);
    }
    EXPECT_EQ(steps[0], (std::vector<int>{0x1}));
    EXPECT_EQ(steps[1], (std::vector<int>{0x2}));
    EXPECT_EQ(steps[2], (std::vector<int>{0x4}));
    EXPECT_EQ(steps[3], (std::vector<int>{0x6}));
    EXPECT_EQ(steps[4], (std::vector<int>{0x3, 0x5, 0x7}));
    EXPECT_EQ(done, (std::vector<int>{0, 0, 0, 1, 0, 0}));   // epoch 0 closes as 3.1 issues
    EXPECT_EQ(o.occupancy, 0);
}

REGISTER_TYPED_TEST_SUITE_P(BroiBlock, Figure6c, RemoteStarvation, BarrierRegisters, Figure6cSerial,
                            OrderBarrierSetFloor, OrderLineOrder, OrderMergeGlobalFloor, Figure3aMerge);

} // namespace broi_scen
