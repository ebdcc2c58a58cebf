#![allow(clippy::unwrap_used)]
//! The transposition table under concurrent writers and readers: no torn entry is ever
//! returned.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use stargammon::search::tt::{Bound, TranspositionTable};

/// Keys collide heavily on purpose: a tiny table and few keys per bucket.
const KEYS: u64 = 4096;

fn key(i: u64) -> u64 {
    // Distinct, well-spread non-zero keys.
    (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1
}

/// The only values ever written for `k` at `depth`: a writer writes variant `depth` of
/// the key, so a reader can check value, bound and best play against the key.
fn expected(k: u64, depth: u8) -> (i32, Bound, Option<u16>) {
    let h = k.rotate_left(depth as u32 * 7) ^ (depth as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    let value = (h as i32) >> 4;
    let bound = match h % 3 {
        0 => Bound::Exact,
        1 => Bound::Lower,
        _ => Bound::Upper,
    };
    let best = if h & 8 == 0 {
        None
    } else {
        Some((h >> 20) as u16 & 0x7FF)
    };
    (value, bound, best)
}

#[test]
fn concurrent_writers_and_readers_never_see_torn_entries() {
    let tt = Arc::new(TranspositionTable::new(0)); // a single bucket of four entries
    let big = Arc::new(TranspositionTable::new(1));
    let stop = Arc::new(AtomicBool::new(false));
    let hits = Arc::new(AtomicU64::new(0));
    let reads = Arc::new(AtomicU64::new(0));
    let mut handles = Vec::new();
    for t in 0..6u64 {
        for table in [tt.clone(), big.clone()] {
            let stop = stop.clone();
            let hits = hits.clone();
            let reads = reads.clone();
            handles.push(std::thread::spawn(move || {
                let mut x = t.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) || n < 200_000 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let k = key(x % KEYS);
                    if t % 2 == 0 || x & 1 == 0 {
                        let depth = (x >> 40) as u8 % 12;
                        let (v, b, best) = expected(k, depth);
                        table.store(k, depth, b, v, best);
                    } else {
                        reads.fetch_add(1, Ordering::Relaxed);
                        if let Some(e) = table.probe(k) {
                            hits.fetch_add(1, Ordering::Relaxed);
                            let (v, b, best) = expected(k, e.depth);
                            assert_eq!((e.value, e.bound, e.best), (v, b, best), "torn entry");
                        }
                    }
                    n += 1;
                    if n > 3_000_000 {
                        break;
                    }
                }
            }));
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.join().unwrap();
    }
    assert!(reads.load(Ordering::Relaxed) > 100_000);
    assert!(
        hits.load(Ordering::Relaxed) > 1_000,
        "the readers found entries"
    );
}
