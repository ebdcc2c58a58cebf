//! `stargammon hint`: ranks the plays of a roll with the search, or gives the cube
//! decision (double or roll, take or drop) from the searched probabilities.
//!
//! Position input: `POS` in any format [`parse_pos_arg`] reads (gnubg ids, XGID, FIBS
//! board), or `--slots` with the 26 signed slot counts of [`crate::game::Position`] (side to act's
//! view, money play, centred cube).

use clap::Args;

use super::game::{with_game, CliGame};
use super::pos_arg::{parse_pos_arg, parse_slots, SlotsError};
use super::CliError;
use crate::cube::{CubeDecision, CubeSettings, DoubleAction, TakeAction};
use crate::engine::build as engine_build;
use crate::engine::cube_detail::{cube_detail, double_word, proper_action_text, r6, CubeDetail};
use crate::engine::{Budget, Depth, EngineSpec, EvaluatorKind, PlayProbs};
use crate::eval::Probabilities;
use crate::game::{Decision, Dice, MatchState, Variant};
use crate::notation::{format_play, MoveStyle};
use crate::search::{Algorithm, Cancel, MoveDecision, PositionEvaluation, SearchSettings};

#[derive(Debug, Args)]
pub struct HintArgs {
    /// The position: gnubg Position ID (with optional Match ID), XGID or FIBS board.
    pub pos: Option<String>,
    /// The position as 26 comma-separated signed slot counts (side to act's view).
    #[arg(long, allow_hyphen_values = true)]
    pub slots: Option<String>,
    /// The roll (overrides dice in POS); without dice the cube decision is given.
    #[arg(long, num_args = 2, value_names = ["D1", "D2"])]
    pub dice: Option<Vec<u8>>,
    /// Search depth (odd): 1 = static evaluation (gnubg's 0-ply), 3 (1-ply), 5 (2-ply), ...
    /// Default 3.
    #[arg(long, value_parser = parse_depth_arg, conflicts_with = "plies")]
    pub depth: Option<Depth>,
    /// Search depth in gnubg's plies: 0-ply = depth 1, 1-ply = depth 3, 2-ply = depth 5.
    #[arg(long)]
    pub plies: Option<u32>,
    /// The engine as a spec (`net,depth=3,algorithm=star2`, `engine[:CONFIG][,key=value...]`,
    /// as duel and match players take); the flags below, where given, override it. Default:
    /// the engine of --config (or the shipped one) at depth 3 with no time budget, Star2
    /// and a 64 MB table.
    #[arg(long, value_name = "SPEC")]
    pub engine: Option<String>,
    /// Search algorithm: star2 (default), star1, expectimax, filter or mcts.
    #[arg(long)]
    pub algorithm: Option<Algorithm>,
    /// The old name of --algorithm.
    #[arg(long, hide = true, conflicts_with = "algorithm")]
    pub algo: Option<Algorithm>,
    /// How many of the best plays get an exact value at the full depth.
    #[arg(long, default_value_t = 5)]
    pub rank: usize,
    /// Search threads for this decision.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Time budget in milliseconds (the deepest completed iteration answers).
    #[arg(long)]
    pub time_ms: Option<u64>,
    /// With `--algorithm mcts`: playouts per decision (default: by --time-ms, else 2,000).
    #[arg(long)]
    pub playouts: Option<u64>,
    /// With `--algorithm mcts`: `random` or `net` (the evaluator's best play at each ply).
    #[arg(long)]
    pub playout: Option<crate::search::mcts::Playout>,
    /// With `--algorithm mcts`: end playouts after this many plies with the evaluator.
    #[arg(long)]
    pub truncate: Option<u32>,
    /// Transposition table size in MB (default 64).
    #[arg(long)]
    pub tt_megabytes: Option<usize>,
    /// The old name of --tt-megabytes.
    #[arg(long, hide = true, conflicts_with = "tt_megabytes")]
    pub tt_mb: Option<usize>,
    /// Evaluator: net (the shipped nets, default), net:PATH, or pipsigmoid.
    #[arg(long, value_parser = parse_evaluator_arg)]
    pub evaluator: Option<EvaluatorKind>,
    /// The old name of --evaluator.
    #[arg(long, hide = true, value_parser = parse_evaluator_arg, conflicts_with = "evaluator")]
    pub eval: Option<EvaluatorKind>,
    /// Configuration file (TOML) whose `[cube]` section sets the cube model.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// The game: backgammon (default), portes, plakoto or fevga. With a Tavli game POS is
    /// a position string (docs/VARIANTS.md; the starting position when left out) and the
    /// evaluator is `net` (the game's net) or `net:PATH`; every other search flag, and
    /// `--engine`, work as in backgammon.
    #[arg(long)]
    pub variant: Option<Variant>,
}

/// `hint --variant portes|plakoto|fevga`: the plays of a roll ranked by the game's net,
/// or without dice the chances of the position.
pub fn tavli(a: &HintArgs, variant: Variant, spec: &EngineSpec) -> Result<(), CliError> {
    use crate::tavli::{position_string, TavliPosition};
    if a.slots.is_some() {
        return Err("--slots is for backgammon; give a Tavli position string as POS".into());
    }
    let pos = TavliPosition::read(variant, a.pos.as_deref())?;
    // The same engine spec, builder and searcher as backgammon's hint, over the game's net.
    let engine = engine_build::tavli(spec, variant)?;
    let cancel = Cancel::new();
    let text = position_string(&pos);
    let Some(d) = a.dice.as_deref() else {
        if let Some(o) = pos.result() {
            return Err(format!("the game is over ({o:?}): nothing to hint").into());
        }
        let e = engine.evaluate(&pos, &cancel);
        let [w, wd, _, ld, _] = e.probs.0.map(|x| r6(f64::from(x)));
        if a.json {
            println!(
                "{}",
                serde_json::json!({
                    "variant": variant.name(),
                    "position": text,
                    "depth": e.depth,
                    "win": w, "win_double": wd, "lose_double": ld,
                    "value": r6(e.equity),
                })
            );
        } else {
            println!("{text}");
            println!(
                "cubeless value {:+.3} for the side to roll at depth {}: W {w:.3}  WD {wd:.3}  LD {ld:.3}",
                e.equity, e.depth
            );
        }
        return Ok(());
    };
    let dice = super::pos_arg::dice_arg(d)?;
    if pos.result().is_some() {
        return Err("the game is over: no plays to rank".into());
    }
    let ranked = crate::players::tavli::hint_plays(&engine.hint(&pos, dice, a.rank, &cancel));
    let best = ranked.first().map(|p| p.value).unwrap_or(0.0);
    // The deepest iteration completed (the best play is valued at it).
    let depth = ranked.first().map_or(1, |p| p.depth);
    if a.json {
        println!("{}", crate::players::tavli::hint_json(&pos, dice, &ranked));
    } else {
        println!("{text}");
        println!(
            "{variant}, roll {}-{}, depth {depth}, {} (cubeless values in points per game)",
            dice.high(),
            dice.low(),
            spec.algorithm
        );
        for (i, p) in ranked.iter().take(a.rank.max(1) * 4).enumerate() {
            let mv = Some(p.notation.as_str()).filter(|n| !n.is_empty());
            let mv = mv.unwrap_or("(no legal play)");
            let diff = (i > 0).then(|| format!("({:+.3})", p.value - best));
            let shallower = (p.depth < depth).then(|| format!("  (depth {})", p.depth));
            println!(
                "{:>3}. {mv:<28} {:+.3} {:<9} W {:.3} WD {:.3} LD {:.3}{}",
                i + 1,
                p.value,
                diff.unwrap_or_default(),
                p.probs.0[0],
                p.probs.0[1],
                p.probs.0[2],
                shallower.unwrap_or_default()
            );
        }
    }
    Ok(())
}

/// A depth argument, with the spec's message for a bad one.
pub fn parse_depth_arg(text: &str) -> Result<Depth, String> {
    let d: u32 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?}: expected an odd depth from 1 to 9"))?;
    Depth::new(d).map_err(|e| e.to_string())
}

/// An evaluator argument of the search commands: those of the server's config (`net`,
/// `net:PATH`, `pipsigmoid`), with `pip-sigmoid` also accepted.
pub fn parse_evaluator_arg(text: &str) -> Result<EvaluatorKind, String> {
    let text = if text == "pip-sigmoid" {
        "pipsigmoid"
    } else {
        text
    };
    let kind: EvaluatorKind = text
        .parse()
        .map_err(|e: crate::engine::SpecError| e.to_string())?;
    if !kind.is_evaluator() {
        return Err(format!(
            "{kind} is not an evaluator (use net, net:PATH or pipsigmoid)"
        ));
    }
    Ok(kind)
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// gnubg's plies for one of our depths (depth 1 = 0-ply, 3 = 1-ply, 5 = 2-ply).
pub fn plies_of(depth: u32) -> u32 {
    depth.saturating_sub(1) / 2
}

/// The depth `--plies P` or `--depth N` ask for, if either is given.
fn depth_flag(a: &HintArgs) -> Result<Option<Depth>, CliError> {
    match (a.plies, a.depth) {
        (Some(p), _) => Depth::new(2 * p + 1)
            .map(Some)
            .map_err(|_| format!("--plies {p}: expected 0 to 4").into()),
        (None, d) => Ok(d),
    }
}

impl HintArgs {
    /// `--algorithm` (or its old name `--algo`), if given.
    fn algorithm_flag(&self) -> Option<Algorithm> {
        super::engine_arg::renamed(&self.algorithm, &self.algo, "--algorithm", "--algo")
    }

    /// `--evaluator` (or its old name `--eval`), if given.
    fn evaluator_flag(&self) -> Option<EvaluatorKind> {
        super::engine_arg::renamed(&self.evaluator, &self.eval, "--evaluator", "--eval")
    }

    /// `--tt-megabytes` (or its old name `--tt-mb`), if given.
    fn tt_flag(&self) -> Option<usize> {
        super::engine_arg::renamed(&self.tt_megabytes, &self.tt_mb, "--tt-megabytes", "--tt-mb")
    }
}

/// The engine `hint` searches with: `--engine` (default: the configuration's engine at
/// depth 3, Star2, no time budget, a 64 MB table and the shipped nets) with the flags
/// given on top.
pub fn hint_spec(a: &HintArgs, config: &crate::config::Config) -> Result<EngineSpec, CliError> {
    let mut spec = match &a.engine {
        Some(text) => {
            let mut spec = super::engine_arg::engine_arg(text)?;
            if a.config.is_some() {
                spec.cube = config.cube;
            }
            spec
        }
        None => EngineSpec {
            evaluator: EvaluatorKind::Net(None),
            algorithm: Algorithm::Star2,
            depth: Depth::THREE,
            cube_depth: Depth::THREE,
            budget: Budget::Unlimited,
            tt_megabytes: 64,
            ..config.engine_spec()
        },
    };
    if let Some(e) = a.evaluator_flag() {
        spec.evaluator = e;
    }
    if let Some(algorithm) = a.algorithm_flag() {
        spec.algorithm = algorithm;
    }
    if let Some(d) = depth_flag(a)? {
        spec.depth = d;
        spec.cube_depth = d;
    }
    spec.min_depth = spec.min_depth.min(spec.depth);
    if let Some(ms) = a.time_ms {
        spec.budget = Budget::from_millis(ms);
    }
    if let Some(mb) = a.tt_flag() {
        spec.tt_megabytes = mb.max(1);
    }
    let mcts_flags = a.playouts.is_some() || a.playout.is_some() || a.truncate.is_some();
    if mcts_flags && spec.algorithm != Algorithm::Mcts {
        return Err("--playouts, --playout and --truncate need --algorithm mcts".into());
    }
    if let Some(n) = a.playouts {
        spec.mcts.playouts = (n > 0).then_some(n);
    }
    if let Some(p) = a.playout {
        spec.mcts.playout = p;
    }
    if a.truncate.is_some() {
        spec.mcts.truncate = a.truncate;
    }
    // The configured filter's stages belong to the filter: another algorithm over the
    // configuration's engine searches without them.
    if spec.algorithm != Algorithm::Filter {
        spec.filter = crate::search::FilterConfig::default();
    }
    if a.engine.is_some() {
        spec.validate()?;
    }
    Ok(spec)
}

/// The answer docs/cli.md names for the acting side: "double" or "no double" for the roller,
/// "take", "drop" or "beaver" at a take question.
fn cube_action(state: &MatchState, d: &CubeDecision, rules: &CubeSettings) -> &'static str {
    if !matches!(state.decision, Decision::TakeOrDrop)
        && crate::engine::no_cube_reason(state).is_some()
    {
        return "no double";
    }
    crate::engine::cube_answer(state, d, rules)
}

/// What a wrong action gives up, as gnubg lists it: `-0.123`, or `-1.23%` of the match.
fn loss_text(money: bool, lost: f64) -> String {
    if money {
        format!("{:+.3}", -lost)
    } else {
        format!("{:+.2}%", -lost * 100.0)
    }
}

/// "win w wg wbg - lose l lg lbg" for text output.
fn probs_text(p: &Probabilities) -> String {
    let pr = &p.0;
    format!(
        "{:.3} {:.3} {:.3} - {:.3} {:.3} {:.3}",
        pr[0],
        pr[1],
        pr[2],
        1.0 - pr[0],
        pr[3],
        pr[4]
    )
}

fn probs_json(p: &Probabilities) -> serde_json::Value {
    serde_json::json!(p
        .0
        .iter()
        .map(|&x| (x as f64 * 1e4).round() / 1e4)
        .collect::<Vec<_>>())
}

/// A value as the text shows it: money equity `+0.123`, match-winning chance `53.21%`.
fn value_text(money: bool, v: f64) -> String {
    if money {
        format!("{v:+.3}")
    } else {
        format!("{:.2}%", v * 100.0)
    }
}

/// A difference to the best value, in the same units.
fn diff_text(money: bool, d: f64) -> String {
    if money {
        format!("({d:+.3})")
    } else {
        format!("({:+.2}%)", d * 100.0)
    }
}

/// The header: the board, its ids, whose turn and what is asked.
fn header(state: &MatchState) -> String {
    let mut out = String::new();
    if let Ok((pid, mid)) = crate::notation::encode_match_state(state) {
        out.push_str(&format!(" Position ID: {pid}\n Match ID   : {mid}\n"));
    }
    out.push_str(&super::show::draw_board(&state.position));
    out.push_str(&super::show::describe(state));
    out
}

pub fn run(a: HintArgs) -> Result<(), CliError> {
    if a.threads == 0 || a.threads > 64 {
        return Err("--threads must be 1..=64".into());
    }
    let config = super::serve::load_config(a.config.as_ref())?;
    let spec = hint_spec(&a, &config)?;
    let variant = a.variant.unwrap_or(Variant::Backgammon);
    with_game!(variant, G => G::hint(&a, variant, &spec))
}

/// `hint` in backgammon: the plays of a roll ranked at the score, or the cube decision.
pub fn backgammon(a: &HintArgs, spec: &EngineSpec) -> Result<(), CliError> {
    let plies = plies_of(spec.depth.get());
    let state = match (&a.slots, &a.pos) {
        (Some(s), _) => MatchState::money(parse_slots(s)?, Decision::DoubleOrRoll),
        (None, Some(text)) => parse_pos_arg(text)?,
        (None, None) => return Err(SlotsError::Missing.into()),
    };
    let dice = super::pos_arg::roll_arg(a.dice.as_deref(), &state)?;
    let engine = engine_build::engine(spec)?;
    let settings = search_settings(spec, a.rank, a.threads);
    let cancel = Cancel::new();
    match dice {
        Some(dice) => {
            let hint = play_hint(&engine, &state, dice, &settings, &cancel);
            if a.json {
                println!("{}", hint.json());
            } else {
                hint.print(plies);
            }
        }
        None => {
            let hint = cube_hint(&engine, &state, &settings, &cancel)?;
            if a.json {
                println!("{}", hint.json());
            } else {
                hint.print(plies);
            }
        }
    }
    Ok(())
}

/// The search settings of `hint` by an engine built from `spec`: its depth, algorithm,
/// time budget and MCTS settings, the best `rank` plays valued at the full depth (at least
/// 1), `threads` search threads and every play's probabilities. The utility is the
/// decision's own: [`play_hint`] and [`cube_hint`] set it for the score and the cube.
pub fn search_settings(spec: &EngineSpec, rank: usize, threads: usize) -> SearchSettings {
    let mut settings = SearchSettings::new(spec.depth.get() as u8, spec.algorithm);
    settings.rank = rank.max(1);
    settings.threads = threads.max(1);
    settings.probabilities = true;
    settings.time_budget = spec.budget.duration();
    settings.mcts = spec.mcts;
    settings.prune = spec.prune;
    settings.rolls = spec.cube_lookahead.get().max(1);
    settings
}

/// The plays of a roll ranked by an engine, as `hint` shows them ([`play_hint`]).
#[derive(Debug, Clone)]
pub struct PlayHint {
    /// The state with the roll to play.
    pub state: MatchState,
    /// The search's answer: every legal play, in the search's order.
    pub decision: MoveDecision,
    /// Each play's value at the score (money equity or match-winning chance, cubeful or
    /// cubeless as the engine ranks plays) with its index in `decision.plays`, in the
    /// order shown: best first, plays searched deeper above shallower ones.
    pub valued: Vec<(f64, usize)>,
    /// The cube rules in force for the state.
    pub cube: CubeSettings,
    /// Whether the values are cubeful.
    pub cubeful: bool,
    pub algorithm: Algorithm,
}

/// Searches the plays of `dice` in `state` with `engine` (settings from
/// [`search_settings`]) and values each at the score.
pub fn play_hint(
    engine: &crate::engine::Engine,
    state: &MatchState,
    dice: Dice,
    settings: &SearchSettings,
    cancel: &Cancel,
) -> PlayHint {
    let moving = MatchState {
        decision: Decision::Move(dice),
        ..state.clone()
    };
    // The plays are searched for the value they are ranked by: cubeful leaves where the
    // engine ranks plays cubefully at a match score.
    let settings = SearchSettings {
        utility: engine.play_utility(&moving),
        ..settings.clone()
    };
    let d = engine
        .searcher()
        .choose(&state.position, dice, &settings, cancel);
    let ranked: Vec<PlayProbs> = d.plays.iter().map(PlayProbs::from).collect();
    // The engine's value at the score: cubeful (money equity with the cube where it is,
    // or match-winning chance) or cubeless.
    let mut valued: Vec<(f64, usize)> = engine
        .value_plays(&moving, ranked)
        .iter()
        .filter_map(|(rp, v)| {
            d.plays
                .iter()
                .position(|p| p.play.position == rp.play.position)
                .map(|i| (*v, i))
        })
        .collect();
    if settings.algorithm == Algorithm::Mcts {
        // MCTS chooses the most-visited play, which is what the engine plays: list the
        // plays in the search's order, each with its value.
        valued.sort_by_key(|&(_, i)| i);
    } else {
        // Best first by the value shown, plays searched deeper above shallower ones (the
        // search values only its best few at the full depth).
        valued.sort_by(|a, b| {
            d.plays[b.1]
                .depth
                .cmp(&d.plays[a.1].depth)
                .then(b.0.total_cmp(&a.0))
        });
    }
    PlayHint {
        cube: engine.rules_for(state),
        cubeful: engine.settings().cubeful_plays,
        algorithm: settings.algorithm,
        state: moving,
        decision: d,
        valued,
    }
}

impl PlayHint {
    /// Whether the roll has no legal play (the one empty play).
    pub fn no_legal_play(&self) -> bool {
        let plays = &self.decision.plays;
        plays.len() == 1 && plays[0].play.steps().is_empty()
    }

    fn best(&self) -> f64 {
        self.valued.first().map_or(0.0, |(v, _)| *v)
    }

    /// What `hint --json` prints for a roll.
    pub fn json(&self) -> serde_json::Value {
        let d = &self.decision;
        let pos = &self.state.position;
        let best = self.best();
        let plays: Vec<_> = self
            .valued
            .iter()
            .map(|&(v, i)| {
                let p = &d.plays[i];
                serde_json::json!({
                    "move": format_play(pos, &p.play, MoveStyle::Gnubg),
                    "equity": r6(p.equity),
                    "value": r6(v),
                    "diff": r6(v - best),
                    "probs": probs_json(&p.probs),
                    "depth": p.depth,
                    "plies": plies_of(p.depth as u32),
                    "search_rank": i,
                })
            })
            .collect();
        let (pid, mid) = crate::notation::encode_match_state(&self.state).unwrap_or_default();
        let dice = match self.state.decision {
            Decision::Move(d) => [d.high(), d.low()],
            _ => [0, 0],
        };
        serde_json::json!({
            "position_id": pid,
            "match_id": mid,
            "dice": dice,
            "plays": plays,
            "no_legal_play": self.no_legal_play(),
            "evaluation": if self.cubeful { "cubeful" } else { "cubeless" },
            "value_kind": if self.state.is_money() { "equity" } else { "mwc" },
            "depth": d.depth,
            "plies": plies_of(d.depth as u32),
            "algo": self.algorithm.name(),
            "jacoby": self.cube.jacoby,
            "beavers": self.cube.beavers,
            "ms": d.elapsed.as_secs_f64() * 1000.0,
            "nodes": d.stats.nodes(),
            "evaluations": d.stats.evals,
            "evals": d.stats.evals,
        })
    }

    fn print(&self, plies: u32) {
        let d = &self.decision;
        let pos = &self.state.position;
        let money = self.state.is_money();
        let best = self.best();
        print!("{}", header(&self.state));
        println!();
        if self.no_legal_play() {
            if let Decision::Move(dice) = self.state.decision {
                println!(
                    " No legal play: X cannot move with {}-{}; the turn passes.",
                    dice.high(),
                    dice.low()
                );
            }
            return;
        }
        let label = if self.cubeful { "Cubeful" } else { "Cubeless" };
        let unit = if money { "Eq.:" } else { "MWC:" };
        println!(
            " {label} {} at {plies}-ply (depth {}), {}{}; {} ms, {} evaluations",
            if money {
                "money equities"
            } else {
                "match-winning chances"
            },
            d.depth,
            self.algorithm,
            if money {
                format!(
                    "; Jacoby {}, beavers {}",
                    on_off(self.cube.jacoby),
                    on_off(self.cube.beavers)
                )
            } else {
                String::new()
            },
            d.elapsed.as_millis(),
            d.stats.evals
        );
        for (k, &(v, i)) in self.valued.iter().enumerate() {
            let p = &d.plays[i];
            let diff = if k == 0 {
                String::new()
            } else {
                format!(" {}", diff_text(money, v - best))
            };
            println!(
                " {:>4}. {label} {}-ply  {:<28} {unit} {}{diff}",
                k + 1,
                plies_of(p.depth as u32),
                format_play(pos, &p.play, MoveStyle::Gnubg),
                value_text(money, v),
            );
            println!("        {}", probs_text(&p.probs));
        }
    }
}

/// The cube decision of a position before its roll, as `hint` without dice shows it
/// ([`cube_hint`]).
#[derive(Debug, Clone)]
pub struct CubeHint {
    pub state: MatchState,
    /// The searched cubeless probabilities of the side about to roll (the doubler at a
    /// take question).
    pub evaluation: PositionEvaluation,
    pub analysis: CubeDecision,
    /// The answer for the acting side: "double", "no double", "take", "drop", "beaver".
    pub action: &'static str,
    /// Why the roller may not double (a code and a sentence), if so.
    pub blocked: Option<(&'static str, String)>,
    /// Cubeless value, take and cash points, costs of the wrong actions, market losers.
    pub detail: CubeDetail,
    /// The cube rules in force for the state.
    pub cube: CubeSettings,
}

/// Searches the probabilities of the side about to roll in `state` with `engine`
/// (settings from [`search_settings`]) and analyses the cube decision.
pub fn cube_hint(
    engine: &crate::engine::Engine,
    state: &MatchState,
    settings: &SearchSettings,
    cancel: &Cancel,
) -> Result<CubeHint, CliError> {
    if state.decision == Decision::GameOver {
        return Err("the game is over: nothing to decide".into());
    }
    let cube = engine.rules_for(state);
    // At a take question the doubler is the one about to roll: its position and its view
    // of the cube.
    let (roller, _) = crate::engine::roller(state);
    let view = crate::engine::roller_view(state);
    let settings = SearchSettings {
        utility: crate::engine::utility(&view),
        ..settings.clone()
    };
    let e = engine
        .searcher()
        .evaluate_position(&roller, &settings, cancel);
    let detail = cube_detail(engine, state, &e.probs, &e.rolls, cancel)?;
    let analysis = detail.analysis;
    let action = cube_action(state, &analysis, &cube);
    let blocked = crate::engine::no_cube_reason(state);
    Ok(CubeHint {
        state: state.clone(),
        evaluation: e,
        analysis,
        action,
        blocked,
        detail,
        cube,
    })
}

impl CubeHint {
    /// Whether the question is the taker's (the doubler is the one about to roll).
    fn taking(&self) -> bool {
        crate::engine::roller(&self.state).1
    }

    /// The taker's winning chance now.
    fn taker_wins(&self) -> f64 {
        1.0 - self.evaluation.probs.0[0] as f64
    }

    /// What `hint --json` prints without dice.
    pub fn json(&self) -> serde_json::Value {
        let (state, analysis, e, cube) =
            (&self.state, &self.analysis, &self.evaluation, &self.cube);
        let blocked = &self.blocked;
        let money = state.is_money();
        let proper = proper_action_text(state, analysis);
        let (pid, mid) = crate::notation::encode_match_state(state).unwrap_or_default();
        let mut equities = serde_json::json!({ "no_double": r6(analysis.no_double) });
        if blocked.is_none() {
            equities["double_take"] = serde_json::json!(r6(analysis.double_take));
            equities["double_pass"] = serde_json::json!(r6(analysis.double_pass));
            if let Some(b) = analysis.double_beaver {
                equities["double_beaver"] = serde_json::json!(r6(b));
            }
        }
        let mut cube_json = serde_json::json!({
            "action": self.action,
            "equities": equities,
            "evaluation": "cubeful",
            "value_kind": if money { "equity" } else { "mwc" },
            "proper": if blocked.is_some() { "no double".to_string() } else { analysis.action.to_string() },
            "proper_text": if blocked.is_some() { "No double".to_string() } else { proper },
            "response": analysis.response.to_string(),
            "efficiency": analysis.efficiency,
            "jacoby": cube.jacoby,
            "beavers": cube.beavers,
            "crawford": state.crawford,
            "cube_available": blocked.is_none(),
        });
        if let Some((code, why)) = blocked {
            cube_json["reason"] = serde_json::json!(code);
            cube_json["reason_text"] = serde_json::json!(why);
        }
        if let Some(fields) = cube_json.as_object_mut() {
            fields.extend(self.detail.json_fields());
        }
        serde_json::json!({
            "position_id": pid,
            "match_id": mid,
            "cube": cube_json,
            "evaluation": {
                "equity": r6(e.equity),
                "probs": probs_json(&e.probs),
                "depth": e.depth,
                "plies": plies_of(e.depth as u32),
                "cubeless": true,
                "roller": if self.taking() { "opponent" } else { "self" },
            },
            "ms": e.elapsed.as_secs_f64() * 1000.0,
        })
    }

    fn print(&self, plies: u32) {
        let (state, analysis, e, cube) =
            (&self.state, &self.analysis, &self.evaluation, &self.cube);
        let (action, taking) = (self.action, self.taking());
        let money = state.is_money();
        let proper = proper_action_text(state, analysis);
        let too_good = analysis.action == DoubleAction::TooGood;
        print!("{}", header(state));
        println!();
        println!(
            " Cube analysis at {plies}-ply (depth {}){}",
            e.depth,
            if money {
                format!(
                    "; money, Jacoby {}, beavers {}",
                    on_off(cube.jacoby),
                    on_off(cube.beavers)
                )
            } else {
                format!("; {}-point match", state.match_length)
            }
        );
        println!(
            " Cubeless equity of the {} {:+.3}{}:  {}",
            if taking { "doubler (O)" } else { "roller (X)" },
            e.equity,
            if money {
                String::new()
            } else {
                format!(
                    " (match-winning chance {})",
                    value_text(false, self.detail.cubeless)
                )
            },
            probs_text(&e.probs)
        );
        if let Some((_, why)) = &self.blocked {
            println!(" {why}.");
            println!(
                " Cubeful {}: {}",
                if money {
                    "equity"
                } else {
                    "match-winning chance"
                },
                value_text(money, analysis.no_double)
            );
            println!(" Proper cube action: No double");
            println!(" Decision: {action}");
            return;
        }
        println!(
            " Cubeful {} of the {}:",
            if money {
                "equities"
            } else {
                "match-winning chances"
            },
            if taking { "doubler" } else { "roller" }
        );
        let nd = analysis.no_double;
        let mut rows = vec![
            ("No double", nd),
            ("Double, take", analysis.double_take),
            ("Double, pass", analysis.double_pass),
        ];
        if let Some(b) = analysis.double_beaver {
            rows.push(("Double, beaver", b));
        }
        // The roller's best choice first, as gnubg lists them.
        let after_double = match analysis.response {
            TakeAction::Take => analysis.double_take,
            TakeAction::Drop => analysis.double_pass,
            TakeAction::Beaver => analysis.double_beaver.unwrap_or(analysis.double_take),
        };
        let best = nd.max(after_double);
        for (k, (name, v)) in rows.iter().enumerate() {
            let diff = if (v - best).abs() < 1e-12 {
                String::new()
            } else {
                format!("  {}", diff_text(money, v - best))
            };
            println!(" {}. {:<16} {}{diff}", k + 1, name, value_text(money, *v));
        }
        println!(" Proper cube action: {proper}");
        let re = if double_word(state) == "redouble" {
            "Redouble"
        } else {
            "Double"
        };
        if too_good {
            println!(
                " Too good: playing on is worth more than the opponent's pass{}.",
                if analysis.response == TakeAction::Take {
                    " (and the opponent should take)"
                } else {
                    ""
                }
            );
        }
        if let Some(c) = &self.detail.costs {
            let cost =
                |name: &str, v: f64| (v > 0.0).then(|| format!("{name} {}", loss_text(money, v)));
            let doubler: Vec<String> = [cost("No double", c.no_double), cost(re, c.double)]
                .into_iter()
                .flatten()
                .collect();
            let mut answers = vec![cost("Take", c.take), cost("Pass", c.pass)];
            answers.push(c.beaver.and_then(|b| cost("Beaver", b)));
            let taker: Vec<String> = answers.into_iter().flatten().collect();
            if !doubler.is_empty() {
                println!(" Wrong doubler action: {}", doubler.join(", "));
            }
            if !taker.is_empty() {
                println!(" Wrong taker actions: {}", taker.join(", "));
            }
        }
        if let Some(pt) = &self.detail.points {
            let (cash_dead, cash_live, cash) = pt.cash();
            let pc = |x: f64| format!("{:.1}%", x * 100.0);
            println!(
                " Take point: the taker needs {} and has {} (dead cube {}, live cube {})",
                pc(pt.take),
                pc(self.taker_wins()),
                pc(pt.take_dead),
                pc(pt.take_live)
            );
            println!(
                " Cash point: the doubler cashes from {} and has {} (dead cube {}, live cube {})",
                pc(cash),
                pc(1.0 - self.taker_wins()),
                pc(cash_dead),
                pc(cash_live)
            );
            if let Some(tg) = pt.too_good {
                println!(" Too good point: playing on beats the pass from {}", pc(tg));
            }
        }
        if let Some(m) = &self.detail.market {
            println!(
                " Market losers: after {:.1}% of the {} roll and the reply the opponent would pass (too good: {:.1}%; the game ends: {:.1}%)",
                m.pass * 100.0,
                if taking { "doubler's" } else { "roller's" },
                m.too_good * 100.0,
                m.game_over * 100.0
            );
        }
        println!(" Decision: {action}");
    }
}
