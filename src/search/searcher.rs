//! The search proper: [`Searcher`] and the per-thread context that runs Expectimax,
//! Star1, Star2 and the forward-pruning filter over the shared table.

use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::eval::{Evaluator, Probabilities};
use crate::game::{Dice, GamePlay, GamePosition, Position, ALL_ROLLS};

use super::tt::{Bound, TranspositionTable, TtEntry};
use super::value::{
    ceil_div, floor_div, to_equity, to_value, Utility, Value, MAX_VALUE, MIN_VALUE,
};
use super::{
    Algorithm, Cancel, MoveDecision, PlayOrder, PositionEvaluation, ProbeChoice, RankedPlay,
    RollChild, RollOrder, SearchSettings, SearchStats,
};
use crate::game::zobrist;

mod root;
mod star;

use root::{narrow, root_candidates};

/// The widest window: every value lies strictly inside it.
const NEG_INF: Value = MIN_VALUE - 1;
const POS_INF: Value = MAX_VALUE + 1;
/// Mixed into the keys of leaf evaluations so they never collide with chance nodes of
/// the same position (which have their own depth-dependent entries).
const LEAF_SALT: u64 = 0x4C45_4146_5F4B_4559;
/// Growth of the search time from one iteration to the next before it has been measured.
const DEFAULT_GROWTH: f64 = 30.0;

fn weight(roll: usize) -> i64 {
    ALL_ROLLS[roll].weight() as i64
}

fn roll_order(order: RollOrder) -> [usize; 21] {
    let mut out = [0usize; 21];
    match order {
        RollOrder::Natural => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = i;
            }
        }
        RollOrder::NonDoublesFirst => {
            let mut k = 0;
            for pass in [false, true] {
                for (i, d) in ALL_ROLLS.iter().enumerate() {
                    if d.is_double() == pass {
                        out[k] = i;
                        k += 1;
                    }
                }
            }
        }
    }
    out
}

/// The value of a play that ends the game, for its mover (`side`).
fn terminal_value<M: GamePlay<P>, P>(util: &Utility, side: usize, play: &M) -> Option<Value> {
    play.ending().map(|e| util.ended(side, e))
}

fn classify(v: Value, alpha: Value, beta: Value) -> Bound {
    if v <= alpha {
        Bound::Upper
    } else if v >= beta {
        Bound::Lower
    } else {
        Bound::Exact
    }
}

fn decides(e: &TtEntry, alpha: Value, beta: Value) -> bool {
    match e.bound {
        Bound::Exact => true,
        Bound::Lower => e.value >= beta,
        Bound::Upper => e.value <= alpha,
    }
}

/// Synchronous search over an evaluator and a (possibly shared) transposition table.
/// Cloning is cheap; clones share the evaluator and the table.
pub struct Searcher<P: GamePosition = Position> {
    evaluator: Arc<dyn Evaluator<P>>,
    tt: Arc<TranspositionTable>,
    eval_salt: u64,
    /// The cheap evaluator that ranks a roll's plays where [`SearchSettings::prune`]
    /// asks for it (backgammon's pruning nets), with its name's salt.
    pruner: Option<(Arc<dyn Evaluator<P>>, u64)>,
}

impl<P: GamePosition> Clone for Searcher<P> {
    fn clone(&self) -> Self {
        Searcher {
            evaluator: Arc::clone(&self.evaluator),
            tt: Arc::clone(&self.tt),
            eval_salt: self.eval_salt,
            pruner: self.pruner.clone(),
        }
    }
}

impl<P: GamePosition> std::fmt::Debug for Searcher<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher")
            .field("evaluator", &self.evaluator.name())
            .field("tt_entries", &self.tt.capacity())
            .finish()
    }
}

/// Per-play result of one root iteration.
struct RootResult {
    /// Exact values at this depth (None: only a bound is known, or not searched).
    values: Vec<Option<Value>>,
}

impl<P: GamePosition> Searcher<P> {
    /// A searcher over `evaluator` using table `tt`. The evaluator's name is mixed into
    /// every table key, so evaluators (and noise settings named in them) can share one
    /// table.
    pub fn new(evaluator: Arc<dyn Evaluator<P>>, tt: Arc<TranspositionTable>) -> Searcher<P> {
        let eval_salt = zobrist::salt(&evaluator.name());
        Searcher {
            evaluator,
            tt,
            eval_salt,
            pruner: None,
        }
    }

    /// This searcher with `pruner` ranking the plays of the move nodes that
    /// [`SearchSettings::prune`] prunes (without one, every play is valued).
    pub fn with_pruner(mut self, pruner: Arc<dyn Evaluator<P>>) -> Searcher<P> {
        let salt = zobrist::salt(&format!("prune:{}", pruner.name()));
        self.pruner = Some((pruner, salt));
        self
    }

    /// A searcher over `evaluator` with this one's table and pruner.
    pub fn with_evaluator(&self, evaluator: Arc<dyn Evaluator<P>>) -> Searcher<P> {
        Searcher {
            pruner: self.pruner.clone(),
            ..Searcher::new(evaluator, self.tt.clone())
        }
    }

    /// The pruning evaluator, if this searcher has one.
    pub fn pruner(&self) -> Option<&Arc<dyn Evaluator<P>>> {
        self.pruner.as_ref().map(|(p, _)| p)
    }

    pub fn evaluator(&self) -> &Arc<dyn Evaluator<P>> {
        &self.evaluator
    }

    pub fn table(&self) -> &Arc<TranspositionTable> {
        &self.tt
    }

    fn ctx<'a>(
        &'a self,
        settings: &'a SearchSettings,
        cancel: &'a Cancel,
        deadline: Option<Instant>,
    ) -> Ctx<'a, P> {
        // Pruned move nodes have values of their own: their keys carry the pruner's salt.
        let pruner = self.pruner.as_ref().filter(|_| settings.prune > 0);
        let prune_salt = pruner.map_or(0, |(_, s)| *s);
        let mut ctx = Ctx::new(
            self.evaluator.as_ref(),
            &self.tt,
            self.eval_salt ^ zobrist::salt(&settings.mode_tag()) ^ prune_salt,
            self.eval_salt ^ LEAF_SALT,
            settings,
            cancel,
            deadline,
        );
        ctx.pruner = pruner.map(|(p, _)| p.as_ref());
        ctx
    }

    /// Ranks the plays of `dice` in `pos` (best first) by iterative deepening up to
    /// `settings.depth`. Depth 1 always completes; deeper iterations stop on the time
    /// budget or the cancel flag, and the last completed one answers.
    pub fn choose(
        &self,
        pos: &P,
        dice: Dice,
        settings: &SearchSettings,
        cancel: &Cancel,
    ) -> MoveDecision<P::Play> {
        if settings.algorithm == Algorithm::Mcts {
            return super::mcts::choose(self.evaluator.as_ref(), pos, dice, settings, cancel);
        }
        let start = Instant::now();
        let deadline = settings.time_budget.map(|b| start + b);
        // Entries of earlier decisions become the first to be replaced.
        self.tt.new_generation();
        let plays: Vec<P::Play> = {
            let mut list = P::List::default();
            pos.generate(dice, &mut list);
            list.to_vec()
        };
        let n = plays.len();
        let mut ctx = self.ctx(settings, cancel, deadline);
        let mut stats = SearchStats {
            move_nodes: 1,
            ..SearchStats::default()
        };

        // Depth 1: static values and probabilities of every play.
        let static_probs = ctx.root_static(&plays);
        let mut values: Vec<(Value, u8)> = plays
            .iter()
            .zip(&static_probs)
            .map(|(p, pr)| match terminal_value(&settings.utility, 0, p) {
                Some(v) => (v, 1),
                None => (-settings.utility.leaf(1, pr, &p.next()), 1),
            })
            .collect();
        let statics: Vec<Value> = values.iter().map(|v| v.0).collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (-values[i].0, i));
        let mut completed = 1u8;
        let mut stopped = false;
        let target = settings.depth.max(1);
        let single = n == 1 && !settings.probabilities && settings.rank <= 1;
        // The root plays searched deeper: all of them for the exact algorithms; for the
        // filter, its first stage's survivors, narrowed again after each iteration.
        let mut live: Vec<bool> = vec![false; n];
        for i in root_candidates(&order, &statics, settings) {
            live[i] = true;
        }
        let mut times: Vec<Duration> = vec![start.elapsed()];
        // The filter narrowed the root to one play before the target depth. With stages
        // after depth 1 configured, one survivor of the first stage is the answer.
        let staged = settings.algorithm == Algorithm::Filter
            && settings.filter.stage_after(3).is_some()
            && !settings.probabilities
            && settings.rank <= 1;
        let mut resolved = staged && live.iter().filter(|&&l| l).count() <= 1;
        let mut depth = if settings.iterative { 3 } else { target };
        while depth <= target && depth >= 3 && !single && !resolved {
            if cancel.is_cancelled() {
                stopped = true;
                break;
            }
            // Iterations up to the guaranteed depth ignore the budget and the deadline.
            let guaranteed = depth <= settings.min_depth;
            let it_deadline = if guaranteed { None } else { deadline };
            ctx.deadline = it_deadline;
            if let (Some(budget), false) = (settings.time_budget, guaranteed) {
                let last = times.last().copied().unwrap_or_default().as_secs_f64();
                // The growth from depth 1 to 3 says little about 3 to 5: use the measured
                // ratio only between deeper iterations.
                let growth = if times.len() >= 3 {
                    let prev = times[times.len() - 2].as_secs_f64().max(1e-6);
                    (last / prev).max(4.0)
                } else {
                    DEFAULT_GROWTH
                };
                let t = start.elapsed().as_secs_f64();
                if t + last * growth > budget.as_secs_f64() {
                    stopped = true;
                    break;
                }
            }
            let it_start = Instant::now();
            ctx.stop_enabled = true;
            let candidates: Vec<usize> = order.iter().copied().filter(|&i| live[i]).collect();
            // The filter searches each play against the best less the next stage's
            // margin, so that every play it would keep gets an exact value.
            let stage = match settings.algorithm {
                Algorithm::Filter if depth < target => settings.filter.stage_after(depth),
                _ => None,
            };
            let margin = stage.map_or(0, |st| to_value(st.margin));
            let result = if settings.threads > 1 {
                let (r, st) = self.root_parallel(
                    &plays,
                    &candidates,
                    margin,
                    depth,
                    settings,
                    cancel,
                    it_deadline,
                );
                stats.add(&st);
                r
            } else {
                ctx.search_root(&plays, &candidates, margin, depth)
            };
            let Some(result) = result else {
                stopped = true;
                break;
            };
            times.push(it_start.elapsed());
            for (i, v) in result.values.iter().enumerate() {
                if let Some(v) = v {
                    values[i] = (*v, depth);
                }
            }
            order.sort_by_key(|&i| (std::cmp::Reverse(values[i].1), -values[i].0, i));
            completed = depth;
            if let Some(st) = stage {
                narrow(&mut live, &order, &values, depth, st.keep, margin);
                // One play left: the decision is clear at this depth.
                if live.iter().filter(|&&l| l).count() <= 1
                    && !settings.probabilities
                    && settings.rank <= 1
                {
                    resolved = true;
                    break;
                }
            }
            depth += 2;
        }
        ctx.stop_enabled = false;

        let mut ranked: Vec<RankedPlay<P::Play>> = order
            .iter()
            .map(|&i| {
                let (value, d) = values[i];
                let probs = match plays[i].ending() {
                    Some(e) => Probabilities::from_ending(e, true),
                    None if settings.probabilities && d > 1 => {
                        // The opponent acts after the play.
                        ctx.side = 1;
                        let p = ctx.pv_probs(&plays[i].next(), d - 1);
                        ctx.side = 0;
                        p.invert()
                    }
                    None => static_probs[i].invert(),
                };
                RankedPlay {
                    play: plays[i],
                    index: i,
                    value,
                    equity: to_equity(value),
                    probs,
                    depth: d,
                }
            })
            .collect();
        ranked.sort_by_key(|r| (std::cmp::Reverse(r.depth), -r.value, r.index));
        stats.add(&ctx.stats);
        MoveDecision {
            plays: ranked,
            depth: completed,
            stats,
            elapsed: start.elapsed(),
            stopped: stopped || (completed < target && !resolved),
            threads: settings.threads.max(1),
        }
    }

    /// Values `pos` before its side rolls (cube decisions, evaluation requests): the
    /// probabilities and equity at `settings.depth` (1 = static evaluation; 3 = average
    /// over the 21 rolls of the best play; ...).
    pub fn evaluate_position(
        &self,
        pos: &P,
        settings: &SearchSettings,
        cancel: &Cancel,
    ) -> PositionEvaluation<P> {
        if settings.algorithm == Algorithm::Mcts {
            return super::mcts::evaluate_position(self.evaluator.as_ref(), pos, settings, cancel);
        }
        let start = Instant::now();
        let deadline = settings.time_budget.map(|b| start + b);
        self.tt.new_generation();
        let mut ctx = self.ctx(settings, cancel, deadline);
        ctx.stats.evals += 1;
        let static_probs = self.evaluator.evaluate(pos);
        let mut value = settings.utility.leaf(0, &static_probs, pos);
        let mut completed = 1u8;
        let mut stopped = false;
        let target = settings.depth.max(1);
        let game_over = pos.is_over();
        let mut depth = if settings.iterative { 3 } else { target };
        let mut last = start.elapsed().as_secs_f64();
        while depth <= target && depth >= 3 && !game_over {
            if cancel.is_cancelled() {
                stopped = true;
                break;
            }
            let guaranteed = depth <= settings.min_depth;
            ctx.deadline = if guaranteed { None } else { deadline };
            if let (Some(budget), false) = (settings.time_budget, guaranteed) {
                if start.elapsed().as_secs_f64() + last * DEFAULT_GROWTH > budget.as_secs_f64() {
                    stopped = true;
                    break;
                }
            }
            let it = Instant::now();
            ctx.stop_enabled = true;
            let v = ctx.chance_node(pos, depth - 1, NEG_INF, POS_INF);
            if ctx.aborted {
                stopped = true;
                break;
            }
            last = it.elapsed().as_secs_f64();
            value = v;
            completed = depth;
            depth += 2;
        }
        ctx.stop_enabled = false;
        let (probs, rolls) = if completed > 1 {
            ctx.pv_rolls(pos, completed - 1, settings.rolls.max(1))
        } else {
            (static_probs, Vec::new())
        };
        PositionEvaluation {
            probs,
            value,
            equity: to_equity(value),
            depth: completed,
            stats: ctx.stats,
            elapsed: start.elapsed(),
            stopped: stopped || completed < target,
            rolls,
        }
    }
}

/// One thread's search state.
struct Ctx<'a, P: GamePosition> {
    eval: &'a dyn Evaluator<P>,
    /// Ranks the plays of pruned move nodes (`cfg.prune` of them are valued).
    pruner: Option<&'a dyn Evaluator<P>>,
    /// The plays a pruned node keeps, and their indices in its list.
    kept: Vec<P::Play>,
    kept_idx: Vec<u16>,
    prune_rank: Vec<(Value, u16)>,
    tt: &'a TranspositionTable,
    salt: u64,
    leaf_salt: u64,
    cfg: &'a SearchSettings,
    stats: SearchStats,
    lists: Vec<Option<P::List>>,
    orders: Vec<Vec<(Value, u16)>>,
    vals: Vec<Value>,
    batch_pos: Vec<P>,
    batch_idx: Vec<usize>,
    /// The table keys of the positions after the plays of a leaf batch.
    leaf_keys: Vec<u64>,
    batch_out: Vec<Probabilities>,
    roll_order: [usize; 21],
    cancel: &'a Cancel,
    deadline: Option<Instant>,
    stop_enabled: bool,
    aborted: bool,
    tick: u32,
    /// The filter's root values at depth 1 keep their meaning (filter values are not
    /// exact values of the full tree).
    filter: bool,
    /// What the search maximises ([`SearchSettings::utility`]).
    util: Utility,
    /// The side to act at the node being searched: 0 the side the search is for, 1 its
    /// opponent (under a match utility the two value results differently).
    side: usize,
}

impl<'a, P: GamePosition> Ctx<'a, P> {
    fn new(
        eval: &'a dyn Evaluator<P>,
        tt: &'a TranspositionTable,
        salt: u64,
        leaf_salt: u64,
        cfg: &'a SearchSettings,
        cancel: &'a Cancel,
        deadline: Option<Instant>,
    ) -> Ctx<'a, P> {
        let levels = super::MAX_DEPTH as usize + 2;
        Ctx {
            eval,
            pruner: None,
            kept: Vec::new(),
            kept_idx: Vec::new(),
            prune_rank: Vec::new(),
            tt,
            salt,
            leaf_salt,
            cfg,
            stats: SearchStats::default(),
            lists: (0..levels).map(|_| Some(P::List::default())).collect(),
            orders: vec![Vec::new(); levels],
            vals: Vec::new(),
            batch_pos: Vec::new(),
            batch_idx: Vec::new(),
            leaf_keys: Vec::new(),
            batch_out: Vec::new(),
            roll_order: roll_order(cfg.ordering.rolls),
            cancel,
            deadline,
            stop_enabled: false,
            aborted: false,
            tick: 0,
            filter: cfg.algorithm == Algorithm::Filter,
            util: cfg.utility.clone(),
            side: 0,
        }
    }

    #[inline]
    fn should_stop(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if !self.stop_enabled {
            return false;
        }
        self.tick = self.tick.wrapping_add(1);
        if self.tick & 31 == 0
            && (self.cancel.is_cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.aborted = true;
        }
        self.aborted
    }

    #[inline]
    fn probe_tt(&mut self, key: u64) -> Option<TtEntry> {
        self.stats.tt_probes += 1;
        let e = self.tt.probe(key);
        if e.is_some() {
            self.stats.tt_hits += 1;
        }
        e
    }

    fn take_list(&mut self, level: u8) -> P::List {
        self.lists
            .get_mut(level as usize)
            .and_then(Option::take)
            .unwrap_or_default()
    }

    fn put_list(&mut self, level: u8, list: P::List) {
        if let Some(slot) = self.lists.get_mut(level as usize) {
            *slot = Some(list);
        }
    }

    /// The static (depth 1) probabilities of every root play's resulting position, for
    /// the opponent to act (terminal plays get their result from the opponent's view).
    fn root_static(&mut self, plays: &[P::Play]) -> Vec<Probabilities> {
        let positions: Vec<P> = plays.iter().map(GamePlay::next).collect();
        let mut out = vec![Probabilities::default(); positions.len()];
        self.eval.evaluate_batch(&positions, &mut out);
        self.stats.evals += positions.len() as u64;
        self.stats.leaves += positions.len() as u64;
        for (p, o) in plays.iter().zip(out.iter_mut()) {
            if let Some(e) = p.ending() {
                *o = Probabilities::from_ending(e, false);
            }
        }
        out
    }

    /// Value of a position before its side rolls, from the evaluator (cached).
    fn leaf(&mut self, pos: &P) -> Value {
        self.stats.leaves += 1;
        let key = pos.key() ^ self.leaf_salt ^ self.util.key_salt(self.side);
        if let Some(e) = self.probe_tt(key) {
            if e.depth == 0 && e.bound == Bound::Exact {
                self.stats.tt_cutoffs += 1;
                return e.value;
            }
        }
        self.stats.evals += 1;
        let v = self.util.leaf(self.side, &self.eval.evaluate(pos), pos);
        self.tt.store(key, 0, Bound::Exact, v, None);
        v
    }

    /// Depth-1 values of `plays` (from the mover's view) into `self.vals`, evaluating
    /// the uncached positions in one batch.
    fn static_values(&mut self, plays: &[P::Play]) {
        self.vals.clear();
        self.batch_pos.clear();
        self.batch_idx.clear();
        // The positions after the plays have the other side to act.
        let next_salt = self.leaf_salt ^ self.util.key_salt(self.side ^ 1);
        // Every leaf's bucket asked for first, so that the probes below find them in the
        // cache instead of waiting for memory one after another.
        self.leaf_keys.clear();
        for p in plays {
            let key = p.next().key() ^ next_salt;
            self.tt.prefetch(key);
            self.leaf_keys.push(key);
        }
        for (i, p) in plays.iter().enumerate() {
            if let Some(v) = terminal_value(&self.util, self.side, p) {
                self.vals.push(v);
                continue;
            }
            self.stats.leaves += 1;
            match self.probe_tt(self.leaf_keys[i]) {
                Some(e) if e.depth == 0 && e.bound == Bound::Exact => {
                    self.stats.tt_cutoffs += 1;
                    self.vals.push(-e.value);
                }
                _ => {
                    self.vals.push(0);
                    self.batch_pos.push(p.next());
                    self.batch_idx.push(i);
                }
            }
        }
        let n = self.batch_pos.len();
        if n == 0 {
            return;
        }
        self.batch_out.clear();
        self.batch_out.resize(n, Probabilities::default());
        self.eval
            .evaluate_batch(&self.batch_pos, &mut self.batch_out);
        self.stats.evals += n as u64;
        for k in 0..n {
            let pos = &self.batch_pos[k];
            let v = self.util.leaf(self.side ^ 1, &self.batch_out[k], pos);
            let i = self.batch_idx[k];
            self.tt.store(self.leaf_keys[i], 0, Bound::Exact, v, None);
            self.vals[i] = -v;
        }
    }

    /// The best of `plays` by its depth-1 value, and its index: of every play, or, where
    /// the node is pruned ([`Ctx::prune`]), of the few the pruner ranks first.
    fn best_static(&mut self, plays: &[P::Play]) -> (Value, usize) {
        let pruned = self.prune(plays);
        if pruned {
            let kept = std::mem::take(&mut self.kept);
            self.static_values(&kept);
            self.kept = kept;
        } else {
            self.static_values(plays);
        }
        let mut best = 0;
        for (i, &v) in self.vals.iter().enumerate() {
            if v > self.vals[best] {
                best = i;
            }
        }
        let index = if pruned {
            self.kept_idx[best] as usize
        } else {
            best
        };
        (self.vals[best], index)
    }

    /// Where this search prunes (a pruner, `cfg.prune` > 0, and more plays than it
    /// keeps): ranks `plays` by the pruner and puts the best `cfg.prune` of them (every
    /// play that ends the game among them, ahead of the rest) in `self.kept`, their
    /// indices in `self.kept_idx`, in the list's order. False, with nothing kept, where
    /// the node is not pruned.
    fn prune(&mut self, plays: &[P::Play]) -> bool {
        let keep = self.cfg.prune;
        let Some(pruner) = self.pruner else {
            return false;
        };
        if keep == 0 || plays.len() <= keep {
            return false;
        }
        self.batch_pos.clear();
        self.batch_idx.clear();
        self.prune_rank.clear();
        for (i, p) in plays.iter().enumerate() {
            match terminal_value(&self.util, self.side, p) {
                Some(v) => self
                    .prune_rank
                    .push((v.saturating_add(MAX_VALUE), i as u16)),
                None => {
                    self.prune_rank.push((0, i as u16));
                    self.batch_pos.push(p.next());
                    self.batch_idx.push(i);
                }
            }
        }
        let n = self.batch_pos.len();
        if n > 0 {
            self.batch_out.clear();
            self.batch_out.resize(n, Probabilities::default());
            pruner.evaluate_batch(&self.batch_pos, &mut self.batch_out);
            self.stats.prune_evals += n as u64;
            for k in 0..n {
                let v = self
                    .util
                    .leaf(self.side ^ 1, &self.batch_out[k], &self.batch_pos[k]);
                self.prune_rank[self.batch_idx[k]].0 = -v;
            }
        }
        self.prune_rank
            .select_nth_unstable_by_key(keep - 1, |&(v, i)| (std::cmp::Reverse(v), i));
        self.prune_rank.truncate(keep);
        self.prune_rank.sort_unstable_by_key(|&(_, i)| i);
        self.kept.clear();
        self.kept_idx.clear();
        for &(_, i) in &self.prune_rank {
            self.kept.push(plays[i as usize]);
            self.kept_idx.push(i);
        }
        true
    }

    /// A play's value at a move node of depth `depth` with window (alpha, beta).
    #[inline]
    fn play_value(&mut self, play: &P::Play, depth: u8, alpha: Value, beta: Value) -> Value {
        if let Some(v) = terminal_value(&self.util, self.side, play) {
            return v;
        }
        let next = play.next();
        self.side ^= 1;
        let v = if depth <= 1 {
            self.leaf(&next)
        } else {
            self.chance_node(&next, depth - 1, -beta, -alpha)
        };
        self.side ^= 1;
        -v
    }

    fn move_key(&self, pos: &P, roll: usize) -> u64 {
        zobrist::move_key(self.move_base(pos), roll)
    }

    /// What the move nodes of `pos` (one per roll) are keyed from.
    pub(super) fn move_base(&self, pos: &P) -> u64 {
        pos.key() ^ self.salt ^ self.util.key_salt(self.side)
    }

    /// A move node: `pos` with roll `roll` (index into `ALL_ROLLS`) to play.
    fn move_node(&mut self, pos: &P, roll: usize, depth: u8, alpha: Value, beta: Value) -> Value {
        self.stats.move_nodes += 1;
        if self.should_stop() {
            return 0;
        }
        let key = self.move_key(pos, roll);
        let mut hint = None;
        if let Some(e) = self.probe_tt(key) {
            if e.depth == depth && decides(&e, alpha, beta) {
                self.stats.tt_cutoffs += 1;
                return e.value;
            }
            hint = e.best;
        }
        let mut list = self.take_list(depth);
        pos.generate(ALL_ROLLS[roll], &mut list);
        let (value, best) = if depth <= 1 {
            self.best_static(&list)
        } else {
            self.move_search(&list, depth, alpha, beta, hint)
        };
        self.put_list(depth, list);
        if self.aborted {
            return 0;
        }
        let bound = if depth <= 1 {
            Bound::Exact
        } else {
            classify(value, alpha, beta)
        };
        self.tt.store(key, depth, bound, value, Some(best as u16));
        value
    }

    /// Alpha-beta over the plays of a move node deeper than 1 (fail-soft). Returns the
    /// value and the index of the best play.
    fn move_search(
        &mut self,
        list: &[P::Play],
        depth: u8,
        alpha: Value,
        beta: Value,
        hint: Option<u16>,
    ) -> (Value, usize) {
        let order = self.order_plays(list, depth, hint);
        let mut best = Value::MIN;
        let mut best_idx = order.first().map_or(0, |&(_, i)| i as usize);
        let mut a = alpha;
        for &(_, i) in &order {
            let v = self.play_value(&list[i as usize], depth, a, beta);
            if self.aborted {
                break;
            }
            if v > best {
                best = v;
                best_idx = i as usize;
                if v > a {
                    a = v;
                    if a >= beta {
                        break;
                    }
                }
            }
        }
        if let Some(slot) = self.orders.get_mut(depth as usize) {
            *slot = order;
        }
        (best, best_idx)
    }

    /// The plays of a move node in search order (the filter: only its kept replies).
    fn order_plays(&mut self, list: &[P::Play], depth: u8, hint: Option<u16>) -> Vec<(Value, u16)> {
        let mut order = self
            .orders
            .get_mut(depth as usize)
            .map(std::mem::take)
            .unwrap_or_default();
        order.clear();
        let how = if self.filter {
            PlayOrder::Evaluator
        } else {
            self.cfg.ordering.plays
        };
        match how {
            // The filter keeps its replies among the pruner's first where it prunes.
            PlayOrder::Evaluator if list.len() > 1 && self.filter && self.prune(list) => {
                let kept = std::mem::take(&mut self.kept);
                self.static_values(&kept);
                self.kept = kept;
                order.extend(self.vals.iter().zip(&self.kept_idx).map(|(&v, &i)| (v, i)));
            }
            PlayOrder::Evaluator if list.len() > 1 => {
                self.static_values(list);
                order.extend(self.vals.iter().enumerate().map(|(i, &v)| (v, i as u16)));
            }
            PlayOrder::Heuristic => {
                order.extend(
                    list.iter()
                        .enumerate()
                        .map(|(i, p)| (p.order_score(), i as u16)),
                );
            }
            _ => order.extend((0..list.len()).map(|i| (0, i as u16))),
        }
        order.sort_by_key(|&(v, i)| (-(v as i64), i));
        if self.filter {
            order.truncate(self.cfg.filter.reply_width.max(1));
        } else if self.cfg.ordering.tt_best {
            if let Some(h) = hint {
                if let Some(k) = order.iter().position(|&(_, i)| i == h) {
                    let e = order.remove(k);
                    order.insert(0, e);
                }
            }
        }
        order
    }

    /// A chance node: `pos` before its side rolls, searched to `depth` (even).
    fn chance_node(&mut self, pos: &P, depth: u8, alpha: Value, beta: Value) -> Value {
        if depth == 0 {
            return self.leaf(pos);
        }
        self.stats.chance_nodes += 1;
        if self.should_stop() {
            return 0;
        }
        let key = pos.key() ^ self.salt ^ self.util.key_salt(self.side);
        if let Some(e) = self.probe_tt(key) {
            if e.depth == depth && decides(&e, alpha, beta) {
                self.stats.tt_cutoffs += 1;
                return e.value;
            }
        }
        let (l, u) = self.util.bounds(self.side, pos);
        let (v, bound) = match self.cfg.algorithm {
            // MCTS never reaches the tree search (choose and evaluate_position hand it
            // over first); should it, full averaging is the exact answer.
            Algorithm::Expectimax | Algorithm::Mcts => self.chance_full(pos, depth, l, u),
            Algorithm::Star1 => self.chance_star(pos, depth, alpha, beta, l, u, false),
            // The filter's tree is smaller, not different in kind: Star2 values it exactly.
            Algorithm::Star2 | Algorithm::Filter => {
                self.chance_star(pos, depth, alpha, beta, l, u, true)
            }
        };
        if self.aborted {
            return 0;
        }
        self.tt.store(key, depth, bound, v, None);
        v
    }

    /// Full averaging over the 21 rolls.
    fn chance_full(&mut self, pos: &P, depth: u8, l: Value, u: Value) -> (Value, Bound) {
        let mut s = 0i64;
        for k in 0..21 {
            let r = self.roll_order[k];
            let v = self.move_node(pos, r, depth - 1, l - 1, u + 1);
            if self.aborted {
                return (0, Bound::Exact);
            }
            s += weight(r) * v as i64;
        }
        (floor_div(s, 36) as Value, Bound::Exact)
    }

    /// One root iteration at `depth` >= 3 on this thread: alpha-beta over the root plays
    /// with ties broken towards the lower play index, then exact values for the plays
    /// `settings.rank` asks for.
    /// `margin` widens every play's window below the best so far, so that the plays
    /// within it of the best get exact values (0: plain alpha-beta).
    fn search_root(
        &mut self,
        plays: &[P::Play],
        candidates: &[usize],
        margin: Value,
        depth: u8,
    ) -> Option<RootResult> {
        let mut r = RootResult {
            values: vec![None; plays.len()],
        };
        let mut best: Option<(Value, usize)> = None;
        for &i in candidates {
            let alpha = match best {
                None => NEG_INF,
                Some((bv, bi)) if i < bi => bv - 1 - margin,
                Some((bv, _)) => bv - margin,
            };
            let v = self.play_value(&plays[i], depth, alpha, POS_INF);
            if self.aborted {
                return None;
            }
            if v > alpha {
                r.values[i] = Some(v);
                let better = match best {
                    None => true,
                    Some((bv, bi)) => v > bv || (v == bv && i < bi),
                };
                if better {
                    best = Some((v, i));
                }
            }
        }
        self.rank_extra(plays, candidates, depth, &mut r);
        if self.aborted {
            return None;
        }
        Some(r)
    }

    /// Exact values for the first `rank` candidates that only have bounds.
    fn rank_extra(
        &mut self,
        plays: &[P::Play],
        candidates: &[usize],
        depth: u8,
        r: &mut RootResult,
    ) {
        for &i in candidates.iter().take(self.cfg.rank.max(1)) {
            if r.values[i].is_none() {
                let v = self.play_value(&plays[i], depth, NEG_INF, POS_INF);
                if self.aborted {
                    return;
                }
                r.values[i] = Some(v);
            }
        }
    }

    /// The best reply at move node (`pos`, `roll`, `depth`) by a full-window search
    /// (usually answered by the table).
    fn best_reply(&mut self, pos: &P, roll: usize, depth: u8) -> P::Play {
        let key = self.move_key(pos, roll);
        let mut best = match self.tt.probe(key) {
            Some(e) if e.depth == depth && e.bound == Bound::Exact => e.best,
            _ => None,
        };
        if best.is_none() {
            self.move_node(pos, roll, depth, NEG_INF, POS_INF);
            best = self.tt.probe(key).and_then(|e| e.best);
        }
        let mut list = self.take_list(depth);
        pos.generate(ALL_ROLLS[roll], &mut list);
        let i = best.map_or(0, |b| b as usize);
        let play = list.get(i).copied().unwrap_or(list[0]);
        self.put_list(depth, list);
        play
    }

    /// Probabilities of `pos` (before its side rolls) at chance depth `depth`, averaged
    /// over the rolls along the best replies the search finds.
    fn pv_probs(&mut self, pos: &P, depth: u8) -> Probabilities {
        if depth == 0 {
            self.stats.evals += 1;
            return self.eval.evaluate(pos);
        }
        let mut acc = [0f64; 5];
        for r in 0..21 {
            let (_, theirs, _) = self.pv_roll(pos, r, depth, 0);
            add_roll(&mut acc, r, &theirs.invert());
        }
        Probabilities(acc.map(|a| (a / 36.0) as f32))
    }

    /// [`Ctx::pv_probs`] (`depth` at least 1) with each roll's best play and the
    /// probabilities after it, the opponent's, kept; `levels` levels of rolls down (at
    /// least one), as far as the depth reaches. The probabilities are the same as
    /// [`Ctx::pv_probs`]'s: the same sums in the same order.
    fn pv_rolls(&mut self, pos: &P, depth: u8, levels: u8) -> (Probabilities, Vec<RollChild<P>>) {
        let mut acc = [0f64; 5];
        let mut rolls = Vec::with_capacity(21);
        for r in 0..21 {
            let (after, theirs, below) = self.pv_roll(pos, r, depth, levels - 1);
            add_roll(&mut acc, r, &theirs.invert());
            rolls.push(RollChild {
                weight: weight(r) as u8,
                after,
                probs: theirs,
                rolls: below,
            });
        }
        (Probabilities(acc.map(|a| (a / 36.0) as f32)), rolls)
    }

    /// The best play for roll `r` in `pos`, the position after it, and the opponent's
    /// probabilities there, searched `depth - 2` deep; with `below` levels (and the depth
    /// for them) the opponent's rolls there too ([`Ctx::pv_rolls`]).
    fn pv_roll(
        &mut self,
        pos: &P,
        r: usize,
        depth: u8,
        below: u8,
    ) -> (P, Probabilities, Vec<RollChild<P>>) {
        let play = self.best_reply(pos, r, depth - 1);
        let after = play.next();
        if let Some(e) = play.ending() {
            return (
                after,
                Probabilities::from_ending(e, true).invert(),
                Vec::new(),
            );
        }
        let d = depth.saturating_sub(2);
        self.side ^= 1;
        let (theirs, rolls) = if below > 0 && d >= 1 {
            self.pv_rolls(&after, d, below)
        } else {
            (self.pv_probs(&after, d), Vec::new())
        };
        self.side ^= 1;
        (after, theirs, rolls)
    }
}

/// Adds roll `r`'s probabilities `p`, weighted by the roll's dice outcomes, to `acc`.
fn add_roll(acc: &mut [f64; 5], r: usize, p: &Probabilities) {
    let w = weight(r) as f64;
    for (a, x) in acc.iter_mut().zip(p.0) {
        *a += w * x as f64;
    }
}
