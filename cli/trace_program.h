// `persim trace-program [options] -- CMD ARGS`: runs a program under the persim-vgtrace Valgrind
// tool (persim-vgtrace/) and converts its raw events (persim-vgtrace/pt_format.h) into a persim
// trace for the cpu system (docs/real-programs.md).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
extern "C" {
#include "op.h"
}

namespace persim {

struct VgConvertOptions {
    uint64_t pm_base = 0x10000000000ull;  // addresses map to pm_base + (addr & 0xFFFFFFFFFF)
    bool all_marks = false;               // keep every call/ret/loop marker (default: only those
                                          // with a PM store since the thread's previous marker)
    unsigned max_threads = 32;            // a trace holds at most 32 CPU threads (1024 / 32)
    bool progress = false;                // progress lines on stderr
};

struct VgConvertStats {
    uint64_t records = 0, guest_instrs = 0, threads = 0;
    uint64_t ld = 0, st = 0, st_nt = 0, compute_ops = 0, compute_instrs = 0;
    uint64_t cas = 0, cas_fail = 0, llsc = 0, sync_stores = 0, sync_words = 0;
    uint64_t mfence = 0, sfence = 0, lfence = 0, other_fence = 0;
    uint64_t clflush = 0, clflushopt = 0, clwb = 0;
    uint64_t durable = 0, order = 0, acquire = 0, release = 0;
    uint64_t marks = 0, marks_dropped = 0;
    uint64_t pm_ranges = 0, pm_bytes_in_ranges = 0;
    uint64_t footprint_lines = 0, footprint_store_lines = 0;   // distinct 64-byte lines
    uint64_t windows = 0;                                      // START records
};

// Converts the raw file at `raw` into a new program (kernel main, one stream per guest thread in
// order of first appearance). Returns the program, or nullptr with err = "FILE: record N (byte
// B): message" for a bad or truncated raw file.
persim_prog *vg_convert(const std::string &raw, const VgConvertOptions &o, VgConvertStats &s, std::string &err);
// Prints the raw events as text, one per line ("N tid KIND size=.. addr=0x.. val=.. gap=.."); 0, or
// -1 with err (the same checks as vg_convert).
int vg_dump_raw(const std::string &raw, FILE *out, std::string &err);
// The summary printed by trace-program.
std::string vg_summary(const VgConvertStats &s);

// argv[1] == "trace-program". Exit status: 0 ok, 1 bad option/input, 2 the tool is missing,
// 3 the traced program or valgrind failed.
int trace_program_main(int argc, char **argv);

} // namespace persim
