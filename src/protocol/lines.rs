//! Bounded line framing for the socket protocols and UBGI: a `tokio_util` codec over
//! `bytes` buffers, pure and testable.
//!
//! gnubg ends each board it sends to an external player with `\n` and a NUL byte; clients of
//! its external interface end lines with `\n` (sometimes `\r\n`); hand-typed or broken clients
//! send anything. [`LineCodec`] turns the bytes read into a [`BytesMut`] into frames:
//! - a line ends at `\n`; a `\n` directly followed by a NUL (gnubg's terminator) is one
//!   terminator, and the frame remembers that the NUL was seen (`nul` in [`Frame::Line`]);
//! - stray NULs at the start of a line are dropped (a NUL that arrived after its line was
//!   already taken), a trailing `\r` is removed; NULs inside a line stay (binary garbage is
//!   then one line the request parser rejects as a whole);
//! - a line longer than the limit becomes one [`Frame::TooLong`] and the rest of it, up to the
//!   next terminator, is discarded as it arrives, so memory stays bounded whatever the peer
//!   sends;
//! - bytes that are not UTF-8 are kept (the frame holds bytes); the request parser rejects
//!   them.
//!
//! The server drives the codec by hand (read into its buffer, then [`Decoder::decode`])
//! rather than through `FramedRead`, because the first line of a connection may have to
//! wait a moment for gnubg's NUL ([`LineCodec::ends_at_newline`]) and because the
//! connection keeps reading while a decision runs. UBGI drives the same codec over stdin.

use bytes::{Buf, Bytes, BytesMut};
use tokio_util::codec::Decoder;

/// One unit of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete line without its terminator.
    Line { bytes: Bytes, nul: bool },
    /// A line exceeded the length limit; it has been (or is being) discarded.
    TooLong,
}

/// The line codec (see the module docs).
#[derive(Debug)]
pub struct LineCodec {
    max_len: usize,
    /// Inside an over-long line: drop bytes until the next terminator.
    discarding: bool,
    /// How far the buffer has been searched for `\n` without finding one, so that a line
    /// arriving in many small reads is scanned once.
    scanned: usize,
}

impl LineCodec {
    /// A codec that accepts lines of at most `max_len` bytes (terminator excluded).
    pub fn new(max_len: usize) -> LineCodec {
        LineCodec {
            max_len: max_len.max(1),
            discarding: false,
            scanned: 0,
        }
    }

    /// The longest line accepted.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// True when `buf` holds a complete line ended by `\n` as its very last byte: a NUL may
    /// still follow, so a caller that needs to know (to detect gnubg's external-player mode)
    /// can wait briefly for more bytes before decoding.
    pub fn ends_at_newline(&self, buf: &[u8]) -> bool {
        let start = buf.iter().position(|&b| b != 0).unwrap_or(buf.len());
        let rest = &buf[start..];
        rest.iter().position(|&b| b == b'\n') == Some(rest.len().wrapping_sub(1))
    }

    /// At end of input: the unterminated remainder of `buf`, if any (a half line). Call
    /// after decoding every complete frame.
    pub fn take_remainder(&mut self, buf: &mut BytesMut) -> Option<Bytes> {
        self.scanned = 0;
        if self.discarding || buf.iter().all(|&b| b == 0) {
            buf.clear();
            self.discarding = false;
            return None;
        }
        Some(buf.split().freeze())
    }

    /// Drops the terminator at the front of `buf` (`\n`, and gnubg's NUL after it); true
    /// when the NUL was there.
    fn eat_terminator(buf: &mut BytesMut) -> bool {
        buf.advance(1);
        if buf.first() == Some(&0) {
            buf.advance(1);
            true
        } else {
            false
        }
    }
}

impl Decoder for LineCodec {
    type Item = Frame;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, std::io::Error> {
        loop {
            if self.discarding {
                match buf.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        buf.advance(i);
                        LineCodec::eat_terminator(buf);
                        self.discarding = false;
                        self.scanned = 0;
                        continue;
                    }
                    None => {
                        buf.clear();
                        return Ok(None);
                    }
                }
            }
            // Leading NULs belong to the previous line's terminator (or are noise).
            let lead = buf.iter().take_while(|&&b| b == 0).count();
            if lead > 0 {
                buf.advance(lead);
                self.scanned = self.scanned.saturating_sub(lead);
            }
            let from = self.scanned.min(buf.len());
            let Some(i) = buf[from..]
                .iter()
                .position(|&b| b == b'\n')
                .map(|k| from + k)
            else {
                // One byte of slack: a line of the maximum length may still end in `\r\n`.
                if buf.len() > self.max_len + 1 {
                    buf.clear();
                    self.scanned = 0;
                    self.discarding = true;
                    return Ok(Some(Frame::TooLong));
                }
                self.scanned = buf.len();
                return Ok(None);
            };
            self.scanned = 0;
            let mut line = buf.split_to(i);
            let nul = LineCodec::eat_terminator(buf);
            if line.last() == Some(&b'\r') {
                line.truncate(line.len() - 1);
            }
            if line.len() > self.max_len {
                return Ok(Some(Frame::TooLong));
            }
            return Ok(Some(Frame::Line {
                bytes: line.freeze(),
                nul,
            }));
        }
    }

    /// At end of input the complete frames still come out; a half line stays in the buffer
    /// for [`LineCodec::take_remainder`] (rather than failing, as the trait's default does).
    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, std::io::Error> {
        self.decode(buf)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn line(s: &str, nul: bool) -> Frame {
        Frame::Line {
            bytes: Bytes::copy_from_slice(s.as_bytes()),
            nul,
        }
    }

    /// A codec and its buffer, as a connection holds them.
    struct Framer {
        codec: LineCodec,
        buf: BytesMut,
    }

    impl Framer {
        fn new(max: usize) -> Framer {
            Framer {
                codec: LineCodec::new(max),
                buf: BytesMut::new(),
            }
        }
        fn push(&mut self, bytes: &[u8]) {
            self.buf.extend_from_slice(bytes);
        }
        fn next_frame(&mut self) -> Option<Frame> {
            self.codec.decode(&mut self.buf).unwrap()
        }
        fn ends_at_newline(&self) -> bool {
            self.codec.ends_at_newline(&self.buf)
        }
    }

    #[test]
    fn gnubg_terminator_is_one_frame_with_nul() {
        let mut s = Framer::new(100);
        s.push(b"board:a\n\0board:b\n\0");
        assert_eq!(s.next_frame(), Some(line("board:a", true)));
        assert_eq!(s.next_frame(), Some(line("board:b", true)));
        assert_eq!(s.next_frame(), None);
    }

    #[test]
    fn nul_arriving_late_is_dropped() {
        let mut s = Framer::new(100);
        s.push(b"board:a\n");
        assert!(s.ends_at_newline());
        assert_eq!(s.next_frame(), Some(line("board:a", false)));
        s.push(b"\0board:b\n");
        assert_eq!(s.next_frame(), Some(line("board:b", false)));
    }

    #[test]
    fn crlf_and_split_reads() {
        let mut s = Framer::new(100);
        s.push(b"vers");
        assert_eq!(s.next_frame(), None);
        assert!(!s.ends_at_newline());
        s.push(b"ion\r\nhelp\n");
        assert_eq!(s.next_frame(), Some(line("version", false)));
        assert_eq!(s.next_frame(), Some(line("help", false)));
    }

    #[test]
    fn a_line_dripped_byte_by_byte_comes_out_whole() {
        let mut s = Framer::new(100);
        for &b in b"\0\0board:1:2:3\r" {
            s.push(&[b]);
            assert_eq!(s.next_frame(), None);
        }
        s.push(b"\n\0");
        assert_eq!(s.next_frame(), Some(line("board:1:2:3", true)));
        assert!(s.buf.is_empty());
    }

    #[test]
    fn over_long_lines_are_reported_once_and_skipped() {
        let mut s = Framer::new(8);
        s.push(b"0123456789");
        assert_eq!(s.next_frame(), Some(Frame::TooLong));
        s.push(b"abcdef");
        assert_eq!(s.next_frame(), None);
        assert!(s.buf.is_empty());
        s.push(b"xyz\nok\n");
        assert_eq!(s.next_frame(), Some(line("ok", false)));
        // A complete over-long line in one read.
        s.push(b"0123456789abc\nok\n");
        assert_eq!(s.next_frame(), Some(Frame::TooLong));
        assert_eq!(s.next_frame(), Some(line("ok", false)));
    }

    #[test]
    fn nul_inside_a_line_stays_in_the_line() {
        let mut s = Framer::new(100);
        s.push(b"\xff\x00\xfe\nok\n");
        assert_eq!(
            s.next_frame(),
            Some(Frame::Line {
                bytes: Bytes::from_static(b"\xff\x00\xfe"),
                nul: false
            })
        );
        assert_eq!(s.next_frame(), Some(line("ok", false)));
    }

    #[test]
    fn half_line_at_end_of_input() {
        let mut s = Framer::new(100);
        s.push(b"board:1:2");
        assert_eq!(s.codec.decode_eof(&mut s.buf).unwrap(), None);
        assert_eq!(
            s.codec.take_remainder(&mut s.buf),
            Some(Bytes::from_static(b"board:1:2"))
        );
        assert_eq!(s.codec.take_remainder(&mut s.buf), None);
    }

    /// Whatever the bytes and however they are cut into reads, the frames are the same as
    /// from one read of everything, and the buffer never holds more than a line's worth.
    #[test]
    fn framing_does_not_depend_on_how_reads_are_cut() {
        let mut rng = crate::game::Rng::seeded(11);
        for _ in 0..300 {
            let len = rng.index(400);
            let bytes: Vec<u8> = (0..len)
                .map(|_| match rng.below(6) {
                    0 => b'\n',
                    1 => 0,
                    2 => b'\r',
                    _ => b'a' + rng.below(3) as u8,
                })
                .collect();
            let mut whole = Framer::new(16);
            whole.push(&bytes);
            let mut expected = Vec::new();
            while let Some(f) = whole.next_frame() {
                expected.push(f);
            }
            let mut cut = Framer::new(16);
            let mut got = Vec::new();
            let mut at = 0;
            while at < bytes.len() {
                let n = (1 + rng.index(20)).min(bytes.len() - at);
                cut.push(&bytes[at..at + n]);
                at += n;
                while let Some(f) = cut.next_frame() {
                    got.push(f);
                }
                assert!(cut.buf.len() <= 16 + 2, "buffer grew to {}", cut.buf.len());
            }
            // A stray NUL cut off from its newline is dropped either way, so only a frame's
            // `nul` flag may differ between the two.
            let strip = |v: &[Frame]| -> Vec<Frame> {
                v.iter()
                    .map(|f| match f {
                        Frame::Line { bytes, .. } => Frame::Line {
                            bytes: bytes.clone(),
                            nul: false,
                        },
                        Frame::TooLong => Frame::TooLong,
                    })
                    .collect()
            };
            assert_eq!(strip(&got), strip(&expected), "input {bytes:?}");
        }
    }
}
