#!/usr/bin/env bash
# Plays a long duel as a series of shorter ones (seeds SEED, SEED+1, ...), appending each
# run's JSON line to OUT, so that the series can stop and resume: runs already in OUT are
# skipped. At the end prints the pooled result of every run in OUT for these players.
#
#   scripts/duel_series.sh OUT A B GAMES_PER_RUN RUNS SEED [THREADS]
#   e.g. scripts/duel_series.sh runs/d5.jsonl net,depth=5 net 100 10 500 2
set -euo pipefail
out=${1:?usage: duel_series.sh OUT A B GAMES_PER_RUN RUNS SEED [THREADS]}
a=${2:?player A}
b=${3:?player B}
games=${4:?games per run}
runs=${5:?runs}
seed0=${6:?first seed}
threads=${7:-2}
bin=${STARGAMMON:-target/release/stargammon}
here=$(cd "$(dirname "$0")" && pwd)
touch "$out"
for ((k = 0; k < runs; k++)); do
    seed=$((seed0 + k))
    if python3 "$here/pool_duels.py" --has "$out" "$a" "$b" "$seed" "$games"; then
        continue
    fi
    "$bin" duel --a "$a" --b "$b" --games "$games" --seed "$seed" --threads "$threads" --json >>"$out"
done
python3 "$here/pool_duels.py" "$out" "$a" "$b"
