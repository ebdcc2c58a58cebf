//! The bgammon.org bot's counters: Prometheus text, the FIBS bot's names with the prefix
//! `stargammon_bgammon_` and the labels `account` and `server`, on the same kind of
//! listener ([`crate::fibs::metrics`]'s `/metrics` and `/healthz`).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use axum::routing::get;
use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// One account's counters (relaxed atomics: counting never takes a lock).
#[derive(Debug, Default)]
pub struct BgammonMetrics {
    account: String,
    server: String,
    pub connected: AtomicI64,
    pub in_match: AtomicI64,
    pub logins: AtomicU64,
    pub reconnects: AtomicU64,
    pub matches_started: AtomicU64,
    /// Won, lost, left (the opponent went away).
    pub matches: [AtomicU64; 3],
    /// Won, lost.
    pub games: [AtomicU64; 2],
    pub decisions: AtomicU64,
    pub decision_errors: AtomicU64,
    /// failedmove, failedok, failedroll and failedcreate answers.
    pub refused_commands: AtomicU64,
    pub unreadable_lines: AtomicU64,
    pub bad_boards: AtomicU64,
    /// The bot asked for the board again after waiting too long for an answer.
    pub resyncs: AtomicU64,
}

/// Adds one to a counter.
pub fn inc(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

impl BgammonMetrics {
    pub fn new(account: &str, server: &str) -> BgammonMetrics {
        BgammonMetrics {
            account: account.to_string(),
            server: server.to_string(),
            ..Default::default()
        }
    }

    pub fn set(gauge: &AtomicI64, on: bool) {
        gauge.store(i64::from(on), Ordering::Relaxed);
    }

    /// The Prometheus text exposition of the counters.
    pub fn render(&self) -> String {
        let esc = |s: &str| {
            s.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
        };
        let labels = format!(
            "account=\"{}\",server=\"{}\"",
            esc(&self.account),
            esc(&self.server)
        );
        let mut out = String::new();
        let mut one = |name: &str, kind: &str, help: &str, series: &[(&str, i64)]| {
            let _ = writeln!(out, "# HELP stargammon_bgammon_{name} {help}");
            let _ = writeln!(out, "# TYPE stargammon_bgammon_{name} {kind}");
            for (extra, v) in series {
                let _ = writeln!(out, "stargammon_bgammon_{name}{{{labels}{extra}}} {v}");
            }
        };
        let g = |a: &AtomicI64| a.load(Ordering::Relaxed);
        let c = |a: &AtomicU64| a.load(Ordering::Relaxed) as i64;
        one(
            "connected",
            "gauge",
            "Logged in now.",
            &[("", g(&self.connected))],
        );
        one(
            "matches_running",
            "gauge",
            "In a match now.",
            &[("", g(&self.in_match))],
        );
        one(
            "logins_total",
            "counter",
            "Successful logins.",
            &[("", c(&self.logins))],
        );
        one(
            "reconnects_total",
            "counter",
            "Connections made again after a failure.",
            &[("", c(&self.reconnects))],
        );
        one(
            "matches_started_total",
            "counter",
            "Matches created and joined by an opponent.",
            &[("", c(&self.matches_started))],
        );
        one(
            "matches_finished_total",
            "counter",
            "Matches ended, by result.",
            &[
                (",result=\"won\"", c(&self.matches[0])),
                (",result=\"lost\"", c(&self.matches[1])),
                (",result=\"left\"", c(&self.matches[2])),
            ],
        );
        one(
            "games_total",
            "counter",
            "Games ended, by result.",
            &[
                (",result=\"won\"", c(&self.games[0])),
                (",result=\"lost\"", c(&self.games[1])),
            ],
        );
        one(
            "decisions_total",
            "counter",
            "Boards answered with a decision of the engine.",
            &[("", c(&self.decisions))],
        );
        one(
            "decision_errors_total",
            "counter",
            "Decisions the engine failed to make.",
            &[("", c(&self.decision_errors))],
        );
        one(
            "refused_commands_total",
            "counter",
            "Commands the server refused (failedmove, failedok, failedroll, failedcreate).",
            &[("", c(&self.refused_commands))],
        );
        one(
            "unreadable_lines_total",
            "counter",
            "Lines from the server that were not a known event.",
            &[("", c(&self.unreadable_lines))],
        );
        one(
            "bad_boards_total",
            "counter",
            "Boards refused by the checks (impossible positions or fields).",
            &[("", c(&self.bad_boards))],
        );
        one(
            "resyncs_total",
            "counter",
            "Boards asked for again after a wait without an answer.",
            &[("", c(&self.resyncs))],
        );
        out
    }
}

/// Serves `/metrics` (every account's series) and `/healthz` on `listener` until
/// `shutdown`.
pub async fn serve(
    listener: TcpListener,
    accounts: Vec<Arc<BgammonMetrics>>,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let accounts = Arc::new(accounts);
    let app = Router::new()
        .route(
            "/metrics",
            get(move || {
                let a = accounts.clone();
                async move {
                    (
                        [(
                            axum::http::header::CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8",
                        )],
                        a.iter().map(|m| m.render()).collect::<String>(),
                    )
                }
            }),
        )
        .route("/healthz", get(|| async { "ok\n" }));
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_carry_the_account_and_the_server() {
        let m = BgammonMetrics::new("BOT_a\"b", "bgammon.org:1337");
        inc(&m.matches[1]);
        BgammonMetrics::set(&m.connected, true);
        let text = m.render();
        assert!(text.contains(
            "stargammon_bgammon_matches_finished_total{account=\"BOT_a\\\"b\",server=\"bgammon.org:1337\",result=\"lost\"} 1\n"
        ), "{text}");
        assert!(text.contains(
            "stargammon_bgammon_connected{account=\"BOT_a\\\"b\",server=\"bgammon.org:1337\"} 1\n"
        ));
        assert!(text.contains("# TYPE stargammon_bgammon_games_total counter\n"));
    }
}
