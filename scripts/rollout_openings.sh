#!/usr/bin/env bash
# Rolls out the best plays of the 15 opening rolls and prints a Markdown table next to the
# play that published bot rollouts agree on (several where they find the plays within a few
# hundredths of each other).
#
#   scripts/rollout_openings.sh [--trials N] [--top K] [--depth D] [--threads T] [--no-vr]
#                               [--seed S]
#
# Defaults: 1,296 trials per play, the top 3 plays of a depth-1 ranking, depth-1 players,
# variance reduction on, all cores, seed 1. Each roll's full JSON goes to
# rollout-openings.jsonl. Needs `cargo build --release` first.
set -euo pipefail
cd "$(dirname "$0")/.."

TRIALS=1296
TOP=3
DEPTH=1
THREADS=""
SEED=1
VR=""
while [ $# -gt 0 ]; do
  case "$1" in
    --trials) TRIALS=$2; shift 2 ;;
    --top) TOP=$2; shift 2 ;;
    --depth) DEPTH=$2; shift 2 ;;
    --threads) THREADS="--threads $2"; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --no-vr) VR="--no-vr"; shift ;;
    *) echo "$0: unknown argument $1" >&2; exit 2 ;;
  esac
done
BIN=target/release/stargammon
if [ ! -x "$BIN" ]; then
  echo "$0: build first: cargo build --release" >&2
  exit 1
fi
OUT=rollout-openings.jsonl
: >"$OUT"

# The consensus of published full rollouts (gnubg, Snowie and XG; money, as the opening's
# best play): alternatives separated by "|" are within about 0.02 of each other there.
declare -A CONSENSUS=(
  [21]="13/11 24/23|13/11 6/5"
  [31]="8/5 6/5"
  [41]="24/23 13/9|13/9 6/5"
  [51]="24/23 13/8|13/8 6/5"
  [61]="13/7 8/7"
  [32]="24/21 13/11|13/11 13/10"
  [42]="8/4 6/4"
  [52]="13/11 13/8|24/22 13/8"
  [62]="24/18 13/11|13/5|24/22 13/7"
  [43]="24/20 13/10|13/10 13/9|24/21 13/9"
  [53]="8/3 6/3"
  [63]="24/18 13/10|24/15"
  [54]="24/20 13/8|13/8 13/9"
  [64]="8/2 6/2|24/18 13/9|24/14"
  [65]="24/13"
)

start=$(date +%s)
echo "Opening rolls: $TRIALS trials per play, top $TOP plays (depth-$DEPTH ranking), depth-$DEPTH players, ${VR:-variance reduction on}, seed $SEED"
echo
echo "| roll | rollout's best | equity (se) | runner-up | equity (se) | difference (se) | published best | agrees |"
echo "|---|---|---|---|---|---|---|---|"
for roll in 21 31 41 51 61 32 42 52 62 43 53 63 54 64 65; do
  hi=${roll:0:1}
  lo=${roll:1:1}
  # shellcheck disable=SC2086
  "$BIN" rollout 4HPwATDgc/ABMA --dice "$hi" "$lo" --trials "$TRIALS" --top "$TOP" \
    --depth "$DEPTH" --seed "$SEED" $THREADS $VR --json 2>/dev/null | tee -a "$OUT" |
    python3 -c '
import json, sys
roll, consensus = sys.argv[1], sys.argv[2]
r = json.load(sys.stdin)
p = r["plays"]
def norm(m):
    return " ".join(sorted(m.split()))
def fmt(q):
    return "%+.3f (%.3f)" % (q["equity"], q["se"])
best = p[0]
ok = "yes" if norm(best["move"]) in {norm(c) for c in consensus.split("|")} else "no"
cells = [roll, best["move"], fmt(best)]
if len(p) > 1:
    q = p[1]
    cells += [q["move"], fmt(q), "%+.3f (%.3f)" % (q["diff"], q["diff_se"])]
else:
    cells += ["", "", ""]
cells += [consensus.replace("|", " or "), ok]
print("| " + " | ".join(cells) + " |")
' "$roll" "${CONSENSUS[$roll]}"
done
echo
echo "$(( $(date +%s) - start )) s"
