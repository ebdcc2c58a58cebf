//! FIBS board strings: every captured example (tests/common) in both conventions, round
//! trips and never-panics properties.

#![allow(clippy::unwrap_used)]

mod common;

use common::{
    FIBS_O_OPENING, FIBS_X_OPENING, GNUBG_BAR_23, GNUBG_CRAWFORD, GNUBG_DOUBLE_Q, GNUBG_OPENING_21,
    GNUBG_TAKE_11, GNUBG_TAKE_Q,
};
use proptest::prelude::*;
use stargammon::game::{CubeOwner, Decision, Dice, MatchState, Position, Rules, StateError};
use stargammon::notation::fibs_board::{
    detect_convention, detect_line_convention, format_match_state, parse_match_state, Convention,
    FibsBoard, FibsBoardError, FibsSeat,
};

fn dice(a: u8, b: u8) -> Dice {
    Dice::new(a, b).unwrap()
}

#[test]
fn fibs_o_player_on_roll_in_opening() {
    let s = parse_match_state(FIBS_O_OPENING, Convention::Fibs).unwrap();
    assert_eq!(s.position, Position::OPENING);
    assert_eq!(s.decision, Decision::Move(dice(6, 2)));
    assert_eq!((s.match_length, s.score, s.opp_score), (3, 0, 0));
    assert_eq!(s.acting_player, 0);
    assert_eq!(s.names, ("You".to_string(), "someplayer".to_string()));
    assert_eq!(s.cube, 1);
    assert_eq!(s.cube_owner, CubeOwner::Centered);
    assert!(s.may_double && s.opp_may_double);
    assert!(!s.crawford && !s.post_crawford);
    assert_eq!(
        detect_line_convention(FIBS_O_OPENING),
        Some(Convention::Fibs)
    );
}

#[test]
fn fibs_x_player_moving_up_reads_the_opening() {
    let s = parse_match_state(FIBS_X_OPENING, Convention::Fibs).unwrap();
    assert_eq!(s.position, Position::OPENING);
    assert_eq!(s.decision, Decision::Move(dice(5, 4)));
    assert_eq!(s.acting_player, 0);
    assert_eq!(
        detect_line_convention(FIBS_X_OPENING),
        Some(Convention::Fibs)
    );
}

#[test]
fn gnubg_money_opening_p0_to_play_21() {
    let s = parse_match_state(GNUBG_OPENING_21, Convention::Gnubg).unwrap();
    assert_eq!(s.position, Position::OPENING);
    assert_eq!(s.decision, Decision::Move(dice(2, 1)));
    assert!(s.is_money());
    assert_eq!(s.acting_player, 0);
    assert_eq!(s.names.0, "probe");
    assert!(!s.crawford && !s.post_crawford);
    assert_eq!(
        detect_line_convention(GNUBG_OPENING_21),
        Some(Convention::Gnubg)
    );
    let with_nul = format!("{GNUBG_OPENING_21}\n\0");
    assert_eq!(detect_line_convention(&with_nul), Some(Convention::Gnubg));
    assert_eq!(parse_match_state(&with_nul, Convention::Gnubg).unwrap(), s);
}

#[test]
fn gnubg_p0_with_two_on_the_bar() {
    let s = parse_match_state(GNUBG_BAR_23, Convention::Gnubg).unwrap();
    assert_eq!(s.acting_player, 0);
    assert_eq!(s.position.bar(), 2);
    assert_eq!(s.decision, Decision::Move(dice(3, 2)));
    assert_eq!(s.match_length, 5);
    // The reply `25/23 25/22` must be a legal play: both checkers enter, one hitting on 22.
    let plays = stargammon::game::legal_plays(&s.position, dice(3, 2));
    let entered = plays.iter().any(|p| {
        let st = p.steps();
        st.len() == 2 && st.iter().all(|x| x.from == 25) && st.iter().any(|x| x.to == 22 && x.hit)
    });
    assert!(entered, "{plays:?}");
}

#[test]
fn gnubg_double_question_for_p0() {
    let s = parse_match_state(GNUBG_DOUBLE_Q, Convention::Gnubg).unwrap();
    assert_eq!(s.decision, Decision::DoubleOrRoll);
    assert_eq!(s.acting_player, 0);
    assert_eq!(s.cube_owner, CubeOwner::Centered);
    assert!(s.may_double);
    assert_eq!(
        detect_line_convention(GNUBG_DOUBLE_Q),
        Some(Convention::Gnubg)
    );
}

#[test]
fn gnubg_take_question_for_p0_sees_the_doubler_to_roll() {
    let s = parse_match_state(GNUBG_TAKE_Q, Convention::Gnubg).unwrap();
    assert_eq!(s.decision, Decision::TakeOrDrop);
    assert_eq!(s.acting_player, 0);
    // Names are swapped on take questions: the acting side (P0) is `probe`.
    assert_eq!(s.names, ("probe".to_string(), "gnubg0ply".to_string()));
    // P0's view: P0 (negative on the board) moves 1 -> 24, so board[24] = 1 is P0's ace
    // point... the taker has checkers on its points 24 (2 checkers from board[1] = -1 and
    // board[3] = -1 read as points 24 and 22).
    assert_eq!(s.position.at(24), 1);
    assert_eq!(s.position.at(22), 1);
    assert_eq!(s.cube, 1);
}

#[test]
fn gnubg_take_in_eleven_point_match_reads_the_takers_score() {
    let s = parse_match_state(GNUBG_TAKE_11, Convention::Gnubg).unwrap();
    assert_eq!(s.decision, Decision::TakeOrDrop);
    assert_eq!(s.acting_player, 0);
    assert_eq!(s.match_length, 11);
    assert_eq!((s.score, s.opp_score), (8, 2));
    assert_eq!(s.names.0, "extP0");
    assert_eq!(s.away(), 3);
    assert_eq!(
        detect_line_convention(GNUBG_TAKE_11),
        Some(Convention::Gnubg)
    );
}

#[test]
fn gnubg_crawford_game_p1_to_play() {
    let s = parse_match_state(GNUBG_CRAWFORD, Convention::Gnubg).unwrap();
    assert_eq!(s.decision, Decision::Move(dice(4, 3)));
    assert_eq!(s.acting_player, 1);
    assert_eq!(s.position, Position::OPENING);
    assert_eq!((s.score, s.opp_score), (0, 6));
    assert_eq!(s.names.0, "probeP1");
    assert!(s.crawford);
    assert!(!s.post_crawford);
    assert!(!s.may_double && !s.opp_may_double);
}

#[test]
fn every_captured_example_writes_back_identically() {
    for line in [
        FIBS_O_OPENING,
        FIBS_X_OPENING,
        GNUBG_OPENING_21,
        GNUBG_BAR_23,
        GNUBG_DOUBLE_Q,
        GNUBG_TAKE_Q,
        GNUBG_TAKE_11,
        GNUBG_CRAWFORD,
    ] {
        let b = FibsBoard::parse(line).unwrap();
        assert_eq!(b.to_line(), line);
    }
}

/// Found by the fibs_board fuzz target: a name holding whitespace other than a space (here
/// a carriage return) is read as it stands, and written with `_` in its place so the line
/// stays one line of 53 tokens; the written line reads back to the record with that name.
#[test]
fn a_name_with_a_control_character_is_written_with_an_underscore() {
    let line = GNUBG_OPENING_21.replacen("probe", "pr\u{fffd}\robe", 1);
    let board = FibsBoard::parse(&line).unwrap();
    assert_eq!(board.player, "pr\u{fffd}\robe");
    let written = board.to_line();
    assert!(
        written.starts_with("board:pr\u{fffd}_obe:gnubg0ply:"),
        "{written}"
    );
    let again = FibsBoard::parse(&written).unwrap();
    assert_eq!(again.player, "pr\u{fffd}_obe");
    assert_eq!(
        FibsBoard {
            player: board.player.clone(),
            ..again
        },
        board
    );
}

#[test]
fn gnubg_examples_round_trip_through_match_state() {
    // gnubg fills tokens 45/46 with the borne-off counts it derives from the board; these
    // examples have none borne off, so the whole line must come back.
    for line in [
        GNUBG_OPENING_21,
        GNUBG_DOUBLE_Q,
        GNUBG_TAKE_Q,
        GNUBG_TAKE_11,
        GNUBG_CRAWFORD,
    ] {
        let s = parse_match_state(line, Convention::Gnubg).unwrap();
        let back = format_match_state(&s, Convention::Gnubg).unwrap();
        let b1 = FibsBoard::parse(line).unwrap();
        let b2 = FibsBoard::parse(&back).unwrap();
        // The dice order of a roll is not kept by `Dice`.
        assert_eq!(b1.board, b2.board, "{line}");
        assert_eq!(
            parse_match_state(&back, Convention::Gnubg).unwrap(),
            s,
            "{line}"
        );
    }
}

#[test]
fn syntax_errors_are_typed() {
    assert_eq!(
        FibsBoard::parse("hello").unwrap_err(),
        FibsBoardError::NotABoard
    );
    assert!(matches!(
        FibsBoard::parse("board:a:b:1").unwrap_err(),
        FibsBoardError::TokenCount { found: 4 }
    ));
    let bad = GNUBG_OPENING_21.replacen(":-2:", ":x:", 1);
    assert!(matches!(
        FibsBoard::parse(&bad).unwrap_err(),
        FibsBoardError::NotANumber { token: 7, .. }
    ));
    let bad = GNUBG_OPENING_21.replacen(":-2:", ":-16:", 1);
    let e = FibsBoard::parse(&bad).unwrap_err();
    assert!(matches!(
        e,
        FibsBoardError::OutOfRange {
            token: 7,
            value: -16
        }
    ));
    assert!(e.is_syntax());
}

#[test]
fn inconsistent_games_are_not_syntax_errors() {
    // 16 checkers for P1: the 6-point holds 6.
    let bad = GNUBG_OPENING_21.replacen(":5:0:3:", ":6:0:3:", 1);
    let e = parse_match_state(&bad, Convention::Gnubg).unwrap_err();
    assert!(matches!(e, FibsBoardError::Position(_)), "{e}");
    assert!(!e.is_syntax());
    // Cube 3.
    let b = FibsBoard {
        cube: 3,
        ..FibsBoard::parse(GNUBG_OPENING_21).unwrap()
    };
    assert_eq!(
        b.to_match_state(Convention::Gnubg).unwrap_err(),
        FibsBoardError::CubeValue(3)
    );
    // A FIBS board read as gnubg's fixed orientation.
    assert_eq!(
        parse_match_state(FIBS_X_OPENING, Convention::Gnubg).unwrap_err(),
        FibsBoardError::NotGnubgOrientation
    );
}

#[test]
fn impossible_states_are_refused_naming_the_field() {
    // A 65-point match: longer than gnubg plays.
    let long = FibsBoard {
        match_length: 65,
        ..FibsBoard::parse(FIBS_O_OPENING).unwrap()
    };
    assert_eq!(
        long.to_match_state(Convention::Fibs).unwrap_err(),
        FibsBoardError::State(StateError::MatchLength(65))
    );
    // gnubg's Crawford game (7-point match at 6-0) with a 2-cube.
    let turned = FibsBoard {
        cube: 2,
        ..FibsBoard::parse(GNUBG_CRAWFORD).unwrap()
    };
    let e = turned.to_match_state(Convention::Gnubg).unwrap_err();
    assert!(
        matches!(e, FibsBoardError::State(StateError::CrawfordCube { .. })),
        "{e}"
    );
    assert!(!e.is_syntax());
    // gnubg's Crawford mark (last token 0) at 0-0 of a 5-point match.
    let early = GNUBG_BAR_23.replacen(":0:0:0:1", ":0:0:0:0", 1);
    assert!(early.ends_with(":0:0:0:0"), "{early}");
    assert!(matches!(
        parse_match_state(&early, Convention::Gnubg).unwrap_err(),
        FibsBoardError::State(StateError::CrawfordScore { .. })
    ));
}

// ---------------------------------------------------------------------------------------
// Properties

fn arb_position() -> impl Strategy<Value = Position> {
    // Scatter 0..=15 checkers of each side over distinct slots, respecting bar sides.
    (
        prop::collection::vec(1usize..=25, 0..=15),
        prop::collection::vec(0usize..=24, 0..=15),
    )
        .prop_filter_map("not a position", |(mine, theirs)| {
            let mut slots = [0i8; 26];
            for m in mine {
                slots[m] += 1;
            }
            for t in theirs {
                if slots[t] > 0 {
                    continue;
                }
                slots[t] -= 1;
            }
            Position::from_slots(slots).ok()
        })
}

fn arb_state(convention: Convention) -> impl Strategy<Value = MatchState> {
    (
        arb_position(),
        0u8..4,
        (1u8..=6, 1u8..=6),
        0u32..6,
        0u8..3,
        (0u32..12, 0u32..12, 0u32..12),
        any::<bool>(),
        0u8..2,
        ("[a-zA-Z0-9]{1,8}", "[a-zA-Z0-9]{1,8}"),
    )
        .prop_map(
            move |(position, kind, (d1, d2), log_cube, owner, (len, a, b), pc, who, names)| {
                let decision = match kind {
                    0 => Decision::Move(Dice::new(d1, d2).unwrap()),
                    1 => Decision::DoubleOrRoll,
                    2 => Decision::TakeOrDrop,
                    _ => Decision::GameOver,
                };
                let match_length = if len < 2 { 0 } else { len };
                let (score, opp_score) = if match_length == 0 {
                    (0, 0)
                } else {
                    (a % match_length, b % match_length)
                };
                let one_away = match_length > 0
                    && (match_length - score == 1 || match_length - opp_score == 1);
                // Both sides one away: the Crawford game has been played.
                let both_away =
                    match_length > 0 && match_length - score == 1 && match_length - opp_score == 1;
                let post_crawford = one_away && (pc || both_away);
                let crawford = match convention {
                    Convention::Fibs => one_away && !post_crawford,
                    // gnubg says so explicitly; keep it where the rules allow it.
                    Convention::Gnubg => one_away && !post_crawford && log_cube == 0,
                };
                // Nobody doubles in the Crawford game: the cube stays a centred 1-cube.
                let in_crawford_game = crawford && decision != Decision::GameOver;
                let decision = if in_crawford_game && decision == Decision::TakeOrDrop {
                    Decision::DoubleOrRoll
                } else {
                    decision
                };
                let cube = if in_crawford_game {
                    1
                } else {
                    1u32 << log_cube
                };
                let cube_owner = if cube == 1 {
                    CubeOwner::Centered
                } else if owner == 0 {
                    CubeOwner::Me
                } else {
                    CubeOwner::Opponent
                };
                // Before a take the cube is centred or the doubler's.
                let cube_owner = if decision == Decision::TakeOrDrop && cube > 1 {
                    CubeOwner::Opponent
                } else {
                    cube_owner
                };
                let mut my_access = cube_owner != CubeOwner::Opponent;
                let mut opp_access = cube_owner != CubeOwner::Me;
                if convention == Convention::Fibs && decision == Decision::TakeOrDrop {
                    // FIBS clears both flags while a double is pending.
                    my_access = false;
                    opp_access = false;
                }
                let acting_player = match (convention, decision) {
                    (_, Decision::GameOver) | (Convention::Fibs, Decision::TakeOrDrop) => 0,
                    _ => who,
                };
                MatchState {
                    position,
                    decision,
                    cube,
                    cube_owner,
                    may_double: my_access && !crawford,
                    opp_may_double: opp_access && !crawford,
                    match_length,
                    score,
                    opp_score,
                    crawford,
                    post_crawford,
                    acting_player,
                    names,
                    rules: Rules::default(),
                    dice_low_first: false,
                }
            },
        )
}

fn arb_seat() -> impl Strategy<Value = FibsSeat> {
    (any::<bool>(), any::<bool>()).prop_map(|(c, d)| FibsSeat {
        colour: if c { 1 } else { -1 },
        direction: if d { 1 } else { -1 },
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn gnubg_state_string_state(s in arb_state(Convention::Gnubg)) {
        let line = format_match_state(&s, Convention::Gnubg).unwrap();
        let back = parse_match_state(&line, Convention::Gnubg).unwrap();
        prop_assert_eq!(&back, &s);
        let again = format_match_state(&back, Convention::Gnubg).unwrap();
        prop_assert_eq!(again, line);
    }

    #[test]
    fn fibs_state_string_state(s in arb_state(Convention::Fibs), seat in arb_seat()) {
        // In the FIBS convention the may-double flags are the rules' verdict, so a state
        // where the cube owner may not double (Crawford) still reads back the same.
        let b = FibsBoard::from_match_state(&s, Convention::Fibs, seat).unwrap();
        let line = b.to_line();
        let parsed = FibsBoard::parse(&line).unwrap();
        prop_assert_eq!(&parsed, &b);
        prop_assert_eq!(parsed.seat(), seat);
        let back = parsed.to_match_state(Convention::Fibs).unwrap();
        // A FIBS board carries no cube owner: it is read from the flags, which are
        // cleared in the Crawford game.
        let mut expect = s.clone();
        if s.crawford {
            expect.cube_owner = back.cube_owner;
        }
        prop_assert_eq!(&back, &expect);
        let again = FibsBoard::from_match_state(&back, Convention::Fibs, seat).unwrap().to_line();
        prop_assert_eq!(again, line);
    }

    #[test]
    fn detection_never_contradicts_the_writer(s in arb_state(Convention::Gnubg), seat in arb_seat()) {
        let g = FibsBoard::from_match_state(&s, Convention::Gnubg, seat).unwrap();
        prop_assert_ne!(detect_convention(&g), Some(Convention::Fibs));
        if s.acting_player == 0 || !matches!(s.decision, Decision::TakeOrDrop | Decision::GameOver) {
            if let Ok(f) = FibsBoard::from_match_state(&s, Convention::Fibs, seat) {
                prop_assert_ne!(detect_convention(&f), Some(Convention::Gnubg));
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(line in ".{0,300}") {
        if let Ok(b) = FibsBoard::parse(&line) {
            let _ = b.to_match_state(Convention::Fibs);
            let _ = b.to_match_state(Convention::Gnubg);
        }
        let _ = detect_line_convention(&line);
    }

    #[test]
    fn arbitrary_tokens_never_panic(tokens in prop::collection::vec("0|-?[1-9][0-9]{0,3}", 52)) {
        let line = format!("board:{}", tokens.join(":"));
        if let Ok(b) = FibsBoard::parse(&line) {
            prop_assert_eq!(b.to_line(), line.clone());
            for c in [Convention::Fibs, Convention::Gnubg] {
                if let Ok(s) = b.to_match_state(c) {
                    let _ = format_match_state(&s, c);
                }
            }
        }
    }
}
