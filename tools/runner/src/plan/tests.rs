use super::*;
use crate::job::EnvVar;

const DIR: &str = "/work/job";

fn env() -> Vec<EnvVar> {
    vec![
        EnvVar {
            key: "BUILD_TOKEN".into(),
            value: "build-secret-111".into(),
            is_buildtime: true,
            is_runtime: false,
            ..EnvVar::default()
        },
        EnvVar {
            key: "DATABASE_URL".into(),
            value: "postgres://u:runtime-secret-222@db/app".into(),
            is_buildtime: false,
            is_runtime: true,
            ..EnvVar::default()
        },
        EnvVar {
            key: "BOTH".into(),
            value: "both-secret-333".into(),
            is_buildtime: true,
            is_runtime: true,
            ..EnvVar::default()
        },
        EnvVar {
            key: "CERT".into(),
            value: "-----BEGIN-----\nmultiline-secret-444\n-----END-----".into(),
            is_runtime: true,
            is_multiline: true,
            ..EnvVar::default()
        },
    ]
}

fn job(pack: &str) -> Job {
    Job {
        deployment_uuid: "dep1".into(),
        application_uuid: "app1".into(),
        action: "deploy".into(),
        build_pack: Some(pack.into()),
        container_name: Some("app1".into()),
        docker_registry_image_name: Some("nginx".into()),
        docker_registry_image_tag: Some("1.27".into()),
        ports_exposes: Some("80".into()),
        ports_mappings: Some("8080:80, 8443:443".into()),
        domains: vec!["https://app.example.com".into()],
        env: env(),
        ..Job::default()
    }
}

fn dockerfile_job() -> Job {
    Job {
        dockerfile: Some("FROM nginx\nARG BUILD_TOKEN\n".into()),
        ..job("dockerfile")
    }
}

fn git_job(sha: &str) -> Job {
    Job {
        git_repository: Some("https://git.example.com/acme/app.git".into()),
        git_branch: Some("main".into()),
        git_commit_sha: Some(sha.into()),
        base_directory: Some("/web".into()),
        dockerfile_location: Some("/docker/Dockerfile".into()),
        ..job("dockerfile")
    }
}

fn compose_job() -> Job {
    Job {
        docker_compose_raw: Some("services:\n  web:\n    image: nginx\n".into()),
        ..job("dockercompose")
    }
}

fn planned(job: &Job) -> Plan {
    plan(job, Path::new(DIR)).unwrap_or_else(|e| panic!("{e}"))
}

fn argv(step: &Step) -> Vec<&str> {
    step.args.iter().map(String::as_str).collect()
}

fn names(plan: &Plan) -> Vec<&str> {
    plan.steps.iter().map(|s| s.name.as_str()).collect()
}

/// The tail every single-container deploy ends with.
fn assert_replaces_container(plan: &Plan, image: &str) {
    let n = plan.steps.len();
    let rm = &plan.steps[n - 2];
    assert_eq!(argv(rm), ["rm", "-f", "app1"]);
    assert!(rm.may_fail, "a missing old container is not a failure");
    let run = &plan.steps[n - 1];
    let args = argv(run);
    assert_eq!(
        args[..8],
        [
            "run",
            "-d",
            "--name",
            "app1",
            "--restart",
            "unless-stopped",
            "--env-file",
            "/work/job/runtime.env"
        ]
    );
    assert_eq!(*args.last().unwrap(), image);
    let joined = args.join(" ");
    assert!(
        joined.contains("-e CERT"),
        "multiline value by name: {joined}"
    );
    assert!(joined.contains("-p 8080:80 -p 8443:443"), "{joined}");
    assert!(
        joined.contains("-l traefik.http.routers.https-0-app1.rule=Host(`app.example.com`)"),
        "{joined}"
    );
    assert!(
        joined.contains("-l traefik.http.services.https-0-app1.loadbalancer.server.port=80"),
        "{joined}"
    );
    assert_eq!(run.env, [("CERT".to_owned(), env()[3].value.clone())]);
    let file = plan
        .files
        .iter()
        .find(|f| f.path.ends_with("runtime.env"))
        .unwrap();
    assert_eq!(
        file.contents,
        "DATABASE_URL=postgres://u:runtime-secret-222@db/app\nBOTH=both-secret-333\n"
    );
}

#[test]
fn dockerimage_pulls_then_runs() {
    let plan = planned(&job("dockerimage"));
    assert_eq!(names(&plan), ["docker pull", "docker rm", "docker run"]);
    assert_eq!(argv(&plan.steps[0]), ["pull", "nginx:1.27"]);
    assert_replaces_container(&plan, "nginx:1.27");
}

#[test]
fn image_defaults_and_digests() {
    let mut j = job("dockerimage");
    j.docker_registry_image_tag = None;
    assert_eq!(argv(&planned(&j).steps[0]), ["pull", "nginx:latest"]);
    let digest = format!("sha256:{}", "ab".repeat(32));
    j.docker_registry_image_tag = Some(digest.clone());
    assert_eq!(argv(&planned(&j).steps[0])[1], format!("nginx@{digest}"));
    for bad in ["", "-rm", "nginx latest"] {
        j.docker_registry_image_name = Some(bad.into());
        assert!(plan(&j, Path::new(DIR)).is_err(), "{bad:?}");
    }
}

#[test]
fn dockerfile_builds_the_inline_file_then_runs() {
    let plan = planned(&dockerfile_job());
    assert_eq!(names(&plan), ["docker build", "docker rm", "docker run"]);
    assert_eq!(plan.dirs, [PathBuf::from("/work/job/build")]);
    assert_eq!(plan.files[0].path, Path::new("/work/job/build/Dockerfile"));
    assert_eq!(plan.files[0].contents, "FROM nginx\nARG BUILD_TOKEN\n");
    let build = &plan.steps[0];
    assert_eq!(
        argv(build),
        [
            "build",
            "-t",
            "app1:dep1",
            "-f",
            "/work/job/build/Dockerfile",
            "--build-arg",
            "BUILD_TOKEN",
            "--build-arg",
            "BOTH",
            "/work/job/build"
        ]
    );
    assert_eq!(
        build.env,
        [
            ("BUILD_TOKEN".to_owned(), "build-secret-111".to_owned()),
            ("BOTH".to_owned(), "both-secret-333".to_owned())
        ]
    );
    assert_replaces_container(&plan, "app1:dep1");
}

#[test]
fn force_rebuild_builds_without_cache() {
    let mut j = dockerfile_job();
    j.force_rebuild = true;
    assert_eq!(argv(&planned(&j).steps[0])[..2], ["build", "--no-cache"]);
}

#[test]
fn the_env_file_is_outside_the_build_context() {
    let plan = planned(&dockerfile_job());
    let context = Path::new(plan.steps[0].args.last().unwrap());
    for file in plan
        .files
        .iter()
        .filter(|f| !f.path.ends_with("Dockerfile"))
    {
        assert!(
            !file.path.starts_with(context),
            "{:?} in the context",
            file.path
        );
    }
}

#[test]
fn git_clones_the_branch_then_builds_from_the_base_directory() {
    let plan = planned(&git_job("HEAD"));
    assert_eq!(
        names(&plan),
        ["git clone", "docker build", "docker rm", "docker run"]
    );
    let clone = &plan.steps[0];
    assert_eq!(clone.program, Program::Git);
    assert_eq!(
        argv(clone),
        [
            "clone",
            "--depth",
            "1",
            "--branch",
            "main",
            "--",
            "https://git.example.com/acme/app.git",
            "/work/job/src"
        ]
    );
    assert_eq!(
        clone.env,
        [("GIT_TERMINAL_PROMPT".to_owned(), "0".to_owned())]
    );
    let build = argv(&plan.steps[1]);
    assert_eq!(
        build[..5],
        [
            "build",
            "-t",
            "app1:dep1",
            "-f",
            "/work/job/src/web/docker/Dockerfile"
        ]
    );
    assert_eq!(*build.last().unwrap(), "/work/job/src/web");
    assert!(plan.files.iter().all(|f| !f.path.ends_with("Dockerfile")));
    assert_replaces_container(&plan, "app1:dep1");
}

#[test]
fn git_checks_out_a_named_commit() {
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let plan = planned(&git_job(sha));
    assert_eq!(
        names(&plan)[..3],
        ["git clone", "git fetch", "git checkout"]
    );
    assert_eq!(
        argv(&plan.steps[1]),
        [
            "-C",
            "/work/job/src",
            "fetch",
            "--depth",
            "1",
            "origin",
            sha
        ]
    );
    assert_eq!(*argv(&plan.steps[2]).last().unwrap(), sha);
    assert!(super::plan(&git_job("main; rm -rf /"), Path::new(DIR)).is_err());
}

#[test]
fn git_refuses_what_could_be_an_option_or_leave_the_clone() {
    let mut j = git_job("HEAD");
    j.git_branch = Some("--upload-pack=x".into());
    assert!(plan(&j, Path::new(DIR)).is_err());
    let mut j = git_job("HEAD");
    j.git_repository = Some("-uhttps://x".into());
    assert!(plan(&j, Path::new(DIR)).is_err());
    let mut j = git_job("HEAD");
    j.dockerfile_location = Some("/../../etc/Dockerfile".into());
    assert!(plan(&j, Path::new(DIR)).is_err());
}

#[test]
fn compose_writes_the_file_and_its_env_then_ups() {
    let plan = planned(&compose_job());
    assert_eq!(names(&plan), ["docker compose up"]);
    assert_eq!(
        argv(&plan.steps[0]),
        [
            "compose",
            "--env-file",
            "/work/job/compose.env",
            "-p",
            "app1",
            "-f",
            "/work/job/docker-compose.yaml",
            "up",
            "-d",
            "--remove-orphans"
        ]
    );
    assert_eq!(
        plan.files[0].contents,
        "services:\n  web:\n    image: nginx\n"
    );
    assert!(
        plan.files[1]
            .contents
            .starts_with("DATABASE_URL='postgres://u:runtime-secret-222@db/app'\n")
    );
}

#[test]
fn restart_and_stop() {
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
        let j = Job {
            action: action.into(),
            ..job(pack)
        };
        let plan = planned(&j);
        assert_eq!(plan.steps.len(), 1, "{action} {pack}");
        assert_eq!(argv(&plan.steps[0]), want, "{action} {pack}");
        assert!(plan.files.is_empty(), "{action} {pack} writes no env file");
    }
}

#[test]
fn unsupported_packs_and_actions_fail_clearly() {
    for pack in ["nixpacks", "static", ""] {
        let err = plan(&job(pack), Path::new(DIR)).unwrap_err().to_string();
        assert!(
            err.contains("is not supported by this runner"),
            "{pack}: {err}"
        );
        assert!(
            err.contains("use dockerfile, dockerimage or dockercompose"),
            "{err}"
        );
    }
    assert_eq!(
        plan(&job("nixpacks"), Path::new(DIR))
            .unwrap_err()
            .to_string(),
        "build pack nixpacks is not supported by this runner; use dockerfile, dockerimage or dockercompose"
    );
    let j = Job {
        action: "migrate".into(),
        ..job("dockerimage")
    };
    assert!(matches!(
        plan(&j, Path::new(DIR)),
        Err(PlanError::UnsupportedAction(_))
    ));
    let j = Job {
        dockerfile: None,
        ..job("dockerfile")
    };
    assert!(plan(&j, Path::new(DIR)).is_err(), "no Dockerfile, no git");
}

#[test]
fn bad_names_ports_and_keys_are_refused() {
    let mut j = job("dockerimage");
    j.container_name = Some("-it".into());
    assert!(plan(&j, Path::new(DIR)).is_err());
    let mut j = job("dockerimage");
    j.ports_mappings = Some("8080:80,--privileged".into());
    assert!(plan(&j, Path::new(DIR)).is_err());
    let mut j = job("dockerimage");
    j.env[0].key = "BAD KEY".into();
    assert!(plan(&j, Path::new(DIR)).is_err());
}

#[test]
fn values_that_would_steer_docker_itself_are_refused() {
    let mut j = dockerfile_job();
    j.env[0].key = "DOCKER_HOST".into();
    let err = plan(&j, Path::new(DIR)).unwrap_err().to_string();
    assert!(
        err.contains("DOCKER_HOST cannot be a build-time variable"),
        "{err}"
    );
    let mut j = job("dockerimage");
    j.env[3].key = "LD_PRELOAD".into();
    assert!(
        plan(&j, Path::new(DIR)).is_err(),
        "multiline runtime: in the CLI's environment"
    );
    // In the env file such a name is only the container's business.
    let mut j = job("dockerimage");
    j.env[1].key = "DOCKER_HOST".into();
    assert!(plan(&j, Path::new(DIR)).is_ok());
}

#[test]
fn no_argument_ever_holds_an_env_value() {
    let values: Vec<String> = env()
        .iter()
        .flat_map(|v| {
            let mut all = vec![v.value.clone()];
            all.extend(v.value.lines().map(str::to_owned));
            all
        })
        .collect();
    let jobs = [
        job("dockerimage"),
        dockerfile_job(),
        git_job("HEAD"),
        git_job("0123456789abcdef0123456789abcdef01234567"),
        compose_job(),
        Job {
            action: "restart".into(),
            ..job("dockerimage")
        },
        Job {
            action: "stop".into(),
            ..compose_job()
        },
    ];
    let mut checked = 0;
    for j in &jobs {
        let plan = planned(j);
        for step in &plan.steps {
            for arg in step.args.iter().chain([&step.command_line()]) {
                for value in &values {
                    assert!(
                        !arg.contains(value.as_str()),
                        "{} has {value:?} in {arg:?}",
                        step.name
                    );
                }
                checked += 1;
            }
        }
        for file in &plan.files {
            let p = file.path.to_string_lossy();
            assert!(values.iter().all(|v| !p.contains(v.as_str())), "{p}");
        }
    }
    assert!(checked > 50, "the check looked at {checked} arguments");
}

#[test]
fn command_lines_quote_what_a_shell_would_split() {
    let step = Step::docker(
        "docker run",
        strings(["run", "-l", "rule=Host(`a`) && x", "it's"]),
    );
    assert_eq!(
        step.command_line(),
        r"docker run -l 'rule=Host(`a`) && x' 'it'\''s'"
    );
}
