//! Match analysis: every checker play and cube decision of a match file scored by the
//! engine, as gnubg's `analyse match` does.
//!
//! What is measured, per decision (all in normalised equity, EMG: money equity per unit
//! of the current cube, or in a match the change of match-winning chance scaled so that
//! winning the cube's value is +1 and losing it is -1, as gnubg's `mwc2eq`):
//! - **Checker play**: the engine's best play against the play made. Both are valued at
//!   the analysis depth from the searched (cubeless) probabilities after the play, turned
//!   into a *cubeful* value at the score by the engine's cube model
//!   ([`crate::cube::cubeful_value`]: money equity with the cube where it is, or the
//!   match-winning chance from the match equity table). The search itself ranks plays
//!   by cubeless money equity; when the play made is worth more than the search's best
//!   after the cube model, nothing is lost. A roll with one legal play is *forced*: never
//!   an error, and not counted among the decisions.
//! - **Cube decision**: before each roll where the roller had access to the cube: the
//!   engine's double / no double against what the player did; the value of doubling is
//!   the opponent's better answer (take or pass).
//! - **Response**: take or pass against the engine's answer.
//! - **Luck**: the value of the roll (the best play of that roll at depth 1, cubeful)
//!   minus the average over the 21 rolls (the 15 non-doubles for an opening roll).
//!
//! Skill thresholds are gnubg 1.07's defaults (`show analysis`): an error of more than
//! 0.03 EMG is doubtful, more than 0.06 an error, more than 0.12 a blunder. The rating
//! is gnubg's scale on the error rate per decision.

pub mod replay;
pub mod rollout;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::Serialize;

use crate::cube::met;
use crate::engine::{cube_view, utility, Engine, PlayProbs};
use crate::eval::Probabilities;
use crate::game::{legal_plays, Decision, Dice, MatchState, Play, ALL_ROLLS};
use crate::notation::{format_play, position_id, MoveStyle, Xgid};
use crate::search::Cancel;

pub use replay::{replay, Choice, ReplayError, Replayed, ReplayedGame};
pub use rollout::{DecisionRollout, FlaggedRollout, RolledChoice};

/// gnubg's default thresholds (EMG).
pub const DOUBTFUL: f64 = 0.03;
pub const ERROR: f64 = 0.06;
pub const BLUNDER: f64 = 0.12;

/// gnubg's rating scale: the label of an error rate per decision (EMG), from the upper
/// bounds of each band.
pub fn rating(rate_emg: f64) -> &'static str {
    const SCALE: [(f64, &str); 7] = [
        (0.002, "Supernatural"),
        (0.005, "World class"),
        (0.008, "Expert"),
        (0.012, "Advanced"),
        (0.018, "Intermediate"),
        (0.026, "Casual player"),
        (0.035, "Beginner"),
    ];
    SCALE
        .iter()
        .find(|(bound, _)| rate_emg < *bound)
        .map(|(_, name)| *name)
        .unwrap_or("Awful!")
}

/// How bad one decision was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Skill {
    None,
    Doubtful,
    Error,
    Blunder,
}

impl Skill {
    pub fn of(loss: f64) -> Skill {
        if loss > BLUNDER {
            Skill::Blunder
        } else if loss > ERROR {
            Skill::Error
        } else if loss > DOUBTFUL {
            Skill::Doubtful
        } else {
            Skill::None
        }
    }

    /// The flag's name, as JSON writes it.
    pub fn word(self) -> &'static str {
        match self {
            Skill::None => "none",
            Skill::Doubtful => "doubtful",
            Skill::Error => "error",
            Skill::Blunder => "blunder",
        }
    }

    /// gnubg's marks.
    pub fn mark(self) -> &'static str {
        match self {
            Skill::None => "",
            Skill::Doubtful => "?!",
            Skill::Error => "?",
            Skill::Blunder => "??",
        }
    }
}

/// One scored decision.
#[derive(Debug, Clone, Serialize)]
pub struct ScoredDecision {
    pub move_no: usize,
    pub player: String,
    #[serde(skip)]
    pub seat: usize,
    /// "checker" or "cube" (double/no double and take/pass).
    pub kind: &'static str,
    pub played: String,
    pub best: String,
    /// Normalised equity lost (EMG), never negative.
    pub equity_lost: f64,
    pub skill: Skill,
    /// Counted among the player's decisions (unforced plays, and cube decisions that
    /// were doubles, answers, or close to a double).
    pub counted: bool,
    /// A checker play with one legal play.
    pub forced: bool,
    /// Luck of the roll (checker plays only), EMG.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub luck: Option<f64>,
    /// The dice of a checker play.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dice: Option<[u8; 2]>,
    /// gnubg Position ID of the position decided in, from the acting side's view.
    pub position_id: String,
    /// The XGID of the whole state decided in: position, cube, score, the dice of a
    /// checker play (paste it into `stargammon hint`, gnubg or XG to look again).
    pub xgid: String,
    /// The rollout that settled this decision (`analyse --rollout`); `best`,
    /// `equity_lost` and `skill` are then the rollout's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rollout: Option<rollout::DecisionRollout>,
}

/// One analysed game.
#[derive(Debug, Clone, Serialize)]
pub struct GameAnalysis {
    pub score: [u32; 2],
    pub decisions: Vec<ScoredDecision>,
}

/// One player's totals.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerSummary {
    pub name: String,
    /// Counted decisions (unforced plays and counted cube decisions).
    pub decisions: usize,
    /// Millipoints (EMG x 1000) lost per counted decision.
    pub error_mppg: f64,
    /// Decisions with more than 0.06 lost, blunders excluded.
    pub errors: usize,
    /// Decisions with more than 0.12 lost.
    pub blunders: usize,
    pub doubtful: usize,
    /// Total luck (EMG) of the player's rolls.
    pub luck: f64,
    pub rating: &'static str,
    /// gnubg's "Snowie error rate": the player's total error (EMG x 1000) divided by all
    /// checker moves of both players, forced and unplayable ones included.
    pub snowie_error_rate: f64,
    /// Total error, EMG.
    pub total_error: f64,
    pub checker_decisions: usize,
    pub cube_decisions: usize,
    pub checker_error_mppg: f64,
    pub cube_error_mppg: f64,
    /// Every checker move the player made, forced ones included.
    pub moves: usize,
}

/// A whole analysis.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    pub players: Vec<PlayerSummary>,
    pub games: Vec<GameAnalysis>,
}

/// A decision's value scale: how many EMG one unit of the engine's value is worth.
fn emg_scale(state: &MatchState) -> f64 {
    if state.is_money() {
        return 1.0;
    }
    let done = state.crawford || state.post_crawford;
    let c = state.cube as i64;
    let win = met::mwc(state.away() as i64 - c, state.opp_away() as i64, done);
    let lose = 1.0 - met::mwc(state.opp_away() as i64 - c, state.away() as i64, done);
    let spread = win - lose;
    if spread > 1e-9 {
        2.0 / spread
    } else {
        0.0
    }
}

/// Scores decisions with one engine (the analysis depth) and a depth-1 engine for luck.
#[derive(Debug)]
pub struct Analyser<'a> {
    pub engine: &'a Engine,
    /// Depth of checker plays and cube decisions (odd).
    pub depth: u32,
    /// Depth-1 engine for the luck of each roll.
    pub luck_engine: &'a Engine,
}

/// What one worker computes for a decision.
struct Scored {
    played: String,
    best: String,
    loss: f64,
    counted: bool,
    forced: bool,
    luck: Option<f64>,
}

impl Analyser<'_> {
    /// Value of each play (mover's view, engine units) at the analysis depth, best
    /// first by that value; `extra` is always valued.
    fn checker(
        &self,
        state: &MatchState,
        dice: Dice,
        play: &Play,
        legal: usize,
        cancel: &Cancel,
    ) -> Scored {
        let pos = state.position;
        let played_text = format_play(&pos, play, MoveStyle::Gnubg);
        if legal <= 1 {
            return Scored {
                best: played_text.clone(),
                played: played_text,
                loss: 0.0,
                counted: false,
                forced: true,
                luck: None,
            };
        }
        let candidates: Vec<PlayProbs> = if self.depth <= 1 {
            self.engine
                .rank_plays(&pos, dice, 1, cancel)
                .unwrap_or_default()
        } else {
            let mut settings = self.engine.plan().settings(self.depth);
            settings.probabilities = true;
            settings.rank = 1;
            settings.utility = self.engine.play_utility(state);
            let d = self.engine.searcher().choose(&pos, dice, &settings, cancel);
            let mut v: Vec<PlayProbs> = d.plays.iter().take(1).map(PlayProbs::from).collect();
            if !v.iter().any(|r| r.play.position == play.position) {
                v.push(PlayProbs {
                    play: *play,
                    probs: self.after_play(state, play, cancel),
                });
            }
            v
        };
        let valued = self.engine.value_plays(state, candidates);
        let best = valued
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(rp, v)| (rp.play, *v));
        let mine = valued
            .iter()
            .find(|(rp, _)| rp.play.position == play.position)
            .map(|(_, v)| *v);
        let (best_play, best_v) = best.unwrap_or((*play, 0.0));
        let loss = match mine {
            Some(v) => ((best_v - v) * emg_scale(state)).max(0.0),
            None => 0.0,
        };
        Scored {
            played: played_text,
            best: format_play(&pos, &best_play, MoveStyle::Gnubg),
            loss,
            counted: true,
            forced: false,
            luck: None,
        }
    }

    /// Probabilities for the mover of `state` after `play`, at the analysis depth (the
    /// opponent's replies chosen for the opponent's score).
    fn after_play(&self, state: &MatchState, play: &Play, cancel: &Cancel) -> Probabilities {
        if let Some(r) = play.position.mover_result() {
            return Probabilities::from_result(r, true);
        }
        let next = play.next_position();
        let opponent = self.engine.play_utility_for(state, cube_view(state).swap());
        self.engine
            .probabilities_for(&next, self.depth, opponent, cancel)
            .map(|p| p.invert())
            .unwrap_or_else(|_| Probabilities::from_result(crate::game::GameResult::Single, true))
    }

    /// Luck of `dice` for the roller of `state` (EMG).
    fn luck(&self, state: &MatchState, dice: Dice, opening: bool, cancel: &Cancel) -> f64 {
        let pos = state.position;
        let scale = emg_scale(state);
        let value_of = |d: Dice| -> f64 {
            let mut s = state.clone();
            s.decision = Decision::Move(d);
            let plays = self
                .luck_engine
                .rank_plays(&pos, d, 1, cancel)
                .unwrap_or_default();
            let plays = if plays.is_empty() {
                legal_plays(&pos, d)
                    .into_iter()
                    .map(|p| PlayProbs {
                        play: p,
                        probs: self.static_after(&p),
                    })
                    .collect()
            } else {
                plays
            };
            self.luck_engine
                .value_plays(&s, plays)
                .iter()
                .map(|(_, v)| *v)
                .fold(f64::NEG_INFINITY, f64::max)
        };
        let mut sum = 0.0;
        let mut weight = 0.0;
        for &d in ALL_ROLLS.iter() {
            if opening && d.is_double() {
                continue;
            }
            let w = if opening { 1.0 } else { d.weight() as f64 };
            sum += w * value_of(d);
            weight += w;
        }
        (value_of(dice) - sum / weight) * scale
    }

    fn static_after(&self, play: &Play) -> Probabilities {
        if let Some(r) = play.position.mover_result() {
            return Probabilities::from_result(r, true);
        }
        self.luck_engine
            .searcher()
            .evaluator()
            .evaluate(&play.next_position())
            .invert()
    }

    /// A cube decision: `doubled` or not, for the roller of `state`.
    fn cube(&self, state: &MatchState, doubled: bool, cancel: &Cancel) -> Scored {
        let e = self
            .engine
            .evaluation_for(
                &state.position,
                self.depth,
                utility(&cube_view(state)),
                cancel,
            )
            .ok();
        let (probs, rolls) = e.map(|e| (e.probs, e.rolls)).unwrap_or_default();
        let d = self.engine.cube_analysis_with(state, &probs, &rolls);
        let double_value = d.double_take.min(d.double_pass);
        let optimal = d.no_double.max(double_value);
        let scale = emg_scale(state);
        let chosen = if doubled { double_value } else { d.no_double };
        let loss = ((optimal - chosen) * scale).max(0.0);
        let best_doubles = double_value > d.no_double;
        // Close: doubling costs less than a blunder's worth.
        let close = (d.no_double - double_value) * scale < 0.16;
        Scored {
            played: if doubled { "double" } else { "no double" }.into(),
            best: if best_doubles { "double" } else { "no double" }.into(),
            loss,
            counted: doubled || best_doubles || close,
            forced: false,
            luck: None,
        }
    }

    /// An answer to a double: `took` or not; `state` from the taker's view.
    fn response(&self, state: &MatchState, took: bool, cancel: &Cancel) -> Scored {
        let doubler = state.position.swap();
        let e = self
            .engine
            .evaluation_for(
                &doubler,
                self.depth,
                utility(&cube_view(state).swap()),
                cancel,
            )
            .ok();
        let (probs, rolls) = e.map(|e| (e.probs, e.rolls)).unwrap_or_default();
        let d = self.engine.cube_analysis_with(state, &probs, &rolls);
        // Values are the doubler's: the taker wants the smaller.
        let mut doubler_view = state.clone();
        doubler_view.position = doubler;
        doubler_view.decision = Decision::DoubleOrRoll;
        std::mem::swap(&mut doubler_view.score, &mut doubler_view.opp_score);
        let scale = emg_scale(&doubler_view);
        let chosen = if took { d.double_take } else { d.double_pass };
        let best = d.double_take.min(d.double_pass);
        let take_best = d.double_take <= d.double_pass;
        Scored {
            played: if took { "take" } else { "pass" }.into(),
            best: if take_best { "take" } else { "pass" }.into(),
            loss: ((chosen - best) * scale).max(0.0),
            counted: true,
            forced: false,
            luck: None,
        }
    }

    fn score(&self, r: &Replayed, cancel: &Cancel) -> Scored {
        match &r.choice {
            Choice::Checker {
                state,
                dice,
                play,
                legal,
                opening,
            } => {
                let mut s = self.checker(state, *dice, play, *legal, cancel);
                s.luck = Some(self.luck(state, *dice, *opening, cancel));
                s
            }
            Choice::Cube { state, doubled } => self.cube(state, *doubled, cancel),
            Choice::Response { state, took } => self.response(state, *took, cancel),
        }
    }

    /// Scores every decision of `games` on `threads` threads; `progress` is called once
    /// per decision scored (from any thread).
    pub fn analyse(
        &self,
        games: &[ReplayedGame],
        threads: usize,
        progress: &(dyn Fn() + Sync),
    ) -> Analysis {
        self.analyse_until(games, threads, progress, &Cancel::new())
    }

    /// [`Analyser::analyse`] that stops early when `stop` is raised: the searches under
    /// way stop, and the analysis has the decisions scored before it was.
    pub fn analyse_until(
        &self,
        games: &[ReplayedGame],
        threads: usize,
        progress: &(dyn Fn() + Sync),
        stop: &Cancel,
    ) -> Analysis {
        let all: Vec<(usize, &Replayed)> = games
            .iter()
            .enumerate()
            .flat_map(|(g, game)| game.decisions.iter().map(move |d| (g, d)))
            .collect();
        let results: Mutex<Vec<Option<Scored>>> =
            Mutex::new((0..all.len()).map(|_| None).collect());
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| loop {
                    if stop.is_cancelled() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((_, r)) = all.get(i) else { break };
                    let s = self.score(r, stop);
                    // A search cut short gives no score.
                    if stop.is_cancelled() {
                        break;
                    }
                    if let Ok(mut v) = results.lock() {
                        v[i] = Some(s);
                    }
                    progress();
                });
            }
        });
        let results = results.into_inner().unwrap_or_default();
        let names = games
            .first()
            .map(|g| g.names.clone())
            .unwrap_or_else(|| ["player 0".into(), "player 1".into()]);
        let mut out: Vec<GameAnalysis> = games
            .iter()
            .map(|g| GameAnalysis {
                score: g.score,
                decisions: Vec::new(),
            })
            .collect();
        for ((g, r), s) in all.iter().zip(results) {
            let Some(s) = s else { continue };
            let (kind, dice, state) = match &r.choice {
                Choice::Checker { dice, state, .. } => {
                    ("checker", Some([dice.high(), dice.low()]), state)
                }
                Choice::Cube { state, .. } | Choice::Response { state, .. } => {
                    ("cube", None, state)
                }
            };
            out[*g].decisions.push(ScoredDecision {
                move_no: r.move_no,
                player: games[*g].names[r.seat].clone(),
                seat: r.seat,
                kind,
                played: s.played,
                best: s.best,
                equity_lost: round6(s.loss),
                skill: Skill::of(s.loss),
                counted: s.counted,
                forced: s.forced,
                luck: s.luck.map(round6),
                dice,
                position_id: position_id(&state.position),
                xgid: Xgid::from_match_state(state).to_string(),
                rollout: None,
            });
        }
        let players = summarise(&names, &out);
        Analysis {
            players,
            games: out,
        }
    }
}

use crate::engine::cube_detail::r6 as round6;

/// Per-player totals of scored games.
pub fn summarise(names: &[String; 2], games: &[GameAnalysis]) -> Vec<PlayerSummary> {
    let all_moves = games
        .iter()
        .flat_map(|g| &g.decisions)
        .filter(|d| d.kind == "checker")
        .count();
    (0..2)
        .map(|seat| {
            let mine: Vec<&ScoredDecision> = games
                .iter()
                .flat_map(|g| &g.decisions)
                .filter(|d| d.seat == seat)
                .collect();
            let counted: Vec<&&ScoredDecision> = mine.iter().filter(|d| d.counted).collect();
            let total: f64 = mine.iter().map(|d| d.equity_lost).sum();
            let sum_of = |kind: &str| -> (usize, f64) {
                let ds: Vec<_> = counted.iter().filter(|d| d.kind == kind).collect();
                (ds.len(), ds.iter().map(|d| d.equity_lost).sum())
            };
            let (nc, ec) = sum_of("checker");
            let (nk, ek) = sum_of("cube");
            let per = |e: f64, n: usize| if n > 0 { 1000.0 * e / n as f64 } else { 0.0 };
            let rate = if counted.is_empty() {
                0.0
            } else {
                total / counted.len() as f64
            };
            PlayerSummary {
                name: names[seat].clone(),
                decisions: counted.len(),
                error_mppg: round6(per(total, counted.len())),
                errors: mine.iter().filter(|d| d.skill == Skill::Error).count(),
                blunders: mine.iter().filter(|d| d.skill == Skill::Blunder).count(),
                doubtful: mine.iter().filter(|d| d.skill == Skill::Doubtful).count(),
                luck: round6(mine.iter().filter_map(|d| d.luck).sum()),
                rating: if counted.is_empty() {
                    "Undefined"
                } else {
                    rating(rate)
                },
                snowie_error_rate: round6(per(total, all_moves)),
                total_error: round6(total),
                checker_decisions: nc,
                cube_decisions: nk,
                checker_error_mppg: round6(per(ec, nc)),
                cube_error_mppg: round6(per(ek, nk)),
                moves: mine.iter().filter(|d| d.kind == "checker").count(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratings_follow_gnubgs_scale() {
        assert_eq!(rating(0.0), "Supernatural");
        assert_eq!(rating(0.004), "World class");
        assert_eq!(rating(0.010), "Advanced");
        assert_eq!(rating(0.030), "Beginner");
        assert_eq!(rating(0.2), "Awful!");
    }

    #[test]
    fn skills_use_gnubgs_default_thresholds() {
        assert_eq!(Skill::of(0.03), Skill::None);
        assert_eq!(Skill::of(0.031), Skill::Doubtful);
        assert_eq!(Skill::of(0.07), Skill::Error);
        assert_eq!(Skill::of(0.121), Skill::Blunder);
    }
}
