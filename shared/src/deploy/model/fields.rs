//! The one field table of the application endpoints: each field's JSON
//! shape, length, format rule and role, and which fields each endpoint
//! requires and accepts. `input` reads a body against it.

use super::checks::{self, Check, compose_yaml, not_blank};

/// The JSON shape a field takes.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Str,
    /// A string or `null`.
    OptStr,
    /// Text sent plain or as canonical base64 (Coolify clients encode it);
    /// stored decoded.
    Text,
    OptText,
    Bool,
    /// A boolean or `null`.
    OptBool,
    /// A JSON integer within bounds (no numeric strings, no fractions).
    Int(i64, i64),
    /// One of the listed strings.
    OneOf(&'static [&'static str]),
    /// One of the listed strings, or `null`.
    OptOneOf(&'static [&'static str]),
    /// `[{"name": service, "domain": "https://a,https://b"}]`.
    ComposeDomains,
}

/// What the field is for, which decides where it is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A reference or placement (stored as the record's own attributes).
    Placement,
    /// A setting stored with the application and shown in its record.
    Setting,
    /// Steers the request only (`instant_deploy`, `force_domain_override`).
    Flag,
}

#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    pub role: Role,
    /// Longest accepted string, in characters.
    pub max: usize,
    pub check: Option<Check>,
    /// Shown only to tokens with `read:sensitive` or `root`.
    pub secret: bool,
    /// Coolify's PATCH accepts it, the seed's tables do not list it: PATCH
    /// takes it, the creates do not.
    pub patch_only: bool,
}

const fn f(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        role: Role::Setting,
        max: 255,
        check: None,
        secret: false,
        patch_only: false,
    }
}

impl Field {
    const fn max(mut self, max: usize) -> Self {
        self.max = max;
        self
    }
    const fn check(mut self, check: Check) -> Self {
        self.check = Some(check);
        self
    }
    const fn secret(mut self) -> Self {
        self.secret = true;
        self
    }
    const fn placement(mut self) -> Self {
        self.role = Role::Placement;
        self
    }
    const fn flag(mut self) -> Self {
        self.role = Role::Flag;
        self
    }
    const fn patch_only(mut self) -> Self {
        self.patch_only = true;
        self
    }

    /// The name as Laravel's messages print it (`git repository`).
    pub fn display(&self) -> String {
        self.name.replace('_', " ")
    }
}

use Kind::*;

pub const BUILD_PACKS: &[&str] = &["nixpacks", "static", "dockerfile", "dockercompose"];
const TEXT_MAX: usize = 131_072;
const COMMAND_MAX: usize = 1000;

/// Every writable field, in the seed's order, then Coolify's PATCH extras.
pub const FIELDS: &[Field] = &[
    f("project_uuid", Str).placement(),
    f("server_uuid", Str).placement(),
    f("environment_name", OptStr).placement(),
    f("environment_uuid", OptStr).placement(),
    f("destination_uuid", Str).placement(),
    f("name", Str),
    f("description", OptStr).max(2000),
    f("domains", OptStr).max(4096),
    f("provider_app_uuid", Str).placement(),
    f("private_key_uuid", Str).placement().secret(),
    // git_repository's format depends on the source: see `parse`.
    f("git_repository", Str).max(1000),
    f("git_branch", Str).check(checks::git_branch),
    f("git_commit_sha", Str).check(checks::commit_sha),
    f("docker_registry_image_name", OptStr).check(checks::image_name),
    f("docker_registry_image_tag", OptStr).check(checks::image_tag),
    f("dockerfile", Text)
        .max(TEXT_MAX)
        .secret()
        .check(not_blank),
    f("docker_compose_location", OptStr).check(checks::file_path),
    f("docker_compose_raw", Text)
        .max(TEXT_MAX)
        .secret()
        .check(compose_yaml),
    f("docker_compose_custom_start_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe),
    f("docker_compose_custom_build_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe),
    f("docker_compose_domains", ComposeDomains),
    f("watch_paths", OptStr).max(2000),
    f("use_config_json", Bool).flag(),
    f("build_pack", OneOf(BUILD_PACKS)),
    f("is_static", Bool),
    f("static_image", OneOf(&["nginx:alpine"])),
    f("install_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe),
    f("build_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe),
    f("start_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe),
    f("ports_exposes", Str).check(checks::ports),
    f("ports_mappings", OptStr)
        .max(2000)
        .check(checks::port_mappings),
    f("base_directory", OptStr).check(checks::directory),
    f("publish_directory", OptStr).check(checks::directory),
    f("use_build_server", OptBool),
    f("connect_to_docker_network", Bool),
    f("custom_labels", OptText).max(32_768).secret(),
    f("custom_docker_run_options", OptStr)
        .max(2000)
        .check(checks::shell_safe),
    f("pre_deployment_command", OptStr).max(COMMAND_MAX),
    f("pre_deployment_command_container", OptStr).check(checks::container_name),
    f("post_deployment_command", OptStr).max(COMMAND_MAX),
    f("post_deployment_command_container", OptStr).check(checks::container_name),
    f("instant_deploy", Bool).flag(),
    f("health_check_enabled", Bool),
    f("health_check_path", Str).check(checks::url_path),
    f("health_check_port", OptStr).check(checks::single_port),
    f("health_check_host", OptStr).check(checks::host_name),
    f(
        "health_check_method",
        OneOf(&["GET", "HEAD", "POST", "OPTIONS"]),
    ),
    f("health_check_return_code", Int(100, 599)),
    f("health_check_scheme", OneOf(&["http", "https"])),
    f("health_check_response_text", OptStr).max(1000),
    f("health_check_interval", Int(1, 86_400)),
    f("health_check_timeout", Int(1, 86_400)),
    f("health_check_retries", Int(0, 1000)),
    f("health_check_start_period", Int(0, 86_400)),
    f("limits_memory", Str).check(checks::memory),
    f("limits_memory_swap", Str).check(checks::memory),
    f("limits_memory_swappiness", Int(0, 100)),
    f("limits_memory_reservation", Str).check(checks::memory),
    f("limits_cpus", Str).check(checks::cpus),
    f("limits_cpuset", OptStr).check(checks::cpuset),
    f("limits_cpu_shares", Int(0, 262_144)),
    f("manual_webhook_secret_provider_a", OptStr).secret(),
    f("manual_webhook_secret_provider_b", OptStr).secret(),
    f("manual_webhook_secret_provider_c", OptStr).secret(),
    f("manual_webhook_secret_provider_d", OptStr).secret(),
    f("redirect", OptOneOf(&["www", "non-www", "both"])),
    f("is_http_basic_auth_enabled", Bool),
    f("http_basic_auth_username", OptStr),
    f("http_basic_auth_password", OptStr).secret(),
    f("force_domain_override", Bool).flag(),
    f("autogenerate_domain", Bool).flag(),
    // Coolify's PATCH fields beyond the seed's tables.
    f("is_spa", Bool).patch_only(),
    f("is_auto_deploy_enabled", Bool).patch_only(),
    f("is_force_https_enabled", Bool).patch_only(),
    f("is_container_label_escape_enabled", Bool).patch_only(),
    f("is_preserve_repository_enabled", Bool).patch_only(),
    f("health_check_type", OneOf(&["http", "cmd"])).patch_only(),
    f("health_check_command", OptStr)
        .max(COMMAND_MAX)
        .check(checks::shell_safe)
        .patch_only(),
    f("custom_network_aliases", OptStr).max(1000).patch_only(),
    f("dockerfile_location", OptStr)
        .check(checks::file_path)
        .patch_only(),
    f("dockerfile_target_build", OptStr)
        .max(128)
        .check(checks::container_name)
        .patch_only(),
    f("custom_nginx_configuration", OptText)
        .max(32_768)
        .patch_only(),
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

/// The operation a body is checked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    Public,
    ProviderApp,
    DeployKey,
    Dockerfile,
    DockerImage,
    DockerCompose,
    Patch,
}

const PLACEMENT: &[&str] = &[
    "project_uuid",
    "server_uuid",
    "environment_name",
    "environment_uuid",
];

/// The Dockerfile create's accepted fields beyond its required ones.
const DOCKERFILE_EXTRA: &[&str] = &[
    "build_pack",
    "ports_exposes",
    "destination_uuid",
    "name",
    "description",
    "domains",
    "docker_registry_image_name",
    "docker_registry_image_tag",
    "ports_mappings",
    "base_directory",
    "custom_labels",
    "custom_docker_run_options",
    "pre_deployment_command",
    "pre_deployment_command_container",
    "post_deployment_command",
    "post_deployment_command_container",
    "manual_webhook_secret_provider_a",
    "manual_webhook_secret_provider_b",
    "manual_webhook_secret_provider_c",
    "manual_webhook_secret_provider_d",
    "redirect",
    "instant_deploy",
    "use_build_server",
    "is_http_basic_auth_enabled",
    "http_basic_auth_username",
    "http_basic_auth_password",
    "connect_to_docker_network",
    "force_domain_override",
    "autogenerate_domain",
];

const COMPOSE_EXTRA: &[&str] = &[
    "destination_uuid",
    "name",
    "description",
    "instant_deploy",
    "use_build_server",
    "connect_to_docker_network",
    "force_domain_override",
];

/// Fields Coolify's PATCH refuses among the seed's.
const NOT_ON_PATCH: &[&str] = &[
    "dockerfile",
    "docker_compose_raw",
    "autogenerate_domain",
    "use_config_json",
    "private_key_uuid",
];

impl Endpoint {
    /// The fields a create must carry (either environment field will do;
    /// that rule is checked on its own).
    pub fn required(self) -> &'static [&'static str] {
        const GIT: &[&str] = &[
            "project_uuid",
            "server_uuid",
            "git_repository",
            "git_branch",
            "build_pack",
            "ports_exposes",
        ];
        match self {
            Endpoint::Public => GIT,
            Endpoint::ProviderApp => &[
                "project_uuid",
                "server_uuid",
                "git_repository",
                "git_branch",
                "build_pack",
                "ports_exposes",
                "provider_app_uuid",
            ],
            Endpoint::DeployKey => &[
                "project_uuid",
                "server_uuid",
                "git_repository",
                "git_branch",
                "build_pack",
                "ports_exposes",
                "private_key_uuid",
            ],
            Endpoint::Dockerfile => &["project_uuid", "server_uuid", "dockerfile"],
            Endpoint::DockerImage => &[
                "project_uuid",
                "server_uuid",
                "docker_registry_image_name",
                "ports_exposes",
            ],
            Endpoint::DockerCompose => &["project_uuid", "server_uuid", "docker_compose_raw"],
            Endpoint::Patch => &[],
        }
    }

    pub fn accepts(self, name: &str) -> bool {
        let Some(field) = field(name) else {
            return false;
        };
        let listed = |extra: &[&str]| {
            PLACEMENT.contains(&name) || self.required().contains(&name) || extra.contains(&name)
        };
        match self {
            Endpoint::Public => {
                !field.patch_only && !matches!(name, "provider_app_uuid" | "private_key_uuid")
            }
            Endpoint::ProviderApp => !field.patch_only && name != "private_key_uuid",
            Endpoint::DeployKey => !field.patch_only && name != "provider_app_uuid",
            Endpoint::Dockerfile => listed(DOCKERFILE_EXTRA) || is_health_or_limit(name),
            Endpoint::DockerImage => {
                (listed(DOCKERFILE_EXTRA) || is_health_or_limit(name))
                    && !matches!(name, "dockerfile" | "build_pack" | "base_directory")
            }
            Endpoint::DockerCompose => listed(COMPOSE_EXTRA),
            Endpoint::Patch => !NOT_ON_PATCH.contains(&name),
        }
    }
}

fn is_health_or_limit(name: &str) -> bool {
    name.starts_with("health_check_")
        && !matches!(name, "health_check_type" | "health_check_command")
        || name.starts_with("limits_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_accepted_field_is_in_the_table() {
        for list in [DOCKERFILE_EXTRA, COMPOSE_EXTRA, NOT_ON_PATCH, PLACEMENT] {
            for name in list {
                assert!(field(name).is_some(), "{name}");
            }
        }
        for e in [
            Endpoint::Public,
            Endpoint::ProviderApp,
            Endpoint::DeployKey,
            Endpoint::Dockerfile,
            Endpoint::DockerImage,
            Endpoint::DockerCompose,
        ] {
            for name in e.required() {
                assert!(e.accepts(name), "{e:?} must accept its required {name}");
            }
        }
    }
}
