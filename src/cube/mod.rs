//! The doubling cube: cubeful values from cubeless probabilities, and the double/take
//! decisions that follow from them.
//!
//! Evaluators give cubeless probabilities (win, gammons, backgammons). The cube's worth is
//! estimated with Rick Janowski's cube-efficiency model ("Take-points in money games", 1993):
//! the cubeful value is a mix `x * live + (1 - x) * dead`, where *dead* is the cubeless value
//! and *live* is the value if the cube were used perfectly (turned exactly at the opponent's
//! take point), which is piecewise linear in the winning chance. `x` (0..1) is the cube
//! efficiency: about 0.68 in contact positions, more in long races, less in short ones.
//!
//! - **Money**: Janowski's closed forms. With W and L the average values of a win and a loss,
//!   the live-cube take point is `(L - 1/2) / (W + L + 1/2)` and the cash point
//!   `(L + 1) / (W + L + 1/2)`. Jacoby (gammons do not count with a centred cube) and beavers
//!   are settings; FIBS boards do not carry them and they must match the opponent's rules,
//!   but where a position's text states them (an XGID's rules field, a Match ID's Jacoby
//!   bit) the stated rules hold ([`CubeSettings::under`]).
//! - **Match**: the same model in match-winning chances (MWC) using the Kazaross-XG2 table
//!   ([`met`]). Take and cash points are computed level by level from the highest useful cube
//!   down, so dead cubes (a cube level at which winning already wins the match), free drops,
//!   Crawford and post-Crawford games and gammon values at the score all follow from the
//!   table instead of being special cases.
//!
//! Everything here is from the view of the side that would double (the side about to roll);
//! the engine turns a take question around before asking.

pub mod met;

use std::fmt;

use crate::eval::Probabilities;
use crate::game::{CubeOwner, Phase, Rules};

/// How the cube is valued and which optional rules are in force.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubeSettings {
    /// Janowski cube efficiency in contact positions.
    pub efficiency_contact: f64,
    /// Race efficiency: `race_base + race_per_pip * pips` (the roller's pip count), clamped
    /// to `[race_min, race_max]`; longer races leave more time to use the cube.
    pub race_base: f64,
    pub race_per_pip: f64,
    pub race_min: f64,
    pub race_max: f64,
    /// Money play: gammons count only once the cube has been turned.
    pub jacoby: bool,
    /// Money play: a side that is doubled may beaver (redouble at once, keeping the cube).
    pub beavers: bool,
}

impl Default for CubeSettings {
    fn default() -> Self {
        CubeSettings {
            efficiency_contact: 0.68,
            race_base: 0.55,
            race_per_pip: 0.00125,
            race_min: 0.6,
            race_max: 0.7,
            // gnubg's money defaults, so that a bot set up with no rules plays gnubg's.
            jacoby: true,
            beavers: true,
        }
    }
}

impl CubeSettings {
    /// These settings under the rules a position's text states: a stated Jacoby rule or
    /// beaver rule holds over the configured one.
    pub fn under(self, rules: Rules) -> CubeSettings {
        CubeSettings {
            jacoby: rules.jacoby.unwrap_or(self.jacoby),
            beavers: rules.beavers.unwrap_or(self.beavers),
            ..self
        }
    }

    /// The cube efficiency for a position of this phase with `pips` for the roller.
    pub fn efficiency(&self, phase: Phase, pips: u32) -> f64 {
        match phase {
            Phase::Contact => self.efficiency_contact,
            Phase::Race => (self.race_base + self.race_per_pip * pips as f64)
                .clamp(self.race_min, self.race_max),
        }
    }
}

/// The cube situation from the view of the side about to roll (the potential doubler).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CubeView {
    /// Current cube value.
    pub cube: u32,
    /// Owner relative to the roller.
    pub owner: CubeOwner,
    /// 0 for money play.
    pub match_length: u32,
    /// Points the roller needs (match play).
    pub away: u32,
    /// Points the opponent needs (match play).
    pub opp_away: u32,
    /// This is the Crawford game (no doubling at all).
    pub crawford: bool,
    /// The Crawford game has been played.
    pub post_crawford: bool,
}

impl CubeView {
    /// Money play with the given cube.
    pub fn money(cube: u32, owner: CubeOwner) -> CubeView {
        CubeView {
            cube,
            owner,
            match_length: 0,
            away: 0,
            opp_away: 0,
            crawford: false,
            post_crawford: false,
        }
    }

    /// The same cube seen by the other side.
    pub fn swap(&self) -> CubeView {
        CubeView {
            owner: self.owner.swap(),
            away: self.opp_away,
            opp_away: self.away,
            ..*self
        }
    }

    pub fn is_money(&self) -> bool {
        self.match_length == 0
    }
}

/// What the roller should do with the cube.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DoubleAction {
    NoDouble,
    /// Double; the opponent should take.
    DoubleTake,
    /// Double; the opponent should drop.
    DoublePass,
    /// Double; the opponent should beaver (money play with beavers).
    DoubleBeaver,
    /// Playing on (for a gammon) is worth more than a double the opponent passes; the
    /// opponent's answer to a double is in [`CubeDecision::response`].
    TooGood,
}

impl DoubleAction {
    /// True when the roller should turn the cube.
    pub fn doubles(self) -> bool {
        matches!(
            self,
            DoubleAction::DoubleTake | DoubleAction::DoublePass | DoubleAction::DoubleBeaver
        )
    }
}

/// The right answer to a double.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TakeAction {
    Take,
    Drop,
    Beaver,
}

impl fmt::Display for DoubleAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DoubleAction::NoDouble => "no double",
            DoubleAction::DoubleTake => "double, take",
            DoubleAction::DoublePass => "double, pass",
            DoubleAction::DoubleBeaver => "double, beaver",
            DoubleAction::TooGood => "too good to double",
        })
    }
}

impl fmt::Display for TakeAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TakeAction::Take => "take",
            TakeAction::Drop => "drop",
            TakeAction::Beaver => "beaver",
        })
    }
}

/// A full cube analysis from the roller's view. Money values are equities per unit of the
/// *current* cube; match values are match-winning chances.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubeDecision {
    pub no_double: f64,
    pub double_take: f64,
    pub double_pass: f64,
    /// The roller's value if the opponent beavers (money with beavers only).
    pub double_beaver: Option<f64>,
    pub action: DoubleAction,
    /// The opponent's right answer if the roller doubles.
    pub response: TakeAction,
    /// The cube efficiency used.
    pub efficiency: f64,
}

/// Values within this margin count as equal, so a double that gains nothing is not made.
const EPS: f64 = 1e-9;

fn lerp(q: f64, (q0, v0): (f64, f64), (q1, v1): (f64, f64)) -> f64 {
    if q1 - q0 <= EPS {
        return v1;
    }
    v0 + (v1 - v0) * (q - q0) / (q1 - q0)
}

/// Piecewise-linear interpolation through points sorted by `q`.
fn through(q: f64, pts: &[(f64, f64)]) -> f64 {
    for w in pts.windows(2) {
        if q <= w[1].0 {
            return lerp(q, w[0], w[1]);
        }
    }
    pts.last().map(|p| p.1).unwrap_or(0.0)
}

/// Average value of a win and of a loss in points (W, L) for the side with `p`.
fn win_loss_values(p: &Probabilities) -> (f64, f64) {
    let w = p.0[0] as f64;
    let w_val = if w > 1e-7 {
        1.0 + (p.0[1] as f64 + p.0[2] as f64) / w
    } else {
        1.0
    };
    let l_val = if w < 1.0 - 1e-7 {
        1.0 + (p.0[3] as f64 + p.0[4] as f64) / (1.0 - w)
    } else {
        1.0
    };
    (w_val, l_val)
}

/// Money play: cubeful equity per unit of cube for the roller with probabilities `p`,
/// cube `owner` relative to the roller, efficiency `x`.
pub fn money_equity(p: &Probabilities, owner: CubeOwner, x: f64, jacoby: bool) -> f64 {
    let q = (p.0[0] as f64).clamp(0.0, 1.0);
    let (w, l) = win_loss_values(p);
    // Jacoby: with a centred cube a game ends as a single game unless the cube is turned.
    let jacoby_now = jacoby && owner == CubeOwner::Centered;
    let dead = if jacoby_now {
        2.0 * q - 1.0
    } else {
        p.equity() as f64
    };
    let take_point = (l - 0.5) / (w + l + 0.5);
    let cash_point = (l + 1.0) / (w + l + 0.5);
    let low = if jacoby_now { -1.0 } else { -l };
    let high = if jacoby_now { 1.0 } else { w };
    let live = match owner {
        CubeOwner::Centered => through(
            q,
            &[
                (0.0, low),
                (take_point, -1.0),
                (cash_point, 1.0),
                (1.0, high),
            ],
        ),
        CubeOwner::Me => through(q, &[(0.0, -l), (cash_point, 1.0), (1.0, w)]),
        CubeOwner::Opponent => through(q, &[(0.0, -l), (take_point, -1.0), (1.0, w)]),
    };
    (1.0 - x) * dead + x * live
}

/// The most cube levels a [`MatchModel`] holds: `levels` stops at 13 (12 doublings above
/// the current cube and the dead level on top).
const LEVELS: usize = 14;

/// What the match cube model takes from the score and the cube alone: how many levels
/// it has and, per level, the roller's match-winning chances after winning or losing once,
/// twice and three times the level's cube. Built once for a view ([`MatchScore::new`]), so
/// a search that values many leaves at one score reads the match equity table once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchScore {
    away: i64,
    opp_away: i64,
    crawford: bool,
    /// Whether a 1-away score reached at the end of this game means post-Crawford.
    crawford_done: bool,
    base: u32,
    /// The levels: `levels` of them, the top one dead for both sides.
    levels: usize,
    /// Per level k (cube `base << k`), k up to `levels`: the roller's match-winning chance
    /// after winning (`win[k][j]`) or losing (`lose[k][j]`) j + 1 times the level's cube.
    win: [[f64; 3]; LEVELS],
    lose: [[f64; 3]; LEVELS],
}

impl MatchScore {
    /// The table of a match view (its cube, score and Crawford state; the owner aside).
    pub fn new(view: &CubeView) -> MatchScore {
        let mut s = MatchScore {
            away: view.away as i64,
            opp_away: view.opp_away as i64,
            crawford: view.crawford,
            crawford_done: view.crawford || view.post_crawford,
            base: view.cube.max(1),
            levels: 0,
            win: [[0.0; 3]; LEVELS],
            lose: [[0.0; 3]; LEVELS],
        };
        let mut k = 0;
        while k < 12 && (s.live_for_me(s.level_cube(k)) || s.live_for_opp(s.level_cube(k))) {
            k += 1;
        }
        s.levels = k + 1;
        for k in 0..=s.levels.min(LEVELS - 1) {
            let w = s.level_cube(k);
            for (j, mult) in [1i64, 2, 3].into_iter().enumerate() {
                s.win[k][j] = s.win_points(w * mult);
                s.lose[k][j] = s.lose_points(w * mult);
            }
        }
        s
    }

    fn level_cube(&self, k: usize) -> i64 {
        (self.base as i64) << k
    }

    fn mwc_after(&self, my_gain: i64, opp_gain: i64) -> f64 {
        met::mwc(
            self.away - my_gain,
            self.opp_away - opp_gain,
            self.crawford_done,
        )
    }

    /// Roller's MWC if it wins / loses `w` points straight (a dropped cube).
    fn win_points(&self, w: i64) -> f64 {
        self.mwc_after(w, 0)
    }
    fn lose_points(&self, w: i64) -> f64 {
        self.mwc_after(0, w)
    }

    /// Doubling from cube `w` can gain the roller something: it does not already win the
    /// match with `w` points, and this is not the Crawford game.
    fn live_for_me(&self, w: i64) -> bool {
        !self.crawford && self.away > w
    }
    fn live_for_opp(&self, w: i64) -> bool {
        !self.crawford && self.opp_away > w
    }
}

/// Match play: the cube levels above the current one and their take/cash points.
///
/// Everything but the winning chance is fixed when it is built (the score and the cube,
/// from a [`MatchScore`], and the shares of gammons and backgammons), so each level's
/// average values of a win and a loss are computed once there, and the mixed value at a
/// winning chance costs a few multiplications (the take and cash points are found on it
/// level by level, each by interpolation on the linear stretch that crosses:
/// [`MatchModel::solve`]).
struct MatchModel<'a> {
    s: &'a MatchScore,
    /// Conditional outcome shares given a win: (single, gammon, backgammon); same for losses.
    win_split: [f64; 3],
    loss_split: [f64; 3],
    x: f64,
    /// Per level k, k up to `levels`: the roller's average match-winning chance after a
    /// win and after a loss ([`MatchModel::averages`]).
    average: [(f64, f64); LEVELS],
    /// Per level k: the roller's cash point and take point (in the roller's winning
    /// chance), where the cube is live for that side; `None` past the built levels.
    cash: [Option<f64>; LEVELS],
    take: [Option<f64>; LEVELS],
}

impl<'a> MatchModel<'a> {
    fn new(p: &Probabilities, s: &'a MatchScore, x: f64) -> MatchModel<'a> {
        let q = p.0[0] as f64;
        let split = |total: f64, g: f64, bg: f64| -> [f64; 3] {
            if total <= 1e-9 {
                return [1.0, 0.0, 0.0];
            }
            let g = g.clamp(0.0, total);
            let bg = bg.clamp(0.0, g);
            [(total - g) / total, (g - bg) / total, bg / total]
        };
        let mut m = MatchModel {
            s,
            win_split: split(q, p.0[1] as f64, p.0[2] as f64),
            loss_split: split(1.0 - q, p.0[3] as f64, p.0[4] as f64),
            x,
            average: [(0.0, 0.0); LEVELS],
            cash: [None; LEVELS],
            take: [None; LEVELS],
        };
        m.build();
        m
    }

    /// Average MWC of a win and of a loss at level `k`'s cube.
    fn averages(&self, k: usize) -> (f64, f64) {
        let (won, lost) = if k < LEVELS && k <= self.s.levels {
            (self.s.win[k], self.s.lose[k])
        } else {
            let w = self.s.level_cube(k);
            (
                [1, 2, 3].map(|m| self.s.win_points(w * m)),
                [1, 2, 3].map(|m| self.s.lose_points(w * m)),
            )
        };
        let mut win = 0.0;
        let mut loss = 0.0;
        for i in 0..3 {
            win += self.win_split[i] * won[i];
            loss += self.loss_split[i] * lost[i];
        }
        (win, loss)
    }

    /// Level k's averages and its straight win and loss, from the tables where built.
    fn level(&self, k: usize) -> ((f64, f64), f64, f64) {
        if k <= self.s.levels && k < LEVELS {
            return (self.average[k], self.s.win[k][0], self.s.lose[k][0]);
        }
        let w = self.s.level_cube(k);
        (
            self.averages(k),
            self.s.win_points(w),
            self.s.lose_points(w),
        )
    }

    fn build(&mut self) {
        let s = self.s;
        let n = s.levels;
        for k in 0..=n.min(LEVELS - 1) {
            self.average[k] = self.averages(k);
        }
        // The top level is dead for both sides: leave its points empty. Work downwards.
        for k in (0..n.saturating_sub(1)).rev() {
            let w = s.level_cube(k);
            if s.live_for_me(w) {
                // The opponent, doubled to 2w and then owning the cube, is indifferent
                // between taking and giving up w points.
                self.cash[k] = Some(self.solve(k + 1, CubeOwner::Opponent, s.win[k][0]));
            }
            if s.live_for_opp(w) {
                self.take[k] = Some(self.solve(k + 1, CubeOwner::Me, s.lose[k][0]));
            }
        }
    }

    /// The winning chance at which the mixed value at level `k` with `owner` equals
    /// `target` (0 or 1 when it never crosses). The mixed value is linear in the winning
    /// chance between the level's take and cash points and increasing, so the first
    /// stretch between them (or 0 and 1) that reaches `target` holds the crossing, found by
    /// interpolation: the point a bisection converges to, within rounding
    /// (`tests.rs` compares the two). The mixed value is taken only at the curve's points,
    /// where the live value is the point's own, so a crossing costs one division.
    fn solve(&self, k: usize, owner: CubeOwner, target: f64) -> f64 {
        let ((win, loss), bends) = self.curve(k, owner);
        let x = self.x;
        // The mixed value at one of the curve's points, less `target`: there the live value
        // is the point's own and the dead value lies on the line from a loss to a win.
        let at = |q: f64, live: f64| x * live + (1.0 - x) * (q * win + (1.0 - q) * loss) - target;
        let (mut a, mut fa) = (0.0, at(0.0, loss));
        if fa >= 0.0 {
            return 0.0;
        }
        for (b, live) in bends.into_iter().flatten() {
            if b <= a || b > 1.0 {
                continue;
            }
            let fb = at(b, live);
            if fb >= 0.0 {
                return if fb - fa <= 0.0 {
                    b
                } else {
                    (a + (b - a) * (-fa / (fb - fa))).clamp(a, b)
                };
            }
            (a, fa) = (b, fb);
        }
        1.0
    }

    /// The take and cash points the mixed value at level `k` bends at for `owner` (the
    /// cash point no lower than the take point when both are live).
    fn points(&self, k: usize, owner: CubeOwner) -> (Option<f64>, Option<f64>) {
        let take = if owner != CubeOwner::Me {
            self.take.get(k).copied().flatten()
        } else {
            None
        };
        let cash = if owner != CubeOwner::Opponent {
            self.cash.get(k).copied().flatten()
        } else {
            None
        };
        match (take, cash) {
            (Some(t), Some(c)) => (Some(t), Some(c.max(t))),
            other => other,
        }
    }

    /// Janowski mix at level `k` for winning chance `q`.
    fn mixed(&self, k: usize, owner: CubeOwner, q: f64) -> f64 {
        let ((win, loss), bends) = self.curve(k, owner);
        let dead = q * win + (1.0 - q) * loss;
        // The live value runs through a loss at 0, the bends, and a win at 1.
        let mut prev = (0.0, loss);
        let mut live = None;
        for p in bends.into_iter().flatten() {
            if q <= p.0 {
                live = Some(lerp(q, prev, p));
                break;
            }
            prev = p;
        }
        let live = live.unwrap_or(prev.1);
        self.x * live + (1.0 - self.x) * dead
    }

    /// Level `k`'s average values of a win and of a loss, and the points after the loss at
    /// 0 that its live value for `owner` runs through: the take point, the cash point (each
    /// where live) and the win at 1.
    #[inline]
    fn curve(&self, k: usize, owner: CubeOwner) -> ((f64, f64), Bends) {
        let ((win, loss), won, lost) = self.level(k);
        let (take, cash) = self.points(k, owner);
        (
            (win, loss),
            [
                take.map(|t| (t, lost)),
                cash.map(|c| (c, won)),
                Some((1.0, win)),
            ],
        )
    }
}

/// The points of a level's live value after the loss at 0, each `(winning chance, value)`:
/// the take point and the cash point where live, then the win at 1.
type Bends = [Option<(f64, f64)>; 3];

/// The roller's cubeful value: money equity per unit of the current cube, or MWC in a match.
pub fn cubeful_value(p: &Probabilities, view: &CubeView, settings: &CubeSettings, x: f64) -> f64 {
    CubefulValue::new(*view, *settings).value(p, x)
}

/// [`cubeful_value`] at one view of the cube, for any probabilities: in a match the match
/// equity table's values for the view are read once ([`MatchScore`]), so a caller that
/// values many positions at one cube and score (a decision's plays, a search's leaves)
/// builds one of these and asks it each time.
#[derive(Debug, Clone, PartialEq)]
pub struct CubefulValue {
    view: CubeView,
    /// The view's table in a match; `None` in money play.
    score: Option<MatchScore>,
    settings: CubeSettings,
}

impl CubefulValue {
    pub fn new(view: CubeView, settings: CubeSettings) -> CubefulValue {
        CubefulValue {
            view,
            score: (!view.is_money()).then(|| MatchScore::new(&view)),
            settings,
        }
    }

    /// How the cube is valued (its efficiencies and money rules).
    pub fn settings(&self) -> &CubeSettings {
        &self.settings
    }

    /// The roller's cubeful value with probabilities `p` and efficiency `x`.
    pub fn value(&self, p: &Probabilities, x: f64) -> f64 {
        match &self.score {
            None => money_equity(p, self.view.owner, x, self.settings.jacoby),
            Some(score) => match_cubeful_value(p, score, self.view.owner, x),
        }
    }

    /// The roller's cubeless value with probabilities `p` ([`cubeless_value`]).
    pub fn cubeless(&self, p: &Probabilities) -> f64 {
        match &self.score {
            None => p.equity() as f64,
            Some(score) => match_cubeful_value(p, score, self.view.owner, 0.0),
        }
    }
}

/// [`cubeful_value`] in a match, at the score and cube of `score` (built once for a view),
/// the cube owned by `owner` (relative to the roller).
fn match_cubeful_value(p: &Probabilities, score: &MatchScore, owner: CubeOwner, x: f64) -> f64 {
    MatchModel::new(p, score, x).mixed(0, owner, p.0[0] as f64)
}

/// The cubeless value of a side with probabilities `p`: its money equity, or, given its
/// match-winning chances after each result (`chances`, as [`result_chances`] gives them),
/// its match-winning chance if the game ended as `p` says.
pub fn value_at_score(p: &Probabilities, chances: Option<&([f64; 3], [f64; 3])>) -> f64 {
    let Some((win, lose)) = chances else {
        return p.equity() as f64;
    };
    let q = p.0.map(f64::from);
    let (w, wg, wbg, lg, lbg) = (q[0], q[1], q[2], q[3], q[4]);
    (w - wg) * win[0]
        + (wg - wbg) * win[1]
        + wbg * win[2]
        + (1.0 - w - lg) * lose[0]
        + (lg - lbg) * lose[1]
        + lbg * lose[2]
}

/// The roller's match-winning chances after it wins (`.0[k]`) or loses (`.1[k]`) a single
/// game (k = 0), a gammon (1) or a backgammon (2) with the cube where it is; `None` in
/// money play.
pub fn result_chances(view: &CubeView) -> Option<([f64; 3], [f64; 3])> {
    if view.is_money() {
        return None;
    }
    let done = view.crawford || view.post_crawford;
    let cube = view.cube.max(1) as i64;
    let (away, opp_away) = (view.away as i64, view.opp_away as i64);
    Some((
        [1, 2, 3].map(|k| met::mwc(away - k * cube, opp_away, done)),
        [1, 2, 3].map(|k| met::mwc(away, opp_away - k * cube, done)),
    ))
}

/// Cubeless value: money equity per unit of cube, or MWC with the cube left where it is.
pub fn cubeless_value(p: &Probabilities, view: &CubeView) -> f64 {
    CubefulValue::new(*view, CubeSettings::default()).cubeless(p)
}

/// Double or not, and how the opponent should answer, for the roller with probabilities
/// `p` (before rolling) and efficiency `x`. A roller without cube access gets `NoDouble`.
pub fn analyse(
    p: &Probabilities,
    view: &CubeView,
    settings: &CubeSettings,
    x: f64,
) -> CubeDecision {
    let (no_double, double_take, double_pass, beaver) = if view.is_money() {
        let nd = money_equity(p, view.owner, x, settings.jacoby);
        let dt = 2.0 * money_equity(p, CubeOwner::Opponent, x, false);
        let beaver = settings.beavers.then_some(2.0 * dt);
        (nd, dt, 1.0, beaver)
    } else {
        let score = MatchScore::new(view);
        let m = MatchModel::new(p, &score, x);
        let q = p.0[0] as f64;
        let nd = m.mixed(0, view.owner, q);
        // Levels beyond the built ones are dead cubes, which `mixed` values as such.
        let dt = m.mixed(1, CubeOwner::Opponent, q);
        let dp = score.win[0][0];
        (nd, dt, dp, None)
    };
    decide(no_double, double_take, double_pass, beaver, view, x)
}

/// One roll of the roller for [`analyse_rolls`].
#[derive(Debug, Clone, PartialEq)]
pub struct RollValue {
    /// The dice outcomes (of 36) the roll is.
    pub weight: f64,
    /// The opponent's probabilities after the roller's play for the roll, the opponent
    /// about to roll.
    pub probs: Probabilities,
    /// The cube efficiency there, for the opponent.
    pub x: f64,
    /// The opponent's own rolls from there, when the search kept them: the opponent's
    /// cube choice there is then made on them (one roll deeper), not by the model.
    pub rolls: Vec<RollValue>,
}

/// [`analyse`] a roll or two deeper: the value of not doubling and of doubling with a
/// take is the mean, over the roller's rolls, of the opponent's value after the roller's
/// play, the opponent to roll with the cube where that choice leaves it. Where a roll
/// keeps the opponent's rolls below it, the opponent chooses there between rolling on and
/// doubling (the roller then taking or passing, whichever is worth more to it) on their
/// values in the same way; elsewhere the model values the position
/// ([`cubeful_value`]). A roll that lets the opponent cash, or that loses the roller's
/// market, is valued as such instead of being averaged away before the model sees it, as
/// gnubg values the cube at its deeper plies. `x` is recorded as the efficiency (the
/// roller's). `None` when `rolls` weigh nothing.
pub fn analyse_rolls(
    rolls: &[RollValue],
    view: &CubeView,
    settings: &CubeSettings,
    x: f64,
) -> Option<CubeDecision> {
    let (no_double, double_take, double_pass) = roll_choices(rolls, view, settings)?;
    let beaver = (view.is_money() && settings.beavers).then_some(2.0 * double_take);
    Some(decide(no_double, double_take, double_pass, beaver, view, x))
}

/// The roller's values of no double, double/take and double/pass (as [`analyse`] gives
/// them) from its `rolls`; `None` when they weigh nothing.
fn roll_choices(
    rolls: &[RollValue],
    view: &CubeView,
    settings: &CubeSettings,
) -> Option<(f64, f64, f64)> {
    let total: f64 = rolls.iter().map(|r| r.weight).sum();
    if total <= 0.0 {
        return None;
    }
    // The opponent's mean value after the rolls, the cube as `after` (the roller's view)
    // leaves it. The model's values at one view share its table.
    let opponent = |after: &CubeView| -> f64 {
        let theirs = after.swap();
        let model = CubefulValue::new(theirs, *settings);
        rolls
            .iter()
            .map(|r| {
                let v = match roll_choices(&r.rolls, &theirs, settings) {
                    None => model.value(&r.probs, r.x),
                    Some((nd, dt, dp)) if may_double(&theirs) => nd.max(dt.min(dp)),
                    Some((nd, _, _)) => nd,
                };
                r.weight * v
            })
            .sum::<f64>()
            / total
    };
    let doubled = CubeView {
        cube: view.cube.max(1) * 2,
        owner: CubeOwner::Opponent,
        ..*view
    };
    Some(if view.is_money() {
        // Per unit of the current cube: the doubled cube's equities count twice.
        (-opponent(view), -2.0 * opponent(&doubled), 1.0)
    } else {
        let done = view.crawford || view.post_crawford;
        let dp = met::mwc(
            view.away as i64 - view.cube.max(1) as i64,
            view.opp_away as i64,
            done,
        );
        (1.0 - opponent(view), 1.0 - opponent(&doubled), dp)
    })
}

/// Whether the roller of `view` may turn the cube (as [`decide`] has it).
fn may_double(view: &CubeView) -> bool {
    view.owner != CubeOwner::Opponent && !view.crawford
}

/// The decision that follows from the roller's values of its choices (from a model, as
/// [`analyse`] gives them, or from rollouts): no double, double with the opponent taking,
/// passing, or beavering (`beaver`: money play with beavers only); `x` is recorded as the
/// efficiency used.
pub fn decide(
    no_double: f64,
    double_take: f64,
    double_pass: f64,
    beaver: Option<f64>,
    view: &CubeView,
    x: f64,
) -> CubeDecision {
    // The opponent answers to minimise the roller's value.
    let response = match beaver {
        Some(b) if double_take < -EPS && b < double_pass => TakeAction::Beaver,
        _ if double_take <= double_pass + EPS => TakeAction::Take,
        _ => TakeAction::Drop,
    };
    let after_double = match response {
        TakeAction::Beaver => beaver.unwrap_or(double_take),
        TakeAction::Take => double_take,
        TakeAction::Drop => double_pass,
    };
    let action = if !may_double(view) {
        DoubleAction::NoDouble
    } else if after_double > no_double + EPS {
        match response {
            TakeAction::Take => DoubleAction::DoubleTake,
            TakeAction::Drop => DoubleAction::DoublePass,
            TakeAction::Beaver => DoubleAction::DoubleBeaver,
        }
    } else if no_double >= double_pass {
        // Playing on is worth more than even the opponent's pass: too good, whatever the
        // opponent should answer (usually a pass; a take where passing loses as much).
        DoubleAction::TooGood
    } else {
        DoubleAction::NoDouble
    };
    CubeDecision {
        no_double,
        double_take,
        double_pass,
        double_beaver: beaver,
        action,
        response,
        efficiency: x,
    }
}

impl CubeDecision {
    /// The roller's value once it has doubled and the opponent has answered rightly.
    pub fn after_double(&self) -> f64 {
        match self.response {
            TakeAction::Take => self.double_take,
            TakeAction::Drop => self.double_pass,
            TakeAction::Beaver => self.double_beaver.unwrap_or(self.double_take),
        }
    }

    /// The roller's value after its right choice (no double, or double with the
    /// opponent's right answer).
    pub fn optimal(&self) -> f64 {
        self.no_double.max(self.after_double())
    }

    /// What each choice of the two sides costs against the right one, in the units of the
    /// values (money equity per unit of the current cube, or match-winning chance).
    pub fn costs(&self) -> ActionCosts {
        let after = self.after_double();
        let best = self.optimal();
        // The taker answers to make the roller's value least.
        let answers = [
            Some(self.double_take),
            Some(self.double_pass),
            self.double_beaver,
        ];
        let taker_best = answers
            .iter()
            .flatten()
            .fold(f64::INFINITY, |a, &b| a.min(b));
        let lost = |x: f64| if x < EPS { 0.0 } else { x };
        ActionCosts {
            no_double: lost(best - self.no_double),
            double: lost(best - after),
            take: lost(self.double_take - taker_best),
            pass: lost(self.double_pass - taker_best),
            beaver: self.double_beaver.map(|b| lost(b - taker_best)),
        }
    }
}

mod market;

pub use market::{market_points, take_point, ActionCosts, MarketPoints};

#[cfg(test)]
mod tests;
