//! Publishing a site atomically and incrementally, one repository at a time.
//!
//! The folder a web server serves, `<out>`, is a symbolic link to one
//! complete *generation* of the site. An export builds the next generation
//! beside it and then switches the link with one `rename`, which is atomic:
//! a reader sees the old site or the new one, never a mix, and never an
//! index that links to a page not yet written. A killed export leaves the
//! link on the previous generation; the next export removes what it left.
//!
//! Layout, beside `<out>` (say `site`):
//!
//! ```text
//! site -> .site.signals/gen-7                 the served link
//! .site.signals/gen-7/index.html              index, site feed, stylesheet,
//! .site.signals/gen-7/.manifest.json          what each repository's version is
//! .site.signals/gen-7/<group>/<repo> -> ../../repos/<group>/<repo>/v5
//! .site.signals/repos/<group>/<repo>/v5/...   one repository, as rendered by export 5
//! .site.signals/repos/<group>/<repo>/v5/history -> ../history
//! .site.signals/repos/<group>/<repo>/history/  its items' history pages
//! ```
//!
//! History pages are not versioned: an export writes the pages of the items
//! that changed since the repository's last export (each file replaced at
//! once, by rename), and every version folder links to the one history
//! folder. So a repository of 100,000 items costs 100,000 history pages
//! once, on its first export, and then only what changed.
//!
//! A repository's files live in a version folder that is never changed once
//! written; a generation links every repository to its current version. So
//! an export renders only the repositories whose data changed (their key in
//! the manifest differs), links the others to the versions they already
//! have, and writes the index from the summaries in the manifest: its work
//! is the changed repositories plus one link per repository. Unchanged
//! repositories' files are the very same files, byte for byte.
//!
//! An export that fails (a full disk, a write refused) removes what it
//! began before returning its error: the unfinished generation and the
//! version folders it made, so that freeing as much space as was missing
//! is enough for the next one. History pages it wrote stay: each is whole
//! (written by rename), and the next export writes the same ones again.
//!
//! Kept on disk after an export: the generation the link points to and the
//! one it replaced (a reader that resolved the old link a moment ago can
//! finish). When the next export begins, everything under `.site.signals`
//! that the served generation does not use is removed: the replaced
//! generation, and whatever killed exports left. When nothing changed at
//! all, no generation is made.
//!
//! This needs symbolic links, so it is for Unix; web servers must follow
//! them (nginx does by default; Apache needs `Options FollowSymLinks`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::digest::{DIGEST_FILE, GroupDigest, RepoDigest, render_group};
use crate::error::SiteError;
use crate::feed::{FeedEntry, keep_newest, render_site_feed_from};
use crate::files::RepoFiles;
use crate::group_search::{self, GROUP_SEARCH_DIR, Member};
use crate::index::{FILTER_SCRIPT, RepoSummary, STYLESHEET, render_importance, render_index};
use crate::paths::repo_dir;
use crate::roster::render_lists;
use crate::whole::{RepoPage, render_whole};
use crate::write::write_content;

/// Site-wide settings of a [`Publisher`] (and of [`crate::write_site_with`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteOptions {
    /// The site's public address (`https://signals.example.org/`), ending
    /// in `/`. When set, the Atom feeds link absolutely, as feed readers
    /// need; pages always link relatively, so the site works from any
    /// folder or host.
    pub base_url: Option<String>,
}

/// Which repositories a [`Publisher`] renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Render {
    /// Every repository, whatever the previous generation holds.
    All,
    /// Only those whose key or settings differ from the previous
    /// generation's; the others keep their files.
    Changed,
}
/// What an export did: [`Publisher::finish`] (and [`crate::write_site`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteReport {
    /// Repositories rendered.
    pub repositories: usize,
    /// Files written (pages, feeds, datasets, index, stylesheet).
    pub files: usize,
    /// Bytes written.
    pub bytes: u64,
    /// Repositories of the previous export that are no longer published.
    pub removed: usize,
    /// Item history pages written (also counted in `files`).
    pub histories: usize,
    /// Nothing differed from the previous export, so the site was left as
    /// it was.
    pub unchanged: bool,
}

/// The folder of a repository's history pages, beside its versions.
const HISTORY: &str = "history";

/// The manifest's file name inside a generation.
const MANIFEST: &str = ".manifest.json";
/// The manifest's format; another value is treated as no manifest.
const MANIFEST_FORMAT: u32 = 1;

/// What a generation holds, written last into it before the switch.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    /// The number of this generation.
    generation: u64,
    /// What every repository was rendered with besides its data (program
    /// version, options, weights): when it differs, everything is rendered
    /// again.
    settings: String,
    /// By `<group>/<repo>`.
    repos: BTreeMap<String, Entry>,
}

/// One repository in a generation.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// The caller's key of the repository's data (its latest run and
    /// configuration); the same key means the same files.
    key: String,
    /// The version folder: `repos/<group>/<repo>/v<version>`.
    version: u64,
    summary: RepoSummary,
}

/// An export in progress: create it with [`Publisher::begin`], hand it each
/// repository ([`Publisher::is_current`], then [`Publisher::keep`] or
/// [`Publisher::publish`]), then [`Publisher::finish`], which switches the
/// served link. Dropped without `finish` (or when `finish` fails), it
/// leaves the served site as it was and removes the unfinished generation
/// and the version folders it made; what a killed export leaves, the next
/// one removes.
#[derive(Debug)]
pub struct Publisher {
    out: PathBuf,
    /// `.<name>.signals` beside `out`.
    root: PathBuf,
    options: SiteOptions,
    previous: Manifest,
    /// The repositories the served generation publishes.
    published: BTreeSet<String>,
    next: Manifest,
    /// `root/gen-<n>`, being built.
    gen_dir: PathBuf,
    report: SiteReport,
    /// Whether anything differs from the previous generation.
    changed: bool,
    /// The version folders this export made, removed with the unfinished
    /// generation when it fails.
    made: Vec<PathBuf>,
    /// The link was switched (or nothing changed): nothing to remove.
    done: bool,
    /// Per group, the items named from several of its repositories.
    shared: std::collections::HashMap<String, Vec<crate::links::SharedEntry>>,
    /// Per group, the stories told in several of its repositories.
    stories: std::collections::HashMap<String, Vec<crate::links::StoryEntry>>,
}

impl Publisher {
    /// Starts the next generation of the site served at `out`. `settings`
    /// names what, besides a repository's data, the rendering depends on;
    /// a change of it renders every repository again. [`Render::All`]
    /// renders every repository again regardless.
    pub fn begin(
        out: &Path,
        options: &SiteOptions,
        settings: &str,
        render: Render,
    ) -> Result<Publisher, SiteError> {
        let all = render == Render::All;
        let name = out
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| SiteError::Io {
                action: "publish to",
                path: out.to_path_buf(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "the output folder needs a plain UTF-8 name",
                ),
            })?;
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(io("create folder", &parent))?;
        let root = parent.join(format!(".{name}.signals"));
        fs::create_dir_all(&root).map_err(io("create folder", &root))?;

        let current = current_generation(out, &root);
        let mut previous = current
            .as_ref()
            .and_then(|g| read_manifest(&root.join(g)))
            .unwrap_or_default();
        let published: BTreeSet<String> = previous.repos.keys().cloned().collect();
        if previous.settings != settings || all {
            // Everything is rendered again; the old summaries are not used.
            previous.repos.clear();
        }
        clean_leftovers(&root, current.as_deref())?;

        let number = highest_generation(&root)?.max(previous.generation) + 1;
        let gen_dir = root.join(format!("gen-{number}"));
        fs::create_dir_all(&gen_dir).map_err(io("create folder", &gen_dir))?;
        Ok(Publisher {
            out: out.to_path_buf(),
            root,
            options: options.clone(),
            next: Manifest {
                format: MANIFEST_FORMAT,
                generation: number,
                settings: settings.to_string(),
                repos: BTreeMap::new(),
            },
            changed: current.is_none() || all,
            published,
            previous,
            gen_dir,
            report: SiteReport::default(),
            made: Vec::new(),
            done: false,
            shared: Default::default(),
            stories: Default::default(),
        })
    }

    /// The items of `group` that items of several of its repositories
    /// name, for its group page.
    pub fn set_shared(&mut self, group: &str, shared: Vec<crate::links::SharedEntry>) {
        self.shared.insert(group.to_string(), shared);
    }

    /// Sets the stories told in several repositories of `group`, for its
    /// group page.
    pub fn set_stories(&mut self, group: &str, stories: Vec<crate::links::StoryEntry>) {
        self.stories.insert(group.to_string(), stories);
    }

    /// Whether `group/repo` was published with data `key` and its files are
    /// still there, so [`Publisher::keep`] can reuse them.
    pub fn is_current(&self, group: &str, repo: &str, key: &str) -> bool {
        self.previous
            .repos
            .get(&format!("{group}/{repo}"))
            .is_some_and(|e| {
                e.key == key && self.root.join(version_dir(group, repo, e.version)).is_dir()
            })
    }

    /// Keeps `group/repo` as the previous generation published it (check
    /// [`Publisher::is_current`] first).
    pub fn keep(&mut self, group: &str, repo: &str) -> Result<(), SiteError> {
        let label = format!("{group}/{repo}");
        let Some(entry) = self.previous.repos.get(&label).cloned() else {
            return Err(SiteError::Io {
                action: "keep",
                path: self.root.join(&label),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "the previous export did not publish this repository",
                ),
            });
        };
        self.link(group, repo, entry.version)?;
        if self.next.repos.insert(label.clone(), entry).is_some() {
            return Err(SiteError::DuplicateRepository(label));
        }
        Ok(())
    }

    /// Renders `page` into a new version folder and links it into the
    /// generation. `key` identifies its data for the next export.
    pub fn publish(&mut self, page: &RepoPage<'_>, key: &str) -> Result<(), SiteError> {
        let d = &page.document.dataset;
        let mut files = self.open_repo(&d.group.id, &d.repository.id)?;
        let summary = render_whole(page, self.options.base_url.as_deref(), &mut files)?;
        self.close_repo(files, summary, key)
    }

    /// Starts a new version folder for `group/repo`, to be filled (its
    /// `dataset.json`, then [`crate::render_repo_files`]) and handed to
    /// [`Publisher::close_repo`].
    pub fn open_repo(&mut self, group: &str, repo: &str) -> Result<RepoFiles, SiteError> {
        repo_dir(group, repo)?;
        let label = format!("{group}/{repo}");
        if self.next.repos.contains_key(&label) {
            return Err(SiteError::DuplicateRepository(label));
        }
        let target = self
            .root
            .join(version_dir(group, repo, self.next.generation));
        if target.exists() {
            fs::remove_dir_all(&target).map_err(io("remove leftover", &target))?;
        }
        self.made.push(target.clone());
        fs::create_dir_all(&target).map_err(io("create folder", &target))?;
        Ok(RepoFiles::dir(target))
    }

    /// Links the version folder `files` filled into the generation, with
    /// its summary for the index; `key` identifies its data for the next
    /// export.
    pub fn close_repo(
        &mut self,
        files: RepoFiles,
        summary: RepoSummary,
        key: &str,
    ) -> Result<(), SiteError> {
        let (group, repo) = (summary.group_id.clone(), summary.id.clone());
        let label = format!("{group}/{repo}");
        if self.next.repos.contains_key(&label) {
            return Err(SiteError::DuplicateRepository(label));
        }
        self.report.files += files.files;
        self.report.bytes += files.bytes;
        let version = self.next.generation;
        let target = self.root.join(version_dir(&group, &repo, version));
        let shared = self
            .root
            .join("repos")
            .join(&group)
            .join(&repo)
            .join(HISTORY);
        fs::create_dir_all(&shared).map_err(io("create folder", &shared))?;
        let history = target.join(HISTORY);
        symlink(Path::new("..").join(HISTORY).as_path(), &history).map_err(io("link", &history))?;
        self.link(&group, &repo, version)?;
        self.next.repos.insert(
            label,
            Entry {
                key: key.to_string(),
                version,
                summary,
            },
        );
        self.report.repositories += 1;
        self.changed = true;
        Ok(())
    }

    /// The instant of `group/repo`'s latest run as the previous export
    /// published it; `None` when it was not published, or everything is
    /// rendered again (then every history page is written again too).
    pub fn previous_instant(&self, group: &str, repo: &str) -> Option<jiff::Timestamp> {
        self.previous
            .repos
            .get(&format!("{group}/{repo}"))
            .map(|e| e.summary.collected_at)
    }

    /// The folder of `group/repo`'s version as the previous export
    /// published it, when it is still there (the search index links its
    /// unchanged shards from it).
    pub fn previous_dir(&self, group: &str, repo: &str) -> Option<PathBuf> {
        let entry = self.previous.repos.get(&format!("{group}/{repo}"))?;
        let dir = self.root.join(version_dir(group, repo, entry.version));
        dir.is_dir().then_some(dir)
    }

    /// Writes (replaces) one history page of `group/repo`: `file` from
    /// [`crate::history_file`].
    pub fn write_history(
        &mut self,
        group: &str,
        repo: &str,
        file: &str,
        content: &str,
    ) -> Result<(), SiteError> {
        let dir = self.root.join("repos").join(group).join(repo).join(HISTORY);
        write_content(&dir, Path::new(file), content.as_bytes())?;
        self.report.files += 1;
        self.report.histories += 1;
        self.report.bytes += content.len() as u64;
        self.changed = true;
        Ok(())
    }

    /// Writes the index, the site feed, the importance page and the
    /// stylesheet from the summaries, then the manifest, then switches the
    /// served link to the new generation. When nothing differs from the
    /// previous generation, the new one is dropped and the site is left as
    /// it is (`SiteReport::unchanged`).
    pub fn finish(mut self) -> Result<SiteReport, SiteError> {
        let same_set = self.published.iter().eq(self.next.repos.keys());
        if !self.changed && same_set {
            self.done = true;
            fs::remove_dir_all(&self.gen_dir).map_err(io("remove", &self.gen_dir))?;
            self.report.unchanged = true;
            return Ok(std::mem::take(&mut self.report));
        }
        let summaries: Vec<RepoSummary> = self
            .next
            .repos
            .values()
            .map(|e| e.summary.clone())
            .collect();
        let index = render_index(&summaries)?;
        for (path, content) in render_lists(&summaries)? {
            write_content(&self.gen_dir, &path, content.as_bytes())?;
            self.report.files += 1;
            self.report.bytes += content.len() as u64;
        }
        drop(summaries);
        // The site feed is the newest entries of the group feeds, gathered
        // while the group pages are written (one group at a time).
        let site_feed = self.render_groups()?;
        let updated = self
            .next
            .repos
            .values()
            .map(|e| e.summary.collected_at)
            .max()
            .unwrap_or_default();
        let feed = render_site_feed_from(site_feed, updated, self.options.base_url.as_deref())?;
        let importance = render_importance()?;
        for (name, content) in [
            ("index.html", index.as_str()),
            ("feed.atom", feed.as_str()),
            ("importance.html", importance.as_str()),
            ("style.css", STYLESHEET),
            ("filter.js", FILTER_SCRIPT),
        ] {
            write_content(&self.gen_dir, Path::new(name), content.as_bytes())?;
            self.report.files += 1;
            self.report.bytes += content.len() as u64;
        }
        let manifest = serde_json::to_vec(&self.next).map_err(|source| SiteError::Json {
            repository: "the publish manifest".to_string(),
            source,
        })?;
        write_content(&self.gen_dir, Path::new(MANIFEST), &manifest)?;
        self.report.removed = self
            .published
            .iter()
            .filter(|k| !self.next.repos.contains_key(*k))
            .count();
        switch_link(&self.out, &self.root, &self.gen_dir)?;
        self.done = true;
        Ok(std::mem::take(&mut self.report))
    }

    /// Writes each group's digest page (`<group>/index.html`, its feed and
    /// filter index) from the `digest.json` of its repositories, read one at
    /// a time: the manifest is ordered by `<group>/<repo>`, so a group's
    /// repositories come together and only one small [`GroupDigest`] is
    /// held. A repository without a readable digest (published by an older
    /// version) is left out of its group page until it is rendered again.
    fn render_groups(&mut self) -> Result<Vec<FeedEntry>, SiteError> {
        let mut site_feed: Vec<FeedEntry> = Vec::new();
        let mut group: Option<GroupDigest> = None;
        let entries: Vec<(String, String, String, u64)> = self
            .next
            .repos
            .iter()
            .map(|(label, e)| {
                let (g, r) = label.split_once('/').unwrap_or((label, ""));
                (
                    g.to_string(),
                    r.to_string(),
                    e.summary.group_name.clone(),
                    e.version,
                )
            })
            .collect();
        for (g, r, name, version) in entries {
            if group.as_ref().is_some_and(|d| d.id() != g) {
                let mut done = group.take().expect("checked above");
                done.set_shared(self.shared.remove(done.id()).unwrap_or_default());
                done.set_stories(self.stories.remove(done.id()).unwrap_or_default());
                self.write_group(&done)?;
                add_group_feed(&mut site_feed, &done);
            }
            let digest = group.get_or_insert_with(|| GroupDigest::new(&g, &name));
            let path = self
                .root
                .join(version_dir(&g, &r, version))
                .join(DIGEST_FILE);
            if let Some(d) = fs::read(&path).ok().and_then(|b| RepoDigest::parse(&b)) {
                digest.add(d);
            }
        }
        if let Some(mut done) = group {
            done.set_shared(self.shared.remove(done.id()).unwrap_or_default());
            done.set_stories(self.stories.remove(done.id()).unwrap_or_default());
            self.write_group(&done)?;
            add_group_feed(&mut site_feed, &done);
        }
        Ok(site_feed)
    }

    fn write_group(&mut self, g: &GroupDigest) -> Result<(), SiteError> {
        for (path, content) in render_group(g, self.options.base_url.as_deref())? {
            write_content(&self.gen_dir, &path, content.as_bytes())?;
            self.report.files += 1;
            self.report.bytes += content.len() as u64;
        }
        // The group's word index, from its repositories'.
        let members: Vec<Member> = g
            .members()
            .filter_map(|(id, name)| {
                let e = self.next.repos.get(&format!("{}/{id}", g.id()))?;
                Some(Member {
                    id: id.to_string(),
                    name: name.to_string(),
                    dir: self.root.join(version_dir(g.id(), id, e.version)),
                })
            })
            .collect();
        let previous = self.out.join(g.id()).join(GROUP_SEARCH_DIR);
        let mut files = RepoFiles::dir(self.gen_dir.join(g.id()).join(GROUP_SEARCH_DIR));
        group_search::write(
            &members,
            previous.is_dir().then_some(previous.as_path()),
            self.next.generation as i64,
            &mut files,
        )?;
        self.report.files += files.files;
        self.report.bytes += files.bytes;
        Ok(())
    }

    /// Links `<gen>/<group>/<repo>` to its version folder.
    fn link(&self, group: &str, repo: &str, version: u64) -> Result<(), SiteError> {
        let group_dir = self.gen_dir.join(group);
        fs::create_dir_all(&group_dir).map_err(io("create folder", &group_dir))?;
        let link = group_dir.join(repo);
        let target = Path::new("../..").join(version_dir(group, repo, version));
        symlink(&target, &link).map_err(io("link", &link))
    }
}

impl Drop for Publisher {
    /// An export that did not switch the link: its unfinished generation
    /// and its version folders go at once (best effort: what cannot be
    /// removed now, the next export's [`clean_leftovers`] removes).
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let _ = fs::remove_dir_all(&self.gen_dir);
        for dir in &self.made {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// Adds a group's feed entries (links relative to the group folder) to the
/// site feed's, keeping only the newest: memory stays that of one feed.
fn add_group_feed(site_feed: &mut Vec<FeedEntry>, group: &GroupDigest) {
    let prefix = format!("{}/", group.id());
    site_feed.extend(group.feed().iter().map(|e| e.rebased(&prefix)));
    keep_newest(site_feed);
}

/// `repos/<group>/<repo>/v<version>`, relative to the root.
fn version_dir(group: &str, repo: &str, version: u64) -> PathBuf {
    Path::new("repos")
        .join(group)
        .join(repo)
        .join(format!("v{version}"))
}

/// The generation `out` links to (`gen-<n>`), when it is such a link.
fn current_generation(out: &Path, root: &Path) -> Option<String> {
    let target = fs::read_link(out).ok()?;
    let name = target.file_name()?.to_str()?.to_string();
    (name.starts_with("gen-") && root.join(&name).is_dir()).then_some(name)
}

fn read_manifest(gen_dir: &Path) -> Option<Manifest> {
    let bytes = fs::read(gen_dir.join(MANIFEST)).ok()?;
    let m: Manifest = serde_json::from_slice(&bytes).ok()?;
    (m.format == MANIFEST_FORMAT).then_some(m)
}

/// The greatest `n` of the `gen-<n>` folders under `root`, 0 when none.
fn highest_generation(root: &Path) -> Result<u64, SiteError> {
    let mut highest = 0;
    for entry in fs::read_dir(root).map_err(io("list", root))? {
        let entry = entry.map_err(io("list", root))?;
        if let Some(n) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.strip_prefix("gen-"))
            .and_then(|n| n.parse::<u64>().ok())
        {
            highest = highest.max(n);
        }
    }
    Ok(highest)
}

/// Removes every generation but the served one, and every repository
/// version it does not link to: what killed exports left, and the
/// generation served before the last switch (kept until now for readers
/// that were in the middle of it).
fn clean_leftovers(root: &Path, current: Option<&str>) -> Result<(), SiteError> {
    let keep_gen: BTreeSet<String> = current.iter().map(|c| c.to_string()).collect();
    // Versions the kept generations link to.
    let mut keep_versions: BTreeSet<PathBuf> = BTreeSet::new();
    for g in &keep_gen {
        if let Some(m) = read_manifest(&root.join(g)) {
            for (label, e) in &m.repos {
                let (group, repo) = label.split_once('/').unwrap_or((label, ""));
                keep_versions.insert(version_dir(group, repo, e.version));
            }
        }
    }
    for entry in fs::read_dir(root).map_err(io("list", root))? {
        let entry = entry.map_err(io("list", root))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let stale_generation = name.starts_with("gen-") && !keep_gen.contains(name);
        let interrupted = name.starts_with(".link-") || name.starts_with("legacy-");
        if stale_generation || interrupted {
            remove_any(&entry.path())?;
        }
    }
    let repos = root.join("repos");
    for group in read_dirs(&repos)? {
        for repo in read_dirs(&group)? {
            let mut kept = false;
            for version in read_dirs(&repo)? {
                if version.file_name().is_some_and(|n| n == HISTORY) {
                    continue;
                }
                let rel = version.strip_prefix(root).unwrap_or(&version).to_path_buf();
                if keep_versions.contains(&rel) {
                    kept = true;
                } else {
                    remove_any(&version)?;
                }
            }
            // A repository no longer published loses its history pages too.
            let history = repo.join(HISTORY);
            if !kept && history.exists() && current.is_some() {
                remove_any(&history)?;
            }
        }
    }
    Ok(())
}

/// The sub-folders of `dir`; none when it does not exist.
fn read_dirs(dir: &Path) -> Result<Vec<PathBuf>, SiteError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(SiteError::Io {
                action: "list",
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io("list", dir))?;
        if entry.file_type().map_err(io("list", dir))?.is_dir() {
            out.push(entry.path());
        }
    }
    Ok(out)
}

fn remove_any(path: &Path) -> Result<(), SiteError> {
    let meta = fs::symlink_metadata(path).map_err(io("remove", path))?;
    let result = if meta.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    match result {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(SiteError::Io {
            action: "remove leftover",
            path: path.to_path_buf(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// Points `out` at `gen_dir` with one `rename` of a fresh link over it. An
/// `out` that is a real folder (a site written before generations) is moved
/// aside first: the one moment a reader can find no site, once.
fn switch_link(out: &Path, root: &Path, gen_dir: &Path) -> Result<(), SiteError> {
    let root_name = root.file_name().unwrap_or_default();
    let gen_name = gen_dir.file_name().unwrap_or_default();
    let target = Path::new(root_name).join(gen_name);
    // Made inside the root (the text of a link is resolved where it ends
    // up, beside `out`), then renamed over `out`: same file system, so the
    // rename is atomic.
    let temp = root.join(format!(".link-{}", std::process::id()));
    let _ = fs::remove_file(&temp);
    symlink(&target, &temp).map_err(io("link", &temp))?;
    if let Ok(meta) = fs::symlink_metadata(out)
        && meta.is_dir()
    {
        let aside = root.join(format!("legacy-{}", std::process::id()));
        fs::rename(out, &aside).map_err(io("move aside", out))?;
        fs::rename(&temp, out).map_err(io("switch", out))?;
        return remove_any(&aside);
    }
    fs::rename(&temp, out).map_err(io("switch", out))
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_target: &Path, _link: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "publishing a site needs symbolic links (Unix)",
    ))
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> SiteError {
    let path = path.to_path_buf();
    move |source| SiteError::Io {
        action,
        path,
        source,
    }
}
