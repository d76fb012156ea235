//! What the integration tests share: a [`ToolboxServer`] and an `rmcp` client in one process,
//! over an in-memory pipe.

use rmcp::{
    ClientHandler, ServiceExt as _,
    service::{RoleClient, RunningService},
};
use toolmodel_rmcp::ToolboxServer;

/// Serves `server` on one end of a pipe and connects `client` (`()`: a client that declares
/// nothing) to the other, through the `initialize` handshake.
pub async fn connect<C: ClientHandler>(
    server: ToolboxServer,
    client: C,
) -> RunningService<RoleClient, C> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client.serve(client_io).await.expect("initialize")
}
