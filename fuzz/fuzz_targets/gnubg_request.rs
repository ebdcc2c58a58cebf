//! gnubg's external-player and external-interface requests, as the server reads them from a
//! socket: bytes framed into bounded lines by the server's codec, each line parsed as a request, the board of a
//! `board:` or `evaluation fibsboard` request read as a match state the way the server
//! reads it (either convention, or detected per board).
#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use stargammon::notation::fibs_board::{detect_convention, Convention, FibsBoard};
use stargammon::protocol::gnubg::{error_reply, parse_request, Request};
use stargammon::protocol::lines::{Frame, LineCodec};
use tokio_util::codec::Decoder;

fn board(text: &str) {
    let Ok(b) = FibsBoard::parse(text) else {
        return;
    };
    let _ = detect_convention(&b);
    for c in [Convention::Fibs, Convention::Gnubg] {
        if let Ok(state) = b.to_match_state(c) {
            assert!(
                state.check().is_ok(),
                "{text} read as a state that fails its check"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // The whole input as one line, as the parser is called on a frame.
    match parse_request(data) {
        Ok(Request::Board { board: b, .. }) | Ok(Request::Evaluation { board: b, .. }) => board(&b),
        Ok(_) => {}
        Err(e) => {
            let reply = error_reply(&e);
            assert!(
                !reply.contains('\n'),
                "an error reply spans lines: {reply:?}"
            );
        }
    }
    // The input as a stream, in two chunks, through the bounded line codec.
    let mut codec = LineCodec::new(256);
    let mut buf = BytesMut::new();
    let cut = data.first().map_or(0, |&b| b as usize % (data.len() + 1));
    for chunk in [&data[..cut], &data[cut..]] {
        buf.extend_from_slice(chunk);
        let _ = codec.ends_at_newline(&buf);
        while let Ok(Some(frame)) = codec.decode(&mut buf) {
            check_frame(&frame);
        }
        assert!(buf.len() <= 257, "the buffer outgrew a line");
    }
    if let Some(rest) = codec.take_remainder(&mut buf) {
        let _ = parse_request(&rest);
    }
});

fn check_frame(frame: &Frame) {
    if let Frame::Line { bytes, .. } = frame {
        assert!(bytes.len() <= 256, "a frame longer than the limit");
        assert!(!bytes.contains(&b'\n'), "a frame holds a newline");
        if let Ok(Request::Board { board: b, .. } | Request::Evaluation { board: b, .. }) =
            parse_request(bytes)
        {
            board(&b);
        }
    }
}
