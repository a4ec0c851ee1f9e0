// SystemC integration tests of the cpu system (system.kind = cpu; LightWSP and its baselines,
// docs/models/lightwsp.md) on configs/cpu_small.json. Each test case runs in its own process;
// tests comparing two runs run one of them in a forked child (tests/sc_fork.h).
#include <gtest/gtest.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>
#include "sc_fork.h"
#include "sim.h"
#include "sc_test_util.h"

using namespace persim;

namespace {

// On configs/cpu_small.json with the crash check on (before `sets`).
RunSpec cpu_spec(const std::string &model, const std::string &workload, const std::vector<std::string> &sets = {})
{
    std::vector<std::string> all = {"sim.crash_check=true"};
    all.insert(all.end(), sets.begin(), sets.end());
    return small_spec(model, workload, all, kCpuSmall);
}

double sum(const RunResult &r, const std::string &name) { return r.stats["summary"][name]["value"].get<double>(); }
double check(const RunResult &r, const std::string &name) { return r.stats["region_check"][name]["value"].get<double>(); }
double per_core(const RunResult &r, const std::string &name, int cores = 4)
{
    double v = 0;
    for (int i = 0; i < cores; ++i) v += r.stats["top.core" + std::to_string(i)][name]["value"].get<double>();
    return v;
}

// Figures of a run that cross a pipe.
struct Figs {
    int code = -1;
    double sim_ns = 0, violations = -1, images = 0, fe_conflicts = 0, victim_waits = 0, wait_region = 0;
    double path_writes = 0, nvm_write_bytes = 0, instructions = 0;
};
Figs figs(const RunSpec &s)
{
    RunResult r = run_simulation(s);
    Figs f;
    f.code = r.code;
    if (r.code != EXIT_OK) return f;
    f.sim_ns = sum(r, "sim_ns");
    f.violations = check(r, "violations");
    f.images = check(r, "crash_images");
    f.fe_conflicts = sum(r, "fe_conflicts");
    f.victim_waits = per_core(r, "victim_waits");
    f.wait_region = sum(r, "stall_region_durable_cycles");
    f.path_writes = sum(r, "path_writes");
    f.nvm_write_bytes = sum(r, "nvm_write_bytes");
    f.instructions = sum(r, "instructions");
    return f;
}

} // namespace

// Every cpu workload runs and verifies under every cpu model.
class CpuAll : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};
TEST_P(CpuAll, RunsAndVerifies)
{
    auto [wl, model] = GetParam();
    RunResult r = run_simulation(cpu_spec(model, wl));
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_TRUE(r.verified);
    EXPECT_GT(sum(r, "instructions"), 0);
    if (model == "lightwsp") {
        EXPECT_GT(sum(r, "regions"), 0);
        EXPECT_EQ(check(r, "violations"), 0) << "a crash image is not a committed region prefix";
        EXPECT_EQ(check(r, "never_durable_writes"), 0);
    }
    if (model == "none" || model == "psp") {
        EXPECT_EQ(sum(r, "path_writes"), 0);
    }
}
INSTANTIATE_TEST_SUITE_P(Cpu, CpuAll,
                         ::testing::Combine(::testing::Values("cpu-queue", "cpu-hashtable", "cpu-arrayswap", "cpu-btree",
                                                              "cpu-txbank", "prof-cpu2006-mem", "prof-npb"),
                                            ::testing::Values("none", "lightwsp", "ppa", "capri", "psp")),
                         [](const auto &i) {
                             std::string n = std::get<0>(i.param) + "_" + std::get<1>(i.param);
                             for (auto &c : n) if (!isalnum((unsigned char)c)) c = '_';
                             return n;
                         });

// III-A / IV-F: every distinct crash image of a LightWSP run is a committed region prefix, and the
// same run with the WPQ gate disabled is caught.
TEST(CpuCrash, LightwspImagesAreCommittedPrefixesUngatedIsCaught)
{
    const Figs bad = run_in_child<Figs>([] { return figs(cpu_spec("lightwsp-ungated", "cpu-hashtable")); }, Figs{});
    const Figs good = figs(cpu_spec("lightwsp", "cpu-hashtable"));
    ASSERT_EQ(good.code, EXIT_OK);
    ASSERT_EQ(bad.code, EXIT_OK);
    EXPECT_GT(good.images, 100);
    EXPECT_EQ(good.violations, 0);
    EXPECT_GT(bad.violations, 0) << "the ungated WPQ let partly persisted regions reach PM unnoticed";
}

// IV-B / II-B: with the second controller far away (skewed path latency) a younger region's stores
// reach the near controller first; gated, they still never persist before the older region.
TEST(CpuCrash, SkewedControllersYoungerRegionNeverPersistsFirst)
{
    const std::vector<std::string> skew = {"persist_path.skew_ns=300"};
    const Figs bad = run_in_child<Figs>([&] { return figs(cpu_spec("lightwsp-ungated", "cpu-arrayswap", skew)); }, Figs{});
    const Figs good = figs(cpu_spec("lightwsp", "cpu-arrayswap", skew));
    ASSERT_EQ(good.code, EXIT_OK);
    EXPECT_EQ(good.violations, 0);
    EXPECT_GT(bad.violations, 0);
}

// Narrow region IDs (issue 27 item 1): with 2^rid_bits tags and a window of `regions`, threads run
// out of tags often. A thread waiting for one must be woken when another thread's acks free one
// (it was not: the run deadlocked), and a tag a controller has not committed yet must not be
// reused (it was: a boundary was lost and the run deadlocked). Every run completes, verified, and
// every crash image is a committed region prefix.
class CpuNarrowRegionIds : public ::testing::TestWithParam<std::tuple<std::string, int, int>> {};
TEST_P(CpuNarrowRegionIds, RunsToTheEndConsistent)
{
    auto [wl, rid_bits, regions] = GetParam();
    RunResult r = run_simulation(cpu_spec("lightwsp", wl,
                                          {"wpq_gate.rid_bits=" + std::to_string(rid_bits),
                                           "wpq_gate.regions=" + std::to_string(regions)}));
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_TRUE(r.verified);
    EXPECT_GT(sum(r, "regions"), 1u << rid_bits) << "the tags wrapped";
    EXPECT_GT(sum(r, "stall_region_durable_cycles"), 0) << "threads waited for a free tag";
    EXPECT_EQ(check(r, "violations"), 0);
}
INSTANTIATE_TEST_SUITE_P(Cpu, CpuNarrowRegionIds,
                         ::testing::Values(std::make_tuple("cpu-hashtable", 2, 2), std::make_tuple("cpu-hashtable", 4, 1),
                                           std::make_tuple("cpu-txbank", 3, 2), std::make_tuple("cpu-btree", 1, 1)),
                         [](const auto &i) {
                             return std::get<0>(i.param).substr(4) + "_rid" + std::to_string(std::get<1>(i.param)) +
                                    "_win" + std::to_string(std::get<2>(i.param));
                         });

// A region window as wide as the region-ID space is refused with the keys named.
TEST(CpuInput, RegionWindowAsWideAsTheIdsIsRefused)
{
    try {
        run_simulation(cpu_spec("lightwsp", "cpu-hashtable", {"wpq_gate.rid_bits=2", "wpq_gate.regions=4"}));
        FAIL() << "a region window of 4 with 4 region IDs ran";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("wpq_gate.regions < 2^wpq_gate.rid_bits"), std::string::npos) << e.what();
    }
}

// IV-D: WPQs far too small for 4 threads' regions deadlock; overflow mode resolves it, the run
// completes, and crash images stay committed prefixes.
TEST(CpuDeadlock, OverflowFallbackResolvesAndStaysConsistent)
{
    RunResult r = run_simulation(cpu_spec("lightwsp", "cpu-txbank", {"nvm.wpq_entries=8", "regions.store_threshold=4"}));
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_TRUE(r.verified);
    EXPECT_GT(sum(r, "wpq_overflows"), 0);
    double undo = 0;
    for (int i = 0; i < 2; ++i) undo += r.stats["top.nvm" + std::to_string(i)]["wpq_undo_drains"]["value"].get<double>();
    EXPECT_GT(undo, 0) << "overflow mode drains undo-logged entries";
    EXPECT_EQ(check(r, "violations"), 0);
}

// IV-F: power fails at an instant: the cores stop, persisted regions drain and commit, the rest is
// discarded, every controller ends on the same flush ID (the recovery point), and the images are
// committed prefixes.
class CpuPowerFail : public ::testing::TestWithParam<int> {};
TEST_P(CpuPowerFail, DrainsPersistedDiscardsTheRestAgreesOnTheRecoveryPoint)
{
    RunResult r = run_simulation(cpu_spec("lightwsp", "cpu-hashtable", {"sim.power_fail_ns=" + std::to_string(GetParam())}));
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(sum(r, "power_failed"), 1);
    const double f0 = r.stats["top.nvm0"]["wpq_flush_id"]["value"].get<double>();
    const double f1 = r.stats["top.nvm1"]["wpq_flush_id"]["value"].get<double>();
    EXPECT_EQ(f0, f1);
    EXPECT_GT(f0, 0);
    EXPECT_EQ(check(r, "violations"), 0);
    EXPECT_GE(r.stats["top.nvm0"]["pf_discarded"]["value"].get<double>(), 0);
}
INSTANTIATE_TEST_SUITE_P(Instants, CpuPowerFail, ::testing::Values(500, 1500, 4000, 9999, 17000, 25000));

TEST(CpuPowerFail, UngatedKeepsStoresOfUnpersistedRegions)
{
    RunResult r = run_simulation(cpu_spec("lightwsp-ungated", "cpu-hashtable", {"sim.power_fail_ns=25000"}));
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(r.stats["top.nvm0"]["pf_discarded"]["value"].get<double>(), 0);
    EXPECT_GT(check(r, "violations"), 0);
}

// III-B: LightWSP never waits at a region end; PPA waits until the region is durable.
TEST(CpuModels, PpaWaitsAtRegionEndsLightwspDoesNot)
{
    const Figs ppa = run_in_child<Figs>([] { return figs(cpu_spec("ppa", "cpu-btree")); }, Figs{});
    const Figs lw = figs(cpu_spec("lightwsp", "cpu-btree"));
    ASSERT_EQ(ppa.code, EXIT_OK);
    EXPECT_GT(ppa.wait_region, 0);
    EXPECT_EQ(lw.wait_region, 0);
}

// II-A / V-B: Capri moves 64 B per 8-byte store, LightWSP 8 B.
TEST(CpuModels, CapriMovesALinePerStore)
{
    const Figs capri = run_in_child<Figs>([] { return figs(cpu_spec("capri", "cpu-queue")); }, Figs{});
    const Figs lw = figs(cpu_spec("lightwsp", "cpu-queue"));
    ASSERT_EQ(capri.code, EXIT_OK);
    ASSERT_GT(capri.path_writes, 0);
    EXPECT_DOUBLE_EQ(capri.nvm_write_bytes / capri.path_writes, 64.0);
    EXPECT_DOUBLE_EQ(lw.nvm_write_bytes / lw.path_writes, 8.0);
}

// V-D: the ideal PSP runs without a DRAM cache, so a footprint beyond the L2 reads PM.
TEST(CpuModels, PspHasNoDramCache)
{
    const int none_has = run_in_child<int>(
        [] { return run_simulation(cpu_spec("none", "prof-cpu2006-mem")).stats.contains("top.dram_cache") ? 1 : 0; }, -1);
    EXPECT_EQ(none_has, 1);
    RunResult r = run_simulation(cpu_spec("psp", "prof-cpu2006-mem"));
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_FALSE(r.stats.contains("top.dram_cache"));
}

// IV-G / V-F3: with a tiny L1 and a slow path, dirty victims hit the front-end buffer; zero-victim
// waits at least as often as full-victim, and without snooping nothing is checked.
TEST(CpuSnoop, VictimPoliciesOnBufferConflicts)
{
    const std::vector<std::string> tight = {"l1.size_kb=2", "l1.assoc=4", "persist_path.bw_gbps=0.2"};
    auto with = [&](const char *p) {
        auto v = tight;
        v.push_back(std::string("persist_path.victim_policy=") + p);
        return cpu_spec("lightwsp", "cpu-arrayswap", v);
    };
    const Figs zero = run_in_child<Figs>([&] { return figs(with("zero")); }, Figs{});
    const Figs none = run_in_child<Figs>([&] { return figs(with("none")); }, Figs{});
    const Figs full = figs(with("full"));
    ASSERT_EQ(zero.code, EXIT_OK);
    ASSERT_EQ(none.code, EXIT_OK);
    ASSERT_EQ(full.code, EXIT_OK);
    EXPECT_GT(full.fe_conflicts, 0);
    EXPECT_GT(zero.victim_waits, 0);
    EXPECT_GE(zero.victim_waits, full.victim_waits);
    EXPECT_EQ(none.fe_conflicts, 0);
    EXPECT_EQ(none.victim_waits, 0);
}

// The same config and seed give identical figures.
TEST(CpuRun, Deterministic)
{
    const Figs a = run_in_child<Figs>([] { return figs(cpu_spec("lightwsp", "cpu-txbank")); }, Figs{});
    const Figs b = figs(cpu_spec("lightwsp", "cpu-txbank"));
    ASSERT_EQ(a.code, EXIT_OK);
    EXPECT_EQ(a.sim_ns, b.sim_ns);
    EXPECT_EQ(a.instructions, b.instructions);
    EXPECT_EQ(a.images, b.images);
}

// sim.warmup (docs/models/lightwsp.md "Warm-up"): replaying the stream's accesses into the caches
// before the timed run turns the memory-intensive profile's DRAM-cache read misses (all cold: it
// touches its footprint about once) into hits, and its L2 misses too; the timed run does the same
// work (instructions, stores) and is faster; nothing of the warm-up is counted.
TEST(CpuWarmup, TurnsDramCacheMissesIntoHits)
{
    struct W { int code = -1; double dc_reads = 0, dc_misses = 0, l2_misses = 0, instr = 0, sim_ns = 0, wops = 0; bool has = false; };
    auto w = [](const std::string &model, const std::vector<std::string> &sets) {
        RunResult r = run_simulation(cpu_spec(model, "prof-cpu2006-mem", sets));
        W x;
        x.code = r.code;
        if (r.code != EXIT_OK) return x;
        x.dc_reads = r.stats["top.dram_cache"]["reads"]["value"].get<double>();
        x.dc_misses = r.stats["top.dram_cache"]["read_misses"]["value"].get<double>();
        x.l2_misses = r.stats["top.l2"]["read_misses"]["value"].get<double>();
        x.instr = sum(r, "instructions");
        x.sim_ns = sum(r, "sim_ns");
        x.has = r.stats["summary"].contains("warmup_ops");
        x.wops = x.has ? sum(r, "warmup_ops") : 0;
        return x;
    };
    for (const char *model : {"none", "lightwsp"}) {
        const W cold = run_in_child<W>([&] { return w(model, {}); }, W{});
        const W warm = run_in_child<W>([&] { return w(model, {"sim.warmup=1"}); }, W{});
        ASSERT_EQ(cold.code, EXIT_OK) << model;
        ASSERT_EQ(warm.code, EXIT_OK) << model;
        ASSERT_GT(cold.dc_reads, 100) << model;
        EXPECT_GT(cold.dc_misses, 0.9 * cold.dc_reads) << model;          // cold: nearly every read misses
        EXPECT_LT(warm.dc_misses, 0.1 * cold.dc_misses) << model;          // warm: the misses are gone
        EXPECT_LT(warm.l2_misses, cold.l2_misses) << model;
        EXPECT_EQ(warm.instr, cold.instr) << model;                        // the same timed work
        EXPECT_LT(warm.sim_ns, cold.sim_ns) << model;
        EXPECT_FALSE(cold.has) << model;                                   // off: no warm-up figure at all
        EXPECT_GT(warm.wops, 0) << model;
    }
    // Half the stream warms part of the footprint: fewer misses than cold, more than a full warm-up.
    const W half = run_in_child<W>([&] { return w("none", {"sim.warmup=0.5"}); }, W{});
    const W cold = run_in_child<W>([&] { return w("none", {}); }, W{});
    const W full = w("none", {"sim.warmup=1"});
    ASSERT_EQ(half.code, EXIT_OK);
    EXPECT_LT(half.dc_misses, cold.dc_misses);
    EXPECT_GT(half.dc_misses, full.dc_misses);
    EXPECT_LT(half.wops, full.wops);
}

// sim.warmup = 0 is today's run: the same figures as a run that does not name the key (the golden
// cpu stats, golden.cpu_stats, check every figure of 232 runs without it).
TEST(CpuWarmup, OffIsTheDefaultRun)
{
    const Figs a = run_in_child<Figs>([] { return figs(cpu_spec("lightwsp", "cpu-queue", {"sim.warmup=0"})); }, Figs{});
    const Figs b = figs(cpu_spec("lightwsp", "cpu-queue"));
    ASSERT_EQ(a.code, EXIT_OK);
    EXPECT_EQ(a.sim_ns, b.sim_ns);
    EXPECT_EQ(a.instructions, b.instructions);
    EXPECT_EQ(a.nvm_write_bytes, b.nvm_write_bytes);
    EXPECT_EQ(a.images, b.images);
    EXPECT_EQ(a.violations, 0);
}

// The gated WPQ drains at the device's pace (sc_models/mem/wpq_gate_fe.cpp): LightWSP never writes PM
// faster than nvm.write_bw_gbps, and a slower PM makes its run longer (with warm caches there are no
// PM reads through which the write bandwidth could act otherwise).
TEST(CpuWpqGate, DrainsNoFasterThanThePmWriteBandwidth)
{
    struct B { int code = -1; double sim_ns = 0, drain_ns = 0, bytes = 0; };
    auto at = [](double gbps) {
        RunResult r = run_simulation(cpu_spec("lightwsp", "prof-npb", {"sim.warmup=1", "nvm.write_bw_gbps=" + std::to_string(gbps)}));
        B b;
        b.code = r.code;
        if (r.code != EXIT_OK) return b;
        b.sim_ns = sum(r, "sim_ns");
        b.drain_ns = sum(r, "drain_ns");
        b.bytes = sum(r, "nvm_write_bytes");
        return b;
    };
    const B slow = run_in_child<B>([&] { return at(0.5); }, B{});
    const B fast = at(46.0);
    ASSERT_EQ(slow.code, EXIT_OK);
    ASSERT_EQ(fast.code, EXIT_OK);
    ASSERT_GT(slow.bytes, 10000);
    EXPECT_EQ(slow.bytes, fast.bytes);                          // the same writes
    EXPECT_LE(slow.bytes / slow.drain_ns, 0.5 * 1.001);         // B/ns = GB/s, at most the configured 0.5
    EXPECT_GT(slow.sim_ns, 2 * fast.sim_ns);
}

// sim.fastforward_instructions skips each thread's first ops (docs/models/lightwsp.md "Fast-forward
// and functional warming"): the skipped instructions are counted, and with the timed ones they make
// up the full run's (none: no checkpoint instructions); the run still verifies (the skipped stores
// are in the functional image).
TEST(CpuFastForward, SkipsCountedInstructions)
{
    struct F { int code = -1; double instr = 0, ff = -1, fw = -1, verified = 0; bool has = false; };
    auto f = [](std::vector<std::string> sets) {
        sets.push_back("sim.crash_check=false");          // refused with the check (skipped stores never reach PM)
        RunResult r = run_simulation(cpu_spec("none", "cpu-hashtable", sets));
        F x;
        x.code = r.code;
        if (r.code != EXIT_OK) return x;
        x.instr = sum(r, "instructions");
        x.has = r.stats["summary"].contains("fastforward_instructions");
        if (x.has) {
            x.ff = sum(r, "fastforward_instructions");
            x.fw = sum(r, "warmup_instructions");
        }
        x.verified = r.stats["run"]["verified"].get<bool>() ? 1 : 0;
        return x;
    };
    const F full = run_in_child<F>([&] { return f({}); }, F{});
    const F ff = run_in_child<F>([&] { return f({"sim.fastforward_instructions=2000"}); }, F{});
    ASSERT_EQ(full.code, EXIT_OK);
    ASSERT_EQ(ff.code, EXIT_OK);
    EXPECT_FALSE(full.has);                              // off: no such figure
    ASSERT_TRUE(ff.has);
    EXPECT_GT(ff.ff, 0.9 * 4 * 2000);                    // 4 threads, about 2000 each (a thread stops early at a held lock)
    EXPECT_LT(ff.ff, 1.1 * 4 * 2000);
    EXPECT_EQ(ff.fw, 0);
    EXPECT_EQ(ff.instr + ff.ff, full.instr);
    EXPECT_LT(ff.instr, full.instr);
    EXPECT_EQ(ff.verified, 1);
}

// Both keys are refused with the crash check, naming them.
TEST(CpuFastForward, RefusedWithTheCrashCheck)
{
    try {
        run_simulation(cpu_spec("lightwsp", "cpu-queue", {"sim.fastforward_instructions=100"}));
        FAIL() << "accepted with sim.crash_check";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("sim.fastforward_instructions"), std::string::npos) << e.what();
    }
}

// sim.warmup_instructions warms the caches with the ops it executes functionally: against a run that
// fast-forwards the same ops without warming, the timed part's cold misses fall (the DRAM cache's
// read misses, all cold, and the L2's read miss rate), while the timed work is the same.
TEST(CpuFastForward, WarmingLowersTheColdMissRate)
{
    struct M { int code = -1; double instr = 0, dc_misses = 0, l2_rate = 0, fw = 0; };
    auto m = [](const std::string &key) {
        RunResult r = run_simulation(cpu_spec("none", "cpu-hashtable", {key + "=3000", "sim.crash_check=false"}));
        M x;
        x.code = r.code;
        if (r.code != EXIT_OK) return x;
        x.instr = sum(r, "instructions");
        x.dc_misses = r.stats["top.dram_cache"]["read_misses"]["value"].get<double>();
        x.l2_rate = r.stats["top.l2"]["read_misses"]["value"].get<double>() /
                    std::max(1.0, r.stats["top.l2"]["reads"]["value"].get<double>());
        x.fw = sum(r, "warmup_instructions");
        return x;
    };
    const M skip = run_in_child<M>([&] { return m("sim.fastforward_instructions"); }, M{});
    const M warm = m("sim.warmup_instructions");
    ASSERT_EQ(skip.code, EXIT_OK);
    ASSERT_EQ(warm.code, EXIT_OK);
    EXPECT_EQ(warm.instr, skip.instr);                   // the same ops skipped, the same timed work
    EXPECT_GT(warm.fw, 0.9 * 4 * 3000);
    EXPECT_GT(skip.dc_misses, 100);                      // fast-forward only: the caches are cold
    EXPECT_LT(warm.dc_misses, 0.9 * skip.dc_misses);
    EXPECT_LT(warm.l2_rate, 0.95 * skip.l2_rate);
}

// SMARTS-style sampling (docs/models/lightwsp.md "Sampling"): on one thread (no other thread's
// functional parts in zero time to skew the shared caches), the 95% confidence interval of the sampled
// cycles per instruction contains the full detailed run's; only the windows are timed, so the sampled
// run times far fewer instructions; the persist-stall figure is there (zero under none).
TEST(CpuSampling, ConfidenceIntervalContainsTheDetailedRun)
{
    struct S { int code = -1; double cycles = 0, instr = 0, cpi = 0, ci = 0, n = 0, func = 0, ps = -1; bool has = false; };
    auto r = [](const std::vector<std::string> &sets) {
        std::vector<std::string> all = {"sim.crash_check=false", "cpu.cores=1"};
        all.insert(all.end(), sets.begin(), sets.end());
        RunResult x = run_simulation(cpu_spec("none", "prof-cpu2006-mem", all));
        S s;
        s.code = x.code;
        if (x.code != EXIT_OK) return s;
        s.cycles = sum(x, "cpu_cycles");
        s.instr = sum(x, "instructions");
        s.has = x.stats["summary"].contains("sample_cpi");
        if (s.has) {
            s.cpi = sum(x, "sample_cpi");
            s.ci = sum(x, "sample_cpi_ci95");
            s.n = sum(x, "sample_windows");
            s.func = sum(x, "sample_functional_instructions");
            s.ps = sum(x, "sample_persist_stall_cpi");
        }
        return s;
    };
    const S full = run_in_child<S>([&] { return r({}); }, S{});
    const S smp = r({"sim.sample_period_instructions=400", "sim.sample_window_instructions=200"});
    ASSERT_EQ(full.code, EXIT_OK);
    ASSERT_EQ(smp.code, EXIT_OK);
    EXPECT_FALSE(full.has);
    ASSERT_TRUE(smp.has);
    ASSERT_GT(full.instr, 10000);
    const double truth = full.cycles / full.instr;
    EXPECT_GT(smp.n, 30);
    EXPECT_GT(smp.ci, 0);
    EXPECT_LT(smp.ci, 0.1 * smp.cpi);                           // a useful interval
    EXPECT_LE(smp.cpi - smp.ci, truth) << smp.cpi << " +- " << smp.ci << " vs " << truth;
    EXPECT_GE(smp.cpi + smp.ci, truth) << smp.cpi << " +- " << smp.ci << " vs " << truth;
    EXPECT_GT(smp.func, 0.4 * full.instr);                      // about half the stream ran functionally
    EXPECT_LT(smp.instr, 0.6 * full.instr);
    EXPECT_EQ(smp.ps, 0);
}

// A window not shorter than its period, or a window without a period, is refused naming the key.
TEST(CpuSampling, BadWindowNamesTheKey)
{
    for (auto sets : std::vector<std::vector<std::string>>{
             {"sim.crash_check=false", "sim.sample_period_instructions=100", "sim.sample_window_instructions=100"},
             {"sim.crash_check=false", "sim.sample_window_instructions=100"}}) {
        try {
            run_simulation(cpu_spec("none", "cpu-queue", sets));
            FAIL() << "accepted";
        } catch (const ConfigError &e) {
            EXPECT_NE(std::string(e.what()).find("sim.sample_window_instructions"), std::string::npos) << e.what();
        }
    }
}

// A bad sim.warmup is refused with a message naming the key.
TEST(CpuWarmup, BadValueNamesTheKey)
{
    for (const char *v : {"sim.warmup=1.5", "sim.warmup=-0.1", "sim.warmup=lots"}) {
        try {
            run_simulation(cpu_spec("lightwsp", "cpu-queue", {v}));
            FAIL() << v << " was accepted";
        } catch (const ConfigError &e) {
            EXPECT_NE(std::string(e.what()).find("sim.warmup"), std::string::npos) << e.what();
        }
    }
}

// Bad input: a program with more threads than cores, an unknown model, a bad trace line.
TEST(CpuInput, TooManyThreadsNamesTheKernelAndKey)
{
    const std::string t = write_trace("cpu_threads", "persim-trace 1\nkernel main blocks=1 threads=256\nwarp 0 7\nst 0x10000000000 8 = 1\n");
    RunSpec s = cpu_spec("lightwsp", "");
    s.trace = t;
    try {
        run_simulation(s);
        FAIL() << "a program with 8 threads ran on 4 cores";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("kernel 'main'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("cpu.cores"), std::string::npos) << e.what();
    }
    std::filesystem::remove(t);
}

TEST(CpuInput, GpuModelOnCpuIsRefusedWithTheList)
{
    try {
        run_simulation(cpu_spec("sbrp", "cpu-queue"));
        FAIL() << "sbrp ran on the cpu system";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("lightwsp"), std::string::npos) << e.what();
    }
}

TEST(CpuInput, TraceRunsAndMeetsExpects)
{
    const std::string t = write_trace("cpu_ok", "persim-trace 1\nkernel main blocks=1 threads=64\nwarp 0 0\n"
                                                "mark func\nst 0x10000000000 8 = 5\nrelease 0x10000001000 4 1 system\n"
                                                "warp 0 1\nacquire 0x10000001000 4 1 system\nst 0x10000000040 4 = 9\n"
                                                "expect 0x10000000000 0500000000000000\nexpect 0x10000000040 09000000\n");
    RunSpec s = cpu_spec("lightwsp", "");
    s.trace = t;
    RunResult r = run_simulation(s);
    EXPECT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_TRUE(r.verified);
    EXPECT_EQ(check(r, "violations"), 0);
    std::filesystem::remove(t);
}

// ---- BROI on the cpu system (broi-persistence-parallelism.md; groundwork of the BROI issue) ----

namespace {
// BROI orders epochs at one memory controller (Table III).
RunSpec broi_spec(const std::string &model, const std::string &workload, std::vector<std::string> sets = {})
{
    sets.insert(sets.begin(), {"nvm.controllers=1", "nvm.channels=2"});
    return cpu_spec(model, workload, sets);
}
struct BroiFigs {
    int code = -1;
    double sim_ns = 0, violations = -1, conflict_violations = -1, dep_entries = 0, persist_ack_wait = 0, barriers = 0;
};
BroiFigs broi_figs(const RunSpec &s)
{
    RunResult r = run_simulation(s);
    BroiFigs f;
    f.code = r.code;
    if (r.code != EXIT_OK) return f;
    f.sim_ns = sum(r, "sim_ns");
    f.violations = r.stats["bsp_check"]["violations"]["value"].get<double>();
    f.conflict_violations = r.stats["bsp_check"]["conflict_violations"]["value"].get<double>();
    f.dep_entries = per_core(r, "dep_entries");
    f.persist_ack_wait = sum(r, "stall_persist_ACK_cycles");
    f.barriers = sum(r, "barriers");
    return f;
}
} // namespace

// Every BROI local workload runs, verifies and keeps buffered strict persistence under BROI and the
// epoch baseline.
class CpuBroiAll : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};
TEST_P(CpuBroiAll, RunsVerifiesKeepsBsp)
{
    auto [wl, model] = GetParam();
    RunResult r = run_simulation(broi_spec(model, wl));
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_TRUE(r.verified);
    EXPECT_GT(sum(r, "barriers"), 0);
    EXPECT_GT(r.stats["bsp_check"]["durable_writes"]["value"].get<double>(), 0);
    EXPECT_EQ(r.stats["bsp_check"]["violations"]["value"].get<double>(), 0);
    // the run ends only when every persist-buffer entry has become durable
    EXPECT_EQ(r.stats["bsp_check"]["durable_writes"]["value"].get<double>(), sum(r, "path_writes"));
}
INSTANTIATE_TEST_SUITE_P(Broi, CpuBroiAll,
                         ::testing::Combine(::testing::Values("broi-hashtable", "broi-rbtree", "broi-sps", "broi-bptree",
                                                              "broi-ssca2"),
                                            ::testing::Values("broi", "broi-epoch", "broi-epoch-1q")),
                         [](const auto &i) {
                             std::string n = std::get<0>(i.param) + "_" + std::get<1>(i.param);
                             for (auto &c : n) if (!isalnum((unsigned char)c)) c = '_';
                             return n;
                         });

// IV-C: the persist buffer holds an entry back until the other threads' conflicting persists are
// acknowledged; ignoring that (broi-nodeps) reorders conflicts, and the check catches it.
TEST(CpuBroi, DependencyTrackingKeepsConflictOrderNodepsIsCaught)
{
    const BroiFigs bad = run_in_child<BroiFigs>([] { return broi_figs(broi_spec("broi-nodeps", "cpu-btree")); }, BroiFigs{});
    const BroiFigs good = broi_figs(broi_spec("broi", "cpu-btree"));
    ASSERT_EQ(bad.code, EXIT_OK);
    ASSERT_EQ(good.code, EXIT_OK);
    EXPECT_GT(good.dep_entries, 0);
    EXPECT_EQ(good.violations, 0);
    EXPECT_GT(bad.conflict_violations, 0);
    EXPECT_EQ(bad.dep_entries, 0);
}

// IV-D: BLP-aware scheduling of per-thread barrier epochs beats one in-order epoch queue for all
// threads (broi-epoch-1q, persim's stricter baseline).
TEST(CpuBroi, BlpAwareSchedulingBeatsTheSingleQueue)
{
    const BroiFigs epoch = run_in_child<BroiFigs>([] { return broi_figs(broi_spec("broi-epoch-1q", "broi-sps")); }, BroiFigs{});
    const BroiFigs broi = broi_figs(broi_spec("broi", "broi-sps"));
    ASSERT_EQ(epoch.code, EXIT_OK);
    ASSERT_EQ(broi.code, EXIT_OK);
    EXPECT_LT(broi.sim_ns, epoch.sim_ns);
}

// V: remote clients over RDMA: sync waits a round trip per rdma_pwrite, bsp sends epochs
// asynchronously and checks once at the end, so it finishes sooner.
TEST(CpuBroi, RemoteBspBeatsSync)
{
    const BroiFigs sync = run_in_child<BroiFigs>(
        [] { return broi_figs(broi_spec("broi", "broi-ycsb", {"rdma.channels=2", "rdma.mode=sync"})); }, BroiFigs{});
    const BroiFigs bsp = broi_figs(broi_spec("broi", "broi-ycsb", {"rdma.channels=2", "rdma.mode=bsp"}));
    ASSERT_EQ(sync.code, EXIT_OK);
    ASSERT_EQ(bsp.code, EXIT_OK);
    EXPECT_GT(sync.barriers, 0);
    EXPECT_GT(sync.persist_ack_wait, bsp.persist_ack_wait);
    EXPECT_LT(bsp.sim_ns, sync.sim_ns);
}

TEST(CpuBroi, SeveralControllersAreRefused)
{
    try {
        run_simulation(cpu_spec("broi", "broi-sps"));      // cpu_small has two controllers
        FAIL() << "broi ran on two controllers";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("nvm.controllers"), std::string::npos) << e.what();
    }
}

// The serial BROI scheduler (broi.serial = K, persim's variant; cores/broi_sched.h) in the system:
// a decision every ceil(entries / K) clocks, the sweep clocked to its end; the run still verifies
// and keeps buffered strict persistence.
TEST(CpuBroi, SerialSchedulerTakesASweepPerDecision)
{
    struct Cs { double clocks = -1, steps = -1, violations = -1; bool verified = false; };
    auto run = [](const std::string &serial) {
        RunResult r = run_simulation(broi_spec("broi", "broi-sps", {"broi.serial=" + serial}));
        Cs c;
        if (r.code != EXIT_OK) return c;
        c.verified = r.verified;
        c.violations = r.stats["bsp_check"]["violations"]["value"].get<double>();
        c.clocks = r.stats["top.nvm0"]["broi_clocks"]["value"].get<double>();
        c.steps = r.stats["top.nvm0"]["broi_steps"]["value"].get<double>();
        return c;
    };
    const Cs par = run_in_child<Cs>([&] { return run("0"); }, Cs{});
    const Cs ser = run("1");       // 8 local + 2 remote entries: 10 clocks per decision
    for (const Cs &c : {par, ser}) {
        ASSERT_GT(c.steps, 0);
        EXPECT_TRUE(c.verified);
        EXPECT_EQ(c.violations, 0);
    }
    EXPECT_EQ(par.clocks, par.steps);
    EXPECT_GE(ser.clocks, 9 * ser.steps);
    EXPECT_LE(ser.clocks, 10 * ser.steps + 10);
}

// IV-E: persist-buffer entries hold a cache block; stores to a block with an unsent entry in the
// same barrier epoch join it (persist_path.coalesce), which takes fewer entries to NVM and keeps
// buffered strict persistence; without coalescing every store is an entry.
TEST(CpuBroi, PersistBufferEntriesCoalesceStoresOfABlock)
{
    struct Co { double path_writes = -1, coalesced = -1, stores = -1, violations = -1; bool verified = false; };
    auto run = [](const std::string &on) {
        RunResult r = run_simulation(broi_spec("broi", "broi-hashtable", {"persist_path.coalesce=" + on}));
        Co c;
        if (r.code != EXIT_OK) return c;
        c.verified = r.verified;
        c.violations = r.stats["bsp_check"]["violations"]["value"].get<double>();
        c.path_writes = sum(r, "path_writes");
        c.coalesced = per_core(r, "pb_coalesced");
        c.stores = per_core(r, "stores");
        return c;
    };
    const Co off = run_in_child<Co>([&] { return run("false"); }, Co{});
    const Co on = run("true");
    for (const Co &c : {off, on}) {
        ASSERT_GT(c.path_writes, 0);
        EXPECT_TRUE(c.verified);
        EXPECT_EQ(c.violations, 0);
    }
    EXPECT_EQ(off.coalesced, 0);
    EXPECT_GT(on.coalesced, 0);
    EXPECT_LT(on.path_writes, off.path_writes);
    EXPECT_EQ(on.path_writes + on.coalesced, off.path_writes) << "every store is an entry or joins one";
}

// Table III: 2 hardware threads per core share its L1 (cpu.threads_per_core): a line one thread
// brought in hits for its sibling, not for a thread of another core; bad groupings are refused.
TEST(CpuSmt, SiblingThreadsShareTheL1)
{
    const std::string t = write_trace("cpu_smt", "persim-trace 1\nkernel main blocks=1 threads=64\nwarp 0 0\n"
                                                 "ld 0x10000000000 8\nwarp 0 1\ncompute 4000\nld 0x10000000000 8\n");
    auto misses = [&](const std::string &tpc) {
        RunSpec s = broi_spec("broi", "", {"cpu.cores=2", "cpu.threads_per_core=" + tpc});
        s.trace = t;
        RunResult r = run_simulation(s);
        if (r.code != EXIT_OK) return -1.0;
        return r.stats["top.core1"]["l1_read_misses"]["value"].get<double>();
    };
    const double separate = run_in_child<double>([&] { return misses("1"); }, -2.0);
    const double shared = misses("2");
    std::filesystem::remove(t);
    EXPECT_EQ(separate, 1);
    EXPECT_EQ(shared, 0);
}

TEST(CpuSmt, ThreadsThatDoNotFillCoresAreRefused)
{
    try {
        run_simulation(broi_spec("broi", "broi-sps", {"cpu.cores=3", "cpu.threads_per_core=2"}));
        FAIL() << "3 threads on 2-thread cores accepted";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("cpu.threads_per_core"), std::string::npos) << e.what();
    }
}

TEST(CpuSmt, RegionModelsRefuseSharedL1s)
{
    try {
        run_simulation(cpu_spec("lightwsp", "cpu-queue", {"cpu.threads_per_core=2"}));
        FAIL() << "lightwsp accepted threads sharing an L1";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("cpu.threads_per_core"), std::string::npos) << e.what();
    }
}

// V, Figure 8: the persist ACK travels back through the NIC. One client channel writes three
// rdma_pwrites (each ends with `order`); with `sync` it waits a network round trip after each, with
// `bsp` it sends them back to back and waits for the last ACK once.
TEST(CpuBroi, NicAcknowledgementPath)
{
    const std::string t = write_trace("cpu_nic", "persim-trace 1\nkernel main blocks=1 threads=64\nwarp 0 0\ncompute 1\n"
                                                 "warp 0 1\nst 0x10000000000 8 = 1\norder\nst 0x10000000040 8 = 2\norder\n"
                                                 "st 0x10000000080 8 = 3\norder\n"
                                                 "expect 0x10000000080 0300000000000000\n");
    auto run = [&](const std::string &mode) {
        RunSpec s = broi_spec("broi", "", {"cpu.cores=1", "rdma.channels=1", "rdma.latency_ns=1500", "rdma.mode=" + mode});
        s.trace = t;
        RunResult r = run_simulation(s);
        return r.code == EXIT_OK && r.verified ? sum(r, "sim_ns") : -1.0;
    };
    const double sync = run_in_child<double>([&] { return run("sync"); }, -2.0);
    const double bsp = run("bsp");
    std::filesystem::remove(t);
    const double rt = 2 * 1500;
    EXPECT_GE(sync, 3 * rt) << "sync: a round trip per rdma_pwrite";
    EXPECT_GE(bsp, rt) << "bsp: the final check waits for the last ACK";
    EXPECT_LT(bsp, 2 * rt);
}
