//! What a row of the application field table says about one field, and
//! the endpoints a row names. The table itself is `fields.rs`.

use serde_json::{Value, json};

use super::checks::Check;

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
    /// Stored as the record's own attribute and shown under its own name
    /// (`name`, `description`, `domains` as `fqdn`, `build_pack`).
    Attribute,
    /// A setting stored with the application and shown in its record.
    Setting,
    /// Steers the request only (`instant_deploy`, `force_domain_override`).
    Flag,
}

/// What the record shows for a setting never set (Coolify's column
/// default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unset {
    Null,
    Flag(bool),
    Int(i64),
    Text(&'static str),
}

impl Unset {
    pub fn value(self) -> Value {
        match self {
            Unset::Null => Value::Null,
            Unset::Flag(b) => json!(b),
            Unset::Int(n) => json!(n),
            Unset::Text(s) => json!(s),
        }
    }
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

impl Endpoint {
    pub const ALL: [Endpoint; 7] = [
        Endpoint::Public,
        Endpoint::ProviderApp,
        Endpoint::DeployKey,
        Endpoint::Dockerfile,
        Endpoint::DockerImage,
        Endpoint::DockerCompose,
        Endpoint::Patch,
    ];

    /// This endpoint's bit in a row's sets.
    pub(super) const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// Sets of endpoints, for the rows' `on` and `required`.
pub(super) const PUBLIC: u8 = Endpoint::Public.bit();
pub(super) const PROVIDER_APP: u8 = Endpoint::ProviderApp.bit();
pub(super) const DEPLOY_KEY: u8 = Endpoint::DeployKey.bit();
pub(super) const DOCKERFILE: u8 = Endpoint::Dockerfile.bit();
pub(super) const DOCKER_IMAGE: u8 = Endpoint::DockerImage.bit();
pub(super) const DOCKER_COMPOSE: u8 = Endpoint::DockerCompose.bit();
pub(super) const PATCH: u8 = Endpoint::Patch.bit();
/// The three creates from a git repository.
pub(super) const GIT: u8 = PUBLIC | PROVIDER_APP | DEPLOY_KEY;
/// The six creates.
pub(super) const CREATES: u8 = GIT | DOCKERFILE | DOCKER_IMAGE | DOCKER_COMPOSE;
pub(super) const ALL: u8 = CREATES | PATCH;
/// Every endpoint of a built or pulled container: all but the compose
/// create.
pub(super) const BUILDS: u8 = ALL & !DOCKER_COMPOSE;

#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    pub role: Role,
    /// Longest accepted string, in characters (texts: bytes).
    pub max: usize,
    pub check: Option<Check>,
    /// Shown only to tokens with `read:sensitive` or `root`.
    pub secret: bool,
    /// Shown while unset.
    pub unset: Unset,
    /// The endpoints that accept it.
    pub(super) on: u8,
    /// The endpoints that require it.
    pub(super) required: u8,
}

pub(super) const fn f(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        role: Role::Setting,
        max: 255,
        check: None,
        secret: false,
        unset: match kind {
            Kind::Bool => Unset::Flag(false),
            _ => Unset::Null,
        },
        on: 0,
        required: 0,
    }
}

impl Field {
    pub(super) const fn max(mut self, max: usize) -> Self {
        self.max = max;
        self
    }
    pub(super) const fn check(mut self, check: Check) -> Self {
        self.check = Some(check);
        self
    }
    pub(super) const fn secret(mut self) -> Self {
        self.secret = true;
        self
    }
    pub(super) const fn placement(mut self) -> Self {
        self.role = Role::Placement;
        self
    }
    pub(super) const fn attribute(mut self) -> Self {
        self.role = Role::Attribute;
        self
    }
    pub(super) const fn flag(mut self) -> Self {
        self.role = Role::Flag;
        self
    }
    pub(super) const fn on(mut self, endpoints: u8) -> Self {
        self.on = endpoints;
        self
    }
    pub(super) const fn required(mut self, endpoints: u8) -> Self {
        self.required = endpoints;
        self
    }
    pub(super) const fn or_text(mut self, default: &'static str) -> Self {
        self.unset = Unset::Text(default);
        self
    }
    pub(super) const fn or_int(mut self, default: i64) -> Self {
        self.unset = Unset::Int(default);
        self
    }
    pub(super) const fn or_flag(mut self, default: bool) -> Self {
        self.unset = Unset::Flag(default);
        self
    }

    /// The name as Laravel's messages print it (`git repository`).
    pub fn display(&self) -> String {
        self.name.replace('_', " ")
    }
}
