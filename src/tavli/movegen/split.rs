//! Where the move generator spends its time on a set of positions (`stargammon bench
//! movegen --split`): the canonical order against the full search.

use super::{full, settle, Compact, Scratch, StepRules};
use crate::game::Dice;
use crate::tavli::{RuleSwitches, TavliPlay, TavliPosition};

/// Where `generate` spends its time on a set of positions of one game (`stargammon
/// bench movegen --split`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Split {
    /// Positions of the set that are not over.
    pub positions: usize,
    /// Of those, the positions the canonical order settles.
    pub canonical: usize,
    /// The positions the canonical order hands back (a double that may pin a mother in
    /// Plakoto, or doubt about the shorter plays).
    pub handed_back: usize,
    /// The positions where the canonical order does not apply (`StepRules::order_free`
    /// false: Fevga's runner rule).
    pub not_order_free: usize,
    /// The fastest of the rounds, in ns per position of the whole set: the canonical
    /// order on every position where it applies (those handed back included, up to where
    /// it stops), and the full search on the positions it decides.
    pub canonical_ns: f64,
    pub full_ns: f64,
}

/// [`Split`] of `set` (positions of one Tavli game), `rounds` passes.
pub(crate) fn split(set: &[(TavliPosition, Dice)], rules: &RuleSwitches, rounds: u32) -> Split {
    use crate::game::Variant;
    use crate::tavli::{fevga::Fevga, plakoto::Plakoto, portes::Portes};
    match set.first().map(|(p, _)| p.variant()) {
        Some(Variant::Portes) => split_of::<Portes>(set, rules, rounds),
        Some(Variant::Plakoto) => split_of::<Plakoto>(set, rules, rounds),
        Some(Variant::Fevga) => split_of::<Fevga>(set, rules, rounds),
        Some(Variant::Backgammon) | None => Split::default(),
    }
}

fn split_of<G: StepRules>(
    set: &[(TavliPosition, Dice)],
    rules: &RuleSwitches,
    rounds: u32,
) -> Split {
    let live: Vec<&(TavliPosition, Dice)> =
        set.iter().filter(|(p, _)| p.result().is_none()).collect();
    let mut s = Scratch::default();
    let mut out = Vec::new();
    let mut split = Split {
        positions: live.len(),
        canonical_ns: f64::MAX,
        full_ns: f64::MAX,
        ..Split::default()
    };
    // Which positions the full search decides.
    let mut decided = Vec::new();
    // The canonical order on one position: `None` where it does not apply, else whether
    // it settled the plays.
    let try_canonical = |s: &mut Scratch, out: &mut Vec<TavliPlay>, pos, dice: Dice| {
        out.clear();
        let ctx = G::context(pos, rules);
        let root = Compact::load(pos, G::marks(pos));
        settle::<G>(pos, &root, dice.high(), dice.low(), &ctx, s, out)
    };
    for (i, (pos, dice)) in live.iter().enumerate() {
        let settled = try_canonical(&mut s, &mut out, pos, *dice);
        match settled {
            Some(true) => split.canonical += 1,
            Some(false) => split.handed_back += 1,
            None => split.not_order_free += 1,
        }
        if settled != Some(true) {
            decided.push(i);
        }
    }
    let per = |t: std::time::Duration| t.as_secs_f64() * 1e9 / live.len().max(1) as f64;
    for _ in 0..rounds.max(1) {
        let t = std::time::Instant::now();
        for (pos, dice) in &live {
            std::hint::black_box(try_canonical(&mut s, &mut out, pos, *dice));
        }
        split.canonical_ns = split.canonical_ns.min(per(t.elapsed()));
        let t = std::time::Instant::now();
        for &i in &decided {
            let (pos, dice) = live[i];
            let ctx = G::context(pos, rules);
            let root = Compact::load(pos, G::marks(pos));
            out.clear();
            full::<G>(pos, &root, dice.high(), dice.low(), &ctx, &mut s, &mut out);
        }
        split.full_ns = split.full_ns.min(per(t.elapsed()));
    }
    split
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Variant;

    /// The split of `bench movegen --split` accounts for every live position once, and
    /// its counts are those of the comparison above.
    #[test]
    fn split_counts_every_position_once() {
        let rules = RuleSwitches::default();
        for variant in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            let set = crate::testing::tavli_movegen_set(variant);
            let set = &set[..3000];
            let s = split(set, &rules, 1);
            let live = set.iter().filter(|(p, _)| p.result().is_none()).count();
            assert_eq!(s.positions, live, "{variant}");
            assert_eq!(s.canonical + s.handed_back + s.not_order_free, live);
            assert!(s.canonical > live / 2, "{variant}: {s:?}");
            assert!(s.canonical_ns > 0.0 && s.full_ns >= 0.0);
            assert_eq!(s.not_order_free > 0, variant == Variant::Fevga, "{s:?}");
        }
    }
}
