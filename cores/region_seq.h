/* persim core: the region sequencer of the cpu system's region models (LightWSP III-B, IV-A..C;
 * docs/models/lightwsp.md; the PPA- and Capri-like baselines of V-A share it).
 *
 * A region is the unit of failure atomicity: the stores between two boundaries that region
 * formation placed. The sequencer owns
 *   - region IDs: a thread takes one from one counter shared by every thread when its region puts
 *     its first store on the persist path (the region execution order the memory controllers
 *     enforce). IDs are counted in 64 bits here; on the wire (writes and boundaries alike) they are
 *     `rid_bits` wide and wrap (rseq_tag). At most 2^rid_bits - held regions may be live (taken and
 *     not yet durable): a thread that would take one more waits (rseq_open returns RSEQ_NO_ID), since
 *     its tag would alias a live one or one a controller still tracks (region_seq_cfg.held);
 *   - durability: a region is durable once it was ended and every write of it was acknowledged
 *     (durable at the controllers); regions become "old" in ID order (rseq_oldest_live);
 *   - the end-of-region policy of the model:
 *       RSEQ_LAZY        LightWSP's lazy region-level persist ordering (III-B): the thread ends the
 *                        region, broadcasts its boundary and goes on;
 *       RSEQ_CORE_WAITS  PPA-like: at a region end the thread waits until the region is durable;
 *       RSEQ_PATH_WAITS  Capri-like with several controllers: once a boundary left, the thread's
 *                        path sends no store of the next region until that region is durable;
 *     and a durability point (OPK_DURABLE) waits for the last region the thread ended, whatever
 *     the policy;
 *   - the checkpoint layout (IV-A): thread t's live-out checkpoint slot k (0..62) and its PC slot
 *     (63) are 8-byte words at ckpt_base + t * 512 + slot * 8; each stored value is
 *     (open region ID, or 0 when none is open) << 8 | slot;
 *   - T_p of LightWSP eq. 1: the sum over durable regions of (durable time - end time).
 *
 * The core keeps no time: times are arguments. Caller-owned state of region_seq_bytes(cfg) bytes
 * (8-byte aligned); no allocation after init, no globals, no I/O. */
#ifndef PERSIM_REGION_SEQ_H
#define PERSIM_REGION_SEQ_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rseq_policy {
    RSEQ_LAZY = 0,
    RSEQ_CORE_WAITS = 1,
    RSEQ_PATH_WAITS = 2
} rseq_policy;

typedef struct region_seq_cfg {
    uint32_t threads;      /* hardware threads (and RDMA channels) that may form regions, 1..4096 */
    uint32_t rid_bits;     /* region ID width on the wire, 1..16 (LightWSP: the 2 B flush ID) */
    uint32_t policy;       /* rseq_policy */
    uint64_t ckpt_base;    /* byte address of the checkpoint storage */
    uint32_t held;         /* tags the controllers may still hold for regions older than the oldest
                              live one, 0..2^rid_bits - 1: the WPQ gate's region window
                              (wpq_gate.regions). A controller's flush ID trails the oldest live region
                              by up to that many regions, so at most 2^rid_bits - held regions may be
                              live, or a new region's tag would alias one a controller still tracks */
} region_seq_cfg;

#define RSEQ_NO_ID UINT64_MAX

typedef struct region_seq region_seq;

size_t region_seq_bytes(const region_seq_cfg *cfg);          /* 0: invalid configuration */
int region_seq_init(void *mem, const region_seq_cfg *cfg);   /* 0 ok, -1 invalid cfg or misaligned mem */

/* A store of `thread` enters the persist path: the ID of the thread's open region, taken now if it
 * has none (RSEQ_NO_ID: 2^rid_bits - held IDs are live, the thread waits for the oldest to become
 * durable). rseq_write counts one write of region `id` on the path. */
uint64_t rseq_open(region_seq *s, uint32_t thread);
void rseq_write(region_seq *s, uint64_t id);
/* The open region of `thread` (RSEQ_NO_ID: none). */
uint64_t rseq_current(const region_seq *s, uint32_t thread);
/* The tag of region `id` on the wire (rid_bits wide). */
uint32_t rseq_tag(const region_seq *s, uint64_t id);

/* `thread` ends its region at time t (its boundary follows its stores on the path). Returns 1 and
 * the region's ID in *id when a region was open, 0 when the thread put no store on the path since
 * its last boundary (no boundary is sent). */
int rseq_end(region_seq *s, uint32_t thread, uint64_t t, uint64_t *id);
/* A write of region `id` acknowledged (durable) at time t. */
void rseq_ack(region_seq *s, uint64_t id, uint64_t t);
int rseq_durable(const region_seq *s, uint64_t id);

/* The end-of-region policy. */
int rseq_core_may_go(const region_seq *s, uint32_t thread);   /* CORE_WAITS: the last ended region is durable */
int rseq_durable_point(const region_seq *s, uint32_t thread); /* the last ended region is durable (any policy) */
void rseq_boundary_sent(region_seq *s, uint32_t thread, uint64_t id);  /* the boundary of `id` left the thread's path */
int rseq_path_may_send(region_seq *s, uint32_t thread);       /* PATH_WAITS: the held region is durable (clears the hold) */
int rseq_path_holds(const region_seq *s, uint32_t thread);    /* a hold is set (its acks should retry the path) */

/* Checkpoint layout: slot 0..62 (live-outs) or 63 (PC) of `thread`; the word's address and value. */
void rseq_ckpt(const region_seq *s, uint32_t thread, uint32_t slot, uint64_t *addr, uint64_t *value);
#define RSEQ_PC_SLOT 63u

uint64_t rseq_taken(const region_seq *s);        /* regions taken so far */
uint64_t rseq_oldest_live(const region_seq *s);  /* every region below this ID is durable */
int rseq_ids_exhausted(const region_seq *s);      /* rseq_open would refuse a thread without a region */
int rseq_idle(const region_seq *s);              /* every region taken is durable */
uint64_t rseq_persist_latency_ps(const region_seq *s);   /* T_p of eq. 1 */
const region_seq_cfg *rseq_config(const region_seq *s);

#ifdef __cplusplus
}
#endif
#endif
