//! The shared step search of the Tavli games (section 9 of the rules text): every order of
//! steps, applying each game's per-step rules, with the positions reached after the same
//! number of steps of a double explored once (a step's legality depends only on the
//! position, so two step orders reaching one position have the same continuations); then
//! the C4 filter with game-ending plays exempt (C5, E19), and distinct resulting positions.
//!
//! The search runs over a compact state ([`Compact`]): the mover's checkers, four bits
//! per point in one `u128`, the occupied points as bits, and what the mover's steps did
//! to the opponent as a set of marked points (pins in Plakoto, hits in the Portes
//! endings). The opponent's checkers are otherwise fixed during a play, so a game
//! computes what they imply once ([`StepRules::Ctx`]), and a state's counts and marks
//! together are one exact 128-bit key: states are compared and merged by it, never by a
//! hash alone. A state becomes a [`TavliPosition`] only for the plays returned.

use super::position::{occupancy, TavliPosition, BAR};
use super::{GameEnd, Rules, TavliPlay, TavliStep};
use crate::game::Dice;

/// One game's step rules over the compact state.
pub(crate) trait StepRules {
    /// What a search computes once from the position it starts from.
    type Ctx;
    fn context(pos: &TavliPosition, rules: &Rules) -> Self::Ctx;
    /// The marks of the position the search starts from (bits of the mover's points).
    fn marks(pos: &TavliPosition) -> u32;
    /// Writes what the marks of a state reached from `start` mean for the opponent into
    /// `after` (`start` with the mover's checkers already moved).
    fn store_marks(after: &mut TavliPosition, s: &Compact);
    /// Bit m set: the mover may try to move a checker from its point m (which holds one).
    fn sources(s: &Compact, ctx: &Self::Ctx) -> u32;
    /// The step of `die` from `from` (one of [`Self::sources`]) if it is legal: the state
    /// after it, the landing point (0 = off) and its mark (a hit or a pin).
    fn step(s: &Compact, from: usize, die: u8, ctx: &Self::Ctx) -> Option<(Compact, u8, bool)>;
    /// Whether the state after a step of the mover ends the game.
    fn end(s: &Compact, ctx: &Self::Ctx) -> Option<GameEnd>;
}

/// The search state: the mover's checkers and what his steps did to the opponent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Compact {
    /// The mover's count on point m (1..=24, 25 the bar) in bits 4m..4m+4 (at most 15
    /// fit); bits 0-3 and 104-127 are zero.
    pub counts: u128,
    /// Bit m: the mover has a checker on point m (1..=25).
    pub occ: u32,
    /// Bit m (1..=24): the mover's step marked the opponent's checker on the mover's
    /// point m (a pin, or a hit).
    pub marks: u32,
    /// Checkers the mover has borne off.
    pub off: u8,
}

impl Compact {
    /// The mover's side of `pos`, with `marks`.
    #[inline]
    pub fn load(pos: &TavliPosition, marks: u32) -> Compact {
        let side = &pos.sides[0];
        let mut counts = 0u128;
        for (m, &c) in side.iter().enumerate().skip(1) {
            counts |= ((c & 15) as u128) << (4 * m);
        }
        Compact {
            counts,
            occ: occupancy(side) | u32::from(side[BAR] > 0) << BAR,
            marks,
            off: pos.off(0),
        }
    }

    /// The count on point m.
    #[inline]
    pub fn count(&self, m: usize) -> u8 {
        (self.counts >> (4 * m)) as u8 & 15
    }

    /// Adds a checker on point `to` (1..=24).
    #[inline]
    pub fn land(&mut self, to: usize) {
        self.counts += 1u128 << (4 * to);
        self.occ |= 1 << to;
    }

    /// Takes a checker from point `from`; true when the point is left empty.
    #[inline]
    pub fn lift(&mut self, from: usize) -> bool {
        self.counts -= 1u128 << (4 * from);
        let empty = self.count(from) == 0;
        if empty {
            self.occ &= !(1 << from);
        }
        empty
    }

    /// The state as one exact key: counts in bits 4-103, marks (points 1-24) in 104-127.
    #[inline]
    fn key(&self) -> u128 {
        self.counts | ((self.marks >> 1) as u128) << 104
    }
}

/// Where the opponent stands, as bits of the mover's points, in the games whose sides
/// move in opposite directions (Portes, Plakoto: his point q is the mover's 25 - q): the
/// points he holds with two or more checkers, and those with exactly one.
pub(crate) fn opposing(pos: &TavliPosition) -> (u32, u32) {
    let opp = &pos.sides[1];
    let (mut made, mut single) = (0u32, 0u32);
    for m in 1..=24 {
        match opp[25 - m] {
            0 => {}
            1 => single |= 1 << m,
            _ => made |= 1 << m,
        }
    }
    (made, single)
}

/// Steps packed 16 bits each: from (5 bits), to (5 bits), mark (1 bit).
#[inline]
fn pack(steps: u64, depth: u8, from: usize, to: u8, mark: bool) -> u64 {
    let s = from as u64 | (to as u64) << 5 | (mark as u64) << 10;
    steps | s << (16 * depth as u32)
}

fn unpack(steps: u64) -> [TavliStep; 4] {
    let mut out = [TavliStep::default(); 4];
    for (i, slot) in out.iter_mut().enumerate() {
        let s = steps >> (16 * i);
        *slot = TavliStep {
            from: (s & 31) as u8,
            to: (s >> 5 & 31) as u8,
            mark: s >> 10 & 1 == 1,
        };
    }
    out
}

#[derive(Debug, Clone, Copy)]
struct Leaf {
    state: Compact,
    steps: u64,
    /// The die of the first step (which die a one-step play used).
    first: u8,
    /// Steps played.
    used: u8,
    /// The game's end after the last step.
    end: Option<GameEnd>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    key: u128,
    /// generation << 3 | tag: a slot is in use only when its generation is current.
    stamp: u32,
}

/// A set of (key, tag) pairs, emptied in O(1) by a new generation; open addressing,
/// a power-of-two size at most half full.
#[derive(Debug, Clone, Default)]
struct Table {
    slots: Vec<Slot>,
    generation: u32,
    len: usize,
}

impl Table {
    fn clear(&mut self) {
        self.generation += 1;
        self.len = 0;
        if self.generation >= 1 << 28 {
            self.slots.iter_mut().for_each(|s| s.stamp = 0);
            self.generation = 1;
        }
        if self.slots.is_empty() {
            self.slots.resize(256, Slot::default());
        }
    }

    #[inline]
    fn at(&self, key: u128, stamp: u32) -> usize {
        let h =
            ((key as u64) ^ (key >> 64) as u64 ^ stamp as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> 40) as usize & (self.slots.len() - 1)
    }

    /// Adds (key, tag); false when it was there.
    #[inline]
    fn insert(&mut self, key: u128, tag: u32) -> bool {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let stamp = self.generation << 3 | tag;
        let mask = self.slots.len() - 1;
        let mut i = self.at(key, stamp);
        loop {
            let s = self.slots[i];
            if s.stamp >> 3 != self.generation {
                self.slots[i] = Slot { key, stamp };
                self.len += 1;
                return true;
            }
            if s.stamp == stamp && s.key == key {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.slots = vec![Slot::default(); old.len() * 2];
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.stamp >> 3 == self.generation) {
            let mut i = self.at(s.key, s.stamp);
            while self.slots[i].stamp >> 3 == self.generation {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

/// Reusable buffers of the search.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    /// The leaves that the C4 filter may still remove (fewer steps than the dice).
    short: Vec<Leaf>,
    table: Table,
    /// The most steps of any leaf so far.
    most: u8,
    /// A one-step leaf used the higher die.
    one_high: bool,
}

/// The table tag of the distinct results.
const RESULT: u32 = 7;

/// Where a search's leaves go: a play that uses every die or ends the game is legal
/// whatever else is found (C4, C5) and goes out at once if it is new; the others wait for
/// the filter.
struct Sink<'a> {
    start: &'a TavliPosition,
    out: &'a mut Vec<TavliPlay>,
    /// Steps of a full play (2, or 4 for a double).
    full: u8,
    high: u8,
}

impl Sink<'_> {
    #[inline]
    fn leaf<G: StepRules>(&mut self, s: &mut Scratch, leaf: Leaf) {
        s.most = s.most.max(leaf.used);
        s.one_high |= leaf.used == 1 && leaf.first == self.high;
        if leaf.end.is_some() || leaf.used == self.full {
            self.emit::<G>(s, &leaf);
        } else {
            s.short.push(leaf);
        }
    }

    /// Writes the play of `leaf` unless its result is out already.
    #[inline]
    fn emit<G: StepRules>(&mut self, s: &mut Scratch, leaf: &Leaf) {
        if !s.table.insert(leaf.state.key(), RESULT) {
            return;
        }
        let steps = unpack(leaf.steps);
        if let Some(play) = TavliPlay::push_from(self.out, self.start, steps, leaf.used, leaf.end) {
            G::store_marks(&mut play.after, &leaf.state);
        }
    }
}

/// Every distinct legal play of `dice` in `pos` for the game `G`, into `out`.
pub(crate) fn generate<G: StepRules>(
    pos: &TavliPosition,
    dice: Dice,
    rules: &Rules,
    s: &mut Scratch,
    out: &mut Vec<TavliPlay>,
) {
    let (h, l) = (dice.high(), dice.low());
    let ctx = G::context(pos, rules);
    let root = Compact::load(pos, G::marks(pos));
    s.short.clear();
    s.table.clear();
    s.most = 0;
    s.one_high = false;
    let mut sink = Sink {
        start: pos,
        out,
        full: if h == l { 4 } else { 2 },
        high: h,
    };
    if h == l {
        double::<G>(&root, 0, 0, h, &ctx, s, &mut sink);
    } else {
        let mut moved = false;
        for (first, second) in [(h, l), (l, h)] {
            let mut src = G::sources(&root, &ctx);
            while src != 0 {
                let from = 31 - src.leading_zeros() as usize;
                src &= !(1u32 << from);
                let Some((a, to, mark)) = G::step(&root, from, first, &ctx) else {
                    continue;
                };
                moved = true;
                let steps = pack(0, 0, from, to, mark);
                let end = G::end(&a, &ctx);
                if end.is_none() && second_steps::<G>(&a, steps, first, second, &ctx, s, &mut sink)
                {
                    continue;
                }
                let leaf = Leaf {
                    state: a,
                    steps,
                    first,
                    used: 1,
                    end,
                };
                sink.leaf::<G>(s, leaf);
            }
        }
        if !moved {
            let leaf = Leaf {
                state: root,
                steps: 0,
                first: 0,
                used: 0,
                end: None,
            };
            sink.leaf::<G>(s, leaf);
        }
    }
    // C4 for the rest: as many steps as any play has, and with one step of a non-double
    // the higher die where it can be played.
    let larger_only = h != l && s.most == 1 && s.one_high;
    for i in 0..s.short.len() {
        let leaf = s.short[i];
        if leaf.used == s.most && !(larger_only && leaf.first != h) {
            sink.emit::<G>(s, &leaf);
        }
    }
}

/// The second steps of a non-double after the first (`a`); false when there is none.
#[inline]
fn second_steps<G: StepRules>(
    a: &Compact,
    steps: u64,
    first: u8,
    second: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    sink: &mut Sink,
) -> bool {
    let mut any = false;
    let mut src = G::sources(a, ctx);
    while src != 0 {
        let from = 31 - src.leading_zeros() as usize;
        src &= !(1u32 << from);
        if let Some((b, to, mark)) = G::step(a, from, second, ctx) {
            any = true;
            let leaf = Leaf {
                state: b,
                steps: pack(steps, 1, from, to, mark),
                first,
                used: 2,
                end: G::end(&b, ctx),
            };
            sink.leaf::<G>(s, leaf);
        }
    }
    any
}

/// The steps of a double from `state`, `depth` steps played; a state reached again
/// after the same number of steps is not explored twice.
fn double<G: StepRules>(
    state: &Compact,
    depth: u8,
    steps: u64,
    die: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    sink: &mut Sink,
) {
    let mut any = false;
    let mut src = G::sources(state, ctx);
    while src != 0 {
        let from = 31 - src.leading_zeros() as usize;
        src &= !(1u32 << from);
        let Some((n, to, mark)) = G::step(state, from, die, ctx) else {
            continue;
        };
        any = true;
        let steps = pack(steps, depth, from, to, mark);
        let end = G::end(&n, ctx);
        if end.is_some() || depth == 3 {
            let leaf = Leaf {
                state: n,
                steps,
                first: die,
                used: depth + 1,
                end,
            };
            sink.leaf::<G>(s, leaf);
        } else if depth == 0 || s.table.insert(n.key(), depth as u32 + 1) {
            // After one step no two states are equal (each moved another checker).
            double::<G>(&n, depth + 1, steps, die, ctx, s, sink);
        }
    }
    if !any {
        let leaf = Leaf {
            state: *state,
            steps,
            first: die,
            used: depth,
            end: None,
        };
        sink.leaf::<G>(s, leaf);
    }
}
