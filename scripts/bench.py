#!/usr/bin/env python3
"""persim simulation-speed benchmark. Speed is measured here, never by a timed test.

Default (`make bench`): before/after comparison. The `persim` of a baseline revision (--baseline,
default c99bc84, the last commit before the controller-substrate refactor) is built in a scratch
git worktree under build/bench-baseline (cmake + ninja, target persim only; cached: rebuilt only
when the revision changes), then the fixed runs below are run alternately with the baseline and
the current binary (interleaved, --reps repetitions each, default 3; the GPU runs of RUNS and the
cpu runs of CPU_RUNS: LightWSP, PPA and BROI on their paper configurations) and the median host seconds
per run are compared: a side-by-side table (run, baseline s, current s, ratio), the geometric-mean
ratio and a verdict ("within 5%" or "slower by X%"), also in results/bench/compare.csv. The
machine may be loaded by other users: interleaving (both binaries see the same load drift) and
medians (one disturbed repetition does not count) are what make the comparison fair; on a loaded
machine the absolute seconds mean little, only the ratios do.

Other parts (flags): --speed: the fixed runs once with the current binary, host seconds and
simulated warp instructions per host second (results/bench/bench.csv); --check: the cost of
`run --check` relative to a plain run and of `persim crash` at 1000 points (results/bench/check.csv);
--figures: the wall time of regenerating every SBRP figure (`make figures` with every point rerun,
into a scratch directory; results/bench/figures.csv). --all: every part. --no-compare skips the
comparison."""
import argparse
import csv
import json
import math
import os
import shutil
import statistics
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
# (config, model, workload, size): the cpu system in the before/after comparison; sizes large
# enough that simulation, not start-up (the DRAM cache's tag array), dominates the run
CPU_RUNS = [
    ("configs/cpu_lightwsp_table1.json", "lightwsp", "cpu-btree", "40000"),
    ("configs/cpu_lightwsp_table1.json", "ppa", "cpu-queue", "100000"),
    ("configs/cpu_broi_table3.json", "broi", "broi-sps", "20000"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--persim", default="build/persim")
    ap.add_argument("--config", default="configs/gpu_sbrp_table1.json")
    ap.add_argument("--out", default="results/bench")
    ap.add_argument("--baseline", default="c99bc84",
                    help="revision to compare against (default c99bc84, the last commit before the substrate refactor)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per run and binary in the comparison (median)")
    ap.add_argument("--no-compare", action="store_true", help="skip the before/after comparison")
    ap.add_argument("--speed", action="store_true", help="also: the fixed runs once with the current binary (bench.csv)")
    ap.add_argument("--check", action="store_true", help="also: time `run --check` and `persim crash` (docs/checking.md)")
    ap.add_argument("--figures", action="store_true",
                    help="also: time the SBRP figure pipeline (make figures, every point rerun)")
    ap.add_argument("--all", action="store_true", help="every part: comparison, speed, check, figures")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2, help="runs at a time for the figures")
    a = ap.parse_args()
    if a.all:
        a.speed = a.check = a.figures = True
    os.makedirs(a.out, exist_ok=True)
    if not a.no_compare and bench_compare(a) != 0:
        return 1
    if not (a.speed or a.check):
        return 0 if not a.figures else bench_figures(a)
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
    if a.check and bench_check(a, rows) != 0:
        return 1
    return 0 if not a.figures else bench_figures(a)


def run_cmd(persim, config, model, place, wl, size, out):
    return [persim, "run", "--config", config, "--model", model, "--workload", wl, "--size", size,
            "--set", f"system.pm_placement={place}", "--out", out, "--quiet"]


def cpu_run_cmd(persim, config, model, wl, size, out):
    return [persim, "run", "--config", config, "--model", model, "--workload", wl, "--size", size, "--out", out,
            "--quiet"]


def build_baseline(a):
    """persim of revision a.baseline in build/bench-baseline (scratch worktree src/, build dir build/);
    rebuilt only if the revision changed. Returns the binary's path or None."""
    root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(a.persim)), "bench-baseline"))
    src, bld, stamp = os.path.join(root, "src"), os.path.join(root, "build"), os.path.join(root, "revision")
    binary = os.path.join(bld, "persim")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # git commands run in this checkout
    p = subprocess.run(["git", "rev-parse", "--verify", a.baseline + "^{commit}"], capture_output=True, text=True,
                       cwd=repo)
    if p.returncode != 0:
        print(f"--baseline {a.baseline}: not a revision: {p.stderr.strip()}", file=sys.stderr)
        return None
    sha = p.stdout.strip()
    if os.path.exists(binary) and os.path.exists(stamp) and open(stamp).read().strip() == sha:
        print(f"baseline {a.baseline} ({sha[:10]}): cached {binary}")
        return binary
    os.makedirs(root, exist_ok=True)
    if os.path.exists(os.path.join(src, ".git")):
        r = subprocess.run(["git", "-C", src, "checkout", "--detach", "--force", sha], capture_output=True, text=True)
    else:
        if os.path.exists(src):
            shutil.rmtree(src)
        subprocess.run(["git", "worktree", "prune"], capture_output=True, cwd=repo)
        r = subprocess.run(["git", "worktree", "add", "--detach", src, sha], capture_output=True, text=True, cwd=repo)
    if r.returncode != 0:
        print("baseline worktree: " + r.stderr, file=sys.stderr)
        return None
    if os.path.exists(stamp):
        os.remove(stamp)
    print(f"baseline {a.baseline} ({sha[:10]}): building persim in {bld} ...", flush=True)
    t0 = time.time()
    for cmd in (["cmake", "-S", src, "-B", bld, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                ["cmake", "--build", bld, "-j", str(a.jobs), "--target", "persim"]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("FAILED: " + " ".join(cmd) + "\n" + r.stdout[-3000:] + r.stderr[-3000:], file=sys.stderr)
            return None
    with open(stamp, "w") as f:
        f.write(sha + "\n")
    print(f"baseline built in {time.time() - t0:.0f} s")
    return binary


def bench_compare(a):
    """The fixed runs with the baseline and the current persim, interleaved, a.reps times each; median
    host seconds per run side by side, geometric-mean ratio, verdict. results/bench/compare.csv"""
    base = build_baseline(a)
    if not base:
        return 1
    cur = os.path.abspath(a.persim)
    config = os.path.abspath(a.config)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # every compared run: (name, command builder for a binary and an output directory)
    cmp_runs = [(f"{m}-{p}-{w}-{z}", lambda b, o, m=m, p=p, w=w, z=z: run_cmd(b, config, m, p, w, z, o))
                for m, p, w, z in RUNS]
    cmp_runs += [(f"cpu-{m}-{w}-{z}", lambda b, o, c=c, m=m, w=w, z=z: cpu_run_cmd(b, os.path.join(repo, c), m, w, z, o))
                 for c, m, w, z in CPU_RUNS]
    tmp = os.path.join(a.out, "runs", "compare")
    times = {}   # (run index, "baseline"/"current") -> [process wall seconds]
    sims = {}    # the same -> [stats.json summary host_seconds]
    print(f"\nbefore/after: baseline {a.baseline} vs current, {len(cmp_runs)} runs x {a.reps} repetitions, "
          "interleaved (baseline, current, current, baseline, ...), median host seconds", flush=True)
    for rep in range(a.reps):
        for i, (name, make_cmd) in enumerate(cmp_runs):
            # Alternate which binary goes first so neither always runs on a warm (or cold) cache.
            order = [("baseline", base), ("current", cur)]
            if (rep + i) % 2:
                order.reverse()
            for who, binary in order:
                out = os.path.join(tmp, f"{who}-{name}")
                cmd = make_cmd(binary, out)
                t0 = time.perf_counter()
                p = subprocess.run(cmd, capture_output=True, text=True)
                wall = time.perf_counter() - t0
                if p.returncode != 0:
                    print("FAILED: " + " ".join(cmd) + "\n" + p.stderr, file=sys.stderr)
                    return 1
                times.setdefault((i, who), []).append(wall)
                try:   # the simulator's own host_seconds (simulation only, no start-up / output)
                    sim = json.load(open(os.path.join(out, "stats.json")))["summary"]["host_seconds"]["value"]
                except (OSError, KeyError, ValueError):
                    sim = float("nan")
                sims.setdefault((i, who), []).append(sim)
            print(f"  rep {rep + 1}/{a.reps} {name}: baseline {times[(i, 'baseline')][-1]:.2f} s, "
                  f"current {times[(i, 'current')][-1]:.2f} s", flush=True)
    rows = []
    logs, slogs = [], []
    print(f"\nhost seconds: process wall time of `persim run` (median); sim s: the run's own host_seconds "
          "(simulation only)")
    print(f"{'run':28s} {'baseline s':>11s} {'current s':>10s} {'ratio':>7s} {'sim ratio':>10s}")
    for i, (name, _) in enumerate(cmp_runs):
        b = statistics.median(times[(i, "baseline")])
        c = statistics.median(times[(i, "current")])
        sb = statistics.median(sims[(i, "baseline")])
        sc = statistics.median(sims[(i, "current")])
        sr = sc / sb if sb > 0 else float("nan")
        rows.append({"run": name, "baseline_s": f"{b:.3f}", "current_s": f"{c:.3f}", "ratio": f"{c / b:.3f}",
                     "baseline_sim_s": f"{sb:.3f}", "current_sim_s": f"{sc:.3f}", "sim_ratio": f"{sr:.3f}",
                     "baseline_all_s": " ".join(f"{x:.3f}" for x in times[(i, "baseline")]),
                     "current_all_s": " ".join(f"{x:.3f}" for x in times[(i, "current")])})
        logs.append(math.log(c / b))
        if sr == sr:
            slogs.append(math.log(sr))
        print(f"{name:28s} {b:11.2f} {c:10.2f} {c / b:7.3f} {sr:10.3f}")
    gm = math.exp(sum(logs) / len(logs))
    sgm = math.exp(sum(slogs) / len(slogs)) if slogs else float("nan")
    verdict = "within 5%" if gm <= 1.05 else f"slower by {(gm - 1) * 100:.1f}%"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{'geometric mean':28s} {'':11s} {'':10s} {gm:7.3f} {sgm:10.3f}")
    print(f"verdict: {verdict} (current vs {a.baseline}, process wall time; median of {a.reps} interleaved "
          f"repetitions; host load average at the end {load:.1f} on {os.cpu_count()} cores)")
    empty = {k: "" for k in rows[0]}
    rows.append(dict(empty, run="geometric_mean", ratio=f"{gm:.3f}", sim_ratio=f"{sgm:.3f}"))
    rows.append(dict(empty, run="verdict: " + verdict, baseline_all_s=f"baseline {a.baseline}, reps {a.reps}",
                     current_all_s=f"load average {load:.1f} on {os.cpu_count()} cores"))
    with open(os.path.join(a.out, "compare.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    return 0


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
