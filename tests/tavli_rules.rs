//! The Tavli rules: every test position of section 10 of the rules text with its exact
//! counts, the game-ending steps, scoring, the opening, property tests over random games
//! and bad input.
//!
//! Positions are written as position strings (docs/VARIANTS.md): `VARIANT:MOVER:OPPONENT`,
//! each side as `POINT-COUNT` in its own numbering, `p` marking a pinned checker.

use std::collections::BTreeSet;

use stargammon::game::{Dice, Rng, Variant};
use stargammon::tavli::position::TavliResult;
use stargammon::tavli::{
    format_play, legal_plays, opening, parse_position_string, play_random_game, position_string,
    GameEnd, RuleSwitches, TavliPlay, TavliPosition,
};

fn pos(text: &str) -> TavliPosition {
    parse_position_string(text).expect("test position is valid")
}

fn dice(a: u8, b: u8) -> Dice {
    Dice::new(a, b).expect("dice")
}

fn plays(p: &TavliPosition, a: u8, b: u8) -> Vec<TavliPlay> {
    legal_plays(p, dice(a, b), &RuleSwitches::default())
}

fn moves_with(p: &TavliPosition, a: u8, b: u8, rules: &RuleSwitches) -> BTreeSet<String> {
    legal_plays(p, dice(a, b), rules)
        .iter()
        .map(format_play)
        .collect()
}

fn moves(p: &TavliPosition, a: u8, b: u8) -> BTreeSet<String> {
    moves_with(p, a, b, &RuleSwitches::default())
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

// ---- Portes ----

#[test]
fn po_t1_opening_double_six() {
    let p = TavliPosition::start(Variant::Portes);
    let ps = plays(&p, 6, 6);
    assert_eq!(ps.len(), 11);
    for play in &ps {
        let after = play.after.counts(0);
        let (a, b, c) = (2 - after[24], 5 - after[13], 3 - after[8]);
        assert_eq!(a + b + c, 4, "{}", format_play(play));
        assert!(a <= 2 && c <= 3);
        assert_eq!(play.after.off(0), 0);
    }
}

#[test]
fn po_t2_entering() {
    let p = pos("portes:13-5,8-3,6-6,bar-1:6-3,5-3,4-3,3-3,2-3");
    let none = plays(&p, 6, 5);
    assert_eq!(none.len(), 1);
    assert!(none[0].steps().is_empty());
    assert_eq!(none[0].after, p);
    assert_eq!(
        moves(&p, 6, 1),
        set(&["bar/24 24/18", "bar/24 13/7", "bar/24 8/2"])
            .into_iter()
            .map(|s| if s == "bar/24 24/18" {
                "bar/18".to_string()
            } else {
                s
            })
            .collect()
    );
}

#[test]
fn po_t3_no_triple() {
    // X's last checker on his 1-point; O has borne off none and has a checker on the bar.
    let p = pos("portes:1-1:bar-1,1-14");
    let ps = plays(&p, 2, 1);
    assert_eq!(ps.len(), 1);
    assert_eq!(ps[0].end, Some(GameEnd::Win(2)));
    assert_eq!(ps[0].after.result(), Some(TavliResult::MoverWins(2)));
    // The same checkers in backgammon score a backgammon.
    let bg = pos("backgammon:1-1:bar-1,1-14");
    assert_eq!(plays(&bg, 2, 1)[0].end, Some(GameEnd::Win(3)));
    // A single game once the loser has borne off.
    let single = pos("portes:1-1:bar-1,1-13");
    assert_eq!(plays(&single, 2, 1)[0].end, Some(GameEnd::Win(1)));
}

// ---- Plakoto ----

#[test]
fn pl_t1_openings() {
    let p = TavliPosition::start(Variant::Plakoto);
    assert_eq!(moves(&p, 6, 5), set(&["24/13", "24/19 24/18"]));
    assert_eq!(
        moves(&p, 6, 6),
        set(&["24/18(4)", "24/18(2) 24/12", "24/12(2)", "24/18 24/6"])
    );
}

#[test]
fn pl_t2_pins_and_blocks() {
    let p = pos("plakoto:13-1,10-1p,8-2,6-11:24-11,20-2,18-1,15-1");
    assert_eq!(
        moves(&p, 3, 1),
        set(&["13/9", "13/12 6/3", "8/7*/4", "8/7* 6/3", "6/2"])
    );
    for play in plays(&p, 3, 1) {
        assert!(play.steps().iter().all(|s| s.from != 10));
        assert_eq!(play.after.counts(0)[10], 1);
    }
}

#[test]
fn pl_t3_mother_win() {
    let p = pos("plakoto:9-2,7-2,6-3,5-3,4-3,3-2:24-1,8-4,6-5,5-5");
    let ps = plays(&p, 2, 1);
    assert_eq!(ps.len(), 34);
    let wins: Vec<&TavliPlay> = ps.iter().filter(|q| q.end.is_some()).collect();
    assert_eq!(wins.len(), 7);
    for w in &wins {
        assert_eq!(w.end, Some(GameEnd::Win(2)));
        assert_eq!(w.after.result(), Some(TavliResult::MoverWins(2)));
        assert_eq!(w.steps().last().map(|s| s.to), Some(1));
    }
    // 3/1 with the 2 ends the play before the 1 is used.
    assert!(ps
        .iter()
        .any(|q| q.steps().len() == 1 && q.steps()[0].from == 3 && q.end.is_some()));
    // The 1 played first by any other checker, then 3/1 with the 2: each its own play.
    let m = moves(&p, 2, 1);
    for play in [
        "9/8 3/1*", "7/6 3/1*", "6/5 3/1*", "5/4 3/1*", "3/2 3/1*", "4/1*",
    ] {
        assert!(m.contains(play), "{play}");
    }
    // With X's own start still holding checkers the game goes on.
    let q = pos("plakoto:24-2,7-2,6-3,5-3,4-3,3-2:24-1,8-4,6-5,5-5");
    let ps = plays(&q, 2, 1);
    assert!(ps.iter().all(|q| q.end.is_none()));
    assert!(ps.iter().any(|q| q.after.mother_pinned(1)));
}

#[test]
fn pl_t4_tie() {
    let p = pos("plakoto:24-1p,8-4,6-4,5-4,3-2:24-1,6-5,5-4,4-4,1-1");
    let ps = plays(&p, 2, 1);
    assert_eq!(ps.len(), 17);
    let ties: Vec<&TavliPlay> = ps.iter().filter(|q| q.end.is_some()).collect();
    assert_eq!(ties.len(), 5);
    assert!(ties
        .iter()
        .all(|q| q.end == Some(GameEnd::Tie) && q.after.result() == Some(TavliResult::Tie)));
    assert!(moves(&p, 2, 1).contains("8/7 8/6"));
}

#[test]
fn pl_t5_bearing_off_with_a_pinned_checker() {
    let p = pos("plakoto:6-5,5-5,4-4,2-1p:24-12,23-1,6-2");
    let ps = plays(&p, 6, 5);
    assert_eq!(ps.len(), 1);
    assert!(ps[0].steps().is_empty());
    let switch = RuleSwitches {
        pinned_counts_home: true,
        ..RuleSwitches::default()
    };
    assert_eq!(moves_with(&p, 6, 5, &switch), set(&["6/off 5/off"]));
}

#[test]
fn e19_game_ending_step_counts_for_the_larger_die() {
    let p = pos("plakoto:24-1p,7-1,4-2,3-5,2-6:24-1,16-1,8-1,2-6,1-6");
    let ps = plays(&p, 6, 5);
    assert_eq!(ps.len(), 1);
    assert_eq!(format_play(&ps[0]), "7/1*");
    assert_eq!(ps[0].end, Some(GameEnd::Tie));
}

#[test]
fn plakoto_release_and_repin_in_one_turn() {
    // X pins O's blot on X's 7 with 8/7 and moves on: the pin lasts while a pinner stands.
    let p = pos("plakoto:8-1,6-14:24-14,18-1");
    let ps = plays(&p, 2, 1);
    // Touch and go (8/7*/5) reaches the position of 8/6/5: no pin stands.
    let through = ps.iter().find(|q| format_play(q) == "8/5").expect("8/5");
    assert_eq!(through.after.pins(1), 0);
    let pinned = ps
        .iter()
        .find(|q| format_play(q) == "8/7* 6/4")
        .expect("8/7* 6/4");
    assert_eq!(pinned.after.pins(1), 1 << 18);
    // Bearing off the last pinner releases the pinned checker.
    let q = pos("plakoto:6-1,5-14:24-14,19-1p");
    let ps = plays(&q, 6, 1);
    assert!(ps
        .iter()
        .all(|r| r.after.pins(1) == 0 || r.after.counts(0)[6] > 0));
}

// ---- Fevga ----

#[test]
fn fe_t1_first_plays() {
    let p = TavliPosition::start(Variant::Fevga);
    let only = |a: u8, b: u8, text: &str, used: usize| {
        let ps = plays(&p, a, b);
        assert_eq!(ps.len(), 1, "{a}-{b}");
        assert_eq!(format_play(&ps[0]), text, "{a}-{b}");
        assert_eq!(ps[0].steps().len(), used, "{a}-{b}");
    };
    only(1, 1, "24/20", 4);
    only(2, 2, "24/16", 4);
    only(3, 3, "24/15", 3);
    only(4, 4, "24/16", 2);
    only(6, 6, "24/18", 1);
    assert_eq!(moves(&p, 5, 5), set(&["24/4", "24/19 24/9"]));
    for a in 1..=6u8 {
        for b in 1..a {
            only(a, b, &format!("24/{}", 24 - a - b), 2);
        }
    }
}

#[test]
fn fe_t2_starting_quarter() {
    let p = pos("fevga:24-2,23-1,22-1,21-1,20-1,1-9:24-11,6-1,5-1,4-1,3-1");
    assert_eq!(
        moves(&p, 5, 2),
        set(&[
            "24/22 24/19",
            "24/19 23/21",
            "24/19 22/20",
            "24/19 21/19",
            "21/14"
        ])
    );
}

#[test]
fn fe_t3_full_trap() {
    let p = pos("fevga:8-3,7-1,6-1,5-1,4-1,1-8:24-14,22-1");
    assert_eq!(moves(&p, 5, 5), set(&["8/3(3) 6/1", "8/3(2) 7/2 6/1"]));
    let ahead = pos("fevga:8-3,7-1,6-1,5-1,4-1,1-8:24-14,10-1");
    assert_eq!(plays(&ahead, 5, 5).len(), 3);
    let unblock = RuleSwitches {
        unblock_when_piled: true,
        ..RuleSwitches::default()
    };
    assert_eq!(moves_with(&p, 5, 5, &unblock).len(), 3);
    let quarter = RuleSwitches {
        start_quarter_only: true,
        ..RuleSwitches::default()
    };
    assert_eq!(moves_with(&p, 5, 5, &quarter).len(), 3);
}

#[test]
fn fevga_unblock_when_piled_forces_an_opening() {
    // Every O checker on his 19 (X's 7), directly behind X's wall on his 18-13 (X's 6-1):
    // a position only the switches allow.
    let p = pos("fevga:12-5,6-2,5-2,4-2,3-2,2-1,1-1:19-15");
    let unblock = RuleSwitches {
        unblock_when_piled: true,
        ..RuleSwitches::default()
    };
    let all = moves_with(
        &p,
        2,
        1,
        &RuleSwitches {
            start_quarter_only: true,
            ..RuleSwitches::default()
        },
    );
    let forced = moves_with(&p, 2, 1, &unblock);
    assert!(forced.len() < all.len());
    for play in legal_plays(&p, dice(2, 1), &unblock) {
        assert!((1..=6).any(|m| play.after.counts(0)[m] == 0));
    }
}

// ---- Scoring, the opening ----

#[test]
fn scoring_single_and_double() {
    let f = pos("fevga:2-1:24-15");
    assert_eq!(plays(&f, 6, 5)[0].end, Some(GameEnd::Win(2)));
    let f1 = pos("fevga:2-1:24-14");
    assert_eq!(plays(&f1, 6, 5)[0].end, Some(GameEnd::Win(1)));
    let pl = pos("plakoto:2-1:24-14");
    assert_eq!(plays(&pl, 2, 2)[0].end, Some(GameEnd::Win(1)));
    assert_eq!(GameEnd::Tie.points(), 0);
}

#[test]
fn opening_allows_doubles_and_either_starter() {
    let mut rng = Rng::seeded(7);
    let mut doubles = 0;
    let mut starters = [0; 2];
    for _ in 0..3600 {
        let (s, d) = opening(&mut rng);
        starters[s] += 1;
        if d.is_double() {
            doubles += 1;
        }
    }
    // About 1 in 6 first rolls is a double (C8, unlike backgammon).
    assert!((450..750).contains(&doubles), "{doubles}");
    assert!(starters[0] > 1500 && starters[1] > 1500);
}

// ---- Properties over random games ----

fn check_play(variant: Variant, rules: &RuleSwitches, before: &TavliPosition, play: &TavliPlay) {
    let a = &play.after;
    // The result is a valid position of the variant (pins consistent).
    let again = TavliPosition::new(variant, *a.counts(0), *a.counts(1), [a.pins(0), a.pins(1)])
        .expect("valid result");
    assert_eq!(&again, a);
    // Checkers conserved: the opponent's never move or leave in Plakoto and Fevga.
    let total = |p: &TavliPosition, s: usize| {
        p.counts(s).iter().map(|&c| c as u32).sum::<u32>() + p.off(s) as u32
    };
    assert_eq!(total(a, 0), 15);
    assert_eq!(total(a, 1), 15);
    if variant != Variant::Portes {
        assert_eq!(a.counts(1), before.counts(1));
    }
    assert!(a.off(0) >= before.off(0));
    assert_eq!(a.off(1), before.off(1));
    if variant == Variant::Fevga {
        let me = a.counts(0);
        assert!(!(19..=24).all(|m| me[m] > 0), "FE4");
        if !rules.unblock_when_piled && !rules.start_quarter_only {
            assert!(!stargammon::tavli::fevga::full_trap(a), "FE5");
        }
    }
    if variant == Variant::Plakoto {
        // A pin of the opponent stands only under one of our checkers.
        for q in 1..=24 {
            if a.pins(1) >> q & 1 == 1 {
                assert!(a.counts(0)[25 - q] > 0);
            }
        }
    }
    assert_eq!(play.end.is_some(), a.result().is_some());
    // The position string round-trips.
    assert_eq!(parse_position_string(&position_string(a)), Ok(*a));
}

fn random_games(variant: Variant, rules: RuleSwitches, games: u32, seed: u64) {
    let mut rng = Rng::seeded(seed);
    let mut ends = [0u32; 3];
    for _ in 0..games {
        let mut game_rng = Rng::seeded(rng.next_u64());
        let g = play_random_game(variant, &rules, &mut game_rng, 5000, |p, d| {
            let ps = legal_plays(p, d, &rules);
            assert!(!ps.is_empty());
            let distinct: BTreeSet<_> = ps.iter().map(|q| q.after).collect();
            assert_eq!(distinct.len(), ps.len(), "distinct results");
            for play in &ps {
                check_play(variant, &rules, p, play);
            }
            assert_eq!(parse_position_string(&position_string(p)), Ok(*p));
        });
        match g.outcome.expect("every game ends") {
            TavliResult::Tie => ends[2] += 1,
            o if o.mover_points().abs() == 2 => ends[1] += 1,
            _ => ends[0] += 1,
        }
    }
    assert_eq!(ends.iter().sum::<u32>(), games);
}

#[test]
fn random_games_keep_the_invariants_portes() {
    random_games(Variant::Portes, RuleSwitches::default(), 100, 1);
}

#[test]
fn random_games_keep_the_invariants_plakoto() {
    random_games(Variant::Plakoto, RuleSwitches::default(), 100, 2);
    random_games(
        Variant::Plakoto,
        RuleSwitches {
            pinned_counts_home: true,
            ..RuleSwitches::default()
        },
        30,
        3,
    );
}

#[test]
fn random_games_keep_the_invariants_fevga() {
    random_games(Variant::Fevga, RuleSwitches::default(), 100, 4);
    random_games(
        Variant::Fevga,
        RuleSwitches {
            unblock_when_piled: true,
            ..RuleSwitches::default()
        },
        30,
        5,
    );
    random_games(
        Variant::Fevga,
        RuleSwitches {
            start_quarter_only: true,
            ..RuleSwitches::default()
        },
        30,
        6,
    );
}

// ---- Bad input ----

#[test]
fn impossible_positions_are_refused() {
    for bad in [
        "",
        "chess:24-15:24-15",
        "plakoto:24-15",
        "plakoto:24-16:24-15",
        "plakoto:24-10,23-6:24-15",
        "plakoto:25-1:24-15",
        "plakoto:bar-1,24-14:24-15",
        "fevga:24-15,24-1:24-15",
        "fevga:12-1,24-14:24-15",
        "portes:24-15:1-15",
        "portes:24-1p,23-14:24-15",
        "plakoto:24-2p,23-13:24-15",
        "plakoto:10-1p,24-14:24-15",
        "plakoto:10-1,24-14:15-1,24-14",
        "plakoto:::",
        ":::",
        "plakoto:24-0:24-15",
        "plakoto:24-:24-15",
        "plakoto:-1:24-15",
        "plakoto:24-1x:24-15",
        "plakoto:+24-15:24-15",
        "plakoto::",
        "\u{0}\u{ff}",
    ] {
        assert!(parse_position_string(bad).is_err(), "{bad:?}");
    }
    assert!(parse_position_string("plakoto:24-15:").is_ok());
}

#[test]
fn portes_game_ending_step_needs_no_second_die() {
    // C5: 2/off with the 3 ends the game; 2/1*/off uses both dice and hits O's blot.
    // Backgammon's rules allow only the second.
    let p = pos("portes:2-1:24-1,19-1,12-2,9-1,8-1,6-1,5-1,4-1,2-4,1-2");
    assert_eq!(moves(&p, 3, 1), set(&["2/off", "2/1*/off"]));
    let bg = pos("backgammon:2-1:24-1,19-1,12-2,9-1,8-1,6-1,5-1,4-1,2-4,1-2");
    assert_eq!(moves(&bg, 3, 1), set(&["2/1*/off"]));
}

#[test]
fn position_strings_of_random_bytes_never_panic() {
    let alphabet: &[u8] = b"portesplakotofevga:,-p0123456789bar \x00\xff";
    let mut rng = Rng::seeded(99);
    for _ in 0..20_000 {
        let len = rng.index(40);
        let bytes: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.index(alphabet.len())])
            .collect();
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(p) = parse_position_string(&text) {
            assert_eq!(parse_position_string(&position_string(&p)), Ok(p));
        }
        // Mutations of a valid string.
        let mut s = position_string(&TavliPosition::start(Variant::Plakoto)).into_bytes();
        let at = rng.index(s.len());
        s[at] = alphabet[rng.index(alphabet.len())];
        let _ = parse_position_string(&String::from_utf8_lossy(&s));
    }
}
