//! Carrying out one claimed deployment: plan it, run its steps one by one,
//! stream their output, heartbeat, and report the end.
//!
//! A run stops early when the API asks for a cancel (in a heartbeat's or a
//! `/logs` answer), when the deployment is no longer this runner's (409),
//! and when `timeout_seconds` have passed since it was claimed; the running
//! step is killed with everything it started. A `/logs` or heartbeat call
//! that fails for another reason (network, 5xx) is not fatal: lines wait for
//! the next flush, and the API fails a run only after three missed
//! heartbeats.

use std::{
    path::{Path, PathBuf},
    process::ExitStatus,
    time::Duration,
};

use tokio::time::{Instant, Interval, MissedTickBehavior, interval_at, sleep, sleep_until};

use crate::{
    child::{self, Event},
    job::{EndStatus, Job, Stream},
    logs::Outbox,
    plan::{self, Program, Step},
    redact::Redactor,
    report::{ApiError, Reporter},
    workdir::WorkDir,
};

/// How often buffered lines are sent while output flows.
const FLUSH_EVERY: Duration = Duration::from_secs(1);
const DEFAULT_HEARTBEAT: u64 = 30;
const DEFAULT_TIMEOUT: u64 = 3600;

#[derive(Debug, Clone)]
pub struct Settings {
    pub docker: PathBuf,
    pub git: PathBuf,
    /// Where each job's private directory is made.
    pub work_dir: PathBuf,
    /// Added to every child's environment, on top of the runner's own
    /// (tests point the stand-in docker at its record this way).
    pub child_env: Vec<(String, String)>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            docker: "docker".into(),
            git: "git".into(),
            work_dir: std::env::temp_dir(),
            child_env: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Finished,
    /// Ended `failed` with this error.
    Failed(String),
    /// Stopped at the API's request and ended `failed` with "cancelled".
    Cancelled,
    /// The API no longer counts it as this runner's (409): stopped, and
    /// not ended, since the end is no longer the runner's to say.
    Gone(String),
}

enum Stop {
    Cancelled,
    TimedOut,
    Gone(String),
    Unauthorized,
}

enum End {
    Finished,
    Failed(String),
    Stopped(Stop),
}

enum StepEnd {
    Exited(ExitStatus),
    NotStarted(String),
}

/// Run `job` to its end and report it. `Err` when the API refused the
/// runner's token (fatal for the runner) or the end could not be reported.
pub async fn execute<R: Reporter>(
    reporter: &R,
    settings: &Settings,
    job: &Job,
) -> Result<Outcome, ApiError> {
    let timeout = job
        .timeout_seconds
        .filter(|s| *s > 0)
        .unwrap_or(DEFAULT_TIMEOUT);
    let period = Duration::from_secs(
        job.heartbeat_seconds
            .filter(|s| *s > 0)
            .unwrap_or(DEFAULT_HEARTBEAT),
    );
    let mut heartbeat = interval_at(Instant::now() + period, period);
    heartbeat.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut run = Run {
        reporter,
        settings,
        job,
        out: Outbox::new(Redactor::new(job.secrets())),
        heartbeat,
        deadline: Instant::now() + Duration::from_secs(timeout),
    };
    let end = match run.beat().await {
        Ok(()) => run.carry_out().await,
        Err(stop) => End::Stopped(stop),
    };
    let (status, error, outcome) = match end {
        End::Finished => (EndStatus::Finished, None, Outcome::Finished),
        End::Failed(error) => (
            EndStatus::Failed,
            Some(error.clone()),
            Outcome::Failed(error),
        ),
        End::Stopped(Stop::TimedOut) => {
            let error = format!("timed out after {timeout} s (the deployment's timeout_seconds)");
            (
                EndStatus::Failed,
                Some(error.clone()),
                Outcome::Failed(error),
            )
        }
        End::Stopped(Stop::Cancelled) => (
            EndStatus::Failed,
            Some("cancelled".to_owned()),
            Outcome::Cancelled,
        ),
        End::Stopped(Stop::Gone(reason)) => {
            tracing::warn!(deployment = %job.deployment_uuid, %reason, "stopped: no longer this runner's");
            return Ok(Outcome::Gone(reason));
        }
        End::Stopped(Stop::Unauthorized) => return Err(ApiError::Unauthorized),
    };
    let error = error.map(|e| run.out.redact(&e));
    match &error {
        Some(e) => run.out.push(Stream::Stderr, &format!("runner: {e}")),
        None => run.out.push(Stream::Stdout, "runner: finished"),
    }
    run.flush_all().await;
    match end_with_retries(reporter, &job.deployment_uuid, status, error.as_deref()).await {
        Ok(()) => Ok(outcome),
        Err(ApiError::Gone(reason)) => Ok(Outcome::Gone(reason)),
        Err(e) => Err(e),
    }
}

/// `/end`, tried three times: it is the one call a run cannot do without.
async fn end_with_retries<R: Reporter>(
    reporter: &R,
    deployment: &str,
    status: EndStatus,
    error: Option<&str>,
) -> Result<(), ApiError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        match reporter.end(deployment, status, error).await {
            Err(e @ (ApiError::Transport { .. } | ApiError::Status { .. })) if attempt < 3 => {
                tracing::warn!(error = %e, "reporting the end failed; trying again");
                sleep(Duration::from_secs(attempt)).await;
            }
            other => return other,
        }
    }
}

struct Run<'a, R> {
    reporter: &'a R,
    settings: &'a Settings,
    job: &'a Job,
    out: Outbox,
    heartbeat: Interval,
    deadline: Instant,
}

impl<R: Reporter> Run<'_, R> {
    async fn carry_out(&mut self) -> End {
        let dir = self
            .settings
            .work_dir
            .join(format!("runner-{}", uuid::Uuid::new_v4()));
        let plan = match plan::plan(self.job, &dir) {
            Ok(plan) => plan,
            Err(e) => return End::Failed(e.to_string()),
        };
        let workdir = match WorkDir::create(&dir, &plan) {
            Ok(w) => w,
            Err(e) => return End::Failed(format!("could not prepare the job's directory: {e}")),
        };
        for step in &plan.steps {
            if Instant::now() >= self.deadline {
                return End::Stopped(Stop::TimedOut);
            }
            self.out
                .push(Stream::Stdout, &format!("$ {}", step.command_line()));
            match self.run_step(step, workdir.path()).await {
                Ok(StepEnd::Exited(status)) if status.success() || step.may_fail => {}
                Ok(StepEnd::Exited(status)) => {
                    return End::Failed(match status.code() {
                        Some(code) => format!("step {} failed with exit code {code}", step.name),
                        None => format!("step {} was killed by a signal", step.name),
                    });
                }
                Ok(StepEnd::NotStarted(e)) => {
                    return End::Failed(format!("step {} could not start: {e}", step.name));
                }
                Err(stop) => return End::Stopped(stop),
            }
        }
        End::Finished
    }

    async fn run_step(&mut self, step: &Step, cwd: &Path) -> Result<StepEnd, Stop> {
        let program = match step.program {
            Program::Docker => &self.settings.docker,
            Program::Git => &self.settings.git,
        };
        let env: Vec<(String, String)> = self
            .settings
            .child_env
            .iter()
            .chain(&step.env)
            .cloned()
            .collect();
        let mut child = match child::spawn(program, &step.args, &env, cwd) {
            Ok(child) => child,
            Err(e) => return Ok(StepEnd::NotStarted(format!("{}: {e}", program.display()))),
        };
        let mut flush = interval_at(Instant::now() + FLUSH_EVERY, FLUSH_EVERY);
        loop {
            let control = tokio::select! {
                event = child.next() => match event {
                    Ok(Event::Exited(status)) => return Ok(StepEnd::Exited(status)),
                    Ok(Event::Line(stream, line)) => {
                        self.out.push(stream, &line);
                        if self.out.full() { self.flush().await.map(drop) } else { Ok(()) }
                    }
                    Err(e) => {
                        child.stop().await;
                        return Ok(StepEnd::NotStarted(e.to_string()));
                    }
                },
                _ = flush.tick() => self.flush().await.map(drop),
                _ = self.heartbeat.tick() => self.beat().await,
                _ = sleep_until(self.deadline) => Err(Stop::TimedOut),
            };
            if let Err(stop) = control {
                child.stop().await;
                return Err(stop);
            }
        }
    }

    async fn beat(&mut self) -> Result<(), Stop> {
        match self.reporter.heartbeat(&self.job.deployment_uuid).await {
            Ok(true) => Err(Stop::Cancelled),
            Ok(false) => Ok(()),
            Err(e) => tolerate(e),
        }
    }

    /// Send one batch; `true` when it was taken.
    async fn flush(&mut self) -> Result<bool, Stop> {
        if self.out.is_empty() {
            return Ok(false);
        }
        let batch = self.out.batch();
        match self.reporter.logs(&self.job.deployment_uuid, &batch).await {
            Ok(cancel) => {
                self.out.sent(batch.len());
                if cancel {
                    Err(Stop::Cancelled)
                } else {
                    Ok(true)
                }
            }
            Err(e) => tolerate(e).map(|()| false),
        }
    }

    /// Send everything left, as far as the API takes it.
    async fn flush_all(&mut self) {
        if self.out.dropped() > 0 {
            tracing::warn!(
                lines = self.out.dropped(),
                "log lines dropped while the API was unreachable"
            );
        }
        // A cancel seen here changes nothing: the batch was taken.
        while let Ok(true) | Err(Stop::Cancelled) = self.flush().await {}
    }
}

fn tolerate(e: ApiError) -> Result<(), Stop> {
    match e {
        ApiError::Unauthorized => Err(Stop::Unauthorized),
        ApiError::Gone(reason) => Err(Stop::Gone(reason)),
        other => {
            tracing::warn!(error = %other, "an API call failed; carrying on");
            Ok(())
        }
    }
}
