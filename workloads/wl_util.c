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

uint64_t wl_emit_diff(persim_prog *p, const mem_image *from, const mem_image *to, const wl_range *r, size_t nr)
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
                        op_st(p, run_at, 4, run, 4, vals);
                        n++;
                        run = 0;
                    }
                    if (!run) run_at = wa;
                    vals[run++] = b[w];
                } else if (run) {
                    op_st(p, run_at, 4, run, 4, vals);
                    n++;
                    run = 0;
                }
            }
        }
        if (run) {
            op_st(p, run_at, 4, run, 4, vals);
            n++;
        }
    }
    return n;
}

void wl_emit_phase(persim_prog *p, const char *kernel, const mem_image *from, const mem_image *to,
                   const wl_range *r, size_t nr)
{
    prog_kernel(p, kernel, 1, PERSIM_WARP_SIZE);
    prog_warp(p, 0, 0);
    wl_emit_diff(p, from, to, r, nr);
    op_durable(p);
}
