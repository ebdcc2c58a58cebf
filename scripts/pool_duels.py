#!/usr/bin/env python3
"""Pools the JSON lines of `stargammon duel --json` runs between the same two players.

    pool_duels.py FILE A B                  prints the pooled ppg, 95% interval and games
    pool_duels.py --has FILE A B SEED GAMES exits 0 if that run is already in FILE

Each run's interval is 1.96 standard errors of its mirrored-pair means; runs with distinct
seeds are independent, so the pooled mean weighs each run by its pairs and the pooled
variance of the mean is sum(pairs_i * sd_i^2) / pairs^2.
"""
import json
import math
import sys


def runs(path, a, b):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("a") == a and r.get("b") == b:
                yield r


def main(argv):
    if argv and argv[0] == "--has":
        path, a, b, seed, games = argv[1:6]
        found = any(
            r["seed"] == int(seed) and r["games"] == int(games) for r in runs(path, a, b)
        )
        return 0 if found else 1
    path, a, b = argv[:3]
    seen = {}
    for r in runs(path, a, b):
        seen[(r["seed"], r["games"])] = r
    rs = list(seen.values())
    if not rs:
        print(f"no runs of {a} against {b} in {path}")
        return 1
    pairs = sum(r["pairs"] for r in rs)
    mean = sum(r["pairs"] * r["ppg"] for r in rs) / pairs
    var = 0.0
    for r in rs:
        sd = r["ci95"] / 1.96 * math.sqrt(r["pairs"])
        var += r["pairs"] * sd * sd
    ci = 1.96 * math.sqrt(var) / pairs
    games = sum(r["games"] for r in rs)
    wins = sum(r["a_wins"] for r in rs)
    seconds = sum(r["seconds"] for r in rs)
    seeds = sorted(r["seed"] for r in rs)
    print(
        json.dumps(
            {
                "a": a,
                "b": b,
                "runs": len(rs),
                "seeds": f"{seeds[0]}..{seeds[-1]}",
                "games": games,
                "ppg": round(mean, 4),
                "ci95": round(ci, 4),
                "a_wins": wins,
                "seconds": round(seconds, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
