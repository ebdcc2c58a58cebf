# Runs inside gnubg (gnubg -t -q -r -p scripts/gnubg_analyse.py) with the environment
# variables MAT (a .mat file), PLIES (gnubg plies, default 0) and OUT (a JSON file to
# write): imports the match, analyses it and writes every analysed checker play and cube
# action with gnubg's skill mark, plus the match statistics as gnubg prints them.
import json
import os

import gnubg

mat = os.environ["MAT"]
plies = os.environ.get("PLIES", "0")
out = os.environ["OUT"]
gnubg.command("set analysis chequerplay evaluation plies " + plies)
gnubg.command("set analysis cubedecision evaluation plies " + plies)
gnubg.command("import mat " + mat)
gnubg.command("analyse match")
m = gnubg.match()
games = []
for g in m["games"]:
    decisions = []
    for a in g["game"]:
        an = a.get("analysis", {})
        decisions.append({
            "action": a.get("action"),
            "player": a.get("player"),
            "board": a.get("board"),
            "dice": list(a.get("dice", ())),
            "skill": an.get("skill"),
            "cube_skill": an.get("cube-skill") or an.get("cubeskill"),
        })
    games.append({"info": g["info"], "decisions": decisions})
with open(out, "w") as f:
    json.dump({"match_info": m.get("match-info"), "games": games}, f)
print("=== statistics ===", flush=True)
gnubg.command("show statistics match")
print("=== end ===", flush=True)
