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

use crate::error::SiteError;

/// Prefix of temporary files; nothing else in the output starts with it.
const TEMP_PREFIX: &str = ".tmp-";

/// Writes `content` to `out/rel`, creating folders as needed, replacing any
/// existing file atomically. `rel` must be a relative path without `..`.
pub fn write_content(out: &Path, rel: &Path, content: &[u8]) -> Result<(), SiteError> {
    let mut file = Staged::create(out, rel)?;
    if let Err(source) = file.write_all(content) {
        let path = file.temp.clone();
        file.abandon();
        return Err(SiteError::Io {
            action: "write",
            path,
            source,
        });
    }
    file.commit()
}

/// A file being written a part at a time (a big `dataset.json` or filter
/// index, never held whole), to a temporary file beside its destination:
/// [`Staged::commit`] renames it into place, as [`write_content`] does;
/// dropped without it, the temporary file is removed and the destination
/// is left as it was.
#[derive(Debug)]
pub struct Staged {
    temp: std::path::PathBuf,
    dest: std::path::PathBuf,
    file: Option<std::io::BufWriter<fs::File>>,
}

impl Staged {
    /// Starts writing `out/rel` (a relative path without `..`), creating
    /// folders as needed.
    pub fn create(out: &Path, rel: &Path) -> Result<Staged, SiteError> {
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
        let file = fs::File::create(&temp).map_err(io("write", &temp))?;
        Ok(Staged {
            temp,
            dest,
            file: Some(std::io::BufWriter::with_capacity(64 * 1024, file)),
        })
    }

    /// Finishes the file and renames it into place.
    pub fn commit(mut self) -> Result<(), SiteError> {
        let flushed = match self.file.take() {
            Some(f) => f.into_inner().map(drop).map_err(|e| e.into_error()),
            None => Ok(()),
        };
        let result = flushed
            .map_err(|source| SiteError::Io {
                action: "write",
                path: self.temp.clone(),
                source,
            })
            .and_then(|()| {
                fs::rename(&self.temp, &self.dest).map_err(|source| SiteError::Io {
                    action: "rename into place",
                    path: self.dest.clone(),
                    source,
                })
            });
        if result.is_err() {
            // Best effort: the error that matters is the one returned.
            let _ = fs::remove_file(&self.temp);
        }
        // Renamed or removed: nothing is left for `Drop`.
        self.temp = std::path::PathBuf::new();
        result
    }

    fn abandon(mut self) {
        self.file = None;
        let _ = fs::remove_file(&self.temp);
        self.temp = std::path::PathBuf::new();
    }
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(std::io::Error::other("the file was already finished")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            self.file = None;
            let _ = fs::remove_file(&self.temp);
        }
    }
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
