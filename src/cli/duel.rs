//! `stargammon duel --a SPEC --b SPEC --games N [--seed S] [--threads T] [--json]
//! [--variant V] [--vr [--judge SPEC]]`.

use clap::Args;

use std::fmt::Write;
use std::sync::atomic::AtomicBool;

use super::game::{with_game, CliGame};
use super::{CliError, Report};
use crate::arena::{duel_until, DuelConfig};
use crate::eval::luck::Judge;
use crate::game::Variant;

#[derive(Debug, Args)]
pub struct DuelArgs {
    /// Player A: net, net:PATH, pubeval, heuristic, random; options after commas.
    #[arg(long)]
    pub a: String,
    /// Player B, same syntax.
    #[arg(long)]
    pub b: String,
    /// Games: an even number, at least 4 (N/2 mirrored dice pairs).
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// The game: backgammon (default), portes, plakoto or fevga. In the Tavli games the
    /// players are net (any depth and algorithm), heuristic, random, tcp://HOST:PORT, and
    /// in Portes pubeval.
    #[arg(long)]
    pub variant: Option<Variant>,
    #[command(flatten)]
    pub luck: LuckArgs,
}

/// `--vr [--judge SPEC]`: luck-adjusted results, for `duel` and `match` alike.
#[derive(Debug, Args)]
pub struct LuckArgs {
    /// Variance reduction: measure the luck of every roll with the judge and report
    /// luck-adjusted results (`adjusted_ppg` and `adjusted_ci95`; in matches
    /// `adjusted_match_win_rate` and `adjusted_match_ci95`, luck in match-winning chance)
    /// beside the plain ones.
    #[arg(long)]
    pub vr: bool,
    /// The judge of --vr: an evaluator at depth 1 (`net`, the shipped nets, by default;
    /// `net:PATH`; `pipsigmoid`).
    #[arg(long, value_name = "SPEC", default_value = "net", requires = "vr")]
    pub judge: String,
}

impl LuckArgs {
    /// The judge built from --judge with --vr, none without.
    pub fn judge(&self) -> Result<Option<Judge>, CliError> {
        if !self.vr {
            return Ok(None);
        }
        Ok(Some(
            crate::arena::luck::judge(&self.judge).map_err(|e| format!("--judge: {e}"))?,
        ))
    }

    /// What the reproducing command line adds: ` --vr --judge SPEC`, or nothing.
    pub fn command_suffix(&self) -> String {
        if self.vr {
            format!(" --vr --judge {}", self.judge)
        } else {
            String::new()
        }
    }
}

/// Games come in mirrored pairs, and the interval needs two pairs: with one it is
/// undefined.
fn check_games(games: u64) -> Result<(), CliError> {
    if games < 4 || games % 2 == 1 {
        return Err(format!(
            "--games must be an even number of at least 4 (whole mirrored pairs, two for \
             an interval), not {games}"
        )
        .into());
    }
    Ok(())
}

/// The 95% interval as the text reports print it.
fn interval_text(ci95: f64) -> String {
    if ci95.is_finite() {
        format!("+/- {ci95:.4} (95%)")
    } else {
        "+/- n/a".to_string()
    }
}

pub fn run(a: DuelArgs) -> Result<(), CliError> {
    play(&a, true)?.print(a.json);
    Ok(())
}

/// Plays the duel `a` describes (`progress`: a progress bar on stderr) and reports it as
/// `duel` prints it.
pub fn play(a: &DuelArgs, progress: bool) -> Result<Report, CliError> {
    play_until(a, progress, &AtomicBool::new(false))
}

/// [`play`] that stops early when `stop` is raised, reporting the games finished by then.
pub fn play_until(a: &DuelArgs, progress: bool, stop: &AtomicBool) -> Result<Report, CliError> {
    let variant = a.variant.unwrap_or(Variant::Backgammon);
    with_game!(variant, G => play_game::<G>(a, variant, progress, stop))
}

/// The duel of `a` in the game of `variant`.
fn play_game<G: CliGame>(
    a: &DuelArgs,
    variant: Variant,
    progress: bool,
    stop: &AtomicBool,
) -> Result<Report, CliError> {
    let fa = G::factory(&a.a, variant).map_err(|e| format!("--a: {e}"))?;
    let fb = G::factory(&a.b, variant).map_err(|e| format!("--b: {e}"))?;
    check_games(a.games)?;
    let threads = super::threads_arg(a.threads)?;
    let judge = match a.luck.vr {
        true => Some(G::judge(&a.luck.judge).map_err(|e| format!("--judge: {e}"))?),
        false => None,
    };
    let r = duel_until(
        G::start(variant),
        &fa,
        &fb,
        &DuelConfig {
            games: a.games,
            seed: a.seed,
            threads,
            progress,
            judge,
        },
        stop,
    );
    // Backgammon, the default game, goes unnamed in the command and the heading.
    let named = Some(variant.name()).filter(|_| variant != Variant::Backgammon);
    let game = named.map(|n| format!(" --variant {n}")).unwrap_or_default();
    let command = format!(
        "stargammon duel{game} --a {} --b {} --games {} --seed {}{}",
        a.a,
        a.b,
        r.games,
        a.seed,
        a.luck.command_suffix()
    );
    let mut v = r.to_json();
    v["variant"] = serde_json::json!(variant.name());
    let percent = |n: u64| 100.0 * n as f64 / r.games as f64;
    let counts = G::duel_counts(&r, &mut v, &percent);
    v["seed"] = serde_json::json!(a.seed);
    v["threads"] = serde_json::json!(threads);
    v["command"] = serde_json::json!(command);
    let mut t = String::new();
    let game = named.map(|n| format!("{n}: ")).unwrap_or_default();
    writeln!(
        t,
        "{game}{} vs {}: {} games ({} mirrored pairs), seed {}",
        r.a, r.b, r.games, r.pairs, a.seed
    )?;
    writeln!(t, "ppg (A's view): {:+.4} {}", r.ppg, interval_text(r.ci95))?;
    if let Some(adj) = &r.adjusted {
        writeln!(t, "{}", adj.text("ppg"))?;
    }
    write!(
        t,
        "A wins: {} ({:.1}%), B wins: {}",
        r.a_wins,
        percent(r.a_wins),
        r.b_wins
    )?;
    if r.ties > 0 {
        write!(t, ", ties: {}", r.ties)?;
    }
    writeln!(t)?;
    writeln!(t, "{counts}")?;
    if r.unfinished > 0 {
        writeln!(t, "unfinished games: {}", r.unfinished)?;
    }
    if r.forfeits_a + r.forfeits_b > 0 {
        writeln!(
            t,
            "forfeited games: A {}, B {}; the first: {}",
            r.forfeits_a,
            r.forfeits_b,
            r.first_forfeit.as_deref().unwrap_or("")
        )?;
    }
    writeln!(t, "time: {:.1} s ({threads} threads)", r.seconds)?;
    writeln!(t, "command: {command}")?;
    Ok(Report { json: v, text: t })
}
