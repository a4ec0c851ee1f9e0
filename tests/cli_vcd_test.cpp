// persim run --vcd (issue 26 item 3): a picosecond time unit, nothing on stdout with --quiet, and
// signals on both systems (GPU: persist-buffer occupancy / ACTR; cpu: wpq_gate occupancy and flush region).
#include <gtest/gtest.h>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_util.h"

using namespace cli_util;

namespace {
const std::string kSrc = PERSIM_SOURCE_DIR;
std::string slurp(const std::string &p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
} // namespace

TEST(CliVcd, BothSystemsTraceSignalsInPicoseconds)
{
    const std::string d = tmpdir("vcd");
    Out g = sh_cmd(std::string(PERSIM_BIN) + " run --config " + kSrc + "/configs/gpu_small.json --model sbrp --workload scan "
                   "--size small --quiet --vcd " + d + "/g.vcd --out " + d + "/g 2>/dev/null");
    EXPECT_EQ(g.code, 0);
    EXPECT_EQ(g.text, "") << "stdout must stay empty with --quiet";
    const std::string gv = slurp(d + "/g.vcd");
    EXPECT_NE(gv.find("1 ps"), std::string::npos);
    EXPECT_NE(gv.find("$var"), std::string::npos);
    Out c = sh("run --config " + kSrc + "/configs/cpu_small.json --model lightwsp --workload cpu-hashtable --size small --quiet "
               "--vcd " + d + "/c.vcd --out " + d + "/c");
    EXPECT_EQ(c.code, 0) << c.text;
    const std::string cv = slurp(d + "/c.vcd");
    EXPECT_NE(cv.find("wpq_occupancy"), std::string::npos);
    EXPECT_NE(cv.find("flush_region"), std::string::npos);
    EXPECT_NE(cv.find("\n#"), std::string::npos) << "no value changes";
}
