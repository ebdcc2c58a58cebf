//! The HTTP listener: a TCP listener that counts connections (open and total) for
//! `/metrics`, and [`serve`], which runs the router on it until shutdown and then lets open
//! requests finish for at most `server.shutdown_grace_ms`.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tracing::{info, warn};

use super::{router, App};
use crate::config::Config;
use crate::server::metrics::Protocol;
use crate::server::Shared;

/// A TCP listener that counts HTTP connections (open and total) for `/metrics`.
#[derive(Debug)]
pub struct CountingListener {
    inner: TcpListener,
    shared: Arc<Shared>,
}

/// A connection counted open until dropped.
#[derive(Debug)]
pub struct CountedStream {
    stream: TcpStream,
    shared: Arc<Shared>,
}

impl Drop for CountedStream {
    fn drop(&mut self) {
        self.shared.metrics().connection_closed(Protocol::Http);
    }
}

impl AsyncRead for CountedStream {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for CountedStream {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

impl axum::serve::Listener for CountingListener {
    type Io = CountedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (CountedStream, SocketAddr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    self.shared.metrics().connection_opened(Protocol::Http);
                    let counted = CountedStream {
                        stream,
                        shared: self.shared.clone(),
                    };
                    return (counted, peer);
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    warn!(error = %e, "HTTP accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// Serves the HTTP API on `listener` until `shutdown` completes, then lets open requests
/// finish for at most `server.shutdown_grace_ms`.
pub async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    if let Ok(addr) = listener.local_addr() {
        info!(%addr, "HTTP API listening");
    }
    let grace = Duration::from_millis(config.server.shutdown_grace_ms);
    let app = App::new(shared.clone(), &config);
    let listener = CountingListener {
        inner: listener,
        shared,
    };
    let (stopped_tx, stopped_rx) = tokio::sync::oneshot::channel::<()>();
    let server = axum::serve(listener, router(app)).with_graceful_shutdown(async move {
        shutdown.await;
        let _ = stopped_tx.send(());
    });
    let server = std::future::IntoFuture::into_future(server);
    tokio::pin!(server);
    tokio::select! {
        r = &mut server => {
            if let Err(e) = r {
                warn!(error = %e, "HTTP server stopped");
            }
            return;
        }
        _ = stopped_rx => {}
    }
    if tokio::time::timeout(grace, server).await.is_err() {
        warn!("HTTP connections still open after the grace period");
    }
    info!("HTTP API stopped");
}
