//! The binary over HTTP: `runner --once` against a tiny API stand-in on
//! 127.0.0.1 (std's TcpListener, one thread per connection), with the
//! stand-in docker. Nothing leaves the loopback interface.

mod common;

use std::{
    collections::HashMap,
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    process::{Command, Output},
    sync::{Arc, Mutex},
};

use common::*;

#[derive(Debug, Clone)]
struct Request {
    path: String,
    authorization: String,
    body: String,
}

type Answer = Box<dyn Fn(&str, usize) -> (u16, String) + Send + Sync>;

/// Answers each POST with `answer(path, how many times this path was
/// asked before)`, and records it.
struct Api {
    url: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Api {
    fn start(answer: Answer) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let answer = Arc::new(answer);
        let seen = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (seen, answer) = (seen.clone(), answer.clone());
                std::thread::spawn(move || serve(stream, &seen, &answer));
            }
        });
        Self { url, requests }
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    fn paths(&self) -> Vec<String> {
        self.requests().into_iter().map(|r| r.path).collect()
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Vec<Request>>, answer: &Answer) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            reader.read_line(&mut h).unwrap();
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        let length = headers
            .get("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let before = {
            let mut seen = seen.lock().unwrap();
            let before = seen.iter().filter(|r| r.path == path).count();
            seen.push(Request {
                path: path.clone(),
                authorization: headers.get("authorization").cloned().unwrap_or_default(),
                body: String::from_utf8_lossy(&body).into_owned(),
            });
            before
        };
        let (status, body) = answer(&path, before);
        let reply = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        if stream.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

fn runner(world: &World, api: &str, token: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_runner"))
        .args(["--api", api, "--work-dir"])
        .arg(&world.settings.work_dir)
        .arg("--docker")
        .arg(&world.settings.docker)
        .args(extra)
        .envs(world.settings.child_env.iter().map(|(k, v)| (k, v)))
        .env("RUNNER_TOKEN", token)
        .envs(LOOPBACK_ONLY)
        .output()
        .unwrap()
}

/// A proxy set in the environment is never used for the stand-in API.
const LOOPBACK_ONLY: [(&str, &str); 2] = [("NO_PROXY", "127.0.0.1"), ("no_proxy", "127.0.0.1")];

const TOKEN: &str = "runner_0123456789abcdef";

#[test]
fn once_claims_runs_reports_and_cleans_up() {
    let world = World::new();
    let job = serde_json::to_string(&job("dockerimage")).unwrap();
    let api = Api::start(Box::new(move |path, before| match (path, before) {
        (_, _) if path.ends_with("/claim") && path.contains("cleanups") && before == 0 => (
            200,
            r#"{"id":"c1","application_uuid":"old1","application_name":"old",
                "delete_configurations":true,"delete_volumes":true,
                "docker_cleanup":false,"delete_connected_networks":false}"#
                .into(),
        ),
        ("/runner/v1/claim", 0) => (200, job.clone()),
        (p, _) if p.ends_with("/claim") => (204, String::new()),
        (p, _) if p.ends_with("/heartbeat") => (200, r#"{"cancel":false}"#.into()),
        (p, _) if p.ends_with("/logs") => {
            (200, r#"{"accepted":1,"dropped":0,"cancel":false}"#.into())
        }
        (p, _) if p.ends_with("/end") => (200, r#"{"status":"finished"}"#.into()),
        (p, _) if p.ends_with("/done") => (200, r#"{"message":"Done."}"#.into()),
        _ => (404, r#"{"message":"Not found."}"#.into()),
    }));
    let out = runner(&world, &api.url, TOKEN, &["--once"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let paths = api.paths();
    assert_eq!(paths[0], "/runner/v1/claim");
    assert_eq!(paths[1], "/runner/v1/deployments/dep1/heartbeat");
    assert!(
        paths.contains(&"/runner/v1/deployments/dep1/logs".to_owned()),
        "{paths:#?}"
    );
    assert!(
        paths.contains(&"/runner/v1/cleanups/c1/done".to_owned()),
        "{paths:#?}"
    );
    let requests = api.requests();
    assert!(
        requests
            .iter()
            .all(|r| r.authorization == format!("Bearer {TOKEN}"))
    );
    let end = requests.iter().find(|r| r.path.ends_with("/end")).unwrap();
    assert_eq!(end.body, r#"{"status":"finished"}"#);
    let logs: Vec<&Request> = requests
        .iter()
        .filter(|r| r.path.ends_with("/logs"))
        .collect();
    let first: serde_json::Value = serde_json::from_str(&logs[0].body).unwrap();
    assert_eq!(first["lines"][0]["output"], "$ docker pull nginx:1.27");
    assert_eq!(first["lines"][0]["type"], "stdout");
    assert_eq!(first["lines"][0]["hidden"], false);
    for r in &requests {
        for secret in secrets() {
            assert!(!r.body.contains(secret), "{secret} sent to {}", r.path);
        }
    }

    let calls = world.invocations();
    let subs: Vec<String> = calls.iter().map(|a| a.join(" ")).collect();
    assert_eq!(
        subs[..3].iter().map(|s| &s[..3]).collect::<Vec<_>>(),
        ["pul", "rm ", "run"]
    );
    assert_eq!(
        subs[3..],
        ["rm -f -v old1", "compose -p old1 down --volumes"]
    );
    assert!(world.leftovers().is_empty());
}

#[test]
fn a_failing_step_is_reported_and_is_not_the_runners_failure() {
    let world = World::with_env(&[("FAKE_DOCKER_EXIT_pull", "1")]);
    let job = serde_json::to_string(&job("dockerimage")).unwrap();
    let api = Api::start(Box::new(move |path, before| match path {
        "/runner/v1/claim" if before == 0 => (200, job.clone()),
        p if p.ends_with("/claim") => (204, String::new()),
        p if p.ends_with("/end") => (200, r#"{"status":"failed"}"#.into()),
        _ => (200, r#"{"cancel":false}"#.into()),
    }));
    let out = runner(&world, &api.url, TOKEN, &["--once"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let end = api
        .requests()
        .into_iter()
        .find(|r| r.path.ends_with("/end"))
        .unwrap();
    assert_eq!(
        end.body,
        r#"{"error":"step docker pull failed with exit code 1","status":"failed"}"#
    );
}

#[test]
fn a_refused_token_exits_non_zero() {
    let world = World::new();
    let api = Api::start(Box::new(|_, _| {
        (401, r#"{"message":"Unauthenticated."}"#.into())
    }));
    let out = runner(&world, &api.url, "runner_revoked", &["--once"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(api.paths(), ["/runner/v1/claim"]);
    assert!(world.invocations().is_empty());
}

#[test]
fn the_token_is_never_an_argument() {
    let out = Command::new(env!("CARGO_BIN_EXE_runner"))
        .args([
            "--api",
            "http://127.0.0.1:9",
            "--token",
            "runner_x",
            "--once",
        ])
        .env_remove("RUNNER_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--token-file"));
}

#[test]
fn the_token_file_is_read() {
    let world = World::new();
    let file = world.dir.join("token");
    std::fs::write(&file, format!("{TOKEN}\n")).unwrap();
    let api = Api::start(Box::new(|_, _| (204, String::new())));
    let out = Command::new(env!("CARGO_BIN_EXE_runner"))
        .args(["--api", &api.url, "--once", "--token-file"])
        .arg(&file)
        .env_remove("RUNNER_TOKEN")
        .envs(LOOPBACK_ONLY)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = api.requests();
    assert_eq!(requests.len(), 2, "one claim of each kind");
    assert!(
        requests
            .iter()
            .all(|r| r.authorization == format!("Bearer {TOKEN}"))
    );
}
