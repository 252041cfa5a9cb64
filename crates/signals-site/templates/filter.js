/* Repo Signals: filter and search the signals of a page.
   Our own script, no framework. It only adds to the page: without it the
   page is the paged list it always was. It reads the columnar index named
   by the list's data-filter-index attribute (signals.json, format 3) when
   the reader opens the filters or a shared link carries a filter, with the
   first of its text parts (the excerpts of the best 1,000 signals); the
   other text parts are read only when a text query needs them. It builds
   every result with DOM calls and textContent, never innerHTML, so no text
   of the index can become markup. The filter lives in the URL query (kind,
   state, label (repeatable), author, run, repo, q, sort), so a view can be
   shared. */
(function () {
  'use strict';
  var section = document.querySelector('[data-filter-index]');
  if (!section || !window.fetch || !window.URLSearchParams) return;
  var list = section.querySelector('ol.cards');
  var counter = section.querySelector('.counter');
  var STEP = 100;
  var KINDS = [['', 'any kind'], ['issue', 'issues'], ['pull_request', 'pull requests'], ['release', 'releases']];
  var KIND_LABEL = { issue: 'issue', pull_request: 'pull request', release: 'release' };
  var STATES = [['', 'any state'], ['open', 'open'], ['closed', 'closed']];
  var RUNS = [['', 'any time'], ['any', 'new or updated in the latest run'], ['new', 'new in the latest run'], ['updated', 'updated in the latest run']];
  var SORTS = [['importance', 'by importance'], ['updated', 'by update time']];
  var KNOWN_PREFIXES = ['area:', 'platform:', 'api:'];
  var KIND_CODES = { i: 'issue', p: 'pull_request', r: 'release' };
  var index = null, loading = null, shown = STEP;
  // One source per repository index: its decoded entries in page order,
  // its text parts and the reads of them (promises) so far.
  var sources = [], texts = null, textsDone = false, textsFailed = '';
  // The word index (search.js), on a repository page: a text query is
  // answered from it, ranked as the API ranks; a query alone (no other
  // filter, default sort) never reads signals.json.
  var words = null, seq = 0, deferred = false, SEARCH_STEP = 50, shownSearch = SEARCH_STEP, FIRST_CARDS = 10;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) if (attrs[k] !== null) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function select(name, label, options) {
    var s = el('select', { name: name, 'aria-label': label });
    options.forEach(function (o) { s.appendChild(el('option', { value: o[0] }, o[1])); });
    return s;
  }
  function field(text, control) {
    var l = el('label', { 'class': 'filter-field' });
    l.appendChild(el('span', null, text));
    l.appendChild(control);
    return l;
  }

  // The form, folded by default so the cards stay near the top.
  var box = el('details', { 'class': 'filters' });
  box.appendChild(el('summary', null, 'Filter and search all signals'));
  var form = el('form', { role: 'search', 'aria-label': 'Filter signals' });
  var q = el('input', { type: 'search', name: 'q', placeholder: 'words in title or text', 'aria-label': 'Search titles and text', maxlength: '200' });
  var kind = select('kind', 'Kind', KINDS);
  var state = select('state', 'State', STATES);
  var run = select('run', 'Latest run', RUNS);
  var sort = select('sort', 'Sort', SORTS);
  var author = el('input', { type: 'text', name: 'author', list: 'filter-authors', 'aria-label': 'Author', placeholder: 'any author', maxlength: '100' });
  var authors = el('datalist', { id: 'filter-authors' });
  var labels = el('span', { 'class': 'filter-labels' });
  var repo = null;
  var clear = el('button', { type: 'button' }, 'Clear');
  form.appendChild(field('Search', q));
  form.appendChild(field('Kind', kind));
  form.appendChild(field('State', state));
  form.appendChild(labels);
  form.appendChild(field('Author', author));
  form.appendChild(authors);
  form.appendChild(field('Latest run', run));
  form.appendChild(field('Sort', sort));
  form.appendChild(clear);
  box.appendChild(form);
  var status = el('p', { 'class': 'filter-status', 'aria-live': 'polite' });
  box.appendChild(status);
  section.insertBefore(box, counter || list);
  var results = el('ol', { 'class': 'cards filter-results', hidden: '' });
  var more = el('button', { type: 'button', 'class': 'filter-more', hidden: '' }, 'Show more');
  section.insertBefore(more, list ? list.nextSibling : null);
  section.insertBefore(results, more);

  function prefixOf(label) {
    var m = /^([A-Za-z0-9_.-]{1,30}:)./.exec(label);
    return m ? m[1].toLowerCase() : '';
  }

  // One select per label prefix with at least two labels (area:, platform:,
  // api: first), plain labels in the first; a label lives in one select.
  function buildLabels(wanted) {
    var counts = {};
    index.signals.forEach(function (s) { s.labels.forEach(function (l) { counts[l] = (counts[l] || 0) + 1; }); });
    wanted.forEach(function (l) { if (!(l in counts)) counts[l] = 0; });
    var byPrefix = {};
    Object.keys(counts).forEach(function (l) { var p = prefixOf(l); (byPrefix[p] = byPrefix[p] || []).push(l); });
    var groups = [''];
    KNOWN_PREFIXES.forEach(function (p) { if (byPrefix[p]) groups.push(p); });
    Object.keys(byPrefix).sort().forEach(function (p) {
      if (!p || groups.indexOf(p) >= 0) return;
      if (byPrefix[p].length >= 2 && groups.length < 8) groups.push(p);
      else byPrefix[''] = (byPrefix[''] || []).concat(byPrefix[p]);
    });
    while (labels.firstChild) labels.removeChild(labels.firstChild);
    groups.forEach(function (p) {
      var names = (byPrefix[p] || []).sort(function (a, b) { return counts[b] - counts[a] || (a < b ? -1 : a > b ? 1 : 0); });
      if (!names.length) return;
      var text = p ? p.slice(0, -1) : 'Label';
      text = text.charAt(0).toUpperCase() + text.slice(1);
      var s = select('label', 'Label' + (p ? ' ' + p : ''), [['', p ? 'any ' + p : 'any label']].concat(names.map(function (l) { return [l, l + ' (' + counts[l] + ')']; })));
      s.value = '';
      wanted.forEach(function (l) { if (names.indexOf(l) >= 0) s.value = l; });
      labels.appendChild(field(text, s));
    });
  }

  function buildOthers(params) {
    var seen = {}, repos = {};
    index.signals.forEach(function (s) {
      seen[s.author] = (seen[s.author] || 0) + 1;
      if (s.repo) repos[s.repo] = (repos[s.repo] || 0) + 1;
    });
    Object.keys(seen).sort(function (a, b) { return seen[b] - seen[a] || (a < b ? -1 : 1); }).slice(0, 500).forEach(function (a) {
      authors.appendChild(el('option', { value: a }));
    });
    var names = Object.keys(repos).sort();
    if (names.length > 1) {
      repo = select('repo', 'Repository', [['', 'any repository']].concat(names.map(function (r) { return [r, r + ' (' + repos[r] + ')']; })));
      form.insertBefore(field('Repository', repo), q.parentNode.nextSibling);
      repo.value = params.get('repo') || '';
    }
    buildLabels(params.getAll('label'));
  }

  function current() {
    var f = { q: q.value.trim(), kind: kind.value, state: state.value, run: run.value, sort: sort.value,
      author: author.value.trim(), repo: repo ? repo.value : '', labels: [] };
    Array.prototype.forEach.call(labels.querySelectorAll('select'), function (s) { if (s.value) f.labels.push(s.value); });
    return f;
  }
  function active(f) {
    return !!(f.q || f.kind || f.state || f.run || f.author || f.repo || f.labels.length || f.sort !== 'importance');
  }
  function toQuery(f) {
    var p = new URLSearchParams();
    ['kind', 'state', 'run', 'author', 'repo', 'q'].forEach(function (k) { if (f[k]) p.set(k, f[k]); });
    f.labels.forEach(function (l) { p.append('label', l); });
    if (f.sort !== 'importance') p.set('sort', f.sort);
    var s = p.toString();
    return s ? '?' + s : '';
  }

  function matches(f) {
    var terms = f.q.toLowerCase().split(/\s+/).filter(Boolean);
    var who = f.author.toLowerCase();
    var out = index.signals.filter(function (s) {
      if (f.kind && s.kind !== f.kind) return false;
      if (f.state && s.state !== f.state) return false;
      if (f.repo && s.repo !== f.repo) return false;
      if (who && s.author.toLowerCase() !== who) return false;
      if (f.run === 'new' && !s.new) return false;
      if (f.run === 'updated' && !s.changed) return false;
      if (f.run === 'any' && !s.new && !s.changed) return false;
      for (var i = 0; i < f.labels.length; i++) if (s.labels.indexOf(f.labels[i]) < 0) return false;
      if (terms.length) {
        var hay = (s.title + '\n' + s.excerpt + '\n' + s.number).toLowerCase();
        for (var j = 0; j < terms.length; j++) if (hay.indexOf(terms[j]) < 0) return false;
      }
      return true;
    });
    if (f.sort === 'updated') out = byUpdated(out);
    return out;
  }

  // Stable: equal times keep the order given.
  function byUpdated(out) {
    return out.map(function (s, i) { return [s, i]; }).sort(function (a, b) {
      return a[0].updated < b[0].updated ? 1 : a[0].updated > b[0].updated ? -1 : a[1] - b[1];
    }).map(function (p) { return p[0]; });
  }

  function when(iso) {
    return /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? iso.slice(0, 10) + ' ' + iso.slice(11, 16) + ' UTC' : iso;
  }

  function card(s) {
    var li = el('li', { 'class': 'card card-' + s.kind.replace('_', '-'), 'data-result-id': s.id });
    var top = el('p', { 'class': 'card-top' });
    top.appendChild(el('span', { 'class': 'kind' }, KIND_LABEL[s.kind] || 'signal'));
    top.appendChild(document.createTextNode(' '));
    top.appendChild(el('span', { 'class': 'num' }, s.number));
    if (s.state) { top.appendChild(document.createTextNode(' ')); top.appendChild(el('span', { 'class': 'state state-' + s.state }, s.state)); }
    if (s.new) { top.appendChild(document.createTextNode(' ')); top.appendChild(el('span', { 'class': 'flag flag-new' }, 'new')); }
    if (s.changed) { top.appendChild(document.createTextNode(' ')); top.appendChild(el('span', { 'class': 'flag flag-updated' }, 'updated in the latest run')); }
    if (s.repo) { top.appendChild(document.createTextNode(' ')); top.appendChild(el('span', { 'class': 'flag flag-repo' }, s.repo)); }
    li.appendChild(top);
    var h = el('h3', { 'class': 'card-title' });
    // Only http(s) links; export already dropped anything else.
    if (s.url && /^https?:\/\//i.test(s.url)) h.appendChild(el('a', { href: s.url }, s.title));
    else h.textContent = s.title;
    li.appendChild(h);
    if (s.excerpt) li.appendChild(el('p', { 'class': 'excerpt' }, s.excerpt));
    if (s.labels.length) {
      var ul = el('ul', { 'class': 'tags labels', 'aria-label': 'Labels' });
      s.labels.forEach(function (l) { ul.appendChild(el('li', null, l)); });
      li.appendChild(ul);
    }
    var meta = el('p', { 'class': 'card-meta' });
    meta.appendChild(document.createTextNode('importance ' + s.importance + ' · by ' + s.author + ' · updated '));
    meta.appendChild(el('time', { datetime: s.updated }, when(s.updated)));
    meta.appendChild(document.createTextNode(' · '));
    meta.appendChild(el('a', { href: s.href }, 'full card'));
    if (s.history) {
      meta.appendChild(document.createTextNode(' · '));
      meta.appendChild(el('a', { 'class': 'history', href: s.history }, 'history'));
    }
    li.appendChild(meta);
    return li;
  }

  function show(f, found) {
    var on = active(f);
    if (list) list.hidden = on;
    if (counter) counter.hidden = on;
    Array.prototype.forEach.call(section.querySelectorAll('.pager'), function (p) { p.hidden = on; });
    results.hidden = !on;
    while (results.firstChild) results.removeChild(results.firstChild);
    more.hidden = true;
    if (!on) { status.textContent = index ? index.signals.length + ' signals; choose a filter.' : ''; return; }
    var n = Math.min(shown, found.length);
    for (var i = 0; i < n; i++) results.appendChild(card(found[i]));
    status.textContent = found.length + (found.length === 1 ? ' signal matches' : ' signals match') +
      ' of ' + index.signals.length + (n < found.length ? ' · first ' + n + ' shown' : '') +
      (f.sort === 'updated' ? ', newest first' : ', ' + order(f)) +
      (!f.q || textsDone || words ? '' : textsFailed ? ' · the texts could not be read (' + textsFailed + '): titles and numbers only'
        : ' · so far in titles, numbers and the texts read; reading the other texts…');
    more.hidden = n >= found.length;
  }

  // Every text part of every source, read once, when a text query first
  // needs them; the results are shown again when all have come.
  function allTexts() {
    if (texts) return;
    var reads = [];
    sources.forEach(function (src) { src.texts.forEach(function (_, j) { reads.push(readText(src, j)); }); });
    texts = Promise.all(reads).then(function () { textsDone = true; apply(false); },
      function (e) { textsFailed = e.message; apply(false); });
  }

  function searchOnly(f) {
    return !!(words && f.q && !f.kind && !f.state && !f.run && !f.author && !f.repo && !f.labels.length && f.sort === 'importance');
  }

  // A text query from the word index: parsed as the API parses it (its
  // errors shown as the API words them), ranked, the first `shown` cards
  // read from the text files. With other filters, or sorted by update
  // time, the matches are taken from the full index in the rank order.
  function search(f, push) {
    var mine = ++seq, query;
    if (push) history.replaceState(null, '', location.pathname + toQuery(f) + location.hash);
    try { query = SignalsSearch.parse(f.q); } catch (e) { showSearch(f, [], 0, e.message); return; }
    status.textContent = 'Searching…';
    words.evaluate(query).then(function (hits) {
      if (mine !== seq) return;
      if (searchOnly(f)) {
        return words.ordered(hits, shownSearch).then(function (top) {
          // Every card file is asked for at once, in result order; the
          // first results are shown as soon as their cards have come.
          var docs = top.map(function (h) { return h.doc; }), all = words.cards(docs);
          if (docs.length <= FIRST_CARDS) return all;
          return words.cards(docs.slice(0, FIRST_CARDS)).then(function (cards) {
            if (mine === seq) showSearch(f, cards.filter(Boolean), hits.n, '', true);
            return all;
          });
        }).then(function (cards) {
          if (mine === seq) showSearch(f, cards.filter(Boolean), hits.n, '');
        });
      }
      return Promise.all([load(params), words.ordered(hits, hits.n)]).then(function (r) {
        return words.placeOf(r[1].map(function (h) { return h.doc; })).then(function (at) {
          if (mine !== seq || !index) return;
          var g = {}; for (var k in f) g[k] = f[k];
          g.q = '';
          var keep = {};
          matches(g).forEach(function (s) { keep[s.id] = true; });
          var found = [];
          var byBase = {};
          sources.forEach(function (src) { byBase[src.base] = src; });
          r[1].forEach(function (h) {
            var p = at.get(h.doc), src = p && byBase[p[0]], s = src && src.entries[p[1]];
            if (s && keep[s.id]) found.push(s);
          });
          if (f.sort === 'updated') found = byUpdated(found);
          show(f, found);
        });
      });
    }).catch(function (e) {
      if (mine !== seq) return;
      // No word index beside the page (a site written without a store):
      // the texts are searched as before.
      if (e.manifest) { words = null; deferred = false; load(params); return; }
      showSearch(f, [], 0, e.message);
    });
  }

  function showSearch(f, cards, total, error, partial) {
    if (list) list.hidden = true;
    if (counter) counter.hidden = true;
    Array.prototype.forEach.call(section.querySelectorAll('.pager'), function (p) { p.hidden = true; });
    results.hidden = false;
    while (results.firstChild) results.removeChild(results.firstChild);
    cards.forEach(function (s) { results.appendChild(card(s)); });
    order(f);
    status.textContent = error ? 'The search cannot be answered: ' + error + '.' :
      total + (total === 1 ? ' signal matches' : ' signals match') + (cards.length < total ? ' · first ' + cards.length + ' shown' : '') + ', by relevance' +
      (partial ? '; reading the next ones…' : '');
    more.hidden = !!partial || error !== '' || cards.length >= total;
  }

  // The default order's words, on the sort menu as in the count: a text
  // query answered from the word index is ranked by relevance, anything
  // else by importance.
  function order(f) {
    var said = words && f.q ? 'by relevance' : 'by importance';
    sort.options[0].textContent = said;
    return said;
  }

  function apply(push) {
    var f = current();
    order(f);
    if (words && f.q) { search(f, push); return; }
    if (!index) return;
    if (f.q && !textsDone && !words) allTexts();
    show(f, matches(f));
    if (push) history.replaceState(null, '', location.pathname + toQuery(f) + location.hash);
  }

  function read(u) {
    return fetch(u, { credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + u);
      return r.json();
    }).then(function (data) {
      if (!data || data.version !== 3) throw new Error('unknown index format');
      return data;
    });
  }

  // A signal id as a URL fragment, as export writes it: everything but
  // unreserved characters percent-encoded.
  function fragment(id) {
    return encodeURIComponent(id).replace(/[!'()*]/g, function (c) { return '%' + c.charCodeAt(0).toString(16).toUpperCase(); });
  }

  // The entries of one repository's columnar index (see filter/columns.rs):
  // dictionaries expanded, and what export leaves out derived (links,
  // numbers, URLs ending in the key) unless listed as odd. Links are made
  // relative to this page with prefix p; base is the index's folder.
  function decode(d, base, p, repo) {
    var c = d.columns, n = d.total, out = new Array(n);
    if (!c || !Array.isArray(c.title) || c.title.length !== n || c.kind.length !== n) throw new Error('unknown index format');
    for (var i = 0; i < n; i++) {
      var head = d.heads[c.head[i]], key = c.key[i], id = head + key, k = c.kind.charAt(i), st = c.state.charAt(i);
      var odd = (d.odd && d.odd[i]) || {}, fl = +c.flags.charAt(i), u = c.url[i], t = c.updated[i];
      var hk = head.slice(0, -1);
      hk = hk.slice(hk.lastIndexOf(':') + 1);
      var page = Math.floor(i / d.page) + 1;
      out[i] = {
        id: id, kind: KIND_CODES[k] || 'other',
        number: 'number' in odd ? odd.number : k === 'r' ? key : '#' + key,
        state: st === 'o' ? 'open' : st === 'c' ? 'closed' : '',
        labels: c.labels[i].map(function (l) { return d.labels[l]; }),
        author: d.authors[c.author[i]], title: c.title[i], excerpt: '', importance: c.importance[i],
        updated: typeof t === 'number' ? new Date(t * 1000).toISOString().slice(0, 19) + 'Z' : t,
        url: u === null ? null : typeof u === 'number' ? d.urls[u] + key : u,
        href: p + (page === 1 ? 'index.html' : 'page-' + page + '.html') + '#' + fragment(id),
        history: p + ('history' in odd ? odd.history : 'history/' + hk + '-' + key + '.html'),
        new: (fl & 1) === 1, changed: (fl & 2) === 2, repo: repo
      };
    }
    var src = { base: base, texts: d.texts || [], entries: out, reads: [] };
    sources.push(src);
    return (src.texts.length ? readText(src, 0) : Promise.resolve()).then(function () { return out; });
  }

  // Text part j of a source: the excerpts of its signals from .from on.
  function readText(src, j) {
    if (!src.reads[j]) {
      src.reads[j] = read(src.base + src.texts[j]).then(function (part) {
        if (!Array.isArray(part.texts)) throw new Error('unknown text format');
        part.texts.forEach(function (x, k) { var e = src.entries[part.from + k]; if (e) e.excerpt = String(x); });
      });
    }
    return src.reads[j];
  }

  function folder(u) { return u.slice(0, u.lastIndexOf('/') + 1); }

  function load(params) {
    if (loading) return loading;
    status.textContent = 'Loading the signals…';
    var url = section.getAttribute('data-filter-index');
    // A group page's index names the index of each of its repositories:
    // they are read and merged, links made relative to the group page, in
    // the group's order (importance, newest update, id).
    function entries(data) {
      if (data.columns || !Array.isArray(data.parts)) return decode(data, folder(url), '', null);
      return Promise.all(data.parts.map(function (p) {
        return read(p.index).then(function (part) { return decode(part, folder(p.index), p.prefix, p.repo); });
      })).then(function (lists) {
        var all = [].concat.apply([], lists);
        all.sort(function (a, b) {
          return b.importance - a.importance || (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0) ||
            (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
        });
        return all;
      });
    }
    loading = read(url).then(entries).then(function (all) {
      index = { signals: all };
      buildOthers(params);
      apply(false);
    }).catch(function (e) {
      status.textContent = 'Filtering is unavailable: ' + url + ' could not be read (' + e.message + ').' +
        (location.protocol === 'file:' ? ' Browsers do not let a page opened from a file read it; serve the site folder over HTTP.' : '');
    });
    return loading;
  }

  function fromUrl() {
    var p = new URLSearchParams(location.search);
    q.value = p.get('q') || '';
    kind.value = p.get('kind') || '';
    state.value = p.get('state') || '';
    run.value = p.get('run') || '';
    sort.value = p.get('sort') === 'updated' ? 'updated' : 'importance';
    author.value = p.get('author') || '';
    return p;
  }

  var params = fromUrl();
  var wanted = ['q', 'kind', 'state', 'run', 'sort', 'author', 'label', 'repo'].some(function (k) { return params.has(k); });
  var at = section.getAttribute('data-filter-index') || '';
  if (window.SignalsSearch && window.TextEncoder && window.DecompressionStream && section.hasAttribute('data-search')) {
    words = new SignalsSearch.Index(folder(section.getAttribute('data-search')), function (u) {
      return fetch(u, { credentials: 'same-origin' }).then(function (r) {
        if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + u);
        return r.arrayBuffer();
      }).then(function (b) { return new Uint8Array(b); });
    }, function (u) {
      return fetch(u, { credentials: 'same-origin' }).then(function (r) {
        if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + u);
        return r.json();
      });
    });
  }
  box.addEventListener('toggle', function () { if (box.open && !deferred) load(params); });
  form.addEventListener('focusin', function () { deferred = false; load(params); });
  form.addEventListener('submit', function (e) { e.preventDefault(); apply(true); });
  form.addEventListener('input', function () { shown = STEP; shownSearch = SEARCH_STEP; apply(true); });
  form.addEventListener('change', function () { shown = STEP; shownSearch = SEARCH_STEP; apply(true); });
  more.addEventListener('click', function () { shown += STEP; shownSearch += SEARCH_STEP; apply(false); });
  clear.addEventListener('click', function () {
    form.reset();
    Array.prototype.forEach.call(form.querySelectorAll('select'), function (s) { s.selectedIndex = 0; });
    shown = STEP;
    apply(true);
  });
  if (wanted && searchOnly(current())) { deferred = true; box.open = true; apply(false); }
  else if (wanted) { box.open = true; load(params); }
})();
