//! The committed movegen benchmark set is exactly what its seeded generator produces.

use stargammon::bench::{movegen_set, pubeval_game_positions};

const SEED: u64 = 20_261_122;
const PAIRS: usize = 12_000;

fn generated() -> String {
    let mut out = String::from(
        "# (position, roll) pairs from seeded pubeval self-play games; see tests/movegen_set.rs\n",
    );
    let mut pairs = pubeval_game_positions(SEED, 250);
    pairs.truncate(PAIRS);
    for (p, d) in pairs {
        out.push_str(&format!("{} {} {}\n", p.debug_string(), d.high(), d.low()));
    }
    out
}

#[test]
fn committed_set_matches_its_generator() {
    let set = movegen_set().expect("committed set parses");
    assert_eq!(set.len(), PAIRS);
    assert_eq!(stargammon::bench::MOVEGEN_SET, generated());
}

/// Rewrites the committed set: `cargo test --test movegen_set -- --ignored`.
#[test]
#[ignore]
fn regenerate() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/movegen_bench.txt");
    std::fs::write(path, generated()).expect("write set");
}
