/* persim: helpers shared by the CPU workload generators (workloads/wl_cpu_*.c, docs/workloads-cpu.md).
 *
 * A CPU program is one kernel ("main") of one block with num_threads warps; warp t is hardware
 * thread t. All ops are scalar (nlanes = 1). A generator produces the threads' ops in one global
 * order it decides (e.g. operation i by thread i % T) into per-thread buffers (cpu_gen), applying
 * every store to a shadow image of PM as it goes: the shadow is what an implementation would read
 * (loads return shadow values), so the values stored are right for that order. Lock-protected
 * shared updates use ticket-ordered locks (cpu_lock / cpu_unlock): the k-th critical section of
 * lock L (in the global order) is acquire(L, k) ... release(L, k + 1), so func_exec and the timing
 * model run the critical sections in exactly the generator's order. cpu_gen_emit then writes the
 * buffers out as the program's kernel. No globals; deterministic. */
#ifndef PERSIM_WL_CPU_H
#define PERSIM_WL_CPU_H
#include <stddef.h>
#include <stdint.h>

#include "workload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CPU_MAX_THREADS 64u      /* the paper's largest thread count (LightWSP section V-F5) */

typedef struct cpu_buf { persim_op *ops; size_t n, cap; } cpu_buf;

typedef struct cpu_gen {
    uint32_t   nthreads;
    cpu_buf   *t;            /* per-thread op buffers */
    mem_image *shadow;       /* the generator's view of memory (initial image + stores so far) */
    int        oom;
    uint64_t   nops;
} cpu_gen;

/* Checks prm->num_threads (0: a GPU system; > CPU_MAX_THREADS) and sets up g with a shadow that
 * is a copy of init. 0, or -1 with "<wl>: ..." in err. */
int  cpu_gen_init(cpu_gen *g, const char *wl, const wl_params *prm, const mem_image *init,
                  char *err, size_t errlen);
/* The same with `extra` streams after the num_threads local ones (the BROI workloads' remote
 * streams, wl_broi.h); the caller has checked `extra`. */
int  cpu_gen_init_streams(cpu_gen *g, const char *wl, const wl_params *prm, uint32_t extra,
                          const mem_image *init, char *err, size_t errlen);
void cpu_gen_free(cpu_gen *g);
/* Shadow reads/writes without an op (setting up, or the generator's own bookkeeping). */
uint64_t cpu_peek(const cpu_gen *g, uint64_t addr, uint32_t elem);
/* Ops of thread t (scalar; elem 1/2/4/8). cpu_ld returns the shadow value it reads. */
uint64_t cpu_ld(cpu_gen *g, uint32_t t, uint64_t addr, uint32_t elem);
void     cpu_st(cpu_gen *g, uint32_t t, uint64_t addr, uint32_t elem, uint64_t val);
void     cpu_compute(cpu_gen *g, uint32_t t, uint64_t n);
void     cpu_mark(cpu_gen *g, uint32_t t, persim_mark m);
void     cpu_order(cpu_gen *g, uint32_t t);      /* intra-thread order point (BROI: a persist barrier) */
/* Ticket lock on the 4-byte PM word `lock`: acquire(lock, k) with k = its current (shadow) value,
 * i.e. the number of critical sections of the lock so far; cpu_unlock releases k + 1. */
void     cpu_lock(cpu_gen *g, uint32_t t, uint64_t lock);
void     cpu_unlock(cpu_gen *g, uint32_t t, uint64_t lock);
/* Writes kernel `name` (1 block, nthreads warps) with the buffered ops. 0, or -1 when out of memory. */
int      cpu_gen_emit(cpu_gen *g, persim_prog *p, const char *name, char *err, size_t errlen);

/* A deterministic 64-bit mix (splitmix64 finaliser) of a and b, for synthetic values. */
uint64_t cpu_mix(uint64_t a, uint64_t b);

/* Compares `len` bytes at addr of two images; 0 if equal, else -1 with
 * "<wl>: <what> differs at 0x... (+off): final 0x.., expected 0x.." (8-byte words). */
int cpu_cmp_range(const char *wl, const char *what, const mem_image *final_image, const mem_image *expect,
                  uint64_t addr, uint64_t len, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif
