#!/usr/bin/env bash
# Runs every fuzz target in fuzz/ (cargo-fuzz, libFuzzer) for a fixed time, one after the
# other at low priority, growing the corpora in fuzz/corpus/<target>/.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   SECONDS_PER_TARGET  time for each target (default 60)
#   TARGET              only these targets (default: every target, `cargo fuzz list`)
# Environment: FUZZ_JOBS=N runs N libFuzzer processes per target (default 1).
#              FUZZ_CMIN=1 minimises each corpus afterwards (`cargo fuzz cmin`): a
#              greedy set of inputs that still reaches every edge the corpus reaches,
#              hit counts ignored (-set_cover_merge=1 -use_counters=0), as committed.
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`); the fuzz crate is
# a workspace of its own, so the main build and CI (stable) never compile it. A crash,
# timeout or out-of-memory input lands in fuzz/artifacts/<target>/ and the script exits 1
# after the other targets have run; replay one with
#   cargo +nightly fuzz run -O TARGET fuzz/artifacts/TARGET/crash-...
# Each target's summary line gives its executions and corpus size.
set -uo pipefail
secs="${1:-60}"
shift || true
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here/fuzz" || exit 2
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "$0: needs cargo-fuzz on a nightly toolchain (cargo install cargo-fuzz)" >&2
  exit 2
fi
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
nice cargo +nightly fuzz build -O || exit 2
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
failed=()
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  # -max_len: the longest input tried (weights files need a few KB; lines are short);
  # -timeout: seconds for one input before it counts as a hang.
  # -jobs: libFuzzer copies each job's log (fuzz-N.log) into its own output when it ends.
  nice cargo +nightly fuzz run -O "$t" "corpus/$t" -- \
    -max_total_time="$secs" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -jobs="${FUZZ_JOBS:-1}" -workers="${FUZZ_JOBS:-1}" -print_final_stats=1 \
    >"$logs/$t.log" 2>&1
  status=$?
  rm -f fuzz-*.log
  execs="$(grep -h '^stat::number_of_executed_units' "$logs/$t.log" | awk '{s += $2} END {print s + 0}')"
  files="$(find "corpus/$t" -type f | wc -l)"
  if [ "$status" -ne 0 ]; then
    failed+=("$t")
    echo "$t: FAILED (exit $status) after $execs executions; see fuzz/artifacts/$t/"
    grep -h -A 20 '^==[0-9]*==\|panicked at' "$logs/$t.log" | head -n 40
  else
    echo "$t: $execs executions in ${secs} s, corpus $files inputs, no findings"
  fi
  if [ "${FUZZ_CMIN:-0}" = 1 ]; then
    nice cargo +nightly fuzz cmin -O "$t" "corpus/$t" -- -max_len=8192 -timeout=10 \
      -rss_limit_mb=2048 -set_cover_merge=1 -use_counters=0 >"$logs/$t.cmin.log" 2>&1 ||
      echo "$t: cmin failed" >&2
    echo "$t: corpus minimised to $(find "corpus/$t" -type f | wc -l) inputs"
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "findings in: ${failed[*]}"
  exit 1
fi
