"""FastMCP's side of `peers: fastmcp gateway`, started by `src/gateway.rs`.

`fastmcp_proxy.py CONFIG PORT` serves FastMCP's proxy over the MCP servers of CONFIG (an
`mcpServers` file, the same file toolmodel's gateway reads) over Streamable HTTP at
`http://127.0.0.1:PORT/mcp`: `fastmcp.server.server.create_proxy(config)`, the way FastMCP's
documentation makes a gateway, with its defaults (a configuration target gets a fresh client
session to the upstream per request, the isolation FastMCP chooses for proxies), run by
`FastMCP.run(transport="http")` (uvicorn). It serves until it is killed.
"""

import json
import sys

from fastmcp.server.server import create_proxy


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as file:
        config = json.load(file)
    proxy = create_proxy(config, name="fastmcp-proxy")
    proxy.run(
        transport="http",
        host="127.0.0.1",
        port=int(sys.argv[2]),
        path="/mcp",
        show_banner=False,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
