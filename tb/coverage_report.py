#!/usr/bin/env python3
"""Summarizes Verilator coverage data written by the co-simulation tests (one .dat per test, in
PERSIM_COVERAGE_DIR): line and toggle coverage per RTL block, all presets and tests merged.

  coverage_report.py DIR [--annotate OUTDIR]

--annotate also runs `verilator_coverage --annotate` on the merged data (per-line counts).
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys

REC = re.compile(r"^C '(.*)' (\d+)\s*$")


def parse(path):
    with open(path, encoding="latin-1") as f:
        for line in f:
            m = REC.match(line)
            if not m:
                continue
            fields = {}
            for kv in m.group(1).split("\x01"):
                if "\x02" in kv:
                    k, v = kv.split("\x02", 1)
                    fields[k] = v
            yield m.group(1), fields, int(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--annotate")
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.dir, "*.dat")))
    if not files:
        print(f"coverage: no .dat files in {a.dir}", file=sys.stderr)
        return 1
    points = {}
    for fn in files:
        for key, fields, n in parse(fn):
            # merge the same source point over tests and presets (hierarchy differs by model)
            blk = os.path.splitext(os.path.basename(fields.get("f", "?")))[0]
            kind = fields.get("page", "?").split("/")[0]
            pkey = (blk, kind, fields.get("f"), fields.get("l"), fields.get("o"), fields.get("n", ""))
            points[pkey] = points.get(pkey, 0) + n
    tot = collections.defaultdict(lambda: [0, 0])
    for (blk, kind, *_), n in points.items():
        t = tot[(blk, kind)]
        t[0] += 1
        t[1] += n > 0
    kinds = sorted({k for _, k in tot})
    print(f"RTL coverage from {len(files)} test runs (all presets merged)")
    print(f"{'block':12s} " + " ".join(f"{k:>22s}" for k in kinds))
    for blk in sorted({b for b, _ in tot}):
        cells = []
        for k in kinds:
            t = tot.get((blk, k))
            cells.append(f"{t[1]:6d}/{t[0]:<6d} {100.0 * t[1] / t[0]:6.1f}%" if t and t[0] else f"{'-':>22s}")
        print(f"{blk:12s} " + " ".join(cells))
    if a.annotate:
        merged = os.path.join(a.dir, "merged.dat")
        subprocess.run(["verilator_coverage", "--write", merged] + files, check=False)
        subprocess.run(["verilator_coverage", "--annotate", a.annotate, merged], check=False)
        print(f"annotated sources in {a.annotate}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
