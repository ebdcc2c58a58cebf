//! The shared step search of Plakoto and Fevga (section 9 of the rules text): breadth
//! first over steps, applying each game's per-step rules, with the positions reached
//! after each number of steps merged (a step's legality depends only on the position, so
//! two step orders reaching one position have the same continuations); then the C4 filter
//! with game-ending plays exempt (C5, E19), and distinct resulting positions.

use super::position::TavliPosition;
use super::{GameEnd, Rules, TavliPlay, TavliStep};
use crate::game::Dice;

/// One game's step rules.
pub(crate) trait StepRules {
    /// Whether the opponent's checkers stay where they are during the mover's play (no
    /// hits): positions of one search then differ only in the mover's checkers and the
    /// pins, and are hashed and compared on those alone.
    const OPPONENT_FIXED: bool;
    /// What a search computes once from the position it starts from.
    type Ctx;
    fn context(pos: &TavliPosition, rules: &Rules) -> Self::Ctx;
    /// Bit m set: the mover may try to move a checker from its point m.
    fn sources(pos: &TavliPosition, ctx: &Self::Ctx) -> u32;
    /// The step of `die` from `from` if it is legal: the position after it, the landing
    /// point (0 = off) and its mark (a pin).
    fn step(
        pos: &TavliPosition,
        from: usize,
        die: u8,
        rules: &Rules,
        ctx: &Self::Ctx,
    ) -> Option<(TavliPosition, u8, bool)>;
    /// Whether the position after a step of the mover ends the game.
    fn end(pos: &TavliPosition) -> Option<GameEnd>;
}

#[derive(Debug, Clone, Copy)]
struct Node {
    pos: TavliPosition,
    steps: [TavliStep; 4],
    /// The die of the first step (which die remains, for non-doubles).
    first: u8,
}

#[derive(Debug, Clone, Copy)]
struct Leaf {
    node: Node,
    used: u8,
    end: Option<GameEnd>,
}

/// Reusable buffers of the search.
#[derive(Debug, Default, Clone)]
pub struct Scratch {
    cur: Vec<Node>,
    next: Vec<Node>,
    leaves: Vec<Leaf>,
    /// (index + 1, generation): a slot is in use only when its generation is current.
    table: Vec<(u32, u32)>,
    generation: u32,
}

impl Scratch {
    /// Empties the table in O(1): a new generation.
    fn clear_table(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.table.iter_mut().for_each(|x| *x = (0, 0));
            self.generation = 1;
        }
    }
}

#[inline]
fn mix(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)
}

#[inline]
pub(crate) fn hash(pos: &TavliPosition, extra: u8, mover_only: bool) -> u64 {
    let mut h = extra as u64 ^ (pos.pins[0] as u64) << 32 ^ pos.pins[1] as u64;
    let sides = if mover_only {
        &pos.sides[..1]
    } else {
        &pos.sides[..]
    };
    for side in sides {
        for chunk in side.chunks_exact(8) {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            h = mix(h, u64::from_le_bytes(b));
        }
        h = mix(h, side[24] as u64 | (side[25] as u64) << 8);
    }
    h ^ h >> 31
}

/// Whether two positions of one search are equal (`mover_only`: their opponents are).
#[inline]
fn same(a: &TavliPosition, b: &TavliPosition, mover_only: bool) -> bool {
    if mover_only {
        a.sides[0] == b.sides[0] && a.pins == b.pins
    } else {
        a == b
    }
}

/// Inserts `node` into `into` unless an equal (position, first die) is there; `table`
/// holds indices + 1 into `into`, open addressing, size a power of two.
fn insert(
    table: &mut Vec<(u32, u32)>,
    generation: u32,
    into: &mut Vec<Node>,
    node: Node,
    key_first: bool,
    mover_only: bool,
) {
    if (into.len() + 1) * 2 > table.len() {
        let size = (table.len() * 2).max(64);
        table.clear();
        table.resize(size, (0, 0));
        let mask = size - 1;
        for (i, n) in into.iter().enumerate() {
            let mut at =
                hash(&n.pos, if key_first { n.first } else { 0 }, mover_only) as usize & mask;
            while table[at].1 == generation {
                at = (at + 1) & mask;
            }
            table[at] = (i as u32 + 1, generation);
        }
    }
    let mask = table.len() - 1;
    let extra = if key_first { node.first } else { 0 };
    let mut at = hash(&node.pos, extra, mover_only) as usize & mask;
    loop {
        let (slot, g) = table[at];
        if g != generation {
            table[at] = (into.len() as u32 + 1, generation);
            into.push(node);
            return;
        }
        let other = &into[slot as usize - 1];
        if same(&other.pos, &node.pos, mover_only) && (!key_first || other.first == node.first) {
            return;
        }
        at = (at + 1) & mask;
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
    let double = h == l;
    let ctx = G::context(pos, rules);
    let fixed = G::OPPONENT_FIXED;
    let total: u8 = if double { 4 } else { 2 };
    s.cur.clear();
    s.leaves.clear();
    s.cur.push(Node {
        pos: *pos,
        steps: [TavliStep::default(); 4],
        first: 0,
    });
    for depth in 0..total {
        s.next.clear();
        s.clear_table();
        let last = depth + 1 == total;
        for i in 0..s.cur.len() {
            let node = s.cur[i];
            let dice_now: [u8; 2] = if double {
                [h, 0]
            } else if depth == 0 {
                [h, l]
            } else if node.first == h {
                [l, 0]
            } else {
                [h, 0]
            };
            let mut any = false;
            for &die in dice_now.iter().filter(|&&d| d != 0) {
                let mut src = G::sources(&node.pos, &ctx);
                while src != 0 {
                    let from = 31 - src.leading_zeros() as usize;
                    src &= !(1u32 << from);
                    let Some((after, to, mark)) = G::step(&node.pos, from, die, rules, &ctx) else {
                        continue;
                    };
                    any = true;
                    let mut steps = node.steps;
                    steps[depth as usize] = TavliStep {
                        from: from as u8,
                        to,
                        mark,
                    };
                    let child = Node {
                        pos: after,
                        steps,
                        first: if depth == 0 { die } else { node.first },
                    };
                    let end = G::end(&after);
                    if end.is_some() || last {
                        s.leaves.push(Leaf {
                            node: child,
                            used: depth + 1,
                            end,
                        });
                    } else {
                        insert(
                            &mut s.table,
                            s.generation,
                            &mut s.next,
                            child,
                            !double,
                            fixed,
                        );
                    }
                }
            }
            if !any {
                s.leaves.push(Leaf {
                    node,
                    used: depth,
                    end: None,
                });
            }
        }
        std::mem::swap(&mut s.cur, &mut s.next);
        if s.cur.is_empty() {
            break;
        }
    }
    // C4 with game-ending plays exempt (C5, E19).
    let most = s.leaves.iter().map(|l| l.used).max().unwrap_or(0);
    let larger_only =
        !double && most == 1 && s.leaves.iter().any(|l| l.used == 1 && l.node.first == h);
    s.next.clear();
    s.clear_table();
    for leaf in &s.leaves {
        let keep =
            leaf.end.is_some() || (leaf.used == most && !(larger_only && leaf.node.first != h));
        if !keep {
            continue;
        }
        let before = s.next.len();
        insert(
            &mut s.table,
            s.generation,
            &mut s.next,
            leaf.node,
            false,
            fixed,
        );
        if s.next.len() > before {
            out.push(TavliPlay::new(
                leaf.node.pos,
                leaf.node.steps,
                leaf.used,
                leaf.end,
            ));
        }
    }
}
