//! A repository's signal ids in id order, held in one string: the
//! compact key of a per-repository index. `serve`'s signals index
//! (`serve/index.rs`) and the export's ranking (`export/source.rs`)
//! both keep one, a row's position standing for its item, and read a
//! page's items back by these ids. About 4 bytes an id beyond its text,
//! where a `Box<str>` each costs 16 and an allocation.

/// Signal ids, each pushed after the one before it in byte order (the
/// store's order), in one string with their ends.
#[derive(Debug, Default)]
pub struct Ids {
    text: String,
    ends: Vec<u32>,
}

impl Ids {
    /// Room for `ids` ids of `text` bytes in all.
    pub fn with_capacity(ids: usize, text: usize) -> Ids {
        Ids {
            text: String::with_capacity(text),
            ends: Vec::with_capacity(ids),
        }
    }

    /// Room for `more` bytes of ids.
    pub fn reserve_text(&mut self, more: usize) {
        self.text.reserve(more);
    }

    /// Adds the next id.
    pub fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len() as u32);
    }

    /// How many ids.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The `i`-th id.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    /// The position of `id`, by binary search (the ids are in byte order).
    pub fn find(&self, id: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.get(mid).as_bytes().cmp(id.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_back_and_are_found_by_position() {
        let mut ids = Ids::default();
        let all = [
            "github:o/n:issue:1",
            "github:o/n:issue:10",
            "github:o/n:issue:2",
            "github:o/n:release:v1",
        ];
        for id in all {
            ids.push(id);
        }
        assert_eq!(ids.len(), 4);
        for (i, id) in all.iter().enumerate() {
            assert_eq!(ids.get(i), *id);
            assert_eq!(ids.find(id), Some(i));
        }
        assert_eq!(ids.find("github:o/n:issue:3"), None);
        assert_eq!(ids.find(""), None);
        assert_eq!(Ids::default().find("x"), None);
    }
}
