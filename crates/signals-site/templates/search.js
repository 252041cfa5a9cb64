/* Repo Signals: the word index in the browser. The query
   language and the tokenizer mirror signals-core's search/query.rs and
   search/tokens.rs rule for rule; the ranking mirrors search/rank.rs (the
   same double sums in the same order, rounded to millionths), ties broken
   by importance then id through the rank export wrote. It reads the
   repository's search.json, then only the shards of the query's terms,
   their positions only for a phrase, the rank files only for documents
   tied on score, and the cards of the results shown. See signals-site's
   search.rs for the files. */
var SignalsSearch = (function () {
  'use strict';
  var MAX_TERM = 64, MIN_PREFIX = 3, MAX_CLAUSES = 16, MAX_EXPANSION = 1000;
  var K1 = 1.2, B = 0.75, TITLE_WEIGHT = 3, VERSION = 2;
  var ALNUM = /^[\p{Alphabetic}\p{N}]$/u, MARK = /^\p{M}$/u, UPPER = /^\p{Uppercase}$/u,
    LOWER = /^\p{Lowercase}$/u, SPACE = /^\p{White_Space}$/u;
  var enc = new TextEncoder(), dec = new TextDecoder();

  function spaceless(c) {
    var n = c.codePointAt(0);
    return (n >= 0x0E00 && n <= 0x0E7F) || (n >= 0x3040 && n <= 0x309F) || (n >= 0x30A0 && n <= 0x30FF) ||
      (n >= 0x31F0 && n <= 0x31FF) || (n >= 0x3400 && n <= 0x4DBF) || (n >= 0x4E00 && n <= 0x9FFF) ||
      (n >= 0xF900 && n <= 0xFAFF) || (n >= 0xFF66 && n <= 0xFF9F) || (n >= 0x20000 && n <= 0x2FFFF);
  }
  function foldChar(c) {
    if (c.charCodeAt(0) < 128) return c.toLowerCase();
    var out = '';
    Array.from(c.normalize('NFD')).forEach(function (d) {
      Array.from(d.toLowerCase()).forEach(function (l) { if (!MARK.test(l)) out += l; });
    });
    return out;
  }
  function cut(s) {
    var b = enc.encode(s);
    if (b.length <= MAX_TERM) return s;
    var end = MAX_TERM;
    while (end > 0 && (b[end] & 0xC0) === 0x80) end--;
    return dec.decode(b.slice(0, end));
  }
  function bytes(s) { return enc.encode(s).length; }
  function cls(f) {
    if (spaceless(f)) return 'S';
    if (ALNUM.test(f)) return 'W';
    if ('_.-/:'.indexOf(f) >= 0) return 'J';
    return 'O';
  }

  // The units of text: {parts, whole} for a word, {chars} for a run
  // without spaces (tokens.rs `units`).
  function units(text) {
    var out = [], parts = [], whole = '', part = '', joiner = null, chars = [], afterLower = false;
    function endPart() { if (part) { parts.push(cut(part)); part = ''; } }
    function endWord() {
      if (!parts.length) { whole = ''; return; }
      out.push({ parts: parts, whole: parts.length > 1 && bytes(whole) <= MAX_TERM ? whole : null });
      parts = []; whole = '';
    }
    function endChars() { if (chars.length) { out.push({ chars: chars }); chars = []; } }
    Array.from(text).forEach(function (c) {
      var upper = UPPER.test(c), first = true;
      Array.from(foldChar(c)).forEach(function (f) {
        var k = cls(f);
        if (k === 'W') {
          endChars();
          if (joiner !== null) { endPart(); whole += joiner; joiner = null; }
          else if (first && upper && afterLower) endPart();
          part += f; whole += f;
        } else if (k === 'S') {
          joiner = null; endPart(); endWord(); chars.push(f);
        } else if (k === 'J' && part && joiner === null) {
          joiner = f;
        } else {
          joiner = null; endPart(); endWord(); endChars();
        }
        first = false;
      });
      afterLower = LOWER.test(c);
    });
    endPart(); endWord(); endChars();
    return out;
  }
  function width(u) { return u.chars ? u.chars.length : u.parts.length; }

  function phraseOf(text) {
    var parts = [], pos = 0;
    units(text).forEach(function (u) {
      if (u.chars) {
        if (u.chars.length === 1) parts.push({ term: u.chars[0], offset: pos });
        else for (var i = 0; i + 1 < u.chars.length; i++) parts.push({ term: u.chars[i] + u.chars[i + 1], offset: pos + i });
      } else if (u.whole !== null) parts.push({ term: u.whole, offset: pos });
      else if (u.parts.length === 1) parts.push({ term: u.parts[0], offset: pos });
      else u.parts.forEach(function (t, i) { parts.push({ term: t, offset: pos + i }); });
      pos += width(u);
    });
    return parts.length ? { phrase: parts } : null;
  }
  function fail(kind, message) { var e = new Error(message); e.kind = kind; return e; }
  function prefixOf(word) {
    var found = units(word), shown = JSON.stringify(word + '*');
    if (!found.length) return null;
    var short = fail('short', "a prefix needs at least " + MIN_PREFIX + " letters or digits before '*': " + shown);
    if (found.length === 1 && found[0].parts) {
      var term = found[0].whole !== null ? found[0].whole : found[0].parts.join('');
      if (Array.from(term).length < MIN_PREFIX) throw short;
      return { prefix: term };
    }
    if (found.length === 1 && found[0].chars) {
      if (found[0].chars.length < MIN_PREFIX) throw short;
      return { prefix: found[0].chars.join('') };
    }
    throw fail('word', "a prefix must be one word or identifier before '*': " + shown);
  }
  function pieces(q) {
    var cs = Array.from(q), i = 0, out = [];
    while (i < cs.length) {
      if (SPACE.test(cs[i])) { i++; continue; }
      var excluded = false;
      if (cs[i] === '-') { i++; excluded = true; }
      if (cs[i] === '"') {
        i++;
        var t = '';
        while (i < cs.length && cs[i] !== '"') t += cs[i++];
        i++;
        out.push([excluded, true, t]);
        continue;
      }
      var text = '';
      while (i < cs.length && !SPACE.test(cs[i]) && cs[i] !== '"') text += cs[i++];
      out.push([excluded, false, text]);
    }
    return out;
  }
  // query.rs `Query::parse`: {include, exclude}, or throws an Error whose
  // message is the API's.
  function parse(q) {
    var query = { include: [], exclude: [] };
    pieces(q).forEach(function (p) {
      var c = !p[1] && p[2].slice(-1) === '*' ? prefixOf(p[2].slice(0, -1)) : phraseOf(p[2]);
      if (!c) return;
      (p[0] ? query.exclude : query.include).push(c);
      if (query.include.length + query.exclude.length > MAX_CLAUSES)
        throw fail('long', 'the query has more than ' + MAX_CLAUSES + ' words or phrases: remove some');
    });
    if (!query.include.length)
      throw fail('empty', 'the query has no word to look for: give at least one word of letters or digits (excluded words alone match nothing to rank)');
    return query;
  }

  // ---- files ----
  function Reader(buf) { this.b = buf; this.at = 0; }
  Reader.prototype.get = function () {
    var b = this.b, at = this.at, v, c, mul = 128;
    if (at >= b.length) throw new Error('damaged search shard');
    c = b[at++];
    v = c & 0x7f;
    while (c & 0x80) {
      if (at >= b.length || mul > 268435456) throw new Error('damaged search shard');
      c = b[at++];
      v += (c & 0x7f) * mul;
      mul *= 128;
    }
    this.at = at;
    return v;
  };
  Reader.prototype.str = function () { var n = this.get(), s = dec.decode(this.b.subarray(this.at, this.at + n)); this.at += n; return s; };
  function cmp(a, b) {
    var x = enc.encode(a), y = enc.encode(b), n = Math.min(x.length, y.length);
    for (var i = 0; i < n; i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  }

  // One repository's index at `base` (its folder, ending in '/').
  function Index(base, fetchBytes, fetchJson) {
    this.base = base; this.bin = fetchBytes; this.json = fetchJson;
    this.shards = {}; this.places = {}; this.ranks = {}; this.order = {}; this.texts = {};
  }
  Index.prototype.manifest = function () {
    var self = this;
    if (!this.m) this.m = this.json(this.base + 'search.json').then(function (m) {
      if (!m || m.version !== VERSION) throw new Error('unknown search index format');
      self.stats = { docs: m.docs, total_len: m.total_len };
      return m;
    }, function (e) { e.manifest = true; throw e; });
    return this.m;
  };
  Index.prototype.shardOf = function (m, term) {
    var lo = 0, hi = m.shards.length - 1;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (cmp(m.shards[mid][0], term) <= 0) lo = mid; else hi = mid - 1; }
    return lo;
  };
  // Shard i: {terms: [..], lists: {term: bytes}} (entries not yet decoded).
  Index.prototype.shard = function (m, i) {
    if (!this.shards[i]) this.shards[i] = this.bin(this.base + 'search/w-' + m.shards[i][1] + '.bin').then(inflate).then(function (b) {
      var r = new Reader(b), terms = [], lists = {};
      while (r.at < b.length) { var t = r.str(), n = r.get(); terms.push(t); lists[t] = b.subarray(r.at, r.at + n); r.at += n; }
      return { terms: terms, lists: lists };
    });
    return this.shards[i];
  };
  Index.prototype.positionsOf = function (m, i) {
    if (!this.places[i]) this.places[i] = this.bin(this.base + 'search/p-' + m.shards[i][1] + '.bin').then(inflate).then(function (b) {
      var r = new Reader(b), lists = {};
      while (r.at < b.length) { var t = r.str(), n = r.get(); lists[t] = b.subarray(r.at, r.at + n); r.at += n; }
      return lists;
    });
    return this.places[i];
  };
  // A gzipped shard, inflated.
  function inflate(b) {
    var s = new Blob([b]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(s).arrayBuffer().then(function (a) { return new Uint8Array(a); });
  }
  // A term's list, in columns as search.rs writes it: the count, then
  // every document gap, every length, every title_tf, every tf.
  function decode(bytes) {
    var r = new Reader(bytes), n = r.get(), i, d = 0;
    var e = { n: n, doc: new Uint32Array(n), len: new Uint32Array(n), title_tf: new Uint32Array(n), tf: new Uint32Array(n) };
    for (i = 0; i < n; i++) { d += r.get(); e.doc[i] = d; }
    for (i = 0; i < n; i++) e.len[i] = r.get();
    for (i = 0; i < n; i++) e.title_tf[i] = r.get();
    for (i = 0; i < n; i++) e.tf[i] = r.get();
    return e;
  }
  var NONE = decode(new Uint8Array([0]));
  // Every entry of term (rank.rs `Source::entries`) in columns, and each
  // entry's positions when asked.
  Index.prototype.entries = function (m, term, positions) {
    var self = this, i = this.shardOf(m, term);
    return this.shard(m, i).then(function (s) {
      var list = s.lists[term] ? decode(s.lists[term]) : NONE;
      if (!positions || !list.n) return list;
      return self.positionsOf(m, i).then(function (p) {
        var r = new Reader(p[term] || new Uint8Array(0));
        list.positions = [];
        for (var k = 0; k < list.n; k++) {
          var at = 0, ps = [];
          for (var j = 0; j < list.tf[k]; j++) { at += r.get(); ps.push(at); }
          list.positions.push(ps);
        }
        return list;
      });
    });
  };
  // The first `limit` terms starting with prefix, in byte order.
  Index.prototype.expand = function (m, prefix, limit) {
    var self = this, out = [], pre = enc.encode(prefix);
    function starts(t) { var b = enc.encode(t); if (b.length < pre.length) return false; for (var k = 0; k < pre.length; k++) if (b[k] !== pre[k]) return false; return true; }
    function from(i) {
      if (i >= m.shards.length || out.length >= limit) return Promise.resolve(out);
      if (i > self.shardOf(m, prefix) && !starts(m.shards[i][0]) && cmp(m.shards[i][0], prefix) > 0) return Promise.resolve(out);
      return self.shard(m, i).then(function (s) {
        var past = false;
        s.terms.forEach(function (t) { if (out.length < limit && starts(t)) out.push(t); else if (cmp(t, prefix) > 0 && !starts(t)) past = true; });
        return past ? out : from(i + 1);
      });
    }
    return from(this.shardOf(m, prefix));
  };

  function idf(st, df) { var n = st.docs, d = df; return Math.log1p((n - d + 0.5) / (d + 0.5)); }
  // rank.rs `term_score` of entry k of list l, in the same operations.
  function termScore(st, w, l, k) {
    var avg = st.docs === 0 ? 1.0 : st.total_len / st.docs;
    var tf = l.tf[k] + (TITLE_WEIGHT - 1) * l.title_tf[k];
    var norm = K1 * (1.0 - B + B * l.len[k] / avg);
    return w * (tf * (K1 + 1.0)) / (tf + norm);
  }
  // Hits: {n, doc, score}, documents increasing.
  function hits(n) { return { n: n, doc: new Uint32Array(n), score: new Float64Array(n) }; }
  function cutHits(h, n) { return { n: n, doc: h.doc.subarray(0, n), score: h.score.subarray(0, n) }; }
  Index.prototype.clause = function (m, c) {
    var self = this, st = this.stats;
    if (c.phrase && c.phrase.length === 1) return this.entries(m, c.phrase[0].term, false).then(function (l) {
      var w = idf(st, l.n), out = hits(l.n);
      for (var k = 0; k < l.n; k++) { out.doc[k] = l.doc[k]; out.score[k] = termScore(st, w, l, k); }
      return out;
    });
    if (c.phrase) return Promise.all(c.phrase.map(function (p) { return self.entries(m, p.term, true); })).then(function (lists) {
      return phrase(c.phrase, lists, st);
    });
    return this.expand(m, c.prefix, MAX_EXPANSION + 1).then(function (terms) {
      if (terms.length > MAX_EXPANSION) throw fail('many', 'more than ' + MAX_EXPANSION + ' different words start with ' + JSON.stringify(c.prefix + '*') + ': make the prefix longer');
      return Promise.all(terms.map(function (t) { return self.entries(m, t, false); }));
    }).then(function (lists) {
      // Each document's sum over the terms in term order, as rank.rs adds.
      var all = [];
      lists.forEach(function (l) { var w = idf(st, l.n); for (var k = 0; k < l.n; k++) all.push([l.doc[k], termScore(st, w, l, k), all.length]); });
      all.sort(function (a, b) { return a[0] - b[0] || a[2] - b[2]; });
      var out = hits(all.length), n = 0;
      all.forEach(function (x) { if (n && out.doc[n - 1] === x[0]) out.score[n - 1] += x[1]; else { out.doc[n] = x[0]; out.score[n] = x[1]; n++; } });
      return cutHits(out, n);
    });
  };
  function has(list, v) { var lo = 0, hi = list.length; while (lo < hi) { var mid = (lo + hi) >> 1; if (list[mid] < v) lo = mid + 1; else hi = mid; } return lo < list.length && list[lo] === v; }
  function phrase(parts, lists, st) {
    var idfs = lists.map(function (l) { return idf(st, l.n); }), cur = lists.map(function () { return 0; }), out = hits(lists[0].n), n = 0;
    var first = parts[0].offset, l0 = lists[0];
    next: for (var e = 0; e < l0.n; e++) {
      var at = [], doc = l0.doc[e];
      for (var i = 0; i < lists.length; i++) {
        var l = lists[i];
        while (cur[i] < l.n && l.doc[cur[i]] < doc) cur[i]++;
        if (cur[i] < l.n && l.doc[cur[i]] === doc) at.push(cur[i]); else continue next;
      }
      var ok = l0.positions[e].some(function (p) {
        return p >= first && parts.every(function (part, k) { return has(lists[k].positions[at[k]], p - first + part.offset); });
      });
      if (ok) {
        var score = 0.0;
        for (var k = 0; k < lists.length; k++) score = score + termScore(st, idfs[k], lists[k], at[k]);
        out.doc[n] = doc; out.score[n] = score; n++;
      }
    }
    return cutHits(out, n);
  }
  // rank.rs `evaluate`: hits {n, doc, score} in document order, scores
  // rounded to millionths.
  Index.prototype.evaluate = function (query) {
    var self = this;
    return this.manifest().then(function (m) {
      var matched = null;
      function include(i) {
        if (i >= query.include.length || (matched && !matched.n)) return Promise.resolve();
        return self.clause(m, query.include[i]).then(function (found) {
          if (matched === null) matched = found;
          else {
            var out = hits(Math.min(matched.n, found.n)), n = 0, j = 0;
            for (var k = 0; k < matched.n; k++) {
              var d = matched.doc[k];
              while (j < found.n && found.doc[j] < d) j++;
              if (j < found.n && found.doc[j] === d) { out.doc[n] = d; out.score[n] = matched.score[k] + found.score[j]; n++; }
            }
            matched = cutHits(out, n);
          }
          return include(i + 1);
        });
      }
      function exclude(i) {
        if (i >= query.exclude.length || !matched.n) return Promise.resolve();
        return self.clause(m, query.exclude[i]).then(function (found) {
          var out = hits(matched.n), n = 0, j = 0;
          for (var k = 0; k < matched.n; k++) {
            var d = matched.doc[k];
            while (j < found.n && found.doc[j] < d) j++;
            if (!(j < found.n && found.doc[j] === d)) { out.doc[n] = d; out.score[n] = matched.score[k]; n++; }
          }
          matched = cutHits(out, n);
          return exclude(i + 1);
        });
      }
      return include(0).then(function () { matched = matched || hits(0); return exclude(0); }).then(function () {
        for (var k = 0; k < matched.n; k++) matched.score[k] = Math.round(matched.score[k] * 1000000);
        return matched;
      });
    });
  };
  // A group's index: the repository holding doc, {base, prefix, name}
  // (null in a repository's index).
  function partOf(m, d) {
    var r = m.repos;
    if (!r || !r.length) return null;
    var lo = 0, hi = r.length - 1;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (r[mid].base <= d) lo = mid; else hi = mid - 1; }
    return r[lo];
  }
  // One u32 per document from the files `<folder>search/<kind>-<k>.bin`
  // of `per` documents (missing ones: u32::MAX); items: [doc, folder
  // (relative to the page), number in that folder's files]. A Map by doc.
  Index.prototype.u32s = function (kind, per, items) {
    var self = this, cache = kind === 'r' ? this.ranks : this.places32 || (this.places32 = {}), out = new Map();
    return Promise.all(items.map(function (it) {
      var k = Math.floor(it[2] / per), u = it[1] + 'search/' + kind + '-' + k + '.bin';
      if (!cache[u]) cache[u] = self.bin(u).then(function (b) { return new DataView(b.buffer, b.byteOffset, b.byteLength); });
      return cache[u].then(function (v) { var at = (it[2] % per) * 4; out.set(it[0], at + 4 <= v.byteLength ? v.getUint32(at, true) : 4294967295); });
    })).then(function () { return out; });
  };
  // Docs' ranks by (importance desc, id asc) in the index: a Map.
  Index.prototype.rankOf = function (docs) {
    var self = this;
    return this.manifest().then(function (m) { return self.u32s('r', m.rank, docs.map(function (d) { return [d, self.base, d]; })); });
  };
  // Docs' places in page order: a Map of [folder prefix, position in its
  // repository's page order].
  Index.prototype.placeOf = function (docs) {
    var self = this;
    return this.manifest().then(function (m) {
      var items = docs.map(function (d) { var p = partOf(m, d); return p ? [d, p.prefix, d - p.base] : [d, self.base, d]; });
      return self.u32s('o', m.block, items).then(function (at) {
        var out = new Map();
        items.forEach(function (it) { out.set(it[0], [it[1], at.get(it[0])]); });
        return out;
      });
    });
  };
  // The `want` best-ranked documents of `group` (a Set) with their ranks,
  // read from the documents in rank order (`q-<k>.bin`), a file at a time.
  Index.prototype.bestOf = function (m, group, want) {
    var self = this, out = new Map();
    function from(k) {
      if (out.size >= want || k * m.order >= m.ranked) return Promise.resolve(out);
      if (!self.order[k]) self.order[k] = self.bin(self.base + 'search/q-' + k + '.bin').then(function (b) {
        return new DataView(b.buffer, b.byteOffset, b.byteLength);
      });
      return self.order[k].then(function (v) {
        for (var i = 0; 4 * i + 4 <= v.byteLength && out.size < want; i++) {
          var d = v.getUint32(4 * i, true);
          if (group.has(d)) out.set(d, k * m.order + i);
        }
        return from(k + 1);
      });
    }
    return from(0);
  };
  // The hits in the API's order, the first `limit` exactly (all when
  // limit >= hits.n): score desc, then importance desc, id asc (rank).
  // Only documents tied on score need their rank; the top `limit` are
  // chosen without sorting the rest.
  Index.prototype.ordered = function (h, limit) {
    var self = this, n = h.n, k, above = [], edgeGroup = [], edge = -Infinity, chosen;
    if (limit < n) edge = kthLargest(h.score, limit);
    for (k = 0; k < n; k++) {
      var s = h.score[k];
      if (s > edge) above.push({ doc: h.doc[k], score: s });
      else if (s === edge) edgeGroup.push({ doc: h.doc[k], score: s });
    }
    above.sort(function (a, b) { return b.score - a.score || a.doc - b.doc; });
    var room = limit - above.length, tied = [];
    above.forEach(function (x, i) {
      if ((i > 0 && above[i - 1].score === x.score) || (i + 1 < above.length && above[i + 1].score === x.score)) tied.push(x.doc);
    });
    return this.manifest().then(function (m) {
      var ranks = null;
      chosen = edgeGroup;
      if (edgeGroup.length > room) {
        // Only the `room` best-ranked of the edge's group are shown: read
        // their ranks directly, or walk the documents in rank order when
        // that reads fewer bytes.
        var files = new Set(edgeGroup.map(function (x) { return Math.floor(x.doc / m.rank); }));
        var walk = Math.ceil(room * m.docs / edgeGroup.length / m.order) + 1;
        if (walk * m.order < files.size * m.rank) {
          var group = new Set(edgeGroup.map(function (x) { return x.doc; }));
          ranks = self.bestOf(m, group, room).then(function (best) {
            // Documents the site does not show are in no rank file: they
            // come last (u32::MAX), by document.
            var rest = edgeGroup.filter(function (x) { return !best.has(x.doc); }).slice(0, room - best.size);
            rest.forEach(function (x) { best.set(x.doc, 4294967295); });
            chosen = edgeGroup.filter(function (x) { return best.has(x.doc); });
            return best;
          });
        }
      }
      var direct = tied.concat(ranks || edgeGroup.length < 2 ? [] : edgeGroup.map(function (x) { return x.doc; }));
      return Promise.all([self.rankOf(direct), ranks]);
    }).then(function (r) {
      var rank = r[0];
      if (r[1]) r[1].forEach(function (v, d) { rank.set(d, v); });
      var ofRank = function (d) { var v = rank.get(d); return v === undefined ? 0 : v; };
      var all = above.concat(chosen);
      all.sort(function (a, b) { return b.score - a.score || ofRank(a.doc) - ofRank(b.doc) || a.doc - b.doc; });
      return all.slice(0, limit);
    });
  };
  // The limit-th largest of scores (1 <= limit < scores.length), by a
  // min-heap of the `limit` largest.
  function kthLargest(scores, limit) {
    var heap = new Float64Array(limit), n = 0, i;
    function down(at) {
      for (;;) {
        var l = 2 * at + 1, r = l + 1, m = at;
        if (l < n && heap[l] < heap[m]) m = l;
        if (r < n && heap[r] < heap[m]) m = r;
        if (m === at) return;
        var t = heap[m]; heap[m] = heap[at]; heap[at] = t; at = m;
      }
    }
    for (i = 0; i < scores.length; i++) {
      var s = scores[i];
      if (n < limit) {
        var at = n++;
        heap[at] = s;
        while (at > 0 && heap[(at - 1) >> 1] > heap[at]) { var p = (at - 1) >> 1, t = heap[p]; heap[p] = heap[at]; heap[at] = t; at = p; }
      } else if (s > heap[0]) { heap[0] = s; down(0); }
    }
    return heap[0];
  }
  // The cards of docs (in that order), from their text files: in a
  // group's index, its repositories' files, links made relative to the
  // group's page.
  Index.prototype.cards = function (docs) {
    var self = this;
    return this.manifest().then(function (m) {
      return Promise.all(docs.map(function (d) {
        var part = partOf(m, d), prefix = part ? part.prefix : self.base, local = part ? d - part.base : d;
        var u = prefix + 'search/t-' + Math.floor(local / m.text) + '.json';
        if (!self.texts[u]) self.texts[u] = self.json(u);
        return self.texts[u].then(function (list) {
          var card = list[local % m.text] || null;
          if (!card || !part) return card;
          var out = {};
          for (var k in card) out[k] = card[k];
          out.href = prefix + card.href;
          out.history = card.history ? prefix + card.history : card.history;
          out.repo = part.name;
          return out;
        });
      }));
    });
  };

  return { parse: parse, units: units, Index: Index };
})();
