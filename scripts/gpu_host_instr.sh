#!/bin/bash
# Host instructions per simulated warp instruction of the GPU (docs/gpu.md "Simulation speed"):
# each run below at --size default under callgrind (instruction counts do not depend on the load).
# usage (from the repository root): scripts/gpu_host_instr.sh PERSIM TAG [OUTDIR]
#   -> OUTDIR/TAG.txt (default OUTDIR results/bench/host_instr), one line per run:
#      run  warp-instructions  host-instructions  host-instructions-per-warp-instruction
# Takes about 15 minutes on one core (the runs take 50x their native time under callgrind).
set -e
P=$1; TAG=$2; OUTDIR=${3:-results/bench/host_instr}; mkdir -p "$OUTDIR"; OUT=$OUTDIR/$TAG.txt; : > "$OUT"
runs=(
"gpu_sbrp_table1 sbrp near reduction"
"gpu_sbrp_table1 sbrp far gpkvs"
"gpu_sbrp_table1 epoch far gpkvs"
"gpu_sbrp_table1 sbrp near scan"
"gpu_sbrp_table1 epoch near srad"
"gpu_sbrp_table1 sbrp near mq"
"gpu_agpm_table4 agpm near agpm-backprop1"
"gpu_agpm_table4 agpm near agpm-ra"
"gpu_agpm_table4 agpm near agpm-stencil1"
"gpu_agpm_table4 agpm near agpm-bfs"
"gpu_agpm_table4 agpm near agpm-2dconv"
"gpu_agpm_table4 static-nt near agpm-streamtriad"
)
for r in "${runs[@]}"; do set -- $r
  d=$OUTDIR/$TAG-$2-$3-$4
  valgrind --tool=callgrind --callgrind-out-file=$d.cg $P run --config configs/$1.json --model $2 --workload $4 --size default --set system.pm_placement=$3 --out $d --quiet 2>$d.vg
  ir=$(grep -E '^(summary|totals):' $d.cg | head -1 | awk '{print $2}')
  wi=$(python3 -c "import json;print(int(json.load(open('$d/stats.json'))['summary']['warp_instructions']['value']))")
  echo "$2-$3-$4 $wi $ir $(python3 -c "print(f'{$ir/$wi:.0f}')")" | tee -a $OUT
done
