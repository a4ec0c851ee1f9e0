// NVW-FIFO of "Exploring the Design Space of Scoped Persist Barriers for GPUs", section 6.
// Golden model: cores/nvw_fifo.c (nvw_fifo_step). One clock edge = one nvw_fifo_step call:
// (1) ack, (2) drain_all level, (3a) ACK_MODE 2: the oldest waiting marker retires,
// (3b) at most one head action, (4) the offered push.
// All outputs are registered (they report what happened at the last edge).
// Circular buffer of ENTRIES x (1 marker bit + PAYLOAD_W) with head/tail, as in section 7.2.5.
// ACK_MODE 2 (pipelined L2, persim's variant): a marker at the head moves into a queue of at most
// MAX_MARKERS waiting markers and closes the open epoch; writes behind it keep draining, each
// counted in the open epoch (a ring of MAX_MARKERS+1 counters, out_epoch = its number); `ack`
// names the epoch (ack_epoch); the oldest waiting marker retires once its epoch is empty.
module nvw_fifo #(
    parameter ENTRIES   = 16,   // 1..16383
    parameter PAYLOAD_W = 63,   // line address / marker tag width
    parameter ACK_MODE  = 0,    // 0: L1 (markers pass downstream), 1: L2 (markers wait for acks),
                                // 2: pipelined L2 (markers wait aside, per-epoch acks)
    parameter MAX_OUT   = 8,    // ACK_MODE 1, 2: cap on outstanding write-backs, 1..16383
    parameter MAX_MARKERS = 1   // ACK_MODE 2: waiting-markers queue, 1..16383 (epochs 0..MAX_MARKERS)
) (
    input  wire                 clk,
    input  wire                 rst,            // synchronous, active high
    input  wire                 ack,            // one write-back acknowledged
    input  wire [15:0]          ack_epoch,      // ACK_MODE 2: its epoch (ignored if > MAX_MARKERS)
    input  wire                 drain_all,      // level: force draining
    input  wire                 out_ready,      // downstream takes one entry this cycle
    input  wire                 push_valid,
    input  wire                 push_marker,    // 1: p_flush marker (payload = tag)
    input  wire [PAYLOAD_W-1:0] push_payload,
    output reg  [1:0]           push_result,    // 0 none, 1 ok, 2 full
    output reg                  out_valid,
    output reg                  out_marker,
    output reg  [PAYLOAD_W-1:0] out_payload,
    output reg  [15:0]          out_epoch,      // ACK_MODE 2: epoch of the emitted write
    output reg                  done_valid,     // ACK_MODE 1, 2: a marker retired
    output reg  [PAYLOAD_W-1:0] done_tag,
    output reg  [15:0]          count,
    output reg  [15:0]          markers,
    output reg  [15:0]          outstanding,
    output reg  [15:0]          waiting         // ACK_MODE 2: markers waiting
);
    localparam PW = (ENTRIES > 1) ? $clog2(ENTRIES) : 1;   // pointer width
    localparam CW = PW + 1;                                // count width (holds ENTRIES)
    localparam OW = $clog2(MAX_OUT + 1);
    localparam W  = PAYLOAD_W + 1;
    localparam [31:0] LAST32 = ENTRIES - 1;
    localparam [31:0] FULL32 = ENTRIES;
    localparam [31:0] OMAX32 = MAX_OUT;
    localparam [PW:0]   LAST = LAST32[PW:0];
    localparam [CW-1:0] FULL = FULL32[CW-1:0];
    localparam [OW-1:0] OMAX = OMAX32[OW-1:0];
    localparam NEP = MAX_MARKERS + 1;                      // epochs in the ring
    localparam EPW = $clog2(NEP);                          // epoch number / waiting count width
    localparam [31:0] NEP32  = NEP;
    localparam [31:0] MAXM32 = MAX_MARKERS;
    localparam [EPW-1:0] ELAST = NEP32[EPW-1:0] - 1'b1;
    localparam [EPW-1:0] MAXM  = MAXM32[EPW-1:0];
    localparam [15:0]    NEP16 = NEP32[15:0];

    reg [W-1:0]    mem [0:ENTRIES-1];
    reg [PW-1:0]   head;
    reg [CW-1:0]   cnt, nmark;
    reg [OW-1:0]   nout;
    // ACK_MODE 2: epoch counters (flat, OW bits each), waiting tags (by closed epoch), ring pointers
    reg [NEP*OW-1:0]    ecnt;
    reg [PAYLOAD_W-1:0] wtag [0:NEP-1];
    reg [EPW-1:0]       ep_head, ep_open, nwait;

    // next state (mirrors nvw_fifo_step)
    reg [PW-1:0]   n_head;
    reg [CW-1:0]   n_cnt, n_mark;
    reg [OW-1:0]   n_out;
    reg [NEP*OW-1:0] n_ecnt;
    reg [EPW-1:0]  n_eph, n_epo, n_wait, a_ep, w_idx, o_epoch;
    reg            w_en;
    reg            draining, do_pop, wr_en;
    reg [PW:0]     tail;
    reg [PW-1:0]   wr_idx;
    reg [W-1:0]    hv;
    reg [1:0]      o_res;
    reg            o_valid, o_marker, o_done;
    reg [PAYLOAD_W-1:0] o_payload, o_tag;

    always @* begin
        n_head = head; n_cnt = cnt; n_mark = nmark; n_out = nout;
        n_ecnt = ecnt; n_eph = ep_head; n_epo = ep_open; n_wait = nwait;
        o_res = 2'd0; o_valid = 1'b0; o_marker = 1'b0; o_done = 1'b0;
        o_payload = {PAYLOAD_W{1'b0}}; o_tag = {PAYLOAD_W{1'b0}}; o_epoch = {EPW{1'b0}};
        do_pop = 1'b0; wr_en = 1'b0; wr_idx = {PW{1'b0}}; tail = {(PW+1){1'b0}};
        w_en = 1'b0; w_idx = {EPW{1'b0}};
        a_ep = ack_epoch[EPW-1:0];
        hv = mem[head];
        // (1) ack
        if (ACK_MODE == 2) begin
            if (ack && ack_epoch < NEP16 && n_ecnt[a_ep*OW +: OW] != {OW{1'b0}}) begin
                n_ecnt[a_ep*OW +: OW] = n_ecnt[a_ep*OW +: OW] - 1'b1;
                n_out = n_out - 1'b1;
            end
        end else if (ack && n_out != {OW{1'b0}}) n_out = n_out - 1'b1;
        // (3a) ACK_MODE 2: the oldest waiting marker retires once its epoch is empty
        if (ACK_MODE == 2 && nwait != {EPW{1'b0}} && n_ecnt[ep_head*OW +: OW] == {OW{1'b0}}) begin
            o_done = 1'b1; o_tag = wtag[ep_head];
            n_eph = (ep_head == ELAST) ? {EPW{1'b0}} : ep_head + 1'b1;
            n_wait = n_wait - 1'b1;
        end
        // (3b) head action
        draining = (cnt != {CW{1'b0}}) && (nmark != {CW{1'b0}} || drain_all || cnt == FULL);
        if (draining) begin
            if (hv[W-1]) begin
                if (ACK_MODE == 2) begin
                    if (n_wait < MAXM) begin
                        do_pop = 1'b1; w_en = 1'b1; w_idx = ep_open;
                        n_epo = (ep_open == ELAST) ? {EPW{1'b0}} : ep_open + 1'b1;
                        n_wait = n_wait + 1'b1;
                        n_mark = n_mark - 1'b1;
                    end
                end else if (ACK_MODE != 0) begin
                    if (n_out == {OW{1'b0}}) begin
                        do_pop = 1'b1; o_done = 1'b1; o_tag = hv[PAYLOAD_W-1:0];
                        n_mark = n_mark - 1'b1;
                    end
                end else if (out_ready) begin
                    do_pop = 1'b1; o_valid = 1'b1; o_marker = 1'b1; o_payload = hv[PAYLOAD_W-1:0];
                    n_mark = n_mark - 1'b1;
                end
            end else if (out_ready && (ACK_MODE == 0 || n_out < OMAX)) begin
                if (ACK_MODE != 0) n_out = n_out + 1'b1;
                if (ACK_MODE == 2) begin
                    n_ecnt[ep_open*OW +: OW] = n_ecnt[ep_open*OW +: OW] + 1'b1;
                    o_epoch = ep_open;
                end
                do_pop = 1'b1; o_valid = 1'b1; o_payload = hv[PAYLOAD_W-1:0];
            end
        end
        if (do_pop) begin
            n_cnt = n_cnt - 1'b1;
            n_head = ({1'b0, head} == LAST) ? {PW{1'b0}} : head + 1'b1;
        end
        // (4) push
        if (push_valid) begin
            if (n_cnt < FULL) begin
                tail = {1'b0, n_head} + n_cnt;
                if (tail > LAST) tail = tail - (LAST + 1'b1);
                wr_en = 1'b1;
                wr_idx = tail[PW-1:0];
                n_cnt = n_cnt + 1'b1;
                if (push_marker) n_mark = n_mark + 1'b1;
                o_res = 2'd1;
            end else begin
                o_res = 2'd2;
            end
        end
    end

    always @(posedge clk) begin
        if (wr_en) mem[wr_idx] <= {push_marker, push_payload};
        if (w_en) wtag[w_idx] <= hv[PAYLOAD_W-1:0];
        if (rst) begin
            head <= {PW{1'b0}}; cnt <= {CW{1'b0}}; nmark <= {CW{1'b0}}; nout <= {OW{1'b0}};
            ecnt <= {(NEP*OW){1'b0}}; ep_head <= {EPW{1'b0}}; ep_open <= {EPW{1'b0}}; nwait <= {EPW{1'b0}};
            push_result <= 2'd0; out_valid <= 1'b0; out_marker <= 1'b0;
            out_payload <= {PAYLOAD_W{1'b0}}; out_epoch <= 16'd0;
            done_valid <= 1'b0; done_tag <= {PAYLOAD_W{1'b0}};
            count <= 16'd0; markers <= 16'd0; outstanding <= 16'd0; waiting <= 16'd0;
        end else begin
            head <= n_head; cnt <= n_cnt; nmark <= n_mark; nout <= n_out;
            ecnt <= n_ecnt; ep_head <= n_eph; ep_open <= n_epo; nwait <= n_wait;
            push_result <= o_res; out_valid <= o_valid; out_marker <= o_marker;
            out_payload <= o_payload; out_epoch <= {{(16-EPW){1'b0}}, o_epoch};
            done_valid <= o_done; done_tag <= o_tag;
            count <= {{(16-CW){1'b0}}, n_cnt};
            markers <= {{(16-CW){1'b0}}, n_mark};
            outstanding <= {{(16-OW){1'b0}}, n_out};
            waiting <= {{(16-EPW){1'b0}}, n_wait};
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
    // entries between head and head + cnt: their number of markers (section 7.2.5 ring)
    integer f_j, f_r, f_nm;
    always @* begin
        f_nm = 0;
        for (f_j = 0; f_j < ENTRIES; f_j = f_j + 1) begin
            f_r = f_j - head;
            if (f_r < 0) f_r = f_r + ENTRIES;
            if (f_r < cnt && mem[f_j][W-1]) f_nm = f_nm + 1;
        end
    end
`ifdef FP_fifo_order
    // witness f_k (any constant): the push with sequence number f_k leaves as the f_k-th pop,
    // marker bit and payload unchanged, so every entry (write or marker) leaves in push order
    localparam FSW = CW + 2;
    (* anyconst *) reg [FSW-1:0] f_k;
    reg [FSW-1:0] f_in = {FSW{1'b0}}, f_out = {FSW{1'b0}}, f_d;
    reg           f_fly = 1'b0;
    reg [W-1:0]   f_val;
    integer       f_i;
    always @(posedge clk)
        if (rst) begin
            f_in <= {FSW{1'b0}}; f_out <= {FSW{1'b0}}; f_fly <= 1'b0;
        end else begin
            if (wr_en) f_in <= f_in + 1'b1;
            if (do_pop) f_out <= f_out + 1'b1;
            if (wr_en && f_in == f_k) begin f_fly <= 1'b1; f_val <= {push_marker, push_payload}; end
            else if (do_pop && f_out == f_k) f_fly <= 1'b0;
        end
    always @* begin
        f_d = f_k - f_out;
        f_i = head + f_d;
        if (f_i >= ENTRIES) f_i = f_i - ENTRIES;
        if (f_on) begin
            assert(f_in - f_out == {{(FSW-CW){1'b0}}, cnt});
            assert(f_fly == (f_d < {{(FSW-CW){1'b0}}, cnt}));
            if (f_fly) assert(mem[f_i] == f_val);
            if (do_pop && f_out == f_k) assert(f_fly && hv == f_val);
            assert(cnt <= FULL && head <= LAST[PW-1:0]);
        end
    end
`endif
`ifdef FP_marker
    // section 6.1: a p_flush marker dequeues the entries ahead of it (they go downstream), then
    // L1 (ACK_MODE 0): passes downstream itself once at the head; L2 (ACK_MODE 1): retires only
    // at the head once every write-back is acknowledged, and then at once; the entries behind it
    // wait; it never blocks a push; without a marker (or drain_all / a full FIFO) nothing leaves
    always @* if (f_on) begin
        assert(f_nm == nmark && nmark <= cnt && cnt <= FULL && head <= LAST[PW-1:0]);
        assert(nout <= OMAX);
        if (do_pop) assert(cnt != 0 && (nmark != 0 || drain_all || cnt == FULL));
        if (cnt != 0 && nmark != 0 && !hv[W-1] && out_ready && (ACK_MODE == 0 || n_out < OMAX))
            assert(do_pop && o_valid && !o_marker && o_payload == hv[PAYLOAD_W-1:0]);
        if (push_valid) assert((o_res == 2'd1) == (cnt - (do_pop ? 1'b1 : 1'b0) < FULL));
        if (ACK_MODE == 0) begin
            assert(!o_done);
            if (cnt != 0 && hv[W-1] && out_ready)
                assert(do_pop && o_valid && o_marker && o_payload == hv[PAYLOAD_W-1:0]);
        end else if (ACK_MODE == 1) begin
            if (o_done) assert(cnt != 0 && hv[W-1] && do_pop && n_out == 0 && o_tag == hv[PAYLOAD_W-1:0]);
            if (cnt != 0 && hv[W-1] && n_out == 0) assert(o_done);
            if (cnt != 0 && hv[W-1] && n_out != 0) assert(!do_pop && !o_valid);
            if (o_valid) assert(!o_marker);
        end
    end
`endif
`ifdef FP_structural
    // no overflow / underflow (FIFO, markers, outstanding write-backs), outputs mirror the state,
    // reset state
    always @* if (f_on) begin
        assert(cnt <= FULL && nmark <= cnt && f_nm == nmark && head <= LAST[PW-1:0]);
        assert(nout <= OMAX);
        if (wr_en) assert(cnt - (do_pop ? 1'b1 : 1'b0) < FULL);
        if (do_pop) assert(cnt != 0);
        if (ACK_MODE != 2) assert(count == {{(16-CW){1'b0}}, cnt} && outstanding == {{(16-OW){1'b0}}, nout});
    end
    reg f_rst_q = 1'b0;
    always @(posedge clk) f_rst_q <= rst;
    always @* if (f_rst_q) begin
        assert(cnt == 0 && head == 0 && nmark == 0 && nout == 0);
        assert(!out_valid && !done_valid && push_result == 0 && count == 0 && outstanding == 0);
    end
`endif
`endif
endmodule
