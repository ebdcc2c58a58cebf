//! The compiled core of the Python package `stargammon` (docs/python.md): a thin layer
//! over the library. Every call converts its arguments, runs the library's own function
//! (the one the command line runs) with the GIL released, the long ones on a worker thread
//! that Ctrl-C cancels, and converts the answer; the objects of the JSON outputs become
//! dicts. Errors are `ValueError`s with the command
//! line's one-line message, and a panic inside becomes `stargammon.InternalError`.

use std::any::Any;
use std::fmt::Display;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

use stargammon::cli::{self, CliError, Report};
use stargammon::engine::{build, Action, Engine as RustEngine, EngineSpec, EvalOptions};
use stargammon::engine::{Found, Outcome, Work};
use stargammon::game::{Decision, Dice, MatchState, Variant};
use stargammon::notation::{self, format_play, MoveStyle, Xgid};
use stargammon::search::Cancel;
use stargammon::tavli::TavliPosition;

create_exception!(
    stargammon,
    InternalError,
    PyRuntimeError,
    "A failure inside the engine (a Rust panic): a bug, never an answer to bad input."
);

/// Bad input: a `ValueError` with the command line's one-line message.
fn bad(e: impl Display) -> PyErr {
    PyValueError::new_err(cli::one_line(&e.to_string()))
}

/// How long a call's work runs between two looks for a signal to Python (Ctrl-C).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// The [`InternalError`] of a panic's payload.
fn panic_error(payload: &(dyn Any + Send)) -> PyErr {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("a panic without a message");
    InternalError::new_err(format!("internal error: {text}"))
}

/// Where a call runs its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// On the calling thread with the GIL released: work of a few milliseconds at most
    /// (the nets alone, a bear-off lookup), which a handover to a worker would slow down
    /// and which Ctrl-C need not cut short.
    Inline,
    /// On a worker thread, cancelled by Ctrl-C (see [`interruptible`]).
    Interruptible,
}

impl Mode {
    /// Inline for the nets alone (depth 1), else interruptible.
    fn for_depths(depths: &[u32]) -> Mode {
        if depths.iter().all(|&d| d <= 1) {
            Mode::Inline
        } else {
            Mode::Interruptible
        }
    }
}

/// Runs `work` as `mode` says; a panic inside becomes [`InternalError`].
fn work_on<T: Send + 'static>(
    py: Python<'_>,
    mode: Mode,
    work: impl FnOnce(&Cancel) -> T + Send + 'static,
) -> PyResult<T> {
    match mode {
        Mode::Inline => py
            .detach(|| catch_unwind(AssertUnwindSafe(|| work(&Cancel::new()))))
            .map_err(|payload| panic_error(payload.as_ref())),
        Mode::Interruptible => interruptible(py, work),
    }
}

/// A call's work for a worker thread: it runs the work and answers with what hands the
/// outcome to the waiting caller, which the worker calls once it is idle again.
type Job = Box<dyn FnOnce() -> Box<dyn FnOnce() + Send> + Send>;

/// The idle worker threads (each the sender of its queue of jobs) and the process they
/// belong to: a child of `fork` has none of its parent's threads and starts afresh.
static IDLE: Mutex<(u32, Vec<mpsc::Sender<Job>>)> = Mutex::new((0, Vec::new()));

/// Idle workers kept for later calls, one a Python thread that calls at once; a worker
/// finding this many idle ends.
const MAX_IDLE: usize = 4;

/// Hands `job` to an idle worker thread, or to a new one.
fn submit(mut job: Job) -> Result<(), std::io::Error> {
    loop {
        let idle = {
            let mut idle = IDLE.lock().unwrap_or_else(|e| e.into_inner());
            if idle.0 != std::process::id() {
                *idle = (std::process::id(), Vec::new());
            }
            idle.1.pop()
        };
        let Some(worker) = idle else { break };
        match worker.send(job) {
            Ok(()) => return Ok(()),
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    let (queue, jobs) = mpsc::channel::<Job>();
    let me = queue.clone();
    queue
        .send(job)
        .map_err(|_| std::io::Error::other("a new worker's queue is closed"))?;
    std::thread::Builder::new()
        .name("stargammon".into())
        .spawn(move || {
            for job in jobs.iter() {
                let deliver = job();
                // Idle again before the caller hears back, so that its next call finds
                // this worker and starts no other.
                let kept = {
                    let mut idle = IDLE.lock().unwrap_or_else(|e| e.into_inner());
                    if idle.0 == std::process::id() && idle.1.len() < MAX_IDLE {
                        idle.1.push(me.clone());
                        true
                    } else {
                        false
                    }
                };
                deliver();
                if !kept {
                    break;
                }
            }
        })?;
    Ok(())
}

/// Runs `work` on a worker thread (kept between calls: starting a thread costs a call
/// more than handing it over) while the calling thread, the GIL released, wakes every
/// [`SIGNAL_POLL`] to run Python's signal handlers. When a handler raises (Ctrl-C's
/// `KeyboardInterrupt`), the work's [`Cancel`] goes up, the call waits (the GIL released)
/// for the work to wind down, its own threads ended, and raises the handler's exception.
/// A panic inside becomes [`InternalError`].
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    work: impl FnOnce(&Cancel) -> T + Send + 'static,
) -> PyResult<T> {
    let cancel = Cancel::new();
    let (reply, mut outcome) = mpsc::sync_channel(1);
    let for_work = cancel.clone();
    let job: Job = Box::new(move || {
        let answer = catch_unwind(AssertUnwindSafe(|| work(&for_work)));
        Box::new(move || {
            // The caller may have gone (nothing waits for an answer after a panic of
            // ours); the answer is then dropped.
            let _ = reply.send(answer);
        })
    });
    submit(job).map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    let mut signal = Ok(());
    let answer = loop {
        let (back, got) = py.detach(move || {
            let got = outcome.recv_timeout(SIGNAL_POLL);
            (outcome, got)
        });
        outcome = back;
        match got {
            Ok(answer) => break Ok(answer),
            Err(mpsc::RecvTimeoutError::Disconnected) => break Err(()),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        signal = py.check_signals();
        if signal.is_err() {
            cancel.cancel();
            break py.detach(move || outcome.recv()).map_err(|_| ());
        }
    };
    signal?;
    match answer {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(payload)) => Err(panic_error(payload.as_ref())),
        Err(()) => Err(InternalError::new_err(
            "internal error: a worker thread ended without an answer",
        )),
    }
}

/// [`work_on`] of a fallible call: its error becomes a `ValueError`.
fn run<T: Send + 'static>(
    py: Python<'_>,
    mode: Mode,
    work: impl FnOnce(&Cancel) -> Result<T, CliError> + Send + 'static,
) -> PyResult<T> {
    work_on(py, mode, work)?.map_err(bad)
}

/// A JSON value as Python objects: dicts, lists, str, int, float, bool, None.
fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

fn variant_arg(variant: Option<&str>) -> PyResult<Option<Variant>> {
    variant
        .map(|v| v.parse::<Variant>().map_err(bad))
        .transpose()
}

fn dice_arg(dice: (u8, u8)) -> PyResult<Dice> {
    Dice::new(dice.0, dice.1).map_err(bad)
}

/// The two kinds of position the package holds.
#[derive(Debug, Clone, PartialEq)]
enum Inner {
    /// A backgammon position with everything around it (cube, score, decision, dice).
    Backgammon(MatchState),
    /// A position of a Tavli game, the side to move's view.
    Tavli(TavliPosition),
}

/// A position: backgammon with its match state (cube, score, whose decision, dice), or a
/// Tavli game's position. Immutable; `Position.parse` reads every notation the command
/// line reads.
#[pyclass(frozen, eq, module = "stargammon", name = "Position")]
#[derive(Debug, Clone, PartialEq)]
struct Position(Inner);

impl Position {
    fn state(&self) -> PyResult<&MatchState> {
        match &self.0 {
            Inner::Backgammon(s) => Ok(s),
            Inner::Tavli(p) => Err(PyValueError::new_err(format!(
                "a {} position has no backgammon match state",
                p.variant()
            ))),
        }
    }
}

#[pymethods]
impl Position {
    /// Reads a position: a gnubg Position ID (`4HPwATDgc/ABMA`), with its Match ID
    /// (`4HPwATDgc/ABMA:cAkAAAAAAAAA`), an XGID or a FIBS board string; with
    /// `variant="portes"`, `"plakoto"` or `"fevga"`, a Tavli position string.
    #[staticmethod]
    #[pyo3(signature = (text, variant = None))]
    fn parse(text: &str, variant: Option<&str>) -> PyResult<Position> {
        match variant_arg(variant)? {
            Some(v) if v.is_tavli() => <TavliPosition as cli::game::CliGame>::read(v, Some(text))
                .map(|p| Position(Inner::Tavli(p)))
                .map_err(bad),
            _ => notation::text::parse_position_text(text)
                .map(|s| Position(Inner::Backgammon(s)))
                .map_err(bad),
        }
    }

    /// The starting position of a game: backgammon's (money play, before the first
    /// roll) or, with `variant`, a Tavli game's.
    #[staticmethod]
    #[pyo3(signature = (variant = None))]
    fn start(variant: Option<&str>) -> PyResult<Position> {
        Ok(match variant_arg(variant)? {
            Some(v) if v.is_tavli() => Position(Inner::Tavli(TavliPosition::start(v))),
            _ => Position(Inner::Backgammon(MatchState::money(
                stargammon::game::Position::OPENING,
                Decision::DoubleOrRoll,
            ))),
        })
    }

    /// `backgammon`, `portes`, `plakoto` or `fevga`.
    #[getter]
    fn variant(&self) -> &'static str {
        match &self.0 {
            Inner::Backgammon(_) => Variant::Backgammon.name(),
            Inner::Tavli(p) => p.variant().name(),
        }
    }

    /// gnubg's Position ID of the checkers, seen by the side to act.
    #[getter]
    fn position_id(&self) -> PyResult<String> {
        Ok(notation::position_id(&self.state()?.position))
    }

    /// gnubg's Match ID (cube, score, dice, whose turn).
    #[getter]
    fn match_id(&self) -> PyResult<String> {
        let (_, mid) = notation::encode_match_state(self.state()?).map_err(bad)?;
        Ok(mid)
    }

    /// The XGID of the whole state.
    #[getter]
    fn xgid(&self) -> PyResult<String> {
        Ok(Xgid::from_match_state(self.state()?).to_string())
    }

    /// The Tavli position string (`VARIANT:MOVER:OPPONENT`), or for backgammon the gnubg
    /// ids `POSITIONID:MATCHID`.
    #[getter]
    fn text(&self) -> PyResult<String> {
        match &self.0 {
            Inner::Tavli(p) => Ok(stargammon::tavli::position_string(p)),
            Inner::Backgammon(s) => {
                let (pid, mid) = notation::encode_match_state(s).map_err(bad)?;
                Ok(format!("{pid}:{mid}"))
            }
        }
    }

    /// The 26 signed checker counts of the side to act's view: slot 0 the opponent's
    /// bar, 1-24 the points, 25 its own bar; its checkers positive.
    #[getter]
    fn slots(&self) -> PyResult<Vec<i8>> {
        Ok(self.state()?.position.slots().to_vec())
    }

    /// The pip counts (side to act, opponent).
    #[getter]
    fn pips(&self) -> PyResult<(u32, u32)> {
        let p = self.state()?.position;
        Ok((p.pips(), p.swap().pips()))
    }

    /// What the side to act decides: `move`, `double_or_roll`, `take_or_drop`,
    /// `beaver_answer` or `game_over`.
    #[getter]
    fn decision(&self) -> PyResult<&'static str> {
        Ok(stargammon::notation::summary::decision_word(
            self.state()?.decision,
        ))
    }

    /// The roll to play (high die first), or None before the roll.
    #[getter]
    fn dice(&self) -> PyResult<Option<(u8, u8)>> {
        Ok(match self.state()?.decision {
            Decision::Move(d) => Some((d.high(), d.low())),
            _ => None,
        })
    }

    /// The cube's value.
    #[getter]
    fn cube(&self) -> PyResult<u32> {
        Ok(self.state()?.cube)
    }

    /// The match length in points; 0 for money play.
    #[getter]
    fn match_length(&self) -> PyResult<u32> {
        Ok(self.state()?.match_length)
    }

    /// The score (side to act, opponent).
    #[getter]
    fn score(&self) -> PyResult<(u32, u32)> {
        let s = self.state()?;
        Ok((s.score, s.opp_score))
    }

    /// The board drawn as `stargammon show` draws it, with its description.
    fn __str__(&self) -> String {
        match &self.0 {
            Inner::Backgammon(s) => {
                let mut out = cli::show::draw_board(&s.position);
                out.push_str(&cli::show::describe(s));
                out
            }
            Inner::Tavli(p) => stargammon::tavli::position_string(p),
        }
    }

    fn __repr__(&self) -> String {
        match &self.0 {
            Inner::Backgammon(_) => {
                format!("Position.parse({:?})", self.xgid().unwrap_or_default())
            }
            Inner::Tavli(p) => format!(
                "Position.parse({:?}, variant={:?})",
                stargammon::tavli::position_string(p),
                p.variant().name()
            ),
        }
    }
}

/// One legal play: its notation and the position after it (the opponent to act).
#[pyclass(frozen, module = "stargammon", name = "Play")]
#[derive(Debug, Clone)]
struct Play {
    /// The play in gnubg's notation (`8/5 6/5`); empty when the roll cannot be played.
    #[pyo3(get, name = "move")]
    mv: String,
    /// The position after the play, the opponent to act before its roll.
    #[pyo3(get)]
    position: Position,
    /// How the play ended a Tavli game (`win 1`, `win 2`, `tie`), else None.
    #[pyo3(get)]
    end: Option<String>,
}

#[pymethods]
impl Play {
    fn __repr__(&self) -> String {
        format!("Play({:?})", self.mv)
    }
}

/// Every distinct legal play of `dice` in `position`, in the order `stargammon moves`
/// lists them (the one empty play for a roll that cannot be played).
#[pyfunction]
fn plays(position: &Position, dice: (u8, u8)) -> PyResult<Vec<Play>> {
    let dice = dice_arg(dice)?;
    match &position.0 {
        Inner::Backgammon(s) => {
            let on_roll = stargammon::engine::roller(s).0;
            let state = MatchState {
                position: on_roll,
                decision: Decision::Move(dice),
                ..s.clone()
            };
            Ok(stargammon::game::legal_plays(&on_roll, dice)
                .iter()
                .map(|p| Play {
                    mv: format_play(&on_roll, p, MoveStyle::Gnubg),
                    position: Position(Inner::Backgammon(state.after_play(p))),
                    end: None,
                })
                .collect())
        }
        Inner::Tavli(p) => {
            if p.result().is_some() {
                return Err(bad("the game is over in this position"));
            }
            let rules = stargammon::tavli::RuleSwitches::default();
            Ok(stargammon::tavli::legal_plays(p, dice, &rules)
                .iter()
                .map(|t| Play {
                    mv: stargammon::tavli::format_play(t),
                    position: Position(Inner::Tavli(t.next_position())),
                    end: cli::game::end_name::<TavliPosition>(t),
                })
                .collect())
        }
    }
}

/// An engine built from a spec string as the command line reads them (`net`,
/// `net,depth=3`, `net,depth=5,algorithm=star1`, `net:PATH`, `pipsigmoid`, with options
/// such as `noise=`, `time_ms=`, `cube_depth=`).
#[pyclass(frozen, module = "stargammon", name = "Engine")]
struct Engine {
    spec: EngineSpec,
    text: String,
    /// Shared with the worker thread of each call.
    engine: Arc<RustEngine>,
}

impl Engine {
    fn state(&self, position: &Position) -> PyResult<MatchState> {
        position.state().cloned()
    }

    /// What `hint --json` prints for a roll.
    fn play_hint(
        &self,
        py: Python<'_>,
        position: &Position,
        dice: Option<(u8, u8)>,
        rank: usize,
        threads: usize,
    ) -> PyResult<Value> {
        let state = self.state(position)?;
        let dice = match dice {
            Some(d) => dice_arg(d)?,
            None => match state.decision {
                Decision::Move(d) => d,
                _ => return Err(bad("no roll to play: give dice=(d1, d2)")),
            },
        };
        if state.decision == Decision::GameOver {
            return Err(bad("the game is over: no plays to rank"));
        }
        let settings = cli::hint::search_settings(&self.spec, rank, threads);
        let mode = Mode::for_depths(&[self.spec.depth.get()]);
        let engine = Arc::clone(&self.engine);
        work_on(py, mode, move |cancel| {
            cli::hint::play_hint(&engine, &state, dice, &settings, cancel).json()
        })
    }
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (spec = "net"))]
    fn new(py: Python<'_>, spec: &str) -> PyResult<Engine> {
        let parsed: EngineSpec = spec.parse().map_err(bad)?;
        let text = spec.to_string();
        let spec = parsed.clone();
        let engine = run(py, Mode::Inline, move |_| {
            // The exact bear-off database is built on first use, a fraction of a second
            // that would land inside whichever search first reaches a bear-off; built here
            // (once a process) as the server builds it at start.
            stargammon::eval::bearoff::database();
            Ok(build::engine(&spec)?)
        })?;
        Ok(Engine {
            spec: parsed,
            text,
            engine: Arc::new(engine),
        })
    }

    /// The spec as given.
    #[getter]
    fn spec(&self) -> String {
        self.text.clone()
    }

    /// The search depth of checker plays (1 = the nets alone, 3 = gnubg's 1-ply, ...).
    #[getter]
    fn depth(&self) -> u32 {
        self.spec.depth.get()
    }

    /// The probabilities of the side to act before it rolls (a roll in the position is
    /// ignored) searched at the engine's cube depth, with its values: `probs` (win, win
    /// gammon, win backgammon, lose gammon, lose backgammon), `equity` (cubeless money
    /// equity), `cubeless` and `cubeful` (money equity or, at a match score,
    /// match-winning chance, as `value_kind` says) and `depth`.
    fn evaluate<'py>(&self, py: Python<'py>, position: &Position) -> PyResult<Bound<'py, PyAny>> {
        let mut state = self.state(position)?;
        if state.decision == Decision::GameOver {
            return Err(bad("the game is over: nothing to evaluate"));
        }
        if let Decision::Move(_) = state.decision {
            state.decision = Decision::DoubleOrRoll;
            state.dice_low_first = false;
        }
        let depth = self.engine.settings().cube_depth;
        let engine = Arc::clone(&self.engine);
        let json = run(py, Mode::for_depths(&[depth]), move |cancel| {
            let opts = EvalOptions {
                depth,
                cubeful: false,
                noise: 0.0,
                deterministic: false,
            };
            let Outcome::Evaluation(cubeless) =
                engine.run(&Work::Evaluate(state.clone(), opts), cancel)?
            else {
                return Err("an evaluation answered something else".into());
            };
            let cubeful_work = Work::Evaluate(
                state.clone(),
                EvalOptions {
                    cubeful: true,
                    ..opts
                },
            );
            let Outcome::Evaluation(cubeful) =
                engine.complete(&cubeful_work, Found::Probabilities(cubeless.probs))?
            else {
                return Err("an evaluation answered something else".into());
            };
            Ok(serde_json::json!({
                "probs": cubeless.probs.0,
                "equity": cubeless.probs.equity(),
                "cubeless": cubeless.value,
                "cubeful": cubeful.value,
                "value_kind": if state.is_money() { "equity" } else { "mwc" },
                "depth": depth,
            }))
        })?;
        to_py(py, &json)
    }

    /// The plays of `dice` (default: the roll in the position) ranked as
    /// `stargammon hint --json` ranks them: a list of dicts with `move`, `equity`
    /// (cubeless), `value` (at the score), `diff`, `probs`, `depth`, `plies` and
    /// `search_rank`, best first. `rank`: how many plays get a value at the full depth.
    #[pyo3(signature = (position, dice = None, rank = 5, threads = 1))]
    fn hint<'py>(
        &self,
        py: Python<'py>,
        position: &Position,
        dice: Option<(u8, u8)>,
        rank: usize,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let hint = self.play_hint(py, position, dice, rank, threads)?;
        to_py(py, &hint["plays"])
    }

    /// The whole object `stargammon hint --json` prints for a roll: the ranked `plays`
    /// and the search's figures (`depth`, `ms`, `nodes`, ...).
    #[pyo3(signature = (position, dice = None, rank = 5, threads = 1))]
    fn hint_report<'py>(
        &self,
        py: Python<'py>,
        position: &Position,
        dice: Option<(u8, u8)>,
        rank: usize,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let hint = self.play_hint(py, position, dice, rank, threads)?;
        to_py(py, &hint)
    }

    /// The cube decision as `stargammon hint --json` gives it without dice: a dict with
    /// `cube` (`action`, `equities`, `proper`, `response`, `take_point`, ...),
    /// `evaluation` (the roller's cubeless probabilities and equity) and the ids.
    fn cube<'py>(&self, py: Python<'py>, position: &Position) -> PyResult<Bound<'py, PyAny>> {
        let state = self.state(position)?;
        // Cube decisions search at the spec's cube depth.
        let spec = EngineSpec {
            depth: self.spec.cube_depth,
            ..self.spec.clone()
        };
        let settings = cli::hint::search_settings(&spec, 1, 1);
        let mode = Mode::for_depths(&[spec.depth.get()]);
        let engine = Arc::clone(&self.engine);
        let json = run(py, mode, move |cancel| {
            Ok(cli::hint::cube_hint(&engine, &state, &settings, cancel)?.json())
        })?;
        to_py(py, &json)
    }

    /// What the engine does in the position, as the server plays: a `Play` for a roll,
    /// else `"roll"`, `"double"`, `"take"`, `"drop"`, `"beaver"` or `"nothing"` (the game
    /// is over).
    fn choose<'py>(&self, py: Python<'py>, position: &Position) -> PyResult<Bound<'py, PyAny>> {
        let state = self.state(position)?;
        let mode = Mode::for_depths(&[self.spec.depth.get(), self.spec.cube_depth.get()]);
        let (engine, decided) = (Arc::clone(&self.engine), state.clone());
        let action = run(py, mode, move |cancel| Ok(engine.decide(&decided, cancel)?))?;
        let word = match action {
            Action::Move(p) => {
                let on_roll = state.position;
                let play = Play {
                    mv: format_play(&on_roll, &p, MoveStyle::Gnubg),
                    position: Position(Inner::Backgammon(state.after_play(&p))),
                    end: None,
                };
                return Ok(Bound::new(py, play)?.into_any());
            }
            Action::Roll => "roll",
            Action::Double => "double",
            Action::Take => "take",
            Action::Drop => "drop",
            Action::Beaver => "beaver",
            Action::AcceptResignation => "accept",
            Action::RejectResignation => "reject",
            Action::Nothing => "nothing",
        };
        Ok(word.into_pyobject(py)?.into_any())
    }

    /// Rolls the position out as `stargammon rollout --json` does, every side played by
    /// this engine: without dice (and none in the position) the side about to roll,
    /// before its roll; with dice, the best `top` plays of that roll side by side on the
    /// same dice. `cubeful` plays every trial with the cube alive (`rollout --cubeful`);
    /// `cube` rolls out the cube decision (`rollout --cube`, its `cube` dict shaped as
    /// `Engine.cube`'s). Returns the JSON object as a dict (`equity`, `se`, `probs`, ...,
    /// `plays`, or `cube`).
    #[pyo3(signature = (position, trials = 1296, seed = 1, dice = None, truncate = None,
        top = 5, threads = None, variance_reduction = true, cubeful = false, cube = false))]
    fn rollout<'py>(
        &self,
        py: Python<'py>,
        position: &Position,
        trials: u64,
        seed: u64,
        dice: Option<(u8, u8)>,
        truncate: Option<u32>,
        top: usize,
        threads: Option<usize>,
        variance_reduction: bool,
        cubeful: bool,
        cube: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let state = self.state(position)?;
        let dice_list = dice.map(|(a, b)| vec![a, b]);
        let args = cli::rollout::RolloutArgs {
            pos: None,
            positions: None,
            shard: "0/1".into(),
            out: None,
            merge: Vec::new(),
            dice: dice_list.clone(),
            trials,
            truncate,
            engine: None,
            depth: Some(self.spec.depth),
            top,
            seed,
            threads,
            no_vr: !variance_reduction,
            evaluator: Some(self.spec.evaluator.clone()),
            eval: None,
            cubeful,
            cube,
            json: true,
        };
        let spec = EngineSpec {
            tt_megabytes: cli::rollout::TRIAL_TT_MB,
            ..self.spec.clone()
        };
        let report = run(py, Mode::Interruptible, move |cancel| {
            let (pos, dice) = cli::rollout::roll_out_target(&state, dice_list.as_deref())?;
            let threads = cli::threads_arg(args.threads)?;
            let hooks = stargammon::rollout::Hooks {
                stop: cancel.flag(),
                progress: &|_| {},
            };
            let target = cli::rollout::Target {
                state: &state,
                pos: &pos,
                dice,
            };
            cli::rollout::report(&args, &spec, threads, &target, hooks, &|| {})
        })?;
        to_py(py, &report.json)
    }

    fn __repr__(&self) -> String {
        format!("Engine({:?})", self.text)
    }
}

/// The bear-off figures of a position with every checker home or borne off, as
/// `stargammon bearoff --json` gives them: each side's expected rolls and distribution,
/// the side on roll's chances and cubeless equity.
#[pyfunction]
fn bearoff<'py>(py: Python<'py>, position: &Position) -> PyResult<Bound<'py, PyAny>> {
    let state = position.state()?.clone();
    let report: Report = run(py, Mode::Inline, move |_| cli::bearoff::report(&state))?;
    to_py(py, &report.json)
}

/// A match file (`.mat` or gnubg `.sgf`) analysed as `stargammon analyse --json` does:
/// every checker play and cube decision scored at `depth`, with each player's error
/// rates, rating and luck; with `rollout`, every flagged decision (at or above
/// `rollout_skill`) then settled by a cubeful rollout of `rollout_trials` trials, as
/// `analyse --rollout` does.
#[pyfunction]
#[pyo3(signature = (path, depth = 1, threads = None, rollout = false, rollout_trials = None,
    rollout_seed = 1, rollout_skill = "doubtful", rollout_engine = None))]
fn analyse<'py>(
    py: Python<'py>,
    path: PathBuf,
    depth: u32,
    threads: Option<usize>,
    rollout: bool,
    rollout_trials: Option<u64>,
    rollout_seed: u64,
    rollout_skill: &str,
    rollout_engine: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    use stargammon::cli::analyse::{file_json, parse_skill, RolloutOptions, RolloutPlan};
    use stargammon::engine::{CubePolicy, Depth};
    let depth = Depth::new(depth).map_err(bad)?;
    let min_skill = parse_skill(rollout_skill).map_err(|e| bad(format!("rollout_skill {e}")))?;
    let options = RolloutOptions {
        trials: rollout_trials.unwrap_or(RolloutOptions::default().trials),
        seed: rollout_seed,
        min_skill,
        engine: rollout_engine,
    };
    let json = run(py, Mode::Interruptible, move |cancel| {
        // As `stargammon analyse --json` builds its engines.
        let threads = cli::threads_arg(threads)?.min(64);
        let spec = EngineSpec {
            depth,
            cube_depth: depth,
            cube_policy: CubePolicy::Cubeful,
            ..EngineSpec::default()
        };
        let plan = if rollout {
            Some(RolloutPlan::new(&options, threads)?)
        } else {
            None
        };
        let name = path.display().to_string();
        file_json(&path, &name, &spec, threads, plan.as_ref(), cancel)
    })?;
    to_py(py, &json)
}

/// Cubeless money games between two players on mirrored dice, as `stargammon duel --json`
/// plays them (player specs as the command line takes them: `net`, `net,depth=3`,
/// `pubeval`, `heuristic`, `random`; with `variant`, a Tavli game's players).
#[pyfunction]
#[pyo3(signature = (a, b, games = 1000, seed = 1, threads = None, variant = None,
    vr = false, judge = "net"))]
fn duel<'py>(
    py: Python<'py>,
    a: &str,
    b: &str,
    games: u64,
    seed: u64,
    threads: Option<usize>,
    variant: Option<&str>,
    vr: bool,
    judge: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let args = cli::duel::DuelArgs {
        a: a.into(),
        b: b.into(),
        games,
        seed,
        threads,
        json: true,
        variant: variant_arg(variant)?,
        luck: cli::duel::LuckArgs {
            vr,
            judge: judge.into(),
        },
    };
    let report = run(py, Mode::Interruptible, move |cancel| {
        cli::duel::play_until(&args, false, cancel.flag())
    })?;
    to_py(py, &report.json)
}

/// Games or matches between two engines refereed as `stargammon match --json` does:
/// each engine a player spec (in-process) or `tcp://HOST:PORT` (anything answering
/// gnubg's external-interface requests, such as `stargammon serve`). Money games with
/// `games=N`, matches with `length=L, matches=M`; `mat`/`sgf` write the matches as files
/// gnubg loads, `games_out` one JSON line per game; `a_cube`/`b_cube` give a side's cube
/// decisions to another engine, its checker plays staying its own.
#[pyfunction]
#[pyo3(signature = (a, b, games = None, length = None, matches = None, cube = None,
    seed = 1, parallel = 1, timeout = 30.0, games_out = None, mat = None, sgf = None,
    variant = None, vr = false, judge = "net", a_cube = None, b_cube = None))]
fn play_match<'py>(
    py: Python<'py>,
    a: &str,
    b: &str,
    games: Option<u64>,
    length: Option<u32>,
    matches: Option<u64>,
    cube: Option<bool>,
    seed: u64,
    parallel: usize,
    timeout: f64,
    games_out: Option<PathBuf>,
    mat: Option<PathBuf>,
    sgf: Option<PathBuf>,
    variant: Option<String>,
    vr: bool,
    judge: &str,
    a_cube: Option<String>,
    b_cube: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    use cli::match_cmd::OnOff;
    if games.is_some() && (length.is_some() || matches.is_some()) {
        return Err(bad("give games=N or length=L and matches=M, not both"));
    }
    let args = cli::match_cmd::MatchArgs {
        a: a.into(),
        b: b.into(),
        a_cube,
        b_cube,
        games,
        length,
        matches,
        cube: cube.map(|c| if c { OnOff::On } else { OnOff::Off }),
        seed,
        parallel,
        timeout,
        json: true,
        games_out,
        mat,
        sgf,
        variant,
        luck: cli::duel::LuckArgs {
            vr,
            judge: judge.into(),
        },
    };
    let report = run(py, Mode::Interruptible, move |cancel| {
        cli::match_cmd::play_until(&args, false, cancel.flag())
    })?;
    to_py(py, &report.json)
}

/// Panics inside the package, with the GIL released (on a thread of the call's own, or
/// `inline` on the calling thread) or held: how tests prove that a panic becomes
/// `InternalError` and never crosses into Python as a crash.
#[pyfunction]
#[pyo3(signature = (detach = true, inline = false))]
fn _panic_for_tests(py: Python<'_>, detach: bool, inline: bool) -> PyResult<()> {
    fn boom() {
        panic!("a test asked for a panic")
    }
    match (detach, inline) {
        (true, false) => work_on(py, Mode::Interruptible, |_| boom()),
        (true, true) => work_on(py, Mode::Inline, |_| boom()),
        (false, _) => catch_unwind(boom)
            .map_err(|_| InternalError::new_err("internal error: a test asked for a panic")),
    }
}

#[pymodule]
fn _stargammon(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Position>()?;
    m.add_class::<Play>()?;
    m.add_class::<Engine>()?;
    m.add_function(wrap_pyfunction!(plays, m)?)?;
    m.add_function(wrap_pyfunction!(bearoff, m)?)?;
    m.add_function(wrap_pyfunction!(analyse, m)?)?;
    m.add_function(wrap_pyfunction!(duel, m)?)?;
    m.add_function(wrap_pyfunction!(play_match, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
