//! The one way output reaches the disk.
//!
//! [`write_content`] writes to a temporary file in the destination's own
//! folder and renames it over the destination. A rename within one folder is
//! atomic on the file systems we target, so a reader (a web server, a sync
//! job) sees either the old file or the new one, never half of one. Files are
//! not fsynced: the site is rebuilt from the store on every run, so a crash
//! costs a rebuild, not data.

use std::fs;
use std::io::Write;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::SiteError;

/// Prefix of temporary files; nothing else in the output starts with it.
const TEMP_PREFIX: &str = ".tmp-";

/// Writes `content` to `out/rel`, creating folders as needed, replacing any
/// existing file atomically. `rel` must be a relative path without `..`.
pub fn write_content(out: &Path, rel: &Path, content: &[u8]) -> Result<(), SiteError> {
    let io = |action, path: &Path| {
        let path = path.to_path_buf();
        move |source| SiteError::Io {
            action,
            path,
            source,
        }
    };
    let escapes = rel.components().any(|c| !matches!(c, Component::Normal(_)));
    let (Some(name), false) = (rel.file_name(), escapes) else {
        return Err(SiteError::Io {
            action: "write",
            path: out.join(rel),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "output paths must be relative, plain names under the output folder",
            ),
        });
    };
    let dest = out.join(rel);
    let dir = dest.parent().unwrap_or(out);
    fs::create_dir_all(dir).map_err(io("create folder", dir))?;

    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // Ends apart from the name, so a reader that picks files by their
    // ending (node_exporter's `*.prom`) never reads one half written.
    let temp = dir.join(format!(
        "{TEMP_PREFIX}{}-{}-{}.part",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        name.to_string_lossy()
    ));
    let result = fs::File::create(&temp)
        .and_then(|mut f| f.write_all(content))
        .map_err(io("write", &temp))
        .and_then(|()| fs::rename(&temp, &dest).map_err(io("rename into place", &dest)));
    if result.is_err() {
        // Best effort: the error that matters is the one returned.
        let _ = fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("signals-site-write-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    /// The names of the entries of a folder.
    fn names_in(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect()
    }

    #[test]
    fn writes_replace_atomically_and_leave_no_temp_files() {
        let out = scratch("atomic");
        let rel = Path::new("g/r/index.html");
        write_content(&out, rel, b"first").unwrap();
        write_content(&out, rel, b"second").unwrap();
        assert_eq!(fs::read(out.join(rel)).unwrap(), b"second");
        assert_eq!(names_in(&out.join("g/r")), ["index.html"]);
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn paths_cannot_escape_the_output_folder() {
        let out = scratch("escape");
        for rel in ["../x.html", "/etc/x", "a/../../x", "", "."] {
            let err = write_content(&out, Path::new(rel), b"x").unwrap_err();
            assert!(matches!(err, SiteError::Io { .. }), "{rel}");
        }
        assert!(!out.exists());
    }

    #[test]
    fn failed_write_names_the_path_and_cleans_up() {
        let out = scratch("fail");
        // A folder where the file should go makes the rename fail.
        fs::create_dir_all(out.join("a/index.html/inner")).unwrap();
        let err = write_content(&out, Path::new("a/index.html"), b"x").unwrap_err();
        assert!(err.to_string().contains("a/index.html"), "{err}");
        assert_eq!(names_in(&out.join("a")), ["index.html"]);
        fs::remove_dir_all(&out).unwrap();
    }
}
