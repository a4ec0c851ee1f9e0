#!/usr/bin/env python3
"""RTL co-simulation speed: cycles per second of the random lockstep run of every block and preset.

Runs each block's co-simulation binary (build/tb/<block>_cosim, tb/*_cosim.cpp) on its random tests
only (--gtest_filter='*.Random_*'), PERSIM_COSIM_N cycles each, and collects the line
"cosim-speed,<block>,<preset>,<cycles>,<seconds>,<cycles_per_s>" that each test prints (CPU seconds
of the lockstep loop: the Verilated model, the C core and the testbench; model construction
excluded). Prints CSV: block,preset,cycles,seconds,cycles_per_s.

  python3 tb/cosim_bench.py [--build build] [--cycles 200000] [--blocks sbrp_pb,wpq_gate]
"""
import argparse
import os
import subprocess
import sys

BLOCKS = ["nvw_fifo", "sbrp_pb", "wpq_gate", "broi_sched"]


def run_block(build, block, cycles):
    exe = os.path.join(build, "tb", block + "_cosim")
    if not os.path.exists(exe):
        print(f"cosim_bench: {exe} not built (Verilator missing?), skipped", file=sys.stderr)
        return []
    env = dict(os.environ, PERSIM_COSIM_N=str(cycles))
    p = subprocess.run([exe, "--gtest_filter=*.Random_*"], env=env, capture_output=True, text=True)
    rows = [ln.split(",")[1:] for ln in p.stdout.splitlines() if ln.startswith("cosim-speed,")]
    if p.returncode != 0:
        print(f"cosim_bench: {block} failed (exit {p.returncode})\n{p.stdout[-2000:]}", file=sys.stderr)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--cycles", type=int, default=200000, help="cycles per preset (PERSIM_COSIM_N)")
    ap.add_argument("--blocks", default=",".join(BLOCKS))
    a = ap.parse_args()
    print("block,preset,cycles,seconds,cycles_per_s")
    ok = True
    for block in a.blocks.split(","):
        rows = run_block(a.build, block, a.cycles)
        ok = ok and bool(rows)
        for r in rows:
            print(",".join(r))
        sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
