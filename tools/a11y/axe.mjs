// axe-core over the pages of an exported site, in Debian's headless
// Chromium (issue 30). Run by crates/signals/tests/it/a11y.rs; also by hand:
//
//   node tools/a11y/axe.mjs out/site                  # every page of a site folder
//   node tools/a11y/axe.mjs out/site / /g/index.html  # these pages of it
//   node tools/a11y/axe.mjs http://127.0.0.1:8080/    # pages given as URLs
//
// A folder is served over loopback by this script (the filter reads its
// index with fetch, which a file:// page may not); the site paths after it
// are the pages checked, or else every *.html file in it. Each page is
// checked in light and in dark (prefers-color-scheme emulation); a page
// with the filter ([data-filter-index]) is also checked with the filter
// open and showing results, in both schemes (that section alone: the rest
// is as it was). Rules: the axe tags in TAGS.
// The result goes to stdout as one JSON document; a one-line summary per
// page with violations goes to stderr. The exit code is 0 when the run
// completed, whatever it found (the caller judges), and 2 when it could
// not run.
//
// Nothing is downloaded: the browser is Debian's chromium (CHROMIUM or
// --chromium, default /usr/bin/chromium), started with a fresh profile and
// no background networking.

import { createServer } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, relative, resolve, sep } from 'node:path';
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const SCHEMES = ['light', 'dark'];
// The query that opens the filter and lists results (filter.js opens its
// form when the URL carries a filter): every signal, newest update first.
const FILTER_QUERY = '?sort=updated';

function usage(message) {
  process.stderr.write(`${message}\nusage: node axe.mjs [--chromium PATH] (SITE_FOLDER [/PATH...] | URL...)\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { chromium: process.env.CHROMIUM || '/usr/bin/chromium', targets: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--chromium') args.chromium = argv[++i] || usage('--chromium needs a path');
    else if (argv[i].startsWith('-')) usage(`unknown option ${argv[i]}`);
    else args.targets.push(argv[i]);
  }
  if (!args.targets.length) usage('no site folder or URL given');
  return args;
}

// Every *.html under root (following the links a publish makes), as
// site paths ("/", "/g/r/page-2.html"), sorted.
function htmlPages(root) {
  const out = [];
  (function walk(dir) {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const path = join(dir, name);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else if (name.endsWith('.html')) out.push('/' + relative(root, path).split(sep).join('/'));
    }
  })(root);
  return out;
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8', '.json': 'application/json',
  '.atom': 'application/atom+xml', '.svg': 'image/svg+xml', '.png': 'image/png',
};

// A read-only static server for root on 127.0.0.1, on a free port.
function serve(root) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = resolve(root, '.' + path);
    if (file !== root && !file.startsWith(root + sep)) { res.writeHead(403).end(); return; }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

// One axe run on the page as it stands (or on the part `only` selects);
// violations kept small.
async function analyze(page, only) {
  const builder = new AxeBuilder({ page }).withTags(TAGS);
  if (only) builder.include(only);
  const result = await builder.analyze();
  return {
    passes: result.passes.length,
    // What axe could not decide (text over a gradient, say): named, not failed.
    incomplete: result.incomplete.map((r) => ({ id: r.id, nodes: r.nodes.map((n) => n.target) })),
    violations: result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({ target: n.target, html: n.html.slice(0, 300), summary: n.failureSummary })),
    })),
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const servers = [];
  const pages = []; // [label, url]
  for (let i = 0; i < args.targets.length; i++) {
    const t = args.targets[i];
    if (/^https?:\/\//.test(t)) { pages.push([t, t]); continue; }
    const root = resolve(t);
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) usage(`${t} is neither a folder nor a URL`);
    const server = await serve(root);
    servers.push(server);
    const base = `http://127.0.0.1:${server.address().port}`;
    const paths = [];
    while (args.targets[i + 1]?.startsWith('/')) paths.push(args.targets[++i]);
    for (const p of paths.length ? paths : htmlPages(root)) pages.push([p, base + p]);
  }

  const profile = mkdtempSync(join(tmpdir(), 'signals-axe-'));
  let context;
  const report = { axe: null, tags: TAGS, checked: [], failures: [] };
  try {
    // launchPersistentContext takes the fresh profile folder; the flags
    // keep Chromium from reaching out on its own.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: args.chromium,
      headless: true,
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
      ],
      viewport: { width: 1280, height: 900 },
    });
    const page = context.pages()[0] || (await context.newPage());
    page.setDefaultTimeout(30000);
    page.on('pageerror', (e) => report.failures.push({ page: page.url(), error: String(e) }));
    report.axe = JSON.parse(readFileSync(new URL(import.meta.resolve('axe-core/package.json')), 'utf8')).version;
    for (const [label, url] of pages) {
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme });
        const resp = await page.goto(url, { waitUntil: 'load' });
        if (!resp || !resp.ok()) {
          report.failures.push({ page: label, error: `HTTP ${resp ? resp.status() : 'no answer'}` });
          break;
        }
        const runs = [[scheme, null, null]];
        const hasFilter = (await page.locator('[data-filter-index]').count()) > 0;
        // With the filter open, only the filtered section is checked again:
        // everything filter.js adds or hides is inside it, and the rest of
        // the page was just checked as it is (on a repository's first page
        // this halves the run).
        if (hasFilter) runs.push([`${scheme}+filter`, url + FILTER_QUERY, '[data-filter-index]']);
        for (const [mode, again, only] of runs) {
          if (again) {
            await page.goto(again, { waitUntil: 'load' });
            // Open, loaded, and showing results (or saying why not).
            await page.waitForFunction(() => {
              const box = document.querySelector('details.filters');
              const status = document.querySelector('.filter-status');
              return box && box.open && status && status.textContent && !/^Loading/.test(status.textContent);
            });
          }
          const started = Date.now();
          const r = await analyze(page, only);
          report.checked.push({ page: label, mode, ms: Date.now() - started, ...r });
          if (r.violations.length) {
            process.stderr.write(`${label} [${mode}]: ${r.violations.map((v) => `${v.id} (${v.impact}, ${v.nodes.length})`).join(', ')}\n`);
          }
        }
      }
    }
  } finally {
    if (context) await context.close();
    for (const s of servers) s.close();
    rmSync(profile, { recursive: true, force: true });
  }
  const counts = {};
  for (const c of report.checked) for (const v of c.violations) counts[v.id] = (counts[v.id] || 0) + v.nodes.length;
  report.violationsByRule = counts;
  process.stdout.write(JSON.stringify(report, null, 1) + '\n');
  process.stderr.write(`axe ${report.axe}: ${report.checked.length} checks of ${pages.length} pages, ` +
    `${Object.values(counts).reduce((a, b) => a + b, 0)} violating nodes, ${report.failures.length} failures\n`);
}

main().catch((e) => {
  process.stderr.write(`axe run failed: ${e && e.stack || e}\n`);
  process.exit(2);
});
