// What the SystemC tests (sc_*_test.cpp) build their runs from: a quiet run spec on a config file
// and a trace written to a temporary file. Include after "sim.h".
#pragma once
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include "sim.h"

const std::string kGpuSmall = std::string(PERSIM_SOURCE_DIR) + "/configs/gpu_small.json";
const std::string kCpuSmall = std::string(PERSIM_SOURCE_DIR) + "/configs/cpu_small.json";

// A run of `workload` at its small size (or of a trace: set s.trace, workload "") under `model` on
// `config` with the `--set` values `sets`; no files written, nothing printed.
inline persim::RunSpec small_spec(const std::string &model, const std::string &workload,
                                  const std::vector<std::string> &sets = {}, const std::string &config = kGpuSmall)
{
    persim::RunSpec s;
    s.cfg.load_file(config);
    for (const auto &kv : sets) s.cfg.set_kv(kv);
    s.model = model;
    s.workload = workload;
    s.small = true;
    s.write_files = false;
    s.quiet = true;
    return s;
}

// Writes `text` to NAME_PID.trace in the temporary directory; returns its path.
inline std::string write_trace(const std::string &name, const std::string &text)
{
    auto p = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".trace");
    std::ofstream(p) << text;
    return p.string();
}
