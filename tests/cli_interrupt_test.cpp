// Ctrl-C and SIGTERM: a run stops at its next safe point with its stats so far (status
// interrupted, exit 130, one line naming where they are); a sweep stops starting points, lets the
// running ones stop, and writes sweep.csv with the finished points (docs/sweeps.md).
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
// A cpu run of many seconds (the signal always arrives while it simulates or loads).
const std::string kLong = "--config " + kSrc + "/configs/cpu_small.json --model lightwsp --workload cpu-hashtable --size 400000";

// Runs `persim ARGS` in the background, sends SIG after `after` seconds, and returns its exit status
// and output.
Out signalled(const std::string &args, const char *sig, int after)
{
    return sh_cmd("(" + std::string(PERSIM_BIN) + " " + args + " & p=$!; sleep " + std::to_string(after) + "; kill -" + sig +
                  " $p; wait $p; echo \"rc=$?\") 2>&1");
}

} // namespace

TEST(CliInterrupt, RunKeepsItsStatsSoFar)
{
    for (const char *sig : {"INT", "TERM"}) {
        const std::string d = tmpdir(std::string("run") + sig);
        Out o = signalled("run " + kLong + " --quiet --out " + d + "/r", sig, 2);
        EXPECT_TRUE(o.text.find("rc=130") != std::string::npos) << o.text;
        EXPECT_TRUE(o.text.find(std::string("interrupted by SIG") + sig) != std::string::npos) << o.text;
        EXPECT_TRUE(o.text.find(d + "/r/stats.json") != std::string::npos) << o.text;
        const json s = json::parse(std::ifstream(d + "/r/stats.json"));
        EXPECT_EQ(s["run"]["status"], "interrupted");
        EXPECT_FALSE(s["run"]["verified"].get<bool>());
        EXPECT_TRUE(std::filesystem::exists(d + "/r/config.json"));
    }
}

TEST(CliInterrupt, SweepWritesTheFinishedPoints)
{
    const std::string d = tmpdir("sweep");
    // Point 1 is quick, point 2 runs for many seconds: the interrupt comes during point 2.
    const std::string spec = write(d, "s.json",
                                   "{\"name\": \"i\", \"out\": \"" + d + "/o\", \"configs\": [\"" + kSrc +
                                       "/configs/cpu_small.json\"], \"models\": [\"lightwsp\"], \"workloads\": [\"cpu-hashtable\"], "
                                       "\"sizes\": [200, 400000], \"seeds\": [1]}");
    Out o = signalled("sweep " + spec + " -j 1", "INT", 4);
    EXPECT_TRUE(o.text.find("rc=130") != std::string::npos) << o.text;
    EXPECT_TRUE(o.text.find("interrupted by SIGINT: 1 points finished") != std::string::npos) << o.text;
    std::ifstream in(d + "/o/sweep.csv");
    ASSERT_TRUE(in.good()) << o.text;
    std::string header, row, extra;
    std::getline(in, header);
    std::getline(in, row);
    EXPECT_TRUE(row.find(",ok,") != std::string::npos || row.find("ok") != std::string::npos) << row;
    EXPECT_FALSE(std::getline(in, extra) && !extra.empty()) << "the interrupted point must not be in sweep.csv: " << extra;
    // Resuming runs only the interrupted point (the finished one is skipped).
    Out dry = sh("sweep " + spec + " --dry-run");
    EXPECT_TRUE(dry.text.find("2 points, 1 to run, 1 done already") != std::string::npos) << dry.text;
}
