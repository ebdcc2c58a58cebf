//! The server's and the FIBS bot's TOML configuration files. A server configuration that is
//! accepted must give an engine spec that passes its own validation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stargammon::config::Config;
use stargammon::fibs::FibsConfig;

fuzz_target!(|data: &[u8]| {
    // Files are read with `read_to_string`: bytes that are not UTF-8 never reach the parser.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(config) = Config::from_toml(text, "fuzz") {
        let spec = config.engine_spec();
        assert!(spec.validate().is_ok(), "{spec:?}");
        let _ = config.server.idle_timeout();
        let _ = config.engine.worker_threads();
    }
    if let Ok(config) = FibsConfig::from_toml(text, "fuzz") {
        for failures in [0, 1, 7, 64, u32::MAX] {
            let _ = config.connection.backoff(failures);
        }
    }
});
