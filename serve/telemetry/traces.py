"""One trace across three processes (issue 41): the official Python MCP client (PyPI `mcp`,
with the OpenTelemetry SDK) calls `toolmodel gateway`, which calls two upstreams, the example
server over Streamable HTTP (`web`) and the same server over stdio (`local`, a child of the
gateway). Every process exports its spans over OTLP/HTTP (protobuf) to the receiver here,
which decodes them with the official `opentelemetry-proto` package.

Each call runs under a root span of the client's own (`traces.py <key>`). Asserted: for a
call of each upstream, one trace id and the parent chain
    client span (py-client, CLIENT) > gateway SERVER > gateway CLIENT > upstream SERVER
with the span names, kinds (SERVER=2, CLIENT=3) and attributes of OpenTelemetry's MCP
conventions, `network.transport=pipe` on the gateway's CLIENT span and the upstream's SERVER
span for the stdio upstream; `error.type=tool_error` (status ERROR) for an `isError` result,
on the gateway's SERVER span when the gateway refuses arguments out of the schema (it
validates before calling, so no call goes upstream) and on the upstream's SERVER span when the
client calls the HTTP upstream directly with them; `error.type=-32602` (status ERROR) for an
unknown tool. Then, by raw HTTP POSTs (no SDK): a malformed `traceparent` in `_meta` is
answered as ever and its SERVER span is a new root, and an oversized `tracestate` (> 8,223
bytes) beside a valid `traceparent` still parents the span.

usage: traces.py TOOLMODEL_BIN SERVER_BIN
Last line:
    traces: processes=3 spans=<n> one_trace=yes chain=client>gateway.server>gateway.client>upstream.server pipe=yes errors=tool_error,-32602
Exit status 1 with a message naming what is wrong on any failed assertion.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

SERVER = 2  # opentelemetry.proto.trace.v1.Span.SpanKind.SPAN_KIND_SERVER
CLIENT = 3  # SPAN_KIND_CLIENT
STATUS_ERROR = 2  # Status.StatusCode.STATUS_CODE_ERROR
WAIT_SECONDS = 15
CHILD_ENV = {"OTEL_BSP_SCHEDULE_DELAY": "200", "RUST_LOG": "warn"}

failures: list[str] = []


def check(condition: bool, message: str) -> bool:
    if not condition:
        failures.append(message)
    return condition


# ---------------------------------------------------------------- the OTLP/HTTP receiver

class Received:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spans: list[dict] = []
        self.metric_requests = 0
        self.errors: list[str] = []

    def snapshot(self) -> list[dict]:
        with self.lock:
            return list(self.spans)


def any_value(value) -> object:
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: any_value(item.value) for item in value.kvlist_value.values}
    return getattr(value, kind)


def attributes(key_values) -> dict:
    return {item.key: any_value(item.value) for item in key_values}


def make_handler(received: Received):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            encoding = (self.headers.get("Content-Encoding") or "").lower()
            try:
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding == "deflate":
                    body = zlib.decompress(body)
                elif encoding not in ("", "identity"):
                    raise ValueError(f"unknown Content-Encoding {encoding!r}")
                if self.path == "/v1/traces":
                    request = trace_service_pb2.ExportTraceServiceRequest()
                    request.ParseFromString(body)
                    self.record(request)
                    reply = trace_service_pb2.ExportTraceServiceResponse()
                elif self.path == "/v1/metrics":
                    metrics_service_pb2.ExportMetricsServiceRequest().ParseFromString(body)
                    with received.lock:
                        received.metric_requests += 1
                    reply = metrics_service_pb2.ExportMetricsServiceResponse()
                else:
                    self.send_error(404)
                    return
            except Exception as err:  # noqa: BLE001 - a bad export is a finding, not a crash
                with received.lock:
                    received.errors.append(f"{self.path}: {err!r}")
                self.send_error(400)
                return
            payload = reply.SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def record(self, request) -> None:
            spans = []
            for resource_spans in request.resource_spans:
                service = attributes(resource_spans.resource.attributes).get("service.name")
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        spans.append({
                            "service": service,
                            "scope": scope_spans.scope.name,
                            "name": span.name,
                            "kind": span.kind,
                            "trace_id": span.trace_id.hex(),
                            "span_id": span.span_id.hex(),
                            "parent": span.parent_span_id.hex(),
                            "attrs": attributes(span.attributes),
                            "status": span.status.code,
                            "status_message": span.status.message,
                        })
            with received.lock:
                received.spans.extend(spans)

    return Handler


# ---------------------------------------------------------------- processes

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen, what: str, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"error: {what} exited with status {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"error: {what} did not listen on 127.0.0.1:{port} within {seconds}s")


# ---------------------------------------------------------------- the Python client

def install_client_tracing(otlp: str):
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "py-client"}))
    # gzip: the receiver must read Content-Encoding (the Rust exporters send none).
    provider.add_span_processor(SimpleSpanProcessor(
        OTLPSpanExporter(endpoint=f"{otlp}/v1/traces", compression=Compression.Gzip)))
    trace.set_tracer_provider(provider)
    return provider


async def drive_client(gateway_url: str, upstream_url: str) -> dict:
    """Lists the gateway's tools (until both upstreams' are there), then makes the calls, each
    under a span of its own (`traces.py <key>`, the root of its trace). Returns the tool names
    used and what each call answered."""
    from mcp import Client
    from mcp.shared.exceptions import MCPError
    from opentelemetry import trace

    tracer = trace.get_tracer("traces.py")
    calls: dict = {}
    async with Client(gateway_url, read_timeout_seconds=15) as client:
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            names = [tool.name for tool in (await client.list_tools()).tools]
            web = [n for n in names if n.startswith("web") and "get_weather" in n]
            local = [n for n in names if n.startswith("local") and "get_weather" in n]
            ping = [n for n in names if n.startswith("web") and n.endswith("ping")]
            if web and local and ping:
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"error: the gateway never listed both upstreams' get_weather: {names}")
            await asyncio.sleep(0.2)
        calls["names"] = {"web": web[0], "local": local[0], "ping": ping[0]}
        calls["protocol"] = client.protocol_version
        plan = [
            ("web_ok", web[0], {"city": "Paris"}),
            ("local_ok", local[0], {"city": "Oslo"}),
            # Out of the schema's range: the gateway's own isError (it validates first).
            ("gateway_tool_error", web[0], {"city": "Paris", "days": 9}),
        ]
        for key, name, arguments in plan:
            with tracer.start_as_current_span(f"traces.py {key}"):
                result = await client.call_tool(name, arguments)
            calls[key] = {"tool": name, "is_error": bool(result.is_error)}
        with tracer.start_as_current_span("traces.py unknown"):
            try:
                await client.call_tool("no_such_tool", {})
                calls["unknown"] = {"tool": "no_such_tool", "code": None}
            except MCPError as err:
                calls["unknown"] = {"tool": "no_such_tool", "code": err.error.code}
    # The upstream's own isError (its tools never fail past their schema, which the gateway
    # checks first): the client calls it directly.
    async with Client(upstream_url, read_timeout_seconds=15) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        name = next(n for n in names if "get_weather" in n)
        with tracer.start_as_current_span("traces.py upstream_tool_error"):
            result = await client.call_tool(name, {"city": "Paris", "days": 9})
        calls["upstream_tool_error"] = {"tool": name, "is_error": bool(result.is_error)}
    return calls


# ---------------------------------------------------------------- raw HTTP (no SDK)

def post(url: str, message: dict, session: str | None, protocol: str | None) -> tuple[dict | None, dict]:
    data = json.dumps(message).encode()
    request = urllib.request.Request(url, data=data, method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json, text/event-stream")
    if session:
        request.add_header("Mcp-Session-Id", session)
    if protocol:
        request.add_header("MCP-Protocol-Version", protocol)
    with urllib.request.urlopen(request, timeout=15) as response:
        headers = {key.lower(): value for key, value in response.headers.items()}
        body = response.read().decode()
    if "id" not in message:
        return None, headers
    if headers.get("content-type", "").startswith("text/event-stream"):
        for line in body.splitlines():
            if line.startswith("data:"):
                payload = line[5:].strip()
                if payload:
                    decoded = json.loads(payload)
                    if decoded.get("id") == message["id"]:
                        return decoded, headers
        return None, headers
    return json.loads(body), headers


def raw_calls(url: str, ping: str, trace_id: str, parent_id: str) -> dict:
    protocol = "2025-06-18"
    answer, headers = post(url, {
        "jsonrpc": "2.0", "id": "raw-init", "method": "initialize",
        "params": {"protocolVersion": protocol, "capabilities": {},
                   "clientInfo": {"name": "traces.py raw", "version": "0"}},
    }, None, None)
    check(answer is not None and "result" in answer, f"raw initialize was not answered: {answer}")
    session = headers.get("mcp-session-id")
    protocol = (answer or {}).get("result", {}).get("protocolVersion", protocol)
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session, protocol)
    answers = {}
    # Malformed: a span id that is not hex. The trace id part is well-formed, so a server
    # that half-parsed it would show it.
    malformed = {"traceparent": f"00-{trace_id}-zzzzzzzzzzzzzzzz-01"}
    oversized = {"traceparent": f"00-{trace_id}-{parent_id}-01",
                 "tracestate": "v=" + "x" * 9_000}
    for key, meta in (("raw-malformed", malformed), ("raw-oversized", oversized)):
        answer, _ = post(url, {
            "jsonrpc": "2.0", "id": key, "method": "tools/call",
            "params": {"name": ping, "arguments": {}, "_meta": meta},
        }, session, protocol)
        answers[key] = answer
    return answers


# ---------------------------------------------------------------- the assertions

def one(spans: list[dict], what: str, **match) -> dict | None:
    found = [s for s in spans if all(s.get(k) == v for k, v in match.items())]
    if not check(len(found) == 1, f"{what}: expected one span, found {len(found)}"):
        return None
    return found[0]


def expect_attrs(span: dict, what: str, expected: dict) -> None:
    for key, value in expected.items():
        actual = span["attrs"].get(key)
        if key.endswith(".port"):
            check(isinstance(actual, int), f"{what} ({span['name']}): {key}={actual!r} is not an int attribute")
        if value is ...:
            check(actual is not None, f"{what} ({span['name']}): attribute {key} is missing")
        else:
            check(actual == value, f"{what} ({span['name']}): {key}={actual!r}, expected {value!r}")


def expect_error(span: dict, what: str, error_type: str | None) -> None:
    actual = span["attrs"].get("error.type")
    check(actual == error_type, f"{what} ({span['name']}): error.type={actual!r}, expected {error_type!r}")
    if error_type is None:
        check(span["status"] != STATUS_ERROR, f"{what} ({span['name']}): status ERROR on a success")
    else:
        check(span["status"] == STATUS_ERROR, f"{what} ({span['name']}): status {span['status']}, expected ERROR (2)")


def client_span(spans: list[dict], key: str, tool: str) -> dict | None:
    """The Python SDK's CLIENT span of the call `key` (the child of the span `traces.py <key>`)."""
    root = one(spans, f"{key}: the span around the call", service="py-client", name=f"traces.py {key}")
    if root is None:
        return None
    check(root["parent"] == "", f"{key}: the span around the call is not a root")
    client = one(spans, f"{key}: the client span", service="py-client", parent=root["span_id"])
    if client is None:
        return None
    check(client["name"] == f"MCP send tools/call {tool}", f"{key}: the client span is named {client['name']!r}")
    check(client["kind"] == CLIENT, f"{key}: client span kind {client['kind']}, expected CLIENT (3)")
    check(client["trace_id"] == root["trace_id"], f"{key}: the client span is in another trace")
    return client


def chain(spans: list[dict], key: str, call: dict, upstream: str | None, error_type: str | None,
          upstream_port: int) -> list[dict]:
    """The spans of a call through the gateway, checked (`upstream` None: the gateway answers
    itself, no call goes upstream); returns them, the client span first."""
    tool = call["tool"]
    what = f"{key} ({tool})"
    client = client_span(spans, key, tool)
    if client is None:
        return []
    gateway = one(spans, f"{what}: the gateway's SERVER span (child of the client span)",
                  service="gateway", parent=client["span_id"])
    if gateway is None:
        return [client]
    check(gateway["kind"] == SERVER, f"{what}: gateway span kind {gateway['kind']}, expected SERVER (2)")
    check(gateway["name"] == f"tools/call {tool}", f"{what}: gateway span named {gateway['name']!r}")
    expect_attrs(gateway, f"{what}: gateway SERVER", {
        "mcp.method.name": "tools/call", "gen_ai.tool.name": tool,
        "gen_ai.operation.name": "execute_tool",
        "jsonrpc.request.id": client["attrs"].get("jsonrpc.request.id"),
        "mcp.protocol.version": ..., "network.transport": "tcp", "network.protocol.name": "http",
        "client.address": "127.0.0.1", "client.port": ...,
    })
    if gateway["attrs"].get("mcp.protocol.version", "9999") < "2026":
        expect_attrs(gateway, f"{what}: gateway SERVER", {"mcp.session.id": ...})
    expect_error(gateway, f"{what}: gateway SERVER", error_type)
    check(gateway["trace_id"] == client["trace_id"], f"{what}: the gateway span is in another trace")
    if upstream is None:
        children = [s["name"] for s in spans if s["parent"] == gateway["span_id"]]
        check(not children, f"{what}: the gateway answered itself, yet made spans {children}")
        return [client, gateway]
    outgoing = one(spans, f"{what}: the gateway's CLIENT span (child of its SERVER span)",
                   service="gateway", parent=gateway["span_id"])
    if outgoing is None:
        return [client, gateway]
    upstream_tool = outgoing["attrs"].get("gen_ai.tool.name")
    check(outgoing["kind"] == CLIENT, f"{what}: gateway CLIENT span kind {outgoing['kind']}")
    check(outgoing["name"] == f"tools/call {upstream_tool}", f"{what}: gateway CLIENT span named {outgoing['name']!r}")
    check(bool(upstream_tool) and tool.endswith(upstream_tool.replace(".", "_")),
          f"{what}: gateway CLIENT gen_ai.tool.name={upstream_tool!r}")
    expected = {"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool",
                "jsonrpc.request.id": ..., "mcp.protocol.version": ..., "toolmodel.upstream": upstream}
    if upstream == "web":
        expected |= {"network.transport": "tcp", "network.protocol.name": "http",
                     "server.address": "127.0.0.1", "server.port": upstream_port}
    else:
        expected |= {"network.transport": "pipe"}
        check("server.address" not in outgoing["attrs"], f"{what}: server.address on a stdio upstream's span")
    expect_attrs(outgoing, f"{what}: gateway CLIENT", expected)
    expect_error(outgoing, f"{what}: gateway CLIENT", error_type)
    service = "upstream-http" if upstream == "web" else "upstream-stdio"
    served = one(spans, f"{what}: the upstream's SERVER span (child of the gateway's CLIENT span)",
                 service=service, parent=outgoing["span_id"])
    if served is None:
        return [client, gateway, outgoing]
    check(served["kind"] == SERVER, f"{what}: upstream span kind {served['kind']}")
    check(served["name"] == f"tools/call {upstream_tool}", f"{what}: upstream span named {served['name']!r}")
    expected = {"mcp.method.name": "tools/call", "gen_ai.tool.name": upstream_tool,
                "gen_ai.operation.name": "execute_tool",
                "jsonrpc.request.id": outgoing["attrs"].get("jsonrpc.request.id"),
                "mcp.protocol.version": ...}
    if upstream == "web":
        expected |= {"network.transport": "tcp", "network.protocol.name": "http",
                     "client.address": "127.0.0.1", "client.port": ...}
    else:
        expected |= {"network.transport": "pipe"}
        check("client.address" not in served["attrs"], f"{what}: client.address on a stdio span")
    expect_attrs(served, f"{what}: upstream SERVER", expected)
    expect_error(served, f"{what}: upstream SERVER", error_type)
    found = [client, gateway, outgoing, served]
    traces = {span["trace_id"] for span in found}
    check(len(traces) == 1, f"{what}: the chain spans {len(traces)} traces: {sorted(traces)}")
    return found


def dump_logs(logs: dict) -> None:
    for name, log in logs.items():
        log.flush()
        log.seek(0)
        tail = log.read()[-2000:]
        if tail.strip():
            print(f"--- {name} log (tail)\n{tail}", file=sys.stderr)


def main() -> int:
    toolmodel_bin, server_bin = sys.argv[1], sys.argv[2]
    received = Received()
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(received))
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    otlp = f"http://127.0.0.1:{receiver.server_address[1]}"
    children: list[subprocess.Popen] = []
    workdir = tempfile.mkdtemp(prefix="traces-")
    logs = {}

    def start(name: str, argv: list[str], service: str) -> subprocess.Popen:
        logs[name] = open(os.path.join(workdir, f"{name}.log"), "w+")
        env = dict(os.environ, OTEL_SERVICE_NAME=service, **CHILD_ENV)
        process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=logs[name],
                                   stderr=subprocess.STDOUT, start_new_session=True)
        children.append(process)
        return process

    try:
        upstream_port = free_port()
        upstream = start("upstream-http", [server_bin, "--http", f"127.0.0.1:{upstream_port}",
                                           "--otlp-endpoint", otlp], "upstream-http")
        wait_listening(upstream_port, upstream, "the HTTP upstream")
        config = os.path.join(workdir, "gateway.json")
        with open(config, "w") as file:
            json.dump({"mcpServers": {
                "web": {"type": "http", "url": f"http://127.0.0.1:{upstream_port}/mcp"},
                "local": {"command": server_bin, "args": ["--otlp-endpoint", otlp],
                          "env": {"OTEL_SERVICE_NAME": "upstream-stdio", **CHILD_ENV}},
            }}, file)
        gateway_port = free_port()
        gateway = start("gateway", [toolmodel_bin, "gateway", "--config", config, "--http",
                                    f"127.0.0.1:{gateway_port}", "--otlp-endpoint", otlp], "gateway")
        wait_listening(gateway_port, gateway, "the gateway")
        gateway_url = f"http://127.0.0.1:{gateway_port}/mcp"

        provider = install_client_tracing(otlp)
        calls = asyncio.run(drive_client(gateway_url, f"http://127.0.0.1:{upstream_port}/mcp"))
        provider.force_flush()
        check(calls["unknown"]["code"] == -32602,
              f"the call of an unknown tool answered {calls['unknown']}, expected JSON-RPC error -32602")
        for key in ("web_ok", "local_ok"):
            check(not calls[key]["is_error"], f"{key}: an isError result")
        for key in ("gateway_tool_error", "upstream_tool_error"):
            check(calls[key]["is_error"], f"{key}: expected an isError result (days=9 is out of range)")

        trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
        ping = calls["names"]["ping"]
        raw = raw_calls(gateway_url, ping, trace_id, parent_id)
        for key, answer in raw.items():
            check(answer is not None and "result" in answer and not answer["result"].get("isError"),
                  f"{key}: the tools/call with trace context in _meta was not answered normally: {answer}")

        # Wait (bounded) for every span the calls made.
        def complete(spans: list[dict]) -> bool:
            services = {s["service"] for s in spans}
            if not {"py-client", "gateway", "upstream-http", "upstream-stdio"} <= services:
                return False
            ids = {s["attrs"].get("jsonrpc.request.id") for s in spans if s["service"] == "gateway"}
            upstream_calls = sum(1 for s in spans if s["service"].startswith("upstream")
                                 and s["attrs"].get("mcp.method.name") == "tools/call")
            return {"raw-malformed", "raw-oversized"} <= ids and upstream_calls >= 5
        deadline = time.monotonic() + WAIT_SECONDS
        while not complete(received.snapshot()) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # stragglers of the last batch
        spans = received.snapshot()
        if os.environ.get("TRACES_DUMP"):
            with open(os.environ["TRACES_DUMP"], "w") as dump:
                json.dump(spans, dump, indent=1, default=str)
        services = sorted({s["service"] for s in spans})
        check(not received.errors, f"the receiver could not decode: {received.errors}")
        check({"py-client", "gateway", "upstream-http", "upstream-stdio"} <= set(services),
              f"spans arrived from {services} only within {WAIT_SECONDS}s")

        chains = {
            "web_ok": chain(spans, "web_ok", calls["web_ok"], "web", None, upstream_port),
            "local_ok": chain(spans, "local_ok", calls["local_ok"], "local", None, upstream_port),
            "gateway_tool_error": chain(spans, "gateway_tool_error", calls["gateway_tool_error"],
                                        None, "tool_error", upstream_port),
            "unknown": chain(spans, "unknown", calls["unknown"], None, "-32602", upstream_port),
        }
        complete_chains = [c for key, c in chains.items() if key.endswith("_ok") and len(c) == 4]
        errors = []
        if len(chains["gateway_tool_error"]) == 2 and not failures:
            errors.append("tool_error")
        # The unknown tool: the JSON-RPC code, on the gateway's span and the client's.
        if len(chains["unknown"]) == 2:
            client, unknown = chains["unknown"]
            expect_attrs(client, "unknown: the client span", {"error.type": "-32602"})
            expect_attrs(unknown, "unknown: gateway SERVER", {"rpc.response.status_code": "-32602"})
            if unknown["attrs"].get("error.type") == "-32602":
                errors.append("-32602")
        # The upstream's own isError, called directly: its SERVER span, child of the client's.
        client = client_span(spans, "upstream_tool_error", calls["upstream_tool_error"]["tool"])
        if client is not None:
            served = one(spans, "upstream_tool_error: the upstream's SERVER span", service="upstream-http",
                         parent=client["span_id"])
            if served is not None:
                check(served["kind"] == SERVER, f"upstream_tool_error: span kind {served['kind']}")
                check(served["trace_id"] == client["trace_id"], "upstream_tool_error: another trace")
                expect_attrs(served, "upstream_tool_error: upstream SERVER", {
                    "mcp.method.name": "tools/call", "network.transport": "tcp",
                    "gen_ai.tool.name": calls["upstream_tool_error"]["tool"]})
                expect_error(served, "upstream_tool_error: upstream SERVER", "tool_error")

        # Raw POSTs: the malformed traceparent starts a new trace; the oversized tracestate
        # leaves the traceparent the parent.
        by_id = {}
        for span in spans:
            if span["service"] == "gateway" and span["kind"] == SERVER:
                by_id.setdefault(span["attrs"].get("jsonrpc.request.id"), []).append(span)
        malformed = by_id.get("raw-malformed", [])
        if check(len(malformed) == 1, f"raw call with a malformed traceparent: {len(malformed)} gateway SERVER spans"):
            span = malformed[0]
            check(span["parent"] == "", f"malformed traceparent: the span has parent {span['parent']}, expected none")
            check(span["trace_id"] != trace_id, "malformed traceparent: the span took the malformed header's trace id")
        oversized = by_id.get("raw-oversized", [])
        if check(len(oversized) == 1, f"raw call with an oversized tracestate: {len(oversized)} gateway SERVER spans"):
            span = oversized[0]
            check(span["trace_id"] == trace_id and span["parent"] == parent_id,
                  f"oversized tracestate: span in trace {span['trace_id']} under {span['parent'] or 'nothing'}, "
                  f"expected trace {trace_id} under {parent_id}")

        pipe = all(c[2]["attrs"].get("network.transport") == "pipe"
                   and c[3]["attrs"].get("network.transport") == "pipe"
                   for c in complete_chains if c[2]["attrs"].get("toolmodel.upstream") == "local")
        pipe = pipe and any(c[2]["attrs"].get("toolmodel.upstream") == "local" for c in complete_chains)
        one_trace = bool(complete_chains) and all(len({s["trace_id"] for s in c}) == 1 for c in complete_chains)
        # Processes per chain: the client, the gateway, an upstream.
        processes = max((len({s["service"] for s in c}) for c in complete_chains), default=0)
    except BaseException:
        dump_logs(logs)
        raise
    finally:
        for process in children:
            if process.poll() is None:
                process.terminate()
        for process in children:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        receiver.shutdown()

    if failures:
        print(f"protocol={calls.get('protocol')} names={calls.get('names')}", file=sys.stderr)
        dump_logs(logs)
        for message in failures:
            print(f"error: {message}", file=sys.stderr)
        print(f"traces: FAILED ({len(failures)} assertions) spans={len(spans)} services={','.join(services)}")
        return 1
    print(f"traces: processes={processes} spans={len(spans)} one_trace={'yes' if one_trace else 'no'} "
          f"chain=client>gateway.server>gateway.client>upstream.server pipe={'yes' if pipe else 'no'} "
          f"errors={','.join(errors)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
