#!/usr/bin/env python3
"""Unit test of the verdict rule and the spread (scripts/verdict.py) on hand-made numbers.
Run: python3 scripts/test_verdict.py   (or through ctest; needs scipy for the Student-t quantile, not matplotlib)."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict as V  # noqa: E402


class Spread(unittest.TestCase):
    def test_t_quantile(self):
        # standard table values t(0.975, df)
        self.assertAlmostEqual(V.t95(1), 12.706, places=3)   # n = 2 seeds
        self.assertAlmostEqual(V.t95(2), 4.303, places=3)    # n = 3 seeds
        self.assertAlmostEqual(V.t95(4), 2.776, places=3)    # n = 5 seeds
        self.assertAlmostEqual(V.t95(35), 2.030, places=3)   # any df, not only a table's rows
        self.assertAlmostEqual(V.t95(10 ** 6), 1.960, places=3)
        self.assertTrue(math.isnan(V.t95(0)))

    def test_summarize(self):
        m, h, n = V.summarize([1.0, 1.2, 1.1, 1.3, 0.9])
        self.assertAlmostEqual(m, 1.1)
        s = math.sqrt(sum((x - 1.1) ** 2 for x in [1.0, 1.2, 1.1, 1.3, 0.9]) / 4)
        self.assertAlmostEqual(h, V.t95(4) * s / math.sqrt(5))
        self.assertAlmostEqual(h, 2.776 * s / math.sqrt(5), places=4)
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
    def test_effect(self):
        self.assertAlmostEqual(V.effect(1.07, 1.14), 0.5)
        self.assertAlmostEqual(V.effect(0.85, 0.70), 0.5)
        self.assertAlmostEqual(V.effect(1.0, 1.14), 0.0)
        self.assertTrue(math.isnan(V.effect(1.1, 1.0)))
        self.assertTrue(math.isnan(V.effect(1.1, None)))

    def test_matches(self):
        # paper 1.14, persim 1.12 +- 0.01: effect 0.86, within 1 +- 0.25, same side
        self.assertEqual(V.verdict(1.12, 0.01, 1.14)[0], "matches")
        # below 1.0 on both sides: paper 0.69, persim 0.72 (effect 0.90)
        self.assertEqual(V.verdict(0.72, 0.01, 0.69)[0], "matches")
        # the boundary |m - p| = 0.25 |p - 1| is inside
        self.assertEqual(V.verdict(1.30, 0.0, 1.40)[0], "matches")
        # a claim's own tolerance
        self.assertEqual(V.verdict(1.10, 0.0, 1.14, tol=0.1)[0], "same trend")

    def test_ratio_tolerance_no_longer_enough(self):
        # the old rule (10% on the ratio) said "matches" for these; the effect says otherwise
        v, why = V.verdict(1.02, 0.005, 1.06)       # a third of a 6% effect
        self.assertEqual(v, "differs")
        self.assertIn("0.33", why)
        self.assertEqual(V.verdict(1.10, 0.02, 1.14)[0], "same trend")   # effect 0.71
        self.assertEqual(V.verdict(1.16, 0.01, 1.06)[0], "differs")      # 2.7x the effect

    def test_issue_gaps(self):
        # the gaps of issue 21, persim's value against the paper's
        self.assertEqual(V.verdict(14.9, 0.0, 1.51)[0], "differs")       # Capri overhead, 27x the effect
        self.assertEqual(V.verdict(3.02, 0.0, 1.09)[0], "differs")       # LightWSP geomean
        self.assertEqual(V.verdict(1.00, 0.0, 0.69)[0], "differs")       # AGPM identical to NT
        self.assertEqual(V.verdict(0.99, 0.0, 1.14)[0], "differs")       # SBRP-far reversed
        self.assertEqual(V.verdict(1.99, 0.0, 1.16)[0], "differs")       # BROI over epoch, 6x
        self.assertEqual(V.verdict(1.19, 0.0, 1.16)[0], "matches")       # ... at 2 threads, effect 1.19
        self.assertEqual(V.verdict(1.00, 0.0, 0.09)[0], "differs")       # Table 3 by construction
        self.assertEqual(V.verdict(1.10, 0.0, 1.14)[0], "same trend")    # effect 0.71
        self.assertEqual(V.verdict(1.10, 0.0, 1.09)[0], "matches")       # LightWSP profiles at 46 GB/s

    def test_ratios_far_from_one(self):
        # Table 3 counts: 0.00015 against the paper's 0.0174 is 100x smaller although both effects are ~1
        self.assertAlmostEqual(V.effect(0.00015, 0.0174), 1.0176, places=3)
        v, why = V.verdict(0.00015, 0.0, 0.0174)
        self.assertEqual(v, "differs")
        self.assertIn("log effect", why)
        self.assertEqual(V.verdict(0.016, 0.0, 0.0174)[0], "matches")     # log effect 1.02
        self.assertEqual(V.verdict(0.25, 0.0, 0.28)[0], "matches")        # log effect 1.09
        self.assertAlmostEqual(V.log_effect(1.16, 1.16), 1.0)
        self.assertTrue(math.isnan(V.log_effect(-0.5, 1.16)))

    def test_same_trend(self):
        # paper 2.16, persim 1.70 +- 0.03: effect 0.60
        self.assertEqual(V.verdict(1.70, 0.03, 2.16)[0], "same trend")
        # paper 2.16, persim 1.28: effect 0.24 -> differs (was "same trend" under the ratio rule)
        self.assertEqual(V.verdict(1.28, 0.03, 2.16)[0], "differs")
        # direction-only claim in the right direction
        self.assertEqual(V.verdict(1.30, 0.05, None, kind="greater")[0], "same trend")

    def test_differs_reversed(self):
        # paper 1.14 (A faster), persim 0.90 +- 0.02 (A slower)
        v, why = V.verdict(0.90, 0.02, 1.14)
        self.assertEqual(v, "differs")
        self.assertIn("reversed", why)
        self.assertEqual(V.verdict(1.2, 0.01, None, kind="less")[0], "differs")

    def test_differs_inside_noise(self):
        # persim's mean is the paper's effect, but its CI contains 1.0
        v, why = V.verdict(1.06, 0.07, 1.06)
        self.assertEqual(v, "differs")
        self.assertIn("noise", why)
        # an exact number is inside noise only when it is exactly 1.0
        self.assertEqual(V.verdict(1.0, 0.0, 1.06)[0], "differs")
        self.assertEqual(V.verdict(1.05, 0.0, 1.06)[0], "matches")

    def test_equal_claims(self):
        # paper: "within 1%"; persim 1.034 -> differs; 1.004 -> matches
        self.assertEqual(V.verdict(1.034, 0.002, kind="equal", tol=0.01)[0], "differs")
        self.assertEqual(V.verdict(1.004, 0.002, kind="equal", tol=0.01)[0], "matches")
        # a paper value of exactly 1.0 is a no-difference claim (default tolerance 1%)
        self.assertEqual(V.verdict(1.005, 0.01, 1.0)[0], "matches")
        self.assertEqual(V.verdict(1.02, 0.01, 1.0)[0], "differs")

    def test_nan(self):
        self.assertEqual(V.verdict(float("nan"), 0.1, 1.1)[0], "n/a")

    def test_claims_table(self):
        c = V.Claims()
        c.add("Fig. X", "A over B", (1.12, 0.02, 5), 1.14)
        c.add("Fig. X", "C over D", (1.70, 0.03, 5), 2.16, headline=True)
        c.add("Fig. X", "E over F", (1.04, 0.05, 5), 1.06, headline=True)
        c.add("Fig. Y", "G over H", (3.0, 0.0, 1), 1.5, headline=True)
        self.assertEqual(c.counts(), {"matches": 1, "same trend": 1, "differs": 2})
        t = c.table()
        self.assertIn("| Fig. X | A over B | 1.12 ± 0.02 | 1.14 | 0.86 [0.71, 1.00] | **matches**", t)
        self.assertIn("| 3.00 (exact) | 1.50 | 4.00 | **differs**", t)
        # headlines: only the flagged ones, largest |effect - 1| first (4.00 [G], then 0.60 [C], then 0.67 [E])
        hl = c.headlines().splitlines()[2:]
        self.assertEqual(len(hl), 3)
        self.assertIn("G over H", hl[0])
        self.assertIn("C over D", hl[1])
        self.assertIn("E over F", hl[2])

    def test_provenance(self):
        d, dirty = V.provenance()
        self.assertTrue(d)
        self.assertEqual(dirty, d.endswith("-dirty"))
        line = V.provenance_line("scripts/x.py", ["abc", "abc", "def"])
        self.assertIn(d, line)
        self.assertIn("`abc`, `def`", line)
        self.assertEqual("uncommitted" in line, dirty)

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
