//! `stargammon ubgi [--config FILE]`: the Universal Backgammon Interface on stdin/stdout
//! (protocols.md section 6). Lines are read on their own thread so that `stop` and `quit`
//! reach a running search.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Args;
use crossbeam::channel::{select, unbounded};

use super::CliError;
use crate::config::BoardConvention;
use crate::engine::{Action, Engine, EngineSettings};
use crate::notation::fibs_board::FibsBoard;
use crate::protocol::ubgi::{self, UbgiCommand};
use crate::search::Cancel;

#[derive(Debug, Args)]
pub struct UbgiArgs {
    /// Configuration file (TOML); its [engine] and [cube] sections apply.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

pub fn run(args: UbgiArgs) -> Result<(), CliError> {
    let config = super::serve::load_config(args.config.as_ref())?;
    let engine = crate::engine::build::engine(&config.engine_spec())?;
    run_ubgi(
        engine,
        config.server.board_convention,
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout(),
    )?;
    Ok(())
}

/// A position line (FIBS board or XGID) as a match state.
fn read_position(conv: BoardConvention, line: &str) -> Option<crate::game::MatchState> {
    if line.len() >= 5 && line.is_char_boundary(5) && line[..5].eq_ignore_ascii_case("xgid=") {
        return crate::notation::Xgid::parse(line)
            .and_then(|x| x.to_match_state())
            .ok();
    }
    let parsed = FibsBoard::parse(line).ok()?;
    parsed.to_match_state(conv.resolve(&parsed)).ok()
}

fn decide(engine: &Engine, conv: BoardConvention, board: &str, cancel: &Cancel) -> Option<Action> {
    let state = read_position(conv, board)?;
    match engine.decide(&state, cancel) {
        Ok(a) => Some(a),
        // Stopped before anything was searched: answer from a static evaluation.
        Err(_) => {
            let quick = engine.with_settings(EngineSettings {
                depth: 1,
                cube_depth: 1,
                ..*engine.settings()
            });
            quick.decide(&state, &Cancel::new()).ok()
        }
    }
}

/// Runs the protocol over any line source and sink (the CLI passes stdin and stdout).
pub fn run_ubgi<R, W>(
    engine: Engine,
    conv: BoardConvention,
    input: R,
    mut out: W,
) -> std::io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write,
{
    let (line_tx, line_rx) = unbounded::<String>();
    // Not scoped: after `quit` the reader may still be blocked on input, and the process
    // must not wait for it.
    std::thread::spawn(move || {
        for line in input.lines() {
            match line {
                Ok(l) => {
                    if line_tx.send(l).is_err() {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
    });
    std::thread::scope(|scope| {
        let mut quit = false;
        let mut input_open = true;
        // Lines that arrived during a search, other than stop/quit/isready, wait their turn.
        let mut pending: std::collections::VecDeque<String> = std::collections::VecDeque::new();
        while !quit {
            let next = pending
                .pop_front()
                .or_else(|| input_open.then(|| line_rx.recv().ok()).flatten());
            let Some(line) = next else {
                break;
            };
            match ubgi::parse_command(&line) {
                UbgiCommand::Hello => {
                    for l in ubgi::hello_lines(&engine.name()) {
                        writeln!(out, "{l}")?;
                    }
                }
                UbgiCommand::IsReady => writeln!(out, "readyok")?,
                UbgiCommand::Blank | UbgiCommand::Stop => {}
                UbgiCommand::Quit => quit = true,
                UbgiCommand::Unknown => writeln!(out, "{}", ubgi::SORRY)?,
                UbgiCommand::Board(board) | UbgiCommand::Xgid(board) => {
                    let cancel = Cancel::new();
                    let (done_tx, done_rx) = unbounded();
                    let worker_cancel = cancel.clone();
                    let engine_ref = &engine;
                    scope.spawn(move || {
                        let _ = done_tx.send(decide(engine_ref, conv, &board, &worker_cancel));
                    });
                    let answer = loop {
                        if !input_open {
                            break done_rx.recv().ok().flatten();
                        }
                        select! {
                            recv(done_rx) -> r => break r.ok().flatten(),
                            recv(line_rx) -> l => match l.as_deref().map(ubgi::parse_command) {
                                Ok(UbgiCommand::Stop) => cancel.cancel(),
                                // `quit` stops the search at once; lines queued before it are
                                // still answered, then the loop ends on the queued `quit`.
                                Ok(UbgiCommand::Quit) => {
                                    cancel.cancel();
                                    pending.push_back("quit".to_string());
                                }
                                // End of input: finish this search, answer what is queued.
                                Err(_) => input_open = false,
                                Ok(UbgiCommand::IsReady) => writeln!(out, "readyok")?,
                                Ok(_) => {
                                    if let Ok(l) = l {
                                        pending.push_back(l);
                                    }
                                }
                            },
                        }
                    };
                    match answer {
                        Some(a) => writeln!(out, "{}", ubgi::reply(&a))?,
                        None => writeln!(out, "{}", ubgi::SORRY)?,
                    }
                }
            }
            out.flush()?;
        }
        Ok(())
    })
}
