//! Flagged decisions rolled out: after an analysis at its depth, every counted decision
//! flagged at or above a skill ([`Skill::Doubtful`] by default) is settled by a cubeful
//! rollout, as gnubg's "rollout" of a flagged move does.
//!
//! - **Checker play**: the play made and the analysis's best play, rolled out cubefully
//!   on the same dice from the position after each (the opponent to roll with the cube as
//!   it was, free to double at once); the loss is the rolled-out best's value minus the
//!   played one's.
//! - **Cube decision and answer**: "no double" and "double, take" rolled out on the same
//!   dice, "double, pass" exact; the loss is that of the choice made against the proper
//!   one, as the analysis scores it.
//!
//! Values are in the rollout's units (money: points per unit of the cube now; match play:
//! match-winning chance) and losses in EMG, as everywhere in the analysis. The decision's
//! `best`, `equity_lost` and `skill` become the rollout's verdict; what the analysis at its
//! depth said stays beside it in [`DecisionRollout`], and the players' totals are summed
//! again.

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::{emg_scale, round6, summarise, Analysis, Choice, ReplayedGame, ScoredDecision, Skill};
use crate::game::{legal_plays, Dice, MatchState, Play};
use crate::notation::{format_play, MoveStyle};
use crate::rollout::{roller_state, Hooks, Rollout, RolloutError, RolloutSettings};

/// One choice of a rolled-out decision and its rolled-out value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RolledChoice {
    /// The play (gnubg notation) or the cube action ("no double", "double, take",
    /// "double, pass").
    pub choice: String,
    /// The value for the side deciding (or, at a take question, the doubler).
    pub value: f64,
    /// Its standard error (0 for "double, pass", which is exact).
    pub se: f64,
}

/// The rollout of one flagged decision.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecisionRollout {
    pub trials: u64,
    /// Stopped before all trials completed.
    pub partial: bool,
    /// "equity" (money, per unit of the cube now) or "mwc" (match-winning chance).
    pub value_kind: &'static str,
    /// Every choice rolled out: the plays best first; the cube's no double, double/take,
    /// double/pass.
    pub choices: Vec<RolledChoice>,
    /// The standard error of the rolled-out equity lost (EMG).
    pub equity_lost_se: f64,
    /// What the analysis at its depth said before the rollout.
    pub evaluated_best: String,
    pub evaluated_equity_lost: f64,
    pub evaluated_skill: Skill,
}

/// Which decisions are rolled out, and how.
#[derive(Debug, Clone, Copy)]
pub struct FlaggedRollout<'a> {
    pub rollout: &'a Rollout,
    pub settings: RolloutSettings,
    /// Counted decisions at or above this skill are rolled out.
    pub min_skill: Skill,
}

/// A rollout's verdict on one decision before it is written into the analysis.
struct Verdict {
    best: String,
    loss: f64,
    loss_se: f64,
    rollout: DecisionRollout,
}

impl FlaggedRollout<'_> {
    /// The decisions of `analysis` this rollout settles: (game, decision) indices.
    pub fn flagged(&self, analysis: &Analysis) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (g, game) in analysis.games.iter().enumerate() {
            for (i, d) in game.decisions.iter().enumerate() {
                if d.counted && d.skill != Skill::None && d.skill >= self.min_skill {
                    out.push((g, i));
                }
            }
        }
        out
    }

    /// Rolls out the flagged decisions of `analysis` (made by [`super::Analyser::analyse`]
    /// from `games`) one after another, each on the settings' threads, and writes the
    /// verdicts into it; `progress` is called after each. A raised `stop` ends the rollout
    /// under way early (its trials so far count, marked partial) and leaves the decisions
    /// after it as the analysis scored them. Returns how many decisions were rolled out.
    pub fn apply(
        &self,
        analysis: &mut Analysis,
        games: &[ReplayedGame],
        stop: &AtomicBool,
        progress: &(dyn Fn() + Sync),
    ) -> Result<usize, RolloutError> {
        let mut done = 0;
        for (g, i) in self.flagged(analysis) {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let (Some(replayed), Some(scored)) = (
                games.get(g).and_then(|game| game.decisions.get(i)),
                analysis
                    .games
                    .get_mut(g)
                    .and_then(|a| a.decisions.get_mut(i)),
            ) else {
                continue;
            };
            if replayed.move_no != scored.move_no {
                continue;
            }
            let hooks = Hooks {
                stop,
                progress: &|_| {},
            };
            let verdict = match &replayed.choice {
                Choice::Checker {
                    state, dice, play, ..
                } => self.checker(state, *dice, play, scored, hooks)?,
                Choice::Cube { state, doubled } => Some(self.cube(state, *doubled, scored, hooks)?),
                Choice::Response { state, took } => {
                    Some(self.response(state, *took, scored, hooks)?)
                }
            };
            if let Some(v) = verdict {
                scored.best = v.best;
                scored.equity_lost = round6(v.loss);
                scored.skill = Skill::of(v.loss);
                let mut r = v.rollout;
                r.equity_lost_se = round6(v.loss_se);
                scored.rollout = Some(r);
                done += 1;
            }
            progress();
        }
        let names = [0, 1].map(|k| {
            analysis
                .players
                .get(k)
                .map_or_else(|| format!("player {k}"), |p| p.name.clone())
        });
        analysis.players = summarise(&names, &analysis.games);
        Ok(done)
    }

    fn before(scored: &ScoredDecision, trials: u64, partial: bool, money: bool) -> DecisionRollout {
        DecisionRollout {
            trials,
            partial,
            value_kind: if money { "equity" } else { "mwc" },
            choices: Vec::new(),
            equity_lost_se: 0.0,
            evaluated_best: scored.best.clone(),
            evaluated_equity_lost: scored.equity_lost,
            evaluated_skill: scored.skill,
        }
    }

    /// The play made and the analysis's best, rolled out; `None` where the best cannot be
    /// found among the legal plays or is the play made.
    fn checker(
        &self,
        state: &MatchState,
        dice: Dice,
        played: &Play,
        scored: &ScoredDecision,
        hooks: Hooks<'_>,
    ) -> Result<Option<Verdict>, RolloutError> {
        let pos = state.position;
        let Some(best) = legal_plays(&pos, dice)
            .into_iter()
            .find(|p| format_play(&pos, p, MoveStyle::Gnubg) == scored.best)
        else {
            return Ok(None);
        };
        if best.position == played.position {
            return Ok(None);
        }
        let r = self
            .rollout
            .these_plays_cubeful(state, &[best, *played], &self.settings, hooks)?;
        let scale = emg_scale(state);
        let mut out = Self::before(scored, r.trials, r.partial, state.is_money());
        out.choices = r
            .plays
            .iter()
            .map(|p| RolledChoice {
                choice: format_play(&pos, &p.play, MoveStyle::Gnubg),
                value: round6(p.estimate.equity()),
                se: round6(p.estimate.equity_se()),
            })
            .collect();
        let mine = r.plays.iter().find(|p| p.play.position == played.position);
        let (loss, loss_se) = mine.map_or((0.0, 0.0), |p| {
            ((-p.diff * scale).max(0.0), p.diff_se * scale)
        });
        Ok(Some(Verdict {
            best: out
                .choices
                .first()
                .map_or_else(|| scored.best.clone(), |c| c.choice.clone()),
            loss,
            loss_se,
            rollout: out,
        }))
    }

    /// The cube decision of the roller of `state`: `doubled` or not.
    fn cube(
        &self,
        state: &MatchState,
        doubled: bool,
        scored: &ScoredDecision,
        hooks: Hooks<'_>,
    ) -> Result<Verdict, RolloutError> {
        let c = self.cube_values(state, scored, hooks)?;
        let double = c.double();
        let best_doubles = double > c.nd.value;
        let loss = if best_doubles == doubled {
            0.0
        } else {
            (double - c.nd.value).abs() * c.scale
        };
        Ok(Verdict {
            best: if best_doubles { "double" } else { "no double" }.into(),
            loss,
            loss_se: if best_doubles == doubled {
                0.0
            } else {
                c.double_se() * c.scale
            },
            rollout: c.report,
        })
    }

    /// The answer to a double, `state` from the taker's view: `took` or not.
    fn response(
        &self,
        state: &MatchState,
        took: bool,
        scored: &ScoredDecision,
        hooks: Hooks<'_>,
    ) -> Result<Verdict, RolloutError> {
        let c = self.cube_values(state, scored, hooks)?;
        // The doubler's values: the taker wants the smaller.
        let take_best = c.dt.value <= c.dp.value;
        let chosen = if took { &c.dt } else { &c.dp };
        let best = if take_best { &c.dt } else { &c.dp };
        let loss = ((chosen.value - best.value) * c.scale).max(0.0);
        Ok(Verdict {
            best: if take_best { "take" } else { "pass" }.into(),
            loss,
            loss_se: if took == take_best {
                0.0
            } else {
                c.dt.se * c.scale
            },
            rollout: c.report,
        })
    }

    /// A cube decision's three values rolled out, from the view of the side that doubles.
    fn cube_values(
        &self,
        state: &MatchState,
        scored: &ScoredDecision,
        hooks: Hooks<'_>,
    ) -> Result<CubeValues, RolloutError> {
        let roller = roller_state(state);
        let r = self.rollout.cube(state, &self.settings, hooks)?;
        let nd = Value {
            value: r.no_double.equity(),
            se: r.no_double.equity_se(),
        };
        let dt = r.double_take.as_ref().map_or(
            Value {
                value: r.decision.double_take,
                se: 0.0,
            },
            |e| Value {
                value: e.equity(),
                se: e.equity_se(),
            },
        );
        let dp = Value {
            value: r.double_pass,
            se: 0.0,
        };
        let mut report = Self::before(scored, r.trials, r.partial, roller.is_money());
        let mut choices = vec![
            ("no double", nd),
            ("double, take", dt),
            ("double, pass", dp),
        ];
        if r.double_take.is_none() {
            choices.truncate(1);
        }
        report.choices = choices
            .into_iter()
            .map(|(name, v)| RolledChoice {
                choice: name.into(),
                value: round6(v.value),
                se: round6(v.se),
            })
            .collect();
        Ok(CubeValues {
            nd,
            dt,
            dp,
            diff_se: r.diff_se,
            scale: emg_scale(&roller),
            report,
        })
    }
}

/// A rolled-out value and its standard error.
#[derive(Debug, Clone, Copy)]
struct Value {
    value: f64,
    se: f64,
}

struct CubeValues {
    nd: Value,
    dt: Value,
    dp: Value,
    /// The standard error of "double, take" minus "no double" (shared dice).
    diff_se: f64,
    scale: f64,
    report: DecisionRollout,
}

impl CubeValues {
    /// What doubling is worth to the doubler: the opponent's better answer.
    fn double(&self) -> f64 {
        self.dt.value.min(self.dp.value)
    }

    /// The standard error of doubling's value minus no double's: the shared dice's where
    /// the opponent takes, no double's alone where it passes (a pass is exact).
    fn double_se(&self) -> f64 {
        if self.dt.value <= self.dp.value {
            self.diff_se
        } else {
            self.nd.se
        }
    }
}
