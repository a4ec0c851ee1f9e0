// Fuzz target `set`: the input is `--set key=value` arguments, one a line, applied in order as
// `persim run --set` applies them (Config::set_kv). Each bad one must end in a ConfigError.
#include "fuzz_util.h"
#include "config.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::string in(reinterpret_cast<const char *>(data), size);
    persim::Config c;
    size_t pos = 0;
    while (pos <= in.size()) {
        size_t nl = in.find('\n', pos);
        if (nl == std::string::npos) nl = in.size();
        try {
            c.set_kv(in.substr(pos, nl - pos));
        } catch (const persim::ConfigError &) {
        }
        pos = nl + 1;
    }
    (void)c.resolved().dump();
    return 0;
}
