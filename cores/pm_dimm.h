/* persim core: an Optane-class persistent-memory DIMM set behind one memory controller
 * (docs/models/nvm-device.md). The alternative to cores/nvm.h's banks-and-rows device, chosen by
 * nvm.device = "pm_dimm". What it models, after the published measurements of Intel Optane DC PMM
 * (Izraelevitz et al. 2019; Yang et al., FAST'20; Wang et al., MICRO'20 "LENS/VANS"):
 *   - `dimms` DIMMs, addresses interleaved across them every `interleave_bytes` (4 KB);
 *   - per DIMM a DDR-T channel: every access moves at least one `burst_bytes` (64 B) burst;
 *   - per DIMM an on-DIMM buffer of `buf_entries` media lines (XPLines, `media_line_bytes`, 256 B)
 *     that combines writes to the same line and holds lines read from the media (the RMW buffer
 *     of VANS, the XPBuffer of Yang et al.); LRU replacement; a dirty line leaves by a media
 *     write of the whole line, after a media read of it if the writes did not cover it (RMW);
 *   - per DIMM an address-indirection-table cache (`ait_entries` blocks of `ait_block_bytes`,
 *     `ait_ways`-way set-associative, LRU): a media access whose block misses pays `ait_miss_ps`;
 *   - per DIMM media with latencies and bandwidths (occupancy = bytes / bandwidth, pipelined);
 *   - wear: a media-write counter per `wear_block_bytes` block (VANS counts per 4 KB AIT block; an
 *     open-addressed table of `wear_slots` blocks, blocks beyond it counted as untracked), and every
 *     `wear_writes`-th media write of one block migrates it: the DIMM's media is busy for
 *     `wear_migrate_ps` (the tens-of-microsecond write outliers Yang et al. observe);
 *   - energy per media access and per bit read / written.
 *
 * The device keeps no clock; callers pass arrival times in. Timing rules (ps):
 *   write(t): over the channel (bus = max(t, bus_free) + xfer(max(bytes, burst))); a buffer hit
 *     combines; a miss takes a free entry or evicts the LRU one (its media write, after a media
 *     read if partial). The write is *accepted* (returned) when it sits in the buffer:
 *     max(bus end, the evicted entry's media write start) + ctrl_ps. With buf_entries = 0 every
 *     write goes to the media (partial ones read-modify-write) and is accepted when its media
 *     write starts.
 *   read(t): a buffer hit (line read before, or the words written) is ready at t + ctrl_ps;
 *     a miss reads the line from the media (after the AIT, start = max(t + ctrl_ps [+ ait miss],
 *     media_free)) and installs it clean; then the data crosses the channel (its channel slot is
 *     taken when the request arrives, so a read never holds the channel ahead of time).
 * ADR stays with the controller's write queue (a write is durable once it enters the WPQ): the
 * device only decides when, and how fast, the queue drains.
 * Caller-owned state: pm_dimm_bytes(cfg) bytes, 8-byte aligned. No allocation after init. */
#ifndef PERSIM_PM_DIMM_H
#define PERSIM_PM_DIMM_H
#include <stddef.h>
#include <stdint.h>
#include "persim_time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_dimm_cfg {
    uint32_t  dimms;              /* DIMMs behind this controller, >= 1 */
    uint64_t  interleave_bytes;   /* interleave granule across the DIMMs (multiple of media_line_bytes) */
    uint32_t  media_line_bytes;   /* XPLine: media access granule, power of two 64..512 */
    uint32_t  burst_bytes;        /* DDR-T transfer unit: the least a request occupies the channel */
    double    bus_gbps;           /* per-DIMM channel bandwidth, GB/s */
    persim_ps ctrl_ps;            /* on-DIMM controller time of every request (a buffer hit's latency) */
    uint32_t  lsq_entries;        /* write queue (LSQ) in front of each DIMM's buffer, <= 4096 (0 = none:
                                     a write is accepted when it has entered the buffer) */
    uint32_t  buf_entries;        /* XPBuffer / RMW-buffer entries per DIMM (0 = none), <= 4096 */
    uint32_t  evict_pipelined;    /* 0 (VANS: one eviction at a time): a write that needs an entry
                                     waits until the evicted line's media write starts, after its
                                     read-modify-write read completes; 1: it waits only until the media
                                     starts the eviction's first access (write-back queued, pipelined) */
    uint32_t  ait_entries;        /* AIT-cache entries per DIMM (0 = none: every media access misses) */
    uint32_t  ait_ways;           /* ways per set (divides ait_entries), 1..64 */
    uint64_t  ait_block_bytes;    /* bytes one AIT entry translates (power of two >= media_line_bytes) */
    persim_ps ait_miss_ps;        /* extra latency of a media access whose AIT entry misses */
    persim_ps media_read_ps;      /* media read latency of one media line */
    persim_ps media_write_ps;     /* media write latency of one media line */
    double    media_read_gbps;    /* per-DIMM media read bandwidth, GB/s */
    double    media_write_gbps;   /* per-DIMM media write bandwidth, GB/s */
    uint64_t  wear_block_bytes;   /* wear-counting granule (power of two >= media_line_bytes) */
    uint32_t  wear_writes;        /* media writes of one block between migrations (0 = no wear levelling) */
    persim_ps wear_migrate_ps;    /* media occupancy of one migration */
    uint32_t  wear_slots;         /* per-block write counters kept (power of two, 0 = none) */
    double    access_pj;          /* energy of one media access, pJ */
    double    read_pj_per_bit;    /* energy per bit read from the media, pJ */
    double    write_pj_per_bit;   /* energy per bit written to the media, pJ */
} pm_dimm_cfg;

typedef struct pm_dimm_stats {
    uint64_t reads, writes, read_bytes, write_bytes;   /* requests from the controller */
    uint64_t buf_read_hits, buf_write_hits;            /* served by / combined in the buffer */
    uint64_t buf_evictions, buf_dirty_evictions;       /* lines leaving the buffer */
    uint64_t rmw_reads;                                /* media reads to complete a partial line */
    uint64_t media_reads, media_writes;                /* media-line accesses */
    uint64_t ait_hits, ait_misses;
    uint64_t migrations;                               /* wear-levelling migrations */
    uint64_t lsq_full_waits;                           /* writes that waited for an LSQ slot */
    uint64_t wear_blocks;                              /* distinct wear blocks written (tracked) */
    uint64_t wear_max;                                 /* most media writes to one tracked block */
    uint64_t wear_untracked;                           /* media writes of blocks the table could not hold */
    double   energy_pj;                                /* media energy */
    persim_ps bus_busy_ps;                             /* channel occupancy summed over DIMMs */
    persim_ps media_busy_ps;                           /* media occupancy summed over DIMMs */
    persim_ps last_done_ps;
} pm_dimm_stats;

typedef struct pm_dimm pm_dimm;

size_t    pm_dimm_bytes(const pm_dimm_cfg *cfg);
int       pm_dimm_init(void *mem, const pm_dimm_cfg *cfg);   /* 0 ok, -1 bad cfg */
const pm_dimm_cfg *pm_dimm_config(const pm_dimm *d);

/* A read of `bytes` at `addr` arriving at `t`: the time the data is back on the channel. */
persim_ps pm_dimm_read(pm_dimm *d, persim_ps t, uint64_t addr, uint32_t bytes);
/* A write arriving at `t`: the time the DIMM has accepted it (it sits in the buffer, or its
 * media write has started when there is no buffer); the controller's queue entry frees then. */
persim_ps pm_dimm_write(pm_dimm *d, persim_ps t, uint64_t addr, uint32_t bytes);
const pm_dimm_stats *pm_dimm_get_stats(const pm_dimm *d);
/* When the DIMM could take another write: with an LSQ, when the next LSQ slot of the DIMM the last
 * write went to frees (at the earliest that write's arrival); without, the time the last write
 * entered its buffer. Before the controller's latency. A queue in front paces its drain by this
 * (the device pipelines requests: the latency does not limit the rate). */
persim_ps pm_dimm_next_write_at(const pm_dimm *d);
/* Dirty lines still in the buffers (their media writes have not happened). */
uint64_t  pm_dimm_dirty_lines(const pm_dimm *d);

/* Scheduler queries (cores/broi_sched.h sees the DIMMs as its banks): the DIMM of `addr`, and the
 * earliest time DIMM `dimm` can take a new request on its channel (0 out of range). */
uint32_t  pm_dimm_of(const pm_dimm *d, uint64_t addr);
persim_ps pm_dimm_free_at(const pm_dimm *d, uint32_t dimm);

#ifdef __cplusplus
}
#endif
#endif
