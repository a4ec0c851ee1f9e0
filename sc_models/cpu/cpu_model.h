// Persistency models of the cpu system as plug-ins (docs/models/lightwsp.md). A model is a row of
// what the shared machinery does: whether the core forms regions, what a store puts on the persist
// path, what happens at a region boundary, which controller front end it needs, whether the DRAM
// cache is in front of PM and whether it drops dirty evictions. One file per model under
// sc_models/cpu/models/ registers its row; the core, caches and controllers hold no model `if`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace persim {

struct CpuModel {
    const char *name;
    const char *desc;
    bool regions;             // regions are formed (boundaries, checkpoint and PC stores)
    uint32_t path_bytes;      // bytes a store moves on the persist path (0: no persist path)
    enum class AtBoundary : uint8_t {
        NONE,                 // nothing (no regions)
        LAZY,                 // LightWSP LRPO: broadcast the boundary, go on (III-B)
        CORE_WAITS,           // PPA: the core waits until the region's stores are durable
        PATH_WAITS,           // Capri with several controllers: the path holds the next region until this one drained
    } at_boundary;
    const char *front_end;    // nvm.front_end the model runs with (set on a copy of the config)
    bool dram_cache;          // a DRAM cache in front of PM (memory mode); false: PSP without one
    bool drop_llc_evictions;  // dirty DRAM-cache (LLC) evictions are dropped, not written to PM (IV-G)
    bool ungated;             // the controllers' WPQ gate is disabled (broken variant for crash checks)
    // BROI (broi-persistence-parallelism.md): `order` ends a barrier epoch, whose barrier follows
    // the epoch's persists on the path to the controller (IV-C); the persist buffer records
    // inter-thread dependencies (persist-persist, epoch-persist, IV-C 1) and releases an entry only
    // when they are resolved; entries are freed by the controller's acknowledgement.
    bool barriers = false;
    bool deps = false;
    const char *sets = "";    // further configuration the model runs with ("key=value;key=value")
};

// One per file under sc_models/cpu/models/ (defined there, listed in cpu_model.cpp).
extern const CpuModel kCpuNone, kCpuLightwsp, kCpuLightwspUngated, kCpuPpa, kCpuCapri, kCpuPsp;
extern const CpuModel kCpuBroi, kCpuBroiEpoch, kCpuBroiEpoch1q, kCpuBroiNodeps;

const std::vector<const CpuModel *> &all_cpu_models();     // sc_models/cpu/cpu_model.cpp
const CpuModel *find_cpu_model(const std::string &name);

} // namespace persim
