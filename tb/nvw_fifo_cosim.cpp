// Lockstep co-simulation of rtl/nvw_fifo.v against cores/nvw_fifo.c (nvw_fifo_step).
#include "cosim_common.h"
#include "Vnvw_fifo_nvw_l1.h"
#include "Vnvw_fifo_nvw_l2.h"
#include "Vnvw_fifo_nvw_small.h"
#include "Vnvw_fifo_nvw_l2_pipelined.h"
#include "Vnvw_fifo_nvw_small_pipelined.h"
#include <algorithm>

namespace {

template <class V>
class NvwBench {
public:
    explicit NvwBench(const nvw_fifo_cfg &cfg) : cfg_(cfg), chk_("nvw_fifo")
    {
        mem_.resize(nvw_fifo_bytes(&cfg) / 8 + 1);
        f_ = reinterpret_cast<nvw_fifo *>(mem_.data());
        EXPECT_EQ(nvw_fifo_init(f_, &cfg), 0);
        pmask_ = (1ull << cfg.payload_bits) - 1;
    }
    // One cycle on both models; returns false after a mismatch.
    bool step(nvw_fifo_in in, nvw_fifo_out *co = nullptr)
    {
        in.push_payload &= pmask_;
        char buf[192];
        std::snprintf(buf, sizeof buf, "ack=%u ack_epoch=%u drain_all=%u out_ready=%u push_valid=%u push_marker=%u payload=0x%" PRIx64,
                      in.ack, in.ack_epoch, in.drain_all, in.out_ready, in.push_valid, in.push_marker, in.push_payload);
        chk_.input(cyc_, buf);
        dut_->ack = in.ack;
        dut_->ack_epoch = in.ack_epoch;
        dut_->drain_all = in.drain_all;
        dut_->out_ready = in.out_ready;
        dut_->push_valid = in.push_valid;
        dut_->push_marker = in.push_marker;
        dut_->push_payload = in.push_payload;
        dut_.tick();
        nvw_fifo_out o;
        nvw_fifo_step(f_, &in, &o);
        if (co) *co = o;
        cyc_++;
        chk_.eq("push_result", dut_->push_result, o.push_result);
        chk_.eq("out_valid", dut_->out_valid, o.out_valid);
        chk_.eq("out_marker", dut_->out_marker, o.out_marker);
        chk_.eq("out_payload", dut_->out_payload, o.out_payload);
        chk_.eq("out_epoch", dut_->out_epoch, o.out_epoch);
        chk_.eq("done_valid", dut_->done_valid, o.done_valid);
        chk_.eq("done_tag", dut_->done_tag, o.done_tag);
        chk_.eq("count", dut_->count, o.count);
        chk_.eq("markers", dut_->markers, o.markers);
        chk_.eq("outstanding", dut_->outstanding, o.outstanding);
        chk_.eq("waiting", dut_->waiting, o.waiting);
        return chk_.ok();
    }
    void random(uint64_t seed, uint64_t n)
    {
        std::mt19937_64 rng(seed);
        uint32_t phase_left = 0, p_ready = 50, p_push = 50, p_marker = 10, p_ack = 30;
        // ACK_MODE 2: the epochs of the write-backs not yet acknowledged (the NVRAM side); acks
        // pick one of them at random (out of order across epochs), now and then a bogus epoch.
        std::vector<uint16_t> pending;
        const uint32_t nep = cfg_.max_markers + 1;
        uint64_t waiting_full = 0, write_behind_waiting = 0, bogus_acks = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (phase_left-- == 0) {   // change traffic mix every few hundred cycles
                phase_left = 50 + rng() % 400;
                p_ready = rng() % 101; p_push = rng() % 101; p_marker = rng() % 40; p_ack = rng() % 101;
            }
            nvw_fifo_in in{};
            in.ack = rng() % 100 < p_ack;
            if (cfg_.ack_mode == 2 && in.ack) {
                if (!pending.empty() && rng() % 16) {
                    size_t k = rng() % pending.size();
                    if (rng() % 2) k = 0;   // mostly in order, as an NVRAM would
                    in.ack_epoch = pending[k];
                } else {
                    in.ack_epoch = (uint16_t)(rng() % 4 ? rng() % (nep + 2) : rng());
                }
                auto it = std::find(pending.begin(), pending.end(), in.ack_epoch);
                if (it != pending.end()) pending.erase(it);
                else ++bogus_acks;
            }
            in.drain_all = rng() % 64 == 0;
            in.out_ready = rng() % 100 < p_ready;
            in.push_valid = rng() % 100 < p_push;
            in.push_marker = rng() % 100 < p_marker;
            in.push_payload = rng();
            const uint32_t waiting_before = nvw_fifo_waiting(f_);
            nvw_fifo_out o;
            if (!step(in, &o)) return;
            if (cfg_.ack_mode == 2) {
                if (o.out_valid) {
                    pending.push_back(o.out_epoch);
                    if (waiting_before) ++write_behind_waiting;
                }
                if (o.waiting == cfg_.max_markers) ++waiting_full;
            }
        }
        const nvw_fifo_stats *st = nvw_fifo_get_stats(f_);
        std::printf("cosim nvw_fifo: %" PRIu64 " cycles, %" PRIu64 " writes, %" PRIu64 " markers, %" PRIu64
                    " drained, %" PRIu64 " done, %" PRIu64 " full\n",
                    n, st->writes, st->markers, st->drained, st->done, st->full);
        if (cfg_.ack_mode == 2)
            std::printf("cosim nvw_fifo: ack_mode 2: %" PRIu64 " cycles with a full waiting queue, %" PRIu64
                        " writes behind a waiting marker, %" PRIu64 " bogus acks\n",
                        waiting_full, write_behind_waiting, bogus_acks);
        if (n >= 2000) {   // the stimulus must reach the interesting states
            EXPECT_GT(st->full, 0u);
            EXPECT_GT(cfg_.ack_mode ? st->done : st->drained, 0u);
            if (cfg_.ack_mode == 2) {
                EXPECT_GT(waiting_full, 0u);
                EXPECT_GT(write_behind_waiting, 0u);
                EXPECT_GT(bogus_acks, 0u);
            }
        }
    }
    nvw_fifo *core() { return f_; }

private:
    nvw_fifo_cfg cfg_;
    cosim::Dut<V> dut_;
    std::vector<uint64_t> mem_;
    nvw_fifo *f_;
    cosim::Checker chk_;
    uint64_t cyc_ = 0, pmask_ = 0;
};

// Section 6.1, p_barrier_wi: writes A, B, then a p_flush marker in the L1 NVW-FIFO; the marker
// pushes A and B into the L2 NVW-FIFO, follows them, and the L2 FIFO retires it only after the
// NVRAM acknowledged both write-backs. A write C after the barrier stays in L1.
TEST(NvwFifo, Directed_PersistBarrierL1ToL2)
{
    NvwBench<Vnvw_fifo_nvw_l1> l1(rtlp_nvw_l1_cfg());
    NvwBench<Vnvw_fifo_nvw_l2> l2(rtlp_nvw_l2_cfg());
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
        ASSERT_TRUE(l1.step(in1, &o1));
        ASSERT_TRUE(l2.step(in2, &o2));
        if (o2.out_valid) { to_nvram.push_back(o2.out_payload); acks_due++; }
        if (o2.done_valid) { EXPECT_EQ(o2.done_tag, 7u); EXPECT_EQ(acks_due, 0); done_cycle = cyc; }
    }
    EXPECT_EQ(to_nvram, (std::vector<uint64_t>{0xA0, 0xB0}));
    EXPECT_GT(done_cycle, 0);
    EXPECT_EQ(nvw_fifo_count(l1.core()), 1u);   // C is still buffered (no barrier behind it)
}

TEST(NvwFifo, Directed_FullFifoWrapAndAckCap)
{
    NvwBench<Vnvw_fifo_nvw_small> b(rtlp_nvw_small_cfg());   // 3 entries, 2 outstanding
    nvw_fifo_out o;
    for (int i = 0; i < 4; i++) {   // 4th push: full (drain happens first only when ready)
        nvw_fifo_in in{}; in.push_valid = 1; in.push_payload = 0x10 + i;
        ASSERT_TRUE(b.step(in, &o));
    }
    EXPECT_EQ(o.push_result, NVW_FULL);
    for (int i = 0; i < 6; i++) {   // two drain, then the outstanding cap (2) blocks the head
        nvw_fifo_in in{}; in.out_ready = 1; in.drain_all = 1; in.push_valid = 1;
        in.push_payload = 0x20 + i;
        ASSERT_TRUE(b.step(in, &o));
    }
    EXPECT_EQ(o.push_result, NVW_FULL);
    EXPECT_EQ(nvw_fifo_outstanding(b.core()), 2u);
    for (int i = 0; i < 8; i++) {   // acks free the cap; a marker behind the writes retires last
        nvw_fifo_in in{}; in.ack = 1; in.out_ready = 1; in.push_valid = i == 0; in.push_marker = 1;
        in.push_payload = 0x55;
        ASSERT_TRUE(b.step(in, &o));
        if (i == 0) { EXPECT_EQ(o.push_result, NVW_OK); }
        if (o.done_valid) { EXPECT_EQ(i, 4); EXPECT_EQ(o.done_tag, 0x55u); }
    }
    EXPECT_EQ(nvw_fifo_count(b.core()), 0u);
    EXPECT_EQ(nvw_fifo_get_stats(b.core())->done, 1u);
}

// ACK_MODE 2 (pipelined L2): writes A, B, marker 1, write C, marker 2, write D, marker 3. C and D
// drain while marker 1 waits; C's acknowledgement (epoch 1) comes first and must not retire
// marker 1; markers retire in order 1, 2, 3 once A and B (epoch 0) are acknowledged.
TEST(NvwFifo, Directed_PipelinedEpochs)
{
    NvwBench<Vnvw_fifo_nvw_l2_pipelined> b(rtlp_nvw_l2_pipelined_cfg());
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
        ASSERT_TRUE(b.step(in, &o));
        if (o.out_valid) { EXPECT_EQ(o.out_marker, 0); wb.emplace_back(o.out_payload, o.out_epoch); }
        if (o.done_valid) {
            done.push_back(o.done_tag);
            EXPECT_GE(cyc, 24) << "a marker retired before epoch 0 was acknowledged";
        }
        if (cyc == 12) { EXPECT_EQ(o.waiting, 3u); EXPECT_EQ(o.count, 0u); EXPECT_EQ(o.outstanding, 4u); }
    }
    EXPECT_EQ(wb, (std::vector<std::pair<uint64_t, uint16_t>>{{0xA0, 0}, {0xB0, 0}, {0xC0, 1}, {0xD0, 2}}));
    EXPECT_EQ(done, (std::vector<uint64_t>{1, 2, 3}));
    EXPECT_EQ(nvw_fifo_waiting(b.core()), 0u);
}

// ACK_MODE 2, MAX_MARKERS 2: a third marker at the head blocks the FIFO (a write behind it does
// not drain) until the oldest waiting marker retires.
TEST(NvwFifo, Directed_PipelinedFullWaitingQueueBlocks)
{
    NvwBench<Vnvw_fifo_nvw_small_pipelined> b(rtlp_nvw_small_pipelined_cfg());   // 3 entries, 2 markers
    nvw_fifo_out o{};
    auto cycle = [&](int push, int marker, uint64_t p, int ack = 0, uint16_t ep = 0) {
        nvw_fifo_in in{}; in.out_ready = 1; in.push_valid = (uint8_t)push; in.push_marker = (uint8_t)marker;
        in.push_payload = p; in.ack = (uint8_t)ack; in.ack_epoch = ep;
        EXPECT_TRUE(b.step(in, &o));
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
    EXPECT_EQ(nvw_fifo_count(b.core()), 1u);   // 0x20: no marker behind it
}

TEST(NvwFifo, Random_nvw_l1)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("nvw_fifo/nvw_l1", s, n);
    NvwBench<Vnvw_fifo_nvw_l1> b(rtlp_nvw_l1_cfg());
    b.random(s, n);
}

TEST(NvwFifo, Random_nvw_l2)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("nvw_fifo/nvw_l2", s, n);
    NvwBench<Vnvw_fifo_nvw_l2> b(rtlp_nvw_l2_cfg());
    b.random(s + 1, n);
}

TEST(NvwFifo, Random_nvw_small)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("nvw_fifo/nvw_small", s, n);
    NvwBench<Vnvw_fifo_nvw_small> b(rtlp_nvw_small_cfg());
    b.random(s + 2, n);
}

} // namespace

namespace {

TEST(NvwFifo, Random_nvw_l2_pipelined)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("nvw_fifo/nvw_l2_pipelined", s, n);
    NvwBench<Vnvw_fifo_nvw_l2_pipelined> b(rtlp_nvw_l2_pipelined_cfg());
    b.random(s + 3, n);
}

TEST(NvwFifo, Random_nvw_small_pipelined)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("nvw_fifo/nvw_small_pipelined", s, n);
    NvwBench<Vnvw_fifo_nvw_small_pipelined> b(rtlp_nvw_small_pipelined_cfg());
    b.random(s + 4, n);
}

} // namespace
