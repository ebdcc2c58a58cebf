//! The FIBS bot's reading of server lines: the line buffer that splits the telnet stream,
//! the CLIP line classifier, the own-info line, and a board line answered by the bot's
//! brain (a seeded random decider) and judged for a resignation offer. An answer the brain
//! gives must be a command the server knows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stargammon::fibs::brain::{answer_board, judge_resignation};
use stargammon::fibs::clip::{classify, LineBuffer, OwnInfo};
use stargammon::players::simple::RandomPlayer;

fuzz_target!(|data: &[u8]| {
    let mut buffer = LineBuffer::new();
    let cut = data.first().map_or(0, |&b| b as usize % (data.len() + 1));
    let mut lines = buffer.push(&data[..cut]);
    lines.extend(buffer.push(&data[cut..]));
    let _ = buffer.partial();
    let _ = buffer.at_login_prompt();
    lines.push(stargammon_fuzz::text(data));
    for line in &lines {
        let _ = classify(line);
        if let Ok(info) = OwnInfo::parse(line) {
            let _ = info.fixes();
        }
        let mut decider = RandomPlayer::new(7);
        if let Ok(Some(command)) = answer_board(&mut decider, line) {
            let word = command.split(' ').next().unwrap_or_default();
            assert!(
                ["move", "double", "roll", "accept", "reject"].contains(&word),
                "unexpected command {command:?}"
            );
        }
        for points in 1..=3 {
            let _ = judge_resignation(None, line, points);
        }
    }
});
