#!/usr/bin/env bash
# Measures the figures of the "Tavli" section of docs/BENCHMARKS.md (duels of the nets,
# depth 3 against depth 1, the match table's self-play rates, Tavli matches, move
# generation), one command after another, each command's JSON saved under OUT_DIR.
#
#   scripts/tavli_figures.sh [OUT_DIR]        (default: runs/tavli-figures)
#
# PORTES_NET=PATH adds the comparisons of a Portes-trained net (a `train --variant portes`
# export) with the backgammon nets. About 15 minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${1:-runs/tavli-figures}
mkdir -p "$OUT"
cargo build --release --quiet
BIN=target/release/stargammon

run() {
  local name=$1
  shift
  echo "== $name: $*" >&2
  local t0
  t0=$(date +%s)
  "$@" >"$OUT/$name.json"
  echo "   $(($(date +%s) - t0)) s" >&2
}

for v in plakoto fevga; do
  # The shipped net at depth 1 against the game's heuristic player.
  run "$v-net-heuristic" $BIN duel --variant $v --a net --b heuristic --games 20000 --seed 1 --json
  # Depth 3 (Star2) against depth 1 of the same net.
  run "$v-depth3-depth1" $BIN duel --variant $v --a net,depth=3 --b net --games 2000 --seed 1 --json
  # The heuristic against random (the yardstick's own figure).
  run "$v-heuristic-random" $BIN duel --variant $v --a heuristic --b random --games 20000 --seed 1 --json
done
for v in portes plakoto fevga; do
  # Self-play of the shipped net: the single, double and tie rates behind the match table.
  run "$v-net-net" $BIN duel --variant $v --a net --b net --games 20000 --seed 2 --json
done
run portes-net-pubeval $BIN duel --variant portes --a net --b pubeval --games 20000 --seed 1 --json
run portes-heuristic-random $BIN duel --variant portes --a heuristic --b random --games 20000 --seed 1 --json
if [ -n "${PORTES_NET:-}" ]; then
  run portes-trained-pubeval $BIN duel --variant portes --a "net:$PORTES_NET" --b pubeval --games 20000 --seed 1 --json
  run portes-trained-bgnets $BIN duel --variant portes --a "net:$PORTES_NET" --b net --games 20000 --seed 1 --json
fi
# Tavli matches: the shipped engine (the served depth, 3) against the heuristic players.
run tavli-matches $BIN match --variant tavli --a net,depth=3 --b heuristic --length 7 --matches 100 --seed 1 --parallel 2 --json
for v in portes plakoto fevga; do
  run "movegen-$v" $BIN bench movegen --variant $v --json
  run "movegen-$v-engine" $BIN bench movegen --variant $v --games engine --json
done
run movegen-backgammon $BIN bench movegen --json
