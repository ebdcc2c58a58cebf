//! Duels: mirrored pairing, the confidence interval formula, thread-count independence,
//! the player specification parser.
#![allow(clippy::unwrap_used)]

use stargammon::arena::{duel, mean_ci95, pair_seed, play_pair, summarise, DuelConfig, PairGame};
use stargammon::engine::build::BuildError;
use stargammon::engine::{EvaluatorKind, SpecError};
use stargammon::game::{GameResult, PlayList, Position};
use stargammon::players::{
    build, factory, BuildOptions, PlayerSpec, PlayerSpecError, PubevalPlayer, RandomPlayer,
};

#[test]
fn ci_formula_on_known_samples() {
    // Samples 1, 2, 3, 4: mean 2.5, sample variance 5/3, standard error sqrt(5/12).
    let (m, h) = mean_ci95(&[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(m, 2.5);
    assert!((h - 1.96 * (5.0f64 / 12.0).sqrt()).abs() < 1e-12);
    let (m, h) = mean_ci95(&[0.5]);
    assert_eq!(m, 0.5);
    assert!(h.is_nan());
    let (_, h) = mean_ci95(&[2.0, 2.0, 2.0]);
    assert_eq!(h, 0.0);
}

#[test]
fn pair_samples_are_the_mean_of_both_games() {
    let g = |a_won, result| PairGame::Won { a_won, result };
    let pairs = [
        [g(true, GameResult::Gammon), g(false, GameResult::Single)], // (2 - 1) / 2
        [
            g(false, GameResult::Backgammon),
            g(false, GameResult::Single),
        ], // (-3 - 1) / 2
    ];
    let r = summarise("a", "b", &pairs, 1.0);
    assert_eq!(r.games, 4);
    assert_eq!(r.pairs, 2);
    assert_eq!(r.ppg, (0.5 - 2.0) / 2.0);
    let (_, h) = mean_ci95(&[0.5, -2.0]);
    assert_eq!(r.ci95, h);
    assert_eq!(r.a_wins, 1);
    assert_eq!(r.gammons_a, 1);
    assert_eq!(r.gammons_b, 1);
    assert_eq!(r.backgammons_b, 1);
    assert_eq!(r.backgammons_a, 0);
}

#[test]
fn a_deterministic_player_against_itself_scores_exactly_zero() {
    // Same dice, sides swapped, same deterministic player: the second game replays the
    // first with the roles exchanged, so every pair sums to zero.
    let mut list = PlayList::new();
    for i in 0..20 {
        let [g1, g2] = play_pair(
            Position::OPENING,
            &mut PubevalPlayer,
            &mut PubevalPlayer,
            pair_seed(99, i),
            &mut list,
        );
        let (
            PairGame::Won { a_won, result },
            PairGame::Won {
                a_won: a2,
                result: r2,
            },
        ) = (&g1, &g2)
        else {
            panic!("{g1:?} {g2:?}");
        };
        assert_eq!(result, r2);
        assert_ne!(a_won, a2);
        assert_eq!(g1.points() + g2.points(), 0);
    }
}

#[test]
fn random_players_are_reproducible() {
    let mut list = PlayList::new();
    let a = play_pair(
        Position::OPENING,
        &mut RandomPlayer::new(0),
        &mut PubevalPlayer,
        pair_seed(5, 3),
        &mut list,
    );
    let b = play_pair(
        Position::OPENING,
        &mut RandomPlayer::new(77),
        &mut PubevalPlayer,
        pair_seed(5, 3),
        &mut list,
    );
    assert_eq!(a, b, "the random player is reseeded from the pair seed");
}

#[test]
fn same_seed_same_result_whatever_the_threads() {
    let a = factory("pubeval", BuildOptions::default()).unwrap();
    let b = factory("random", BuildOptions::default()).unwrap();
    let run = |threads| {
        let mut r = duel(
            &a,
            &b,
            &DuelConfig {
                games: 40,
                seed: 12,
                threads,
                progress: false,
                judge: None,
            },
        );
        r.seconds = 0.0;
        r
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
    assert!(one.ppg > 1.0, "pubeval crushes random: {}", one.ppg);
    let mut other = duel(
        &a,
        &b,
        &DuelConfig {
            games: 40,
            seed: 13,
            threads: 2,
            progress: false,
            judge: None,
        },
    );
    other.seconds = 0.0;
    assert_ne!(one, other, "another seed, other dice");
}

#[test]
fn heuristic_beats_random() {
    let a = factory("heuristic", BuildOptions::default()).unwrap();
    let b = factory("random", BuildOptions::default()).unwrap();
    let r = duel(
        &a,
        &b,
        &DuelConfig {
            games: 20,
            seed: 1,
            threads: 2,
            progress: false,
            judge: None,
        },
    );
    assert!(r.ppg > 0.5, "{}", r.ppg);
}

#[test]
fn spec_parser() {
    let s = PlayerSpec::parse("net,noise=0.03").unwrap();
    assert_eq!(s.engine.noise.sigma(), 0.03);
    let s = PlayerSpec::parse("net:/tmp/x.sgnet").unwrap();
    assert_eq!(
        s.engine.evaluator,
        EvaluatorKind::Net(Some(std::path::PathBuf::from("/tmp/x.sgnet")))
    );
    let err = |t: &str| match PlayerSpec::parse(t) {
        Err(PlayerSpecError::Spec(e)) => e,
        other => panic!("{t}: {other:?}"),
    };
    assert!(matches!(err("gnubg"), SpecError::UnknownKind(_)));
    assert!(matches!(
        err("pubeval:/x"),
        SpecError::PathNotAllowed("pubeval")
    ));
    assert!(matches!(err("net,depth"), SpecError::MalformedOption(_)));
    assert_eq!(
        err("net,breadth=2").to_string(),
        "unknown option 'breadth' for player 'net' (known: depth, algorithm, noise, cube_noise, cube_depth, cube_lookahead, time_ms, min_depth, \
         cubeful_plays, tt_megabytes, playouts, playout, truncate, precision, filter, width, prune)"
    );
    // Search depths are odd: depth=2 is refused when the spec is parsed.
    assert!(matches!(err("net,depth=2"), SpecError::BadValue { .. }));
    assert!(matches!(
        err("net,noise=1,noise=2"),
        SpecError::DuplicateOption(_)
    ));
    assert!(matches!(err("net,noise=abc"), SpecError::BadValue { .. }));
    assert!(matches!(
        build(
            &PlayerSpec::parse("net:/nonexistent/file.sgnet").unwrap(),
            BuildOptions::default()
        ),
        Err(BuildError::Weights(_))
    ));
    assert!(matches!(err(""), SpecError::Empty));
}

#[test]
fn noise_is_deterministic_per_position() {
    use stargammon::eval::noisy::position_noise;
    use stargammon::game::Position;
    let a = position_noise(&Position::OPENING);
    assert_eq!(a, position_noise(&Position::OPENING));
    let positions = stargammon::bench::random_game_positions(2, 20);
    assert_ne!(a, position_noise(&positions[7].0));
    let v: Vec<f64> = positions
        .iter()
        .map(|(p, _)| position_noise(p) as f64)
        .collect();
    let (m, _) = mean_ci95(&v);
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64;
    assert!(m.abs() < 0.1, "mean {m}");
    assert!((var - 1.0).abs() < 0.15, "variance {var}");
}
