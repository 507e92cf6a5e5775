//! A deploy team for one test: a user whose `root` token acts for their
//! own namespace, with a deploy key, a server (and its default
//! destination) and a project (and its `production` environment).

pub mod creates;
pub mod infra;
pub mod runner;

use serde_json::{Value, json};

use crate::{Api, Auth, Reply, TestUser};

/// A PEM block shaped like an OpenSSH private key (random body).
pub fn pem() -> String {
    use base64::{Engine, engine::general_purpose::STANDARD};
    let body: Vec<u8> = (0..96u8)
        .map(|i| {
            i.wrapping_mul(37)
                .wrapping_add(crate::unique("").len() as u8)
        })
        .collect();
    format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----\n",
        STANDARD.encode(body)
    )
}

pub struct Team {
    pub api: Api,
    pub user: TestUser,
    /// A `root` token of the team.
    pub token: String,
    pub key: String,
    pub server: String,
    pub destination: String,
    pub project: String,
    pub environment: String,
}

impl Team {
    pub async fn new() -> Team {
        Team::with_server(json!({})).await
    }

    /// A team whose server gets `extra` fields (e.g. a wildcard domain).
    pub async fn with_server(extra: Value) -> Team {
        let api = Api::from_env();
        let user = api.new_user("dep").await;
        let token = api.token(&user.name, &user.password, &["root"]).await;
        let mut team = Team {
            api,
            user,
            token,
            key: String::new(),
            server: String::new(),
            destination: String::new(),
            project: String::new(),
            environment: String::new(),
        };
        team.key = team
            .created(
                "/security/keys",
                json!({"name": "deploy key", "private_key": pem()}),
            )
            .await;
        let mut server = json!({"name": "srv", "ip": "203.0.113.7", "private_key_uuid": team.key});
        if let (Some(s), Some(e)) = (server.as_object_mut(), extra.as_object()) {
            s.extend(e.clone());
        }
        team.server = team.created("/servers", server).await;
        let dests = team
            .get(&format!("/servers/{}/destinations", team.server))
            .await;
        team.destination = dests.body[0]["uuid"].as_str().unwrap().to_string();
        team.project = team.created("/projects", json!({"name": "proj"})).await;
        let envs = team
            .get(&format!("/projects/{}/environments", team.project))
            .await;
        team.environment = envs.body[0]["uuid"].as_str().unwrap().to_string();
        team
    }

    /// Another token of this team with exactly `abilities`.
    pub async fn token_with(&self, abilities: &[&str]) -> String {
        self.api
            .token(&self.user.name, &self.user.password, abilities)
            .await
    }

    pub async fn call_as(
        &self,
        token: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Reply {
        self.api
            .call(method, &format!("/api/v1{path}"), Auth::Bearer(token), body)
            .await
    }

    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Reply {
        self.call_as(&self.token, method, path, body).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.call("GET", path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.call("POST", path, Some(body)).await
    }

    pub async fn patch(&self, path: &str, body: Value) -> Reply {
        self.call("PATCH", path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.call("DELETE", path, None).await
    }

    /// POSTs and returns the new object's uuid (asserting 201).
    pub async fn created(&self, path: &str, body: Value) -> String {
        let r = self.post(path, body).await;
        assert_eq!(r.status, 201, "POST {path}: {:?}", r.body);
        r.body["uuid"].as_str().expect("uuid").to_string()
    }

    /// The placement every create needs.
    pub fn placement(&self) -> Value {
        json!({
            "project_uuid": self.project,
            "server_uuid": self.server,
            "environment_name": "production",
        })
    }

    /// `placement` plus `fields`.
    pub fn body(&self, fields: Value) -> Value {
        let mut b = self.placement();
        if let (Some(b), Some(f)) = (b.as_object_mut(), fields.as_object()) {
            b.extend(f.clone());
        }
        b
    }

    /// A valid body for a public-repository create.
    pub fn public(&self, fields: Value) -> Value {
        let mut b = self.body(json!({
            "git_repository": "https://github.com/coollabsio/coolify-examples",
            "git_branch": "main",
            "build_pack": "nixpacks",
            "ports_exposes": "3000",
            "autogenerate_domain": false,
        }));
        if let (Some(b), Some(f)) = (b.as_object_mut(), fields.as_object()) {
            b.extend(f.clone());
        }
        b
    }

    /// Creates a public-repository application and returns its uuid.
    pub async fn app(&self, fields: Value) -> String {
        self.created("/applications/public", self.public(fields))
            .await
    }
}
