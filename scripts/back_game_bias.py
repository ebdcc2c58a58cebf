#!/usr/bin/env python3
"""How far the nets' depth-1 value of a back game is from their own play of it.

    scripts/back_game_bias.py ANALYSIS.jsonl N [--spec SPEC] [--trials T] [--seed S]

ANALYSIS.jsonl is the output of `stargammon analyse --files LIST --out ...`. Every
distinct contact position met before a checker play there is sorted into three kinds: the
side on roll plays a back game ("roll"), its opponent does ("opp"), neither ("ctrl"); a
back game as `Position::back_game` has it (two or more points of the opponent's home board
held, 30 pips or more behind). N positions of each kind are drawn (seeded), each is valued
by SPEC at depth 1 (`stargammon hint POS --depth 1 --json`) and rolled out by SPEC to the
end (`stargammon rollout --positions`, T trials without variance reduction), and the mean
differences, depth-1 value minus rollout, are printed per kind for the side on roll.
Needs a release build (target/release/stargammon).
"""
import argparse
import base64
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "stargammon")


def decode(pid):
    """A gnubg Position ID as two lists of 25 counts (points 1-24 in each side's own
    numbering, then its bar): the opponent's, then the side on roll's."""
    raw = base64.b64decode(pid + "==")
    bits = [(byte >> i) & 1 for byte in raw for i in range(8)]
    boards, side, point = [[0] * 25, [0] * 25], 0, 0
    for bit in bits:
        if side == 2:
            break
        if bit:
            boards[side][point] += 1
        else:
            point += 1
            if point == 25:
                side, point = side + 1, 0
    return boards


def pips(b):
    return sum((i + 1) * n for i, n in enumerate(b[:24])) + 25 * b[24]


def contact(a, b):
    rear = lambda s: max([i for i in range(25) if s[i]] or [-1])
    return rear(a) + rear(b) >= 23


def back_game(me, other):
    anchors = sum(1 for i in range(18, 24) if me[i] >= 2)
    return anchors >= 2 and pips(me) - pips(other) >= 30


def equity(p):
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("analysis")
    ap.add_argument("n", type=int)
    ap.add_argument("--spec", default="net")
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    kinds = {"roll": [], "opp": [], "ctrl": []}
    seen = set()
    for line in open(a.analysis):
        for game in json.loads(line).get("games", []):
            for d in game["decisions"]:
                pid = d["position_id"]
                if d["kind"] != "checker" or pid in seen:
                    continue
                seen.add(pid)
                opp, me = decode(pid)
                if not contact(opp, me):
                    continue
                kind = "roll" if back_game(me, opp) else "opp" if back_game(opp, me) else "ctrl"
                kinds[kind].append(pid)
    print("positions:", len(seen), {k: len(v) for k, v in kinds.items()}, file=sys.stderr)
    rng = random.Random(a.seed)
    picked = [(k, p) for k, v in kinds.items() for p in rng.sample(v, min(a.n, len(v)))]

    with tempfile.TemporaryDirectory() as tmp:
        listing = os.path.join(tmp, "positions.txt")
        with open(listing, "w") as f:
            f.writelines(p + "\n" for _, p in picked)
        out = os.path.join(tmp, "rollouts.jsonl")
        subprocess.run([BIN, "rollout", "--positions", listing, "--engine", a.spec,
                        "--trials", str(a.trials), "--no-vr", "--threads", "2",
                        "--seed", str(a.seed), "--out", out], check=True,
                       stderr=subprocess.DEVNULL)
        rolled = {}
        for line in open(out):
            d = json.loads(line)
            rolled[d["position_id"]] = d["probs"]

    print("kind  n   win (depth 1 - rollout)  equity (depth 1 - rollout)  mean |equity difference|")
    for kind in kinds:
        dw, de = [], []
        for k, pid in picked:
            if k != kind:
                continue
            hint = subprocess.run([BIN, "hint", pid, "--engine", a.spec, "--depth", "1", "--json"],
                                  check=True, capture_output=True, text=True).stdout
            s = json.loads(hint)["evaluation"]["probs"]
            r = rolled[pid]
            dw.append(s[0] - r[0])
            de.append(equity(s) - equity(r))
        if len(de) < 2:
            continue
        se = statistics.stdev(de) / len(de) ** 0.5
        print(f"{kind:5} {len(de):3}  {statistics.mean(dw):+.3f}                   "
              f"{statistics.mean(de):+.3f} +/- {1.96 * se:.3f}             "
              f"{statistics.mean(map(abs, de)):.3f}")


if __name__ == "__main__":
    main()
