/* persim core: serialization pipe with latency and bandwidth (see link.h).
 * A send of P payload bytes is ceil(P / max_payload) packets (at least one; max_payload 0 = one
 * packet), each carrying header_bytes of overhead. The packets of one send go back to back:
 *   start   = max(t, free_ps)
 *   free_ps = start + xfer(P + packets * header_bytes)
 *   arrival = free_ps + latency_ps */
#include "link.h"

#include <string.h>

int link_init(link_state *l, const link_cfg *cfg)
{
    if (!l || !cfg) return -1;
    if (!(cfg->gbps >= 0.0)) return -1;          /* negative or NaN */
    memset(l, 0, sizeof *l);
    l->cfg = *cfg;
    return 0;
}

persim_ps link_send(link_state *l, persim_ps t, uint32_t payload)
{
    uint64_t packets = 1;
    if (l->cfg.max_payload != 0 && payload > l->cfg.max_payload)
        packets = ((uint64_t)payload + l->cfg.max_payload - 1u) / l->cfg.max_payload;
    uint64_t wire = (uint64_t)payload + packets * l->cfg.header_bytes;
    persim_ps start = persim_max_ps(t, l->free_ps);
    persim_ps xfer = persim_xfer_ps(wire, l->cfg.gbps);
    l->free_ps = start + xfer;
    l->st.packets += packets;
    l->st.payload_bytes += payload;
    l->st.wire_bytes += wire;
    l->st.busy_ps += xfer;
    l->st.queue_ps += start - t;
    return l->free_ps + l->cfg.latency_ps;
}

persim_ps link_free_at(const link_state *l)
{
    return l->free_ps;
}
