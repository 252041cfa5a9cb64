//! Where a repository's files go: a version folder of the publisher
//! (through `write.rs`, each file put in place at once), or memory (for
//! `render_repo` and the tests), with the count of files and bytes the
//! publisher reports. A file too big to hold (a 100,000-signal
//! `dataset.json` or `signals.json`) is written a part at a time.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::SiteError;
use crate::head::RepoHead;
use crate::paths::document_dir;
use crate::write::{Staged, write_content};

impl RepoHead<'_> {
    /// `<group>/<repo>`, the folder of this repository under `<out>`.
    pub fn dir(&self) -> Result<PathBuf, SiteError> {
        Ok(document_dir(self.document)?)
    }
}

/// Where a repository's files go: its version folder, or memory.
#[derive(Debug)]
pub struct RepoFiles {
    dest: Dest,
    /// Files written.
    pub(crate) files: usize,
    /// Bytes written.
    pub(crate) bytes: u64,
}

#[derive(Debug)]
enum Dest {
    /// Files under this folder, paths relative to it.
    Dir(PathBuf),
    /// Files kept, paths under `prefix` (`<group>/<repo>`); a file being
    /// written has its slot reserved, so files stay in the order begun.
    Memory {
        prefix: PathBuf,
        files: Vec<(PathBuf, String)>,
    },
}

/// A file of [`RepoFiles`] being written a part at a time.
pub struct RepoFile {
    inner: FileInner,
}

enum FileInner {
    Disk(Staged),
    Memory { slot: usize, bytes: Vec<u8> },
}

impl Write for RepoFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.inner {
            FileInner::Disk(f) => f.write(buf),
            FileInner::Memory { bytes, .. } => bytes.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.inner {
            FileInner::Disk(f) => f.flush(),
            FileInner::Memory { .. } => Ok(()),
        }
    }
}

impl RepoFiles {
    /// Files written under `dir` (a version folder).
    pub(crate) fn dir(dir: PathBuf) -> RepoFiles {
        RepoFiles {
            dest: Dest::Dir(dir),
            files: 0,
            bytes: 0,
        }
    }

    /// Files kept in memory, paths under `prefix`.
    pub(crate) fn memory(prefix: PathBuf) -> RepoFiles {
        RepoFiles {
            dest: Dest::Memory {
                prefix,
                files: Vec::new(),
            },
            files: 0,
            bytes: 0,
        }
    }

    /// The files kept in memory (none when written to a folder).
    pub(crate) fn into_memory(self) -> Vec<(PathBuf, String)> {
        match self.dest {
            Dest::Memory { files, .. } => files,
            Dest::Dir(_) => Vec::new(),
        }
    }

    /// Writes the file `rel` (relative to the repository's folder).
    pub fn put(&mut self, rel: &str, content: &str) -> Result<(), SiteError> {
        self.files += 1;
        self.bytes += content.len() as u64;
        match &mut self.dest {
            Dest::Dir(dir) => write_content(dir, Path::new(rel), content.as_bytes()),
            Dest::Memory { prefix, files } => {
                files.push((prefix.join(rel), content.to_string()));
                Ok(())
            }
        }
    }

    /// Puts the file `from` (of a previous version folder) at `rel` as a
    /// hard link: the same bytes, nothing written. In memory, its text is
    /// read and kept.
    pub fn link(&mut self, rel: &str, from: &Path) -> Result<(), SiteError> {
        self.files += 1;
        let failed = |source| SiteError::Io {
            action: "link",
            path: from.to_path_buf(),
            source,
        };
        match &mut self.dest {
            Dest::Dir(dir) => {
                let to = dir.join(rel);
                if let Some(parent) = to.parent() {
                    std::fs::create_dir_all(parent).map_err(failed)?;
                }
                std::fs::hard_link(from, &to).map_err(failed)
            }
            Dest::Memory { prefix, files } => {
                let bytes = std::fs::read(from).map_err(failed)?;
                files.push((
                    prefix.join(rel),
                    String::from_utf8_lossy(&bytes).into_owned(),
                ));
                Ok(())
            }
        }
    }

    /// Starts the file `rel`, to be written a part at a time and ended
    /// with [`RepoFiles::close`].
    pub fn open(&mut self, rel: &str) -> Result<RepoFile, SiteError> {
        let inner = match &mut self.dest {
            Dest::Dir(dir) => FileInner::Disk(Staged::create(dir, Path::new(rel))?),
            Dest::Memory { prefix, files } => {
                files.push((prefix.join(rel), String::new()));
                FileInner::Memory {
                    slot: files.len() - 1,
                    bytes: Vec::new(),
                }
            }
        };
        Ok(RepoFile { inner })
    }

    /// Ends a file begun with [`RepoFiles::open`] and puts it in place.
    pub fn close(&mut self, file: RepoFile, bytes: u64) -> Result<(), SiteError> {
        self.files += 1;
        self.bytes += bytes;
        match (file.inner, &mut self.dest) {
            (FileInner::Disk(f), _) => f.commit(),
            (FileInner::Memory { slot, bytes }, Dest::Memory { files, .. }) => {
                files[slot].1 = String::from_utf8_lossy(&bytes).into_owned();
                Ok(())
            }
            (FileInner::Memory { .. }, Dest::Dir(_)) => Ok(()),
        }
    }
}

/// Counts what goes through a writer.
pub struct Counted<W> {
    inner: W,
    /// Bytes written so far.
    pub bytes: u64,
}

impl<W: Write> Counted<W> {
    /// Counts what is written to `inner`.
    pub fn new(inner: W) -> Counted<W> {
        Counted { inner, bytes: 0 }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
