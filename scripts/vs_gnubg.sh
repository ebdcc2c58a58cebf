#!/usr/bin/env bash
# One command for a long comparison against gnubg: starts P gnubg `external` listeners on
# loopback (scripts/gnubg_external.sh), runs `stargammon match` against them, stops them.
#
#   scripts/vs_gnubg.sh [--games N | --length L --matches M] [--parallel P] [--plies K]
#                       [--seed S] [--port BASE] [--engine SPEC] [-- MORE MATCH ARGS]
#
# Defaults: 10,000 cubeless money games, 2 parallel streams, gnubg 0-ply, seed 1, ports
# 9001.., engine `engine` (the shipped defaults, as `stargammon serve` plays). Prints the
# match runner's JSON summary on stdout; per-game JSON lines go to vs-gnubg.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=10000
LENGTH=""
MATCHES=""
PARALLEL=2
PLIES=0
SEED=1
PORT=9001
ENGINE=engine
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --games) GAMES=$2; shift 2 ;;
    --length) LENGTH=$2; shift 2 ;;
    --matches) MATCHES=$2; shift 2 ;;
    --parallel) PARALLEL=$2; shift 2 ;;
    --plies) PLIES=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --engine) ENGINE=$2; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "vs_gnubg.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

cargo build --release --quiet
BIN=target/release/stargammon

PIDS=()
ADDRS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
for ((i = 0; i < PARALLEL; i++)); do
  port=$((PORT + i))
  scripts/gnubg_external.sh "$port" "$PLIES" >/dev/null 2>&1 &
  PIDS+=($!)
  ADDRS+=("127.0.0.1:$port")
done
# Wait until every listener accepts connections.
for addr in "${ADDRS[@]}"; do
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/${addr%:*}/${addr#*:}") 2>/dev/null; then break; fi
    sleep 0.1
  done
done

B="tcp://$(IFS=,; echo "${ADDRS[*]}")"
if [ -n "$LENGTH" ]; then
  "$BIN" match --a "$ENGINE" --b "$B" --length "$LENGTH" --matches "${MATCHES:-100}" \
    --parallel "$PARALLEL" --seed "$SEED" --json --games-out vs-gnubg.jsonl "${EXTRA[@]}"
else
  "$BIN" match --a "$ENGINE" --b "$B" --games "$GAMES" \
    --parallel "$PARALLEL" --seed "$SEED" --json --games-out vs-gnubg.jsonl "${EXTRA[@]}"
fi
