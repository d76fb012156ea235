//! A throwaway Redis for the tests of the Redis task store: `redis-server` (Debian's package;
//! `scale/redis.sh install` installs it) on a free loopback port, no persistence, stopped when
//! dropped. When it cannot start, the test is skipped with a notice on stderr, and fails when
//! the environment variable `CI` is set.

use std::{
    net::{TcpListener, TcpStream},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// A running `redis-server`, stopped on drop.
pub struct RedisServer {
    child: Child,
    binary: &'static str,
    port: u16,
    extra: Vec<String>,
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
        Self::start_with(&[])
    }

    /// A new server started with `extra` arguments too (`["--requirepass", "secret"]`), or
    /// `None` (with a notice) when it cannot start outside CI.
    pub fn start_with(extra: &[&str]) -> Option<Self> {
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
        let extra: Vec<String> = extra.iter().map(|arg| (*arg).to_owned()).collect();
        for _ in 0..5 {
            let port = match TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) {
                Ok(address) => address.port(),
                Err(err) => return unavailable(&format!("no free port: {err}")),
            };
            let Some(child) = spawn(binary, port, &extra) else {
                return unavailable("redis-server does not run");
            };
            let server = Self {
                child,
                binary,
                port,
                extra: extra.clone(),
                url: format!("redis://127.0.0.1:{port}"),
            };
            if listening(port) {
                return Some(server);
            }
        }
        unavailable("redis-server did not listen within 5 s")
    }

    /// Stops the server (a Redis that went down); [`restart`](Self::restart) starts it again.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Stops the server and starts a new one, empty, on the same port (a Redis that
    /// restarted without persistence).
    pub fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = spawn(self.binary, self.port, &self.extra).expect("redis-server restarts");
        assert!(listening(self.port), "redis-server listens again");
    }

    /// The keys matching `pattern` (Redis `KEYS`, glob-style), sorted.
    pub fn keys(&self, pattern: &str) -> Vec<String> {
        let mut keys: Vec<String> = self.query(redis::cmd("KEYS").arg(pattern));
        keys.sort();
        keys
    }

    /// The value at `key` (Redis `GET`), as bytes: empty when there is none.
    pub fn value(&self, key: &str) -> Vec<u8> {
        self.query(redis::cmd("GET").arg(key))
    }

    /// The time `key` has left to live, in seconds (Redis `TTL`: -1 without one, -2 when
    /// absent).
    pub fn ttl(&self, key: &str) -> i64 {
        self.query(redis::cmd("TTL").arg(key))
    }

    /// `command`'s answer, on a connection of its own.
    fn query<T: redis::FromRedisValue>(&self, command: &redis::Cmd) -> T {
        let mut connection = redis::Client::open(self.url.as_str())
            .and_then(|client| client.get_connection())
            .expect("a connection to the test's redis-server");
        command
            .query(&mut connection)
            .expect("an answer from the test's redis-server")
    }
}

fn spawn(binary: &str, port: u16, extra: &[String]) -> Option<Child> {
    Command::new(binary)
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .args(["--save", "", "--appendonly", "no"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()
}

/// Whether a server listens on `port` within 5 seconds.
fn listening(port: u16) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}
