// Fuzz target `config`: the input is a JSON config file (Config::load_file: comments, nesting,
// keys, types, ranges). Every bad input must end in a ConfigError naming the file; anything else
// (another exception, a sanitizer report, a crash) is a defect.
#include "fuzz_util.h"
#include "config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    persim_fuzz::MemFile f(data, size);
    persim::Config c;
    try {
        c.load_file(f.path());
    } catch (const persim::ConfigError &) {
        return 0;
    }
    (void)c.resolved().dump();
    (void)c.flat().dump();
    return 0;
}
