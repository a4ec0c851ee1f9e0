/* persim workload "hashtable-wi": the regular kernel of the scoped persist barriers paper that
 * workitem-scope persist barriers suffice for (section 5: "if each workitem on the GPU inserts a
 * non-overlapping key-value pair in a persistent key-value store then ordering between persistent
 * updates to the value and the key can be enforced by workitem persist barrier"; section 5.1).
 *
 * A persistent hash table of 32 regions x R rows. Entry (region r, row s): a value word (uint64,
 * array `val`) and a commit word (uint64 = key | version << 32, array `com`), in different lines.
 * The table starts full (version 1, value f(key, 1)). size = entries updated: ceil(size/32) rows,
 * chosen at random without repetition (R = 4 x that, at least 64); each row is one update
 * operation of a wavefront, whose 32 lanes (workitems) update the row's entry in their own region
 * (a hash that spreads a wavefront's keys over the table: 32 different lines per access):
 *   ld com (find the key) ; compute ; st val = f(key, 2) ; pbarrier(warp) ; st com = key | 2 << 32
 * so a commit word never becomes durable before its value (p_barrier_wi). Rows go round robin to
 * the wavefronts of NB = SMs x 8 workgroups of 4 wavefronts.
 * verify: updated entries hold version 2 and f(key, 2), the others version 1 and f(key, 1), keys
 * unchanged. */
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define HT_REGIONS 32u
#define HT_WAVES   4u
#define HT_MAX_SIZE (1ull << 26)

typedef struct ht_ctx {
    uint64_t rows, val, com, seed;
    uint32_t *keys;          /* HT_REGIONS x rows */
    uint8_t  *upd;           /* row updated */
} ht_ctx;

static void ht_free(void *vc)
{
    ht_ctx *c = (ht_ctx *)vc;
    if (!c) return;
    free(c->keys);
    free(c->upd);
    free(c);
}

static uint64_t ht_f(uint32_t key, uint32_t ver, uint64_t seed)
{
    uint64_t z = ((uint64_t)ver << 32 | key) ^ (seed * 0xD1B54A32D192ED03ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int ht_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err, size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > HT_MAX_SIZE)
        return wl_err(err, errlen, "hashtable-wi: size %llu out of range (entries updated, 1..%llu)",
                      (unsigned long long)prm->size, HT_MAX_SIZE);
    if (prm->max_threads_per_block < HT_WAVES * PERSIM_WARP_SIZE)
        return wl_err(err, errlen, "hashtable-wi: max_threads_per_block %u < %u (a workgroup is %u wavefronts)",
                      prm->max_threads_per_block, HT_WAVES * PERSIM_WARP_SIZE, HT_WAVES);
    if (prm->num_sms < 1) return wl_err(err, errlen, "hashtable-wi: num_sms must be >= 1");
    const uint64_t U = (prm->size + HT_REGIONS - 1) / HT_REGIONS;
    const uint64_t R = U * 4 < 64 ? 64 : U * 4;
    ht_ctx *c = (ht_ctx *)calloc(1, sizeof *c);
    uint64_t *rows = (uint64_t *)malloc(R * 8);
    if (!c || !rows) { free(rows); ht_free(c); return wl_err(err, errlen, "hashtable-wi: out of memory"); }
    c->rows = R;
    c->seed = prm->seed;
    c->keys = (uint32_t *)malloc(HT_REGIONS * R * 4);
    c->upd = (uint8_t *)calloc(R, 1);
    uint64_t *vbuf = (uint64_t *)malloc(R * 8);
    if (!c->keys || !c->upd || !vbuf) {
        free(rows); free(vbuf); ht_free(c);
        return wl_err(err, errlen, "hashtable-wi: out of memory");
    }
    wl_rng rng;
    wl_rng_seed(&rng, prm->seed ^ 0x48415348ull);
    for (uint64_t i = 0; i < HT_REGIONS * R; i++) c->keys[i] = 1 + (uint32_t)wl_rng_below(&rng, 0xFFFFFFFEull);
    for (uint64_t s = 0; s < R; s++) rows[s] = s;
    for (uint64_t i = 0; i < U; i++) {           /* partial Fisher-Yates: the U updated rows */
        uint64_t j = i + wl_rng_below(&rng, R - i);
        uint64_t x = rows[i]; rows[i] = rows[j]; rows[j] = x;
        c->upd[rows[i]] = 1;
    }
    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->val = wl_alloc_pm(&al, HT_REGIONS * R * 8);
    c->com = wl_alloc_pm(&al, HT_REGIONS * R * 8);
    for (uint32_t r = 0; r < HT_REGIONS; r++) {
        for (uint64_t s = 0; s < R; s++) vbuf[s] = ht_f(c->keys[r * R + s], 1, prm->seed);
        mem_write(init, c->val + (uint64_t)r * R * 8, vbuf, R * 8);
        for (uint64_t s = 0; s < R; s++) vbuf[s] = c->keys[r * R + s] | 1ull << 32;
        mem_write(init, c->com + (uint64_t)r * R * 8, vbuf, R * 8);
    }
    const uint32_t NB = prm->num_sms * 8, NW = NB * HT_WAVES;
    prog_kernel(p, "ht_update_wi", NB, HT_WAVES * PERSIM_WARP_SIZE);
    uint64_t vals[HT_REGIONS];
    for (uint32_t b = 0; b < NB; b++)
        for (uint32_t w = 0; w < HT_WAVES; w++) {
            prog_warp(p, b, w);
            for (uint64_t i = b * HT_WAVES + w; i < U; i += NW) {
                const uint64_t s = rows[i];
                op_ld(p, c->com + s * 8, 8, HT_REGIONS, (uint32_t)(R * 8));
                op_compute(p, 12);
                for (uint32_t r = 0; r < HT_REGIONS; r++) vals[r] = ht_f(c->keys[r * R + s], 2, prm->seed);
                const uint32_t vid = op_st(p, c->val + s * 8, 8, HT_REGIONS, (uint32_t)(R * 8), vals);
                op_pbarrier(p, SCOPE_WARP);                 /* value before key: p_barrier_wi */
                for (uint32_t r = 0; r < HT_REGIONS; r++) vals[r] = c->keys[r * R + s] | 2ull << 32;
                const uint32_t cid = op_st(p, c->com + s * 8, 8, HT_REGIONS, (uint32_t)(R * 8), vals);
                op_require(p, vid, cid);                    /* what a recovery relies on (persim check) */
            }
            op_compute(p, 2);
        }
    free(rows);
    free(vbuf);
    *ctxp = c;
    return 0;
}

static int ht_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const ht_ctx *c = (const ht_ctx *)vc;
    for (uint32_t r = 0; r < HT_REGIONS; r++)
        for (uint64_t s = 0; s < c->rows; s++) {
            const uint32_t key = c->keys[r * c->rows + s], ver = c->upd[s] ? 2 : 1;
            uint64_t com = 0, val = 0;
            mem_read(img, c->com + ((uint64_t)r * c->rows + s) * 8, &com, 8);
            mem_read(img, c->val + ((uint64_t)r * c->rows + s) * 8, &val, 8);
            if (com != (key | (uint64_t)ver << 32))
                return wl_err(msg, msglen, "hashtable-wi: region %u row %llu commit word 0x%llx, expected key %u version %u",
                              r, (unsigned long long)s, (unsigned long long)com, key, ver);
            if (val != ht_f(key, ver, c->seed))
                return wl_err(msg, msglen, "hashtable-wi: region %u row %llu value 0x%llx, expected 0x%llx (version %u)", r,
                              (unsigned long long)s, (unsigned long long)val, (unsigned long long)ht_f(key, ver, c->seed), ver);
        }
    return 0;
}

const persim_workload wl_hashtable_wi_workload = {
    .name = "hashtable-wi",
    .desc = "persistent hash-table update, value before commit word per workitem: workitem-scope persist "
            "barrier (scoped persist barriers paper, section 5)",
    .size_desc = "entries updated (32 per wavefront operation)",
    .pmo = "workitem-scope persist barriers",
    .recovery = "native",
    .default_size = 262144,
    .small_size = 4096,
    .build = ht_build,
    .verify = ht_verify,
    .free_ctx = ht_free,
};
PERSIM_WORKLOAD(wl_hashtable_wi_workload, WL_GPU, 90);
