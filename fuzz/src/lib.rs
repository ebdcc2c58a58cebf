//! What several fuzz targets share: reading bytes as text the way the line readers do, and
//! deriving structured inputs (a reachable position, dice) from the first bytes of an input.

use stargammon::game::{legal_plays, Dice, Position, ALL_ROLLS};

/// Bytes as text: valid UTF-8 as it is, anything else with replacement characters (what the
/// readers of sockets, files and stdin do before parsing).
pub fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// One of the 21 rolls, chosen by a byte.
pub fn dice_of(byte: u8) -> Dice {
    ALL_ROLLS[byte as usize % ALL_ROLLS.len()]
}

/// A position reached from the opening by legal plays, and the bytes left over.
///
/// The first byte is the number of plies to walk (up to 63, fewer when the input runs out);
/// each ply takes two bytes, one for the roll and one for the play among the legal ones. So
/// every position this returns is one a game can reach, and the fuzzer can steer towards
/// bar, hit, bear-off and blocked positions by changing a few bytes.
pub fn walk(data: &[u8]) -> (Position, &[u8]) {
    let Some((&n, mut rest)) = data.split_first() else {
        return (Position::OPENING, data);
    };
    let mut pos = Position::OPENING;
    for _ in 0..(n % 64) {
        let [roll, pick, tail @ ..] = rest else {
            break;
        };
        if pos.is_game_over() {
            break;
        }
        let plays = legal_plays(&pos, dice_of(*roll));
        let play = plays[*pick as usize % plays.len()];
        pos = play.next_position();
        rest = tail;
    }
    (pos, rest)
}
