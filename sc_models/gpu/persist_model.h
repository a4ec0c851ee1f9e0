// Persistency models: each lowers a workload's ordering intent (workloads/op.h) to the hardware
// primitives the SM and L1 execute. Adding a model = adding a row to the table in
// persist_model.cpp (and, if it needs new hardware, primitives handled by sm.cpp / l1.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>
extern "C" {
#include "op.h"
}

namespace persim {

enum class Prim : uint8_t {
    OFENCE,        // SBRP oFence (PB order entry, no stall)
    DFENCE,        // SBRP dFence (stall until the warp's persists are durable)
    PACQ_BLK,      // SBRP block-scope persist acquire (PB entry, no stall)
    PREL_BLK,      // SBRP block-scope persist release (PB entry, no stall)
    PACQ_DEV,      // SBRP device-scope persist acquire (stall until ACTR == 0)
    PREL_DEV,      // SBRP device-scope persist release (stall until the warp's persists are durable)
    EPOCH_BAR,     // epoch barrier: flush the SM's dirty PM lines, wait for acks, invalidate PM lines
    SYS_FENCE,     // GPM: __threadfence_system as a barrier: flush all dirty lines (PM and volatile),
                   // wait for acks, invalidate the L1
    VOL_FLUSH,     // write back dirty volatile lines and wait (device-scope release visibility)
    L1_INV,        // invalidate clean L1 lines (device-scope acquire)
    FLAG_STORE,    // write the release flag and publish it at the op's scope
    FLAG_WAIT,     // spin until the acquire flag holds the value (visible at the op's scope)
    SYNC,          // execution barrier at the op's scope
    // NVW-FIFO persist barriers (model nvwfifo, sc_models/nvw.h; scoped-barriers paper section 6.1)
    NVW_WI,        // p_barrier_wi: p_flush marker into the CU's L1 NVW-FIFO, the issuing warp waits
    NVW_WG,        // p_barrier_wg: wait for the whole block, then marker into the L1 FIFO, block waits
    NVW_KR,        // p_barrier_kr: wait for the whole kernel, markers into every L1 FIFO, all wait
    NVW_ALL,       // markers into every L1 FIFO, only the issuing warp waits (device-scope release)
};
constexpr int kPrimCount = (int)Prim::NVW_ALL + 1;

struct PersistModel {
    const char *name;
    const char *desc;
    bool uses_pb;          // per-SM SBRP persist buffer in the L1
    // Lowers one intent op; returns the number of primitives written to out (<= 4).
    int (*lower)(const persim_op &op, Prim out[4]);
    bool uses_nvw = false; // NVW-FIFOs beside the L1s and the L2, PM write-back in the L2 (nvwfifo)
};

const PersistModel *find_model(const std::string &name);
const std::vector<const PersistModel *> &all_models();
const char *prim_name(Prim p);
// Rewrites every block-scope RELEASE/ACQUIRE of the program to device scope (config key
// persist.promote_block_scope; SBRP section 7.2 "Importance of scopes"). Execution barriers
// (SYNC) keep their scope. Returns the number of ops changed.
uint64_t promote_block_scope(persim_prog *p);

} // namespace persim
