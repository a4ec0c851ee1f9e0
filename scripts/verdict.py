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
ratio); 1.0 means "no difference". The paper gives either a number p (kind "value"), only a
direction (kind "greater": A > B, "less": A < B), or says there is no difference within a
tolerance (kind "equal"). persim gives mean m with 95% CI half-width h.

The rule is on the *effect*, not on the ratio m/p: a 6% effect reproduced as 2% is a third of the
effect, though 1.02/1.06 is within 4%.
    effect = (m - 1) / (p - 1)     (1 = the paper's effect reproduced; 0 = no effect; < 0 reversed)
  1. persim's ordering: "above" if m - h > 1, "below" if m + h < 1, otherwise "inside noise"
     (for an exact quantity h = 0, so only m == 1 is inside noise).
  2. kind "value" (the log effect ln(m)/ln(p) must pass the same bound as the effect, so that
     ratios far from 1.0, e.g. counts 0.00015 vs 0.0174, are not "the paper's effect"):
       |m - p| <= TOL |p - 1| (effect within 1 +- TOL, TOL = 0.25, or the claim's own
       stated tolerance) and persim's CI on the paper's side of 1.0              -> matches
       CI on the paper's side of 1.0 and effect in [0.5, 2]                      -> same trend
       otherwise (ordering reversed, inside noise, or effect < 0.5 or > 2)       -> differs
     kind "greater"/"less" (no paper number, no effect):
       CI on the paper's side of 1.0                                             -> same trend
       otherwise                                                                 -> differs
     (a paper value of exactly 1.0 with kind "value" is treated as kind "equal")
  3. kind "equal" (paper: A and B within tol of each other, tol absolute on the ratio):
       |m - 1| <= tol                                                            -> matches
       otherwise                                                                  -> differs
The verdict is mechanical (one function, `verdict`); the explanation of a difference is written by
hand in the figure scripts' notes. `provenance()` gives the commit (git describe, "-dirty" when tracked
files outside results/ have uncommitted changes) that the results READMEs print.
"""
import functools
import math

TOL = 0.25          # on the effect: |m - p| <= TOL * |p - 1|
TREND = (0.5, 2.0)  # effect range of "same trend"

RULE = ("**Verdict rule** (`scripts/verdict.py`, the same for every figure): each claim is a ratio of two "
        "designs, 1.0 = no difference; persim's value m is the mean over seeds with its 95% Student-t confidence "
        "interval (CI); for a paper number p the *effect* is (m - 1)/(p - 1): 1 = the paper's effect reproduced, "
        "0 = no effect, negative = reversed. *matches*: |m - p| <= {tol} of |p - 1| (effect within 1 ± {tol}) and "
        "persim's CI on the paper's side of 1.0; *same trend*: CI on the paper's side of 1.0 and effect between 0.5 "
        "and 2 (or the paper gives only a direction); the log effect ln(m)/ln(p) must pass the same bound (for ratios "
        "far from 1.0); *differs*: anything else (ordering reversed, CI contains 1.0, "
        "or less than half / more than twice the paper's effect). For a claim of no difference (\"within 1%\") "
        "*matches* means persim's mean is within that tolerance of 1.0, else *differs*. *exact* = every run "
        "behind the number is seed-independent (one run, no spread). Tables are sorted by |effect - 1|, the "
        "largest gaps first.")


def rule_text():
    """RULE with the default tolerance filled in (what every results README prints)."""
    return RULE.format(tol=f"{TOL:.0%}")


@functools.lru_cache(maxsize=None)
def t95(df):
    """t(0.975, df): the two-sided 95% Student-t quantile with df degrees of freedom (df = n - 1 seeds),
    from scipy (Debian python3-scipy, scripts/install-deps.sh)."""
    if df < 1:
        return float("nan")
    try:
        from scipy.stats import t
    except ImportError:
        raise SystemExit("verdict.py: the confidence intervals need scipy: apt-get install python3-scipy "
                         "(scripts/install-deps.sh)")
    return float(t.ppf(0.975, df))


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


def effect(m, paper):
    """(m - 1)/(paper - 1): the share of the paper's effect persim reproduces (nan if undefined)."""
    if isnan(m) or paper is None or isnan(paper) or paper == 1.0:
        return float("nan")
    return (m - 1.0) / (paper - 1.0)


def log_effect(m, paper):
    """ln(m)/ln(paper): the effect on a log scale (equal to effect() to first order near 1.0); nan if
    undefined. Used beside effect() so that ratios far from 1 (counts: 0.00015 against 0.0174) are
    not judged "the paper's effect" merely because both are far below 1."""
    if isnan(m) or paper is None or isnan(paper) or paper <= 0 or m <= 0 or paper == 1.0:
        return float("nan")
    return math.log(m) / math.log(paper)


def verdict(m, h, paper=None, kind="value", tol=None):
    """The verdict for persim mean m (CI half-width h) against the paper: 'matches', 'same trend',
    'differs' or 'n/a'; returns (verdict, short reason). tol: for kind "value" the tolerance on the
    effect (default TOL), for kind "equal" the absolute tolerance of the ratio around 1.0."""
    if isnan(m):
        return "n/a", "no persim number"
    if kind == "value" and paper is not None and paper == 1.0:
        kind = "equal"
    if kind == "equal":
        tol = 0.01 if tol is None else tol
        d = abs(m - 1.0)
        if d <= tol:
            return "matches", f"within {tol:.0%} of 1.0"
        return "differs", f"{d:.1%} from 1.0, paper within {tol:.0%}"
    tol = TOL if tol is None else tol
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
    e = effect(m, paper)
    le = log_effect(m, paper)
    le_ok = lambda lo, hi: isnan(le) or lo <= le <= hi
    if abs(m - paper) <= tol * abs(paper - 1.0) and le_ok(1.0 - tol, 1.0 + tol):
        return "matches", f"effect {e:.2f}, within 1 ± {tol:.2g}"
    if TREND[0] <= e <= TREND[1] and le_ok(*TREND):
        return "same trend", f"effect {e:.2f}"
    if TREND[0] <= e <= TREND[1]:   # the linear effect alone would pass: a ratio far from 1.0
        return "differs", f"effect {e:.2f} but {m / paper:.2g}x the paper's ratio (log effect {le:.2f})"
    return "differs", f"effect {e:.2f}: {'under half' if e < TREND[0] else 'over twice'} the paper's"


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



def fmt_effect(e, lo, hi):
    """'0.45 [0.40, 0.50]' (the effect and its range over persim's CI); 'n/a' if undefined."""
    if isnan(e):
        return "n/a"
    if isnan(lo) or isnan(hi) or (lo == e and hi == e):
        return f"{e:.2f}"
    return f"{e:.2f} [{lo:.2f}, {hi:.2f}]"


class Claims:
    """Collects the claims of one README and renders the verdict tables: `table()` in the order the
    claims were added, sorted by |effect - 1| (largest gaps first) with sort=True; `headlines()` the
    claims added with headline=True (all claims if none is), sorted so."""

    def __init__(self):
        self.rows = []

    def add(self, where, claim, est, paper=None, kind="value", tol=None, paper_text=None, headline=False):
        """est = (mean, half, n) from summarize(); paper = the paper's number (or None)."""
        m, h, n = est
        v, why = verdict(m, h, paper, kind, tol)
        if paper_text is None:
            paper_text = fmt(paper) if paper is not None else {"greater": "> 1", "less": "< 1", "equal": "1.00"}.get(kind, "-")
        e = effect(m, paper) if kind == "value" else NAN
        hh = 0.0 if isnan(h) else h
        ends = [effect(m - hh, paper), effect(m + hh, paper)] if not isnan(e) else [NAN, NAN]
        self.rows.append(dict(where=where, claim=claim, m=m, h=h, n=n, paper=paper, paper_text=paper_text,
                              effect=e, effect_lo=min(ends), effect_hi=max(ends), verdict=v, why=why,
                              tol=tol, kind=kind, headline=headline))
        return v

    def counts(self, rows=None):
        c = {}
        for r in (self.rows if rows is None else rows):
            c[r["verdict"]] = c.get(r["verdict"], 0) + 1
        return c

    @staticmethod
    def gap(r):
        """Sort key: |effect - 1| (claims without an effect after those with one, then by verdict)."""
        e = r["effect"]
        if isnan(e):
            return (1, {"differs": 0, "same trend": 1, "matches": 2}.get(r["verdict"], 3), 0.0)
        return (0, 0, -abs(e - 1.0))

    def table(self, nd=2, sort=False, rows=None):
        rows = list(self.rows if rows is None else rows)
        if sort:
            rows.sort(key=Claims.gap)
        L = ["| figure | claim | persim (mean ± 95% CI) | paper | effect [over the CI] | verdict |",
             "|---|---|---|---|---|---|"]
        for r in rows:
            L.append(f"| {r['where']} | {r['claim']} | {fmt_ci(r['m'], r['h'], r['n'], nd)} | {r['paper_text']} | "
                     f"{fmt_effect(r['effect'], r['effect_lo'], r['effect_hi'])} | **{r['verdict']}** ({r['why']}) |")
        return "\n".join(L)

    def headline_rows(self):
        hl = [r for r in self.rows if r["headline"]]
        return hl if hl else list(self.rows)

    def headlines(self, nd=2):
        """The headline claims sorted by |effect - 1|, largest gap first."""
        return self.table(nd, sort=True, rows=self.headline_rows())

    def summary(self, rows=None):
        c = self.counts(rows)
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


# ---- provenance ----------------------------------------------------------------------------

def provenance(root=None):
    """(describe, dirty): the commit (`git describe --always`) of the repository (ROOT by default) and
    whether the tree has uncommitted changes to tracked files outside results/ (the code, configs,
    scripts and docs the numbers come from; a figure script rewriting its own results/ files while it
    runs does not make its README dirty). describe ends in "-dirty" when dirty; ("unknown", False)
    outside a git checkout."""
    import os
    import subprocess
    root = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def git(*args):
        try:
            r = subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True, timeout=30)
            return r.stdout.strip() if r.returncode == 0 else None
        except (OSError, subprocess.SubprocessError):
            return None
    d = git("describe", "--always", "--abbrev=12")
    if not d:
        return "unknown", False
    st = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results")
    dirty = bool(st)
    return (d + "-dirty" if dirty else d), dirty


def provenance_line(script, runs_from=None):
    """The line every results README carries: the commit it was generated from, and a warning when
    the tree was dirty. runs_from: the persim_git values of the sweep rows behind the numbers."""
    d, dirty = provenance()
    s = f"Generated by `{script}` at commit `{d}`"
    if dirty:
        s += " **from a tree with uncommitted changes (dirty): the numbers may not match any commit**"
    s += "."
    if runs_from:
        vals = sorted({v for v in runs_from if v})
        if vals:
            s += " Runs by persim " + ", ".join(f"`{v}`" for v in vals[:4]) + (f" and {len(vals) - 4} more" if len(vals) > 4 else "") + "."
    return s


# ---- figure conventions (every figure script): the paper's numbers and the seeds on the plot ----

PAPER_STYLE = dict(marker="D", color="red", markeredgecolor="black", markersize=6, linestyle="none", zorder=5)


def paper_marks(ax, xs, ys, label="paper's value"):
    """The paper's number for each bar or point: a red diamond at (x, y) (y None/nan = the paper gives
    none for that bar). Returns the legend handle (or None when no mark was drawn)."""
    pts = [(x, y) for x, y in zip(xs, ys) if y is not None and not isnan(y)]
    if not pts:
        return None
    h, = ax.plot([p[0] for p in pts], [p[1] for p in pts], label=label, **PAPER_STYLE)
    return h


def paper_line(ax, y, label="paper's value", horizontal=True):
    """A reference line at the paper's number (a figure where the paper gives one number for all)."""
    if y is None or isnan(y):
        return None
    return (ax.axhline if horizontal else ax.axvline)(y, color="red", linestyle="--", linewidth=1.2, label=label,
                                                      zorder=4)


def seeds_text(n, exact_note=True):
    """The caption fragment every figure with error bars carries: how many seeds are behind them."""
    s = f"error bars: 95% CI over {n} seed{'s' if n != 1 else ''}"
    if exact_note:
        s += "; hatched: seed-independent (one run, no spread)"
    return s


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

TIERS = ("quick", "paper")   # `make figures-all TIER=...`: quick = today's sizes (CI), paper = paper-like scale


def add_tier_args(ap):
    """The options every figure script takes for `make figures-all` (scripts/figures_all.py)."""
    ap.add_argument("--tier", choices=TIERS, default="quick",
                    help="sizes: quick (default, today's sizes) or paper (paper-like scale where the script "
                         "defines it; elsewhere the quick sizes)")
    ap.add_argument("--plan", action="store_true",
                    help="print the sweeps this run would start (JSON: name, spec, out) and exit")
    ap.add_argument("--record-timing", action="store_true",
                    help="store this run's wall time in OUT/timing.json even when points were skipped")


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
    add_tier_args(ap)
    return ap.parse_args()


def load_spec(path):
    """A sweep spec or config file: plain JSON (shipped files carry their sources in "_about" /
    "_sources" keys; persim ignores keys starting with '_')."""
    import json
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def tier_spec(spec, name, out_dir, tier, overrides):
    """The spec file to sweep at this tier: spec itself when the tier changes nothing for it, else a
    copy with overrides[tier][name] (spec keys replaced, e.g. {"sizes": [...]}) written to
    out_dir/specs-<tier>/<name>.json."""
    import json
    import os
    ov = (overrides or {}).get(tier, {}).get(name)
    if not ov:
        return spec
    s = load_spec(spec)
    s.update(ov)
    d = os.path.join(out_dir, "specs-" + tier)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name + ".json")
    with open(path, "w") as f:
        json.dump(s, f, indent=1)
    return path


def tier_changes(tier, overrides):
    """True when the tier runs other sizes than quick for some spec (the results then go elsewhere)."""
    return any((overrides or {}).get(tier, {}).values())


def tier_out(a, overrides):
    """At a tier that changes sizes (tier_changes) the results go to <out>/<tier>/ (results README
    included), beside the quick tier's in <out>/; a tier that changes nothing shares <out>/ (no rerun)."""
    import os
    if getattr(a, "tier", "quick") != "quick" and tier_changes(a.tier, overrides):
        a.out = os.path.join(a.out, a.tier)
    return a.out


def run_items(a, items, cwd=None):
    """Runs `persim sweep SPEC -j a.jobs --out OUT [--force]` for every (name, spec, out) of items,
    unless a.no_run; with a.plan prints items as JSON (what scripts/figures_all.py counts) and exits.
    Returns (names of the sweeps that failed, seconds spent)."""
    import json
    import os
    import subprocess
    import sys
    import time
    if getattr(a, "plan", False):
        print(json.dumps([{"name": n, "spec": s, "out": o, "cwd": cwd or os.getcwd()} for n, s, o in items]))
        sys.exit(0)
    t0 = time.time()
    a.sweep_items, a.sweep_t0, a.sweep_cwd = list(items), t0, cwd   # for figlib.points_run
    failed = []
    if not getattr(a, "no_run", False):
        for name, spec, out in items:
            cmd = [a.persim, "sweep", spec, "-j", str(a.jobs), "--out", out]
            if a.force:
                cmd.append("--force")
            print("+ " + " ".join(cmd), flush=True)
            if subprocess.run(cmd, cwd=cwd).returncode != 0:
                failed.append(name)
    return failed, time.time() - t0


def run_sweeps(a, specs, overrides=None):
    """Runs `persim sweep` for every spec (unless --no-run; only --only ones if given) into
    <out>/raw/<spec>, at a.tier (overrides: {tier: {spec: spec keys}}, tier_spec). Returns (names of
    specs whose sweep failed, seconds spent)."""
    import os
    if not getattr(a, "plan", False):
        os.makedirs(os.path.join(a.out, "raw"), exist_ok=True)
    items = [(n, tier_spec(os.path.join(a.specs, n + ".json"), n, os.path.join(a.out, "raw"),
                           getattr(a, "tier", "quick"), overrides), os.path.join(a.out, "raw", n))
             for n in specs if not (a.only and n not in a.only) and tier_runs(n, getattr(a, "tier", "quick"))]
    return run_items(a, items)


def tier_runs(spec, tier):
    """A spec named paper_* (a paper-scale run of a figure, issue 23) is swept only at tier paper; its
    results, once there, are read and shown beside the small runs at every tier."""
    return not spec.startswith("paper_") or tier == "paper"
