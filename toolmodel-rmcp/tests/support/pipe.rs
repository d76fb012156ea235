//! What the in-process tests share: a [`ToolboxServer`] and an `rmcp` client in one process,
//! over an in-memory pipe, connected the way a client of each protocol generation connects.

use rmcp::{
    ClientHandler, ServiceExt as _,
    model::ProtocolVersion,
    service::{ClientLifecycleMode, ClientServiceExt as _, RoleClient, RunningService},
};
use tokio::io::DuplexStream;
use toolmodel_rmcp::ToolboxServer;

/// Serves `server` on one end of a new pipe, in a task of its own; returns the other end.
fn serve(server: ToolboxServer) -> DuplexStream {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client_io
}

/// Serves `server` on one end of a pipe and connects `client` (`()`: a client that declares
/// nothing) to the other, through the `initialize` handshake (MCP 2025-11-25 and older).
pub async fn connect<C: ClientHandler>(
    server: ToolboxServer,
    client: C,
) -> RunningService<RoleClient, C> {
    client.serve(serve(server)).await.expect("initialize")
}

/// Serves `server` on one end of a pipe and connects `client` to the other in MCP 2026-07-28
/// mode: `server/discover`, then the client's context in every request's `_meta`, no
/// `initialize`.
pub async fn connect_2026_07_28<C: ClientHandler>(
    server: ToolboxServer,
    client: C,
) -> RunningService<RoleClient, C> {
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    client
        .serve_with_lifecycle(serve(server), lifecycle)
        .await
        .expect("the session starts")
}
