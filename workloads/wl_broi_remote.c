/* persim workloads "broi-ycsb", "broi-tpcc", "broi-ctree", "broi-hashmap" (+ "broi-hashmap-e128" ...
 * "-e4096") and "broi-memcached": the BROI paper's remote applications (WHISPER clients writing into
 * the NVM server over RDMA; Table IV rows tpcc, ycsb, C-tree, Hashmap, Memcached; section VII-B,
 * Figures 12 and 13) as *client profiles*: remote streams only (docs/workloads-cpu.md, "BROI").
 *
 * The program's kernel has num_threads local streams, all empty here, then num_remote remote
 * streams (RDMA channels); transaction j of `size` is by channel j % num_remote. Every transaction
 * starts with `compute think` (client think time and the work between requests). A read
 * transaction persists nothing (RDMA reads are not modelled: no loads in remote streams). A write
 * transaction is a sequence of rdma_pwrites, each one barrier region: its payload as 8-byte `st`
 * ops, then `order`:
 *   for each item: log pwrite {slot, txid, payload[elem/8]}   (the client's logging engine, Fig. 8)
 *   for each item: data pwrite payload[elem/8] into the item's slot
 *   meta pwrite {txid} into the first item's slot link        (bucket / parent / index word; if meta)
 *   commit pwrite {txid} into the channel header
 * so the epoch sizes are elem/8 + 2, elem/8, 1 and 1 stores. Per channel PM area: header (64 B), log
 * (items x (16 + elem)), data (slots x elem), links (slots x 8).
 * verify rebuilds the expected area independently (replaying the transactions from the seed into an
 * empty image) and compares every byte of every channel's area. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_broi.h"

/* One row per remote application. Table IV gives the transaction-level write ratio (tpcc 20-40%,
 * ycsb 50-80% writes, C-tree / Hashmap 100 INSERT transactions per client, Memcached 5% SET); a
 * range is spread over the channels: channel c of R writes with probability
 * wlo + (whi - wlo) * c / (R - 1) percent. Everything else is ours (the paper states no element or
 * epoch sizes per application): ycsb 1 KB records (YCSB's default 10 x 100 B fields); tpcc three
 * 512-B items per write transaction, i.e. six 512-B epochs (section III's example transaction "with
 * 6 epochs of size 512B") plus the link and commit; C-tree 64-B nodes with a parent link; Hashmap
 * elements of `elem` bytes (Figure 13 varies 128 B - 4 KB: one registered variant per size) with a
 * bucket link; Memcached 1 KB values with a hash-chain link. slots: distinct items per channel.
 * think: instructions per transaction. */
typedef struct rp_row {
    const char *name, *desc;
    uint32_t wlo, whi;       /* write transactions, percent (Table IV) */
    uint32_t items, elem, meta;
    uint64_t slots, think;
    uint64_t small, dflt;    /* transactions */
} rp_row;

static const rp_row rp_rows[] = {
    /* name                  desc                                                       wlo whi items elem meta slots think small dflt */
    { "broi-ycsb",          "BROI remote ycsb (Table IV: 50-80% writes), 1 KB records", 50, 80, 1, 1024, 0, 4096, 400, 80, 800 },
    { "broi-tpcc",          "BROI remote tpcc (Table IV: 20-40% writes), 3 x 512 B items", 20, 40, 3, 512, 1, 4096, 600, 120, 1200 },
    { "broi-ctree",         "BROI remote C-tree INSERTs (Table IV), 64 B nodes + parent link", 100, 100, 1, 64, 1, 8192, 150, 400, 4000 },
    { "broi-hashmap",       "BROI remote hashmap INSERTs (Table IV), 512 B elements + bucket link", 100, 100, 1, 512, 1, 4096, 150, 100, 400 },
    { "broi-hashmap-e128",  "BROI remote hashmap INSERTs, 128 B elements (Figure 13)", 100, 100, 1, 128, 1, 4096, 150, 400, 400 },
    { "broi-hashmap-e256",  "BROI remote hashmap INSERTs, 256 B elements (Figure 13)", 100, 100, 1, 256, 1, 4096, 150, 200, 400 },
    { "broi-hashmap-e512",  "BROI remote hashmap INSERTs, 512 B elements (Figure 13)", 100, 100, 1, 512, 1, 4096, 150, 100, 400 },
    { "broi-hashmap-e1024", "BROI remote hashmap INSERTs, 1 KB elements (Figure 13)", 100, 100, 1, 1024, 1, 4096, 150, 50, 400 },
    { "broi-hashmap-e2048", "BROI remote hashmap INSERTs, 2 KB elements (Figure 13)", 100, 100, 1, 2048, 1, 4096, 150, 25, 400 },
    { "broi-hashmap-e4096", "BROI remote hashmap INSERTs, 4 KB elements (Figure 13)", 100, 100, 1, 4096, 1, 4096, 150, 16, 400 },
    { "broi-memcached",     "BROI remote memcached (Table IV: memslap, 5% SET), 1 KB values", 5, 5, 1, 1024, 1, 4096, 300, 1000, 10000 },
};
#define RP_N (sizeof rp_rows / sizeof *rp_rows)
#define RP_MAX (1ull << 22)

typedef struct rp_ctx {
    const rp_row *row;
    uint64_t n, seed, lo, hi, chan_bytes;
    uint32_t R;
} rp_ctx;

static void rp_free(void *c) { free(c); }

static uint32_t rp_wpct(const rp_row *r, uint32_t c, uint32_t R)
{
    return r->wlo + (R > 1 ? (r->whi - r->wlo) * c / (R - 1) : 0);
}
static int rp_is_write(const rp_ctx *c, uint64_t j)
{
    return cpu_mix(c->seed ^ 0x5752ull, j) % 100 < rp_wpct(c->row, (uint32_t)(j % c->R), c->R);
}
static uint64_t rp_slot(const rp_ctx *c, uint64_t j, uint32_t i) { return cpu_mix(c->seed ^ 0x534Cull, j * 8 + i) % c->row->slots; }
static uint64_t rp_word(const rp_ctx *c, uint64_t j, uint32_t i, uint32_t w)
{
    return cpu_mix(c->seed ^ 0x5057ull, (j * 8 + i) * 512 + w);
}
/* channel area layout */
static uint64_t rp_chan(const rp_ctx *c, uint32_t ch) { return c->lo + ch * c->chan_bytes; }
static uint64_t rp_log(const rp_ctx *c, uint32_t ch, uint32_t i) { return rp_chan(c, ch) + 64 + (uint64_t)i * (16 + c->row->elem); }
static uint64_t rp_data(const rp_ctx *c, uint32_t ch, uint64_t s)
{
    return rp_chan(c, ch) + 64 + (uint64_t)c->row->items * (16 + c->row->elem) + s * c->row->elem;
}
static uint64_t rp_link(const rp_ctx *c, uint32_t ch, uint64_t s) { return rp_data(c, ch, c->row->slots) + s * 8; }

/* The stores of write transaction j as (addr, value) pairs in pwrite order, with an order mark after
 * each pwrite; emit() receives them. Shared by the generator and the verifier's replay. */
typedef void (*rp_emit_fn)(void *u, uint64_t addr, uint64_t val, int end_of_pwrite);
static void rp_tx(const rp_ctx *c, uint64_t j, rp_emit_fn emit, void *u)
{
    const uint32_t ch = (uint32_t)(j % c->R), W = c->row->elem / 8;
    for (uint32_t i = 0; i < c->row->items; i++) {
        const uint64_t l = rp_log(c, ch, i);
        emit(u, l, rp_slot(c, j, i), 0);
        emit(u, l + 8, j + 1, W == 0);
        for (uint32_t w = 0; w < W; w++) emit(u, l + 16 + 8 * w, rp_word(c, j, i, w), w + 1 == W);
    }
    for (uint32_t i = 0; i < c->row->items; i++) {
        const uint64_t d = rp_data(c, ch, rp_slot(c, j, i));
        for (uint32_t w = 0; w < W; w++) emit(u, d + 8 * w, rp_word(c, j, i, w), w + 1 == W);
    }
    if (c->row->meta) emit(u, rp_link(c, ch, rp_slot(c, j, 0)), j + 1, 1);
    emit(u, rp_chan(c, ch), j + 1, 1);
}

typedef struct rp_gen_u { cpu_gen *g; uint32_t s; } rp_gen_u;
static void rp_gen_emit(void *u, uint64_t addr, uint64_t val, int end)
{
    rp_gen_u *x = (rp_gen_u *)u;
    cpu_st(x->g, x->s, addr, 8, val);
    if (end) bx_order(x->g, x->s);     /* the end of this rdma_pwrite */
}
static void rp_img_emit(void *u, uint64_t addr, uint64_t val, int end)
{
    (void)end;
    mem_write_u64((mem_image *)u, addr, val);
}

static int rp_build_row(const rp_row *row, const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp,
                        char *err, size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > RP_MAX)
        return wl_err(err, errlen, "%s: size %llu out of range (transactions, 1..%llu)", row->name,
                      (unsigned long long)prm->size, RP_MAX);
    cpu_gen g;
    if (bx_gen_init(&g, row->name, prm, 1, init, err, errlen)) return -1;
    rp_ctx *c = (rp_ctx *)calloc(1, sizeof *c);
    if (!c) { cpu_gen_free(&g); return wl_err(err, errlen, "%s: out of memory", row->name); }
    c->row = row;
    c->n = prm->size;
    c->seed = prm->seed;
    c->R = prm->num_remote;
    const uint32_t T = prm->num_threads;
    c->chan_bytes = (64 + (uint64_t)row->items * (16 + row->elem) + row->slots * (row->elem + 8) + 127) & ~127ull;
    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->lo = wl_alloc_pm(&al, c->chan_bytes * c->R);
    c->hi = c->lo + c->chan_bytes * c->R;
    rp_gen_u u;
    u.g = &g;
    for (uint64_t j = 0; j < c->n; j++) {
        u.s = T + (uint32_t)(j % c->R);
        cpu_compute(&g, u.s, row->think);
        if (rp_is_write(c, j)) rp_tx(c, j, rp_gen_emit, &u);
    }
    const int rc = cpu_gen_emit(&g, p, "main", err, errlen);
    cpu_gen_free(&g);
    if (rc) { free(c); return -1; }
    *ctxp = c;
    return 0;
}

static int rp_verify(const void *vc, const mem_image *img, char *msg, size_t ml)
{
    const rp_ctx *c = (const rp_ctx *)vc;
    mem_image *e = mem_new();
    if (!e) return wl_err(msg, ml, "%s: out of memory", c->row->name);
    for (uint64_t j = 0; j < c->n; j++)
        if (rp_is_write(c, j)) rp_tx(c, j, rp_img_emit, e);
    int rc = 0;
    for (uint32_t ch = 0; ch < c->R && !rc; ch++) {
        char what[64];
        snprintf(what, sizeof what, "channel %u area", ch);
        rc = cpu_cmp_range(c->row->name, what, img, e, rp_chan(c, ch), c->chan_bytes, msg, ml);
    }
    mem_free(e);
    return rc;
}

#define RP_BUILD(k)                                                                                                  \
    static int rp_build_##k(const wl_params *prm, persim_prog *p, mem_image *init, void **ctx, char *e, size_t el)  \
    { return rp_build_row(&rp_rows[k], prm, p, init, ctx, e, el); }
RP_BUILD(0) RP_BUILD(1) RP_BUILD(2) RP_BUILD(3) RP_BUILD(4) RP_BUILD(5)
RP_BUILD(6) RP_BUILD(7) RP_BUILD(8) RP_BUILD(9) RP_BUILD(10)

/* The descriptions and sizes repeat rp_rows (a static initializer cannot read the table). */
const persim_workload wl_broi_ycsb_workload = {
    .name = "broi-ycsb", .desc = "BROI remote ycsb (Table IV: 50-80% writes), 1 KB records",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 800, .small_size = 80,
    .build = rp_build_0, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_ycsb_workload, WL_CPU, 230);
const persim_workload wl_broi_tpcc_workload = {
    .name = "broi-tpcc", .desc = "BROI remote tpcc (Table IV: 20-40% writes), 3 x 512 B items",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 1200, .small_size = 120,
    .build = rp_build_1, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_tpcc_workload, WL_CPU, 240);
const persim_workload wl_broi_ctree_workload = {
    .name = "broi-ctree", .desc = "BROI remote C-tree INSERTs (Table IV), 64 B nodes + parent link",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 4000, .small_size = 400,
    .build = rp_build_2, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_ctree_workload, WL_CPU, 250);
const persim_workload wl_broi_hashmap_workload = {
    .name = "broi-hashmap", .desc = "BROI remote hashmap INSERTs (Table IV), 512 B elements + bucket link",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 400, .small_size = 100,
    .build = rp_build_3, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_hashmap_workload, WL_CPU, 260);
const persim_workload wl_broi_hashmap_e128_workload = {
    .name = "broi-hashmap-e128", .desc = "BROI remote hashmap INSERTs, 128 B elements (Figure 13)",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 400, .small_size = 400,
    .build = rp_build_4, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_hashmap_e128_workload, WL_CPU, 270);
const persim_workload wl_broi_hashmap_e256_workload = {
    .name = "broi-hashmap-e256", .desc = "BROI remote hashmap INSERTs, 256 B elements (Figure 13)",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 400, .small_size = 200,
    .build = rp_build_5, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_hashmap_e256_workload, WL_CPU, 280);
const persim_workload wl_broi_hashmap_e512_workload = {
    .name = "broi-hashmap-e512", .desc = "BROI remote hashmap INSERTs, 512 B elements (Figure 13)",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 400, .small_size = 100,
    .build = rp_build_6, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_hashmap_e512_workload, WL_CPU, 290);
const persim_workload wl_broi_hashmap_e1024_workload = {
    .name = "broi-hashmap-e1024", .desc = "BROI remote hashmap INSERTs, 1 KB elements (Figure 13)",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 400, .small_size = 50,
    .build = rp_build_7, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_hashmap_e1024_workload, WL_CPU, 300);
const persim_workload wl_broi_hashmap_e2048_workload = {
    .name = "broi-hashmap-e2048", .desc = "BROI remote hashmap INSERTs, 2 KB elements (Figure 13)",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 400, .small_size = 25,
    .build = rp_build_8, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_hashmap_e2048_workload, WL_CPU, 310);
const persim_workload wl_broi_hashmap_e4096_workload = {
    .name = "broi-hashmap-e4096", .desc = "BROI remote hashmap INSERTs, 4 KB elements (Figure 13)",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 400, .small_size = 16,
    .build = rp_build_9, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_hashmap_e4096_workload, WL_CPU, 320);
const persim_workload wl_broi_memcached_workload = {
    .name = "broi-memcached", .desc = "BROI remote memcached (Table IV: memslap, 5% SET), 1 KB values",
    .size_desc = "transactions in total (transaction j by RDMA channel j % num_remote)",
    .pmo = "persist barriers (order): one per rdma_pwrite on the remote streams",
    .recovery = "logging (client log pwrite before data)", .default_size = 10000, .small_size = 1000,
    .build = rp_build_10, .verify = rp_verify, .free_ctx = rp_free };
PERSIM_WORKLOAD(wl_broi_memcached_workload, WL_CPU, 330);
