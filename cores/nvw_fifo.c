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
    uint64_t q[];          /* bit 63 = marker, low payload_bits = payload */
};

size_t nvw_fifo_bytes(const nvw_fifo_cfg *cfg)
{
    return sizeof(nvw_fifo) + (size_t)(cfg ? cfg->entries : 0) * sizeof(uint64_t);
}

int nvw_fifo_init(void *mem, const nvw_fifo_cfg *cfg)
{
    if (!mem || !cfg) return -1;
    if (cfg->entries < 1 || cfg->entries > 65535) return -1;
    if (cfg->payload_bits < 1 || cfg->payload_bits > 63) return -1;
    if (cfg->ack_mode > 1 || cfg->max_outstanding < 1 || cfg->max_outstanding > 65535) return -1;
    nvw_fifo *f = (nvw_fifo *)mem;
    memset(f, 0, nvw_fifo_bytes(cfg));
    f->cfg = *cfg;
    f->pmask = (1ull << cfg->payload_bits) - 1;
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

nvw_action nvw_fifo_drain(nvw_fifo *f, int out_ready, uint64_t *payload)
{
    if (!nvw_fifo_draining(f)) return NVW_IDLE;
    uint64_t v = f->q[f->head];
    if (v & NVW_MARK) {
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
    }
    *payload = v & f->pmask;
    pop(f); f->stats.drained++;
    return NVW_WRITE;
}

void nvw_fifo_ack(nvw_fifo *f)
{
    if (f->outstanding) { f->outstanding--; f->stats.acks++; }
}

void nvw_fifo_drain_all(nvw_fifo *f, int on) { f->drain_all = on ? 1 : 0; }

uint32_t nvw_fifo_count(const nvw_fifo *f) { return f->count; }
uint32_t nvw_fifo_markers(const nvw_fifo *f) { return f->markers; }
uint32_t nvw_fifo_outstanding(const nvw_fifo *f) { return f->outstanding; }

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
    if (in->ack) nvw_fifo_ack(f);
    nvw_fifo_drain_all(f, in->drain_all);
    uint64_t p = 0;
    switch (nvw_fifo_drain(f, in->out_ready, &p)) {
    case NVW_WRITE:  out->out_valid = 1; out->out_payload = p; break;
    case NVW_MARKER: out->out_valid = 1; out->out_marker = 1; out->out_payload = p; break;
    case NVW_DONE:   out->done_valid = 1; out->done_tag = p; break;
    default: break;
    }
    if (in->push_valid)
        out->push_result = (uint8_t)(in->push_marker ? nvw_fifo_push_flush(f, in->push_payload)
                                                     : nvw_fifo_push_write(f, in->push_payload));
    out->count = (uint16_t)f->count;
    out->markers = (uint16_t)f->markers;
    out->outstanding = (uint16_t)f->outstanding;
}
