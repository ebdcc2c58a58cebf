//! `stargammon bgammon`: a bot account on bgammon.org (or any server of its protocol)
//! that creates matches and plays them with the engine of the configuration's `[engine]`
//! (the same as `serve`), until stopped or `--matches N` finished matches.

use std::path::PathBuf;

use clap::Args;
use tokio_util::sync::CancellationToken;

use super::CliError;
use crate::bgammon::protocol::valid_bot_name;
use crate::bgammon::{Bot, BotConfig, Timing};
use crate::fibs::Password;
use crate::players::EnginePlayer;

#[derive(Debug, Args)]
pub struct BgammonArgs {
    /// The server, HOST:PORT (bgammon.org itself: bgammon.org:1337).
    #[arg(long)]
    pub server: String,
    /// The account: bot_NAME (the server shows it as BOT_NAME; bots must have the prefix).
    #[arg(long)]
    pub user: String,
    /// The account's password (visible to other users of the machine: prefer
    /// --password-env or --password-file). Without any, the bot logs in as a guest.
    #[arg(long, conflicts_with_all = ["password_env", "password_file"])]
    pub password: Option<String>,
    /// Read the password from this environment variable.
    #[arg(long, conflicts_with = "password_file")]
    pub password_env: Option<String>,
    /// Read the password from the first line of this file.
    #[arg(long)]
    pub password_file: Option<PathBuf>,
    /// The configuration whose `[engine]` plays (default: config/default.toml when it
    /// exists, else the built-in defaults), as for `serve`.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Stop after this many finished matches (default: run until stopped).
    #[arg(long)]
    pub matches: Option<u64>,
    /// The length of the matches the bot creates (1 to 64; the cube needs 2 or more).
    #[arg(long, default_value_t = 5)]
    pub points: u32,
    /// Serve Prometheus metrics (/metrics, /healthz) on this address, e.g.
    /// 127.0.0.1:9188.
    #[arg(long)]
    pub metrics_listen: Option<String>,
    /// Log lines as text or as one JSON object each.
    #[arg(long, value_enum, default_value = "text")]
    pub log_format: super::serve::LogFormat,
}

fn password(args: &BgammonArgs) -> Result<Option<Password>, CliError> {
    // The flags conflict with one another (clap refuses two of them).
    match (&args.password, &args.password_env, &args.password_file) {
        (Some(p), _, _) => super::fibs::checked_password(p).map(Some),
        (None, None, None) => Ok(None),
        (None, env, file) => super::fibs::password_from(env.as_deref(), file.as_deref()).map(Some),
    }
}

pub fn run(args: BgammonArgs) -> Result<(), CliError> {
    if !args.server.contains(':') {
        return Err(format!("--server {:?}: expected HOST:PORT", args.server).into());
    }
    if !valid_bot_name(&args.user) {
        return Err(
            "--user must be bot_ followed by letters, digits and _ (18 characters at most)".into(),
        );
    }
    if !(1..=crate::game::MAX_MATCH_LENGTH).contains(&args.points) {
        return Err("--points must be from 1 to 64".into());
    }
    if args.matches == Some(0) {
        return Err("--matches must be 1 or more".into());
    }
    let password = password(&args)?;
    let config = super::serve::load_config(args.config.as_ref())?;
    config.validate()?;
    super::serve::init_logging(args.log_format);
    let engine = crate::engine::build::engine(&config.engine_spec())?;
    let decider = EnginePlayer {
        name: engine.name(),
        engine,
    };
    let cfg = BotConfig {
        server: args.server.clone(),
        user: args.user.clone(),
        password,
        points: args.points,
        matches: args.matches,
        timing: Timing::default(),
    };
    let mut bot = Bot::new(cfg, Box::new(decider));
    let metrics = bot.metrics().clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(async move {
        let stop = CancellationToken::new();
        if let Some(listen) = &args.metrics_listen {
            let listener = tokio::net::TcpListener::bind(listen)
                .await
                .map_err(|e| format!("--metrics-listen {listen:?}: {e}"))?;
            tracing::info!(
                "bgammon: metrics on http://{}/metrics",
                listener.local_addr()?
            );
            let q = stop.clone();
            tokio::spawn(async move {
                if let Err(e) = crate::bgammon::metrics::serve(listener, vec![metrics], q).await {
                    tracing::warn!("bgammon: the metrics listener stopped: {e}");
                }
            });
        }
        let s = stop.clone();
        tokio::spawn(async move {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("bgammon: stop signal: logging out");
            s.cancel();
        });
        #[cfg(unix)]
        {
            let s = stop.clone();
            if let Ok(mut term) =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            {
                tokio::spawn(async move {
                    term.recv().await;
                    tracing::info!("bgammon: stop signal: logging out");
                    s.cancel();
                });
            }
        }
        let r = bot.run(stop.clone()).await;
        stop.cancel();
        Ok::<_, CliError>(r)
    })?;
    match result {
        Ok(stats) => {
            tracing::info!("bgammon: {}: stopped: {stats}", args.user);
            Ok(())
        }
        Err(e) => Err(format!("{}: {e}", args.user).into()),
    }
}
