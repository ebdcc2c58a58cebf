//! Engines reached over TCP with gnubg's external-interface requests (protocols.md,
//! section 3): one `board:...` line out, one reply line back.
//!
//! The transport is deliberately blocking and one connection per worker thread: a
//! request/reply protocol with one outstanding request gains nothing from async, and a
//! read timeout per request is what turns a hung engine into a forfeit instead of a hung
//! match.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

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

impl EngineConnection {
    /// Connects to `addr` (`HOST:PORT`); every later request waits at most `timeout`.
    pub fn connect(addr: &str, timeout: Duration) -> Result<EngineConnection, RequestError> {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

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
}
