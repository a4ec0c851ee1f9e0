#!/usr/bin/env bash
# Installs persim's build and run dependencies from Debian 12 packages. Idempotent: packages
# already present are not touched, and nothing is downloaded from anywhere but Debian's archive.
#   install-deps.sh          everything: the tests, RTL co-simulation, synthesis, real programs (make test)
#   install-deps.sh minimal  what building the `persim` binary and running the demo need (make demo)
#   install-deps.sh fuzz     minimal + clang and its libFuzzer runtime (make fuzz only)
set -euo pipefail

MINIMAL=(
  build-essential cmake pkg-config ninja-build python3
  libsystemc-dev            # SystemC 2.3 + TLM-2.0 (C++17 ABI)
  nlohmann-json3-dev        # config / stats JSON
  libcli11-dev              # command-line parsing (CLI11, header-only)
  libcsv-dev                # CSV files written and read (runs.csv, sweep.csv; RFC 4180)
  libzstd-dev zstd          # compressed traces (persim reads and writes .zst; workloads/trace.c)
  liblzma-dev               # xz-compressed Accel-Sim traces (.traceg.xz; workloads/accelsim.c)
  python3-matplotlib        # result plots (PNG; the demo draws one)
  help2man                  # the man page `make install` writes from persim --help
)
FUZZ=(
  "${MINIMAL[@]}"
  clang libclang-rt-dev     # libFuzzer harnesses of fuzz/ (make fuzz; not needed by make demo or make test)
)
PKGS=(
  "${MINIMAL[@]}"
  googletest libgtest-dev   # unit and integration tests
  python3-scipy             # Student-t quantiles of the figures' confidence intervals (scripts/verdict.py)
  verilator                 # RTL lint and co-simulation
  yosys                     # synthesis for area reports; yosys-smtbmc for make formal
  cvc5                      # SMT solver of make formal (formal/prove.py; Debian's boolector 1.5 and z3 4.8.12 do not work with yosys-smtbmc here)
  qflow-tech-osu018         # OSU 0.18 um standard-cell liberty
  opensta                   # static timing of the synthesized netlists (make timing, /usr/bin/sta)
  valgrind                  # lackey memory traces of real programs (scripts/record-real-program.sh)
  sqlite3                   # the default program recorded by scripts/record-real-program.sh
  libpmemobj-dev            # PMDK programs traced by persim trace-program (programs/pmdk/, docs/real-programs.md)
  redis-server              # whole-system persistence program of make figures-real (pulls redis-tools: redis-cli, redis-benchmark)
)

case "${1:-full}" in
  minimal) PKGS=("${MINIMAL[@]}") ;;
  fuzz) PKGS=("${FUZZ[@]}") ;;
  full) ;;
  *) echo "install-deps: unknown profile '$1' (minimal, fuzz or full)" >&2; exit 1 ;;
esac
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
