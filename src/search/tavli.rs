//! Search of the Tavli games: expectimax, Star1 and Star2 (Ballard's *-minimax) over a
//! Tavli evaluator, built from the same [`crate::engine::EngineSpec`] as backgammon's
//! searcher (`crate::engine::build::tavli`).
//!
//! Depth counts as backgammon's does: depth 1 values each play by the evaluation of the
//! position after it; depth 3 by the opponent's best depth-1 reply to each of the 21 rolls,
//! weighted; depth 5 one turn deeper. Values are from the searching player's view: the
//! expected value of the four scores of the game (single and double win, single and double
//! loss) under weights the caller gives (points at money play, match-winning chances in a
//! match), so they lie between the smallest and largest weight, the bounds the chance
//! nodes' pruning uses.
//!
//! Expectimax averages every roll (alpha-beta at the choice nodes); Star1 cuts a chance
//! node as soon as the rolls searched so far, with the others at the bounds, prove its
//! value outside the window; Star2 first probes one play per roll (the best by the
//! one-ply ordering), whose values bound each roll from one side, and cuts on those
//! bounds before searching the rest. All three give the same values (tested).

use super::Algorithm;
use crate::eval::tavli::{TavliNets, TavliProbs, TavliScratch};
use crate::game::{Dice, ALL_ROLLS};
use crate::tavli::{generate_plays, Rules, TavliPlay, TavliPlayList, TavliPosition};

/// The deepest Tavli search a spec may ask for.
pub const MAX_TAVLI_DEPTH: u8 = 5;
/// Candidates of the one-ply ranking searched deeper at the root.
pub const ROOT_CANDIDATES: usize = 8;

/// A Tavli game's evaluator with the algorithm and depth to search it.
#[derive(Debug, Clone)]
pub struct TavliSearcher {
    pub evaluator: TavliNets,
    pub algorithm: Algorithm,
    /// 1, 3 or 5.
    pub depth: u8,
}

impl TavliSearcher {
    /// Star2 over `evaluator` to `depth`: how the server's protocols search a Tavli game.
    pub fn star2(evaluator: TavliNets, depth: u8) -> TavliSearcher {
        TavliSearcher {
            evaluator,
            algorithm: Algorithm::Star2,
            depth,
        }
    }
}

/// The Tavli depth that goes with a backgammon engine's depth: 3 when it searches 3 or
/// deeper, else 1 (what the server and UBGI sessions search the Tavli games to).
pub fn depth_for(engine_depth: u32) -> u8 {
    if engine_depth >= 3 {
        3
    } else {
        1
    }
}

/// The expected value of `p` (the chances of the side it is for) under score values
/// `v` (single win, double win, single loss, double loss).
#[inline]
pub fn expected(p: &TavliProbs, v: &[f64; 4]) -> f64 {
    let s = p.scores();
    s[0] * v[0] + s[1] * v[1] + s[2] * v[2] + s[3] * v[3]
}

/// One search's state: the score values, their bounds, buffers per ply.
#[derive(Debug)]
pub struct TavliSearch<'a> {
    searcher: &'a TavliSearcher,
    values: [f64; 4],
    lo: f64,
    hi: f64,
    rules: Rules,
    scratch: TavliScratch,
    lists: Vec<TavliPlayList>,
    /// Positions evaluated (for benchmarks and the pruning's test).
    pub evaluations: u64,
}

impl<'a> TavliSearch<'a> {
    pub fn new(searcher: &'a TavliSearcher, values: [f64; 4]) -> TavliSearch<'a> {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        TavliSearch {
            searcher,
            values,
            lo,
            hi,
            rules: Rules::default(),
            scratch: TavliScratch::default(),
            lists: Vec::new(),
            evaluations: 0,
        }
    }

    /// The root player's value of a finished game's outcome (`p` for the side it is for;
    /// `root` whether that side is the root player).
    #[inline]
    fn view(&self, p: &TavliProbs, root: bool) -> f64 {
        if root {
            expected(p, &self.values)
        } else {
            expected(&p.invert(), &self.values)
        }
    }

    /// The root player's value of `pos` before its roll by the evaluator alone.
    fn static_value(&mut self, pos: &TavliPosition, root: bool) -> f64 {
        self.evaluations += 1;
        let p = self.searcher.evaluator.probs(pos, &mut self.scratch);
        self.view(&p, root)
    }

    /// The root player's value of a play's result searched `rest` more plies (`root`:
    /// whether the player making the play is the root player).
    fn play_value(&mut self, play: &TavliPlay, rest: u8, root: bool, a: f64, b: f64) -> f64 {
        match play.after.result() {
            Some(o) => self.view(&TavliProbs::of_outcome(o), root),
            None => self.chance(&play.next_position(), rest, !root, a, b),
        }
    }

    /// The value of `pos` before its roll (side to act: the root player when `root`),
    /// searched `depth` plies (0: the evaluator), fail-soft within (a, b).
    fn chance(&mut self, pos: &TavliPosition, depth: u8, root: bool, a: f64, b: f64) -> f64 {
        if let Some(o) = pos.result() {
            return self.view(&TavliProbs::of_outcome(o), root);
        }
        if depth == 0 {
            return self.static_value(pos, root);
        }
        match self.searcher.algorithm {
            Algorithm::Star2 => self.star2(pos, depth, root, a, b),
            Algorithm::Star1 => self.star1(pos, depth, root, a, b),
            _ => {
                let mut sum = 0.0;
                for dice in ALL_ROLLS {
                    let v = self.choice(pos, dice, depth, root, self.lo, self.hi, None);
                    sum += v * dice.probability();
                }
                sum
            }
        }
    }

    fn star1(&mut self, pos: &TavliPosition, depth: u8, root: bool, a: f64, b: f64) -> f64 {
        let (lo, hi) = (self.lo, self.hi);
        let mut sum = 0.0;
        let mut left = 1.0;
        for dice in ALL_ROLLS {
            let p = dice.probability();
            left -= p;
            let ai = (a - sum - left * hi) / p;
            let bi = (b - sum - left * lo) / p;
            let v = self.choice(pos, dice, depth, root, ai.max(lo), bi.min(hi), None);
            sum += p * v;
            if v <= ai {
                return sum + left * hi;
            }
            if v >= bi {
                return sum + left * lo;
            }
        }
        sum
    }

    fn star2(&mut self, pos: &TavliPosition, depth: u8, root: bool, a: f64, b: f64) -> f64 {
        let (lo, hi) = (self.lo, self.hi);
        // Probing: one play per roll bounds the roll from the side of the player to act.
        let mut lower = [lo; 21];
        let mut upper = [hi; 21];
        let mut probe = [None; 21];
        let mut exact = [false; 21];
        let (mut sum_lower, mut sum_upper) = (0.0, 0.0);
        for (i, dice) in ALL_ROLLS.iter().enumerate() {
            if let Some((v, is_exact)) = self.first_play(pos, *dice, depth, root) {
                probe[i] = Some(v);
                exact[i] = is_exact;
                if is_exact {
                    (lower[i], upper[i]) = (v, v);
                } else if root {
                    lower[i] = v;
                } else {
                    upper[i] = v;
                }
            }
            sum_lower += dice.probability() * lower[i];
            sum_upper += dice.probability() * upper[i];
        }
        if sum_upper <= a {
            return sum_upper;
        }
        if sum_lower >= b {
            return sum_lower;
        }
        // Searching, the rolls not yet searched at their bounds.
        let mut sum = 0.0;
        for (i, dice) in ALL_ROLLS.iter().enumerate() {
            let p = dice.probability();
            sum_lower -= p * lower[i];
            sum_upper -= p * upper[i];
            let ai = (a - sum - sum_upper) / p;
            let bi = (b - sum - sum_lower) / p;
            let v = match probe[i] {
                Some(v) if exact[i] => v,
                known => self.choice(
                    pos,
                    *dice,
                    depth,
                    root,
                    ai.max(lower[i]),
                    bi.min(upper[i]),
                    known,
                ),
            };
            sum += p * v;
            if v <= ai {
                return sum + sum_upper;
            }
            if v >= bi {
                return sum + sum_lower;
            }
        }
        sum
    }

    /// The plays of `dice` in `pos`, best first by the evaluator for the player to act
    /// (buffers of the generator per search level).
    fn ordered_plays(
        &mut self,
        pos: &TavliPosition,
        dice: Dice,
        level: usize,
        root: bool,
    ) -> Vec<(f64, TavliPlay)> {
        if self.lists.len() <= level {
            self.lists.resize_with(level + 1, TavliPlayList::new);
        }
        let mut list = std::mem::take(&mut self.lists[level]);
        generate_plays(pos, dice, &self.rules, &mut list);
        let mut keyed: Vec<(f64, TavliPlay)> = Vec::with_capacity(list.len());
        for play in list.iter() {
            let v = match play.after.result() {
                Some(o) => self.view(&TavliProbs::of_outcome(o), root),
                None => self.static_value(&play.next_position(), !root),
            };
            keyed.push((v, *play));
        }
        // The player to act wants the most when it is the root, else the least.
        if root {
            keyed.sort_by(|x, y| y.0.total_cmp(&x.0));
        } else {
            keyed.sort_by(|x, y| x.0.total_cmp(&y.0));
        }
        self.lists[level] = list;
        keyed
    }

    /// Star2's probe of a roll: the value of the first play of the ordering, and whether
    /// it is the roll's exact value (at depth 2 the ordering is the search). `None` when
    /// the roll has no play.
    fn first_play(
        &mut self,
        pos: &TavliPosition,
        dice: Dice,
        depth: u8,
        root: bool,
    ) -> Option<(f64, bool)> {
        let plays = self.ordered_plays(pos, dice, (depth / 2) as usize, root);
        let (v, first) = plays.first()?;
        if depth == 2 {
            return Some((*v, true));
        }
        Some((
            self.play_value(first, depth - 2, root, self.lo, self.hi),
            false,
        ))
    }

    /// The best value (for the player to act) among the plays of `dice` in `pos`, each
    /// searched `depth - 2` more plies, alpha-beta within (a, b); `known` the value of the
    /// first play of the ordering when a probe found it.
    #[allow(clippy::too_many_arguments)]
    fn choice(
        &mut self,
        pos: &TavliPosition,
        dice: Dice,
        depth: u8,
        root: bool,
        mut a: f64,
        mut b: f64,
        known: Option<f64>,
    ) -> f64 {
        let plays = self.ordered_plays(pos, dice, (depth / 2) as usize, root);
        let Some(&(first, _)) = plays.first() else {
            return self.static_value(pos, root);
        };
        if depth == 2 {
            // The ordering's values are the plays' values: the first is the best.
            return first;
        }
        let mut best = if root {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        for (i, (_, play)) in plays.iter().enumerate() {
            let v = match (i, known) {
                (0, Some(v)) => v,
                _ => self.play_value(play, depth - 2, root, a, b),
            };
            if root {
                best = best.max(v);
                a = a.max(v);
            } else {
                best = best.min(v);
                b = b.min(v);
            }
            if a >= b {
                break;
            }
        }
        best
    }

    /// The root player's values of its `plays` (the legal plays of its roll): every play
    /// at depth 1; at depth 3 or 5 the best [`ROOT_CANDIDATES`] of the depth-1 ranking
    /// within a sixteenth of the value range of the best are searched to the full depth.
    /// The first `exact` of them get exact values (the full window); the others are
    /// searched only for whether they beat the best so far, so a value at or below it is
    /// a bound (no more than the play's value at that depth... and never above the best).
    /// Returns (value, depth of the value).
    pub fn rank(&mut self, plays: &[TavliPlay], exact: usize) -> Vec<(f64, u8)> {
        self.rank_with_chances(plays, exact).0
    }

    /// [`TavliSearch::rank`], and beside it the mover's chances after each play at one
    /// ply (the evaluations the depth-1 ranking is made of; exact for a play that ends the
    /// game).
    pub fn rank_with_chances(
        &mut self,
        plays: &[TavliPlay],
        exact: usize,
    ) -> (Vec<(f64, u8)>, Vec<TavliProbs>) {
        let chances: Vec<TavliProbs> = plays
            .iter()
            .map(|p| match p.after.result() {
                Some(o) => TavliProbs::of_outcome(o),
                None => {
                    self.evaluations += 1;
                    self.searcher
                        .evaluator
                        .probs(&p.next_position(), &mut self.scratch)
                        .invert()
                }
            })
            .collect();
        let mut out: Vec<(f64, u8)> = chances.iter().map(|p| (self.view(p, true), 1)).collect();
        let depth = self.searcher.depth;
        if depth >= 3 && plays.len() > 1 {
            let mut order: Vec<usize> = (0..plays.len()).collect();
            order.sort_by(|&x, &y| out[y].0.total_cmp(&out[x].0));
            let best = out[order[0]].0;
            let margin = (self.hi - self.lo) / 16.0;
            let mut alpha = self.lo;
            for (n, &i) in order.iter().take(ROOT_CANDIDATES).enumerate() {
                if n > 0 && out[i].0 < best - margin {
                    break;
                }
                let a = if n < exact.max(1) { self.lo } else { alpha };
                let v = self.play_value(&plays[i], depth - 1, true, a, self.hi);
                alpha = alpha.max(v);
                out[i] = (v, depth);
            }
        }
        (out, chances)
    }
}

/// The index of the best play by [`TavliSearch::rank`]: the deepest values first, then
/// the highest.
pub fn best_index(ranked: &[(f64, u8)]) -> usize {
    let mut best = 0;
    for (i, r) in ranked.iter().enumerate() {
        let b = ranked[best];
        if r.1 > b.1 || (r.1 == b.1 && r.0 > b.0) {
            best = i;
        }
    }
    best
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::Rng;
    use crate::tavli::{legal_plays, Variant};

    fn searcher(variant: Variant, algorithm: Algorithm, depth: u8) -> TavliSearcher {
        TavliSearcher {
            evaluator: TavliNets::load(variant, None).unwrap(),
            algorithm,
            depth,
        }
    }

    /// Positions of seeded random games of each game.
    fn positions(variant: Variant, n: usize, seed: u64) -> Vec<(TavliPosition, Dice)> {
        let mut out = Vec::new();
        let mut rng = Rng::seeded(seed);
        while out.len() < n {
            crate::tavli::play_random_game(
                variant,
                &Rules::default(),
                &mut rng,
                400,
                |pos, dice| {
                    if out.len() < n && pos.result().is_none() {
                        out.push((*pos, dice));
                    }
                },
            );
        }
        out
    }

    #[test]
    fn star1_and_star2_find_the_values_of_expectimax() {
        for variant in [Variant::Plakoto, Variant::Fevga, Variant::Portes] {
            let e = searcher(variant, Algorithm::Expectimax, 3);
            let s1 = searcher(variant, Algorithm::Star1, 3);
            let s2 = searcher(variant, Algorithm::Star2, 3);
            let mut evals = [0u64; 3];
            for (k, (pos, dice)) in positions(variant, 40, 7).into_iter().enumerate() {
                let plays = legal_plays(&pos, dice, &Rules::default());
                let values = if k % 2 == 0 {
                    [1.0, 2.0, -1.0, -2.0]
                } else {
                    [0.8, 0.95, 0.3, 0.1]
                };
                let mut results = Vec::new();
                for (j, s) in [&e, &s1, &s2].into_iter().enumerate() {
                    let mut search = TavliSearch::new(s, values);
                    results.push(search.rank(&plays, usize::MAX));
                    evals[j] += search.evaluations;
                }
                for r in &results[1..] {
                    for (x, y) in r.iter().zip(&results[0]) {
                        assert!((x.0 - y.0).abs() < 1e-9, "{variant:?} {pos:?} {dice:?}");
                        assert_eq!(x.1, y.1);
                    }
                }
            }
            // At depth 3 the pruning has nothing to cut: every reply is evaluated anyway
            // to order them, and that ordering is the value.
            assert!(
                evals[1] <= evals[0] && evals[2] <= evals[0],
                "{variant:?} {evals:?}"
            );
        }
    }

    #[test]
    fn at_depth_5_the_stars_find_the_same_best_play_with_fewer_evaluations() {
        for variant in [Variant::Plakoto, Variant::Fevga] {
            let mut evals = [0u64; 3];
            let busy = positions(variant, 200, 11)
                .into_iter()
                .filter(|(pos, dice)| legal_plays(pos, *dice, &Rules::default()).len() >= 6)
                .step_by(7)
                .take(2);
            for (pos, dice) in busy {
                let plays = legal_plays(&pos, dice, &Rules::default());
                let mut results = Vec::new();
                for (j, algo) in [Algorithm::Expectimax, Algorithm::Star1, Algorithm::Star2]
                    .into_iter()
                    .enumerate()
                {
                    let s = searcher(variant, algo, 5);
                    let mut search = TavliSearch::new(&s, [1.0, 2.0, -1.0, -2.0]);
                    results.push(search.rank(&plays, 1));
                    evals[j] += search.evaluations;
                }
                // The same best play with the same value.
                let best = best_index(&results[0]);
                for r in &results[1..] {
                    assert_eq!(best_index(r), best, "{variant:?} {pos:?} {dice:?}");
                    assert!((r[best].0 - results[0][best].0).abs() < 1e-9);
                }
            }
            assert!(
                evals[2] < evals[0] && evals[1] < evals[0],
                "{variant:?} {evals:?}"
            );
        }
    }

    #[test]
    fn deeper_searches_rank_every_play_and_finish() {
        let (pos, dice) = positions(Variant::Fevga, 30, 3)[29];
        let plays = legal_plays(&pos, dice, &Rules::default());
        for depth in [1, 3, 5] {
            let s = searcher(Variant::Fevga, Algorithm::Star2, depth);
            let mut search = TavliSearch::new(&s, [1.0, 2.0, -1.0, -2.0]);
            let r = search.rank(&plays, 1);
            assert_eq!(r.len(), plays.len());
            assert!(r
                .iter()
                .all(|v| v.0.is_finite() && (-2.0..=2.0).contains(&v.0)));
            assert_eq!(r[best_index(&r)].1, if plays.len() > 1 { depth } else { 1 });
        }
    }
}
