// `persim sweep SPEC.json`: run the cross product a spec names (configs x models x workloads x
// sizes x seeds x `--set` values) as separate `persim run` processes, N at a time, skip points whose
// results exist, and collect one CSV. Spec format: docs/sweeps.md.
#pragma once
#include <cstddef>
#include <string>

namespace persim {

// argv[1] == "sweep". Returns the exit status: 0 every point ok, 1 bad spec or option,
// 5 one or more points failed (each reported with its command line).
int sweep_main(int argc, char **argv);

// Parses, checks and expands the spec file as `persim sweep` does before running anything (no
// process is started): the number of points, or throws ConfigError naming the spec. The fuzz
// harness fuzz/fuzz_sweep.cpp calls it.
size_t sweep_check_spec(const std::string &path);

} // namespace persim
