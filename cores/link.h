/* persim core: a point-to-point pipe with latency and bandwidth (PCIe-like link, an
 * interconnect port). Packets serialize in arrival order; a packet of payload P bytes occupies
 * the pipe for (header_bytes + P) / bandwidth, split into ceil(P / max_payload) TLPs each with
 * its own header. The core keeps no clock: callers pass the send time and get the arrival time.
 * Caller-owned state, no allocation. */
#ifndef PERSIM_LINK_H
#define PERSIM_LINK_H
#include <stdint.h>
#include "persim_time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct link_cfg {
    persim_ps latency_ps;     /* flight latency, first byte out to last byte in, excluding serialization */
    double    gbps;           /* bandwidth in GB/s (== bytes per ns); 0 = infinite */
    uint32_t  header_bytes;   /* per-packet overhead (TLP header + framing, or flit header) */
    uint32_t  max_payload;    /* bytes per packet before splitting; 0 = no limit */
} link_cfg;

typedef struct link_stats {
    uint64_t packets;         /* packets (TLPs) sent */
    uint64_t payload_bytes;   /* payload bytes carried */
    uint64_t wire_bytes;      /* payload + headers */
    persim_ps busy_ps;        /* total serialization time */
    persim_ps queue_ps;       /* total time packets waited for the pipe */
} link_stats;

typedef struct link_state {
    link_cfg   cfg;
    persim_ps  free_ps;       /* pipe is free from this time */
    link_stats st;
} link_state;

int       link_init(link_state *l, const link_cfg *cfg);   /* 0 ok, -1 bad cfg */
/* Sends `payload` bytes at time `t`; returns the time the last byte arrives at the far end. */
persim_ps link_send(link_state *l, persim_ps t, uint32_t payload);
/* Earliest time a packet sent now would start serializing. */
persim_ps link_free_at(const link_state *l);

#ifdef __cplusplus
}
#endif
#endif
