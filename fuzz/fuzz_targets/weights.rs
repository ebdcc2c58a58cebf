//! Weights files (`eval::weights`): any bytes are refused with an error or read into nets
//! that write back to a file reading to the same nets. Each input is tried as it is and
//! with its last 8 bytes replaced by the checksum of the rest, so the fuzzer gets past the
//! checksum to the sizes and weights behind it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stargammon::eval::weights::fnv1a64;
use stargammon::eval::NetSet;

fn check(bytes: &[u8]) {
    if let Ok(nets) = NetSet::from_bytes(bytes) {
        let written = nets.to_bytes();
        assert_eq!(written, bytes, "a file read and written again differs");
        let back = NetSet::from_bytes(&written).expect("written nets read back");
        assert!(back == nets, "the nets changed on the way through a file");
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if data.len() >= 8 {
        let body = &data[..data.len() - 8];
        let mut fixed = body.to_vec();
        fixed.extend_from_slice(&fnv1a64(body).to_le_bytes());
        check(&fixed);
    }
});
