// Drives the board page in headless Chromium as a person would: paste a position id into
// the box, click Analyse, wait for the ranked plays and the cube decision, click a play and
// wait for the board to change. Talks to Chromium over its DevTools pipe (no packages
// needed), prints one JSON object with what the page showed, and exits 0; 1 on any failure.
//
//   node scripts/board_page_check.mjs --url http://127.0.0.1:8080/ --position 'XGID=...' \
//        [--play 2] [--screenshot FILE] [--chromium /usr/bin/chromium] [--timeout-ms 30000]

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const url = option("url");
const position = option("position");
const playIndex = Number(option("play", "1"));
const screenshot = option("screenshot");
const chromium = option("chromium", "/usr/bin/chromium");
const timeoutMs = Number(option("timeout-ms", "30000"));
if (!url || !position) {
  console.error("usage: board_page_check.mjs --url URL --position POS [--play N] [--screenshot FILE]");
  process.exit(2);
}

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "sg-chromium-"));
const browser = spawn(
  chromium,
  [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    `--user-data-dir=${profile}`,
    "--remote-debugging-pipe",
    "about:blank",
  ],
  { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
);
let browserLog = "";
browser.stderr.on("data", (d) => { browserLog = (browserLog + d).slice(-4000); });

// DevTools messages are JSON texts, each ended by a NUL byte.
const toBrowser = browser.stdio[3];
const fromBrowser = browser.stdio[4];
let nextId = 1;
const pending = new Map();
const waiters = [];
let buffer = Buffer.alloc(0);
fromBrowser.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  let end;
  while ((end = buffer.indexOf(0)) >= 0) {
    const message = JSON.parse(buffer.subarray(0, end).toString("utf8"));
    buffer = buffer.subarray(end + 1);
    if (message.id !== undefined && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(`${message.error.message}`));
      else resolve(message.result);
    } else {
      for (const w of [...waiters]) w(message);
    }
  }
});

function send(method, params = {}, sessionId) {
  const id = nextId++;
  const message = { id, method, params };
  if (sessionId) message.sessionId = sessionId;
  toBrowser.write(JSON.stringify(message) + "\0");
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

function nextEvent(method, sessionId) {
  return new Promise((resolve) => {
    const w = (m) => {
      if (m.method === method && m.sessionId === sessionId) {
        waiters.splice(waiters.indexOf(w), 1);
        resolve(m.params);
      }
    };
    waiters.push(w);
  });
}

// What the page's script reported (exceptions, console errors), for failure messages.
const pageLog = [];
waiters.push((m) => {
  if (m.method === "Runtime.exceptionThrown") pageLog.push(m.params.exceptionDetails.text +
    " " + (m.params.exceptionDetails.exception?.description ?? ""));
  if (m.method === "Runtime.consoleAPICalled" && m.params.type === "error") {
    pageLog.push(m.params.args.map((a) => a.value ?? a.description).join(" "));
  }
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const page = (method, params) => send(method, params, sessionId);
  await page("Page.enable");
  await page("Runtime.enable");
  await page("Emulation.setDeviceMetricsOverride", {
    width: 1100, height: 620, deviceScaleFactor: 1, mobile: false,
  });
  const loaded = nextEvent("Page.loadEventFired", sessionId);
  await page("Page.navigate", { url });
  await loaded;

  async function evaluate(expression) {
    const r = await page("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`page script failed: ${r.exceptionDetails.text}`);
    return r.result.value;
  }
  async function waitFor(expression, what) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await evaluate(expression)) return;
      await sleep(50);
    }
    const state = await evaluate(`({ error: document.getElementById('error').textContent,
      input: document.getElementById('pos').value, info: document.getElementById('info').textContent })`);
    throw new Error(`timed out waiting for ${what}: ${JSON.stringify(state)}; ${pageLog.join("; ")}`);
  }
  // A real mouse click at the middle of the element.
  async function click(selector) {
    const box = await evaluate(`(() => {
      const e = document.querySelector(${JSON.stringify(selector)});
      if (!e) return null;
      e.scrollIntoView({ block: "center", inline: "center" });
      const r = e.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    })()`);
    if (!box) throw new Error(`nothing matches ${selector}`);
    if (process.env.BOARD_PAGE_CHECK_VERBOSE) {
      console.error(selector, JSON.stringify(box), await evaluate(`document.elementFromPoint(${box.x}, ${box.y})?.outerHTML?.slice(0, 80)`));
    }
    for (const type of ["mouseMoved", "mousePressed", "mouseReleased"]) {
      await page("Input.dispatchMouseEvent", { type, x: box.x, y: box.y, button: "left", clickCount: 1 });
    }
  }
  const board = () => evaluate("document.getElementById('board').getAttribute('data-board')");

  // Paste the id: focus the box and insert the text as a paste does.
  await evaluate("document.getElementById('pos').focus()");
  await page("Input.insertText", { text: position });
  const initial = await board();
  await click("#go");
  await waitFor(
    "document.querySelectorAll('tr.play').length > 0 && !document.getElementById('cube').hidden",
    "the plays and the cube decision",
  );
  const plays = await evaluate(
    "[...document.querySelectorAll('tr.play')].map(r => [...r.children].map(c => c.textContent))",
  );
  const cube = await evaluate("document.getElementById('cube-action').textContent");
  const cubeEquities = await evaluate(
    "[...document.querySelectorAll('#cube-equities tr')].map(r => [...r.children].map(c => c.textContent))",
  );
  const info = await evaluate("document.getElementById('info').textContent");
  const analysed = await board();
  const checkers = () => evaluate("document.querySelectorAll('#board circle.checker').length");
  const checkersBefore = await checkers();
  await click(`tr.play:nth-child(${playIndex})`);
  await waitFor(
    `document.getElementById('board').getAttribute('data-board') !== ${JSON.stringify(analysed)}`,
    "the board after the play",
  );
  const after = await board();
  const shown = await evaluate("document.querySelector('tr.play.shown')?.dataset.index ?? null");
  if (screenshot) {
    const shot = await page("Page.captureScreenshot", { format: "png" });
    fs.writeFileSync(screenshot, Buffer.from(shot.data, "base64"));
  }
  return {
    initial_board: initial, analysed_board: analysed, after_board: after, plays, cube,
    cube_equities: cubeEquities, info, shown_row: shown, checkers_drawn: checkersBefore,
  };
}

let status = 0;
const timer = setTimeout(() => {
  console.error(`board_page_check: gave up after ${timeoutMs * 3} ms\n${browserLog}`);
  browser.kill("SIGKILL");
  process.exit(1);
}, timeoutMs * 3);
try {
  const result = await main();
  console.log(JSON.stringify(result));
} catch (e) {
  console.error(`board_page_check: ${e.message}`);
  if (process.env.BOARD_PAGE_CHECK_VERBOSE) console.error(browserLog);
  status = 1;
}
clearTimeout(timer);
const exited = new Promise((r) => browser.once("exit", r));
try { await Promise.race([send("Browser.close"), sleep(2000)]); } catch { /* already gone */ }
browser.kill("SIGKILL");
await Promise.race([exited, sleep(3000)]);
try { fs.rmSync(profile, { recursive: true, force: true }); } catch { /* left in the temp dir */ }
process.exit(status);
