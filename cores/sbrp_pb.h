/* persim core: the per-SM SBRP persist buffer (PB) of "Scoped Buffered Persistency Model for
 * GPUs" (ASPLOS'23), section 6 / 6.1 / 6.2.
 *
 * State (section 6, "Hardware modifications"):
 *   - a FIFO of `entries` entries: 3-bit type, L1 line index (persist entries), warp bitmask;
 *   - ODM (order delay mask), EDM (eviction delay mask), FSM (flush status mask), one bit per warp;
 *   - ACTR: flushed persists not yet acknowledged by the persistence domain.
 * The L1 line keeps the index of its PB entry (cache_line.pb_index); the wrapper passes it in.
 *
 * Semantics (section 6.1):
 *   store  (persist): line has no PB entry -> allocate one (warp bit set). Line has entry PB_k ->
 *          if an ordering entry *after* PB_k includes the issuing warp, the warp stalls in EDM
 *          until PB_k has been flushed and ACTR has returned to zero (pX=a; pY=b; oFence; pX=c);
 *          otherwise the store coalesces into PB_k (warp bit OR-ed in).
 *   fence  (oFence, dFence, pAcq/pRel at block or device scope): appends an ordering entry, or
 *          ORs the warp into the tail entry when the tail is an ordering entry of the same type
 *          (coalescing of fences from different warps with nothing in between).
 *          oFence and block-scope pAcq/pRel never stall. dFence and device-scope pAcq/pRel set
 *          the warp's ODM bit: the warp is stalled; when the entry reaches the head its ODM bits
 *          move to EDM; when ACTR reaches zero the EDM bits clear and the warp resumes.
 *   drain  (head processing): an ordering entry at the head retires: oFence / block pRel OR into
 *          FSM those of their warps that have persists in flight (flushed or evicted since ACTR
 *          was last zero: FSM = "warps whose persists are currently being flushed", section 6);
 *          block pAcq ORs its warps into FSM whenever ACTR > 0 (an acquire inherits everything in
 *          flight); dFence / device entries move their warps from ODM to EDM.
 *          A persist entry at the head whose warp mask intersects FSM waits until ACTR is zero
 *          (then FSM clears); otherwise it is flushed: removed, ACTR incremented, its line
 *          returned to the caller to write back.
 *   ack    ACTR decremented; at zero FSM clears and EDM warps whose condition holds resume.
 *   evict  a dirty PM line may leave L1 early only if no ordering entry precedes its entry and
 *          its warps are not in FSM while ACTR > 0; otherwise the evicting warp stalls in EDM.
 * Flush policy (section 6.2): EAGER flushes whenever ordering allows; LAZY only when something
 * forces it (a warp in ODM/EDM, a full PB, or drain_all); WINDOW flushes while ACTR < window.
 *
 * persim addition (not in the paper, documented in docs/models/sbrp.md): while a warp waits in
 * EDM for ACTR to reach zero and its ordering entry has already left the PB, no new flush or
 * eviction starts, so ACTR reaches zero even under a continuous stream of persists (liveness).
 *
 * The core keeps no time. Caller-owned state: sbrp_pb_bytes(cfg) bytes; no allocation after init.
 * Two faces over one state: the transaction API below (used by sc_models/l1.cpp) and the cycle
 * API (sbrp_pb_step) that mirrors the RTL ports (used by tb/sbrp_pb_cosim.cpp). */
#ifndef PERSIM_SBRP_PB_H
#define PERSIM_SBRP_PB_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBRP_MAX_WARPS 64u
#define SBRP_NO_ENTRY  0xFFFFu

typedef enum sbrp_type {          /* 3-bit 'Type' field */
    SBRP_PERSIST = 0,
    SBRP_OFENCE  = 1,
    SBRP_DFENCE  = 2,
    SBRP_ACQ_BLK = 3,
    SBRP_REL_BLK = 4,
    SBRP_ACQ_DEV = 5,
    SBRP_REL_DEV = 6
} sbrp_type;

typedef enum sbrp_policy { SBRP_EAGER = 0, SBRP_LAZY = 1, SBRP_WINDOW = 2 } sbrp_policy;

typedef struct sbrp_pb_cfg {
    uint32_t entries;     /* PB entries, 1..65534 */
    uint32_t warps;       /* warps per SM tracked by the masks, 1..64 */
    uint32_t lines;       /* L1 lines (range of line indices), 1..65535 */
    uint32_t policy;      /* sbrp_policy */
    uint32_t window;      /* max ACTR under SBRP_WINDOW, >= 1 */
} sbrp_pb_cfg;

typedef enum sbrp_result {
    SBRP_OK           = 0, /* fence accepted without stall / store coalesced / evicted */
    SBRP_ALLOCATED    = 1, /* store allocated a new entry (*entry_out): set the line's pb_index */
    SBRP_STALL_ORDER  = 2, /* warp stalled (store or eviction blocked by ordering): bit in EDM */
    SBRP_STALL_FULL   = 3, /* PB full: warp waits for a free entry, then retries */
    SBRP_STALL_FENCE  = 4  /* fence accepted, warp stalled in ODM until it completes */
} sbrp_result;

typedef enum sbrp_drain {
    SBRP_DRAIN_IDLE  = 0,  /* nothing to do now (empty, blocked, policy or window) */
    SBRP_DRAIN_ORDER = 1,  /* an ordering entry retired from the head */
    SBRP_DRAIN_FLUSH = 2   /* a persist left the head: write back *line_out, clear its pb_index */
} sbrp_drain;

typedef struct sbrp_pb_stats {
    uint64_t stores, coalesced, allocated;
    uint64_t fences, fences_coalesced;
    uint64_t flushes, evictions, acks;
    uint64_t stall_order, stall_full, stall_fence, evict_blocked;
    uint64_t fsm_blocks;           /* head persist held by FSM */
} sbrp_pb_stats;

typedef struct sbrp_pb sbrp_pb;

size_t   sbrp_pb_bytes(const sbrp_pb_cfg *cfg);
int      sbrp_pb_init(void *mem, const sbrp_pb_cfg *cfg);   /* 0 ok, -1 bad cfg */
const sbrp_pb_cfg *sbrp_pb_config(const sbrp_pb *pb);

/* ---- transaction API ---- */
/* Persist by `warp` to L1 line `line`; `line_entry` is the line's pb_index (SBRP_NO_ENTRY if none). */
sbrp_result sbrp_pb_store(sbrp_pb *pb, uint32_t warp, uint32_t line, uint32_t line_entry,
                          uint32_t *entry_out);
/* Ordering operation of `type` (not SBRP_PERSIST) by `warp`. */
sbrp_result sbrp_pb_fence(sbrp_pb *pb, uint32_t warp, sbrp_type type);
/* May the persist in `entry` be evicted now? (no stall side effects) */
int      sbrp_pb_can_evict(const sbrp_pb *pb, uint32_t entry);
/* Evict the persist in `entry` on behalf of `warp`: SBRP_OK (entry removed, ACTR incremented,
 * *line_out = its line; write it back) or SBRP_STALL_ORDER (warp bit set in EDM). */
sbrp_result sbrp_pb_evict(sbrp_pb *pb, uint32_t warp, uint32_t entry, uint32_t *line_out);
/* One head action; call until SBRP_DRAIN_IDLE after any state change. */
sbrp_drain sbrp_pb_drain(sbrp_pb *pb, uint32_t *line_out);
/* One flushed persist acknowledged by the persistence domain. */
void     sbrp_pb_ack(sbrp_pb *pb);
/* Force draining of everything (kernel end); 0 returns to the configured policy. */
void     sbrp_pb_drain_all(sbrp_pb *pb, int on);

/* ---- state queries ---- */
uint64_t sbrp_pb_stalled(const sbrp_pb *pb);   /* warps that may not proceed: ODM | EDM | full-waiters */
uint64_t sbrp_pb_odm(const sbrp_pb *pb);
uint64_t sbrp_pb_edm(const sbrp_pb *pb);
uint64_t sbrp_pb_fsm(const sbrp_pb *pb);
uint64_t sbrp_pb_full_waiters(const sbrp_pb *pb);
uint32_t sbrp_pb_actr(const sbrp_pb *pb);
uint32_t sbrp_pb_count(const sbrp_pb *pb);     /* occupied entries */
int      sbrp_pb_empty(const sbrp_pb *pb);
/* Entry inspection (for tests, stats and RTL comparison); pos 0 = head. */
int      sbrp_pb_entry(const sbrp_pb *pb, uint32_t pos, sbrp_type *type, uint32_t *line, uint64_t *warps);
const sbrp_pb_stats *sbrp_pb_get_stats(const sbrp_pb *pb);

/* ---- cycle API: one clock edge, mirroring the RTL ports of rtl/sbrp_pb.v ----
 * Per-cycle order: (1) ack, (2) the offered operation, (3) at most one drain action, taken only
 * if flush_ready (the downstream accepts a flush this cycle) or the head is an ordering entry. */
enum { SBRP_IN_NONE = 0, SBRP_IN_STORE = 1, SBRP_IN_FENCE = 2, SBRP_IN_EVICT = 3 };
typedef struct sbrp_pb_in {
    uint8_t  ack;          /* one acknowledgement this cycle */
    uint8_t  op;           /* SBRP_IN_* */
    uint8_t  warp;
    uint8_t  fence_type;   /* sbrp_type for SBRP_IN_FENCE */
    uint16_t line;         /* store: line index */
    uint16_t entry;        /* store: line's pb_index; evict: entry to evict */
    uint8_t  flush_ready;  /* downstream can take one flush */
    uint8_t  drain_all;    /* level: force draining */
} sbrp_pb_in;
typedef struct sbrp_pb_out {
    uint8_t  result;       /* sbrp_result of the offered op (0 if none) */
    uint16_t entry;        /* allocated entry for SBRP_ALLOCATED */
    uint8_t  flush_valid;  /* a persist was flushed this cycle */
    uint16_t flush_line;
    uint8_t  evict_valid;  /* an eviction removed an entry this cycle */
    uint16_t evict_line;
    uint64_t odm, edm, fsm, stalled;
    uint16_t actr, count;
} sbrp_pb_out;
void     sbrp_pb_step(sbrp_pb *pb, const sbrp_pb_in *in, sbrp_pb_out *out);

#ifdef __cplusplus
}
#endif
#endif
