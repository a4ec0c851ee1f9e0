// Fuzz target `raw`: the input is a persim-vgtrace raw event file (persim-vgtrace/pt_format.h),
// converted as `persim trace-program --from-raw` does (vg_convert) and dumped as `--dump-raw`
// does (vg_dump_raw). A bad file must give an error naming the file (and the record); a converted
// program is written out as a trace to /dev/null.
#include "fuzz_util.h"
#include "trace_program.h"

#include <cstdio>
#include <cstdlib>
extern "C" {
#include "trace.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    persim_fuzz::MemFile f(data, size);
    std::string err;
    FILE *null = std::fopen("/dev/null", "w");
    if (!null) std::abort();
    int dumped = persim::vg_dump_raw(f.path(), null, err);
    if (dumped != 0 && err.rfind(f.path(), 0) != 0) {
        std::fprintf(stderr, "vg_dump_raw: error does not name the file: %s\n", err.c_str());
        std::abort();
    }
    persim::VgConvertOptions o;
    persim::VgConvertStats s;
    err.clear();
    persim_prog *p = persim::vg_convert(f.path(), o, s, err);
    if (!p) {
        if (err.rfind(f.path(), 0) != 0) {
            std::fprintf(stderr, "vg_convert: error does not name the file: %s\n", err.c_str());
            std::abort();
        }
    } else {
        (void)persim::vg_summary(s);
        trace_write_stream(null, p, nullptr, nullptr, 0, "fuzz");
        prog_free(p);
    }
    std::fclose(null);
    return 0;
}
