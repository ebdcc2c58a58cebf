#!/usr/bin/env bash
# Strength through gnubg's own interface: GNU Backgammon at 0-ply plays cubeless money games
# against `stargammon serve`, several gnubg processes in parallel, each with its own server
# connection (gnubg connects as a client to its external player 0). Prints the server's
# points per game with a 95% interval.
#
# Usage: scripts/gnubg_vs_server.sh [--games N] [--parallel P] [--depth D] [--seed S]
#                                   [--port PORT] [--config FILE] [--keep DIR]
#                                   [--cube [--server-rules gnubg|off]]
#   --games     games in total (default 100)
#   --parallel  gnubg processes (default: number of cores)
#   --depth     server search depth for checker plays (default 1)
#   --seed      base seed; process i uses seed+i (default 1)
#   --port      loopback port for the server (default 4930)
#   --config    server config file (default: built-in defaults with cubeful_plays = false)
#   --keep      keep gnubg's saved sessions (SGF) and logs in DIR
#   --cube      money games with the cube under gnubg's default rules (Jacoby on, beavers
#               allowed) instead of cubeless games with both off; the server ranks plays
#               cubefully, with gnubg's rules or, with --server-rules off, with both rules
#               off (a server whose rules do not match gnubg's)
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=100
PARALLEL=$(nproc 2>/dev/null || echo 2)
DEPTH=1
SEED=1
PORT=4930
CONFIG=""
KEEP=""
CUBE=""
SERVER_RULES=gnubg
GNUBG=${GNUBG:-/usr/games/gnubg}

while [ $# -gt 0 ]; do
  case "$1" in
    --games) GAMES=$2; shift 2 ;;
    --parallel) PARALLEL=$2; shift 2 ;;
    --depth) DEPTH=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --config) CONFIG=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    --cube) CUBE=1; shift ;;
    --server-rules) SERVER_RULES=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "gnubg_vs_server.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [ ! -x "$GNUBG" ]; then
  echo "gnubg_vs_server.sh: $GNUBG not found (apt-get install gnubg)" >&2
  exit 2
fi
if [ "$PARALLEL" -lt 1 ] || [ "$GAMES" -lt 1 ]; then
  echo "gnubg_vs_server.sh: --games and --parallel must be at least 1" >&2
  exit 2
fi

# BIN=PATH runs that binary instead of building the release one.
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=target/release/stargammon
fi

WORK=$(mktemp -d)
if [ -n "$KEEP" ]; then mkdir -p "$KEEP"; WORK=$(cd "$KEEP" && pwd); fi
if [ -z "$CONFIG" ]; then
  CONFIG="$WORK/server.toml"
  if [ -n "$CUBE" ]; then
    if [ "$SERVER_RULES" = off ]; then RULES=false; else RULES=true; fi
    cat > "$CONFIG" <<EOF
[engine]
depth = $DEPTH
[cube]
# gnubg keeps its default rules (Jacoby on, beavers allowed).
jacoby = $RULES
beavers = $RULES
EOF
  else
    cat > "$CONFIG" <<EOF
[engine]
depth = $DEPTH
# Cubeless games: rank plays by cubeless equity.
cubeful_plays = false
[cube]
# gnubg runs with `set jacoby off` and `set beavers 0` below.
jacoby = false
beavers = false
EOF
  fi
fi

SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [ -z "$KEEP" ]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT

RUST_LOG=${RUST_LOG:-warn} "$BIN" serve --config "$CONFIG" --listen "127.0.0.1:$PORT" 2> "$WORK/server.log" &
SERVER_PID=$!
# Wait until the server listens.
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then cat "$WORK/server.log" >&2; exit 1; fi
  sleep 0.1
done

START=$(date +%s.%N)
PIDS=()
for i in $(seq 0 $((PARALLEL - 1))); do
  n=$(( GAMES / PARALLEL + (i < GAMES % PARALLEL ? 1 : 0) ))
  [ "$n" -eq 0 ] && continue
  {
    echo "set display off"
    echo "set rng mersenne"
    echo "set seed $((SEED + i))"
    if [ -z "$CUBE" ]; then
      echo "set beavers 0"
      echo "set jacoby off"
      echo "set cube use off"
    fi
    echo "set automatic game off"
    echo "set defaultnames stargammon gnubg"
    echo "set player 1 gnubg"
    echo "set player 1 chequerplay evaluation plies 0"
    echo "set player 1 cubedecision evaluation plies 0"
    echo "set player 0 external 127.0.0.1:$PORT"
    for _ in $(seq 1 "$n"); do echo "new game"; done
    echo "show score"
    echo "save match $WORK/session_$i.sgf"
  } > "$WORK/gnubg_$i.in"
  "$GNUBG" -t -q -r < "$WORK/gnubg_$i.in" > "$WORK/gnubg_$i.log" 2>&1 &
  PIDS+=($!)
done
for p in "${PIDS[@]}"; do wait "$p" || true; done
END=$(date +%s.%N)

if [ -n "$CUBE" ]; then
  KIND="money with the cube, gnubg's rules, server rules $SERVER_RULES"
else
  KIND="cubeless money"
fi
# W is gnubg's player 0 (the server), B player 1 (gnubg). RE[W+2] = the server won 2 points.
cat "$WORK"/session_*.sgf 2>/dev/null | grep -o 'RE\[[WB]+[0-9]*' | awk -v games="$GAMES" \
  -v start="$START" -v end="$END" -v depth="$DEPTH" -v par="$PARALLEL" -v kind="$KIND" '
  { side = substr($0, 4, 1); pts = substr($0, 6) + 0; v = (side == "W") ? pts : -pts;
    n++; s += v; ss += v * v; if (v > 0) w++; if (v >= 2) g++; if (v <= -2) gl++ }
  END {
    if (n == 0) { print "no finished games"; exit 1 }
    secs = end - start; mean = s / n; var = (n > 1) ? (ss - n * mean * mean) / (n - 1) : 0;
    h = 1.96 * sqrt(var / n);
    printf "games: %d requested, %d finished (%d gnubg processes, %.1f s)\n", games, n, par, secs;
    printf "server (depth %d) vs gnubg 0-ply, %s: %+.3f ppg +- %.3f (95%%)\n", depth, kind, mean, h;
    printf "server wins %d (%.1f%%), gammons or better won %d, lost %d\n", w, 100 * w / n, g, gl;
    if (n < games) exit 3
  }'
