// Checks the built book in headless Chromium the way a reader sees it:
//   node check-book.mjs BOOK_DIR SCREENSHOT_DIR
// Every chapter page, at a phone width and a desktop width, in all five
// mdBook themes: no console errors, figures drawn, inside the column and
// legible, tables that fit or scroll, search that finds each chapter, and a
// print page that carries the figures.
import { chromium } from "playwright-core";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";

const [bookDir, shotDir] = process.argv.slice(2);
if (!bookDir || !shotDir) {
  console.error("usage: node check-book.mjs BOOK_DIR SCREENSHOT_DIR");
  process.exit(2);
}
const CHAPTERS = {
  "fan-in": "fan-in",
  "mutex-swap": "swap",
  "mutex-cost": "heartbeat",
  "alloc-probe": "dhat",
  "channel-latency": "crossbeam",
};
const THEMES = ["light", "rust", "coal", "navy", "ayu"];
const WIDTHS = [375, 1280];
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css",
  ".svg": "image/svg+xml", ".json": "application/json", ".csv": "text/csv",
  ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".png": "image/png" };
const server = http.createServer((req, res) => {
  const url = decodeURIComponent(new URL(req.url, "http://x").pathname);
  let file = path.join(bookDir, url);
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, "index.html");
  if (!file.startsWith(path.resolve(bookDir)) || !fs.existsSync(file)) {
    res.writeHead(404); res.end("not found"); return;
  }
  res.writeHead(200, { "content-type": TYPES[path.extname(file)] || "application/octet-stream" });
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

const figureCounts = {};
for (const [chapter, keyword] of Object.entries(CHAPTERS)) {
  const file = `${chapter}.html`;
  for (const width of WIDTHS) {
    const { page, context, errors } = await open(file, { width });
    const layout = await page.evaluate(() => {
      const main = document.querySelector("main").getBoundingClientRect();
      const figs = [...document.querySelectorAll("figure.bench-figure svg")].map((s) => {
        const r = s.getBoundingClientRect();
        return { w: r.width, h: r.height, right: r.right, left: r.left };
      });
      const tables = [...document.querySelectorAll("main table")].map((t) => {
        const r = t.getBoundingClientRect();
        const style = getComputedStyle(t);
        return { right: r.right, scrolls: ["auto", "scroll"].includes(style.overflowX), wide: t.scrollWidth > t.clientWidth + 1 };
      });
      return { main: { left: main.left, right: main.right }, figs, tables,
        pageOverflow: document.documentElement.scrollWidth > window.innerWidth + 1 };
    });
    figureCounts[chapter] = layout.figs.length;
    check(errors.length === 0, `${file} @${width}px: console errors: ${errors.join(" | ")}`);
    layout.figs.forEach((f, i) => {
      check(f.w > 0 && f.h > 0, `${file} @${width}px: figure ${i + 1} has no size`);
      check(f.right <= layout.main.right + 1 && f.left >= layout.main.left - 1,
        `${file} @${width}px: figure ${i + 1} spills out of the column`);
    });
    layout.tables.forEach((t, i) => check(t.right <= layout.main.right + 1 && (!t.wide || t.scrolls),
      `${file} @${width}px: table ${i + 1} neither fits nor scrolls`));
    check(!layout.pageOverflow, `${file} @${width}px: the page scrolls sideways`);
    await context.close();
  }

  for (const theme of THEMES) {
    const { page, context } = await open(file, { theme });
    const bad = await page.evaluate(`(() => { ${contrastJs()}
      let bg = getComputedStyle(document.body).backgroundColor;
      if (bg === "rgba(0, 0, 0, 0)") bg = getComputedStyle(document.documentElement).backgroundColor;
      const problems = [];
      document.querySelectorAll("figure.bench-figure svg").forEach((svg, i) => {
        svg.querySelectorAll("text").forEach((t) => {
          if (!t.textContent.trim()) return;
          const k = contrast(getComputedStyle(t).fill, bg);
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
    await context.close();
  }

  // Search: the chapter is among the results for its keyword.
  {
    const { page, context } = await open("index.html");
    await page.click("#search-toggle");
    await page.locator("#searchbar").pressSequentially(keyword);
    const found = await page.waitForFunction((ch) => [...document.querySelectorAll("#searchresults a")]
      .some((a) => a.getAttribute("href").startsWith(ch + ".html")), chapter, { timeout: 10000 })
      .then(() => true, () => false);
    check(found, `search for "${keyword}" does not find ${chapter}`);
    await context.close();
  }
}

// The print page carries every chapter's figures, drawn.
{
  const { page, context, errors } = await open("print.html", { print: true });
  const sizes = await page.evaluate(() => [...document.querySelectorAll("figure.bench-figure svg")]
    .map((s) => s.getBoundingClientRect()).map((r) => r.width * r.height));
  const expected = Object.values(figureCounts).reduce((a, b) => a + b, 0);
  check(sizes.length === expected, `print.html has ${sizes.length} figures, the chapters ${expected}`);
  check(sizes.every((a) => a > 0), "print.html has a figure of no size");
  check(errors.length === 0, `print.html: console errors: ${errors.join(" | ")}`);
  await context.close();
}

await browser.close();
server.close();
for (const f of failures) console.error(`browser check failed: ${f}`);
console.log(`browser checks: ${passed} passed, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
