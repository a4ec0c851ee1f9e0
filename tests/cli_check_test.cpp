// `persim run --check`, `persim check`, `persim crash` from the command line (docs/checking.md):
// the example traces, exit statuses, replay commands, and bad input (one clear message, exit 1).
#include <gtest/gtest.h>
#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>
#include <regex>
#include <string>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

#include "cli_util.h"

using namespace cli_util;

namespace {


const std::string kSmall = std::string("--config ") + PERSIM_SOURCE_DIR + "/configs/gpu_small.json";
const std::string kExamples = std::string(PERSIM_SOURCE_DIR) + "/docs/examples/";
bool has(const Out &o, const std::string &s) { return o.text.find(s) != std::string::npos; }

} // namespace

TEST(CliCheck, ScopedReleaseExample)
{
    Out s = sh("check " + kSmall + " --model sbrp --trace " + kExamples + "scoped-release-bug.trace");
    EXPECT_EQ(s.code, 5) << s.text;
    EXPECT_TRUE(has(s, "require 3 7 (op 10): NOT GUARANTEED")) << s.text;
    EXPECT_TRUE(has(s, "1 guaranteed, 1 not guaranteed")) << s.text;
    EXPECT_TRUE(has(s, "conformance       ok")) << s.text;
    // epoch barriers make every release durable: both guaranteed
    Out e = sh("check " + kSmall + " --model epoch --trace " + kExamples + "scoped-release-bug.trace");
    EXPECT_EQ(e.code, 0) << e.text;
    EXPECT_TRUE(has(e, "2 guaranteed, 0 not guaranteed")) << e.text;
}

TEST(CliCheck, MissingOrderExample)
{
    for (const char *m : {"sbrp", "epoch", "gpm"}) {
        Out o = sh("check " + kSmall + " --model " + m + " --trace " + kExamples + "missing-order-bug.trace");
        EXPECT_EQ(o.code, 5) << m << o.text;
        EXPECT_TRUE(has(o, "require 12 13 (op 17): NOT GUARANTEED")) << m << o.text;
        EXPECT_TRUE(has(o, "4 guaranteed, 1 not guaranteed")) << m << o.text;
    }
}

TEST(CliCheck, WorkloadRequirementsAndJson)
{
    std::string d = tmpdir("wl");
    Out o = sh("check " + kSmall + " --model sbrp --workload reduction --size small --out " + d + "/r");
    EXPECT_EQ(o.code, 0) << o.text;
    EXPECT_TRUE(has(o, "60: 60 guaranteed, 0 not guaranteed; 0 violated")) << o.text;
    auto j = nlohmann::json::parse(std::ifstream(d + "/r/stats.json"));
    EXPECT_EQ(j["check"]["violations"].get<int>(), 0);
    EXPECT_EQ(j["check"]["requirements"].size(), 60u);
    Out b = sh("check " + kSmall + " --model sbrp --workload reduction-blkscope-bug --size small");
    EXPECT_EQ(b.code, 5) << b.text;
    EXPECT_TRUE(has(b, "59 not guaranteed")) << b.text;
}

TEST(CliCheck, RunCheckPrintsConformance)
{
    std::string d = tmpdir("run");
    Out o = sh("run " + kSmall + " --model gpm --workload scan --size small --check --out " + d + "/r");
    EXPECT_EQ(o.code, 0) << o.text;
    EXPECT_TRUE(has(o, "check (gpm):")) << o.text;
    EXPECT_TRUE(has(o, "conformance       ok")) << o.text;
    auto j = nlohmann::json::parse(std::ifstream(d + "/r/stats.json"));
    EXPECT_TRUE(j["check"]["checked"].get<bool>());
    EXPECT_GT(j["check"]["persists"].get<int>(), 0);
    // without --check nothing is tracked
    Out n = sh("run " + kSmall + " --model gpm --workload scan --size small --out " + d + "/n");
    EXPECT_FALSE(has(n, "conformance"));
    auto jn = nlohmann::json::parse(std::ifstream(d + "/n/stats.json"));
    EXPECT_FALSE(jn.contains("check"));
}

TEST(CliCheck, CrashFindsTheScopedBugAndReplays)
{
    const std::string args = kSmall + " --set persist.flush_policy=lazy --model sbrp --size 131072";
    Out o = sh("crash " + args + " --workload reduction-blkscope-bug --points all");
    EXPECT_EQ(o.code, 5) << o.text;
    EXPECT_TRUE(has(o, "first failing")) << o.text;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(o.text, m, std::regex("replay +\\S+ (crash .* --at [0-9]+)"))) << o.text;
    Out r = sh(m[1].str());
    EXPECT_EQ(r.code, 5) << r.text;
    EXPECT_TRUE(has(r, "points tried      1")) << r.text;
    EXPECT_TRUE(has(r, "points recovered  0")) << r.text;
    Out ok = sh("crash " + args + " --workload reduction --points 300 --seed 7");
    EXPECT_EQ(ok.code, 0) << ok.text;
    EXPECT_TRUE(has(ok, "points tried      300 (seed 7)")) << ok.text;
    EXPECT_TRUE(has(ok, "points recovered  300")) << ok.text;
}

TEST(CliCheck, CrashModelImagesReplay)
{
    Out o = sh("crash " + kSmall + " --model sbrp --workload mq-noorder-bug --size 40 --images model --points 200");
    EXPECT_EQ(o.code, 5) << o.text;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(o.text, m, std::regex("replay +\\S+ (crash .* --(sample|target) [0-9]+)"))) << o.text;
    Out r = sh(m[1].str());
    EXPECT_EQ(r.code, 5) << r.text;
    EXPECT_TRUE(has(r, "points recovered  0")) << r.text;
}

// ---- timed recovery (docs/checking.md "Timed recovery") ----

namespace {
nlohmann::json read_json(const std::string &path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// The header and last row of a CSV file as name -> value.
std::map<std::string, std::string> csv_row(const std::string &path)
{
    const auto rows = read_csv_records(path);
    std::map<std::string, std::string> m;
    if (rows.size() < 2) return m;
    for (size_t i = 0; i < rows.front().size() && i < rows.back().size(); ++i) m[rows.front()[i]] = rows.back()[i];
    return m;
}

const std::string kRec = kSmall + " --workload gpkvs --size 1024";
} // namespace

TEST(CliCheck, CrashTimedRecoveryReportsRecoveryTime)
{
    const std::string d = tmpdir("timed");
    for (const char *model : {"epoch", "sbrp"}) {
        const std::string out = d + "/" + model;
        Out o = sh("crash " + kRec + " --model " + model + " --points 30 --time-recovery --worst --out " + out +
                   " --csv " + out + "/run.csv");
        ASSERT_EQ(o.code, 0) << o.text;
        EXPECT_TRUE(has(o, "recovery time")) << o.text;
        EXPECT_TRUE(has(o, "recovery run      ")) << o.text;
        auto st = read_json(out + "/stats.json");
        ASSERT_TRUE(st.contains("recovery")) << st.dump(1);
        const auto &r = st["recovery"];
        EXPECT_GT(r["recovery_ns"].get<double>(), 0.0);
        EXPECT_GT(r["work_words"].get<uint64_t>(), 0u);
        EXPECT_GE(r["kernels"].get<uint64_t>(), 1u);
        // the crash-free time is the crash run's own timed run; recovery is a fraction of it here
        EXPECT_DOUBLE_EQ(r["crash_free_ns"].get<double>(), st["summary"]["sim_ns"]["value"].get<double>());
        EXPECT_GT(r["recovery_ratio"].get<double>(), 0.0);
        EXPECT_LT(r["recovery_ratio"].get<double>(), 1.0);
        // the child run verified the recovery kernels' result against the trace's expect lines
        auto child = read_json(out + "/recovery/stats.json");
        EXPECT_EQ(child["run"]["status"], "ok");
        EXPECT_TRUE(child["run"]["verified"].get<bool>());
        EXPECT_DOUBLE_EQ(child["summary"]["sim_ns"]["value"].get<double>(), r["recovery_ns"].get<double>());
        EXPECT_TRUE(fs::exists(out + "/recovery.trace"));
        auto row = csv_row(out + "/run.csv");
        ASSERT_TRUE(row.count("recovery_ns")) << o.text;
        EXPECT_GT(std::stod(row["recovery_ns"]), 0.0);
        EXPECT_GT(std::stod(row["recovery_ratio"]), 0.0);
    }
}

TEST(CliCheck, CrashTimedRecoveryWorstPointDoesTheMostWork)
{
    const std::string d = tmpdir("worst");
    Out o = sh("crash " + kRec + " --model sbrp --points all --time-recovery --worst --out " + d + "/w --csv " + d + "/w.csv");
    ASSERT_EQ(o.code, 0) << o.text;
    auto st = read_json(d + "/w/stats.json");
    const uint64_t worst = st["recovery"]["work_words"].get<uint64_t>();
    const uint64_t end = (uint64_t)(st["summary"]["sim_ns"]["value"].get<double>() * 1000.0);
    // other crash instants (every one is among the points `--points all` tried)
    uint64_t least = worst;
    for (int k = 0; k <= 4; ++k) {
        const uint64_t at = end / 4 * k;
        const std::string out = d + "/at" + std::to_string(k);
        Out a = sh("crash " + kRec + " --model sbrp --time-recovery --at " + std::to_string(at) + " --out " + out +
                   " --csv " + out + ".csv");
        ASSERT_EQ(a.code, 0) << a.text;
        const uint64_t w = read_json(out + "/stats.json")["recovery"]["work_words"].get<uint64_t>();
        EXPECT_LE(w, worst) << "crash at " << at << " ps does more recovery work than the --worst point";
        least = std::min(least, w);
    }
    EXPECT_LT(least, worst) << "the recovery work should vary with the crash point";
}

TEST(CliCheck, CrashTimedRecoveryInASweep)
{
    const std::string d = tmpdir("sweep");
    const std::string spec = write(d, "s.json", std::string(R"({"out": ")") + d + R"(/out", "command": "crash",
        "args": ["--points", "10", "--time-recovery", "--worst"],
        "configs": [")" + PERSIM_SOURCE_DIR + R"(/configs/gpu_small.json"], "models": ["epoch", "sbrp"],
        "workloads": ["gpkvs"], "sizes": [1024]})");
    Out o = sh("sweep " + spec + " -j 2");
    ASSERT_EQ(o.code, 0) << o.text;
    const auto recs = read_csv_records(d + "/out/sweep.csv");
    ASSERT_FALSE(recs.empty());
    const int at = csv_col(recs[0], "recovery_ns");
    ASSERT_GE(at, 0);
    int rows = 0;
    for (size_t i = 1; i < recs.size(); ++i) {
        ASSERT_GT(recs[i].size(), (size_t)at);
        EXPECT_GT(std::stod(recs[i][at]), 0.0);
        ++rows;
    }
    EXPECT_EQ(rows, 2);
}

// ---- bad input: one clear message, exit 1 ----

TEST(CliCheckBadInput, RequireNamingAnUnknownOp)
{
    std::string d = tmpdir("unknown");
    std::string t = write(d, "u.trace", "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n"
                                        "1: st 0x10000000000 4 = 1\nrequire 1 99\n");
    Out o = sh("check " + kSmall + " --model sbrp --trace " + t);
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_TRUE(has(o, t + ":5: require names unknown op id 99")) << o.text;
}

TEST(CliCheckBadInput, RequireNamingAnOpThatIsNotAPersist)
{
    std::string d = tmpdir("notpersist");
    std::string t = write(d, "n.trace", "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n"
                                        "1: ld 0x10000000000 4\n2: st 0x10000000000 4 = 1\n"
                                        "3: st 0x100 4 = 1\nrequire 1 2\n");
    Out o = sh("check " + kSmall + " --model sbrp --trace " + t);
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_TRUE(has(o, "names op 1 ('ld'), which writes no persistent memory")) << o.text;
    std::string t2 = write(d, "v.trace", "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n"
                                         "2: st 0x10000000000 4 = 1\n3: st 0x100 4 = 1\nrequire 2 3\n");
    Out v = sh("run " + kSmall + " --model sbrp --check --trace " + t2 + " --out " + d + "/o");
    EXPECT_EQ(v.code, 1) << v.text;
    EXPECT_TRUE(has(v, "names op 3 ('st'), which writes no persistent memory")) << v.text;
}

TEST(CliCheckBadInput, MalformedTrace)
{
    std::string d = tmpdir("malformed");
    std::string t = write(d, "m.trace", "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n"
                                        "1: st 0x10000000000 4 = 1\nrequire 1\n");
    Out o = sh("check " + kSmall + " --model sbrp --trace " + t);
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_TRUE(has(o, t + ":5:")) << o.text;
    EXPECT_TRUE(has(o, "require")) << o.text;
    Out n = sh("check " + kSmall + " --model sbrp --trace " + d + "/missing.trace");
    EXPECT_EQ(n.code, 1) << n.text;
    Out none = sh("check " + kSmall + " --model sbrp");
    EXPECT_EQ(none.code, 1) << none.text;
    EXPECT_TRUE(has(none, "give exactly one of --workload or --trace")) << none.text;
}

TEST(CliCheckBadInput, CrashPointBeyondTheEndOfTheRun)
{
    Out o = sh("crash " + kSmall + " --model sbrp --workload reduction --size 16384 --at 999999999999");
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_TRUE(has(o, "--at 999999999999 ps is beyond the end of the run (")) << o.text;
}

TEST(CliCheckBadInput, CrashOptions)
{
    struct C { std::string args, msg; };
    const C cases[] = {
        {"--workload reduction --points 0", "--points: expected at least 1"},
        {"--workload reduction --points many", "--points: expected a non-negative integer, got 'many'"},
        {"--workload reduction --images hardware", "--images: expected 'run' or 'model', got 'hardware'"},
        {"--workload reduction --sample 3", "--sample: only with --images model"},
        {"--workload reduction --images model --at 5", "--at: only with --images run"},
        {"--workload reduction --images model --points all", "--points all enumerates the run's durable images"},
        {"--workload reduction --at -4", "--at: expected a non-negative integer"},
        {"--workload reduction --target 0", "--target: only with --images model"},
        {"--workload reduction --images model --sample 1 --target 0", "--target: give either --sample or --target"},
        {"--workload reduction --images model --target 0", "--target 0: this run has 0 targeted image(s)"},
        {"--trace x.trace", "--workload is required"},
        {"--workload nope", "unknown workload 'nope'"},
        {"--workload gpkvs --worst", "--worst: only with --time-recovery"},
        {"--workload gpkvs --time-recovery --out /nonexistent/x", "--time-recovery: choose the crash point with --worst or --at PS"},
        {"--workload gpkvs --time-recovery --worst --at 5 --out /nonexistent/x", "--worst and --at both choose the crash point"},
        {"--workload gpkvs --time-recovery --worst --images model --out /nonexistent/x", "--time-recovery: times a run image"},
        {"--workload gpkvs --time-recovery --worst", "--time-recovery: needs --out DIR"},
    };
    for (const auto &c : cases) {
        Out o = sh("crash " + kSmall + " --model sbrp --size 16384 " + c.args);
        EXPECT_EQ(o.code, 1) << c.args << "\n" << o.text;
        EXPECT_TRUE(has(o, c.msg)) << c.args << "\n" << o.text;
    }
}

// On the cpu system `persim crash` and `persim check` check the persist order the model promises
// on the run's durable order: committed region prefixes (LightWSP) and buffered strict
// persistence (BROI); the broken variants exit 5, naming what broke.
TEST(CliCheck, CpuCrashAndCheckCatchTheBrokenVariants)
{
    const std::string src = PERSIM_SOURCE_DIR;
    const std::string lw = "--config " + src + "/configs/cpu_small.json --size small --out " + tmpdir("cpu_crash");
    Out ok = sh("crash " + lw + " --model lightwsp --workload cpu-queue");
    EXPECT_EQ(ok.code, 0) << ok.text;
    EXPECT_NE(ok.text.find("0 image(s) not equal"), std::string::npos) << ok.text;
    Out bad = sh("crash " + lw + " --model lightwsp-ungated --workload cpu-queue");
    EXPECT_EQ(bad.code, 5) << bad.text;
    EXPECT_NE(bad.text.find("first violation"), std::string::npos) << bad.text;

    const std::string br = "--config " + src + "/configs/cpu_broi_table3.json --size small --out " + tmpdir("cpu_check");
    Out good = sh("check " + br + " --model broi --workload broi-hashtable");
    EXPECT_EQ(good.code, 0) << good.text;
    Out nodeps = sh("check " + br + " --model broi-nodeps --workload broi-hashtable");
    EXPECT_EQ(nodeps.code, 5) << nodeps.text;
    EXPECT_NE(nodeps.text.find("reordered conflicts"), std::string::npos) << nodeps.text;
}
