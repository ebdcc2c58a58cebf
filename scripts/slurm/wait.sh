#!/usr/bin/env bash
# Waits until the given Slurm jobs (job arrays included) have left the queue, then prints
# one line per job or array task, `ID STATE` (ID as 12_3 for task 3 of array 12), and exits
# 0 when every one COMPLETED, 1 otherwise. Reads states with scontrol, so it needs no
# accounting database (finished jobs stay visible for the cluster's MinJobAge).
#
#   scripts/slurm/wait.sh $(scripts/slurm/submit.sh rollout OUT 16)
#
# SG_WAIT_SECONDS bounds the wait (default: none); past it, exit 124.
set -euo pipefail
[ $# -ge 1 ] || {
  echo "usage: $0 JOBID..." >&2
  exit 2
}
ids=$(
  IFS=,
  echo "$*"
)
start=$SECONDS
while [ -n "$(squeue -h -j "$ids" -o %i 2>/dev/null)" ]; do
  if [ -n "${SG_WAIT_SECONDS:-}" ] && [ $((SECONDS - start)) -ge "$SG_WAIT_SECONDS" ]; then
    echo "$0: jobs $ids still queued or running after $SG_WAIT_SECONDS s" >&2
    exit 124
  fi
  sleep 1
done
status=0
for id in "$@"; do
  lines=$(scontrol -o show job "$id") || {
    echo "$0: no record of job $id" >&2
    exit 1
  }
  while read -r line; do
    [ -n "$line" ] || continue
    job=$(sed -n 's/.*\bJobId=\([0-9]*\).*/\1/p' <<<"$line")
    array=$(sed -n 's/.*\bArrayJobId=\([0-9]*\).*/\1/p' <<<"$line")
    task=$(sed -n 's/.*\bArrayTaskId=\([0-9]*\).*/\1/p' <<<"$line")
    state=$(sed -n 's/.*\bJobState=\([A-Z_]*\).*/\1/p' <<<"$line")
    if [ -n "$array" ] && [ -n "$task" ]; then job="${array}_$task"; fi
    echo "$job $state"
    [ "$state" = COMPLETED ] || status=1
  done <<<"$lines"
done
exit "$status"
