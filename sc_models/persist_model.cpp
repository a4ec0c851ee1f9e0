#include "persist_model.h"

namespace persim {
namespace {

bool wide(const persim_op &op) { return op.scope >= SCOPE_DEVICE; }

// Epoch persistency (SBRP paper sections 4 and 7, "Epoch"): every ordering point is an epoch
// barrier that only affects PM writes.
int lower_epoch_like(const persim_op &op, Prim out[4], Prim bar)
{
    int n = 0;
    switch (op.kind) {
    case OPK_ORDER:
    case OPK_DURABLE:
    case OPK_PBARRIER:
        out[n++] = bar;
        break;
    case OPK_RELEASE:
        out[n++] = bar;
        if (wide(op) && bar != Prim::SYS_FENCE) out[n++] = Prim::VOL_FLUSH;
        out[n++] = Prim::FLAG_STORE;
        break;
    case OPK_ACQUIRE:
        out[n++] = Prim::FLAG_WAIT;
        out[n++] = bar;
        if (wide(op) && bar != Prim::SYS_FENCE) out[n++] = Prim::L1_INV;
        break;
    case OPK_SYNC:
        out[n++] = Prim::SYNC;
        break;
    default:
        break;
    }
    return n;
}

int lower_epoch(const persim_op &op, Prim out[4]) { return lower_epoch_like(op, out, Prim::EPOCH_BAR); }
// GPM: the barrier is __threadfence_system, which also drains volatile writes (section 7).
int lower_gpm(const persim_op &op, Prim out[4]) { return lower_epoch_like(op, out, Prim::SYS_FENCE); }

// SBRP (section 5, Box 2; section 6.1).
int lower_sbrp(const persim_op &op, Prim out[4])
{
    int n = 0;
    switch (op.kind) {
    case OPK_ORDER:
        out[n++] = Prim::OFENCE;
        break;
    case OPK_DURABLE:
    case OPK_PBARRIER:
        out[n++] = Prim::DFENCE;
        break;
    case OPK_RELEASE:
        if (wide(op)) {
            out[n++] = Prim::PREL_DEV;
            out[n++] = Prim::VOL_FLUSH;
        } else {
            out[n++] = Prim::PREL_BLK;
        }
        out[n++] = Prim::FLAG_STORE;
        break;
    case OPK_ACQUIRE:
        out[n++] = Prim::FLAG_WAIT;
        if (wide(op)) {
            out[n++] = Prim::PACQ_DEV;
            out[n++] = Prim::L1_INV;
        } else {
            out[n++] = Prim::PACQ_BLK;
        }
        break;
    case OPK_SYNC:
        out[n++] = Prim::SYNC;
        break;
    default:
        break;
    }
    return n;
}

const PersistModel kEpoch{"epoch", "epoch persistency: PM-only epoch barrier at every ordering point (flush, wait, invalidate PM lines)", false, lower_epoch};
const PersistModel kGpm{"gpm", "GPM: epoch persistency with __threadfence_system barriers that also drain volatile writes", false, lower_gpm};
const PersistModel kSbrp{"sbrp", "scoped buffered release persistency: per-SM persist buffer, oFence/dFence/pAcq/pRel", true, lower_sbrp};

} // namespace

const std::vector<const PersistModel *> &all_models()
{
    static const std::vector<const PersistModel *> v = {&kEpoch, &kGpm, &kSbrp};
    return v;
}

const PersistModel *find_model(const std::string &name)
{
    for (auto *m : all_models())
        if (name == m->name) return m;
    return nullptr;
}

const char *prim_name(Prim p)
{
    static const char *n[] = {"ofence", "dfence", "pacq_blk", "prel_blk", "pacq_dev", "prel_dev", "epoch_bar",
                              "sys_fence", "vol_flush", "l1_inv", "flag_store", "flag_wait", "sync"};
    return n[(int)p];
}

} // namespace persim
