//! The rows of the `public-only` checks, as text: every route of every
//! function with who calls it ([`TABLE`], [`DEPLOY`]), and the single
//! refusals ([`SINGLE`]). Parsed by `parse` in the parent module.

/// `who METHOD route [body]`, in an order the public world can run
/// (deletes last). Paths come from the parent's `fill`, bodies from its `body`.
pub(super) const TABLE: &str = "
me    GET    /user
owner GET    /users/{username}
admin POST   /users/{username}/tokens                                token
admin GET    /users/{username}/tokens
admin DELETE /users/{username}/tokens/{id}
admin POST   /admin/users                                            user
admin POST   /admin/users/{username}/repos                           repo
me    POST   /orgs                                                   org
owner GET    /orgs/{org}
owner GET    /orgs/{org}/teams
owner POST   /orgs/{org}/teams                                       team
owner GET    /teams/{id}
owner GET    /teams/{id}/members
owner PUT    /teams/{id}/members/{username}
owner DELETE /teams/{id}/members/{username}
me    PUT    /user/blocks/{username}
me    DELETE /user/blocks/{username}
owner PUT    /orgs/{org}/blocks/{username}
owner DELETE /orgs/{org}/blocks/{username}
me    POST   /user/repos                                             repo
owner POST   /orgs/{org}/repos                                       repo
owner GET    /repos/{owner}/{repo}
owner PATCH  /repos/{owner}/{repo}                                   changed
owner PUT    /repos/{owner}/{repo}/collaborators/{collaborator}      empty
owner DELETE /repos/{owner}/{repo}/collaborators/{collaborator}
owner PUT    /teams/{id}/repos/{org}/{repo}
owner DELETE /teams/{id}/repos/{org}/{repo}
owner POST   /repos/{owner}/{repo}/labels                            label
owner GET    /repos/{owner}/{repo}/labels
owner GET    /repos/{owner}/{repo}/labels/{id}
owner PATCH  /repos/{owner}/{repo}/labels/{id}                       changed
owner POST   /orgs/{org}/labels                                      label
owner GET    /orgs/{org}/labels
me    GET    /user/repos
owner GET    /repos/search
me    GET    /user/orgs
owner GET    /users/{username}/orgs
owner GET    /repos/{owner}/{repo}/assignees
owner GET    /repos/{owner}/{repo}/topics
owner PUT    /repos/{owner}/{repo}/topics                            topics
owner PUT    /repos/{owner}/{repo}/topics/{topic}
owner DELETE /repos/{owner}/{repo}/topics/{topic}
owner POST   /repos/{owner}/{repo}/git/refs                          ref
owner GET    /repos/{owner}/{repo}/git/refs
owner GET    /repos/{owner}/{repo}/git/refs/{ref}
owner GET    /repos/{owner}/{repo}/git/refs/{ref}/{name}
owner GET    /repos/{owner}/{repo}/milestones
owner POST   /repos/{owner}/{repo}/milestones                        milestone
owner GET    /repos/{owner}/{repo}/milestones/{id}
owner PATCH  /repos/{owner}/{repo}/milestones/{id}                   changed
owner GET    /repos/issues/search
owner GET    /repos/{owner}/{repo}/issues
owner POST   /repos/{owner}/{repo}/issues                            issue
owner GET    /repos/{owner}/{repo}/issues/{index}
owner PATCH  /repos/{owner}/{repo}/issues/{index}                    changed
owner POST   /repos/{owner}/{repo}/issues/{index}/deadline           deadline
owner POST   /repos/{owner}/{repo}/issues/{index}/labels             labels
owner PUT    /repos/{owner}/{repo}/issues/{index}/labels             labels
owner DELETE /repos/{owner}/{repo}/issues/{index}/labels
owner GET    /repos/{owner}/{repo}/issues/{index}/labels
owner DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}
owner POST   /repos/{owner}/{repo}/issues/{index}/dependencies       link2
owner GET    /repos/{owner}/{repo}/issues/{index}/dependencies
owner DELETE /repos/{owner}/{repo}/issues/{index}/dependencies       link2
owner POST   /repos/{owner}/{repo}/issues/{index}/blocks             link1
owner GET    /repos/{owner}/{repo}/issues/{index}/blocks
owner DELETE /repos/{owner}/{repo}/issues/{index}/blocks             link1
owner POST   /repos/{owner}/{repo}/pulls                             pull
owner GET    /repos/{owner}/{repo}/pulls/{index}
owner GET    /repos/{owner}/{repo}/pulls
owner PATCH  /repos/{owner}/{repo}/pulls/{index}                     changed
owner POST   /repos/{owner}/{repo}/pulls/{index}/requested_reviewers reviewers
owner POST   /repos/{owner}/{repo}/pulls/{index}/reviews             review
owner POST   /repos/{owner}/{repo}/pulls/{index}/merge               merge
owner GET    /repos/{owner}/{repo}/pulls/{index}/merge
owner GET    /repos/{owner}/{repo}/issues/comments
owner GET    /repos/{owner}/{repo}/issues/{index}/comments
owner POST   /repos/{owner}/{repo}/issues/{index}/comments           comment
owner GET    /repos/{owner}/{repo}/issues/comments/{id}
owner PATCH  /repos/{owner}/{repo}/issues/comments/{id}              comment
owner POST   /repos/{owner}/{repo}/issues/{index}/reactions          reaction
owner GET    /repos/{owner}/{repo}/issues/{index}/reactions
owner DELETE /repos/{owner}/{repo}/issues/{index}/reactions          reaction
owner POST   /repos/{owner}/{repo}/issues/comments/{id}/reactions    reaction
owner GET    /repos/{owner}/{repo}/issues/comments/{id}/reactions
owner DELETE /repos/{owner}/{repo}/issues/comments/{id}/reactions    reaction
owner POST   /repos/{owner}/{repo}/issues/{index}/times              time
owner GET    /repos/{owner}/{repo}/issues/{index}/times
owner GET    /repos/{owner}/{repo}/times
me    GET    /user/times
owner POST   /repos/{owner}/{repo}/issues/{index}/stopwatch/start
me    GET    /user/stopwatches
owner POST   /repos/{owner}/{repo}/issues/{index}/stopwatch/stop
owner POST   /repos/{owner}/{repo}/issues/{index}/stopwatch/start
owner DELETE /repos/{owner}/{repo}/issues/{index}/stopwatch/delete
owner DELETE /repos/{owner}/{repo}/issues/{index}/times/{id}
owner DELETE /repos/{owner}/{repo}/issues/{index}/times
owner PUT    /repos/{owner}/{repo}/issues/{index}/lock               lock
owner DELETE /repos/{owner}/{repo}/issues/{index}/lock
owner POST   /repos/{owner}/{repo}/hooks                             hook
owner GET    /repos/{owner}/{repo}/hooks
owner GET    /repos/{owner}/{repo}/hooks/{id}
owner PATCH  /repos/{owner}/{repo}/hooks/{id}                        hookedit
owner POST   /orgs/{org}/hooks                                       hook
owner GET    /orgs/{org}/hooks
owner GET    /orgs/{org}/hooks/{id}
owner PATCH  /orgs/{org}/hooks/{id}                                  hookedit
me    POST   /user/hooks                                             hook
me    GET    /user/hooks
me    GET    /user/hooks/{id}
me    PATCH  /user/hooks/{id}                                        hookedit
admin POST   /admin/hooks                                            hook
admin GET    /admin/hooks
admin GET    /admin/hooks/{id}
admin PATCH  /admin/hooks/{id}                                       hookedit
owner GET    /repos/{owner}/{repo}/hooks/{id}/deliveries
owner POST   /repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}/redeliver
owner POST   /repos/{owner}/{repo}/hooks/{id}/tests
owner GET    /orgs/{org}/hooks/{id}/deliveries
owner POST   /orgs/{org}/hooks/{id}/deliveries/{delivery}/redeliver
me    GET    /user/hooks/{id}/deliveries
me    POST   /user/hooks/{id}/deliveries/{delivery}/redeliver
admin GET    /admin/hooks/{id}/deliveries
admin POST   /admin/hooks/{id}/deliveries/{delivery}/redeliver
owner DELETE /repos/{owner}/{repo}/hooks/{id}
owner DELETE /orgs/{org}/hooks/{id}
me    DELETE /user/hooks/{id}
admin DELETE /admin/hooks/{id}
owner DELETE /repos/{owner}/{repo}/issues/comments/{id}
owner DELETE /repos/{owner}/{repo}/issues/{index}
owner DELETE /repos/{owner}/{repo}/milestones/{id}
owner DELETE /repos/{owner}/{repo}/labels/{id}
owner DELETE /repos/{owner}/{repo}
";

/// Every deploy route, `METHOD /path` pairs: `public-only` tokens get none.
pub(super) const DEPLOY: &str = "
POST /applications/public          POST /applications/private-provider-app
POST /applications/private-github-app POST /applications/private-deploy-key
POST /applications/dockerfile      POST /applications/dockerimage
POST /applications/dockercompose   GET /applications     GET /applications/{uuid}
PATCH /applications/{uuid}         DELETE /applications/{uuid}
GET /projects     POST /projects   GET /projects/{uuid}  DELETE /projects/{uuid}
GET /projects/{uuid}/environments  POST /projects/{uuid}/environments
GET /projects/{uuid}/{environment} GET /servers          POST /servers
GET /servers/{uuid}                PATCH /servers/{uuid} DELETE /servers/{uuid}
GET /servers/{uuid}/destinations   POST /servers/{uuid}/destinations
GET /servers/{uuid}/resources      GET /servers/{uuid}/domains
GET /servers/{uuid}/validate       POST /servers/{uuid}/validate
GET /security/keys                 POST /security/keys   GET /security/keys/{uuid}
DELETE /security/keys/{uuid}       GET /provider-apps    POST /provider-apps
GET /github-apps                   POST /github-apps     GET /deployments
GET /deployments/{uuid}            GET /deployments/applications/{uuid}
GET /deploy       POST /deploy     POST /deployments/{uuid}/cancel
GET /applications/{uuid}/start     POST /applications/{uuid}/start
GET /applications/{uuid}/stop      POST /applications/{uuid}/stop
GET /applications/{uuid}/restart   POST /applications/{uuid}/restart
GET /applications/{uuid}/logs
GET /servers/{uuid}/runners        POST /servers/{uuid}/runners
DELETE /servers/{uuid}/runners/{runner_uuid}
GET /applications/{uuid}/envs      POST /applications/{uuid}/envs
PATCH /applications/{uuid}/envs    PATCH /applications/{uuid}/envs/bulk
DELETE /applications/{uuid}/envs/{env_uuid}
PATCH /projects/{uuid}             DELETE /projects/{uuid}/environments/{environment_name_or_uuid}
PATCH /security/keys/{uuid}        GET /resources        GET /databases
GET /services     GET /teams       GET /team             GET /team/members
";

/// `who METHOD route path [body] [status]`: P is the private org (PPUB its public
/// repo), Q the public one, M a public org holding a private repository
/// (MH its hook, whose deliveries may tell of it); V is a limited user, W
/// a public one. Bodies as for the private world;
/// the two 404s: a private issue named in the body is not found.
pub(super) const SINGLE: &str = "
owner POST  /orgs/{org}/repos                      /orgs/$Q/repos             repo
owner POST  /user/repos                            /user/repos                repo
admin POST  /admin/users/{username}/repos          /admin/users/$W/repos      repo
admin POST  /admin/users                           /admin/users               user
owner POST  /orgs                                  /orgs                      org
owner PATCH /repos/{owner}/{repo}                  /repos/$Q/$QR              private
owner GET   /repos/{owner}/{repo}                  /repos/$P/$PPUB
owner GET   /repos/{owner}/{repo}                  /repos/$M/$MR
owner GET   /repos/{owner}/{repo}/issues           /repos/$M/$MR/issues
owner GET   /users/{username}                      /users/$P
owner POST  /orgs/{org}/teams                      /orgs/$M/teams             team
owner POST  /orgs/{org}/labels                     /orgs/$M/labels            label
owner PUT   /orgs/{org}/blocks/{username}          /orgs/$M/blocks/$W
owner PUT   /teams/{id}/members/{username}         /teams/$MT/members/$W
owner PUT   /teams/{id}/repos/{org}/{repo}         /teams/$QT/repos/$M/$MR
owner GET   /orgs/{org}/hooks/{id}/deliveries      /orgs/$M/hooks/$MH/deliveries
owner PUT   /repos/{owner}/{repo}/collaborators/{collaborator} \
    /repos/$Q/$QR/collaborators/$V
owner POST  /repos/{owner}/{repo}/issues/{index}/dependencies \
    /repos/$Q/$QR/issues/1/dependencies link1 404
owner POST  /repos/{owner}/{repo}/issues/{index}/blocks \
    /repos/$Q/$QR/issues/2/blocks link1 404
";
