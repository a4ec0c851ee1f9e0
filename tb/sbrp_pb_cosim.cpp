// Lockstep co-simulation of rtl/sbrp_pb.v against cores/sbrp_pb.c (sbrp_pb_step): the RTL backend
// of the block tests written once (tb/dut.h; the directed scenarios are in tb/sbrp_pb_scenarios.h
// and run here as ctest cosim.SbrpRtl.*), and random lockstep runs per preset.
#include "cosim_common.h"
#include "sbrp_pb_scenarios.h"
#include "Vsbrp_pb_sbrp_small.h"
#include "Vsbrp_pb_sbrp_table1.h"

namespace {

template <class V>
class SbrpBench : public dut::SbrpDut {
public:
    explicit SbrpBench(const sbrp_pb_cfg &cfg) : cfg_(cfg), chk_("sbrp_pb", fmt)
    {
        mem_.resize(sbrp_pb_bytes(&cfg) / 8 + 1);
        pb_ = reinterpret_cast<sbrp_pb *>(mem_.data());
        EXPECT_EQ(sbrp_pb_init(pb_, &cfg), 0);
        wmask_ = cfg.warps >= 64 ? ~0ull : (1ull << cfg.warps) - 1;
        pbidx_.assign(cfg.lines, SBRP_NO_ENTRY);
    }
    // dut::SbrpDut: one edge of both models, outputs compared; *out = the C core's outputs.
    bool step(const sbrp_pb_in &in, sbrp_pb_out *out) override { return step_in(in, out); }
    sbrp_pb *core() override { return pb_; }
    const sbrp_pb_cfg &cfg() const override { return cfg_; }
    bool rtl() const override { return true; }

    // The inputs of a cycle as the mismatch report shows them.
    static std::string fmt(const void *raw)
    {
        const sbrp_pb_in &in = *static_cast<const sbrp_pb_in *>(raw);
        char buf[200];
        std::snprintf(buf, sizeof buf, "ack=%u ack_phase=%u op=%u warp=%u fence_type=%u line=%u entry=%u flush_ready=%u drain_all=%u",
                      in.ack, in.ack_phase, in.op, in.warp, in.fence_type, in.line, in.entry, in.flush_ready, in.drain_all);
        return buf;
    }

    bool step_in(sbrp_pb_in in, sbrp_pb_out *co = nullptr)
    {
        in.op &= 3; in.warp &= 63; in.fence_type &= 7; in.ack_phase &= 1;
        chk_.input(cyc_, in);
        dut_->ack = in.ack;
        dut_->ack_phase = in.ack_phase;
        dut_->op = in.op;
        dut_->warp = in.warp;
        dut_->fence_type = in.fence_type;
        dut_->line = in.line;
        dut_->entry = in.entry;
        dut_->flush_ready = in.flush_ready;
        dut_->drain_all = in.drain_all;
        dut_.tick();
        sbrp_pb_out o;
        sbrp_pb_step(pb_, &in, &o);
        if (co) *co = o;
        cyc_++;
        chk_.eq("result", dut_->result, o.result);
        chk_.eq("entry", dut_->entry_out, o.entry);
        chk_.eq("flush_valid", dut_->flush_valid, o.flush_valid);
        chk_.eq("flush_line", dut_->flush_line, o.flush_line);
        chk_.eq("flush_phase", dut_->flush_phase, o.flush_phase);
        chk_.eq("evict_valid", dut_->evict_valid, o.evict_valid);
        chk_.eq("evict_line", dut_->evict_line, o.evict_line);
        chk_.eq("evict_phase", dut_->evict_phase, o.evict_phase);
        chk_.eq("odm", dut_->odm, o.odm & wmask_);
        chk_.eq("edm", dut_->edm, o.edm & wmask_);
        chk_.eq("fsm", dut_->fsm, o.fsm & wmask_);
        chk_.eq("stalled", dut_->stalled, o.stalled & wmask_);
        chk_.eq("actr", dut_->actr, o.actr);
        chk_.eq("count", dut_->count, o.count);
        // the L1 side: pb_index of each line
        if (in.op == SBRP_IN_STORE && (o.result == SBRP_ALLOCATED || o.result == SBRP_OK) &&
            o.entry != SBRP_NO_ENTRY && in.line < cfg_.lines)
            pbidx_[in.line] = o.entry;
        if (o.flush_valid && o.flush_line < cfg_.lines) pbidx_[o.flush_line] = SBRP_NO_ENTRY;
        if (o.evict_valid && o.evict_line < cfg_.lines) pbidx_[o.evict_line] = SBRP_NO_ENTRY;
        if (o.flush_valid) inflight_.push_back(o.flush_phase);
        if (o.evict_valid) inflight_.push_back(o.evict_phase);
        last_ = o;
        return chk_.ok();
    }
    // Random traffic shaped like an SM: stores to a small set of lines through the L1's
    // pb_index map, fences of every type, evictions of buffered lines, flush back-pressure and
    // acknowledgements from the persistence domain; warps mostly respect their stall bits.
    void random(uint64_t seed, uint64_t n)
    {
        std::mt19937_64 rng(seed);
        uint32_t phase = 0, p_op = 70, p_store = 60, p_fence = 20, p_ready = 50, p_ack = 30, p_drain_all = 0;
        uint64_t flushes = 0, evicts = 0, stall_order = 0, stall_full = 0, stall_fence = 0, fsm_seen = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (phase-- == 0) {
                phase = 30 + rng() % 300;
                p_op = rng() % 101; p_store = 30 + rng() % 60; p_fence = rng() % 40;
                p_ready = rng() % 101; p_ack = rng() % 101; p_drain_all = rng() % 4 == 0 ? 100 : 0;
            }
            sbrp_pb_in in{};
            if (rng() % 100 < p_ack) pick_ack(in, rng);
            in.flush_ready = rng() % 100 < p_ready;
            in.drain_all = rng() % 100 < p_drain_all;
            if (rng() % 100 < p_op) {
                uint32_t w = rng() % (cfg_.warps + (rng() % 32 == 0 ? 2 : 0));   // rarely an invalid warp
                for (int tries = 0; tries < 4 && w < 64 && (last_.stalled >> w & 1) && rng() % 8; tries++)
                    w = rng() % cfg_.warps;                                  // the scheduler holds stalled warps
                in.warp = (uint8_t)w;
                uint32_t k = rng() % 100;
                uint32_t lines = std::min<uint32_t>(cfg_.lines, 12);
                if (k < p_store) {
                    in.op = SBRP_IN_STORE;
                    in.line = (uint16_t)(rng() % 64 == 0 ? cfg_.lines + rng() % 4 : rng() % lines);
                    in.entry = in.line < cfg_.lines ? pbidx_[in.line] : SBRP_NO_ENTRY;
                    if (rng() % 64 == 0) in.entry = (uint16_t)(rng() % (cfg_.entries + 2));   // stale index
                } else if (k < p_store + p_fence) {
                    in.op = SBRP_IN_FENCE;
                    in.fence_type = (uint8_t)(rng() % 8);                    // 0 and 7 are invalid
                } else {
                    in.op = SBRP_IN_EVICT;
                    uint32_t l = rng() % lines;
                    in.entry = pbidx_[l];
                    if (in.entry == SBRP_NO_ENTRY || rng() % 16 == 0) in.entry = (uint16_t)(rng() % (cfg_.entries + 2));
                }
            }
            if (!step_in(in)) return;
            flushes += last_.flush_valid; evicts += last_.evict_valid;
            stall_order += last_.result == SBRP_STALL_ORDER; stall_full += last_.result == SBRP_STALL_FULL;
            stall_fence += last_.result == SBRP_STALL_FENCE; fsm_seen += last_.fsm != 0;
        }
        std::printf("cosim sbrp_pb: %" PRIu64 " cycles, %" PRIu64 " flushes, %" PRIu64 " evictions, %" PRIu64
                    " order stalls, %" PRIu64 " full stalls, %" PRIu64 " fence stalls, %" PRIu64 " cycles with FSM\n",
                    n, flushes, evicts, stall_order, stall_full, stall_fence, fsm_seen);
        if (n >= 20000) {
            EXPECT_GT(flushes, 100u);
            EXPECT_GT(evicts, 10u);
            EXPECT_GT(stall_order, 10u);
            EXPECT_GT(stall_fence, 10u);
            EXPECT_GT(fsm_seen, 10u);
        }
    }

private:
    sbrp_pb_cfg cfg_;
    cosim::Dut<V> dut_;
    std::vector<uint64_t> mem_;
    sbrp_pb *pb_;
    cosim::Checker chk_;
    uint64_t cyc_ = 0, wmask_ = 0;
    std::vector<uint16_t> pbidx_;
    std::deque<uint8_t> inflight_;   // phases of flushed/evicted writes not yet acknowledged
    sbrp_pb_out last_{};

public:
    // The persistence domain acknowledges one in-flight write (mostly in order); fills ack/phase.
    void pick_ack(sbrp_pb_in &in, std::mt19937_64 &rng)
    {
        if (inflight_.empty()) {
            if (rng() % 16 == 0) { in.ack = 1; in.ack_phase = rng() & 1; }   // spurious: ignored
            return;
        }
        size_t k = rng() % 2 == 0 ? rng() % inflight_.size() : 0;   // out-of-order acks too
        in.ack = 1;
        in.ack_phase = inflight_[k];
        inflight_.erase(inflight_.begin() + (long)k);
    }
};

// RTL lockstep backend of the typed block tests: an SbrpBench of the preset's Verilated model.
#define SBRP_RTL_(name, preset) \
    case dut::SbrpPreset::name: return std::make_unique<SbrpBench<Vsbrp_pb_##preset>>(dut::sbrp_preset_cfg(p));
struct SbrpRtl {
    static std::unique_ptr<dut::SbrpDut> make(dut::SbrpPreset p)
    {
        switch (p) { SBRP_PRESETS(SBRP_RTL_) }
        return nullptr;
    }
};

} // namespace

namespace sbrp_scen {
INSTANTIATE_TYPED_TEST_SUITE_P(SbrpRtl, SbrpBlock, ::testing::Types<SbrpRtl>);
}

namespace {


TEST(SbrpPb, Random_sbrp_table1)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("sbrp_pb/sbrp_table1", s, n);
    SbrpBench<Vsbrp_pb_sbrp_table1> b(rtlp_sbrp_table1_cfg());
    cosim::Speed sp("sbrp_pb", "sbrp_table1");
    b.random(s, n);
    sp.print(n);
}

TEST(SbrpPb, Random_sbrp_small)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("sbrp_pb/sbrp_small", s, n);
    SbrpBench<Vsbrp_pb_sbrp_small> b(rtlp_sbrp_small_cfg());
    cosim::Speed sp("sbrp_pb", "sbrp_small");
    b.random(s + 1, n);
    sp.print(n);
}

} // namespace
