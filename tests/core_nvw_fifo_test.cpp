// Unit tests of the NVW-FIFO core (cores/nvw_fifo.{h,c}): the directed block scenarios (written
// once, tb/nvw_fifo_scenarios.h) on the C backend, plus the tests of the transaction API, the
// configuration, and the cycle API against a reference queue that only the C core has.
#include <gtest/gtest.h>
#include <algorithm>
#include <deque>
#include <vector>
#include "nvw_fifo_scenarios.h"
extern "C" {
#include "nvw_fifo.h"
}

// ctest core.NvwC.*: the block scenarios on the C core alone (fast tier); the same scenarios run
// in lockstep with the RTL as ctest cosim.NvwRtl.* (tb/nvw_fifo_cosim.cpp).
namespace nvw_scen {
INSTANTIATE_TYPED_TEST_SUITE_P(NvwC, NvwBlock, ::testing::Types<dut::NvwC>);
}

namespace {

struct Fifo {
    std::vector<uint64_t> mem;
    nvw_fifo *f;
    explicit Fifo(uint32_t entries, uint32_t ack_mode, uint32_t max_out = 4, uint32_t max_markers = 0)
    {
        nvw_fifo_cfg c{entries, 48, ack_mode, max_out, max_markers};
        mem.resize(nvw_fifo_bytes(&c) / 8 + 1);
        f = reinterpret_cast<nvw_fifo *>(mem.data());
        EXPECT_EQ(nvw_fifo_init(f, &c), 0);
    }
};

TEST(NvwFifo, RejectsBadConfig)
{
    nvw_fifo_cfg c{0, 48, 0, 1, 0};
    std::vector<uint64_t> mem(64);
    EXPECT_EQ(nvw_fifo_init(mem.data(), &c), -1);
    c = {16, 64, 0, 1, 0};
    EXPECT_EQ(nvw_fifo_init(mem.data(), &c), -1);
    c = {16, 48, 2, 4, 0};          // ack_mode 2 needs a waiting-markers queue
    EXPECT_EQ(nvw_fifo_init(mem.data(), &c), -1);
    c = {16, 48, 2, 4, 65535};      // epoch numbers must fit 16 bits
    EXPECT_EQ(nvw_fifo_init(mem.data(), &c), -1);
    c = {16, 48, 3, 4, 1};
    EXPECT_EQ(nvw_fifo_init(mem.data(), &c), -1);
    c = {16, 48, 1, 4, 0};          // max_markers ignored outside ack_mode 2
    EXPECT_EQ(nvw_fifo_init(mem.data(), &c), 0);
    c = {16, 48, 2, 4, 4};
    EXPECT_EQ(nvw_fifo_bytes(&c), nvw_fifo_bytes(&c));
    nvw_fifo_cfg c1{16, 48, 1, 4, 4};
    EXPECT_GT(nvw_fifo_bytes(&c), nvw_fifo_bytes(&c1));   // the epoch ring is only there in mode 2
}

TEST(NvwFifo, WritesWaitForAMarker)
{
    Fifo q(16, 0);
    uint64_t p;
    EXPECT_EQ(nvw_fifo_push_write(q.f, 0xA), NVW_OK);
    EXPECT_EQ(nvw_fifo_push_write(q.f, 0xB), NVW_OK);
    EXPECT_EQ(nvw_fifo_drain(q.f, 1, &p), NVW_IDLE);          // buffered: no barrier yet
    EXPECT_EQ(nvw_fifo_push_flush(q.f, 7), NVW_OK);           // p_barrier_wi of workitem 7
    EXPECT_EQ(nvw_fifo_push_write(q.f, 0xC), NVW_OK);         // after the barrier
    EXPECT_EQ(nvw_fifo_drain(q.f, 0, &p), NVW_IDLE);          // downstream busy
    EXPECT_EQ(nvw_fifo_drain(q.f, 1, &p), NVW_WRITE);
    EXPECT_EQ(p, 0xAu);
    EXPECT_EQ(nvw_fifo_drain(q.f, 1, &p), NVW_WRITE);
    EXPECT_EQ(p, 0xBu);
    EXPECT_EQ(nvw_fifo_drain(q.f, 1, &p), NVW_MARKER);        // L1: marker goes to the L2 FIFO
    EXPECT_EQ(p, 7u);
    EXPECT_EQ(nvw_fifo_drain(q.f, 1, &p), NVW_IDLE);          // 0xC stays: no marker behind it
    EXPECT_EQ(nvw_fifo_count(q.f), 1u);
    EXPECT_EQ(nvw_fifo_markers(q.f), 0u);
}

// Section 6.1 steps 2-6 through an L1 FIFO and the L2 FIFO: the barrier completes only once
// every write-back before it is acknowledged by the NVRAM.
TEST(NvwFifo, L1ToL2PersistBarrier)
{
    Fifo l1(16, 0), l2(64, 1, 8);
    uint64_t p;
    nvw_fifo_push_write(l1.f, 0x100);
    nvw_fifo_push_write(l1.f, 0x140);
    nvw_fifo_push_flush(l1.f, 3);
    // L1 drains into L2
    for (;;) {
        nvw_action a = nvw_fifo_drain(l1.f, 1, &p);
        if (a == NVW_IDLE) break;
        if (a == NVW_WRITE) nvw_fifo_push_write(l2.f, p);
        if (a == NVW_MARKER) nvw_fifo_push_flush(l2.f, p);
    }
    EXPECT_EQ(nvw_fifo_count(l2.f), 3u);
    EXPECT_EQ(nvw_fifo_drain(l2.f, 1, &p), NVW_WRITE);
    EXPECT_EQ(nvw_fifo_drain(l2.f, 1, &p), NVW_WRITE);
    EXPECT_EQ(nvw_fifo_outstanding(l2.f), 2u);
    EXPECT_EQ(nvw_fifo_drain(l2.f, 1, &p), NVW_IDLE);         // marker waits for the acks
    nvw_fifo_ack(l2.f);
    EXPECT_EQ(nvw_fifo_drain(l2.f, 1, &p), NVW_IDLE);
    nvw_fifo_ack(l2.f);
    EXPECT_EQ(nvw_fifo_drain(l2.f, 0, &p), NVW_DONE);         // completion needs no downstream slot
    EXPECT_EQ(p, 3u);
    EXPECT_EQ(nvw_fifo_count(l2.f), 0u);
}

TEST(NvwFifo, FullFifoDrainsHeadAndOutstandingCap)
{
    Fifo q(4, 1, 2);
    uint64_t p;
    for (int i = 0; i < 4; i++) EXPECT_EQ(nvw_fifo_push_write(q.f, i), NVW_OK);
    EXPECT_EQ(nvw_fifo_push_write(q.f, 9), NVW_FULL);
    EXPECT_EQ(nvw_fifo_drain(q.f, 1, &p), NVW_WRITE);         // full: make room
    EXPECT_EQ(p, 0u);
    EXPECT_EQ(nvw_fifo_drain(q.f, 1, &p), NVW_IDLE);          // not full any more
    nvw_fifo_drain_all(q.f, 1);
    EXPECT_EQ(nvw_fifo_drain(q.f, 1, &p), NVW_WRITE);
    EXPECT_EQ(nvw_fifo_drain(q.f, 1, &p), NVW_IDLE);          // 2 outstanding = cap
    nvw_fifo_ack(q.f);
    EXPECT_EQ(nvw_fifo_drain(q.f, 1, &p), NVW_WRITE);
    EXPECT_EQ(p, 2u);
}

// ---- ack_mode 2 (pipelined L2) ----

// Drain everything possible now (as the SystemC wrapper does), recording the actions.
struct Act { nvw_action a; uint64_t p; uint32_t epoch; };
static std::vector<Act> drain_now(nvw_fifo *f)
{
    std::vector<Act> v;
    uint64_t p;
    for (nvw_action a; (a = nvw_fifo_drain(f, 1, &p)) != NVW_IDLE;)
        v.push_back({a, p, nvw_fifo_last_epoch(f)});
    return v;
}

TEST(NvwFifo, PipelinedWritesDrainBehindAWaitingMarker)
{
    Fifo q(16, 2, 64, 4);
    nvw_fifo_push_write(q.f, 0xA);
    nvw_fifo_push_flush(q.f, 1);
    nvw_fifo_push_write(q.f, 0xB);
    nvw_fifo_push_flush(q.f, 2);
    nvw_fifo_push_write(q.f, 0xC);    // no marker behind it: stays
    auto v = drain_now(q.f);
    ASSERT_EQ(v.size(), 4u);
    EXPECT_EQ(v[0].a, NVW_WRITE); EXPECT_EQ(v[0].p, 0xAu); EXPECT_EQ(v[0].epoch, 0u);
    EXPECT_EQ(v[1].a, NVW_WAIT);  EXPECT_EQ(v[1].p, 1u);   EXPECT_EQ(v[1].epoch, 0u);   // closes epoch 0
    EXPECT_EQ(v[2].a, NVW_WRITE); EXPECT_EQ(v[2].p, 0xBu); EXPECT_EQ(v[2].epoch, 1u);   // behind marker 1
    EXPECT_EQ(v[3].a, NVW_WAIT);  EXPECT_EQ(v[3].p, 2u);   EXPECT_EQ(v[3].epoch, 1u);
    EXPECT_EQ(nvw_fifo_waiting(q.f), 2u);
    EXPECT_EQ(nvw_fifo_outstanding(q.f), 2u);
    EXPECT_EQ(nvw_fifo_epoch_outstanding(q.f, 0), 1u);
    EXPECT_EQ(nvw_fifo_epoch_outstanding(q.f, 1), 1u);
    EXPECT_EQ(nvw_fifo_open_epoch(q.f), 2u);
    EXPECT_EQ(nvw_fifo_count(q.f), 1u);
    EXPECT_EQ(nvw_fifo_markers(q.f), 0u);                    // markers still in the FIFO
}

TEST(NvwFifo, PipelinedLaterEpochAckDoesNotRetireEarlierMarker)
{
    Fifo q(16, 2, 64, 4);
    nvw_fifo_push_write(q.f, 0xA);
    nvw_fifo_push_flush(q.f, 1);
    nvw_fifo_push_write(q.f, 0xB);
    nvw_fifo_push_flush(q.f, 2);
    nvw_fifo_push_flush(q.f, 3);      // empty epoch 2
    ASSERT_EQ(drain_now(q.f).size(), 5u);
    EXPECT_EQ(nvw_fifo_waiting(q.f), 3u);
    nvw_fifo_ack_epoch(q.f, 1);       // 0xB first: marker 2's epoch is empty, marker 1's is not
    EXPECT_TRUE(drain_now(q.f).empty());
    nvw_fifo_ack_epoch(q.f, 1);       // a second ack of epoch 1 is ignored
    nvw_fifo_ack_epoch(q.f, 7);       // out of range: ignored
    EXPECT_EQ(nvw_fifo_outstanding(q.f), 1u);
    EXPECT_TRUE(drain_now(q.f).empty());
    nvw_fifo_ack_epoch(q.f, 0);       // 0xA: all three retire, in order
    auto v = drain_now(q.f);
    ASSERT_EQ(v.size(), 3u);
    for (int i = 0; i < 3; i++) { EXPECT_EQ(v[i].a, NVW_DONE); EXPECT_EQ(v[i].p, (uint64_t)i + 1); }
    EXPECT_EQ(nvw_fifo_waiting(q.f), 0u);
    EXPECT_EQ(nvw_fifo_get_stats(q.f)->done, 3u);
    EXPECT_EQ(nvw_fifo_get_stats(q.f)->acks, 2u);
}

TEST(NvwFifo, PipelinedFullWaitingQueueBlocksTheHead)
{
    Fifo q(16, 2, 64, 2);             // 2 waiting markers, epochs 0..2
    nvw_fifo_push_write(q.f, 0xA);
    nvw_fifo_push_flush(q.f, 1);
    nvw_fifo_push_flush(q.f, 2);
    nvw_fifo_push_flush(q.f, 3);      // blocks: the queue holds markers 1 and 2
    nvw_fifo_push_write(q.f, 0xB);
    nvw_fifo_push_flush(q.f, 4);
    auto v = drain_now(q.f);
    ASSERT_EQ(v.size(), 3u);          // 0xA, marker 1, marker 2
    EXPECT_EQ(nvw_fifo_waiting(q.f), 2u);
    EXPECT_EQ(nvw_fifo_count(q.f), 3u);
    int m; uint64_t p;
    ASSERT_EQ(nvw_fifo_entry(q.f, 0, &m, &p), 0);
    EXPECT_TRUE(m); EXPECT_EQ(p, 3u);
    nvw_fifo_ack_epoch(q.f, v[0].epoch);   // frees epoch 0: 1 and 2 retire, 3 moves, 0xB drains
    v = drain_now(q.f);
    ASSERT_EQ(v.size(), 6u);
    EXPECT_EQ(v[0].a, NVW_DONE); EXPECT_EQ(v[0].p, 1u);
    EXPECT_EQ(v[1].a, NVW_DONE); EXPECT_EQ(v[1].p, 2u);
    EXPECT_EQ(v[2].a, NVW_WAIT); EXPECT_EQ(v[2].p, 3u); EXPECT_EQ(v[2].epoch, 2u);
    EXPECT_EQ(v[3].a, NVW_DONE); EXPECT_EQ(v[3].p, 3u);   // its epoch is empty
    EXPECT_EQ(v[4].a, NVW_WRITE); EXPECT_EQ(v[4].p, 0xBu); EXPECT_EQ(v[4].epoch, 0u);   // the ring wrapped
    EXPECT_EQ(v[5].a, NVW_WAIT); EXPECT_EQ(v[5].p, 4u); EXPECT_EQ(v[5].epoch, 0u);
    EXPECT_TRUE(drain_now(q.f).empty());   // marker 4 waits for 0xB
    nvw_fifo_ack(q.f);                // plain ack: the oldest epoch with an outstanding write-back
    v = drain_now(q.f);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].a, NVW_DONE); EXPECT_EQ(v[0].p, 4u);
}

// Cycle API of ack_mode 2 against a reference: FIFO, waiting markers with their epoch numbers
// (a running counter, ring slot = counter mod nep), outstanding write-backs per epoch.
TEST(NvwFifo, PipelinedRandomMatchesReference)
{
    const uint32_t E = 5, M = 3, MO = 4, nep = M + 1;
    Fifo q(E, 2, MO, M);
    std::deque<std::pair<bool, uint64_t>> ref;
    std::deque<std::pair<uint64_t, uint64_t>> waiting;   // (tag, epoch counter)
    std::vector<uint64_t> pend;                          // epoch counters of outstanding write-backs
    uint64_t open = 0, done = 0, full_wait = 0;
    uint32_t x = 777;
    auto rnd = [&x]() { x = x * 1664525u + 1013904223u; return x >> 8; };
    for (int cyc = 0; cyc < 100000; cyc++) {
        nvw_fifo_in in{};
        in.ack = rnd() % 3 == 0;
        uint64_t ack_ctr = ~0ull;
        if (in.ack) {
            if (!pend.empty() && rnd() % 8) {
                ack_ctr = pend[rnd() % pend.size()];
                in.ack_epoch = (uint16_t)(ack_ctr % nep);
            } else {
                in.ack_epoch = (uint16_t)(rnd() % (nep + 1));
            }
        }
        in.drain_all = rnd() % 16 == 0;
        in.out_ready = rnd() & 1;
        in.push_valid = rnd() & 1;
        in.push_marker = rnd() % 4 == 0;
        in.push_payload = rnd() & 0xFFFF;
        nvw_fifo_out o;
        nvw_fifo_step(q.f, &in, &o);
        // reference (1) ack: the live epoch counters map to distinct ring slots
        if (in.ack)
            for (size_t i = 0; i < pend.size(); i++)
                if (pend[i] % nep == in.ack_epoch) { pend.erase(pend.begin() + (long)i); break; }
        // (3a) retire
        bool rdone = false;
        if (!waiting.empty() &&
            std::none_of(pend.begin(), pend.end(), [&](uint64_t e) { return e == waiting.front().second; })) {
            ASSERT_TRUE(o.done_valid);
            EXPECT_EQ(o.done_tag, waiting.front().first);
            waiting.pop_front();
            rdone = true;
            done++;
        }
        if (!rdone) { EXPECT_FALSE(o.done_valid); }
        // (3b) head action
        uint32_t markers = 0;
        for (auto &e : ref) markers += e.first;
        bool draining = !ref.empty() && (markers || in.drain_all || ref.size() == E);
        bool out = false;
        if (draining) {
            auto h = ref.front();
            if (h.first && waiting.size() < M) {
                waiting.push_back({h.second, open++});
                ref.pop_front();
            } else if (h.first) {
                full_wait++;
            } else if (!h.first && in.out_ready && pend.size() < MO) {
                out = true;
                ASSERT_TRUE(o.out_valid);
                EXPECT_EQ(o.out_payload, h.second);
                EXPECT_EQ(o.out_epoch, open % nep);
                pend.push_back(open);
                ref.pop_front();
            }
        }
        if (!out) { EXPECT_FALSE(o.out_valid); }
        EXPECT_FALSE(o.out_marker);
        if (in.push_valid) {
            if (ref.size() < E) { ref.push_back({in.push_marker != 0, in.push_payload}); EXPECT_EQ(o.push_result, NVW_OK); }
            else EXPECT_EQ(o.push_result, NVW_FULL);
        }
        EXPECT_EQ(o.count, ref.size());
        EXPECT_EQ(o.outstanding, pend.size());
        EXPECT_EQ(o.waiting, waiting.size());
        if (::testing::Test::HasFailure()) { ADD_FAILURE() << "cycle " << cyc; return; }
    }
    EXPECT_GT(done, 1000u);
    EXPECT_GT(full_wait, 100u);
}

TEST(NvwFifo, RandomMatchesReferenceQueue)
{
    Fifo q(5, 1, 3);
    std::deque<std::pair<bool, uint64_t>> ref;
    uint32_t outstanding = 0, x = 4242;
    auto rnd = [&x]() { x = x * 1664525u + 1013904223u; return x >> 8; };
    uint64_t done = 0;
    for (int cyc = 0; cyc < 100000; cyc++) {
        nvw_fifo_in in{};
        in.ack = rnd() % 3 == 0;
        in.drain_all = rnd() % 16 == 0;
        in.out_ready = rnd() & 1;
        in.push_valid = rnd() & 1;
        in.push_marker = rnd() % 5 == 0;
        in.push_payload = rnd() & 0xFFFF;
        nvw_fifo_out o;
        nvw_fifo_step(q.f, &in, &o);
        // reference
        if (in.ack && outstanding) outstanding--;
        uint32_t markers = 0;
        for (auto &e : ref) markers += e.first;
        bool draining = !ref.empty() && (markers || in.drain_all || ref.size() == 5);
        if (draining) {
            auto h = ref.front();
            if (h.first && outstanding == 0) {
                ASSERT_TRUE(o.done_valid);
                EXPECT_EQ(o.done_tag, h.second);
                ref.pop_front();
                done++;
            } else if (!h.first && in.out_ready && outstanding < 3) {
                ASSERT_TRUE(o.out_valid);
                EXPECT_EQ(o.out_payload, h.second);
                outstanding++;
                ref.pop_front();
            } else {
                EXPECT_FALSE(o.out_valid || o.done_valid);
            }
        } else {
            EXPECT_FALSE(o.out_valid || o.done_valid);
        }
        if (in.push_valid) {
            if (ref.size() < 5) { ref.push_back({in.push_marker != 0, in.push_payload}); EXPECT_EQ(o.push_result, NVW_OK); }
            else EXPECT_EQ(o.push_result, NVW_FULL);
        }
        EXPECT_EQ(o.count, ref.size());
        EXPECT_EQ(o.outstanding, outstanding);
    }
    EXPECT_GT(done, 1000u);
}

} // namespace
