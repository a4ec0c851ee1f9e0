/* persim workload "cpu-txbank": STAMP-like transactions (bank / vacation style) on persistent
 * account records, each transaction locking all the records it touches with ticket-ordered
 * per-record locks taken in address order (two-phase locking; docs/workloads-cpu.md).
 *
 * PM layout: N = max(64, size / 4) account records of 64 bytes {balance u64, txcount u64,
 * last_tx u64} (initial balance TB_INIT); N lock words (4 bytes, packed); per thread t a line
 * {committed u64, aborted u64, audit u64} and a redo log of ceil(size/T) entries of 32 bytes
 * {txid, kind, account a, amount}. size = transactions in total; transaction i (txid i + 1) is by
 * thread i % T:
 *   transfer    (60%): accounts a != b, amount 1..100: ld both balances; if a has enough:
 *                      st log entry (4 words); st balances; ld+st txcount, st last_tx of both;
 *                      st committed + 1, else st aborted + 1
 *   reservation (25%, vacation): a customer and 3 resources (car, flight, room; 4 different
 *                      accounts): price of resource r = 10 + its balance % 50; if the customer
 *                      can pay the total: log entry, customer pays, each resource is paid its
 *                      price (txcount, last_tx of all 4), committed + 1; else aborted + 1
 *   audit       (15%): 3 different accounts: ld the balances; st audit_t = their sum (read-only
 *                      on the shared records)
 * Each transaction: mark loop; compute 10 (pick the accounts); mark func; acquire the locks in
 * address order; the loads; compute 6 (decide); the stores; release in reverse order; mark ret.
 * verify replays the transactions on plain arrays and compares every record word, every lock word
 * (transactions touching the record), every thread line and log entry, and checks that the
 * balances still sum to N * TB_INIT (transfers and reservations move money, never make it). */
#include <stdlib.h>
#include <string.h>

#include "wl_cpu.h"

#define TB_NAME "cpu-txbank"
#define TB_MAX  (1ull << 24)
#define TB_REC  64u
#define TB_INIT 1000u
#define TB_LOG  32u

enum { TB_TRANSFER = 1, TB_RESERVE = 2, TB_AUDIT = 3 };

typedef struct tb_ctx {
    uint32_t T;
    uint64_t n, seed, N, log_len;
    uint64_t acc, locks, thr, logs;
} tb_ctx;

/* One transaction as drawn from (seed, i): kind, accounts (sorted, distinct), amount. */
typedef struct tb_tx { int kind; uint32_t na; uint64_t acc[4]; uint64_t amount; } tb_tx;

static void tb_free(void *c) { free(c); }

static void tb_draw(const tb_ctx *c, uint64_t i, tb_tx *x)
{
    const uint64_t r = cpu_mix(c->seed ^ 0x54584Bull, i) % 100;
    x->kind = r < 60 ? TB_TRANSFER : r < 85 ? TB_RESERVE : TB_AUDIT;
    x->na = x->kind == TB_TRANSFER ? 2 : x->kind == TB_RESERVE ? 4 : 3;
    for (uint32_t k = 0; k < x->na; k++) {
        uint64_t j = 0, a;
        do a = cpu_mix(c->seed ^ 0x414343ull, i * 16 + k + 4 * j++) % c->N;
        while ((k > 0 && a == x->acc[0]) || (k > 1 && a == x->acc[1]) || (k > 2 && a == x->acc[2]));
        x->acc[k] = a;   /* drawn order: acc[0] pays (transfer source, customer) */
    }
    x->amount = 1 + cpu_mix(c->seed ^ 0x414D54ull, i) % 100;
}

static int tb_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err, size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > TB_MAX)
        return wl_err(err, errlen, TB_NAME ": size %llu out of range (transactions, 1..%llu)", (unsigned long long)prm->size, TB_MAX);
    if (prm->num_threads == 0)
        return wl_err(err, errlen, TB_NAME ": needs a CPU system (system.kind=cpu): num_threads is 0");
    tb_ctx *c = (tb_ctx *)calloc(1, sizeof *c);
    if (!c) return wl_err(err, errlen, TB_NAME ": out of memory");
    c->n = prm->size;
    c->seed = prm->seed;
    c->N = prm->size / 4 < 64 ? 64 : prm->size / 4;
    c->T = prm->num_threads;
    c->log_len = (prm->size + c->T - 1) / c->T;
    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->acc = wl_alloc_pm(&al, c->N * TB_REC);
    c->locks = wl_alloc_pm(&al, c->N * 4);
    c->thr = wl_alloc_pm(&al, (uint64_t)c->T * 128);
    c->logs = wl_alloc_pm(&al, (uint64_t)c->T * c->log_len * TB_LOG);
    for (uint64_t a = 0; a < c->N; a++) mem_write_u64(init, c->acc + a * TB_REC, TB_INIT);
    cpu_gen g;
    if (cpu_gen_init(&g, TB_NAME, prm, init, err, errlen)) { free(c); return -1; }
    for (uint64_t i = 0; i < c->n; i++) {
        const uint32_t t = (uint32_t)(i % c->T);
        const uint64_t tl = c->thr + (uint64_t)t * 128;
        tb_tx x;
        tb_draw(c, i, &x);
        uint64_t lk[4];
        for (uint32_t k = 0; k < x.na; k++) lk[k] = c->locks + x.acc[k] * 4;
        for (uint32_t k = 1; k < x.na; k++)          /* lock order: ascending address */
            for (uint32_t j = k; j > 0 && lk[j - 1] > lk[j]; j--) { uint64_t y = lk[j]; lk[j] = lk[j - 1]; lk[j - 1] = y; }
        cpu_mark(&g, t, MARK_LOOP);
        cpu_compute(&g, t, 10);
        cpu_mark(&g, t, MARK_FUNC);
        for (uint32_t k = 0; k < x.na; k++) cpu_lock(&g, t, lk[k]);
        uint64_t bal[4];
        for (uint32_t k = 0; k < x.na; k++) bal[k] = cpu_ld(&g, t, c->acc + x.acc[k] * TB_REC, 8);
        cpu_compute(&g, t, 6);
        if (x.kind == TB_AUDIT) {
            cpu_st(&g, t, tl + 16, 8, bal[0] + bal[1] + bal[2]);
        } else {
            uint64_t pay[4] = { 0, x.amount, 0, 0 }, total = x.amount;
            if (x.kind == TB_RESERVE) {
                total = 0;
                for (uint32_t k = 1; k < 4; k++) total += pay[k] = 10 + bal[k] % 50;
            }
            if (bal[0] >= total) {
                const uint64_t cnt = cpu_ld(&g, t, tl, 8), le = c->logs + ((uint64_t)t * c->log_len + cnt) * TB_LOG;
                cpu_st(&g, t, le, 8, i + 1);                  /* redo log entry first */
                cpu_st(&g, t, le + 8, 8, (uint64_t)x.kind);
                cpu_st(&g, t, le + 16, 8, x.acc[0]);
                cpu_st(&g, t, le + 24, 8, total);
                for (uint32_t k = 0; k < x.na; k++) {
                    const uint64_t r = c->acc + x.acc[k] * TB_REC;
                    cpu_st(&g, t, r, 8, k == 0 ? bal[0] - total : bal[k] + pay[k]);
                    cpu_st(&g, t, r + 8, 8, cpu_ld(&g, t, r + 8, 8) + 1);
                    cpu_st(&g, t, r + 16, 8, i + 1);
                }
                cpu_st(&g, t, tl, 8, cnt + 1);
            } else {
                cpu_st(&g, t, tl + 8, 8, cpu_ld(&g, t, tl + 8, 8) + 1);
            }
        }
        for (uint32_t k = x.na; k-- > 0;) cpu_unlock(&g, t, lk[k]);
        cpu_mark(&g, t, MARK_RET);
    }
    int rc = cpu_gen_emit(&g, p, "main", err, errlen);
    cpu_gen_free(&g);
    if (rc) { free(c); return -1; }
    *ctxp = c;
    return 0;
}

static int tb_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const tb_ctx *c = (const tb_ctx *)vc;
    const uint64_t nl = (uint64_t)c->T * c->log_len;
    uint64_t *rec = (uint64_t *)calloc(c->N * 3, 8), *lock = (uint64_t *)calloc(c->N, 8);
    uint64_t *thr = (uint64_t *)calloc((size_t)c->T * 3, 8), *log = (uint64_t *)calloc(nl * 4 + 1, 8);
    int rc = 0;
    if (!rec || !lock || !thr || !log) { rc = wl_err(msg, msglen, TB_NAME ": out of memory"); goto out; }
    for (uint64_t a = 0; a < c->N; a++) rec[3 * a] = TB_INIT;
    for (uint64_t i = 0; i < c->n; i++) {
        const uint32_t t = (uint32_t)(i % c->T);
        tb_tx x;
        tb_draw(c, i, &x);
        for (uint32_t k = 0; k < x.na; k++) lock[x.acc[k]]++;
        if (x.kind == TB_AUDIT) { thr[3 * t + 2] = rec[3 * x.acc[0]] + rec[3 * x.acc[1]] + rec[3 * x.acc[2]]; continue; }
        uint64_t pay[4] = { 0, x.amount, 0, 0 }, total = x.amount;
        if (x.kind == TB_RESERVE) {
            total = 0;
            for (uint32_t k = 1; k < 4; k++) total += pay[k] = 10 + rec[3 * x.acc[k]] % 50;
        }
        if (rec[3 * x.acc[0]] < total) { thr[3 * t + 1]++; continue; }
        uint64_t *e = log + 4 * ((uint64_t)t * c->log_len + thr[3 * t]++);
        e[0] = i + 1; e[1] = (uint64_t)x.kind; e[2] = x.acc[0]; e[3] = total;
        rec[3 * x.acc[0]] -= total;
        for (uint32_t k = 1; k < x.na; k++) rec[3 * x.acc[k]] += pay[k];
        for (uint32_t k = 0; k < x.na; k++) { rec[3 * x.acc[k] + 1]++; rec[3 * x.acc[k] + 2] = i + 1; }
    }
    static const char *const rf[3] = { "balance", "txcount", "last_tx" }, *const tf[3] = { "committed", "aborted", "audit" };
    uint64_t sum = 0, v;
    for (uint64_t a = 0; a < c->N && !rc; a++) {
        sum += mem_read_u64(img, c->acc + a * TB_REC);
        for (uint32_t k = 0; k < 3 && !rc; k++)
            if ((v = mem_read_u64(img, c->acc + a * TB_REC + 8 * k)) != rec[3 * a + k])
                rc = wl_err(msg, msglen, TB_NAME ": account %llu %s %llu, expected %llu", (unsigned long long)a, rf[k],
                            (unsigned long long)v, (unsigned long long)rec[3 * a + k]);
        if (!rc && (v = mem_read_u32(img, c->locks + a * 4)) != lock[a])
            rc = wl_err(msg, msglen, TB_NAME ": lock word of account %llu is %llu, expected %llu", (unsigned long long)a,
                        (unsigned long long)v, (unsigned long long)lock[a]);
    }
    if (!rc && sum != c->N * TB_INIT)
        rc = wl_err(msg, msglen, TB_NAME ": balances sum to %llu, expected %llu", (unsigned long long)sum,
                    (unsigned long long)(c->N * TB_INIT));
    for (uint32_t t = 0; t < c->T && !rc; t++)
        for (uint32_t k = 0; k < 3 && !rc; k++)
            if ((v = mem_read_u64(img, c->thr + (uint64_t)t * 128 + 8 * k)) != thr[3 * t + k])
                rc = wl_err(msg, msglen, TB_NAME ": thread %u %s %llu, expected %llu", t, tf[k], (unsigned long long)v,
                            (unsigned long long)thr[3 * t + k]);
    for (uint64_t e = 0; e < nl * 4 && !rc; e++)
        if ((v = mem_read_u64(img, c->logs + e * 8)) != log[e])
            rc = wl_err(msg, msglen, TB_NAME ": thread %llu log entry %llu word %llu is %llu, expected %llu",
                        (unsigned long long)(e / 4 / c->log_len), (unsigned long long)(e / 4 % c->log_len),
                        (unsigned long long)(e % 4), (unsigned long long)v, (unsigned long long)log[e]);
out:
    free(rec); free(lock); free(thr); free(log);
    return rc;
}

const persim_workload wl_cpu_txbank_workload = {
    .name = TB_NAME,
    .desc = "CPU: STAMP-like bank/vacation transactions on persistent accounts (redo log, per-record ticket locks, 2PL)",
    .size_desc = "transactions in total (60% transfer, 25% reservation of 3 resources, 15% audit)",
    .pmo = "system acquire/release (ticket locks)",
    .recovery = "native",
    .default_size = 6000,
    .small_size = 600,
    .build = tb_build,
    .verify = tb_verify,
    .free_ctx = tb_free,
};
PERSIM_WORKLOAD(wl_cpu_txbank_workload, WL_CPU, 50);
