// The report of one conformance line: reads the `checks.json` that
// `@modelcontextprotocol/conformance ... -o DIR` writes for each scenario
// (DIR/server-<scenario>-<timestamp>/checks.json), prints one line per scenario with its checks
// passed and failed and, under it, every failed check (id, name, message), and applies the
// expected-failures list. Run by conformance/run.sh with the Node it installs:
//
//   node report.mjs RESULTS_DIR SCENARIOS_FILE [EXPECTED_FAILURES_FILE]
//
// SCENARIOS_FILE: one scenario a line, "name" or "name kind" (kind: required, extension,
// pending: how the suite scores it). EXPECTED_FAILURES_FILE: one scenario a line, `#` starts a
// comment. Exit status 1 when a scenario not listed as an expected failure has a failed check
// or no result, or when the list names a scenario the line does not run; 0 otherwise.
// CONFORMANCE_STRICT=1 ignores the list (every failure counts).
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [resultsDir, scenariosFile, expectedFile] = process.argv.slice(2);
if (!resultsDir || !scenariosFile) {
  console.error('usage: node report.mjs RESULTS_DIR SCENARIOS_FILE [EXPECTED_FAILURES_FILE]');
  process.exit(2);
}

function lines(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '');
}

const scenarios = lines(scenariosFile).map((line) => {
  const [name, kind = 'required'] = line.split(/\s+/);
  return { name, kind };
});
const strict = process.env.CONFORMANCE_STRICT === '1';
const expected = new Set(expectedFile && !strict ? lines(expectedFile) : []);

// The newest result directory of each scenario.
const dirs = existsSync(resultsDir) ? readdirSync(resultsDir).sort() : [];
function checksOf(name) {
  const pattern = new RegExp(
    `^server-${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d{4}-\\d{2}-\\d{2}T`
  );
  const dir = dirs.filter((d) => pattern.test(d)).pop();
  if (!dir) return undefined;
  try {
    return JSON.parse(readFileSync(join(resultsDir, dir, 'checks.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

// The end of what the suite printed, for a scenario with no result: RESULTS_DIR/<name>.log
// (one run per scenario) or RESULTS_DIR/run.log (one run for all, printed once).
let runLogShown = false;
function printLogTail(name) {
  let log = join(resultsDir, `${name}.log`);
  if (!existsSync(log)) {
    log = join(resultsDir, 'run.log');
    if (runLogShown || !existsSync(log)) return;
    runLogShown = true;
  }
  const text = readFileSync(log, 'utf8').trimEnd().split('\n').slice(-30);
  console.log(`    the suite's output (${log.split('/').pop()}), last ${text.length} lines:`);
  for (const line of text) console.log(`    | ${line}`);
}

const width = Math.max(30, ...scenarios.map((s) => s.name.length + 2));
const pad = (text, n) => String(text).padEnd(n);
const padStart = (text, n) => String(text).padStart(n);
console.log(`${pad('scenario', width)}${padStart('passed', 7)}${padStart('failed', 7)}  set`);

let unexpected = 0;
let totalPassed = 0;
let totalFailed = 0;
let expectedFailed = 0;
const shrink = [];
for (const { name, kind } of scenarios) {
  const checks = checksOf(name);
  const isExpected = expected.has(name);
  const set = kind === 'required' ? '' : kind;
  if (!Array.isArray(checks)) {
    const note = isExpected ? 'no result: expected failure' : 'no result';
    console.log(`${pad(name, width)}${padStart('-', 7)}${padStart('-', 7)}  ${pad(set, 9)} ${note}`);
    if (!isExpected) unexpected++;
    printLogTail(name);
    continue;
  }
  const count = (status) => checks.filter((check) => check.status === status).length;
  const passed = count('SUCCESS');
  const failed = count('FAILURE');
  const others = ['WARNING', 'SKIPPED', 'INFO']
    .map((status) => [status, count(status)])
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status.toLowerCase()}`);
  totalPassed += passed;
  totalFailed += failed;
  let note = others.length > 0 ? `(${others.join(', ')})` : '';
  if (failed > 0 && isExpected) {
    note = `expected failure ${note}`.trim();
    expectedFailed += failed;
  } else if (failed > 0) {
    unexpected++;
  } else if (isExpected) {
    note = `passes: remove it from the expected failures ${note}`.trim();
    shrink.push(name);
  }
  console.log(`${pad(name, width)}${padStart(passed, 7)}${padStart(failed, 7)}  ${pad(set, 9)} ${note}`.trimEnd());
  for (const check of checks.filter((c) => c.status === 'FAILURE')) {
    const message = (check.errorMessage ?? '').replace(/\s+/g, ' ').slice(0, 300);
    console.log(`    ✗ ${check.id} (${check.name}): ${message}`);
  }
}

const known = new Set(scenarios.map((s) => s.name));
for (const name of expected) {
  if (!known.has(name)) {
    console.log(`error: the expected failures name ${name}, which this line does not run`);
    unexpected++;
  }
}
console.log(
  `== ${scenarios.length} scenarios: ${totalPassed} checks passed, ${totalFailed} failed` +
    (expectedFailed > 0 ? ` (${expectedFailed} of them in scenarios expected to fail)` : '') +
    `; ${unexpected} scenario(s) failing unexpectedly`
);
if (shrink.length > 0) {
  console.log(`note: these scenarios pass now; shrink the expected failures: ${shrink.join(' ')}`);
}
process.exit(unexpected > 0 ? 1 : 0);
