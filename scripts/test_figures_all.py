#!/usr/bin/env python3
"""scripts/figures_all.py (`make figures-all`) without the simulator: a fake persim (sweep --dry-run
and sweep, points done when their runs/<point>/stats.json exists, an interruption on request) and a
fake figure script built on the real verdict.py / figlib.py (figure_args, run_sweeps, --plan,
--record-timing, timing.json, README). Checks the counting, the overall progress line, the ETA,
resume after an interruption (only the points left run), skipping a finished evaluation, and the
recorded wall times. Usage: test_figures_all.py (a few seconds)."""
import contextlib
import io
import json
import os
import shutil
import stat
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figures_all as FA  # noqa: E402

FAKE_PERSIM = r'''#!/usr/bin/env python3
# persim sweep SPEC [-j N] [--out D] [--force] [--dry-run]: the spec's "points" points; a point is done
# when D/runs/p<i>/stats.json exists; FAKE_STOP_AFTER=k stops (exit 130) after k points run in all.
import json, os, sys, time
args = sys.argv[1:]
assert args[0] == "sweep", args
spec = json.load(open(args[1]))
out = args[args.index("--out") + 1] if "--out" in args else spec["out"]
force, dry = "--force" in args, "--dry-run" in args
n = spec["points"]
done = lambda i: os.path.exists(os.path.join(out, "runs", f"p{i}", "stats.json"))
todo = [i for i in range(n) if force or not done(i)]
skipped = n - len(todo)
if dry:
    for i in todo:
        print(f"persim run p{i}")
    sys.stderr.write(f"persim sweep: {n} points, {len(todo)} to run, {skipped} done already\n")
    sys.exit(0)
stop = int(os.environ.get("FAKE_STOP_AFTER", "-1"))
cnt = os.path.join(os.environ["FAKE_COUNT_DIR"], "runs")
for k, i in enumerate(todo):
    ran = sum(1 for _ in open(cnt)) if os.path.exists(cnt) else 0
    if 0 <= stop <= ran:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    d = os.path.join(out, "runs", f"p{i}")
    os.makedirs(d, exist_ok=True)
    json.dump({"run": {"status": "ok"}}, open(os.path.join(d, "stats.json"), "w"))
    with open(cnt, "a") as f:
        f.write(f"{spec['name']} p{i}\n")
    sys.stderr.write(f"[sweep] {skipped + k + 1}/{n} done ({skipped} skipped, 0 failed)  elapsed 0s  remaining ~0s\n")
with open(os.path.join(out, "sweep.csv"), "w") as f:
    f.write("point,status,host_seconds\n")
    for i in range(n):
        if done(i):
            f.write(f"p{i},ok,0.5\n")
sys.stderr.write(f"persim sweep {spec['name']}: {n} points: {len(todo)} run, {skipped} skipped, 0 failed in 0.1 s; "
                 f"wrote {out}/sweep.csv\n")
'''

FAKE_SCRIPT = r'''#!/usr/bin/env python3
# A figure script on the real verdict.py / figlib.py: sweeps a.specs/{one,two}.json into OUT/raw/.
import os, sys, time
sys.path.insert(0, os.environ["SCRIPTS_DIR"])
import verdict as V
import figlib as FL
with open(os.path.join(os.environ["FAKE_COUNT_DIR"], "scripts"), "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\n")
t0 = time.time()
a = V.figure_args("fake", os.environ["FAKE_SPECS"], "unused")
V.tier_out(a, {})
failed, run_s = V.run_sweeps(a, ["one", "two"])
rec, extra = FL.timing_run(a, False)
timing = FL.timing_text(a.out, rec, lambda t: "own sentence", wall_s=round(time.time() - t0, 1),
                        sweeps_s=round(run_s, 1), jobs=a.jobs, **extra)
FL.write_readme(a.out, ["# fake", "", timing])
sys.exit(1 if failed else 0)
'''


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def run_driver(argv, env):
    """figures_all.main(argv) in this process with env set; returns (exit status, stderr text)."""
    old = dict(os.environ)
    os.environ.update(env)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            rc = FA.main(argv)
    finally:
        os.environ.clear()
        os.environ.update(old)
    return rc, err.getvalue()


def lines(path):
    return open(path).read().splitlines() if os.path.exists(path) else []


def test_progress():
    t = [100.0]
    out = io.StringIO()
    p = FA.Progress(total_todo=10, total_est=20.0, jobs=2, out=out, every=0, clock=lambda: t[0])
    assert p.eta() is None and "0/10 points (0%)" in p.line() and "ETA ?" in p.line()
    p.start_sweep("ev one", 2.0)
    t[0] = 104.0
    p.sweep_progress(2)           # 2 points = 4 estimated s done in 4 s: scale 1 -> 16 s left
    assert p.points() == 2 and abs(p.eta() - 16.0) < 1e-9, p.eta()
    p.end_sweep(2)
    p.start_sweep("ev two", 2.0)
    t[0] = 112.0                  # still 4 estimated s done, now in 12 s: scale 3 -> 48 s left
    assert abs(p.eta() - 48.0) < 1e-9, p.eta()
    p.sweep_progress(3)           # 10 est. s in 12 s: scale 1.2 -> 12 s left
    assert p.points() == 5 and abs(p.eta() - 12.0) < 1e-9 and "5/10 points (50%)" in p.line(), p.line()
    p.tick(force=True)
    assert "[figures-all] 5/10 points (50%), elapsed 0m12s, ETA ~0m12s  (ev two)" in out.getvalue(), out.getvalue()


def test_driver():
    tmp = tempfile.mkdtemp(prefix="figures_all_test_")
    try:
        persim = os.path.join(tmp, "persim")
        script = os.path.join(tmp, "fake_figures.py")
        specs = os.path.join(tmp, "specs")
        os.makedirs(specs)
        write_exe(persim, FAKE_PERSIM)
        write_exe(script, FAKE_SCRIPT)
        for name, n in (("one", 4), ("two", 3)):
            json.dump({"name": name, "out": "unused", "points": n}, open(os.path.join(specs, name + ".json"), "w"))
        count_dir = os.path.join(tmp, "count")
        os.makedirs(count_dir)
        env = {"SCRIPTS_DIR": HERE, "FAKE_SPECS": specs, "FAKE_COUNT_DIR": count_dir}
        FA.EVALS = [("fake", script, os.path.join(tmp, "res", "fake"), False)]
        rec = os.path.join(tmp, "figures-all.json")
        base = ["--persim", persim, "-j", "2", "--record", rec, "--out-root", os.path.join(tmp, "res"),
                "--log-dir", os.path.join(tmp, "logs")]
        runs = os.path.join(count_dir, "runs")

        # counting only: 7 points, all to run; nothing runs
        rc, err = run_driver(base + ["--dry-run"], env)
        assert rc == 0, err
        assert any(ln.split()[:5] == ["fake", "2", "7", "7", "0m14s"] for ln in err.splitlines()), err
        assert not os.path.exists(runs) and not os.path.exists(rec), "a dry run ran something"
        assert lines(os.path.join(count_dir, "scripts")) and all("--plan" in ln for ln in
                                                                  lines(os.path.join(count_dir, "scripts")))

        # interrupted after 5 points: the evaluation fails, the record says so
        rc, err = run_driver(base, dict(env, FAKE_STOP_AFTER="5"))
        assert rc == 1, err
        assert len(lines(runs)) == 5, lines(runs)
        r = json.load(open(rec))
        assert r["evaluations"]["fake"]["status"] != "ok" and r["last_run"]["finished"], r
        assert "5/7 points" in err or "4/7 points" in err, err

        # resumed: counts 2 left, runs only those, progress reaches 2/2, records the times
        rc, err = run_driver(base, env)
        assert rc == 0, err
        assert len(lines(runs)) == 7 and sorted(lines(runs)) == sorted(set(lines(runs))), lines(runs)
        assert any(ln.split()[:4] == ["fake", "2", "7", "2"] for ln in err.splitlines()), err
        assert "[figures-all] 2/2 points (100%)" in err, err
        r = json.load(open(rec))
        e = r["evaluations"]["fake"]
        assert e["status"] == "ok" and e["points"] == 7 and e["points_run"] == 2 and e["tier"] == "quick", e
        assert r["last_run"]["points_run"] == 2 and r["sum_eval_wall_s"] == e["wall_s"], r
        assert not r["all_points_run_in_last_pass"], r
        t = json.load(open(os.path.join(tmp, "res", "fake", "timing.json")))
        assert t["via"] == "make figures-all" and t["points"] == 7 and t["points_run"] == 2 and t["tier"] == "quick", t
        readme = open(os.path.join(tmp, "res", "fake", "README.md")).read()
        assert "The last regeneration by `make figures-all` (tier quick, -j 2" in readme, readme
        assert "it ran 2 of the 7 points" in readme, readme

        # nothing left and recorded ok with this binary: skipped whole (the script only plans)
        nscripts = len(lines(os.path.join(count_dir, "scripts")))
        rc, err = run_driver(base, env)
        assert rc == 0 and "done (recorded), skipped" in err, err
        new = lines(os.path.join(count_dir, "scripts"))[nscripts:]
        assert new and all("--plan" in ln for ln in new), new
        assert len(lines(runs)) == 7

        # Ctrl-C during an evaluation: exit 130, recorded as interrupted, resumable (nothing else lost)
        real = FA.run_eval

        def interrupted(*args):
            raise KeyboardInterrupt
        FA.run_eval = interrupted
        try:
            rc, err = run_driver(base + ["--redraw"], env)
        finally:
            FA.run_eval = real
        assert rc == 130 and "interrupted: run it again to resume" in err, (rc, err)
        assert json.load(open(rec))["evaluations"]["fake"]["status"] == "interrupted"
        rc, err = run_driver(base, env)       # not skipped: the record no longer says ok; nothing left to run
        assert rc == 0 and "nothing left to run: redraw only" in err and len(lines(runs)) == 7, err

        # --force: every point again, the README then says all ran
        rc, err = run_driver(base + ["--force"], env)
        assert rc == 0, err
        assert len(lines(runs)) == 14, len(lines(runs))
        readme = open(os.path.join(tmp, "res", "fake", "README.md")).read()
        assert "running all 7 points" in readme, readme
        assert json.load(open(rec))["all_points_run_in_last_pass"]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_two_at_once():
    """--evals-at-once 2: two evaluations at a time, -j 1 each; every point runs once, both recorded."""
    tmp = tempfile.mkdtemp(prefix="figures_all_test2_")
    try:
        persim, script, specs = os.path.join(tmp, "persim"), os.path.join(tmp, "fake_figures.py"), os.path.join(tmp, "specs")
        os.makedirs(specs)
        write_exe(persim, FAKE_PERSIM)
        write_exe(script, FAKE_SCRIPT)
        for name, n in (("one", 4), ("two", 3)):
            json.dump({"name": name, "out": "unused", "points": n}, open(os.path.join(specs, name + ".json"), "w"))
        count_dir = os.path.join(tmp, "count")
        os.makedirs(count_dir)
        env = {"SCRIPTS_DIR": HERE, "FAKE_SPECS": specs, "FAKE_COUNT_DIR": count_dir}
        FA.EVALS = [("fa", script, os.path.join(tmp, "res", "fa"), False),
                    ("fb", script, os.path.join(tmp, "res", "fb"), False)]
        rec = os.path.join(tmp, "figures-all.json")
        rc, err = run_driver(["--persim", persim, "-j", "2", "--record", rec, "--out-root", os.path.join(tmp, "res"),
                              "--log-dir", os.path.join(tmp, "logs"), "--evals-at-once", "2"], env)
        assert rc == 0, err
        assert len(lines(os.path.join(count_dir, "runs"))) == 14, lines(os.path.join(count_dir, "runs"))
        assert "[figures-all] 14/14 points (100%)" in err, err
        r = json.load(open(rec))
        for e in ("fa", "fb"):
            assert r["evaluations"][e]["status"] == "ok" and r["evaluations"][e]["jobs"] == 1, r
            assert r["evaluations"][e]["points_run"] == 7, r
        runs_of = [ln for ln in lines(os.path.join(count_dir, "scripts")) if "--plan" not in ln]
        assert len(runs_of) == 2 and all("-j 1" in ln for ln in runs_of), runs_of
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    test_progress()
    test_driver()
    test_two_at_once()
    print("test_figures_all: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
