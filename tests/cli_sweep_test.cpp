// `persim sweep`: spec validation, resume after an interrupted sweep, --force, the CSV schema,
// failed points, Slurm / dry-run output. Small GPU and small workloads so each case is quick.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

#include "cli_util.h"

using namespace cli_util;

namespace {


std::string slurp(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The records of a CSV file (RFC 4180: persim quotes every cell).
std::vector<std::vector<std::string>> read_csv(const std::string &path) { return read_csv_records(path); }

int col(const std::vector<std::string> &header, const std::string &name)
{
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return (int)i;
    return -1;
}

// The CSV without host_seconds (the only column that is not deterministic).
std::string csv_without_host_time(const std::string &path)
{
    auto rows = read_csv(path);
    int h = rows.empty() ? -1 : col(rows[0], "host_seconds");
    std::string o;
    for (auto &r : rows) {
        if (h >= 0 && h < (int)r.size()) r.erase(r.begin() + h);
        for (size_t i = 0; i < r.size(); ++i) o += (i ? "," : "") + r[i];
        o += "\n";
    }
    return o;
}

const std::string kSmallCfg = std::string(PERSIM_SOURCE_DIR) + "/configs/gpu_small.json";

// A 4-point spec: epoch/sbrp x far/near, scan at its small size on the small GPU.
std::string small_spec(const std::string &dir, const std::string &extra = "")
{
    return write(dir, "spec.json",
                 "// comments are allowed\n{\n"
                 "  \"name\": \"t\",\n"
                 "  \"out\": \"" + dir + "/out\",\n"
                 "  \"configs\": [\"" + kSmallCfg + "\"],\n"
                 "  \"models\": [\"epoch\", \"sbrp\"],\n"
                 "  \"workloads\": [\"scan\"],\n"
                 "  \"sizes\": [\"small\"],\n"
                 "  \"seeds\": [1],\n"
                 "  \"set\": { \"system.pm_placement\": [\"far\", \"near\"] }" + extra + "\n}\n");
}

} // namespace

TEST(Sweep, UnknownKeyNamesFileAndKey)
{
    std::string d = tmpdir("unknown");
    std::string f = write(d, "s.json", "{\"out\": \"" + d + "/o\", \"models\": [\"sbrp\"], \"workloads\": [\"scan\"], "
                                        "\"modles\": [\"epoch\"]}");
    Out o = sh("sweep " + f);
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find(f), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("unknown key 'modles'"), std::string::npos) << o.text;
    EXPECT_FALSE(fs::exists(d + "/o"));

    // An unknown config key under "set" is named with its section's keys.
    f = write(d, "s2.json", "{\"out\": \"" + d + "/o\", \"models\": [\"sbrp\"], \"workloads\": [\"scan\"], "
                            "\"set\": {\"nvm.write_bw_gbs\": [1]}}");
    o = sh("sweep " + f);
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("nvm.write_bw_gbs"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("nvm.write_bw_gbps"), std::string::npos) << o.text;

    // Out-of-range value, unknown model, unknown workload, unknown exclude dimension, bad JSON.
    for (const std::string &bad : {std::string("\"set\": {\"nvm.write_bw_gbps\": [-1]}"),
                                   std::string("\"set\": {\"persist.window\": [\"six\"]}"),
                                   std::string("\"exclude\": [{\"modl\": \"sbrp\"}]"),
                                   std::string("\"sizes\": [0]"),
                                   std::string("\"configs\": [\"/nonexistent/x.json\"]")}) {
        f = write(d, "s3.json", "{\"out\": \"" + d + "/o\", \"models\": [\"sbrp\"], \"workloads\": [\"scan\"], " + bad + "}");
        o = sh("sweep " + f);
        EXPECT_EQ(o.code, 1) << bad << ": " << o.text;
        EXPECT_NE(o.text.find(f), std::string::npos) << bad << ": " << o.text;
    }
    f = write(d, "s4.json", "{\"out\": \"x\", \"models\": [\"sbrpp\"], \"workloads\": [\"scan\"]}");
    o = sh("sweep " + f);
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("unknown model 'sbrpp'"), std::string::npos) << o.text;
    f = write(d, "s5.json", "{\"out\": \"x\",\n \"models\": [\"sbrp\"],, }");
    o = sh("sweep " + f);
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find(f + ":2"), std::string::npos) << o.text;
    EXPECT_EQ(sh("sweep " + d + "/missing.json").code, 1);
}

TEST(Sweep, EmptyCrossProduct)
{
    std::string d = tmpdir("empty");
    std::string f = write(d, "s.json", "{\"out\": \"" + d + "/o\", \"models\": [], \"workloads\": [\"scan\"]}");
    Out o = sh("sweep " + f);
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("empty cross product"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("'models'"), std::string::npos) << o.text;

    f = write(d, "s2.json", "{\"out\": \"" + d + "/o\", \"models\": [\"sbrp\"], \"workloads\": [\"scan\"], "
                            "\"set\": {\"persist.window\": []}}");
    o = sh("sweep " + f);
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("empty cross product"), std::string::npos) << o.text;

    f = write(d, "s3.json", "{\"out\": \"" + d + "/o\", \"models\": [\"sbrp\"], \"workloads\": [\"scan\"], "
                            "\"exclude\": [{\"model\": \"sbrp\"}]}");
    o = sh("sweep " + f);
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("every point is excluded"), std::string::npos) << o.text;
    EXPECT_FALSE(fs::exists(d + "/o"));
}

TEST(Sweep, BadJobs)
{
    std::string d = tmpdir("jobs");
    std::string f = small_spec(d);
    for (const char *j : {"-j 0", "-j -2", "-j two", "-j 1x", "-j", "-j0", "--jobs=0"}) {
        Out o = sh("sweep " + f + " " + j);
        EXPECT_EQ(o.code, 1) << j << ": " << o.text;
        EXPECT_NE(o.text.find("-j"), std::string::npos) << j << ": " << o.text;
    }
    EXPECT_FALSE(fs::exists(d + "/out"));
    Out o = sh("sweep " + f + " --bogus");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("--bogus"), std::string::npos);
}

TEST(Sweep, CsvSchema)
{
    std::string d = tmpdir("csv");
    std::string f = write(d, "s.json",
                          "{\"out\": \"" + d + "/out\", \"configs\": [\"" + kSmallCfg + "\"],"
                          " \"models\": [\"epoch\", \"sbrp\"], \"workloads\": [\"scan\", \"reduction\"], \"sizes\": [\"small\"],"
                          " \"set\": {\"system.pm_placement\": [\"far\", \"near\"],"
                          "   \"bw\": [{\"_label\": 50, \"nvm.read_bw_gbps\": 42, \"nvm.write_bw_gbps\": 21},"
                          "            {\"_label\": 100, \"nvm.read_bw_gbps\": 84, \"nvm.write_bw_gbps\": 42}]},"
                          " \"exclude\": [{\"model\": \"epoch\", \"bw\": 50}, {\"workload\": \"reduction\", \"system.pm_placement\": \"near\"}]}");
    Out o = sh("sweep " + f + " -j 2");
    ASSERT_EQ(o.code, 0) << o.text;
    // 2 models x 2 workloads x 2 placements x 2 bandwidths = 16, minus epoch@50 (4), minus
    // reduction@near (sbrp 2 + epoch 1 left after the first rule) = 9.
    auto rows = read_csv(d + "/out/sweep.csv");
    ASSERT_EQ(rows.size(), 10u) << slurp(d + "/out/sweep.csv");
    const auto &h = rows[0];
    std::vector<std::string> lead = {"point", "exit", "config_files", "size_arg", "system.pm_placement", "bw"};
    ASSERT_GE(h.size(), lead.size());
    for (size_t i = 0; i < lead.size(); ++i) EXPECT_EQ(h[i], lead[i]);
    for (const char *c : {"model", "workload", "placement", "size", "seed", "status", "sim_ns", "gpu_cycles",
                          "l1_pm_read_misses"})
        EXPECT_GE(col(h, c), 0) << c;
    for (size_t r = 1; r < rows.size(); ++r) {
        ASSERT_EQ(rows[r].size(), h.size()) << "row " << r;
        EXPECT_EQ(rows[r][col(h, "exit")], "0");
        EXPECT_EQ(rows[r][col(h, "status")], "ok");
        EXPECT_EQ(rows[r][col(h, "config_files")], kSmallCfg);
        // The swept placement is the one the run used.
        EXPECT_EQ(rows[r][col(h, "system.pm_placement")], rows[r][col(h, "placement")]);
        EXPECT_GT(std::stod(rows[r][col(h, "sim_ns")]), 0.0);
        EXPECT_FALSE(rows[r][col(h, "model")] == "epoch" && rows[r][col(h, "bw")] == "50");
        EXPECT_FALSE(rows[r][col(h, "workload")] == "reduction" && rows[r][col(h, "placement")] == "near" &&
                     rows[r][col(h, "model")] == "epoch");
        // The per-point directory holds the run's own outputs.
        std::string dir = d + "/out/runs/" + rows[r][0];
        EXPECT_TRUE(fs::exists(dir + "/stats.json")) << dir;
        EXPECT_TRUE(fs::exists(dir + "/config.json")) << dir;
    }
    // Halving the bandwidth reaches the run's resolved configuration.
    bool saw = false;
    for (size_t r = 1; r < rows.size(); ++r)
        if (rows[r][col(h, "bw")] == "50") {
            std::string cfg = slurp(d + "/out/runs/" + rows[r][0] + "/config.json");
            EXPECT_NE(cfg.find("\"write_bw_gbps\": 21.0"), std::string::npos) << cfg;
            saw = true;
        }
    EXPECT_TRUE(saw);
}

TEST(Sweep, ResumeSkipsFinishedPointsAndForceReruns)
{
    std::string d = tmpdir("resume");
    std::string f = small_spec(d);
    Out o = sh("sweep " + f + " -j 2");
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_NE(o.text.find("4 points: 4 run, 0 skipped, 0 failed"), std::string::npos) << o.text;
    std::string csv1 = csv_without_host_time(d + "/out/sweep.csv");
    EXPECT_EQ(read_csv(d + "/out/sweep.csv").size(), 5u);

    o = sh("sweep " + f);
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_NE(o.text.find("4 points: 0 run, 4 skipped"), std::string::npos) << o.text;
    // Same CSV (the skipped points' rows are collected from their results).
    EXPECT_EQ(csv_without_host_time(d + "/out/sweep.csv"), csv1);

    // An interrupted sweep: one point never finished (no stats.json), one was started and
    // killed (a log but nothing else). Only those two run again; each keeps one CSV row.
    std::vector<std::string> points;
    for (auto &e : fs::directory_iterator(d + "/out/runs")) points.push_back(e.path().string());
    std::sort(points.begin(), points.end());
    ASSERT_EQ(points.size(), 4u);
    fs::remove(points[0] + "/stats.json");
    fs::remove_all(points[1]);
    fs::create_directories(points[1]);
    write(points[1], "log.txt", "killed\n");
    o = sh("sweep " + f + " -j 1");
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_NE(o.text.find("4 points: 2 run, 2 skipped"), std::string::npos) << o.text;
    EXPECT_EQ(csv_without_host_time(d + "/out/sweep.csv"), csv1);          // deterministic runs, one row per point
    EXPECT_EQ(read_csv(points[0] + "/run.csv").size(), 2u);  // header + one row, no stale rows

    o = sh("sweep " + f + " --force");
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_NE(o.text.find("4 points: 4 run, 0 skipped"), std::string::npos) << o.text;

    // Changing a config file the spec names makes its results stale: every point reruns.
    std::string cfg = write(d, "cfg.json", "{\"gpu\": {\"num_sms\": 4}}");
    std::string f2 = write(d, "spec2.json",
                           "{\"out\": \"" + d + "/out2\", \"configs\": [\"" + cfg + "\"], \"models\": [\"sbrp\"],"
                           " \"workloads\": [\"scan\"], \"sizes\": [\"small\"]}");
    ASSERT_EQ(sh("sweep " + f2).code, 0);
    EXPECT_NE(sh("sweep " + f2).text.find("1 points: 0 run, 1 skipped"), std::string::npos);
    write(d, "cfg.json", "{\"gpu\": {\"num_sms\": 2}}");
    o = sh("sweep " + f2);
    EXPECT_NE(o.text.find("1 points: 1 run, 0 skipped"), std::string::npos) << o.text;
}

TEST(Sweep, FailedPointIsReportedAndOthersFinish)
{
    std::string d = tmpdir("fail");
    // sim.max_time_ms = 0.001 cannot finish: that point exits 3 (time limit); the others run.
    std::string f = write(d, "s.json",
                          "{\"out\": \"" + d + "/out\", \"configs\": [\"" + kSmallCfg + "\"], \"models\": [\"sbrp\"],"
                          " \"workloads\": [\"scan\"], \"sizes\": [\"small\"],"
                          " \"set\": {\"sim.max_time_ms\": [0.001, 50, 60]}}");
    Out o = sh("sweep " + f + " -j 1");
    EXPECT_EQ(o.code, 5) << o.text;
    EXPECT_NE(o.text.find("FAILED"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("--set sim.max_time_ms=0.001"), std::string::npos) << o.text;   // its command line
    EXPECT_NE(o.text.find("3 points: 3 run, 0 skipped, 1 failed"), std::string::npos) << o.text;
    auto rows = read_csv(d + "/out/sweep.csv");
    ASSERT_EQ(rows.size(), 4u);
    int ok = 0, bad = 0;
    for (size_t r = 1; r < rows.size(); ++r) {
        std::string ex = rows[r][col(rows[0], "exit")], st = rows[r][col(rows[0], "status")];
        if (ex == "0" && st == "ok") ++ok;
        if (ex == "3" && st == "timeout") ++bad;
    }
    EXPECT_EQ(ok, 2);
    EXPECT_EQ(bad, 1);
    // The next sweep reruns only the failed point.
    o = sh("sweep " + f + " -j 1");
    EXPECT_NE(o.text.find("3 points: 1 run, 2 skipped, 1 failed"), std::string::npos) << o.text;

    // A point that cannot start at all (bad extra argument) is a failed row, not a missing one.
    std::string f2 = write(d, "s2.json",
                           "{\"out\": \"" + d + "/out2\", \"configs\": [\"" + kSmallCfg + "\"], \"models\": [\"sbrp\"],"
                           " \"workloads\": [\"scan\"], \"sizes\": [\"small\"], \"args\": [\"--log-warp\", \"x\"]}");
    o = sh("sweep " + f2);
    EXPECT_EQ(o.code, 5) << o.text;
    rows = read_csv(d + "/out2/sweep.csv");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1][col(rows[0], "exit")], "1");
    EXPECT_EQ(rows[1][col(rows[0], "status")], "failed");
    EXPECT_EQ(rows[1][col(rows[0], "model")], "sbrp");
}

TEST(Sweep, DryRunAndSlurm)
{
    std::string d = tmpdir("slurm");
    std::string f = small_spec(d, ", \"exclude\": [{\"model\": \"epoch\", \"system.pm_placement\": \"near\"}]");
    Out o = sh("sweep " + f + " --dry-run");
    ASSERT_EQ(o.code, 0) << o.text;
    int lines = 0;
    std::istringstream in(o.text);
    std::string l;
    while (std::getline(in, l)) lines += l.find(" run --config ") != std::string::npos;
    EXPECT_EQ(lines, 3) << o.text;
    EXPECT_FALSE(fs::exists(d + "/out/runs"));

    o = sh("sweep " + f + " --emit-slurm");
    ASSERT_EQ(o.code, 0) << o.text;
    std::string script = slurp(d + "/out/sweep.slurm");
    EXPECT_NE(script.find("#SBATCH --array=0-2"), std::string::npos) << script;
    EXPECT_NE(script.find("SLURM_ARRAY_TASK_ID"), std::string::npos);
    EXPECT_EQ(read_csv(d + "/out/commands.txt").size(), 3u);
    // Running one command line by hand (as a Slurm task would) counts as done for the sweep.
    std::string first;
    std::getline(std::ifstream(d + "/out/commands.txt"), first);
    ASSERT_EQ(std::system((first + " >/dev/null 2>&1").c_str()), 0) << first;
    o = sh("sweep " + f);
    EXPECT_NE(o.text.find("3 points: 2 run, 1 skipped"), std::string::npos) << o.text;
}

// Issue 27 item 4: a spec's values never become shell lines. A line break in `out` or in a string
// `set` value is rejected, naming the key, before anything is written (it used to end a comment
// line of sweep.slurm and start a command there); shell metacharacters reach the run as they are.
TEST(Sweep, ValuesNeverBecomeShellLines)
{
    std::string d = tmpdir("inject");
    const std::string pwned = d + "/pwned";
    const std::string tail = ", \"configs\": [\"" + kSmallCfg + "\"], \"models\": [\"sbrp\"], \"workloads\": [\"scan\"], "
                             "\"sizes\": [\"small\"]";
    // a line break in `out`
    std::string f = write(d, "out.json", "{\"out\": \"" + d + "/o\\ntouch " + pwned + "\\n#\"" + tail + "}");
    for (const char *how : {"--emit-slurm", "--dry-run", ""}) {
        Out o = sh("sweep " + f + " " + how);
        EXPECT_EQ(o.code, 1) << how << ": " << o.text;
        EXPECT_NE(o.text.find(f + ": 'out'"), std::string::npos) << how << ": " << o.text;
        EXPECT_NE(o.text.find("line break"), std::string::npos) << how << ": " << o.text;
    }
    for (const auto &e : fs::directory_iterator(d))   // no sweep.slurm anywhere (a folder "o\ntouch ..." either)
        EXPECT_EQ(e.path().filename().string().find("sweep.slurm"), std::string::npos);
    EXPECT_FALSE(fs::exists(d + "/o\ntouch " + pwned + "\n#"));
    // a line break in a string `set` value, and in a value of a group
    f = write(d, "set.json", "{\"out\": \"" + d + "/o\"" + tail + ", \"set\": {\"system.name\": [\"x\\ntouch " + pwned + "\"]}}");
    Out o = sh("sweep " + f + " --dry-run");
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find("'set.system.name'"), std::string::npos) << o.text;
    f = write(d, "grp.json", "{\"out\": \"" + d + "/o\"" + tail + ", \"set\": {\"g\": [{\"system.name\": \"x\\r\"}]}}");
    o = sh("sweep " + f + " --dry-run");
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find("'set.g.system.name'"), std::string::npos) << o.text;
    // a line break in --out
    o = sh("sweep " + f + " --dry-run --out '" + d + "/a\nb'");
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_FALSE(fs::exists(pwned));

    // Shell metacharacters in a value and in `out`: one command line per point, and the Slurm task's
    // way of running it (eval of the line) passes the value to the run as it is.
    const std::string name = "a;touch " + pwned + " $(touch " + pwned + ") `touch " + pwned + "` 'q' \\\"d\\\" &|<>";
    const std::string out = d + "/o $(touch " + pwned + ")";
    f = write(d, "meta.json", "{\"out\": \"" + out + "\"" + tail + ", \"set\": {\"system.name\": [\"" + name + "\"]}}");
    o = sh("sweep " + f + " --dry-run");
    ASSERT_EQ(o.code, 0) << o.text;
    int lines = 0;
    std::istringstream in(o.text);
    for (std::string l; std::getline(in, l);) lines += l.find(" run ") != std::string::npos;
    EXPECT_EQ(lines, 1) << o.text;
    o = sh("sweep " + f + " --emit-slurm");
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_EQ(std::system(("bash -n '" + out + "/sweep.slurm'").c_str()), 0);
    std::string first;
    std::getline(std::ifstream(out + "/commands.txt"), first);
    write(d, "task.sh", "cmd=$(sed -n 1p \"$1\")\neval \"exec $cmd\"\n");
    ASSERT_EQ(std::system(("bash " + d + "/task.sh '" + out + "/commands.txt' >/dev/null 2>&1").c_str()), 0) << first;
    EXPECT_FALSE(fs::exists(pwned));
    bool found = false;
    for (const auto &e : fs::directory_iterator(out + "/runs")) {
        const std::string cfg = slurp(e.path().string() + "/config.json");
        EXPECT_NE(cfg.find("\"name\": \"a;touch " + pwned + " $(touch"), std::string::npos) << cfg;
        found = true;
    }
    EXPECT_TRUE(found);
}

// Issue 27 item 5: a value with a comma, a quote or a line break keeps the CSV's columns: persim run's
// CSV and sweep.csv quote every cell (RFC 4180), and the sweep reads the run's CSV back by the same rules.
TEST(Sweep, ValuesKeepTheCsvColumns)
{
    std::string d = tmpdir("csvq");
    Out o = sh("run --config " + kSmallCfg + " --model sbrp --workload scan --size small --quiet --set 'system.name=a,b \"q\"' --out " +
               d + "/r --csv " + d + "/runs.csv");
    ASSERT_EQ(o.code, 0) << o.text;
    auto rows = read_csv(d + "/runs.csv");
    ASSERT_EQ(rows.size(), 2u) << slurp(d + "/runs.csv");
    ASSERT_EQ(rows[1].size(), rows[0].size()) << slurp(d + "/runs.csv");
    EXPECT_EQ(rows[1][col(rows[0], "config")], "a,b \"q\"");
    EXPECT_EQ(rows[1][col(rows[0], "model")], "sbrp");
    EXPECT_EQ(rows[1][col(rows[0], "sets")], "system.name=a,b \"q\"");
    // a second run appends below the same header
    o = sh("run --config " + kSmallCfg + " --model epoch --workload scan --size small --quiet --out " + d + "/r2 --csv " + d + "/runs.csv");
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_EQ(read_csv(d + "/runs.csv").size(), 3u);

    std::string f = write(d, "s.json", "{\"out\": \"" + d + "/out\", \"configs\": [\"" + kSmallCfg + "\"], \"models\": [\"sbrp\"], "
                                       "\"workloads\": [\"scan\"], \"sizes\": [\"small\"], "
                                       "\"set\": {\"system.name\": [\"a,b\", \"c \\\"d\\\"\"]}}");
    o = sh("sweep " + f + " -j 1");
    ASSERT_EQ(o.code, 0) << o.text;
    rows = read_csv(d + "/out/sweep.csv");
    ASSERT_EQ(rows.size(), 3u) << slurp(d + "/out/sweep.csv");
    for (size_t r = 1; r < rows.size(); ++r) {
        ASSERT_EQ(rows[r].size(), rows[0].size()) << slurp(d + "/out/sweep.csv");
        EXPECT_EQ(rows[r][col(rows[0], "system.name")], rows[r][col(rows[0], "config")]);
        EXPECT_EQ(rows[r][col(rows[0], "status")], "ok");
    }
    EXPECT_EQ(rows[1][col(rows[0], "config")], "a,b");
    EXPECT_EQ(rows[2][col(rows[0], "config")], "c \"d\"");
}

// Issue 27 item 7: a spec's "command" runs its points (run, check or crash), else the spec is rejected.
TEST(Sweep, CommandMustRunThePoints)
{
    std::string d = tmpdir("command");
    for (const char *c : {"list", "trace", "sweep", "device", "config", "--help"}) {
        std::string f = write(d, "s.json", "{\"out\": \"" + d + "/o\", \"command\": \"" + c +
                                               "\", \"models\": [\"sbrp\"], \"workloads\": [\"scan\"]}");
        Out o = sh("sweep " + f + " --dry-run");
        EXPECT_EQ(o.code, 1) << c << ": " << o.text;
        EXPECT_NE(o.text.find(f + ": 'command': expected \"run\", \"check\" or \"crash\""), std::string::npos) << c << ": " << o.text;
    }
    EXPECT_FALSE(fs::exists(d + "/o"));
}

// Issue 27 item 8: every point is checked as `persim run` checks it before any point runs: ranges of
// sizes and seeds, the model on the configured system, the workload there; one message naming the
// spec and the point, exit 1, nothing run.
TEST(Sweep, EveryPointIsCheckedBeforeAnyRuns)
{
    std::string d = tmpdir("points");
    const std::string cpu = std::string(PERSIM_SOURCE_DIR) + "/configs/cpu_small.json";
    struct Case {
        std::string body, want;
    } cases[] = {
        // the second seed is out of range (sim.seed: at most 9.2e18)
        {"\"configs\": [\"" + cpu + "\"], \"models\": [\"lightwsp\"], \"workloads\": [\"cpu-hashtable\"], \"sizes\": [\"small\"], "
         "\"seeds\": [1, 18446744073709551615]",
         "sim.seed"},
        {"\"configs\": [\"" + kSmallCfg + "\"], \"models\": [\"sbrp\"], \"workloads\": [\"scan\"], \"sizes\": [64, 18446744073709551615]",
         "--size: expected small, default or a positive number"},
        {"\"configs\": [\"" + kSmallCfg + "\"], \"models\": [\"sbrp\"], \"workloads\": [\"scan\"], \"sizes\": [9223372036854775807]",
         "--size"},
        // a GPU model with a cpu configuration, among good points
        {"\"configs\": [\"" + cpu + "\"], \"models\": [\"lightwsp\", \"sbrp\"], \"workloads\": [\"cpu-hashtable\"], \"sizes\": [\"small\"]",
         "unknown model 'sbrp' for system.kind cpu"},
        // a GPU workload with a cpu configuration
        {"\"configs\": [\"" + cpu + "\"], \"models\": [\"lightwsp\"], \"workloads\": [\"scan\"], \"sizes\": [\"small\"]",
         "unknown workload 'scan' for system.kind cpu"},
    };
    for (const auto &c : cases) {
        std::string f = write(d, "s.json", "{\"out\": \"" + d + "/o\", " + c.body + "}");
        for (const char *how : {"--dry-run", "--emit-slurm", "-j 1"}) {
            Out o = sh("sweep " + f + " " + how);
            EXPECT_EQ(o.code, 1) << c.body << " " << how << ": " << o.text;
            EXPECT_NE(o.text.find(f + ": point "), std::string::npos) << c.body << ": " << o.text;
            EXPECT_NE(o.text.find(c.want), std::string::npos) << c.body << ": " << o.text;
            EXPECT_EQ(o.text.find(" run "), std::string::npos) << "a command line was printed: " << o.text;
        }
        EXPECT_FALSE(fs::exists(d + "/o")) << c.body;
    }
}
