//! Monte-Carlo tree search with chance nodes (after van Lishout, Chaslot and Uiterwijk,
//! "Monte-Carlo Tree Search in Backgammon", 2007, the McGammon paper).
//!
//! The tree alternates two kinds of node, as the game does:
//! - a **decision node**: a position whose dice are known; its children are the legal plays.
//!   Selection there is UCT: an unvisited play first (in generation order), otherwise the
//!   play with the largest `mean + c * sqrt(ln N / n)`, where `mean` is the play's average
//!   result for the side that plays it, `N` the node's visits and `n` the play's;
//! - a **chance node**: the position after a play, the opponent to roll. Its children are the
//!   21 rolls, reached by sampling the dice (chance nodes are never chosen by UCT: the dice
//!   are not ours to choose), and created when first reached.
//!
//! Each iteration walks down from the root, adds one node, and scores it with a playout:
//! - `random` (as in the paper): both sides pick uniformly among the legal plays until the
//!   game ends; the paper's fast generator of doubles is not needed here, as the rules
//!   module generates every play of a double directly (the figures are for full rules);
//! - `net` (the paper's future work): both sides play the evaluator's best play (one
//!   evaluation per play), much slower per playout and much better informed;
//! - either, optionally truncated after `truncate` plies and finished by the evaluator's
//!   equity (`truncate = 0`: the new node is scored by the evaluator alone).
//!
//! Results are cubeless money points (1, 2 or 3 for a finished game) and are backed up with
//! the sign of each node's player; the five probabilities are averaged beside them. The
//! answer ranks the root plays by visits (the most-visited play is the choice, as in the
//! paper), then by mean. The generator is seeded from the position, the roll and the
//! configured seed, so a playout budget gives the same answer on every run; a time budget
//! stops after whole iterations.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use crate::eval::{Evaluator, Probabilities};
use crate::game::{splitmix, Dice, Ending, GamePlay, GamePosition, Position, Rng, ALL_ROLLS};

use super::value::{to_equity, to_value};
use super::{Cancel, MoveDecision, PositionEvaluation, RankedPlay, SearchSettings, SearchStats};

/// How playouts choose plays.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Playout {
    /// Uniformly random legal plays.
    #[default]
    Random,
    /// The evaluator's best play at each ply.
    Net,
}

impl Playout {
    pub fn name(self) -> &'static str {
        match self {
            Playout::Random => "random",
            Playout::Net => "net",
        }
    }
}

impl fmt::Display for Playout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Playout {
    type Err = String;
    fn from_str(s: &str) -> Result<Playout, String> {
        match s.to_ascii_lowercase().as_str() {
            "random" => Ok(Playout::Random),
            "net" => Ok(Playout::Net),
            _ => Err(format!(
                "unknown playout policy {s:?} (expected random or net)"
            )),
        }
    }
}

/// Playouts per decision when neither a playout count nor a time budget is given.
pub const DEFAULT_PLAYOUTS: u64 = 2_000;

/// The exploration constant `c` of UCT on the scale of cubeless points.
pub const DEFAULT_EXPLORATION: f64 = 1.0;

/// The settings of an MCTS search (used when the algorithm is `mcts`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MctsConfig {
    /// Iterations (one playout each); `None`: [`DEFAULT_PLAYOUTS`], or as many as the time
    /// budget allows when there is one.
    pub playouts: Option<u64>,
    pub playout: Playout,
    /// End playouts after this many plies with the evaluator's equity; `None`: play to the
    /// end.
    pub truncate: Option<u32>,
    pub exploration: f64,
    /// Mixed into every search's generator seed.
    pub seed: u64,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            playouts: None,
            playout: Playout::Random,
            truncate: None,
            exploration: DEFAULT_EXPLORATION,
            seed: 0,
        }
    }
}

/// A position whose dice are known.
struct DecisionNode<P> {
    position: P,
    dice: Dice,
    /// Indices of the chance nodes of its plays (empty until expanded).
    children: Vec<u32>,
    visits: u64,
}

/// The position after a play, the opponent to roll; values are for the side that played.
struct ChanceNode<M> {
    play: M,
    /// Points of a finished game (the play bore off the last checker).
    terminal: Option<f64>,
    visits: u64,
    sum: f64,
    probs: [f64; 5],
    /// Decision nodes of the opponent by roll index in [`ALL_ROLLS`].
    children: HashMap<u8, u32>,
}

impl<M> ChanceNode<M> {
    fn new<P>(play: M) -> ChanceNode<M>
    where
        M: GamePlay<P>,
    {
        ChanceNode {
            terminal: play.ending().map(Ending::points),
            play,
            visits: 0,
            sum: 0.0,
            probs: [0.0; 5],
            children: HashMap::new(),
        }
    }

    fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.sum / self.visits as f64
        }
    }

    fn mean_probs(&self) -> Probabilities {
        let n = self.visits.max(1) as f64;
        Probabilities(std::array::from_fn(|k| (self.probs[k] / n) as f32))
    }
}

/// One search's tree and tools.
struct Tree<'a, P: GamePosition> {
    evaluator: &'a dyn Evaluator<P>,
    config: MctsConfig,
    decisions: Vec<DecisionNode<P>>,
    chances: Vec<ChanceNode<P::Play>>,
    rng: Rng,
    list: P::List,
    stats: SearchStats,
    /// Plies played in playouts.
    plies: u64,
}

/// One step of a path: a chance node entered.
type Path = Vec<u32>;

impl<'a, P: GamePosition> Tree<'a, P> {
    fn new(evaluator: &'a dyn Evaluator<P>, config: MctsConfig, seed: u64) -> Tree<'a, P> {
        Tree {
            evaluator,
            config,
            decisions: Vec::new(),
            chances: Vec::new(),
            rng: Rng::seeded(seed),
            list: P::List::default(),
            stats: SearchStats::default(),
            plies: 0,
        }
    }

    fn add_decision(&mut self, position: P, dice: Dice) -> u32 {
        self.decisions.push(DecisionNode {
            position,
            dice,
            children: Vec::new(),
            visits: 0,
        });
        self.stats.move_nodes += 1;
        (self.decisions.len() - 1) as u32
    }

    /// Adds the plays of decision node `d` as chance nodes. With net playouts each play is
    /// also valued once by the evaluator (a prior visit, as a depth-1 search would value it),
    /// and the node's own value (for its side to act) is returned as this iteration's
    /// result: the best play's value, or a net playout from it when playouts are longer than
    /// zero plies.
    fn expand(&mut self, d: u32) -> Option<(f64, Probabilities)> {
        let (position, dice) = {
            let n = &self.decisions[d as usize];
            (n.position, n.dice)
        };
        position.generate(dice, &mut self.list);
        let priors = self.config.playout == Playout::Net;
        let mut children = Vec::with_capacity(self.list.len());
        let mut best: Option<(f64, u32)> = None;
        for k in 0..self.list.len() {
            let play = self.list[k];
            let mut node = ChanceNode::new(play);
            if priors {
                let (value, probs) = match play.ending() {
                    Some(e) => (e.points(), Probabilities::from_ending(e, true)),
                    None => {
                        self.stats.evals += 1;
                        let p = self.evaluator.evaluate(&play.next()).invert();
                        (p.equity() as f64, p)
                    }
                };
                node.visits = 1;
                node.sum = value;
                for (acc, x) in node.probs.iter_mut().zip(probs.0) {
                    *acc = x as f64;
                }
                if best.is_none_or(|(v, _)| value > v) {
                    best = Some((value, self.chances.len() as u32));
                }
            }
            self.chances.push(node);
            self.stats.chance_nodes += 1;
            children.push((self.chances.len() - 1) as u32);
        }
        let n = children.len() as u64;
        let node = &mut self.decisions[d as usize];
        node.children = children;
        let (value, c) = best?;
        node.visits = n;
        let ch = &self.chances[c as usize];
        if ch.terminal.is_some() || self.config.truncate == Some(0) {
            return Some((value, ch.mean_probs()));
        }
        let start = ch.play.next();
        let probs = self.playout(start).invert();
        Some((probs.equity() as f64, probs))
    }

    /// UCT at a decision node: an unvisited play first, else the best bound.
    fn select(&self, d: u32) -> u32 {
        let node = &self.decisions[d as usize];
        let ln_n = (node.visits.max(1) as f64).ln();
        let mut best = node.children[0];
        let mut best_score = f64::NEG_INFINITY;
        for &c in &node.children {
            let ch = &self.chances[c as usize];
            if ch.visits == 0 {
                return c;
            }
            let score = ch.mean() + self.config.exploration * (ln_n / ch.visits as f64).sqrt();
            if score > best_score {
                best_score = score;
                best = c;
            }
        }
        best
    }

    /// The opponent's decision node below chance node `c` for a sampled roll.
    fn sample_child(&mut self, c: u32) -> u32 {
        let dice = self.rng.dice();
        let k = dice.index() as u8;
        if let Some(&d) = self.chances[c as usize].children.get(&k) {
            return d;
        }
        let position = self.chances[c as usize].play.next();
        let d = self.add_decision(position, ALL_ROLLS[k as usize]);
        self.chances[c as usize].children.insert(k, d);
        d
    }

    /// One iteration below decision node `d` (already on the path's end); returns the
    /// result for the side to act at `d` is not needed: values are backed up along `path`.
    fn iterate_from_decision(&mut self, mut d: u32, path: &mut Path) {
        loop {
            if self.decisions[d as usize].children.is_empty() {
                if let Some((value, probs)) = self.expand(d) {
                    // The value is for `d`'s side, the opponent of the path's last player.
                    if !path.is_empty() {
                        self.backup(path, -value, probs.invert());
                    }
                    return;
                }
            }
            self.decisions[d as usize].visits += 1;
            let c = self.select(d);
            path.push(c);
            let ch = &self.chances[c as usize];
            if let Some(points) = ch.terminal {
                let probs = ch
                    .play
                    .ending()
                    .map(|e| Probabilities::from_ending(e, true))
                    .unwrap_or(Probabilities([1.0, 0.0, 0.0, 0.0, 0.0]));
                self.backup(path, points, probs);
                return;
            }
            if ch.visits == 0 {
                let start = ch.play.next();
                // The playout is from the opponent's view: turn it to the player's.
                let probs = self.playout(start).invert();
                self.backup(path, probs.equity() as f64, probs);
                return;
            }
            d = self.sample_child(c);
        }
    }

    /// Adds a result (for the side that played the last chance node of `path`) to every
    /// chance node of the path, each from its own player's view.
    fn backup(&mut self, path: &Path, value: f64, probs: Probabilities) {
        let mut v = value;
        let mut p = probs;
        for &c in path.iter().rev() {
            let ch = &mut self.chances[c as usize];
            ch.visits += 1;
            ch.sum += v;
            for k in 0..5 {
                ch.probs[k] += p.0[k] as f64;
            }
            v = -v;
            p = p.invert();
        }
    }

    /// Plays `start` (side to act about to roll) out; the five probabilities for that side.
    fn playout(&mut self, start: P) -> Probabilities {
        self.stats.leaves += 1;
        let mut pos = start;
        let mut mine = true;
        let mut ply = 0u32;
        loop {
            if self.config.truncate == Some(ply) {
                self.stats.evals += 1;
                let p = self.evaluator.evaluate(&pos);
                return if mine { p } else { p.invert() };
            }
            let dice = self.rng.dice();
            pos.generate(dice, &mut self.list);
            let i = match self.config.playout {
                Playout::Random => self.rng.index(self.list.len()),
                Playout::Net => self.greedy(),
            };
            let play = self.list[i];
            if let Some(e) = play.ending() {
                return Probabilities::from_ending(e, mine);
            }
            pos = play.next();
            mine = !mine;
            ply += 1;
            self.plies += 1;
        }
    }

    /// The index of the evaluator's best play in `self.list`.
    fn greedy(&mut self) -> usize {
        if self.list.len() == 1 {
            return 0;
        }
        let mut best = 0;
        let mut best_eq = f32::NEG_INFINITY;
        for (i, p) in self.list.iter().enumerate() {
            let eq = match p.ending() {
                Some(e) => e.points() as f32 + 10.0,
                None => {
                    self.stats.evals += 1;
                    -self.evaluator.evaluate(&p.next()).equity()
                }
            };
            if eq > best_eq {
                best_eq = eq;
                best = i;
            }
        }
        best
    }
}

/// Iterations to run and when to stop.
struct Budget {
    playouts: u64,
    deadline: Option<Instant>,
}

impl Budget {
    fn of(settings: &SearchSettings, start: Instant) -> Budget {
        let deadline = settings.time_budget.map(|b| start + b);
        let playouts = match (settings.mcts.playouts, deadline) {
            (Some(n), _) => n.max(1),
            (None, Some(_)) => u64::MAX,
            (None, None) => DEFAULT_PLAYOUTS,
        };
        Budget { playouts, deadline }
    }

    /// Whether iteration `i` (0-based) may run; the clock is read every 16 iterations.
    fn allows(&self, i: u64, cancel: &Cancel) -> bool {
        if i >= self.playouts {
            return false;
        }
        if i > 0 && i.is_multiple_of(16) {
            if cancel.is_cancelled() {
                return false;
            }
            if let Some(d) = self.deadline {
                return Instant::now() < d;
            }
        }
        true
    }
}

/// The generator seed of one search: the position, the roll and the configured seed.
fn search_seed<P: GamePosition>(pos: &P, dice: Option<Dice>, config: &MctsConfig) -> u64 {
    let h = pos.seed_hash(splitmix(config.seed ^ 0x6D63_7473));
    let d = dice.map_or(0, |d| (d.high() as u64) << 8 | d.low() as u64);
    splitmix(h ^ d)
}

/// Ranks the plays of `dice` in `pos` by MCTS (see the module docs).
pub fn choose<P: GamePosition>(
    evaluator: &dyn Evaluator<P>,
    pos: &P,
    dice: Dice,
    settings: &SearchSettings,
    cancel: &Cancel,
) -> MoveDecision<P::Play> {
    let start = Instant::now();
    let budget = Budget::of(settings, start);
    let mut tree = Tree::new(
        evaluator,
        settings.mcts,
        search_seed(pos, Some(dice), &settings.mcts),
    );
    let root = tree.add_decision(*pos, dice);
    // The root's own value is not needed: only its plays are ranked.
    let _ = tree.expand(root);
    let n = tree.decisions[root as usize].children.len();
    let mut path = Path::new();
    let mut i = 0;
    // One legal play: nothing to search.
    while n > 1 && budget.allows(i, cancel) {
        path.clear();
        tree.iterate_from_decision(root, &mut path);
        i += 1;
    }
    let stopped = n > 1 && i < budget.playouts && budget.playouts != u64::MAX;
    let children = tree.decisions[root as usize].children.clone();
    // A play no iteration reached (the one legal play, or too few iterations for all)
    // is reported with the evaluator's value of it, as a depth-1 search gives it.
    let unvisited: Vec<Option<Probabilities>> = children
        .iter()
        .map(|&c| {
            let ch = &tree.chances[c as usize];
            (ch.terminal.is_none() && ch.visits == 0)
                .then(|| evaluator.evaluate(&ch.play.next()).invert())
        })
        .collect();
    tree.stats.evals += unvisited.iter().flatten().count() as u64;
    let mut ranked: Vec<(u64, f64, usize, RankedPlay<P::Play>)> = children
        .iter()
        .enumerate()
        .map(|(index, &c)| {
            let ch = &tree.chances[c as usize];
            let (equity, probs) = match (ch.terminal, unvisited[index]) {
                (Some(points), _) => (
                    points,
                    ch.play
                        .ending()
                        .map(|e| Probabilities::from_ending(e, true))
                        .unwrap_or(Probabilities([1.0, 0.0, 0.0, 0.0, 0.0])),
                ),
                (None, Some(p)) => (p.equity() as f64, p),
                (None, None) => (ch.mean(), ch.mean_probs()),
            };
            let value = to_value(equity);
            let play = RankedPlay {
                play: ch.play,
                index,
                value,
                equity: to_equity(value),
                probs,
                depth: 1,
            };
            (ch.visits, equity, index, play)
        })
        .collect();
    // Most visits first (a finished game first of all), then the larger mean.
    ranked.sort_by(|a, b| {
        let ta = tree.chances[children[a.2] as usize].terminal.is_some();
        let tb = tree.chances[children[b.2] as usize].terminal.is_some();
        tb.cmp(&ta)
            .then(b.0.cmp(&a.0))
            .then(b.1.total_cmp(&a.1))
            .then(a.2.cmp(&b.2))
    });
    MoveDecision {
        plays: ranked.into_iter().map(|r| r.3).collect(),
        depth: 1,
        stats: tree.stats,
        elapsed: start.elapsed(),
        stopped,
        threads: 1,
    }
}

/// Values `pos` before its side rolls by MCTS from a chance node: the mean result of the
/// iterations, for the side to act.
pub fn evaluate_position<P: GamePosition>(
    evaluator: &dyn Evaluator<P>,
    pos: &P,
    settings: &SearchSettings,
    cancel: &Cancel,
) -> PositionEvaluation<P> {
    let start = Instant::now();
    if pos.is_over() {
        let p = evaluator.evaluate(pos);
        return PositionEvaluation {
            probs: p,
            value: to_value(p.equity() as f64),
            equity: p.equity() as f64,
            depth: 1,
            stats: SearchStats::default(),
            elapsed: start.elapsed(),
            stopped: false,
            rolls: Vec::new(),
        };
    }
    let budget = Budget::of(settings, start);
    let mut tree = Tree::new(
        evaluator,
        settings.mcts,
        search_seed(pos, None, &settings.mcts),
    );
    // The root is the chance node "after the opponent's play": its values are the
    // opponent's, inverted at the end.
    tree.chances.push(ChanceNode::new(pos.swap().pass()));
    let root = 0u32;
    let mut path = Path::new();
    let mut i = 0;
    while budget.allows(i, cancel) {
        path.clear();
        path.push(root);
        let d = tree.sample_child(root);
        tree.iterate_from_decision(d, &mut path);
        i += 1;
    }
    let stopped = i < budget.playouts && budget.playouts != u64::MAX;
    let ch = &tree.chances[root as usize];
    let probs = ch.mean_probs().invert();
    let equity = -ch.mean();
    PositionEvaluation {
        probs,
        value: to_value(equity),
        equity,
        depth: 1,
        stats: tree.stats,
        elapsed: start.elapsed(),
        stopped,
        rolls: Vec::new(),
    }
}

/// What [`random_playouts`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayoutRate {
    pub games: u64,
    pub seconds: f64,
    pub games_per_sec: f64,
    /// Plies per game, the last (winning) play not counted.
    pub mean_plies: f64,
    /// Cubeless points per game for the side to act at `pos`.
    pub mean_points: f64,
}

/// `n` random playouts (full games, full rules) from `pos` on the calling thread.
pub fn random_playouts(pos: &Position, n: u64, seed: u64) -> PlayoutRate {
    let evaluator = crate::eval::simple::PipSigmoid;
    let mut tree = Tree::new(&evaluator, MctsConfig::default(), seed);
    let start = Instant::now();
    let mut points = 0.0;
    for _ in 0..n {
        points += tree.playout(*pos).equity() as f64;
    }
    let seconds = start.elapsed().as_secs_f64().max(1e-9);
    let games = n.max(1);
    PlayoutRate {
        games: n,
        seconds,
        games_per_sec: n as f64 / seconds,
        mean_plies: tree.plies as f64 / games as f64,
        mean_points: points / games as f64,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::eval::simple::PipSigmoid;
    use crate::search::Algorithm;

    fn settings(playouts: u64, playout: Playout, truncate: Option<u32>) -> SearchSettings {
        let mut s = SearchSettings::new(1, Algorithm::Mcts);
        s.mcts = MctsConfig {
            playouts: Some(playouts),
            playout,
            truncate,
            ..MctsConfig::default()
        };
        s
    }

    #[test]
    fn a_winning_play_is_chosen() {
        // Two checkers left on the 1 and 2 points against a full board: 21 bears both off.
        let mut slots = [0i8; 26];
        slots[1] = 1;
        slots[2] = 1;
        slots[19] = -15;
        let pos = Position::from_slots(slots).unwrap();
        let d = choose(
            &PipSigmoid,
            &pos,
            Dice::new(2, 1).unwrap(),
            &settings(50, Playout::Random, None),
            &Cancel::new(),
        );
        assert!(d.plays[0].play.position.mover_result().is_some());
    }

    /// A play no iteration reached (here the one legal play, which is not searched) is
    /// reported with the evaluator's value of it, not an empty mean.
    #[test]
    fn an_unsearched_play_gets_the_evaluators_value() {
        use crate::eval::Evaluator;
        let pos = crate::notation::decode_position_id("bTrBCQIqPx+AAA").unwrap();
        let dice = Dice::new(6, 6).unwrap();
        let d = choose(
            &PipSigmoid,
            &pos,
            dice,
            &settings(100, Playout::Random, None),
            &Cancel::new(),
        );
        assert_eq!(d.plays.len(), 1);
        let want = PipSigmoid.evaluate(&d.plays[0].play.next()).invert();
        assert_eq!(d.plays[0].probs, want);
        assert_eq!(d.plays[0].value, to_value(want.equity() as f64));
        assert_eq!(d.stats.evals, 1);
    }

    #[test]
    fn playout_budgets_repeat_exactly() {
        let dice = Dice::new(3, 1).unwrap();
        let s = settings(300, Playout::Random, None);
        let a = choose(&PipSigmoid, &Position::OPENING, dice, &s, &Cancel::new());
        let b = choose(&PipSigmoid, &Position::OPENING, dice, &s, &Cancel::new());
        let key = |d: &MoveDecision| -> Vec<(usize, i32)> {
            d.plays.iter().map(|p| (p.index, p.value)).collect()
        };
        assert_eq!(key(&a), key(&b));
        assert_eq!(a.stats.leaves, 300);
        assert!(!a.stopped);
    }

    #[test]
    fn the_opening_31_makes_the_five_point_with_enough_net_playouts() {
        // With evaluator-guided, truncated playouts the search finds 8/5 6/5 quickly.
        let dice = Dice::new(3, 1).unwrap();
        let nets = crate::eval::neural::NeuralEvaluator::default_nets().unwrap();
        let d = choose(
            &nets,
            &Position::OPENING,
            dice,
            &settings(400, Playout::Net, Some(0)),
            &Cancel::new(),
        );
        let best = d.plays[0].play.position;
        let mut slots = *Position::OPENING.slots();
        slots[8] -= 1;
        slots[6] -= 1;
        slots[5] += 2;
        assert_eq!(best, Position::from_slots(slots).unwrap());
    }

    #[test]
    fn position_values_are_for_the_side_to_act() {
        // A side far ahead in the race wins nearly always.
        let mut slots = [0i8; 26];
        slots[1] = 15;
        slots[13] = -15;
        let pos = Position::from_slots(slots).unwrap();
        let e = evaluate_position(
            &PipSigmoid,
            &pos,
            &settings(200, Playout::Random, None),
            &Cancel::new(),
        );
        assert!(e.equity > 0.9, "{}", e.equity);
        assert!(e.probs.0[0] > 0.95);
        let swapped = evaluate_position(
            &PipSigmoid,
            &pos.swap(),
            &settings(200, Playout::Random, None),
            &Cancel::new(),
        );
        assert!(swapped.equity < -0.9, "{}", swapped.equity);
    }

    #[test]
    fn random_playouts_finish_every_game() {
        let r = random_playouts(&Position::OPENING, 200, 1);
        assert_eq!(r.games, 200);
        // Random games last long but end: dozens of plies, never the cap of a stuck loop.
        assert!(r.mean_plies > 20.0 && r.mean_plies < 1000.0, "{r:?}");
        assert!(r.mean_points.abs() < 1.0, "{r:?}");
    }
}
