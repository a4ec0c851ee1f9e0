// Model `sbrp`: scoped buffered release persistency (sbrp-scoped-buffered-persistency-asplos23.md,
// sections 5 and 6; docs/models/sbrp.md): the lowering of ordering intent and the registration. The
// hardware is a persist buffer beside every L1 (persist/sbrp_pb_hw.cpp, wrapping cores/sbrp_pb).
#include "persist/sbrp.h"
#include "persist/sbrp_pb_hw.h"

namespace persim {

// SBRP (section 5, Box 2; section 6.1).
static int lower_sbrp(const persim_op &op, Prim out[4])
{
    int n = 0;
    switch (op.kind) {
    case OPK_ORDER:
        out[n++] = Prim::OFENCE;
        break;
    case OPK_DURABLE:
        out[n++] = Prim::DFENCE;
        break;
    case OPK_PBARRIER:
        return lower_pbarrier(op, out, Prim::DFENCE);
    case OPK_RELEASE:
        if (lower_wide(op)) {
            out[n++] = Prim::PREL_DEV;
            out[n++] = Prim::VOL_FLUSH;
        } else {
            out[n++] = Prim::PREL_BLK;
        }
        out[n++] = Prim::FLAG_STORE;
        break;
    case OPK_ACQUIRE:
        out[n++] = Prim::FLAG_WAIT;
        if (lower_wide(op)) {
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

namespace {

std::unique_ptr<L1Persist> make_l1(const Config &c, L1 &l1) { return make_sbrp_pb(c, l1); }
std::unique_ptr<PersistHw> make_hw(const Config &, Gpu &) { return make_sbrp_pb_exec(); }

} // namespace

const PersistModel kSbrpModel{"sbrp", "scoped buffered release persistency: per-SM persist buffer, oFence/dFence/pAcq/pRel",
                              lower_sbrp, make_l1, make_hw};

} // namespace persim
