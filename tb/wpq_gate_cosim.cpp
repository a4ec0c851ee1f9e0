// Lockstep co-simulation of rtl/wpq_gate.v against cores/wpq_gate.c (wpq_gate_step): the RTL
// backend of the block tests written once (tb/dut.h; the directed scenarios are in
// tb/wpq_gate_scenarios.h and run here as ctest cosim.WpqRtl.*), and random lockstep runs per preset.
#include "cosim_common.h"
#include "wpq_gate_scenarios.h"
#include <gtest/gtest-spi.h>
#include "Vwpq_gate_lightwsp_table1.h"
#include "Vwpq_gate_wpq_small.h"
#include "Vwpq_gate_lightwsp_table1_ungated.h"
#include "Vwpq_gate_wpq_small_ungated.h"
#include "Vwpq_gate_wpq_1mc.h"
#include "Vwpq_gate_wpq_1mc_ungated.h"

// The planted-bug copies of the core (tb/wpq_gate_planted.c): only their cycle function is
// called; their state layout is the real core's.
using WpqStepFn = void (*)(wpq_gate *, const wpq_gate_in *, wpq_gate_out *);
extern "C" {
void wpq_plant1_step(wpq_gate *, const wpq_gate_in *, wpq_gate_out *);
void wpq_plant2_step(wpq_gate *, const wpq_gate_in *, wpq_gate_out *);
void wpq_plant3_step(wpq_gate *, const wpq_gate_in *, wpq_gate_out *);
void wpq_plant4_step(wpq_gate *, const wpq_gate_in *, wpq_gate_out *);
}

namespace {

template <class V>
class WpqBench : public dut::WpqDut {
public:
    explicit WpqBench(const wpq_gate_cfg &cfg, WpqStepFn cstep = wpq_gate_step)
        : cfg_(cfg), cstep_(cstep), chk_("wpq_gate", fmt)
    {
        mem_.resize(wpq_gate_bytes(&cfg) / 8 + 1);
        g_ = reinterpret_cast<wpq_gate *>(mem_.data());
        EXPECT_EQ(wpq_gate_init(g_, &cfg), 0);
        amask_ = cfg.addr_bits >= 64 ? ~0ull : (1ull << cfg.addr_bits) - 1;
        dmask_ = cfg.data_bits >= 64 ? ~0ull : (1ull << cfg.data_bits) - 1;
        rmask_ = (1u << cfg.rid_bits) - 1;
        ls_ = 0;
        while ((1u << ls_) < cfg.line_words) ls_++;
        lmask_ = (1ull << (cfg.addr_bits - ls_)) - 1;
    }
    // Power-on reset of both models (after a power failure).
    void reset()
    {
        dut_->rst = 1;
        dut_.tick();
        dut_->rst = 0;
        EXPECT_EQ(wpq_gate_init(g_, &cfg_), 0);
        chk_.input(cyc_, "reset");
    }
    // dut::WpqDut: one edge of both models, outputs compared; *out = the C core's outputs.
    bool step(const wpq_gate_in &in, wpq_gate_out *out) override { return step_in(in, out); }
    wpq_gate *core() override { return g_; }
    const wpq_gate_cfg &cfg() const override { return cfg_; }
    bool rtl() const override { return true; }

    // The inputs of a cycle as the mismatch report shows them.
    static std::string fmt(const void *raw)
    {
        const wpq_gate_in &in = *static_cast<const wpq_gate_in *>(raw);
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "push=%u r=%u a=0x%" PRIx64 " d=0x%" PRIx64 " bdry=%u r=%u back=%u r=%u fack=%u r=%u "
                      "drain_ready=%u ld=%u line=0x%" PRIx64 " power_fail=%u",
                      in.push_valid, in.push_region, in.push_addr, in.push_data, in.bdry_valid, in.bdry_region,
                      in.back_valid, in.back_region, in.fack_valid, in.fack_region, in.drain_ready, in.ld_valid,
                      in.ld_line, in.power_fail);
        return buf;
    }

    bool step_in(wpq_gate_in in, wpq_gate_out *co = nullptr)
    {
        in.push_region &= rmask_; in.bdry_region &= rmask_; in.back_region &= rmask_; in.fack_region &= rmask_;
        in.push_addr &= amask_; in.push_data &= dmask_; in.ld_line &= lmask_;
        chk_.input(cyc_, in);
        dut_->push_valid = in.push_valid;
        dut_->push_region = in.push_region;
        dut_->push_addr = in.push_addr;
        dut_->push_data = in.push_data;
        dut_->bdry_valid = in.bdry_valid;
        dut_->bdry_region = in.bdry_region;
        dut_->back_valid = in.back_valid;
        dut_->back_region = in.back_region;
        dut_->fack_valid = in.fack_valid;
        dut_->fack_region = in.fack_region;
        dut_->drain_ready = in.drain_ready;
        dut_->ld_valid = in.ld_valid;
        dut_->ld_line = in.ld_line;
        dut_->power_fail = in.power_fail;
        dut_.tick();
        wpq_gate_out o;
        cstep_(g_, &in, &o);
        if (co) *co = o;
        cyc_++;
        chk_.eq("push_result", dut_->push_result, o.push_result);
        chk_.eq("drain_valid", dut_->drain_valid, o.drain_valid);
        chk_.eq("drain_undo", dut_->drain_undo, o.drain_undo);
        chk_.eq("drain_region", dut_->drain_region, o.drain_region);
        chk_.eq("drain_addr", dut_->drain_addr, o.drain_addr);
        chk_.eq("drain_data", dut_->drain_data, o.drain_data);
        chk_.eq("bdry_ack_valid", dut_->bdry_ack_valid, o.bdry_ack_valid);
        chk_.eq("bdry_ack_region", dut_->bdry_ack_region, o.bdry_ack_region);
        chk_.eq("fack_out_valid", dut_->fack_out_valid, o.fack_out_valid);
        chk_.eq("fack_out_region", dut_->fack_out_region, o.fack_out_region);
        chk_.eq("commit_valid", dut_->commit_valid, o.commit_valid);
        chk_.eq("commit_region", dut_->commit_region, o.commit_region);
        chk_.eq("ld_hit", dut_->ld_hit, o.ld_hit);
        chk_.eq("pf_done_pulse", dut_->pf_done_pulse, o.pf_done_pulse);
        chk_.eq("discarded", dut_->discarded, o.discarded);
        chk_.eq("undo_restore", dut_->undo_restore, o.undo_restore);
        chk_.eq("bdry_wait", dut_->bdry_wait, o.bdry_wait);
        chk_.eq("progress", dut_->progress_out, o.progress);
        chk_.eq("flush_id", dut_->flush_id, o.flush_id);
        chk_.eq("count", dut_->count, o.count);
        chk_.eq("bdry_bit", dut_->bdry_bit, o.bdry_bit);
        chk_.eq("overflow", dut_->overflow, o.overflow);
        chk_.eq("pf", dut_->pf, o.pf);
        chk_.eq("pf_done", dut_->pf_done, o.pf_done);
        chk_.eq("err", dut_->err, o.err);
        return chk_.ok();
    }

    // Random traffic from a small model of the rest of the system: threads produce regions in
    // order (region cursor), boundaries are broadcast (sometimes out of order or, rarely, outside
    // the window), the other controllers' bdry-ACKs and flush-ACKs arrive after random delays,
    // PM back-pressure comes in phases, and now and then the power fails (then both models are
    // reset and the run goes on).
    void random(uint64_t seed, uint64_t n)
    {
        std::mt19937_64 rng(seed);
        struct Ev { uint64_t at; int kind; uint32_t region; };   // kind 0: bdry-ACK, 1: flush-ACK
        std::vector<Ev> ev;
        uint32_t cur = 0;                 // youngest region not yet ended
        uint32_t phase = 0, p_push = 50, p_bdry = 10, p_ready = 60, p_ld = 20;
        uint64_t pf_count = 0, commits = 0, drains = 0, undo = 0, bypass = 0, hits = 0, declined = 0;
        uint64_t ahead = 0, overflows = 0, pf_discarded = 0;   // ahead: drains of a region != flush ID
        uint64_t bdry_waits = 0, progress = 0, errs = 0;
        std::deque<uint32_t> far;                                 // boundaries refused (bdry_wait), offered again
        wpq_gate_out o{};
        for (uint64_t i = 0; i < n; i++) {
            if (phase-- == 0) {
                phase = 20 + rng() % 300;
                p_push = rng() % 101; p_bdry = rng() % 30; p_ready = rng() % 101; p_ld = rng() % 40;
            }
            wpq_gate_in in{};
            uint32_t fid = wpq_gate_flush_id(g_);
            if (rng() % 100 < p_push) {
                in.push_valid = 1;
                uint32_t k = rng() % 8;
                in.push_region = (k < 5) ? cur : (k < 7) ? cur + 1 : fid + rng() % cfg_.regions;
                in.push_addr = rng() % 4 == 0 ? rng() : rng() % 64;   // mostly a small space: CAM hits
                in.push_data = rng();
            }
            if (!far.empty() && rng() % 4 == 0) {
                // a refused boundary offered again (window gating): taken once it fits
                in.bdry_valid = 1;
                in.bdry_region = far.front();
                far.pop_front();
                if (((in.bdry_region - fid) & rmask_) >= cfg_.regions) far.push_back(in.bdry_region);
                else for (uint32_t m = 1; m < cfg_.mcs; m++) ev.push_back({i + rng() % 12, 0, in.bdry_region});
            } else if (rng() % 100 < p_bdry) {
                in.bdry_valid = 1;
                uint32_t k = rng() % 64;
                if (k == 0) {                                                 // beyond the window: waits
                    in.bdry_region = (fid + cfg_.regions + rng() % 4) & rmask_;
                    if (((in.bdry_region - fid) & rmask_) >= cfg_.regions && far.size() < 4) far.push_back(in.bdry_region);
                }
                else if (k < 6) in.bdry_region = cur + 1;                     // arrives early
                else in.bdry_region = cur;
                if (((in.bdry_region - fid) & rmask_) < cfg_.regions) {
                    for (uint32_t m = 1; m < cfg_.mcs; m++)
                        ev.push_back({i + rng() % 12, 0, in.bdry_region});
                    if (in.bdry_region == cur) cur = (cur + 1) & rmask_;
                }
                if (((cur - fid) & rmask_) >= cfg_.regions) cur = fid;   // keep the cursor in the window
            }
            if (o.fack_out_valid)
                for (uint32_t m = 1; m < cfg_.mcs; m++) ev.push_back({i + rng() % 12, 1, o.fack_out_region});
            // deliver at most one event of each kind whose time has come
            for (int kind = 0; kind < 2; kind++) {
                for (size_t e = 0; e < ev.size(); e++) {
                    if (ev[e].kind != kind || ev[e].at > i) continue;
                    if (kind == 0) { in.back_valid = 1; in.back_region = ev[e].region; }
                    else { in.fack_valid = 1; in.fack_region = ev[e].region; }
                    ev.erase(ev.begin() + (long)e);
                    break;
                }
            }
            in.drain_ready = rng() % 100 < p_ready;
            in.ld_valid = rng() % 100 < p_ld;
            in.ld_line = rng() % 4 == 0 ? rng() : rng() % 16;
            in.power_fail = rng() % 5000 == 0;
            if (rng() % 20000 == 0) {                                         // an ACK outside the window: err
                in.back_valid = 1;
                in.back_region = fid + cfg_.regions + rng() % 4;
            }
            if (!step_in(in, &o)) return;
            bdry_waits += o.bdry_wait;
            progress += o.progress;
            if (o.drain_valid && o.drain_region != fid) {
                ahead++;
                // gated: only the flush-ID region drains (the drain precedes the commit of the edge)
                if (!cfg_.ungated) { ADD_FAILURE() << "gated drain of region " << o.drain_region << " at flush ID " << fid; return; }
            }
            overflows += o.overflow;
            if (o.pf_done_pulse) pf_discarded += o.discarded;
            commits += o.commit_valid; drains += o.drain_valid; undo += o.drain_undo; hits += o.ld_hit;
            bypass += o.push_result == WPQ_BYPASS; declined += o.push_result == WPQ_DECLINED;
            errs += o.err;
            if (o.pf_done) {
                pf_count++;
                reset();
                ev.clear();
                far.clear();
                cur = 0;
                o = wpq_gate_out{};
            }
        }
        std::printf("cosim wpq_gate%s: %" PRIu64 " cycles, %" PRIu64 " drains (%" PRIu64 " undo-logged, %" PRIu64
                    " bypass, %" PRIu64 " ahead of the flush ID), %" PRIu64 " commits, %" PRIu64 " declined, %" PRIu64
                    " load hits, %" PRIu64 " power failures (%" PRIu64 " entries discarded), %" PRIu64
                    " boundaries refused (window), %" PRIu64 " progress edges, %" PRIu64 " cycles with err\n",
                    cfg_.ungated ? " (ungated)" : "", n, drains, undo, bypass, ahead, commits, declined, hits,
                    pf_count, pf_discarded, bdry_waits, progress, errs);
        if (cfg_.ungated) {
            // a plain ADR WPQ: no overflow mode, nothing undo-logged or discarded
            EXPECT_EQ(undo, 0u);
            EXPECT_EQ(bypass, 0u);
            EXPECT_EQ(overflows, 0u);
            EXPECT_EQ(pf_discarded, 0u);
        }
        if (n >= 20000) {
            EXPECT_GT(commits, 100u);
            EXPECT_GT(hits, 0u);
            EXPECT_GT(bdry_waits, 0u);
            EXPECT_GT(progress, 0u);
            if (cfg_.ungated) EXPECT_GT(ahead, 0u);   // younger regions drained before older ones committed
            else EXPECT_GT(undo, 0u);
        }
    }
private:
    wpq_gate_cfg cfg_;
    WpqStepFn cstep_;
    cosim::Dut<V> dut_;
    std::vector<uint64_t> mem_;
    wpq_gate *g_;
    cosim::Checker chk_;
    uint64_t cyc_ = 0, amask_ = 0, dmask_ = 0, lmask_ = 0;
    uint32_t rmask_ = 0, ls_ = 0;
};

// RTL lockstep backend of the typed block tests: a WpqBench of the preset's Verilated model.
#define WPQ_RTL_(name, preset) \
    case dut::WpqPreset::name: return std::make_unique<WpqBench<Vwpq_gate_##preset>>(dut::wpq_preset_cfg(p));
struct WpqRtl {
    static std::unique_ptr<dut::WpqDut> make(dut::WpqPreset p)
    {
        switch (p) { WPQ_PRESETS(WPQ_RTL_) }
        return nullptr;
    }
};

} // namespace

namespace wpq_scen {
INSTANTIATE_TYPED_TEST_SUITE_P(WpqRtl, WpqBlock, ::testing::Types<WpqRtl>);
}

namespace {

TEST(WpqGate, Random_lightwsp_table1)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("wpq_gate/lightwsp_table1", s, n);
    WpqBench<Vwpq_gate_lightwsp_table1> b(rtlp_lightwsp_table1_cfg());
    cosim::Speed sp("wpq_gate", "lightwsp_table1");
    b.random(s, n);
    sp.print(n);
}

TEST(WpqGate, Random_wpq_small)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("wpq_gate/wpq_small", s, n);
    WpqBench<Vwpq_gate_wpq_small> b(rtlp_wpq_small_cfg());
    cosim::Speed sp("wpq_gate", "wpq_small");
    b.random(s + 1, n);
    sp.print(n);
}

TEST(WpqGate, Random_lightwsp_table1_ungated)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("wpq_gate/lightwsp_table1_ungated", s, n);
    WpqBench<Vwpq_gate_lightwsp_table1_ungated> b(rtlp_lightwsp_table1_ungated_cfg());
    cosim::Speed sp("wpq_gate", "lightwsp_table1_ungated");
    b.random(s + 2, n);
    sp.print(n);
}

TEST(WpqGate, Random_wpq_small_ungated)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("wpq_gate/wpq_small_ungated", s, n);
    WpqBench<Vwpq_gate_wpq_small_ungated> b(rtlp_wpq_small_ungated_cfg());
    cosim::Speed sp("wpq_gate", "wpq_small_ungated");
    b.random(s + 3, n);
    sp.print(n);
}

// The formal counterexample of the UNGATED drain order (formal/prove.py --cex wpq_ungated, turned
// into a stimulus by formal/vcd2stim.py; checked in as results/formal/wpq_small_ungated_cex.stim,
// PERSIM_REPLAY=FILE replays another one): the ungated RTL and the ungated C core agree on every
// output of every cycle and both drain a region ahead of the flush ID; the gated C core, fed the
// same inputs, drains nothing ahead of its flush ID.
std::vector<wpq_gate_in> read_stim(const char *path)
{
    std::vector<wpq_gate_in> v;
    FILE *f = std::fopen(path, "r");
    if (!f) return v;
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        unsigned long long x[14];
        if (std::sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &x[0], &x[1],
                        &x[2], &x[3], &x[4], &x[5], &x[6], &x[7], &x[8], &x[9], &x[10], &x[11], &x[12], &x[13]) != 14)
            continue;
        wpq_gate_in in{};
        in.push_valid = x[0]; in.push_region = x[1]; in.push_addr = x[2]; in.push_data = x[3];
        in.bdry_valid = x[4]; in.bdry_region = x[5]; in.back_valid = x[6]; in.back_region = x[7];
        in.fack_valid = x[8]; in.fack_region = x[9]; in.drain_ready = x[10]; in.ld_valid = x[11];
        in.ld_line = x[12]; in.power_fail = x[13];
        v.push_back(in);
    }
    std::fclose(f);
    return v;
}

TEST(WpqGate, FormalCexReplay_wpq_small_ungated)
{
    const char *env = std::getenv("PERSIM_REPLAY");
    const char *path = env && *env ? env : PERSIM_FORMAL_CEX;
    std::vector<wpq_gate_in> stim = read_stim(path);
    ASSERT_FALSE(stim.empty()) << "no stimulus in " << path;
    std::printf("replaying %zu cycles of %s\n", stim.size(), path);
    // ungated: RTL and C core in lockstep
    WpqBench<Vwpq_gate_wpq_small_ungated> b(rtlp_wpq_small_ungated_cfg());
    wpq_gate_out o{};
    uint32_t fid = 0, ahead = 0;
    for (const wpq_gate_in &in : stim) {
        ASSERT_TRUE(b.step_in(in, &o));
        if (o.drain_valid && o.drain_region != fid) ahead++;
        fid = o.flush_id;
    }
    EXPECT_GE(ahead, 1u) << "the counterexample no longer drains a region ahead of the flush ID";
    // gated C core on the same inputs: refuses that order
    const wpq_gate_cfg gc = rtlp_wpq_small_cfg();
    std::vector<uint64_t> mem(wpq_gate_bytes(&gc) / 8 + 1);
    wpq_gate *g = reinterpret_cast<wpq_gate *>(mem.data());
    ASSERT_EQ(wpq_gate_init(g, &gc), 0);
    uint32_t gfid = 0, gahead = 0, gdrains = 0;
    for (const wpq_gate_in &in : stim) {
        wpq_gate_out go{};
        wpq_gate_step(g, &in, &go);
        if (go.drain_valid) gdrains++;
        if (go.drain_valid && go.drain_region != gfid) gahead++;
        gfid = go.flush_id;
    }
    EXPECT_EQ(gahead, 0u);
    std::printf("ungated: %u drain(s) ahead of the flush ID (RTL = C); gated core: %u drain(s), 0 ahead\n",
                ahead, gdrains);
}

// Planted bugs (tb/wpq_gate_planted.c): the random lockstep runs with a planted C core against the
// correct RTL; each test passes only if the co-simulation reports a C/RTL mismatch, and prints it.
template <class V>
void expect_caught(const char *bug, const wpq_gate_cfg &cfg, WpqStepFn planted, uint64_t seed)
{
    ::testing::TestPartResultArray failures;
    {
        ::testing::ScopedFakeTestPartResultReporter rep(
            ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
        WpqBench<V> b(cfg, planted);
        b.random(seed, cosim::cycles());
    }
    bool caught = false;
    for (int k = 0; k < failures.size() && !caught; k++) {
        const std::string msg = failures.GetTestPartResult(k).message();
        if (msg.find("cosim mismatch") != std::string::npos) {
            caught = true;
            std::printf("planted bug %s caught:\n%s\n", bug, msg.substr(0, msg.find("last inputs")).c_str());
        }
    }
    EXPECT_TRUE(caught) << "planted bug " << bug << " was not caught by the co-simulation";
}

template <class V>
void expect_caught_any(const char *bug, const wpq_gate_cfg &cfg, WpqStepFn planted)
{
    expect_caught<V>(bug, cfg, planted, cosim::seed());
}

TEST(WpqPlanted, WindowGatingOffByOne)
{
    expect_caught_any<Vwpq_gate_wpq_small>("1 (window gating off by one)", rtlp_wpq_small_cfg(), wpq_plant1_step);
    expect_caught_any<Vwpq_gate_lightwsp_table1>("1 (window gating off by one)", rtlp_lightwsp_table1_cfg(), wpq_plant1_step);
}

TEST(WpqPlanted, DeadlockIgnoresBoundary)
{
    expect_caught_any<Vwpq_gate_wpq_small>("2 (deadlock check ignores the boundary bit)", rtlp_wpq_small_cfg(), wpq_plant2_step);
    expect_caught_any<Vwpq_gate_lightwsp_table1>("2 (deadlock check ignores the boundary bit)", rtlp_lightwsp_table1_cfg(), wpq_plant2_step);
}

// Only wpq_small: the random traffic on lightwsp_table1 (PF_WAIT 16, 64 entries) does not reach a
// power failure where a persisted region without entries waits PF_WAIT cycles for its commit.
TEST(WpqPlanted, PowerFailureSettleDrainableWithoutEntries)
{
    expect_caught_any<Vwpq_gate_wpq_small>("3 (settle: persisted region drainable with no entry)", rtlp_wpq_small_cfg(), wpq_plant3_step);
}

TEST(WpqPlanted, ProgressMissesCommits)
{
    expect_caught_any<Vwpq_gate_wpq_small>("4 (progress misses commits)", rtlp_wpq_small_cfg(), wpq_plant4_step);
    expect_caught_any<Vwpq_gate_lightwsp_table1>("4 (progress misses commits)", rtlp_lightwsp_table1_cfg(), wpq_plant4_step);
}

} // namespace
