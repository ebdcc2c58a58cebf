//! Cheap requests are never queued behind expensive ones: while two connections keep the
//! server's two workers busy with the most expensive requests it allows, a third
//! connection's depth-1 requests are still answered at once.
//!
//! The bound asserted here is loose (a machine running other tests shares its cores); the
//! figure itself is measured by `stargammon bench server --heavy 2` (docs/BENCHMARKS.md).
//! Without the quick lane the same run waits for a whole deep search, seconds at depth 7.

use stargammon::bench::server::{run, ServerBench};
use stargammon::config::Config;
use stargammon::engine::Depth;

#[test]
fn depth_one_requests_do_not_wait_behind_maximal_ones() {
    let mut config = Config::throughput();
    config.engine.threads = 2;
    // Deep enough that one request keeps a worker busy for seconds.
    config.server.max_request_depth = Depth::new(7).expect("7 is a depth");
    config.server.max_request_ms = 20_000;
    let b = ServerBench {
        connections: 1,
        depth: 1,
        requests: 300,
        rate: None,
        heavy: 2,
        config,
        http: false,
        target: None,
        retry: false,
    };
    let r = run(&b).expect("the benchmark runs");
    assert_eq!(r.decisions, 300);
    assert_eq!(r.errors, 0);
    assert!(
        r.p99_ms < 100.0,
        "depth-1 p99 {:.1} ms (max {:.1} ms) behind two maximal requests",
        r.p99_ms,
        r.max_ms
    );
}
