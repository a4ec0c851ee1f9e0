/* persim core: timing of a memory device behind one controller (used for NVM and, with DRAM
 * parameters, for GDDR): channels x banks with an open row per bank, separate read and write
 * latency and bandwidth, and an optional ADR write-pending queue (WPQ) in front of the device.
 *
 * Timing rules (all in ps, computed when a request arrives; the core keeps no clock):
 *   channel  = (addr / line_bytes) % channels, bank = (addr / row_bytes) % banks.
 *   start    = max(arrive, bank_free[bank])
 *   latency  = row hit ? row_hit_latency : (is_write ? write_latency : read_latency)
 *   xfer     = bytes / (bandwidth_of_direction / channels)
 *   bus      = max(start, bus_free[channel]);  bus_free[channel] = bus + xfer
 *   done     = max(start + latency, bus + xfer)
 *   bank_free[bank] = start + (row hit ? bank_busy_hit : bank_busy_miss)
 * Writes through the WPQ (wpq_entries > 0): a write is accepted (durable under ADR) at
 *   accept = max(arrive, drain_done of the write `wpq_entries` places earlier)
 * and then drains to the device in FIFO order starting at accept; its drain finishes no earlier
 * than the previous write's drain (FIFO). A read of a line with a write still in the WPQ is
 * served from the WPQ after wpq_hit_latency.
 * Caller-owned state: nvm_bytes(cfg) bytes, 8-byte aligned. No allocation after init. */
#ifndef PERSIM_NVM_H
#define PERSIM_NVM_H
#include <stddef.h>
#include <stdint.h>
#include "persim_time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nvm_cfg {
    uint32_t  channels;          /* >= 1 */
    uint32_t  banks;             /* banks per channel, >= 1 */
    uint32_t  line_bytes;        /* interleave granule across channels */
    uint32_t  row_bytes;         /* row-buffer size (bank interleave granule) */
    persim_ps read_latency_ps;   /* row-miss read latency */
    persim_ps write_latency_ps;  /* row-miss write latency */
    persim_ps row_hit_latency_ps;/* latency on a row-buffer hit (read or write) */
    persim_ps bank_busy_miss_ps; /* bank occupancy on a row miss (precharge+activate) */
    persim_ps bank_busy_hit_ps;  /* bank occupancy on a row hit */
    double    read_gbps;         /* total read bandwidth, GB/s */
    double    write_gbps;        /* total write bandwidth, GB/s */
    uint32_t  wpq_entries;       /* ADR write-pending queue entries; 0 = no WPQ (write done = durable) */
    persim_ps wpq_hit_latency_ps;/* read served from the WPQ */
} nvm_cfg;

typedef struct nvm_stats {
    uint64_t reads, writes, read_bytes, write_bytes;
    uint64_t row_hits, row_misses;
    uint64_t wpq_read_hits;      /* reads forwarded from the WPQ */
    uint64_t wpq_full_stalls;    /* writes that waited for a WPQ slot */
    persim_ps wpq_stall_ps;      /* total time writes waited for a WPQ slot */
    persim_ps bus_busy_ps;       /* data-bus occupancy summed over channels */
    persim_ps last_done_ps;      /* completion time of the latest request */
} nvm_stats;

typedef struct nvm nvm;

size_t    nvm_bytes(const nvm_cfg *cfg);
int       nvm_init(void *mem, const nvm_cfg *cfg);      /* 0 ok, -1 bad cfg */
const nvm_cfg *nvm_config(const nvm *n);

/* A read of `bytes` at `addr` arriving at `t`: returns the time data is ready at the controller. */
persim_ps nvm_read(nvm *n, persim_ps t, uint64_t addr, uint32_t bytes);
/* A write arriving at `t`. *accept_ps = time it entered the WPQ (== durable under ADR; with no
 * WPQ, equals the device completion time). Returns the time the device write completes. */
persim_ps nvm_write(nvm *n, persim_ps t, uint64_t addr, uint32_t bytes, persim_ps *accept_ps);
/* Number of writes in the WPQ (accepted, drain not finished) at time t. */
uint32_t  nvm_wpq_occupancy(const nvm *n, persim_ps t);
const nvm_stats *nvm_get_stats(const nvm *n);

#ifdef __cplusplus
}
#endif
#endif
