//! Connections: how `serve` accepts, limits, times out and closes them.
//!
//! Each connection is served by hyper's HTTP/1.1 server (keep-alive on),
//! with the request router as its service. What keeps slow or idle clients
//! from starving the others:
//!
//! - at most `max_connections` are open at once; past that, new
//!   connections wait in the listen backlog until one closes (so the
//!   server's memory is bounded by that number, not by its clients);
//! - a request head must arrive whole within `timeout` (hyper's header
//!   read timeout, which also ends a keep-alive connection idle that long,
//!   and a client that sent half a request line);
//! - a response write that makes no progress for `timeout` ends the
//!   connection ([`Patient`]: a client that stopped reading, or reads too
//!   slowly for the send buffer to drain). Request bodies are never read:
//!   only GET and HEAD are answered, and a body sent anyway closes the
//!   connection after the 405;
//! - on SIGTERM or SIGINT the listener closes, every connection finishes
//!   the request it is answering, idle ones close at once, and after
//!   `GRACE` whatever is left is dropped.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};

/// How long a stopping server waits for the requests being answered.
pub const GRACE: Duration = Duration::from_secs(10);

/// The largest request head read, in bytes: hyper's smallest buffer. A
/// request target is at most 2,048 bytes (`MAX_TARGET`), so this leaves
/// room for headers and refuses anything bigger.
const MAX_HEAD: usize = 16 * 1024;

/// What bounds a connection.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections open at once.
    pub max_connections: usize,
    /// How long a request head may take, a keep-alive connection may stay
    /// idle, and a response write may wait for the client.
    pub timeout: Duration,
}

/// Accepts and serves connections until `stop` resolves, then shuts down
/// gracefully (see the module documentation).
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: Limits,
    stop: impl Future<Output = ()>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.timeout)
        .keep_alive(true)
        .max_buf_size(MAX_HEAD);
    tokio::pin!(stop);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            () = &mut stop => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors, or the peer left before the
                // accept: wait a little rather than spin, then go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Patient::new(stream, limits.timeout));
        let service = TowerToHyperService::new(router.clone());
        let connection = graceful.watch(builder.serve_connection(io, service));
        tokio::spawn(async move {
            // A connection's error (a timeout, a reset) concerns that
            // client only.
            let _ = connection.await;
            drop(slot);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(GRACE, graceful.shutdown()).await;
}

/// A TCP stream whose writes fail with `TimedOut` when they make no
/// progress for `limit`: a client that stops reading its response is cut
/// off instead of holding its connection (and the response) forever. The
/// timer runs only while a write waits; reads are timed by hyper.
pub struct Patient {
    inner: TcpStream,
    limit: Duration,
    stalled: Pin<Box<Sleep>>,
    waiting: bool,
}

impl Patient {
    fn new(inner: TcpStream, limit: Duration) -> Patient {
        Patient {
            inner,
            limit,
            stalled: Box::pin(tokio::time::sleep(limit)),
            waiting: false,
        }
    }

    /// Times a write that returned `Pending`; progress stops the timer.
    fn timed<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match poll {
            Poll::Ready(result) => {
                self.waiting = false;
                Poll::Ready(result)
            }
            Poll::Pending => {
                if !self.waiting {
                    self.waiting = true;
                    let deadline = Instant::now() + self.limit;
                    self.stalled.as_mut().reset(deadline);
                }
                match self.stalled.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client read nothing for too long",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl AsyncRead for Patient {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Patient {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.timed(cx, poll)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_flush(cx);
        this.timed(cx, poll)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.timed(cx, poll)
    }
}

/// Raises the soft limit on open files to what `connections` need (plus
/// room for the store and the site), up to the hard limit; returns the
/// number of connections the limit allows.
pub fn fit_open_files(connections: usize) -> usize {
    const SPARE: u64 = 64;
    let wanted = connections as u64 + SPARE;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return connections;
        }
        if limit.rlim_cur < wanted {
            let raised = libc::rlimit {
                rlim_cur: wanted.min(limit.rlim_max),
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit.rlim_cur = raised.rlim_cur;
            }
        }
    }
    connections.min(limit.rlim_cur.saturating_sub(SPARE).max(1) as usize)
}
