// End-to-end test of the browser page of `linkperf ui` (and of `linkperf -s --web`) in a real
// Chromium driven by playwright-core:
//   node tests/e2e/test_ui_e2e.mjs
// Env: LINKPERF (the binary, default build/linkperf of this repository), CHROMIUM
// (default /usr/bin/chromium), LINKPERF_UI_DIR (serve the page's files from this directory
// instead of the ones embedded in the binary: for trying edits without a rebuild),
// E2E_TIMEOUT_S (whole-test limit, default 180), E2E_HEADED=1 (show the browser).
// It starts a linkperf server, `linkperf ui`, a `linkperf -s --web` server and stock iperf3
// clients, all on loopback with free ports and a fresh XDG_DATA_HOME, and kills every one of
// them at the end, failed or not. Screenshots go to E2E_SHOTS_DIR: ctest gives its build
// directory; E2E_SHOTS_DIR=docs/screenshots refreshes the README's pictures. Exit 0 on success.
// Besides its own 1440x960 window it checks the page at the two sizes, VIEWPORTS:
// a test started is seen without scrolling, a server's charts and summary do not overlap.
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const LP = process.env.LINKPERF || path.join(REPO, 'build/linkperf');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const IPERF3 = process.env.IPERF3 || 'iperf3';
const UI_DIR = process.env.LINKPERF_UI_DIR || '';
const SHOTS = path.resolve(process.env.E2E_SHOTS_DIR || path.join(REPO, 'docs/screenshots'));
fs.mkdirSync(SHOTS, { recursive: true });
const LIMIT_S = Number(process.env.E2E_TIMEOUT_S || 180);
const JPERF = path.join(HERE, 'fixtures/lab-tcp.jperf');
const VIEWPORTS = [{ width: 800, height: 600 }, { width: 1920, height: 1080 }];
const sizeOf = (v) => v.width + 'x' + v.height;

// playwright-core from the project's node_modules (package.json), else NODE_PATH.
let chromium;
try {
  chromium = createRequire(path.join(REPO, 'package.json'))('playwright-core').chromium;
} catch (e) {
  console.error('FAIL: playwright-core not found (npm install in ' + REPO + ', or set NODE_PATH): ' + e.message);
  process.exit(2);
}

const t0 = Date.now();
const log = (...a) => console.log('[' + ((Date.now() - t0) / 1000).toFixed(1).padStart(5) + 's]', ...a);

class Failure extends Error {}
function check(cond, msg) {
  if (!cond) throw new Failure(msg);
}

/* ---- processes: every one is killed at the end ---- */

const children = [];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'linkperf-e2e-'));
const env = Object.assign({}, process.env, { XDG_DATA_HOME: path.join(tmp, 'xdg') });

function start(name, cmd, args) {
  const p = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const c = { name, p, out: '', exited: null };
  p.stdout.on('data', (d) => { c.out += d; });
  p.stderr.on('data', (d) => { c.out += d; });
  p.on('exit', (code, sig) => { c.exited = { code, sig }; });
  p.on('error', (e) => { c.exited = { code: -1, sig: null }; c.out += '\n' + e.message; });
  children.push(c);
  return c;
}

async function killAll() {
  for (const c of children) if (!c.exited) { try { c.p.kill('SIGTERM'); } catch (e) { /* gone */ } }
  const until = Date.now() + 3000;
  while (children.some((c) => !c.exited) && Date.now() < until) await sleep(50);
  for (const c of children) if (!c.exited) { try { c.p.kill('SIGKILL'); } catch (e) { /* gone */ } }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Waits until fn() is truthy (polled), at most ms; fails with what.
async function until(what, ms, fn) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Failure('timed out after ' + ms / 1000 + ' s waiting for ' + what);
    await sleep(100);
  }
}

async function waitOutput(c, re, ms) {
  return until(c.name + ' to print ' + re, ms, () => {
    if (c.exited) throw new Failure(c.name + ' exited (' + JSON.stringify(c.exited) + '):\n' + c.out);
    const m = re.exec(c.out);
    return m || null;
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

function exitOf(c, ms) {
  return until(c.name + ' to exit', ms, () => c.exited);
}

/* ---- the page ---- */

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

async function openPage(ctx, url, problems) {
  const page = await ctx.newPage();
  page.setDefaultTimeout(10000); // every click and wait is bounded
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  if (UI_DIR) {
    const origin = new URL(url).origin;
    await page.route(origin + '/**', (route) => {
      const p = new URL(route.request().url()).pathname;
      const file = path.join(UI_DIR, p === '/' ? 'index.html' : p.slice(1));
      if (!p.startsWith('/api/') && !p.includes('..') && fs.existsSync(file) && fs.statSync(file).isFile()) {
        return route.fulfill({ body: fs.readFileSync(file), contentType: TYPES[path.extname(file)] || 'application/octet-stream' });
      }
      return route.continue();
    });
  }
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('version').textContent !== '', null, { timeout: 10000 });
  return page;
}

// What a panel on its own x axis draws (plots.js createXYSet): its labels, x and every
// series' values (data-values), and its title. null: no such panel.
async function xyPanel(page, sel) {
  return page.evaluate((sel) => {
    const box = document.querySelector(sel);
    if (!box || !box.dataset.values) return null;
    return Object.assign(JSON.parse(box.dataset.values), { title: (box.querySelector('.u-title') || {}).textContent || '' });
  }, sel);
}

// A measurement mode's form: the mode, the server, then the fields given.
async function fillMeasure(page, mode, port, fields) {
  await page.click('#defaults');
  await page.check('#f-mode-' + mode);
  await page.fill('#f-host', '127.0.0.1');
  await page.fill('#f-port', String(port));
  for (const [sel, v] of fields) await page.fill(sel, v);
  await waitCheckOk(page);
}

// What one chart panel draws: its points (data-points), series, and the legend's values.
// Runs in the page: a chart panel's points, series, title and legend (null: no panel).
function readPanel(sel) {
  const box = document.querySelector(sel);
  if (!box) return null;
  const title = (box.querySelector('.u-title') || {}).textContent || '';
  const legend = [...box.querySelectorAll('.u-legend .u-series')].slice(1).map((r) => ({
    label: (r.querySelector('.u-label') || {}).textContent || '',
    value: (r.querySelector('.u-value') || {}).textContent || '',
  }));
  return { points: Number(box.dataset.points), series: Number(box.dataset.series), title, legend };
}

async function panel(page, sel) {
  return page.evaluate(readPanel, sel);
}

// Has the page record every change of a panel's point count, with whether the selected run
// was still running then, in window.__growth: the page draws as the rows come, while on a busy
// machine this script's own polling can fall seconds behind.
async function recordGrowth(page, sel) {
  await page.evaluate(([sel, src]) => {
    const read = new Function('return ' + src)();
    window.__growth = [];
    const note = () => {
      const p = read(sel);
      const run = document.getElementById('runs').selectedOptions[0];
      const last = window.__growth[window.__growth.length - 1];
      if (p && (!last || last.points !== p.points))
        window.__growth.push(Object.assign(p, { running: !!run && !/\bdone\b/.test(run.textContent) }));
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true,
      attributeFilter: ['data-points'] });
  }, [sel, readPanel.toString()]);
}

const UNIT = { 'bits/s': 1, 'Kbits/s': 1e3, 'Mbits/s': 1e6, 'Gbits/s': 1e9 };
// A legend value with its unit ("94.1 Mbits/s"), the unit of the panel's title: bits/s.
function bpsOf(p, label) {
  const unit = /\(([^)]+)\)/.exec(p.title);
  const row = p.legend.find((x) => x.label === label);
  const m = row && /^([\d.]+) (\S+)$/.exec(row.value);
  check(unit && UNIT[unit[1]] && m && m[2] === unit[1], 'no ' + label + ' with its unit in the legend of "' + p.title + '": ' + JSON.stringify(p.legend));
  return Number(m[1]) * UNIT[m[2]];
}

// A legend value in ms ("0.123 ms"); NaN without the unit or a number.
function msOf(value) {
  const m = /^([\d.]+) ms$/.exec(value);
  return m ? Number(m[1]) : NaN;
}

// Where an element is against the window, as the page has it scrolled (null: no element).
function boxOf(sel) {
  const e = document.querySelector(sel);
  if (!e) return null;
  const b = e.getBoundingClientRect();
  return { top: b.top, bottom: b.bottom, left: b.left, right: b.right, inner: [innerWidth, innerHeight], scrollY };
}
const inView = (b) => !!b && b.top < b.inner[1] && b.bottom > 0 && b.left < b.inner[0] && b.right > 0;

// The live view's banner (over the charts): shown, its words and its class.
async function bannerOf(page) {
  return page.evaluate(() => {
    const b = document.querySelector('#view-live #run-banner');
    return b ? { shown: !b.hidden, text: b.textContent, cls: b.className } : null;
  });
}

// A run stopped with Stop: the banner says so (once the page has drawn the run's end:
// "Stopping…" until then), and is no error.
async function checkStoppedBanner(page, what) {
  const end = Date.now() + 5000;
  let b = await bannerOf(page);
  while (!(b && /\bstopped\b/i.test(b.text)) && Date.now() < end) {
    await sleep(100);
    b = await bannerOf(page);
  }
  check(b && b.shown && /\bstopped\b/i.test(b.text) && !/interrupt|terminated/.test(b.text) && !/error/.test(b.cls),
    what + ' stopped with Stop: the banner is ' + JSON.stringify(b));
}

// The boxes of a server view's summary table and chart panels (title, plot and legend);
// two that intersect: the page draws one over the other.
async function overlaps(page) {
  return page.evaluate(() => {
    const items = [...document.querySelectorAll('#view-live #charts .panel, #view-live #xy-charts .panel, #view-live #summary:not([hidden])')]
      .map((e) => { const b = e.getBoundingClientRect(); return { what: e.id || e.className, b }; });
    const out = [];
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const [p, q] = [items[i].b, items[j].b];
        if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom) {
          out.push(items[i].what + ' [' + Math.round(p.top) + '..' + Math.round(p.bottom) + '] and ' + items[j].what + ' [' + Math.round(q.top) + '..' + Math.round(q.bottom) + ']');
        }
      }
    }
    return { items: items.map((x) => x.what), out };
  });
}

const BYTES = { Bytes: 1, KBytes: 1024, MBytes: 1048576, GBytes: 1073741824 };

async function runState(page) {
  return page.$eval('#runs', (s) => (s.selectedOptions[0] ? s.selectedOptions[0].textContent : ''));
}

async function getJson(page, url) {
  return page.evaluate(async (url) => {
    // The token the page itself got in its URL (linkperf ui always prints one).
    const token = new URLSearchParams(location.search).get('token');
    const headers = token ? { 'X-Linkperf-Token': token } : {};
    const r = await fetch(url, { cache: 'no-store', headers });
    return { status: r.status, json: await r.json() };
  }, url);
}

async function waitCheckOk(page) {
  await page.waitForFunction(() => /accepts/.test(document.getElementById('check').textContent), null, { timeout: 8000 })
    .catch(async () => { throw new Failure('the server did not accept the command: ' + await page.textContent('#check')); });
}

async function fillClient(page, port, fields) {
  await page.click('#defaults');
  await page.check('#f-mode-client');
  await page.fill('#f-host', '127.0.0.1');
  await page.fill('#f-port', String(port));
  for (const [sel, v] of fields) {
    if (v === true) await page.check(sel);
    else await page.fill(sel, v);
  }
  await waitCheckOk(page);
}

/* ---- the test ---- */

async function main() {
  check(fs.existsSync(LP), 'no linkperf binary at ' + LP + ' (set LINKPERF)');
  check(fs.existsSync(CHROMIUM), 'no Chromium at ' + CHROMIUM + ' (set CHROMIUM)');
  fs.mkdirSync(SHOTS, { recursive: true });
  const problems = [];

  const [p1, p2] = [await freePort(), await freePort()];
  const srv = start('linkperf -s', LP, ['-s', '-p', String(p1), '--no-history']);
  const ui = start('linkperf ui', LP, ['ui', '--listen', '127.0.0.1:0', '--db', path.join(tmp, 'h.db')]);
  const uiUrl = (await waitOutput(ui, /(http:\/\/127\.0\.0\.1:\d+\/\S*)/, 10000))[1];
  await waitOutput(srv, /listening/i, 10000);
  log('linkperf ui at', uiUrl, '| server on port', p1, UI_DIR ? '| page files from ' + UI_DIR : '');

  const browser = await chromium.launch({
    executablePath: CHROMIUM, headless: !process.env.E2E_HEADED, timeout: 30000,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-renderer-backgrounding', '--disable-background-timer-throttling',
      '--disable-component-update', '--no-first-run', '--disable-sync'].filter((a) => a !== '--headless' || !process.env.E2E_HEADED),
  });
  try {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 960 }, acceptDownloads: true });
    const page = await openPage(ctx, uiUrl, problems);

    /* 0. A pristine form (a fresh profile: nothing stored) is not in error although its empty
     * host holds Start back; a field the user edits shows its error. */
    const pristine = await page.evaluate(() => ({ bad: document.querySelectorAll('.field.bad').length,
      invalid: !!document.querySelector('.command.invalid'), start: document.getElementById('start').disabled,
      why: document.getElementById('start').title }));
    check(pristine.start && /address/i.test(pristine.why), 'a pristine client form: Start should wait for a host: ' + JSON.stringify(pristine));
    check(pristine.bad === 0 && !pristine.invalid, 'a pristine form shows errors: ' + JSON.stringify(pristine));
    // ...and its command line shows where the address goes, not the shell's empty word ''
    const preview = await page.evaluate(() => ({ text: document.getElementById('cmd').textContent,
      pending: (document.querySelector('#cmd .pending') || {}).textContent || null, copy: document.getElementById('copy').disabled }));
    check(/^linkperf -c <host>( |$)/.test(preview.text) && !preview.text.includes("''") && preview.pending === '<host>' && preview.copy,
      'the pristine command line: ' + JSON.stringify(preview));
    log('pristine command line:', preview.text);
    await page.fill('#f-port', '99999');
    await page.waitForFunction(() => document.getElementById('f-port').closest('.field').classList.contains('bad') &&
      document.querySelector('.command.invalid') !== null, null, { timeout: 5000 })
      .catch(() => { throw new Failure('an edited out-of-range port shows no error'); });
    check(await page.evaluate(() => document.getElementById('f-host').closest('.field').classList.contains('bad')) === false,
      'the untouched host field shows an error after the port was edited');

    /* 1. TCP -t 6 -P 2: the chart grows while it runs. At a rate limit: unlimited, two streams
     * over loopback keep both cores busy, and Chromium (whose renderers run at nice 5) then got
     * no CPU for seconds (its timers stopped for 5 s in a run that failed here: the chart went
     * from 0 to 6 points when the run was over). */
    await fillClient(page, p1, [['#f-transmit', '6'], ['#f-parallel', '2'], ['#f-tcpRate', '200M']]);
    const tcpCmd = await page.textContent('#cmd');
    check(tcpCmd === 'linkperf -c 127.0.0.1 -p ' + p1 + ' -b 200M -t 6 -P 2', 'TCP command line is ' + tcpCmd);
    const bps = '#view-live #charts .panel.bps';
    await recordGrowth(page, bps);
    await page.click('#start');
    // Watch the chart for as long as the run runs (not for a fixed time: a busy machine or a
    // cold browser may start it late): it must show some points, then more, before the run
    // is done.
    let a = null;
    let b = null;
    const watchEnd = Date.now() + 30000;
    while (Date.now() < watchEnd) {
      const running = !/\bdone\b/.test(await runState(page));
      const now = await panel(page, bps);
      if (!running) break;
      if (now && now.points >= 1) {
        if (!a) a = now;
        else if (now.points > a.points) { b = now; break; }
      }
      await sleep(100);
    }
    if (!(a && b)) {
      // The page's own record (CI once: this loop's first look found 5 points, its next the
      // run done).
      const rec = await page.evaluate(() => window.__growth);
      const first = rec.find((r) => r.running && r.points >= 1);
      const later = first && rec.find((r) => r.running && r.points > first.points);
      log('this loop saw ' + (a ? a.points : 0) + ' points while running; the page recorded',
        JSON.stringify(rec.map((r) => [r.points, r.running])));
      if (later) [a, b] = [first, later];
    }
    if (!(a && b)) {
      // What the page knew, should the chart not grow (four times in CI before the rate limit):
      // the event stream's state, the runs it lists, the panel's data set and any page errors.
      const seen = await page.evaluate((sel) => ({
        live: document.getElementById('live').textContent,
        runs: [...document.getElementById('runs').options].map((o) => o.textContent),
        panel: Object.assign({}, (document.querySelector(sel) || {}).dataset || {}),
        text: document.getElementById('text').textContent.split('\n').slice(-4),
      }), bps);
      log('page state:', JSON.stringify(seen), '| problems:', JSON.stringify(problems));
    }
    check(a && b, 'the TCP chart did not grow while the run ran (' + (a ? a.points : 0) + ' points, then ' + (b ? b.points : 'none') + ')');
    log('TCP chart: ' + a.points + ' then ' + b.points + ' points while running; sum ' + bpsOf(b, 'sum') + ' bits/s; series', b.legend.map((x) => x.label).join(','));
    check(bpsOf(a, 'sum') > 0 && bpsOf(b, 'sum') > 0, 'the TCP sum is not > 0 bits/s: ' + JSON.stringify(b.legend));
    check(b.series === 3, 'TCP -P 2 should draw 2 streams + sum, draws ' + b.series + ' series');
    // every line of the legend with its unit: a stream ("[5] 94.1 Mbits/s") as the sum
    for (const row of b.legend) bpsOf(b, row.label);
    await page.screenshot({ path: path.join(SHOTS, 'running-chart.png') });
    const tcpLive = Number(await page.$eval('#runs', (s) => s.value));
    await until('the TCP run to end', 20000, async () => /\bdone\b/.test(await runState(page)));
    await page.waitForFunction(() => document.querySelectorAll('#summary tr').length >= 3, null, { timeout: 5000 })
      .catch(() => { throw new Failure('the finished TCP run shows no end summary'); });
    const tcpEnd = await panel(page, bps);
    check(tcpEnd.points >= 5, 'a 6 s TCP run drew ' + tcpEnd.points + ' points');
    const summary = await page.$$eval('#summary tr', (t) => t.map((x) => [...x.cells].map((c) => c.textContent)));
    check(summary.some((r) => r[0] === 'sender') && summary.some((r) => r[0] === 'receiver'), 'no end summary: ' + JSON.stringify(summary));
    // a receiver has no retransmits to tell: unknown is '—', never a blank or a 0
    check(summary.find((r) => r[0] === 'receiver')[4] === '—', 'the receiver\'s retransmits cell: ' + JSON.stringify(summary));
    log('TCP run', tcpLive, 'done:', tcpEnd.points, 'points; summary', JSON.stringify(summary.slice(1)));

    /* 1b. Bounceback (iperf2 dialect) -t 3: the latency panel draws each interval's
     * round-trip percentiles, ordered, beside the rate chart. */
    await fillClient(page, p1, [['#f-transmit', '3']]);
    await page.selectOption('#f-dialect', 'iperf2');
    await page.check('#f-bounceback');
    await waitCheckOk(page);
    const bbCmd = await page.textContent('#cmd');
    check(bbCmd === 'linkperf -c 127.0.0.1 -p ' + p1 + ' --dialect iperf2 -t 3 --bounceback', 'bounceback command line is ' + bbCmd);
    await page.click('#start');
    await until('the bounceback run to end', 30000, async () => /\bdone\b/.test(await runState(page)));
    const lat = await panel(page, '#view-live #charts .panel.latency');
    check(lat && lat.points >= 2, 'a 3 s bounceback run drew no latency panel: ' + JSON.stringify(lat));
    check(lat.legend.map((x) => x.label).join(',') === 'p50,p90,p99,max', 'latency series: ' + JSON.stringify(lat.legend));
    // The legend shows the latest interval that has percentiles (an interval without an
    // exchange has none: with only that one, every value would be '–' and this fails).
    const ms = lat.legend.map((x) => msOf(x.value));
    check(ms.every((v) => v > 0) && ms.every((v, i) => i === 0 || v >= ms[i - 1]),
      'the latest percentiles are not positive and ordered, in ms: ' + JSON.stringify(lat.legend));
    check(await page.$('#view-live #charts .panel.bps'), 'the bounceback run has no rate chart beside the latency panel');
    log('bounceback: latency panel', lat.points, 'points, latest', JSON.stringify(lat.legend));
    // ...and the CDF of the run's round trips, from the end record's histogram: rising to 100 %.
    const cdf = await xyPanel(page, '#view-live #xy-charts .panel.cdf');
    check(cdf && cdf.x.length >= 2, 'the bounceback run drew no latency CDF: ' + JSON.stringify(cdf));
    const cdfY = Object.values(cdf.series)[0];
    check(cdfY[0] === 0 && Math.abs(cdfY[cdfY.length - 1] - 100) < 1e-9 && cdfY.every((v, i) => i === 0 || v >= cdfY[i - 1]) &&
      cdf.x.every((v, i) => i === 0 || v > cdf.x[i - 1]), 'the CDF does not rise from 0 to 100 %: ' + JSON.stringify(cdf));
    log('bounceback: CDF of', Object.keys(cdf.series)[0], 'over', cdf.x.length, 'points,', cdf.x[0].toFixed(4), '..', cdf.x[cdf.x.length - 1].toFixed(4), 'ms');
    const bbLat = lat;
    await page.screenshot({ path: path.join(SHOTS, 'bounceback-latency.png') });

    /* 1c. RFC 2544 from the page: 64- and 1518-byte frames at a 50 Mbit/s line rate, short
     * trials; live progress while it runs, then the throughput found per frame size (at most
     * the line rate) and the loss rate against the offered load. */
    await fillMeasure(page, 'rfc2544', p1, [['#f-lineRate', '50m'], ['#f-frames', '64,1518'], ['#f-trial', '0.5'],
      ['#f-resolution', '20'], ['#f-rfcTests', 'throughput,loss'], ['#f-maxTime', '120']]);
    const rfcCmd = await page.textContent('#cmd');
    check(rfcCmd === 'linkperf rfc2544 -c 127.0.0.1 -p ' + p1 + ' -b 50m --frames 64,1518 --trial 0.5 --resolution 20 --max-time 120 --tests throughput,loss',
      'rfc2544 command line is ' + rfcCmd);
    await page.click('#start');
    const prog = await until('the rfc2544 progress line', 20000, async () => {
      const t = await page.textContent('#progress span');
      return /rfc2544: .*frames.*s left\)/.test(t || '') ? t : null;
    });
    log('rfc2544 progress:', prog);
    await until('the rfc2544 run to end', 90000, async () => /\b(done|failed)\b/.test(await runState(page)));
    check(/\bdone\b/.test(await runState(page)), 'the rfc2544 run: ' + await runState(page) + ' ' + await page.textContent('#run-banner'));
    const rate = await xyPanel(page, '#view-live #xy-charts .panel.rfcRate');
    check(rate && JSON.stringify(rate.labels) === '["64","1518"]', 'rfc2544 rate chart frame sizes: ' + JSON.stringify(rate));
    check(/Mbits\/s/.test(rate.title) && rate.series['line rate'].every((v) => Math.abs(v - 50) < 1e-9), 'rfc2544 line rate: ' + JSON.stringify(rate));
    check(rate.series.throughput.every((v) => v > 0 && v <= 50), 'rfc2544 throughput not in (0, 50] Mbits/s: ' + JSON.stringify(rate.series));
    const lossP = await xyPanel(page, '#view-live #xy-charts .panel.rfcLoss');
    check(lossP && Object.keys(lossP.series).join() === '64-byte frames,1518-byte frames' && lossP.x.includes(100) &&
      Object.values(lossP.series).flat().every((v) => v === null || (v >= 0 && v <= 100)), 'rfc2544 loss chart: ' + JSON.stringify(lossP));
    const rfcRows = await page.$$eval('#measure-table tr', (t) => t.map((x) => [...x.cells].map((c) => c.textContent)));
    check(rfcRows.length === 3 && rfcRows[1][0] === '64' && rfcRows[2][0] === '1518', 'rfc2544 table: ' + JSON.stringify(rfcRows));
    log('rfc2544: throughput', JSON.stringify(rate.series.throughput), 'Mbits/s at frames', rate.labels.join(','), '; loss at', JSON.stringify(lossP.x), JSON.stringify(lossP.series));
    await page.screenshot({ path: path.join(SHOTS, 'rfc2544.png') });

    /* 1d. under-load from the page, 2 s phases with 3 load streams: every phase's round trips
     * and the load's throughput in its direction. */
    await fillMeasure(page, 'under-load', p1, [['#f-ulTime', '2'], ['#f-ulStreams', '3']]);
    const ulCmd = await page.textContent('#cmd');
    check(ulCmd === 'linkperf under-load -c 127.0.0.1 -p ' + p1 + ' -P 3 -t 2', 'under-load command line is ' + ulCmd);
    await page.click('#start');
    const ulProg = await until('the under-load progress line', 20000, async () => {
      const t = await page.textContent('#progress span');
      return /under-load: phase \d\/4/.test(t || '') ? t : null;
    });
    log('under-load progress:', ulProg);
    await until('the under-load run to end', 90000, async () => /\b(done|failed)\b/.test(await runState(page)));
    check(/\bdone\b/.test(await runState(page)), 'the under-load run: ' + await runState(page) + ' ' + await page.textContent('#run-banner'));
    const ulLat = await xyPanel(page, '#view-live #xy-charts .panel.ulLatency');
    check(ulLat && JSON.stringify(ulLat.labels) === '["idle","up","down","both"]', 'under-load phases: ' + JSON.stringify(ulLat));
    check(ulLat.series.p50.every((v, i) => v > 0 && ulLat.series.p99[i] >= v), 'under-load p50/p99: ' + JSON.stringify(ulLat.series));
    const ulRate = await xyPanel(page, '#view-live #xy-charts .panel.ulRate');
    const [upR, downR] = [ulRate.series.up, ulRate.series.down];
    check(upR[0] === 0 && downR[0] === 0 && upR[1] > 0 && downR[2] > 0 && upR[3] > 0 && downR[3] > 0,
      'under-load throughput per phase: ' + JSON.stringify(ulRate));
    log('under-load: p50', JSON.stringify(ulLat.series.p50), 'p99', JSON.stringify(ulLat.series.p99), 'ms; up', JSON.stringify(upR), 'down', JSON.stringify(downR), ulRate.title);
    await page.screenshot({ path: path.join(SHOTS, 'under-load.png') });

    /* 2. UDP -b 20M -t 30, stopped after a few intervals: it keeps its points */
    await fillClient(page, p1, [['#f-proto-udp', true], ['#f-bandwidth', '20M'], ['#f-transmit', '30']]);
    const udpCmd = await page.textContent('#cmd');
    check(udpCmd === 'linkperf -c 127.0.0.1 -p ' + p1 + ' -u -b 20M -t 30', 'UDP command line is ' + udpCmd);
    await page.click('#start');
    await until('a new run to be selected', 5000, async () => Number(await page.$eval('#runs', (s) => s.value)) !== tcpLive);
    await page.waitForFunction((s) => Number((document.querySelector(s) || { dataset: {} }).dataset.points) >= 3, bps, { timeout: 15000 });
    const before = await panel(page, bps);
    const udpBps = bpsOf(before, 'sum');
    check(udpBps > 15e6 && udpBps < 25e6, 'UDP at -b 20M shows ' + udpBps + ' bits/s');
    await page.click('#stop');
    await until('the UDP run to be stopped', 10000, async () => /\bstopped\b/.test(await runState(page)));
    await sleep(500);
    const after = await panel(page, bps);
    check(after && after.points >= before.points, 'the stopped UDP run lost its chart (' + before.points + ' -> ' + (after && after.points) + ' points)');
    const status = await getJson(page, '/api/status');
    const udpLive = Number(await page.$eval('#runs', (s) => s.value));
    const st = (status.json.runs || []).find((r) => r.id === udpLive);
    check(st && st.state === 'stopped', '/api/status says the UDP run is ' + JSON.stringify(st));
    await checkStoppedBanner(page, 'the UDP run');
    log('UDP run', udpLive, 'stopped with', after.points, 'points at', (udpBps / 1e6).toFixed(2), 'Mbits/s');

    /* 3. profiles: save the UDP settings, load them back */
    await page.click('#profiles > summary');
    await page.fill('#profile-name', 'e2e udp 20M');
    await page.click('#profile-save');
    await page.waitForSelector('#profile-list li[data-name="e2e udp 20M"]', { timeout: 5000 });
    const profs = await getJson(page, '/api/profiles');
    const prof = (profs.json.profiles || []).find((p) => p.name === 'e2e udp 20M');
    check(prof && JSON.stringify(prof.args) === JSON.stringify(['-c', '127.0.0.1', '-p', String(p1), '-u', '-b', '20M', '-t', '30']),
      'saved profile: ' + JSON.stringify(prof));
    await page.keyboard.press('Escape');
    await page.click('#defaults');
    await page.click('#profiles > summary');
    await page.click('#profile-list li[data-name="e2e udp 20M"] button.link');
    check(await page.textContent('#cmd') === udpCmd, 'the loaded profile gives ' + await page.textContent('#cmd'));
    log('profile saved and loaded:', udpCmd);

    /* 3b. At each of VIEWPORTS: a test started with Start (the toolbar's button, the window
     * scrolled to the top) and with Enter in the form (scrolled to a field further down) has
     * its rate chart in view as the page itself scrolls, and Stop shows as stopped. A one-
     * column page had the chart under the whole form (its top at 2341 px in a 600 px window). */
    for (const vp of VIEWPORTS) {
      const vctx = await browser.newContext({ viewport: vp });
      try {
        const vpage = await openPage(vctx, uiUrl, problems);
        for (const how of ['Start', 'Enter']) {
          await fillClient(vpage, p1, [['#f-tcpRate', '50M'], ['#f-transmit', '20']]);
          const before = await vpage.$eval('#runs', (s) => s.value);
          // Start in the toolbar, or Enter in the form's last field (its value as it is)
          const target = vpage.locator(how === 'Start' ? '#start' : '#form input[type=text]:not(:disabled)').last();
          await target.scrollIntoViewIfNeeded();
          const from = await vpage.evaluate(() => scrollY); // where the page was when the run started
          if (how === 'Start') await target.click();
          else await target.press('Enter');
          await vpage.waitForFunction(([sel, before]) => document.getElementById('runs').value !== before &&
            /running/.test(document.getElementById('runs').selectedOptions[0].textContent) &&
            Number((document.querySelector(sel) || { dataset: {} }).dataset.points) >= 1, [bps, before], { timeout: 15000 })
            .catch(() => { throw new Failure(sizeOf(vp) + ': the run started with ' + how + ' drew no chart'); });
          const at = await vpage.evaluate(boxOf, bps);
          check(inView(at), sizeOf(vp) + ', started with ' + how + ': the rate chart is out of view: ' + JSON.stringify(at));
          log(sizeOf(vp) + ', ' + how + ': rate chart at ' + Math.round(at.top) + '..' + Math.round(at.bottom) + ' px in a ' + at.inner[1] + ' px window (scrollY ' + from + ' -> ' + at.scrollY + ')');
          if (how === 'Start') await vpage.screenshot({ path: path.join(SHOTS, 'running-' + sizeOf(vp) + '.png') });
          await vpage.click('#stop');
          await until(sizeOf(vp) + ': the run to be stopped', 10000, async () => /\bstopped\b/.test(await runState(vpage)));
          await checkStoppedBanner(vpage, sizeOf(vp) + ': a run');
        }
      } finally {
        await vctx.close();
      }
    }

    /* 4. history: both runs, the UDP one incomplete; overlay; exports */
    await page.click('#tab-history');
    await page.waitForFunction(() => document.querySelectorAll('#hist-table tbody tr').length >= 2, null, { timeout: 10000 });
    const hist = await getJson(page, '/api/history');
    const tcpRun = hist.json.runs.find((r) => r.command === tcpCmd);
    const udpRun = hist.json.runs.find((r) => r.command === udpCmd);
    check(tcpRun && udpRun, 'the history lacks a run: ' + JSON.stringify(hist.json.runs.map((r) => r.command)));
    check(tcpRun.complete === 1 && tcpRun.source === 'ui' && tcpRun.proto === 'tcp' && tcpRun.bytes > 0, 'TCP run in the history: ' + JSON.stringify(tcpRun));
    check(udpRun.complete === 0 && udpRun.proto === 'udp', 'the stopped UDP run should be incomplete: ' + JSON.stringify(udpRun));
    log('UDP run in the history:', JSON.stringify(udpRun));
    const rowOf = (id) => page.$eval('#hist-table tbody tr[data-id="' + id + '"]', (tr) => ({
      status: tr.dataset.status, cells: [...tr.cells].map((c) => c.textContent) }));
    const tcpRow = await rowOf(tcpRun.id), udpRow = await rowOf(udpRun.id);
    // the history keeps no end state: a stopped run is complete=0 with iperf3's "interrupt" error
    check(/^interrupt\b/.test(udpRun.error), 'the stopped UDP run\'s error: ' + JSON.stringify(udpRun.error));
    check(tcpRow.status === 'complete' && tcpRow.cells.includes('done') && udpRow.status === 'stopped' && udpRow.cells.includes('stopped'),
      'rows: ' + JSON.stringify([tcpRow, udpRow]));
    // every row says how its run ended: none is blank
    const statuses = await page.$$eval('#hist-table tbody tr', (t) => t.map((tr) => [tr.dataset.id, tr.dataset.status, tr.cells[3].textContent.trim()]));
    check(statuses.length >= 5 && statuses.every((x) => x[2] !== ''), 'history rows without a status: ' + JSON.stringify(statuses));
    log('history statuses:', statuses.map((x) => '#' + x[0] + ' ' + x[2]).join(', '));
    check(tcpRow.cells.includes('127.0.0.1:' + p1) && tcpRow.cells.includes('TCP') && tcpRow.cells.includes('ui'), 'TCP row: ' + JSON.stringify(tcpRow));
    log('history: TCP #' + tcpRun.id + ' complete ' + tcpRun.bytes + ' bytes; UDP #' + udpRun.id + ' complete=' + udpRun.complete + ' bytes=' + udpRun.bytes);

    // filters: protocol, then search
    await page.selectOption('#hist-proto', 'udp');
    await page.waitForFunction((id) => [...document.querySelectorAll('#hist-table tbody tr')].every((tr) => tr.dataset.proto === 'udp') &&
      !!document.querySelector('#hist-table tbody tr[data-id="' + id + '"]'), udpRun.id, { timeout: 5000 });
    await page.selectOption('#hist-proto', '');
    await page.fill('#hist-q', '-P 2');
    await page.waitForFunction((id) => { const r = document.querySelectorAll('#hist-table tbody tr'); return r.length === 1 && r[0].dataset.id === String(id); }, tcpRun.id, { timeout: 5000 });
    await page.fill('#hist-q', '');
    await page.waitForFunction(() => document.querySelectorAll('#hist-table tbody tr').length >= 2, null, { timeout: 5000 });

    // one stored run drawn by the live chart code: as many points as stored sum intervals
    await page.click('#hist-table tbody tr[data-id="' + tcpRun.id + '"] td.cmd');
    await page.waitForFunction((id) => document.getElementById('hist-info').textContent.startsWith('#' + id + ' '), tcpRun.id, { timeout: 5000 });
    const detail = await getJson(page, '/api/history/' + tcpRun.id);
    const sums = detail.json.intervals.filter((r) => r.stream === 0 && !r.omitted && r.end_s - r.start_s >= 0.02);
    const stored = await panel(page, '#hist-charts .panel.bps');
    check(stored && stored.points === sums.length && stored.series === 3, 'stored TCP run drawn with ' + JSON.stringify(stored) + ', ' + sums.length + ' sum rows');
    check(await page.$('#hist-charts .panel.rtt') && await page.$('#hist-charts .panel.cwnd'), 'the stored TCP run has no RTT/cwnd panels');

    // CSV through the page's button: header, and the sum rows add up to the run's bytes
    const [csvDl] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('#hist-csv')]);
    check(csvDl.suggestedFilename() === 'linkperf-run-' + tcpRun.id + '.csv', 'CSV file name ' + csvDl.suggestedFilename());
    const csv = fs.readFileSync(await csvDl.path(), 'utf8').trim().split('\n');
    const header = 'run,interval,stream,sender,start_s,end_s,bytes,bits_per_second,omitted,retransmits,snd_cwnd,rtt_us,jitter_ms,lost_packets,packets';
    check(csv[0] === header, 'CSV header: ' + csv[0]);
    const rows = csv.slice(1).map((l) => l.split(','));
    const sumBytes = rows.filter((r) => r[2] === '0').reduce((s, r) => s + Number(r[6]), 0);
    const streams = new Set(rows.map((r) => r[2]));
    check(streams.has('0') && streams.size === 3, 'CSV streams: ' + [...streams]);
    check(Math.abs(sumBytes - tcpRun.bytes) <= 0.01 * tcpRun.bytes, 'CSV sum rows add up to ' + sumBytes + ' bytes, the run says ' + tcpRun.bytes);
    log('CSV: ' + rows.length + ' rows, stream 0 adds up to ' + sumBytes + ' bytes vs ' + tcpRun.bytes + ' (' + (100 * (sumBytes - tcpRun.bytes) / tcpRun.bytes).toFixed(3) + '%)');

    // iperf3 JSON and PNG
    const [jsonDl] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('#hist-json')]);
    const doc = JSON.parse(fs.readFileSync(await jsonDl.path(), 'utf8'));
    check(doc.start && doc.end && doc.end.sum_sent && doc.end.sum_sent.bytes > 0 && Array.isArray(doc.intervals), 'result.json is not an iperf3 document');
    const [pngDl] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('#hist-png')]);
    const png = fs.readFileSync(await pngDl.path());
    check(png.length > 5000 && png.slice(1, 4).toString() === 'PNG', 'PNG export: ' + png.length + ' bytes');
    log('exports: JSON with', doc.intervals.length, 'intervals, PNG', png.length, 'bytes');

    // overlay: the two runs on one chart
    await page.check('#hist-table tbody tr[data-id="' + tcpRun.id + '"] input[type=checkbox]');
    await page.check('#hist-table tbody tr[data-id="' + udpRun.id + '"] input[type=checkbox]');
    await page.click('#hist-overlay');
    await page.waitForSelector('#hist-charts .panel.overlay', { timeout: 5000 });
    const ov = await panel(page, '#hist-charts .panel.overlay');
    check(ov.series === 2, 'the overlay has ' + ov.series + ' series');
    check(ov.legend[0].label.startsWith('#' + udpRun.id + ' ') || ov.legend[0].label.startsWith('#' + tcpRun.id + ' '), 'overlay legend: ' + JSON.stringify(ov.legend));
    check(ov.legend.some((x) => x.label === '#' + tcpRun.id + ' ' + tcpCmd) && ov.legend.some((x) => x.label === '#' + udpRun.id + ' ' + udpCmd), 'overlay legend: ' + JSON.stringify(ov.legend));
    check(ov.points >= sums.length, 'overlay x points ' + ov.points + ' < ' + sums.length);
    await page.screenshot({ path: path.join(SHOTS, 'history.png') });
    const overlayLog = ['overlay:', ov.series, 'series,', ov.points, 'x points:', ov.legend.map((x) => x.label).join(' | ')];
    log(...overlayLog);

    // the bounceback run reopened: the latency panel it had live, and its CDF
    const bbRun = hist.json.runs.find((r) => r.command === bbCmd);
    check(bbRun, 'the history lacks the bounceback run');
    await page.click('#hist-table tbody tr[data-id="' + bbRun.id + '"] td.cmd');
    await page.waitForSelector('#hist-charts .panel.latency', { timeout: 5000 });
    const bbStored = await panel(page, '#hist-charts .panel.latency');
    check(bbStored.points === bbLat.points && JSON.stringify(bbStored.legend) === JSON.stringify(bbLat.legend),
      'the stored bounceback run\'s latency panel ' + JSON.stringify(bbStored) + ' is not the live one ' + JSON.stringify(bbLat));
    const cdfStored = await xyPanel(page, '#hist-xy .panel.cdf');
    check(cdfStored && JSON.stringify(cdfStored.series) === JSON.stringify(cdf.series), 'the stored CDF differs: ' + JSON.stringify(cdfStored));
    log('stored bounceback run #' + bbRun.id + ': latency panel', bbStored.points, 'points, latest', JSON.stringify(bbStored.legend), '; CDF as live');

    // the rfc2544 and under-load runs reopened: the same charts from their stored reports
    for (const [cmd, name, live] of [[rfcCmd, 'rfcRate', rate], [ulCmd, 'ulLatency', ulLat]]) {
      const run = hist.json.runs.find((r) => r.command === cmd);
      check(run && run.complete === 1, 'the history lacks the measurement ' + cmd + ': ' + JSON.stringify(run));
      await page.click('#hist-table tbody tr[data-id="' + run.id + '"] td.cmd');
      await page.waitForSelector('#hist-xy .panel.' + name, { timeout: 5000 });
      const again = await xyPanel(page, '#hist-xy .panel.' + name);
      check(JSON.stringify(again.series) === JSON.stringify(live.series) && JSON.stringify(again.labels) === JSON.stringify(live.labels),
        'stored ' + name + ' ' + JSON.stringify(again) + ' is not the live ' + JSON.stringify(live));
      log('stored run #' + run.id + ' (' + cmd.split(' ')[1] + '): ' + name + ' as live');
    }
    await page.screenshot({ path: path.join(SHOTS, 'history-under-load.png') });

    /* 5. .jperf import */
    await page.click('#tab-live');
    await page.setInputFiles('#import', JPERF);
    await page.waitForFunction(() => !document.getElementById('notice').hidden, null, { timeout: 5000 });
    const got = await page.evaluate(() => {
      const v = (id) => document.getElementById(id).value;
      return { host: v('f-host'), port: v('f-port'), parallel: v('f-parallel'), transmit: v('f-transmit'), tcpWin: v('f-tcpWin'),
        tcpLen: v('f-tcpLen'), dialect: v('f-dialect'), tos: v('f-tos'), interval: v('f-interval'), format: v('f-format'),
        noDelay: document.getElementById('f-noDelay').checked, udp: document.getElementById('f-proto-udp').checked,
        notice: document.getElementById('notice-body').textContent };
    });
    const want = { host: '10.0.0.42', port: '5002', parallel: '3', transmit: '15', tcpWin: '256K', tcpLen: '64K', dialect: 'iperf2',
      tos: '0x02', interval: '2', format: 'm', noDelay: true, udp: false };
    for (const [k, v] of Object.entries(want)) check(got[k] === v, '.jperf import: ' + k + ' is ' + JSON.stringify(got[k]) + ', want ' + JSON.stringify(v));
    check(got.notice.includes('Imported lab-tcp.jperf'), 'import notice: ' + got.notice);
    const jcmd = await page.textContent('#cmd');
    check(jcmd === 'linkperf -c 10.0.0.42 -p 5002 --dialect iperf2 -t 15 -P 3 -l 64K -w 256K -N -S 0x02 -i 2 -f m', '.jperf command line: ' + jcmd);
    await waitCheckOk(page);
    log('.jperf import:', jcmd);

    /* 6. server view: linkperf -s --web, a stock iperf3 client against it */
    const web = start('linkperf -s --web', LP, ['-s', '-p', String(p2), '--web', '127.0.0.1:0']);
    const webUrl = (await waitOutput(web, /web page at (http:\/\/\S+)/, 10000))[1];
    await waitOutput(web, /listening/i, 10000);
    log('server with --web at', webUrl, 'port', p2);
    const spage = await openPage(ctx, webUrl, problems);
    await spage.waitForSelector('#server-tests:not([hidden])', { timeout: 10000 });
    // At a rate limit, as in 1: the page must get CPU while the test runs.
    const client = start('iperf3 -c', IPERF3, ['-c', '127.0.0.1', '-p', String(p2), '-t', '3', '-b', '200M', '-J']);
    const card = '#test-cards .test-card';
    await spage.waitForFunction((s) => { const c = document.querySelector(s); return c && c.dataset.state === 'running' && Number(c.dataset.points) >= 1; }, card, { timeout: 10000 });
    const live1 = await panel(spage, '#view-live #charts .panel.bps');
    await sleep(1100);
    const live2 = await panel(spage, '#view-live #charts .panel.bps');
    check(live1 && live2 && live2.points > live1.points, 'the incoming test\'s chart did not grow: ' + JSON.stringify([live1, live2]));
    await spage.screenshot({ path: path.join(SHOTS, 'server-view.png') });
    await exitOf(client, 15000);
    check(client.exited.code === 0, 'iperf3 failed: ' + client.out.slice(-500));
    const res = JSON.parse(client.out.slice(client.out.indexOf('{')));
    await spage.waitForFunction((s) => { const c = document.querySelector(s); return c && c.dataset.state === 'done'; }, card, { timeout: 10000 });
    const c1 = await spage.$eval(card, (c) => ({ peer: c.dataset.peer, points: Number(c.dataset.points),
      text: [...c.querySelectorAll('.test-head > *')].map((x) => x.textContent).join(' '),
      chart: Number((c.querySelector('.panel.bps') || { dataset: {} }).dataset.points) }));
    check(c1.peer.startsWith('127.0.0.1:'), 'test peer ' + c1.peer);
    check(/TCP/.test(c1.text) && /\bdone\b/.test(c1.text), 'test card: ' + c1.text);
    check(c1.chart >= 2 && c1.points >= 2, 'the test card\'s chart has ' + c1.chart + ' points');
    const main2 = await panel(spage, '#view-live #charts .panel.bps');
    check(bpsOf(main2, 'sum') > 0, 'the incoming test shows no rate: ' + JSON.stringify(main2.legend));
    // the page's end summary of the test against iperf3's own count
    const srows = await spage.$$eval('#summary tr', (t) => t.map((x) => [...x.cells].map((c) => c.textContent)));
    const recv = srows.find((r) => r[0] === 'receiver');
    check(recv, 'no receiver row in the server\'s summary: ' + JSON.stringify(srows));
    const m = /^([\d.]+) (\w+)$/.exec(recv[2]);
    const pageBytes = m ? Number(m[1]) * BYTES[m[2]] : NaN;
    const iperfBytes = res.end.sum_received.bytes;
    check(Math.abs(pageBytes - iperfBytes) <= 0.01 * iperfBytes, 'server view says ' + recv[2] + ', iperf3 received ' + iperfBytes + ' bytes');
    const text = await spage.textContent('#text');
    check(/sec/.test(text) && text.split('\n').length >= 4, 'the test\'s text pane: ' + JSON.stringify(text.slice(0, 300)));
    log('server view: test from', c1.peer, c1.points, 'intervals,', recv[2], 'received (iperf3:', iperfBytes, 'bytes); summary', JSON.stringify(srows));

    /* 6b. A UDP test to the server, seen at this window's size and at VIEWPORTS: its
     * summary, rate, jitter and loss panels each in a place of its own (the summary lay over
     * the jitter and loss panels at 1440x960), and at each size the chart in view. */
    const vctxs = await Promise.all(VIEWPORTS.map((vp) => browser.newContext({ viewport: vp })));
    try {
      const views = [[sizeOf({ width: 1440, height: 960 }), spage]];
      for (const [i, vc] of vctxs.entries()) {
        const vpage = await openPage(vc, webUrl, problems);
        await vpage.waitForSelector('#server-tests:not([hidden])', { timeout: 10000 });
        views.push([sizeOf(VIEWPORTS[i]), vpage]);
      }
      const udp = start('iperf3 -c -u', IPERF3, ['-c', '127.0.0.1', '-p', String(p2), '-u', '-b', '10M', '-t', '2']);
      await exitOf(udp, 15000);
      check(udp.exited.code === 0, 'iperf3 -u failed: ' + udp.out.slice(-500));
      for (const [size, vpage] of views) {
        await vpage.waitForFunction(() => { const c = document.querySelector('#test-cards .test-card[data-test="2"]');
          return c && c.dataset.state === 'done' && document.querySelectorAll('#summary tr').length >= 3 &&
            document.querySelector('#view-live #charts .panel.jitter') && document.querySelector('#view-live #charts .panel.loss'); }, null, { timeout: 10000 })
          .catch(() => { throw new Failure(size + ': the server view shows no summary, jitter and loss of the UDP test'); });
        const ov = await overlaps(vpage);
        check(ov.items.length >= 4 && ov.out.length === 0, size + ': the server view draws one thing over another: ' + JSON.stringify(ov));
        const at = await vpage.evaluate(boxOf, '#view-live #charts .panel.bps');
        check(inView(at), size + ': the server view\'s rate chart is out of view: ' + JSON.stringify(at));
        if (size !== '1440x960') await vpage.screenshot({ path: path.join(SHOTS, 'server-view-' + size + '.png') });
        log(size + ': server view of the UDP test:', ov.items.join(', '), 'apart; rate chart at', Math.round(at.top), 'px');
      }
    } finally {
      await Promise.all(vctxs.map((c) => c.close()));
    }

    check(problems.length === 0, 'the page reported errors:\n  ' + problems.join('\n  '));
  } finally {
    await browser.close().catch(() => {});
  }
}

const watchdog = setTimeout(() => {
  console.error('FAIL: the whole test took longer than ' + LIMIT_S + ' s');
  killAll().finally(() => process.exit(3));
}, LIMIT_S * 1000);

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => { killAll().finally(() => process.exit(130)); });
}

let code = 0;
try {
  await main();
  log('PASS');
} catch (e) {
  code = 1;
  console.error('FAIL: ' + (e instanceof Failure ? e.message : e.stack || e));
  for (const c of children) console.error('--- ' + c.name + ' (' + (c.exited ? 'exited ' + JSON.stringify(c.exited) : 'running') + ') output tail:\n' + c.out.slice(-1500));
} finally {
  await killAll();
  clearTimeout(watchdog);
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);
