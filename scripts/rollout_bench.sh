#!/usr/bin/env bash
# Rollout throughput of one position, stargammon against gnubg at the same settings, in one
# run: stargammon at depth 1 (the net's greedy play), gnubg at 0-ply; cubeless; full games
# (no truncation, and gnubg's bear-off database truncation off); quasi-random dice; one and
# two threads; without and with variance reduction.
#
#   scripts/rollout_bench.sh [POS] [PLAIN_TRIALS] [VR_TRIALS]
#
# Defaults: the opening position (4HPwATDgc/ABMA), 1,296 trials without variance reduction,
# 144 with. Prints one Markdown table row per run: program, threads, variance reduction,
# trials, wall seconds (process start to exit, nets loaded included), trials per second,
# and stargammon's equity and standard error. Needs `cargo build --release` first.
# ENGINE=SPEC rolls out with that engine spec instead of the default (for example
# ENGINE=net,precision=int16 for the integer nets); ONLY=1 runs one thread without
# variance reduction alone.
set -euo pipefail
cd "$(dirname "$0")/.."

POS="${1:-4HPwATDgc/ABMA}"
PLAIN="${2:-1296}"
VR="${3:-144}"
ENGINE="${ENGINE:-}"
ONLY="${ONLY:-}"
BIN=target/release/stargammon
GNUBG="${GNUBG:-/usr/games/gnubg}"
[ -x "$GNUBG" ] || GNUBG="$(command -v gnubg || true)"
if [ ! -x "$BIN" ]; then
  echo "$0: build first: cargo build --release" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }

stargammon() { # THREADS VR(on|off) TRIALS
  local flag=""
  [ "$2" = off ] && flag="--no-vr"
  [ -n "$ENGINE" ] && flag="$flag --engine $ENGINE"
  local t0 t1
  t0=$(now)
  "$BIN" rollout "$POS" --trials "$3" --threads "$1" $flag --json >"$work/sg.json" 2>/dev/null
  t1=$(now)
  python3 - "$work/sg.json" "$t0" "$t1" "$1" "$2" "$3" "$ENGINE" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
secs = float(sys.argv[3]) - float(sys.argv[2])
label = "stargammon depth 1" + (f" ({sys.argv[7]})" if sys.argv[7] else "")
print(f"| {label} | {sys.argv[4]} | {sys.argv[5]} | {sys.argv[6]} | {secs:.1f} "
      f"| {int(sys.argv[6]) / secs:.0f} | {r['equity']:+.4f} | {r['se']:.4f} |")
PY
}

gnubg() { # THREADS VR(on|off) TRIALS
  if [ -z "$GNUBG" ]; then
    echo "| gnubg 0-ply | $1 | $2 | $3 | (gnubg not installed) | | | |"
    return
  fi
  cat >"$work/gnubg.txt" <<GN
set threads $1
set player 0 human
set player 1 human
set automatic roll off
set rollout trials $3
set rollout varredn $2
set rollout truncation enable off
set rollout cubeful off
set rollout chequerplay plies 0
set rollout later enable off
set rollout limit enable off
set rollout bearofftruncation exact off
set rollout bearofftruncation onesided off
set rollout quasirandom on
set rollout seed 1
new game
set dice 3 1
move 8/5 6/5
set board $POS
rollout
GN
  local t0 t1
  t0=$(now)
  "$GNUBG" -t -q -r <"$work/gnubg.txt" >"$work/gnubg.log" 2>&1
  t1=$(now)
  if ! grep -q "Rollout done" "$work/gnubg.log"; then
    tail -n 5 "$work/gnubg.log" >&2
    echo "$0: gnubg did not finish its rollout" >&2
    exit 1
  fi
  python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); print(f'| gnubg 0-ply | $1 | $2 | $3 | {s:.1f} | {$3/s:.0f} | | |')" "$t0" "$t1"
}

echo "| program | threads | variance reduction | trials | seconds | trials/s | equity | se |"
echo "|---|---|---|---|---|---|---|---|"
if [ -n "$ONLY" ]; then
  stargammon 1 off "$PLAIN"
  gnubg 1 off "$PLAIN"
  exit 0
fi
for threads in 1 2; do
  stargammon "$threads" off "$PLAIN"
  gnubg "$threads" off "$PLAIN"
  stargammon "$threads" on "$VR"
  gnubg "$threads" on "$VR"
done
