/* persim workload "gpkvs": GPU persistent key-value store (GPM's gpKVS on MegaKV buckets),
 * batch insert with a write-ahead undo log (SBRP Figure 4).
 *
 * size = key-value pairs inserted (artifact: 65,536; ~1/8 of them update an earlier key).
 * Hash table in PM: nb = next_pow2(size) buckets of 4 slots, 32 B each: sig[4] (4 B signature)
 * then loc[4] (4 B value location). Four threads cooperate per item (artifact), so a warp
 * serves 8 items at a time; a "group" of 4 lanes owns the buckets b with b % ngroups == group
 * (the host partitions the batch by hash, as the artifact's per-block insert buffers do), so
 * the items of one bucket are applied in batch order by one group and the result is
 * deterministic. Grid: clamp(ceil(size/1024), 1, 16) blocks x 512 threads (artifact 16 x 512).
 * Per item, in each group (one op per group: a warp's groups touch different buckets):
 *   read the bucket's 4 signatures; read the old location of the chosen slot (the matching
 *   signature, else the first empty slot);
 *   insert_into_log: 16 B entry {slot, old sig, bucket, old loc} + ORDER;
 *   log head (8 B, item number + 1) + ORDER;
 *   insert the new pair: signature and location (one 2-lane store) + ORDER;
 *   commit: clear the log head.
 * Each insert warp ends with DURABLE; a final log-clearing kernel zeroes every entry, ORDER,
 * zeroes every head, DURABLE. The items come from a volatile input batch (16 B per item). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define KVS_SLOTS        4u
#define KVS_THREADS      512u
#define KVS_MAX_BLOCKS   16u
#define KVS_ITEMS_PER_BLK 1024u
#define KVS_UPDATE_PCT   12u
#define KVS_BUCKET_BYTES 32u

typedef struct kvs_ctx {
    uint64_t  n;             /* items */
    uint64_t  nb;            /* buckets (power of two) */
    uint32_t  ngroups;
    uint64_t *key;           /* per item */
    uint32_t *val;           /* per item (location) */
    uint64_t  table, loge, logh;
} kvs_ctx;

static void kvs_free(void *vc)
{
    kvs_ctx *c = (kvs_ctx *)vc;
    if (!c) return;
    free(c->key);
    free(c->val);
    free(c);
}

static uint64_t kvs_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static uint64_t kvs_bucket(uint64_t key, uint64_t nb) { return kvs_mix(key ^ 0x6b76736275636b74ull) & (nb - 1); }
static uint32_t kvs_sig(uint64_t key) { return (uint32_t)kvs_mix(key ^ 0x7369676e61747572ull) | 1u; }

/* Applies item (key, val) to the model table (sig/loc arrays of nb*4): returns the slot and the
 * old contents, or -1 if the bucket is full (no matching signature, no empty slot). */
static int kvs_apply(uint32_t *sig, uint32_t *loc, uint64_t nb, uint64_t key, uint32_t val,
                     uint32_t *oldsig, uint32_t *oldloc)
{
    uint64_t b = kvs_bucket(key, nb);
    uint32_t s = kvs_sig(key);
    int slot = -1;
    for (uint32_t i = 0; i < KVS_SLOTS && slot < 0; i++)
        if (sig[b * KVS_SLOTS + i] == s) slot = (int)i;
    for (uint32_t i = 0; i < KVS_SLOTS && slot < 0; i++)
        if (sig[b * KVS_SLOTS + i] == 0) slot = (int)i;
    if (slot < 0) return -1;
    if (oldsig) *oldsig = sig[b * KVS_SLOTS + slot];
    if (oldloc) *oldloc = loc[b * KVS_SLOTS + slot];
    sig[b * KVS_SLOTS + slot] = s;
    loc[b * KVS_SLOTS + slot] = val;
    return slot;
}

typedef struct kvs_rec { uint64_t bucket; uint32_t slot, oldsig, oldloc, sig, loc, item; } kvs_rec;

static int kvs_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err,
                     size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > (1ull << 26))
        return wl_err(err, errlen, "gpkvs: size (pairs) must be in 1..2^26, got %llu", (unsigned long long)prm->size);
    if (prm->max_threads_per_block < PERSIM_WARP_SIZE)
        return wl_err(err, errlen, "gpkvs: max_threads_per_block %u < 32", prm->max_threads_per_block);
    uint32_t tpb = KVS_THREADS < prm->max_threads_per_block ? KVS_THREADS : prm->max_threads_per_block;
    tpb -= tpb % PERSIM_WARP_SIZE;
    const uint32_t W = tpb / PERSIM_WARP_SIZE, GPW = PERSIM_WARP_SIZE / KVS_SLOTS;  /* groups per warp */
    uint64_t nblk = (prm->size + KVS_ITEMS_PER_BLK - 1) / KVS_ITEMS_PER_BLK;
    if (nblk < 1) nblk = 1;
    if (nblk > KVS_MAX_BLOCKS) nblk = KVS_MAX_BLOCKS;
    const uint32_t ngroups = (uint32_t)nblk * W * GPW;

    kvs_ctx *c = (kvs_ctx *)calloc(1, sizeof *c);
    if (!c) return wl_err(err, errlen, "gpkvs: out of memory");
    c->n = prm->size;
    c->ngroups = ngroups;
    c->nb = 1;
    while (c->nb < c->n || c->nb < ngroups) c->nb *= 2;
    c->key = (uint64_t *)malloc((size_t)c->n * 8);
    c->val = (uint32_t *)malloc((size_t)c->n * 4);
    uint32_t *sig = (uint32_t *)calloc((size_t)c->nb * KVS_SLOTS, 4);
    uint32_t *loc = (uint32_t *)calloc((size_t)c->nb * KVS_SLOTS, 4);
    kvs_rec *rec = (kvs_rec *)malloc((size_t)c->n * sizeof *rec);
    uint32_t *qlen = (uint32_t *)calloc(ngroups, 4), *qoff = (uint32_t *)calloc(ngroups + 1, 4);
    uint32_t *order = (uint32_t *)malloc((size_t)c->n * 4);
    if (!c->key || !c->val || !sig || !loc || !rec || !qlen || !qoff || !order) {
        free(sig); free(loc); free(rec); free(qlen); free(qoff); free(order);
        kvs_free(c);
        return wl_err(err, errlen, "gpkvs: out of memory");
    }

    /* the batch: new keys (rejected while their bucket is full or their signature collides
     * with another key of the bucket) and updates of earlier keys */
    wl_rng rng;
    wl_rng_seed(&rng, prm->seed ^ 0x67706b7673ull);
    for (uint64_t i = 0; i < c->n; i++) {
        uint64_t key;
        uint32_t val = (uint32_t)wl_rng_next(&rng) | 1u;
        if (i > 0 && wl_rng_below(&rng, 100) < KVS_UPDATE_PCT) {
            key = c->key[wl_rng_below(&rng, i)];
        } else {
            for (;;) {
                key = wl_rng_next(&rng) | 1u;
                uint64_t b = kvs_bucket(key, c->nb);
                uint32_t s = kvs_sig(key), used = 0, clash = 0;
                for (uint32_t k = 0; k < KVS_SLOTS; k++) {
                    used += sig[b * KVS_SLOTS + k] != 0;
                    clash |= sig[b * KVS_SLOTS + k] == s;
                }
                if (used < KVS_SLOTS && !clash) break;
            }
        }
        c->key[i] = key;
        c->val[i] = val;
        kvs_rec *r = &rec[i];
        r->bucket = kvs_bucket(key, c->nb);
        r->sig = kvs_sig(key);
        r->loc = val;
        r->item = (uint32_t)i;
        r->slot = (uint32_t)kvs_apply(sig, loc, c->nb, key, val, &r->oldsig, &r->oldloc);
        qlen[r->bucket % ngroups]++;
    }
    /* per-group queues in batch order */
    uint32_t maxlen = 0;
    for (uint32_t g = 0; g < ngroups; g++) {
        qoff[g + 1] = qoff[g] + qlen[g];
        if (qlen[g] > maxlen) maxlen = qlen[g];
        qlen[g] = 0;
    }
    for (uint64_t i = 0; i < c->n; i++) {
        uint32_t g = (uint32_t)(rec[i].bucket % ngroups);
        order[qoff[g] + qlen[g]++] = (uint32_t)i;
    }

    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->table = wl_alloc_pm(&al, c->nb * KVS_BUCKET_BYTES);
    c->loge = wl_alloc_pm(&al, (uint64_t)ngroups * 16);
    c->logh = wl_alloc_pm(&al, (uint64_t)ngroups * 8);
    const uint64_t in = wl_alloc_vol(&al, (uint64_t)maxlen * ngroups * 16);
    /* input batch, iteration-major: in[it][group] = {key, loc} */
    for (uint32_t g = 0; g < ngroups; g++)
        for (uint32_t it = 0; it < qlen[g]; it++) {
            const kvs_rec *r = &rec[order[qoff[g] + it]];
            uint64_t e[2] = { c->key[r->item], r->loc };
            mem_write(init, in + 16 * ((uint64_t)it * ngroups + g), e, 16);
        }

    prog_kernel(p, "kvs_insert", (uint32_t)nblk, tpb);
    uint64_t v[4];
    for (uint32_t blk = 0; blk < nblk; blk++)
        for (uint32_t w = 0; w < W; w++) {
            prog_warp(p, blk, w);
            const uint32_t g0 = (blk * W + w) * GPW;
            uint32_t iters = 0;
            for (uint32_t g = g0; g < g0 + GPW; g++) if (qlen[g] > iters) iters = qlen[g];
            for (uint32_t it = 0; it < iters; it++) {
                const kvs_rec *rs[PERSIM_WARP_SIZE / KVS_SLOTS];
                uint32_t ga = 0, gz = 0, na = 0;
                for (uint32_t k = 0; k < GPW; k++) {
                    uint32_t g = g0 + k;
                    rs[k] = it < qlen[g] ? &rec[order[qoff[g] + it]] : NULL;
                    if (rs[k]) { if (!na) ga = k; gz = k; na++; }
                }
                op_ld(p, in + 16 * ((uint64_t)it * ngroups + g0 + ga), 8, 2 * (gz - ga + 1), 8);
                op_compute(p, 30);                         /* hash + signature */
                for (uint32_t k = ga; k <= gz; k++)
                    if (rs[k]) op_ld(p, c->table + rs[k]->bucket * KVS_BUCKET_BYTES, 4, KVS_SLOTS, 4);
                op_compute(p, 12);                         /* ballot, ffs: choose the slot */
                for (uint32_t k = ga; k <= gz; k++)
                    if (rs[k]) op_ld(p, c->table + rs[k]->bucket * KVS_BUCKET_BYTES + 16 + 4 * rs[k]->slot, 4, 1, 4);
                for (uint32_t k = ga; k <= gz; k++)
                    if (rs[k]) {
                        v[0] = rs[k]->slot; v[1] = rs[k]->oldsig; v[2] = (uint32_t)rs[k]->bucket; v[3] = rs[k]->oldloc;
                        op_st(p, c->loge + 16ull * (g0 + k), 4, 4, 4, v);
                    }
                op_order(p);
                for (uint32_t k = ga; k <= gz; k++)
                    if (rs[k]) op_st_bcast(p, c->logh + 8ull * (g0 + k), 8, 1, 8, (uint64_t)rs[k]->item + 1);
                op_order(p);
                for (uint32_t k = ga; k <= gz; k++)
                    if (rs[k]) {
                        v[0] = rs[k]->sig; v[1] = rs[k]->loc;
                        op_st(p, c->table + rs[k]->bucket * KVS_BUCKET_BYTES + 4 * rs[k]->slot, 4, 2, 16, v);
                    }
                op_order(p);
                for (uint32_t k = ga; k <= gz; k++)
                    if (rs[k]) op_st_bcast(p, c->logh + 8ull * (g0 + k), 8, 1, 8, 0);
            }
            if (iters) op_durable(p);
        }

    prog_kernel(p, "kvs_log_clear", (uint32_t)nblk, tpb);
    for (uint32_t blk = 0; blk < nblk; blk++)
        for (uint32_t w = 0; w < W; w++) {
            prog_warp(p, blk, w);
            const uint32_t g0 = (blk * W + w) * GPW;
            op_st_bcast(p, c->loge + 16ull * g0, 8, 2 * GPW, 8, 0);
            op_order(p);
            op_st_bcast(p, c->logh + 8ull * g0, 8, GPW, 8, 0);
            op_durable(p);
        }

    free(sig); free(loc); free(rec); free(qlen); free(qoff); free(order);
    *ctxp = c;
    return 0;
}

/* Independent check: replays the batch sequentially on an empty table and compares every
 * bucket (signatures and locations: each key present once with its latest value in the slot the
 * sequential insert gives it, nothing else), then checks that the log is cleared. */
static int kvs_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const kvs_ctx *c = (const kvs_ctx *)vc;
    uint32_t *sig = (uint32_t *)calloc((size_t)c->nb * KVS_SLOTS, 4);
    uint32_t *loc = (uint32_t *)calloc((size_t)c->nb * KVS_SLOTS, 4);
    int rc = 0;
    if (!sig || !loc) { rc = wl_err(msg, msglen, "gpkvs verify: out of memory"); goto out; }
    for (uint64_t i = 0; i < c->n; i++)
        if (kvs_apply(sig, loc, c->nb, c->key[i], c->val[i], NULL, NULL) < 0) {
            rc = wl_err(msg, msglen, "gpkvs verify: item %llu does not fit its bucket", (unsigned long long)i);
            goto out;
        }
    for (uint64_t b = 0; b < c->nb && !rc; b++) {
        uint32_t got[2 * KVS_SLOTS];
        mem_read(img, c->table + b * KVS_BUCKET_BYTES, got, sizeof got);
        for (uint32_t s = 0; s < KVS_SLOTS; s++) {
            uint32_t ws = sig[b * KVS_SLOTS + s], wl = loc[b * KVS_SLOTS + s];
            if (got[s] != ws || got[KVS_SLOTS + s] != wl) {
                rc = wl_err(msg, msglen, "gpkvs: bucket %llu slot %u holds sig 0x%08x loc 0x%08x, expected "
                             "sig 0x%08x loc 0x%08x", (unsigned long long)b, s, got[s], got[KVS_SLOTS + s], ws, wl);
                break;
            }
        }
    }
    for (uint32_t g = 0; g < c->ngroups && !rc; g++) {
        uint64_t e[2];
        mem_read(img, c->loge + 16ull * g, e, 16);
        uint64_t h = mem_read_u64(img, c->logh + 8ull * g);
        if (e[0] || e[1] || h)
            rc = wl_err(msg, msglen, "gpkvs: log of group %u not cleared (entry 0x%016llx%016llx head 0x%llx)", g,
                         (unsigned long long)e[1], (unsigned long long)e[0], (unsigned long long)h);
    }
out:
    free(sig);
    free(loc);
    return rc;
}

/* Undo-log recovery (SBRP Figure 4, recover()): a group whose log head is set was inside an
 * insert: its log entry (ordered before the head) holds the slot's old signature and location,
 * which recovery writes back (restore_pair; kernel kvs_recover reads every head and the entries of
 * the set ones) before clearing the head and the entry (kvs_recover_clear). Then the batch is inserted
 * again from the start, as the insert kernel does it (the matching signature or the first empty
 * slot of the bucket: inserting an item again rewrites its own slot), and the log is cleared. */
static int kvs_recover(const void *vc, const mem_image *durable, persim_prog *p, mem_image *img, char *err,
                       size_t errlen)
{
    const kvs_ctx *c = (const kvs_ctx *)vc;
    (void)img;
    uint32_t *sig = (uint32_t *)malloc((size_t)c->nb * KVS_SLOTS * 4);
    uint32_t *loc = (uint32_t *)malloc((size_t)c->nb * KVS_SLOTS * 4);
    mem_image *work = mem_clone(durable), *before = NULL, *restored = NULL;
    wl_range *reads = NULL;
    size_t nreads = 0;
    int rc = 0;
    const wl_range rg[3] = { { c->table, c->nb * KVS_BUCKET_BYTES }, { c->loge, (uint64_t)c->ngroups * 16 },
                             { c->logh, (uint64_t)c->ngroups * 8 } };
    if (!sig || !loc || !work) {
        rc = wl_err(err, errlen, "gpkvs recover: out of memory");
        goto out;
    }
    reads = (wl_range *)malloc(((size_t)c->ngroups + 1) * sizeof *reads);
    restored = mem_clone(durable);
    if (!reads || !restored) {
        rc = wl_err(err, errlen, "gpkvs recover: out of memory");
        goto out;
    }
    reads[nreads++] = (wl_range){ c->logh, (uint64_t)c->ngroups * 8 };   /* every log head */
    for (uint32_t g = 0; g < c->ngroups; g++) {
        if (mem_read_u64(durable, c->logh + 8ull * g) == 0) continue;
        uint32_t e[4];   /* slot, old signature, bucket, old location */
        mem_read(durable, c->loge + 16ull * g, e, 16);
        reads[nreads++] = (wl_range){ c->loge + 16ull * g, 16 };       /* the entry of a set head */
        if (e[0] >= KVS_SLOTS || e[2] >= c->nb) {
            rc = wl_err(err, errlen, "gpkvs recover: group %u log entry names bucket %u slot %u (not in the table)", g,
                        e[2], e[0]);
            goto out;
        }
        for (mem_image *m = restored; m; m = m == restored ? work : NULL) {
            mem_write_u32(m, c->table + (uint64_t)e[2] * KVS_BUCKET_BYTES + 4ull * e[0], e[1]);
            mem_write_u32(m, c->table + (uint64_t)e[2] * KVS_BUCKET_BYTES + 16 + 4ull * e[0], e[3]);
        }
        static const uint8_t zero[16] = { 0 };
        mem_write(work, c->logh + 8ull * g, zero, 8);
        mem_write(work, c->loge + 16ull * g, zero, 16);
    }
    if (wl_emit_recovery(p, "kvs_recover", reads, nreads, durable, restored, work, rg, 3) != 0) {
        rc = wl_err(err, errlen, "gpkvs recover: out of memory");
        goto out;
    }
    before = mem_clone(work);
    for (uint64_t b = 0; b < c->nb; b++) {
        uint32_t t[2 * KVS_SLOTS];
        mem_read(work, c->table + b * KVS_BUCKET_BYTES, t, sizeof t);
        memcpy(sig + b * KVS_SLOTS, t, KVS_SLOTS * 4);
        memcpy(loc + b * KVS_SLOTS, t + KVS_SLOTS, KVS_SLOTS * 4);
    }
    for (uint64_t i = 0; i < c->n; i++)
        if (kvs_apply(sig, loc, c->nb, c->key[i], c->val[i], NULL, NULL) < 0) {
            rc = wl_err(err, errlen, "gpkvs recover: item %llu finds its bucket %llu full", (unsigned long long)i,
                        (unsigned long long)kvs_bucket(c->key[i], c->nb));
            goto out;
        }
    for (uint64_t b = 0; b < c->nb; b++) {
        uint32_t t[2 * KVS_SLOTS];
        memcpy(t, sig + b * KVS_SLOTS, KVS_SLOTS * 4);
        memcpy(t + KVS_SLOTS, loc + b * KVS_SLOTS, KVS_SLOTS * 4);
        mem_write(work, c->table + b * KVS_BUCKET_BYTES, t, sizeof t);
    }
    {
        static const uint8_t zero[16] = { 0 };
        for (uint32_t g = 0; g < c->ngroups; g++) {
            mem_write(work, c->loge + 16ull * g, zero, 16);
            mem_write(work, c->logh + 8ull * g, zero, 8);
        }
    }
    if (wl_emit_phase(p, "kvs_resume", before, work, rg, 3) != 0) rc = wl_err(err, errlen, "gpkvs recover: out of memory");
out:
    free(sig);
    free(loc);
    free(reads);
    if (work) mem_free(work);
    if (before) mem_free(before);
    if (restored) mem_free(restored);
    return rc;
}

const persim_workload wl_gpkvs_workload = {
    .name = "gpkvs",
    .desc = "GPU persistent KVS batch insert with write-ahead undo log: log entry + ORDER, head + ORDER, "
            "pair + ORDER, commit; log-clearing kernel",
    .size_desc = "key-value pairs inserted",
    .pmo = "intra-thread",
    .recovery = "logging",
    .default_size = 65536,
    .small_size = 4096,
    .build = kvs_build,
    .verify = kvs_verify,
    .free_ctx = kvs_free,
    .recover = kvs_recover,
};
PERSIM_WORKLOAD(wl_gpkvs_workload, WL_GPU, 10);
