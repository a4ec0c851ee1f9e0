#!/usr/bin/env python3
"""The LightWSP and BROI headline comparisons on traces of real programs (`make figures-real`).

1. Records the programs with `persim trace-program` (persim-vgtrace, docs/real-programs.md) into
   results/traces/real/ (not committed: regenerated):
     pmdk-hashmap, -queue, -bstree, -rbtree, -btree, -array   programs/pmdk/pmdk_ds, 7 worker threads
         (+ the main thread = 8 CPU threads), libpmemobj transactions on a pool file with
         PMEM_IS_PMEM_FORCE=1, one lock per structure; PM = the pool mapping; recorded window =
         the operations
     pmdk-hashmap-striped   the hash map with 64 stripe locks, each thread on its own keys
         (threads update in parallel)
     redis     `redis-server` with an append-only file fsynced after every write (appendfsync always)
         while redis-benchmark (not traced) sends 3000 SETs; whole-system persistence; a window of
         --redis-instrs instructions after --redis-skip (past the start-up)
     sqlite3   `sqlite3 :memory:` running 200 INSERTs in one transaction and a query (the script of
         scripts/record-real-program.sh); whole-system persistence (every address is PM), a window
         of --max-instrs instructions after --skip-instrs (start-up skipped)
2. Replays every trace under
     LightWSP (Figure 7's comparison, + psp of Figure 9): none, capri, ppa, lightwsp, psp on
         configs/cpu_lightwsp_table1.json
     BROI (Figures 9/10's comparison): broi-epoch, broi on configs/cpu_broi_table3.json
3. Crash-checks every trace (`persim crash`: lightwsp and lightwsp-ungated, broi and broi-nodeps):
   crash.csv (exit status and violations).
4. Writes results/real-programs/lightwsp.csv (slowdown over `none` = sim_ns ratio),
   broi.csv (BROI-mem over Epoch: NVM write bandwidth and throughput = sim_ns ratio), PNGs of both,
   and runs.csv (every run's sim_ns, instructions, nvm_write_bw).

One trace per program: a recording is one execution (its thread interleaving is what Valgrind's
serialised scheduler produced), so there is no seed spread; the numbers are single runs.
The generator-based numbers beside them are read from results/lightwsp/fig7.csv and
results/broi/fig9.csv / fig10.csv (not rerun here).
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict as V  # noqa: E402
import figlib as FL  # noqa: E402
# The papers' numbers these comparisons are read against (quoted, never used by the simulator):
PAPER = {"capri": 1.505, "ppa": 1.081, "lightwsp": 1.090,   # LightWSP V-B: 50.5%, 8.1%, 9.0% overhead over none
         "broi_mem": 1.16, "broi_ops": 1.28}                  # BROI VII-A: +16% memory, +28% operational throughput
LW_MODELS = ["none", "capri", "ppa", "lightwsp", "psp"]
BROI_MODELS = ["broi-epoch", "broi"]
LW_CFG = "configs/cpu_lightwsp_table1.json"
BROI_CFG = "configs/cpu_broi_table3.json"
# persim crash (every distinct durable image of the run checked): exit 0 = no violation, 5 = caught
CRASH = [(LW_CFG, "lightwsp"), (LW_CFG, "lightwsp-ungated"), (BROI_CFG, "broi"), (BROI_CFG, "broi-nodeps")]
PMDK = [("pmdk-hashmap", "hashmap", []), ("pmdk-hashmap-striped", "hashmap", ["-l", "striped"]),
        ("pmdk-queue", "queue", []), ("pmdk-bstree", "bstree", []), ("pmdk-rbtree", "rbtree", []),
        ("pmdk-btree", "btree", []), ("pmdk-array", "array", [])]

SQL = ["CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);", "BEGIN;"] + \
      ["INSERT INTO t(k, v) VALUES (%d, 'row-%d');" % ((i * 7919) % 1000, i) for i in range(1, 201)] + \
      ["COMMIT;", "SELECT count(*), sum(k), max(v) FROM t WHERE k > 500;"]


def log(msg):
    print("real_programs: " + msg, file=sys.stderr, flush=True)


def record(persim, build, out_dir, ops, threads, sqlite_window, redis_window, force):
    """Records every program; returns [(name, trace path, summary text)]."""
    os.makedirs(out_dir, exist_ok=True)
    traces = []
    pmdk_ds = os.path.join(build, "programs", "pmdk_ds")
    for name, ds, extra in PMDK:
        if not os.path.exists(pmdk_ds):
            log("%s skipped: %s not built (libpmemobj-dev missing)" % (name, pmdk_ds))
            continue
        tr = os.path.join(out_dir, name + ".trace")
        if force or not os.path.exists(tr):
            with tempfile.TemporaryDirectory() as tmp:
                cmd = [persim, "trace-program", "--start", "request", "-o", tr, "--raw", os.path.join(tmp, "raw"),
                       "--env", "PMEM_IS_PMEM_FORCE=1", "--", pmdk_ds, ds, os.path.join(tmp, "pool"),
                       "-n", str(ops), "-t", str(threads)] + extra
                log(" ".join(cmd))
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit("real_programs: recording %s failed:\n%s" % (name, r.stderr))
                open(tr + ".summary", "w").write(r.stderr)
        traces.append((name, tr))
    if subprocess.run(["sh", "-c", "command -v sqlite3"], capture_output=True).returncode == 0:
        tr = os.path.join(out_dir, "sqlite3.trace")
        if force or not os.path.exists(tr):
            with tempfile.TemporaryDirectory() as tmp:
                sql = os.path.join(tmp, "s.sql")
                open(sql, "w").write("\n".join(SQL) + "\n")
                skip, n = sqlite_window
                cmd = [persim, "trace-program", "--skip-instrs", str(skip), "--max-instrs", str(n), "-o", tr,
                       "--raw", os.path.join(tmp, "raw"), "--", "sqlite3", "-init", sql, ":memory:", ".quit"]
                log(" ".join(cmd))
                r = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
                if r.returncode != 0:
                    sys.exit("real_programs: recording sqlite3 failed:\n%s" % r.stderr)
                open(tr + ".summary", "w").write(r.stderr)
        traces.append(("sqlite3", tr))
    else:
        log("sqlite3 skipped: not installed")
    if all(subprocess.run(["sh", "-c", "command -v " + c], capture_output=True).returncode == 0
           for c in ("redis-server", "redis-cli", "redis-benchmark")):
        tr = os.path.join(out_dir, "redis.trace")
        if force or not os.path.exists(tr):
            record_redis(persim, tr, redis_window)
        traces.append(("redis", tr))
    else:
        log("redis skipped: redis-server / redis-tools not installed")
    return traces


def record_redis(persim, tr, window, port=6399, requests=3000):
    """redis-server with an append-only file fsynced at every write, under the tool, while
    redis-benchmark sends SETs from outside (not traced); the window skips the start-up."""
    skip, n = window
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [persim, "trace-program", "--skip-instrs", str(skip), "--max-instrs", str(n), "-o", tr,
               "--raw", os.path.join(tmp, "raw"), "--", "redis-server", "--port", str(port), "--save", "",
               "--appendonly", "yes", "--appendfsync", "always", "--dir", tmp]
        log(" ".join(cmd))
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        cli = ["redis-cli", "-p", str(port)]
        for _ in range(120):
            if subprocess.run(cli + ["ping"], capture_output=True, text=True).stdout.strip() == "PONG":
                break
            time.sleep(0.5)
        else:
            p.kill()
            sys.exit("real_programs: redis-server did not come up under the tool")
        subprocess.run(["redis-benchmark", "-p", str(port), "-n", str(requests), "-c", "1", "-t", "set", "-q"],
                       capture_output=True)
        subprocess.run(cli + ["shutdown", "nosave"], capture_output=True)
        out, err = p.communicate(timeout=300)
        if p.returncode != 0:
            sys.exit("real_programs: recording redis failed:\n%s" % err)
        open(tr + ".summary", "w").write(err)


def run(persim, cfg, model, trace, out):
    """One `persim run`; returns its CSV row (dict)."""
    csv_path = out + ".csv"
    if os.path.exists(csv_path):
        os.unlink(csv_path)
    shutil.rmtree(out, ignore_errors=True)   # a rerun replaces this script's own run (persim run keeps results)
    cmd = [persim, "run", "--config", cfg, "--model", model, "--trace", trace, "--quiet", "--out", out, "--csv", csv_path]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("real_programs: %s failed (exit %d):\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    rows = list(csv.DictReader(open(csv_path)))
    row = rows[-1]
    row["host_s"] = "%.1f" % (time.time() - t0)
    return row


read_csv, gmean = FL.read_sweep, FL.geomean   # a CSV's rows ([] if none); geomean of the positive values


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--persim", default=os.path.join(ROOT, "build", "persim"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "real-programs"))
    ap.add_argument("--traces", default=os.path.join(ROOT, "results", "traces", "real"))
    ap.add_argument("--ops", type=int, default=2000, help="operations per PMDK program (default 2000)")
    ap.add_argument("--threads", type=int, default=7, help="PMDK worker threads (default 7; + main = 8 CPU threads)")
    ap.add_argument("--sqlite-skip", type=int, default=2500000, help="sqlite3: instructions skipped (start-up)")
    ap.add_argument("--sqlite-instrs", type=int, default=1000000, help="sqlite3: instructions recorded")
    ap.add_argument("--redis-skip", type=int, default=27000000,
                    help="redis: instructions skipped (start-up + shutdown alone are ~26.7 M with valgrind 3.19, redis 7.0)")
    ap.add_argument("--redis-instrs", type=int, default=1000000, help="redis: instructions recorded (during the SETs)")
    ap.add_argument("--force", action="store_true", help="re-record the traces and rerun every point")
    args = ap.parse_args()
    persim = os.path.abspath(args.persim)
    build = os.path.dirname(persim)
    os.chdir(ROOT)
    t0 = time.time()
    traces = record(persim, build, args.traces, args.ops, args.threads, (args.sqlite_skip, args.sqlite_instrs),
                    (args.redis_skip, args.redis_instrs), args.force)
    if not traces:
        sys.exit("real_programs: no trace recorded (persim-vgtrace, libpmemobj-dev or sqlite3 missing)")
    os.makedirs(os.path.join(args.out, "runs"), exist_ok=True)
    rows = []
    for name, tr in traces:
        for cfg, models in ((LW_CFG, LW_MODELS), (BROI_CFG, BROI_MODELS)):
            for m in models:
                out = os.path.join(args.out, "runs", "%s-%s-%s" % (os.path.splitext(os.path.basename(cfg))[0], m, name))
                log("run %s %s %s" % (name, os.path.basename(cfg), m))
                r = run(persim, cfg, m, tr, out)
                rows.append({"program": name, "config": cfg, "model": m, "sim_ns": r.get("sim_ns"),
                             "instructions": r.get("instructions"), "nvm_write_bw": r.get("nvm_write_bw"),
                             "regions": r.get("regions"), "wpq_overflows": r.get("wpq_overflows"),
                             "barriers": r.get("barriers"), "status": r.get("status"), "host_s": r["host_s"],
                             "persim_git": r.get("persim_git")})
    with open(os.path.join(args.out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    get = {(r["program"], r["model"]): r for r in rows}
    names = [n for n, _ in traces]
    # LightWSP: slowdown over none
    lw = []
    for n in names:
        base = float(get[(n, "none")]["sim_ns"])
        lw.append([n] + [float(get[(n, m)]["sim_ns"]) / base for m in LW_MODELS[1:]])
    lw.append(["geomean"] + [gmean([row[i] for row in lw]) for i in range(1, len(LW_MODELS))])
    FL.write_rows(os.path.join(args.out, "lightwsp.csv"), ["program"] + LW_MODELS[1:],
                  [[row[0]] + ["%.4f" % x for x in row[1:]] for row in lw])
    # BROI: BROI-mem over Epoch
    br = []
    for n in names:
        e, b = get[(n, "broi-epoch")], get[(n, "broi")]
        bw_e, bw_b = float(e["nvm_write_bw"] or 0), float(b["nvm_write_bw"] or 0)
        br.append([n, bw_e, bw_b, bw_b / bw_e if bw_e else float("nan"), float(e["sim_ns"]) / float(b["sim_ns"])])
    br.append(["geomean", float("nan"), float("nan"), gmean([r[3] for r in br]), gmean([r[4] for r in br])])
    FL.write_rows(os.path.join(args.out, "broi.csv"),
                  ["program", "epoch_nvm_write_bw_gbps", "broi_nvm_write_bw_gbps", "bw_ratio", "throughput_speedup"],
                  [[r[0]] + ["%.4f" % x for x in r[1:]] for r in br])
    # crash checks of every trace: the two designs and their broken variants (docs/checking.md)
    crash = []
    for n, tr in traces:
        row = [n]
        for cfg, m in CRASH:
            cmd = [persim, "crash", "--config", cfg, "--model", m, "--trace", tr]
            r = subprocess.run(cmd, capture_output=True, text=True)
            viol = ""
            for line in r.stdout.splitlines():
                if line.strip().startswith("violations"):
                    viol = " ".join(line.split()[1:]).split(" image")[0].split(" (")[0]
            row += [r.returncode, viol]
            log("crash %s %s: exit %d, violations %s" % (n, m, r.returncode, viol))
        crash.append(row)
    FL.write_rows(os.path.join(args.out, "crash.csv"),
                  ["program"] + [c for _, m in CRASH for c in (m + "_exit", m + "_violations")], crash)
    plots(args.out, lw, br)
    write_readme_blocks(args.out, lw, br, crash, rows)
    log("done in %.0f s: %s" % (time.time() - t0, args.out))
    # the generator-based headline numbers, for the README
    g7 = {r["workload"]: r for r in read_csv(os.path.join(ROOT, "results", "lightwsp", "fig7.csv"))}
    if "geomean" in g7:
        log("generator-based fig7 geomean: capri %s ppa %s lightwsp %s" % (g7["geomean"]["capri"], g7["geomean"]["ppa"],
                                                                          g7["geomean"]["lightwsp"]))
    for row in lw:
        log("%-14s " % row[0] + " ".join("%s %.3f" % (m, x) for m, x in zip(LW_MODELS[1:], row[1:])))
    for r in br:
        log("%-14s bw ratio %.3f throughput %.3f" % (r[0], r[3], r[4]))


def plots(out, lw, br):
    """lightwsp.png and broi.png: the per-program ratios with the papers' geomeans as markers."""
    plt = FL.plt_or_none("real_programs: matplotlib missing: no PNGs")
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(8, 3.5))
    wdt = 0.8 / (len(LW_MODELS) - 1)
    for i, m in enumerate(LW_MODELS[1:]):
        ax.bar([k + i * wdt for k in range(len(lw))], [row[i + 1] for row in lw], wdt, label=m)
    ax.set_xticks([k + wdt * (len(LW_MODELS) - 2) / 2 for k in range(len(lw))])
    ax.set_xticklabels([row[0] for row in lw], rotation=20, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("slowdown over none")
    g = len(lw) - 1   # the geomean group: the paper's V-B geomeans as markers
    V.paper_marks(ax, [g + i * wdt for i in range(len(LW_MODELS) - 1)],
                  [PAPER.get(m) for m in LW_MODELS[1:]], "paper's geomean (V-B)")
    ax.set_title("LightWSP Fig. 7 comparison on traced real programs (one recording each, no seed spread)",
                 fontsize=9)
    ax.set_ylim(top=ax.get_ylim()[1] * 6)    # room for the legend above the bars
    ax.legend(fontsize=8, ncol=5, loc="upper left")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "lightwsp.png"), dpi=110)
    fig, ax = plt.subplots(figsize=(8, 3.5))
    ax.bar([k - 0.2 for k in range(len(br))], [r[3] for r in br], 0.4, label="NVM write bandwidth (BROI / Epoch)")
    ax.bar([k + 0.2 for k in range(len(br))], [r[4] for r in br], 0.4, label="throughput (BROI / Epoch)")
    ax.axhline(1, color="k", lw=0.5)
    ax.set_xticks(range(len(br)))
    ax.set_xticklabels([r[0] for r in br], rotation=20, fontsize=8)
    ax.set_ylabel("BROI-mem over Epoch")
    g = len(br) - 1
    V.paper_marks(ax, [g - 0.2, g + 0.2], [PAPER["broi_mem"], PAPER["broi_ops"]], "paper's geomean (VII-A)")
    ax.set_title("BROI Fig. 9/10 comparison on traced real programs (one recording each, no seed spread)",
                 fontsize=9)
    ax.set_ylim(0, max([r[3] for r in br] + [r[4] for r in br] + [PAPER["broi_ops"]]) * 1.35)
    ax.legend(fontsize=8, ncol=3, loc="upper left")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "broi.png"), dpi=110)


def md_table(header, rows):
    L = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        L.append("| " + " | ".join(x if isinstance(x, str) else ("%.4f" % x if isinstance(x, float) else str(x))
                                   for x in r) + " |")
    return "\n".join(L)


def claims(lw, br):
    """The verdicts of the real-program numbers against the papers' (one recording: exact numbers)."""
    C = V.Claims()
    geo = {m: lw[-1][i + 1] for i, m in enumerate(LW_MODELS[1:])}
    ex = lambda x: V.summarize([x], exact=True)
    for m in ("lightwsp", "ppa", "capri"):
        C.add("LightWSP Fig. 7", f"{m} slowdown over none, geomean of the traces (V-B: "
              f"{100 * (PAPER[m] - 1):.1f}% overhead)", ex(geo[m]), PAPER[m], headline=True)
    C.add("LightWSP Fig. 7", "lightwsp over ppa, geomean (V-B: \"similar performance\"; no difference within 5%)",
          ex(geo["lightwsp"] / geo["ppa"]), None, kind="equal", tol=0.05, paper_text="1.01 (equal within 5%)")
    C.add("BROI Fig. 9", "BROI-mem over Epoch, NVM write bandwidth, geomean of the traces (VII-A: +16%)",
          ex(br[-1][3]), PAPER["broi_mem"], headline=True)
    C.add("BROI Fig. 10", "BROI-mem over Epoch, throughput, geomean of the traces (VII-A: +28%)",
          ex(br[-1][4]), PAPER["broi_ops"], headline=True)
    return C


def write_readme_blocks(out, lw, br, crash, rows):
    """Rewrites the generated blocks of out/README.md (between `<!-- generated:NAME -->` and
    `<!-- /generated:NAME -->`): provenance and claims, the three tables. The prose between them is
    hand-written and must be reread after a regeneration."""
    path = os.path.join(out, "README.md")
    try:
        text = open(path).read()
    except OSError:
        log("no %s: generated blocks not written" % path)
        return
    C = claims(lw, br)
    blocks = {
        "claims": "\n".join([V.provenance_line("scripts/real_programs.py", [r.get("persim_git") for r in rows]), "",
                             "Headline claims, largest gap first (one recording per program: every number is exact, "
                             "no seed spread):", "", C.headlines(), "",
                             V.rule_text(), "", f"Summary: {C.summary()} ({len(C.rows)} claims). The other claims:",
                             "", C.table(sort=True, rows=[r for r in C.rows if not r["headline"]])]),
        "lightwsp": md_table(["program"] + LW_MODELS[1:], lw),
        "broi": md_table(["program", "epoch_nvm_write_bw_gbps", "broi_nvm_write_bw_gbps", "bw_ratio",
                          "throughput_speedup"], br),
        "crash": md_table(["program"] + [c for _, m in CRASH for c in (m + "_exit", m + "_violations")], crash),
    }
    for name, body in blocks.items():
        a, b = "<!-- generated:%s -->" % name, "<!-- /generated:%s -->" % name
        if a in text and b in text:
            i, j = text.index(a) + len(a), text.index(b)
            text = text[:i] + "\n" + body + "\n" + text[j:]
        else:
            log("README.md has no %s block: not updated" % name)
    open(path, "w").write(text)


if __name__ == "__main__":
    main()
