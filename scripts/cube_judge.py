#!/usr/bin/env python3
"""Cube decisions of several analyses of the same matches, judged by cubeful rollouts.

    scripts/cube_judge.py CACHE.json TRIALS NAME=ANALYSIS.jsonl [NAME=ANALYSIS.jsonl ...] [--played]

Each ANALYSIS.jsonl is `stargammon analyse --files LIST --engine SPEC --depth D --out ...`
of the same match files by one engine setting; each names, for every cube decision of
the matches, the action that setting takes ("best"). `--played` adds the action played in
the matches as one more setting. Every decision where two settings (or the played
action) differ is rolled out cubefully at its score (`stargammon rollout XGID --cube
--trials TRIALS --json`: variance-reduced trials by the nets at depth 1, seed 1, so the
judge is the same for every setting), and each setting's loss there is the rollout's
value of the best action minus that of its own (match-winning chance, or money equity per
cube), the opponent answering a double as the rollout says is best. Decisions where all
agree cost every setting the same and are not rolled out, so the totals rank the
settings: their differences are exact sums over the same decisions. Rollouts are kept in
CACHE.json by XGID, so a later setting only rolls out what is new. Needs a release build
(target/release/stargammon).
"""
import json
import os
import subprocess
import sys

BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "stargammon")


def cube_decisions(path):
    """(file, game, decision index) -> the decision's record, for the cube decisions."""
    out = {}
    with open(path) as f:
        for line in f:
            m = json.loads(line)
            for gi, g in enumerate(m["games"]):
                for di, d in enumerate(g["decisions"]):
                    if d["kind"] != "checker":
                        out[(m["file"], gi, di)] = d
    return out


def value(equities, xgid, action):
    """The acting side's value of `action` by the rollout's equities (the roller's)."""
    nd, dt, dp = equities["no_double"], equities["double_take"], equities["double_pass"]
    match = xgid.split(":")[8] != "0"  # the XGID's match length; 0 is money
    if ":D:" in xgid:
        # A take question: the equities are the doubler's; the taker's are the opposite.
        if match:
            return 1.0 - (dt if action == "take" else dp)
        return -(dt if action == "take" else dp)
    return nd if action == "no double" else min(dt, dp)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) < 3:
        sys.exit(__doc__)
    cache_path, trials, named = args[0], args[1], args[2:]
    played = "--played" in sys.argv
    cache = json.load(open(cache_path)) if os.path.exists(cache_path) else {}
    settings = {}
    for item in named:
        name, path = item.split("=", 1)
        settings[name] = cube_decisions(path)
    first = next(iter(settings.values()))
    matches = len({k[0] for k in first})
    differ = {}
    for key, d in first.items():
        actions = {name: s[key]["best"] for name, s in settings.items()}
        if played:
            actions["played"] = d["played"]
        if len(set(actions.values())) > 1:
            differ[key] = (d["xgid"], actions)
    print(f"{len(first)} cube decisions in {matches} matches; {len(differ)} where the settings differ",
          file=sys.stderr)
    loss = {name: 0.0 for name in list(settings) + (["played"] if played else [])}
    for i, (key, (xgid, actions)) in enumerate(sorted(differ.items())):
        if xgid not in cache:
            out = subprocess.run([BIN, "rollout", xgid, "--cube", "--trials", trials, "--json"],
                                 capture_output=True, text=True, check=True).stdout
            cache[xgid] = json.loads(out)["cube"]["equities"]
            if i % 10 == 0:
                json.dump(cache, open(cache_path, "w"))
        eq = cache[xgid]
        choices = ["take", "pass"] if ":D:" in xgid else ["no double", "double"]
        best = max(value(eq, xgid, c) for c in choices)
        for name, action in actions.items():
            loss[name] += best - value(eq, xgid, action)
    json.dump(cache, open(cache_path, "w"))
    for name, total in loss.items():
        print(json.dumps({"setting": name, "loss": round(total, 4),
                          "per_match": round(total / max(matches, 1), 5)}))


if __name__ == "__main__":
    main()
