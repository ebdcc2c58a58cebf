//! Fevga (section 5 of the rules text): parallel movement, a single checker blocks (FE2),
//! the runner rule (FE3), the starting-quarter rule (FE4) and the no-full-trap rule (FE5),
//! or the wall rules of the switches (FE8).

use super::movegen::{generate as search, movable_mask, Compact, Scratch, StepRules};
use super::position::{occupancy, opp_point, TavliPosition, CHECKERS};
use super::{GameEnd, RuleSwitches, TavliPlay};
use crate::game::{Dice, Variant};

/// The Fevga step rules.
#[derive(Debug)]
pub struct Fevga;

/// Whether the runner rule (FE3) still binds the mover: no checker on points 1-11 and
/// none borne off.
pub fn runner_rule_active(pos: &TavliPosition) -> bool {
    let me = &pos.sides[0];
    pos.off(0) == 0 && (1..=11).all(|m| me[m] == 0)
}

/// The opponent's points (bit q, his numbering) on which the mover has a checker.
#[inline]
fn held_on_his_path(me: &[u8; 26]) -> u32 {
    on_his_path(occupancy(me))
}

/// Whether the mover has a wall with every one of the opponent's 15 checkers behind it
/// (FE5).
pub fn full_trap(pos: &TavliPosition) -> bool {
    let opp = &pos.sides[1];
    let Some(lo) = (1..=24).find(|&q| opp[q] > 0) else {
        return false;
    };
    if pos.off(1) > 0 {
        return false;
    }
    let m = held_on_his_path(&pos.sides[0]) & ((1u32 << lo) - 2);
    m & m >> 1 & m >> 2 & m >> 3 & m >> 4 & m >> 5 != 0
}

/// The mover's points forming a wall directly ahead of the single point holding every
/// opposing checker on the board (`unblock_when_piled`), as a mask of the mover's points.
pub fn piled_wall(pos: &TavliPosition) -> Option<u32> {
    let opp = &pos.sides[1];
    let mut occupied = (1..=24).filter(|&q| opp[q] > 0);
    let pile = occupied.next()?;
    if occupied.next().is_some() || pile < 7 {
        return None;
    }
    let held = held_on_his_path(&pos.sides[0]);
    let mut wall = 0u32;
    for q in pile - 6..pile {
        if held >> q & 1 == 0 {
            return None;
        }
        // His q is my q + 12 or q - 12.
        wall |= 1 << opp_point(Variant::Fevga, q);
    }
    Some(wall)
}

/// The points (bits of the mover's) a checker on `from` could reach with the roll
/// `high`, `low`: `d`, `2d`, .. `4d` below for a double, `high`, `low` or both below
/// otherwise (whether the points between are open is not asked: a bound).
#[inline]
fn reachable(from: u32, high: u8, low: u8) -> u32 {
    if high == low {
        let d = u32::from(high);
        from >> d | from >> (2 * d) | from >> (3 * d) | from >> (4 * d)
    } else {
        from >> high | from >> low | from >> (high + low)
    }
}

/// What a Fevga search computes once: the opponent does not move during the mover's play.
#[derive(Debug, Clone, Copy)]
pub struct FevgaCtx {
    /// Bit m: the opponent has a checker on the mover's point m (no landing there).
    blocked: u32,
    /// The opponent's points (his numbering) below his lowest checker, when every one of
    /// his checkers is on the board (FE5 applies), else 0; and whether FE5 is checked.
    behind: u32,
    check_trap: bool,
    /// The opponent has borne off a checker (a win is then single).
    opp_off: bool,
}

/// The mover's held points (bits m) as the opponent's points (his numbering): his q is my
/// q + 12 or q - 12.
#[inline]
fn on_his_path(held: u32) -> u32 {
    ((held & 0x1ffe) << 12) | ((held >> 12) & 0x1ffe)
}

impl StepRules for Fevga {
    type Ctx = FevgaCtx;

    fn context(pos: &TavliPosition, rules: &RuleSwitches) -> FevgaCtx {
        // His point q is my q + 12 or q - 12, the map of `on_his_path`.
        let his = occupancy(&pos.sides[1]);
        let blocked = on_his_path(his);
        let opp_off = pos.off(1) > 0;
        let behind = if his != 0 && !opp_off {
            (1u32 << his.trailing_zeros()) - 2
        } else {
            0
        };
        FevgaCtx {
            blocked,
            behind,
            check_trap: !rules.unblock_when_piled && !rules.start_quarter_only,
            opp_off,
        }
    }

    #[inline]
    fn marks(_: &TavliPosition) -> u32 {
        0
    }

    #[inline]
    fn store_marks(_: &mut TavliPosition, _: &Compact) {}

    #[inline]
    fn sources(s: &Compact, _: &FevgaCtx) -> u32 {
        if s.occ & 0xffe == 0 && s.off == 0 {
            // FE3: only the runner (the checkers off the 24-point), or a first one.
            let runners = s.occ & !(1 << 24);
            if runners != 0 {
                return runners;
            }
        }
        s.occ
    }

    #[inline]
    fn movable(s: &Compact, die: u8, ctx: &FevgaCtx) -> u32 {
        movable_mask(s.occ, Self::sources(s, ctx), !ctx.blocked, die, true)
    }

    /// Once the runner rule no longer binds, every checker is a source.
    #[inline]
    fn movable_free(s: &Compact, die: u8, ctx: &FevgaCtx) -> u32 {
        movable_mask(s.occ, s.occ, !ctx.blocked, die, true)
    }

    #[inline]
    fn apply(s: &Compact, from: usize, die: u8, _: &FevgaCtx) -> (Compact, u8, bool) {
        let mut n = *s;
        let (to, _, _) = n.shift(from, die, 0);
        (n, to, false)
    }

    /// Not while the runner rule binds (FE3): which checker may move then depends on
    /// the steps before. The walls are [`Self::allowed`]'s.
    #[inline]
    fn order_free(s: &Compact, _: &FevgaCtx) -> bool {
        s.occ & 0xffe != 0 || s.off > 0
    }

    /// No 15th checker borne off with more than four on the board, and no wall within
    /// reach: FE4 needs all six points of 19-24 and FE5 six in a row ahead of every
    /// opposing checker, and each step occupies at most one more point (in 19-24 only
    /// one reached from a higher point of it).
    #[inline]
    fn quiet(s: &Compact, ctx: &FevgaCtx, high: u8, low: u8) -> bool {
        if s.off + 4 >= CHECKERS {
            return false;
        }
        let steps: u32 = if high == low { 4 } else { 2 };
        const START: u32 = 0x3f << 19;
        let quarter = s.occ & START;
        if quarter != 0 {
            let new = (reachable(quarter, high, low) & START & !s.occ & !ctx.blocked)
                .count_ones()
                .min(steps);
            if quarter.count_ones() + new >= 6 {
                return false;
            }
        }
        if ctx.check_trap && ctx.behind != 0 {
            // A wall can only stand on points held now or reachable this roll (a point
            // `d`, `2d`, .. or `high + low` below a checker, not blocked): none when no
            // six of those stand in a row behind every opposing checker.
            let reach = reachable(s.occ, high, low);
            let may = on_his_path(s.occ | reach & !ctx.blocked) & ctx.behind;
            if may & may >> 1 & may >> 2 & may >> 3 & may >> 4 & may >> 5 == 0 {
                return true;
            }
            let held = on_his_path(s.occ) & ctx.behind;
            // The walls that fit below his lowest checker: `behind` is his points 1 up
            // to the one below that checker, so six in a row start at most five below
            // its highest point.
            let top = 31 - ctx.behind.leading_zeros();
            for low_point in 1..top.saturating_sub(4) {
                if (held & 0x3fu32 << low_point).count_ones() + steps >= 6 {
                    return false;
                }
            }
        }
        true
    }

    /// FE4 and, by default, FE5.
    #[inline]
    fn allowed(n: &Compact, ctx: &FevgaCtx) -> bool {
        // FE4: never all six points of the starting quarter.
        const START: u32 = 0x3f << 19;
        if n.occ & START == START {
            return false;
        }
        if ctx.check_trap {
            // FE5: no wall of six with every opposing checker behind it.
            let m = on_his_path(n.occ) & ctx.behind;
            if m & m >> 1 & m >> 2 & m >> 3 & m >> 4 & m >> 5 != 0 {
                return false;
            }
        }
        true
    }

    #[inline]
    fn end(s: &Compact, ctx: &FevgaCtx) -> Option<GameEnd> {
        if s.off == CHECKERS {
            return Some(GameEnd::Win(if ctx.opp_off { 1 } else { 2 }));
        }
        None
    }
}

/// Every distinct legal Fevga play, with the `unblock_when_piled` filter when set (by the
/// full search alone when `every_order`).
pub(crate) fn generate(
    pos: &TavliPosition,
    dice: Dice,
    rules: &RuleSwitches,
    scratch: &mut Scratch,
    out: &mut Vec<TavliPlay>,
    every_order: bool,
) {
    search::<Fevga>(pos, dice, rules, scratch, out, every_order);
    if rules.unblock_when_piled {
        if let Some(wall) = piled_wall(pos) {
            let opens =
                |p: &TavliPlay| (1..=24).any(|m| wall >> m & 1 == 1 && p.after.sides[0][m] == 0);
            if out.iter().any(opens) {
                out.retain(opens);
            }
        }
    }
}
