//! A runner as the tests drive it: its credential for one server, and the
//! protocol's calls (`/runner/v1/...`).

use serde_json::{Value, json};

use super::Team;
use crate::{Api, Auth, Reply};

pub struct Runner {
    pub api: Api,
    pub uuid: String,
    pub token: String,
}

impl Runner {
    /// A new runner credential for `server` of `t`.
    pub async fn new(t: &Team, server: &str) -> Runner {
        let r = t
            .post(
                &format!("/servers/{server}/runners"),
                json!({"name": crate::unique("runner")}),
            )
            .await;
        assert_eq!(r.status, 201, "create runner: {:?}", r.body);
        Runner {
            api: Api::from_env(),
            uuid: r.body["uuid"].as_str().unwrap().to_string(),
            token: r.body["token"].as_str().unwrap().to_string(),
        }
    }

    pub async fn call(&self, path: &str, body: Option<Value>) -> Reply {
        self.api
            .call(
                "POST",
                &format!("/runner/v1{path}"),
                Auth::Bearer(&self.token),
                body,
            )
            .await
    }

    /// A claim: the job, or `None` for 204.
    pub async fn claim(&self) -> Option<Value> {
        let r = self.call("/claim", None).await;
        match r.status {
            200 => Some(r.body),
            204 => None,
            s => panic!("claim: {s} {:?}", r.body),
        }
    }

    pub async fn heartbeat(&self, d: &str) -> Reply {
        self.call(&format!("/deployments/{d}/heartbeat"), None)
            .await
    }

    /// Sends `lines` of stdout.
    pub async fn log(&self, d: &str, lines: &[&str]) -> Reply {
        let lines: Vec<Value> = lines
            .iter()
            .map(|l| json!({"output": l, "type": "stdout", "hidden": false}))
            .collect();
        self.call(
            &format!("/deployments/{d}/logs"),
            Some(json!({ "lines": lines })),
        )
        .await
    }

    pub async fn claim_cleanup(&self) -> Reply {
        self.call("/cleanups/claim", None).await
    }

    pub async fn cleanup_done(&self, id: &str) -> Reply {
        self.call(&format!("/cleanups/{id}/done"), None).await
    }

    pub async fn end(&self, d: &str, status: &str) -> Reply {
        self.call(
            &format!("/deployments/{d}/end"),
            Some(json!({ "status": status })),
        )
        .await
    }
}

/// The deployment uuid of a trigger's answer.
pub fn deployment_of(r: &Reply) -> String {
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["deployment_uuid"]
        .as_str()
        .unwrap_or_else(|| panic!("deployment_uuid in {:?}", r.body))
        .to_string()
}
