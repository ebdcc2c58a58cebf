//! The full search: every order of steps, for the positions the canonical order does not
//! settle (and alone, to check the canonical order against it).

use super::{pop_high, Compact, Leaf, Packed, Scratch, Sink, StepRules};
use crate::tavli::{TavliPlay, TavliPosition};

/// [`generate`] by trying every order of steps (section 9 of the rules text), for the
/// positions where one canonical order does not settle the plays.
pub(super) fn full<G: StepRules>(
    pos: &TavliPosition,
    root: &Compact,
    h: u8,
    l: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    out: &mut Vec<TavliPlay>,
) {
    let root = *root;
    s.short.clear();
    s.table.clear();
    s.most = 0;
    s.one_high = false;
    let mut sink = Sink::new(pos, h, l, out);
    if h == l {
        double::<G>(&root, 0, Packed::NONE, h, ctx, s, &mut sink);
    } else {
        let mut moved = false;
        for (first, second) in [(h, l), (l, h)] {
            let mut src = G::movable(&root, first, ctx);
            while src != 0 {
                let from = pop_high(&mut src);
                let (a, to, mark) = G::apply(&root, from, first, ctx);
                if !G::allowed(&a, ctx) {
                    continue;
                }
                moved = true;
                let steps = Packed::NONE.with(0, from, to, mark);
                let end = G::end(&a, ctx);
                if end.is_none() && second_steps::<G>(&a, steps, first, second, ctx, s, &mut sink) {
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
                steps: Packed::NONE,
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
    steps: Packed,
    first: u8,
    second: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    sink: &mut Sink,
) -> bool {
    let mut any = false;
    let mut src = G::movable(a, second, ctx);
    while src != 0 {
        let from = pop_high(&mut src);
        let (b, to, mark) = G::apply(a, from, second, ctx);
        if G::allowed(&b, ctx) {
            any = true;
            let leaf = Leaf {
                state: b,
                steps: steps.with(1, from, to, mark),
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
    steps: Packed,
    die: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    sink: &mut Sink,
) {
    let mut any = false;
    let mut src = G::movable(state, die, ctx);
    while src != 0 {
        let from = pop_high(&mut src);
        let (n, to, mark) = G::apply(state, from, die, ctx);
        if !G::allowed(&n, ctx) {
            continue;
        }
        any = true;
        let steps = steps.with(depth, from, to, mark);
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
