#!/usr/bin/env python3
"""persim simulation-speed benchmark: a fixed set of runs, one at a time (no other load), each
reporting host seconds and simulated warp instructions per host second. Results go to stdout and
results/bench/bench.csv. Speed is measured here, never by a timed test.
Then the cost of `run --check` relative to a plain run and of `persim crash` at 1000 points
(results/bench/check.csv, --no-check skips it), and the wall time of regenerating every SBRP figure (`make figures` with every point rerun, into a
scratch directory) goes to results/bench/figures.csv (--no-figures skips it)."""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

RUNS = [  # (model, placement, workload, size)
    ("sbrp", "near", "reduction", "default"),
    ("sbrp", "far", "gpkvs", "default"),
    ("epoch", "far", "gpkvs", "default"),
    ("sbrp", "near", "scan", "default"),
    ("epoch", "near", "srad", "default"),
    ("sbrp", "near", "mq", "default"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--persim", default="build/persim")
    ap.add_argument("--config", default="configs/gpu_sbrp_table1.json")
    ap.add_argument("--out", default="results/bench")
    ap.add_argument("--no-figures", action="store_true",
                    help="skip timing the SBRP figure pipeline (make figures, every point rerun)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2, help="runs at a time for the figures")
    ap.add_argument("--no-check", action="store_true",
                    help="skip timing `run --check` and `persim crash` (docs/checking.md)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    print(f"{'model':6s} {'place':5s} {'workload':10s} {'host s':>8s} {'warp-instr':>12s} {'M instr/s':>10s} {'sim us':>10s}")
    for model, place, wl, size in RUNS:
        out = os.path.join(a.out, "runs", f"{model}-{place}-{wl}")
        cmd = [a.persim, "run", "--config", a.config, "--model", model, "--workload", wl, "--size", size,
               "--set", f"system.pm_placement={place}", "--out", out, "--csv", os.path.join(a.out, "runs.csv"), "--quiet"]
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.time() - t0
        if p.returncode != 0:
            print("FAILED: " + " ".join(cmd) + "\n" + p.stderr, file=sys.stderr)
            return 1
        s = json.load(open(os.path.join(out, "stats.json")))["summary"]
        instr = s["warp_instructions"]["value"]
        host = s["host_seconds"]["value"]
        rows.append({"model": model, "placement": place, "workload": wl, "size": size,
                     "process_seconds": f"{wall:.3f}", "sim_seconds": f"{host:.3f}",
                     "warp_instructions": instr, "minstr_per_s": f"{instr / host / 1e6 if host else 0:.3f}",
                     "sim_us": f"{s['sim_ns']['value'] / 1000:.1f}"})
        print(f"{model:6s} {place:5s} {wl:10s} {wall:8.2f} {instr:12.0f} {instr / host / 1e6 if host else 0:10.2f} "
              f"{s['sim_ns']['value'] / 1000:10.1f}")
    tot_i = sum(float(r["warp_instructions"]) for r in rows)
    tot_s = sum(float(r["sim_seconds"]) for r in rows)
    print(f"total: {tot_i:.0f} warp instructions in {tot_s:.2f} s simulation = {tot_i / tot_s / 1e6:.2f} M instr/s")
    with open(os.path.join(a.out, "bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    if not a.no_check and bench_check(a, rows) != 0:
        return 1
    return 0 if a.no_figures else bench_figures(a)


CRASH_RUNS = [  # (model, workload, size, points): `persim crash` on the small GPU (target: < 60 s each)
    ("sbrp", "reduction", "small", "1000"),
    ("sbrp", "mq", "small", "1000"),
]


def bench_check(a, rows):
    """Cost of `persim run --check` relative to the plain runs above (target: under 2x the run's time),
    and of `persim crash` at 1000 points on small workloads (target: under a minute). results/bench/check.csv"""
    out = []
    print(f"\n{'check':6s} {'place':5s} {'workload':10s} {'run s':>8s} {'--check s':>10s} {'ratio':>6s}")
    for (model, place, wl, size), r in zip(RUNS, rows):
        d = os.path.join(a.out, "runs", f"check-{model}-{place}-{wl}")
        cmd = [a.persim, "run", "--config", a.config, "--model", model, "--workload", wl, "--size", size,
               "--set", f"system.pm_placement={place}", "--out", d, "--csv", os.path.join(a.out, "check-runs.csv"),
               "--quiet", "--check"]
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.time() - t0
        if p.returncode != 0:
            print("FAILED: " + " ".join(cmd) + "\n" + p.stderr, file=sys.stderr)
            return 1
        chk = json.load(open(os.path.join(d, "stats.json")))["check"]
        base = float(r["process_seconds"])
        out.append({"what": f"run --check {model} {place} {wl} {size}", "seconds": f"{wall:.3f}",
                    "plain_run_seconds": f"{base:.3f}", "ratio": f"{wall / base if base else 0:.2f}",
                    "check_seconds": f"{chk['check_seconds']:.3f}", "points": ""})
        print(f"{model:6s} {place:5s} {wl:10s} {base:8.2f} {wall:10.2f} {wall / base if base else 0:6.2f}")
    small = os.path.join(os.path.dirname(os.path.abspath(a.config)), "gpu_small.json")
    for model, wl, size, points in CRASH_RUNS:
        cmd = [a.persim, "crash", "--config", small, "--model", model, "--workload", wl, "--size", size,
               "--points", points]
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.time() - t0
        if p.returncode != 0:
            print("FAILED: " + " ".join(cmd) + "\n" + p.stdout + p.stderr, file=sys.stderr)
            return 1
        out.append({"what": f"crash {model} {wl} {size} --points {points}", "seconds": f"{wall:.3f}",
                    "plain_run_seconds": "", "ratio": "", "check_seconds": "", "points": points})
        print(f"crash {model} {wl} {size}: {points} points in {wall:.1f} s (target: under 60 s)")
    with open(os.path.join(a.out, "check.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0].keys()))
        w.writeheader()
        w.writerows(out)
    return 0


def bench_figures(a):
    """Wall time of regenerating every SBRP figure (scripts/sbrp_figures.py = `make figures`) with
    every point rerun, into a scratch directory so results/sbrp/ is left alone. Target: < 10 min on 2 cores."""
    with tempfile.TemporaryDirectory(prefix="persim-figures-") as tmp:
        cmd = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "sbrp_figures.py"),
               "--persim", a.persim, "--out", tmp, "--force", "-j", str(a.jobs)]
        print(f"\nSBRP figures (make figures, all points rerun, -j {a.jobs}) ...", flush=True)
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.time() - t0
        runs = 0
        for d in os.listdir(tmp):
            sc = os.path.join(tmp, d, "sweep.csv")
            if os.path.exists(sc):
                runs += max(0, sum(1 for _ in open(sc)) - 1)
    if p.returncode != 0:
        print("FAILED: " + " ".join(cmd) + "\n" + p.stdout[-2000:] + p.stderr[-2000:], file=sys.stderr)
        return 1
    print(f"SBRP figures: {runs} runs in {wall:.1f} s wall with -j {a.jobs} (target: under 600 s on 2 cores)")
    with open(os.path.join(a.out, "figures.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["what", "runs", "jobs", "wall_seconds", "target_seconds"])
        w.writerow(["make figures (all points rerun)", runs, a.jobs, f"{wall:.1f}", 600])
    return 0


if __name__ == "__main__":
    sys.exit(main())
