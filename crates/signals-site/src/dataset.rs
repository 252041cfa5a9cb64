//! `dataset.json`: the v3 document, pretty-printed, written whole
//! ([`render_dataset`]) or a signal at a time ([`DatasetWriter`], for an
//! export that never holds a big repository's signals at once). Both give
//! the same bytes.

use std::io::Write;

use signals_core::dataset::{Document, SignalDoc};

use crate::error::SiteError;
use crate::paths::repo_label;

/// The v3 document as pretty JSON, with a final newline.
pub fn render_dataset(doc: &Document) -> Result<String, SiteError> {
    let mut json = serde_json::to_string_pretty(doc).map_err(|source| SiteError::Json {
        repository: repo_label(doc),
        source,
    })?;
    json.push('\n');
    Ok(json)
}

/// What a document without signals ends with after its `signals`.
const SIGNALS_END: &str = "\"signals\": []";
/// How deep a signal sits in the pretty document: under the root, under
/// `dataset`, in `signals`.
const SIGNAL_INDENT: &[u8] = b"      ";

/// Writes `dataset.json` a signal at a time: [`DatasetWriter::begin`] with
/// the document's head (its `signals` empty), [`DatasetWriter::push`] each
/// signal in id order, then [`DatasetWriter::finish`]. The bytes are those
/// [`render_dataset`] writes for the whole document: serde_json's pretty
/// printer indents by depth, and a signal printed alone is indented as in
/// the document once each of its lines is shifted by its depth (JSON
/// strings hold no raw line break, so every line break is the printer's).
pub struct DatasetWriter<W: Write> {
    out: W,
    /// What follows the signals: the ends of `dataset` and the root.
    tail: String,
    first: bool,
    what: String,
}

impl<W: Write> DatasetWriter<W> {
    /// Writes the head of `head`, whose signals must be empty.
    pub fn begin(mut out: W, head: &Document) -> Result<DatasetWriter<W>, SiteError> {
        let what = repo_label(head);
        let json = serde_json::to_string_pretty(head).map_err(|source| SiteError::Json {
            repository: what.clone(),
            source,
        })?;
        let at = json
            .rfind(SIGNALS_END)
            .filter(|_| head.dataset.signals.is_empty())
            .ok_or_else(|| SiteError::Json {
                repository: what.clone(),
                source: <serde_json::Error as serde::ser::Error>::custom(
                    "the head of a streamed dataset must have no signals",
                ),
            })?;
        let open = at + SIGNALS_END.len() - 1;
        write(&mut out, &json.as_bytes()[..open], &what)?;
        Ok(DatasetWriter {
            out,
            tail: json[open + 1..].to_string(),
            first: true,
            what,
        })
    }

    /// Writes the next signal (in id order).
    pub fn push(&mut self, signal: &SignalDoc) -> Result<(), SiteError> {
        let sep: &[u8] = if self.first { b"\n" } else { b",\n" };
        self.first = false;
        write(&mut self.out, sep, &self.what)?;
        write(&mut self.out, SIGNAL_INDENT, &self.what)?;
        let mut shifted = Shifted(&mut self.out);
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"  ");
        let mut ser = serde_json::Serializer::with_formatter(&mut shifted, formatter);
        serde::Serialize::serialize(signal, &mut ser).map_err(|source| SiteError::Json {
            repository: self.what.clone(),
            source,
        })
    }

    /// Closes the signals and the document; gives the writer back.
    pub fn finish(mut self) -> Result<W, SiteError> {
        let close: &[u8] = if self.first { b"]" } else { b"\n    ]" };
        write(&mut self.out, close, &self.what)?;
        write(&mut self.out, self.tail.as_bytes(), &self.what)?;
        write(&mut self.out, b"\n", &self.what)?;
        Ok(self.out)
    }
}

fn write(out: &mut impl Write, bytes: &[u8], what: &str) -> Result<(), SiteError> {
    out.write_all(bytes).map_err(|source| SiteError::Json {
        repository: what.to_string(),
        source: serde_json::Error::io(source),
    })
}

/// A writer that indents every line after the first by [`SIGNAL_INDENT`].
struct Shifted<'a, W: Write>(&'a mut W);

impl<W: Write> Write for Shifted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.0.write_all(&rest[..=i])?;
            self.0.write_all(SIGNAL_INDENT)?;
            rest = &rest[i + 1..];
        }
        self.0.write_all(rest)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}
