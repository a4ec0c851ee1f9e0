// `persim device`: the published Optane DC PMM microbenchmarks on the pm_dimm device
// (cli/device.cpp; results/optane/, docs/models/nvm-device.md).
#pragma once

namespace persim {

// argv[1] == "device". Returns the exit status: 0 ok, 1 bad option or configuration.
int device_main(int argc, char **argv);

} // namespace persim
