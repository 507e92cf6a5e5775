//! Public git with a Dockerfile: a real clone, from a real local bare
//! repository, reached from a public-looking URL through git's
//! `url.<base>.insteadOf` (in a private global config, with the system's
//! config off). The stand-in docker then reports which Dockerfile it was
//! given, which shows the build used the cloned tree.

mod common;

use std::{path::Path, process::Command};

use common::*;
use runner::{
    job::Job,
    run::{Outcome, execute},
};

const URL: &str = "https://git.example.com/acme/app.git";

fn git(cwd: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(cwd)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A bare repository with two commits on `main`, each with its own
/// Dockerfile under `web/`; a gitconfig that maps [`URL`] to it. Returns
/// the first commit's hash.
fn repository(world: &mut World) -> String {
    let bare = world.dir.join("app.git");
    let tree = world.dir.join("tree");
    std::fs::create_dir_all(tree.join("web")).unwrap();
    git(
        &world.dir,
        &["init", "--bare", "-b", "main", bare.to_str().unwrap()],
    );
    git(&tree, &["init", "-b", "main"]);
    std::fs::write(
        tree.join("web/Dockerfile"),
        "FROM alpine:3.20 AS first-commit\n",
    )
    .unwrap();
    git(&tree, &["add", "."]);
    git(&tree, &["commit", "-m", "first"]);
    let first = git(&tree, &["rev-parse", "HEAD"]);
    std::fs::write(
        tree.join("web/Dockerfile"),
        "FROM alpine:3.20 AS second-commit\n",
    )
    .unwrap();
    git(&tree, &["commit", "-am", "second"]);
    git(&tree, &["push", bare.to_str().unwrap(), "main"]);

    let config = world.dir.join("gitconfig");
    let body = format!("[url \"file://{}\"]\n\tinsteadOf = {URL}\n", bare.display());
    std::fs::write(&config, body).unwrap();
    world.settings.child_env.extend([
        (
            "GIT_CONFIG_GLOBAL".to_owned(),
            config.to_string_lossy().into_owned(),
        ),
        ("GIT_CONFIG_NOSYSTEM".to_owned(), "1".to_owned()),
    ]);
    first
}

fn git_job(sha: &str) -> Job {
    Job {
        git_repository: Some(URL.into()),
        git_branch: Some("main".into()),
        git_commit_sha: Some(sha.into()),
        base_directory: Some("/web".into()),
        dockerfile_location: Some("/Dockerfile".into()),
        dockerfile: None,
        ..job("dockerfile")
    }
}

fn build_args(world: &World) -> Vec<String> {
    let calls = world.invocations();
    calls
        .into_iter()
        .find(|a| a[0] == "build")
        .expect("a build")
}

#[tokio::test]
async fn clones_the_branch_and_builds_its_dockerfile() {
    let mut world = World::new();
    repository(&mut world);
    let recorder = Recorder::default();
    let outcome = execute(&recorder, &world.settings, &git_job("HEAD"))
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Finished, "{:#?}", recorder.lines());
    let record = world.record();
    assert!(
        record.contains(&"dockerfile:FROM alpine:3.20 AS second-commit".to_owned()),
        "{record:#?}"
    );
    let build = build_args(&world);
    assert!(build.last().unwrap().ends_with("/src/web"), "{build:?}");
    assert!(
        build.iter().any(|a| a.ends_with("/src/web/Dockerfile")),
        "{build:?}"
    );
    let lines = recorder.lines();
    assert!(
        lines.iter().any(|l| l.starts_with(
            "$ git clone --depth 1 --branch main -- https://git.example.com/acme/app.git "
        )),
        "{lines:#?}"
    );
    assert!(world.leftovers().is_empty(), "the clone is removed");
    assert_no_secret_leaked(&world, &recorder);
}

#[tokio::test]
async fn checks_out_the_commit_it_is_given() {
    let mut world = World::new();
    let first = repository(&mut world);
    let recorder = Recorder::default();
    let outcome = execute(&recorder, &world.settings, &git_job(&first))
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Finished, "{:#?}", recorder.lines());
    assert!(
        world
            .record()
            .contains(&"dockerfile:FROM alpine:3.20 AS first-commit".to_owned()),
        "{:#?}",
        world.record()
    );
}

#[tokio::test]
async fn a_branch_that_does_not_exist_fails_the_clone() {
    let mut world = World::new();
    repository(&mut world);
    let recorder = Recorder::default();
    let job = Job {
        git_branch: Some("nope".into()),
        ..git_job("HEAD")
    };
    let outcome = execute(&recorder, &world.settings, &job).await.unwrap();
    assert_eq!(
        outcome,
        Outcome::Failed("step git clone failed with exit code 128".into())
    );
    assert!(world.invocations().is_empty(), "no build");
}
