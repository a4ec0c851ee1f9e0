/* persimtrace.h: client requests of the persim-vgtrace Valgrind tool (docs/real-programs.md).
 * Include it in a program to announce its persistent-memory mapping, to start/stop the recording,
 * or to record a cache-line write-back that Valgrind 3.19 cannot execute (clwb, clflushopt: VEX
 * 3.19 decodes neither and raises SIGILL). Outside Valgrind every request is a no-op costing a
 * few instructions, and PT_CLWB / PT_CLFLUSHOPT execute the real instruction. */
#ifndef PERSIMTRACE_H
#define PERSIMTRACE_H
#include <valgrind/valgrind.h>

enum {
    PT_USERREQ_PM_RANGE = VG_USERREQ_TOOL_BASE('P', 'T'), /* (addr, len): addresses in PM */
    PT_USERREQ_START,                                      /* start recording (--start=request) */
    PT_USERREQ_STOP,                                       /* stop recording */
    PT_USERREQ_FLUSH                                       /* (kind 1..3, addr): a flush */
};

#define PT_PM_RANGE(addr, len) \
    VALGRIND_DO_CLIENT_REQUEST_STMT(PT_USERREQ_PM_RANGE, (addr), (len), 0, 0, 0)
#define PT_START() VALGRIND_DO_CLIENT_REQUEST_STMT(PT_USERREQ_START, 0, 0, 0, 0, 0)
#define PT_STOP() VALGRIND_DO_CLIENT_REQUEST_STMT(PT_USERREQ_STOP, 0, 0, 0, 0, 0)

/* clwb / clflushopt of the line holding p: natively the instruction, under Valgrind a request
 * that the tool records as the same flush event (kind 3 = clwb, 2 = clflushopt). */
#define PT_CLWB(p)                                                                   \
    do {                                                                             \
        if (RUNNING_ON_VALGRIND)                                                     \
            VALGRIND_DO_CLIENT_REQUEST_STMT(PT_USERREQ_FLUSH, 3, (p), 0, 0, 0);      \
        else                                                                         \
            __asm__ volatile(".byte 0x66, 0x0f, 0xae, 0x30" ::"a"(p) : "memory");    \
    } while (0)
#define PT_CLFLUSHOPT(p)                                                             \
    do {                                                                             \
        if (RUNNING_ON_VALGRIND)                                                     \
            VALGRIND_DO_CLIENT_REQUEST_STMT(PT_USERREQ_FLUSH, 2, (p), 0, 0, 0);      \
        else                                                                         \
            __asm__ volatile(".byte 0x66, 0x0f, 0xae, 0x38" ::"a"(p) : "memory");    \
    } while (0)
#endif
