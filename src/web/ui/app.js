/* Browser glue for `linkperf ui`: draws the form from LPForm.FIELDS, shows the command line,
 * talks to the server's JSON/SSE API and draws runs with uPlot. The logic lives in form.js
 * and chart.js; text from the server only ever goes in through textContent. */
(function () {
  'use strict';

  const $ = (id) => document.getElementById(id);
  const el = (tag, props, kids) => {
    const e = document.createElement(tag);
    Object.assign(e, props || {});
    for (const k of kids || []) e.append(k);
    return e;
  };
  const F = window.LPForm, C = window.LPChart;

  /* ---- API: optional token on every request, CSRF token on every POST ---- */

  const token = new URLSearchParams(location.search).get('token');
  let csrf = '';

  async function api(method, path, body) {
    const r = await request(method, path, body);
    // A restarted server has a new CSRF token: fetch it and try once more.
    if (method === 'POST' && r.status === 403) {
      if (await checkRestart()) return request(method, path, body);
    }
    return r;
  }

  async function request(method, path, body) {
    const headers = {};
    if (token) headers['X-Linkperf-Token'] = token;
    if (method === 'POST') {
      headers['X-CSRF-Token'] = csrf;
      headers['Content-Type'] = 'application/json';
    }
    try {
      const res = await fetch(path, { method, headers, cache: 'no-store', body: body ? JSON.stringify(body) : undefined });
      let json = {};
      try { json = (await res.json()) || {}; } catch (e) { /* an empty or non-JSON body */ }
      return { ok: res.ok, status: res.status, json };
    } catch (e) {
      return { ok: false, status: 0, json: { error: 'cannot reach the linkperf server (' + e.message + ')' } };
    }
  }

  /* ---- the form ---- */

  const STORE = 'linkperf.form';
  const nodes = {}; // field name -> {row, inputs, err, hint}
  let serverErrors = {}; // field -> message from /api/check or /api/run

  function buildForm() {
    const form = $('form');
    for (const [group, title] of F.GROUPS) {
      const fs = el('fieldset', {}, [el('legend', { textContent: title })]);
      for (const f of F.FIELDS.filter((x) => x.group === group)) fs.append(fieldRow(f));
      form.append(fs);
    }
    form.append(el('button', { type: 'submit', hidden: true })); // Enter starts the test
  }

  function fieldRow(f) {
    const id = 'f-' + f.name;
    const row = el('div', { className: 'field' + (f.kind === 'check' ? ' check' : '') });
    const err = el('div', { className: 'err', id: id + '-err' });
    const hint = el('div', { className: 'hint', textContent: f.hint || '' });
    let inputs;
    if (f.kind === 'check') {
      const box = el('input', { type: 'checkbox', id, name: f.name });
      row.append(el('label', {}, [box, ' ' + f.label + (f.flag ? ' ' : '')]));
      if (f.flag) row.lastChild.append(el('code', { className: 'muted', textContent: f.flag }));
      inputs = [box];
    } else if (f.kind === 'radio') {
      const box = el('div', { className: 'choices', role: 'radiogroup' });
      inputs = f.options.map(([value, text]) => {
        const r = el('input', { type: 'radio', name: f.name, value, id: id + '-' + value });
        box.append(el('label', {}, [r, ' ' + text]));
        return r;
      });
      row.append(el('label', { textContent: f.label }), box);
    } else {
      const input = f.kind === 'select' ? el('select', { id, name: f.name }) : el('input', { type: 'text', id, name: f.name, spellcheck: false });
      if (f.kind === 'select') for (const [value, text] of f.options) input.append(el('option', { value, textContent: text }));
      input.setAttribute('aria-describedby', id + '-err');
      row.append(el('label', { htmlFor: id, textContent: f.label, title: f.flag || '' }), input);
      inputs = [input];
    }
    row.append(err, hint);
    nodes[f.name] = { row, inputs, err };
    return row;
  }

  function readForm() {
    const s = {};
    for (const f of F.FIELDS) {
      const ins = nodes[f.name].inputs;
      if (f.kind === 'check') s[f.name] = ins[0].checked;
      else if (f.kind === 'radio') s[f.name] = (ins.find((r) => r.checked) || ins[0]).value;
      else s[f.name] = ins[0].value;
    }
    return F.normalize(s);
  }

  function writeForm(state) {
    const s = F.normalize(state);
    for (const f of F.FIELDS) {
      const ins = nodes[f.name].inputs;
      if (f.kind === 'check') ins[0].checked = s[f.name];
      else if (f.kind === 'radio') for (const r of ins) r.checked = r.value === s[f.name];
      else ins[0].value = s[f.name];
    }
  }

  let current = { state: F.defaults(), args: [], errors: {} };
  let checkTimer = 0, checkSeq = 0;

  function refresh() {
    const s = readForm();
    const errors = F.validate(s);
    const args = F.buildArgs(s);
    const changed = JSON.stringify(args) !== JSON.stringify(current.args);
    current = { state: s, args, errors };
    try { localStorage.setItem(STORE, JSON.stringify(s)); } catch (e) { /* storage off */ }
    if (changed) serverErrors = {};
    for (const f of F.FIELDS) {
      const n = nodes[f.name], live = F.applies(f.name, s);
      n.row.classList.toggle('off', !live);
      for (const i of n.inputs) i.disabled = !live;
      if (f.kind === 'text') n.inputs[0].placeholder = F.placeholder(f.name, s);
      const msg = live ? errors[f.name] || serverErrors[f.name] || '' : '';
      n.err.textContent = msg;
      n.row.classList.toggle('bad', !!msg);
    }
    $('cmd').textContent = F.commandLine(args);
    const ok = Object.keys(errors).length === 0;
    $('cmd').parentNode.classList.toggle('invalid', !ok);
    updateButtons();
    if (!changed) return;
    clearTimeout(checkTimer);
    if (!ok) return setCheck('', '');
    setCheck('', 'checking…');
    checkTimer = setTimeout(() => serverCheck(args), 300);
  }

  function setCheck(cls, text) {
    $('check').className = 'check ' + cls;
    $('check').textContent = text;
  }

  // The server parses with the real CLI: its verdict is shown next to the field it names.
  async function serverCheck(args) {
    const seq = ++checkSeq;
    const r = await api('POST', '/api/check', { args });
    if (seq !== checkSeq || JSON.stringify(args) !== JSON.stringify(current.args)) return;
    if (r.ok && r.json.ok) return setCheck('ok', '✓ linkperf accepts this command');
    showServerError(r.json, r.status);
  }

  function showServerError(json, status) {
    const msg = json.error || 'the server answered ' + status;
    setCheck('bad', msg);
    const field = F.fieldForOption(json.option, current.state);
    if (field) {
      serverErrors = { [field]: msg };
      const n = nodes[field];
      n.err.textContent = msg;
      n.row.classList.add('bad');
    }
  }

  /* ---- runs: everything the event stream says, per run id ---- */

  const runs = new Map();
  let selectedId = null, lastEventId = 0;
  let serverGen = 0; // bumped when the server restarts: its run ids start again

  function runOf(id) {
    const old = runs.get(id);
    if (old && old.gen !== serverGen) runs.delete(id);
    if (!runs.has(id)) {
      runs.set(id, { id, gen: serverGen, args: [], state: 'running', error: '', lines: [], cleared: 0, model: C.createModel() });
      if (selectedId === null) selectedId = id;
    }
    return runs.get(id);
  }

  function onRunEvent(d) {
    const r = runOf(d.id);
    if (Array.isArray(d.args)) r.args = d.args;
    if (d.state) r.state = d.state;
    r.started_ms = d.started_ms;
    select(d.id); // draw the run started last
  }

  function onStateEvent(d) {
    const r = runOf(d.id);
    r.state = d.state || r.state;
    r.error = d.error || '';
    updateRunList();
    if (d.id === selectedId) showRunError(r);
    updateButtons();
  }

  function onTextEvent(d) {
    const r = runOf(d.id);
    r.lines.push(String(d.line));
    if (d.id === selectedId) queueLine(String(d.line));
  }

  function onRecEvent(d) {
    const r = runOf(d.id);
    r.model.add(d.rec);
    if (d.id === selectedId) scheduleDraw();
  }

  function select(id) {
    selectedId = id;
    const r = runs.get(id);
    updateRunList();
    $('text').textContent = r ? r.lines.slice(r.cleared).join('\n') + (r.lines.length > r.cleared ? '\n' : '') : '';
    pendingLines = [];
    $('text').scrollTop = $('text').scrollHeight;
    zoomed = false;
    destroyPlots();
    showRunError(r);
    scheduleDraw();
    updateButtons();
  }

  function updateRunList() {
    const sel = $('runs');
    sel.replaceChildren(...[...runs.values()].sort((a, b) => b.id - a.id).map((r) => el('option', {
      value: String(r.id), selected: r.id === selectedId,
      textContent: '#' + r.id + ' ' + r.state + ' — ' + F.commandLine(r.args.map(String)),
    })));
  }

  function showRunError(r, view) {
    const box = $('run-error');
    const msg = r ? r.error || ((view || r.model.view()).error) || '' : '';
    box.hidden = !msg;
    box.textContent = msg;
  }

  function updateButtons() {
    const r = runs.get(selectedId);
    const running = !!r && r.state === 'running';
    // Runs may overlap (a server from the page and a client against it), so only the
    // form's own errors hold Start back.
    $('start').disabled = Object.keys(current.errors).length > 0 || starting;
    $('stop').disabled = !running;
  }

  /* ---- the event stream: one EventSource, resumed after the last id seen ---- */

  let source = null, wasDown = false;

  function connect() {
    const q = new URLSearchParams({ since: String(lastEventId) });
    if (token) q.set('token', token);
    source = new EventSource('/api/events?' + q.toString());
    const handlers = { run: onRunEvent, state: onStateEvent, text: onTextEvent, rec: onRecEvent };
    for (const [name, fn] of Object.entries(handlers)) {
      source.addEventListener(name, (e) => {
        const id = Number(e.lastEventId);
        if (id && id <= lastEventId) return; // a replay after reconnecting
        if (id) lastEventId = id;
        let d;
        try { d = JSON.parse(e.data); } catch (err) { return; }
        if (d && d.id != null) fn(d);
      });
    }
    source.onopen = () => {
      setLive(true);
      if (wasDown) checkRestart();
      wasDown = false;
    };
    source.onerror = () => {
      setLive(false);
      wasDown = true;
      if (source.readyState === EventSource.CLOSED) { // the browser gave up: retry ourselves
        source = null;
        setTimeout(connect, 3000);
      }
    };
  }

  // A restarted server has a new CSRF token and counts events from 1 again: the browser's
  // Last-Event-ID would hide them, so start a fresh stream from the beginning.
  async function checkRestart() {
    const info = await request('GET', '/api/info');
    if (!info.ok || !info.json.csrf || info.json.csrf === csrf) return false;
    csrf = info.json.csrf;
    lastEventId = 0;
    serverGen++;
    if (source) {
      source.close();
      connect();
    }
    return true;
  }

  function setLive(up) {
    $('live').textContent = up ? '● live' : '○ reconnecting…';
    $('live').classList.toggle('down', !up);
  }

  /* ---- the text pane: lines batched per frame, auto-scroll when at the bottom ---- */

  let pendingLines = [];
  let frame = 0, drawPending = false;

  function queueLine(line) {
    pendingLines.push(line);
    schedule();
  }

  function schedule() {
    if (!frame) frame = requestAnimationFrame(onFrame);
  }

  function scheduleDraw() {
    drawPending = true;
    schedule();
  }

  function onFrame() {
    frame = 0;
    if (pendingLines.length) {
      const pre = $('text');
      const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 24;
      pre.append(document.createTextNode(pendingLines.join('\n') + '\n'));
      pendingLines = [];
      if (atBottom) pre.scrollTop = pre.scrollHeight;
    }
    if (drawPending) {
      drawPending = false;
      draw();
    }
  }

  /* ---- charts ---- */

  const PANELS = [['bps', 'Throughput', 260], ['jitter', 'Jitter', 150], ['loss', 'Loss', 150],
    ['rtt', 'RTT', 150], ['cwnd', 'Congestion window', 150], ['retr', 'Retransmits', 140]];
  const PALETTE = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#0891b2', '#db2777', '#65a30d', '#7c3aed', '#ea580c', '#0d9488'];
  const plots = {}; // panel name -> {u, sig, box}
  let zoomed = false, syncing = false;

  function fmt(v) {
    if (v == null) return '–';
    if (Number.isInteger(v)) return String(v); // counts: packets, segments
    const a = Math.abs(v);
    return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toPrecision(2);
  }

  function plotOpts(name, title, height, p) {
    let stream = 0;
    const series = [{ label: 'time (s)', value: (u, v) => (v == null ? '–' : v.toFixed(2)) }];
    for (const s of p.series) {
      const color = s.kind === 'sum' ? '#102a43' : s.kind === 'rev' ? '#c2410c' : PALETTE[stream++ % PALETTE.length];
      series.push({
        label: s.label, stroke: color, width: s.kind === 'stream' ? 1.25 : 2,
        dash: s.kind === 'rev' ? [6, 3] : undefined, scale: s.scale || 'y',
        value: (u, v) => fmt(v), points: { show: p.data[0].length <= 60 },
      });
    }
    // Rates, times and counts start at zero: an axis from 99.5 to 100.5 would make noise look big.
    const fromZero = { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1] };
    // Time starts at the test's start (or before it, for -O), not at the first report.
    // A zoom (min past the first report) is kept as chosen.
    const x = { time: false, range: (u, min, max) => [min > u.data[0][0] ? min : Math.min(0, min), max] };
    const scales = { x, y: fromZero, '%': fromZero, packets: fromZero };
    // Only the main panel names the time axis: the small ones below share it.
    const axes = [name === 'bps' ? { label: 'seconds' } : {}, { label: p.unit, scale: p.series[0].scale || 'y' }];
    if (name === 'loss') axes.push({ label: 'packets', scale: 'packets', side: 1, grid: { show: false } });
    return {
      title, height, width: panelWidth(name), scales, series, axes,
      cursor: { sync: { key: 'lp' }, drag: { x: true, y: false } },
      hooks: { setScale: [(u, key) => { if (key === 'x') onZoom(u); }], setCursor: [showLatest] },
    };
  }

  // The throughput panel spans the width; the small ones pair up when there is room.
  function panelWidth(name) {
    const w = $('charts').clientWidth - 30; // less the padding
    return Math.max(280, name === 'bps' || w < 760 ? w : Math.floor((w - 16) / 2)); // 16: the gap
  }

  // Away from the cursor the legend shows the latest values, like JPerf's legend did.
  function showLatest(u) {
    const n = u.data[0].length;
    if (n && !(u.cursor.left >= 0)) u.setLegend({ idx: n - 1 }, false);
  }

  // Zoom is shared by every panel; while zoomed, new data keeps the chosen window.
  function onZoom(u) {
    if (syncing) return;
    const xs = u.data[0];
    const { min, max } = u.scales.x;
    zoomed = xs.length > 1 && (min > xs[0] + 1e-9 || max < xs[xs.length - 1] - 1e-9);
    syncing = true;
    for (const p of Object.values(plots)) if (p.u !== u) p.u.setScale('x', { min, max });
    syncing = false;
  }

  function destroyPlots() {
    for (const [name, p] of Object.entries(plots)) {
      p.u.destroy();
      p.box.remove();
      delete plots[name];
    }
  }

  function draw() {
    const r = runs.get(selectedId);
    const view = r ? r.model.view() : null;
    const charts = $('charts');
    let any = false;
    for (const [name, title, height] of PANELS) {
      const p = view && view[name];
      const has = p && p.series.length && p.data[0].length;
      const old = plots[name];
      if (!has) {
        if (old) { old.u.destroy(); old.box.remove(); delete plots[name]; }
        continue;
      }
      any = true;
      const sig = p.signature + '/' + p.unit;
      if (old && old.sig === sig) {
        old.u.setData(p.data, !zoomed);
        showLatest(old.u);
        continue;
      }
      if (old) { old.u.destroy(); old.box.remove(); }
      const box = el('div', { className: 'panel ' + name });
      const before = PANELS.slice(PANELS.findIndex((x) => x[0] === name) + 1).map((x) => plots[x[0]]).find(Boolean);
      charts.insertBefore(box, before ? before.box : null);
      plots[name] = { u: new window.uPlot(plotOpts(name, title + ' (' + p.unit + ')', height, p), p.data, box), sig, box };
      showLatest(plots[name].u);
    }
    $('no-data').hidden = any;
    drawSummary(view);
    showRunError(r, view);
  }

  function drawSummary(view) {
    const t = $('summary');
    const rows = view ? view.summary : [];
    t.hidden = !rows.length;
    if (!rows.length) return t.replaceChildren();
    const udp = rows.some((x) => x.packets != null);
    const head = ['', 'seconds', 'transfer', 'bitrate'].concat(udp ? ['jitter', 'lost/total'] : ['retransmits']);
    const bytes = (b) => { const u = C.chooseByteUnit(b); return fmt(b / u.div) + ' ' + u.label; };
    const cells = (x) => [x.label, x.seconds == null ? '' : x.seconds.toFixed(2), x.bytes == null ? '' : bytes(x.bytes),
      x.bps == null ? '' : C.formatRate(x.bps)].concat(udp
      ? [x.jitter_ms == null ? '' : x.jitter_ms.toFixed(3) + ' ms',
        x.lost_packets == null ? (x.packets == null ? '' : x.packets + ' sent') : x.lost_packets + '/' + x.packets + ' (' + fmt(x.lost_percent || 0) + '%)']
      : [x.retransmits == null ? '' : String(x.retransmits)]);
    t.replaceChildren(el('tr', {}, head.map((h) => el('th', { textContent: h }))),
      ...rows.map((x) => el('tr', {}, cells(x).map((c) => el('td', { textContent: c })))));
  }

  let resizeFrame = 0;
  new ResizeObserver(() => {
    cancelAnimationFrame(resizeFrame);
    resizeFrame = requestAnimationFrame(() => {
      for (const [name, p] of Object.entries(plots)) p.u.setSize({ width: panelWidth(name), height: p.u.height });
    });
  }).observe($('charts'));

  /* ---- toolbar ---- */

  let starting = false;

  async function start() {
    refresh();
    if (Object.keys(current.errors).length || starting) return;
    starting = true;
    updateButtons();
    const args = current.args;
    const r = await api('POST', '/api/run', { args });
    starting = false;
    if (!r.ok || r.json.id == null) {
      showServerError(r.json, r.status);
      return updateButtons();
    }
    const run = runOf(r.json.id);
    if (!run.args.length) run.args = args;
    select(r.json.id);
  }

  async function stop() {
    const id = selectedId;
    if (id == null) return;
    $('stop').disabled = true;
    const r = await api('POST', '/api/stop', { id });
    if (!r.ok) setCheck('bad', r.json.error || 'stop failed (' + r.status + ')');
  }

  function saveText() {
    const r = runs.get(selectedId);
    const text = r ? r.lines.slice(r.cleared).join('\n') + '\n' : '';
    const a = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/plain' })), download: 'linkperf-run-' + (r ? r.id : 0) + '.txt' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  function importJperf(file) {
    const reader = new FileReader();
    reader.onload = () => {
      const res = F.parseJperf(String(reader.result));
      writeForm(res.state);
      refresh();
      const items = res.errors.map((e) => 'rejected ' + e.key + '=' + e.value + ': ' + e.message)
        .concat(res.notes, res.ignored.length ? ['ignored unknown keys: ' + res.ignored.join(', ')] : []);
      $('notice-body').replaceChildren(el('strong', { textContent: 'Imported ' + file.name }),
        el('ul', {}, items.map((t) => el('li', { textContent: t }))));
      $('notice').hidden = false;
    };
    reader.readAsText(file);
  }

  async function copyCommand() {
    const text = $('cmd').textContent;
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) { // no clipboard API on plain http from another host: select it instead
      const range = document.createRange();
      range.selectNodeContents($('cmd'));
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      document.execCommand('copy');
    }
    $('copy').textContent = 'Copied';
    setTimeout(() => { $('copy').textContent = 'Copy'; }, 1200);
  }

  /* ---- start-up ---- */

  async function init() {
    buildForm();
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem(STORE) || 'null'); } catch (e) { /* ignore */ }
    writeForm(saved || F.defaults());
    $('form').addEventListener('input', refresh);
    $('form').addEventListener('change', refresh);
    $('form').addEventListener('submit', (e) => { e.preventDefault(); if (!$('start').disabled) start(); });
    $('start').addEventListener('click', start);
    $('stop').addEventListener('click', stop);
    $('copy').addEventListener('click', copyCommand);
    $('defaults').addEventListener('click', () => { writeForm(F.defaults()); refresh(); });
    $('import').addEventListener('change', (e) => { if (e.target.files[0]) importJperf(e.target.files[0]); e.target.value = ''; });
    $('notice-close').addEventListener('click', () => { $('notice').hidden = true; });
    $('runs').addEventListener('change', (e) => select(Number(e.target.value)));
    $('clear').addEventListener('click', () => {
      const r = runs.get(selectedId);
      if (r) r.cleared = r.lines.length;
      $('text').textContent = '';
      pendingLines = [];
    });
    $('save').addEventListener('click', saveText);

    const info = await api('GET', '/api/info');
    if (info.ok) {
      csrf = info.json.csrf || '';
      $('version').textContent = info.json.version || '';
    } else {
      setCheck('bad', info.json.error || 'GET /api/info failed (' + info.status + ')');
    }
    refresh();
    // Runs already going when the page opened; their events come from the stream below.
    const st = await api('GET', '/api/status');
    for (const x of (st.ok && Array.isArray(st.json.runs)) ? st.json.runs : []) {
      const r = runOf(x.id);
      r.args = Array.isArray(x.args) ? x.args : r.args;
      r.state = x.state || r.state;
      r.started_ms = x.started_ms;
    }
    const latest = [...runs.keys()].sort((a, b) => b - a)[0];
    if (latest != null) select(latest);
    connect();
  }

  init();
})();
