// SystemC tests of the nvwfifo model (scoped persist barriers with NVW-FIFOs, sc_models/nvw.h):
// barrier semantics on small traces (p_barrier_wi stalls only its warp, p_barrier_wg waits for its
// whole workgroup, p_barrier_kr drains every L1 FIFO and orders across CUs), full FIFOs, the
// DRAM-only baseline, the B+tree and hash-table workloads under every model, and the Table 3
// statistic. Each case runs in its own process (SystemC elaborates once per process).
#include <gtest/gtest.h>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>
#include <unistd.h>
#include "sim.h"
#include "sc_fork.h"
#include "sc_test_util.h"
extern "C" {
#include "workload.h"
}

using namespace persim;

namespace {

const std::string kTable2 = std::string(PERSIM_SOURCE_DIR) + "/configs/gpu_scoped_barriers_table2.json";

double sum(const RunResult &r, const std::string &name) { return r.stats["summary"][name]["value"].get<double>(); }
double nvw(const RunResult &r, const std::string &name) { return r.stats["top.gpu.nvw"][name]["value"].get<double>(); }
double nvw_at(const RunResult &r, const std::string &hist, const std::string &label)
{
    return r.stats["top.gpu.nvw"][hist]["value"][label].get<double>();
}

// Every write as it becomes durable, in arrival order.
struct Durable {
    uint64_t ps, addr;
    std::vector<uint8_t> data;
    uint64_t mask[2];
};
struct Recorder : DurableSink {
    std::vector<Durable> ev;
    void on_durable(uint64_t t, uint64_t la, const uint8_t *data, const uint64_t mask[2], uint32_t lb, int) override
    {
        ev.push_back({t, la, std::vector<uint8_t>(data, data + lb), {mask[0], mask[1]}});
    }
    uint64_t first(uint64_t addr) const
    {
        uint64_t t = UINT64_MAX;
        for (auto &e : ev)
            if (e.addr == addr) t = std::min(t, e.ps);
        return t;
    }
};

RunResult run_trace(const std::string &name, const std::string &text, const std::string &model = "nvwfifo",
                    Recorder *rec = nullptr, const std::vector<std::string> &sets = {})
{
    RunSpec s = small_spec(model, "", sets);
    s.trace = write_trace("nvw_" + name, text);
    s.sink = rec;
    return run_simulation(s);
}

// Lines of PM at `base` + i * 0x1000 (distinct lines, distinct L2 banks).
std::string pm(uint64_t i) { char b[32]; std::snprintf(b, sizeof b, "0x%llx", 0x10000000000ull + i * 0x1000); return b; }

} // namespace

// ---- every workload runs and verifies under nvwfifo --------------------------------------------

class NvwAll : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(NvwAll, RunsAndVerifies)
{
    auto [wl, place] = GetParam();
    RunResult r = run_simulation(small_spec("nvwfifo", wl, {"system.pm_placement=" + place}));
    ASSERT_EQ(r.code, EXIT_OK) << r.status << ": " << r.message;
    EXPECT_TRUE(r.verified);
    EXPECT_GT(sum(r, "persisted_writes"), 0);
    // Every NV write went through the L1 FIFOs; every NV line the L2 received went through the L2
    // FIFO; and the kernel ends persisted what was left (nothing waits in a FIFO at the end).
    EXPECT_EQ(nvw(r, "l1_nv_writes"), sum(r, "pm_stores"));
    EXPECT_GT(nvw(r, "l2_nv_writes"), 0);
    EXPECT_GE(nvw(r, "barriers_kernel_end"), 4);
    EXPECT_EQ(nvw(r, "l2_writebacks") + nvw(r, "l2_nv_evictions"), sum(r, "persisted_writes"));
}

INSTANTIATE_TEST_SUITE_P(
    Sc, NvwAll,
    ::testing::Values(std::make_tuple("gpkvs", "near"), std::make_tuple("hm", "near"), std::make_tuple("srad", "near"),
                      std::make_tuple("reduction", "near"), std::make_tuple("mq", "near"), std::make_tuple("scan", "near"),
                      std::make_tuple("btree-kr", "near"), std::make_tuple("btree-wg", "near"),
                      std::make_tuple("hashtable-wi", "near"), std::make_tuple("reduction", "far"),
                      std::make_tuple("btree-wg", "far"), std::make_tuple("gpkvs", "far")),
    [](const auto &info) {
        std::string n = std::get<0>(info.param) + "_" + std::get<1>(info.param);
        std::replace(n.begin(), n.end(), '-', '_');
        return n;
    });

// ---- the persistent state alone is a correct result (everything was persisted) -------------------

class NvwDurableImage : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(NvwDurableImage, DurableWritesAloneVerify)
{
    auto [wl, pipelined] = GetParam();
    Recorder rec;
    RunSpec s = small_spec("nvwfifo", wl, {std::string("persist.nvw_l2_pipelined=") + (pipelined ? "true" : "false")});
    s.sink = &rec;
    RunResult r = run_simulation(s);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    // Rebuild the workload's initial image with the parameters the run used, apply the durable
    // writes in durability order, and let the workload's own verify judge it.
    const persim_workload *w = wl_find(wl.c_str());
    ASSERT_NE(w, nullptr);
    wl_params prm{};
    prm.size = w->small_size;
    prm.seed = (uint64_t)s.cfg.i("sim.seed");
    prm.num_sms = (uint32_t)s.cfg.i("gpu.num_sms");
    prm.max_threads_per_block = (uint32_t)s.cfg.i("gpu.max_threads_per_block");
    prm.max_warps_per_sm = (uint32_t)s.cfg.i("gpu.max_warps_per_sm");
    prm.pm_base = (uint64_t)s.cfg.i("system.pm_base");
    prm.vol_base = PERSIM_VOL_BASE;
    persim_prog *p = prog_new();
    mem_image *img = mem_new();
    void *ctx = nullptr;
    char err[512] = "";
    ASSERT_EQ(w->build(&prm, p, img, &ctx, err, sizeof err), 0) << err;
    char msg[512] = "";
    EXPECT_NE(w->verify(ctx, img, msg, sizeof msg), 0) << "the initial image must not verify";
    std::stable_sort(rec.ev.begin(), rec.ev.end(), [](const Durable &a, const Durable &b) { return a.ps < b.ps; });
    for (auto &e : rec.ev) mem_write_masked(img, e.addr, e.data.data(), (uint32_t)e.data.size(), e.mask);
    EXPECT_EQ(w->verify(ctx, img, msg, sizeof msg), 0) << msg;
    w->free_ctx(ctx);
    mem_free(img);
    prog_free(p);
}

INSTANTIATE_TEST_SUITE_P(Sc, NvwDurableImage,
                         ::testing::Combine(::testing::Values("btree-kr", "btree-wg", "hashtable-wi"),
                                            ::testing::Bool()),
                         [](const auto &info) {
                             std::string n = std::get<0>(info.param) + (std::get<1>(info.param) ? "_pipelined" : "_literal");
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

// ---- barrier semantics ---------------------------------------------------------------------------

namespace {
// Block 0: warp 0 persists eight lines, then the barrier, then one more line; warp 1 computes for
// a long time (10000 cycles, several barrier latencies) first and then reaches the same barrier.
std::string two_warps(const std::string &scope)
{
    std::string t = "persim-trace 1\nkernel k blocks=1 threads=64\nwarp 0 0\n";
    for (int i = 0; i < 8; ++i) t += "st " + pm(i) + " 4 = " + std::to_string(i + 1) + "\n";
    t += "pbarrier " + scope + "\nst " + pm(100) + " 4 = 9\n";
    t += "warp 0 1\ncompute 10000\npbarrier " + scope + "\n";
    return t;
}
} // namespace

// p_barrier_wi: only the issuing wavefront waits; the other one never waits for warp 0's barrier
// (and warp 0 never waits for warp 1's 10000-cycle computation).
TEST(NvwBarrier, WiStallsOnlyTheIssuingWarp)
{
    Recorder rec;
    RunResult r = run_trace("wi", two_warps("warp"), "nvwfifo", &rec);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(nvw(r, "barriers_wi"), 2);
    EXPECT_EQ(nvw(r, "barriers_wg"), 0);
    const double stall = sum(r, "stall_barrier_cycles");
    EXPECT_GT(stall, 0);
    EXPECT_LT(stall, 5000) << "a wavefront waited for the other wavefront's computation";
    for (int i = 0; i < 8; ++i) EXPECT_LT(rec.first(0x10000000000ull + i * 0x1000), rec.first(0x10000000000ull + 100 * 0x1000));
}

// p_barrier_wg: warp 0 first waits for the whole workgroup (warp 1's 10000-cycle computation).
TEST(NvwBarrier, WgWaitsForTheWholeWorkgroup)
{
    Recorder rec;
    RunResult r = run_trace("wg", two_warps("block"), "nvwfifo", &rec);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(nvw(r, "barriers_wg"), 1) << "one barrier for the whole workgroup";
    EXPECT_EQ(nvw(r, "barriers_wi"), 0);
    EXPECT_GT(sum(r, "stall_barrier_cycles"), 9900) << "warp 0 did not wait for warp 1";
    for (int i = 0; i < 8; ++i) EXPECT_LT(rec.first(0x10000000000ull + i * 0x1000), rec.first(0x10000000000ull + 100 * 0x1000));
    EXPECT_EQ(nvw_at(r, "pbarrier_writes_wg", "1"), 8) << "the workgroup's NV writes before the barrier";
}

// A workgroup barrier does not wait for another workgroup on the same CU.
TEST(NvwBarrier, WgIgnoresOtherWorkgroups)
{
    std::string t = "persim-trace 1\nkernel k blocks=2 threads=32\n"
                    "warp 0 0\nst " + pm(1) + " 4 = 1\npbarrier block\nst " + pm(2) + " 4 = 2\n"
                    "warp 1 0\ncompute 10000\npbarrier block\n";
    RunResult r = run_trace("wg2", t, "nvwfifo", nullptr, {"gpu.num_sms=1"});
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(nvw(r, "barriers_wg"), 2);
    EXPECT_LT(sum(r, "stall_barrier_cycles"), 5000) << "block 0 waited for block 1";
}

namespace {
// Four blocks (one per SM of gpu_small); block 3 is late. Each persists four lines, then the
// persist barrier, then one line and another barrier (which persists that line early).
std::string four_blocks(const std::string &scope)
{
    std::string t = "persim-trace 1\nkernel k blocks=4 threads=32\n";
    for (int b = 0; b < 4; ++b) {
        t += "warp " + std::to_string(b) + " 0\n";
        if (b == 3) t += "compute 4000\n";
        for (int i = 0; i < 4; ++i) t += "st " + pm(b * 16 + i) + " 4 = " + std::to_string(b * 16 + i + 1) + "\n";
        if (scope == "device") t += "sync device\n";
        t += "pbarrier " + scope + "\nst " + pm(1000 + b) + " 4 = 7\npbarrier " + scope + "\n";
    }
    return t;
}
uint64_t latest_pre(const Recorder &rec)
{
    uint64_t t = 0;
    for (int b = 0; b < 4; ++b)
        for (int i = 0; i < 4; ++i) t = std::max(t, rec.first(0x10000000000ull + (uint64_t)(b * 16 + i) * 0x1000));
    return t;
}
uint64_t earliest_post(const Recorder &rec)
{
    uint64_t t = UINT64_MAX;
    for (int b = 0; b < 4; ++b) t = std::min(t, rec.first(0x10000000000ull + (uint64_t)(1000 + b) * 0x1000));
    return t;
}
} // namespace

// p_barrier_kr: markers go into every L1 FIFO; every NV write before the barrier on every CU is
// durable before any write after it.
TEST(NvwBarrier, KrDrainsEveryL1FifoAndOrdersAcrossCus)
{
    Recorder rec;
    RunResult r = run_trace("kr", four_blocks("device"), "nvwfifo", &rec);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(nvw(r, "barriers_kr"), 2);
    EXPECT_EQ(nvw(r, "l1_markers"), 4 + 4 + 4) << "one marker per L1 FIFO and barrier, plus the kernel-end markers";
    EXPECT_EQ(nvw(r, "l1_nv_writes"), 20);
    EXPECT_EQ(nvw_at(r, "pbarrier_writes_kr", "1"), 16);
    ASSERT_NE(earliest_post(rec), UINT64_MAX);
    EXPECT_LT(latest_pre(rec), earliest_post(rec));
}

// The same program with workgroup scope does not order across workgroups: an early block's write
// after its barrier persists before the late block's writes before its barrier (scope too narrow
// for cross-workgroup dependencies, the paper's point 1).
TEST(NvwBarrier, WgDoesNotOrderAcrossWorkgroups)
{
    Recorder rec;
    RunResult r = run_trace("wgx", four_blocks("block"), "nvwfifo", &rec);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(nvw(r, "barriers_wg"), 8);
    EXPECT_GT(latest_pre(rec), earliest_post(rec));
}

// The scoped persist barrier of the trace format holds under the other models too (they lower a
// block/device pbarrier to execution barriers around their own barrier primitive).
class PbarrierOtherModels : public ::testing::TestWithParam<std::string> {};
TEST_P(PbarrierOtherModels, DeviceScopeOrdersAcrossSms)
{
    Recorder rec;
    RunResult r = run_trace("kr_" + GetParam(), four_blocks("device"), GetParam(), &rec);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    ASSERT_NE(earliest_post(rec), UINT64_MAX);
    EXPECT_LT(latest_pre(rec), earliest_post(rec));
}
INSTANTIATE_TEST_SUITE_P(Sc, PbarrierOtherModels, ::testing::Values("epoch", "gpm", "sbrp", "nvwfifo"));

// A full L1 FIFO pushes its oldest entries out without any barrier; a big one does not.
TEST(NvwFifo, FullL1FifoForcesFlushes)
{
    std::string t = "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n";
    for (int i = 0; i < 40; ++i) t += "st " + pm(i) + " 4 = 1\n";
    RunResult r = run_trace("full", t);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_GE(nvw(r, "l1_forced"), 40 - 16);
    EXPECT_LE(nvw(r, "l1_peak_occupancy"), 16);
}

TEST(NvwFifo, LargeL1FifoHoldsEverything)
{
    std::string t = "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n";
    for (int i = 0; i < 40; ++i) t += "st " + pm(i) + " 4 = 1\n";
    RunResult r = run_trace("big", t, "nvwfifo", nullptr, {"persist.nvw_l1_entries=64"});
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(nvw(r, "l1_forced"), 0);
    EXPECT_EQ(nvw(r, "l1_peak_occupancy"), 40);
}

// SBRP section 6.1 example under nvwfifo: `order` is a p_barrier_wi, so X=c is not durable before Y=b.
TEST(NvwFifo, OrderIsAWorkitemBarrier)
{
    Recorder rec;
    std::string t = "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n"
                    "st 0x10000000000 4 = 0xa\nst 0x10000001000 4 = 0xb\norder\nst 0x10000000000 4 = 0xc\n";
    RunResult r = run_trace("sec61", t, "nvwfifo", &rec);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    uint64_t y = rec.first(0x10000001000ull), xc = UINT64_MAX;
    for (auto &e : rec.ev)
        if (e.addr == 0x10000000000ull && e.data[0] == 0xc) xc = std::min(xc, e.ps);
    ASSERT_NE(xc, UINT64_MAX);
    EXPECT_LT(y, xc);
}

// The pipelined L2 FIFO keeps the ordering guarantee of the kernel-scope barrier.
TEST(NvwFifo, PipelinedL2KeepsKernelScopeOrder)
{
    Recorder rec;
    RunResult r = run_trace("krp", four_blocks("device"), "nvwfifo", &rec, {"persist.nvw_l2_pipelined=true"});
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(nvw(r, "l2_pipelined"), 1);
    EXPECT_LT(latest_pre(rec), earliest_post(rec));
}

// ---- DRAM-only baseline ----------------------------------------------------------------------------

TEST(NvwDram, PmInDramDoesNoPersistWork)
{
    RunResult r = run_simulation(small_spec("nvwfifo", "btree-wg", {"system.pm_in_dram=true"}));
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_TRUE(r.verified);
    EXPECT_EQ(sum(r, "persisted_writes"), 0);
    EXPECT_EQ(sum(r, "pm_stores"), 0);
    EXPECT_EQ(nvw(r, "barriers_wg") + nvw(r, "barriers_kr") + nvw(r, "barriers_wi"), 0);
    EXPECT_EQ(sum(r, "stall_barrier_cycles"), 0);
    EXPECT_GT(r.stats["top.nvm0"]["writes"]["value"].get<double>() + r.stats["top.nvm0"]["reads"]["value"].get<double>(), 0)
        << "the persistent region still lives on its own channels (with DRAM timing)";
}

// ---- B+tree under every model, and the Table 3 statistic ---------------------------------------

class BtreeAllModels : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};
TEST_P(BtreeAllModels, Verifies)
{
    auto [wl, model] = GetParam();
    RunResult r = run_simulation(small_spec(model, wl));
    ASSERT_EQ(r.code, EXIT_OK) << r.status << ": " << r.message;
    EXPECT_TRUE(r.verified);
}
INSTANTIATE_TEST_SUITE_P(Sc, BtreeAllModels,
                         ::testing::Combine(::testing::Values("btree-kr", "btree-wg", "hashtable-wi"),
                                            ::testing::Values("epoch", "gpm", "sbrp")),
                         [](const auto &info) {
                             std::string n = std::get<0>(info.param) + "_" + std::get<1>(info.param);
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

// Both algorithms write the same nodes at the leaf level: the kernel-scope barrier persists all of
// them at once, the workgroup-scope barriers a workgroup's share each; fewer writes per level up.
TEST(BtreeTable3, WritesPerBarrierByScope)
{
    RunResult kr = run_simulation(small_spec("nvwfifo", "btree-kr", {}, kTable2));
    ASSERT_EQ(kr.code, EXIT_OK) << kr.message;
    const double leaf = nvw_at(kr, "pbarrier_writes_kr", "1");
    EXPECT_GT(leaf, 0);
    EXPECT_GT(leaf, nvw_at(kr, "pbarrier_writes_kr", "2"));
    EXPECT_EQ(nvw_at(kr, "pbarrier_count_kr", "1"), 1);
    // the header store, persisted by the final p_barrier_wi (the position after every level)
    const auto &wi = kr.stats["top.gpu.nvw"]["pbarrier_writes_wi"]["value"];
    ASSERT_GE(wi.size(), 2u);
    EXPECT_EQ(wi[std::to_string(wi.size())].get<double>(), 1);
    EXPECT_EQ(wi.size(), kr.stats["top.gpu.nvw"]["pbarrier_writes_kr"]["value"].size() + 1);
}

TEST(BtreeTable3, WorkgroupBarriersSplitTheLeafLevel)
{
    RunResult wg = run_simulation(small_spec("nvwfifo", "btree-wg", {}, kTable2));
    ASSERT_EQ(wg.code, EXIT_OK) << wg.message;
    const double n = nvw_at(wg, "pbarrier_count_wg", "1"), mean = nvw_at(wg, "pbarrier_writes_wg", "1");
    EXPECT_GT(n, 1) << "one leaf-level barrier per workgroup";
    EXPECT_GT(mean, 0);
    // The leaf level holds most of the NV writes: a leaf-level workgroup barrier covers 1/n of them.
    EXPECT_LT(mean, nvw(wg, "l1_nv_writes") / n * 1.0 + 1);
}

// ---- issue 21: the number of markers in flight in the L2 FIFO, and Algorithm 2's workgroup count --
// (SystemC elaborates once per process: every run here is a forked child, tests/sc_fork.h.)

namespace {
struct Figs {
    int code = -1, verified = 0;
    double sim_ns = 0, max_markers = 0, waiting_peak = 0, barriers_wg = 0, barriers_kr = 0;
    char msg[400] = {0};
};

Figs figs(const std::vector<std::string> &sets)
{
    Figs failed;
    std::snprintf(failed.msg, sizeof failed.msg, "child failed");
    return run_in_child<Figs>(
        [&]() {
            Figs f;
            try {
                RunResult r = run_simulation(small_spec("nvwfifo", "btree-wg", sets));
                f.code = r.code;
                f.verified = r.verified;
                std::snprintf(f.msg, sizeof f.msg, "%s", r.message.c_str());
                if (r.code == EXIT_OK) {
                    f.sim_ns = sum(r, "sim_ns");
                    f.max_markers = nvw(r, "l2_max_markers");
                    f.waiting_peak = nvw(r, "l2_waiting_peak");
                    f.barriers_wg = nvw(r, "barriers_wg");
                    f.barriers_kr = nvw(r, "barriers_kr");
                }
            } catch (const ConfigError &e) {
                f.code = -2;
                std::snprintf(f.msg, sizeof f.msg, "%s", e.what());
            }
            return f;
        },
        failed);
}
} // namespace

// persist.nvw_l2_markers bounds the markers that wait aside in the pipelined L2 FIFO; without
// pipelining, 1 is the blocking FIFO of section 6.1 (the default). Fails if the key is ignored (the unbounded FIFO lets
// more than 2 markers wait in this run, and bounding them changes the timing).
TEST(NvwFifo, L2MarkersKeyBoundsTheWaitingMarkers)
{
    const Figs inf = figs({"persist.nvw_l2_pipelined=true"});
    ASSERT_EQ(inf.code, EXIT_OK) << inf.msg;
    EXPECT_TRUE(inf.verified);
    EXPECT_EQ(inf.max_markers, 65534);
    ASSERT_GT(inf.waiting_peak, 2) << "the run must let more than 2 markers wait for the test to mean anything";
    const Figs two = figs({"persist.nvw_l2_pipelined=true", "persist.nvw_l2_markers=2"});
    ASSERT_EQ(two.code, EXIT_OK) << two.msg;
    EXPECT_TRUE(two.verified);
    EXPECT_EQ(two.max_markers, 2);
    EXPECT_EQ(two.waiting_peak, 2);
    EXPECT_GT(two.sim_ns, inf.sim_ns) << "2 waiting markers must cost time against unbounded";
    const Figs def = figs({});
    const Figs one = figs({"persist.nvw_l2_markers=1"});
    ASSERT_EQ(def.code, EXIT_OK) << def.msg;
    ASSERT_EQ(one.code, EXIT_OK) << one.msg;
    EXPECT_EQ(one.max_markers, 1);
    EXPECT_EQ(one.waiting_peak, 0) << "the blocking FIFO keeps its marker at the head";
    EXPECT_EQ(one.sim_ns, def.sim_ns) << "1 = the default, section 6.1 as written";
    EXPECT_GT(one.sim_ns, two.sim_ns);
    // one waiting marker, entries behind it draining: not the blocking FIFO
    const Figs p1 = figs({"persist.nvw_l2_pipelined=true", "persist.nvw_l2_markers=1"});
    ASSERT_EQ(p1.code, EXIT_OK) << p1.msg;
    EXPECT_TRUE(p1.verified);
    EXPECT_EQ(p1.max_markers, 1);
    EXPECT_EQ(p1.waiting_peak, 1);
    EXPECT_NE(p1.sim_ns, one.sim_ns);
}

TEST(NvwFifo, L2MarkersKeyContradictingPipelinedIsAnError)
{
    const Figs b = figs({"persist.nvw_l2_markers=4"});
    EXPECT_EQ(b.code, -2);
    EXPECT_NE(std::string(b.msg).find("persist.nvw_l2_markers=4"), std::string::npos) << b.msg;
    EXPECT_NE(std::string(b.msg).find("persist.nvw_l2_pipelined=true"), std::string::npos) << b.msg;
    const Figs c = figs({"persist.nvw_l2_pipelined=true", "persist.nvw_l2_markers=65535"});
    EXPECT_EQ(c.code, -2);
    EXPECT_NE(std::string(c.msg).find("persist.nvw_l2_markers"), std::string::npos) << c.msg;
}

// workload.btree_wgs_est reaches Algorithm 2 through the configuration: fewer workgroups, more levels
// under workgroup scope, fewer kernel-scope barriers. Fails if the key is ignored.
TEST(BtreeTable3, WorkgroupCountKeyReachesAlgorithm2)
{
    const Figs def = figs({});
    const Figs few = figs({"workload.btree_wgs_est=5"});
    ASSERT_EQ(def.code, EXIT_OK) << def.msg;
    ASSERT_EQ(few.code, EXIT_OK) << few.msg;
    EXPECT_TRUE(def.verified);
    EXPECT_TRUE(few.verified);
    // 8192 keys: levels of 683 (leaves), 53, 5, 1 nodes; 2048 inserts / 256 = 8 -> 53 workgroups
    EXPECT_EQ(def.barriers_wg, 53 * 2);
    EXPECT_EQ(few.barriers_wg, 5 * 3);
    EXPECT_LT(few.barriers_kr, def.barriers_kr);
}
