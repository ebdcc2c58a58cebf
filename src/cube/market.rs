//! Where a cube decision's thresholds lie: the take, cash and too-good points of a double
//! at the score, and what each wrong cube action costs.

use super::*;

/// The value each cube choice gives up against the right one (0 for the right one): the
/// roller's two choices, then the taker's answers to a double. Money values are per unit
/// of the current cube, match values are match-winning chances.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActionCosts {
    pub no_double: f64,
    /// Doubling, the opponent answering rightly.
    pub double: f64,
    pub take: f64,
    pub pass: f64,
    /// Money play with beavers only.
    pub beaver: Option<f64>,
}

/// Where the cube decision's thresholds lie for a position with the gammon and backgammon
/// rates of its evaluation, at the score and cube level: the taker's take point (the least
/// winning chance with which taking is right), the doubler's cash point (the winning
/// chance from which the taker should pass: one minus the take point), each with the cube
/// dead after the take, fully live, and at the model's cube efficiency, and the doubler's
/// too-good point (from which playing on beats the pass).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarketPoints {
    /// The taker's take point in the taker's winning chance: dead cube, live cube, model.
    pub take_dead: f64,
    pub take_live: f64,
    pub take: f64,
    /// The doubler's winning chance from which playing on is worth more than the pass, at
    /// the model's efficiency; `None` where it never is (a centred money cube under the
    /// Jacoby rule).
    pub too_good: Option<f64>,
}

impl MarketPoints {
    /// The doubler's cash points (dead, live, model) in the doubler's winning chance.
    pub fn cash(&self) -> (f64, f64, f64) {
        (1.0 - self.take_dead, 1.0 - self.take_live, 1.0 - self.take)
    }
}

/// The conditional rates of `p`: gammons and backgammons per win, and per loss.
fn rates(p: &Probabilities) -> [f64; 4] {
    let w = (p.0[0] as f64).clamp(0.0, 1.0);
    let rate = |num: f32, den: f64| {
        if den > 1e-7 {
            (num as f64 / den).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let (wg, lg) = (rate(p.0[1], w), rate(p.0[3], 1.0 - w));
    [
        wg,
        rate(p.0[2], w).min(wg),
        lg,
        rate(p.0[4], 1.0 - w).min(lg),
    ]
}

/// Probabilities with winning chance `q` and the conditional rates `r` ([`rates`]).
fn at_chance(q: f64, r: &[f64; 4]) -> Probabilities {
    Probabilities([
        q as f32,
        (q * r[0]) as f32,
        (q * r[1]) as f32,
        ((1.0 - q) * r[2]) as f32,
        ((1.0 - q) * r[3]) as f32,
    ])
}

/// The winning chance in `[0, 1]` where `f`, negative below and positive above, changes
/// sign; `None` when it does not.
fn crossing(f: impl Fn(f64) -> f64) -> Option<f64> {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    if f(lo) > 0.0 || f(hi) <= 0.0 {
        return None;
    }
    for _ in 0..45 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The take, cash and too-good points of a double by the roller with probabilities `p`
/// ([`MarketPoints`]), at the model's efficiency `x`; `None` where the roller cannot
/// usefully double (the opponent's cube, the Crawford game, a cube already dead for it).
///
/// Money play: with `W` and `L` the roller's average win and loss in points (from the
/// gammon and backgammon rates), the taker risks `W - 1/2` cubes to gain `L + 1/2`, plus
/// the value of owning the cube, which Janowski's model gives as `x/2` of a cube at the
/// take point: the take point is `(W - 1/2) / (W + L + x/2)`; `x = 0` is the dead cube and
/// `x = 1` the fully live one (Janowski 1993; gnubg's market window gives the same two).
/// Match play: the same question in match-winning chances from the match equity table at
/// the score, for the cube after the take and the levels above it as the model values them.
pub fn market_points(
    p: &Probabilities,
    view: &CubeView,
    settings: &CubeSettings,
    x: f64,
) -> Option<MarketPoints> {
    if view.owner == CubeOwner::Opponent || view.crawford {
        return None;
    }
    let take_at = |eff: f64| -> Option<f64> {
        if view.is_money() {
            let (w, l) = win_loss_values(p);
            Some((w - 0.5) / (w + l + 0.5 * eff))
        } else {
            let score = MatchScore::new(view);
            let m = MatchModel::new(p, &score, eff);
            m.cash.first().copied().flatten().map(|c| 1.0 - c)
        }
    };
    let r = rates(p);
    let too_good = crossing(|q| {
        let d = analyse(&at_chance(q, &r), view, settings, x);
        d.no_double - d.double_pass
    });
    Some(MarketPoints {
        take_dead: take_at(0.0)?,
        take_live: take_at(1.0)?,
        take: take_at(x)?,
        too_good,
    })
}

/// The taker's take point: the least winning chance with which the side being doubled
/// should take, for a position with the gammon and backgammon rates of `p` (the roller's
/// probabilities) and the cube of `view`. Found by bisection on the roller's winning
/// chance, the rates held, where taking and passing are worth the same to the roller.
/// `None` when taking is right (or wrong) whatever the winning chances.
pub fn take_point(
    p: &Probabilities,
    view: &CubeView,
    settings: &CubeSettings,
    x: f64,
) -> Option<f64> {
    let r = rates(p);
    // Taking is better for the taker (worse for the roller) below the point.
    crossing(|q| {
        let d = analyse(&at_chance(q, &r), view, settings, x);
        d.double_take - d.double_pass
    })
    .map(|q| 1.0 - q)
}
