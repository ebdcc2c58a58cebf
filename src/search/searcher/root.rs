//! The root iterations of a search: the candidates each one searches, the filter's narrowing
//! after it, and the split of one iteration over several threads.

use super::*;

impl<P: GamePosition> Searcher<P> {
    /// One root iteration with `settings.threads` threads. The first play (the best so
    /// far) is searched with the full window, which makes its 21 rolls independent: the
    /// threads share them out. The remaining plays are then shared out, each searched
    /// against the best value found so far by any thread.
    #[allow(clippy::type_complexity)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn root_parallel(
        &self,
        plays: &[P::Play],
        candidates: &[usize],
        margin: Value,
        depth: u8,
        settings: &SearchSettings,
        cancel: &Cancel,
        deadline: Option<Instant>,
    ) -> (Option<RootResult>, SearchStats) {
        let threads = settings.threads.max(1);
        let n = plays.len();
        let first = candidates[0];
        let first_next = plays[first].next();
        let first_terminal = terminal_value(&settings.utility, 0, &plays[first]);
        // The opponent acts after the first play.
        let (fl, fu) = settings.utility.bounds(1, &first_next);
        // Phase 1: the rolls under the first play.
        let next_roll = AtomicUsize::new(0);
        let sum = AtomicI64::new(0);
        // Phase 2: the other candidates; best packs (value, 0xFFFF - index).
        let next_play = AtomicUsize::new(1);
        let best = AtomicI64::new(i64::MIN);
        let results: Mutex<Vec<Option<Value>>> = Mutex::new(vec![None; n]);
        let aborted = std::sync::atomic::AtomicBool::new(false);
        let total = Mutex::new(SearchStats::default());
        let phase1_done = std::sync::Barrier::new(threads);
        let pack = |v: Value, i: usize| ((v as i64) << 16) | (0xFFFF - (i as i64 & 0xFFFF));
        let unpack = |p: i64| ((p >> 16) as Value, (0xFFFF - (p & 0xFFFF)) as usize);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut ctx = self.ctx(settings, cancel, deadline);
                    ctx.stop_enabled = true;
                    if first_terminal.is_none() {
                        ctx.side = 1;
                        loop {
                            let k = next_roll.fetch_add(1, Ordering::Relaxed);
                            if k >= 21 {
                                break;
                            }
                            let r = ctx.roll_order[k];
                            let v = ctx.move_node(&first_next, r, depth - 2, fl - 1, fu + 1);
                            if ctx.aborted {
                                break;
                            }
                            sum.fetch_add(weight(r) * v as i64, Ordering::Relaxed);
                        }
                    }
                    if ctx.aborted {
                        aborted.store(true, Ordering::Relaxed);
                    }
                    phase1_done.wait();
                    ctx.side = 0;
                    if !aborted.load(Ordering::Relaxed) {
                        let v0 = match first_terminal {
                            Some(v) => v,
                            None => -(floor_div(sum.load(Ordering::Relaxed), 36) as Value),
                        };
                        best.fetch_max(pack(v0, first), Ordering::Relaxed);
                        loop {
                            let k = next_play.fetch_add(1, Ordering::Relaxed);
                            if k >= candidates.len() {
                                break;
                            }
                            let i = candidates[k];
                            let (bv, bi) = unpack(best.load(Ordering::Relaxed));
                            let alpha = if i < bi { bv - 1 } else { bv } - margin;
                            let v = ctx.play_value(&plays[i], depth, alpha, POS_INF);
                            if ctx.aborted {
                                aborted.store(true, Ordering::Relaxed);
                                break;
                            }
                            if v > alpha {
                                if let Ok(mut r) = results.lock() {
                                    r[i] = Some(v);
                                }
                                best.fetch_max(pack(v, i), Ordering::Relaxed);
                            }
                        }
                        if let Ok(mut r) = results.lock() {
                            if r[first].is_none() {
                                r[first] = Some(v0);
                            }
                        }
                    }
                    if let Ok(mut t) = total.lock() {
                        t.add(&ctx.stats);
                    }
                });
            }
        });
        let stats = total.into_inner().unwrap_or_default();
        if aborted.load(Ordering::Relaxed) {
            return (None, stats);
        }
        let mut values_out = results.into_inner().unwrap_or_default();
        // A play searched against a stale bound may hold a value below the final best
        // that another thread's play beat: it is still exact (it was inside its
        // window), so keep it. Plays never searched or failing low stay None.
        values_out.resize(n, None);
        // Extra ranked plays get exact values on this thread.
        let mut ctx = self.ctx(settings, cancel, deadline);
        ctx.stop_enabled = true;
        let mut r = RootResult { values: values_out };
        ctx.rank_extra(plays, candidates, depth, &mut r);
        let mut stats = stats;
        stats.add(&ctx.stats);
        if ctx.aborted {
            return (None, stats);
        }
        (Some(r), stats)
    }
}

/// The root plays searched at depth >= 3, in search order: every play for the exact
/// algorithms, the filter's candidates for [`Algorithm::Filter`].
pub(super) fn root_candidates(
    order: &[usize],
    statics: &[Value],
    settings: &SearchSettings,
) -> Vec<usize> {
    if settings.algorithm != Algorithm::Filter {
        return order.to_vec();
    }
    // The filter keeps plays by their depth-1 values.
    let mut by_static: Vec<usize> = order.to_vec();
    by_static.sort_by_key(|&i| (-statics[i], i));
    let best = statics[by_static[0]];
    let margin = to_value(settings.filter.threshold);
    let f = &settings.filter;
    let mut keep: Vec<usize> = Vec::new();
    for (k, &i) in by_static.iter().enumerate() {
        if k < f.accept.max(1) || (k < f.accept.max(1) + f.extra && best - statics[i] <= margin) {
            keep.push(i);
        }
    }
    // Search the kept plays in the current order (best of the previous iteration first).
    order.iter().copied().filter(|i| keep.contains(i)).collect()
}

/// Keeps live (in `order`, best first) at most `keep` plays valued exactly at `depth` and
/// within `margin` of the best of them; every other play leaves the search.
pub(super) fn narrow(
    live: &mut [bool],
    order: &[usize],
    values: &[(Value, u8)],
    depth: u8,
    keep: usize,
    margin: Value,
) {
    let best = order
        .iter()
        .filter(|&&i| live[i] && values[i].1 == depth)
        .map(|&i| values[i].0)
        .max();
    let mut kept = 0;
    for &i in order {
        let stays = live[i]
            && values[i].1 == depth
            && best.is_some_and(|b| b - values[i].0 <= margin)
            && kept < keep.max(1);
        if stays {
            kept += 1;
        }
        live[i] = stays;
    }
}
