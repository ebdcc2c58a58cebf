//! The .mat files the match runner writes can be imported by gnubg, and gnubg reads the
//! same games and final score from them.

#![allow(clippy::unwrap_used)]

mod common;

use common::{gnubg_or_skip, run_gnubg};
use stargammon::arena::referee::{play_match, write_mat, DiceStream};
use stargammon::players::Decide;

#[test]
fn gnubg_imports_written_matches_with_the_same_score() {
    if gnubg_or_skip("gnubg_imports_written_matches_with_the_same_score").is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("stargammon-mat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for seed in 0..8u64 {
        let mut a = common::RandomSeat::new(seed, 0.15, 0.3);
        let mut b = common::RandomSeat::new(seed + 10, 0.15, 0.3);
        let mut seats: [&mut dyn Decide; 2] = [&mut a, &mut b];
        let record = play_match(
            &mut seats,
            &mut DiceStream::new(seed),
            5,
            true,
            ["alpha".into(), "beta".into()],
        );
        let path = dir.join(format!("m{seed}.mat"));
        let mut f = std::fs::File::create(&path).unwrap();
        write_mat(&mut f, 5, std::slice::from_ref(&record)).unwrap();
        drop(f);

        let script = format!(
            "set display off\nimport mat {}\nshow score\n",
            path.display()
        );
        let out = run_gnubg(&script);
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let mat = std::fs::read_to_string(&path).unwrap();
        let expected = format!("alpha {}, beta {}", record.score[0], record.score[1]);
        assert!(
            text.contains(&expected),
            "gnubg did not read the final score {expected}:\n{text}\n--- file:\n{mat}"
        );
        let games = record.games.len();
        assert!(
            text.contains(&format!("after {games} game")),
            "gnubg read a different number of games than {games}:\n{text}"
        );
    }
}
