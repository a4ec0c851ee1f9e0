#!/usr/bin/env python3
"""Spread over seeds and the verdict rule used by every figure script (scripts/sbrp_figures.py,
scripts/scoped_barriers.py). Pure Python: no scipy, no numpy, no matplotlib.

Spread
------
A quantity is measured once per seed (`sim.seed`: the workload's keys, inputs and placement;
docs/figures.md lists what it changes per workload). `summarize(xs)` gives the mean and the
half-width of a two-sided 95% Student-t confidence interval over the seeds:
    half = t(0.975, n-1) * s / sqrt(n),   s = sample standard deviation.
A quantity built only from seed-independent runs (the workload's timing does not depend on the
seed, checked by running two seeds) is *exact*: half = 0, n = 1, and the tables say so instead of
drawing a zero-width error bar. A quantity measured with one seed of a seed-dependent workload
has an unknown spread (half = nan).

Verdict rule (RULE below is printed into each results README)
------------------------------------------------------------
Every paper claim is a ratio of two designs (A over B: a speedup, a normalized time, a count
ratio); 1.0 means "no difference". The paper gives either a number (kind "value"), only a
direction (kind "greater": A > B, "less": A < B), or says there is no difference within a
tolerance (kind "equal"). persim gives mean m with 95% CI half-width h.

  1. persim's ordering: "above" if m - h > 1, "below" if m + h < 1, otherwise "inside noise"
     (for an exact quantity h = 0, so only m == 1 is inside noise).
  2. kind "value" and "greater"/"less":
       ordering reversed (persim above/below where the paper is below/above 1)  -> differs
       persim inside noise                                                       -> differs
       same ordering, |m / paper - 1| <= tol (kind "value" only)                 -> matches
       same ordering otherwise (magnitude outside tol, or no paper number)       -> same trend
     (a paper value of exactly 1.0 with kind "value" is treated as kind "equal")
  3. kind "equal" (paper: A and B within tol of each other):
       |m - 1| <= tol                                                            -> matches
       otherwise                                                                  -> differs
The default tolerance is TOL = 10% of the paper's number; a claim may state its own (e.g. the
paper's "within 1%"). The verdict is mechanical; the explanation of a difference is written by
hand in the figure scripts' notes.
"""
import math

TOL = 0.10

# Two-sided 95% Student-t quantiles t(0.975, df), df = n - 1 (standard table values).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
       10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
       18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}

RULE = ("**Verdict rule** (`scripts/verdict.py`, the same for every figure): each claim is a ratio of two "
        "designs, 1.0 = no difference; persim's value is the mean over seeds with its 95% Student-t confidence "
        "interval (CI). *matches*: persim's mean within {tol} of the paper's number and persim's CI on the same "
        "side of 1.0 as the paper; *same trend*: same side of 1.0 (same ordering of the designs), magnitude outside "
        "the tolerance (or the paper gives only a direction); *differs*: the ordering is reversed, or persim's CI "
        "contains 1.0 (the difference is inside persim's noise). For a claim of no difference (\"within 1%\") "
        "*matches* means persim's mean is within that tolerance of 1.0, else *differs*. *exact* = every run "
        "behind the number is seed-independent (one run, no spread).")


def t95(df):
    """t(0.975, df); between table rows the next smaller df's (larger, conservative) value."""
    if df < 1:
        return float("nan")
    best = max(k for k in T95 if k <= df)
    return T95[best]


def isnan(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


def summarize(xs, exact=False):
    """(mean, half-width of the 95% CI, n) of the per-seed values xs (nan values dropped).
    exact=True: the values come from seed-independent runs (half-width 0)."""
    xs = [x for x in xs if not isnan(x)]
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan"), 0
    m = sum(xs) / n
    if exact:
        return m, 0.0, 1
    if n == 1:
        return m, float("nan"), 1
    s = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, t95(n - 1) * s / math.sqrt(n), n


def side(m, h):
    """persim's ordering of the two designs: 'above', 'below' or 'noise'."""
    if isnan(m):
        return "n/a"
    h = 0.0 if isnan(h) else h
    if m - h > 1.0:
        return "above"
    if m + h < 1.0:
        return "below"
    return "noise"


def verdict(m, h, paper=None, kind="value", tol=TOL):
    """The verdict for persim mean m (CI half-width h) against the paper: 'matches', 'same trend',
    'differs' or 'n/a'; returns (verdict, short reason)."""
    if isnan(m):
        return "n/a", "no persim number"
    if kind == "value" and paper is not None and paper == 1.0:
        kind = "equal"
    if kind == "equal":
        d = abs(m - 1.0)
        if d <= tol:
            return "matches", f"within {tol:.0%} of 1.0"
        return "differs", f"{d:.1%} from 1.0, paper within {tol:.0%}"
    if kind == "value":
        if paper is None or isnan(paper):
            return "n/a", "no paper number"
        want = "above" if paper > 1.0 else "below"
    elif kind == "greater":
        want = "above"
    elif kind == "less":
        want = "below"
    else:
        raise ValueError(f"unknown claim kind {kind!r}")
    got = side(m, h)
    if got == "noise":
        return "differs", "difference inside persim's noise (CI contains 1.0)"
    if got != want:
        return "differs", "ordering reversed"
    if kind != "value":
        return "same trend", "same ordering; the paper gives no number"
    r = m / paper
    if abs(r - 1.0) <= tol:
        return "matches", f"within {tol:.0%}"
    return "same trend", f"same ordering, {abs(r - 1.0):.0%} off"


def fmt(x, nd=2):
    return "n/a" if isnan(x) else f"{x:.{nd}f}"


def fmt_ci(m, h, n, nd=2):
    """'1.23 ± 0.04' ; exact numbers: '1.23 (exact)'; one seed of a random workload: '1.23 (1 seed)'.
    Numbers too small for nd decimals get two significant digits."""
    if isnan(m):
        return "n/a"
    if not isnan(h) and abs(h) < 1e-9 * max(abs(m), 1e-300):
        h = 0.0 if n == 1 else abs(h) * 0.0      # floating-point residue of identical values
    if m != 0 and abs(m) < 10 ** (1 - nd):
        f = lambda x: f"{x:.2g}"
        if n == 1 and h == 0.0:
            return f"{f(m)} (exact)"
        return f"{f(m)} (1 seed)" if isnan(h) else f"{f(m)} ± {f(h)}"
    if n == 1 and h == 0.0:
        return f"{m:.{nd}f} (exact)"
    if isnan(h):
        return f"{m:.{nd}f} (1 seed)"
    return f"{m:.{nd}f} ± {h:.{nd}f}"


# ---------------------------------------------------------------------------------------------
# Quantities per seed, for the figure scripts.

NAN = float("nan")


class PS:
    """A quantity per input seed: v = {seed: value}; exact = built only from seed-independent runs
    (then v holds one seed); const = run at one seed only and used for every seed when combined with
    seed-dependent quantities (its own spread is unknown: summary() gives n = 1, half-width nan)."""
    __slots__ = ("v", "exact", "const")

    def __init__(self, v, exact, const=False):
        self.v, self.exact, self.const = v, exact, const

    def fixed(self):
        return self.exact or self.const

    def one(self):
        return self.v[min(self.v)] if self.v else NAN

    def summary(self):
        return summarize(list(self.v.values()), exact=self.exact)


def lift(f, *args):
    """f applied seed by seed (an exact or const argument is the same for every seed)."""
    if all(a.fixed() for a in args):
        return PS({1: f(*[a.one() for a in args])}, all(a.exact for a in args), not all(a.exact for a in args))
    seeds = sorted(set().union(*[set(a.v) for a in args if not a.fixed()]))
    return PS({s: f(*[a.one() if a.fixed() else a.v.get(s, NAN) for a in args]) for s in seeds}, False)


def _ratio(a, b):
    return a / b if not isnan(a) and not isnan(b) and b != 0 else NAN


def ratio(a, b):
    return lift(_ratio, a, b)



class Claims:
    """Collects the claims of one README and renders the verdict table."""

    def __init__(self):
        self.rows = []

    def add(self, where, claim, est, paper=None, kind="value", tol=TOL, paper_text=None):
        """est = (mean, half, n) from summarize(); paper = the paper's number (or None)."""
        m, h, n = est
        v, why = verdict(m, h, paper, kind, tol)
        if paper_text is None:
            paper_text = fmt(paper) if paper is not None else {"greater": "> 1", "less": "< 1", "equal": "1.00"}.get(kind, "-")
        ratio = m / paper if paper not in (None, 0) and not isnan(m) else (m if kind == "equal" else NAN)
        self.rows.append(dict(where=where, claim=claim, m=m, h=h, n=n, paper=paper, paper_text=paper_text,
                              ratio=ratio, verdict=v, why=why, tol=tol, kind=kind))
        return v

    def counts(self):
        c = {}
        for r in self.rows:
            c[r["verdict"]] = c.get(r["verdict"], 0) + 1
        return c

    def table(self, nd=2):
        L = ["| figure | claim | persim (mean ± 95% CI) | paper | persim / paper | tolerance | verdict |",
             "|---|---|---|---|---|---|---|"]
        for r in self.rows:
            L.append(f"| {r['where']} | {r['claim']} | {fmt_ci(r['m'], r['h'], r['n'], nd)} | {r['paper_text']} | "
                     f"{fmt(r['ratio']) if isnan(r['ratio']) or abs(r['ratio']) >= 0.01 else format(r['ratio'], '.2g')} | {r['tol']:.0%} | **{r['verdict']}** ({r['why']}) |")
        return "\n".join(L)

    def summary(self):
        c = self.counts()
        return ", ".join(f"{c.get(k, 0)} {k}" for k in ("matches", "same trend", "differs", "n/a") if c.get(k))


def plateau(series, exact=False, higher_is_better=True):
    """series: {label: [per-seed values, in the same seed order for every label]}. The best label by
    mean, and every label the seeds do not separate from it: the 95% CI of the paired per-seed
    difference (best - label) contains 0 (exact series: only equal values). Returns (best, [labels])."""
    ok = {k: v for k, v in series.items() if v and not any(isnan(x) for x in v)}
    if not ok:
        return None, []
    mean = {k: sum(v) / len(v) for k, v in ok.items()}
    best = (max if higher_is_better else min)(mean, key=lambda k: mean[k])
    out = []
    for k, v in ok.items():
        d = [a - b for a, b in zip(ok[best], v)]
        m, h, n = summarize(d, exact=exact)
        h = 0.0 if isnan(h) else h
        if abs(m) <= h:
            out.append(k)
    return best, out


# ---- sweep rows (persim sweep's sweep.csv, docs/sweeps.md), shared by the figure scripts ----------

def read_sweep(path):
    """The rows of a sweep.csv ([] if the sweep has not run)."""
    import csv
    import os
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def match(r, kv):
    """True if row r has every column value of kv (numbers compared as numbers)."""
    for k, v in kv.items():
        x = r.get(k, "")
        try:
            if float(x) != float(v):
                return False
        except (TypeError, ValueError):
            if str(x) != str(v):
                return False
    return True


def seed_of(r):
    """The input seed (sim.seed) of a sweep row, from its point name (`-seed<N>-`)."""
    import re
    m = re.search(r"-seed(\d+)(-|$)", r.get("point", ""))
    return int(m.group(1)) if m else int(r.get("seed") or 1)


# ---- the shared driver of the figure scripts (lightwsp_figures.py, broi_figures.py) ----

def figure_args(doc, specs, out):
    """The command line every figure script takes: where persim, the sweep specs and the results are."""
    import argparse
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--persim", default="build/persim")
    ap.add_argument("--specs", default=specs)
    ap.add_argument("--out", default=out)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--force", action="store_true", help="rerun every point (default: skip points with results)")
    ap.add_argument("--no-run", action="store_true", help="only redraw from the existing sweep CSVs")
    ap.add_argument("--only", action="append", help="run only these specs (repeatable); figures use what exists")
    return ap.parse_args()


def run_sweeps(a, specs):
    """Runs `persim sweep` for every spec (unless --no-run; only --only ones if given) into
    <out>/raw/<spec>. Returns (names of specs whose sweep failed, seconds spent)."""
    import os
    import subprocess
    import time
    os.makedirs(os.path.join(a.out, "raw"), exist_ok=True)
    t0 = time.time()
    failed = []
    if not a.no_run:
        for name in specs:
            if a.only and name not in a.only:
                continue
            cmd = [a.persim, "sweep", os.path.join(a.specs, name + ".json"), "-j", str(a.jobs),
                   "--out", os.path.join(a.out, "raw", name)]
            if a.force:
                cmd.append("--force")
            print("+ " + " ".join(cmd), flush=True)
            if subprocess.run(cmd).returncode != 0:
                failed.append(name)
    return failed, time.time() - t0
