//! The server's counters for `/metrics`: connections, decisions, errors and decision
//! latency for every protocol the server speaks (gnubg's external player, the external
//! interface, HTTP), rendered in Prometheus' text exposition format.
//!
//! A small registry of its own: a fixed set of series, each an atomic counter or a
//! histogram with fixed buckets, so recording a connection, decision or error is a few
//! relaxed atomic additions, without a lock. HTTP responses by route and status are the one
//! labelled family that grows with use (a short mutex per response); its routes are the
//! fixed set the HTTP layer names, so it stays small.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The protocols counted apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// gnubg connected as its external player's bot (`set player N external`).
    GnubgPlayer,
    /// Requests of gnubg's external interface (`board:...`, `evaluation ...`).
    GnubgInterface,
    /// The HTTP/JSON API.
    Http,
}

impl Protocol {
    pub const ALL: [Protocol; 3] = [
        Protocol::GnubgPlayer,
        Protocol::GnubgInterface,
        Protocol::Http,
    ];

    /// The `protocol` label.
    pub fn label(self) -> &'static str {
        match self {
            Protocol::GnubgPlayer => "gnubg_player",
            Protocol::GnubgInterface => "gnubg_interface",
            Protocol::Http => "http",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Upper bounds of the latency buckets, in seconds (`+Inf` is implied).
pub const LATENCY_BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0,
];

/// A histogram with the fixed [`LATENCY_BUCKETS`]; counts per bucket (not cumulative; the
/// renderer sums them) and the sum in microseconds.
#[derive(Debug, Default)]
pub struct Histogram {
    buckets: [AtomicU64; LATENCY_BUCKETS.len() + 1],
    sum_micros: AtomicU64,
}

impl Histogram {
    pub fn observe(&self, d: Duration) {
        let s = d.as_secs_f64();
        let i = LATENCY_BUCKETS
            .iter()
            .position(|&b| s <= b)
            .unwrap_or(LATENCY_BUCKETS.len());
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        self.sum_micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// Observations so far.
    pub fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Ordering::Relaxed)).sum()
    }

    fn render(&self, out: &mut String, name: &str, labels: &str) {
        let mut cumulative = 0u64;
        for (i, b) in self.buckets.iter().enumerate() {
            cumulative += b.load(Ordering::Relaxed);
            let le = LATENCY_BUCKETS
                .get(i)
                .map_or_else(|| "+Inf".to_string(), |x| x.to_string());
            let _ = writeln!(out, "{name}_bucket{{{labels},le=\"{le}\"}} {cumulative}");
        }
        let sum = self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum{{{labels}}} {sum}");
        let _ = writeln!(out, "{name}_count{{{labels}}} {cumulative}");
    }
}

/// The series of one protocol.
#[derive(Debug, Default)]
struct ProtocolSeries {
    connections: AtomicU64,
    open: AtomicI64,
    decisions: AtomicU64,
    errors: AtomicU64,
    abandoned: AtomicU64,
    latency: Histogram,
}

/// Every series the server keeps. Shared by all connections (`Arc`-held in
/// [`super::Shared`]).
#[derive(Debug)]
pub struct Metrics {
    started: Instant,
    protocols: [ProtocolSeries; 3],
    /// TCP connections of the line protocols before their protocol is known.
    tcp_accepted: AtomicU64,
    tcp_open: AtomicI64,
    tcp_refused: AtomicU64,
    /// HTTP responses by (route, status).
    responses: Mutex<BTreeMap<(&'static str, u16), u64>>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            started: Instant::now(),
            protocols: Default::default(),
            tcp_accepted: AtomicU64::new(0),
            tcp_open: AtomicI64::new(0),
            tcp_refused: AtomicU64::new(0),
            responses: Mutex::new(BTreeMap::new()),
        }
    }
}

/// Decrements a gauge of open connections when dropped.
#[derive(Debug)]
pub struct OpenGuard<'a>(&'a AtomicI64);

impl Drop for OpenGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Metrics {
    fn series(&self, p: Protocol) -> &ProtocolSeries {
        &self.protocols[p.index()]
    }

    /// A TCP connection of the line protocols was accepted; open until the guard drops.
    pub fn tcp_accepted(&self) -> OpenGuard<'_> {
        self.tcp_accepted.fetch_add(1, Ordering::Relaxed);
        self.tcp_open.fetch_add(1, Ordering::Relaxed);
        OpenGuard(&self.tcp_open)
    }

    /// A TCP connection was refused (too many connections).
    pub fn tcp_refused(&self) {
        self.tcp_refused.fetch_add(1, Ordering::Relaxed);
    }

    /// A connection of protocol `p` began; it counts as open until the guard drops.
    pub fn connection(&self, p: Protocol) -> OpenGuard<'_> {
        let s = self.series(p);
        s.connections.fetch_add(1, Ordering::Relaxed);
        s.open.fetch_add(1, Ordering::Relaxed);
        OpenGuard(&s.open)
    }

    /// As [`Metrics::connection`], for a guard that must outlive a borrow (an HTTP
    /// connection's stream): the gauge is decremented by [`Metrics::connection_closed`].
    pub fn connection_opened(&self, p: Protocol) {
        let s = self.series(p);
        s.connections.fetch_add(1, Ordering::Relaxed);
        s.open.fetch_add(1, Ordering::Relaxed);
    }

    /// The end of a connection counted by [`Metrics::connection_opened`].
    pub fn connection_closed(&self, p: Protocol) {
        self.series(p).open.fetch_sub(1, Ordering::Relaxed);
    }

    /// A decision of protocol `p` was answered after `latency`.
    pub fn decision(&self, p: Protocol, latency: Duration) {
        let s = self.series(p);
        s.decisions.fetch_add(1, Ordering::Relaxed);
        s.latency.observe(latency);
    }

    /// An error reply (bad input, a failed decision) in protocol `p`.
    pub fn error(&self, p: Protocol) {
        self.series(p).errors.fetch_add(1, Ordering::Relaxed);
    }

    /// A search stopped because its client went away before the answer, in protocol `p`.
    pub fn abandoned(&self, p: Protocol) {
        self.series(p).abandoned.fetch_add(1, Ordering::Relaxed);
    }

    /// An HTTP response on `route` with `status`.
    pub fn response(&self, route: &'static str, status: u16) {
        if let Ok(mut m) = self.responses.lock() {
            *m.entry((route, status)).or_insert(0) += 1;
        }
    }

    /// Decisions of protocol `p` so far.
    pub fn decisions(&self, p: Protocol) -> u64 {
        self.series(p).decisions.load(Ordering::Relaxed)
    }

    /// Error replies of protocol `p` so far.
    pub fn errors(&self, p: Protocol) -> u64 {
        self.series(p).errors.load(Ordering::Relaxed)
    }

    /// Searches of protocol `p` cancelled because their client went away.
    pub fn abandoned_searches(&self, p: Protocol) -> u64 {
        self.series(p).abandoned.load(Ordering::Relaxed)
    }

    /// Open connections of protocol `p`.
    pub fn open(&self, p: Protocol) -> i64 {
        self.series(p).open.load(Ordering::Relaxed)
    }

    /// Every series in Prometheus' text format; `gauges` adds point-in-time values
    /// (name, help, value) such as the worker pool's queue.
    pub fn render(&self, gauges: &[(&str, &str, f64)]) -> String {
        let mut out = String::with_capacity(4096);
        let family = |out: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} {kind}");
        };
        let per_protocol =
            |out: &mut String, name: &str, value: &dyn Fn(&ProtocolSeries) -> i64| {
                for p in Protocol::ALL {
                    let _ = writeln!(
                        out,
                        "{name}{{protocol=\"{}\"}} {}",
                        p.label(),
                        value(self.series(p))
                    );
                }
            };
        family(
            &mut out,
            "stargammon_connections_total",
            "counter",
            "Connections by protocol (line protocols counted once their first line tells).",
        );
        per_protocol(&mut out, "stargammon_connections_total", &|s| {
            s.connections.load(Ordering::Relaxed) as i64
        });
        family(
            &mut out,
            "stargammon_connections_open",
            "gauge",
            "Connections open now, by protocol.",
        );
        per_protocol(&mut out, "stargammon_connections_open", &|s| {
            s.open.load(Ordering::Relaxed)
        });
        family(
            &mut out,
            "stargammon_decisions_total",
            "counter",
            "Decisions and evaluations answered, by protocol.",
        );
        per_protocol(&mut out, "stargammon_decisions_total", &|s| {
            s.decisions.load(Ordering::Relaxed) as i64
        });
        family(
            &mut out,
            "stargammon_errors_total",
            "counter",
            "Error replies (bad input, failed decisions), by protocol.",
        );
        per_protocol(&mut out, "stargammon_errors_total", &|s| {
            s.errors.load(Ordering::Relaxed) as i64
        });
        family(
            &mut out,
            "stargammon_searches_abandoned_total",
            "counter",
            "Searches cancelled because their client went away before the answer, by protocol.",
        );
        per_protocol(&mut out, "stargammon_searches_abandoned_total", &|s| {
            s.abandoned.load(Ordering::Relaxed) as i64
        });
        family(
            &mut out,
            "stargammon_decision_seconds",
            "histogram",
            "Time from a request to its answer, by protocol.",
        );
        for p in Protocol::ALL {
            self.series(p).latency.render(
                &mut out,
                "stargammon_decision_seconds",
                &format!("protocol=\"{}\"", p.label()),
            );
        }
        family(
            &mut out,
            "stargammon_tcp_connections_accepted_total",
            "counter",
            "TCP connections accepted on the line-protocol port.",
        );
        let _ = writeln!(
            out,
            "stargammon_tcp_connections_accepted_total {}",
            self.tcp_accepted.load(Ordering::Relaxed)
        );
        family(
            &mut out,
            "stargammon_tcp_connections_open",
            "gauge",
            "TCP connections open on the line-protocol port.",
        );
        let _ = writeln!(
            out,
            "stargammon_tcp_connections_open {}",
            self.tcp_open.load(Ordering::Relaxed)
        );
        family(
            &mut out,
            "stargammon_tcp_connections_refused_total",
            "counter",
            "TCP connections refused over server.max_connections.",
        );
        let _ = writeln!(
            out,
            "stargammon_tcp_connections_refused_total {}",
            self.tcp_refused.load(Ordering::Relaxed)
        );
        family(
            &mut out,
            "stargammon_http_responses_total",
            "counter",
            "HTTP responses by route and status.",
        );
        if let Ok(m) = self.responses.lock() {
            for ((route, status), n) in m.iter() {
                let _ = writeln!(
                    out,
                    "stargammon_http_responses_total{{route=\"{route}\",status=\"{status}\"}} {n}"
                );
            }
        }
        family(
            &mut out,
            "stargammon_uptime_seconds",
            "gauge",
            "Seconds since the server started.",
        );
        let _ = writeln!(
            out,
            "stargammon_uptime_seconds {}",
            self.started.elapsed().as_secs_f64()
        );
        for (name, help, value) in gauges {
            family(&mut out, name, "gauge", help);
            let _ = writeln!(out, "{name} {value}");
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The value of the sample line starting with `series` (name and labels).
    fn sample(text: &str, series: &str) -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no sample {series} in\n{text}"))
    }

    #[test]
    fn counts_render_in_prometheus_text_format() {
        let m = Metrics::default();
        {
            let _c = m.connection(Protocol::GnubgPlayer);
            m.decision(Protocol::GnubgPlayer, Duration::from_micros(700));
            m.decision(Protocol::GnubgPlayer, Duration::from_millis(30));
            m.decision(Protocol::GnubgPlayer, Duration::from_secs(60));
            m.error(Protocol::Http);
            m.response("/v1/move", 400);
            m.response("/v1/move", 400);
            let text = m.render(&[("stargammon_pool_threads", "Workers.", 2.0)]);
            assert_eq!(
                sample(
                    &text,
                    "stargammon_connections_open{protocol=\"gnubg_player\"}"
                ),
                1.0
            );
            assert_eq!(
                sample(
                    &text,
                    "stargammon_decisions_total{protocol=\"gnubg_player\"}"
                ),
                3.0
            );
            assert_eq!(
                sample(&text, "stargammon_errors_total{protocol=\"http\"}"),
                1.0
            );
            let b = "stargammon_decision_seconds_bucket{protocol=\"gnubg_player\",le=";
            assert_eq!(sample(&text, &format!("{b}\"0.0005\"}}")), 0.0);
            assert_eq!(sample(&text, &format!("{b}\"0.001\"}}")), 1.0);
            assert_eq!(sample(&text, &format!("{b}\"0.05\"}}")), 2.0);
            assert_eq!(sample(&text, &format!("{b}\"10\"}}")), 2.0);
            assert_eq!(sample(&text, &format!("{b}\"+Inf\"}}")), 3.0);
            let sum = sample(
                &text,
                "stargammon_decision_seconds_sum{protocol=\"gnubg_player\"}",
            );
            assert!((sum - 60.0307).abs() < 1e-9, "{sum}");
            assert_eq!(
                sample(
                    &text,
                    "stargammon_http_responses_total{route=\"/v1/move\",status=\"400\"}"
                ),
                2.0
            );
            assert_eq!(sample(&text, "stargammon_pool_threads"), 2.0);
            // Every sample line belongs to a family announced by a TYPE line before it.
            let mut typed = Vec::new();
            for l in text.lines() {
                if let Some(rest) = l.strip_prefix("# TYPE ") {
                    typed.push(rest.split(' ').next().unwrap().to_string());
                } else if !l.starts_with('#') {
                    let name = l.split(['{', ' ']).next().unwrap();
                    assert!(
                        typed.iter().any(|t| name == t
                            || name
                                .strip_prefix(t.as_str())
                                .is_some_and(|s| { ["_bucket", "_sum", "_count"].contains(&s) })),
                        "{l}"
                    );
                }
            }
        }
        assert_eq!(m.open(Protocol::GnubgPlayer), 0);
    }
}
