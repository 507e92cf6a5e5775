//! Answers the API's asks for an application's container logs
//! (docs/deploy-runner.md, "Application logs"): whether its container
//! runs (`docker inspect`, or `docker compose ps` for a compose
//! application), then its last lines (`docker logs --tail N`), bounded
//! here as the API bounds them. The API masks the values it knows.

use std::{collections::VecDeque, time::Duration};

use serde::Deserialize;
use tokio::time::timeout;

use crate::{
    child::{self, Event},
    plan::{PlanError, container_name},
    run::Settings,
};

/// The most lines and bytes an answer holds (the API keeps no more).
pub const MAX_LINES: usize = 10_000;
pub const MAX_BYTES: usize = 256 * 1024;
/// Per command: the answer must reach the API while the ask is fresh.
const STEP_TIMEOUT: Duration = Duration::from_secs(20);

/// One ask, as a claim's `log_requests` carries it.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct LogAsk {
    pub application_uuid: String,
    #[serde(default)]
    pub container_name: Option<String>,
    #[serde(default)]
    pub build_pack: String,
    pub lines: usize,
    #[serde(default)]
    pub show_timestamps: bool,
}

/// What the runner found.
#[derive(Debug, PartialEq, Eq)]
pub struct Fetched {
    pub running: bool,
    pub text: String,
}

impl LogAsk {
    fn container(&self) -> &str {
        self.container_name
            .as_deref()
            .filter(|c| !c.is_empty())
            .unwrap_or(&self.application_uuid)
    }

    /// The docker arguments that tell whether it runs, and that print its
    /// last lines.
    pub fn commands(&self) -> Result<(Vec<String>, Vec<String>), PlanError> {
        let name = container_name(self.container())?;
        let lines = self.lines.clamp(1, MAX_LINES).to_string();
        let mut logs: Vec<String>;
        let probe: Vec<String>;
        if self.build_pack == "dockercompose" {
            let project = name.to_lowercase();
            probe = [
                "compose", "-p", &project, "ps", "--status", "running", "--quiet",
            ]
            .map(str::to_owned)
            .to_vec();
            logs = [
                "compose",
                "-p",
                &project,
                "logs",
                "--no-color",
                "--tail",
                &lines,
            ]
            .map(str::to_owned)
            .to_vec();
        } else {
            probe = ["inspect", "--format", "{{.State.Running}}", &name]
                .map(str::to_owned)
                .to_vec();
            logs = ["logs", "--tail", &lines].map(str::to_owned).to_vec();
        }
        if self.show_timestamps {
            logs.push("--timestamps".into());
        }
        if self.build_pack != "dockercompose" {
            logs.push(name);
        }
        Ok((probe, logs))
    }
}

/// Runs the ask's commands; a container that cannot be probed is not
/// running.
pub async fn fetch(settings: &Settings, ask: &LogAsk) -> Result<Fetched, PlanError> {
    let (probe, logs) = ask.commands()?;
    let compose = ask.build_pack == "dockercompose";
    let running = match output(settings, &probe, 8).await {
        Some((true, out)) if compose => out.iter().any(|l| !l.trim().is_empty()),
        Some((true, out)) => out.back().is_some_and(|l| l.trim() == "true"),
        _ => false,
    };
    if !running {
        return Ok(Fetched {
            running,
            text: String::new(),
        });
    }
    let (_, lines) = output(settings, &logs, ask.lines.clamp(1, MAX_LINES))
        .await
        .unwrap_or_default();
    Ok(Fetched {
        running,
        text: within(lines, MAX_BYTES),
    })
}

/// The last `keep` lines a docker command printed (both streams, as
/// `docker logs` replays the container's), and whether it succeeded;
/// `None` when it could not run or timed out.
async fn output(
    settings: &Settings,
    args: &[String],
    keep: usize,
) -> Option<(bool, VecDeque<String>)> {
    // Docker needs no files here, but a child starts in the work
    // directory, which no job may have made yet.
    std::fs::create_dir_all(&settings.work_dir).ok()?;
    let mut child = child::spawn(
        &settings.docker,
        args,
        &settings.child_env,
        &settings.work_dir,
    )
    .ok()?;
    let mut lines = VecDeque::new();
    let done = timeout(STEP_TIMEOUT, async {
        loop {
            match child.next().await {
                Ok(Event::Line(_, line)) => {
                    if lines.len() == keep {
                        lines.pop_front();
                    }
                    lines.push_back(line);
                }
                Ok(Event::Exited(status)) => return Some(status.success()),
                Err(_) => return None,
            }
        }
    })
    .await;
    match done {
        Ok(Some(ok)) => Some((ok, lines)),
        Ok(None) => None,
        Err(_) => {
            child.stop().await;
            None
        }
    }
}

/// The last whole lines within `max` bytes, each ended by a newline.
fn within(lines: VecDeque<String>, max: usize) -> String {
    let mut kept = Vec::new();
    let mut size = 0;
    for line in lines.iter().rev() {
        size += line.len() + 1;
        if size > max {
            break;
        }
        kept.push(line.as_str());
    }
    kept.iter().rev().map(|l| format!("{l}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_become_docker_commands() {
        let ask = LogAsk {
            application_uuid: "App1".into(),
            lines: 50,
            show_timestamps: true,
            ..LogAsk::default()
        };
        let (probe, logs) = ask.commands().unwrap();
        assert_eq!(probe.join(" "), "inspect --format {{.State.Running}} App1");
        assert_eq!(logs.join(" "), "logs --tail 50 --timestamps App1");
        let compose = LogAsk {
            build_pack: "dockercompose".into(),
            lines: 20_000,
            show_timestamps: false,
            ..ask.clone()
        };
        let (probe, logs) = compose.commands().unwrap();
        assert_eq!(
            probe.join(" "),
            "compose -p app1 ps --status running --quiet"
        );
        assert_eq!(
            logs.join(" "),
            "compose -p app1 logs --no-color --tail 10000"
        );
        let bad = LogAsk {
            application_uuid: "--all".into(),
            ..ask
        };
        assert!(bad.commands().is_err());
    }

    #[test]
    fn answers_keep_the_last_lines_that_fit() {
        let lines: VecDeque<String> = ["one", "two", "three"].map(String::from).into();
        assert_eq!(within(lines.clone(), 100), "one\ntwo\nthree\n");
        assert_eq!(within(lines, 9), "three\n");
    }
}
