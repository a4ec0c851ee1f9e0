// SystemC integration tests: whole-system runs on a small GPU. Each test case runs in its own
// process (SystemC elaborates once per process).
#include <gtest/gtest.h>
#include <unistd.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>
#include "sc_fork.h"
#include "sim.h"
#include "sc_test_util.h"
#include "timed_queue.h"

using namespace persim;

namespace {

double stat(const RunResult &r, const std::string &name) { return r.stats["summary"][name]["value"].get<double>(); }

struct Durable {
    uint64_t ps;
    uint64_t addr;
    uint8_t byte0;
};
struct Recorder : DurableSink {
    std::vector<Durable> ev;
    void on_durable(uint64_t t, uint64_t la, const uint8_t *data, const uint64_t mask[2], uint32_t, int) override
    {
        (void)mask;
        ev.push_back({t, la, data[0]});
    }
};

} // namespace

class AllWorkloads : public ::testing::TestWithParam<std::tuple<std::string, std::string, std::string>> {};

TEST_P(AllWorkloads, RunsAndVerifies)
{
    auto [wl, model, place] = GetParam();
    RunSpec s = small_spec(model, wl, {"system.pm_placement=" + place});
    RunResult r = run_simulation(s);
    ASSERT_EQ(r.code, EXIT_OK) << r.status << ": " << r.message;
    EXPECT_TRUE(r.verified);
    EXPECT_GT(r.instructions, 0u);
    EXPECT_GT(stat(r, "persisted_writes"), 0);
    EXPECT_GT(stat(r, "sim_ns"), 0);
    // Every PM line flushed from an L1 reaches the persistence domain.
    EXPECT_EQ(stat(r, "pm_flushes"), stat(r, "persisted_writes"));
}

INSTANTIATE_TEST_SUITE_P(
    Sc, AllWorkloads,
    ::testing::Combine(::testing::Values("gpkvs", "hm", "srad", "reduction", "mq", "scan"),
                       ::testing::Values("epoch", "gpm", "sbrp"), ::testing::Values("near", "far")),
    [](const auto &info) {
        return std::get<0>(info.param) + "_" + std::get<1>(info.param) + "_" + std::get<2>(info.param);
    });

// Section 6.1 example: pX=a; pY=b; oFence; pX=c. X=c must not be durable before Y=b.
namespace {
RunResult run_sec61(const std::string &policy, Recorder &rec)
{
    std::string t = write_trace("sec61_" + policy,
                                "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n"
                                "st 0x10000000000 4 = 0xa\n"
                                "st 0x10000001000 4 = 0xb\n"
                                "order\n"
                                "st 0x10000000000 4 = 0xc\n"
                                "durable\n");
    RunSpec s = small_spec("sbrp", "", {"persist.flush_policy=" + policy});
    s.trace = t;
    s.sink = &rec;
    return run_simulation(s);
}
void expect_y_before_xc(const Recorder &rec)
{
    uint64_t y = 0, xc = 0;
    for (auto &e : rec.ev) {
        if (e.addr == 0x10000001000ull) y = e.ps;
        if (e.addr == 0x10000000000ull && e.byte0 == 0xc) xc = e.ps;
    }
    ASSERT_GT(y, 0u);
    ASSERT_GT(xc, 0u) << "X=c never persisted";
    EXPECT_GT(xc, y);
}
} // namespace

// Lazy policy: X=a and Y=b are still buffered when X=c arrives, so the store stalls in the EDM.
TEST(SbrpOrder, Sec61StoreStallsInEdmUnderLazy)
{
    Recorder rec;
    RunResult r = run_sec61("lazy", rec);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    expect_y_before_xc(rec);
    EXPECT_GT(stat(r, "stall_edm_cycles"), 0);
    EXPECT_EQ(r.stats["top.gpu.sm00.l1.pb"]["stall_order"]["value"].get<int>(), 1);
}

// Window policy: X=a already left the PB; X=c gets a new entry held by the FSM until Y=b is acked.
TEST(SbrpOrder, Sec61OrderedByFsmUnderWindow)
{
    Recorder rec;
    RunResult r = run_sec61("window", rec);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    expect_y_before_xc(rec);
    EXPECT_GE(r.stats["top.gpu.sm00.l1.pb"]["fsm_blocks"]["value"].get<int>(), 1);
}

// oFence does not stall the warp under SBRP; the epoch barrier does. Both runs of gpkvs in one test:
// SystemC elaborates once per process, so the epoch run goes to a forked child, which hands back
// the figures it needs through a pipe (the parent has not elaborated anything when it forks).
namespace {
// Sum of figure `key` over the groups top.gpu.smNN<suffix> (suffix "" = the SM itself, ".l1.pb" = its PB).
double sm_sum(const RunResult &r, const std::string &suffix, const std::string &key)
{
    double sum = 0;
    for (auto it = r.stats.begin(); it != r.stats.end(); ++it) {
        const std::string &g = it.key();
        if (g.rfind("top.gpu.sm", 0) != 0 || g.size() < suffix.size()) continue;
        std::string id = g.substr(10, g.size() - 10 - suffix.size());
        if (g.compare(g.size() - suffix.size(), suffix.size(), suffix) != 0 || id.empty() ||
            id.find_first_not_of("0123456789") != std::string::npos)
            continue;
        if (it.value().contains(key)) sum += it.value()[key]["value"].get<double>();
    }
    return sum;
}
struct EpochFigures {
    int code = -1;
    double stall_barrier = -1, stall_odm = -1, epoch_barriers = -1;
};
EpochFigures run_epoch_gpkvs_in_child()
{
    return run_in_child<EpochFigures>([] {
        EpochFigures c;
        RunResult e = run_simulation(small_spec("epoch", "gpkvs"));
        c.code = e.code;
        c.stall_barrier = stat(e, "stall_barrier_cycles");
        c.stall_odm = stat(e, "stall_odm_cycles");
        c.epoch_barriers = sm_sum(e, "", "prim_epoch_bar");
        return c;
    }, EpochFigures{});
}
} // namespace

TEST(SbrpVsEpoch, OFenceDoesNotStallEpochBarrierDoes)
{
    EpochFigures e = run_epoch_gpkvs_in_child();   // before this process elaborates its own system
    ASSERT_EQ(e.code, EXIT_OK) << "the epoch run (forked child) failed";
    RunResult s = run_simulation(small_spec("sbrp", "gpkvs"));
    ASSERT_EQ(s.code, EXIT_OK) << s.message;
    // SBRP: the warps issue oFences, and no warp cycle is spent stalled on a barrier.
    EXPECT_GT(sm_sum(s, "", "prim_ofence"), 0);
    EXPECT_EQ(stat(s, "stall_barrier_cycles"), 0);
    // Epoch: the same ordering points are epoch barriers (one per ordering operation the SBRP PBs
    // saw), and the warps stall on them, not on the persist buffer's ODM.
    EXPECT_GT(e.epoch_barriers, 0);
    EXPECT_EQ(e.epoch_barriers, sm_sum(s, ".l1.pb", "fences"));
    EXPECT_GT(e.stall_barrier, 0);
    EXPECT_EQ(e.stall_odm, 0);
}

TEST(SbrpVsEpoch, EpochBarriersStall)
{
    RunResult e = run_simulation(small_spec("epoch", "gpkvs"));
    ASSERT_EQ(e.code, EXIT_OK) << e.message;
    EXPECT_GT(stat(e, "stall_barrier_cycles"), 0);
    EXPECT_EQ(stat(e, "stall_odm_cycles"), 0);
}

// A tiny persist buffer fills up and stalls warps.
TEST(SbrpPb, TinyBufferStallsOnFull)
{
    RunResult r = run_simulation(small_spec("sbrp", "gpkvs", {"persist.pb_entries=2", "persist.flush_policy=lazy"}));
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_GT(stat(r, "stall_pb_full_cycles"), 0);
}

// eADR shortens the persist round trip on PM-far (durable at the host LLC).
TEST(Eadr, ShortensPersistLatency)
{
    RunResult a = run_simulation(small_spec("sbrp", "gpkvs", {"system.pm_placement=far", "system.eadr=true"}));
    ASSERT_EQ(a.code, EXIT_OK) << a.message;
    EXPECT_EQ(a.stats["top.nvm0"]["eadr"]["value"].get<int>(), 1);
    EXPECT_LT(a.stats["top.nvm0"]["avg_persist_latency_ns"]["value"].get<double>(), 100.0);
}

// Under ADR a write is durable once the NVM controller's WPQ accepts it, so its persist latency is
// the time it waited for a WPQ entry: avg_persist_latency_ns x persisted_writes equals the WPQ
// wait (wpq_stall_ns). With the default 64-entry WPQ small gpkvs never fills it (latency 0, which
// would prove nothing); 8 entries make the queue wait.
TEST(Eadr, AdrPersistLatencyIncludesNvmQueue)
{
    RunResult a = run_simulation(small_spec("sbrp", "gpkvs", {"system.pm_placement=far", "nvm.wpq_entries=8"}));
    ASSERT_EQ(a.code, EXIT_OK) << a.message;
    const auto &nvm = a.stats["top.nvm0"];
    EXPECT_EQ(nvm["eadr"]["value"].get<int>(), 0);
    EXPECT_GT(a.stats["top.pcie"]["down_payload_bytes"]["value"].get<double>(), 0);
    const double lat = nvm["avg_persist_latency_ns"]["value"].get<double>();
    const double writes = nvm["persisted_writes"]["value"].get<double>();
    const double queue_ns = nvm["wpq_stall_ns"]["value"].get<double>();
    EXPECT_GT(nvm["wpq_full_stalls"]["value"].get<double>(), 0) << "the WPQ never filled: nothing to include";
    EXPECT_GT(writes, 0);
    EXPECT_GT(lat, 0);
    EXPECT_NEAR(lat * writes, queue_ns, 1e-6 * queue_ns) << "ADR persist latency is not the NVM queue wait";
}

// Every memory-controller front end plugs into the GPU: a front end that acknowledges late (broi:
// when the device write completes) reaches the L1s through the crossbar (and PCIe when far).
namespace {
struct LateFigures {
    int code = -1;
    bool verified = false;
    double ctrl_late = -1, l1_late = -1, persisted = -1;
};
LateFigures late_ack_run(const std::string &placement)
{
    RunResult r = run_simulation(small_spec("sbrp", "reduction", {"nvm.front_end=broi", "system.pm_placement=" + placement}));
    LateFigures f;
    f.code = r.code;
    f.verified = r.verified;
    f.ctrl_late = r.stats["top.nvm0"].contains("late_acks") ? r.stats["top.nvm0"]["late_acks"]["value"].get<double>() : 0;
    f.l1_late = sm_sum(r, ".l1", "late_acks");
    f.persisted = stat(r, "persisted_writes");
    return f;
}
} // namespace

TEST(GpuFrontEnds, BroiAcknowledgesLateThroughCrossbarAndPcie)
{
    const LateFigures far = run_in_child<LateFigures>([] { return late_ack_run("far"); }, LateFigures{});
    const LateFigures near = late_ack_run("near");
    for (const LateFigures &f : {near, far}) {
        ASSERT_EQ(f.code, EXIT_OK);
        EXPECT_TRUE(f.verified);
        EXPECT_GT(f.persisted, 0);
        EXPECT_EQ(f.ctrl_late, f.persisted);   // every persist acknowledged by the front end's decision
        EXPECT_EQ(f.l1_late, f.persisted);     // and each reached its L1 as a late acknowledgement
    }
}

TEST(GpuFrontEnds, LateFrontEndWithL2WriteBackModelIsRejected)
{
    try {
        run_simulation(small_spec("nvwfifo", "reduction", {"nvm.front_end=broi"}));
        FAIL() << "no error";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("nvm.front_end"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("nvwfifo"), std::string::npos) << e.what();
    }
}

// The time-ordered queue the wrappers share (sc_models/timed_queue.h): no SystemC in it.
TEST(TimedQueue, OrdersByTimeThenPushOrder)
{
    TimedQueue<int> q;
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.size(), 0u);
    std::vector<int> got;
    q.pop_due(UINT64_MAX, [&](int v) { got.push_back(v); });   // nothing due in an empty queue
    EXPECT_TRUE(got.empty());
    for (int v : {1, 2, 3, 4, 5, 6}) q.push(v, v % 2 ? 300 : 100);   // 2, 4, 6 at 100; 1, 3, 5 at 300
    q.push(7, 200);
    EXPECT_EQ(q.size(), 7u);
    EXPECT_EQ(q.next_at(), 100u);
    q.pop_due(99, [&](int v) { got.push_back(v); });
    EXPECT_TRUE(got.empty());
    q.pop_due(200, [&](int v) { got.push_back(v); });                // due at or before now
    EXPECT_EQ(got, (std::vector<int>{2, 4, 6, 7}));
    EXPECT_EQ(q.next_at(), 300u);
    got.clear();
    q.pop_due(300, [&](int v) {
        got.push_back(v);
        if (v == 1) q.push(8, 250);          // pushed while popping, already due: handled in this call
        if (v == 3) q.push(9, 400);          // not due yet: stays
    });
    EXPECT_EQ(got, (std::vector<int>{1, 8, 3, 5}));
    EXPECT_EQ(q.size(), 1u);
    EXPECT_EQ(q.next_at(), 400u);
    q.clear();
    EXPECT_TRUE(q.empty());
}

TEST(TimedQueue, OrderKeyBreaksTiesNotPushOrder)
{
    TimedQueue<char> q;
    q.push('c', 50, 3);
    q.push('a', 50, 1);
    q.push('d', 10, 9);
    q.push('b', 50, 2);
    std::string got;
    q.pop_due(50, [&](char c) { got += c; });
    EXPECT_EQ(got, "dabc");
    EXPECT_TRUE(q.empty());
}
