//! The pages `serve` shows: the export's own files, written by the same
//! incremental export (`export::export_with`) into a private folder, and
//! brought up to date when the store has a newer run.
//!
//! `serve` never renders a page with code of its own; item history pages,
//! which that private export does not write, are rendered on demand by the
//! export's own function (in `api.rs`, `history_page`).

use std::path::{Component, Path, PathBuf};

use anyhow::Context;
use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use signals_store::Backend;

use super::api::{Answer, error};

/// The private site folder, removed when dropped: on a normal stop, on an
/// error, and after SIGINT or SIGTERM.
pub struct PrivateSite(pub PathBuf);

impl Drop for PrivateSite {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The store's state that the pages depend on: each repository's key and
/// number of runs.
fn data_key(store: &dyn signals_store::Reads) -> anyhow::Result<String> {
    Ok(serde_json::to_string(
        &store
            .repositories()?
            .iter()
            .map(|s| (s.key.raw(), s.run_count))
            .collect::<Vec<_>>(),
    )?)
}

/// How to run the export that writes the private site: this very program,
/// with the configuration `serve` was started with.
pub struct Exporter {
    /// The configuration file (absent: the defaults and the environment).
    pub config: PathBuf,
    /// The store, as `serve` opened it.
    pub store: PathBuf,
    /// The private site folder.
    pub site: PathBuf,
    /// The process id of the export running, if one is: stopped when the
    /// server stops, so it never writes into a removed folder.
    pub running: std::sync::Mutex<Option<u32>>,
}

impl Exporter {
    /// Stops the export running, if any (SIGTERM).
    pub fn stop(&self) {
        let running = *self.running.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(pid) = running.and_then(|p| libc::pid_t::try_from(p).ok()) {
            // SAFETY: kill(2) on our own child's pid; it is cleared as soon
            // as the child is reaped, and this runs only when the server
            // stops, after which no export starts.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
    }
}

/// Brings the private site up to date with the store: an incremental
/// export (only repositories with a newer run are rendered), skipped when
/// `known` is the store's state already. Returns the store's state.
///
/// The export runs in a child process (`signals export --serve-site`), the
/// same code as `signals export`: its peak memory, which grows with the
/// largest repository, goes back to the system when it ends, so `serve`'s
/// own memory stays that of its indexes and connections.
pub fn refresh(store: &dyn Backend, exporter: &Exporter, known: &str) -> anyhow::Result<String> {
    let key = data_key(store)?;
    if key == known && exporter.site.exists() {
        return Ok(key);
    }
    let program = std::env::current_exe().context("cannot find the signals program to export")?;
    let out = std::process::Command::new(&program)
        .arg("--config")
        .arg(&exporter.config)
        .arg("export")
        .arg("--store")
        .arg(&exporter.store)
        .arg("--out")
        .arg(&exporter.site)
        .arg("--serve-site")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {} export", program.display()))?;
    *exporter.running.lock().unwrap_or_else(|p| p.into_inner()) = Some(out.id());
    let out = out.wait_with_output();
    *exporter.running.lock().unwrap_or_else(|p| p.into_inner()) = None;
    let out = out.with_context(|| format!("cannot run {} export", program.display()))?;
    if !out.status.success() {
        let error = anyhow::anyhow!(
            "the export of the private site into {} failed ({}): {}",
            exporter.site.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        // The child's own code for a full disk, kept as a cause so that
        // `serve` knows it too (and exits with it when starting).
        if out.status.code() == Some(i32::from(crate::exit::DISK_FULL)) {
            return Err(anyhow::Error::new(crate::exit::disk_full_cause()).context(error));
        }
        return Err(error);
    }
    Ok(key)
}

/// A file of the private site, streamed from disk; `/` is the index, a
/// folder its `index.html`. Anything that would leave the site is refused.
pub async fn file(site: &Path, path: &str) -> Result<Response, Answer> {
    let rel = relative(path)?;
    let root = tokio::fs::canonicalize(site)
        .await
        .map_err(|e| error(500, format!("the site is missing: {e}")))?;
    let mut full = root.join(&rel);
    if tokio::fs::metadata(&full).await.is_ok_and(|m| m.is_dir()) {
        full.push("index.html");
    }
    // Links inside the site (generations, versions) are followed, but the
    // file must still be under the site's own folder.
    let missing = || error(404, format!("no such page: {path}"));
    let real = tokio::fs::canonicalize(&full)
        .await
        .map_err(|_| missing())?;
    let private = root.parent().map(Path::to_path_buf).unwrap_or(root.clone());
    if !real.starts_with(&private) {
        return Err(error(400, "the path leaves the site"));
    }
    let file = tokio::fs::File::open(&real).await.map_err(|_| missing())?;
    let meta = file.metadata().await.map_err(|_| missing())?;
    if !meta.is_file() {
        return Err(missing());
    }
    let length = meta.len();
    let mut response = Response::new(Body::from_stream(tokio_util::io::ReaderStream::new(file)));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(content_type(&real)),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    Ok(response)
}

/// Whether `path` (without its trailing slash) names a folder of the site,
/// such as a group's or a repository's: its address then redirects to the
/// one with the slash, against which the page's relative links resolve.
pub async fn is_folder(site: &Path, path: &str) -> bool {
    match relative(path) {
        Ok(rel) if !rel.as_os_str().is_empty() => tokio::fs::metadata(site.join(rel))
            .await
            .is_ok_and(|m| m.is_dir()),
        _ => false,
    }
}

/// `path` as a path inside the site; anything that would leave it (`..`,
/// a root) is refused.
fn relative(path: &str) -> Result<PathBuf, Answer> {
    let mut rel = PathBuf::new();
    for part in Path::new(path.trim_start_matches('/')).components() {
        match part {
            Component::Normal(p) => rel.push(p),
            Component::CurDir => {}
            _ => return Err(error(400, "the path leaves the site")),
        }
    }
    Ok(rel)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("json") => "application/json; charset=utf-8",
        Some("atom") => "application/atom+xml; charset=utf-8",
        _ => "application/octet-stream",
    }
}
