//! The bear-off database against a naive implementation of the rules written here (its
//! own move enumeration, a recursive expectimin with memoisation), hand-computed values
//! and gnubg's one-sided database; the evaluator's use of it; `stargammon bearoff`.
#![allow(clippy::unwrap_used)]

mod common;

use common::{json_of, stargammon};

use std::collections::{HashMap, HashSet};

use stargammon::eval::bearoff::{self, checkers, Board};
use stargammon::eval::net::consistent;
use stargammon::eval::neural::Scratch;
use stargammon::eval::{Evaluator, NeuralEvaluator, Probabilities};
use stargammon::game::{splitmix, Position};
use stargammon::notation::position_id;

/// Every position of up to this many checkers is compared with the naive means.
const ALL_UP_TO: u32 = 12;

// ---------------------------------------------------------------------------------------
// The naive reference: bear-off rules straight from the rules text, no project code.

/// One checker from `point` (1..=6) by `die`: to a lower point, off exactly, or off from
/// the highest occupied point with a larger die.
fn step(b: &Board, point: usize, die: usize) -> Option<Board> {
    if b[point - 1] == 0 {
        return None;
    }
    let higher_occupied = (point + 1..=6).any(|p| b[p - 1] > 0);
    let mut n = *b;
    n[point - 1] -= 1;
    if point > die {
        n[point - die - 1] += 1;
    } else if point < die && higher_occupied {
        return None;
    }
    Some(n)
}

/// Every position after playing `dice` in this order, as many dice as can be played (in
/// a bear-off every die can be played while a checker is left).
fn after_dice(b: &Board, dice: &[usize]) -> HashSet<Board> {
    let mut level: HashSet<Board> = HashSet::from([*b]);
    for &die in dice {
        let mut next = HashSet::new();
        for x in &level {
            if checkers(x) == 0 {
                next.insert(*x);
                continue;
            }
            let mut moved = false;
            for p in 1..=6 {
                if let Some(n) = step(x, p, die) {
                    next.insert(n);
                    moved = true;
                }
            }
            assert!(
                moved,
                "a die that cannot be played in a bear-off: {x:?} {die}"
            );
        }
        level = next;
    }
    level
}

/// The 21 rolls with their weights out of 36, and each roll's distinct results.
fn plays(b: &Board) -> Vec<(f64, HashSet<Board>)> {
    let mut out = Vec::new();
    for a in 1..=6 {
        for c in 1..=a {
            if a == c {
                out.push((1.0, after_dice(b, &[a; 4])));
            } else {
                let mut s = after_dice(b, &[a, c]);
                s.extend(after_dice(b, &[c, a]));
                out.push((2.0, s));
            }
        }
    }
    out
}

#[derive(Default)]
struct Naive {
    all: HashMap<Board, f64>,
    first: HashMap<Board, f64>,
}

impl Naive {
    /// Expected rolls to bear off everything, each roll minimising it.
    fn all_off(&mut self, b: &Board) -> f64 {
        if checkers(b) == 0 {
            return 0.0;
        }
        if let Some(&m) = self.all.get(b) {
            return m;
        }
        let mut sum = 0.0;
        for (w, results) in plays(b) {
            let best = results
                .iter()
                .map(|n| self.all_off(n))
                .fold(f64::INFINITY, f64::min);
            sum += w * best;
        }
        let m = 1.0 + sum / 36.0;
        self.all.insert(*b, m);
        m
    }

    /// Expected rolls to bear off the first checker of a board of 15.
    fn first_off(&mut self, b: &Board) -> f64 {
        if checkers(b) < 15 {
            return 0.0;
        }
        if let Some(&m) = self.first.get(b) {
            return m;
        }
        let mut sum = 0.0;
        for (w, results) in plays(b) {
            let best = results
                .iter()
                .map(|n| self.first_off(n))
                .fold(f64::INFINITY, f64::min);
            sum += w * best;
        }
        let m = 1.0 + sum / 36.0;
        self.first.insert(*b, m);
        m
    }

    /// P(the side to act wins), each side playing to minimise its own expected rolls,
    /// by recursion over both boards.
    fn p_win(&mut self, me: &Board, opp: &Board, memo: &mut HashMap<(Board, Board), f64>) -> f64 {
        if checkers(me) == 0 {
            return 1.0;
        }
        if checkers(opp) == 0 {
            return 0.0;
        }
        if let Some(&p) = memo.get(&(*me, *opp)) {
            return p;
        }
        let mut sum = 0.0;
        for (w, results) in plays(me) {
            // In a fixed order, so that a tie is broken the same way on every run.
            let mut results: Vec<Board> = results.into_iter().collect();
            results.sort_unstable();
            let mut best = results[0];
            for n in &results {
                if self.all_off(n) < self.all_off(&best) {
                    best = *n;
                }
            }
            sum += w * (1.0 - self.p_win(opp, &best, memo));
        }
        let p = sum / 36.0;
        memo.insert((*me, *opp), p);
        p
    }
}

// ---------------------------------------------------------------------------------------

fn boards_up_to(max: u32) -> Vec<Board> {
    let mut out = Vec::new();
    let mut b = [0u8; 6];
    fn rec(b: &mut Board, i: usize, left: u32, out: &mut Vec<Board>) {
        if i == 6 {
            out.push(*b);
            return;
        }
        for n in 0..=left {
            b[i] = n as u8;
            rec(b, i + 1, left - n, out);
        }
        b[i] = 0;
    }
    rec(&mut b, 0, max, &mut out);
    out
}

/// A seeded 15-checker board.
fn random_full_board(seed: &mut u64) -> Board {
    let mut b = [0u8; 6];
    for _ in 0..15 {
        *seed = splitmix(*seed);
        b[(*seed % 6) as usize] += 1;
    }
    b
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn expected_rolls_match_the_naive_reference_on_small_positions() {
    let db = bearoff::database();
    let mut naive = Naive::default();
    let boards = boards_up_to(ALL_UP_TO);
    assert_eq!(boards.len(), 18_564);
    for b in &boards {
        let want = naive.all_off(b);
        let got = db.all_off(b).mean() as f64;
        assert!(
            close(got, want, 2e-6 * want.max(1.0)),
            "{b:?}: {got} vs {want}"
        );
    }
}

#[test]
fn expected_rolls_match_the_naive_reference_on_fifteen_checkers() {
    let db = bearoff::database();
    let mut naive = Naive::default();
    let mut seed = 11;
    for _ in 0..12 {
        let b = random_full_board(&mut seed);
        let want = naive.all_off(&b);
        let got = db.all_off(&b).mean() as f64;
        assert!(close(got, want, 1e-5), "{b:?}: {got} vs {want}");
        let want = naive.first_off(&b);
        let got = db.first_off(&b).unwrap().mean() as f64;
        assert!(close(got, want, 1e-5), "first off {b:?}: {got} vs {want}");
    }
    // The extremes.
    for b in [[15, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 15], [3, 3, 3, 2, 2, 2]] {
        let want = naive.all_off(&b);
        assert!(close(db.all_off(&b).mean() as f64, want, 1e-5), "{b:?}");
        let want = naive.first_off(&b);
        assert!(
            close(db.first_off(&b).unwrap().mean() as f64, want, 1e-5),
            "{b:?}"
        );
    }
    // Every position the recursion went through on the way, too.
    for (b, &want) in &naive.all {
        assert!(close(db.all_off(b).mean() as f64, want, 1e-5), "{b:?}");
    }
    for (b, &want) in &naive.first {
        assert!(
            close(db.first_off(b).unwrap().mean() as f64, want, 1e-5),
            "{b:?}"
        );
    }
    eprintln!(
        "compared {} all-off and {} first-off means",
        naive.all.len(),
        naive.first.len()
    );
}

#[test]
fn published_and_hand_computed_values() {
    let db = bearoff::database();
    let mean = |b: Board| db.all_off(&b).mean() as f64;
    // One or two checkers on the 1-point: off with any roll.
    assert_eq!(mean([1, 0, 0, 0, 0, 0]), 1.0);
    assert_eq!(mean([2, 0, 0, 0, 0, 0]), 1.0);
    // One checker on the 6-point: 1-1, 2-1, 3-1, 4-1 and 3-2 (9 of 36 rolls) leave it on
    // the 3-point or lower, from where any roll bears it off: 1 + 9/36 = 1.25.
    assert!(close(mean([0, 0, 0, 0, 0, 1]), 1.25, 1e-6));
    // Four checkers on the 1-point: a double takes them all (1/6); otherwise two go and
    // any roll takes the other two: 1 + 5/6.
    assert!(close(mean([4, 0, 0, 0, 0, 0]), 1.0 + 5.0 / 6.0, 1e-6));
    // gnubg's one-sided database (show bearoff), to its three decimals.
    assert!(close(mean([0, 0, 0, 0, 1, 14]), 12.023, 6e-4));
    assert!(close(mean([0, 0, 0, 0, 0, 15]), 12.266, 6e-4));
    assert!(close(mean([3, 2, 2, 2, 2, 2]), 6.752, 6e-4));
}

#[test]
fn win_probabilities_match_a_two_sided_recursion() {
    let db = bearoff::database();
    let mut naive = Naive::default();
    let mut memo = HashMap::new();
    let boards: Vec<Board> = boards_up_to(3)
        .into_iter()
        .filter(|b| checkers(b) > 0)
        .collect();
    for me in &boards {
        for opp in boards.iter().step_by(3) {
            let want = naive.p_win(me, opp, &mut memo);
            let got = db.probabilities(me, opp).0[0] as f64;
            assert!(close(got, want, 2e-6), "{me:?} {opp:?}: {got} vs {want}");
        }
    }
}

#[test]
fn win_probability_sanity() {
    let db = bearoff::database();
    let all = boards_up_to(15);
    // One checker on the 1-point is off with the next roll.
    for opp in all.iter().filter(|b| checkers(b) > 0) {
        let p = db.probabilities(&[1, 0, 0, 0, 0, 0], opp);
        assert_eq!(p.0[0], 1.0, "{opp:?}");
        assert_eq!(p.0[3], 0.0);
    }
    let mut seed = 3;
    for _ in 0..3000 {
        seed = splitmix(seed);
        let a = all[(seed % all.len() as u64) as usize];
        let b = all[((seed >> 32) % all.len() as u64) as usize];
        if checkers(&a) == 0 || checkers(&b) == 0 {
            continue;
        }
        // Rolling first is worth something.
        assert!(db.probabilities(&a, &a).0[0] >= 0.5, "{a:?}");
        let p = db.probabilities(&a, &b).0;
        assert!((0.0..=1.0).contains(&p[0]));
        assert!(0.0 <= p[1] && p[1] <= p[0] && p[2] == 0.0, "{p:?}");
        assert!(0.0 <= p[3] && p[3] <= 1.0 - p[0] && p[4] == 0.0, "{p:?}");
        // Rolling second instead of first never helps.
        let q = db.probabilities(&b, &a).0;
        assert!(p[0] + q[0] >= 1.0 - 1e-6, "{a:?} {b:?}");
    }
}

fn position(me: Board, opp: Board) -> Position {
    let mut s = [0i8; 26];
    for i in 0..6 {
        s[i + 1] = me[i] as i8;
        s[24 - i] = -(opp[i] as i8);
    }
    Position::from_slots(s).unwrap()
}

#[test]
fn the_evaluator_answers_from_the_database_exactly_when_both_sides_are_home() {
    let eval = NeuralEvaluator::default_nets().unwrap();
    let db = bearoff::database();
    let positions = stargammon::bench::bearoff_positions(9, 400);
    let mut batch = vec![Probabilities::default(); positions.len()];
    eval.evaluate_batch(&positions, &mut batch);
    for (pos, b) in positions.iter().zip(&batch) {
        let (me, opp) = bearoff::home_boards(pos).unwrap();
        let want = db.probabilities(&me, &opp);
        assert_eq!(eval.evaluate(pos), want, "{pos:?}");
        assert_eq!(*b, want, "{pos:?}");
    }
    // One checker outside a home board: the race net.
    let mut scratch = Scratch::default();
    let mut s = *position([2, 2, 0, 0, 0, 3], [0, 3, 3, 0, 0, 1]).slots();
    s[7] = 1;
    let race = Position::from_slots(s).unwrap();
    assert!(bearoff::home_boards(&race).is_none());
    for pos in [race, race.swap()] {
        let net = consistent(eval.raw_with(&pos, &mut scratch), pos.off(), pos.opp_off());
        assert_eq!(eval.evaluate(&pos), net, "{pos:?}");
    }
}

#[test]
fn cli_reports_both_sides_and_the_win_chance() {
    let (me, opp) = ([0, 0, 0, 0, 0, 15], [2, 1, 0, 0, 0, 0]);
    let id = position_id(&position(me, opp));
    let out = stargammon(&["bearoff", &id, "--json"]);
    let v = json_of(&out);
    let db = bearoff::database();
    let p = db.probabilities(&me, &opp);
    assert_eq!(v["on_roll"]["checkers"], 15);
    assert_eq!(v["opponent"]["checkers"], 3);
    let f = |x: &serde_json::Value| x.as_f64().unwrap();
    assert!(close(
        f(&v["on_roll"]["mean_rolls"]),
        db.all_off(&me).mean() as f64,
        1e-6
    ));
    assert!(close(
        f(&v["opponent"]["mean_rolls"]),
        db.all_off(&opp).mean() as f64,
        1e-6
    ));
    assert!(close(f(&v["p_win"]), p.0[0] as f64, 1e-7));
    assert!(close(f(&v["p_lose_gammon"]), p.0[3] as f64, 1e-7));
    assert!(f(&v["p_lose_gammon"]) > 0.1);
    let dist = v["on_roll"]["distribution"].as_array().unwrap();
    assert!(close(dist.iter().map(f).sum::<f64>(), 1.0, 1e-5));

    let text = stargammon(&["bearoff", &id]);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("P(win)") && text.contains("gammons"),
        "{text}"
    );
}

#[test]
fn cli_refuses_positions_outside_the_database() {
    for pos in ["4HPwATDgc/ABMA", "not-an-id"] {
        let out = stargammon(&["bearoff", pos]);
        assert_eq!(out.status.code(), Some(2), "{pos}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(out.stdout.is_empty());
    }
    let out = stargammon(&["bearoff", "4HPwATDgc/ABMA", "--json"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("not a bear-off position"), "{err}");
    // A checker on the bar.
    let mut s = *position([2, 2, 0, 0, 0, 3], [0, 3, 3, 0, 0, 1]).slots();
    s[25] = 1;
    let id = position_id(&Position::from_slots(s).unwrap());
    assert_eq!(stargammon(&["bearoff", &id]).status.code(), Some(2));
}

/// gnubg's `show bearoff` and `eval` on positions its one-sided database answers (more
/// than six checkers on one side), compared to gnubg's printed three decimals.
#[test]
fn gnubg_one_sided_database_agrees() {
    if common::gnubg_or_skip("gnubg_one_sided_database_agrees").is_none() {
        return;
    }
    let db = bearoff::database();
    let cases: [(Board, Board); 6] = [
        ([3, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2]),
        ([0, 0, 0, 0, 1, 14], [5, 5, 3, 1, 1, 0]),
        ([0, 0, 0, 0, 0, 15], [2, 1, 0, 0, 0, 0]),
        ([1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 1, 14]),
        ([0, 0, 0, 2, 5, 8], [0, 1, 1, 1, 0, 0]),
        ([4, 0, 3, 0, 2, 1], [1, 2, 3, 1, 0, 2]),
    ];
    let mut script = String::from("new game\n");
    for (me, opp) in &cases {
        script.push_str(&format!(
            "set board {}\nshow bearoff\neval\n",
            position_id(&position(*me, *opp))
        ));
    }
    let out = common::run_gnubg(&script);
    let text = String::from_utf8_lossy(&out.stdout);
    let means: Vec<Vec<f64>> = text
        .lines()
        .filter(|l| l.starts_with("Mean"))
        .map(|l| {
            l.split_whitespace()
                .skip(1)
                .map(|x| x.parse().unwrap())
                .collect()
        })
        .collect();
    let statics: Vec<Vec<f64>> = text
        .lines()
        .filter(|l| l.starts_with("static:"))
        .map(|l| {
            l.split_whitespace()
                .skip(1)
                .take(5)
                .map(|x| x.parse().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(means.len(), cases.len(), "{text}");
    assert_eq!(statics.len(), cases.len(), "{text}");
    for (i, (me, opp)) in cases.iter().enumerate() {
        let what = format!("{me:?} {opp:?}: gnubg {:?} {:?}", means[i], statics[i]);
        assert!(
            close(db.all_off(me).mean() as f64, means[i][0], 6e-4),
            "{what}"
        );
        assert!(
            close(db.all_off(opp).mean() as f64, means[i][1], 6e-4),
            "{what}"
        );
        let p = db.probabilities(me, opp).0;
        // gnubg stores its distributions in 16 bits: allow a little beyond its rounding.
        for k in [0, 1, 3] {
            assert!(
                close(p[k] as f64, statics[i][k], 1.5e-3),
                "{what}: ours {p:?}"
            );
        }
    }
}
