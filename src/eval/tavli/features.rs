//! The Tavli nets' inputs: a side's view of the board, the shot and prime chances, the
//! expert features per side, the race flag, and the encoding of a position.

use super::*;

/// A side's view of the board in the mover's numbering (1..=24).
struct View {
    variant: Variant,
    /// The mover's counts.
    me: [u8; 26],
    /// The opponent's counts on the mover's points (index 25 its bar, 0 unused).
    op: [u8; 26],
    /// Bit m: the mover's checker on m is pinned / the opponent's checker on m is.
    my_pinned: u32,
    op_pinned: u32,
}

const BOARD: u32 = 0x01ff_fffe;

impl View {
    fn of(pos: &TavliPosition) -> View {
        let variant = pos.variant();
        let me = *pos.counts(0);
        let theirs = pos.counts(1);
        let mut op = [0u8; 26];
        let mut op_pinned = 0u32;
        let their_pins = pos.pins(1);
        for (m, slot) in op.iter_mut().enumerate().take(25).skip(1) {
            let q = opp_point(variant, m);
            *slot = theirs[q];
            if their_pins >> q & 1 == 1 {
                op_pinned |= 1 << m;
            }
        }
        op[25] = theirs[25];
        View {
            variant,
            me,
            op,
            my_pinned: pos.pins(0),
            op_pinned,
        }
    }

    /// Points (bits 1..=24, mover's numbering) the mover holds as blocks: two or more
    /// checkers; in Plakoto also a single checker pinning one of the opponent's; in
    /// Fevga any checker.
    fn my_blocks(&self) -> u32 {
        let mut mask = 0;
        for m in 1..=24 {
            let n = self.me[m];
            let block = match self.variant {
                Variant::Fevga => n >= 1,
                Variant::Plakoto => n >= 2 || (n == 1 && self.op_pinned >> m & 1 == 1),
                _ => n >= 2,
            };
            if block {
                mask |= 1 << m;
            }
        }
        mask
    }

    /// The opponent's blocks, on the mover's points.
    fn op_blocks(&self) -> u32 {
        let mut mask = 0;
        for m in 1..=24 {
            let n = self.op[m];
            let block = match self.variant {
                Variant::Fevga => n >= 1,
                Variant::Plakoto => n >= 2 || (n == 1 && self.my_pinned >> m & 1 == 1),
                _ => n >= 2,
            };
            if block {
                mask |= 1 << m;
            }
        }
        mask
    }
}

/// Bits reachable from `src` by the steps of `dice`, moving toward higher bits when `up`
/// (else lower), never landing on a point of `blocked`, bits limited to 1..=24 (0 is the
/// bar when moving up). Intermediate landings of a combination must be open too.
#[inline]
fn reach(src: u32, dice: Dice, blocked: u32, up: bool) -> u32 {
    let open = BOARD & !blocked;
    let step = |m: u32, d: u8| -> u32 {
        if up {
            (m << d) & open
        } else {
            (m >> d) & open
        }
    };
    let (a, b) = (dice.high(), dice.low());
    if a == b {
        let mut r = src;
        let mut acc = 0;
        for _ in 0..4 {
            r = step(r, a);
            acc |= r;
        }
        acc
    } else {
        let ra = step(src, a);
        let rb = step(src, b);
        ra | rb | step(ra, b) | step(rb, a)
    }
}

/// Chance (over the 36 rolls) that the opponent's next roll can land on a lone checker
/// of the mover that it may hit (Portes) or pin (Plakoto), directly or with a combination
/// whose intermediate points are open.
fn shot_chance(v: &View) -> f32 {
    let mut blots = 0u32;
    for m in 1..=24 {
        if v.me[m] == 1 && v.op[m] == 0 && v.my_pinned >> m & 1 == 0 {
            blots |= 1 << m;
        }
    }
    if blots == 0 {
        return 0.0;
    }
    let src = if v.op[25] > 0 {
        1 // The opponent's bar, point 0 in the mover's numbering.
    } else {
        let mut s = 0u32;
        for m in 1..=24 {
            if v.op[m] > 0 && v.op_pinned >> m & 1 == 0 {
                s |= 1 << m;
            }
        }
        s
    };
    let blocked = v.my_blocks() & !blots;
    let mut hits = 0u32;
    for d in ALL_ROLLS {
        if reach(src, d, blocked, true) & blots != 0 {
            hits += d.weight();
        }
    }
    hits as f32 / 36.0
}

/// The prime features: 1 when the mover holds `len` blocks in a row; otherwise, over the
/// runs of `len` points with exactly one missing, the best chance that the next roll
/// fills the gap (one checker arriving makes it a block: an empty point in Fevga, a lone
/// own checker or, in Plakoto, a lone unpinned opposing one); 0 otherwise.
fn prime_feature(v: &View, blocks: u32, len: u32) -> f32 {
    let window = (1u32 << len) - 1;
    let mut best = 0.0f32;
    let op_blocks = v.op_blocks();
    for start in 1..=(25 - len) {
        let w = window << start;
        let missing = w & !blocks;
        match missing.count_ones() {
            0 => return 1.0,
            1 => {
                let g = missing.trailing_zeros() as usize;
                let fillable = match v.variant {
                    Variant::Fevga => v.op[g] == 0,
                    Variant::Plakoto => {
                        v.me[g] == 1 || (v.me[g] == 0 && v.op[g] == 1 && v.op_pinned >> g & 1 == 0)
                    }
                    _ => v.me[g] == 1,
                };
                if !fillable {
                    continue;
                }
                // Checkers that can leave: any behind the window, or spares inside it.
                let mut src = 0u32;
                for p in (g + 1)..=24 {
                    let inside = w >> p & 1 == 1;
                    let n = v.me[p];
                    let movable = v.my_pinned >> p & 1 == 0;
                    if movable && (n >= 2 || (n == 1 && !inside && p != g)) {
                        src |= 1 << p;
                    }
                }
                if v.variant == Variant::Portes && v.me[25] > 0 {
                    continue;
                }
                let target = 1u32 << g;
                let blocked = op_blocks & !target;
                let mut fills = 0u32;
                for d in ALL_ROLLS {
                    if reach(src, d, blocked, false) & target != 0 {
                        fills += d.weight();
                    }
                }
                best = best.max(fills as f32 / 36.0);
            }
            _ => {}
        }
    }
    best
}

/// The expert features of the side to act in `pos`, each in about [0, 1]:
///
/// 0. checkers borne off, over 15;
/// 1. pip count, over 200;
/// 2. checkers in the home quarter (points 1..=6), over 15;
/// 3. the rearmost checker's point (the bar 25), over 25;
/// 4. the chance that the opponent's next roll hits (Portes) or pins (Plakoto) one of
///    this side's lone checkers;
/// 5. 6. checkers on the bar (Portes): at least one, and (n - 1) / 2;
/// 7. blocks in the home quarter, over 6;
/// 8. this side's pinned checkers, over 3 (Plakoto);
/// 9. this side's mother pinned (Plakoto);
/// 10. when this side pins a checker in its home quarter, its checkers on that point
///     and behind it (the pinner excluded), over 14: the stack that keeps the pin
///     through the bear-off (the paper's ChFrontOfPin);
/// 11. the longest run of blocks, over 6;
/// 12. 13. 14. the prime features of 6, 5 and 4 points (`prime_feature`);
/// 15. Fevga: the side's runner has not yet released its other checkers (no checker
///     on points 1..=11, none borne off).
pub fn side_features(pos: &TavliPosition) -> [f32; SIDE_FEATURES] {
    let v = View::of(pos);
    let variant = v.variant;
    let mut f = [0.0f32; SIDE_FEATURES];
    f[0] = f32::from(pos.off(0)) / 15.0;
    f[1] = pos.pips(0) as f32 / 200.0;
    let home: u32 = v.me[1..=6].iter().map(|&n| u32::from(n)).sum();
    f[2] = home as f32 / 15.0;
    let rear = (1..=25).rev().find(|&m| v.me[m] > 0).unwrap_or(0);
    f[3] = rear as f32 / 25.0;
    if matches!(variant, Variant::Portes | Variant::Plakoto) {
        f[4] = shot_chance(&v);
    }
    if v.me[25] > 0 {
        f[5] = 1.0;
        f[6] = f32::from(v.me[25] - 1) / 2.0;
    }
    let blocks = v.my_blocks();
    f[7] = (blocks & 0x7e).count_ones() as f32 / 6.0;
    if variant == Variant::Plakoto {
        f[8] = v.my_pinned.count_ones() as f32 / 3.0;
        f[9] = f32::from(u8::from(pos.mother_pinned(0)));
        let home_pins = v.op_pinned & 0x7e;
        if home_pins != 0 {
            let last = 31 - home_pins.leading_zeros() as usize;
            let behind: u32 = v.me[last..=24].iter().map(|&n| u32::from(n)).sum();
            f[10] = behind.saturating_sub(1) as f32 / 14.0;
        }
    }
    let mut run = 0u32;
    let mut longest = 0u32;
    for m in 1..=24 {
        if blocks >> m & 1 == 1 {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    f[11] = longest.min(6) as f32 / 6.0;
    if longest >= 3 {
        f[12] = prime_feature(&v, blocks, 6);
        f[13] = prime_feature(&v, blocks, 5);
        f[14] = prime_feature(&v, blocks, 4);
    }
    if variant == Variant::Fevga && pos.off(0) == 0 && v.me[1..=11].iter().all(|&n| n == 0) {
        f[15] = 1.0;
    }
    f
}

/// Whether the two sides can no longer meet: in Portes and Plakoto every checker of each
/// side has passed every checker of the other; in Fevga both sides' checkers are all on
/// their own points 1..=12 (their paths no longer cross).
pub fn is_race(pos: &TavliPosition) -> bool {
    let me = pos.counts(0);
    let them = pos.counts(1);
    let rear = |s: &[u8; 26]| (1..=25).rev().find(|&m| s[m] > 0).unwrap_or(0);
    match pos.variant() {
        Variant::Fevga => rear(me) <= 12 && rear(them) <= 12,
        _ => {
            let (a, b) = (rear(me), rear(them));
            a == 0 || b == 0 || a + b < 25
        }
    }
}

/// Encodes `pos` (the side to act's view) into `out`.
pub fn encode(pos: &TavliPosition, out: &mut TavliInputs) {
    out.index.clear();
    out.value.clear();
    for side in 0..2 {
        let counts = pos.counts(side);
        let base = side * RAW;
        for m in 1..=24 {
            let n = counts[m];
            if n == 0 {
                continue;
            }
            let i = base + (m - 1) * 4;
            out.push(i, 1.0);
            if n >= 2 {
                out.push(i + 1, 1.0);
            }
            if n >= 3 {
                out.push(i + 2, 1.0);
            }
            if n > 3 {
                out.push(i + 3, f32::from(n - 3) / 2.0);
            }
        }
    }
    for side in 0..2 {
        let pins = pos.pins(side);
        let base = 2 * RAW + side * PINS;
        for m in 1..=24 {
            if pins >> m & 1 == 1 {
                out.push(base + m - 1, 1.0);
            }
        }
    }
    let base = 2 * RAW + 2 * PINS;
    for (i, x) in side_features(pos).into_iter().enumerate() {
        out.push(base + i, x);
    }
    for (i, x) in side_features(&pos.swap()).into_iter().enumerate() {
        out.push(base + SIDE_FEATURES + i, x);
    }
    let g = base + 2 * SIDE_FEATURES;
    out.push(g, f32::from(u8::from(is_race(pos))));
    let diff = pos.pips(1) as f32 - pos.pips(0) as f32;
    if diff < 0.0 {
        out.push(g + 1, -diff / 60.0);
    } else {
        out.push(g + 2, diff / 60.0);
    }
}
