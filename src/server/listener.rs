//! The listener: accepts connections under `server.max_connections` (one beyond it gets
//! `Error: too many connections` and is closed), runs each in its own task and tracing
//! span, and at shutdown tells every connection to stop and waits for them.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, info, info_span, warn, Instrument};

use super::connection::Connection;
use super::Shared;

/// Runs a server over prepared shared state until `shutdown` completes, then stops every
/// connection and waits for them (at most `server.shutdown_grace_ms`).
pub async fn run_with(
    listener: TcpListener,
    shared: Arc<Shared>,
    shutdown: impl Future<Output = ()>,
) {
    let token = CancellationToken::new();
    let tracker = TaskTracker::new();
    let connections = Arc::new(Semaphore::new(shared.server.max_connections));
    if let Ok(addr) = listener.local_addr() {
        info!(%addr, engine = %shared.engine.name(), "listening");
    }
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            r = listener.accept() => r,
        };
        let (mut stream, peer) = match accepted {
            Ok(x) => x,
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            shared.refused.fetch_add(1, Ordering::Relaxed);
            warn!(%peer, limit = shared.server.max_connections, "connection refused: server.max_connections reached");
            shared.metrics.tcp_refused();
            tracker.spawn(async move {
                let _ = stream.write_all(b"Error: too many connections\n").await;
                let _ = stream.shutdown().await;
            });
            continue;
        };
        let _ = stream.set_nodelay(true);
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let span = info_span!("conn", id, %peer, mode = tracing::field::Empty);
        let shared = shared.clone();
        let token = token.child_token();
        tracker.spawn(
            async move {
                debug!("connected");
                let _open = shared.metrics.tcp_accepted();
                Connection::new(stream, shared.clone(), token).serve().await;
                drop(permit);
            }
            .instrument(span),
        );
    }
    info!("shutting down");
    token.cancel();
    tracker.close();
    let grace = Duration::from_millis(shared.server.shutdown_grace_ms);
    if tokio::time::timeout(grace, tracker.wait()).await.is_err() {
        warn!("connections still open after the grace period");
    }
}

/// A future that completes on SIGINT or SIGTERM (SIGINT only where SIGTERM does not exist).
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    // The handlers are installed here, at once, not when the future is first polled:
    // a signal that arrives while the server is still starting (loading nets, allocating
    // the table) then stops it cleanly instead of killing the process.
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate()).ok();
        let int = signal(SignalKind::interrupt()).ok();
        async move {
            match (term, int) {
                (Some(mut term), Some(mut int)) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = int.recv() => {}
                    }
                }
                (Some(mut term), None) => {
                    term.recv().await;
                }
                (None, Some(mut int)) => {
                    int.recv().await;
                }
                (None, None) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async move {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// The address a listener is bound to, for tests and the benchmark.
pub fn local_addr(listener: &TcpListener) -> Option<SocketAddr> {
    listener.local_addr().ok()
}
