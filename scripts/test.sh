#!/usr/bin/env bash
# Installs what the tests need, then runs the checks CI runs: fmt, clippy, rustdoc (broken
# doc links are errors), tests (the doctests of the crate docs among them).
#
# The tests that need gnubg fail when it is missing. STARGAMMON_SKIP_GNUBG=1 skips them
# instead (and this script then does not install gnubg); likewise STARGAMMON_SKIP_BROWSER
# (Chromium, Node.js), STARGAMMON_SKIP_SCHEMATHESIS, STARGAMMON_SKIP_SLURM (Slurm and
# munge, for the job-array test) and STARGAMMON_SKIP_KUBEVAL (kubernetes-validate, for the
# manifests in deploy/). The test harness still counts a
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

# The HTTP tests: Chromium and Node.js for the board page in a real browser
# (STARGAMMON_SKIP_BROWSER=1 skips them), schemathesis for the OpenAPI document
# (STARGAMMON_SKIP_SCHEMATHESIS=1).
apt_packages=()
if [ "${STARGAMMON_SKIP_BROWSER:-}" != 1 ] && [ -z "${STARGAMMON_CHROMIUM:-}" ]; then
  if [ ! -x /usr/bin/chromium ] && ! command -v chromium >/dev/null 2>&1; then
    apt_packages+=(chromium fonts-dejavu-core)
  fi
  if ! command -v node >/dev/null 2>&1; then apt_packages+=(nodejs); fi
fi
# The job-array test starts a one-node Slurm cluster (scripts/slurm/local_cluster.sh).
if [ "${STARGAMMON_SKIP_SLURM:-}" != 1 ] \
  && { [ ! -x /usr/sbin/slurmctld ] || [ ! -x /usr/sbin/munged ]; }; then
  apt_packages+=(slurm-wlm munge)
fi
if [ "${#apt_packages[@]}" -gt 0 ]; then
  echo "test.sh: installing ${apt_packages[*]} (apt)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi
if [ "${STARGAMMON_SKIP_SCHEMATHESIS:-}" != 1 ] && [ -z "${STARGAMMON_SCHEMATHESIS:-}" ] \
  && ! command -v schemathesis >/dev/null 2>&1; then
  echo "test.sh: installing schemathesis (pip)" >&2
  python3 -m pip install -q 'schemathesis>=4,<5'
  # pyenv and user installs put the command where a fresh shell looks for it.
  if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
fi
# The Kubernetes manifests are checked against the API's schemas bundled with
# kubernetes-validate (offline).
if [ "${STARGAMMON_SKIP_KUBEVAL:-}" != 1 ] && ! command -v kubernetes-validate >/dev/null 2>&1; then
  echo "test.sh: installing kubernetes-validate (pip)" >&2
  python3 -m pip install -q 'kubernetes-validate>=1.33,<2'
  if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
fi

cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked
# Run every test target, going on past failures so the summary covers all of them, then
# close with one summary line.
log="$(mktemp)"
skips="$(mktemp)"
trap 'rm -f "$log" "$skips"' EXIT
status=0
STARGAMMON_SKIP_LOG="$skips" cargo test --locked --no-fail-fast 2>&1 | tee "$log" || status=$?

# The Python package (python/, docs/python.md): a wheel built by maturin, installed into a
# fresh virtual environment with pytest, and its tests run against the binary `cargo test`
# built (target/debug/stargammon); the package's crate gets its own clippy run first.
# The wheel is the release wheel users get (`pip install .` builds the same), which adds a
# release build of the library to the suite (about 4 minutes from nothing). maturin and pytest
# come from pip when missing; STARGAMMON_SKIP_PYTHON=1 skips the step, and a build that
# fails fails the suite. pytest's closing line counts in the summary below.
if [ "${STARGAMMON_SKIP_PYTHON:-}" != 1 ]; then
  if ! command -v maturin >/dev/null 2>&1; then
    echo "test.sh: installing maturin (pip)" >&2
    python3 -m pip install -q 'maturin>=1.5,<2'
    if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
  fi
  pydir="$(mktemp -d)"
  if ! { cargo clippy --locked -p stargammon-python --all-targets -- -D warnings \
    && maturin build --locked --release --out "$pydir/wheels" \
    && python3 -m venv "$pydir/venv" \
    && "$pydir/venv/bin/python" -m pip install -q "$pydir"/wheels/*.whl 'pytest>=7' \
    && "$pydir/venv/bin/python" -m pytest -q -p no:cacheprovider python/tests; } 2>&1 | tee -a "$log"; then
    status=1
  fi
  rm -rf "$pydir"
fi
awk -v skipped="$(wc -l <"$skips")" \
  '/^test result:/ { p += $4; f += $6; i += $8 }
   /^[0-9]+ (passed|failed)/ && / in [0-9.]+s/ {
     for (k = 1; k < NF; k++) {
       if ($(k + 1) ~ /^passed/) p += $k
       if ($(k + 1) ~ /^failed/) f += $k
     }
   }
   END {
     printf "%d passed, %d failed, %d ignored", p - skipped, f, i
     if (skipped > 0) printf ", %d skipped for a missing peer (STARGAMMON_SKIP_*=1)", skipped
     printf "\n"
   }' "$log"
sed 's/^/  /' "$skips"
exit "$status"
