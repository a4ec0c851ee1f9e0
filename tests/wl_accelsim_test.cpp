// Accel-Sim GPU traces (workloads/accelsim.c, docs/trace-format-accelsim.md): the format's address
// compression modes, kernelslist, xz, the lowering to persim ops, and every malformed-input error.
// The traces under tests/data/accelsim/ are written by hand in the format Accel-Sim's tracer
// writes (util/tracer_nvbit/tracer_tool/tracer_tool.cu, traces-processing/post-traces-processing.cpp).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

#include "accelsim.h"

namespace {

const std::string kData = std::string(PERSIM_SOURCE_DIR) + "/tests/data/accelsim/";
const uint64_t kTracePm = 0x7f0000000000ull;   // where the hand-written traces keep their PM data

std::string slurp(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

accelsim_opts pm_range_opts()
{
    accelsim_opts o;
    accelsim_default_opts(&o);
    o.pm_lo = kTracePm;
    o.pm_bytes = 0x100000;   // 1 MiB of PM; the inputs at kTracePm + 1 MiB are volatile
    return o;
}

struct Read {
    persim_prog *p = nullptr;
    accelsim_counts c{};
    int rc = -1;
    char err[2048] = {0};
    ~Read() { if (p) prog_free(p); }
};

void read_file(Read &r, const std::string &path, const accelsim_opts &o)
{
    r.rc = accelsim_read_file(path.c_str(), &o, &r.p, &r.c, r.err, sizeof r.err);
}

// Ops of stream (block, warp) of kernel k.
std::vector<persim_op> ops_of(const persim_prog *p, uint32_t k, uint32_t b, uint32_t w)
{
    const persim_stream *s = prog_stream(p, &p->kernels[k], b, w);
    return std::vector<persim_op>(p->ops + s->begin, p->ops + s->end);
}

// Parses a kernel text from a buffer; returns the error ("" when it parsed).
std::string parse_err(const std::string &text, accelsim_opts o = pm_range_opts())
{
    persim_prog *p = prog_new();
    char err[1024] = {0};
    int rc = accelsim_parse_kernel("k.traceg", text.data(), text.size(), &o, p, nullptr, err, sizeof err);
    char verr[512];
    if (rc == 0) {
        EXPECT_EQ(prog_validate(p, verr, sizeof verr), 0) << verr;
    }
    prog_free(p);
    return rc ? std::string(err) : std::string();
}

const std::string kHdr =
    "-kernel name = k\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-accelsim tracer version = 5\n"
    "-enable lineinfo = 0\n\n#traces format = ...\n\n";

// One thread block of `warps` (each a list of instruction lines).
std::string tb(int b, const std::vector<std::vector<std::string>> &warps)
{
    std::string s = "#BEGIN_TB\nthread block = " + std::to_string(b) + ",0,0\n";
    for (size_t w = 0; w < warps.size(); ++w) {
        s += "warp = " + std::to_string(w) + "\ninsts = " + std::to_string(warps[w].size()) + "\n";
        for (const auto &l : warps[w]) s += l + "\n";
    }
    return s + "#END_TB\n";
}

TEST(Accelsim, TwoKernelListLowersEveryAddressMode)
{
    Read r;
    read_file(r, kData + "two/kernelslist.g", pm_range_opts());
    ASSERT_EQ(r.rc, 0) << r.err;
    char verr[512];
    ASSERT_EQ(prog_validate(r.p, verr, sizeof verr), 0) << verr;
    const persim_prog *p = r.p;
    ASSERT_EQ(p->nkernels, 2u);
    EXPECT_STREQ(p->kernels[0].name, "_Z6writerPfS_");
    EXPECT_EQ(p->kernels[0].nblocks, 2u);
    EXPECT_EQ(p->kernels[0].warps_per_block, 2u);
    EXPECT_STREQ(p->kernels[1].name, "_Z7flusherPf");
    EXPECT_EQ(r.c.kernels, 2u);
    EXPECT_EQ(r.c.blocks, 3u);
    EXPECT_EQ(r.c.insts, 35u);
    EXPECT_EQ(r.c.memcpys, 2u);
    EXPECT_EQ(r.c.pm_stores, 8u);
    EXPECT_EQ(r.c.vol_loads, 4u);
    EXPECT_EQ(r.c.pm_loads, 0u);
    EXPECT_EQ(r.c.fences, 5u);
    EXPECT_EQ(r.c.atomics, 3u);
    EXPECT_EQ(r.c.barriers, 1u);

    // kernel 1, block 1, warp 0: S2R+IMAD, LDG base+stride (volatile), STG base+stride (PM),
    // MEMBAR.CTA, STG.64 base+deltas, ATOMG (one-address list), EXIT
    std::vector<persim_op> w0 = ops_of(p, 0, 1, 0);
    ASSERT_EQ(w0.size(), 8u);
    EXPECT_EQ(w0[0].kind, OPK_COMPUTE);
    EXPECT_EQ(w0[0].val, 2u);
    EXPECT_EQ(w0[1].kind, OPK_LD);
    EXPECT_LT(w0[1].addr, PERSIM_PM_BASE);                       // volatile: below system.pm_base
    EXPECT_EQ(w0[1].nlanes, 32u);
    EXPECT_EQ(w0[1].stride, 4u);
    EXPECT_EQ(w0[2].kind, OPK_ST);
    EXPECT_EQ(w0[2].addr, PERSIM_PM_BASE + 0x10000);             // PM: moved to system.pm_base
    EXPECT_EQ(w0[2].elem, 4u);
    EXPECT_EQ(w0[2].nlanes, 32u);
    EXPECT_EQ(w0[3].kind, OPK_PBARRIER);
    EXPECT_EQ(w0[3].scope, SCOPE_BLOCK);
    EXPECT_EQ(w0[4].kind, OPK_ST);                                // base+deltas: 4 lanes, 8 B apart
    EXPECT_EQ(w0[4].addr, PERSIM_PM_BASE + 0x11000);
    EXPECT_EQ(w0[4].elem, 8u);
    EXPECT_EQ(w0[4].nlanes, 4u);
    EXPECT_EQ(w0[4].stride, 8u);
    EXPECT_EQ(w0[5].kind, OPK_RELEASE);                           // ATOMG: release + acquire, GPU scope
    EXPECT_EQ(w0[5].scope, SCOPE_DEVICE);
    EXPECT_EQ(w0[5].addr, PERSIM_PM_BASE + 0x12000);
    EXPECT_EQ(w0[6].kind, OPK_ACQUIRE);
    EXPECT_EQ(w0[6].addr, w0[5].addr);
    EXPECT_EQ(w0[6].val, w0[5].val);
    EXPECT_EQ(w0[7].kind, OPK_COMPUTE);

    // warp 1: a list of 16 addresses 8 B apart; a 128-bit store (two 8-byte elements a lane); the
    // shared-memory load is compute
    std::vector<persim_op> w1 = ops_of(p, 0, 0, 1);
    ASSERT_EQ(w1.size(), 6u);
    EXPECT_EQ(w1[1].kind, OPK_LD);
    EXPECT_EQ(w1[1].nlanes, 16u);
    EXPECT_EQ(w1[1].stride, 8u);
    EXPECT_EQ(w1[2].kind, OPK_ST);
    EXPECT_EQ(w1[2].addr, PERSIM_PM_BASE + 0x3000);
    EXPECT_EQ(w1[2].elem, 8u);
    EXPECT_EQ(w1[2].nlanes, 32u);
    EXPECT_EQ(w1[3].kind, OPK_ST);
    EXPECT_EQ(w1[3].addr, PERSIM_PM_BASE + 0x3100);
    EXPECT_EQ(w1[4].kind, OPK_PBARRIER);
    EXPECT_EQ(w1[5].kind, OPK_COMPUTE);
    EXPECT_EQ(w1[5].val, 2u);                                     // LDS + EXIT
    EXPECT_EQ(r.c.shared, 2u);

    // kernel 2 (tracer version 4: no immediates): MEMBAR.GPU, RED to one address, BAR.SYNC, and
    // an STG in base+deltas form
    std::vector<persim_op> k2 = ops_of(p, 1, 0, 0);
    ASSERT_EQ(k2.size(), 7u);
    EXPECT_EQ(k2[2].kind, OPK_PBARRIER);
    EXPECT_EQ(k2[2].scope, SCOPE_DEVICE);
    EXPECT_EQ(k2[3].kind, OPK_RELEASE);                           // RED: a release only
    EXPECT_EQ(k2[4].kind, OPK_SYNC);
    EXPECT_EQ(k2[4].scope, SCOPE_BLOCK);
    EXPECT_EQ(k2[5].kind, OPK_ST);
    EXPECT_EQ(k2[5].nlanes, 32u);
    EXPECT_EQ(k2[5].stride, 4u);
}

TEST(Accelsim, XzKernelEqualsPlainText)
{
    accelsim_opts o = pm_range_opts();
    Read a, b;
    read_file(a, kData + "kernel-2.traceg", o);
    read_file(b, kData + "two/kernel-2.traceg.xz", o);
    ASSERT_EQ(a.rc, 0) << a.err;
    ASSERT_EQ(b.rc, 0) << b.err;
    ASSERT_EQ(a.p->nops, b.p->nops);
    ASSERT_GT(a.p->nops, 0u);
    for (uint64_t i = 0; i < a.p->nops; ++i) {
        EXPECT_EQ(a.p->ops[i].kind, b.p->ops[i].kind) << i;
        EXPECT_EQ(a.p->ops[i].addr, b.p->ops[i].addr) << i;
        EXPECT_EQ(a.p->ops[i].nlanes, b.p->ops[i].nlanes) << i;
    }
}

TEST(Accelsim, TruncatedXzIsAnError)
{
    std::string z = slurp(kData + "two/kernel-2.traceg.xz");
    ASSERT_GT(z.size(), 100u);
    const std::string path = testing::TempDir() + "persim_trunc_" + std::to_string(getpid()) + ".traceg.xz";
    std::ofstream(path, std::ios::binary) << z.substr(0, z.size() - 40);
    Read r;
    read_file(r, path, pm_range_opts());
    EXPECT_EQ(r.rc, -1);
    EXPECT_EQ(r.p, nullptr);
    EXPECT_NE(std::string(r.err).find(path + ": truncated xz data"), std::string::npos) << r.err;
    std::remove(path.c_str());
}

TEST(Accelsim, PmRangeAndDefaults)
{
    accelsim_opts o;
    accelsim_default_opts(&o);   // every global address is PM
    Read all;
    read_file(all, kData + "two/kernelslist.g", o);
    ASSERT_EQ(all.rc, 0) << all.err;
    EXPECT_EQ(all.c.vol_loads, 0u);
    EXPECT_EQ(all.c.pm_loads, 4u);
    o.pm_lo = 0x7e0000000000ull;   // a range that holds nothing of the trace: all volatile
    o.pm_bytes = 4096;
    Read none;
    read_file(none, kData + "two/kernelslist.g", o);
    ASSERT_EQ(none.rc, 0) << none.err;
    EXPECT_EQ(none.c.pm_stores, 0u);
    EXPECT_EQ(none.c.vol_stores, 8u);
    for (uint64_t i = 0; i < none.p->nops; ++i)
        if (none.p->ops[i].kind == OPK_ST) {
            EXPECT_LT(none.p->ops[i].addr, PERSIM_PM_BASE);
        }
    o.pm_lo = 100;   // not a multiple of 128
    Read bad;
    read_file(bad, kData + "two/kernelslist.g", o);
    EXPECT_EQ(bad.rc, -1);
    EXPECT_NE(std::string(bad.err).find("multiples of 128"), std::string::npos) << bad.err;
}

TEST(Accelsim, FenceOrderOption)
{
    accelsim_opts o = pm_range_opts();
    o.fence = ACCELSIM_FENCE_ORDER;
    Read r;
    read_file(r, kData + "two/kernelslist.g", o);
    ASSERT_EQ(r.rc, 0) << r.err;
    int orders = 0;
    for (uint64_t i = 0; i < r.p->nops; ++i) {
        EXPECT_NE(r.p->ops[i].kind, OPK_PBARRIER);
        orders += r.p->ops[i].kind == OPK_ORDER;
    }
    EXPECT_EQ(orders, 5);
}

// A MEMBAR only some warps of a block run (`if (threadIdx.x == 0) __threadfence();` then
// __syncthreads()) would be an execution barrier the others never reach: it becomes `order`.
TEST(Accelsim, BarriersInDifferentOrderBecomeOrder)
{
    accelsim_opts o = pm_range_opts();
    const std::string text = kHdr + tb(0, {{"0000 ffffffff 0 MEMBAR.SC.GPU 0 0 0", "0010 ffffffff 0 BAR.SYNC 0 0 0"},
                                           {"0010 ffffffff 0 BAR.SYNC 0 0 0"}});
    persim_prog *p = prog_new();
    accelsim_counts c{};
    char err[512];
    ASSERT_EQ(accelsim_parse_kernel("k.traceg", text.data(), text.size(), &o, p, &c, err, sizeof err), 0) << err;
    std::vector<persim_op> w0 = ops_of(p, 0, 0, 0);
    ASSERT_EQ(w0.size(), 2u);
    EXPECT_EQ(w0[0].kind, OPK_ORDER);
    EXPECT_EQ(w0[1].kind, OPK_SYNC);
    EXPECT_EQ(c.barriers_dropped, 1u);
    prog_free(p);

    // every warp fences the same way: the scoped persist barrier stays
    const std::string same = kHdr + tb(0, {{"0000 ffffffff 0 MEMBAR.SC.CTA 0 0 0"}, {"0000 ffffffff 0 MEMBAR.SC.CTA 0 0 0"}});
    p = prog_new();
    c = accelsim_counts{};
    ASSERT_EQ(accelsim_parse_kernel("k.traceg", same.data(), same.size(), &o, p, &c, err, sizeof err), 0) << err;
    EXPECT_EQ(ops_of(p, 0, 0, 1)[0].kind, OPK_PBARRIER);
    EXPECT_EQ(c.barriers_dropped, 0u);
    prog_free(p);

    // device scope across blocks in different orders: the kernel's device barriers become order
    const std::string cross = kHdr + tb(0, {{"0000 ffffffff 0 MEMBAR.GL 0 0 0", "0 ffffffff 0 BAR.SYNC 0 0 0"}}) +
                              tb(1, {{"0 ffffffff 0 BAR.SYNC 0 0 0", "0000 ffffffff 0 MEMBAR.GL 0 0 0"}});
    p = prog_new();
    c = accelsim_counts{};
    ASSERT_EQ(accelsim_parse_kernel("k.traceg", cross.data(), cross.size(), &o, p, &c, err, sizeof err), 0) << err;
    for (uint64_t i = 0; i < p->nops; ++i) EXPECT_NE(p->ops[i].kind, OPK_PBARRIER);
    EXPECT_EQ(c.barriers_dropped, 2u);
    prog_free(p);
}

TEST(Accelsim, LineinfoAndTracerVersion3)
{
    const std::string text =
        "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 3\n-enable lineinfo = 1\n"
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
        "17 0010 ffffffff 0 STG.E 2 R2 R4 4 1 0x100 4\n18 0020 ffffffff 0 EXIT 0 0\n#END_TB\n";
    EXPECT_EQ(parse_err(text), "");
}

TEST(Accelsim, MalformedFilesNameFileAndLine)
{
    const struct { const char *file, *line, *msg; } cases[] = {
        {"bad/missing_header.traceg", ":4:", "missing header"},
        {"bad/bad_warp.traceg", ":21:", "warp 5 out of range"},
        {"bad/insts_mismatch.traceg", ":26:", "'insts = 3' (line 22) but 2 instruction lines"},
        {"bad/bad_mode.traceg", ":23:", "bad address compression mode '7'"},
        {"bad/missing_kernel.g", ":2:", "kernel-9.traceg: cannot open"},
    };
    for (const auto &c : cases) {
        Read r;
        read_file(r, kData + c.file, pm_range_opts());
        EXPECT_EQ(r.rc, -1) << c.file;
        EXPECT_EQ(r.p, nullptr);
        const std::string e = r.err;
        EXPECT_EQ(e.find(kData + c.file + c.line), 0u) << e;
        EXPECT_NE(e.find(c.msg), std::string::npos) << e;
    }
    Read missing;
    read_file(missing, kData + "no-such-dir/kernelslist.g", pm_range_opts());
    EXPECT_EQ(missing.rc, -1);
    EXPECT_NE(std::string(missing.err).find("cannot open"), std::string::npos);
}

TEST(Accelsim, EveryBufferErrorIsReported)
{
    const std::string st = "0010 ffffffff 0 STG.E 2 R2 R4 4 ";
    const struct { std::string text, msg; } cases[] = {
        {"", "missing header"},
        {"-grid dim = (0,1,1)\n", "bad grid dim"},
        {"-grid dim = (1,1)\n", "bad grid dim"},
        {"-block dim = (2048,1,1)\n", "larger than 1024"},
        {"-accelsim tracer version = 2\n", "not supported"},
        {"-enable lineinfo = 7\n", "bad lineinfo"},
        {"-grid dim\n", "has no '='"},
        {"-warp size = 64\n", "warp size '64' is not supported"},
        {kHdr + "0000 ffffffff 0 EXIT 0 0\n", "outside a thread block"},
        {kHdr + "#BEGIN_TB\n#BEGIN_TB\n", "inside a thread block"},
        {kHdr + "#END_TB\n", "#END_TB without #BEGIN_TB"},
        {kHdr + "#BEGIN_TB\nthread block = 0,0,0\n", "missing #END_TB"},
        {kHdr + "#BEGIN_TB\n#END_TB\n", "without a 'thread block"},
        {kHdr + "#BEGIN_TB\nthread block = 5,0,0\n", "outside the grid"},
        {kHdr + "#BEGIN_TB\nthread block = 0,0\n", "bad thread block"},
        {kHdr + tb(1, {}) + tb(0, {}), "out of order"},
        {kHdr + tb(0, {}) + "-nregs = 8\n", "after the first thread block"},
        {kHdr + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\nwarp = 0\n", "repeated"},
        {kHdr + "#BEGIN_TB\nthread block = 0,0,0\nwarp = x\n", "bad warp line"},
        {kHdr + "#BEGIN_TB\nwarp = 0\n", "before the 'thread block'"},
        {kHdr + "#BEGIN_TB\nthread block = 0,0,0\ninsts = 1\n", "before a 'warp'"},
        {kHdr + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n0 ffffffff 0 EXIT 0 0\n", "before a 'warp' and 'insts'"},
        {kHdr + tb(0, {{"zz ffffffff 0 EXIT 0 0"}}), "bad PC"},
        {kHdr + tb(0, {{"0 1ffffffff 0 EXIT 0 0"}}), "bad active mask"},
        {kHdr + tb(0, {{"0 ffffffff 99 EXIT 0 0"}}), "bad destination count"},
        {kHdr + tb(0, {{"0 ffffffff 1"}}), "ends before its opcode"},
        {kHdr + tb(0, {{"0 ffffffff 0 EXIT"}}), "source count"},
        {kHdr + tb(0, {{"0 ffffffff 0 EXIT 3 R1"}}), "before its 3 sources"},
        {kHdr + tb(0, {{"0 ffffffff 0 EXIT 0"}}), "memory width"},
        {kHdr + tb(0, {{"0 ffffffff 0 EXIT 0 999"}}), "bad memory width"},
        {kHdr + tb(0, {{"0 ffffffff 0 123 0 0"}}), "bad opcode"},
        {kHdr + tb(0, {{st + "3 0x100"}}), "bad address compression mode"},
        {kHdr + tb(0, {{st + "1 0x100"}}), "needs a base and a stride"},
        {kHdr + tb(0, {{"0 f0f0f0f0 0 STG.E 2 R2 R4 4 1 0x100 4"}}), "non-contiguous"},
        {kHdr + tb(0, {{"0 0000000f 0 STG.E 2 R2 R4 4 0 0x100 0x104"}}), "2 addresses for 4 active threads"},
        {kHdr + tb(0, {{"0 0000000f 0 STG.E 2 R2 R4 4 0 0x100 0x104 0x108 0xq"}}), "bad address"},
        {kHdr + tb(0, {{"0 0000000f 0 STG.E 2 R2 R4 4 2 0x100 4"}}), "1 address deltas for 4 active threads (expected 3)"},
        {kHdr + tb(0, {{"0 0000000f 0 STG.E 2 R2 R4 4 2 0x100 4 4 x"}}), "bad address delta"},
        {kHdr + tb(0, {{"0 0000000f 0 STG.E 2 R2 R4 4 2 0x100 4 4 4 0 junk"}}), "unexpected 'junk'"},
        {kHdr + tb(0, {{"0 00000001 0 STG.E 2 R2 R4 8 0 0xfffffffffffffffc"}}), "wraps around"},
        {kHdr + std::string(70000, 'x') + "\n", "longer than"},
        {kHdr + std::string("#BEGIN_TB\0\n", 11), "NUL byte"},
    };
    for (const auto &c : cases) {
        const std::string e = parse_err(c.text);
        EXPECT_EQ(e.rfind("k.traceg:", 0), 0u) << "input:\n" << c.text << "\ngot: " << e;
        EXPECT_NE(e.find(c.msg), std::string::npos) << "input:\n" << c.text << "\ngot: " << e;
    }
    // an instruction count larger than the lines, and more lines than the count
    std::string t = kHdr + tb(0, {{"0 ffffffff 0 EXIT 0 0"}});
    std::string more = t, fewer = t;
    more.replace(more.find("insts = 1"), 9, "insts = 0");
    fewer.replace(fewer.find("insts = 1"), 9, "insts = 2");
    EXPECT_NE(parse_err(more).find("more than its 'insts = 0'"), std::string::npos) << parse_err(more);
    EXPECT_NE(parse_err(fewer).find("'insts = 2' (line"), std::string::npos) << parse_err(fewer);
    // immediates and a predicated-off memory instruction parse
    EXPECT_EQ(parse_err(kHdr + tb(0, {{"0 00000000 0 STG.E 2 R2 R4 4 1 0x0 0 0", "0 ffffffff 0 IADD 0 0 -5"}})), "");
}

TEST(Accelsim, KernelslistErrors)
{
    accelsim_opts o = pm_range_opts();
    persim_prog *p = prog_new();
    char err[512];
    const std::string junk = "MemcpyHtoD,0x0,4\nfrobnicate\n";
    EXPECT_EQ(accelsim_parse_kernelslist("kl.g", junk.data(), junk.size(), ".", &o, p, nullptr, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("kl.g:2: unexpected 'frobnicate'"), std::string::npos) << err;
    const std::string none = "MemcpyHtoD,0x0,4\n\n";
    EXPECT_EQ(accelsim_parse_kernelslist("kl.g", none.data(), none.size(), ".", &o, p, nullptr, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("names no kernel files"), std::string::npos) << err;
    prog_free(p);
}

TEST(Accelsim, DetectsByNameOrContent)
{
    EXPECT_TRUE(accelsim_path_is_trace((kData + "two/kernelslist.g").c_str()));
    EXPECT_TRUE(accelsim_path_is_trace((kData + "two/kernel-2.traceg.xz").c_str()));
    EXPECT_TRUE(accelsim_path_is_trace((kData + "kernel-2.traceg").c_str()));
    EXPECT_FALSE(accelsim_path_is_trace((std::string(PERSIM_SOURCE_DIR) + "/docs/examples/scoped-release-bug.trace").c_str()));
    const std::string odd = testing::TempDir() + "persim_odd_" + std::to_string(getpid());
    std::ofstream(odd) << slurp(kData + "kernel-2.traceg");
    EXPECT_TRUE(accelsim_path_is_trace(odd.c_str()));
    std::remove(odd.c_str());
}

} // namespace
