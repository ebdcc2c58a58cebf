//! `stargammon ubgi [--config FILE]`: the Universal Backgammon Interface on stdin/stdout
//! (docs/protocols.md, "UBGI"). Lines are read on their own thread so that `stop` and `quit`
//! reach a running search.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::PathBuf;

use bytes::BytesMut;
use clap::Args;
use crossbeam::channel::{select, unbounded, Sender};
use tokio_util::codec::Decoder;

use super::CliError;
use crate::config::BoardConvention;
use crate::engine::{Action, Engine, EngineSettings};
use crate::engine::{EngineSpec, GameEngine};
use crate::game::Variant;
use crate::notation::fibs_board::FibsBoard;
use crate::notation::strip_prefix_ignore_case;
use crate::protocol::lines::{Frame, LineCodec};
use crate::protocol::ubgi::{self, UbgiCommand};
use crate::search::Cancel;
use crate::tavli::TavliPosition;

#[derive(Debug, Args)]
pub struct UbgiArgs {
    /// Configuration file (TOML); its `[engine]` and `[cube]` sections apply.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

pub fn run(args: UbgiArgs) -> Result<(), CliError> {
    let config = super::serve::load_config(args.config.as_ref())?;
    let engine = crate::engine::build::engine(&config.engine_spec())?;
    let mut session = Session::new(config.server.variant, &config.engine_spec());
    session.load(config.server.variant)?;
    run_ubgi(
        engine,
        config.server.board_convention,
        session,
        std::io::stdin(),
        std::io::stdout(),
    )?;
    Ok(())
}

/// The Tavli side of a session: its game, the engine spec and the engines of the games
/// used so far.
#[derive(Debug)]
pub struct Session {
    variant: Variant,
    spec: EngineSpec,
    engines: Vec<(Variant, GameEngine<TavliPosition>)>,
}

impl Session {
    /// A session starting in `variant`, whose Tavli plays are searched as `spec` (the
    /// configured engine) says, over each game's own net.
    pub fn new(variant: Variant, spec: &EngineSpec) -> Session {
        Session {
            variant,
            spec: crate::engine::build::tavli_spec(spec),
            engines: Vec::new(),
        }
    }

    /// Loads the engine of `variant` (nothing for backgammon); an error says why not.
    fn load(&mut self, variant: Variant) -> Result<(), String> {
        if variant != Variant::Backgammon && !self.engines.iter().any(|(v, _)| *v == variant) {
            let engine =
                crate::engine::build::tavli(&self.spec, variant).map_err(|e| e.to_string())?;
            self.engines.push((variant, engine));
        }
        Ok(())
    }

    /// The reply to a `variant` command.
    fn set_variant(&mut self, name: &str) -> String {
        match name.parse::<Variant>() {
            Ok(v) => match self.load(v) {
                Ok(()) => {
                    self.variant = v;
                    format!("variant {v}")
                }
                Err(e) => format!("{} {e}", ubgi::SORRY),
            },
            Err(e) => format!("{} {e}", ubgi::SORRY),
        }
    }

    /// The reply to a Tavli request line.
    fn tavli_reply(&mut self, line: &str) -> String {
        let request = match crate::protocol::tavli::parse_request(line, self.variant) {
            Ok(r) => r,
            Err(e) => return format!("{} {e}", ubgi::SORRY),
        };
        let variant = request.position.variant();
        if let Err(e) = self.load(variant) {
            return format!("{} {e}", ubgi::SORRY);
        }
        let Some((_, engine)) = self.engines.iter().find(|(v, _)| *v == variant) else {
            return format!("{} no {variant} net", ubgi::SORRY);
        };
        if request.position.result().is_some() {
            return format!("{} the game is over", ubgi::SORRY);
        }
        let decision = engine.choose(
            &request.position,
            request.dice,
            crate::search::Utility::MONEY,
            &Cancel::new(),
        );
        match decision.best() {
            Some(best) => crate::protocol::tavli::ubgi_play(&best.play),
            None => format!("{} the game is over", ubgi::SORRY),
        }
    }
}

/// A position line (FIBS board or XGID) as a match state.
fn read_position(conv: BoardConvention, line: &str) -> Option<crate::game::MatchState> {
    if strip_prefix_ignore_case(line, "xgid=").is_some() {
        return crate::notation::Xgid::parse(line)
            .and_then(|x| x.to_match_state())
            .ok();
    }
    let parsed = FibsBoard::parse(line).ok()?;
    parsed.to_match_state(conv.resolve(&parsed)).ok()
}

fn decide(engine: &Engine, conv: BoardConvention, board: &str, cancel: &Cancel) -> Option<Action> {
    let state = read_position(conv, board)?;
    // An XGID's rules field (Jacoby, beavers) holds for its position over the configuration.
    let engine = &engine.with_cube(engine.rules_for(&state));
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

/// The longest line read as a command; anything longer is answered as unreadable and
/// skipped, so a runaway input cannot fill memory.
const MAX_LINE: usize = 64 * 1024;

/// Reads `input` to its end and hands each line over as a command. A line that is not
/// UTF-8 (or is over-long) becomes [`UbgiCommand::Unknown`], so it is answered like any
/// line the engine does not understand and the session goes on.
fn read_commands<R: Read>(mut input: R, tx: &Sender<UbgiCommand>) {
    let mut codec = LineCodec::new(MAX_LINE);
    let mut buf = BytesMut::new();
    let mut chunk = [0u8; 4096];
    let command = |bytes: &[u8]| match std::str::from_utf8(bytes) {
        Ok(text) => ubgi::parse_command(text),
        Err(_) => UbgiCommand::Unknown,
    };
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        buf.extend_from_slice(&chunk[..n]);
        while let Ok(Some(frame)) = codec.decode(&mut buf) {
            let c = match frame {
                Frame::Line { bytes, .. } => command(&bytes),
                Frame::TooLong => UbgiCommand::Unknown,
            };
            if tx.send(c).is_err() {
                return;
            }
        }
    }
    // A last line without its newline is still a command.
    if let Some(rest) = codec.take_remainder(&mut buf) {
        let _ = tx.send(command(rest.strip_suffix(b"\r").unwrap_or(&rest)));
    }
}

/// Runs the protocol over any line source and sink (the CLI passes stdin and stdout).
///
/// Replies come in the order of the lines they answer: `isready` sent after a position is
/// answered after that position's reply. Only `stop` and `quit` act at once on a running
/// search.
pub fn run_ubgi<R, W>(
    engine: Engine,
    conv: BoardConvention,
    mut session: Session,
    input: R,
    mut out: W,
) -> std::io::Result<()>
where
    R: Read + Send + 'static,
    W: Write,
{
    let (line_tx, line_rx) = unbounded::<UbgiCommand>();
    // Not scoped: after `quit` the reader may still be blocked on input, and the process
    // must not wait for it.
    std::thread::spawn(move || read_commands(input, &line_tx));
    std::thread::scope(|scope| {
        let mut quit = false;
        let mut input_open = true;
        // Commands that arrived during a search, other than stop/quit, wait their turn.
        let mut pending: VecDeque<UbgiCommand> = VecDeque::new();
        while !quit {
            let next = pending
                .pop_front()
                .or_else(|| input_open.then(|| line_rx.recv().ok()).flatten());
            let Some(command) = next else {
                break;
            };
            match command {
                UbgiCommand::Hello => {
                    for l in ubgi::hello_lines(&engine.name()) {
                        writeln!(out, "{l}")?;
                    }
                }
                UbgiCommand::IsReady => writeln!(out, "readyok")?,
                UbgiCommand::Blank | UbgiCommand::Stop => {}
                UbgiCommand::Quit => quit = true,
                UbgiCommand::Unknown => writeln!(out, "{}", ubgi::SORRY)?,
                UbgiCommand::Variant(name) => writeln!(out, "{}", session.set_variant(&name))?,
                UbgiCommand::Text(line) => {
                    if crate::protocol::tavli::is_tavli_line(&line, session.variant) {
                        writeln!(out, "{}", session.tavli_reply(&line))?;
                    } else {
                        writeln!(out, "{}", ubgi::SORRY)?;
                    }
                }
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
                            recv(line_rx) -> c => match c {
                                Ok(UbgiCommand::Stop) => cancel.cancel(),
                                // `quit` stops the search at once; commands queued before
                                // it are still answered, then the loop ends on the queued
                                // `quit`.
                                Ok(UbgiCommand::Quit) => {
                                    cancel.cancel();
                                    pending.push_back(UbgiCommand::Quit);
                                }
                                Ok(other) => pending.push_back(other),
                                // End of input: finish this search, answer what is queued.
                                Err(_) => input_open = false,
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
