// Lockstep co-simulation of rtl/nvw_fifo.v against cores/nvw_fifo.c (nvw_fifo_step): the RTL backend
// of the block tests written once (tb/dut.h; the directed scenarios are in tb/nvw_fifo_scenarios.h
// and run here as ctest cosim.NvwRtl.*), and random lockstep runs per preset.
#include "cosim_common.h"
#include "nvw_fifo_scenarios.h"
#include "Vnvw_fifo_nvw_l1.h"
#include "Vnvw_fifo_nvw_l2.h"
#include "Vnvw_fifo_nvw_small.h"
#include "Vnvw_fifo_nvw_l2_pipelined.h"
#include "Vnvw_fifo_nvw_small_pipelined.h"
#include <algorithm>

namespace {

template <class V>
class NvwBench : public dut::NvwDut {
public:
    explicit NvwBench(const nvw_fifo_cfg &cfg) : cfg_(cfg), chk_("nvw_fifo", fmt)
    {
        mem_.resize(nvw_fifo_bytes(&cfg) / 8 + 1);
        f_ = reinterpret_cast<nvw_fifo *>(mem_.data());
        EXPECT_EQ(nvw_fifo_init(f_, &cfg), 0);
        pmask_ = (1ull << cfg.payload_bits) - 1;
    }
    // dut::NvwDut: one edge of both models, outputs compared; *out = the C core's outputs.
    bool step(const nvw_fifo_in &in, nvw_fifo_out *out) override { return step_in(in, out); }
    nvw_fifo *core() override { return f_; }
    const nvw_fifo_cfg &cfg() const override { return cfg_; }
    bool rtl() const override { return true; }

    // The inputs of a cycle as the mismatch report shows them.
    static std::string fmt(const void *raw)
    {
        const nvw_fifo_in &in = *static_cast<const nvw_fifo_in *>(raw);
        char buf[192];
        std::snprintf(buf, sizeof buf, "ack=%u ack_epoch=%u drain_all=%u out_ready=%u push_valid=%u push_marker=%u payload=0x%" PRIx64,
                      in.ack, in.ack_epoch, in.drain_all, in.out_ready, in.push_valid, in.push_marker, in.push_payload);
        return buf;
    }

    // One cycle on both models; returns false after a mismatch.
    bool step_in(nvw_fifo_in in, nvw_fifo_out *co = nullptr)
    {
        in.push_payload &= pmask_;
        chk_.input(cyc_, in);
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
            if (!step_in(in, &o)) return;
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
private:
    nvw_fifo_cfg cfg_;
    cosim::Dut<V> dut_;
    std::vector<uint64_t> mem_;
    nvw_fifo *f_;
    cosim::Checker chk_;
    uint64_t cyc_ = 0, pmask_ = 0;
};

// RTL lockstep backend of the typed block tests: an NvwBench of the preset's Verilated model.
#define NVW_RTL_(name, preset) \
    case dut::NvwPreset::name: return std::make_unique<NvwBench<Vnvw_fifo_##preset>>(dut::nvw_preset_cfg(p));
struct NvwRtl {
    static std::unique_ptr<dut::NvwDut> make(dut::NvwPreset p)
    {
        switch (p) { NVW_PRESETS(NVW_RTL_) }
        return nullptr;
    }
};

} // namespace

namespace nvw_scen {
INSTANTIATE_TYPED_TEST_SUITE_P(NvwRtl, NvwBlock, ::testing::Types<NvwRtl>);
}

namespace {

TEST(NvwFifo, Random_nvw_l1)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("nvw_fifo/nvw_l1", s, n);
    NvwBench<Vnvw_fifo_nvw_l1> b(rtlp_nvw_l1_cfg());
    cosim::Speed sp("nvw_fifo", "nvw_l1");
    b.random(s, n);
    sp.print(n);
}

TEST(NvwFifo, Random_nvw_l2)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("nvw_fifo/nvw_l2", s, n);
    NvwBench<Vnvw_fifo_nvw_l2> b(rtlp_nvw_l2_cfg());
    cosim::Speed sp("nvw_fifo", "nvw_l2");
    b.random(s + 1, n);
    sp.print(n);
}

TEST(NvwFifo, Random_nvw_small)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("nvw_fifo/nvw_small", s, n);
    NvwBench<Vnvw_fifo_nvw_small> b(rtlp_nvw_small_cfg());
    cosim::Speed sp("nvw_fifo", "nvw_small");
    b.random(s + 2, n);
    sp.print(n);
}

} // namespace

namespace {

TEST(NvwFifo, Random_nvw_l2_pipelined)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("nvw_fifo/nvw_l2_pipelined", s, n);
    NvwBench<Vnvw_fifo_nvw_l2_pipelined> b(rtlp_nvw_l2_pipelined_cfg());
    cosim::Speed sp("nvw_fifo", "nvw_l2_pipelined");
    b.random(s + 3, n);
    sp.print(n);
}

TEST(NvwFifo, Random_nvw_small_pipelined)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("nvw_fifo/nvw_small_pipelined", s, n);
    NvwBench<Vnvw_fifo_nvw_small_pipelined> b(rtlp_nvw_small_pipelined_cfg());
    cosim::Speed sp("nvw_fifo", "nvw_small_pipelined");
    b.random(s + 4, n);
    sp.print(n);
}

} // namespace
