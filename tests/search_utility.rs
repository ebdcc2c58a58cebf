#![allow(clippy::unwrap_used)]
//! The search under a match utility: leaf values follow the match-winning chances at the
//! score, Star1 and Star2 stay exact, a table shared between utilities changes no answer,
//! and the engine asks for the utility of the side to act.

use std::sync::Arc;

use stargammon::cube::{cubeful_value, result_chances, CubeSettings, CubeView};
use stargammon::engine::{cube_view, utility, Need, Work};
use stargammon::eval::neural::NeuralEvaluator;
use stargammon::eval::{Evaluator, Probabilities};
use stargammon::game::{CubeOwner, Decision, Dice, GamePlay, GameResult, MatchState, Position};
use stargammon::search::positions::self_play_positions;
use stargammon::search::value::{to_value, SCALE};
use stargammon::search::{
    Algorithm, Cancel, SearchSettings, Searcher, TranspositionTable, Utility,
};

fn nets() -> Arc<dyn Evaluator> {
    Arc::new(NeuralEvaluator::default_nets().unwrap())
}

fn view(away: u32, opp_away: u32, cube: u32, crawford: bool, post: bool) -> CubeView {
    CubeView {
        cube,
        owner: CubeOwner::Centered,
        match_length: 11,
        away,
        opp_away,
        crawford,
        post_crawford: post,
    }
}

fn match_utility(v: &CubeView) -> Utility {
    let (win, lose) = result_chances(v).unwrap();
    Utility::from_match_chances(win, lose)
}

/// The same with its leaves valued cubefully, the cube where `v` has it.
fn cubeful_utility(v: &CubeView) -> Utility {
    match_utility(v).with_cube(*v, CubeSettings::default())
}

fn owned(mut v: CubeView, owner: CubeOwner) -> CubeView {
    v.owner = owner;
    v
}

/// Scores where the value of gammons differs: double match point, gammon-go for the
/// trailer, the leader at 2-away with the cube on 2 (a single win takes the match), an
/// even score, and the Crawford game; and cubeful leaves at an even score with the cube
/// in the middle and at 4-away 2-away with the cube on 2 owned by either side.
fn utilities() -> Vec<Utility> {
    vec![
        match_utility(&view(1, 1, 1, false, true)),
        match_utility(&view(4, 1, 1, false, true)),
        match_utility(&view(2, 5, 2, false, false)),
        match_utility(&view(5, 5, 1, false, false)),
        match_utility(&view(1, 4, 1, true, false)),
        cubeful_utility(&view(5, 5, 1, false, false)),
        cubeful_utility(&owned(view(4, 2, 2, false, false), CubeOwner::Me)),
        cubeful_utility(&owned(view(4, 2, 2, false, false), CubeOwner::Opponent)),
    ]
}

/// The root side's match-winning chance a value of `u` stands for (the utility is affine
/// in it: a single win and a single loss at the present cube fix the line).
fn chance_of(u: &Utility, v: &CubeView, value: i32) -> f64 {
    let (win, lose) = result_chances(v).unwrap();
    let hi = u.won(0, GameResult::Single) as f64;
    let lo = -u.won(1, GameResult::Single) as f64;
    lose[0] + (value as f64 - lo) / (hi - lo) * (win[0] - lose[0])
}

#[test]
fn cubeful_leaves_are_the_cube_models_chances() {
    let contact = Position::OPENING;
    let race = Position::from_slots({
        let mut s = [0i8; 26];
        s[6] = 8;
        s[5] = 7;
        s[19] = -8;
        s[20] = -7;
        s
    })
    .unwrap();
    let settings = CubeSettings::default();
    let probs = [
        Probabilities([0.6, 0.2, 0.05, 0.1, 0.02]),
        Probabilities([0.3, 0.05, 0.0, 0.25, 0.04]),
        Probabilities([0.8, 0.1, 0.0, 0.02, 0.0]),
    ];
    for v in [
        view(5, 5, 1, false, false),
        owned(view(4, 2, 2, false, false), CubeOwner::Me),
        owned(view(4, 2, 2, false, false), CubeOwner::Opponent),
        view(3, 6, 1, false, false),
    ] {
        let u = cubeful_utility(&v);
        let cubeless = match_utility(&v);
        assert!(u.is_cubeful() && !cubeless.is_cubeful());
        // A finished game is worth the same either way.
        assert_eq!(
            u.won(0, GameResult::Gammon),
            cubeless.won(0, GameResult::Gammon)
        );
        for (pos, x) in [
            (contact, settings.efficiency_contact),
            (
                race,
                settings.efficiency(stargammon::game::Phase::Race, race.pips()),
            ),
        ] {
            for p in &probs {
                // The root side to act: its own chance.
                let want = cubeful_value(p, &v, &settings, x);
                let got = chance_of(&u, &v, u.leaf(0, p, &pos));
                assert!(
                    (got - want).abs() < 1e-5,
                    "{v:?} {p:?}: {got} against {want}"
                );
                // The opponent to act: the root side's chance is what the opponent's
                // cubeful chance leaves, and the opponent's value its negation.
                let theirs = cubeful_value(p, &v.swap(), &settings, x);
                let got = chance_of(&u, &v, -u.leaf(1, p, &pos));
                assert!((got - (1.0 - theirs)).abs() < 1e-5, "{v:?} {p:?}");
                // A cube the side to act owns and can still use is worth something:
                // cubeful differs from cubeless. (Owned by the opponent at 2-away it is
                // dead, and worth nothing.)
                if v.owner == CubeOwner::Me {
                    assert_ne!(u.leaf(0, p, &pos), cubeless.leaf(0, p, &pos));
                }
            }
        }
    }
    // In the Crawford game the cube is dead: cubeful leaves are the cubeless ones.
    let crawford = view(1, 4, 1, true, false);
    for p in &probs {
        assert_eq!(
            cubeful_utility(&crawford).leaf(0, p, &contact),
            match_utility(&crawford).leaf(0, p, &contact)
        );
    }
    // Money play has no cubeful leaves here.
    let money = Utility::MONEY.with_cube(CubeView::money(1, CubeOwner::Centered), settings);
    assert_eq!(money, Utility::MONEY);
}

#[test]
fn money_values_results_by_points_and_a_match_by_its_chances() {
    let pos = Position::OPENING;
    let p = Probabilities([0.6, 0.2, 0.05, 0.1, 0.02]);
    let money = Utility::MONEY;
    assert!(money.is_money());
    assert_eq!(money.leaf(0, &p, &pos), to_value(p.equity() as f64));
    assert_eq!(money.leaf(1, &p, &pos), to_value(p.equity() as f64));
    assert_eq!(money.won(1, GameResult::Backgammon), 3 * SCALE);
    assert_eq!(
        result_chances(&CubeView::money(1, CubeOwner::Centered)),
        None
    );

    // Double match point: only winning counts, gammons are worth nothing more.
    let dmp = match_utility(&view(1, 1, 1, false, true));
    assert!(!dmp.is_money());
    assert_eq!(dmp.leaf(0, &p, &pos), to_value(2.0 * 0.6 - 1.0));
    assert_eq!(dmp.won(0, GameResult::Gammon), SCALE);
    assert_eq!(dmp.won(1, GameResult::Backgammon), SCALE);

    // The leader at 2-away with the cube on 2 wins the match with any win; the trailer's
    // gammon is worth more than a single game to the trailer.
    let leader = match_utility(&view(2, 5, 2, false, false));
    assert!(leader.won(0, GameResult::Single) > 0);
    assert_eq!(
        leader.won(0, GameResult::Gammon),
        leader.won(0, GameResult::Single)
    );
    assert!(leader.won(1, GameResult::Gammon) > leader.won(1, GameResult::Single));

    // A single game is worth one point either way (less where another result would
    // leave the grid's range); the opponent's values are the root side's, negated.
    for u in utilities() {
        let single = u.won(0, GameResult::Single);
        assert!(single > 0 && single <= SCALE);
        assert_eq!(u.won(1, GameResult::Single), single);
        assert!(u.won(0, GameResult::Backgammon) <= 3 * SCALE);
        for q in [
            Probabilities([0.6, 0.2, 0.05, 0.1, 0.02]),
            Probabilities([0.3, 0.05, 0.0, 0.25, 0.04]),
            Probabilities([0.97, 0.6, 0.1, 0.0, 0.0]),
        ] {
            let a = u.leaf(0, &q, &pos);
            let b = u.leaf(1, &q.invert(), &pos);
            assert!((a + b).abs() <= 1, "{u:?}: {a} against {b}");
            let (l, h) = u.bounds(0, &pos);
            assert!(l <= a && a <= h);
        }
    }
}

#[test]
fn star1_and_star2_stay_exact_under_match_utilities() {
    let eval = nets();
    let cancel = Cancel::new();
    let set = self_play_positions(eval.as_ref(), 17, 6, 3);
    for u in utilities() {
        for (pos, dice) in &set {
            let fresh = || Searcher::new(eval.clone(), Arc::new(TranspositionTable::new(4)));
            let mut s = SearchSettings::new(3, Algorithm::Expectimax);
            s.utility = u.clone();
            let want = fresh().choose(pos, *dice, &s, &cancel);
            let want = want.best().map(|b| (b.index, b.value));
            for algo in [Algorithm::Star1, Algorithm::Star2] {
                s.algorithm = algo;
                let got = fresh().choose(pos, *dice, &s, &cancel);
                assert_eq!(got.best().map(|b| (b.index, b.value)), want, "{algo} {u:?}");
            }
            // Before the roll too.
            let mut e = SearchSettings::new(3, Algorithm::Expectimax);
            e.utility = u.clone();
            let want = fresh().evaluate_position(pos, &e, &cancel).value;
            e.algorithm = Algorithm::Star2;
            assert_eq!(fresh().evaluate_position(pos, &e, &cancel).value, want);
        }
    }
}

#[test]
fn a_table_shared_between_scores_changes_no_answer() {
    let eval = nets();
    let cancel = Cancel::new();
    let shared = Searcher::new(eval.clone(), Arc::new(TranspositionTable::new(16)));
    let mut all = utilities();
    all.push(Utility::MONEY);
    for (pos, dice) in self_play_positions(eval.as_ref(), 23, 4, 3) {
        // Every utility twice over one table, and each against a table of its own.
        for u in all.iter().chain(all.iter().rev()) {
            let mut s = SearchSettings::new(3, Algorithm::Star2);
            s.utility = u.clone();
            let got = shared.choose(&pos, dice, &s, &cancel);
            let fresh = Searcher::new(eval.clone(), Arc::new(TranspositionTable::new(4)))
                .choose(&pos, dice, &s, &cancel);
            assert_eq!(
                got.best().map(|b| (b.index, b.value)),
                fresh.best().map(|b| (b.index, b.value)),
                "{u:?}"
            );
        }
    }
}

#[test]
fn the_engine_searches_for_the_score_of_the_side_to_act() {
    let mut state = MatchState::money(Position::OPENING, Decision::Move(Dice::new(3, 1).unwrap()));
    let engine = stargammon::engine::build::engine(&"net,depth=3".parse().unwrap()).unwrap();
    match engine.need(&Work::Decide(state.clone())) {
        Need::Plays { utility, .. } => assert!(utility.is_money()),
        other => panic!("{other:?}"),
    }
    // 7-point match, the acting side leads 6-3 after the Crawford game: any win takes
    // the match for it, while the opponent's gammon is worth more than a single game.
    state.match_length = 7;
    state.score = 6;
    state.opp_score = 3;
    state.post_crawford = true;
    let want = utility(&cube_view(&state));
    match engine.need(&Work::Decide(state.clone())) {
        Need::Plays { utility, .. } => {
            assert_eq!(utility, want);
            assert_eq!(utility.won(0, GameResult::Gammon), SCALE);
            assert!(utility.won(1, GameResult::Gammon) > SCALE);
        }
        other => panic!("{other:?}"),
    }
    // At a take question the doubler rolls next: the probabilities are the doubler's,
    // searched for the doubler's score.
    state.decision = Decision::TakeOrDrop;
    state.post_crawford = false;
    state.score = 3;
    state.opp_score = 3;
    state.cube = 1;
    state.may_double = true;
    state.opp_may_double = true;
    match engine.need(&Work::Decide(state.clone())) {
        Need::Probabilities { utility, .. } => {
            assert_eq!(
                utility,
                stargammon::engine::utility(&cube_view(&state).swap())
            );
            assert!(!utility.is_money());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_served_engine_searches_match_plays_with_cubeful_leaves() {
    let dice = Dice::new(3, 1).unwrap();
    let mut state = MatchState::money(Position::OPENING, Decision::Move(dice));
    state.match_length = 7;
    state.score = 2;
    state.opp_score = 4;
    state.cube = 2;
    state.cube_owner = CubeOwner::Me;
    let spec = |text: &str| text.parse().unwrap();
    let on = stargammon::engine::build::engine(&spec("net,depth=3,cubeful_plays=on")).unwrap();
    let off = stargammon::engine::build::engine(&spec("net,depth=3")).unwrap();
    let view = cube_view(&state);
    let want = utility(&view).with_cube(view, on.rules_for(&state));
    assert!(want.is_cubeful());
    for (engine, expected) in [(&on, want), (&off, utility(&view))] {
        match engine.need(&Work::Decide(state.clone())) {
            Need::Plays { utility, .. } => assert_eq!(utility, expected),
            other => panic!("{other:?}"),
        }
    }
    // Money play, and a match played without the cube, keep cubeless leaves.
    let mut money = state.clone();
    money.match_length = 0;
    money.score = 0;
    money.opp_score = 0;
    assert!(on.play_utility(&money).is_money());
    let mut no_cube = state.clone();
    no_cube.cube = 1;
    no_cube.cube_owner = CubeOwner::Centered;
    no_cube.may_double = false;
    no_cube.opp_may_double = false;
    assert!(!on.play_utility(&no_cube).is_cubeful());
    // The engine plays a legal move with them, at depth 3 and through the staged filter.
    let served = stargammon::engine::build::engine(&spec(
        "net,depth=5,algorithm=filter,filter=9:0.16/3:0.06,cubeful_plays=on",
    ))
    .unwrap();
    let legal = stargammon::game::legal_plays(&state.position, dice);
    for e in [&on, &served] {
        match e.decide(&state, &Cancel::new()) {
            Ok(stargammon::engine::Action::Move(p)) => assert!(legal.contains(&p)),
            other => panic!("{other:?}"),
        }
    }
}

/// The weighted mean of kept rolls' probabilities, turned back to the rolling side's view.
fn mean_of_rolls(rolls: &[stargammon::search::RollChild]) -> [f64; 5] {
    let mut mean = [0f64; 5];
    for r in rolls {
        for (m, p) in mean.iter_mut().zip(r.probs.invert().0) {
            *m += r.weight as f64 * p as f64 / 36.0;
        }
    }
    mean
}

/// A searched position evaluation keeps the side's 21 rolls: their weights are the 36
/// dice outcomes, each position after the best play is that play's (the opponent to
/// act), and the rolls' probabilities, turned back to the side's view and weighted, are
/// the evaluation's. At depth 1 there are none.
#[test]
fn position_evaluations_keep_their_rolls() {
    let eval = nets();
    let cancel = Cancel::new();
    let set = self_play_positions(eval.as_ref(), 23, 4, 3);
    for (pos, _) in &set {
        let searcher = Searcher::new(eval.clone(), Arc::new(TranspositionTable::new(4)));
        let one =
            searcher.evaluate_position(pos, &SearchSettings::new(1, Algorithm::Star2), &cancel);
        assert!(one.rolls.is_empty());
        let e = searcher.evaluate_position(pos, &SearchSettings::new(3, Algorithm::Star2), &cancel);
        assert_eq!(e.rolls.len(), 21);
        assert_eq!(e.rolls.iter().map(|r| r.weight as u32).sum::<u32>(), 36);
        let mean = mean_of_rolls(&e.rolls);
        for (m, p) in mean.iter().zip(e.probs.0) {
            assert!(
                (m - p as f64).abs() < 1e-5,
                "{mean:?} against {:?}",
                e.probs
            );
        }
        // Each roll's position follows from `pos` by a legal play of that roll.
        for (r, roll) in e.rolls.iter().zip(stargammon::game::ALL_ROLLS) {
            let plays = stargammon::game::legal_plays(pos, roll);
            assert!(
                plays.iter().any(|p| GamePlay::next(p) == r.after),
                "{roll:?}"
            );
            assert!(r.rolls.is_empty());
        }
        // Two levels kept at depth 5: the same probabilities, and below each roll that
        // does not end the game the opponent's 21 rolls, whose mean is that roll's.
        let settings = SearchSettings {
            rolls: 2,
            ..SearchSettings::new(5, Algorithm::Star2)
        };
        let deep = searcher.evaluate_position(pos, &settings, &cancel);
        let flat =
            searcher.evaluate_position(pos, &SearchSettings::new(5, Algorithm::Star2), &cancel);
        assert_eq!(deep.probs, flat.probs);
        for (r, f) in deep.rolls.iter().zip(&flat.rolls) {
            assert_eq!((r.after, r.weight), (f.after, f.weight));
            assert!(f.rolls.is_empty());
            if r.after.is_game_over() {
                assert!(r.rolls.is_empty());
                continue;
            }
            assert_eq!(r.rolls.len(), 21);
            assert!(r.rolls.iter().all(|c| c.rolls.is_empty()));
            let mean = mean_of_rolls(&r.rolls);
            for (m, p) in mean.iter().zip(r.probs.0) {
                assert!(
                    (m - p as f64).abs() < 1e-5,
                    "{mean:?} against {:?}",
                    r.probs
                );
            }
        }
    }
}
