// The page's MCP client (bundled by run.mjs with esbuild into /client.js): the TypeScript MCP
// SDK's Streamable HTTP client, from this page's origin, against two examples/server
// processes named in the query string:
//   open=URL     a server without authorization: list its tools, call `ping`;
//   guarded=URL  a server with --auth-issuer: a connection without a token must fail with the
//                401 challenge; then the SDK's ClientCredentialsProvider (OAuth client_credentials,
//                the flow a page can run without a person) discovers the authorization server
//                from the 401 (Protected Resource Metadata, RFC 9728; authorization server
//                metadata, RFC 8414 / OpenID discovery), gets a token for the resource (RFC 8707)
//                and the page lists the tools and calls `whoami`;
//   client, secret  the OAuth client of that flow.
// Each step's outcome ({ok, value} or {ok: false, error}) goes into <pre id="results"> as JSON,
// to the console, and to POST /result on this page's origin, where run.mjs reads it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';

const query = new URLSearchParams(location.search);

// A connected SDK client of `url` (an `authProvider` when given).
async function connect(url, authProvider) {
  const client = new Client({ name: 'toolmodel-browser-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), authProvider ? { authProvider } : {});
  await client.connect(transport);
  return client;
}

// `{ok: true, value}` from `step`, or `{ok: false, error}` with what it threw.
async function outcome(step) {
  try {
    return { ok: true, value: await step() };
  } catch (err) {
    return { ok: false, error: `${err?.name}: ${err?.message}` };
  }
}

// The text of a CallToolResult's first content block.
const text = (result) => result.content?.[0]?.text ?? JSON.stringify(result);

async function main() {
  const results = { origin: location.origin };
  results.open = await outcome(async () => {
    const client = await connect(query.get('open'));
    const { tools } = await client.listTools();
    const ping = await client.callTool({ name: 'ping', arguments: {} });
    await client.close();
    return { tools: tools.map((tool) => tool.name), ping: text(ping) };
  });
  results.guardedWithoutToken = await outcome(async () => {
    const client = await connect(query.get('guarded'));
    await client.close();
    return 'connected without a token';
  });
  results.guardedWithToken = await outcome(async () => {
    const provider = new ClientCredentialsProvider({
      clientId: query.get('client'),
      clientSecret: query.get('secret'),
      scope: 'profile:read',
    });
    const client = await connect(query.get('guarded'), provider);
    const { tools } = await client.listTools();
    const whoami = await client.callTool({ name: 'whoami', arguments: {} });
    await client.close();
    return { tools: tools.map((tool) => tool.name), whoami: text(whoami) };
  });
  return results;
}

async function report(results) {
  const json = JSON.stringify(results, null, 2);
  document.getElementById('results').textContent = json;
  console.log(`RESULTS ${json}`);
  await fetch('/result', { method: 'POST', body: json });
}

main().then(report, (err) => report({ origin: location.origin, page_error: String(err) }));
