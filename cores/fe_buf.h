/* persim core: the per-core front-end buffer of LightWSP ("LightWSP: Whole-System Persistence on
 * the Cheap", lightwsp-whole-system-persistence.md, III-A footnote 3, IV-E and IV-G): a FIFO between
 * the store buffer and the persist (non-temporal) path, Intel's write-combining buffer repurposed
 * (paper: 64 entries of 8 B, the WPQ size). Stores leave the store buffer into it as soon as they
 * can and go to their memory controller's WPQ in order.
 *
 * Entry: {word address (8 B granule = byte address / 8), data (u64), region ID (u16), seq}.
 * seq is this buffer's push counter (0, 1, 2, ...), the entry's name on the persist path.
 * States: queued (not yet sent on the persist path) -> sent (waiting for the WPQ's acceptance
 * ACK) -> removed when ACKed. Sends are in FIFO order, so the sent entries are always the oldest
 * ones. ACKs may arrive in any order (stores to different controllers); an ACKed entry frees its
 * slot at once (the FIFO order of the rest is kept).
 *
 * Buffer snooping (IV-G): before L1 evicts a dirty line, the buffer is searched (CAM) for an
 * entry of that line, queued or sent; such a buffer conflict means the store could reach PM after
 * the write-back (Figure 5) or a later load could miss the store (stale load, Figure 6), so
 * another victim is chosen, or the eviction waits until the entry is ACKed (fe_buf_victim).
 *
 * The core keeps no time. Caller-owned state: fe_buf_bytes(cfg) bytes (8-byte aligned);
 * no allocation after init, no globals, no I/O. */
#ifndef PERSIM_FE_BUF_H
#define PERSIM_FE_BUF_H
#include <stddef.h>
#include <stdint.h>
#include "cache.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fe_buf_cfg {
    uint32_t entries;      /* 1..4096 (paper: 64) */
    uint32_t line_bytes;   /* power of two, 8..128: the cache line of the CAM search (paper: 64) */
} fe_buf_cfg;

typedef struct fe_buf_entry {
    uint64_t word_addr;    /* byte address / 8 */
    uint64_t data;
    uint64_t seq;          /* push counter of this buffer */
    uint16_t region;       /* region ID (16 bits, wraps) */
    uint8_t  sent;         /* 1 = sent on the persist path, waiting for its ACK */
} fe_buf_entry;

/* Victim selection policies of IV-G / V-F3 (Figures 13 and 14). */
enum fe_victim_policy {
    FE_VICTIM_FULL = 0,    /* full-victim (paper default): scan every way of the set */
    FE_VICTIM_HALF = 1,    /* half-victim: scan the oldest assoc/2 ways (at least 1) */
    FE_VICTIM_ZERO = 2,    /* zero-victim: only the LRU way; a conflict delays the eviction */
    FE_VICTIM_NONE = 3     /* stale-load variant (Figure 14): no snooping, plain LRU victim */
};

typedef struct fe_buf_stats {
    uint64_t pushes, full, sends, acks;
    uint64_t conflict_checks;   /* CAM searches made by fe_buf_victim (one per dirty present way scanned) */
    uint64_t conflicts;         /* ... that found an entry of the line (buffer conflicts) */
    uint64_t victim_waits;      /* fe_buf_victim returned -1: the eviction must wait */
    uint64_t unknown_acks;      /* fe_buf_ack of a seq that is not a sent entry */
} fe_buf_stats;

typedef struct fe_buf fe_buf;

size_t   fe_buf_bytes(const fe_buf_cfg *cfg);               /* 0 for an invalid cfg */
int      fe_buf_init(void *mem, const fe_buf_cfg *cfg);     /* 0 ok, -1 bad cfg or mem */
const fe_buf_cfg *fe_buf_config(const fe_buf *b);

/* A store enters the buffer (queued). Returns 1 and sets *seq (may be NULL), or 0 if full. */
int      fe_buf_push(fe_buf *b, uint64_t word_addr, uint64_t data, uint32_t region, uint64_t *seq);
/* The oldest queued entry without changing anything: 1 and *e, or 0 if none is queued (e.g. to
 * offer it to the WPQ first and call fe_buf_next_send once it is taken). */
int      fe_buf_peek(const fe_buf *b, fe_buf_entry *e);
/* Oldest queued entry -> marks it sent, returns 1 and fills *e (may be NULL); 0 if none queued. */
int      fe_buf_next_send(fe_buf *b, fe_buf_entry *e);
/* The WPQ accepted the sent entry `seq`: it is removed, returns 1. Any order. 0 if no sent entry
 * has that seq (unknown or still queued; counted in unknown_acks, nothing changes). */
int      fe_buf_ack(fe_buf *b, uint64_t seq);

uint32_t fe_buf_count(const fe_buf *b);                     /* entries held (queued + sent) */
uint32_t fe_buf_unsent(const fe_buf *b);                    /* queued, not yet sent */
int      fe_buf_full(const fe_buf *b);
/* Entry pos (0 = oldest) of the entries held: 0 and *e, or -1. */
int      fe_buf_entry_at(const fe_buf *b, uint32_t pos, fe_buf_entry *e);
/* CAM: 1 if any entry (queued or sent) lies in cache line line_addr (byte address / line_bytes).
 * A pure query (no statistics). */
int      fe_buf_conflict(const fe_buf *b, uint64_t line_addr);

/* Victim selection with buffer snooping (IV-G, Figure 13) for a miss of line_addr in cache c
 * (c's line_bytes must equal the buffer's). The ways of line_addr's set are taken in victim order
 * (cache_set_ways_lru: free ways, then LRU -> MRU); a way is acceptable if it is not present, or
 * not dirty, or its line has no entry here. FE_VICTIM_FULL scans all ways, FE_VICTIM_HALF the
 * oldest max(1, assoc/2), FE_VICTIM_ZERO only the first (the LRU way, or a free way), and the
 * first acceptable way scanned is returned as a cache line index (as cache_victim returns it).
 * -1: no scanned way is acceptable, the eviction must wait until a conflicting entry is ACKed
 * (victim_waits). FE_VICTIM_NONE does not snoop: returns cache_victim's choice, conflicts 0.
 * *conflicts (may be NULL) = the number of conflicting ways seen (ways scanned that were present,
 * dirty and had an entry here). Returns -1 also for an unknown policy or NULL cache. At most the
 * 256 oldest ways are scanned (only matters for fully associative caches of more lines). */
int32_t  fe_buf_victim(fe_buf *b, const cache *c, uint64_t line_addr, int policy, uint32_t *conflicts);

const fe_buf_stats *fe_buf_get_stats(const fe_buf *b);

#ifdef __cplusplus
}
#endif
#endif
