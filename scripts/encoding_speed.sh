#!/usr/bin/env bash
# Evaluation speed of the contact net by input encoding and hidden size, next to gnubg's
# `calibrate`, in interleaved rounds. The encoding comparison it made is in the git history
# of docs/BENCHMARKS.md; the section "Evaluator speed" there now has the shipped nets'
# figures only.
#
# Usage: scripts/encoding_speed.sh [ROUNDS] [BINARY]
#   ROUNDS  interleaved rounds (default 5)
#   BINARY  the stargammon binary (default target/release/stargammon)
#
# Each round runs `stargammon bench eval --rounds 20 --json` on the shipped nets
# (encoding 1, 218x128), then on freshly initialised nets of encoding 1 x 128 and
# encoding 2 x 128 and x 256 hidden units (an evaluation costs the same whatever the
# weights), then `calibrate 200` in gnubg with one calculation thread. The nets are made
# with `stargammon train --max-games 0` from config/train-v2.toml in a temporary folder.
set -euo pipefail

rounds=${1:-5}
bin=${2:-target/release/stargammon}
gnubg=${GNUBG:-/usr/games/gnubg}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

nets=()
for spec in "1 128" "2 128" "2 256"; do
    read -r enc hidden <<<"$spec"
    name="e$enc-h$hidden"
    sed -e "s#^run_dir = .*#run_dir = \"$work/$name\"#" \
        -e "s#^contact_encoding = .*#contact_encoding = $enc#" \
        -e "s#^contact_hidden = .*#contact_hidden = $hidden#" \
        config/train-v2.toml >"$work/$name.toml"
    "$bin" train --config "$work/$name.toml" --max-games 0 --quiet 2>/dev/null
    nets+=("$name")
done

evals() {
    "$bin" bench eval --rounds 20 --json "$@" |
        python3 -c 'import json, sys; print(round(json.load(sys.stdin)["evals_per_sec"]))'
}

echo "time (UTC) | load | shipped e1x128 | e1x128 | e2x128 | e2x256 | gnubg calibrate"
for _ in $(seq "$rounds"); do
    line="$(date -u +%H:%M:%S) | $(cut -d' ' -f1 /proc/loadavg) | $(evals)"
    for name in "${nets[@]}"; do
        line="$line | $(evals --weights "$work/$name/checkpoint-0.sgnet")"
    done
    g=$(printf 'set threads 1\ncalibrate 200\n' | "$gnubg" -t -q -r 2>&1 |
        grep -o '[0-9]* static evaluations' | cut -d' ' -f1)
    echo "$line | $g"
done
