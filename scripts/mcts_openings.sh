#!/usr/bin/env bash
# The McGammon paper's opening experiment: MCTS with random playouts chooses a play for each
# of the 15 opening rolls, next to the play that published full rollouts put first.
#
#   scripts/mcts_openings.sh [PLAYOUTS] [PLAYOUT]     (defaults: 200000 random)
#
# Each roll: `stargammon hint 4HPwATDgc/ABMA --dice D1 D2 --algorithm mcts --playouts N
# --playout P --json`; the MCTS ranking (most visits first) is printed as a Markdown table.
# Needs `cargo build --release` first.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-200000}
POLICY=${2:-random}
BIN=${BIN:-target/release/stargammon}
[ -x "$BIN" ] || { echo "$0: build first: cargo build --release" >&2; exit 1; }

# The consensus of published full rollouts (as in scripts/rollout_openings.sh).
declare -A CONSENSUS=(
  [21]="13/11 24/23|13/11 6/5" [31]="8/5 6/5" [41]="24/23 13/9|13/9 6/5"
  [51]="24/23 13/8|13/8 6/5" [61]="13/7 8/7" [32]="24/21 13/11|13/11 13/10"
  [42]="8/4 6/4" [52]="13/11 13/8|24/22 13/8" [62]="24/18 13/11|13/5|24/22 13/7"
  [43]="24/20 13/10|13/10 13/9|24/21 13/9" [53]="8/3 6/3" [63]="24/18 13/10|24/15"
  [54]="24/20 13/8|13/8 13/9" [64]="8/2 6/2|24/18 13/9|24/14" [65]="24/13"
)

start=$(date +%s)
echo "MCTS, $N $POLICY playouts per opening roll, one thread"
echo
echo "| roll | MCTS's play | visits' runner-up | ms | published best | agrees |"
echo "|---|---|---|---|---|---|"
for roll in 21 31 41 51 61 32 42 52 62 43 53 63 54 64 65; do
  "$BIN" hint 4HPwATDgc/ABMA --dice "${roll:0:1}" "${roll:1:1}" --algorithm mcts \
    --playouts "$N" --playout "$POLICY" --json |
    python3 -c '
import json, sys
roll, consensus = sys.argv[1], sys.argv[2]
r = json.load(sys.stdin)
# hint lists plays by value; search_rank is the order of the search itself, most visits first.
plays = sorted(r["plays"], key=lambda p: p["search_rank"])
def norm(m):
    return " ".join(sorted(m.split()))
best = plays[0]["move"]
second = plays[1]["move"] if len(plays) > 1 else ""
ok = any(norm(best) == norm(c) for c in consensus.split("|"))
print("| %s | %s | %s | %.0f | %s | %s |" % (roll, best, second, r["ms"],
      consensus.replace("|", " or "), "yes" if ok else "no"))
' "$roll" "${CONSENSUS[$roll]}"
done
echo
echo "$(($(date +%s) - start)) s in all"
