/* persim core: NVW-FIFO (see nvw_fifo.h). */
#include "nvw_fifo.h"
#include <string.h>

#define NVW_MARK (1ull << 63)

struct nvw_fifo {
    nvw_fifo_cfg   cfg;
    nvw_fifo_stats stats;
    uint64_t pmask;
    uint32_t head, count, markers, outstanding;
    uint8_t  drain_all;
    /* ack_mode 2: ring of nep = max_markers + 1 epochs. Epochs ep_head .. ep_open-1 (mod nep)
     * are closed, each by the waiting marker wtag[e]; ep_open takes the write-backs now. */
    uint32_t nep, ep_head, ep_open, waiting, last_epoch;
    uint32_t *ecnt;        /* nep outstanding counters (after q[]) */
    uint64_t *wtag;        /* nep waiting-marker tags (after q[]) */
    uint64_t q[];          /* bit 63 = marker, low payload_bits = payload */
};

static size_t epochs(const nvw_fifo_cfg *cfg)
{
    return cfg && cfg->ack_mode == 2 ? (size_t)cfg->max_markers + 1 : 0;
}

size_t nvw_fifo_bytes(const nvw_fifo_cfg *cfg)
{
    return sizeof(nvw_fifo) + (size_t)(cfg ? cfg->entries : 0) * sizeof(uint64_t) +
           epochs(cfg) * (sizeof(uint64_t) + sizeof(uint32_t));
}

int nvw_fifo_init(void *mem, const nvw_fifo_cfg *cfg)
{
    if (!mem || !cfg) return -1;
    if (cfg->entries < 1 || cfg->entries > 65535) return -1;
    if (cfg->payload_bits < 1 || cfg->payload_bits > 63) return -1;
    if (cfg->ack_mode > 2 || cfg->max_outstanding < 1 || cfg->max_outstanding > 65535) return -1;
    if (cfg->ack_mode == 2 && (cfg->max_markers < 1 || cfg->max_markers > 65534)) return -1;
    nvw_fifo *f = (nvw_fifo *)mem;
    memset(f, 0, nvw_fifo_bytes(cfg));
    f->cfg = *cfg;
    if (cfg->ack_mode != 2) f->cfg.max_markers = 0;
    f->pmask = (1ull << cfg->payload_bits) - 1;
    f->nep = (uint32_t)epochs(cfg);
    if (f->nep) {
        f->wtag = f->q + cfg->entries;
        f->ecnt = (uint32_t *)(f->wtag + f->nep);
    }
    return 0;
}

const nvw_fifo_cfg *nvw_fifo_config(const nvw_fifo *f) { return &f->cfg; }

static nvw_result push(nvw_fifo *f, uint64_t v)
{
    if (f->count >= f->cfg.entries) { f->stats.full++; return NVW_FULL; }
    uint32_t tail = f->head + f->count;
    if (tail >= f->cfg.entries) tail -= f->cfg.entries;
    f->q[tail] = v;
    f->count++;
    return NVW_OK;
}

nvw_result nvw_fifo_push_write(nvw_fifo *f, uint64_t line_addr)
{
    nvw_result r = push(f, line_addr & f->pmask);
    if (r == NVW_OK) f->stats.writes++;
    return r;
}

nvw_result nvw_fifo_push_flush(nvw_fifo *f, uint64_t tag)
{
    nvw_result r = push(f, NVW_MARK | (tag & f->pmask));
    if (r == NVW_OK) { f->markers++; f->stats.markers++; }
    return r;
}

int nvw_fifo_draining(const nvw_fifo *f)
{
    return f->count && (f->markers || f->drain_all || f->count == f->cfg.entries);
}

static void pop(nvw_fifo *f)
{
    f->q[f->head] = 0;
    f->head = f->head + 1 == f->cfg.entries ? 0 : f->head + 1;
    f->count--;
}

static uint32_t ep_next(const nvw_fifo *f, uint32_t e) { return e + 1 == f->nep ? 0 : e + 1; }

nvw_action nvw_fifo_retire(nvw_fifo *f, uint64_t *tag)
{
    if (f->cfg.ack_mode != 2 || !f->waiting || f->ecnt[f->ep_head]) return NVW_IDLE;
    *tag = f->wtag[f->ep_head];
    f->wtag[f->ep_head] = 0;
    f->ep_head = ep_next(f, f->ep_head);
    f->waiting--;
    f->stats.done++;
    return NVW_DONE;
}

static nvw_action head_action(nvw_fifo *f, int out_ready, uint64_t *payload)
{
    if (!nvw_fifo_draining(f)) return NVW_IDLE;
    uint64_t v = f->q[f->head];
    if (v & NVW_MARK) {
        if (f->cfg.ack_mode == 2) {
            if (f->waiting >= f->cfg.max_markers) return NVW_IDLE;   /* full: blocks the head */
            *payload = v & f->pmask;
            f->wtag[f->ep_open] = *payload;
            f->last_epoch = f->ep_open;
            f->ep_open = ep_next(f, f->ep_open);
            f->waiting++;
            pop(f); f->markers--; f->stats.drained++;
            return NVW_WAIT;
        }
        if (f->cfg.ack_mode) {
            if (f->outstanding) return NVW_IDLE;
            *payload = v & f->pmask;
            pop(f); f->markers--; f->stats.done++;
            return NVW_DONE;
        }
        if (!out_ready) return NVW_IDLE;
        *payload = v & f->pmask;
        pop(f); f->markers--; f->stats.drained++;
        return NVW_MARKER;
    }
    if (!out_ready) return NVW_IDLE;
    if (f->cfg.ack_mode) {
        if (f->outstanding >= f->cfg.max_outstanding) return NVW_IDLE;
        f->outstanding++;
        if (f->cfg.ack_mode == 2) {
            f->ecnt[f->ep_open]++;
            f->last_epoch = f->ep_open;
        }
    }
    *payload = v & f->pmask;
    pop(f); f->stats.drained++;
    return NVW_WRITE;
}

nvw_action nvw_fifo_drain(nvw_fifo *f, int out_ready, uint64_t *payload)
{
    if (nvw_fifo_retire(f, payload) == NVW_DONE) return NVW_DONE;
    return head_action(f, out_ready, payload);
}

void nvw_fifo_ack_epoch(nvw_fifo *f, uint32_t epoch)
{
    if (f->cfg.ack_mode != 2) { nvw_fifo_ack(f); return; }
    if (epoch >= f->nep || !f->ecnt[epoch]) return;
    f->ecnt[epoch]--;
    f->outstanding--;
    f->stats.acks++;
}

void nvw_fifo_ack(nvw_fifo *f)
{
    if (f->cfg.ack_mode == 2) {
        for (uint32_t e = f->ep_head, i = 0; i < f->nep; i++, e = ep_next(f, e))
            if (f->ecnt[e]) { nvw_fifo_ack_epoch(f, e); return; }
        return;
    }
    if (f->outstanding) { f->outstanding--; f->stats.acks++; }
}

void nvw_fifo_drain_all(nvw_fifo *f, int on) { f->drain_all = on ? 1 : 0; }

uint32_t nvw_fifo_count(const nvw_fifo *f) { return f->count; }
uint32_t nvw_fifo_markers(const nvw_fifo *f) { return f->markers; }
uint32_t nvw_fifo_outstanding(const nvw_fifo *f) { return f->outstanding; }
uint32_t nvw_fifo_last_epoch(const nvw_fifo *f) { return f->last_epoch; }
uint32_t nvw_fifo_open_epoch(const nvw_fifo *f) { return f->ep_open; }
uint32_t nvw_fifo_waiting(const nvw_fifo *f) { return f->waiting; }
uint32_t nvw_fifo_epoch_outstanding(const nvw_fifo *f, uint32_t epoch)
{
    return f->cfg.ack_mode == 2 && epoch < f->nep ? f->ecnt[epoch] : 0;
}

int nvw_fifo_entry(const nvw_fifo *f, uint32_t pos, int *is_marker, uint64_t *payload)
{
    if (pos >= f->count) return -1;
    uint32_t k = f->head + pos;
    if (k >= f->cfg.entries) k -= f->cfg.entries;
    if (is_marker) *is_marker = (f->q[k] & NVW_MARK) != 0;
    if (payload) *payload = f->q[k] & f->pmask;
    return 0;
}

const nvw_fifo_stats *nvw_fifo_get_stats(const nvw_fifo *f) { return &f->stats; }

void nvw_fifo_step(nvw_fifo *f, const nvw_fifo_in *in, nvw_fifo_out *out)
{
    memset(out, 0, sizeof *out);
    if (in->ack) nvw_fifo_ack_epoch(f, in->ack_epoch);
    nvw_fifo_drain_all(f, in->drain_all);
    uint64_t p = 0;
    if (nvw_fifo_retire(f, &p) == NVW_DONE) { out->done_valid = 1; out->done_tag = p; }
    switch (head_action(f, in->out_ready, &p)) {
    case NVW_WRITE:
        out->out_valid = 1; out->out_payload = p;
        if (f->cfg.ack_mode == 2) out->out_epoch = (uint16_t)f->last_epoch;
        break;
    case NVW_MARKER: out->out_valid = 1; out->out_marker = 1; out->out_payload = p; break;
    case NVW_DONE:   out->done_valid = 1; out->done_tag = p; break;
    default: break;   /* NVW_WAIT: visible in `waiting` */
    }
    if (in->push_valid)
        out->push_result = (uint8_t)(in->push_marker ? nvw_fifo_push_flush(f, in->push_payload)
                                                     : nvw_fifo_push_write(f, in->push_payload));
    out->count = (uint16_t)f->count;
    out->markers = (uint16_t)f->markers;
    out->outstanding = (uint16_t)f->outstanding;
    out->waiting = (uint16_t)f->waiting;
}
