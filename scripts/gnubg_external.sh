#!/usr/bin/env bash
# Starts gnubg's `external` server on a loopback port so that `stargammon match` (or any
# client of gnubg's external interface) can play against it:
#
#   scripts/gnubg_external.sh 9001 [PLIES]     # serves 127.0.0.1:9001 at PLIES (default 0)
#
# The server answers one client at a time; start one per parallel game stream
# (e.g. ports 9001..9004 for `--parallel 4` with `--b tcp://127.0.0.1:9001,...`).
# Runs in the foreground until it gets SIGTERM/SIGINT; gnubg stops with it.
set -euo pipefail
PORT="${1:?usage: gnubg_external.sh PORT [PLIES]}"
PLIES="${2:-0}"
GNUBG="${GNUBG:-/usr/games/gnubg}"
if [ ! -x "$GNUBG" ]; then
  echo "gnubg_external.sh: $GNUBG not found (apt-get install gnubg)" >&2
  exit 1
fi
# gnubg reads its commands from stdin and serves while `external` runs; the feeder keeps
# stdin open (sleep) so gnubg does not stop at the end of the commands.
(
  printf '%s\n' \
    "set evaluation chequerplay evaluation plies $PLIES" \
    "set evaluation cubedecision evaluation plies $PLIES" \
    "set jacoby off" \
    "set beavers 0" \
    "external 127.0.0.1:$PORT"
  exec sleep infinity
) | "$GNUBG" -t -q -r &
GNUBG_PID=$!
# On exit stop gnubg and the feeder (both are this script's own children).
trap 'kill "$GNUBG_PID" 2>/dev/null || true; pkill -P $$ 2>/dev/null || true' EXIT
trap 'exit 0' TERM INT
wait "$GNUBG_PID"
