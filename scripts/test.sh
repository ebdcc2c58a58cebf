#!/usr/bin/env bash
# Installs what the tests need, then runs the checks CI runs: fmt, clippy, tests.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v gnubg >/dev/null 2>&1 && [ ! -x /usr/games/gnubg ]; then
  echo "test.sh: installing gnubg (apt)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends gnubg >/dev/null
fi

cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
# Run every test target, then close with one summary line over all of them.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
cargo test --locked 2>&1 | tee "$log"
awk '/^test result:/ { p += $4; f += $6; i += $8 }
     END { printf "%d passed, %d failed, %d skipped\n", p, f, i }' "$log"
