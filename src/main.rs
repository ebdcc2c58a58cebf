//! The `stargammon` command: parses arguments and calls the library.

use clap::Parser;
use stargammon::cli::{self, Cli};

fn main() {
    quiet_on_closed_stdout();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match cli::argument_error_line(&e) {
            Some(line) => {
                eprintln!("stargammon: {line}");
                std::process::exit(2);
            }
            // `--help` and `--version`: clap prints them and exits 0.
            None => e.exit(),
        },
    };
    if let Err(e) = cli::run(cli) {
        eprintln!("stargammon: {}", cli::one_line(&e.to_string()));
        std::process::exit(2);
    }
}

/// `stargammon moves ... | head` closes stdout early; `println!` then panics. End quietly
/// instead, as command-line tools do, and keep the normal report for every other panic.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if text.starts_with("failed printing to stdout") && text.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
