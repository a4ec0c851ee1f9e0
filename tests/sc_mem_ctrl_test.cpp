// SystemC tests of the memory-controller substrate (sc_models/mem/): device timing + write-queue
// front ends, late acknowledgements through the TLM protocol, messages between controllers over
// the modelled link, and address interleaving. Each test case runs in its own process.
#include <gtest/gtest.h>
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include "mem_ctrl.h"
#include "sc_fork.h"

using namespace persim;
using namespace sc_core;

namespace {

// A requester that writes lines tagged with a region and takes late acknowledgements.
struct Requester : sc_module, AckReceiver {
    tlm_utils::simple_initiator_socket<Requester> sock{"sock"};
    std::map<uint64_t, uint64_t> acks;      // token -> acknowledgement time (ps)
    explicit Requester(sc_module_name n) : sc_module(n) {}
    // Returns the acknowledgement time, or kAckLater.
    uint64_t write(uint64_t addr, uint32_t region, uint64_t token, int requester = 7)
    {
        MemReq r(tlm::TLM_WRITE_COMMAND, addr, 64);
        r.ext.mask[0] = ~0ull;
        r.ext.pm = r.ext.persist = true;
        r.ext.requester = requester;
        r.ext.region = region;
        r.ext.ack_to = this;
        r.ext.ack_token = token;
        sc_time d = SC_ZERO_TIME;
        sock->b_transport(r.gp, d);
        if (r.ext.ack_later) return kAckLater;
        acks[token] = now_ps() + d.value();
        return acks[token];
    }
    void on_late_ack(uint64_t token, uint64_t t) override { acks[token] = t; }
};

struct Sink : DurableSink {
    struct W { uint64_t t, addr; int requester; };
    std::vector<W> w;
    void on_durable(uint64_t t, uint64_t addr, const uint8_t *, const uint64_t[2], uint32_t, int req) override
    {
        w.push_back({t, addr, req});
    }
};

// Two (or n) NVM controllers of 64 B lines behind the router, a requester bound to it.
struct Bench {
    Config cfg;
    mem_image *img = mem_new();
    std::unique_ptr<PmControllers> pm;
    std::unique_ptr<Requester> req;
    Sink sink;
    Bench(const std::vector<std::string> &sets)
    {
        cfg.set_kv("l1.line_bytes=64");
        cfg.set_kv("nvm.link_latency_ns=50");
        for (const auto &s : sets) cfg.set_kv(s);
        pm = std::make_unique<PmControllers>(cfg, img);
        req = std::make_unique<Requester>("req");
        req->sock.bind(pm->router->tsock);
        pm->set_durable_sink(&sink);
    }
    ~Bench() { mem_free(img); }
};

// Runs `body` as a SystemC thread, then simulates until nothing is pending.
struct Driver : sc_module {
    SC_HAS_PROCESS(Driver);
    std::function<void()> body;
    Driver(sc_module_name n, std::function<void()> b) : sc_module(n), body(std::move(b)) { SC_THREAD(run); }
    void run() { body(); }
};

void simulate(std::function<void()> body)
{
    Driver d("driver", std::move(body));
    sc_start();
}

constexpr uint64_t kNs = 1000;

TEST(MemCtrl, AdrWpqAcknowledgesOnArrival)
{
    Bench b({"nvm.controllers=1", "nvm.front_end=adr_wpq"});
    uint64_t ack = 0;
    simulate([&] {
        wait(sc_time(10, SC_NS));
        ack = b.req->write(0x10000000000ull, 0, 1);
    });
    EXPECT_EQ(ack, 10 * kNs);                 // ADR: durable once the queue accepts it
    ASSERT_EQ(b.sink.w.size(), 1u);
    EXPECT_EQ(b.sink.w[0].t, 10 * kNs);
    EXPECT_EQ(b.sink.w[0].requester, 7);      // requester id travels to the persistence domain
}

TEST(MemCtrl, DirectFrontEndAcknowledgesAtDeviceCompletion)
{
    Bench b({"nvm.controllers=1", "nvm.front_end=direct", "nvm.write_latency_ns=300", "nvm.write_bw_gbps=0.001"});
    uint64_t ack = 0;
    simulate([&] { ack = b.req->write(0x10000000000ull, 0, 1); });
    EXPECT_GT(ack, 300 * kNs);                // latency plus 64 B at 1 MB/s
}

TEST(MemCtrl, InterleaveGranuleRoutesAddresses)
{
    Bench b({"nvm.controllers=2", "nvm.interleave_bytes=4096"});
    EXPECT_EQ(b.pm->router->target_of(0), 0u);
    EXPECT_EQ(b.pm->router->target_of(4095), 0u);
    EXPECT_EQ(b.pm->router->target_of(4096), 1u);
    EXPECT_EQ(b.pm->router->target_of(8192), 0u);
    Bench c({"nvm.controllers=2"});           // default: one line (64 B here)
    EXPECT_EQ(c.pm->router->target_of(64), 1u);
}

TEST(MemCtrl, WpqGateAcknowledgesWhenTheBoundaryReachedEveryController)
{
    Bench b({"nvm.controllers=2", "nvm.front_end=wpq_gate"});
    const uint64_t A = 0x10000000000ull, B = A + 64;   // line-interleaved: A at nvm0, B at nvm1
    uint64_t a0 = 0, b0 = 0;
    simulate([&] {
        a0 = b.req->write(A, 0, 1);
        b0 = b.req->write(B, 0, 2);
        // Region 0 ends: the boundary reaches nvm0 at 100 ns and nvm1 at 300 ns.
        b.pm->ctrls[0]->deliver(100 * kNs, McMsg{McMsg::BOUNDARY, 0, 7});
        b.pm->ctrls[1]->deliver(300 * kNs, McMsg{McMsg::BOUNDARY, 0, 7});
    });
    EXPECT_EQ(a0, kAckLater);
    EXPECT_EQ(b0, kAckLater);
    ASSERT_EQ(b.req->acks.size(), 2u);
    // nvm1 has its own boundary at 300 ns and nvm0's bdry-ACK (sent at 100 ns, 50 ns link) already.
    EXPECT_EQ(b.req->acks[2], 300 * kNs);
    // nvm0 waits for nvm1's bdry-ACK: sent at 300 ns, arrives after the link latency.
    EXPECT_GE(b.req->acks[1], 350 * kNs);
    EXPECT_LT(b.req->acks[1], 360 * kNs);
    ASSERT_EQ(b.sink.w.size(), 2u);
    EXPECT_EQ(b.sink.w[0].addr, B);           // durable in acknowledgement order
    for (auto *m : b.pm->ctrls) EXPECT_EQ(m->describe_stuck(), "");
}

TEST(MemCtrl, WpqGateYoungerRegionNeverPersistsBeforeAnOlderOne)
{
    Bench b({"nvm.controllers=2", "nvm.front_end=wpq_gate"});
    const uint64_t A = 0x10000000000ull, B = A + 64;
    simulate([&] {
        b.req->write(A, 0, 1);                 // region 0 at nvm0
        b.req->write(B, 0, 2);                 // region 0 at nvm1
        b.req->write(A + 128, 1, 3);           // region 1 at nvm0, the near controller
        // Region 1's boundary reaches nvm0 first; region 0's boundary reaches nvm1 late (skew).
        b.pm->ctrls[0]->deliver(10 * kNs, McMsg{McMsg::BOUNDARY, 0, 7});
        b.pm->ctrls[0]->deliver(20 * kNs, McMsg{McMsg::BOUNDARY, 1, 7});
        b.pm->ctrls[1]->deliver(20 * kNs, McMsg{McMsg::BOUNDARY, 1, 7});
        b.pm->ctrls[1]->deliver(500 * kNs, McMsg{McMsg::BOUNDARY, 0, 7});
    });
    ASSERT_EQ(b.req->acks.size(), 3u);
    EXPECT_GE(b.req->acks[1], 500 * kNs);    // region 0 waits for its late boundary
    EXPECT_GE(b.req->acks[3], b.req->acks[1]);
    EXPECT_GE(b.req->acks[3], b.req->acks[2]);
    ASSERT_EQ(b.sink.w.size(), 3u);
    EXPECT_EQ(b.sink.w.back().addr, A + 128);  // the younger region's write is durable last
}

TEST(MemCtrl, WpqGateWithoutBoundaryNeverAcknowledgesAndReportsStuck)
{
    Bench b({"nvm.controllers=2", "nvm.front_end=wpq_gate"});
    simulate([&] { b.req->write(0x10000000000ull, 0, 1); });
    EXPECT_TRUE(b.req->acks.empty());
    EXPECT_NE(b.pm->describe_stuck().find("not acknowledged"), std::string::npos);
}

TEST(MemCtrl, LateAckNeedsAnInitiatorThatTakesIt)
{
    Bench b({"nvm.controllers=1", "nvm.front_end=wpq_gate"});
    std::string err;
    simulate([&] {
        MemReq r(tlm::TLM_WRITE_COMMAND, 0x10000000000ull, 64);
        r.ext.mask[0] = ~0ull;
        sc_time d = SC_ZERO_TIME;
        try {
            b.req->sock->b_transport(r.gp, d);
        } catch (const ConfigError &e) {
            err = e.what();
        }
    });
    EXPECT_NE(err.find("late acknowledgement"), std::string::npos) << err;
}

TEST(MemCtrl, UnknownFrontEndIsNamed)
{
    Config c;
    c.set_kv("nvm.front_end=fifo9");
    mem_image *img = mem_new();
    try {
        PmControllers pm(c, img);
        FAIL() << "no error";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("nvm.front_end"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("adr_wpq"), std::string::npos);
    }
    mem_free(img);
}

// ---- the BROI front end (broi_sched_fe.cpp over cores/broi_sched.h) ---------------------------

// One controller, one channel of 8 banks with 256 B rows (bank = (addr / 256) % 8), a write
// occupies its bank for 100 ns; a row miss takes 300 ns, a row hit 50 ns; the bus is never the
// bottleneck. The BROI controller steps every 0.4 ns (2.5 GHz).
std::vector<std::string> broi_sets(std::vector<std::string> more = {})
{
    std::vector<std::string> v = {"nvm.controllers=1", "nvm.channels=1", "nvm.banks=8", "nvm.row_bytes=256",
                                  "nvm.front_end=broi", "nvm.bank_busy_ns=100", "nvm.write_latency_ns=300",
                                  "nvm.row_hit_latency_ns=50", "nvm.write_bw_gbps=10000"};
    v.insert(v.end(), more.begin(), more.end());
    return v;
}
constexpr uint64_t kBase = 0x10000000000ull;
// Address in bank `bank`, row number `k` of that bank (different k = a different row).
uint64_t at_bank(uint32_t bank, uint32_t k = 0) { return kBase + ((uint64_t)k * 8 + bank) * 256; }

void barrier(Bench &b, int requester)
{
    b.pm->ctrls[0]->deliver(now_ps(), McMsg{McMsg::BARRIER, 0, (uint32_t)requester});
}
void gap() { wait(sc_time(1, SC_NS)); }   // keeps arrival order between writes and barrier messages

double broi_stat(Bench &b, const std::string &key)
{
    StatsWriter w;
    b.pm->report(w, now_ps());
    return w.get("nvm0", key, -1);
}

TEST(MemCtrlBroi, BarrierKeepsEpochOrderOfOneRequester)
{
    Bench b(broi_sets());
    simulate([&] {
        b.req->write(at_bank(1, 5), 0, 100, 2);   // requester 2 opens row 5 of bank 1 (bank busy 100 ns)
        gap();
        b.req->write(at_bank(0, 1), 0, 1, 1);     // requester 1, epoch 1: two row misses in bank 0
        gap();
        b.req->write(at_bank(0, 2), 0, 2, 1);
        gap();
        barrier(b, 1);
        gap();
        b.req->write(at_bank(1, 5), 0, 3, 1);     // epoch 2: a row hit in bank 1, fast if let go early
        gap();
        b.req->write(at_bank(2, 0), 0, 4, 1);
        gap();
        b.req->write(at_bank(3, 0), 0, 5, 2);     // requester 2 is not ordered after requester 1
    });
    auto &a = b.req->acks;
    ASSERT_EQ(a.size(), 6u);
    const uint64_t epoch1 = std::max(a[1], a[2]);
    EXPECT_GE(a[3], epoch1) << "epoch 2 durable before epoch 1";
    EXPECT_GE(a[4], epoch1) << "epoch 2 durable before epoch 1";
    EXPECT_LT(a[5], epoch1);                      // other threads are free
    EXPECT_EQ(a[3], epoch1 + 50 * kNs);           // starts when epoch 1 completes, row hit
    ASSERT_EQ(b.sink.w.size(), 6u);
    EXPECT_EQ(broi_stat(b, "broi_barriers"), 1);
    EXPECT_EQ(broi_stat(b, "broi_issued"), 6);
    EXPECT_EQ(b.pm->describe_stuck(), "");
}

// Figure 6(c) (the bank pattern of tests/core_broi_sched_test.cpp Figure6cChooses21First):
// thread 1: 1.1, 1.2 in bank 0; thread 2: 2.1 in bank 0, barrier, 2.2 in bank 1; thread 3: 3.1 in
// bank 0. BROI issues 2.1 first (it brings 2.2, a new bank, into the Ready-SET), then 3.1 beside
// 2.2 (bank 1); FIFO (one entry for every thread: the barrier orders everything before it) issues
// in arrival order, so 2.2 waits for 1.1, 1.2 and 2.1.
struct Fig6 {
    uint64_t ack[8] = {};   // tokens 1..5: 1.1, 1.2, 2.1, 2.2, 3.1
    int code = -1;
};
Fig6 run_fig6(Bench &b)
{
    simulate([&] {
        b.req->write(at_bank(0, 9), 0, 6, 5);    // requester 5 keeps bank 0 busy until 100 ns,
        b.req->write(at_bank(1, 9), 0, 7, 5);    // bank 1 too: the pattern is buffered before any issue
        gap();
        b.req->write(at_bank(0, 1), 0, 1, 0);    // 1.1
        gap();
        b.req->write(at_bank(0, 2), 0, 2, 0);    // 1.2
        gap();
        b.req->write(at_bank(0, 3), 0, 3, 1);    // 2.1
        gap();
        barrier(b, 1);
        gap();
        b.req->write(at_bank(1, 4), 0, 4, 1);    // 2.2
        gap();
        b.req->write(at_bank(0, 5), 0, 5, 2);    // 3.1
    });
    Fig6 f;
    f.code = (int)b.req->acks.size();
    for (auto &kv : b.req->acks)
        if (kv.first < 8) f.ack[kv.first] = kv.second;
    return f;
}
Fig6 run_fig6_fifo_in_child()   // SystemC elaborates once per process
{
    return run_in_child<Fig6>([] {
        Bench b(broi_sets({"broi.local_entries=1", "broi.units=16"}));
        return run_fig6(b);
    }, Fig6{});
}

TEST(MemCtrlBroi, Figure6BlpAwareChoiceBeatsFifo)
{
    const Fig6 fifo = run_fig6_fifo_in_child();
    ASSERT_EQ(fifo.code, 7) << "the FIFO run (forked child) failed";
    Bench b(broi_sets());
    const Fig6 blp = run_fig6(b);
    ASSERT_EQ(blp.code, 7);
    const uint64_t *B = blp.ack, *F = fifo.ack;
    // BROI: 2.1 first (100 ns, done 400), then 3.1 (200 ns) and 2.2 (bank 1, at 2.1's completion)
    // in parallel, then 1.1 and 1.2.
    EXPECT_EQ(B[3], 400 * kNs);
    EXPECT_LT(B[5], B[1]);
    EXPECT_LT(B[3], B[1]);
    EXPECT_EQ(B[4], 400 * kNs + 300 * kNs);
    EXPECT_EQ(B[5], 500 * kNs);
    // FIFO: arrival order on bank 0 (1.1 at 100 ns, 1.2, 2.1), 2.2 after all three complete.
    EXPECT_LT(F[1], F[2]);
    EXPECT_LT(F[2], F[3]);
    EXPECT_EQ(F[4], F[3] + 300 * kNs);
    // The BLP-aware choice makes thread 2's second epoch durable 200 ns sooner, and the last write too.
    EXPECT_EQ(F[4] - B[4], 200 * kNs);
    EXPECT_LT(*std::max_element(B + 1, B + 6), *std::max_element(F + 1, F + 6));
}

// The Epoch baseline of BROI Figure 3(a) (broi.epoch_merge, the model broi-epoch): every thread's
// i-th epoch is one global epoch, issued without BLP-aware choice (entry order: 1.1, 1.2, 2.1, 3.1
// on bank 0), and thread 2's second epoch (2.2, bank 1) starts only when every write of global
// epoch 0 is durable, 3.1 included; in the single queue (FIFO above) 3.1 came after the barrier,
// so there 2.2 waits for 2.1 only.
TEST(MemCtrlBroi, Figure3aMergedEpochsWaitForEveryThread)
{
    const Fig6 fifo = run_fig6_fifo_in_child();
    ASSERT_EQ(fifo.code, 7) << "the FIFO run (forked child) failed";
    Bench b(broi_sets({"broi.epoch_merge=true"}));
    const Fig6 m = run_fig6(b);
    ASSERT_EQ(m.code, 7);
    const uint64_t *M = m.ack, *F = fifo.ack;
    EXPECT_LT(M[1], M[2]);
    EXPECT_LT(M[2], M[3]);
    EXPECT_LT(M[3], M[5]);                       // 3.1 last on bank 0: no BLP-aware choice
    EXPECT_EQ(M[4], M[5] + 300 * kNs);           // 2.2 starts when global epoch 0 is durable
    EXPECT_GT(M[4], F[4]);
    EXPECT_EQ(broi_stat(b, "broi_issued"), 7);
    EXPECT_EQ(b.pm->describe_stuck(), "");
}

TEST(MemCtrlBroi, FullEntryBackPressuresInOrder)
{
    Bench b(broi_sets({"broi.units=2"}));
    simulate([&] {
        b.req->write(at_bank(0, 9), 0, 9, 2);    // requester 2 keeps bank 0 busy until 100 ns
        b.req->write(at_bank(1, 0), 0, 8, 2);    // and opens the row W4 will hit
        gap();
        b.req->write(at_bank(0, 1), 0, 1, 1);    // W1, W2 fill requester 1's entry (2 units)
        gap();
        b.req->write(at_bank(0, 2), 0, 2, 1);
        gap();
        b.req->write(at_bank(0, 3), 0, 3, 1);    // W3: refused, waits
        gap();
        barrier(b, 1);                          // behind W3: orders W1..W3 before W4
        gap();
        b.req->write(at_bank(1, 0), 0, 4, 1);    // W4, a free bank and a row hit: fast if let go early
    });
    auto &a = b.req->acks;
    ASSERT_EQ(a.size(), 6u);
    EXPECT_GE(a[4], a[3]) << "the barrier was applied before the write refused ahead of it";
    EXPECT_GE(a[4], a[1]);
    EXPECT_GE(a[4], a[2]);
    EXPECT_LT(a[1], a[2]);
    EXPECT_LT(a[2], a[3]);
    EXPECT_EQ(a[4], a[3] + 50 * kNs);            // W4 starts when W3 completes
    EXPECT_GT(broi_stat(b, "broi_full"), 0);
    EXPECT_EQ(broi_stat(b, "broi_peak_occupancy"), 2);   // never more than the entry holds
    EXPECT_EQ(b.pm->describe_stuck(), "");
}

TEST(MemCtrlBroi, GoesIdleWhenNothingIsBuffered)
{
    Bench b(broi_sets());
    uint64_t last_ack = 0;
    {
        Driver d("driver", [&] {
            b.req->write(at_bank(0, 1), 0, 1, 1);
            b.req->write(at_bank(0, 2), 0, 2, 1);   // bank 0 busy: waits 100 ns
            gap();
            barrier(b, 1);
            gap();
            b.req->write(at_bank(1, 0), 0, 3, 1);
        });
        // Stops at the last event instead of running to the limit: a front end that keeps waking
        // itself would reach 1 ms.
        sc_start(sc_time(1, SC_MS), SC_EXIT_ON_STARVATION);
    }
    for (auto &kv : b.req->acks) last_ack = std::max(last_ack, kv.second);
    ASSERT_EQ(b.req->acks.size(), 3u);
    EXPECT_FALSE(sc_pending_activity());
    // The last step issues W3 (at W2's completion, 400 ns, it is reserved on bank 1); nothing after.
    EXPECT_LE(now_ps(), 200 * kNs);
    EXPECT_EQ(last_ack, 400 * kNs + 300 * kNs);
    EXPECT_LE(broi_stat(b, "broi_steps"), 8);
    EXPECT_EQ(b.pm->describe_stuck(), "");
}

} // namespace

// LightWSP IV-F, power failure in each protocol phase. Two controllers, link 50 ns. Region 0 has a
// line at each controller (written at 0); its boundary reaches controller 0 at 100 ns and
// controller 1 at 200 ns (skewed paths); the bdry-ACKs arrive 50 ns after each. Power fails at
// `pf`; nothing arrives on the (volatile) persist paths after it, but ACKs between controllers do.
struct PfCase { uint64_t pf_ns; uint64_t durable_lines; double flush_id; double discarded; };
class WpqGatePowerFail : public ::testing::TestWithParam<PfCase> {};
TEST_P(WpqGatePowerFail, PhaseDecidesWhatCommits)
{
    const PfCase c = GetParam();
    Bench b({"nvm.controllers=2", "nvm.front_end=wpq_gate", "nvm.interleave_bytes=64"});
    simulate([&] {
        b.req->write(0x10000000000ull, 0, 1, 3);
        b.req->write(0x10000000040ull, 0, 2, 3);
        auto until = [&](uint64_t ns) {
            if (ns * kNs > now_ps()) wait(sc_time((double)(ns * kNs - now_ps()), SC_PS));
        };
        const uint64_t pf = c.pf_ns;
        if (pf > 100) {
            until(100);
            b.pm->ctrls[0]->deliver_with_writes(now_ps(), McMsg{McMsg::BOUNDARY, 0, 3});
        }
        if (pf > 200) {
            until(200);
            b.pm->ctrls[1]->deliver_with_writes(now_ps(), McMsg{McMsg::BOUNDARY, 0, 3});
        }
        until(pf);
        for (auto *m : b.pm->ctrls) m->power_fail(now_ps());
    });
    for (auto *m : b.pm->ctrls) EXPECT_TRUE(m->power_done());
    StatsWriter w;
    b.pm->report(w, now_ps());
    EXPECT_EQ(b.sink.w.size(), c.durable_lines);
    EXPECT_EQ(w.get("nvm0", "wpq_flush_id", -1), c.flush_id);     // the recovery point ...
    EXPECT_EQ(w.get("nvm1", "wpq_flush_id", -1), c.flush_id);     // ... the same everywhere
    EXPECT_EQ(w.get("nvm0", "pf_discarded", -1) + w.get("nvm1", "pf_discarded", -1), c.discarded);
}
INSTANTIATE_TEST_SUITE_P(
    Phases, WpqGatePowerFail,
    ::testing::Values(PfCase{50, 0, 0, 16},       // before any boundary: the region is discarded
                      PfCase{150, 0, 0, 16},      // boundary at one controller only: not persisted
                      PfCase{220, 2, 1, 0},       // boundary everywhere, a bdry-ACK in flight: commits on battery
                      PfCase{600, 2, 1, 0}),      // committed before the failure
    [](const auto &i) { return "pf_at_" + std::to_string(i.param.pf_ns) + "ns"; });
