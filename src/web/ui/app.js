/* Browser glue for `linkperf ui`: reads the options document (GET /api/options) and draws
 * the form that LPForm.create builds from it, shows the command line, talks to the server's
 * JSON/SSE API and draws runs with uPlot. The logic lives in form.js and chart.js; text from
 * the server only ever goes in through textContent. */
(function () {
  'use strict';

  const $ = (id) => document.getElementById(id);
  const el = (tag, props, kids) => {
    const e = document.createElement(tag);
    Object.assign(e, props || {});
    for (const k of kids || []) e.append(k);
    return e;
  };
  const C = window.LPChart, H = window.LPHist, P = window.LPPlots;
  // The form: LPForm's pure helpers until init() has the options document, then the fields
  // LPForm.create builds from it.
  let F = window.LPForm;

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
    if (f.help) row.title = f.flag + ': ' + f.help; // the option's --help line
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
  // A form nobody has touched is not in error: a field's message shows once it was edited,
  // every message once settings were loaded into the form (a run's, a profile, a .jperf).
  const touched = new Set();
  let revealAll = false;
  const shown = (name) => revealAll || touched.has(name);
  function touch(e) {
    for (const f of F.FIELDS) if (nodes[f.name].inputs.includes(e.target)) touched.add(f.name);
  }

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
      const msg = live && shown(f.name) ? errors[f.name] || serverErrors[f.name] || '' : '';
      n.err.textContent = msg;
      n.row.classList.toggle('bad', !!msg);
    }
    showCommand(s, args);
    const ok = Object.keys(errors).length === 0;
    $('cmd').parentNode.classList.toggle('invalid', Object.keys(errors).some(shown));
    updateButtons();
    if (!changed) return;
    clearTimeout(checkTimer);
    if (!ok) return setCheck('', '');
    setCheck('', 'checking…');
    checkTimer = setTimeout(() => serverCheck(args), 300);
  }

  // The command line of the form. A client or measurement without its server's address yet
  // shows a placeholder where the address goes (not the shell's '' of an empty word), and
  // Copy waits for a command that can be run.
  function showCommand(s, args) {
    const flag = F.FIELDS.find((f) => f.name === 'host').flag;
    const at = s.host === '' && F.applies('host', s) ? args.findIndex((a, i) => a === flag && args[i + 1] === '') : -1;
    if (at < 0) {
      $('cmd').textContent = F.commandLine(args);
    } else {
      const words = (list) => list.map((a) => ' ' + F.shellQuote(a)).join('');
      $('cmd').replaceChildren(F.commandLine(args.slice(0, at + 1)) + ' ',
        el('span', { className: 'pending', textContent: '<host>', title: "enter the server's address in the form" }),
        words(args.slice(at + 2)));
    }
    $('copy').disabled = at >= 0;
    $('copy').title = at >= 0 ? "not yet: enter the server's address" : '';
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
      runs.set(id, { id, gen: serverGen, args: [], state: 'running', error: '', lines: [], cleared: 0,
        model: C.createModel(), tests: H.createTests(), server: false, measure: '', report: null, progress: null });
      if (selectedId === null) selectedId = id;
    }
    return runs.get(id);
  }

  function onRunEvent(d) {
    const r = runOf(d.id);
    if (Array.isArray(d.args)) r.args = d.args;
    r.server = H.isServerArgs(r.args);
    r.measure = C.measureOf(r.args);
    if (d.state) r.state = d.state;
    r.started_ms = d.started_ms;
    select(d.id); // draw the run started last
  }

  function onStateEvent(d) {
    const r = runOf(d.id);
    r.state = d.state || r.state;
    r.error = d.error || '';
    if (r.state !== 'running') r.tests.runEnded(r.state);
    updateRunList();
    if (d.id === selectedId) scheduleDraw();
    updateButtons();
    if (r.state !== 'running') historyChanged(); // the run's row now has its totals
  }

  function onTextEvent(d) {
    const r = runOf(d.id);
    const line = String(d.line);
    r.lines.push(line);
    r.tests.text(d.test, line);
    if (d.id !== selectedId) return;
    if (!r.server || shownTest(r) === null || shownTest(r) === (Number(d.test) || 0)) queueLine(line);
    if (r.server) scheduleDraw(); // a test's first line may come before its first record
  }

  function onRecEvent(d) {
    const r = runOf(d.id);
    r.model.add(d.rec);
    r.tests.rec(d.test, d.rec);
    if (d.id === selectedId) scheduleDraw();
    if (r.server && d.rec && d.rec.event === 'end') historyChanged(); // a server's test is recorded at its end
  }

  // A measurement's progress (rfc2544, under-load: what is tried, the time left) and report.
  function onProgressEvent(d) {
    const r = runOf(d.id);
    r.progress = C.progressOf(d.progress);
    if (d.id === selectedId) scheduleDraw();
  }

  function onReportEvent(d) {
    const r = runOf(d.id);
    r.report = d.report;
    if (d.id === selectedId) scheduleDraw();
  }

  function select(id) {
    selectedId = id;
    const r = runs.get(id);
    // A narrow screen stacks the results under the form (app.css): once there is a run to
    // show they come first.
    document.body.classList.toggle('has-run', !!r);
    updateRunList();
    pinnedTest = null;
    shownTestId = null;
    clearCards();
    liveSet.destroy();
    showText(r);
    showRunBanner(r);
    scheduleDraw();
    updateButtons();
  }

  // The text pane: the run's lines, or for a server run the lines of the test shown.
  function showText(r) {
    const t = r && r.server ? shownTest(r) : null;
    const lines = !r ? [] : t === null ? r.lines.slice(r.cleared) : r.tests.get(t).lines;
    $('text').textContent = lines.length ? lines.join('\n') + '\n' : '';
    pendingLines = [];
    $('text').scrollTop = $('text').scrollHeight;
    $('output-of').textContent = r && r.server && t !== null ? (t === 0 ? '(the server)' : '(test ' + t + ')') : '';
  }

  function updateRunList() {
    const sel = $('runs');
    sel.replaceChildren(...[...runs.values()].sort((a, b) => b.id - a.id).map((r) => el('option', {
      value: String(r.id), selected: r.id === selectedId,
      textContent: '#' + r.id + ' ' + r.state + ' — ' + F.commandLine(r.args.map(String)),
    })));
  }

  // The banner over the live charts: the run's error, or that it was stopped. A run ended
  // with Stop (or Ctrl-C on the server side) also gets iperf3's "interrupt - the client has
  // terminated" error record: that is how a stop looks on the wire, not a failure.
  function showRunBanner(r, view) {
    const box = $('run-banner');
    const msg = r ? r.error || ((view || r.model.view()).error) || '' : '';
    const stopped = !!r && (r.state === 'stopped' || (r.stopRequested && /^interrupt\b/.test(msg)));
    const text = stopped ? (r.state === 'stopped' ? 'Stopped' : 'Stopping…') + ' — the charts and the output keep what was measured until then.' : msg;
    box.hidden = !text;
    box.textContent = text;
    box.className = stopped ? 'run-note' : 'run-error';
    if (stopped && msg) box.title = msg; // the peer's words, for the curious
    else box.removeAttribute('title');
  }

  /* ---- a server run: its incoming tests, each with a card (a small chart) ---- */

  let pinnedTest = null;  // a test the user clicked
  let shownTestId = null; // the test whose text is in the pane
  const cards = new Map(); // test id -> {box, head, set}

  // Which test a server run shows: the one clicked, else the newest (the server itself until
  // a client comes). null: not a server run.
  function shownTest(r) {
    if (!r || !r.server) return null;
    if (pinnedTest !== null && r.tests.has(pinnedTest)) return pinnedTest;
    const list = r.tests.list();
    return list.length ? list[0].id : 0;
  }

  function clearCards() {
    for (const c of cards.values()) { c.set.destroy(); c.box.remove(); }
    cards.clear();
  }

  const MAX_CARDS = 24; // a server that runs for days: the newest tests get a card

  function drawServer(r) {
    const all = r.tests.list();
    const list = all.filter((t, i) => i < MAX_CARDS || t.id === pinnedTest);
    $('server-tests').hidden = false;
    $('server-info').textContent = all.length ? all.length + (all.length === 1 ? ' test' : ' tests') +
      ', ' + all.filter((t) => t.state === 'running').length + ' running' +
      (all.length > list.length ? ' (the newest ' + MAX_CARDS + ' shown)' : '') : 'waiting for a client…';
    const want = shownTest(r);
    if (want !== shownTestId) {
      shownTestId = want;
      liveSet.destroy();
      showText(r);
    }
    const box = $('test-cards');
    list.forEach((t, i) => {
      let c = cards.get(t.id);
      if (!c) {
        const cbox = el('div', { className: 'test-card', tabIndex: 0 });
        cbox.dataset.test = String(t.id);
        const head = el('div', { className: 'test-head' });
        const chart = el('div', { className: 'test-chart' });
        cbox.append(head, chart);
        const pick = () => { pinnedTest = t.id; scheduleDraw(); };
        cbox.addEventListener('click', pick);
        cbox.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(); } });
        c = { box: cbox, head, set: P.createChartSet(chart, { panels: ['bps'], heights: { bps: 100 }, width: () => 256, compact: true }) };
        cards.set(t.id, c);
      }
      if (box.children[i] !== c.box) box.insertBefore(c.box, box.children[i] || null);
      c.box.dataset.state = t.state;
      c.box.dataset.peer = t.peer;
      c.box.dataset.points = String(t.points);
      c.box.classList.toggle('on', t.id === want);
      c.head.replaceChildren(el('strong', { textContent: 'test ' + t.id }), ' ',
        el('span', { className: 'peer', textContent: t.peer || 'connecting…' }), ' ',
        el('span', { className: 'proto', textContent: t.proto || '' }), ' ',
        el('span', { className: 'state ' + t.state, textContent: t.state }),
        el('div', { className: 'rate muted', textContent: t.lastBps != null ? C.formatRate(t.lastBps) + (t.state === 'running' ? ' now' : ' last') : '' }));
      c.box.title = t.error || '';
      c.set.draw(t.model.view());
    });
    for (const [id, c] of cards) if (!list.some((t) => t.id === id)) { c.set.destroy(); c.box.remove(); cards.delete(id); }
    return want === null ? null : r.tests.get(want).model.view();
  }

  let startTitle = null; // index.html's, shown while nothing holds Start back
  function updateButtons() {
    const r = runs.get(selectedId);
    const running = !!r && r.state === 'running';
    // Runs may overlap (a server from the page and a client against it), so only the
    // form's own errors hold Start back.
    const first = Object.values(current.errors)[0];
    $('start').disabled = !!first || starting;
    if (startTitle === null) startTitle = $('start').title;
    $('start').title = first ? 'not yet: ' + first : startTitle;
    $('stop').disabled = !running;
  }

  /* ---- the event stream: one EventSource, resumed after the last id seen ---- */

  let source = null, wasDown = false;

  function connect() {
    const q = new URLSearchParams({ since: String(lastEventId) });
    if (token) q.set('token', token);
    source = new EventSource('/api/events?' + q.toString());
    const handlers = { run: onRunEvent, state: onStateEvent, text: onTextEvent, rec: onRecEvent,
      progress: onProgressEvent, report: onReportEvent };
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
  let frame = 0, frameTimer = 0, drawPending = false;

  function queueLine(line) {
    pendingLines.push(line);
    schedule();
  }

  // A frame, or half a second, whichever comes first: a browser that holds animation frames
  // back (a background tab, a renderer it throttles) still sees the run's rows arrive.
  function schedule() {
    if (frame) return;
    frame = requestAnimationFrame(onFrame);
    frameTimer = setTimeout(() => { cancelAnimationFrame(frame); onFrame(); }, 500);
  }

  function scheduleDraw() {
    drawPending = true;
    schedule();
  }

  function onFrame() {
    frame = 0;
    clearTimeout(frameTimer);
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

  /* ---- charts (plots.js draws; here: which view goes where) ---- */

  let liveSet = null, liveXY = null; // created at start-up, once #charts exists

  function draw() {
    const r = runs.get(selectedId);
    let view = null;
    if (r && r.server) view = drawServer(r);
    else {
      $('server-tests').hidden = true;
      view = r && !r.measure ? r.model.view() : null;
    }
    const mv = r && r.measure ? C.measureView(r.report) : null;
    drawProgress(r);
    drawMeasureTable($('measure-table'), mv);
    const xy = liveXY.draw(mv ? mv.xy : view ? view.xy : []);
    const any = liveSet.draw(view) || xy;
    $('no-data').hidden = any;
    if (r && r.measure && !any) {
      $('no-data').textContent = r.state === 'running' ? 'A ' + r.measure + ' measurement: its charts are drawn from its report when it ends (what it tries now is above).'
        : 'This measurement left no report to draw.';
    } else if (r && r.server && !any) {
      $('no-data').hidden = false;
      $('no-data').textContent = 'A server: each incoming test is listed above with its chart; the one chosen is drawn here.';
    } else if (!any) {
      $('no-data').textContent = 'Start a test: its throughput is drawn here as it runs (drag to zoom, double-click to see the whole run).';
    }
    drawSummary($('summary'), view);
    showRunBanner(r, view);
  }

  // A measurement run: the line of what it tries now and a bar of the time it may take.
  function drawProgress(r) {
    const box = $('progress'), p = r && r.measure ? r.progress : null;
    box.hidden = !p;
    if (!p) return;
    const bar = box.querySelector('progress'), running = r.state === 'running';
    bar.hidden = !running || p.fraction === null;
    if (p.fraction !== null) bar.value = p.fraction;
    box.querySelector('span').textContent = running ? p.line : r.state + ' — last: ' + p.line;
  }

  const NUM = (v, d) => (v == null ? '' : v.toFixed(d));

  // A measurement's results as a table (the numbers of its report, as the CLI prints them).
  function drawMeasureTable(t, mv) {
    const rows = mv ? mv.table : [];
    t.hidden = !rows.length;
    if (!rows.length) return t.replaceChildren();
    let head, cells;
    if (mv.kind === 'rfc2544') {
      head = ['frame', '% line', 'frames/s', 'payload', 'RTT p50 (ms)', 'back-to-back'];
      cells = (x) => x.skipped ? [String(x.frame), 'skipped: the header does not fit', '', '', '', '']
        : [String(x.frame), NUM(x.line_percent, 2), NUM(x.frames_per_second, 0), x.payload_bps == null ? '' : C.formatRate(x.payload_bps),
          NUM(x.rtt_p50_ms, 3), x.back_to_back == null ? '' : x.back_to_back + ' frames'];
    } else {
      head = ['phase', 'up', 'down', 'RTT p50 (ms)', 'p99 (ms)', 'added p50/p99 (ms)'];
      cells = (x) => [x.phase, x.phase === 'up' || x.phase === 'both' ? C.formatRate(x.up_bps || 0) : '',
        x.phase === 'down' || x.phase === 'both' ? C.formatRate(x.down_bps || 0) : '', NUM(x.p50_ms, 3), NUM(x.p99_ms, 3),
        x.added_p50_ms == null ? '' : NUM(x.added_p50_ms, 3) + ' / ' + NUM(x.added_p99_ms, 3)];
    }
    t.replaceChildren(el('tr', {}, head.map((h) => el('th', { textContent: h }))),
      ...rows.map((x) => el('tr', {}, cells(x).map((c) => el('td', { textContent: c })))));
  }

  const fmt = P.fmt;

  function drawSummary(t, view) {
    const rows = view ? view.summary : [];
    t.hidden = !rows.length;
    if (!rows.length) return t.replaceChildren();
    const udp = rows.some((x) => x.packets != null);
    const head = ['', 'seconds', 'transfer', 'bitrate'].concat(udp ? ['jitter', 'lost/total'] : ['retransmits']);
    const bytes = (b) => { const u = C.chooseByteUnit(b); return fmt(b / u.div) + ' ' + u.label; };
    const NA = '—'; // a value this end does not know (never 0: that would be a measurement)
    const cells = (x) => [x.label, x.seconds == null ? NA : x.seconds.toFixed(2), x.bytes == null ? NA : bytes(x.bytes),
      x.bps == null ? NA : C.formatRate(x.bps)].concat(udp
      ? [x.jitter_ms == null ? NA : x.jitter_ms.toFixed(3) + ' ms',
        x.lost_packets == null ? (x.packets == null ? NA : x.packets + ' sent') : x.lost_packets + '/' + x.packets + ' (' + fmt(x.lost_percent || 0) + '%)']
      : [x.retransmits == null ? NA : String(x.retransmits)]);
    t.replaceChildren(el('tr', {}, head.map((h) => el('th', { textContent: h }))),
      ...rows.map((x) => el('tr', {}, cells(x).map((c) => el('td', { textContent: c })))));
  }

  // A link click that downloads: same origin, so the download attribute names the file.
  function download(href, name) {
    const a = el('a', { href, download: name });
    document.body.append(a);
    a.click();
    a.remove();
  }

  function downloadBlob(blob, name) {
    const url = URL.createObjectURL(blob);
    download(url, name);
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  /* ---- tabs ---- */

  function showTab(name) {
    for (const t of ['live', 'history']) {
      $('tab-' + t).setAttribute('aria-selected', String(t === name));
      $('view-' + t).hidden = t !== name;
    }
    if (name === 'history' && (histStale || !histLoaded)) loadHistory();
    requestAnimationFrame(() => { liveSet.resize(); histSet.resize(); });
  }

  /* ---- history: the runs the database recorded ---- */

  let histXY = null;
  let histSet = null, histRuns = [], histLoaded = false, histStale = false, histSeq = 0, histTimer = 0;
  const checked = new Set();
  let opened = null; // {kind: 'run', id, detail} or {kind: 'overlay', ids, details}

  const histVisible = () => !$('view-history').hidden;

  function historyChanged() {
    histStale = true;
    if (!histVisible()) return;
    clearTimeout(histTimer);
    histTimer = setTimeout(loadHistory, 250);
  }

  function histFilters() {
    return { q: $('hist-q').value, proto: $('hist-proto').value, from: $('hist-from').value, to: $('hist-to').value, limit: 500 };
  }

  async function loadHistory() {
    const seq = ++histSeq;
    histStale = false;
    const r = await api('GET', H.historyQuery(histFilters()));
    if (seq !== histSeq) return;
    histLoaded = true;
    if (!r.ok) {
      histRuns = [];
      renderHistory(r.json.error || 'GET /api/history failed (' + r.status + ')');
      return;
    }
    histRuns = Array.isArray(r.json.runs) ? r.json.runs : [];
    for (const id of [...checked]) if (!histRuns.some((x) => x.id === id)) checked.delete(id);
    renderHistory('');
  }

  function renderHistory(error) {
    const body = $('hist-table').tBodies[0];
    const openId = opened && opened.kind === 'run' ? opened.id : null;
    body.replaceChildren(...histRuns.map((run) => {
      const c = H.rowCells(run);
      if (c.status.key === 'incomplete' && liveRunOf(run)) c.status = { key: 'running', text: 'running', title: 'still running in this page' };
      const box = el('input', { type: 'checkbox', checked: checked.has(run.id) });
      box.setAttribute('aria-label', 'Select run ' + run.id);
      box.addEventListener('click', (e) => e.stopPropagation());
      box.addEventListener('change', () => {
        if (box.checked) checked.add(run.id); else checked.delete(run.id);
        updateHistButtons();
      });
      const status = el('span', { className: 'badge ' + c.status.key, textContent: c.status.text, title: c.status.title });
      const tr = el('tr', {}, [el('td', {}, [box]), el('td', { textContent: String(run.id) }),
        el('td', { textContent: c.date }), el('td', {}, [status]), el('td', { textContent: c.source }),
        el('td', { className: 'cmd', textContent: c.command, title: c.command }), el('td', { textContent: c.peer }),
        el('td', { textContent: c.proto }), el('td', { className: 'num', textContent: c.duration }),
        el('td', { className: 'num', textContent: c.bytes }), el('td', { className: 'num', textContent: c.sent }),
        el('td', { className: 'num', textContent: c.received })]);
      tr.dataset.id = String(run.id);
      tr.dataset.status = c.status.key;
      tr.dataset.proto = String(run.proto || '');
      tr.tabIndex = 0;
      tr.classList.toggle('on', run.id === openId || (opened && opened.kind === 'overlay' && opened.ids.includes(run.id)));
      tr.addEventListener('click', () => openRun(run.id));
      tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') openRun(run.id); });
      return tr;
    }));
    $('hist-count').textContent = error ? '' : histRuns.length + (histRuns.length === 1 ? ' run' : ' runs');
    $('hist-empty').hidden = !error && histRuns.length > 0;
    $('hist-empty').textContent = error || 'No runs match. Every test (CLI, server and this page) is recorded unless --no-history.';
    $('hist-all').checked = histRuns.length > 0 && histRuns.every((x) => checked.has(x.id));
    updateHistButtons();
  }

  // The history does not name the page's run id, so a row still being written is matched
  // to a running run of this page by its command line and start time.
  function liveRunOf(h) {
    if (h.source !== 'ui') return null;
    for (const r of runs.values()) {
      if (r.state !== 'running' || F.commandLine(r.args.map(String)) !== h.command) continue;
      const dt = (h.started_ms || 0) - (r.started_ms || 0);
      if (h.role === 'server' ? dt >= -2000 : Math.abs(dt) < 10000) return r;
    }
    return null;
  }

  function updateHistButtons() {
    const one = opened && opened.kind === 'run';
    $('hist-overlay').disabled = checked.size < 2;
    $('hist-overlay').textContent = 'Overlay selected' + (checked.size ? ' (' + checked.size + ')' : '');
    $('hist-delete').disabled = !checked.size && !one;
    $('hist-delete').textContent = checked.size ? 'Delete selected (' + checked.size + ')' : 'Delete';
    $('hist-use').disabled = !one;
    $('hist-csv').disabled = !one;
    $('hist-json').disabled = !one || !opened.detail.run.complete;
    $('hist-json').title = one && !opened.detail.run.complete ? 'an incomplete run has no iperf3 document' : 'The run as iperf3 -J output';
    $('hist-png').disabled = !histSet.shown().length;
  }

  function histError(msg) {
    $('hist-error').hidden = !msg;
    $('hist-error').textContent = msg || '';
  }

  async function openRun(id) {
    const r = await api('GET', '/api/history/' + id);
    if (!r.ok || !r.json.run) return histError(r.json.error || 'GET /api/history/' + id + ' failed (' + r.status + ')');
    histError('');
    opened = { kind: 'run', id, detail: r.json };
    const mv = C.measureView(r.json.report);
    const view = mv ? null : C.fromHistory(r.json);
    histSet.destroy();
    const xyAny = histXY.draw(mv ? mv.xy : view.xy);
    const any = histSet.draw(view) || xyAny;
    drawMeasureTable($('hist-measure'), mv);
    const run = r.json.run, st = H.runStatus(run);
    $('hist-hint').hidden = any;
    $('hist-hint').textContent = any ? '' : 'This run has no interval records to draw.';
    $('hist-info').textContent = '#' + run.id + ' · ' + H.formatDate(run.started_ms) + ' · ' + (run.command || '') + (st.text ? ' · ' + st.text : '');
    $('hist-info').title = $('hist-info').textContent;
    drawSummary($('hist-summary'), view);
    if (run.error) histError(run.error);
    renderHistory('');
  }

  async function overlaySelected() {
    const ids = histRuns.filter((x) => checked.has(x.id)).map((x) => x.id).reverse(); // oldest first
    if (ids.length < 2) return;
    const res = await Promise.all(ids.map((id) => api('GET', '/api/history/' + id)));
    const bad = res.findIndex((r) => !r.ok || !r.json.run);
    if (bad >= 0) return histError('GET /api/history/' + ids[bad] + ': ' + (res[bad].json.error || res[bad].status));
    histError('');
    const details = res.map((r) => r.json);
    opened = { kind: 'overlay', ids, details };
    histSet.destroy();
    histXY.destroy();
    drawMeasureTable($('hist-measure'), null);
    const any = histSet.drawOverlay(C.overlay(details), 'Throughput of ' + ids.length + ' runs, sum');
    $('hist-hint').hidden = any;
    $('hist-info').textContent = 'Overlay of ' + ids.map((i) => '#' + i).join(', ');
    $('hist-info').title = '';
    drawSummary($('hist-summary'), null);
    renderHistory('');
  }

  async function deleteRuns() {
    const ids = checked.size ? [...checked] : opened && opened.kind === 'run' ? [opened.id] : [];
    if (!ids.length || !confirm('Delete ' + (ids.length === 1 ? 'run #' + ids[0] : ids.length + ' runs') + ' from the history?')) return;
    const errors = [];
    for (const id of ids) {
      const r = await api('POST', '/api/history/delete', { id });
      if (!r.ok) errors.push('#' + id + ': ' + (r.json.error || r.status));
      checked.delete(id);
      if (opened && ((opened.kind === 'run' && opened.id === id) || (opened.kind === 'overlay' && opened.ids.includes(id)))) closeOpened();
    }
    histError(errors.length ? 'not deleted: ' + errors.join('; ') : '');
    loadHistory();
  }

  function closeOpened() {
    opened = null;
    histSet.destroy();
    histXY.destroy();
    drawMeasureTable($('hist-measure'), null);
    $('hist-hint').hidden = false;
    $('hist-hint').textContent = 'Click a run to draw it; tick two or more and press Overlay to compare them.';
    $('hist-info').textContent = '';
    drawSummary($('hist-summary'), null);
  }

  function exportRun(kind) {
    if (!opened || opened.kind !== 'run') return;
    const path = '/api/history/' + opened.id + (kind === 'csv' ? '/intervals.csv' : '/result.json');
    download(H.withToken(path, token), H.fileName(opened.id, kind));
  }

  async function exportPng() {
    const us = histSet.shown().concat(histXY.shown());
    if (!us.length) return;
    const heading = opened && opened.kind === 'run' ? '#' + opened.id + ' ' + (opened.detail.run.command || '') + ' — ' + H.formatDate(opened.detail.run.started_ms)
      : $('hist-info').textContent;
    const blob = await P.toPng(us, heading);
    const name = opened && opened.kind === 'run' ? H.fileName(opened.id, 'png') : 'linkperf-overlay-' + (opened ? opened.ids.join('-') : 'chart') + '.png';
    if (blob) downloadBlob(blob, name);
  }

  // The settings of a stored run back into the form (its command line, parsed).
  function useRunSettings() {
    if (!opened || opened.kind !== 'run') return;
    loadArgs(F.splitCommand(opened.detail.run.command || ''), 'Settings of run #' + opened.id);
    showTab('live');
  }

  function loadArgs(args, title) {
    const res = F.parseArgs(args);
    writeForm(res.state);
    revealAll = true;
    refresh();
    if (res.unknown.length) {
      $('notice-body').replaceChildren(el('strong', { textContent: title }),
        el('ul', {}, [el('li', { textContent: 'options the form has no field for, not loaded: ' + res.unknown.join(', ') })]));
      $('notice').hidden = false;
    }
  }

  /* ---- profiles: named settings in the history database ---- */

  let profiles = [];

  async function loadProfiles() {
    const r = await api('GET', '/api/profiles');
    profiles = r.ok && Array.isArray(r.json.profiles) ? r.json.profiles : [];
    $('profile-msg').textContent = r.ok ? (profiles.length ? '' : 'No profiles yet.') : r.json.error || 'GET /api/profiles failed (' + r.status + ')';
    $('profile-list').replaceChildren(...profiles.map((p) => {
      const load = el('button', { type: 'button', className: 'link', textContent: p.name, title: F.commandLine((p.args || []).map(String)) });
      load.addEventListener('click', () => {
        loadArgs(p.args || [], 'Profile ' + p.name);
        $('profile-name').value = p.name;
        $('profiles').open = false;
      });
      const del = el('button', { type: 'button', className: 'del', textContent: '×', title: 'Delete profile ' + p.name });
      del.setAttribute('aria-label', 'Delete profile ' + p.name);
      del.addEventListener('click', async () => {
        const d = await api('POST', '/api/profiles/delete', { name: p.name });
        if (!d.ok) $('profile-msg').textContent = d.json.error || 'delete failed (' + d.status + ')';
        else loadProfiles();
      });
      const li = el('li', {}, [load, el('span', { className: 'muted small', textContent: H.formatDate(p.saved_ms).slice(0, 16) }), del]);
      li.dataset.name = p.name;
      return li;
    }));
  }

  async function saveProfile(e) {
    e.preventDefault();
    const name = $('profile-name').value.trim();
    if (!name) { $('profile-msg').textContent = 'Enter a name.'; return; }
    refresh();
    const r = await api('POST', '/api/profiles/save', { name, args: current.args });
    if (!r.ok) { $('profile-msg').textContent = r.json.error || 'save failed (' + r.status + ')'; return; }
    await loadProfiles();
    $('profile-msg').textContent = 'Saved ' + name + '.';
  }

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
    run.server = H.isServerArgs(run.args);
    run.measure = C.measureOf(run.args);
    showTab('live');
    select(r.json.id);
    revealResults();
  }

  // What Start started is seen without scrolling: on a narrow screen the results are stacked
  // with the long form (app.css), and the page may be scrolled anywhere in it.
  function revealResults() {
    const box = $('charts').getBoundingClientRect();
    if (box.top >= innerHeight || box.bottom <= 0) document.querySelector('section.results').scrollIntoView({ block: 'start' });
  }

  async function stop() {
    const id = selectedId;
    if (id == null) return;
    $('stop').disabled = true;
    const run = runs.get(id);
    if (run) run.stopRequested = true;
    const r = await api('POST', '/api/stop', { id });
    if (!r.ok) setCheck('bad', r.json.error || 'stop failed (' + r.status + ')');
  }

  function saveText() {
    const r = runs.get(selectedId);
    const t = shownTest(r);
    const lines = !r ? [] : t === null ? r.lines.slice(r.cleared) : r.tests.get(t).lines;
    downloadBlob(new Blob([lines.join('\n') + '\n'], { type: 'text/plain' }),
      'linkperf-run-' + (r ? r.id : 0) + (t ? '-test-' + t : '') + '.txt');
  }

  function importJperf(file) {
    const reader = new FileReader();
    reader.onload = () => {
      const res = F.parseJperf(String(reader.result));
      writeForm(res.state);
      revealAll = true;
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
    // Every field's option, range and message words come from the binary's option table.
    const opts = await api('GET', '/api/options');
    try {
      F = window.LPForm.create(opts.json);
    } catch (e) {
      setCheck('bad', opts.json.error || 'GET /api/options failed (' + opts.status + '): ' + e.message);
      return;
    }
    buildForm();
    liveSet = P.createChartSet($('charts'));
    histSet = P.createChartSet($('hist-charts'), { heights: { bps: 280 } });
    liveXY = P.createXYSet($('xy-charts'));
    histXY = P.createXYSet($('hist-xy'));
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem(STORE) || 'null'); } catch (e) { /* ignore */ }
    writeForm(saved || F.defaults());
    $('form').addEventListener('input', (e) => { touch(e); refresh(); });
    $('form').addEventListener('change', (e) => { touch(e); refresh(); });
    $('form').addEventListener('submit', (e) => { e.preventDefault(); if (!$('start').disabled) start(); });
    $('start').addEventListener('click', start);
    $('stop').addEventListener('click', stop);
    $('copy').addEventListener('click', copyCommand);
    $('defaults').addEventListener('click', () => { writeForm(F.defaults()); touched.clear(); revealAll = false; refresh(); });
    $('import').addEventListener('change', (e) => { if (e.target.files[0]) importJperf(e.target.files[0]); e.target.value = ''; });
    $('notice-close').addEventListener('click', () => { $('notice').hidden = true; });
    $('runs').addEventListener('change', (e) => { showTab('live'); select(Number(e.target.value)); });
    $('clear').addEventListener('click', () => {
      const r = runs.get(selectedId);
      if (r && !r.server) r.cleared = r.lines.length;
      else if (r) r.tests.get(shownTest(r)).lines.length = 0;
      $('text').textContent = '';
      pendingLines = [];
    });
    $('save').addEventListener('click', saveText);
    $('live-png').addEventListener('click', async () => {
      const us = liveSet.shown().concat(liveXY.shown());
      const r = runs.get(selectedId);
      if (!us.length || !r) return;
      const t = shownTest(r);
      const blob = await P.toPng(us, F.commandLine(r.args.map(String)) + (t ? ' — test ' + t : '') + ' (' + r.state + ')');
      if (blob) downloadBlob(blob, 'linkperf-live-' + r.id + (t ? '-test-' + t : '') + '.png');
    });

    $('tab-live').addEventListener('click', () => showTab('live'));
    $('tab-history').addEventListener('click', () => showTab('history'));
    $('hist-filter').addEventListener('submit', (e) => { e.preventDefault(); loadHistory(); });
    let qTimer = 0;
    $('hist-q').addEventListener('input', () => { clearTimeout(qTimer); qTimer = setTimeout(loadHistory, 300); });
    for (const id of ['hist-proto', 'hist-from', 'hist-to']) $(id).addEventListener('change', loadHistory);
    $('hist-all').addEventListener('change', (e) => {
      for (const x of histRuns) if (e.target.checked) checked.add(x.id); else checked.delete(x.id);
      renderHistory('');
    });
    $('hist-overlay').addEventListener('click', overlaySelected);
    $('hist-delete').addEventListener('click', deleteRuns);
    $('hist-use').addEventListener('click', useRunSettings);
    $('hist-csv').addEventListener('click', () => exportRun('csv'));
    $('hist-json').addEventListener('click', () => exportRun('json'));
    $('hist-png').addEventListener('click', exportPng);
    $('profile-form').addEventListener('submit', saveProfile);
    $('profiles').addEventListener('toggle', () => { if ($('profiles').open) { loadProfiles(); $('profile-name').focus(); } });
    document.addEventListener('click', (e) => { if ($('profiles').open && !$('profiles').contains(e.target)) $('profiles').open = false; });
    document.addEventListener('keydown', (e) => { if (e.key === 'Escape') $('profiles').open = false; });

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
      r.server = H.isServerArgs(r.args);
      r.state = x.state || r.state;
      r.started_ms = x.started_ms;
    }
    const latest = [...runs.keys()].sort((a, b) => b - a)[0];
    if (latest != null) select(latest);
    connect();
  }

  init();
})();
