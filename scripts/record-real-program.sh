#!/usr/bin/env bash
# Records a real program's memory accesses with Valgrind lackey and converts them into a persim
# trace (scripts/lackey2trace.py; docs/workloads-cpu.md "Real programs").
#
#   scripts/record-real-program.sh [-n NAME] [-s SKIP] [-m MAX_OPS] [-- COMMAND ARGS...]
#
# Without a command it records `sqlite3 :memory:` running a small SQL script it writes to a temp
# file (create a table, insert 200 rows in one transaction, an aggregate query). The trace goes to
# results/traces/NAME.trace (NAME default: the command's basename, "sqlite3" for the default).
# SKIP instructions are fast-forwarded (default 0), and at most MAX_OPS trace ops are written
# (default 2000000; 0 = all). Lackey records one thread, no values: see the converter's --help.
# Startup is part of the recording: the default sqlite3 run executes ~7.0 M instructions, of
# which the first ~2.4 M are the dynamic loader, sqlite3's initialisation and CREATE TABLE
# (measured with valgrind 3.19, sqlite 3.40); -s 2500000 starts the trace in the INSERT
# transaction. Commit a recorded trace only if it is smaller than 2 MB (e.g. -m 60000).
# For threads, real store values, fences, flushes and atomics use `persim trace-program` instead
# (the persim-vgtrace tool, docs/real-programs.md); this script stays for machines without it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
name=""
skip=0
max_ops=2000000
while [ $# -gt 0 ]; do
  case "$1" in
    -n) name="$2"; shift 2 ;;
    -s) skip="$2"; shift 2 ;;
    -m) max_ops="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
command -v valgrind >/dev/null || { echo "record-real-program: valgrind not found (scripts/install-deps.sh installs it)" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 0 ]; then
  command -v sqlite3 >/dev/null || { echo "record-real-program: sqlite3 not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
  {
    echo "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);"
    echo "BEGIN;"
    for i in $(seq 1 200); do echo "INSERT INTO t(k, v) VALUES ($(( (i * 7919) % 1000 )), 'row-$i');"; done
    echo "COMMIT;"
    echo "SELECT count(*), sum(k), max(v) FROM t WHERE k > 500;"
  } > "$tmp/script.sql"
  set -- sqlite3 -init "$tmp/script.sql" :memory: .quit
  default_sql=1
  [ -n "$name" ] || name=sqlite3
fi
[ -n "$name" ] || name="$(basename "$1")"

out_dir="$root/results/traces"
mkdir -p "$out_dir"
out="$out_dir/$name.trace"
echo "record-real-program: valgrind --tool=lackey --trace-mem=yes $*" >&2
# lackey writes the trace to its log; the program's own output goes to the terminal
valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lackey.out" "$@" < /dev/null
cmd="$*"
[ -z "${default_sql:-}" ] || cmd="sqlite3 :memory: < (CREATE TABLE; 200 INSERTs in one transaction; a SELECT)"
python3 "$here/lackey2trace.py" "$tmp/lackey.out" --skip "$skip" --max-ops "$max_ops" \
  --comment "recorded by scripts/record-real-program.sh: valgrind --tool=lackey --trace-mem=yes $cmd" -o "$out"
size=$(stat -c %s "$out")
echo "record-real-program: wrote $out ($size bytes)" >&2
if [ "$size" -ge 2000000 ]; then
  echo "record-real-program: larger than 2 MB: do not commit it" >&2
fi
