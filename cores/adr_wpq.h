/* persim core: the ADR write-pending queue (WPQ) in front of a memory device — the front end of
 * a memory controller whose queue is in the persistence domain (Intel ADR): a write is durable
 * once the queue accepts it, and the queue drains to the device in arrival (FIFO) order.
 *
 * Rules (all in ps; the core keeps no clock, the caller times the device with cores/nvm.h):
 *   accept   = max(arrive, drain_done of the write `entries` places earlier)   (queue full: wait)
 *   the caller starts the device write at `accept` and reports its completion `device_done`;
 *   drain    = max(device_done, drain of the previous write)                 (FIFO drain)
 *   a read of a line with a write still in the queue (arrived <= t < drain) is served from the
 *   queue after hit_latency.
 * The queue is a ring of the last `entries` writes; write k uses slot k % entries, so the slot
 * holds the write `entries` places earlier when write k is accepted.
 * Caller-owned state: adr_wpq_bytes(cfg) bytes, 8-byte aligned. No allocation after init. */
#ifndef PERSIM_ADR_WPQ_H
#define PERSIM_ADR_WPQ_H
#include <stddef.h>
#include <stdint.h>
#include "persim_time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct adr_wpq_cfg {
    uint32_t  entries;           /* 1..2^24 */
    uint32_t  line_bytes;        /* read-forwarding granule, >= 1 */
    persim_ps hit_latency_ps;    /* read served from the queue */
} adr_wpq_cfg;

typedef struct adr_wpq_stats {
    uint64_t  writes;
    uint64_t  read_hits;         /* reads forwarded from the queue */
    uint64_t  full_stalls;       /* writes that waited for a slot */
    persim_ps stall_ps;          /* total time writes waited for a slot */
} adr_wpq_stats;

typedef struct adr_wpq adr_wpq;

size_t    adr_wpq_bytes(const adr_wpq_cfg *cfg);
int       adr_wpq_init(void *mem, const adr_wpq_cfg *cfg);   /* 0 ok, -1 bad cfg */
const adr_wpq_cfg *adr_wpq_config(const adr_wpq *q);

/* A write arriving at `t`: the time it is accepted (durable under ADR). */
persim_ps adr_wpq_accept(adr_wpq *q, persim_ps t);
/* Records the write of `addr` that arrived at `t`, was accepted at `accept` and whose device
 * write completes at `device_done`; returns its drain time (FIFO order). Call once per write,
 * right after adr_wpq_accept. */
persim_ps adr_wpq_commit(adr_wpq *q, uint64_t addr, persim_ps t, persim_ps accept, persim_ps device_done);
/* A read of `addr` at `t`: returns 1 and *ready if a queued write of its line serves it. */
int       adr_wpq_read(adr_wpq *q, persim_ps t, uint64_t addr, persim_ps *ready);
/* Writes in the queue (arrived, drain not finished) at `t` (exact for t >= the latest arrival). */
uint32_t  adr_wpq_occupancy(const adr_wpq *q, persim_ps t);
const adr_wpq_stats *adr_wpq_get_stats(const adr_wpq *q);

#ifdef __cplusplus
}
#endif
#endif
