// Configs that tools read (issue 26 item 6, part): a run's resolved config.json loads back with
// --config and gives the same run; persim config diff lists what differs from the defaults;
// persim config schema is a JSON Schema covering every key.
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <nlohmann/json.hpp>

#include "cli_util.h"

using namespace cli_util;
using json = nlohmann::json;

namespace {
const std::string kSrc = PERSIM_SOURCE_DIR;
json load(const std::string &p) { return json::parse(std::ifstream(p)); }
} // namespace

TEST(CliConfig, ResolvedConfigRoundTrips)
{
    const std::string d = tmpdir("rt");
    Out a = sh("run --config " + kSrc + "/configs/gpu_small.json --set persist.window=3 --model sbrp --workload scan --size small "
               "--quiet --out " + d + "/a");
    ASSERT_EQ(a.code, 0) << a.text;
    Out b = sh("run --config " + d + "/a/config.json --model sbrp --workload scan --size small --quiet --out " + d + "/b");
    ASSERT_EQ(b.code, 0) << b.text;
    json ca = load(d + "/a/config.json"), cb = load(d + "/b/config.json");
    EXPECT_EQ(ca["persist"]["window"], 3);
    ca.erase("_run");
    cb.erase("_run");
    EXPECT_EQ(ca, cb);
    EXPECT_EQ(load(d + "/a/stats.json")["summary"]["sim_ns"], load(d + "/b/stats.json")["summary"]["sim_ns"]);
}

TEST(CliConfig, DiffListsWhatDiffersFromTheDefaults)
{
    Out o = sh("config diff --config " + kSrc + "/configs/gpu_small.json --set persist.window=3");
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_NE(o.text.find("persist.window"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("(default 6)"), std::string::npos) << o.text;
    EXPECT_EQ(o.text.find("nvm.device"), std::string::npos) << "a default key listed: " << o.text;
    Out none = sh("config diff");
    EXPECT_NE(none.text.find("0 of"), std::string::npos) << none.text;
    Out bad = sh("config dif");
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.text.find("did you mean 'diff'"), std::string::npos) << bad.text;
}

TEST(CliConfig, SchemaCoversEveryKey)
{
    Out o = sh_cmd(std::string(PERSIM_BIN) + " config schema 2>/dev/null");
    ASSERT_EQ(o.code, 0);
    const json s = json::parse(o.text);
    Out keys = sh("list keys");
    size_t n = 0;
    for (const auto &sect : s["properties"].items())
        for (const auto &k : sect.value()["properties"].items()) n += k.value().contains("type") && k.value()["type"] != "object";
    EXPECT_GT(n, 100u);
    EXPECT_EQ(s["properties"]["nvm"]["properties"]["device"]["enum"], json({"bank", "pm_dimm"}));
    EXPECT_EQ(s["properties"]["persist"]["properties"]["window"]["minimum"], 1);
}

// docs/config.schema.json (for editors: point a JSON language server at it) is the command's output.
TEST(CliConfig, ShippedSchemaIsCurrent)
{
    Out o = sh_cmd(std::string(PERSIM_BIN) + " config schema 2>/dev/null");
    std::ifstream in(kSrc + "/docs/config.schema.json");
    std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(file, o.text) << "regenerate with: build/persim config schema > docs/config.schema.json";
}

// A result is never overwritten without --force (issue 26 item 4), and the check comes before the
// simulation (the refusal is immediate).
TEST(CliConfig, ResultsAreKeptWithoutForce)
{
    const std::string d = tmpdir("keep");
    const std::string run = "run --config " + kSrc + "/configs/gpu_small.json --model sbrp --workload scan --size small --quiet --out " + d + "/r";
    ASSERT_EQ(sh(run).code, 0);
    Out again = sh(run);
    EXPECT_EQ(again.code, 1);
    EXPECT_NE(again.text.find("already holds a result"), std::string::npos) << again.text;
    EXPECT_NE(again.text.find("--force"), std::string::npos) << again.text;
    EXPECT_EQ(sh(run + " --force").code, 0);
}

// Result files (issue 27 item 6 and "writes outside --out"): a stats.json that cannot be written is
// an error, not a silent exit 0; nothing is written outside --out, with or without a trailing
// slash; a symlink planted in the output folder is replaced, its target untouched.
TEST(CliOutputs, FailedWriteIsAnErrorAndNothingLeavesTheFolder)
{
    namespace fs = std::filesystem;
    const std::string d = tmpdir("outputs");
    const std::string base = "run --config " + kSrc + "/configs/gpu_small.json --model sbrp --workload scan --size small --quiet";
    fs::create_directories(d + "/bad/stats.json");      // a directory where stats.json goes
    Out r = sh(base + " --force --out " + d + "/bad");
    EXPECT_NE(r.code, 0) << r.text;
    EXPECT_NE(r.text.find("stats.json"), std::string::npos) << r.text;

    ASSERT_EQ(sh(base + " --out " + d + "/o1").code, 0);
    ASSERT_EQ(sh(base + " --out " + d + "/o2/").code, 0);
    EXPECT_TRUE(fs::exists(d + "/o1/run.csv"));
    EXPECT_TRUE(fs::exists(d + "/o2/run.csv"));
    for (const auto &e : fs::directory_iterator(d))
        EXPECT_TRUE(e.is_directory()) << e.path() << " was written outside --out";

    {
        std::ofstream(d + "/victim.txt") << "keep me\n";
    }
    fs::create_directories(d + "/o3");
    fs::create_symlink(d + "/victim.txt", d + "/o3/stats.json");
    ASSERT_EQ(sh(base + " --force --out " + d + "/o3").code, 0);
    EXPECT_FALSE(fs::is_symlink(fs::symlink_status(d + "/o3/stats.json")));
    std::ifstream v(d + "/victim.txt");
    std::string line;
    std::getline(v, line);
    EXPECT_EQ(line, "keep me");
}
