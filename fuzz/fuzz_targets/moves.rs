//! Move notation in every style, against a position and dice derived from the input: the
//! first bytes walk a game from the opening (see `walk`), the next byte picks the roll, the
//! rest is the move text. A play that parses must be one of the legal plays, and gnubg's
//! printing of it must parse back to it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stargammon::game::legal_plays;
use stargammon::notation::{format_play, parse_move, FibsOrientation, MoveStyle};
use stargammon_fuzz::{dice_of, text, walk};

const STYLES: [MoveStyle; 4] = [
    MoveStyle::Gnubg,
    MoveStyle::Plain,
    MoveStyle::Fibs(FibsOrientation::Direct),
    MoveStyle::Fibs(FibsOrientation::Reversed),
];

fuzz_target!(|data: &[u8]| {
    let (pos, rest) = walk(data);
    let Some((&roll, rest)) = rest.split_first() else {
        return;
    };
    let dice = dice_of(roll);
    let notation = text(rest);
    let legal = legal_plays(&pos, dice);
    for style in STYLES {
        let Ok(play) = parse_move(&notation, &pos, dice, style) else {
            continue;
        };
        assert!(
            legal.iter().any(|p| p.position == play.position),
            "{notation:?} parsed to an illegal play"
        );
        let printed = format_play(&pos, &play, style);
        let again = parse_move(&printed, &pos, dice, style).expect("a printed play parses");
        assert_eq!(again.position, play.position, "{printed:?}");
    }
});
