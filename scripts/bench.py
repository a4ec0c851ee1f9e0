#!/usr/bin/env python3
"""persim simulation-speed benchmark (`make bench`). Speed is measured here, never by a timed test.

One run reports every part side by side (results/bench/README.md: a table per part and what the
numbers show); each part also writes one CSV under results/bench/:

  compare    before/after (compare.csv): the `persim` of a baseline revision (--baseline, default
             82388b6, the commit before issue 23's speed work; or --baseline-persim BINARY) is built in
             a scratch git worktree under build/bench-baseline (target persim only; cached per
             revision), then the fixed runs are run alternately with the baseline and the current
             binary (interleaved, --reps repetitions each, default 3): the GPU runs of RUNS and the
             cpu runs of CPU_RUNS (lightwsp, ppa, capri, none on the LightWSP workloads and profiles;
             broi and none on BROI's). Per run: median process wall seconds, median CPU seconds (user +
             sys of the process, far less sensitive to other users' load than wall time), simulated
             instructions per CPU second of each binary and the speed-up, the geometric-mean ratio and a
             verdict ("within 5%" / "slower by X%" / "faster by X%").
  gpu        the GPU runs once with the current binary (gpu.csv): warp instructions per host second of
             the simulation (its own host_seconds) and per CPU second of the process.
  cosim      RTL co-simulation cycles per second per block and preset (cosim.csv), from
             build/tb/cosim_bench (or tb/cosim_bench.py) when built; skipped with a note otherwise.
  check      the cost of `run --check` over a plain run, and of `persim crash` at 1000 points (check.csv).
  device     the cost of the Optane-class device (nvm.device = pm_dimm, configs/nvm_optane_dcpmm.json)
             over the bank device on the same runs (device.csv): interleaved repetitions (--reps), median
             CPU seconds of each, the ratio (target: at most 1.2x).
  figures    `make figures-all`'s wall time (figures.csv), read from results/figures-all.json (never
             rerun here; --figures-rerun times the SBRP figures from scratch as before).
  instructions  (only with --instructions; slow) host instructions per simulated instruction under
             `valgrind --tool=callgrind` (load-independent): each INSTR_RUNS run at two sizes, the
             marginal count (difference over the difference in simulated instructions) and the total
             at the larger size (instructions.csv). perf stat is used instead when it can count
             instructions (not in most VMs).

--parts compare,gpu,... selects parts (default: compare,gpu,cosim,check,device,figures); --no-compare drops
the comparison. The machine may be loaded by other users: interleaving (both binaries see the same
load drift), medians and CPU seconds are what make the before/after comparison fair."""
import argparse
import csv
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BASELINE = "82388b6"   # the commit before issue 23's speed work
PARTS = ["compare", "gpu", "cosim", "check", "device", "figures"]

RUNS = [  # (model, placement, workload, size): the GPU runs (configs/gpu_sbrp_table1.json)
    ("sbrp", "near", "reduction", "default"),
    ("sbrp", "far", "gpkvs", "default"),
    ("epoch", "far", "gpkvs", "default"),
    ("sbrp", "near", "scan", "default"),
    ("epoch", "near", "srad", "default"),
    ("sbrp", "near", "mq", "default"),
]
LW = "configs/cpu_lightwsp_table1.json"
BR = "configs/cpu_broi_table3.json"
# (config, model, workload, size): the cpu system; sizes large enough that simulation, not start-up
# (the DRAM cache's tag array), dominates the run (1.3-1.6 M simulated instructions each)
CPU_RUNS = ([(LW, m, "cpu-hashtable", "40000") for m in ("none", "capri", "ppa", "lightwsp")] +
            [(LW, m, "prof-cpu2006-mem", "25000") for m in ("none", "capri", "ppa", "lightwsp")] +
            [(LW, "lightwsp", "cpu-btree", "40000"), (LW, "ppa", "cpu-queue", "100000")] +
            [(BR, m, w, z) for w, z in (("broi-sps", "20000"), ("broi-rbtree", "8000")) for m in ("none", "broi")])
# (system, config, model, workload, small size, large size): --instructions (callgrind, ~50x slower than a run)
INSTR_RUNS = ([("cpu", LW, m, "cpu-hashtable", "2000", "4000") for m in ("none", "capri", "ppa", "lightwsp")] +
              [("cpu", BR, m, "broi-sps", "2500", "5000") for m in ("none", "broi")] +
              [("gpu", "configs/gpu_sbrp_table1.json", "sbrp", "reduction", "262144", "524288"),
               ("gpu", "configs/gpu_sbrp_table1.json", "sbrp", "mq", "160", "320"),
               ("gpu", "configs/gpu_agpm_table4.json", "agpm", "agpm-backprop1", "small", "default")])
OPTANE = "configs/nvm_optane_dcpmm.json"
# (config, model, workload, size, nvm.dimms): the device part; nvm.dimms keeps the configuration's
# total write bandwidth (write_bw_gbps / 2.3 GB/s per DIMM; docs/models/nvm-device.md)
DEVICE_RUNS = [(LW, "lightwsp", "cpu-hashtable", "40000", 2), (LW, "ppa", "prof-cpu2006-mem", "25000", 2),
               (LW, "none", "cpu-hashtable", "40000", 2), (BR, "broi", "broi-sps", "20000", 6),
               ("configs/gpu_sbrp_table1.json", "sbrp", "gpkvs", "default", 18)]
CRASH_RUNS = [  # (model, workload, size, points): `persim crash` on the small GPU (target: < 60 s each)
    ("sbrp", "reduction", "small", "1000"),
    ("sbrp", "mq", "small", "1000"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--persim", default="build/persim")
    ap.add_argument("--config", default="configs/gpu_sbrp_table1.json", help="the GPU runs' config")
    ap.add_argument("--out", default="results/bench")
    ap.add_argument("--baseline", default=DEFAULT_BASELINE,
                    help=f"revision to compare against (default {DEFAULT_BASELINE}, before issue 23's speed work)")
    ap.add_argument("--baseline-persim", default="", help="an already built baseline binary (skips the build)")
    ap.add_argument("--baseline-label", default="", help="the baseline's name in the tables (default: the "
                    "revision, or the --baseline-persim path)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per run and binary in the comparison (median)")
    ap.add_argument("--parts", default=",".join(PARTS), help="comma-separated parts (default: %(default)s)")
    ap.add_argument("--no-compare", action="store_true", help="skip the before/after comparison")
    ap.add_argument("--runs", default="", help="only the compare/gpu/check runs whose name matches this regex "
                    "(names as in compare.csv, e.g. 'broi|gpu-sbrp-near-scan'; a quick check of the pipeline)")
    ap.add_argument("--instructions", action="store_true", help="also: callgrind host instructions per simulated "
                    "instruction (slow: minutes per run)")
    ap.add_argument("--figures-rerun", action="store_true",
                    help="also: time the SBRP figure pipeline from scratch (every point rerun)")
    ap.add_argument("--figures-record", default="results/figures-all.json", help="make figures-all's timing record")
    ap.add_argument("--speed", action="store_true", help=argparse.SUPPRESS)   # old name of the gpu part
    ap.add_argument("--check", action="store_true", help=argparse.SUPPRESS)   # old flags: parts are on by default
    ap.add_argument("--figures", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--all", action="store_true", help="every part, --instructions and --figures-rerun included")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2, help="runs at a time for --figures-rerun")
    a = ap.parse_args()
    parts = [p for p in a.parts.split(",") if p]
    bad = set(parts) - set(PARTS)
    if bad:
        ap.error("--parts: unknown " + ", ".join(sorted(bad)) + " (known: " + ", ".join(PARTS) + ")")
    if a.no_compare and "compare" in parts:
        parts.remove("compare")
    if a.all:
        parts, a.instructions, a.figures_rerun = list(PARTS), True, True
    os.makedirs(a.out, exist_ok=True)
    report = {}   # part -> (status line, markdown lines)
    rc = 0
    for part, fn in (("compare", bench_compare), ("gpu", bench_gpu), ("cosim", bench_cosim),
                     ("check", bench_check), ("device", bench_device), ("figures", bench_figures)):
        if part in parts:
            r = fn(a, report)
            rc |= 1 if r else 0
    if a.instructions:
        rc |= 1 if bench_instructions(a, report) else 0
    if a.figures_rerun:
        rc |= 1 if figures_rerun(a, report) else 0
    write_readme(a, report)
    print("\n== side by side ==")
    for part, (line, _) in report.items():
        print(f"{part:13s} {line}")
    print(f"(tables: {os.path.join(a.out, 'README.md')})")
    return rc


# ---- running one persim process -----------------------------------------------------------------------

def timed(cmd):
    """Runs cmd; (CompletedProcess, wall seconds, CPU seconds of the child: user + sys). A `--out`
    folder of an earlier repetition is removed first (persim run refuses to overwrite a result)."""
    if "--out" in cmd:
        shutil.rmtree(cmd[cmd.index("--out") + 1], ignore_errors=True)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p, wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def summary(out):
    """The run's stats.json summary as {key: value} ({} if unreadable)."""
    try:
        return {k: v.get("value") for k, v in json.load(open(os.path.join(out, "stats.json")))["summary"].items()}
    except (OSError, KeyError, ValueError, AttributeError):
        return {}


def sim_instr(s):
    """Simulated instructions of a run summary: warp instructions (GPU) or instructions (cpu)."""
    return float(s.get("warp_instructions", s.get("instructions", float("nan"))) or float("nan"))


def gpu_runs(a):
    """RUNS whose compare name (gpu-model-placement-workload-size) matches --runs."""
    return [r for r in RUNS if re.search(a.runs, "gpu-" + "-".join(r))]


def run_cmd(persim, config, model, place, wl, size, out):
    return [persim, "run", "--config", config, "--model", model, "--workload", wl, "--size", size,
            "--set", f"system.pm_placement={place}", "--out", out, "--quiet"]


def cpu_run_cmd(persim, config, model, wl, size, out):
    return [persim, "run", "--config", config, "--model", model, "--workload", wl, "--size", size, "--out", out,
            "--quiet"]


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def md_table(rows, cols):
    L = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        L.append("| " + " | ".join(str(r.get(c, "")) for c in cols) + " |")
    return L


def gmean(xs):
    xs = [x for x in xs if x == x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


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


def bench_compare(a, report):
    """The fixed runs with the baseline and the current persim, interleaved, a.reps times each; medians
    side by side (wall and CPU seconds, simulated instructions per CPU second), geometric-mean ratio,
    verdict. results/bench/compare.csv"""
    base = os.path.abspath(a.baseline_persim) if a.baseline_persim else build_baseline(a)
    if not base or not os.path.exists(base):
        report["compare"] = (f"FAILED: no baseline binary ({a.baseline})", [])
        return 1
    who_base = a.baseline_label or a.baseline_persim or a.baseline
    cur = os.path.abspath(a.persim)
    config = os.path.abspath(a.config)
    # every compared run: (name, system, model, workload, size, command builder for a binary and an output directory)
    cmp_runs = [(f"gpu-{m}-{p}-{w}-{z}", "gpu", m, w, z,
                 lambda b, o, m=m, p=p, w=w, z=z: run_cmd(b, config, m, p, w, z, o)) for m, p, w, z in RUNS]
    cmp_runs += [(f"cpu-{os.path.basename(c).split('_')[1]}-{m}-{w}-{z}", "cpu", m, w, z,
                  lambda b, o, c=c, m=m, w=w, z=z: cpu_run_cmd(b, os.path.join(REPO, c), m, w, z, o))
                 for c, m, w, z in CPU_RUNS]
    cmp_runs = [r for r in cmp_runs if re.search(a.runs, r[0])]
    tmp = os.path.join(a.out, "runs", "compare")
    meas = {}   # (run index, "baseline"/"current") -> [(wall, cpu, sim host_seconds, simulated instructions)]
    print(f"\nbefore/after: baseline {who_base} vs current, {len(cmp_runs)} runs x {a.reps} repetitions, "
          "interleaved (baseline, current, current, baseline, ...), medians", flush=True)
    for rep in range(a.reps):
        for i, (name, _, _, _, _, make_cmd) in enumerate(cmp_runs):
            order = [("baseline", base), ("current", cur)]   # alternate which binary goes first
            if (rep + i) % 2:
                order.reverse()
            for who, binary in order:
                out = os.path.join(tmp, f"{who}-{name}")
                cmd = make_cmd(binary, out)
                p, wall, cpu = timed(cmd)
                if p.returncode != 0:
                    print("FAILED: " + " ".join(cmd) + "\n" + p.stderr, file=sys.stderr)
                    report["compare"] = (f"FAILED: {name} ({who})", [])
                    return 1
                s = summary(out)
                meas.setdefault((i, who), []).append((wall, cpu, float(s.get("host_seconds", "nan")), sim_instr(s)))
            print(f"  rep {rep + 1}/{a.reps} {name}: baseline {meas[(i, 'baseline')][-1][1]:.2f} CPU s, "
                  f"current {meas[(i, 'current')][-1][1]:.2f} CPU s", flush=True)
    rows = []
    print(f"\n{'run':40s} {'base CPU s':>10s} {'cur CPU s':>9s} {'ratio':>6s} {'wall ratio':>10s} "
          f"{'base Mi/s':>9s} {'cur Mi/s':>8s} {'speed-up':>8s}")
    ratios, wratios, sys_ratios = [], [], {"gpu": [], "cpu": []}
    for i, (name, system, model, wl, size, _) in enumerate(cmp_runs):
        med = {who: [statistics.median(x[k] for x in meas[(i, who)]) for k in range(4)] for who in ("baseline", "current")}
        (bw, bc, bs, bi), (cw, cc, cs, ci) = med["baseline"], med["current"]
        ratio, wratio = cc / bc if bc > 0 else float("nan"), cw / bw if bw > 0 else float("nan")
        bmi, cmi = bi / bc / 1e6 if bc > 0 else float("nan"), ci / cc / 1e6 if cc > 0 else float("nan")
        up = cmi / bmi if bmi > 0 else float("nan")
        ratios.append(ratio)
        wratios.append(wratio)
        sys_ratios[system].append(ratio)
        rows.append({"run": name, "system": system, "model": model, "workload": wl, "size": size,
                     "sim_instructions": f"{ci:.0f}", "baseline_sim_instructions": f"{bi:.0f}",
                     "baseline_cpu_s": f"{bc:.3f}", "current_cpu_s": f"{cc:.3f}", "ratio": f"{ratio:.3f}",
                     "baseline_wall_s": f"{bw:.3f}", "current_wall_s": f"{cw:.3f}", "wall_ratio": f"{wratio:.3f}",
                     "baseline_sim_s": f"{bs:.3f}", "current_sim_s": f"{cs:.3f}",
                     "baseline_minstr_per_cpu_s": f"{bmi:.3f}", "current_minstr_per_cpu_s": f"{cmi:.3f}",
                     "speedup": f"{up:.3f}",
                     "baseline_all_cpu_s": " ".join(f"{x[1]:.3f}" for x in meas[(i, "baseline")]),
                     "current_all_cpu_s": " ".join(f"{x[1]:.3f}" for x in meas[(i, "current")])})
        print(f"{name:40s} {bc:10.2f} {cc:9.2f} {ratio:6.3f} {wratio:10.3f} {bmi:9.3f} {cmi:8.3f} {up:8.2f}")
    gm, wgm = gmean(ratios), gmean(wratios)
    verdict = ("within 5%" if 0.95 <= gm <= 1.05 else f"slower by {(gm - 1) * 100:.1f}%" if gm > 1
               else f"faster by {(1 / gm - 1) * 100:.0f}% ({1 / gm:.2f}x)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    note = (f"current vs {who_base}: CPU seconds per run, median of {a.reps} interleaved repetitions; "
            f"host load average at the end {load:.1f} on {os.cpu_count()} cores")
    print(f"{'geometric mean (CPU s ratio)':40s} {'':10s} {'':9s} {gm:6.3f} {wgm:10.3f}")
    print(f"verdict: {verdict} ({note})")
    empty = {k: "" for k in rows[0]}
    rows.append(dict(empty, run="geometric_mean", ratio=f"{gm:.3f}", wall_ratio=f"{wgm:.3f}",
                     speedup=f"{1 / gm:.3f}" if gm > 0 else ""))
    rows.append(dict(empty, run="verdict: " + verdict, baseline_all_cpu_s=f"baseline {who_base}, reps {a.reps}",
                     current_all_cpu_s=f"load average {load:.1f} on {os.cpu_count()} cores"))
    write_csv(os.path.join(a.out, "compare.csv"), rows)
    per = ", ".join(f"{k} {1 / gmean(v):.2f}x" for k, v in sys_ratios.items() if v)
    md = [f"Baseline `{who_base}` against the current binary, {a.reps} interleaved repetitions, medians. "
          "CPU s = user + sys seconds of the `persim run` process (start-up included); Mi/s = simulated "
          "instructions (warp instructions on the GPU) per CPU second; speed-up = current Mi/s over the "
          f"baseline's. Verdict: **{verdict}** (geometric mean of the CPU-second ratios {gm:.3f}, of the wall "
          f"ratios {wgm:.3f}; speed-up per system: {per}). {note}." +
          (" With fewer than 3 repetitions on a loaded machine a run's ratio moves by up to ~15% between identical "
           "binaries." if a.reps < 3 else ""), ""]
    md += md_table(rows[:-2], ["run", "sim_instructions", "baseline_cpu_s", "current_cpu_s", "ratio",
                               "baseline_minstr_per_cpu_s", "current_minstr_per_cpu_s", "speedup"])
    report["compare"] = (f"{verdict}; speed-up {per} (compare.csv)", md)
    return 0


def bench_gpu(a, report):
    """The GPU runs once with the current binary: warp instructions per second (gpu.csv)."""
    rows = []
    print(f"\n{'model':6s} {'place':5s} {'workload':10s} {'CPU s':>7s} {'warp-instr':>12s} {'M/sim s':>8s} "
          f"{'M/CPU s':>8s} {'sim us':>10s}")
    for model, place, wl, size in gpu_runs(a):
        out = os.path.join(a.out, "runs", f"{model}-{place}-{wl}")
        cmd = run_cmd(a.persim, a.config, model, place, wl, size, out)
        p, wall, cpu = timed(cmd)
        if p.returncode != 0:
            print("FAILED: " + " ".join(cmd) + "\n" + p.stderr, file=sys.stderr)
            report["gpu"] = (f"FAILED: {model} {wl}", [])
            return 1
        s = summary(out)
        instr, host = sim_instr(s), float(s.get("host_seconds", 0) or 0)
        rows.append({"model": model, "placement": place, "workload": wl, "size": size,
                     "process_seconds": f"{wall:.3f}", "cpu_seconds": f"{cpu:.3f}", "sim_seconds": f"{host:.3f}",
                     "warp_instructions": f"{instr:.0f}",
                     "minstr_per_sim_s": f"{instr / host / 1e6 if host else 0:.3f}",
                     "minstr_per_cpu_s": f"{instr / cpu / 1e6 if cpu else 0:.3f}",
                     "sim_us": f"{float(s.get('sim_ns', 0)) / 1000:.1f}"})
        r = rows[-1]
        print(f"{model:6s} {place:5s} {wl:10s} {cpu:7.2f} {instr:12.0f} {r['minstr_per_sim_s']:>8s} "
              f"{r['minstr_per_cpu_s']:>8s} {r['sim_us']:>10s}")
    tot_i = sum(float(r["warp_instructions"]) for r in rows)
    tot_c = sum(float(r["cpu_seconds"]) for r in rows)
    print(f"total: {tot_i:.0f} warp instructions in {tot_c:.2f} CPU s = {tot_i / tot_c / 1e6:.2f} M warp-instr/s")
    write_csv(os.path.join(a.out, "gpu.csv"), rows)
    a.gpu_rows = rows
    md = ["The GPU runs (SBRP Table 1 config) once with the current binary: warp instructions per second of "
          "the simulation (its own `host_seconds`, wall time) and per CPU second of the whole process.", ""]
    md += md_table(rows, ["model", "placement", "workload", "size", "cpu_seconds", "warp_instructions",
                          "minstr_per_sim_s", "minstr_per_cpu_s"])
    report["gpu"] = (f"{tot_i / tot_c / 1e6:.2f} M warp-instructions per CPU second over {len(rows)} runs (gpu.csv)", md)
    return 0


def bench_cosim(a, report):
    """RTL co-simulation cycles per second per block and preset (cosim.csv): build/tb/cosim_bench, or
    tb/cosim_bench.py over the built testbenches; skipped with a note when neither gives numbers."""
    build = os.path.dirname(os.path.abspath(a.persim))
    exe = os.path.join(build, "tb", "cosim_bench")
    if os.access(exe, os.X_OK):
        cmd = [exe]
    elif os.path.exists(os.path.join(REPO, "tb", "cosim_bench.py")):
        cmd = [sys.executable, os.path.join(REPO, "tb", "cosim_bench.py"), "--build", build]
    else:
        note = f"skipped: {os.path.relpath(exe, REPO)} is not built (and no tb/cosim_bench.py)"
        print("\ncosim: " + note)
        report["cosim"] = (note, [note + "."])
        return 0
    print("\ncosim: " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
    i = next((k for k, ln in enumerate(lines) if "cycles_per_s" in ln), None)
    rows = list(csv.DictReader(lines[i:])) if i is not None else []
    if not rows:
        note = f"skipped: `{' '.join(cmd)}` gave no numbers (exit {p.returncode}; co-simulation binaries not built?)"
        print("cosim: " + note + "\n" + p.stderr[-1000:])
        report["cosim"] = (note, [note + "."])
        return 0
    write_csv(os.path.join(a.out, "cosim.csv"), rows)
    for r in rows:
        print(f"  {r.get('block', ''):12s} {r.get('preset', ''):16s} {float(r['cycles_per_s']):12.0f} cycles/s")
    worst = min(rows, key=lambda r: float(r["cycles_per_s"]))
    md = ["Cycles per second of each block's random lockstep co-simulation (Verilated RTL against its C core), "
          f"from `{' '.join(os.path.relpath(c, REPO) if os.path.isabs(c) else c for c in cmd)}`. Target: >= 1 M "
          "cycles/s for every block and preset (issue 23).", ""]
    md += md_table(rows, list(rows[0].keys()))
    report["cosim"] = (f"{len(rows)} block presets; slowest {worst.get('block')} {worst.get('preset')} "
                       f"{float(worst['cycles_per_s']) / 1e3:.0f} k cycles/s (cosim.csv)", md)
    return 0


def bench_check(a, report):
    """Cost of `persim run --check` relative to a plain run (target: under 2x the run's time), and of
    `persim crash` at 1000 points on small workloads (target: under a minute). results/bench/check.csv"""
    out = []
    print(f"\n{'check':6s} {'place':5s} {'workload':10s} {'run CPU s':>9s} {'--check':>8s} {'ratio':>6s}")
    for model, place, wl, size in gpu_runs(a):
        plain = os.path.join(a.out, "runs", f"plain-{model}-{place}-{wl}")
        d = os.path.join(a.out, "runs", f"check-{model}-{place}-{wl}")
        p0, _, base = timed(run_cmd(a.persim, a.config, model, place, wl, size, plain))
        cmd = run_cmd(a.persim, a.config, model, place, wl, size, d) + ["--check"]
        p, wall, cpu = timed(cmd)
        if p.returncode != 0 or p0.returncode != 0:
            print("FAILED: " + " ".join(cmd) + "\n" + p.stderr + p0.stderr, file=sys.stderr)
            report["check"] = (f"FAILED: --check {model} {wl}", [])
            return 1
        try:
            chk = json.load(open(os.path.join(d, "stats.json")))["check"]["check_seconds"]
        except (OSError, KeyError, ValueError):
            chk = float("nan")
        out.append({"what": f"run --check {model} {place} {wl} {size}", "cpu_seconds": f"{cpu:.3f}",
                    "plain_run_cpu_seconds": f"{base:.3f}", "ratio": f"{cpu / base if base else 0:.2f}",
                    "check_seconds": f"{chk:.3f}", "points": "", "target": "ratio < 2"})
        print(f"{model:6s} {place:5s} {wl:10s} {base:9.2f} {cpu:8.2f} {cpu / base if base else 0:6.2f}")
    small = os.path.join(REPO, "configs", "gpu_small.json")
    for model, wl, size, points in CRASH_RUNS:
        cmd = [a.persim, "crash", "--config", small, "--model", model, "--workload", wl, "--size", size,
               "--points", points]
        p, wall, cpu = timed(cmd)
        if p.returncode != 0:
            print("FAILED: " + " ".join(cmd) + "\n" + p.stdout + p.stderr, file=sys.stderr)
            report["check"] = (f"FAILED: crash {model} {wl}", [])
            return 1
        out.append({"what": f"crash {model} {wl} {size} --points {points}", "cpu_seconds": f"{cpu:.3f}",
                    "plain_run_cpu_seconds": "", "ratio": "", "check_seconds": "", "points": points,
                    "target": "< 60 s"})
        print(f"crash {model} {wl} {size}: {points} points in {cpu:.1f} CPU s ({wall:.1f} s wall; target: under 60 s)")
    write_csv(os.path.join(a.out, "check.csv"), out)
    ratios = [float(r["ratio"]) for r in out if r["ratio"]]
    crash = [float(r["cpu_seconds"]) for r in out if r["points"]]
    md = ["`persim run --check` against the same plain run (CPU seconds of each process; target: under 2x), "
          "and `persim crash` at 1000 crash points on the small GPU (target: under 60 s each).", ""]
    md += md_table(out, ["what", "plain_run_cpu_seconds", "cpu_seconds", "ratio", "check_seconds", "target"])
    report["check"] = (f"--check {min(ratios):.2f}-{max(ratios):.2f}x a plain run; crash 1000 points "
                       f"{min(crash):.1f}-{max(crash):.1f} CPU s (check.csv)", md)
    return 0


def bench_device(a, report):
    """CPU seconds of the same runs on the bank device and on the Optane-class device, interleaved
    (a.reps each), medians and ratio (target: <= 1.2x). results/bench/device.csv"""
    out = []
    print(f"\n{'device':8s} {'model':8s} {'workload':18s} {'bank CPU s':>10s} {'pm_dimm':>8s} {'ratio':>6s}")
    for config, model, wl, size, dimms in DEVICE_RUNS:
        tag = f"{model}-{wl}-{size}"
        base = [a.persim, "run", "--config", os.path.join(REPO, config), "--model", model, "--workload", wl,
                "--size", size, "--quiet"]
        dev = ["--config", os.path.join(REPO, OPTANE), "--set", f"nvm.dimms={dimms}"]
        t = {"bank": [], "pm_dimm": []}
        for rep in range(a.reps):
            for kind in ("bank", "pm_dimm"):
                cmd = base + (dev if kind == "pm_dimm" else []) + ["--out", os.path.join(a.out, "runs", f"device-{kind}-{tag}")]
                p, _, cpu = timed(cmd)
                if p.returncode != 0:
                    print("FAILED: " + " ".join(cmd) + "\n" + p.stderr, file=sys.stderr)
                    report["device"] = (f"FAILED: {kind} {tag}", [])
                    return 1
                t[kind].append(cpu)
        b, d = statistics.median(t["bank"]), statistics.median(t["pm_dimm"])
        r = d / b if b else float("nan")
        out.append({"run": f"{os.path.basename(config)} {model} {wl} {size}", "nvm_dimms": dimms,
                    "bank_cpu_seconds": f"{b:.3f}", "pm_dimm_cpu_seconds": f"{d:.3f}", "ratio": f"{r:.3f}",
                    "target": "<= 1.2"})
        print(f"{'':8s} {model:8s} {wl:18s} {b:10.2f} {d:8.2f} {r:6.2f}")
    write_csv(os.path.join(a.out, "device.csv"), out)
    ratios = [float(r["ratio"]) for r in out]
    worst = max(ratios)
    md = ["The same runs on the bank device (`nvm.device = bank`, the configuration as it is) and on the "
          "Optane-class device (`--config configs/nvm_optane_dcpmm.json`, `nvm.dimms` keeping the configuration's "
          f"write bandwidth): median CPU seconds of {a.reps} interleaved repetitions each; target: at most 1.2x "
          f"(issue 24). Geometric mean {gmean(ratios):.2f}x, worst {worst:.2f}x: "
          + ("within the target." if worst <= 1.2 else "**over the target**."), ""]
    md += md_table(out, ["run", "nvm_dimms", "bank_cpu_seconds", "pm_dimm_cpu_seconds", "ratio", "target"])
    report["device"] = (f"pm_dimm / bank device: {gmean(ratios):.2f}x geomean, worst {worst:.2f}x (device.csv)", md)
    return 0


def bench_figures(a, report):
    """`make figures-all`'s wall time from its record (results/figures-all.json); never reruns it."""
    path = a.figures_record if os.path.isabs(a.figures_record) else os.path.join(REPO, a.figures_record)
    try:
        r = json.load(open(path))
    except (OSError, ValueError):
        note = f"no record: {os.path.relpath(path, REPO)} is missing (run `make figures-all`)"
        # the estimate `make figures-all-plan` prints (counts points, reads their last host seconds; runs nothing)
        p = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "figures_all.py"), "--persim",
                            os.path.abspath(a.persim), "--dry-run", "-j", "2"], capture_output=True, text=True, cwd=REPO)
        tot = [ln for ln in p.stderr.splitlines() if ln.startswith("total")]
        if p.returncode == 0 and tot:
            f = tot[-1].split()
            note += (f"; `make figures-all-plan`: {f[2]} of {f[1]} points to run, {f[3]} of run time by the points' last run "
                     f"times, {' '.join(f[4:]).strip('()')}")
        print("\nfigures-all: " + note)
        report["figures"] = (note, [note + "."])
        return 0
    evs = r.get("evaluations", {})
    rows = [{"evaluation": k, "status": e.get("status"), "wall_s": e.get("wall_s"), "cpu_s": e.get("cpu_s", ""),
             "points": e.get("points"),
             "points_run": e.get("points_run"), "tier": e.get("tier"), "jobs": e.get("jobs"), "date": e.get("date")}
            for k, e in evs.items()]
    full = r.get("all_points_run_in_last_pass", False)
    total = r.get("sum_eval_wall_s", sum(float(x["wall_s"] or 0) for x in rows))
    rows.append({"evaluation": "total", "status": "", "wall_s": total, "cpu_s": r.get("sum_eval_cpu_s", ""),
                 "points": sum(x["points"] or 0 for x in rows),
                 "points_run": sum(x["points_run"] or 0 for x in rows), "tier": "", "jobs": "", "date": ""})
    write_csv(os.path.join(a.out, "figures.csv"), rows)
    what = "every point run" if full else "some points were done already: a full run takes longer"
    line = f"{total / 60:.1f} min wall over {len(evs)} evaluations ({what}; target: under 15 min on 2 cores)"
    print("\nfigures-all: " + line)
    md = [f"From `{os.path.relpath(path, REPO)}` (written by `make figures-all`; not rerun here): each "
          f"evaluation's last wall time and the points it ran. Total {total / 60:.1f} min ({what}); target: "
          "under 15 minutes on 2 cores at the quick tier.", ""]
    md += md_table(rows, ["evaluation", "status", "wall_s", "cpu_s", "points", "points_run", "tier", "jobs", "date"])
    report["figures"] = (line + " (figures.csv)", md)
    return 0


def count_instructions(tool, cmd, tmp):
    """Host instructions executed by cmd (user space): perf stat or callgrind. None if it failed."""
    if tool == "perf":
        p = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u"] + cmd, capture_output=True, text=True)
        for ln in p.stderr.splitlines():
            f = ln.split(",")
            if len(f) > 2 and f[2].startswith("instructions") and f[0].isdigit():
                return int(f[0])
        return None
    outf = os.path.join(tmp, "callgrind.out")
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + outf] + cmd,
                       capture_output=True, text=True)
    m = re.search(r"Collected\s*:\s*(\d+)", p.stderr)
    return int(m.group(1)) if p.returncode == 0 and m else None


def bench_instructions(a, report):
    """Host instructions per simulated instruction (load-independent): each INSTR_RUNS run at two sizes
    under callgrind (or perf stat where it counts); marginal = extra host instructions over extra
    simulated instructions (start-up cancels), total = at the larger size. instructions.csv"""
    tool = "perf"
    probe = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "true"], capture_output=True, text=True)
    if probe.returncode != 0 or "<not supported>" in probe.stderr or "<not counted>" in probe.stderr:
        tool = "callgrind"
        if not shutil.which("valgrind"):
            note = "skipped: neither perf stat (instructions) nor valgrind is available"
            report["instructions"] = (note, [note + "."])
            return 0
    print(f"\nhost instructions per simulated instruction ({tool}; slow) ...", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="persim-instr-") as tmp:
        for system, config, model, wl, s1, s2 in INSTR_RUNS:
            if not re.search(a.runs, f"{system}-{model}-{wl}"):
                continue
            got = []
            for size in (s1, s2):
                out = os.path.join(tmp, "run")
                cmd = [os.path.abspath(a.persim), "run", "--config", os.path.join(REPO, config), "--model", model,
                       "--workload", wl, "--size", size, "--out", out, "--quiet"]
                host = count_instructions(tool, cmd, tmp)
                got.append((host, sim_instr(summary(out))))
            (h1, n1), (h2, n2) = got
            if h1 is None or h2 is None or not (n2 > n1):
                print(f"  {system} {model} {wl}: FAILED to count", file=sys.stderr)
                continue
            marg, tot = (h2 - h1) / (n2 - n1), h2 / n2
            rows.append({"system": system, "config": os.path.basename(config), "model": model, "workload": wl,
                         "sizes": f"{s1} {s2}", "sim_instructions": f"{n1:.0f} {n2:.0f}",
                         "host_instructions": f"{h1} {h2}", "marginal_per_sim_instr": f"{marg:.0f}",
                         "total_per_sim_instr": f"{tot:.0f}", "tool": tool})
            print(f"  {system} {model:8s} {wl:16s} marginal {marg:8.0f}  total {tot:8.0f} host instr / sim instr",
                  flush=True)
    if not rows:
        report["instructions"] = ("FAILED: nothing counted", [])
        return 1
    write_csv(os.path.join(a.out, "instructions.csv"), rows)
    md = [f"Host instructions per simulated instruction ({tool}, user space; load-independent). Each run at two "
          "sizes: marginal = the difference in host instructions over the difference in simulated instructions "
          "(start-up and set-up cancel), total = at the larger size. Target under lightwsp: <= 600 (issue 23).", ""]
    md += md_table(rows, ["system", "model", "workload", "sizes", "marginal_per_sim_instr", "total_per_sim_instr"])
    lw = [r for r in rows if r["model"] == "lightwsp"]
    report["instructions"] = ((f"lightwsp {lw[0]['marginal_per_sim_instr']} host instructions per simulated one "
                               "(marginal); " if lw else "") + f"{len(rows)} runs (instructions.csv)", md)
    return 0


def figures_rerun(a, report):
    """Wall time of regenerating every SBRP figure (scripts/sbrp_figures.py) with every point rerun,
    into a scratch directory so results/sbrp/ is left alone (sbrp_rerun.csv)."""
    with tempfile.TemporaryDirectory(prefix="persim-figures-") as tmp:
        cmd = [sys.executable, os.path.join(REPO, "scripts", "sbrp_figures.py"),
               "--persim", a.persim, "--out", tmp, "--force", "-j", str(a.jobs)]
        print(f"\nSBRP figures (all points rerun, -j {a.jobs}) ...", flush=True)
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
        report["sbrp-rerun"] = ("FAILED", [])
        return 1
    print(f"SBRP figures: {runs} runs in {wall:.1f} s wall with -j {a.jobs}")
    rows = [{"what": "sbrp_figures.py --force (all points rerun)", "runs": runs, "jobs": a.jobs,
             "wall_seconds": f"{wall:.1f}"}]
    write_csv(os.path.join(a.out, "sbrp_rerun.csv"), rows)
    report["sbrp-rerun"] = (f"{runs} runs in {wall:.0f} s wall at -j {a.jobs} (sbrp_rerun.csv)", md_table(rows, list(rows[0])))
    return 0


TITLES = {"compare": "Before/after: seconds and simulated instructions per second, per run",
          "gpu": "GPU: warp instructions per second", "cosim": "RTL co-simulation: cycles per second",
          "check": "`--check` and `crash` overheads", "figures": "`make figures-all` wall time",
          "instructions": "Host instructions per simulated instruction (callgrind)",
          "sbrp-rerun": "SBRP figures rerun from scratch"}


def earlier_readme(path):
    """(side-by-side rows {title: result}, sections {title: lines}) of an earlier README ({} {} if none)."""
    rows, secs, cur = {}, {}, None
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return rows, secs
    for ln in lines:
        if ln.startswith("## "):
            cur = ln[3:].strip()
            secs[cur] = []
            continue
        if cur == "Side by side" and ln.startswith("| ") and not ln.startswith("| part |"):
            cells = [c.strip() for c in ln.strip().strip("|").split(" | ")]
            if len(cells) == 2:
                rows[cells[0]] = cells[1]
        elif cur is not None:
            secs[cur].append(ln)
    return rows, secs


def write_readme(a, report):
    """results/bench/README.md: the side-by-side summary and a section per part. Parts run this time
    replace theirs; the other parts of an earlier README are kept, marked as from an earlier run (their
    CSVs are the earlier run's too)."""
    path = os.path.join(a.out, "README.md")
    old_rows, old_secs = earlier_readme(path)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    git = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True, cwd=REPO).stdout.strip()
    date = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    L = ["# persim simulation speed (`make bench`)", "",
         f"Last written by `scripts/bench.py` at commit `{git}`, {date}, on {os.cpu_count()} cores with load average "
         f"{load:.1f} at the end (the machine is shared: CPU seconds and instruction counts compare; wall seconds "
         "only within one interleaved run). One CSV per part in this directory; a part marked *earlier run* was not "
         "rerun then.", "", "## Side by side", "", "| part | result |", "|---|---|"]
    now = {TITLES.get(part, part): (line, md) for part, (line, md) in report.items()}
    order = [TITLES[k] for k in TITLES] + [t for t in list(old_rows) + list(now) if t not in TITLES.values()]
    kept = []
    for t in dict.fromkeys(order):
        if t in now:
            L.append(f"| {t} | {now[t][0]} |")
        elif t in old_rows:
            r = old_rows[t]
            L.append(f"| {t} | {r if r.startswith('*earlier run*') else '*earlier run*: ' + r} |")
            kept.append(t)
    L += ["", "What the numbers show: the compare part says whether the current tree simulates faster than the "
          "baseline on the same runs (speed-up > 1 is faster; the cpu rows are the LightWSP and BROI models on "
          "their workloads, the GPU rows SBRP's); the GPU and co-simulation parts give absolute rates of the current "
          "tree; check gives the cost of the functional checker and of crash testing; figures the time of every "
          "paper's evaluation in one command; instructions (when run) the load-independent cost per simulated "
          "instruction that the issue's targets are stated in.", ""]
    for t in dict.fromkeys(order):
        if t in now and now[t][1]:
            L += [f"## {t}", ""] + now[t][1] + [""]
        elif t in kept and t in old_secs:
            body = old_secs[t]
            while body and not body[-1].strip():
                body = body[:-1]
            L += [f"## {t}"] + body + [""]
    with open(path, "w") as f:
        f.write("\n".join(L))


if __name__ == "__main__":
    sys.exit(main())
