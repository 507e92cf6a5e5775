// A Gitea client's flow against this API, through gitea-js (npm, pinned in
// package-lock.json), used as published: version, user and token,
// repository, labels, milestones, issues, comments, issue labels, pulls,
// repository hooks, search. Each step checks what came back, so a wrong
// status, shape or value fails the run.
//
// Environment: API_URL (http://host:port), BOOTSTRAP_ADMIN_TOKEN.

import { giteaApi } from 'gitea-js';
import { randomBytes } from 'node:crypto';

const root = process.env.API_URL.replace(/\/+$/, '');
const calls = [];
const step = (name) => {
  calls.push(name);
  console.log(`  gitea flow: ${name}`);
};
const check = (cond, what) => {
  if (!cond) throw new Error(`check failed: ${what}`);
};
const same = (got, want, what) =>
  check(JSON.stringify(got) === JSON.stringify(want), `${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);

async function flow() {
  const admin = giteaApi(root, { token: process.env.BOOTSTRAP_ADMIN_TOKEN });

  step('version');
  const { data: version } = await admin.version.getVersion();
  check(/^1\.\d+\.\d+/.test(version.version), `version ${version.version}`);

  step('admin creates a user');
  const login = `giteajs${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const created = await admin.admin.adminCreateUser({
    username: login,
    email: `${login}@example.com`,
    password,
    must_change_password: false,
  });
  same(created.status, 201, 'create user status');

  step('the user makes a token with their password');
  const basic = 'Basic ' + Buffer.from(`${login}:${password}`).toString('base64');
  const { data: token } = await giteaApi(root).users.userCreateToken(
    login,
    { name: 'gitea-js', scopes: ['write:user', 'write:repository', 'write:issue'] },
    { headers: { Authorization: basic } },
  );
  check(typeof token.sha1 === 'string' && token.sha1.length === 40, 'token sha1');
  const api = giteaApi(root, { token: token.sha1 });

  step('current user');
  same((await api.user.userGetCurrent()).data.login, login, 'login');

  step('repository: create, get');
  const repoName = 'flow';
  const { data: repo } = await api.user.createCurrentUserRepo({ name: repoName, description: 'client flow' });
  same(repo.full_name, `${login}/${repoName}`, 'full_name');
  same((await api.repos.repoGet(login, repoName)).data.description, 'client flow', 'repo description');
  const r = api.repos;

  step('labels: create, list');
  const { data: bug } = await r.issueCreateLabel(login, repoName, { name: 'bug', color: '#ee0701' });
  const { data: feature } = await r.issueCreateLabel(login, repoName, { name: 'feature', color: '00aabb' });
  same((await r.issueListLabels(login, repoName)).data.map((l) => l.name).sort(), ['bug', 'feature'], 'labels');

  step('milestones: create, list, edit');
  const { data: v1 } = await r.issueCreateMilestone(login, repoName, {
    title: 'v1.0',
    due_on: '2027-03-31T12:00:00Z',
  });
  same((await r.issueGetMilestonesList(login, repoName, { state: 'all' })).data.map((m) => m.title), ['v1.0'], 'milestones');
  await r.issueEditMilestone(login, repoName, String(v1.id), { description: 'first release' });
  same((await r.issueGetMilestone(login, repoName, String(v1.id))).data.description, 'first release', 'milestone edit');

  step('issues: create, get, list, edit');
  const { data: issue } = await r.issueCreateIssue(login, repoName, {
    title: 'Crash on start',
    body: 'It crashes.',
    labels: [bug.id],
    milestone: v1.id,
  });
  same(issue.number, 1, 'first issue number');
  same(issue.labels.map((l) => l.name), ['bug'], 'issue labels');
  same(issue.milestone.title, 'v1.0', 'issue milestone');
  const listed = await r.issueListIssues(login, repoName, { state: 'open', type: 'issues' });
  same(listed.headers.get('x-total-count'), '1', 'X-Total-Count');
  same(listed.data.map((i) => i.number), [1], 'listed issues');
  await r.issueEditIssue(login, repoName, 1, { title: 'Crash on start (Linux)' });
  same((await r.issueGetIssue(login, repoName, 1)).data.title, 'Crash on start (Linux)', 'issue edit');

  step('comments: create, list, get, edit, delete');
  const { data: c1 } = await r.issueCreateComment(login, repoName, 1, { body: 'Seen on 1.2 too.' });
  const { data: c2 } = await r.issueCreateComment(login, repoName, 1, { body: 'And on 1.3.' });
  same(c1.user.login, login, 'comment author');
  check(c1.issue_url.endsWith(`/${login}/${repoName}/issues/1`), `issue_url ${c1.issue_url}`);
  same((await r.issueGetComments(login, repoName, 1)).data.map((c) => c.id), [c1.id, c2.id], 'issue comments');
  same((await r.issueGetRepoComments(login, repoName)).data.map((c) => c.id), [c1.id, c2.id], 'repo comments');
  same((await r.issueGetIssue(login, repoName, 1)).data.comments, 2, 'comments count');
  same((await r.issueEditComment(login, repoName, c1.id, { body: 'Seen on 1.2.' })).data.body, 'Seen on 1.2.', 'comment edit');
  same((await r.issueGetComment(login, repoName, c1.id)).data.body, 'Seen on 1.2.', 'comment get');
  same((await r.issueDeleteComment(login, repoName, c2.id)).status, 204, 'comment delete');
  same((await r.issueGetIssue(login, repoName, 1)).data.comments, 1, 'comments count after delete');

  step('issue labels: get, remove, add');
  same((await r.issueGetLabels(login, repoName, 1)).data.map((l) => l.id), [bug.id], 'issue labels');
  same((await r.issueRemoveLabel(login, repoName, 1, bug.id)).status, 204, 'remove label');
  same((await r.issueGetLabels(login, repoName, 1)).data, [], 'labels after remove');
  await r.issueAddLabel(login, repoName, 1, { labels: [feature.id] });
  same((await r.issueGetLabels(login, repoName, 1)).data.map((l) => l.name), ['feature'], 'labels after add');

  step('pulls: create, list, get, edit, merge');
  const { data: pull } = await r.repoCreatePullRequest(login, repoName, {
    title: 'Fix crash',
    head: 'fix-crash',
    base: 'main',
  });
  same(pull.number, 2, 'pull number');
  const pulls = await r.repoListPullRequests(login, repoName, { state: 'open' });
  same(pulls.headers.get('x-total-count'), '1', 'pulls X-Total-Count');
  same(pulls.data.map((p) => p.number), [2], 'listed pulls');
  const edited = await r.repoEditPullRequest(login, repoName, 2, { title: 'Fix the crash', labels: [bug.id], milestone: v1.id });
  same(edited.status, 201, 'pull edit status');
  same(edited.data.title, 'Fix the crash', 'pull edit');
  same((await r.repoGetPullRequest(login, repoName, 2)).data.labels.map((l) => l.name), ['bug'], 'pull labels');
  await r.repoMergePullRequest(login, repoName, 2, { Do: 'merge' });
  const merged = (await r.repoGetPullRequest(login, repoName, 2)).data;
  check(merged.merged && merged.state === 'closed', 'pull merged');
  same((await r.repoListPullRequests(login, repoName, { state: 'closed' })).data.map((p) => p.number), [2], 'closed pulls');

  step('close the issue; milestone counts follow');
  await r.issueEditIssue(login, repoName, 1, { state: 'closed' });
  const ms = (await r.issueGetMilestone(login, repoName, String(v1.id))).data;
  same([ms.open_issues, ms.closed_issues], [0, 2], 'milestone counts');

  step('search across repositories');
  const found = await r.issueSearchIssues({ state: 'all', type: 'issues', owner: login });
  same(found.data.map((i) => i.number), [1], 'search');

  step('hooks: create, list, get, edit, test, delete');
  const hookBody = {
    type: 'gitea',
    // The test instance allows loopback targets; the test delivery sent
    // here finds nothing listening.
    config: { url: 'http://127.0.0.1:9/gitea-js', content_type: 'json', secret: 'flow-secret' },
    events: ['issues', 'pull_request'],
    authorization_header: 'Bearer flow-header',
    active: true,
  };
  const made = await r.repoCreateHook(login, repoName, hookBody);
  same(made.status, 201, 'hook create status');
  const hook = made.data;
  same([hook.type, hook.active, hook.config], ['gitea', true, { content_type: 'json', url: hookBody.config.url }], 'created hook');
  same(hook.authorization_header, '******', 'authorization_header redacted');
  check(hook.events.includes('issue_comment') && hook.events.includes('pull_request_review_approved'), `hook events ${hook.events}`);
  const hookList = await r.repoListHooks(login, repoName);
  same(hookList.headers.get('x-total-count'), '1', 'hooks X-Total-Count');
  same(hookList.data.map((h) => h.id), [hook.id], 'listed hooks');
  same((await r.repoGetHook(login, repoName, hook.id)).data, hook, 'hook read back');
  const hookEdited = await r.repoEditHook(login, repoName, hook.id, { active: false, events: ['issue_comment'] });
  same([hookEdited.data.active, hookEdited.data.events], [false, ['issue_comment']], 'hook edit');
  check(!JSON.stringify([made.data, hookList.data, hookEdited.data]).includes('flow-'), 'no hook secret shown');
  // Sent even to an inactive hook, as in Gitea.
  same((await r.repoTestHook(login, repoName, hook.id)).status, 204, 'hook test');
  same((await r.repoDeleteHook(login, repoName, hook.id)).status, 204, 'hook delete');
  same((await r.repoListHooks(login, repoName)).data, [], 'no hooks left');

  step('delete the repository');
  same((await r.repoDelete(login, repoName)).status, 204, 'repo delete');
}

try {
  await flow();
  console.log(`gitea flow: ${calls.length} steps passed`);
} catch (e) {
  // gitea-js throws the failed Response, with the parsed body in `error`.
  const detail = e instanceof Response ? `${e.status} ${e.url} ${JSON.stringify(e.error)}` : e.stack;
  console.error(`gitea flow failed at "${calls.at(-1)}": ${detail}`);
  process.exit(1);
}
