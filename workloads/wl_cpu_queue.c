/* persim workload "cpu-queue": a persistent bounded FIFO queue (ring buffer) shared by all CPU
 * threads under one ticket-ordered lock (docs/workloads-cpu.md).
 *
 * PM layout: header line {head u64, tail u64}; lock word (4 bytes, own line); slots[QCAP] u64;
 * per thread t a line {count u64} and an output array out_t[] of the values it dequeued.
 * size = queue operations in total; operation i is done by thread i % T, 55% enqueues of a
 * value v_i = mix(seed, i) | 1, 45% dequeues (the global order is i; the queue is sometimes full
 * and sometimes empty). Per operation, thread t runs its driver-loop iteration:
 *   mark loop; compute 8; mark func; compute 4; acquire(lock, k)
 *   ld head; ld tail; enqueue: st slots[tail % QCAP]; st tail   (unless full)
 *                     dequeue: ld slots[head % QCAP]; st head   (unless empty)
 *   release(lock, k + 1); compute 3; mark ret
 *   after a successful dequeue: ld count_t; st out_t[count]; st count_t   (thread-private)
 * verify replays the operations on a plain ring buffer and compares head, tail, every slot, the
 * lock word (= size), every thread's count and output values. */
#include <stdlib.h>
#include <string.h>

#include "wl_cpu.h"

#define Q_NAME   "cpu-queue"
#define QCAP     64u
#define Q_MAX    (1ull << 24)

typedef struct q_ctx {
    uint32_t T;
    uint64_t n, seed;
    uint64_t hdr, lock, slots, cnt, out, out_len;   /* cnt: T lines; out: T arrays of out_len */
} q_ctx;

static void q_free(void *c) { free(c); }

static int q_is_enq(uint64_t seed, uint64_t i) { return cpu_mix(seed ^ 0x51554555ull, i) % 100 < 55; }
static uint64_t q_val(uint64_t seed, uint64_t i) { return cpu_mix(seed, i) | 1; }

static int q_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err, size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > Q_MAX)
        return wl_err(err, errlen, Q_NAME ": size %llu out of range (queue operations, 1..%llu)",
                      (unsigned long long)prm->size, Q_MAX);
    cpu_gen g;
    if (cpu_gen_init(&g, Q_NAME, prm, init, err, errlen)) return -1;
    q_ctx *c = (q_ctx *)calloc(1, sizeof *c);
    if (!c) { cpu_gen_free(&g); return wl_err(err, errlen, Q_NAME ": out of memory"); }
    const uint32_t T = g.nthreads;
    c->T = T;
    c->n = prm->size;
    c->seed = prm->seed;
    c->out_len = (prm->size + T - 1) / T;
    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->hdr = wl_alloc_pm(&al, 16);
    c->lock = wl_alloc_pm(&al, 4);
    c->slots = wl_alloc_pm(&al, QCAP * 8);
    c->cnt = wl_alloc_pm(&al, (uint64_t)T * 128);
    c->out = wl_alloc_pm(&al, (uint64_t)T * c->out_len * 8);

    for (uint64_t i = 0; i < c->n; i++) {
        const uint32_t t = (uint32_t)(i % T);
        cpu_mark(&g, t, MARK_LOOP);
        cpu_compute(&g, t, 8);
        cpu_mark(&g, t, MARK_FUNC);
        cpu_compute(&g, t, 4);
        cpu_lock(&g, t, c->lock);
        const uint64_t h = cpu_ld(&g, t, c->hdr, 8), tl = cpu_ld(&g, t, c->hdr + 8, 8);
        int got = 0;
        uint64_t v = 0;
        if (q_is_enq(c->seed, i)) {
            cpu_compute(&g, t, 2);
            if (tl - h < QCAP) {
                cpu_st(&g, t, c->slots + (tl % QCAP) * 8, 8, q_val(c->seed, i));
                cpu_st(&g, t, c->hdr + 8, 8, tl + 1);
            }
        } else {
            cpu_compute(&g, t, 2);
            if (tl > h) {
                v = cpu_ld(&g, t, c->slots + (h % QCAP) * 8, 8);
                cpu_st(&g, t, c->hdr, 8, h + 1);
                got = 1;
            }
        }
        cpu_unlock(&g, t, c->lock);
        cpu_compute(&g, t, 3);
        cpu_mark(&g, t, MARK_RET);
        if (got) {
            const uint64_t cw = c->cnt + (uint64_t)t * 128, k = cpu_ld(&g, t, cw, 8);
            cpu_st(&g, t, c->out + ((uint64_t)t * c->out_len + k) * 8, 8, v);
            cpu_st(&g, t, cw, 8, k + 1);
        }
    }
    int rc = cpu_gen_emit(&g, p, "main", err, errlen);
    cpu_gen_free(&g);
    if (rc) { free(c); return -1; }
    *ctxp = c;
    return 0;
}

static int q_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const q_ctx *c = (const q_ctx *)vc;
    uint64_t slot[QCAP] = { 0 }, head = 0, tail = 0;
    uint64_t *cnt = (uint64_t *)calloc(c->T, 8), *out = (uint64_t *)calloc(c->T * c->out_len + 1, 8);
    if (!cnt || !out) { free(cnt); free(out); return wl_err(msg, msglen, Q_NAME ": out of memory"); }
    for (uint64_t i = 0; i < c->n; i++) {          /* the reference: a plain ring buffer */
        const uint32_t t = (uint32_t)(i % c->T);
        if (q_is_enq(c->seed, i)) {
            if (tail - head < QCAP) slot[tail++ % QCAP] = q_val(c->seed, i);
        } else if (tail > head) {
            out[t * c->out_len + cnt[t]++] = slot[head++ % QCAP];
        }
    }
    int rc = 0;
    uint64_t x;
    if ((x = mem_read_u64(img, c->hdr)) != head)
        rc = wl_err(msg, msglen, Q_NAME ": head %llu, expected %llu", (unsigned long long)x, (unsigned long long)head);
    else if ((x = mem_read_u64(img, c->hdr + 8)) != tail)
        rc = wl_err(msg, msglen, Q_NAME ": tail %llu, expected %llu", (unsigned long long)x, (unsigned long long)tail);
    else if ((x = mem_read_u32(img, c->lock)) != c->n)
        rc = wl_err(msg, msglen, Q_NAME ": lock word %llu, expected %llu (one critical section per operation)",
                    (unsigned long long)x, (unsigned long long)c->n);
    for (uint32_t s = 0; !rc && s < QCAP; s++)
        if ((x = mem_read_u64(img, c->slots + s * 8)) != slot[s])
            rc = wl_err(msg, msglen, Q_NAME ": slot %u holds 0x%llx, expected 0x%llx", s, (unsigned long long)x,
                        (unsigned long long)slot[s]);
    for (uint32_t t = 0; !rc && t < c->T; t++) {
        if ((x = mem_read_u64(img, c->cnt + (uint64_t)t * 128)) != cnt[t]) {
            rc = wl_err(msg, msglen, Q_NAME ": thread %u dequeue count %llu, expected %llu", t, (unsigned long long)x,
                        (unsigned long long)cnt[t]);
            break;
        }
        for (uint64_t k = 0; k < c->out_len; k++)
            if ((x = mem_read_u64(img, c->out + (t * c->out_len + k) * 8)) != out[t * c->out_len + k]) {
                rc = wl_err(msg, msglen, Q_NAME ": thread %u dequeued value %llu is 0x%llx, expected 0x%llx", t,
                            (unsigned long long)k, (unsigned long long)x, (unsigned long long)out[t * c->out_len + k]);
                break;
            }
    }
    free(cnt);
    free(out);
    return rc;
}

const persim_workload wl_cpu_queue_workload = {
    .name = Q_NAME,
    .desc = "CPU: persistent bounded FIFO queue (ring buffer) shared by all threads under one ticket lock",
    .size_desc = "queue operations in total (55% enqueue, 45% dequeue; operation i by thread i % T)",
    .pmo = "system acquire/release (ticket lock)",
    .recovery = "native",
    .default_size = 12000,
    .small_size = 1200,
    .build = q_build,
    .verify = q_verify,
    .free_ctx = q_free,
};
PERSIM_WORKLOAD(wl_cpu_queue_workload, WL_CPU, 10);
