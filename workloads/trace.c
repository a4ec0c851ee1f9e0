/* persim: text trace reader and writer ("persim-trace 1", docs/trace-format.md). */
#define _GNU_SOURCE 1   /* fopencookie: the zstd-compressing FILE of trace_write_file */
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define MAX_THREADS 1024u          /* threads per block */
#define MAX_BLOCKS  (1u << 24)     /* blocks per kernel */
#define MAX_ID      0xFFFFFFFEu

/* ================================================================ reader */

typedef struct id_set {            /* open addressing: op id -> line that defined it */
    uint32_t *key, *line;
    size_t    cap, n;
} id_set;

typedef struct pending_req { uint32_t before, after; uint64_t line; } pending_req;

typedef struct parser {
    const char  *name;
    uint64_t     line;
    char        *err;
    size_t       errlen;
    trace_data  *out;
    size_t       cap_expects;
    int          have_header;
    int          have_kernel;
    int          have_warp;
    uint32_t     last_block, last_warp;
    id_set       ids;
    pending_req *reqs;
    size_t       nreqs, cap_reqs;
    /* tokens of the current line */
    char       **tok;
    size_t       ntok, cap_tok;
} parser;

static int perr(parser *ps, const char *fmt, ...)
{
    if (ps->err && ps->errlen) {
        int n = snprintf(ps->err, ps->errlen, "%s:%llu: ", ps->name, (unsigned long long)ps->line);
        if (n >= 0 && (size_t)n < ps->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static size_t id_hash(uint32_t id, size_t cap) { return (size_t)((id * 0x9E3779B1u) & (cap - 1)); }

static uint32_t *id_find(id_set *s, uint32_t id)   /* line slot, or NULL */
{
    if (!s->cap) return NULL;
    for (size_t i = id_hash(id, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->key[i] == id) return &s->line[i];
        if (s->key[i] == 0) return NULL;
    }
}

static int id_insert(id_set *s, uint32_t id, uint32_t line)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 1024;
        uint32_t *k = (uint32_t *)calloc(ncap, sizeof *k), *l = (uint32_t *)calloc(ncap, sizeof *l);
        if (!k || !l) { free(k); free(l); return -1; }
        for (size_t i = 0; i < s->cap; i++)
            if (s->key[i]) {
                size_t j = id_hash(s->key[i], ncap);
                while (k[j]) j = (j + 1) & (ncap - 1);
                k[j] = s->key[i];
                l[j] = s->line[i];
            }
        free(s->key);
        free(s->line);
        s->key = k;
        s->line = l;
        s->cap = ncap;
    }
    size_t i = id_hash(id, s->cap);
    while (s->key[i]) i = (i + 1) & (s->cap - 1);
    s->key[i] = id;
    s->line[i] = line;
    s->n++;
    return 0;
}

/* Unsigned number: decimal or 0x hex, no sign, nothing after it. */
static int parse_u64(parser *ps, const char *t, const char *what, uint64_t *v)
{
    const char *s = t;
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s += 2; }
    if (!*s) return perr(ps, "bad %s '%s' (expected a decimal or 0x hex number)", what, t);
    uint64_t x = 0;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
        else return perr(ps, "bad %s '%s' (expected a decimal or 0x hex number)", what, t);
        if (x > (UINT64_MAX - d) / (uint64_t)base) return perr(ps, "%s '%s' out of range", what, t);
        x = x * (uint64_t)base + d;
    }
    *v = x;
    return 0;
}

static int parse_range(parser *ps, const char *t, const char *what, uint64_t lo, uint64_t hi, uint64_t *v)
{
    if (parse_u64(ps, t, what, v)) return -1;
    if (*v < lo || *v > hi)
        return perr(ps, "%s %s out of range (%llu..%llu)", what, t, (unsigned long long)lo,
                    (unsigned long long)hi);
    return 0;
}

static uint64_t elem_max(unsigned elem) { return elem >= 8 ? UINT64_MAX : (1ull << (8 * elem)) - 1; }

static int parse_value(parser *ps, const char *t, unsigned elem, uint64_t *v)
{
    if (parse_u64(ps, t, "value", v)) return -1;
    if (*v > elem_max(elem)) return perr(ps, "value %s does not fit in %u bytes", t, elem);
    return 0;
}

/* Decimal digits only (used inside the lane shape). */
static const char *parse_dec(const char *s, uint64_t *v)
{
    if (*s < '0' || *s > '9') return NULL;
    uint64_t x = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (x > (UINT64_MAX - 9) / 10) return NULL;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return s;
}

/* ELEM[xLANES][+STRIDE] */
static int parse_shape(parser *ps, const char *t, persim_op *o)
{
    uint64_t e, n = 1, st;
    const char *s = parse_dec(t, &e);
    if (!s) goto bad;
    if (*s == 'x') { if (!(s = parse_dec(s + 1, &n))) goto bad; }
    st = e;
    if (*s == '+') { if (!(s = parse_dec(s + 1, &st))) goto bad; }
    if (*s) goto bad;
    if (e != 1 && e != 2 && e != 4 && e != 8)
        return perr(ps, "element size %llu in '%s' (must be 1, 2, 4 or 8)", (unsigned long long)e, t);
    if (n < 1 || n > PERSIM_WARP_SIZE)
        return perr(ps, "lane count %llu in '%s' out of range (1..32)", (unsigned long long)n, t);
    if (st > UINT32_MAX) return perr(ps, "stride %llu in '%s' out of range", (unsigned long long)st, t);
    if (n > 1 && st < e)
        return perr(ps, "stride %llu in '%s' is smaller than the element size", (unsigned long long)st, t);
    o->elem = (uint8_t)e;
    o->nlanes = (uint8_t)n;
    o->stride = (uint32_t)st;
    if (o->addr > UINT64_MAX - ((n - 1) * st + e)) return perr(ps, "address range of '%s' wraps around", t);
    return 0;
bad:
    return perr(ps, "bad lane shape '%s' (expected ELEM[xLANES][+STRIDE], e.g. 4x32+4)", t);
}

static int parse_scope(parser *ps, const char *t, unsigned kind, uint8_t *scope)
{
    static const struct { const char *name; persim_scope s; } tab[] = {
        { "warp", SCOPE_WARP }, { "block", SCOPE_BLOCK }, { "device", SCOPE_DEVICE },
        { "grid", SCOPE_DEVICE }, { "system", SCOPE_SYSTEM },
    };
    const char *allowed = kind == OPK_SYNC ? "block or device"
                        : kind == OPK_PBARRIER ? "warp, block or device" : "block, device or system";
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (!strcmp(t, tab[i].name)) {
            persim_scope s = tab[i].s;
            int ok = kind == OPK_SYNC ? (s == SCOPE_BLOCK || s == SCOPE_DEVICE)
                   : kind == OPK_PBARRIER ? (s == SCOPE_WARP || s == SCOPE_BLOCK || s == SCOPE_DEVICE)
                   : (s == SCOPE_BLOCK || s == SCOPE_DEVICE || s == SCOPE_SYSTEM);
            if (!ok || (s == SCOPE_DEVICE && !strcmp(t, "grid") && kind != OPK_SYNC)) break;
            *scope = (uint8_t)s;
            return 0;
        }
    return perr(ps, "bad scope '%s' for %s (expected %s)", t, op_kind_name(kind), allowed);
}

static int want_tokens(parser *ps, size_t first, size_t n, const char *usage)
{
    size_t have = ps->ntok - first;
    if (have < n) return perr(ps, "missing operand (usage: %s)", usage);
    if (have > n) return perr(ps, "unexpected '%s' after %s (usage: %s)", ps->tok[first + n],
                              ps->tok[first + n - 1], usage);
    return 0;
}

static int parse_hex_bytes(parser *ps, const char *t, uint8_t *buf, uint32_t *len)
{
    size_t n = strlen(t);
    if (n % 2) return perr(ps, "odd number of hex digits (%zu) in data", n);
    if (n / 2 > TRACE_CHUNK) return perr(ps, "data of %zu bytes is longer than %u bytes", n / 2, TRACE_CHUNK);
    if (n == 0) return perr(ps, "empty data");
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        unsigned d = (c >= '0' && c <= '9') ? (unsigned)(c - '0')
                   : (c >= 'a' && c <= 'f') ? (unsigned)(c - 'a' + 10)
                   : (c >= 'A' && c <= 'F') ? (unsigned)(c - 'A' + 10) : 16u;
        if (d > 15) return perr(ps, "bad hex digit '%c' in data", c);
        if (i % 2 == 0) buf[i / 2] = (uint8_t)(d << 4); else buf[i / 2] |= (uint8_t)d;
    }
    *len = (uint32_t)(n / 2);
    return 0;
}

static int do_data(parser *ps, int expect)
{
    const char *usage = expect ? "expect ADDR HEXBYTES" : "data ADDR HEXBYTES";
    if (want_tokens(ps, 1, 2, usage)) return -1;
    uint64_t addr;
    uint8_t buf[TRACE_CHUNK];
    uint32_t len = 0;
    if (parse_u64(ps, ps->tok[1], "address", &addr)) return -1;
    if (parse_hex_bytes(ps, ps->tok[2], buf, &len)) return -1;
    if (addr > UINT64_MAX - (len - 1)) return perr(ps, "address range wraps around");
    if (!expect) {
        mem_write(ps->out->init, addr, buf, len);
        return 0;
    }
    if (ps->out->nexpects == ps->cap_expects) {
        size_t nc = ps->cap_expects ? ps->cap_expects * 2 : 16;
        trace_expect *e = (trace_expect *)realloc(ps->out->expects, nc * sizeof *e);
        if (!e) return perr(ps, "out of memory");
        ps->out->expects = e;
        ps->cap_expects = nc;
    }
    trace_expect *e = &ps->out->expects[ps->out->nexpects++];
    memset(e, 0, sizeof *e);
    e->addr = addr;
    e->len = len;
    memcpy(e->bytes, buf, len);
    return 0;
}

static int do_kernel(parser *ps)
{
    const char *usage = "kernel NAME blocks=N threads=T";
    if (ps->ntok < 2) return perr(ps, "missing kernel name (usage: %s)", usage);
    const char *name = ps->tok[1];
    if (strlen(name) > 31) return perr(ps, "kernel name '%s' longer than 31 characters", name);
    uint64_t blocks = 0, threads = 0;
    int have_b = 0, have_t = 0;
    for (size_t i = 2; i < ps->ntok; i++) {
        const char *t = ps->tok[i];
        if (!strncmp(t, "blocks=", 7) && !have_b) {
            if (parse_range(ps, t + 7, "block count", 1, MAX_BLOCKS, &blocks)) return -1;
            have_b = 1;
        } else if (!strncmp(t, "threads=", 8) && !have_t) {
            if (parse_range(ps, t + 8, "thread count", 1, MAX_THREADS, &threads)) return -1;
            have_t = 1;
        } else {
            return perr(ps, "unexpected '%s' in kernel line (usage: %s)", t, usage);
        }
    }
    if (!have_b) return perr(ps, "kernel '%s': missing blocks=N", name);
    if (!have_t) return perr(ps, "kernel '%s': missing threads=T", name);
    /* Every warp of every kernel has a stream (16 bytes) whether or not the trace fills it: the
     * total is bounded, or a few kernel lines would ask for gigabytes (the program builder
     * aborts when memory runs out). */
    const uint64_t warps = blocks * ((threads + 31) / 32), before = ps->out->prog->nstreams;
    if (before + warps > TRACE_MAX_WARPS)
        return perr(ps, "kernel '%s': %llu warps (%llu blocks of %llu threads) bring the trace to %llu warps, more than %u "
                    "(all kernels together)", name, (unsigned long long)warps, (unsigned long long)blocks,
                    (unsigned long long)threads, (unsigned long long)(before + warps), TRACE_MAX_WARPS);
    prog_kernel(ps->out->prog, name, (uint32_t)blocks, (uint32_t)threads);
    ps->have_kernel = 1;
    ps->have_warp = 0;
    return 0;
}

static int do_warp(parser *ps)
{
    if (!ps->have_kernel) return perr(ps, "'warp' before any kernel");
    if (want_tokens(ps, 1, 2, "warp BLOCK WARP")) return -1;
    const persim_prog *p = ps->out->prog;
    const persim_kernel *k = &p->kernels[p->nkernels - 1];
    uint64_t b, w;
    if (parse_u64(ps, ps->tok[1], "block", &b) || parse_u64(ps, ps->tok[2], "warp", &w)) return -1;
    if (b >= k->nblocks)
        return perr(ps, "block %llu out of range (kernel '%s' has %u blocks)", (unsigned long long)b,
                    k->name, k->nblocks);
    if (w >= k->warps_per_block)
        return perr(ps, "warp %llu out of range (kernel '%s' has %u warps per block)",
                    (unsigned long long)w, k->name, k->warps_per_block);
    if (ps->have_warp && (b < ps->last_block || (b == ps->last_block && w <= ps->last_warp)))
        return perr(ps, "warp %llu %llu out of order (after warp %u %u): warps must appear "
                    "block-major in increasing order, each at most once", (unsigned long long)b,
                    (unsigned long long)w, ps->last_block, ps->last_warp);
    prog_warp(ps->out->prog, (uint32_t)b, (uint32_t)w);
    ps->have_warp = 1;
    ps->last_block = (uint32_t)b;
    ps->last_warp = (uint32_t)w;
    return 0;
}

static const char *const op_names[OPK__COUNT] = {
    "ld", "st", "compute", "order", "release", "acquire", "durable", "sync", "pbarrier", "require", "mark",
};

static int do_op(parser *ps, size_t first, int kind, uint32_t id)
{
    persim_prog *p = ps->out->prog;
    const char *kn = op_names[kind];
    if (!ps->have_kernel) return perr(ps, "'%s' before any kernel", kn);
    if (!ps->have_warp) return perr(ps, "'%s' before any 'warp' line", kn);
    persim_op o;
    memset(&o, 0, sizeof o);
    o.kind = (uint8_t)kind;
    o.vals = PERSIM_NOVALS;
    uint64_t lane_vals[PERSIM_WARP_SIZE];
    const uint64_t *lv = NULL;
    const char **t = (const char **)ps->tok + first;   /* t[0] is the op name */
    size_t nt = ps->ntok - first;
    uint64_t v;
    switch (kind) {
    case OPK_LD:
        if (nt >= 2 && !strcmp(t[1], "log")) {   /* a log update's read (persim_st_class) */
            o.st_class = STC_LOG;
            first++;
        }
        if (want_tokens(ps, first, 3, "ld ADDR SHAPE")) return -1;
        t = (const char **)ps->tok + first;
        if (parse_u64(ps, t[1], "address", &o.addr) || parse_shape(ps, t[2], &o)) return -1;
        break;
    case OPK_ST: {
        const char *usage = "st [log] ADDR SHAPE = VALUE... (one per lane, or one broadcast value)";
        if (nt >= 2 && !strcmp(t[1], "log")) {   /* a log write (persim_st_class) */
            o.st_class = STC_LOG;
            t++;
            nt--;
        }
        if (nt < 3) return perr(ps, "missing operand (usage: %s)", usage);
        if (parse_u64(ps, t[1], "address", &o.addr) || parse_shape(ps, t[2], &o)) return -1;
        if (nt < 4 || strcmp(t[3], "=")) {
            if (nt < 4) return perr(ps, "st: missing '= VALUE...' (usage: %s)", usage);
            return perr(ps, "st: expected '=' before the values, found '%s'", t[3]);
        }
        size_t nv = nt - 4;
        if (nv != 1 && nv != o.nlanes)
            return perr(ps, "st: %zu values for %u lanes (give one per lane, or one broadcast value)",
                        nv, o.nlanes);
        for (size_t i = 0; i < nv; i++)
            if (parse_value(ps, t[4 + i], o.elem, &lane_vals[i])) return -1;
        if (nv == 1) o.val = lane_vals[0]; else lv = lane_vals;
        break;
    }
    case OPK_COMPUTE:
        if (want_tokens(ps, first, 2, "compute INSTRUCTIONS")) return -1;
        if (parse_u64(ps, t[1], "instruction count", &o.val)) return -1;
        if (o.val > PERSIM_COMPUTE_MAX)
            return perr(ps, "compute: instruction count %s too large (at most 2^40 = %llu per op; split the work)", t[1],
                        (unsigned long long)PERSIM_COMPUTE_MAX);
        break;
    case OPK_ORDER:
    case OPK_DURABLE:
        if (want_tokens(ps, first, 1, kn)) return -1;
        break;
    case OPK_RELEASE:
    case OPK_ACQUIRE: {
        const char *usage = kind == OPK_RELEASE ? "release FLAG SIZE VALUE SCOPE" : "acquire FLAG SIZE VALUE SCOPE";
        if (want_tokens(ps, first, 5, usage)) return -1;
        if (parse_u64(ps, t[1], "flag address", &o.addr)) return -1;
        if (parse_u64(ps, t[2], "flag size", &v)) return -1;
        if (v != 4 && v != 8) return perr(ps, "flag size %s (must be 4 or 8)", t[2]);
        o.elem = (uint8_t)v;
        o.nlanes = 1;
        o.stride = o.elem;
        if (o.addr % o.elem) return perr(ps, "flag address %s not aligned to %u bytes", t[1], o.elem);
        if (parse_value(ps, t[3], o.elem, &o.val) || parse_scope(ps, t[4], (unsigned)kind, &o.scope)) return -1;
        break;
    }
    case OPK_SYNC:
    case OPK_PBARRIER:
        if (want_tokens(ps, first, 2, kind == OPK_SYNC ? "sync SCOPE" : "pbarrier SCOPE")) return -1;
        if (parse_scope(ps, t[1], (unsigned)kind, &o.scope)) return -1;
        break;
    case OPK_REQUIRE: {
        uint64_t before, after;
        if (want_tokens(ps, first, 3, "require BEFORE_ID AFTER_ID")) return -1;
        if (parse_range(ps, t[1], "op id", 1, MAX_ID, &before) ||
            parse_range(ps, t[2], "op id", 1, MAX_ID, &after)) return -1;
        o.val = before;
        o.addr = after;
        if (ps->nreqs == ps->cap_reqs) {
            size_t nc = ps->cap_reqs ? ps->cap_reqs * 2 : 16;
            pending_req *r = (pending_req *)realloc(ps->reqs, nc * sizeof *r);
            if (!r) return perr(ps, "out of memory");
            ps->reqs = r;
            ps->cap_reqs = nc;
        }
        ps->reqs[ps->nreqs].before = (uint32_t)before;
        ps->reqs[ps->nreqs].after = (uint32_t)after;
        ps->reqs[ps->nreqs].line = ps->line;
        ps->nreqs++;
        break;
    }
    case OPK_MARK: {
        if (want_tokens(ps, first, 2, "mark func|ret|loop")) return -1;
        for (unsigned m = MARK_FUNC; m < MARK__COUNT; m++)
            if (!strcmp(t[1], mark_name(m))) o.val = m;
        if (!o.val) return perr(ps, "mark: unknown marker '%s' (must be func, ret or loop)", t[1]);
        break;
    }
    default:
        return perr(ps, "internal error: op kind %d", kind);
    }
    if (id == 0) {
        if (p->next_id > MAX_ID) return perr(ps, "op id overflow");
        id = p->next_id;
    }
    uint32_t *prev = id_find(&ps->ids, id);
    if (prev) return perr(ps, "duplicate op id %u (first used at line %u)", id, *prev);
    if (id_insert(&ps->ids, id, ps->line > UINT32_MAX ? UINT32_MAX : (uint32_t)ps->line))
        return perr(ps, "out of memory");
    o.id = id;
    op_append(p, &o, lv);
    return 0;
}

static int parse_line(parser *ps)
{
    if (!ps->have_header) {
        if (strcmp(ps->tok[0], "persim-trace"))
            return perr(ps, "missing header: the first line must be 'persim-trace %d', found '%s'",
                        TRACE_VERSION, ps->tok[0]);
        if (ps->ntok < 2) return perr(ps, "missing trace version (expected 'persim-trace %d')", TRACE_VERSION);
        uint64_t ver;
        if (parse_u64(ps, ps->tok[1], "trace version", &ver)) return -1;
        if (ver != TRACE_VERSION)
            return perr(ps, "unsupported trace version %s (this reader reads version %d)", ps->tok[1],
                        TRACE_VERSION);
        if (ps->ntok > 2) return perr(ps, "unexpected '%s' after the header", ps->tok[2]);
        ps->have_header = 1;
        return 0;
    }
    const char *d = ps->tok[0];
    size_t len = strlen(d);
    uint32_t id = 0;
    size_t first = 0;
    if (len > 1 && d[len - 1] == ':') {           /* "ID:" prefix */
        char buf[32];
        uint64_t v;
        if (len - 1 >= sizeof buf) return perr(ps, "bad op id '%s'", d);
        memcpy(buf, d, len - 1);
        buf[len - 1] = '\0';
        if (parse_range(ps, buf, "op id", 1, MAX_ID, &v)) return -1;
        id = (uint32_t)v;
        first = 1;
        if (ps->ntok < 2) return perr(ps, "op id %u without an op", id);
        d = ps->tok[1];
    }
    for (int k = 0; k < OPK__COUNT; k++)
        if (!strcmp(d, op_names[k])) return do_op(ps, first, k, id);
    if (first) return perr(ps, "unknown op '%s'", d);
    if (!strcmp(d, "data")) return do_data(ps, 0);
    if (!strcmp(d, "expect")) return do_data(ps, 1);
    if (!strcmp(d, "kernel")) return do_kernel(ps);
    if (!strcmp(d, "warp")) return do_warp(ps);
    if (!strcmp(d, "persim-trace")) return perr(ps, "repeated header");
    return perr(ps, "unknown directive or op '%s'", d);
}

static void parser_free(parser *ps)
{
    free(ps->ids.key);
    free(ps->ids.line);
    free(ps->reqs);
    free(ps->tok);
}

void trace_data_free(trace_data *t)
{
    if (!t) return;
    prog_free(t->prog);
    mem_free(t->init);
    free(t->expects);
    memset(t, 0, sizeof *t);
}

static int tokenize(parser *ps, char *s)
{
    ps->ntok = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f') s++;
        if (!*s || *s == '#') break;
        if (ps->ntok == ps->cap_tok) {
            size_t nc = ps->cap_tok ? ps->cap_tok * 2 : 64;
            char **t = (char **)realloc(ps->tok, nc * sizeof *t);
            if (!t) return perr(ps, "out of memory");
            ps->tok = t;
            ps->cap_tok = nc;
        }
        ps->tok[ps->ntok++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\v' && *s != '\f' && *s != '#') s++;
        if (*s == '#') { *s = '\0'; break; }
        if (*s) *s++ = '\0';
    }
    return 0;
}

/* The line-by-line reader: bytes are fed in chunks of any size (a file read or a zstd frame
 * decompressed piece by piece); only the current partial line is kept between chunks, so reading
 * never holds the whole text (a multi-GB compressed trace of a real program needs only the
 * program it describes). */
typedef struct line_feed {
    parser ps;
    char  *part;                /* the line begun in an earlier chunk */
    size_t npart, cap_part;
    int    rc;
} line_feed;

static void feed_begin(line_feed *lf, const char *name, trace_data *out, char *err, size_t errlen)
{
    memset(lf, 0, sizeof *lf);
    lf->ps.name = name ? name : "<trace>";
    lf->ps.err = err;
    lf->ps.errlen = errlen;
    lf->ps.out = out;
    memset(out, 0, sizeof *out);
    out->prog = prog_new();
    out->init = mem_new();
}

static void feed_line(line_feed *lf, char *s, size_t n)
{
    lf->ps.line++;
    if (memchr(s, '\0', n)) { lf->rc = perr(&lf->ps, "NUL byte in line"); return; }
    s[n] = '\0';
    lf->rc = tokenize(&lf->ps, s);
    if (lf->rc == 0 && lf->ps.ntok) lf->rc = parse_line(&lf->ps);
}

static int part_append(line_feed *lf, const char *s, size_t n)
{
    if (lf->npart + n + 1 > lf->cap_part) {
        size_t nc = lf->cap_part ? lf->cap_part : 256;
        while (nc < lf->npart + n + 1) nc *= 2;
        char *b = (char *)realloc(lf->part, nc);
        if (!b) return lf->rc = perr(&lf->ps, "out of memory");
        lf->part = b;
        lf->cap_part = nc;
    }
    memcpy(lf->part + lf->npart, s, n);
    lf->npart += n;
    return 0;
}

/* Feeds n bytes (the chunk is modified in place: lines are tokenized where they lie). */
static void feed_bytes(line_feed *lf, char *s, size_t n)
{
    char *end = s + n;
    while (s < end && lf->rc == 0) {
        char *nl = (char *)memchr(s, '\n', (size_t)(end - s));
        if (!nl) { part_append(lf, s, (size_t)(end - s)); return; }
        if (lf->npart) {
            if (part_append(lf, s, (size_t)(nl - s))) return;
            feed_line(lf, lf->part, lf->npart);
            lf->npart = 0;
        } else {
            feed_line(lf, s, (size_t)(nl - s));
        }
        s = nl + 1;
    }
}

static int feed_end(line_feed *lf)
{
    parser *ps = &lf->ps;
    if (lf->rc == 0 && lf->npart) {          /* a last line without '\n' */
        feed_line(lf, lf->part, lf->npart);
        lf->npart = 0;
    }
    int rc = lf->rc;
    if (rc == 0 && !ps->have_header) {
        if (!ps->line) ps->line = 1;
        rc = perr(ps, "missing header 'persim-trace %d' (empty trace)", TRACE_VERSION);
    }
    for (size_t i = 0; rc == 0 && i < ps->nreqs; i++) {
        const pending_req *r = &ps->reqs[i];
        ps->line = r->line;
        if (!id_find(&ps->ids, r->before)) rc = perr(ps, "require names unknown op id %u", r->before);
        else if (!id_find(&ps->ids, r->after)) rc = perr(ps, "require names unknown op id %u", r->after);
    }
    if (rc == 0) {
        char msg[256];
        if (prog_validate(ps->out->prog, msg, sizeof msg)) {
            if (ps->err && ps->errlen) snprintf(ps->err, ps->errlen, "%s: invalid program: %s", ps->name, msg);
            rc = -1;
        }
    }
    parser_free(ps);
    free(lf->part);
    if (rc) trace_data_free(ps->out);
    return rc;
}

int trace_read_string(const char *name, const char *text, trace_data *out, char *err, size_t errlen)
{
    size_t n = strlen(text);
    char *copy = (char *)malloc(n + 1);
    if (!copy) {
        memset(out, 0, sizeof *out);
        if (err && errlen) snprintf(err, errlen, "%s: out of memory", name ? name : "<trace>");
        return -1;
    }
    memcpy(copy, text, n + 1);
    line_feed lf;
    feed_begin(&lf, name, out, err, errlen);
    feed_bytes(&lf, copy, n);
    int rc = feed_end(&lf);
    free(copy);
    return rc;
}

static const unsigned char zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};

int trace_read_file(const char *path, trace_data *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && errlen) snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    enum { CHUNK = 1 << 20 };
    char *in = (char *)malloc(CHUNK), *dec = NULL;
    ZSTD_DCtx *dz = NULL;
    line_feed lf;
    feed_begin(&lf, path, out, err, errlen);
    size_t n = in ? fread(in, 1, CHUNK, f) : 0;
    int read_errno = ferror(f) ? errno : 0;  /* EISDIR for a directory */
    const int zst = n >= 4 && !memcmp(in, zstd_magic, 4);
    if (zst) {                               /* a zstd-compressed trace (any file name) */
        dec = (char *)malloc(ZSTD_DStreamOutSize());
        dz = ZSTD_createDCtx();
    }
    if (!in || (zst && (!dec || !dz))) lf.rc = perr(&lf.ps, "out of memory");
    size_t zret = 0;
    while (lf.rc == 0 && n > 0) {
        if (!zst) {
            feed_bytes(&lf, in, n);
        } else {
            ZSTD_inBuffer ib = {in, n, 0};
            while (lf.rc == 0 && ib.pos < ib.size) {
                ZSTD_outBuffer ob = {dec, ZSTD_DStreamOutSize(), 0};
                zret = ZSTD_decompressStream(dz, &ob, &ib);
                if (ZSTD_isError(zret)) {
                    lf.rc = -1;
                    if (err && errlen)
                        snprintf(err, errlen, "%s: corrupt zstd data: %s", path, ZSTD_getErrorName(zret));
                    break;
                }
                feed_bytes(&lf, dec, ob.pos);
            }
        }
        if (lf.rc == 0) {
            n = fread(in, 1, CHUNK, f);
            if (ferror(f) && !read_errno) read_errno = errno;
        }
    }
    if (lf.rc == 0 && ferror(f)) {
        lf.rc = -1;
        if (err && errlen) snprintf(err, errlen, "%s: read error: %s", path, read_errno ? strerror(read_errno) : "?");
    }
    if (lf.rc == 0 && zst && zret != 0) {
        lf.rc = -1;
        if (err && errlen) snprintf(err, errlen, "%s: truncated zstd data (the compressed file ends mid-frame)", path);
    }
    fclose(f);
    free(in);
    free(dec);
    ZSTD_freeDCtx(dz);
    return feed_end(&lf);
}

int trace_check_expects(const trace_data *t, const mem_image *final_img, char *msg, size_t msglen)
{
    for (size_t i = 0; i < t->nexpects; i++) {
        const trace_expect *e = &t->expects[i];
        uint8_t buf[TRACE_CHUNK];
        mem_read(final_img, e->addr, buf, e->len);
        for (uint32_t j = 0; j < e->len; j++)
            if (buf[j] != e->bytes[j]) {
                if (msg && msglen)
                    snprintf(msg, msglen, "expect #%zu: byte at 0x%llx is 0x%02x, expected 0x%02x", i + 1,
                             (unsigned long long)(e->addr + j), buf[j], e->bytes[j]);
                return -1;
            }
    }
    return 0;
}

/* ================================================================ writer */

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t trace_prog_chunks(const persim_prog *p, int writes_only, uint64_t **chunks)
{
    size_t n = 0, cap = 0;
    uint64_t *c = NULL;
    *chunks = NULL;
    for (uint64_t i = 0; i < p->nops; i++) {
        const persim_op *o = &p->ops[i];
        int mem = o->kind == OPK_ST || o->kind == OPK_RELEASE ||
                  (!writes_only && (o->kind == OPK_LD || o->kind == OPK_ACQUIRE));
        if (!mem || !o->elem) continue;
        unsigned lanes = (o->kind == OPK_LD || o->kind == OPK_ST) ? o->nlanes : 1u;
        uint64_t last = UINT64_MAX;
        for (unsigned l = 0; l < lanes; l++) {
            uint64_t a = o->addr + (uint64_t)l * o->stride;
            for (uint64_t ch = a >> 7; ch <= (a + o->elem - 1) >> 7; ch++) {
                if (ch == last) continue;
                last = ch;
                if (n == cap) {
                    size_t nc = cap ? cap * 2 : 256;
                    uint64_t *nb = (uint64_t *)realloc(c, nc * sizeof *nb);
                    if (!nb) { free(c); return (size_t)-1; }
                    c = nb;
                    cap = nc;
                }
                c[n++] = ch;
            }
        }
    }
    if (!n) { free(c); return 0; }
    qsort(c, n, sizeof *c, u64_cmp);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (c[i] != c[m - 1]) c[m++] = c[i];
    *chunks = c;
    return m;
}

typedef struct chunk_iv { uint64_t lo, hi; } chunk_iv;   /* inclusive chunk-index interval */

static int iv_cmp(const void *a, const void *b)
{
    const chunk_iv *x = (const chunk_iv *)a, *y = (const chunk_iv *)b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Chunk intervals of regions (sorted, merged) or of the program footprint. */
static int chunk_intervals(const persim_prog *p, int writes_only, const trace_region *regions,
                           size_t nregions, chunk_iv **out, size_t *nout)
{
    chunk_iv *iv;
    size_t n = 0;
    *out = NULL;
    *nout = 0;
    if (!regions) {
        uint64_t *c;
        size_t m = trace_prog_chunks(p, writes_only, &c);
        if (m == (size_t)-1) return -1;
        if (!m) return 0;
        iv = (chunk_iv *)malloc(m * sizeof *iv);
        if (!iv) { free(c); return -1; }
        for (size_t i = 0; i < m; i++) iv[i].lo = iv[i].hi = c[i];
        free(c);
        *out = iv;
        *nout = m;
        return 0;
    }
    if (!nregions) return 0;
    iv = (chunk_iv *)malloc(nregions * sizeof *iv);
    if (!iv) return -1;
    for (size_t i = 0; i < nregions; i++) {
        if (!regions[i].len) continue;
        uint64_t last = regions[i].addr + regions[i].len - 1;
        if (last < regions[i].addr) last = UINT64_MAX;
        iv[n].lo = regions[i].addr >> 7;
        iv[n].hi = last >> 7;
        n++;
    }
    qsort(iv, n, sizeof *iv, iv_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && iv[i].lo <= iv[m - 1].hi + 1) {
            if (iv[i].hi > iv[m - 1].hi) iv[m - 1].hi = iv[i].hi;
        } else {
            iv[m++] = iv[i];
        }
    }
    *out = iv;
    *nout = m;
    return 0;
}

static void put_hex_line(FILE *f, const char *dir, uint64_t addr, const uint8_t *b, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    char line[2 * TRACE_CHUNK + 1];
    for (size_t i = 0; i < n; i++) {
        line[2 * i] = hx[b[i] >> 4];
        line[2 * i + 1] = hx[b[i] & 15];
    }
    line[2 * n] = '\0';
    fprintf(f, "%s 0x%llx %s\n", dir, (unsigned long long)addr, line);
}

static int dump_chunks(FILE *f, const char *dir, const persim_prog *p, int writes_only,
                       const mem_image *img, const trace_region *regions, size_t nregions, int skip_zero)
{
    chunk_iv *iv;
    size_t n;
    if (chunk_intervals(p, writes_only, regions, nregions, &iv, &n)) return -1;
    uint8_t buf[TRACE_CHUNK];
    for (size_t i = 0; i < n; i++)
        for (uint64_t c = iv[i].lo;; c++) {
            mem_read(img, c << 7, buf, TRACE_CHUNK);
            int zero = 1;
            for (size_t j = 0; j < TRACE_CHUNK && zero; j++) zero = buf[j] == 0;
            if (!(zero && skip_zero)) put_hex_line(f, dir, c << 7, buf, TRACE_CHUNK);
            if (c == iv[i].hi) break;
        }
    free(iv);
    return 0;
}

/* Line builder for ops (fprintf per number is the writer's bottleneck). An op line is at most
 * ~11 + 9 + 19 + 12 + 2 + 32 * 21 characters, well below the buffer. */
typedef struct lbuf { char b[1024]; size_t n; } lbuf;

static void lb_str(lbuf *l, const char *s) { while (*s) l->b[l->n++] = *s++; }

static void lb_dec(lbuf *l, uint64_t v)
{
    char t[20];
    int n = 0;
    do { t[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) l->b[l->n++] = t[--n];
}

static void lb_hex(lbuf *l, uint64_t v)
{
    static const char hx[] = "0123456789abcdef";
    char t[16];
    int n = 0;
    do { t[n++] = hx[v & 15]; v >>= 4; } while (v);
    l->b[l->n++] = '0';
    l->b[l->n++] = 'x';
    while (n) l->b[l->n++] = t[--n];
}

static void put_shape(lbuf *l, const persim_op *o)
{
    lb_str(l, " ");
    lb_dec(l, o->elem);
    if (o->nlanes != 1) { lb_str(l, "x"); lb_dec(l, o->nlanes); }
    if (o->stride != o->elem) { lb_str(l, "+"); lb_dec(l, o->stride); }
}

static void put_kernel_name(FILE *f, const char *name)
{
    size_t n = 0;
    while (n < 31 && name[n]) n++;
    if (!n) { fputc('_', f); return; }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        fputc(c <= ' ' || c == '#' || c >= 0x7f ? '_' : c, f);
    }
}

static void put_op(FILE *f, const persim_prog *p, const persim_op *o)
{
    lbuf l;
    l.n = 0;
    lb_dec(&l, o->id);
    lb_str(&l, ": ");
    lb_str(&l, op_kind_name(o->kind));
    switch (o->kind) {
    case OPK_LD:
    case OPK_ST:
        if (o->st_class == STC_LOG) lb_str(&l, " log");
        lb_str(&l, " ");
        lb_hex(&l, o->addr);
        put_shape(&l, o);
        if (o->kind == OPK_LD) break;
        lb_str(&l, " =");
        for (uint32_t i = 0; i < (o->vals == PERSIM_NOVALS ? 1u : o->nlanes); i++) {
            lb_str(&l, " ");
            lb_dec(&l, op_lane_val(p, o, i));
        }
        break;
    case OPK_COMPUTE:
        lb_str(&l, " ");
        lb_dec(&l, o->val);
        break;
    case OPK_RELEASE:
    case OPK_ACQUIRE:
        lb_str(&l, " ");
        lb_hex(&l, o->addr);
        lb_str(&l, " ");
        lb_dec(&l, o->elem);
        lb_str(&l, " ");
        lb_dec(&l, o->val);
        lb_str(&l, " ");
        lb_str(&l, scope_name(o->scope));
        break;
    case OPK_SYNC:
    case OPK_PBARRIER:
        lb_str(&l, " ");
        lb_str(&l, scope_name(o->scope));
        break;
    case OPK_REQUIRE:
        lb_str(&l, " ");
        lb_dec(&l, o->val);
        lb_str(&l, " ");
        lb_dec(&l, o->addr);
        break;
    case OPK_MARK:
        lb_str(&l, " ");
        lb_str(&l, mark_name((unsigned)o->val));
        break;
    default:
        break;
    }
    l.b[l.n++] = '\n';
    fwrite(l.b, 1, l.n, f);
}

static int write_impl(FILE *f, const persim_prog *p, const mem_image *init, const trace_region *regions,
                      size_t nregions, const char *comment, int validate, char *err, size_t errlen)
{
    char msg[256];
    if (validate && prog_validate(p, msg, sizeof msg)) {
        if (err && errlen) snprintf(err, errlen, "cannot write an invalid program: %s", msg);
        return -1;
    }
    for (uint64_t i = 0; i < p->nops; i++)
        if (p->ops[i].id == 0 || p->ops[i].id > MAX_ID) {
            if (err && errlen) snprintf(err, errlen, "cannot write op #%llu: id %u not in 1..%u",
                                        (unsigned long long)i, p->ops[i].id, MAX_ID);
            return -1;
        }
    fprintf(f, "persim-trace %d\n", TRACE_VERSION);
    if (comment) {
        const char *s = comment;
        while (*s) {
            const char *e = strchr(s, '\n');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            fprintf(f, "# %.*s\n", (int)n, s);
            s += n;
            if (*s) s++;
        }
    }
    if (init && dump_chunks(f, "data", p, 0, init, regions, nregions, 1)) {
        if (err && errlen) snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t k = 0; k < p->nkernels; k++) {
        const persim_kernel *kk = &p->kernels[k];
        fputs("kernel ", f);
        put_kernel_name(f, kk->name);
        fprintf(f, " blocks=%u threads=%u\n", kk->nblocks, kk->warps_per_block * PERSIM_WARP_SIZE);
        for (uint32_t b = 0; b < kk->nblocks; b++)
            for (uint32_t w = 0; w < kk->warps_per_block; w++) {
                const persim_stream *s = prog_stream(p, kk, b, w);
                if (s->begin == s->end) continue;
                fprintf(f, "warp %u %u\n", b, w);
                for (uint64_t i = s->begin; i < s->end; i++) put_op(f, p, &p->ops[i]);
            }
    }
    if (ferror(f)) {
        if (err && errlen) snprintf(err, errlen, "write error");
        return -1;
    }
    return 0;
}

int trace_write_stream(FILE *f, const persim_prog *p, const mem_image *init,
                       const trace_region *regions, size_t nregions, const char *comment)
{
    return write_impl(f, p, init, regions, nregions, comment, 1, NULL, 0);
}

/* A FILE that compresses what is written to it into a zstd frame on `raw` (glibc fopencookie):
 * write_impl and trace_write_expects write to it like to any stream. */
typedef struct zwriter {
    FILE      *raw;
    ZSTD_CCtx *cz;
    char      *out;
    size_t     cap;
    int        failed;
} zwriter;

static int zw_pump(zwriter *z, ZSTD_inBuffer *ib, ZSTD_EndDirective mode)
{
    for (;;) {
        ZSTD_outBuffer ob = {z->out, z->cap, 0};
        size_t left = ZSTD_compressStream2(z->cz, &ob, ib, mode);
        if (ZSTD_isError(left) || fwrite(z->out, 1, ob.pos, z->raw) != ob.pos) return z->failed = -1;
        if (mode == ZSTD_e_end ? left == 0 : ib->pos == ib->size) return 0;
    }
}

static ssize_t zw_write(void *c, const char *buf, size_t n)
{
    zwriter *z = (zwriter *)c;
    ZSTD_inBuffer ib = {buf, n, 0};
    if (z->failed || zw_pump(z, &ib, ZSTD_e_continue)) { errno = EIO; return 0; }
    return (ssize_t)n;
}

static int zw_close(void *c)
{
    zwriter *z = (zwriter *)c;
    ZSTD_inBuffer ib = {NULL, 0, 0};
    int rc = z->failed ? -1 : zw_pump(z, &ib, ZSTD_e_end);
    if (fclose(z->raw)) rc = -1;
    ZSTD_freeCCtx(z->cz);
    free(z->out);
    free(z);
    return rc;
}

FILE *trace_open_write(const char *path, int zstd_level)
{
    FILE *raw = fopen(path, "w");
    if (!raw || zstd_level <= 0) return raw;
    zwriter *z = (zwriter *)calloc(1, sizeof *z);
    if (z) {
        z->raw = raw;
        z->cz = ZSTD_createCCtx();
        z->cap = ZSTD_CStreamOutSize();
        z->out = (char *)malloc(z->cap);
    }
    if (!z || !z->cz || !z->out ||
        ZSTD_isError(ZSTD_CCtx_setParameter(z->cz, ZSTD_c_compressionLevel, zstd_level))) {
        if (z) { ZSTD_freeCCtx(z->cz); free(z->out); free(z); }
        fclose(raw);
        errno = ENOMEM;
        return NULL;
    }
    cookie_io_functions_t io = {NULL, zw_write, NULL, zw_close};
    FILE *f = fopencookie(z, "w", io);
    if (!f) zw_close(z);
    return f;
}

int trace_path_is_zstd(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && !strcmp(path + n - 4, ".zst");
}

int trace_write_file_level(const char *path, const persim_prog *p, const mem_image *init,
                           const trace_region *regions, size_t nregions, const char *comment,
                           int zstd_level, char *err, size_t errlen)
{
    char msg[320];
    if (prog_validate(p, msg, sizeof msg)) {   /* before fopen: never truncate a file for nothing */
        if (err && errlen) snprintf(err, errlen, "%s: cannot write an invalid program: %s", path, msg);
        return -1;
    }
    FILE *f = trace_open_write(path, zstd_level);
    if (!f) {
        if (err && errlen) snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    int rc = write_impl(f, p, init, regions, nregions, comment, 0, msg, sizeof msg);
    if (fclose(f) && rc == 0) {
        snprintf(msg, sizeof msg, "write error: %s", strerror(errno ? errno : EIO));
        rc = -1;
    }
    if (rc && err && errlen) snprintf(err, errlen, "%s: %s", path, msg);
    return rc;
}

int trace_write_file(const char *path, const persim_prog *p, const mem_image *init,
                     const trace_region *regions, size_t nregions, const char *comment,
                     char *err, size_t errlen)
{
    return trace_write_file_level(path, p, init, regions, nregions, comment,
                                  trace_path_is_zstd(path) ? TRACE_ZSTD_LEVEL : 0, err, errlen);
}

int trace_write_expects(FILE *f, const persim_prog *p, const mem_image *final_img,
                        const trace_region *regions, size_t nregions)
{
    if (dump_chunks(f, "expect", p, 1, final_img, regions, nregions, 0)) return -1;
    return ferror(f) ? -1 : 0;
}
