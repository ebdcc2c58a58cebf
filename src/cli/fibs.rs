//! `stargammon fibs`: runs the FIBS bot account, or every `[[account]]` of the
//! configuration in one process, until stopped: the first SIGTERM (or Ctrl-C) finishes the
//! game or match in progress (`[shutdown]`), a second one logs out at once.
//!
//! Passwords come from environment variables or files, never from the command line
//! (where other users of the machine could read them) and never into a log.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use tokio_util::sync::CancellationToken;

use super::CliError;
use crate::config::EnvOverrides;
use crate::engine::Engine;
use std::sync::Arc;

use crate::fibs::metrics::{AccountMetrics, FibsMetrics};
use crate::fibs::{run_accounts, Brain, Client, FibsConfig, Password, Stop};
use crate::players::{build, BuildOptions, Decide, PlayerSpec};

#[derive(Debug, Args)]
pub struct FibsArgs {
    /// The server, HOST:PORT (FIBS itself: fibs.com:4321); accounts of the configuration
    /// may name their own.
    #[arg(long)]
    pub server: String,
    /// The bot's account name (or list accounts in the configuration's `[[account]]`).
    #[arg(long)]
    pub user: Option<String>,
    /// Read the password from this environment variable.
    #[arg(long, conflicts_with = "password_file")]
    pub password_env: Option<String>,
    /// Read the password from the first line of this file.
    #[arg(long)]
    pub password_file: Option<PathBuf>,
    /// Account settings (default: config/fibs.toml when present, else built-in defaults).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Log lines as text or as one JSON object each.
    #[arg(long, value_enum, default_value = "text")]
    pub log_format: super::serve::LogFormat,
}

/// Reads the password as the arguments say; errors never contain it.
pub fn read_password(args: &FibsArgs) -> Result<Password, CliError> {
    password_from(args.password_env.as_deref(), args.password_file.as_deref())
}

/// Reads a password from an environment variable or a file's first line.
pub(super) fn password_from(
    env: Option<&str>,
    file: Option<&std::path::Path>,
) -> Result<Password, CliError> {
    let text = match (env, file) {
        (Some(var), None) => std::env::var(var)
            .map_err(|_| format!("environment variable {var} is not set (or not UTF-8)"))?,
        (None, Some(path)) => {
            let all = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read password file {}: {e}", path.display()))?;
            all.lines().next().unwrap_or("").to_string()
        }
        _ => {
            return Err("give the password with --password-env VAR or --password-file FILE".into())
        }
    };
    checked_password(&text)
}

/// A password as given, less a line end: refused when empty or holding whitespace.
pub(super) fn checked_password(text: &str) -> Result<Password, CliError> {
    let text = text.trim_end_matches(['\r', '\n']);
    if text.is_empty() || text.contains(char::is_whitespace) {
        return Err("the password is empty or contains whitespace".into());
    }
    Ok(Password::new(text.to_string()))
}

fn load_config(args: &FibsArgs) -> Result<FibsConfig, CliError> {
    Ok(FibsConfig::load_with_env(
        args.config.as_deref(),
        EnvOverrides::process_vars(),
    )?)
}

/// One decider per account, and the judge of resignations.
type Deciders = (Vec<Box<dyn Decide>>, Option<Engine>);

/// The deciders of the accounts (one each) and the engine that judges resignations for
/// all: an engine over a socket (`tcp://HOST:PORT`, a connection per account, no judge)
/// or any player spec, whose engine (when it has an evaluator) also judges resignations.
fn decision_makers(spec: &str, accounts: usize) -> Result<Deciders, CliError> {
    if spec.starts_with("tcp://") {
        let factory = super::match_cmd::engine_factory(spec, Duration::from_secs(60), true)?;
        let deciders = (0..accounts)
            .map(|i| factory.make(i))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok((deciders, None));
    }
    let parsed = PlayerSpec::parse(spec).map_err(|e| format!("play.engine = {spec:?}: {e}"))?;
    let players = build(&parsed, BuildOptions { cube: true })
        .map_err(|e| format!("play.engine = {spec:?}: {e}"))?;
    let judge = crate::engine::build::engine(&parsed.engine)?;
    Ok(((0..accounts).map(|_| players.make()).collect(), Some(judge)))
}

/// The accounts to run: `--user` with its password flags, or the configuration's
/// `[[account]]` list.
fn accounts(
    args: &FibsArgs,
    config: &FibsConfig,
) -> Result<Vec<(String, String, Password)>, CliError> {
    match (&args.user, config.account.is_empty()) {
        (Some(_), false) => Err("give --user or [[account]] in the configuration, not both".into()),
        (None, true) => {
            Err("give --user NAME (or list accounts in the configuration's [[account]])".into())
        }
        (Some(user), true) => {
            if !crate::fibs::clip::valid_name(user) {
                return Err("--user must be one word of letters, digits and _".into());
            }
            Ok(vec![(
                args.server.clone(),
                user.clone(),
                read_password(args)?,
            )])
        }
        (None, false) => {
            if args.password_env.is_some() || args.password_file.is_some() {
                return Err(
                    "--password-env and --password-file go with --user; [[account]] entries name their own"
                        .into(),
                );
            }
            config
                .account
                .iter()
                .map(|a| {
                    let pw = password_from(a.password_env.as_deref(), a.password_file.as_deref())
                        .map_err(|e| format!("account {}: {e}", a.user))?;
                    let server = a.server.clone().unwrap_or_else(|| args.server.clone());
                    Ok((server, a.user.clone(), pw))
                })
                .collect()
        }
    }
}

pub fn run(args: FibsArgs) -> Result<(), CliError> {
    if !args.server.contains(':') {
        return Err(format!("--server {:?}: expected HOST:PORT", args.server).into());
    }
    super::serve::check_env_sections()?;
    let config = load_config(&args)?;
    let accounts = accounts(&args, &config)?;
    super::serve::init_logging(args.log_format);
    let overrides = EnvOverrides::new(
        EnvOverrides::process_vars(),
        &FibsConfig::sections(),
        &FibsConfig::TOP_KEYS,
    );
    if !overrides.is_empty() {
        tracing::info!(variables = %overrides.describe(), "configuration overridden by the environment");
    }
    let (deciders, judge) = decision_makers(&config.play.engine, accounts.len())?;
    // One pool decides for every account; each account has at most one decision out.
    let pool = Brain::pool(judge.as_ref(), config.play.threads, 2 * accounts.len() + 2)?;
    let mut clients = Vec::new();
    let mut account_metrics = Vec::new();
    for ((server, user, password), decider) in accounts.into_iter().zip(deciders) {
        let brain = Brain::with_pool(decider, judge.clone(), pool.clone())
            .with_resign_below(config.play.resign_below);
        let metrics = Arc::new(AccountMetrics::new(&user));
        account_metrics.push(metrics.clone());
        clients
            .push(Client::new(config.clone(), server, user, password, brain).with_metrics(metrics));
    }
    let metrics = Arc::new(FibsMetrics::new(account_metrics));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let listen = config.status.metrics_listen.trim().to_string();
    let results = runtime.block_on(async move {
        let stop = Stop::default();
        let quit = CancellationToken::new();
        if !listen.is_empty() {
            let listener = tokio::net::TcpListener::bind(&listen)
                .await
                .map_err(|e| format!("[status] metrics_listen = {listen:?}: {e}"))?;
            tracing::info!("fibs: metrics on http://{}/metrics", listener.local_addr()?);
            let q = quit.clone();
            tokio::spawn(async move {
                if let Err(e) = crate::fibs::metrics::serve(listener, metrics, q).await {
                    tracing::warn!("fibs: the metrics listener stopped: {e}");
                }
            });
        }
        tokio::spawn(signals(stop.clone()));
        let results = run_accounts(clients, stop).await;
        quit.cancel();
        Ok::<_, CliError>(results)
    })?;
    let mut rejected = Vec::new();
    for (user, r) in results {
        match r {
            Ok(stats) => tracing::info!("fibs: {user}: stopped: {stats}"),
            Err(e) => {
                tracing::error!("fibs: {user}: {e}");
                rejected.push(format!("{user}: {e}"));
            }
        }
    }
    if !rejected.is_empty() {
        return Err(rejected.join("; ").into());
    }
    Ok(())
}

/// Waits for the first stop signal, cancels `finish`, then for a second, cancels `now`.
async fn signals(stop: Stop) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            for (i, token) in [&stop.finish, &stop.now].into_iter().enumerate() {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
                announce(i);
                token.cancel();
            }
            return;
        }
    }
    for (i, token) in [&stop.finish, &stop.now].into_iter().enumerate() {
        let _ = tokio::signal::ctrl_c().await;
        announce(i);
        token.cancel();
    }
}

fn announce(i: usize) {
    if i == 0 {
        tracing::info!("fibs: stop signal: finishing (a second signal stops at once)");
    } else {
        tracing::info!("fibs: second stop signal: logging out now");
    }
}
