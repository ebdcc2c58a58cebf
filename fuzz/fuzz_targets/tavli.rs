//! The Tavli games from any bytes. The first byte picks the game (Portes, Plakoto, Fevga)
//! and the switches of the rules text; with its top bit clear the next bytes walk a game
//! from the start (a count of plies, then two bytes a ply: the roll and the play among the
//! legal ones), with it set they lay out a board directly (a count, then one byte a
//! checker: its side and point; Plakoto pins a lone checker where the other side stands),
//! positions no game needs to reach, refused with a typed error when impossible. The next
//! byte picks the roll and the rest is text. Checked:
//!
//! - the text as a position string gives a position or a typed error, and a position
//!   prints to a string that reads back to it;
//! - the plays of the roll: the canonical step order gives exactly the plays of the search
//!   of every step order, no result twice, and each play printed reads back to itself;
//! - the text as a play: a play that reads is one of the legal plays.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stargammon::game::Variant;
use stargammon::tavli::position::opp_point;
use stargammon::tavli::{
    format_play, legal_plays, legal_plays_every_order, parse_play, parse_position_string,
    position_string, RuleSwitches, TavliPosition, CHECKERS,
};
use stargammon_fuzz::{dice_of, text};

const VARIANTS: [Variant; 3] = [Variant::Portes, Variant::Plakoto, Variant::Fevga];

/// A game from the start, two bytes a ply.
fn walk<'a>(variant: Variant, rules: &RuleSwitches, data: &'a [u8]) -> (TavliPosition, &'a [u8]) {
    let mut pos = TavliPosition::start(variant);
    let Some((&n, mut rest)) = data.split_first() else {
        return (pos, data);
    };
    for _ in 0..(n % 128) {
        let [roll, pick, tail @ ..] = rest else {
            break;
        };
        if pos.result().is_some() {
            break;
        }
        let plays = legal_plays(&pos, dice_of(*roll), rules);
        let Some(play) = plays.get(*pick as usize % plays.len().max(1)) else {
            break;
        };
        pos = play.next_position();
        rest = tail;
    }
    (pos, rest)
}

/// A board laid out by the bytes: one byte a checker, bit 7 its side, the rest its point
/// (1-24, 25 the bar); a side's 16th checker is not placed.
fn board(variant: Variant, data: &[u8]) -> Option<(TavliPosition, &[u8])> {
    let (&n, rest) = data.split_first()?;
    let n = usize::from(n % 31).min(rest.len());
    let (checkers, rest) = rest.split_at(n);
    let mut sides = [[0u8; 26]; 2];
    for &c in checkers {
        let side = usize::from(c >> 7);
        let point = 1 + usize::from(c & 0x7f) % 25;
        if sides[side].iter().map(|&k| u32::from(k)).sum::<u32>() < u32::from(CHECKERS) {
            sides[side][point] += 1;
        }
    }
    let mut pins = [0u32; 2];
    if variant == Variant::Plakoto {
        for m in 1..=24 {
            let q = opp_point(variant, m);
            let (a, b) = (sides[0][m], sides[1][q]);
            if a == 1 && b > 0 {
                pins[0] |= 1 << m;
            } else if b == 1 && a > 0 {
                pins[1] |= 1 << q;
            }
        }
    }
    let pos = TavliPosition::new(variant, sides[0], sides[1], pins).ok()?;
    Some((pos, rest))
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let variant = VARIANTS[usize::from(head & 0x0f) % 3];
    let rules = RuleSwitches {
        pinned_counts_home: head & 0x10 != 0,
        unblock_when_piled: head & 0x20 != 0,
        start_quarter_only: head & 0x40 != 0,
    };
    let (pos, rest) = if head & 0x80 == 0 {
        walk(variant, &rules, rest)
    } else {
        match board(variant, rest) {
            Some(laid) => laid,
            None => return,
        }
    };
    let Some((&roll, rest)) = rest.split_first() else {
        return;
    };
    let dice = dice_of(roll);
    let notation = text(rest);

    if let Ok(read) = parse_position_string(&notation) {
        let printed = position_string(&read);
        let again = parse_position_string(&printed).expect("a printed position reads");
        assert_eq!(again, read, "{printed:?}");
    }

    let plays = legal_plays(&pos, dice, &rules);
    let every = legal_plays_every_order(&pos, dice, &rules);
    let results = |v: &[stargammon::tavli::TavliPlay]| {
        let mut r: Vec<_> = v.iter().map(|p| (p.after, p.end)).collect();
        r.sort_unstable();
        r
    };
    let (fast, slow) = (results(&plays), results(&every));
    assert!(
        fast.windows(2).all(|w| w[0] != w[1]),
        "{pos:?} {dice:?}: a result twice"
    );
    assert_eq!(fast, slow, "{pos:?} {dice:?} {rules:?}");
    for play in &plays {
        let printed = format_play(play);
        let read = parse_play(&pos, dice, &rules, &printed).expect("a printed play reads");
        assert_eq!(
            (read.after, read.end),
            (play.after, play.end),
            "{printed:?}"
        );
    }

    if let Ok(play) = parse_play(&pos, dice, &rules, &notation) {
        assert!(
            plays
                .iter()
                .any(|p| p.after == play.after && p.end == play.end),
            "{notation:?} read as an illegal play"
        );
    }
});
