//! `stargammon moves POS D1 D2 [--json]`: every distinct legal play, in gnubg notation,
//! each with the Position ID after it (opponent on roll), as gnubg shows it.
//! With `--variant portes|plakoto|fevga` POS is a Tavli position string and each play
//! comes with the position string after it (opponent on roll) and how it ended the game.

use clap::Args;
use serde::Serialize;

use super::pos_arg::parse_pos_arg;
use super::CliError;
use crate::game::{legal_plays, Decision, Dice, MatchState, Position};
use crate::notation::{format_play, position_id, MoveStyle};

#[derive(Debug, Args)]
pub struct MovesArgs {
    /// Position: gnubg Position ID, PositionID:MatchID, XGID or FIBS board string; with a
    /// Tavli --variant, a position string VARIANT:MOVER:OPPONENT (docs/VARIANTS.md).
    pub pos: String,
    /// The game: backgammon (default), portes, plakoto or fevga.
    #[arg(long)]
    pub variant: Option<crate::game::Variant>,
    /// First die (1-6).
    pub d1: u8,
    /// Second die (1-6).
    pub d2: u8,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// With a Tavli --variant: check this play (gnubg notation, or its steps singly) and
    /// print it with the position after it; an illegal play is a one-line error.
    #[arg(long, allow_hyphen_values = true)]
    pub play: Option<String>,
}

#[derive(Debug, Serialize)]
struct PlayOut {
    #[serde(rename = "move")]
    mv: String,
    position_id: String,
}

#[derive(Debug, Serialize)]
struct MovesOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    variant: Option<&'static str>,
    plays: Vec<PlayOut>,
}

#[derive(Debug, Serialize)]
struct TavliPlayOut {
    #[serde(rename = "move")]
    mv: String,
    /// The position string after the play, opponent on roll.
    position: String,
    /// "win 1", "win 2" or "tie" when the play ended the game (from the mover's view).
    end: Option<String>,
}

#[derive(Debug, Serialize)]
struct TavliMovesOut {
    variant: &'static str,
    plays: Vec<TavliPlayOut>,
}

fn run_tavli(args: &MovesArgs, variant: crate::game::Variant) -> Result<(), CliError> {
    let pos = super::tavli_pos::parse_variant_pos(variant, &args.pos)?;
    let dice = Dice::new(args.d1, args.d2)?;
    if pos.result().is_some() {
        return Err("the game is over in this position".into());
    }
    let rules = crate::tavli::RuleSwitches::default();
    if let Some(text) = &args.play {
        let p = crate::tavli::parse_play(&pos, dice, &rules, text)?;
        let one = TavliPlayOut {
            mv: crate::tavli::format_play(&p),
            position: crate::tavli::position_string(&p.next_position()),
            end: super::tavli_pos::end_name(p.end),
        };
        if args.json {
            let mut v = serde_json::to_value(&one)?;
            v["variant"] = serde_json::json!(variant.name());
            println!("{v}");
        } else {
            println!(
                "{}\t{}{}",
                one.mv,
                one.position,
                one.end.map(|e| format!("\t{e}")).unwrap_or_default()
            );
        }
        return Ok(());
    }
    let plays = crate::tavli::legal_plays(&pos, dice, &rules);
    let out: Vec<TavliPlayOut> = plays
        .iter()
        .map(|p| TavliPlayOut {
            mv: crate::tavli::format_play(p),
            position: crate::tavli::position_string(&p.next_position()),
            end: super::tavli_pos::end_name(p.end),
        })
        .collect();
    if args.json {
        let o = TavliMovesOut {
            variant: variant.name(),
            plays: out,
        };
        println!("{}", serde_json::to_string(&o)?);
    } else {
        let mut text = String::new();
        for p in out {
            text.push_str(&p.mv);
            text.push('\t');
            text.push_str(&p.position);
            if let Some(e) = p.end {
                text.push('\t');
                text.push_str(&e);
            }
            text.push('\n');
        }
        print!("{text}");
    }
    Ok(())
}

/// The board seen by the player on roll: the taker's view is swapped back to the doubler.
pub fn on_roll_position(ms: &MatchState) -> Position {
    match ms.decision {
        Decision::TakeOrDrop => ms.position.swap(),
        _ => ms.position,
    }
}

/// Each legal play of `dice` in `pos` as (gnubg move text, Position ID after the play
/// with the opponent on roll). No legal play gives one entry with an empty move.
pub fn list_plays(pos: &Position, dice: Dice) -> Vec<(String, String)> {
    legal_plays(pos, dice)
        .iter()
        .map(|p| {
            (
                format_play(pos, p, MoveStyle::Gnubg),
                position_id(&p.next_position()),
            )
        })
        .collect()
}

pub fn run(args: MovesArgs) -> Result<(), CliError> {
    if let Some(v) = args.variant.filter(|v| v.is_tavli()) {
        return run_tavli(&args, v);
    }
    if args.play.is_some() {
        return Err("--play checks a play of a Tavli game (with --variant)".into());
    }
    let ms = parse_pos_arg(&args.pos)?;
    let dice = Dice::new(args.d1, args.d2)?;
    let plays = list_plays(&on_roll_position(&ms), dice);
    if args.json {
        let out = MovesOut {
            variant: args.variant.map(|v| v.name()),
            plays: plays
                .into_iter()
                .map(|(mv, position_id)| PlayOut { mv, position_id })
                .collect(),
        };
        println!("{}", serde_json::to_string(&out)?);
    } else {
        let mut text = String::new();
        for (mv, id) in plays {
            text.push_str(&mv);
            text.push('\t');
            text.push_str(&id);
            text.push('\n');
        }
        print!("{text}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_three_one_as_gnubg_lists_it() {
        let plays = list_plays(&Position::OPENING, Dice::new(3, 1).expect("dice"));
        assert_eq!(plays.len(), 16);
        // gnubg: 8/5 6/5 leads to sGfwATDgc/ABMA with the opponent on roll.
        assert!(plays.contains(&("8/5 6/5".to_string(), "sGfwATDgc/ABMA".to_string())));
    }

    #[test]
    fn no_legal_play_is_an_empty_move_and_the_swapped_position() {
        let mut s = [0i8; 26];
        s[25] = 1;
        s[13] = 14;
        for p in 19..=24 {
            s[p] = -2;
        }
        s[1] = -3;
        let p = Position::from_slots(s).expect("valid");
        let plays = list_plays(&p, Dice::new(6, 3).expect("dice"));
        assert_eq!(plays, vec![(String::new(), position_id(&p.swap()))]);
    }
}
