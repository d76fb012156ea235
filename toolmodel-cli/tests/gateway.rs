//! `toolmodel gateway` and `toolmodel tools --config` against real MCP servers
//! (`@modelcontextprotocol/server-everything`, `mcp-server-time`), installed by
//! `serve/install_upstreams.sh` into `.upstreams/`. Without them each test prints a notice and
//! passes, except under `CI`, where it fails. `--auth-issuer` is tested against oidc-provider
//! (`serve/auth/provider.mjs`, installed by `serve/auth/install.sh`), under the same rule.

use std::{
    collections::BTreeMap,
    path::Path,
    process::Stdio,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use serde_json::json;
use toolmodel_rmcp::rmcp::{
    ClientHandler, ServiceExt,
    model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation},
    service::{NotificationContext, RoleClient, RunningService},
    transport::{
        ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess,
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};

#[path = "../../toolmodel-rmcp/tests/support/issuer.rs"]
mod issuer;

use issuer::Issuer;

// The commands of the installed servers, or `None` with a notice (a failure under `CI`).
#[path = "../../toolmodel-rmcp/tests/support/upstreams.rs"]
mod installed;
use installed::upstreams;

/// A configuration file of server-everything and mcp-server-time.
fn config(up: &BTreeMap<String, String>) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    let config = json!({"mcpServers": {
        "everything": {"command": up["EVERYTHING"]},
        "time": {"type": "stdio", "command": "${TIME_SERVER}", "args": ["--local-timezone=UTC"]},
        "off": {"command": "/nonexistent", "disabled": true}
    }});
    std::fs::write(file.path(), config.to_string()).unwrap();
    file
}

/// Counts `notifications/tools/list_changed`.
#[derive(Clone, Debug, Default)]
struct Client(Arc<AtomicUsize>);

impl ClientHandler for Client {
    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("test", "0"),
        )
    }
}

/// The names of every tool the gateway lists.
async fn tool_names(service: &RunningService<RoleClient, Client>) -> Vec<String> {
    service
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

fn call(name: &str, arguments: serde_json::Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = arguments.as_object().cloned();
    params
}

/// The child processes of `pid` (Linux `/proc`), zombies left out.
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let child: u32 = entry.file_name().to_string_lossy().parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            (fields.first() != Some(&"Z") && fields.get(1)?.parse::<u32>().ok()? == pid)
                .then_some(child)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_over_stdio_serves_every_servers_tools_and_passes_list_changed_on() {
    let Some(up) = upstreams() else { return };
    let file = config(&up);
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolmodel")).configure(|cmd| {
        cmd.args(["gateway", "--config"])
            .arg(file.path())
            .env("TIME_SERVER", &up["TIME"]);
    });
    let client = Client::default();
    let changes = Arc::clone(&client.0);
    let service = client
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap();
    let names = tool_names(&service).await;
    assert!(
        names.contains(&"echo".to_owned()) && names.contains(&"get_current_time".to_owned()),
        "{names:?}"
    );

    let echo = service
        .call_tool(call("echo", json!({"message": "via gateway"})))
        .await
        .unwrap();
    assert_eq!(echo.content[0].as_text().unwrap().text, "Echo: via gateway");
    let bad = service
        .call_tool(call("get-sum", json!({"a": "x"})))
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    let text = &bad.content[0].as_text().unwrap().text;
    assert!(
        text.starts_with("invalid arguments for tool \"get-sum\""),
        "{text}"
    );

    // server-everything adds tools after `initialize` and says so; the gateway imports them
    // and, when this client had listed the tools before, passes the change on.
    if !names.contains(&"trigger-elicitation-request".to_owned()) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while changes.load(Ordering::SeqCst) == 0 {
            assert!(
                Instant::now() < deadline,
                "no notifications/tools/list_changed from the gateway"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let names = tool_names(&service).await;
    assert!(
        names.contains(&"trigger-elicitation-request".to_owned()),
        "{names:?}"
    );
    service.cancel().await.unwrap();
}

/// `toolmodel gateway --http 127.0.0.1:PORT --config FILE` (a free port) with `extra`
/// arguments, once it listens; the child and its MCP URL.
async fn http_gateway(
    up: &BTreeMap<String, String>,
    file: &tempfile::NamedTempFile,
    extra: &[&str],
) -> (tokio::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let gateway = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolmodel"))
        .args([
            "gateway",
            "--http",
            &format!("127.0.0.1:{port}"),
            "--config",
        ])
        .arg(file.path())
        .args(extra)
        .env("TIME_SERVER", &up["TIME"])
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the gateway did not listen");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (gateway, format!("http://127.0.0.1:{port}/mcp"))
}

/// A session with the gateway at `url` sending `Authorization: Bearer <token>`.
async fn session(url: &str, token: &str) -> RunningService<RoleClient, Client> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
    );
    Client::default().serve(transport).await.unwrap()
}

/// Sends SIGTERM to `gateway` and waits (15 s at most) for it to exit successfully.
async fn terminate(mut gateway: tokio::process::Child) {
    let pid = gateway.id().unwrap();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = tokio::time::timeout(Duration::from_secs(15), gateway.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(exit.success(), "{exit:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_over_http_answers_and_leaves_no_child_process_after_sigterm() {
    let Some(up) = upstreams() else { return };
    let file = config(&up);
    let (gateway, url) = http_gateway(&up, &file, &[]).await;
    // The gateway binds its port before it starts its upstreams (a client that comes early
    // waits in the backlog): count the children once both are there.
    let deadline = Instant::now() + Duration::from_secs(30);
    let upstream_children = loop {
        let found = children(gateway.id().unwrap());
        if found.len() >= 2 || Instant::now() > deadline {
            break found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(upstream_children.len(), 2, "one child per enabled server");

    // The gateway's client's credentials: never sent upstream.
    let service = session(&url, "client-secret").await;
    let time = service
        .call_tool(call("get_current_time", json!({"timezone": "UTC"})))
        .await
        .unwrap();
    assert_ne!(time.is_error, Some(true));
    service.cancel().await.unwrap();

    terminate(gateway).await;
    for child in upstream_children {
        assert!(
            !Path::new(&format!("/proc/{child}")).exists() || children_gone(child),
            "upstream {child} outlived the gateway"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_with_auth_issuer_refuses_a_client_without_a_token_for_it_and_serves_one_with()
{
    let Some(up) = upstreams() else { return };
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let file = config(&up);
    let (gateway, url) = http_gateway(&up, &file, &["--auth-issuer", &issuer.url]).await;

    // Without a token: 401, whose challenge names the Protected Resource Metadata, which
    // names the issuer; the resource is the URL the gateway bound.
    let refused = Client::default()
        .serve(StreamableHttpClientTransport::from_uri(url.as_str()))
        .await
        .expect_err("a client without a token is refused");
    let challenge = refused.auth_challenge().expect("a 401 challenge");
    let metadata_url = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    assert!(
        challenge.contains(&format!("resource_metadata=\"{metadata_url}\"")),
        "{challenge}"
    );
    let metadata: serde_json::Value = reqwest::get(&metadata_url)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], url.as_str());
    assert_eq!(metadata["authorization_servers"], json!([issuer.url]));

    // A token for another resource: refused too.
    let elsewhere = issuer.token("http://127.0.0.1:1/mcp", "notes:read").await;
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.as_str()).auth_header(elsewhere),
    );
    let refused = Client::default()
        .serve(transport)
        .await
        .expect_err("wrong audience");
    assert!(
        refused
            .auth_challenge()
            .is_some_and(|challenge| challenge.contains("invalid_token")),
        "{refused}"
    );

    // A token for the gateway: its upstreams' tools, called.
    let service = session(&url, &issuer.token(&url, "notes:read").await).await;
    let time = service
        .call_tool(call("get_current_time", json!({"timezone": "UTC"})))
        .await
        .unwrap();
    assert_ne!(time.is_error, Some(true), "{time:?}");
    service.cancel().await.unwrap();
    terminate(gateway).await;
}

/// Whether `pid` is gone or only a zombie.
fn children_gone(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(true)
}

#[test]
fn tools_config_lists_and_converts_the_live_tools_and_names_an_unavailable_server() {
    let Some(up) = upstreams() else { return };
    let file = tempfile::NamedTempFile::new().unwrap();
    let config = json!({"servers": {
        "time": {"command": up["TIME"]},
        "gone": {"command": "/nonexistent/server"}
    }});
    std::fs::write(file.path(), config.to_string()).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolmodel"))
        .args(["tools", "--to", "openai-chat", "--config"])
        .arg(file.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("gone: unavailable: cannot start \"/nonexistent/server\""),
        "{stderr}"
    );
    assert!(stderr.contains("time: 2 tools"), "{stderr}");
    let converted: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = converted
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["convert_time", "get_current_time"]);
}
