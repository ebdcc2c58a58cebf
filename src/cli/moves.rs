//! `stargammon moves POS D1 D2 [--json]`: every distinct legal play, in gnubg notation,
//! each with the Position ID after it (opponent on roll), as gnubg shows it.
//! With `--variant portes|plakoto|fevga` POS is a Tavli position string and each play
//! comes with the position string after it (opponent on roll) and how it ended the game.
//! Written once over [`CliGame`].

use clap::Args;
use serde::ser::SerializeMap;
use serde::Serialize;

use super::game::{end_name, with_game, CliGame};
use super::CliError;
use crate::game::{Dice, GamePlay, Variant};

#[derive(Debug, Args)]
pub struct MovesArgs {
    /// Position: gnubg Position ID, PositionID:MatchID, XGID or FIBS board string; with a
    /// Tavli --variant, a position string VARIANT:MOVER:OPPONENT (docs/VARIANTS.md).
    pub pos: String,
    /// The game: backgammon (default), portes, plakoto or fevga.
    #[arg(long)]
    pub variant: Option<Variant>,
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

/// One play as `moves` lists it: its notation, the position after it (opponent on roll)
/// as the game writes positions, and, in the games whose lists name it, how it ended the
/// game (`win 1`, `win 2`, `tie` or null).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayLine {
    pub mv: String,
    pub position: String,
    pub end: Option<Option<String>>,
    key: &'static str,
}

impl PlayLine {
    /// The line of `play` of `pos`.
    pub fn of<G: CliGame>(pos: &G, play: &G::Play) -> PlayLine {
        PlayLine {
            mv: G::play_text(pos, play),
            position: G::position_text(&play.next()),
            end: G::NAMES_ENDINGS.then(|| end_name::<G>(play)),
            key: G::POSITION_KEY,
        }
    }

    /// The text line: move, position and the ending when there is one, tab-separated.
    fn text(&self) -> String {
        let mut t = format!("{}\t{}", self.mv, self.position);
        if let Some(Some(e)) = &self.end {
            t.push('\t');
            t.push_str(e);
        }
        t
    }
}

impl Serialize for PlayLine {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("move", &self.mv)?;
        m.serialize_entry(self.key, &self.position)?;
        if let Some(end) = &self.end {
            m.serialize_entry("end", end)?;
        }
        m.end()
    }
}

#[derive(Debug, Serialize)]
struct MovesOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    variant: Option<&'static str>,
    plays: Vec<PlayLine>,
}

/// Each legal play of `dice` in `pos`, as `moves` lists it. No legal play gives one
/// entry with an empty move.
pub fn list_plays<G: CliGame>(pos: &G, dice: Dice) -> Vec<PlayLine> {
    let mut list = G::List::default();
    pos.generate(dice, &mut list);
    list.iter().map(|p| PlayLine::of(pos, p)).collect()
}

pub fn run(args: MovesArgs) -> Result<(), CliError> {
    let variant = args.variant.unwrap_or(Variant::Backgammon);
    with_game!(variant, G => moves::<G>(&args, variant))
}

/// `moves` in the game of `variant`.
fn moves<G: CliGame>(args: &MovesArgs, variant: Variant) -> Result<(), CliError> {
    let pos = G::on_roll(&G::read(variant, Some(&args.pos))?);
    let dice = Dice::new(args.d1, args.d2)?;
    if pos.is_over() {
        return Err("the game is over in this position".into());
    }
    let variant = args.variant.map(Variant::name);
    if let Some(text) = &args.play {
        let one = PlayLine::of(&pos, &G::parse_play(&pos, dice, text)?);
        if args.json {
            let mut v = serde_json::to_value(&one)?;
            if let Some(name) = variant {
                v["variant"] = serde_json::json!(name);
            }
            println!("{v}");
        } else {
            println!("{}", one.text());
        }
        return Ok(());
    }
    let plays = list_plays(&pos, dice);
    if args.json {
        println!("{}", serde_json::to_string(&MovesOut { variant, plays })?);
    } else {
        let mut text = String::new();
        for p in plays {
            text.push_str(&p.text());
            text.push('\n');
        }
        print!("{text}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;

    #[test]
    fn opening_three_one_as_gnubg_lists_it() {
        let plays = list_plays(&Position::OPENING, Dice::new(3, 1).expect("dice"));
        assert_eq!(plays.len(), 16);
        // gnubg: 8/5 6/5 leads to sGfwATDgc/ABMA with the opponent on roll.
        assert!(plays
            .iter()
            .any(|p| p.mv == "8/5 6/5" && p.position == "sGfwATDgc/ABMA" && p.end.is_none()));
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
        assert_eq!(plays.len(), 1);
        assert_eq!(plays[0].mv, "");
        assert_eq!(plays[0].position, crate::notation::position_id(&p.swap()));
    }
}
