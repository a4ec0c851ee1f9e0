#!/usr/bin/env python3
"""Validate persim's Optane-class PM device (cores/pm_dimm.h, nvm.device = pm_dimm) against the
published measurements of Intel Optane DC PMM: `make figures-optane`.

Runs `persim device` (cli/device.cpp: the published microbenchmarks, driven on the device core as the
configuration builds it) on configs/validation/optane_dcpmm.json's configuration, and on two
ablations (no on-DIMM buffer, no AIT cache), then evaluates every claim of that spec with the verdict
rule of scripts/verdict.py and writes results/optane/: README.md (each published figure beside
persim's, its role -- calibrated input or emerging validation -- and the rule's verdict, for the device
and both ablations), optane.png (the curves) and the raw CSVs (raw/<variant>/).

  optane_figures.py [--persim build/persim] [--out results/optane] [--samples N] [--no-run]
  optane_figures.py --check VARIANT [--samples N]   (ctest: run one variant into a temporary folder;
        exit 0 iff every claim passes but the known differences ("expect": "differs"), which must
        differ (full), or every must_fail claim fails (an ablation))

The device's numbers come from configs/nvm_optane_dcpmm.json (every value with its source); nothing
here is tuned: the published numbers are read from the spec only to compare."""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import verdict as V  # noqa: E402
import figlib as FL  # noqa: E402

SPEC = os.path.join(ROOT, "configs/validation/optane_dcpmm.json")
PASS = ("matches", "same trend")


def run_device(persim, spec, out, sets, samples):
    cmd = [persim, "device", "--out", out, "--samples", str(samples), "--quiet",
           "--host-path-ns", str(spec["host_path_ns"]), "--mlp", str(spec["mlp"])]
    for c in spec["config"]:
        cmd += ["--config", os.path.join(ROOT, c)]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"optane_figures: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")


def rows(d, name):
    with open(os.path.join(d, name)) as f:
        return list(csv.DictReader(f))


def load(d):
    """The CSVs of one `persim device` run."""
    return {k: rows(d, k + ".csv") for k in ("latency", "chase", "bandwidth", "amplification", "tail")}


def knees(chase):
    """(buffer knee, AIT knee): the largest working set still on the first plateau (the next one's
    latency > 1.15x the smallest set's), and, past 16x that, the largest set before the latency
    rises again by more than 5% per doubling. nan where there is no such rise."""
    pts = sorted((int(r["working_set_bytes"]), float(r["latency_ns"])) for r in chase)
    k1 = k2 = math.nan
    base = pts[0][1]
    for (w0, _), (w1, l1) in zip(pts, pts[1:]):
        if l1 > 1.15 * base:
            k1 = w0
            break
    if math.isnan(k1):
        return k1, k2
    for (w0, l0), (w1, l1) in zip(pts, pts[1:]):
        if w0 >= 16 * k1 and l1 > 1.05 * l0:
            k2 = w0
            break
    return k1, k2


def bw(data, op, size, threads):
    for r in data["bandwidth"]:
        if r["op"] == op and int(r["access_bytes"]) == size and int(r["threads"]) == threads:
            return float(r["gbps"])
    return math.nan


def sat_threads(data, op, size=256, frac=0.9):
    """The fewest threads reaching frac of the peak bandwidth over the sweep."""
    pts = sorted((int(r["threads"]), float(r["gbps"])) for r in data["bandwidth"]
                 if r["op"] == op and int(r["access_bytes"]) == size)
    peak = max(g for _, g in pts)
    return next(t for t, g in pts if g >= frac * peak), peak


def figures(data):
    """persim's figure for every claim of the spec (raw units)."""
    lat = {r["pattern"]: float(r["latency_ns"]) for r in data["latency"]}
    k1, k2 = knees(data["chase"])
    wth, wpeak = sat_threads(data, "write")
    rth, rpeak = sat_threads(data, "read")
    wa = {(r["pattern"], int(r["access_bytes"])): float(r["write_amplification"]) for r in data["amplification"]}
    tail = {int(r["hotspot_bytes"]): r for r in data["tail"]}
    hot = tail[min(tail)]
    return {
        "seq_read_latency": lat["sequential"],
        "rand_read_latency": lat["random"],
        "rand_over_seq_latency": lat["random"] / lat["sequential"],
        "buffer_knee": k1,
        "ait_knee": k2,
        "max_read_bw": rpeak,
        "max_write_bw": wpeak,
        "write_saturation_threads": wth,
        "read_peak_threads": rth,
        "write_bw_256_over_64": bw(data, "write", 256, 4) / bw(data, "write", 64, 4),
        "write_bw_256_over_64_1t": bw(data, "write", 256, 1) / bw(data, "write", 64, 1),
        "read_bw_256_over_64": bw(data, "read", 256, 24) / bw(data, "read", 64, 24),
        "wa_random_over_seq_64": wa[("random", 64)] / wa[("sequential", 64)],
        "tail_max_write_latency": float(hot["max_ns"]) / 1000.0,
    }


def judge(claim, m):
    """(ratio shown to the rule, verdict, reason)."""
    p = claim["published"]
    if claim["kind"] == "equal":
        x = m / p if not V.isnan(m) else math.nan
        v, why = V.verdict(x, 0.0, kind="equal", tol=claim["tol"])
        return x, v, why
    v, why = V.verdict(m, 0.0, paper=p, kind=claim["kind"], tol=claim.get("tol"))
    return m, v, why


def evaluate(spec, data):
    f = figures(data)
    return {c["name"]: (f[c["name"]],) + judge(c, f[c["name"]]) for c in spec["claims"]}


def check(spec, variant, persim, samples):
    sets = [] if variant == "full" else spec["ablations"][variant]["set"]
    with tempfile.TemporaryDirectory() as d:
        run_device(persim, spec, d, sets, samples)
        res = evaluate(spec, load(d))
    if variant == "full":
        expect = {c["name"]: c.get("expect", "passes") for c in spec["claims"]}
        bad = [n for n, (_, _, v, _) in res.items() if (v in PASS) != (expect[n] == "passes")]
        known = [n for n in expect if expect[n] != "passes"]
        want = "every claim passes" + (f" except the known differences {', '.join(known)}" if known else "")
    else:
        must = spec["ablations"][variant]["must_fail"]
        bad = [n for n in must if res[n][2] in PASS]
        want = "claims " + ", ".join(must) + " fail"
    for n, (m, x, v, why) in res.items():
        print(f"  {n:28s} persim {m:12.4g}  rule input {x:10.4g}  {v:10s} {why}")
    if bad:
        print(f"optane_figures --check {variant}: FAILED: expected {want}; not so for {', '.join(bad)}")
        return 1
    print(f"optane_figures --check {variant}: ok ({want})")
    return 0


def fmt_m(name, m):
    if V.isnan(m):
        return "none"
    if name.endswith("_knee"):
        return f"{m / 1024:.0f} KB" if m < (1 << 20) else f"{m / (1 << 20):.0f} MB"
    if name.endswith("_threads"):
        return f"{m:.0f}"
    return f"{m:.3g}"


def fmt_p(c):
    p = c["published"]
    if p is None:
        return "(direction: " + c["kind"] + " than 1)"
    return fmt_m(c["name"], float(p))


def plot(out, variants):
    plt = FL.plt_or_none(missing="optane_figures: matplotlib is missing: no optane.png")
    if plt is None:
        return False
    data = variants["full"]
    fig, ax = plt.subplots(2, 3, figsize=(15, 8.5))
    # (a) pointer chase, with the ablations
    a = ax[0][0]
    for name, d in variants.items():
        pts = sorted((int(r["working_set_bytes"]), float(r["latency_ns"])) for r in d["chase"])
        a.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label={"full": "pm_dimm", "no_buffer": "no buffer",
                                                                             "no_ait": "no AIT cache"}[name])
    for k in (16384, 16 << 20):
        a.axvline(k, color="red", linestyle=":", linewidth=1)
    a.set_xscale("log", base=2)
    a.set_xlabel("working set (B), one DIMM")
    a.set_ylabel("load latency (ns)")
    a.set_title("(a) pointer chase; red: published knees [LENS]")
    a.legend(fontsize=8)
    # (b) bandwidth against access size
    b = ax[0][1]
    for op in ("read", "write"):
        for t in (4, 24):
            sizes = [64, 128, 256, 512, 1024, 2048, 4096]
            b.plot(sizes, [bw(data, op, s, t) for s in sizes], marker="o", label=f"{op}, {t} threads")
    b.set_xscale("log", base=2)
    b.set_xlabel("access size (B), random, 6 DIMMs")
    b.set_ylabel("GB/s")
    b.set_title("(b) bandwidth against access size")
    b.legend(fontsize=8)
    # (c) bandwidth against threads at 256 B
    c = ax[0][2]
    for op, peak in (("read", 39.4), ("write", 13.9)):
        pts = sorted((int(r["threads"]), float(r["gbps"])) for r in data["bandwidth"]
                     if r["op"] == op and int(r["access_bytes"]) == 256)
        c.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{op}")
        c.axhline(peak, color="red", linestyle=":", linewidth=1)
    c.set_xlabel("threads (256 B random accesses)")
    c.set_ylabel("GB/s")
    c.set_title("(c) bandwidth against threads; red: [IZ] peaks")
    c.legend(fontsize=8)
    # (d) write amplification
    d = ax[1][0]
    sizes = [8, 64, 128, 256]
    for i, pat in enumerate(("random", "sequential")):
        vals = [next(float(r["write_amplification"]) for r in data["amplification"]
                     if r["pattern"] == pat and int(r["access_bytes"]) == s) for s in sizes]
        d.bar([j + 0.4 * i for j in range(len(sizes))], vals, width=0.4, label=pat)
    d.set_xticks([j + 0.2 for j in range(len(sizes))])
    d.set_xticklabels([f"{s} B" for s in sizes])
    d.set_yscale("log", base=2)
    d.set_ylabel("media bytes / bytes written")
    d.set_title("(d) write amplification")
    d.legend(fontsize=8)
    # (e) tail latency
    e = ax[1][1]
    tr = data["tail"]
    labels = ["p50", "p99", "p99.99", "max"]
    for i, r in enumerate(tr):
        vals = [float(r[k]) / 1000 for k in ("p50_ns", "p99_ns", "p9999_ns", "max_ns")]
        e.bar([j + 0.4 * i for j in range(4)], vals, width=0.4, label=f"hotspot {int(r['hotspot_bytes']) // 1024} KB")
    e.axhline(50, color="red", linestyle=":", linewidth=1)
    e.set_xticks([j + 0.2 for j in range(4)])
    e.set_xticklabels(labels)
    e.set_yscale("log")
    e.set_ylabel("write latency (us)")
    e.set_title("(e) hotspot writes; red: [YANG] ~50 us outliers")
    e.legend(fontsize=8)
    # (f) idle latency, device and ablations
    f = ax[1][2]
    names = list(variants)
    for i, pat in enumerate(("sequential", "random")):
        vals = [next(float(r["latency_ns"]) for r in variants[n]["latency"] if r["pattern"] == pat) for n in names]
        f.bar([j + 0.4 * i for j in range(len(names))], vals, width=0.4, label=pat)
    for y in (169, 305):
        f.axhline(y, color="red", linestyle=":", linewidth=1)
    f.set_xticks([j + 0.2 for j in range(len(names))])
    f.set_xticklabels(names)
    f.set_ylabel("idle read latency (ns)")
    f.set_title("(f) idle read latency; red: [IZ]")
    f.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "optane.png"), dpi=90)
    plt.close(fig)
    return True


def readme(spec, out, results, drew, samples):
    L = ["# Optane-class PM device: persim against the published measurements", "",
         V.provenance_line("scripts/optane_figures.py"), "",
         "persim's `pm_dimm` device (cores/pm_dimm.h, `nvm.device = pm_dimm`, configured by "
         "`configs/nvm_optane_dcpmm.json`) run through the published microbenchmarks by `persim device` "
         f"({samples} measured accesses per point; a closed-loop load generator on the device core, host path "
         f"{spec['host_path_ns']:g} ns, {spec['mlp']} requests in flight per thread in the bandwidth runs; "
         "docs/models/nvm-device.md). The ablations remove the on-DIMM buffer (`nvm.xpbuffer_entries=0`) and the "
         "AIT cache (`nvm.ait_entries=0`).", "",
         "Sources: [IZ] Izraelevitz et al., *Basic Performance Measurements of the Intel Optane DC Persistent "
         "Memory Module*, 2019; [YANG] Yang et al., *An Empirical Guide to the Behavior and Use of Scalable "
         "Persistent Memory*, FAST'20; [LENS] Wang et al., *Characterizing and Modeling Non-Volatile Memory "
         "Systems*, MICRO'20 (and its simulator VANS's released configuration).", "",
         "**Role**: *calibrated* = the published number was an input of the device's configuration (its agreement "
         "is by construction; it shows the harness measures what the calibration assumed); *validation* = the "
         "number emerges from the mechanisms. For *equal* claims the rule sees persim / published against 1.0 "
         "within the claim's tolerance; for *value* claims a ratio of two persim figures against the published "
         "ratio (effect rule).", "",
         V.rule_text(), "",
         "| claim | published | role | persim (device) | verdict | no buffer | verdict | no AIT cache | verdict | source |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for c in spec["claims"]:
        n = c["name"]
        cells = []
        for var in ("full", "no_buffer", "no_ait"):
            m, x, v, why = results[var][n]
            cells += [fmt_m(n, m), f"**{v}**" if var == "full" else v]
        L.append(f"| {c['what']} | {fmt_p(c)} | {c['role']} | " + " | ".join(cells) + f" | {c['source']} |")
    full = results["full"]
    n_val = [c for c in spec["claims"] if c["role"] == "validation"]
    ok = [c["name"] for c in n_val if full[c["name"]][2] in PASS]
    bad = [c["name"] for c in n_val if full[c["name"]][2] not in PASS]
    L += ["", "## What the numbers show", "",
          f"- Of the {len(n_val)} claims that emerge from the mechanisms, {len(ok)} pass the rule"
          + (f"; **{', '.join(bad)}** do not" if bad else "") + ".",
          "- Removing the on-DIMM buffer flattens the pointer chase below 16 MB (no 16 KB plateau), makes a "
          "sequential read as slow as a random one and gives sequential 64 B writes the same 4x amplification "
          "as random ones: the claims that need the buffer fail (ctest `optane.validation_no_buffer`).",
          "- Removing the AIT cache lifts every media access by `nvm.ait_miss_ns` and removes the second knee "
          "(ctest `optane.validation_no_ait`).",
          f"- Thread scaling: persim's 256 B writes reach 90% of their peak at "
          f"{fmt_m('write_saturation_threads', full['write_saturation_threads'][0])} threads ([IZ]: 4) and its reads at "
          f"{fmt_m('read_peak_threads', full['read_peak_threads'][0])} ([IZ]: 17). A harness thread keeps 10 requests in "
          "flight and the DIMM's 64-entry write queue accepts writes ahead of the buffer, so a few threads keep the "
          "media busy; the real cores' request rates (prefetchers, write-combining buffers, the iMC's scheduling) "
          "are not modelled, so persim's device saturates "
          + ("with fewer" if full['read_peak_threads'][0] < 17 else "with more") + " threads than measured. The "
          "peaks themselves are calibrated inputs.",
          f"- Random 256 B writes get {full['write_bw_256_over_64'][0]:.1f}x the bandwidth of random 64 B ones "
          "(4 threads, panel b): every partial line evicted from the buffer costs a media read and a media "
          "write (write amplification 4 for 64 B, 32 for the 8 B region-tagged stores of LightWSP when they "
          "do not combine; panel d).",
          "- The tail (panel e) comes from wear-levelling migrations every `nvm.wear_writes` media writes of a "
          "4 KB block; its size is VANS's configuration, so its agreement with [YANG]'s ~50 us is a check of "
          "that configuration against an independent measurement, not a prediction.",
          "- The AIT-miss penalty (`nvm.ait_miss_ns` = 60 ns) is persim's assumption: the height of the third "
          "plateau of panel (a) is not validated, only its position.", ""]
    if drew:
        L += ["![Optane-class device](optane.png)", ""]
    L += ["Raw CSVs: `raw/full/`, `raw/no_buffer/`, `raw/no_ait/` (`persim device --help` describes them).", ""]
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(L))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--persim", default=os.path.join(ROOT, "build/persim"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results/optane"))
    ap.add_argument("--samples", type=int, default=100000)
    ap.add_argument("--no-run", action="store_true", help="only redraw from raw/")
    ap.add_argument("--check", choices=["full", "no_buffer", "no_ait"], help="ctest mode: one variant, pass/fail")
    a = ap.parse_args()
    spec = V.load_spec(SPEC)
    if a.check:
        return check(spec, a.check, a.persim, a.samples)
    variants, results = {}, {}
    for var in ("full", "no_buffer", "no_ait"):
        d = os.path.join(a.out, "raw", var)
        if not a.no_run:
            os.makedirs(d, exist_ok=True)
            sets = [] if var == "full" else spec["ablations"][var]["set"]
            print(f"optane_figures: persim device ({var}) ...", flush=True)
            run_device(a.persim, spec, d, sets, a.samples)
        variants[var] = load(d)
        results[var] = evaluate(spec, variants[var])
    drew = plot(a.out, variants)
    readme(spec, a.out, results, drew, a.samples)
    print(f"optane_figures: wrote {a.out}/README.md" + (" and optane.png" if drew else " (no plot: matplotlib missing)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
