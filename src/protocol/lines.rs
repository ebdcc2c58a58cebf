//! Bounded line splitting for the socket protocols, pure and testable.
//!
//! gnubg ends each board it sends to an external player with `\n` and a NUL byte; clients of
//! its external interface end lines with `\n` (sometimes `\r\n`); hand-typed or broken clients
//! send anything. The splitter turns a byte stream into frames:
//! - a line ends at `\n`; a `\n` directly followed by a NUL (gnubg's terminator) is one
//!   terminator, and the frame remembers that the NUL was seen (`nul` in [`Frame::Line`]);
//! - stray NULs at the start of a line are dropped (a NUL that arrived after its line was
//!   already taken), a trailing `\r` is removed; NULs inside a line stay (binary garbage is
//!   then one line the request parser rejects as a whole);
//! - a line longer than the limit becomes one [`Frame::TooLong`] and the rest of it, up to the
//!   next terminator, is discarded, so memory stays bounded whatever the peer sends;
//! - bytes that are not UTF-8 are kept (the frame holds bytes); the request parser rejects
//!   them.

/// One unit of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete line without its terminator.
    Line { bytes: Vec<u8>, nul: bool },
    /// A line exceeded the length limit; it has been (or is being) discarded.
    TooLong,
}

/// Accumulates bytes and yields frames (see the module docs).
#[derive(Debug)]
pub struct LineSplitter {
    buf: Vec<u8>,
    max_len: usize,
    /// Inside an over-long line: drop bytes until the next terminator.
    discarding: bool,
}

impl LineSplitter {
    /// A splitter that accepts lines of at most `max_len` bytes (terminator excluded).
    pub fn new(max_len: usize) -> LineSplitter {
        LineSplitter {
            buf: Vec::new(),
            max_len: max_len.max(1),
            discarding: false,
        }
    }

    /// Appends received bytes.
    pub fn push(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    /// Bytes buffered but not yet returned as a frame.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// True when the buffer holds a complete line ended by `\n` as its very last byte: a NUL
    /// may still follow, so a caller that needs to know (to detect gnubg's external-player
    /// mode) can wait briefly for more bytes before calling [`LineSplitter::next_frame`].
    pub fn ends_at_newline(&self) -> bool {
        let start = self
            .buf
            .iter()
            .position(|&b| b != 0)
            .unwrap_or(self.buf.len());
        let rest = &self.buf[start..];
        rest.iter().position(|&b| b == b'\n') == Some(rest.len().wrapping_sub(1))
    }

    /// The next frame, if a complete one is buffered.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            if self.discarding {
                match self.buf.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        let mut end = i + 1;
                        if self.buf.get(end) == Some(&0) {
                            end += 1;
                        }
                        self.buf.drain(..end);
                        self.discarding = false;
                        continue;
                    }
                    None => {
                        self.buf.clear();
                        return None;
                    }
                }
            }
            // Leading NULs belong to the previous line's terminator (or are noise).
            let lead = self.buf.iter().take_while(|&&b| b == 0).count();
            if lead > 0 {
                self.buf.drain(..lead);
            }
            let Some(i) = self.buf.iter().position(|&b| b == b'\n') else {
                if self.buf.len() > self.max_len {
                    self.buf.clear();
                    self.discarding = true;
                    return Some(Frame::TooLong);
                }
                return None;
            };
            let mut nul = false;
            let mut end = i + 1;
            if self.buf.get(end) == Some(&0) {
                nul = true;
                end += 1;
            }
            let mut line: Vec<u8> = self.buf.drain(..end).take(i).collect();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.len() > self.max_len {
                return Some(Frame::TooLong);
            }
            return Some(Frame::Line { bytes: line, nul });
        }
    }

    /// At end of input: the unterminated remainder, if any (a half line), as bytes.
    pub fn take_remainder(&mut self) -> Option<Vec<u8>> {
        if self.discarding || self.buf.iter().all(|&b| b == 0) {
            self.buf.clear();
            return None;
        }
        Some(std::mem::take(&mut self.buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str, nul: bool) -> Frame {
        Frame::Line {
            bytes: s.as_bytes().to_vec(),
            nul,
        }
    }

    #[test]
    fn gnubg_terminator_is_one_frame_with_nul() {
        let mut s = LineSplitter::new(100);
        s.push(b"board:a\n\0board:b\n\0");
        assert_eq!(s.next_frame(), Some(line("board:a", true)));
        assert_eq!(s.next_frame(), Some(line("board:b", true)));
        assert_eq!(s.next_frame(), None);
    }

    #[test]
    fn nul_arriving_late_is_dropped() {
        let mut s = LineSplitter::new(100);
        s.push(b"board:a\n");
        assert!(s.ends_at_newline());
        assert_eq!(s.next_frame(), Some(line("board:a", false)));
        s.push(b"\0board:b\n");
        assert_eq!(s.next_frame(), Some(line("board:b", false)));
    }

    #[test]
    fn crlf_and_split_reads() {
        let mut s = LineSplitter::new(100);
        s.push(b"vers");
        assert_eq!(s.next_frame(), None);
        assert!(!s.ends_at_newline());
        s.push(b"ion\r\nhelp\n");
        assert_eq!(s.next_frame(), Some(line("version", false)));
        assert_eq!(s.next_frame(), Some(line("help", false)));
    }

    #[test]
    fn over_long_lines_are_reported_once_and_skipped() {
        let mut s = LineSplitter::new(8);
        s.push(b"0123456789");
        assert_eq!(s.next_frame(), Some(Frame::TooLong));
        s.push(b"abcdef");
        assert_eq!(s.next_frame(), None);
        assert_eq!(s.buffered(), 0);
        s.push(b"xyz\nok\n");
        assert_eq!(s.next_frame(), Some(line("ok", false)));
        // A complete over-long line in one read.
        s.push(b"0123456789abc\nok\n");
        assert_eq!(s.next_frame(), Some(Frame::TooLong));
        assert_eq!(s.next_frame(), Some(line("ok", false)));
    }

    #[test]
    fn nul_inside_a_line_stays_in_the_line() {
        let mut s = LineSplitter::new(100);
        s.push(b"\xff\x00\xfe\nok\n");
        assert_eq!(
            s.next_frame(),
            Some(Frame::Line {
                bytes: b"\xff\x00\xfe".to_vec(),
                nul: false
            })
        );
        assert_eq!(s.next_frame(), Some(line("ok", false)));
    }

    #[test]
    fn half_line_at_end_of_input() {
        let mut s = LineSplitter::new(100);
        s.push(b"board:1:2");
        assert_eq!(s.next_frame(), None);
        assert_eq!(s.take_remainder(), Some(b"board:1:2".to_vec()));
        assert_eq!(s.take_remainder(), None);
    }
}
