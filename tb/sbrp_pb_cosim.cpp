// Lockstep co-simulation of rtl/sbrp_pb.v against cores/sbrp_pb.c (sbrp_pb_step).
#include "cosim_common.h"
#include "Vsbrp_pb_sbrp_small.h"
#include "Vsbrp_pb_sbrp_table1.h"

namespace {

template <class V>
class SbrpBench {
public:
    explicit SbrpBench(const sbrp_pb_cfg &cfg) : cfg_(cfg), chk_("sbrp_pb")
    {
        mem_.resize(sbrp_pb_bytes(&cfg) / 8 + 1);
        pb_ = reinterpret_cast<sbrp_pb *>(mem_.data());
        EXPECT_EQ(sbrp_pb_init(pb_, &cfg), 0);
        wmask_ = cfg.warps >= 64 ? ~0ull : (1ull << cfg.warps) - 1;
        pbidx_.assign(cfg.lines, SBRP_NO_ENTRY);
    }
    bool step(sbrp_pb_in in, sbrp_pb_out *co = nullptr)
    {
        in.op &= 3; in.warp &= 63; in.fence_type &= 7; in.ack_phase &= 1;
        char buf[200];
        std::snprintf(buf, sizeof buf, "ack=%u ack_phase=%u op=%u warp=%u fence_type=%u line=%u entry=%u flush_ready=%u drain_all=%u",
                      in.ack, in.ack_phase, in.op, in.warp, in.fence_type, in.line, in.entry, in.flush_ready, in.drain_all);
        chk_.input(cyc_, buf);
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
            if (!step(in)) return;
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
    sbrp_pb *core() { return pb_; }

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
    // Acknowledge the oldest in-flight write (if any).
    void ack_oldest(sbrp_pb_in &in)
    {
        if (inflight_.empty()) return;
        in.ack = 1;
        in.ack_phase = inflight_.front();
        inflight_.pop_front();
    }
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

sbrp_pb_in store(uint8_t warp, uint16_t line, uint16_t entry)
{
    sbrp_pb_in in{};
    in.op = SBRP_IN_STORE; in.warp = warp; in.line = line; in.entry = entry;
    return in;
}

// Section 6.1: a thread (warp 0) sets pX = a, pY = b, issues an oFence, then pX = c. The second
// persist on pX may neither modify the line nor take a new PB entry until the first one is
// durable: the warp waits in the EDM while pX and pY flush and until ACTR returns to zero.
TEST(SbrpPb, Directed_Section61StallExample)
{
    SbrpBench<Vsbrp_pb_sbrp_table1> b(rtlp_sbrp_table1_cfg());
    const uint16_t X = 10, Y = 11;
    sbrp_pb_out o;
    ASSERT_TRUE(b.step(store(0, X, SBRP_NO_ENTRY), &o));       // (1) pX = a
    ASSERT_EQ(o.result, SBRP_ALLOCATED);
    const uint16_t ex = o.entry;
    ASSERT_TRUE(b.step(store(0, Y, SBRP_NO_ENTRY), &o));       // (2) pY = b
    ASSERT_EQ(o.result, SBRP_ALLOCATED);
    sbrp_pb_in f{};
    f.op = SBRP_IN_FENCE; f.warp = 0; f.fence_type = SBRP_OFENCE;
    ASSERT_TRUE(b.step(f, &o));                                 // (3) oFence: no stall
    EXPECT_EQ(o.result, SBRP_OK);
    EXPECT_EQ(o.count, 3);
    ASSERT_TRUE(b.step(store(0, X, ex), &o));                   // (4) pX = c
    EXPECT_EQ(o.result, SBRP_STALL_ORDER);
    EXPECT_EQ(o.edm, 1u);
    EXPECT_EQ(o.count, 3);                                      // neither coalesced nor allocated
    // another warp's store to pX still coalesces (no ordering entry of warp 1 after PB_k)
    ASSERT_TRUE(b.step(store(1, X, ex), &o));
    EXPECT_EQ(o.result, SBRP_OK);
    // the PB drains: pX flushes in phase 0; warp 0's target has left, so it now waits for a drain
    // point: the phase flips and pY flushes in phase 1 while warp 0 waits for phase 0 only
    std::vector<uint16_t> flushed;
    std::vector<int> phases;
    sbrp_pb_in go{};
    go.flush_ready = 1;
    for (int c = 0; c < 4; c++) {
        ASSERT_TRUE(b.step(go, &o));
        if (o.flush_valid) { flushed.push_back(o.flush_line); phases.push_back(o.flush_phase); }
        EXPECT_EQ(o.edm, 1u);                                   // still waiting: not durable yet
    }
    EXPECT_EQ(flushed, (std::vector<uint16_t>{X, Y}));
    EXPECT_EQ(phases, (std::vector<int>{0, 1}));
    EXPECT_EQ(o.actr, 2);
    EXPECT_EQ(o.fsm, 1u);                                       // the oFence retired over in-flight persists
    sbrp_pb_in a{};
    b.ack_oldest(a);                                            // pX = a acknowledged (phase 0)
    ASSERT_TRUE(b.step(a, &o));
    EXPECT_EQ(o.actr, 1);
    EXPECT_EQ(o.edm, 0u);                                       // warp 0 resumes: pX = a is durable
    ASSERT_TRUE(b.step(store(0, X, SBRP_NO_ENTRY), &o));       // the retried pX = c proceeds
    EXPECT_EQ(o.result, SBRP_ALLOCATED);
    // the new pX is ordered after the oFence: the FSM holds it until pY (phase 1) is acknowledged
    for (int c = 0; c < 3; c++) {
        ASSERT_TRUE(b.step(go, &o));
        EXPECT_FALSE(o.flush_valid);
        EXPECT_EQ(o.fsm, 1u);
    }
    EXPECT_EQ(o.count, 1);
    b.ack_oldest(go);                                           // pY acknowledged
    ASSERT_TRUE(b.step(go, &o));                                // ack clears FSM[1] first
    EXPECT_TRUE(o.flush_valid);
    EXPECT_EQ(o.flush_line, X);
    EXPECT_EQ(o.fsm, 0u);
}

// dFence: the warp stalls in ODM, moves to EDM when the entry reaches the head, resumes at ACTR 0.
TEST(SbrpPb, Directed_DFenceOdmEdm)
{
    SbrpBench<Vsbrp_pb_sbrp_small> b(rtlp_sbrp_small_cfg());
    sbrp_pb_out o;
    ASSERT_TRUE(b.step(store(2, 3, SBRP_NO_ENTRY), &o));
    sbrp_pb_in f{};
    f.op = SBRP_IN_FENCE; f.warp = 2; f.fence_type = SBRP_DFENCE;
    ASSERT_TRUE(b.step(f, &o));
    EXPECT_EQ(o.result, SBRP_STALL_FENCE);
    EXPECT_EQ(o.odm, 1u << 2);
    sbrp_pb_in go{};
    go.flush_ready = 1;
    ASSERT_TRUE(b.step(go, &o));                                // persist flushes (window 2)
    EXPECT_TRUE(o.flush_valid);
    ASSERT_TRUE(b.step(go, &o));                                // dFence at the head: ODM -> EDM
    EXPECT_EQ(o.odm, 0u);
    EXPECT_EQ(o.edm, 1u << 2);
    sbrp_pb_in a{};
    a.ack = 1;
    ASSERT_TRUE(b.step(a, &o));
    EXPECT_EQ(o.edm, 0u);
    EXPECT_EQ(o.stalled, 0u);
}

// Full PB (4 entries), fence coalescing, evictions leaving holes, wrap-around of head and tail.
TEST(SbrpPb, Directed_FullEvictWrap)
{
    SbrpBench<Vsbrp_pb_sbrp_small> b(rtlp_sbrp_small_cfg());
    sbrp_pb_out o;
    uint16_t e[4];
    for (uint16_t l = 0; l < 4; l++) {
        ASSERT_TRUE(b.step(store(l % 4, l, SBRP_NO_ENTRY), &o));
        ASSERT_EQ(o.result, SBRP_ALLOCATED);
        e[l] = o.entry;
    }
    ASSERT_TRUE(b.step(store(0, 5, SBRP_NO_ENTRY), &o));
    EXPECT_EQ(o.result, SBRP_STALL_FULL);
    EXPECT_EQ(o.stalled, 1u);
    sbrp_pb_in ev{};
    ev.op = SBRP_IN_EVICT; ev.warp = 1; ev.entry = e[2];      // middle entry: leaves a hole
    ASSERT_TRUE(b.step(ev, &o));
    EXPECT_TRUE(o.evict_valid);
    EXPECT_EQ(o.evict_line, 2);
    EXPECT_EQ(o.count, 3);
    ev.entry = e[3];                                             // tail entry: tail retracts over the hole
    ASSERT_TRUE(b.step(ev, &o));
    EXPECT_EQ(o.stalled, 0u);                                    // a slot became allocatable
    for (int k = 0; k < 3; k++) {                                // fences coalesce into one entry
        sbrp_pb_in f{};
        f.op = SBRP_IN_FENCE; f.warp = (uint8_t)k; f.fence_type = SBRP_REL_BLK;
        ASSERT_TRUE(b.step(f, &o));
    }
    EXPECT_EQ(o.count, 3);
    ASSERT_TRUE(b.step(store(3, 6, SBRP_NO_ENTRY), &o));
    EXPECT_EQ(o.result, SBRP_ALLOCATED);                         // wraps to slot 0..1
    ev.entry = o.entry;
    ASSERT_TRUE(b.step(ev, &o));
    EXPECT_EQ(o.result, SBRP_STALL_ORDER);                       // an ordering entry precedes it
    for (int c = 0; c < 16; c++) {
        sbrp_pb_in go{};
        go.flush_ready = 1;
        b.ack_oldest(go);
        ASSERT_TRUE(b.step(go, &o));
    }
    EXPECT_EQ(o.count, 0);
    EXPECT_EQ(o.actr, 0);
    EXPECT_EQ(o.stalled, 0u);
}

TEST(SbrpPb, Random_sbrp_table1)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("sbrp_pb/sbrp_table1", s, n);
    SbrpBench<Vsbrp_pb_sbrp_table1> b(rtlp_sbrp_table1_cfg());
    b.random(s, n);
}

TEST(SbrpPb, Random_sbrp_small)
{
    uint64_t s = cosim::seed(), n = cosim::cycles();
    cosim::announce("sbrp_pb/sbrp_small", s, n);
    SbrpBench<Vsbrp_pb_sbrp_small> b(rtlp_sbrp_small_cfg());
    b.random(s + 1, n);
}

} // namespace
