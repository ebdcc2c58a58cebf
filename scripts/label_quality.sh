#!/usr/bin/env bash
# How close a data directory's labels are to long rollouts of the same positions, against
# the depth-3 values of the same nets:
#
#   scripts/label_quality.sh DATA_DIR NETS [POSITIONS] [TRIALS]
#
# Takes POSITIONS (default 40) positions spread over DATA_DIR (`stargammon distill dump`),
# and for each the reference: a variance-reduced rollout of TRIALS (default 324) trials
# played to the end by NETS at depth 1; the depth-3 value (a rollout of one trial truncated
# after one ply, which with variance reduction is exactly the average over the 21 rolls
# of the best play's value); and the label. Prints each and the root-mean-square
# differences from the reference in cubeless equity, with the reference's own noise.
set -euo pipefail
DATA="${1:?usage: label_quality.sh DATA_DIR NETS [POSITIONS] [TRIALS]}"
NETS="${2:?usage: label_quality.sh DATA_DIR NETS [POSITIONS] [TRIALS]}"
N="${3:-40}"
TRIALS="${4:-324}"
BIN="${STARGAMMON:-target/release/stargammon}"
TOTAL=$("$BIN" distill dump --data "$DATA" | wc -l)
EVERY=$(( TOTAL / N > 0 ? TOTAL / N : 1 ))
"$BIN" distill dump --data "$DATA" --every "$EVERY" --limit "$N" |
  while IFS=$'\t' read -r _chunk id label _probs; do
    d3=$("$BIN" rollout "$id" --evaluator "net:$NETS" --trials 1 --truncate 1 --threads 1 --json 2>/dev/null)
    ref=$("$BIN" rollout "$id" --evaluator "net:$NETS" --trials "$TRIALS" --threads 1 --json 2>/dev/null)
    printf '%s\t%s\t%s\t%s\n' "$id" "$label" "$d3" "$ref"
  done |
  python3 -c '
import json, math, sys
rows = []
for line in sys.stdin:
    pid, label, d3, ref = line.rstrip("\n").split("\t")
    d3, ref = json.loads(d3), json.loads(ref)
    r = (float(label), d3["equity"], ref["equity"], ref["se"])
    rows.append(r)
    print("%s  label %+.4f  depth 3 %+.4f  rollout %+.4f +/- %.4f" % ((pid,) + r))
n = len(rows)
rms = lambda k: math.sqrt(sum((r[k] - r[2]) ** 2 for r in rows) / n)
noise = math.sqrt(sum(r[3] ** 2 for r in rows) / n)
print(f"{n} positions: rms difference from the rollouts: labels {rms(0):.4f}, depth 3 {rms(1):.4f} (the rollouts own noise {noise:.4f})")
'
