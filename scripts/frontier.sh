#!/usr/bin/env bash
# The error-time frontier: each player's `bench strength` error (mppg) and mean wall time
# per decision on the same decisions, one thread each, Stargammon's settings and gnubg's
# 0-, 1- and 2-ply (gnubg through its external interface on loopback, one listener per
# ply, so its time includes the request and the reply, as a user of it waits for them).
#
#   scripts/frontier.sh [--set FILE] [--every K] [--out FILE] [--port BASE] [SPEC...]
#
# --every K scores every K-th decision of the set (default 1: all 8,000 of the shipped
# set). The players run one after another, gnubg's plies first, then each SPEC (default:
# the settings listed below). One JSON line per player goes to --out (default
# frontier.jsonl); a table goes to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

SET=""
EVERY=1
OUT=frontier.jsonl
PORT=9801
SPECS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --set) SET=$2; shift 2 ;;
    --every) EVERY=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "frontier.sh: unknown argument $1" >&2; exit 2 ;;
    *) SPECS+=("$1"); shift ;;
  esac
done
if [ ${#SPECS[@]} -eq 0 ]; then
  SPECS=(
    "net"
    "net,depth=3"
    "net,depth=3,algorithm=filter"
    "net,depth=5,algorithm=filter,filter=9:0.16/2:0.04"
    "net,depth=5,algorithm=filter,filter=9:0.16/3:0.06"
    "net,depth=5,algorithm=filter"
    "net,depth=5"
  )
fi

cargo build --release --quiet
BIN=target/release/stargammon
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# The decisions scored: the shipped set (or --set), every K-th.
if [ -n "$SET" ]; then cp "$SET" "$WORK/full.txt"; else
  cp tests/data/strength_set.txt "$WORK/full.txt"
fi
awk -v k="$EVERY" '/^#/ { print; next } { if (n++ % k == 0) print }' "$WORK/full.txt" > "$WORK/set.txt"

: > "$OUT"
score() {
  "$BIN" bench strength --player "$1" --set "$WORK/set.txt" --threads 1 --json | tee -a "$OUT" >/dev/null
}
for plies in 0 1 2; do
  port=$((PORT + plies))
  scripts/gnubg_external.sh "$port" "$plies" >/dev/null 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    sleep 0.1
  done
  sleep 0.5
  score "tcp://127.0.0.1:$port"
  # Name gnubg's line by its plies.
  sed -i "\$s|\"player\":\"tcp://127.0.0.1:$port\"|\"player\":\"gnubg $plies-ply\"|" "$OUT"
done
for spec in "${SPECS[@]}"; do
  score "$spec"
done
python3 - "$OUT" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"{'player':<48} {'error mppg':>10} {'contact':>8} {'race':>6} {'ms/decision':>11}")
for r in rows:
    ph = r["by_phase"]
    print(f"{r['player']:<48} {r['error_mppg']:>10.2f} {ph.get('contact', 0):>8.2f} "
          f"{ph.get('race', 0):>6.2f} {r['ms_per_decision']:>11.2f}")
print(f"decisions: {rows[0]['decisions'] if rows else 0}")
PY
