#!/usr/bin/env bash
# Long-haul check of the server over sockets: starts two `stargammon serve` processes on
# loopback and lets the match runner play GAMES cubeless money games between them, P games
# at a time (one connection per stream and server). Prints the runner's JSON summary; the
# figures that must be zero are its forfeits (no answer in time, unreadable or illegal
# replies, lost connections).
#
#   scripts/serve_soak.sh [GAMES] [P] [BASE_PORT]     (defaults 100000 2 9301)
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=${1:-100000}
PARALLEL=${2:-2}
PORT=${3:-9301}

cargo build --release --quiet
BIN=target/release/stargammon

PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
for port in "$PORT" "$((PORT + 1))"; do
  "$BIN" serve --listen "127.0.0.1:$port" 2>/dev/null &
  PIDS+=($!)
done
for port in "$PORT" "$((PORT + 1))"; do
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    sleep 0.1
  done
done
"$BIN" match --a "tcp://127.0.0.1:$PORT" --b "tcp://127.0.0.1:$((PORT + 1))" \
  --games "$GAMES" --parallel "$PARALLEL" --timeout 30 --seed 1 --json
