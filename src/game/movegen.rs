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
//! effect, every resulting position once. Non-doubles try both dice orders, skip the
//! second order where it repeats the first step for step, and compare positions only for
//! the few plays that can repeat another (see `may_repeat`).

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

/// A reusable buffer of plays that does not allocate after warm-up.
#[derive(Clone, Default)]
pub struct PlayList {
    plays: Vec<Play>,
    /// Indices of the plays that another sequence may repeat (see [`may_repeat`]).
    repeatable: Vec<u16>,
    /// Most dice used by any sequence seen in this generation (doubles).
    max_used: u8,
}

impl std::fmt::Debug for PlayList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.plays.iter()).finish()
    }
}

impl std::ops::Deref for PlayList {
    type Target = [Play];
    fn deref(&self) -> &[Play] {
        &self.plays
    }
}

impl PlayList {
    pub fn new() -> PlayList {
        PlayList {
            plays: Vec::with_capacity(64),
            repeatable: Vec::with_capacity(16),
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
        self.repeatable.clear();
        self.max_used = 0;
    }

    /// Records a sequence no other generated sequence can repeat.
    #[inline]
    fn push_unique(&mut self, position: Position, steps: [Step; 4], used: u8) {
        self.plays.push(Play {
            position,
            steps,
            len: used,
        });
    }

    /// Records a sequence whose position another sequence may also reach, unless an
    /// earlier such sequence reached it.
    #[inline]
    fn push_repeatable(&mut self, position: Position, steps: [Step; 4], used: u8) {
        if self
            .repeatable
            .iter()
            .any(|&i| self.plays[i as usize].position == position)
        {
            return;
        }
        self.repeatable.push(self.plays.len() as u16);
        self.push_unique(position, steps, used);
    }

    /// Records a sequence of a double that used `used` steps, keeping only the sequences
    /// that use the most steps.
    #[inline]
    fn push_double(&mut self, position: Position, steps: [Step; 4], used: u8) {
        if used < self.max_used {
            return;
        }
        if used > self.max_used {
            self.max_used = used;
            self.plays.clear();
        }
        self.push_unique(position, steps, used);
    }
}

/// The board under construction as two 16-byte vectors (slots 0..16 and 16..32), so a
/// step is a few vector additions and the masks are vector compares: no byte stores that
/// wide loads would have to wait for. SSE2 is part of the x86_64 baseline; the
/// `target_feature` condition turns that into a compile-time fact the unsafe blocks
/// below rely on.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_movemask_epi8, _mm_set1_epi8,
        _mm_setzero_si128, _mm_sub_epi8,
    };

    use crate::game::position::Position;

    #[derive(Clone, Copy)]
    pub(super) struct Board {
        lo: __m128i,
        hi: __m128i,
    }

    #[derive(Clone, Copy)]
    #[repr(C, align(16))]
    struct Row([i8; 32]);

    const fn unit_rows(first: usize) -> [Row; 32] {
        let mut rows = [Row([0; 32]); 32];
        let mut i = first;
        while i < 26 {
            rows[i].0[i] = 1;
            i += 1;
        }
        rows
    }

    /// Row i: one checker on slot i.
    static UNIT: [Row; 32] = unit_rows(0);
    /// Row i: one checker landing on slot i; row 0 is empty (a checker borne off).
    static LANDING: [Row; 32] = unit_rows(1);

    #[inline]
    fn vectors(row: &Row) -> (__m128i, __m128i) {
        // SAFETY: `Row` is 32 initialised bytes, the size of `[__m128i; 2]` (which
        // `transmute` checks at compile time), and any bytes are a valid `__m128i`.
        let [lo, hi]: [__m128i; 2] = unsafe { std::mem::transmute(*row) };
        (lo, hi)
    }

    #[inline]
    fn mask(lo: __m128i, hi: __m128i) -> u32 {
        // SAFETY: this module only compiles with SSE2 enabled for the target (see its cfg).
        let (l, h) = unsafe { (_mm_movemask_epi8(lo), _mm_movemask_epi8(hi)) };
        // Slots 26..32 are padding.
        ((l as u32 & 0xffff) | ((h as u32) << 16)) & ((1 << 26) - 1)
    }

    impl Board {
        #[inline]
        pub(super) fn load(p: &Position) -> Board {
            // SAFETY: `Position` is `repr(C, align(16))` with 32 initialised bytes
            // (26 slots and 6 zero pad bytes); any bytes are a valid pair of `__m128i`.
            let [lo, hi]: [__m128i; 2] = unsafe { std::mem::transmute(*p) };
            Board { lo, hi }
        }

        #[inline]
        pub(super) fn position(self) -> Position {
            // SAFETY: same size and layout as in `load`, and every byte pattern is a valid
            // `[i8; 32]`. The bytes are a valid position: they came from one by `step`,
            // which moves one checker by the rules and never touches the pad bytes
            // (no row has a non-zero byte past slot 25).
            unsafe { std::mem::transmute([self.lo, self.hi]) }
        }

        /// Bit masks over the slots: (count > 0, count >= -1, count == -1).
        #[inline]
        pub(super) fn masks(&self) -> (u32, u32, u32) {
            // SAFETY: this module only compiles with SSE2 enabled for the target (see its cfg).
            unsafe {
                let zero = _mm_setzero_si128();
                let minus_one = _mm_set1_epi8(-1);
                let minus_two = _mm_set1_epi8(-2);
                (
                    mask(_mm_cmpgt_epi8(self.lo, zero), _mm_cmpgt_epi8(self.hi, zero)),
                    mask(
                        _mm_cmpgt_epi8(self.lo, minus_two),
                        _mm_cmpgt_epi8(self.hi, minus_two),
                    ),
                    mask(
                        _mm_cmpeq_epi8(self.lo, minus_one),
                        _mm_cmpeq_epi8(self.hi, minus_one),
                    ),
                )
            }
        }

        /// One checker from slot `from` to slot `to` (0: borne off), hitting a blot there
        /// when `hit`.
        #[inline]
        pub(super) fn step(&self, from: usize, to: usize, hit: bool) -> Board {
            let (f_lo, f_hi) = vectors(&UNIT[from]);
            let (t_lo, t_hi) = vectors(&LANDING[to]);
            // On a hit the landing slot goes from -1 to +1 and the opponent's bar
            // (slot 0) gains a checker.
            let (h_lo, h_hi) = vectors(&LANDING[to * hit as usize]);
            let (b_lo, _) = vectors(&UNIT[if hit { 0 } else { 31 }]);
            // SAFETY: this module only compiles with SSE2 enabled for the target (see its cfg).
            unsafe {
                let lo = _mm_sub_epi8(
                    _mm_add_epi8(_mm_add_epi8(_mm_sub_epi8(self.lo, f_lo), t_lo), h_lo),
                    b_lo,
                );
                let hi = _mm_add_epi8(_mm_add_epi8(_mm_sub_epi8(self.hi, f_hi), t_hi), h_hi);
                Board { lo, hi }
            }
        }
    }
}

/// The portable board: the position itself, stepped slot by slot. Tests check it
/// against the vector board.
#[cfg(any(not(all(target_arch = "x86_64", target_feature = "sse2")), test))]
mod portable {
    use crate::game::position::{Position, OPP_BAR};

    #[derive(Clone, Copy)]
    pub(super) struct Board(Position);

    impl Board {
        #[inline]
        pub(super) fn load(p: &Position) -> Board {
            Board(*p)
        }

        #[inline]
        pub(super) fn position(self) -> Position {
            self.0
        }

        /// Bit masks over the slots: (count > 0, count >= -1, count == -1).
        #[inline]
        pub(super) fn masks(&self) -> (u32, u32, u32) {
            let (mut occ, mut open, mut blot) = (0, 0, 0);
            for (i, &c) in self.0.slots.iter().enumerate() {
                occ |= ((c > 0) as u32) << i;
                open |= ((c >= -1) as u32) << i;
                blot |= ((c == -1) as u32) << i;
            }
            (occ, open, blot)
        }

        /// One checker from slot `from` to slot `to` (0: borne off), hitting a blot there
        /// when `hit`.
        #[inline]
        pub(super) fn step(&self, from: usize, to: usize, hit: bool) -> Board {
            let mut p = self.0;
            p.slots[from] -= 1;
            if hit {
                p.slots[to] = 1;
                p.slots[OPP_BAR] -= 1;
            } else if to > 0 {
                p.slots[to] += 1;
            }
            Board(p)
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
use portable::Board;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use sse2::Board;

/// A position under construction with the bit masks move generation reads: `occ`
/// (bit i: the mover has a checker on slot i), `open` (bit i: the mover may land on
/// slot i, at most one opponent checker there) and `blot` (bit i of a point: exactly
/// one opponent checker there).
#[derive(Clone, Copy)]
struct Node {
    board: Board,
    occ: u32,
    open: u32,
    blot: u32,
}

/// Bits 1..=24: the points.
const POINTS: u32 = ((1 << 25) - 1) & !1;

impl Node {
    #[inline]
    fn new(board: Board) -> Node {
        let (occ, open, blot) = board.masks();
        Node {
            board,
            occ,
            open,
            blot: blot & POINTS,
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

    /// The board after one more step (a legal source for `die`), and the step.
    #[inline]
    fn finish(&self, from: usize, die: u8) -> (Board, Step) {
        let to = from.saturating_sub(die as usize);
        let hit = (self.blot >> to) & 1 != 0;
        let step = Step {
            from: from as u8,
            to: to as u8,
            hit,
        };
        (self.board.step(from, to, hit), step)
    }

    /// The node after one more step, and the step.
    #[inline]
    fn step(&self, from: usize, die: u8) -> (Node, Step) {
        let (board, step) = self.finish(from, die);
        (Node::new(board), step)
    }
}

/// Whether another sequence of the same two dice may reach the position of `s1, s2`.
///
/// A play of two different dice changes the mover's checkers by two removals and two
/// additions, unless it is *chained*: the second step starts where the first ended, or
/// ends where the first started, leaving one removal and one addition. Two unchained
/// plays with the same removals and additions would need the same steps in another
/// order, which the generator never produces twice, or two checkers both borne off by
/// both dice. So only chained plays and double bear-offs can repeat a position.
#[inline]
fn may_repeat(s1: Step, s2: Step) -> bool {
    s2.from == s1.to || s2.to == s1.from || (s1.to == 0 && s2.to == 0)
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
        if level == 3 {
            let (board, step) = nodes[3].finish(from, die);
            steps[3] = step;
            list.push_double(board.position(), steps, 4);
            continue;
        }
        let (node, step) = nodes[level].step(from, die);
        nodes[level + 1] = node;
        steps[level] = step;
        level += 1;
        // Non-increasing sources: keep bits 0..=from.
        let next = nodes[level].sources(die) & ((2u32 << from) - 1);
        if next == 0 {
            list.push_double(nodes[level].board.position(), steps, level as u8);
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
    let root = Node::new(Board::load(p));
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
        while second != 0 {
            let b = pop_high(&mut second);
            let (r, s2) = q.finish(b, l);
            let r = r.position();
            if may_repeat(s1, s2) {
                list.push_repeatable(r, [s1, s2, NO_STEP, NO_STEP], 2);
            } else {
                list.push_unique(r, [s1, s2, NO_STEP, NO_STEP], 2);
            }
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
        // The checker that just moved (bit 0 when it bore off, which no source uses).
        let moved = 1u32 << a.saturating_sub(l as usize);
        let mut second = q.sources(h) & !(high_sources & !moved);
        while second != 0 {
            let b = pop_high(&mut second);
            let (r, s2) = q.finish(b, h);
            let r = r.position();
            if may_repeat(s1, s2) {
                list.push_repeatable(r, [s1, s2, NO_STEP, NO_STEP], 2);
            } else {
                list.push_unique(r, [s1, s2, NO_STEP, NO_STEP], 2);
            }
        }
    }
    if list.plays.is_empty() {
        // No sequence uses both dice: the larger die must be played if it can be. (Every
        // sequence that uses both dice was generated: one whose larger-die step comes
        // first in the first loop, every other one in the second.)
        let (die, mut mask) = if high_sources != 0 {
            (h, high_sources)
        } else {
            (l, low_sources)
        };
        while mask != 0 {
            let a = pop_high(&mut mask);
            let (q, s) = root.finish(a, die);
            list.push_unique(q.position(), [s, NO_STEP, NO_STEP, NO_STEP], 1);
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

    /// The vector board and the portable one agree on every step from every source of
    /// every die, over the positions of seeded games.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn vector_board_matches_portable_board() {
        let set = crate::testing::random_game_positions(7, 40);
        assert!(set.len() > 1000);
        for (p, _) in &set {
            let fast = Node::new(sse2::Board::load(p));
            let slow = portable::Board::load(p);
            assert_eq!(
                (fast.occ, fast.open, fast.blot),
                {
                    let (o, n, b) = slow.masks();
                    (o, n, b & POINTS)
                },
                "{p:?}"
            );
            for die in 1..=6u8 {
                let mut sources = fast.sources(die);
                while sources != 0 {
                    let from = pop_high(&mut sources);
                    let (board, step) = fast.finish(from, die);
                    let expected = slow.step(from, step.to as usize, step.hit).position();
                    assert_eq!(board.position(), expected, "{p:?} {from} {die}");
                    let mut reference = *p;
                    let hit = reference.apply_step(from, die);
                    assert_eq!(hit, step.hit);
                    assert_eq!(reference, expected);
                }
            }
        }
    }

    #[test]
    fn opening_counts_match_gnubg() {
        let p = Position::OPENING;
        assert_eq!(count(&p, 6, 6), 11);
        assert_eq!(count(&p, 3, 1), 16);
        assert_eq!(count(&p, 2, 1), 15);
    }
}
