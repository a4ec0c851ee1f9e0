// Model `gpm`: GPM (SBRP paper section 7): epoch persistency whose barrier is __threadfence_system,
// which also drains volatile writes (flush every dirty line, wait, invalidate the L1).
#include "persist_model.h"

namespace persim {
namespace {
// Epoch's shape with __threadfence_system as the barrier; it drains volatile lines itself.
constexpr Prim B = Prim::SYS_FENCE;
const IntentPrims kPrims{B, B, B, B, B, true, B, B, B, B, false};
int lower_gpm(const persim_op &op, Prim out[4]) { return lower_intent(kPrims, op, out); }
} // namespace

const PersistModel kGpmModel{"gpm", "GPM: epoch persistency with __threadfence_system barriers that also drain volatile writes",
                             lower_gpm};
PERSIM_REGISTER(PersistModel, "gpm", kGpmModel, 20);

} // namespace persim
