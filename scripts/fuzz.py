#!/usr/bin/env python3
"""Runs the libFuzzer harnesses of fuzz/ (make fuzz; docs/testing.md "Fuzzing") for a bounded time
each and reports, per target, executions, time, corpus size and findings (crashes, sanitizer
reports, leaks, timeouts, out-of-memory: the files libFuzzer writes as artifacts).

  scripts/fuzz.py [--build build-fuzz] [--seconds 60] [--keep-going] [TARGET ...]

New inputs go to BUILD/fuzz/corpus/TARGET (the committed seeds of fuzz/corpus/TARGET are read,
never written); findings to BUILD/fuzz/artifacts/TARGET/. --keep-going fuzzes in libFuzzer's fork
mode (-fork=1) and goes on after a finding. Exit status 1 when any target found anything or failed.
"""
import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ["config", "set", "trace", "raw", "sweep", "accelsim"]   # fuzz/CMakeLists.txt PERSIM_FUZZ_TARGETS
# Largest input per target (bytes): `set` lines are short, and a long unknown key makes every line
# cost an edit distance against all keys.
MAX_LEN = {"set": 1024}


def run_target(build, t, seconds, keep_going, max_len):
    exe = os.path.join(build, "fuzz", "fuzz_" + t)
    if not os.path.exists(exe):
        return {"target": t, "error": "%s is not built (cmake --build %s --target persim_fuzz)" % (exe, build)}
    work = os.path.join(build, "fuzz", "corpus", t)
    art = os.path.join(build, "fuzz", "artifacts", t)
    os.makedirs(work, exist_ok=True)
    os.makedirs(art, exist_ok=True)
    before = set(os.listdir(art))
    seeds = os.path.join(ROOT, "fuzz", "corpus", t)
    cmd = [exe, "-max_total_time=%d" % seconds, "-timeout=10", "-rss_limit_mb=2048", "-print_final_stats=1",
           "-max_len=%d" % max_len, "-artifact_prefix=" + art + "/"]
    if keep_going:
        cmd += ["-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"]
    cmd += [work, seeds]
    log = os.path.join(build, "fuzz", "fuzz_%s.log" % t)
    t0 = time.time()
    with open(log, "w") as f:
        # the harnesses write /dev/null only; run from the repository root (sweep specs name configs/...)
        rc = subprocess.call(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT,
                             env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
                                      UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"))
    wall = time.time() - t0
    text = open(log, errors="replace").read()
    execs = None
    m = re.search(r"stat::number_of_executed_units:\s*(\d+)", text)
    if m:
        execs = int(m.group(1))
    else:   # fork mode: the last status line "#N: cov: ..."
        ms = re.findall(r"^#(\d+):? .*", text, re.M)
        if ms:
            execs = int(ms[-1])
    found = sorted(set(os.listdir(art)) - before)
    reports = len(re.findall(r"^==\d+== ?ERROR: |runtime error: |^SUMMARY: libFuzzer: ", text, re.M))
    return {"target": t, "rc": rc, "execs": execs, "seconds": wall, "corpus": len(os.listdir(work)),
            "artifacts": found, "reports": reports, "log": log}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("targets", nargs="*", default=TARGETS)
    ap.add_argument("--build", default="build-fuzz")
    ap.add_argument("--seconds", type=int, default=60, help="fuzzing time per target (default 60)")
    ap.add_argument("--keep-going", action="store_true", help="fork mode: go on after a finding")
    ap.add_argument("--max-len", type=int, default=0, help="largest input in bytes (default 8192; set: 1024)")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    rows, bad = [], False
    for t in a.targets:
        print("fuzz: %s for %d s ..." % (t, a.seconds), flush=True)
        r = run_target(build, t, a.seconds, a.keep_going, a.max_len or MAX_LEN.get(t, 8192))
        rows.append(r)
        if "error" in r:
            print("fuzz: " + r["error"], file=sys.stderr)
            bad = True
            continue
        ok = r["rc"] == 0 and not r["artifacts"] and r["reports"] == 0
        bad |= not ok
        for f in r["artifacts"]:
            print("fuzz: %s: finding %s (log %s)" % (t, os.path.join(build, "fuzz", "artifacts", t, f), r["log"]))
    print("\n%-8s %12s %9s %10s %7s %9s  %s" % ("target", "executions", "seconds", "exec/s", "corpus", "findings", "status"))
    for r in rows:
        if "error" in r:
            print("%-8s %12s %9s %10s %7s %9s  %s" % (r["target"], "-", "-", "-", "-", "-", "not built"))
            continue
        n = len(r["artifacts"])
        st = "ok" if r["rc"] == 0 and not n and not r["reports"] else "FAILED (exit %d, %d sanitizer/libFuzzer reports; %s)" % (
            r["rc"], r["reports"], r["log"])
        ex = r["execs"] if r["execs"] is not None else 0
        print("%-8s %12d %9.0f %10.0f %7d %9d  %s" % (r["target"], ex, r["seconds"], ex / max(r["seconds"], 1e-9), r["corpus"], n, st))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
