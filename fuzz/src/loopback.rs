//! Loopback servers that answer from a script, for the parsers the library
//! crates reach only through a connection: a host's own steps behind
//! `HostClient::collect`, and the notify channels' reading of an answer.
//!
//! Each connection takes the next answer of the script; an HTTP server
//! reads the request's head first, an SMTP server speaks first. It writes
//! the answer whole, closes its side and reads what the client still sends
//! until the client closes: one answer per connection, so the client never
//! waits for one that will not come. A connection with no answer left is
//! closed at once.
//!
//! A server listens on two ports, two origins: the host's own and
//! "elsewhere", where a `Link` or `Location` pointing to any other host is
//! sent ([`localize`]). Nothing leaves the machine, and a request that
//! reaches elsewhere with the token ([`Server::leaked`]) breaks the rule
//! that a token goes only to its host's origin.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// The token secret the harnesses configure; no answer may make the client
/// send it elsewhere.
pub const SECRET: &str = "fuzz-token-secret-0123456789";

/// Who speaks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The client: the server reads a request head, then answers.
    Http,
    /// The server: its answer is the whole dialogue of replies.
    Smtp,
}

/// A scripted server on two loopback ports.
pub struct Server {
    home: String,
    elsewhere: String,
    script: Arc<Mutex<VecDeque<Vec<u8>>>>,
    leaked: Arc<AtomicBool>,
}

impl Server {
    /// The process's HTTP server (started on first use).
    pub fn http() -> &'static Server {
        static SERVER: OnceLock<Server> = OnceLock::new();
        SERVER.get_or_init(|| Server::start(Mode::Http))
    }

    /// The process's SMTP server (started on first use): each answer is
    /// every reply of one dialogue, sent at once.
    pub fn smtp() -> &'static Server {
        static SERVER: OnceLock<Server> = OnceLock::new();
        SERVER.get_or_init(|| Server::start(Mode::Smtp))
    }

    fn start(mode: Mode) -> Server {
        let script = Arc::new(Mutex::new(VecDeque::new()));
        let leaked = Arc::new(AtomicBool::new(false));
        let listen = |watch: bool| {
            let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
            let addr = listener.local_addr().expect("its address");
            let (script, leaked) = (Arc::clone(&script), Arc::clone(&leaked));
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let answer = script.lock().expect("script lock").pop_front();
                    let leaked = watch.then(|| Arc::clone(&leaked));
                    std::thread::spawn(move || serve(stream, mode, answer, leaked));
                }
            });
            format!("http://{addr}")
        };
        Server {
            home: listen(false),
            elsewhere: listen(true),
            script,
            leaked,
        }
    }

    /// `http://127.0.0.1:<port>`, the host's origin.
    pub fn home(&self) -> &str {
        &self.home
    }

    /// Another origin on loopback, standing for every other host.
    pub fn elsewhere(&self) -> &str {
        &self.elsewhere
    }

    /// Replaces the script with `answers`, one per connection to come, and
    /// forgets any leak seen before.
    pub fn load(&self, answers: impl IntoIterator<Item = Vec<u8>>) {
        let mut script = self.script.lock().expect("script lock");
        script.clear();
        script.extend(answers);
        self.leaked.store(false, Ordering::SeqCst);
    }

    /// True when a request to elsewhere carried [`SECRET`] in its head
    /// since the last [`Server::load`]. A head is read before it is
    /// answered, so once the client has its answers this is settled.
    pub fn leaked(&self) -> bool {
        self.leaked.load(Ordering::SeqCst)
    }
}

/// Reads a request head (HTTP), writes `answer`, and reads what the
/// client sends until it closes (or a few seconds pass); with `leaked`,
/// notes a head that carries the secret.
fn serve(
    mut stream: TcpStream,
    mode: Mode,
    answer: Option<Vec<u8>>,
    leaked: Option<Arc<AtomicBool>>,
) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut buf = [0u8; 4096];
    if mode == Mode::Http && answer.is_some() {
        let mut head = Vec::new();
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
        if let Some(flag) = leaked
            && head.windows(SECRET.len()).any(|w| w == SECRET.as_bytes())
        {
            flag.store(true, Ordering::SeqCst);
        }
    }
    if let Some(answer) = answer {
        let _ = stream.write_all(&answer);
    }
    let _ = stream.shutdown(Shutdown::Write);
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 {
            break;
        }
    }
}

/// `value` with every absolute URL on another host than `home` pointed at
/// `elsewhere` instead (path and query kept), so that following it stays on
/// loopback while its origin still differs from the host's. The host
/// `home` (`http://home/...`) stands for `home` itself, so that a seed can
/// point at the host without knowing its port.
pub fn localize(value: &str, home: &str, elsewhere: &str) -> String {
    let home_authority = home.split_once("://").map_or(home, |(_, a)| a);
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(i) = rest.find("://") {
        // The scheme: the letters before `://`.
        let start = rest[..i]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c.is_ascii_alphanumeric() || "+-.".contains(c))
            .last()
            .map_or(i, |(j, _)| j);
        let after = &rest[i + 3..];
        let end = after
            .find(['/', '?', '#', '<', '>', ',', ';', '"', '\\', ' ', '\t'])
            .unwrap_or(after.len());
        out.push_str(&rest[..start]);
        if &after[..end] == home_authority {
            out.push_str(&rest[start..i + 3 + end]);
        } else if &after[..end] == "home" {
            out.push_str(home);
        } else {
            out.push_str(elsewhere);
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_hosts_are_sent_elsewhere() {
        let (home, other) = ("http://127.0.0.1:1", "http://127.0.0.1:2");
        assert_eq!(
            localize(
                "<https://api.github.com/x?page=2>; rel=\"next\", <http://127.0.0.1:1/y>; rel=\"last\"",
                home,
                other
            ),
            "<http://127.0.0.1:2/x?page=2>; rel=\"next\", <http://127.0.0.1:1/y>; rel=\"last\""
        );
        assert_eq!(localize("ftp://evil", home, other), "http://127.0.0.1:2");
        assert_eq!(localize("é://evil/x", home, other), "éhttp://127.0.0.1:2/x");
        assert_eq!(localize("no url", home, other), "no url");
        assert_eq!(
            localize("<http://home/a?page=2>; rel=next", home, other),
            "<http://127.0.0.1:1/a?page=2>; rel=next"
        );
        assert_eq!(
            localize("http://127.0.0.1:1@evil/", home, other),
            "http://127.0.0.1:2/"
        );
    }
}
