//! Values from the job that become arguments, checked so that none can be
//! read as an option, split into two, or lead out of the job's directory.
//! The API validates them too; the runner does not rely on it.

use std::path::{Component, Path, PathBuf};

use super::{PlanError, invalid};
use crate::job::Job;

/// `<container>:<deployment uuid>`, the tag of an image built here.
pub fn built_image(job: &Job, container: &str) -> Result<String, PlanError> {
    let tag = &job.deployment_uuid;
    if !tag_like(tag) {
        return Err(invalid(format!(
            "deployment uuid {tag:?} is not usable as an image tag"
        )));
    }
    Ok(format!("{}:{tag}", container.to_lowercase()))
}

/// `name:tag`, or `name@sha256:…` when the tag is a digest.
pub fn image_ref(job: &Job) -> Result<String, PlanError> {
    let name = job
        .docker_registry_image_name
        .as_deref()
        .unwrap_or_default();
    let tag = job
        .docker_registry_image_tag
        .as_deref()
        .filter(|t| !t.is_empty())
        .unwrap_or("latest");
    let name_ok = !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/:".contains(c));
    if !name_ok {
        return Err(invalid(format!("docker image {name:?} is not usable")));
    }
    if let Some(digest) = tag.strip_prefix("sha256:")
        && digest.chars().all(|c| c.is_ascii_hexdigit())
    {
        return Ok(format!("{name}@{tag}"));
    }
    if !tag_like(tag) {
        return Err(invalid(format!("docker image tag {tag:?} is not usable")));
    }
    Ok(format!("{name}:{tag}"))
}

fn tag_like(tag: &str) -> bool {
    (1..=128).contains(&tag.len())
        && tag
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && tag
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

pub fn container_name(name: &str) -> Result<String, PlanError> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    if ok {
        Ok(name.to_owned())
    } else {
        Err(invalid(format!("container name {name:?} is not usable")))
    }
}

/// A path from the job (`/`, `/app/Dockerfile`) as a path under the clone;
/// `..` is refused.
pub fn relative(p: &str) -> Result<PathBuf, PlanError> {
    let mut out = PathBuf::new();
    for component in Path::new(p).components() {
        match component {
            Component::Normal(c) => out.push(c),
            Component::RootDir | Component::CurDir => {}
            _ => return Err(invalid(format!("path {p:?} leaves the repository"))),
        }
    }
    Ok(out)
}

/// The entries of `ports_mappings` (`8080:80,127.0.0.1:53:53/udp`).
pub fn port_mappings(list: &str) -> Result<Vec<&str>, PlanError> {
    let mut out = Vec::new();
    for mapping in list.split(',').map(str::trim).filter(|m| !m.is_empty()) {
        let usable = !mapping.starts_with('-')
            && mapping
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || ":.-/[]".contains(c));
        if !usable {
            return Err(invalid(format!("port mapping {mapping:?} is not usable")));
        }
        out.push(mapping);
    }
    Ok(out)
}

/// A repository URL or branch: one word, not an option.
pub fn git_word(what: &str, value: &str) -> Result<(), PlanError> {
    if value.starts_with('-') || value.contains(char::is_whitespace) {
        return Err(invalid(format!("git {what} {value:?} is not usable")));
    }
    Ok(())
}

/// The commit to check out: `None` for the branch's tip (`HEAD`).
pub fn commit(sha: &str) -> Result<Option<&str>, PlanError> {
    if sha.is_empty() || sha.eq_ignore_ascii_case("HEAD") {
        return Ok(None);
    }
    if !(4..=64).contains(&sha.len()) || !sha.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(invalid(format!("git commit {sha:?} is not a commit hash")));
    }
    Ok(Some(sha))
}
