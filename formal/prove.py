#!/usr/bin/env python3
"""Formal proofs of the four RTL blocks' ordering promises (docs/rtl.md "Formal properties").

Each property is an `ifdef FP_<name>` group of assert/assume statements under `ifdef FORMAL` in
rtl/<block>.v. For one (block, preset, property) this script runs

  yosys:         read_verilog -defer -formal -DFORMAL -DFP_<name> rtl/<block>.v; chparam (from
                 configs/rtl_presets.json via synth/rtl_presets.py); prep -top; memory_map;
                 opt -fast; dffunmap; write_smt2 -wires
  yosys-smtbmc:  method "prove": basecase (BMC, -t K) and induction step (-i -t K): a k-induction
                 proof of depth K; method "bmc": BMC to depth K (-t K), a bounded result;
                 expect "fail": BMC must find a counterexample (VCD with --dump-vcd)

Solver: cvc5 (Debian bookworm 1.0.3). Debian's boolector (1.5.118, 2012) has no (get-value) and
no (push): yosys-smtbmc cannot drive it; Debian's z3 4.8.12 stalls while parsing the transition
relation of these blocks (define-fun with ~12 register equalities, minutes at step 0).

  prove.py [--block B] [--only REGEX] [--jobs N] [--work DIR]      every property (exit 1 on any
                                                                    unexpected result)
  prove.py --mutants [--block B]                                   every planted bug must make a
                                                                    property fail
  prove.py --cex wpq_ungated --stim FILE                           the UNGATED counterexample as a
                                                                    co-simulation stimulus (formal/vcd2stim.py)
  prove.py --write-results results/formal                          also writes formal.csv + README.md
"""
import argparse
import concurrent.futures as cf
import csv
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(ROOT, "synth"))
import rtl_presets  # noqa: E402  (the single reader of configs/rtl_presets.json)

SOLVER = "cvc5"

# (block, preset, property, method, depth, expect, what / reason for the method)
PROPS = [
    # ---- wpq_gate ----
    ("wpq_gate", "wpq_small", "drain_order", "prove", 1, "pass",
     "a drained write is of the flush-ID region: every older region committed here"),
    ("wpq_gate", "wpq_small_ungated", "drain_order", "bmc", 4, "fail",
     "UNGATED = 1 drains a younger region before the flush-ID region commits (counterexample)"),
    ("wpq_gate", "wpq_small", "persist_gate", "prove", 1, "pass",
     "a drain is of a persisted region (boundary + MCS-1 bdry-ACKs) or undo-logged, never both"),
    ("wpq_gate", "wpq_small", "commit", "prove", 1, "pass",
     "commit only when persisted, flushed here and flush-ACKed by the others; flush ID + 1"),
    ("wpq_gate", "wpq_small", "window", "prove", 1, "pass",
     "no queued write of a committed region: every entry's region in [flush ID, + REGIONS)"),
    ("wpq_gate", "wpq_small", "structural", "prove", 2, "pass",
     "no overflow/underflow, drains take a valid entry, outputs mirror state, reset state"),
    # ---- sbrp_pb ----
    ("sbrp_pb", "sbrp_small", "actr", "prove", 1, "pass",
     "ACTR[p] = flushes + evictions of phase p - accepted acks; never underflows"),
    ("sbrp_pb", "sbrp_formal", "fence_order", "bmc", 4, "pass",
     "no flush/eviction of warp w's entry while a retired fence of w waits for acks; BMC: the "
     "shadow (in flight / fenced per phase) is not inductive without invariants tying it to "
     "FSM/FWM/EDM; cvc5's time per BMC step grows steeply (BMC to depth 5 took 185 s "
     "with two jobs); depth 4 covers store+flush, fence retire, blocked store"),
    ("sbrp_pb", "sbrp_formal", "evict_order", "bmc", 5, "pass",
     "an eviction never passes an older ordering entry of one of its warps; BMC: induction fails "
     "on unreachable prev pointers (prev[k] of a slot not consistent with the ring); depth 5 "
     "covers an unflushed persist, a fence behind it, a younger store, its eviction (sbrp_small "
     "at depth 5 took 395 s)"),
    ("sbrp_pb", "sbrp_small", "coalesce_order", "prove", 1, "pass",
     "a store never coalesces into an entry older than an ordering entry of its warp"),
    ("sbrp_pb", "sbrp_formal", "structural", "bmc", 4, "pass",
     "count = valid slots <= used <= ENTRIES, head/tail in range, reset state; BMC: induction "
     "fails on valid bits outside [head, tail)"),
    # ---- broi_sched ----
    ("broi_sched", "broi_formal", "epoch_order", "bmc", 5, "pass",
     "thread I's requests issue in barrier-epoch order, its barrier only after its epoch; BMC: "
     "with an invariant on the tag of every unit position the induction step did not finish in 300 s; depth 5 "
     "covers request, barrier, next-epoch request, issue"),
    ("broi_sched", "broi_formal", "liveness", "bmc", 5, "pass",
     "a SubReady request of entry I on ready bank B issues within (T-1)*UNITS decisions while no "
     "bank-B request enters another entry (safety counter, with f_wait + other entries' bank-B "
     "requests <= bound); BMC: the induction step did not finish in 120 s; within 5 cycles "
     "the counter reaches at most 3 < bound 4, so this bound is shallow"),
    ("broi_sched", "broi_formal", "structural", "prove", 1, "pass",
     "issues only on ready banks from the SubReady-SET, counts/lengths in range, reset state"),
    # ---- nvw_fifo ----
    ("nvw_fifo", "nvw_small", "fifo_order", "prove", 2, "pass",
     "entries (writes and markers) leave in push order (sequence-number witness)"),
    ("nvw_fifo", "nvw_small", "marker", "prove", 2, "pass",
     "L2: a p_flush marker retires only at the head with every write-back acknowledged, at once "
     "when it may; writes ahead drain, writes behind wait, pushes are never blocked"),
    ("nvw_fifo", "nvw_formal_l1", "marker", "prove", 2, "pass",
     "L1: the marker drains the writes ahead and passes downstream at the head"),
    ("nvw_fifo", "nvw_small", "structural", "prove", 2, "pass",
     "count/markers/outstanding in range, marker count = marker entries, reset state"),
]

# Planted bugs: (block, preset, property that must fail, name, old text, new text, BMC depth).
# Applied to a copy of rtl/<block>.v; each old text must occur exactly once.
MUTANTS = [
    ("wpq_gate", "wpq_small", "drain_order", "ignored_region_match",
     "assign dm[g]    = (UNGATED != 0) ? qv[g] : match[g];",
     "assign dm[g]    = qv[g];", 4),
    ("wpq_gate", "wpq_small", "persist_gate", "persisted_off_by_one",
     "pers_of = b[k] && (`WPQ_Z32(a[k*4 +: 4], 4) + 1 >= MCS);",
     "pers_of = b[k] && (`WPQ_Z32(a[k*4 +: 4], 4) + 2 >= MCS);", 4),
    ("wpq_gate", "wpq_small", "commit", "commit_without_flush_ack",
     "if (n_fsent && t32 + 1 >= MCS) begin",
     "if (n_fsent && t32 + 2 >= MCS) begin", 3),
    ("wpq_gate", "wpq_formal", "structural", "full_off_by_one",
     "else if (c32 >= ENTRIES) o_res = 3'd2;",
     "else if (c32 > ENTRIES) o_res = 3'd2;", 5),
    ("sbrp_pb", "sbrp_formal", "fence_order", "fsm_ignored_at_head",
     "if ((m & (n_fsm0 | n_fsm1)) != 0) begin",
     "if (1'b0) begin", 4),
    ("sbrp_pb", "sbrp_formal", "fence_order", "fence_mask_bit0_ignored",
     "n_fsm0 = n_fsm0 | (m & n_fwm0);",
     "n_fsm0 = n_fsm0 | (m & n_fwm0 & ~{{(WARPS-1){1'b0}}, 1'b1});", 4),
    ("sbrp_pb", "sbrp_small", "actr", "actr_underflow",
     "if (!ack_phase && n_ac0 != 16'd0) begin",
     "if (!ack_phase) begin", 3),
    ("sbrp_pb", "sbrp_formal", "evict_order", "evict_prev_ignored",
     "blocked1 = pvv[es] && vld[ps]",
     "blocked1 = 1'b0 && vld[ps]", 5),
    ("broi_sched", "broi_formal", "epoch_order", "dropped_barrier",
     "e0i = (nb != 2'd0) ? l0 : cn;",
     "e0i = cn;", 5),
    ("broi_sched", "broi_formal", "epoch_order", "barrier_early_off_by_one",
     "if (nb != 2'd0 && l0 == {UW{1'b0}} && !(MERGE != 0 && i < LOCAL && ahead[i])) begin",
     "if (nb != 2'd0 && l0 <= {{(UW-1){1'b0}}, 1'b1} && !(MERGE != 0 && i < LOCAL && ahead[i])) begin", 5),
    ("broi_sched", "broi_formal", "structural", "bank_ready_ignored",
     "if (decide && bank_ready[b] && sfound[b]) begin",
     "if (decide && sfound[b]) begin", 3),
    ("nvw_fifo", "nvw_small", "fifo_order", "tail_off_by_one",
     "if (tail > LAST) tail = tail - (LAST + 1'b1);",
     "if (tail >= LAST) tail = tail - LAST;", 6),
    ("nvw_fifo", "nvw_small", "marker", "marker_ignores_outstanding",
     "if (n_out == {OW{1'b0}}) begin",
     "if (1'b1) begin", 6),
    ("nvw_fifo", "nvw_small", "structural", "ack_underflow",
     "end else if (ack && n_out != {OW{1'b0}}) n_out = n_out - 1'b1;",
     "end else if (ack) n_out = n_out - 1'b1;", 4),
]

STEP_RE = re.compile(r"Checking assertions in step (\d+)")
FAIL_RE = re.compile(r"Assert failed in \S+: (\S+)")


def chparam(preset):
    d = rtl_presets.load()
    p = d["presets"][preset]
    sets = " ".join(f"-set {k} {int(v)}" for k, v in p["params"].items())
    return p["block"], f"chparam {sets} {p['block']}"


def build_smt2(vfile, preset, prop, work):
    block, chp = chparam(preset)
    os.makedirs(work, exist_ok=True)
    smt2 = os.path.join(work, "model.smt2")
    ys = os.path.join(work, "model.ys")
    with open(ys, "w") as f:
        f.write(f"read_verilog -defer -formal -DFORMAL -DFP_{prop} {vfile}\n{chp}\n"
                f"prep -top {block}\nmemory_map\nopt -fast\ndffunmap\nwrite_smt2 -wires {smt2}\n")
    r = subprocess.run(["yosys", "-q", "-l", os.path.join(work, "yosys.log"), ys],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"yosys failed on {vfile} {preset} {prop}:\n{r.stdout}{r.stderr}")
    return smt2


def smtbmc(smt2, args, work, tag):
    cmd = ["yosys-smtbmc", "-s", SOLVER] + args + [smt2]
    r = subprocess.run(cmd, capture_output=True, text=True)
    log = os.path.join(work, f"smtbmc_{tag}.log")
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    out = r.stdout
    if "Status: PASSED" in out:
        return "pass", None
    if "Status: FAILED" in out:
        m = FAIL_RE.search(out)
        steps = STEP_RE.findall(out)
        where = os.path.basename(m.group(1)).split("-")[0] if m else "?"   # file:line.col
        return "fail", f"{where} at step {steps[-1]}" if steps else where
    raise RuntimeError(f"yosys-smtbmc error ({' '.join(cmd)}):\n{out[-2000:]}{r.stderr[-2000:]}")


def run_prop(block, preset, prop, method, depth, expect, work, vfile=None):
    """-> (result, detail, seconds). result: proved | bounded | cex | FAILED | INCONCLUSIVE"""
    vfile = vfile or os.path.join(ROOT, "rtl", f"{block}.v")
    t0 = time.time()
    smt2 = build_smt2(vfile, preset, prop, work)
    vcd = os.path.join(work, "cex.vcd")
    base, where = smtbmc(smt2, ["-t", str(depth), "--dump-vcd", vcd], work, "bmc")
    if base == "fail":
        res = "cex" if expect == "fail" else "FAILED"
        return res, f"counterexample: {where}", time.time() - t0
    if expect == "fail":
        return "FAILED", f"no counterexample within {depth} steps", time.time() - t0
    if method == "bmc":
        return "bounded", f"no counterexample within {depth} steps", time.time() - t0
    ind, where = smtbmc(smt2, ["-i", "-t", str(depth)], work, "ind")
    if ind == "pass":
        return "proved", f"{depth}-induction", time.time() - t0
    return "INCONCLUSIVE", f"induction step fails at k={depth}: {where}", time.time() - t0


def ok(expect, res):
    return res in (("cex",) if expect == "fail" else ("proved", "bounded"))


def prop_job(args):
    block, preset, prop, method, depth, expect, why, work = args
    try:
        res, detail, sec = run_prop(block, preset, prop, method, depth, expect, work)
    except RuntimeError as e:
        res, detail, sec = "ERROR", str(e).splitlines()[0], 0.0
        print(e, file=sys.stderr)
    return (block, preset, prop, method, depth, expect, res, detail, sec, why)


def mutant_job(args):
    block, preset, prop, name, old, new, depth, work = args
    src = open(os.path.join(ROOT, "rtl", f"{block}.v")).read()
    n = src.count(old)
    if n != 1:
        return (block, name, prop, "ERROR", f"patch text found {n} times", 0.0)
    os.makedirs(work, exist_ok=True)
    vfile = os.path.join(work, f"{block}.v")
    with open(vfile, "w") as f:
        f.write(src.replace(old, new))
    try:
        res, detail, sec = run_prop(block, preset, prop, "bmc", depth, "fail", work, vfile)
    except RuntimeError as e:
        return (block, name, prop, "ERROR", str(e).splitlines()[0], 0.0)
    return (block, name, prop, "caught" if res == "cex" else "MISSED", detail, sec)


def write_results(outdir, rows, mrows):
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "formal.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["block", "preset", "property", "method", "depth", "expect", "result", "detail",
                    "seconds"])
        for r in rows:
            w.writerow([r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], f"{r[8]:.1f}"])
    with open(os.path.join(outdir, "mutants.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["block", "mutant", "property", "result", "detail", "seconds"])
        for r in mrows:
            w.writerow([r[0], r[1], r[2], r[3], r[4], f"{r[5]:.1f}"])
    L = ["# Formal properties of the RTL blocks",
         "",
         "Generated by `python3 formal/prove.py --mutants --write-results results/formal` "
         f"(`make formal`); solver {SOLVER} through yosys-smtbmc (Yosys 0.23). What each property "
         "says, the legal-input assumptions and how to add one: docs/rtl.md \"Formal properties\". "
         "Seconds are wall time on the shared 2-core machine (yosys + solver).",
         "",
         "method `prove` = k-induction (basecase BMC to k and induction step of depth k both pass: "
         "holds in every reachable state); `bmc` = bounded model check (no counterexample within "
         "depth cycles from reset; the reason induction was not used is given); expect `fail` = "
         "the property must have a counterexample.",
         "",
         "| block | preset | property | method | depth | result | s | what / reason |",
         "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        L.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[6]} | {r[8]:.1f} | {r[9]} |")
    if mrows:
        L += ["", "## Mutants", "",
              "Planted bugs (text patches of a copy of the Verilog, `MUTANTS` in formal/prove.py), "
              "each checked by BMC against the property that must catch it.", "",
              "| block | mutant | property | result | detail | s |", "|---|---|---|---|---|---|"]
        for r in mrows:
            L.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:.1f} |")
    total = sum(r[8] for r in rows) + sum(r[5] for r in mrows)
    L += ["", f"Total {total:.0f} s of proof time ({len(rows)} property runs, {len(mrows)} mutants).",
          ""]
    with open(os.path.join(outdir, "README.md"), "w") as f:
        f.write("\n".join(L))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--block")
    ap.add_argument("--only", help="regex on block.preset.property")
    ap.add_argument("--mutants", action="store_true", help="run the planted bugs (with --props also the properties)")
    ap.add_argument("--props", action="store_true", help="with --mutants: run the properties too")
    ap.add_argument("--cex", choices=["wpq_ungated"], help="write the UNGATED counterexample's VCD")
    ap.add_argument("--vcd", help="with --cex: VCD output path")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "formal"))
    ap.add_argument("--write-results", metavar="DIR")
    a = ap.parse_args()
    for tool in ("yosys", "yosys-smtbmc", SOLVER):
        if not shutil.which(tool):
            sys.exit(f"prove.py: {tool} not found (scripts/install-deps.sh installs it)")

    if a.cex:
        work = os.path.join(a.work, "cex_wpq_ungated")
        res, detail, sec = run_prop("wpq_gate", "wpq_small_ungated", "drain_order", "bmc", 4, "fail", work)
        print(f"wpq_small_ungated drain_order: {res} ({detail}) {sec:.1f}s")
        if res != "cex":
            sys.exit(1)
        if a.vcd:
            shutil.copyfile(os.path.join(work, "cex.vcd"), a.vcd)
        return

    listed = rtl_presets.load().get("formal", {})
    for row in PROPS + MUTANTS:
        if row[1] not in listed.get(row[0], []):
            sys.exit(f"prove.py: preset {row[1]} of {row[0]} is not listed under \"formal\" in configs/rtl_presets.json")
    sel = lambda b, name: (not a.block or b == a.block) and (not a.only or re.search(a.only, name))
    rows, mrows = [], []
    run_props = not a.mutants or a.props
    jobs = []
    if run_props:
        for (b, pre, prop, meth, depth, exp, why) in PROPS:
            if sel(b, f"{b}.{pre}.{prop}"):
                jobs.append((b, pre, prop, meth, depth, exp, why, os.path.join(a.work, f"{pre}.{prop}")))
    mjobs = []
    if a.mutants:
        for (b, pre, prop, name, old, new, depth) in MUTANTS:
            if sel(b, f"{b}.{name}.{prop}"):
                mjobs.append((b, pre, prop, name, old, new, depth, os.path.join(a.work, f"mut_{b}.{name}")))
    bad = 0
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for r in ex.map(prop_job, jobs):
            rows.append(r)
            good = ok(r[5], r[6])
            bad += not good
            print(f"{'ok  ' if good else 'BAD '} {r[0]:10s} {r[1]:18s} {r[2]:14s} {r[3]:5s} k={r[4]:<3d} "
                  f"{r[6]:12s} {r[8]:6.1f}s  {r[7]}", flush=True)
        for r in ex.map(mutant_job, mjobs):
            mrows.append(r)
            good = r[3] == "caught"
            bad += not good
            print(f"{'ok  ' if good else 'BAD '} mutant {r[0]:10s} {r[1]:28s} {r[2]:14s} {r[3]:7s} "
                  f"{r[5]:6.1f}s  {r[4]}", flush=True)
    if not jobs and not mjobs:
        sys.exit("prove.py: nothing selected")
    if a.write_results:
        write_results(a.write_results, rows, mrows)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
