/* persim: program builder, names and structural validation (see op.h).
 *
 * Layout invariants kept by the builder:
 *  - prog_kernel() appends nblocks*warps_per_block empty streams (begin = end = nops).
 *  - Streams are opened in increasing index order; the ops of the open stream are always the
 *    last ops of p->ops, so every stream is a contiguous [begin, end) range and `begin` is
 *    non-decreasing over stream indices.
 *  - p->open holds 1 + the index of the open stream (0 = none open). Misuse of the builder
 *    (out-of-order or out-of-range warps, appending with no open stream) is a programming
 *    error in the generator: it prints a message and aborts. */
#include "op.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("persim: program builder: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* Grows *arr (element size `sz`) so that it holds at least `need` elements. */
static void grow(void **arr, uint64_t *cap, uint64_t need, size_t sz)
{
    if (need <= *cap) return;
    uint64_t ncap = *cap ? *cap : 16;
    while (ncap < need) ncap *= 2;
    if (ncap > SIZE_MAX / sz) die("out of memory (%llu elements)", (unsigned long long)ncap);
    void *n = realloc(*arr, (size_t)(ncap * sz));
    if (!n) die("out of memory (%llu elements)", (unsigned long long)ncap);
    *arr = n;
    *cap = ncap;
}

persim_prog *prog_new(void)
{
    persim_prog *p = (persim_prog *)calloc(1, sizeof *p);
    if (!p) die("out of memory");
    p->next_id = 1;
    return p;
}

void prog_free(persim_prog *p)
{
    if (!p) return;
    free(p->kernels);
    free(p->streams);
    free(p->ops);
    free(p->vals);
    free(p);
}

/* Marks the streams (after the open one) of the last kernel as empty at the current end. */
static void close_kernel(persim_prog *p)
{
    if (!p->nkernels) return;
    const persim_kernel *k = &p->kernels[p->nkernels - 1];
    uint64_t last = k->first_stream + (uint64_t)k->nblocks * k->warps_per_block;
    uint64_t from = p->open ? (uint64_t)(p->open - 1) + 1 : k->first_stream;
    for (uint64_t s = from; s < last; s++) p->streams[s].begin = p->streams[s].end = p->nops;
    p->open = 0;
}

uint32_t prog_kernel(persim_prog *p, const char *name, uint32_t nblocks, uint32_t threads_per_block)
{
    if (nblocks == 0 || threads_per_block == 0)
        die("kernel '%s' needs at least one block and one thread", name ? name : "");
    close_kernel(p);
    uint32_t wpb = (threads_per_block + PERSIM_WARP_SIZE - 1) / PERSIM_WARP_SIZE;
    uint64_t n = (uint64_t)nblocks * wpb;
    if (p->nkernels == UINT32_MAX) die("too many kernels");
    uint64_t cap = p->cap_kernels;
    grow((void **)&p->kernels, &cap, (uint64_t)p->nkernels + 1, sizeof *p->kernels);
    p->cap_kernels = (uint32_t)(cap > UINT32_MAX ? UINT32_MAX : cap);
    grow((void **)&p->streams, &p->cap_streams, p->nstreams + n, sizeof *p->streams);
    persim_kernel *k = &p->kernels[p->nkernels];
    memset(k, 0, sizeof *k);
    if (name) {
        strncpy(k->name, name, sizeof k->name - 1);
        k->name[sizeof k->name - 1] = '\0';
    }
    k->nblocks = nblocks;
    k->warps_per_block = wpb;
    k->first_stream = p->nstreams;
    for (uint64_t i = 0; i < n; i++) p->streams[p->nstreams + i].begin = p->streams[p->nstreams + i].end = p->nops;
    p->nstreams += n;
    return p->nkernels++;
}

void prog_warp(persim_prog *p, uint32_t block, uint32_t warp)
{
    if (!p->nkernels) die("prog_warp(%u, %u) before any prog_kernel", block, warp);
    const persim_kernel *k = &p->kernels[p->nkernels - 1];
    if (block >= k->nblocks || warp >= k->warps_per_block)
        die("prog_warp(%u, %u) out of range for kernel '%s' (%u blocks of %u warps)", block, warp,
            k->name, k->nblocks, k->warps_per_block);
    uint64_t s = k->first_stream + (uint64_t)block * k->warps_per_block + warp;
    uint64_t from = k->first_stream;
    if (p->open) {
        uint64_t cur = (uint64_t)(p->open - 1);
        if (s <= cur)
            die("prog_warp(%u, %u) out of order in kernel '%s': streams must be opened block-major, "
                "each once", block, warp, k->name);
        from = cur + 1;
    }
    if (s + 1 > (uint64_t)INT_MAX) die("too many streams");
    for (uint64_t t = from; t <= s; t++) p->streams[t].begin = p->streams[t].end = p->nops;
    p->open = (int)(s + 1);
}

static persim_op *append_raw(persim_prog *p)
{
    if (!p->open) die("op appended with no open warp stream (call prog_warp first)");
    grow((void **)&p->ops, &p->cap_ops, p->nops + 1, sizeof *p->ops);
    persim_op *o = &p->ops[p->nops++];
    memset(o, 0, sizeof *o);
    o->vals = PERSIM_NOVALS;
    p->streams[p->open - 1].end = p->nops;
    return o;
}

static uint64_t trunc_elem(uint64_t v, uint32_t elem)
{
    return elem >= 8 ? v : (v & ((1ull << (8 * elem)) - 1));
}

static uint32_t give_id(persim_prog *p, persim_op *o, uint32_t id)
{
    if (id == 0) id = p->next_id;
    if (id >= p->next_id) p->next_id = id + 1;   /* next auto id = max seen + 1 */
    o->id = id;
    return id;
}

uint32_t op_append(persim_prog *p, const persim_op *op, const uint64_t *lane_vals)
{
    /* copy first: op may point into p->ops, which append_raw may move */
    persim_op c = *op;
    persim_op *o = append_raw(p);
    *o = c;
    o->vals = PERSIM_NOVALS;
    if (c.kind == OPK_ST) {
        if (lane_vals && c.nlanes > 1) {
            grow((void **)&p->vals, &p->cap_vals, p->nvals + c.nlanes, sizeof *p->vals);
            if (p->nvals + c.nlanes > PERSIM_NOVALS) die("too many store values");
            o->vals = (uint32_t)p->nvals;
            for (uint32_t i = 0; i < c.nlanes; i++) p->vals[p->nvals + i] = trunc_elem(lane_vals[i], c.elem);
            p->nvals += c.nlanes;
            o->val = 0;
        } else {
            /* one lane (or broadcast): canonical form is the value in o->val */
            o->val = trunc_elem(lane_vals ? lane_vals[0] : c.val, c.elem);
        }
    }
    return give_id(p, o, c.id);
}

static uint32_t mem_op_cls(persim_prog *p, persim_op_kind kind, uint64_t addr, uint32_t elem,
                           uint32_t nlanes, uint32_t stride, const uint64_t *vals, uint64_t bval,
                           persim_st_class cls)
{
    persim_op o;
    memset(&o, 0, sizeof o);
    o.kind = (uint8_t)kind;
    o.st_class = (uint8_t)cls;
    o.elem = (uint8_t)elem;
    o.nlanes = (uint8_t)nlanes;
    o.stride = stride;
    o.addr = addr;
    o.val = bval;
    if (elem > 255 || nlanes > 255) die("op elem/nlanes out of range (%u, %u)", elem, nlanes);
    return op_append(p, &o, vals);
}

static uint32_t mem_op(persim_prog *p, persim_op_kind kind, uint64_t addr, uint32_t elem,
                       uint32_t nlanes, uint32_t stride, const uint64_t *vals, uint64_t bval)
{ return mem_op_cls(p, kind, addr, elem, nlanes, stride, vals, bval, STC_DATA); }

uint32_t op_ld(persim_prog *p, uint64_t addr, uint32_t elem, uint32_t nlanes, uint32_t stride)
{ return mem_op(p, OPK_LD, addr, elem, nlanes, stride, NULL, 0); }

uint32_t op_ld_log(persim_prog *p, uint64_t addr, uint32_t elem, uint32_t nlanes, uint32_t stride)
{ return mem_op_cls(p, OPK_LD, addr, elem, nlanes, stride, NULL, 0, STC_LOG); }

uint32_t op_st(persim_prog *p, uint64_t addr, uint32_t elem, uint32_t nlanes, uint32_t stride,
               const uint64_t *vals)
{ return mem_op(p, OPK_ST, addr, elem, nlanes, stride, vals, 0); }

uint32_t op_st_log(persim_prog *p, uint64_t addr, uint32_t elem, uint32_t nlanes, uint32_t stride,
                   const uint64_t *vals)
{ return mem_op_cls(p, OPK_ST, addr, elem, nlanes, stride, vals, 0, STC_LOG); }

uint32_t op_st_bcast(persim_prog *p, uint64_t addr, uint32_t elem, uint32_t nlanes,
                     uint32_t stride, uint64_t val)
{ return mem_op(p, OPK_ST, addr, elem, nlanes, stride, NULL, val); }

static uint32_t simple_op(persim_prog *p, persim_op_kind kind, persim_scope s, uint64_t addr,
                          uint64_t val)
{
    persim_op o;
    memset(&o, 0, sizeof o);
    o.kind = (uint8_t)kind;
    o.scope = (uint8_t)s;
    o.addr = addr;
    o.val = val;
    return op_append(p, &o, NULL);
}

uint32_t op_compute(persim_prog *p, uint64_t instructions)
{ return simple_op(p, OPK_COMPUTE, SCOPE_NONE, 0, instructions); }
uint32_t op_order(persim_prog *p) { return simple_op(p, OPK_ORDER, SCOPE_NONE, 0, 0); }
uint32_t op_durable(persim_prog *p) { return simple_op(p, OPK_DURABLE, SCOPE_NONE, 0, 0); }
uint32_t op_sync(persim_prog *p, persim_scope s) { return simple_op(p, OPK_SYNC, s, 0, 0); }
uint32_t op_pbarrier(persim_prog *p, persim_scope s) { return simple_op(p, OPK_PBARRIER, s, 0, 0); }
uint32_t op_require(persim_prog *p, uint32_t before_id, uint32_t after_id)
{ return simple_op(p, OPK_REQUIRE, SCOPE_NONE, after_id, before_id); }
uint32_t op_mark(persim_prog *p, persim_mark m) { return simple_op(p, OPK_MARK, SCOPE_NONE, 0, (uint64_t)m); }

static uint32_t flag_op(persim_prog *p, persim_op_kind kind, uint64_t flag, uint32_t elem,
                        uint64_t val, persim_scope s)
{
    persim_op o;
    memset(&o, 0, sizeof o);
    o.kind = (uint8_t)kind;
    o.scope = (uint8_t)s;
    if (elem > 255) die("flag size %u out of range", elem);
    o.elem = (uint8_t)elem;
    o.nlanes = 1;
    o.stride = elem;
    o.addr = flag;
    o.val = trunc_elem(val, elem ? elem : 8);
    return op_append(p, &o, NULL);
}

uint32_t op_release(persim_prog *p, uint64_t flag, uint32_t elem, uint64_t val, persim_scope s)
{ return flag_op(p, OPK_RELEASE, flag, elem, val, s); }
uint32_t op_acquire(persim_prog *p, uint64_t flag, uint32_t elem, uint64_t val, persim_scope s)
{ return flag_op(p, OPK_ACQUIRE, flag, elem, val, s); }

const char *op_kind_name(unsigned kind)
{
    static const char *const names[OPK__COUNT] = {
        "ld", "st", "compute", "order", "release", "acquire", "durable", "sync", "pbarrier", "require", "mark",
    };
    return kind < OPK__COUNT ? names[kind] : "?";
}

const char *mark_name(unsigned mark)
{
    static const char *const names[MARK__COUNT] = { "?", "func", "ret", "loop" };
    return mark > 0 && mark < MARK__COUNT ? names[mark] : "?";
}

const char *scope_name(unsigned scope)
{
    static const char *const names[SCOPE__COUNT] = { "none", "warp", "block", "device", "system" };
    return scope < SCOPE__COUNT ? names[scope] : "?";
}

/* ---- validation ---- */

int prog_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int elem_ok(unsigned e) { return e == 1 || e == 2 || e == 4 || e == 8; }

/* Scopes allowed for each kind, as a bit mask of 1 << scope. */
static unsigned scope_mask(unsigned kind)
{
    switch (kind) {
    case OPK_RELEASE: case OPK_ACQUIRE:
        return 1u << SCOPE_BLOCK | 1u << SCOPE_DEVICE | 1u << SCOPE_SYSTEM;
    case OPK_SYNC:     return 1u << SCOPE_BLOCK | 1u << SCOPE_DEVICE;
    case OPK_PBARRIER: return 1u << SCOPE_WARP | 1u << SCOPE_BLOCK | 1u << SCOPE_DEVICE;
    default:           return 1u << SCOPE_NONE;
    }
}

typedef struct id_ent { uint32_t id; uint64_t op; } id_ent;

/* Describes where global op index `i` lives: "kernel K ('name') block B warp W op N". */
static void op_where(const persim_prog *p, uint64_t i, char *buf, size_t len)
{
    for (uint32_t k = 0; k < p->nkernels; k++) {
        const persim_kernel *kk = &p->kernels[k];
        for (uint32_t b = 0; b < kk->nblocks; b++)
            for (uint32_t w = 0; w < kk->warps_per_block; w++) {
                const persim_stream *s = prog_stream(p, kk, b, w);
                if (i >= s->begin && i < s->end) {
                    snprintf(buf, len, "kernel %u ('%s') block %u warp %u op %llu", k, kk->name, b,
                             w, (unsigned long long)(i - s->begin));
                    return;
                }
            }
    }
    snprintf(buf, len, "op #%llu (in no stream)", (unsigned long long)i);
}

/* Checks one op; on failure err holds the problem (the caller prefixes the location). */
static int check_op(const persim_prog *p, const persim_op *o, char *err, size_t errlen)
{
    const char *kn = op_kind_name(o->kind);
    if (o->kind >= OPK__COUNT) return prog_errf(err, errlen, "unknown op kind %u", o->kind);
    if (o->kind == OPK_ST || o->kind == OPK_LD) {
        if (o->st_class >= STC__COUNT) return prog_errf(err, errlen, "%s: unknown access class %u", kn, o->st_class);
    } else if (o->scope >= SCOPE__COUNT || !(scope_mask(o->kind) >> o->scope & 1u))
        return prog_errf(err, errlen, "%s: scope '%s' not allowed", kn, scope_name(o->scope));
    switch (o->kind) {
    case OPK_LD:
    case OPK_ST: {
        if (!elem_ok(o->elem))
            return prog_errf(err, errlen, "%s: element size %u (must be 1, 2, 4 or 8)", kn, o->elem);
        if (o->nlanes < 1 || o->nlanes > PERSIM_WARP_SIZE)
            return prog_errf(err, errlen, "%s: %u lanes (must be 1..32)", kn, o->nlanes);
        if (o->nlanes > 1 && o->stride < o->elem)
            return prog_errf(err, errlen, "%s: stride %u smaller than element size %u", kn,
                        o->stride, o->elem);
        uint64_t span = (uint64_t)(o->nlanes - 1) * o->stride + o->elem;
        if (o->addr > UINT64_MAX - span)
            return prog_errf(err, errlen, "%s: address range wraps around", kn);
        if (o->kind == OPK_ST) {
            uint64_t lim = o->elem >= 8 ? UINT64_MAX : (1ull << (8 * o->elem)) - 1;
            if (o->vals != PERSIM_NOVALS && ((uint64_t)o->vals + o->nlanes > p->nvals))
                return prog_errf(err, errlen, "st: value index %u out of range", o->vals);
            for (uint32_t l = 0; l < o->nlanes; l++)
                if (op_lane_val(p, o, l) > lim)
                    return prog_errf(err, errlen, "st: lane %u value 0x%llx does not fit %u bytes", l, (unsigned long long)op_lane_val(p, o, l), o->elem);
        }
        break;
    }
    case OPK_RELEASE:
    case OPK_ACQUIRE: {
        if (o->elem != 4 && o->elem != 8)
            return prog_errf(err, errlen, "%s: flag size %u (must be 4 or 8)", kn, o->elem);
        if (o->addr % o->elem)
            return prog_errf(err, errlen, "%s: flag 0x%llx not aligned to %u bytes", kn,
                        (unsigned long long)o->addr, o->elem);
        if (o->elem == 4 && o->val > UINT32_MAX)
            return prog_errf(err, errlen, "%s: value 0x%llx does not fit 4 bytes", kn,
                        (unsigned long long)o->val);
        break;
    }
    case OPK_MARK:
        if (o->val < MARK_FUNC || o->val >= MARK__COUNT)
            return prog_errf(err, errlen, "mark: kind %llu (must be func, ret or loop)", (unsigned long long)o->val);
        break;
    default:
        break;
    }
    return 0;
}

int prog_validate(const persim_prog *p, char *err, size_t errlen)
{
    char where[128], msg[160];
    uint64_t next = 0;   /* streams of consecutive kernels must be consecutive */
    for (uint32_t k = 0; k < p->nkernels; k++) {
        const persim_kernel *kk = &p->kernels[k];
        if (kk->nblocks == 0 || kk->warps_per_block == 0)
            return prog_errf(err, errlen, "kernel %u ('%s'): no blocks or no warps", k, kk->name);
        uint64_t n = (uint64_t)kk->nblocks * kk->warps_per_block;
        if (kk->first_stream != next || kk->first_stream + n > p->nstreams)
            return prog_errf(err, errlen, "kernel %u ('%s'): streams out of range", k, kk->name);
        next += n;
        for (uint32_t b = 0; b < kk->nblocks; b++)
            for (uint32_t w = 0; w < kk->warps_per_block; w++) {
                const persim_stream *s = prog_stream(p, kk, b, w);
                if (s->begin > s->end || s->end > p->nops)
                    return prog_errf(err, errlen, "kernel %u ('%s') block %u warp %u: stream [%llu,%llu) "
                                "out of range", k, kk->name, b, w, (unsigned long long)s->begin,
                                (unsigned long long)s->end);
                for (uint64_t i = s->begin; i < s->end; i++)
                    if (check_op(p, &p->ops[i], msg, sizeof msg))
                        return prog_errf(err, errlen, "kernel %u ('%s') block %u warp %u op %llu: %s", k,
                                    kk->name, b, w, (unsigned long long)(i - s->begin), msg);
            }
    }
    if (!p->nops) return 0;
    /* Op ids: an open-addressing hash set (linear probing, load <= 1/2), linear time. The
     * duplicate reported is the smallest duplicated id, at its first two ops in stream order (what
     * a sort by (id, op) finds first). */
    uint64_t nid = 0;
    for (uint64_t i = 0; i < p->nops; i++)
        if (p->ops[i].id) nid++;
    uint64_t cap = 16;
    while (cap < 2 * nid) cap <<= 1;
    id_ent *tab = (id_ent *)calloc((size_t)cap, sizeof *tab);      /* id 0 = empty slot */
    if (!tab) return prog_errf(err, errlen, "out of memory");
    const uint64_t mask = cap - 1;
    uint32_t dup_id = 0;
    uint64_t dup_a = 0, dup_b = 0;
    for (uint64_t i = 0; i < p->nops; i++) {
        const uint32_t id = p->ops[i].id;
        if (!id) continue;
        uint64_t h = ((uint64_t)id * 0x9E3779B97F4A7C15ull >> 20) & mask;
        while (tab[h].id && tab[h].id != id) h = (h + 1) & mask;
        if (!tab[h].id) {
            tab[h].id = id;
            tab[h].op = i;
        } else if (!dup_id || id < dup_id) {
            dup_id = id;
            dup_a = tab[h].op;
            dup_b = i;
        }
    }
    if (dup_id) {
        /* a later duplicate of dup_id is not the first pair: dup_b is the first op after dup_a */
        char w2[128];
        op_where(p, dup_a, where, sizeof where);
        op_where(p, dup_b, w2, sizeof w2);
        free(tab);
        return prog_errf(err, errlen, "%s: duplicate op id %u (also used by %s)", w2, dup_id, where);
    }
    for (uint64_t i = 0; i < p->nops; i++) {
        const persim_op *o = &p->ops[i];
        if (o->kind != OPK_REQUIRE) continue;
        uint64_t want[2] = { o->val, o->addr };
        for (int j = 0; j < 2; j++) {
            int hit = 0;
            if (want[j] && want[j] <= UINT32_MAX) {
                const uint32_t id = (uint32_t)want[j];
                uint64_t h = ((uint64_t)id * 0x9E3779B97F4A7C15ull >> 20) & mask;
                while (tab[h].id && tab[h].id != id) h = (h + 1) & mask;
                hit = tab[h].id == id;
            }
            if (!hit) {
                free(tab);
                op_where(p, i, where, sizeof where);
                return prog_errf(err, errlen, "%s: require names unknown op id %llu", where,
                            (unsigned long long)want[j]);
            }
        }
    }
    free(tab);
    return 0;
}
