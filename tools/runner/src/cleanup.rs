//! Clean-ups: what an application's delete leaves on the server.
//!
//! The container (`docker rm -f`, with `-v` for its anonymous volumes when
//! volumes go), the compose project of the same name (`docker compose -p
//! <uuid> down`, `--volumes` when volumes go), the network named after the
//! application when connected networks go, and dangling images on
//! `docker_cleanup`. Each is attempted whatever the application was, and
//! a failure (nothing of that name) is expected and ignored. Traefik's
//! routes were the container's labels, so they go with it.
//! `delete_configurations` needs nothing here: the runner keeps no
//! configuration beyond a run.

use std::time::Duration;

use tokio::time::timeout;

use crate::{
    child::{self, Event},
    job::Cleanup,
    plan::{PlanError, Step, container_name},
    run::Settings,
};

/// Per step; removing things is quick unless the daemon is stuck.
const STEP_TIMEOUT: Duration = Duration::from_secs(300);

pub fn plan(cleanup: &Cleanup) -> Result<Vec<Step>, PlanError> {
    let name = container_name(&cleanup.application_uuid)?;
    let project = name.to_lowercase();
    let mut steps = Vec::new();
    let mut rm = vec!["rm".to_owned(), "-f".to_owned()];
    if cleanup.delete_volumes {
        rm.push("-v".into());
    }
    rm.push(name.clone());
    steps.push(Step::docker("docker rm", rm));
    let mut down = ["compose", "-p", &project, "down"]
        .map(str::to_owned)
        .to_vec();
    if cleanup.delete_volumes {
        down.push("--volumes".into());
    }
    steps.push(Step::docker("docker compose down", down));
    if cleanup.delete_connected_networks {
        let args = ["network", "rm", &name].map(str::to_owned).to_vec();
        steps.push(Step::docker("docker network rm", args));
    }
    if cleanup.docker_cleanup {
        let args = ["image", "prune", "-f"].map(str::to_owned).to_vec();
        steps.push(Step::docker("docker image prune", args));
    }
    for step in &mut steps {
        step.may_fail = true;
    }
    Ok(steps)
}

/// Run the clean-up's steps, writing their output to the runner's own log.
pub async fn carry_out(settings: &Settings, cleanup: &Cleanup) -> Result<(), String> {
    let steps = plan(cleanup).map_err(|e| e.to_string())?;
    for step in &steps {
        tracing::info!(cleanup = %cleanup.id, command = %step.command_line(), "clean-up step");
        let mut child = child::spawn(
            &settings.docker,
            &step.args,
            &settings.child_env,
            &settings.work_dir,
        )
        .map_err(|e| format!("{}: {e}", settings.docker.display()))?;
        let finished = timeout(STEP_TIMEOUT, async {
            loop {
                match child.next().await {
                    Ok(Event::Line(_, line)) => tracing::info!(cleanup = %cleanup.id, "{line}"),
                    Ok(Event::Exited(status)) => return Some(status),
                    Err(_) => return None,
                }
            }
        })
        .await;
        match finished {
            Ok(Some(status)) if status.success() => {}
            Ok(status) => {
                tracing::info!(cleanup = %cleanup.id, step = %step.name, ?status, "clean-up step failed (ignored)");
            }
            Err(_) => {
                child.stop().await;
                tracing::warn!(cleanup = %cleanup.id, step = %step.name, "clean-up step timed out");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(steps: &[Step]) -> Vec<String> {
        steps.iter().map(Step::command_line).collect()
    }

    #[test]
    fn everything_named_after_the_application_goes() {
        let c = Cleanup {
            id: "c1".into(),
            application_uuid: "App1".into(),
            delete_volumes: true,
            delete_connected_networks: true,
            docker_cleanup: true,
            ..Cleanup::default()
        };
        let steps = plan(&c).unwrap();
        assert_eq!(
            args(&steps),
            [
                "docker rm -f -v App1",
                "docker compose -p app1 down --volumes",
                "docker network rm App1",
                "docker image prune -f"
            ]
        );
        assert!(steps.iter().all(|s| s.may_fail));
    }

    #[test]
    fn volumes_and_networks_stay_unless_asked() {
        let c = Cleanup {
            id: "c1".into(),
            application_uuid: "app1".into(),
            ..Cleanup::default()
        };
        assert_eq!(
            args(&plan(&c).unwrap()),
            ["docker rm -f app1", "docker compose -p app1 down"]
        );
        let bad = Cleanup {
            application_uuid: "--all".into(),
            ..c
        };
        assert!(plan(&bad).is_err());
    }
}
