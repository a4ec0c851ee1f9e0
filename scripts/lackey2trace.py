#!/usr/bin/env python3
"""Convert a Valgrind lackey memory trace into a persim trace (docs/trace-format.md).

Input: the output of `valgrind --tool=lackey --trace-mem=yes PROG ARGS` (lackey writes it to
stderr; use --log-file=F or 2>F). Lines:
    I  ADDR,SIZE     an instruction fetch (one per executed guest instruction)
     L ADDR,SIZE     a data load
     S ADDR,SIZE     a data store
     M ADDR,SIZE     a data modify (load + store of the same bytes)
ADDR is hex without 0x, SIZE decimal. Valgrind's own lines (`==PID== ...`, `--PID-- ...`) and
blank lines are skipped; anything else is an error naming the input line (exit status 2).

Output: a persim trace, version 1, for a CPU system with one hardware thread: one kernel
`main` with blocks=1 threads=32 and one stream (warp 0 0):
  * compute N   for each run of N instructions that have no data access; an instruction with
                data accesses is represented by its ld/st ops (persim counts each as one);
  * ld / st     one per naturally aligned 1/2/4/8-byte piece of each access (a 16-byte SSE access
                at an 8-aligned address is two 8-byte ops; 6 bytes at ...2 is 2+4);
                M gives ld then st of each piece;
  * store values are synthetic and deterministic: a running counter over the stores (0, 1, 2, ...)
                truncated to the piece's size (lackey records no values);
  * addresses are mapped into the PM range: pm_base + (addr & 0xFFFFFFFFFF) (whole-system
                persistence: every access is to PM);
  * mark loop   a loop back-edge heuristic: an I line whose address is lower than the previous
                instruction's and within 4 KiB of it is taken as the jump back to a loop header,
                and `mark loop` is put before that instruction. Function entries/exits cannot be
                told from a lackey trace (no call/ret records), so no `mark func`/`mark ret`.
Lackey records no thread ids, so a recording is one stream; run single-threaded programs.
"""
import argparse
import os
import re
import sys

LINE = re.compile(r"^(I |\s[LSM])\s+([0-9A-Fa-f]+),(\d+)\s*$")
DEFAULT_PM_BASE = 0x10000000000
ADDR_MASK = 0xFFFFFFFFFF
LOOP_WINDOW = 4096
MAX_ACCESS = 1024     # bytes per lackey access accepted (largest vector accesses are 64)


class Malformed(Exception):
    pass


def pieces(addr, size):
    """Naturally aligned 8/4/2/1-byte pieces covering [addr, addr + size)."""
    while size > 0:
        for e in (8, 4, 2, 1):
            if addr % e == 0 and e <= size:
                yield addr, e
                addr += e
                size -= e
                break


class Converter:
    def __init__(self, out, pm_base, skip, max_ops):
        self.out = out
        self.pm_base = pm_base
        self.skip = skip            # instructions still to fast-forward
        self.max_ops = max_ops      # 0 = no limit
        self.ops = 0
        self.pending = 0            # instructions without data access not yet emitted
        self.prev_i = None          # address of the previous instruction
        self.after_i = False        # the previous kept line was an I line (it owns following accesses)
        self.store_no = 0
        self.stats = {"instructions": 0, "ld": 0, "st": 0, "compute": 0, "loop": 0}

    def full(self):
        return self.max_ops and self.ops >= self.max_ops

    def emit(self, text, kind):
        if self.full():
            return
        self.out.write(text + "\n")
        self.ops += 1
        self.stats[kind] += 1

    def flush(self):
        if self.pending:
            self.emit("compute %d" % self.pending, "compute")
            self.pending = 0

    def instruction(self, addr):
        if self.skip:
            self.skip -= 1
            self.after_i = False
            self.prev_i = addr
            return
        self.stats["instructions"] += 1
        if self.prev_i is not None and addr < self.prev_i and self.prev_i - addr <= LOOP_WINDOW:
            self.flush()
            self.emit("mark loop", "loop")
        self.prev_i = addr
        self.pending += 1
        self.after_i = True

    def access(self, kind, addr, size):
        if self.after_i:
            self.pending -= 1       # the owning instruction is represented by its ld/st ops
            self.after_i = False
        self.flush()
        a = self.pm_base + (addr & ADDR_MASK)
        for pa, e in pieces(a, size):
            if kind in "LM":
                self.emit("ld 0x%x %d" % (pa, e), "ld")
            if kind in "SM":
                v = self.store_no & ((1 << (8 * e)) - 1)
                self.store_no += 1
                self.emit("st 0x%x %d = %d" % (pa, e, v), "st")


def convert(inp, out, name, pm_base=DEFAULT_PM_BASE, skip=0, max_ops=0, comment=None):
    """Converts lackey text from the file object inp; writes the trace to out. Returns stats.
    Raises Malformed("NAME:LINE: ...") on a bad line."""
    out.write("persim-trace 1\n")
    out.write("# converted from a valgrind lackey trace (%s) by scripts/lackey2trace.py\n" % name)
    out.write("# one thread; store values are synthetic (a running counter); addresses mapped to "
              "pm_base 0x%x + (addr & 0x%x)\n" % (pm_base, ADDR_MASK))
    if skip or max_ops:
        out.write("# --skip %d --max-ops %d\n" % (skip, max_ops))
    for ln in (comment or "").splitlines():
        out.write("# %s\n" % ln)
    out.write("kernel main blocks=1 threads=32\nwarp 0 0\n")
    c = Converter(out, pm_base, skip, max_ops)
    skipping_accesses = False
    for no, line in enumerate(inp, 1):
        if c.full():
            break
        s = line.rstrip("\r\n")
        if not s.strip() or s.startswith("==") or s.startswith("--"):
            continue
        m = LINE.match(s)
        if not m:
            raise Malformed("%s:%d: not a lackey line (expected 'I  ADDR,SIZE' or ' L|S|M ADDR,SIZE'): %r"
                            % (name, no, s[:80]))
        kind, addr, size = m.group(1).strip(), int(m.group(2), 16), int(m.group(3))
        if size < 1 or size > MAX_ACCESS:
            raise Malformed("%s:%d: access size %d out of range (1..%d): %r" % (name, no, size, MAX_ACCESS, s[:80]))
        if kind == "I":
            skipping_accesses = c.skip > 0
            c.instruction(addr)
        elif not skipping_accesses:
            c.access(kind, addr, size)
    if not c.full():
        c.flush()
    return c.stats


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Convert `valgrind --tool=lackey --trace-mem=yes` output into a persim trace "
                    "(one CPU thread, kernel 'main', PM addresses, synthetic store values, "
                    "'mark loop' at backward jumps of at most 4 KiB).")
    ap.add_argument("input", help="lackey output file ('-' = stdin)")
    ap.add_argument("-o", "--output", default="-", help="trace file to write (default: stdout)")
    ap.add_argument("--pm-base", type=lambda x: int(x, 0), default=DEFAULT_PM_BASE,
                    help="PM base address the addresses are mapped to (default 0x%x; must match "
                         "the system.pm_base the trace is run with)" % DEFAULT_PM_BASE)
    ap.add_argument("--skip", type=int, default=0, metavar="N",
                    help="fast-forward: drop the first N instructions and their accesses")
    ap.add_argument("--comment", metavar="TEXT", help="text for a comment line of the trace (e.g. the recorded command)")
    ap.add_argument("--max-ops", type=int, default=0, metavar="N",
                    help="stop after N trace ops (ld, st, compute, mark; 0 = no limit)")
    args = ap.parse_args(argv)
    if args.skip < 0 or args.max_ops < 0:
        ap.error("--skip and --max-ops must be >= 0")
    if args.pm_base < 0 or args.pm_base % 4096 or args.pm_base + ADDR_MASK >= 1 << 64:
        ap.error("--pm-base must be a multiple of 4096 below 2^64 - 2^40")
    inp = sys.stdin if args.input == "-" else open(args.input, "r", errors="replace")
    name = "<stdin>" if args.input == "-" else args.input
    out = sys.stdout if args.output == "-" else open(args.output + ".part", "w")
    try:
        stats = convert(inp, out, name, args.pm_base, args.skip, args.max_ops, args.comment)
    except Malformed as e:
        print("lackey2trace: %s" % e, file=sys.stderr)
        if inp is not sys.stdin:
            inp.close()
        if out is not sys.stdout:
            out.close()
            os.unlink(args.output + ".part")
        return 2
    if inp is not sys.stdin:
        inp.close()
    if out is not sys.stdout:
        out.close()
        os.replace(args.output + ".part", args.output)
    print("lackey2trace: %d instructions -> %d ld, %d st, %d compute, %d mark loop"
          % (stats["instructions"], stats["ld"], stats["st"], stats["compute"], stats["loop"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
