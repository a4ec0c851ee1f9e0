#!/usr/bin/env python3
"""persim main demo: the six SBRP workloads under epoch-far, gpm-far, sbrp-far, epoch-near and
sbrp-near on the SBRP Table 1 GPU (configs/gpu_sbrp_table1.json). By default the workloads run at
their paper-scale sizes (SBRP Table 2; about 15 s on 2 cores): the `small` test sizes leave most of
the 30 SMs idle (gpkvs small is 4 thread blocks), so their trends are start-up noise.

Prints speedups over epoch-far (SBRP paper, Figure 6 style), writes results/demo/speedup.csv and
results/demo/speedup.png. Every number comes from the runs; the PNG marks the SBRP paper's reported
values (section 7 text, as quoted in scripts/figlib.py SBRP_PAPER_F6) beside the bars."""
import argparse
import concurrent.futures as cf
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figlib as FL  # noqa: E402
import verdict as V  # noqa: E402

SYSTEMS = [  # (label, model, placement)
    ("epoch-far", "epoch", "far"),
    ("gpm-far", "gpm", "far"),
    ("sbrp-far", "sbrp", "far"),
    ("epoch-near", "epoch", "near"),
    ("sbrp-near", "sbrp", "near"),
]
WORKLOADS = ["gpkvs", "hm", "srad", "reduction", "mq", "scan"]


geomean = FL.geomean


def plot(out, config, size, labels, rows):
    """out/speedup.png: the speedups over epoch-far per workload, the paper's numbers as red diamonds."""
    plt = FL.plt_or_none()
    if plt is None:
        print(f"\nwrote {os.path.join(out, 'speedup.csv')} (matplotlib missing: no PNG)")
        return
    fig, ax = plt.subplots(figsize=(10, 4))
    nb = len(labels)
    width = 0.8 / nb
    xs = range(len(rows))
    mx, my = [], []
    for i, lb in enumerate(labels):
        pos = [x + (i - (nb - 1) / 2) * width for x in xs]
        ax.bar(pos, [r[lb] for r in rows], width, label=lb)
        for x, r in zip(pos, rows):   # the paper's number for this bar, if it reports one
            y = FL.SBRP_PAPER_F6.get(lb, {}).get(r["workload"])
            if y is not None:
                mx.append(x)
                my.append(y)
    V.paper_marks(ax, mx, my, FL.SBRP_PAPER_MARK)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r["workload"] for r in rows])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel("speedup over epoch-far")
    ax.set_title(f"persim: SBRP Figure 6 workloads ({os.path.basename(config)}, size={size}; "
                 "one run per bar, seed 1: no error bars)", fontsize=9)
    ax.legend(ncol=5, fontsize=8, loc="upper left")
    fig.tight_layout()
    png = os.path.join(out, "speedup.png")
    fig.savefig(png, dpi=120)
    print(f"\nwrote {os.path.join(out, 'speedup.csv')} and {png}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--persim", default="build/persim")
    ap.add_argument("--config", default="configs/gpu_sbrp_table1.json")
    ap.add_argument("--out", default="results/demo")
    ap.add_argument("--size", default="default",
                    help="workload size: default (the paper-scale size of `persim list workloads`), small, or a number")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    a = ap.parse_args()
    wls = a.workloads.split(",")
    runs_dir = os.path.join(a.out, "runs")
    os.makedirs(runs_dir, exist_ok=True)
    csv_path = os.path.join(a.out, "runs.csv")
    if os.path.exists(csv_path):
        os.remove(csv_path)

    jobs = []
    for wl in wls:
        for label, model, place in SYSTEMS:
            out = os.path.join(runs_dir, f"{label}-{wl}")
            cmd = [a.persim, "run", "--config", a.config, "--model", model, "--workload", wl, "--size", a.size,
                   "--set", f"system.pm_placement={place}", "--out", out, "--csv", csv_path, "--quiet"]
            jobs.append((wl, label, out, cmd))

    t0 = time.time()
    results = {}
    failed = []

    def run(job):
        wl, label, out, cmd = job
        shutil.rmtree(out, ignore_errors=True)   # a rerun of the demo replaces its own runs (persim run keeps results)
        p = subprocess.run(cmd, capture_output=True, text=True)
        return job, p

    print(f"persim demo: {len(jobs)} runs ({len(wls)} workloads x {len(SYSTEMS)} systems), {a.jobs} at a time")
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for n, (job, p) in enumerate(ex.map(run, jobs), 1):
            wl, label, out, cmd = job
            if p.returncode != 0:
                failed.append((job, p))
                print(f"  [{n}/{len(jobs)}] {label:10s} {wl:10s} FAILED (exit {p.returncode})", flush=True)
                continue
            st = json.load(open(os.path.join(out, "stats.json")))
            results[(wl, label)] = st
            print(f"  [{n}/{len(jobs)}] {label:10s} {wl:10s} {st['summary']['sim_ns']['value']/1000:9.1f} us simulated"
                  f"  ({time.time()-t0:5.1f} s)", flush=True)
    for (wl, label, out, cmd), p in failed:
        print("\nFAILED: " + " ".join(cmd) + "\n" + p.stdout + p.stderr, file=sys.stderr)

    # Speedup over epoch-far = cycles(epoch-far) / cycles(system), as SBRP Figure 6.
    rows = []
    labels = [s[0] for s in SYSTEMS]
    for wl in wls:
        base = results.get((wl, "epoch-far"))
        row = {"workload": wl}
        for lb in labels:
            r = results.get((wl, lb))
            row[lb] = (base["summary"]["sim_ns"]["value"] / r["summary"]["sim_ns"]["value"]) if (base and r) else float("nan")
        rows.append(row)
    gm = {"workload": "geomean"}
    for lb in labels:
        gm[lb] = geomean([r[lb] for r in rows if not math.isnan(r[lb])])
    rows.append(gm)

    with open(os.path.join(a.out, "speedup.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["workload"] + labels)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})

    print(f"\nSpeedup over epoch-far (cycles of epoch-far / cycles), {a.config}, size={a.size}:")
    print(f"  {'workload':10s}" + "".join(f"{lb:>12s}" for lb in labels))
    for r in rows:
        print(f"  {r['workload']:10s}" + "".join(f"{r[lb]:12.2f}" for lb in labels))

    # What the paper reports, checked against these runs (computed, not assumed).
    def ratio(a_, b_):
        return gm[a_] / gm[b_]
    print("\nPaper's qualitative claims (section 7.2) in these runs:")
    claims = [
        ("SBRP ahead of epoch, PM-far (geomean)", ratio("sbrp-far", "epoch-far")),
        ("SBRP ahead of epoch, PM-near (geomean)", ratio("sbrp-near", "epoch-near")),
        ("near ahead of far, epoch (geomean)", ratio("epoch-near", "epoch-far")),
        ("near ahead of far, SBRP (geomean)", ratio("sbrp-near", "sbrp-far")),
        ("epoch ahead of GPM, PM-far (geomean)", ratio("epoch-far", "gpm-far")),
    ]
    for name, v in claims:
        print(f"  {'yes' if v > 1 else 'NO ':3s}  {name}: x{v:.2f}")
    gains = {r["workload"]: r["sbrp-far"] for r in rows[:-1] if not math.isnan(r["sbrp-far"])}
    if gains:
        best = max(gains, key=gains.get)
        print(f"  {'yes' if best == 'reduction' else 'NO ':3s}  largest SBRP-far gain: {best} (x{gains[best]:.2f})")

    plot(a.out, a.config, a.size, labels, rows)
    print(f"demo done in {time.time()-t0:.1f} s: {len(results)}/{len(jobs)} runs ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
