#!/usr/bin/env python3
"""Compares `stargammon analyse --json` with gnubg's analysis of the same match files.

Usage: analyse_compare.py OURS.json GNUBG.json GNUBG.out [OURS.json GNUBG.json GNUBG.out ...]
(the files scripts/analyse_vs_gnubg.sh writes). Checker plays are matched by game,
Position ID before the play and dice; cube actions (double, take, pass) by game and order
of their kind, as gnubg's Python interface gives no position for a take. Prints the blunder
agreement (of gnubg's blunders,
'very bad', how many we flag as blunders, and as errors or worse) and both analyses'
error rates per player.
"""
import json
import re
import sys

RANK = {None: 0, "doubtful": 1, "bad": 2, "very bad": 3}
OUR_RANK = {"none": 0, "doubtful": 1, "error": 2, "blunder": 3}


def gnubg_rates(text):
    part = text.split("=== statistics ===")[-1]
    rates, snowie, rating = None, None, None
    for line in part.splitlines():
        nums = re.findall(r"[-+]?\d+\.\d+", line)
        if line.startswith("Error rate mEMG (MWC)") and len(nums) >= 4:
            rates = (abs(float(nums[0])), abs(float(nums[2])))  # the last one is overall
        if line.startswith("Snowie error rate") and len(nums) >= 4:
            snowie = (abs(float(nums[0])), abs(float(nums[2])))
        if line.startswith("Overall rating"):
            rating = [c.strip() for c in re.split(r"\s{2,}", line.strip())[1:3]]
    return rates, snowie, rating


def main(args):
    tot = {"g_blunders": 0, "we_blunder": 0, "we_error": 0, "unmatched": 0,
           "our_blunders": 0, "they_error": 0, "matched_moves": 0, "same_skill": 0,
           "cube_actions": 0, "cube_unmatched": 0, "g_cube_errors": 0, "we_cube_error": 0,
           "our_cube_errors": 0, "they_cube_error": 0}
    rows = []
    for k in range(0, len(args), 3):
        ours = json.load(open(args[k]))
        theirs = json.load(open(args[k + 1]))
        text = open(args[k + 2]).read()
        for g, (og, tg) in enumerate(zip(ours["games"], theirs["games"])):
            mine = {}
            for d in og["decisions"]:
                if d["kind"] == "checker":
                    mine[(d["position_id"], tuple(sorted(d["dice"])))] = d
            for d in tg["decisions"]:
                if d["action"] != "move" or not d["dice"]:
                    continue
                key = (d["board"], tuple(sorted(d["dice"])))
                o = mine.get(key)
                if o is None:
                    tot["unmatched"] += 1
                    continue
                tot["matched_moves"] += 1
                ours_rank = OUR_RANK[o["skill"]]
                theirs_rank = RANK.get(d["skill"], 0)
                tot["same_skill"] += ours_rank == theirs_rank
                if theirs_rank == 3:
                    tot["g_blunders"] += 1
                    tot["we_blunder"] += ours_rank == 3
                    tot["we_error"] += ours_rank >= 2
                if ours_rank == 3:
                    tot["our_blunders"] += 1
                    tot["they_error"] += theirs_rank >= 2
            # Cube actions: the k-th double (take, pass) of a game in both analyses.
            kinds = {"double": "double", "take": "take", "drop": "pass", "pass": "pass"}
            our_cube = {}
            for d in og["decisions"]:
                if d["kind"] == "cube" and d["played"] in kinds.values():
                    our_cube.setdefault(d["played"], []).append(d)
            seen = {}
            for d in tg["decisions"]:
                kind = kinds.get(d["action"])
                if kind is None:
                    continue
                nth = seen.get(kind, 0)
                seen[kind] = nth + 1
                mine_list = our_cube.get(kind, [])
                if nth >= len(mine_list):
                    tot["cube_unmatched"] += 1
                    continue
                tot["cube_actions"] += 1
                ours_rank = OUR_RANK[mine_list[nth]["skill"]]
                theirs_rank = RANK.get(d["skill"], 0)
                if theirs_rank >= 2:
                    tot["g_cube_errors"] += 1
                    tot["we_cube_error"] += ours_rank >= 2
                if ours_rank >= 2:
                    tot["our_cube_errors"] += 1
                    tot["they_cube_error"] += theirs_rank >= 2
        rates, snowie, rating = gnubg_rates(text)
        for i, p in enumerate(ours["players"]):
            rows.append((args[k], p["name"], p["error_mppg"], rates[i] if rates else None,
                         p["snowie_error_rate"], snowie[i] if snowie else None,
                         p["rating"], rating[i] if rating else None))
    print(json.dumps(tot))
    gb = max(tot["g_blunders"], 1)
    ob = max(tot["our_blunders"], 1)
    print(f"gnubg blunders (checker plays): {tot['g_blunders']}; flagged as blunders by us: "
          f"{tot['we_blunder']} ({100 * tot['we_blunder'] / gb:.0f}%), as errors or worse: "
          f"{tot['we_error']} ({100 * tot['we_error'] / gb:.0f}%)")
    print(f"our blunders: {tot['our_blunders']}; errors or worse for gnubg: {tot['they_error']} "
          f"({100 * tot['they_error'] / ob:.0f}%)")
    print(f"cube actions taken (double, take, pass) matched: {tot['cube_actions']} "
          f"(unmatched {tot['cube_unmatched']}); gnubg's errors or worse among them: "
          f"{tot['g_cube_errors']}, errors or worse for us too: {tot['we_cube_error']}; "
          f"ours: {tot['our_cube_errors']}, errors or worse for gnubg: {tot['they_cube_error']}")
    print(f"checker plays matched: {tot['matched_moves']} (unmatched {tot['unmatched']}), "
          f"same mark: {tot['same_skill']}")
    print("file | player | ours mEMG/decision | gnubg | ours Snowie | gnubg Snowie | ours rating | gnubg rating")
    for r in rows:
        print(" | ".join("" if x is None else (f"{x:.1f}" if isinstance(x, float) else str(x)) for x in r))


if __name__ == "__main__":
    main(sys.argv[1:])
