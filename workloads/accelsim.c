/* persim: reader of Accel-Sim's NVBit-based GPU traces; see accelsim.h and
 * docs/trace-format-accelsim.md (the format, the lowering, the sources it follows). */
#include "accelsim.h"

#include <errno.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AS_MAX_LINE     65536u      /* longest line accepted (a full list_all line is ~700 B) */
#define AS_MAX_TOK      128u        /* fields per line */
#define AS_MAX_BLOCKS   (1u << 24)  /* blocks per kernel (as persim's own traces) */
#define AS_MAX_THREADS  1024u       /* threads per block */
#define AS_MAX_WARPS    32u         /* AS_MAX_THREADS / 32 */
#define AS_MAX_STREAMS  (1u << 22)  /* warps per kernel (blocks x warps per block) */
#define AS_MAX_STRIDE   4096u       /* lanes further apart than this become separate ops */
#define AS_PATTERN      0x0101010101010101ull  /* the value every store and release writes */
#define AS_CHUNK        (1u << 20)  /* bytes read (or decompressed) at a time */

/* ================================================================ small helpers */

typedef struct opvec { persim_op *v; size_t n, cap; } opvec;

static int vec_push(opvec *w, const persim_op *o)
{
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 64;
        persim_op *v = (persim_op *)realloc(w->v, nc * sizeof *v);
        if (!v) return -1;
        w->v = v;
        w->cap = nc;
    }
    w->v[w->n++] = *o;
    return 0;
}

typedef struct bytevec { unsigned char *v; size_t n, cap; } bytevec;

static int bv_push(bytevec *b, unsigned char c)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 64;
        unsigned char *v = (unsigned char *)realloc(b->v, nc);
        if (!v) return -1;
        b->v = v;
        b->cap = nc;
    }
    b->v[b->n++] = c;
    return 0;
}

/* ================================================================ kernel parser */

enum { SYM_BAR = 'b', SYM_PB_BLOCK = 'c', SYM_PB_DEVICE = 'd' };

typedef struct kparser {
    const char *name;
    uint64_t line;
    char *err;
    size_t errlen;
    const accelsim_opts *o;
    persim_prog *p;
    accelsim_counts *c;
    uint64_t vol_mask;
    /* header */
    int have_grid, have_block, lineinfo;
    unsigned version;
    uint32_t g[3], b[3], nblocks, wpb;
    char kname[32];
    int started;                 /* prog_kernel called */
    uint64_t first_stream;
    /* thread block being read */
    int in_tb, have_tb_id;
    uint32_t tb[3], block;
    int64_t last_block;          /* linear id of the previous thread block, -1 before the first */
    int warp;                    /* current warp, -1 none */
    int have_insts;
    uint64_t insts_expected, insts_seen, insts_line;
    unsigned char warp_seen[AS_MAX_WARPS];
    opvec w[AS_MAX_WARPS];
    /* barrier sequences: the longest one of the kernel so far */
    bytevec ref;
    int kernel_has_device_pb, kernel_incompatible;
    /* tokens of the current line */
    char *tok[AS_MAX_TOK];
    size_t ntok;
} kparser;

static int kerr(kparser *k, const char *fmt, ...)
{
    if (k->err && k->errlen) {
        int n = snprintf(k->err, k->errlen, "%s:%llu: ", k->name, (unsigned long long)k->line);
        if (n >= 0 && (size_t)n < k->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(k->err + n, k->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static int oom(kparser *k) { return kerr(k, "out of memory"); }

static int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v'; }

/* Unsigned hex, with or without 0x, at most 16 digits. */
static int hex_u64(const char *t, uint64_t *v)
{
    const char *s = t;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    if (!*s || strlen(s) > 16) return -1;
    uint64_t x = 0;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
        else return -1;
        x = x << 4 | d;
    }
    *v = x;
    return 0;
}

static int dec_u64(const char *s, uint64_t *v)
{
    if (!*s) return -1;
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10) return -1;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

/* Signed decimal (an optional sign), in int64 range. */
static int dec_i64(const char *s, int64_t *v)
{
    int neg = 0;
    if (*s == '-' || *s == '+') { neg = *s == '-'; s++; }
    uint64_t m;
    if (dec_u64(s, &m)) return -1;
    if (neg ? m > (uint64_t)INT64_MAX + 1 : m > (uint64_t)INT64_MAX) return -1;
    *v = neg ? (int64_t)(0 - m) : (int64_t)m;
    return 0;
}

/* An immediate: signed decimal or 0x hex. */
static int is_imm(const char *t)
{
    int64_t i;
    uint64_t u;
    if (!dec_i64(t, &i)) return 1;
    return (t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && !hex_u64(t, &u));
}

/* "(x,y,z)" or "x,y,z" (blanks allowed around the numbers) -> three values in [lo, 2^31). */
static int parse_dim3(const char *s, uint32_t d[3], uint32_t lo)
{
    char buf[128];
    size_t n = 0;
    for (; *s && n + 1 < sizeof buf; s++)
        if (!is_space(*s)) buf[n++] = *s;
    if (*s) return -1;
    buf[n] = 0;
    char *q = buf;
    size_t len = strlen(q);
    if (len && q[0] == '(') {
        if (q[len - 1] != ')') return -1;
        q[len - 1] = 0;
        q++;
    }
    for (int i = 0; i < 3; i++) {
        char *comma = strchr(q, ',');
        if ((i < 2) != (comma != NULL)) return -1;
        if (comma) *comma = 0;
        uint64_t v;
        if (dec_u64(q, &v) || v < lo || v > 0x7FFFFFFFu) return -1;
        d[i] = (uint32_t)v;
        if (comma) q = comma + 1;
    }
    return 0;
}

static uint64_t vol_mask_of(uint64_t sys_pm_base)
{
    uint64_t half = sys_pm_base / 2, m = 1;
    while (m <= half / 2) m <<= 1;   /* the largest power of two <= half */
    return m - 1;
}

static int opts_ok(kparser *k)
{
    const accelsim_opts *o = k->o;
    if (o->sys_pm_base < (1u << 20))
        return kerr(k, "system.pm_base 0x%llx is below 1 MiB: no room for the volatile addresses",
                    (unsigned long long)o->sys_pm_base);
    if (o->pm_lo % 128 || o->pm_bytes % 128)
        return kerr(k, "accelsim.pm_base 0x%llx and accelsim.pm_bytes %llu must be multiples of 128",
                    (unsigned long long)o->pm_lo, (unsigned long long)o->pm_bytes);
    if (o->fence != ACCELSIM_FENCE_SCOPED && o->fence != ACCELSIM_FENCE_ORDER)
        return kerr(k, "bad fence lowering %d", o->fence);
    k->vol_mask = vol_mask_of(o->sys_pm_base);
    return 0;
}

static int is_pm(const kparser *k, uint64_t a)
{
    const accelsim_opts *o = k->o;
    if (a < o->pm_lo) return 0;
    return o->pm_bytes == 0 || a - o->pm_lo < o->pm_bytes;
}

/* The persim address of a lane's access of `width` bytes at trace address a. */
static int map_addr(kparser *k, uint64_t a, unsigned width, int *pm, uint64_t *out)
{
    if (a > UINT64_MAX - width) return kerr(k, "address 0x%llx + %u bytes wraps around", (unsigned long long)a, width);
    *pm = is_pm(k, a);
    if (*pm) {
        uint64_t off = a - k->o->pm_lo;
        if (off > UINT64_MAX - k->o->sys_pm_base - (1u << 20))
            return kerr(k, "PM address 0x%llx is too far above accelsim.pm_base to map", (unsigned long long)a);
        *out = k->o->sys_pm_base + off;
    } else {
        *out = a & k->vol_mask;
    }
    return 0;
}

static int push(kparser *k, const persim_op *o)
{
    opvec *w = &k->w[k->warp];
    if (o->kind == OPK_COMPUTE && w->n && w->v[w->n - 1].kind == OPK_COMPUTE) {
        w->v[w->n - 1].val += o->val;
        return 0;
    }
    return vec_push(w, o) ? oom(k) : 0;
}

static int push_compute(kparser *k, uint64_t n)
{
    persim_op o;
    memset(&o, 0, sizeof o);
    o.kind = OPK_COMPUTE;
    o.val = n;
    return push(k, &o);
}

static int push_simple(kparser *k, persim_op_kind kind, persim_scope s)
{
    persim_op o;
    memset(&o, 0, sizeof o);
    o.kind = (uint8_t)kind;
    o.scope = (uint8_t)s;
    return push(k, &o);
}

/* Warp loads or stores: one access of `width` bytes per active lane (addrs, n lanes), split into
 * ELEM-sized elements and merged into persim ops of constant stride. */
static int emit_mem(kparser *k, int store, const uint64_t *addrs, unsigned n, unsigned width)
{
    unsigned elem = width & (0u - width);      /* the largest power of two dividing width */
    if (elem > 8) elem = 8;
    const unsigned sub = width / elem;
    persim_op cur;
    int cur_pm = 0, have = 0, any_pm = 0, any_vol = 0;
    uint64_t last = 0;
    memset(&cur, 0, sizeof cur);
    for (unsigned i = 0; i < n; i++) {
        int pm;
        uint64_t base;
        if (map_addr(k, addrs[i], width, &pm, &base)) return -1;
        if (pm) any_pm = 1; else any_vol = 1;
        for (unsigned s = 0; s < sub; s++) {
            const uint64_t a = base + (uint64_t)s * elem;
            if (have && pm == cur_pm && a == last) continue;          /* same element: coalesced */
            if (have && pm == cur_pm && cur.nlanes < PERSIM_WARP_SIZE) {
                if (cur.nlanes == 1 && a > cur.addr && a - cur.addr >= elem && a - cur.addr <= AS_MAX_STRIDE) {
                    cur.stride = (uint32_t)(a - cur.addr);
                    cur.nlanes = 2;
                    last = a;
                    continue;
                }
                if (cur.nlanes > 1 && a > last && a - last == cur.stride) {
                    cur.nlanes++;
                    last = a;
                    continue;
                }
            }
            if (have && push(k, &cur)) return -1;
            memset(&cur, 0, sizeof cur);
            cur.kind = (uint8_t)(store ? OPK_ST : OPK_LD);
            cur.elem = (uint8_t)elem;
            cur.nlanes = 1;
            cur.stride = elem;
            cur.addr = a;
            cur.vals = PERSIM_NOVALS;
            cur.val = elem >= 8 ? AS_PATTERN : AS_PATTERN & ((1ull << (8 * elem)) - 1);
            cur_pm = pm;
            last = a;
            have = 1;
        }
    }
    if (have && push(k, &cur)) return -1;
    if (k->c) {
        if (store) { k->c->pm_stores += (uint64_t)any_pm; k->c->vol_stores += (uint64_t)any_vol; }
        else       { k->c->pm_loads  += (uint64_t)any_pm; k->c->vol_loads  += (uint64_t)any_vol; }
    }
    return 0;
}

/* Atomics: a release (and, when the atomic returns a value, an acquire) of every distinct lane
 * address at the atomic's scope. Widths other than 4 and 8, or unaligned addresses, are stores. */
static int emit_atomic(kparser *k, int acquire, const uint64_t *addrs, unsigned n, unsigned width, persim_scope scope)
{
    uint64_t flags[PERSIM_WARP_SIZE];
    unsigned nf = 0;
    for (unsigned i = 0; i < n; i++) {
        int pm;
        uint64_t a;
        if (map_addr(k, addrs[i], width, &pm, &a)) return -1;
        if ((width != 4 && width != 8) || a % width) {
            if (emit_mem(k, 1, &addrs[i], 1, width)) return -1;
            continue;
        }
        int dup = 0;
        for (unsigned j = 0; j < nf; j++) dup |= flags[j] == a;
        if (dup) continue;
        flags[nf++] = a;
        persim_op o;
        memset(&o, 0, sizeof o);
        o.kind = OPK_RELEASE;
        o.scope = (uint8_t)scope;
        o.elem = (uint8_t)width;
        o.nlanes = 1;
        o.addr = a;
        o.val = width == 8 ? AS_PATTERN : AS_PATTERN & 0xFFFFFFFFu;
        o.vals = PERSIM_NOVALS;
        if (push(k, &o)) return -1;
    }
    for (unsigned j = 0; acquire && j < nf; j++) {
        persim_op o;
        memset(&o, 0, sizeof o);
        o.kind = OPK_ACQUIRE;
        o.scope = (uint8_t)scope;
        o.elem = (uint8_t)width;
        o.nlanes = 1;
        o.addr = flags[j];
        o.val = width == 8 ? AS_PATTERN : AS_PATTERN & 0xFFFFFFFFu;
        o.vals = PERSIM_NOVALS;
        if (push(k, &o)) return -1;
    }
    if (k->c) k->c->atomics++;
    return 0;
}

/* Opcode classes. */
enum { CL_COMPUTE, CL_LOAD, CL_STORE, CL_ATOM, CL_RED, CL_SHARED, CL_MEMBAR, CL_BAR };

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list)) return 1;
    return 0;
}

/* Splits OPCODE at '.', classifies it by its first part and finds a scope modifier
 * (CTA -> block, GPU/GL -> device, SYS -> system; none -> device). */
static int classify(const char *opcode, int mem, persim_scope *scope)
{
    static const char *const shared[] = {"LDS", "STS", "ATOMS", "LDSM", "STSM", "LDSLK", "STSCUL", NULL};
    static const char *const stores[] = {"STG", "ST", "STL", "SUST", "STAS", NULL};
    static const char *const atoms[] = {"ATOM", "ATOMG", "SUATOM", NULL};
    static const char *const reds[] = {"RED", "REDG", "SURED", NULL};
    char buf[64];
    size_t n = strlen(opcode);
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, opcode, n);
    buf[n] = 0;
    char *first = buf, *dot = strchr(buf, '.');
    if (dot) *dot = 0;
    *scope = SCOPE_DEVICE;
    for (char *q = dot ? dot + 1 : NULL; q && *q;) {
        char *nd = strchr(q, '.');
        if (nd) *nd = 0;
        if (!strcmp(q, "CTA")) *scope = SCOPE_BLOCK;
        else if (!strcmp(q, "GPU") || !strcmp(q, "GL")) *scope = SCOPE_DEVICE;
        else if (!strcmp(q, "SYS")) *scope = SCOPE_SYSTEM;
        q = nd ? nd + 1 : NULL;
    }
    if (!strcmp(first, "MEMBAR")) return CL_MEMBAR;
    if (!strcmp(first, "BAR")) {
        /* BAR, BAR.SYNC[.DEFER_BLOCKING], BAR.RED: the threads wait; BAR.ARV does not */
        const char *mod = dot ? dot + 1 : "";
        return (!*mod || !strncmp(mod, "SYNC", 4) || !strncmp(mod, "RED", 3)) ? CL_BAR : CL_COMPUTE;
    }
    if (!mem) return CL_COMPUTE;
    if (in_list(first, shared)) return CL_SHARED;
    if (in_list(first, stores)) return CL_STORE;
    if (in_list(first, atoms)) return CL_ATOM;
    if (in_list(first, reds)) return CL_RED;
    return CL_LOAD;   /* LDG, LD, LDL, LDGSTS, TLD, TEX, SULD, ... */
}

static int split(kparser *k, char *s)
{
    k->ntok = 0;
    for (;;) {
        while (is_space(*s)) s++;
        if (!*s) return 0;
        if (k->ntok == AS_MAX_TOK) return kerr(k, "more than %u fields on one line", AS_MAX_TOK);
        k->tok[k->ntok++] = s;
        while (*s && !is_space(*s)) s++;
        if (!*s) return 0;
        *s++ = 0;
    }
}

static int parse_inst(kparser *k)
{
    size_t i = 0;
    const size_t nt = k->ntok;
    uint64_t v;
#define NEED(what) do { if (i >= nt) return kerr(k, "instruction line ends before its %s", what); } while (0)
    if (k->lineinfo) {
        NEED("line number");
        if (dec_u64(k->tok[i], &v)) return kerr(k, "bad line number '%s' (expected a decimal number)", k->tok[i]);
        i++;
    }
    NEED("PC");
    if (hex_u64(k->tok[i], &v)) return kerr(k, "bad PC '%s' (expected a hex number)", k->tok[i]);
    i++;
    NEED("active mask");
    uint64_t mask;
    if (hex_u64(k->tok[i], &mask) || mask > 0xFFFFFFFFu)
        return kerr(k, "bad active mask '%s' (expected at most 8 hex digits)", k->tok[i]);
    i++;
    NEED("destination count");
    if (dec_u64(k->tok[i], &v) || v > 32) return kerr(k, "bad destination count '%s' (0..32)", k->tok[i]);
    i++;
    if (nt - i < v + 1) return kerr(k, "instruction line ends before its opcode");
    i += (size_t)v;
    const char *opcode = k->tok[i++];
    if (!((opcode[0] >= 'A' && opcode[0] <= 'Z') || (opcode[0] >= 'a' && opcode[0] <= 'z')))
        return kerr(k, "bad opcode '%s'", opcode);
    NEED("source count");
    if (dec_u64(k->tok[i], &v) || v > 32) return kerr(k, "bad source count '%s' (0..32)", k->tok[i]);
    i++;
    if (nt - i < v) return kerr(k, "instruction line ends before its %llu sources", (unsigned long long)v);
    i += (size_t)v;
    NEED("memory width");
    uint64_t width;
    if (dec_u64(k->tok[i], &width) || width > 128)
        return kerr(k, "bad memory width '%s' (0..128 bytes)", k->tok[i]);
    i++;
    uint64_t addrs[PERSIM_WARP_SIZE];
    unsigned n = 0;
    if (width) {
        NEED("address compression mode");
        uint64_t mode;
        if (dec_u64(k->tok[i], &mode) || mode > 2)
            return kerr(k, "bad address compression mode '%s' (0 = list, 1 = base+stride, 2 = base+deltas)", k->tok[i]);
        i++;
        unsigned act = 0;
        for (unsigned l = 0; l < 32; l++) act += (unsigned)((mask >> l) & 1u);
        if (mode == 0) {
            if (nt - i < act) return kerr(k, "%u addresses for %u active threads (mask %s)", (unsigned)(nt - i), act, k->tok[k->lineinfo + 1]);
            for (unsigned l = 0; l < act; l++, i++)
                if (hex_u64(k->tok[i], &addrs[n++])) return kerr(k, "bad address '%s' (expected a hex number)", k->tok[i]);
        } else if (mode == 1) {
            if (nt - i < 2) return kerr(k, "base+stride address needs a base and a stride");
            uint64_t base;
            int64_t stride;
            if (hex_u64(k->tok[i], &base)) return kerr(k, "bad base address '%s' (expected a hex number)", k->tok[i]);
            if (dec_i64(k->tok[i + 1], &stride)) return kerr(k, "bad stride '%s' (expected a decimal number)", k->tok[i + 1]);
            i += 2;
            /* the tracer writes this mode only for one contiguous run of active threads */
            uint64_t m = mask;
            while (m && !(m & 1)) m >>= 1;
            if (m & (m + 1)) return kerr(k, "base+stride addresses with a non-contiguous active mask %s", k->tok[k->lineinfo + 1]);
            for (unsigned l = 0; l < act; l++) addrs[n++] = base + (uint64_t)stride * l;
        } else {
            NEED("base address");
            uint64_t a;
            if (hex_u64(k->tok[i], &a)) return kerr(k, "bad base address '%s' (expected a hex number)", k->tok[i]);
            i++;
            unsigned nd = act ? act - 1 : 0;
            if (nt - i < nd) return kerr(k, "%u address deltas for %u active threads (expected %u)", (unsigned)(nt - i), act, nd);
            if (act) addrs[n++] = a;
            for (unsigned l = 0; l < nd; l++, i++) {
                int64_t d;
                if (dec_i64(k->tok[i], &d)) return kerr(k, "bad address delta '%s' (expected a decimal number)", k->tok[i]);
                a += (uint64_t)d;
                addrs[n++] = a;
            }
        }
    }
    if (i < nt && is_imm(k->tok[i])) i++;   /* the immediate (tracer version 5) */
    if (i < nt) return kerr(k, "unexpected '%s' at the end of the instruction line", k->tok[i]);
#undef NEED
    if (k->c) k->c->insts++;

    persim_scope scope;
    const int cls = classify(opcode, width > 0, &scope);
    switch (cls) {
    case CL_MEMBAR:
        if (k->c) k->c->fences++;
        if (k->o->fence == ACCELSIM_FENCE_ORDER) return push_simple(k, OPK_ORDER, SCOPE_NONE);
        return push_simple(k, OPK_PBARRIER, scope == SCOPE_BLOCK ? SCOPE_BLOCK : SCOPE_DEVICE);
    case CL_BAR:
        if (k->c) k->c->barriers++;
        return push_simple(k, OPK_SYNC, SCOPE_BLOCK);
    case CL_LOAD:
        return n ? emit_mem(k, 0, addrs, n, (unsigned)width) : push_compute(k, 1);
    case CL_STORE:
        return n ? emit_mem(k, 1, addrs, n, (unsigned)width) : push_compute(k, 1);
    case CL_ATOM:
    case CL_RED:
        return n ? emit_atomic(k, cls == CL_ATOM, addrs, n, (unsigned)width, scope) : push_compute(k, 1);
    case CL_SHARED:
        if (k->c) k->c->shared++;
        return push_compute(k, 1);
    default:
        return push_compute(k, 1);
    }
}

/* ---- thread blocks ---- */

static int end_warp(kparser *k)
{
    if (k->warp >= 0 && k->have_insts && k->insts_seen != k->insts_expected)
        return kerr(k, "warp %d of thread block %u,%u,%u: 'insts = %llu' (line %llu) but %llu instruction lines",
                    k->warp, k->tb[0], k->tb[1], k->tb[2], (unsigned long long)k->insts_expected,
                    (unsigned long long)k->insts_line, (unsigned long long)k->insts_seen);
    k->warp = -1;
    k->have_insts = 0;
    return 0;
}

static int start_kernel(kparser *k)
{
    if (k->started) return 0;
    uint64_t threads = (uint64_t)k->b[0] * k->b[1] * k->b[2];
    if ((uint64_t)k->nblocks * k->wpb > AS_MAX_STREAMS)
        return kerr(k, "grid of %u blocks of %u warps has more than %u warps", k->nblocks, k->wpb, AS_MAX_STREAMS);
    (void)prog_kernel(k->p, k->kname[0] ? k->kname : "kernel", k->nblocks, (uint32_t)threads);
    k->first_stream = k->p->kernels[k->p->nkernels - 1].first_stream;
    k->started = 1;
    if (k->c) k->c->kernels++;
    return 0;
}

static unsigned char sym_of(const persim_op *o)
{
    if (o->kind == OPK_SYNC) return SYM_BAR;
    if (o->kind == OPK_PBARRIER) return o->scope == SCOPE_BLOCK ? SYM_PB_BLOCK : SYM_PB_DEVICE;
    return 0;
}

/* Is a a prefix of b or b of a? */
static int prefix_compatible(const unsigned char *a, size_t na, const unsigned char *b, size_t nb)
{
    size_t n = na < nb ? na : nb;
    return n == 0 || memcmp(a, b, n) == 0;
}

static int end_tb(kparser *k)
{
    if (end_warp(k)) return -1;
    if (!k->have_tb_id) return kerr(k, "#END_TB of a thread block without a 'thread block = x,y,z' line");
    /* Execution barriers: the warps of the block must meet their barriers in the same order (one
     * sequence a prefix of the other), or the lowered program could deadlock where the traced one
     * did not (e.g. only warp 0 ran a MEMBAR). If not, this block's MEMBARs become `order`. */
    bytevec seq[AS_MAX_WARPS];
    memset(seq, 0, sizeof seq);
    int ok = 1, rc = 0;
    for (uint32_t w = 0; w < k->wpb && !rc; w++)
        for (size_t i = 0; i < k->w[w].n; i++) {
            unsigned char s = sym_of(&k->w[w].v[i]);
            if (s && bv_push(&seq[w], s)) { rc = oom(k); break; }
        }
    size_t longest = 0;
    for (uint32_t w = 0; w < k->wpb && !rc; w++) {
        if (seq[w].n > seq[longest].n) longest = w;
    }
    for (uint32_t w = 0; w < k->wpb && !rc; w++)
        ok &= prefix_compatible(seq[w].v, seq[w].n, seq[longest].v, seq[longest].n);
    if (!ok && !rc) {
        for (uint32_t w = 0; w < k->wpb; w++) {
            size_t j = 0;
            for (size_t i = 0; i < k->w[w].n; i++) {
                persim_op *o = &k->w[w].v[i];
                if (o->kind == OPK_PBARRIER) {
                    o->kind = OPK_ORDER;
                    o->scope = SCOPE_NONE;
                    if (k->c) k->c->barriers_dropped++;
                }
                unsigned char s = sym_of(o);
                if (s) seq[w].v[j++] = s;
            }
            seq[w].n = j;
        }
    }
    /* The kernel: device-scope barriers need every warp's sequence compatible (checked at the end). */
    for (uint32_t w = 0; w < k->wpb && !rc; w++) {
        if (!prefix_compatible(seq[w].v, seq[w].n, k->ref.v, k->ref.n)) k->kernel_incompatible = 1;
        for (size_t i = k->ref.n; i < seq[w].n && !rc; i++)
            if (bv_push(&k->ref, seq[w].v[i])) rc = oom(k);
        for (size_t i = 0; i < seq[w].n; i++) k->kernel_has_device_pb |= seq[w].v[i] == SYM_PB_DEVICE;
    }
    for (uint32_t w = 0; w < AS_MAX_WARPS; w++) free(seq[w].v);
    if (rc) return rc;
    /* Emit the block's warps (blocks come in ascending order, so streams open in order). */
    for (uint32_t w = 0; w < k->wpb; w++) {
        if (k->warp_seen[w] && k->c) k->c->warps++;
        if (!k->w[w].n) continue;
        prog_warp(k->p, k->block, w);
        for (size_t i = 0; i < k->w[w].n; i++) (void)op_append(k->p, &k->w[w].v[i], NULL);
        k->w[w].n = 0;
    }
    if (k->c) k->c->blocks++;
    k->last_block = k->block;
    k->in_tb = 0;
    k->have_tb_id = 0;
    return 0;
}

/* At the end of the kernel: device-scope barriers of warps that meet barriers in different orders
 * become `order` (a grid-wide rendezvous could deadlock). */
static void end_kernel(kparser *k)
{
    if (!(k->kernel_has_device_pb && k->kernel_incompatible)) return;
    persim_prog *p = k->p;
    const persim_kernel *K = &p->kernels[p->nkernels - 1];
    const uint64_t o0 = p->streams[K->first_stream].begin;   /* the kernel's ops are the last ones */
    for (uint64_t o = o0; o < p->nops; o++) {
        persim_op *op = &p->ops[o];
        if (op->kind == OPK_PBARRIER && op->scope >= SCOPE_DEVICE) {
            op->kind = OPK_ORDER;
            op->scope = SCOPE_NONE;
            if (k->c) k->c->barriers_dropped++;
        }
    }
}

static int header_line(kparser *k, char *line)
{
    if (k->started || k->in_tb) return kerr(k, "header line '%s' after the first thread block", line);
    char *eq = strchr(line, '=');
    if (!eq) return kerr(k, "header line '%s' has no '='", line);
    /* key: the words between '-' and '=' */
    char key[64];
    size_t n = 0;
    for (char *s = line + 1; s < eq && n + 1 < sizeof key; s++) key[n++] = *s;
    while (n && is_space(key[n - 1])) n--;
    key[n] = 0;
    char *val = eq + 1;
    while (is_space(*val)) val++;
    size_t vl = strlen(val);
    while (vl && is_space(val[vl - 1])) val[--vl] = 0;
    if (!strcmp(key, "kernel name")) {
        if (!*val) return kerr(k, "empty kernel name");
        size_t m = 0;
        for (const char *s = val; *s && m + 1 < sizeof k->kname; s++)
            k->kname[m++] = (*s == ' ' || *s == '\t' || *s == '#' || (unsigned char)*s >= 0x80) ? '_' : *s;
        k->kname[m] = 0;
    } else if (!strcmp(key, "grid dim")) {
        if (parse_dim3(val, k->g, 1)) return kerr(k, "bad grid dim '%s' (expected (x,y,z), each at least 1)", val);
        uint64_t nb = (uint64_t)k->g[0] * k->g[1] * k->g[2];
        if (nb > AS_MAX_BLOCKS) return kerr(k, "grid of %llu blocks is larger than %u", (unsigned long long)nb, AS_MAX_BLOCKS);
        k->nblocks = (uint32_t)nb;
        k->have_grid = 1;
    } else if (!strcmp(key, "block dim")) {
        if (parse_dim3(val, k->b, 1)) return kerr(k, "bad block dim '%s' (expected (x,y,z), each at least 1)", val);
        uint64_t nt = (uint64_t)k->b[0] * k->b[1] * k->b[2];
        if (nt > AS_MAX_THREADS) return kerr(k, "block of %llu threads is larger than %u", (unsigned long long)nt, AS_MAX_THREADS);
        k->wpb = (uint32_t)((nt + 31) / 32);
        k->have_block = 1;
    } else if (!strcmp(key, "accelsim tracer version")) {
        uint64_t v;
        if (dec_u64(val, &v) || v > 1000) return kerr(k, "bad tracer version '%s'", val);
        if (v < 3) return kerr(k, "accelsim tracer version %llu is not supported (this reader reads version 3 and later)", (unsigned long long)v);
        k->version = (unsigned)v;
    } else if (!strcmp(key, "warp size")) {
        uint64_t v;
        if (dec_u64(val, &v) || v != PERSIM_WARP_SIZE)
            return kerr(k, "warp size '%s' is not supported (persim's GPU has %u-thread warps)", val, PERSIM_WARP_SIZE);
    } else if (!strcmp(key, "enable lineinfo")) {
        uint64_t v;
        if (dec_u64(val, &v) || v > 1) return kerr(k, "bad lineinfo flag '%s' (0 or 1)", val);
        k->lineinfo = (int)v;
    }
    /* other keys (kernel id, shmem, nregs, binary version, cuda stream id, shmem base_addr,
     * local mem base_addr, nvbit version) do not change the lowering */
    return 0;
}

static int tb_line(kparser *k)
{
    const char *t0 = k->tok[0];
    const char *t1 = k->ntok > 1 ? k->tok[1] : "";
    if (!strcmp(t0, "thread") && !strcmp(t1, "block")) {
        if (k->have_tb_id) return kerr(k, "second 'thread block' line in one thread block");
        if (k->ntok < 4 || strcmp(k->tok[2], "=")) return kerr(k, "bad thread block line (expected 'thread block = x,y,z')");
        char buf[128] = {0};
        for (size_t i = 3; i < k->ntok; i++) {
            if (strlen(buf) + strlen(k->tok[i]) + 1 >= sizeof buf) return kerr(k, "bad thread block line");
            strcat(buf, k->tok[i]);
        }
        if (parse_dim3(buf, k->tb, 0)) return kerr(k, "bad thread block '%s' (expected x,y,z)", buf);
        for (int d = 0; d < 3; d++)
            if (k->tb[d] >= k->g[d])
                return kerr(k, "thread block %u,%u,%u outside the grid (%u,%u,%u)", k->tb[0], k->tb[1], k->tb[2],
                            k->g[0], k->g[1], k->g[2]);
        uint64_t lin = (uint64_t)k->tb[2] * k->g[1] * k->g[0] + (uint64_t)k->tb[1] * k->g[0] + k->tb[0];
        if ((int64_t)lin <= k->last_block)
            return kerr(k, "thread block %u,%u,%u repeated or out of order (blocks must come in ascending order)",
                        k->tb[0], k->tb[1], k->tb[2]);
        k->block = (uint32_t)lin;
        k->have_tb_id = 1;
        return 0;
    }
    if (!strcmp(t0, "cluster")) return 0;   /* cluster id / cta / rank (Hopper): not modelled */
    if (!strcmp(t0, "warp")) {
        uint64_t w;
        if (!k->have_tb_id) return kerr(k, "'warp' line before the 'thread block' line");
        if (k->ntok != 3 || strcmp(k->tok[1], "=") || dec_u64(k->tok[2], &w))
            return kerr(k, "bad warp line (expected 'warp = W')");
        if (end_warp(k)) return -1;
        if (w >= k->wpb)
            return kerr(k, "warp %llu out of range (a block of %u threads has %u warps)", (unsigned long long)w,
                        k->b[0] * k->b[1] * k->b[2], k->wpb);
        if (k->warp_seen[w]) return kerr(k, "warp %llu repeated in thread block %u,%u,%u", (unsigned long long)w,
                                         k->tb[0], k->tb[1], k->tb[2]);
        k->warp_seen[w] = 1;
        k->warp = (int)w;
        return 0;
    }
    if (!strcmp(t0, "insts")) {
        uint64_t n;
        if (k->warp < 0) return kerr(k, "'insts' line before a 'warp' line");
        if (k->have_insts) return kerr(k, "second 'insts' line for warp %d", k->warp);
        if (k->ntok != 3 || strcmp(k->tok[1], "=") || dec_u64(k->tok[2], &n))
            return kerr(k, "bad insts line (expected 'insts = N')");
        k->insts_expected = n;
        k->insts_seen = 0;
        k->insts_line = k->line;
        k->have_insts = 1;
        return 0;
    }
    if (!k->have_insts) return kerr(k, "instruction line '%s ...' before a 'warp' and 'insts' line", t0);
    if (k->insts_seen == k->insts_expected)
        return kerr(k, "warp %d of thread block %u,%u,%u has more than its 'insts = %llu' instruction lines", k->warp,
                    k->tb[0], k->tb[1], k->tb[2], (unsigned long long)k->insts_expected);
    k->insts_seen++;
    return parse_inst(k);
}

/* One line (NUL-terminated, without its '\n'; modified in place). */
static int kline(kparser *k, char *line)
{
    char *s = line;
    while (is_space(*s)) s++;
    size_t n = strlen(s);
    while (n && is_space(s[n - 1])) s[--n] = 0;
    if (!*s) return 0;
    if (*s == '-') return header_line(k, s);
    if (split(k, s)) return -1;
    if (k->tok[0][0] == '#') {
        if (!strcmp(k->tok[0], "#BEGIN_TB")) {
            if (k->in_tb) return kerr(k, "#BEGIN_TB inside a thread block (missing #END_TB)");
            if (!k->have_grid || !k->have_block)
                return kerr(k, "missing header: '-grid dim = (x,y,z)' and '-block dim = (x,y,z)' must come before the first thread block");
            if (start_kernel(k)) return -1;
            k->in_tb = 1;
            k->have_tb_id = 0;
            k->warp = -1;
            k->have_insts = 0;
            memset(k->warp_seen, 0, sizeof k->warp_seen);
            return 0;
        }
        if (!strcmp(k->tok[0], "#END_TB")) {
            if (!k->in_tb) return kerr(k, "#END_TB without #BEGIN_TB");
            return end_tb(k);
        }
        return 0;   /* a comment, e.g. "#traces format = ..." */
    }
    if (!k->in_tb)
        return kerr(k, "unexpected '%s' outside a thread block (#BEGIN_TB ... #END_TB; a raw .trace must first go "
                       "through Accel-Sim's post-traces-processing)", k->tok[0]);
    return tb_line(k);
}

static int kfinish(kparser *k)
{
    if (k->in_tb) return kerr(k, "end of file inside thread block %u,%u,%u (missing #END_TB)", k->tb[0], k->tb[1], k->tb[2]);
    if (!k->have_grid || !k->have_block)
        return kerr(k, "missing header: no '-grid dim = (x,y,z)' and '-block dim = (x,y,z)' lines");
    if (start_kernel(k)) return -1;
    end_kernel(k);
    return 0;
}

static void kfree(kparser *k)
{
    for (unsigned w = 0; w < AS_MAX_WARPS; w++) free(k->w[w].v);
    free(k->ref.v);
}

static int kinit(kparser *k, const char *name, const accelsim_opts *o, persim_prog *p, accelsim_counts *c,
                 char *err, size_t errlen)
{
    memset(k, 0, sizeof *k);
    k->name = name;
    k->err = err;
    k->errlen = errlen;
    k->o = o;
    k->p = p;
    k->c = c;
    k->version = 4;
    k->last_block = -1;
    k->warp = -1;
    if (err && errlen) err[0] = 0;
    return opts_ok(k);
}

/* ---- line assembly over chunks ---- */

typedef struct liner {
    char *buf;
    size_t n, cap;
    int too_long;
} liner;

/* Feeds bytes; calls kline for every complete line. */
static int liner_feed(liner *L, kparser *k, const char *data, size_t len)
{
    for (size_t i = 0; i < len;) {
        const char *nl = (const char *)memchr(data + i, '\n', len - i);
        size_t take = nl ? (size_t)(nl - (data + i)) : len - i;
        if (!L->too_long) {
            if (L->n + take + 1 > AS_MAX_LINE) {
                L->too_long = 1;
            } else {
                if (L->n + take + 1 > L->cap) {
                    size_t nc = L->cap ? L->cap : 256;
                    while (nc < L->n + take + 1) nc *= 2;
                    char *b = (char *)realloc(L->buf, nc);
                    if (!b) return oom(k);
                    L->buf = b;
                    L->cap = nc;
                }
                memcpy(L->buf + L->n, data + i, take);
                L->n += take;
            }
        }
        i += take;
        if (!nl) break;
        i++;
        k->line++;
        if (L->too_long) return kerr(k, "line longer than %u bytes", AS_MAX_LINE);
        L->buf[L->n] = 0;
        if (memchr(L->buf, 0, L->n)) return kerr(k, "NUL byte in the text");
        L->n = 0;
        if (kline(k, L->buf)) return -1;
    }
    return 0;
}

static int liner_end(liner *L, kparser *k)
{
    int rc = 0;
    if (L->n || L->too_long) {          /* a last line without '\n' */
        k->line++;
        if (L->too_long) rc = kerr(k, "line longer than %u bytes", AS_MAX_LINE);
        else {
            L->buf[L->n] = 0;
            if (memchr(L->buf, 0, L->n)) rc = kerr(k, "NUL byte in the text");
            else rc = kline(k, L->buf);
        }
    }
    free(L->buf);
    memset(L, 0, sizeof *L);
    return rc;
}

int accelsim_parse_kernel(const char *name, const char *buf, size_t len, const accelsim_opts *o,
                          persim_prog *p, accelsim_counts *counts, char *err, size_t errlen)
{
    kparser k;
    liner L;
    memset(&L, 0, sizeof L);
    int rc = kinit(&k, name, o, p, counts, err, errlen);
    if (!rc) rc = liner_feed(&L, &k, buf, len);
    if (!rc) rc = liner_end(&L, &k);
    else free(L.buf);
    if (!rc) rc = kfinish(&k);
    kfree(&k);
    return rc;
}

/* ================================================================ files */

static const unsigned char XZ_MAGIC[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};

int accelsim_read_kernel_file(const char *path, const accelsim_opts *o, persim_prog *p,
                              accelsim_counts *counts, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) return prog_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    kparser k;
    liner L;
    memset(&L, 0, sizeof L);
    int rc = kinit(&k, path, o, p, counts, err, errlen);
    unsigned char *in = (unsigned char *)malloc(AS_CHUNK), *out = (unsigned char *)malloc(AS_CHUNK);
    if (!rc && (!in || !out)) rc = prog_errf(err, errlen, "%s: out of memory", path);
    size_t got = rc ? 0 : fread(in, 1, AS_CHUNK, f);
    const int xz = got >= sizeof XZ_MAGIC && !memcmp(in, XZ_MAGIC, sizeof XZ_MAGIC);
    if (!rc && !xz) {
        for (;;) {
            if (got && (rc = liner_feed(&L, &k, (const char *)in, got))) break;
            if (got < AS_CHUNK) {
                if (ferror(f)) rc = prog_errf(err, errlen, "%s: read error", path);
                break;
            }
            got = fread(in, 1, AS_CHUNK, f);
        }
    } else if (!rc) {
        lzma_stream zs = LZMA_STREAM_INIT;
        if (lzma_stream_decoder(&zs, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
            rc = prog_errf(err, errlen, "%s: cannot start the xz decoder", path);
        } else {
            int eof = got < AS_CHUNK;
            zs.next_in = in;
            zs.avail_in = got;
            for (;;) {
                if (zs.avail_in == 0 && !eof) {
                    got = fread(in, 1, AS_CHUNK, f);
                    if (ferror(f)) { rc = prog_errf(err, errlen, "%s: read error", path); break; }
                    eof = got < AS_CHUNK;
                    zs.next_in = in;
                    zs.avail_in = got;
                }
                zs.next_out = out;
                zs.avail_out = AS_CHUNK;
                lzma_ret r = lzma_code(&zs, eof && zs.avail_in == 0 ? LZMA_FINISH : LZMA_RUN);
                size_t produced = AS_CHUNK - zs.avail_out;
                if (produced && (rc = liner_feed(&L, &k, (const char *)out, produced))) break;
                if (r == LZMA_STREAM_END) break;
                if (r == LZMA_BUF_ERROR || (r == LZMA_OK && eof && zs.avail_in == 0 && produced == 0)) {
                    rc = prog_errf(err, errlen, "%s: truncated xz data (the compressed file is cut short)", path);
                    break;
                }
                if (r != LZMA_OK) {
                    rc = prog_errf(err, errlen, "%s: corrupt xz data (liblzma error %d)", path, (int)r);
                    break;
                }
            }
            lzma_end(&zs);
        }
    }
    if (!rc) rc = liner_end(&L, &k);
    else free(L.buf);
    if (!rc) rc = kfinish(&k);
    kfree(&k);
    free(in);
    free(out);
    fclose(f);
    return rc;
}

int accelsim_parse_kernelslist(const char *name, const char *buf, size_t len, const char *dir,
                               const accelsim_opts *o, persim_prog *p, accelsim_counts *counts,
                               char *err, size_t errlen)
{
    uint64_t line = 0;
    size_t i = 0;
    int nkern = 0;
    while (i < len) {
        const char *nl = (const char *)memchr(buf + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - buf) : len;
        line++;
        size_t a = i, b = end;
        while (a < b && is_space(buf[a])) a++;
        while (b > a && is_space(buf[b - 1])) b--;
        i = end + 1;
        if (a == b) continue;
        const char *s = buf + a;
        size_t n = b - a;
        if (memchr(s, 0, n)) return prog_errf(err, errlen, "%s:%llu: NUL byte in the text", name, (unsigned long long)line);
        if (n >= 6 && !memcmp(s, "Memcpy", 6)) {
            if (counts) counts->memcpys++;   /* no values in the trace: nothing to copy */
            continue;
        }
        if (n >= 6 && !memcmp(s, "kernel", 6)) {
            if (n > 4096) return prog_errf(err, errlen, "%s:%llu: kernel file name too long", name, (unsigned long long)line);
            char path[8192];
            snprintf(path, sizeof path, "%s%s%.*s", dir && *dir ? dir : "", dir && *dir ? "/" : "", (int)n, s);
            if (accelsim_read_kernel_file(path, o, p, counts, err, errlen)) {
                if (err && errlen && !strncmp(err, path, strlen(path)) && strstr(err, ": cannot open:")) {
                    char tmp[1024];
                    snprintf(tmp, sizeof tmp, "%s", err);
                    prog_errf(err, errlen, "%s:%llu: kernel file %s", name, (unsigned long long)line, tmp);
                }
                return -1;
            }
            nkern++;
            continue;
        }
        return prog_errf(err, errlen, "%s:%llu: unexpected '%.*s' (expected a 'kernel-N.traceg' or 'MemcpyHtoD,ADDR,BYTES' line)",
                    name, (unsigned long long)line, (int)(n > 40 ? 40 : n), s);
    }
    if (!nkern) return prog_errf(err, errlen, "%s: names no kernel files (no 'kernel-N.traceg' line)", name);
    return 0;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

int accelsim_path_is_trace(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (ends_with(base, ".g") || ends_with(base, ".traceg") || ends_with(base, ".traceg.xz") ||
        !strncmp(base, "kernelslist", 11))
        return 1;
    if (ends_with(base, ".trace") || ends_with(base, ".zst")) return 0;   /* persim's own */
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char head[16] = {0};
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    if (n >= sizeof XZ_MAGIC && !memcmp(head, XZ_MAGIC, sizeof XZ_MAGIC)) return 1;
    return !strncmp(head, "-kernel name", 12) || !strncmp(head, "MemcpyHtoD,", 11) || !strncmp(head, "kernel-", 7);
}

void accelsim_default_opts(accelsim_opts *o)
{
    memset(o, 0, sizeof *o);
    o->sys_pm_base = PERSIM_PM_BASE;
    o->fence = ACCELSIM_FENCE_SCOPED;
}

int accelsim_read_file(const char *path, const accelsim_opts *o, persim_prog **out,
                       accelsim_counts *counts, char *err, size_t errlen)
{
    *out = NULL;
    persim_prog *p = prog_new();
    int rc;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    FILE *f = fopen(path, "rb");
    if (!f) { prog_free(p); return prog_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); }
    char head[16] = {0};
    size_t hn = fread(head, 1, sizeof head - 1, f);
    const int kernel_file = ends_with(base, ".traceg") || ends_with(base, ".traceg.xz") ||
                            (hn >= sizeof XZ_MAGIC && !memcmp(head, XZ_MAGIC, sizeof XZ_MAGIC)) || head[0] == '-';
    if (kernel_file) {
        fclose(f);
        rc = accelsim_read_kernel_file(path, o, p, counts, err, errlen);
    } else {
        /* a kernelslist: small; read it whole */
        size_t cap = 4096, n = 0;
        char *text = (char *)malloc(cap);
        rc = text ? 0 : prog_errf(err, errlen, "%s: out of memory", path);
        if (!rc) {
            memcpy(text, head, hn);
            n = hn;
            for (;;) {
                if (n == cap) {
                    if (cap >= (64u << 20)) { rc = prog_errf(err, errlen, "%s: larger than 64 MiB: not a kernelslist", path); break; }
                    char *t = (char *)realloc(text, cap * 2);
                    if (!t) { rc = prog_errf(err, errlen, "%s: out of memory", path); break; }
                    text = t;
                    cap *= 2;
                }
                size_t g = fread(text + n, 1, cap - n, f);
                n += g;
                if (g == 0) break;
            }
        }
        fclose(f);
        if (!rc) {
            char dir[4096];
            size_t dl = (size_t)(base - path);
            if (dl >= sizeof dir) dl = sizeof dir - 1;
            memcpy(dir, path, dl);
            dir[dl] = 0;
            if (dl && dir[dl - 1] == '/') dir[dl - 1] = 0;
            if (dl == 1 && path[0] == '/') strcpy(dir, "/");   /* "/kernelslist.g" */
            rc = accelsim_parse_kernelslist(path, text, n, dl ? (dir[0] ? dir : "/") : ".", o, p, counts, err, errlen);
        }
        free(text);
    }
    if (rc) { prog_free(p); return -1; }
    *out = p;
    return 0;
}
