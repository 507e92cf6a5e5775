//! What the executor's tests share: a recording reporter in place of the
//! API, a private directory per test, and the stand-in docker's record.

#![allow(dead_code)]

use std::{
    path::{Path, PathBuf},
    sync::Mutex,
};

use runner::{
    job::{EndStatus, EnvVar, Job, LogLine},
    report::{ApiError, Reporter},
    run::Settings,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    Heartbeat,
    Logs(Vec<LogLine>),
    End(EndStatus, Option<String>),
}

/// Answers as the API would, and remembers every call.
#[derive(Default)]
pub struct Recorder {
    pub calls: Mutex<Vec<Call>>,
    /// Answer `cancel: true` from this heartbeat on (1 is the first).
    pub cancel_at_heartbeat: Option<usize>,
    /// Answer `cancel: true` to every `/logs` call.
    pub cancel_on_logs: bool,
    /// Answer heartbeats with this error.
    pub heartbeat_error: Option<ApiError>,
}

impl Recorder {
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    pub fn lines(&self) -> Vec<String> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::Logs(lines) => Some(lines),
                _ => None,
            })
            .flatten()
            .map(|l| l.output)
            .collect()
    }

    pub fn end(&self) -> Option<(EndStatus, Option<String>)> {
        self.calls().into_iter().find_map(|c| match c {
            Call::End(status, error) => Some((status, error)),
            _ => None,
        })
    }

    fn heartbeats(&self) -> usize {
        let calls = self.calls.lock().unwrap();
        calls.iter().filter(|c| **c == Call::Heartbeat).count()
    }
}

impl Reporter for Recorder {
    async fn heartbeat(&self, _: &str) -> Result<bool, ApiError> {
        self.calls.lock().unwrap().push(Call::Heartbeat);
        if let Some(e) = &self.heartbeat_error {
            return Err(e.clone());
        }
        Ok(self
            .cancel_at_heartbeat
            .is_some_and(|n| self.heartbeats() >= n))
    }

    async fn logs(&self, _: &str, lines: &[LogLine]) -> Result<bool, ApiError> {
        self.calls.lock().unwrap().push(Call::Logs(lines.to_vec()));
        Ok(self.cancel_on_logs)
    }

    async fn end(&self, _: &str, status: EndStatus, error: Option<&str>) -> Result<(), ApiError> {
        let call = Call::End(status, error.map(str::to_owned));
        self.calls.lock().unwrap().push(call);
        Ok(())
    }
}

/// A test's private directory, with the stand-in docker's record in it;
/// removed when dropped.
pub struct World {
    pub dir: PathBuf,
    pub settings: Settings,
}

impl World {
    pub fn new() -> Self {
        Self::with_env(&[])
    }

    /// `env`: more variables for the children (FAKE_DOCKER_EXIT_build...).
    pub fn with_env(env: &[(&str, &str)]) -> Self {
        let dir = std::env::temp_dir().join(format!("runner-test-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut child_env = vec![(
            "FAKE_DOCKER_LOG".to_owned(),
            dir.join("docker.log").to_string_lossy().into_owned(),
        )];
        child_env.extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        let settings = Settings {
            docker: fake_docker(),
            git: "git".into(),
            work_dir: dir.join("work"),
            child_env,
        };
        Self { dir, settings }
    }

    /// The stand-in's record, one fact a line.
    pub fn record(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("docker.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The arguments of each docker invocation, in order.
    pub fn invocations(&self) -> Vec<Vec<String>> {
        self.record()
            .iter()
            .filter_map(|l| l.strip_prefix("args"))
            .map(|rest| rest.split('\t').skip(1).map(str::to_owned).collect())
            .collect()
    }

    /// The job directories left in the work directory (none, after a run).
    pub fn leftovers(&self) -> Vec<PathBuf> {
        match std::fs::read_dir(&self.settings.work_dir) {
            Ok(dir) => dir.map(|e| e.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        }
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn fake_docker() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake/docker")
}

pub const BUILD_SECRET: &str = "build-secret-111";
pub const RUNTIME_SECRET: &str = "runtime-secret-222";
pub const BOTH_SECRET: &str = "both-secret-333";
pub const MULTILINE_SECRET: &str = "multi-line-one\nmulti-line-two";

pub fn env() -> Vec<EnvVar> {
    let var = |key: &str, value: &str, build: bool, runtime: bool| EnvVar {
        key: key.into(),
        value: value.into(),
        is_buildtime: build,
        is_runtime: runtime,
        is_multiline: value.contains('\n'),
        ..EnvVar::default()
    };
    vec![
        var("BUILD_TOKEN", BUILD_SECRET, true, false),
        var(
            "DATABASE_URL",
            &format!("postgres://u:{RUNTIME_SECRET}@db/app"),
            false,
            true,
        ),
        var("BOTH", BOTH_SECRET, true, true),
        var("CERT", MULTILINE_SECRET, true, true),
        var("SHORT", "on", true, true),
    ]
}

/// Every secret string of [`env`], multiline values line by line too.
pub fn secrets() -> Vec<&'static str> {
    let mut all = vec![BUILD_SECRET, RUNTIME_SECRET, BOTH_SECRET, MULTILINE_SECRET];
    all.extend(MULTILINE_SECRET.lines());
    all
}

pub fn job(pack: &str) -> Job {
    Job {
        deployment_uuid: "dep1".into(),
        application_uuid: "app1".into(),
        action: "deploy".into(),
        build_pack: Some(pack.into()),
        container_name: Some("app1".into()),
        docker_registry_image_name: Some("nginx".into()),
        docker_registry_image_tag: Some("1.27".into()),
        dockerfile: (pack == "dockerfile")
            .then(|| "FROM nginx:1.27 AS inline\nARG BUILD_TOKEN\n".into()),
        docker_compose_raw: (pack == "dockercompose")
            .then(|| "services: # compose file\n  web:\n    image: nginx\n".into()),
        ports_exposes: Some("80".into()),
        ports_mappings: Some("8080:80".into()),
        domains: vec!["https://app.example.com".into()],
        env: env(),
        heartbeat_seconds: Some(30),
        timeout_seconds: Some(60),
        ..Job::default()
    }
}

/// No secret in any log line, in any argument, or anywhere in the record.
pub fn assert_no_secret_leaked(world: &World, recorder: &Recorder) {
    let record = world.record().join("\n");
    let mut sent = recorder.lines();
    if let Some((_, Some(error))) = recorder.end() {
        sent.push(error);
    }
    for secret in secrets() {
        assert!(
            !record.contains(secret),
            "{secret:?} in the docker record:\n{record}"
        );
        for line in &sent {
            assert!(!line.contains(secret), "{secret:?} sent in {line:?}");
        }
    }
}
