// LightWSP gated write-pending queue of one memory controller (LightWSP IV-B/D/F/H).
// Golden model: cores/wpq_gate.c (wpq_gate_step). One clock edge = one wpq_gate_step call:
// (0) power_fail latches, (1) incoming bdry-ACK / flush-ACK, (2) incoming boundary (bdry-ACK out;
// a boundary beyond the region window is refused: bdry_wait, the sender offers it again later),
// (3) load CAM search, (4) one drain if drain_ready (oldest entry of the flush-ID region when it
// is persisted or in overflow mode; else an overflow bypass of the offered store), (5) flush done
// (flush-ACK out), (6) commit (flush ID + 1), (7) the offered store, (8) deadlock check (the
// overflow retry of wpq_gate_store, one decision per edge: a store refused by a full queue makes
// (8) enter overflow mode, and re-offered it is written through at (4)), (9) power-failure idle
// timer / discard
// (idle: nothing moved at this edge and no entry can drain). progress_out: an entry drained or
// was written through, or a region committed (wpq_gate_progress moved). All outputs are registered.
//
// Queue: ENTRIES x {region ID, word address, data} in arrival order (collapsing FIFO: one removal
// anywhere + one append per cycle). Region window of REGIONS slots from the flush ID:
// boundary-received bit, bdry-ACK and flush-ACK counters (4 bits, MCS <= 16).
//
// UNGATED = 1: deliberately broken variant (a plain ADR WPQ, not LightWSP; cores/wpq_gate.h):
// (4) drains the oldest entry of any region as soon as it is queued, never undo-logged; (8) never
// enters overflow mode; (9) the power-failure sequence waits while any entry is left, so nothing
// is discarded. Boundaries, ACKs, flush-ACKs and commits work as in gated mode.
`define WPQ_Z32(x, w) {{(32-(w)){1'b0}}, x}
module wpq_gate (clk, rst, push_valid, push_region, push_addr, push_data,
                 bdry_valid, bdry_region, back_valid, back_region, fack_valid, fack_region,
                 drain_ready, ld_valid, ld_line, power_fail,
                 push_result, drain_valid, drain_undo, drain_region, drain_addr, drain_data,
                 bdry_ack_valid, bdry_ack_region, fack_out_valid, fack_out_region,
                 commit_valid, commit_region, ld_hit, pf_done_pulse, discarded, undo_restore,
                 bdry_wait, progress_out,
                 flush_id, count, bdry_bit, overflow, pf, pf_done, err);
    parameter ENTRIES    = 64;   // 1..4095
    parameter MCS        = 2;    // memory controllers, 1..16
    parameter REGIONS    = 8;    // region window, power of two, < 2^RID_W (cores/wpq_gate.c), <= 64
    parameter RID_W      = 16;   // region ID / flush ID width, 1..16
    parameter ADDR_W     = 32;   // word (8 B) address width
    parameter DATA_W     = 64;
    parameter LINE_WORDS = 8;    // words per line (load CAM), power of two, < 2^(ADDR_W-1)
    parameter PF_WAIT    = 16;   // power failure: idle cycles before discarding, 1..65535
    parameter UNGATED    = 0;    // 0 = LightWSP gated WPQ, 1 = ungated ADR-like variant

    localparam CW  = $clog2(ENTRIES + 1);
    localparam SLW = (REGIONS > 1) ? $clog2(REGIONS) : 1;
    localparam LS  = $clog2(LINE_WORDS);
    localparam LW  = ADDR_W - LS;

    input  wire              clk;
    input  wire              rst;              // synchronous, active high
    input  wire              push_valid;
    input  wire [RID_W-1:0]  push_region;
    input  wire [ADDR_W-1:0] push_addr;
    input  wire [DATA_W-1:0] push_data;
    input  wire              bdry_valid;       // boundary (region ID broadcast) received
    input  wire [RID_W-1:0]  bdry_region;
    input  wire              back_valid;       // bdry-ACK from another MC
    input  wire [RID_W-1:0]  back_region;
    input  wire              fack_valid;       // flush-ACK from another MC
    input  wire [RID_W-1:0]  fack_region;
    input  wire              drain_ready;      // PM accepts one write
    input  wire              ld_valid;         // load CAM search
    input  wire [LW-1:0]     ld_line;
    input  wire              power_fail;
    output reg  [2:0]        push_result;      // wpq_result
    output reg               drain_valid;
    output reg               drain_undo;       // write is undo-logged (overflow mode)
    output reg  [RID_W-1:0]  drain_region;
    output reg  [ADDR_W-1:0] drain_addr;
    output reg  [DATA_W-1:0] drain_data;
    output reg               bdry_ack_valid;   // send a bdry-ACK to the other MCs
    output reg  [RID_W-1:0]  bdry_ack_region;
    output reg               fack_out_valid;   // send a flush-ACK to the other MCs
    output reg  [RID_W-1:0]  fack_out_region;
    output reg               commit_valid;     // region committed (flush ID incremented)
    output reg  [RID_W-1:0]  commit_region;
    output reg               ld_hit;
    output reg               pf_done_pulse;    // power-failure sequence finished at this edge
    output reg  [15:0]       discarded;        // entries discarded then
    output reg               undo_restore;     // undo log must be applied
    output reg               bdry_wait;        // the offered boundary is beyond the window: not taken
    output reg               progress_out;     // protocol state changed at this edge
    output reg  [RID_W-1:0]  flush_id;         // status after the edge
    output reg  [15:0]       count;
    output reg               bdry_bit;
    output reg               overflow;
    output reg               pf;
    output reg               pf_done;
    output reg               err;

    localparam QW = RID_W + ADDR_W + DATA_W;     // entry = {region, addr, data}

    // ---- state ----
    reg [QW-1:0]             q [0:ENTRIES-1];   // one array element per entry (not a flat vector)
    reg [CW-1:0]             cnt;
    reg [RID_W-1:0]          fid;
    reg [REGIONS-1:0]        wb;               // boundary received
    reg [REGIONS*4-1:0]      wba, wfa;         // bdry-ACKs, flush-ACKs from others
    reg                      fsent, ovf, undo, pfl, pfd, er;
    reg [15:0]               pft;

    // ---- next state ----
    reg                      push_do;         // append the offered store at index app
    reg [CW-1:0]             app;
    reg [RID_W-1:0]          n_fid;
    reg [REGIONS-1:0]        n_wb;
    reg [REGIONS*4-1:0]      n_wba, n_wfa;
    reg                      n_fsent, n_ovf, n_undo, n_pf, n_pfd, n_er;
    reg [15:0]               n_pft;
    reg [2:0]                o_res;
    reg                      o_dv, o_du, o_bav, o_fav, o_cv, o_hit, o_pfp, o_ur, o_bw;
    reg [RID_W-1:0]          o_dr, o_bar, o_far, o_cr;
    reg [ADDR_W-1:0]         o_da;
    reg [DATA_W-1:0]         o_dd;
    reg [31:0]               o_disc;

    // ---- temporaries ----
    integer s;
    reg [31:0]        c32, sf32, t32, pft32;
    reg [RID_W-1:0]   d;
    reg [3:0]         a4;
    reg               progress, prog, consumed, pers, has_f, has_f_post, can_drain, drained;

    // ---- queue datapath, per entry ----
    // qv: entry holds a store; match: ... of the flush-ID region; dm: drain candidate (match;
    // UNGATED: any valid entry); first: the oldest candidate; seen: a candidate at or before the
    // entry (entries that move down when the oldest candidate drains); hitv: load CAM hit;
    // sel: the oldest candidate's contents.
    wire [ENTRIES-1:0] qv, match, hitv, dm;
    reg  [ENTRIES-1:0] first, seen;
    reg  [QW-1:0]      sel;
    reg                sn;
    integer            j;
    always @* begin
        sn = 1'b0; sel = {QW{1'b0}};
        for (j = 0; j < ENTRIES; j = j + 1) begin
            first[j] = dm[j] && !sn;
            if (first[j]) sel = q[j];
            sn = sn || dm[j];
            seen[j] = sn;
        end
    end
    genvar g;
    generate
        for (g = 0; g < ENTRIES; g = g + 1) begin : g_q
            localparam [31:0] G32 = g;
            assign qv[g]    = G32[CW-1:0] < cnt;
            assign match[g] = qv[g] && q[g][QW-1 -: RID_W] == fid;
            assign dm[g]    = (UNGATED != 0) ? qv[g] : match[g];
            assign hitv[g]  = qv[g] && q[g][DATA_W + LS +: LW] == ld_line;
        end
    endgenerate

    // persisted(region slot) on the next-state window
    function pers_of;
        input [REGIONS-1:0]   b;
        input [REGIONS*4-1:0] a;
        input [31:0]          slot;
        integer k;
        begin
            pers_of = 1'b0;
            for (k = 0; k < REGIONS; k = k + 1)
                if (k == slot) pers_of = b[k] && (`WPQ_Z32(a[k*4 +: 4], 4) + 1 >= MCS);
        end
    endfunction

    // window slot of a region ID
    function [31:0] slot_of;
        input [RID_W-1:0] r;
        begin
            slot_of = `WPQ_Z32(r, RID_W) & (REGIONS - 1);
        end
    endfunction

    always @* begin
        push_do = 1'b0; app = {CW{1'b0}}; n_fid = fid; n_wb = wb; n_wba = wba; n_wfa = wfa;
        n_fsent = fsent; n_ovf = ovf; n_undo = undo; n_pf = pfl; n_pfd = pfd; n_er = er; n_pft = pft;
        o_res = 3'd0; o_dv = 1'b0; o_du = 1'b0; o_bav = 1'b0; o_fav = 1'b0; o_cv = 1'b0;
        o_hit = 1'b0; o_pfp = 1'b0; o_ur = 1'b0; o_bw = 1'b0;
        o_dr = {RID_W{1'b0}}; o_bar = {RID_W{1'b0}}; o_far = {RID_W{1'b0}}; o_cr = {RID_W{1'b0}};
        o_da = {ADDR_W{1'b0}}; o_dd = {DATA_W{1'b0}}; o_disc = 32'd0;
        c32 = `WPQ_Z32(cnt, CW); sf32 = 32'd0; t32 = 32'd0; pft32 = 32'd0;
        d = {RID_W{1'b0}}; a4 = 4'd0;
        progress = 1'b0; prog = 1'b0; consumed = 1'b0; pers = 1'b0; has_f = 1'b0; has_f_post = 1'b0;
        can_drain = 1'b0; drained = 1'b0;

        if (!pfd) begin
            // (0) power failure
            if (power_fail) n_pf = 1'b1;
            // (1) ACKs from the other controllers
            if (back_valid) begin
                progress = 1'b1;
                d = back_region - fid;
                if (`WPQ_Z32(d, RID_W) < REGIONS) begin
                    for (s = 0; s < REGIONS; s = s + 1)
                        if (s == slot_of(back_region)) begin
                            a4 = n_wba[s*4 +: 4];
                            if (a4 != 4'hF) n_wba[s*4 +: 4] = a4 + 4'd1;
                        end
                end else n_er = 1'b1;
            end
            if (fack_valid) begin
                progress = 1'b1;
                d = fack_region - fid;
                if (`WPQ_Z32(d, RID_W) < REGIONS) begin
                    for (s = 0; s < REGIONS; s = s + 1)
                        if (s == slot_of(fack_region)) begin
                            a4 = n_wfa[s*4 +: 4];
                            if (a4 != 4'hF) n_wfa[s*4 +: 4] = a4 + 4'd1;
                        end
                end else n_er = 1'b1;
            end
            // (2) boundary
            if (bdry_valid) begin
                d = bdry_region - fid;
                if (`WPQ_Z32(d, RID_W) < REGIONS) begin
                    for (s = 0; s < REGIONS; s = s + 1)
                        if (s == slot_of(bdry_region)) n_wb[s] = 1'b1;
                    o_bav = 1'b1;
                    o_bar = bdry_region;
                    progress = 1'b1;
                end else o_bw = 1'b1;                   // window gating: offered again later
            end
            // (3) load CAM search
            if (ld_valid) o_hit = |hitv;
            // (4) drain
            sf32 = slot_of(fid);
            pers = pers_of(n_wb, n_wba, sf32);
            has_f = |match;
            can_drain = (UNGATED != 0) ? (c32 != 0) : (pers && has_f);
            if (drain_ready) begin
                if ((UNGATED != 0) && c32 != 0) begin
                    {o_dr, o_da, o_dd} = sel;                       // oldest entry, any region
                    o_dv = 1'b1;
                    drained = 1'b1;
                    progress = 1'b1; prog = 1'b1;
                end else if ((UNGATED == 0) && (pers || (ovf && !n_pf)) && has_f) begin
                    {o_dr, o_da, o_dd} = sel;
                    o_dv = 1'b1; o_du = !pers;
                    if (!pers) n_undo = 1'b1;
                    drained = 1'b1;
                    progress = 1'b1; prog = 1'b1;
                end else if (push_valid && ovf && !n_pf && !fsent && push_region == fid &&
                             c32 == ENTRIES) begin
                    o_dv = 1'b1; o_du = !pers;
                    o_da = push_addr; o_dd = push_data; o_dr = push_region;
                    if (!pers) n_undo = 1'b1;
                    o_res = 3'd5;                                   // WPQ_BYPASS
                    consumed = 1'b1;
                    progress = 1'b1; prog = 1'b1;
                end
            end
            // the drained entry collapses out of the queue (datapath above)
            if (drained) begin
                has_f_post = |(match & ~first);
                c32 = c32 - 1;
            end else begin
                has_f_post = has_f;
            end
            // (5) flush done -> flush-ACK
            if (!fsent && pers && !has_f_post) begin
                n_fsent = 1'b1;
                o_fav = 1'b1; o_far = fid;
                progress = 1'b1;
            end
            // (6) commit
            for (s = 0; s < REGIONS; s = s + 1)
                if (s == sf32) t32 = `WPQ_Z32(n_wfa[s*4 +: 4], 4);
            if (n_fsent && t32 + 1 >= MCS) begin
                for (s = 0; s < REGIONS; s = s + 1)
                    if (s == sf32) begin
                        n_wb[s] = 1'b0; n_wba[s*4 +: 4] = 4'd0; n_wfa[s*4 +: 4] = 4'd0;
                    end
                n_fid = fid + 1'b1;
                n_fsent = 1'b0; n_ovf = 1'b0; n_undo = 1'b0;
                o_cv = 1'b1; o_cr = fid;
                progress = 1'b1; prog = 1'b1;
            end
            // (7) the offered store
            if (push_valid && !consumed) begin
                sf32 = slot_of(n_fid);
                if (n_pf) o_res = 3'd4;                                      // WPQ_OFF
                else if ((n_fsent && push_region == n_fid) ||
                         (n_ovf && !n_wb[sf32[SLW-1:0]] && push_region != n_fid))
                    o_res = 3'd3;                                            // WPQ_DECLINED
                else if (c32 >= ENTRIES) o_res = 3'd2;                       // WPQ_FULL
                else begin
                    push_do = 1'b1;
                    app = c32[CW-1:0];
                    c32 = c32 + 1;
                    o_res = 3'd1;                                            // WPQ_OK
                end
            end
            // (8) deadlock detection: full queue, no boundary of the flush-ID region
            sf32 = slot_of(n_fid);
            if ((UNGATED == 0) && !n_ovf && !n_pf && c32 == ENTRIES && !n_wb[sf32[SLW-1:0]]) n_ovf = 1'b1;
            // (9) power-failure timer
            if (n_pf) begin
                pft32 = `WPQ_Z32(pft, 16);
                if (progress || can_drain) pft32 = 32'd0;
                else pft32 = pft32 + 1;
                if (pft32 >= PF_WAIT) begin
                    o_disc = c32;
                    o_ur = n_undo && !pers_of(n_wb, n_wba, sf32);
                    c32 = 32'd0;
                    n_pfd = 1'b1;
                    o_pfp = 1'b1;
                end
                n_pft = pft32[15:0];
            end
        end else if (push_valid) begin
            o_res = 3'd4;
        end
    end

    wire unused_ok = &{1'b0, o_disc[31:16], 1'b0};

    // queue storage, per entry: no reset needed (entries at or above cnt are never read). The offered
    // store is appended at index app; when the oldest candidate drains, it and every entry after it
    // take the next entry's contents (the last one zeros).
    generate
        for (g = 0; g < ENTRIES; g = g + 1) begin : g_qs
            localparam [31:0] G32 = g;
            wire [QW-1:0] nxt;
            if (g + 1 < ENTRIES) begin : g_nxt
                assign nxt = q[g + 1];
            end else begin : g_last
                assign nxt = {QW{1'b0}};
            end
            always @(posedge clk)
                if (push_do && app == G32[CW-1:0]) q[g] <= {push_region, push_addr, push_data};
                else if (drained && seen[g]) q[g] <= nxt;
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            cnt <= {CW{1'b0}}; fid <= {RID_W{1'b0}}; wb <= {REGIONS{1'b0}};
            wba <= {(REGIONS*4){1'b0}}; wfa <= {(REGIONS*4){1'b0}};
            fsent <= 1'b0; ovf <= 1'b0; undo <= 1'b0; pfl <= 1'b0; pfd <= 1'b0; er <= 1'b0; pft <= 16'd0;
            push_result <= 3'd0; drain_valid <= 1'b0; drain_undo <= 1'b0; drain_region <= {RID_W{1'b0}};
            drain_addr <= {ADDR_W{1'b0}}; drain_data <= {DATA_W{1'b0}};
            bdry_ack_valid <= 1'b0; bdry_ack_region <= {RID_W{1'b0}};
            fack_out_valid <= 1'b0; fack_out_region <= {RID_W{1'b0}};
            commit_valid <= 1'b0; commit_region <= {RID_W{1'b0}}; ld_hit <= 1'b0;
            pf_done_pulse <= 1'b0; discarded <= 16'd0; undo_restore <= 1'b0;
            bdry_wait <= 1'b0; progress_out <= 1'b0;
            flush_id <= {RID_W{1'b0}}; count <= 16'd0; bdry_bit <= 1'b0; overflow <= 1'b0;
            pf <= 1'b0; pf_done <= 1'b0; err <= 1'b0;
        end else begin
            cnt <= c32[CW-1:0]; fid <= n_fid;
            wb <= n_wb; wba <= n_wba; wfa <= n_wfa;
            fsent <= n_fsent; ovf <= n_ovf; undo <= n_undo; pfl <= n_pf; pfd <= n_pfd; er <= n_er;
            pft <= n_pft;
            push_result <= o_res; drain_valid <= o_dv; drain_undo <= o_du; drain_region <= o_dr;
            drain_addr <= o_da; drain_data <= o_dd;
            bdry_ack_valid <= o_bav; bdry_ack_region <= o_bar;
            fack_out_valid <= o_fav; fack_out_region <= o_far;
            commit_valid <= o_cv; commit_region <= o_cr; ld_hit <= o_hit;
            pf_done_pulse <= o_pfp; discarded <= o_disc[15:0]; undo_restore <= o_ur;
            bdry_wait <= o_bw; progress_out <= prog;
            flush_id <= n_fid; count <= c32[15:0];
            bdry_bit <= n_wb[slot_of(n_fid)];
            overflow <= n_ovf; pf <= n_pf; pf_done <= n_pfd; err <= n_er;
        end
    end
`ifdef FORMAL
    // ---- formal properties (formal/prove.py; docs/rtl.md "Formal properties"). Not synthesized,
    // not Verilated: only `read_verilog -formal -DFORMAL` sees this. Each property group is
    // compiled in by its FP_* define; f_* are formal-only shadow signals. ----
    reg f_init = 1'b1;                               // the first cycle: reset
    always @(posedge clk) f_init <= 1'b0;
    always @* if (f_init) assume(rst); else assume(!rst);
    // legal inputs: a store names a region of the window [flush ID, flush ID + REGIONS) whose
    // boundary has not arrived here yet, nor arrives in the same cycle (stores of r reach the
    // controller before r's boundary; the cycle order takes the boundary first)
    reg [RID_W-1:0] f_pd;
    always @* begin
        f_pd = push_region - fid;
        if (!rst && push_valid) begin
            assume(`WPQ_Z32(f_pd, RID_W) < REGIONS);
            assume(!wb[slot_of(push_region)]);
            assume(!(bdry_valid && bdry_region == push_region));
        end
    end
    // every group: the queue never holds more than ENTRIES stores (inductive helper)
    always @* if (!rst && !f_init) assert(cnt <= ENTRIES);
    // ... and once the flush-ACK of the flush-ID region went out, that region is persisted and
    // has no store left here
    always @* if (!rst && !f_init && fsent) assert(!(|match) && pers_of(wb, wba, slot_of(fid)));
`ifdef FP_window
    // the queue holds no write of a committed region: every queued entry is of a region in the
    // window [flush ID, flush ID + REGIONS), and none of the flush-ID region after its flush-ACK
    reg [RID_W-1:0] f_qd;
    integer fj;
    always @* if (!rst && !f_init) begin
        for (fj = 0; fj < ENTRIES; fj = fj + 1) begin
            f_qd = q[fj][QW-1 -: RID_W] - fid;
            if (qv[fj]) assert(`WPQ_Z32(f_qd, RID_W) < REGIONS);
        end
    end
`endif
`ifdef FP_drain_order
    // LightWSP IV-D: a write of region r leaves for PM only when every older region is committed
    // at this controller, i.e. r is the flush-ID region (regions < flush ID are committed, the
    // flush-ID region is the oldest uncommitted one). Fails with UNGATED = 1.
    always @* if (!rst && !f_init && o_dv) assert(o_dr == fid);
`endif
`ifdef FP_persist_gate
    // a drained write is of a persisted region (boundary here + MCS-1 bdry-ACKs), or undo-logged
    // (overflow mode); never both undo and persisted
    reg [3:0] f_ba;
    reg       f_pers;
    always @* begin
        // persisted, from the registered window and this cycle's boundary / bdry-ACK (the
        // next-state window is cleared again by a commit in the same cycle)
        f_ba = wba[slot_of(fid)*4 +: 4];
        if (back_valid && back_region == fid && f_ba != 4'hF) f_ba = f_ba + 4'd1;
        f_pers = (wb[slot_of(fid)] || (bdry_valid && bdry_region == fid)) && (`WPQ_Z32(f_ba, 4) + 1 >= MCS);
        if (!rst && !f_init && o_dv) assert(f_pers != o_du);
    end
`endif
`ifdef FP_commit
    // a region commits only when persisted, flushed here (no entry left, flush-ACK sent) and
    // flushed at the other MCS-1 controllers; the flush ID advances by exactly one
    always @* if (!rst && !f_init && o_cv) begin
        assert(pers && (fsent || o_fav) && !has_f_post && t32 + 1 >= MCS);
        assert(o_cr == fid && n_fid == fid + 1'b1);
    end
    always @* if (!rst && !f_init && !o_cv) assert(n_fid == fid);
`endif
`ifdef FP_structural
    // no overflow / underflow of the queue; a drain takes a valid entry; registered outputs
    // mirror the state; reset state
    always @* if (!rst && !f_init) begin
        if (push_do) assert(app == cnt - (drained ? 1'b1 : 1'b0) && app < ENTRIES);
        if (drained) assert(cnt != {CW{1'b0}} && |first);
        if (o_res == 3'd1) assert(push_do);
        assert(cnt <= ENTRIES);
        assert(count == {{(16-CW){1'b0}}, cnt});
        assert(flush_id == fid && overflow == ovf && pf == pfl && pf_done == pfd);
        if (UNGATED != 0) assert(!ovf && !undo);
    end
    reg f_rst_q = 1'b0;
    always @(posedge clk) f_rst_q <= rst;
    always @* if (f_rst_q) begin
        assert(cnt == 0 && fid == 0 && wb == 0 && !fsent && !ovf && !pfl && !pfd);
        assert(!drain_valid && !commit_valid && push_result == 0 && count == 0 && !err);
    end
`endif
`endif
endmodule
`undef WPQ_Z32
