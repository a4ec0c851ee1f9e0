// Persist-order checking and crash injection (docs/checking.md), on the SystemC system: the durable
// image (writer op ids carried from the L1 to the persistence domain), conformance of every model on
// every workload, the scoped persistency bugs found by `check` and `crash`, the correct programs
// clean. Each test case runs in its own process (SystemC elaborates once per process).
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>
#include "check.h"
#include "crash.h"
#include "persist_model.h"
#include "sim.h"
#include "sc_test_util.h"

using namespace persim;

namespace {

// Records the durable image of a run (DurableLog) and keeps it after the run.
struct LogObs : RunObserver {
    DurableLog log;
    WriteTracker *tracker() override { return &log; }
    void on_loaded(const LoadedProgram &lp) override { log.begin(lp.prog, lp.init); }
    void on_finished(const LoadedProgram &, RunResult &) override { log.finish(); }
    uint32_t idx(uint32_t id) const { return log.ids().of(id); }
    // indices of the writes of line `la`
    std::vector<size_t> writes_of(uint64_t la) const
    {
        std::vector<size_t> v;
        for (size_t i = 0; i < log.writes(); ++i)
            if (log.write_line(i) == la) v.push_back(i);
        return v;
    }
};

RunResult run_trace(const std::string &model, const std::string &text, RunObserver &obs,
                    const std::vector<std::string> &sets = {})
{
    RunSpec s = small_spec(model, "", sets);
    s.trace = write_trace("check_" + model, text);
    s.observer = &obs;
    return run_simulation(s);
}

constexpr uint64_t X = 0x10000000000ull;

} // namespace

// Two stores to one line with no order point between them leave the L1 as one write; each byte
// names the store that wrote it, and both stores become durable with that write.
class CoalescedLine : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};
TEST_P(CoalescedLine, OneWriteNamesBothStores)
{
    auto [model, policy] = GetParam();
    LogObs o;
    RunResult r = run_trace(model,
                            "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n"
                            "1: st 0x10000000000 4 = 17\n2: st 0x10000000008 4 = 34\n3: durable\n",
                            o, {"persist.flush_policy=" + policy});
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    auto w = o.writes_of(X);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(o.log.write_writer(w[0], 0), o.idx(1));
    EXPECT_EQ(o.log.write_writer(w[0], 3), o.idx(1));
    EXPECT_EQ(o.log.write_writer(w[0], 8), o.idx(2));
    EXPECT_EQ(o.log.write_writer(w[0], 4), kNoOp);   // not written
    const uint64_t t = o.log.write_time(w[0]);
    EXPECT_GT(t, 0u);
    EXPECT_EQ(o.log.durable_first(o.idx(1)), t);
    EXPECT_EQ(o.log.durable_all(o.idx(1)), t);
    EXPECT_EQ(o.log.durable_all(o.idx(2)), t);
    mem_image *before = o.log.image_at(t - 1), *after = o.log.image_at(t);
    EXPECT_EQ(mem_read_u32(before, X), 0u);
    EXPECT_EQ(mem_read_u32(after, X), 17u);
    EXPECT_EQ(mem_read_u32(after, X + 8), 34u);
    mem_free(before);
    mem_free(after);
}
INSTANTIATE_TEST_SUITE_P(Sc, CoalescedLine,
                         ::testing::Values(std::make_tuple("epoch", "window"), std::make_tuple("sbrp", "lazy")),
                         [](const auto &i) { return std::get<0>(i.param) + "_" + std::get<1>(i.param); });

// A value overwritten in the L1 before it left never reaches the persistence domain; its store is
// durable once the value that replaced it is (the image holds a later value of the same bytes).
TEST(DurableImage, OverwrittenValueIsDurableWithItsReplacement)
{
    LogObs o;
    RunResult r = run_trace("epoch",
                            "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n"
                            "1: st 0x10000000000 4 = 1\n2: st 0x10000000000 4 = 2\n3: durable\n",
                            o);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    auto w = o.writes_of(X);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(o.log.write_writer(w[0], 0), o.idx(2));
    const uint64_t t = o.log.write_time(w[0]);
    EXPECT_EQ(o.log.durable_all(o.idx(1)), t);
    EXPECT_EQ(o.log.durable_all(o.idx(2)), t);
    // no durable image ever holds the overwritten value
    for (const auto &im : o.log.images()) {
        mem_image *m = o.log.image_at(im.t);
        EXPECT_NE(mem_read_u32(m, X), 1u);
        mem_free(m);
    }
}

// Two blocks store to one PM word. With nvwfifo the L2 keeps PM lines write-back (the NVW-FIFO,
// section 6.1), so the second block's flush overwrites the first's bytes there: the first store is
// durable once the second is, like an L1 overwrite. Found by the Accel-Sim reader's runs: nvwfifo
// reported "1 persist(s) never durable". Every GPU model makes both stores durable.
class TwoBlocksOneWord : public ::testing::TestWithParam<std::string> {};
TEST_P(TwoBlocksOneWord, BothStoresBecomeDurable)
{
    LogObs o;
    RunResult r = run_trace(GetParam(),
                            "persim-trace 1\nkernel k blocks=2 threads=32\nwarp 0 0\n1: st 0x10000002000 4 = 1\n"
                            "warp 1 0\n2: st 0x10000002000 4 = 2\n",
                            o);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_FALSE(o.writes_of(X + 0x2000).empty());
    EXPECT_NE(o.log.durable_all(o.idx(1)), kNever) << "block 0's store never durable";
    EXPECT_NE(o.log.durable_all(o.idx(2)), kNever) << "block 1's store never durable";
}
INSTANTIATE_TEST_SUITE_P(Sc, TwoBlocksOneWord, ::testing::Values("epoch", "gpm", "sbrp", "nvwfifo"));

// The same value flushed before it is overwritten: two writes, the first store durable first, and
// an image in between holds it.
TEST(DurableImage, FlushedValueThenOverwrite)
{
    LogObs o;
    RunResult r = run_trace("sbrp",
                            "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n"
                            "1: st 0x10000000000 4 = 1\n2: durable\n3: st 0x10000000000 4 = 2\n4: durable\n",
                            o);
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    auto w = o.writes_of(X);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(o.log.write_writer(w[0], 0), o.idx(1));
    EXPECT_EQ(o.log.write_writer(w[1], 0), o.idx(3));
    const uint64_t t1 = o.log.durable_all(o.idx(1)), t3 = o.log.durable_all(o.idx(3));
    ASSERT_LT(t1, t3);
    mem_image *mid = o.log.image_at(t1), *end = o.log.image_at(t3);
    EXPECT_EQ(mem_read_u32(mid, X), 1u);
    EXPECT_EQ(mem_read_u32(end, X), 2u);
    mem_free(mid);
    mem_free(end);
    EXPECT_EQ(o.log.images().size(), 3u);   // initial, X = 1, X = 2
}

// The persistence domain: under ADR a write is durable when the NVM controller's write-pending
// queue accepts it (one entry here: the writes of a burst become durable one NVM write apart);
// under eADR (PM-far) when it reaches the host LLC (all of them together, an LLC latency after
// they arrive).
namespace {
std::string burst_trace()
{
    std::string t = "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n";
    char b[80];
    for (int i = 0; i < 16; ++i) {
        std::snprintf(b, sizeof b, "%d: st 0x%llx 4 = %d\n", i + 1, (unsigned long long)(X + 128ull * i), i + 1);
        t += b;
    }
    return t + "17: durable\n";
}
uint64_t spread(const LogObs &o)
{
    uint64_t lo = kNever, hi = 0;
    for (uint32_t id = 1; id <= 16; ++id) {
        uint64_t t = o.log.durable_all(o.idx(id));
        lo = std::min(lo, t);
        hi = std::max(hi, t);
    }
    return hi - lo;
}
} // namespace

TEST(DurableImage, AdrDurableAtWpqAccept)
{
    LogObs o;
    RunResult r = run_trace("epoch", burst_trace(), o, {"nvm.wpq_entries=1"});
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(o.log.writes(), 16u);
    // 16 NVM writes one after another through a single WPQ entry: at least 15 x 100 ns apart
    EXPECT_GT(spread(o), 15 * 100000ull);
    mem_image *m = o.log.image_at(kNever - 1);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(mem_read_u32(m, X + 128ull * i), (uint32_t)i + 1);
    mem_free(m);
}

TEST(DurableImage, EadrDurableAtTheHostLlc)
{
    LogObs o;
    RunResult r = run_trace("epoch", burst_trace(), o,
                            {"nvm.wpq_entries=1", "system.eadr=true", "host.llc_latency_ns=2000"});
    ASSERT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(o.log.writes(), 16u);
    // the LLC takes them all: only the PCIe serialization separates them, not the NVM
    EXPECT_LT(spread(o), 200000ull);
    // durable = arrival at the host (PCIe latency after the flush) + the LLC latency
    for (uint32_t id = 1; id <= 16; ++id)
        EXPECT_GE(o.log.durable_all(o.idx(id)), o.log.performed(o.idx(id)) + 300000 + 2000000) << id;
}

// ---------------------------------------------------------------------------------------------
// Conformance: every model keeps the order it promises on every workload (small sizes).
namespace {
std::vector<std::string> all_workloads()
{
    std::vector<std::string> v;
    for (const persim_workload *const *w = wl_all(); *w; ++w) v.push_back((*w)->name);
    for (const persim_workload *const *w = wl_variants(); *w; ++w) v.push_back((*w)->name);
    return v;
}
std::vector<std::string> all_model_names()
{
    std::vector<std::string> v;
    for (auto *m : all_models()) v.push_back(m->name);
    return v;
}
bool is_bug_variant(const std::string &w) { return w.find("-bug") != std::string::npos; }
} // namespace

class Conformance : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};
TEST_P(Conformance, EveryPromisedEdgeHolds)
{
    auto [wl, model] = GetParam();
    RunSpec s = small_spec(model, wl);
    Checker chk(s.cfg, model, false);
    s.observer = &chk;
    RunResult r = run_simulation(s);
    const CheckReport &c = chk.report();
    ASSERT_TRUE(c.ran) << r.status << ": " << r.message;
    EXPECT_GT(c.persists, 0u);
    EXPECT_EQ(c.violations, 0u) << chk.text();
    EXPECT_EQ(c.never_durable, 0u) << chk.text();
    EXPECT_TRUE(c.anomalies.empty()) << chk.text();
    if (!is_bug_variant(wl)) {
        EXPECT_EQ(r.code, EXIT_OK) << r.message;
        EXPECT_EQ(c.not_guaranteed(), 0u) << chk.text();
        EXPECT_EQ(c.reqs_violated(), 0u) << chk.text();
    }
    EXPECT_TRUE(r.stats.contains("check"));
}
INSTANTIATE_TEST_SUITE_P(Sc, Conformance, ::testing::Combine(::testing::ValuesIn(all_workloads()),
                                                             ::testing::ValuesIn(all_model_names())),
                         [](const auto &i) {
                             std::string s = std::get<0>(i.param) + "_" + std::get<1>(i.param);
                             for (char &ch : s)
                                 if (ch == '-') ch = '_';
                             return s;
                         });

// A requirement the run breaks is reported as violated (and, not being ordered by the model, as
// not guaranteed): two unordered stores to different lines, flushed eagerly in program order.
TEST(Requirements, ObservedViolationIsReported)
{
    Checker chk(small_spec("sbrp", "").cfg, "sbrp", true);
    RunSpec s = small_spec("sbrp", "", {"persist.flush_policy=eager"});
    s.trace = write_trace("req_violated", "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n"
                                          "1: st 0x10000001000 4 = 1\n2: st 0x10000000000 4 = 2\n3: durable\n"
                                          "4: require 2 1\n");
    s.observer = &chk;
    RunResult r = run_simulation(s);
    ASSERT_TRUE(chk.report().ran) << r.message;
    ASSERT_EQ(chk.report().reqs.size(), 1u);
    EXPECT_FALSE(chk.report().reqs[0].guaranteed);
    EXPECT_TRUE(chk.report().reqs[0].violated) << chk.text();   // the PB flushes 1 before 2
    EXPECT_EQ(r.code, EXIT_CHECK);
    EXPECT_NE(chk.text().find("VIOLATED"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Scoped persistency bugs (SBRP section 5.3): `check` reports them as not guaranteed.
namespace {
RunResult check_wl(const std::string &model, const std::string &wl, Checker *&out,
                   const std::vector<std::string> &sets = {})
{
    static RunSpec s;
    s = small_spec(model, wl, sets);
    out = new Checker(s.cfg, model, true);
    s.observer = out;
    return run_simulation(s);
}
} // namespace

TEST(ScopedBugs, ReductionBlockScopeReleaseNotGuaranteedBySbrp)
{
    Checker *c;
    RunResult r = check_wl("sbrp", "reduction-blkscope-bug", c);
    ASSERT_TRUE(c->report().ran);
    EXPECT_EQ(r.code, EXIT_CHECK);
    // every block's tree is unordered with the final sum, except the last block's own
    EXPECT_EQ(c->report().not_guaranteed(), c->report().reqs.size() - 1) << c->text();
    EXPECT_NE(c->text().find("NOT GUARANTEED"), std::string::npos);
    delete c;
}

TEST(ScopedBugs, ReductionDeviceScopeReleaseGuaranteedBySbrp)
{
    Checker *c;
    RunResult r = check_wl("sbrp", "reduction", c);
    EXPECT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(c->report().reqs.size(), 60u);
    EXPECT_EQ(c->report().not_guaranteed(), 0u);
    delete c;
}

TEST(ScopedBugs, EpochIgnoresScopes)
{
    Checker *c;
    RunResult r = check_wl("epoch", "reduction-blkscope-bug", c);
    EXPECT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(c->report().not_guaranteed(), 0u);
    delete c;
}

TEST(ScopedBugs, PromotingBlockScopeFixesTheBug)
{
    Checker *c;
    RunResult r = check_wl("sbrp", "reduction-blkscope-bug", c, {"persist.promote_block_scope=true"});
    EXPECT_EQ(r.code, EXIT_OK) << r.message;
    EXPECT_EQ(c->report().not_guaranteed(), 0u);
    delete c;
}

TEST(ScopedBugs, MqMissingOrderPointNotGuaranteed)
{
    Checker *c;
    RunResult r = check_wl("sbrp", "mq-noorder-bug", c);
    EXPECT_EQ(r.code, EXIT_CHECK);
    // one head/tail -> completion requirement per transaction, half of them
    EXPECT_EQ(c->report().not_guaranteed() * 2, c->report().reqs.size()) << c->text();
    delete c;
}

// ... and `crash` finds a crash point where recovery fails; the correct programs recover at every one.
namespace {
CrashDriver *crash_wl(const std::string &model, const std::string &wl, const std::string &size, CrashOptions o,
                      RunResult &r, const std::vector<std::string> &sets = {})
{
    static RunSpec s;
    s = small_spec(model, wl, sets);
    if (size != "small") s.cfg.set_kv("workload.size=" + size);
    o.replay = "persim crash";
    auto *d = new CrashDriver(s.cfg, model, o);
    s.observer = d;
    r = run_simulation(s);
    return d;
}
CrashOptions all_points()
{
    CrashOptions o;
    o.all = true;
    return o;
}
CrashOptions model_images(uint64_t n)
{
    CrashOptions o;
    o.model_images = true;
    o.points = n;
    return o;
}
} // namespace

TEST(CrashBugs, ReductionBlockScopeFailsAtSomeCrashPoint)
{
    RunResult r;
    CrashDriver *d = crash_wl("sbrp", "reduction-blkscope-bug", "131072", all_points(), r, {"persist.flush_policy=lazy"});
    EXPECT_GT(d->tried(), 1000u);
    EXPECT_LT(d->recovered(), d->tried()) << d->text();
    EXPECT_EQ(r.code, EXIT_CHECK);
    EXPECT_NE(d->text().find("replay            persim crash --at "), std::string::npos) << d->text();
    delete d;
}

TEST(CrashBugs, ReductionRecoversAtEveryCrashPoint)
{
    RunResult r;
    CrashDriver *d = crash_wl("sbrp", "reduction", "131072", all_points(), r, {"persist.flush_policy=lazy"});
    EXPECT_GT(d->tried(), 1000u);
    EXPECT_EQ(d->recovered(), d->tried()) << d->text();
    EXPECT_EQ(r.code, EXIT_OK);
    delete d;
}

TEST(CrashBugs, MqMissingOrderFailsOnModelImages)
{
    RunResult r;
    CrashDriver *d = crash_wl("sbrp", "mq-noorder-bug", "40", model_images(300), r);
    EXPECT_GT(d->tried(), 300u);   // the targeted images, then 300 samples
    EXPECT_LT(d->recovered(), d->tried()) << d->text();
    EXPECT_NE(d->text().find("replay            persim crash --images model --target "), std::string::npos) << d->text();
    delete d;
}

// Targeted model images (docs/checking.md): under the default nvwfifo config the random samples
// miss the workitem-scope B+tree bug and a targeted image (B durable, A not) finds it; the replay
// names that image (--target K; replayed in CliScoped.CrashFindsTheWorkitemScopeBug, as SystemC
// elaborates once per process). The correct variant has no targeted image (CrashAll: 60 tried).
TEST(CrashBugs, BtreeWorkitemScopeFailsOnATargetedImage)
{
    RunResult r;
    CrashDriver *d = crash_wl("nvwfifo", "btree-wg-wi-bug", "small", model_images(20), r);
    EXPECT_GT(d->tried(), 20u) << d->text();
    EXPECT_LT(d->recovered(), d->tried()) << d->text();
    EXPECT_EQ(r.code, EXIT_CHECK);
    EXPECT_NE(d->text().find("first failing     targeted image "), std::string::npos) << d->text();
    EXPECT_NE(d->text().find("replay            persim crash --images model --target "), std::string::npos) << d->text();
    EXPECT_GT(r.stats["crash"]["targeted_failed"].get<uint64_t>(), 0u);
    delete d;
}

TEST(CrashBugs, MqRecoversOnModelImages)
{
    RunResult r;
    CrashDriver *d = crash_wl("sbrp", "mq", "40", model_images(300), r);
    // The model images were tried (the targeted ones, then 300 samples), and every one recovered.
    EXPECT_GE(d->tried(), 300u) << d->text();
    EXPECT_EQ(d->recovered(), d->tried()) << d->text();
    EXPECT_EQ(r.code, EXIT_OK) << r.message;
    ASSERT_TRUE(r.stats.contains("crash"));
    EXPECT_EQ(r.stats["crash"]["images"].get<std::string>(), "model");
    EXPECT_EQ(r.stats["crash"]["tried"].get<uint64_t>(), d->tried());
    EXPECT_EQ(r.stats["crash"]["targeted_failed"].get<uint64_t>(), 0u);
    EXPECT_EQ(r.stats["crash"]["first_failure"].get<std::string>(), "");
    delete d;
}

TEST(CrashBugs, MqRecoversAtEveryCrashPoint)
{
    RunResult r;
    CrashDriver *d = crash_wl("epoch", "mq", "40", all_points(), r);
    EXPECT_GT(d->tried(), 2000u);
    EXPECT_EQ(d->recovered(), d->tried()) << d->text();
    delete d;
}

// Every workload recovers at sampled crash points of its run and at sampled model images.
class CrashAll : public ::testing::TestWithParam<std::tuple<std::string, std::string, bool>> {};
TEST_P(CrashAll, Recovers)
{
    auto [wl, model, model_imgs] = GetParam();
    RunResult r;
    CrashOptions o;
    o.points = 60;
    o.model_images = model_imgs;
    CrashDriver *d = crash_wl(model, wl, "small", o, r);
    EXPECT_EQ(d->tried(), 60u);
    EXPECT_EQ(d->recovered(), d->tried()) << d->text();
    EXPECT_EQ(r.code, EXIT_OK) << r.message;
    delete d;
}
INSTANTIATE_TEST_SUITE_P(Sc, CrashAll,
                         ::testing::Combine(::testing::Values("gpkvs", "hm", "srad", "reduction", "mq", "scan",
                                                              "btree-kr-log", "btree-wg-log"),
                                            ::testing::Values("epoch", "sbrp", "nvwfifo"), ::testing::Bool()),
                         [](const auto &i) {
                             std::string s = std::get<0>(i.param) + "_" + std::get<1>(i.param) +
                                             (std::get<2>(i.param) ? "_model_images" : "_run_images");
                             for (char &ch : s)
                                 if (ch == '-') ch = '_';
                             return s;
                         });
