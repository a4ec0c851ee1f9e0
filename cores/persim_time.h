/* persim: time and address conventions shared by every C core.
 * Cores never keep time: callers pass timestamps in, cores return timestamps out.
 * All times are picoseconds in uint64_t (SystemC's default resolution is 1 ps). */
#ifndef PERSIM_TIME_H
#define PERSIM_TIME_H
#include <stdint.h>

typedef uint64_t persim_ps;            /* simulated time, picoseconds */
#define PERSIM_PS_PER_NS 1000ull

/* Time to move `bytes` over a pipe of `gbps` GB/s (1 GB/s == 1 byte/ns), rounded up to 1 ps. */
static inline persim_ps persim_xfer_ps(uint64_t bytes, double gbps)
{
    if (gbps <= 0.0) return 0;
    double ps = (double)bytes * 1000.0 / gbps;
    persim_ps r = (persim_ps)ps;
    return (double)r < ps ? r + 1 : r;
}

static inline persim_ps persim_max_ps(persim_ps a, persim_ps b) { return a > b ? a : b; }

#endif
