//! The client side of `serve/soak.sh`: attacks a Streamable HTTP server on loopback while a
//! fresh client probes it, then prints `soak: lockouts=<n> rss_growth_mb=<x> unanswered=<k>`.
//!
//! `soak-client ADDRESS SERVER_PID SECONDS`. Concurrently, for `SECONDS`:
//! - slowloris: 200 connections, each sending a header one byte a second (reconnecting when
//!   the server closes it);
//! - 10,000 sessions opened with `initialize` and never closed;
//! - 1,100 idle connections, held open (reconnecting a second after the server closes one);
//! - call-plus-cancel storms: 8 sessions sending `tools/call` then `notifications/cancelled`
//!   for it, over and over;
//! - a fresh client every 200 ms: a new connection, `initialize`, `tools/call`, `DELETE`.
//!   As MCP has clients do, a probe whose `tools/call` gets 404 (its session is gone: the
//!   server closes sessions to make room) initializes again, once; such probes are counted
//!   and logged ("new session after ..."), and answered if the second session serves them.
//!   A probe with no complete answer within 5 s is *unanswered*; one answered with anything
//!   but success (503, 429, a refused or reset connection) is a *lockout*; the first ten
//!   lockouts are logged on stderr with the step, the answer, when the probe started (seconds
//!   into the attacks) and how its handshake went (`initialize`'s time, then the status of
//!   `notifications/initialized` and how long after the `initialize` response it came).
//!
//! `rss_growth_mb` is the server's resident memory (`VmRSS` in `/proc/PID/status`) after the
//! attacks stop and 3 s pass, minus the same before they start.

#[path = "rss.rs"]
mod rss;

use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use serde_json::json;
use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::TcpStream,
};

const SLOWLORIS: usize = 200;
const IDLE_SESSIONS: usize = 10_000;
const IDLE_CONNECTIONS: usize = 1_100;
const STORMS: usize = 8;

/// One HTTP/1.1 exchange with `Connection: close`: the status and the whole response.
async fn exchange(addr: SocketAddr, head: &str, body: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(addr).await?;
    let request = format!(
        "{head}\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).await?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status in {text:?}")))?;
    Ok((status, text))
}

fn post(session: Option<&str>) -> String {
    let mut head = "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream".to_owned();
    if let Some(session) = session {
        head.push_str(&format!(
            "\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25"
        ));
    }
    head
}

fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "soak", "version": "0"}}})
    .to_string()
}

fn session_of(response: &str) -> Option<String> {
    response.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_owned())
    })
}

/// A session: `initialize`, then `notifications/initialized`.
async fn open_session(addr: SocketAddr) -> std::io::Result<String> {
    let (status, response) = exchange(addr, &post(None), &initialize()).await?;
    let session = session_of(&response)
        .ok_or_else(|| std::io::Error::other(format!("initialize: {status}")))?;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    exchange(addr, &post(Some(&session)), &initialized.to_string()).await?;
    Ok(session)
}

fn call(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "weather.get_weather", "arguments": {"city": "Paris", "days": 2}}})
    .to_string()
}

/// What the probes saw.
#[derive(Default)]
struct Probes {
    answered: AtomicUsize,
    /// Answered in a second session: the first was gone (404) at its `tools/call`.
    renewed: AtomicUsize,
    lockouts: AtomicUsize,
    unanswered: AtomicUsize,
}

/// Why a probe failed.
enum Failure {
    /// A step got no answer in time.
    Unanswered,
    /// A step was refused: which one, and what came back.
    Refused(String),
}

/// One fresh client: `Ok` when every step succeeded, `Ok(true)` when that took a second
/// session (the first was gone at the call: 404). `since` is when the attacks started:
/// a refusal names how long after it came, how long the `initialize` exchange took, how long
/// after its response `notifications/initialized` was answered and with what (the server
/// closes sessions to make room for new ones, so the time a client takes to come back
/// matters).
async fn probe(addr: SocketAddr, since: Instant) -> Result<bool, Failure> {
    let start = Instant::now();
    let handshake = std::sync::Mutex::new(String::new());
    let refused = |step: &str, what: String| {
        Failure::Refused(format!(
            "{step}: {what} (probe started {:.1} s into the attacks{})",
            start.duration_since(since).as_secs_f64(),
            handshake.lock().unwrap()
        ))
    };
    let steps = async {
        // MCP (Streamable HTTP, "Session Management"): a 404 to a request with a session ID
        // means the session is gone, and the client MUST initialize again; a probe does so
        // once, and is counted as renewed.
        let mut renewed = false;
        let session = loop {
            let began = Instant::now();
            let (status, response) = exchange(addr, &post(None), &initialize())
                .await
                .map_err(|err| refused("initialize", err.to_string()))?;
            let session = session_of(&response)
                .ok_or_else(|| refused("initialize", first_line(status, &response)))?;
            let answered = Instant::now();
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            let (status, _) = exchange(addr, &post(Some(&session)), &initialized.to_string())
                .await
                .map_err(|err| refused("notifications/initialized", err.to_string()))?;
            *handshake.lock().unwrap() = format!(
                "; initialize took {} ms, notifications/initialized got {status} {} ms after it{}",
                answered.duration_since(began).as_millis(),
                answered.elapsed().as_millis(),
                if renewed {
                    ", in the second session"
                } else {
                    ""
                }
            );
            let (status, response) = exchange(addr, &post(Some(&session)), &call(2))
                .await
                .map_err(|err| refused("tools/call", err.to_string()))?;
            if status == 404 && !renewed {
                if let Failure::Refused(why) = refused("tools/call", first_line(status, &response))
                {
                    eprintln!("soak: new session after {why}");
                }
                renewed = true;
                continue;
            }
            if status != 200 || !response.contains("\"result\"") {
                return Err(refused("tools/call", first_line(status, &response)));
            }
            break session;
        };
        let delete = format!(
            "DELETE /mcp HTTP/1.1\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25"
        );
        let (status, response) = exchange(addr, &delete, "")
            .await
            .map_err(|err| refused("DELETE", err.to_string()))?;
        if (200..300).contains(&status) {
            Ok(renewed)
        } else {
            Err(refused("DELETE", first_line(status, &response)))
        }
    };
    tokio::time::timeout(Duration::from_secs(5), steps)
        .await
        .unwrap_or(Err(Failure::Unanswered))
}

/// A status and the response's last line (its body, for the short ones the server refuses
/// with), for the log.
fn first_line(status: u16, response: &str) -> String {
    format!("{status} {}", response.lines().last().unwrap_or_default())
}

async fn slowloris(addr: SocketAddr, stop: Arc<AtomicBool>) {
    let head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut stream) = TcpStream::connect(addr).await else {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        };
        for byte in head.iter().cycle() {
            if stop.load(Ordering::Relaxed) || stream.write_all(&[*byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

async fn idle_connection(addr: SocketAddr, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        if let Ok(mut stream) = TcpStream::connect(addr).await {
            let mut buf = [0u8; 64];
            // Held until the server closes it (or the soak ends).
            let _ = tokio::time::timeout(Duration::from_secs(600), async {
                while !stop.load(Ordering::Relaxed) {
                    let read =
                        tokio::time::timeout(Duration::from_millis(500), stream.read(&mut buf));
                    if let Ok(Ok(0) | Err(_)) = read.await {
                        break;
                    }
                }
            })
            .await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn storm(addr: SocketAddr, stop: Arc<AtomicBool>) {
    let mut id = 10;
    while !stop.load(Ordering::Relaxed) {
        let Ok(session) = open_session(addr).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        for _ in 0..200 {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            id += 1;
            let head = post(Some(&session));
            let calling = call(id);
            let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "soak"}})
            .to_string();
            let _ = tokio::join!(
                exchange(addr, &head, &calling),
                exchange(addr, &head, &cancelled)
            );
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: soak-client ADDRESS SERVER_PID SECONDS";
    let addr: SocketAddr = args.next().ok_or(usage)?.parse()?;
    let pid: u32 = args.next().ok_or(usage)?.parse()?;
    let seconds: u64 = args.next().ok_or(usage)?.parse()?;

    // Warm up, then the baseline.
    probe(addr, Instant::now())
        .await
        .map_err(|_| "the server does not answer a first client")?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_before = rss::rss_kb(pid);

    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for _ in 0..SLOWLORIS {
        tasks.push(tokio::spawn(slowloris(addr, Arc::clone(&stop))));
    }
    for _ in 0..IDLE_CONNECTIONS {
        tasks.push(tokio::spawn(idle_connection(addr, Arc::clone(&stop))));
    }
    for _ in 0..STORMS {
        tasks.push(tokio::spawn(storm(addr, Arc::clone(&stop))));
    }
    let sessions_opened = Arc::new(AtomicUsize::new(0));
    for _ in 0..16 {
        let (stop, opened) = (Arc::clone(&stop), Arc::clone(&sessions_opened));
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed)
                && opened.fetch_add(1, Ordering::Relaxed) < IDLE_SESSIONS
            {
                let _ = exchange(addr, &post(None), &initialize()).await;
            }
        }));
    }

    let probes = Arc::new(Probes::default());
    let since = Instant::now();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut probing = Vec::new();
    while Instant::now() < deadline {
        let probes = Arc::clone(&probes);
        probing.push(tokio::spawn(async move {
            let counter = match probe(addr, since).await {
                Ok(renewed) => {
                    if renewed {
                        probes.renewed.fetch_add(1, Ordering::Relaxed);
                    }
                    &probes.answered
                }
                Err(Failure::Unanswered) => &probes.unanswered,
                Err(Failure::Refused(why)) => {
                    // What locked the client out, for the log (the first few).
                    if probes.lockouts.load(Ordering::Relaxed) < 10 {
                        eprintln!("soak: lockout: {why}");
                    }
                    &probes.lockouts
                }
            };
            counter.fetch_add(1, Ordering::Relaxed);
        }));
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for task in probing {
        task.await?;
    }
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.abort();
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let rss_after = rss::rss_kb(pid);
    #[allow(clippy::cast_precision_loss)]
    let growth_mb = (rss_after as f64 - rss_before as f64) / 1024.0;
    let opened = sessions_opened.load(Ordering::Relaxed).min(IDLE_SESSIONS);
    eprintln!(
        "soak: {seconds} s; {} probes answered ({} in a second session, after a 404); {opened} idle sessions opened; server RSS {:.1} MB -> {:.1} MB",
        probes.answered.load(Ordering::Relaxed),
        probes.renewed.load(Ordering::Relaxed),
        rss_before as f64 / 1024.0,
        rss_after as f64 / 1024.0,
    );
    println!(
        "soak: lockouts={} rss_growth_mb={growth_mb:.1} unanswered={}",
        probes.lockouts.load(Ordering::Relaxed),
        probes.unanswered.load(Ordering::Relaxed)
    );
    Ok(())
}
