// An AI agent's deploy flow against this API, through the MCP server
// @masonator/coolify-mcp (npm, pinned in package-lock.json), run as
// published and spoken to over its stdio transport as an MCP host would:
// initialize, tools/list, tools/call. Its tools under test: `env_vars`
// (create, list, update, bulk_update, delete, a reveal), `deploy` with
// `wait`, and `control` (start, stop, restart of an application), plus
// `deployment` (list_for_app) to follow what they queued.
//
// Setup that an MCP host never does (a user, tokens, a server, a project,
// an application, runner credentials) goes through plain HTTP first. The
// deployments are carried out by the reference runner (tools/runner) in
// its claim loop, with the stand-in docker (tools/runner/tests/fake/docker)
// recording what it was asked to do; the flow stops it at the end. Every
// tool result, and what the API and the stand-in saw, is checked, so a
// wrong status, shape or value fails the run.
//
// Environment: API_URL (http://127.0.0.1:port), BOOTSTRAP_ADMIN_TOKEN;
// optional COOLIFY_MCP (the server's dist/index.js; default: under
// .local/clients), RUNNER_BIN (default: target/debug/runner), FAKE_DOCKER.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const root = process.env.API_URL.replace(/\/+$/, '');
const ADMIN = process.env.BOOTSTRAP_ADMIN_TOKEN;
const MCP_ENTRY =
  process.env.COOLIFY_MCP ?? join(repo, '.local/clients/node_modules/@masonator/coolify-mcp/dist/index.js');
const RUNNER_BIN = process.env.RUNNER_BIN ?? join(repo, process.env.CARGO_TARGET_DIR ?? 'target', 'debug/runner');
const FAKE_DOCKER = process.env.FAKE_DOCKER ?? join(repo, 'tools/runner/tests/fake/docker');
const LOOPBACK = { NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' };

const calls = [];
const step = (name) => {
  calls.push(name);
  console.log(`  coolify-mcp flow: ${name}`);
};
const check = (cond, what) => {
  if (!cond) throw new Error(`check failed: ${what}`);
};
const same = (got, want, what) =>
  check(JSON.stringify(got) === JSON.stringify(want), `${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------
// Plain HTTP, for the setup and the cross-checks.

async function http(method, path, { token, basic, body } = {}) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (basic) headers.authorization = 'Basic ' + Buffer.from(basic.join(':')).toString('base64');
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${root}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let parsed = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  return { status: r.status, body: parsed };
}

async function expect(status, method, path, opts) {
  const r = await http(method, path, opts);
  check(r.status === status, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}, want ${status}`);
  return r.body;
}

// ---------------------------------------------------------------------------
// A minimal MCP host: one server process, newline-delimited JSON-RPC 2.0 on
// its stdin and stdout (the stdio transport), stderr kept for failures.

class McpSession {
  constructor(label, token) {
    this.label = label;
    this.nextId = 1;
    this.pending = new Map();
    this.stderr = '';
    this.notifications = [];
    this.child = spawn(process.execPath, [MCP_ENTRY], {
      // Only what the server needs: no COOLIFY_INSTANCES or proxy from outside.
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME ?? tmpdir(),
        COOLIFY_BASE_URL: root,
        COOLIFY_ACCESS_TOKEN: token,
        ...LOOPBACK,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (d) => (this.stderr += d));
    this.exited = new Promise((done) =>
      this.child.on('exit', (code, signal) => {
        for (const { reject } of this.pending.values())
          reject(new Error(`${label}: server exited (${code ?? signal}); stderr: ${this.stderr}`));
        this.pending.clear();
        done(code ?? signal);
      }),
    );
    createInterface({ input: this.child.stdout }).on('line', (line) => this.receive(line));
  }

  receive(line) {
    if (!line.trim()) return;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.stderr += `(not JSON on stdout) ${line}\n`;
      return;
    }
    if (msg.id !== undefined && msg.method === undefined) {
      const waiter = this.pending.get(msg.id);
      if (!waiter) return;
      this.pending.delete(msg.id);
      if (msg.error) waiter.reject(new Error(`${waiter.method}: JSON-RPC error ${JSON.stringify(msg.error)}`));
      else waiter.resolve(msg.result);
    } else if (msg.id !== undefined) {
      // A request from the server (sampling, elicitation, roots): this host offers none.
      this.write({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'not offered by this host' } });
    } else {
      this.notifications.push(msg);
    }
  }

  write(msg) {
    this.child.stdin.write(JSON.stringify(msg) + '\n');
  }

  request(method, params, timeoutMs = 30_000) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.label}: ${method} unanswered after ${timeoutMs} ms; stderr: ${this.stderr}`));
      }, timeoutMs);
      this.pending.set(id, {
        method,
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  async initialize() {
    const init = await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'client-flows', version: '1.0.0' },
    });
    this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return init;
  }

  /** A tool's answer: its text content, with isError. */
  async call(name, args, timeoutMs) {
    const r = await this.request('tools/call', { name, arguments: args }, timeoutMs);
    check(Array.isArray(r.content) && r.content.length > 0, `${name}: content ${JSON.stringify(r)}`);
    check(r.content.every((c) => c.type === 'text'), `${name}: text content`);
    return { text: r.content.map((c) => c.text).join(''), isError: r.isError === true };
  }

  /** A tool call that must succeed: its JSON answer. */
  async ok(name, args, timeoutMs) {
    const { text, isError } = await this.call(name, args, timeoutMs);
    check(!isError && !text.startsWith('Error'), `${name} ${JSON.stringify(args)} failed: ${text}`);
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${name}: not JSON: ${text}`);
    }
  }

  /** A tool call that must fail, with a message matching `pattern`. */
  async fails(name, args, pattern) {
    const { text } = await this.call(name, args);
    check(text.startsWith('Error'), `${name} ${JSON.stringify(args)} should have failed: ${text}`);
    check(pattern.test(text), `${name}: error ${JSON.stringify(text)} does not match ${pattern}`);
    return text;
  }

  async close() {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGTERM'), 3000);
    await this.exited;
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------

const cleanups = [];
let runnerLog = () => '';

async function flow() {
  check(/^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(root), `API_URL must be loopback: ${root}`);
  check(existsSync(MCP_ENTRY), `coolify-mcp not installed at ${MCP_ENTRY}`);
  check(existsSync(RUNNER_BIN), `no runner binary at ${RUNNER_BIN} (cargo build -p runner)`);

  step('setup over HTTP: a user, a root token, a key, a server, a project, an application');
  const name = `mcp${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  await expect(201, 'POST', '/api/v1/admin/users', {
    token: ADMIN,
    body: { username: name, email: `${name}@example.com`, password },
  });
  const tokenWith = async (scopes) =>
    (
      await expect(201, 'POST', `/api/v1/users/${name}/tokens`, {
        basic: [name, password],
        body: { name: `mcp-${scopes.join('-').replace(/:/g, '_')}`, scopes },
      })
    ).sha1;
  const rootToken = await tokenWith(['root']);
  const as = (method, path, body) => http(method, `/api/v1${path}`, { token: rootToken, body });
  const pem = `-----BEGIN OPENSSH PRIVATE KEY-----\n${randomBytes(96).toString('base64')}\n-----END OPENSSH PRIVATE KEY-----\n`;
  const made = async (path, body) => {
    const r = await as('POST', path, body);
    check(r.status === 201 && typeof r.body?.uuid === 'string', `POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.uuid;
  };
  const key = await made('/security/keys', { name: 'mcp', private_key: pem });
  const server = await made('/servers', { name: 'mcp-box', ip: '203.0.113.9', port: 22, user: 'root', private_key_uuid: key });
  const project = await made('/projects', { name: 'mcp-shop' });
  const app = await made('/applications/dockerimage', {
    project_uuid: project,
    server_uuid: server,
    environment_name: 'production',
    docker_registry_image_name: 'nginx',
    docker_registry_image_tag: '1.27',
    ports_exposes: '80',
    name: 'mcp-web',
  });
  cleanups.push(async () => {
    await as('DELETE', `/applications/${app}`);
  });
  // What an agent is typically given: it may read, write and deploy, but
  // not read secrets back.
  const agentToken = await tokenWith(['read', 'write', 'deploy']);

  step('MCP: initialize, tools/list');
  const mcp = new McpSession('coolify-mcp', agentToken);
  cleanups.push(() => mcp.close());
  const init = await mcp.initialize();
  same(init.serverInfo?.name, 'coolify', 'serverInfo.name');
  same(init.protocolVersion, '2025-06-18', 'negotiated protocol version');
  check(init.capabilities?.tools, 'tools capability');
  const tools = new Map((await mcp.request('tools/list', {})).tools.map((t) => [t.name, t]));
  for (const t of ['env_vars', 'deploy', 'control', 'deployment'])
    check(tools.has(t), `tool ${t} listed (have ${[...tools.keys()].join(', ')})`);
  const props = (t) => tools.get(t).inputSchema.properties;
  same(props('env_vars').action.enum, ['list', 'create', 'update', 'delete', 'bulk_update'], 'env_vars actions');
  same(props('control').action.enum, ['start', 'stop', 'restart'], 'control actions');
  check(props('deploy').wait && props('deploy').tag_or_uuid, 'deploy takes tag_or_uuid and wait');

  step('environments verify_app and get, teams: Coolify\'s numeric ids, /databases, /resources, /team');
  // verify_app matches the application's environment_id to the
  // environment's id (GET /applications/{uuid}, GET /projects/{uuid}/{name}).
  const verified = await mcp.ok('environments', {
    action: 'verify_app',
    project_uuid: project,
    name: 'production',
    application_uuid: app,
  });
  same([verified.verified, verified.application_uuid, verified.environment.name], [true, app, 'production'], 'verify_app');
  check(Number.isSafeInteger(verified.environment.id) && verified.environment.id >= 1, `environment id: ${JSON.stringify(verified)}`);
  // get awaits GET /databases with the environment (and GET /resources).
  const production = await mcp.ok('environments', { action: 'get', project_uuid: project, name: 'production' });
  same([production.id, production.name], [verified.environment.id, 'production'], 'environments get');
  const team = await mcp.ok('teams', { action: 'get_current' });
  same([team.name, team.personal_team], [name, true], 'the token\'s team');
  same(await mcp.ok('teams', { action: 'get', id: team.id }), team, 'the team by its id');
  const members = await mcp.ok('teams', { action: 'get_current_members' });
  same(members.map((m) => m.name), [name], 'the team\'s members');

  step('env_vars: create (POST /applications/{uuid}/envs)');
  const env = (args) => ({ resource: 'application', uuid: app, ...args });
  const apiKey = await mcp.ok('env_vars', env({ action: 'create', key: 'API_KEY', value: 'key-one-11', is_buildtime: false }));
  check(typeof apiKey.uuid === 'string', `create answers {uuid}: ${JSON.stringify(apiKey)}`);
  const dbUrl = await mcp.ok('env_vars', env({ action: 'create', key: 'DB_URL', value: 'postgres://db-two-22' }));
  check(typeof dbUrl.uuid === 'string' && dbUrl.uuid !== apiKey.uuid, 'second variable, own uuid');
  const previewKey = await mcp.ok(
    'env_vars',
    env({ action: 'create', key: 'API_KEY', value: 'key-preview-33', is_preview: true }),
  );
  check(previewKey.uuid !== apiKey.uuid, 'the preview scope is a variable of its own');

  step('env_vars: a taken key is refused (409)');
  await mcp.fails('env_vars', env({ action: 'create', key: 'API_KEY', value: 'again' }), /already exists/);

  step('env_vars: list, values masked by the client');
  const listed = await mcp.ok('env_vars', env({ action: 'list' }));
  check(Array.isArray(listed), `list is an array: ${JSON.stringify(listed)}`);
  same(
    listed.map((v) => [v.key, v.is_preview, v.uuid]).sort(),
    [
      ['API_KEY', false, apiKey.uuid],
      ['API_KEY', true, previewKey.uuid],
      ['DB_URL', false, dbUrl.uuid],
    ].sort(),
    'listed variables',
  );
  same(
    listed.find((v) => v.uuid === apiKey.uuid),
    { uuid: apiKey.uuid, key: 'API_KEY', value: '***', is_buildtime: false, is_runtime: true, is_preview: false },
    'API_KEY as listed',
  );

  step('env_vars: update by key and scope (PATCH /applications/{uuid}/envs)');
  const updated = await mcp.ok('env_vars', env({ action: 'update', key: 'API_KEY', value: 'key-rotated-44' }));
  same([updated.uuid, updated.key, updated.is_preview], [apiKey.uuid, 'API_KEY', false], 'updated variable');
  check(updated.value === undefined, `no value shown to a token without read:sensitive: ${JSON.stringify(updated)}`);

  step('env_vars: bulk_update (PATCH /applications/{uuid}/envs/bulk)');
  const bulk = await mcp.ok(
    'env_vars',
    env({
      action: 'bulk_update',
      data: [
        { key: 'LOG_LEVEL', value: 'debug-55', is_buildtime: false },
        { key: 'DB_URL', value: 'postgres://db-bulk-66' },
      ],
    }),
  );
  check(Array.isArray(bulk), `bulk answers the variables: ${JSON.stringify(bulk)}`);
  same(bulk.map((v) => v.key).sort(), ['DB_URL', 'LOG_LEVEL'], 'bulk keys');
  same(bulk.find((v) => v.key === 'DB_URL').uuid, dbUrl.uuid, 'bulk updates DB_URL in place');

  step('env_vars: delete (DELETE /applications/{uuid}/envs/{env_uuid})');
  const deleted = await mcp.ok('env_vars', env({ action: 'delete', env_uuid: previewKey.uuid }));
  check(typeof deleted.message === 'string', `delete message: ${JSON.stringify(deleted)}`);
  await mcp.fails('env_vars', env({ action: 'delete', env_uuid: previewKey.uuid }), /not found/i);

  step('env_vars: reveal refused without read:sensitive');
  await mcp.fails(
    'env_vars',
    env({ action: 'list', key: 'API_KEY', reveal: true }),
    /did not return the requested environment variable value/,
  );

  step('cross-check over HTTP with the root token: values sealed and shown back');
  const stored = await expect(200, 'GET', `/api/v1/applications/${app}/envs`, { token: rootToken });
  same(
    stored.map((v) => [v.key, v.is_preview, v.value, v.is_runtime, v.is_buildtime]).sort(),
    [
      ['API_KEY', false, 'key-rotated-44', true, false],
      ['DB_URL', false, 'postgres://db-bulk-66', true, true],
      ['LOG_LEVEL', false, 'debug-55', true, false],
    ],
    'stored variables',
  );
  const secrets = ['key-one-11', 'postgres://db-two-22', 'key-preview-33', 'key-rotated-44', 'debug-55', 'postgres://db-bulk-66'];

  step('a second MCP session with read + read:sensitive: reveal works, writes and deploys are refused');
  const reader = new McpSession('coolify-mcp (reader)', await tokenWith(['read', 'read:sensitive']));
  cleanups.push(() => reader.close());
  await reader.initialize();
  const revealed = await reader.ok('env_vars', env({ action: 'list', key: 'API_KEY', reveal: true }));
  same(revealed.map((v) => [v.key, v.value]), [['API_KEY', 'key-rotated-44']], 'revealed value');
  await reader.fails('env_vars', env({ action: 'create', key: 'NOPE', value: 'nope-77' }), /COOLIFY_ACCESS_TOKEN/);
  await reader.fails('deploy', { tag_or_uuid: app }, /COOLIFY_ACCESS_TOKEN/);
  await reader.fails('control', { resource: 'application', action: 'stop', uuid: app }, /COOLIFY_ACCESS_TOKEN/);
  await reader.close();

  step('runner credentials (POST /servers/{uuid}/runners); the runner starts its claim loop');
  const cred = await expect(201, 'POST', `/api/v1/servers/${server}/runners`, {
    token: rootToken,
    body: { name: 'mcp-flow' },
  });
  check(/^runner_[0-9a-f]{64}$/.test(cred.token ?? ''), `runner token shape: ${JSON.stringify(Object.keys(cred))}`);
  const work = mkdtempSync(join(tmpdir(), 'coolify-mcp-flow-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const tokenFile = join(work, 'runner-token');
  writeFileSync(tokenFile, cred.token, { mode: 0o600 });
  mkdirSync(join(work, 'jobs'));
  const dockerLog = join(work, 'docker.log');
  let runnerErr = '';
  runnerLog = () => runnerErr;
  const runner = spawn(
    RUNNER_BIN,
    ['--api', root, '--token-file', tokenFile, '--work-dir', join(work, 'jobs'), '--docker', FAKE_DOCKER],
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME ?? work, FAKE_DOCKER_LOG: dockerLog, ...LOOPBACK },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  runner.stderr.on('data', (d) => (runnerErr += d));
  let runnerExit = null;
  const runnerExited = new Promise((done) => runner.on('exit', (code, signal) => done((runnerExit = code ?? signal))));
  const stopRunner = async () => {
    if (runnerExit === null) runner.kill('SIGTERM');
    await runnerExited;
  };
  cleanups.push(stopRunner);

  step('deploy with wait (POST /deploy?uuid=…, then GET /deployments/{uuid} until it ends)');
  const started = Date.now();
  const deployed = await mcp.ok('deploy', { tag_or_uuid: app, wait: true, timeout_seconds: 60 }, 90_000);
  const d = deployed.data;
  check(d && typeof d.deployment_uuid === 'string', `deploy answer: ${JSON.stringify(deployed)}`);
  same([d.status, d.application_uuid, d.timed_out], ['finished', app, undefined], 'deploy ends finished');
  check(runnerExit === null, `runner still running (exited ${runnerExit}): ${runnerErr}`);
  console.log(`    deployed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const dep = await expect(200, 'GET', `/api/v1/deployments/${d.deployment_uuid}`, { token: rootToken });
  same([dep.status, dep.application_uuid], ['finished', app], 'deployment as the API shows it');
  check(typeof dep.logs === 'string', `deployment logs are Coolify's JSON text: ${typeof dep.logs}`);
  const lines = JSON.parse(dep.logs);
  check(Array.isArray(lines) && lines.length > 0, 'the runner sent log lines');
  check(
    lines.some((l) => /docker pull nginx:1\.27/.test(l.output)),
    `logs show the pull: ${JSON.stringify(lines.map((l) => l.output))}`,
  );

  step('control: start, stop, restart (POST /applications/{uuid}/start|stop|restart)');
  const ctl = (action) => mcp.ok('control', { resource: 'application', action, uuid: app });
  const start = (await ctl('start')).data;
  same(start.message, 'Deployment request queued.', 'start message');
  check(typeof start.deployment_uuid === 'string', `start deployment_uuid: ${JSON.stringify(start)}`);
  const stop = (await ctl('stop')).data;
  check(typeof stop.message === 'string' && /stop/i.test(stop.message), `stop message: ${JSON.stringify(stop)}`);
  const restart = (await ctl('restart')).data;
  same(restart.message, 'Restart request queued.', 'restart message');
  check(typeof restart.deployment_uuid === 'string', `restart deployment_uuid: ${JSON.stringify(restart)}`);
  check(new Set([d.deployment_uuid, start.deployment_uuid, restart.deployment_uuid]).size === 3, 'distinct deployments');

  // Coolify lists no stop among deployments: three are listed, and the
  // stand-in docker's record below shows the runner carried out the stop.
  step('deployment list_for_app (GET /deployments/applications/{uuid}) until the runner has done all three');
  const terminal = new Set(['finished', 'failed', 'cancelled', 'cancelled-by-user']);
  let listedDeps;
  for (const until = Date.now() + 45_000; ; ) {
    listedDeps = await mcp.ok('deployment', { action: 'list_for_app', uuid: app });
    const all = listedDeps.deployments ?? [];
    if (all.length === 3 && all.every((x) => terminal.has(x.status))) break;
    check(Date.now() < until, `deployments not done after 45 s: ${JSON.stringify(listedDeps)}; runner: ${runnerErr}`);
    await sleep(1000);
  }
  same(listedDeps.count, 3, 'count of {count, deployments}');
  same(
    listedDeps.deployments.map((x) => x.status),
    ['finished', 'finished', 'finished'],
    'every deployment finished',
  );
  const uuids = new Set(listedDeps.deployments.map((x) => x.deployment_uuid));
  for (const u of [d.deployment_uuid, start.deployment_uuid, restart.deployment_uuid])
    check(uuids.has(u), `deployment ${u} listed for the application`);
  check(listedDeps.deployments.every((x) => x.application_uuid === app), 'all of this application');

  step('logs (GET /applications/{uuid}/logs): 503 until the runner answered, then the container\'s last lines');
  // The first read files an ask for the server's runner, which its next
  // claim picks up; the API masks what it sends.
  const asked = await mcp.call('logs', { resource: 'application', uuid: app, lines: 5 });
  check(asked.isError || asked.text.startsWith('Error'), `the first read waits for the runner: ${asked.text}`);
  check(/runner/.test(asked.text), `it says why: ${asked.text}`);
  let containerLogs;
  for (const until = Date.now() + 45_000; ; ) {
    const r = await mcp.call('logs', { resource: 'application', uuid: app, lines: 5 });
    if (!r.isError && !r.text.startsWith('Error')) {
      containerLogs = r.text;
      break;
    }
    check(Date.now() < until, `no logs after 45 s: ${r.text}; runner: ${runnerErr}`);
    await sleep(1000);
  }
  check(containerLogs.includes('fake docker logs: step output'), `the container's lines: ${containerLogs}`);

  step('the runner stops; what the stand-in docker was asked to do');
  await stopRunner();
  const record = readFileSync(dockerLog, 'utf8');
  const invocations = record
    .split('\n')
    .filter((l) => l.startsWith('args\t'))
    .map((l) => l.split('\t').slice(1));
  // The log ask's probe and tail, apart from the deployments' steps.
  same(
    invocations.filter((a) => a[0] === 'inspect' || a[0] === 'logs').map((a) => a.join(' ')),
    [`inspect --format {{.State.Running}} ${app}`, `logs --tail 5 ${app}`],
    'the log ask\'s docker calls',
  );
  const verbs = invocations
    .filter((a) => a[0] !== 'inspect' && a[0] !== 'logs')
    .map((a) => (a[0] === 'rm' ? 'rm' : `${a[0]} ${a.at(-1)}`));
  same(
    verbs,
    [
      'pull nginx:1.27', 'rm', 'run nginx:1.27', // deploy
      'pull nginx:1.27', 'rm', 'run nginx:1.27', // start
      `stop ${app}`,
      `restart ${app}`,
    ],
    'docker steps in order',
  );
  for (const run of invocations.filter((a) => a[0] === 'run')) {
    check(run.includes('--env-file'), `run passes an env file: ${run.join(' ')}`);
    same(run[run.indexOf('--name') + 1], app, 'container named after the application');
    check(
      run.some((a) => /^traefik\.http\.services\.[^=]+\.loadbalancer\.server\.port=80$/.test(a)),
      `run labels the exposed port for Traefik: ${run.join(' ')}`,
    );
  }
  same(record.split('\n').filter((l) => l.startsWith('envfile-mode:')), ['envfile-mode:600', 'envfile-mode:600'], 'env file modes');
  // Each run's env file held the three runtime variables, with values.
  same(
    record.split('\n').filter((l) => l.startsWith('envfile:')).sort(),
    [
      'envfile:API_KEY=set', 'envfile:API_KEY=set',
      'envfile:DB_URL=set', 'envfile:DB_URL=set',
      'envfile:LOG_LEVEL=set', 'envfile:LOG_LEVEL=set',
    ],
    'env file keys',
  );

  step('no secret value in any docker argument or deployment log');
  const logs = [];
  for (const u of uuids) {
    const one = await expect(200, 'GET', `/api/v1/deployments/${u}`, { token: rootToken });
    logs.push(one.logs ?? '');
  }
  for (const s of secrets) {
    check(!record.includes(s), `secret ${s} in the docker record`);
    check(!logs.some((l) => l.includes(s)), `secret ${s} in a deployment log`);
  }

  step('get_infrastructure_overview, server_resources, server_domains, validate_server');
  const overview = await mcp.ok('get_infrastructure_overview', {});
  check(overview.errors === undefined, `overview without errors: ${JSON.stringify(overview.errors)}`);
  check(overview.summary.applications >= 1 && overview.summary.servers >= 1, `overview counts: ${JSON.stringify(overview.summary)}`);
  same([overview.summary.databases, overview.summary.services], [0, 0], 'no databases or services');
  check(overview.applications.some((a) => a.uuid === app), 'the application in the overview');
  const onServer = await mcp.ok('server_resources', { uuid: server });
  same(onServer.map((r) => [r.uuid, r.type]), [[app, 'application']], 'the server\'s resources');
  check(Number.isSafeInteger(onServer[0].id), `resource id: ${JSON.stringify(onServer[0])}`);
  const domains = await mcp.ok('server_domains', { uuid: server });
  same(domains.map((d) => d.ip), ['203.0.113.9'], 'the server\'s address');
  const validated = await mcp.ok('validate_server', { uuid: server });
  same(validated.is_reachable, true, `validated from the runner's calls: ${JSON.stringify(validated)}`);

  step('restart_project_apps and redeploy_project: each finds the project\'s application by environment id');
  const restarted = await mcp.ok('restart_project_apps', { project_uuid: project });
  same(restarted.summary, { total: 1, succeeded: 1, failed: 0 }, `restart_project_apps: ${JSON.stringify(restarted)}`);
  const redeployed = await mcp.ok('redeploy_project', { project_uuid: project });
  same(redeployed.summary, { total: 1, succeeded: 1, failed: 0 }, `redeploy_project: ${JSON.stringify(redeployed)}`);
  const queued = await mcp.ok('deployment', { action: 'list_for_app', uuid: app });
  same(queued.count, 5, 'the restart and the redeploy are queued');

  step('clean up: runner credentials revoked; application, server, key and project deleted');
  await expect(200, 'DELETE', `/api/v1/servers/${server}/runners/${cred.uuid}`, { token: rootToken });
  await expect(401, 'POST', '/runner/v1/claim', { token: cred.token });
  await expect(200, 'DELETE', `/api/v1/applications/${app}`, { token: rootToken });
  cleanups.splice(0, 1); // the application is gone
  await expect(200, 'DELETE', `/api/v1/servers/${server}`, { token: rootToken });
  await expect(200, 'DELETE', `/api/v1/security/keys/${key}`, { token: rootToken });
  await expect(200, 'DELETE', `/api/v1/projects/${project}`, { token: rootToken });
  await mcp.close();
}

let failed = false;
const began = Date.now();
try {
  await flow();
} catch (e) {
  failed = true;
  console.error(`coolify-mcp flow failed at "${calls.at(-1)}": ${e.stack}`);
  if (runnerLog()) console.error(`runner's log:\n${runnerLog()}`);
}
for (const undo of cleanups.reverse()) await Promise.resolve().then(undo).catch(() => {});
if (failed) process.exit(1);
console.log(`coolify-mcp flow: ${calls.length} steps passed in ${((Date.now() - began) / 1000).toFixed(1)} s`);
