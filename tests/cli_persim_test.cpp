// Drives the built `persim` binary: bad input gives one clear message and a non-zero exit,
// deadlocks are reported, runs are deterministic, traces round-trip.
#include <gtest/gtest.h>
#include <algorithm>
#include <regex>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

#include "cli_util.h"

using namespace cli_util;

namespace {


const std::string kSmall = std::string("--config ") + PERSIM_SOURCE_DIR + "/configs/gpu_small.json";

} // namespace

TEST(Cli, HelpAndList)
{
    Out h = sh("--help");
    EXPECT_EQ(h.code, 0);
    EXPECT_NE(h.text.find("persim run"), std::string::npos);
    Out l = sh("list");
    EXPECT_EQ(l.code, 0);
    for (const char *s : {"epoch", "gpm", "sbrp", "gpkvs", "reduction", "nvm.write_bw_gbps", "GB/s"})
        EXPECT_NE(l.text.find(s), std::string::npos) << s;
}

TEST(Cli, UnknownCommandAndOption)
{
    EXPECT_EQ(sh("frobnicate").code, 1);
    Out o = sh("run --bogus 1");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("--bogus"), std::string::npos);
}

TEST(Cli, UnknownConfigKeyNamesFileAndKey)
{
    std::string d = tmpdir("badkey");
    std::string f = write(d, "bad.json", "{ \"nvm\": { \"write_bw_gbs\": 42 } }");
    Out o = sh("run --config " + f + " --model sbrp --workload scan --out " + d + "/o");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find(f), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("nvm.write_bw_gbs"), std::string::npos) << o.text;
    EXPECT_FALSE(fs::exists(d + "/o/stats.json"));
}

TEST(Cli, InvalidJsonNamesLine)
{
    std::string d = tmpdir("badjson");
    std::string f = write(d, "bad.json", "{\n  \"gpu\": {\n    \"num_sms\": ,\n  }\n}\n");
    Out o = sh("run --config " + f + " --model sbrp --workload scan");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find(f + ":3"), std::string::npos) << o.text;
}

TEST(Cli, MissingConfigFile)
{
    Out o = sh("run --config /nonexistent/x.json --model sbrp --workload scan");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("/nonexistent/x.json"), std::string::npos);
}

TEST(Cli, BadValues)
{
    Out a = sh("run --model sbrp --workload scan --set gpu.num_sms=abc");
    EXPECT_EQ(a.code, 1);
    EXPECT_NE(a.text.find("gpu.num_sms"), std::string::npos) << a.text;
    Out b = sh("run --model sbrp --workload scan --set persist.flush_policy=sometimes");
    EXPECT_EQ(b.code, 1);
    EXPECT_NE(b.text.find("eager|lazy|window"), std::string::npos) << b.text;
    Out c = sh("run --model sbrp --workload scan --set nvm.write_bw_gbps=-1");
    EXPECT_EQ(c.code, 1);
    EXPECT_NE(c.text.find("out of range"), std::string::npos) << c.text;
    Out d = sh("run --model sbrp --workload scan --set novalue");
    EXPECT_EQ(d.code, 1);
}

TEST(Cli, UnknownModelAndWorkload)
{
    Out a = sh("run --model strict --workload scan");
    EXPECT_EQ(a.code, 1);
    EXPECT_NE(a.text.find("unknown model 'strict'"), std::string::npos);
    Out b = sh("run --model sbrp --workload nosuch");
    EXPECT_EQ(b.code, 1);
    EXPECT_NE(b.text.find("unknown workload 'nosuch'"), std::string::npos);
}

TEST(Cli, MalformedTraceNamesFileAndLine)
{
    std::string d = tmpdir("badtrace");
    std::string f = write(d, "t.trace",
                          "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\nst 0x10000000000 4 = 1\nfly away\n");
    Out o = sh("run " + kSmall + " --model sbrp --trace " + f);
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find(f + ":5"), std::string::npos) << o.text;
}

TEST(Cli, DeadlockIsReportedWithStuckWarps)
{
    std::string d = tmpdir("deadlock");
    // Warp 0 of block 0 waits for a flag nobody releases.
    std::string f = write(d, "t.trace",
                          "persim-trace 1\nkernel k blocks=1 threads=64\nwarp 0 0\n"
                          "acquire 0x10000001000 4 1 block\nwarp 0 1\nst 0x10000000000 4 = 7\n");
    for (const char *m : {"sbrp", "epoch"}) {
        Out o = sh("run " + kSmall + " --model " + m + " --trace " + f + " --out " + d + "/o-" + m + " --quiet");
        EXPECT_EQ(o.code, 3) << o.text;
        EXPECT_NE(o.text.find("deadlock"), std::string::npos) << o.text;
        EXPECT_NE(o.text.find("block 0, warp 0"), std::string::npos) << o.text;
        EXPECT_NE(o.text.find("0x10000001000"), std::string::npos) << o.text;
    }
}

TEST(Cli, SameSeedSameStats)
{
    std::string d = tmpdir("determinism");
    auto run = [&](const std::string &out, const std::string &seed) {
        Out o = sh("run " + kSmall + " --model sbrp --workload mq --seed " + seed + " --out " + out + " --quiet");
        EXPECT_EQ(o.code, 0) << o.text;
        json j = json::parse(std::ifstream(out + "/stats.json"));
        j["summary"].erase("host_seconds");
        j["summary"].erase("sim_speed");
        return j;
    };
    json a = run(d + "/a", "7"), b = run(d + "/b", "7"), c = run(d + "/c", "8");
    EXPECT_EQ(a.dump(), b.dump());
    EXPECT_NE(a["summary"].dump(), c["summary"].dump());
    EXPECT_GT(a["summary"]["sim_ns"]["value"].get<double>(), 0);
    // config.json is the fully resolved config.
    json cfg = json::parse(std::ifstream(d + "/a/config.json"));
    EXPECT_EQ(cfg["gpu"]["num_sms"], 4);
    EXPECT_EQ(cfg["nvm"]["write_bw_gbps"], 42.0);
    EXPECT_EQ(cfg["sim"]["seed"], 7);
    // One CSV row per run, with a header, in the run's own folder (nothing written outside --out).
    EXPECT_FALSE(std::filesystem::exists(d + "/runs.csv"));
    std::ifstream csv(d + "/a/run.csv");
    std::string line;
    int rows = 0;
    while (std::getline(csv, line)) ++rows;
    EXPECT_EQ(rows, 2);
}

TEST(Cli, TraceRoundTrip)
{
    std::string d = tmpdir("trace");
    Out t = sh("trace " + kSmall + " --workload reduction --size 4096 --out " + d + "/r.trace");
    ASSERT_EQ(t.code, 0) << t.text;
    Out r = sh("run " + kSmall + " --model sbrp --trace " + d + "/r.trace --out " + d + "/o --quiet");
    EXPECT_EQ(r.code, 0) << r.text;
    json j = json::parse(std::ifstream(d + "/o/stats.json"));
    EXPECT_TRUE(j["run"]["verified"].get<bool>());
    // Corrupting an expected value makes the functional check fail.
    std::ifstream in(d + "/r.trace");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    auto pos = text.rfind("\nexpect ");
    ASSERT_NE(pos, std::string::npos);
    auto eol = text.find('\n', pos + 1);
    char &last = text[eol - 1];
    last = last == '0' ? '1' : '0';
    std::ofstream(d + "/bad.trace") << text;
    Out b = sh("run " + kSmall + " --model sbrp --trace " + d + "/bad.trace --out " + d + "/o2 --quiet");
    EXPECT_EQ(b.code, 4) << b.text;
}

// workload.scale multiplies the workload's default (or small) size; workload.size overrides it.
// A compressed trace (--out x.zst) runs like its text twin, is named like it, and verifies.
TEST(Cli, WorkloadScaleAndCompressedTrace)
{
    std::string d = tmpdir("scale");
    auto size_of = [&](const std::string &args, const std::string &out) -> uint64_t {
        Out o = sh("run " + kSmall + " --model sbrp --workload reduction " + args + " --out " + d + "/" + out + " --quiet");
        EXPECT_EQ(o.code, 0) << o.text;
        return json::parse(std::ifstream(d + "/" + out + "/stats.json"))["run"]["size"].get<uint64_t>();
    };
    const uint64_t small = size_of("--size small", "s1");
    EXPECT_EQ(size_of("--size small --set workload.scale=3", "s3"), 3 * small);
    EXPECT_EQ(size_of("--size 4096 --set workload.scale=3", "n"), 4096u);
    Out bad = sh("run " + kSmall + " --model sbrp --workload reduction --set workload.scale=0 --quiet --out " + d + "/b");
    EXPECT_NE(bad.code, 0);
    EXPECT_NE(bad.text.find("workload.scale"), std::string::npos) << bad.text;

    Out t = sh("trace " + kSmall + " --workload reduction --size 4096 --out " + d + "/r.trace.zst");
    ASSERT_EQ(t.code, 0) << t.text;
    std::ifstream z(d + "/r.trace.zst", std::ios::binary);
    unsigned char magic[4] = {};
    z.read((char *)magic, 4);
    EXPECT_EQ(magic[0], 0x28);
    EXPECT_EQ(magic[3], 0xFD);
    Out r = sh("run " + kSmall + " --model sbrp --trace " + d + "/r.trace.zst --csv " + d + "/runs.csv --quiet --out " + d + "/oz");
    ASSERT_EQ(r.code, 0) << r.text;
    EXPECT_TRUE(json::parse(std::ifstream(d + "/oz/stats.json"))["run"]["verified"].get<bool>());
}

TEST(Cli, ConfigDocMatchesSchema)
{
    // docs/config.md is generated from the schema; this keeps it true.
    Out o = sh("list keys --markdown");
    ASSERT_EQ(o.code, 0);
    std::ifstream in(std::string(PERSIM_SOURCE_DIR) + "/docs/config.md");
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str(), o.text) << "regenerate with: build/persim list keys --markdown > docs/config.md";
}

// Every shipped system config (configs/*.json) loads, and every shipped sweep spec
// (configs/experiments/*/*.json) parses with its configs. configs/rtl_presets.json is not a system
// config: it holds the RTL parameter presets read by tb/ and synth/ (checked by their tests).
TEST(Cli, ShippedConfigsLoad)
{
    const fs::path dir = fs::path(PERSIM_SOURCE_DIR) / "configs";
    std::vector<std::string> tried;
    for (const auto &e : fs::directory_iterator(dir)) {
        const std::string c = e.path().filename().string();
        if (!e.is_regular_file() || e.path().extension() != ".json" || c == "rtl_presets.json") continue;
        tried.push_back(c);
        Out o = sh("run --config " + e.path().string() + " --model nosuchmodel --workload scan");
        // The config parses; the run then fails on the model name, not on the config.
        EXPECT_EQ(o.code, 1) << c << ": " << o.text;
        EXPECT_NE(o.text.find("unknown model"), std::string::npos) << c << ": " << o.text;
        EXPECT_EQ(o.text.find(c), std::string::npos) << c << ": the config is named in the error: " << o.text;
    }
    // The configs the README and the sweep specs name are among them.
    for (const char *c : {"gpu_sbrp_table1.json", "gpu_scoped_barriers_table2.json", "gpu_small.json"})
        EXPECT_NE(std::find(tried.begin(), tried.end(), c), tried.end()) << c << " not tried";

    // Sweep specs name their configs relative to the repository root: run from there, with a
    // scratch --out so that no point counts as done and every one is listed.
    const std::string scratch = tmpdir("shipped_specs");
    size_t specs = 0;
    for (const auto &e : fs::recursive_directory_iterator(dir / "experiments")) {
        if (!e.is_regular_file() || e.path().extension() != ".json") continue;
        ++specs;
        std::string cmd = "cd '" + std::string(PERSIM_SOURCE_DIR) + "' && '" + PERSIM_BIN + "' sweep '" +
                          e.path().string() + "' --dry-run --out '" + scratch + "/" + std::to_string(specs) + "' 2>&1";
        FILE *p = popen(cmd.c_str(), "r");
        ASSERT_NE(p, nullptr);
        std::string text;
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
        int st = pclose(p);
        EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << e.path() << ": " << text;
        // "persim sweep: N points, N to run, 0 done already" with N >= 1 (every point listed)
        std::smatch m;
        ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(persim sweep: (\d+) points, (\d+) to run)"))) << e.path() << ": " << text;
        EXPECT_GE(std::stoul(m[1]), 1ul) << e.path() << ": no point: " << text;
        EXPECT_EQ(m[1], m[2]) << e.path() << ": " << text;
    }
    EXPECT_GE(specs, 1u) << "no sweep spec found under configs/experiments";
}

// The typed config tables name each key's Verilog parameter (sc_models/config_table.h): a paper's
// configuration gives the parameters of the RTL preset that configs/rtl_presets.json says
// reproduces that paper's table, and a key set on the command line moves its parameter.
TEST(ConfigTables, PaperConfigsGiveTheirRtlPresets)
{
    std::ifstream f(std::string(PERSIM_SOURCE_DIR) + "/configs/rtl_presets.json");
    const json presets = json::parse(f).at("presets");
    // known = the one parameter where they differ today, and why: it must differ (when the preset
    // or the config is mended, this test says so and the exception goes).
    const struct {
        const char *config, *block, *preset, *known;
    } pairs[] = {
        {"cpu_broi_table3.json", "broi_sched", "broi_table2", ""},
        // The region window is persim's in both (the paper gives none): the simulated LightWSP
        // tracks 64 regions per controller, the synthesized preset 8 (results/area notes it).
        {"cpu_lightwsp_table1.json", "wpq_gate", "lightwsp_table1", "REGIONS"},
    };
    for (const auto &p : pairs) {
        Out o = sh(std::string("list rtl --config ") + PERSIM_SOURCE_DIR + "/configs/" + p.config);
        ASSERT_EQ(o.code, 0) << o.text;
        const json got = json::parse(o.text).at(p.block);
        const json &want = presets.at(p.preset).at("params");
        EXPECT_GE(got.size(), 3u) << p.block;
        for (auto it = got.begin(); it != got.end(); ++it) {
            if (it.key() == p.known)
                EXPECT_NE(it.value(), want.at(it.key())) << p.config << ": " << it.key() << " now equals preset " << p.preset;
            else
                EXPECT_EQ(it.value(), want.at(it.key())) << p.config << ": " << it.key() << " vs preset " << p.preset;
        }
    }
    Out o = sh(std::string("list rtl --config ") + PERSIM_SOURCE_DIR + "/configs/cpu_broi_table3.json --set broi.units=4");
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_EQ(json::parse(o.text).at("broi_sched").at("UNITS"), 4);
}
