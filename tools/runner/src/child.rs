//! One step's child process: its output line by line, its exit, and a way
//! to stop it with everything it started.
//!
//! The child leads its own process group, so stopping it also stops what it
//! spawned (the docker CLI runs `compose` as a plugin process, git runs
//! remote helpers); killing only the first process would leave those
//! running and holding the output pipes open.

use std::{
    io,
    path::Path,
    process::{ExitStatus, Stdio},
    time::Duration,
};

use tokio::{
    io::{AsyncBufReadExt, AsyncRead, BufReader},
    process::Command,
    sync::mpsc,
    time::{Instant, timeout_at},
};

use crate::{TOKEN_ENV, job::Stream};

/// Longer lines are cut here while reading. It is more than a sent line's
/// 4 KiB plus the largest value (32 KiB), so a value that starts within
/// the part that is sent is whole when redaction looks at it.
const MAX_READ_LINE: usize = 64 * 1024;

/// How long output may still arrive after the child exited (from processes
/// it left behind) before it is no longer waited for.
const DRAIN: Duration = Duration::from_secs(2);

pub enum Event {
    Line(Stream, String),
    Exited(ExitStatus),
}

pub struct Child {
    process: tokio::process::Child,
    lines: mpsc::Receiver<(Stream, String)>,
    open: bool,
    exited: Option<(ExitStatus, Instant)>,
}

/// Start `program` with `args` in `cwd`. The child gets the runner's own
/// environment (PATH, HOME, DOCKER_HOST, git's configuration...) without
/// the runner's token, plus `env`.
pub fn spawn(
    program: &Path,
    args: &[String],
    env: &[(String, String)],
    cwd: &Path,
) -> io::Result<Child> {
    let mut process = Command::new(program)
        .args(args)
        .env_remove(TOKEN_ENV)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()?;
    let (tx, lines) = mpsc::channel(256);
    if let Some(out) = process.stdout.take() {
        tokio::spawn(read_lines(out, Stream::Stdout, tx.clone()));
    }
    if let Some(err) = process.stderr.take() {
        tokio::spawn(read_lines(err, Stream::Stderr, tx));
    }
    Ok(Child {
        process,
        lines,
        open: true,
        exited: None,
    })
}

impl Child {
    /// The next line of output, or the exit once all output was read.
    /// Cancel-safe: a `select!` may drop it and call it again.
    pub async fn next(&mut self) -> io::Result<Event> {
        loop {
            if let Some((status, drain_until)) = self.exited {
                if !self.open {
                    return Ok(Event::Exited(status));
                }
                match timeout_at(drain_until, self.lines.recv()).await {
                    Ok(Some((stream, line))) => return Ok(Event::Line(stream, line)),
                    Ok(None) | Err(_) => self.open = false,
                }
                continue;
            }
            tokio::select! {
                line = self.lines.recv(), if self.open => match line {
                    Some((stream, line)) => return Ok(Event::Line(stream, line)),
                    None => self.open = false,
                },
                status = self.process.wait() => {
                    self.exited = Some((status?, Instant::now() + DRAIN));
                }
            }
        }
    }

    /// Kill the child's whole process group and reap the child.
    pub async fn stop(mut self) {
        if let Some(pid) = self.process.id().and_then(|p| i32::try_from(p).ok()) {
            // SAFETY: kill(2) only sends a signal. A negative pid names the
            // process group the child leads (it was spawned with
            // process_group(0)); the child is not reaped yet, so its id
            // cannot have been reused.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.process.start_kill();
        let _ = self.process.wait().await;
    }
}

async fn read_lines(
    pipe: impl AsyncRead + Unpin,
    stream: Stream,
    tx: mpsc::Sender<(Stream, String)>,
) {
    let mut reader = BufReader::new(pipe);
    let mut line = Vec::new();
    loop {
        let buf = match reader.fill_buf().await {
            Ok(buf) if !buf.is_empty() => buf,
            _ => break,
        };
        let newline = buf.iter().position(|b| *b == b'\n');
        let take = newline.unwrap_or(buf.len());
        let room = MAX_READ_LINE.saturating_sub(line.len());
        line.extend_from_slice(&buf[..take.min(room)]);
        reader.consume(newline.map_or(take, |i| i + 1));
        if newline.is_some() && !send(&tx, stream, &mut line).await {
            return;
        }
    }
    if !line.is_empty() {
        send(&tx, stream, &mut line).await;
    }
}

async fn send(tx: &mpsc::Sender<(Stream, String)>, stream: Stream, line: &mut Vec<u8>) -> bool {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches('\r').to_owned();
    line.clear();
    tx.send((stream, text)).await.is_ok()
}
