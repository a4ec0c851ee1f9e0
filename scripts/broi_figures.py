#!/usr/bin/env python3
"""Regenerate the BROI evaluation (Figures 9-13 of "Persistence Parallelism Optimization: A Holistic
Approach from Memory Bus to RDMA Network", section VII, setup in section VI / Tables III-IV) with
persim: `make figures-broi`.

For every spec in configs/experiments/broi/ it runs `persim sweep` (points whose results exist are
skipped unless --force), then computes each figure from the sweep CSVs and writes
results/broi/figN.csv, figN.png and results/broi/README.md, which puts every figure beside the
numbers the paper's text reports (../shared/papers/broi-persistence-parallelism.md). The raw sweeps
go to results/broi/raw/<spec>/ (sweep.csv committed, runs/ ignored).

Same structure and rules as scripts/lightwsp_figures.py: every spec runs input seeds 1-2
(`sim.seed`; every broi-* workload is seed-dependent), every number is computed per seed (a ratio
pairs two runs of the same workload and seed) and reported as mean and 95% Student-t CI over the
seeds (scripts/verdict.py); the verdicts come from the one rule in scripts/verdict.py.

Figure 10 (operational throughput) is drawn from Figure 9's runs (the same points: it is the same
work in both models, so operations / time compares as 1 / sim_ns). Nothing here is tuned; the paper
numbers are quoted from its text and only compared."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict as V  # noqa: E402
from verdict import lift, ratio  # noqa: E402
import sbrp_figures as SF  # noqa: E402  (runs, gmean, cell, write_csv, table, plt_or_none)
import lightwsp_figures as LW  # noqa: E402  (bars, csv_and_png, rows_of, amean, mech_table)

SPECS = ["fig9", "fig11", "fig12", "fig13", "serial"]
SERIAL = [0, 5, 2, 1]     # broi.serial: 0 = the parallel scheduler; K entries evaluated per cycle
NAN = float("nan")

# Table IV micro-benchmarks and persim's stand-ins (docs/workloads-cpu.md, "BROI workloads").
LOCAL = [("Hash", "broi-hashtable"), ("RBTree", "broi-rbtree"), ("SPS", "broi-sps"), ("BTree", "broi-bptree"),
         ("SSCA2", "broi-ssca2")]
HYB = {lab: wl + "-hybrid" for lab, wl in LOCAL}
LABS = [lab for lab, _ in LOCAL]
# Table IV WHISPER clients (section VII-B).
REMOTE = [("ycsb", "broi-ycsb"), ("tpcc", "broi-tpcc"), ("ctree", "broi-ctree"), ("hashmap", "broi-hashmap"),
          ("memcached", "broi-memcached")]
ELEMS = [128, 256, 512, 1024, 2048, 4096]
CORES = [2, 4, 8]
UNITS = [4, 8, 16]

# Paper numbers (section VII and the abstract; reference values only, never passed to the simulator).
PAPER = {
    "mem_local": 1.16, "mem_hybrid": 1.18,     # VII-A Fig. 9: BROI-mem +16% (local), +18% (hybrid) over Epoch
    "ops_local": 1.28, "ops_hybrid": 1.30,     # VII-A Fig. 10: +28% / +30% operational throughput
    "abstract_local": 1.3,                     # abstract: 1.3x for local applications
    "bsp_mean": 1.93,                          # abstract / conclusion: 1.93x for remote applications
    "bsp_tpcc": 2.5, "bsp_ycsb": 2.5,          # VII-B: "For tpcc and ycsb, BSP improves by 2.5x"
    "bsp_2x": 2.0,                             # VII-B: hashmap, ctree, ycsb, tpcc "2x times improvement"
    "bsp_memcached": 1.15,                     # VII-B: memcached "only performs 15% better"
}

runs, gmean, cell, write_csv, table = SF.runs, SF.gmean, SF.cell, SF.write_csv, SF.table
rows_of, amean, bars = LW.rows_of, LW.amean, LW.bars


def col(rows, c, **kv):
    return runs(rows, c, **kv)


def mops(rows, **kv):
    """Operations (the resolved `size`: transactions) per microsecond of simulated time = Mops."""
    return lift(lambda n, t: n / t * 1e3 if t else NAN, runs(rows, "size", **kv), runs(rows, "sim_ns", **kv))


def with_gm(d, keys):
    d["geomean"] = gmean([d[k] for k in keys])
    return d


# ---- figures -------------------------------------------------------------------------------------

def fig9(rows):
    """Memory throughput (nvm_write_bw) normalized to Epoch-local per benchmark (the paper's y-axis)."""
    def bw(m, lab, hyb):
        return col(rows, "nvm_write_bw", model=m, workload=HYB[lab] if hyb else dict(LOCAL)[lab])
    base = {lab: bw("broi-epoch", lab, False) for lab in LABS}
    series = {"Epoch-local": ("broi-epoch", False), "BROI-local": ("broi", False),
              "Epoch-hybrid": ("broi-epoch", True), "BROI-hybrid": ("broi", True)}
    out = {s: with_gm({lab: ratio(bw(m, lab, h), base[lab]) for lab in LABS}, LABS) for s, (m, h) in series.items()}
    # BROI over Epoch within each scenario (the paper's +16% / +18%)
    gain = {sc: with_gm({lab: ratio(bw("broi", lab, sc == "hybrid"), bw("broi-epoch", lab, sc == "hybrid"))
                         for lab in LABS}, LABS) for sc in ("local", "hybrid")}
    absbw = {s: {lab: bw(m, lab, h) for lab in LABS} for s, (m, h) in series.items()}
    return out, gain, absbw


def fig10(rows):
    """Local operational throughput in Mops (local operations / sim time) and BROI over Epoch."""
    series = {"Epoch-local": ("broi-epoch", False), "BROI-local": ("broi", False),
              "Epoch-hybrid": ("broi-epoch", True), "BROI-hybrid": ("broi", True)}
    out = {}
    for s, (m, h) in series.items():
        d = {lab: mops(rows, model=m, workload=HYB[lab] if h else dict(LOCAL)[lab]) for lab in LABS}
        d["mean"] = amean([d[lab] for lab in LABS])
        out[s] = d
    gain = {}
    for sc in ("local", "hybrid"):
        wl = (lambda lab: HYB[lab]) if sc == "hybrid" else (lambda lab: dict(LOCAL)[lab])
        gain[sc] = with_gm({lab: ratio(runs(rows, model="broi-epoch", workload=wl(lab)),
                                       runs(rows, model="broi", workload=wl(lab))) for lab in LABS}, LABS)
    return out, gain


def fig11(rows):
    wl = "broi-hashtable"
    out = {"Epoch": {str(c): mops(rows, model="broi-epoch", workload=wl, **{"cpu.cores": c, "broi.units": 16})
                     for c in CORES}}
    for u in UNITS:
        out[f"BROI {u} units"] = {str(c): mops(rows, model="broi", workload=wl, **{"cpu.cores": c, "broi.units": u})
                                  for c in CORES}
    return out


def remote(rows, wls, **kv):
    """{mode: {label: Mtx/s}} and BSP over Sync per label (sim_ns(sync) / sim_ns(bsp))."""
    tp = {m: {lab: mops(rows, model="broi", workload=w, **{"rdma.mode": m}, **kv) for lab, w in wls}
          for m in ("sync", "bsp")}
    sp = {lab: ratio(runs(rows, model="broi", workload=w, **{"rdma.mode": "sync"}, **kv),
                     runs(rows, model="broi", workload=w, **{"rdma.mode": "bsp"}, **kv)) for lab, w in wls}
    return tp, sp


MECH_COLS = [("nvm_write_bw", "NVM write GB/s"), ("sim_ns", "sim µs"), ("instructions", "instructions"),
             ("barriers", "barriers"), ("rdma_path_writes", "RDMA-path writes"),
             ("stall_persist_ACK_cycles", "persist-ACK stall cycles"), ("nvm_write_bytes", "NVM write bytes"),
             ("path_writes", "persist-path writes")]


def mech(rows, pairs, **kv):
    """Mechanism columns from the sweep CSV: {row label: {column label: PS}} (only the columns present)."""
    have = set(rows[0].keys()) if rows else set()
    cols = [(c, lab) for c, lab in MECH_COLS if c in have]
    d = {}
    for lab, kw in pairs:
        e = {}
        for c, cl in cols:
            p = runs(rows, c, **kw, **kv)
            if c == "sim_ns":
                p = lift(lambda x: x / 1e3, p)
            e[cl] = p
        d[lab] = e
    return d, [cl for _, cl in cols]


# ---- README ----------------------------------------------------------------------------------------

def mech_table(d, keys, cols):
    return LW.mech_table(d, keys, cols, head="run")


def main():
    t0 = time.time()
    a = V.figure_args(__doc__, "configs/experiments/broi", "results/broi")
    out = a.out
    failed, run_s = V.run_sweeps(a, SPECS)
    plt = SF.plt_or_none()
    if plt is None:
        print("matplotlib missing (Debian: python3-matplotlib): CSVs only, no PNGs", file=sys.stderr)

    C = V.Claims()
    R = {s: rows_of(out, s) for s in SPECS}
    nruns = {s: len(R[s]) for s in SPECS}
    bad = [(s, r["point"], r.get("status"), r.get("exit")) for s in SPECS for r in R[s] if r.get("status") != "ok"]
    F = {}

    # Figure 9
    f9, g9, bw9 = fig9(R["fig9"])
    ser9 = ["Epoch-local", "BROI-local", "Epoch-hybrid", "BROI-hybrid"]
    LW.csv_and_png(out, plt, "fig9", "persim: BROI Figure 9, memory system throughput (NVM write GB/s) "
                   "normalized to Epoch-local", "throughput / Epoch-local", LABS + ["geomean"], ser9, f9,
                   first="benchmark", log=False)
    C.add("Fig. 9", "BROI-mem over Epoch, memory throughput, local, geomean of the 5 benchmarks (VII-A: +16%)",
          g9["local"]["geomean"].summary(), PAPER["mem_local"])
    C.add("Fig. 9", "BROI-mem over Epoch, memory throughput, hybrid (2 RDMA channels), geomean (VII-A: +18%)",
          g9["hybrid"]["geomean"].summary(), PAPER["mem_hybrid"])
    C.add("Fig. 9", "Epoch-hybrid over Epoch-local, memory throughput, geomean (VII-A: hybrid has larger "
          "throughput: larger epochs, sequential remote writes)", f9["Epoch-hybrid"]["geomean"].summary(),
          kind="greater")
    C.add("Fig. 9", "BROI-hybrid over BROI-local, memory throughput, geomean (VII-A: same observation)",
          ratio(f9["BROI-hybrid"]["geomean"], f9["BROI-local"]["geomean"]).summary(), kind="greater")

    # Figure 10 (from Figure 9's runs)
    f10, g10 = fig10(R["fig9"])
    LW.csv_and_png(out, plt, "fig10", "persim: BROI Figure 10, local application operational throughput\n"
                   "(local operations / simulated time)", "Mops", LABS + ["mean"], ser9, f10,
                   first="benchmark", baseline=None, log=False)
    C.add("Fig. 10", "BROI-mem over Epoch, operational throughput, local, geomean (VII-A: +28%)",
          g10["local"]["geomean"].summary(), PAPER["ops_local"])
    C.add("Fig. 10", "BROI-mem over Epoch, operational throughput, hybrid, geomean (VII-A: +30%)",
          g10["hybrid"]["geomean"].summary(), PAPER["ops_hybrid"])
    C.add("Fig. 10", "BROI-mem over Epoch, operational throughput, local and hybrid together, geomean "
          "(abstract: 1.3x for local applications)",
          gmean([g10[sc][lab] for sc in ("local", "hybrid") for lab in LABS]).summary(), PAPER["abstract_local"])
    C.add("Fig. 10", "SSCA2 over the mean of the other four, Epoch-local Mops (VII-A: SSCA2 has much higher "
          "operational throughput, less memory-intensive)",
          ratio(f10["Epoch-local"]["SSCA2"], amean([f10["Epoch-local"][lab] for lab in LABS if lab != "SSCA2"])).summary(),
          kind="greater")

    # Figure 11
    f11 = fig11(R["fig11"])
    ser11 = list(f11)
    cores = [str(c) for c in CORES]
    write_csv(os.path.join(out, "fig11.csv"), "cores", cores, ser11, f11)
    bars(plt, os.path.join(out, "fig11.png"), "persim: BROI Figure 11, scalability on Hash (broi-hashtable)\n"
         "x: hardware threads; series: Epoch, BROI queue size", "Mops", cores, ser11, f11,
         baseline=None, log=False)
    C.add("Fig. 11", "BROI (8 units) at 8 threads over 2 threads, Hash throughput (VII-A: \"good scalability\")",
          ratio(f11["BROI 8 units"]["8"], f11["BROI 8 units"]["2"]).summary(), kind="greater")
    C.add("Fig. 11", "BROI (8 units) over Epoch at 8 threads, Hash throughput (VII-A: BROI-mem improves throughput)",
          ratio(f11["BROI 8 units"]["8"], f11["Epoch"]["8"]).summary(), kind="greater")
    C.add("Fig. 11", "BROI 16 units over 4 units at 8 threads, Hash throughput (VII-A: larger BROI queue, "
          "\"affordable hardware overhead\"; direction assumed)",
          ratio(f11["BROI 16 units"]["8"], f11["BROI 4 units"]["8"]).summary(), kind="greater")
    C.add("Fig. 11", "BROI-over-Epoch gain at 8 threads over the gain at 2 threads (8 units; more threads, more "
          "inter-thread persistence parallelism for BROI to use)",
          ratio(ratio(f11["BROI 8 units"]["8"], f11["Epoch"]["8"]),
                ratio(f11["BROI 8 units"]["2"], f11["Epoch"]["2"])).summary(), kind="greater")

    # Figure 12
    tp12, sp12 = remote(R["fig12"], REMOTE, **{"persist_path.fe_entries": 8})
    rl = [lab for lab, _ in REMOTE]
    sp12["geomean"] = gmean([sp12[lab] for lab in rl])
    # mechanism check (not a paper configuration): the same clients with 64-entry persist buffers
    tp12b, sp12b = remote(R["fig12"], REMOTE, **{"persist_path.fe_entries": 64})
    sp12b["geomean"] = gmean([sp12b[lab] for lab in rl])
    write_csv(os.path.join(out, "fig12_fe64.csv"), "client", rl + ["geomean"], ["bsp_over_sync_fe8", "bsp_over_sync_fe64"],
              {"bsp_over_sync_fe8": sp12, "bsp_over_sync_fe64": sp12b})
    n12 = {"Sync": {lab: lift(lambda x: 1.0, sp12[lab]) for lab in rl + ["geomean"]}, "BSP": sp12}
    LW.csv_and_png(out, plt, "fig12", "persim: BROI Figure 12, remote application throughput\n"
                   "BSP vs Sync, 2 RDMA channels, normalized to Sync", "throughput / Sync", rl + ["geomean"], ["Sync", "BSP"],
                   n12, first="client", log=False)
    write_csv(os.path.join(out, "fig12_mops.csv"), "client", rl, ["sync", "bsp"], tp12)
    C.add("Fig. 12", "BSP over Sync, geomean of the 5 clients (abstract: 1.93x for remote applications)",
          sp12["geomean"].summary(), PAPER["bsp_mean"])
    C.add("Fig. 12", "BSP over Sync, tpcc (VII-B: 2.5x)", sp12["tpcc"].summary(), PAPER["bsp_tpcc"])
    C.add("Fig. 12", "BSP over Sync, ycsb (VII-B: 2.5x)", sp12["ycsb"].summary(), PAPER["bsp_ycsb"])
    C.add("Fig. 12", "BSP over Sync, hashmap (VII-B: \"2x\")", sp12["hashmap"].summary(), PAPER["bsp_2x"])
    C.add("Fig. 12", "BSP over Sync, ctree (VII-B: \"2x\")", sp12["ctree"].summary(), PAPER["bsp_2x"])
    C.add("Fig. 12", "BSP over Sync, memcached (VII-B: 15%, mostly reads)", sp12["memcached"].summary(),
          PAPER["bsp_memcached"])
    C.add("Fig. 12", "memcached's BSP gain over the geomean gain of the other four (VII-B: memcached gains least)",
          ratio(sp12["memcached"], gmean([sp12[lab] for lab in rl if lab != "memcached"])).summary(), kind="less")

    # Figure 13
    el = [str(e) for e in ELEMS]
    tp13, sp13 = remote(R["fig13"], [(str(e), f"broi-hashmap-e{e}") for e in ELEMS])
    LW.csv_and_png(out, plt, "fig13", "persim: BROI Figure 13, hashmap throughput vs element size (B)\n"
                   "Sync vs BSP, 2 RDMA channels", "Mtx/s", el, ["sync", "bsp"], tp13, first="element_bytes",
                   baseline=None, log=True, ymin=min([v.summary()[0] for s in tp13.values() for v in s.values()
                                                     if not V.isnan(v.summary()[0])] or [1]) / 2)
    write_csv(os.path.join(out, "fig13_speedup.csv"), "element_bytes", el, ["bsp_over_sync"], {"bsp_over_sync": sp13})
    for e in el:
        C.add("Fig. 13", f"BSP over Sync, hashmap, {e} B elements (VII-B: BSP effective from 128 B to 4 KB)",
              sp13[e].summary(), kind="greater")
    C.add("Fig. 13", "BSP gain at 4096 B over the gain at 128 B (VII-B: larger elements, network bandwidth "
          "bound, BSP less effective)", ratio(sp13["4096"], sp13["128"]).summary(), kind="less")

    # persim's serial scheduler (not a paper figure): throughput against the parallel scheduler
    rs = R["serial"]
    sv = {("parallel" if k == 0 else f"serial K={k}"): with_gm(
        {lab: ratio(runs(rs, model="broi", workload=w, **{"broi.serial": 0}),
                    runs(rs, model="broi", workload=w, **{"broi.serial": k})) for lab, w in LOCAL}, LABS)
        for k in SERIAL}
    write_csv(os.path.join(out, "serial.csv"), "benchmark", LABS + ["geomean"], list(sv), sv)
    F["serial"] = sv

    total = time.time() - t0
    tfile = os.path.join(out, "timing.json")
    if not a.no_run and a.force and not a.only:
        json.dump({"wall_s": round(total, 1), "sweeps_s": round(run_s, 1), "jobs": a.jobs, "force": a.force,
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, open(tfile, "w"))
    try:
        t = json.load(open(tfile))
        timing = (f"The last full regeneration (`make figures-broi BROI_FORCE=1`, -j {t['jobs']}, "
                  f"{t['date']}) took {t['wall_s'] / 60:.1f} min wall on a 2-core machine shared with another job.")
    except (OSError, ValueError, KeyError):
        timing = ""

    m9 = {}
    for sc, h in (("local", False), ("hybrid", True)):
        pairs = [(f"{lab} {m}", dict(model=m, workload=HYB[lab] if h else dict(LOCAL)[lab]))
                 for lab in LABS for m in ("broi-epoch", "broi")]
        m9[sc] = mech(R["fig9"], pairs)
    pairs12 = [(f"{lab} {m}", dict(model="broi", workload=w, **{"rdma.mode": m, "persist_path.fe_entries": 8}))
               for lab, w in REMOTE for m in ("sync", "bsp")]
    m12 = mech(R["fig12"], pairs12)
    pairs13 = [(f"e{e} {m}", dict(model="broi", workload=f"broi-hashmap-e{e}", **{"rdma.mode": m})) for e in ELEMS
               for m in ("sync", "bsp")]
    m13 = mech(R["fig13"], pairs13)
    F.update(sp12b=sp12b, f9=f9, g9=g9, bw9=bw9, f10=f10, g10=g10, f11=f11, tp12=tp12, sp12=sp12, tp13=tp13, sp13=sp13,
             m9=m9, m12=m12, m13=m13)
    readme(out, C, F, nruns, bad, timing)
    print(f"BROI figures: {total:.1f} s (sweeps {run_s:.1f} s); wrote {out}/fig*.csv, fig*.png, README.md")
    print(f"  verdicts: {C.summary()}")
    for b in bad:
        print(f"  point not ok: {b}", file=sys.stderr)
    if failed:
        print("FAILED sweeps: " + ", ".join(failed) + " (failed points are listed above)", file=sys.stderr)
        return 1
    return 0


def readme(out, C, F, nruns, bad, timing):
    L = []
    A = L.append
    A("# BROI evaluation (section VII, Figures 9-13) reproduced with persim")
    A("")
    A(f"Generated by `make figures-broi` (`scripts/broi_figures.py`) from the sweeps in `configs/experiments/broi/` "
      f"on the Table III NVM server (`configs/cpu_broi_table3.json`: 8 hardware threads, one memory controller, "
      f"8 banks, 64-entry write queue, 300 ns write row conflict) at the workloads' default sizes: "
      f"{sum(nruns.values())} runs ({', '.join(f'{k} {v}' for k, v in nruns.items())}). {timing} Each figure has "
      "a CSV (mean and 95% CI half-width per cell, and the number of seeds) and a PNG here; the raw sweeps are "
      "`raw/<spec>/sweep.csv` (per-run `stats.json` under `raw/<spec>/runs/`, not committed). Figure 10 is drawn "
      "from Figure 9's runs.")
    A("")
    A("**What this is and is not.** persim's BROI workloads are synthetic stand-ins (`docs/workloads-cpu.md`, "
      "\"BROI workloads\"): logged transactions on the Table IV structures (Hash, RBTree, SPS, BTree, SSCA2; "
      "undo or redo logging chosen by us), hybrid variants in which 2 RDMA channels replicate their own instance, "
      "and remote client profiles named after the WHISPER clients (ycsb, tpcc, ctree, hashmap, memcached) whose "
      "element sizes and think times are ours; only Table IV's write ratios are the paper's. The paper measured the "
      "server in McSimA+ and the clients by inserting emulated persistence delays into WHISPER; persim simulates "
      "both ends in one trace-driven model (network = `rdma.latency_ns` 1500 ns one way and `rdma.bw_gbps` 5, "
      "persim's assumptions). So the aim is the paper's orderings and mechanisms, not its digits. The runs use "
      "the workloads' default sizes (about 1 s of host time each; the small sizes would leave e.g. 16 "
      "transactions for broi-hashmap-e4096) and seeds 1-2 only, to keep the whole evaluation to about a minute "
      "on a shared 2-core machine; with n = 2 the CIs use t = 12.706, so they are wide whenever the seeds differ.")
    A("")
    A(HEADLINE)
    A("")
    if bad:
        A("**Points that did not finish ok** (they count as missing, n/a below):")
        A("")
        for s, p, st, ex in bad:
            A(f"- `{s}`: `{p}` status {st}, exit {ex}")
        A("")
    A("## Claims and verdicts")
    A("")
    A(V.RULE.format(tol="10%"))
    A("")
    A(f"Summary: {C.summary()} ({len(C.rows)} claims). The paper numbers are quoted from its text (section VII "
      "and the abstract, cited per claim; the bars of its figures are not in the text). Why persim differs is "
      "explained under each figure, by hand.")
    A("")
    A(C.table())
    A("")
    A("## Figure 9: memory system throughput (VII-A)")
    A("")
    A("![fig9](fig9.png)")
    A("")
    A("NVM write throughput (`nvm_write_bw`) normalized to Epoch-local of the same benchmark and seed (the paper's "
      "y-axis):")
    A("")
    L.extend(table(LABS + ["geomean"], ["Epoch-local", "BROI-local", "Epoch-hybrid", "BROI-hybrid"], F["f9"],
                   first="benchmark"))
    A("")
    A("BROI over Epoch within each scenario:")
    A("")
    L.extend(table(LABS + ["geomean"], ["local", "hybrid"], F["g9"], first="benchmark"))
    A("")
    A("Absolute NVM write throughput, GB/s:")
    A("")
    L.extend(table(LABS, list(F["bw9"]), F["bw9"], first="benchmark"))
    A("")
    A(NOTES["fig9"])
    A("")
    A("## Figure 10: local application operational throughput (VII-A)")
    A("")
    A("![fig10](fig10.png)")
    A("")
    A("Mops = local operations (the run's `size`) / simulated time; in the hybrid runs the time includes the "
      "remote channels' replication, which finishes with the local work.")
    A("")
    L.extend(table(LABS + ["mean"], list(F["f10"]), F["f10"], first="benchmark"))
    A("")
    A("BROI over Epoch (= sim_ns(Epoch) / sim_ns(BROI)):")
    A("")
    L.extend(table(LABS + ["geomean"], ["local", "hybrid"], F["g10"], first="benchmark"))
    A("")
    A("Mechanism columns (from the sweep CSV, seed mean ± CI): NVM write GB/s, simulated µs, instructions, "
      "persist barriers, writes over the RDMA path, cycles stalled waiting for persist ACKs (summed over the "
      "cores), and the BROI front end's statistics where the CSV carries them.")
    A("")
    for sc in ("local", "hybrid"):
        d, cols = F["m9"][sc]
        A(f"**{sc}**")
        A("")
        L.extend(mech_table(d, list(d), cols))
        A("")
    A(NOTES["fig10"])
    A("")
    A("## Figure 11: scalability on Hash (VII-A)")
    A("")
    A("![fig11](fig11.png)")
    A("")
    A("broi-hashtable, Mops (same total operations split over the threads); rows: hardware threads "
      "(`cpu.cores`); columns: Epoch (`broi-epoch`, its own single 16-unit entry) and BROI with `broi.units` "
      "4 / 8 / 16 request units per entry.")
    A("")
    L.extend(table([str(c) for c in CORES], list(F["f11"]), F["f11"], first="threads"))
    A("")
    A(NOTES["fig11"])
    A("")
    A("## Figure 12: remote application throughput, Sync vs BSP (VII-B)")
    A("")
    A("![fig12](fig12.png)")
    A("")
    A("BSP over Sync (= sim_ns(sync) / sim_ns(bsp), same transactions), and the absolute throughput in "
      "million transactions per second (`fig12_mops.csv`):")
    A("")
    rl = [lab for lab, _ in REMOTE]
    L.extend(table(rl + ["geomean"], ["bsp_over_sync"], {"bsp_over_sync": F["sp12"]}, first="client"))
    A("")
    L.extend(table(rl, ["sync", "bsp"], F["tp12"], first="client", nd=4))
    A("")
    d, cols = F["m12"]
    L.extend(mech_table(d, list(d), cols))
    A("")
    A("Mechanism check, not a paper configuration (`fig12_fe64.csv`): BSP over Sync with the channels' persist "
      "buffers at IV-E's 8 entries (the figure) and at 64 entries (`persist_path.fe_entries`; the remote profiles "
      "have no local work, so only the channels' buffers change):")
    A("")
    L.extend(table(rl + ["geomean"], ["fe8", "fe64"], {"fe8": F["sp12"], "fe64": F["sp12b"]}, first="client",
                   labels={"fe8": "8 entries (figure)", "fe64": "64 entries"}))
    A("")
    A(NOTES["fig12"])
    A("")
    A("## Figure 13: hashmap element size, Sync vs BSP (VII-B)")
    A("")
    A("![fig13](fig13.png)")
    A("")
    el = [str(e) for e in ELEMS]
    L.extend(table(el, ["sync", "bsp"], F["tp13"], first="element bytes", nd=4))
    A("")
    L.extend(table(el, ["bsp_over_sync"], {"bsp_over_sync": F["sp13"]}, first="element bytes"))
    A("")
    d, cols = F["m13"]
    L.extend(mech_table(d, list(d), cols))
    A("")
    A(NOTES["fig13"])
    A("")
    A("## persim's serial BROI scheduler in the system (not in the paper)")
    A("")
    A("The paper's scheduler evaluates eq. 2 for every BROI entry each cycle (IV-E). persim's serial variant "
      "(`broi.serial` = K, `cores/broi_sched.h`, `rtl/broi_sched.v` SERIAL) evaluates K entries per cycle and "
      "decides once per sweep of the 10 entries (8 local, 2 remote): every 2 (K=5), 5 (K=2) or 10 (K=1) cycles of "
      "the 2.5 GHz BROI clock. Throughput of each scheduler over the parallel one (= sim_ns(parallel) / "
      "sim_ns(serial), model broi, the five local benchmarks, `serial.csv`; area in "
      "`results/area/broi_design_space.md`):")
    A("")
    L.extend(table(LABS + ["geomean"], list(F["serial"]), F["serial"], first="benchmark"))
    A("")
    A(NOTES["serial"])
    A("")
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(L) + "\n")


# The bottom line and the explanations, by hand from the runs of this repository (sweep CSVs and the
# per-run stats.json); the tables and verdicts are regenerated, these sentences are not, so re-read
# them when a model or workload changes.
HEADLINE = (
    "**Bottom line.** persim reproduces the paper's main orderings: BROI-mem beats Epoch on every local and hybrid "
    "benchmark (memory and operational throughput), BSP beats Sync on every client and every element size, "
    "memcached gains least, and BSP's gain shrinks as elements grow; tpcc's BSP gain (2.42x) matches the paper's "
    "2.5x. It does not reproduce the magnitudes, and two observations are reversed. (1) BROI's local gain is 1.8x "
    "(paper 1.16x memory / 1.28x operations), and it splits by locking: 1.8-2.7x on Hash, SPS and SSCA2 (striped "
    "locks: 8 threads' epochs in flight) and 1.1-1.3x on RBTree and BTree (one tree lock serialises the "
    "transactions). persim's Epoch is one in-order queue for all threads, so every barrier orders every thread's "
    "earlier writes (Hash seed 1: 8.9 ms of barrier waits at the controller vs 4.4 ms under BROI, cores stalled "
    "on a full persist buffer 56 M vs 19 M core-cycles). (2) The hybrid runs are *slower* than the local ones "
    "(paper: larger throughput): the run ends when the 2 replication channels finish, and BROI serves remote "
    "entries after local ones (local before remote, IV-D Discussion 1), so the channels wait with full 8-entry "
    "persist buffers most of the run. (3) BSP's gain over Sync is larger than the paper's for most clients "
    "(geomean 2.81x vs 1.93x; ctree 6.2x, memcached 2.2x vs 15%): persim's Sync pays a full network round trip "
    "(2 x 1500 ns) per rdma_pwrite, and persim's client profiles (our element sizes and think times; only Table "
    "IV's write ratios are the paper's) make that round trip most of a client's time. Figure 10's ratio equals "
    "Figure 9's up to the bytes written (same stores; entries coalesce a little differently in the two models), "
    "so the paper's 16% vs 28% split (memory throughput counted with bus idle time) has no counterpart here; "
    "persim's SSCA2 stand-in is not faster than the others (Figure 10 notes).")

# Why persim differs from the paper, by hand from the sweep CSVs and per-run stats.json of this
# repository (seed 1 unless stated); re-read when a model or workload changes.
NOTES = {
    "fig9": (
        "**Same trend, local:** BROI over Epoch 1.99x in memory throughput (paper 1.16x). **Why larger:** "
        "persim's Epoch (`broi-epoch`: `broi.local_entries=1`, `broi.units=16`) keeps every thread's writes in one "
        "in-order entry, so a barrier of any thread orders all writes before it; BROI keeps one entry per thread and "
        "schedules across them by bank (equation 2). Hash seed 1 (stats.json, `top.nvm0`): barrier wait 8.9 ms "
        "(Epoch) vs 4.4 ms (BROI), BROI occupancy 9.5 vs 20.6 requests on average, cores stalled on a full persist "
        "buffer 56 M vs 19 M core-cycles. The paper's Epoch is delegated ordering with buffered epoch persistency "
        "[25], which the text does not describe in enough detail to say how much cross-thread ordering it keeps; "
        "persim's single queue is the strictest reading. RBTree and BTree gain least (1.28x / 1.57x in bytes, "
        "1.12x / 1.32x in time): one tree lock serialises the transactions (RBTree seed 1: 24 M of the 8 threads' "
        "28 M core-cycles stalled on the lock under BROI; controller occupancy 1.0 request), so there is little "
        "inter-thread persistence parallelism to use. Memory throughput and time ratios differ a little because "
        "stores coalesce differently in the two models' persist buffers (an entry that waits longer takes more "
        "stores of its block): Epoch writes ~10% fewer bytes. **Same trend, hybrid:** 1.69x (paper 1.18x). "
        "**Differs:** the paper's hybrid runs have *larger* throughput than its local ones (larger epochs, "
        "sequential remote writes); persim's BROI-hybrid has 0.89x of BROI-local: a hybrid run lasts until the two "
        "replication channels finish (Hash: 1.99 ms vs 1.24 ms local), and the channels spend most of the run with "
        "a full persist buffer (Hash seed 1: 4.0 M and 4.9 M of 5.0 M cycles), because the BROI controller serves "
        "remote entries only when the memory controller is lightly used or they starve (IV-D Discussion 1), and the "
        "8 local threads keep it busy. In the paper the server side was simulated from gathered remote traces fed "
        "into McSimA+ (VI-B), which may not model that competition."),
    "fig10": (
        "**Same trend:** BROI over Epoch 1.76x local (paper 1.28x), 1.56x hybrid (paper 1.30x), 1.66x together "
        "(abstract 1.3x). **Differs:** SSCA2 is not faster than the others (paper: much higher throughput, less "
        "memory-intensive). persim's `broi-ssca2` is a logged edge insert with about 22 persisted words per "
        "transaction (Hash: 21) and ~45 instructions per operation, like Hash (`docs/workloads-cpu.md`), so it is "
        "as memory-intensive as the other stand-ins; the graph analyses of SSCA 2.2 (mostly reads) are not "
        "modelled. The absolute Mops are not comparable with the paper's (different machine model and operation "
        "sizes)."),
    "serial": (
        "The serial scheduler costs 0-3% (geomean: K=5 1.00x, K=2 0.99x, K=1 0.97x; CIs overlap 1.0 for most "
        "benchmarks). A decision every 10 cycles is 4 ns at 2.5 GHz, against a 300 ns NVM write with a row "
        "conflict (Table III): the device and the barrier order bound these runs, not the scheduler; the losses "
        "grow with the sweep length as the core-level study predicts (results/area/broi_design_space.md, where "
        "K=1 saves 7.8% of the scheduler's area)."),
    "fig11": (
        "**Same trend:** BROI's Hash throughput grows with threads (2.82 -> 4.01 Mops, 2 -> 8 threads, 1.42x) "
        "while Epoch's falls (2.36 -> 1.51 Mops: more threads, more barriers serialised in the one queue), so "
        "BROI's gain over Epoch grows from 1.2x to 2.7x. Threads share their core's L1 two by two "
        "(`cpu.threads_per_core` = 2, Table III). **Queue size:** 4, 8 and 16 units per BROI entry are within "
        "the CI of each other (16 units over 4: 1.04x); 8 and 16 are identical run for run, because each "
        "thread's persist buffer has 8 entries (`persist_path.fe_entries`, IV-E), so a BROI entry never holds more "
        "than 8 of its thread's requests. The paper's exact configurations (its Figure 11 table) are not in the "
        "text; persim sweeps threads x units as a grid."),
    "fig12": (
        "**Matches:** tpcc 2.42x (paper 2.5x). **Same trend, larger:** ycsb 1.83x (paper 2.5x, smaller), hashmap "
        "2.93x and ctree 6.15x (paper 2x), memcached 2.18x (paper 15%), geomean 2.81x (paper 1.93x); memcached still "
        "gains least relative to the others' geomean. **Why:** the remote persist buffer sits at the server behind "
        "the network (V, Figure 8): its 8 entries are freed by the local controller's acknowledgement, so under "
        "BSP a channel streams its rdma_pwrites at the rate the controller drains them (ycsb seed 1: 13 k cycles "
        "waiting for persist ACKs at the end), while Sync waits a full network round trip (2 x 1500 ns, persim's "
        "assumption) after every pwrite (ycsb: 12 M of 12.4 M cycles). A client's gain is then about (its pwrite "
        "time + a round trip) / its pwrite time: short epochs gain most (ctree's 64-byte elements, epochs of 1-10 "
        "stores: 6x), large ones least (ycsb's 1 KB records). memcached is 95% reads in Table IV, but persim's "
        "memcached profile spends its time in the writes' round trips, not in reads (the reads do not cross the "
        "modelled network), hence 2.2x instead of 15%. The paper emulated the client with inserted per-epoch "
        "delays from a network model (VI-A); persim's element sizes and think times are ours. The 64-entry check "
        "above (not a paper configuration) shows the persist buffer still bounds BSP at 8 entries: with 64 the "
        "geomean gain reaches 10x."),
    "fig13": (
        "**Same trend:** BSP beats Sync at every element size and its gain shrinks with size (5.1x at 128 B, "
        "1.34x at 4 KB). The paper says BSP stays effective up to 4 KB and loses effect only beyond, when the "
        "network bandwidth becomes the bottleneck. In persim the gain shrinks steadily for the reason of Figure 12: "
        "Sync's cost is one round trip per pwrite, a smaller share of a pwrite's time as the element grows, while "
        "BSP is bound by the 8-entry remote persist buffer draining into the controller; the network link "
        "(5 GB/s per channel) is far from busy. Throughput per transaction falls with the element size in both "
        "modes."),
}


if __name__ == "__main__":
    sys.exit(main())
