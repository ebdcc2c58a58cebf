//! XGIDs: parse, read as a match state, write back. A state read from an XGID must pass its
//! own check, and its XGID must read back to the same game (position, decision, cube,
//! score) and print the same way a second time.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stargammon::notation::Xgid;

fuzz_target!(|data: &[u8]| {
    let text = stargammon_fuzz::text(data);
    let Ok(x) = Xgid::parse(&text) else {
        return;
    };
    let printed = x.to_string();
    let reparsed = Xgid::parse(&printed).expect("a printed XGID parses");
    assert_eq!(reparsed.to_string(), printed, "printing is not stable");
    let Ok(state) = x.to_match_state() else {
        return;
    };
    assert!(state.check().is_ok());
    let written = Xgid::from_match_state(&state);
    let back = written
        .to_match_state()
        .expect("the XGID of a valid state reads back");
    assert_eq!(back.position, state.position);
    assert_eq!(back.decision, state.decision);
    assert_eq!(back.cube, state.cube);
    assert_eq!(back.cube_owner, state.cube_owner);
    assert_eq!(back.match_length, state.match_length);
    assert_eq!((back.score, back.opp_score), (state.score, state.opp_score));
    assert_eq!(back.crawford, state.crawford);
    assert_eq!(back.may_double, state.may_double);
    assert_eq!(
        Xgid::from_match_state(&back).to_string(),
        written.to_string(),
        "writing is not stable"
    );
});
