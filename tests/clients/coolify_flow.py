"""A Coolify client's flow against this API, through coolipy (PyPI, pinned
in requirements.txt), used as published.

Setup that a Coolify client never does itself (a user and a deploy-only
token, made in Coolify's web UI) goes through plain HTTP first; everything
after is coolipy's own calls. Each step checks what came back, so a wrong
status, shape or value fails the run.

Environment: API_URL (http://host:port), BOOTSTRAP_ADMIN_TOKEN.
"""

from __future__ import annotations

import base64
import os
import secrets
import sys
from urllib.parse import urlsplit

import httpx
from coolipy import Coolipy
from coolipy.exceptions import CoolipyHTTPError
from coolipy.models.applications import (
    ApplicationDockerImageModelCreate,
    ApplicationPublicModelCreate,
    ApplicationUpdateModel,
)
from coolipy.models.projects import ProjectCreateModel
from coolipy.models.security import PrivateKeyCreateModel
from coolipy.models.servers import ServerCreateModel

API_URL = os.environ["API_URL"].rstrip("/")
ADMIN = os.environ["BOOTSTRAP_ADMIN_TOKEN"]
calls: list[str] = []


def step(name: str) -> None:
    calls.append(name)
    print(f"  coolify flow: {name}", flush=True)


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def deploy_only_token() -> str:
    """A user and a token with Coolify abilities and no Gitea scope."""
    name = "coolipy" + secrets.token_hex(4)
    password = "pw-" + secrets.token_hex(8)
    with httpx.Client(base_url=f"{API_URL}/api/v1", timeout=60) as http:
        r = http.post(
            "/admin/users",
            headers={"Authorization": f"token {ADMIN}"},
            json={"username": name, "email": f"{name}@example.com", "password": password},
        )
        check(r.status_code == 201, f"admin/users: {r.status_code} {r.text}")
        r = http.post(
            f"/users/{name}/tokens",
            auth=(name, password),
            json={"name": "coolify", "scopes": ["root"]},
        )
        check(r.status_code == 201, f"tokens: {r.status_code} {r.text}")
        return r.json()["sha1"]


def pem() -> str:
    body = base64.b64encode(secrets.token_bytes(96)).decode()
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----\n"


def main() -> None:
    url = urlsplit(API_URL)
    client = Coolipy(
        coolify_api_key=deploy_only_token(),
        coolify_endpoint=url.hostname,
        coolify_port=url.port or 80,
        http_protocol=url.scheme,
        timeout=60,
    )

    step("version")
    version = client.version().data
    check(version.startswith("v4."), f"version {version!r}")
    step("health")
    check(client.health().data == "OK", "health")

    step("security keys: create, get")
    key = client.security.create(PrivateKeyCreateModel(name="main", private_key=pem())).data.uuid
    check(client.security.get(key).data.uuid == key, "key get")

    step("servers: create, list")
    server = client.servers.create(
        ServerCreateModel(name="box", ip="203.0.113.7", port=22, user="root", private_key_uuid=key)
    ).data.uuid
    check(server in [s.uuid for s in client.servers.list().data], "server listed")

    step("projects: create, get, environments")
    project = client.projects.create(
        ProjectCreateModel(name="shop", description="the shop")
    ).data.uuid
    check(client.projects.get(project).data.description == "the shop", "project get")
    envs = [e.name for e in client.projects.environments(project).data]
    check("production" in envs, f"environments {envs}")

    placement = dict(project_uuid=project, server_uuid=server, environment_name="production")
    step("applications: create (public)")
    public = client.applications.create(
        ApplicationPublicModelCreate(
            **placement,
            git_repository="https://github.com/coollabsio/coolify-examples",
            git_branch="main",
            build_pack="nixpacks",
            ports_exposes="3000",
            domains="https://shop.example.com",
        )
    )
    check(public.status_code == 201, f"create status {public.status_code}")
    public = public.data.uuid
    step("applications: create (docker image)")
    image = client.applications.create(
        ApplicationDockerImageModelCreate(
            **placement, docker_registry_image_name="nginx", ports_exposes="80"
        )
    ).data.uuid

    step("applications: list")
    listed = {a.uuid: a for a in client.applications.list().data}
    check({public, image} <= set(listed), f"listed {sorted(listed)}")
    check(listed[public].fqdn == "https://shop.example.com", f"fqdn {listed[public].fqdn}")

    step("applications: get")
    app = client.applications.get(public).data
    check(app.build_pack == "nixpacks" and app.ports_exposes == "3000", "get fields")
    check(app.git_branch == "main", f"git_branch {app.git_branch}")

    step("applications: update")
    client.applications.update(
        public, ApplicationUpdateModel(name="shop-web", description="storefront")
    )
    app = client.applications.get(public).data
    check((app.name, app.description) == ("shop-web", "storefront"), "updated")

    step("applications: a conflicting domain is refused")
    try:
        client.applications.create(
            ApplicationDockerImageModelCreate(
                **placement,
                docker_registry_image_name="caddy",
                ports_exposes="80",
                domains="https://shop.example.com",
            )
        )
        raise AssertionError("conflicting domain accepted")
    except CoolipyHTTPError as e:
        check(e.status_code == 409, f"conflict status {e.status_code}")

    step("applications: delete")
    for uuid in (public, image):
        client.applications.delete(uuid, delete_volumes=False)
    try:
        client.applications.get(public)
        raise AssertionError("deleted application still readable")
    except CoolipyHTTPError as e:
        check(e.status_code == 404, f"deleted get {e.status_code}")
    left = {a.uuid for a in client.applications.list().data}
    check(not ({public, image} & left), "deleted applications listed")

    step("clean up: server, key, project")
    client.servers.delete(server)
    client.security.delete(key)
    client.projects.delete(project)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one line naming the step, then the traceback
        print(f"coolify flow failed after {calls[-1] if calls else 'setup'}: {e!r}", file=sys.stderr)
        raise
    print(f"coolify flow: {len(calls)} steps passed")
