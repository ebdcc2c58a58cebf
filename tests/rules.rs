//! Named tests for each corner of the rules, on small hand-built boards.
//!
//! Boards are written as lists of (point, count) from the side to move ("X", moving
//! 24 -> 1, bar = 25) and for the opponent ("O") in X's numbering (O's bar = 0). Checkers
//! not listed are borne off.

use std::collections::BTreeSet;

use stargammon::game::{legal_plays, Dice, GameResult, Play, Position};
use stargammon::notation::{format_play, MoveStyle};

fn board(x: &[(usize, i8)], o: &[(usize, i8)]) -> Position {
    let mut s = [0i8; 26];
    for &(p, n) in x {
        s[p] += n;
    }
    for &(p, n) in o {
        s[p] -= n;
    }
    Position::from_slots(s).expect("test board is valid")
}

fn plays(p: &Position, a: u8, b: u8) -> Vec<Play> {
    legal_plays(p, Dice::new(a, b).expect("dice"))
}

/// The plays in gnubg notation, sorted.
fn moves(p: &Position, a: u8, b: u8) -> BTreeSet<String> {
    plays(p, a, b)
        .iter()
        .map(|q| format_play(p, q, MoveStyle::Gnubg))
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn both_dice_must_be_used_when_possible() {
    // 6 first is blocked (7 is O's point) but 5 then 6 works: 13/8/2 is forced, and
    // playing the 5 alone (13/8) is not allowed.
    let p = board(&[(13, 1), (1, 14)], &[(7, 2), (20, 13)]);
    assert_eq!(moves(&p, 6, 5), set(&["13/2"]));
    assert!(plays(&p, 6, 5).iter().all(|q| q.steps().len() == 2));
}

#[test]
fn one_die_only_the_larger_when_either_could_be_played() {
    // Either die alone can be played from 13, but 2 is blocked so not both: the 6 must be.
    let p = board(&[(13, 1), (1, 14)], &[(2, 2), (20, 13)]);
    assert_eq!(moves(&p, 6, 5), set(&["13/7"]));
}

#[test]
fn one_die_only_the_smaller_when_the_larger_cannot_be_played() {
    // 7 is blocked (no 6 from 13) and after 13/8 the 6 to 2 is blocked: only the 5 plays.
    let p = board(&[(13, 1), (1, 14)], &[(7, 2), (2, 2), (20, 11)]);
    assert_eq!(moves(&p, 6, 5), set(&["13/8"]));
}

#[test]
fn doubles_move_four_times() {
    let p = Position::OPENING;
    let all = plays(&p, 6, 6);
    assert_eq!(all.len(), 11);
    assert!(all.iter().all(|q| q.steps().len() == 4));
}

#[test]
fn doubles_move_fewer_times_when_blocked() {
    // The lone runner gets two 4s in before 12 (O's point) stops it; the rest cannot move.
    let p = board(&[(24, 1), (1, 14)], &[(12, 2), (22, 13)]);
    assert_eq!(moves(&p, 4, 4), set(&["24/16"]));
    assert!(plays(&p, 4, 4).iter().all(|q| q.steps().len() == 2));
}

#[test]
fn bar_checker_enters_before_anything_else() {
    let p = board(&[(25, 1), (13, 14)], &[(20, 2), (10, 13)]);
    let all = plays(&p, 6, 1);
    assert!(!all.is_empty());
    for q in &all {
        assert_eq!(q.steps()[0].from, 25, "{q:?}");
    }
    // bar/24/18 and bar/19/18 end alike: one play.
    assert_eq!(
        moves(&p, 6, 1),
        set(&["bar/24 13/7", "bar/19 13/12", "bar/18"])
    );
}

#[test]
fn two_on_the_bar_both_enter_first() {
    let p = board(&[(25, 2), (13, 13)], &[(1, 15)]);
    assert_eq!(moves(&p, 6, 5), set(&["bar/20 bar/19"]));
}

#[test]
fn two_on_the_bar_one_blocked_nothing_else_moves() {
    // 19 (the 6) is blocked, 20 (the 5) is open: one checker enters, the other stays on
    // the bar, and no other checker may move.
    let p = board(&[(25, 2), (13, 13)], &[(19, 2), (1, 13)]);
    assert_eq!(moves(&p, 6, 5), set(&["bar/20"]));
}

#[test]
fn blocked_entry_is_no_move() {
    let p = board(
        &[(25, 1), (13, 14)],
        &[(19, 2), (20, 2), (21, 2), (22, 2), (23, 2), (24, 2), (1, 3)],
    );
    let all = plays(&p, 6, 3);
    assert_eq!(all.len(), 1);
    assert!(all[0].steps().is_empty());
    assert_eq!(all[0].position, p);
}

#[test]
fn no_bearing_off_while_a_checker_is_outside_home() {
    // 9/7/6 brings the last checker home but no die is left to bear off.
    let p = board(&[(9, 1), (1, 14)], &[(20, 15)]);
    let all = plays(&p, 2, 1);
    assert!(!all.is_empty());
    for q in &all {
        assert!(q.steps().iter().all(|s| s.to != 0), "{q:?}");
    }
}

#[test]
fn bearing_off_once_all_home_in_the_same_roll() {
    // 8/2 brings the last checker home, then the 5 bears off from the highest point, 2.
    let p = board(&[(8, 1), (1, 14)], &[(20, 15)]);
    assert_eq!(moves(&p, 6, 5), set(&["8/off"]));
}

#[test]
fn larger_die_bears_off_from_the_highest_point_only() {
    // X: one checker on 4, one on 2. With 6-1 the 6 may bear off only the highest checker.
    let p = board(&[(4, 1), (2, 1)], &[(20, 15)]);
    let after: BTreeSet<String> = plays(&p, 6, 1)
        .iter()
        .map(|q| q.position.debug_string())
        .collect();
    let only_on = |point: usize| board(&[(point, 1)], &[(20, 15)]).debug_string();
    // 4/off 2/1 leaves a checker on 1; 4/3/off leaves the one on 2. A checker left on 3
    // (2/off with the 6 while 4 is occupied) would break the rule.
    assert_eq!(after, [only_on(1), only_on(2)].into_iter().collect());
}

#[test]
fn exact_bear_off_and_larger_die_when_nothing_higher() {
    let p = board(&[(6, 1), (3, 1)], &[(20, 15)]);
    let all = plays(&p, 6, 3);
    assert!(all
        .iter()
        .any(|q| q.position.mover_result() == Some(GameResult::Gammon)));
    // Neither a 5 nor a 4 bears off from 6 directly: one die brings the checker down,
    // the other bears it off from the point it reached (exact or highest).
    let p = board(&[(6, 1)], &[(20, 15)]);
    assert_eq!(moves(&p, 5, 4), set(&["6/off"]));
}

#[test]
fn a_hit_sends_the_blot_to_the_bar() {
    let p = board(&[(8, 3), (6, 12)], &[(5, 1), (20, 14)]);
    let q = plays(&p, 3, 1)
        .into_iter()
        .find(|q| format_play(&p, q, MoveStyle::Gnubg) == "8/5* 6/5")
        .expect("8/5* 6/5 is legal");
    assert_eq!(q.position.at(5), 2);
    assert_eq!(q.position.opp_bar(), 1);
    assert!(q.steps().iter().any(|s| s.hit));
    // From the opponent's side the checker is on its bar.
    assert_eq!(q.next_position().bar(), 1);
}

#[test]
fn results_single_gammon_backgammon() {
    // X bears off its last checker; O's checkers decide the size of the win.
    let single = board(&[(1, 1)], &[(20, 14)]);
    let gammon = board(&[(1, 1)], &[(20, 15)]);
    let bg_home = board(&[(1, 1)], &[(20, 14), (3, 1)]);
    let bg_bar = board(&[(1, 1)], &[(20, 14), (0, 1)]);
    for (p, want) in [
        (single, GameResult::Single),
        (gammon, GameResult::Gammon),
        (bg_home, GameResult::Backgammon),
        (bg_bar, GameResult::Backgammon),
    ] {
        let all = plays(&p, 2, 1);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].position.mover_result(), Some(want));
        assert_eq!(all[0].next_position().opponent_result(), Some(want));
        assert!(all[0].position.is_game_over());
    }
}
