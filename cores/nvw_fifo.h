/* persim core: the NVW-FIFO (non-volatile-write FIFO) of "Exploring the Design Space of Scoped
 * Persist Barriers for GPUs" (scoped-persist-barriers-nvw-fifo.txt), section 6 / 6.1 / 7.2.5.
 *
 * One NVW-FIFO sits next to each GPU cache (L1 per CU: 16 entries, L2: 64 entries in the paper).
 * It is a circular buffer of 8-byte entries (head and tail pointers). An entry is either
 *   - an NV write: the line address of a cache block holding data of the NVRAM that was updated
 *     (one entry per update, duplicates allowed), or
 *   - a p_flush marker, appended by a scoped persist barrier (p_barrier_wi/wg/kr) and carrying
 *     a tag naming the stalled requester (workitem/wavefront, workgroup or kernel).
 * A p_flush marker "flows through" the FIFO (section 6.1): while any marker is queued, entries
 * are dequeued from the head one per cycle (when the downstream accepts them):
 *   - a write entry leaves on the output: for an L1 FIFO the cache flushes that block to L2 and
 *     the entry is appended to the L2 FIFO; for an L2 FIFO the block is written back to NVRAM
 *     and counted as outstanding (ack_mode) until the NVRAM acknowledges it;
 *   - a marker at the head: an L1 FIFO (ack_mode 0) passes it downstream like an entry (step 3);
 *     an L2 FIFO (ack_mode 1) waits until all outstanding write-backs are acknowledged, then
 *     retires it and signals completion with its tag (steps 5-6), which un-stalls the requester.
 * persim additions: a full FIFO drains its head write even without a marker (persisting early is
 * always allowed: barriers only order), and `drain_all` forces draining (kernel end). In
 * ack_modes 1 and 2 the number of outstanding write-backs is capped at `max_outstanding`.
 *
 * ack_mode 2 = pipelined L2 FIFO (persim's own variant, not the paper's; persist.nvw_l2_pipelined):
 * a marker at the head does not block the FIFO. It leaves into a small in-order queue of waiting
 * markers (at most `max_markers`), which closes the current *epoch*; write entries behind it keep
 * draining (while the FIFO drains) and are counted in the next epoch. Epochs are numbered by a
 * ring of max_markers + 1 counters, so an epoch number is 0..max_markers; every NVW_WRITE carries
 * the number of the (open) epoch it belongs to (nvw_fifo_last_epoch, `nvw_fifo_out.out_epoch`),
 * and its acknowledgement must name it (nvw_fifo_ack_epoch, `nvw_fifo_in.ack_epoch`). An epoch
 * number stays valid until its marker retired, which needs all its write-backs acknowledged, so
 * a number is never reused while a write-back of it is outstanding. The oldest waiting marker
 * retires (NVW_DONE with its tag, markers retire in order) once its epoch has no outstanding
 * write-back; all earlier epochs are empty then, since their markers retired before it.
 * A marker reaching the head while `max_markers` markers wait blocks the head as in ack_mode 1
 * (nothing behind it drains) until the oldest waiting marker retires and frees a slot.
 *
 * Caller-owned state: nvw_fifo_bytes(cfg) bytes (8-byte aligned); no allocation after init.
 * Transaction API (used by the scoped-barrier SystemC model) + cycle API (nvw_fifo_step,
 * mirroring rtl/nvw_fifo.v). */
#ifndef PERSIM_NVW_FIFO_H
#define PERSIM_NVW_FIFO_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nvw_fifo_cfg {
    uint32_t entries;          /* 1..65535 (paper: 16 for L1, 64 for L2) */
    uint32_t payload_bits;     /* line address / marker tag width, 1..63 (63 + marker bit = 8 B) */
    uint32_t ack_mode;         /* 0 = L1 (markers pass downstream), 1 = L2 (markers wait for acks),
                                  2 = pipelined L2 (markers wait aside, per-epoch acks; see above) */
    uint32_t max_outstanding;  /* ack_modes 1, 2: cap on un-acknowledged write-backs, 1..65535
                                  (ack_mode 2: the total over all epochs) */
    uint32_t max_markers;      /* ack_mode 2: waiting-markers queue size, 1..65534 (epoch numbers
                                  0..max_markers); ignored (may be 0) in ack_modes 0, 1 */
} nvw_fifo_cfg;

typedef enum nvw_result { NVW_NONE = 0, NVW_OK = 1, NVW_FULL = 2 } nvw_result;

typedef enum nvw_action {
    NVW_IDLE   = 0,   /* nothing leaves now */
    NVW_WRITE  = 1,   /* a write entry left: flush/write back *payload */
    NVW_MARKER = 2,   /* ack_mode 0: a marker left, append it downstream (tag *payload) */
    NVW_DONE   = 3,   /* ack_modes 1, 2: a marker retired, barrier with tag *payload complete */
    NVW_WAIT   = 4    /* ack_mode 2: the head marker (tag *payload) left the FIFO into the waiting
                         queue and closed its epoch (nvw_fifo_last_epoch); no downstream action */
} nvw_action;

typedef struct nvw_fifo_stats {
    uint64_t writes, markers, full, drained, done, acks;
} nvw_fifo_stats;

typedef struct nvw_fifo nvw_fifo;

size_t   nvw_fifo_bytes(const nvw_fifo_cfg *cfg);
int      nvw_fifo_init(void *mem, const nvw_fifo_cfg *cfg);   /* 0 ok, -1 bad cfg */
const nvw_fifo_cfg *nvw_fifo_config(const nvw_fifo *f);

/* ---- transaction API ---- */
nvw_result nvw_fifo_push_write(nvw_fifo *f, uint64_t line_addr);
nvw_result nvw_fifo_push_flush(nvw_fifo *f, uint64_t tag);     /* p_flush marker */
/* One action. ack_mode 2 first retires the oldest waiting marker if it can (NVW_DONE, whether
 * or not the FIFO drains); otherwise, and in ack_modes 0/1, one head action if the FIFO is
 * draining (a marker queued, full, or drain_all). `out_ready`: the downstream takes a write / a
 * marker this cycle (a DONE or a WAIT needs no downstream slot). Call until NVW_IDLE to do
 * everything that is possible now. */
nvw_action nvw_fifo_drain(nvw_fifo *f, int out_ready, uint64_t *payload);
/* ack_mode 2 only (else NVW_IDLE): retire the oldest waiting marker if its epoch has no
 * outstanding write-back (NVW_DONE, *tag), without a head action. */
nvw_action nvw_fifo_retire(nvw_fifo *f, uint64_t *tag);
/* One write-back acknowledged. ack_mode 2: of the oldest epoch with one outstanding. */
void     nvw_fifo_ack(nvw_fifo *f);
/* ack_mode 2: one write-back of epoch `epoch` acknowledged (ignored if that epoch has none
 * outstanding or epoch > max_markers). ack_modes 0/1: same as nvw_fifo_ack (epoch ignored). */
void     nvw_fifo_ack_epoch(nvw_fifo *f, uint32_t epoch);
void     nvw_fifo_drain_all(nvw_fifo *f, int on);

/* ---- state queries ---- */
uint32_t nvw_fifo_count(const nvw_fifo *f);
uint32_t nvw_fifo_markers(const nvw_fifo *f);
uint32_t nvw_fifo_outstanding(const nvw_fifo *f);     /* ack_mode 2: total over all epochs */
/* ack_mode 2 (0 otherwise): the epoch of the last NVW_WRITE (or closed by the last NVW_WAIT),
 * the open epoch, markers waiting, write-backs of `epoch` outstanding. */
uint32_t nvw_fifo_last_epoch(const nvw_fifo *f);
uint32_t nvw_fifo_open_epoch(const nvw_fifo *f);
uint32_t nvw_fifo_waiting(const nvw_fifo *f);
uint32_t nvw_fifo_epoch_outstanding(const nvw_fifo *f, uint32_t epoch);
int      nvw_fifo_draining(const nvw_fifo *f);
/* Entry `pos` (0 = head): returns 0 and fills *is_marker / *payload, or -1. */
int      nvw_fifo_entry(const nvw_fifo *f, uint32_t pos, int *is_marker, uint64_t *payload);
const nvw_fifo_stats *nvw_fifo_get_stats(const nvw_fifo *f);

/* ---- cycle API: one clock edge, mirroring rtl/nvw_fifo.v ----
 * Per-cycle order: (1) ack (ack_mode 2: of epoch ack_epoch), (2) drain_all level,
 * (3a) ack_mode 2: the oldest waiting marker retires if its epoch is empty (done_valid),
 * (3b) at most one head action (ack_mode 2: a write leaves with out_epoch = the open epoch, or a
 * marker moves to the waiting queue, possibly into the slot 3a freed; it cannot retire before the
 * next edge; ack_mode 1: a DONE is this head action), (4) the offered push. All outputs are
 * registered in the RTL: they describe what happened at this edge. */
typedef struct nvw_fifo_in {
    uint8_t  ack;
    uint16_t ack_epoch;     /* ack_mode 2: epoch of the acknowledged write-back */
    uint8_t  drain_all;
    uint8_t  out_ready;
    uint8_t  push_valid;
    uint8_t  push_marker;   /* 1 = p_flush marker (payload = tag), 0 = NV write (line address) */
    uint64_t push_payload;
} nvw_fifo_in;
typedef struct nvw_fifo_out {
    uint8_t  push_result;   /* nvw_result */
    uint8_t  out_valid, out_marker;
    uint64_t out_payload;
    uint16_t out_epoch;     /* ack_mode 2: epoch of the emitted write (0 otherwise) */
    uint8_t  done_valid;
    uint64_t done_tag;
    uint16_t count, markers, outstanding;   /* after the edge */
    uint16_t waiting;       /* ack_mode 2: markers in the waiting queue after the edge */
} nvw_fifo_out;
void     nvw_fifo_step(nvw_fifo *f, const nvw_fifo_in *in, nvw_fifo_out *out);

#ifdef __cplusplus
}
#endif
#endif
