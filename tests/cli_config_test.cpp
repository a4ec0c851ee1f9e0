// Configs that tools read (issue 26 item 6, part): a run's resolved config.json loads back with
// --config and gives the same run; persim config diff lists what differs from the defaults;
// persim config schema is a JSON Schema covering every key.
#include <gtest/gtest.h>
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
