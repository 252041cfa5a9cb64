/* Repo Signals: the word index in the browser (issue 28). The query
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
  var K1 = 1.2, B = 0.75, TITLE_WEIGHT = 3;
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
    var v = 0, shift = 0, b;
    do {
      if (this.at >= this.b.length || shift > 28) throw new Error('damaged search shard');
      b = this.b[this.at++];
      v += (b & 0x7f) * Math.pow(2, shift);
      shift += 7;
    } while (b & 0x80);
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
    this.shards = {}; this.places = {}; this.ranks = {}; this.texts = {};
  }
  Index.prototype.manifest = function () {
    var self = this;
    if (!this.m) this.m = this.json(this.base + 'search.json').then(function (m) {
      if (!m || m.version !== 1) throw new Error('unknown search index format');
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
    var self = this;
    if (!this.shards[i]) this.shards[i] = this.bin(this.base + 'search/w-' + m.shards[i][1] + '.bin').then(inflate).then(function (b) {
      var r = new Reader(b), terms = [], lists = {};
      while (r.at < b.length) { var t = r.str(), n = r.get(); terms.push(t); lists[t] = b.subarray(r.at, r.at + n); r.at += n; }
      return { terms: terms, lists: lists };
    });
    return this.shards[i];
  };
  Index.prototype.positionsOf = function (m, i) {
    var self = this;
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
  function decode(bytes) {
    var r = new Reader(bytes), n = r.get(), out = new Array(n), doc = 0;
    for (var i = 0; i < n; i++) { doc += r.get(); out[i] = { doc: doc, len: r.get(), title_tf: r.get(), tf: r.get() }; }
    return out;
  }
  // Every entry of term (rank.rs `Source::entries`), positions when asked.
  Index.prototype.entries = function (m, term, positions) {
    var self = this, i = this.shardOf(m, term);
    return this.shard(m, i).then(function (s) {
      var list = s.lists[term] ? decode(s.lists[term]) : [];
      if (!positions || !list.length) return list;
      return self.positionsOf(m, i).then(function (p) {
        var r = new Reader(p[term] || new Uint8Array(0));
        list.forEach(function (e) { var at = 0; e.positions = []; for (var j = 0; j < e.tf; j++) { at += r.get(); e.positions.push(at); } });
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
  function termScore(st, w, e) {
    var avg = st.docs === 0 ? 1.0 : st.total_len / st.docs;
    var tf = e.tf + (TITLE_WEIGHT - 1) * e.title_tf;
    var norm = K1 * (1.0 - B + B * e.len / avg);
    return w * (tf * (K1 + 1.0)) / (tf + norm);
  }
  Index.prototype.clause = function (m, c) {
    var self = this, st = this.stats;
    if (c.phrase && c.phrase.length === 1) return this.entries(m, c.phrase[0].term, false).then(function (list) {
      var w = idf(st, list.length);
      return list.map(function (e) { return [e.doc, termScore(st, w, e)]; });
    });
    if (c.phrase) return Promise.all(c.phrase.map(function (p) { return self.entries(m, p.term, true); })).then(function (lists) {
      return phrase(c.phrase, lists, st);
    });
    return this.expand(m, c.prefix, MAX_EXPANSION + 1).then(function (terms) {
      if (terms.length > MAX_EXPANSION) throw fail('many', 'more than ' + MAX_EXPANSION + ' different words start with ' + JSON.stringify(c.prefix + '*') + ': make the prefix longer');
      return Promise.all(terms.map(function (t) { return self.entries(m, t, false); }));
    }).then(function (lists) {
      var all = [];
      lists.forEach(function (list) { var w = idf(st, list.length); list.forEach(function (e) { all.push([e.doc, termScore(st, w, e), all.length]); }); });
      all.sort(function (a, b) { return a[0] - b[0] || a[2] - b[2]; });
      var out = [];
      all.forEach(function (x) { var l = out[out.length - 1]; if (l && l[0] === x[0]) l[1] += x[1]; else out.push([x[0], x[1]]); });
      return out;
    });
  };
  function has(list, v) { var lo = 0, hi = list.length; while (lo < hi) { var mid = (lo + hi) >> 1; if (list[mid] < v) lo = mid + 1; else hi = mid; } return lo < list.length && list[lo] === v; }
  function phrase(parts, lists, st) {
    var idfs = lists.map(function (l) { return idf(st, l.length); }), cur = lists.map(function () { return 0; }), out = [];
    lists[0].forEach(function (e) {
      var entries = [];
      for (var i = 0; i < lists.length; i++) {
        var l = lists[i];
        while (cur[i] < l.length && l[cur[i]].doc < e.doc) cur[i]++;
        if (cur[i] < l.length && l[cur[i]].doc === e.doc) entries.push(l[cur[i]]); else return;
      }
      var first = parts[0].offset;
      var ok = e.positions.some(function (p) {
        return p >= first && parts.every(function (part, k) { return has(entries[k].positions, p - first + part.offset); });
      });
      if (ok) {
        var score = 0.0;
        entries.forEach(function (en, k) { score = score + termScore(st, idfs[k], en); });
        out.push([e.doc, score]);
      }
    });
    return out;
  }
  // rank.rs `evaluate`: [{doc, score}] in document order.
  Index.prototype.evaluate = function (query) {
    var self = this;
    return this.manifest().then(function (m) {
      var matched = null;
      function include(i) {
        if (i >= query.include.length || (matched && !matched.length)) return Promise.resolve();
        return self.clause(m, query.include[i]).then(function (found) {
          if (matched === null) matched = found;
          else {
            var out = [], j = 0;
            matched.forEach(function (x) { while (j < found.length && found[j][0] < x[0]) j++; if (j < found.length && found[j][0] === x[0]) out.push([x[0], x[1] + found[j][1]]); });
            matched = out;
          }
          return include(i + 1);
        });
      }
      function exclude(i) {
        if (i >= query.exclude.length || !matched.length) return Promise.resolve();
        return self.clause(m, query.exclude[i]).then(function (found) {
          var j = 0;
          matched = matched.filter(function (x) { while (j < found.length && found[j][0] < x[0]) j++; return !(j < found.length && found[j][0] === x[0]); });
          return exclude(i + 1);
        });
      }
      return include(0).then(function () { matched = matched || []; return exclude(0); }).then(function () {
        return matched.map(function (x) { return { doc: x[0], score: Math.round(x[1] * 1000000) }; });
      });
    });
  };
  // One u32 per document from files `kind-<k>.bin` of `per` documents.
  Index.prototype.u32s = function (kind, per, docs) {
    var self = this, cache = kind === 'r' ? this.ranks : this.places32 || (this.places32 = {}), out = {};
    return Promise.all(docs.map(function (d) {
      var k = Math.floor(d / per);
      if (!cache[k]) cache[k] = self.bin(self.base + 'search/' + kind + '-' + k + '.bin').then(function (b) { return new DataView(b.buffer, b.byteOffset, b.byteLength); });
      return cache[k].then(function (v) { var at = (d % per) * 4; out[d] = at + 4 <= v.byteLength ? v.getUint32(at, true) : 4294967295; });
    })).then(function () { return out; });
  };
  // Docs' ranks by (importance desc, id asc).
  Index.prototype.rankOf = function (docs) {
    var self = this;
    return this.manifest().then(function (m) { return self.u32s('r', m.rank, docs); });
  };
  // Docs' positions in page order.
  Index.prototype.placeOf = function (docs) {
    var self = this;
    return this.manifest().then(function (m) { return self.u32s('o', m.block, docs); });
  };
  // The hits in the API's order, the first `limit` exactly (all when
  // limit is Infinity): score desc, then importance desc, id asc (rank).
  Index.prototype.ordered = function (hits, limit) {
    hits = hits.slice().sort(function (a, b) { return b.score - a.score || a.doc - b.doc; });
    var need = [];
    if (limit >= hits.length) need = hits;
    else {
      var edge = hits[limit - 1].score, end = limit;
      while (end < hits.length && hits[end].score === edge) end++;
      need = hits.slice(0, end);
    }
    // Only documents sharing their score with another need their rank.
    var tied = need.filter(function (h, i) { return (i > 0 && need[i - 1].score === h.score) || (i + 1 < hits.length && hits[i + 1].score === h.score); });
    return this.rankOf(tied.map(function (h) { return h.doc; })).then(function (r) {
      return need.slice().sort(function (a, b) {
        return b.score - a.score || (r[a.doc] || 0) - (r[b.doc] || 0) || a.doc - b.doc;
      }).slice(0, limit);
    });
  };
  // The cards of docs (in that order), from their text files.
  Index.prototype.cards = function (docs) {
    var self = this;
    return this.manifest().then(function (m) {
      return Promise.all(docs.map(function (d) {
        var c = Math.floor(d / m.text);
        if (!self.texts[c]) self.texts[c] = self.json(self.base + 'search/t-' + c + '.json');
        return self.texts[c].then(function (list) { return list[d % m.text] || null; });
      }));
    });
  };

  return { parse: parse, units: units, Index: Index };
})();
