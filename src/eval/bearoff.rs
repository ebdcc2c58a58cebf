//! The one-sided bear-off database: exact results once both sides are in their home boards.
//!
//! For every distribution of up to 15 checkers on the six home points (54,264 of them,
//! the empty one included) it holds the probability distribution of the number of rolls
//! needed to bear off every checker, when each roll is played to minimise the expected
//! number of rolls. For the 15,504 positions with all 15 checkers still on the board it
//! also holds the distribution of the number of rolls to bear off the *first* checker
//! (each roll then played to minimise the expected rolls to that first checker), which is
//! what gammon chances need.
//!
//! Once no checker can meet another and both sides stand in their home boards, the two
//! sides' races are independent, so the win and gammon probabilities follow from the two
//! one-sided distributions exactly (for these playing rules: each side minimises its
//! expected rolls, and a side that has borne off nothing plays for its first checker only
//! in the gammon figures). Backgammons are impossible there: the loser's checkers are all
//! in its own home board.
//!
//! The table is computed at first use ([`database`]) by a dynamic programme over the
//! moves of one die ([`BearoffDb::generate`]); a unit test checks that it is, bit for
//! bit, the table the plays of [`crate::game::generate_plays`] give. That takes 0.07-0.1 s
//! in a release build and the result holds 3.7 MB, so it is not shipped as a file
//! (ARCHITECTURE.md, "Decisions and why", says why); docs/BENCHMARKS.md ("Evaluator
//! speed") has the measured figures. Distributions
//! are stored as `f32` over their non-zero range only ([`BearoffDb::memory_bytes`]).

use std::sync::OnceLock;

use super::Probabilities;
use crate::game::{Dice, Position, ALL_ROLLS, CHECKERS};

/// Home-board points per side.
pub const POINTS: usize = 6;
/// Checkers a side can have in the database.
pub const MAX_CHECKERS: usize = CHECKERS as usize;
/// Positions of up to 15 checkers on six points: C(21, 6), the empty one included.
pub const POSITIONS: usize = binomial(MAX_CHECKERS + POINTS, POINTS);
/// Positions of exactly 15 checkers on six points: C(20, 5).
pub const FULL_POSITIONS: usize = binomial(MAX_CHECKERS + POINTS - 1, POINTS - 1);
/// The rank of the first 15-checker position: ranks order positions by checker count
/// first, so those of exactly 15 checkers are the last [`FULL_POSITIONS`].
const FIRST_FULL: usize = POSITIONS - FULL_POSITIONS;
/// Length of a distribution over the number of rolls, 0 to `ROLLS - 1`. No position
/// needs more than 30 rolls with a non-zero probability ([`BearoffDb::max_rolls`]: 15
/// checkers on the 6-point, rolling 2-1 every time); the unit tests check that nothing is
/// lost to the truncation.
pub const ROLLS: usize = 32;

/// Checker counts on a side's own home points: index 0 is the 1-point (the one nearest
/// to bearing off), index 5 the 6-point. At most 15 checkers in all.
pub type Board = [u8; POINTS];

const fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    let mut r = 1;
    let mut i = 0;
    while i < k {
        r = r * (n - i) / (i + 1);
        i += 1;
    }
    r
}

/// `C(n, k)` for the ranks: n up to 21, k up to 6.
const BINOMIALS: [[u32; POINTS + 1]; MAX_CHECKERS + POINTS + 1] = {
    let mut t = [[0u32; POINTS + 1]; MAX_CHECKERS + POINTS + 1];
    let mut n = 0;
    while n <= MAX_CHECKERS + POINTS {
        let mut k = 0;
        while k <= POINTS {
            t[n][k] = binomial(n, k) as u32;
            k += 1;
        }
        n += 1;
    }
    t
};

/// The position's index in `0..POSITIONS`, a bijection on boards of at most 15 checkers.
///
/// Write the checkers from the 6-point down to the 1-point, closing each point with a
/// separator, then the borne-off checkers: 21 places holding 6 separators. The rank is
/// the colexicographic rank of the separators' places, sum of C(place_i, i). Moving a
/// checker down or bearing it off moves some separators to lower places and none up, so
/// every successor of a position has a lower rank, and positions of fewer checkers come
/// first (the last separator's place is the checker count plus 5).
#[inline]
pub fn rank(board: &Board) -> usize {
    let mut rank = 0u32;
    let mut place = 0usize;
    for i in 1..=POINTS {
        place += board[POINTS - i] as usize;
        rank += BINOMIALS[place + i - 1][i];
    }
    rank as usize
}

/// Every board, indexed by its rank.
fn boards_by_rank() -> Vec<Board> {
    let mut out = vec![[0u8; POINTS]; POSITIONS];
    let mut board = [0u8; POINTS];
    fill(&mut board, 0, MAX_CHECKERS, &mut out);
    out
}

fn fill(board: &mut Board, point: usize, left: usize, out: &mut [Board]) {
    if point == POINTS {
        out[rank(board)] = *board;
        return;
    }
    for n in 0..=left {
        board[point] = n as u8;
        fill(board, point + 1, left - n, out);
    }
    board[point] = 0;
}

/// Checkers on a board.
#[inline]
pub fn checkers(board: &Board) -> u32 {
    board.iter().map(|&c| c as u32).sum()
}

/// Both sides' home boards when each side's checkers are all on its own points 1-6 or
/// borne off (no checker on a bar or further out): (side to act, opponent). `None`
/// otherwise.
#[inline]
pub fn home_boards(pos: &Position) -> Option<(Board, Board)> {
    // Cheap for the contact positions a search sees most: both scans stop at the first
    // checker from the far end.
    if pos.highest() > POINTS || pos.opp_rearmost() < 25 - POINTS {
        return None;
    }
    let s = pos.slots();
    let mut me = [0u8; POINTS];
    let mut opp = [0u8; POINTS];
    for i in 0..POINTS {
        me[i] = s[i + 1].max(0) as u8;
        // The opponent's point i+1 is the mover's point 24 - i.
        opp[i] = s[24 - i].min(0).unsigned_abs();
    }
    Some((me, opp))
}

/// The exact probabilities for the side to act when both sides are in their home boards
/// (see [`home_boards`]), from the database; `None` for every other position. Builds the
/// database on first use.
#[inline]
pub fn exact(pos: &Position) -> Option<Probabilities> {
    let (me, opp) = home_boards(pos)?;
    Some(database().probabilities(&me, &opp))
}

static DATABASE: OnceLock<BearoffDb> = OnceLock::new();

/// The database, computed on the first call (0.07-0.1 s in a release build; concurrent
/// first callers wait for one computation).
pub fn database() -> &'static BearoffDb {
    DATABASE.get_or_init(BearoffDb::generate)
}

/// Where one distribution lies in the shared array, and its mean.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    offset: u32,
    mean: f32,
    /// Rolls of the first stored probability; probabilities outside
    /// `start..start + len` are zero.
    start: u8,
    len: u8,
}

/// One distribution of the number of rolls, borrowed from the database.
#[derive(Debug, Clone, Copy)]
pub struct Distribution<'a> {
    start: usize,
    probs: &'a [f32],
    mean: f32,
}

impl Distribution<'_> {
    /// P(exactly `rolls` rolls).
    pub fn p(&self, rolls: usize) -> f32 {
        rolls
            .checked_sub(self.start)
            .and_then(|i| self.probs.get(i))
            .copied()
            .unwrap_or(0.0)
    }

    /// The expected number of rolls (computed in double precision before storing).
    pub fn mean(&self) -> f32 {
        self.mean
    }

    /// The fewest and the most rolls with a non-zero probability.
    pub fn range(&self) -> (usize, usize) {
        (self.start, self.start + self.probs.len().saturating_sub(1))
    }

    /// P(n rolls) for n in `0..ROLLS`.
    pub fn dense(&self) -> [f64; ROLLS] {
        let mut out = [0.0; ROLLS];
        for (i, &p) in self.probs.iter().enumerate() {
            out[self.start + i] = p as f64;
        }
        out
    }
}

/// The one-sided bear-off database (module docs). Memory: an entry of 12 bytes per
/// distribution (54,264 + 15,504 of them: 0.84 MB) plus 4 bytes per stored probability
/// (716,816 of them, 10.3 per distribution: 2.87 MB), 3.7 MB in all
/// ([`BearoffDb::memory_bytes`]); all 32 probabilities of every distribution would take
/// 8.9 MB. Computing it needs about 20 MB more for a moment (double-precision work arrays).
#[derive(Debug, Clone)]
pub struct BearoffDb {
    /// Rolls to bear off every checker, by rank.
    all: Vec<Entry>,
    /// Rolls to bear off the first checker, by rank minus `FIRST_FULL`.
    first: Vec<Entry>,
    probs: Vec<f32>,
}

/// `acc[n + 1] += w * d[n]`: one more roll before the distribution `d`.
#[inline]
fn add_shifted(acc: &mut [f64; ROLLS], d: &[f64; ROLLS], w: f64) {
    for n in 0..ROLLS - 1 {
        acc[n + 1] += w * d[n];
    }
}

impl BearoffDb {
    /// Computes the whole database: positions in rank order, so that every successor is
    /// done before the positions that lead to it; for each roll the play whose successor
    /// has the fewest expected rolls.
    ///
    /// The best play is found by dynamic programming over the moves of one die
    /// (`BestEnds`), not by generating every play: in a home board no checker blocks
    /// another and a checker can always move, so the best end of k moves of a die from a
    /// board is the best, over that die's single moves, of the best end of k - 1 moves
    /// from there. The unit tests check that this is the database the move generator's
    /// plays give, bit for bit.
    pub fn generate() -> BearoffDb {
        let mut best = BestEnds::new();
        Self::generate_with(|r, dice, all_mean, first_mean| {
            best.choose(r, dice, all_mean, first_mean)
        })
    }

    /// [`BearoffDb::generate`] with each position's best plays found by `choose(r, dice,
    /// all_mean, first_mean)`: the rank of the best successor of the position of rank `r`
    /// under `dice` (the fewest expected rolls, `all_mean`, over the ranks below `r`) and,
    /// for a position of 15 checkers, that of its best successor for the first checker off
    /// (`first_mean` by rank minus [`FIRST_FULL`]; a position of fewer checkers counts 0).
    fn generate_with(
        mut choose: impl FnMut(usize, Dice, &[f64], &[f64]) -> (usize, usize),
    ) -> BearoffDb {
        let mut all = vec![[0.0f64; ROLLS]; POSITIONS];
        let mut all_mean = vec![0.0f64; POSITIONS];
        let mut first = vec![[0.0f64; ROLLS]; FULL_POSITIONS];
        let mut first_mean = vec![0.0f64; FULL_POSITIONS];
        all[0][0] = 1.0;
        for r in 1..POSITIONS {
            let full = r >= FIRST_FULL;
            let mut dist = [0.0f64; ROLLS];
            let mut mean = 1.0;
            let mut fdist = [0.0f64; ROLLS];
            let mut fmean = 1.0;
            for dice in ALL_ROLLS {
                let w = dice.probability();
                let (best, fbest) = choose(r, dice, &all_mean[..r], &first_mean);
                debug_assert!(best < r, "a play must lower the rank");
                mean += w * all_mean[best];
                add_shifted(&mut dist, &all[best], w);
                if full {
                    match fbest.checked_sub(FIRST_FULL) {
                        Some(i) => {
                            fmean += w * first_mean[i];
                            add_shifted(&mut fdist, &first[i], w);
                        }
                        None => fdist[1] += w,
                    }
                }
            }
            all[r] = dist;
            all_mean[r] = mean;
            if full {
                first[r - FIRST_FULL] = fdist;
                first_mean[r - FIRST_FULL] = fmean;
            }
        }
        let mut probs = Vec::new();
        let all = all
            .iter()
            .zip(&all_mean)
            .map(|(d, &m)| pack(d, m, &mut probs))
            .collect();
        let first = first
            .iter()
            .zip(&first_mean)
            .map(|(d, &m)| pack(d, m, &mut probs))
            .collect();
        BearoffDb { all, first, probs }
    }

    fn view(&self, e: Entry) -> Distribution<'_> {
        let from = e.offset as usize;
        Distribution {
            start: e.start as usize,
            probs: &self.probs[from..from + e.len as usize],
            mean: e.mean,
        }
    }

    /// Rolls to bear off every checker of `board` (at most 15 checkers: more panics).
    pub fn all_off(&self, board: &Board) -> Distribution<'_> {
        self.view(self.all[rank(board)])
    }

    /// Rolls to bear off the first checker, for a board holding all 15 checkers.
    pub fn first_off(&self, board: &Board) -> Option<Distribution<'_>> {
        if checkers(board) != MAX_CHECKERS as u32 {
            return None;
        }
        rank(board)
            .checked_sub(FIRST_FULL)
            .map(|i| self.view(self.first[i]))
    }

    /// The probabilities of the side to act with home board `me`, before it rolls,
    /// against `opp`. Each side's n-th roll comes after the side to act's n-th roll, so
    /// the side to act wins when it needs no more rolls than the opponent:
    /// P(win) = sum over n of P_me(n) * P(opp needs at least n rolls); a gammon when
    /// the opponent has not borne off its first checker by then.
    pub fn probabilities(&self, me: &Board, opp: &Board) -> Probabilities {
        let a = self.all_off(me).dense();
        let b = self.all_off(opp).dense();
        let win = before(&a, &b, 0);
        let win_gammon = self
            .first_off(opp)
            .map_or(0.0, |f| before(&a, &f.dense(), 0));
        // The opponent's n-th roll comes after ours: it wins a gammon when our first
        // checker needs more than n rolls.
        let lose_gammon = self
            .first_off(me)
            .map_or(0.0, |f| before(&b, &f.dense(), 1));
        let w = win.clamp(0.0, 1.0) as f32;
        // Each gammon chance is part of that side's wins; clamping keeps rounding (and the
        // different play for the first checker) from breaking that.
        let wg = (win_gammon as f32).clamp(0.0, w);
        let lg = (lose_gammon as f32).clamp(0.0, 1.0 - w);
        Probabilities([w, wg, 0.0, lg, 0.0])
    }

    /// The most rolls any position needs (all-off or first-off), with probability > 0.
    pub fn max_rolls(&self) -> usize {
        self.all
            .iter()
            .chain(&self.first)
            .map(|e| (e.start as usize + e.len as usize).saturating_sub(1))
            .max()
            .unwrap_or(0)
    }

    /// Bytes the database holds in memory.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<BearoffDb>()
            + (self.all.len() + self.first.len()) * std::mem::size_of::<Entry>()
            + self.probs.len() * std::mem::size_of::<f32>()
    }
}

/// sum over n of a(n) * P(B >= n + shift), B distributed as `b`.
fn before(a: &[f64; ROLLS], b: &[f64; ROLLS], shift: usize) -> f64 {
    // at_least[k] = P(B >= k), summed from the tail so that small tails keep their
    // precision.
    let mut at_least = [0.0f64; ROLLS + 1];
    for k in (0..ROLLS).rev() {
        at_least[k] = at_least[k + 1] + b[k];
    }
    let sum: f64 = a
        .iter()
        .enumerate()
        .map(|(n, &p)| p * at_least[(n + shift).min(ROLLS)])
        .sum();
    // The stored f32 probabilities sum to 1 only up to rounding; dividing by both sums
    // keeps a certain result exactly 0 or 1.
    let mass = a.iter().sum::<f64>() * at_least[0];
    if mass > 0.0 {
        sum / mass
    } else {
        0.0
    }
}

/// Stores the non-zero range of `d` at the end of `probs`.
fn pack(d: &[f64; ROLLS], mean: f64, probs: &mut Vec<f32>) -> Entry {
    let nonzero = |p: &f64| (*p as f32) > 0.0;
    let start = d.iter().position(nonzero).unwrap_or(0);
    let end = d.iter().rposition(nonzero).map_or(start, |e| e + 1);
    let offset = probs.len() as u32;
    probs.extend(d[start..end].iter().map(|&p| p as f32));
    Entry {
        offset,
        mean: mean as f32,
        start: start as u8,
        len: (end - start) as u8,
    }
}

/// A board packed four bits per point (the 1-point in the lowest bits): a move is one
/// subtraction and one addition.
type Packed = u32;

#[inline(always)]
fn pack_board(board: &Board) -> Packed {
    board
        .iter()
        .enumerate()
        .fold(0, |acc, (i, &n)| acc | (n as Packed) << (4 * i))
}

/// [`rank`] of packed boards by two table reads: the terms of the top three points
/// depend on their counts alone, those of the bottom three on theirs and the top three's
/// total.
struct PackedRanks {
    /// Indexed by the top three points' counts (bits 12..24): their terms, and their
    /// total in the high byte.
    high: Vec<u32>,
    /// Indexed by that total (bits 12..16) and the bottom three points' counts.
    low: Vec<u32>,
}

impl PackedRanks {
    fn new() -> PackedRanks {
        let binomial = |n: usize, k: usize| BINOMIALS.get(n).map_or(0, |row| row[k]);
        let nibbles = |x: usize| [(x >> 8) & 15, (x >> 4) & 15, x & 15];
        let high = (0..1usize << 12)
            .map(|x| {
                let (mut place, mut terms) = (0, 0);
                for (i, n) in nibbles(x).into_iter().enumerate() {
                    place += n;
                    terms += binomial(place + i, i + 1);
                }
                terms | (place.min(255) as u32) << 24
            })
            .collect();
        let low = (0..1usize << 16)
            .map(|x| {
                let (mut place, mut terms) = (x >> 12, 0);
                for (i, n) in nibbles(x & 0xFFF).into_iter().enumerate() {
                    place += n;
                    terms += binomial(place + i + 3, i + 4);
                }
                terms
            })
            .collect();
        PackedRanks { high, low }
    }

    /// The rank of a packed board of at most 15 checkers.
    #[inline(always)]
    fn rank(&self, b: Packed) -> usize {
        let h = self.high[(b >> 12) as usize & 0xFFF];
        let top = (h >> 24).min(15);
        ((h & 0xFF_FFFF) + self.low[(top << 12 | (b & 0xFFF)) as usize]) as usize
    }
}

/// The boards one checker can reach from `b` with a die of `d` pips, with no other
/// checker on the board: from point p to p - d, off from point d, and off from a point
/// below d when no checker stands higher. A board with a checker always has one.
/// `visit` gets each new board, sources from the highest point down.
#[inline(always)]
fn single_moves(b: Packed, d: usize, mut visit: impl FnMut(Packed)) {
    if b == 0 {
        return;
    }
    let highest = (31 - b.leading_zeros() as usize) / 4;
    for i in (0..=highest).rev() {
        if (b >> (4 * i)) & 15 == 0 {
            continue;
        }
        let p = i + 1;
        if p < d && i != highest {
            break;
        }
        let off = b - (1 << (4 * i));
        visit(if p > d {
            off + (1 << (4 * (i - d)))
        } else {
            off
        });
    }
}

/// Moves of one die in a row: the most a roll plays (four of a double).
const CHAIN: usize = 4;

/// The dynamic programme of [`BearoffDb::generate`]: for every position done so far and
/// every die, the end (a rank) of the best 1, 2 and 3 moves of that die in a row, for
/// bearing off every checker and, from 15 checkers, the first one. An empty board (or,
/// for the first checker, a board of fewer than 15) ends every chain that reaches it:
/// the roll's other moves cannot be played or do not count.
struct BestEnds {
    boards: Vec<Board>,
    ranks: PackedRanks,
    /// `all[r][k][d - 1]`: the best end of k + 1 moves of d from rank r.
    all: Vec<[[u16; 6]; CHAIN - 1]>,
    /// The same for the first checker off, by rank minus [`FIRST_FULL`].
    first: Vec<[[u16; 6]; CHAIN - 1]>,
    /// The single moves per die (ranks, in `single_moves`'s order) of position
    /// `filled` (0: none yet).
    moves: [[u16; POINTS]; 6],
    counts: [usize; 6],
    filled: usize,
}

impl BestEnds {
    fn new() -> BestEnds {
        BestEnds {
            boards: boards_by_rank(),
            ranks: PackedRanks::new(),
            all: vec![[[0; 6]; CHAIN - 1]; POSITIONS],
            first: vec![[[0; 6]; CHAIN - 1]; FULL_POSITIONS],
            moves: [[0; POINTS]; 6],
            counts: [0; 6],
            filled: 0,
        }
    }

    /// The first of `ends` with the least `value` (0 when there is none).
    fn argmin(ends: impl Iterator<Item = usize>, value: impl Fn(usize) -> f64) -> usize {
        let (mut best, mut least) = (0, f64::INFINITY);
        for e in ends {
            let v = value(e);
            if v < least {
                least = v;
                best = e;
            }
        }
        best
    }

    /// The best end of `k` more moves of `d` from rank `next` (done): `next` itself when
    /// `k` is 0 or the board is empty.
    #[inline]
    fn after(&self, next: usize, k: usize, d: usize) -> usize {
        if k == 0 || next == 0 {
            next
        } else {
            self.all[next][k - 1][d - 1] as usize
        }
    }

    /// [`BestEnds::after`] for the first checker off: a board of fewer than 15 checkers
    /// ends the chain.
    #[inline]
    fn first_after(&self, next: usize, k: usize, d: usize) -> usize {
        match next.checked_sub(FIRST_FULL) {
            Some(i) if k > 0 => self.first[i][k - 1][d - 1] as usize,
            _ => next,
        }
    }

    /// The expected rolls to the first checker off from rank `e`: 0 once it is off.
    #[inline]
    fn first_value(first_mean: &[f64], e: usize) -> f64 {
        e.checked_sub(FIRST_FULL).map_or(0.0, |i| first_mean[i])
    }

    /// `generate_with`'s `choose`. Positions come in rank order; the first call for a
    /// position fills its single moves and tables from its successors'.
    fn choose(
        &mut self,
        r: usize,
        dice: Dice,
        all_mean: &[f64],
        first_mean: &[f64],
    ) -> (usize, usize) {
        if self.filled != r {
            self.fill(r, all_mean, first_mean);
        }
        let (hi, lo) = (dice.high() as usize, dice.low() as usize);
        // (first die, second die, moves of the second after the first)
        let chains: &[(usize, usize, usize)] = if hi == lo {
            &[(hi, hi, CHAIN - 1)]
        } else {
            &[(hi, lo, 1), (lo, hi, 1)]
        };
        let firsts = || {
            chains.iter().flat_map(|&(x, y, k)| {
                self.moves[x - 1][..self.counts[x - 1]]
                    .iter()
                    .map(move |&next| (next as usize, k, y))
            })
        };
        let best = Self::argmin(firsts().map(|(next, k, y)| self.after(next, k, y)), |e| {
            all_mean[e]
        });
        let fbest = if r >= FIRST_FULL {
            Self::argmin(
                firsts().map(|(next, k, y)| self.first_after(next, k, y)),
                |e| Self::first_value(first_mean, e),
            )
        } else {
            0
        };
        (best, fbest)
    }

    /// Position `r`'s single moves and its tables.
    fn fill(&mut self, r: usize, all_mean: &[f64], first_mean: &[f64]) {
        let b = pack_board(&self.boards[r]);
        for d in 1..=6 {
            let (moves, count) = (&mut self.moves[d - 1], &mut self.counts[d - 1]);
            *count = 0;
            let ranks = &self.ranks;
            single_moves(b, d, |next| {
                moves[*count] = ranks.rank(next) as u16;
                *count += 1;
            });
        }
        let mut table = [[0u16; 6]; CHAIN - 1];
        let mut ftable = [[0u16; 6]; CHAIN - 1];
        for d in 1..=6 {
            let moves = &self.moves[d - 1][..self.counts[d - 1]];
            for k in 0..CHAIN - 1 {
                let ends = moves.iter().map(|&n| self.after(n as usize, k, d));
                table[k][d - 1] = Self::argmin(ends, |e| all_mean[e]) as u16;
                if r >= FIRST_FULL {
                    let ends = moves.iter().map(|&n| self.first_after(n as usize, k, d));
                    ftable[k][d - 1] =
                        Self::argmin(ends, |e| Self::first_value(first_mean, e)) as u16;
                }
            }
        }
        self.all[r] = table;
        if let Some(i) = r.checked_sub(FIRST_FULL) {
            self.first[i] = ftable;
        }
        self.filled = r;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{generate_plays, PlayList};

    /// The mover's home board of a position (checkers on its points 1-6).
    #[inline]
    fn own_board(pos: &Position) -> Board {
        let s = pos.slots();
        let mut b = [0u8; POINTS];
        for i in 0..POINTS {
            b[i] = s[i + 1].max(0) as u8;
        }
        b
    }

    /// A position holding only `board`'s checkers for the side to act; the opponent has no
    /// checker on the board, which no bear-off play can see. `board` must hold a checker.
    fn board_position(board: &Board) -> Position {
        let mut slots = [0i8; 26];
        for i in 0..POINTS {
            slots[i + 1] = board[i] as i8;
        }
        Position::from_slots(slots).expect("a board of 1 to 15 checkers is a valid position")
    }

    /// The best plays as the move generator's plays give them: the first play (in its
    /// order) whose successor has the fewest expected rolls, and the same for the first
    /// checker off.
    fn generated_choice(
        boards: &[Board],
        list: &mut PlayList,
        r: usize,
        dice: Dice,
        all_mean: &[f64],
        first_mean: &[f64],
    ) -> (usize, usize) {
        generate_plays(&board_position(&boards[r]), dice, list);
        let (mut best, mut best_mean) = (0, f64::INFINITY);
        let (mut fbest, mut fbest_mean) = (0, f64::INFINITY);
        for play in list.iter() {
            let next = rank(&own_board(&play.position));
            assert!(next < r, "a play must lower the rank");
            if all_mean[next] < best_mean {
                best_mean = all_mean[next];
                best = next;
            }
            let m = next.checked_sub(FIRST_FULL).map_or(0.0, |i| first_mean[i]);
            if m < fbest_mean {
                fbest_mean = m;
                fbest = next;
            }
        }
        (best, fbest)
    }

    #[test]
    fn database_is_the_move_generators() {
        let mut list = PlayList::new();
        let boards = boards_by_rank();
        let slow = BearoffDb::generate_with(|r, dice, all_mean, first_mean| {
            generated_choice(&boards, &mut list, r, dice, all_mean, first_mean)
        });
        let fast = database();
        assert_eq!(slow.probs, fast.probs);
        let same = |x: &[Entry], y: &[Entry]| {
            x.len() == y.len()
                && x.iter().zip(y).all(|(a, b)| {
                    (a.offset, a.mean.to_bits(), a.start, a.len)
                        == (b.offset, b.mean.to_bits(), b.start, b.len)
                })
        };
        assert!(same(&slow.all, &fast.all));
        assert!(same(&slow.first, &fast.first));
    }

    fn mean_of(probs: &[f64; ROLLS]) -> f64 {
        probs.iter().enumerate().map(|(n, p)| n as f64 * p).sum()
    }

    #[test]
    fn sizes_and_ranks() {
        assert_eq!(POSITIONS, 54_264);
        assert_eq!(FULL_POSITIONS, 15_504);
        let boards = boards_by_rank();
        let mut seen = vec![false; POSITIONS];
        let packed = PackedRanks::new();
        for (r, b) in boards.iter().enumerate() {
            assert!(checkers(b) <= 15);
            assert_eq!(rank(b), r);
            assert_eq!(packed.rank(pack_board(b)), r);
            assert!(!seen[r]);
            seen[r] = true;
            assert_eq!(r >= FIRST_FULL, checkers(b) == 15, "{b:?}");
        }
        assert_eq!(boards[0], [0; 6]);
    }

    #[test]
    fn distributions_sum_to_one_and_fit() {
        let db = database();
        let boards = boards_by_rank();
        for b in &boards {
            let d = db.all_off(b);
            let dense = d.dense();
            let sum: f64 = dense.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "{b:?}: {sum}");
            assert!((mean_of(&dense) - d.mean() as f64).abs() < 1e-4, "{b:?}");
            if let Some(f) = db.first_off(b) {
                let sum: f64 = f.dense().iter().sum();
                assert!((sum - 1.0).abs() < 1e-5, "{b:?}: {sum}");
                assert!(f.mean() <= d.mean());
                assert_eq!(f.p(0), 0.0);
            }
        }
        // Truncation loses nothing: the longest bear-off ends well inside the array.
        assert!(db.max_rolls() < ROLLS - 1, "{}", db.max_rolls());
        assert_eq!(db.all_off(&[0; 6]).p(0), 1.0);
    }

    #[test]
    fn hand_computed_values() {
        let db = database();
        assert_eq!(db.all_off(&[1, 0, 0, 0, 0, 0]).mean(), 1.0);
        assert_eq!(db.all_off(&[2, 0, 0, 0, 0, 0]).mean(), 1.0);
        // One checker on the 6-point stays on after 1-1, 2-1, 3-1, 4-1 and 3-2 (9 of 36)
        // and is then on the 3-point or lower, off with any roll: 1 + 9/36.
        assert!((db.all_off(&[0, 0, 0, 0, 0, 1]).mean() - 1.25).abs() < 1e-6);
        // Three checkers on the 1-point: off in one roll only with a double.
        assert!((db.all_off(&[3, 0, 0, 0, 0, 0]).mean() - (1.0 + 30.0 / 36.0)).abs() < 1e-6);
    }

    #[test]
    fn home_boards_reads_both_sides() {
        let mut s = [0i8; 26];
        s[1] = 2;
        s[6] = 3;
        s[24] = -4; // the opponent's 1-point
        s[19] = -1; // the opponent's 6-point
        let p = Position::from_slots(s).expect("valid");
        let (me, opp) = home_boards(&p).expect("both home");
        assert_eq!(me, [2, 0, 0, 0, 0, 3]);
        assert_eq!(opp, [4, 0, 0, 0, 0, 1]);
        assert_eq!(home_boards(&p.swap()), Some((opp, me)));
        s[7] = 1;
        assert_eq!(home_boards(&Position::from_slots(s).expect("valid")), None);
        s[7] = 0;
        s[18] = -1;
        assert_eq!(home_boards(&Position::from_slots(s).expect("valid")), None);
        s[18] = 0;
        s[0] = -1;
        assert_eq!(home_boards(&Position::from_slots(s).expect("valid")), None);
    }

    #[test]
    fn probabilities_are_consistent() {
        let db = database();
        let boards = boards_by_rank();
        let mut seed = 7u64;
        for _ in 0..2000 {
            seed = crate::game::splitmix(seed);
            let me = boards[(seed % POSITIONS as u64) as usize];
            let opp = boards[((seed >> 32) % POSITIONS as u64) as usize];
            let p = db.probabilities(&me, &opp).0;
            assert!((0.0..=1.0).contains(&p[0]));
            assert!(p[1] <= p[0] && p[3] <= 1.0 - p[0]);
            assert!(p[1] >= 0.0 && p[3] >= 0.0 && p[2] == 0.0 && p[4] == 0.0);
            if checkers(&opp) < 15 {
                assert_eq!(p[1], 0.0);
            }
            if checkers(&me) < 15 {
                assert_eq!(p[3], 0.0);
            }
            // Rolling first is an advantage.
            assert!(db.probabilities(&me, &me).0[0] >= 0.5, "{me:?}");
        }
    }
}
