#!/usr/bin/env python3
"""persim simulation-speed benchmark: a fixed set of runs, one at a time (no other load), each
reporting host seconds and simulated warp instructions per host second. Results go to stdout and
results/bench/bench.csv. Speed is measured here, never by a timed test."""
import argparse
import csv
import json
import os
import subprocess
import sys
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
