// NVW-FIFO of "Exploring the Design Space of Scoped Persist Barriers for GPUs", section 6.
// Golden model: cores/nvw_fifo.c (nvw_fifo_step). One clock edge = one nvw_fifo_step call:
// (1) ack, (2) drain_all level, (3) at most one head action, (4) the offered push.
// All outputs are registered (they report what happened at the last edge).
// Circular buffer of ENTRIES x (1 marker bit + PAYLOAD_W) with head/tail, as in section 7.2.5.
module nvw_fifo #(
    parameter ENTRIES   = 16,   // 1..16383
    parameter PAYLOAD_W = 63,   // line address / marker tag width
    parameter ACK_MODE  = 0,    // 0: L1 (markers pass downstream), 1: L2 (markers wait for acks)
    parameter MAX_OUT   = 8     // ACK_MODE 1: cap on outstanding write-backs, 1..16383
) (
    input  wire                 clk,
    input  wire                 rst,            // synchronous, active high
    input  wire                 ack,            // one write-back acknowledged
    input  wire                 drain_all,      // level: force draining
    input  wire                 out_ready,      // downstream takes one entry this cycle
    input  wire                 push_valid,
    input  wire                 push_marker,    // 1: p_flush marker (payload = tag)
    input  wire [PAYLOAD_W-1:0] push_payload,
    output reg  [1:0]           push_result,    // 0 none, 1 ok, 2 full
    output reg                  out_valid,
    output reg                  out_marker,
    output reg  [PAYLOAD_W-1:0] out_payload,
    output reg                  done_valid,     // ACK_MODE 1: a marker retired
    output reg  [PAYLOAD_W-1:0] done_tag,
    output reg  [15:0]          count,
    output reg  [15:0]          markers,
    output reg  [15:0]          outstanding
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

    reg [W-1:0]    mem [0:ENTRIES-1];
    reg [PW-1:0]   head;
    reg [CW-1:0]   cnt, nmark;
    reg [OW-1:0]   nout;

    // next state (mirrors nvw_fifo_step)
    reg [PW-1:0]   n_head;
    reg [CW-1:0]   n_cnt, n_mark;
    reg [OW-1:0]   n_out;
    reg            draining, do_pop, wr_en;
    reg [PW:0]     tail;
    reg [PW-1:0]   wr_idx;
    reg [W-1:0]    hv;
    reg [1:0]      o_res;
    reg            o_valid, o_marker, o_done;
    reg [PAYLOAD_W-1:0] o_payload, o_tag;

    always @* begin
        n_head = head; n_cnt = cnt; n_mark = nmark; n_out = nout;
        o_res = 2'd0; o_valid = 1'b0; o_marker = 1'b0; o_done = 1'b0;
        o_payload = {PAYLOAD_W{1'b0}}; o_tag = {PAYLOAD_W{1'b0}};
        do_pop = 1'b0; wr_en = 1'b0; wr_idx = {PW{1'b0}}; tail = {(PW+1){1'b0}};
        hv = mem[head];
        // (1) ack
        if (ack && n_out != {OW{1'b0}}) n_out = n_out - 1'b1;
        // (3) head action
        draining = (cnt != {CW{1'b0}}) && (nmark != {CW{1'b0}} || drain_all || cnt == FULL);
        if (draining) begin
            if (hv[W-1]) begin
                if (ACK_MODE != 0) begin
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
        if (rst) begin
            head <= {PW{1'b0}}; cnt <= {CW{1'b0}}; nmark <= {CW{1'b0}}; nout <= {OW{1'b0}};
            push_result <= 2'd0; out_valid <= 1'b0; out_marker <= 1'b0;
            out_payload <= {PAYLOAD_W{1'b0}}; done_valid <= 1'b0; done_tag <= {PAYLOAD_W{1'b0}};
            count <= 16'd0; markers <= 16'd0; outstanding <= 16'd0;
        end else begin
            head <= n_head; cnt <= n_cnt; nmark <= n_mark; nout <= n_out;
            push_result <= o_res; out_valid <= o_valid; out_marker <= o_marker;
            out_payload <= o_payload; done_valid <= o_done; done_tag <= o_tag;
            count <= {{(16-CW){1'b0}}, n_cnt};
            markers <= {{(16-CW){1'b0}}, n_mark};
            outstanding <= {{(16-OW){1'b0}}, n_out};
        end
    end
endmodule
