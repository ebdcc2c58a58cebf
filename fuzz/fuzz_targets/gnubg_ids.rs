//! gnubg Position IDs and Match IDs, alone and as `PositionID:MatchID`. Whatever decodes
//! must encode back to ids that decode to the same thing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stargammon::notation::{
    decode_position_id, encode_match_state, parse_gnubg_ids, position_id, MatchId,
};

fuzz_target!(|data: &[u8]| {
    let text = stargammon_fuzz::text(data);
    if let Ok(pos) = decode_position_id(&text) {
        let id = position_id(&pos);
        assert_eq!(decode_position_id(&id).ok(), Some(pos), "{id}");
    }
    if let Ok(m) = MatchId::decode(&text) {
        if let Ok(id) = m.encode() {
            assert_eq!(MatchId::decode(&id).ok(), Some(m), "{id}");
        }
    }
    if let Ok(state) = parse_gnubg_ids(&text) {
        assert!(state.check().is_ok());
        let (p, m) = encode_match_state(&state).expect("a read state encodes");
        let back = parse_gnubg_ids(&format!("{p}:{m}")).expect("its ids read back");
        assert_eq!(back.position, state.position);
        assert_eq!(back.decision, state.decision);
        assert_eq!(back.cube, state.cube);
        assert_eq!(back.cube_owner, state.cube_owner);
        assert_eq!(back.match_length, state.match_length);
        assert_eq!((back.score, back.opp_score), (state.score, state.opp_score));
        assert_eq!(back.crawford, state.crawford);
    }
});
