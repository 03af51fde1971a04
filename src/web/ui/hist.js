/* Pure logic of the page's history, downloads and server view: query strings, table cells,
 * and the per-test bookkeeping of a server run (every rec/text event carries "test": N).
 * No DOM, so that Node tests it; app.js draws. */
(function (root) {
  'use strict';

  const C = root.LPChart || (typeof require === 'function' ? require('./chart.js') : null);

  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

  // "YYYY-MM-DD" (an <input type=date>) -> ms since the epoch of that local midnight, or 0.
  function dayStart(text) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(text || ''));
    if (!m) return 0;
    const t = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime();
    return Number.isFinite(t) ? t : 0;
  }

  // The filters of the history view -> the query of GET /api/history. "to" is inclusive: the
  // runs of that whole day, so until is the next local midnight.
  function historyQuery(f) {
    const q = new URLSearchParams();
    const text = String((f && f.q) || '').trim();
    if (text) q.set('q', text);
    if (f && (f.proto === 'tcp' || f.proto === 'udp')) q.set('proto', f.proto);
    const since = dayStart(f && f.from);
    if (since) q.set('since', String(since));
    const to = dayStart(f && f.to);
    if (to) {
      const d = new Date(to);
      d.setDate(d.getDate() + 1);
      q.set('until', String(d.getTime()));
    }
    if (f && f.limit) q.set('limit', String(f.limit));
    const s = q.toString();
    return '/api/history' + (s ? '?' + s : '');
  }

  // A GET URL that also works as a plain link (a download): the token in the query, since a
  // link cannot send the X-Linkperf-Token header.
  function withToken(path, token) {
    if (!token) return path;
    return path + (path.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token);
  }

  const pad = (n) => String(n).padStart(2, '0');
  function formatDate(ms) {
    if (num(ms) === null) return '';
    const d = new Date(ms);
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
      pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  }

  function formatBytes(b) {
    if (num(b) === null) return '';
    const u = C.chooseByteUnit(b);
    const v = b / u.div;
    return (v >= 100 || u.div === 1 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ' + u.label;
  }

  const formatRate = (bps) => (num(bps) === null || bps === 0 ? '' : C.formatRate(bps));
  const formatSeconds = (s) => (num(s) === null ? '' : s.toFixed(s >= 100 ? 0 : 1) + ' s');

  // What the history says about how a run ended: complete (its end record came, not cut
  // short; shown as "done", the word of the run list), stopped, failed (an error was
  // recorded) or incomplete (killed, or still going). Every row shows one.
  // The history keeps no end state, only complete and the last error: a test stopped with
  // Stop (or Ctrl-C) ends with iperf3's "interrupt - ..." message, which is no failure.
  function runStatus(run) {
    if (run && !run.complete && /^interrupt\b/.test(String(run.error || ''))) {
      return { key: 'stopped', text: 'stopped', title: 'stopped before its end (' + run.error + '): incomplete' };
    }
    if (run && run.error) return { key: 'failed', text: 'failed', title: String(run.error) };
    if (run && run.complete) return { key: 'complete', text: 'done', title: 'complete: the test ran to its end' };
    return { key: 'incomplete', text: 'incomplete', title: 'no complete end record: the test was stopped, cut short or is still running' };
  }

  // The cells of one history row.
  function rowCells(run) {
    const peer = run.host ? run.host + (run.port ? ':' + run.port : '') : '';
    return {
      id: run.id,
      date: formatDate(run.started_ms),
      source: String(run.source || '') + (run.role === 'server' ? ' (server)' : ''),
      command: String(run.command || ''),
      peer,
      proto: String(run.proto || '').toUpperCase(),
      duration: formatSeconds(num(run.duration_s)),
      bytes: formatBytes(num(run.bytes)),
      sent: formatRate(num(run.bps_sent)),
      received: formatRate(num(run.bps_received)),
      status: runStatus(run),
    };
  }

  const isServerArgs = (args) => Array.isArray(args) && args.some((a) => a === '-s' || a === '--server');

  // File names for exports of a run shown in the page.
  const fileName = (id, ext) => 'linkperf-run-' + id + '.' + ext;

  /* ---- the tests of a server run ---- */

  // Test 0 is the server itself (its "listening" lines, a bind error); tests 1.. are the
  // incoming ones, each with its own chart model, text lines, peer, protocol and state.
  function createTests() {
    const tests = new Map();

    function get(id) {
      const k = Number(id) || 0;
      if (!tests.has(k)) {
        tests.set(k, { id: k, peer: '', proto: '', state: k === 0 ? 'server' : 'running', error: '',
          lines: [], model: C.createModel(), points: 0, lastBps: null, started: 0 });
      }
      return tests.get(k);
    }

    function rec(id, r) {
      const t = get(id);
      if (!r || typeof r !== 'object') return t;
      const d = r.data || {};
      if (r.event === 'start') {
        const acc = d.accepted_connection || d.connecting_to;
        const conn = Array.isArray(d.connected) && d.connected[0];
        if (acc && acc.host) t.peer = acc.host + (acc.port ? ':' + acc.port : '');
        else if (conn && conn.remote_host) t.peer = conn.remote_host + (conn.remote_port ? ':' + conn.remote_port : '');
        t.proto = (d.test_start && d.test_start.protocol) || t.proto;
        if (d.timestamp && num(d.timestamp.timesecs) !== null) t.started = d.timestamp.timesecs * 1000;
        if (t.id !== 0) t.state = 'running';
      } else if (r.event === 'interval' && d && d.sum) {
        t.points++;
        t.lastBps = num(d.sum.bits_per_second);
      } else if (r.event === 'end') {
        if (t.state === 'running') t.state = 'done';
      } else if (r.event === 'error') {
        t.error = typeof d === 'string' ? d : JSON.stringify(d);
        if (t.id !== 0) t.state = 'failed';
      }
      t.model.add(r);
      return t;
    }

    function text(id, line) {
      const t = get(id);
      t.lines.push(String(line));
      return t;
    }

    // The run is over: tests without an end were cut short.
    function runEnded(state) {
      for (const t of tests.values()) if (t.id !== 0 && t.state === 'running') t.state = state === 'failed' ? 'failed' : 'stopped';
    }

    // Incoming tests, newest first (test 0 is not one).
    const list = () => [...tests.values()].filter((t) => t.id !== 0).sort((a, b) => b.id - a.id);

    return { get, rec, text, runEnded, list, has: (id) => tests.has(Number(id) || 0) };
  }

  const api = { dayStart, historyQuery, withToken, formatDate, formatBytes, formatRate, formatSeconds,
    runStatus, rowCells, isServerArgs, fileName, createTests };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.LPHist = api;
})(typeof window !== 'undefined' ? window : globalThis);
