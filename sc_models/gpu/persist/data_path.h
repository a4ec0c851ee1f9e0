// Shared base of the two-data-path persistency models (AGPM paper, agpm-adaptive-data-path-selection.txt;
// docs/models/agpm.md): static-nt, static-t, themis, pmem-spec, bucl and agpm. Each model is a
// policy that picks the data path of every PM store line (StorePath: T, NT, T_WB) through the
// generic L1 hook PersistHw::pm_store_path; the SM, L1 and L2 carry the paths out. The ordering
// intent is lowered the same way for all of them: `durable`, `order`, persist barriers and releases
// are Prim::PM_FLUSH (clwb every dirty PM line of the SM's L1, then wait for every PM write of the
// SM, write-backs and non-temporal stores alike), which is how the undo-logging kernels of
// section V-A persist (the log, the flag, the data) with clwb + fence.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "persist_model.h"

namespace persim {

class Gpu;

int lower_data_path(const persim_op &op, Prim out[4]);

class DataPathHw : public PersistHw {
public:
    DataPathHw(const char *model, Gpu &gpu);
    bool chooses_store_path() const override { return true; }
    StorePath pm_store_path(const PmStoreQuery &q) override;
    bool elide_pm_flush(int sm, uint32_t dirty_pm_lines) override;
    void report(StatsWriter &w, uint64_t sim_ps) override;

protected:
    // The policy: the path of one PM store line.
    virtual StorePath choose(const PmStoreQuery &q) = 0;
    // Themis: a PM_FLUSH with no dirty PM line in the L1 (only non-temporal stores outstanding) is
    // elided: the fast NT path is trusted to order them before later temporal stores.
    bool elide_ = false;
    // Model-specific statistics (called from report, same group).
    virtual void report_more(StatsWriter &, const std::string &) {}
    std::string group_;
    Gpu &gpu_;

private:
    struct {
        uint64_t log_nt = 0, log_t = 0, log_twb = 0, data_nt = 0, data_t = 0, data_twb = 0;
        uint64_t flushes = 0, elided = 0;
    } st_;
};

// A model whose policy is a pure function of the store (static-nt, static-t, themis, pmem-spec):
// the file names the function, FixedPathHw does the rest.
using PathPolicy = StorePath (*)(const PmStoreQuery &);
class FixedPathHw : public DataPathHw {
public:
    FixedPathHw(const char *model, Gpu &gpu, PathPolicy policy, bool elide = false) : DataPathHw(model, gpu), policy_(policy)
    {
        elide_ = elide;
    }

protected:
    StorePath choose(const PmStoreQuery &q) override { return policy_(q); }

private:
    PathPolicy policy_;
};

} // namespace persim
