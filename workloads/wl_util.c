/* persim: helpers for workload generators (see the end of workload.h). */
#include <stdarg.h>
#include <stdio.h>
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WL_ALIGN 128u

void wl_rng_seed(wl_rng *r, uint64_t seed) { r->s = seed; }

/* splitmix64 (Steele, Lea, Flood 2014; constants as in Vigna's reference code). */
uint64_t wl_rng_next(wl_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) by rejection: draws below 2^64 mod n are rejected, so the accepted range
 * is a whole multiple of n. n == 0 returns 0. */
uint64_t wl_rng_below(wl_rng *r, uint64_t n)
{
    if (n == 0) return 0;
    uint64_t threshold = (0 - n) % n;   /* 2^64 mod n */
    for (;;) {
        uint64_t x = wl_rng_next(r);
        if (x >= threshold) return x % n;
    }
}

static uint64_t align_up(uint64_t a)
{
    if (a > UINT64_MAX - (WL_ALIGN - 1)) {
        fprintf(stderr, "persim: wl_alloc: address 0x%llx overflows\n", (unsigned long long)a);
        abort();
    }
    return (a + WL_ALIGN - 1) & ~(uint64_t)(WL_ALIGN - 1);
}

void wl_alloc_init(wl_alloc *a, const wl_params *prm)
{
    a->pm_next = align_up(prm->pm_base);
    a->vol_next = align_up(prm->vol_base);
}

static uint64_t bump(uint64_t *next, uint64_t bytes, const char *what)
{
    uint64_t at = *next;
    if (bytes > UINT64_MAX - at - WL_ALIGN) {
        fprintf(stderr, "persim: wl_alloc_%s(%llu) overflows the address space\n", what,
                (unsigned long long)bytes);
        abort();
    }
    *next = align_up(at + bytes);
    return at;
}

uint64_t wl_alloc_pm(wl_alloc *a, uint64_t bytes) { return bump(&a->pm_next, bytes, "pm"); }

uint64_t wl_alloc_vol(wl_alloc *a, uint64_t bytes) { return bump(&a->vol_next, bytes, "vol"); }

int wl_err(char *err, size_t n, const char *fmt, ...)
{
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Calls emit(u, addr, n, vals) for each run of up to 32 consecutive differing words. */
typedef void (*run_fn)(void *u, uint64_t addr, uint32_t n, const uint64_t *vals);

static uint64_t diff_runs(const mem_image *from, const mem_image *to, const wl_range *r, size_t nr, run_fn emit,
                          void *u)
{
    enum { CH = 4096 };
    static const size_t W = CH / 4;
    uint32_t a[CH / 4], b[CH / 4];
    uint64_t n = 0, vals[PERSIM_WARP_SIZE];
    for (size_t i = 0; i < nr; i++) {
        uint64_t base = r[i].addr & ~3ull, end = (r[i].addr + r[i].len + 3) & ~3ull;
        uint64_t run_at = 0;
        uint32_t run = 0;
        for (uint64_t at = base; at < end; at += CH) {
            size_t words = (size_t)((end - at) / 4 < W ? (end - at) / 4 : W);
            mem_read(from, at, a, words * 4);
            mem_read(to, at, b, words * 4);
            if (!run && memcmp(a, b, words * 4) == 0) continue;
            for (size_t w = 0; w < words; w++) {
                uint64_t wa = at + 4 * w;
                if (a[w] != b[w]) {
                    if (run && (wa != run_at + 4ull * run || run == PERSIM_WARP_SIZE)) {
                        emit(u, run_at, run, vals);
                        n++;
                        run = 0;
                    }
                    if (!run) run_at = wa;
                    vals[run++] = b[w];
                } else if (run) {
                    emit(u, run_at, run, vals);
                    n++;
                    run = 0;
                }
            }
        }
        if (run) {
            emit(u, run_at, run, vals);
            n++;
        }
    }
    return n;
}

static void emit_st(void *u, uint64_t addr, uint32_t n, const uint64_t *vals)
{
    op_st((persim_prog *)u, addr, 4, n, 4, vals);
}

uint64_t wl_emit_diff(persim_prog *p, const mem_image *from, const mem_image *to, const wl_range *r, size_t nr)
{
    return diff_runs(from, to, r, nr, emit_st, p);
}

/* A warp-wide access of a phase: up to 32 consecutive words; vals == NULL for a load. */
typedef struct wl_acc { uint64_t addr; uint32_t n; uint32_t vi; } wl_acc;
typedef struct wl_accs {
    wl_acc *a; size_t n, cap;
    uint64_t *vals; size_t nv, capv;
    int oom;
} wl_accs;

static void accs_push(wl_accs *s, uint64_t addr, uint32_t n, const uint64_t *vals)
{
    if (s->oom) return;
    if (s->n == s->cap) {
        size_t c = s->cap ? 2 * s->cap : 256;
        wl_acc *na = (wl_acc *)realloc(s->a, c * sizeof *na);
        if (!na) { s->oom = 1; return; }
        s->a = na;
        s->cap = c;
    }
    uint32_t vi = UINT32_MAX;
    if (vals) {
        if (s->nv + n > s->capv) {
            size_t c = s->capv ? 2 * s->capv : 1024;
            while (c < s->nv + n) c *= 2;
            uint64_t *nv = (uint64_t *)realloc(s->vals, c * sizeof *nv);
            if (!nv) { s->oom = 1; return; }
            s->vals = nv;
            s->capv = c;
        }
        memcpy(s->vals + s->nv, vals, n * sizeof *vals);
        vi = (uint32_t)s->nv;
        s->nv += n;
    }
    s->a[s->n++] = (wl_acc){ addr, n, vi };
}

static void accs_run(void *u, uint64_t addr, uint32_t n, const uint64_t *vals) { accs_push((wl_accs *)u, addr, n, vals); }

/* Loads of the ranges: one warp-wide load per 128-byte piece (4-byte words). */
static void accs_reads(wl_accs *s, const wl_range *r, size_t nr)
{
    for (size_t i = 0; i < nr; i++) {
        uint64_t at = r[i].addr & ~3ull, end = (r[i].addr + r[i].len + 3) & ~3ull;
        while (at < end) {
            uint64_t piece_end = (at | 127u) + 1;
            if (piece_end > end) piece_end = end;
            accs_push(s, at, (uint32_t)((piece_end - at) / 4), NULL);
            at = piece_end;
        }
    }
}

static void accs_free(wl_accs *s)
{
    free(s->a);
    free(s->vals);
}

/* One kernel: the loads of `ld` then the stores of `st`, dealt round-robin to the warps (warp i
 * of the grid takes accesses i, i + W, ...), WL_PHASE_ACCESSES_PER_WARP of each per warp, 8 warps
 * (256 threads) per block; then DURABLE in every warp. */
#define WL_PHASE_ACCESSES_PER_WARP 4u
#define WL_PHASE_WARPS_PER_BLOCK   8u
static void emit_parallel(persim_prog *p, const char *kernel, const wl_accs *ld, const wl_accs *st)
{
    size_t most = ld->n > st->n ? ld->n : st->n;
    uint64_t W = (most + WL_PHASE_ACCESSES_PER_WARP - 1) / WL_PHASE_ACCESSES_PER_WARP;
    if (W == 0) W = 1;
    uint32_t wpb = W < WL_PHASE_WARPS_PER_BLOCK ? (uint32_t)W : WL_PHASE_WARPS_PER_BLOCK;
    uint32_t nb = (uint32_t)((W + wpb - 1) / wpb);
    W = (uint64_t)nb * wpb;
    prog_kernel(p, kernel, nb, wpb * PERSIM_WARP_SIZE);
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t w = 0; w < wpb; w++) {
            uint64_t g = (uint64_t)b * wpb + w;
            prog_warp(p, b, w);
            for (uint64_t i = g; i < ld->n; i += W) op_ld(p, ld->a[i].addr, 4, ld->a[i].n, 4);
            for (uint64_t i = g; i < st->n; i += W) op_st(p, st->a[i].addr, 4, st->a[i].n, 4, st->vals + st->a[i].vi);
            op_durable(p);
        }
}

int wl_emit_phase(persim_prog *p, const char *kernel, const mem_image *from, const mem_image *to,
                  const wl_range *r, size_t nr)
{
    wl_accs ld = { 0 }, st = { 0 };
    diff_runs(from, to, r, nr, accs_run, &st);
    int rc = st.oom ? -1 : 0;
    if (!rc) emit_parallel(p, kernel, &ld, &st);
    accs_free(&st);
    return rc;
}

int wl_emit_recovery(persim_prog *p, const char *kernel, const wl_range *reads, size_t nreads,
                     const mem_image *from, const mem_image *restored, const mem_image *cleared,
                     const wl_range *r, size_t nr)
{
    char name[sizeof p->kernels[0].name];
    wl_accs ld = { 0 }, st = { 0 }, cl = { 0 }, none = { 0 };
    accs_reads(&ld, reads, nreads);
    diff_runs(from, restored, r, nr, accs_run, &st);
    if (cleared) diff_runs(restored, cleared, r, nr, accs_run, &cl);
    int rc = ld.oom || st.oom || cl.oom ? -1 : 0;
    if (!rc) {
        emit_parallel(p, kernel, &ld, &st);
        if (cleared) {
            snprintf(name, sizeof name, "%s_clear", kernel);
            emit_parallel(p, name, &none, &cl);
        }
    }
    accs_free(&ld);
    accs_free(&st);
    accs_free(&cl);
    return rc;
}

int wl_is_recovery_kernel(const char *name) { return strstr(name, WL_RECOVERY_TAG) != NULL; }
