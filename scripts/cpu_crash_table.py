#!/usr/bin/env python3
"""Targeted crash images on the cpu system (docs/checking.md, issue 27 items 9 and 13): for every
cpu workload (and the given traces) at the small and default sizes, whether `persim crash
--images model` catches the broken variants (lightwsp-ungated, broi-nodeps) and passes the correct
models, with the number of images it needed; and whether the run's own images (the check before
targeted images) catch them. Prints a markdown table.

  scripts/cpu_crash_table.py [--persim build/persim] [--sizes small,default] [--trace F ...] [-j N]
"""
import argparse, concurrent.futures as cf, os, re, subprocess, sys, tempfile

REGION = ["lightwsp", "lightwsp-ungated"]
BSP = ["broi", "broi-epoch", "broi-epoch-1q", "broi-nodeps"]
BROKEN = {"lightwsp-ungated", "broi-nodeps"}
LOCAL = ["cpu-queue", "cpu-hashtable", "cpu-arrayswap", "cpu-btree", "cpu-txbank", "prof-cpu2006-mem",
         "prof-cpu2006-comp", "prof-cpu2017-mem", "prof-cpu2017-comp", "prof-npb", "prof-splash3", "prof-whisper",
         "broi-hashtable", "broi-rbtree", "broi-sps", "broi-bptree", "broi-ssca2"]
HYBRID = ["broi-hashtable-hybrid", "broi-rbtree-hybrid", "broi-sps-hybrid", "broi-bptree-hybrid", "broi-ssca2-hybrid"]
REMOTE = ["broi-ycsb", "broi-tpcc", "broi-ctree", "broi-hashmap", "broi-memcached"]
RDMA = ["--set", "rdma.channels=2"]


def run(persim, args, out):
    p = subprocess.run([persim, "crash"] + args + ["--out", out, "--csv", out + ".csv"], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def model_cell(code, text):
    t = re.search(r"targeted images +(\d+) tried, (\d+) failed", text)
    s = re.search(r"model samples +(\d+) tried \(seed \d+\), (\d+) failed", text)
    if not t or not s:
        return "error %d" % code, None
    tgt, smp = int(t.group(1)), int(s.group(1))
    f = re.search(r"first failing +(targeted image|sample) (\d+)", text)
    if code == 5 and f:
        need = int(f.group(2)) + 1 if f.group(1) == "targeted image" else tgt + int(f.group(2)) + 1
        return "caught", (need, tgt)
    return ("pass" if code == 0 else "exit %d" % code), (None, tgt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--persim", default="build/persim")
    ap.add_argument("--sizes", default="small,default")
    ap.add_argument("--trace", action="append", default=[])
    ap.add_argument("--points", default="20")
    ap.add_argument("-j", type=int, default=1)
    a = ap.parse_args()
    jobs = []   # (row key, model, args)
    for size in a.sizes.split(","):
        for w in LOCAL:
            for m in REGION:
                jobs.append(((w, size), m, ["--config", "configs/cpu_small.json", "--workload", w, "--size", size]))
            for m in BSP:
                jobs.append(((w, size), m, ["--config", "configs/cpu_broi_table3.json", "--workload", w, "--size", size]))
        for w in HYBRID + REMOTE:
            for m in BSP:
                jobs.append(((w, size), m, ["--config", "configs/cpu_broi_table3.json", "--workload", w, "--size", size] + RDMA))
    for tr in a.trace:
        for m in REGION:
            jobs.append(((os.path.basename(tr), "trace"), m, ["--config", "configs/cpu_lightwsp_table1.json", "--trace", tr]))
        for m in BSP:
            jobs.append(((os.path.basename(tr), "trace"), m, ["--config", "configs/cpu_broi_table3.json", "--trace", tr]))
    tmp = tempfile.mkdtemp(prefix="cpu_crash_table_")
    res = {}

    def one(i, key, m, args):
        c1, t1 = run(a.persim, ["--model", m] + args + ["--images", "model", "--points", a.points], "%s/m%d" % (tmp, i))
        c2, t2 = run(a.persim, ["--model", m] + args, "%s/r%d" % (tmp, i))
        return key, m, model_cell(c1, t1), c2, (t1 if c1 not in (0, 5) else t2 if c2 not in (0, 5) else "")

    with cf.ThreadPoolExecutor(a.j) as ex:
        for key, m, cell, rc, err in ex.map(lambda x: one(x[0], *x[1]), enumerate(jobs)):
            res[(key, m)] = (cell, rc)
            print("%s %s %s: %s, run images exit %d" % (key[0], key[1], m, cell, rc), file=sys.stderr, flush=True)
            if err:
                print("%s %s %s: %s" % (key[0], key[1], m, err.strip().splitlines()[-1]), file=sys.stderr)
    keys = []
    for (key, m) in res:
        if key not in keys:
            keys.append(key)

    def broken(c):      # caught by model images (images needed of targeted) | by the run's own images
        if c is None:
            return "n/a | n/a"
        (verdict, info), rc = c
        run_s = "yes" if rc == 5 else "no" if rc == 0 else "exit %d" % rc
        if verdict == "caught":
            return "yes: %d of %d | %s" % (info[0], info[1], run_s)
        if verdict == "pass":
            return "no (%d targeted%s) | %s" % (info[1], ": no pair" if info[1] == 0 else "", run_s)
        return "%s | %s" % (verdict, run_s)

    def correct(key, models):
        have = [m for m in models if (key, m) in res]
        bad = [m for m in have if not (res[(key, m)][0][0] == "pass" and res[(key, m)][1] == 0)]
        return "n/a" if not have else "pass" if not bad else "FAIL: " + ", ".join(bad)

    print("| workload | size | lightwsp-ungated: model images (needed of targeted) | its run images | "
          "broi-nodeps: model images (needed of targeted) | its run images | lightwsp | broi, broi-epoch, broi-epoch-1q |")
    print("|---|---|---|---|---|---|---|---|")
    for key in keys:
        print("| %s | %s | %s | %s | %s | %s |" % (key[0], key[1], broken(res.get((key, "lightwsp-ungated"))),
                                                  broken(res.get((key, "broi-nodeps"))), correct(key, ["lightwsp"]),
                                                  correct(key, ["broi", "broi-epoch", "broi-epoch-1q"])))

if __name__ == "__main__":
    main()
