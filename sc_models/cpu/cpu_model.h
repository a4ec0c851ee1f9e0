// Persistency models of the cpu system as plug-ins (docs/models/lightwsp.md, docs/models/broi.md).
// A model names its persist path (persist_path.h: the factory of its system-wide persistence, which
// makes each thread's path), the path's parameters, the controller front end it needs, and whether
// the DRAM cache is in front of PM and dirty LLC evictions are dropped. One file per model under
// sc_models/cpu/models/ defines and registers its row; the core, caches and controllers hold no model `if`.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "fe_tuning.h"
#include "persist_path.h"
#include "registry.h"
extern "C" {
#include "region_seq.h"
}

namespace persim {

struct CpuModel {
    const char *name;
    const char *desc;
    // Its persistence: make_no_persistence, make_region_persistence (RegionPath) or
    // make_pbuf_persistence (PbufPath).
    std::unique_ptr<CpuPersistence> (*persistence)(const CpuPersistEnv &);
    uint32_t path_bytes;      // bytes a store (BROI: a block) moves on the persist path
    rseq_policy policy;       // RegionPath: the end-of-region policy (cores/region_seq.h)
    bool deps;                // PbufPath: inter-thread dependencies tracked (false: broken variant)
    bool dram_cache;          // a DRAM cache in front of PM (memory mode); false: PM is main memory
    bool drop_llc_evictions;  // dirty DRAM-cache (LLC) evictions are dropped, not written to PM (IV-G)
    // The controllers' front end the model runs with and its typed settings (mem/fe_tuning.h).
    FrontEndTuning front_end;
};

// Every model registers itself in its file under sc_models/cpu/models/:
//     PERSIM_REGISTER(CpuModel, "name", kRow, order);      // order: its place in `persim list`
inline const std::vector<const CpuModel *> &all_cpu_models() { return Registry<CpuModel>::all(); }
inline const CpuModel *find_cpu_model(const std::string &name) { return Registry<CpuModel>::find(name); }

} // namespace persim
