// The Optane-class device from the command line: `persim device` (the published microbenchmarks,
// cli/device.cpp) and `nvm.device = pm_dimm` in runs of both systems (docs/models/nvm-device.md).
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <nlohmann/json.hpp>

#include "cli_util.h"

using namespace cli_util;
using json = nlohmann::json;

namespace {

const std::string kSrc = PERSIM_SOURCE_DIR;
const std::string kOptane = " --config " + kSrc + "/configs/nvm_optane_dcpmm.json";
bool has(const Out &o, const std::string &s) { return o.text.find(s) != std::string::npos; }

json stats(const std::string &dir) { return json::parse(std::ifstream(dir + "/stats.json")); }
double fig(const json &s, const std::string &group, const std::string &key) { return s[group][key]["value"].get<double>(); }

} // namespace

TEST(CliDevice, MeasuresOnlyThePmDimmDevice)
{
    Out o = sh("device --config " + kSrc + "/configs/cpu_small.json --out " + tmpdir("bank"));
    EXPECT_EQ(o.code, 1);
    EXPECT_TRUE(has(o, "nvm.device is 'bank'")) << o.text;
}

TEST(CliDevice, BadInputNamesTheOptionOrKey)
{
    Out o = sh("device" + kOptane + " --mlp 0 --out " + tmpdir("mlp"));
    EXPECT_EQ(o.code, 1);
    EXPECT_TRUE(has(o, "--mlp")) << o.text;
    o = sh("device" + kOptane + " --set nvm.xpbuffer_entries=-3 --out " + tmpdir("key"));
    EXPECT_EQ(o.code, 1);
    EXPECT_TRUE(has(o, "nvm.xpbuffer_entries")) << o.text;
    o = sh("device" + kOptane + " --set nvm.media_line_bytes=96 --out " + tmpdir("line"));
    EXPECT_EQ(o.code, 1);
    EXPECT_TRUE(has(o, "pm_dimm")) << o.text;
    o = sh("device --frobnicate");
    EXPECT_EQ(o.code, 1);
    EXPECT_TRUE(has(o, "--frobnicate")) << o.text;
}

TEST(CliDevice, WritesEveryBenchmark)
{
    const std::string d = tmpdir("csv");
    Out o = sh("device" + kOptane + " --samples 2000 --out " + d);
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_TRUE(has(o, "6 DIMMs")) << o.text;
    for (const char *f : {"latency", "chase", "bandwidth", "amplification", "tail"}) {
        std::ifstream in(d + "/" + f + ".csv");
        ASSERT_TRUE(in.good()) << f;
        int lines = 0;
        for (std::string l; std::getline(in, l);) ++lines;
        EXPECT_GT(lines, 2) << f;
    }
}

// A cpu run with the device: LightWSP's 8 B region-tagged stores of one line combine in the
// DIMM's buffer; the device's figures are reported, the bank device's row figures are not.
TEST(CliDevice, CpuRunWithTheDevice)
{
    const std::string d = tmpdir("cpu");
    const std::string run = "run --config " + kSrc + "/configs/cpu_small.json" + kOptane +
                            " --set nvm.dimms=2 --model lightwsp --workload cpu-arrayswap --size small --quiet --out ";
    Out o = sh(run + d + "/a");
    ASSERT_EQ(o.code, 0) << o.text;
    const json s = stats(d + "/a");
    ASSERT_TRUE(s["top.nvm0"].contains("write_amplification"));
    EXPECT_FALSE(s["top.nvm0"].contains("row_hits"));
    EXPECT_GT(fig(s, "top.nvm0", "dimm_buf_write_hits"), 0);
    EXPECT_GT(fig(s, "top.nvm0", "writes"), fig(s, "top.nvm0", "media_writes"));
    // Deterministic: the same run gives the same figures.
    o = sh(run + d + "/b");
    ASSERT_EQ(o.code, 0) << o.text;
    const json t = stats(d + "/b");
    EXPECT_EQ(s["top.nvm0"], t["top.nvm0"]);
    EXPECT_EQ(s["summary"]["sim_ns"], t["summary"]["sim_ns"]);
    // The bank device reports its rows and no device figures.
    o = sh("run --config " + kSrc + "/configs/cpu_small.json --model lightwsp --workload cpu-arrayswap --size small --quiet --out " + d + "/c");
    ASSERT_EQ(o.code, 0) << o.text;
    const json u = stats(d + "/c");
    EXPECT_TRUE(u["top.nvm0"].contains("row_hits"));
    EXPECT_FALSE(u["top.nvm0"].contains("write_amplification"));
}

// A GPU run (PM-far and PM-near) with the device: runs, verifies, reports media energy.
TEST(CliDevice, GpuRunWithTheDevice)
{
    const std::string d = tmpdir("gpu");
    for (const char *place : {"far", "near"}) {
        Out o = sh("run --config " + kSrc + "/configs/gpu_small.json" + kOptane + " --set nvm.dimms=2 --set system.pm_placement=" +
                   place + " --model sbrp --workload reduction --size small --quiet --out " + d + "/" + place);
        ASSERT_EQ(o.code, 0) << o.text;
        const json s = stats(d + "/" + place);
        EXPECT_GT(fig(s, "top.nvm0", "media_energy_uj") + fig(s, "top.nvm0", "dimm_buf_write_hits"), 0) << place;
    }
}
