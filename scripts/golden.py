#!/usr/bin/env python3
"""Golden stats: record every numeric figure of every stats.json group for a fixed list of
`persim run` points, and compare a persim binary against them. Two sets: the GPU system
(--kind gpu, the default: tests/golden/points.json -> gpu_stats.json) and the cpu system
(--kind cpu: tests/golden/cpu_points.json -> cpu_stats.json).

  scripts/golden.py --record  [--kind cpu] [--persim build/persim]      # writes the golden file
  scripts/golden.py --compare [--kind cpu] [--persim build/persim] -j 2 # exit 1 on ANY difference
  scripts/golden.py --make-points [--kind cpu]                          # rebuilds the point list

A figure is "group/key" (nested values, e.g. the check group's requirements, flatten to
"group/key/sub" and "group/key[i]/sub"); only numbers and booleans are kept, strings (run.status,
run.persim_version, ...) are not, except that each point's exit status is recorded as "_exit".
Host-time figures are left out: {value, unit, desc} figures with unit "s" whose description says
"host" (summary/host_seconds) or a rate "per host second" (summary/sim_speed), and the host timings
of the check and crash groups (check/check_seconds, crash/seconds). Floats are rounded to 12
significant digits (integer-valued floats are stored as integers); the comparison is exact after
that rounding. Missing and new figures are differences too. See docs/testing.md.

--rename OLD=NEW (repeatable) maps golden group names starting with OLD to NEW before comparing,
for an intentional rename of SystemC instances (e.g. --rename top.nvm0=top.mem.nvm0).
--set KEY=VALUE (repeatable) is appended to every point's command line: a way to check that the
comparison fails when a figure changes (e.g. --set nvm.write_latency_ns=301)."""
import argparse
import concurrent.futures as cf
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POINTS = os.path.join(ROOT, "tests", "golden", "points.json")
GOLDEN = os.path.join(ROOT, "tests", "golden", "gpu_stats.json")
FILES = {"gpu": (POINTS, GOLDEN),
         "cpu": (os.path.join(ROOT, "tests", "golden", "cpu_points.json"),
                 os.path.join(ROOT, "tests", "golden", "cpu_stats.json"))}

# Host-time figures of the groups that are plain values (not {value, unit, description}).
HOST_PLAIN = {("check", "check_seconds"), ("crash", "seconds")}


def is_host_time(unit, desc):
    """A {value, unit, desc} figure measured in host time: unit seconds and a description that says
    "host" (simulated times are in ns or cycles), or a rate "per host second". 'bytes sent GPU ->
    host over PCIe' (unit B) is a simulated figure and stays."""
    d = (desc or "").lower()
    u = unit or ""
    return (u == "s" and "host" in d) or (u.endswith("/s") and "host second" in d)


EXCLUDED = set()   # figures left out as host time (printed by --record)


def rnd(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return str(v)
        if v == int(v) and abs(v) < 2 ** 53:
            return int(v)   # 3.0 and 3 are one figure: JSON writers differ on that, figures do not
        return float(f"{v:.12g}")
    return v


def flatten(stats):
    """stats.json -> {"group/key": value} (numbers and booleans only, host time left out)."""
    out = {}

    def walk(prefix, group, key, v):
        if isinstance(v, dict):
            if "value" in v and ("unit" in v or "desc" in v or "description" in v):
                if is_host_time(v.get("unit"), v.get("desc", v.get("description"))):
                    EXCLUDED.add(prefix)
                    return
                walk(prefix, group, key, v["value"])
                return
            for k2, v2 in v.items():
                walk(f"{prefix}/{k2}", group, k2, v2)
        elif isinstance(v, list):
            for i, v2 in enumerate(v):
                walk(f"{prefix}[{i}]", group, key, v2)
        elif isinstance(v, (bool, int, float)):
            if (group, key) in HOST_PLAIN:
                EXCLUDED.add(prefix)
                return
            out[prefix] = rnd(v)

    for g, grp in stats.items():
        if isinstance(grp, dict):
            for k, v in grp.items():
                walk(f"{g}/{k}", g, k, v)
        else:
            walk(g, g, "", grp)
    return out


def load_points(path):
    with open(path) as f:
        return json.load(f)


def run_point(persim, pt, extra_sets, tmp):
    out = os.path.join(tmp, pt["name"])
    cmd = [persim, "run"] + pt["args"] + ["--out", out, "--csv", os.path.join(tmp, "runs.csv"), "--quiet"]
    for kv in extra_sets:
        cmd += ["--set", kv]
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    secs = time.time() - t0
    fig = {}
    sp = os.path.join(out, "stats.json")
    if os.path.exists(sp):
        with open(sp) as f:
            fig = flatten(json.load(f))
    fig["_exit"] = p.returncode
    return pt["name"], fig, secs, cmd, p


def run_all(persim, points, jobs, extra_sets, quiet=False):
    res = {}
    logs = {}
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="persim-golden-") as tmp:
        # longest first (the paper-size demo points), so -j keeps the cores busy to the end
        order = sorted(points, key=lambda p: -p.get("weight", 1))
        with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
            futs = [ex.submit(run_point, persim, pt, extra_sets, tmp) for pt in order]
            for n, fu in enumerate(cf.as_completed(futs), 1):
                name, fig, secs, cmd, p = fu.result()
                res[name] = fig
                logs[name] = (cmd, p)
                if not quiet:
                    print(f"  [{n}/{len(points)}] {name:44s} exit {p.returncode}  {secs:5.1f} s"
                          f"  ({time.time()-t0:5.1f} s)", flush=True)
    return res, logs, time.time() - t0


def apply_rename(fig, renames):
    if not renames:
        return fig
    out = {}
    for k, v in fig.items():
        for old, new in renames:
            if k.startswith(old):
                k = new + k[len(old):]
                break
        out[k] = v
    return out


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", action="store_true", help="run every point, write the golden file")
    mode.add_argument("--compare", action="store_true", help="run every point, report every difference")
    mode.add_argument("--make-points", action="store_true", help="write the point list (tries each candidate)")
    ap.add_argument("--persim", default=os.path.join(ROOT, "build", "persim"))
    ap.add_argument("--kind", choices=sorted(FILES), default="gpu",
                    help="which point set: the GPU system (default) or the cpu system")
    ap.add_argument("--points", default=None, help="point list (default: the --kind's)")
    ap.add_argument("--golden", default=None, help="golden file (default: the --kind's)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", default="", help="regex: only the points whose name matches")
    ap.add_argument("--rename", action="append", default=[], metavar="OLD=NEW",
                    help="prefix rename of golden group names before comparing (repeatable)")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="appended to every point's command line (to show that a change is caught)")
    ap.add_argument("--expect-differ", action="store_true",
                    help="with --compare and --set: succeed only if figures differ (the test of the test)")
    ap.add_argument("--max-report", type=int, default=0, help="cap the differences printed (0: all)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no per-point progress lines")
    a = ap.parse_args()
    persim = os.path.abspath(a.persim)
    a.points = a.points or FILES[a.kind][0]
    a.golden = a.golden or FILES[a.kind][1]

    if a.make_points:
        return (make_cpu_points if a.kind == "cpu" else make_points)(persim, a)

    spec = load_points(a.points)
    points = spec["points"]
    if a.only:
        points = [p for p in points if re.search(a.only, p["name"])]
    if a.record and (a.only or a.sets or a.rename):
        sys.exit("golden: --record takes no --only/--set/--rename (the golden file holds every point as listed)")
    print(f"golden: {len(points)} points, {a.jobs} at a time, {persim}", flush=True)
    res, logs, secs = run_all(persim, points, a.jobs, a.sets, a.quiet)

    if a.record:
        bad = [n for n, f in res.items() if f["_exit"] != 0]
        for n in bad:
            cmd, p = logs[n]
            print(f"golden: point {n} exited {p.returncode}: {' '.join(cmd)}\n{p.stdout}{p.stderr}", file=sys.stderr)
        if bad:
            print("golden: not recorded (every listed point must run; move failing ones to \"skipped\")", file=sys.stderr)
            return 1
        ver = subprocess.run([persim, "--version"], capture_output=True, text=True).stdout.strip()
        doc = {"_about": f"scripts/golden.py --record --kind {a.kind}: every numeric figure of every stats.json group per point of "
                         "tests/golden/points.json (host time left out, floats to 12 significant digits)",
               "persim_version": ver,
               "points": {p["name"]: dict(sorted(res[p["name"]].items())) for p in spec["points"]}}
        os.makedirs(os.path.dirname(a.golden), exist_ok=True)
        with open(a.golden, "w") as f:
            # compact, one line per stats group of a point: small enough, and diffs stay readable
            f.write("{\n")
            f.write(f' "_about": {json.dumps(doc["_about"])},\n "persim_version": {json.dumps(ver)},\n "points": {{\n')
            names = list(doc["points"])
            for i, n in enumerate(names):
                f.write(f"  {json.dumps(n)}: {{\n")
                lines = {}
                for k, v in doc["points"][n].items():
                    lines.setdefault(k.split("/", 1)[0], []).append(f"{json.dumps(k)}:{json.dumps(v)}")
                f.write(",\n".join("   " + ",".join(items) for items in lines.values()) + "\n")
                f.write("  }" + ("," if i + 1 < len(names) else "") + "\n")
            f.write(" }\n}\n")
        nfig = sum(len(v) for v in doc["points"].values())
        print(f"golden: left out as host time: {', '.join(sorted(EXCLUDED))}")
        print(f"golden: recorded {len(names)} points, {nfig} figures in {a.golden} "
              f"({os.path.getsize(a.golden)/1e6:.2f} MB), {secs:.1f} s")
        return 0

    # --compare
    with open(a.golden) as f:
        gold = json.load(f)["points"]
    renames = []
    for r in a.rename:
        if "=" not in r:
            sys.exit(f"golden: --rename expects OLD=NEW, got '{r}'")
        renames.append(tuple(r.split("=", 1)))
    diffs = []   # (point, key, golden, now)
    names = [p["name"] for p in points]
    if not a.only:
        for n in gold:
            if n not in names:
                diffs.append((n, "(point)", "recorded", "not in points.json"))
        for n in names:
            if n not in gold:
                diffs.append((n, "(point)", "not recorded", "in points.json"))
    for n in names:
        if n not in gold:
            continue
        g = apply_rename(gold[n], renames)
        now = res[n]
        for k in sorted(set(g) | set(now)):
            if k not in now:
                diffs.append((n, k, g[k], "(missing)"))
            elif k not in g:
                diffs.append((n, k, "(new)", now[k]))
            elif not same(g[k], now[k]):
                diffs.append((n, k, g[k], now[k]))
    bad_runs = [n for n in names if res[n]["_exit"] != 0]
    for n in bad_runs:
        cmd, p = logs[n]
        tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-5:])
        print(f"golden: point {n} exited {p.returncode}: {' '.join(cmd)}\n{tail}")
    if diffs:
        pts = sorted({d[0] for d in diffs})
        print(f"golden: {len(diffs)} differing figures in {len(pts)} of {len(names)} points "
              f"(point  group/key  golden -> now):")
        shown = diffs if a.max_report <= 0 else diffs[:a.max_report]
        for n, k, g, v in shown:
            print(f"  {n}  {k}  {g} -> {v}")
        if len(shown) < len(diffs):
            print(f"  ... {len(diffs) - len(shown)} more (--max-report 0 prints all)")
        if a.expect_differ:
            print(f"golden: figures differ, as expected with {' '.join(a.sets)} ({secs:.1f} s)")
            return 0
        print(f"golden: FAIL ({secs:.1f} s)")
        return 1
    if a.expect_differ:
        print(f"golden: FAIL: no figure changed with {' '.join(a.sets)}: the golden comparison would not catch it")
        return 1
    nfig = sum(len(res[n]) for n in names)
    print(f"golden: OK, {len(names)} points, {nfig} figures equal to {os.path.relpath(a.golden, ROOT)} ({secs:.1f} s)")
    return 0


# ---------------------------------------------------------------------------------------------
# The point list (tests/golden/points.json). Written by --make-points, which tries each candidate
# with the given binary and lists the ones that do not run under "skipped" with the reason.
DEMO_SYSTEMS = [("epoch-far", "epoch", "far"), ("gpm-far", "gpm", "far"), ("sbrp-far", "sbrp", "far"),
                ("epoch-near", "epoch", "near"), ("sbrp-near", "sbrp", "near")]
DEMO_WORKLOADS = ["gpkvs", "hm", "srad", "reduction", "mq", "scan"]
MODELS = ["epoch", "gpm", "sbrp", "nvwfifo"]
PLACEMENTS = ["near", "far"]
SMALL = "configs/gpu_small.json"


def list_workloads(persim, prefix=None):
    """The workload names of `persim list workloads` (those starting with one of prefix, if given)."""
    out = subprocess.run([persim, "list", "workloads"], capture_output=True, text=True, check=True).stdout
    wls = []
    for line in out.splitlines()[2:]:
        if line.strip().startswith("variants"):
            continue
        w = line.split()
        if w:
            wls.append(w[0])
    return [w for w in wls if prefix is None or any(w.startswith(p) for p in prefix)]


def make_points(persim, a):
    pts = []
    for wl in DEMO_WORKLOADS:
        for label, model, place in DEMO_SYSTEMS:
            pts.append({"name": f"demo/{label}/{wl}", "weight": 20,
                        "args": ["--config", "configs/gpu_sbrp_table1.json", "--model", model, "--workload", wl,
                                 "--size", "default", "--set", f"system.pm_placement={place}"]})
    for wl in list_workloads(persim):
        for model in MODELS:
            for place in PLACEMENTS:
                pts.append({"name": f"small/{model}-{place}/{wl}",
                            "args": ["--config", SMALL, "--model", model, "--workload", wl, "--size", "small",
                                     "--set", f"system.pm_placement={place}"]})
    special = [
        ("special/eadr-far/sbrp/gpkvs", "sbrp", "gpkvs", ["system.pm_placement=far", "system.eadr=true"], []),
        ("special/eadr-far/epoch/mq", "epoch", "mq", ["system.pm_placement=far", "system.eadr=true"], []),
        ("special/nvw-l2-pipelined/nvwfifo/btree-wg", "nvwfifo", "btree-wg",
         ["system.pm_placement=near", "persist.nvw_l2_pipelined=true"], []),
        ("special/nvw-l2-pipelined-far/nvwfifo/hashtable-wi", "nvwfifo", "hashtable-wi",
         ["system.pm_placement=far", "persist.nvw_l2_pipelined=true"], []),
        ("special/pm-in-dram/sbrp/scan", "sbrp", "scan", ["system.pm_in_dram=true"], []),
        ("special/pm-in-dram/nvwfifo/btree-kr", "nvwfifo", "btree-kr", ["system.pm_in_dram=true"], []),
        ("special/nvm-2-controllers/sbrp/srad", "sbrp", "srad", ["nvm.controllers=2"], []),
        ("special/nvm-2-controllers-far/epoch/reduction", "epoch", "reduction",
         ["nvm.controllers=2", "system.pm_placement=far"], []),
        ("special/check/sbrp/mq", "sbrp", "mq", [], ["--check"]),
        # 512 keys: at the small size (8192) the check group lists ~2,500 requirements (1 MB of figures)
        ("special/check/nvwfifo/btree-wg-log-512", "nvwfifo", "btree-wg-log", [], ["--check", "--size", "512"]),
    ]
    for name, model, wl, sets, extra in special:
        args = ["--config", SMALL, "--model", model, "--workload", wl]
        if "--size" not in extra:
            args += ["--size", "small"]
        for kv in sets:
            args += ["--set", kv]
        pts.append({"name": name, "args": args + extra})

    about = ("Points of scripts/golden.py (persim run ARGS, run from the repository root). demo/*: "
             "scripts/demo.py's runs (configs/gpu_sbrp_table1.json, paper sizes); small/MODEL-PLACEMENT/WL: "
             "every workload of `persim list workloads` under every model and placement at the small size "
             "on configs/gpu_small.json; special/*: other paths (eADR, the pipelined L2 NVW-FIFO, PM in "
             "DRAM, two NVM controllers, --check). \"skipped\": candidates that do not run, with the exit "
             "status and persim's message. Regenerate with scripts/golden.py --make-points.")
    return write_points(persim, a, pts, about)


def write_points(persim, a, pts, about):
    """Tries every candidate point, writes the ones that run (exit 0) and the skipped ones."""
    print(f"golden: trying {len(pts)} candidate points", flush=True)
    res, logs, secs = run_all(persim, pts, a.jobs, [], a.quiet)
    keep, skipped = [], []
    for p in pts:
        cmd, pr = logs[p["name"]]
        if pr.returncode == 0:
            keep.append(p)
        else:
            msg = (pr.stdout + pr.stderr).strip().splitlines()
            skipped.append({"name": p["name"], "args": p["args"], "exit": pr.returncode,
                            "why": msg[-1] if msg else ""})
    doc = {"_about": about, "points": keep, "skipped": skipped}
    with open(a.points, "w") as f:
        f.write("{\n" + f' "_about": {json.dumps(doc["_about"])},\n "points": [\n')
        for i, p in enumerate(keep):
            f.write("  " + json.dumps(p) + ("," if i + 1 < len(keep) else "") + "\n")
        f.write(' ],\n "skipped": [\n')
        for i, p in enumerate(skipped):
            f.write("  " + json.dumps(p) + ("," if i + 1 < len(skipped) else "") + "\n")
        f.write(" ]\n}\n")
    print(f"golden: {len(keep)} points, {len(skipped)} skipped -> {a.points} ({secs:.1f} s)")
    for s in skipped:
        print(f"  skipped {s['name']}: exit {s['exit']}: {s['why']}")
    return 0


# The cpu point list (tests/golden/cpu_points.json): every cpu workload under every cpu model at the
# small size, the power-failure sequence, the crash check, BROI's remote clients, the paper configs.
CPU_SMALL = "configs/cpu_small.json"
CPU_BROI = "configs/cpu_broi_table3.json"
CPU_REGION_MODELS = ["none", "lightwsp", "ppa", "capri", "psp", "lightwsp-ungated"]
CPU_BARRIER_MODELS = ["none", "broi", "broi-epoch", "broi-epoch-1q", "broi-nodeps"]
CPU_REMOTE_ONLY = ("broi-ycsb", "broi-memcached", "broi-hashmap", "broi-tpcc", "broi-ctree")   # need RDMA channels


def make_cpu_points(persim, a):
    cpu_wls = list_workloads(persim, prefix=("cpu-", "prof-"))
    broi = [w for w in list_workloads(persim, prefix=("broi-",)) if not re.search(r"-e\d+$", w)]
    broi_local = [w for w in broi if not w.endswith("-hybrid") and w not in CPU_REMOTE_ONLY]
    broi_remote = [w for w in broi if w.endswith("-hybrid") or w in CPU_REMOTE_ONLY]
    pts = []

    def pt(name, cfg, model, wl, size="small", sets=(), extra=()):
        args = ["--config", cfg, "--model", model, "--workload", wl, "--size", size]
        for kv in sets:
            args += ["--set", kv]
        pts.append({"name": name, "args": args + list(extra)})

    for wl in cpu_wls + broi_local:
        for model in CPU_REGION_MODELS:
            pt(f"small/{model}/{wl}", CPU_SMALL, model, wl)
    for wl in broi_local + cpu_wls:
        for model in CPU_BARRIER_MODELS:
            pt(f"broi/{model}/{wl}", CPU_BROI, model, wl)
    for wl in broi_remote:
        for model in ("broi", "broi-epoch", "broi-epoch-1q"):
            for mode in ("sync", "bsp"):
                pt(f"remote/{model}-{mode}/{wl}", CPU_BROI, model, wl,
                   sets=["rdma.channels=2", f"rdma.mode={mode}"])
    # power failure part-way through (the IV-F drain/discard sequence) and the crash check
    for model in ("lightwsp", "ppa", "capri", "lightwsp-ungated", "none"):
        for wl in ("cpu-hashtable", "prof-whisper"):
            pt(f"power-fail/{model}/{wl}", CPU_SMALL, model, wl, sets=["sim.power_fail_ns=15000"])
    for model, cfg, wl in [("lightwsp", CPU_SMALL, "cpu-txbank"), ("lightwsp-ungated", CPU_SMALL, "cpu-queue"),
                           ("broi", CPU_BROI, "broi-hashtable"), ("broi-epoch", CPU_BROI, "broi-hashtable"),
                           ("broi-epoch-1q", CPU_BROI, "broi-hashtable"), ("broi-nodeps", CPU_BROI, "broi-sps")]:
        pt(f"crash-check/{model}/{wl}", cfg, model, wl, sets=["sim.crash_check=true"])
    # the paper configurations at a small size, and the front-end and device keys
    for model in ("none", "lightwsp"):
        pt(f"paper-config/cpu_lightwsp_table1/{model}/cpu-btree", "configs/cpu_lightwsp_table1.json", model, "cpu-btree")
        pt(f"paper-config/cpu_lightwsp_table3_cxl_pmem/{model}/cpu-btree", "configs/cpu_lightwsp_table1.json", model,
           "cpu-btree", extra=["--config", "configs/cpu_lightwsp_table3_cxl_pmem.json"])
    pt("special/nvm-1-controller/lightwsp/cpu-arrayswap", CPU_SMALL, "lightwsp", "cpu-arrayswap",
       sets=["nvm.controllers=1"])
    pt("special/victim-policy/lightwsp/prof-npb", CPU_SMALL, "lightwsp", "prof-npb",
       sets=["persist_path.victim_policy=none"])
    pts.append({"name": "special/trace/lightwsp/pmdk-hashmap-small",
                "args": ["--config", CPU_SMALL, "--model", "lightwsp", "--trace", "results/traces/pmdk-hashmap-small.trace"]})
    pts.append({"name": "special/trace/broi/pmdk-hashmap-small",
                "args": ["--config", CPU_BROI, "--model", "broi", "--trace", "results/traces/pmdk-hashmap-small.trace"]})
    about = ("Points of scripts/golden.py --kind cpu (persim run ARGS, run from the repository root). "
             "small/MODEL/WL: every cpu workload and profile and the local BROI workloads under every region "
             "model at the small size on configs/cpu_small.json; broi/MODEL/WL: the barrier models on "
             "configs/cpu_broi_table3.json; remote/*: BROI's remote clients (2 RDMA channels, sync and bsp); "
             "power-fail/*: sim.power_fail_ns part-way; crash-check/*: sim.crash_check; paper-config/*: the "
             "LightWSP Table I and III configs at the small size; special/*: other keys and recorded traces. "
             "\"skipped\": candidates that do not run, with the exit status and persim's message. "
             "Regenerate with scripts/golden.py --make-points --kind cpu.")
    return write_points(persim, a, pts, about)


if __name__ == "__main__":
    sys.exit(main())
