//! Log asks against the stand-in docker: the probe, the tail, and a
//! container that does not run.

mod common;

use common::World;
use runner::app_logs::{LogAsk, fetch};

fn ask(build_pack: &str) -> LogAsk {
    LogAsk {
        application_uuid: "app1".into(),
        build_pack: build_pack.into(),
        lines: 3,
        ..LogAsk::default()
    }
}

#[tokio::test]
async fn a_running_container_s_last_lines_are_fetched() {
    let w = World::with_env(&[("FAKE_DOCKER_LINES", "5")]);
    let found = fetch(&w.settings, &ask("dockerimage")).await.unwrap();
    assert!(found.running, "{:?}", w.record());
    assert_eq!(found.text.lines().count(), 3, "{found:?}");
    assert!(found.text.ends_with("line 5\n"), "{found:?}");
    assert_eq!(
        w.invocations(),
        [
            vec!["inspect", "--format", "{{.State.Running}}", "app1"],
            vec!["logs", "--tail", "3", "app1"],
        ]
    );
}

#[tokio::test]
async fn a_stopped_container_is_said_not_running_and_not_read() {
    let w = World::with_env(&[("FAKE_DOCKER_RUNNING", "false")]);
    for pack in ["dockerimage", "dockercompose"] {
        let found = fetch(&w.settings, &ask(pack)).await.unwrap();
        assert!(!found.running && found.text.is_empty(), "{pack}: {found:?}");
    }
    assert_eq!(w.invocations().len(), 2, "probes only: {:?}", w.record());
}
