// The TypeScript MCP SDK's Streamable HTTP client in a real browser against examples/server,
// without and with authorization, from an allowed origin and from a foreign one.
//
//   node serve/browser/run.mjs SERVER_BINARY CHROMIUM
//
// SERVER_BINARY is the built examples/server, CHROMIUM Debian's chromium. The script bundles
// page/client.js with esbuild, starts oidc-provider (serve/auth/provider.mjs), examples/server
// twice on loopback (without authorization, and with --auth-issuer), and a page server on a
// third loopback port. Headless Chromium opens the page twice:
//   - at http://127.0.0.1:<page port>/ : another loopback origin than the servers', which they
//     allow (loopback origins, any port): every step must succeed, `whoami` must name the
//     browser's OAuth client, and the connection without a token must fail;
//   - at http://foreign.test:<page port>/ : the same page from a foreign origin (Chromium's
//     --host-resolver-rules maps the name to 127.0.0.1, so nothing leaves the machine): the
//     servers answer 403 without CORS headers, so every step must fail.
// The page writes its results into its DOM and console and POSTs them to /result; the script
// checks them, prints one line per check and `browser: N passed, M failed`, and exits non-zero
// on any failure. Everything is bounded: 60 s per page, 150 s in all. BROWSER_DEBUG=1 prints
// what each page reported.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const [serverBinary, chromium] = process.argv.slice(2);
if (!serverBinary || !chromium) {
  console.error('usage: node serve/browser/run.mjs SERVER_BINARY CHROMIUM');
  process.exit(2);
}
// The OAuth client of the page (serve/auth/provider.mjs): client_credentials, profile:read.
const CLIENT = ['toolmodel-browser', 'browser-secret'];
const children = [];
const overall = setTimeout(() => fail('the run took longer than 150 s'), 150_000);

function fail(why) {
  console.error(`browser: ${why}`);
  stop();
  process.exit(1);
}

function stop() {
  clearTimeout(overall);
  for (const child of children) kill(child);
}

// Kills `child` and, when it leads a process group of its own (Chromium: its renderer, GPU and
// crash handler processes), the whole group.
function kill(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

// Starts `command` and resolves with the first match of `pattern` in its `stream` lines.
function start(command, args, stream, pattern) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command}: no ${pattern} within 30 s`)), 30_000);
    child.on('exit', (code) => reject(new Error(`${command} exited (${code})`)));
    readline.createInterface({ input: child[stream] }).on('line', (line) => {
      const match = line.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    // The other stream is drained, so the child never blocks on a full pipe.
    child[stream === 'stdout' ? 'stderr' : 'stdout'].resume();
  });
}

// A free loopback port (bound, read, released).
function freePort() {
  return new Promise((resolve) => {
    const probe = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const bundle = await build({
  entryPoints: [path.join(here, 'page/client.js')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'chrome120',
  write: false,
  logLevel: 'error',
});
const script = bundle.outputFiles[0].contents;
const html = readFileSync(path.join(here, 'page/index.html'));

const issuer = await start('node', [path.join(here, '../auth/provider.mjs')], 'stdout', /^ISSUER (\S+)/);
const open = await start(serverBinary, ['--http', '127.0.0.1:0'], 'stderr', /^listening on (\S+)/);
const guardedPort = await freePort();
const guarded = await start(
  serverBinary,
  ['--http', `127.0.0.1:${guardedPort}`, '--auth-issuer', issuer],
  'stderr',
  /^listening on (\S+)/,
);

// The page server: the page, its bundle, and POST /result (one waiter per page load).
let delivered = null;
const pages = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/result') {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      res.writeHead(204).end();
      delivered?.(body);
    });
    return;
  }
  const url = new URL(req.url, 'http://page');
  if (url.pathname === '/client.js') {
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
  } else if (url.pathname === '/') {
    res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  } else {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => pages.listen(0, '127.0.0.1', resolve));
const pagePort = pages.address().port;

// The results of the page at `origin`, opened in a fresh headless Chromium.
async function visit(origin) {
  const query = new URLSearchParams({ open, guarded, client: CLIENT[0], secret: CLIENT[1] });
  const profile = mkdtempSync(path.join(tmpdir(), 'toolmodel-chromium-'));
  const browser = spawn(chromium, [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-extensions', '--disable-background-networking',
    `--user-data-dir=${profile}`,
    '--host-resolver-rules=MAP foreign.test 127.0.0.1',
    // A remote-debugging port keeps the new headless mode running until it is killed.
    '--remote-debugging-port=0',
    `${origin}/?${query}`,
  ], { stdio: 'ignore', detached: true });
  children.push(browser);
  try {
    const body = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no result from ${origin} within 60 s`)), 60_000);
      browser.on('exit', (code) => reject(new Error(`chromium exited (${code}) before ${origin} reported`)));
      delivered = (text) => {
        clearTimeout(timer);
        resolve(text);
      };
    });
    if (process.env.BROWSER_DEBUG) console.error(body);
    return JSON.parse(body);
  } finally {
    delivered = null;
    const exited = new Promise((resolve) => {
      if (browser.exitCode !== null || browser.signalCode !== null) resolve();
      else browser.once('exit', resolve);
    });
    kill(browser);
    await exited;
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    } catch (error) {
      // A leftover profile in the temporary directory is not the page's result.
      console.error(`notice: ${profile} not removed: ${error.message}`);
    }
  }
}

// The status and headers of an empty JSON-RPC POST to `url` with `headers`.
function post(url, headers) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    }, (res) => {
      res.resume();
      resolve({ status: res.statusCode, headers: res.headers });
    });
    request.on('error', reject);
    request.end('{}');
  });
}

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok ? '' : `: ${JSON.stringify(detail)}`}`);
}

// The guide's JavaScript block (toolmodel-rmcp/src/guide/public.md) is the page's own code:
// its lines, indentation aside, appear in page/client.js in the same order, one after another.
const lines = (text) => text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
const guide = readFileSync(path.join(here, '../../toolmodel-rmcp/src/guide/public.md'), 'utf8');
const page = lines(readFileSync(path.join(here, 'page/client.js'), 'utf8'));
const blocks = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => lines(match[1]));
check('the guide\'s JavaScript is the page\'s code', blocks.length > 0 && blocks.every((block) =>
  page.some((_, at) => block.every((line, i) => page[at + i] === line))), blocks);

try {
  const allowed = await visit(`http://127.0.0.1:${pagePort}`);
  check('a loopback page lists the tools of a server without authorization',
    allowed.open?.ok && allowed.open.value.tools.includes('ping'), allowed.open);
  check('a loopback page calls `ping`', allowed.open?.ok && /pong/i.test(allowed.open.value.ping), allowed.open);
  check('a loopback page without a token is refused by the protected server (401)',
    allowed.guardedWithoutToken && !allowed.guardedWithoutToken.ok
      && /401|unauthorized/i.test(allowed.guardedWithoutToken.error), allowed.guardedWithoutToken);
  check('a loopback page discovers the issuer, gets a client_credentials token and lists the tools',
    allowed.guardedWithToken?.ok && allowed.guardedWithToken.value.tools.includes('whoami'), allowed.guardedWithToken);
  check('`whoami` names the page\'s OAuth client and scope',
    allowed.guardedWithToken?.ok && allowed.guardedWithToken.value.whoami.includes(`client ${CLIENT[0]}`)
      && allowed.guardedWithToken.value.whoami.includes('profile:read'), allowed.guardedWithToken);

  const foreign = await visit(`http://foreign.test:${pagePort}`);
  check('the page ran on the foreign origin', foreign.origin === `http://foreign.test:${pagePort}`, foreign);
  for (const step of ['open', 'guardedWithoutToken', 'guardedWithToken']) {
    check(`a foreign page is refused (${step}): the browser hides the response`,
      foreign[step] && !foreign[step].ok && /TypeError: Failed to fetch/.test(foreign[step].error), foreign[step]);
  }
  // What the browser hid: the server's own answer to that origin.
  const refusal = await post(open, { origin: `http://foreign.test:${pagePort}` });
  check('the server answers the foreign origin 403 without Access-Control-Allow-Origin',
    refusal.status === 403 && refusal.headers['access-control-allow-origin'] === undefined, refusal);
} catch (err) {
  fail(err.message);
}
stop();
pages.close();
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
