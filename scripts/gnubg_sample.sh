#!/usr/bin/env bash
# Samples legal plays and ids from GNU Backgammon for the project's rules tests.
# Usage: scripts/gnubg_sample.sh SEED PAIRS OUTPUT [IDS [XGIDS]]
#   SEED    seed of the random games and constructed positions
#   PAIRS   number of (position, roll) pairs whose legal plays are recorded
#   OUTPUT  file to write (format described in scripts/gnubg_sample.py)
#   IDS     number of (board, Position ID, Match ID) records (default PAIRS/5)
#   XGIDS   number of random XGIDs with the ids (and money rules) gnubg derives (default IDS/4)
# The committed data: scripts/gnubg_sample.sh 20261122 6000 tests/data/gnubg_sample.txt 1200 1200
set -euo pipefail
if [ "$#" -lt 3 ]; then
  echo "usage: $0 SEED PAIRS OUTPUT [IDS [XGIDS]]" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
gnubg="${GNUBG:-/usr/games/gnubg}"
if [ ! -x "$gnubg" ]; then
  gnubg="$(command -v gnubg || true)"
fi
if [ -z "$gnubg" ]; then
  echo "$0: gnubg not found (apt-get install gnubg)" >&2
  exit 1
fi
out="$(realpath -m "$3")"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# gnubg prints boards and messages on stdout; keep them out of the way unless it fails.
if ! SAMPLE_SEED="$1" SAMPLE_PAIRS="$2" SAMPLE_IDS="${4:-$(($2 / 5))}" \
  SAMPLE_XGIDS="${5:-$((${4:-$(($2 / 5))} / 4))}" SAMPLE_OUT="$out" \
  "$gnubg" -t -q -r -p "$here/gnubg_sample.py" </dev/null >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  exit 1
fi
if grep -q '^gnubg_sample:\|Traceback' "$log"; then
  tail -n 20 "$log" >&2
  exit 1
fi
