//! A cube decision in the terms analysts use in gnubg: cubeless and cubeful values, the
//! take and cash points at the score, the proper action with what each wrong one costs,
//! "too good", and the market losers (the sequences after which the opponent would no
//! longer take).
//!
//! The values come from [`crate::cube`] on the searched probabilities of the side about
//! to roll; the market losers from the engine's own evaluator, one play deep for each side:
//! for each of the roller's 21 rolls its best play, then for each of the opponent's 21
//! replies its best play, and the cube analysis of the position the roller then faces.

use super::{no_cube_reason, roller, roller_view, Engine, EngineError};
use crate::cube::{
    self, ActionCosts, CubeDecision, CubeView, DoubleAction, MarketPoints, TakeAction,
};
use crate::eval::Probabilities;
use crate::game::{legal_plays, CubeOwner, Dice, MatchState, Position, ALL_ROLLS};
use crate::search::{Cancel, RollChild};

/// How often the roller, not doubling now, would find the opponent passing its double at
/// its next turn: chances over the 1,296 sequences of its roll and the opponent's reply,
/// each side playing its best play by the evaluator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarketLosers {
    /// The opponent would pass a double then (market lost).
    pub pass: f64,
    /// Of those, the roller would then be too good to double.
    pub too_good: f64,
    /// The game ends within the two rolls.
    pub game_over: f64,
}

/// The whole cube decision from the roller's view (the doubler at a take question).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubeDetail {
    pub analysis: CubeDecision,
    /// The roller's winning chance.
    pub roller_wins: f64,
    /// The roller's cubeless value at the score: money equity (per unit of cube), or the
    /// match-winning chance with the cube where it is.
    pub cubeless: f64,
    /// Whether the roller may double (the opponent's cube, the Crawford game and a dead
    /// cube say no): the points, costs and market losers are given only then.
    pub available: bool,
    pub points: Option<MarketPoints>,
    pub costs: Option<ActionCosts>,
    pub market: Option<MarketLosers>,
}

/// The cube detail of `state` from the searched probabilities of the side about to roll
/// (the doubler at a take question) and the rolls the search kept below them, with the
/// analysis the engine gives them ([`Engine::cube_analysis_with`]).
pub fn cube_detail(
    engine: &Engine,
    state: &MatchState,
    roller_probs: &Probabilities,
    rolls: &[RollChild],
    cancel: &Cancel,
) -> Result<CubeDetail, EngineError> {
    let analysis = engine.cube_analysis_with(state, roller_probs, rolls);
    let (pos, _) = roller(state);
    let view = roller_view(state);
    let rules = engine.rules_for(state);
    let available = no_cube_reason(state).is_none();
    let (points, costs, market) = if available {
        (
            cube::market_points(roller_probs, &view, &rules, analysis.efficiency),
            Some(analysis.costs()),
            Some(market_losers(engine, state, &pos, &view, cancel)?),
        )
    } else {
        (None, None, None)
    };
    Ok(CubeDetail {
        analysis,
        roller_wins: roller_probs.0[0] as f64,
        cubeless: cube::cubeless_value(roller_probs, &view),
        available,
        points,
        costs,
        market,
    })
}

/// After the best play of `dice` in `pos` by the evaluator: the position (the other side
/// to act) and that side's probabilities, or `None` when the play ends the game.
fn best_reply(
    engine: &Engine,
    pos: &Position,
    dice: Dice,
    chances: &Option<([f64; 3], [f64; 3])>,
) -> Option<(Position, Probabilities)> {
    let plays = legal_plays(pos, dice);
    if plays.iter().any(|p| p.position.mover_result().is_some()) {
        return None;
    }
    let next: Vec<Position> = plays.iter().map(|p| p.next_position()).collect();
    let mut probs = vec![Probabilities::default(); next.len()];
    engine
        .searcher()
        .evaluator()
        .evaluate_batch(&next, &mut probs);
    // The mover's value of each play is its own view of the probabilities after it.
    let best = (0..next.len()).max_by(|&a, &b| {
        let va = crate::cube::value_at_score(&probs[a].invert(), chances.as_ref());
        let vb = crate::cube::value_at_score(&probs[b].invert(), chances.as_ref());
        va.total_cmp(&vb).then(b.cmp(&a))
    })?;
    Some((next[best], probs[best]))
}

/// The market losers of the roller in `pos` with the cube `view` ([`MarketLosers`]).
fn market_losers(
    engine: &Engine,
    state: &MatchState,
    pos: &Position,
    view: &CubeView,
    cancel: &Cancel,
) -> Result<MarketLosers, EngineError> {
    let rules = engine.rules_for(state);
    let mine = cube::result_chances(view);
    let theirs = cube::result_chances(&view.swap());
    let mut out = MarketLosers {
        pass: 0.0,
        too_good: 0.0,
        game_over: 0.0,
    };
    for first in ALL_ROLLS {
        if cancel.is_cancelled() {
            return Err(EngineError::Cancelled);
        }
        let p1 = first.probability();
        // A play that bears off the last checker ends the game: no next turn.
        let Some((after, _)) = best_reply(engine, pos, first, &mine) else {
            out.game_over += p1;
            continue;
        };
        for reply in ALL_ROLLS {
            let p = p1 * reply.probability();
            let Some((back, probs)) = best_reply(engine, &after, reply, &theirs) else {
                out.game_over += p;
                continue;
            };
            let d = cube::analyse(&probs, view, &rules, engine.efficiency(&back));
            if d.response == TakeAction::Drop {
                out.pass += p;
                if d.action == DoubleAction::TooGood {
                    out.too_good += p;
                }
            }
        }
    }
    Ok(out)
}

/// "double", or "redouble" once the cube has been turned (the acting side's state).
pub fn double_word(state: &MatchState) -> &'static str {
    if state.cube_owner == CubeOwner::Me || state.cube > 1 {
        "redouble"
    } else {
        "double"
    }
}

/// gnubg's words for the proper cube action: "No double, take", "Double, pass", "Too good
/// to redouble, pass", ...
pub fn proper_action_text(state: &MatchState, d: &CubeDecision) -> String {
    let re = double_word(state);
    let answer = match d.response {
        TakeAction::Take => "take",
        TakeAction::Drop => "pass",
        TakeAction::Beaver => "beaver",
    };
    match d.action {
        DoubleAction::NoDouble => format!("No {re}, {answer}"),
        DoubleAction::TooGood => format!("Too good to {re}, {answer}"),
        _ => {
            let mut t = format!("{re}, {answer}");
            t[..1].make_ascii_uppercase();
            t
        }
    }
}

/// Rounded to six decimals, as every report writes values.
pub fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

impl CubeDetail {
    /// The detail's fields of a cube answer's JSON (`hint --json`, `/v1/cube`, Python's
    /// `Engine.cube`): `cubeless`, `too_good`, and where the roller may double
    /// `take_point`, `cash_point`, `too_good_point`, `take_points` and `cash_points`
    /// (`dead`, `live`, `model`), `taker_wins`, `doubler_wins`, `costs` and
    /// `market_losers`.
    pub fn json_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        use serde_json::json;
        let mut m = serde_json::Map::new();
        m.insert("cubeless".into(), json!(r6(self.cubeless)));
        m.insert(
            "too_good".into(),
            json!(self.available && self.analysis.action == DoubleAction::TooGood),
        );
        if let Some(pt) = &self.points {
            let (cash_dead, cash_live, cash) = pt.cash();
            m.insert("take_point".into(), json!(r6(pt.take)));
            m.insert("cash_point".into(), json!(r6(cash)));
            m.insert("too_good_point".into(), json!(pt.too_good.map(r6)));
            m.insert(
                "take_points".into(),
                json!({ "dead": r6(pt.take_dead), "live": r6(pt.take_live), "model": r6(pt.take) }),
            );
            m.insert(
                "cash_points".into(),
                json!({ "dead": r6(cash_dead), "live": r6(cash_live), "model": r6(cash) }),
            );
            m.insert("taker_wins".into(), json!(r6(1.0 - self.roller_wins)));
            m.insert("doubler_wins".into(), json!(r6(self.roller_wins)));
        }
        if let Some(c) = &self.costs {
            let mut costs = json!({
                "no_double": r6(c.no_double),
                "double": r6(c.double),
                "take": r6(c.take),
                "pass": r6(c.pass),
            });
            if let Some(b) = c.beaver {
                costs["beaver"] = json!(r6(b));
            }
            m.insert("costs".into(), costs);
        }
        if let Some(ml) = &self.market {
            m.insert(
                "market_losers".into(),
                json!({
                    "pass": r6(ml.pass),
                    "too_good": r6(ml.too_good),
                    "game_over": r6(ml.game_over),
                }),
            );
        }
        m
    }
}
