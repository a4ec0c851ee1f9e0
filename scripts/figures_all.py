#!/usr/bin/env python3
"""Every paper's evaluation in one command (`make figures-all`, issue 23): SBRP, scoped persist
barriers, AGPM, LightWSP and BROI (and the real programs with --with-real), one after the other,
each with `-j JOBS` runs at a time (the two cores are one shared pool: the runs of one evaluation
fill them, then the next evaluation's).

Resumable: every evaluation's sweeps skip the points already run (`persim sweep`: a point is done
when its run finished ok with the configuration its spec asks for, after the persim binary was
built), and an evaluation with no point left to run that `results/figures-all.json` records as
finished at the same tier with the same persim binary is skipped whole (--redraw redraws it anyway).
Interrupt it at any time and run it again.

Progress: first every evaluation's sweeps are counted (the figure script's --plan, then `persim sweep
--dry-run` per sweep: points in all, points still to run) and the time they should take estimated from
the host seconds of the points' last runs (their sweep.csv rows); then, while the scripts run, a line
`[figures-all] points done/to run, elapsed, ETA` every few seconds (from the sweeps' own progress
lines), scaled by how the estimate has held so far.

Timing: each evaluation's wall time goes into its results/<eval>/timing.json and README (the figure
script's --record-timing: wall time, points run of all) and, with the total, into
results/figures-all.json (--record).

Tiers (--tier, `make figures-all TIER=paper`): passed to every figure script, which maps it to its
sizes (its TIERS table: spec keys replaced per spec). quick: today's sizes (CI). paper: paper-like
scale where a script defines it; a script whose paper tier changes nothing shares its quick results
(nothing reruns), one that changes sizes writes to results/<eval>/paper/.

--dry-run: count and estimate only, run nothing."""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, figure script, its default results directory, optional)
EVALS = [
    ("sbrp", "scripts/sbrp_figures.py", "results/sbrp", False),
    ("scoped-barriers", "scripts/scoped_barriers.py", "results/scoped-barriers", False),
    ("agpm", "scripts/agpm_figures.py", "results/agpm", False),
    ("lightwsp", "scripts/lightwsp_figures.py", "results/lightwsp", False),
    ("broi", "scripts/broi_figures.py", "results/broi", False),
]
DEFAULT_SECONDS_PER_POINT = 2.0   # a point without a previous run (no host_seconds to go by)

SWEEP_LINE = re.compile(r"\[sweep\] (\d+)/(\d+) done \((\d+) skipped, (\d+) failed\)")
SWEEP_END = re.compile(r"persim sweep (\S+): (\d+) points: (\d+) run, (\d+) skipped, (\d+) failed")
DRY_LINE = re.compile(r"persim sweep: (\d+) points, (\d+) to run, (\d+) done already")


def fmt_dur(s):
    s = int(round(max(0.0, s)))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def script_cmd(a, ev, extra, jobs=None):
    name, script, _, _ = ev
    cmd = [a.python, os.path.join(ROOT, script), "--persim", a.persim, "-j", str(jobs or a.jobs), "--tier", a.tier] + extra
    if a.out_root:
        cmd += ["--out", os.path.join(a.out_root, name)]
    return cmd


def plan(a, ev):
    """[(sweep name, spec, out, cwd)] of the evaluation (its script's --plan), or raises."""
    p = subprocess.run(script_cmd(a, ev, ["--plan"]), capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        raise RuntimeError(f"{ev[1]} --plan failed (exit {p.returncode}): {p.stderr.strip()[-500:]}")
    last = [ln for ln in p.stdout.splitlines() if ln.startswith("[")]
    if not last:
        raise RuntimeError(f"{ev[1]} --plan printed no plan")
    return json.loads(last[-1])


def mean_host_seconds(out_dir):
    """Mean host_seconds of the ok rows of out_dir/sweep.csv (None if there are none)."""
    try:
        with open(os.path.join(out_dir, "sweep.csv"), newline="") as f:
            xs = [float(r["host_seconds"]) for r in csv.DictReader(f)
                  if r.get("status") == "ok" and r.get("host_seconds", "") != ""]
    except (OSError, ValueError, KeyError):
        return None
    return sum(xs) / len(xs) if xs else None


def host_seconds_sum(out_dirs):
    """(sum of host_seconds, rows) over the sweep.csv of out_dirs."""
    tot, n = 0.0, 0
    for d in out_dirs:
        try:
            with open(os.path.join(d, "sweep.csv"), newline="") as f:
                for r in csv.DictReader(f):
                    n += 1
                    tot += float(r.get("host_seconds") or 0)
        except (OSError, ValueError):
            pass
    return tot, n


def calibration(ev_out, out_dirs):
    """Wall seconds x jobs per host second of the evaluation's last full run (its timing.json, when it
    ran every point), at least 1; 1 when unknown. The
    runs' host_seconds leave out process start-up, workload generation and output, which is most of a
    small cpu-system run; this factor puts them back into the estimate."""
    try:
        t = json.load(open(os.path.join(ev_out, "timing.json")))
    except (OSError, ValueError):
        return 1.0
    # the scripts record on their own only a full (forced) run; figures-all records every run, with its points
    if t.get("via") and not (t.get("points") and t.get("points_run") == t.get("points")):
        return 1.0
    host, n = host_seconds_sum(out_dirs)
    if host <= 0 or "wall_s" not in t:
        return 1.0
    return max(1.0, t["wall_s"] * max(1, t.get("jobs", 1)) / host)


def count(a, sweep, fallback_out=None):
    """(points, to run, estimated host seconds of the ones to run) of one sweep: `persim sweep --dry-run`.
    The host seconds per point come from the sweep's last sweep.csv, else from fallback_out's (the
    default results of the same sweep, when --out-root points elsewhere)."""
    cwd = sweep.get("cwd") or ROOT
    out = os.path.join(cwd, sweep["out"])
    cmd = [a.persim, "sweep", sweep["spec"], "--out", sweep["out"], "--dry-run"] + (["--force"] if a.force else [])
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    m = DRY_LINE.search(p.stderr)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"persim sweep --dry-run {sweep['spec']}: exit {p.returncode}: {p.stderr.strip()[-500:]}")
    n, todo = int(m.group(1)), int(m.group(2))
    per = mean_host_seconds(out)
    if per is None and fallback_out:
        per = mean_host_seconds(fallback_out)
    return n, todo, todo * (per if per is not None else DEFAULT_SECONDS_PER_POINT)


def load_record(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return {}


def persim_stamp(persim):
    try:
        return round(os.path.getmtime(persim), 3)
    except OSError:
        return None


class Progress:
    """Overall progress over every evaluation: points finished of the points to run, and an ETA from
    the estimated seconds of what is left, scaled by actual/estimated on what is done. Evaluations
    running at the same time (--evals-at-once) each have their running sweep (key)."""

    def __init__(self, total_todo, total_est, jobs, out=None, every=5.0, clock=time.time):
        self.todo, self.est, self.jobs = total_todo, total_est, max(1, jobs)
        self.done = 0              # points finished in completed sweeps
        self.done_est = 0.0        # their estimated seconds
        self.cur = {}              # key -> points finished in its running sweep
        self.cur_per = {}          # key -> estimated seconds per point of its running sweep
        self.what = {}             # key -> what it runs
        self.ran = {}              # key -> points it finished (completed sweeps and the running one)
        self.out, self.every, self.clock = out, every, clock
        self.t0 = clock()
        self.last = -1e9
        self.lock = threading.Lock()

    def start_sweep(self, what, per_point, key=""):
        with self.lock:
            self.what[key], self.cur[key], self.cur_per[key] = what, 0, per_point

    def sweep_progress(self, finished, key=""):
        with self.lock:
            self.ran[key] = self.ran.get(key, 0) + finished - self.cur.get(key, 0)
            self.cur[key] = finished

    def end_sweep(self, ran, key=""):
        with self.lock:
            self.ran[key] = self.ran.get(key, 0) + ran - self.cur.get(key, 0)
            self.done += ran
            self.done_est += ran * self.cur_per.get(key, 0.0)
            self.cur[key] = 0

    def finish(self, key=""):
        """The evaluation key ended: its running sweep leaves the line."""
        with self.lock:
            for d in (self.what, self.cur, self.cur_per):
                d.pop(key, None)

    def points(self):
        return self.done + sum(self.cur.values())

    def eta(self):
        """Seconds left (None before any point finished)."""
        el = self.clock() - self.t0
        est_done = self.done_est + sum(n * self.cur_per.get(k, 0.0) for k, n in self.cur.items())
        if est_done <= 0 or self.points() == 0:
            return None
        scale = el / est_done       # wall seconds per estimated run second so far (covers -j and load)
        return max(0.0, (self.est - est_done) * scale)

    def line(self):
        el = self.clock() - self.t0
        pct = 100.0 * self.points() / self.todo if self.todo else 100.0
        eta = self.eta()
        return (f"[figures-all] {self.points()}/{self.todo} points ({pct:.0f}%), elapsed {fmt_dur(el)}, "
                f"ETA {'~' + fmt_dur(eta) if eta is not None else '?'}" +
                (f"  ({', '.join(self.what.values())})" if self.what else ""))

    def tick(self, force=False):
        with self.lock:
            now = self.clock()
            if force or now - self.last >= self.every:
                self.last = now
                print(self.line(), file=self.out or sys.stderr, flush=True)


def wait_rusage(p):
    """Waits for the Popen p; (exit status, CPU seconds of it and every descendant it waited for)."""
    while True:
        try:
            _, st, ru = os.wait4(p.pid, 0)
            break
        except InterruptedError:
            continue
    rc = os.waitstatus_to_exitcode(st)
    p.returncode = rc
    return (128 - rc if rc < 0 else rc), ru.ru_utime + ru.ru_stime


RUNNING = set()   # the Popen of every script running (stopped on Ctrl-C)


def run_eval(a, ev, sweeps, prog, log, jobs):
    """Runs the evaluation's figure script with -j jobs, its output into log and its sweeps' progress
    into prog. Returns (exit status, CPU seconds of the script and its runs)."""
    per = {s["name"]: s["per_point"] for s in sweeps}
    cmd = script_cmd(a, ev, ["--record-timing"] + (["--force"] if a.force else []), jobs)
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, bufsize=1)
    RUNNING.add(p)
    try:
        for line in p.stdout:
            log.write(line)
            if a.verbose:
                sys.stderr.write(line)
            if line.startswith("+ ") and " sweep " in line:
                parts = line.split()
                spec = parts[parts.index("sweep") + 1]
                cur = os.path.splitext(os.path.basename(spec))[0]
                prog.start_sweep(f"{ev[0]} {cur}", per.get(cur, DEFAULT_SECONDS_PER_POINT), ev[0])
            m = SWEEP_LINE.search(line)
            if m:
                prog.sweep_progress(int(m.group(1)) - int(m.group(3)), ev[0])
                prog.tick()
            m = SWEEP_END.search(line)
            if m:
                prog.end_sweep(int(m.group(3)), ev[0])
                prog.tick(force=True)
            elif line.startswith("[sweep] FAILED") or "Traceback" in line:
                sys.stderr.write(line)
        return wait_rusage(p)
    finally:
        RUNNING.discard(p)
        prog.finish(ev[0])


def run_real(a, ev, log, jobs):
    """The real programs as `make figures-real`: the tracer and the PMDK programs first, then the script."""
    build = ["cmake", "--build", os.path.dirname(a.persim), "-j", str(jobs), "--target", "persim-vgtrace", "pmdk_ds"]
    cmd = [a.python, os.path.join(ROOT, ev[1]), "--persim", a.persim] + (["--force"] if a.force else []) + \
        (["--out", os.path.join(a.out_root, ev[0])] if a.out_root else [])
    rc, cpu = 0, 0.0
    for c in (build, cmd):
        print("+ " + " ".join(c), file=sys.stderr, flush=True)
        p = subprocess.Popen(c, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        RUNNING.add(p)
        try:
            r, t = wait_rusage(p)
        finally:
            RUNNING.discard(p)
        cpu += t
        if r != 0:
            return r, cpu
    return rc, cpu


def stop_running():
    for p in list(RUNNING):
        try:
            p.terminate()
        except OSError:
            pass


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--persim", default="build/persim")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2, help="runs at a time (default: cores)")
    ap.add_argument("--tier", choices=("quick", "paper"), default="quick")
    ap.add_argument("--only", action="append", help="only this evaluation (repeatable): " +
                    ", ".join(e[0] for e in EVALS) + ", real")
    ap.add_argument("--with-real", action="store_true", help="also the real programs (scripts/real_programs.py)")
    ap.add_argument("--force", action="store_true", help="rerun every point")
    ap.add_argument("--evals-at-once", type=int, default=1,
                    help="evaluations running at a time, each with JOBS / N runs at a time (longest first); "
                         "default 1: one after the other with JOBS")
    ap.add_argument("--redraw", action="store_true", help="run every evaluation's script even when nothing is left")
    ap.add_argument("--dry-run", action="store_true", help="count and estimate only")
    ap.add_argument("--record", default="results/figures-all.json", help="the timing record (relative to the repo)")
    ap.add_argument("--out-root", default="", help="results under OUT_ROOT/<eval>/ instead of each script's default")
    ap.add_argument("--log-dir", default="", help="each script's output in LOG_DIR/<eval>.log (default: beside --record)")
    ap.add_argument("-v", "--verbose", action="store_true", help="echo every script's output")
    a = ap.parse_args(argv)
    a.persim = os.path.abspath(os.path.join(ROOT, a.persim)) if not os.path.isabs(a.persim) else a.persim
    rec_path = a.record if os.path.isabs(a.record) else os.path.join(ROOT, a.record)
    log_dir = a.log_dir or os.path.join(os.path.dirname(rec_path), "figures-all-logs")
    evals = list(EVALS)
    if a.with_real or (a.only and "real" in a.only):
        evals.append(("real", "scripts/real_programs.py", "results/real-programs", True))
    if a.only:
        unknown = set(a.only) - {e[0] for e in evals}
        if unknown:
            ap.error("--only: unknown evaluation(s) " + ", ".join(sorted(unknown)))
        evals = [e for e in evals if e[0] in a.only]
    if not os.path.exists(a.persim):
        sys.exit(f"figures_all: {a.persim} not found (make build)")

    # 1. count: every sweep's points and what is left
    record = load_record(rec_path)
    stamp = persim_stamp(a.persim)
    todo_evals, total_n, total_todo, total_est = [], 0, 0, 0.0
    print(f"figures-all: tier {a.tier}, -j {a.jobs}; counting the points ...", file=sys.stderr, flush=True)
    print(f"{'evaluation':16s} {'sweeps':>6s} {'points':>7s} {'to run':>7s} {'est. run s':>10s}  note", file=sys.stderr)
    for ev in evals:
        if ev[3]:      # the real programs: no sweeps (traces are recorded and run by the script)
            todo_evals.append((ev, [], 0, 0, 0.0))
            print(f"{ev[0]:16s} {'-':>6s} {'-':>7s} {'-':>7s} {'-':>10s}  not counted (records traces first)",
                  file=sys.stderr)
            continue
        sweeps = []
        for s in plan(a, ev):
            fb = None
            if a.out_root:   # the same sweep in the evaluation's default results directory
                rel = os.path.relpath(os.path.join(s.get("cwd") or ROOT, s["out"]), os.path.join(ROOT, a.out_root, ev[0]))
                fb = os.path.join(ROOT, ev[2], rel)
            n, todo, est = count(a, s, fb)
            sweeps.append(dict(s, points=n, todo=todo, est=est, fb=fb))
        ev_out = os.path.join(ROOT, a.out_root, ev[0]) if a.out_root else os.path.join(ROOT, ev[2])
        dirs = [os.path.join(s.get("cwd") or ROOT, s["out"]) for s in sweeps]
        if not os.path.exists(os.path.join(ev_out, "timing.json")):   # --out-root without a run yet
            ev_out, dirs = os.path.join(ROOT, ev[2]), [s["fb"] or d for s, d in zip(sweeps, dirs)]
        k = calibration(ev_out, dirs)
        for s in sweeps:
            s["est"] *= k
            s["per_point"] = s["est"] / s["todo"] if s["todo"] else 0.0
        n = sum(s["points"] for s in sweeps)
        todo = sum(s["todo"] for s in sweeps)
        est = sum(s["est"] for s in sweeps)
        prev = record.get("evaluations", {}).get(ev[0], {})
        skip = (todo == 0 and not a.redraw and not a.force and prev.get("status") == "ok" and
                prev.get("tier") == a.tier and prev.get("persim_mtime") == stamp)
        note = "done (recorded), skipped" if skip else ("nothing left to run: redraw only" if todo == 0 else "")
        print(f"{ev[0]:16s} {len(sweeps):6d} {n:7d} {todo:7d} {fmt_dur(est):>10s}  {note}", file=sys.stderr)
        total_n += n
        if not skip:
            todo_evals.append((ev, sweeps, n, todo, est))
            total_todo += todo
            total_est += est
    jobs = max(1, a.jobs)
    print(f"{'total':16s} {'':6s} {total_n:7d} {total_todo:7d} {fmt_dur(total_est):>10s}  "
          f"(~{fmt_dur(total_est / jobs)} wall at -j {jobs} if the runs keep their last speed)", file=sys.stderr,
          flush=True)
    if a.dry_run:
        return 0

    # 2. run: one evaluation after the other with -j JOBS, or --evals-at-once N at a time with JOBS / N
    # each (longest estimate first); recording as each ends (an interrupted run keeps what finished)
    os.makedirs(log_dir, exist_ok=True)
    record.setdefault("evaluations", {})
    prog = Progress(total_todo, total_est, jobs)
    t0 = time.time()
    failed = []
    lock = threading.Lock()
    at_once = max(1, min(a.evals_at_once, len(todo_evals)))
    ev_jobs = max(1, jobs // at_once)
    queue = sorted(todo_evals, key=lambda t: -t[4]) if at_once > 1 else list(todo_evals)
    interrupted = threading.Event()

    def one(item):
        ev, sweeps, n, todo, est = item
        if interrupted.is_set():
            return
        e0 = time.time()
        with open(os.path.join(log_dir, ev[0] + ".log"), "w") as log:
            try:
                rc, cpu = run_real(a, ev, log, ev_jobs) if ev[3] else run_eval(a, ev, sweeps, prog, log, ev_jobs)
            except KeyboardInterrupt:     # Ctrl-C in the main thread while it ran this evaluation
                interrupted.set()
                stop_running()
                rc, cpu = 130, 0.0
        if interrupted.is_set():
            rc = 130
        wall = time.time() - e0
        status = "ok" if rc == 0 else "interrupted" if rc == 130 else f"exit {rc}"
        ran = todo if ev[3] else prog.ran.get(ev[0], 0)   # points this run finished
        with lock:
            if rc != 0:
                failed.append(ev[0])
            print(f"[figures-all] {ev[0]}: {status}, {fmt_dur(wall)} wall ({cpu:.0f} CPU s), {ran} of {n} points "
                  f"run (log: {os.path.relpath(os.path.join(log_dir, ev[0] + '.log'), ROOT)})", file=sys.stderr,
                  flush=True)
            record["evaluations"][ev[0]] = {
                "status": status, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "points": n,
                "points_run": ran, "estimated_run_s": round(est, 1), "tier": a.tier, "jobs": ev_jobs,
                "persim_mtime": stamp, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
            write_record(rec_path, record, a, time.time() - t0, total_todo)

    def worker():
        while not interrupted.is_set():
            with lock:
                if not queue:
                    return
                item = queue.pop(0)
            one(item)

    if at_once == 1:
        try:
            for item in queue:
                one(item)
                if interrupted.is_set():
                    break
        except KeyboardInterrupt:
            interrupted.set()
            stop_running()
    else:
        threads = [threading.Thread(target=worker, daemon=True) for _ in range(at_once)]
        for t in threads:
            t.start()
        try:
            while any(t.is_alive() for t in threads):
                for t in threads:
                    t.join(0.2)
        except KeyboardInterrupt:
            interrupted.set()
            stop_running()
            for t in threads:
                t.join(60)
    if interrupted.is_set():
        write_record(rec_path, record, a, time.time() - t0, total_todo)
        print("[figures-all] interrupted: run it again to resume (points finished are kept)", file=sys.stderr)
        return 130
    prog.tick(force=True)
    total = time.time() - t0
    write_record(rec_path, record, a, total, total_todo, final=True)
    print(f"[figures-all] done in {fmt_dur(total)} wall ({total_todo} points run); "
          f"recorded in {os.path.relpath(rec_path, ROOT)}" + (f"; FAILED: {', '.join(failed)}" if failed else ""),
          file=sys.stderr)
    return 1 if failed else 0


def write_record(path, record, a, wall, points_run, final=False):
    """results/figures-all.json: this invocation (wall time, points run) and every evaluation's last
    run (wall seconds, CPU seconds of the script and its runs: user + sys, far less sensitive to other
    users' load); sum_eval_wall_s / sum_eval_cpu_s add them up (a whole pass when every one ran in full)."""
    evs = record.get("evaluations", {})
    record["last_run"] = {"wall_s": round(wall, 1), "points_run": points_run, "tier": a.tier, "jobs": a.jobs,
                          "finished": final, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    record["sum_eval_wall_s"] = round(sum(e.get("wall_s", 0) for e in evs.values()), 1)
    record["sum_eval_cpu_s"] = round(sum(e.get("cpu_s", 0) for e in evs.values()), 1)
    record["all_points_run_in_last_pass"] = all(e.get("points_run") == e.get("points") for e in evs.values())
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
