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
//! The tables are filled by a dynamic programme over the moves of one die
//! ([`BearoffDb::generate`], in the `table` module, which uses nothing but `std`). The
//! build script compiles that same module, runs it and embeds its bytes in the binary, so
//! a process reads the database ([`database`], about a millisecond) instead of computing
//! it (0.05-0.1 s in a release build, which a short command such as a rollout would pay
//! every time). Unit tests check that the embedded tables are, bit for bit, those
//! [`BearoffDb::generate`] computes, and those the plays of [`crate::game::generate_plays`]
//! give. Distributions are stored as `f32` over their non-zero range only
//! ([`BearoffDb::memory_bytes`]); docs/BENCHMARKS.md ("Evaluator speed") has the measured
//! figures.

use std::sync::OnceLock;

use super::Probabilities;
use crate::game::{Position, CHECKERS};

mod table;

pub use table::{checkers, rank, Board, FULL_POSITIONS, MAX_CHECKERS, POINTS, POSITIONS, ROLLS};
use table::{Entry, Tables, FIRST_FULL};

const _: () = assert!(MAX_CHECKERS == CHECKERS as usize, "a side's checkers");

/// The tables the build script computed with [`table::generate`], as
/// [`table::Tables::to_bytes`] wrote them.
static EMBEDDED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/bearoff.bin"));

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
/// (see [`home_boards`]), from the database; `None` for every other position. Reads the
/// database on first use.
#[inline]
pub fn exact(pos: &Position) -> Option<Probabilities> {
    let (me, opp) = home_boards(pos)?;
    Some(database().probabilities(&me, &opp))
}

static DATABASE: OnceLock<BearoffDb> = OnceLock::new();

/// The database, read from the binary's embedded tables on the first call (concurrent
/// first callers wait for one reading). Should those bytes ever fail to read (a unit test
/// checks that they do not), it computes the tables instead.
pub fn database() -> &'static BearoffDb {
    DATABASE.get_or_init(|| BearoffDb::embedded().unwrap_or_else(BearoffDb::generate))
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
pub struct BearoffDb(Tables);

impl BearoffDb {
    /// Computes the whole database: positions in rank order, so that every successor is
    /// done before the positions that lead to it; for each roll the play whose successor
    /// has the fewest expected rolls, found by dynamic programming over the moves of one
    /// die (in a home board no checker blocks another and a checker can always move, so
    /// the best end of k moves of a die is the best, over that die's single moves, of the
    /// best end of k - 1 moves from there). The binary embeds its result
    /// ([`BearoffDb::embedded`]).
    pub fn generate() -> BearoffDb {
        BearoffDb(table::generate())
    }

    /// The tables the build script embedded in the binary, read back; `None` if they do
    /// not read as a database.
    pub fn embedded() -> Option<BearoffDb> {
        Tables::from_bytes(EMBEDDED).map(BearoffDb)
    }

    fn view(&self, e: Entry) -> Distribution<'_> {
        let from = e.offset as usize;
        Distribution {
            start: e.start as usize,
            probs: &self.0.probs[from..from + e.len as usize],
            mean: e.mean,
        }
    }

    /// Rolls to bear off every checker of `board` (at most 15 checkers: more panics).
    pub fn all_off(&self, board: &Board) -> Distribution<'_> {
        self.view(self.0.all[rank(board)])
    }

    /// Rolls to bear off the first checker, for a board holding all 15 checkers.
    pub fn first_off(&self, board: &Board) -> Option<Distribution<'_>> {
        if checkers(board) != MAX_CHECKERS as u32 {
            return None;
        }
        rank(board)
            .checked_sub(FIRST_FULL)
            .map(|i| self.view(self.0.first[i]))
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
        self.0
            .all
            .iter()
            .chain(&self.0.first)
            .map(|e| (e.start as usize + e.len as usize).saturating_sub(1))
            .max()
            .unwrap_or(0)
    }

    /// Bytes the database holds in memory.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<BearoffDb>()
            + (self.0.all.len() + self.0.first.len()) * std::mem::size_of::<Entry>()
            + self.0.probs.len() * std::mem::size_of::<f32>()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{generate_plays, Dice, PlayList, ALL_ROLLS};
    use table::boards_by_rank;

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
        (hi, lo): (usize, usize),
        all_mean: &[f64],
        first_mean: &[f64],
    ) -> (usize, usize) {
        let dice = Dice::new(hi as u8, lo as u8).expect("a roll from the table's list");
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

    /// The same tables, bit for bit (a mean of NaN would compare equal to itself).
    fn assert_same(x: &BearoffDb, y: &BearoffDb) {
        let bits = |db: &BearoffDb| {
            db.0.all
                .iter()
                .chain(&db.0.first)
                .map(|e| (e.offset, e.mean.to_bits(), e.start, e.len))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            (x.0.all.len(), x.0.first.len()),
            (y.0.all.len(), y.0.first.len())
        );
        assert!(bits(x) == bits(y), "the entries differ");
        let probs = |db: &BearoffDb| db.0.probs.iter().map(|p| p.to_bits()).collect::<Vec<_>>();
        assert!(probs(x) == probs(y), "the probabilities differ");
    }

    #[test]
    fn database_is_the_move_generators() {
        let mut list = PlayList::new();
        let boards = boards_by_rank();
        let slow = table::generate_with(|r, hi, lo, all_mean, first_mean| {
            generated_choice(&boards, &mut list, r, (hi, lo), all_mean, first_mean)
        });
        assert_same(&BearoffDb(slow), database());
    }

    #[test]
    fn embedded_tables_are_the_generated_ones() {
        let embedded = BearoffDb::embedded().expect("the build script's tables read back");
        assert_same(&embedded, &BearoffDb::generate());
        // The tables read back exactly what they were written from, and nothing else reads.
        let tables = table::generate();
        let bytes = tables.to_bytes();
        assert_eq!(bytes, EMBEDDED);
        assert_eq!(Tables::from_bytes(&bytes).as_ref(), Some(&tables));
        assert!(Tables::from_bytes(&bytes[..bytes.len() - 1]).is_none());
        assert!(Tables::from_bytes(&[bytes.as_slice(), &[0]].concat()).is_none());
        assert!(Tables::from_bytes(b"SGBOFF01").is_none());
        assert!(Tables::from_bytes(&[]).is_none());
        let mut wrong_magic = bytes.clone();
        wrong_magic[7] = b'2';
        assert!(Tables::from_bytes(&wrong_magic).is_none());
        // An entry reaching past the probabilities: the first entry's offset, far out.
        let mut past_end = bytes.clone();
        past_end[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Tables::from_bytes(&past_end).is_none());
        // An entry reaching past the rolls: its start at 32.
        let mut past_rolls = bytes;
        past_rolls[28] = ROLLS as u8;
        assert!(Tables::from_bytes(&past_rolls).is_none());
    }

    #[test]
    fn the_tables_sum_over_the_rolls_in_the_library_order() {
        let rolls: Vec<_> = table::rolls().collect();
        let library: Vec<_> = ALL_ROLLS
            .iter()
            .map(|d| (d.high() as usize, d.low() as usize, d.probability()))
            .collect();
        assert_eq!(rolls, library);
    }

    fn mean_of(probs: &[f64; ROLLS]) -> f64 {
        probs.iter().enumerate().map(|(n, p)| n as f64 * p).sum()
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
