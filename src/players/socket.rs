//! Engines reached over TCP with gnubg's external-interface requests (docs/protocols.md,
//! "Engines over TCP in duels and matches"): one `board:...` line out, one reply line back.
//!
//! The transport is deliberately blocking and one connection per worker thread: a
//! request/reply protocol with one outstanding request gains nothing from async, and a
//! read timeout per request is what turns a hung engine into a forfeit instead of a hung
//! match.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::engine::Action;
use crate::game::{Decision, MatchState, Play};
use crate::notation::fibs_board::{Convention, FibsBoard, FibsSeat};
use crate::notation::{parse_move, MoveError, MoveStyle};
use crate::players::{Decide, DecideError, DecideErrorKind, MakeDecider};

/// Replies longer than this are not gnubg-interface replies.
const MAX_REPLY: usize = 4096;

/// Why a request got no usable reply line.
#[derive(Debug)]
pub enum RequestError {
    Io(std::io::Error),
    Timeout,
    Closed,
    TooLong,
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::Io(e) => write!(f, "{e}"),
            RequestError::Timeout => write!(f, "timed out"),
            RequestError::Closed => write!(f, "connection closed"),
            RequestError::TooLong => write!(f, "reply longer than {MAX_REPLY} bytes"),
        }
    }
}

impl std::error::Error for RequestError {}

/// A connection to one engine.
#[derive(Debug)]
pub struct EngineConnection {
    addr: String,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

/// How long [`EngineConnection::connect`] keeps trying a refused connection.
pub const REFUSED_GRACE: Duration = Duration::from_secs(3);

impl EngineConnection {
    /// Connects to `addr` (`HOST:PORT`); every later request waits at most `timeout`.
    ///
    /// A refused connection is tried again for up to [`REFUSED_GRACE`] (bounded by
    /// `timeout`): gnubg's `external` server serves one connection at a time and needs a
    /// moment after a client leaves before it listens again.
    pub fn connect(addr: &str, timeout: Duration) -> Result<EngineConnection, RequestError> {
        let deadline = Instant::now() + timeout.min(REFUSED_GRACE);
        loop {
            match Self::connect_once(addr, timeout) {
                Err(RequestError::Io(e))
                    if e.kind() == std::io::ErrorKind::ConnectionRefused
                        && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(25));
                }
                r => return r,
            }
        }
    }

    fn connect_once(addr: &str, timeout: Duration) -> Result<EngineConnection, RequestError> {
        let mut last = None;
        let addrs = addr.to_socket_addrs().map_err(RequestError::Io)?;
        for a in addrs {
            match TcpStream::connect_timeout(&a, timeout) {
                Ok(s) => {
                    s.set_nodelay(true).map_err(RequestError::Io)?;
                    s.set_read_timeout(Some(timeout))
                        .map_err(RequestError::Io)?;
                    s.set_write_timeout(Some(timeout))
                        .map_err(RequestError::Io)?;
                    let writer = s.try_clone().map_err(RequestError::Io)?;
                    return Ok(EngineConnection {
                        addr: addr.to_string(),
                        reader: BufReader::new(s),
                        writer,
                    });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(RequestError::Io(last.unwrap_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "no address")
        })))
    }

    /// The address connected to.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Sends one request line and reads one reply line, without its line end, NUL bytes
    /// or trailing spaces.
    pub fn request(&mut self, line: &str) -> Result<String, RequestError> {
        let mut out = Vec::with_capacity(line.len() + 1);
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
        self.writer.write_all(&out).map_err(map_io)?;
        let mut reply = Vec::new();
        let mut limited = std::io::Read::take(&mut self.reader, (MAX_REPLY + 1) as u64);
        let n = limited.read_until(b'\n', &mut reply).map_err(map_io)?;
        if n == 0 {
            return Err(RequestError::Closed);
        }
        if reply.len() > MAX_REPLY {
            return Err(RequestError::TooLong);
        }
        if reply.last() != Some(&b'\n') {
            return Err(RequestError::Closed);
        }
        // A NUL left over from a NUL-terminated previous reply is not part of this one.
        reply.retain(|&b| b != 0);
        let text = String::from_utf8_lossy(&reply);
        Ok(text.trim_end_matches(['\n', '\r', ' ', '\t']).to_string())
    }
}

fn map_io(e: std::io::Error) -> RequestError {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => RequestError::Timeout,
        _ => RequestError::Io(e),
    }
}

/// Reads `tcp://HOST:PORT[,HOST:PORT...]` into its addresses; None when `spec` is not a
/// tcp engine.
pub fn parse_tcp_engine(spec: &str) -> Option<Vec<String>> {
    let rest = spec.strip_prefix("tcp://")?;
    let addrs: Vec<String> = rest
        .split(',')
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    if addrs.is_empty() || addrs.iter().any(|a| !a.contains(':')) {
        return None;
    }
    Some(addrs)
}

/// Why a move reply was not accepted: unreadable, or readable but not a legal play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveReplyError {
    Syntax(String),
    Illegal(String),
}

/// Writes the request line for a decision (gnubg's external-interface board).
pub type EncodeFn = fn(&MatchState) -> Result<String, String>;
/// Reads a move reply against the decision's position and dice.
pub type ParseMoveFn = fn(&str, &MatchState) -> Result<Play, MoveReplyError>;

/// The request for a decision: the board in gnubg's external-interface convention
/// (docs/protocols.md, "FIBS board lines"), as gnubg's own `external` server and `stargammon serve`
/// expect it.
/// Money rules the state states are appended as the interface's options
/// (`jacobyrule on|off`, `beavers on|off`), which gnubg's `external` and `stargammon serve`
/// both honour, so the engine behind the socket values the cube under the referee's rules.
pub fn gnubg_board_request(state: &MatchState) -> Result<String, String> {
    // gnubg's parser needs both names: a state without them (a decision out of a set
    // rather than a game) goes out with neutral ones.
    let mut named;
    let state = if state.names.0.is_empty() || state.names.1.is_empty() {
        named = state.clone();
        for (name, fallback) in [
            (&mut named.names.0, "player"),
            (&mut named.names.1, "opponent"),
        ] {
            if name.is_empty() {
                *name = fallback.to_string();
            }
        }
        &named
    } else {
        state
    };
    let mut line = FibsBoard::from_match_state(state, Convention::Gnubg, FibsSeat::default())
        .map(|b| b.to_line())
        .map_err(|e| e.to_string())?;
    if state.is_money() {
        let on_off = |b: bool| if b { "on" } else { "off" };
        if let Some(j) = state.rules.jacoby {
            line.push_str(" jacobyrule ");
            line.push_str(on_off(j));
        }
        if let Some(b) = state.rules.beavers {
            line.push_str(" beavers ");
            line.push_str(on_off(b));
        }
    }
    Ok(line)
}

/// Reads an engine's move reply (gnubg's notation, mover's numbers) as the one legal play
/// of the decision's position and dice it denotes.
pub fn gnubg_move_reply(text: &str, state: &MatchState) -> Result<Play, MoveReplyError> {
    let Decision::Move(dice) = state.decision else {
        return Err(MoveReplyError::Illegal("no move is asked for here".into()));
    };
    parse_move(text, &state.position, dice, MoveStyle::Gnubg).map_err(|e| match e {
        MoveError::Syntax(_) => MoveReplyError::Syntax(e.to_string()),
        MoveError::Illegal(_) => MoveReplyError::Illegal(e.to_string()),
    })
}

/// An engine behind a socket, answering one decision per request.
#[derive(Debug)]
pub struct TcpEngine {
    name: String,
    conn: EngineConnection,
    encode: EncodeFn,
    parse_move: ParseMoveFn,
}

impl TcpEngine {
    pub fn new(
        name: String,
        conn: EngineConnection,
        encode: EncodeFn,
        parse_move: ParseMoveFn,
    ) -> TcpEngine {
        TcpEngine {
            name,
            conn,
            encode,
            parse_move,
        }
    }
}

/// Interprets a reply line for a cube question or a move.
pub fn interpret_reply(
    reply: &str,
    state: &MatchState,
    parse_move: ParseMoveFn,
) -> Result<Action, DecideErrorKind> {
    let text = reply.trim();
    if text.starts_with("Error") {
        return Err(DecideErrorKind::EngineError);
    }
    let word = text.to_ascii_lowercase();
    match state.decision {
        Decision::DoubleOrRoll => match word.as_str() {
            "double" => Ok(Action::Double),
            "roll" => Ok(Action::Roll),
            _ => Err(DecideErrorKind::Unparseable(format!(
                "{text:?} is not `double` or `roll`"
            ))),
        },
        Decision::TakeOrDrop => match word.as_str() {
            "take" | "accept" => Ok(Action::Take),
            "drop" | "pass" | "reject" => Ok(Action::Drop),
            "beaver" => Err(DecideErrorKind::Illegal("beavers are not in use".into())),
            _ => Err(DecideErrorKind::Unparseable(format!(
                "{text:?} is not `take` or `drop`"
            ))),
        },
        Decision::Move(_) => match parse_move(text, state) {
            Ok(play) => Ok(Action::Move(play)),
            Err(MoveReplyError::Syntax(e)) => Err(DecideErrorKind::Unparseable(e)),
            Err(MoveReplyError::Illegal(e)) => Err(DecideErrorKind::Illegal(e)),
        },
        Decision::BeaverAnswer | Decision::GameOver => Err(DecideErrorKind::Illegal(
            "no answer is asked for here".into(),
        )),
    }
}

impl Decide for TcpEngine {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn decide(&mut self, state: &MatchState, _plays: &[Play]) -> Result<Action, DecideError> {
        let request = (self.encode)(state).map_err(|e| DecideError {
            kind: DecideErrorKind::Illegal(format!("cannot write the board: {e}")),
            request: format!("{state:?}"),
            reply: String::new(),
        })?;
        let reply = match self.conn.request(&request) {
            Ok(r) => r,
            Err(e) => {
                let kind = match e {
                    RequestError::Timeout => DecideErrorKind::Timeout,
                    other => DecideErrorKind::Io(other.to_string()),
                };
                return Err(DecideError {
                    kind,
                    request,
                    reply: String::new(),
                });
            }
        };
        interpret_reply(&reply, state, self.parse_move).map_err(|kind| DecideError {
            kind,
            request,
            reply,
        })
    }
}

/// Opens one connection per worker to a `tcp://` engine; worker `w` uses address
/// `w mod n` of the list.
#[derive(Debug, Clone)]
pub struct TcpFactory {
    pub spec: String,
    pub addrs: Vec<String>,
    pub timeout: Duration,
    pub encode: EncodeFn,
    pub parse_move: ParseMoveFn,
}

impl TcpFactory {
    /// A factory for engines that read gnubg's external-interface boards and answer in
    /// gnubg's move notation (gnubg's own `external`, `stargammon serve`).
    pub fn gnubg(spec: String, addrs: Vec<String>, timeout: Duration) -> TcpFactory {
        TcpFactory {
            spec,
            addrs,
            timeout,
            encode: gnubg_board_request,
            parse_move: gnubg_move_reply,
        }
    }
}

impl MakeDecider for TcpFactory {
    fn make(&self, worker: usize) -> Result<Box<dyn Decide>, String> {
        if self.addrs.is_empty() {
            return Err(format!("{}: no address", self.spec));
        }
        let addr = &self.addrs[worker % self.addrs.len()];
        let conn = EngineConnection::connect(addr, self.timeout)
            .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
        Ok(Box::new(TcpEngine::new(
            self.spec.clone(),
            conn,
            self.encode,
            self.parse_move,
        )))
    }

    fn name(&self) -> String {
        self.spec.clone()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

    #[test]
    fn a_refused_connection_is_tried_again_until_the_engine_listens() {
        // A free port with nothing on it yet; the engine starts listening 300 ms later.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = format!("127.0.0.1:{port}");
        let late = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let l = TcpListener::bind(("127.0.0.1", port)).unwrap();
            let (mut s, _) = l.accept().unwrap();
            s.write_all(b"hello\n").unwrap();
        });
        let mut conn = EngineConnection::connect(&addr, Duration::from_secs(10)).unwrap();
        let mut line = String::new();
        conn.reader.read_line(&mut line).unwrap();
        assert_eq!(line, "hello\n");
        late.join().unwrap();
        // Nothing listening at all: refused, after the grace period.
        let t = Instant::now();
        let err = EngineConnection::connect(&addr, Duration::from_millis(200));
        assert!(
            matches!(err, Err(RequestError::Io(ref e)) if e.kind() == std::io::ErrorKind::ConnectionRefused)
        );
        assert!(t.elapsed() >= Duration::from_millis(200));
    }

    #[test]
    fn tcp_specs_are_split() {
        assert_eq!(
            parse_tcp_engine("tcp://127.0.0.1:4000"),
            Some(vec!["127.0.0.1:4000".to_string()])
        );
        assert_eq!(
            parse_tcp_engine("tcp://127.0.0.1:4000,127.0.0.1:4001").map(|v| v.len()),
            Some(2)
        );
        assert_eq!(parse_tcp_engine("net"), None);
        assert_eq!(parse_tcp_engine("tcp://"), None);
        assert_eq!(parse_tcp_engine("tcp://hostonly"), None);
    }

    #[test]
    fn replies_are_read_one_line_at_a_time() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 64];
            let _ = s.read(&mut buf).unwrap();
            s.write_all(b"8/5 6/5  \r\n\0").unwrap();
            let _ = s.read(&mut buf).unwrap();
            s.write_all(b"take\n").unwrap();
            let _ = s.read(&mut buf).unwrap();
            // No reply: the client times out.
            std::thread::sleep(Duration::from_millis(400));
        });
        let mut c = EngineConnection::connect(&addr, Duration::from_millis(200)).unwrap();
        assert_eq!(c.request("board:x").unwrap(), "8/5 6/5");
        assert_eq!(c.request("board:y").unwrap(), "take");
        assert!(matches!(c.request("board:z"), Err(RequestError::Timeout)));
        server.join().unwrap();
    }

    fn no_moves(_: &str, _: &MatchState) -> Result<Play, MoveReplyError> {
        Err(MoveReplyError::Syntax("not reached".into()))
    }

    #[test]
    fn cube_replies_are_strict() {
        use crate::game::Position;
        let roll = MatchState::money(Position::OPENING, Decision::DoubleOrRoll);
        let take = MatchState::money(Position::OPENING, Decision::TakeOrDrop);
        assert_eq!(
            interpret_reply("double", &roll, no_moves),
            Ok(Action::Double)
        );
        assert_eq!(interpret_reply("Roll", &roll, no_moves), Ok(Action::Roll));
        assert!(matches!(
            interpret_reply("", &roll, no_moves),
            Err(DecideErrorKind::Unparseable(_))
        ));
        assert!(matches!(
            interpret_reply("reject", &roll, no_moves),
            Err(DecideErrorKind::Unparseable(_))
        ));
        assert_eq!(interpret_reply("take", &take, no_moves), Ok(Action::Take));
        assert_eq!(interpret_reply("drop", &take, no_moves), Ok(Action::Drop));
        assert!(matches!(
            interpret_reply("beaver", &take, no_moves),
            Err(DecideErrorKind::Illegal(_))
        ));
        assert_eq!(
            interpret_reply("Error: badly formed board", &take, no_moves),
            Err(DecideErrorKind::EngineError)
        );
    }

    #[test]
    fn requests_are_gnubg_boards() {
        use crate::game::{Dice, Position};
        let mut state =
            MatchState::money(Position::OPENING, Decision::Move(Dice::new(2, 1).unwrap()));
        state.names = ("probe".into(), "gnubg0ply".into());
        assert_eq!(
            gnubg_board_request(&state).unwrap(),
            "board:probe:gnubg0ply:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:2:1:2:1:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
        );
        state.rules.jacoby = Some(false);
        state.rules.beavers = Some(true);
        let line = gnubg_board_request(&state).unwrap();
        assert!(line.ends_with(":0:1 jacobyrule off beavers on"), "{line}");
    }

    #[test]
    fn move_replies_become_legal_plays() {
        use crate::game::{Dice, Position};
        let state = MatchState::money(Position::OPENING, Decision::Move(Dice::new(2, 1).unwrap()));
        let p = gnubg_move_reply("13/11 24/23 ", &state).unwrap();
        assert_eq!(p.steps().len(), 2);
        assert!(matches!(
            gnubg_move_reply("13-11 24-23", &state),
            Err(MoveReplyError::Syntax(_)) | Err(MoveReplyError::Illegal(_))
        ));
        assert!(matches!(
            gnubg_move_reply("13/10 24/23", &state),
            Err(MoveReplyError::Illegal(_))
        ));
        assert!(gnubg_move_reply("", &state).is_err());
    }

    #[test]
    fn match_requests_read_back_as_the_same_state() {
        use crate::game::{CubeOwner, Dice, Position};
        use crate::notation::fibs_board::parse_match_state;
        let pos = Position::OPENING;
        for acting in [0u8, 1] {
            for decision in [
                Decision::Move(Dice::new(5, 3).unwrap()),
                Decision::DoubleOrRoll,
                Decision::TakeOrDrop,
            ] {
                let mut state = MatchState::money(pos, decision);
                state.match_length = 7;
                state.score = 4;
                state.opp_score = 2;
                state.cube = 2;
                state.cube_owner = if decision == Decision::TakeOrDrop {
                    CubeOwner::Opponent
                } else {
                    CubeOwner::Me
                };
                state.may_double = decision != Decision::TakeOrDrop;
                state.opp_may_double = decision == Decision::TakeOrDrop;
                state.acting_player = acting;
                state.names = ("me".into(), "you".into());
                let line = gnubg_board_request(&state).unwrap();
                let back = parse_match_state(&line, Convention::Gnubg).unwrap();
                assert_eq!(back.score, 4, "{line}");
                assert_eq!(back.opp_score, 2, "{line}");
                assert_eq!(back.acting_player, acting, "{line}");
                assert_eq!(back.decision, decision, "{line}");
                assert_eq!(back.position, pos, "{line}");
                assert_eq!(back.cube, 2);
            }
        }
    }
}
