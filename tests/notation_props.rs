//! Property tests: id and notation round trips, the legal-play invariants checked against
//! a plain brute-force search written here, and parsers that never panic.

use std::collections::BTreeSet;

use proptest::prelude::*;

use stargammon::cli::pos_arg::parse_pos_arg;
use stargammon::game::{legal_plays, Decision, Dice, GameResult, MatchState, Position, Rules};
use stargammon::notation::{
    decode_position_id, format_play, ids_from_match_state, match_state_from_ids, parse_gnubg_ids,
    parse_move, position_id, FibsOrientation, GameState, MatchId, MoveStyle, Xgid,
};

/// A valid position: each side's 15 checkers each placed on one of 26 places (off, points
/// 1..24, bar) in its own numbering; an opposing checker that lands on an occupied point
/// is borne off instead.
fn position() -> impl Strategy<Value = Position> {
    (
        prop::collection::vec(0usize..26, 15),
        prop::collection::vec(0usize..26, 15),
        prop::bool::ANY,
    )
        .prop_map(|(mine, theirs, crowd)| {
            let mut s = [0i8; 26];
            for &p in &mine {
                // Half the cases squeeze the mover towards home so bear-offs come up.
                let p = if crowd && p > 0 && p < 25 {
                    1 + p % 8
                } else {
                    p
                };
                if p > 0 {
                    s[p] += 1;
                }
            }
            for &q in &theirs {
                if q == 0 {
                    continue;
                }
                let slot = if q == 25 { 0 } else { 25 - q };
                if s[slot] <= 0 {
                    s[slot] -= 1;
                }
            }
            if s.iter().all(|&c| c == 0) {
                s[1] = 1;
            }
            Position::from_slots(s).expect("constructed position is valid")
        })
}

fn dice() -> impl Strategy<Value = Dice> {
    (1u8..=6, 1u8..=6).prop_map(|(a, b)| Dice::new(a, b).expect("valid faces"))
}

/// A Match ID that describes a reachable state (what the reader accepts): fields drawn
/// freely, then made consistent the way a game makes them.
fn match_id() -> impl Strategy<Value = MatchId> {
    (
        (0u32..13, prop::option::of(0u8..2), 0u8..2, prop::bool::ANY),
        (0usize..5, 0u8..2, prop::bool::ANY, 0u8..4),
        (
            prop::option::of((1u8..=6, 1u8..=6)),
            0u32..=64,
            0u32..64,
            0u32..64,
        ),
        prop::bool::ANY,
    )
        .prop_map(
            |((cube, owner, on_roll, crawford), (gs, turn, dbl, res), (dice, len, s0, s1), j)| {
                consistent(MatchId {
                    cube: 1 << cube,
                    cube_owner: owner,
                    on_roll,
                    crawford,
                    game_state: [
                        GameState::NoGame,
                        GameState::Playing,
                        GameState::Over,
                        GameState::Resigned,
                        GameState::Dropped,
                    ][gs],
                    turn,
                    double_offered: dbl,
                    resignation: [
                        None,
                        Some(GameResult::Single),
                        Some(GameResult::Gammon),
                        Some(GameResult::Backgammon),
                    ][res as usize],
                    dice,
                    match_length: len,
                    score: [s0, s1],
                    jacoby: j,
                })
            },
        )
}

/// Makes the fields of `m` agree with each other as they do in a game.
fn consistent(mut m: MatchId) -> MatchId {
    if m.match_length > 0 {
        for s in &mut m.score {
            *s %= m.match_length;
        }
    }
    let one_away = m.score.map(|s| s + 1 == m.match_length);
    m.crawford &= m.match_length > 0 && one_away[0] != one_away[1];
    let in_play = m.game_state == GameState::Playing;
    if m.crawford && in_play {
        m.cube = 1;
        m.cube_owner = None;
        m.double_offered = false;
    }
    if m.double_offered {
        m.dice = None;
        m.resignation = None;
    }
    m.dice = m.dice.map(|(a, b)| (a.max(b), a.min(b)));
    if in_play && !m.double_offered && m.resignation.is_none() {
        m.turn = m.on_roll;
    }
    m
}

/// A typed match state as the ids produce it: a game in progress, no resignation.
fn match_state() -> impl Strategy<Value = MatchState> {
    (position(), match_id()).prop_map(|(pos, mut m)| {
        m.game_state = GameState::Playing;
        m.resignation = None;
        let m = consistent(m);
        match_state_from_ids(&pos, &m).expect("valid ids")
    })
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// A Match ID's text from raw field values, written here bit by bit (docs/protocols.md,
/// "Position ID, Match ID and XGID") so that values the typed `MatchId` cannot hold can
/// be tried too.
fn raw_match_id(fields: &[(u32, u32)]) -> String {
    let mut key = [0u8; 9];
    let mut at = 0;
    for &(value, width) in fields {
        for i in 0..width {
            if value >> i & 1 == 1 {
                key[(at + i as usize) / 8] |= 1 << ((at + i as usize) % 8);
            }
        }
        at += width as usize;
    }
    let mut out = String::new();
    for chunk in key.chunks(3) {
        let n = (chunk[0] as u32) << 16 | (chunk[1] as u32) << 8 | chunk[2] as u32;
        for k in 0..4 {
            out.push(B64[(n >> (18 - 6 * k) & 63) as usize] as char);
        }
    }
    out
}

/// Raw Match ID fields around the valid ranges, occasionally far outside them.
fn raw_fields() -> impl Strategy<Value = Vec<(u32, u32)>> {
    let length = prop_oneof![4 => 0u32..70, 1 => 0u32..0x8000];
    let score = || prop_oneof![4 => 0u32..70, 1 => 0u32..0x8000];
    (
        (
            0u32..16,
            0u32..4,
            0u32..2,
            0u32..2,
            0u32..8,
            0u32..2,
            0u32..2,
        ),
        (0u32..4, 0u32..8, 0u32..8, length, score(), score(), 0u32..2),
    )
        .prop_map(
            |((cube, owner, on_roll, crawford, gs, turn, dbl), (res, d1, d2, len, s0, s1, nj))| {
                vec![
                    (cube, 4),
                    (owner, 2),
                    (on_roll, 1),
                    (crawford, 1),
                    (gs, 3),
                    (turn, 1),
                    (dbl, 1),
                    (res, 2),
                    (d1, 3),
                    (d2, 3),
                    (len, 15),
                    (s0, 15),
                    (s1, 15),
                    (nj, 1),
                ]
            },
        )
}

// ---- brute force, written plainly and independently of the move generator ----

fn step_ok(s: &[i8; 26], from: usize, die: usize) -> bool {
    if s[from] <= 0 || (s[25] > 0 && from != 25) {
        return false;
    }
    if from > die {
        return s[from - die] >= -1;
    }
    let all_home = (7..=25).all(|p| s[p] <= 0);
    if !all_home {
        return false;
    }
    from == die || (from + 1..=6).all(|p| s[p] <= 0)
}

fn do_step(s: &[i8; 26], from: usize, die: usize) -> [i8; 26] {
    let mut t = *s;
    t[from] -= 1;
    if from > die {
        let to = from - die;
        if t[to] == -1 {
            t[to] = 0;
            t[0] -= 1;
        }
        t[to] += 1;
    }
    t
}

/// Every maximal sequence: (dice used, first die used, resulting slots).
fn search(
    s: &[i8; 26],
    left: &[usize],
    used: usize,
    first: usize,
    out: &mut Vec<(usize, usize, [i8; 26])>,
) {
    let mut moved = false;
    for i in 0..left.len() {
        let die = left[i];
        let mut rest = left.to_vec();
        rest.remove(i);
        for from in 1..=25 {
            if step_ok(s, from, die) {
                moved = true;
                let f = if used == 0 { die } else { first };
                search(&do_step(s, from, die), &rest, used + 1, f, out);
            }
        }
    }
    if !moved {
        out.push((used, first, *s));
    }
}

/// The legal resulting positions and the number of dice they use, by brute force.
fn brute_force(p: &Position, d: Dice) -> (usize, BTreeSet<[i8; 26]>) {
    let dice: Vec<usize> = if d.is_double() {
        vec![d.high() as usize; 4]
    } else {
        vec![d.high() as usize, d.low() as usize]
    };
    let mut all = Vec::new();
    search(p.slots(), &dice, 0, 0, &mut all);
    let max = all.iter().map(|e| e.0).max().unwrap_or(0);
    let mut best: Vec<_> = all.into_iter().filter(|e| e.0 == max).collect();
    if max == 1 && !d.is_double() && best.iter().any(|e| e.1 == d.high() as usize) {
        best.retain(|e| e.1 == d.high() as usize);
    }
    (max, best.into_iter().map(|e| e.2).collect())
}

fn checkers(s: &[i8; 26]) -> (i32, i32) {
    let mine = s.iter().filter(|&&c| c > 0).map(|&c| c as i32).sum();
    let theirs = s.iter().filter(|&&c| c < 0).map(|&c| -(c as i32)).sum();
    (mine, theirs)
}

const STYLES: [MoveStyle; 4] = [
    MoveStyle::Gnubg,
    MoveStyle::Plain,
    MoveStyle::Fibs(FibsOrientation::Direct),
    MoveStyle::Fibs(FibsOrientation::Reversed),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn position_id_round_trips(p in position()) {
        let id = position_id(&p);
        prop_assert_eq!(id.len(), 14);
        prop_assert_eq!(decode_position_id(&id), Ok(p));
        // The id is written by the player on roll: the swapped board has another id
        // unless the position is symmetric.
        if p.swap() != p {
            prop_assert_ne!(position_id(&p.swap()), id);
        }
    }

    #[test]
    fn match_id_round_trips(m in match_id()) {
        let text = m.encode().expect("fields fit");
        prop_assert_eq!(text.len(), 12);
        prop_assert_eq!(MatchId::decode(&text), Ok(m));
    }

    #[test]
    fn every_match_id_read_prints_back_the_same(fields in raw_fields()) {
        let text = raw_match_id(&fields);
        let Ok(m) = MatchId::decode(&text) else {
            // Nothing refused may be readable as a state either.
            let ids = format!("4HPwATDgc/ABMA:{text}");
            prop_assert!(parse_gnubg_ids(&ids).is_err());
            return Ok(());
        };
        prop_assert_eq!(m.encode(), Ok(text.clone()));
        let Ok(ms) = parse_gnubg_ids(&format!("4HPwATDgc/ABMA:{text}")) else {
            return Ok(());
        };
        // The typed state holds all of a game in progress; a resignation on offer and the
        // kind of a finished game are the Match ID's alone.
        if m.game_state == GameState::Playing && m.resignation.is_none() {
            let (pos, back) = ids_from_match_state(&ms);
            prop_assert_eq!(position_id(&pos), "4HPwATDgc/ABMA");
            prop_assert_eq!(back.encode(), Ok(text));
        }
    }

    #[test]
    fn match_state_round_trips_through_gnubg_ids(ms in match_state()) {
        let (pos, m) = ids_from_match_state(&ms);
        prop_assert_eq!(match_state_from_ids(&pos, &m), Ok(ms.clone()));
        let text = format!("{}:{}", position_id(&pos), m.encode().expect("fits"));
        prop_assert_eq!(parse_gnubg_ids(&text), Ok(ms.clone()));
        prop_assert_eq!(parse_pos_arg(&text), Ok(ms));
    }

    #[test]
    fn match_state_round_trips_through_xgid(ms in match_state()) {
        let x = Xgid::from_match_state(&ms);
        let text = x.to_string();
        prop_assert_eq!(Xgid::parse(&text), Ok(x));
        let back = x.to_match_state().expect("readable");
        // Reading makes the player on roll gnubg's player 1, as gnubg does. The XGID states
        // the money rules (Jacoby as the state had it, beavers off) and none in a match.
        let mut want = ms.clone();
        want.acting_player = (ms.decision != Decision::TakeOrDrop) as u8;
        want.rules = if ms.is_money() {
            Rules {
                jacoby: Some(ms.rules.jacoby.unwrap_or(false)),
                beavers: Some(false),
            }
        } else {
            Rules::default()
        };
        prop_assert_eq!(&back, &want);
        prop_assert_eq!(parse_pos_arg(&text), Ok(want));
    }

    #[test]
    fn every_play_keeps_fifteen_checkers_and_uses_the_most_dice(p in position(), d in dice()) {
        let plays = legal_plays(&p, d);
        let (max, expected) = brute_force(&p, d);
        prop_assert!(!plays.is_empty());
        let before = checkers(p.slots());
        let mut got = BTreeSet::new();
        for q in &plays {
            let after = checkers(q.position.slots());
            let borne_off = q.steps().iter().filter(|s| s.to == 0).count() as i32;
            prop_assert_eq!(after.0 + borne_off, before.0, "mover checkers lost or gained");
            prop_assert_eq!(after.1, before.1, "opponent checkers lost or gained");
            prop_assert_eq!(q.position.off() as i32 + after.0, 15);
            prop_assert_eq!(q.position.opp_off() as i32 + after.1, 15);
            prop_assert_eq!(q.steps().len(), max, "a play uses fewer dice than possible");
            got.insert(*q.position.slots());
        }
        prop_assert_eq!(got.len(), plays.len(), "a resulting position is listed twice");
        prop_assert_eq!(got, expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_play_reads_back_in_every_style(p in position(), d in dice()) {
        for q in legal_plays(&p, d) {
            for style in STYLES {
                let text = format_play(&p, &q, style);
                let back = parse_move(&text, &p, d, style);
                prop_assert_eq!(
                    back.map(|b| b.position),
                    Ok(q.position),
                    "{:?} {:?}: {:?} in {:?}",
                    p,
                    d,
                    text,
                    style
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_parser_panics_on_arbitrary_text(text in ".{0,60}") {
        check_parsers(&text);
    }

    #[test]
    fn no_parser_panics_on_near_miss_text(text in "[0-9a-pA-P/+*()=:, -]{0,60}") {
        check_parsers(&text);
    }
}

fn check_parsers(text: &str) {
    let _ = decode_position_id(text);
    let _ = MatchId::decode(text);
    let _ = parse_gnubg_ids(text);
    if let Ok(x) = Xgid::parse(text) {
        let _ = x.to_match_state();
        let _ = x.to_string();
    }
    let _ = parse_pos_arg(text);
    let d = Dice::new(3, 1).expect("dice");
    for style in STYLES {
        let _ = parse_move(text, &Position::OPENING, d, style);
    }
}
