// Checks the built book in headless Chromium the way a reader sees it:
//   node check-book.mjs BOOK_DIR SCREENSHOT_DIR --chapters FILE
//   node check-book.mjs --safety BOOK_DIR [PAGE.html...]
//   node check-book.mjs BOOK_DIR SCREENSHOT_DIR --chapters FILE --only NAME
// FILE is the chapter registry: `harness chapters --json` output, or
// code/chapters.toml itself. With --only, the per-chapter checks visit
// chapter NAME alone (a book that differs from one already checked by that
// chapter); the checks of the whole book still run. Every chapter page, at a phone width and a
// desktop width, in all five mdBook themes: no console errors, figures drawn,
// inside the column and legible, tables that fit or scroll, search that finds
// each chapter, and a print page that carries the figures. Every page of the
// book (only the pages named, with --safety): no dialog, no popup, and no
// script but the theme's own.
import { chromium } from "playwright-core";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";

function usage(message) {
  if (message) console.error(`check-book: ${message}`);
  console.error("usage: node check-book.mjs BOOK_DIR SCREENSHOT_DIR --chapters FILE [--only NAME]\n" +
    "       node check-book.mjs --safety BOOK_DIR [PAGE.html...]");
  process.exit(2);
}

const args = process.argv.slice(2);
const safetyOnly = args[0] === "--safety";
let bookDir, shotDir, chaptersFile, only, safetyPages = [];
if (safetyOnly) {
  [bookDir, ...safetyPages] = args.slice(1);
  if (!bookDir) usage();
} else {
  const at = args.indexOf("--chapters");
  if (at >= 0) { chaptersFile = args[at + 1]; args.splice(at, 2); }
  const o = args.indexOf("--only");
  if (o >= 0) {
    only = args[o + 1];
    if (!only) usage("--only needs a chapter name");
    args.splice(o, 2);
  }
  [bookDir, shotDir] = args;
  if (!bookDir || !shotDir || args.length !== 2) usage();
  if (!chaptersFile) usage("--chapters FILE is required: the chapter list (JSON, or code/chapters.toml)");
}
bookDir = path.resolve(bookDir);
if (!fs.existsSync(bookDir) || !fs.statSync(bookDir).isDirectory()) usage(`${bookDir} is not a folder`);

// The registry's TOML, as far as this needs it: [[chapter]] tables of
// key = "string" lines; other keys, values and tables are skipped.
function parseChaptersToml(text) {
  const list = [];
  let current = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (/^\[\[\s*chapter\s*\]\]$/.test(line)) { current = {}; list.push(current); continue; }
    if (line.startsWith("[")) { current = null; continue; }
    const m = line.match(/^([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(?:#.*)?$/);
    if (m && current) current[m[1]] = m[2] !== undefined ? JSON.parse(`"${m[2]}"`) : m[3];
  }
  return list;
}

function loadChapters(file) {
  let list;
  try {
    const text = fs.readFileSync(file, "utf8");
    list = file.endsWith(".toml") ? parseChaptersToml(text) : JSON.parse(text);
  } catch (e) {
    usage(`cannot read the chapter list ${file}: ${e.message}`);
  }
  if (!Array.isArray(list) || list.length === 0) usage(`the chapter list ${file} has no chapters`);
  const seen = new Set();
  for (const [i, c] of list.entries()) {
    if (typeof c?.name !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(c.name)) {
      usage(`chapter ${i + 1} in ${file} has no valid name: ${JSON.stringify(c)}`);
    }
    if (typeof c.search !== "string" || !c.search.trim()) usage(`chapter ${c.name} in ${file} has no search keyword`);
    if (seen.has(c.name)) usage(`chapter ${c.name} is listed twice in ${file}`);
    seen.add(c.name);
  }
  return list;
}

function htmlPages(dir, prefix = "") {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const rel = prefix + e.name;
    if (e.isDirectory()) return htmlPages(path.join(dir, e.name), rel + "/");
    return e.name.endsWith(".html") ? [rel] : [];
  }).sort();
}

const CHAPTERS = safetyOnly ? [] : loadChapters(chaptersFile);
// The chapters whose pages the per-chapter checks visit.
const VISITED = only === undefined ? CHAPTERS : CHAPTERS.filter((c) => c.name === only);
if (only !== undefined && VISITED.length === 0) {
  usage(`--only ${only}: no such chapter in ${chaptersFile} (it lists ${CHAPTERS.map((c) => c.name).join(", ")})`);
}
// A chapter in the list without a page, or a chapter the book exports results
// for but the list lacks, would otherwise skip its checks without a word.
{
  const missing = CHAPTERS.filter((c) => !fs.existsSync(path.join(bookDir, `${c.name}.html`)))
    .map((c) => `chapter ${c.name} is in the chapter list but the book has no ${c.name}.html`);
  const resultsDir = path.join(bookDir, "results");
  const unlisted = safetyOnly || !fs.existsSync(resultsDir) ? [] : fs.readdirSync(resultsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !CHAPTERS.some((c) => c.name === e.name))
    .map((e) => `the book exports results/${e.name}/ but chapter ${e.name} is not in the chapter list ${chaptersFile}`);
  if (missing.length + unlisted.length > 0) {
    for (const m of [...missing, ...unlisted]) console.error(`browser check failed: ${m}`);
    process.exit(1);
  }
}
for (const p of safetyPages) {
  if (!fs.existsSync(path.join(bookDir, p))) usage(`${p} is not a page of ${bookDir}`);
}
const THEMES = ["light", "rust", "coal", "navy", "ayu"];
const WIDTHS = [375, 1280];
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium-headless-shell";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css",
  ".svg": "image/svg+xml", ".json": "application/json", ".csv": "text/csv",
  ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".png": "image/png" };
// The page content as mdBook wrote it: between the theme's <main> and
// </main> (the last one: content could hold a stray "</main>").
function contentOf(html) {
  const start = html.indexOf("<main>"), end = html.lastIndexOf("</main>");
  return start >= 0 && end > start ? { start: start + "<main>".length, end } : null;
}

// A policy that allows exactly the scripts the book ships: files from the
// book's own origin and the theme's inline scripts, which all sit outside the
// content. Report-only, so nothing a reader would see changes; a script from
// anywhere else (inline in the content, an event handler attribute, a
// javascript: URL) raises a securitypolicyviolation event.
function themeScriptPolicy(html) {
  const c = contentOf(html);
  const outside = c ? html.slice(0, c.start) + html.slice(c.end) : html;
  const hashes = new Set();
  for (const m of outside.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(m[1])) continue;
    hashes.add(`'sha256-${crypto.createHash("sha256").update(m[2]).digest("base64")}'`);
  }
  return `script-src 'self' 'unsafe-eval' 'report-sample' ${[...hashes].join(" ")}; object-src 'none'; base-uri 'self'`;
}

const server = http.createServer((req, res) => {
  const url = decodeURIComponent(new URL(req.url, "http://x").pathname);
  let file = path.join(bookDir, url);
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, "index.html");
  if (!file.startsWith(path.resolve(bookDir)) || !fs.existsSync(file)) {
    res.writeHead(404); res.end("not found"); return;
  }
  const headers = { "content-type": TYPES[path.extname(file)] || "application/octet-stream" };
  if (file.endsWith(".html")) headers["content-security-policy-report-only"] = themeScriptPolicy(fs.readFileSync(file, "utf8"));
  res.writeHead(200, headers);
  fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync"],
});

let passed = 0;
const failures = [];
function check(ok, what) {
  if (ok) passed += 1; else failures.push(what);
}

async function open(pagePath, { width = 1280, theme = "light", print = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.addInitScript((t) => {
    localStorage.setItem("mdbook-theme", t);
    window.print = () => {};
  }, theme);
  await page.goto(`${base}/${pagePath}`, { waitUntil: "load" });
  if (print) await page.emulateMedia({ media: "print" });
  return { page, context, errors };
}

// Contrast as WCAG defines it, between two "rgb(r, g, b)" colours.
function contrastJs() {
  return `
    const lum = (c) => { const m = c.match(/[\\d.]+/g).map(Number);
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(m[0]) + 0.7152 * f(m[1]) + 0.0722 * f(m[2]); };
    const contrast = (a, b) => { const x = lum(a), y = lum(b);
      return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };`;
}

// What a page may run: the theme's scripts and nothing else. Three views of
// it, each catching what the others can miss: the browser's own report of
// any script outside the policy above plus dialogs and popups (scripts that
// ran), the live DOM of the content (scripts that have not run yet, or
// removed themselves), and the HTML file (what the DOM may no longer show).
const UNSAFE_HTML = [
  [/<script\b/i, "a <script> element in the page content"],
  [/<(iframe|frame|object|embed|base)\b/i, "an embedded document or <base> in the page content"],
  [/<[a-z][^>]*?\son[a-z]+\s*=/i, "an event handler attribute in the page content"],
  [/\b(?:href|src|action|formaction|xlink:href|data)\s*=\s*["']?\s*javascript:/i, "a javascript: URL in the page content"],
];

async function safety(file) {
  const problems = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on("dialog", (d) => {
    problems.push(`opens a dialog (${d.type()}: "${d.message().slice(0, 60)}")`);
    d.dismiss().catch(() => {});
  });
  page.on("popup", (p) => problems.push(`opens a window (${p.url()})`));
  await page.addInitScript(() => {
    window.__unshippedScripts = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__unshippedScripts.push(
      `${e.effectiveDirective} ${e.blockedURI || "inline"}${e.sample ? ` "${e.sample}"` : ""}`), true);
  });
  await page.goto(`${base}/${file}`, { waitUntil: "load" });
  // Timers and load handlers a script set up get a moment to show themselves.
  await page.waitForTimeout(300);
  const seen = await page.evaluate(() => {
    const out = window.__unshippedScripts.map((v) => `runs a script the book does not ship (${v})`);
    const main = document.querySelector("main");
    const content = document.getElementById("content") || main || document.body;
    for (const el of content.querySelectorAll("script, iframe, frame, object, embed, base")) {
      out.push(`has a <${el.localName}> element in its content`);
    }
    for (const el of content.querySelectorAll("*")) {
      for (const a of el.attributes) {
        if (/^on/i.test(a.name)) out.push(`has an event handler attribute ${a.name} on <${el.localName}>`);
        else if (/^(href|src|action|formaction|xlink:href|data)$/i.test(a.name) && /^\s*javascript:/i.test(a.value)) {
          out.push(`has a javascript: URL in ${a.name} of <${el.localName}>`);
        }
      }
    }
    for (const s of document.querySelectorAll("script[src]")) {
      const u = new URL(s.getAttribute("src"), location.href);
      if (u.origin !== location.origin) out.push(`loads a script from elsewhere: ${u.href}`);
    }
    return out;
  });
  problems.push(...seen);
  const html = fs.readFileSync(path.join(bookDir, file), "utf8");
  const c = contentOf(html);
  if (c) {
    const content = html.slice(c.start, c.end);
    for (const [re, what] of UNSAFE_HTML) if (re.test(content)) problems.push(`has ${what} (in the HTML file)`);
  }
  await context.close();
  const unique = [...new Set(problems)];
  check(unique.length === 0, `${file}: ${unique.slice(0, 6).join("; ")}`);
}

for (const file of safetyPages.length ? safetyPages : htmlPages(bookDir)) await safety(file);

// Verdict badges as the reader sees them: each one inside the text column,
// or, in a table, no wider than the column (the table may scroll). A long
// badge that cannot wrap runs past the column and is cut off.
async function badgesOutside(page) {
  return page.evaluate(() => {
    const main = document.querySelector("main").getBoundingClientRect();
    return [...document.querySelectorAll("main .verdict")]
      .filter((v) => v.getBoundingClientRect().height > 0)
      .filter((v) => {
        const r = v.getBoundingClientRect();
        return v.closest("table") ? r.width > main.width + 1 : r.right > main.right + 1 || r.left < main.left - 1;
      })
      .map((v) => `${v.dataset.claim || "a verdict"} ("${v.textContent.trim().slice(0, 60)}")`);
  });
}

for (const file of ["index.html", "findings.html"]) {
  if (!fs.existsSync(path.join(bookDir, file))) continue;
  for (const width of WIDTHS) {
    const { page, context } = await open(file, { width });
    const outside = await badgesOutside(page);
    check(outside.length === 0, `${file} @${width}px: verdict badges run past the column: ${outside.join("; ")}`);
    await context.close();
  }
}

// ---- Every chapter page as a reader meets it, each page loaded as few
// times as the checks allow: once at 375 px; once at 1280 px, loaded in the
// light theme, where the first screen, the colours and screenshot, the
// colours in each other theme (picked from the theme menu, as a reader
// switches: no reload, which cost a fifth of the check's CPU), the main line
// with every fold closed and the layout with every fold open are read in
// that order (each leaves the folds as the next expects).
const figureCounts = {};
const figureIds = {};
const detailCounts = {};
const offsets = {};

// ---- What a reader meets first (issue 40, content): the answer under each
// chapter's question, no internal term in a chapter's first screen or in
// Findings' verdict column, glossary links that resolve, and a What to use
// page with a row for every chapter whose links resolve.
const INTERNAL_TERMS = [/\bladders?\b/i, /\brig\b/i, /\bgates?\b/i, /\breplicates?\b/i,
  /\bclosest call/i, /\bcommitted lock\b/i, /\bMIN_EFFECT\b/, /\bverdict maps?\b/i, /\bstep \d/i];
function internalTerms(text) {
  return INTERNAL_TERMS.map((re) => text.match(re)?.[0]).filter(Boolean);
}

// The ids a page has, read once per page.
const idsOf = {};
async function pageIds(file) {
  if (!idsOf[file]) {
    if (!fs.existsSync(path.join(bookDir, file))) return (idsOf[file] = null);
    const { page, context } = await open(file);
    idsOf[file] = new Set(await page.evaluate(() => [...document.querySelectorAll("[id]")].map((e) => e.id)));
    await context.close();
  }
  return idsOf[file];
}

// Every link of `links` (hrefs relative to the book's root) lands on a page
// that exists and, with a fragment, on an id that page has.
async function unresolved(links) {
  const bad = [];
  for (const href of links) {
    const [file, frag] = href.split("#");
    const ids = await pageIds(file);
    if (!ids) bad.push(`${href} (no such page)`);
    else if (frag && !ids.has(decodeURIComponent(frag))) bad.push(`${href} (no such anchor)`);
  }
  return bad;
}

// The main line and the notebook (issue 40, deliverables 4 and 5): a chapter
// read with every fold closed fits in MAX_SCREENS screens at 1280x900; no
// table the reader meets with folds closed is wider than the column at
// 1280 px (a wide one may sit in a fold beside its CSV); at 375 px no figure
// but a flame graph is wider than the column, and its text is drawn at 11 px
// or more; the print page opens every fold of the book.
const MAX_SCREENS = 15;
const screens = {};

// The layout at WIDTH: figures, tables and badges inside the column, every
// fold opens, the answer first (figures and tables read with the folds as
// the page has them; every fold is open afterwards).
async function layoutAt(page, errors, file, chapter, width) {
  const layout = await page.evaluate(() => {
    const main = document.querySelector("main").getBoundingClientRect();
    // A figure in a machine switch's hidden panel is checked when shown.
    const figs = [...document.querySelectorAll("figure.bench-figure")]
      .filter((fig) => !fig.closest(".machine-panel") || fig.closest(".machine-panel").getBoundingClientRect().height > 0)
      .map((fig) => {
      const r = fig.getBoundingClientRect();
      // A chart is drawn twice, wide and for a phone; the page shows one.
      const svg = [...fig.querySelectorAll("svg")].find((s) => s.getBoundingClientRect().width > 0) || fig.querySelector("svg");
      const s = svg.getBoundingClientRect();
      const scale = s.width / svg.viewBox.baseVal.width;
      // The smallest text as drawn: its font size in the SVG's units times
      // the scale the page draws the SVG at.
      const sizes = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim())
        .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
      const tips = [...svg.querySelectorAll("rect.tip")];
      return { id: fig.id, w: s.width, h: s.height, right: r.right, left: r.left,
        scrolls: ["auto", "scroll"].includes(getComputedStyle(fig).overflowX),
        wide: s.width > r.width + 1, smallest: Math.min(...sizes),
        // A point with an interval is drawn twice at one centre (its marker
        // and the error bar's): count places, not circles.
        points: new Set([...svg.querySelectorAll("circle")].map((c) => `${c.getAttribute("cx")},${c.getAttribute("cy")}`)).size,
        tipPlaces: new Set(tips.map((t) => `${t.getAttribute("x")},${t.getAttribute("y")}`)).size,
        tips: tips.length,
        tipsWithValues: tips.filter((t) => /[0-9]/.test(t.querySelector("title")?.textContent || "")).length };
    });
    // A table scrolls inside mdBook's .table-wrapper when it cannot fit.
    const tables = [...document.querySelectorAll("main table")].map((t) => {
      const box = t.closest(".table-wrapper") || t;
      const r = box.getBoundingClientRect();
      const style = getComputedStyle(box);
      return { right: r.right, scrolls: ["auto", "scroll"].includes(style.overflowX), wide: box.scrollWidth > box.clientWidth + 1 };
    });
    const top = (el) => el ? el.getBoundingClientRect().top + window.scrollY : null;
    const details = [...document.querySelectorAll("main details")].map((d) => {
      d.open = true;
      const body = [...d.children].filter((c) => c.tagName !== "SUMMARY");
      const shown = body.some((c) => c.getBoundingClientRect().height > 0);
      return { summary: d.querySelector("summary")?.textContent.trim() || "", shown };
    });
    return { main: { left: main.left, right: main.right }, figs, tables, details,
      firstVerdict: top(document.querySelector(".answer-verdicts .verdict")),
      anyVerdict: top(document.querySelector("main .verdict")),
      firstFigure: top(document.querySelector("figure.bench-figure")),
      viewport: window.innerHeight,
      pageOverflow: document.documentElement.scrollWidth > window.innerWidth + 1 };
  });
  figureCounts[chapter] = layout.figs.length;
  figureIds[chapter] = layout.figs.map((f) => f.id);
  check(errors.length === 0, `${file} @${width}px: console errors: ${errors.join(" | ")}`);
  layout.figs.forEach((f, i) => {
    check(f.w > 0 && f.h > 0, `${file} @${width}px: figure ${i + 1} has no size`);
    check(f.right <= layout.main.right + 1 && f.left >= layout.main.left - 1 && (!f.wide || f.scrolls),
      `${file} @${width}px: figure ${i + 1} spills out of the column`);
    check(f.smallest >= 11, `${file} @${width}px: figure ${i + 1} draws text at ${f.smallest.toFixed(1)} px (< 11)`);
    check(f.tips >= 1 && f.tipPlaces >= f.points && f.tipsWithValues === f.tips,
      `${file} @${width}px: figure ${i + 1} has ${f.tipsWithValues} tooltips with values for ${f.points} points`);
  });
  // Answer first: every chapter opens with its verdicts (the `answer`
  // exhibit) and the figure that answers its question, both within one
  // and a half screens of the top.
  const limit = 1.5 * layout.viewport;
  check(layout.firstVerdict !== null && layout.firstVerdict <= limit,
    `${file} @${width}px: first verdict at ${layout.firstVerdict ?? "none"} px, not within ${limit} (does the page open with the answer exhibit?)`);
  check(layout.firstFigure !== null && layout.firstFigure <= limit,
    `${file} @${width}px: first figure at ${layout.firstFigure ?? "none"} px, not within ${limit}`);
  if (width === 1280) offsets[chapter] = { verdict: layout.anyVerdict, figure: layout.firstFigure };
  layout.details.forEach((d, i) => check(d.summary && d.shown,
    `${file} @${width}px: folded section ${i + 1} ("${d.summary}") does not open`));
  detailCounts[chapter] = layout.details.map((d) => d.summary);
  layout.tables.forEach((t, i) => check(t.right <= layout.main.right + 1 && (!t.wide || t.scrolls),
    `${file} @${width}px: table ${i + 1} neither fits nor scrolls`));
  check(!layout.pageOverflow, `${file} @${width}px: the page scrolls sideways`);
  const outside = await badgesOutside(page);
  check(outside.length === 0, `${file} @${width}px: verdict badges run past the column: ${outside.join("; ")}`);
}

// The theme a reader picks from the theme menu (the page is not reloaded),
// the menu closed again, and the page back at its top as it loaded.
async function chooseTheme(page, theme) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.click("#theme-toggle");
  await page.click(`#theme-list button#${theme}`);
  await page.waitForFunction((t) => document.documentElement.classList.contains(t), theme);
  // The menu stays open after a choice; the reader closes it.
  await page.click("#theme-toggle");
  await page.waitForSelector("#theme-list", { state: "hidden" });
}

// A theme's colours: figure text and marks legible on the page; the light
// and coal themes' screenshots.
async function colours(page, file, chapter, theme) {
  const bad = await page.evaluate(`(() => { ${contrastJs()}
    let bg = getComputedStyle(document.body).backgroundColor;
    if (bg === "rgba(0, 0, 0, 0)") bg = getComputedStyle(document.documentElement).backgroundColor;
    const problems = [];
    document.querySelectorAll("figure.bench-figure svg").forEach((svg, i) => {
      svg.querySelectorAll("text").forEach((t) => {
        if (!t.textContent.trim()) return;
        // A label drawn on a shape (a flame graph's frame) is read against
        // that shape, not the page.
        const under = t.closest("g.frame")?.querySelector("rect.frame");
        const k = contrast(getComputedStyle(t).fill, under ? getComputedStyle(under).fill : bg);
        if (k < 4.5) problems.push("figure " + (i + 1) + " text '" + t.textContent.trim() + "' contrast " + k.toFixed(2));
      });
      svg.querySelectorAll("polyline, path, circle, rect").forEach((el) => {
        const cs = getComputedStyle(el);
        if (Number(cs.opacity) < 0.5) return;
        for (const paint of [cs.stroke, cs.fill]) {
          if (!paint || paint === "none" || !paint.startsWith("rgb(")) continue;
          const k = contrast(paint, bg);
          if (k < 3) { problems.push("figure " + (i + 1) + " mark " + paint + " contrast " + k.toFixed(2)); return; }
        }
      });
    });
    return [...new Set(problems)].slice(0, 5);
  })()`);
  check(bad.length === 0, `${file} in ${theme}: ${bad.join("; ")}`);
  if (theme === "light" || theme === "coal") {
    fs.mkdirSync(shotDir, { recursive: true });
    await page.screenshot({ path: path.join(shotDir, `${chapter}-${theme}.png`), fullPage: true });
  }
}

// What a reader meets first: the answer under the question, no internal
// term in the first screen, a summary, glossary links that resolve.
async function firstScreen(page, file, chapter, glossaryIds) {
  const seen = await page.evaluate((chapter) => {
    const main = document.querySelector("main");
    const answer = main.querySelector(`.answer-first[data-answer="${chapter}"]`);
    // The text a reader sees without scrolling: every text node whose box
    // starts within the first 900 px, folds left closed.
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    const first = [];
    for (let n; (n = walker.nextNode());) {
      if (!n.nodeValue.trim() || n.parentElement.closest("svg, title")) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const r = range.getBoundingClientRect();
      if (r.height > 0 && r.top < 900) first.push(n.nodeValue);
    }
    return {
      answer: answer ? {
        top: answer.getBoundingClientRect().top + window.scrollY,
        numbers: [...answer.querySelectorAll(".answer-number")].map((n) => n.textContent.trim()),
        machine: answer.querySelector(".answer-machine")?.textContent || "",
      } : null,
      firstScreen: first.join(" "),
      glossary: [...main.querySelectorAll("a[href*='glossary.html#']")].map((a) => a.getAttribute("href")),
      terms: window.BOOK_GLOSSARY_TERMS || [],
      summary: main.querySelectorAll("ul.summary-list li").length,
    };
  }, chapter);
  check(seen.answer !== null, `${file}: no answer under the question (the in-short exhibit)`);
  if (seen.answer) {
    check(seen.answer.top < 900, `${file}: the answer starts at ${Math.round(seen.answer.top)} px, below the first screen`);
    check(seen.answer.numbers.length > 0 && seen.answer.numbers.every((n) => /\d/.test(n)),
      `${file}: the answer prints no measured number (${seen.answer.numbers.join(", ")})`);
    check(/Measured on an? \d+-core /.test(seen.answer.machine), `${file}: the answer does not name the machine class ("${seen.answer.machine}")`);
  }
  const terms = internalTerms(seen.firstScreen);
  check(terms.length === 0, `${file} @1280x900: internal terms in the first screen: ${terms.join(", ")}`);
  check(seen.summary > 0, `${file}: no summary list at the end`);
  check(seen.glossary.length > 0, `${file}: no term links to the glossary`);
  const root = (h) => h.replace(/^(\.\/)+/, "");
  const bad = await unresolved(seen.glossary.map(root));
  check(bad.length === 0, `${file}: glossary links that do not resolve: ${bad.join("; ")}`);
  if (glossaryIds) {
    const missing = seen.terms.filter((t) => !glossaryIds.has(t));
    check(missing.length === 0, `theme/glossary.js links terms the glossary does not define: ${missing.join(", ")}`);
  }
}

// The main line at 1280 px: every fold closed (then put back as it was).
async function mainLine(page, file, chapter) {
  const wasOpen = await page.evaluate(() => [...document.querySelectorAll("main details")].map((d) => d.open));
  const m = await page.evaluate(() => {
    for (const d of document.querySelectorAll("main details")) d.open = false;
    const main = document.querySelector("main");
    const column = main.getBoundingClientRect();
    const wide = [...main.querySelectorAll("table")]
      .filter((t) => !t.closest("details:not([open])") && t.getBoundingClientRect().height > 0)
      .filter((t) => t.scrollWidth > column.width + 1)
      .map((t) => {
        const head = [...t.querySelectorAll("th")].map((th) => th.textContent.trim()).slice(0, 3).join(" | ");
        return `${Math.round(t.scrollWidth)} px (${head.slice(0, 60)})`;
      });
    return { height: document.documentElement.scrollHeight, viewport: window.innerHeight,
      column: Math.round(column.width), wide,
      tables: [...main.querySelectorAll("table")].length };
  });
  const n = m.height / m.viewport;
  screens[chapter] = { ...screens[chapter], screens: n, wide: m.wide.length, tables: m.tables };
  check(n <= MAX_SCREENS, `${file} @1280px: the main line is ${n.toFixed(1)} screens with every fold closed (at most ${MAX_SCREENS})`);
  check(m.wide.length === 0,
    `${file} @1280px: ${m.wide.length} table(s) outside the folds wider than the ${m.column}-px column: ${m.wide.join("; ")}`);
  await page.evaluate((open) => document.querySelectorAll("main details").forEach((d, i) => { d.open = open[i]; }), wasOpen);
}

// At 375 px, every fold open: no figure but a flame graph wider than the
// column, its text at 11 px or more.
async function phoneFigures(page, file, chapter) {
  const bad = await page.evaluate(() => {
    for (const d of document.querySelectorAll("main details")) d.open = true;
    const column = document.querySelector("main").getBoundingClientRect();
    return [...document.querySelectorAll("main figure.bench-figure")]
      .filter((f) => !f.querySelector("svg.flame-svg"))
      .filter((f) => !f.closest(".machine-panel") || f.closest(".machine-panel").getBoundingClientRect().height > 0)
      .map((f) => {
        const svg = [...f.querySelectorAll("svg")].find((s) => s.getBoundingClientRect().width > 0);
        if (!svg) return `${f.id}: no drawing shown`;
        const r = svg.getBoundingClientRect();
        const scale = r.width / svg.viewBox.baseVal.width;
        const smallest = Math.min(...[...svg.querySelectorAll("text")].filter((t) => t.textContent.trim())
          .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale));
        const problems = [];
        if (r.width > column.width + 1 || r.right > column.right + 1 || f.scrollWidth > f.clientWidth + 1) {
          problems.push(`${Math.round(r.width)} px wide in a ${Math.round(column.width)}-px column`);
        }
        if (!(smallest >= 11)) problems.push(`text drawn at ${smallest.toFixed(1)} px`);
        return problems.length ? `${f.id}: ${problems.join(", ")}` : null;
      })
      .filter(Boolean);
  });
  screens[chapter] = { ...screens[chapter], figures375: bad.length };
  check(bad.length === 0, `${file} @375px: ${bad.length} figure(s) do not fit the column: ${bad.join("; ")}`);
}

if (!safetyOnly) {
  const glossaryIds = await pageIds("glossary.html");
  check(glossaryIds !== null, "glossary.html is missing from the built book");
  for (const { name: chapter } of VISITED) {
    const file = `${chapter}.html`;
    {
      const { page, context, errors } = await open(file, { width: 375 });
      await layoutAt(page, errors, file, chapter, 375);
      await phoneFigures(page, file, chapter);
      await context.close();
    }
    {
      const { page, context, errors } = await open(file, { width: 1280 });
      await firstScreen(page, file, chapter, glossaryIds);
      await colours(page, file, chapter, "light");
      for (const theme of THEMES.filter((t) => t !== "light")) {
        await chooseTheme(page, theme);
        await colours(page, file, chapter, theme);
      }
      await chooseTheme(page, "light");
      await mainLine(page, file, chapter);
      await layoutAt(page, errors, file, chapter, 1280);
      await context.close();
    }
  }

  // Search: each chapter is among the results for its keyword. One page,
  // cleared between keywords (a cleared search bar shows no result).
  {
    const { page, context } = await open("index.html");
    await page.click("#search-toggle");
    const bar = page.locator("#searchbar");
    for (const { name: chapter, search: keyword } of VISITED) {
      await bar.press("Control+A");
      await bar.press("Backspace");
      const cleared = await page.waitForFunction(() => document.querySelectorAll("#searchresults a").length === 0,
        null, { timeout: 10000 }).then(() => true, () => false);
      check(cleared, `search: the results of the previous keyword stay after clearing the bar`);
      await bar.pressSequentially(keyword);
      const found = await page.waitForFunction((ch) => [...document.querySelectorAll("#searchresults a")]
        .some((a) => a.getAttribute("href").startsWith(ch + ".html")), chapter, { timeout: 10000 })
        .then(() => true, () => false);
      check(found, `search for "${keyword}" does not find ${chapter}`);
    }
    await context.close();
  }

  // Findings: the verdict column speaks plainly; the rules are folded below the table.
  if (fs.existsSync(path.join(bookDir, "findings.html"))) {
    const { page, context } = await open("findings.html");
    const f = await page.evaluate(() => {
      const cells = [];
      for (const table of document.querySelectorAll("main table")) {
        const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
        const at = heads.indexOf("Verdict");
        if (at < 0) continue;
        for (const row of table.querySelectorAll("tbody tr")) cells.push(row.children[at]?.textContent || "");
      }
      const table = document.querySelector("main table");
      const rules = document.querySelector("main details.rules");
      return { cells, ruleFolded: !!rules && !!table &&
        (table.compareDocumentPosition(rules) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0 };
    });
    check(f.cells.length > 0, "findings.html: no Verdict column");
    for (const c of f.cells) {
      const terms = internalTerms(c);
      check(terms.length === 0, `findings.html: internal terms in the verdict "${c.trim().slice(0, 80)}": ${terms.join(", ")}`);
    }
    check(f.ruleFolded, "findings.html: the rules are not folded below the table");
    await context.close();
  }

  // What to use: a row for every chapter, every link resolving; the introduction links it first.
  const { page, context } = await open("what-to-use.html");
  const w = await page.evaluate(() => {
    const marker = document.querySelector("[data-exhibit='what-to-use/rows']");
    const tables = [...document.querySelectorAll("main table")];
    return {
      chapters: (marker?.dataset.chapters || "").split(" ").filter(Boolean),
      rows: tables.reduce((n, t) => n + t.querySelectorAll("tbody tr").length, 0),
      links: tables.flatMap((t) => [...t.querySelectorAll("a[href]")].map((a) => a.getAttribute("href"))),
    };
  });
  for (const { name } of CHAPTERS) {
    check(w.chapters.includes(name), `what-to-use.html: no row for chapter ${name}`);
    check(w.links.some((l) => l.startsWith(`${name}.html`)), `what-to-use.html: no link to ${name}.html`);
  }
  check(w.rows >= CHAPTERS.length, `what-to-use.html: ${w.rows} rows for ${CHAPTERS.length} chapters`);
  const bad = await unresolved(w.links);
  check(bad.length === 0, `what-to-use.html: links that do not resolve: ${bad.join("; ")}`);
  await context.close();
  const intro = await open("index.html");
  const firstLink = await intro.page.evaluate(() => document.querySelector("main a[href]:not(.header)")?.getAttribute("href"));
  check(firstLink === "what-to-use.html", `index.html: the first link is ${firstLink}, not what-to-use.html`);
  await intro.context.close();
}

// The print page carries every chapter's figures, drawn.
if (!safetyOnly) {
  const { page, context, errors } = await open("print.html", { print: true });
  // One drawing of each figure is printed (a chart's wide one).
  const drawn = await page.evaluate(() => [...document.querySelectorAll("figure.bench-figure")]
    .map((f) => ({ id: f.id, size: [...f.querySelectorAll("svg")].map((s) => s.getBoundingClientRect())
      .map((r) => r.width * r.height).reduce((a, b) => Math.max(a, b), 0) })));
  const sizes = drawn.map((d) => d.size);
  // Every figure of every chapter visited is printed, drawn; with all of
  // them visited, the print page holds no other.
  for (const id of Object.values(figureIds).flat()) {
    check(drawn.some((d) => d.id === id && d.size > 0), `print.html does not draw the figure ${id}`);
  }
  if (only === undefined) {
    const expected = Object.values(figureCounts).reduce((a, b) => a + b, 0);
    check(sizes.length === expected, `print.html has ${sizes.length} figures, the chapters ${expected}`);
  }
  check(sizes.every((a) => a > 0), "print.html has a figure of no size");
  check(errors.length === 0, `print.html: console errors: ${errors.join(" | ")}`);
  // Folded method detail is printed: every section is in the print page, open.
  const printed = await page.evaluate(() => [...document.querySelectorAll("main details")]
    .map((d) => ({ summary: d.querySelector("summary")?.textContent.trim() || "",
      shown: [...d.children].filter((c) => c.tagName !== "SUMMARY").some((c) => c.getBoundingClientRect().height > 0) })));
  const folded = Object.values(detailCounts).flat();
  for (const summary of folded) {
    check(printed.some((d) => d.summary === summary && d.shown), `print.html does not show the folded section "${summary}"`);
  }
  // Printing opens every fold of the book, not only the chapters'.
  const closed = await page.evaluate(() => [...document.querySelectorAll("main details")]
    .filter((d) => ![...d.children].filter((c) => c.tagName !== "SUMMARY").some((c) => c.getBoundingClientRect().height > 0))
    .map((d) => d.querySelector("summary")?.textContent.trim() || "(no summary)"));
  check(closed.length === 0, `print.html prints ${closed.length} fold(s) closed: ${closed.slice(0, 5).join("; ")}`);
  await context.close();
}

await browser.close();
server.close();
for (const [chapter, o] of Object.entries(offsets)) {
  console.log(`answer first @1280px: ${chapter}: first verdict at ${Math.round(o.verdict)} px, first figure at ${Math.round(o.figure)} px`);
}
for (const [chapter, o] of Object.entries(screens)) {
  console.log(`main line @1280px: ${chapter}: ${o.screens.toFixed(2)} screens with folds closed, ` +
    `${o.wide} of ${o.tables} tables wider than the column outside folds; @375px: ${o.figures375} figures too wide`);
}
for (const f of failures) console.error(`browser check failed: ${f}`);
console.log(`browser checks: ${passed} passed, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
