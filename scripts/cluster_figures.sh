#!/usr/bin/env bash
# The figures of docs/cluster.md and of "Running on a cluster" in docs/BENCHMARKS.md:
#
# 1. what one core does per hour for each labeller (one-thread runs, CPU time): distillation
#    search labels at the recipe's depths (3 and 5, config/distill-11*.toml's labeller and
#    kinds of games), distillation rollout labels (config/distill-9.toml's [rollout]: 12
#    trials truncated at 9 plies), strength-set labels (`bench strength-set label`'s
#    defaults), and rollout trials per core-second (whole games at depth 1, `rollout`'s
#    defaults);
# 2. each job as a 4-task array on the local one-node Slurm cluster (wall time)
#    (scripts/slurm/local_cluster.sh; needs root, slurm-wlm and munge): items, the array's
#    wall time, items per second per task and per core, and that the merge completed.
#
#   scripts/cluster_figures.sh [labellers|arrays|all]
#
# Run it on an otherwise idle machine for clean figures; everything runs under `nice`.
# SG_BIN: the binary [target/release/stargammon]; SG_SCALE multiplies every size [1].
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
bin=$(realpath "${SG_BIN:-target/release/stargammon}")
scale=${SG_SCALE:-1}
work=$(mktemp -d)
# munged wants every directory above its socket open to all.
chmod 755 "$work"
trap 'scripts/slurm/local_cluster.sh stop "$work/cluster" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export PATH="$PATH:/usr/sbin"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); load $(cut -d' ' -f1-3 /proc/loadavg)"

distill_config() { # depth, rollout table or "", games per chunk, chunks
  cat <<EOF
dir = "unused"
seed = 2026
games_per_chunk = $3
chunks = $4
keep = 0.1
labeller = "net,depth=$1"
sources = [
    "net,noise=0.04 vs net,noise=0.04",
    "net vs pubeval",
    "net vs net,noise=0.04",
    "net,depth=3 vs net,noise=0.08",
]
threads = 1
$2
EOF
}

# CPU seconds (user + system, 3 decimals) a command takes, its output discarded: on one
# thread, the core-seconds it needs, much less sensitive than wall time to what else the
# machine runs.
timed() {
  nice -n 19 python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime:.3f}")' "$@"
}
positions_in() { awk -F'"positions":' '{ split($2, a, ","); n += a[1] } END { print n + 0 }' "$1/manifest.jsonl"; }
per_hour() { echo "$1 / $2 * 3600" | bc -l | xargs printf '%.0f'; }

labellers() {
  echo "== one thread, per core =="
  local n=$((4 * scale))
  for spec in "3::search labels, depth 3" "5::search labels, depth 5" \
    "1:[rollout]\ntrials = 12\ntruncate = 9:rollout labels, 12 trials truncated at 9 plies"; do
    local depth=${spec%%:*} rest=${spec#*:}
    local table=${rest%%:*} label=${rest#*:}
    distill_config "$depth" "$(printf '%b' "$table")" 10 "$n" >"$work/d$depth.toml"
    local s
    s=$(timed "$bin" distill generate --config "$work/d$depth.toml" --threads 1 --dir "$work/d$depth")
    local p
    p=$(positions_in "$work/d$depth")
    echo "distill $label: $p positions in $s CPU s = $(per_hour "$p" "$s") positions per core-hour"
  done
  nice -n 19 "$bin" bench strength-set sample --out "$work/sample.txt" --contact $((24 * scale)) \
    --race $((10 * scale)) --bearoff $((6 * scale)) >/dev/null 2>&1
  local d
  d=$(grep -vc '^#' "$work/sample.txt")
  s=$(timed "$bin" bench strength-set label --sample "$work/sample.txt" --out "$work/labels.txt" --threads 1)
  echo "strength-set labels (top 6, 36 trials, truncated at 7): $d decisions in $s CPU s = $(per_hour "$d" "$s") per core-hour"
  nice -n 19 "$bin" distill dump --data "$work/d3" --every 7 --limit $((3 * scale)) | cut -f2 >"$work/positions.txt"
  local np
  np=$(wc -l <"$work/positions.txt")
  s=$(timed "$bin" rollout --positions "$work/positions.txt" --trials 1296 --threads 1 --out "$work/rollouts.jsonl")
  echo "rollouts (1296 whole games at depth 1 each): $np positions, $((np * 1296)) trials in $s CPU s = $(echo "$np * 1296 / $s" | bc -l | xargs printf '%.0f') trials per core-second"
  s=$(timed "$bin" rollout --positions "$work/positions.txt" --trials 1296 --truncate 11 --threads 1 --out "$work/rollouts-t11.jsonl")
  echo "rollouts (1296 games truncated at 11 plies): $np positions in $s CPU s = $(echo "$np * 1296 / $s" | bc -l | xargs printf '%.0f') trials per core-second"
}

# Seconds from the first task's start to the last one's end, from scontrol's records.
array_seconds() {
  scontrol -o show job "$1" | awk '
    { for (i = 1; i <= NF; i++) {
        if ($i ~ /^StartTime=/) { sub("StartTime=", "", $i); s[NR] = $i }
        if ($i ~ /^EndTime=/) { sub("EndTime=", "", $i); e[NR] = $i } } }
    END { for (k in s) print s[k], e[k] }' |
    while read -r s e; do echo "$(date -d "$s" +%s) $(date -d "$e" +%s)"; done |
    awk 'NR == 1 || $1 < lo { lo = $1 } NR == 1 || $2 > hi { hi = $2 } END { print hi - lo }'
}

arrays() {
  echo "== 4-task arrays on the local Slurm cluster ($(nproc) CPUs) =="
  local conf
  conf=$(scripts/slurm/local_cluster.sh start "$work/cluster")
  eval "$conf"
  export SG_BIN=$bin
  [ -f "$work/positions.txt" ] || {
    distill_config 3 "" 10 2 >"$work/d3.toml"
    nice -n 19 "$bin" distill generate --config "$work/d3.toml" --threads 1 --dir "$work/d3" >/dev/null 2>&1
    nice -n 19 "$bin" distill dump --data "$work/d3" --every 7 --limit $((3 * scale)) | cut -f2 >"$work/positions.txt"
  }
  [ -f "$work/sample.txt" ] || nice -n 19 "$bin" bench strength-set sample --out "$work/sample.txt" \
    --contact $((24 * scale)) --race $((10 * scale)) --bearoff $((6 * scale)) >/dev/null 2>&1
  for i in $(seq 1 $((4 * scale))); do cp tests/data/analyse/net_vs_noisy.mat "$work/m$i.mat"; echo "m$i.mat"; done >"$work/matches.txt"
  distill_config 3 "" 10 $((8 * scale)) >"$work/a3.toml"
  local cores
  cores=$(nproc)
  for job in distill rollout strength analyse; do
    local ids args=()
    case $job in
    distill) export SG_CONFIG=$work/a3.toml ;;
    rollout) export SG_POSITIONS=$work/positions.txt args=(-- --trials 1296 --truncate 11) ;;
    strength) export SG_SAMPLE=$work/sample.txt ;;
    analyse) export SG_FILES=$work/matches.txt args=(-- --plies 1) ;;
    esac
    ids=$(SG_SBATCH_ARGS="--nice=19" scripts/slurm/submit.sh "$job" "$work/jobs/$job" 4 "${args[@]}")
    local state=ok
    SG_WAIT_SECONDS=1800 scripts/slurm/wait.sh $ids >/dev/null || state=FAILED
    local secs items unit
    secs=$(array_seconds "${ids%% *}")
    case $job in
    distill) items=$(positions_in "$work/jobs/$job/merged") unit="positions" ;;
    rollout) items=$(($(wc -l <"$work/jobs/$job/rollouts.jsonl") * 1296)) unit="trials" ;;
    strength) items=$(grep -vc '^#' "$work/jobs/$job/set.txt") unit="decisions" ;;
    analyse) items=$(($(wc -l <"$work/jobs/$job/analysis.jsonl"))) unit="match files" ;;
    esac
    echo "$job: $items $unit in ${secs} s (array wall time), $(echo "$items / $secs / 4" | bc -l | xargs printf '%.2f') per task-second, $(echo "$items / $secs / $cores" | bc -l | xargs printf '%.2f') per core-second; jobs and merge: $state"
  done
}

case $what in
labellers) labellers ;;
arrays) arrays ;;
all) labellers && arrays ;;
*)
  echo "usage: $0 [labellers|arrays|all]" >&2
  exit 2
  ;;
esac
