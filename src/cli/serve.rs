//! `stargammon serve [--config FILE] [--listen ADDR]`: the bot server until SIGINT/SIGTERM.

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::config::Config;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Configuration file (TOML). Default: config/default.toml when it exists, else the
    /// built-in defaults (the same values).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Address to listen on, overriding server.listen (e.g. 0.0.0.0:4321).
    #[arg(long)]
    pub listen: Option<String>,
    /// Address of the HTTP API and board page, overriding http.listen (e.g.
    /// 127.0.0.1:8080); off unless given here or in the config.
    #[arg(long)]
    pub http: Option<String>,
}

/// Reads the config named on the command line, or the default file, or the defaults.
pub fn load_config(path: Option<&PathBuf>) -> Result<Config, CliError> {
    match path {
        Some(p) => Ok(Config::load(p)?),
        None => Ok(Config::load_default()?),
    }
}

/// Logs to stderr, level from RUST_LOG (default `info`), in colour only when stderr is a
/// terminal and NO_COLOR is unset (so log files and `docker logs` stay plain text).
pub fn init_logging() {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr)
        .try_init();
}

pub fn run(args: ServeArgs) -> Result<(), CliError> {
    let mut config = load_config(args.config.as_ref())?;
    if let Some(l) = args.listen {
        config.server.listen = l;
    }
    if let Some(h) = args.http {
        config.http.listen = h;
    }
    config.validate()?;
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let shutdown = crate::server::shutdown_signal();
        let listener = tokio::net::TcpListener::bind(&config.server.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", config.server.listen))?;
        let http_listener = match config.http.address() {
            Some(addr) => Some(
                tokio::net::TcpListener::bind(addr)
                    .await
                    .map_err(|e| format!("cannot listen on {addr} (http.listen): {e}"))?,
            ),
            None => None,
        };
        let shared = crate::server::Shared::from_config(&config)?;
        // One signal stops both listeners.
        let stop = tokio_util::sync::CancellationToken::new();
        let trigger = stop.clone();
        tokio::spawn(async move {
            shutdown.await;
            trigger.cancel();
        });
        let http = http_listener.map(|l| {
            tokio::spawn(crate::http::serve(
                l,
                shared.clone(),
                config.clone(),
                stop.clone().cancelled_owned(),
            ))
        });
        crate::server::run_with(listener, shared.clone(), stop.cancelled()).await;
        if let Some(h) = http {
            let _ = h.await;
        }
        // Dropping the pool joins its threads: do it off the runtime.
        let _ = tokio::task::spawn_blocking(move || drop(shared)).await;
        Ok::<(), CliError>(())
    })?;
    tracing::info!("stopped");
    Ok(())
}
