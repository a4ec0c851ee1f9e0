// Fuzz target `trace`: the input is a persim trace file, text or zstd-compressed
// (trace_read_file, docs/trace-format.md). A bad trace must give -1 and a "FILE:LINE: message";
// a good one is written back out (trace_write_stream, trace_write_expects) to /dev/null.
#include "fuzz_util.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
extern "C" {
#include "trace.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    persim_fuzz::MemFile f(data, size);
    trace_data t;
    std::memset(&t, 0, sizeof t);
    char err[512];
    err[0] = '\0';
    if (trace_read_file(f.path().c_str(), &t, err, sizeof err) != 0) {
        if (err[0] == '\0') {
            std::fprintf(stderr, "trace_read_file failed without a message\n");
            std::abort();
        }
        return 0;
    }
    FILE *out = std::fopen("/dev/null", "w");
    if (out) {
        trace_write_stream(out, t.prog, t.init, nullptr, 0, "fuzz");
        std::fclose(out);
    }
    trace_data_free(&t);
    return 0;
}
