//! `toolmodel gateway` and `toolmodel tools --config` against real MCP servers
//! (`@modelcontextprotocol/server-everything`, `mcp-server-time`), installed by
//! `serve/install_upstreams.sh` into `.upstreams/`. Without them each test prints a notice and
//! passes, except under `CI`, where it fails. `--auth-issuer` is tested against oidc-provider
//! (`serve/auth/provider.mjs`, installed by `serve/auth/install.sh`), and the deployment behind
//! a proxy against nginx (installed by `serve/install_nginx.sh` when missing), under the same
//! rule. `--check-config` needs neither.

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

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::PredicateBooleanExt as _;
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
use toolmodel_test_support::{
    issuer::{self, Issuer},
    upstreams::upstreams,
};

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
pub(crate) struct Client(pub(crate) Arc<AtomicUsize>);

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
pub(crate) async fn tool_names(service: &RunningService<RoleClient, Client>) -> Vec<String> {
    service
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

pub(crate) fn call(name: &str, arguments: serde_json::Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = arguments.as_object().cloned();
    params
}

/// The child processes of `pid` (Linux `/proc`), zombies left out.
pub(crate) fn children(pid: u32) -> Vec<u32> {
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

/// A free loopback port.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `toolmodel gateway --http 127.0.0.1:PORT --config FILE` (a free port) with `extra`
/// arguments, once it listens; the child and its MCP URL.
async fn http_gateway(
    up: &BTreeMap<String, String>,
    file: &tempfile::NamedTempFile,
    extra: &[&str],
) -> (tokio::process::Child, String) {
    http_gateway_on(up, file, free_port(), extra, &[]).await
}

/// `toolmodel gateway --http 127.0.0.1:PORT --config FILE`, not started yet: the upstreams'
/// commands in its environment (`TIME_SERVER`), killed when dropped.
pub(crate) fn gateway_command(
    up: &BTreeMap<String, String>,
    file: &tempfile::NamedTempFile,
    port: u16,
) -> tokio::process::Command {
    let mut command = gateway_on(file, port);
    command.env("TIME_SERVER", &up["TIME"]);
    command
}

/// `toolmodel gateway --http 127.0.0.1:PORT --config FILE`, killed when dropped.
fn gateway_on(file: &tempfile::NamedTempFile, port: u16) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolmodel"));
    command
        .args([
            "gateway",
            "--http",
            &format!("127.0.0.1:{port}"),
            "--config",
        ])
        .arg(file.path())
        .kill_on_drop(true);
    command
}

/// [`http_gateway`] on `port`, with the environment variables `envs`.
async fn http_gateway_on(
    up: &BTreeMap<String, String>,
    file: &tempfile::NamedTempFile,
    port: u16,
    extra: &[&str],
    envs: &[(&str, &str)],
) -> (tokio::process::Child, String) {
    let gateway = gateway_command(up, file, port)
        .args(extra)
        .envs(envs.iter().copied())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (gateway, listening(port).await)
}

/// Waits (30 s at most) until the gateway listens on `port`; its MCP URL.
pub(crate) async fn listening(port: u16) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the gateway did not listen");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    format!("http://127.0.0.1:{port}/mcp")
}

/// A session with the gateway at `url` sending `Authorization: Bearer <token>`.
pub(crate) async fn session(url: &str, token: &str) -> RunningService<RoleClient, Client> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
    );
    Client::default().serve(transport).await.unwrap()
}

/// A session with the gateway at `url` (bearer `token`) calls the time server's
/// `get_current_time`, which answers without an error.
async fn assert_time_served(url: &str, token: &str) {
    let service = session(url, token).await;
    let time = service
        .call_tool(call("get_current_time", json!({"timezone": "UTC"})))
        .await
        .unwrap();
    assert_ne!(time.is_error, Some(true));
    service.cancel().await.unwrap();
}

/// `GET http://ADDR/PATH` on the admin listener: status and body.
async fn admin_get(admin: &str, path: &str) -> (u16, String) {
    let reply = reqwest::get(format!("http://{admin}{path}")).await.unwrap();
    (reply.status().as_u16(), reply.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_serves_probes_metrics_and_status_and_writes_json_log_lines() {
    let Some(up) = upstreams() else { return };
    let file = tempfile::NamedTempFile::new().unwrap();
    let config = json!({"mcpServers": {
        "time": {"command": up["TIME"], "args": ["--local-timezone=UTC"], "required": true}
    }});
    std::fs::write(file.path(), config.to_string()).unwrap();
    let log = tempfile::NamedTempFile::new().unwrap();
    let port = free_port();
    let admin = format!("127.0.0.1:{}", free_port());
    let mut gateway = gateway_command(&up, &file, port)
        .args(["--admin", &admin, "--log-format", "json", "--access-log"])
        .env_remove("RUST_LOG")
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(reply) = reqwest::get(format!("http://{admin}/readyz")).await
            && reply.status() == 200
        {
            break;
        }
        assert!(Instant::now() < deadline, "the gateway did not get ready");
        assert!(gateway.try_wait().unwrap().is_none(), "the gateway exited");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(admin_get(&admin, "/healthz").await, (200, "ok".to_owned()));
    let (status, body) = admin_get(&admin, "/status").await;
    assert_eq!(status, 200);
    let document: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(document["upstreams"][0]["name"], "time", "{document}");
    assert_eq!(document["upstreams"][0]["state"], "up", "{document}");
    assert_eq!(document["upstreams"][0]["required"], true, "{document}");

    assert_time_served(&format!("http://127.0.0.1:{port}/mcp"), "any").await;

    let (status, metrics) = admin_get(&admin, "/metrics").await;
    assert_eq!(status, 200);
    for expected in [
        "mcp_server_operation_duration_seconds_bucket{",
        "gen_ai_tool_name=\"get_current_time\"",
        "mcp_client_operation_duration_seconds_bucket{",
        "toolmodel_upstream=\"time\"",
        "toolmodel_upstream_restarts{",
        "service_name=\"toolmodel-gateway\"",
    ] {
        assert!(metrics.contains(expected), "{expected} not in {metrics}");
    }
    // The upstream's gauge, up (labels in any order).
    assert!(
        metrics
            .lines()
            .any(|line| line.starts_with("toolmodel_upstream_up{")
                && line.contains("toolmodel_upstream=\"time\"")
                && line.contains("toolmodel_upstream_state=\"up\"")
                && line.ends_with(" 1")),
        "{metrics}"
    );
    terminate(gateway).await;

    // Every line on stderr is one JSON object; the access line names the tool.
    let lines = std::fs::read_to_string(log.path()).unwrap();
    let events: Vec<serde_json::Value> = lines
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line}")))
        .collect();
    assert!(
        events.iter().any(|event| event["fields"]["message"]
            .as_str()
            .is_some_and(|message| message.starts_with("serving MCP on http://127.0.0.1:"))),
        "{lines}"
    );
    let access = events
        .iter()
        .find(|event| event["target"] == "toolmodel_rmcp::access")
        .unwrap_or_else(|| panic!("no access line in {lines}"));
    assert_eq!(access["fields"]["tool"], "get_current_time", "{access}");
    assert_eq!(access["fields"]["outcome"], "ok", "{access}");
}

/// Sends SIGTERM to `gateway` and waits (15 s at most) for it to exit successfully.
pub(crate) async fn terminate(mut gateway: tokio::process::Child) {
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
    assert_time_served(&url, "client-secret").await;

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

// ---------------------------------------------------------------------------------------------
// Deployment: --check-config, host names, scopes, introspection, behind nginx.

/// A configuration file holding `config`.
fn config_file(config: &serde_json::Value) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), config.to_string()).unwrap();
    file
}

/// `toolmodel gateway --check-config --config FILE` with `extra` arguments and `envs`.
fn check_config(
    file: &tempfile::NamedTempFile,
    extra: &[&str],
    envs: &[(&str, &str)],
) -> assert_cmd::assert::Assert {
    cargo_bin_cmd!("toolmodel")
        .args(["gateway", "--check-config", "--config"])
        .arg(file.path())
        .args(extra)
        .env_remove("MCP_INTROSPECTION_CLIENT_SECRET")
        .env_remove("MCP_EXCHANGE_CLIENT_SECRET")
        .env_remove("MCP_REQUEST_STATE_KEY")
        .envs(envs.iter().copied())
        .assert()
}

#[test]
fn check_config_refuses_a_misspelled_key_naming_the_known_one_and_exits_1() {
    let file = config_file(&json!({"mcpServers": {
        "time": {"command": "mcp-server-time", "hidenTools": ["convert_time"]}
    }}));
    check_config(&file, &[], &[]).code(1).stdout("").stderr(format!(
        "error: {}: server \"time\", at /mcpServers/time/hidenTools: unknown key \"hidenTools\": did you mean \"hiddenTools\"?\n",
        file.path().display()
    ));
    let file = config_file(&json!({"servers": {"time": {"command": "x", "disabeld": true}}}));
    check_config(&file, &[], &[])
        .code(1)
        .stderr(predicates::str::contains(
            "at /servers/time/disabeld: unknown key \"disabeld\": did you mean \"disabled\"?",
        ));
}

#[test]
fn check_config_reads_rate_limits_and_refuses_a_bad_one_at_its_pointer() {
    let file = config_file(&json!({
        "mcpServers": {"time": {"command": "/nonexistent/server", "maxConcurrentCalls": 8}},
        "toolmodelLimits": {"rules": [{"per": ["user"], "rate": 5, "burst": 10}]}
    }));
    check_config(&file, &[], &[("MCP_LIMIT_STORE", ""), ("MCP_SESSION_STORE", "")])
        .code(0)
        .stdout(format!(
            "ok: {}: 1 servers, 1 enabled (time)\n  rate limits: 1 rules, this process's own buckets\n  over stdio\n",
            file.path().display()
        ));
    check_config(&file, &[], &[("MCP_LIMIT_STORE", "redis://127.0.0.1:6379")])
        .code(0)
        .stdout(predicates::str::contains(
            "rate limits: 1 rules, shared through Redis",
        ));
    let file = config_file(&json!({
        "mcpServers": {"time": {"command": "x", "maxConcurrentCalls": 0}},
        "toolmodelLimits": {"rules": [{"per": ["usr"], "rate": 5, "burst": 10}]}
    }));
    check_config(&file, &[], &[]).code(1).stderr(format!(
        "error: {}: at /toolmodelLimits/rules/0/per/0: \"usr\" is not \"user\", \"tool\" or \"upstream\": did you mean \"user\"?\n",
        file.path().display()
    ));
}

#[test]
fn check_config_accepts_a_valid_configuration_and_options_and_starts_nothing() {
    let file = config_file(&json!({"mcpServers": {
        "time": {"command": "/nonexistent/server", "requiredScopes": ["notes:write"], "autoApprove": []},
        "off": {"command": "/nonexistent", "disabled": true}
    }}));
    // The command does not exist: nothing is started, so nothing fails.
    check_config(
        &file,
        &[
            "--http",
            "0.0.0.0:8080",
            "--auth-issuer",
            "https://auth.example.com",
            "--resource",
            "https://mcp.example.com/mcp",
            "--scopes",
            "mcp:tools",
            "--introspection-client-id",
            "gateway",
            "--allowed-origins",
            "https://app.example.com",
        ],
        &[("MCP_INTROSPECTION_CLIENT_SECRET", "s3cret")],
    )
    .code(0)
    .stderr("")
    .stdout(format!(
        "ok: {}: 2 servers, 1 enabled (time)
  server \"time\": tools need scopes notes:write
  over Streamable HTTP on http://0.0.0.0:8080/mcp
  tokens from https://auth.example.com for https://mcp.example.com/mcp
  every request needs scopes mcp:tools
  opaque tokens introspected as gateway
  allowed hosts: mcp.example.com, localhost, 127.0.0.1, ::1
  allowed origins: https://app.example.com
",
        file.path().display()
    ));
    // Over stdio nothing checks the scopes: said, not refused.
    check_config(&file, &[], &[]).code(0).stderr(
        "note: the requiredScopes of server \"time\" are not checked over stdio (one local client; they are with --http and --auth-issuer)\n",
    );
}

/// Issue 44: a server with `toolmodelCredentials` needs `--http`, `--auth-issuer` and the
/// gateway's own exchange client with its secret; with them the summary says so.
#[test]
fn check_config_refuses_credentials_without_the_gateways_exchange_client() {
    let file = config_file(&json!({"mcpServers": {
        "notes": {"url": "https://notes.example.com/mcp", "toolmodelCredentials": {"tokenExchange": {"resource": "https://notes.example.com/mcp"}}}
    }}));
    let http = ["--http", "127.0.0.1:0"];
    let issuer = ["--auth-issuer", "https://auth.example.com"];
    let client = ["--exchange-client-id", "toolmodel-gateway"];
    let secret = [("MCP_EXCHANGE_CLIENT_SECRET", "s3cret")];
    for (args, envs, missing) in [
        (
            vec![],
            &[][..],
            "--http (over stdio no caller has a token to exchange)",
        ),
        (
            http.to_vec(),
            &[][..],
            "--auth-issuer (the callers' tokens are exchanged at its issuer)",
        ),
        (
            [&http[..], &issuer[..]].concat(),
            &[][..],
            "--exchange-client-id and MCP_EXCHANGE_CLIENT_SECRET (the gateway's own client at the issuer)",
        ),
    ] {
        check_config(&file, &args, envs).code(1).stderr(format!(
            "error: server \"notes\" has toolmodelCredentials, which need {missing}\n"
        ));
    }
    let all = [&http[..], &issuer[..], &client[..]].concat();
    check_config(&file, &all, &[]).code(1).stderr(
        "error: --exchange-client-id \"toolmodel-gateway\": MCP_EXCHANGE_CLIENT_SECRET is not set (the client's secret is read from it, never from the command line)\n",
    );
    check_config(&file, &all, &secret)
        .code(0)
        .stdout(predicates::str::contains(
            "  server \"notes\": each user's own token, exchanged as toolmodel-gateway\n",
        ));
}

/// Issue 44: a server with `toolmodelCredentials.oauth` needs `--http` and `--auth-issuer`;
/// the gateway's redirect endpoint is the origin of `--resource` followed by
/// `/oauth/callback`, which the summary names.
#[test]
fn check_config_derives_the_oauth_redirect_endpoint_from_the_resource() {
    let file = config_file(&json!({"mcpServers": {
        "saas": {"url": "https://saas.example.com/mcp", "toolmodelCredentials": {"oauth": {"clientId": "toolmodel-gateway"}}}
    }}));
    check_config(&file, &["--http", "127.0.0.1:0"], &[]).code(1).stderr(
        "error: server \"saas\" has toolmodelCredentials.oauth, which needs --http and --auth-issuer (each user's authorization is kept for the subject of their token)\n",
    );
    let args = [
        "--http",
        "127.0.0.1:0",
        "--auth-issuer",
        "https://auth.example.com",
        "--resource",
        "https://mcp.example.com/mcp",
    ];
    check_config(&file, &args, &[])
        .code(0)
        .stdout(predicates::str::contains(
            "  server \"saas\": each user authorizes toolmodel-gateway at its authorization server, redirected to https://mcp.example.com/oauth/callback\n",
        ));
    // The token store's key needs a Redis session store, and 32 bytes.
    let key = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
    check_config(&file, &args, &[("MCP_TOKEN_STORE_KEY", key)]).code(1).stderr(
        "error: MCP_TOKEN_STORE_KEY is set, but MCP_SESSION_STORE names no Redis server to keep the users' tokens in\n",
    );
    let redis = ("MCP_SESSION_STORE", "redis://127.0.0.1:1");
    check_config(&file, &args, &[("MCP_TOKEN_STORE_KEY", "c2hvcnQ="), redis])
        .code(1)
        .stderr(
            "error: token store: the key (MCP_TOKEN_STORE_KEY) is not 32 bytes in base64 (make one with: openssl rand -base64 32)\n",
        );
    check_config(&file, &args, &[("MCP_TOKEN_STORE_KEY", key), redis]).code(0);
}

#[test]
fn check_config_names_each_problem_of_the_options() {
    let file = config_file(&json!({"mcpServers": {
        "time": {"command": "x", "requiredScopes": ["notes:write"]}
    }}));
    // requiredScopes over HTTP with nothing to check them; the introspection secret missing;
    // an issuer over plain HTTP off loopback.
    check_config(&file, &["--http", "127.0.0.1:0"], &[])
        .code(1)
        .stderr(predicates::str::contains(
            "error: server \"time\" has requiredScopes [\"notes:write\"], which only a gateway with --auth-issuer checks",
        ));
    check_config(
        &file,
        &[
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            "http://127.0.0.1:1",
            "--introspection-client-id",
            "gateway",
        ],
        &[],
    )
    .code(1)
    .stderr("error: --introspection-client-id \"gateway\": MCP_INTROSPECTION_CLIENT_SECRET is not set (the client's secret is read from it, never from the command line)\n");
    check_config(
        &file,
        &[
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            "http://auth.example.com",
        ],
        &[],
    )
    .code(1)
    .stderr(predicates::str::contains(
        "issuer \"http://auth.example.com/\" is neither https nor http on a loopback host",
    ));
    check_config(
        &file,
        &[
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            "http://127.0.0.1:1",
            "--introspection-client-id",
            "gateway",
            "--introspection-rate",
            "0",
        ],
        &[("MCP_INTROSPECTION_CLIENT_SECRET", "s3cret")],
    )
    .code(1)
    .stderr(predicates::str::contains("--introspection-rate 0: "));
    // Values clap refuses: a usage error, 2.
    for (flag, value, expected) in [
        (
            "--allowed-hosts",
            "https://mcp.example.com",
            "\"https://mcp.example.com\" is a URL: write the host name alone (\"mcp.example.com\")",
        ),
        (
            "--allowed-origins",
            "app.example.com",
            "\"app.example.com\" is not an origin",
        ),
    ] {
        check_config(&file, &["--http", "127.0.0.1:0", flag, value], &[])
            .code(2)
            .stderr(predicates::str::contains(expected));
    }
    check_config(
        &file,
        &[
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            "http://127.0.0.1:1",
            "--scopes",
            "a b",
        ],
        &[],
    )
    .code(2)
    .stderr(predicates::str::contains(
        "scope \"a b\" holds ' ' (U+0020) at position 1",
    ));
    // --allowed-hosts that leave out the host of --resource: a warning, not an error.
    check_config(
        &file,
        &[
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            "http://127.0.0.1:1",
            "--resource",
            "https://mcp.example.com/mcp",
            "--allowed-hosts",
            "gateway.internal",
        ],
        &[],
    )
    .code(0)
    .stderr("warning: --allowed-hosts leaves out \"mcp.example.com\", the host of --resource: a client that connects to the resource gets 403 unless a proxy in front rewrites Host\n");
}

#[test]
fn an_error_about_the_whole_file_reads_without_a_pointer() {
    let file = config_file(&json!([{"command": "x"}]));
    check_config(&file, &[], &[]).code(1).stderr(format!(
        "error: {}: the configuration is an array, not an object with mcpServers or servers\n",
        file.path().display()
    ));
    let file = config_file(&json!({"mcpServer": {}}));
    check_config(&file, &[], &[]).code(1).stderr(format!(
        "error: {}: at /mcpServer: unknown key \"mcpServer\": did you mean \"mcpServers\"?\n",
        file.path().display()
    ));
    let file = config_file(&json!({"preferences": {}}));
    check_config(&file, &[], &[]).code(1).stderr(format!(
        "error: {}: no mcpServers or servers object\n",
        file.path().display()
    ));
    // The gateway itself: the same message, and exit status 2 (it could not start).
    cargo_bin_cmd!("toolmodel")
        .args(["gateway", "--config"])
        .arg(file.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no mcpServers or servers object"))
        .stderr(predicates::str::contains("at :").not());
}

/// An MCP JSON-RPC request to `url` (MCP 2025-11-25), with `Host: host` when given, a bearer
/// `token` when given, and the session `session` when given.
async fn post(
    url: &str,
    host: Option<&str>,
    token: Option<&str>,
    session: Option<&str>,
    body: &serde_json::Value,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .json(body);
    if let Some(host) = host {
        request = request.header("Host", host);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(session) = session {
        request = request
            .header("Mcp-Session-Id", session)
            .header("Mcp-Protocol-Version", "2025-11-25");
    }
    request.send().await.unwrap()
}

fn initialize() -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
}

/// A session with the gateway at `url` made with `token` (MCP 2025-11-25): its ID.
async fn raw_session(url: &str, token: &str) -> String {
    let reply = post(url, None, Some(token), None, &initialize()).await;
    assert_eq!(reply.status(), 200, "{reply:?}");
    let id = reply.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = post(url, None, Some(token), Some(&id), &initialized).await;
    assert_eq!(reply.status(), 202, "{reply:?}");
    id
}

/// A `tools/call` of `name` with `arguments` as a JSON-RPC request.
fn call_request(name: &str, arguments: serde_json::Value) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

/// The `WWW-Authenticate` of `reply`.
fn challenge_of(reply: &reqwest::Response) -> String {
    reply
        .headers()
        .get("www-authenticate")
        .unwrap_or_else(|| panic!("no challenge: {reply:?}"))
        .to_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_answers_the_host_of_its_resource_and_no_other() {
    let Some(up) = upstreams() else { return };
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let file = config_file(&json!({"mcpServers": {"time": {"command": "${TIME_SERVER}"}}}));
    let resource = "https://mcp.example.com/mcp";
    let (gateway, url) = http_gateway(
        &up,
        &file,
        &["--auth-issuer", &issuer.url, "--resource", resource],
    )
    .await;
    // The resource's host passes the Host check (then 401: no token), another host is 403.
    let reply = post(&url, Some("mcp.example.com"), None, None, &initialize()).await;
    assert_eq!(reply.status(), 401, "{reply:?}");
    let reply = post(&url, Some("attacker.example"), None, None, &initialize()).await;
    assert_eq!(reply.status(), 403, "{reply:?}");
    let body = reply.text().await.unwrap();
    assert!(
        body.contains("\"attacker.example\" is not allowed"),
        "{body}"
    );
    // Loopback names still pass (a health check on the machine).
    let token = issuer.token(resource, "notes:read").await;
    raw_session(&url, &token).await;
    terminate(gateway).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_introspects_opaque_tokens_with_the_secret_from_the_environment() {
    let Some(up) = upstreams() else { return };
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let file = config_file(&json!({"mcpServers": {"time": {"command": "${TIME_SERVER}"}}}));
    let port = free_port();
    // provider.mjs issues opaque tokens for a resource whose path ends in /opaque.
    let resource = format!("http://127.0.0.1:{port}/opaque");
    let (server_id, server_secret) = issuer::SERVER_CLIENT;
    let (gateway, url) = http_gateway_on(
        &up,
        &file,
        port,
        &[
            "--auth-issuer",
            &issuer.url,
            "--resource",
            &resource,
            "--introspection-client-id",
            server_id,
        ],
        &[("MCP_INTROSPECTION_CLIENT_SECRET", server_secret)],
    )
    .await;
    let token = issuer.token(&resource, "notes:read").await;
    assert!(!token.contains('.'), "an opaque token: {token}");
    let service = session(&url, &token).await;
    let time = service
        .call_tool(call("get_current_time", json!({"timezone": "UTC"})))
        .await
        .unwrap();
    assert_ne!(time.is_error, Some(true), "{time:?}");
    service.cancel().await.unwrap();
    terminate(gateway).await;
}

/// nginx on a loopback port, in front of the gateway on `upstream` (`127.0.0.1:PORT`),
/// passing `Host: mcp.example.com` as a TLS front for `https://mcp.example.com` would.
struct Nginx {
    /// Its URL, `http://127.0.0.1:<port>`.
    url: String,
    _child: tokio::process::Child,
    _dir: tempfile::TempDir,
}

impl Nginx {
    /// Starts nginx (installed by `serve/install_nginx.sh` when missing); `None`, with a
    /// notice, when it cannot be installed or started outside CI (under `CI`, a failure).
    async fn start(upstream: &str) -> Option<Self> {
        match Self::try_start(upstream).await {
            Ok(nginx) => Some(nginx),
            Err(why) if std::env::var_os("CI").is_some() => {
                panic!("nginx did not start under CI: {why}")
            }
            Err(why) => {
                eprintln!(
                    "notice: skipped, nginx did not start ({why}); run serve/install_nginx.sh"
                );
                None
            }
        }
    }

    async fn try_start(upstream: &str) -> Result<Self, String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let installed = std::process::Command::new("bash")
            .arg(root.join("serve/install_nginx.sh"))
            .output()
            .map_err(|err| format!("bash: {err}"))?;
        if !installed.status.success() {
            return Err(String::from_utf8_lossy(&installed.stderr).trim().to_owned());
        }
        let binary = String::from_utf8_lossy(&installed.stdout).trim().to_owned();
        let dir = tempfile::tempdir().map_err(|err| err.to_string())?;
        let port = free_port();
        let path = dir.path().display().to_string();
        // As root, nginx would switch its workers to `nobody`: keep the current user.
        let user = match id("-u").as_deref() {
            Some("0") => format!(
                "user {} {};",
                id("-un").unwrap_or_default(),
                id("-gn").unwrap_or_default()
            ),
            _ => String::new(),
        };
        let conf = format!(
            "{user}
daemon off;
worker_processes 1;
pid {path}/nginx.pid;
error_log {path}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {path}/client_body;
    proxy_temp_path {path}/proxy;
    fastcgi_temp_path {path}/fastcgi;
    uwsgi_temp_path {path}/uwsgi;
    scgi_temp_path {path}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://{upstream};
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            # The public name: what clients of https://mcp.example.com/mcp send.
            proxy_set_header Host mcp.example.com;
            # Event streams (SSE) pass as they come.
            proxy_buffering off;
            proxy_read_timeout 60s;
        }}
    }}
}}
"
        );
        std::fs::write(dir.path().join("nginx.conf"), conf).map_err(|err| err.to_string())?;
        let mut child = tokio::process::Command::new(&binary)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(dir.path().join("nginx.conf"))
            .arg("-e")
            .arg(dir.path().join("error.log"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| format!("{binary}: {err}"))?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                let log = std::fs::read_to_string(dir.path().join("error.log")).unwrap_or_default();
                return Err(format!("nginx exited ({status}): {log}"));
            }
            if Instant::now() > deadline {
                return Err("nginx did not listen within 10 s".to_owned());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(Self {
            url: format!("http://127.0.0.1:{port}"),
            _child: child,
            _dir: dir,
        })
    }
}

/// `id FLAG`'s answer (`-u`, `-un`, `-gn`).
fn id(flag: &str) -> Option<String> {
    let output = std::process::Command::new("id").arg(flag).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_nginx_with_a_public_host_name_the_gateway_serves_a_token_and_refuses_one_without_a_servers_scope()
 {
    let Some(up) = upstreams() else { return };
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let port = free_port();
    let Some(nginx) = Nginx::start(&format!("127.0.0.1:{port}")).await else {
        return;
    };
    // The time server's tools need notes:write; server-everything's only what every request
    // needs (--scopes notes:read).
    let file = config_file(&json!({"mcpServers": {
        "everything": {"command": up["EVERYTHING"]},
        "time": {"command": "${TIME_SERVER}", "requiredScopes": ["notes:write"]}
    }}));
    let resource = "https://mcp.example.com/mcp";
    let (gateway, direct) = http_gateway_on(
        &up,
        &file,
        port,
        &[
            "--auth-issuer",
            &issuer.url,
            "--resource",
            resource,
            "--scopes",
            "notes:read",
            "--allowed-hosts",
            "mcp.example.com",
        ],
        &[],
    )
    .await;
    let url = format!("{}/mcp", nginx.url);

    // The metadata, through nginx: the public resource, and every scope.
    let metadata: serde_json::Value = reqwest::get(format!(
        "{}/.well-known/oauth-protected-resource/mcp",
        nginx.url
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(metadata["resource"], resource);
    assert_eq!(metadata["authorization_servers"], json!([issuer.url]));
    let supported = metadata["scopes_supported"].as_array().unwrap();
    assert!(
        supported.contains(&json!("notes:read")) && supported.contains(&json!("notes:write")),
        "{metadata}"
    );
    // Without a token: 401 naming the public metadata URL.
    let reply = post(&url, None, None, None, &initialize()).await;
    assert_eq!(reply.status(), 401, "{reply:?}");
    assert!(
        challenge_of(&reply).contains(
            "resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
        ),
        "{reply:?}"
    );

    // A token with both scopes: rmcp's client, through nginx, calls both servers' tools.
    let both = issuer.token(resource, "notes:read notes:write").await;
    let service = session(&url, &both).await;
    let time = service
        .call_tool(call("get_current_time", json!({"timezone": "UTC"})))
        .await
        .unwrap();
    assert_ne!(time.is_error, Some(true), "{time:?}");
    let echo = service
        .call_tool(call("echo", json!({"message": "behind nginx"})))
        .await
        .unwrap();
    assert_eq!(
        echo.content[0].as_text().unwrap().text,
        "Echo: behind nginx"
    );
    service.cancel().await.unwrap();

    // A token without notes:write: server-everything's tools, not the time server's.
    let reader = issuer.token(resource, "notes:read").await;
    let id = raw_session(&url, &reader).await;
    let refused = post(
        &url,
        None,
        Some(&reader),
        Some(&id),
        &call_request("get_current_time", json!({"timezone": "UTC"})),
    )
    .await;
    assert_eq!(refused.status(), 403, "{refused:?}");
    let challenge = challenge_of(&refused);
    assert!(
        challenge.contains("error=\"insufficient_scope\"")
            && challenge.contains("scope=\"notes:read notes:write\""),
        "{challenge}"
    );
    let echoed = post(
        &url,
        None,
        Some(&reader),
        Some(&id),
        &call_request("echo", json!({"message": "x"})),
    )
    .await;
    assert_eq!(echoed.status(), 200, "{echoed:?}");

    // --allowed-hosts replaced the loopback names: the gateway's own address is refused.
    let reply = post(&direct, None, Some(&both), None, &initialize()).await;
    assert_eq!(reply.status(), 403, "{reply:?}");
    terminate(gateway).await;
}

/// Issue 44: `toolmodel gateway --exchange-client-id` (its secret from the environment) calls
/// a server whose entry has `toolmodelCredentials` as each caller: the upstream (behind the
/// same issuer, for its own resource) sees A's and B's own subjects, and the gateway as the
/// client that exchanged their tokens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_calls_a_credentialed_server_as_each_user_with_exchanged_tokens() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream = format!("http://{}/mcp", listener.local_addr().unwrap());
    let whoami = toolmodel::Tool::from_mcp_json(
        &json!({"name": "whoami", "inputSchema": {"type": "object"}}),
    )
    .unwrap();
    let toolbox = toolmodel::Toolbox::builder()
        .with_tool(whoami, |_, cx| {
            let caller = cx.caller().cloned();
            async move {
                let caller = caller.expect("a verified caller");
                Ok(toolmodel::CallToolResult::text(format!(
                    "subject {}, client {}",
                    caller.subject(),
                    caller.client_id().unwrap_or("-")
                )))
            }
        })
        .build()
        .unwrap();
    let server = toolmodel_rmcp::ToolboxServer::new(toolbox).with_authorization(
        toolmodel_rmcp::auth::ResourceServer::new(&issuer.url, &upstream).unwrap(),
    );
    tokio::spawn(server.serve_http(listener).into_future());
    let file = config_file(&json!({"mcpServers": {"notes": {
        "url": upstream,
        "toolmodelCredentials": {"tokenExchange": {"resource": upstream, "scope": "profile:read"}}
    }}}));
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    issuer.allow_exchange_from(&url).await;
    let (client_id, secret) = issuer::GATEWAY_CLIENT;
    let gateway = gateway_on(&file, port)
        .args([
            "--auth-issuer",
            &issuer.url,
            "--exchange-client-id",
            client_id,
        ])
        .env("MCP_EXCHANGE_CLIENT_SECRET", secret)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the gateway did not listen");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for user in [issuer::CLIENT, issuer::OTHER_CLIENT] {
        let token = issuer.token_for(user, &url, "notes:read").await;
        let service = session(&url, &token).await;
        let answer = service
            .call_tool(CallToolRequestParams::new("whoami"))
            .await
            .unwrap();
        assert_ne!(answer.is_error, Some(true), "{answer:?}");
        assert_eq!(
            answer.content[0].as_text().unwrap().text,
            format!("subject {}, client {client_id}", user.0)
        );
        service.cancel().await.unwrap();
    }
    terminate(gateway).await;
}
