// persim run / check on Accel-Sim GPU traces (docs/trace-format-accelsim.md): every GPU model runs
// the hand-written two-kernel trace (tests/data/accelsim/two/), its PM stores reach the persist
// path, the persist-order check passes, and the MEMBARs add ordering; malformed traces exit 1.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_util.h"

namespace {
using namespace cli_util;

const std::string kSmall = std::string("--config ") + PERSIM_SOURCE_DIR + "/configs/gpu_small.json";
const std::string kData = std::string(PERSIM_SOURCE_DIR) + "/tests/data/accelsim/";
// The hand-written traces keep their PM data in the first MiB at 0x7f0000000000.
const std::string kPm = " --set accelsim.pm_base=0x7f0000000000 --set accelsim.pm_bytes=1048576";

bool has(const Out &o, const std::string &s) { return o.text.find(s) != std::string::npos; }

double summary(const nlohmann::json &j, const char *k) { return j["summary"][k]["value"].get<double>(); }

// Sum of the SMs' ordering primitives (top.gpu.smNN/prim_*): what the models lowered intent to.
double prims(const nlohmann::json &j)
{
    double n = 0;
    for (auto g = j.begin(); g != j.end(); ++g) {
        if (g.key().rfind("top.gpu.sm", 0) != 0 || !g->is_object()) continue;
        for (auto s = g->begin(); s != g->end(); ++s)
            if (s.key().rfind("prim_", 0) == 0) n += (*s)["value"].get<double>();
    }
    return n;
}

// A copy of the two-kernel trace with every MEMBAR replaced by a plain instruction.
std::string without_fences(const std::string &dir)
{
    namespace fs = std::filesystem;
    fs::create_directories(dir);
    for (const char *f : {"kernelslist.g", "kernel-2.traceg.xz"})
        fs::copy_file(kData + "two/" + f, dir + "/" + f, fs::copy_options::overwrite_existing);
    std::ifstream in(kData + "two/kernel-1.traceg");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string t = ss.str();
    for (size_t p; (p = t.find("MEMBAR.SC.CTA")) != std::string::npos;) t.replace(p, 13, "NOP");
    std::ofstream(dir + "/kernel-1.traceg") << t;
    return dir + "/kernelslist.g";
}

TEST(CliAccelsim, EveryGpuModelRunsAndChecksTheTrace)
{
    std::string d = tmpdir("models");
    const std::string nofence = without_fences(d + "/nofence");
    for (const char *m : {"sbrp", "epoch", "gpm", "nvwfifo", "agpm", "bucl", "themis", "static-t", "static-nt", "pmem-spec"}) {
        const std::string out = d + "/" + m;
        Out o = sh("run " + kSmall + kPm + " --model " + m + " --trace " + kData + "two/kernelslist.g --check --out " + out);
        if (o.code == 1 && has(o, "unknown model")) continue;   // a model this build does not have
        ASSERT_EQ(o.code, 0) << m << "\n" << o.text;
        EXPECT_TRUE(has(o, "conformance       ok")) << m << "\n" << o.text;
        EXPECT_TRUE(has(o, "holds no values")) << m << "\n" << o.text;
        EXPECT_FALSE(has(o, "results verified")) << o.text;
        auto j = nlohmann::json::parse(std::ifstream(out + "/stats.json"));
        EXPECT_FALSE(j["run"]["verified"].get<bool>());
        EXPECT_EQ(j["run"]["status"], "ok");
        EXPECT_NE(j["run"]["message"].get<std::string>().find("no values"), std::string::npos);
        EXPECT_GT(summary(j, "pm_stores"), 0) << m;          // PM stores reached the persist path
        EXPECT_GT(summary(j, "persisted_writes"), 0) << m;
        EXPECT_GT(j["check"]["persists"].get<int>(), 0) << m;
        // the MEMBARs add ordering primitives
        Out n = sh("run " + kSmall + kPm + " --model " + m + " --trace " + nofence + " --quiet --out " + out + "-nofence");
        ASSERT_EQ(n.code, 0) << m << "\n" << n.text;
        auto jn = nlohmann::json::parse(std::ifstream(out + "-nofence/stats.json"));
        EXPECT_GT(prims(j), prims(jn)) << m;
    }
}

TEST(CliAccelsim, CheckCommandAndFenceOption)
{
    std::string d = tmpdir("check");
    Out c = sh("check " + kSmall + kPm + " --model sbrp --trace " + kData + "two/kernelslist.g");
    EXPECT_EQ(c.code, 0) << c.text;
    // MEMBAR lowered to `order`: no persist barriers, fewer durability points under sbrp
    Out a = sh("run " + kSmall + kPm + " --model sbrp --quiet --trace " + kData + "two/kernelslist.g --out " + d + "/a");
    Out b = sh("run " + kSmall + kPm + " --set accelsim.fence=order --model sbrp --quiet --trace " + kData +
               "two/kernelslist.g --out " + d + "/b");
    ASSERT_EQ(a.code, 0) << a.text;
    ASSERT_EQ(b.code, 0) << b.text;
    auto ja = nlohmann::json::parse(std::ifstream(d + "/a/stats.json"));
    auto jb = nlohmann::json::parse(std::ifstream(d + "/b/stats.json"));
    EXPECT_NE(prims(ja), prims(jb));
    // one kernel file alone (xz) runs too
    Out x = sh("run " + kSmall + kPm + " --model epoch --quiet --trace " + kData + "two/kernel-2.traceg.xz --out " + d + "/x");
    EXPECT_EQ(x.code, 0) << x.text;
}

TEST(CliAccelsim, MalformedTracesExitOneNamingFileAndLine)
{
    std::string d = tmpdir("bad");
    const struct { const char *file, *where; } cases[] = {
        {"bad/missing_header.traceg", "missing_header.traceg:4: missing header"},
        {"bad/bad_warp.traceg", "bad_warp.traceg:21: warp 5 out of range"},
        {"bad/insts_mismatch.traceg", "insts_mismatch.traceg:26:"},
        {"bad/bad_mode.traceg", "bad_mode.traceg:23: bad address compression mode"},
        {"bad/missing_kernel.g", "missing_kernel.g:2: kernel file"},
    };
    for (const auto &c : cases) {
        Out o = sh("run " + kSmall + " --model sbrp --trace " + kData + c.file + " --out " + d + "/o");
        EXPECT_EQ(o.code, 1) << c.file << "\n" << o.text;
        EXPECT_TRUE(has(o, c.where)) << o.text;
    }
    // a truncated xz kernel
    std::ifstream in(kData + "two/kernel-2.traceg.xz", std::ios::binary);
    std::string z((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(d + "/cut.traceg.xz", std::ios::binary) << z.substr(0, z.size() / 2);
    Out t = sh("run " + kSmall + " --model sbrp --trace " + d + "/cut.traceg.xz --out " + d + "/t");
    EXPECT_EQ(t.code, 1) << t.text;
    EXPECT_TRUE(has(t, "cut.traceg.xz: truncated xz data")) << t.text;
}

} // namespace
