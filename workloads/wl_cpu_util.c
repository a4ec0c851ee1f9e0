/* persim: helpers shared by the CPU workload generators (see wl_cpu.h). */
#include "wl_cpu.h"

#include <stdlib.h>
#include <string.h>

int cpu_gen_init_streams(cpu_gen *g, const char *wl, const wl_params *prm, uint32_t extra, const mem_image *init,
                         char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    if (prm->num_threads == 0)
        return wl_err(err, errlen, "%s: needs a CPU system (system.kind=cpu): num_threads is 0", wl);
    if (prm->num_threads > CPU_MAX_THREADS)
        return wl_err(err, errlen,
                      "%s: runs one thread per core, at most %u (the paper's largest count), and cpu.cores is %u "
                      "(a recorded trace may use more cores)",
                      wl, CPU_MAX_THREADS, prm->num_threads);
    g->nthreads = prm->num_threads + extra;
    g->t = (cpu_buf *)calloc(g->nthreads, sizeof *g->t);
    g->shadow = mem_clone(init);
    if (!g->t || !g->shadow) {
        cpu_gen_free(g);
        return wl_err(err, errlen, "%s: out of memory", wl);
    }
    return 0;
}

int cpu_gen_init(cpu_gen *g, const char *wl, const wl_params *prm, const mem_image *init, char *err, size_t errlen)
{
    return cpu_gen_init_streams(g, wl, prm, 0, init, err, errlen);
}

void cpu_gen_free(cpu_gen *g)
{
    if (g->t)
        for (uint32_t i = 0; i < g->nthreads; i++) free(g->t[i].ops);
    free(g->t);
    if (g->shadow) mem_free(g->shadow);
    memset(g, 0, sizeof *g);
}

static void push(cpu_gen *g, uint32_t t, const persim_op *o)
{
    if (g->oom) return;
    cpu_buf *b = &g->t[t];
    if (b->n == b->cap) {
        size_t c = b->cap ? 2 * b->cap : 256;
        persim_op *n = (persim_op *)realloc(b->ops, c * sizeof *n);
        if (!n) { g->oom = 1; return; }
        b->ops = n;
        b->cap = c;
    }
    b->ops[b->n++] = *o;
    g->nops++;
}

static persim_op mk(persim_op_kind k, uint64_t addr, uint32_t elem, uint64_t val)
{
    persim_op o;
    memset(&o, 0, sizeof o);
    o.kind = (uint8_t)k;
    o.addr = addr;
    o.elem = (uint8_t)elem;
    o.val = val;
    o.vals = PERSIM_NOVALS;
    if (k == OPK_LD || k == OPK_ST) {
        o.nlanes = 1;
        o.stride = elem;
    }
    return o;
}

static uint64_t trunc_to(uint64_t v, uint32_t elem) { return elem >= 8 ? v : v & ((1ull << (8 * elem)) - 1); }

uint64_t cpu_peek(const cpu_gen *g, uint64_t addr, uint32_t elem)
{
    uint64_t v = 0;
    mem_read(g->shadow, addr, &v, elem);   /* little-endian host (as mem_image's users assume) */
    return v;
}

uint64_t cpu_ld(cpu_gen *g, uint32_t t, uint64_t addr, uint32_t elem)
{
    persim_op o = mk(OPK_LD, addr, elem, 0);
    push(g, t, &o);
    return cpu_peek(g, addr, elem);
}

void cpu_st(cpu_gen *g, uint32_t t, uint64_t addr, uint32_t elem, uint64_t val)
{
    val = trunc_to(val, elem);
    persim_op o = mk(OPK_ST, addr, elem, val);
    push(g, t, &o);
    mem_write(g->shadow, addr, &val, elem);
}

void cpu_compute(cpu_gen *g, uint32_t t, uint64_t n)
{
    if (!n) return;
    persim_op o = mk(OPK_COMPUTE, 0, 0, n);
    push(g, t, &o);
}

void cpu_mark(cpu_gen *g, uint32_t t, persim_mark m)
{
    persim_op o = mk(OPK_MARK, 0, 0, (uint64_t)m);
    push(g, t, &o);
}

void cpu_order(cpu_gen *g, uint32_t t)
{
    persim_op o = mk(OPK_ORDER, 0, 0, 0);
    push(g, t, &o);
}

void cpu_lock(cpu_gen *g, uint32_t t, uint64_t lock)
{
    persim_op o = mk(OPK_ACQUIRE, lock, 4, cpu_peek(g, lock, 4));
    o.scope = SCOPE_SYSTEM;
    push(g, t, &o);
}

void cpu_unlock(cpu_gen *g, uint32_t t, uint64_t lock)
{
    uint32_t k = (uint32_t)cpu_peek(g, lock, 4) + 1;
    persim_op o = mk(OPK_RELEASE, lock, 4, k);
    o.scope = SCOPE_SYSTEM;
    push(g, t, &o);
    mem_write(g->shadow, lock, &k, 4);
}

int cpu_gen_emit(cpu_gen *g, persim_prog *p, const char *name, char *err, size_t errlen)
{
    if (g->oom) return wl_err(err, errlen, "%s: out of memory", name);
    prog_kernel(p, name, 1, g->nthreads * PERSIM_WARP_SIZE);
    for (uint32_t t = 0; t < g->nthreads; t++) {
        prog_warp(p, 0, t);
        for (size_t i = 0; i < g->t[t].n; i++) {   /* through the builders: their canonical op form */
            const persim_op *o = &g->t[t].ops[i];
            switch (o->kind) {
            case OPK_LD: op_ld(p, o->addr, o->elem, 1, o->elem); break;
            case OPK_ST: op_st_bcast(p, o->addr, o->elem, 1, o->elem, o->val); break;
            case OPK_COMPUTE: op_compute(p, o->val); break;
            case OPK_MARK: op_mark(p, (persim_mark)o->val); break;
            case OPK_ACQUIRE: op_acquire(p, o->addr, o->elem, o->val, (persim_scope)o->scope); break;
            case OPK_RELEASE: op_release(p, o->addr, o->elem, o->val, (persim_scope)o->scope); break;
            default: op_append(p, o, NULL); break;
            }
        }
    }
    return 0;
}

uint64_t cpu_mix(uint64_t a, uint64_t b)
{
    uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int cpu_cmp_range(const char *wl, const char *what, const mem_image *fin, const mem_image *exp, uint64_t addr,
                  uint64_t len, char *msg, size_t msglen)
{
    int64_t off = mem_diff(fin, exp, addr, len);
    if (off < 0) return 0;
    uint64_t w = (uint64_t)off & ~7ull, a = 0, b = 0;
    size_t n = len - w < 8 ? (size_t)(len - w) : 8;
    mem_read(fin, addr + w, &a, n);
    mem_read(exp, addr + w, &b, n);
    return wl_err(msg, msglen, "%s: %s differs at 0x%llx (+%llu): final 0x%llx, expected 0x%llx", wl, what,
                  (unsigned long long)(addr + w), (unsigned long long)w, (unsigned long long)a, (unsigned long long)b);
}
