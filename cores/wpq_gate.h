/* persim core: the gated write-pending queue (WPQ) of one memory controller in LightWSP
 * ("LightWSP: Whole-System Persistence on the Cheap", lightwsp-whole-system-persistence.md),
 * sections III-A/B, IV-B (persist order under lazy region-level persist ordering), IV-D
 * (deadlock resolution), IV-F (power-failure recovery) and IV-H (WPQ CAM search on loads).
 *
 * State: `entries` 8-byte entries (paper: 64) in arrival order, each {region ID, word address,
 * data}; the flush ID register (paper: 2 B) naming the oldest uncommitted region; and for a
 * window of `regions` regions starting at the flush ID: boundary received here (bdry), bdry-ACKs
 * and flush-ACKs received from the other `mcs`-1 controllers.
 *
 *   push      a store tagged with its region ID enters the queue (FIFO order kept).
 *   boundary  region r ended: this MC records it and sends a bdry-ACK to the others.
 *   persisted region f = flush ID is persisted once its boundary reached every controller:
 *             boundary received here and mcs-1 bdry-ACKs received.
 *   drain     only entries whose region equals the flush ID drain (oldest first, one per
 *             drain_ready cycle), and only when f is persisted: younger regions stay gated.
 *   flush-ACK when f is persisted and none of its entries is left here, this MC sends a flush-ACK;
 *             once it also holds mcs-1 flush-ACKs from the others, f is committed: the flush ID
 *             increments (older regions committed everywhere before a younger one drains).
 *   deadlock  (IV-D) the "bdry bit" says whether the boundary of f has been received. If the queue
 *             is full and the bit is 0, the MC enters overflow mode: entries of f drain before f
 *             is persisted, undo-logged (drain_undo = 1); when the queue is full a store of f is
 *             written straight through, undo-logged (WPQ_BYPASS); stores of other regions are
 *             declined until the boundary of f arrives. Overflow mode ends when f commits.
 *   power     (IV-F) after power_fail no store is accepted; regions that are (or become, by
 *   failure   in-flight ACKs) persisted still drain and commit; once nothing has progressed for
 *             `pf_wait` cycles (the worst-case ACK latency) the remaining entries, all of
 *             unpersisted regions, are discarded, and if undo-logged writes of the unpersisted
 *             region f reached PM the undo log must be applied (undo_restore). The recovery point
 *             is the flush ID.
 *   CAM       (IV-H) a load of a line searches the queue; a hit means the PM value is stale and
 *             the load must be replayed after the entry drains.
 *   ungated   cfg.ungated = 1 is a deliberately broken variant (not LightWSP): the same queue but
 *   mode      not gated by region, i.e. a plain ADR WPQ. Any queued entry drains, oldest first
 *             whatever its region, as soon as it is queued (no wait for the flush-ID region to be
 *             persisted). Boundaries and ACKs are still accepted and counted, and flush-ACKs and
 *             commits follow the same rule as gated mode: the flush-ID region sends its flush-ACK
 *             once it is persisted and none of its entries is left here (entries that drained
 *             before the boundary simply are not here any more), and commits with mcs-1 flush-ACKs.
 *             So younger regions may reach PM before older ones commit: the flush ID is not a
 *             valid recovery point, which is what a crash check of this variant must detect.
 *             There is no deadlock/overflow mode (never entered, no bypass, no undo-logged write):
 *             a full queue refuses a store with WPQ_FULL. WPQ_DECLINED remains only for a store of
 *             the flush-ID region after its flush-ACK was sent (as in gated mode). After power
 *             failure nothing is discarded: ADR drains every entry (wpq_gate_next_drain keeps
 *             returning entries until pf_done); the cycle API ends the sequence (pf_done) only once
 *             the queue is empty and nothing moved for pf_wait cycles, so wpq_gate_pf_discard
 *             returns 0 and undo_restore 0. pf_done then means "every accepted store is in PM and
 *             in-flight ACKs have landed"; the flush ID is still reported, but stores of regions
 *             at or after it may already be in PM. (Transaction API callers must drain with
 *             wpq_gate_next_drain before calling wpq_gate_pf_discard; whatever is left is discarded
 *             and counted, as in gated mode.)
 * Region IDs are `rid_bits` wide and wrap. A boundary for a region outside the window
 * [flush ID, flush ID + regions) cannot be recorded yet: it is refused (WPQ_BDRY_WAIT, cycle
 * output bdry_wait) and the sender keeps it, in order behind its persist path, and offers it again
 * once older regions have committed. A bdry-ACK or flush-ACK outside the window is dropped and
 * the sticky `err` is set (with in-order links it cannot happen: another controller moves its
 * window only after its flush-ACK, which arrives here before any later ACK of it).
 *
 * Protocol decisions kept here (not in the SystemC front end, issue 22):
 *   window gating   wpq_gate_boundary refuses a boundary beyond the window (WPQ_BDRY_WAIT).
 *   overflow retry  wpq_gate_store: a store into a full queue, when PM can take a write, is
 *                   written through if overflow mode allows it; if not, the deadlock check runs
 *                   (IV-D) and the write-through is tried again. The cycle API (and the RTL)
 *                   takes the same decisions one per edge: the store is refused (FULL), (8) enters
 *                   overflow mode, and at the next edge (4) writes the re-offered store through,
 *                   but only once no older entry of its region is left to drain (a queued entry
 *                   of the flush-ID region drains first). wpq_gate_store does not wait for those
 *                   (a write-through may reach PM before an older queued store of its region):
 *                   the front end's order, kept as it is so that figures do not change.
 *   acknowledgement wpq_gate_ack_on_entry: when a queued store is durable (ungated: on entry;
 *                   gated: once its region is persisted, wpq_gate_persisted).
 *   power-failure   wpq_gate_progress counts the protocol's progress toward durability: an
 *   settle          entry drained or written through to PM, a region committed (the recovery
 *                   point moved). wpq_gate_pf_settle ends the power-failure wait when that count
 *                   has not moved since the caller's last look (one worst-case ACK latency
 *                   earlier) and no entry can still drain (wpq_gate_can_drain). An ACK that
 *                   arrives in between matters only through what it makes possible: a drain or
 *                   commit (counted) or a persisted region with entries (can_drain). The cycle
 *                   API's pf_wait timer is reset by the same signals (out.progress, can_drain)
 *                   and, per cycle, also by an ACK or boundary received or a flush-ACK sent.
 *
 * The queue is indexed: besides the arrival order, each region-window slot keeps its entries in
 * arrival order, so the drain choice and the flush-ACK check look at the flush-ID region's
 * entries only (the same choice as a scan of the queue, and as the RTL's priority encoder).
 * The core keeps no time. Caller-owned state: wpq_gate_bytes(cfg) bytes (8-byte aligned);
 * no allocation after init. Transaction API + cycle API (wpq_gate_step, ports of rtl/wpq_gate.v). */
#ifndef PERSIM_WPQ_GATE_H
#define PERSIM_WPQ_GATE_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WPQ_MAX_REGIONS 64u
#define WPQ_MAX_MCS     16u

typedef struct wpq_gate_cfg {
    uint32_t entries;      /* 1..4096 (paper: 64) */
    uint32_t mcs;          /* memory controllers in the system, 1..16 (paper: 2) */
    uint32_t regions;      /* region window, power of two, 1..64, < 2^rid_bits (a tag beyond the
                              window must not alias one inside it) */
    uint32_t rid_bits;     /* region ID width, 1..16 (paper: 16, the 2 B flush ID) */
    uint32_t addr_bits;    /* word (8 B) address width, 4..64 */
    uint32_t data_bits;    /* 1..64 (paper: 64) */
    uint32_t line_words;   /* words per cache line for the load CAM, power of two (paper: 8) */
    uint32_t pf_wait;      /* power failure: idle cycles before discarding, >= 1 */
    uint32_t ungated;      /* 0 = LightWSP gated WPQ (default); 1 = ungated ADR-like variant (see above) */
} wpq_gate_cfg;

typedef enum wpq_result {
    WPQ_NONE     = 0,
    WPQ_OK       = 1,      /* store queued */
    WPQ_FULL     = 2,      /* queue full: retry */
    WPQ_DECLINED = 3,      /* overflow mode, store of another region (or of a flushed region): retry */
    WPQ_OFF      = 4,      /* power failed: nothing accepted */
    WPQ_BYPASS   = 5       /* overflow mode: written straight to PM, undo-logged */
} wpq_result;

#define WPQ_BDRY_WAIT 1    /* wpq_gate_boundary: beyond the region window, offer it again later */

typedef struct wpq_entry {
    uint64_t addr, data;
    uint16_t region;
} wpq_entry;

typedef struct wpq_gate_stats {
    uint64_t pushes, full, declined, drains, undo_drains, bypasses, commits;
    uint64_t deadlocks, load_hits, discarded, window_errors;
} wpq_gate_stats;

typedef struct wpq_gate wpq_gate;

size_t   wpq_gate_bytes(const wpq_gate_cfg *cfg);
int      wpq_gate_init(void *mem, const wpq_gate_cfg *cfg);   /* 0 ok, -1 bad cfg */
const wpq_gate_cfg *wpq_gate_config(const wpq_gate *g);

/* ---- transaction API ---- */
wpq_result wpq_gate_push(wpq_gate *g, uint32_t region, uint64_t addr, uint64_t data);
/* Boundary of `region` received: returns 0 (recorded: send a bdry-ACK) or WPQ_BDRY_WAIT (outside
 * the window: not recorded, nothing changes; the caller keeps it and offers it again after a
 * commit). */
int      wpq_gate_boundary(wpq_gate *g, uint32_t region);
int      wpq_gate_bdry_ack(wpq_gate *g, uint32_t region);    /* from another MC; 0 / -1 */
int      wpq_gate_flush_ack(wpq_gate *g, uint32_t region);   /* from another MC; 0 / -1 */
int      wpq_gate_persisted(const wpq_gate *g);               /* flush-ID region persisted */
/* Pops the next entry that may drain now (oldest of the flush-ID region, when persisted or in
 * overflow mode and not power-failed; ungated: the oldest entry, also after power failure, until
 * pf_done). Returns 1 and fills *e and *undo, or 0. */
int      wpq_gate_next_drain(wpq_gate *g, wpq_entry *e, int *undo);
/* Overflow-mode store of the flush-ID region into a full queue, written through: returns 1
 * (caller writes *e, undo-logged) or 0 (not applicable; use wpq_gate_push). */
int      wpq_gate_bypass(wpq_gate *g, uint32_t region, uint64_t addr, uint64_t data);
/* If the flush-ID region is persisted and has no entry left here and its flush-ACK was not sent
 * yet: marks it sent and returns 1 (caller broadcasts a flush-ACK for wpq_gate_flush_id). */
int      wpq_gate_flush_done(wpq_gate *g);
/* If the flush-ACK was sent and all others arrived: commits (flush ID + 1), returns 1. */
int      wpq_gate_try_commit(wpq_gate *g);
/* Deadlock check (IV-D): full queue and bdry bit 0 -> overflow mode. Returns 1 if entered
 * (never in ungated mode). */
int      wpq_gate_check_deadlock(wpq_gate *g);
/* A store offered at transaction level, with the overflow retry (IV-D): wpq_gate_push; if the
 * queue is full and PM can take a write now (device_ready), an overflow-mode store of the flush-ID
 * region is written through (WPQ_BYPASS: the caller writes it, undo-logged if the region is not
 * persisted); otherwise the deadlock check runs and the write-through is tried once more.
 * Returns WPQ_OK, WPQ_BYPASS, WPQ_FULL (retry; if !device_ready, once PM is free),
 * WPQ_DECLINED (retry after the flush-ID region's boundary or commit) or WPQ_OFF. */
wpq_result wpq_gate_store(wpq_gate *g, uint32_t region, uint64_t addr, uint64_t data, int device_ready);
/* 1 if a store is durable (may be acknowledged) as soon as it is queued: ungated mode, a plain
 * battery-backed ADR queue. 0 (gated): durable only once its region is the persisted flush-ID
 * region (wpq_gate_persisted). */
int      wpq_gate_ack_on_entry(const wpq_gate *g);
int      wpq_gate_load_hit(const wpq_gate *g, uint64_t line_addr);
void     wpq_gate_power_fail(wpq_gate *g);
/* Progress counter: incremented when an entry drains or a store is written through (data reached
 * PM) and when a region commits (the flush ID, the recovery point, moved). Wraps. */
uint64_t wpq_gate_progress(const wpq_gate *g);
/* Offer state: everything the answer to an offered store (wpq_gate_push, wpq_gate_store) or
 * boundary (wpq_gate_boundary) depends on besides the offer itself: the flush ID, its flush-ACK
 * sent, its boundary bit, overflow mode, the queue full, power failure. Two equal values give the
 * same offer (same region; for wpq_gate_store the same device_ready) the same answer, and a
 * refused offer that left the value unchanged changed nothing but the refusal counters: a caller
 * may then count a re-offer under an equal value with wpq_gate_count_refusals instead of offering
 * it again (event-driven front ends). */
uint64_t wpq_gate_offer_state(const wpq_gate *g);
/* Parts of the offer state (bit fields of wpq_gate_offer_state). A boundary's answer depends on
 * the flush ID only; a store's WPQ_DECLINED on everything but the queue-full bit (declining is
 * decided before the queue's room); WPQ_FULL and the others on all of it. */
#define WPQ_OFFER_FLUSH_ID 0xFFFFull
#define WPQ_OFFER_FULL     (1ull << 19)
/* Counts n refusals of result r (WPQ_FULL: stats.full, WPQ_DECLINED: stats.declined; others
 * nothing), as n repeated offers refused with r would. */
void     wpq_gate_count_refusals(wpq_gate *g, wpq_result r, uint64_t n);
/* 1 while an entry may still drain now: ungated, any entry; gated, an entry of the persisted
 * flush-ID region (after a power failure these drain on battery power). */
int      wpq_gate_can_drain(const wpq_gate *g);
/* Power-failure settle (IV-F), transaction level: the caller looks every worst-case ACK latency.
 * Returns 1 when the sequence may end (call wpq_gate_pf_discard): nothing progressed since the
 * last look (*mark == wpq_gate_progress) and no entry can drain. Else stores the progress count in
 * *mark and returns 0 (look again later). Call first with *mark = wpq_gate_progress(g) at the
 * power failure. */
int      wpq_gate_pf_settle(const wpq_gate *g, uint64_t *mark);
/* Ends the power-failure sequence: discards the remaining entries, returns their number;
 * *undo_restore = 1 if undo-logged writes of the unpersisted flush-ID region must be rolled back. */
uint32_t wpq_gate_pf_discard(wpq_gate *g, int *undo_restore);

/* ---- state queries ---- */
uint32_t wpq_gate_flush_id(const wpq_gate *g);
uint32_t wpq_gate_count(const wpq_gate *g);
int      wpq_gate_entry(const wpq_gate *g, uint32_t pos, wpq_entry *e);   /* pos 0 = oldest */
int      wpq_gate_bdry_bit(const wpq_gate *g);    /* boundary of the flush-ID region received */
int      wpq_gate_overflow(const wpq_gate *g);
int      wpq_gate_power_failed(const wpq_gate *g);
int      wpq_gate_pf_done(const wpq_gate *g);
int      wpq_gate_err(const wpq_gate *g);
const wpq_gate_stats *wpq_gate_get_stats(const wpq_gate *g);

/* ---- cycle API: one clock edge, mirroring rtl/wpq_gate.v ----
 * Per-cycle order: (0) power_fail latches; (1) incoming bdry-ACK and flush-ACK; (2) incoming
 * boundary (-> bdry_ack_out, or bdry_wait if beyond the window); (3) load CAM search; (4) at most
 * one drain if drain_ready (queue entry, else an overflow bypass of the offered store);
 * (5) flush done (-> fack_out); (6) commit; (7) the offered store; (8) deadlock check; (9) power-failure idle timer (idle: no progress and nothing can drain)
 * and discard.
 * Ungated: (4) drains the oldest entry of any region; (8) never enters overflow; (9) the queue
 * is not idle while it holds any entry, so the discard happens only once it is empty.
 * All outputs are registered in the RTL: they describe what happened at this edge. */
typedef struct wpq_gate_in {
    uint8_t  push_valid;
    uint16_t push_region;
    uint64_t push_addr, push_data;
    uint8_t  bdry_valid;   uint16_t bdry_region;    /* boundary broadcast received */
    uint8_t  back_valid;   uint16_t back_region;    /* bdry-ACK from another MC */
    uint8_t  fack_valid;   uint16_t fack_region;    /* flush-ACK from another MC */
    uint8_t  drain_ready;                           /* PM accepts one write */
    uint8_t  ld_valid;     uint64_t ld_line;        /* load CAM search, line address */
    uint8_t  power_fail;
} wpq_gate_in;
typedef struct wpq_gate_out {
    uint8_t  push_result;                           /* wpq_result */
    uint8_t  drain_valid, drain_undo;
    uint16_t drain_region;
    uint64_t drain_addr, drain_data;
    uint8_t  bdry_ack_valid; uint16_t bdry_ack_region;
    uint8_t  fack_out_valid; uint16_t fack_out_region;
    uint8_t  commit_valid;   uint16_t commit_region;
    uint8_t  ld_hit;
    uint8_t  pf_done_pulse;  uint16_t discarded; uint8_t undo_restore;
    uint8_t  bdry_wait;                             /* the offered boundary is beyond the window */
    uint8_t  progress;                              /* wpq_gate_progress moved at this edge */
    /* status after the edge */
    uint16_t flush_id, count;
    uint8_t  bdry_bit, overflow, pf, pf_done, err;
} wpq_gate_out;
void     wpq_gate_step(wpq_gate *g, const wpq_gate_in *in, wpq_gate_out *out);

#ifdef __cplusplus
}
#endif
#endif
