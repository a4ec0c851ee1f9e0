#!/usr/bin/env python3
"""End-to-end check of scripts/agpm_figures.py and scripts/gpu_matrix.py at small sizes with the
existing GPU models standing in for the AGPM family (--model-map): both run, and their CSVs and
READMEs hold what they should. Usage: test_agpm_scripts.py PERSIM (run from anywhere)."""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    persim = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "persim"))
    tmp = tempfile.mkdtemp(prefix="agpm_scripts_")
    try:
        out = os.path.join(tmp, "agpm")
        cmd = [sys.executable, "scripts/agpm_figures.py", "--persim", persim, "-j", "2", "--out", out,
               "--config", "configs/gpu_small.json", "--size", "small", "--model-map",
               "static-nt=epoch,static-t=gpm,themis=sbrp,pmem-spec=nvwfifo,bucl=epoch,agpm=gpm"]
        assert subprocess.run(cmd, cwd=ROOT).returncode == 0, "agpm_figures.py failed"
        f7 = rows(os.path.join(out, "fig7.csv"))
        assert [r["kernel"] for r in f7][-1] == "mean" and len(f7) == 23, f7
        assert all(r["static-nt"] != "n/a" and float(r["static-nt"]) > 0 for r in f7), "missing Figure 7 numbers"
        f3 = rows(os.path.join(out, "fig3.csv"))
        assert len(f3) == 22 and all(r["persim_type"] in ("I", "II", "III") for r in f3), f3
        t2 = rows(os.path.join(out, "table2.csv"))
        assert len(t2) == 22 and all(int(r["log"]) > 0 and int(r["all"]) > int(r["log"]) for r in t2), t2
        readme = open(os.path.join(out, "README.md")).read()
        assert "These are not the paper's designs" in readme and "| Fig. 7 |" in readme

        mo = os.path.join(tmp, "matrix")
        cmd = [sys.executable, "scripts/gpu_matrix.py", "--persim", persim, "-j", "2", "--out", mo, "--models", "gpm",
               "--workloads", "agpm-gemm,agpm-ra,btree-kr", "--crash-points", "2"]
        assert subprocess.run(cmd, cwd=ROOT).returncode == 0, "gpu_matrix.py failed"
        m = {r["workload"]: r for r in rows(os.path.join(mo, "matrix.csv"))}
        assert set(m) == {"agpm-gemm", "agpm-ra", "btree-kr"}, m
        assert m["agpm-gemm"]["crash"] == "recovered" and m["agpm-ra"]["crash"] == "recovered", m
        assert m["btree-kr"]["crash"] == "no procedure", m
        assert m["agpm-gemm"]["requirements"] == "all guaranteed", m
        assert all(float(r["norm"]) > 1.0 for r in m.values()), m
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("agpm scripts: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
