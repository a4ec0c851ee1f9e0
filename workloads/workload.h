/* persim: workload registry. A workload generates a program (per-warp op streams stating
 * ordering intent), the initial memory image it runs on, and verifies the final image with an
 * independent reference computation (sums, KVS contents, ...). Deterministic in (size, seed). */
#ifndef PERSIM_WORKLOAD_H
#define PERSIM_WORKLOAD_H
#include <stddef.h>
#include <stdint.h>
#include "op.h"
#include "../cores/mem_image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wl_params {
    uint64_t size;              /* workload size knob (meaning per workload, see size_desc) */
    uint64_t seed;              /* input data seed */
    uint32_t num_sms;           /* GPU SMs (for grid sizing) */
    uint32_t max_threads_per_block;
    uint64_t pm_base;           /* first PM address */
    uint64_t vol_base;          /* first volatile address */
    uint32_t max_warps_per_sm;  /* resident warps per SM (gpu.max_warps_per_sm; 0 = unknown) */
    uint32_t num_threads;       /* CPU systems: hardware threads (one op stream each); 0 on a GPU */
    uint32_t num_remote;        /* CPU systems: RDMA channels writing into this machine's PM (0 = none).
                                   A program's kernel has num_threads local streams followed by
                                   num_remote remote streams (docs/workloads-cpu.md, "BROI") */
    uint64_t btree_wgs_est;     /* btree-wg, btree-wg-log, btree-wg-wi-bug (workload.btree_wgs_est): Algorithm 2's
                                   n_wgs_est, which picks the depth d of its subtree phase (the shallowest
                                   level with at least this many nodes; one workgroup per node there);
                                   0 = the paper's rule, inserted keys / 256. Other workloads ignore it. */
} wl_params;

typedef struct persim_workload {
    const char *name;           /* CLI name, e.g. "gpkvs" */
    const char *desc;           /* one line */
    const char *size_desc;      /* what --size means, e.g. "key-value pairs inserted" */
    const char *pmo;            /* ordering used: "intra-thread", "block/device inter-thread", ... */
    const char *recovery;       /* "logging" or "native" (SBRP Table 2) */
    uint64_t    default_size;   /* size used when --size is not given */
    uint64_t    small_size;     /* size used by tests and the demo */
    /* Builds the program and the initial image; *ctx receives what verify needs. 0 or -1 (+err). */
    int  (*build)(const wl_params *prm, persim_prog *prog, mem_image *init, void **ctx,
                  char *err, size_t errlen);
    /* Checks the final memory image; 0 = correct, else -1 with a message naming what differs. */
    int  (*verify)(const void *ctx, const mem_image *final_image, char *msg, size_t msglen);
    void (*free_ctx)(void *ctx);
    /* Crash recovery (persim crash, docs/checking.md; optional). `durable` is the crash image: the
     * initial image (the inputs the host reloads, the initial PM contents) with every write that
     * was durable at the crash applied; volatile data written by the run is lost. Appends to `prog`
     * the recovery kernel(s) and the rest of the work, as the workload's recovery code would do
     * them reading only the persistent state and its inputs (undo-log replay or native resume,
     * SBRP Table 2); `img` (a copy of `durable`) is what func_exec then runs the program on. 0, or
     * -1 with a message if the state cannot be recovered. The recovery kernels proper (those that
     * read the log or the progress markers and restore a consistent state: wl_emit_recovery) come
     * first and have WL_RECOVERY_TAG in their names; the kernels of the resumed work follow and
     * must not (persim crash --time-recovery times the recovery kernels only). */
    int  (*recover)(const void *ctx, const mem_image *durable, persim_prog *prog, mem_image *img,
                    char *err, size_t errlen);
    /* Checks a recovered final image (optional; default verify): the persistent state only, for a
     * workload whose verify also checks volatile outputs that a crash loses. */
    int  (*verify_recovered)(const void *ctx, const mem_image *final_image, char *msg, size_t msglen);
} persim_workload;

/* ---- registration (docs/architecture.md "Registration") ----
 * A generator registers each workload it defines with one line in its own file, after the definition:
 *     const persim_workload wl_gpkvs_workload = { .name = "gpkvs", ... };
 *     PERSIM_WORKLOAD(wl_gpkvs_workload, WL_GPU, 10);
 * `group` picks the list it is in (below); `order` its position there (ties: by name). No central
 * table names it: the function PERSIM_WORKLOAD defines runs before main (a constructor), and the
 * workload library is linked whole-archive (CMakeLists.txt) so the linker keeps every generator. */
typedef enum wl_group {
    WL_GPU,          /* wl_all(): the GPU workloads */
    WL_VARIANT,      /* wl_variants(): deliberately buggy variants */
    WL_CPU,          /* wl_cpu_all(): CPU programs and profiles */
    WL_AGPM,         /* wl_agpm_all(): the AGPM kernels with undo logging */
    WL_AGPM_NOLOG,   /* wl_agpm_nolog_all(): the same kernels without logging */
    WL_NGROUPS
} wl_group;
/* Adds w to group g at position `order`; a name registered twice aborts with a message. */
void wl_register(const persim_workload *w, wl_group g, int order);
#define PERSIM_WORKLOAD(wl, group, order)                                                        \
    extern const persim_workload wl;                                                             \
    __attribute__((constructor)) static void persim_wl_register_##wl(void)                       \
    { wl_register(&(wl), (group), (order)); }                                                    \
    extern const persim_workload wl

/* Finds a workload or a variant by name. */
const persim_workload *wl_find(const char *name);
/* All registered workloads, NULL-terminated, in a fixed order (the six SBRP applications, then
 * the scoped-persist-barrier ones: btree-kr, btree-wg, hashtable-wi, btree-kr-log, btree-wg-log). */
const persim_workload *const *wl_all(void);
/* Variants of them with deliberate persistency bugs (e.g. "reduction-blkscope-bug", SBRP section
 * 5.3), NULL-terminated. wl_find finds them too. */
const persim_workload *const *wl_variants(void);
/* The CPU workloads and profiles (docs/workloads-cpu.md), NULL-terminated, in a fixed order: the
 * multi-threaded kernels (cpu-queue, ...) then the benchmark-class profiles (prof-...). They need
 * wl_params.num_threads > 0 (a CPU system) and refuse to build otherwise. wl_find finds them too;
 * they are not in wl_all() (the GPU workloads). */
const persim_workload *const *wl_cpu_all(void);
/* The AGPM paper's 22 GPU kernels with CTA-level undo logging (docs/workloads-agpm.md, names
 * "agpm-<kernel>"), NULL-terminated; and the same kernels without logging ("agpm-<kernel>-nolog",
 * the baseline the paper normalises to). GPU programs, not in wl_all(); wl_find finds them. */
const persim_workload *const *wl_agpm_all(void);
const persim_workload *const *wl_agpm_nolog_all(void);

/* ---- helpers for generators (workloads/wl_util.c) ---- */
typedef struct wl_rng { uint64_t s; } wl_rng;           /* splitmix64 */
void     wl_rng_seed(wl_rng *r, uint64_t seed);
uint64_t wl_rng_next(wl_rng *r);
uint64_t wl_rng_below(wl_rng *r, uint64_t n);           /* uniform in [0, n) */

typedef struct wl_alloc { uint64_t pm_next, vol_next; } wl_alloc;   /* bump allocator */
void     wl_alloc_init(wl_alloc *a, const wl_params *prm);
uint64_t wl_alloc_pm(wl_alloc *a, uint64_t bytes);      /* 128-byte aligned */
uint64_t wl_alloc_vol(wl_alloc *a, uint64_t bytes);

/* ---- helpers for recovery procedures ---- */
typedef struct wl_range { uint64_t addr, len; } wl_range;
/* Appends to the open warp stream the stores that turn `from` into `to` on the given ranges
 * (4-byte words; ranges 4-byte aligned): one st op per run of up to 32 differing words.
 * Returns the number of ops appended. */
uint64_t wl_emit_diff(persim_prog *p, const mem_image *from, const mem_image *to,
                      const wl_range *r, size_t nr);
/* A phase of recovery or resumed work as a parallel GPU kernel: the stores of wl_emit_diff dealt
 * round-robin to the warps of several blocks (4 per warp, 8 warps per block), then DURABLE in
 * every warp. 0, or -1 when out of memory. */
int      wl_emit_phase(persim_prog *p, const char *kernel, const mem_image *from, const mem_image *to,
                       const wl_range *r, size_t nr);
/* The recovery kernels of an undo log or of a native resume (SBRP section 7.3): kernel `kernel`
 * (its name must contain WL_RECOVERY_TAG) whose warps first load `reads` (the log entries and
 * progress markers recovery reads from PM; one warp-wide load per 128-byte piece), then store the
 * diff from -> restored on `r`, then DURABLE (each model lowers it: epoch barrier, dFence, ...);
 * then, if `cleared` is not NULL, kernel "<kernel>_clear" storing the diff restored -> cleared
 * (the log clear), DURABLE. Loads and stores are dealt round-robin to the warps of several
 * blocks as in wl_emit_phase. 0, or -1 when out of memory. */
int      wl_emit_recovery(persim_prog *p, const char *kernel, const wl_range *reads, size_t nreads,
                          const mem_image *from, const mem_image *restored, const mem_image *cleared,
                          const wl_range *r, size_t nr);
/* Recovery kernels are told from the resumed rest of the work by name: a kernel whose name
 * contains WL_RECOVERY_TAG is a recovery kernel. `persim crash --time-recovery` times exactly
 * those (docs/checking.md); the recover hook appends them before any other kernel. */
#define WL_RECOVERY_TAG "recover"
int      wl_is_recovery_kernel(const char *name);

/* printf into err (if err && n) and return -1: the error convention of build/verify. */
int      wl_err(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
