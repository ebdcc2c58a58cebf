#!/usr/bin/env bash
# The FIBS bot's soak run: 200 five-point matches against the FIBS-protocol test server with
# random drops of the opponent, kicks of the bot and server restarts; every match must be
# finished or resumed, with zero illegal moves and zero commands out of turn.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --test fibs_client -- --ignored soak --nocapture 2>&1 | grep -E "^soak:|test result|panicked|FAILED"
