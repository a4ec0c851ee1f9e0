#!/usr/bin/env python3
"""Static timing of the RTL blocks: OpenSTA (Debian's `opensta`, /usr/bin/sta) on the Yosys timing
netlists of synth/area.py (OSU 0.18 um cells of qflow-tech-osu018), one SDC per block generated
from the papers' clocks, and the papers' timing claims beside persim's figures with a verdict by
scripts/verdict.py. Writes results/area/timing.csv, results/area/sdc/<block>.sdc and
results/area/README.md (area and timing of every synth preset).

  timing.py [--out DIR] [--work DIR] [--jobs N] [--only PRESET ...]
  timing.py --smoke [--work DIR]     one small preset end to end (yosys + sta): exit 0 if sane

Delay scaling rule (RULE_TEXT below, printed into the README): constant-field scaling (Dennard et
al., "Design of ion-implanted MOSFET's with very small physical dimensions", IEEE JSSC SC-9(5),
1974, Table I: circuit delay time scales as 1/k when every dimension and the voltage scale by 1/k),
i.e. a gate delay, and with it the FO4 inverter delay, is proportional to the drawn feature size
(the FO4 rule of thumb of Ho, Mai and Horowitz, "The future of wires", Proc. IEEE 89(4), 2001, is
also linear in the feature size):
    delay(node) = delay(180 nm) x node / 180
so x0.361 at 65 nm, x0.25 at 45 nm, x0.122 at 22 nm. It is the optimistic end: below ~90 nm the
supply voltage stopped scaling with the feature size, so real gates are slower than this rule
says (and wires, which this flow does not model, got relatively slower still). A block that misses
a paper's clock under this rule misses it under any more realistic one. The rule is fixed here and
is not fitted to any paper's number.
"""
import concurrent.futures as cf
import csv
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import rtl_presets  # noqa: E402
import area  # noqa: E402
import verdict as V  # noqa: E402

LIB = area.LIB
STA = "sta"
NODES = (180, 65, 45, 22)

RULE_TEXT = ("delay(node) = delay(180 nm) x node/180: constant-field scaling (Dennard et al., IEEE JSSC "
             "SC-9(5), 1974, Table I: circuit delay scales as 1/k), the same linear dependence on the "
             "feature size as the FO4 rule of thumb (Ho, Mai, Horowitz, \"The future of wires\", Proc. IEEE "
             "89(4), 2001): x0.361 at 65 nm, x0.25 at 45 nm, x0.122 at 22 nm. Optimistic below ~90 nm (the "
             "supply voltage stopped scaling, and wires are not modelled), so a miss under this rule is a "
             "miss under any realistic one; fixed, not fitted to a paper.")


def scale(node):
    """Delay factor from 180 nm to node (constant-field scaling, see the module docstring)."""
    return node / 180.0


# The papers' clocks, per block: (clock in GHz, the node the paper's own timing/area figure is at,
# where it comes from). The SDC of each block uses this clock's period.
CLOCKS = {
    "wpq_gate": (2.0, 22, "LightWSP Table I: 8-core OoO processor at 2 GHz (V-G2: CACTI 7.0 at 22 nm)"),
    "broi_sched": (2.5, 65, "BROI Table III: 4 cores at 2.5 GHz; the paper gives no separate memory-controller "
                            "clock; IV-E: scheduling latency ~0.4 ns (= one 2.5 GHz cycle) in Design Compiler at 65 nm"),
    "sbrp_pb": (1.365, 22, "SBRP Table 1: 1365 MHz SM clock; the paper gives no process node (judged at 22 nm, "
                           "the smallest node of the scaling rule, the most favourable to the design)"),
    "nvw_fifo": (1.0, 45, "Scoped persist barriers Table 2: 4 CUs at 1 GHz (7.2.5: FabMem area at 45 nm; "
                          "the NVW-FIFOs are updated in parallel with the L1/L2 accesses)"),
}


def paper_period_ns(block):
    return 1.0 / CLOCKS[block][0]


def paper_period_180_ns(block):
    """The paper's clock period translated to 180 nm by the scaling rule (ABC's delay target)."""
    ghz, node, _ = CLOCKS[block]
    return (1.0 / ghz) / scale(node)


# ---- OpenSTA ---------------------------------------------------------------------------------

def run_sta(tcl_text, tag="sta"):
    with tempfile.NamedTemporaryFile("w", suffix=".tcl", prefix=tag + "-", delete=False) as f:
        f.write(tcl_text + "\nexit\n")
        path = f.name
    try:
        r = subprocess.run([STA, "-no_init", "-no_splash", "-exit", path], capture_output=True, text=True,
                           timeout=1800, cwd=tempfile.gettempdir())   # sta saves .history_sta in its cwd
    except TypeError:
        raise
    finally:
        os.unlink(path)
    out = r.stdout + r.stderr
    if r.returncode != 0 or re.search(r"^Error", out, re.M):
        raise RuntimeError(f"sta failed ({tag}):\n{out[-3000:]}")
    return out


def calibrate():
    """The library's FO4 inverter delay (an INVX1 driving four INVX1, mean of rise and fall, in a
    chain so the input slew is an FO4 slew), the clock-to-Q of DFFPOSX1 driving FO4 and its setup
    time: the I/O delays of the SDC and the FO4 unit of the report."""
    L = ["module cal(clk, in, d, out, q);", "input clk, in, d; output out, q;"]
    n = 6
    L += [f"wire s{s};" for s in range(n + 1)]
    L.append("assign s0 = in;")
    for s in range(n):
        L.append(f"INVX1 u{s} (.A(s{s}), .Y(s{s + 1}));")
        for k in range(3):
            L.append(f"wire d{s}_{k}; INVX1 l{s}_{k} (.A(s{s + 1}), .Y(d{s}_{k}));")
    L.append(f"assign out = s{n};")
    L.append("wire qq; DFFPOSX1 ff (.CLK(clk), .D(d), .Q(qq));")
    L += [f"wire e{k}; INVX1 m{k} (.A(qq), .Y(e{k}));" for k in range(3)]
    L.append("INVX1 m3 (.A(qq), .Y(q));")
    L.append("endmodule")
    with tempfile.NamedTemporaryFile("w", suffix=".v", delete=False) as f:
        f.write("\n".join(L) + "\n")
        v = f.name
    try:
        out = run_sta(f"""read_liberty {LIB}
read_verilog {v}
link_design cal
create_clock -name clk -period 10 [get_ports clk]
set_input_delay 0 -clock clk [get_ports {{in d}}]
set_output_delay 0 -clock clk [get_ports {{out q}}]
report_checks -from [get_ports in] -to [get_ports out] -path_delay max -digits 4
report_checks -from [get_ports in] -to [get_ports out] -path_delay min -digits 4
report_checks -from [get_ports d] -path_delay max -digits 4
report_checks -to [get_ports q] -path_delay max -digits 4 -fields input_pin""", "cal")
    finally:
        os.unlink(v)
    stage = {}
    for m in re.finditer(r"^\s*([\d.]+)\s+[\d.]+\s+[v^]\s+(u\d)/Y \(INVX1\)", out, re.M):
        stage.setdefault(m.group(2), []).append(float(m.group(1)))
    # stages 2 and 3 see an FO4 input slew and drive an FO4 load; rise and fall from the max/min paths
    mids = stage.get("u2", []) + stage.get("u3", [])
    fo4 = sum(mids) / len(mids)
    setup = float(re.search(r"([\d.]+)\s+[\d.]+\s+library setup time", out).group(1).lstrip("-") or 0)
    m = re.search(r"([\d.]+)\s+([\d.]+)\s+[v^]\s+ff/Q \(DFFPOSX1\)", out)
    tcq = float(m.group(1))
    return {"fo4_ns": fo4, "tcq_ns": tcq, "setup_ns": setup}


def sdc_text(block, cal):
    ghz, node, src = CLOCKS[block]
    per = 1.0 / ghz
    return "\n".join([
        f"# {block}: generated by synth/timing.py from configs/rtl_presets.json and the papers' clocks; do not edit.",
        f"# Clock: {ghz:g} GHz, period {per:.4f} ns ({src}).",
        "# Ideal clock (no clock tree, no uncertainty); all outputs of every block are registered.",
        f"# Inputs: arrive {cal['tcq_ns']:.3f} ns after the edge, the clock-to-Q of a DFFPOSX1 of this library driving FO4",
        "#   (each input comes straight from a register of the neighbouring block), driven by a BUFX2.",
        f"# Outputs: required {cal['setup_ns']:.3f} ns before the next edge, the DFFPOSX1 setup time (captured by a",
        "#   register of the neighbouring block without logic in between), load 0.05 pF.",
        "# The I/O delays are absolute, not a share of the period, so min period = period - worst slack.",
        f"create_clock -name clk -period {per:.4f} [get_ports clk]",
        f"set_input_delay {cal['tcq_ns']:.4f} -clock clk [delete_from_list [all_inputs] [get_ports clk]]",
        "set_driving_cell -lib_cell BUFX2 -pin Y [delete_from_list [all_inputs] [get_ports clk]]",
        f"set_output_delay {cal['setup_ns']:.4f} -clock clk [all_outputs]",
        "set_load 0.05 [all_outputs]",
        ""])


# Paths of a paper claim narrower than the whole block: endpoints (register output nets) per block.
CLAIM_PATHS = {
    "wpq_gate": ("ld_hit", "load CAM search: ld_line / stored entry addresses -> compare x ENTRIES -> OR -> ld_hit"),
}


def sta_point(block, preset, netlist, sdc):
    """OpenSTA on one timing netlist: worst path, worst slack, TNS; for CLAIM_PATHS the worst path
    into that output's register."""
    netlist, sdc = os.path.abspath(netlist), os.path.abspath(sdc)   # sta runs in the temp directory
    extra = ""
    if block in CLAIM_PATHS:
        port = CLAIM_PATHS[block][0]
        extra = f"""
puts "CLAIM-PATH-BEGIN"
set ffs [get_cells -of_objects [get_fanin -to [get_ports {port}] -flat -startpoints_only]]
report_checks -through [get_pins -of_objects $ffs -filter "direction == input"] -path_delay max -digits 4 -fields input_pin
puts "CLAIM-PATH-END"
"""
    out = run_sta(f"""read_liberty {LIB}
read_verilog {netlist}
link_design {block}
read_sdc {sdc}
puts "WORST-PATH-BEGIN"
report_checks -path_delay max -digits 4 -fields input_pin
puts "WORST-PATH-END"
report_worst_slack -digits 4
report_tns -digits 4
{extra}""", preset)
    wp = parse_path(between(out, "WORST-PATH-BEGIN", "WORST-PATH-END"))
    wns = float(re.search(r"worst slack\s+(-?[\d.]+)", out).group(1))
    tns = float(re.search(r"tns\s+(-?[\d.]+)", out).group(1))
    r = {"block": block, "preset": preset, "worst": wp, "wns": wns, "tns": tns}
    if block in CLAIM_PATHS:
        r["claim_path"] = parse_path(between(out, "CLAIM-PATH-BEGIN", "CLAIM-PATH-END"))
    return r


def between(s, a, b):
    i = s.find(a)
    j = s.find(b, i + 1)
    return s[i + len(a):j] if i >= 0 and j > i else ""


def parse_path(txt):
    """Startpoint, endpoint, arrival, required, slack and the cells of an OpenSTA full path report."""
    g = lambda rx: (re.search(rx, txt, re.M) or [None, None])[1]
    cells = re.findall(r"^\s*[\d.-]+\s+[\d.-]+\s+[v^]\s+(\S+)/\S+ \((\w+)\)", txt, re.M)
    # output pins only (each cell appears once for its input pin with -fields input_pin, once for Y/Q)
    outs = re.findall(r"^\s*[\d.-]+\s+[\d.-]+\s+[v^]\s+(\S+)/(Y|Q|YS|YC) \((\w+)\)", txt, re.M)
    arr = g(r"^\s*(-?[\d.]+)\s+data arrival time")
    req = g(r"^\s*(-?[\d.]+)\s+data required time")
    sl = g(r"^\s*(-?[\d.]+)\s+slack")
    return {"start": g(r"^Startpoint:\s*(.+)$"), "end": g(r"^Endpoint:\s*(.+)$"),
            "arrival": float(arr) if arr else float("nan"), "required": float(req) if req else float("nan"),
            "slack": float(sl) if sl else float("nan"), "levels": len(outs),
            "cells": [c for _, _, c in outs], "n_pins": len(cells)}


def reg_names(netlist):
    """{instance: register name} for the flip-flops of a netlist: the net on the Q pin (Yosys keeps
    the Verilog reg name there in the timing netlist, which is not purged)."""
    names = {}
    rx = re.compile(r"(DFF\w+|LATCH)\s+(\S+)\s*\((.*?)\);", re.S)
    with open(netlist) as f:
        txt = f.read()
    for m in rx.finditer(txt):
        q = re.search(r"\.Q\(([^()]*?)\s*\)", m.group(3))
        if q:
            names[m.group(2).lstrip("\\")] = re.sub(r"\s+\[", "[", q.group(1).strip().lstrip("\\"))
    return names


def point_name(s, regs):
    """'_123_ (rising edge-triggered flip-flop clocked by clk)' -> 'reg head[2]'; ports as 'input op[1]'."""
    if not s:
        return "?"
    inst = s.split(" ")[0].lstrip("\\")
    if "input port" in s:
        return f"input {inst}"
    if "output port" in s:
        return f"output {inst}"
    return "reg " + regs.get(inst, inst)


def timing_row(res, st, regs, cal, area_row):
    """One timing.csv row from a synth_point result and an sta_point result."""
    blk, pre = res["block"], res["preset"]
    ghz, node, _ = CLOCKS[blk]
    per = 1.0 / ghz
    minp = per - st["wns"]
    wp = st["worst"]
    row = {"block": blk, "preset": pre, "clock_ghz": ghz, "period_ns": round(per, 4), "paper_node_nm": node,
           "worst_start": point_name(wp["start"], regs), "worst_end": point_name(wp["end"], regs),
           "worst_levels": wp["levels"], "worst_cell_types": cell_hist(wp["cells"]),
           "worst_arrival_ns_180nm": round(wp["arrival"], 4),
           "wns_ns_180nm": round(st["wns"], 4), "tns_ns_180nm": round(st["tns"], 3),
           "min_period_ns_180nm": round(minp, 4), "fmax_mhz_180nm": round(1000.0 / minp, 1),
           "fo4_depth": round(minp / cal["fo4_ns"], 1)}
    for n in NODES[1:]:
        row[f"min_period_ns_{n}nm"] = round(minp * scale(n), 4)
        row[f"fmax_ghz_{n}nm"] = round(1.0 / (minp * scale(n)), 3)
    row["slack_ns_at_paper_clock_and_node"] = round(per - minp * scale(node), 4)
    row["meets_paper_clock"] = "yes" if per - minp * scale(node) >= 0 else "no"
    tstat = res.get("timing_stat") or {}
    row["timing_netlist_cells"] = tstat.get("cells", "")
    row["timing_netlist_um2_180nm"] = tstat.get("area", "")
    row["timing_over_area_netlist"] = (round(tstat["area"] / area_row["area_um2_180nm"], 3)
                                       if tstat.get("area") and area_row["area_um2_180nm"] else "")
    if "claim_path" in st:
        cp = st["claim_path"]
        cmin = per - cp["slack"]
        row["claim_path"] = CLAIM_PATHS[blk][0]
        row["claim_start"] = point_name(cp["start"], regs)
        row["claim_end"] = point_name(cp["end"], regs)
        row["claim_levels"] = cp["levels"]
        row["claim_min_period_ns_180nm"] = round(cmin, 4)
        for n in NODES[1:]:
            row[f"claim_min_period_ns_{n}nm"] = round(cmin * scale(n), 4)
    return row


def cell_hist(cells, top=4):
    """'NAND3X1 x56, NOR3X1 x57, ...': the most frequent cell types on a path (a long run of one or two
    types is a ripple chain in the RTL)."""
    c = {}
    for x in cells:
        c[x] = c.get(x, 0) + 1
    return ", ".join(f"{k} x{v}" for k, v in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:top])


def timing_stat(res):
    import json
    path = res["netlist"].replace(".timing.v", ".timing.stat.json")
    with open(path) as f:
        js = json.load(f)
    mod = js["modules"]["\\" + res["block"]]
    la = area.lib_areas()
    a = sum(n * la.get(c, 0.0) for c, n in mod["num_cells_by_type"].items())
    return {"cells": mod["num_cells"], "area": round(a, 1)}


def write_sdcs(outdir, cal, blocks):
    d = os.path.join(outdir, "sdc")
    os.makedirs(d, exist_ok=True)
    paths = {}
    for b in blocks:
        p = os.path.join(d, b + ".sdc")
        txt = sdc_text(b, cal)
        if not (os.path.exists(p) and open(p).read() == txt):
            with open(p, "w") as f:
                f.write(txt)
        paths[b] = p
    return paths


# ---- the papers' timing claims ----------------------------------------------------------------

def claims(trows, cal):
    """The papers' timing claims with persim's figure beside each: a ratio persim's delay / the
    paper's time budget at the paper's node, kind "less" of scripts/verdict.py (the paper says the
    logic fits the budget: ratio < 1). Exact quantities (one synthesis, no seeds). Returns
    (verdict.Claims, [notes per claim])."""
    by = {r["preset"]: r for r in trows}
    C = V.Claims()
    notes = []

    def add(where, claim, m, paper_text, note):
        C.add(where, claim, (m, 0.0, 1), kind="less", paper_text=paper_text)
        notes.append((where, note))

    r = by.get("lightwsp_table1")
    if r and "claim_min_period_ns_22nm" in r:
        cam = r["claim_min_period_ns_22nm"]
        add("LightWSP V-G2", "64-entry WPQ CAM search (load -> ld_hit) fits 2 cycles at 2 GHz (1.0 ns), 22 nm: "
            f"persim {cam:.3f} ns / 1.0 ns", cam / 1.0,
            "0.99 ns (CACTI 7.0, 22 nm, front-end buffer and WPQ, 64 x 8 B) = 2 cycles",
            f"persim's CAM path ({r['claim_start']} -> {r['claim_end']}, {r['claim_levels']} cells) is "
            f"{r['claim_min_period_ns_180nm']:.2f} ns at 180 nm, {cam:.3f} ns at 22 nm by the scaling rule. The "
            f"front-end buffer's CAM is not in persim's RTL (the persist path's front end is a C model only); its "
            f"search is of the same form over fewer entries. persim's wpq_gate does the search in one cycle "
            f"(the paper allows two).")
    r = by.get("broi_table2")
    if r:
        m65 = r["min_period_ns_65nm"]
        add("BROI IV-E", f"BROI controller decides once per cycle: scheduling latency ~0.4 ns at 65 nm (one cycle at "
            f"2.5 GHz): persim {m65:.3f} ns / 0.4 ns", m65 / 0.4,
            "~0.4 ns (Design Compiler, 65 nm); counted as one extra scheduling cycle",
            f"persim's broi_sched at broi_table2 needs {r['min_period_ns_180nm']:.2f} ns at 180 nm "
            f"({r['fo4_depth']:.0f} FO4), {m65:.3f} ns at 65 nm. The paper gives no memory-controller clock; "
            f"0.4 ns is one cycle of the 2.5 GHz clock of Table III, which persim's broi config also uses.")
    r = by.get("sbrp_table1")
    if r:
        m22 = r["min_period_ns_22nm"]
        per = r["period_ns"]
        add("SBRP 6.1 / Table 1", f"SBRP persist buffer takes one operation per SM cycle (1365 MHz, {per:.3f} ns); "
            f"no node given, judged at 22 nm: persim {m22:.3f} ns / {per:.3f} ns", m22 / per,
            "no timing figure; PB on the SM's store path at 1365 MHz (Table 1)",
            f"persim's sbrp_pb at sbrp_table1 (256 entries) needs {r['min_period_ns_180nm']:.2f} ns at 180 nm "
            f"({r['fo4_depth']:.0f} FO4); {r['min_period_ns_45nm']:.3f} ns at 45 nm, {m22:.3f} ns at 22 nm.")
    for pre, lvl in (("nvw_l1", "L1"), ("nvw_l2", "L2")):
        r = by.get(pre)
        if r:
            m45 = r["min_period_ns_45nm"]
            add(f"Scoped barriers 7.2.5 ({lvl})", f"{lvl} NVW-FIFO updated in parallel with the {lvl} access, one "
                f"operation per 1 GHz cycle, 45 nm: persim {m45:.3f} ns / 1.0 ns", m45 / 1.0,
                "no timing figure; updated in parallel with the cache access (4 CUs at 1 GHz, Table 2; area at 45 nm)",
                f"persim's nvw_fifo at {pre} needs {r['min_period_ns_180nm']:.2f} ns at 180 nm "
                f"({r['fo4_depth']:.0f} FO4), {m45:.3f} ns at 45 nm.")
    return C, notes


def fixes(trows):
    """Per preset that misses its paper's clock: the critical path and what would fix it. The numbers
    come from the rows; the remedies are stated by hand per block, from the RTL structure the path
    runs through (rtl/<block>.v)."""
    pp = rtl_presets.load()["presets"]
    out = []
    for r in trows:
        if r["meets_paper_clock"] == "yes":
            continue
        prm = pp.get(r["preset"], {}).get("params", {})
        blk, node = r["block"], r["paper_node_nm"]
        need = r[f"min_period_ns_{node}nm"]
        stages = int(-(-need // r["period_ns"]))
        ripple = sum(int(n) for c, n in re.findall(r"(NAND3X1|NOR3X1) x(\d+)", r.get("worst_cell_types", "")))
        s = (f"- **{r['preset']}** ({blk}): needs {need:.3f} ns at {node} nm against the paper's {r['period_ns']:.3f} ns "
             f"({need / r['period_ns']:.1f}x; even pipelined ideally that is {stages} stages). Critical path: "
             f"{r['worst_start']} -> {r['worst_end']}, {r['worst_levels']} cells ({r['worst_cell_types']}), "
             f"{r['fo4_depth']:.0f} FO4. ")
        if blk == "wpq_gate":
            s += (f"It runs through the oldest-candidate scan (`first`/`seen` in rtl/wpq_gate.v: a loop over all "
                  f"{prm.get('ENTRIES', '?')} entries, synthesized as a ripple chain, the {ripple} alternating "
                  f"NAND3/NOR3 cells) into the shift of the collapsing queue. Fix: a parallel-prefix form of the scan "
                  f"(log2({prm.get('ENTRIES', '?')}) levels instead of one per entry), or a circular WPQ with "
                  f"head/tail pointers instead of a collapsing one (no shift), and a register between the drain "
                  f"select and the drain (one more cycle of drain latency). The load CAM itself is not the limit "
                  f"(claim table).")
        elif blk == "sbrp_pb":
            s += (f"It runs through the per-slot scans of one operation (find-first-valid from the head, the "
                  f"store-conflict / eviction scan over all {prm.get('ENTRIES', '?')} slots: loops in rtl/sbrp_pb.v "
                  f"synthesized as ripple chains, {ripple} NAND3/NOR3 cells on the path) into the warp masks. "
                  f"Fix: parallel-prefix (log-depth) priority encoders for the scans, and splitting the cycle "
                  f"(operation in one stage, head action in the next); a smaller PB (sbrp_pb64, sbrp_pb128 rows) "
                  f"shortens the chains.")
        elif blk == "broi_sched":
            T = int(prm.get("LOCAL", 0)) + int(prm.get("REMOTE", 0))
            ser = [x for x in trows if x["block"] == "broi_sched" and x["preset"].startswith(r["preset"] + "_serial")]
            K = int(prm.get("SERIAL", 0))
            if K:
                s += (f"The serial scheduler (K = {K} key evaluators, a decision every {-(-T // K)} cycles) still "
                      f"issues, compacts the queues and updates the counters in its decision cycle. ")
            else:
                s += (f"The parallel scheduler evaluates eq. 2 for all {T} entries, picks the best per bank, issues, "
                      f"compacts the queues and updates the counters in one cycle. ")
            if ser:
                s += ("The serial scheduler (K key evaluators, one decision every ceil(T/K) cycles) does not shorten "
                      "the cycle enough: " + ", ".join(
                          f"{x['preset']} {x[f'min_period_ns_{node}nm']:.3f} ns ({x['worst_end']})" for x in ser) +
                      f" at {node} nm; its decision cycle still issues and compacts. ")
            s += ("Fix: pipelining: keys and per-bank candidates registered, issue and compaction in the next "
                  "cycle (the paper counts one extra scheduling cycle; persim's RTL has none), and the compaction and "
                  "occupancy as incremental updates instead of a recount over all units.")
        elif blk == "nvw_fifo":
            if int(prm.get("ACK_MODE", 0)) == 2:
                s += ("In ACK_MODE 2 the path starts at the ack's epoch (epoch counter decrement -> the oldest "
                      "waiting marker retires -> the head action that may move a marker into the freed slot). ")
            s += ("The write index of the offered push is computed from this cycle's head action (head entry read "
                  "mux -> marker/drain decision -> n_head + n_cnt with wrap -> write decode in rtl/nvw_fifo.v), so "
                  "the read, the decision and the write are in series. Fix: a tail pointer register (the paper's "
                  "SRAM circular buffer has separate head and tail pointers, 7.2.5), which takes the adder and the "
                  "dependence on the pop out of the write path.")
        out.append(s)
    return out


# ---- report ----------------------------------------------------------------------------------

TCOLS = ["block", "preset", "clock_ghz", "period_ns", "paper_node_nm", "worst_start", "worst_end", "worst_levels",
         "worst_cell_types", "worst_arrival_ns_180nm", "wns_ns_180nm", "tns_ns_180nm", "min_period_ns_180nm", "fmax_mhz_180nm",
         "fo4_depth"] + [f"{k}_{n}nm" for n in NODES[1:] for k in ("min_period_ns", "fmax_ghz")] + [
         "slack_ns_at_paper_clock_and_node", "meets_paper_clock", "timing_netlist_cells",
         "timing_netlist_um2_180nm", "timing_over_area_netlist", "claim_path", "claim_start", "claim_end",
         "claim_levels", "claim_min_period_ns_180nm"] + [f"claim_min_period_ns_{n}nm" for n in NODES[1:]]


def write_report(arows, trows, cal, outdir, secs):
    with open(os.path.join(outdir, "timing.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=TCOLS, extrasaction="ignore")
        w.writeheader()
        for r in trows:
            w.writerow(r)
    C, notes = claims(trows, cal)
    fx = fixes(trows)
    ab = {(r["block"], r["preset"]): r for r in arows}
    L = ["# RTL area and timing (Yosys 0.23, OpenSTA, OSU 0.18 um standard cells)", "",
         V.provenance_line("make area` / `make timing` (synth/area.py, synth/timing.py)").replace(
             "`make area` / `make timing` (synth/area.py, synth/timing.py)`", "`make area` / `make timing` "
             "(synth/area.py, synth/timing.py)"), "",
         "Every preset under `\"synth\"` in configs/rtl_presets.json, synthesized by Yosys and timed by OpenSTA; "
         "area details and the area comparison with the papers in [area.md](area.md), all numbers in "
         "[area.csv](area.csv) and [timing.csv](timing.csv), the constraints in [sdc/](sdc/). Do not edit: "
         "regenerate with `make area` (synthesis, cached per preset) or `make timing`.", "",
         "## The papers' timing claims", "",
         "persim's figure is the ratio of persim's delay (the minimum clock period of the block, or of the "
         "named path, scaled to the paper's node) to the paper's time budget: below 1.0 the logic fits the "
         "paper's cycle. Each claim is of kind \"less\" of the verdict rule below (the paper says it fits: "
         "ratio < 1); one synthesis, no seeds, so every number is exact. Verdicts: " + C.summary() + ".", "",
         C.table(nd=2), ""]
    for where, note in notes:
        L.append(f"- **{where}**: {note}")
    L += ["", "## Where a block misses its paper's clock", ""]
    L += fx if fx else ["Every block meets its paper's clock under the scaling rule."]
    L += ["", "## Area and timing per preset", "",
          f"Minimum period = paper's period - worst slack (the SDC's I/O delays are absolute); fmax = 1 / minimum "
          f"period; FO4 depth = minimum period / the library's FO4 delay ({cal['fo4_ns'] * 1000:.0f} ps, an INVX1 "
          f"driving four INVX1, measured with OpenSTA), node-independent. Slack = the paper's period - the "
          f"minimum period scaled to the paper's node. Area columns are of the area netlist (area.csv); "
          f"the timing netlist (delay mapping, buffers, sizing) is larger by the factor in the last column.", "",
          "| block | preset | cells | flip-flops | um^2 @180nm | GE | worst path (start -> end) | cells on path | "
          "min period @180nm (ns) | FO4 | fmax @180/65/45/22 nm (GHz) | paper clock | slack @paper node (ns) | "
          "timing/area netlist |",
          "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|---|---:|---:|"]
    for r in trows:
        a = ab.get((r["block"], r["preset"]), {})
        fm = " / ".join([f"{r['fmax_mhz_180nm'] / 1000:.2f}"] + [f"{r[f'fmax_ghz_{n}nm']:.2f}" for n in NODES[1:]])
        L.append(f"| {r['block']} | {r['preset']} | {a.get('cells', '')} | {a.get('flip_flops', '')} | "
                 f"{float(a.get('area_um2_180nm', 0)):.0f} | {float(a.get('gate_equivalents', 0)):.0f} | "
                 f"{r['worst_start']} -> {r['worst_end']} | {r['worst_levels']} | {r['min_period_ns_180nm']:.2f} | "
                 f"{r['fo4_depth']:.0f} | {fm} | {r['clock_ghz']:g} GHz @{r['paper_node_nm']} nm | "
                 f"{r['slack_ns_at_paper_clock_and_node']:+.3f} ({r['meets_paper_clock']}) | "
                 f"{r['timing_over_area_netlist']} |")
    L += ["", "## Flow", "",
          "- **Synthesis** (synth/synth.ys.in, one Yosys run per preset): `read_verilog -defer`, `chparam` (preset), "
          "`synth -flatten`, `dfflibmap`, then two mappings of the same elaboration: the *area netlist* "
          "(`abc -liberty`, Yosys's default area-oriented ABC script; area.csv) and the *timing netlist* "
          "(`abc -liberty -constr -D`: delay-oriented `&nf` with the paper's period scaled to 180 nm as the target, "
          "then ABC's `buffer`, `upsize`, `dnsize`; inputs driven by BUFX2, outputs loaded with 0.05 pF). Without "
          "buffering a single INVX1 drives hundreds of loads (the reset, the operation code) and the worst path is "
          "an artefact of that (tens of ns).",
          "- **Timing** (synth/timing.py): OpenSTA (Debian `opensta`, 2019) reads the liberty, the timing netlist "
          "and the block's SDC, and reports the worst path (`report_checks -path_delay max`), the worst slack and "
          "TNS. No wire load (the liberty has none) and no parasitics: gate delays with pin loads only; an ideal "
          "clock. Registers are named by the net on their Q pin (the Verilog reg).",
          "- **SDC** (sdc/<block>.sdc, generated from the clock table in synth/timing.py): the paper's clock; "
          f"inputs arrive {cal['tcq_ns']:.3f} ns after the edge (DFFPOSX1 clock-to-Q driving FO4: every input comes "
          f"from a register of the neighbouring block) through a BUFX2; outputs must arrive {cal['setup_ns']:.3f} ns "
          "before the next edge (DFFPOSX1 setup), load 0.05 pF. All outputs are registered, so the input-to-register "
          "and register-to-register paths are what the clock constrains.",
          "- **Clocks**: " + "; ".join(f"`{b}` {c[0]:g} GHz ({c[2]})" for b, c in CLOCKS.items()) + ".",
          "- **Scaling rule**: " + RULE_TEXT,
          f"- Synthesis time of this table: {secs}.", "",
          V.rule_text(), ""]
    with open(os.path.join(outdir, "README.md"), "w") as f:
        f.write("\n".join(L))


def time_point(res, sdc, cal, area_row):
    st = sta_point(res["block"], res["preset"], res["netlist"], sdc)
    res = dict(res, timing_stat=timing_stat(res))
    return timing_row(res, st, reg_names(res["netlist"]), cal, area_row), st


def main():
    a = area.common_args().parse_args()
    d = rtl_presets.load()
    areas = area.lib_areas()
    cal = calibrate()
    if a.smoke:
        pre = d["smoke"]
        blk = d["presets"][pre]["block"]
        res = area.synth_point(blk, pre, a.work)
        sdc = os.path.join(a.work, blk + ".sdc")
        with open(sdc, "w") as f:
            f.write(sdc_text(blk, cal))
        row, st = time_point(res, sdc, cal, area.summarize(res, areas))
        wp = st["worst"]
        print(f"timing smoke: {pre}: worst path {row['worst_start']} -> {row['worst_end']}, {wp['levels']} cells, "
              f"arrival {wp['arrival']:.3f} ns, min period {row['min_period_ns_180nm']:.3f} ns at 180 nm "
              f"(FO4 {cal['fo4_ns'] * 1000:.0f} ps, {row['fo4_depth']} FO4)")
        ok = (wp["arrival"] > 0 and row["min_period_ns_180nm"] > 0 and wp["levels"] >= 1 and
              row["worst_start"] not in ("?", "") and row["worst_end"] not in ("?", "") and
              not row["worst_end"].startswith("reg _") and 0.05 < cal["fo4_ns"] < 0.2)
        print("timing smoke:", "ok" if ok else "FAILED")
        return 0 if ok else 1
    points = [(blk, pre) for blk, names in d["synth"].items() for pre in names
              if os.path.exists(os.path.join(ROOT, "rtl", blk + ".v")) and (not a.only or pre in a.only)]
    res = area.synth_all(points, a.work, a.jobs, a.out)     # cached: only missing or stale netlists run
    sdcs = write_sdcs(a.out, cal, sorted({b for b, _ in points}))
    arows = {bp: area.summarize(res[bp], areas) for bp in points}
    trows = {}
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = {ex.submit(time_point, res[bp], sdcs[bp[0]], cal, arows[bp]): bp for bp in points}
        for fu in cf.as_completed(futs):
            bp = futs[fu]
            trows[bp], _ = fu.result()
            r = trows[bp]
            print(f"timing: {r['block']:10s} {r['preset']:20s} min period {r['min_period_ns_180nm']:7.3f} ns "
                  f"@180nm ({r['fo4_depth']:5.1f} FO4), {r['worst_start']} -> {r['worst_end']}; "
                  f"slack at {r['clock_ghz']:g} GHz @{r['paper_node_nm']} nm {r['slack_ns_at_paper_clock_and_node']:+.3f} ns",
                  flush=True)
    if a.only and os.path.exists(os.path.join(a.out, "timing.csv")):
        with open(os.path.join(a.out, "timing.csv")) as f:
            for r in csv.DictReader(f):
                k = (r["block"], r["preset"])
                if k not in trows:
                    trows[k] = {c: _num(v) for c, v in r.items()}
    allp = [(blk, pre) for blk, names in d["synth"].items() for pre in names]
    trl = [trows[p] for p in allp if p in trows]
    # area rows for the README: this run's, else area.csv's
    arl = []
    old = {}
    if os.path.exists(os.path.join(a.out, "area.csv")):
        with open(os.path.join(a.out, "area.csv")) as f:
            old = {(r["block"], r["preset"]): r for r in csv.DictReader(f)}
    for p in allp:
        if p in arows:
            arl.append(arows[p])
        elif p in old:
            arl.append(old[p])
    tot_w = sum(float(r.get("synth_seconds") or 0) for r in arl)
    tot_c = sum(float(r.get("synth_cpu_seconds") or 0) for r in arl)
    secs = (f"{tot_c:.0f} CPU s over {len(arl)} presets ({tot_w:.0f} s of wall time summed over the presets; "
            f"see docs/rtl.md for the measured `make area` time)")
    write_report(arl, trl, cal, a.out, secs)
    print(f"timing: wrote {os.path.join(a.out, 'timing.csv')}, README.md and sdc/")
    return 0


def _num(v):
    try:
        f = float(v)
        return int(f) if f.is_integer() and "." not in v else f
    except (TypeError, ValueError):
        return v


if __name__ == "__main__":
    sys.exit(main())
