#!/usr/bin/env bash
# The FIBS bot's soak run (docs/BENCHMARKS.md, "FIBS bot"): three accounts in one process,
# one engine (the net at depth 1) and one worker pool for all, play SOAK_MATCHES (default
# 510) three-point matches against the FIBS-protocol test server, one server per account,
# each of which fails in every way the bot's watchdogs are for: it does not roll for the
# bot in the Crawford game, loses boards and commands, drops the opponent, kicks the bot,
# restarts itself, and lets the opponent go quiet at her turn. Every match must end, with
# zero illegal moves, zero commands out of turn and no silence of the bot longer than its
# watchdog while the game waits for it. FIBS_PROGRESS=1 prints each server's state every
# 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."
export SOAK_MATCHES="${SOAK_MATCHES:-510}"
nice -n 19 cargo test --test fibs_client -- --ignored soak_three_accounts --nocapture 2>&1 |
    grep -E "^soak:|^progress|test result|panicked|FAILED|stalled"
