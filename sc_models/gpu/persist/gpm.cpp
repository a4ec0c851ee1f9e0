// Model `gpm`: GPM (SBRP paper section 7): epoch persistency whose barrier is __threadfence_system,
// which also drains volatile writes (flush every dirty line, wait, invalidate the L1).
#include "persist/gpm.h"
#include "persist/epoch.h"

namespace persim {
namespace {
int lower_gpm(const persim_op &op, Prim out[4]) { return lower_epoch_like(op, out, Prim::SYS_FENCE); }
} // namespace

const PersistModel kGpmModel{"gpm", "GPM: epoch persistency with __threadfence_system barriers that also drain volatile writes",
                             lower_gpm};

} // namespace persim
