//! `stargammon fibs`: runs the FIBS bot account until stopped (SIGINT/SIGTERM).
//!
//! The password comes from an environment variable or a file, never from the command
//! line (where other users of the machine could read it) and never into a log.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use tokio_util::sync::CancellationToken;

use super::CliError;
use crate::config::EnvOverrides;
use crate::engine::Engine;
use crate::fibs::{Brain, Client, FibsConfig, Password};
use crate::players::{build, BuildOptions, Decide, PlayerSpec};

#[derive(Debug, Args)]
pub struct FibsArgs {
    /// The server, HOST:PORT (FIBS itself: fibs.com:4321).
    #[arg(long)]
    pub server: String,
    /// The bot's account name.
    #[arg(long)]
    pub user: String,
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
    let text = match (&args.password_env, &args.password_file) {
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
    let text = text.trim_end_matches(['\r', '\n']).to_string();
    if text.is_empty() || text.contains(char::is_whitespace) {
        return Err("the password is empty or contains whitespace".into());
    }
    Ok(Password::new(text))
}

fn load_config(args: &FibsArgs) -> Result<FibsConfig, CliError> {
    Ok(FibsConfig::load_with_env(
        args.config.as_deref(),
        EnvOverrides::process_vars(),
    )?)
}

/// The decider that makes the bot's decisions, and the engine that judges resignations:
/// an engine over a socket (`tcp://HOST:PORT`, no judge) or any player spec, whose engine
/// (when it has an evaluator) also judges resignations.
fn decision_maker(spec: &str) -> Result<(Box<dyn Decide>, Option<Engine>), CliError> {
    if spec.starts_with("tcp://") {
        let factory = super::match_cmd::engine_factory(spec, Duration::from_secs(60), true)?;
        return Ok((factory.make(0)?, None));
    }
    let parsed = PlayerSpec::parse(spec).map_err(|e| format!("play.engine = {spec:?}: {e}"))?;
    let players = build(&parsed, BuildOptions { cube: true })
        .map_err(|e| format!("play.engine = {spec:?}: {e}"))?;
    let judge = crate::engine::build::engine(&parsed.engine)?;
    Ok((players.make(), Some(judge)))
}

pub fn run(args: FibsArgs) -> Result<(), CliError> {
    if !args.server.contains(':') {
        return Err(format!("--server {:?}: expected HOST:PORT", args.server).into());
    }
    if args.user.is_empty() || args.user.contains(char::is_whitespace) {
        return Err("--user must be one word".into());
    }
    let password = read_password(&args)?;
    super::serve::check_env_sections()?;
    let config = load_config(&args)?;
    super::serve::init_logging(args.log_format);
    let overrides = EnvOverrides::new(
        EnvOverrides::process_vars(),
        &FibsConfig::sections(),
        &FibsConfig::TOP_KEYS,
    );
    if !overrides.is_empty() {
        tracing::info!(variables = %overrides.describe(), "configuration overridden by the environment");
    }
    let (decider, judge) = decision_maker(&config.play.engine)?;
    let brain = Brain::new(decider, judge)?.with_resign_below(config.play.resign_below);
    let mut client = Client::new(
        config,
        args.server.clone(),
        args.user.clone(),
        password,
        brain,
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let stats = runtime.block_on(async move {
        let token = CancellationToken::new();
        let t = token.clone();
        tokio::spawn(async move {
            wait_for_stop().await;
            t.cancel();
        });
        client.run(token).await
    })?;
    tracing::info!("fibs: stopped: {stats}");
    Ok(())
}

async fn wait_for_stop() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
