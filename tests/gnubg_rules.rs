//! The rules, ids and move notation checked against GNU Backgammon itself.
//!
//! tests/data/gnubg_sample.txt was written by gnubg (scripts/gnubg_sample.sh 20261122 6000
//! tests/data/gnubg_sample.txt 1200 1200; format in scripts/gnubg_sample.py; gnubg lists
//! equal plays in no fixed order, so a rerun writes the same facts in another order). For
//! every sampled (position, roll) gnubg listed all legal plays with its move strings and
//! the Position ID after each; for match states it gave its ids, board and fields; for
//! random XGIDs (money with every rules value and cube, matches with Crawford and
//! post-Crawford games) the ids its `set xgid` derived and, for money, the Jacoby rule and
//! beavers setting it took from the rules field. Every comparison here must show zero
//! differences.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use common::gnubg_or_skip;

use stargammon::game::{
    legal_plays, CubeOwner, Dice, GameResult, MatchState, Position, StateError,
};
use stargammon::notation::{
    decode_position_id, encode_match_state, format_play, ids_from_match_state,
    match_state_from_ids, parse_move, position_id, GameState, MatchId, MoveStyle, Xgid, XgidError,
};

const DATA: &str = include_str!("data/gnubg_sample.txt");

#[derive(Default, Debug)]
struct Counts {
    pairs: usize,
    plays: usize,
    move_strings: usize,
    id_records: usize,
    xgids: usize,
    xgids_refused: usize,
    /// XGIDs by kind: money play by its rules, match play by the Crawford rule.
    money_jacoby: [usize; 2],
    money_beavers: [usize; 2],
    money_cube_centred: usize,
    money_cube_owned: usize,
    match_states: usize,
    crawford: usize,
    post_crawford: usize,
    passes: usize,
    bar_entries: usize,
    bear_offs: usize,
}

/// Checks every record of a sample file; returns the counts, or every difference found.
fn check_sample(text: &str) -> Result<Counts, Vec<String>> {
    let mut errors = Vec::new();
    let mut counts = Counts::default();
    for (n, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        let at = format!("line {}", n + 1);
        let result = match fields.first() {
            Some(&"P") => check_plays(&fields, &mut counts),
            Some(&"I") => check_ids(&fields, &mut counts),
            Some(&"X") => check_xgid(&fields, &mut counts),
            _ => Err(vec!["unknown record".to_string()]),
        };
        if let Err(es) = result {
            errors.extend(es.into_iter().map(|e| format!("{at}: {e}")));
        }
    }
    if errors.is_empty() {
        Ok(counts)
    } else {
        Err(errors)
    }
}

fn check_plays(f: &[&str], counts: &mut Counts) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    let pid = f[1];
    let pos = decode_position_id(pid).map_err(|e| vec![format!("{pid}: {e}")])?;
    if position_id(&pos) != pid {
        errors.push(format!("{pid}: re-encodes as {}", position_id(&pos)));
    }
    let d = f[2].as_bytes();
    let dice = Dice::new(d[0] - b'0', d[1] - b'0').map_err(|e| vec![e.to_string()])?;
    let n: usize = f[3].parse().map_err(|_| vec!["bad count".to_string()])?;
    if f.len() != 4 + 2 * n {
        return Err(vec![format!("{pid}: {} fields for {n} plays", f.len())]);
    }
    // gnubg: resulting id (opponent on roll) -> gnubg's move string.
    let gnubg: BTreeMap<&str, &str> = (0..n).map(|i| (f[5 + 2 * i], f[4 + 2 * i])).collect();
    let ours = legal_plays(&pos, dice);
    let our_ids: BTreeSet<String> = ours
        .iter()
        .map(|p| position_id(&p.next_position()))
        .collect();
    let gnubg_ids: BTreeSet<String> = gnubg.keys().map(|s| s.to_string()).collect();
    let missing: Vec<_> = gnubg_ids.difference(&our_ids).collect();
    let extra: Vec<_> = our_ids.difference(&gnubg_ids).collect();
    if !missing.is_empty() || !extra.is_empty() || ours.len() != n {
        errors.push(format!(
            "{pid} {dice}: gnubg {n} plays, ours {}; ours lacks {:?} ({:?}), ours adds {:?}; slots {}",
            ours.len(),
            missing,
            missing.iter().map(|m| gnubg[m.as_str()]).collect::<Vec<_>>(),
            extra,
            pos.debug_string()
        ));
    }
    counts.pairs += 1;
    counts.plays += n;
    if n == 1 && f[4].is_empty() {
        counts.passes += 1;
    }
    if pos.bar() > 0 {
        counts.bar_entries += 1;
    }
    if f[4..].iter().any(|m| m.contains("off")) {
        counts.bear_offs += 1;
    }
    for play in &ours {
        let id = position_id(&play.next_position());
        let Some(&theirs) = gnubg.get(id.as_str()) else {
            continue;
        };
        let mine = format_play(&pos, play, MoveStyle::Gnubg);
        if mine != theirs {
            errors.push(format!(
                "{pid} {dice}: we write {mine:?}, gnubg writes {theirs:?} (steps {:?})",
                play.steps()
            ));
        }
        counts.move_strings += 1;
        // gnubg's own string must read back as this play.
        match parse_move(theirs, &pos, dice, MoveStyle::Gnubg) {
            Ok(p) if p.position == play.position => {}
            other => errors.push(format!(
                "{pid} {dice}: gnubg's {theirs:?} reads as {other:?}"
            )),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn kv<'a>(f: &[&'a str], key: &str) -> Result<&'a str, Vec<String>> {
    f.iter()
        .find_map(|s| s.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
        .ok_or_else(|| vec![format!("no field {key}")])
}

fn num(f: &[&str], key: &str) -> Result<i64, Vec<String>> {
    kv(f, key)?
        .parse()
        .map_err(|_| vec![format!("field {key} is not a number")])
}

fn pair(f: &[&str], key: &str) -> Result<(u32, u32), Vec<String>> {
    let v = kv(f, key)?;
    let (a, b) = v
        .split_once(',')
        .ok_or_else(|| vec![format!("{key} is not a pair")])?;
    let p = |s: &str| s.parse::<u32>().map_err(|_| vec![format!("{key} bad")]);
    Ok((p(a)?, p(b)?))
}

fn check_ids(f: &[&str], counts: &mut Counts) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    let (pid, mid) = (f[1], f[2]);
    let pos = decode_position_id(pid).map_err(|e| vec![format!("{pid}: {e}")])?;
    // gnubg's board: the player not on roll first, then the player on roll.
    let mut sides = [[0u8; 25]; 2];
    let (a, b) = f[3]
        .split_once(';')
        .ok_or_else(|| vec!["bad board".to_string()])?;
    for (side, text) in sides.iter_mut().zip([a, b]) {
        for (slot, c) in side.iter_mut().zip(text.split(',')) {
            *slot = c.parse().map_err(|_| vec!["bad board count".to_string()])?;
        }
    }
    let board = Position::from_sides(&sides[1], &sides[0]).map_err(|e| vec![e.to_string()])?;
    if board != pos {
        errors.push(format!(
            "{pid}: decodes to {pos:?}, gnubg's board is {board:?}"
        ));
    }
    if position_id(&board) != pid {
        errors.push(format!(
            "{pid}: we encode gnubg's board as {}",
            position_id(&board)
        ));
    }
    let m = MatchId::decode(mid).map_err(|e| vec![format!("{mid}: {e}")])?;
    let owner = num(f, "owner")?;
    let dice = pair(f, "dice")?;
    let score = pair(f, "score")?;
    let expect = MatchId {
        cube: num(f, "cube")? as u32,
        cube_owner: if owner < 0 { None } else { Some(owner as u8) },
        on_roll: num(f, "move")? as u8,
        crawford: num(f, "crawford")? == 1,
        game_state: match num(f, "gamestate")? {
            0 => GameState::NoGame,
            1 => GameState::Playing,
            2 => GameState::Over,
            3 => GameState::Resigned,
            _ => GameState::Dropped,
        },
        turn: num(f, "turn")? as u8,
        double_offered: num(f, "doubled")? == 1,
        resignation: match num(f, "resigned")? {
            0 => None,
            1 => Some(GameResult::Single),
            2 => Some(GameResult::Gammon),
            _ => Some(GameResult::Backgammon),
        },
        // gnubg's Python interface gives the dice in the order they were set; its Match
        // ID always stores the higher die first.
        dice: if dice == (0, 0) {
            None
        } else {
            Some((dice.0.max(dice.1) as u8, dice.0.min(dice.1) as u8))
        },
        match_length: num(f, "matchto")? as u32,
        score: [score.0, score.1],
        jacoby: num(f, "jacoby")? == 1,
    };
    if m != expect {
        errors.push(format!("{mid}: decodes to {m:?}, gnubg says {expect:?}"));
    }
    match m.encode() {
        Ok(s) if s == mid => {}
        other => errors.push(format!("{mid}: re-encodes as {other:?}")),
    }
    // Through the typed match state and back.
    match match_state_from_ids(&pos, &m) {
        Ok(ms) => {
            let (back_pos, back) = ids_from_match_state(&ms);
            if back_pos != pos {
                errors.push(format!("{pid}:{mid}: position changes through MatchState"));
            }
            // What MatchState does not carry: a pending resignation.
            let mut want = m;
            want.resignation = None;
            if m.resignation.is_some() {
                want.turn = m.on_roll;
            }
            if back != want {
                errors.push(format!(
                    "{pid}:{mid}: through MatchState {ms:?} comes back as {back:?}"
                ));
            }
        }
        Err(e) => errors.push(format!("{pid}:{mid}: {e}")),
    }
    counts.id_records += 1;
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn check_xgid(f: &[&str], counts: &mut Counts) -> Result<(), Vec<String>> {
    let (text, pid, mid) = (f[1], f[2], f[3]);
    let x = Xgid::parse(text).map_err(|e| vec![format!("{text}: {e}")])?;
    if x.match_length > 0 && x.rules == 1 && (x.cube_log2 > 0 || x.cube_position != 0) {
        // A turned cube in the Crawford game: gnubg resets it to a centred 1-cube, this
        // project refuses the XGID as an impossible state.
        return match x.to_match_state() {
            Err(XgidError::State(StateError::CrawfordCube { .. })) => {
                counts.xgids_refused += 1;
                Ok(())
            }
            other => Err(vec![format!("{text}: read as {other:?}, not refused")]),
        };
    }
    let ours = x
        .to_match_state()
        .map_err(|e| vec![format!("{text}: {e}")])?;
    let pos = decode_position_id(pid).map_err(|e| vec![e.to_string()])?;
    let m = MatchId::decode(mid).map_err(|e| vec![e.to_string()])?;
    let mut theirs = match_state_from_ids(&pos, &m).map_err(|e| vec![e.to_string()])?;
    let mut errors = Vec::new();
    // The whole Match ID, the Jacoby bit of the XGID's rules included.
    match encode_match_state(&ours) {
        Ok((_, our_mid)) if our_mid == mid => {}
        other => errors.push(format!("{text}: Match ID {other:?} vs gnubg's {mid}")),
    }
    // Rules and the dice order as written are the XGID's; the Match ID has the Jacoby bit
    // only (compared above) and the higher die first.
    theirs.rules = ours.rules;
    theirs.dice_low_first = ours.dice_low_first;
    if ours != theirs {
        errors.push(format!(
            "{text}: gnubg {pid}:{mid}; differences (ours, gnubg's): {}",
            state_diff(&ours, &theirs)
        ));
    }
    let (our_pos, _) = ids_from_match_state(&ours);
    if position_id(&our_pos) != pid {
        errors.push(format!(
            "{text}: Position ID {} vs gnubg's {pid}",
            position_id(&our_pos)
        ));
    }
    if Xgid::from_match_state(&ours).to_match_state().as_ref() != Ok(&ours) {
        errors.push(format!("{text}: the XGID we write does not read back"));
    }
    if ours.is_money() {
        // The rules gnubg plays this money game by after `set xgid` (newer samples).
        for (key, ours_rule) in [
            ("jacoby", ours.rules.jacoby),
            ("beavers", ours.rules.beavers),
        ] {
            if let Some(v) = f
                .iter()
                .find_map(|x| x.strip_prefix(key)?.strip_prefix('='))
            {
                if ours_rule != Some(v == "1") {
                    errors.push(format!("{text}: {key} {ours_rule:?}, gnubg's {v}"));
                }
            }
        }
        counts.money_jacoby[(ours.rules.jacoby == Some(true)) as usize] += 1;
        counts.money_beavers[(ours.rules.beavers == Some(true)) as usize] += 1;
        if ours.cube_owner == CubeOwner::Centered {
            counts.money_cube_centred += 1;
        } else {
            counts.money_cube_owned += 1;
        }
    } else {
        counts.match_states += 1;
        counts.crawford += ours.crawford as usize;
        counts.post_crawford += ours.post_crawford as usize;
    }
    counts.xgids += 1;
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn state_diff(a: &MatchState, b: &MatchState) -> String {
    let mut d = Vec::new();
    macro_rules! cmp {
        ($($f:ident),*) => {$(
            if a.$f != b.$f {
                d.push(format!("{} {:?} vs {:?}", stringify!($f), a.$f, b.$f));
            }
        )*};
    }
    cmp!(
        position,
        decision,
        cube,
        cube_owner,
        may_double,
        opp_may_double,
        match_length,
        score,
        opp_score,
        crawford,
        post_crawford,
        acting_player
    );
    d.join("; ")
}

fn report(result: Result<Counts, Vec<String>>) -> Counts {
    match result {
        Ok(c) => c,
        Err(errors) => {
            let shown: Vec<_> = errors.iter().take(30).cloned().collect();
            panic!(
                "{} differences from gnubg, first ones:\n{}",
                errors.len(),
                shown.join("\n")
            );
        }
    }
}

#[test]
fn committed_gnubg_sample_matches_exactly() {
    let c = report(check_sample(DATA));
    println!("{c:?}");
    assert!(c.pairs >= 5000, "{c:?}");
    assert!(c.id_records >= 1000, "{c:?}");
    assert_xgid_variety(&c, 1000);
    assert!(
        c.passes > 0 && c.bar_entries > 0 && c.bear_offs > 0,
        "{c:?}"
    );
    assert_eq!(c.move_strings, c.plays);
}

/// At least `n` XGIDs agreed with gnubg, of every kind the ids and rules field can state.
fn assert_xgid_variety(c: &Counts, n: usize) {
    assert!(c.xgids >= n, "{c:?}");
    assert!(c.xgids_refused > 0, "{c:?}");
    let some = n / 20;
    for k in [
        c.money_jacoby[0],
        c.money_jacoby[1],
        c.money_beavers[0],
        c.money_beavers[1],
        c.money_cube_centred,
        c.money_cube_owned,
        c.match_states,
        c.crawford,
        c.post_crawford,
    ] {
        assert!(k >= some, "{c:?}");
    }
}

/// Runs the sampling pipeline live through the real gnubg on a small fixed-seed sample.
#[test]
fn live_gnubg_sample_matches() {
    let Some(gnubg) = gnubg_or_skip("live_gnubg_sample_matches") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("stargammon-gnubg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("sample.txt");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/gnubg_sample.sh");
    let status = Command::new("bash")
        .arg(script)
        .args(["7", "50"])
        .arg(&out)
        .arg("20")
        .env("GNUBG", &gnubg)
        .status()
        .expect("run the sampling script");
    assert!(status.success(), "sampling script failed: {status}");
    let text = std::fs::read_to_string(&out).expect("sample written");
    let _ = std::fs::remove_dir_all(&dir);
    let c = report(check_sample(&text));
    assert_eq!(c.pairs, 50, "{c:?}");
    assert_eq!(c.id_records, 20, "{c:?}");
    assert!(c.xgids >= 5, "{c:?}");
}

/// Runs gnubg's sampling script once for `xgids` XGIDs only (one gnubg process, about a
/// second for 1,200) and returns what it wrote.
fn live_xgid_sample(seed: u32, xgids: usize) -> Option<String> {
    let gnubg = gnubg_or_skip("live_gnubg_xgids_match")?;
    let dir = std::env::temp_dir().join(format!("stargammon-xgids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("xgids.txt");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/gnubg_sample.sh");
    let status = Command::new("bash")
        .arg(script)
        .args([seed.to_string(), "0".into()])
        .arg(&out)
        .args(["0".to_string(), xgids.to_string()])
        .env("GNUBG", &gnubg)
        .status()
        .expect("run the sampling script");
    assert!(status.success(), "sampling script failed: {status}");
    let text = std::fs::read_to_string(&out).expect("sample written");
    let _ = std::fs::remove_dir_all(&dir);
    Some(text)
}

/// 1,200 fresh XGIDs (money with every rules value and cube, matches with Crawford and
/// post-Crawford games) given to the real gnubg: its Position ID, Match ID, Jacoby rule
/// and beavers setting must be ours for every one.
#[test]
fn live_gnubg_xgids_match() {
    let Some(text) = live_xgid_sample(11, 1200) else {
        return;
    };
    let c = report(check_sample(&text));
    println!("{c:?}");
    assert_eq!(c.xgids + c.xgids_refused, 1200, "{c:?}");
    assert_xgid_variety(&c, 1000);
}

/// XGIDs with the rules field in each form (money with Jacoby and beavers on and off, match
/// play, the Crawford game, dice written lower first) and the Position ID and Match ID
/// gnubg 1.07.001 derived from each with `set xgid` (recorded once by running gnubg, so
/// that this comparison runs without it; `xgid_ids_match_live_gnubg` asks gnubg again).
const XGID_IDS: [(&str, &str, &str); 10] = [
    (
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10",
        "4HPwATDgc/ABMA",
        "cIkKAAAAAAAE",
    ),
    (
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:1:0:10",
        "4HPwATDgc/ABMA",
        "cIkKAAAAAAAA",
    ),
    (
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:2:0:10",
        "4HPwATDgc/ABMA",
        "cIkKAAAAAAAE",
    ),
    (
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
        "4HPwATDgc/ABMA",
        "cIkKAAAAAAAA",
    ),
    (
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:1:0:0:5:10",
        "4HPwATDgc/ABMA",
        "cImqAAAACAAE",
    ),
    (
        "XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:1:31:6:4:1:7:10",
        "3PaAAQZi25gBMA",
        "8InlAEAAMAAE",
    ),
    (
        "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:25:0:0:1:0:10",
        "4HPwATDgc/ABMA",
        "UYkKAAAAAAAA",
    ),
    (
        "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:25:0:0:2:0:10",
        "4HPwATDgc/ABMA",
        "UYkKAAAAAAAE",
    ),
    (
        "XGID=-a-B--C-A---dE---c-d----B-:2:1:1:00:3:5:0:9:10",
        "4Dl4AIRxgg+AAQ",
        "UgkgAVAAGAAE",
    ),
    (
        "XGID=-a-B--C-A---dE---c-d----B-:2:1:-1:00:0:0:3:0:10",
        "jBN8AAx4Dh4AAQ",
        "QgkAAAAAAAAA",
    ),
];

/// XGIDs gnubg refuses ("Not a valid XGID"), as this project does.
const XGIDS_REFUSED: [&str; 2] = [
    // Score 9-3 in a 3-point match.
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:9:3:0:3:10",
    // A 65-point match.
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:1:0:0:65:10",
];

fn our_ids(xgid: &str) -> (String, String) {
    let state = Xgid::parse(xgid)
        .and_then(|x| x.to_match_state())
        .unwrap_or_else(|e| panic!("{xgid}: {e}"));
    encode_match_state(&state).unwrap_or_else(|e| panic!("{xgid}: {e}"))
}

#[test]
fn xgid_rules_give_gnubg_s_match_id() {
    for (xgid, pid, mid) in XGID_IDS {
        assert_eq!(our_ids(xgid), (pid.to_string(), mid.to_string()), "{xgid}");
        // Written back with the rules field as given and the dice in their order (the
        // writer puts the side to act at the bottom, so the other fields may turn round).
        let state = Xgid::parse(xgid)
            .and_then(|x| x.to_match_state())
            .expect("read above");
        let written = Xgid::from_match_state(&state).to_string();
        let fields = |t: &str| -> Vec<String> { t.split(':').map(str::to_string).collect() };
        let (given, back) = (fields(xgid), fields(&written));
        assert_eq!(
            (&back[4], &back[7]),
            (&given[4], &given[7]),
            "{xgid} -> {written}"
        );
        if given[3] == "1" {
            assert_eq!(written, xgid);
        }
    }
    for xgid in XGIDS_REFUSED {
        let r = Xgid::parse(xgid).and_then(|x| x.to_match_state());
        assert!(matches!(r, Err(XgidError::State(_))), "{xgid}: {r:?}");
    }
}

/// The Position ID and Match ID gnubg derives from `xgid`, or `None` when it refuses it.
fn gnubg_ids(xgid: &str) -> Option<(String, String)> {
    let out = common::run_gnubg(&format!("set xgid {xgid}\nshow board\n"));
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if text.contains("Not a valid XGID") {
        return None;
    }
    let last = |key: &str| {
        text.lines()
            .filter_map(|l| l.split_once(key))
            .map(|(_, v)| v.trim_start_matches([' ', ':']).trim().to_string())
            .next_back()
            .unwrap_or_else(|| panic!("no {key} in gnubg's output:\n{text}"))
    };
    Some((last("Position ID"), last("Match ID")))
}

#[test]
fn xgid_ids_match_live_gnubg() {
    if gnubg_or_skip("xgid_ids_match_live_gnubg").is_none() {
        return;
    }
    for (xgid, _, _) in XGID_IDS {
        assert_eq!(gnubg_ids(xgid), Some(our_ids(xgid)), "{xgid}");
    }
    for xgid in XGIDS_REFUSED {
        assert_eq!(gnubg_ids(xgid), None, "{xgid}");
    }
}
