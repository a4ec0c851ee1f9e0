// Fuzz target `accelsim`: the input is one Accel-Sim kernel trace (.traceg text, or xz-compressed),
// read by accelsim_read_kernel_file (docs/trace-format-accelsim.md). A bad file must give -1 and a
// message; a good one must lower to a program prog_validate accepts.
#include "fuzz_util.h"

#include <cstdio>
#include <cstdlib>
extern "C" {
#include "accelsim.h"
#include "op.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    persim_fuzz::MemFile f(data, size);
    accelsim_opts o;
    accelsim_default_opts(&o);
    o.sys_pm_base = 0x10000000000ull;
    persim_prog *p = prog_new();
    if (!p) return 0;
    char err[512];
    err[0] = '\0';
    if (accelsim_read_kernel_file(f.path().c_str(), &o, p, nullptr, err, sizeof err) != 0) {
        if (err[0] == '\0') {
            std::fprintf(stderr, "accelsim_read_kernel_file failed without a message\n");
            std::abort();
        }
    } else if (prog_validate(p, err, sizeof err) != 0) {
        std::fprintf(stderr, "accepted trace lowered to an invalid program: %s\n", err);
        std::abort();
    }
    prog_free(p);
    return 0;
}
