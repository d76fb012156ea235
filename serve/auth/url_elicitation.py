"""Per-user authorization of a third-party upstream through URL-mode elicitation (issue 44),
driven by the official Python MCP client (PyPI `mcp`, pinned in serve/telemetry/install.sh).

Processes: the gateway's authorization server (serve/auth/provider.mjs), a second one as the
third-party upstream's own (provider.mjs with AUTH_CODE_REDIRECT_URI: an authorization-code
client with PKCE and a login form), the example server behind that second one
(`--auth-issuer`), and `toolmodel gateway` behind the first, whose server `saas` has
`toolmodelCredentials.oauth`. The client connects at MCP 2025-11-25 (the initialize
handshake) with the gateway's token and an elicitation callback that, for a URL-mode
request, follows the URL with an HTTP client (httpx2, the SDK's own, cookies kept), posts the
login form as `alice`, lands on the gateway's redirect endpoint and accepts. Asserted: the
call completes and `whoami` names `alice` at the third-party issuer; a second call asks
nothing; a client that declines gets a tool error saying so.

usage: url_elicitation.py TOOLMODEL_BIN SERVER_BIN
Last line:
    url-elicitation: authorized=yes whoami_subject=<sub> declined=tool_error
Exit status 1 with a message naming what is wrong on any failed assertion.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitResult

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
children: list[subprocess.Popen] = []


def fail(message: str) -> None:
    raise SystemExit(f"error: {message}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_issuer(env: dict[str, str]) -> str:
    child = subprocess.Popen(
        ["node", os.path.join(ROOT, "serve/auth/provider.mjs")],
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    children.append(child)
    line = child.stdout.readline().strip()
    if not line.startswith("ISSUER "):
        fail(f"the authorization server did not start: {line!r}")
    return line.removeprefix("ISSUER ")


def wait_for(url: str) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return  # it answers (401, 404, ...)
        except OSError:
            time.sleep(0.1)
    fail(f"{url} never answered")


def token(issuer: str, resource: str, client: tuple[str, str]) -> str:
    """A client_credentials token of `client` (id, secret) for `resource`: its subject is the
    client ID, so two clients are two users of the gateway."""
    body = urllib.parse.urlencode(
        {"grant_type": "client_credentials", "resource": resource, "scope": "notes:read"}
    ).encode()
    request = urllib.request.Request(f"{issuer}/token", data=body)
    request.add_header(
        "authorization", "Basic " + base64.b64encode(":".join(client).encode()).decode()
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)["access_token"]


def browser(subject: str | None, seen: list[str], landed: list[str]):
    """The elicitation callback: for a URL, sign in as `subject` and accept (or decline when
    `subject` is None)."""

    async def callback(_context, params) -> ElicitResult:
        if getattr(params, "mode", None) != "url":
            return ElicitResult(action="decline")
        seen.append(params.url)
        if subject is None:
            return ElicitResult(action="decline")
        async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as http:
            page = await http.get(params.url)
            form = re.search(r'<form method="post" action="([^"]+)"', page.text)
            if not form:
                fail(f"no login form at {page.url}: {page.text[:200]}")
            page = await http.post(str(page.url.join(form.group(1))), data={"login": subject})
            landed.append(f"{page.status_code} {page.text}")
        return ElicitResult(action="accept")

    return callback


async def whoami(gateway: str, bearer: str, subject: str | None, seen, landed):
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {bearer}"}, timeout=30)
    transport = streamable_http_client(gateway, http_client=http)
    async with Client(
        transport,
        mode="legacy",
        read_timeout_seconds=30,
        elicitation_callback=browser(subject, seen, landed),
    ) as client:
        protocol = client.protocol_version
        first = await client.call_tool("saas__whoami", {})
        second = await client.call_tool("saas__whoami", {}) if subject else None
    await http.aclose()
    return protocol, first, second


def text(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def main(toolmodel: str, server: str) -> None:
    gateway_issuer = start_issuer({"PORT": "0"})
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    gateway = f"{origin}/mcp"
    third_party = start_issuer({"PORT": "0", "AUTH_CODE_REDIRECT_URI": f"{origin}/oauth/callback"})
    upstream_port = free_port()
    upstream = f"http://127.0.0.1:{upstream_port}/mcp"
    children.append(subprocess.Popen(
        [server, "--http", f"127.0.0.1:{upstream_port}", "--auth-issuer", third_party],
        stderr=subprocess.DEVNULL,
    ))
    wait_for(upstream)
    config = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump({"mcpServers": {"saas": {"url": upstream, "toolmodelCredentials": {"oauth": {
        "clientId": "toolmodel-upstream",
        "clientSecret": "${env:SAAS_CLIENT_SECRET}",
        "scope": "profile:read",
    }}}}, "toolNames": "always"}, config)
    config.close()
    children.append(subprocess.Popen(
        [toolmodel, "gateway", "--config", config.name, "--http", f"127.0.0.1:{port}",
         "--auth-issuer", gateway_issuer],
        env={**os.environ, "SAAS_CLIENT_SECRET": "upstream-secret", "RUST_LOG": "warn"},
    ))
    wait_for(gateway)
    bearer = token(gateway_issuer, gateway, ("toolmodel-test", "test-secret"))

    seen: list[str] = []
    landed: list[str] = []
    protocol, first, second = await whoami(gateway, bearer, "alice", seen, landed)
    if protocol != "2025-11-25":
        fail(f"negotiated {protocol}, not 2025-11-25")
    if first.is_error:
        fail(f"the first call failed: {text(first)}")
    match = re.match(r"subject (\S+) of (\S+),", text(first))
    if not match or match.group(2) != third_party:
        fail(f"whoami did not name a subject of the third-party issuer: {text(first)}")
    subject = match.group(1)
    if subject != "alice":
        fail(f"whoami names {subject}, not alice")
    if len(seen) != 1:
        fail(f"asked {len(seen)} times, not once: {seen}")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(seen[0]).query))
    if query.get("code_challenge_method") != "S256" or query.get("resource") != upstream:
        fail(f"the authorization request is not PKCE S256 for the upstream's resource: {query}")
    if not landed or not landed[0].startswith("200 ") or "You may close this tab" not in landed[0]:
        fail(f"the redirect endpoint's page: {landed}")
    if second is None or second.is_error or not text(second).startswith("subject alice "):
        fail(f"the second call: {second}")

    # Another user of the gateway (another subject), who declines.
    other = token(gateway_issuer, gateway, ("toolmodel-other", "other-secret"))
    declined_seen: list[str] = []
    _, declined, _ = await whoami(gateway, other, None, declined_seen, [])
    if len(declined_seen) != 1:
        fail(f"the other user was asked {len(declined_seen)} times, not once")
    if not declined.is_error or "declined authorization of server" not in text(declined):
        fail(f"a declining client got: {declined}")
    print(f"url-elicitation: authorized=yes whoami_subject={subject} declined=tool_error")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2]))
    finally:
        for child in children:
            child.terminate()
        for child in children:
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
