//! The FIBS bot's counters for operators: Prometheus text on an optional HTTP listener
//! (`[status] metrics_listen`), one set of series per account.
//!
//! Like the server's registry ([`crate::server::metrics`]) it is a fixed set of relaxed
//! atomics per account, rendered on request, so counting never takes a lock.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use axum::routing::get;
use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::config::DeclineReason;
use super::watchdog::Step;

/// How a match ended for the bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchEnd {
    Won,
    Lost,
    /// The bot left it (a quiet opponent); the server saved it.
    Left,
}

/// One account's counters.
#[derive(Debug)]
pub struct AccountMetrics {
    user: String,
    connected: AtomicI64,
    in_match: AtomicI64,
    logins: AtomicU64,
    reconnects: AtomicU64,
    matches_started: AtomicU64,
    matches_resumed: AtomicU64,
    matches: [AtomicU64; 3],
    games: [AtomicU64; 2],
    boards_answered: AtomicU64,
    decision_errors: AtomicU64,
    unreadable_lines: AtomicU64,
    invitations_joined: AtomicU64,
    refused: [AtomicU64; DeclineReason::ALL.len()],
    watchdog: [AtomicU64; Step::ALL.len()],
    /// The rating's f64 bits; NaN until the server tells it.
    rating_bits: AtomicU64,
}

impl AccountMetrics {
    pub fn new(user: &str) -> AccountMetrics {
        AccountMetrics {
            user: user.to_string(),
            connected: AtomicI64::new(0),
            in_match: AtomicI64::new(0),
            logins: AtomicU64::new(0),
            reconnects: AtomicU64::new(0),
            matches_started: AtomicU64::new(0),
            matches_resumed: AtomicU64::new(0),
            matches: Default::default(),
            games: Default::default(),
            boards_answered: AtomicU64::new(0),
            decision_errors: AtomicU64::new(0),
            unreadable_lines: AtomicU64::new(0),
            invitations_joined: AtomicU64::new(0),
            refused: Default::default(),
            watchdog: Default::default(),
            rating_bits: AtomicU64::new(f64::NAN.to_bits()),
        }
    }

    fn add(c: &AtomicU64) {
        c.fetch_add(1, Ordering::Relaxed);
    }

    pub fn set_connected(&self, on: bool) {
        self.connected.store(i64::from(on), Ordering::Relaxed);
    }
    pub fn set_in_match(&self, on: bool) {
        self.in_match.store(i64::from(on), Ordering::Relaxed);
    }
    pub fn login(&self) {
        Self::add(&self.logins);
    }
    pub fn reconnect(&self) {
        Self::add(&self.reconnects);
    }
    pub fn match_started(&self, resumed: bool) {
        Self::add(if resumed {
            &self.matches_resumed
        } else {
            &self.matches_started
        });
    }
    pub fn match_ended(&self, end: MatchEnd) {
        Self::add(&self.matches[end as usize]);
    }
    pub fn game_ended(&self, won: bool) {
        Self::add(&self.games[usize::from(!won)]);
    }
    pub fn board_answered(&self) {
        Self::add(&self.boards_answered);
    }
    pub fn decision_error(&self) {
        Self::add(&self.decision_errors);
    }
    pub fn unreadable_line(&self) {
        Self::add(&self.unreadable_lines);
    }
    pub fn joined(&self) {
        Self::add(&self.invitations_joined);
    }
    pub fn refused(&self, reason: DeclineReason) {
        Self::add(&self.refused[reason.index()]);
    }
    pub fn watchdog_fired(&self, step: Step) {
        Self::add(&self.watchdog[step.index()]);
    }
    pub fn set_rating(&self, rating: f64) {
        self.rating_bits.store(rating.to_bits(), Ordering::Relaxed);
    }

    /// Watchdog firings of one kind so far.
    pub fn watchdog_count(&self, step: Step) -> u64 {
        self.watchdog[step.index()].load(Ordering::Relaxed)
    }

    /// Refusals for one reason so far.
    pub fn refused_count(&self, reason: DeclineReason) -> u64 {
        self.refused[reason.index()].load(Ordering::Relaxed)
    }
}

/// Every account's counters.
#[derive(Debug, Default)]
pub struct FibsMetrics {
    accounts: Vec<Arc<AccountMetrics>>,
}

/// A label value with `\`, `"` and line ends escaped.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl FibsMetrics {
    pub fn new(accounts: Vec<Arc<AccountMetrics>>) -> FibsMetrics {
        FibsMetrics { accounts }
    }

    /// Prometheus' text exposition format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let mut family =
            |name: &str, kind: &str, help: &str, rows: &dyn Fn(&AccountMetrics, &str) -> String| {
                let _ = writeln!(out, "# HELP {name} {help}");
                let _ = writeln!(out, "# TYPE {name} {kind}");
                for a in &self.accounts {
                    out.push_str(&rows(a, &format!("account=\"{}\"", label(&a.user))));
                }
            };
        family(
            "stargammon_fibs_connected",
            "gauge",
            "1 while the account is logged in.",
            &|a, l| {
                format!(
                    "stargammon_fibs_connected{{{l}}} {}\n",
                    a.connected.load(Ordering::Relaxed)
                )
            },
        );
        family(
            "stargammon_fibs_matches_running",
            "gauge",
            "1 while the account plays a match.",
            &|a, l| {
                format!(
                    "stargammon_fibs_matches_running{{{l}}} {}\n",
                    a.in_match.load(Ordering::Relaxed)
                )
            },
        );
        family(
            "stargammon_fibs_logins_total",
            "counter",
            "Successful logins.",
            &|a, l| format!("stargammon_fibs_logins_total{{{l}}} {}\n", load(&a.logins)),
        );
        family(
            "stargammon_fibs_reconnects_total",
            "counter",
            "Connections lost and tried again.",
            &|a, l| {
                format!(
                    "stargammon_fibs_reconnects_total{{{l}}} {}\n",
                    load(&a.reconnects)
                )
            },
        );
        family(
            "stargammon_fibs_matches_started_total",
            "counter",
            "Matches begun, new or resumed.",
            &|a, l| {
                format!(
                    "stargammon_fibs_matches_started_total{{{l},kind=\"new\"}} {}\n\
                     stargammon_fibs_matches_started_total{{{l},kind=\"resumed\"}} {}\n",
                    load(&a.matches_started),
                    load(&a.matches_resumed)
                )
            },
        );
        family(
            "stargammon_fibs_matches_finished_total",
            "counter",
            "Matches ended, by result (left: the bot left a quiet opponent; the match is saved).",
            &|a, l| {
                ["won", "lost", "left"]
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        format!(
                            "stargammon_fibs_matches_finished_total{{{l},result=\"{r}\"}} {}\n",
                            load(&a.matches[i])
                        )
                    })
                    .collect()
            },
        );
        family(
            "stargammon_fibs_games_total",
            "counter",
            "Games ended, by result.",
            &|a, l| {
                format!(
                    "stargammon_fibs_games_total{{{l},result=\"won\"}} {}\n\
                     stargammon_fibs_games_total{{{l},result=\"lost\"}} {}\n",
                    load(&a.games[0]),
                    load(&a.games[1])
                )
            },
        );
        family(
            "stargammon_fibs_rating",
            "gauge",
            "The account's rating as the server last told it.",
            &|a, l| {
                let r = f64::from_bits(a.rating_bits.load(Ordering::Relaxed));
                if r.is_nan() {
                    String::new()
                } else {
                    format!("stargammon_fibs_rating{{{l}}} {r}\n")
                }
            },
        );
        family(
            "stargammon_fibs_boards_answered_total",
            "counter",
            "Boards answered with a command.",
            &|a, l| {
                format!(
                    "stargammon_fibs_boards_answered_total{{{l}}} {}\n",
                    load(&a.boards_answered)
                )
            },
        );
        family(
            "stargammon_fibs_decision_errors_total",
            "counter",
            "Boards that got no answer (unreadable, or the decider failed).",
            &|a, l| {
                format!(
                    "stargammon_fibs_decision_errors_total{{{l}}} {}\n",
                    load(&a.decision_errors)
                )
            },
        );
        family(
            "stargammon_fibs_unreadable_lines_total",
            "counter",
            "Server lines logged and ignored (odd names, boards contradicting the last one).",
            &|a, l| {
                format!(
                    "stargammon_fibs_unreadable_lines_total{{{l}}} {}\n",
                    load(&a.unreadable_lines)
                )
            },
        );
        family(
            "stargammon_fibs_invitations_joined_total",
            "counter",
            "Invitations accepted.",
            &|a, l| {
                format!(
                    "stargammon_fibs_invitations_joined_total{{{l}}} {}\n",
                    load(&a.invitations_joined)
                )
            },
        );
        family(
            "stargammon_fibs_invitations_refused_total",
            "counter",
            "Invitations declined, by reason.",
            &|a, l| {
                DeclineReason::ALL
                    .iter()
                    .map(|r| {
                        format!(
                            "stargammon_fibs_invitations_refused_total{{{l},reason=\"{}\"}} {}\n",
                            r.label(),
                            load(&a.refused[r.index()])
                        )
                    })
                    .collect()
            },
        );
        family(
            "stargammon_fibs_watchdog_firings_total",
            "counter",
            "Waits that ran out, by the step taken.",
            &|a, l| {
                Step::ALL
                    .iter()
                    .map(|s| {
                        format!(
                            "stargammon_fibs_watchdog_firings_total{{{l},step=\"{}\"}} {}\n",
                            s.label(),
                            load(&a.watchdog[s.index()])
                        )
                    })
                    .collect()
            },
        );
        out
    }
}

/// Serves `/metrics` and `/healthz` on `listener` until `shutdown`.
pub async fn serve(
    listener: TcpListener,
    metrics: Arc<FibsMetrics>,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let app = Router::new()
        .route(
            "/metrics",
            get(move || {
                let m = metrics.clone();
                async move {
                    (
                        [(
                            axum::http::header::CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8",
                        )],
                        m.render(),
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
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_account_gets_its_series() {
        let a = Arc::new(AccountMetrics::new("bot1"));
        let b = Arc::new(AccountMetrics::new("bot\"2"));
        a.set_connected(true);
        a.match_ended(MatchEnd::Won);
        a.refused(DeclineReason::Rating);
        a.watchdog_fired(Step::Roll);
        a.set_rating(1612.5);
        let text = FibsMetrics::new(vec![a, b]).render();
        for needle in [
            "stargammon_fibs_connected{account=\"bot1\"} 1\n",
            "stargammon_fibs_connected{account=\"bot\\\"2\"} 0\n",
            "stargammon_fibs_matches_finished_total{account=\"bot1\",result=\"won\"} 1\n",
            "stargammon_fibs_invitations_refused_total{account=\"bot1\",reason=\"rating\"} 1\n",
            "stargammon_fibs_watchdog_firings_total{account=\"bot1\",step=\"roll\"} 1\n",
            "stargammon_fibs_rating{account=\"bot1\"} 1612.5\n",
            "# TYPE stargammon_fibs_games_total counter\n",
        ] {
            assert!(text.contains(needle), "{needle} not in\n{text}");
        }
        // No rating line for an account whose rating is not known.
        assert!(!text.contains("stargammon_fibs_rating{account=\"bot\\\"2\"}"));
    }
}
