//! `runner --api URL [--token-file PATH] [--once] [--work-dir DIR] [--docker PATH]`
//!
//! The token comes from `--token-file` or `RUNNER_TOKEN`, never from an
//! argument, which anyone on the server could read in `ps`. Without
//! `--once` the runner claims forever: when there is nothing to do it waits
//! 2 s, doubling up to 30 s, and claims again at once after a job. With
//! `--once` it claims one deployment and one clean-up, carries them out and
//! exits. Asks for a container's logs come with a claim and are answered
//! first. The exit status is non-zero only when the runner could not speak
//! the protocol (a refused token, an unreachable or unexpected API); a
//! deployment that failed was reported and is not the runner's failure.

use std::{path::PathBuf, process::ExitCode};

use runner::{
    TOKEN_ENV,
    api::Client,
    app_logs::{self, LogAsk},
    backoff::Backoff,
    cleanup,
    report::ApiError,
    run::{self, Settings},
};

const USAGE: &str =
    "usage: runner --api URL [--token-file PATH] [--once] [--work-dir DIR] [--docker PATH]
  the token is read from --token-file or the RUNNER_TOKEN environment variable";

struct Args {
    api: String,
    token: String,
    once: bool,
    settings: Settings,
}

fn args() -> Result<Args, String> {
    let mut api = None;
    let mut token_file = None;
    let mut once = false;
    let mut settings = Settings::default();
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--api" => api = Some(value()?),
            "--token-file" => token_file = Some(PathBuf::from(value()?)),
            "--once" => once = true,
            "--work-dir" => settings.work_dir = value()?.into(),
            "--docker" => settings.docker = value()?.into(),
            "--token" => {
                return Err(format!(
                    "--token: put the token in a file (--token-file) or {TOKEN_ENV}, not on the command line"
                ));
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let api = api.ok_or("--api is required")?;
    let token = match token_file {
        Some(path) => std::fs::read_to_string(&path)
            .map_err(|e| format!("--token-file {}: {e}", path.display()))?,
        None => std::env::var(TOKEN_ENV)
            .map_err(|_| format!("no token: give --token-file or set {TOKEN_ENV}"))?,
    };
    let token = token.trim().to_owned();
    if token.is_empty() {
        return Err("the token is empty".into());
    }
    Ok(Args {
        api,
        token,
        once,
        settings,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::INFO)
        .init();
    let args = match args() {
        Ok(args) => args,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("runner: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let client = match Client::new(&args.api, args.token) {
        Ok(client) => client,
        Err(e) => {
            eprintln!("runner: {e}");
            return ExitCode::from(2);
        }
    };
    match serve(&client, &args.settings, args.once).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "stopping");
            ExitCode::FAILURE
        }
    }
}

/// Sends each asked container's last lines; only a refused token stops
/// the runner.
async fn answer_asks(
    client: &Client,
    settings: &Settings,
    asks: &[LogAsk],
) -> Result<(), ApiError> {
    for ask in asks {
        let found = match app_logs::fetch(settings, ask).await {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!(application = %ask.application_uuid, error = %e, "log ask not answered");
                continue;
            }
        };
        match client.send_app_logs(ask, &found).await {
            Err(ApiError::Unauthorized) => return Err(ApiError::Unauthorized),
            Err(e) => {
                tracing::warn!(application = %ask.application_uuid, error = %e, "sending logs failed")
            }
            Ok(()) => {
                tracing::info!(application = %ask.application_uuid, running = found.running, "logs sent")
            }
        }
    }
    Ok(())
}

/// Claim and carry out deployments and clean-ups; returns only with
/// `--once` or on an error the runner cannot carry on after.
async fn serve(client: &Client, settings: &Settings, once: bool) -> Result<(), ApiError> {
    let mut backoff = Backoff::default();
    loop {
        let mut worked = false;
        let claimed = client.claim().await;
        if let Ok(c) = &claimed {
            worked |= !c.asks.is_empty();
            answer_asks(client, settings, &c.asks).await?;
        }
        match claimed.map(|c| c.job) {
            Ok(Some(job)) => {
                tracing::info!(
                    deployment = %job.deployment_uuid,
                    application = %job.application_uuid,
                    action = %job.action,
                    build_pack = job.build_pack.as_deref().unwrap_or("-"),
                    "claimed"
                );
                match run::execute(client, settings, &job).await {
                    Ok(outcome) => {
                        tracing::info!(deployment = %job.deployment_uuid, ?outcome, "done");
                    }
                    Err(e) if once || e == ApiError::Unauthorized => return Err(e),
                    Err(e) => {
                        tracing::warn!(deployment = %job.deployment_uuid, error = %e, "run not reported")
                    }
                }
                worked = true;
            }
            Ok(None) => {}
            Err(e) if once || e == ApiError::Unauthorized => return Err(e),
            Err(e) => tracing::warn!(error = %e, "claim failed"),
        }
        // Clean-ups are secondary: only a refused token stops the runner.
        match client.claim_cleanup().await {
            Ok(Some(c)) => {
                tracing::info!(cleanup = %c.id, application = %c.application_uuid, "clean-up claimed");
                match cleanup::carry_out(settings, &c).await {
                    Ok(()) => match client.cleanup_done(&c.id).await {
                        Err(ApiError::Unauthorized) => return Err(ApiError::Unauthorized),
                        Err(e) => tracing::warn!(error = %e, "reporting a clean-up failed"),
                        Ok(()) => {}
                    },
                    Err(e) => {
                        tracing::warn!(cleanup = %c.id, error = %e, "clean-up not carried out")
                    }
                }
                worked = true;
            }
            Ok(None) => {}
            Err(ApiError::Unauthorized) => return Err(ApiError::Unauthorized),
            Err(e) => tracing::warn!(error = %e, "clean-up claim failed"),
        }
        if once {
            return Ok(());
        }
        if worked {
            backoff.reset();
        } else {
            tokio::time::sleep(backoff.idle()).await;
        }
    }
}
