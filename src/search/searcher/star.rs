//! Star1 and Star2 at a chance node (Ballard's *-minimax) and Star2's probes.

use super::*;

impl<P: GamePosition> Ctx<'_, P> {
    /// Star1 (and Star2 when `probing`) at a chance node. Works on S = 36 x the value:
    /// the node's value is floor(S / 36), so value <= alpha iff S <= 36 alpha + 35 and
    /// value >= beta iff S >= 36 beta; every window below is derived from these two
    /// integer thresholds, which keeps the pruning exact on the grid.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn chance_star(
        &mut self,
        pos: &P,
        depth: u8,
        alpha: Value,
        beta: Value,
        l: Value,
        u: Value,
        probing: bool,
    ) -> (Value, Bound) {
        let s_low = 36 * alpha as i64 + 35;
        let s_high = 36 * beta as i64;
        let (l64, u64_) = (l as i64, u as i64);
        let mut lb = [l64; 21];
        // The 21 move nodes' table buckets asked for at once, ahead of their probes.
        let base = self.move_base(pos);
        for r in 0..21 {
            self.tt.prefetch(zobrist::move_key(base, r));
        }
        if probing {
            self.stats.probe_phases += 1;
            let mut sum_lb = 0i64;
            let mut rest = 36i64;
            for k in 0..21 {
                let r = self.roll_order[k];
                let w = weight(r);
                rest -= w;
                let b = ceil_div(s_high - sum_lb - l64 * rest, w);
                if b <= l64 {
                    self.stats.probe_cutoffs += 1;
                    let s = sum_lb + w * l64 + l64 * rest;
                    return (floor_div(s, 36) as Value, Bound::Lower);
                }
                let a = floor_div(s_low - sum_lb - u64_ * rest, w)
                    .max(l64 - 1)
                    .min(b - 1);
                if a < u64_ {
                    let got = self.probe(pos, r, depth - 1, a as Value, b.min(u64_ + 1) as Value);
                    if self.aborted {
                        return (0, Bound::Exact);
                    }
                    if let Some(v) = got {
                        let v = v as i64;
                        if v >= b {
                            self.stats.probe_cutoffs += 1;
                            let s = sum_lb + w * v + l64 * rest;
                            return (floor_div(s, 36) as Value, Bound::Lower);
                        }
                        lb[k] = v.max(l64);
                    }
                }
                sum_lb += w * lb[k];
            }
        }
        let mut sp = 0i64;
        let mut lower_rest: i64 = (0..21).map(|k| weight(self.roll_order[k]) * lb[k]).sum();
        let mut rest = 36i64;
        for k in 0..21 {
            let r = self.roll_order[k];
            let w = weight(r);
            rest -= w;
            lower_rest -= w * lb[k];
            let a = floor_div(s_low - sp - u64_ * rest, w);
            let b = ceil_div(s_high - sp - lower_rest, w);
            if a >= u64_ {
                let s = sp + u64_ * (w + rest);
                return (floor_div(s, 36) as Value, Bound::Upper);
            }
            if b <= lb[k] {
                let s = sp + w * lb[k] + lower_rest;
                return (floor_div(s, 36) as Value, Bound::Lower);
            }
            let wa = a.max(l64 - 1) as Value;
            let wb = b.min(u64_ + 1) as Value;
            let v = self.move_node(pos, r, depth - 1, wa, wb) as i64;
            if self.aborted {
                return (0, Bound::Exact);
            }
            if v <= a {
                let s = sp + w * v + u64_ * rest;
                return (floor_div(s, 36) as Value, Bound::Upper);
            }
            if v >= b {
                let s = sp + w * v + lower_rest;
                return (floor_div(s, 36) as Value, Bound::Lower);
            }
            sp += w * v;
        }
        (floor_div(sp, 36) as Value, Bound::Exact)
    }

    /// Star2's probe of the move node (`pos`, `roll`) at `depth`: one play searched with
    /// window (alpha, beta). Returns a lower bound on the node's value, or None when the
    /// probe failed low (it then bounds nothing).
    pub(super) fn probe(
        &mut self,
        pos: &P,
        roll: usize,
        depth: u8,
        alpha: Value,
        beta: Value,
    ) -> Option<Value> {
        let key = self.move_key(pos, roll);
        let mut hint = None;
        if let Some(e) = self.probe_tt(key) {
            if e.depth == depth {
                match e.bound {
                    Bound::Exact => {
                        self.stats.tt_cutoffs += 1;
                        return Some(e.value);
                    }
                    Bound::Lower if e.value >= beta => {
                        self.stats.tt_cutoffs += 1;
                        return Some(e.value);
                    }
                    _ => {}
                }
            }
            hint = e.best;
        }
        let mut list = self.take_list(depth);
        pos.generate(ALL_ROLLS[roll], &mut list);
        let n = list.len();
        let idx = match hint {
            Some(h) if self.cfg.ordering.tt_best && (h as usize) < n => h as usize,
            _ => self.choose_probe(&list, depth),
        };
        let play = list[idx];
        self.put_list(depth, list);
        self.stats.move_nodes += 1;
        let v = self.play_value(&play, depth, alpha, beta);
        if self.aborted || v <= alpha {
            return None;
        }
        if n == 1 && v < beta {
            self.tt.store(key, depth, Bound::Exact, v, Some(idx as u16));
        } else {
            self.tt.store(key, depth, Bound::Lower, v, Some(idx as u16));
        }
        Some(v)
    }

    pub(super) fn choose_probe(&mut self, list: &[P::Play], depth: u8) -> usize {
        let by_heuristic = |list: &[P::Play]| {
            let mut best = 0;
            let mut best_score = i32::MIN;
            for (i, p) in list.iter().enumerate() {
                let s = p.order_score();
                if s > best_score {
                    best_score = s;
                    best = i;
                }
            }
            best
        };
        // The filter's tree keeps only the best replies by static value at depth >= 3: a
        // probe of another play would bound a node of a different tree.
        let how = if self.filter {
            ProbeChoice::Evaluator
        } else {
            self.cfg.ordering.probe
        };
        match how {
            ProbeChoice::First => 0,
            ProbeChoice::Heuristic => by_heuristic(list),
            ProbeChoice::Evaluator if depth >= 3 && list.len() > 1 => {
                self.static_values(list);
                let mut best = 0;
                for (i, &v) in self.vals.iter().enumerate() {
                    if v > self.vals[best] {
                        best = i;
                    }
                }
                best
            }
            ProbeChoice::Evaluator => by_heuristic(list),
        }
    }
}
