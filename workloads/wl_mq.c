/* persim workload "mq": Multiqueue, one persistent FIFO queue of ints per thread block, batch
 * insert/remove transactions (the SBRP artifact's multi_queue.cu).
 *
 * size = random commands (artifact: 2,000 over 120 queues, then one commit per queue). The
 * grid has nq = clamp(size * 120 / 2000, 1, 120) blocks of T = 128 threads (4 warps); block q
 * owns queue q and executes, in order, the commands addressed to it. Commands pick a random
 * queue and alternate insert/remove per queue (artifact); each moves a batch of T * 32 ints
 * (4096), the queue holds 8 batches (32K ints) as a ring. A transaction:
 *   leader (warp 0): writes the 8 B start record (head << 32 | tail) + ORDER;
 *   all warps: __syncthreads;
 *   each warp: 32 x (load 32 ints, store 32 ints): insert copies the command's volatile input
 *     buffer into the PM ring at tail, remove copies the ring at head into the command's
 *     volatile output buffer; then releases its flag at block scope;
 *   leader: acquires every warp's flag at block scope, stores the new tail (insert) or head
 *     (remove), ORDER, writes the 8 B completion record.
 * A commit command is a DURABLE by every warp. Head/tail (one 128 B line per queue), the ring
 * and the records (start[cmd], done[cmd], initialised to -1) are PM. The per-warp done flags
 * stand for the artifact's per-thread done_marker bytes, which live in shared memory: here
 * they are volatile, valued with the queue's transaction number so they need no reset. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define MQ_THREADS     128u
#define MQ_EPT         32u     /* entries per thread per batch */
#define MQ_CAP_BATCHES 8u      /* ring capacity in batches */
#define MQ_MAX_QUEUES  120u

enum { MQ_INSERT = 0, MQ_REMOVE = 1, MQ_COMMIT = 2 };

typedef struct mq_ctx {
    uint32_t  nq, ncmd, T, batch, cap;
    uint8_t  *type;          /* per command */
    uint32_t *q;             /* per command */
    uint32_t *data;          /* per command: batch ints (insert input), others unused */
    uint64_t *buf;           /* per command: volatile buffer (0 for commits) */
    uint64_t  qarr, hdr, rec;
} mq_ctx;

static void mq_free(void *vc)
{
    mq_ctx *c = (mq_ctx *)vc;
    if (!c) return;
    free(c->type);
    free(c->q);
    free(c->data);
    free(c->buf);
    free(c);
}

static uint64_t mq_pack(uint32_t head, uint32_t tail) { return (uint64_t)head << 32 | tail; }

/* Sequential reference state of all queues. */
typedef struct mq_ref { uint32_t *head, *tail, *arr; } mq_ref;

static int mq_ref_init(mq_ref *r, const mq_ctx *c)
{
    r->head = (uint32_t *)calloc(c->nq, 4);
    r->tail = (uint32_t *)calloc(c->nq, 4);
    r->arr = (uint32_t *)calloc((size_t)c->nq * c->cap, 4);
    return r->head && r->tail && r->arr ? 0 : -1;
}

static void mq_ref_free(mq_ref *r) { free(r->head); free(r->tail); free(r->arr); }

/* missing_order: drop the ORDER between the leader's head/tail update and the completion record
 * (the mq-noorder-bug variant). */
static int mq_build_v(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err,
                      size_t errlen, int missing_order)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > 1000000)
        return wl_err(err, errlen, "mq: size (commands) must be in 1..1000000, got %llu",
                      (unsigned long long)prm->size);
    if (prm->max_threads_per_block < PERSIM_WARP_SIZE)
        return wl_err(err, errlen, "mq: max_threads_per_block %u < 32", prm->max_threads_per_block);
    mq_ctx *c = (mq_ctx *)calloc(1, sizeof *c);
    if (!c) return wl_err(err, errlen, "mq: out of memory");
    uint32_t T = MQ_THREADS < prm->max_threads_per_block ? MQ_THREADS : prm->max_threads_per_block;
    T -= T % PERSIM_WARP_SIZE;
    const uint32_t W = T / PERSIM_WARP_SIZE;
    uint64_t nq = (prm->size * MQ_MAX_QUEUES + 1000) / 2000;
    if (nq < 1) nq = 1;
    if (nq > MQ_MAX_QUEUES) nq = MQ_MAX_QUEUES;
    c->nq = (uint32_t)nq;
    c->T = T;
    c->batch = T * MQ_EPT;
    c->cap = c->batch * MQ_CAP_BATCHES;
    c->ncmd = (uint32_t)prm->size + c->nq;
    c->type = (uint8_t *)calloc(c->ncmd, 1);
    c->q = (uint32_t *)calloc(c->ncmd, 4);
    c->buf = (uint64_t *)calloc(c->ncmd, 8);
    uint8_t *next = (uint8_t *)calloc(c->nq, 1);
    mq_ref ref;
    int refok = mq_ref_init(&ref, c);
    if (!c->type || !c->q || !c->buf || !next || refok) {
        free(next);
        mq_ref_free(&ref);
        mq_free(c);
        return wl_err(err, errlen, "mq: out of memory");
    }

    /* commands (artifact createCommands): random queue, alternating insert/remove per queue */
    wl_rng rng;
    wl_rng_seed(&rng, prm->seed ^ 0x4d51ull);
    uint32_t ninsert = 0;
    for (uint32_t i = 0; i < (uint32_t)prm->size; i++) {
        c->q[i] = (uint32_t)wl_rng_below(&rng, c->nq);
        c->type[i] = next[c->q[i]];
        next[c->q[i]] ^= 1;
        ninsert += c->type[i] == MQ_INSERT;
    }
    for (uint32_t i = 0; i < c->nq; i++) {
        c->q[prm->size + i] = i;
        c->type[prm->size + i] = MQ_COMMIT;
    }
    free(next);
    c->data = (uint32_t *)malloc((size_t)(ninsert ? ninsert : 1) * c->batch * 4);
    uint32_t *data_of = (uint32_t *)calloc(c->ncmd, 4);   /* insert command -> data slot */
    if (!c->data || !data_of) {
        free(data_of);
        mq_ref_free(&ref);
        mq_free(c);
        return wl_err(err, errlen, "mq: out of memory");
    }

    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->hdr = wl_alloc_pm(&al, (uint64_t)c->nq * 128);
    c->qarr = wl_alloc_pm(&al, (uint64_t)c->nq * c->cap * 4);
    c->rec = wl_alloc_pm(&al, (uint64_t)c->ncmd * 16);
    const uint64_t flags = wl_alloc_vol(&al, (uint64_t)c->nq * W * 4);
    uint32_t slot = 0;
    for (uint32_t i = 0; i < c->ncmd; i++) {
        if (c->type[i] == MQ_COMMIT) continue;
        c->buf[i] = wl_alloc_vol(&al, (uint64_t)c->batch * 4);
        if (c->type[i] == MQ_INSERT) {
            uint32_t *d = c->data + (size_t)slot * c->batch;
            data_of[i] = slot++;
            for (uint32_t k = 0; k < c->batch; k++) d[k] = (uint32_t)wl_rng_below(&rng, 1u << 28);
            mem_write(init, c->buf[i], d, (size_t)c->batch * 4);
        }
    }
    /* transaction records start at -1 (artifact init kernel) */
    {
        uint8_t ff[4096];
        memset(ff, 0xFF, sizeof ff);
        for (uint64_t off = 0; off < (uint64_t)c->ncmd * 16; off += sizeof ff) {
            uint64_t n = (uint64_t)c->ncmd * 16 - off;
            mem_write(init, c->rec + off, ff, n < sizeof ff ? (size_t)n : sizeof ff);
        }
    }

    prog_kernel(p, "mq", c->nq, T);
    uint64_t v[PERSIM_WARP_SIZE];
    for (uint32_t q = 0; q < c->nq; q++) {
        const uint64_t qa = c->qarr + (uint64_t)q * c->cap * 4;
        for (uint32_t w = 0; w < W; w++) {
            prog_warp(p, q, w);
            /* replay this queue's commands on a private copy of the reference state */
            uint32_t head = 0, tail = 0, seq = 0;
            uint32_t *arr = ref.arr + (size_t)q * c->cap;
            for (uint32_t i = 0; i < c->ncmd; i++) {
                if (c->q[i] != q) continue;
                if (c->type[i] == MQ_COMMIT) {
                    op_durable(p);
                    continue;
                }
                const int ins = c->type[i] == MQ_INSERT;
                seq++;
                uint32_t start_id = 0;
                if (w == 0) {
                    op_compute(p, 8);
                    start_id = op_st_bcast(p, c->rec + 8ull * i, 8, 1, 8, mq_pack(head, tail));
                    op_order(p);
                }
                op_sync(p, SCOPE_BLOCK);
                op_compute(p, 4ull * MQ_EPT);
                const uint32_t at = ins ? tail : head;
                const uint32_t *d = ins ? c->data + (size_t)data_of[i] * c->batch : NULL;
                for (uint32_t j = 0; j < MQ_EPT; j++) {
                    const uint32_t i0 = j * T + w * PERSIM_WARP_SIZE;
                    uint32_t l = 0;
                    while (l < PERSIM_WARP_SIZE) {        /* split where the ring wraps */
                        uint32_t pos = (at + i0 + l) % c->cap;
                        uint32_t n = PERSIM_WARP_SIZE - l;
                        if (pos + n > c->cap) n = c->cap - pos;
                        for (uint32_t k = 0; k < n; k++) v[k] = ins ? d[i0 + l + k] : arr[pos + k];
                        if (ins) {
                            op_ld(p, c->buf[i] + 4ull * (i0 + l), 4, n, 4);
                            op_st(p, qa + 4ull * pos, 4, n, 4, v);
                        } else {
                            op_ld(p, qa + 4ull * pos, 4, n, 4);
                            op_st(p, c->buf[i] + 4ull * (i0 + l), 4, n, 4, v);
                        }
                        l += n;
                    }
                }
                op_release(p, flags + 4ull * ((uint64_t)q * W + w), 4, seq, SCOPE_BLOCK);
                /* model update (every warp replays it; only warp 0 writes the metadata) */
                if (ins) {
                    for (uint32_t k = 0; k < c->batch; k++) arr[(tail + k) % c->cap] = d[k];
                    tail = (tail + c->batch) % c->cap;
                } else {
                    head = (head + c->batch) % c->cap;
                }
                if (w == 0) {
                    for (uint32_t ww = 0; ww < W; ww++)
                        op_acquire(p, flags + 4ull * ((uint64_t)q * W + ww), 4, seq, SCOPE_BLOCK);
                    op_compute(p, 4ull + W);
                    uint32_t hdr_id = op_st_bcast(p, c->hdr + 128ull * q + (ins ? 4 : 0), 4, 1, 4, ins ? tail : head);
                    if (!missing_order) op_order(p);
                    uint32_t done_id = op_st_bcast(p, c->rec + 8ull * (c->ncmd + i), 8, 1, 8, mq_pack(head, tail));
                    /* recovery: a durable start record means the transaction began, a durable
                     * completion record that the head/tail it set are durable */
                    op_require(p, start_id, hdr_id);
                    op_require(p, hdr_id, done_id);
                }
            }
            if (w + 1 < W) memset(arr, 0, (size_t)c->cap * 4);   /* next warp replays from scratch */
        }
    }
    free(data_of);
    mq_ref_free(&ref);
    *ctxp = c;
    return 0;
}

/* Sequential reference execution of the same commands, compared with the whole PM state
 * (head/tail, rings, records) and the removed batches. */
static int mq_check(const void *vc, const mem_image *img, char *msg, size_t msglen, int outputs)
{
    const mq_ctx *c = (const mq_ctx *)vc;
    mq_ref r;
    uint32_t *got = (uint32_t *)malloc((size_t)c->cap * 4);
    if (mq_ref_init(&r, c) || !got) {
        mq_ref_free(&r);
        free(got);
        return wl_err(msg, msglen, "mq verify: out of memory");
    }
    int rc = 0;
    uint32_t slot = 0;
    for (uint32_t i = 0; i < c->ncmd && !rc; i++) {
        uint32_t q = c->q[i];
        uint64_t start = ~0ull, done = ~0ull;
        uint32_t *arr = r.arr + (size_t)q * c->cap;
        if (c->type[i] == MQ_INSERT) {
            const uint32_t *d = c->data + (size_t)slot++ * c->batch;
            start = mq_pack(r.head[q], r.tail[q]);
            for (uint32_t k = 0; k < c->batch; k++) arr[(r.tail[q] + k) % c->cap] = d[k];
            r.tail[q] = (r.tail[q] + c->batch) % c->cap;
            done = mq_pack(r.head[q], r.tail[q]);
        } else if (c->type[i] == MQ_REMOVE) {
            start = mq_pack(r.head[q], r.tail[q]);
            mem_read(img, c->buf[i], got, (size_t)c->batch * 4);
            for (uint32_t k = 0; k < c->batch && outputs; k++)
                if (got[k] != arr[(r.head[q] + k) % c->cap]) {
                    rc = wl_err(msg, msglen, "mq: command %u (remove, queue %u) element %u = %u, expected %u",
                                i, q, k, got[k], arr[(r.head[q] + k) % c->cap]);
                    break;
                }
            r.head[q] = (r.head[q] + c->batch) % c->cap;
            done = mq_pack(r.head[q], r.tail[q]);
        }
        if (rc) break;
        uint64_t gs = mem_read_u64(img, c->rec + 8ull * i), gd = mem_read_u64(img, c->rec + 8ull * (c->ncmd + i));
        if (gs != start || gd != done)
            rc = wl_err(msg, msglen, "mq: command %u (queue %u) records start=0x%llx done=0x%llx, expected "
                        "0x%llx / 0x%llx", i, q, (unsigned long long)gs, (unsigned long long)gd,
                        (unsigned long long)start, (unsigned long long)done);
    }
    for (uint32_t q = 0; q < c->nq && !rc; q++) {
        uint32_t h = mem_read_u32(img, c->hdr + 128ull * q), t = mem_read_u32(img, c->hdr + 128ull * q + 4);
        if (h != r.head[q] || t != r.tail[q]) {
            rc = wl_err(msg, msglen, "mq: queue %u head/tail = %u/%u, expected %u/%u", q, h, t, r.head[q], r.tail[q]);
            break;
        }
        mem_read(img, c->qarr + (uint64_t)q * c->cap * 4, got, (size_t)c->cap * 4);
        const uint32_t *arr = r.arr + (size_t)q * c->cap;
        for (uint32_t k = 0; k < c->cap; k++)
            if (got[k] != arr[k]) {
                rc = wl_err(msg, msglen, "mq: queue %u slot %u = %u, expected %u", q, k, got[k], arr[k]);
                break;
            }
    }
    mq_ref_free(&r);
    free(got);
    return rc;
}

static int mq_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    return mq_check(vc, img, msg, msglen, 1);
}

/* After a crash the batches removed before it are gone with the volatile memory: check the
 * persistent state (head/tail, rings, transaction records) only. */
static int mq_verify_pm(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    return mq_check(vc, img, msg, msglen, 0);
}

static int mq_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err, size_t errlen)
{
    return mq_build_v(prm, p, init, ctxp, err, errlen, 0);
}

static int mq_build_noorder(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err,
                            size_t errlen)
{
    return mq_build_v(prm, p, init, ctxp, err, errlen, 1);
}

/* Undo-log recovery (SBRP section 7.1, "Multiqueue"): per queue, the last transaction whose start
 * record is durable either completed (its completion record is durable, so are the head/tail it
 * set and its ring writes: recovery keeps the queue) or was in progress (head/tail are restored
 * from its start record). Start records are ordered one after the other, so every earlier one is
 * durable too; the completion record of the transaction before the last one may not be, and is
 * rewritten from the last start record (the same head/tail). Then the remaining commands of the
 * queue run again from the recovered head/tail. */
static int mq_recover(const void *vc, const mem_image *durable, persim_prog *p, mem_image *img, char *err,
                      size_t errlen)
{
    const mq_ctx *c = (const mq_ctx *)vc;
    (void)img;
    const uint64_t NONE = ~0ull;
    uint32_t *slot = (uint32_t *)calloc(c->ncmd, 4), *qoff = (uint32_t *)calloc(c->nq + 1, 4);
    uint32_t *qcmd = (uint32_t *)malloc((size_t)c->ncmd * 4), *from = (uint32_t *)malloc((size_t)c->nq * 4);
    uint32_t *head = (uint32_t *)calloc(c->nq, 4), *tail = (uint32_t *)calloc(c->nq, 4);
    mem_image *work = mem_clone(durable), *before = NULL;
    int rc = 0;
    if (!slot || !qoff || !qcmd || !from || !head || !tail || !work) {
        rc = wl_err(err, errlen, "mq recover: out of memory");
        goto out;
    }
    /* the non-commit commands of each queue, in order; the input batch of each insert */
    uint32_t ns = 0;
    for (uint32_t i = 0; i < c->ncmd; i++) {
        if (c->type[i] == MQ_INSERT) slot[i] = ns++;
        if (c->type[i] != MQ_COMMIT) qoff[c->q[i] + 1]++;
    }
    for (uint32_t q = 0; q < c->nq; q++) qoff[q + 1] += qoff[q];
    {
        uint32_t *fill = (uint32_t *)calloc(c->nq, 4);
        if (!fill) { rc = wl_err(err, errlen, "mq recover: out of memory"); goto out; }
        for (uint32_t i = 0; i < c->ncmd; i++)
            if (c->type[i] != MQ_COMMIT) qcmd[qoff[c->q[i]] + fill[c->q[i]]++] = i;
        free(fill);
    }
    for (uint32_t q = 0; q < c->nq; q++) {
        const uint64_t hq = c->hdr + 128ull * q;
        uint32_t last = qoff[q + 1];   /* position of the last durable start record */
        for (uint32_t k = qoff[q]; k < qoff[q + 1]; k++)
            if (mem_read_u64(durable, c->rec + 8ull * qcmd[k]) != NONE) last = k;
        if (last == qoff[q + 1]) {                    /* nothing started: empty queue */
            mem_write_u32(work, hq, 0);
            mem_write_u32(work, hq + 4, 0);
            from[q] = qoff[q];
            continue;
        }
        const uint32_t i = qcmd[last];
        const uint64_t st = mem_read_u64(durable, c->rec + 8ull * i);
        if (last > qoff[q] && mem_read_u64(durable, c->rec + 8ull * (c->ncmd + qcmd[last - 1])) == NONE)
            mem_write_u64(work, c->rec + 8ull * (c->ncmd + qcmd[last - 1]), st);
        if (mem_read_u64(durable, c->rec + 8ull * (c->ncmd + i)) != NONE) {
            head[q] = mem_read_u32(durable, hq);      /* completed: keep the queue */
            tail[q] = mem_read_u32(durable, hq + 4);
            from[q] = last + 1;
        } else {                                      /* in progress: undo */
            head[q] = (uint32_t)(st >> 32);
            tail[q] = (uint32_t)st;
            if (head[q] >= c->cap || tail[q] >= c->cap) {
                rc = wl_err(err, errlen, "mq recover: queue %u start record 0x%llx is not a valid head/tail", q,
                            (unsigned long long)st);
                goto out;
            }
            mem_write_u32(work, hq, head[q]);
            mem_write_u32(work, hq + 4, tail[q]);
            from[q] = last;
        }
    }
    wl_range rg[3] = { { c->hdr, (uint64_t)c->nq * 128 }, { c->qarr, (uint64_t)c->nq * c->cap * 4 },
                       { c->rec, (uint64_t)c->ncmd * 16 } };
    {   /* recovery reads every start and completion record; it restores head/tail (no log clear:
         * the resumed commands overwrite the records) */
        const wl_range reads[1] = { { c->rec, (uint64_t)c->ncmd * 16 } };
        if (wl_emit_recovery(p, "mq_recover", reads, 1, durable, work, NULL, rg, 3) != 0) {
            rc = wl_err(err, errlen, "mq recover: out of memory");
            goto out;
        }
    }
    before = mem_clone(work);
    for (uint32_t q = 0; q < c->nq; q++) {
        const uint64_t hq = c->hdr + 128ull * q, qa = c->qarr + (uint64_t)q * c->cap * 4;
        uint32_t h = head[q], t = tail[q];
        for (uint32_t k = from[q]; k < qoff[q + 1]; k++) {
            const uint32_t i = qcmd[k];
            mem_write_u64(work, c->rec + 8ull * i, mq_pack(h, t));
            if (c->type[i] == MQ_INSERT) {
                const uint32_t *d = c->data + (size_t)slot[i] * c->batch;
                for (uint32_t e = 0; e < c->batch;) {   /* contiguous pieces of the ring */
                    uint32_t pos = (t + e) % c->cap, n = c->batch - e;
                    if (pos + n > c->cap) n = c->cap - pos;
                    mem_write(work, qa + 4ull * pos, d + e, (size_t)n * 4);
                    e += n;
                }
                t = (t + c->batch) % c->cap;
                mem_write_u32(work, hq + 4, t);
            } else {
                h = (h + c->batch) % c->cap;
                mem_write_u32(work, hq, h);
            }
            mem_write_u64(work, c->rec + 8ull * (c->ncmd + i), mq_pack(h, t));
        }
    }
    if (wl_emit_phase(p, "mq_resume", before, work, rg, 3) != 0) rc = wl_err(err, errlen, "mq recover: out of memory");
out:
    free(slot); free(qoff); free(qcmd); free(from); free(head); free(tail);
    if (work) mem_free(work);
    if (before) mem_free(before);
    return rc;
}

const persim_workload wl_mq_workload = {
    .name = "mq",
    .desc = "Multiqueue: per-block persistent queues, batch insert/remove transactions (record + ORDER, "
            "block-scope rel/acq, tail + ORDER + record), commits DURABLE",
    .size_desc = "random insert/remove commands (plus one commit per queue)",
    .pmo = "intra-thread + block inter-thread",
    .recovery = "logging",
    .default_size = 2000,
    .small_size = 160,
    .build = mq_build,
    .verify = mq_verify,
    .free_ctx = mq_free,
    .recover = mq_recover,
    .verify_recovered = mq_verify_pm,
};
PERSIM_WORKLOAD(wl_mq_workload, WL_GPU, 50);

/* A missing order point: no ORDER between the head/tail update and the completion record, so a
 * completion record can be durable before the head/tail it vouches for. */
const persim_workload wl_mq_noorder_bug_workload = {
    .name = "mq-noorder-bug",
    .desc = "Multiqueue with a missing order point: no ORDER between the leader's head/tail update and the "
            "completion record (persim check: not guaranteed; persim crash: fails)",
    .size_desc = "random insert/remove commands (plus one commit per queue)",
    .pmo = "intra-thread + block inter-thread",
    .recovery = "logging",
    .default_size = 2000,
    .small_size = 160,
    .build = mq_build_noorder,
    .verify = mq_verify,
    .free_ctx = mq_free,
    .recover = mq_recover,
    .verify_recovered = mq_verify_pm,
};
PERSIM_WORKLOAD(wl_mq_noorder_bug_workload, WL_VARIANT, 20);
