//! The one table of application fields. Each row is complete: the
//! field's JSON shape and bounds, its format rule, where it is stored, the
//! default shown while it is unset, which endpoints accept it and which
//! require it. `input` reads every application body against it; `views`
//! shows the settings from it. To add a field to an endpoint, add that
//! endpoint to the field's `on(...)`.
//!
//! Values the creates generate when a field is left out (names, ports,
//! image tags, webhook secrets) are rules, in `app.rs` (`apply_defaults`).

use serde_json::Value;

pub use super::field::{Endpoint, Field, Kind, Role, Unset};
use super::{
    checks::{self, compose_yaml, not_blank},
    field::*,
};

impl Endpoint {
    /// Whether a body for this endpoint may carry the field `name`.
    pub fn accepts(self, name: &str) -> bool {
        field(name).is_some_and(|f| f.on & self.bit() != 0)
    }

    /// The fields a body for this endpoint must carry (either environment
    /// field will do; that rule is checked on its own).
    pub fn required(self) -> impl Iterator<Item = &'static Field> {
        FIELDS.iter().filter(move |f| f.required & self.bit() != 0)
    }

    pub fn requires(self, field: &Field) -> bool {
        field.required & self.bit() != 0
    }
}

use Kind::*;

pub const BUILD_PACKS: &[&str] = &["nixpacks", "static", "dockerfile", "dockercompose"];
const TEXT_MAX: usize = 131_072;
const COMMAND_MAX: usize = 1000;

/// Every writable field, in the seed's order, then Coolify's PATCH extras.
pub const FIELDS: &[Field] = &[
    f("project_uuid", Str).placement().on(ALL).required(CREATES),
    f("server_uuid", Str).placement().on(ALL).required(CREATES),
    f("environment_name", OptStr).placement().on(ALL),
    f("environment_uuid", OptStr).placement().on(ALL),
    f("destination_uuid", Str).placement().on(ALL),
    f("name", Str).on(ALL).attribute(),
    f("description", OptStr).max(2000).on(ALL).attribute(),
    f("domains", OptStr).max(4096).on(BUILDS).attribute(),
    f("provider_app_uuid", Str)
        .placement()
        .on(PROVIDER_APP | PATCH)
        .required(PROVIDER_APP),
    f("private_key_uuid", Str)
        .placement()
        .secret()
        .on(DEPLOY_KEY)
        .required(DEPLOY_KEY),
    // git_repository's format depends on the source: see `parse`.
    f("git_repository", Str)
        .max(1000)
        .on(GIT | PATCH)
        .required(GIT),
    f("git_branch", Str)
        .check(checks::git_branch)
        .on(GIT | PATCH)
        .required(GIT),
    f("git_commit_sha", Str)
        .check(checks::commit_sha)
        .on(GIT | PATCH)
        .or_text("HEAD"),
    f("docker_registry_image_name", OptStr)
        .check(checks::image_name)
        .on(BUILDS)
        .required(DOCKER_IMAGE),
    f("docker_registry_image_tag", OptStr)
        .check(checks::image_tag)
        .on(BUILDS),
    f("dockerfile", Text)
        .max(TEXT_MAX)
        .secret()
        .check(not_blank)
        .on(GIT | DOCKERFILE)
        .required(DOCKERFILE),
    f("docker_compose_location", OptStr)
        .check(checks::file_path)
        .on(GIT | PATCH)
        .or_text("/docker-compose.yaml"),
    f("docker_compose_raw", Text)
        .max(TEXT_MAX)
        .secret()
        .check(compose_yaml)
        .on(GIT | DOCKER_COMPOSE)
        .required(DOCKER_COMPOSE),
    f("docker_compose_custom_start_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe)
        .on(GIT | PATCH),
    f("docker_compose_custom_build_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe)
        .on(GIT | PATCH),
    f("docker_compose_domains", ComposeDomains).on(GIT | PATCH),
    f("watch_paths", OptStr).max(2000).on(GIT | PATCH),
    f("use_config_json", Bool).flag().on(GIT),
    f("build_pack", OneOf(BUILD_PACKS))
        .on(GIT | DOCKERFILE | PATCH)
        .required(GIT)
        .attribute(),
    f("is_static", Bool).on(GIT | PATCH),
    f("static_image", OneOf(&["nginx:alpine"]))
        .on(GIT | PATCH)
        .or_text("nginx:alpine"),
    f("install_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe)
        .on(GIT | PATCH),
    f("build_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe)
        .on(GIT | PATCH),
    f("start_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe)
        .on(GIT | PATCH),
    f("ports_exposes", Str)
        .check(checks::ports)
        .on(BUILDS)
        .required(GIT | DOCKER_IMAGE),
    f("ports_mappings", OptStr)
        .max(2000)
        .check(checks::port_mappings)
        .on(BUILDS),
    f("base_directory", OptStr)
        .check(checks::directory)
        .on(GIT | DOCKERFILE | PATCH)
        .or_text("/"),
    f("publish_directory", OptStr)
        .check(checks::directory)
        .on(GIT | PATCH),
    f("use_build_server", OptBool).on(ALL),
    f("connect_to_docker_network", Bool).on(ALL),
    f("custom_labels", OptText).max(32_768).secret().on(BUILDS),
    f("custom_docker_run_options", OptStr)
        .max(2000)
        .check(checks::shell_safe)
        .on(BUILDS),
    f("pre_deployment_command", OptStr)
        .max(COMMAND_MAX)
        .on(BUILDS),
    f("pre_deployment_command_container", OptStr)
        .check(checks::container_name)
        .on(BUILDS),
    f("post_deployment_command", OptStr)
        .max(COMMAND_MAX)
        .on(BUILDS),
    f("post_deployment_command_container", OptStr)
        .check(checks::container_name)
        .on(BUILDS),
    f("instant_deploy", Bool).flag().on(ALL),
    f("health_check_enabled", Bool).on(BUILDS),
    f("health_check_path", Str)
        .check(checks::url_path)
        .on(BUILDS)
        .or_text("/"),
    f("health_check_port", OptStr)
        .check(checks::single_port)
        .on(BUILDS),
    f("health_check_host", OptStr)
        .check(checks::host_name)
        .on(BUILDS)
        .or_text("localhost"),
    f(
        "health_check_method",
        OneOf(&["GET", "HEAD", "POST", "OPTIONS"]),
    )
    .on(BUILDS)
    .or_text("GET"),
    f("health_check_return_code", Int(100, 599))
        .on(BUILDS)
        .or_int(200),
    f("health_check_scheme", OneOf(&["http", "https"]))
        .on(BUILDS)
        .or_text("http"),
    f("health_check_response_text", OptStr).max(1000).on(BUILDS),
    f("health_check_interval", Int(1, 86_400))
        .on(BUILDS)
        .or_int(5),
    f("health_check_timeout", Int(1, 86_400))
        .on(BUILDS)
        .or_int(5),
    f("health_check_retries", Int(0, 1000))
        .on(BUILDS)
        .or_int(10),
    f("health_check_start_period", Int(0, 86_400))
        .on(BUILDS)
        .or_int(5),
    f("limits_memory", Str)
        .check(checks::memory)
        .on(BUILDS)
        .or_text("0"),
    f("limits_memory_swap", Str)
        .check(checks::memory)
        .on(BUILDS)
        .or_text("0"),
    f("limits_memory_swappiness", Int(0, 100))
        .on(BUILDS)
        .or_int(60),
    f("limits_memory_reservation", Str)
        .check(checks::memory)
        .on(BUILDS)
        .or_text("0"),
    f("limits_cpus", Str)
        .check(checks::cpus)
        .on(BUILDS)
        .or_text("0"),
    f("limits_cpuset", OptStr).check(checks::cpuset).on(BUILDS),
    f("limits_cpu_shares", Int(0, 262_144))
        .on(BUILDS)
        .or_int(1024),
    f("manual_webhook_secret_provider_a", OptStr)
        .secret()
        .on(BUILDS),
    f("manual_webhook_secret_provider_b", OptStr)
        .secret()
        .on(BUILDS),
    f("manual_webhook_secret_provider_c", OptStr)
        .secret()
        .on(BUILDS),
    f("manual_webhook_secret_provider_d", OptStr)
        .secret()
        .on(BUILDS),
    f("redirect", OptOneOf(&["www", "non-www", "both"]))
        .on(BUILDS)
        .or_text("both"),
    f("is_http_basic_auth_enabled", Bool).on(BUILDS),
    f("http_basic_auth_username", OptStr).on(BUILDS),
    f("http_basic_auth_password", OptStr).secret().on(BUILDS),
    f("force_domain_override", Bool).flag().on(ALL),
    f("autogenerate_domain", Bool)
        .flag()
        .on(GIT | DOCKERFILE | DOCKER_IMAGE),
    // Coolify's PATCH fields beyond the seed's tables.
    f("is_spa", Bool).on(PATCH),
    f("is_auto_deploy_enabled", Bool).on(PATCH).or_flag(true),
    f("is_force_https_enabled", Bool).on(PATCH).or_flag(true),
    f("is_container_label_escape_enabled", Bool)
        .on(PATCH)
        .or_flag(true),
    f("is_preserve_repository_enabled", Bool).on(PATCH),
    f("health_check_type", OneOf(&["http", "cmd"]))
        .on(PATCH)
        .or_text("http"),
    f("health_check_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe)
        .on(PATCH),
    f("custom_network_aliases", OptStr).max(1000).on(PATCH),
    f("dockerfile_location", OptStr)
        .check(checks::file_path)
        .on(PATCH)
        .or_text("/Dockerfile"),
    f("dockerfile_target_build", OptStr)
        .max(128)
        .check(checks::container_name)
        .on(PATCH),
    f("custom_nginx_configuration", OptText)
        .max(32_768)
        .on(PATCH),
];

/// Coolify's names for the fields the seed renamed; accepted as input.
pub const ALIASES: &[(&str, &str)] = &[
    ("github_app_uuid", "provider_app_uuid"),
    (
        "manual_webhook_secret_github",
        "manual_webhook_secret_provider_a",
    ),
    (
        "manual_webhook_secret_gitlab",
        "manual_webhook_secret_provider_b",
    ),
    (
        "manual_webhook_secret_bitbucket",
        "manual_webhook_secret_provider_c",
    ),
    (
        "manual_webhook_secret_gitea",
        "manual_webhook_secret_provider_d",
    ),
];

pub fn field(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}

/// What the record shows for the setting `name` while it is unset.
pub fn unset(name: &str) -> Value {
    field(name).map_or(Value::Null, |f| f.unset.value())
}

/// The text default of the setting `name` (empty when it has none).
pub fn unset_text(name: &str) -> &'static str {
    match field(name).map(|f| f.unset) {
        Some(Unset::Text(t)) => t,
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_required_field_is_accepted() {
        for e in Endpoint::ALL {
            for f in e.required() {
                assert!(
                    e.accepts(f.name),
                    "{e:?} must accept its required {}",
                    f.name
                );
            }
        }
        assert_eq!(Endpoint::Patch.required().count(), 0);
    }

    #[test]
    fn rows_name_each_field_once() {
        for (i, f) in FIELDS.iter().enumerate() {
            assert!(
                FIELDS[i + 1..].iter().all(|g| g.name != f.name),
                "{} twice",
                f.name
            );
            assert!(f.on != 0, "{} is accepted nowhere", f.name);
        }
        for (alias, name) in ALIASES {
            assert!(field(alias).is_none() && field(name).is_some(), "{alias}");
        }
    }

    /// Field × endpoint: a few rows of the matrix, one message per failing
    /// cell.
    #[test]
    fn endpoints_accept_their_fields() {
        use Endpoint::*;
        let rows: &[(&str, &[Endpoint])] = &[
            ("project_uuid", &Endpoint::ALL),
            (
                "domains",
                &[
                    Public,
                    ProviderApp,
                    DeployKey,
                    Dockerfile,
                    DockerImage,
                    Patch,
                ],
            ),
            ("provider_app_uuid", &[ProviderApp, Patch]),
            ("private_key_uuid", &[DeployKey]),
            ("dockerfile", &[Public, ProviderApp, DeployKey, Dockerfile]),
            (
                "docker_compose_raw",
                &[Public, ProviderApp, DeployKey, DockerCompose],
            ),
            (
                "build_pack",
                &[Public, ProviderApp, DeployKey, Dockerfile, Patch],
            ),
            (
                "base_directory",
                &[Public, ProviderApp, DeployKey, Dockerfile, Patch],
            ),
            (
                "health_check_interval",
                &[
                    Public,
                    ProviderApp,
                    DeployKey,
                    Dockerfile,
                    DockerImage,
                    Patch,
                ],
            ),
            ("health_check_type", &[Patch]),
            (
                "autogenerate_domain",
                &[Public, ProviderApp, DeployKey, Dockerfile, DockerImage],
            ),
            ("instant_deploy", &Endpoint::ALL),
            ("use_config_json", &[Public, ProviderApp, DeployKey]),
            ("is_spa", &[Patch]),
        ];
        for (name, on) in rows {
            for e in Endpoint::ALL {
                assert_eq!(e.accepts(name), on.contains(&e), "{name} on {e:?}");
            }
        }
        assert!(!Public.accepts("no_such_field"));
    }

    #[test]
    fn required_sets() {
        let names = |e: Endpoint| e.required().map(|f| f.name).collect::<Vec<_>>();
        assert_eq!(
            names(Endpoint::DockerImage),
            [
                "project_uuid",
                "server_uuid",
                "docker_registry_image_name",
                "ports_exposes"
            ]
        );
        assert_eq!(
            names(Endpoint::ProviderApp),
            [
                "project_uuid",
                "server_uuid",
                "provider_app_uuid",
                "git_repository",
                "git_branch",
                "build_pack",
                "ports_exposes"
            ]
        );
        assert_eq!(
            names(Endpoint::DockerCompose),
            ["project_uuid", "server_uuid", "docker_compose_raw"]
        );
    }

    #[test]
    fn unset_settings_show_coolifys_defaults() {
        let rows = [
            ("git_commit_sha", json!("HEAD")),
            ("health_check_interval", json!(5)),
            ("limits_cpu_shares", json!(1024)),
            ("is_force_https_enabled", json!(true)),
            ("is_static", json!(false)),
            ("use_build_server", Value::Null),
            ("custom_labels", Value::Null),
        ];
        for (name, shown) in rows {
            assert_eq!(unset(name), shown, "{name}");
        }
    }
}
