//! Series: money games in mirrored pairs, or matches, between engines A and B on worker
//! threads, handed on in order so that a seed gives the same series whatever the thread
//! count.

use std::sync::atomic::{AtomicBool, Ordering};

use super::game::{
    play_game, play_match, stream_seed, DiceStream, Event, GameRecord, GameSetup, MatchRecord,
};
use super::tally::Tally;
use crate::arena::luck::game_luck;
use crate::eval::luck::Judge;
use crate::players::{Decide, DecideErrorKind, MakeDecider};

/// What a series plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesKind {
    /// Money games, in mirrored pairs.
    Money { games: u64 },
    /// Matches to `length` points.
    Matches { length: u32, matches: u64 },
}

/// A series of games between engines A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesConfig {
    pub kind: SeriesKind,
    pub cube: bool,
    pub seed: u64,
    /// Worker threads (each with its own seats).
    pub parallel: usize,
}

impl SeriesConfig {
    /// Units of work: money pairs or matches.
    pub fn units(&self) -> u64 {
        match self.kind {
            SeriesKind::Money { games } => games.div_ceil(2),
            SeriesKind::Matches { matches, .. } => matches,
        }
    }

    /// Games the series has in total (money) or None (matches: depends on play).
    pub fn planned_games(&self) -> Option<u64> {
        match self.kind {
            SeriesKind::Money { games } => Some(games),
            SeriesKind::Matches { .. } => None,
        }
    }
}

/// One finished game with where it belongs in the series.
#[derive(Debug, Clone)]
pub struct SeriesGame {
    /// 0-based game number over the series.
    pub index: u64,
    /// The match it belongs to (match play).
    pub match_index: Option<u64>,
    /// The seat engine A sat in.
    pub a_seat: usize,
    /// Seed of the dice stream the game drew from (shared by a mirrored pair, and by all
    /// games of a match).
    pub dice_seed: u64,
    pub setup: GameSetup,
    pub record: GameRecord,
    /// A's luck minus B's, when the series has a judge: in points (money play) or in
    /// match-winning chance (match play); see [`crate::arena::luck`].
    pub luck: Option<f64>,
}

impl SeriesGame {
    /// A's points: the game's points, negative when A lost.
    pub fn a_points(&self) -> f64 {
        let pts = self.record.points as f64;
        if self.record.winner == self.a_seat {
            pts
        } else {
            -pts
        }
    }

    /// A's luck-adjusted points in money play: the points minus A's net luck.
    pub fn a_adjusted(&self) -> Option<f64> {
        self.luck.map(|l| self.a_points() - l)
    }

    /// One JSON object describing the game from A's view.
    pub fn to_json(&self) -> serde_json::Value {
        let r = &self.record;
        let a_won = r.winner == self.a_seat;
        let side = |seat: usize| if seat == self.a_seat { "a" } else { "b" };
        let forfeit = r.forfeit.as_ref().map(|f| {
            serde_json::json!({
                "side": side(1 - r.winner),
                "reason": f.kind.to_string(),
                "request": f.request,
                "reply": f.reply,
            })
        });
        let moves = r
            .events
            .iter()
            .filter(|e| matches!(e, Event::Move { .. }))
            .count();
        serde_json::json!({
            "game": self.index,
            "match": self.match_index,
            "a_seat": self.a_seat,
            "dice_seed": self.dice_seed,
            "winner": side(r.winner),
            "points": r.points,
            "a_points": if a_won { r.points as i64 } else { -(r.points as i64) },
            "ending": r.ending.word(),
            "cube": r.cube,
            "score_before": {
                "a": self.setup.score[self.a_seat],
                "b": self.setup.score[1 - self.a_seat],
            },
            "crawford": self.setup.crawford,
            "moves": moves,
            "forfeit": forfeit,
            "a_luck": self.luck,
        })
    }
}

/// The outcome of a unit of work.
#[derive(Debug)]
pub enum UnitResult {
    /// A mirrored money pair (one or two games).
    Pair(Vec<SeriesGame>),
    /// A match, with the seat A sat in.
    Match {
        index: u64,
        a_seat: usize,
        record: MatchRecord,
        games: Vec<SeriesGame>,
    },
}

impl UnitResult {
    /// The games of the unit.
    pub fn games(&self) -> &[SeriesGame] {
        match self {
            UnitResult::Pair(g) => g,
            UnitResult::Match { games, .. } => games,
        }
    }
}

/// Everything a series produced.
#[derive(Debug, Default)]
pub struct SeriesSummary {
    pub tally: Tally,
    pub seconds: f64,
}

/// Plays unit `unit` of a series with the given seats (A, B).
pub fn play_unit(
    cfg: &SeriesConfig,
    unit: u64,
    a: &mut dyn Decide,
    b: &mut dyn Decide,
    names: &[String; 2],
) -> UnitResult {
    match cfg.kind {
        SeriesKind::Money { games } => {
            let mut out = Vec::new();
            for half in 0..2u64 {
                let index = unit * 2 + half;
                if index >= games {
                    break;
                }
                let a_seat = half as usize;
                let mut dice = DiceStream::new(stream_seed(cfg.seed, unit));
                let seat_names = if a_seat == 0 {
                    names.clone()
                } else {
                    [names[1].clone(), names[0].clone()]
                };
                let setup = GameSetup {
                    match_length: 0,
                    score: [0, 0],
                    crawford: false,
                    post_crawford: false,
                    cube: cfg.cube,
                    names: seat_names,
                };
                let record = if a_seat == 0 {
                    let mut seats: [&mut dyn Decide; 2] = [&mut *a, &mut *b];
                    play_game(&mut seats, &mut dice, &setup)
                } else {
                    let mut seats: [&mut dyn Decide; 2] = [&mut *b, &mut *a];
                    play_game(&mut seats, &mut dice, &setup)
                };
                out.push(SeriesGame {
                    index,
                    match_index: None,
                    a_seat,
                    dice_seed: stream_seed(cfg.seed, unit),
                    setup,
                    record,
                    luck: None,
                });
            }
            UnitResult::Pair(out)
        }
        SeriesKind::Matches { length, .. } => {
            let a_seat = (unit % 2) as usize;
            let mut dice = DiceStream::new(stream_seed(cfg.seed, unit));
            let seat_names = if a_seat == 0 {
                names.clone()
            } else {
                [names[1].clone(), names[0].clone()]
            };
            let record = if a_seat == 0 {
                let mut seats: [&mut dyn Decide; 2] = [&mut *a, &mut *b];
                play_match(&mut seats, &mut dice, length, cfg.cube, seat_names)
            } else {
                let mut seats: [&mut dyn Decide; 2] = [&mut *b, &mut *a];
                play_match(&mut seats, &mut dice, length, cfg.cube, seat_names)
            };
            let games = record
                .games
                .iter()
                .map(|(setup, rec)| SeriesGame {
                    index: 0,
                    match_index: Some(unit),
                    a_seat,
                    dice_seed: stream_seed(cfg.seed, unit),
                    setup: setup.clone(),
                    record: rec.clone(),
                    luck: None,
                })
                .collect();
            UnitResult::Match {
                index: unit,
                a_seat,
                record,
                games,
            }
        }
    }
}

/// True when a seat's failure means its connection is gone and must be remade.
fn broken(unit: &UnitResult) -> bool {
    unit.games().iter().any(|g| {
        g.record
            .forfeit
            .as_ref()
            .is_some_and(|f| matches!(f.kind, DecideErrorKind::Io(_) | DecideErrorKind::Timeout))
    })
}

/// Measures the luck of every game of `unit` with `judge` (see [`crate::arena::luck`]).
pub fn judge_unit(unit: &mut UnitResult, judge: &mut Judge) {
    let games = match unit {
        UnitResult::Pair(g) => g,
        UnitResult::Match { games, .. } => games,
    };
    for g in games.iter_mut() {
        g.luck = Some(game_luck(judge, &g.setup, &g.record, g.a_seat));
    }
}

/// Runs a series on `cfg.parallel` worker threads. `sink` receives every unit in order
/// (unit 0 first) on the calling thread, with game indices numbered over the series.
pub fn run_series(
    cfg: &SeriesConfig,
    a: &dyn MakeDecider,
    b: &dyn MakeDecider,
    sink: &mut dyn FnMut(&UnitResult),
) -> Result<SeriesSummary, String> {
    run_series_judged(cfg, a, b, None, sink)
}

/// [`run_series`] with every game's luck measured by `judge` on the worker threads, and
/// the luck-adjusted results in the summary's tally.
pub fn run_series_judged(
    cfg: &SeriesConfig,
    a: &dyn MakeDecider,
    b: &dyn MakeDecider,
    judge: Option<&Judge>,
    sink: &mut dyn FnMut(&UnitResult),
) -> Result<SeriesSummary, String> {
    run_series_until(cfg, a, b, judge, &AtomicBool::new(false), sink)
}

/// [`run_series_judged`] that stops early when `halt` is raised: no unit (money pair or
/// match) starts after it, and `sink` and the summary have the units finished in order
/// by then.
pub fn run_series_until(
    cfg: &SeriesConfig,
    a: &dyn MakeDecider,
    b: &dyn MakeDecider,
    judge: Option<&Judge>,
    halt: &AtomicBool,
    sink: &mut dyn FnMut(&UnitResult),
) -> Result<SeriesSummary, String> {
    use std::collections::BTreeMap;
    use std::sync::atomic::AtomicU64;

    let start = std::time::Instant::now();
    let units = cfg.units();
    let workers = cfg.parallel.max(1).min(units.max(1) as usize);
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let names = [seat_name(&a.name(), "A"), seat_name(&b.name(), "B")];
    let (tx, rx) = crossbeam::channel::unbounded::<Result<(u64, UnitResult), String>>();
    let mut summary = SeriesSummary::default();
    let mut failure = None;
    std::thread::scope(|scope| {
        for w in 0..workers {
            let tx = tx.clone();
            let next = &next;
            let stop = &stop;
            let names = &names;
            let mut judge = judge.cloned();
            scope.spawn(move || {
                let mut seats = match (a.make(w), b.make(w)) {
                    (Ok(x), Ok(y)) => (x, y),
                    (Err(e), _) | (_, Err(e)) => {
                        stop.store(true, Ordering::Relaxed);
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                while !stop.load(Ordering::Relaxed) && !halt.load(Ordering::Relaxed) {
                    let unit = next.fetch_add(1, Ordering::Relaxed);
                    if unit >= units {
                        break;
                    }
                    let mut result =
                        play_unit(cfg, unit, seats.0.as_mut(), seats.1.as_mut(), names);
                    if let Some(j) = judge.as_mut() {
                        judge_unit(&mut result, j);
                    }
                    if broken(&result) {
                        match (a.make(w), b.make(w)) {
                            (Ok(x), Ok(y)) => seats = (x, y),
                            (Err(e), _) | (_, Err(e)) => {
                                stop.store(true, Ordering::Relaxed);
                                let _ = tx.send(Err(e));
                                return;
                            }
                        }
                    }
                    if tx.send(Ok((unit, result))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut pending: BTreeMap<u64, UnitResult> = BTreeMap::new();
        let mut next_out = 0u64;
        let mut game_index = 0u64;
        for msg in rx.iter() {
            match msg {
                Err(e) => {
                    if failure.is_none() {
                        failure = Some(e);
                    }
                }
                Ok((unit, result)) => {
                    pending.insert(unit, result);
                    while let Some(mut r) = pending.remove(&next_out) {
                        let games = match &mut r {
                            UnitResult::Pair(g) => g,
                            UnitResult::Match { games, .. } => games,
                        };
                        for g in games.iter_mut() {
                            g.index = game_index;
                            game_index += 1;
                            summary.tally.add_game(g.a_seat, &g.record);
                        }
                        if let UnitResult::Pair(games) = &r {
                            summary.tally.add_pair(games);
                            summary.tally.add_adjusted_pair(games);
                        }
                        if let UnitResult::Match {
                            a_seat,
                            record,
                            games,
                            ..
                        } = &r
                        {
                            summary.tally.matches += 1;
                            let a_won = record.winner == *a_seat;
                            if a_won {
                                summary.tally.match_wins_a += 1;
                            }
                            let luck: Option<f64> = games.iter().map(|g| g.luck).sum();
                            if let Some(l) = luck {
                                summary.tally.add_adjusted_match(a_won, l);
                            }
                        }
                        sink(&r);
                        next_out += 1;
                    }
                }
            }
        }
    });
    summary.seconds = start.elapsed().as_secs_f64();
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// A name safe in board lines and .mat files: the leading letters and digits of the
/// engine's name plus a suffix telling the two sides apart (`tcp://...` -> `tcpA`).
pub fn seat_name(engine: &str, suffix: &str) -> String {
    let stem: String = engine
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .take(12)
        .collect();
    format!("{stem}{suffix}")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::arena::referee::testing::seat;
    use crate::arena::referee::{write_mat, FirstPlay};
    use crate::engine::Action;

    struct RandomFactory(u64);

    impl MakeDecider for RandomFactory {
        fn make(&self, worker: usize) -> Result<Box<dyn Decide>, String> {
            Ok(Box::new(seat(self.0 * 1000 + worker as u64, 0.1, true)))
        }
        fn name(&self) -> String {
            format!("random{}", self.0)
        }
    }

    #[test]
    fn series_results_do_not_depend_on_the_thread_count() {
        // Random players draw from their own generators, so only a deterministic seat
        // gives equal results; a seat that always plays the first legal play is one.
        struct FirstFactory;
        impl MakeDecider for FirstFactory {
            fn make(&self, _: usize) -> Result<Box<dyn Decide>, String> {
                Ok(Box::new(FirstPlay {
                    at_roll: Action::Roll,
                }))
            }
            fn name(&self) -> String {
                "first".into()
            }
        }
        let run = |parallel| {
            let cfg = SeriesConfig {
                kind: SeriesKind::Money { games: 21 },
                cube: false,
                seed: 5,
                parallel,
            };
            let mut lines = Vec::new();
            let s = run_series(&cfg, &FirstFactory, &FirstFactory, &mut |u| {
                for g in u.games() {
                    lines.push(g.to_json().to_string());
                }
            })
            .unwrap();
            (s.tally, lines)
        };
        let (t1, l1) = run(1);
        let (t3, l3) = run(3);
        assert_eq!(t1, t3);
        assert_eq!(l1, l3);
        assert_eq!(t1.games, 21);
        // Identical players with mirrored dice: every pair cancels out.
        assert!(t1.ppg().abs() <= 3.0 / 21.0 + 1e-9);
    }

    #[test]
    fn match_series_counts_match_wins_and_writes_mat() {
        let cfg = SeriesConfig {
            kind: SeriesKind::Matches {
                length: 3,
                matches: 4,
            },
            cube: true,
            seed: 11,
            parallel: 2,
        };
        let mut records = Vec::new();
        let s = run_series(&cfg, &RandomFactory(1), &RandomFactory(2), &mut |u| {
            if let UnitResult::Match { record, .. } = u {
                records.push(record.clone());
            }
        })
        .unwrap();
        assert_eq!(s.tally.matches, 4);
        assert!(s.tally.match_wins_a <= 4);
        assert_eq!(records.len(), 4);
        let mut buf = Vec::new();
        write_mat(&mut buf, 3, &records).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(text.matches(" 3 point match").count(), 4);
        assert!(text.contains(" Game 1\n"));
        assert!(text.contains("Wins "));
    }

    #[test]
    fn a_raised_halt_starts_no_further_unit() {
        let cfg = SeriesConfig {
            kind: SeriesKind::Money { games: 200_000 },
            cube: false,
            seed: 3,
            parallel: 2,
        };
        let halt = AtomicBool::new(false);
        let mut units = 0u64;
        let s = run_series_until(
            &cfg,
            &RandomFactory(1),
            &RandomFactory(2),
            None,
            &halt,
            &mut |_| {
                units += 1;
                halt.store(true, Ordering::Relaxed);
            },
        )
        .unwrap();
        // The units under way when the halt came finish; no other starts.
        assert!((1..1000).contains(&units), "{units}");
        assert_eq!(s.tally.games, 2 * units);
        let raised = AtomicBool::new(true);
        let none = run_series_until(
            &cfg,
            &RandomFactory(1),
            &RandomFactory(2),
            None,
            &raised,
            &mut |_| panic!("a unit after the halt"),
        )
        .unwrap();
        assert_eq!(none.tally.games, 0);
    }
}
