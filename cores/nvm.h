/* persim core: timing of a memory device behind one controller (used for NVM and, with DRAM
 * parameters, for GDDR): channels x banks with an open row per bank, separate read and write
 * latency and bandwidth. The write queue in front of the device is a separate block (a controller
 * front end: cores/adr_wpq.h for the ADR write-pending queue, cores/wpq_gate.h, cores/broi_sched.h).
 *
 * Timing rules (all in ps, computed when a request reaches the device; the core keeps no clock):
 *   channel  = (addr / line_bytes) % channels, bank = (addr / row_bytes) % banks.
 *   start    = max(arrive, bank_free[bank])
 *   latency  = row hit ? row_hit_latency : (is_write ? write_latency : read_latency)
 *   xfer     = bytes / (bandwidth_of_direction / channels)
 *   bus      = max(start, bus_free[channel]);  bus_free[channel] = bus + xfer
 *   done     = max(start + latency, bus + xfer)
 *   bank_free[bank] = start + (row hit ? bank_busy_hit : bank_busy_miss)
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
    uint32_t  bank_map;          /* 0 = stride (BROI IV-D): consecutive row-sized groups in consecutive
                                    banks, a row's lines in one bank (row locality + BLP);
                                    1 = line interleave: consecutive lines of a channel in consecutive
                                    banks (plain interleaving, for comparison) */
} nvm_cfg;

typedef struct nvm_stats {
    uint64_t reads, writes, read_bytes, write_bytes;
    uint64_t row_hits, row_misses;
    persim_ps bus_busy_ps;       /* data-bus occupancy summed over channels */
    persim_ps last_done_ps;      /* completion time of the latest request */
} nvm_stats;

typedef struct nvm nvm;

size_t    nvm_bytes(const nvm_cfg *cfg);
int       nvm_init(void *mem, const nvm_cfg *cfg);      /* 0 ok, -1 bad cfg */
const nvm_cfg *nvm_config(const nvm *n);

/* A device read of `bytes` at `addr` starting at `t`: returns the time data is ready. */
persim_ps nvm_read(nvm *n, persim_ps t, uint64_t addr, uint32_t bytes);
/* A device write starting at `t`: returns the time the device write completes. */
persim_ps nvm_write(nvm *n, persim_ps t, uint64_t addr, uint32_t bytes);
const nvm_stats *nvm_get_stats(const nvm *n);

/* Pure queries (no state change), for a scheduler in front of the device (cores/broi_sched.h).
 * nvm_bank_of: the bank of `addr` inside its channel, exactly as the timing rules compute it:
 *   (addr / row_bytes) % banks.
 * nvm_bank_free_at: the earliest time bank index `bank` (0..banks-1) of some channel can start a
 *   new access (minimum of bank_free over the channels); 0 for an out-of-range bank. A request
 *   starting then or later in that bank index finds a free bank in at least one channel. */
uint32_t  nvm_bank_of(const nvm *n, uint64_t addr);
persim_ps nvm_bank_free_at(const nvm *n, uint32_t bank);

#ifdef __cplusplus
}
#endif
#endif
