// Model `epoch`: epoch persistency (SBRP paper sections 4 and 7, "Epoch"; docs/models/epoch.md).
// Every ordering point is an epoch barrier that only affects PM writes: the SM's L1 writes back its
// dirty PM lines, waits for their acknowledgements, and invalidates its clean PM lines. No hardware
// beyond the caches' write-back fences.
#include "persist/epoch.h"

namespace persim {

// Epoch persistency (SBRP paper sections 4 and 7, "Epoch"): every ordering point is an epoch
// barrier that only affects PM writes.
int lower_epoch_like(const persim_op &op, Prim out[4], Prim bar)
{
    int n = 0;
    switch (op.kind) {
    case OPK_ORDER:
    case OPK_DURABLE:
        out[n++] = bar;
        break;
    case OPK_PBARRIER:
        return lower_pbarrier(op, out, bar);
    case OPK_RELEASE:
        out[n++] = bar;
        if (lower_wide(op) && bar != Prim::SYS_FENCE) out[n++] = Prim::VOL_FLUSH;
        out[n++] = Prim::FLAG_STORE;
        break;
    case OPK_ACQUIRE:
        out[n++] = Prim::FLAG_WAIT;
        out[n++] = bar;
        if (lower_wide(op) && bar != Prim::SYS_FENCE) out[n++] = Prim::L1_INV;
        break;
    case OPK_SYNC:
        out[n++] = Prim::SYNC;
        break;
    default:
        break;
    }
    return n;
}

namespace {
int lower_epoch(const persim_op &op, Prim out[4]) { return lower_epoch_like(op, out, Prim::EPOCH_BAR); }
} // namespace

const PersistModel kEpochModel{"epoch", "epoch persistency: PM-only epoch barrier at every ordering point (flush, wait, invalidate PM lines)",
                               lower_epoch};

} // namespace persim
