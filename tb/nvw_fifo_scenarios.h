// Directed block tests of the NVW-FIFO (cores/nvw_fifo, rtl/nvw_fifo.v), written once (issue 22)
// as GoogleTest typed tests on the device-under-test interface (tb/dut.h). Instantiated with the C
// backend in tests/core_nvw_fifo_test.cpp (ctest `core.NvwC.*`, fast tier) and with the RTL
// lockstep backend in tb/nvw_fifo_cosim.cpp (ctest `cosim.NvwRtl.*`). The tests of the C core's
// transaction API and configuration stay in tests/core_nvw_fifo_test.cpp; the random lockstep
// runs in the cosim file.
#pragma once
#include "nvw_fifo_dut.h"
#include <deque>
#include <utility>
#include <vector>

namespace nvw_scen {

template <class B>
class NvwBlock : public ::testing::Test {};
TYPED_TEST_SUITE_P(NvwBlock);

// Section 6.1, p_barrier_wi: writes A, B, then a p_flush marker in the L1 NVW-FIFO; the marker
// pushes A and B into the L2 NVW-FIFO, follows them, and the L2 FIFO retires it only after the
// NVRAM acknowledged both write-backs. A write C after the barrier stays in L1.
TYPED_TEST_P(NvwBlock, PersistBarrierL1ToL2)
{
    auto l1 = TypeParam::make(dut::NvwPreset::l1);
    auto l2 = TypeParam::make(dut::NvwPreset::l2);
    std::deque<nvw_fifo_in> script;
    auto push = [&](int marker, uint64_t p) {
        nvw_fifo_in in{}; in.push_valid = 1; in.push_marker = (uint8_t)marker; in.push_payload = p;
        in.out_ready = 1; script.push_back(in);
    };
    push(0, 0xA0); push(0, 0xB0); push(1, 7); push(0, 0xC0);
    nvw_fifo_out o1{}, o2{};
    int acks_due = 0, done_cycle = -1;
    std::vector<uint64_t> to_nvram;
    for (int cyc = 0; cyc < 40; cyc++) {
        nvw_fifo_in in1{};
        in1.out_ready = 1;
        if (!script.empty()) { in1 = script.front(); script.pop_front(); }
        // L2 receives what L1 emitted at the previous edge
        nvw_fifo_in in2{};
        in2.out_ready = 1;
        in2.push_valid = o1.out_valid; in2.push_marker = o1.out_marker; in2.push_payload = o1.out_payload;
        in2.ack = acks_due > 0 && cyc % 3 == 0;   // slow NVRAM
        if (in2.ack) acks_due--;
        ASSERT_TRUE(l1->step(in1, &o1));
        ASSERT_TRUE(l2->step(in2, &o2));
        if (o2.out_valid) { to_nvram.push_back(o2.out_payload); acks_due++; }
        if (o2.done_valid) { EXPECT_EQ(o2.done_tag, 7u); EXPECT_EQ(acks_due, 0); done_cycle = cyc; }
    }
    EXPECT_EQ(to_nvram, (std::vector<uint64_t>{0xA0, 0xB0}));
    EXPECT_GT(done_cycle, 0);
    EXPECT_EQ(nvw_fifo_count(l1->core()), 1u);   // C is still buffered (no barrier behind it)
}

TYPED_TEST_P(NvwBlock, FullFifoWrapAndAckCap)
{
    auto b = TypeParam::make(dut::NvwPreset::small);   // 3 entries, 2 outstanding
    nvw_fifo_out o;
    for (int i = 0; i < 4; i++) {   // 4th push: full (drain happens first only when ready)
        nvw_fifo_in in{}; in.push_valid = 1; in.push_payload = 0x10 + i;
        ASSERT_TRUE(b->step(in, &o));
    }
    EXPECT_EQ(o.push_result, NVW_FULL);
    for (int i = 0; i < 6; i++) {   // two drain, then the outstanding cap (2) blocks the head
        nvw_fifo_in in{}; in.out_ready = 1; in.drain_all = 1; in.push_valid = 1;
        in.push_payload = 0x20 + i;
        ASSERT_TRUE(b->step(in, &o));
    }
    EXPECT_EQ(o.push_result, NVW_FULL);
    EXPECT_EQ(nvw_fifo_outstanding(b->core()), 2u);
    for (int i = 0; i < 8; i++) {   // acks free the cap; a marker behind the writes retires last
        nvw_fifo_in in{}; in.ack = 1; in.out_ready = 1; in.push_valid = i == 0; in.push_marker = 1;
        in.push_payload = 0x55;
        ASSERT_TRUE(b->step(in, &o));
        if (i == 0) { EXPECT_EQ(o.push_result, NVW_OK); }
        if (o.done_valid) { EXPECT_EQ(i, 4); EXPECT_EQ(o.done_tag, 0x55u); }
    }
    EXPECT_EQ(nvw_fifo_count(b->core()), 0u);
    EXPECT_EQ(nvw_fifo_get_stats(b->core())->done, 1u);
}

// ACK_MODE 2 (pipelined L2): writes A, B, marker 1, write C, marker 2, write D, marker 3. C and D
// drain while marker 1 waits; C's acknowledgement (epoch 1) comes first and must not retire
// marker 1; markers retire in order 1, 2, 3 once A and B (epoch 0) are acknowledged.
TYPED_TEST_P(NvwBlock, PipelinedEpochs)
{
    auto b = TypeParam::make(dut::NvwPreset::l2_pipelined);
    std::deque<nvw_fifo_in> script;
    auto push = [&](int marker, uint64_t p) {
        nvw_fifo_in in{}; in.push_valid = 1; in.push_marker = (uint8_t)marker; in.push_payload = p;
        in.out_ready = 1; script.push_back(in);
    };
    push(0, 0xA0); push(0, 0xB0); push(1, 1); push(0, 0xC0); push(1, 2); push(0, 0xD0); push(1, 3);
    std::vector<std::pair<uint64_t, uint16_t>> wb;   // (line, epoch) written back
    std::vector<uint64_t> done;
    nvw_fifo_out o{};
    for (int cyc = 0; cyc < 40; cyc++) {
        nvw_fifo_in in{};
        in.out_ready = 1;
        if (!script.empty()) { in = script.front(); script.pop_front(); }
        if (cyc == 14) { in.ack = 1; in.ack_epoch = 1; }          // C first
        if (cyc == 15) { in.ack = 1; in.ack_epoch = 2; }          // D
        if (cyc == 20) { in.ack = 1; in.ack_epoch = 0; }          // A
        if (cyc == 24) { in.ack = 1; in.ack_epoch = 0; }          // B
        ASSERT_TRUE(b->step(in, &o));
        if (o.out_valid) { EXPECT_EQ(o.out_marker, 0); wb.emplace_back(o.out_payload, o.out_epoch); }
        if (o.done_valid) {
            done.push_back(o.done_tag);
            EXPECT_GE(cyc, 24) << "a marker retired before epoch 0 was acknowledged";
        }
        if (cyc == 12) { EXPECT_EQ(o.waiting, 3u); EXPECT_EQ(o.count, 0u); EXPECT_EQ(o.outstanding, 4u); }
    }
    EXPECT_EQ(wb, (std::vector<std::pair<uint64_t, uint16_t>>{{0xA0, 0}, {0xB0, 0}, {0xC0, 1}, {0xD0, 2}}));
    EXPECT_EQ(done, (std::vector<uint64_t>{1, 2, 3}));
    EXPECT_EQ(nvw_fifo_waiting(b->core()), 0u);
}

// ACK_MODE 2, MAX_MARKERS 2: a third marker at the head blocks the FIFO (a write behind it does
// not drain) until the oldest waiting marker retires.
TYPED_TEST_P(NvwBlock, PipelinedFullWaitingQueueBlocks)
{
    auto b = TypeParam::make(dut::NvwPreset::small_pipelined);   // 3 entries, 2 markers
    nvw_fifo_out o{};
    auto cycle = [&](int push, int marker, uint64_t p, int ack = 0, uint16_t ep = 0) {
        nvw_fifo_in in{}; in.out_ready = 1; in.push_valid = (uint8_t)push; in.push_marker = (uint8_t)marker;
        in.push_payload = p; in.ack = (uint8_t)ack; in.ack_epoch = ep;
        EXPECT_TRUE(b->step(in, &o));
    };
    cycle(1, 0, 0x10);      // write, epoch 0
    cycle(1, 1, 1);         // marker 1
    cycle(0, 0, 0);         // write 0x10 leaves (epoch 0)
    EXPECT_TRUE(o.out_valid); EXPECT_EQ(o.out_epoch, 0u);
    cycle(1, 1, 2);         // marker 1 waits; marker 2 queued
    EXPECT_EQ(o.waiting, 1u);
    cycle(1, 1, 3);         // marker 2 waits (its epoch 1 is empty, but marker 1 is older)
    EXPECT_EQ(o.waiting, 2u); EXPECT_FALSE(o.done_valid);
    cycle(1, 0, 0x20);      // marker 3 at the head, queue full: blocks; 0x20 behind it
    for (int i = 0; i < 4; i++) { cycle(0, 0, 0); EXPECT_FALSE(o.out_valid); EXPECT_FALSE(o.done_valid); }
    EXPECT_EQ(o.waiting, 2u); EXPECT_EQ(o.count, 2u);
    cycle(0, 0, 0, 1, 0);   // ack 0x10: marker 1 retires, marker 3 takes the freed slot
    EXPECT_TRUE(o.done_valid); EXPECT_EQ(o.done_tag, 1u); EXPECT_EQ(o.waiting, 2u); EXPECT_EQ(o.count, 1u);
    cycle(0, 0, 0);         // marker 2 retires; 0x20 drains? only while the FIFO drains
    EXPECT_TRUE(o.done_valid); EXPECT_EQ(o.done_tag, 2u);
    cycle(0, 0, 0);         // marker 3 retires (its epoch is empty)
    EXPECT_TRUE(o.done_valid); EXPECT_EQ(o.done_tag, 3u);
    EXPECT_EQ(nvw_fifo_count(b->core()), 1u);   // 0x20: no marker behind it
}

REGISTER_TYPED_TEST_SUITE_P(NvwBlock, PersistBarrierL1ToL2, FullFifoWrapAndAckCap, PipelinedEpochs,
                            PipelinedFullWaitingQueueBlocks);

} // namespace nvw_scen
