// Small conversions between config units and the cores' integer picoseconds, and the caller-owned
// state of a C core (cores/: `X_bytes(cfg)` bytes, 8-byte aligned, set up by `X_init(mem, cfg)`).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include "config.h"

namespace persim {
inline uint64_t ns_to_ps(double ns) { return (uint64_t)std::llround(ns * 1000.0); }
inline uint64_t cycles_to_ps(double cycles, uint64_t period_ps) { return (uint64_t)std::llround(cycles * (double)period_ps); }

// One C core's state, owned here: CoreState<fe_buf, fe_buf_cfg> b(cfg, fe_buf_bytes, fe_buf_init,
// "persist_path.fe_entries: ..."); b.get() is the core's handle. A configuration the core refuses
// (bytes() == 0 or init() != 0) throws ConfigError(what), which should name the keys.
template <class Core, class Cfg>
class CoreState {
public:
    CoreState(const Cfg &c, size_t (*bytes)(const Cfg *), int (*init)(void *, const Cfg *), const std::string &what)
    {
        make(c, bytes, init, what);
    }
    // Empty until make() (for a wrapper that computes the core's config in its constructor body).
    CoreState() = default;
    Core *make(const Cfg &c, size_t (*bytes)(const Cfg *), int (*init)(void *, const Cfg *), const std::string &what)
    {
        const size_t n = bytes(&c);
        if (n == 0) throw ConfigError(what);
        mem_.assign(n / 8 + 1, 0);
        if (init(mem_.data(), &c) != 0) throw ConfigError(what);
        p_ = reinterpret_cast<Core *>(mem_.data());
        return p_;
    }
    CoreState(const CoreState &) = delete;
    CoreState &operator=(const CoreState &) = delete;
    Core *get() const { return p_; }

private:
    std::vector<uint64_t> mem_;
    Core *p_ = nullptr;
};
} // namespace persim
