// BROI controller: BROI queues + BLP-aware barrier epoch scheduling (BROI paper IV-D/E).
// Golden model: cores/broi_sched.c (broi_sched_step). One clock edge = one broi_sched_step call:
// (1) a schedule step on the registered state (priority keys, one request per ready bank, barrier
// issue of drained SubReady-SETs), (2) the offered push/barrier on the resulting state.
// All outputs are registered (they report what happened at the last edge).
//
// Entry i (0..LOCAL-1 local, LOCAL..LOCAL+REMOTE-1 remote) holds up to UNITS units {bank, tag}
// in arrival order; the barrier index registers are the set lengths len0/len1 (nbar = number of
// barriers pending, at most LBARS / RBARS). Priority key of entry i (eq. 2, in eighths, offset to
// stay non-negative): 8*BLP((R - R_i) | N_i) + SIGMA*(UNITS - |R_i|); class 2 = starving remote,
// 1 = local, 0 = remote (eligible only with mc_low); ties go to the lowest entry index.
//
// SERIAL = 0: the keys of all T entries are computed and compared in one cycle (one decision per
// cycle). SERIAL = K >= 1: K shared key evaluators walk the entries round-robin (pointer ptr),
// K entries per cycle, folding each entry into a per-bank best-candidate register
// {valid, entry, class+key} (strictly greater replaces, so ties keep the lowest index); at the
// last cycle of the sweep (ptr + K >= T) the banks issue from their best candidates and
// compaction, starvation counters and barrier issue run as in a parallel step; the other cycles
// issue nothing. A decision every ceil(T / K) cycles. The offered push/barrier is applied every
// cycle. Same as cores/broi_sched.c with cfg.serial = K.
//
// MERGE = 1: the Epoch baseline of the paper's Figure 3(a) (cores/broi_sched.c cfg.epoch_merge):
// the local entries' i-th barrier sets form global epoch i. Per local entry an `ahead` bit (its
// SubReady-SET belongs to the next global epoch): an ahead entry is not eligible and holds its
// barrier; a local key is {class 1, 0} (no eq. 2: ties go to the lowest entry); a local entry that
// issues its barrier becomes ahead; at a decision, when no local entry that is not ahead holds a
// unit or a pending barrier and some entry is ahead, every ahead bit clears (the global epoch
// advances, output epoch_done). Remote entries behave as with MERGE = 0.
//
// ORDER = 1: the durability order (cores/broi_sched.c cfg.order): per entry a completion floor
// ofl, the latest reported completion of its issuing set osd and a bit onx (a barrier issued since
// its last issued write); with MERGE the same three for the global epochs (gfl, gsd, gnx; gnx set
// when the epoch advances). An issued request's floor (issue_floor, bank b: [b*TIME_W +: TIME_W])
// is max(ofl, and for a merged local entry gfl), after the first write of a new set moved the
// floor to max(floor, set_done). Completion lanes (cpl_valid/entry/line/time, lane c), applied in
// lane order before the schedule step: a table of LINES slots {line, done} (live while done > now)
// puts a write behind the line's previous one (cpl_done = max(cpl_time, live slot's done); a new
// line takes the lowest free slot, none free: not remembered) and raises osd (and gsd) of the
// entry. ORDER = 0: no such state; issue_floor and cpl_done are 0. LINE_W / TIME_W: port widths.
module broi_sched (clk, rst, in_valid, in_barrier, in_entry, in_bank, in_tag, bank_ready, mc_low,
                   result, issue_valid, issue_entry, issue_tag, barrier, starving, occupancy, epoch_done,
                   now, cpl_valid, cpl_entry, cpl_line, cpl_time, issue_floor, cpl_done);
    parameter LOCAL  = 8;    // local BROI entries (one per core)
    parameter REMOTE = 2;    // remote BROI entries (one per RDMA channel), >= 0
    parameter UNITS  = 8;    // request units per entry, 1..16
    parameter BANKS  = 8;    // memory banks, power of two, 1..16
    parameter LBARS  = 2;    // barrier index registers per local entry, 1..2
    parameter RBARS  = 1;    // per remote entry, 1..2
    parameter SIGMA  = 4;    // sigma in eighths, 0..15
    parameter STARVE = 64;   // remote starvation threshold (steps), 1..65535
    parameter TAG_W  = 4;    // request tag (persist-buffer index) width, 1..8
    parameter SERIAL = 0;    // 0: parallel; K = 1..32: serial, K entries evaluated per cycle
    parameter MERGE  = 0;    // 0: BROI; 1: Figure 3(a) Epoch baseline (merged global epochs)

    localparam T  = LOCAL + REMOTE;
    localparam EW = (T > 1) ? $clog2(T) : 1;
    localparam BW = (BANKS > 1) ? $clog2(BANKS) : 1;
    localparam UW = $clog2(UNITS + 1);
    localparam SW = $clog2(STARVE + 1);
    localparam RW = (REMOTE > 0) ? REMOTE : 1;
    localparam KL = (SERIAL == 0) ? 1 : ((SERIAL > T) ? T : SERIAL);   // key evaluators (serial)

    input  wire                   clk;
    input  wire                   rst;           // synchronous, active high
    input  wire                   in_valid;
    input  wire                   in_barrier;    // 1: barrier, 0: request
    input  wire [EW-1:0]          in_entry;
    input  wire [BW-1:0]          in_bank;
    input  wire [TAG_W-1:0]       in_tag;
    input  wire [BANKS-1:0]       bank_ready;
    input  wire                   mc_low;
    output reg  [2:0]             result;        // broi_result
    output reg  [BANKS-1:0]       issue_valid;
    output reg  [BANKS*EW-1:0]    issue_entry;   // bank b: [b*EW +: EW]
    output reg  [BANKS*TAG_W-1:0] issue_tag;     // bank b: [b*TAG_W +: TAG_W]
    output reg  [T-1:0]           barrier;       // entry i issued a barrier
    output reg  [RW-1:0]          starving;      // remote entry r starving
    output reg  [15:0]            occupancy;
    output reg                    epoch_done;    // MERGE: the global epoch advanced at this edge

    // ---- state ----
    reg [T*UNITS*BW-1:0]    ub;      // unit bank
    reg [T*UNITS*TAG_W-1:0] ut;      // unit tag
    reg [T*UW-1:0]          cnt, len0, len1;
    reg [T*2-1:0]           nbar;
    reg [T-1:0]             dirty;
    reg [T*SW-1:0]          stv;     // starvation counters (remote entries)
    reg [T-1:0]             ahead;   // MERGE: local entry's SubReady-SET is in the next global epoch
    // serial mode only (constant 0 when SERIAL = 0): sweep pointer, per-bank best candidate
    reg [EW-1:0]            ptr;
    reg [BANKS-1:0]         bvalid;
    reg [BANKS*EW-1:0]      bent;
    reg [BANKS*12-1:0]      bkey;

    // ---- next state / outputs ----
    reg [T*UNITS*BW-1:0]    n_ub;
    reg [T*UNITS*TAG_W-1:0] n_ut;
    reg [T*UW-1:0]          n_cnt, n_len0, n_len1;
    reg [T*2-1:0]           n_nbar;
    reg [T-1:0]             n_dirty;
    reg [T*SW-1:0]          n_stv;
    reg [T-1:0]             n_ahead;
    reg                     o_done, opn;
    reg [2:0]               o_res;
    reg [BANKS-1:0]         o_valid;
    reg [BANKS*EW-1:0]      o_entry;
    reg [BANKS*TAG_W-1:0]   o_tag;
    reg [T-1:0]             o_bar;
    reg [RW-1:0]            o_starv;
    /* verilator lint_off UNUSED */
    reg [EW-1:0]            n_ptr;   // read only when SERIAL != 0
    reg [BANKS-1:0]         n_bvalid;
    reg [BANKS*EW-1:0]      n_bent;
    reg [BANKS*12-1:0]      n_bkey;
    /* verilator lint_on UNUSED */

    // ---- constants at their natural widths ----
    localparam [31:0] UNITS32 = UNITS, SIGMA32 = SIGMA, STARVE32 = STARVE, T32 = T;
    localparam [31:0] LB32 = LBARS, RB32 = RBARS;
    localparam [UW-1:0] UNITS_C  = UNITS32[UW-1:0];
    localparam [9:0]    SIGMA_C  = SIGMA32[9:0];
    localparam [SW-1:0] STARVE_C = STARVE32[SW-1:0];
    localparam [EW:0]   T_C      = T32[EW:0];
    localparam [1:0]    LB_C     = LB32[1:0], RB_C = RB32[1:0];

    // ---- temporaries ----
    integer i, j, k, q, b;
    reg [T*UW-1:0]     e0;                // per entry: |s^0| (end of SubReady-SET)
    reg [T*BANKS-1:0]  rm, nm;            // bank masks of R_i and N_i
    reg [T*12-1:0]     fkey;              // per entry: {class, key}
    reg [T-1:0]        elig;
    reg [T*UNITS-1:0]  rem;               // unit issued this step
    reg [BANKS-1:0]    others;
    reg [UW-1:0]       e0i, e1, cn, l0, l1, p, kk, qq, rmv;
    reg [1:0]          nb, mb;
    reg [4:0]          blp;
    reg [9:0]          key;
    reg [11:0]         bestkey;
    reg [EW-1:0]       best, ii;
    reg [SW-1:0]       sv;
    reg [UNITS*UW-1:0] pos;
    reg [UNITS-1:0]    keep;
    reg [15:0]         occ;
    reg                found, hit;
    reg [BW-1:0]       ubk, selb, bb;
    reg [TAG_W-1:0]    selt;
    reg [BANKS-1:0]    sfound;            // per bank: a candidate was chosen
    reg [BANKS*EW-1:0] sbest;             // per bank: the chosen entry
    reg                decide;            // this cycle is a schedule decision
    reg [BANKS-1:0]    lrm, lnm;          // serial lane: R_i / N_i masks of the evaluated entry
    reg [UW-1:0]       le0;
    reg [1:0]          lcls;
    reg                lel;
    reg [11:0]         lkey;
    integer            l, idx, pi;

    always @* begin
        n_ub = ub; n_ut = ut; n_cnt = cnt; n_len0 = len0; n_len1 = len1; n_nbar = nbar;
        n_dirty = dirty; n_stv = stv; n_ahead = ahead; o_done = 1'b0; opn = 1'b0;
        o_res = 3'd0; o_valid = {BANKS{1'b0}}; o_entry = {(BANKS*EW){1'b0}};
        o_tag = {(BANKS*TAG_W){1'b0}}; o_bar = {T{1'b0}}; o_starv = {RW{1'b0}}; occ = 16'd0;
        rm = {(T*BANKS){1'b0}}; nm = {(T*BANKS){1'b0}}; elig = {T{1'b0}}; rem = {(T*UNITS){1'b0}};
        others = {BANKS{1'b0}}; keep = {UNITS{1'b0}};
        e0i = {UW{1'b0}}; e1 = {UW{1'b0}}; cn = {UW{1'b0}}; l0 = {UW{1'b0}}; l1 = {UW{1'b0}};
        p = {UW{1'b0}}; kk = {UW{1'b0}}; qq = {UW{1'b0}}; rmv = {UW{1'b0}};
        nb = 2'd0; mb = 2'd0; blp = 5'd0; key = 10'd0; bestkey = 12'd0; best = {EW{1'b0}};
        ii = {EW{1'b0}}; sv = {SW{1'b0}};
        found = 1'b0; hit = 1'b0; ubk = {BW{1'b0}}; selb = {BW{1'b0}}; bb = {BW{1'b0}};
        selt = {TAG_W{1'b0}};
        pos = {(UNITS*UW){1'b0}}; e0 = {(T*UW){1'b0}}; fkey = {(T*12){1'b0}};
        n_ptr = ptr; n_bvalid = bvalid; n_bent = bent; n_bkey = bkey;
        sfound = {BANKS{1'b0}}; sbest = {(BANKS*EW){1'b0}}; decide = 1'b1;
        lrm = {BANKS{1'b0}}; lnm = {BANKS{1'b0}}; le0 = {UW{1'b0}}; lcls = 2'd0; lel = 1'b0;
        lkey = 12'd0; idx = 0; pi = 0;

        // (i) sets and priority keys on the registered state
        for (i = 0; i < T; i = i + 1) begin
            cn = cnt[i*UW +: UW];
            l0 = len0[i*UW +: UW];
            l1 = len1[i*UW +: UW];
            nb = nbar[i*2 +: 2];
            e0i = (nb != 2'd0) ? l0 : cn;
            e0[i*UW +: UW] = e0i;
            e1 = (nb == 2'd2) ? l0 + l1 : cn;
            for (k = 0; k < UNITS; k = k + 1) begin
                kk = k[UW-1:0];
                ubk = ub[(i*UNITS+k)*BW +: BW];
                for (b = 0; b < BANKS; b = b + 1) begin
                    bb = b[BW-1:0];
                    if (ubk == bb) begin
                        if (kk < e0i) rm[i*BANKS+b] = 1'b1;
                        if (nb != 2'd0 && kk >= e0i && kk < e1) nm[i*BANKS+b] = 1'b1;
                    end
                end
            end
        end
        if (SERIAL == 0) begin
            // (i) priority keys of all entries, (ii) best candidate per bank, in one cycle
            for (i = 0; i < T; i = i + 1) begin
                others = {BANKS{1'b0}};
                for (j = 0; j < T; j = j + 1)
                    if (j != i) others = others | rm[j*BANKS +: BANKS];
                others = others | nm[i*BANKS +: BANKS];
                blp = 5'd0;
                for (b = 0; b < BANKS; b = b + 1)
                    blp = blp + {4'd0, others[b]};
                // 8*BLP + SIGMA*(UNITS - |R_i|), < 2^10 for the parameter ranges above
                key = {2'b00, blp, 3'b000} + SIGMA_C * {{(10-UW){1'b0}}, UNITS_C - e0[i*UW +: UW]};
                sv = stv[i*SW +: SW];
                if (i < LOCAL && MERGE != 0) begin
                    fkey[i*12 +: 12] = {2'd1, 10'd0};           // no eq. 2
                    elig[i] = !ahead[i];                        // only epoch-G sets
                end else if (i < LOCAL) begin
                    fkey[i*12 +: 12] = {2'd1, key};
                    elig[i] = 1'b1;
                end else if (sv >= STARVE_C) begin
                    fkey[i*12 +: 12] = {2'd2, key};
                    elig[i] = 1'b1;
                end else begin
                    fkey[i*12 +: 12] = {2'd0, key};
                    elig[i] = mc_low;
                end
            end
            for (b = 0; b < BANKS; b = b + 1) begin
                found = 1'b0; best = {EW{1'b0}}; bestkey = 12'd0;
                for (i = 0; i < T; i = i + 1) begin
                    if (elig[i] && rm[i*BANKS+b] && (!found || fkey[i*12 +: 12] > bestkey)) begin
                        found = 1'b1; best = i[EW-1:0]; bestkey = fkey[i*12 +: 12];
                    end
                end
                sfound[b] = found;
                sbest[b*EW +: EW] = best;
            end
        end else begin
            // serial: KL entries from ptr on fold into the per-bank best registers
            pi = {{(32-EW){1'b0}}, ptr};
            for (l = 0; l < KL; l = l + 1) begin
                idx = pi + l;
                if (idx < T) begin
                    lrm = {BANKS{1'b0}}; lnm = {BANKS{1'b0}}; le0 = {UW{1'b0}}; sv = {SW{1'b0}};
                    others = {BANKS{1'b0}};
                    for (j = 0; j < T; j = j + 1) begin
                        if (j == idx) begin
                            lrm = rm[j*BANKS +: BANKS]; lnm = nm[j*BANKS +: BANKS];
                            le0 = e0[j*UW +: UW]; sv = stv[j*SW +: SW];
                        end else others = others | rm[j*BANKS +: BANKS];
                    end
                    others = others | lnm;
                    blp = 5'd0;
                    for (b = 0; b < BANKS; b = b + 1)
                        blp = blp + {4'd0, others[b]};
                    key = {2'b00, blp, 3'b000} + SIGMA_C * {{(10-UW){1'b0}}, UNITS_C - le0};
                    if (idx < LOCAL) begin lcls = 2'd1; lel = 1'b1; end
                    else if (sv >= STARVE_C) begin lcls = 2'd2; lel = 1'b1; end
                    else begin lcls = 2'd0; lel = mc_low; end
                    lkey = {lcls, key};
                    if (idx < LOCAL && MERGE != 0) begin
                        lkey = {2'd1, 10'd0};
                        for (j = 0; j < T; j = j + 1)
                            if (j == idx) lel = !ahead[j];
                    end
                    ii = idx[EW-1:0];
                    for (b = 0; b < BANKS; b = b + 1) begin
                        if (lel && lrm[b] && (!n_bvalid[b] || lkey > n_bkey[b*12 +: 12])) begin
                            n_bvalid[b] = 1'b1; n_bent[b*EW +: EW] = ii; n_bkey[b*12 +: 12] = lkey;
                        end
                    end
                end
            end
            if (pi + KL >= T) begin             // last cycle of the sweep: decide
                sfound = n_bvalid; sbest = n_bent;
                n_bvalid = {BANKS{1'b0}}; n_bent = {(BANKS*EW){1'b0}}; n_bkey = {(BANKS*12){1'b0}};
                n_ptr = {EW{1'b0}};
            end else begin
                decide = 1'b0;
                idx = pi + KL;
                n_ptr = idx[EW-1:0];
            end
        end

        // (iii) one request per ready bank from its chosen entry
        for (b = 0; b < BANKS; b = b + 1) begin
            bb = b[BW-1:0];
            best = sbest[b*EW +: EW];
            if (decide && bank_ready[b] && sfound[b]) begin
                o_valid[b] = 1'b1;                  // the candidate has a unit of bank b in R_i
                o_entry[b*EW +: EW] = best;
                for (i = 0; i < T; i = i + 1) begin
                    ii = i[EW-1:0];
                    if (ii == best) begin
                        hit = 1'b0;
                        for (k = 0; k < UNITS; k = k + 1) begin
                            kk = k[UW-1:0];
                            ubk = ub[(i*UNITS+k)*BW +: BW];
                            if (!hit && kk < e0[i*UW +: UW] && ubk == bb) begin
                                hit = 1'b1;
                                rem[i*UNITS+k] = 1'b1;
                                o_tag[b*TAG_W +: TAG_W] = ut[(i*UNITS+k)*TAG_W +: TAG_W];
                            end
                        end
                    end
                end
            end
        end

        // compaction, starvation counters, (iv) barrier issue (decision cycles only)
        for (i = 0; i < T; i = i + 1) if (decide) begin
            cn = cnt[i*UW +: UW];
            l0 = len0[i*UW +: UW];
            l1 = len1[i*UW +: UW];
            nb = nbar[i*2 +: 2];
            p = {UW{1'b0}};
            for (k = 0; k < UNITS; k = k + 1) begin
                kk = k[UW-1:0];
                keep[k] = (kk < cn) && !rem[i*UNITS+k];
                pos[k*UW +: UW] = p;
                if (keep[k]) p = p + 1'b1;
            end
            for (q = 0; q < UNITS; q = q + 1) begin
                qq = q[UW-1:0];
                selb = {BW{1'b0}}; selt = {TAG_W{1'b0}};
                for (k = 0; k < UNITS; k = k + 1) begin
                    if (keep[k] && pos[k*UW +: UW] == qq) begin
                        selb = ub[(i*UNITS+k)*BW +: BW];
                        selt = ut[(i*UNITS+k)*TAG_W +: TAG_W];
                    end
                end
                n_ub[(i*UNITS+q)*BW +: BW] = selb;
                n_ut[(i*UNITS+q)*TAG_W +: TAG_W] = selt;
            end
            rmv = cn - p;
            if (nb != 2'd0) l0 = l0 - rmv;
            cn = p;
            if (i >= LOCAL) begin
                sv = stv[i*SW +: SW];
                if (rem[i*UNITS +: UNITS] != {UNITS{1'b0}} || e0[i*UW +: UW] == {UW{1'b0}}) sv = {SW{1'b0}};
                else if (sv < STARVE_C) sv = sv + 1'b1;
                n_stv[i*SW +: SW] = sv;
            end
            if (nb != 2'd0 && l0 == {UW{1'b0}} && !(MERGE != 0 && i < LOCAL && ahead[i])) begin
                o_bar[i] = 1'b1;
                if (MERGE != 0 && i < LOCAL) n_ahead[i] = 1'b1;
                l0 = (nb == 2'd2) ? l1 : {UW{1'b0}};
                l1 = {UW{1'b0}};
                nb = nb - 2'd1;
            end
            n_cnt[i*UW +: UW] = cn;
            n_len0[i*UW +: UW] = l0;
            n_len1[i*UW +: UW] = l1;
            n_nbar[i*2 +: 2] = nb;
        end

        // MERGE: the global epoch is complete when no local entry of it holds a unit or a barrier
        if (MERGE != 0 && decide) begin
            for (i = 0; i < LOCAL; i = i + 1)
                if (!n_ahead[i] && (n_cnt[i*UW +: UW] != {UW{1'b0}} || n_nbar[i*2 +: 2] != 2'd0)) opn = 1'b1;
            if (n_ahead != {T{1'b0}} && !opn) begin
                n_ahead = {T{1'b0}};
                o_done = 1'b1;
            end
        end

        // (2) the offered operation
        if (in_valid) begin
            if ({1'b0, in_entry} >= T_C) o_res = 3'd4;                  // BROI_BAD
            for (i = 0; i < T; i = i + 1) begin
                ii = i[EW-1:0];
                if (ii == in_entry) begin
                    cn = n_cnt[i*UW +: UW];
                    l0 = n_len0[i*UW +: UW];
                    nb = n_nbar[i*2 +: 2];
                    mb = (i < LOCAL) ? LB_C : RB_C;
                    if (!in_barrier) begin
                        if (cn >= UNITS_C) o_res = 3'd3;                 // BROI_FULL
                        else begin
                            for (q = 0; q < UNITS; q = q + 1) begin
                                qq = q[UW-1:0];
                                if (qq == cn) begin
                                    n_ub[(i*UNITS+q)*BW +: BW] = (BANKS > 1) ? in_bank : {BW{1'b0}};
                                    n_ut[(i*UNITS+q)*TAG_W +: TAG_W] = in_tag;
                                end
                            end
                            n_cnt[i*UW +: UW] = cn + 1'b1;
                            n_dirty[i] = 1'b1;
                            o_res = 3'd1;                                // BROI_OK
                        end
                    end else begin
                        if (!n_dirty[i]) o_res = 3'd2;                   // BROI_MERGED
                        else if (nb >= mb) o_res = 3'd3;                 // BROI_FULL
                        else begin
                            if (nb == 2'd0) n_len0[i*UW +: UW] = cn;
                            else n_len1[i*UW +: UW] = cn - l0;
                            n_nbar[i*2 +: 2] = nb + 2'd1;
                            n_dirty[i] = 1'b0;
                            o_res = 3'd1;
                        end
                    end
                end
            end
        end

        // status after the edge
        for (i = 0; i < T; i = i + 1)
            occ = occ + {{(16-UW){1'b0}}, n_cnt[i*UW +: UW]};
        for (i = LOCAL; i < T; i = i + 1)
            if (n_stv[i*SW +: SW] >= STARVE_C) o_starv[i-LOCAL] = 1'b1;
    end


    generate if (SERIAL != 0) begin : g_serial
        always @(posedge clk) begin
            if (rst) begin
                ptr <= {EW{1'b0}}; bvalid <= {BANKS{1'b0}}; bent <= {(BANKS*EW){1'b0}};
                bkey <= {(BANKS*12){1'b0}};
            end else begin
                ptr <= n_ptr; bvalid <= n_bvalid; bent <= n_bent; bkey <= n_bkey;
            end
        end
    end else begin : g_parallel
        always @* begin
            ptr = {EW{1'b0}}; bvalid = {BANKS{1'b0}}; bent = {(BANKS*EW){1'b0}}; bkey = {(BANKS*12){1'b0}};
        end
    end endgenerate

    // ---- ORDER: parameters and ports (declared here, after the scheduler, so that ORDER = 0
    // leaves the scheduler's netlist as it was) ----
    parameter ORDER  = 0;    // 1: durability order (completion floors, per-line completion order)
    parameter LINES  = 1;    // ORDER: line-order table slots, >= 1
    parameter LINE_W = 1;    // line id width, 1..64
    parameter TIME_W = 1;    // timestamp width, 1..64
    /* verilator lint_off UNUSED */
    input  wire [TIME_W-1:0]      now;           // ORDER only
    input  wire [BANKS-1:0]       cpl_valid;     // completion lane c reports a device completion
    input  wire [BANKS*EW-1:0]    cpl_entry;     // lane c: [c*EW +: EW]
    input  wire [BANKS*LINE_W-1:0] cpl_line;
    input  wire [BANKS*TIME_W-1:0] cpl_time;
    /* verilator lint_on UNUSED */
    output reg  [BANKS*TIME_W-1:0] issue_floor;  // ORDER: bank b's request starts no earlier
    output reg  [BANKS*TIME_W-1:0] cpl_done;     // ORDER: lane c's completion in line order

    // ORDER: the durability order, on this edge's schedule outcome (o_valid / o_entry / o_bar /
    // o_done): (0) completion lanes in lane order (line order, then the set's completion),
    // (1) floors of the issued requests in bank order (the first write of a new set moves the
    // floor), (2) barriers issued now open their entries' next sets, a closed global epoch the next.
    generate if (ORDER != 0) begin : g_order
        reg [T-1:0]            onx, n_onx;     // a barrier issued since the entry's last issued write
        reg [T*TIME_W-1:0]     ofl, osd;       // per entry: floor, latest completion of its issuing set
        reg [T*TIME_W-1:0]     n_ofl, n_osd;
        reg                    gnx, n_gnx;     // MERGE: the same for the global epochs
        reg [TIME_W-1:0]       gfl, gsd, n_gfl, n_gsd;
        reg [LINES*LINE_W-1:0] lline, n_lline; // line-order table: {line, done}, live while done > now
        reg [LINES*TIME_W-1:0] ldone, n_ldone;
        reg [BANKS*TIME_W-1:0] o_floor, o_cdone;
        reg [TIME_W-1:0]       d, fl, vt;
        reg                    lhit, lfree;
        reg [EW-1:0]           oi;
        integer                oc, oj, ob, oe, hj, fj;
        always @* begin
            n_onx = onx; n_ofl = ofl; n_osd = osd; n_gnx = gnx; n_gfl = gfl; n_gsd = gsd;
            n_lline = lline; n_ldone = ldone;
            o_floor = {(BANKS*TIME_W){1'b0}}; o_cdone = {(BANKS*TIME_W){1'b0}};
            d = {TIME_W{1'b0}}; fl = {TIME_W{1'b0}}; vt = {TIME_W{1'b0}}; lhit = 1'b0; lfree = 1'b0;
            oi = {EW{1'b0}}; hj = 0; fj = 0;
            // (0) completion lanes
            for (oc = 0; oc < BANKS; oc = oc + 1) if (cpl_valid[oc]) begin
                d = cpl_time[oc*TIME_W +: TIME_W];
                lhit = 1'b0; lfree = 1'b0; hj = 0; fj = 0;
                for (oj = 0; oj < LINES; oj = oj + 1) begin
                    if (n_ldone[oj*TIME_W +: TIME_W] > now) begin
                        if (!lhit && n_lline[oj*LINE_W +: LINE_W] == cpl_line[oc*LINE_W +: LINE_W]) begin
                            lhit = 1'b1; hj = oj;
                        end
                    end else if (!lfree) begin
                        lfree = 1'b1; fj = oj;
                    end
                end
                for (oj = 0; oj < LINES; oj = oj + 1) begin
                    if (lhit && oj == hj) begin
                        vt = n_ldone[oj*TIME_W +: TIME_W];
                        if (vt > d) d = vt;
                        n_ldone[oj*TIME_W +: TIME_W] = d;
                    end else if (!lhit && lfree && oj == fj) begin
                        n_lline[oj*LINE_W +: LINE_W] = cpl_line[oc*LINE_W +: LINE_W];
                        n_ldone[oj*TIME_W +: TIME_W] = d;
                    end
                end
                for (oe = 0; oe < T; oe = oe + 1) begin
                    oi = oe[EW-1:0];
                    if (cpl_entry[oc*EW +: EW] == oi) begin
                        if (d > n_osd[oe*TIME_W +: TIME_W]) n_osd[oe*TIME_W +: TIME_W] = d;
                        if (MERGE != 0 && oe < LOCAL && d > n_gsd) n_gsd = d;
                    end
                end
                o_cdone[oc*TIME_W +: TIME_W] = d;
            end
            // (1) floors of this edge's issued requests
            for (ob = 0; ob < BANKS; ob = ob + 1) if (o_valid[ob]) begin
                for (oe = 0; oe < T; oe = oe + 1) begin
                    oi = oe[EW-1:0];
                    if (o_entry[ob*EW +: EW] == oi) begin
                        if (n_onx[oe]) begin
                            if (n_osd[oe*TIME_W +: TIME_W] > n_ofl[oe*TIME_W +: TIME_W])
                                n_ofl[oe*TIME_W +: TIME_W] = n_osd[oe*TIME_W +: TIME_W];
                            n_osd[oe*TIME_W +: TIME_W] = {TIME_W{1'b0}};
                            n_onx[oe] = 1'b0;
                        end
                        fl = n_ofl[oe*TIME_W +: TIME_W];
                        if (MERGE != 0 && oe < LOCAL) begin
                            if (n_gnx) begin
                                if (n_gsd > n_gfl) n_gfl = n_gsd;
                                n_gsd = {TIME_W{1'b0}};
                                n_gnx = 1'b0;
                            end
                            if (n_gfl > fl) fl = n_gfl;
                        end
                        o_floor[ob*TIME_W +: TIME_W] = fl;
                    end
                end
            end
            // (2) barrier issue and global-epoch close
            for (oe = 0; oe < T; oe = oe + 1)
                if (o_bar[oe]) n_onx[oe] = 1'b1;
            if (MERGE != 0 && o_done) n_gnx = 1'b1;
        end
        always @(posedge clk) begin
            if (rst) begin
                onx <= {T{1'b0}}; ofl <= {(T*TIME_W){1'b0}}; osd <= {(T*TIME_W){1'b0}};
                gnx <= 1'b0; gfl <= {TIME_W{1'b0}}; gsd <= {TIME_W{1'b0}};
                lline <= {(LINES*LINE_W){1'b0}}; ldone <= {(LINES*TIME_W){1'b0}};
                issue_floor <= {(BANKS*TIME_W){1'b0}}; cpl_done <= {(BANKS*TIME_W){1'b0}};
            end else begin
                onx <= n_onx; ofl <= n_ofl; osd <= n_osd; gnx <= n_gnx; gfl <= n_gfl; gsd <= n_gsd;
                lline <= n_lline; ldone <= n_ldone;
                issue_floor <= o_floor; cpl_done <= o_cdone;
            end
        end
    end else begin : g_no_order
        always @* begin
            issue_floor = {(BANKS*TIME_W){1'b0}}; cpl_done = {(BANKS*TIME_W){1'b0}};
        end
    end endgenerate

    always @(posedge clk) begin
        if (rst) begin
            ub <= {(T*UNITS*BW){1'b0}}; ut <= {(T*UNITS*TAG_W){1'b0}};
            cnt <= {(T*UW){1'b0}}; len0 <= {(T*UW){1'b0}}; len1 <= {(T*UW){1'b0}};
            nbar <= {(T*2){1'b0}}; dirty <= {T{1'b0}}; stv <= {(T*SW){1'b0}};
            ahead <= {T{1'b0}}; epoch_done <= 1'b0;
            result <= 3'd0; issue_valid <= {BANKS{1'b0}}; issue_entry <= {(BANKS*EW){1'b0}};
            issue_tag <= {(BANKS*TAG_W){1'b0}}; barrier <= {T{1'b0}}; starving <= {RW{1'b0}};
            occupancy <= 16'd0;
        end else begin
            ub <= n_ub; ut <= n_ut; cnt <= n_cnt; len0 <= n_len0; len1 <= n_len1;
            nbar <= n_nbar; dirty <= n_dirty; stv <= n_stv;
            ahead <= n_ahead; epoch_done <= o_done;
            result <= o_res; issue_valid <= o_valid; issue_entry <= o_entry; issue_tag <= o_tag;
            barrier <= o_bar; starving <= o_starv; occupancy <= occ;
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
    (* anyconst *) reg [EW-1:0] f_i;                 // the watched entry (thread)
    always @* assume({1'b0, f_i} < T_C);
    integer f_b, f_k;
`ifdef FP_epoch_order
    // thread f_i's requests carry their barrier epoch as tag (legal input of the witness:
    // f_ein = accepted barriers so far); a request issues only with the oldest epoch whose
    // barrier has not gone out (f_eout), and the barrier goes out only when no request of that
    // epoch is left: never a request ahead of an earlier barrier epoch of the same thread
    reg [TAG_W-1:0] f_ein = {TAG_W{1'b0}}, f_eout = {TAG_W{1'b0}};
    always @* if (f_on && in_valid && !in_barrier && in_entry == f_i) assume(in_tag == f_ein);
    always @(posedge clk)
        if (rst) begin f_ein <= {TAG_W{1'b0}}; f_eout <= {TAG_W{1'b0}}; end
        else begin
            if (in_valid && in_barrier && in_entry == f_i && o_res == 3'd1) f_ein <= f_ein + 1'b1;
            if (o_bar[f_i]) f_eout <= f_eout + 1'b1;
        end
    always @* if (f_on) begin
        for (f_b = 0; f_b < BANKS; f_b = f_b + 1)
            if (o_valid[f_b] && o_entry[f_b*EW +: EW] == f_i) assert(o_tag[f_b*TAG_W +: TAG_W] == f_eout);
        if (o_bar[f_i])
            for (f_k = 0; f_k < UNITS; f_k = f_k + 1)
                if (f_k < n_cnt[f_i*UW +: UW]) assert(n_ut[(f_i*UNITS+f_k)*TAG_W +: TAG_W] != f_eout);
    end
`endif
`ifdef FP_liveness
    // bounded liveness as a safety counter: while local entry f_i holds a request of bank f_bk in
    // its SubReady-SET and the bank is ready (free), a request of f_i issues on f_bk within
    // (T-1)*UNITS decisions, the most requests of that bank the other entries can hold, unless
    // another entry receives a new request of that bank meanwhile (the counter restarts)
    (* anyconst *) reg [BW-1:0] f_bk;
    localparam F_BOUND = (T - 1) * UNITS;
    reg [7:0] f_wait = 8'd0;
    reg       f_pend, f_got, f_dist;
    always @* begin
        f_pend = 1'b0; f_got = 1'b0;
        for (f_b = 0; f_b < BANKS; f_b = f_b + 1) if (f_b == f_bk) begin
            f_pend = rm[f_i*BANKS + f_b] && bank_ready[f_b];
            f_got = o_valid[f_b] && o_entry[f_b*EW +: EW] == f_i;
        end
        f_dist = in_valid && !in_barrier && in_entry != f_i && in_bank == f_bk;
        assume(f_i < LOCAL);
    end
    always @(posedge clk)
        if (rst || !f_pend || f_got || f_dist) f_wait <= 8'd0;
        else if (decide) f_wait <= f_wait + 1'b1;
    // f_oth: requests of bank f_bk the other entries hold; each waiting decision issues one of
    // them (the bank takes some candidate while f_i is one), so f_wait + f_oth stays bounded
    integer f_oth, f_j;
    always @* begin
        f_oth = 0;
        for (f_j = 0; f_j < T; f_j = f_j + 1)
            for (f_k = 0; f_k < UNITS; f_k = f_k + 1)
                if (f_j != f_i && f_k < cnt[f_j*UW +: UW] && ub[(f_j*UNITS+f_k)*BW +: BW] == f_bk)
                    f_oth = f_oth + 1;
    end
    always @* if (f_on) begin
        assert(f_wait <= F_BOUND);
        assert(f_wait + f_oth <= F_BOUND);
        for (f_j = 0; f_j < T; f_j = f_j + 1) assert(cnt[f_j*UW +: UW] <= UNITS_C);
    end
`endif
`ifdef FP_structural
    // a bank gets a request only when ready, from an entry holding a request of that bank in its
    // SubReady-SET; counts and barrier registers in range; reset state
    always @* if (f_on) begin
        for (f_b = 0; f_b < BANKS; f_b = f_b + 1)
            if (o_valid[f_b]) assert(bank_ready[f_b] && decide && rm[o_entry[f_b*EW +: EW]*BANKS + f_b]);
        for (f_k = 0; f_k < T; f_k = f_k + 1) begin
            assert(cnt[f_k*UW +: UW] <= UNITS_C);
            assert(nbar[f_k*2 +: 2] <= ((f_k < LOCAL) ? LB_C : RB_C));
            if (nbar[f_k*2 +: 2] != 2'd0) assert(len0[f_k*UW +: UW] <= cnt[f_k*UW +: UW]);
            if (nbar[f_k*2 +: 2] == 2'd2) assert({1'b0, len0[f_k*UW +: UW]} + len1[f_k*UW +: UW] <= cnt[f_k*UW +: UW]);
        end
    end
    reg f_rst_q = 1'b0;
    always @(posedge clk) f_rst_q <= rst;
    always @* if (f_rst_q) assert(cnt == 0 && nbar == 0 && issue_valid == 0 && barrier == 0 && result == 0 && occupancy == 0);
`endif
`endif
endmodule
