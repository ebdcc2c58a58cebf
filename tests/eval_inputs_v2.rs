//! Encoding 2 of the contact net: every extra feature on hand-made positions with values
//! worked out by hand, and the invariants (encoding 1 as its prefix, range, mirror
//! symmetry, agreement of the shared shot pass with encoding 1's) on positions of
//! seeded games.
#![allow(clippy::unwrap_used)]

use stargammon::eval::encoding::{
    encode, escape_probability, hit_probabilities, side_features, Encoding, SparseInput,
    FEATURES_START, INPUTS, SIDE_FEATURES,
};
use stargammon::eval::inputs_v2::{
    costliest_hit, encode_v2, escapes36, shots, side_extras, EXTRAS_START, EXTRA_FEATURES,
    EXTRA_NAMES, INPUTS_V2,
};
use stargammon::game::{generate_plays, PlayList, Position, ALL_ROLLS};

fn slots(entries: &[(usize, i8)]) -> Position {
    let mut s = [0i8; 26];
    for &(i, n) in entries {
        s[i] = n;
    }
    Position::from_slots(s).unwrap()
}

fn extras(pos: &Position) -> [f32; EXTRA_FEATURES] {
    let mut f = [0.0f32; EXTRA_FEATURES];
    side_extras(pos, &mut f);
    f
}

fn at(name: &str) -> usize {
    EXTRA_NAMES.iter().position(|n| *n == name).unwrap()
}

/// Checks every named feature of the mover of `pos` against its hand-worked value.
fn expect(pos: &Position, want: &[(&str, f64)]) {
    let f = extras(pos);
    for &(name, v) in want {
        let got = f[at(name)] as f64;
        assert!(
            (got - v).abs() < 1e-6,
            "{name}: got {got}, want {v} in {pos:?}"
        );
    }
}

/// Second moment behind the mean, / 576, from a list of (slot, checkers).
fn moment(checkers: &[(usize, u32)]) -> f64 {
    let n: u32 = checkers.iter().map(|c| c.1).sum();
    let mean = checkers
        .iter()
        .map(|&(p, c)| p as f64 * c as f64)
        .sum::<f64>()
        / n as f64;
    let behind: Vec<_> = checkers.iter().filter(|c| c.0 as f64 > mean).collect();
    let k: u32 = behind.iter().map(|c| c.1).sum();
    let sq: f64 = behind
        .iter()
        .map(|&&(p, c)| c as f64 * (p as f64 - mean).powi(2))
        .sum();
    sq / k as f64 / 576.0
}

#[test]
fn names_cover_every_extra_once() {
    assert_eq!(EXTRA_NAMES.len(), EXTRA_FEATURES);
    for n in EXTRA_NAMES {
        assert_eq!(EXTRA_NAMES.iter().filter(|m| **m == n).count(), 1, "{n}");
    }
    assert_eq!(INPUTS_V2, INPUTS + 2 * EXTRA_FEATURES);
    assert_eq!(Encoding::V2.contact_inputs(), INPUTS_V2);
    assert_eq!(Encoding::V2.race_inputs(), INPUTS);
    assert_eq!(Encoding::from_id(2), Some(Encoding::V2));
    assert_eq!(Encoding::from_id(3), Some(Encoding::Board));
    assert_eq!(Encoding::from_id(4), None);
}

#[test]
fn opening_by_hand() {
    // Mover: 2 on 24, 5 on 13, 3 on 8, 5 on 6; the opponent's points are the mover's
    // slots 1 (2), 12 (5), 17 (3), 19 (5).
    expect(
        &Position::OPENING,
        &[
            // 2 x 23 + 5 x 12 + 3 x 7 + 5 x 5 = 152 pips to the opponent's rearmost (slot 1).
            ("break_contact", 152.0 / 200.0),
            ("back_checker", 24.0 / 25.0),
            ("back_anchor", 1.0),
            // The midpoint is the most forward point held on 13..=24.
            ("forward_anchor", 12.0 / 12.0),
            ("pip_loss_expected", 0.0),
            ("pip_loss_worst", 0.0),
            // No roll gets a back checker past 19, 17 and 12 (v1's escape feature agrees).
            ("back_escapes", 0.0),
            // ... so some point of 15..=24 (the 24) has no escape at all.
            ("containment", 1.0),
            ("containment_squared", 1.0),
            // Open landing points per checker: 24: 5 (19 blocked), 13: 5 (12), 8: 6,
            // 6: 4 (1 blocked, 0 is off the board): 10 + 25 + 18 + 20 = 73.
            ("mobility", 73.0 / 90.0),
            ("back_moment", moment(&[(24, 2), (13, 5), (8, 3), (6, 5)])),
            ("entering", 0.0),
            // 13: 5 x 12, 8: 3 x 7, three spares on the 6: 3 x 5 = 96.
            ("timing", 96.0 / 150.0),
            // At most two of 6, 8, 13, 24 in any six consecutive points.
            ("backbone", 2.0 / 6.0),
            ("back_game", 0.0),
            // One point held in the opponent's home board, two checkers there.
            ("back_game_one_anchor", 2.0 / 15.0),
            ("free_pips", 0.0),
            ("off_first_five", 0.0),
            ("off_second_five", 0.0),
            ("off_last_five", 0.0),
        ],
    );
    // The containment of the 15 point alone: every roll but 2-1, 1-1 and 3-3 passes
    // the opponent's 12-slot point (32 of 36).
    let blocked = (1 << 1) | (1 << 12) | (1 << 17) | (1 << 19);
    assert_eq!(escapes36(blocked, 15), 32);
    assert_eq!(escapes36(blocked, 24), 0);
}

#[test]
fn pip_loss_takes_the_costliest_hit_of_each_roll() {
    // Mover blots on 20 and 3, 13 checkers on 6. The opponent has a checker on slot 14
    // (six pips from the blot on 20) and one on slot 1 (two pips from the blot on 3),
    // 13 at home on slot 24.
    let p = slots(&[(20, 1), (3, 1), (6, 13), (14, -1), (1, -1), (24, -13)]);
    // Hitting the blot on 3 costs 22 pips: rolls with a 2, and 1-1: 12 rolls.
    // Hitting only the blot on 20 costs 5: rolls with a 6 and no 2 (9), 5-1 (2), 3-3
    // (1): 12 rolls. Mean (12 x 22 + 12 x 5) / 36 = 9 pips.
    expect(
        &p,
        &[
            ("pip_loss_expected", 9.0 / 24.0),
            ("pip_loss_worst", 22.0 / 24.0),
            // The opponent's rearmost is on slot 1: 19 + 2 + 13 x 5 pips to reach it,
            // nothing has passed it.
            ("break_contact", 86.0 / 200.0),
            ("free_pips", 0.0),
            ("back_checker", 20.0 / 25.0),
            ("back_anchor", 6.0 / 24.0),
            ("forward_anchor", 0.0),
            ("back_game", 0.0),
            ("back_game_one_anchor", 0.0),
            // Eleven spares on the 6 count 5 pips each.
            ("timing", 55.0 / 150.0),
        ],
    );
    let s = shots(&p.swap());
    assert!((s.one - 24.0 / 36.0).abs() < 1e-6, "{s:?}");
    assert_eq!(s.loss_worst, 22);
    // One blot only: the 20, six away from a lone hitter: 17 rolls, 5 pips each.
    let p = slots(&[(20, 1), (6, 14), (14, -1), (24, -14)]);
    expect(
        &p,
        &[
            ("pip_loss_expected", 17.0 * 5.0 / 36.0 / 24.0),
            ("pip_loss_worst", 5.0 / 24.0),
        ],
    );
}

#[test]
fn a_back_game_on_the_bar_by_hand() {
    // Mover: 2 on the bar, anchors on 23 and 24, 9 on the 6. Opponent: points on 19,
    // 20, 21 and 22 of the mover's numbering (its 6, 5, 4 and 3 points), 7 on slot 1.
    let p = slots(&[
        (25, 2),
        (24, 2),
        (23, 2),
        (6, 9),
        (19, -2),
        (20, -2),
        (21, -2),
        (22, -2),
        (1, -7),
    ]);
    // Entering with 2 on the bar against four closed points (dice 1 and 2 enter):
    // one die open (16 ordered rolls) leaves 1; none open (12 non-doubles, 4 doubles)
    // leaves 2: (16 + 24 + 8) / 36 = 4/3 left, / 4.
    // Escapes: from the bar 6 rolls (6-1, 5-2, 6-2), from 24 13 (any 6, 5-1), from 23
    // 20 (any 5 or 6): (2 x 6 + 2 x 13 + 2 x 20) / (6 x 36).
    // Containment: the 24 is the hardest point of 15..=24 to leave (13 rolls).
    // Mobility: bar 2 x 2, 24: 2 x 2 (23, 18), 23: 2 x 2 (18, 17), 6: 9 x 4 = 48.
    expect(
        &p,
        &[
            ("entering", (4.0 / 3.0) / 4.0),
            ("back_escapes", 78.0 / 216.0),
            ("containment", 1.0 - 13.0 / 36.0),
            ("containment_squared", (1.0f64 - 13.0 / 36.0).powi(2)),
            ("mobility", 48.0 / 90.0),
            ("back_game", 6.0 / 15.0),
            ("back_game_one_anchor", 0.0),
            ("back_checker", 1.0),
            ("back_anchor", 1.0),
            ("forward_anchor", 2.0 / 12.0),
            ("break_contact", 183.0 / 200.0),
            ("backbone", 2.0 / 6.0),
            ("timing", 35.0 / 150.0),
            ("back_moment", moment(&[(25, 2), (24, 2), (23, 2), (6, 9)])),
            ("pip_loss_expected", 0.0),
        ],
    );
    // Encoding 1's entering feature, (closed / 6)^2, and its rearmost escape agree.
    let mut f = [0.0f32; SIDE_FEATURES];
    side_features(&p, true, &mut f);
    assert!((f[3] - 16.0 / 36.0).abs() < 1e-6);
    assert!((escape_probability(&p, 25) - 6.0 / 36.0).abs() < 1e-6);
}

#[test]
fn primes_and_forward_anchors_by_hand() {
    // Mover: points 4, 5, 7, 8, 9 (a broken prime of five in 4..=9), a point on 16,
    // the rest on 2. Opponent: 15 checkers on slots 20 and 21 (a race).
    let p = slots(&[
        (2, 3),
        (4, 2),
        (5, 2),
        (7, 2),
        (8, 2),
        (9, 2),
        (16, 2),
        (20, -8),
        (21, -7),
    ]);
    expect(
        &p,
        &[
            ("backbone", 5.0 / 6.0),
            ("forward_anchor", 9.0 / 12.0),
            ("back_anchor", 16.0 / 24.0),
            // Every mover checker has passed the opponent's (slot 20): no contact.
            ("break_contact", 0.0),
            (
                "free_pips",
                (6.0 + 8.0 + 10.0 + 14.0 + 16.0 + 18.0 + 32.0) / 150.0,
            ),
            ("back_escapes", 1.0),
            // The opponent's 20 and 21 hold a checker on the 24 with 26 rolls out of
            // 36 (the 5s and 6s, 4-1, 3-2, 4-2): the hardest point of 15..=24.
            ("containment", 1.0 - 26.0 / 36.0),
            // 7, 8, 9 and 16: (6 + 7 + 8 + 15) x 2 = 72; one spare on the 2: 1.
            ("timing", 73.0 / 150.0),
        ],
    );
}

#[test]
fn borne_off_in_three_grades() {
    for (off, want) in [
        (0u8, [0.0, 0.0, 0.0]),
        (3, [0.6, 0.0, 0.0]),
        (5, [1.0, 0.0, 0.0]),
        (7, [1.0, 0.4, 0.0]),
        (12, [1.0, 1.0, 0.4]),
        (14, [1.0, 1.0, 0.8]),
    ] {
        let p = slots(&[(3, (15 - off) as i8), (24, -15)]);
        let f = extras(&p);
        let got = [
            f[at("off_first_five")],
            f[at("off_second_five")],
            f[at("off_last_five")],
        ];
        for k in 0..3 {
            assert!((got[k] - want[k]).abs() < 1e-6, "{off} off: {got:?}");
        }
    }
}

fn dense_v2(pos: &Position) -> Vec<f32> {
    let mut x = SparseInput::default();
    encode_v2(pos, &mut x);
    x.to_dense_len(INPUTS_V2)
}

fn game_positions() -> Vec<Position> {
    let mut v: Vec<Position> = stargammon::bench::random_game_positions(41, 60)
        .into_iter()
        .chain(stargammon::bench::pubeval_game_positions(42, 60))
        .map(|(p, _)| p)
        .collect();
    v.dedup();
    v
}

#[test]
fn encoding_1_is_the_prefix_and_every_input_is_in_range() {
    let mut x1 = SparseInput::default();
    let mut max = vec![0.0f32; INPUTS_V2];
    for pos in game_positions() {
        let v2 = dense_v2(&pos);
        encode(&pos, &mut x1);
        assert_eq!(&v2[..INPUTS], &x1.to_dense()[..], "{pos:?}");
        for (i, &v) in v2.iter().enumerate().skip(EXTRAS_START) {
            assert!(v.is_finite() && (0.0..=1.0).contains(&v), "input {i} = {v}");
            max[i] = max[i].max(v);
        }
        // The sparse list is in increasing index order and fits its capacity.
        let mut x = SparseInput::default();
        encode_v2(&pos, &mut x);
        assert!(x.index[..x.len].windows(2).all(|w| w[0] < w[1]));
    }
    // Every extra feature of the mover varies over real games (none is stuck at 0).
    for k in 0..EXTRA_FEATURES {
        assert!(
            max[EXTRAS_START + k] > 0.0,
            "{} never nonzero",
            EXTRA_NAMES[k]
        );
    }
}

#[test]
fn mirror_symmetry() {
    // Seen from the other side, the two sides' blocks trade places and the pip lead
    // and deficit swap.
    let board = 98;
    for pos in game_positions() {
        let a = dense_v2(&pos);
        let b = dense_v2(&pos.swap());
        assert_eq!(&a[..board], &b[board..2 * board]);
        assert_eq!(&a[board..2 * board], &b[..board]);
        let f = FEATURES_START;
        let s = SIDE_FEATURES;
        assert_eq!(&a[f..f + s], &b[f + s..f + 2 * s], "{pos:?}");
        assert_eq!(&a[f + s..f + 2 * s], &b[f..f + s]);
        assert_eq!(a[f + 2 * s], b[f + 2 * s + 1]);
        let e = EXTRAS_START;
        let n = EXTRA_FEATURES;
        assert_eq!(&a[e..e + n], &b[e + n..e + 2 * n], "{pos:?}");
        assert_eq!(&a[e + n..e + 2 * n], &b[e..e + n]);
    }
}

#[test]
fn the_shared_shot_pass_matches_encoding_1() {
    for pos in game_positions() {
        for hitter in [pos, pos.swap()] {
            let s = shots(&hitter);
            assert_eq!((s.one, s.two), hit_probabilities(&hitter), "{hitter:?}");
            assert!(s.loss_worst <= 24);
            assert!(s.loss_expected <= s.loss_worst as f32 * s.one + 1e-4);
        }
    }
}

#[test]
fn table_escapes_match_the_encoding_1_count() {
    for pos in game_positions() {
        let s = pos.slots();
        let blocked = (1..=24)
            .filter(|&p| s[p] <= -2)
            .fold(0u32, |m, p| m | 1 << p);
        for p in 1..=25 {
            let want = (escape_probability(&pos, p) * 36.0).round() as u32;
            assert_eq!(escapes36(blocked, p), want, "{pos:?} {p}");
        }
    }
}

/// The pip loss counter against move generation: for each (position, roll), the
/// costliest blot some legal play hits (a hit on the hitter's slot t costs the victim t
/// pips) against the bit-mask count. Like encoding 1's shot counter it follows single
/// checkers and ignores that both dice must be played, so it may differ now and then.
#[test]
fn pip_loss_counter_agrees_with_move_generation() {
    let mut list = PlayList::new();
    let (mut n, mut agree) = (0u32, 0u32);
    let (mut exact_sum, mut fast_sum) = (0u64, 0u64);
    for pos in game_positions().iter().filter(|p| !p.is_game_over()) {
        for d in ALL_ROLLS {
            generate_plays(pos, d, &mut list);
            let exact = list
                .iter()
                .flat_map(|play| play.steps().iter().filter(|s| s.hit).map(|s| s.to as u32))
                .max()
                .unwrap_or(0);
            let fast = costliest_hit(pos, d);
            n += 1;
            agree += (exact == fast) as u32;
            exact_sum += (exact * d.weight()) as u64;
            fast_sum += (fast * d.weight()) as u64;
        }
    }
    let rate = agree as f64 / n as f64;
    let bias = fast_sum as f64 / exact_sum as f64 - 1.0;
    println!("pip loss agreement over {n} (position, roll) pairs: {rate:.4}, mean bias {bias:+.4}");
    assert!(n > 10_000);
    assert!(rate > 0.995, "{rate}");
    assert!(bias.abs() < 0.005, "{bias}");
}

/// How many inputs are nonzero on the benchmark's contact positions: the rows the first
/// layer adds (printed with `--nocapture`), never more than a `SparseInput` holds.
#[test]
fn nonzero_inputs_of_the_benchmark_positions() {
    let positions = stargammon::bench::eval_positions().unwrap();
    let mut x = SparseInput::default();
    let (mut v1, mut v2, mut most) = (0usize, 0usize, 0usize);
    for pos in &positions {
        encode(pos, &mut x);
        v1 += x.len;
        encode_v2(pos, &mut x);
        v2 += x.len;
        most = most.max(x.len);
    }
    let n = positions.len() as f64;
    println!(
        "mean nonzero inputs over {} positions: encoding 1 {:.1}, encoding 2 {:.1} (most {most})",
        positions.len(),
        v1 as f64 / n,
        v2 as f64 / n
    );
    assert!(most <= stargammon::eval::encoding::MAX_NONZERO);
}
