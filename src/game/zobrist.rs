//! Zobrist keys for positions, move nodes and chance nodes.
//!
//! One random 64-bit key per (side, slot, checker count), XORed over the occupied slots.
//! Positions are always seen from the side to act, so a position reached with either
//! player on roll hashes consistently. Move nodes (dice known) mix in a key per roll;
//! chance nodes (before the roll) use the position key alone. A salt derived from the
//! evaluator's identity and the search mode is mixed into every key, so one table can
//! serve different evaluators (different nets, different noise) without stale hits.
//!
//! The keys are generated at compile time from a fixed SplitMix64 stream, so they are the
//! same in every build and on every machine.

use crate::game::Position;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Keys indexed by [side][slot][count]; side 0 = side to act, 1 = opponent.
const fn make_checker_keys() -> [[[u64; 16]; 26]; 2] {
    let mut out = [[[0u64; 16]; 26]; 2];
    let mut state = 0x5354_4152_4741_4D4Du64;
    let mut side = 0;
    while side < 2 {
        let mut slot = 0;
        while slot < 26 {
            let mut count = 1;
            while count < 16 {
                let (s, k) = splitmix(state);
                state = s;
                out[side][slot][count] = k;
                count += 1;
            }
            slot += 1;
        }
        side += 1;
    }
    out
}

const fn make_roll_keys() -> [u64; 21] {
    let mut out = [0u64; 21];
    let mut state = 0x524F_4C4C_4B45_5953u64;
    let mut i = 0;
    while i < 21 {
        let (s, k) = splitmix(state);
        state = s;
        out[i] = k;
        i += 1;
    }
    out
}

/// The same keys indexed by [slot][16 + signed count] (positive for the side to act, key 0
/// for an empty slot), so that a slot's key is one read without a branch.
const fn make_slot_keys() -> [[u64; 32]; 26] {
    let by_side = make_checker_keys();
    let mut out = [[0u64; 32]; 26];
    let mut slot = 0;
    while slot < 26 {
        let mut count = 1;
        while count < 16 {
            out[slot][16 + count] = by_side[0][slot][count];
            out[slot][16 - count] = by_side[1][slot][count];
            count += 1;
        }
        slot += 1;
    }
    out
}

static SLOT_KEYS: [[u64; 32]; 26] = make_slot_keys();
static ROLL_KEYS: [u64; 21] = make_roll_keys();

/// The key of a position (side to act's view).
#[inline]
pub fn position_key(pos: &Position) -> u64 {
    let mut k = 0u64;
    for (keys, &c) in SLOT_KEYS.iter().zip(pos.slots()) {
        // A count is -15..=15, so the index is 1..=31 (and always inside the row).
        k ^= keys[(c as i32 + 16) as usize & 31];
    }
    k
}

/// The key of a move node: `pos_key` from [`position_key`] with the roll's index in
/// [`crate::game::ALL_ROLLS`].
#[inline]
pub fn move_key(pos_key: u64, roll: usize) -> u64 {
    pos_key ^ ROLL_KEYS[roll % 21]
}

/// A salt for keys from any identifying text (evaluator name, mode): FNV-1a followed by a
/// SplitMix64 finaliser.
pub fn salt(text: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    splitmix(h).1
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::{legal_plays, Dice};

    #[test]
    fn keys_are_distinct_and_transpositions_agree() {
        let mut all: Vec<u64> = SLOT_KEYS.iter().flatten().copied().collect();
        all.retain(|&k| k != 0);
        all.extend(ROLL_KEYS);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);

        // Different play orders reaching one position give one key; different positions differ.
        let plays = legal_plays(&Position::OPENING, Dice::new(3, 1).unwrap());
        let keys: Vec<u64> = plays.iter().map(|p| position_key(&p.position)).collect();
        let mut d = keys.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), keys.len());
        let after = plays[0].position;
        assert_ne!(position_key(&after), position_key(&after.swap()));
        assert_eq!(position_key(&after), position_key(&after.swap().swap()));
        assert_ne!(salt("a"), salt("b"));
    }

    /// The key of a position is the XOR, over its occupied slots, of the key of
    /// (side, slot, count) in the generated stream: the values every table, seed and
    /// pin was made with.
    #[test]
    fn position_keys_are_the_per_side_keys() {
        let by_side = make_checker_keys();
        let mut positions = vec![Position::OPENING, Position::OPENING.swap()];
        for (pos, _) in crate::testing::random_game_positions(7, 40) {
            positions.push(pos);
        }
        for pos in positions {
            let mut want = 0u64;
            for (slot, &c) in pos.slots().iter().enumerate() {
                if c > 0 {
                    want ^= by_side[0][slot][c as usize];
                } else if c < 0 {
                    want ^= by_side[1][slot][c.unsigned_abs() as usize];
                }
            }
            assert_eq!(position_key(&pos), want, "{pos:?}");
        }
        assert_eq!(position_key(&Position::OPENING), 0xFE47_F59F_25A4_40BF);
    }
}
