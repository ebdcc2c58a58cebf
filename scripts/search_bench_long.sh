#!/usr/bin/env bash
# Runs `stargammon bench search` over the whole committed set in chunks, appending one
# record per decision to a file, so that a run of hours can stop and resume anywhere:
# chunks already fully recorded are skipped. Prints the summary at the end.
#
#   scripts/search_bench_long.sh RECORD_FILE [DEPTH] [ALGOS] [CHUNK]
#   e.g. scripts/search_bench_long.sh runs/search-d5.jsonl 5 expectimax,star2,filter 10
set -euo pipefail
record=${1:?usage: search_bench_long.sh RECORD_FILE [DEPTH] [ALGOS] [CHUNK]}
depth=${2:-5}
algos=${3:-expectimax,star2,filter}
chunk=${4:-10}
bin=${STARGAMMON:-target/release/stargammon}
total=$(grep -cE '^-?[0-9]' tests/data/search_positions.txt)
n_algos=$(tr ',' '\n' <<<"$algos" | grep -c .)
touch "$record"
for ((start = 0; start < total; start += chunk)); do
    end=$((start + chunk < total ? start + chunk : total))
    # Decisions of this chunk already recorded at this depth, over all listed algorithms.
    have=$(python3 - "$record" "$start" "$end" "$depth" "$algos" <<'PY'
import json, sys
path, start, end, depth, algos = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split(",")
seen = set()
for line in open(path):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r["depth"] == depth and r["algo"] in algos and start <= r["index"] < end:
        seen.add((r["algo"], r["index"]))
print(len(seen))
PY
)
    if [ "$have" -ge $(((end - start) * n_algos)) ]; then
        continue
    fi
    "$bin" bench search --depth "$depth" --start "$start" --positions $((end - start)) \
        --algorithms "$algos" --threads 1 --tt-megabytes 64 --evaluator net --record "$record" >/dev/null
done
"$bin" bench search --summarize "$record"
