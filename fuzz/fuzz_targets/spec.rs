//! Engine and player specs (`net,depth=3,algo=star2`, `engine,depth=5`) and the command
//! line's position argument (gnubg ids, XGID or FIBS board). An engine spec that parses
//! must print as text that parses to the same spec.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stargammon::cli::pos_arg::parse_pos_arg;
use stargammon::engine::EngineSpec;
use stargammon::players::PlayerSpec;

fuzz_target!(|data: &[u8]| {
    let text = stargammon_fuzz::text(data);
    if let Ok(spec) = text.parse::<EngineSpec>() {
        assert!(spec.validate().is_ok());
        let printed = spec.to_string();
        let again: EngineSpec = printed.parse().expect("a printed spec parses");
        assert_eq!(again, spec, "{printed}");
    }
    // `engine:PATH` names a file to read, not text to parse; the default configuration
    // (`engine` and its options) is read from the working directory.
    if !text.trim_start().starts_with("engine:") {
        let _ = PlayerSpec::parse(&text);
    }
    if let Ok(state) = parse_pos_arg(&text) {
        assert!(state.check().is_ok());
    }
});
