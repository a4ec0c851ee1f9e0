#!/usr/bin/env python3
"""Every GPU persistency model on every GPU workload it can run, in one table: `make figures-matrix`.

Models: every `gpu` model of `persim list models` (epoch, gpm, sbrp, nvwfifo, and the AGPM family
when it is built in). Workloads: the GPU workloads of `persim list workloads` (the six SBRP
applications, the B+tree and hash-table programs of the scoped-barriers paper) and the 22 AGPM kernels
(docs/workloads-agpm.md). For each pair, `persim sweep` runs the workload (size `small` by default);
a point that fails (the model cannot lower the program's primitives, a deadlock, a wrong result) is
shown as such. Times are normalised to a no-persistence run of the same workload.

No-persistence base: persim has no GPU model without persistence (the CPU system's `none` has no GPU
counterpart). The nearest base is the DRAM-only configuration of the scoped-barriers paper
(`system.pm_in_dram=true`: the persistent region lives in DRAM, is cached like volatile data and
nothing is persisted; barriers have no persist work) run under model `epoch` (--base-model,
--base-set). Its time is the same under every model whose ordering points only wait for persists.

Crash recovery: for every pair whose workload has a recovery procedure, `persim crash` with
--crash-points sampled crash points (this run's durable images; docs/checking.md); a pair is *proved*
recoverable on those points when every one recovers and verifies.

Outputs (default results/matrix/): matrix.csv (one row per model and workload), matrix.png (heat map of
the normalised time; a mark per cell for the crash check), README.md. Raw sweeps in raw/."""
import argparse
import concurrent.futures as cf
import json
import math
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict as V  # noqa: E402
import figlib as FL  # noqa: E402


def args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--persim", default="build/persim")
    ap.add_argument("--out", default="results/matrix")
    ap.add_argument("--config", default="configs/gpu_small.json")
    ap.add_argument("--size", default="small")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--models", help="comma-separated subset of the GPU models (default: all)")
    ap.add_argument("--workloads", help="comma-separated subset of the workloads (default: all GPU ones)")
    ap.add_argument("--base-model", default="epoch")
    ap.add_argument("--base-set", default="system.pm_in_dram=true")
    ap.add_argument("--crash-points", type=int, default=8, help="crash points per pair (0: no crash check)")
    ap.add_argument("--images", default="model", choices=["model", "run"],
                    help="crash images: allowed by the model (default; targeted at unguaranteed requirements, "
                         "then sampled) or this run's own durable images")
    ap.add_argument("--no-check", action="store_true", help="skip `persim check` (the requirements column)")
    ap.add_argument("--no-run", action="store_true", help="only redraw from existing results")
    return ap.parse_args()


def listing(persim, what):
    p = subprocess.run([persim, "list", what], capture_output=True, text=True, check=True)
    return p.stdout.splitlines()


def gpu_models(persim):
    return [l.split()[1] for l in listing(persim, "models") if l.startswith("  gpu ")]


def gpu_workloads(persim):
    """The GPU workloads (first section of the listing) and the agpm kernels (its own section)."""
    out, sec = [], "gpu"
    for l in listing(persim, "workloads")[2:]:
        if not l.startswith("   ") and l.startswith("  ") and l.rstrip().endswith(":"):
            sec = "agpm" if l.strip().startswith("agpm") else "other"
            continue
        if l.startswith("  ") and not l.startswith("   ") and sec in ("gpu", "agpm"):
            name = l.split()[0]
            if sec == "gpu" or name.startswith("agpm-"):
                out.append(name)
    return out


def sweep(a, name, models, wls, setv=None):
    d = os.path.join(a.out, "raw")
    os.makedirs(os.path.join(d, "specs"), exist_ok=True)
    spec = {"name": name, "out": os.path.join(d, name), "configs": [a.config], "models": models, "workloads": wls,
            "sizes": [a.size], "seeds": [1]}
    if setv:
        spec["set"] = setv
    path = os.path.join(d, "specs", name + ".json")
    with open(path, "w") as f:
        json.dump(spec, f, indent=1)
    if not a.no_run:
        cmd = [a.persim, "sweep", path, "-j", str(a.jobs), "--out", spec["out"]] + (["--force"] if a.force else [])
        print("+ " + " ".join(cmd), flush=True)
        subprocess.run(cmd)
    return V.read_sweep(os.path.join(spec["out"], "sweep.csv"))


def crash(a, model, wl):
    cmd = [a.persim, "crash", "--config", a.config, "--model", model, "--workload", wl, "--size", a.size,
           "--points", str(a.crash_points), "--images", a.images, "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    txt = p.stdout + p.stderr
    tried = re.search(r"points tried\s+(\d+)", txt)
    rec = re.search(r"points recovered\s+(\d+)", txt)
    if "has no recovery procedure" in txt:
        return "no procedure", 0, 0
    if tried and rec:
        t, r = int(tried.group(1)), int(rec.group(1))
        return ("recovered" if p.returncode == 0 and r == t else "NOT recovered"), t, r
    return f"error (exit {p.returncode})", 0, 0


def check(a, model, wl):
    """`persim check`: the program's requirements (what its recovery relies on) guaranteed by the model?"""
    cmd = [a.persim, "check", "--config", a.config, "--model", model, "--workload", wl, "--size", a.size]
    p = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"requirements\s+(\d+): (\d+) guaranteed, (\d+) not guaranteed; (\d+) violated", p.stdout + p.stderr)
    if not m:
        if re.search(r"requirements\s+none", p.stdout) and p.returncode == 0:
            return "none stated"
        return f"error (exit {p.returncode})"
    n, g, u, v = (int(x) for x in m.groups())
    if n == 0:
        return "none stated"
    return "all guaranteed" if u == 0 and v == 0 else f"{u} of {n} not guaranteed, {v} violated"


def per_pair(a, name, enabled, what, fn, models, wls):
    """fn(a, model, workload) for every pair not yet in raw/<name>.json (all with --force), in
    parallel; the results are kept there so a rerun only adds the missing pairs."""
    path = os.path.join(a.out, "raw", name + ".json")
    old = json.load(open(path)) if os.path.exists(path) and not a.force else {}
    todo = [(m, w) for m in models for w in wls if f"{m}/{w}" not in old]
    if not a.no_run and enabled and todo:
        print(f"+ {what} on {len(todo)} pairs", flush=True)
        with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            for (m, w), r in zip(todo, ex.map(lambda mw: fn(a, *mw), todo)):
                old[f"{m}/{w}"] = r
        with open(path, "w") as f:
            json.dump(old, f, indent=1, sort_keys=True)
    return old


def check_all(a, models, wls):
    return per_pair(a, "check", not a.no_check, "persim check", check, models, wls)


def crash_all(a, models, wls):
    return per_pair(a, "crash", a.crash_points > 0, f"persim crash, {a.crash_points} points each,", crash, models, wls)


def main():
    a = args()
    t0 = time.time()
    models = a.models.split(",") if a.models else gpu_models(a.persim)
    wls = a.workloads.split(",") if a.workloads else gpu_workloads(a.persim)
    os.makedirs(a.out, exist_ok=True)
    key, val = a.base_set.split("=", 1)
    try:
        val = json.loads(val)   # true / 1.5 as JSON values, anything else as a string
    except ValueError:
        pass
    rows = sweep(a, "matrix", models, wls)
    base_rows = sweep(a, "base", [a.base_model], wls, {key: [val]})
    cr = crash_all(a, models, wls)
    ck = check_all(a, models, wls)
    secs = time.time() - t0

    def get(rs, m, w):
        for r in rs:
            if r.get("model") == m and r.get("workload") == w:
                return r
        return None

    table = []
    for w in wls:
        b = get(base_rows, a.base_model, w)
        bns = float(b["sim_ns"]) if b and b.get("status") == "ok" else float("nan")
        for m in models:
            r = get(rows, m, w)
            ok = r is not None and r.get("status") == "ok"
            ns = float(r["sim_ns"]) if ok else float("nan")
            c = cr.get(f"{m}/{w}", ["not run", 0, 0])
            table.append(dict(model=m, workload=w, status=(r or {}).get("status", "missing"),
                              verified=(r or {}).get("verified", ""), sim_ns=ns, base_ns=bns,
                              norm=ns / bns if ok and bns == bns and bns > 0 else float("nan"),
                              crash=c[0], crash_points=c[1], crash_recovered=c[2],
                              requirements=ck.get(f"{m}/{w}", "not checked")))
    cols = ["model", "workload", "status", "verified", "sim_ns", "base_ns", "norm", "crash", "crash_points",
            "crash_recovered", "requirements"]
    FL.write_rows(os.path.join(a.out, "matrix.csv"), cols,
                  [[V.fmt(t[c], 4) if isinstance(t[c], float) else t[c] for c in cols] for t in table])
    png = heatmap(a, models, wls, table)
    readme(a, models, wls, table, secs, rows + base_rows)
    print(f"wrote {a.out}/matrix.csv, {'matrix.png, ' if png else ''}README.md ({len(table)} pairs, {secs:.0f} s)")
    return 0


MARK = {"recovered": "R", "NOT recovered": "X", "no procedure": "-"}


def ratio_label(r):
    """A cell's ratio in at most 3 digits: 1.03, 3.5, 28, 399 (the CSV and README keep 4)."""
    return f"{r:.2f}" if r < 2 else f"{r:.1f}" if r < 10 else f"{r:.0f}"


def heatmap(a, models, wls, table):
    """Colour = log2 of the ratio (so 2x slower is one step at any level), colour bar labelled in plain
    ratios; each cell prints the ratio and the crash mark."""
    plt = FL.plt_or_none("matplotlib missing: no matrix.png")
    if plt is None:
        return False
    import numpy as np
    from matplotlib.colors import Normalize
    idx = {(t["workload"], t["model"]): t for t in table}
    z = [[math.log2(idx[(w, m)]["norm"]) if idx[(w, m)]["norm"] == idx[(w, m)]["norm"] and idx[(w, m)]["norm"] > 0
          else float("nan") for m in models] for w in wls]
    arr = np.ma.masked_invalid(np.array(z, dtype=float))
    hi = max(1, math.ceil(float(arr.max()))) if arr.count() else 1
    lo = min(0, math.floor(float(arr.min()))) if arr.count() else 0
    norm = Normalize(vmin=lo, vmax=hi)
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("lightgrey")
    fig, ax = plt.subplots(figsize=(2.5 + 0.95 * len(models), 1.6 + 0.3 * len(wls)))
    im = ax.imshow(arr, aspect="auto", cmap=cmap, norm=norm)
    for i, w in enumerate(wls):
        for j, m in enumerate(models):
            t = idx[(w, m)]
            ok = t["norm"] == t["norm"] and t["norm"] > 0
            txt = (ratio_label(t["norm"]) if ok else t["status"]) + " " + MARK.get(t["crash"], "?")
            r, g, b, _ = cmap(norm(arr[i, j])) if ok else (0.83, 0.83, 0.83, 1)
            dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5   # text colour by the cell's luminance
            ax.text(j, i, txt, ha="center", va="center", fontsize=8, color="white" if dark else "black")
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels(models, rotation=30, ha="right", fontsize=9)
    ax.set_yticks(range(len(wls)))
    ax.set_yticklabels(wls, fontsize=8)
    cb = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
    ticks = list(range(lo, hi + 1))
    cb.set_ticks(ticks)
    cb.set_ticklabels([f"{2.0 ** k:g}x" for k in ticks])
    cb.set_label("time / no-persistence time (log scale: each step 2x)", fontsize=9)
    sysx = system_text(a)
    ax.set_title(f"GPU models x workloads ({a.config}{', ' + sysx if sysx else ''}, size {a.size})\n"
                 "cell: time / no-persistence time; R = crash-recovered, X = not, - = no procedure", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "matrix.png"), dpi=100)
    plt.close(fig)
    return True


def system_text(a):
    """'PM-far, persist.window 6' from a matrix run's resolved config.json (the keys the cells depend on
    most); '' if no run directory is there."""
    import glob
    for cj in sorted(glob.glob(os.path.join(a.out, "raw", "matrix", "runs", "*", "config.json"))):
        try:
            with open(cj) as f:
                c = json.load(f)
        except (OSError, ValueError):
            continue
        place = c.get("system", {}).get("pm_placement", "?")
        eadr = " with eADR" if c.get("system", {}).get("eadr") else ""
        win = c.get("persist", {}).get("window", "?")
        return f"PM-{place}{eadr}, persist.window {win}"
    return ""


def readme(a, models, wls, table, secs, rows):
    idx = {(t["workload"], t["model"]): t for t in table}
    sysx = system_text(a)
    L = [f"# Every GPU persistency model on every GPU workload{' (' + sysx + ')' if sysx else ''}", "",
         V.provenance_line("scripts/gpu_matrix.py", [r.get("persim_git") for r in rows])
         + " `make figures-matrix`; do not edit by hand.", "",
         f"Config `{a.config}`{' (' + sysx + ')' if sysx else ''}, size `{a.size}`, seed 1. Cell: simulated time over the no-persistence time of the "
         f"same workload (base: model `{a.base_model}` with `{a.base_set}`: persim has no GPU model without "
         "persistence; this DRAM-only configuration keeps the persistent region in DRAM, caches it like volatile "
         "data and persists nothing). Then the crash check: `R` every one of the "
         f"{a.crash_points} sampled crash points (`persim crash --images {a.images}`: "
         + ("images the model allows, first one per requirement it does not guarantee, then random samples"
            if a.images == "model" else "this run's own durable images") + ") recovered and verified, "
         "`X` some did not, `-` the workload has no recovery procedure. `failed`: the model could not run the "
         f"workload (see raw/matrix/sweep.csv). "
         + (f"Wall time: {secs:.0f} s." if not a.no_run else "Redrawn from the existing results (--no-run)."), "", "![matrix](matrix.png)", "",
         "| workload | " + " | ".join(models) + " |", "|---|" + "---|" * len(models)]
    for w in wls:
        cells = []
        for m in models:
            t = idx[(w, m)]
            v = f"{t['norm']:.2f}" if t["norm"] == t["norm"] else t["status"]
            cells.append(f"{v} {MARK.get(t['crash'], t['crash'])}")
        L.append(f"| {w} | " + " | ".join(cells) + " |")
    n_rec = sum(1 for t in table if t["crash"] == "recovered")
    n_bad = [f"{t['model']}/{t['workload']}" for t in table if t["crash"] == "NOT recovered"]
    n_fail = [f"{t['model']}/{t['workload']}" for t in table if t["status"] != "ok"]
    bad_req = [f"{t['model']}/{t['workload']} ({t['requirements']})" for t in table
               if t["requirements"] not in ("all guaranteed", "none stated", "not checked")]
    L += ["", "Requirements (`persim check`: the program's `require`s, what its recovery relies on, guaranteed by "
          "the model's order and kept by the run): " +
          (f"all guaranteed wherever stated, except {', '.join(bad_req)}." if bad_req else
           "every pair whose workload states requirements has them all guaranteed and kept.") +
          " Workloads stating none: " + (", ".join(sorted({t['workload'] for t in table if t['requirements'] == 'none stated'})) or "-") + "."]
    L += ["", f"Pairs: {len(table)}; crash-recovered on every sampled point: {n_rec}; not recovered: "
          f"{len(n_bad)}{' (' + ', '.join(n_bad) + ')' if n_bad else ''}; runs that failed: {len(n_fail)}"
          f"{' (' + ', '.join(n_fail) + ')' if n_fail else ''}.", "",
          "A sample of crash points proves recoverability only on those points; `persim crash --points all` "
          "tries every distinct durable image (docs/checking.md)."]
    FL.write_readme(a.out, L)


if __name__ == "__main__":
    sys.exit(main())
