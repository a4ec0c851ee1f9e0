/* persim-vgtrace: a Valgrind tool that records, per guest thread, the memory accesses with stored
 * values, instruction counts between them, fences, atomics, cache-line flushes, non-temporal
 * stores and call/return/loop markers, as binary records (pt_format.h) for persim's converter
 * (`persim trace-program`, cli/trace_program.cpp). docs/real-programs.md.
 *
 * How VEX (Valgrind 3.19) shows what we record:
 *  - loads/stores: Iex_Load / Ist_Store / Ist_LoadG / Ist_StoreG; values of wider stores are cut
 *    into 8-byte pieces (V128, V256).
 *  - mfence/sfence/lfence: Ist_MBE(Imbe_Fence) for all three; which one is read from the
 *    instruction bytes at the IMark.
 *  - lock-prefixed RMW and xchg: Ist_CAS (the RMW is a load, ALU ops and a CAS that loops back on
 *    failure). Ist_LLSC does not occur on amd64 but is recorded.
 *  - clflush: no IR event of its own: the front end ends the block with Ijk_InvalICache after
 *    PUT(CMSTART) = And64(addr, ~0xFF) and PUT(CMLEN) = 256. We recognise the instruction from
 *    its bytes and take the address from the And64 operand.
 *  - clflushopt (66 0F AE /7) and clwb (66 0F AE /6): VEX 3.19 does not decode them (SIGILL);
 *    programs use the PT_CLWB / PT_CLFLUSHOPT client requests (persimtrace.h), and PMDK is run
 *    with PMEM_NO_CLWB=1 PMEM_NO_CLFLUSHOPT=1 so that it flushes with clflush.
 *  - non-temporal stores: ordinary Ist_Store; recognised from the opcode (0F C3 movnti, 0F 2B
 *    movntps/pd, 0F E7 movntq/movntdq, VEX-encoded 2B/E7).
 *  - calls/returns: the block's jump kind Ijk_Call / Ijk_Ret.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "libvex_guest_amd64.h"
#include "valgrind.h"
#include "pt_format.h"
#include "persimtrace.h"

/* ---------------------------------------------------------------- options */
static const HChar *clo_out = "persimtrace.%p.raw";
static Bool clo_loads = True;      /* record loads                                     */
static Bool clo_marks = True;      /* record call/return/loop markers                  */
static const HChar *clo_pm_file = NULL;  /* mmap of a file whose path contains this = PM */
static const HChar *clo_start = "yes";   /* yes | request                               */
static Long clo_skip = 0;          /* instructions (all threads) before recording starts */
static Long clo_max_instrs = 0;    /* stop after this many instructions recorded (0 = no) */
static Long clo_max_events = 0;    /* stop after this many records (0 = no limit)        */
static Long clo_sample_on = 0, clo_sample_period = 0;   /* record ON of every PERIOD instrs */

#define MAX_RANGES 32
static Addr pm_lo[MAX_RANGES], pm_hi[MAX_RANGES];
static Int n_ranges = 0;

static Bool add_range(Addr lo, Addr hi);

static Bool parse_range(const HChar *s)
{
    HChar *e;
    ULong lo = VG_(strtoull16)(s, &e);
    if (*e != '-' && *e != ':') return False;
    Bool len = *e == ':';
    ULong hi = VG_(strtoull16)(e + 1, &e);
    if (*e) return False;
    if (len) hi += lo;
    return hi > lo && add_range(lo, hi);
}

static Bool pt_process_cmd_line_option(const HChar *arg)
{
    const HChar *s;
    if VG_STR_CLO(arg, "--out", clo_out) {}
    else if VG_BOOL_CLO(arg, "--loads", clo_loads) {}
    else if VG_BOOL_CLO(arg, "--marks", clo_marks) {}
    else if VG_STR_CLO(arg, "--pm-file", clo_pm_file) {}
    else if VG_STR_CLO(arg, "--start", clo_start) {
        if (VG_(strcmp)(clo_start, "yes") && VG_(strcmp)(clo_start, "request")) {
            VG_(fmsg_bad_option)(arg, "--start takes yes or request\n");
        }
    }
    else if VG_STR_CLO(arg, "--pm-range", s) {
        if (!parse_range(s)) VG_(fmsg_bad_option)(arg, "expected --pm-range=LO-HI or LO:LEN (hex)\n");
    }
    else if VG_BINT_CLO(arg, "--skip-instrs", clo_skip, 0, 0x7fffffffffffffffLL) {}
    else if VG_BINT_CLO(arg, "--max-instrs", clo_max_instrs, 0, 0x7fffffffffffffffLL) {}
    else if VG_BINT_CLO(arg, "--max-events", clo_max_events, 0, 0x7fffffffffffffffLL) {}
    else if VG_STR_CLO(arg, "--sample", s) {
        HChar *e;
        clo_sample_on = VG_(strtoll10)(s, &e);
        if (*e != '/') VG_(fmsg_bad_option)(arg, "expected --sample=ON/PERIOD (instructions)\n");
        clo_sample_period = VG_(strtoll10)(e + 1, &e);
        if (*e || clo_sample_on <= 0 || clo_sample_period < clo_sample_on)
            VG_(fmsg_bad_option)(arg, "expected --sample=ON/PERIOD with 0 < ON <= PERIOD\n");
    }
    else return False;
    return True;
}

static void pt_print_usage(void)
{
    VG_(printf)(
        "    --out=FILE               raw event file [persimtrace.%%p.raw]\n"
        "    --pm-range=LO-HI|LO:LEN  (hex) only accesses in this range are PM (repeatable);\n"
        "                             default: every address (whole-system persistence)\n"
        "    --pm-file=SUBSTR         an mmap of a file whose path contains SUBSTR is a PM range\n"
        "    --loads=no|yes           record loads [yes]\n"
        "    --marks=no|yes           record call/return/backward-branch markers [yes]\n"
        "    --start=yes|request      record from the start, or from PT_START() [yes]\n"
        "    --skip-instrs=N          start after N guest instructions (all threads) [0]\n"
        "    --max-instrs=N           stop after N recorded instructions [0 = no limit]\n"
        "    --max-events=N           stop after N records [0 = no limit]\n"
        "    --sample=ON/PERIOD       record ON of every PERIOD instructions [all]\n");
}

static void pt_print_debug_usage(void) {}

/* ---------------------------------------------------------------- output buffer */
#define BUF_RECORDS (1 << 16)
typedef struct {
    UChar kind, size;
    UShort tid;
    UInt gap;
    ULong addr, val;
} Rec;
STATIC_ASSERT(sizeof(Rec) == PT_RECORD_BYTES);

static Rec *buf;
static Int nbuf = 0;
static Int out_fd = -1;
static ULong n_records = 0;

static void flush_buf(void)
{
    if (nbuf && out_fd >= 0) {
        const UChar *p = (const UChar *)buf;
        Int left = nbuf * (Int)sizeof(Rec);
        while (left > 0) {
            Int w = VG_(write)(out_fd, p, left);
            if (w <= 0) {
                VG_(umsg)("persim-vgtrace: write to the raw file failed; recording stops\n");
                VG_(close)(out_fd);
                out_fd = -1;
                break;
            }
            p += w;
            left -= w;
        }
    }
    nbuf = 0;
}

/* ---------------------------------------------------------------- instruction accounting
 * g_icount counts guest instructions of all threads (inline IR adds, or the helpers' n
 * argument). Valgrind runs one thread at a time; on a switch the running thread's share is
 * moved into its own counter, so th_icount(t) is the instructions thread t executed. */
#define MAX_THREADS 1024
static ULong g_icount = 0;
static ULong seg_start = 0;        /* g_icount when the current thread started running */
static ThreadId cur_tid = 1;
static ULong th_acc[MAX_THREADS];  /* instructions of each thread before its current run */
static ULong th_last[MAX_THREADS]; /* th_icount at the thread's previous record          */
/* Valgrind reuses a ThreadId after the thread exits: records carry a serial number instead
 * (1 = the main thread, then 2, 3, ... in order of creation) */
static UShort th_serial[MAX_THREADS];
static UShort next_serial = 1;
static inline UShort serial_of(ThreadId t) { return t < MAX_THREADS && th_serial[t] ? th_serial[t] : (UShort)t; }

static Bool recording = False;     /* the window/sample/request state allows records       */
static Bool stopped = False;       /* a limit was hit: never records again                 */
static Bool req_on = True;         /* --start=request: PT_START / PT_STOP                  */
static ULong rec_instrs = 0;       /* instructions while recording (for --max-instrs)      */
static ULong win_last = 0;         /* g_icount when the window state was last evaluated     */

static void switch_to(ThreadId tid)
{
    if (tid == cur_tid) return;
    if (cur_tid < MAX_THREADS) th_acc[cur_tid] += g_icount - seg_start;
    seg_start = g_icount;
    cur_tid = tid;
}

static void pt_start_client_code(ThreadId tid, ULong blocks)
{
    (void)blocks;
    switch_to(tid);
}

static inline ULong th_icount(void) { return th_acc[cur_tid] + (g_icount - seg_start); }

static void put(UChar kind, UChar size, ULong addr, ULong val)
{
    ULong now = th_icount();
    ULong gap = now - th_last[cur_tid];
    th_last[cur_tid] = now;
    if (gap > 0xffffffffULL) {
        Rec *g = &buf[nbuf++];
        g->kind = PT_GAP; g->size = 0; g->tid = serial_of(cur_tid); g->gap = 0; g->addr = 0; g->val = gap;
        gap = 0;
        n_records++;
        if (nbuf == BUF_RECORDS) flush_buf();
    }
    Rec *r = &buf[nbuf++];
    r->kind = kind; r->size = size; r->tid = serial_of(cur_tid); r->gap = (UInt)gap;
    r->addr = addr; r->val = val;
    n_records++;
    if (nbuf == BUF_RECORDS) flush_buf();
}

static void stop_for_good(void)
{
    if (stopped) return;
    if (recording) put(PT_STOP, 0, 0, 0);
    recording = False;
    stopped = True;
}

/* Evaluates the window (--skip-instrs, --sample, --max-instrs, requests); called from each
 * helper after g_icount was brought up to date. Cheap when nothing changes. */
static void update_window(void)
{
    if (stopped) return;
    ULong g = g_icount;
    if (recording) rec_instrs += g - win_last;
    win_last = g;
    Bool on = req_on && g >= (ULong)clo_skip;
    if (on && clo_sample_period) on = ((g - clo_skip) % (ULong)clo_sample_period) < (ULong)clo_sample_on;
    if (clo_max_instrs && rec_instrs >= (ULong)clo_max_instrs) {
        stop_for_good();
        return;
    }
    if (clo_max_events && n_records >= (ULong)clo_max_events) {
        stop_for_good();
        return;
    }
    if (on != recording) {
        ThreadId t = VG_(get_running_tid)();
        if (t != VG_INVALID_THREADID) switch_to(t);
        if (on) {
            /* a new window: every thread's gap is counted from here */
            for (ThreadId t = 1; t < MAX_THREADS; t++) th_last[t] = th_acc[t];
            th_last[cur_tid] = th_icount();
            recording = True;
            put(PT_START, 0, 0, 0);
        } else {
            put(PT_STOP, 0, 0, 0);
            recording = False;
        }
    }
}

static inline Bool in_pm(Addr a)
{
    if (n_ranges == 0) return True;
    for (Int i = 0; i < n_ranges; i++)
        if (a >= pm_lo[i] && a < pm_hi[i]) return True;
    return False;
}

static Bool add_range(Addr lo, Addr hi)
{
    for (Int i = 0; i < n_ranges; i++)
        if (pm_lo[i] == lo && pm_hi[i] == hi) return True;
    if (n_ranges == MAX_RANGES) return False;
    pm_lo[n_ranges] = lo;
    pm_hi[n_ranges] = hi;
    n_ranges++;
    if (buf && out_fd >= 0) put(PT_PMRANGE, 0, lo, hi - lo);
    return True;
}

/* Common helper prologue: account n instructions, follow thread switches, window. */
static inline Bool enter(ULong n)
{
    g_icount += n;
    ThreadId t = VG_(get_running_tid)();
    if (t != cur_tid) switch_to(t);
    update_window();
    if (recording && clo_max_events && n_records >= (ULong)clo_max_events) stop_for_good();
    return recording;
}

/* ---------------------------------------------------------------- helpers (called from IR) */
static VG_REGPARM(3) void h_load(Addr a, ULong size, ULong n)
{
    if (enter(n) && in_pm(a)) put(PT_LOAD, (UChar)size, a, 0);
}

/* size_kind = size | kind << 8 */
static VG_REGPARM(3) void h_store(Addr a, ULong v, ULong size_kind_n)
{
    ULong n = size_kind_n >> 16;
    if (enter(n) && in_pm(a)) put((UChar)((size_kind_n >> 8) & 0xff), (UChar)(size_kind_n & 0xff), a, v);
}

static void h_cas(Addr a, ULong size_n, ULong expd, ULong newv, ULong old)
{
    ULong size = size_n & 0xff;
    if (!enter(size_n >> 8)) return;
    ULong mask = size >= 8 ? ~0ULL : ((1ULL << (8 * size)) - 1);
    if ((old & mask) == (expd & mask)) put(PT_CAS, (UChar)size, a, newv & mask);
    else put(PT_CAS_FAIL, (UChar)size, a, old & mask);
}

static void h_llsc(Addr a, ULong kind_size_n, ULong v, ULong ok)
{
    ULong kind = (kind_size_n >> 8) & 0xff, size = kind_size_n & 0xff;
    if (!enter(kind_size_n >> 16)) return;
    if (kind == PT_LL) put(PT_LL, (UChar)size, a, 0);
    else put((ok & 1) ? PT_SC : PT_SC_FAIL, (UChar)size, a, v);
}

static VG_REGPARM(2) void h_event(ULong kind_size_n, Addr a)
{
    if (enter(kind_size_n >> 16))
        put((UChar)((kind_size_n >> 8) & 0xff), (UChar)(kind_size_n & 0xff), a, 0);
}

static VG_REGPARM(1) void h_count(ULong n)
{
    enter(n);
}

/* ---------------------------------------------------------------- instruction decoding */
enum { IC_PLAIN, IC_NT, IC_CLFLUSH, IC_CLFLUSHOPT, IC_CLWB, IC_MFENCE, IC_SFENCE, IC_LFENCE };

static Int classify(Addr pc, UInt len)
{
    const UChar *p = (const UChar *)pc, *e = p + len;
    Bool has66 = False;
    while (p < e) {
        UChar b = *p;
        if (b == 0x66) has66 = True;
        else if (!(b == 0xF2 || b == 0xF3 || b == 0xF0 || b == 0x2E || b == 0x3E || b == 0x26 ||
                   b == 0x64 || b == 0x65 || b == 0x36 || b == 0x67))
            break;
        p++;
    }
    if (p < e && (*p & 0xF0) == 0x40) p++;   /* REX */
    if (p >= e) return IC_PLAIN;
    if (*p == 0xC5 && p + 2 < e) return (p[2] == 0x2B || p[2] == 0xE7) ? IC_NT : IC_PLAIN;
    if (*p == 0xC4 && p + 3 < e) return ((p[1] & 0x1F) == 1 && (p[3] == 0x2B || p[3] == 0xE7)) ? IC_NT : IC_PLAIN;
    if (*p != 0x0F || p + 1 >= e) return IC_PLAIN;
    UChar op = p[1];
    if (op == 0xC3 || op == 0x2B || op == 0xE7) return IC_NT;
    if (op == 0xAE && p + 2 < e) {
        UChar m = p[2], mod = m >> 6, reg = (m >> 3) & 7;
        if (mod == 3) return reg == 6 ? IC_MFENCE : reg == 7 ? IC_SFENCE : reg == 5 ? IC_LFENCE : IC_PLAIN;
        if (reg == 7) return has66 ? IC_CLFLUSHOPT : IC_CLFLUSH;
        if (reg == 6 && has66) return IC_CLWB;
    }
    return IC_PLAIN;
}

/* ---------------------------------------------------------------- instrumentation */
typedef struct {
    IRSB *sb;
    ULong pending;     /* IMarks seen in this block and not yet accounted */
} Ctx;

static IRExpr *widen64(Ctx *c, IRExpr *e, IRType ty)
{
    IROp op;
    switch (ty) {
    case Ity_I64: return e;
    case Ity_I8: op = Iop_8Uto64; break;
    case Ity_I16: op = Iop_16Uto64; break;
    case Ity_I32: op = Iop_32Uto64; break;
    case Ity_I1: op = Iop_1Uto64; break;
    case Ity_F64: op = Iop_ReinterpF64asI64; break;
    case Ity_F32: {
        IRTemp t = newIRTemp(c->sb->tyenv, Ity_I32);
        addStmtToIRSB(c->sb, IRStmt_WrTmp(t, IRExpr_Unop(Iop_ReinterpF32asI32, e)));
        e = IRExpr_RdTmp(t);
        op = Iop_32Uto64;
        break;
    }
    default: return NULL;
    }
    IRTemp t = newIRTemp(c->sb->tyenv, Ity_I64);
    addStmtToIRSB(c->sb, IRStmt_WrTmp(t, IRExpr_Unop(op, e)));
    return IRExpr_RdTmp(t);
}

static IRExpr *tmp_of(Ctx *c, IRExpr *e, IRType ty)
{
    IRTemp t = newIRTemp(c->sb->tyenv, ty);
    addStmtToIRSB(c->sb, IRStmt_WrTmp(t, e));
    return IRExpr_RdTmp(t);
}

static void add_dirty(Ctx *c, IRDirty *d, IRExpr *guard)
{
    if (guard) d->guard = guard;
    addStmtToIRSB(c->sb, IRStmt_Dirty(d));
}

static ULong take_pending(Ctx *c)
{
    ULong n = c->pending;
    c->pending = 0;
    return n;
}

static void ins_load(Ctx *c, IRExpr *addr, Int size, IRExpr *guard)
{
    if (!clo_loads) return;
    /* with a guard the instruction count must not depend on it: count unconditionally first */
    ULong n = take_pending(c);
    if (guard && n) {
        add_dirty(c, unsafeIRDirty_0_N(1, "h_count", VG_(fnptr_to_fnentry)(h_count), mkIRExprVec_1(mkIRExpr_HWord(n))), NULL);
        n = 0;
    }
    IRDirty *d = unsafeIRDirty_0_N(3, "h_load", VG_(fnptr_to_fnentry)(h_load),
                                   mkIRExprVec_3(addr, IRExpr_Const(IRConst_U64(size)), IRExpr_Const(IRConst_U64(n))));
    add_dirty(c, d, guard);
}

static void ins_store_piece(Ctx *c, IRExpr *addr, IRExpr *v64, Int size, Int kind, IRExpr *guard)
{
    ULong n = take_pending(c);
    if (guard && n) {
        add_dirty(c, unsafeIRDirty_0_N(1, "h_count", VG_(fnptr_to_fnentry)(h_count), mkIRExprVec_1(mkIRExpr_HWord(n))), NULL);
        n = 0;
    }
    IRDirty *d = unsafeIRDirty_0_N(3, "h_store", VG_(fnptr_to_fnentry)(h_store),
                                   mkIRExprVec_3(addr, v64, IRExpr_Const(IRConst_U64((ULong)size | (ULong)kind << 8 | n << 16))));
    add_dirty(c, d, guard);
}

static void ins_store(Ctx *c, IRExpr *addr, IRExpr *data, Int kind, IRExpr *guard)
{
    IRType ty = typeOfIRExpr(c->sb->tyenv, data);
    Int size = sizeofIRType(ty);
    if (ty == Ity_V128 || ty == Ity_V256 || ty == Ity_I128 || ty == Ity_F128 || ty == Ity_D128) {
        Int pieces = size / 8;
        for (Int i = 0; i < pieces; i++) {
            IRExpr *v;
            if (ty == Ity_V128) v = tmp_of(c, IRExpr_Unop(i == 0 ? Iop_V128to64 : Iop_V128HIto64, data), Ity_I64);
            else if (ty == Ity_V256) {
                IROp ops[4] = { Iop_V256to64_0, Iop_V256to64_1, Iop_V256to64_2, Iop_V256to64_3 };
                v = tmp_of(c, IRExpr_Unop(ops[i], data), Ity_I64);
            } else if (ty == Ity_I128) v = tmp_of(c, IRExpr_Unop(i == 0 ? Iop_128to64 : Iop_128HIto64, data), Ity_I64);
            else v = IRExpr_Const(IRConst_U64(0));   /* F128/D128: value not recorded */
            IRExpr *a = i == 0 ? addr : tmp_of(c, IRExpr_Binop(Iop_Add64, addr, IRExpr_Const(IRConst_U64(8 * i))), Ity_I64);
            ins_store_piece(c, a, v, 8, kind, guard);
        }
        return;
    }
    IRExpr *v = widen64(c, data, ty);
    if (!v) v = IRExpr_Const(IRConst_U64(0));
    ins_store_piece(c, addr, v, size, kind, guard);
}

static void ins_event(Ctx *c, Int kind, Int size, IRExpr *addr, IRExpr *guard)
{
    ULong n = take_pending(c);
    if (guard && n) {
        add_dirty(c, unsafeIRDirty_0_N(1, "h_count", VG_(fnptr_to_fnentry)(h_count), mkIRExprVec_1(mkIRExpr_HWord(n))), NULL);
        n = 0;
    }
    IRDirty *d = unsafeIRDirty_0_N(2, "h_event", VG_(fnptr_to_fnentry)(h_event),
                                   mkIRExprVec_2(IRExpr_Const(IRConst_U64((ULong)size | (ULong)kind << 8 | n << 16)),
                                                 addr ? addr : IRExpr_Const(IRConst_U64(0))));
    add_dirty(c, d, guard);
}

/* Accounts the pending instructions inline (no helper call): g_icount += n, guarded or not. */
static void ins_count_inline(Ctx *c, IRExpr *guard)
{
    if (!c->pending) return;
    ULong n = guard ? c->pending : take_pending(c);
    IRExpr *ga = mkIRExpr_HWord((HWord)&g_icount);
    IRExpr *old = tmp_of(c, IRExpr_Load(Iend_LE, Ity_I64, ga), Ity_I64);
    IRExpr *nw = tmp_of(c, IRExpr_Binop(Iop_Add64, old, IRExpr_Const(IRConst_U64(n))), Ity_I64);
    if (guard) addStmtToIRSB(c->sb, IRStmt_StoreG(Iend_LE, ga, nw, guard));
    else addStmtToIRSB(c->sb, IRStmt_Store(Iend_LE, ga, nw));
}

static IRSB *pt_instrument(VgCallbackClosure *closure, IRSB *sbIn, const VexGuestLayout *layout,
                           const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
                           IRType gWordTy, IRType hWordTy)
{
    (void)closure; (void)layout; (void)vge; (void)archinfo_host; (void)hWordTy;
    if (gWordTy != Ity_I64) VG_(tool_panic)("persim-vgtrace: 64-bit guests only");
    Ctx c;
    c.sb = deepCopyIRSBExceptStmts(sbIn);
    c.pending = 0;
    Int i = 0;
    while (i < sbIn->stmts_used && sbIn->stmts[i]->tag != Ist_IMark) addStmtToIRSB(c.sb, sbIn->stmts[i++]);

    Int icls = IC_PLAIN;
    Addr ipc = 0;
    /* tmp -> operand of And64(X, 0x..FF00) (clflush address before VEX rounds it to 256) */
    IRExpr *and_src_tmp_expr = NULL;
    IRTemp and_dst = IRTemp_INVALID;

    for (; i < sbIn->stmts_used; i++) {
        IRStmt *st = sbIn->stmts[i];
        if (!st || st->tag == Ist_NoOp) continue;
        switch (st->tag) {
        case Ist_IMark:
            c.pending++;
            ipc = (Addr)st->Ist.IMark.addr;
            icls = classify(ipc, st->Ist.IMark.len);
            and_dst = IRTemp_INVALID;
            addStmtToIRSB(c.sb, st);
            break;
        case Ist_WrTmp: {
            IRExpr *e = st->Ist.WrTmp.data;
            addStmtToIRSB(c.sb, st);
            if (e->tag == Iex_Load) ins_load(&c, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), NULL);
            if ((icls == IC_CLFLUSH || icls == IC_CLFLUSHOPT || icls == IC_CLWB) && e->tag == Iex_Binop &&
                e->Iex.Binop.op == Iop_And64 && e->Iex.Binop.arg2->tag == Iex_Const) {
                and_dst = st->Ist.WrTmp.tmp;
                and_src_tmp_expr = e->Iex.Binop.arg1;
            }
            break;
        }
        case Ist_Put:
            addStmtToIRSB(c.sb, st);
            if ((icls == IC_CLFLUSH || icls == IC_CLFLUSHOPT || icls == IC_CLWB) &&
                st->Ist.Put.offset == (Int)offsetof(VexGuestAMD64State, guest_CMSTART)) {
                IRExpr *d = st->Ist.Put.data, *a = d;
                if (d->tag == Iex_RdTmp && d->Iex.RdTmp.tmp == and_dst && and_src_tmp_expr) a = and_src_tmp_expr;
                if (d->tag == Iex_Binop && d->Iex.Binop.op == Iop_And64) a = d->Iex.Binop.arg1;
                if (!isIRAtom(a)) a = tmp_of(&c, a, Ity_I64);
                ins_event(&c, PT_FLUSH, icls == IC_CLFLUSH ? 1 : icls == IC_CLFLUSHOPT ? 2 : 3, a, NULL);
                icls = IC_PLAIN;
            }
            break;
        case Ist_Store:
            addStmtToIRSB(c.sb, st);
            ins_store(&c, st->Ist.Store.addr, st->Ist.Store.data, icls == IC_NT ? PT_STORE_NT : PT_STORE, NULL);
            break;
        case Ist_StoreG: {
            IRStoreG *sg = st->Ist.StoreG.details;
            addStmtToIRSB(c.sb, st);
            ins_store(&c, sg->addr, sg->data, icls == IC_NT ? PT_STORE_NT : PT_STORE, sg->guard);
            break;
        }
        case Ist_LoadG: {
            IRLoadG *lg = st->Ist.LoadG.details;
            IRType ty = Ity_INVALID, ty2 = Ity_INVALID;
            typeOfIRLoadGOp(lg->cvt, &ty, &ty2);
            addStmtToIRSB(c.sb, st);
            ins_load(&c, lg->addr, sizeofIRType(ty2), lg->guard);
            break;
        }
        case Ist_Dirty: {
            IRDirty *d = st->Ist.Dirty.details;
            addStmtToIRSB(c.sb, st);
            if (d->mFx != Ifx_None && d->mAddr) {
                Int sz = d->mSize > 255 ? 255 : d->mSize;
                if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify) ins_load(&c, d->mAddr, sz, d->guard);
                if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify) {
                    /* value unknown (a helper wrote it, e.g. FXSAVE): recorded as a zero store */
                    Int left = d->mSize;
                    for (Int k = 0; left > 0 && k < 64; k++, left -= 8) {
                        IRExpr *a = k == 0 ? d->mAddr : tmp_of(&c, IRExpr_Binop(Iop_Add64, d->mAddr, IRExpr_Const(IRConst_U64(8 * k))), Ity_I64);
                        ins_store_piece(&c, a, IRExpr_Const(IRConst_U64(0)), left >= 8 ? 8 : left, PT_STORE, d->guard);
                    }
                }
            }
            break;
        }
        case Ist_CAS: {
            IRCAS *cas = st->Ist.CAS.details;
            addStmtToIRSB(c.sb, st);
            IRType ty = typeOfIRExpr(c.sb->tyenv, cas->dataLo);
            Int size = sizeofIRType(ty) * (cas->dataHi ? 2 : 1);
            IRExpr *e = widen64(&c, cas->expdLo, ty), *nv = widen64(&c, cas->dataLo, ty);
            IRExpr *old = widen64(&c, IRExpr_RdTmp(cas->oldLo), ty);
            if (!e || !nv || !old) break;
            ULong n = take_pending(&c);
            IRDirty *d = unsafeIRDirty_0_N(0, "h_cas", VG_(fnptr_to_fnentry)(h_cas),
                                           mkIRExprVec_5(cas->addr, IRExpr_Const(IRConst_U64((ULong)size | n << 8)), e, nv, old));
            add_dirty(&c, d, NULL);
            break;
        }
        case Ist_LLSC: {
            addStmtToIRSB(c.sb, st);
            IRExpr *a = st->Ist.LLSC.addr;
            ULong n = take_pending(&c);
            if (st->Ist.LLSC.storedata == NULL) {
                IRType ty = typeOfIRTemp(c.sb->tyenv, st->Ist.LLSC.result);
                IRDirty *d = unsafeIRDirty_0_N(0, "h_llsc", VG_(fnptr_to_fnentry)(h_llsc),
                                               mkIRExprVec_4(a, IRExpr_Const(IRConst_U64((ULong)sizeofIRType(ty) | (ULong)PT_LL << 8 | n << 16)),
                                                             IRExpr_Const(IRConst_U64(0)), IRExpr_Const(IRConst_U64(0))));
                add_dirty(&c, d, NULL);
            } else {
                IRType ty = typeOfIRExpr(c.sb->tyenv, st->Ist.LLSC.storedata);
                IRExpr *v = widen64(&c, st->Ist.LLSC.storedata, ty);
                IRExpr *ok = widen64(&c, IRExpr_RdTmp(st->Ist.LLSC.result), Ity_I1);
                if (!v) v = IRExpr_Const(IRConst_U64(0));
                IRDirty *d = unsafeIRDirty_0_N(0, "h_llsc", VG_(fnptr_to_fnentry)(h_llsc),
                                               mkIRExprVec_4(a, IRExpr_Const(IRConst_U64((ULong)sizeofIRType(ty) | (ULong)PT_SC << 8 | n << 16)), v, ok));
                add_dirty(&c, d, NULL);
            }
            break;
        }
        case Ist_MBE:
            addStmtToIRSB(c.sb, st);
            if (st->Ist.MBE.event == Imbe_Fence)
                ins_event(&c, PT_FENCE, icls == IC_MFENCE ? 1 : icls == IC_SFENCE ? 2 : icls == IC_LFENCE ? 3 : 0, NULL, NULL);
            break;
        case Ist_Exit: {
            IRConst *dst = st->Ist.Exit.dst;
            if (clo_marks && st->Ist.Exit.jk == Ijk_Boring && dst->tag == Ico_U64 && dst->Ico.U64 <= ipc &&
                ipc - dst->Ico.U64 <= 4096) {
                ins_event(&c, PT_LOOP, 0, IRExpr_Const(IRConst_U64(dst->Ico.U64)), st->Ist.Exit.guard);
            } else {
                ins_count_inline(&c, st->Ist.Exit.guard);
            }
            addStmtToIRSB(c.sb, st);
            break;
        }
        default:
            addStmtToIRSB(c.sb, st);
            break;
        }
    }
    /* block end */
    if (clo_marks && sbIn->jumpkind == Ijk_Call) {
        IRExpr *t = sbIn->next;
        ins_event(&c, PT_FUNC, 0, t, NULL);
    } else if (clo_marks && sbIn->jumpkind == Ijk_Ret) {
        ins_event(&c, PT_RET, 0, NULL, NULL);
    } else if (clo_marks && sbIn->jumpkind == Ijk_Boring && sbIn->next->tag == Iex_Const &&
               sbIn->next->Iex.Const.con->tag == Ico_U64 && sbIn->next->Iex.Const.con->Ico.U64 <= ipc &&
               ipc - sbIn->next->Iex.Const.con->Ico.U64 <= 4096) {
        ins_event(&c, PT_LOOP, 0, sbIn->next, NULL);
    } else {
        ins_count_inline(&c, NULL);
    }
    return c.sb;
}

/* ---------------------------------------------------------------- requests, syscalls, threads */
static Bool pt_handle_client_request(ThreadId tid, UWord *arg, UWord *ret)
{
    if (!VG_IS_TOOL_USERREQ('P', 'T', arg[0])) return False;
    switch_to(tid);
    *ret = 0;
    switch (arg[0]) {
    case PT_USERREQ_PM_RANGE:
        if (!add_range(arg[1], arg[1] + arg[2]))
            VG_(umsg)("persim-vgtrace: more than %d PM ranges; range %#lx ignored\n", MAX_RANGES, arg[1]);
        break;
    case PT_USERREQ_START:
        req_on = True;
        update_window();
        break;
    case PT_USERREQ_STOP:
        req_on = False;
        update_window();
        break;
    case PT_USERREQ_FLUSH:
        if (enter(0)) put(PT_FLUSH, (UChar)arg[1], arg[2], 0);
        break;
    default:
        return False;
    }
    return True;
}

static void pt_post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs, SysRes res)
{
    (void)tid; (void)nargs;
    if (!clo_pm_file || sysno != __NR_mmap || sr_isError(res)) return;
    Addr a = sr_Res(res);
    NSegment const *seg = VG_(am_find_nsegment)(a);
    if (!seg) return;
    const HChar *name = VG_(am_get_filename)(seg);
    if (name && VG_(strstr)(name, clo_pm_file)) {
        if (add_range(a, a + args[1]))
            VG_(umsg)("persim-vgtrace: PM range %#lx-%#lx (mmap of %s)\n", a, a + args[1], name);
    }
}

static void pt_pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
    (void)tid; (void)sysno; (void)args; (void)nargs;
}

static void pt_thread_create(ThreadId parent, ThreadId child)
{
    if (child >= MAX_THREADS) VG_(tool_panic)("persim-vgtrace: too many threads");
    th_acc[child] = 0;
    th_last[child] = 0;
    th_serial[child] = parent == VG_INVALID_THREADID ? 1 : ++next_serial;   /* the main thread: 1 */
    if (recording && out_fd >= 0 && parent != VG_INVALID_THREADID) {
        ThreadId keep = cur_tid;
        /* the record belongs to the parent (it runs now) */
        switch_to(parent);
        put(PT_THREAD, 0, th_serial[child], serial_of(parent));
        switch_to(keep);
    }
}

static void pt_fork_pre(ThreadId tid) { (void)tid; flush_buf(); }
static void pt_fork_parent(ThreadId tid) { (void)tid; }
static void pt_fork_child(ThreadId tid)
{
    /* the child (e.g. redis' background save) is not recorded: the parent owns the file */
    (void)tid;
    nbuf = 0;
    if (out_fd >= 0) VG_(close)(out_fd);
    out_fd = -1;
    stopped = True;
    recording = False;
}

/* ---------------------------------------------------------------- init / fini */
static void pt_post_clo_init(void)
{
    buf = VG_(malloc)("persimtrace.buf", BUF_RECORDS * sizeof(Rec));
    HChar *path = VG_(expand_file_name)("--out", clo_out);
    out_fd = VG_(fd_open)(path, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC, 0644);
    if (out_fd < 0) {
        VG_(fmsg)("persim-vgtrace: cannot create the raw file '%s'\n", path);
        VG_(exit)(1);
    }
    UChar hdr[PT_HEADER_BYTES];
    VG_(memset)(hdr, 0, sizeof hdr);
    VG_(memcpy)(hdr, PT_MAGIC, 8);
    ULong rs = PT_RECORD_BYTES, pid = (ULong)VG_(getpid)();
    VG_(memcpy)(hdr + 8, &rs, 8);
    VG_(memcpy)(hdr + 16, &pid, 8);
    VG_(write)(out_fd, hdr, sizeof hdr);
    VG_(umsg)("persim-vgtrace: raw events to %s\n", path);
    VG_(free)(path);
    req_on = VG_(strcmp)(clo_start, "request") != 0;
    recording = False;
    cur_tid = 1;
    if (!th_serial[1]) th_serial[1] = 1;
    for (Int i = 0; i < n_ranges; i++) put(PT_PMRANGE, 0, pm_lo[i], pm_hi[i] - pm_lo[i]);
    update_window();
}

static void pt_fini(Int exitcode)
{
    (void)exitcode;
    if (out_fd < 0) return;
    /* the tail: instructions of each thread after its last record */
    if (recording) {
        ThreadId keep = cur_tid;
        for (ThreadId t = 1; t < MAX_THREADS; t++) {
            switch_to(t);
            ULong now = th_icount();
            if (now > th_last[t] && th_last[t] != 0) {
                ULong g = now - th_last[t];
                th_last[t] = now;
                Rec *r = &buf[nbuf++];
                r->kind = PT_GAP; r->size = 0; r->tid = serial_of(t); r->gap = 0; r->addr = 0; r->val = g;
                n_records++;
                if (nbuf == BUF_RECORDS) flush_buf();
            }
        }
        switch_to(keep);
    }
    Rec *r = &buf[nbuf++];
    r->kind = PT_END; r->size = 0; r->tid = 0; r->gap = 0; r->addr = g_icount; r->val = n_records;
    flush_buf();
    VG_(close)(out_fd);
    VG_(umsg)("persim-vgtrace: %llu records, %llu guest instructions\n", n_records, g_icount);
}

static void pt_pre_clo_init(void)
{
    VG_(details_name)("persim-vgtrace");
    VG_(details_version)("1");
    VG_(details_description)("per-thread memory, fence, atomic and flush traces for persim");
    VG_(details_copyright_author)("persim project");
    VG_(details_bug_reports_to)("persim issue tracker");
    VG_(details_avg_translation_sizeB)(300);
    VG_(basic_tool_funcs)(pt_post_clo_init, pt_instrument, pt_fini);
    VG_(needs_command_line_options)(pt_process_cmd_line_option, pt_print_usage, pt_print_debug_usage);
    VG_(needs_client_requests)(pt_handle_client_request);
    VG_(needs_syscall_wrapper)(pt_pre_syscall, pt_post_syscall);
    VG_(track_start_client_code)(pt_start_client_code);
    VG_(track_pre_thread_ll_create)(pt_thread_create);
    VG_(atfork)(pt_fork_pre, pt_fork_parent, pt_fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pt_pre_clo_init)
