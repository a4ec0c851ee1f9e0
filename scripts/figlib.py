"""The pieces every figure script shares (issue 22): numbers per seed, sweep rows, CSVs and
Markdown tables of them, the error-bar bar chart, matplotlib, and the README's header and timing
tail. The verdict rule, the provenance line, the paper's marks and the sweep driver stay in
scripts/verdict.py (figlib calls them); a figure script imports this module and verdict.py, never
another figure script."""
import csv
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict as V  # noqa: E402
from verdict import PS, lift, NAN  # noqa: E402,F401

isnan, fmt = V.isnan, V.fmt
read_sweep, match, seed_of = V.read_sweep, V.match, V.seed_of


# ---- numbers ----------------------------------------------------------------------------------

def geomean(xs):
    """Geometric mean of the positive, non-nan xs (nan if none)."""
    xs = [x for x in xs if not isnan(x) and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else NAN


def gmean(ps):
    """Seed by seed geometric mean of the PS values ps (nan where any is nan)."""
    return lift(lambda *xs: geomean(xs) if not any(isnan(x) for x in xs) else NAN, *ps)


def amean(ps):
    """Seed by seed arithmetic mean of the PS values ps (nan where any is nan)."""
    return lift(lambda *xs: sum(xs) / len(xs) if not any(isnan(x) for x in xs) else NAN, *ps)


def runs(rows, col="sim_ns", seedless=(), **kv):
    """The column of every ok row matching kv, per seed (a failed or missing point gives nan). A
    workload in seedless is seed-independent: its lowest seed's value, exact."""
    d = {}
    for r in rows:
        if match(r, kv):
            s = seed_of(r)
            d[s] = float(r[col]) if r.get("status") == "ok" and r.get(col, "") != "" else NAN
    exact = kv.get("workload") in seedless
    if exact and d:
        d = {min(d): d[min(d)]}
    return PS(d, exact)


def rows_of(res, spec):
    """The rows of res/raw/<spec>/sweep.csv (the layout of V.run_sweeps)."""
    return read_sweep(os.path.join(res, "raw", spec, "sweep.csv"))


def seeds_in(rows):
    """Distinct input seeds behind a sweep's rows (at least 1)."""
    return len({seed_of(r) for r in rows}) or 1


def nseeds(values, series=None, groups=None):
    """The largest number of seeds behind any cell values[s][g] (for a figure's caption)."""
    n = 0
    for s in (series or values):
        for g in (groups or values[s]):
            if g in values[s]:
                n = max(n, values[s][g].summary()[2])
    return n


def cell(ps, nd=2):
    """'mean ± CI half-width' of a PS (V.fmt_ci)."""
    m, h, n = ps.summary()
    return V.fmt_ci(m, h, n, nd)


# ---- CSVs and Markdown tables -----------------------------------------------------------------

def write_csv(path, first, groups, series, values, extra=None, name=None):
    """One row per group: for every series its mean and 95% CI half-width over the seeds, and the
    number of seeds behind the row ('1 (seed-independent)' when every run of the row is). extra:
    (header, rows) of columns after the first; name(s): a series' column name (default: s)."""
    name = name or (lambda s: s)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([first] + (list(extra[0]) if extra else []) +
                   [c for s in series for c in (name(s), name(s) + "_ci95")] + ["seeds"])
        for i, g in enumerate(groups):
            row, ns, exact = [g] + (list(extra[1][i]) if extra else []), [], True
            for s in series:
                m, h, n = values[s][g].summary()
                row += [fmt(m, 4), "seed-independent" if values[s][g].exact else fmt(h, 4)]
                ns.append(n)
                exact &= values[s][g].exact
            row.append("1 (seed-independent)" if exact else str(max(ns) if ns else 0))
            w.writerow(row)


def write_rows(path, header, rows):
    """A plain CSV: the header, then the rows as they are."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def table(groups, series, values, first="workload", labels=None, nd=2):
    """Markdown table lines: a row per group, a column per series, cell() in each."""
    L = [f"| {first} | " + " | ".join((labels or {}).get(s, s) for s in series) + " |",
         "|---|" + "---|" * len(series)]
    for g in groups:
        L.append(f"| {g} | " + " | ".join(cell(values[s][g], nd) for s in series) + " |")
    return L


def mech_table(d, keys, cols=None, head="workload"):
    """Markdown table lines of d[key][col] (PS): a row per key, a column per col (default: d's first)."""
    cols = cols or list(next(iter(d.values())).keys())
    L = ["| " + head + " | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for w in keys:
        L.append(f"| {w} | " + " | ".join(cell(d[w][c], 2) for c in cols) + " |")
    return L


# ---- plots ------------------------------------------------------------------------------------

def plt_or_none(missing=None):
    """matplotlib.pyplot with the Agg backend, or None (then missing, if given, goes to stderr)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        if missing:
            print(missing, file=sys.stderr)
        return None


def hatch(rects, flags):
    """Hatches the bars (of one ax.bar) whose flag is set: the seed-independent cells."""
    for rect, hz in zip(rects, flags):
        if hz:
            rect.set_hatch("///")
            rect.set_edgecolor("white")


def hatch_legend(ax, label="seed-independent"):
    """The axes' legend handles and labels plus a grey hatched patch for the hatched (exact) bars."""
    from matplotlib.patches import Patch
    h, l = ax.get_legend_handles_labels()
    return h + [Patch(facecolor="grey", hatch="///", edgecolor="white")], l + [label]


def bars(plt, path, title, ylabel, groups, series, values, labels=None, baseline=1.0, ymin=0.0, log=True,
         paper=None, paper_hline=None, nseed=None, paper_label="paper's value", figsize=None, xlabel=None,
         exact_label=None, zero_caps=True, paper_in_ylim=False, shade_means=True, rotate=True, headroom=None,
         caption=None, legend=None, dpi=110):
    """Grouped bars of values[s][g] (PS): mean with the 95% CI over seeds as error bars. paper:
    {series: {group: the paper's number}} drawn as markers on those bars (V.paper_marks; a paper dict
    with no number for these bars says so in the default caption); paper_hline: (y, label) a reference
    line where the paper gives one number for all (V.paper_line). nseed: the seeds behind the error bars
    (default: counted from values).
    The defaults draw the LightWSP/BROI figures; the options the others need: figsize (default: from
    the number of bars); xlabel; exact_label: hatch the seed-independent cells and name them so in the
    legend; zero_caps: error caps also on bars without a spread; paper_in_ylim: the paper's numbers
    widen the y range; shade_means: grey behind the ' gm'/geomean/mean groups; rotate: slanted group
    names; headroom: linear y from ymin to top * headroom (default: log, or room for the legend rows);
    caption: the title's second line (default: seeds, shading, a missing paper number); legend: the
    legend's keyword arguments (default: up to 4 columns, fontsize 7, upper left); dpi."""
    if plt is None:
        return
    if figsize is None:
        figsize = (min(14, max(6, 0.45 * len(groups) * max(1, len(series)) ** 0.5 + 2)), 4.6)
    fig, ax = plt.subplots(figsize=figsize)
    n = len(series)
    width = 0.8 / n
    xs = list(range(len(groups)))
    top = 1.0
    marked = False
    for i, s in enumerate(series):
        ms, hs = [], []
        for g in groups:
            m, h, k = values[s][g].summary()
            ms.append(m)
            hs.append(0.0 if isnan(h) else h)
            if not isnan(m):
                top = max(top, m + hs[-1])
        pos = [x + (i - (n - 1) / 2) * width for x in xs]
        b = ax.bar(pos, ms, width, label=(labels or {}).get(s, s), color=f"C{i}")
        if exact_label:
            hatch(b, [values[s][g].exact for g in groups])
        if zero_caps:
            ax.errorbar(pos, ms, yerr=hs, fmt="none", ecolor="black", elinewidth=1, capsize=2)
        else:
            ax.errorbar([p for p, h in zip(pos, hs) if h > 0], [m for m, h in zip(ms, hs) if h > 0],
                        yerr=[h for h in hs if h > 0], fmt="none", ecolor="black", elinewidth=1, capsize=2)
        pv = (paper or {}).get(s)
        if pv:
            ys = [pv.get(g) for g in groups]
            if V.paper_marks(ax, pos, ys, label="_nolegend_" if marked else paper_label) is not None:
                marked = True
            if paper_in_ylim:
                top = max([top] + [y for y in ys if y is not None])
    if paper_hline:
        V.paper_line(ax, paper_hline[0], label=paper_hline[1])
    if shade_means:
        for j, g in enumerate(groups):        # separate the class / mean bars from the workloads
            if g.endswith(" gm") or g == "geomean" or g == "mean":
                ax.axvspan(j - 0.45, j + 0.45, color="grey", alpha=0.12, linewidth=0)
    ax.set_xticks(xs)
    if rotate:
        ax.set_xticklabels(groups, rotation=35, ha="right", fontsize=8)
    else:
        ax.set_xticklabels(groups)
    if baseline is not None:
        ax.axhline(baseline, color="black", linewidth=0.8)
    if log:            # slowdowns span 1.3x (profiles) to 100x+ (Capri on the kernels)
        ax.set_yscale("log")
        ax.set_ylim(ymin if ymin > 0 else 0.8, top * 2.5)
        from matplotlib.ticker import ScalarFormatter
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.set_ylabel(ylabel + " (log scale)")
    else:
        if headroom is not None:
            ax.set_ylim(ymin, top * headroom)
        else:
            ax.set_ylim(ymin, ymin + (top - ymin) * (1.25 + 0.12 * ((n + 1) // 4)))   # room for the legend rows
        if xlabel is not None:
            ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
    if caption is None:
        ns = nseed if nseed is not None else nseeds(values, series, groups)
        caption = ("bars: mean over seeds; " + V.seeds_text(ns, exact_note=False) + "; shaded: class and overall means" +
                   ("\nthe paper gives no number for these bars" if paper is not None and not marked and not paper_hline
                    else ""))
    ax.set_title(title + "\n" + caption, fontsize=9)
    h, l = hatch_legend(ax, exact_label) if exact_label else ax.get_legend_handles_labels()
    ax.legend(h, l, **(legend or dict(ncol=min(n + (1 if marked else 0), 4), fontsize=7, loc="upper left")))
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def csv_and_png(out, plt, name, title, ylabel, groups, series, values, first="workload", labels=None, **kw):
    """out/name.csv (write_csv) and out/name.png (bars) of the same values."""
    write_csv(os.path.join(out, name + ".csv"), first, groups, series, values)
    bars(plt, os.path.join(out, name + ".png"), title, ylabel, groups, series, values, labels, **kw)


# ---- the papers' numbers that more than one script marks (quoted, never passed to the simulator) ----

# SBRP (ASPLOS'23) section 7.2 over epoch-far, the numbers Figure 6's bars can carry: averages (geomean
# bars) and the per-workload values it states for SBRP-far; GPM's bar is the inverse of "epoch-far over
# GPM, 1.06". Drawn by sbrp_figures.py (Figure 6) and demo.py.
SBRP_PAPER_F6 = {"sbrp-far": {"geomean": 1.14, "reduction": 1.90, "srad": 1.03, "scan": 1.065},
                 "epoch-near": {"geomean": 2.16}, "gpm-far": {"geomean": 1 / 1.06}}
SBRP_PAPER_MARK = "paper's value (section 7 text)"


# ---- the driver of the sweep figure scripts (V.figure_args, V.run_sweeps, raw/<spec>/sweep.csv) ----

def start(doc, specs_dir, out_dir, specs, tiers=None):
    """Parses the command line, runs the sweeps (unless --no-run) and reads their rows. tiers: {tier:
    {spec: spec keys to replace}} (V.tier_spec; e.g. {"paper": {"fig7": {"sizes": [...]}}}). Returns
    (args, failed sweeps, seconds in the sweeps, plt or None, {spec: rows}, {spec: run count}, [(spec,
    point, status, exit) of every point not ok])."""
    a = V.figure_args(doc, specs_dir, out_dir)
    V.tier_out(a, tiers)
    failed, run_s = V.run_sweeps(a, specs, tiers)
    plt = plt_or_none("matplotlib missing (Debian: python3-matplotlib): CSVs only, no PNGs")
    R = {s: rows_of(a.out, s) for s in specs}
    nruns = {s: len(R[s]) for s in specs}
    bad = [(s, r["point"], r.get("status"), r.get("exit")) for s in specs for r in R[s] if r.get("status") != "ok"]
    return a, failed, run_s, plt, R, nruns, bad


def finish(what, out, total, run_s, C, bad, failed):
    """The closing report on stdout/stderr; returns the exit status (1 if a sweep failed)."""
    print(f"{what} figures: {total:.1f} s (sweeps {run_s:.1f} s); wrote {out}/fig*.csv, "
          + ("fig*.png, " if plt_or_none() is not None else "(no PNGs: matplotlib is missing) ") + "README.md")
    print(f"  verdicts: {C.summary()}")
    for b in bad:
        print(f"  point not ok: {b}", file=sys.stderr)
    if failed:
        print("FAILED sweeps: " + ", ".join(failed) + " (failed points are listed above)", file=sys.stderr)
        return 1
    return 0


# ---- README -----------------------------------------------------------------------------------

def readme_head(title, provenance, headlines, heading="## Headline claims", intro=None):
    """The lines every results README starts with: the title, the provenance line (V.provenance_line),
    the headline claims (C.headlines()) under heading with an optional intro, and the verdict rule."""
    L = [f"# {title}", "", provenance, "", heading, ""]
    if intro:
        L += [intro, ""]
    return L + [headlines, "", V.rule_text(), ""]


def bad_points(bad):
    """README lines listing the points that did not finish ok ([] if none): (spec, point, status, exit)."""
    if not bad:
        return []
    return (["**Points that did not finish ok** (they count as missing, n/a below):", ""] +
            [f"- `{s}`: `{p}` status {st}, exit {ex}" for s, p, st, ex in bad] + [""])


def points_run(a):
    """(points run by this invocation, points in its sweeps): the rows of every sweep V.run_items
    started, a point counting as run when its stats.json is newer than the sweeps' start."""
    items, t0, cwd = getattr(a, "sweep_items", []), getattr(a, "sweep_t0", None), getattr(a, "sweep_cwd", None)
    run = total = 0
    for _, _, out in items:
        d = os.path.join(cwd or "", out)
        for r in read_sweep(os.path.join(d, "sweep.csv")):
            total += 1
            st = os.path.join(d, "runs", r.get("point", ""), "stats.json")
            if t0 is not None and os.path.exists(st) and os.path.getmtime(st) >= t0:
                run += 1
    return run, total


def timing_via(t):
    """The README sentence of a timing recorded by scripts/figures_all.py (--record-timing)."""
    s = (f"The last regeneration by `{t['via']}` (tier {t.get('tier', 'quick')}, -j {t['jobs']}, {t['date']}) took "
         f"{t['wall_s'] / 60:.1f} min wall" +
         (f" ({t['sweeps_s'] / 60:.1f} min in the sweeps)" if "sweeps_s" in t else "") +
         " on a 2-core machine shared with other jobs")
    if t["points_run"] < t["points"]:
        s += (f"; it ran {t['points_run']} of the {t['points']} points, the others were done already, so a full "
              "run takes longer")
    else:
        s += f", running all {t['points']} points"
    return s + " (`results/figures-all.json` has every evaluation's time)."


def timing_text(out, record, text, **run):
    """The README's sentence on the last full regeneration. record: this run is one, store run (wall_s,
    sweeps_s, jobs, ...; the date is added) as out/timing.json. Returns text(the stored dict) (or
    timing_via's sentence for a timing recorded by `make figures-all`), or '' when there is none (or
    it lacks a key text needs)."""
    path = os.path.join(out, "timing.json")
    if record:
        json.dump(dict(run, date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())), open(path, "w"))
    try:
        t = json.load(open(path))
        return timing_via(t) if t.get("via") else text(t)
    except (OSError, ValueError, KeyError):
        return ""


def timing_run(a, record):
    """timing_text's extra fields and whether to record: record (the script's own rule for a full
    regeneration) or --record-timing (scripts/figures_all.py: every run, with the points it ran)."""
    extra = {}
    if getattr(a, "record_timing", False) and not getattr(a, "no_run", False) and not getattr(a, "only", None):
        r, n = points_run(a)
        extra = dict(points_run=r, points=n, tier=getattr(a, "tier", "quick"), via="make figures-all")
        record = True
    return record, extra


def write_readme(out, L, end="\n"):
    """out/README.md: the lines L joined by newlines, then end."""
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(L) + end)


# ---- the PM device (issue 24: the papers on an Optane-class device) ---------------------------------

# The pm_dimm device's figures that explain a headline's change (per run, over every controller
# top.nvmN of stats.json): (column, header, function of the summed / averaged controller stats).
DEVICE = [("write_amplification", "write amplification (media B / B written)",
           lambda s: s["media_write_bytes"] / s["write_bytes"] if s["write_bytes"] else NAN),
          ("buf_combined", "writes combined in the DIMM buffer (%)",
           lambda s: 100.0 * s["dimm_buf_write_hits"] / s["writes"] if s["writes"] else NAN),
          ("rmw_per_media_write", "RMW reads per media write",
           lambda s: s["dimm_rmw_reads"] / s["media_writes"] if s["media_writes"] else NAN),
          ("media_utilization", "media utilization (%)", lambda s: 100.0 * s["media_utilization"]),
          ("ait_hit_rate", "AIT hit rate (%)", lambda s: 100.0 * s["ait_hit_rate"]),
          ("persist_latency_ns", "write arrival to durable (ns)", lambda s: s["avg_persist_latency_ns"]),
          ("wear_migrations", "wear migrations", lambda s: s["wear_migrations"])]
_DEV_SUM = ("media_write_bytes", "write_bytes", "dimm_buf_write_hits", "writes", "dimm_rmw_reads", "media_writes",
            "wear_migrations")
_DEV_AVG = ("media_utilization", "ait_hit_rate", "avg_persist_latency_ns")


def device_run(stats_path):
    """One run's DEVICE figures ({column: value}) from its stats.json, summed over the controllers
    (utilization and AIT hit rate averaged); None when the file is missing or has no pm_dimm stats."""
    try:
        with open(stats_path) as f:
            st = json.load(f)
    except (OSError, ValueError):
        return None
    nvm = [g for k, g in st.items() if k.startswith("top.nvm") and "media_writes" in g]
    if not nvm:
        return None
    v = lambda g, k: float(g.get(k, {}).get("value", NAN))   # noqa: E731
    s = {k: sum(v(g, k) for g in nvm) for k in _DEV_SUM}
    s.update({k: sum(v(g, k) for g in nvm) / len(nvm) for k in _DEV_AVG})
    return {c: f(s) for c, _, f in DEVICE}


def device_figures(raw, rows, key, csv_path):
    """The DEVICE figures per group: key(row) -> group label (None: skip the row); each figure the mean
    over the group's ok runs (workloads and seeds), from raw/runs/<point>/stats.json, and written to
    csv_path. The per-run stats.json are not committed: without them the table is read back from
    csv_path (the committed copy). Returns ({group: {column: value}}, [groups in row order])."""
    acc, order = {}, []
    for r in rows:
        g = key(r)
        if g is None or r.get("status") != "ok":
            continue
        d = device_run(os.path.join(raw, "runs", r["point"], "stats.json"))
        if d is None:
            continue
        if g not in acc:
            acc[g] = []
            order.append(g)
        acc[g].append(d)
    if acc:
        out = {g: {c: amean_plain([d[c] for d in ds]) for c, _, _ in DEVICE} for g, ds in acc.items()}
        out = {g: dict(v, runs=len(acc[g])) for g, v in out.items()}
        write_rows(csv_path, ["group", "runs"] + [c for c, _, _ in DEVICE],
                   [[g, out[g]["runs"]] + [f"{out[g][c]:.6g}" for c, _, _ in DEVICE] for g in order])
        return out, order
    if not os.path.exists(csv_path):
        return {}, []
    out, order = {}, []
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            out[r["group"]] = dict({c: float(r.get(c) or "nan") for c, _, _ in DEVICE}, runs=int(r["runs"]))
            order.append(r["group"])
    return out, order


def amean_plain(xs):
    xs = [x for x in xs if not isnan(x)]
    return sum(xs) / len(xs) if xs else NAN


def device_table(figs, order, head="runs"):
    """Markdown lines of device_figures' table: a row per group, a column per DEVICE figure."""
    L = [f"| {head} | runs | " + " | ".join(h for _, h, _ in DEVICE) + " |",
         "|---|---:|" + "---:|" * len(DEVICE)]
    for g in order:
        d = figs[g]
        cells = []
        for c, h, _ in DEVICE:
            x = d[c]
            nd = 0 if c in ("wear_migrations", "persist_latency_ns") else 1 if "%" in h else 2
            cells.append("n/a" if isnan(x) else f"{x:.{nd}f}")
        L.append(f"| {g} | {d['runs']} | " + " | ".join(cells) + " |")
    return L


def device_claims(bank, dimm, nd=2, heads=("bank device (today)", "pm_dimm device")):
    """Markdown lines: the same claims judged without the device (Claims `bank`) and with it (`dimm`),
    side by side, in `bank`'s order (each verdict from scripts/verdict.py's one rule)."""
    L = [f"| figure | claim | {heads[0]} | verdict | {heads[1]} | verdict | paper |",
         "|---|---|---|---|---|---|---|"]
    for a, b in zip(bank.rows, dimm.rows):
        L.append(f"| {a['where']} | {a['claim']} | {V.fmt_ci(a['m'], a['h'], a['n'], nd)} | **{a['verdict']}** | "
                 f"{V.fmt_ci(b['m'], b['h'], b['n'], nd)} | **{b['verdict']}** | {a['paper_text']} |")
    return L
