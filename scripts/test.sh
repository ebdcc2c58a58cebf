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
cargo test --locked
