// Text traces (workloads/trace.c): round trip, regions, expects, and every reader error.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "func_exec.h"
#include "trace.h"

namespace {

std::string temp_path(const char *tag)
{
    return testing::TempDir() + "persim_" + tag + "_" + std::to_string(getpid()) + ".trace";
}

std::string slurp(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Program with every op kind, two kernels, skipped and empty warps, per-lane and broadcast stores.
persim_prog *build_all_kinds()
{
    persim_prog *p = prog_new();
    prog_kernel(p, "alpha", 3, 70);                 // 3 warps per block
    prog_warp(p, 0, 0);
    op_ld(p, PERSIM_VOL_BASE, 4, 32, 4);
    uint64_t v[32];
    for (int i = 0; i < 32; i++) v[i] = 0xFFFFFFF0u + (uint64_t)i * 0x1000001u;
    op_st(p, PERSIM_PM_BASE, 4, 32, 4, v);
    op_st_bcast(p, PERSIM_PM_BASE + 0x1000, 8, 16, 64, 0xDEADBEEFCAFEF00Dull);
    op_st_bcast(p, PERSIM_PM_BASE + 0x3001, 2, 1, 7, 0xABCD);          // odd stride, 1 lane
    op_st_log(p, PERSIM_PM_BASE + 0x3100, 4, 32, 4, v);                 // a log write
    op_compute(p, 12345678901ull);
    op_order(p);
    op_release(p, PERSIM_PM_BASE + 0x8000, 8, 0xFFFFFFFFFFFFFFFFull, SCOPE_SYSTEM);
    prog_warp(p, 0, 2);                             // (0,1) stays empty
    op_acquire(p, PERSIM_PM_BASE + 0x8000, 8, 0xFFFFFFFFFFFFFFFFull, SCOPE_SYSTEM);
    op_durable(p);
    op_sync(p, SCOPE_BLOCK);
    op_pbarrier(p, SCOPE_WARP);
    op_pbarrier(p, SCOPE_BLOCK);
    op_pbarrier(p, SCOPE_DEVICE);
    op_require(p, 2, 3);
    prog_warp(p, 2, 1);
    uint64_t w[3] = { 0, 255, 17 };
    op_st(p, 0x2000, 1, 3, 33, w);
    op_release(p, 0x3000, 4, 9, SCOPE_BLOCK);
    op_acquire(p, 0x3000, 4, 9, SCOPE_DEVICE);
    op_sync(p, SCOPE_DEVICE);
    prog_kernel(p, "beta kernel#2", 1, 1);          // name with a blank and '#': written as '_'
    prog_warp(p, 0, 0);
    op_ld(p, PERSIM_PM_BASE + 4096 * 3 - 2, 4, 2, 4);   // lanes straddle chunks and pages
    persim_op o;
    std::memset(&o, 0, sizeof o);
    o.kind = OPK_ORDER;
    o.vals = PERSIM_NOVALS;
    o.id = 1000;                                    // explicit id, then auto ids continue at 1001
    op_append(p, &o, nullptr);
    op_durable(p);
    op_require(p, 1000, 7);
    prog_kernel(p, "empty", 2, 32);                 // no warp lines at all
    return p;
}

mem_image *build_init()
{
    mem_image *m = mem_new();
    const char in[] = "volatile input";
    mem_write(m, PERSIM_VOL_BASE + 3, in, sizeof in);
    mem_write_u64(m, PERSIM_PM_BASE + 0x1000 + 64 * 15, 0x0102030405060708ull);
    mem_write_u32(m, PERSIM_PM_BASE + 0x8000, 5);
    mem_write_u32(m, PERSIM_PM_BASE + 4096 * 3 - 4, 0xAABBCCDD);     // chunk before the page end
    mem_write_u32(m, PERSIM_PM_BASE + 0x50000, 77);                  // outside the footprint
    return m;
}

void expect_same_prog(const persim_prog *a, const persim_prog *b, bool same_names = true)
{
    ASSERT_EQ(a->nkernels, b->nkernels);
    ASSERT_EQ(a->nops, b->nops);
    for (uint32_t k = 0; k < a->nkernels; k++) {
        const persim_kernel *ka = &a->kernels[k], *kb = &b->kernels[k];
        if (same_names) {
            EXPECT_STREQ(ka->name, kb->name);
        }
        EXPECT_EQ(ka->nblocks, kb->nblocks);
        EXPECT_EQ(ka->warps_per_block, kb->warps_per_block);
        for (uint32_t bl = 0; bl < ka->nblocks; bl++)
            for (uint32_t w = 0; w < ka->warps_per_block; w++) {
                const persim_stream *sa = prog_stream(a, ka, bl, w), *sb = prog_stream(b, kb, bl, w);
                ASSERT_EQ(sa->end - sa->begin, sb->end - sb->begin) << "kernel " << k << " block " << bl << " warp " << w;
                for (uint64_t i = 0; i < sa->end - sa->begin; i++) {
                    const persim_op *x = &a->ops[sa->begin + i], *y = &b->ops[sb->begin + i];
                    SCOPED_TRACE("kernel " + std::to_string(k) + " block " + std::to_string(bl) +
                                 " warp " + std::to_string(w) + " op " + std::to_string(i));
                    EXPECT_EQ(x->kind, y->kind);
                    EXPECT_EQ(x->scope, y->scope);
                    EXPECT_EQ(x->elem, y->elem);
                    EXPECT_EQ(x->nlanes, y->nlanes);
                    EXPECT_EQ(x->stride, y->stride);
                    EXPECT_EQ(x->addr, y->addr);
                    EXPECT_EQ(x->val, y->val);
                    EXPECT_EQ(x->id, y->id);
                    EXPECT_EQ(x->vals == PERSIM_NOVALS, y->vals == PERSIM_NOVALS);
                    if (x->kind == OPK_ST) {
                        for (uint32_t l = 0; l < x->nlanes; l++) {
                            EXPECT_EQ(op_lane_val(a, x, l), op_lane_val(b, y, l)) << "lane " << l;
                        }
                    }
                }
            }
    }
    EXPECT_EQ(a->next_id, b->next_id);
}

struct Data {
    trace_data t;
    Data() { std::memset(&t, 0, sizeof t); }
    ~Data() { trace_data_free(&t); }
};

}  // namespace

TEST(Trace, RoundTripReproducesProgramAndImage)
{
    persim_prog *p = build_all_kinds();
    mem_image *init = build_init();
    char err[512] = "";
    ASSERT_EQ(prog_validate(p, err, sizeof err), 0) << err;
    std::string path = temp_path("roundtrip");
    ASSERT_EQ(trace_write_file(path.c_str(), p, init, nullptr, 0, "round trip\nsecond line", err, sizeof err), 0) << err;
    std::string text = slurp(path);
    EXPECT_EQ(text.rfind("persim-trace 1\n# round trip\n# second line\n", 0), 0u) << text;
    EXPECT_NE(text.find("kernel beta_kernel_2 blocks=1 threads=32"), std::string::npos);
    EXPECT_NE(text.find("kernel alpha blocks=3 threads=96"), std::string::npos);
    EXPECT_NE(text.find("1001: durable"), std::string::npos);
    EXPECT_NE(text.find(": st log 0x"), std::string::npos);
    EXPECT_EQ(text.find("warp 0 1\n"), std::string::npos);                // empty streams omitted

    Data d;
    ASSERT_EQ(trace_read_file(path.c_str(), &d.t, err, sizeof err), 0) << err << "\n" << text;
    expect_same_prog(p, d.t.prog, false);
    EXPECT_STREQ(d.t.prog->kernels[1].name, "beta_kernel_2");
    EXPECT_EQ(d.t.nexpects, 0u);

    // The footprint of the program is reproduced byte for byte.
    uint64_t *chunks = nullptr;
    size_t n = trace_prog_chunks(p, 0, &chunks);
    ASSERT_GT(n, 5u);
    for (size_t i = 0; i < n; i++)
        EXPECT_EQ(mem_diff(init, d.t.init, chunks[i] << 7, 128), -1) << std::hex << (chunks[i] << 7);
    free(chunks);
    EXPECT_EQ(mem_read_u32(d.t.init, PERSIM_PM_BASE + 0x8000), 5u);
    EXPECT_EQ(mem_read_u32(d.t.init, PERSIM_PM_BASE + 4096 * 3 - 4), 0xAABBCCDDu);
    EXPECT_EQ(mem_read_u32(d.t.init, PERSIM_PM_BASE + 0x50000), 0u);     // not in the footprint

    // write -> read -> write is a fixed point.
    std::string path2 = temp_path("roundtrip2");
    ASSERT_EQ(trace_write_file(path2.c_str(), d.t.prog, d.t.init, nullptr, 0, "round trip\nsecond line", err, sizeof err), 0) << err;
    EXPECT_EQ(slurp(path2), text);
    std::remove(path.c_str());
    std::remove(path2.c_str());
    prog_free(p);
    mem_free(init);
}

TEST(Trace, RegionsChooseWhichMemoryIsDumped)
{
    persim_prog *p = build_all_kinds();
    mem_image *init = build_init();
    trace_region r[2] = { { PERSIM_PM_BASE + 0x50002, 1 }, { PERSIM_VOL_BASE, 300 } };
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ASSERT_EQ(trace_write_stream(f, p, init, r, 2, nullptr), 0);
    std::fclose(f);
    std::string text(buf, len);
    free(buf);
    // two data lines: the chunk at VOL_BASE (input) and the one holding 77; zero chunks skipped
    size_t count = 0;
    for (size_t at = 0; (at = text.find("\ndata ", at)) != std::string::npos; at++) count++;
    EXPECT_EQ(count, 2u) << text;
    EXPECT_NE(text.find("data 0x10000050000 4d000000"), std::string::npos) << text;
    Data d;
    char err[256];
    ASSERT_EQ(trace_read_string("regions", text.c_str(), &d.t, err, sizeof err), 0) << err;
    EXPECT_EQ(mem_read_u32(d.t.init, PERSIM_PM_BASE + 0x50000), 77u);
    EXPECT_EQ(mem_diff(init, d.t.init, PERSIM_VOL_BASE, 384), -1);
    EXPECT_EQ(mem_read_u32(d.t.init, PERSIM_PM_BASE + 0x8000), 0u);      // not asked for
    // an empty region list dumps nothing, NULL init too
    f = open_memstream(&buf, &len);
    ASSERT_EQ(trace_write_stream(f, p, init, r, 0, nullptr), 0);
    ASSERT_EQ(trace_write_stream(f, p, nullptr, nullptr, 0, nullptr), 0);
    std::fclose(f);
    EXPECT_EQ(std::string(buf, len).find("data "), std::string::npos);
    free(buf);
    prog_free(p);
    mem_free(init);
}

TEST(Trace, ExpectsAreWrittenReadAndChecked)
{
    persim_prog *p = prog_new();
    prog_kernel(p, "k", 1, 32);
    prog_warp(p, 0, 0);
    uint64_t v[4] = { 1, 2, 3, 4 };
    op_st(p, PERSIM_PM_BASE + 8, 4, 4, 4, v);
    op_release(p, PERSIM_PM_BASE + 0x200, 4, 1, SCOPE_DEVICE);
    mem_image *img = mem_new();
    char err[512] = "";
    ASSERT_EQ(func_exec(p, img, 0, err, sizeof err), 0) << err;
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ASSERT_EQ(trace_write_stream(f, p, nullptr, nullptr, 0, "with expects"), 0);
    ASSERT_EQ(trace_write_expects(f, p, img, nullptr, 0), 0);
    std::fclose(f);
    std::string text(buf, len);
    free(buf);
    Data d;
    ASSERT_EQ(trace_read_string("exp", text.c_str(), &d.t, err, sizeof err), 0) << err << text;
    ASSERT_EQ(d.t.nexpects, 2u) << text;
    EXPECT_EQ(d.t.expects[0].addr, PERSIM_PM_BASE);
    EXPECT_EQ(d.t.expects[0].len, 128u);
    EXPECT_EQ(d.t.expects[0].bytes[8], 1);
    EXPECT_EQ(d.t.expects[1].addr, PERSIM_PM_BASE + 0x200);
    mem_image *fin = mem_new();
    ASSERT_EQ(func_exec(d.t.prog, fin, 0, err, sizeof err), 0) << err;
    EXPECT_EQ(trace_check_expects(&d.t, fin, err, sizeof err), 0) << err;
    mem_write_u32(fin, PERSIM_PM_BASE + 12, 9);
    EXPECT_EQ(trace_check_expects(&d.t, fin, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("0x1000000000c is 0x09, expected 0x02"), std::string::npos) << err;
    mem_free(fin);
    mem_free(img);
    prog_free(p);
}

TEST(Trace, HandWrittenSyntaxDefaultsAndAutoIds)
{
    const char *text =
        "  # leading comment\n"
        "\n"
        "persim-trace 0x1   # hex version is still 1\r\n"
        "data 0x100 00FFaa   \n"
        "kernel k threads=33 blocks=2\n"
        "warp 0 1\n"
        "ld 0x100 4\n"                      // id 1, 1 lane, stride 4
        "5: ld 0x100 2x3\n"                 // stride defaults to elem
        "st 0x100 1x1+9 = 0x7f\n"           // id 6
        "st 0x100 2x2+2 = 5\n"              // id 7, broadcast over 2 lanes
        "st 0x100 2x2 = 5 6\n"              // id 8, per lane
        "st log 0x108 8 = 3\n"             // id 9, a log write
        "warp 1 0\n"
        "acquire 16 4 0 device\tsync grid\n";
    Data d;
    char err[256];
    // "sync grid" on the same line is trailing garbage
    ASSERT_EQ(trace_read_string("hand", text, &d.t, err, sizeof err), -1);
    EXPECT_EQ(std::string(err).rfind("hand:14: unexpected 'sync'", 0), 0u) << err;
    std::string fixed(text);
    fixed.replace(fixed.find("\tsync grid"), 10, "\nsync grid");
    ASSERT_EQ(trace_read_string("hand", fixed.c_str(), &d.t, err, sizeof err), 0) << err;
    const persim_prog *p = d.t.prog;
    ASSERT_EQ(p->nops, 8u);
    EXPECT_EQ(p->kernels[0].warps_per_block, 2u);
    EXPECT_EQ(p->ops[0].id, 1u);
    EXPECT_EQ(p->ops[0].nlanes, 1u);
    EXPECT_EQ(p->ops[0].stride, 4u);
    EXPECT_EQ(p->ops[1].id, 5u);
    EXPECT_EQ(p->ops[1].stride, 2u);
    EXPECT_EQ(p->ops[2].id, 6u);
    EXPECT_EQ(p->ops[2].stride, 9u);
    EXPECT_EQ(p->ops[2].val, 0x7fu);
    EXPECT_EQ(p->ops[3].vals, PERSIM_NOVALS);
    EXPECT_NE(p->ops[4].vals, PERSIM_NOVALS);
    EXPECT_EQ(op_lane_val(p, &p->ops[4], 1), 6u);
    EXPECT_EQ(p->ops[4].st_class, STC_DATA);
    EXPECT_EQ(p->ops[5].st_class, STC_LOG);
    EXPECT_EQ(p->ops[5].val, 3u);
    EXPECT_EQ(p->ops[7].kind, OPK_SYNC);
    EXPECT_EQ(p->ops[7].scope, SCOPE_DEVICE);
    uint8_t b[4];
    mem_read(d.t.init, 0x100, b, 4);
    EXPECT_EQ(b[0], 0x00);
    EXPECT_EQ(b[1], 0xFF);
    EXPECT_EQ(b[2], 0xAA);
    EXPECT_EQ(b[3], 0x00);
}

TEST(Trace, DocExampleParsesRunsAndMeetsExpects)
{
    std::string doc = slurp(std::string(PERSIM_SOURCE_DIR) + "/docs/trace-format.md");
    size_t at = doc.find("## Complete example");
    ASSERT_NE(at, std::string::npos);
    size_t b = doc.find("```\n", at);
    ASSERT_NE(b, std::string::npos);
    b += 4;
    size_t e = doc.find("```", b);
    ASSERT_NE(e, std::string::npos);
    std::string ex = doc.substr(b, e - b);
    Data d;
    char err[1024];
    ASSERT_EQ(trace_read_string("example", ex.c_str(), &d.t, err, sizeof err), 0) << err;
    const persim_prog *p = d.t.prog;
    EXPECT_EQ(p->nkernels, 2u);
    EXPECT_EQ(p->nops, 19u);
    EXPECT_EQ(d.t.nexpects, 5u);
    bool kinds[OPK__COUNT] = {};
    for (uint64_t i = 0; i < p->nops; i++) kinds[p->ops[i].kind] = true;
    for (int k = 0; k < OPK__COUNT; k++) EXPECT_TRUE(kinds[k]) << op_kind_name(k);
    mem_image *img = mem_clone(d.t.init);
    ASSERT_EQ(func_exec(p, img, 0, err, sizeof err), 0) << err;
    EXPECT_EQ(trace_check_expects(&d.t, img, err, sizeof err), 0) << err;
    EXPECT_EQ(trace_check_expects(&d.t, d.t.init, err, sizeof err), -1);   // not before running
    mem_free(img);
    // What the doc says the writer prints.
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ASSERT_EQ(trace_write_stream(f, p, d.t.init, nullptr, 0, nullptr), 0);
    std::fclose(f);
    std::string out(buf, len);
    free(buf);
    EXPECT_NE(out.find("12: require 5 9\n"), std::string::npos) << out;
    EXPECT_NE(out.find("13: st 0x10000000080 4 = 3\n14: sync device\n"), std::string::npos) << out;
    EXPECT_NE(out.find("data 0x10000000 0100000002000000" + std::string(240, '0') + "\n"), std::string::npos) << out;
}

// ---- reader errors ----

namespace {

const char *H = "persim-trace 1\n";
const char *K = "persim-trace 1\nkernel k blocks=2 threads=64\nwarp 0 0\n";   // ops start at line 4

struct Bad {
    std::string text;
    int line;
    const char *what;
};

}  // namespace

TEST(TraceErrors, EachBadInputNamesFileLineAndProblem)
{
    std::string h(H), k(K);
    const Bad cases[] = {
        { "", 1, "missing header" },
        { "# only a comment\n\n", 2, "missing header" },
        { "# c\nkernel k blocks=1 threads=32\n", 2, "missing header" },
        { "persim-trace 2\n", 1, "unsupported trace version 2" },
        { "persim-trace\n", 1, "missing trace version" },
        { "persim-trace 1 extra\n", 1, "unexpected 'extra'" },
        { h + "persim-trace 1\n", 2, "repeated header" },
        { h + "frobnicate 1\n", 2, "unknown directive or op 'frobnicate'" },
        { k + "ld 0x0 4\nfoo 1\n", 5, "unknown directive or op 'foo'" },
        { k + "3: frob\n", 4, "unknown op 'frob'" },
        { h + "ld 0x10 4\n", 2, "'ld' before any kernel" },
        { h + "warp 0 0\n", 2, "'warp' before any kernel" },
        { h + "kernel k blocks=1 threads=32\norder\n", 3, "'order' before any 'warp' line" },
        { h + "kernel k blocks=1 threads=32\nwarp 0 0\nkernel k2 blocks=1 threads=32\nsync block\n", 5,
          "'sync' before any 'warp' line" },
        { h + "kernel k blocks=2 threads=64\nwarp 2 0\n", 3, "block 2 out of range" },
        { h + "kernel k blocks=2 threads=33\nwarp 0 2\n", 3, "warp 2 out of range" },
        { k + "warp 1 1\nwarp 1 0\n", 5, "warp 1 0 out of order (after warp 1 1)" },
        { k + "warp 0 0\n", 4, "out of order" },
        { h + "kernel k blocks=0 threads=32\n", 2, "block count 0 out of range" },
        { h + "kernel k blocks=1 threads=1025\n", 2, "thread count 1025 out of range" },
        { h + "kernel k blocks=1\n", 2, "missing threads=T" },
        { h + "kernel k threads=5\n", 2, "missing blocks=N" },
        { h + "kernel k blocks=1 blocks=2 threads=5\n", 2, "unexpected 'blocks=2'" },
        // at most 2^24 warps in all (the program builder aborted for lack of memory at 2^29)
        { h + "kernel k blocks=16777216 threads=1024\n", 2,
          "kernel 'k': 536870912 warps (16777216 blocks of 1024 threads) bring the trace to 536870912 warps, more than 16777216" },
        { h + "kernel a blocks=16777216 threads=32\nkernel b blocks=1 threads=1\n", 3, "bring the trace to 16777217 warps" },
        { h + "kernel\n", 2, "missing kernel name" },
        { h + "kernel abcdefghijabcdefghijabcdefghijXY blocks=1 threads=1\n", 2, "longer than 31" },
        { k + "compute 12a\n", 4, "bad instruction count '12a'" },
        { k + "st log\n", 4, "missing operand (usage: st [log] ADDR" },
        { k + "st log 0x10 4 5\n", 4, "expected '=' before the values" },
        { k + "compute 99999999999999999999\n", 4, "out of range" },
        // issue 27 item 2: 2^64 - 1 instructions took no time on the cpu system (the time wrapped)
        { k + "compute 18446744073709551615\n", 4, "too large (at most 2^40" },
        { k + "compute 1099511627777\n", 4, "too large" },
        { k + "compute 0x\n", 4, "bad instruction count" },
        { k + "compute -1\n", 4, "bad instruction count" },
        { k + "ld 0xZZ 4\n", 4, "bad address '0xZZ'" },
        { k + "ld 0x10\n", 4, "missing operand (usage: ld ADDR SHAPE)" },
        { k + "ld 0x10 4 junk\n", 4, "unexpected 'junk'" },
        { k + "order now\n", 4, "unexpected 'now'" },
        { k + "warp 0 1 2\n", 4, "unexpected '2'" },
        { k + "ld 0x0 3\n", 4, "element size 3" },
        { k + "ld 0x0 4x33\n", 4, "lane count 33" },
        { k + "ld 0x0 4x0\n", 4, "lane count 0" },
        { k + "ld 0x0 4x2+2\n", 4, "stride 2 in '4x2+2' is smaller" },
        { k + "ld 0x0 4y2\n", 4, "bad lane shape '4y2'" },
        { k + "ld 0x0 4x\n", 4, "bad lane shape" },
        { k + "ld 0xffffffffffffffff 4\n", 4, "wraps around" },
        { k + "st 0x0 4x4 = 1 2 3\n", 4, "3 values for 4 lanes" },
        { k + "st 0x0 4x2 = 1 2 3\n", 4, "3 values for 2 lanes" },
        { k + "st 0x0 4x2 =\n", 4, "0 values for 2 lanes" },
        { k + "st 0x0 4x2 1 2\n", 4, "expected '=' before the values, found '1'" },
        { k + "st 0x0 4x2\n", 4, "missing '= VALUE" },
        { k + "st 0x0 1 = 256\n", 4, "value 256 does not fit in 1 bytes" },
        { k + "st 0x0 2x2 = 1 0x10000\n", 4, "value 0x10000 does not fit in 2 bytes" },
        { k + "release 0x100 4 1 warp\n", 4, "bad scope 'warp' for release" },
        { k + "acquire 0x100 4 1 galaxy\n", 4, "bad scope 'galaxy' for acquire" },
        { k + "release 0x100 4 1 grid\n", 4, "bad scope 'grid' for release" },
        { k + "sync system\n", 4, "bad scope 'system' for sync (expected block or device)" },
        { k + "sync warp\n", 4, "bad scope 'warp' for sync" },
        { k + "pbarrier system\n", 4, "bad scope 'system' for pbarrier" },
        { k + "sync\n", 4, "missing operand (usage: sync SCOPE)" },
        { k + "release 0x100 2 1 block\n", 4, "flag size 2 (must be 4 or 8)" },
        { k + "release 0x102 4 1 block\n", 4, "not aligned to 4 bytes" },
        { k + "acquire 0x100 4 0x100000000 block\n", 4, "does not fit in 4 bytes" },
        { k + "order\norder\n3: durable\n2: durable\n", 7, "duplicate op id 2 (first used at line 5)" },
        { k + "0: order\n", 4, "op id 0 out of range" },
        { k + "4294967295: order\n", 4, "op id 4294967295 out of range" },
        { k + "x1: order\n", 4, "bad op id 'x1'" },
        { k + "7:\n", 4, "op id 7 without an op" },
        { k + "1: order\nrequire 1 9\n3: order\n", 5, "require names unknown op id 9" },
        { k + "require 5 2\n5: order\n", 4, "require names unknown op id 2" },
        { k + "require 0 1\n", 4, "op id 0 out of range" },
        { k + "require 1\n", 4, "missing operand" },
        { h + "data 0x0 " + std::string(258, 'a') + "\n", 2, "data of 129 bytes is longer than 128 bytes" },
        { h + "data 0x0 abc\n", 2, "odd number of hex digits (3)" },
        { h + "data 0x0 0g\n", 2, "bad hex digit 'g'" },
        { h + "expect 0x0 zz\n", 2, "bad hex digit 'z'" },
        { h + "data 0x0\n", 2, "missing operand (usage: data ADDR HEXBYTES)" },
        { h + "data 0x0 00 11\n", 2, "unexpected '11'" },
        { h + "data 0xffffffffffffffff 0000\n", 2, "wraps around" },
    };
    for (const Bad &c : cases) {
        Data d;
        char err[512] = "";
        int rc = trace_read_string("bad.trace", c.text.c_str(), &d.t, err, sizeof err);
        std::string prefix = "bad.trace:" + std::to_string(c.line) + ": ";
        EXPECT_EQ(rc, -1) << c.text;
        EXPECT_EQ(std::string(err).rfind(prefix, 0), 0u) << "want " << prefix << "\ngot  " << err << "\n" << c.text;
        EXPECT_NE(std::string(err).find(c.what), std::string::npos) << "want '" << c.what << "'\ngot  " << err;
        EXPECT_EQ(d.t.prog, nullptr);
        EXPECT_EQ(d.t.init, nullptr);
    }
}

TEST(TraceErrors, FileErrorsNameThePath)
{
    std::string path = temp_path("bad");
    {
        std::ofstream f(path);
        f << "persim-trace 1\n# comment\nkernel k blocks=1 threads=32\nwarp 0 0\nst 0x0 4x2 = 1 2 3\n";
    }
    Data d;
    char err[512];
    ASSERT_EQ(trace_read_file(path.c_str(), &d.t, err, sizeof err), -1);
    EXPECT_EQ(std::string(err).rfind(path + ":5: st: 3 values for 2 lanes", 0), 0u) << err;
    std::remove(path.c_str());
    ASSERT_EQ(trace_read_file(path.c_str(), &d.t, err, sizeof err), -1);
    EXPECT_EQ(std::string(err).rfind(path + ": cannot open", 0), 0u) << err;
    // a directory: the reason, not a bare "read error"
    ASSERT_EQ(trace_read_file("/tmp", &d.t, err, sizeof err), -1);
    EXPECT_STREQ(err, "/tmp: read error: Is a directory");
    // small error buffers are truncated, not overrun
    char tiny[8];
    EXPECT_EQ(trace_read_string("x", "nope", &d.t, tiny, sizeof tiny), -1);
    EXPECT_STREQ(tiny, "x:1: mi");
}

// A trace written to "x.zst" is a zstd frame (magic 28 B5 2F FD), smaller than half its
// text, and reads back to the same program and image; a text trace longer than the reader's 1 MiB
// chunk (lines split across chunks) reads the same as its compressed twin.
TEST(Trace, ZstdRoundTripAndChunkedReading)
{
    persim_prog *p = prog_new();
    prog_kernel(p, "big", 2, 64);
    for (uint32_t b = 0; b < 2; b++)
        for (uint32_t w = 0; w < 2; w++) {
            prog_warp(p, b, w);
            for (uint32_t i = 0; i < 20000; i++) {   // ~40k lines per warp: > 1 MiB of text in all
                op_st_bcast(p, PERSIM_PM_BASE + 8ull * (i + 100000ull * (2 * b + w)), 8, 1, 8, i * 7 + w);
                if (i % 3 == 0) op_compute(p, i % 11 + 1);
                if (i % 97 == 0) op_order(p);
            }
        }
    mem_image *init = mem_new();
    mem_write_u32(init, PERSIM_PM_BASE + 64, 0xDEADBEEFu);
    char err[512] = "";
    std::string txt = temp_path("big"), zst = temp_path("big") + ".zst";
    ASSERT_EQ(trace_write_file(txt.c_str(), p, init, nullptr, 0, "plain", err, sizeof err), 0) << err;
    ASSERT_EQ(trace_write_file(zst.c_str(), p, init, nullptr, 0, "plain", err, sizeof err), 0) << err;
    const std::string t = slurp(txt), z = slurp(zst);
    ASSERT_GT(t.size(), (size_t)(2u << 20));
    ASSERT_GE(z.size(), 4u);
    EXPECT_EQ((unsigned char)z[0], 0x28u);
    EXPECT_EQ((unsigned char)z[3], 0xFDu);
    EXPECT_LT(z.size() * 2, t.size()) << "compressed " << z.size() << " B, text " << t.size() << " B";
    for (const std::string *path : {&txt, &zst}) {
        Data d;
        ASSERT_EQ(trace_read_file(path->c_str(), &d.t, err, sizeof err), 0) << *path << ": " << err;
        expect_same_prog(p, d.t.prog, false);
        EXPECT_EQ(mem_read_u32(d.t.init, PERSIM_PM_BASE + 64), 0xDEADBEEFu);
    }
    // a compressed trace cut short is an error naming the file, not a shorter program
    std::string cut = temp_path("cut");
    {
        std::ofstream f(cut, std::ios::binary);
        f.write(z.data(), (std::streamsize)(z.size() / 2));
    }
    Data d;
    ASSERT_EQ(trace_read_file(cut.c_str(), &d.t, err, sizeof err), -1);
    EXPECT_EQ(std::string(err).rfind(cut + ":", 0), 0u) << err;
    EXPECT_EQ(d.t.prog, nullptr);
    for (const std::string &f : {txt, zst, cut}) std::remove(f.c_str());
    prog_free(p);
    mem_free(init);
}

TEST(TraceErrors, WriterRejectsInvalidPrograms)
{
    persim_prog *p = prog_new();
    prog_kernel(p, "k", 1, 32);
    prog_warp(p, 0, 0);
    op_ld(p, 0, 3, 1, 3);
    char err[256];
    std::string path = temp_path("invalid");
    EXPECT_EQ(trace_write_file(path.c_str(), p, nullptr, nullptr, 0, nullptr, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("element size 3"), std::string::npos) << err;
    EXPECT_NE(access(path.c_str(), F_OK), 0);           // nothing created for an invalid program
    p->ops[0].elem = 4;
    p->ops[0].stride = 4;
    EXPECT_EQ(trace_write_file("/nonexistent-dir/x.trace", p, nullptr, nullptr, 0, nullptr, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("/nonexistent-dir/x.trace: cannot create"), std::string::npos) << err;
    std::remove(path.c_str());
    prog_free(p);
}
