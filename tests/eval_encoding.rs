//! Input encoding and features: hand-computed values on small positions, and the
//! measured agreement of the fast shot counter with exact move generation.
#![allow(clippy::unwrap_used)]

use stargammon::eval::encoding::{
    encode, escape_probability, hit_probabilities, hits_with, side_features, Encoding, SparseInput,
    FEATURES_START, INPUTS, SIDE_FEATURES,
};
use stargammon::game::{generate_plays, PlayList, Position, ALL_ROLLS};

fn dense(pos: &Position) -> Vec<f32> {
    let mut x = SparseInput::default();
    encode(pos, &mut x);
    x.to_dense()
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

#[test]
fn opening_board_units() {
    let x = dense(&Position::OPENING);
    assert_eq!(x.len(), INPUTS);
    // Mover: 2 on 24, 5 on 13, 3 on 8, 5 on 6; the opponent the same in its numbering.
    for base in [0, 98] {
        assert_eq!(x[base + 4 * 23 + 1], 1.0, "two on the 24 point");
        assert_eq!(x[base + 4 * 12 + 2], 1.0, "three or more on 13");
        assert_eq!(x[base + 4 * 12 + 3], 1.0, "(5 - 3) / 2 on 13");
        assert_eq!(x[base + 4 * 7 + 2], 1.0, "three on 8");
        assert_eq!(x[base + 4 * 7 + 3], 0.0, "no extra unit for exactly three");
        assert_eq!(x[base + 4 * 5 + 2], 1.0);
        assert_eq!(x[base + 4 * 5 + 3], 1.0);
        assert_eq!(x[base + 96], 0.0, "bar");
        assert_eq!(x[base + 97], 0.0, "off");
    }
    let board_nonzero = x[..FEATURES_START].iter().filter(|v| **v != 0.0).count();
    assert_eq!(board_nonzero, 2 * 6);
}

#[test]
fn opening_features_by_hand() {
    let mut f = [0.0f32; SIDE_FEATURES];
    side_features(&Position::OPENING, true, &mut f);
    assert_eq!(f[0], 0.0, "no blots, no shots");
    assert_eq!(f[1], 0.0);
    // Pips to bring home: 2 x 18 + 5 x 7 + 3 x 2 = 77.
    assert!(close(f[2], 0.77));
    // One closed point (the opponent's 6) among the entry points: (1/6)^2.
    assert!(close(f[3], 1.0 / 36.0));
    // The back checkers cannot jump the 8-point/6-point/13-point wall with any roll.
    assert_eq!(f[4], 0.0);
    assert_eq!(f[5], 0.0);
    assert!(close(f[6], 1.0 / 6.0), "no two adjacent points");
    assert!(close(f[7], 1.0 / 6.0), "the 6 point");
    assert!(close(f[8], 167.0 / 150.0));
    assert_eq!(f[9], 0.0);
    let x = dense(&Position::OPENING);
    assert_eq!(&x[FEATURES_START..FEATURES_START + SIDE_FEATURES], &f[..]);
    assert_eq!(
        &x[FEATURES_START + SIDE_FEATURES..FEATURES_START + 2 * SIDE_FEATURES],
        &f[..],
        "symmetric opening"
    );
    assert_eq!(x[INPUTS - 2], 0.0);
    assert_eq!(x[INPUTS - 1], 0.0);
}

fn slots(entries: &[(usize, i8)]) -> Position {
    let mut s = [0i8; 26];
    for &(i, n) in entries {
        s[i] = n;
    }
    Position::from_slots(s).unwrap()
}

#[test]
fn direct_six_away_is_seventeen_in_thirty_six() {
    // Mover checker on 13, opponent blot on the mover's 7 point: six away.
    let p = slots(&[(13, 1), (7, -1)]);
    let (one, two) = hit_probabilities(&p);
    assert!(close(one, 17.0 / 36.0), "{one}");
    assert_eq!(two, 0.0);
    // An opponent point on 10 blocks only the 3-3 route.
    let p = slots(&[(13, 1), (7, -1), (10, -2)]);
    assert!(close(hit_probabilities(&p).0, 16.0 / 36.0));
}

#[test]
fn two_blots_one_per_die() {
    // Blots 1 and 2 away from a mover point with two checkers.
    let p = slots(&[(13, 2), (12, -1), (11, -1)]);
    let d = stargammon::game::Dice::new(2, 1).unwrap();
    assert_eq!(hits_with(&p, d), (true, true));
    let d = stargammon::game::Dice::new(6, 5).unwrap();
    assert_eq!(hits_with(&p, d), (false, false));
}

#[test]
fn bar_checker_hits_only_from_entry() {
    // Two mover checkers on the bar: each die can only enter. Blot on the entry point 20
    // (a 5) and another on 5 that a board checker 1 away could hit with a 1.
    let p = slots(&[(25, 2), (20, -1), (6, 1), (5, -1)]);
    let five_one = stargammon::game::Dice::new(5, 1).unwrap();
    assert_eq!(hits_with(&p, five_one), (true, false));
}

#[test]
fn escape_past_a_single_point() {
    // Mover checker on 24, one opponent point on 18 (six away): escapes unless the roll
    // lands on 18 or cannot pass it: everything except 6-6 and 3-3 (both stop at 18)
    // and 2-2 (24 -> 16 passes) ... computed: a roll escapes when the checker can reach
    // below 18 without landing on it.
    let p = slots(&[(24, 1), (18, -2)]);
    let mut expect = 0;
    for d in ALL_ROLLS {
        let (a, b) = (d.high() as i32, d.low() as i32);
        let ok = if a != b {
            (a + b > 6) && (24 - a != 18 || 24 - b != 18)
        } else {
            // Steps of a until blocked.
            let mut q = 24;
            for _ in 0..4 {
                if q - a == 18 {
                    break;
                }
                q -= a;
            }
            q < 18
        };
        if ok {
            expect += d.weight();
        }
    }
    assert!(close(escape_probability(&p, 24), expect as f32 / 36.0));
    // Nothing in front: certain.
    assert_eq!(escape_probability(&slots(&[(24, 1), (2, -2)]), 24), 1.0);
}

#[test]
fn race_features() {
    // A race: no shots, escapes certain, pip lead counted.
    let p = slots(&[(5, 3), (20, -2)]);
    let x = dense(&p);
    let f = &x[FEATURES_START..FEATURES_START + SIDE_FEATURES];
    assert_eq!(f[0], 0.0);
    assert_eq!(f[4], 1.0);
    assert_eq!(f[5], 1.0);
    // Mover 15 pips, opponent 2 x 5 = 10 pips: behind by 5.
    assert!(close(x[INPUTS - 2], 0.0));
    assert!(close(x[INPUTS - 1], 5.0 / 50.0));
    // Borne off: 12 of the mover's, 13 of the opponent's.
    assert!(close(x[97], 12.0 / 15.0));
    assert!(close(x[98 + 97], 13.0 / 15.0));
}

/// Exact "some play hits at least one / two blots" by move generation.
fn exact_hits(p: &Position, d: stargammon::game::Dice, list: &mut PlayList) -> (bool, bool) {
    generate_plays(p, d, list);
    let mut one = false;
    let mut two = false;
    for play in list.iter() {
        let h = play.steps().iter().filter(|s| s.hit).count();
        one |= h >= 1;
        two |= h >= 2;
    }
    (one, two)
}

#[test]
fn fast_shot_counter_agrees_with_move_generation() {
    let positions = stargammon::bench::random_game_positions(11, 60);
    let mut list = PlayList::new();
    let (mut n, mut agree1, mut agree2) = (0u32, 0u32, 0u32);
    for (p, _) in positions.iter().filter(|(p, _)| !p.is_game_over()) {
        for d in ALL_ROLLS {
            let exact = exact_hits(p, d, &mut list);
            let fast = hits_with(p, d);
            n += 1;
            agree1 += (exact.0 == fast.0) as u32;
            agree2 += (exact.1 == fast.1) as u32;
        }
    }
    let r1 = agree1 as f64 / n as f64;
    let r2 = agree2 as f64 / n as f64;
    println!("shot counter agreement over {n} (position, roll) pairs: one {r1:.4}, two {r2:.4}");
    assert!(r1 > 0.97, "at least one hit: {r1}");
    assert!(r2 > 0.95, "two hits: {r2}");
}

/// The escape count written the slow, obvious way.
fn escape_reference(pos: &Position, p: usize) -> f32 {
    let s = pos.slots();
    let blocked = |q: i32| (1..=24).contains(&q) && s[q as usize] <= -2;
    let lo = p.saturating_sub(12).max(1);
    let lowest = (lo..p).find(|&q| blocked(q as i32));
    let Some(lowest) = lowest else {
        return 1.0;
    };
    let p = p as i32;
    let mut count = 0;
    for d in ALL_ROLLS {
        let (a, b) = (d.high() as i32, d.low() as i32);
        let mut best = p;
        if a != b {
            for (x, y) in [(a, b), (b, a)] {
                if !blocked(p - x) {
                    best = best.min(p - x);
                    if !blocked(p - x - y) {
                        best = best.min(p - x - y);
                    }
                }
            }
        } else {
            let mut q = p;
            for _ in 0..4 {
                if blocked(q - a) {
                    break;
                }
                q -= a;
            }
            best = q;
        }
        if best < lowest as i32 {
            count += d.weight();
        }
    }
    count as f32 / 36.0
}

#[test]
fn table_driven_escapes_match_the_reference() {
    let positions = stargammon::bench::random_game_positions(21, 40);
    let mut checked = 0;
    for (pos, _) in &positions {
        for q in [pos.swap(), *pos] {
            for p in 1..=25 {
                if q.slots()[p] > 0 {
                    assert_eq!(
                        escape_probability(&q, p),
                        escape_reference(&q, p),
                        "{q:?} {p}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn shot_probabilities_sum_the_per_roll_answers() {
    for (pos, _) in stargammon::bench::random_game_positions(31, 40) {
        let (mut one, mut two) = (0, 0);
        for d in ALL_ROLLS {
            let (a, b) = hits_with(&pos, d);
            one += a as u32 * d.weight();
            two += b as u32 * d.weight();
        }
        assert_eq!(
            hit_probabilities(&pos),
            (one as f32 / 36.0, two as f32 / 36.0),
            "{pos:?}"
        );
    }
}

fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

/// Encoding 1 and the TD nets' evaluations are pinned bit for bit: these digests were
/// taken on the code before encoding 2 existed (when the TD nets, `weights/td.sgnet`, were
/// the shipped ones), over the positions of 80 seeded random and 80 pubeval games (12,724
/// positions), and must not move while encoding 1 is read.
#[test]
fn encoding_1_and_the_td_nets_evaluations_are_pinned() {
    use stargammon::eval::{Evaluator, NetSet, NeuralEvaluator};
    let ev = NeuralEvaluator::new(
        NetSet::load(std::path::Path::new("weights/td.sgnet")).unwrap(),
        "td",
    );
    let mut enc = 0xcbf2_9ce4_8422_2325u64;
    let mut out = 0xcbf2_9ce4_8422_2325u64;
    let mut x = SparseInput::default();
    let mut n = 0;
    for seed in [1u64, 2] {
        for (pos, _) in stargammon::bench::random_game_positions(seed, 40)
            .into_iter()
            .chain(stargammon::bench::pubeval_game_positions(seed, 40))
        {
            encode(&pos, &mut x);
            for v in x.to_dense() {
                fnv(&mut enc, &v.to_bits().to_le_bytes());
            }
            for v in ev.evaluate(&pos).0 {
                fnv(&mut out, &v.to_bits().to_le_bytes());
            }
            n += 1;
        }
    }
    assert_eq!(n, 12_724);
    assert_eq!(enc, 0xa093_3c3f_07c4_f51a, "encoding 1 changed");
    // The evaluations' last bits depend on the kernels: pinned on the AVX2/FMA path.
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        assert_eq!(
            out, 0xf35d_e987_08c6_5e35,
            "the TD nets' evaluations changed"
        );
    }
}

/// A digest of every input of both encodings, each position's nonzero inputs in order
/// (index and the value's bits) and their count.
fn mix(digest: &mut u64, x: u64) {
    *digest = (*digest ^ x).wrapping_mul(0x0100_0000_01b3);
}

/// The encoders were rewritten for speed with their inputs unchanged bit for bit: both
/// encodings give, on every position of 600 seeded games of random plays and each of them
/// with the sides swapped (113,386 positions), the inputs of the first implementation,
/// whose digests are pinned here (that implementation is in git history, before the
/// packed escape table).
#[test]
fn both_encodings_give_the_first_implementations_inputs_bit_for_bit() {
    use stargammon::eval::encoding::encode;
    use stargammon::eval::inputs_v2::encode_v2;
    let mut d1: u64 = 0xcbf2_9ce4_8422_2325;
    let mut d2: u64 = 0xcbf2_9ce4_8422_2325;
    // Encoding 2 as the evaluator computes it (one side at a time).
    let mut d3: u64 = 0xcbf2_9ce4_8422_2325;
    let mut s = SparseInput::default();
    let mut n = 0;
    for seed in [31u64, 33] {
        for (p, _) in stargammon::testing::random_game_positions(seed, 300) {
            for p in [p, p.swap()] {
                if p.is_game_over() {
                    continue;
                }
                encode(&p, &mut s);
                for i in 0..s.len {
                    mix(
                        &mut d1,
                        u64::from(s.index[i]) << 32 | u64::from(s.value[i].to_bits()),
                    );
                }
                mix(&mut d1, s.len as u64);
                encode_v2(&p, &mut s);
                for i in 0..s.len {
                    mix(
                        &mut d2,
                        u64::from(s.index[i]) << 32 | u64::from(s.value[i].to_bits()),
                    );
                }
                mix(&mut d2, s.len as u64);
                Encoding::V2.encode_contact(&p, &mut s);
                for i in 0..s.len {
                    mix(
                        &mut d3,
                        u64::from(s.index[i]) << 32 | u64::from(s.value[i].to_bits()),
                    );
                }
                mix(&mut d3, s.len as u64);
                n += 1;
            }
        }
    }
    assert_eq!(n, 113_386);
    assert_eq!(d1, 0x8e3c_dc2e_9a05_34a7, "encoding 1's inputs changed");
    assert_eq!(d2, 0x7697_2667_a596_35ed, "encoding 2's inputs changed");
    assert_eq!(d3, d2, "encoding 2 side by side differs");
}

/// The evaluator's encoding 2, which keeps the side to act's part from one position to
/// the next, gives [`encode_v2`]'s inputs bit for bit on the children of every position of
/// 200 seeded games, evaluated in move-generation order as a batch is (the side to act
/// the same from one child to the next but after a hit), and on the parents in between.
#[test]
fn the_kept_side_gives_the_same_inputs_bit_for_bit() {
    use stargammon::eval::inputs_v2::encode_v2;
    use stargammon::eval::sides::SideCache;
    let mut cache = SideCache::default();
    let mut want = SparseInput::default();
    let mut got = SparseInput::default();
    let mut list = PlayList::new();
    let mut children = 0;
    let mut check = |p: &Position, cache: &mut SideCache| {
        encode_v2(p, &mut want);
        Encoding::V2.encode_for_cached(p, &mut got, cache);
        if p.phase() == stargammon::game::Phase::Contact {
            assert_eq!(got.len, want.len, "{p:?}");
            assert_eq!(got.index[..got.len], want.index[..want.len], "{p:?}");
            let bits = |x: &SparseInput| {
                x.value[..x.len]
                    .iter()
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&got), bits(&want), "{p:?}");
        }
    };
    for (pos, dice) in stargammon::testing::random_game_positions(57, 200) {
        check(&pos, &mut cache);
        generate_plays(&pos, dice, &mut list);
        for play in list.iter() {
            if play.position.is_game_over() {
                continue;
            }
            check(&play.next_position(), &mut cache);
            children += 1;
        }
    }
    assert!(children > 100_000, "only {children} children");
}
