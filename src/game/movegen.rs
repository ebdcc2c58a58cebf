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
    let b: [u8; 26] = p.slots.map(|c| c as u8);
    let w0 = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    let w1 = u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
    let w2 = u64::from_le_bytes([b[16], b[17], b[18], b[19], b[20], b[21], b[22], b[23]]);
    let w3 = u16::from_le_bytes([b[24], b[25]]) as u64;
    let h = (w0 ^ w3.rotate_left(40)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ w1.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ w2.wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^ (h >> 31)
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

/// A position under construction with two bit masks kept up to date step by step:
/// `occ` (bit i: the mover has a checker on slot i) and `open` (bit i: the mover may land
/// on slot i, i.e. at most one opponent checker there).
#[derive(Clone, Copy)]
struct Node {
    pos: Position,
    occ: u32,
    open: u32,
}

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
const LOW_BITS: u64 = 0x0101_0101_0101_0101;

/// Gathers the high bit of each byte of `v` into an 8-bit mask (byte i -> bit i).
#[inline]
fn gather_high_bits(v: u64) -> u32 {
    (((v & HIGH_BITS) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// For eight signed counts packed in a word: (mask of counts > 0, mask of counts >= -1).
#[inline]
fn byte_masks(x: u64) -> (u32, u32) {
    let sign = x & HIGH_BITS;
    // Per-byte "x != 0" in the high bit, without carries between bytes.
    let nonzero = (((x & !HIGH_BITS) + !HIGH_BITS) | x) & HIGH_BITS;
    let positive = nonzero & !sign;
    // Per-byte x + 1 without carries between bytes; its sign tells x < -1.
    let plus_one = ((x & !HIGH_BITS) + LOW_BITS) ^ sign;
    let open = !plus_one & HIGH_BITS;
    (gather_high_bits(positive), gather_high_bits(open))
}

/// Bits 1..=24: the points.
const POINTS: u32 = ((1 << 25) - 1) & !1;

impl Node {
    fn new(pos: &Position) -> Node {
        let b: [u8; 26] = pos.slots.map(|c| c as u8);
        let mut occ = 0u32;
        let mut open = 0u32;
        for (k, chunk) in [&b[0..8], &b[8..16], &b[16..24]].into_iter().enumerate() {
            let mut w = [0u8; 8];
            w.copy_from_slice(chunk);
            let (o, p) = byte_masks(u64::from_le_bytes(w));
            occ |= o << (8 * k);
            open |= p << (8 * k);
        }
        for i in 24..26 {
            let c = pos.slots[i];
            occ |= ((c > 0) as u32) << i;
            open |= ((c >= -1) as u32) << i;
        }
        Node {
            pos: *pos,
            occ,
            open,
        }
    }

    /// Bit mask of the slots a checker may leave with `die` (bit i = slot i), applying the
    /// bar rule, blocked points and the bear-off rules.
    #[inline]
    fn sources(&self, die: u8) -> u32 {
        let d = die as u32;
        if self.occ & (1 << BAR) != 0 {
            return if self.open & (1 << (BAR as u32 - d)) != 0 {
                1 << BAR
            } else {
                0
            };
        }
        if self.occ == 0 {
            return 0;
        }
        let hi = 31 - self.occ.leading_zeros();
        // Steps that stay on the board: from f to f - d, for f in d+1..=24.
        let mut mask = self.occ & (self.open << d) & POINTS & !((2u32 << d) - 1);
        if hi <= 6 {
            // Bearing off: exactly, or with a larger die from the highest point.
            if d <= hi {
                mask |= self.occ & (1 << d);
            } else {
                mask |= 1 << hi;
            }
        }
        mask
    }

    /// Moves one checker in place and returns the step.
    #[inline]
    fn apply(&mut self, from: usize, die: u8) -> Step {
        let hit = self.pos.apply_step(from, die);
        if self.pos.slots[from] == 0 {
            self.occ &= !(1 << from);
        }
        let to = from.saturating_sub(die as usize);
        if to > 0 {
            self.occ |= 1 << to;
            self.open |= 1 << to;
        }
        Step {
            from: from as u8,
            to: to as u8,
            hit,
        }
    }

    #[inline]
    fn step(&self, from: usize, die: u8) -> (Node, Step) {
        let mut n = *self;
        let s = n.apply(from, die);
        (n, s)
    }
}

/// Pops the highest set bit of a non-zero mask.
#[inline]
fn pop_high(mask: &mut u32) -> usize {
    let b = 31 - mask.leading_zeros() as usize;
    *mask &= !(1 << b);
    b
}

const NO_STEP: Step = Step {
    from: 0,
    to: 0,
    hit: false,
};

/// Depth-first over the steps of a double, sources non-increasing, with an explicit
/// stack so that each level works on its own node in place.
fn doubles(list: &mut PlayList, root: &Node, die: u8) {
    let mut nodes = [*root; 5];
    let mut masks = [0u32; 5];
    let mut steps = [NO_STEP; 4];
    masks[0] = root.sources(die);
    if masks[0] == 0 {
        return;
    }
    let mut level = 0usize;
    loop {
        if masks[level] == 0 {
            if level == 0 {
                return;
            }
            level -= 1;
            continue;
        }
        let from = pop_high(&mut masks[level]);
        nodes[level + 1] = nodes[level];
        steps[level] = nodes[level + 1].apply(from, die);
        level += 1;
        let next = if level < 4 {
            // Non-increasing sources: keep bits 0..=from.
            nodes[level].sources(die) & ((2u32 << from) - 1)
        } else {
            0
        };
        if next == 0 {
            list.push(nodes[level].pos, steps, level as u8, false);
            level -= 1;
        } else {
            masks[level] = next;
        }
    }
}

/// Fills `list` with every distinct legal play of `dice` in `p`. When no checker can move
/// the list holds the single empty play, so it is never empty.
pub fn generate_plays(p: &Position, dice: Dice, list: &mut PlayList) {
    list.reset();
    let root = Node::new(p);
    let (h, l) = (dice.high(), dice.low());
    if h == l {
        doubles(list, &root, h);
        if list.plays.is_empty() {
            list.plays.push(Play::none(*p));
        }
        return;
    }
    let high_sources = root.sources(h);
    let low_sources = root.sources(l);
    // Larger die first.
    let mut mask = high_sources;
    while mask != 0 {
        let a = pop_high(&mut mask);
        let (q, s1) = root.step(a, h);
        let mut second = q.sources(l);
        if second == 0 {
            list.push(q.pos, [s1, NO_STEP, NO_STEP, NO_STEP], 1, true);
        }
        while second != 0 {
            let b = pop_high(&mut second);
            let (r, s2) = q.step(b, l);
            list.push(r.pos, [s1, s2, NO_STEP, NO_STEP], 2, true);
        }
    }
    // Smaller die first. A larger-die step by another checker that was already legal
    // before the smaller step gives a sequence the first loop found in the other order:
    // moving first only ever keeps later steps legal (checkers move towards home, and the
    // smaller step stays legal after it), so skip those.
    let mut mask = low_sources;
    while mask != 0 {
        let a = pop_high(&mut mask);
        let (q, s1) = root.step(a, l);
        let all_second = q.sources(h);
        if all_second == 0 {
            list.push(q.pos, [s1, NO_STEP, NO_STEP, NO_STEP], 1, true);
        }
        // The checker that just moved (bit 0 when it bore off, which no source uses).
        let moved = 1u32 << a.saturating_sub(l as usize);
        let mut second = all_second & !(high_sources & !moved);
        while second != 0 {
            let b = pop_high(&mut second);
            let (r, s2) = q.step(b, h);
            list.push(r.pos, [s1, s2, NO_STEP, NO_STEP], 2, true);
        }
    }
    if list.max_used == 1 {
        // No sequence uses both dice: the larger die must be played if it can be.
        let (die, mut mask) = if high_sources != 0 {
            (h, high_sources)
        } else {
            (l, low_sources)
        };
        list.reset();
        while mask != 0 {
            let a = pop_high(&mut mask);
            let (q, s) = root.step(a, die);
            list.push(q.pos, [s, NO_STEP, NO_STEP, NO_STEP], 1, true);
        }
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
