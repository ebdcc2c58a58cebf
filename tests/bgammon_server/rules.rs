//! The stand-in's game: the board kept from player 1's side, the dice and steps of the
//! turn, and the single steps our rules allow (a step is legal when a legal play of the
//! whole roll can still be reached after it).

use stargammon::game::{legal_plays, Dice, Position, Rng};

pub struct Game {
    /// Seat 1's view: seat 1 positive, moving 24 -> 1.
    pub p1: Position,
    pub turn: u8,
    pub dice: [u8; 2],
    pub left: Vec<u8>,
    pub start: Position,
    pub steps: Vec<(u8, u8)>,
    pub cube: u32,
    pub owner: u8,
    pub offered: bool,
    /// 0 pending, 1 this game, 2 played.
    pub crawford: u8,
    pub score: [u32; 2],
    pub winner: u8,
}

/// A single step for one die on the mover's position, if the basic rules allow it.
pub fn basic_step(q: &Position, from: u8, die: u8) -> Option<Position> {
    let s = q.slots();
    if s[from as usize] <= 0 || (s[25] > 0 && from != 25) {
        return None;
    }
    let to = from as i32 - die as i32;
    let mut n = *s;
    if to >= 1 {
        let t = to as usize;
        if n[t] <= -2 {
            return None;
        }
        n[from as usize] -= 1;
        if n[t] == -1 {
            n[t] = 1;
            n[0] -= 1;
        } else {
            n[t] += 1;
        }
    } else {
        if s[7..=25].iter().any(|&c| c > 0) {
            return None;
        }
        if to < 0 && s[(from as usize + 1)..=6].iter().any(|&c| c > 0) {
            return None;
        }
        n[from as usize] -= 1;
    }
    Position::from_slots(n).ok()
}

fn reaches(q: &Position, left: &[u8], targets: &[Position]) -> bool {
    let mut seen = std::collections::HashSet::new();
    reaches_from(q, left, targets, &mut seen)
}

fn reaches_from(
    q: &Position,
    left: &[u8],
    targets: &[Position],
    seen: &mut std::collections::HashSet<(Position, Vec<u8>)>,
) -> bool {
    if targets.contains(q) {
        return true;
    }
    if !seen.insert((*q, left.to_vec())) {
        return false;
    }
    for (i, &d) in left.iter().enumerate() {
        if left[..i].contains(&d) {
            continue;
        }
        for from in 1..=25u8 {
            if let Some(n) = basic_step(q, from, d) {
                let mut rest = left.to_vec();
                rest.remove(i);
                if reaches_from(&n, &rest, targets, seen) {
                    return true;
                }
            }
        }
    }
    false
}

impl Game {
    pub fn new(score: [u32; 2], crawford: u8) -> Game {
        Game {
            p1: Position::OPENING,
            turn: 0,
            dice: [0, 0],
            left: Vec::new(),
            start: Position::OPENING,
            steps: Vec::new(),
            cube: 1,
            owner: 0,
            offered: false,
            crawford,
            score,
            winner: 0,
        }
    }
    pub fn view(&self, seat: u8) -> Position {
        if seat == 1 {
            self.p1
        } else {
            self.p1.swap()
        }
    }
    pub fn set_view(&mut self, seat: u8, p: Position) {
        self.p1 = if seat == 1 { p } else { p.swap() };
    }
    pub fn targets(&self) -> Vec<Position> {
        let d = Dice::new(self.dice[0], self.dice[1]).unwrap();
        legal_plays(&self.start, d)
            .iter()
            .map(|p| p.position)
            .collect()
    }
    /// The mover's single steps that keep a legal play reachable.
    pub fn available(&self) -> Vec<(u8, u8, usize)> {
        let q = self.view(self.turn);
        let targets = self.targets();
        let mut out = Vec::new();
        for (i, &d) in self.left.iter().enumerate() {
            for from in 1..=25u8 {
                if let Some(n) = basic_step(&q, from, d) {
                    let mut rest = self.left.clone();
                    rest.remove(i);
                    if reaches(&n, &rest, &targets) {
                        let to = (from as i32 - d as i32).max(0) as u8;
                        if !out.iter().any(|&(f, t, _)| f == from && t == to) {
                            out.push((from, to, i));
                        }
                    }
                }
            }
        }
        out
    }
    pub fn may_double(&self, seat: u8, points: u32) -> bool {
        points != 1
            && self.crawford != 1
            && self.cube < 64
            && !self.offered
            && (self.owner == 0 || self.owner == seat)
    }
    pub fn roll(&mut self, rng: &mut Rng) {
        let d = [rng.die(), rng.die()];
        self.dice = d;
        self.left = if d[0] == d[1] {
            vec![d[0]; 4]
        } else {
            d.to_vec()
        };
        self.start = self.view(self.turn);
        self.steps.clear();
    }
    /// What the winner scores (before the cube): 3 backgammon, 2 gammon, 1.
    pub fn value(&self, winner: u8) -> u32 {
        let q = self.view(winner);
        let s = q.slots();
        if q.opp_off() > 0 {
            1
        } else if s[0] < 0 || s[1..=6].iter().any(|&c| c < 0) {
            3
        } else {
            2
        }
    }
}

impl Game {
    pub fn clone_game(&self) -> Game {
        Game {
            p1: self.p1,
            turn: self.turn,
            dice: self.dice,
            left: self.left.clone(),
            start: self.start,
            steps: self.steps.clone(),
            cube: self.cube,
            owner: self.owner,
            offered: self.offered,
            crawford: self.crawford,
            score: self.score,
            winner: self.winner,
        }
    }
}
