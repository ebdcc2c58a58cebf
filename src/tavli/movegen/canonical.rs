//! The canonical order of steps, backgammon's, which settles most positions: a double's
//! sources non-increasing, a non-double's higher die first and then only the lower-die-first
//! sequences the first pass cannot have found, with every state watched where a game end
//! or a per-step check may bite.

use super::{pop_high, Compact, Leaf, Packed, Scratch, Sink, StepRules};

/// Every distinct legal play in one canonical order of steps, as backgammon's generator
/// finds them ([`crate::game::generate_plays`]), where [`StepRules::order_free`] holds;
/// `None`, with some plays written, where it cannot tell: then the full search must
/// decide.
///
/// Without those two checks a step's legality depends on the steps before it only
/// through the checkers they moved (the opponent's checkers stay put, and moving a checker
/// never makes another checker's step illegal), so
///
/// - a double's plays are the step sequences with non-increasing sources (each multiset
///   of steps once; equal steps on a line are determined by their net effect, so each
///   result once), of which those using the most steps are kept;
/// - a non-double's plays are the sequences with the higher die first, then those with the
///   lower die first whose second step was not already legal at the start, the results
///   compared only for the few plays another sequence can repeat (a chained play, or two
///   checkers borne off); with no two-step play, the one-step plays of the higher die
///   where it can be played, else of the lower.
///
/// Every play that any order of steps reaches is reached here too (a sequence sorted by
/// source is legal when the sequence is), so when no state reached ends the game or fails
/// the checks, these are the plays of the full rules. Where the checks can bite
/// ([`StepRules::quiet`] false) every state is checked, and
///
/// - a play whose last state fails them is dropped: every order of its steps ends there;
/// - a play that passed a refused state on the way, but whose last state is allowed, is
///   legal when another order of its steps passes none ([`legal_order`]): a double's four
///   steps are tried in every order; a non-double's two steps the other way round when the
///   higher die went first, while a play found with the lower die first, or one checker
///   moved by both dice lower die first, is among the sequences the passes try anyway;
/// - a step that ends the game ends the play, which is legal whatever else is found
///   (C5) and counts for C4 like any other (E19). A non-double's passes try both dice
///   first, so a play ending at its first step is found in its pass, and the second pass
///   also tries the higher-die steps that ended the game at the start. The last checker
///   borne off leaves no step after it in any order, so a double's sorted sequences find
///   those plays too; a double's other game ends (Plakoto's mother pinned, where a sorted
///   sequence may end before steps another order plays first) go to the full search, as
///   does any doubt about the shorter plays (one dropped or in doubt) when no play of
///   the most steps is left.
///
/// `WATCH` is [`StepRules::quiet`]'s answer negated: the form without checks has none of
/// them in its loops.
pub(super) fn canonical<G: StepRules, const WATCH: bool>(
    root: &Compact,
    h: u8,
    l: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    sink: &mut Sink,
) -> Option<()> {
    s.short.clear();
    s.repeatable.clear();
    s.most = 0;
    let watch = WATCH;
    if h == l {
        canonical_double::<G, WATCH>(root, h, ctx, s, sink)?;
        if s.most < 4 {
            for i in 0..s.short.len() {
                let leaf = s.short[i];
                if leaf.used == s.most {
                    sink.write::<G>(&leaf);
                }
            }
        }
        return Some(());
    }
    let mut last_refused = false;
    let high_ok = G::movable_free(root, h, ctx);
    let low_ok = G::movable_free(root, l, ctx);
    // The sources whose higher-die step at the start ends the game.
    let mut high_ends = 0u32;
    let mut any = false;
    for (first, second, mut src) in [(h, l, high_ok), (l, h, low_ok)] {
        while src != 0 {
            let from = pop_high(&mut src);
            let (a, to, mark) = G::apply(root, from, first, ctx);
            let tainted = watch && !G::allowed(&a, ctx);
            let end = if watch { G::end(&a, ctx) } else { None };
            if end.is_some() {
                if tainted {
                    return None;
                }
                // A play of one step that ends the game.
                if first == h {
                    high_ends |= 1 << from;
                }
                let leaf = Leaf {
                    state: a,
                    steps: Packed::NONE.with(0, from, to, mark),
                    first,
                    used: 1,
                    end,
                };
                finished::<G>(s, sink, leaf);
                continue;
            }
            let mut next = G::movable_free(&a, second, ctx);
            if first == l {
                // A higher-die step from a point where it was legal at the start, other
                // than by the checker just moved, was found with the higher die first,
                // unless it ended the game there.
                next &= !(high_ok & !high_ends & !(1u32 << to));
            }
            let steps = Packed::NONE.with(0, from, to, mark);
            while next != 0 {
                let from2 = pop_high(&mut next);
                let (b, to2, mark2) = G::apply(&a, from2, second, ctx);
                let mut play = steps.with(1, from2, to2, mark2);
                if watch && !G::allowed(&b, ctx) {
                    last_refused = true;
                    continue;
                }
                let end = if watch { G::end(&b, ctx) } else { None };
                if tainted {
                    // The same two steps the other way round, lower die first (the second
                    // pass skips them). One checker's two steps (`from2 == to`) have that
                    // order only with another checker on `to` at the start; the second
                    // pass tries the chained order. A play found in the second pass has
                    // its other orders among the first pass's sequences.
                    let other = if first == h {
                        legal_order::<G>(root, &[(from2, l), (from, h)], ctx)?
                    } else {
                        None
                    };
                    let Some(other) = other else {
                        last_refused = true;
                        continue;
                    };
                    play = other;
                }
                any = true;
                if from2 == to as usize
                    || to2 as usize == from
                    || (to == 0 && to2 == 0)
                    || end.is_some()
                {
                    let key = b.key();
                    if s.repeatable.contains(&key) {
                        continue;
                    }
                    s.repeatable.push(key);
                }
                sink.write::<G>(&Leaf {
                    state: b,
                    steps: play,
                    first,
                    used: 2,
                    end,
                });
            }
        }
    }
    if any {
        return Some(());
    }
    if last_refused {
        // Which one-step plays the rules then allow is the full search's to decide.
        return None;
    }
    let (die, mut src) = if high_ok != 0 {
        (h, high_ok)
    } else {
        (l, low_ok)
    };
    if src == 0 {
        sink.write::<G>(&Leaf {
            state: *root,
            steps: Packed::NONE,
            first: 0,
            used: 0,
            end: None,
        });
        return Some(());
    }
    while src != 0 {
        let from = pop_high(&mut src);
        let (a, to, mark) = G::apply(root, from, die, ctx);
        if watch && !G::allowed(&a, ctx) {
            return None;
        }
        if watch && G::end(&a, ctx).is_some() {
            // Written by its pass above.
            continue;
        }
        sink.write::<G>(&Leaf {
            state: a,
            steps: Packed::NONE.with(0, from, to, mark),
            first: die,
            used: 1,
            end: None,
        });
    }
    Some(())
}

/// A state a double's steps reached in [`canonical`] (or [`legal_order`]), when watched:
/// `None` when the game ends there other than by the last checker borne off (the full
/// search decides), else whether it fails [`StepRules::allowed`]. With the last checker
/// off no step is left, so every order of steps ends there at its last step, and the
/// callers write it as a finished play.
#[inline]
fn refused<G: StepRules>(s: &Compact, ctx: &G::Ctx) -> Option<bool> {
    if s.occ != 0 && G::end(s, ctx).is_some() {
        return None;
    }
    Some(!G::allowed(s, ctx))
}

/// A play of [`canonical`] whose last step ends the game (`leaf.end`): legal whatever the
/// other plays (C5, E19), and written unless its result is out already (another order of
/// steps, or fewer of them, may bear off the same checkers).
#[cold]
fn finished<G: StepRules>(s: &mut Scratch, sink: &mut Sink, leaf: Leaf) {
    let key = leaf.state.key();
    if s.repeatable.contains(&key) {
        return;
    }
    s.repeatable.push(key);
    sink.write::<G>(&leaf);
}

/// The steps `steps` (source, die) from `root` packed in their order when each is
/// movable and no state before the last fails the checks: `Some(None)` when one does,
/// `None` when a state before the last ends the game (the full search decides). The last
/// state is the caller's, already allowed.
fn legal_order<G: StepRules>(
    root: &Compact,
    steps: &[(usize, u8)],
    ctx: &G::Ctx,
) -> Option<Option<Packed>> {
    let mut state = *root;
    let mut packed = Packed::NONE;
    for (i, &(from, die)) in steps.iter().enumerate() {
        if G::movable_free(&state, die, ctx) >> from & 1 == 0 {
            return Some(None);
        }
        let (n, to, mark) = G::apply(&state, from, die, ctx);
        if i + 1 < steps.len() && refused::<G>(&n, ctx)? {
            return Some(None);
        }
        packed = packed.with(i as u8, from, to, mark);
        state = n;
    }
    Some(Some(packed))
}

/// The orders of four steps other than the first (0, 1, 2, 3).
const REORDERS: [[usize; 4]; 23] = [
    [0, 1, 3, 2],
    [0, 2, 1, 3],
    [0, 2, 3, 1],
    [0, 3, 1, 2],
    [0, 3, 2, 1],
    [1, 0, 2, 3],
    [1, 0, 3, 2],
    [1, 2, 0, 3],
    [1, 2, 3, 0],
    [1, 3, 0, 2],
    [1, 3, 2, 0],
    [2, 0, 1, 3],
    [2, 0, 3, 1],
    [2, 1, 0, 3],
    [2, 1, 3, 0],
    [2, 3, 0, 1],
    [2, 3, 1, 0],
    [3, 0, 1, 2],
    [3, 0, 2, 1],
    [3, 1, 0, 2],
    [3, 1, 2, 0],
    [3, 2, 0, 1],
    [3, 2, 1, 0],
];

/// A double's four steps from the sources `from` (non-increasing, whose canonical order
/// passed a refused state) in another order that [`legal_order`] accepts, as it answers;
/// orders repeating one tried (equal sources) are skipped.
fn double_order<G: StepRules>(
    root: &Compact,
    from: [usize; 4],
    die: u8,
    ctx: &G::Ctx,
) -> Option<Option<Packed>> {
    let mut tried: [[usize; 4]; 24] = [[0; 4]; 24];
    tried[0] = from;
    let mut n = 1;
    for order in &REORDERS {
        let seq = order.map(|i| from[i]);
        if tried[..n].contains(&seq) {
            continue;
        }
        tried[n] = seq;
        n += 1;
        if let Some(packed) = legal_order::<G>(root, &seq.map(|f| (f, die)), ctx)? {
            return Some(Some(packed));
        }
    }
    Some(None)
}

/// The plays of a double in [`canonical`], four levels of steps with non-increasing
/// sources: plays of four steps go out at once, shorter ones wait in `s.short`. False
/// when a state reached ends the game or fails the checks (checked when `watch`). The
/// levels are written out so that each level's state stays in registers: an explicit
/// stack of states, and a closure for the step shared by the levels, both measured about
/// 5% slower.
fn canonical_double<G: StepRules, const WATCH: bool>(
    root: &Compact,
    die: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    sink: &mut Sink,
) -> Option<()> {
    let watch = WATCH;
    let below = |from: usize| (2u32 << from) - 1;
    // A play dropped (its last state refused, or no order of its steps passing none):
    // the full search decides should no four-step play be found.
    let mut unsure = false;
    let mut m0 = G::movable_free(root, die, ctx);
    if m0 == 0 {
        sink.write::<G>(&Leaf {
            state: *root,
            steps: Packed::NONE,
            first: 0,
            used: 0,
            end: None,
        });
        return Some(());
    }
    // A state with no step left: a shorter play, kept unless a state on its way (this one
    // included) was refused; returns whether it was. With the last checker off the play
    // is legal whatever else is found (C5, E19), and counts for C4 like any other; one
    // that passed a refused state is the full search's.
    let short = |s: &mut Scratch,
                 sink: &mut Sink,
                 state: &Compact,
                 steps: Packed,
                 used: u8,
                 refused: bool| {
        let mut leaf = Leaf {
            state: *state,
            steps,
            first: die,
            used,
            end: None,
        };
        if watch && state.occ == 0 {
            if refused {
                return None;
            }
            s.most = s.most.max(used);
            leaf.end = G::end(state, ctx);
            finished::<G>(s, sink, leaf);
            return Some(false);
        }
        if refused {
            return Some(true);
        }
        if used >= s.most {
            s.most = used;
            s.short.push(leaf);
        }
        Some(false)
    };
    while m0 != 0 {
        let f0 = pop_high(&mut m0);
        let (n1, t0, k0) = G::apply(root, f0, die, ctx);
        // Whether a state on the way, this one included, was refused.
        let r1 = watch && refused::<G>(&n1, ctx)?;
        let p1 = Packed::NONE.with(0, f0, t0, k0);
        let mut m1 = G::movable_free(&n1, die, ctx) & below(f0);
        if m1 == 0 {
            unsure |= short(s, sink, &n1, p1, 1, r1)?;
        }
        while m1 != 0 {
            let f1 = pop_high(&mut m1);
            let (n2, t1, k1) = G::apply(&n1, f1, die, ctx);
            let r2 = watch && (refused::<G>(&n2, ctx)? || r1);
            let p2 = p1.with(1, f1, t1, k1);
            let mut m2 = G::movable_free(&n2, die, ctx) & below(f1);
            if m2 == 0 {
                unsure |= short(s, sink, &n2, p2, 2, r2)?;
            }
            while m2 != 0 {
                let f2 = pop_high(&mut m2);
                let (n3, t2, k2) = G::apply(&n2, f2, die, ctx);
                let r3 = watch && (refused::<G>(&n3, ctx)? || r2);
                let p3 = p2.with(2, f2, t2, k2);
                let mut m3 = G::movable_free(&n3, die, ctx) & below(f2);
                if m3 == 0 {
                    unsure |= short(s, sink, &n3, p3, 3, r3)?;
                }
                while m3 != 0 {
                    let f3 = pop_high(&mut m3);
                    let (n4, t3, k3) = G::apply(&n3, f3, die, ctx);
                    let mut play = p3.with(3, f3, t3, k3);
                    if watch && refused::<G>(&n4, ctx)? {
                        unsure = true;
                        continue;
                    }
                    if watch && n4.occ == 0 {
                        short(s, sink, &n4, play, 4, r3)?;
                        continue;
                    }
                    if r3 {
                        let Some(other) = double_order::<G>(root, [f0, f1, f2, f3], die, ctx)?
                        else {
                            unsure = true;
                            continue;
                        };
                        play = other;
                    }
                    s.most = 4;
                    sink.write::<G>(&Leaf {
                        state: n4,
                        steps: play,
                        first: die,
                        used: 4,
                        end: None,
                    });
                }
            }
        }
    }
    if unsure && s.most < 4 {
        return None;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::super::{full, settle};
    use super::*;
    use crate::game::{Dice, Variant};
    use crate::tavli::{fevga::Fevga, plakoto::Plakoto, portes::Portes};
    use crate::tavli::{RuleSwitches, TavliPlay, TavliPosition};

    /// The plays of `pos` by the full search alone, and (when it settles them) by the
    /// canonical order, each sorted.
    fn both<G: StepRules>(
        pos: &TavliPosition,
        dice: Dice,
        rules: &RuleSwitches,
    ) -> (Vec<TavliPlay>, Option<Vec<TavliPlay>>) {
        let mut s = Scratch::default();
        let (h, l) = (dice.high(), dice.low());
        let ctx = G::context(pos, rules);
        let root = Compact::load(pos, G::marks(pos));
        let mut slow = Vec::new();
        full::<G>(pos, &root, h, l, &ctx, &mut s, &mut slow);
        let key = |p: &TavliPlay| (p.after, p.end);
        slow.sort_by_key(key);
        let mut fast = Vec::new();
        if settle::<G>(pos, &root, h, l, &ctx, &mut s, &mut fast) != Some(true) {
            return (slow, None);
        }
        // Each play's steps are legal one after the other, with the dice of the roll, and
        // lead to its position.
        for play in &fast {
            let mut state = root;
            let mut dice_left = if h == l { vec![h; 4] } else { vec![h, l] };
            for st in play.steps() {
                let used = dice_left.iter().position(|&d| {
                    G::step(&state, st.from as usize, d, &ctx)
                        .is_some_and(|(_, to, mark)| to == st.to && mark == st.mark)
                });
                let i = used.unwrap_or_else(|| panic!("{pos:?} {dice:?}: {st:?} not legal"));
                state = G::step(&state, st.from as usize, dice_left.remove(i), &ctx)
                    .expect("checked")
                    .0;
            }
            assert_eq!(state.side(), play.after.sides[0], "{pos:?} {dice:?}");
        }
        fast.sort_by_key(key);
        (slow, Some(fast))
    }

    /// Where the canonical order settles a position's plays, they are the full search's,
    /// each once, and each play's steps are legal in their order; on every position of
    /// the random movegen set (seeded games of random plays), most positions of each game
    /// being settled so, among them positions where a play ends the game, and some left
    /// to the full search where `hands_back` (Plakoto's doubles where a mother can be
    /// pinned, Fevga's positions under the runner rule). The set of the shipped nets'
    /// self-play needs the players, a higher layer: tests/tavli_orders.rs compares the
    /// two searches on it.
    fn canonical_matches_full<G: StepRules>(variant: Variant, hands_back: bool) {
        let rules = RuleSwitches::default();
        let set = crate::testing::tavli_movegen_set(variant);
        let (mut settled, mut handed_back, mut ending) = (0, 0, 0);
        for (pos, dice) in &set {
            if pos.result().is_some() {
                continue;
            }
            let (slow, fast) = both::<G>(pos, *dice, &rules);
            let Some(fast) = fast else {
                handed_back += 1;
                continue;
            };
            settled += 1;
            ending += usize::from(fast.iter().any(|p| p.end.is_some()));
            let after = |v: &[TavliPlay]| v.iter().map(|p| (p.after, p.end)).collect::<Vec<_>>();
            assert_eq!(after(&fast), after(&slow), "{pos:?} {dice:?}");
        }
        eprintln!(
            "{variant}: {settled} settled by the canonical order ({ending} with a play that \
             ends the game), {handed_back} by the full search"
        );
        assert!(settled > set.len() * 3 / 4, "{settled} of {}", set.len());
        assert!(ending > 100, "{ending}");
        assert_eq!(handed_back > 0, hands_back, "{handed_back}");
    }

    #[test]
    fn canonical_order_matches_full_search_portes() {
        canonical_matches_full::<Portes>(Variant::Portes, false);
    }

    #[test]
    fn canonical_order_matches_full_search_plakoto() {
        canonical_matches_full::<Plakoto>(Variant::Plakoto, true);
    }

    #[test]
    fn canonical_order_matches_full_search_fevga() {
        canonical_matches_full::<Fevga>(Variant::Fevga, true);
    }
}
