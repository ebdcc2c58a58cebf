#!/usr/bin/env bash
# Installs what the tests need, then runs the checks CI runs: fmt, clippy, tests.
#
# The tests that need gnubg fail when it is missing. STARGAMMON_SKIP_GNUBG=1 skips them
# instead (and this script then does not install gnubg); the test harness still counts a
# skipped test as passed, so each one appends a line to the file named by
# STARGAMMON_SKIP_LOG, which this script creates, and the closing summary counts those
# lines as skipped rather than passed and names the tests. A file is used rather than the
# test output because the harness captures what passing tests print.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${STARGAMMON_SKIP_GNUBG:-}" != 1 ] && [ -z "${STARGAMMON_GNUBG:-}" ] \
  && ! command -v gnubg >/dev/null 2>&1 && [ ! -x /usr/games/gnubg ]; then
  echo "test.sh: installing gnubg (apt)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends gnubg >/dev/null
fi

cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
# Run every test target, going on past failures so the summary covers all of them, then
# close with one summary line.
log="$(mktemp)"
skips="$(mktemp)"
trap 'rm -f "$log" "$skips"' EXIT
status=0
STARGAMMON_SKIP_LOG="$skips" cargo test --locked --no-fail-fast 2>&1 | tee "$log" || status=$?
awk -v skipped="$(wc -l <"$skips")" \
  '/^test result:/ { p += $4; f += $6; i += $8 }
   END {
     printf "%d passed, %d failed, %d ignored", p - skipped, f, i
     if (skipped > 0) printf ", %d skipped without gnubg (STARGAMMON_SKIP_GNUBG=1)", skipped
     printf "\n"
   }' "$log"
sed 's/^/  /' "$skips"
exit "$status"
