// `persim sweep SPEC.json`: run the cross product a spec names (configs x models x workloads x
// sizes x seeds x `--set` values) as separate `persim run` processes, N at a time, skip points whose
// results exist, and collect one CSV. Spec format: docs/sweeps.md.
#pragma once

namespace persim {

// argv[1] == "sweep". Returns the exit status: 0 every point ok, 1 bad spec or option,
// 5 one or more points failed (each reported with its command line).
int sweep_main(int argc, char **argv);

} // namespace persim
