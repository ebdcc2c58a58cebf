//! `stargammon serve [--config FILE] [--listen ADDR]`: the bot server until SIGINT/SIGTERM.

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::config::{unknown_env_sections, Config, EnvOverrides};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Configuration file (TOML). Default: config/default.toml when it exists, else the
    /// built-in defaults (the same values).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Address to listen on, overriding server.listen (e.g. 0.0.0.0:4321).
    #[arg(long)]
    pub listen: Option<String>,
    /// Log lines as text or as one JSON object each.
    #[arg(long, value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// Address of the HTTP API and board page, overriding http.listen (e.g.
    /// 127.0.0.1:8080); off unless given here or in the config.
    #[arg(long)]
    pub http: Option<String>,
}

/// Reads the config named on the command line, or the default file, or the defaults, with
/// the environment's overrides (`STARGAMMON_SERVER__LISTEN=...`) applied.
pub fn load_config(path: Option<&PathBuf>) -> Result<Config, CliError> {
    Ok(Config::load_with_env(
        path.map(PathBuf::as_path),
        EnvOverrides::process_vars(),
    )?)
}

/// Refuses an override variable whose section no configuration file has (a typo would
/// otherwise be ignored): the server's sections and the FIBS bot's.
pub fn check_env_sections() -> Result<(), CliError> {
    let mut sections = Config::sections();
    sections.extend(crate::fibs::config::FibsConfig::sections());
    match unknown_env_sections(EnvOverrides::process_vars(), &sections) {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// One line of text per event.
    #[default]
    Text,
    /// One JSON object per event (for log collectors).
    Json,
}

/// Logs to stderr, level from RUST_LOG (default `info`). Text lines are in colour only
/// when stderr is a terminal and NO_COLOR is unset (so log files and `docker logs` stay
/// plain text); `json` writes one JSON object per line.
pub fn init_logging(format: LogFormat) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.with_ansi(colour).try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
    };
}

/// The start-up line naming the money rules in force and how to change them.
pub fn log_money_rules(cube: &crate::cube::CubeSettings) {
    let on_off = |b: bool| if b { "on" } else { "off" };
    let hint = if cube.jacoby && cube.beavers {
        " (gnubg's defaults)"
    } else {
        " (gnubg's defaults are both on: set `jacoby off` and `beavers 0` in gnubg to match)"
    };
    tracing::info!(
        "money rules: Jacoby {}, beavers {}{hint}; change with [cube] jacoby/beavers in the \
         config or STARGAMMON_CUBE__JACOBY=false / STARGAMMON_CUBE__BEAVERS=false",
        on_off(cube.jacoby),
        on_off(cube.beavers)
    );
}

pub fn run(args: ServeArgs) -> Result<(), CliError> {
    check_env_sections()?;
    let mut config = load_config(args.config.as_ref())?;
    if let Some(l) = args.listen {
        config.server.listen = l;
    }
    if let Some(h) = args.http {
        config.http.listen = h;
    }
    config.validate()?;
    init_logging(args.log_format);
    let overrides = EnvOverrides::new(EnvOverrides::process_vars(), &Config::sections(), &[]);
    if !overrides.is_empty() {
        tracing::info!(variables = %overrides.describe(), "configuration overridden by the environment");
    }
    log_money_rules(&config.cube);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let summary = runtime.block_on(async move {
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
        let summary = shared.summary();
        // Dropping the pool joins its threads: do it off the runtime.
        let _ = tokio::task::spawn_blocking(move || drop(shared)).await;
        Ok::<_, CliError>(summary)
    })?;
    tracing::info!("stopped: {summary}");
    Ok(())
}
