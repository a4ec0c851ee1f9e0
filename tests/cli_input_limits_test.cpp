// Parser defects found by issue 27 and the fuzz harnesses (fuzz/, docs/testing.md "Fuzzing"): each
// case failed before its fix. Config values out of an integer's range, deeply nested and oversized
// config files, directories given as input files.
#include <gtest/gtest.h>
#include <string>

#include "cli_util.h"

using namespace cli_util;

namespace {
// "ulimit -v KB; " to bound the memory of the command, except under AddressSanitizer, which
// reserves terabytes of shadow address space at start and cannot run under a virtual-memory limit
// (there the messages are still checked; the memory bound is checked by the plain build).
std::string mem_cap(const char *kb)
{
#if defined(__SANITIZE_ADDRESS__)
    (void)kb;
    return "";
#else
    return std::string("ulimit -v ") + kb + "; ";
#endif
}
} // namespace

// Issue 27 item 10: 1e20 for an integer key was cast to int64 (undefined; the message showed
// -9223372036854775808). The message gives the value as written.
TEST(CliInputLimits, IntegerKeyOutOfRangeShowsTheText)
{
    for (const char *v : {"1e20", "-1e300", "18446744073709551615", "0x1ffffffffffffffff", "9223372036854775808"}) {
        Out o = sh(std::string("config diff --set cpu.cores=") + v);
        EXPECT_EQ(o.code, 1) << v << "\n" << o.text;
        EXPECT_NE(o.text.find(std::string("key 'cpu.cores': value ") + v + " out of range"), std::string::npos) << o.text;
        EXPECT_EQ(o.text.find("-9223372036854775808"), std::string::npos) << o.text;
    }
    // in a config file as well
    const std::string d = tmpdir("intrange");
    Out o = sh("config diff --config " + write(d, "c.json", "{\"cpu\": {\"cores\": 1e20}}"));
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find("key 'cpu.cores': value 1e+20 out of range"), std::string::npos) << o.text;
    // a value in range written as a float still works
    o = sh("config diff --set cpu.cores=2.0");
    EXPECT_EQ(o.code, 0) << o.text;
}

// Issue 27 item 11: a config nested 100,000 levels deep took memory quadratic in the depth and
// ended in std::bad_alloc. Now a message naming the file, in bounded memory (ulimit -v 1 GB).
TEST(CliInputLimits, DeeplyNestedConfigIsRefused)
{
    const std::string d = tmpdir("deep");
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
    deep += "1";
    deep += std::string(100000, '}');
    const std::string f = write(d, "deep.json", deep);
    Out o = sh_cmd(mem_cap("1000000") + std::string(PERSIM_BIN) + " config diff --config " + f + " 2>&1");
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find(f + ": objects or arrays nested deeper than 32 levels"), std::string::npos) << o.text.substr(0, 500);
    EXPECT_EQ(o.text.find("internal error"), std::string::npos) << o.text.substr(0, 500);
    // nested arrays too, and in a --set value
    std::string arr = std::string(10000, '[') + std::string(10000, ']');
    o = sh_cmd(mem_cap("1000000") + std::string(PERSIM_BIN) + " config diff --set 'cpu.cores=" + arr + "' 2>&1");
    EXPECT_EQ(o.code, 1) << o.text.substr(0, 500);
    EXPECT_NE(o.text.find("cpu.cores: value nested deeper than 32 levels"), std::string::npos) << o.text.substr(0, 500);
    // 30 levels of objects are still a config (the unknown key is the error)
    std::string ok;
    for (int i = 0; i < 30; ++i) ok += "{\"a\":";
    ok += "1" + std::string(30, '}');
    o = sh("config diff --config " + write(d, "ok.json", ok));
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find("unknown config key 'a.a.a."), std::string::npos) << o.text.substr(0, 500);
}

// A config file is at most 16 MiB (read no further: /dev/zero ended in bad_alloc); a directory is
// named as one.
TEST(CliInputLimits, OversizedOrDirectoryConfigIsRefused)
{
    Out o = sh_cmd(mem_cap("1000000") + std::string(PERSIM_BIN) + " config diff --config /dev/zero 2>&1");
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find("/dev/zero: config file larger than 16 MiB"), std::string::npos) << o.text;
    const std::string d = tmpdir("dir");
    o = sh("config diff --config " + d);
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find(d + ": is a directory, not a config file"), std::string::npos) << o.text;
}

// A sweep spec nested 100,000 levels deep overflowed the stack (segfault) in the message's dump; a
// spec whose lists multiply to 10^6 points was expanded whole. Both are refused up front.
TEST(CliInputLimits, DeepOrHugeSweepSpecIsRefused)
{
    const std::string d = tmpdir("sweep");
    const std::string deep = write(d, "deep.json", "{\"out\": \"o\", \"models\": [" + std::string(100000, '[') +
                                                       std::string(100000, ']') + "]}");
    Out o = sh("sweep " + deep + " --dry-run");
    EXPECT_EQ(o.code, 1) << o.text.substr(0, 500);
    EXPECT_NE(o.text.find(deep + ": objects or arrays nested deeper than 32 levels"), std::string::npos) << o.text.substr(0, 500);
    std::string ten = "[1,2,3,4,5,6,7,8,9,10]";
    const std::string huge = write(d, "huge.json", "{\"out\": \"" + d + "/o\", \"models\": [\"sbrp\"], \"workloads\": [\"scan\"], "
                                   "\"sizes\": " + ten + ", \"seeds\": " + ten + ", \"set\": {\"persist.window\": " + ten +
                                   ", \"nvm.controllers\": [1, 2, 3, 4, 5, 6, 7, 8], \"sim.progress_ms\": " + ten + ", "
                                   "\"sim.max_time_ms\": " + ten + "}}");
    o = sh_cmd(mem_cap("2000000") + "timeout 60 " + std::string(PERSIM_BIN) + " sweep " + huge + " --dry-run 2>&1");
    EXPECT_EQ(o.code, 1) << o.text.substr(0, 500);
    EXPECT_NE(o.text.find(huge + ": the cross product has 800000 points before 'exclude' (at most 100000"), std::string::npos)
        << o.text.substr(0, 500);
}

// Found by fuzz/fuzz_set.cpp: a string value that is not UTF-8 (`--set system.name=<0xff>`) was
// accepted and the run ended in "internal error: [json.exception.type_error.316] invalid UTF-8
// byte" when it wrote config.json (exit 2). Now the --set is refused.
TEST(CliInputLimits, NonUtf8StringValueIsRefused)
{
    Out o = sh("config diff --set \"system.name=$(printf 'a\\377')\"");
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find("key 'system.name': value \"a\xEF\xBF\xBD\" is not valid UTF-8 text"), std::string::npos) << o.text;
    EXPECT_EQ(o.text.find("internal error"), std::string::npos) << o.text;
}

// Found by fuzz/fuzz_sweep.cpp: a number too large for a double (1e99999) is not a parse_error but
// out_of_range.406 in nlohmann::json: a config ended in "internal error" (exit 2), a sweep spec in
// an uncaught exception. Both are "invalid JSON" naming the file, exit 1.
TEST(CliInputLimits, NumberOverflowIsInvalidJson)
{
    const std::string d = tmpdir("ovf");
    const std::string cfg = write(d, "ovf.json", "{\"cpu\": {\"cores\": 1e99999}}");
    Out o = sh("config diff --config " + cfg);
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find(cfg + ": invalid JSON: [json.exception.out_of_range.406] number overflow parsing '1e99999'"),
              std::string::npos) << o.text;
    const std::string spec = write(d, "spec.json", "{\"out\": \"o\", \"models\": [1e99999]}");
    o = sh("sweep " + spec + " --dry-run");
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find(spec + ": invalid JSON: [json.exception.out_of_range.406] number overflow"), std::string::npos) << o.text;
}
