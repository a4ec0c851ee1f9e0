// persim run --vcd (issue 26 item 3): a picosecond time unit, nothing on stdout with --quiet, and
// signals on both systems (GPU: persist-buffer occupancy / ACTR; cpu: wpq_gate occupancy and flush region per
// controller, each core's front-end buffer occupancy and region, BROI persist-buffer occupancy and epoch).
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
    // each core's persist path: front-end buffer occupancy and its open region ID
    EXPECT_NE(cv.find("fe_buffer_occupancy"), std::string::npos);
    EXPECT_NE(cv.find(" region "), std::string::npos);
    // BROI: each thread's persist buffer occupancy and barrier epoch, which moves during the run
    Out b = sh("run --config " + kSrc + "/configs/cpu_broi_table3.json --model broi --workload broi-rbtree --size small "
               "--quiet --vcd " + d + "/b.vcd --out " + d + "/b");
    EXPECT_EQ(b.code, 0) << b.text;
    const std::string bv = slurp(d + "/b.vcd");
    const size_t v = bv.find("persist_buffer_occupancy");
    ASSERT_NE(v, std::string::npos);
    ASSERT_NE(bv.find(" epoch "), std::string::npos);
    // the epoch signal's identifier (the token before " epoch ") takes a value other than 0
    const size_t e = bv.find(" epoch ");
    const size_t id0 = bv.rfind(' ', e - 1) + 1;
    const std::string id = bv.substr(id0, e - id0);
    bool moved = false;
    for (size_t p = bv.find("$enddefinitions"); p != std::string::npos && !moved; p = bv.find('\n', p + 1)) {
        const size_t q = bv.find('\n', p + 1);
        const std::string line = bv.substr(p + 1, q == std::string::npos ? std::string::npos : q - p - 1);
        if (line.size() > id.size() + 2 && line[0] == 'b' && line.compare(line.size() - id.size(), id.size(), id) == 0 &&
            line.find('1') < line.size() - id.size() - 1)
            moved = true;
    }
    EXPECT_TRUE(moved) << "the BROI epoch never left 0 in the waveform";
}
