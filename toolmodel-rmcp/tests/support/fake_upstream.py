"""A stdio MCP server (2025-11-25) for the gateway's tests: it lists the tools given as JSON in
argv[1], as they are (valid or not), and answers each request on a thread of its own, so that
calls overlap and a cancelled call goes on running (as a server slow to honour
notifications/cancelled does).

Tools by name:
- wait: sleeps `seconds` (default 1.5), then answers "waited"; with `started` (a path), first
  creates that file, so that a test knows the call reached the server.
- ask_slowly: sleeps 0.3 s, then sends elicitation/create with `message` and answers with
  what the client answered (or the error it got).
- any other: answers "<name> answered".
"""

import json
import sys
import threading
import time

TOOLS = json.loads(sys.argv[1])
write_lock = threading.Lock()
waiting = {}
next_id = [0]


def send(message):
    with write_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def ask(method, params):
    """Sends a request to the client and waits for its answer (a result or an error)."""
    with write_lock:
        next_id[0] += 1
        request_id = "fake-%d" % next_id[0]
    done = threading.Event()
    waiting[request_id] = [done, None]
    send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    done.wait(10)
    return waiting.pop(request_id)[1]


def text(request_id, value):
    send({"jsonrpc": "2.0", "id": request_id,
          "result": {"content": [{"type": "text", "text": value}]}})


def call(request_id, params):
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if name == "wait":
        if arguments.get("started"):
            open(arguments["started"], "w").close()
        time.sleep(float(arguments.get("seconds", 1.5)))
        text(request_id, "waited")
    elif name == "ask_slowly":
        time.sleep(0.3)
        answer = ask("elicitation/create", {
            "message": arguments.get("message", "?"),
            "requestedSchema": {"type": "object", "properties": {"answer": {"type": "string"}}},
        })
        text(request_id, json.dumps(answer))
    else:
        text(request_id, "%s answered" % name)


def handle(message):
    method = message.get("method")
    request_id = message.get("id")
    if method is None:
        entry = waiting.get(request_id)
        if entry is not None:
            entry[1] = message
            entry[0].set()
        return
    if request_id is None:
        return  # a notification
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake-upstream", "version": "0"},
        }})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        call(request_id, message.get("params") or {})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": request_id, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": request_id,
              "error": {"code": -32601, "message": "method not found: %s" % method}})


for line in sys.stdin:
    line = line.strip()
    if line:
        threading.Thread(target=handle, args=(json.loads(line),), daemon=True).start()
