//! The executor against the stand-in docker (tests/fake/docker), with a
//! recording reporter in place of the API.

mod common;

use std::time::{Duration, Instant};

use common::*;
use runner::{
    job::{EndStatus, Job},
    report::ApiError,
    run::{Outcome, execute},
};

async fn run(world: &World, job: &Job) -> (Recorder, Outcome) {
    let recorder = Recorder::default();
    let outcome = execute(&recorder, &world.settings, job).await.unwrap();
    (recorder, outcome)
}

fn has(lines: &[String], want: &str) {
    assert!(lines.iter().any(|l| l == want), "no {want:?} in {lines:#?}");
}

fn arg_after<'a>(args: &'a [String], flag: &str) -> &'a str {
    let i = args
        .iter()
        .position(|a| a == flag)
        .unwrap_or_else(|| panic!("no {flag} in {args:?}"));
    &args[i + 1]
}

#[tokio::test]
async fn dockerimage_pulls_replaces_and_runs_with_an_env_file() {
    let world = World::new();
    let (recorder, outcome) = run(&world, &job("dockerimage")).await;
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(recorder.end(), Some((EndStatus::Finished, None)));
    assert_eq!(recorder.calls()[0], Call::Heartbeat, "a heartbeat first");

    let calls = world.invocations();
    let subs: Vec<&str> = calls.iter().map(|a| a[0].as_str()).collect();
    assert_eq!(subs, ["pull", "rm", "run"]);
    assert_eq!(calls[0], ["pull", "nginx:1.27"]);
    assert_eq!(calls[1], ["rm", "-f", "app1"]);
    let run_args = &calls[2];
    assert_eq!(run_args.last().unwrap(), "nginx:1.27");
    assert_eq!(arg_after(run_args, "--name"), "app1");
    assert_eq!(arg_after(run_args, "-p"), "8080:80");
    assert_eq!(
        arg_after(run_args, "-e"),
        "CERT",
        "the multiline value by name"
    );
    assert!(
        run_args
            .contains(&"traefik.http.routers.https-0-app1.tls.certresolver=letsencrypt".to_owned())
    );

    let record = world.record();
    for key in ["DATABASE_URL", "BOTH", "SHORT"] {
        has(&record, &format!("envfile:{key}=set"));
    }
    assert!(
        !record.iter().any(|l| l.starts_with("envfile:BUILD_TOKEN")),
        "build-time only"
    );
    has(&record, "envfile-mode:600");
    has(&record, "env:CERT=set");
    let env_file = arg_after(run_args, "--env-file");
    assert!(
        !std::path::Path::new(env_file).exists(),
        "{env_file} left behind"
    );
    assert!(world.leftovers().is_empty(), "{:?}", world.leftovers());

    let lines = recorder.lines();
    has(&lines, "$ docker pull nginx:1.27");
    has(&lines, "fake docker pull: step output");
    has(&lines, "fake docker pull: a warning");
    has(&lines, "runner: finished");
    assert_no_secret_leaked(&world, &recorder);
}

#[tokio::test]
async fn dockerfile_builds_with_values_from_the_environment_only() {
    let world = World::new();
    let (recorder, outcome) = run(&world, &job("dockerfile")).await;
    assert_eq!(outcome, Outcome::Finished);
    let calls = world.invocations();
    let build = &calls[0];
    assert_eq!(build[..3], ["build", "-t", "app1:dep1"]);
    let keys: Vec<&str> = build
        .windows(2)
        .filter(|w| w[0] == "--build-arg")
        .map(|w| w[1].as_str())
        .collect();
    assert_eq!(keys, ["BUILD_TOKEN", "BOTH", "CERT", "SHORT"]);
    let record = world.record();
    for key in keys {
        has(&record, &format!("env:{key}=set"));
    }
    has(&record, "dockerfile:FROM nginx:1.27 AS inline");
    assert_eq!(
        calls[2].last().unwrap(),
        "app1:dep1",
        "runs the image it built"
    );

    // The stand-in echoed each value; each arrived masked.
    let lines = recorder.lines();
    has(&lines, "build arg BUILD_TOKEN=********");
    has(&lines, "build arg BOTH=********");
    has(&lines, "build arg CERT=********");
    has(&lines, "********");
    has(&lines, "build arg SHORT=on");
    assert_no_secret_leaked(&world, &recorder);
}

#[tokio::test]
async fn compose_ups_the_project_with_its_env_file() {
    let world = World::new();
    let (recorder, outcome) = run(&world, &job("dockercompose")).await;
    assert_eq!(outcome, Outcome::Finished);
    let calls = world.invocations();
    assert_eq!(calls.len(), 1);
    let up = &calls[0];
    assert_eq!(up[0], "compose");
    assert_eq!(arg_after(up, "-p"), "app1");
    assert_eq!(up[up.len() - 3..], ["up", "-d", "--remove-orphans"]);
    let record = world.record();
    has(&record, "composefile:services: # compose file");
    for key in ["DATABASE_URL", "BOTH", "CERT"] {
        has(&record, &format!("envfile:{key}=set"));
    }
    has(&record, "envfile-mode:600");
    assert!(world.leftovers().is_empty());
    assert_no_secret_leaked(&world, &recorder);
}

#[tokio::test]
async fn restart_and_stop_touch_only_the_container() {
    for (action, pack, want) in [
        ("restart", "dockerimage", vec!["restart", "app1"]),
        ("stop", "dockerfile", vec!["stop", "app1"]),
        (
            "restart",
            "dockercompose",
            vec!["compose", "-p", "app1", "restart"],
        ),
        (
            "stop",
            "dockercompose",
            vec!["compose", "-p", "app1", "stop"],
        ),
    ] {
        let world = World::new();
        let j = Job {
            action: action.into(),
            ..job(pack)
        };
        let (recorder, outcome) = run(&world, &j).await;
        assert_eq!(outcome, Outcome::Finished, "{action} {pack}");
        assert_eq!(world.invocations(), [want], "{action} {pack}");
        assert!(!world.record().iter().any(|l| l.starts_with("envfile")));
        assert_no_secret_leaked(&world, &recorder);
    }
}

#[tokio::test]
async fn a_failing_step_fails_the_deployment_and_stops_there() {
    let world = World::with_env(&[("FAKE_DOCKER_EXIT_build", "3")]);
    let (recorder, outcome) = run(&world, &job("dockerfile")).await;
    let error = "step docker build failed with exit code 3";
    assert_eq!(outcome, Outcome::Failed(error.into()));
    assert_eq!(
        recorder.end(),
        Some((EndStatus::Failed, Some(error.into())))
    );
    assert_eq!(
        world.invocations().len(),
        1,
        "nothing runs after the failure"
    );
    has(&recorder.lines(), &format!("runner: {error}"));
    assert!(world.leftovers().is_empty());
    assert_no_secret_leaked(&world, &recorder);
}

#[tokio::test]
async fn removing_a_missing_container_is_not_a_failure() {
    let world = World::with_env(&[("FAKE_DOCKER_EXIT_rm", "1")]);
    let (_, outcome) = run(&world, &job("dockerimage")).await;
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(world.invocations().len(), 3);
}

#[tokio::test]
async fn unsupported_build_packs_fail_clearly_without_running_anything() {
    for pack in ["nixpacks", "static"] {
        let world = World::new();
        let (recorder, outcome) = run(&world, &job(pack)).await;
        let error = format!(
            "build pack {pack} is not supported by this runner; use dockerfile, dockerimage or dockercompose"
        );
        assert_eq!(outcome, Outcome::Failed(error.clone()));
        assert_eq!(recorder.end(), Some((EndStatus::Failed, Some(error))));
        assert!(world.invocations().is_empty());
    }
}

#[tokio::test]
async fn a_missing_docker_fails_the_step() {
    let mut world = World::new();
    world.settings.docker = world.dir.join("no-such-docker");
    let (_, outcome) = run(&world, &job("dockerimage")).await;
    match outcome {
        Outcome::Failed(e) => assert!(e.starts_with("step docker pull could not start"), "{e}"),
        other => panic!("{other:?}"),
    }
}

/// The stand-in's sleeping process, from its record.
fn sleeper(world: &World) -> u32 {
    let record = world.record();
    let pid = record.iter().find_map(|l| l.strip_prefix("sleep-pid:"));
    pid.unwrap_or_else(|| panic!("no sleep in {record:#?}"))
        .parse()
        .unwrap()
}

/// Gone, or a zombie waiting for whoever reaps orphans, within a second
/// (a killed process may still be on its way out: state R, SIGKILL pending).
async fn assert_dead(pid: u32) {
    let mut stat = String::new();
    for _ in 0..20 {
        stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        if stat.is_empty() || state.starts_with('Z') || state.starts_with('X') {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{pid} still runs: {stat}");
}

#[tokio::test]
async fn the_timeout_kills_the_step_and_fails() {
    let world = World::with_env(&[("FAKE_DOCKER_SLEEP_pull", "30")]);
    let j = Job {
        timeout_seconds: Some(1),
        ..job("dockerimage")
    };
    let started = Instant::now();
    let (recorder, outcome) = run(&world, &j).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let error = "timed out after 1 s (the deployment's timeout_seconds)";
    assert_eq!(outcome, Outcome::Failed(error.into()));
    assert_eq!(
        recorder.end(),
        Some((EndStatus::Failed, Some(error.into())))
    );
    assert!(
        !world.record().iter().any(|l| l.starts_with("exit:")),
        "the step never ended"
    );
    assert_eq!(world.invocations().len(), 1);
    assert_dead(sleeper(&world)).await;
    assert!(world.leftovers().is_empty());
}

#[tokio::test]
async fn a_cancel_seen_at_a_heartbeat_stops_the_child() {
    let world = World::with_env(&[("FAKE_DOCKER_SLEEP_build", "30")]);
    let recorder = Recorder {
        cancel_at_heartbeat: Some(2),
        ..Recorder::default()
    };
    let j = Job {
        heartbeat_seconds: Some(1),
        ..job("dockerfile")
    };
    let started = Instant::now();
    let outcome = execute(&recorder, &world.settings, &j).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(outcome, Outcome::Cancelled);
    assert_eq!(
        recorder.end(),
        Some((EndStatus::Failed, Some("cancelled".into())))
    );
    assert!(!world.record().iter().any(|l| l.starts_with("exit:")));
    assert_eq!(
        world.invocations().len(),
        1,
        "nothing after the cancelled build"
    );
    assert_dead(sleeper(&world)).await;
    assert!(world.leftovers().is_empty());
    assert_no_secret_leaked(&world, &recorder);
}

#[tokio::test]
async fn a_cancel_in_a_logs_answer_stops_the_child() {
    let world = World::with_env(&[("FAKE_DOCKER_SLEEP_pull", "30")]);
    let recorder = Recorder {
        cancel_on_logs: true,
        ..Recorder::default()
    };
    let started = Instant::now();
    let outcome = execute(&recorder, &world.settings, &job("dockerimage"))
        .await
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(outcome, Outcome::Cancelled);
    assert_dead(sleeper(&world)).await;
}

#[tokio::test]
async fn a_cancel_before_the_start_runs_nothing() {
    let world = World::new();
    let recorder = Recorder {
        cancel_at_heartbeat: Some(1),
        ..Recorder::default()
    };
    let outcome = execute(&recorder, &world.settings, &job("dockerimage"))
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Cancelled);
    assert!(world.invocations().is_empty());
    assert_eq!(
        recorder.end(),
        Some((EndStatus::Failed, Some("cancelled".into())))
    );
}

#[tokio::test]
async fn a_run_that_is_no_longer_ours_stops_without_an_end() {
    let world = World::with_env(&[("FAKE_DOCKER_SLEEP_pull", "30")]);
    let recorder = Recorder {
        heartbeat_error: Some(ApiError::Gone("failed as silent".into())),
        ..Recorder::default()
    };
    let outcome = execute(&recorder, &world.settings, &job("dockerimage"))
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Gone("failed as silent".into()));
    assert_eq!(recorder.end(), None);
    assert!(world.invocations().is_empty());
}

#[tokio::test]
async fn a_refused_token_is_an_error_for_the_caller() {
    let world = World::new();
    let recorder = Recorder {
        heartbeat_error: Some(ApiError::Unauthorized),
        ..Recorder::default()
    };
    let result = execute(&recorder, &world.settings, &job("dockerimage")).await;
    assert_eq!(result, Err(ApiError::Unauthorized));
}

#[tokio::test]
async fn transient_heartbeat_failures_do_not_stop_a_run() {
    let world = World::new();
    let recorder = Recorder {
        heartbeat_error: Some(ApiError::Transport {
            call: "heartbeat".into(),
            message: "connection refused".into(),
        }),
        ..Recorder::default()
    };
    let outcome = execute(&recorder, &world.settings, &job("dockerimage"))
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Finished);
}

#[tokio::test]
async fn output_goes_in_batches_of_at_most_100_lines_in_order() {
    let world = World::with_env(&[("FAKE_DOCKER_LINES", "250")]);
    let j = Job {
        action: "restart".into(),
        ..job("dockerimage")
    };
    let (recorder, outcome) = run(&world, &j).await;
    assert_eq!(outcome, Outcome::Finished);
    let batches: Vec<usize> = recorder
        .calls()
        .iter()
        .filter_map(|c| match c {
            Call::Logs(lines) => Some(lines.len()),
            _ => None,
        })
        .collect();
    assert!(batches.iter().all(|n| (1..=100).contains(n)), "{batches:?}");
    let numbered: Vec<String> = recorder
        .lines()
        .into_iter()
        .filter(|l| l.starts_with("line "))
        .collect();
    let want: Vec<String> = (1..=250).map(|i| format!("line {i}")).collect();
    assert_eq!(numbered, want);
}
