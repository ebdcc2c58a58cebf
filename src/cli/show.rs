//! `stargammon show POS [--json]`: the position drawn as text with pip counts, cube,
//! score and dice, and its gnubg Position ID and Match ID (and XGID). With
//! `--variant portes|plakoto|fevga`: a Tavli position string (the starting position when
//! POS is left out), drawn with its pins, pips, checkers off and its string.

use clap::Args;
use serde::Serialize;

use super::game::{with_game, CliGame};
use super::CliError;
use crate::game::{CubeOwner, Decision, MatchState, Position, Variant};
use crate::notation::summary::PositionSummary;
use crate::notation::{encode_match_state, parse_gnubg_ids, MatchId, Xgid};
use crate::tavli::TavliPosition;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Position: gnubg Position ID, PositionID:MatchID, XGID or FIBS board string; with a
    /// Tavli --variant, a position string VARIANT:MOVER:OPPONENT (docs/VARIANTS.md), or
    /// nothing for the variant's starting position.
    pub pos: Option<String>,
    /// The game: backgammon (default), portes, plakoto or fevga.
    #[arg(long)]
    pub variant: Option<Variant>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// The board as text, from the side to act (X, moving 24 -> 1 at the bottom) against O:
/// the Tavli games' drawing, which lays out Portes' checkers as backgammon's.
pub fn draw_board(pos: &Position) -> String {
    crate::tavli::draw_board(&TavliPosition::from_backgammon(Variant::Portes, pos))
}

pub fn describe(ms: &MatchState) -> String {
    let p = &ms.position;
    let task = match ms.decision {
        Decision::Move(d) => format!("X to play {}{}", d.high(), d.low()),
        Decision::DoubleOrRoll => "X to double or roll".to_string(),
        Decision::TakeOrDrop => "O has doubled: X to take or drop".to_string(),
        Decision::BeaverAnswer => "O has beavered: X to take or drop".to_string(),
        Decision::GameOver => "the game is over".to_string(),
    };
    let cube = match ms.cube_owner {
        CubeOwner::Centered => format!("cube {} centred", ms.cube),
        CubeOwner::Me => format!("cube {} owned by X", ms.cube),
        CubeOwner::Opponent => format!("cube {} owned by O", ms.cube),
    };
    let score = if ms.is_money() {
        "money game".to_string()
    } else {
        format!(
            "{}-point match, X {} O {}{}",
            ms.match_length,
            ms.score,
            ms.opp_score,
            if ms.crawford {
                ", Crawford game"
            } else if ms.post_crawford {
                ", post-Crawford"
            } else {
                ""
            }
        )
    };
    format!(
        " X (gnubg player {}): pips {}, off {}, bar {}\n O: pips {}, off {}, bar {}\n {}; {}; {}\n",
        ms.acting_player & 1,
        p.pips(),
        p.off(),
        p.bar(),
        p.opp_pips(),
        p.opp_off(),
        p.opp_bar(),
        task,
        cube,
        score
    )
}

#[derive(Debug, Serialize)]
struct TavliShowOut {
    variant: &'static str,
    /// The position string (side to act first).
    position: String,
    /// Pip counts (side to act, opponent).
    pips: [u32; 2],
    /// Checkers borne off (side to act, opponent).
    off: [u8; 2],
    /// Checkers on the bar (Portes; side to act, opponent).
    bar: [u8; 2],
    /// Pinned checkers' points, each in its own side's numbering (Plakoto).
    pinned: [Vec<u8>; 2],
    /// "win 1", "win 2", "loss 1", "loss 2" or "tie" (side to act's view) when over.
    result: Option<String>,
}

/// `show` in a Tavli game: the position drawn with its pins, pips, checkers off and its
/// string, or one JSON object.
pub fn tavli(pos: &TavliPosition, json: bool) -> Result<String, CliError> {
    use crate::tavli::position::TavliResult;
    let variant = pos.variant();
    let pinned = |side: usize| -> Vec<u8> {
        (1..=24u8)
            .filter(|&m| pos.pins(side) >> m & 1 == 1)
            .collect()
    };
    let result = pos.result().map(|o| match o {
        TavliResult::MoverWins(p) => format!("win {p}"),
        TavliResult::OpponentWins(p) => format!("loss {p}"),
        TavliResult::Tie => "tie".to_string(),
    });
    let out = TavliShowOut {
        variant: variant.name(),
        position: crate::tavli::position_string(pos),
        pips: [pos.pips(0), pos.pips(1)],
        off: [pos.off(0), pos.off(1)],
        bar: [pos.counts(0)[25], pos.counts(1)[25]],
        pinned: [pinned(0), pinned(1)],
        result,
    };
    if json {
        return Ok(format!("{}\n", serde_json::to_string(&out)?));
    }
    let side = |i: usize, mark: char| {
        let pins: Vec<String> = out.pinned[i].iter().map(u8::to_string).collect();
        let pins = Some(pins.join(" ")).filter(|p| !p.is_empty());
        let pins = pins.map(|p| format!(", pinned on {p}")).unwrap_or_default();
        let (pips, off, bar) = (out.pips[i], out.off[i], out.bar[i]);
        format!(" {mark}: pips {pips}, off {off}, bar {bar}{pins}\n")
    };
    let status = match &out.result {
        Some(r) => format!("the game is over: X {r}"),
        None => "X to roll".to_string(),
    };
    Ok(format!(
        " {variant} {}\n{}{}{} {status}\n",
        out.position,
        crate::tavli::draw_board(pos),
        side(0, 'X'),
        side(1, 'O')
    ))
}

/// `show` in backgammon: the board with its ids and XGID, the pips, cube, score and
/// turn, or one JSON object. `pos_text` is POS as given.
pub fn backgammon(ms: &MatchState, pos_text: &str, json: bool) -> Result<String, CliError> {
    let (position_id, mut match_id) = encode_match_state(ms)?;
    // A pasted Match ID may hold what the typed state does not (a resignation on offer,
    // how a finished game ended): show it as given when it describes this state.
    if let Some((_, given)) = pos_text.trim().split_once(':') {
        if let Ok(m) = MatchId::decode(given.trim()) {
            if parse_gnubg_ids(pos_text.trim()).as_ref() == Ok(ms) {
                match_id = m.encode()?;
            }
        }
    }
    if json {
        let out = PositionSummary {
            match_id: Some(match_id),
            ..PositionSummary::of(ms)
        };
        return Ok(format!("{}\n", serde_json::to_string(&out)?));
    }
    let xgid = Xgid::from_match_state(ms).to_string();
    Ok(format!(
        " Position ID: {position_id}\n Match ID   : {match_id}\n {xgid}\n{}{}",
        draw_board(&ms.position),
        describe(ms)
    ))
}

pub fn run(args: ShowArgs) -> Result<(), CliError> {
    let variant = args.variant.unwrap_or(Variant::Backgammon);
    with_game!(variant, G => show::<G>(&args, variant))
}

/// `show` in the game of `variant`.
fn show<G: CliGame>(args: &ShowArgs, variant: Variant) -> Result<(), CliError> {
    let given = G::read(variant, args.pos.as_deref())?;
    print!("{}", G::show(&given, args.pos.as_deref(), args.json)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_board_drawing() {
        let text = draw_board(&Position::OPENING);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 13);
        assert_eq!(lines[1], " | X           O    |   | O              X |");
        assert_eq!(lines[11], " | O           X    |   | X              O |");
        assert!(lines.iter().all(|l| l.len() == lines[0].len()));
    }
}
