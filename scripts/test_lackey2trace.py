#!/usr/bin/env python3
"""Test of scripts/lackey2trace.py on the checked-in sample tests/data/lackey-sample.txt (a piece
of a real lackey recording of a 16-iteration array loop, plus hand-written M, 16-byte and
unaligned 6-byte accesses and valgrind's own lines).
Run: python3 scripts/test_lackey2trace.py [--parse-check BUILD/tests/trace_parse_check]
With --parse-check the converted trace must also be read by persim's trace reader and run by the
functional executor (ctest scripts.lackey2trace passes it)."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CONV = os.path.join(HERE, "lackey2trace.py")
SAMPLE = os.path.join(ROOT, "tests", "data", "lackey-sample.txt")
PARSE_CHECK = None

sys.path.insert(0, HERE)
import lackey2trace as L  # noqa: E402


def read(path):
    with open(path) as f:
        return f.read()


def run(*args, stdin=None):
    return subprocess.run([sys.executable, CONV, *args], input=stdin, capture_output=True, text=True)


def ops_of(text):
    """The op lines of a trace (after 'warp 0 0'), comments stripped."""
    lines = [ln.split("#")[0].strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    return lines[lines.index("warp 0 0") + 1:]


class Pieces(unittest.TestCase):
    def test_natural_alignment(self):
        self.assertEqual(list(L.pieces(0x1000, 8)), [(0x1000, 8)])
        self.assertEqual(list(L.pieces(0x1000, 16)), [(0x1000, 8), (0x1008, 8)])
        self.assertEqual(list(L.pieces(0x1002, 6)), [(0x1002, 2), (0x1004, 4)])
        self.assertEqual(list(L.pieces(0x1001, 8)), [(0x1001, 1), (0x1002, 2), (0x1004, 4), (0x1008, 1)])
        self.assertEqual(list(L.pieces(0x1003, 1)), [(0x1003, 1)])


class Sample(unittest.TestCase):
    def setUp(self):
        r = run(SAMPLE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.text = r.stdout
        self.ops = ops_of(r.stdout)

    def test_header_and_kernel(self):
        lines = [ln for ln in self.text.splitlines() if ln and not ln.startswith("#")]
        self.assertEqual(lines[0], "persim-trace 1")
        self.assertEqual(lines[1], "kernel main blocks=1 threads=32")
        self.assertEqual(lines[2], "warp 0 0")

    def test_ops(self):
        # the recorded loop: ld a[i]; 2 ALU; st a[i]; add/cmp/jne; back-edge -> mark loop
        self.assertEqual(self.ops[:12], [
            "st 0x11fff000608 8 = 0",        # the push before main (its instruction is the st)
            "compute 2",                     # mov, lea
            "ld 0x1000010c040 4", "compute 2", "st 0x1000010c040 4 = 1", "compute 3",
            "mark loop",
            "ld 0x1000010c044 4", "compute 2", "st 0x1000010c044 4 = 2", "compute 3",
            "mark loop",
        ])
        self.assertEqual(self.ops.count("mark loop"), 2)
        # M = ld + st; 16 bytes = two 8-byte pieces; 6 bytes at ...e2 = 2 + 4; values count up
        tail = self.ops[self.ops.index("ld 0x11fff000600 8"):]
        self.assertEqual(tail, ["ld 0x11fff000600 8",
                                "ld 0x11fff0005f0 8", "st 0x11fff0005f0 8 = 3",
                                "st 0x11fff0005e8 8 = 4", "st 0x11fff0005f0 8 = 5",
                                "ld 0x11fff0005e2 2", "ld 0x11fff0005e4 4",
                                "compute 1"])

    def test_instruction_accounting(self):
        # every I line is either in a compute or represented by the first ld/st of its accesses
        n_i = sum(1 for ln in read(SAMPLE).splitlines() if ln.startswith("I "))
        computes = sum(int(o.split()[1]) for o in self.ops if o.startswith("compute"))
        owners = 0
        prev_i = False
        for ln in read(SAMPLE).splitlines():
            if ln.startswith("I "):
                prev_i = True
            elif ln[:2] in (" L", " S", " M"):
                owners += prev_i
                prev_i = False
        self.assertEqual(computes + owners, n_i)

    def test_pm_base_option(self):
        r = run(SAMPLE, "--pm-base", "0x20000000000")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("st 0x21fff000608 8 = 0", r.stdout)
        self.assertNotEqual(run(SAMPLE, "--pm-base", "0x123").returncode, 0)

    def test_skip_and_max_ops(self):
        r = run(SAMPLE, "--skip", "3", "--max-ops", "4")   # skips push, mov, lea
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(ops_of(r.stdout), ["ld 0x1000010c040 4", "compute 2", "st 0x1000010c040 4 = 0", "compute 3"])

    def test_output_file_and_stdin(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "t.trace")
            r = run("-", "-o", out, stdin=read(SAMPLE))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(ops_of(read(out)), self.ops)

    def test_persim_reader_parses_and_runs(self):
        if not PARSE_CHECK:
            self.skipTest("no --parse-check binary given")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "t.trace")
            with open(out, "w") as f:
                f.write(self.text)
            r = subprocess.run([PARSE_CHECK, out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("kernels 1 streams 1 ", r.stdout)
            self.assertIn(" ld 8 st 6 compute 7 mark 2", r.stdout)


class Errors(unittest.TestCase):
    def convert_text(self, text):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "in.txt")
            with open(p, "w") as f:
                f.write(text)
            r = run(p, "-o", os.path.join(d, "out.trace"))
            self.assertFalse(os.path.exists(os.path.join(d, "out.trace")), "no output on error")
            return r, p

    def test_malformed_line_names_the_line(self):
        r, p = self.convert_text("==1== Lackey\nI  00401000,3\n L 7ff000,4\nI  00401003 3\n S 7ff000,4\n")
        self.assertEqual(r.returncode, 2)
        self.assertIn("%s:4:" % p, r.stderr)
        self.assertIn("I  00401003 3", r.stderr)

    def test_bad_hex_and_size(self):
        r, p = self.convert_text("I  00401000,3\n L 7fg000,4\n")
        self.assertEqual(r.returncode, 2)
        self.assertIn(":2:", r.stderr)
        r, p = self.convert_text("I  00401000,3\n S 7ff000,0\n")
        self.assertEqual(r.returncode, 2)
        self.assertIn(":2: access size 0", r.stderr)

    def test_help(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        for word in ("lackey", "--pm-base", "--skip", "--max-ops", "-o"):
            self.assertIn(word, r.stdout)


if __name__ == "__main__":
    if "--parse-check" in sys.argv:
        i = sys.argv.index("--parse-check")
        PARSE_CHECK = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    unittest.main()
