//! Every parser that reads outside text (peers, users, files) returns, never panics: on
//! arbitrary bytes (invalid UTF-8 made text the way a reader would, with replacement
//! characters), and on near misses built from each format's own keywords and separators
//! mixed with multi-byte letters, which is where byte-offset slicing goes wrong.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use stargammon::game::Rng;

use bytes::BytesMut;
use stargammon::cli::pos_arg::parse_pos_arg;
use stargammon::config::Config;
use stargammon::engine::EngineSpec;
use stargammon::eval::encoding::INPUTS;
use stargammon::eval::net::Mlp;
use stargammon::eval::weights::fnv1a64;
use stargammon::eval::NetSet;
use stargammon::fibs::brain::{answer_board, judge_resignation};
use stargammon::fibs::clip::{classify, LineBuffer, OwnInfo};
use stargammon::fibs::FibsConfig;
use stargammon::game::{legal_plays, Dice, Position, ALL_ROLLS};
use stargammon::notation::fibs_board::{
    detect_line_convention, parse_match_state, Convention, FibsBoard,
};
use stargammon::notation::{
    decode_position_id, parse_gnubg_ids, parse_move, FibsOrientation, MatchId, MoveStyle, Xgid,
};
use stargammon::players::simple::RandomPlayer;
use stargammon::players::PlayerSpec;
use stargammon::protocol::gnubg::parse_request;
use stargammon::protocol::lines::{Frame, LineCodec};
use stargammon::protocol::ubgi::parse_command;
use tokio_util::codec::Decoder;

/// Letters of two, three and four bytes in UTF-8.
const WIDE: [&str; 4] = ["é", "ß", "字", "🎲"];

/// Keywords and separators of every format read here.
const PIECES: &[&str] = &[
    "board:",
    "BOARD:",
    "board",
    "boardé:1:2",
    "XGID=",
    "xgid=",
    "XGID",
    "evaluation",
    "fibsboard",
    "plies",
    "noise",
    "jacobyrule",
    "crawfordrule",
    "beavers",
    "resignation",
    "on",
    "off",
    "set",
    "debug",
    "ubgi",
    "isready",
    "quit",
    "stop",
    "bar",
    "off",
    "home",
    "move",
    "(2)",
    "(4)",
    "/off",
    "bar/",
    "-off",
    ".",
    "You",
    "**",
    "> ",
    "wants to play a",
    "point match with you.",
    "doubles.",
    "wins the game and gets",
    "points.",
    "4HPwATDgc/ABMA",
    "MAELAAAAAAAA",
    "-b----E-C---eE---c-e----B-",
    ":",
    "/",
    "-",
    "*",
    "(",
    ")",
    "=",
    ",",
    " ",
    "\t",
    "\r",
    "\n",
    "\0",
    "0",
    "1",
    "2",
    "6",
    "13",
    "24",
    "25",
    "-1",
    "9999",
    "99999999999",
    "é",
    "ß",
    "字",
    "🎲",
];

fn piece() -> impl Strategy<Value = String> {
    prop::sample::select(PIECES).prop_map(str::to_string)
}

/// Text glued from keywords, separators and wide letters.
fn near_miss() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..24).prop_map(|v| v.concat())
}

/// Arbitrary bytes read as text the way the line readers do.
fn lossy() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..300)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// A valid line of some format with some of its `sep`-separated fields replaced by pieces
/// (wide letters included), so the parser gets past its first checks.
fn mutated(base: &'static str, sep: char) -> impl Strategy<Value = String> {
    let n = base.split(sep).count();
    prop::collection::vec((0..n, piece(), 0usize..4), 1..6).prop_map(move |edits| {
        let mut fields: Vec<String> = base.split(sep).map(str::to_string).collect();
        for (i, p, how) in edits {
            let f = &mut fields[i];
            match how {
                0 => *f = p,
                1 => f.insert_str(0, &p),
                2 => f.push_str(&p),
                _ => f.push_str(WIDE[i % WIDE.len()]),
            }
        }
        fields.join(&sep.to_string())
    })
}

const FIBS_BOARD: &str = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
const GNUBG_BOARD: &str = "board:gnubg:root:5:0:0:-2:-1:0:1:0:0:4:0:4:0:0:0:-4:4:0:0:0:-3:1:-5:0:0:1:0:0:0:-1:2:3:2:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1";
const XGID: &str = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10";
const IDS: &str = "4HPwATDgc/ABMA:MAELAAAAAAAA";
const OWN_INFO: &str = "2 bot 1 1 0 0 0 0 1 1 5 0 1 0 1 1500.00 0 1 none 1 0 UTC";
const CONFIG: &str = include_str!("../config/default.toml");
const FIBS_CONFIG: &str = include_str!("../config/fibs.toml");

const STYLES: [MoveStyle; 4] = [
    MoveStyle::Gnubg,
    MoveStyle::Plain,
    MoveStyle::Fibs(FibsOrientation::Direct),
    MoveStyle::Fibs(FibsOrientation::Reversed),
];

/// Every text parser, and what is done with its answer afterwards.
fn every_text_parser(text: &str) {
    let _ = parse_request(text.as_bytes());
    let _ = parse_command(text);
    if let Ok(b) = FibsBoard::parse(text) {
        for c in [Convention::Fibs, Convention::Gnubg] {
            let _ = b.to_match_state(c);
        }
        let _ = b.to_line();
    }
    let _ = detect_line_convention(text);
    for c in [Convention::Fibs, Convention::Gnubg] {
        let _ = parse_match_state(text, c);
    }
    let _ = classify(text);
    let _ = OwnInfo::parse(text);
    let _ = decode_position_id(text);
    let _ = MatchId::decode(text);
    let _ = parse_gnubg_ids(text);
    if let Ok(x) = Xgid::parse(text) {
        let _ = x.to_match_state();
        let _ = x.to_string();
    }
    let _ = parse_pos_arg(text);
    let d = Dice::new(3, 1).unwrap();
    for style in STYLES {
        let _ = parse_move(text, &Position::OPENING, d, style);
    }
    let _ = text.parse::<EngineSpec>();
    let _ = PlayerSpec::parse(text);
}

fn every_config_parser(text: &str) {
    let _ = Config::from_toml(text, "test");
    let _ = FibsConfig::from_toml(text, "test");
}

/// A position reached from the opening by `plies` (roll, pick) pairs, each pick choosing
/// among the legal plays: every position a game can reach, bar and bear-off ones included.
fn walked(plies: &[(prop::sample::Index, prop::sample::Index)]) -> Position {
    let mut pos = Position::OPENING;
    for (roll, pick) in plies {
        if pos.is_game_over() {
            break;
        }
        let plays = legal_plays(&pos, ALL_ROLLS[roll.index(ALL_ROLLS.len())]);
        pos = plays[pick.index(plays.len())].next_position();
    }
    pos
}

/// A small valid weights file, to be damaged.
fn weights_file() -> Vec<u8> {
    let mut rng = Rng::seeded(5);
    NetSet {
        encoding: stargammon::eval::encoding::Encoding::V1,
        contact: Mlp::random(INPUTS, 3, 0.5, &mut rng),
        race: Mlp::random(INPUTS, 2, 0.5, &mut rng),
        games: 7,
    }
    .to_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn text_parsers_never_panic_on_arbitrary_bytes(text in lossy()) {
        every_text_parser(&text);
    }

    #[test]
    fn text_parsers_never_panic_on_near_misses(text in near_miss()) {
        every_text_parser(&text);
    }

    #[test]
    fn raw_byte_readers_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse_request(&bytes);
        let mut lines = LineBuffer::new();
        for line in lines.push(&bytes) {
            let _ = classify(&line);
        }
        let _ = lines.partial();
        let _ = lines.at_login_prompt();
    }

    #[test]
    fn board_readers_never_panic_on_damaged_boards(
        a in mutated(FIBS_BOARD, ':'),
        b in mutated(GNUBG_BOARD, ':'),
    ) {
        every_text_parser(&a);
        every_text_parser(&b);
        // gnubg's request forms around a damaged board.
        every_text_parser(&format!("evaluation fibsboard {a} plies 1"));
        every_text_parser(&format!("{b} jacobyrule on"));
    }

    #[test]
    fn id_readers_never_panic_on_damaged_ids(
        x in mutated(XGID, ':'),
        i in mutated(IDS, ':'),
        o in mutated(OWN_INFO, ' '),
    ) {
        every_text_parser(&x);
        every_text_parser(&i);
        every_text_parser(&o);
    }

    #[test]
    fn config_readers_never_panic(
        text in near_miss(),
        a in mutated(CONFIG, '\n'),
        b in mutated(FIBS_CONFIG, '\n'),
        c in mutated(CONFIG, '='),
    ) {
        every_config_parser(&text);
        every_config_parser(&a);
        every_config_parser(&b);
        every_config_parser(&c);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn move_parser_never_panics_in_reached_positions(
        plies in prop::collection::vec(any::<(prop::sample::Index, prop::sample::Index)>(), 0..60),
        roll in any::<prop::sample::Index>(),
        text in prop_oneof![near_miss(), lossy()],
    ) {
        let pos = walked(&plies);
        let dice = ALL_ROLLS[roll.index(ALL_ROLLS.len())];
        let legal = legal_plays(&pos, dice);
        for style in STYLES {
            if let Ok(play) = parse_move(&text, &pos, dice, style) {
                prop_assert!(legal.iter().any(|p| p.position == play.position), "{text:?}");
            }
        }
    }

    #[test]
    fn line_codec_never_panics_and_stays_bounded(
        chunks in prop::collection::vec(
            prop::collection::vec(prop_oneof![any::<u8>(), Just(b'\n'), Just(0u8), Just(b'\r')], 0..200),
            0..6,
        ),
        max in 1usize..64,
    ) {
        let mut codec = LineCodec::new(max);
        let mut buf = BytesMut::new();
        for chunk in &chunks {
            buf.extend_from_slice(chunk);
            let _ = codec.ends_at_newline(&buf);
            while let Some(frame) = codec.decode(&mut buf).expect("framing does not fail") {
                if let Frame::Line { bytes, .. } = frame {
                    prop_assert!(bytes.len() <= max);
                    prop_assert!(!bytes.contains(&b'\n'));
                    let _ = parse_request(&bytes);
                }
            }
        }
        prop_assert!(buf.len() <= max + 1);
        let _ = codec.take_remainder(&mut buf);
    }

    #[test]
    fn fibs_bot_never_panics_on_damaged_board_lines(
        a in mutated(FIBS_BOARD, ':'),
        text in lossy(),
    ) {
        for line in [&a, &text] {
            let mut decider = RandomPlayer::new(3);
            if let Ok(Some(command)) = answer_board(&mut decider, line) {
                let word = command.split(' ').next().unwrap_or_default();
                prop_assert!(
                    ["move", "double", "roll", "accept", "reject"].contains(&word),
                    "{command:?}"
                );
            }
            for points in 1..=3 {
                let _ = judge_resignation(None, line, points);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn weights_reader_never_panics_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        let _ = NetSet::from_bytes(&bytes);
    }

    #[test]
    fn weights_reader_never_panics_on_damaged_files(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = weights_file();
        for (at, value) in edits {
            // Damage the header more often than the weights: that is where the sizes are.
            let i = at.index(64.min(bytes.len()));
            bytes[i] = value;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        let _ = NetSet::from_bytes(&bytes);
        // The same damage behind a valid checksum, so the sizes and weights are read.
        if bytes.len() >= 8 {
            let body = bytes.len() - 8;
            let sum = fnv1a64(&bytes[..body]);
            bytes[body..].copy_from_slice(&sum.to_le_bytes());
            if let Ok(nets) = NetSet::from_bytes(&bytes) {
                prop_assert_eq!(nets.to_bytes(), bytes);
            }
        }
    }
}

#[test]
fn the_reported_board_keyword_with_a_wide_letter_is_an_error() {
    for line in [
        "boardé:1:2",
        "BOARDé:1:2",
        "board字",
        "xgid🎲",
        "evaluation fibsboard boardé:1",
    ] {
        assert!(parse_request(line.as_bytes()).is_err(), "{line}");
        every_text_parser(line);
    }
}
