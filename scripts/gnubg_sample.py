"""Samples backgammon rules and ids from GNU Backgammon itself, for the project's tests.

Runs inside gnubg's embedded Python:

    SAMPLE_SEED=1 SAMPLE_PAIRS=5000 SAMPLE_IDS=1000 SAMPLE_OUT=out.txt \
        /usr/games/gnubg -t -q -r -p scripts/gnubg_sample.py

(scripts/gnubg_sample.sh wraps this). Everything random comes from Python's `random`
seeded with SAMPLE_SEED; gnubg's own dice are never used for the sampled rolls.

Output, one record per line, fields separated by tabs:

    P  <position id>  <d1><d2>  <n>  <move 1>  <id after move 1>  ...  <move n>  <id after move n>
        A position (player on roll's view) and a roll; every legal play gnubg's hint lists,
        in gnubg's move notation, each with the Position ID gnubg shows after playing it
        (opponent on roll). When no play is legal, n is 1, the move is empty and the id is
        the one gnubg shows after passing.
    I  <position id>  <match id>  <board>  <fields>
        A match state gnubg was put in: its Position ID and Match ID, gnubg's board (the
        player not on roll first, 25 counts each: points 1..24 then the bar) and the state
        gnubg reports through its Python interface, as key=value pairs.
    X  <XGID>  <position id>  <match id>  [jacoby=<0|1>  beavers=<0|1>]
        A random XGID given to gnubg's `set xgid`, and the ids gnubg derives from it; for
        money play also whether gnubg then plays with the Jacoby rule and allows beavers.

Plays come from random games (uniformly random legal plays, which hit, enter from the
bar and bear off often) plus constructed positions: bear-offs, and checkers on the bar
against strong boards (which gives blocked and partial moves).
"""

import ctypes
import os
import random
import sys
import tempfile

import gnubg

SEED = int(os.environ.get("SAMPLE_SEED", "1"))
PAIRS = int(os.environ.get("SAMPLE_PAIRS", "5000"))
IDS = int(os.environ.get("SAMPLE_IDS", "1000"))
XGIDS = int(os.environ.get("SAMPLE_XGIDS", str(max(IDS // 4, 10))))
OUT = os.environ.get("SAMPLE_OUT", "gnubg_sample.txt")
# gnubg's hint takes the number of plays to list; ask for far more than any roll has.
HINT_LIMIT = 100000

rng = random.Random(SEED)
libc = ctypes.CDLL(None)
out = open(OUT, "w")


def cmd(line):
    gnubg.command(line)


def fail(msg):
    sys.stderr.write("gnubg_sample: " + msg + "\n")
    out.close()
    sys.exit(1)


def setup():
    cmd("set display off")
    cmd("set rng mersenne")
    cmd("set seed %d" % SEED)
    cmd("set player 0 human")
    cmd("set player 1 human")
    cmd("set evaluation chequerplay evaluation plies 0")
    cmd("set evaluation cubedecision evaluation plies 0")
    cmd("set jacoby off")
    cmd("set beavers 0")
    cmd("set automatic roll off")
    cmd("set automatic game off")


def playing():
    return gnubg.posinfo()["gamestate"] == 1


def put(turn, pid, d1, d2):
    """Puts gnubg in (player `turn` on roll, position `pid`, dice d1 d2)."""
    if not playing():
        cmd("new game")
    cmd("set turn %d" % turn)
    cmd("set board " + pid)
    cmd("set dice %d %d" % (d1, d2))


def play(move, turn, pid, d1, d2):
    """Plays `move` (gnubg notation) and returns the Position ID gnubg shows after it."""
    cmd(("move " + move).strip())
    if gnubg.posinfo()["turn"] == turn and playing():
        fail("gnubg did not play %r at %s %d%d" % (move, pid, d1, d2))
    return gnubg.positionid()


def sample(d1, d2):
    """Records every legal play of the current position with dice d1 d2. Returns the
    list of (move, id after) pairs; leaves gnubg in the sampled state."""
    info = gnubg.posinfo()
    turn = info["turn"]
    pid = gnubg.positionid()
    put(turn, pid, d1, d2)
    hint = gnubg.hint(HINT_LIMIT)["hint"]
    if len(hint) >= HINT_LIMIT:
        fail("hint list reached its limit at " + pid)
    res = []
    for h in hint:
        res.append((h["move"], play(h["move"], turn, pid, d1, d2)))
        put(turn, pid, d1, d2)
    if not res:
        # No legal play: gnubg's `move` without a move passes the turn.
        res.append(("", play("", turn, pid, d1, d2)))
        put(turn, pid, d1, d2)
    fields = ["P", pid, "%d%d" % (d1, d2), str(len(res))]
    for move, after in res:
        fields.append(move)
        fields.append(after)
    out.write("\t".join(fields) + "\n")
    return turn, pid, res


def random_roll():
    return rng.randint(1, 6), rng.randint(1, 6)


def game_pairs(limit):
    """Plays one random game, sampling every roll; returns the number of pairs."""
    cmd("new game")
    n = 0
    while playing() and n < limit:
        d1, d2 = random_roll()
        turn, pid, res = sample(d1, d2)
        n += 1
        move, _ = rng.choice(res)
        put(turn, pid, d1, d2)
        play(move, turn, pid, d1, d2)
    return n


def scatter(total, slots, top):
    """`total` checkers spread at random over slot indices `slots`, at most `top` each."""
    board = [0] * 25
    for _ in range(total):
        free = [s for s in slots if board[s] < top]
        board[rng.choice(free)] += 1
    return board


def constructed_position():
    """A random bear-off or bar-entry position as gnubg's (not on roll, on roll) board."""
    kind = rng.random()
    if kind < 0.5:
        # Bear-off: the roller has 1..15 checkers in its home board (some may be out);
        # the opponent is anywhere, sometimes still in contact.
        me = scatter(rng.randint(1, 15), list(range(0, 6)), 15)
        if rng.random() < 0.3:
            me[rng.randint(6, 9)] += 1
        them_slots = list(range(0, 24)) if rng.random() < 0.5 else list(range(0, 6))
        them = scatter(rng.randint(1, 15), them_slots, 15)
    else:
        # Bar entry against a strong home board: the opponent holds 3..6 home points.
        them = [0] * 25
        points = rng.sample(range(0, 6), rng.randint(3, 6))
        left = 15
        for p in points:
            them[p] = 2
            left -= 2
        extra = scatter(left, list(range(6, 24)), 15)
        them = [a + b for a, b in zip(them, extra)]
        me = scatter(rng.randint(8, 15), list(range(0, 24)), 15)
        me[24] = rng.randint(1, 3)
    # Drop checkers that would share a point with the other side (points only).
    for i in range(24):
        if me[i] and them[23 - i]:
            them[23 - i] = 0
    if sum(me[:25]) > 15 or sum(them) == 0:
        return None
    return (tuple(them), tuple(me))


def constructed_pairs(count):
    cmd("new game")
    n = 0
    while n < count:
        board = constructed_position()
        if board is None:
            continue
        pid = gnubg.positionid(board)
        d1, d2 = random_roll()
        turn = gnubg.posinfo()["turn"]
        put(turn, pid, d1, d2)
        sample(d1, d2)
        n += 1


def id_record():
    info = gnubg.posinfo()
    cube = gnubg.cubeinfo()
    board = gnubg.board()
    fields = [
        "I",
        gnubg.positionid(),
        gnubg.matchid(),
        ",".join(str(c) for c in board[0]) + ";" + ",".join(str(c) for c in board[1]),
        "cube=%d" % cube["cube"],
        "owner=%d" % cube["cubeowner"],
        "move=%d" % cube["move"],
        "matchto=%d" % cube["matchto"],
        "score=%d,%d" % tuple(cube["score"]),
        "crawford=%d" % cube["crawford"],
        "jacoby=%d" % cube["jacoby"],
        "dice=%d,%d" % tuple(info["dice"]),
        "turn=%d" % info["turn"],
        "resigned=%d" % info["resigned"],
        "doubled=%d" % info["doubled"],
        "gamestate=%d" % info["gamestate"],
    ]
    out.write("\t".join(fields) + "\n")


def id_samples(count):
    """Puts gnubg in varied match states and records its ids."""
    n = 0
    while n < count:
        money = rng.random() < 0.2
        if money:
            cmd("set jacoby " + rng.choice(["on", "off"]))
            cmd("new session")
        else:
            length = rng.randint(1, 25)
            cmd("new match %d" % length)
            a = rng.randint(0, length - 1)
            b = rng.randint(0, length - 1)
            cmd("set score %d %d" % (a, b))
            if (a == length - 1) != (b == length - 1) and rng.random() < 0.5:
                cmd("set crawford on")
        # A few random plies so the position varies.
        for _ in range(rng.randint(0, 30)):
            if not playing():
                break
            d1, d2 = random_roll()
            cmd("set dice %d %d" % (d1, d2))
            if not playing():
                break
            hint = gnubg.hint(HINT_LIMIT)["hint"] if gnubg.posinfo()["dice"] != (0, 0) else []
            if hint:
                cmd("move " + rng.choice(hint)["move"])
        if not playing():
            continue
        cmd("set turn %d" % rng.randint(0, 1))
        cube_log = rng.randint(0, 6)
        cmd("set cube value %d" % (1 << cube_log))
        if cube_log > 0:
            cmd("set cube owner %d" % rng.randint(0, 1))
        elif rng.random() < 0.5:
            cmd("set cube centre")
        what = rng.random()
        if what < 0.5:
            d1, d2 = random_roll()
            cmd("set dice %d %d" % (d1, d2))
        elif what < 0.7:
            cmd("double")
        elif what < 0.8:
            cmd("resign " + rng.choice(["normal", "gammon", "backgammon"]))
        id_record()
        n += 1


def xgid_char(count, upper):
    if count == 0:
        return "-"
    return chr((ord("A") if upper else ord("a")) + count - 1)


def shown(command):
    """What gnubg prints for `command` (its C output, caught on file descriptor 1)."""
    libc.fflush(None)
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 1)
        try:
            gnubg.command(command)
            libc.fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        f.seek(0)
        return f.read().decode("utf-8", "replace")


def xgid_samples(count):
    """Random XGIDs (valid positions and fields) given to gnubg's `set xgid`; records the
    ids gnubg derives from each and, for money play, the Jacoby rule and beavers setting
    gnubg took from the rules field. XGID's bottom player is gnubg's player 1.

    Half are money states (every rules value: Jacoby and beavers on and off, the cube
    centred or owned by either side); the rest are matches, many with
    one side at match point: the Crawford game (rules 1, cube centred; sometimes a turned
    cube, which gnubg resets and this project refuses) or post-Crawford games."""
    n = 0
    while n < count:
        cmd("new match 3")
        bottom = scatter(rng.randint(1, 15), list(range(0, 25)), 6)
        top = scatter(rng.randint(1, 15), list(range(0, 25)), 6)
        for i in range(24):
            if bottom[i] and top[23 - i]:
                top[23 - i] = 0
        if sum(top) == 0:
            continue
        chars = [xgid_char(top[24], False)]
        for p in range(1, 25):
            if bottom[p - 1]:
                chars.append(xgid_char(bottom[p - 1], True))
            else:
                chars.append(xgid_char(top[24 - p], False))
        chars.append(xgid_char(bottom[24], True))
        length = 0 if rng.random() < 0.5 else rng.randint(1, 25)
        cube_log = 0 if rng.random() < 0.4 else rng.randint(1, 6)
        owner = 0 if cube_log == 0 else rng.choice([-1, 1])
        turn = rng.choice([-1, 1])
        # (gnubg 1.07 ignores an XGID whose dice field says a double was offered.)
        dice = "00" if rng.random() < 0.3 else "%d%d" % random_roll()
        if length == 0:
            sb = st = 0
            rules = rng.randint(0, 3)
        else:
            sb = rng.randint(0, length - 1)
            st = rng.randint(0, length - 1)
            if length > 1 and rng.random() < 0.4:
                # One side at match point (either), the other anywhere below it.
                if rng.random() < 0.5:
                    sb = length - 1
                else:
                    st = length - 1
            rules = 0
            if (sb == length - 1) != (st == length - 1) and rng.random() < 0.5:
                rules = 1
                if rng.random() < 0.9:
                    cube_log, owner = 0, 0
        xgid = "XGID=%s:%d:%d:%d:%s:%d:%d:%d:%d:10" % (
            "".join(chars), cube_log, owner, turn, dice, sb, st, rules, length)
        cmd("set xgid " + xgid)
        board = gnubg.board()
        on_roll = 1 if turn == 1 else 0
        want = (tuple(top), tuple(bottom)) if on_roll == 1 else (tuple(bottom), tuple(top))
        if tuple(board) != want:
            # gnubg refused the XGID: it always accepts valid ones, so stop.
            fail("gnubg refused " + xgid)
        fields = ["X", xgid, gnubg.positionid(), gnubg.matchid()]
        if length == 0:
            jacoby = "with the Jacoby rule" in shown("show jacoby").split("\n")[0]
            beavers = not shown("show beavers").startswith("No beavers")
            fields += ["jacoby=%d" % jacoby, "beavers=%d" % beavers]
        out.write("\t".join(fields) + "\n")
        n += 1


def check_hint_lists_every_play():
    """gnubg's hint must list every legal play, not a capped selection: from the opening
    gnubg counts 11 plays for 6-6, 16 for 3-1 and 15 for 2-1."""
    cmd("new session")
    turn = gnubg.posinfo()["turn"]
    for d1, d2, want in [(6, 6, 11), (3, 1, 16), (2, 1, 15)]:
        put(turn, "4HPwATDgc/ABMA", d1, d2)
        got = len(gnubg.hint(HINT_LIMIT)["hint"])
        if got != want:
            fail("hint lists %d plays for %d%d from the opening, not %d" % (got, d1, d2, want))


setup()
check_hint_lists_every_play()
cmd("new session")
done = 0
game_share = PAIRS * 3 // 4
while done < game_share:
    done += game_pairs(game_share - done)
constructed_pairs(PAIRS - done)
id_samples(IDS)
xgid_samples(XGIDS)
out.close()
