//! `stargammon bearoff POS [--json]`: both sides' expected rolls to bear off and the win
//! (and gammon) chances of the side on roll, from the one-sided bear-off database, for a
//! position with every checker in its side's home board or borne off.
//!
//! The side on roll is the side to act, except at a take decision, where the doubler is
//! about to roll. Dice in POS are ignored: the figures are before the roll.

use std::fmt::{self, Write as _};

use clap::Args;
use serde::Serialize;

use super::pos_arg::parse_pos_arg;
use super::{CliError, Report};
use crate::eval::bearoff::{self, Board, Distribution};
use crate::game::{Decision, MatchState, Position};

#[derive(Debug, Args)]
pub struct BearoffArgs {
    /// Position: gnubg Position ID, PositionID:MatchID, XGID or FIBS board string.
    pub pos: String,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Why a position is not in the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotBearoff;

impl fmt::Display for NotBearoff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not a bear-off position: every checker of both sides must be in its home board \
             (points 1-6) or borne off, none on the bar"
        )
    }
}

impl std::error::Error for NotBearoff {}

#[derive(Debug, Serialize)]
struct SideOut {
    mean_rolls: f32,
    checkers: u32,
    /// P(exactly n rolls to bear off every checker), n from 0.
    distribution: Vec<f32>,
    /// Expected rolls to bear off the first checker, when none is off yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    first_off_mean_rolls: Option<f32>,
}

#[derive(Debug, Serialize)]
struct BearoffOut {
    on_roll: SideOut,
    opponent: SideOut,
    p_win: f32,
    p_win_gammon: f32,
    p_lose_gammon: f32,
    /// Cubeless money equity of the side on roll.
    equity: f32,
}

fn side(db: &bearoff::BearoffDb, board: &Board) -> SideOut {
    let d: Distribution<'_> = db.all_off(board);
    let (_, last) = d.range();
    SideOut {
        mean_rolls: d.mean(),
        checkers: bearoff::checkers(board),
        distribution: (0..=last).map(|n| d.p(n)).collect(),
        first_off_mean_rolls: db.first_off(board).map(|f| f.mean()),
    }
}

pub fn run(args: BearoffArgs) -> Result<(), CliError> {
    report(&parse_pos_arg(&args.pos)?)?.print(args.json);
    Ok(())
}

/// The bear-off figures of `state` (dice ignored) as `bearoff` prints them.
pub fn report(ms: &MatchState) -> Result<Report, CliError> {
    let on_roll: Position = match ms.decision {
        Decision::TakeOrDrop => ms.position.swap(),
        _ => ms.position,
    };
    let (me, opp) = bearoff::home_boards(&on_roll).ok_or(NotBearoff)?;
    let db = bearoff::database();
    let p = db.probabilities(&me, &opp);
    let out = BearoffOut {
        on_roll: side(db, &me),
        opponent: side(db, &opp),
        p_win: p.0[0],
        p_win_gammon: p.0[1],
        p_lose_gammon: p.0[3],
        equity: p.equity(),
    };
    let mut t = String::new();
    for (name, s) in [("on roll ", &out.on_roll), ("opponent", &out.opponent)] {
        write!(
            t,
            " {name}: {:>2} checkers left, {:.4} rolls expected",
            s.checkers, s.mean_rolls
        )?;
        match s.first_off_mean_rolls {
            Some(f) => writeln!(t, " ({f:.4} to the first checker off)")?,
            None => writeln!(t)?,
        }
    }
    writeln!(t, " P(win) for the side on roll: {:.6}", out.p_win)?;
    if out.on_roll.checkers == 15 || out.opponent.checkers == 15 {
        writeln!(
            t,
            " gammons: won {:.6}, lost {:.6}",
            out.p_win_gammon, out.p_lose_gammon
        )?;
    }
    writeln!(t, " cubeless equity: {:+.6}", out.equity)?;
    // Through the text, as the figures are f32: a value made directly would carry each
    // one widened to f64 (0.51230001...) where the text has the f32's own digits.
    Ok(Report {
        json: serde_json::from_str(&serde_json::to_string(&out)?)?,
        text: t,
    })
}
