/* Raw event format of the persim-vgtrace tool, shared by the tool (C, no libc) and the
 * converter (cli/trace_program.cpp). A raw file is a 32-byte header followed by 24-byte records,
 * little-endian, in the order the guest executed them (Valgrind runs one guest thread at a time,
 * so the file order is a global order of all threads' events). docs/real-programs.md. */
#ifndef PT_FORMAT_H
#define PT_FORMAT_H

#define PT_MAGIC "PSMVGT01"     /* 8 bytes at offset 0; then u64 record size (24), u64 pid, u64 0 */
#define PT_HEADER_BYTES 32
#define PT_RECORD_BYTES 24

/* One record: u8 kind, u8 size, u16 tid (thread serial: 1 = main thread, then 2, 3, ... in order of creation; Valgrind reuses its own ThreadIds), u32 gap, u64 addr, u64 val.
 * gap = guest instructions this thread executed since its previous record (the instruction that
 * made this record included; 0 for a further record of the same instruction). */
enum pt_kind {
    PT_LOAD = 1,       /* addr, size (1..32 bytes)                                         */
    PT_STORE = 2,      /* addr, size 1/2/4/8, val = stored value (wider stores: 8-byte pieces) */
    PT_STORE_NT = 3,   /* the same for a non-temporal store (movnti, movntdq, ...)         */
    PT_CAS = 4,        /* atomic compare-and-swap that stored: addr, size, val = new value (locked
                          RMW and xchg arrive as CAS in VEX)                                */
    PT_CAS_FAIL = 5,   /* CAS that did not store: val = the value read                      */
    PT_FENCE = 6,      /* Ist_MBE fence; size = 1 mfence, 2 sfence, 3 lfence, 0 other       */
    PT_FLUSH = 7,      /* cache-line flush of addr; size = 1 clflush, 2 clflushopt, 3 clwb  */
    PT_FUNC = 8,       /* call (block ended in Ijk_Call); addr = target                    */
    PT_RET = 9,        /* return (Ijk_Ret)                                                 */
    PT_LOOP = 10,      /* taken backward branch of at most 4 KiB; addr = target            */
    PT_THREAD = 11,    /* thread serial addr created by thread val (record of the parent) */
    PT_GAP = 12,       /* val more instructions of this thread (a gap that does not fit u32,
                          or the tail at exit)                                              */
    PT_LL = 13,        /* load-linked (Ist_LLSC; not on amd64): addr, size                  */
    PT_SC = 14,        /* store-conditional that succeeded: addr, size, val                 */
    PT_SC_FAIL = 15,   /* store-conditional that failed                                    */
    PT_PMRANGE = 16,   /* addr, val = length: a PM range (option, request or mmap)          */
    PT_START = 17,     /* recording (re)started                                            */
    PT_STOP = 18,      /* recording stopped (window end, request, limit)                    */
    PT_END = 19        /* last record: val = records before it; the file is complete         */
};
#endif
