//! The shared step search of the Tavli games (section 9 of the rules text).
//!
//! Most positions are settled in one canonical order of steps ([`canonical`]),
//! backgammon's: a double's steps with non-increasing sources, a non-double's higher die
//! first and then only the lower-die-first sequences the first pass cannot have found.
//! That order finds every play when a step's legality depends on the steps before it
//! only through the checkers they moved; it watches every state it reaches, drops the
//! plays that end in a state failing a per-step check (Fevga's walls), tries the other
//! orders of a play that passes one on the way, and ends a play at a step that ends the
//! game (C5). When a double may end the game other than by the last checker borne off
//! (a mother pinned in Plakoto), or when a game's sources depend on the steps before
//! (Fevga's runner), the full search decides.
//!
//! The full search ([`full`]) tries every order of steps, applying each game's per-step
//! rules, with the positions reached after the same number of steps of a double explored
//! once (a step's legality depends only on the position, so two step orders reaching one
//! position have the same continuations); then the C4 filter with game-ending plays
//! exempt (C5, E19), and distinct resulting positions.
//!
//! Both run over a compact state ([`Compact`]): the mover's checkers, four bits per point
//! in one `u128`, the occupied points as bits, and what the mover's steps did to the
//! opponent as a set of marked points (pins in Plakoto, hits in Portes). The opponent's
//! checkers are otherwise fixed during a play, so a game computes what they imply once
//! ([`StepRules::Ctx`]), and a state's counts and marks together are one exact 128-bit
//! key: states are compared and merged by it, never by a hash alone. A state becomes a
//! [`TavliPosition`] only for the plays returned.

use super::position::TavliPosition;
use super::{GameEnd, RuleSwitches, TavliPlay, TavliStep};
use crate::game::Dice;

mod canonical;
mod compact;
mod every_order;
mod packed;
mod split;

use canonical::canonical;
pub(crate) use compact::{movable_mask, opposing, Compact};
use every_order::full;
use packed::Packed;
pub(crate) use split::split;
pub use split::Split;

/// One game's step rules over the compact state.
pub(crate) trait StepRules {
    /// What a search computes once from the position it starts from.
    type Ctx;
    fn context(pos: &TavliPosition, rules: &RuleSwitches) -> Self::Ctx;
    /// The marks of the position the search starts from (bits of the mover's points).
    fn marks(pos: &TavliPosition) -> u32;
    /// Writes what the marks of a state reached from `start` mean for the opponent into
    /// `after` (`start` with the mover's checkers already moved).
    fn store_marks(after: &mut TavliPosition, s: &Compact);
    /// Bit m set: the mover may try to move a checker from its point m (which holds one);
    /// [`Self::movable`] narrows them to a die.
    fn sources(s: &Compact, ctx: &Self::Ctx) -> u32;
    /// The step of `die` from `from` if it is legal (movable, and the state after it
    /// allowed): the state after it, the landing point (0 = off) and its mark (a hit or a
    /// pin). The searches use the parts (a step's sources once per state); the tests
    /// replay plays with this.
    #[cfg(test)]
    fn step(s: &Compact, from: usize, die: u8, ctx: &Self::Ctx) -> Option<(Compact, u8, bool)> {
        if Self::movable(s, die, ctx) >> from & 1 == 0 {
            return None;
        }
        let after = Self::apply(s, from, die, ctx);
        Self::allowed(&after.0, ctx).then_some(after)
    }
    /// Whether the state after a step of the mover ends the game.
    fn end(s: &Compact, ctx: &Self::Ctx) -> Option<GameEnd>;
    /// The sources from which a step of `die` moves by the game's movement rules (an open
    /// landing point, or bearing off by C6), before the checks of [`Self::allowed`].
    fn movable(s: &Compact, die: u8, ctx: &Self::Ctx) -> u32;
    /// The step of `die` from `from`, one of [`Self::movable`]: the state after it, the
    /// landing point (0 = off) and its mark.
    fn apply(s: &Compact, from: usize, die: u8, ctx: &Self::Ctx) -> (Compact, u8, bool);
    /// Whether the state after a step passes the checks made after every step beyond
    /// the movement rules (Fevga's walls); a step is legal when it is movable and the
    /// state after it is allowed.
    #[inline]
    fn allowed(_: &Compact, _: &Self::Ctx) -> bool {
        true
    }
    /// Whether no state reachable this turn with the dice `high`, `low` can end the game
    /// or fail [`Self::allowed`] (a cheap bound; false when unsure), so that
    /// [`canonical`] need not check them.
    #[inline]
    fn quiet(_: &Compact, _: &Self::Ctx, _: u8, _: u8) -> bool {
        false
    }
    /// Whether the sources a step may use depend on the state only through its checkers
    /// (not so while Fevga's runner rule binds), so that [`canonical`] applies.
    fn order_free(s: &Compact, ctx: &Self::Ctx) -> bool;
    /// [`Self::movable`] in a state reached from one where [`Self::order_free`] holds (it
    /// then holds in every state after it), which [`canonical`] uses.
    #[inline]
    fn movable_free(s: &Compact, die: u8, ctx: &Self::Ctx) -> u32 {
        Self::movable(s, die, ctx)
    }
}

#[derive(Debug, Clone, Copy)]
struct Leaf {
    state: Compact,
    steps: Packed,
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
    /// The keys of the plays of the canonical order that another sequence may repeat.
    repeatable: Vec<u128>,
}

/// The table tag of the distinct results.
const RESULT: u32 = 7;

/// Where a search's leaves go: a play that uses every die or ends the game is legal
/// whatever else is found (C4, C5) and goes out at once if it is new; the others wait for
/// the filter.
struct Sink<'a> {
    /// A play from the position searched with no steps yet, copied for each play written.
    template: TavliPlay,
    out: &'a mut Vec<TavliPlay>,
    /// Steps of a full play (2, or 4 for a double).
    full: u8,
    high: u8,
}

impl<'a> Sink<'a> {
    fn new(pos: &TavliPosition, h: u8, l: u8, out: &'a mut Vec<TavliPlay>) -> Self {
        Sink {
            template: TavliPlay::new(*pos, [TavliStep::default(); 4], 0, None),
            out,
            full: if h == l { 4 } else { 2 },
            high: h,
        }
    }

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
        self.write::<G>(leaf);
    }

    /// Writes the play of `leaf`, known to be new.
    #[inline(always)]
    fn write<G: StepRules>(&mut self, leaf: &Leaf) {
        // A copy of the template, then filled in place: copying a play assembled byte by
        // byte just before would wait on those byte stores.
        self.out.push(self.template);
        if let Some(play) = self.out.last_mut() {
            play.after.sides[0] = leaf.state.side();
            G::store_marks(&mut play.after, &leaf.state);
            play.steps = leaf.steps.steps();
            play.len = leaf.used;
            play.end = leaf.end;
        }
    }
}

/// Every distinct legal play of `dice` in `pos` for the game `G`, into `out`: in the
/// canonical order where it settles them, else by the full search; by the full search
/// alone when `every_order` (to check the two against each other).
pub(crate) fn generate<G: StepRules>(
    pos: &TavliPosition,
    dice: Dice,
    rules: &RuleSwitches,
    s: &mut Scratch,
    out: &mut Vec<TavliPlay>,
    every_order: bool,
) {
    let (h, l) = (dice.high(), dice.low());
    let ctx = G::context(pos, rules);
    let root = Compact::load(pos, G::marks(pos));
    let before = out.len();
    if !every_order && settle::<G>(pos, &root, h, l, &ctx, s, out) == Some(true) {
        return;
    }
    out.truncate(before);
    full::<G>(pos, &root, h, l, &ctx, s, out);
}

/// The plays of `pos` (whose state is `root`) in the canonical order, into `out`: `None`
/// where that order does not apply ([`StepRules::order_free`]), else whether it settled
/// the plays (when not, some may have been written and the full search must decide).
#[inline]
fn settle<G: StepRules>(
    pos: &TavliPosition,
    root: &Compact,
    h: u8,
    l: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    out: &mut Vec<TavliPlay>,
) -> Option<bool> {
    if !G::order_free(root, ctx) {
        return None;
    }
    let mut sink = Sink::new(pos, h, l, out);
    // Two forms: the one that checks every state, and the one for positions where no
    // check can bite, with none of those checks in its loops.
    let settled = if G::quiet(root, ctx, h, l) {
        canonical::<G, false>(root, h, l, ctx, s, &mut sink)
    } else {
        canonical::<G, true>(root, h, l, ctx, s, &mut sink)
    };
    Some(settled.is_some())
}

/// Pops the highest set bit of a non-zero mask.
#[inline]
fn pop_high(mask: &mut u32) -> usize {
    let b = 31 - mask.leading_zeros() as usize;
    *mask &= !(1 << b);
    b
}
