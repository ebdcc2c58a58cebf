//! Duels in the Tavli games: seeded games of one variant between two players with
//! mirrored dice (each pair of games is played on one dice sequence, A starting the first
//! game and B the second), scored as Tavli scores them (1 or 2 points, 0 for a Plakoto
//! tie, no triples).

use std::time::Instant;

use crate::game::{splitmix, Rng};
use crate::players::tavli::{TavliPlayer, TavliSpec};
use crate::tavli::position::{TavliPosition, TavliResult};
use crate::tavli::{generate_plays, RuleSwitches, TavliPlayList, Variant};

/// A game longer than this many turns is stopped and reported (the rules end every game;
/// the guard keeps a defect from hanging a duel).
pub const MAX_TURNS: u32 = 5_000;

/// The figures of a duel, from A's view.
#[derive(Debug, Clone, PartialEq)]
pub struct TavliDuel {
    pub variant: Variant,
    pub a: String,
    pub b: String,
    pub games: u64,
    pub pairs: u64,
    pub ppg: f64,
    pub ci95: f64,
    pub a_wins: u64,
    pub b_wins: u64,
    pub ties: u64,
    /// Games won with 2 points (gammons; in Plakoto mother wins too).
    pub doubles_a: u64,
    pub doubles_b: u64,
    /// Games stopped at [`MAX_TURNS`] (0 unless a rule is broken); they count 0 points.
    pub unfinished: u64,
    /// Games an engine of A (B) forfeited (counted as lost by [`FORFEIT_POINTS`]), and
    /// why the first of them was.
    pub forfeits_a: u64,
    pub forfeits_b: u64,
    pub first_forfeit: Option<String>,
    pub seconds: f64,
}

impl TavliDuel {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "variant": self.variant.name(),
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "pairs": self.pairs,
            "ppg": self.ppg,
            "ci95": self.ci95,
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "ties": self.ties,
            "doubles_a": self.doubles_a,
            "doubles_b": self.doubles_b,
            "unfinished": self.unfinished,
            "forfeits": {"a": self.forfeits_a, "b": self.forfeits_b},
            "first_forfeit": self.first_forfeit,
            "seconds": self.seconds,
        })
    }
}

/// Points a side that forfeits a game loses (a double game: an engine that answers with
/// no legal play, or not at all, loses the most a game can cost).
pub const FORFEIT_POINTS: i32 = 2;

/// How one game of a duel ended, from the first player's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameOutcome {
    /// Points of the first player (negative when it lost; 0 a Plakoto tie).
    Points(i32),
    /// Stopped at [`MAX_TURNS`].
    Unfinished,
    /// A player's engine failed or answered with no legal play: it loses
    /// [`FORFEIT_POINTS`]. `first`: whether it was the first player.
    Forfeit { first: bool, reason: String },
}

/// Plays one game on the dice of `seed`: `first` moves first (the opening roll of C8
/// decides only the first roll, which may be a double).
pub fn play_game(
    variant: Variant,
    rules: &RuleSwitches,
    players: [&mut TavliPlayer; 2],
    seed: u64,
) -> GameOutcome {
    let [first, second] = players;
    let mut rng = Rng::seeded(seed);
    let (_, mut dice) = crate::tavli::driver::opening(&mut rng);
    let mut pos = TavliPosition::start(variant);
    let mut list = TavliPlayList::new();
    for turn in 0..MAX_TURNS {
        let side = (turn % 2) as usize;
        generate_plays(&pos, dice, rules, &mut list);
        let plays = list.as_slice();
        if !plays.is_empty() {
            let player = if side == 0 { &mut *first } else { &mut *second };
            let k = match player.decide(&pos, dice, plays) {
                Ok(k) => k,
                Err(reason) => {
                    return GameOutcome::Forfeit {
                        first: side == 0,
                        reason,
                    }
                }
            };
            let play = plays[k.min(plays.len() - 1)];
            if let Some(done) = play.after.result() {
                let points = match done {
                    TavliResult::Tie => 0,
                    o => o.mover_points(),
                };
                return GameOutcome::Points(if side == 0 { points } else { -points });
            }
            pos = play.next_position();
        } else {
            // No legal play: the turn passes.
            pos = pos.swap();
        }
        dice = rng.dice();
    }
    GameOutcome::Unfinished
}

/// Plays `games` (an even number) games of `variant` between `a` and `b`.
pub fn duel(
    variant: Variant,
    a: &TavliSpec,
    b: &TavliSpec,
    games: u64,
    seed: u64,
    threads: usize,
) -> Result<TavliDuel, String> {
    let pa = TavliPlayer::build(a, variant, splitmix(seed ^ 0xa))?;
    let pb = TavliPlayer::build(b, variant, splitmix(seed ^ 0xb))?;
    Ok(duel_players_on(
        variant,
        [(a.to_string(), pa), (b.to_string(), pb)],
        games,
        seed,
        threads,
    ))
}

/// [`duel`] between players already built (named for the report), on one thread.
pub fn duel_players(
    variant: Variant,
    players: [(String, TavliPlayer); 2],
    games: u64,
    seed: u64,
) -> TavliDuel {
    duel_players_on(variant, players, games, seed, 1)
}

/// The two games of mirrored pair `pair`, each from A's view (A first in the first game,
/// B first in the second).
fn play_pair(
    variant: Variant,
    rules: &RuleSwitches,
    pa: &mut TavliPlayer,
    pb: &mut TavliPlayer,
    seed: u64,
    pair: u64,
) -> [GameOutcome; 2] {
    let dice_seed = splitmix(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ pair);
    // A random player draws from a stream of the pair's own, whatever thread plays it.
    pa.reseed(splitmix(dice_seed ^ 0xa));
    pb.reseed(splitmix(dice_seed ^ 0xb));
    let second = match play_game(variant, rules, [&mut *pb, &mut *pa], dice_seed) {
        GameOutcome::Points(p) => GameOutcome::Points(-p),
        GameOutcome::Forfeit { first, reason } => GameOutcome::Forfeit {
            first: !first,
            reason,
        },
        GameOutcome::Unfinished => GameOutcome::Unfinished,
    };
    [
        play_game(variant, rules, [&mut *pa, &mut *pb], dice_seed),
        second,
    ]
}

/// [`duel_players`] with the pairs shared out over `threads` threads (each with its own
/// copies of the players); the figures do not depend on the thread count.
pub fn duel_players_on(
    variant: Variant,
    players: [(String, TavliPlayer); 2],
    games: u64,
    seed: u64,
    threads: usize,
) -> TavliDuel {
    let rules = RuleSwitches::default();
    let started = Instant::now();
    let [(name_a, pa), (name_b, pb)] = players;
    let pairs = games / 2;
    let threads = threads.clamp(1, 256) as u64;
    let mut results: Vec<(u64, [GameOutcome; 2])> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (mut a, mut b) = (pa.clone(), pb.clone());
                let rules = &rules;
                scope.spawn(move || {
                    let mut out = Vec::new();
                    let mut pair = t;
                    while pair < pairs {
                        out.push((pair, play_pair(variant, rules, &mut a, &mut b, seed, pair)));
                        pair += threads;
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().ok())
            .flatten()
            .collect()
    });
    results.sort_by_key(|(pair, _)| *pair);
    let mut r = TavliDuel {
        variant,
        a: name_a,
        b: name_b,
        games: pairs * 2,
        pairs,
        ppg: 0.0,
        ci95: f64::NAN,
        a_wins: 0,
        b_wins: 0,
        ties: 0,
        doubles_a: 0,
        doubles_b: 0,
        unfinished: 0,
        forfeits_a: 0,
        forfeits_b: 0,
        first_forfeit: None,
        seconds: 0.0,
    };
    let mut pair_means = Vec::with_capacity(pairs as usize);
    for (_, games) in &results {
        let mut sum = 0i32;
        for result in games {
            let points = match result {
                GameOutcome::Points(p) => *p,
                GameOutcome::Unfinished => {
                    r.unfinished += 1;
                    continue;
                }
                // `first` is from A's view here: whether A forfeited.
                GameOutcome::Forfeit { first, reason } => {
                    if *first {
                        r.forfeits_a += 1;
                    } else {
                        r.forfeits_b += 1;
                    }
                    r.first_forfeit.get_or_insert_with(|| reason.clone());
                    if *first {
                        -FORFEIT_POINTS
                    } else {
                        FORFEIT_POINTS
                    }
                }
            };
            sum += points;
            match points {
                0 => r.ties += 1,
                p if p > 0 => {
                    r.a_wins += 1;
                    r.doubles_a += u64::from(p >= 2);
                }
                p => {
                    r.b_wins += 1;
                    r.doubles_b += u64::from(p <= -2);
                }
            }
        }
        pair_means.push(f64::from(sum) / 2.0);
    }
    let (mean, ci) = super::stats::mean_ci95(&pair_means);
    r.ppg = mean;
    r.ci95 = ci;
    r.seconds = started.elapsed().as_secs_f64();
    r
}

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
    /// Why the loser's engine forfeited the game (it loses [`FORFEIT_POINTS`]).
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
pub type Seat = Vec<(Variant, TavliPlayer)>;

fn seat_player(seat: &mut Seat, v: Variant) -> Option<&mut TavliPlayer> {
    seat.iter_mut().find(|(w, _)| *w == v).map(|(_, p)| p)
}

/// Plays one Tavli match to `length` points on the dice of `seed`: the games of
/// `rotation` in turn, the first game and any after a tie opened by C8, every other
/// game started by the previous game's winner, who rolls both dice. Net players
/// value each play by the chance of winning the match.
pub fn play_match(
    length: u32,
    rotation: &[Variant],
    table: &TavliMatchTable,
    seats: [&mut Seat; 2],
    seed: u64,
) -> TavliMatchRecord {
    let rules = RuleSwitches::default();
    let [a, b] = seats;
    let mut rng = Rng::seeded(seed);
    let mut score = [0u32; 2];
    let mut games = Vec::new();
    let mut starter: Option<usize> = None;
    let mut list = TavliPlayList::new();
    let mut k = 0usize;
    while score[0] < length && score[1] < length {
        let variant = rotation[k % rotation.len()];
        let (first, mut dice) = match starter {
            Some(s) => (s, rng.dice()),
            None => crate::tavli::driver::opening(&mut rng),
        };
        let mut pos = TavliPosition::start(variant);
        let mut side = first;
        let mut result: Option<i32> = None;
        let mut forfeit = None;
        let mut turns = 0;
        while turns < MAX_TURNS {
            turns += 1;
            generate_plays(&pos, dice, &rules, &mut list);
            let plays = list.as_slice();
            if plays.is_empty() {
                break;
            }
            let seat: &mut Seat = if side == 0 { &mut *a } else { &mut *b };
            let decided = match seat_player(seat, variant) {
                Some(p) => {
                    let need_me = length - score[side];
                    let need_them = length - score[1 - side];
                    p.set_values(table.values(need_me, need_them, k));
                    p.decide(&pos, dice, plays)
                }
                None => Err(format!("no player for {variant}")),
            };
            let index = match decided {
                Ok(i) => i,
                Err(reason) => {
                    forfeit = Some(reason);
                    result = Some(if side == 0 {
                        -FORFEIT_POINTS
                    } else {
                        FORFEIT_POINTS
                    });
                    break;
                }
            };
            let play = plays[index.min(plays.len() - 1)];
            if let Some(done) = play.after.result() {
                let pts = match done {
                    TavliResult::Tie => 0,
                    o => o.mover_points(),
                };
                result = Some(if side == 0 { pts } else { -pts });
                break;
            }
            pos = play.next_position();
            side = 1 - side;
            dice = rng.dice();
        }
        let points = result.unwrap_or(0);
        games.push(TavliGameRecord {
            variant,
            a_started: first == 0,
            points,
            turns,
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
    let table = TavliMatchTable::new(length, rotation);
    let threads = threads.clamp(1, 64) as u64;
    let results: Vec<Vec<(u64, TavliMatchRecord)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (mut a, mut b) = (seats[0].clone(), seats[1].clone());
                let table = &table;
                scope.spawn(move || {
                    let mut out = Vec::new();
                    let mut i = t;
                    while i < matches {
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

    #[test]
    fn duels_finish_every_game_and_repeat_for_a_seed() {
        for variant in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            let d = duel(variant, &TavliSpec::Heuristic, &TavliSpec::Random, 20, 5, 2).unwrap();
            assert_eq!(d.unfinished, 0, "{variant:?}");
            assert_eq!(d.a_wins + d.b_wins + d.ties, 20);
            // The yardstick beats random play.
            assert!(d.ppg > 0.0, "{variant:?}: {d:?}");
            let again = duel(variant, &TavliSpec::Heuristic, &TavliSpec::Random, 20, 5, 2).unwrap();
            assert_eq!((again.ppg, again.a_wins), (d.ppg, d.a_wins));
            // The thread count changes nothing.
            let one = duel(variant, &TavliSpec::Heuristic, &TavliSpec::Random, 20, 5, 1).unwrap();
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
        let seat = |spec: TavliSpec| -> Seat {
            TAVLI_ROTATION
                .iter()
                .map(|&v| (v, TavliPlayer::build(&spec, v, 1).unwrap()))
                .collect()
        };
        let (a, b) = (seat(TavliSpec::Heuristic), seat(TavliSpec::Random));
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
        let d = duel(
            Variant::Fevga,
            &TavliSpec::Heuristic,
            &TavliSpec::Heuristic,
            10,
            3,
            2,
        )
        .unwrap();
        assert_eq!(d.ppg, 0.0);
    }
}
