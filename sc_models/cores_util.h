// Small conversions between config units and the cores' integer picoseconds.
#pragma once
#include <cmath>
#include <cstdint>

namespace persim {
inline uint64_t ns_to_ps(double ns) { return (uint64_t)std::llround(ns * 1000.0); }
inline uint64_t cycles_to_ps(double cycles, uint64_t period_ps) { return (uint64_t)std::llround(cycles * (double)period_ps); }
} // namespace persim
