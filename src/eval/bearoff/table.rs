//! The bear-off database's tables and the dynamic programme that fills them, in plain
//! `std` Rust with nothing from the rest of the crate, so that the build script compiles
//! this same file and embeds its result ([`super`] explains why), and the library can still
//! compute the tables to check the embedded copy.
//!
//! Ranks, the packed boards and the one-die moves below are the home-board rules alone:
//! with every checker on points 1-6 nothing blocks a checker and a checker can always move.

/// Home-board points per side.
pub const POINTS: usize = 6;
/// Checkers a side can have in the database.
pub const MAX_CHECKERS: usize = 15;
/// Positions of up to 15 checkers on six points: C(21, 6), the empty one included.
pub const POSITIONS: usize = binomial(MAX_CHECKERS + POINTS, POINTS);
/// Positions of exactly 15 checkers on six points: C(20, 5).
pub const FULL_POSITIONS: usize = binomial(MAX_CHECKERS + POINTS - 1, POINTS - 1);
/// The rank of the first 15-checker position: ranks order positions by checker count
/// first, so those of exactly 15 checkers are the last [`FULL_POSITIONS`].
pub const FIRST_FULL: usize = POSITIONS - FULL_POSITIONS;
/// Length of a distribution over the number of rolls, 0 to `ROLLS - 1`. No position
/// needs more than 30 rolls with a non-zero probability (15 checkers on the 6-point,
/// rolling 2-1 every time); the unit tests check that nothing is lost to the truncation.
pub const ROLLS: usize = 32;

/// Checker counts on a side's own home points: index 0 is the 1-point (the one nearest
/// to bearing off), index 5 the 6-point. At most 15 checkers in all.
pub type Board = [u8; POINTS];

/// The 21 distinct rolls as (higher die, lower die), in the order the tables sum them
/// over (the library's list of rolls, which a unit test checks), with their probabilities.
pub fn rolls() -> impl Iterator<Item = (usize, usize, f64)> {
    (1..=6).flat_map(|hi| (1..=hi).map(move |lo| (hi, lo, if hi == lo { 1.0 } else { 2.0 } / 36.0)))
}

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
pub fn boards_by_rank() -> Vec<Board> {
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

/// Where one distribution lies in the shared array, and its mean.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Entry {
    pub offset: u32,
    pub mean: f32,
    /// Rolls of the first stored probability; probabilities outside
    /// `start..start + len` are zero.
    pub start: u8,
    pub len: u8,
}

/// The database's contents: an entry per distribution and the stored probabilities.
#[derive(Debug, Clone, PartialEq)]
pub struct Tables {
    /// Rolls to bear off every checker, by rank.
    pub all: Vec<Entry>,
    /// Rolls to bear off the first checker, by rank minus [`FIRST_FULL`].
    pub first: Vec<Entry>,
    /// Each distribution's non-zero range, one after another.
    pub probs: Vec<f32>,
}

/// The serialised form's first bytes: the format and its version.
const MAGIC: &[u8; 8] = b"SGBOFF01";
/// Bytes of one serialised [`Entry`].
const ENTRY_BYTES: usize = 10;

impl Tables {
    /// The tables as bytes: [`MAGIC`], the three lengths (u32), the entries (offset, mean
    /// bits as u32, start, len) and the probabilities (f32 bits), all little-endian.
    // The build script and the library's tests write the tables; the library reads them.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn to_bytes(&self) -> Vec<u8> {
        let entries = self.all.len() + self.first.len();
        let mut out = Vec::with_capacity(20 + entries * ENTRY_BYTES + self.probs.len() * 4);
        out.extend_from_slice(MAGIC);
        for n in [self.all.len(), self.first.len(), self.probs.len()] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        for e in self.all.iter().chain(&self.first) {
            out.extend_from_slice(&e.offset.to_le_bytes());
            out.extend_from_slice(&e.mean.to_bits().to_le_bytes());
            out.extend_from_slice(&[e.start, e.len]);
        }
        for p in &self.probs {
            out.extend_from_slice(&p.to_bits().to_le_bytes());
        }
        out
    }

    /// Reads [`Tables::to_bytes`]' output back; `None` for anything else, including tables
    /// of another size or an entry that reaches past the probabilities or the rolls.
    pub fn from_bytes(bytes: &[u8]) -> Option<Tables> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let word = |b: &[u8]| Some(u32::from_le_bytes(b.get(..4)?.try_into().ok()?));
        let (all_len, first_len, probs_len) = (
            word(rest)? as usize,
            word(rest.get(4..)?)? as usize,
            word(rest.get(8..)?)? as usize,
        );
        if (all_len, first_len) != (POSITIONS, FULL_POSITIONS) {
            return None;
        }
        let rest = &rest[12..];
        let entries_end = (all_len + first_len).checked_mul(ENTRY_BYTES)?;
        if rest.len() != entries_end.checked_add(probs_len.checked_mul(4)?)? {
            return None;
        }
        let (entries, probs) = rest.split_at(entries_end);
        let mut all = Vec::with_capacity(all_len);
        for e in entries.chunks_exact(ENTRY_BYTES) {
            let entry = Entry {
                offset: word(e)?,
                mean: f32::from_bits(word(&e[4..])?),
                start: e[8],
                len: e[9],
            };
            let fits = entry.offset as usize + entry.len as usize <= probs_len
                && entry.start as usize + entry.len as usize <= ROLLS;
            if !fits {
                return None;
            }
            all.push(entry);
        }
        let first = all.split_off(all_len);
        let probs = probs
            .chunks_exact(4)
            .map(|p| word(p).map(f32::from_bits))
            .collect::<Option<Vec<f32>>>()?;
        Some(Tables { all, first, probs })
    }
}

/// `acc[n + 1] += w * d[n]`: one more roll before the distribution `d`.
#[inline]
fn add_shifted(acc: &mut [f64; ROLLS], d: &[f64; ROLLS], w: f64) {
    for n in 0..ROLLS - 1 {
        acc[n + 1] += w * d[n];
    }
}

/// Computes the tables: positions in rank order, so that every successor is done before
/// the positions that lead to it; for each roll the play whose successor has the fewest
/// expected rolls.
///
/// The best play is found by dynamic programming over the moves of one die
/// (`BestEnds`), not by generating every play: in a home board no checker blocks
/// another and a checker can always move, so the best end of k moves of a die from a
/// board is the best, over that die's single moves, of the best end of k - 1 moves
/// from there.
pub fn generate() -> Tables {
    let mut best = BestEnds::new();
    generate_with(|r, hi, lo, all_mean, first_mean| best.choose(r, hi, lo, all_mean, first_mean))
}

/// [`generate`] with each position's best plays found by `choose(r, hi, lo, all_mean,
/// first_mean)`: the rank of the best successor of the position of rank `r` under the
/// roll `hi`-`lo` (the fewest expected rolls, `all_mean`, over the ranks below `r`) and,
/// for a position of 15 checkers, that of its best successor for the first checker off
/// (`first_mean` by rank minus [`FIRST_FULL`]; a position of fewer checkers counts 0).
pub fn generate_with(
    mut choose: impl FnMut(usize, usize, usize, &[f64], &[f64]) -> (usize, usize),
) -> Tables {
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
        for (hi, lo, w) in rolls() {
            let (best, fbest) = choose(r, hi, lo, &all_mean[..r], &first_mean);
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
    Tables { all, first, probs }
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
pub struct PackedRanks {
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

/// The dynamic programme of [`generate`]: for every position done so far and
/// every die, the end (a rank) of the best 1, 2 and 3 moves of that die in a row, for
/// bearing off every checker and, from 15 checkers, the first one. An empty board (or,
/// for the first checker, a board of fewer than 15) ends every chain that reaches it:
/// the roll's other moves cannot be played or do not count.
pub struct BestEnds {
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
        hi: usize,
        lo: usize,
        all_mean: &[f64],
        first_mean: &[f64],
    ) -> (usize, usize) {
        if self.filled != r {
            self.fill(r, all_mean, first_mean);
        }
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
}
