// SBRP per-SM persist buffer with ODM/EDM/FSM/ACTR ("Scoped Buffered Persistency Model for
// GPUs", ASPLOS'23, section 6). Golden model: cores/sbrp_pb.c (sbrp_pb_step). One clock edge =
// one sbrp_pb_step call: (1) drain_all level and ack, (2) the offered operation (store, fence or
// eviction), (3) at most one head action (an ordering entry retires; a persist is flushed only if
// flush_ready). All outputs are registered (they report the edge just taken).
//
// Storage: circular array of ENTRIES slots {valid, 3-bit type, line index, warp mask, prev}
// with head / tail / used / count. The C core's 64-bit sequence numbers are replaced by
// position checks relative to the head (equivalent because ordering entries only leave from the
// head and slots are allocated in circular order):
//   store conflict  "an ordering entry after PB_k includes the warp": scan of all slots,
//                   valid & type != persist & warp bit & slot after k (thermometer compare);
//   eviction        "an ordering entry precedes PB_k": prev[k] = slot of the youngest ordering
//                   entry allocated before k; it precedes iff it is still a valid ordering entry
//                   placed before k (a reused slot is younger than k or a persist);
//   EDM targets     per warp, the slot of the awaited entry (pending bit clears when it leaves).
// Holes left by evictions are skipped by find-first-valid from the head and find-last-valid
// before the tail after each removal (two removals per cycle at most: eviction, then drain).
// Two-phase ACTR (persim addition, see cores/sbrp_pb.h): ACTR[0], ACTR[1], phase bit P, FSM[p],
// FWM[p]; EDM = pending | cur | old (waiting for a target entry / the current phase / the closed
// phase); settle() as in the C core. flush_phase / evict_phase go out with each write and come
// back as ack_phase with its acknowledgement.
module sbrp_pb (clk, rst, ack, ack_phase, op, warp, fence_type, line, entry, flush_ready, drain_all,
                result, entry_out, flush_valid, flush_line, flush_phase, evict_valid, evict_line,
                evict_phase, odm, edm, fsm, stalled, actr, count);
    parameter ENTRIES = 256;   // PB entries, 2..16383
    parameter WARPS   = 32;    // warps per SM, 1..64
    parameter LINES   = 512;   // L1 lines (line index range), 2..32768
    parameter POLICY  = 2;     // 0 eager, 1 lazy, 2 window
    parameter WINDOW  = 6;     // max ACTR under the window policy, >= 1

    localparam N   = ENTRIES;
    localparam SW  = (N > 1) ? $clog2(N) : 1;            // slot index
    localparam CW  = SW + 1;                              // used / count
    localparam LNW = (LINES > 1) ? $clog2(LINES) : 1;     // line index

    input  wire              clk;
    input  wire              rst;            // synchronous, active high
    input  wire              ack;            // one acknowledgement from the persistence domain
    input  wire              ack_phase;      // its phase (flush_phase / evict_phase of that write)
    input  wire [1:0]        op;             // 0 none, 1 store, 2 fence, 3 evict
    input  wire [5:0]        warp;
    input  wire [2:0]        fence_type;     // sbrp_type
    input  wire [15:0]       line;           // store: L1 line index
    input  wire [15:0]       entry;          // store: the line's pb_index; evict: entry to evict
    input  wire              flush_ready;    // downstream accepts one flush
    input  wire              drain_all;      // level: force draining (lazy policy)
    output reg  [2:0]        result;         // sbrp_result of the offered op
    output reg  [15:0]       entry_out;      // allocated / coalesced entry, 0xFFFF if none
    output reg               flush_valid;
    output reg  [15:0]       flush_line;     // 0xFFFF if none
    output reg               flush_phase;    // phase of the flush (0 if none)
    output reg               evict_valid;
    output reg  [15:0]       evict_line;     // 0xFFFF if none
    output reg               evict_phase;    // phase of the eviction (0 if none)
    output reg  [WARPS-1:0]  odm;
    output reg  [WARPS-1:0]  edm;
    output reg  [WARPS-1:0]  fsm;            // FSM[0] | FSM[1]
    output reg  [WARPS-1:0]  stalled;        // odm | edm | full-waiters
    output reg  [15:0]       actr;           // ACTR[0] + ACTR[1], saturating
    output reg  [15:0]       count;          // valid entries

    localparam [2:0] T_PERSIST = 3'd0, T_OFENCE = 3'd1, T_DFENCE = 3'd2, T_ACQ_BLK = 3'd3,
                     T_REL_BLK = 3'd4, T_ACQ_DEV = 3'd5, T_REL_DEV = 3'd6;
    localparam [2:0] R_OK = 3'd0, R_ALLOC = 3'd1, R_STALL_ORDER = 3'd2, R_STALL_FULL = 3'd3,
                     R_STALL_FENCE = 3'd4;

    localparam ES = 2 + 3 * WARPS;
    localparam [31:0] N32 = N, WARPS32 = WARPS, LINES32 = LINES, WINDOW32 = WINDOW;
    localparam [CW-1:0] N_C = N32[CW-1:0];

    // ---- state ----
    // slot payload: one array element per slot (not flat N*W-bit vectors: a simulator updates the
    // one slot written instead of copying the whole buffer every cycle)
    reg [N-1:0]        vld;
    reg [2:0]          typ [0:N-1];
    reg [LNW-1:0]      lin [0:N-1];
    reg [WARPS-1:0]    wm  [0:N-1];
    reg [N-1:0]        pvv;                 // prev valid (an ordering entry was allocated before)
    reg [SW-1:0]       pv  [0:N-1];         // prev: slot of the youngest earlier ordering entry
    reg [SW-1:0]       head, tail;
    reg [CW-1:0]       used, cnt;
    reg [15:0]         ac0, ac1;            // ACTR[0], ACTR[1]
    reg                ph, flip;            // current phase P, flip request
    reg [WARPS-1:0]    r_odm, fsm0, fsm1, fwm0, fwm1, fw, pend, cur, old, r_edm;
    reg [WARPS*SW-1:0] tgt;                 // EDM target slot per warp (while pending)
    reg                lov;                 // an ordering entry was ever allocated
    reg [SW-1:0]       lo;                  // slot of the last allocated ordering entry

    // ---- next state ----
    reg [N-1:0]        n_vld;
    reg                al_do, co_do;        // allocate at tail / OR the warp into slot co_slot
    reg [2:0]          al_typ;
    reg [LNW-1:0]      al_line, hl;
    reg [SW-1:0]       co_slot;
    reg [SW-1:0]       n_head, n_tail;
    reg [CW-1:0]       n_used, n_cnt, u0;
    reg [15:0]         n_ac0, n_ac1;
    reg [WARPS-1:0]    n_odm, n_fsm0, n_fsm1, n_fwm0, n_fwm1, n_fw, n_pend;
    reg [WARPS*SW-1:0] n_tgt;
    reg                n_lov;
    reg [SW-1:0]       n_lo;
    reg [ES-1:0]       es_;                 // {P, flip, EDM, cur, old}
    reg [2:0]          o_res;
    reg [15:0]         o_entry, o_fline, o_eline;
    reg                o_fv, o_ev, o_fp, o_ep;

    // ---- temporaries ----
    integer s, w;
    reg [WARPS-1:0]   b, m, r;
    reg [2:0]         ht;
    reg               ev_valid, conflict, blocked1, blocked2, allowed, did_rm, fl, wok;
    reg [SW-1:0]      es, ps, hs, rs, ts;
    reg [N-1:0]       after;
    reg [SW:0]        ff, fl_last;
    reg [16:0]        tot;

    // settle(): advance drain-point waiters on {P, flip, EDM, cur, old} (see cores/sbrp_pb.c)
    function [ES-1:0] settle;
        input [ES-1:0] st;
        input          a0nz, a1nz;          // ACTR[0] != 0, ACTR[1] != 0
        reg p, f, apnz, aqnz;
        reg [WARPS-1:0] e, c, o;
        begin
            {p, f, e, c, o} = st;
            apnz = p ? a1nz : a0nz;
            aqnz = p ? a0nz : a1nz;
            if (!apnz) begin o = o | c; c = {WARPS{1'b0}}; f = 1'b0; end
            if (!aqnz) begin
                e = e & ~o; o = {WARPS{1'b0}};
                if (c != {WARPS{1'b0}} || f) begin
                    p = ~p; o = c; c = {WARPS{1'b0}}; f = 1'b0;
                end
            end
            settle = {p, f, e, c, o};
        end
    endfunction

    // drain_wait(m): warps m wait in EDM until every flush issued so far is acknowledged
    function [ES-1:0] dwait;
        input [ES-1:0]    st;
        input [WARPS-1:0] mm;
        input             a0nz, a1nz;
        reg p, f;
        reg [WARPS-1:0] e, c, o;
        begin
            if (mm == {WARPS{1'b0}}) dwait = st;
            else begin
                {p, f, e, c, o} = st;
                e = e | mm;
                if (p ? a1nz : a0nz) c = c | mm;
                else o = o | mm;
                dwait = settle({p, f, e, c, o}, a0nz, a1nz);
            end
        end
    endfunction

    // edm_forget(m) on the EDM part of the state (pending handled by the caller)
    function [ES-1:0] forget;
        input [ES-1:0]    st;
        input [WARPS-1:0] mm;
        reg p, f;
        reg [WARPS-1:0] e, c, o;
        begin
            {p, f, e, c, o} = st;
            forget = {p, f, e & ~mm, c & ~mm, o & ~mm};
        end
    endfunction

    // first valid slot at or after h (circular); {found, slot}
    function [SW:0] ffv;
        input [N-1:0]  v;
        input [SW-1:0] h;
        integer i;
        reg f1, f2;
        reg [SW-1:0] i1, i2, ii;
        begin
            f1 = 1'b0; f2 = 1'b0; i1 = {SW{1'b0}}; i2 = {SW{1'b0}};
            for (i = 0; i < N; i = i + 1) begin
                ii = i[SW-1:0];
                if (!f1 && v[i] && ii >= h) begin f1 = 1'b1; i1 = ii; end
                if (!f2 && v[i]) begin f2 = 1'b1; i2 = ii; end
            end
            ffv = f1 ? {1'b1, i1} : {f2, i2};
        end
    endfunction

    // last valid slot strictly before t (circular); {found, slot}
    function [SW:0] flv;
        input [N-1:0]  v;
        input [SW-1:0] t;
        integer i;
        reg f1, f2;
        reg [SW-1:0] i1, i2, ii;
        begin
            f1 = 1'b0; f2 = 1'b0; i1 = {SW{1'b0}}; i2 = {SW{1'b0}};
            for (i = N - 1; i >= 0; i = i - 1) begin
                ii = i[SW-1:0];
                if (!f1 && v[i] && ii < t) begin f1 = 1'b1; i1 = ii; end
                if (!f2 && v[i]) begin f2 = 1'b1; i2 = ii; end
            end
            flv = f1 ? {1'b1, i1} : {f2, i2};
        end
    endfunction

    // position of slot x counted from head h (0..N-1)
    function [CW-1:0] rank;
        input [SW-1:0] x;
        input [SW-1:0] h;
        begin
            if (x >= h) rank = {1'b0, x} - {1'b0, h};
            else        rank = {1'b0, x} + N_C - {1'b0, h};
        end
    endfunction

    function [SW-1:0] inc;
        input [SW-1:0] x;
        begin
            inc = ({1'b0, x} == N_C - 1'b1) ? {SW{1'b0}} : x + 1'b1;
        end
    endfunction

    function [SW-1:0] dec;
        input [SW-1:0] x;
        begin
            dec = (x == {SW{1'b0}}) ? N_C[SW-1:0] - 1'b1 : x - 1'b1;
        end
    endfunction

    always @* begin
        n_vld = vld; al_do = 1'b0; co_do = 1'b0; al_typ = 3'd0; al_line = {LNW{1'b0}};
        co_slot = {SW{1'b0}}; hl = {LNW{1'b0}};
        n_head = head; n_tail = tail; n_used = used; n_cnt = cnt; u0 = used;
        n_ac0 = ac0; n_ac1 = ac1;
        n_odm = r_odm; n_fsm0 = fsm0; n_fsm1 = fsm1; n_fwm0 = fwm0; n_fwm1 = fwm1; n_fw = fw;
        n_pend = pend; n_tgt = tgt; n_lov = lov; n_lo = lo;
        es_ = {ph, flip, r_edm, cur, old};
        o_res = R_OK; o_entry = 16'hFFFF; o_fline = 16'hFFFF; o_eline = 16'hFFFF;
        o_fv = 1'b0; o_ev = 1'b0; o_fp = 1'b0; o_ep = 1'b0;
        b = {WARPS{1'b0}}; m = {WARPS{1'b0}}; r = {WARPS{1'b0}}; ht = 3'd0;
        ev_valid = 1'b0; conflict = 1'b0; blocked1 = 1'b0; blocked2 = 1'b0; allowed = 1'b0;
        did_rm = 1'b0; fl = 1'b0;
        es = {SW{1'b0}}; ps = {SW{1'b0}}; hs = {SW{1'b0}}; rs = {SW{1'b0}}; ts = {SW{1'b0}};
        after = {N{1'b0}}; ff = {(SW+1){1'b0}}; fl_last = {(SW+1){1'b0}}; tot = 17'd0;
        wok = {26'd0, warp} < WARPS32;
        for (w = 0; w < WARPS; w = w + 1) if ({26'd0, warp} == w) b[w] = 1'b1;

        // (1) ack of phase ack_phase
        if (ack) begin
            if (!ack_phase && n_ac0 != 16'd0) begin
                n_ac0 = n_ac0 - 1'b1;
                if (n_ac0 == 16'd0) begin n_fsm0 = {WARPS{1'b0}}; n_fwm0 = {WARPS{1'b0}}; end
                es_ = settle(es_, n_ac0 != 16'd0, n_ac1 != 16'd0);
            end else if (ack_phase && n_ac1 != 16'd0) begin
                n_ac1 = n_ac1 - 1'b1;
                if (n_ac1 == 16'd0) begin n_fsm1 = {WARPS{1'b0}}; n_fwm1 = {WARPS{1'b0}}; end
                es_ = settle(es_, n_ac0 != 16'd0, n_ac1 != 16'd0);
            end
        end

        // (2) the offered operation; es = the addressed slot
        es = entry[SW-1:0];
        ev_valid = ({16'd0, entry} < N32) && vld[es] && typ[es] == T_PERSIST;
        case (op)
        2'd1: begin                                                       // store
            if (wok && {16'd0, line} < LINES32) begin
                if (ev_valid && {{(16-LNW){1'b0}}, lin[es]} == line) begin
                    // an ordering entry after PB_k that includes this warp?
                    conflict = 1'b0;
                    for (s = 0; s < N; s = s + 1) begin
                        ts = s[SW-1:0];
                        after[s] = (es >= head) ? (ts > es || ts < head) : (ts > es && ts < head);
                        if (vld[s] && typ[s] != T_PERSIST && (wm[s] & b) != 0 && after[s])
                            conflict = 1'b1;
                    end
                    if (conflict) begin                                   // edm_wait(target PB_k)
                        es_ = forget(es_, b);
                        n_pend = n_pend & ~b;
                        es_[2*WARPS +: WARPS] = es_[2*WARPS +: WARPS] | b;   // EDM
                        n_pend = n_pend | b;
                        for (w = 0; w < WARPS; w = w + 1) if (b[w]) n_tgt[w*SW +: SW] = es;
                        o_res = R_STALL_ORDER;
                    end else begin
                        co_do = 1'b1; co_slot = es;
                        o_entry = entry;
                        o_res = R_OK;
                    end
                end else if (n_used == N_C) begin
                    n_fw = n_fw | b;
                    o_res = R_STALL_FULL;
                end else begin                                            // allocate a persist
                    n_vld[tail] = 1'b1;
                    al_do = 1'b1; al_typ = T_PERSIST; al_line = line[LNW-1:0];
                    n_tail = inc(tail);
                    n_used = n_used + 1'b1;
                    n_cnt = n_cnt + 1'b1;
                    o_entry = {{(16-SW){1'b0}}, tail};
                    o_res = R_ALLOC;
                end
            end
        end
        2'd2: begin                                                       // fence
            if (wok && fence_type >= T_OFENCE && fence_type <= T_REL_DEV) begin
                ps = dec(tail);
                fl = 1'b1;
                if (n_used != {CW{1'b0}} && typ[ps] == fence_type) begin
                    co_do = 1'b1; co_slot = ps;                           // coalesce
                end else if (n_used == N_C) begin
                    n_fw = n_fw | b;
                    o_res = R_STALL_FULL;
                    fl = 1'b0;
                end else begin
                    n_vld[tail] = 1'b1;
                    al_do = 1'b1; al_typ = fence_type;
                    n_lov = 1'b1;
                    n_lo = tail;
                    n_tail = inc(tail);
                    n_used = n_used + 1'b1;
                    n_cnt = n_cnt + 1'b1;
                end
                if (fl && (fence_type == T_DFENCE || fence_type == T_ACQ_DEV || fence_type == T_REL_DEV)) begin
                    n_odm = n_odm | b;
                    o_res = R_STALL_FENCE;
                end
            end
        end
        2'd3: begin                                                       // eviction
            if (wok && ev_valid) begin
                // evict_block: 1 = an ordering entry precedes (target prev), 2 = FSM
                ps = pv[es];
                blocked1 = pvv[es] && vld[ps] && typ[ps] != T_PERSIST &&
                           rank(ps, head) < rank(es, head);
                blocked2 = (wm[es] & (n_fsm0 | n_fsm1)) != 0 &&
                           (n_ac0 != 16'd0 || n_ac1 != 16'd0);
                if (blocked1 || blocked2) begin
                    es_ = forget(es_, b);
                    n_pend = n_pend & ~b;
                    if (blocked1) begin
                        es_[2*WARPS +: WARPS] = es_[2*WARPS +: WARPS] | b;
                        n_pend = n_pend | b;
                        for (w = 0; w < WARPS; w = w + 1) if (b[w]) n_tgt[w*SW +: SW] = ps;
                    end else begin
                        es_ = dwait(es_, b, n_ac0 != 16'd0, n_ac1 != 16'd0);
                    end
                    o_res = R_STALL_ORDER;
                end else begin
                    o_ev = 1'b1;
                    o_eline = {{(16-LNW){1'b0}}, lin[es]};
                    // count_flush in phase P
                    o_ep = es_[ES-1];
                    if (es_[ES-1]) begin n_ac1 = n_ac1 + 1'b1; n_fwm1 = n_fwm1 | wm[es]; end
                    else           begin n_ac0 = n_ac0 + 1'b1; n_fwm0 = n_fwm0 | wm[es]; end
                    // remove_entry(es)
                    rs = es;
                    u0 = n_used;
                    n_vld[rs] = 1'b0;
                    n_cnt = n_cnt - 1'b1;
                    ff = ffv(n_vld, n_head);
                    if (!ff[SW]) begin
                        n_head = n_tail; n_used = {CW{1'b0}};
                    end else begin
                        n_head = ff[SW-1:0];
                        fl_last = flv(n_vld, n_tail);
                        n_tail = inc(fl_last[SW-1:0]);
                        n_used = rank(fl_last[SW-1:0], n_head) + 1'b1;
                    end
                    if (n_used < u0) n_fw = {WARPS{1'b0}};
                    r = {WARPS{1'b0}};                                    // entry_left
                    for (w = 0; w < WARPS; w = w + 1)
                        if (n_pend[w] && n_tgt[w*SW +: SW] == rs) r[w] = 1'b1;
                    n_pend = n_pend & ~r;
                    es_ = dwait(es_, r, n_ac0 != 16'd0, n_ac1 != 16'd0);
                end
            end
        end
        default: ;
        endcase

        // (3) one head action
        if (n_cnt != {CW{1'b0}}) begin
            hs = n_head;
            // the head entry as left by the operation (it may have just been allocated or
            // coalesced into)
            if (al_do && hs == tail) begin
                ht = al_typ; m = b; hl = al_line;
            end else begin
                ht = typ[hs];
                m = wm[hs] | ((co_do && hs == co_slot) ? b : {WARPS{1'b0}});
                hl = lin[hs];
            end
            rs = hs;
            did_rm = 1'b0;
            if (ht != T_PERSIST) begin                                    // ordering entry retires
                if (ht == T_OFENCE || ht == T_REL_BLK) begin
                    n_fsm0 = n_fsm0 | (m & n_fwm0);
                    n_fsm1 = n_fsm1 | (m & n_fwm1);
                end else if (ht == T_ACQ_BLK) begin
                    if (n_ac0 != 16'd0) n_fsm0 = n_fsm0 | m;
                    if (n_ac1 != 16'd0) n_fsm1 = n_fsm1 | m;
                end else begin
                    n_odm = n_odm & ~m;
                    es_ = forget(es_, m);
                    n_pend = n_pend & ~m;
                    es_ = dwait(es_, m, n_ac0 != 16'd0, n_ac1 != 16'd0);
                end
                did_rm = 1'b1;
            end else if (flush_ready) begin
                allowed = 1'b1;
                if ((m & (n_fsm0 | n_fsm1)) != 0) begin
                    if (n_ac0 != 16'd0 || n_ac1 != 16'd0) begin
                        allowed = 1'b0;
                        if ((m & (es_[ES-1] ? n_fsm1 : n_fsm0)) != 0 && !es_[ES-2]) begin
                            es_[ES-2] = 1'b1;                             // flip_req
                            es_ = settle(es_, n_ac0 != 16'd0, n_ac1 != 16'd0);
                        end
                    end else begin
                        n_fsm0 = {WARPS{1'b0}}; n_fsm1 = {WARPS{1'b0}};
                    end
                end
                if (allowed) begin
                    tot = {1'b0, n_ac0} + {1'b0, n_ac1};
                    if (POLICY == 2 && !({15'd0, tot} < WINDOW32)) allowed = 1'b0;
                    else if (POLICY == 1 && !(n_odm != 0 || es_[2*WARPS +: WARPS] != 0 || n_fw != 0 || drain_all))
                        allowed = 1'b0;
                end
                if (allowed) begin
                    o_fv = 1'b1;
                    o_fline = {{(16-LNW){1'b0}}, hl};
                    o_fp = es_[ES-1];
                    if (es_[ES-1]) begin n_ac1 = n_ac1 + 1'b1; n_fwm1 = n_fwm1 | m; end
                    else           begin n_ac0 = n_ac0 + 1'b1; n_fwm0 = n_fwm0 | m; end
                    did_rm = 1'b1;
                end
            end
            if (did_rm) begin                                             // remove_entry(head)
                u0 = n_used;
                n_vld[rs] = 1'b0;
                n_cnt = n_cnt - 1'b1;
                ff = ffv(n_vld, n_head);
                if (!ff[SW]) begin
                    n_head = n_tail; n_used = {CW{1'b0}};
                end else begin
                    n_head = ff[SW-1:0];
                    fl_last = flv(n_vld, n_tail);
                    n_tail = inc(fl_last[SW-1:0]);
                    n_used = rank(fl_last[SW-1:0], n_head) + 1'b1;
                end
                if (n_used < u0) n_fw = {WARPS{1'b0}};
                r = {WARPS{1'b0}};
                for (w = 0; w < WARPS; w = w + 1)
                    if (n_pend[w] && n_tgt[w*SW +: SW] == rs) r[w] = 1'b1;
                n_pend = n_pend & ~r;
                es_ = dwait(es_, r, n_ac0 != 16'd0, n_ac1 != 16'd0);
            end
        end
        tot = {1'b0, n_ac0} + {1'b0, n_ac1};
    end

    // slot payload datapath: allocation at the tail, coalescing OR (warp masks are not cleared on
    // removal: a slot's fields are read only while it is valid); no reset
    always @(posedge clk) begin
        if (al_do) begin
            typ[tail] <= al_typ; lin[tail] <= al_line; wm[tail] <= b; pv[tail] <= lo;
        end else if (co_do) begin
            wm[co_slot] <= wm[co_slot] | b;
        end
    end

    wire unused_ok = &{1'b0, fl_last[SW], 1'b0};

    always @(posedge clk) begin
        if (rst) begin
            vld <= {N{1'b0}}; pvv <= {N{1'b0}};
            head <= {SW{1'b0}}; tail <= {SW{1'b0}}; used <= {CW{1'b0}}; cnt <= {CW{1'b0}};
            ac0 <= 16'd0; ac1 <= 16'd0; ph <= 1'b0; flip <= 1'b0;
            r_odm <= {WARPS{1'b0}}; fsm0 <= {WARPS{1'b0}}; fsm1 <= {WARPS{1'b0}};
            fwm0 <= {WARPS{1'b0}}; fwm1 <= {WARPS{1'b0}}; fw <= {WARPS{1'b0}};
            pend <= {WARPS{1'b0}}; cur <= {WARPS{1'b0}}; old <= {WARPS{1'b0}}; r_edm <= {WARPS{1'b0}};
            tgt <= {(WARPS*SW){1'b0}}; lov <= 1'b0; lo <= {SW{1'b0}};
            result <= 3'd0; entry_out <= 16'hFFFF; flush_valid <= 1'b0; flush_line <= 16'hFFFF;
            flush_phase <= 1'b0; evict_valid <= 1'b0; evict_line <= 16'hFFFF; evict_phase <= 1'b0;
            odm <= {WARPS{1'b0}}; edm <= {WARPS{1'b0}}; fsm <= {WARPS{1'b0}}; stalled <= {WARPS{1'b0}};
            actr <= 16'd0; count <= 16'd0;
        end else begin
            vld <= n_vld;
            if (al_do) pvv[tail] <= lov;
            head <= n_head; tail <= n_tail; used <= n_used; cnt <= n_cnt;
            ac0 <= n_ac0; ac1 <= n_ac1; {ph, flip, r_edm, cur, old} <= es_;
            r_odm <= n_odm; fsm0 <= n_fsm0; fsm1 <= n_fsm1; fwm0 <= n_fwm0; fwm1 <= n_fwm1; fw <= n_fw;
            pend <= n_pend; tgt <= n_tgt; lov <= n_lov; lo <= n_lo;
            result <= o_res; entry_out <= o_entry; flush_valid <= o_fv; flush_line <= o_fline;
            flush_phase <= o_fp; evict_valid <= o_ev; evict_line <= o_eline; evict_phase <= o_ep;
            odm <= n_odm; edm <= es_[2*WARPS +: WARPS]; fsm <= n_fsm0 | n_fsm1;
            stalled <= n_odm | es_[2*WARPS +: WARPS] | n_fw;
            actr <= tot[16] ? 16'hFFFF : tot[15:0];
            count <= {{(16-CW){1'b0}}, n_cnt};
        end
    end
`ifdef FORMAL
    // ---- formal properties (formal/prove.py; docs/rtl.md "Formal properties"). Not synthesized,
    // not Verilated: only `read_verilog -formal -DFORMAL` sees this. Each property group is
    // compiled in by its FP_* define; f_* are formal-only shadow signals. ----
    reg f_init = 1'b1;                               // the first cycle: reset
    always @(posedge clk) f_init <= 1'b0;
    always @* if (f_init) assume(rst); else assume(!rst);
    wire f_on = !rst && !f_init;
    // legal inputs: a stalled warp (ODM, EDM or waiting for a free entry) issues nothing
    always @* if (f_on && op != 2'd0 && {26'd0, warp} < WARPS32) assume(!((r_odm | r_edm | fw) & b));
    integer f_s, f_n;
`ifdef FP_actr
    // ACTR[p] is the number of flushes and evictions of phase p minus the acks of phase p the
    // buffer accepted (an ack of a phase with nothing outstanding is ignored): it never
    // underflows (nor wraps)
    reg [15:0] f_c0 = 16'd0, f_c1 = 16'd0;
    reg        f_a0, f_a1;
    always @* begin
        f_a0 = ack && !ack_phase && f_c0 != 16'd0;
        f_a1 = ack && ack_phase && f_c1 != 16'd0;
    end
    always @(posedge clk)
        if (rst) begin f_c0 <= 16'd0; f_c1 <= 16'd0; end
        else begin
            f_c0 <= f_c0 - f_a0 + (o_fv && !o_fp) + (o_ev && !o_ep);
            f_c1 <= f_c1 - f_a1 + (o_fv && o_fp) + (o_ev && o_ep);
        end
    always @* if (f_on) begin
        assert(ac0 == f_c0 && ac1 == f_c1);
        if (ack && !ack_phase && ac0 == 16'd0) assert(!(o_fv && !o_fp && n_ac0 == 16'd0) && n_ac0 != 16'hFFFF);
        if (ack && ack_phase && ac1 == 16'd0) assert(n_ac1 != 16'hFFFF);
    end
`endif
`ifdef FP_fence_order
    // warp f_w (any constant): once an ordering entry holding f_w retires while f_w has a flush or
    // eviction of phase p unacknowledged (f_sf[p]), no further entry holding f_w is flushed or
    // evicted until ACTR[p] drains to zero (every write of phase p acknowledged): an entry never
    // drains past an unacknowledged fence of its warp
    (* anyconst *) reg [5:0] f_w;
    reg [WARPS-1:0] f_wm;
    reg [15:0] f_c [0:1];
    reg [1:0]  f_sf, f_fe;                           // per phase: f_w in flight; f_w fenced
    reg [15:0] f_ca [0:1];
    reg [1:0]  f_sfm, f_fem, f_sfn, f_fen, f_acc;
    reg        f_ev_w, f_fl_w, f_rt_w;
    integer    f_p;
    initial begin f_c[0] = 16'd0; f_c[1] = 16'd0; f_sf = 2'b00; f_fe = 2'b00; end
    always @* begin
        f_wm = {WARPS{1'b0}};
        for (f_n = 0; f_n < WARPS; f_n = f_n + 1) if ({26'd0, f_w} == f_n) f_wm[f_n] = 1'b1;
        f_ev_w = o_ev && (wm[es] & f_wm) != 0;
        f_fl_w = o_fv && (m & f_wm) != 0;
        f_rt_w = did_rm && ht != T_PERSIST && (m & f_wm) != 0;
        for (f_p = 0; f_p < 2; f_p = f_p + 1) begin
            f_acc[f_p] = ack && ack_phase == f_p[0] && f_c[f_p] != 16'd0;
            f_ca[f_p] = f_c[f_p] - f_acc[f_p];
            // after the ack and the offered operation (eviction)
            f_sfm[f_p] = (f_ca[f_p] != 16'd0 && f_sf[f_p]) || (f_ev_w && o_ep == f_p[0]);
            f_fem[f_p] = f_ca[f_p] != 16'd0 && f_fe[f_p];
            // after the head action
            f_fen[f_p] = f_fem[f_p] || (f_rt_w && f_sfm[f_p]);
            f_sfn[f_p] = f_sfm[f_p] || (f_fl_w && o_fp == f_p[0]);
        end
    end
    always @(posedge clk)
        if (rst) begin f_c[0] <= 16'd0; f_c[1] <= 16'd0; f_sf <= 2'b00; f_fe <= 2'b00; end
        else begin
            f_c[0] <= f_ca[0] + (o_fv && !o_fp) + (o_ev && !o_ep);
            f_c[1] <= f_ca[1] + (o_fv && o_fp) + (o_ev && o_ep);
            f_sf <= f_sfn; f_fe <= f_fen;
        end
    always @* if (f_on) begin
        assume({26'd0, f_w} < WARPS32);
        if (f_fl_w) assert(f_fem == 2'b00);
        if (f_ev_w) assert(f_fe[0] == 1'b0 || f_ca[0] == 16'd0);
        if (f_ev_w) assert(f_fe[1] == 1'b0 || f_ca[1] == 16'd0);
    end
`endif
`ifdef FP_evict_order
    // an eviction (early write-back of a dirty line) never passes an ordering entry that precedes
    // its entry in the buffer and holds one of its warps
    always @* if (f_on && o_ev)
        for (f_s = 0; f_s < N; f_s = f_s + 1)
            if (vld[f_s] && typ[f_s] != T_PERSIST && (wm[f_s] & wm[es]) != 0)
                assert(!(rank(f_s[SW-1:0], head) < rank(es, head)));
`endif
`ifdef FP_coalesce_order
    // a store never coalesces into an entry that precedes an ordering entry of its own warp
    // (pX=a; pY=b; oFence; pX=c stalls instead, section 6.1)
    always @* if (f_on && op == 2'd1 && co_do)
        for (f_s = 0; f_s < N; f_s = f_s + 1)
            if (vld[f_s] && typ[f_s] != T_PERSIST && (wm[f_s] & b) != 0)
                assert(!(rank(f_s[SW-1:0], head) > rank(co_slot, head)));
`endif
`ifdef FP_structural
    // count = valid slots <= used <= ENTRIES, pointers in range, outputs mirror the state, reset
    always @* if (f_on) begin
        f_n = 0;
        for (f_s = 0; f_s < N; f_s = f_s + 1) if (vld[f_s]) f_n = f_n + 1;
        assert(f_n == cnt && cnt <= used && used <= N_C);
        assert({1'b0, head} < N_C && {1'b0, tail} < N_C);
        assert(count == {{(16-CW){1'b0}}, cnt} && odm == r_odm && edm == r_edm);
        if (cnt != 0) assert(vld[head]);
    end
    reg f_rst_q = 1'b0;
    always @(posedge clk) f_rst_q <= rst;
    always @* if (f_rst_q) begin
        assert(cnt == 0 && used == 0 && vld == 0 && ac0 == 0 && ac1 == 0 && r_odm == 0 && r_edm == 0);
        assert(!flush_valid && !evict_valid && result == 0 && count == 0 && actr == 0 && stalled == 0);
    end
`endif
`endif
endmodule
