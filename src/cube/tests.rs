//! Unit tests of the parent module.

use super::*;

fn gammonless(w: f32) -> Probabilities {
    Probabilities([w, 0.0, 0.0, 0.0, 0.0])
}

fn money(owner: CubeOwner) -> CubeView {
    CubeView::money(1, owner)
}

/// Both money rules off: the tests turn them on where they are about them.
fn settings() -> CubeSettings {
    CubeSettings {
        jacoby: false,
        beavers: false,
        ..CubeSettings::default()
    }
}

#[test]
fn the_default_money_rules_are_gnubgs() {
    let d = CubeSettings::default();
    assert!(d.jacoby && d.beavers);
}

#[test]
fn money_dead_cube_take_point_is_25_percent() {
    // Doubler at 74%: the taker has 26% and takes; at 76% the taker drops.
    let d = analyse(
        &gammonless(0.74),
        &money(CubeOwner::Centered),
        &settings(),
        0.0,
    );
    assert_eq!(d.response, TakeAction::Take);
    let d = analyse(
        &gammonless(0.76),
        &money(CubeOwner::Centered),
        &settings(),
        0.0,
    );
    assert_eq!(d.response, TakeAction::Drop);
    assert!((d.double_take - 1.04).abs() < 1e-6);
}

#[test]
fn money_live_cube_take_point_is_20_percent() {
    let d = analyse(
        &gammonless(0.79),
        &money(CubeOwner::Centered),
        &settings(),
        1.0,
    );
    assert_eq!(d.response, TakeAction::Take);
    let d = analyse(
        &gammonless(0.81),
        &money(CubeOwner::Centered),
        &settings(),
        1.0,
    );
    assert_eq!(d.response, TakeAction::Drop);
}

#[test]
#[allow(clippy::unwrap_used)]
fn take_points_found_by_bisection_match_the_closed_forms() {
    let dead = take_point(
        &gammonless(0.6),
        &money(CubeOwner::Centered),
        &settings(),
        0.0,
    )
    .unwrap();
    assert!((dead - 0.25).abs() < 1e-4, "{dead}");
    let x = 0.68;
    let tp = take_point(
        &gammonless(0.6),
        &money(CubeOwner::Centered),
        &settings(),
        x,
    )
    .unwrap();
    assert!((tp - 0.5 / (2.0 + 0.5 * x)).abs() < 1e-4, "{tp}");
}

#[test]
fn money_janowski_take_point_at_two_thirds_efficiency() {
    // Gammonless: TP = (1 - 1/2) / (2 + x/2): 0.2155 at x = 0.68.
    let x = 0.68;
    let tp = 0.5 / (2.0 + 0.5 * x);
    let below = analyse(
        &gammonless((1.0 - tp + 0.003) as f32),
        &money(CubeOwner::Centered),
        &settings(),
        x,
    );
    let above = analyse(
        &gammonless((1.0 - tp - 0.003) as f32),
        &money(CubeOwner::Centered),
        &settings(),
        x,
    );
    assert_eq!(below.response, TakeAction::Drop);
    assert_eq!(above.response, TakeAction::Take);
}

#[test]
fn money_no_double_when_even() {
    let d = analyse(
        &gammonless(0.5),
        &money(CubeOwner::Centered),
        &settings(),
        0.68,
    );
    assert_eq!(d.action, DoubleAction::NoDouble);
}

#[test]
fn money_double_take_and_double_pass() {
    let d = analyse(
        &gammonless(0.74),
        &money(CubeOwner::Centered),
        &settings(),
        0.68,
    );
    assert_eq!(d.action, DoubleAction::DoubleTake);
    let d = analyse(
        &gammonless(0.85),
        &money(CubeOwner::Centered),
        &settings(),
        0.68,
    );
    assert_eq!(d.action, DoubleAction::DoublePass);
}

#[test]
fn money_too_good_to_double_with_big_gammon_chances() {
    let p = Probabilities([0.92, 0.6, 0.05, 0.0, 0.0]);
    let d = analyse(&p, &money(CubeOwner::Centered), &settings(), 0.68);
    assert_eq!(d.action, DoubleAction::TooGood);
    assert!(d.no_double > 1.0);
    // Under the Jacoby rule gammons do not count with a centred cube: cash instead.
    let jacoby = CubeSettings {
        jacoby: true,
        ..settings()
    };
    let d = analyse(&p, &money(CubeOwner::Centered), &jacoby, 0.68);
    assert_eq!(d.action, DoubleAction::DoublePass);
}

#[test]
fn money_beaver_when_the_doubler_is_the_underdog() {
    let beavers = CubeSettings {
        beavers: true,
        ..settings()
    };
    let d = analyse(
        &gammonless(0.4),
        &money(CubeOwner::Centered),
        &beavers,
        0.68,
    );
    assert_eq!(d.response, TakeAction::Beaver);
    assert_eq!(d.action, DoubleAction::NoDouble);
    let d = analyse(
        &gammonless(0.4),
        &money(CubeOwner::Centered),
        &settings(),
        0.68,
    );
    assert_eq!(d.response, TakeAction::Take);
}

#[test]
fn owned_cube_is_worth_more_than_centred_and_unavailable_less() {
    let p = Probabilities([0.6, 0.15, 0.01, 0.1, 0.005]);
    let me = money_equity(&p, CubeOwner::Me, 0.68, false);
    let c = money_equity(&p, CubeOwner::Centered, 0.68, false);
    let opp = money_equity(&p, CubeOwner::Opponent, 0.68, false);
    assert!(me > c && c > opp, "{me} {c} {opp}");
    // With x = 0 every cube position is the cubeless equity.
    assert!((money_equity(&p, CubeOwner::Me, 0.0, false) - p.equity() as f64).abs() < 1e-6);
}

#[test]
fn opponent_owned_cube_cannot_be_doubled() {
    let d = analyse(
        &gammonless(0.9),
        &money(CubeOwner::Opponent),
        &settings(),
        0.68,
    );
    assert_eq!(d.action, DoubleAction::NoDouble);
}

fn view(away: u32, opp_away: u32, cube: u32, owner: CubeOwner) -> CubeView {
    CubeView {
        cube,
        owner,
        match_length: 11,
        away,
        opp_away,
        crawford: false,
        post_crawford: false,
    }
}

#[test]
fn dmp_has_no_doubling_value() {
    for w in [0.3f32, 0.5, 0.7, 0.95] {
        let mut v = view(1, 1, 1, CubeOwner::Centered);
        v.post_crawford = true;
        let d = analyse(&gammonless(w), &v, &settings(), 0.68);
        assert_eq!(d.action, DoubleAction::NoDouble, "{w}");
        assert!((d.no_double - w as f64).abs() < 1e-6);
        assert!((d.double_take - w as f64).abs() < 1e-6);
    }
}

#[test]
fn crawford_game_has_no_cube() {
    let mut v = view(1, 3, 1, CubeOwner::Centered);
    v.crawford = true;
    let d = analyse(&gammonless(0.3), &v, &settings(), 0.68);
    assert_eq!(d.action, DoubleAction::NoDouble);
    let d = analyse(&gammonless(0.3), &v.swap(), &settings(), 0.68);
    assert_eq!(d.action, DoubleAction::NoDouble);
}

#[test]
fn post_crawford_trailer_doubles_and_leader_takes() {
    // Trailer at 2-away, leader at 1-away: the double costs the trailer nothing.
    let mut v = view(2, 1, 1, CubeOwner::Centered);
    v.post_crawford = true;
    let d = analyse(&gammonless(0.45), &v, &settings(), 0.68);
    assert!(d.action.doubles(), "{d:?}");
    assert_eq!(d.response, TakeAction::Take);
    // The leader never doubles: its cube is dead.
    let d = analyse(&gammonless(0.8), &v.swap(), &settings(), 0.68);
    assert_eq!(d.action, DoubleAction::NoDouble);
}

#[test]
fn dead_cube_is_not_redoubled() {
    // 2-away owning a 2-cube: winning this game already wins the match.
    let v = view(2, 3, 2, CubeOwner::Me);
    let d = analyse(&gammonless(0.8), &v, &settings(), 0.68);
    assert_eq!(d.action, DoubleAction::NoDouble, "{d:?}");
    assert!(d.no_double > d.double_take);
}

#[test]
fn match_take_point_at_two_away_two_away_is_dead_cube_mwc() {
    // 2-away/2-away: after a double the cube is dead for both, so the taker needs
    // MWC(2a,2a) - MWC(2a, 1a Crawford) ... the classic take point is about 32%.
    let v = view(2, 2, 1, CubeOwner::Centered);
    let tp = 1.0 - met::mwc(1, 2, false); // the taker drops to 2-away vs 1-away: 0.32264
    let too_strong = analyse(&gammonless((1.0 - tp + 0.01) as f32), &v, &settings(), 0.68);
    let takeable = analyse(&gammonless((1.0 - tp - 0.01) as f32), &v, &settings(), 0.68);
    assert_eq!(too_strong.response, TakeAction::Drop);
    assert_eq!(takeable.response, TakeAction::Take);
}

#[test]
fn match_values_match_money_shape_far_from_the_end() {
    // Long match, even score: cubeful MWC rises with the winning chance and owning
    // the cube is worth more than not.
    let v = view(17, 17, 1, CubeOwner::Centered);
    let lo = cubeful_value(&gammonless(0.4), &v, &settings(), 0.68);
    let hi = cubeful_value(&gammonless(0.6), &v, &settings(), 0.68);
    assert!(lo < 0.5 && hi > 0.5 && lo < hi);
    let p = gammonless(0.6);
    let mine = cubeful_value(&p, &view(17, 17, 2, CubeOwner::Me), &settings(), 0.68);
    let theirs = cubeful_value(&p, &view(17, 17, 2, CubeOwner::Opponent), &settings(), 0.68);
    assert!(mine > theirs);
}

#[test]
#[allow(clippy::unwrap_used)]
fn money_take_and_cash_points_without_gammons_are_the_textbook_ones() {
    let p = gammonless(0.6);
    let x = 0.68;
    let pt = market_points(&p, &money(CubeOwner::Centered), &settings(), x).unwrap();
    assert!((pt.take_dead - 0.25).abs() < 1e-9, "{pt:?}");
    assert!((pt.take_live - 0.2).abs() < 1e-9, "{pt:?}");
    assert!((pt.take - 0.5 / (2.0 + 0.5 * x)).abs() < 1e-9, "{pt:?}");
    let (cash_dead, cash_live, _) = pt.cash();
    assert!((cash_dead - 0.75).abs() < 1e-9 && (cash_live - 0.8).abs() < 1e-9);
    // Without gammons playing on is never worth more than a pass.
    assert_eq!(pt.too_good, None);
    // The same points for a redouble, and none where the cube is the opponent's.
    let owned = market_points(&p, &money(CubeOwner::Me), &settings(), x).unwrap();
    assert_eq!(owned.take, pt.take);
    assert!(market_points(&p, &money(CubeOwner::Opponent), &settings(), x).is_none());
}

#[test]
#[allow(clippy::unwrap_used)]
fn money_take_points_with_gammons_follow_the_average_win_and_loss() {
    // The doubler wins a gammon in a quarter of its wins (W = 1.25) and loses one in a
    // tenth of its losses (L = 1.1): the taker risks W - 1/2 to win L + 1/2.
    let p = Probabilities([0.7, 0.175, 0.0, 0.03, 0.0]);
    let (w, l) = (1.25, 1.1);
    let x = 0.68;
    let pt = market_points(&p, &money(CubeOwner::Centered), &settings(), x).unwrap();
    assert!((pt.take_dead - (w - 0.5) / (w + l)).abs() < 1e-6, "{pt:?}");
    assert!(
        (pt.take_live - (w - 0.5) / (w + l + 0.5)).abs() < 1e-6,
        "{pt:?}"
    );
    // The closed form at the model's efficiency is where take and pass are worth the
    // same in the cube model itself.
    let bisected = take_point(&p, &money(CubeOwner::Centered), &settings(), x).unwrap();
    assert!((pt.take - bisected).abs() < 1e-6, "{} {bisected}", pt.take);
    // The doubler's too-good point: dead cube, (L + 1) / (W + L) (its cubeless equity
    // reaches one point); with a live cube, the cash point itself.
    let dead = market_points(&p, &money(CubeOwner::Centered), &settings(), 0.0).unwrap();
    assert!((dead.too_good.unwrap() - (l + 1.0) / (w + l)).abs() < 1e-6);
    let live = market_points(&p, &money(CubeOwner::Centered), &settings(), 1.0).unwrap();
    assert!((live.too_good.unwrap() - live.cash().1).abs() < 1e-6);
    // Under the Jacoby rule a centred cube is never too good to turn.
    let jacoby = CubeSettings {
        jacoby: true,
        ..settings()
    };
    let pt = market_points(&p, &money(CubeOwner::Centered), &jacoby, x).unwrap();
    assert_eq!(pt.too_good, None);
}

#[test]
#[allow(clippy::unwrap_used)]
fn two_away_two_away_points_come_from_the_table() {
    // After the take the 2-cube is dead for both: the taker needs what passing to
    // 2-away/1-away (Crawford) leaves it, 32.26%, dead or live, gammons or not.
    for p in [gammonless(0.6), Probabilities([0.6, 0.2, 0.01, 0.1, 0.0])] {
        let v = view(2, 2, 1, CubeOwner::Centered);
        let pt = market_points(&p, &v, &settings(), 0.68).expect("the rolls weigh something");
        let tp = met::mwc(2, 1, false);
        assert!((tp - 0.32264).abs() < 1e-9);
        for t in [pt.take_dead, pt.take_live, pt.take] {
            assert!((t - tp).abs() < 1e-6, "{pt:?}");
        }
        assert!((pt.cash().2 - 0.67736).abs() < 1e-6);
    }
    // The Crawford game and a dead cube have no points.
    let mut crawford = view(1, 3, 1, CubeOwner::Centered);
    crawford.crawford = true;
    assert!(market_points(&gammonless(0.6), &crawford, &settings(), 0.68).is_none());
    let dead = view(2, 3, 2, CubeOwner::Me);
    assert!(market_points(&gammonless(0.6), &dead, &settings(), 0.68).is_none());
}

#[test]
#[allow(clippy::unwrap_used)]
fn match_take_points_agree_with_the_bisection() {
    let p = Probabilities([0.6, 0.15, 0.01, 0.1, 0.004]);
    for (a, b) in [(7, 7), (5, 3), (3, 5), (11, 4)] {
        let v = view(a, b, 1, CubeOwner::Centered);
        let pt = market_points(&p, &v, &settings(), 0.68).expect("the rolls weigh something");
        let bisected = take_point(&p, &v, &settings(), 0.68).expect("the rolls weigh something");
        assert!(
            (pt.take - bisected).abs() < 1e-6,
            "{a} {b}: {pt:?} {bisected}"
        );
        if a == b {
            // At an even score the taker's recube is worth something: live below dead.
            assert!(pt.take_live <= pt.take + 1e-9 && pt.take <= pt.take_dead + 1e-9);
        }
    }
}

#[test]
fn costs_measure_each_wrong_action_against_the_right_one() {
    let s = settings();
    // Double, take: not doubling and passing are the errors.
    let d = analyse(&gammonless(0.74), &money(CubeOwner::Centered), &s, 0.68);
    assert_eq!(d.action, DoubleAction::DoubleTake);
    let c = d.costs();
    assert_eq!((c.double, c.take), (0.0, 0.0));
    assert!((c.no_double - (d.double_take - d.no_double)).abs() < 1e-12);
    assert!((c.pass - (d.double_pass - d.double_take)).abs() < 1e-12);
    assert_eq!(c.beaver, None);
    // No double, take.
    let d = analyse(&gammonless(0.55), &money(CubeOwner::Centered), &s, 0.68);
    let c = d.costs();
    assert_eq!(d.action, DoubleAction::NoDouble);
    assert_eq!(c.no_double, 0.0);
    assert!((c.double - (d.no_double - d.double_take)).abs() < 1e-12);
    // Too good: doubling costs the gammons given up for a single point.
    let p = Probabilities([0.92, 0.6, 0.05, 0.0, 0.0]);
    let d = analyse(&p, &money(CubeOwner::Centered), &s, 0.68);
    assert_eq!(d.action, DoubleAction::TooGood);
    let c = d.costs();
    assert!((c.double - (d.no_double - 1.0)).abs() < 1e-12, "{c:?}");
    assert_eq!(c.pass, 0.0);
    assert!(c.take > 0.0);
}

#[test]
fn race_efficiency_grows_with_the_race() {
    let s = settings();
    assert_eq!(s.efficiency(Phase::Contact, 100), 0.68);
    assert!(s.efficiency(Phase::Race, 20) <= s.efficiency(Phase::Race, 100));
    assert!(s.efficiency(Phase::Race, 20) >= s.race_min);
    assert!(s.efficiency(Phase::Race, 200) <= s.race_max);
}

/// The take and cash points of every level of the match model, found by interpolation on
/// the stretch that crosses, are the points a 50-step bisection on the same mixed values
/// converges to, within 1e-9 (within rounding but where a take and a cash point lie
/// within the model's 1e-9 of each other), over scores up to 25-away, cubes up to 8,
/// every owner, the Crawford and post-Crawford games, and efficiencies from dead to live.
#[test]
fn match_model_points_are_the_bisections() {
    let mut rng = crate::game::Rng::seeded(43);
    let bisect = |m: &MatchModel, k: usize, owner: CubeOwner, target: f64| -> f64 {
        let f = |q: f64| m.mixed(k, owner, q) - target;
        if f(0.0) >= 0.0 {
            return 0.0;
        }
        if f(1.0) <= 0.0 {
            return 1.0;
        }
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..50 {
            let mid = 0.5 * (lo + hi);
            if f(mid) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    };
    let (mut checked, mut worst) = (0, 0.0f64);
    for _ in 0..3000 {
        let w = rng.uniform_f32(0.02, 0.98);
        let wg = w * rng.uniform_f32(0.0, 0.6);
        let lg = (1.0 - w) * rng.uniform_f32(0.0, 0.6);
        let p = Probabilities([
            w,
            wg,
            wg * rng.uniform_f32(0.0, 0.3),
            lg,
            lg * rng.uniform_f32(0.0, 0.3),
        ]);
        let owner = [CubeOwner::Centered, CubeOwner::Me, CubeOwner::Opponent][rng.index(3)];
        let (away, opp_away) = (1 + rng.index(25) as u32, 1 + rng.index(25) as u32);
        let crawford = (away == 1 || opp_away == 1) && rng.index(2) == 0;
        let view = CubeView {
            cube: 1 << rng.index(4),
            owner,
            match_length: 25,
            away,
            opp_away,
            crawford,
            post_crawford: (away == 1 || opp_away == 1) && !crawford,
        };
        let x = [0.0, 0.5, 0.68, 1.0][rng.index(4)];
        let score = MatchScore::new(&view);
        let m = MatchModel::new(&p, &score, x);
        for k in 0..score.levels.saturating_sub(1) {
            let w = score.level_cube(k);
            let found = [
                (
                    m.cash[k],
                    score.live_for_me(w),
                    CubeOwner::Opponent,
                    score.win[k][0],
                ),
                (
                    m.take[k],
                    score.live_for_opp(w),
                    CubeOwner::Me,
                    score.lose[k][0],
                ),
            ];
            for (point, live, owner, target) in found {
                assert_eq!(point.is_some(), live);
                if let Some(q) = point {
                    let b = bisect(&m, k + 1, owner, target);
                    worst = worst.max((q - b).abs());
                    assert!(
                        (q - b).abs() < 1e-9,
                        "{p:?} {view:?} x {x} level {k}: {q} {b}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 3000, "{checked} points");
    assert!(worst < 1e-9, "{worst}");
}

/// A 7-point match, the roller 5 away and its opponent 3 away, the cube centred at 1.
fn five_away_three_away() -> CubeView {
    CubeView {
        cube: 1,
        owner: CubeOwner::Centered,
        match_length: 7,
        away: 5,
        opp_away: 3,
        crawford: false,
        post_crawford: false,
    }
}

/// Two rolls for [`analyse_rolls`]: weights 2 and 1, the opponent's probabilities after
/// each, and their efficiencies.
fn two_rolls() -> [RollValue; 2] {
    [
        RollValue {
            weight: 2.0,
            probs: Probabilities([0.3, 0.08, 0.01, 0.2, 0.02]),
            x: 0.68,
            rolls: Vec::new(),
        },
        RollValue {
            weight: 1.0,
            probs: Probabilities([0.75, 0.2, 0.0, 0.05, 0.0]),
            x: 0.62,
            rolls: Vec::new(),
        },
    ]
}

#[test]
fn one_roll_deeper_values_are_the_opponents_model_values_averaged() {
    let rolls = two_rolls();
    let mean = |f: &dyn Fn(&RollValue) -> f64| (2.0 * f(&rolls[0]) + f(&rolls[1])) / 3.0;
    // Money, the cube centred: no double leaves it centred for the opponent, a take
    // gives it the opponent at twice the value.
    let s = settings();
    let view = money(CubeOwner::Centered);
    let d = analyse_rolls(&rolls, &view, &s, 0.7).expect("the rolls weigh something");
    let nd = -mean(&|r| money_equity(&r.probs, CubeOwner::Centered, r.x, false));
    let dt = -2.0 * mean(&|r| money_equity(&r.probs, CubeOwner::Me, r.x, false));
    assert!((d.no_double - nd).abs() < 1e-12, "{} {nd}", d.no_double);
    assert!((d.double_take - dt).abs() < 1e-12, "{} {dt}", d.double_take);
    assert_eq!((d.double_pass, d.efficiency), (1.0, 0.7));
    // The roller owns the cube: the opponent cannot double after no double.
    let d =
        analyse_rolls(&rolls, &money(CubeOwner::Me), &s, 0.7).expect("the rolls weigh something");
    let nd = -mean(&|r| money_equity(&r.probs, CubeOwner::Opponent, r.x, false));
    assert!((d.no_double - nd).abs() < 1e-12);
    // Match: one minus the opponent's match-winning chance, the pass as `analyse` has it.
    let view = five_away_three_away();
    let d = analyse_rolls(&rolls, &view, &s, 0.7).expect("the rolls weigh something");
    let theirs = view.swap();
    let nd = 1.0 - mean(&|r| cubeful_value(&r.probs, &theirs, &s, r.x));
    let doubled = CubeView {
        cube: 2,
        owner: CubeOwner::Me,
        ..theirs
    };
    let dt = 1.0 - mean(&|r| cubeful_value(&r.probs, &doubled, &s, r.x));
    assert!((d.no_double - nd).abs() < 1e-12);
    assert!((d.double_take - dt).abs() < 1e-12);
    let root = analyse(&gammonless(0.6), &view, &s, 0.7);
    assert_eq!(d.double_pass, root.double_pass);
    assert!(analyse_rolls(&[], &view, &s, 0.7).is_none());
}

#[test]
fn rolls_that_end_the_game_count_their_points() {
    // Every roll wins a gammon: the opponent's probabilities are a sure gammon loss.
    let lost = RollValue {
        weight: 36.0,
        probs: Probabilities([0.0, 0.0, 0.0, 1.0, 0.0]),
        x: 0.68,
        rolls: Vec::new(),
    };
    let d = analyse_rolls(
        std::slice::from_ref(&lost),
        &money(CubeOwner::Centered),
        &settings(),
        0.68,
    )
    .expect("the rolls weigh something");
    assert!((d.no_double - 2.0).abs() < 1e-12 && (d.double_take - 4.0).abs() < 1e-12);
    assert_eq!(d.action, DoubleAction::TooGood);
    // Under the Jacoby rule a gammon with the cube centred is a single game.
    let jacoby = CubeSettings {
        jacoby: true,
        ..settings()
    };
    let d = analyse_rolls(&[lost], &money(CubeOwner::Centered), &jacoby, 0.68)
        .expect("the rolls weigh something");
    assert!((d.no_double - 1.0).abs() < 1e-12 && (d.double_take - 4.0).abs() < 1e-12);
    assert!(!d.action.doubles());
}

/// Two levels of rolls: where a roll keeps the opponent's rolls below it, the opponent
/// chooses there between rolling on and doubling (the roller answering with the better of
/// take and pass) on their values, one level further down, instead of the model valuing
/// its position; a roll without them is valued by the model as at one level.
#[test]
fn two_rolls_deeper_the_opponent_chooses_its_cube_action_on_its_own_rolls() {
    let s = settings();
    let below = two_rolls();
    let strong = RollValue {
        weight: 2.0,
        probs: Probabilities([0.7, 0.2, 0.01, 0.05, 0.0]),
        x: 0.68,
        rolls: below.to_vec(),
    };
    let leaf = RollValue {
        weight: 1.0,
        probs: Probabilities([0.35, 0.05, 0.0, 0.1, 0.0]),
        x: 0.68,
        rolls: Vec::new(),
    };
    for view in [
        money(CubeOwner::Centered),
        money(CubeOwner::Me),
        five_away_three_away(),
    ] {
        let d = analyse_rolls(&[strong.clone(), leaf.clone()], &view, &s, 0.68)
            .expect("the rolls weigh something");
        // The opponent's value after `strong` with the cube as `theirs` leaves it: its
        // own choices from the level below, the better of no double and the roller's
        // best answer where it may double.
        let opponent_value = |theirs: &CubeView, node: &RollValue| -> f64 {
            if node.rolls.is_empty() {
                return cubeful_value(&node.probs, theirs, &s, node.x);
            }
            let d = analyse_rolls(&node.rolls, theirs, &s, node.x).expect("kept rolls");
            if theirs.owner != CubeOwner::Opponent && !theirs.crawford {
                d.no_double.max(d.double_take.min(d.double_pass))
            } else {
                d.no_double
            }
        };
        let mean = |after: &CubeView| {
            let theirs = after.swap();
            (2.0 * opponent_value(&theirs, &strong) + opponent_value(&theirs, &leaf)) / 3.0
        };
        let doubled = CubeView {
            cube: 2,
            owner: CubeOwner::Opponent,
            ..view
        };
        let (nd, dt) = if view.is_money() {
            (-mean(&view), -2.0 * mean(&doubled))
        } else {
            (1.0 - mean(&view), 1.0 - mean(&doubled))
        };
        assert!(
            (d.no_double - nd).abs() < 1e-12,
            "{view:?}: {} {nd}",
            d.no_double
        );
        assert!(
            (d.double_take - dt).abs() < 1e-12,
            "{view:?}: {} {dt}",
            d.double_take
        );
        // The level below changes the answer from what the model alone says there.
        let flat = RollValue {
            rolls: Vec::new(),
            ..strong.clone()
        };
        let one = analyse_rolls(&[flat, leaf.clone()], &view, &s, 0.68)
            .expect("the rolls weigh something");
        assert!((one.no_double - d.no_double).abs() > 1e-6, "{view:?}");
    }
}
