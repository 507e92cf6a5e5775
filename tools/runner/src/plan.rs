//! A claimed job, turned into files to write and Docker CLI steps to run.
//!
//! Pure: nothing here touches the disk or runs anything, so each build pack
//! is a table of expectations in the tests. `dir` is the job's private
//! working directory (mode 0700), removed after the run; everything written
//! for the job goes under it.
//!
//! No environment value is ever put into an argument: runtime values go in
//! an env file, build-time values are named by `--build-arg KEY` and handed
//! to the child in its environment, from which docker reads them. Argument
//! values that come from the job (names, image, branch, paths, ports) are
//! checked so that none can be read as an option.

mod args;

use std::path::{Path, PathBuf};

pub(crate) use args::container_name;
use args::{built_image, commit, git_word, image_ref, port_mappings, relative};

use crate::{
    envfile,
    job::{EnvVar, Job},
    labels,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program {
    Docker,
    Git,
}

/// One child process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// What the step is called in an error: `docker build`, `git clone`.
    pub name: String,
    pub program: Program,
    pub args: Vec<String>,
    /// Added to the child's environment; holds values, so never printed.
    pub env: Vec<(String, String)>,
    /// A failure is expected and ignored (`docker rm -f` of nothing).
    pub may_fail: bool,
}

impl Step {
    fn new(name: &str, program: Program, args: Vec<String>) -> Self {
        Self {
            name: name.to_owned(),
            program,
            args,
            env: Vec::new(),
            may_fail: false,
        }
    }

    pub(crate) fn docker(name: &str, args: Vec<String>) -> Self {
        Self::new(name, Program::Docker, args)
    }

    /// The command as the job's log shows it (arguments only: no values).
    pub fn command_line(&self) -> String {
        let program = match self.program {
            Program::Docker => "docker",
            Program::Git => "git",
        };
        let mut line = String::from(program);
        for arg in &self.args {
            line.push(' ');
            if arg.is_empty() || arg.contains([' ', '`', '\'', '"', '&', '$']) {
                line.push('\'');
                line.push_str(&arg.replace('\'', r"'\''"));
                line.push('\'');
            } else {
                line.push_str(arg);
            }
        }
        line
    }
}

/// A file written under the job's directory (mode 0600) before any step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    pub path: PathBuf,
    pub contents: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Directories to create (mode 0700) before the files.
    pub dirs: Vec<PathBuf>,
    pub files: Vec<File>,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error(
        "build pack {0} is not supported by this runner; use dockerfile, dockerimage or dockercompose"
    )]
    UnsupportedBuildPack(String),
    #[error("action {0} is not supported by this runner; it knows deploy, restart and stop")]
    UnsupportedAction(String),
    #[error("{0}")]
    Invalid(String),
}

fn invalid(message: impl Into<String>) -> PlanError {
    PlanError::Invalid(message.into())
}

pub fn plan(job: &Job, dir: &Path) -> Result<Plan, PlanError> {
    let container = container_name(job.container())?;
    let compose = job.build_pack.as_deref() == Some("dockercompose");
    match job.action.as_str() {
        "deploy" => deploy(job, &container, dir),
        "restart" | "stop" => {
            let verb = job.action.as_str();
            let step = if compose {
                let project = container.to_lowercase();
                Step::docker(
                    &format!("docker compose {verb}"),
                    strings(["compose", "-p", &project, verb]),
                )
            } else {
                Step::docker(&format!("docker {verb}"), strings([verb, &container]))
            };
            Ok(Plan {
                steps: vec![step],
                ..Plan::default()
            })
        }
        other => Err(PlanError::UnsupportedAction(other.to_owned())),
    }
}

fn deploy(job: &Job, container: &str, dir: &Path) -> Result<Plan, PlanError> {
    if let Some(bad) = job.env.iter().find(|v| !envfile::valid_key(&v.key)) {
        return Err(invalid(format!(
            "environment variable key {:?} cannot be passed to docker",
            bad.key
        )));
    }
    let pack = job.build_pack.as_deref().unwrap_or_default();
    let git = job.git_repository.as_deref().is_some_and(|r| !r.is_empty());
    match pack {
        "dockerimage" => {
            let image = image_ref(job)?;
            let mut plan = Plan::default();
            plan.steps
                .push(Step::docker("docker pull", strings(["pull", &image])));
            run_container(&mut plan, job, container, &image, dir)?;
            Ok(plan)
        }
        "dockerfile" if git => from_git(job, container, dir),
        "dockerfile" => {
            let text = job
                .dockerfile
                .as_deref()
                .filter(|d| !d.trim().is_empty())
                .ok_or_else(|| invalid("the dockerfile build pack needs a Dockerfile"))?;
            let build = dir.join("build");
            let dockerfile = build.join("Dockerfile");
            let image = built_image(job, container)?;
            let mut plan = Plan {
                dirs: vec![build.clone()],
                files: vec![File {
                    path: dockerfile.clone(),
                    contents: text.to_owned(),
                }],
                steps: Vec::new(),
            };
            plan.steps
                .push(build_step(job, &image, &dockerfile, &build)?);
            run_container(&mut plan, job, container, &image, dir)?;
            Ok(plan)
        }
        "dockercompose" => {
            let text = job
                .docker_compose_raw
                .as_deref()
                .filter(|d| !d.trim().is_empty())
                .ok_or_else(|| invalid("the dockercompose build pack needs a compose file"))?;
            let file = dir.join("docker-compose.yaml");
            let env = dir.join("compose.env");
            let project = container.to_lowercase();
            Ok(Plan {
                dirs: Vec::new(),
                files: vec![
                    File {
                        path: file.clone(),
                        contents: text.to_owned(),
                    },
                    File {
                        path: env.clone(),
                        contents: envfile::for_compose(&job.env),
                    },
                ],
                steps: vec![Step::docker(
                    "docker compose up",
                    strings([
                        "compose",
                        "--env-file",
                        &path(&env),
                        "-p",
                        &project,
                        "-f",
                        &path(&file),
                        "up",
                        "-d",
                        "--remove-orphans",
                    ]),
                )],
            })
        }
        "" => Err(PlanError::UnsupportedBuildPack("(none)".into())),
        other => Err(PlanError::UnsupportedBuildPack(other.to_owned())),
    }
}

/// Public git with a Dockerfile: a shallow clone of the branch, the commit
/// if one is named, then a build. As in Coolify, `dockerfile_location` is
/// relative to `base_directory`, which is the build context.
fn from_git(job: &Job, container: &str, dir: &Path) -> Result<Plan, PlanError> {
    let repo = job.git_repository.as_deref().unwrap_or_default();
    let branch = job
        .git_branch
        .as_deref()
        .filter(|b| !b.is_empty())
        .unwrap_or("main");
    git_word("repository", repo)?;
    git_word("branch", branch)?;
    let src = dir.join("src");
    let base = src.join(relative(job.base_directory.as_deref().unwrap_or("/"))?);
    let dockerfile = base.join(relative(
        job.dockerfile_location.as_deref().unwrap_or("/Dockerfile"),
    )?);
    let git = |name: &str, args: Vec<String>| Step {
        env: vec![("GIT_TERMINAL_PROMPT".into(), "0".into())],
        ..Step::new(name, Program::Git, args)
    };
    let mut plan = Plan::default();
    plan.steps.push(git(
        "git clone",
        strings([
            "clone",
            "--depth",
            "1",
            "--branch",
            branch,
            "--",
            repo,
            &path(&src),
        ]),
    ));
    if let Some(sha) = commit(job.git_commit_sha.as_deref().unwrap_or("HEAD"))? {
        let src = path(&src);
        // A shallow clone holds only the branch's tip: fetch the commit.
        plan.steps.push(git(
            "git fetch",
            strings(["-C", &src, "fetch", "--depth", "1", "origin", sha]),
        ));
        plan.steps.push(git(
            "git checkout",
            strings([
                "-C",
                &src,
                "-c",
                "advice.detachedHead=false",
                "checkout",
                sha,
            ]),
        ));
    }
    let image = built_image(job, container)?;
    plan.steps
        .push(build_step(job, &image, &dockerfile, &base)?);
    run_container(&mut plan, job, container, &image, dir)?;
    Ok(plan)
}

/// Values handed to a child in its environment, once no key among them
/// would steer the CLI.
fn child_env(vars: &[&EnvVar], how: &str) -> Result<Vec<(String, String)>, PlanError> {
    if let Some(var) = vars.iter().find(|v| envfile::steers_the_cli(&v.key)) {
        return Err(invalid(format!(
            "environment variable {} cannot be {how} here: docker reads it from its own environment, where that name would change how docker itself runs",
            var.key
        )));
    }
    Ok(pairs(vars))
}

fn build_step(
    job: &Job,
    image: &str,
    dockerfile: &Path,
    context: &Path,
) -> Result<Step, PlanError> {
    let mut args = strings(["build"]);
    if job.force_rebuild {
        args.push("--no-cache".into());
    }
    args.extend(strings(["-t", image, "-f", &path(dockerfile)]));
    let buildtime: Vec<&EnvVar> = job.env.iter().filter(|v| v.is_buildtime).collect();
    for var in &buildtime {
        args.extend(strings(["--build-arg", &var.key]));
    }
    args.push(path(context));
    Ok(Step {
        env: child_env(&buildtime, "a build-time variable")?,
        ..Step::docker("docker build", args)
    })
}

/// Replace the container: remove the old one (if any), run the new one.
fn run_container(
    plan: &mut Plan,
    job: &Job,
    container: &str,
    image: &str,
    dir: &Path,
) -> Result<(), PlanError> {
    let env_path = dir.join("runtime.env");
    let (text, outside) = envfile::for_docker_run(&job.env);
    plan.files.push(File {
        path: env_path.clone(),
        contents: text,
    });
    plan.steps.push(Step {
        may_fail: true,
        ..Step::docker("docker rm", strings(["rm", "-f", container]))
    });
    let mut args = strings([
        "run",
        "-d",
        "--name",
        container,
        "--restart",
        "unless-stopped",
        "--env-file",
        &path(&env_path),
    ]);
    for var in &outside {
        args.extend(strings(["-e", &var.key]));
    }
    for mapping in port_mappings(job.ports_mappings.as_deref().unwrap_or_default())? {
        args.extend(strings(["-p", mapping]));
    }
    let exposes = job.ports_exposes.as_deref().unwrap_or("80");
    for label in labels::traefik(container, &job.domains, exposes).map_err(invalid)? {
        args.extend(["-l".to_owned(), label]);
    }
    args.push(image.to_owned());
    plan.steps.push(Step {
        env: child_env(&outside, "a multiline runtime variable")?,
        ..Step::docker("docker run", args)
    });
    Ok(())
}

fn pairs(vars: &[&EnvVar]) -> Vec<(String, String)> {
    vars.iter()
        .map(|v| (v.key.clone(), v.value.clone()))
        .collect()
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn strings<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[cfg(test)]
mod tests;
