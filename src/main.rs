//! The `stargammon` command: parses arguments and calls the library.

use clap::Parser;
use stargammon::cli::{self, Cli};

fn main() {
    let cli = Cli::parse();
    if let Err(e) = cli::run(cli) {
        eprintln!("stargammon: {e}");
        std::process::exit(2);
    }
}
