//! Legal plays under the full rules.
//!
//! A *play* is a distinct resulting position; each comes with one canonical sequence of
//! checker steps for display. The rules enforced here:
//! - checkers on the bar enter before any other checker moves;
//! - both dice must be used when possible, all four steps of a double when possible;
//! - when only one die of a non-double can be used, the larger one must be used if it can;
//! - bearing off only with every checker in the home board; a die larger than needed bears
//!   off from the highest occupied point only.
//!
//! Doubles are enumerated with non-increasing source points, which yields every multiset
//! of steps once and, since steps of one length on a line are determined by their net
//! effect, every resulting position once. Non-doubles try both dice orders and drop
//! repeated positions through a small stamped hash table.

use super::dice::Dice;
use super::position::{Position, BAR};

/// One checker step: from a slot (25 = bar) to a slot (0 = borne off).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Step {
    pub from: u8,
    pub to: u8,
    pub hit: bool,
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}{}",
            self.from,
            self.to,
            if self.hit { "*" } else { "" }
        )
    }
}

/// A legal play: the resulting position (still from the mover's view) and the steps that
/// produce it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Play {
    /// The position after the play, from the view of the side that moved.
    pub position: Position,
    steps: [Step; 4],
    len: u8,
}

impl Play {
    /// The steps of the play, in an order in which they are legal.
    #[inline]
    pub fn steps(&self) -> &[Step] {
        &self.steps[..self.len as usize]
    }

    /// The position after the play with the opponent to act.
    #[inline]
    pub fn next_position(&self) -> Position {
        self.position.swap()
    }

    /// The empty play (no legal move): the position is unchanged.
    pub fn none(position: Position) -> Play {
        Play {
            position,
            steps: [Step::default(); 4],
            len: 0,
        }
    }
}

impl std::fmt::Debug for Play {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Play{:?}", self.steps())
    }
}

const TABLE_BITS: u32 = 10;
const TABLE_SIZE: usize = 1 << TABLE_BITS;

/// A reusable buffer of plays that does not allocate after warm-up.
#[derive(Clone)]
pub struct PlayList {
    plays: Vec<Play>,
    /// Open-addressing set of indices into `plays`, valid where `stamp` matches.
    slots: Box<[u32; TABLE_SIZE]>,
    stamps: Box<[u32; TABLE_SIZE]>,
    stamp: u32,
    /// Most dice used by any sequence seen in this generation.
    max_used: u8,
}

impl std::fmt::Debug for PlayList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.plays.iter()).finish()
    }
}

impl Default for PlayList {
    fn default() -> Self {
        PlayList::new()
    }
}

impl std::ops::Deref for PlayList {
    type Target = [Play];
    fn deref(&self) -> &[Play] {
        &self.plays
    }
}

#[inline]
fn position_hash(p: &Position) -> u64 {
    let s = &p.slots;
    let mut words = [0u64; 4];
    for (i, chunk) in s.chunks(8).enumerate() {
        let mut b = [0u8; 8];
        for (j, &c) in chunk.iter().enumerate() {
            b[j] = c as u8;
        }
        words[i] = u64::from_le_bytes(b);
    }
    let mut h = words[0].wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h = (h ^ words[1]).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h = (h ^ words[2]).wrapping_mul(0x1656_67B1_9E37_79F9);
    h = (h ^ words[3]).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 29)
}

impl PlayList {
    pub fn new() -> PlayList {
        PlayList {
            plays: Vec::with_capacity(64),
            slots: Box::new([0; TABLE_SIZE]),
            stamps: Box::new([0; TABLE_SIZE]),
            stamp: 0,
            max_used: 0,
        }
    }

    /// The plays found by the last generation.
    pub fn as_slice(&self) -> &[Play] {
        &self.plays
    }

    /// Moves the plays out, leaving the buffer empty.
    pub fn take(&mut self) -> Vec<Play> {
        std::mem::take(&mut self.plays)
    }

    fn reset(&mut self) {
        self.plays.clear();
        self.max_used = 0;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.stamps.fill(0);
            self.stamp = 1;
        }
    }

    /// Records a candidate that used `used` dice; keeps only candidates using the most
    /// dice, and with `dedup` drops positions already recorded.
    #[inline]
    fn push(&mut self, position: Position, steps: [Step; 4], used: u8, dedup: bool) {
        if used < self.max_used {
            return;
        }
        if used > self.max_used {
            self.max_used = used;
            self.plays.clear();
            self.stamp = self.stamp.wrapping_add(1);
            if self.stamp == 0 {
                self.stamps.fill(0);
                self.stamp = 1;
            }
        }
        if dedup {
            let mut i = (position_hash(&position) >> (64 - TABLE_BITS)) as usize;
            loop {
                if self.stamps[i] != self.stamp {
                    if self.plays.len() < TABLE_SIZE / 2 {
                        self.stamps[i] = self.stamp;
                        self.slots[i] = self.plays.len() as u32;
                    } else if self.plays.iter().any(|p| p.position == position) {
                        // The table is past half full: fall back to a scan.
                        return;
                    }
                    break;
                }
                if self.plays[self.slots[i] as usize].position == position {
                    return;
                }
                i = (i + 1) & (TABLE_SIZE - 1);
            }
        }
        self.plays.push(Play {
            position,
            steps,
            len: used,
        });
    }
}

/// True when every mover checker is in the home board (points 1..6).
#[inline]
fn all_home(p: &Position) -> bool {
    p.slots[7..26].iter().all(|&c| c <= 0)
}

/// Can a checker step from `from` with `die` in `p`? Assumes the bar rule was already
/// applied by the caller (only slot 25 is tried while checkers are on the bar).
#[inline]
fn can_step(p: &Position, from: usize, die: u8, home: bool) -> bool {
    let to = from as i32 - die as i32;
    if to >= 1 {
        return p.slots[to as usize] >= -1;
    }
    if !home {
        return false;
    }
    if to == 0 {
        return true;
    }
    // Bearing off with a larger die: only from the highest occupied point.
    p.slots[from + 1..7].iter().all(|&c| c <= 0)
}

#[inline]
fn step(p: &Position, from: usize, die: u8) -> (Position, Step) {
    let mut q = *p;
    let hit = q.apply_step(from, die);
    let to = (from as i32 - die as i32).max(0) as u8;
    (
        q,
        Step {
            from: from as u8,
            to,
            hit,
        },
    )
}

/// Calls `f` for each slot a checker may leave with `die`.
#[inline]
fn for_each_source(p: &Position, die: u8, max_from: usize, mut f: impl FnMut(usize)) {
    if p.slots[BAR] > 0 {
        if max_from >= BAR && can_step(p, BAR, die, false) {
            f(BAR);
        }
        return;
    }
    let home = all_home(p);
    let top = max_from.min(24);
    for from in (1..=top).rev() {
        if p.slots[from] > 0 && can_step(p, from, die, home) {
            f(from);
        }
    }
}

fn doubles(list: &mut PlayList, p: &Position, die: u8, max_from: usize, steps: [Step; 4], n: u8) {
    let mut moved = false;
    if n < 4 {
        for_each_source(p, die, max_from, |from| {
            moved = true;
            let (q, s) = step(p, from, die);
            let mut st = steps;
            st[n as usize] = s;
            doubles(list, &q, die, from, st, n + 1);
        });
    }
    if !moved {
        list.push(*p, steps, n, false);
    }
}

fn non_doubles(list: &mut PlayList, p: &Position, first: u8, second: u8) -> bool {
    let mut any_first = false;
    for_each_source(p, first, BAR, |from1| {
        any_first = true;
        let (q, s1) = step(p, from1, first);
        let mut any_second = false;
        for_each_source(&q, second, BAR, |from2| {
            any_second = true;
            let (r, s2) = step(&q, from2, second);
            list.push(r, [s1, s2, Step::default(), Step::default()], 2, true);
        });
        if !any_second {
            list.push(
                q,
                [s1, Step::default(), Step::default(), Step::default()],
                1,
                true,
            );
        }
    });
    any_first
}

/// Fills `list` with every distinct legal play of `dice` in `p`. When no checker can move
/// the list holds the single empty play, so it is never empty.
pub fn generate_plays(p: &Position, dice: Dice, list: &mut PlayList) {
    list.reset();
    let (h, l) = (dice.high(), dice.low());
    if h == l {
        doubles(list, p, h, BAR, [Step::default(); 4], 0);
        return;
    }
    let high_first = non_doubles(list, p, h, l);
    non_doubles(list, p, l, h);
    if list.max_used == 1 {
        // No sequence uses both dice: the larger die must be played if it can be.
        let die = if high_first { h } else { l };
        list.reset();
        for_each_source(p, die, BAR, |from| {
            let (q, s) = step(p, from, die);
            list.push(
                q,
                [s, Step::default(), Step::default(), Step::default()],
                1,
                true,
            );
        });
    }
    if list.plays.is_empty() {
        list.plays.push(Play::none(*p));
    }
}

/// Convenience: the plays of `dice` in `p` as a new vector.
pub fn legal_plays(p: &Position, dice: Dice) -> Vec<Play> {
    let mut list = PlayList::new();
    generate_plays(p, dice, &mut list);
    list.take()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(p: &Position, a: u8, b: u8) -> usize {
        legal_plays(p, Dice::new(a, b).expect("dice")).len()
    }

    #[test]
    fn opening_counts_match_gnubg() {
        let p = Position::OPENING;
        assert_eq!(count(&p, 6, 6), 11);
        assert_eq!(count(&p, 3, 1), 16);
        assert_eq!(count(&p, 2, 1), 15);
    }
}
