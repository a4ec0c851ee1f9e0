// Model `epoch`: epoch persistency (SBRP paper sections 4 and 7, "Epoch"; docs/models/epoch.md).
// Every ordering point is an epoch barrier that only affects PM writes: the SM's L1 writes back its
// dirty PM lines, waits for their acknowledgements, and invalidates its clean PM lines. No hardware
// beyond the caches' write-back fences.
#include "persist_model.h"

namespace persim {

namespace {
// Every ordering point is the epoch barrier (PM lines only; a device-scope release also writes back
// volatile lines, a device-scope acquire invalidates the L1).
constexpr Prim B = Prim::EPOCH_BAR;
const IntentPrims kPrims{B, B, B, B, B, true, B, B, B, B, true};
int lower_epoch(const persim_op &op, Prim out[4]) { return lower_intent(kPrims, op, out); }
} // namespace

const PersistModel kEpochModel{"epoch", "epoch persistency: PM-only epoch barrier at every ordering point (flush, wait, invalidate PM lines)",
                               lower_epoch};
PERSIM_REGISTER(PersistModel, "epoch", kEpochModel, 10);

} // namespace persim
