/* persim: reader of Accel-Sim's NVBit-based GPU traces (docs/trace-format-accelsim.md).
 *
 * Accel-Sim's tracer (util/tracer_nvbit) writes, per CUDA application, a `kernelslist.g` that
 * names one `kernel-N.traceg` (or `.traceg.xz`) file per kernel launch, in launch order, between
 * `MemcpyHtoD,ADDR,BYTES` lines. A .traceg file has `-key = value` header lines (grid and block
 * dimensions, tracer version, ...) and then, per thread block, `#BEGIN_TB`, `thread block = x,y,z`,
 * per warp `warp = W` and `insts = N` followed by N instruction lines
 * `PC MASK DEST_NUM [DESTS] OPCODE SRC_NUM [SRCS] MEM_WIDTH [MODE ADDRESSES] [IMM]`, and `#END_TB`.
 *
 * The reader lowers every kernel to a persim kernel (workloads/op.h): global loads and stores
 * become `ld`/`st` (PM when the trace address lies in the configured PM range, else volatile),
 * MEMBAR becomes a persist barrier at the fence's scope (or `order`), atomics become
 * release/acquire on the atomic's address at the atomic's scope, BAR.SYNC an execution barrier of
 * the block, everything else compute time. Traces hold no values: stores write a fixed pattern, and
 * a run is checked for timing and persist order only (no recovery, no functional verification).
 *
 * C11, no globals; reads files only in accelsim_read_file (the buffer parsers do no I/O except
 * accelsim_parse_kernelslist, which opens the kernel files it names). */
#ifndef PERSIM_ACCELSIM_H
#define PERSIM_ACCELSIM_H
#include <stddef.h>
#include <stdint.h>
#include "op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum accelsim_fence {
    ACCELSIM_FENCE_SCOPED = 0,  /* MEMBAR.CTA -> pbarrier block, MEMBAR.GPU/GL/SYS -> pbarrier device */
    ACCELSIM_FENCE_ORDER  = 1   /* every MEMBAR -> order (no execution barrier, no residency need) */
} accelsim_fence;

typedef struct accelsim_opts {
    uint64_t pm_lo;        /* accelsim.pm_base: first trace address that is persistent memory */
    uint64_t pm_bytes;     /* accelsim.pm_bytes: size of the PM range; 0 = up to the top of memory */
    uint64_t sys_pm_base;  /* system.pm_base: where persim's PM starts (PM addresses move there) */
    int      fence;        /* accelsim_fence */
} accelsim_opts;

/* What the lowering did (for messages and tests). */
typedef struct accelsim_counts {
    uint64_t kernels, blocks, warps, insts;      /* instruction lines read */
    uint64_t pm_loads, pm_stores, vol_loads, vol_stores;   /* warp instructions */
    uint64_t atomics, fences, barriers, barriers_dropped, shared, memcpys;
} accelsim_counts;

/* Default options: PM = every global address (pm_lo 0, pm_bytes 0), scoped fences. */
void accelsim_default_opts(accelsim_opts *o);

/* Parses one kernel's .traceg text (buf, len bytes; need not be NUL-terminated) and appends it to
 * p as one kernel. name stands for the file in messages. 0 on success; -1 with err =
 * "NAME:LINE: message" on malformed input (p may then hold a partial kernel: free it). counts may
 * be NULL. Never aborts on any input (fuzz target). */
int accelsim_parse_kernel(const char *name, const char *buf, size_t len, const accelsim_opts *o,
                          persim_prog *p, accelsim_counts *counts, char *err, size_t errlen);

/* Parses a kernelslist.g text: every `kernel...` line names a kernel file relative to dir, read
 * with accelsim_read_kernel_file; `Memcpy...` lines are counted and skipped (no values). */
int accelsim_parse_kernelslist(const char *name, const char *buf, size_t len, const char *dir,
                               const accelsim_opts *o, persim_prog *p, accelsim_counts *counts,
                               char *err, size_t errlen);

/* Reads one kernel file (plain text, or xz-compressed: recognised by its magic number). */
int accelsim_read_kernel_file(const char *path, const accelsim_opts *o, persim_prog *p,
                              accelsim_counts *counts, char *err, size_t errlen);

/* Reads PATH: a kernelslist (any name ending in ".g", or whose first line is a `kernel-`/`Memcpy`
 * line) or a single kernel file (.traceg, .traceg.xz). *out is a new program (NULL on error). */
int accelsim_read_file(const char *path, const accelsim_opts *o, persim_prog **out,
                       accelsim_counts *counts, char *err, size_t errlen);

/* 1 if PATH looks like an Accel-Sim trace (by name: *.g, *.traceg, *.traceg.xz, kernelslist*;
 * else by its first bytes: an xz magic number, `-kernel name`, `MemcpyHtoD,`, `kernel-`). */
int accelsim_path_is_trace(const char *path);

#ifdef __cplusplus
}
#endif
#endif
