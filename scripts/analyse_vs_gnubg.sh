#!/usr/bin/env bash
# Blunder agreement and error rates of `stargammon analyse` against gnubg's own analysis.
#
#   scripts/analyse_vs_gnubg.sh [MATCHES] [PLIES] [SEED]
#
# Plays MATCHES 7-point matches (default 4) between the net and a noisy net (PLAYER_B,
# default `net,noise=0.15`: a player that blunders checker plays; add `cube_noise=0.15` for
# one that errs on the cube too), writes each as a .mat file, analyses each with
# `stargammon analyse --plies PLIES --json` and with gnubg (`analyse match` at the same
# plies, scripts/gnubg_analyse.py), and compares the two (scripts/analyse_compare.py).
set -euo pipefail
cd "$(dirname "$0")/.."
matches=${1:-4}
plies=${2:-0}
seed=${3:-11}
bin=${STARGAMMON:-target/release/stargammon}
player_b=${PLAYER_B:-net,noise=0.15}
gnubg=${GNUBG:-/usr/games/gnubg}
dir=$(mktemp -d)
args=()
for ((i = 0; i < matches; i++)); do
    s=$((seed + i))
    "$bin" match --a net --b "$player_b" --length 7 --matches 1 --seed "$s" \
        --mat "$dir/m$s.mat" > /dev/null
    "$bin" analyse "$dir/m$s.mat" --plies "$plies" --json --quiet > "$dir/m$s.ours.json"
    MAT="$dir/m$s.mat" PLIES="$plies" OUT="$dir/m$s.gnubg.json" \
        "$gnubg" -t -q -r -p scripts/gnubg_analyse.py > "$dir/m$s.gnubg.out" 2>&1
    args+=("$dir/m$s.ours.json" "$dir/m$s.gnubg.json" "$dir/m$s.gnubg.out")
done
python3 scripts/analyse_compare.py "${args[@]}"
echo "(PLAYER_B=$player_b scripts/analyse_vs_gnubg.sh $matches $plies $seed; files in $dir)"
