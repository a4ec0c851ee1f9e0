// The SBRP persist buffer beside an L1 (model `sbrp`): the SystemC side of cores/sbrp_pb.{h,c}.
#pragma once
#include <memory>
#include "persist_model.h"
namespace persim {
// The PB of one L1 (an L1Persist): every PM store takes a PB entry (or coalesces into one) and leaves
// the L1 only in PB order or by a permitted eviction; oFence / dFence / pAcq / pRel are PB entries
// whose masks (ODM/EDM/FSM, ACTR) stall warps.
std::unique_ptr<L1Persist> make_sbrp_pb(const Config &c, L1 &l1);
// The SM side of the PB primitives (a PersistHw): a fence stalls its warp while the PB says so.
std::unique_ptr<PersistHw> make_sbrp_pb_exec();
} // namespace persim
