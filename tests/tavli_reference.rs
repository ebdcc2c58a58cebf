//! A second, naive Tavli move generator written straight from the rules text (sections
//! 2-5: C3-C6, PO2-PO3, PL3-PL10, FE2-FE5), compared with the fast generators on
//! (position, roll) pairs drawn from seeded random games of each variant.
//!
//! The naive generator tries every die order and every checker at every step with no
//! merging, applies each rule literally after each step, then C4 (game-ending plays
//! exempt, C5 and E19) and collects the distinct results. It shares nothing with the
//! library but the position type it reads and writes.

use std::collections::BTreeSet;

use stargammon::game::{Dice, Rng, Variant};
use stargammon::tavli::{
    legal_plays, play_random_game, position_string, GameEnd, RuleSwitches, TavliPosition,
};

#[derive(Clone, Copy, PartialEq, Eq)]
struct Board {
    v: Variant,
    me: [i32; 26],
    opp: [i32; 26],
    pin_me: [bool; 26],
    pin_opp: [bool; 26],
}

impl Board {
    fn load(p: &TavliPosition) -> Board {
        let mut b = Board {
            v: p.variant(),
            me: [0; 26],
            opp: [0; 26],
            pin_me: [false; 26],
            pin_opp: [false; 26],
        };
        for i in 0..26 {
            b.me[i] = p.counts(0)[i] as i32;
            b.opp[i] = p.counts(1)[i] as i32;
            b.pin_me[i] = i < 26 && p.pins(0) & (1 << i) != 0;
            b.pin_opp[i] = p.pins(1) & (1 << i) != 0;
        }
        b
    }

    fn store(&self) -> TavliPosition {
        let mut a = [0u8; 26];
        let mut o = [0u8; 26];
        let (mut pa, mut po) = (0u32, 0u32);
        for i in 1..26 {
            a[i] = self.me[i] as u8;
            o[i] = self.opp[i] as u8;
            if self.pin_me[i] {
                pa |= 1 << i;
            }
            if self.pin_opp[i] {
                po |= 1 << i;
            }
        }
        TavliPosition::new(self.v, a, o, [pa, po]).expect("naive result is a position")
    }

    /// The opponent's point that is my point m.
    fn theirs(&self, m: usize) -> usize {
        if self.v == Variant::Fevga {
            if m > 12 {
                m - 12
            } else {
                m + 12
            }
        } else {
            25 - m
        }
    }

    /// My point that is the opponent's point q.
    fn mine_of_theirs(&self, q: usize) -> usize {
        if self.v == Variant::Fevga {
            if q > 12 {
                q - 12
            } else {
                q + 12
            }
        } else {
            25 - q
        }
    }

    fn on_board(side: &[i32; 26]) -> i32 {
        side.iter().sum()
    }

    fn my_off(&self) -> i32 {
        15 - Board::on_board(&self.me)
    }

    fn opp_off(&self) -> i32 {
        15 - Board::on_board(&self.opp)
    }

    /// C6 plus each game's extra conditions: may I bear off at all?
    fn may_bear_off(&self, rules: &RuleSwitches) -> bool {
        for p in 7..=25 {
            if self.me[p] > 0 {
                return false;
            }
        }
        if self.v == Variant::Plakoto && !rules.pinned_counts_home {
            for p in 1..=24 {
                if self.pin_me[p] {
                    return false;
                }
            }
        }
        true
    }

    /// One step of `die` with a checker from `from`, if the rules allow it: the board
    /// after it and whether the game ends.
    fn step(
        &self,
        from: usize,
        die: usize,
        rules: &RuleSwitches,
    ) -> Option<(Board, Option<GameEnd>)> {
        if self.me[from] == 0 {
            return None;
        }
        let mut b = *self;
        match self.v {
            Variant::Portes | Variant::Backgammon => {
                // Checkers on the bar enter first.
                if self.me[25] > 0 && from != 25 {
                    return None;
                }
            }
            Variant::Plakoto => {
                if self.pin_me[from] {
                    return None;
                }
            }
            Variant::Fevga => {
                // The runner rule.
                let restricted = self.my_off() == 0 && (1..=11).all(|p| self.me[p] == 0);
                if restricted {
                    let left_start: i32 = (1..=23).map(|p| self.me[p]).sum();
                    if left_start > 0 && from == 24 {
                        return None;
                    }
                }
            }
        }
        let target = from as i32 - die as i32;
        if target >= 1 {
            let to = target as usize;
            let q = self.theirs(to);
            match self.v {
                Variant::Portes | Variant::Backgammon => {
                    if self.opp[q] >= 2 {
                        return None;
                    }
                    if self.opp[q] == 1 {
                        b.opp[q] = 0;
                        b.opp[25] += 1;
                    }
                }
                Variant::Plakoto => {
                    if self.opp[q] >= 2 {
                        return None;
                    }
                    if self.opp[q] == 1 {
                        if self.pin_me[to] {
                            return None;
                        }
                        if !self.pin_opp[q] {
                            b.pin_opp[q] = true;
                        }
                    }
                }
                Variant::Fevga => {
                    if self.opp[q] > 0 {
                        return None;
                    }
                }
            }
            b.me[to] += 1;
        } else {
            if !self.may_bear_off(rules) {
                return None;
            }
            if target < 0 {
                // A larger die bears off only from the highest occupied point.
                for p in from + 1..=6 {
                    if self.me[p] > 0 {
                        return None;
                    }
                }
            }
        }
        b.me[from] -= 1;
        if self.v == Variant::Plakoto && b.me[from] == 0 {
            let q = self.theirs(from);
            b.pin_opp[q] = false;
        }
        if self.v == Variant::Fevga {
            if (19..=24).all(|p| b.me[p] > 0) {
                return None;
            }
            if !rules.unblock_when_piled && !rules.start_quarter_only && b.traps_all() {
                return None;
            }
        }
        // Game end after the step.
        let mut end = None;
        if b.my_off() == 15 {
            end = Some(GameEnd::Win(if b.opp_off() == 0 { 2 } else { 1 }));
        }
        if self.v == Variant::Plakoto && end.is_none() {
            if b.pin_me[24] && b.pin_opp[24] {
                end = Some(GameEnd::Tie);
            } else if b.pin_opp[24] && b.me[24] == 0 {
                end = Some(GameEnd::Win(2));
            }
        }
        Some((b, end))
    }

    /// FE5: a wall of mine on his q..q-5 with all 15 of his checkers above q.
    fn traps_all(&self) -> bool {
        if self.opp_off() > 0 {
            return false;
        }
        for q in 6..=24usize {
            let wall = (q - 5..=q).all(|r| self.me[self.mine_of_theirs(r)] > 0);
            let behind: i32 = (q + 1..=24).map(|r| self.opp[r]).sum();
            if wall && behind == 15 {
                return true;
            }
        }
        false
    }
}

struct Leaf {
    board: Board,
    dice: Vec<usize>,
    end: Option<GameEnd>,
}

fn search(
    b: &Board,
    left: &[usize],
    used: &mut Vec<usize>,
    rules: &RuleSwitches,
    out: &mut Vec<Leaf>,
) {
    let mut any = false;
    for i in 0..left.len() {
        if left[..i].contains(&left[i]) {
            continue;
        }
        let die = left[i];
        let mut rest = left.to_vec();
        rest.remove(i);
        for from in 1..=25 {
            if let Some((after, end)) = b.step(from, die, rules) {
                any = true;
                used.push(die);
                if end.is_some() || rest.is_empty() {
                    out.push(Leaf {
                        board: after,
                        dice: used.clone(),
                        end,
                    });
                } else {
                    search(&after, &rest, used, rules, out);
                }
                used.pop();
            }
        }
    }
    if !any {
        out.push(Leaf {
            board: *b,
            dice: used.clone(),
            end: None,
        });
    }
}

/// The distinct results (position after the play, how the game ended) by the rules text.
fn naive(
    p: &TavliPosition,
    dice: Dice,
    rules: &RuleSwitches,
) -> BTreeSet<(TavliPosition, Option<GameEnd>)> {
    let (h, l) = (dice.high() as usize, dice.low() as usize);
    let all = if h == l { vec![h; 4] } else { vec![h, l] };
    let mut leaves = Vec::new();
    search(&Board::load(p), &all, &mut Vec::new(), rules, &mut leaves);
    let most = leaves.iter().map(|x| x.dice.len()).max().unwrap_or(0);
    let larger_exists = leaves.iter().any(|x| x.dice.first() == Some(&h));
    leaves
        .iter()
        .filter(|x| {
            x.end.is_some()
                || (x.dice.len() == most
                    && !(h != l && most == 1 && larger_exists && x.dice[0] != h))
        })
        .map(|x| (x.board.store(), x.end))
        .collect()
}

fn fast(
    p: &TavliPosition,
    dice: Dice,
    rules: &RuleSwitches,
) -> BTreeSet<(TavliPosition, Option<GameEnd>)> {
    let plays = legal_plays(p, dice, rules);
    let set: BTreeSet<_> = plays.iter().map(|q| (q.after, q.end)).collect();
    assert_eq!(set.len(), plays.len(), "duplicate result in {p:?} {dice}");
    set
}

/// Compares the two generators on `pairs` (position, roll) pairs of random games.
fn compare(variant: Variant, rules: RuleSwitches, pairs: usize, seed: u64) -> (usize, usize) {
    let mut rng = Rng::seeded(seed);
    let mut seen = 0usize;
    let mut differences = 0usize;
    while seen < pairs {
        let mut game = Rng::seeded(rng.next_u64());
        play_random_game(variant, &rules, &mut game, 5000, |p, d| {
            if seen >= pairs {
                return;
            }
            seen += 1;
            let a = fast(p, d, &rules);
            let b = naive(p, d, &rules);
            if a != b {
                differences += 1;
                if differences <= 3 {
                    eprintln!(
                        "difference at {} roll {d}: fast {} naive {}",
                        position_string(p),
                        a.len(),
                        b.len()
                    );
                }
            }
        });
    }
    (seen, differences)
}

fn pairs() -> usize {
    std::env::var("TAVLI_REFERENCE_PAIRS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

#[test]
fn portes_matches_the_rules_text() {
    let (n, d) = compare(Variant::Portes, RuleSwitches::default(), pairs(), 11);
    assert_eq!(d, 0, "{d} differences in {n} pairs");
}

#[test]
fn plakoto_matches_the_rules_text() {
    let (n, d) = compare(Variant::Plakoto, RuleSwitches::default(), pairs(), 12);
    assert_eq!(d, 0, "{d} differences in {n} pairs");
}

#[test]
fn fevga_matches_the_rules_text() {
    let (n, d) = compare(Variant::Fevga, RuleSwitches::default(), pairs(), 13);
    assert_eq!(d, 0, "{d} differences in {n} pairs");
}

#[test]
fn switches_match_the_rules_text() {
    let n = pairs() / 10;
    let home = RuleSwitches {
        pinned_counts_home: true,
        ..RuleSwitches::default()
    };
    assert_eq!(compare(Variant::Plakoto, home, n, 14).1, 0);
    let quarter = RuleSwitches {
        start_quarter_only: true,
        ..RuleSwitches::default()
    };
    assert_eq!(compare(Variant::Fevga, quarter, n, 15).1, 0);
}
