"""Tests of the Python package against the library's own answers: the `stargammon`
command line (its --json outputs), a real server over a loopback socket, and known
positions. STARGAMMON_BIN names the command-line binary (default: the debug build)."""

import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

import stargammon

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("STARGAMMON_BIN", ROOT / "target" / "debug" / "stargammon"))
OPENING = "4HPwATDgc/ABMA"
OPENING_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"


def cli_json(*args):
    """The --json output of a stargammon command, as the binary prints it."""
    if not BIN.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"the stargammon binary is missing at {BIN}")
        pytest.skip(f"no stargammon binary at {BIN} (cargo build, or set STARGAMMON_BIN)")
    out = subprocess.run(
        [str(BIN), *args, "--json"], capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(out.stdout)


def cli_error(*args):
    """The one-line message a stargammon command prints for bad input."""
    if not BIN.exists():
        pytest.skip(f"no stargammon binary at {BIN}")
    out = subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out
    return out.stderr.strip().removeprefix("stargammon: ")


# Positions


def test_parse_every_notation():
    p = stargammon.Position.parse(OPENING)
    assert p.position_id == OPENING
    assert p.decision == "double_or_roll"
    assert p.dice is None
    x = stargammon.Position.parse(OPENING_XGID)
    assert x.position_id == OPENING
    assert x.dice == (5, 2)
    assert x.xgid == OPENING_XGID
    assert stargammon.Position.parse(x.xgid) == x
    assert stargammon.Position.parse(x.text).dice == (5, 2)
    fibs = stargammon.Position.parse(
        "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
        ":1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
    )
    assert fibs.position_id == OPENING
    assert fibs.match_length == 3
    assert fibs.dice == (6, 2)
    assert fibs.pips == (167, 167)
    assert stargammon.Position.start() == p
    assert sum(p.slots) == 0 and len(p.slots) == 26
    assert "Position ID" not in repr(p) and "XGID" in repr(p)


def test_tavli_position_strings():
    start = stargammon.Position.start("plakoto")
    assert start.variant == "plakoto"
    again = stargammon.Position.parse(start.text, variant="plakoto")
    assert again == start
    with pytest.raises(ValueError, match="no backgammon match state"):
        start.position_id


def test_bad_positions_raise_the_cli_message():
    for text in ["hello", "XGID=-b--:0", "board:You:x:3", "  "]:
        with pytest.raises(ValueError) as e:
            stargammon.Position.parse(text)
        assert str(e.value) == cli_error("show", text)
    with pytest.raises(ValueError, match="variant"):
        stargammon.Position.parse(OPENING, variant="chess")


# Plays


def test_plays_as_moves_lists_them():
    p = stargammon.Position.parse(OPENING)
    got = stargammon.plays(p, (3, 1))
    want = cli_json("moves", OPENING, "3", "1")["plays"]
    assert [(q.move, q.position.position_id) for q in got] == [
        (w["move"], w["position_id"]) for w in want
    ]
    assert "8/5 6/5" in [q.move for q in got]
    after = got[0].position
    assert after.decision == "double_or_roll"


def test_tavli_plays():
    p = stargammon.Position.start("fevga")
    got = stargammon.plays(p, (6, 5))
    want = cli_json("moves", "--variant", "fevga", p.text, "6", "5")["plays"]
    assert [(q.move, q.position.text, q.end) for q in got] == [
        (w["move"], w["position"], w["end"]) for w in want
    ]


def test_bad_dice():
    p = stargammon.Position.parse(OPENING)
    with pytest.raises(ValueError):
        stargammon.plays(p, (7, 1))


# Engines


def test_hint_matches_the_cli():
    # `hint` plays by the default configuration's engine, which ranks plays cubeful on the
    # integer nets.
    engine = stargammon.Engine("net,depth=3,cubeful=on,precision=int16")
    p = stargammon.Position.parse(OPENING)
    got = engine.hint(p, (3, 1))
    want = cli_json("hint", OPENING, "--dice", "3", "1", "--depth", "3")["plays"]
    assert got == want
    assert got[0]["move"] == "8/5 6/5"
    # Cubeless ranking (the spec's default): the same search, other values.
    cubeless = stargammon.Engine("net,depth=3,precision=int16").hint(p, (3, 1))
    assert sorted((g["move"], g["equity"]) for g in cubeless) == sorted(
        (w["move"], w["equity"]) for w in want
    )
    report = engine.hint_report(p, (3, 1))
    assert report["depth"] == 3 and report["plays"] == got


def test_cube_matches_the_cli():
    engine = stargammon.Engine("net,depth=3,cube_depth=3,precision=int16")
    for text in [
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:6:1:7:10",
        "XGID=-b----E-C---eE---c-e----B-:2:1:1:00:4:4:0:7:10",
    ]:
        p = stargammon.Position.parse(text)
        got = engine.cube(p)
        want = cli_json("hint", text, "--depth", "3")
        assert got["cube"] == want["cube"], text
        assert got["evaluation"] == want["evaluation"], text
    assert engine.cube(stargammon.Position.parse(OPENING))["cube"]["action"] == "no double"


def test_cube_detail_in_gnubgs_terms():
    engine = stargammon.Engine("net,cube_depth=1")
    # 2-away/2-away: after the take the cube is dead for both sides, so the take point is
    # the table's 2-away/1-away Crawford chance whatever the model.
    c = engine.cube(stargammon.Position.parse("4HPwATDgc/ABMA:cAngAFAAKAAE"))["cube"]
    for k in ("dead", "live", "model"):
        assert abs(c["take_points"][k] - 0.32264) < 1e-5
        assert abs(c["cash_points"][k] - 0.67736) < 1e-5
    assert c["proper_text"] == "Double, take"
    assert c["costs"]["double"] == 0 and c["costs"]["take"] == 0
    assert c["costs"]["no_double"] > 0 and c["costs"]["pass"] > 0
    # A gammonless race: the money points are the textbook 25% (dead) and 20% (live).
    race = "2+4OAADb3Q0AAA:MAEAAAAAAAAA"
    c = engine.cube(stargammon.Position.parse(race))["cube"]
    assert abs(c["take_points"]["dead"] - 0.25) < 1e-3
    assert abs(c["take_points"]["live"] - 0.20) < 1e-3
    assert c["too_good_point"] is None
    assert 0 < c["market_losers"]["pass"] < 1
    assert c == cli_json("hint", race, "--plies", "0")["cube"]


def test_evaluate_and_choose():
    engine = stargammon.Engine("net")
    p = stargammon.Position.parse(OPENING)
    e = engine.evaluate(p)
    assert len(e["probs"]) == 5
    assert 0.5 < e["probs"][0] < 0.6
    assert e["value_kind"] == "equity" and e["depth"] == 1
    assert abs(e["equity"] - e["cubeless"]) < 1e-6
    assert e["cubeful"] > 0
    x = stargammon.Position.parse(OPENING_XGID)
    play = engine.choose(x)
    assert isinstance(play, stargammon.Play)
    assert play.move in [q.move for q in stargammon.plays(x, (5, 2))]
    assert engine.choose(p) == "roll"


def test_rollout_matches_the_cli():
    engine = stargammon.Engine("net")
    p = stargammon.Position.parse(OPENING)
    got = engine.rollout(p, trials=72, seed=3, truncate=4, threads=2)
    want = cli_json(
        "rollout", OPENING, "--trials", "72", "--seed", "3", "--truncate", "4", "--threads", "2"
    )
    for key in ["equity", "se", "probs", "probs_se", "raw", "trials", "position_id"]:
        assert got[key] == want[key], key
    plays = engine.rollout(p, trials=36, dice=(3, 1), truncate=2, top=2, threads=1)
    assert len(plays["plays"]) == 2


def test_cubeful_rollout_of_a_cube_decision_matches_the_cli():
    engine = stargammon.Engine("net")
    p = stargammon.Position.parse(OPENING)
    got = engine.rollout(p, trials=24, seed=2, truncate=6, threads=2, cube=True)
    want = cli_json(
        "rollout", OPENING, "--cube", "--trials", "24", "--seed", "2", "--truncate", "6",
        "--threads", "2",
    )
    assert got["cube"] == want["cube"]
    for key in ["no_double", "double_take", "double_pass"]:
        assert key in got["cube"]["equities"], key
        assert key in got["cube"]["se"], key
    plays = engine.rollout(p, trials=12, dice=(3, 1), truncate=4, top=2, cubeful=True)
    assert plays["cubeful"] is True
    assert len(plays["plays"]) == 2


def test_bearoff_matches_the_cli():
    text = "XGID=-BBBCB--------------bcbbb-:0:0:1:00:0:0:0:0:10"
    if not BIN.exists():
        pytest.skip("no binary")
    p = stargammon.Position.parse(text)
    assert stargammon.bearoff(p) == cli_json("bearoff", text)
    with pytest.raises(ValueError, match="not a bear-off position"):
        stargammon.bearoff(stargammon.Position.parse(OPENING))


def test_analyse_a_match_file():
    path = ROOT / "tests" / "data" / "analyse" / "net_vs_noisy.mat"
    got = stargammon.analyse(path, depth=1, threads=2)
    want = cli_json("analyse", str(path), "--depth", "1", "--threads", "2", "--quiet")
    assert got["players"] == want["players"]
    assert got["games"] == want["games"]
    with pytest.raises(ValueError) as e:
        stargammon.analyse(ROOT / "no-such-file.mat")
    assert "no-such-file.mat" in str(e.value)


def test_analyse_with_flagged_decisions_rolled_out():
    path = ROOT / "tests" / "data" / "analyse" / "cube_errors.mat"
    got = stargammon.analyse(path, threads=2, rollout=True, rollout_trials=36, rollout_seed=3)
    want = cli_json("analyse", str(path), "--threads", "2", "--quiet", "--rollout",
                    "--rollout-trials", "36", "--rollout-seed", "3")
    assert got["players"] == want["players"]
    assert got["games"] == want["games"]
    assert got["rollout"] == want["rollout"]
    assert got["rollout"]["rolled_out"] == 4
    rolled = [d for g in got["games"] for d in g["decisions"] if "rollout" in d]
    assert len(rolled) == 4
    assert all(d["rollout"]["trials"] == 36 for d in rolled)
    with pytest.raises(ValueError) as e:
        stargammon.analyse(path, rollout=True, rollout_skill="awful")
    assert "awful" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ValueError) as e:
        stargammon.analyse(path, rollout=True, rollout_trials=0)
    assert str(e.value) == cli_error("analyse", str(path), "--rollout", "--rollout-trials", "0")


def test_bad_specs_raise_the_cli_message():
    with pytest.raises(ValueError) as e:
        stargammon.Engine("net,depth=4")
    assert "depth" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ValueError) as e:
        stargammon.duel("net", "nonsense", games=4)
    assert str(e.value) == cli_error("duel", "--a", "net", "--b", "nonsense", "--games", "4")


def test_duel_in_process():
    got = stargammon.duel("net", "random", games=4, seed=2, threads=1)
    want = cli_json("duel", "--a", "net", "--b", "random", "--games", "4", "--seed", "2",
                    "--threads", "1")
    for key in ["games", "pairs", "ppg", "a_wins", "command"]:
        assert got[key] == want[key], key
    assert got["ppg"] > 0


def test_tavli_duel():
    got = stargammon.duel("heuristic", "random", games=4, seed=1, variant="plakoto")
    assert got["games"] == 4


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_match_over_a_socket(tmp_path):
    if not BIN.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"the stargammon binary is missing at {BIN}")
        pytest.skip("no binary to serve")
    port = free_port()
    server = subprocess.Popen(
        [str(BIN), "serve", "--config", str(ROOT / "config" / "throughput.toml"),
         "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        mat = tmp_path / "m.mat"
        got = stargammon.play_match(
            "net", f"tcp://127.0.0.1:{port}", length=3, matches=1, seed=5, mat=mat
        )
        assert got["matches"] == 1 and got["length"] == 3
        assert got["forfeits"] == {"a": 0, "b": 0}
        assert mat.read_text().strip()
        # The match file just written analyses too.
        assert len(stargammon.analyse(mat, threads=1)["players"]) == 2
        money = stargammon.play_match("pubeval", f"tcp://127.0.0.1:{port}", games=2, seed=1)
        assert money["games"] == 2
        # A's checker plays in-process, its cube decisions by the server.
        split = stargammon.play_match(
            "net", "net", length=3, matches=1, seed=5, a_cube=f"tcp://127.0.0.1:{port}"
        )
        assert split["a_cube"] == f"tcp://127.0.0.1:{port}" and split["b_cube"] is None
        assert split["forfeits"] == {"a": 0, "b": 0}
    finally:
        server.terminate()
        server.wait(timeout=30)
    with pytest.raises(ValueError, match="positive"):
        stargammon.play_match("net", "net", games=0)


# The boundary


def test_a_panic_becomes_an_exception():
    for detach, inline in ((True, False), (True, True), (False, False)):
        with pytest.raises(stargammon.InternalError, match="a test asked for a panic"):
            stargammon._stargammon._panic_for_tests(detach, inline)
    assert issubclass(stargammon.InternalError, RuntimeError)
    # The package still works afterwards.
    assert stargammon.Position.parse(OPENING).position_id == OPENING


def test_searches_release_the_gil():
    """Two threads searching at once take less than twice one search: the GIL is free."""
    engine = stargammon.Engine("net,depth=3")
    p = stargammon.Position.parse(OPENING)
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: nothing to overlap")
    spins = [0]
    done = threading.Event()

    def spin():
        while not done.is_set():
            spins[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        for _ in range(3):
            engine.hint(p, (6, 5))
    finally:
        done.set()
        t.join()
    # A Python thread kept running while the searches ran in Rust.
    assert spins[0] > 1000


# Ctrl-C

# Left alone, each call below runs for minutes (the hint and the analysis over 45 s on two
# cores, the others far longer); SIGINT comes 0.5 s in. The bound is generous for a loaded
# two-core machine: the package looks for signals every 50 ms.
INTERRUPT_AFTER = 0.5
INTERRUPT_BOUND = 5.0


def native_threads():
    """The threads of this process, Rust's included (Linux)."""
    return len(os.listdir("/proc/self/task"))


def interrupted(call):
    """Runs `call`, SIGINT to the process INTERRUPT_AFTER seconds in, and returns the
    seconds from the signal to the KeyboardInterrupt the call raised."""
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    # The package keeps an idle worker thread between calls: one exists before counting.
    stargammon.Engine("net,depth=3").hint(stargammon.Position.parse(OPENING_XGID))
    threads = native_threads()
    # Python's own SIGINT handler, even where the suite was started with SIGINT ignored
    # (a shell's background job), when Python leaves it ignored.
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(INTERRUPT_AFTER, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
        caught = time.perf_counter()
    finally:
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGINT, old)
    assert sent, "the call ended before the signal"
    # Every thread the call started has ended or waits idle for the next call, as the
    # worker counted above did; the timer's thread has ended. A joined thread may
    # stay listed for a moment while the kernel tears it down; a thread left running
    # would stay for good.
    deadline = time.perf_counter() + 2.0
    while native_threads() != threads and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert native_threads() == threads
    return caught - sent[0]


def long_match_file(tmp_path):
    """A match file long enough to analyse for minutes at depth 7."""
    mat = tmp_path / "long.mat"
    stargammon.play_match("net", "net", length=11, matches=1, seed=3, mat=mat)
    return mat


@pytest.mark.parametrize("what", ["hint", "rollout", "duel", "match", "analyse"])
def test_ctrl_c_stops_a_long_call(what, tmp_path):
    if not Path("/proc/self/task").is_dir():
        pytest.skip("counts threads through /proc")
    p = stargammon.Position.parse(OPENING_XGID)
    engine = stargammon.Engine("net,depth=7")
    calls = {
        "hint": lambda: engine.hint(p, rank=50),
        "rollout": lambda: stargammon.Engine("net").rollout(p, trials=10**8, threads=2),
        "duel": lambda: stargammon.duel("net", "net", games=10**6, threads=2),
        "match": lambda: stargammon.play_match("net", "net", games=10**6, parallel=2),
        "analyse": (lambda mat: lambda: stargammon.analyse(mat, depth=7, threads=2))(
            long_match_file(tmp_path) if what == "analyse" else None
        ),
    }
    delay = interrupted(calls[what])
    print(f"{what}: KeyboardInterrupt {delay:.3f} s after SIGINT")
    assert delay < INTERRUPT_BOUND, f"{what}: KeyboardInterrupt {delay:.2f} s after SIGINT"
    # The package goes on working, the interrupted engine included.
    quick = stargammon.Engine("net")
    assert quick.hint(p)[0]["move"] == quick.hint(p)[0]["move"]
    assert engine.choose(stargammon.Position.parse(OPENING)) == "roll"


def test_calls_in_a_forked_child():
    """A child of fork has none of its parent's idle worker threads; its calls start
    their own."""
    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    engine = stargammon.Engine("net,depth=3")
    p = stargammon.Position.parse(OPENING_XGID)
    want = engine.hint(p)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.alarm(120)
            code = 0 if engine.hint(p) == want else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_ctrl_c_runs_a_python_signal_handler():
    """A handler of the program's own runs while a call is under way; its exception
    stops the call as KeyboardInterrupt does."""

    class Stop(Exception):
        pass

    def handler(signum, frame):
        raise Stop()

    old = signal.signal(signal.SIGINT, handler)
    try:
        timer = threading.Timer(INTERRUPT_AFTER, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        start = time.perf_counter()
        with pytest.raises(Stop):
            stargammon.duel("net", "net", games=10**6, threads=2)
        timer.join()
        assert time.perf_counter() - start < INTERRUPT_AFTER + INTERRUPT_BOUND
    finally:
        signal.signal(signal.SIGINT, old)


def test_typed():
    pkg = Path(stargammon.__file__).parent
    assert (pkg / "py.typed").exists()
    assert (pkg / "__init__.pyi").exists()
