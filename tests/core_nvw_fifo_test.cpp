// Unit tests of the NVW-FIFO core (cores/nvw_fifo.{h,c}).
#include <gtest/gtest.h>
#include <deque>
#include <vector>
extern "C" {
#include "nvw_fifo.h"
}

namespace {

struct Fifo {
    std::vector<uint64_t> mem;
    nvw_fifo *f;
    explicit Fifo(uint32_t entries, uint32_t ack_mode, uint32_t max_out = 4)
    {
        nvw_fifo_cfg c{entries, 48, ack_mode, max_out};
        mem.resize(nvw_fifo_bytes(&c) / 8 + 1);
        f = reinterpret_cast<nvw_fifo *>(mem.data());
        EXPECT_EQ(nvw_fifo_init(f, &c), 0);
    }
};

TEST(NvwFifo, RejectsBadConfig)
{
    nvw_fifo_cfg c{0, 48, 0, 1};
    std::vector<uint64_t> mem(64);
    EXPECT_EQ(nvw_fifo_init(mem.data(), &c), -1);
    c = {16, 64, 0, 1};
    EXPECT_EQ(nvw_fifo_init(mem.data(), &c), -1);
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
