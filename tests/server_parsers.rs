//! Never-panic and framing properties of the server's pure parsers, and the UBGI loop over
//! in-memory input.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use bytes::BytesMut;
use proptest::prelude::*;
use stargammon::cli::ubgi::{run_ubgi, Session};
use stargammon::config::BoardConvention;
use stargammon::engine::{Engine, EngineSettings, SearchPlan};
use stargammon::eval::simple::PipSigmoid;
use stargammon::game::{legal_plays, Dice, Position, Variant};
use stargammon::protocol::gnubg::{format_play, parse_request, MoveStyle};
use stargammon::protocol::lines::{Frame, LineCodec};
use stargammon::protocol::ubgi::parse_command;
use stargammon::search::{Searcher, TranspositionTable};
use tokio_util::codec::Decoder;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn request_parser_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse_request(&bytes);
        let _ = parse_command(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn request_parser_never_panics_on_near_misses(
        words in prop::collection::vec(
            prop::sample::select(vec![
                "board:", "board:a:b", "evaluation", "fibsboard", "plies", "7", "-1", "x",
                "cubeful", "cubeless", "noise", "0.5", "nan", "prune", "deterministic",
                "jacobyrule", "crawfordrule", "beavers", "on", "off", "resignation", "2",
                "set", "debug", "version", "help", "exit", "quit", "é", "",
            ]),
            0..8,
        )
    ) {
        let _ = parse_request(words.join(" ").as_bytes());
    }

    #[test]
    fn codec_reassembles_lines_from_any_chunking(
        lines in prop::collection::vec("[a-z:0-9 ]{0,40}", 1..10),
        cuts in prop::collection::vec(1usize..16, 1..40),
        nul in any::<bool>(),
    ) {
        let mut stream = Vec::new();
        for l in &lines {
            stream.extend_from_slice(l.as_bytes());
            stream.push(b'\n');
            if nul {
                stream.push(0);
            }
        }
        let mut codec = LineCodec::new(64);
        let mut buf = BytesMut::new();
        let mut got = Vec::new();
        let mut pos = 0;
        let mut i = 0;
        while pos < stream.len() {
            let n = cuts[i % cuts.len()].min(stream.len() - pos);
            buf.extend_from_slice(&stream[pos..pos + n]);
            pos += n;
            i += 1;
            while let Some(f) = codec.decode(&mut buf).unwrap() {
                got.push(f);
            }
        }
        let texts: Vec<String> = got
            .iter()
            .map(|f| match f {
                Frame::Line { bytes, .. } => String::from_utf8(bytes.to_vec()).unwrap(),
                Frame::TooLong => "<too long>".to_string(),
            })
            .collect();
        prop_assert_eq!(texts, lines);
    }

    #[test]
    fn codec_memory_stays_bounded(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 0..30)) {
        let mut codec = LineCodec::new(100);
        let mut buf = BytesMut::new();
        for c in chunks {
            buf.extend_from_slice(&c);
            while codec.decode(&mut buf).unwrap().is_some() {}
            prop_assert!(buf.len() <= 100 + 1);
        }
    }
}

fn engine() -> Engine {
    let searcher = Searcher::new(Arc::new(PipSigmoid), Arc::new(TranspositionTable::new(4)));
    Engine::new(searcher, SearchPlan::default(), EngineSettings::default())
}

#[test]
fn ubgi_session() {
    let board = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
    let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10";
    let input = format!("ubgi\nisready\n{board}\nXGID=foo\nfrobnicate\n{xgid}\nquit\nversion\n");
    let mut out = Vec::new();
    run_ubgi(
        engine(),
        BoardConvention::Auto,
        Session::new(Variant::Backgammon, &"net,depth=1".parse().unwrap()),
        std::io::Cursor::new(input.into_bytes()),
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("id name "), "{text}");
    assert!(lines[1].starts_with("id author "));
    assert!(lines[2].starts_with("id version "));
    assert_eq!(lines[3], "readyok");
    assert_eq!(lines[4], "readyok");
    let legal: Vec<String> = legal_plays(&Position::OPENING, Dice::new(6, 2).unwrap())
        .iter()
        .map(|p| format_play(p, MoveStyle::Ubgi))
        .collect();
    assert!(legal.contains(&lines[5].to_string()), "{}", lines[5]);
    assert!(!lines[5].contains('*'));
    assert_eq!(lines[6], "sorry");
    assert_eq!(lines[7], "sorry");
    // The XGID is the opening with 5-2 to play.
    let legal: Vec<String> = legal_plays(&Position::OPENING, Dice::new(5, 2).unwrap())
        .iter()
        .map(|p| format_play(p, MoveStyle::Ubgi))
        .collect();
    assert!(legal.contains(&lines[8].to_string()), "{}", lines[8]);
    // Nothing after quit.
    assert_eq!(lines.len(), 9, "{text}");
}

#[test]
fn ubgi_plays_the_tavli_games_after_a_variant_command() {
    use stargammon::tavli::{legal_plays as tavli_plays, parse_position_string, RuleSwitches};
    let input = "ubgi\nvariant plakoto\nplakoto:24-15:24-15 65\n24-15:24-15 6-5\n\
                 fevga:24-15:24-15 33\nplakoto:24-16:24-15 65\nplakoto:24-15:24-15 77\n\
                 variant tavla\nvariant fevga\n24-15:24-15 33\nvariant backgammon\n\
                 24-15:24-15 33\nquit\n";
    let lines = ubgi_replies(input.as_bytes());
    assert_eq!(lines[4], "variant plakoto", "{lines:?}");
    // The reply is one of the legal plays, its steps written singly.
    let start = parse_position_string("plakoto:24-15:24-15").unwrap();
    let legal: Vec<String> =
        tavli_plays(&start, Dice::new(6, 5).unwrap(), &RuleSwitches::default())
            .iter()
            .map(stargammon::protocol::tavli::ubgi_play)
            .collect();
    assert!(legal.contains(&lines[5]), "{lines:?}");
    assert_eq!(lines[6], lines[5], "the prefix may be left out");
    // Another game's position, an impossible position, a bad roll, an unknown variant.
    for (i, what) in [(7, "fevga"), (8, "position"), (9, "roll"), (10, "variant")] {
        assert!(lines[i].starts_with("sorry "), "{what}: {lines:?}");
    }
    assert_eq!(lines[11], "variant fevga");
    assert!(lines[12].starts_with("24/"), "{lines:?}");
    assert_eq!(lines[13], "variant backgammon");
    assert_eq!(
        lines[14], "sorry",
        "a prefix-less position is no backgammon line"
    );
    assert_eq!(lines.len(), 15, "{lines:?}");
}

/// The reply lines of a UBGI session over `input`.
fn ubgi_replies(input: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    run_ubgi(
        engine(),
        BoardConvention::Auto,
        Session::new(Variant::Backgammon, &"net,depth=1".parse().unwrap()),
        std::io::Cursor::new(input.to_vec()),
        &mut out,
    )
    .unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn ubgi_answers_a_line_of_invalid_utf8_and_goes_on() {
    let lines = ubgi_replies(b"ubgi\n\xff\xfe\nisready\nquit\n");
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert_eq!(lines[3], "readyok");
    assert_eq!(lines[4], "sorry");
    assert_eq!(lines[5], "readyok");
    // Invalid bytes inside a command, a CRLF line and a last line without its newline.
    let lines = ubgi_replies(b"isready\xc3\nisready\r\nisready");
    assert_eq!(lines, ["sorry", "readyok", "readyok"]);
}

#[test]
fn ubgi_replies_come_in_the_order_of_the_lines() {
    let board = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
    let legal: Vec<String> = legal_plays(&Position::OPENING, Dice::new(6, 2).unwrap())
        .iter()
        .map(|p| format_play(p, MoveStyle::Ubgi))
        .collect();
    // `isready` right behind each position arrives while that position is searched; its
    // answer must still follow the position's reply.
    let mut input = String::new();
    for _ in 0..5 {
        input.push_str(&format!("{board}\nisready\n"));
    }
    input.push_str("quit\n");
    let lines = ubgi_replies(input.as_bytes());
    assert_eq!(lines.len(), 10, "{lines:?}");
    for pair in lines.chunks(2) {
        assert!(legal.contains(&pair[0]), "{lines:?}");
        assert_eq!(pair[1], "readyok", "{lines:?}");
    }
}
