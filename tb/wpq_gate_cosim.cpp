// Lockstep co-simulation of rtl/wpq_gate.v against cores/wpq_gate.c (wpq_gate_step).
#include "cosim_common.h"
#include "Vwpq_gate_lightwsp_table1.h"
#include "Vwpq_gate_wpq_small.h"
#include "Vwpq_gate_lightwsp_table1_ungated.h"
#include "Vwpq_gate_wpq_small_ungated.h"

namespace {

template <class V>
class WpqBench {
public:
    explicit WpqBench(const wpq_gate_cfg &cfg) : cfg_(cfg), chk_("wpq_gate")
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
    bool step(wpq_gate_in in, wpq_gate_out *co = nullptr)
    {
        in.push_region &= rmask_; in.bdry_region &= rmask_; in.back_region &= rmask_; in.fack_region &= rmask_;
        in.push_addr &= amask_; in.push_data &= dmask_; in.ld_line &= lmask_;
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "push=%u r=%u a=0x%" PRIx64 " d=0x%" PRIx64 " bdry=%u r=%u back=%u r=%u fack=%u r=%u "
                      "drain_ready=%u ld=%u line=0x%" PRIx64 " power_fail=%u",
                      in.push_valid, in.push_region, in.push_addr, in.push_data, in.bdry_valid, in.bdry_region,
                      in.back_valid, in.back_region, in.fack_valid, in.fack_region, in.drain_ready, in.ld_valid,
                      in.ld_line, in.power_fail);
        chk_.input(cyc_, buf);
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
        wpq_gate_step(g_, &in, &o);
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
            if (rng() % 100 < p_bdry) {
                in.bdry_valid = 1;
                uint32_t k = rng() % 64;
                if (k == 0) in.bdry_region = fid + cfg_.regions + rng() % 4;   // outside the window
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
            if (!step(in, &o)) return;
            if (o.drain_valid && o.drain_region != fid) {
                ahead++;
                // gated: only the flush-ID region drains (the drain precedes the commit of the edge)
                if (!cfg_.ungated) { ADD_FAILURE() << "gated drain of region " << o.drain_region << " at flush ID " << fid; return; }
            }
            overflows += o.overflow;
            if (o.pf_done_pulse) pf_discarded += o.discarded;
            commits += o.commit_valid; drains += o.drain_valid; undo += o.drain_undo; hits += o.ld_hit;
            bypass += o.push_result == WPQ_BYPASS; declined += o.push_result == WPQ_DECLINED;
            if (o.pf_done) {
                pf_count++;
                reset();
                ev.clear();
                cur = 0;
                o = wpq_gate_out{};
            }
        }
        std::printf("cosim wpq_gate%s: %" PRIu64 " cycles, %" PRIu64 " drains (%" PRIu64 " undo-logged, %" PRIu64
                    " bypass, %" PRIu64 " ahead of the flush ID), %" PRIu64 " commits, %" PRIu64 " declined, %" PRIu64
                    " load hits, %" PRIu64 " power failures (%" PRIu64 " entries discarded)\n",
                    cfg_.ungated ? " (ungated)" : "", n, drains, undo, bypass, ahead, commits, declined, hits,
                    pf_count, pf_discarded);
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
            if (cfg_.ungated) EXPECT_GT(ahead, 0u);   // younger regions drained before older ones committed
            else EXPECT_GT(undo, 0u);
        }
    }
    wpq_gate *core() { return g_; }

private:
    wpq_gate_cfg cfg_;
    cosim::Dut<V> dut_;
    std::vector<uint64_t> mem_;
    wpq_gate *g_;
    cosim::Checker chk_;
    uint64_t cyc_ = 0, amask_ = 0, dmask_ = 0, lmask_ = 0;
    uint32_t rmask_ = 0, ls_ = 0;
};

wpq_gate_in push(uint16_t r, uint64_t a, uint64_t d)
{
    wpq_gate_in in{};
    in.push_valid = 1; in.push_region = r; in.push_addr = a; in.push_data = d; in.drain_ready = 1;
    return in;
}

// Figure 4: threads 1 -> 2 -> 3 pass through a critical section with region IDs N, N+1, N+2; their
// stores all go to this MC (the second MC of lightwsp_table1 only exchanges ACKs). Thread 2's
// store arrives before thread 1's boundary, yet only thread 1's stores flush first (1), then
// thread 2's (2), then thread 3's (3).
TEST(WpqGate, Directed_Figure4CriticalSection)
{
    WpqBench<Vwpq_gate_lightwsp_table1> b(rtlp_lightwsp_table1_cfg());
    const uint16_t N = 0;
    wpq_gate_out o{};
    std::vector<std::pair<uint16_t, uint64_t>> drained;
    std::vector<uint16_t> committed;
    std::deque<wpq_gate_in> script;
    script.push_back(push(N, 0x100, 0x11));       // thread 1, region N
    script.push_back(push(N, 0x108, 0x12));
    script.push_back(push(N + 1, 0x100, 0x21));   // thread 2, region N+1, before T1's boundary
    wpq_gate_in bd{}; bd.bdry_valid = 1; bd.drain_ready = 1;
    bd.bdry_region = N; script.push_back(bd);     // T1 releases the lock: boundary N
    script.push_back(push(N + 1, 0x110, 0x22));
    script.push_back(push(N + 2, 0x100, 0x31));   // thread 3
    bd.bdry_region = N + 1; script.push_back(bd);
    script.push_back(push(N + 2, 0x118, 0x32));
    bd.bdry_region = N + 2; script.push_back(bd);
    for (int cyc = 0; cyc < 40; cyc++) {
        wpq_gate_in in{};
        in.drain_ready = 1;
        if (!script.empty()) { in = script.front(); script.pop_front(); }
        // the other MC: echoes a bdry-ACK for each boundary and a flush-ACK for each of ours
        if (o.bdry_ack_valid) { in.back_valid = 1; in.back_region = o.bdry_ack_region; }
        if (o.fack_out_valid) { in.fack_valid = 1; in.fack_region = o.fack_out_region; }
        ASSERT_TRUE(b.step(in, &o));
        if (o.drain_valid) { drained.push_back({o.drain_region, o.drain_data}); EXPECT_EQ(o.drain_undo, 0); }
        if (o.commit_valid) committed.push_back(o.commit_region);
    }
    const std::vector<std::pair<uint16_t, uint64_t>> want = {
        {N, 0x11}, {N, 0x12}, {N + 1, 0x21}, {N + 1, 0x22}, {N + 2, 0x31}, {N + 2, 0x32}};
    EXPECT_EQ(drained, want);
    EXPECT_EQ(committed, (std::vector<uint16_t>{N, N + 1, N + 2}));
    EXPECT_EQ(o.flush_id, N + 3);
    EXPECT_EQ(o.count, 0);
}

// Power failure with region 0 persisted (its boundary reached both MCs) but still queued behind a
// busy PM, and region 1 unpersisted: region 0 drains and commits on battery, region 1 is
// discarded, the flush ID (recovery point) names region 1.
TEST(WpqGate, Directed_PowerFailureOnePersistedOneNot)
{
    WpqBench<Vwpq_gate_lightwsp_table1> b(rtlp_lightwsp_table1_cfg());
    wpq_gate_out o{};
    auto busy = [](wpq_gate_in in) { in.drain_ready = 0; return in; };
    ASSERT_TRUE(b.step(busy(push(0, 0x10, 0xA0)), &o));
    ASSERT_TRUE(b.step(busy(push(1, 0x20, 0xB0)), &o));
    ASSERT_TRUE(b.step(busy(push(0, 0x18, 0xA1)), &o));
    ASSERT_TRUE(b.step(busy(push(1, 0x28, 0xB1)), &o));
    wpq_gate_in in{};
    in.bdry_valid = 1; in.bdry_region = 0; in.back_valid = 1; in.back_region = 0;
    ASSERT_TRUE(b.step(in, &o));                                   // region 0 persisted
    EXPECT_EQ(o.drain_valid, 0);
    in = busy(push(1, 0x30, 0xB2));
    in.power_fail = 1;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.push_result, WPQ_OFF);
    std::vector<uint64_t> drained;
    int done = -1;
    for (int cyc = 0; cyc < 60 && done < 0; cyc++) {
        in = {};
        in.drain_ready = cyc >= 5;
        if (o.fack_out_valid) { in.fack_valid = 1; in.fack_region = o.fack_out_region; }
        ASSERT_TRUE(b.step(in, &o));
        if (o.drain_valid) drained.push_back(o.drain_data);
        if (o.pf_done_pulse) {
            done = cyc;
            EXPECT_EQ(o.discarded, 2);
            EXPECT_EQ(o.undo_restore, 0);
            EXPECT_EQ(o.flush_id, 1);
            EXPECT_EQ(o.count, 0);
        }
    }
    EXPECT_EQ(drained, (std::vector<uint64_t>{0xA0, 0xA1}));
    EXPECT_GE(done, 5 + 2 + 16);   // PF_WAIT idle cycles after the last progress
}

// IV-D deadlock: the 4-entry WPQ fills with region 1 while region 0 (flush ID) has no boundary.
TEST(WpqGate, Directed_DeadlockOverflowUndo)
{
    WpqBench<Vwpq_gate_wpq_small> b(rtlp_wpq_small_cfg());
    wpq_gate_out o{};
    auto nodrain = [](wpq_gate_in in) { in.drain_ready = 0; return in; };
    ASSERT_TRUE(b.step(nodrain(push(0, 1, 1)), &o));
    for (int k = 0; k < 3; k++) ASSERT_TRUE(b.step(nodrain(push(1, 8 + k, 8 + k)), &o));
    EXPECT_EQ(o.overflow, 1);
    EXPECT_EQ(o.bdry_bit, 0);
    wpq_gate_in in{};
    in.drain_ready = 1;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.drain_valid, 1);
    EXPECT_EQ(o.drain_undo, 1);                  // region 0 drains before its boundary, undo-logged
    ASSERT_TRUE(b.step(push(1, 12, 12), &o));
    EXPECT_EQ(o.push_result, WPQ_DECLINED);      // other regions declined
    ASSERT_TRUE(b.step(nodrain(push(0, 2, 2)), &o));
    EXPECT_EQ(o.push_result, WPQ_OK);            // queue full again
    ASSERT_TRUE(b.step(nodrain(push(0, 3, 3)), &o));
    EXPECT_EQ(o.push_result, WPQ_FULL);
    ASSERT_TRUE(b.step(push(0, 3, 3), &o));      // oldest region-0 entry drains, store queued
    EXPECT_EQ(o.drain_data, 2u);
    ASSERT_TRUE(b.step(push(0, 4, 4), &o));
    EXPECT_EQ(o.drain_data, 3u);
    ASSERT_TRUE(b.step(nodrain(push(1, 13, 13)), &o));
    EXPECT_EQ(o.push_result, WPQ_DECLINED);
    // boundary + the other MC's ACKs: region 0 commits, overflow ends
    in = {}; in.drain_ready = 1; in.bdry_valid = 1; in.bdry_region = 0; in.back_valid = 1; in.back_region = 0;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.drain_undo, 0);                  // persisted now: no undo needed
    EXPECT_EQ(o.fack_out_valid, 1);
    in = {}; in.fack_valid = 1; in.fack_region = 0;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.commit_valid, 1);
    EXPECT_EQ(o.overflow, 0);
    EXPECT_EQ(o.flush_id, 1);
}

// Power failure while in overflow mode: region 0 had undo-logged writes reach PM but its
// boundary never arrived, so the undo log must be applied and its queued store discarded.
TEST(WpqGate, Directed_PowerFailureInOverflowUndoRestore)
{
    WpqBench<Vwpq_gate_wpq_small> b(rtlp_wpq_small_cfg());
    wpq_gate_out o{};
    auto nodrain = [](wpq_gate_in in) { in.drain_ready = 0; return in; };
    ASSERT_TRUE(b.step(nodrain(push(0, 1, 1)), &o));
    ASSERT_TRUE(b.step(nodrain(push(0, 2, 2)), &o));
    for (int k = 0; k < 2; k++) ASSERT_TRUE(b.step(nodrain(push(1, 8 + k, 8 + k)), &o));
    EXPECT_EQ(o.overflow, 1);
    wpq_gate_in in{};
    in.drain_ready = 1;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.drain_undo, 1);                  // region 0's first store, undo-logged
    in = {};
    in.power_fail = 1;
    bool done = false;
    for (int c = 0; c < 20 && !done; c++) {
        ASSERT_TRUE(b.step(in, &o));
        in = {};
        in.drain_ready = 1;
        EXPECT_EQ(o.drain_valid, 0);             // nothing persisted may drain now
        if (o.pf_done_pulse) {
            done = true;
            EXPECT_EQ(o.undo_restore, 1);
            EXPECT_EQ(o.discarded, 3);
            EXPECT_EQ(o.flush_id, 0);            // recovery point: region 0 again
        }
    }
    EXPECT_TRUE(done);
}

// The same sequence in both modes: region 0 stores, then a store of region 1 before region 0's
// boundary, PM always ready. Gated (LightWSP): nothing drains until region 0 is persisted, then
// region 0 before region 1. Ungated (broken ADR variant): every store drains as soon as it is
// queued, so region 1's store reaches PM before region 0's boundary arrives; the region protocol
// (bdry-ACKs, flush-ACKs, commits) still runs.
template <class V>
void younger_before_boundary(const wpq_gate_cfg &cfg, std::vector<std::pair<int, uint16_t>> *drains,
                             std::vector<std::pair<int, uint16_t>> *commits, wpq_gate_out *last)
{
    WpqBench<V> b(cfg);
    wpq_gate_out o{};
    std::deque<wpq_gate_in> script;
    script.push_back(push(0, 0x100, 0x11));
    script.push_back(push(0, 0x108, 0x12));
    script.push_back(push(1, 0x100, 0x21));       // younger region, before boundary 0
    script.push_back(wpq_gate_in{});
    script.back().drain_ready = 1;
    wpq_gate_in bd{}; bd.bdry_valid = 1; bd.drain_ready = 1;
    bd.bdry_region = 0; script.push_back(bd);     // cycle 4: boundary 0
    bd.bdry_region = 1; script.push_back(bd);
    for (int cyc = 0; cyc < 20; cyc++) {
        wpq_gate_in in{};
        in.drain_ready = 1;
        if (!script.empty()) { in = script.front(); script.pop_front(); }
        if (o.bdry_ack_valid) { in.back_valid = 1; in.back_region = o.bdry_ack_region; }
        if (o.fack_out_valid) { in.fack_valid = 1; in.fack_region = o.fack_out_region; }
        ASSERT_TRUE(b.step(in, &o));
        if (o.drain_valid) { drains->push_back({cyc, o.drain_region}); EXPECT_EQ(o.drain_undo, 0); }
        if (o.commit_valid) commits->push_back({cyc, o.commit_region});
    }
    *last = o;
}

TEST(WpqGate, Directed_GatedHoldsYoungerRegionUntilBoundary)
{
    std::vector<std::pair<int, uint16_t>> d, c;
    wpq_gate_out o{};
    younger_before_boundary<Vwpq_gate_lightwsp_table1>(rtlp_lightwsp_table1_cfg(), &d, &c, &o);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_GT(d[0].first, 4);                     // nothing before boundary 0 (+ the other MC's ACK)
    EXPECT_EQ(d[0].second, 0); EXPECT_EQ(d[1].second, 0); EXPECT_EQ(d[2].second, 1);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_LT(c[0].first, d[2].first);            // region 0 committed before region 1 drained
    EXPECT_EQ(o.flush_id, 2);
}

TEST(WpqGate, Directed_UngatedDrainsYoungerRegionBeforeBoundary)
{
    std::vector<std::pair<int, uint16_t>> d, c;
    wpq_gate_out o{};
    younger_before_boundary<Vwpq_gate_lightwsp_table1_ungated>(rtlp_lightwsp_table1_ungated_cfg(), &d, &c, &o);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d, (std::vector<std::pair<int, uint16_t>>{{1, 0}, {2, 0}, {3, 1}}));   // a cycle after queued
    EXPECT_LT(d[2].first, 4);                     // region 1 in PM before boundary 0 arrived
    EXPECT_EQ(c.size(), 2u);                      // the protocol still commits both regions
    EXPECT_EQ(o.flush_id, 2);
    EXPECT_EQ(o.overflow, 0);
}

// Ungated power failure with PM busy: no store accepted, every queued entry (of any region,
// persisted or not) drains once PM is ready, then the sequence ends with nothing discarded.
TEST(WpqGate, Directed_UngatedPowerFailureDrainsEverything)
{
    WpqBench<Vwpq_gate_wpq_small_ungated> b(rtlp_wpq_small_ungated_cfg());
    wpq_gate_out o{};
    auto busy = [](wpq_gate_in in) { in.drain_ready = 0; return in; };
    ASSERT_TRUE(b.step(busy(push(0, 1, 1)), &o));
    ASSERT_TRUE(b.step(busy(push(1, 2, 2)), &o));
    ASSERT_TRUE(b.step(busy(push(2, 3, 3)), &o));
    ASSERT_TRUE(b.step(busy(push(1, 4, 4)), &o));
    EXPECT_EQ(o.count, 4);
    ASSERT_TRUE(b.step(busy(push(1, 5, 5)), &o));
    EXPECT_EQ(o.push_result, WPQ_FULL);           // full queue just refuses, no overflow mode
    EXPECT_EQ(o.overflow, 0);
    wpq_gate_in in = busy(push(0, 6, 6));
    in.power_fail = 1;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.push_result, WPQ_OFF);
    std::vector<uint64_t> drained;
    bool done = false;
    for (int cyc = 0; cyc < 40 && !done; cyc++) {
        in = {};
        in.drain_ready = cyc >= 10;               // PM busy for longer than PF_WAIT: still waits
        ASSERT_TRUE(b.step(in, &o));
        if (o.drain_valid) drained.push_back(o.drain_data);
        if (o.pf_done_pulse) {
            done = true;
            EXPECT_GE(cyc, 10 + 4 - 1 + 3);       // last drain at cyc 13, then PF_WAIT idle cycles
            EXPECT_EQ(o.discarded, 0);
            EXPECT_EQ(o.undo_restore, 0);
            EXPECT_EQ(o.flush_id, 0);             // no boundary arrived: nothing committed
        }
    }
    EXPECT_TRUE(done);
    EXPECT_EQ(drained, (std::vector<uint64_t>{1, 2, 3, 4}));
}

TEST(WpqGate, Directed_LoadCamSearch)
{
    WpqBench<Vwpq_gate_lightwsp_table1> b(rtlp_lightwsp_table1_cfg());
    wpq_gate_out o{};
    ASSERT_TRUE(b.step(push(0, 0x123, 7), &o));   // word 0x123 -> 64 B line 0x24
    wpq_gate_in in{};
    in.ld_valid = 1; in.ld_line = 0x24;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.ld_hit, 1);
    in.ld_line = 0x25;
    ASSERT_TRUE(b.step(in, &o));
    EXPECT_EQ(o.ld_hit, 0);
}

TEST(WpqGate, Random_lightwsp_table1)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("wpq_gate/lightwsp_table1", s, n);
    WpqBench<Vwpq_gate_lightwsp_table1> b(rtlp_lightwsp_table1_cfg());
    b.random(s, n);
}

TEST(WpqGate, Random_wpq_small)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("wpq_gate/wpq_small", s, n);
    WpqBench<Vwpq_gate_wpq_small> b(rtlp_wpq_small_cfg());
    b.random(s + 1, n);
}

TEST(WpqGate, Random_lightwsp_table1_ungated)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("wpq_gate/lightwsp_table1_ungated", s, n);
    WpqBench<Vwpq_gate_lightwsp_table1_ungated> b(rtlp_lightwsp_table1_ungated_cfg());
    b.random(s + 2, n);
}

TEST(WpqGate, Random_wpq_small_ungated)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("wpq_gate/wpq_small_ungated", s, n);
    WpqBench<Vwpq_gate_wpq_small_ungated> b(rtlp_wpq_small_ungated_cfg());
    b.random(s + 3, n);
}

} // namespace
