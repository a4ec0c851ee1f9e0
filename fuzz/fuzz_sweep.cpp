// Fuzz target `sweep`: the input is a sweep spec (docs/sweeps.md), parsed, checked and expanded
// into its points as `persim sweep` does before it runs anything (sweep_check_spec; nothing is
// started). A bad spec must end in a ConfigError naming the spec.
#include "fuzz_util.h"
#include "config.h"
#include "sweep.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    persim_fuzz::MemFile f(data, size);
    try {
        (void)persim::sweep_check_spec(f.path());
    } catch (const persim::ConfigError &) {
    }
    return 0;
}
