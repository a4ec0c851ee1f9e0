#!/usr/bin/env python3
"""Turns a yosys-smtbmc counterexample VCD of rtl/wpq_gate.v into a co-simulation stimulus: the
input ports' values per cycle (smtbmc step k = VCD time 10k), the reset steps left out (the
testbench resets both models itself), one line per cycle, decimal, in the column order below.
tb/wpq_gate_cosim.cpp (cosim.WpqGate.FormalCexReplay_wpq_small_ungated) replays it on the
Verilated RTL and the C core in lockstep; PERSIM_REPLAY=FILE replays another file.

  vcd2stim.py CEX.vcd OUT.stim
"""
import sys

PORTS = ["push_valid", "push_region", "push_addr", "push_data", "bdry_valid", "bdry_region",
         "back_valid", "back_region", "fack_valid", "fack_region", "drain_ready", "ld_valid",
         "ld_line", "power_fail"]


def parse(path):
    ids, vals, steps = {}, {}, []
    top = None
    t = None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "$scope" and top is None:
                top = w[2]
            elif w[0] == "$var":
                ids.setdefault(w[3], []).append(w[4])
            elif w[0].startswith("#"):
                if t is not None and t % 10 == 0:
                    steps.append(dict(vals))
                t = int(w[0][1:])
            elif w[0][0] in "b":
                for n in ids.get(w[1], []):
                    vals[n] = int(w[0][1:].replace("x", "0").replace("z", "0"), 2)
            elif w[0][0] in "01xz":
                for n in ids.get(w[0][1:], []):
                    vals[n] = 1 if w[0][0] == "1" else 0
    if t is not None and t % 10 == 0:
        steps.append(dict(vals))
    return steps


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    steps = parse(sys.argv[1])
    rows = [s for s in steps if not s.get("rst", 0)]
    if not rows:
        sys.exit("vcd2stim: no cycle after reset in " + sys.argv[1])
    missing = [p for p in PORTS if p not in rows[0]]
    if missing:
        sys.exit(f"vcd2stim: ports {missing} not in {sys.argv[1]}")
    with open(sys.argv[2], "w") as f:
        f.write("# wpq_gate stimulus from a yosys-smtbmc counterexample (formal/vcd2stim.py), one cycle "
                "per line after reset\n# " + " ".join(PORTS) + "\n")
        for s in rows:
            f.write(" ".join(str(s[p]) for p in PORTS) + "\n")
    print(f"vcd2stim: {len(rows)} cycles -> {sys.argv[2]}")


if __name__ == "__main__":
    main()
