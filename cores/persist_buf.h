/* persim core: the per-core persist buffer of BROI ("Persistence Parallelism Optimization",
 * broi-persistence-parallelism.md, IV-B/IV-C and Figure 6(b); after Kolli et al.'s delegated
 * persist ordering, the paper's [25]). One buffer per hardware thread and one per RDMA channel
 * (the remote persist buffer, V).
 *
 * Entry (IV-B): {operation type (store or fence), cache-block address, data + byte mask, request ID
 * (this buffer's entry counter), barrier epoch, inter-thread dependencies}. IV-E: 8 entries of
 * 72 B (a 64 B block and its metadata), so an entry holds a cache block: a store to a block that
 * already has an unsent entry in the current barrier epoch joins it (coalescing), unless that
 * would move the store across an ordering constraint (below).
 *
 * Dependencies (IV-C 1): the cache-coherence engine finds them and the caller hands them in as
 * (thread, id) pairs naming another buffer's entry:
 *   - persist-persist: a store to a block that another thread's buffer still holds (the snoop of
 *     the read-exclusive request, Figure 6(b) steps 4-6; pbuf_snoop on the other buffers);
 *   - epoch-persist (RAW): a load of such a block; the thread's next entry depends on it
 *     (pbuf_load).
 * A dependency (t, i) is resolved when buffer t holds no live entry with id <= i (its entries up to
 * i are acknowledged: the conservative chain rule, so a dependency also covers the epochs before
 * the entry); the caller reports every change with pbuf_resolve(b, t, live_min of t).
 *
 * Release rule: entries leave in FIFO order (intra-thread order, IV-C ii); the oldest unsent entry
 * is released to the BROI controller when its dependencies are resolved (pbuf_head / pbuf_send).
 * A store entry stays live (snoopable, counted) until the controller's acknowledgement (pbuf_ack,
 * any order); a fence entry leaves when it is sent (the controller keeps the barrier).
 * Coalescing: a store joins the youngest entry of its block if that entry is an unsent store of
 * the current epoch (no fence after it) and the store brings no dependency (no other thread holds
 * the block, no RAW dependency pending); otherwise it takes a new entry.
 * Broken variant for the checkers (cfg.ignore_deps): dependencies are neither recorded nor waited
 * for.
 *
 * The core keeps no time. Caller-owned state: pbuf_bytes(cfg) bytes (8-byte aligned); no
 * allocation after init, no globals, no I/O. */
#ifndef PERSIM_PERSIST_BUF_H
#define PERSIM_PERSIST_BUF_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PBUF_MAX_ENTRIES 64u
#define PBUF_MAX_LINE    128u
#define PBUF_MAX_DEPS    32u     /* dependencies per entry: at most one per other buffer */

typedef struct pbuf_cfg {
    uint32_t entries;       /* 1..64 (IV-E: 8) */
    uint32_t line_bytes;    /* power of two, 8..128 (the cache block) */
    uint32_t coalesce;      /* 1: stores join an unsent entry of their block (see above); 0: one entry per store */
    uint32_t ignore_deps;   /* 1: the broken variant (dependencies ignored) */
} pbuf_cfg;

typedef struct pbuf_dep { uint32_t thread; uint64_t id; } pbuf_dep;

enum pbuf_kind { PBUF_STORE = 1, PBUF_FENCE = 2 };

typedef struct pbuf_entry {
    uint8_t  kind;          /* pbuf_kind */
    uint8_t  sent;
    uint16_t ndeps;
    uint32_t stores;        /* stores coalesced into it (>= 1 for a store entry) */
    uint64_t id;            /* request ID: this buffer's entry counter (0, 1, 2, ...) */
    uint64_t line;          /* block address (byte address / line_bytes) */
    uint64_t epoch;         /* barrier epoch of the thread (fences so far) */
    uint64_t mask[2];       /* bytes written: bit i = byte i of the block */
    uint8_t  data[PBUF_MAX_LINE];
    pbuf_dep deps[PBUF_MAX_DEPS];
} pbuf_entry;

typedef struct pbuf_stats {
    uint64_t stores, coalesced, entries, fences, full;
    uint64_t dep_entries;   /* entries created with at least one dependency */
    uint64_t deps;          /* dependencies recorded */
    uint64_t sends, acks, unknown_acks;
} pbuf_stats;

typedef enum pbuf_result {
    PBUF_NEW = 0,           /* store: a new entry; fence: appended */
    PBUF_COALESCED = 1,     /* store joined an existing entry */
    PBUF_FULL = 2,          /* no free entry: retry after an acknowledgement */
    PBUF_EMPTY_EPOCH = 3,   /* fence: the epoch has no store, nothing to order (no entry) */
    PBUF_BAD = 4            /* bad argument (store across a block, too many bytes) */
} pbuf_result;

typedef enum pbuf_head_state { PBUF_HEAD_NONE = 0, PBUF_HEAD_READY = 1, PBUF_HEAD_BLOCKED = 2 } pbuf_head_state;

typedef struct persist_buf persist_buf;

size_t   pbuf_bytes(const pbuf_cfg *cfg);              /* 0 for an invalid cfg */
int      pbuf_init(void *mem, const pbuf_cfg *cfg);    /* 0 ok, -1 bad cfg or mem */
const pbuf_cfg *pbuf_config(const persist_buf *b);

/* A store of n bytes at byte offset off of block `line` (off + n <= line_bytes). deps: the
 * persist-persist dependencies the coherence engine found (other buffers' live entries of the
 * block), nd of them. *id (may be NULL) = the entry it is in. */
pbuf_result pbuf_store(persist_buf *b, uint64_t line, uint32_t off, uint32_t n, const uint8_t *data,
                       const pbuf_dep *deps, uint32_t nd, uint64_t *id);
/* A persist barrier: ends the barrier epoch. A fence entry when the epoch has a store
 * (PBUF_NEW, *id = its id; id may be NULL), PBUF_EMPTY_EPOCH otherwise (the epoch still advances),
 * PBUF_FULL if no entry. */
pbuf_result pbuf_fence(persist_buf *b, uint64_t *id);
/* A load observed a block that other buffers hold: the thread's next entry depends on them (RAW).
 * Resolved dependencies are dropped by pbuf_resolve as for entries. */
void     pbuf_load(persist_buf *b, const pbuf_dep *deps, uint32_t nd);

/* The oldest unsent entry: NONE (none), BLOCKED (its dependencies are not resolved), READY; *e is
 * filled for READY and BLOCKED (may be NULL). */
pbuf_head_state pbuf_head(const persist_buf *b, pbuf_entry *e);
/* Releases the READY head (marks a store sent; a fence leaves the buffer). 1, or 0 if not READY. */
int      pbuf_send(persist_buf *b);
/* The controller acknowledged sent store entry `id`: it leaves. 1, or 0 (unknown / unsent id). */
int      pbuf_ack(persist_buf *b, uint64_t id);
/* Buffer `thread` now has no live entry with id < live_min (UINT64_MAX: none live): drops the
 * dependencies on it that this resolves. Returns the number dropped. */
uint32_t pbuf_resolve(persist_buf *b, uint32_t thread, uint64_t live_min);

/* Snoop (coherence): the youngest live store entry of block `line`: 1 and *id, or 0. */
int      pbuf_snoop(const persist_buf *b, uint64_t line, uint64_t *id);
uint64_t pbuf_live_min(const persist_buf *b);          /* lowest live entry id, UINT64_MAX if none */
uint64_t pbuf_last_store(const persist_buf *b);        /* youngest live store entry id, UINT64_MAX if none */
uint64_t pbuf_epoch(const persist_buf *b);             /* current barrier epoch */
uint32_t pbuf_count(const persist_buf *b);             /* entries held (unsent + sent) */
uint32_t pbuf_unsent(const persist_buf *b);
int      pbuf_full(const persist_buf *b);
uint32_t pbuf_pending_raw(const persist_buf *b);       /* RAW dependencies waiting for the next entry */
/* The live entry with request ID `id`: 0 and *e (may be NULL), or -1. A sent entry no longer
 * changes (stores join unsent entries only), so this is what was released. */
int      pbuf_find(const persist_buf *b, uint64_t id, pbuf_entry *e);
/* Entry pos (0 = oldest) of the entries held: 0 and *e, or -1. */
int      pbuf_entry_at(const persist_buf *b, uint32_t pos, pbuf_entry *e);
const pbuf_stats *pbuf_get_stats(const persist_buf *b);

#ifdef __cplusplus
}
#endif
#endif
