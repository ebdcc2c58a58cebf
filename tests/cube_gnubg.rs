//! Cube decisions checked against GNU Backgammon itself: the take, cash and too-good points
//! of `show marketwindow` (money, and match scores from the same Kazaross-XG2 table), from
//! gnubg's own gammon and backgammon rates fed to our formulas, and the proper cube action
//! of `hint` on positions whose answer both engines' 0-ply evaluations agree on.

#![allow(clippy::unwrap_used)]

mod common;

use stargammon::cube::{market_points, CubeSettings, MarketPoints};
use stargammon::engine::cube_view;
use stargammon::eval::Probabilities;
use stargammon::notation::{encode_match_state, parse_gnubg_ids, MatchId};

/// gnubg's session for a state given by ids: money (`length` 0) or a match.
fn gnubg_script(ids: &str, length: u32, extra: &str) -> String {
    let (pid, mid) = ids.split_once(':').unwrap();
    let start = if length == 0 {
        "new game".to_string()
    } else {
        format!("new match {length}")
    };
    format!(
        "{start}\nset matchid {mid}\nset board {pid}\n{extra}\
         set evaluation cubedecision evaluation plies 0\n"
    )
}

/// The numbers of a line, `%` signs and other text around them ignored.
fn numbers(line: &str) -> Vec<f64> {
    line.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|t| t.parse().ok())
        .collect()
}

/// The roller's probabilities from gnubg's printed rates (gammons without backgammons, and
/// backgammons, per win) of the opponent (`opp`) and the roller (`me`), at an even game:
/// the points depend on the rates alone.
fn from_rates(me: (f64, f64), opp: (f64, f64)) -> Probabilities {
    let w = 0.5;
    Probabilities(
        [
            w,
            w * (me.0 + me.1),
            w * me.1,
            (1.0 - w) * (opp.0 + opp.1),
            (1.0 - w) * opp.1,
        ]
        .map(|x| x as f32),
    )
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 4e-4, "{what}: ours {a:.5}, gnubg {b:.5}");
}

fn points(p: &Probabilities, ids: &str, opponent: bool, x: f64) -> MarketPoints {
    let state = parse_gnubg_ids(ids).unwrap();
    let view = cube_view(&state);
    let no_jacoby = CubeSettings {
        jacoby: false,
        beavers: false,
        ..CubeSettings::default()
    };
    if opponent {
        market_points(&p.invert(), &view.swap(), &no_jacoby, x).unwrap()
    } else {
        market_points(p, &view, &no_jacoby, x).unwrap()
    }
}

#[test]
fn take_cash_and_too_good_points_match_gnubgs_market_window() {
    if common::gnubg_or_skip("take_cash_and_too_good_points_match_gnubgs_market_window").is_none() {
        return;
    }
    // Money: the opening, a racing position without gammons and a gammonish blitz.
    // Matches (7 points): 0-0, 2-4 and 5-5 (2-away/2-away, where the cube is dead after
    // the take and both points are the table's).
    let cases = [
        ("4HPwATDgc/ABMA:cAkAAAAAAAAA", 0),
        ("2+4OAADb3Q0AAA:MAEAAAAAAAAA", 0),
        ("bNvBAGDbNg4AAA:MAEAAAAAAAAA", 0),
        ("4HPwATDgc/ABMA:cAngAAAAAAAE", 7),
        ("4HPwATDgc/ABMA:cAngAEAAEAAE", 7),
        ("4HPwATDgc/ABMA:cAngAFAAKAAE", 7),
    ];
    let mut checked = 0;
    for (ids, length) in cases {
        let script = gnubg_script(ids, length, "set jacoby off\n") + "show marketwindow\n";
        let out = common::run_gnubg(&script);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let rates: Vec<(f64, f64)> = text
            .lines()
            .filter(|l| l.contains("gammon rate"))
            .map(|l| {
                let n = numbers(l);
                (n[n.len() - 2] / 100.0, n[n.len() - 1] / 100.0)
            })
            .collect();
        // gnubg lists player 0 first, then player 1; `turn` is the one on roll (our X).
        assert_eq!(rates.len(), 2, "{ids}: {text}");
        let x = MatchId::decode(ids.split_once(':').unwrap().1)
            .unwrap()
            .turn as usize;
        let p = from_rates(rates[x], rates[1 - x]);
        let ctx = |who: &str, what: &str| format!("{ids} {who} {what}");
        if length == 0 {
            // Per player: "Take Point (TP)  dead%  live%", "Cash Point (CP) ...", "Too good
            // Point (TGP) ...", player 0's table first.
            let row = |name: &str| -> Vec<Vec<f64>> {
                text.lines()
                    .filter(|l| l.starts_with(name))
                    .map(|l| numbers(&l[name.len()..]))
                    .collect()
            };
            let (tp, cp, tgp) = (
                row("Take Point (TP)"),
                row("Cash Point (CP)"),
                row("Too good Point (TGP)"),
            );
            assert_eq!((tp.len(), cp.len(), tgp.len()), (2, 2, 2), "{text}");
            for (k, opponent) in [(x, false), (1 - x, true)] {
                let who = if opponent { "O" } else { "X" };
                // The side doubles: its cash points and too-good points; the other side's
                // take points.
                let dead = points(&p, ids, opponent, 0.0);
                let live = points(&p, ids, opponent, 1.0);
                close(
                    dead.cash().0,
                    cp[k][0] / 100.0,
                    &ctx(who, "dead cash point"),
                );
                close(
                    live.cash().1,
                    cp[k][1] / 100.0,
                    &ctx(who, "live cash point"),
                );
                close(
                    dead.take_dead,
                    tp[1 - k][0] / 100.0,
                    &ctx(who, "taker's dead TP"),
                );
                close(
                    live.take_live,
                    tp[1 - k][1] / 100.0,
                    &ctx(who, "taker's live TP"),
                );
                close(
                    dead.too_good.unwrap_or(1.0),
                    tgp[k][0] / 100.0,
                    &ctx(who, "dead too-good point"),
                );
                // Without the doubler's gammons a live cube leaves playing on level with the pass all
                // the way from the cash point: gnubg puts the point there, we find no
                // point where playing on is worth more.
                let gammons = p.0[if opponent { 3 } else { 1 }] > 0.0;
                if gammons {
                    close(
                        live.too_good.unwrap_or(1.0),
                        tgp[k][1] / 100.0,
                        &ctx(who, "live too-good point"),
                    );
                } else {
                    assert_eq!(live.too_good, None, "{ids}");
                    close(live.cash().1, tgp[k][1] / 100.0, &ctx(who, "live TGP"));
                }
                checked += 6;
            }
        } else {
            // Per player: "Dead cube:  from% -  cash%", and "Live cube: ..." where the cube
            // can come back; player 0's window first.
            let window = |name: &str| -> Vec<f64> {
                text.lines()
                    .filter(|l| l.starts_with(name))
                    .map(|l| {
                        let n = numbers(l);
                        n[n.len() - 1] / 100.0
                    })
                    .collect()
            };
            let (dead, live) = (window("Dead cube"), window("Live cube"));
            assert_eq!(dead.len(), 2, "{text}");
            for (k, opponent) in [(x, false), (1 - x, true)] {
                let who = if opponent { "O" } else { "X" };
                let ours = points(&p, ids, opponent, 0.5);
                close(ours.cash().0, dead[k], &ctx(who, "dead cash point"));
                checked += 1;
                if let Some(live) = live.get(k) {
                    close(ours.cash().1, *live, &ctx(who, "live cash point"));
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 40, "{checked}");
}

#[test]
fn proper_cube_actions_agree_with_gnubg() {
    if common::gnubg_or_skip("proper_cube_actions_agree_with_gnubg").is_none() {
        return;
    }
    // (ids, match length, Jacoby rule, the action both give)
    let cases = [
        // The opening, money with beavers: no double, and a double would be beavered.
        ("4HPwATDgc/ABMA:cAkAAAAAAAAA", 0, true, "No double, beaver"),
        // Races of 54 pips against 51, 57 and 63.
        ("u7sNAADb3Q0AAA:MAEAAAAAAAAA", 0, true, "No double, take"),
        ("2+4OAADb3Q0AAA:MAEAAAAAAAAA", 0, true, "Double, take"),
        ("7m4bAADb3Q0AAA:MAEAAAAAAAAA", 0, true, "Double, pass"),
        // All fifteen of O's checkers on the bar against a closed board: a cash under the
        // Jacoby rule, too good without it.
        ("AAAA/3/f9wEAAA:MAEAAAAAAAAA", 0, true, "Double, pass"),
        (
            "AAAA/3/f9wEAAA:MAEAAAAAAAAA",
            0,
            false,
            "Too good to double, pass",
        ),
        // 2-away/2-away: the opening is a double and a take.
        ("4HPwATDgc/ABMA:cAngAFAAKAAE", 7, true, "Double, take"),
    ];
    for (ids, length, jacoby, want) in cases {
        // The Match ID carries the rule (gnubg's bit 66): both engines read it there.
        let mut state = parse_gnubg_ids(ids).unwrap();
        state.rules.jacoby = Some(jacoby);
        let (pid, mid) = encode_match_state(&state).unwrap();
        let ids = format!("{pid}:{mid}");
        let ids = ids.as_str();
        let extra = if jacoby { "" } else { "set jacoby off\n" };
        let out = common::run_gnubg(&(gnubg_script(ids, length, extra) + "hint\n"));
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let gnubg = text
            .lines()
            .find_map(|l| l.strip_prefix("Proper cube action: "))
            .unwrap_or_else(|| panic!("{ids}: no cube action from gnubg: {text}"));
        // gnubg may add how close the decision is: "No double, take (15.6%)".
        let gnubg = gnubg.split(" (").next().unwrap().trim();
        let ours = std::process::Command::new(env!("CARGO_BIN_EXE_stargammon"))
            .args(["hint", ids, "--plies", "0", "--json"])
            .env("STARGAMMON_CUBE__JACOBY", jacoby.to_string())
            .env("STARGAMMON_CUBE__BEAVERS", "true")
            .output()
            .unwrap();
        assert!(ours.status.success(), "{ids}: {ours:?}");
        let v: serde_json::Value = serde_json::from_slice(&ours.stdout).unwrap();
        let ours = v["cube"]["proper_text"].as_str().unwrap();
        assert_eq!((gnubg, ours), (want, want), "{ids} Jacoby {jacoby}");
    }
}
