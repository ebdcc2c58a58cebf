#!/usr/bin/env bash
# Submits one long job of Stargammon to Slurm as a job array and its merge as a job that
# runs only once every task has succeeded (--dependency=afterok), then prints the two job
# ids: `ARRAY_ID MERGE_ID`.
#
#   scripts/slurm/submit.sh JOB OUT SHARDS [--array SPEC] [-- ARGS...]
#
# JOB is rollout, analyse, distill or strength (scripts/slurm/JOB.sbatch says what each
# needs: SG_POSITIONS, SG_FILES, SG_CONFIG or SG_SAMPLE in the environment). OUT is the
# job's directory: every file the job writes goes there (the parts, the merged result, and
# Slurm's logs in OUT/logs). SHARDS is the number of array tasks. ARGS go to every task's
# stargammon command. The jobs run from the directory this is called from, as a command
# typed here would (relative paths in a config resolve the same way).
#
# A failed task: fix the cause and resubmit that task alone with the same OUT and SHARDS,
#   scripts/slurm/submit.sh JOB OUT SHARDS --array K [-- ARGS...]
# which also submits a new merge (the first one was cancelled when the task failed).
# Tasks resume from what they wrote, so resubmitting any of them is safe.
#
# SG_BIN names the stargammon binary (default: the one on PATH); extra sbatch options
# (a partition, a time limit, --cpus-per-task) go in SG_SBATCH_ARGS.
set -euo pipefail

usage() {
  echo "usage: $0 rollout|analyse|distill|strength OUT SHARDS [--array SPEC] [-- ARGS...]" >&2
  exit 2
}
[ $# -ge 3 ] || usage
job=$1
out=$2
shards=$3
shift 3
case "$job" in
rollout | analyse | distill | strength) ;;
*) usage ;;
esac
case "$shards" in
'' | *[!0-9]* | 0) usage ;;
esac
array="0-$((shards - 1))"
if [ "${1:-}" = --array ]; then
  [ $# -ge 2 ] || usage
  array=$2
  shift 2
fi
if [ "${1:-}" = -- ]; then shift; fi

here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
# The inputs as absolute paths, so the tasks find them wherever they start.
for v in SG_POSITIONS SG_FILES SG_SAMPLE SG_BIN; do
  val=${!v:-}
  if [ -n "$val" ] && [ -e "$val" ]; then export "$v=$(abs "$val")"; fi
done
export SG_OUT="$out" SG_SHARDS="$shards"
# shellcheck disable=SC2206 # SG_SBATCH_ARGS is a list of words by design.
extra=(${SG_SBATCH_ARGS:-})

array_id=$(sbatch --parsable "${extra[@]}" --array="$array" --job-name="sg-$job" \
  --output="$out/logs/$job-%A_%a.out" --export=ALL "$here/$job.sbatch" "$@")
array_id=${array_id%%;*}
merge_id=$(sbatch --parsable "${extra[@]}" --dependency="afterok:$array_id" \
  --kill-on-invalid-dep=yes --job-name="sg-$job-merge" \
  --output="$out/logs/$job-merge-%j.out" --export=ALL "$here/$job.sbatch")
merge_id=${merge_id%%;*}
echo "$array_id $merge_id"
