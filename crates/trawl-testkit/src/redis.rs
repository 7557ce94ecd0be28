//! A real `redis-server` (Debian's) for tests: a private instance on a free loopback port,
//! no persistence, killed when dropped. Never a system service.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `redis-server` this test started.
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
}

/// Whether `redis-server` can be run here.
fn redis_server_available() -> bool {
    Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl RedisServer {
    /// Starts one, or returns `None` (with a note on stderr) when `redis-server` is not
    /// installed. Under CI (`CI` set) a missing `redis-server` is a failure: `.ci/run`
    /// installs it.
    pub fn start() -> Option<Self> {
        if !redis_server_available() {
            assert!(
                !crate::in_ci(),
                "redis-server is not installed (apt-get install redis-server); CI must run the Redis tests"
            );
            eprintln!("skipped: redis-server is not installed (apt-get install redis-server)");
            return None;
        }
        let port = free_port();
        let mut server = Self { child: None, port };
        server.spawn();
        Some(server)
    }

    fn spawn(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .args(["--protected-mode", "no", "--daemonize", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.answers() {
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer PING within 10 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `redis://127.0.0.1:port`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills it (SIGKILL); its data is gone (no persistence).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Freezes it (SIGSTOP): connections are still accepted by the kernel, but nothing
    /// answers, as with a Redis that hangs or a network that drops its packets.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets a paused one run again (SIGCONT).
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, which: &str) {
        let child = self.child.as_ref().expect("redis-server is running");
        let sent = Command::new("kill")
            .args([which, &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill {which} failed");
    }

    /// Starts it again on the same port, empty.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }

    /// Whether it answers PING now.
    pub fn answers(&self) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
        let mut buf = [0u8; 7];
        s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A loopback port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}
