//! Tavli matches: the games of a rotation in turn (Portes, Plakoto, Fevga), the first game
//! and any after a tie opened by C8, every other game started by the previous game's
//! winner, each played by [`super::play_cubeless`] with match-aware values of the scores.
//! Money duels of one Tavli game are [`super::duel_from`]'s, as backgammon's are.

use super::{play_cubeless, CubelessGame, GameEnd, MAX_TURNS};
use crate::game::{splitmix, Ending, GameResult, Rng, Variant};
use crate::players::{Decide, PlayerFactory};
use crate::tavli::position::TavliPosition;
use crate::tavli::TavliPlayList;

/// A Tavli match's rotation: the games in the order they are played, repeating.
pub const TAVLI_ROTATION: [Variant; 3] = [Variant::Portes, Variant::Plakoto, Variant::Fevga];

/// The chances of each score of one game between equal players, per game: each side's
/// single win and double win, and a tie; 2 * (single + double) + tie = 1. Measured in
/// 20,000 games of self-play at depth 1 of the nets shipped on 2026-11-25
/// (docs/BENCHMARKS.md, "Tavli"); they only shape the match table below.
fn score_rates(v: Variant) -> (f64, f64, f64) {
    match v {
        // 4,698 double games of 20,000.
        Variant::Portes => (0.3826, 0.1174, 0.0),
        // 8,440 double games and 2 ties of 20,000.
        Variant::Plakoto => (0.28895, 0.2110, 0.0001),
        // 2,744 double games of 20,000.
        _ => (0.4314, 0.0686, 0.0),
    }
}

/// The chance to win a Tavli match (games score 1 or 2, no cube) for the side needing
/// `need[0]` points against one needing `need[1]`, before game `k` of the rotation, between
/// equal players: a table computed by iterating the game-score chances of `score_rates`
/// to its fixed point.
#[derive(Debug, Clone)]
pub struct TavliMatchTable {
    length: u32,
    rotation: Vec<Variant>,
    /// [x][y][k], x and y in 0..=length.
    table: Vec<f64>,
}

impl TavliMatchTable {
    pub fn new(length: u32, rotation: &[Variant]) -> TavliMatchTable {
        let n = length as usize + 1;
        let r = rotation.len().max(1);
        let mut t = TavliMatchTable {
            length,
            rotation: rotation.to_vec(),
            table: vec![0.5; n * n * r],
        };
        for _ in 0..200 {
            let mut delta = 0.0f64;
            for x in 1..n {
                for y in 1..n {
                    for k in 0..r {
                        let v = rotation.get(k).copied().unwrap_or(Variant::Portes);
                        let (s, d, tie) = score_rates(v);
                        let next = (k + 1) % r;
                        let e = |a: i64, b: i64| t.get(a, b, next);
                        let (xi, yi) = (x as i64, y as i64);
                        let value = s * e(xi - 1, yi)
                            + d * e(xi - 2, yi)
                            + s * e(xi, yi - 1)
                            + d * e(xi, yi - 2)
                            + tie * e(xi, yi);
                        let i = (x * n + y) * r + k;
                        delta = delta.max((t.table[i] - value).abs());
                        t.table[i] = value;
                    }
                }
            }
            if delta < 1e-12 {
                break;
            }
        }
        t
    }

    /// The chance that the side needing `a` points wins against one needing `b`, before
    /// game `k` of the rotation (a need of 0 or less has won).
    pub fn get(&self, a: i64, b: i64, k: usize) -> f64 {
        if a <= 0 {
            return 1.0;
        }
        if b <= 0 {
            return 0.0;
        }
        let n = self.length as usize + 1;
        let r = self.rotation.len().max(1);
        let (a, b) = ((a as usize).min(n - 1), (b as usize).min(n - 1));
        self.table[(a * n + b) * r + k % r]
    }

    /// The values for the mover of the four scores of game `k` (single win, double win,
    /// single loss, double loss) as match-winning chances, when it needs `me` points and
    /// the opponent `them`.
    pub fn values(&self, me: u32, them: u32, k: usize) -> [f64; 4] {
        let (a, b) = (i64::from(me), i64::from(them));
        let next = k + 1;
        [
            self.get(a - 1, b, next),
            self.get(a - 2, b, next),
            self.get(a, b - 1, next),
            self.get(a, b - 2, next),
        ]
    }
}

/// One game of a Tavli match, from A's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TavliGameRecord {
    pub variant: Variant,
    /// Whether A started the game (rolled first).
    pub a_started: bool,
    /// Points to A (positive), to B (negative), 0 for a tie or an unfinished game.
    pub points: i32,
    pub turns: u32,
    /// The score before the game, A's first.
    pub score_before: [u32; 2],
    /// Stopped at [`MAX_TURNS`].
    pub unfinished: bool,
    /// Why the loser's engine forfeited the game (it loses a double game).
    pub forfeit: Option<String>,
}

/// A whole Tavli match, from A's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TavliMatchRecord {
    pub length: u32,
    pub games: Vec<TavliGameRecord>,
    pub score: [u32; 2],
    /// Whether A won (`None` when a defect stopped it: a game cut at MAX_TURNS).
    pub a_won: Option<bool>,
}

impl TavliMatchRecord {
    pub fn to_json(&self, index: u64) -> serde_json::Value {
        let games: Vec<serde_json::Value> = self
            .games
            .iter()
            .map(|g| {
                serde_json::json!({
                    "variant": g.variant.name(),
                    "starter": if g.a_started { "A" } else { "B" },
                    "winner": match g.points.signum() { 1 => "A", -1 => "B", _ => if g.unfinished { "unfinished" } else { "tie" } },
                    "points": g.points.unsigned_abs(),
                    "turns": g.turns,
                    "score_before": g.score_before,
                    "forfeit": g.forfeit,
                })
            })
            .collect();
        serde_json::json!({
            "match": index,
            "length": self.length,
            "winner": match self.a_won { Some(true) => "A", Some(false) => "B", None => "none" },
            "score": self.score,
            "games": games,
        })
    }
}

/// The players of one seat: one per game of the rotation.
pub type Seat = Vec<(Variant, PlayerFactory<TavliPosition>)>;

/// A seat's deciders, made for one thread.
type Deciders = Vec<(Variant, Box<dyn Decide<TavliPosition>>)>;

fn make(seat: &Seat) -> Deciders {
    seat.iter().map(|(v, f)| (*v, f.make())).collect()
}

fn seat_player(seat: &mut Deciders, v: Variant) -> Option<&mut dyn Decide<TavliPosition>> {
    seat.iter_mut()
        .find(|(w, _)| *w == v)
        .map(|(_, p)| p.as_mut() as &mut dyn Decide<TavliPosition>)
}

/// Points to A of one game whose first player was A (`a_first`) or B.
fn a_points(game: &CubelessGame, a_first: bool) -> Option<(i32, Option<String>)> {
    let first_points = match &game.end {
        GameEnd::Ended { by_first, ending } => {
            let p = match ending {
                Ending::Won(GameResult::Single) => 1,
                Ending::Won(_) => 2,
                Ending::Tie => 0,
            };
            (if *by_first { p } else { -p }, None)
        }
        GameEnd::Unfinished => return None,
        GameEnd::Forfeit { first, reason } => (if *first { -2 } else { 2 }, Some(reason.clone())),
    };
    Some(if a_first {
        first_points
    } else {
        (-first_points.0, first_points.1)
    })
}

/// Plays one Tavli match to `length` points on the dice of `seed`: the games of
/// `rotation` in turn, the first game and any after a tie opened by C8, every other
/// game started by the previous game's winner, who rolls both dice. Each side values the
/// scores of a game by its chance of winning the match after it.
fn play_match(
    length: u32,
    rotation: &[Variant],
    table: &TavliMatchTable,
    seats: [&mut Deciders; 2],
    seed: u64,
) -> TavliMatchRecord {
    let [a, b] = seats;
    let mut rng = Rng::seeded(seed);
    let mut score = [0u32; 2];
    let mut games = Vec::new();
    let mut starter: Option<usize> = None;
    let mut list = TavliPlayList::new();
    let mut k = 0usize;
    while score[0] < length && score[1] < length {
        let variant = rotation[k % rotation.len()];
        let (first, dice) = match starter {
            Some(s) => (s, rng.dice()),
            None => crate::tavli::driver::opening(&mut rng),
        };
        let values = [
            table.values(length - score[0], length - score[1], k),
            table.values(length - score[1], length - score[0], k),
        ];
        let game_seed = splitmix(seed ^ splitmix(k as u64));
        let (pa, pb) = (seat_player(a, variant), seat_player(b, variant));
        let played = match (pa, pb) {
            (Some(pa), Some(pb)) => {
                pa.new_game(splitmix(game_seed ^ 1));
                pb.new_game(splitmix(game_seed ^ 2));
                let (players, values) = if first == 0 {
                    ([pa, pb], values)
                } else {
                    ([pb, pa], [values[1], values[0]])
                };
                let start = TavliPosition::start(variant);
                play_cubeless(
                    start,
                    dice,
                    &mut rng,
                    players,
                    values,
                    &mut list,
                    |_, _, _| {},
                )
            }
            (pa, _) => CubelessGame {
                end: GameEnd::Forfeit {
                    first: (first == 0) == pa.is_none(),
                    reason: format!("no player for {variant}"),
                },
                turns: 0,
            },
        };
        let result = a_points(&played, first == 0);
        let (points, forfeit) = result.clone().unwrap_or((0, None));
        games.push(TavliGameRecord {
            variant,
            a_started: first == 0,
            points,
            turns: played.turns.min(MAX_TURNS),
            score_before: score,
            unfinished: result.is_none(),
            forfeit,
        });
        if result.is_none() {
            return TavliMatchRecord {
                length,
                games,
                score,
                a_won: None,
            };
        }
        starter = match points.signum() {
            1 => {
                score[0] += points.unsigned_abs();
                Some(0)
            }
            -1 => {
                score[1] += points.unsigned_abs();
                Some(1)
            }
            _ => None,
        };
        k += 1;
    }
    TavliMatchRecord {
        length,
        games,
        score,
        a_won: Some(score[0] >= length),
    }
}

/// Plays `matches` Tavli matches between two seats on `threads` threads, in mirrored
/// pairs (match 2i and 2i + 1 share their dice, the seats swapped), calling `each` with
/// the records in match order.
pub fn play_matches(
    length: u32,
    rotation: &[Variant],
    seats: [&Seat; 2],
    matches: u64,
    seed: u64,
    threads: usize,
    each: &mut dyn FnMut(u64, &TavliMatchRecord),
) {
    let never = std::sync::atomic::AtomicBool::new(false);
    play_matches_until(
        length, rotation, seats, matches, seed, threads, &never, each,
    );
}

/// [`play_matches`] that stops early when `stop` is raised: no match starts after it,
/// and `each` sees the matches finished by then.
pub fn play_matches_until(
    length: u32,
    rotation: &[Variant],
    seats: [&Seat; 2],
    matches: u64,
    seed: u64,
    threads: usize,
    stop: &std::sync::atomic::AtomicBool,
    each: &mut dyn FnMut(u64, &TavliMatchRecord),
) {
    use std::sync::atomic::Ordering;
    let table = TavliMatchTable::new(length, rotation);
    let threads = threads.clamp(1, 64) as u64;
    let results: Vec<Vec<(u64, TavliMatchRecord)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let table = &table;
                scope.spawn(move || {
                    let (mut a, mut b) = (make(seats[0]), make(seats[1]));
                    let mut out = Vec::new();
                    let mut i = t;
                    while i < matches && !stop.load(Ordering::Relaxed) {
                        let dice = splitmix(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i / 2));
                        let r = if i % 2 == 0 {
                            play_match(length, rotation, table, [&mut a, &mut b], dice)
                        } else {
                            let mut r = play_match(length, rotation, table, [&mut b, &mut a], dice);
                            r.score.swap(0, 1);
                            r.a_won = r.a_won.map(|w| !w);
                            for g in &mut r.games {
                                g.a_started = !g.a_started;
                                g.points = -g.points;
                                g.score_before.swap(0, 1);
                            }
                            r
                        };
                        out.push((i, r));
                        i += threads;
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut all: Vec<(u64, TavliMatchRecord)> = results.into_iter().flatten().collect();
    all.sort_by_key(|(i, _)| *i);
    for (i, r) in &all {
        each(*i, r);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::arena::{duel_from, DuelConfig};
    use crate::players::tavli::factory;

    fn duel(
        variant: Variant,
        a: &str,
        b: &str,
        games: u64,
        seed: u64,
        threads: usize,
    ) -> crate::arena::DuelResult {
        duel_from(
            TavliPosition::start(variant),
            &factory(a, variant).unwrap(),
            &factory(b, variant).unwrap(),
            &DuelConfig {
                games,
                seed,
                threads,
                progress: false,
                judge: None,
            },
        )
    }

    #[test]
    fn a_raised_stop_starts_no_game() {
        let v = Variant::Portes;
        let d = crate::arena::duel_until(
            TavliPosition::start(v),
            &factory("heuristic", v).unwrap(),
            &factory("random", v).unwrap(),
            &DuelConfig {
                games: 20,
                seed: 1,
                threads: 2,
                progress: false,
                judge: None,
            },
            &std::sync::atomic::AtomicBool::new(true),
        );
        assert_eq!((d.games, d.a_wins + d.b_wins), (0, 0));
    }

    #[test]
    fn duels_finish_every_game_and_repeat_for_a_seed() {
        for variant in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            let d = duel(variant, "heuristic", "random", 20, 5, 2);
            assert_eq!(d.unfinished, 0, "{variant:?}");
            assert_eq!(d.a_wins + d.b_wins + d.ties, 20);
            // The yardstick beats random play.
            assert!(d.ppg > 0.0, "{variant:?}: {d:?}");
            let again = duel(variant, "heuristic", "random", 20, 5, 2);
            assert_eq!((again.ppg, again.a_wins), (d.ppg, d.a_wins));
            // The thread count changes nothing.
            let one = duel(variant, "heuristic", "random", 20, 5, 1);
            assert_eq!((one.ppg, one.a_wins, one.ties), (d.ppg, d.a_wins, d.ties));
        }
    }
    #[test]
    fn the_match_table_is_a_probability_and_symmetric() {
        let t = TavliMatchTable::new(7, &TAVLI_ROTATION);
        for k in 0..3 {
            assert!((t.get(7, 7, k) - 0.5).abs() < 0.02, "{}", t.get(7, 7, k));
            for x in 1..=7 {
                for y in 1..=7 {
                    let p = t.get(x, y, k);
                    assert!((0.0..=1.0).contains(&p));
                    // Needing fewer points never hurts.
                    assert!(t.get(x - 1, y, k) >= p - 1e-12);
                }
            }
        }
        // Each game's rates are a distribution.
        for v in TAVLI_ROTATION {
            let (single, double, tie) = score_rates(v);
            assert!((2.0 * (single + double) + tie - 1.0).abs() < 1e-12, "{v:?}");
        }
        // Single game: a Plakoto-only match solves its tie loop too.
        let p = TavliMatchTable::new(3, &[Variant::Plakoto]);
        assert!((p.get(3, 3, 0) - 0.5).abs() < 1e-9);
        let v = t.values(1, 5, 0);
        assert_eq!(v[0], 1.0);
        assert_eq!(v[1], 1.0);
    }

    #[test]
    fn tavli_matches_end_with_a_winner_and_rotate() {
        let seat = |spec: &str| -> Seat {
            TAVLI_ROTATION
                .iter()
                .map(|&v| (v, factory(spec, v).unwrap()))
                .collect()
        };
        let (a, b) = (seat("heuristic"), seat("random"));
        let mut records = Vec::new();
        play_matches(5, &TAVLI_ROTATION, [&a, &b], 6, 9, 2, &mut |i, r| {
            records.push((i, r.clone()))
        });
        assert_eq!(records.len(), 6);
        for (i, r) in &records {
            assert!(r.a_won.is_some(), "match {i}");
            assert!(r.score[0] >= 5 || r.score[1] >= 5);
            for (g, game) in r.games.iter().enumerate() {
                assert_eq!(game.variant, TAVLI_ROTATION[g % 3]);
                assert!(game.points.unsigned_abs() <= 2);
                // The winner of a game starts the next one.
                if let Some(next) = r.games.get(g + 1) {
                    if game.points != 0 {
                        assert_eq!(next.a_started, game.points > 0);
                    }
                }
            }
            let a_points: i32 = r
                .games
                .iter()
                .filter(|g| g.points > 0)
                .map(|g| g.points)
                .sum();
            assert_eq!(a_points as u32, r.score[0]);
        }
        // Mirrored pairs: the same dice, seats swapped.
        assert_eq!(records[0].1.games[0].variant, Variant::Portes);
    }

    #[test]
    fn a_player_against_itself_scores_zero_on_mirrored_dice() {
        let d = duel(Variant::Fevga, "heuristic", "heuristic", 10, 3, 2);
        assert_eq!(d.ppg, 0.0);
    }
}
