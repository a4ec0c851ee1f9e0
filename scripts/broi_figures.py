#!/usr/bin/env python3
"""Regenerate the BROI evaluation (Figures 9-13 of "Persistence Parallelism Optimization: A Holistic
Approach from Memory Bus to RDMA Network", section VII, setup in section VI / Tables III-IV) with
persim: `make figures-broi`.

For every spec in configs/experiments/broi/ it runs `persim sweep` (points whose results exist are
skipped unless --force), then computes each figure from the sweep CSVs and writes
results/broi/figN.csv, figN.png and results/broi/README.md, which puts every figure beside the
numbers the paper's text reports (the BROI paper (docs/papers.md)). The raw sweeps
go to results/broi/raw/<spec>/ (sweep.csv committed, runs/ ignored).

Same structure and rules as scripts/lightwsp_figures.py: every spec runs input seeds 1-2
(`sim.seed`; every broi-* workload is seed-dependent), every number is computed per seed (a ratio
pairs two runs of the same workload and seed) and reported as mean and 95% Student-t CI over the
seeds (scripts/verdict.py); the verdicts come from the one rule in scripts/verdict.py.

Figure 10 (operational throughput) is drawn from Figure 9's runs (the same points: it is the same
work in both models, so operations / time compares as 1 / sim_ns). Nothing here is tuned; the paper
numbers are quoted from its text and only compared.

Two Epoch baselines run beside BROI-mem: `broi-epoch`, the paper's (section III, Figure 3(a): every
thread's i-th epoch merged into global epoch i, not BLP-aware), against which every verdict is
taken, and `broi-epoch-1q`, persim's stricter single in-order queue, shown for comparison.

Conventions (scripts/verdict.py): the README opens with the provenance line, the headline claims
sorted by |effect - 1| and the verdict rule; every figure marks the paper's number where the paper
gives one (red diamonds) and says over how many seeds its error bars are."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict as V  # noqa: E402
from verdict import lift, ratio  # noqa: E402
import figlib as FL  # noqa: E402

SPECS = ["fig9", "fig11", "fig12", "fig13", "serial", "fig9_optane"]
# fig9_optane (issue 24): Figure 9 again on the Optane-class pm_dimm device (configs/nvm_optane_dcpmm.json,
# nvm.dimms = round(12.8 / 2.3) = 6); its README section is left out while its results are absent.
# `--tier` (make figures-all TIER=...): spec keys replaced per spec at that tier (V.tier_spec); a tier
# with changes writes to results/broi/<tier>/. quick: the specs as they are; paper: none yet.
TIERS = {"quick": {}, "paper": {}}
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
# The Epoch baselines: the paper's (Figure 3(a)) and persim's stricter single queue.
EPOCH, EPOCH1Q = "broi-epoch", "broi-epoch-1q"
BASES = {"Epoch": EPOCH, "Epoch-1q": EPOCH1Q}
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

runs, gmean, cell, write_csv, table = FL.runs, FL.gmean, FL.cell, FL.write_csv, FL.table
rows_of, amean, bars, nseeds = FL.rows_of, FL.amean, FL.bars, FL.seeds_in


def col(rows, c, **kv):
    return runs(rows, c, **kv)


def mops(rows, **kv):
    """Operations (the resolved `size`: transactions) per microsecond of simulated time = Mops."""
    return lift(lambda n, t: n / t * 1e3 if t else NAN, runs(rows, "size", **kv), runs(rows, "sim_ns", **kv))


def with_gm(d, keys):
    d["geomean"] = gmean([d[k] for k in keys])
    return d


# ---- plots ----------------------------------------------------------------------------------------

BROI_BARS = dict(log=False, paper_label="paper's value (text of section VII)")   # FL.bars as BROI draws them


def pbars(plt, path, title, ylabel, groups, series, values, nseed, paper=None, **kw):
    """FL.bars of values[s][g] (PS, mean and 95% CI over the seeds) with the paper's number of a bar,
    paper[s][g], as a red diamond and the seeds in the title."""
    FL.bars(plt, path, title, ylabel, groups, series, values, paper=paper or {}, nseed=nseed, **dict(BROI_BARS, **kw))


def csv_and_png(out, plt, name, title, ylabel, groups, series, values, nseed, first="benchmark", paper=None, **kw):
    FL.csv_and_png(out, plt, name, title, ylabel, groups, series, values, first=first, paper=paper or {}, nseed=nseed,
                   **dict(BROI_BARS, **kw))


# ---- figures -------------------------------------------------------------------------------------

SER9 = {"Epoch-local": (EPOCH, False), "Epoch-1q-local": (EPOCH1Q, False), "BROI-local": ("broi", False),
        "Epoch-hybrid": (EPOCH, True), "Epoch-1q-hybrid": (EPOCH1Q, True), "BROI-hybrid": ("broi", True)}
GAINS = [f"{sc}, over {b}" for sc in ("local", "hybrid") for b in BASES]


def fig9(rows):
    """Memory throughput (nvm_write_bw) normalized to Epoch-local per benchmark (the paper's y-axis)."""
    def bw(m, lab, hyb):
        return col(rows, "nvm_write_bw", model=m, workload=HYB[lab] if hyb else dict(LOCAL)[lab])
    base = {lab: bw(EPOCH, lab, False) for lab in LABS}
    out = {s: with_gm({lab: ratio(bw(m, lab, h), base[lab]) for lab in LABS}, LABS) for s, (m, h) in SER9.items()}
    # BROI over each Epoch baseline within each scenario (the paper's +16% / +18% is over its Epoch)
    gain = {f"{sc}, over {b}": with_gm({lab: ratio(bw("broi", lab, sc == "hybrid"), bw(bm, lab, sc == "hybrid"))
                                        for lab in LABS}, LABS)
            for sc in ("local", "hybrid") for b, bm in BASES.items()}
    absbw = {s: {lab: bw(m, lab, h) for lab in LABS} for s, (m, h) in SER9.items()}
    return out, gain, absbw


def fig10(rows):
    """Local operational throughput in Mops (local operations / sim time) and BROI over Epoch."""
    out = {}
    for s, (m, h) in SER9.items():
        d = {lab: mops(rows, model=m, workload=HYB[lab] if h else dict(LOCAL)[lab]) for lab in LABS}
        d["mean"] = amean([d[lab] for lab in LABS])
        out[s] = d
    gain = {}
    for sc in ("local", "hybrid"):
        wl = (lambda lab: HYB[lab]) if sc == "hybrid" else (lambda lab: dict(LOCAL)[lab])
        for b, bm in BASES.items():
            gain[f"{sc}, over {b}"] = with_gm({lab: ratio(runs(rows, model=bm, workload=wl(lab)),
                                                         runs(rows, model="broi", workload=wl(lab))) for lab in LABS},
                                             LABS)
    return out, gain


def fig11(rows):
    wl = "broi-hashtable"
    out = {"Epoch": {str(c): mops(rows, model=EPOCH, workload=wl, **{"cpu.cores": c, "broi.units": 8})
                     for c in CORES},
           "Epoch-1q": {str(c): mops(rows, model=EPOCH1Q, workload=wl, **{"cpu.cores": c, "broi.units": 16})
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
    return FL.mech_table(d, keys, cols, head="run")


def main():
    t0 = time.time()
    a, failed, run_s, plt, R, nruns, bad = FL.start(__doc__, "configs/experiments/broi", "results/broi", SPECS, TIERS)
    out = a.out

    C = V.Claims()
    # provenance of the tree before this script writes its figures (its own outputs would make it dirty)
    prov = V.provenance_line("scripts/broi_figures.py", runs_from=[r.get("persim_git", "") for s in SPECS for r in R[s]])
    F = {}

    NS = {s: nseeds(R[s]) for s in SPECS}
    G9 = LABS + ["geomean"]

    # Figure 9
    f9, g9, bw9 = fig9(R["fig9"])
    ser9 = list(SER9)
    csv_and_png(out, plt, "fig9", "persim: BROI Figure 9, memory system throughput (NVM write GB/s) normalized to "
                "Epoch-local\nEpoch = broi-epoch (Figure 3(a)); Epoch-1q = broi-epoch-1q (persim's stricter single queue)",
                "throughput / Epoch-local", G9, ser9, f9, NS["fig9"],
                paper={"BROI-local": {"geomean": PAPER["mem_local"]}})
    csv_and_png(out, plt, "fig9_gain", "persim: BROI-mem over each Epoch baseline, memory throughput (Figure 9)",
                "BROI-mem / Epoch", G9, GAINS, g9, NS["fig9"],
                paper={"local, over Epoch": {"geomean": PAPER["mem_local"]},
                       "hybrid, over Epoch": {"geomean": PAPER["mem_hybrid"]}})
    C.add("Fig. 9", "BROI-mem over Epoch (`broi-epoch`, Figure 3(a)), memory throughput, local, geomean of the 5 "
          "benchmarks (VII-A: +16%)", g9["local, over Epoch"]["geomean"].summary(), PAPER["mem_local"], headline=True)
    C.add("Fig. 9", "BROI-mem over Epoch, memory throughput, hybrid (2 RDMA channels), geomean (VII-A: +18%)",
          g9["hybrid, over Epoch"]["geomean"].summary(), PAPER["mem_hybrid"], headline=True)
    C.add("Fig. 9", "Epoch-hybrid over Epoch-local, memory throughput, geomean (VII-A: hybrid has larger "
          "throughput: larger epochs, sequential remote writes)", f9["Epoch-hybrid"]["geomean"].summary(),
          kind="greater")
    C.add("Fig. 9", "BROI-hybrid over BROI-local, memory throughput, geomean (VII-A: same observation)",
          ratio(f9["BROI-hybrid"]["geomean"], f9["BROI-local"]["geomean"]).summary(), kind="greater")

    # Figure 10 (from Figure 9's runs)
    f10, g10 = fig10(R["fig9"])
    csv_and_png(out, plt, "fig10", "persim: BROI Figure 10, local application operational throughput\n"
                "(local operations / simulated time)", "Mops", LABS + ["mean"], ser9, f10, NS["fig9"],
                baseline=None)
    csv_and_png(out, plt, "fig10_gain", "persim: BROI-mem over each Epoch baseline, operational throughput "
                "(Figure 10)", "BROI-mem / Epoch", G9, GAINS, g10, NS["fig9"],
                paper={"local, over Epoch": {"geomean": PAPER["ops_local"]},
                       "hybrid, over Epoch": {"geomean": PAPER["ops_hybrid"]}})
    C.add("Fig. 10", "BROI-mem over Epoch, operational throughput, local, geomean (VII-A: +28%)",
          g10["local, over Epoch"]["geomean"].summary(), PAPER["ops_local"], headline=True)
    C.add("Fig. 10", "BROI-mem over Epoch, operational throughput, hybrid, geomean (VII-A: +30%)",
          g10["hybrid, over Epoch"]["geomean"].summary(), PAPER["ops_hybrid"], headline=True)
    C.add("Fig. 10", "BROI-mem over Epoch, operational throughput, local and hybrid together, geomean "
          "(abstract: 1.3x for local applications)",
          gmean([g10[f"{sc}, over Epoch"][lab] for sc in ("local", "hybrid") for lab in LABS]).summary(),
          PAPER["abstract_local"], headline=True)
    C.add("Fig. 10", "SSCA2 over the mean of the other four, Epoch-local Mops (VII-A: SSCA2 has much higher "
          "operational throughput, less memory-intensive)",
          ratio(f10["Epoch-local"]["SSCA2"], amean([f10["Epoch-local"][lab] for lab in LABS if lab != "SSCA2"])).summary(),
          kind="greater")

    # Figure 11
    f11 = fig11(R["fig11"])
    ser11 = list(f11)
    cores = [str(c) for c in CORES]
    write_csv(os.path.join(out, "fig11.csv"), "cores", cores, ser11, f11)
    pbars(plt, os.path.join(out, "fig11.png"), "persim: BROI Figure 11, scalability on Hash (broi-hashtable)\n"
          "x: hardware threads; Epoch: 8 units/entry; Epoch-1q: one 16-unit queue; BROI: units/entry",
          "Mops", cores, ser11, f11, NS["fig11"], baseline=None)
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
    csv_and_png(out, plt, "fig12", "persim: BROI Figure 12, remote application throughput\n"
                "BSP vs Sync, 2 RDMA channels, normalized to Sync", "throughput / Sync", rl + ["geomean"], ["Sync", "BSP"],
                n12, NS["fig12"], first="client",
                paper={"BSP": {"tpcc": PAPER["bsp_tpcc"], "ycsb": PAPER["bsp_ycsb"], "hashmap": PAPER["bsp_2x"],
                               "ctree": PAPER["bsp_2x"], "memcached": PAPER["bsp_memcached"],
                               "geomean": PAPER["bsp_mean"]}})
    write_csv(os.path.join(out, "fig12_mops.csv"), "client", rl, ["sync", "bsp"], tp12)
    C.add("Fig. 12", "BSP over Sync, geomean of the 5 clients (abstract: 1.93x for remote applications)",
          sp12["geomean"].summary(), PAPER["bsp_mean"], headline=True)
    C.add("Fig. 12", "BSP over Sync, tpcc (VII-B: 2.5x)", sp12["tpcc"].summary(), PAPER["bsp_tpcc"], headline=True)
    C.add("Fig. 12", "BSP over Sync, ycsb (VII-B: 2.5x)", sp12["ycsb"].summary(), PAPER["bsp_ycsb"], headline=True)
    C.add("Fig. 12", "BSP over Sync, hashmap (VII-B: \"2x\")", sp12["hashmap"].summary(), PAPER["bsp_2x"])
    C.add("Fig. 12", "BSP over Sync, ctree (VII-B: \"2x\")", sp12["ctree"].summary(), PAPER["bsp_2x"])
    C.add("Fig. 12", "BSP over Sync, memcached (VII-B: 15%, mostly reads)", sp12["memcached"].summary(),
          PAPER["bsp_memcached"])
    C.add("Fig. 12", "memcached's BSP gain over the geomean gain of the other four (VII-B: memcached gains least)",
          ratio(sp12["memcached"], gmean([sp12[lab] for lab in rl if lab != "memcached"])).summary(), kind="less")

    # Figure 13
    el = [str(e) for e in ELEMS]
    tp13, sp13 = remote(R["fig13"], [(str(e), f"broi-hashmap-e{e}") for e in ELEMS])
    csv_and_png(out, plt, "fig13", "persim: BROI Figure 13, hashmap throughput vs element size (B)\n"
                "Sync vs BSP, 2 RDMA channels", "Mtx/s", el, ["sync", "bsp"], tp13, NS["fig13"], first="element_bytes",
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
    rec, extra = FL.timing_run(a, not a.no_run and a.force and not a.only)
    timing = FL.timing_text(out, rec, lambda t: (
        f"The last full regeneration (`make figures-broi BROI_FORCE=1`, -j {t['jobs']}, "
        f"{t['date']}) took {t['wall_s'] / 60:.1f} min wall on a 2-core machine shared with another job."),
        wall_s=round(total, 1), sweeps_s=round(run_s, 1), jobs=a.jobs, force=a.force, **extra)

    m9 = {}
    for sc, h in (("local", False), ("hybrid", True)):
        pairs = [(f"{lab} {m}", dict(model=m, workload=HYB[lab] if h else dict(LOCAL)[lab]))
                 for lab in LABS for m in (EPOCH, EPOCH1Q, "broi")]
        m9[sc] = mech(R["fig9"], pairs)
    pairs12 = [(f"{lab} {m}", dict(model="broi", workload=w, **{"rdma.mode": m, "persist_path.fe_entries": 8}))
               for lab, w in REMOTE for m in ("sync", "bsp")]
    m12 = mech(R["fig12"], pairs12)
    pairs13 = [(f"e{e} {m}", dict(model="broi", workload=f"broi-hashmap-e{e}", **{"rdma.mode": m})) for e in ELEMS
               for m in ("sync", "bsp")]
    m13 = mech(R["fig13"], pairs13)
    F.update(sp12b=sp12b, f9=f9, g9=g9, bw9=bw9, f10=f10, g10=g10, f11=f11, tp12=tp12, sp12=sp12, tp13=tp13, sp13=sp13,
             m9=m9, m12=m12, m13=m13)
    F["optane_lines"] = optane(out, plt, R["fig9_optane"], R["fig9"], NS)    # issue 24 (empty until run)
    F["provenance"] = prov
    F["nseeds"] = NS
    readme(out, C, F, nruns, bad, timing)
    return FL.finish("BROI", out, total, run_s, C, bad, failed)


def optane(out, plt, rows_o, rows9, NS):
    """Issue 24: Figures 9 and 10's headline on the Optane-class pm_dimm device (fig9_optane) beside the bank
    device's (fig9), the device's figures (fig9_optane_gain.csv/png, fig9_optane_device.csv), and the README
    section; [] while fig9_optane has not run."""
    if not rows_o:
        return []
    G9 = LABS + ["geomean"]
    f9o, g9o, bw9o = fig9(rows_o)
    f10o, g10o = fig10(rows_o)
    csv_and_png(out, plt, "fig9_optane_gain", "persim: BROI-mem over each Epoch baseline, memory throughput "
                "(Figure 9)\non the pm_dimm device (6 Optane-class DIMMs)", "BROI-mem / Epoch", G9, GAINS, g9o,
                nseeds(rows_o), paper={"local, over Epoch": {"geomean": PAPER["mem_local"]},
                                       "hybrid, over Epoch": {"geomean": PAPER["mem_hybrid"]}})
    Cs = (V.Claims(), V.Claims())
    for C_, rows in zip(Cs, (rows9, rows_o)):
        f9, g9, _ = fig9(rows)
        f10, g10 = fig10(rows)
        for sc in ("local", "hybrid"):
            C_.add("Fig. 9", f"BROI-mem over Epoch, memory throughput, {sc}, geomean (VII-A: "
                   f"+{100 * (PAPER['mem_' + sc] - 1):.0f}%)", g9[f"{sc}, over Epoch"]["geomean"].summary(),
                   PAPER["mem_" + sc])
        for sc in ("local", "hybrid"):
            C_.add("Fig. 10", f"BROI-mem over Epoch, operational throughput, {sc}, geomean (VII-A: "
                   f"+{100 * (PAPER['ops_' + sc] - 1):.0f}%)", g10[f"{sc}, over Epoch"]["geomean"].summary(),
                   PAPER["ops_" + sc])
        C_.add("Fig. 9", "Epoch-hybrid over Epoch-local, memory throughput, geomean (VII-A: hybrid larger)",
               f9["Epoch-hybrid"]["geomean"].summary(), kind="greater")
        for sc in ("local", "hybrid"):
            C_.add("Fig. 9", f"BROI-mem over Epoch-1q (persim's single queue), memory throughput, {sc}, geomean "
                   "(not in the paper; direction)", g9[f"{sc}, over Epoch-1q"]["geomean"].summary(), kind="greater")
    key = lambda r: f"{r['model']}, {'hybrid' if r['workload'].endswith('-hybrid') else 'local'}"   # noqa: E731
    dev, order = FL.device_figures(os.path.join(out, "raw", "fig9_optane"), rows_o, key,
                                   os.path.join(out, "fig9_optane_device.csv"))
    _, _, bw9 = fig9(rows9)
    gm = lambda d, s: gmean([d[s][lab] for lab in LABS]).summary()[0]   # noqa: E731
    dv = lambda grp, c: dev.get(grp, {}).get(c, NAN)   # noqa: E731
    m = lambda d, k: d[k]["geomean"].summary()[0]   # noqa: E731
    _, g9b, _ = fig9(rows9)
    _, g10b = fig10(rows9)
    A = ["## With an Optane-class device (nvm.device = pm_dimm)", "",
         "Issue 24: Figures 9 and 10 rerun with the PM device replaced by persim's Optane-class DIMM model "
         "(`cores/pm_dimm`, `configs/nvm_optane_dcpmm.json`: 256 B media lines, a 64-line on-DIMM combining / "
         "read-modify-write buffer, an address-indirection cache, 6.6 / 2.3 GB/s media read / write per DIMM, every "
         "source in the file), everything else as Figure 9 (same machine, models, workloads, sizes, seeds 1-2, RDMA "
         f"channels; {len(rows_o)} runs, `configs/experiments/broi/fig9_optane.json`). **Device count**: the rule of "
         "issue 24 keeps the paper configuration's total media write bandwidth, `nvm.dimms` = round(12.8 / 2.3) = "
         "round(5.57) = **6** DIMMs on Table III's one controller (13.8 GB/s media write; one Optane socket's "
         "worth), so the comparison isolates the device's mechanism from raw write bandwidth. The BROI scheduler "
         "(cores/broi_sched.h) sees the DIMMs as its banks: bank-level parallelism becomes DIMM-level parallelism "
         "(6 DIMMs interleaved at 4 KB instead of 8 banks).", "",
         "Headline claims of Figures 9 and 10 judged by the same rule (scripts/verdict.py) on each device:", ""]
    A += FL.device_claims(*Cs)
    A += ["", "![fig9_optane_gain](fig9_optane_gain.png)", "",
          "BROI-mem over each Epoch baseline on the device, memory throughput (`fig9_optane_gain.csv`):", ""]
    A += table(G9, GAINS, g9o, first="benchmark")
    A += ["", "Absolute NVM write throughput on the device, GB/s (bank device: table under Figure 9):", ""]
    A += table(LABS, list(bw9o), bw9o, first="benchmark")
    A += ["", "The device's figures per model and scenario (`fig9_optane_device.csv`; mean over the benchmarks and "
          "seeds; write amplification = media bytes written / bytes the controller wrote, combined = writes that hit "
          "a line already in the DIMM buffer, RMW reads per media write, media utilization = media busy time / run "
          "time, AIT hit rate, wear-levelling migrations):", ""]
    A += FL.device_table(dev, order, head="model, scenario")
    A += ["", "**What changes, and why** (by hand from these runs). The device makes every design faster in absolute "
          f"terms (Epoch-local {gm(bw9, 'Epoch-local'):.2f} -> {gm(bw9o, 'Epoch-local'):.2f} GB/s of NVM writes, "
          f"BROI-local {gm(bw9, 'BROI-local'):.2f} -> {gm(bw9o, 'BROI-local'):.2f}, geomeans over the benchmarks), "
          "because these benchmarks' persistent writes almost never reach the media during the run: their lines "
          f"stay in the six 64-line DIMM buffers (96 KB), {dv('broi, local', 'buf_combined'):.1f}% of BROI-mem's "
          "local writes combine into a buffered line, and the media writes only "
          f"{dv('broi, local', 'write_amplification'):.2f} bytes per byte written (the rest are dirty lines in the "
          "buffers at the end; ADR made them durable in the WPQ already), with media utilization "
          f"{dv('broi, local', 'media_utilization'):.1f}%. So the 300 ns write row conflicts that Table III's bank "
          "device charges, which is what BROI's bank-level-parallelism-aware scheduling avoids, are gone: a write "
          "costs a 64 B burst on the DIMM's channel and a buffer hit. Consequences for the paper's claims: "
          f"BROI-mem over Epoch, memory throughput, local {m(g9b, 'local, over Epoch'):.2f} -> "
          f"{m(g9o, 'local, over Epoch'):.2f}, hybrid {m(g9b, 'hybrid, over Epoch'):.2f} -> "
          f"{m(g9o, 'hybrid, over Epoch'):.2f} (paper +16% / +18%): still far below the paper; with writes this cheap "
          "there is little for a bank-parallelism-aware order to win. "
          f"Operational throughput: local {m(g10b, 'local, over Epoch'):.2f} -> {m(g10o, 'local, over Epoch'):.2f}, "
          f"hybrid {m(g10b, 'hybrid, over Epoch'):.2f} -> {m(g10o, 'hybrid, over Epoch'):.2f}: the bank device's "
          "persim-only finding that BROI-mem is *slower* than Epoch in operations per second "
          + ("disappears and the two become equal within 3%"
             if max(abs(m(g10o, 'local, over Epoch') - 1), abs(m(g10o, 'hybrid, over Epoch') - 1)) <= 0.03
             else "shrinks") + " (still not the paper's +28% / +30%). On the bank device that loss came from BROI-mem "
          "writing more bytes for the same stores (less coalescing in the write queue, the Figure 9 notes); it still "
          "does on the device (`nvm_write_bytes`), but there an extra write costs a 64 B channel burst into a line "
          "already in the DIMM buffer instead of a bank write with a 300 ns row conflict, so the extra bytes cost "
          "less time. The stricter single-queue Epoch (`broi-epoch-1q`) stops mattering in the hybrid runs "
          f"(BROI over it {m(g9b, 'hybrid, over Epoch-1q'):.2f} -> {m(g9o, 'hybrid, over Epoch-1q'):.2f}): with "
          "writes absorbed by the buffers the in-order queue no longer waits on bank conflicts. The hybrid runs "
          "stay below the local ones (Epoch-hybrid over Epoch-local drops further): the remote replication over "
          "the 5 GB/s RDMA link, not the PM, bounds them. Where persim disagrees with the paper: on an "
          "Optane-class device with an on-DIMM write buffer, BROI's premise (PM writes slow enough, and "
          "bank-conflicted enough, that their order on the memory bus decides throughput) does not hold for "
          "working sets of this size; it would need working sets far beyond the buffers' 96 KB (media-bound "
          "writes) to show, which the default sizes do not reach.", ""]
    return A


def readme(out, C, F, nruns, bad, timing):
    L = FL.readme_head("BROI evaluation (section VII, Figures 9-13) reproduced with persim", F["provenance"],
                       C.headlines(), heading="**Headline claims** (the paper's headline numbers, largest gap first; "
                       "every claim is in the full table below):")
    A = L.append
    A(HEADLINE)
    A("")
    A(f"Made by `make figures-broi` (`scripts/broi_figures.py`) from the sweeps in `configs/experiments/broi/` "
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
    A(EPOCH_TEXT)
    A("")
    L.extend(FL.bad_points(bad))
    A("## Claims and verdicts")
    A("")
    A(f"Summary: {C.summary()} ({len(C.rows)} claims; rule above). The paper numbers are quoted from its text "
      "(section VII and the abstract, cited per claim; the bars of its figures are not in the text, so the "
      "figures mark only those numbers). Every verdict on BROI-mem over Epoch is taken against `broi-epoch`, the "
      "paper's Epoch; the tables under Figures 9 and 10 also give the gain over `broi-epoch-1q`. Why persim "
      "differs is explained under each figure, by hand. Sorted by |effect - 1|, largest gap first.")
    A("")
    A(C.table(sort=True))
    A("")
    A("## Figure 9: memory system throughput (VII-A)")
    A("")
    A("![fig9](fig9.png)")
    A("")
    A("NVM write throughput (`nvm_write_bw`) normalized to Epoch-local (`broi-epoch`) of the same benchmark and "
      "seed (the paper's y-axis); Epoch-1q = `broi-epoch-1q`, persim's stricter single queue:")
    A("")
    L.extend(table(LABS + ["geomean"], list(SER9), F["f9"], first="benchmark"))
    A("")
    A("![fig9_gain](fig9_gain.png)")
    A("")
    A("BROI-mem over each Epoch baseline within each scenario (`fig9_gain.csv`; the paper's +16% / +18% is over "
      "its Epoch, i.e. the \"over Epoch\" columns):")
    A("")
    L.extend(table(LABS + ["geomean"], GAINS, F["g9"], first="benchmark"))
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
    A("![fig10_gain](fig10_gain.png)")
    A("")
    A("BROI-mem over each Epoch baseline (= sim_ns(Epoch) / sim_ns(BROI), `fig10_gain.csv`):")
    A("")
    L.extend(table(LABS + ["geomean"], GAINS, F["g10"], first="benchmark"))
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
    L.extend(F["optane_lines"])
    A("## Figure 11: scalability on Hash (VII-A)")
    A("")
    A("![fig11](fig11.png)")
    A("")
    A("broi-hashtable, Mops (same total operations split over the threads); rows: hardware threads "
      "(`cpu.cores`); columns: Epoch (`broi-epoch`, 8 units per entry as IV-E), Epoch-1q (`broi-epoch-1q`, "
      "its own single 16-unit entry) and BROI with `broi.units` 4 / 8 / 16 request units per entry.")
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
    FL.write_readme(out, L)


EPOCH_TEXT = (
    "**The two Epoch baselines.** The paper compares BROI-mem with *Epoch*, \"delegated ordering ... buffered "
    "persisting method to optimize for relaxed epoch size [25]\" (VII-A), whose barrier epoch management section III "
    "describes with Figure 3(a): every thread's i-th epoch is merged into one global epoch, the memory controller "
    "receives (1.1, 1.2, 2.1, 3.1), barrier, (1.3, 2.2, 3.2), barrier, ..., and nothing is chosen by bank. persim's "
    "`broi-epoch` is that (`cores/broi_sched` `epoch_merge`, `broi.epoch_merge`): one entry per thread as in BROI, "
    "but a thread's epoch i+1 waits until every thread's buffered epoch i has issued and becomes durable only "
    "after every write of epoch i, and requests are taken in a fixed entry order instead of by equation 2. Every "
    "verdict is taken against it. `broi-epoch-1q` is persim's earlier, stricter baseline (all threads in one "
    "in-order entry, so any thread's barrier orders every write before it); it is shown beside it (Figures 9-11) "
    "because the local results depend on which of the two is taken: BROI-mem gains 1.99x memory "
    "throughput over the single queue but 1.02x over Figure 3(a)'s Epoch (`docs/models/broi.md`).")

# The bottom line and the explanations, by hand from the runs of this repository (sweep CSVs and the
# per-run stats.json); the tables and verdicts are regenerated, these sentences are not, so re-read
# them when a model or workload changes.
HEADLINE = (
    "**Bottom line.** Against the Epoch baseline as the paper's Figure 3(a) describes it, persim does not reproduce "
    "BROI-mem's local gain: memory throughput 1.02x (paper 1.16x; effect 0.14) local and 1.04x (paper 1.18x) "
    "hybrid, and operational throughput is *reversed*, 0.88x local (paper 1.28x) and 0.93x hybrid (paper 1.30x). "
    "BROI-mem wins on the two tree benchmarks (time 1.10x RBTree, 1.21x BTree) and loses on Hash, SPS and SSCA2 "
    "(0.71x, 0.89x, 0.62x), where 8 threads have epochs in flight at once: there the merged baseline keeps each "
    "thread's persist-buffer entries longer, more stores coalesce into them (Hash seed 1: 45.3 k NVM writes vs "
    "53.0 k under BROI), and it keeps the banks busier (Figure 9 notes). The paper's 1.16x-1.3x lies between "
    "persim's two baselines: over persim's stricter single queue (`broi-epoch-1q`) BROI-mem gains 1.99x memory "
    "throughput and 1.76x time. Remote (the BROI model alone, unchanged): BSP beats Sync on every client and "
    "element size, and its gain shrinks as elements grow. The paper's 2.5x for tpcc and ycsb is reproduced for "
    "tpcc (2.42x, matches) but not for ycsb (1.83x, 0.55 of the effect, same trend); the geomean over the five "
    "clients is 2.81x against the abstract's 1.93x (effect 1.94), ctree 6.2x against \"2x\" and memcached 2.2x "
    "against 15% (both differ): persim's Sync pays a full network round trip (2 x 1500 ns) per rdma_pwrite and "
    "persim's client profiles (our element sizes and think times) make that most of a client's time. Reversed "
    "as well: the hybrid runs are slower than the local ones (paper: larger throughput), because the run lasts "
    "until the 2 replication channels finish and BROI serves remote entries after local ones (IV-D Discussion 1), "
    "and BROI's Hash gain over Epoch falls with threads (Figure 11: 1.07x at 2 threads, 0.71x at 8).")

# Why persim differs from the paper, by hand from the sweep CSVs and per-run stats.json of this
# repository (seed 1 unless stated); re-read when a model or workload changes.
NOTES = {
    "fig9": (
        "**Differs, local:** BROI-mem over Epoch (`broi-epoch`) 1.02x in memory throughput (paper 1.16x); per "
        "benchmark 0.83x Hash, 1.26x RBTree, 0.91x SPS, 1.46x BTree, 0.80x SSCA2. Over persim's single queue "
        "(`broi-epoch-1q`) the same BROI runs give 1.99x (2.8-3.0x on Hash and SSCA2, 1.3-1.6x on the trees). "
        "**Why BROI-mem loses on Hash, SPS and SSCA2** (striped locks: all 8 threads have epochs in flight), "
        "measured on seed 1 (per-run stats.json, `top.nvm0`): (1) *coalescing*: under Epoch a thread's next epoch "
        "waits for every thread's current one, so its persist-buffer entries stay unsent longer and more stores of "
        "their block join them: 45.3 k persist-path writes on Hash vs 53.0 k under BROI, SSCA2 41.9 k vs 54.2 k (at "
        "2 threads, Hash: 61.7 k vs 88.0 k). With `persist_path.coalesce=false` (every store a write of its own, the "
        "same count in both models; runs outside the committed sweeps) the time gain becomes 0.94x Hash, 0.93x SPS, "
        "0.89x SSCA2, 1.11x RBTree, 1.19x BTree (geomean 1.01x). (2) *bank use*: Epoch runs Hash close to its "
        "device bound (19.9 k row conflicts x 300 ns + 27.1 k row hits x 36 ns over 8 banks = 0.87 ms of its "
        "0.87 ms), BROI does not (20.4 k conflicts and 34.2 k hits = 0.92 ms of bank work in 1.24 ms). Equation 2 "
        "is not what costs BROI here: BROI with every local key set to 0 (a fixed entry order, everything else "
        "unchanged; a temporary experiment, not in the code) is slower still, 1.52 ms on Hash and 1.38 ms on SSCA2 "
        "against 1.24 ms and 1.27 ms. Which part of BROI's schedule leaves the banks idle is not yet measured; one "
        "candidate is that BROI issues a thread's next barrier set as soon as the previous one has *issued*, and "
        "the write then holds its bank until that set is durable (4.4 ms of such waits summed over Hash's writes "
        "under BROI, 3.8 ms under Epoch). **Why it "
        "wins on RBTree and BTree:** one tree lock serialises the transactions, so one or two threads have epochs "
        "in flight (BROI occupancy 1.0-1.2 units), and Epoch's global epochs make them wait for each other: 2.3 ms "
        "(RBTree) and 2.8 ms (BTree) of barrier waits at the controller under Epoch vs 1.4 ms and 1.6 ms under BROI. "
        "The paper's Epoch is described only by Figure 3(a) and a citation [25]; persim's reading of it closes each "
        "global epoch when every thread's *buffered* part of it has issued (a thread with nothing buffered is not "
        "waited for), the least strict reading that keeps Figure 3(a)'s order. **Differs, hybrid:** 1.04x (paper "
        "1.18x; 1.69x over the single queue). **Differs:** the paper's hybrid runs have *larger* throughput than "
        "its local ones (larger epochs, sequential remote writes); persim's BROI-hybrid has 0.89x of BROI-local and "
        "Epoch-hybrid 0.88x of Epoch-local: a hybrid run lasts until the two replication channels finish (BROI "
        "Hash: 1.99 ms vs 1.24 ms local), and the channels spend most of the run with a full persist buffer (Hash "
        "seed 1: 4.0 M and 4.9 M of 5.0 M cycles), because the controller serves remote entries only when the "
        "memory controller is lightly used or they starve (IV-D Discussion 1), and the 8 local threads keep it "
        "busy. In the paper the server side was simulated from gathered remote traces fed into McSimA+ (VI-B), "
        "which may not model that competition."),
    "fig10": (
        "**Differs (reversed):** BROI-mem over Epoch 0.88x local (paper 1.28x), 0.93x hybrid (paper 1.30x), 0.91x "
        "together (abstract 1.3x); over the single queue 1.76x local, 1.56x hybrid. Time and memory throughput "
        "disagree here (memory throughput 1.02x) because BROI writes more bytes for the same stores (less "
        "coalescing, Figure 9 notes): more bytes per second, but the run still takes longer. The paper's 16% vs "
        "28% split (memory throughput counted with bus idle time) has no counterpart here. **Same trend:** SSCA2 "
        "has the highest operational throughput under Epoch (5.10 Mops, 1.83x the mean of the other four) and "
        "under BROI (3.15 Mops, 1.31x), though persim's `broi-ssca2` is a logged edge insert about as "
        "memory-intensive as Hash (about 22 persisted words per transaction, `docs/workloads-cpu.md`): it "
        "coalesces well (41.9 k NVM writes under Epoch, 54.2 k under BROI). The absolute Mops are not comparable "
        "with the paper's (different machine model and operation sizes)."),
    "serial": (
        "The serial scheduler costs 0-3% (geomean: K=5 1.00x, K=2 0.99x, K=1 0.97x; CIs overlap 1.0 for most "
        "benchmarks). A decision every 10 cycles is 4 ns at 2.5 GHz, against a 300 ns NVM write with a row "
        "conflict (Table III): the device and the barrier order bound these runs, not the scheduler; the losses "
        "grow with the sweep length as the core-level study predicts (results/area/broi_design_space.md, where "
        "K=1 saves 7.8% of the scheduler's area)."),
    "fig11": (
        "**Differs:** under the Figure 3(a) Epoch, Hash throughput grows with threads faster than BROI's (Epoch "
        "2.64 -> 5.65 Mops, BROI 2.82 -> 4.01 Mops, 2 -> 8 threads), so BROI's gain over Epoch falls from 1.07x "
        "at 2 threads to 0.71x at 8 (paper: BROI-mem improves throughput, scales well). More threads make Epoch's "
        "global epochs larger and its persist-buffer entries wait longer, so they coalesce more (seed 1: 61.7 k "
        "NVM writes at 2 threads, 45.3 k at 8, vs BROI's 88.0 k and 53.0 k). The single queue (`broi-epoch-1q`) "
        "falls instead (2.36 -> 1.51 Mops: more threads, more barriers serialised in the one queue), and BROI's "
        "gain over it grows from 1.19x to 2.66x. **Same trend:** BROI's own throughput grows 1.42x from 2 to 8 "
        "threads. Threads share their core's L1 two by two (`cpu.threads_per_core` = 2, Table III). **Queue "
        "size:** 4, 8 and 16 units per BROI entry are within the CI of each other (16 units over 4: 1.04x); 8 and "
        "16 are identical run for run, because each thread's persist buffer has 8 entries "
        "(`persist_path.fe_entries`, IV-E), so a BROI entry never holds more than 8 of its thread's requests. The "
        "paper's exact configurations (its Figure 11 table) are not in the text; persim sweeps threads x units as a "
        "grid."),
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
