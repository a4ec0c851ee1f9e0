/* persim workloads "prof-*": synthetic CPU access profiles that stand for the benchmark classes
 * LightWSP evaluates (section V-A: SPEC CPU2006/2017 single-threaded; NPB, SPLASH3, WHISPER
 * multi-threaded; STAMP is the kernel cpu-txbank). They are not the benchmarks: each is a loop
 * with a stated instruction count, load and store count, footprint and access-pattern mix per
 * iteration, with the structure markers a compiled loop nest would give LightWSP's region
 * formation (docs/workloads-cpu.md).
 *
 * Program shape, per thread: mark func (the kernel function); then loop iterations, each
 *   mark loop; LD loads and ST stores (elem bytes each; loads first then stores, alternating
 *   when both remain) with the iteration's compute spread evenly between them
 * and every CALL iterations mark ret; mark func (a new call of the kernel function); at the end
 * mark ret. Addresses: each access draws its pattern from (seed, thread, access number) with the
 * row's percentages: sequential (a cursor advancing by elem), strided (a cursor advancing by
 * `stride`, wrapping) or random (uniform, elem-aligned) over the thread's own data of `footprint`
 * bytes in PM. Store values are mix(seed, store number) truncated to elem.
 * Multi-threaded profiles (threads = num_threads): disjoint data per thread, plus shared updates:
 * every SHARED iterations and once at the end (a final reduction), a call (mark func; acquire the
 * ticket lock of one of NSHARED shared counters, ld, compute 3, st counter + the thread's
 * partial value, release; mark ret). Single-threaded profiles run on thread 0 only (the other
 * hardware threads' streams are empty), as the paper runs SPEC CPU.
 * size = loop iterations in total (single-threaded: all on thread 0; multi-threaded: dealt to the
 * threads, thread t gets size/T or one more); the global order is round-robin by iteration.
 * verify: the generator applies every store to its own reference image (cpu_gen's shadow); the
 * final image must equal it over every thread's data, the shared counters and the lock words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_cpu.h"

#define P_MAX (1ull << 24)

typedef struct prof_row {
    const char *name;
    uint32_t multi;        /* 1: threads = num_threads, shared updates; 0: thread 0 only */
    uint32_t insts;        /* instructions per loop iteration (memory ops included) */
    uint32_t lds, sts;     /* loads and stores per iteration */
    uint32_t elem;         /* bytes per access */
    uint64_t footprint;    /* bytes of data per thread */
    uint32_t pct_seq, pct_stride, pct_rand;   /* access-pattern mix, % (sum 100) */
    uint32_t stride;       /* bytes between strided accesses */
    uint32_t call;         /* loop iterations per call of the kernel function (mark ret/func) */
    uint32_t shared;       /* multi: a shared update every `shared` iterations of a thread */
    uint32_t nshared;      /* multi: shared counters (one ticket lock each) */
} prof_row;

/* The numbers. Per-class values are invented (the paper gives no per-class instruction mixes);
 * they are chosen so that the plain mean over the seven rows, 650/7 = 92.9 instructions and
 * 80/7 = 11.4 stores per loop iteration (store density 0.123 per instruction), is near the
 * paper's measured average region, 91.33 instructions and 11.29 stores (LightWSP section V-G3),
 * with a loop iteration standing in for a region. The memory-intensive rows have large footprints
 * (64/128 MiB, far past the caches) and streaming/random mixes like libquantum/mcf (CPU2006) and
 * lbm/mcf_r/fotonik3d (CPU2017); the compute rows more instructions per access and footprints
 * that fit in L2 (256/512 KiB). NPB: regular loop nests (sequential + strided sweeps of a
 * per-thread grid partition, reductions into shared sums); SPLASH3: a mix with irregular access
 * and more frequent shared updates; WHISPER (PM applications: key-value stores, transactional
 * updates): random, store-heavy, short functions, frequent locked shared updates. */
static const prof_row prof_rows[] = {
    /* name               multi insts lds sts elem footprint        seq str rnd stride call shared nsh */
    { "prof-cpu2006-mem",  0,    60,  14,  8,  8, 64ull << 20,     50, 20, 30, 4096, 256,  0,  0 },
    { "prof-cpu2006-comp", 0,   120,  20, 10,  4, 256ull << 10,    70, 20, 10,   64,  32,  0,  0 },
    { "prof-cpu2017-mem",  0,    70,  16, 10,  8, 128ull << 20,    60, 30, 10, 2048, 512,  0,  0 },
    { "prof-cpu2017-comp", 0,   130,  22, 12,  8, 512ull << 10,    60, 20, 20,  128,  16,  0,  0 },
    { "prof-npb",          1,    80,  20, 12,  8, 8ull << 20,      80, 20,  0,  512, 128, 256, 4 },
    { "prof-splash3",      1,    90,  18, 12,  8, 4ull << 20,      50, 30, 20, 1024,  64,  32, 16 },
    { "prof-whisper",      1,   100,  14, 16,  8, 2ull << 20,      20,  0, 80,    8,   8,   4, 64 },
};

typedef struct prof_ctx {
    const prof_row *row;
    uint32_t nthreads;       /* threads with work */
    uint64_t data, shared, locks;   /* data: nthreads regions of row->footprint */
    mem_image *ref;
} prof_ctx;

static void prof_free(void *vc)
{
    prof_ctx *c = (prof_ctx *)vc;
    if (!c) return;
    if (c->ref) mem_free(c->ref);
    free(c);
}

typedef struct prof_thr { uint64_t seq, str, acc, it, partial; } prof_thr;

static uint64_t prof_addr(const prof_row *r, uint64_t seed, uint32_t t, prof_thr *s, uint64_t base)
{
    const uint64_t n = r->footprint / r->elem;
    const uint64_t x = cpu_mix(seed ^ (0x50524F46ull + t), s->acc++), pick = x % 100;
    uint64_t off;
    if (pick < r->pct_seq) {
        off = s->seq;
        s->seq = (s->seq + r->elem) % r->footprint;
    } else if (pick < r->pct_seq + r->pct_stride) {
        off = s->str;
        s->str += r->stride;
        if (s->str >= r->footprint) s->str = (s->str + r->elem) % r->stride;   /* next column */
    } else {
        off = (x >> 8) % n * r->elem;
    }
    return base + off;
}

static void prof_shared(cpu_gen *g, const prof_ctx *c, uint64_t seed, uint32_t t, prof_thr *s)
{
    const uint32_t k = (uint32_t)(cpu_mix(seed ^ 0x534841ull, s->it * 64 + t) % c->row->nshared);
    const uint64_t ctr = c->shared + (uint64_t)k * 64, lock = c->locks + (uint64_t)k * 4;
    cpu_mark(g, t, MARK_FUNC);
    cpu_lock(g, t, lock);
    const uint64_t v = cpu_ld(g, t, ctr, 8);
    cpu_compute(g, t, 3);
    cpu_st(g, t, ctr, 8, v + (s->partial | 1));
    cpu_unlock(g, t, lock);
    cpu_mark(g, t, MARK_RET);
    s->partial = 0;
}

static int prof_build_row(const prof_row *r, const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp,
                          char *err, size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > P_MAX)
        return wl_err(err, errlen, "%s: size %llu out of range (loop iterations, 1..%llu)", r->name,
                      (unsigned long long)prm->size, P_MAX);
    cpu_gen g;
    if (cpu_gen_init(&g, r->name, prm, init, err, errlen)) return -1;
    prof_ctx *c = (prof_ctx *)calloc(1, sizeof *c);
    prof_thr *st = (prof_thr *)calloc(g.nthreads, sizeof *st);
    if (!c || !st) { free(c); free(st); cpu_gen_free(&g); return wl_err(err, errlen, "%s: out of memory", r->name); }
    c->row = r;
    const uint32_t T = c->nthreads = r->multi ? g.nthreads : 1;
    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->data = wl_alloc_pm(&al, (uint64_t)T * r->footprint);
    if (r->multi) {
        c->shared = wl_alloc_pm(&al, (uint64_t)r->nshared * 64);
        c->locks = wl_alloc_pm(&al, (uint64_t)r->nshared * 4);
    }
    const uint32_t nmem = r->lds + r->sts, comp = r->insts - nmem;
    uint64_t nst = 0;
    for (uint32_t t = 0; t < T; t++) {
        st[t].str = (uint64_t)t * r->elem % r->stride;
        cpu_mark(&g, t, MARK_FUNC);
    }
    const uint64_t rounds = (prm->size + T - 1) / T;
    for (uint64_t it = 0; it < rounds; it++)
        for (uint32_t t = 0; t < T; t++) {
            if (it * T + t >= prm->size) break;
            prof_thr *s = &st[t];
            const uint64_t base = c->data + (uint64_t)t * r->footprint;
            s->it = it;
            if (it && it % r->call == 0) {
                cpu_mark(&g, t, MARK_RET);
                cpu_mark(&g, t, MARK_FUNC);
            }
            cpu_mark(&g, t, MARK_LOOP);
            uint32_t l = 0, w = 0;
            for (uint32_t m = 0; m < nmem; m++) {
                /* compute before memory op m: comp spread over nmem + 1 gaps */
                cpu_compute(&g, t, (uint64_t)comp * (m + 1) / (nmem + 1) - (uint64_t)comp * m / (nmem + 1));
                const int is_ld = l < r->lds && (w >= r->sts || l <= w * r->lds / r->sts);
                const uint64_t a = prof_addr(r, prm->seed, t, s, base);
                if (is_ld) {
                    s->partial += cpu_ld(&g, t, a, r->elem);
                    l++;
                } else {
                    cpu_st(&g, t, a, r->elem, cpu_mix(prm->seed, nst++));
                    w++;
                }
            }
            cpu_compute(&g, t, (uint64_t)comp - (uint64_t)comp * nmem / (nmem + 1));
            if (r->multi && (it + 1) % r->shared == 0) prof_shared(&g, c, prm->seed, t, s);
        }
    for (uint32_t t = 0; t < T; t++) {
        if (r->multi) { st[t].it = rounds; prof_shared(&g, c, prm->seed, t, &st[t]); }   /* final reduction */
        cpu_mark(&g, t, MARK_RET);
    }
    free(st);
    int rc = cpu_gen_emit(&g, p, "main", err, errlen);
    c->ref = g.shadow;      /* the reference image: init + every store in the global order */
    g.shadow = NULL;
    cpu_gen_free(&g);
    if (rc) { prof_free(c); return -1; }
    *ctxp = c;
    return 0;
}

static int prof_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const prof_ctx *c = (const prof_ctx *)vc;
    const prof_row *r = c->row;
    char what[64];
    for (uint32_t t = 0; t < c->nthreads; t++) {
        snprintf(what, sizeof what, "thread %u data", t);
        if (cpu_cmp_range(r->name, what, img, c->ref, c->data + (uint64_t)t * r->footprint, r->footprint, msg, msglen))
            return -1;
    }
    if (r->multi) {
        if (cpu_cmp_range(r->name, "shared counters", img, c->ref, c->shared, (uint64_t)r->nshared * 64, msg, msglen)) return -1;
        if (cpu_cmp_range(r->name, "lock words", img, c->ref, c->locks, (uint64_t)r->nshared * 4, msg, msglen)) return -1;
    }
    return 0;
}

#define PROF_WL(ident, idx, nm, multi, dsc, small)                                                 \
    static int ident##_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctx, char *err, \
                             size_t errlen)                                                              \
    { return prof_build_row(&prof_rows[idx], prm, p, init, ctx, err, errlen); }                          \
    const persim_workload wl_##ident##_workload = {                                                      \
        .name = nm,                                                                                      \
        .desc = dsc,                                                                                     \
        .size_desc = "loop iterations in total",                                                         \
        .pmo = multi ? "program order; system acquire/release (ticket locks)" : "program order",        \
        .recovery = "native",                                                                            \
        .default_size = 10 * (small),                                                                    \
        .small_size = small,                                                                             \
        .build = ident##_build,                                                                          \
        .verify = prof_verify,                                                                           \
        .free_ctx = prof_free,                                                                           \
    };

PROF_WL(prof_cpu2006_mem, 0, "prof-cpu2006-mem", 0,
        "CPU profile, SPEC CPU2006 memory-intensive class (libquantum/mcf-like): 60 instr, 14 ld, 8 st per iteration, "
        "64 MiB, 50% sequential / 20% strided / 30% random; thread 0 only", 250)
PERSIM_WORKLOAD(wl_prof_cpu2006_mem_workload, WL_CPU, 60);
PROF_WL(prof_cpu2006_comp, 1, "prof-cpu2006-comp", 0,
        "CPU profile, SPEC CPU2006 compute class: 120 instr, 20 ld, 10 st (4-byte) per iteration, 256 KiB, mostly "
        "sequential; thread 0 only", 200)
PERSIM_WORKLOAD(wl_prof_cpu2006_comp_workload, WL_CPU, 70);
PROF_WL(prof_cpu2017_mem, 2, "prof-cpu2017-mem", 0,
        "CPU profile, SPEC CPU2017 memory-intensive class (lbm/mcf_r/fotonik3d-like): 70 instr, 16 ld, 10 st per "
        "iteration, 128 MiB, streaming + strided; thread 0 only", 200)
PERSIM_WORKLOAD(wl_prof_cpu2017_mem_workload, WL_CPU, 80);
PROF_WL(prof_cpu2017_comp, 3, "prof-cpu2017-comp", 0,
        "CPU profile, SPEC CPU2017 compute class: 130 instr, 22 ld, 12 st per iteration, 512 KiB; thread 0 only", 150)
PERSIM_WORKLOAD(wl_prof_cpu2017_comp_workload, WL_CPU, 90);
PROF_WL(prof_npb, 4, "prof-npb", 1,
        "CPU profile, NPB class: per-thread grid sweeps (80 instr, 20 ld, 12 st per iteration, 8 MiB per thread, "
        "sequential/strided), locked reductions into 4 shared sums", 200)
PERSIM_WORKLOAD(wl_prof_npb_workload, WL_CPU, 100);
PROF_WL(prof_splash3, 5, "prof-splash3", 1,
        "CPU profile, SPLASH3 class: 90 instr, 18 ld, 12 st per iteration, 4 MiB per thread, mixed pattern, a locked "
        "shared update every 32 iterations", 200)
PERSIM_WORKLOAD(wl_prof_splash3_workload, WL_CPU, 110);
PROF_WL(prof_whisper, 6, "prof-whisper", 1,
        "CPU profile, WHISPER class (PM applications): 100 instr, 14 ld, 16 st per iteration, 2 MiB per thread, 80% "
        "random, a locked shared update every 4 iterations", 200)
PERSIM_WORKLOAD(wl_prof_whisper_workload, WL_CPU, 120);
