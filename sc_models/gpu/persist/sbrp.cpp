// Model `sbrp`: scoped buffered release persistency (sbrp-scoped-buffered-persistency-asplos23.md,
// sections 5 and 6; docs/models/sbrp.md): the lowering of ordering intent and the registration. The
// hardware is a persist buffer beside every L1 (persist/sbrp_pb_hw.cpp, wrapping cores/sbrp_pb).
#include "persist_model.h"
#include "persist/sbrp_pb_hw.h"

namespace persim {

namespace {

// Section 5, Box 2; section 6.1: order = oFence, durable = dFence, a persist barrier is a dFence at
// every warp of its scope; releases/acquires are scoped pRel/pAcq.
const IntentPrims kPrims{Prim::OFENCE,   Prim::DFENCE,   Prim::DFENCE,   Prim::DFENCE,   Prim::DFENCE, true,
                         Prim::PREL_BLK, Prim::PREL_DEV, Prim::PACQ_BLK, Prim::PACQ_DEV, true};
int lower_sbrp(const persim_op &op, Prim out[4]) { return lower_intent(kPrims, op, out); }

std::unique_ptr<L1Persist> make_l1(const Config &c, L1 &l1) { return make_sbrp_pb(c, l1); }
std::unique_ptr<PersistHw> make_hw(const Config &, Gpu &) { return make_sbrp_pb_exec(); }

} // namespace

const PersistModel kSbrpModel{"sbrp", "scoped buffered release persistency: per-SM persist buffer, oFence/dFence/pAcq/pRel",
                              lower_sbrp, make_l1, make_hw};
PERSIM_REGISTER(PersistModel, "sbrp", kSbrpModel, 30);

} // namespace persim
