/* persim workload "hm": persistent cuckoo hash map with an undo log (the SBRP artifact's
 * parallel_hash_map, after Alcantara et al.'s two-level GPU cuckoo hashing).
 *
 * size = insert operations (artifact: 25,000 keys; ~10% of the second batch update keys of the
 * first). Keys are 32-bit, values 32-bit, a slot is 8 B (key << 32 | value, 0 = empty).
 * Level 1: a key goes to bucket h0(key) % B; the host partitions each batch by bucket (the
 * artifact's bucket-compaction phase). Level 2: each bucket is a cuckoo table of two sub-tables
 * of T = 288 slots (576 slots, one thread per slot: blocks of 576 threads as in the artifact's
 * 300 x 576); a key may live in slot h1(key) % T of sub-table 0 or T + h2(key) % T of sub-table
 * 1. B = ceil(size / 84) (artifact: 25,000 keys in 300 blocks).
 * The map receives two batches (one kernel each, one block per bucket). A block loads its
 * bucket's table and its new keys, then runs the shared-memory cuckoo rounds (one
 * __syncthreads per round; the displacement chains are computed by the generator: keys are
 * inserted in batch order, evicting the occupant to its other slot, at most 64 moves; a key
 * whose chain fails is redrawn). Then every thread whose slot changed writes back with undo
 * logging: old slot value to the log + ORDER, log head (batch + 1) + ORDER, new slot value +
 * ORDER, clear the log head (commit), and the warp ends with DURABLE. A final kernel clears
 * the log (values, ORDER, heads, DURABLE). Simplification: a warp's changed slots are written
 * as one op per run of consecutive changed lanes (a masked warp store). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define HM_SUB            288u   /* slots per sub-table (2 x 288 = 576 threads per block) */
#define HM_KEYS_PER_576   84u    /* target keys per bucket of 576 slots */
#define HM_BATCHES        2u
#define HM_UPDATE_PCT     10u
#define HM_MAXCHAIN       64u

typedef struct hm_ctx {
    uint32_t  B, T, n;       /* buckets, slots per sub-table, items */
    uint32_t *key, *val;     /* items in insertion order */
    uint64_t  table, logv, logh;
} hm_ctx;

static void hm_free(void *vc)
{
    hm_ctx *c = (hm_ctx *)vc;
    if (!c) return;
    free(c->key);
    free(c->val);
    free(c);
}

static uint64_t hm_mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint32_t hm_bucket(uint32_t k, uint32_t B) { return (uint32_t)(hm_mix(k ^ 0x11110000ull) % B); }
static uint32_t hm_s1(uint32_t k, uint32_t T) { return (uint32_t)(hm_mix(k ^ 0x22220000ull) % T); }
static uint32_t hm_s2(uint32_t k, uint32_t T) { return T + (uint32_t)(hm_mix(k ^ 0x33330000ull) % T); }
static uint32_t hm_key_of(uint64_t slot) { return (uint32_t)(slot >> 32); }

/* Open-addressing map uint32 key (nonzero) -> uint32, for key bookkeeping. */
typedef struct hm_map { uint32_t *k, *v; uint64_t mask; } hm_map;

static int hm_map_init(hm_map *m, uint64_t n)
{
    uint64_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    m->k = (uint32_t *)calloc(cap, 4);
    m->v = (uint32_t *)calloc(cap, 4);
    m->mask = cap - 1;
    return m->k && m->v ? 0 : -1;
}
static void hm_map_free(hm_map *m) { free(m->k); free(m->v); }
static uint32_t *hm_map_find(hm_map *m, uint32_t k, int insert)
{
    uint64_t i = hm_mix(k) & m->mask;
    while (m->k[i] && m->k[i] != k) i = (i + 1) & m->mask;
    if (m->k[i] == k) return &m->v[i];
    if (!insert) return NULL;
    m->k[i] = k;
    m->v[i] = 0;
    return &m->v[i];
}

/* Cuckoo insert into bucket table t (2T slots). Returns the number of moves, or -1 (table
 * restored) if the chain exceeds HM_MAXCHAIN. */
static int hm_cuckoo(uint64_t *t, uint32_t T, uint32_t key, uint32_t val)
{
    uint32_t a = hm_s1(key, T), b = hm_s2(key, T);
    uint64_t cur = (uint64_t)key << 32 | val;
    if (hm_key_of(t[a]) == key) { t[a] = cur; return 0; }
    if (hm_key_of(t[b]) == key) { t[b] = cur; return 0; }
    uint32_t trail[HM_MAXCHAIN + 1];
    uint64_t old[HM_MAXCHAIN + 1];
    uint32_t pos = a;
    for (uint32_t i = 0; i <= HM_MAXCHAIN; i++) {
        trail[i] = pos;
        old[i] = t[pos];
        uint64_t ev = t[pos];
        t[pos] = cur;
        if (!ev) return (int)i;
        cur = ev;
        uint32_t k = hm_key_of(ev), p1 = hm_s1(k, T);
        pos = pos == p1 ? hm_s2(k, T) : p1;
    }
    for (int i = HM_MAXCHAIN; i >= 0; i--) t[trail[i]] = old[i];
    return -1;
}

static int hm_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err,
                    size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > 50000000)
        return wl_err(err, errlen, "hm: size (keys) must be in 1..5e7, got %llu", (unsigned long long)prm->size);
    if (prm->max_threads_per_block < PERSIM_WARP_SIZE)
        return wl_err(err, errlen, "hm: max_threads_per_block %u < 32", prm->max_threads_per_block);
    uint32_t tpb = 2 * HM_SUB <= prm->max_threads_per_block ? 2 * HM_SUB : prm->max_threads_per_block;
    tpb -= tpb % PERSIM_WARP_SIZE;
    const uint32_t T = tpb / 2, W = tpb / PERSIM_WARP_SIZE, NS = 2 * T;
    uint32_t kpb = (uint32_t)((uint64_t)HM_KEYS_PER_576 * NS / 576);
    if (kpb < 1) kpb = 1;

    hm_ctx *c = (hm_ctx *)calloc(1, sizeof *c);
    if (!c) return wl_err(err, errlen, "hm: out of memory");
    c->n = (uint32_t)prm->size;
    c->T = T;
    c->B = (c->n + kpb - 1) / kpb;
    const uint32_t B = c->B;
    c->key = (uint32_t *)malloc((size_t)c->n * 4);
    c->val = (uint32_t *)malloc((size_t)c->n * 4);
    uint64_t *tbl = (uint64_t *)calloc((size_t)B * NS, 8), *snap = (uint64_t *)malloc((size_t)B * NS * 8);
    uint32_t *rounds = (uint32_t *)calloc(B, 4), *cnt = (uint32_t *)calloc(B, 4);
    uint32_t *off = (uint32_t *)calloc((size_t)B + 1, 4), *bkt = (uint32_t *)malloc((size_t)c->n * 4);
    hm_map seen, stamp;   /* all keys; batch in which a key was last touched (+1) */
    int m1 = hm_map_init(&seen, c->n), m2 = hm_map_init(&stamp, c->n);
    if (!c->key || !c->val || !tbl || !snap || !rounds || !cnt || !off || !bkt || m1 || m2) {
        free(tbl); free(snap); free(rounds); free(cnt); free(off); free(bkt);
        hm_map_free(&seen); hm_map_free(&stamp);
        hm_free(c);
        return wl_err(err, errlen, "hm: out of memory");
    }

    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->table = wl_alloc_pm(&al, (uint64_t)B * NS * 8);
    c->logv = wl_alloc_pm(&al, (uint64_t)B * NS * 8);
    c->logh = wl_alloc_pm(&al, (uint64_t)B * NS * 8);

    wl_rng rng;
    wl_rng_seed(&rng, prm->seed ^ 0x686dull);
    uint64_t vv[PERSIM_WARP_SIZE];
    uint32_t first = 0;
    for (uint32_t bt = 0; bt < HM_BATCHES; bt++) {
        const uint32_t last = bt + 1 == HM_BATCHES ? c->n : (uint32_t)((uint64_t)c->n * (bt + 1) / HM_BATCHES);
        memcpy(snap, tbl, (size_t)B * NS * 8);
        memset(rounds, 0, (size_t)B * 4);
        memset(cnt, 0, (size_t)B * 4);
        /* draw and apply the batch in order (per bucket = the order the block applies it) */
        for (uint32_t i = first; i < last; i++) {
            uint32_t key = 0, val = (uint32_t)wl_rng_next(&rng);
            int moves = -1;
            if (first > 0 && wl_rng_below(&rng, 100) < HM_UPDATE_PCT) {
                uint32_t k = c->key[wl_rng_below(&rng, first)];
                uint32_t *st = hm_map_find(&stamp, k, 1);
                if (*st != bt + 1) {                  /* no key twice in one batch */
                    key = k;
                    moves = hm_cuckoo(tbl + (size_t)hm_bucket(k, B) * NS, T, k, val);
                }
            }
            while (moves < 0) {
                key = (uint32_t)wl_rng_next(&rng);
                if (!key || hm_map_find(&seen, key, 0)) continue;
                moves = hm_cuckoo(tbl + (size_t)hm_bucket(key, B) * NS, T, key, val);
            }
            hm_map_find(&seen, key, 1);
            *hm_map_find(&stamp, key, 1) = bt + 1;
            c->key[i] = key;
            c->val[i] = val;
            uint32_t b = hm_bucket(key, B);
            if ((uint32_t)moves + 1 > rounds[b]) rounds[b] = (uint32_t)moves + 1;
            cnt[b]++;
        }
        /* the batch's input partitioned by bucket (volatile), 8 B per key */
        off[0] = 0;
        for (uint32_t b = 0; b < B; b++) off[b + 1] = off[b] + cnt[b];
        memset(cnt, 0, (size_t)B * 4);
        for (uint32_t i = first; i < last; i++) {
            uint32_t b = hm_bucket(c->key[i], B);
            bkt[off[b] + cnt[b]++] = i;
        }
        const uint64_t in = wl_alloc_vol(&al, (uint64_t)(last - first) * 8 + 8);
        for (uint32_t j = 0; j < last - first; j++) {
            uint64_t e = (uint64_t)c->key[bkt[j]] << 32 | c->val[bkt[j]];
            mem_write(init, in + 8ull * j, &e, 8);
        }

        char kname[32];
        snprintf(kname, sizeof kname, "hm_insert%u", bt);
        prog_kernel(p, kname, B, tpb);
        for (uint32_t b = 0; b < B; b++) {
            const uint64_t *now = tbl + (size_t)b * NS, *was = snap + (size_t)b * NS;
            const uint64_t tb = c->table + 8ull * b * NS, lv = c->logv + 8ull * b * NS, lh = c->logh + 8ull * b * NS;
            for (uint32_t w = 0; w < W; w++) {
                prog_warp(p, b, w);
                const uint32_t s0 = w * PERSIM_WARP_SIZE;
                op_ld(p, tb + 8ull * s0, 8, PERSIM_WARP_SIZE, 8);          /* bucket table -> shared */
                if (s0 < cnt[b]) {
                    uint32_t nl = cnt[b] - s0 < PERSIM_WARP_SIZE ? cnt[b] - s0 : PERSIM_WARP_SIZE;
                    op_ld(p, in + 8ull * (off[b] + s0), 8, nl, 8);          /* this block's new keys */
                }
                op_compute(p, 24);                                          /* hash functions */
                op_sync(p, SCOPE_BLOCK);
                for (uint32_t r = 0; r < rounds[b]; r++) {                  /* shared-memory cuckoo */
                    op_compute(p, 12);
                    op_sync(p, SCOPE_BLOCK);
                }
                /* runs of changed slots in this warp */
                uint32_t ra[PERSIM_WARP_SIZE], rl[PERSIM_WARP_SIZE], nr = 0;
                for (uint32_t l = 0; l < PERSIM_WARP_SIZE; l++) {
                    if (now[s0 + l] == was[s0 + l]) continue;
                    if (nr && ra[nr - 1] + rl[nr - 1] == s0 + l) rl[nr - 1]++;
                    else { ra[nr] = s0 + l; rl[nr] = 1; nr++; }
                }
                if (!nr) continue;
                op_compute(p, 4);
                for (uint32_t k = 0; k < nr; k++) {                          /* undo log: old values */
                    for (uint32_t l = 0; l < rl[k]; l++) vv[l] = was[ra[k] + l];
                    op_st(p, lv + 8ull * ra[k], 8, rl[k], 8, vv);
                }
                op_order(p);
                for (uint32_t k = 0; k < nr; k++) op_st_bcast(p, lh + 8ull * ra[k], 8, rl[k], 8, bt + 1);
                op_order(p);
                for (uint32_t k = 0; k < nr; k++) {                          /* the new slot values */
                    for (uint32_t l = 0; l < rl[k]; l++) vv[l] = now[ra[k] + l];
                    op_st(p, tb + 8ull * ra[k], 8, rl[k], 8, vv);
                }
                op_order(p);
                for (uint32_t k = 0; k < nr; k++) op_st_bcast(p, lh + 8ull * ra[k], 8, rl[k], 8, 0);
                op_durable(p);
            }
        }
        first = last;
    }

    prog_kernel(p, "hm_log_clear", B, tpb);
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t w = 0; w < W; w++) {
            prog_warp(p, b, w);
            const uint64_t s = 8ull * ((uint64_t)b * NS + (uint64_t)w * PERSIM_WARP_SIZE);
            op_st_bcast(p, c->logv + s, 8, PERSIM_WARP_SIZE, 8, 0);
            op_order(p);
            op_st_bcast(p, c->logh + s, 8, PERSIM_WARP_SIZE, 8, 0);
            op_durable(p);
        }

    free(tbl); free(snap); free(rounds); free(cnt); free(off); free(bkt);
    hm_map_free(&seen); hm_map_free(&stamp);
    *ctxp = c;
    return 0;
}

/* Independent check from the item list: every key is in one of its two candidate slots of its
 * bucket with its latest value, the table holds nothing else (no duplicates), log cleared. */
static int hm_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const hm_ctx *c = (const hm_ctx *)vc;
    const uint32_t NS = 2 * c->T;
    hm_map latest;
    uint64_t *t = (uint64_t *)malloc((size_t)NS * 8);
    int rc = 0;
    if (hm_map_init(&latest, c->n) || !t) { rc = wl_err(msg, msglen, "hm verify: out of memory"); goto out; }
    uint64_t distinct = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        if (!hm_map_find(&latest, c->key[i], 0)) distinct++;
        *hm_map_find(&latest, c->key[i], 1) = c->val[i];
    }
    uint64_t used = 0;
    for (uint32_t b = 0; b < c->B && !rc; b++) {
        mem_read(img, c->table + 8ull * b * NS, t, (size_t)NS * 8);
        for (uint32_t s = 0; s < NS; s++) {
            if (!t[s]) continue;
            used++;
            uint32_t k = hm_key_of(t[s]);
            uint32_t *v = hm_map_find(&latest, k, 0);
            if (!v || hm_bucket(k, c->B) != b || (s != hm_s1(k, c->T) && s != hm_s2(k, c->T))) {
                rc = wl_err(msg, msglen, "hm: bucket %u slot %u holds key 0x%08x, which does not belong there", b, s, k);
                break;
            }
            if ((uint32_t)t[s] != *v) {
                rc = wl_err(msg, msglen, "hm: key 0x%08x (bucket %u slot %u) has value 0x%08x, expected 0x%08x", k, b,
                            s, (uint32_t)t[s], *v);
                break;
            }
        }
    }
    if (!rc && used != distinct)
        rc = wl_err(msg, msglen, "hm: table holds %llu entries, expected %llu distinct keys (missing or duplicate keys)",
                    (unsigned long long)used, (unsigned long long)distinct);
    for (uint32_t i = 0; i < c->n && !rc; i++) {
        uint32_t k = c->key[i], b = hm_bucket(k, c->B);
        uint64_t a = mem_read_u64(img, c->table + 8ull * ((uint64_t)b * NS + hm_s1(k, c->T)));
        uint64_t z = mem_read_u64(img, c->table + 8ull * ((uint64_t)b * NS + hm_s2(k, c->T)));
        if (hm_key_of(a) != k && hm_key_of(z) != k)
            rc = wl_err(msg, msglen, "hm: key 0x%08x missing from bucket %u", k, b);
    }
    for (uint32_t b = 0; b < c->B && !rc; b++)
        for (int which = 0; which < 2 && !rc; which++) {
            mem_read(img, (which ? c->logh : c->logv) + 8ull * b * NS, t, (size_t)NS * 8);
            for (uint32_t s = 0; s < NS; s++)
                if (t[s]) {
                    rc = wl_err(msg, msglen, "hm: log %s of bucket %u slot %u not cleared (0x%llx)",
                                which ? "head" : "value", b, s, (unsigned long long)t[s]);
                    break;
                }
        }
out:
    hm_map_free(&latest);
    free(t);
    return rc;
}

static void hm_zero(mem_image *m, uint64_t addr, uint64_t len)
{
    static const uint8_t z[4096] = { 0 };
    for (uint64_t o = 0; o < len; o += sizeof z) mem_write(m, addr + o, z, len - o < sizeof z ? (size_t)(len - o) : sizeof z);
}

/* Undo-log recovery: a slot whose log head is set was being written: its old value (in the log,
 * ordered before the head) goes back (kernel hm_recover reads every head and the old values of the
 * set ones) and the head is cleared (hm_recover_clear). A warp logs and commits only its
 * own slots, so a cuckoo move that spans two warps can leave a key in both of its slots or in
 * neither; recovery keeps one copy of a key found twice, then inserts every key of the batches
 * again in order, as the insert kernel does (a key already in one of its slots is updated in
 * place); a bucket whose cuckoo chain fails on the recovered layout is rebuilt from its keys.
 * Finally the log is cleared. */
static int hm_recover(const void *vc, const mem_image *durable, persim_prog *p, mem_image *img, char *err,
                      size_t errlen)
{
    const hm_ctx *c = (const hm_ctx *)vc;
    (void)img;
    const uint32_t T = c->T, NS = 2 * T;
    const uint64_t tot = (uint64_t)c->B * NS;
    uint64_t *t = (uint64_t *)malloc((size_t)NS * 8);
    uint32_t *off = (uint32_t *)calloc((size_t)c->B + 1, 4), *items = (uint32_t *)malloc((size_t)c->n * 4);
    mem_image *work = mem_clone(durable), *before = NULL, *restored = NULL;
    wl_range *reads = NULL;
    size_t nreads = 0;
    const wl_range rg[3] = { { c->table, tot * 8 }, { c->logv, tot * 8 }, { c->logh, tot * 8 } };
    int rc = 0;
    if (!t || !off || !items || !work) {
        rc = wl_err(err, errlen, "hm recover: out of memory");
        goto out;
    }
    reads = (wl_range *)malloc(((size_t)tot + 1) * sizeof *reads);
    restored = mem_clone(durable);
    if (!reads || !restored) {
        rc = wl_err(err, errlen, "hm recover: out of memory");
        goto out;
    }
    reads[nreads++] = (wl_range){ c->logh, tot * 8 };   /* every log head */
    for (uint64_t s = 0; s < tot; s++) {
        uint64_t h = mem_read_u64(durable, c->logh + 8 * s);
        if (!h) continue;
        if (h > HM_BATCHES) {
            rc = wl_err(err, errlen, "hm recover: log head of slot %llu holds %llu (not a batch number)",
                        (unsigned long long)s, (unsigned long long)h);
            goto out;
        }
        reads[nreads++] = (wl_range){ c->logv + 8 * s, 8 };   /* the old value of a set head */
        mem_write_u64(restored, c->table + 8 * s, mem_read_u64(durable, c->logv + 8 * s));
        mem_write_u64(work, c->table + 8 * s, mem_read_u64(durable, c->logv + 8 * s));
        mem_write_u64(work, c->logh + 8 * s, 0);
    }
    if (wl_emit_recovery(p, "hm_recover", reads, nreads, durable, restored, work, rg, 3) != 0) {
        rc = wl_err(err, errlen, "hm recover: out of memory");
        goto out;
    }
    before = mem_clone(work);
    /* the keys of each bucket in insertion order */
    for (uint32_t i = 0; i < c->n; i++) off[hm_bucket(c->key[i], c->B) + 1]++;
    for (uint32_t b = 0; b < c->B; b++) off[b + 1] += off[b];
    {
        uint32_t *fill = (uint32_t *)calloc(c->B, 4);
        if (!fill) { rc = wl_err(err, errlen, "hm recover: out of memory"); goto out; }
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t b = hm_bucket(c->key[i], c->B);
            items[off[b] + fill[b]++] = i;
        }
        free(fill);
    }
    for (uint32_t b = 0; b < c->B; b++) {
        const uint64_t tb = c->table + 8ull * b * NS;
        mem_read(work, tb, t, (size_t)NS * 8);
        for (uint32_t s = 0; s < NS; s++) {
            uint32_t k = hm_key_of(t[s]);
            if (k && s == hm_s2(k, T) && hm_key_of(t[hm_s1(k, T)]) == k) t[s] = 0;   /* a key found twice */
        }
        int ok = 1;
        for (uint32_t j = off[b]; j < off[b + 1] && ok; j++) ok = hm_cuckoo(t, T, c->key[items[j]], c->val[items[j]]) >= 0;
        if (!ok) {
            memset(t, 0, (size_t)NS * 8);
            for (uint32_t j = off[b]; j < off[b + 1]; j++)
                if (hm_cuckoo(t, T, c->key[items[j]], c->val[items[j]]) < 0) {
                    rc = wl_err(err, errlen, "hm recover: bucket %u cannot be rebuilt", b);
                    goto out;
                }
        }
        mem_write(work, tb, t, (size_t)NS * 8);
    }
    hm_zero(work, c->logv, tot * 8);
    hm_zero(work, c->logh, tot * 8);
    if (wl_emit_phase(p, "hm_resume", before, work, rg, 3) != 0) rc = wl_err(err, errlen, "hm recover: out of memory");
out:
    free(t);
    free(off);
    free(items);
    free(reads);
    if (work) mem_free(work);
    if (before) mem_free(before);
    if (restored) mem_free(restored);
    return rc;
}

const persim_workload wl_hm_workload = {
    .name = "hm",
    .desc = "persistent cuckoo hash map, 2 batches: per changed slot undo log + ORDER, head + ORDER, "
            "slot + ORDER, commit; log-clearing kernel",
    .size_desc = "keys inserted (2 batches; ~5% updates)",
    .pmo = "intra-thread",
    .recovery = "logging",
    .default_size = 25000,
    .small_size = 4096,
    .build = hm_build,
    .verify = hm_verify,
    .free_ctx = hm_free,
    .recover = hm_recover,
};
PERSIM_WORKLOAD(wl_hm_workload, WL_GPU, 20);
