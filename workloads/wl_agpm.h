/* persim: the AGPM paper's 22 GPU kernels (docs/workloads-agpm.md), each wrapped in CTA-level
 * undo logging (Lin et al. PACT'19, as the AGPM paper's section II and V-A describe it):
 * per CTA, every warp reads the old values of the outputs it will write and writes them to the
 * CTA's log (STC_LOG stores), DURABLE, block barrier; warp 0 sets the CTA's flag to "in
 * transaction" (1), DURABLE, block barrier; the body (loads, compute, output stores), DURABLE,
 * block barrier; warp 0 sets the flag to "complete" (2), DURABLE.
 *
 * A kernel is written once, as a generator over its loop nest (a `gen` function) that issues
 * warp-wide ops through an emitter (ag_em) and computes the stored values from a model image of
 * memory; the emitter adds the logging around each CTA. The same generator, run on a recovered
 * image, redoes the incomplete CTAs (the recover hook). `check` is an independent reference
 * computation (plain loop nests on the host copies of the inputs).
 *
 * Internal header of workloads/wl_agpm_*.c. */
#ifndef PERSIM_WL_AGPM_H
#define PERSIM_WL_AGPM_H
#include "workload.h"

/* The kernels (symbols of AG_WORKLOAD), in the order of the paper's Table II: the listing order of
 * wl_agpm_all() / wl_agpm_nolog_all() (AG_WORKLOAD registers each kernel at its position here). */
#define AG_KERNELS(X)                                                                                \
    X(sad1) X(stencil1) X(sgemm) X(grid1) X(grid2) X(conv2d) X(bp1) X(bp2) X(pf) X(triad) X(ra) X(atax1) \
    X(atax2) X(nw) X(bfs) X(sssp1) X(sssp2) X(mvt1) X(gesummv) X(mm2) X(mm3) X(gemm)
#define AG_POS(s) AG_POS_##s,
enum { AG_KERNELS(AG_POS) AG_NKERNELS };

#define AG_MAXA 10          /* arrays per kernel */
#define AG_FLAG_INTX 1u
#define AG_FLAG_DONE 2u

typedef struct ag_ctx ag_ctx;
typedef struct ag_em ag_em;

typedef struct ag_def {
    const char *id;          /* workload name without "agpm-" */
    uint64_t    min_size, max_size;
    /* allocate the arrays (ag_array), fill the inputs, set c->p[]; 0 or -1 (+err) */
    int  (*setup)(ag_ctx *c, char *err, size_t errlen);
    /* issue the kernels (ag_kernel, ag_cta, ag_warp, ag_ld, ag_st, ag_comp, ag_sync, ag_cta_end) */
    void (*gen)(ag_ctx *c, ag_em *e);
    /* reference computation on the host copies; 0 or -1 with a message naming what differs */
    int  (*check)(const ag_ctx *c, const mem_image *img, char *msg, size_t msglen);
} ag_def;

typedef struct ag_ctarec { uint64_t flag, log, lw0; uint32_t nlw; } ag_ctarec;

struct ag_ctx {
    const ag_def *def;
    int       logging;       /* 0: the plain kernel (no log, no flag, no DURABLE) */
    uint64_t  n;             /* size */
    uint64_t  seed;
    uint32_t  tpb;           /* max threads per block of the target */
    int64_t   p[8];          /* kernel parameters (set by setup) */
    uint64_t  addr[AG_MAXA], len[AG_MAXA];   /* arrays: base address, words (4 B) */
    uint32_t *h[AG_MAXA];    /* initial contents (host copy) */
    int       pm[AG_MAXA];
    int       na;
    wl_alloc  al;
    wl_rng    rng;
    ag_ctarec *cta;  uint64_t ncta; size_t capcta; /* every CTA of every kernel, in order */
    uint64_t *logw;  uint64_t nlogw; size_t caplogw; /* output address of each log word */
};

/* ---- setup helpers ---- */
/* A new array of `words` 4-byte words, in PM (pm=1) or volatile memory; filled with values in
 * [0, maxval) (maxval 0: zeros) and written to the initial image. Returns its slot, or -1. */
int      ag_array(ag_ctx *c, uint64_t words, int pm, uint32_t maxval);
/* Sets word i of array s (initial contents and host copy); call before ag_commit. */
void     ag_set(ag_ctx *c, int s, uint64_t i, uint32_t v);
static inline uint64_t ag_at(const ag_ctx *c, int s, uint64_t i) { return c->addr[s] + 4 * i; }
/* threads per block: want, capped by the target, a multiple of 32 (>= 32) */
uint32_t ag_tpb(const ag_ctx *c, uint32_t want);

/* ---- the emitter (gen) ---- */
void     ag_kernel(ag_em *e, const char *name, uint32_t nblocks, uint32_t threads_per_block);
int      ag_cta(ag_em *e, uint32_t block);          /* 1: generate this CTA (else skip to the next) */
void     ag_warp(ag_em *e, uint32_t warp);
void     ag_ld(ag_em *e, uint64_t addr, uint32_t nlanes, uint32_t stride);
void     ag_st(ag_em *e, uint64_t addr, uint32_t nlanes, uint32_t stride, const uint32_t *vals);
void     ag_comp(ag_em *e, uint64_t instructions);
void     ag_sync(ag_em *e);                          /* __syncthreads: call in every warp */
void     ag_cta_end(ag_em *e);
uint32_t ag_rd(const ag_em *e, uint64_t addr);       /* the model image (before this CTA's stores) */

/* ---- check helpers ---- */
/* Compares `words` words of array s from word `from` on with want[]; 0 or -1 (+msg). */
int      ag_cmp(const ag_ctx *c, const mem_image *img, int s, uint64_t from, const uint32_t *want,
                uint64_t words, const char *what, char *msg, size_t msglen);
/* The matrix-multiply kernels' host reference: array 2 must hold a * A.B + b * C0 (A = h[0],
 * B = h[1], C0 = h[2], all p[0] x p[0], row-major); 0 or -1 (+msg naming the first wrong word). */
int      ag_check_gemm(const ag_ctx *c, const mem_image *img, uint32_t a, uint32_t b, char *msg, size_t msglen);

/* The workload entries: wrapper build functions per kernel (logged and plain). */
int ag_build(const ag_def *d, int logging, const wl_params *prm, persim_prog *p, mem_image *init, void **ctx,
             char *err, size_t errlen);
int ag_verify(const void *ctx, const mem_image *img, char *msg, size_t msglen);
int ag_recover(const void *ctx, const mem_image *durable, persim_prog *p, mem_image *img, char *err, size_t errlen);
void ag_free(void *ctx);

/* Defines the kernel's ag_def and its two workloads, wl_agpm_<sym>_workload ("agpm-<nm>", logged,
 * recoverable) and wl_agpm_<sym>_nolog_workload ("agpm-<nm>-nolog", the plain kernel: the
 * baseline the paper normalises to), and registers both (groups WL_AGPM, WL_AGPM_NOLOG) at the
 * kernel's position in AG_KERNELS. */
#define AG_WORKLOAD(sym, nm, dsc, sdesc, dflt, small, minsz, maxsz, setupf, genf, checkf)               \
    PERSIM_WORKLOAD(wl_agpm_##sym##_workload, WL_AGPM, AG_POS_##sym);                                   \
    PERSIM_WORKLOAD(wl_agpm_##sym##_nolog_workload, WL_AGPM_NOLOG, AG_POS_##sym);                       \
    static const ag_def sym##_def = { nm, minsz, maxsz, setupf, genf, checkf };                          \
    static int sym##_b(const wl_params *prm, persim_prog *p, mem_image *in, void **x, char *e, size_t n) \
    { return ag_build(&sym##_def, 1, prm, p, in, x, e, n); }                                             \
    static int sym##_bn(const wl_params *prm, persim_prog *p, mem_image *in, void **x, char *e, size_t n)\
    { return ag_build(&sym##_def, 0, prm, p, in, x, e, n); }                                             \
    const persim_workload wl_agpm_##sym##_workload = {                                                   \
        .name = "agpm-" nm, .desc = dsc, .size_desc = sdesc, .pmo = "CTA undo log (durable)",            \
        .recovery = "logging", .default_size = dflt, .small_size = small, .build = sym##_b,              \
        .verify = ag_verify, .free_ctx = ag_free, .recover = ag_recover };                               \
    const persim_workload wl_agpm_##sym##_nolog_workload = {                                             \
        .name = "agpm-" nm "-nolog", .desc = dsc " (plain: no log, no flag, no DURABLE)",                \
        .size_desc = sdesc, .pmo = "none (no logging)", .recovery = "none", .default_size = dflt,        \
        .small_size = small, .build = sym##_bn, .verify = ag_verify, .free_ctx = ag_free }

#endif
