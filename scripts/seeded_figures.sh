#!/usr/bin/env bash
# Re-measures, with the TD-trained nets, the seeded figures that depend on the dice
# generator, one command after another, under `nice`, each command's JSON saved under
# OUT_DIR.
#
#   scripts/seeded_figures.sh [OUT_DIR]        (default: runs/seeded)
#
# Run it after a change to src/game/rng.rs (which changes every seeded result) and update
# the pins of tests/seeded_pins.rs and the figures of docs/BENCHMARKS.md that name the TD
# nets (the others, taken with those nets, are in its git history). Needs gnubg for the
# comparisons with it. Takes about an hour on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${1:-runs/seeded}
mkdir -p "$OUT"
cargo build --release --quiet
BIN=target/release/stargammon
OPEN=4HPwATDgc/ABMA
# The figures were measured with the TD-trained nets, named by file so that shipping other
# nets does not move them (tests/seeded_pins.rs pins the same).
TD=net:weights/td.sgnet

run() {
  local name=$1
  shift
  echo "== $name: $*" >&2
  local t0
  t0=$(date +%s)
  nice "$@" >"$OUT/$name.json"
  echo "   $(($(date +%s) - t0)) s" >&2
}

# Strength of the TD nets, no search.
run duel-pubeval-s1 "$BIN" duel --a "$TD" --b pubeval --games 100000 --seed 1 --threads 2 --json
run duel-pubeval-s2 "$BIN" duel --a "$TD" --b pubeval --games 100000 --seed 2 --threads 2 --json
run duel-heuristic "$BIN" duel --a "$TD" --b heuristic --games 2000 --seed 1 --json
run duel-random "$BIN" duel --a "$TD" --b random --games 10000 --seed 1 --json

# Rollouts: equities and errors (timings are measured by scripts/rollout_bench.sh).
run rollout-open-novr "$BIN" rollout "$OPEN" --evaluator "$TD" --trials 5184 --no-vr --seed 1 --threads 2 --json
run rollout-open-vr "$BIN" rollout "$OPEN" --evaluator "$TD" --trials 576 --seed 1 --threads 2 --json
for s in 1 2; do
  run "rollout-open-novr-20736-s$s" "$BIN" rollout "$OPEN" --evaluator "$TD" --trials 20736 --no-vr --seed "$s" --json
done
for s in 1 2 3; do
  run "rollout-open-vr-1296-s$s" "$BIN" rollout "$OPEN" --evaluator "$TD" --trials 1296 --seed "$s" --json
done
run rollout-open-trunc-novr "$BIN" rollout "$OPEN" --evaluator "$TD" --trials 41472 --truncate 10 --no-vr --json
run rollout-open-trunc-vr "$BIN" rollout "$OPEN" --evaluator "$TD" --trials 5184 --truncate 10 --json
run rollout-31-vr-1296 "$BIN" rollout sGfwATDgc/ABMA --evaluator "$TD" --trials 1296 --json

# Against gnubg 0-ply (money games, then 7-point matches), through its external listeners,
# with the TD nets named directly (such figures were taken with the engine of
# config/throughput.toml when it played the TD nets).
if command -v gnubg >/dev/null 2>&1 || [ -x /usr/games/gnubg ]; then
  nice scripts/vs_gnubg.sh --engine "$TD" >"$OUT/vs-gnubg-money.json"
  nice scripts/vs_gnubg.sh --engine "$TD" --length 7 --matches 200 >"$OUT/vs-gnubg-7pt.json"
  nice scripts/gnubg_vs_server.sh --games 2000 --parallel 4 --seed 1 --port 4941 \
    >"$OUT/gnubg-vs-server.txt" 2>&1
else
  echo "gnubg not found: the comparisons with it were skipped" >&2
fi

# The 15 opening rolls (about 12 minutes).
nice scripts/rollout_openings.sh >"$OUT/openings.md"
mv rollout-openings.jsonl "$OUT/"
echo "done: $OUT" >&2
