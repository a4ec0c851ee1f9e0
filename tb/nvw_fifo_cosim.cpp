// Lockstep co-simulation of rtl/nvw_fifo.v against cores/nvw_fifo.c (nvw_fifo_step).
#include "cosim_common.h"
#include "Vnvw_fifo_nvw_l1.h"
#include "Vnvw_fifo_nvw_l2.h"
#include "Vnvw_fifo_nvw_small.h"

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
        char buf[160];
        std::snprintf(buf, sizeof buf, "ack=%u drain_all=%u out_ready=%u push_valid=%u push_marker=%u payload=0x%" PRIx64,
                      in.ack, in.drain_all, in.out_ready, in.push_valid, in.push_marker, in.push_payload);
        chk_.input(cyc_, buf);
        dut_->ack = in.ack;
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
        chk_.eq("done_valid", dut_->done_valid, o.done_valid);
        chk_.eq("done_tag", dut_->done_tag, o.done_tag);
        chk_.eq("count", dut_->count, o.count);
        chk_.eq("markers", dut_->markers, o.markers);
        chk_.eq("outstanding", dut_->outstanding, o.outstanding);
        return chk_.ok();
    }
    void random(uint64_t seed, uint64_t n)
    {
        std::mt19937_64 rng(seed);
        uint32_t phase_left = 0, p_ready = 50, p_push = 50, p_marker = 10, p_ack = 30;
        for (uint64_t i = 0; i < n; i++) {
            if (phase_left-- == 0) {   // change traffic mix every few hundred cycles
                phase_left = 50 + rng() % 400;
                p_ready = rng() % 101; p_push = rng() % 101; p_marker = rng() % 40; p_ack = rng() % 101;
            }
            nvw_fifo_in in{};
            in.ack = rng() % 100 < p_ack;
            in.drain_all = rng() % 64 == 0;
            in.out_ready = rng() % 100 < p_ready;
            in.push_valid = rng() % 100 < p_push;
            in.push_marker = rng() % 100 < p_marker;
            in.push_payload = rng();
            if (!step(in)) return;
        }
        const nvw_fifo_stats *st = nvw_fifo_get_stats(f_);
        std::printf("cosim nvw_fifo: %" PRIu64 " cycles, %" PRIu64 " writes, %" PRIu64 " markers, %" PRIu64
                    " drained, %" PRIu64 " done, %" PRIu64 " full\n",
                    n, st->writes, st->markers, st->drained, st->done, st->full);
        if (n >= 2000) {   // the stimulus must reach the interesting states
            EXPECT_GT(st->full, 0u);
            EXPECT_GT(cfg_.ack_mode ? st->done : st->drained, 0u);
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
