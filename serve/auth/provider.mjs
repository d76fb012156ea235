// An OAuth 2.1 authorization server for the authorization tests, bench and browser test:
// oidc-provider (OpenID Certified) on loopback, with a signing key generated at each start,
// the client_credentials grant, resource indicators (RFC 8707) and JWT access tokens
// (RFC 9068), or opaque ones for a resource whose path ends in `/opaque`, read back through
// introspection (RFC 7662).
//
//   node serve/auth/provider.mjs            # prints "ISSUER http://127.0.0.1:<port>" when ready
//   PORT=<port> node serve/auth/provider.mjs  # the same port again (a restart rotates the key)
//
// Clients (secrets are test fixtures, loopback only):
//   toolmodel-test / test-secret      client_credentials, scopes notes:read notes:write
//   toolmodel-other / other-secret    the same, another subject (sessions bound to the user)
//   toolmodel-server / server-secret  the resource server's own client, for introspection
//   toolmodel-browser / browser-secret  client_credentials (client_secret_basic), scope profile:read
//                                       (examples/server's `whoami`), token requests from
//                                       loopback pages allowed (CORS): serve/browser/
//   toolmodel-rmcp / rmcp-secret      client_credentials (client_secret_post), scope profile:read,
//                                     for rmcp's client (auth_discovery, the `public` guide)
//   toolmodel-gateway / gateway-secret  a gateway's own client: client_credentials (its catalog
//                                     token) and token exchange (RFC 8693) of its callers' tokens,
//                                     every scope
//
// Token exchange (RFC 8693 §2.1, grant_type urn:ietf:params:oauth:grant-type:token-exchange), for
// toolmodel-gateway only: the subject_token must be an access token of this issuer (signature,
// exp) whose `aud` a test registered as a gateway's (`POST /gateway-audience`, body: the
// resource); the token issued is a JWT access token (RFC 9068) with the subject's `sub`, `aud` =
// the requested `resource` (or `audience`), `client_id` = the gateway, `act` = {sub: the gateway}
// (RFC 8693 §4.1), the scopes asked for among those the provider knows (invalid_scope for
// another), living 300 s, or 2 s for a resource whose path ends in `/brief`. A resource whose
// path ends in `/refused` is refused (invalid_target). `GET /exchanges` counts the exchanges
// made, by "<sub> <resource>".
//
// With AUTH_CODE_REDIRECT_URI set (a third-party upstream's own authorization server, for the
// gateway's per-user authorization tests): the client toolmodel-upstream / upstream-secret,
// authorization_code with PKCE (S256) to that redirect URI, refresh_token, and client_credentials
// (the gateway's catalog token), scope profile:read. Its login is a form at /interaction/<uid>
// (GET: an HTML form with a `login` field; POST login=<name>: signed in as subject <name>); the
// consent that follows is granted at once (every scope and resource asked for). Refresh tokens
// are issued without offline_access. ACCESS_TOKEN_TTL (seconds, default 300) sets the lifetime of
// the access tokens for resources, REFRESH_TOKEN_TTL (seconds) that of the refresh tokens; with
// ROTATE_REFRESH_TOKENS=1 each refresh token is single-use (`rotateRefreshToken`: one presented
// again is refused, invalid_grant, and its grant revoked, RFC 9700 §4.14.2). `GET /refreshes`
// counts the refresh_token grants, {"granted": n, "refused": n}.
//
// Token requests from a browser (CORS) are allowed for toolmodel-browser from loopback origins
// only (`clientBasedCORS`): a page on a foreign origin cannot get a token.
//
// Beside the provider, `POST /forge` signs the tokens no honest issuer makes, for the tests
// that must see them refused: a JSON body {"key": "issuer" | "rogue" | "none" | "hs256-public",
// "header": {...}, "claims": {...}} gives back the compact JWT, its header and claims merged
// over those of an honest access token (`"claims": {"exp": null}` removes a claim,
// `"header": {"typ": null}` a header parameter).
import crypto from 'node:crypto';
import http from 'node:http';

import Provider, { errors } from 'oidc-provider';

const SCOPES = 'notes:read notes:write';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
// The scope of examples/server's `whoami`.
const PROFILE = 'profile:read';
const port = Number(process.env.PORT || 0);
const server = http.createServer();
await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const signing = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const kid = crypto.randomUUID();
const jwk = { ...signing.privateKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' };
const rogue = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });

// The third-party mode's client (AUTH_CODE_REDIRECT_URI).
const redirectUri = process.env.AUTH_CODE_REDIRECT_URI;
const authCodeClients = redirectUri ? [{
  client_id: 'toolmodel-upstream',
  client_secret: 'upstream-secret',
  grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
  redirect_uris: [redirectUri],
  response_types: ['code'],
  id_token_signed_response_alg: 'ES256',
  scope: PROFILE,
}] : [];

const provider = new Provider(issuer, {
  // REFRESH_TOKEN_TTL (seconds): refresh tokens that expire soon (a refresh then refused).
  ...(process.env.REFRESH_TOKEN_TTL ? { ttl: { RefreshToken: Number(process.env.REFRESH_TOKEN_TTL) } } : {}),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  ...(process.env.ROTATE_REFRESH_TOKENS === '1' ? { rotateRefreshToken: true } : {}),
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  jwks: { keys: [jwk] },
  // An opaque client_credentials token's introspection names the client as its subject, as
  // oidc-provider's JWT access tokens do (RFC 9068 §2.2): resource servers require `sub`.
  extraTokenClaims: async (_ctx, token) => (token.kind === 'ClientCredentials' ? { sub: token.clientId } : undefined),
  clients: [
    {
      client_id: 'toolmodel-test',
      client_secret: 'test-secret',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      id_token_signed_response_alg: 'ES256',
      scope: SCOPES,
    },
    {
      client_id: 'toolmodel-other',
      client_secret: 'other-secret',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      id_token_signed_response_alg: 'ES256',
      scope: SCOPES,
    },
    {
      client_id: 'toolmodel-browser',
      client_secret: 'browser-secret',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      id_token_signed_response_alg: 'ES256',
      token_endpoint_auth_method: 'client_secret_basic',
      scope: PROFILE,
    },
    {
      client_id: 'toolmodel-rmcp',
      client_secret: 'rmcp-secret',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      id_token_signed_response_alg: 'ES256',
      token_endpoint_auth_method: 'client_secret_post',
      scope: PROFILE,
    },
    {
      client_id: 'toolmodel-gateway',
      client_secret: 'gateway-secret',
      grant_types: ['client_credentials', TOKEN_EXCHANGE],
      redirect_uris: [],
      response_types: [],
      id_token_signed_response_alg: 'ES256',
      scope: `${SCOPES} ${PROFILE}`,
    },
    {
      client_id: 'toolmodel-server',
      client_secret: 'server-secret',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      id_token_signed_response_alg: 'ES256',
    },
    ...authCodeClients,
  ],
  scopes: [...SCOPES.split(' '), PROFILE],
  clientBasedCORS: (_ctx, origin, client) => client.clientId === 'toolmodel-browser'
    && ['127.0.0.1', 'localhost', '[::1]'].includes(URL.parse(origin)?.hostname),
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true, allowedPolicy: async () => true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => undefined,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, resource) => ({
        scope: `${SCOPES} ${PROFILE}`,
        audience: resource,
        accessTokenTTL: Number(process.env.ACCESS_TOKEN_TTL || 300),
        accessTokenFormat: resource.endsWith('/opaque') ? 'opaque' : 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
});
// The audiences a subject token may have (the gateways' resources), and the exchanges made.
const gatewayAudiences = new Set();
const exchanges = {};
// The refresh_token grants, granted and refused.
const refreshes = { granted: 0, refused: 0 };
const isRefresh = (ctx) => ctx.oidc?.params?.grant_type === 'refresh_token';
provider.on('grant.success', (ctx) => { if (isRefresh(ctx)) refreshes.granted += 1; });
provider.on('grant.error', (ctx) => { if (isRefresh(ctx)) refreshes.refused += 1; });

function sign(head, body) {
  const input = `${b64(head)}.${b64(body)}`;
  const signature = crypto.sign('sha256', Buffer.from(input), { key: signing.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return `${input}.${signature}`;
}

// The claims of `token` when it is an honest, unexpired access token of this issuer.
function verified(token) {
  const [head, body, signature] = String(token).split('.');
  if (!signature) return undefined;
  const ok = crypto.verify('sha256', Buffer.from(`${head}.${body}`), { key: signing.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!ok) return undefined;
  const header = JSON.parse(Buffer.from(head, 'base64url'));
  const claims = JSON.parse(Buffer.from(body, 'base64url'));
  if (header.typ !== 'at+jwt' || claims.iss !== issuer || !(claims.exp > Date.now() / 1000)) return undefined;
  return claims;
}

provider.registerGrantType(TOKEN_EXCHANGE, async (ctx) => {
  const { params, client } = ctx.oidc;
  if (client.clientId !== 'toolmodel-gateway') throw new errors.UnauthorizedClient('only the gateway exchanges tokens');
  if (params.subject_token_type !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest('subject_token_type must be an access token');
  const subject = verified(params.subject_token);
  if (!subject) throw new errors.InvalidGrant('the subject token is not a valid access token of this issuer');
  const audiences = [subject.aud].flat();
  if (!audiences.some((aud) => gatewayAudiences.has(aud))) throw new errors.InvalidGrant('the subject token is not for the gateway');
  const target = params.resource || params.audience;
  if (!target) throw new errors.InvalidTarget('no resource or audience');
  if (new URL(target, 'http://x').pathname.endsWith('/refused')) throw new errors.InvalidTarget(`tokens for ${target} are not exchanged`);
  const known = new Set([...SCOPES.split(' '), PROFILE]);
  const asked = (params.scope || '').split(' ').filter(Boolean);
  const unknown = asked.find((scope) => !known.has(scope));
  if (unknown) throw new errors.InvalidScope(`unknown scope ${unknown}`);
  const ttl = new URL(target, 'http://x').pathname.endsWith('/brief') ? 2 : 300;
  const now = Math.floor(Date.now() / 1000);
  const token = sign({ typ: 'at+jwt', alg: 'ES256', kid }, {
    iss: issuer, sub: subject.sub, aud: target, client_id: client.clientId, act: { sub: client.clientId },
    scope: asked.join(' '), iat: now, exp: now + ttl, jti: crypto.randomUUID(),
  });
  const key = `${subject.sub} ${target}`;
  exchanges[key] = (exchanges[key] || 0) + 1;
  ctx.body = { access_token: token, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: ttl, scope: asked.join(' ') };
}, ['subject_token', 'subject_token_type', 'requested_token_type', 'resource', 'audience', 'scope', 'actor_token', 'actor_token_type'], ['resource', 'audience']);

provider.on('server_error', (_ctx, err) => console.error('server_error', err));

const b64 = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function forge({ key = 'issuer', header = {}, claims = {} }) {
  const now = Math.floor(Date.now() / 1000);
  const head = {
    typ: 'at+jwt',
    alg: key === 'none' ? 'none' : key === 'hs256-public' ? 'HS256' : 'ES256',
    kid: key === 'rogue' ? 'rogue-key' : kid,
    ...header,
  };
  for (const [name, value] of Object.entries(head)) if (value === null) delete head[name];
  const body = {
    iss: issuer, sub: 'forged-user', client_id: 'toolmodel-test', scope: SCOPES,
    iat: now, exp: now + 300, jti: crypto.randomUUID(), ...claims,
  };
  for (const [name, value] of Object.entries(body)) if (value === null) delete body[name];
  const input = `${b64(head)}.${b64(body)}`;
  let signature = '';
  if (key === 'issuer' || key === 'rogue') {
    const privateKey = key === 'rogue' ? rogue.privateKey : signing.privateKey;
    signature = crypto.sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  } else if (key === 'hs256-public') {
    const secret = signing.publicKey.export({ format: 'pem', type: 'spki' });
    signature = crypto.createHmac('sha256', secret).update(input).digest('base64url');
  }
  return `${input}.${signature}`;
}

// The login form of the third-party mode, and the consent granted at once.
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'consent') {
    const { prompt: { details: missing }, params, session: { accountId } } = details;
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId: params.client_id });
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes || {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/html' }).end(
      `<!doctype html><title>Sign in</title><form method="post" action="/interaction/${details.uid}">`
      + '<input name="login" autofocus><button>Sign in</button></form>',
    );
    return;
  }
  let text = '';
  for await (const chunk of req) text += chunk;
  const login = new URLSearchParams(text).get('login');
  if (!login) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('login is required');
    return;
  }
  await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
}

const callback = provider.callback();
server.on('request', (req, res) => {
  if (redirectUri && req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
    });
    return;
  }
  if (req.method === 'GET' && req.url === '/exchanges') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(exchanges));
    return;
  }
  if (req.method === 'GET' && req.url === '/refreshes') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(refreshes));
    return;
  }
  if (req.method === 'POST' && req.url === '/gateway-audience') {
    let text = '';
    req.on('data', (chunk) => { text += chunk; });
    req.on('end', () => {
      gatewayAudiences.add(text);
      res.writeHead(204).end();
    });
    return;
  }
  if (req.method === 'POST' && req.url === '/forge') {
    let text = '';
    req.on('data', (chunk) => { text += chunk; });
    req.on('end', () => {
      try {
        const token = forge(JSON.parse(text || '{}'));
        res.writeHead(200, { 'content-type': 'text/plain' }).end(token);
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
      }
    });
    return;
  }
  callback(req, res);
});

console.log(`ISSUER ${issuer}`);
