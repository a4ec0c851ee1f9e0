// The AGPM kernels (docs/workloads-agpm.md) on the GPU system (tests/sc_agpm_test.cpp tests the models): every kernel, with its CTA-level undo
// log, runs to completion under existing persistency models and its final image verifies. Each test
// case runs in its own process (SystemC elaborates once per process).
#include <gtest/gtest.h>
#include <string>
#include <tuple>
#include <vector>
#include "sim.h"
#include "sc_test_util.h"
#include "workload.h"

using namespace persim;

namespace {

std::vector<std::string> kernels()
{
    std::vector<std::string> v;
    for (const persim_workload *const *w = wl_agpm_all(); *w; ++w) v.push_back((*w)->name);
    return v;
}

} // namespace

class AgpmOnGpu : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(AgpmOnGpu, RunsAndVerifies)
{
    auto [wl, model] = GetParam();
    RunResult r = run_simulation(small_spec(model, wl));
    ASSERT_EQ(r.code, EXIT_OK) << r.status << ": " << r.message;
    EXPECT_TRUE(r.verified);
    EXPECT_GT(r.instructions, 0u);
    EXPECT_GT(r.stats["summary"]["persisted_writes"]["value"].get<double>(), 0);   // log, flags and outputs
}

INSTANTIATE_TEST_SUITE_P(Sc, AgpmOnGpu, ::testing::Combine(::testing::ValuesIn(kernels()), ::testing::Values("gpm", "nvwfifo")),
                         [](const auto &info) {
                             std::string s = std::get<0>(info.param).substr(5) + "_" + std::get<1>(info.param);
                             for (char &c : s)
                                 if (!isalnum((unsigned char)c)) c = '_';
                             return s;
                         });
