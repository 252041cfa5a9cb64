//! A keep-alive HTTP/1.1 client for the benchmarks that ask a server on
//! loopback (`api`, `search`): one GET at a time, the whole answer read
//! (by its length, or chunk by chunk).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// A keep-alive HTTP/1.1 connection.
pub struct Client(BufReader<TcpStream>);

impl Client {
    /// Connects to `127.0.0.1:port`.
    pub fn connect(port: u16) -> Client {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_nodelay(true).unwrap();
        Client(BufReader::new(s))
    }

    /// Sends one GET; returns the status and the body.
    pub fn get(&mut self, target: &str) -> (u16, Vec<u8>) {
        write!(
            self.0.get_mut(),
            "GET {target} HTTP/1.1\r\nHost: bench\r\n\r\n"
        )
        .unwrap();
        let mut line = String::new();
        self.0.read_line(&mut line).unwrap();
        let status: u16 = line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut length = 0;
        let mut chunked = false;
        loop {
            line.clear();
            self.0.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
                chunked = true;
            }
        }
        if !chunked {
            let mut body = vec![0; length];
            self.0.read_exact(&mut body).unwrap();
            return (status, body);
        }
        let mut body = Vec::new();
        loop {
            line.clear();
            self.0.read_line(&mut line).unwrap();
            let n = usize::from_str_radix(line.trim(), 16).unwrap();
            let mut chunk = vec![0; n + 2];
            self.0.read_exact(&mut chunk).unwrap();
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
        (status, body)
    }
}

/// Requests per second of `clients` threads asking `target` (each must
/// answer 200) on their own keep-alive connections for `time`.
pub fn throughput(port: u16, target: &str, clients: usize, time: Duration) -> f64 {
    let end = Instant::now() + time;
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let target = target.to_string();
            std::thread::spawn(move || {
                let mut client = Client::connect(port);
                let mut n = 0u64;
                while Instant::now() < end {
                    assert_eq!(client.get(&target).0, 200);
                    n += 1;
                }
                n
            })
        })
        .collect();
    let total: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    total as f64 / time.as_secs_f64()
}
