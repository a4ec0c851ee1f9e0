#!/usr/bin/env python3
"""Unit test of the verdict rule and the spread (scripts/verdict.py) on hand-made numbers.
Run: python3 scripts/test_verdict.py   (or through ctest; no matplotlib, no scipy needed)."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict as V  # noqa: E402


class Spread(unittest.TestCase):
    def test_t_table(self):
        self.assertEqual(V.t95(4), 2.776)          # n = 5 seeds
        self.assertEqual(V.t95(2), 4.303)          # n = 3 seeds
        self.assertEqual(V.t95(35), 2.042)         # between rows: the smaller df's value
        self.assertTrue(math.isnan(V.t95(0)))

    def test_summarize(self):
        m, h, n = V.summarize([1.0, 1.2, 1.1, 1.3, 0.9])
        self.assertAlmostEqual(m, 1.1)
        s = math.sqrt(sum((x - 1.1) ** 2 for x in [1.0, 1.2, 1.1, 1.3, 0.9]) / 4)
        self.assertAlmostEqual(h, 2.776 * s / math.sqrt(5))
        self.assertEqual(n, 5)

    def test_exact_and_one_seed(self):
        self.assertEqual(V.summarize([1.5], exact=True), (1.5, 0.0, 1))
        m, h, n = V.summarize([1.5, float("nan")])
        self.assertEqual((m, n), (1.5, 1))
        self.assertTrue(math.isnan(h))
        self.assertEqual(V.fmt_ci(1.5, 0.0, 1), "1.50 (exact)")
        self.assertEqual(V.fmt_ci(1.5, 0.04, 5), "1.50 ± 0.04")


class PerSeed(unittest.TestCase):
    def test_lift_pairs_seeds_and_broadcasts(self):
        a = V.PS({1: 2.0, 2: 4.0, 3: 6.0}, False)
        b = V.PS({1: 1.0, 2: 2.0, 3: 2.0}, False)
        e = V.PS({1: 2.0}, True)                  # seed-independent
        c = V.PS({1: 3.0}, False, const=True)     # one seed, used for every seed
        self.assertEqual(V.ratio(a, b).v, {1: 2.0, 2: 2.0, 3: 3.0})
        self.assertEqual(V.ratio(a, e).v, {1: 1.0, 2: 2.0, 3: 3.0})
        self.assertTrue(V.ratio(e, e).exact)
        r = V.ratio(c, e)
        self.assertFalse(r.exact)
        self.assertTrue(r.const)
        self.assertTrue(math.isnan(r.summary()[1]))   # spread unknown
        self.assertEqual(V.lift(lambda x, y: x + y, a, c).v, {1: 5.0, 2: 7.0, 3: 9.0})


class Rule(unittest.TestCase):
    def test_matches(self):
        # paper 1.14, persim 1.10 +- 0.02: same side of 1.0, within 10%
        self.assertEqual(V.verdict(1.10, 0.02, 1.14)[0], "matches")
        # below 1.0 on both sides
        self.assertEqual(V.verdict(0.93, 0.01, 0.90)[0], "matches")

    def test_same_trend(self):
        # paper 2.16, persim 1.28 +- 0.03: same ordering, 41% off
        self.assertEqual(V.verdict(1.28, 0.03, 2.16)[0], "same trend")
        # direction-only claim in the right direction
        self.assertEqual(V.verdict(1.30, 0.05, None, kind="greater")[0], "same trend")

    def test_differs_reversed(self):
        # paper 1.14 (A faster), persim 0.90 +- 0.02 (A slower)
        v, why = V.verdict(0.90, 0.02, 1.14)
        self.assertEqual(v, "differs")
        self.assertIn("reversed", why)
        self.assertEqual(V.verdict(1.2, 0.01, None, kind="less")[0], "differs")

    def test_differs_inside_noise(self):
        # persim's mean is within 10% of the paper's 1.06, but its CI contains 1.0
        v, why = V.verdict(1.04, 0.05, 1.06)
        self.assertEqual(v, "differs")
        self.assertIn("noise", why)
        # an exact number is inside noise only when it is exactly 1.0
        self.assertEqual(V.verdict(1.0, 0.0, 1.06)[0], "differs")
        self.assertEqual(V.verdict(1.03, 0.0, 1.06)[0], "matches")

    def test_equal_claims(self):
        # paper: "within 1%"; persim 1.034 -> differs; 1.004 -> matches
        self.assertEqual(V.verdict(1.034, 0.002, kind="equal", tol=0.01)[0], "differs")
        self.assertEqual(V.verdict(1.004, 0.002, kind="equal", tol=0.01)[0], "matches")
        # a paper value of exactly 1.0 is a no-difference claim
        self.assertEqual(V.verdict(1.02, 0.01, 1.0)[0], "matches")

    def test_nan(self):
        self.assertEqual(V.verdict(float("nan"), 0.1, 1.1)[0], "n/a")

    def test_claims_table(self):
        c = V.Claims()
        c.add("Fig. X", "A over B", (1.10, 0.02, 5), 1.14)
        c.add("Fig. X", "C over D", (1.28, 0.03, 5), 2.16)
        c.add("Fig. X", "E over F", (1.04, 0.05, 5), 1.06)
        self.assertEqual(c.counts(), {"matches": 1, "same trend": 1, "differs": 1})
        t = c.table()
        self.assertIn("| Fig. X | A over B | 1.10 ± 0.02 | 1.14 | 0.96 | 10% | **matches**", t)

    def test_plateau(self):
        # windows 6, 8, 10 not separated by the seeds; 2 clearly worse
        s = {"2": [1.10, 1.12, 1.11], "6": [1.25, 1.27, 1.24], "8": [1.26, 1.25, 1.25], "10": [1.24, 1.26, 1.25]}
        best, plat = V.plateau(s)
        self.assertIn(best, ("6", "8", "10"))
        self.assertEqual(sorted(plat), ["10", "6", "8"])
        best, plat = V.plateau({"a": [1.2], "b": [1.1]}, exact=True)
        self.assertEqual((best, plat), ("a", ["a"]))


if __name__ == "__main__":
    unittest.main(verbosity=1)
