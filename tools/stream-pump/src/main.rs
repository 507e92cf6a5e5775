//! `stream-pump --invoke URL --listen ADDR [--poll-ms N] [--sweep-ms N] [--checkpoint FILE]`
//!
//! Polls the stream of `TABLE_NAME` on `DYNAMODB_ENDPOINT` (DynamoDB Local)
//! and invokes the stream function at `URL` (`cargo lambda watch`'s
//! `http://127.0.0.1:PORT/2015-03-31/functions/stream/invocations`); serves
//! `GET /settle` and `GET /stats` on `ADDR` (loopback); invokes it with a
//! scheduled event every `--sweep-ms` (1000; 0: never). See lib.rs.

use std::{net::SocketAddr, path::PathBuf, process::ExitCode, sync::Arc, time::Duration};

use stream_pump::{
    checkpoint,
    pump::{Pump, Settings},
    status::{self, Status},
};

const USAGE: &str = "usage: stream-pump --invoke URL --listen 127.0.0.1:PORT \
                     [--poll-ms 200] [--sweep-ms 1000] [--checkpoint FILE] [--table NAME] [--endpoint URL]";

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

struct Args {
    invoke: String,
    listen: SocketAddr,
    poll: Duration,
    sweep: Option<Duration>,
    checkpoint: Option<PathBuf>,
    table: String,
    endpoint: Option<String>,
}

fn args() -> Result<Args, String> {
    let mut invoke = None;
    let mut listen = None;
    let mut poll = Duration::from_millis(200);
    let mut sweep = Some(Duration::from_secs(1));
    let mut checkpoint = None;
    let mut table = env("TABLE_NAME").unwrap_or_else(|| "serverless-forge".into());
    let mut endpoint = env("DYNAMODB_ENDPOINT");
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--invoke" => invoke = Some(value()?),
            "--listen" => {
                let v = value()?;
                let addr: SocketAddr = v.parse().map_err(|e| format!("--listen {v}: {e}"))?;
                if !addr.ip().is_loopback() {
                    return Err(format!("--listen {v}: loopback addresses only"));
                }
                listen = Some(addr);
            }
            "--poll-ms" => {
                let v = value()?;
                let ms: u64 = v.parse().map_err(|e| format!("--poll-ms {v}: {e}"))?;
                poll = Duration::from_millis(ms.clamp(10, 10_000));
            }
            "--sweep-ms" => {
                let v = value()?;
                let ms: u64 = v.parse().map_err(|e| format!("--sweep-ms {v}: {e}"))?;
                sweep = (ms > 0).then(|| Duration::from_millis(ms.clamp(100, 600_000)));
            }
            "--checkpoint" => checkpoint = Some(PathBuf::from(value()?)),
            "--table" => table = value()?,
            "--endpoint" => endpoint = Some(value()?),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    Ok(Args {
        invoke: invoke.ok_or_else(|| format!("--invoke is required\n{USAGE}"))?,
        listen: listen.ok_or_else(|| format!("--listen is required\n{USAGE}"))?,
        poll,
        sweep,
        checkpoint,
        table,
        endpoint,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(args.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("stream-pump: cannot listen on {}: {e}", args.listen);
            return ExitCode::FAILURE;
        }
    };
    let status = Arc::new(Status::default());
    tracing::info!(
        table = %args.table,
        invoke = %args.invoke,
        status = %format!("http://{}", args.listen),
        "stream-pump started"
    );
    tokio::spawn(status::serve(listener, status.clone()));
    if let Some(every) = args.sweep {
        tokio::spawn(stream_pump::schedule::run(args.invoke.clone(), every));
    }
    let settings = Settings {
        table: args.table,
        endpoint: args.endpoint,
        invoke_url: args.invoke,
        poll: args.poll,
        relist: Duration::from_secs(5),
        checkpoint: args.checkpoint.map(checkpoint::File),
    };
    let pump = Pump::new(settings, status).await;
    tokio::select! {
        _ = pump.run() => {}
        _ = tokio::signal::ctrl_c() => tracing::info!("stream-pump stopped"),
    }
    ExitCode::SUCCESS
}
