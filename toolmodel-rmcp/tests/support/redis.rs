//! A throwaway Redis for the tests of the Redis task store: `redis-server` (Debian's package;
//! `scale/redis.sh install` installs it) on a free loopback port, no persistence, stopped when
//! dropped. When it cannot start, the test is skipped with a notice on stderr, and fails when
//! the environment variable `CI` is set.

// Each test binary includes this file and uses what it needs of it.
#![allow(dead_code)]

use std::{
    net::{TcpListener, TcpStream},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// A running `redis-server`, stopped on drop.
pub struct RedisServer {
    child: Child,
    /// `redis://127.0.0.1:PORT`.
    pub url: String,
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn unavailable(why: &str) -> Option<RedisServer> {
    assert!(
        std::env::var_os("CI").is_none(),
        "Redis is needed under CI and did not start: {why} (install it: scale/redis.sh install)"
    );
    eprintln!("notice: skipping a Redis task store test: {why} (scale/redis.sh install)");
    None
}

impl RedisServer {
    /// A new server, or `None` (with a notice) when it cannot start outside CI.
    pub fn start() -> Option<Self> {
        let binary = [
            "redis-server",
            "/usr/bin/redis-server",
            "/usr/local/bin/redis-server",
        ]
        .into_iter()
        .find(|candidate| {
            Command::new(candidate)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|status| status.success())
        });
        let Some(binary) = binary else {
            return unavailable("redis-server is not installed");
        };
        for _ in 0..5 {
            let port = match TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) {
                Ok(address) => address.port(),
                Err(err) => return unavailable(&format!("no free port: {err}")),
            };
            let child = Command::new(binary)
                .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
                .args(["--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn();
            let Ok(child) = child else {
                return unavailable("redis-server does not run");
            };
            let server = Self {
                child,
                url: format!("redis://127.0.0.1:{port}"),
            };
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(5) {
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return Some(server);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        unavailable("redis-server did not listen within 5 s")
    }
}
