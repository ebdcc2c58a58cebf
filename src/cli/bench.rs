//! `stargammon bench ...`: figures plus the command that reproduces them.

use clap::{Args, Subcommand};

use super::CliError;
use crate::bench;

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub which: BenchCommand,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Legal-play generation over the committed set of (position, roll) pairs.
    Movegen(MovegenArgs),
    /// Search algorithms and depths over the committed set of contact decisions.
    Search(super::search_bench::SearchBenchArgs),
}

#[derive(Debug, Args)]
pub struct MovegenArgs {
    /// Passes over the whole set.
    #[arg(long, default_value_t = 20)]
    pub rounds: u32,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: BenchArgs) -> Result<(), CliError> {
    match args.which {
        BenchCommand::Movegen(a) => movegen(a),
        BenchCommand::Search(a) => super::search_bench::run(a),
    }
}

fn movegen(a: MovegenArgs) -> Result<(), CliError> {
    if a.rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    let set = bench::movegen_set()?;
    let r = bench::run_movegen(&set, a.rounds);
    let command = format!("stargammon bench movegen --rounds {}", a.rounds);
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "decisions": r.decisions,
                "plays": r.plays,
                "ns_per_decision": r.ns_per_decision,
                "decisions_per_sec": r.decisions_per_sec,
                "positions": set.len(),
                "command": command,
            })
        );
    } else {
        println!(
            "movegen: {} (position, roll) pairs x {} rounds",
            set.len(),
            a.rounds
        );
        println!("decisions:        {}", r.decisions);
        println!("plays generated:  {}", r.plays);
        println!("ns per decision:  {:.1}", r.ns_per_decision);
        println!("decisions/s:      {:.0}", r.decisions_per_sec);
        println!("command:          {command}");
    }
    Ok(())
}
