// Node tests of the page's history, profile and server-view logic (src/web/ui/form.js
// parseArgs/splitCommand, chart.js historyRecords/overlay, hist.js):
//   node --test tests/web/test_ui_history.mjs   (LINKPERF=path/to/linkperf, default build/)
// The stored-run fixtures are what GET /api/history/ID answered for real runs on loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { optionsDoc } from './lpbin.mjs';

const require = createRequire(import.meta.url);
const F = require('../../src/web/ui/form.js').create(optionsDoc());
const C = require('../../src/web/ui/chart.js');
const H = require('../../src/web/ui/hist.js');

const form = (over) => Object.assign(F.defaults(), over);
const close = (a, b, eps = 1e-6) => assert.ok(Math.abs(a - b) <= eps, a + ' is not ' + b);

/* ---- args -> form: the inverse of buildArgs ---- */

// A small seeded generator, so a failure names a state that can be rebuilt.
function rng(seed) {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
}

// Values each field may take in the form, typical and awkward ones (quotes, spaces, %dev).
const POOL = {
  mode: ['client', 'client', 'client', 'server'], host: ['192.0.2.7', 'board.local', 'fe80::1%eth0', 'h'],
  port: ['', '5001', '5201'], parallel: ['', '1', '4', '128'], listenPort: ['', '0', '5001'],
  allow: ['', '192.0.2.0/24,10.1.1.1'], maxConns: ['', '0', '3'], dialect: ['iperf3', 'iperf2'],
  transmitUnit: ['seconds', 'bytes'], transmit: ['', '0', '20', '100M'], format: ['', 'm', 'A', 'K'],
  interval: ['', '0', '0.5', '2'], dual: [false, true], tradeoff: [false, true], listenBack: ['', '5002'],
  file: ['', '/tmp/x.bin', '/data/my file.bin'], printMss: [false, true], compat: [false, true],
  proto: ['tcp', 'udp'], tcpRate: ['', '100M'], tcpLen: ['', '64K'], tcpWin: ['', '256K'], mss: ['', '1400'],
  noDelay: [false, true], congestion: ['', 'bbr'], bandwidth: ['', '50M', '1G/10'], udpWin: ['', '4M'],
  udpLen: ['', '1400'], ttl: ['', '8'], tos: ['', '0x08', '0x10'], dscp: ['', 'AF41', 'EF'],
  bind: ['', '192.0.2.1'], ipv6: [false, true], reverse: [false, true], bidir: [false, true],
  omit: ['', '2'], udp64: [false, true], title: ['', 'lab', "Bob's link test", '-x'],
};

function randomStates(n, seed) {
  const r = rng(seed), out = [];
  for (let i = 0; i < n; i++) {
    const s = {};
    for (const [k, vals] of Object.entries(POOL)) {
      // most fields stay at their default, as in a real form
      s[k] = r() < 0.7 ? F.DEFAULTS[k] : vals[Math.floor(r() * vals.length)];
    }
    if (s.mode === 'client' && s.host === '') s.host = 'h';
    if (s.transmitUnit === 'bytes' && !/^\d+[KMG]?$/.test(s.transmit)) s.transmit = '100M';
    if (s.transmitUnit === 'seconds' && /M$/.test(s.transmit)) s.transmit = '10';
    out.push(s);
  }
  return out;
}

test('buildArgs(parseArgs(args)) gives the same args for every valid form state', () => {
  let valid = 0;
  for (const s of randomStates(6000, 7)) {
    if (Object.keys(F.validate(s)).length) continue; // the form refuses to run those
    valid++;
    const args = F.buildArgs(s);
    const back = F.parseArgs(args);
    assert.deepEqual(back.unknown, [], JSON.stringify(args));
    assert.deepEqual(F.buildArgs(back.state), args, JSON.stringify(s));
    assert.deepEqual(F.validate(back.state), {}, JSON.stringify(args));
    // and through the command line as the history stores it
    assert.deepEqual(F.splitCommand(F.commandLine(args)).slice(1), args);
  }
  assert.ok(valid > 800, 'only ' + valid + ' valid states were tried');
});

test('parseArgs: hand-picked command lines', () => {
  const p = (a) => F.parseArgs(a);
  let r = p(['-c', '192.0.2.7', '-t', '20', '-P', '4', '-w', '256K', '-N', '-i', '1']);
  assert.deepEqual(r.unknown, []);
  assert.equal(r.state.host, '192.0.2.7');
  assert.equal(r.state.transmit, '20');
  assert.equal(r.state.parallel, '4');
  assert.equal(r.state.tcpWin, '256K');
  assert.equal(r.state.noDelay, true);
  // -b, -l and -w go to the UDP fields when -u comes anywhere, even after them
  r = p(['-c', 'h', '-b', '50M', '-l', '1400', '-u']);
  assert.equal(r.state.proto, 'udp');
  assert.equal(r.state.bandwidth, '50M');
  assert.equal(r.state.udpLen, '1400');
  assert.equal(r.state.tcpRate, '');
  // server: -p is the listen port
  r = p(['-s', '-p', '5001', '--allow', '192.0.2.0/24', '--max-connections', '3', '-i', '2']);
  assert.equal(r.state.mode, 'server');
  assert.equal(r.state.listenPort, '5001');
  assert.equal(r.state.port, '');
  assert.equal(r.state.maxConns, '3');
  // long spellings, --opt=value, attached short values, and the leading "linkperf"
  r = p(['linkperf', '--client=h', '--time', '5', '-P2', '--reverse', '--tos', '16', '--title=a b']);
  assert.deepEqual(r.unknown, []);
  assert.equal(r.state.transmit, '5');
  assert.equal(r.state.parallel, '2');
  assert.equal(r.state.reverse, true);
  assert.equal(r.state.tos, '0x10');
  assert.equal(r.state.title, 'a b');
  // -n: a byte count
  r = p(['-c', 'h', '-n', '100M']);
  assert.equal(r.state.transmitUnit, 'bytes');
  assert.equal(r.state.transmit, '100M');
  // iperf2-only options imply the dialect, as the CLI does
  r = p(['-c', 'h', '--dual', '--listen-port', '5002']);
  assert.equal(r.state.dialect, 'iperf2');
  assert.deepEqual(F.validate(r.state), {});
});

test('parseArgs: what the form cannot show is reported, not lost silently', () => {
  let r = F.parseArgs(['-c', 'h', '--cport', '6000', '-J', '--zerocopy', '-t']);
  assert.deepEqual(r.unknown, ['--cport 6000', '-J', '--zerocopy', '-t']);
  assert.equal(r.state.host, 'h');
  // a client option on a server command line
  r = F.parseArgs(['-s', '-P', '4']);
  assert.equal(r.state.mode, 'server');
  assert.deepEqual(r.unknown, ['-P 4 (not used by a server)']);
  assert.equal(r.state.parallel, '');
  // a TCP option on a UDP client
  r = F.parseArgs(['-c', 'h', '-u', '-N']);
  assert.deepEqual(r.unknown, ['-N (not used by a UDP client)']);
  assert.deepEqual(F.parseArgs(null), { state: F.defaults(), unknown: [] });
});

test('splitCommand reads what the CLI and the page print', () => {
  assert.deepEqual(F.splitCommand("linkperf -c h -T 'Bob'\\''s link test' -i 1"),
    ['linkperf', '-c', 'h', '-T', "Bob's link test", '-i', '1']);
  assert.deepEqual(F.splitCommand("linkperf -c h -F '/data/my file.bin'"), ['linkperf', '-c', 'h', '-F', '/data/my file.bin']);
  assert.deepEqual(F.splitCommand('a "b c" d\\ e \'\''), ['a', 'b c', 'd e', '']);
  assert.deepEqual(F.splitCommand('  '), []);
  assert.deepEqual(F.splitCommand("linkperf -c ''"), ['linkperf', '-c', '']);
});

/* ---- stored runs drawn by the live chart code ---- */

// GET /api/history/ID for `linkperf -c 127.0.0.1 -t 3 -P 2` (two streams, ids 1 and 2, and the
// sum as stream 0), trimmed to two intervals.
const TCP_RUN = {
  run: { id: 4, started_ms: 1796102607000, source: 'ui', command: 'linkperf -c 127.0.0.1 -t 3 -P 2', role: 'client',
    host: '127.0.0.1', port: 5333, proto: 'tcp', dialect: 'iperf3', streams: 2, duration_s: 3.006681,
    bytes: 75235328, bps_sent: 200610377.4, bps_received: 200181705.3, jitter_ms: 0, lost: 0, packets: 0,
    retransmits: 0, complete: 1, error: '', title: '' },
  intervals: [
    { seq: 1, stream: 0, sender: 1, start_s: 0, end_s: 1.000077, bytes: 25165824, bps: 201311014.15, omitted: 0, retransmits: 0, cwnd: 0, rtt_us: 0, jitter_ms: 0, lost: 0, packets: 0 },
    { seq: 1, stream: 1, sender: 1, start_s: 0, end_s: 1.000077, bytes: 12582912, bps: 100655507.07, omitted: 0, retransmits: 0, cwnd: 1178694, rtt_us: 81, jitter_ms: 0, lost: 0, packets: 0 },
    { seq: 1, stream: 2, sender: 1, start_s: 0, end_s: 1.000077, bytes: 12582912, bps: 100655507.07, omitted: 0, retransmits: 2, cwnd: 1178694, rtt_us: 102, jitter_ms: 0, lost: 0, packets: 0 },
    { seq: 2, stream: 0, sender: 1, start_s: 1.000077, end_s: 2.000273, bytes: 24903680, bps: 199190511.2, omitted: 0, retransmits: 0, cwnd: 0, rtt_us: 0, jitter_ms: 0, lost: 0, packets: 0 },
    { seq: 2, stream: 1, sender: 1, start_s: 1.000077, end_s: 2.000273, bytes: 12451840, bps: 99595255.6, omitted: 0, retransmits: 0, cwnd: 1178694, rtt_us: 82, jitter_ms: 0, lost: 0, packets: 0 },
    { seq: 2, stream: 2, sender: 1, start_s: 1.000077, end_s: 2.000273, bytes: 12451840, bps: 99595255.6, omitted: 0, retransmits: 0, cwnd: 1178694, rtt_us: 86, jitter_ms: 0, lost: 0, packets: 0 },
  ],
};

// `linkperf -c 127.0.0.1 -u -b 20M -R` stopped after two intervals: incomplete, no totals.
const UDP_STOPPED = {
  run: { id: 5, started_ms: 1796102700000, source: 'ui', command: 'linkperf -c 127.0.0.1 -u -b 20M -t 30 -R', role: 'client',
    host: '127.0.0.1', port: 5333, proto: 'udp', dialect: 'iperf3', streams: 1, duration_s: null, bytes: null,
    bps_sent: null, bps_received: null, jitter_ms: null, lost: null, packets: null, retransmits: null, complete: 0, error: '', title: '' },
  intervals: [
    { seq: 1, stream: 0, sender: 0, start_s: 0, end_s: 1.000552, bytes: 2500980, bps: 19996792.03, omitted: 0, retransmits: 0, cwnd: 0, rtt_us: 0, jitter_ms: 0.000343, lost: 0, packets: 1713 },
    { seq: 1, stream: 1, sender: 0, start_s: 0, end_s: 1.000552, bytes: 2500980, bps: 19996792.03, omitted: 0, retransmits: 0, cwnd: 0, rtt_us: 0, jitter_ms: 0.000343, lost: 0, packets: 1713 },
    { seq: 2, stream: 0, sender: 0, start_s: 1.000552, end_s: 2.000745, bytes: 2500980, bps: 20003984.33, omitted: 0, retransmits: 0, cwnd: 0, rtt_us: 0, jitter_ms: 0.008076, lost: 3, packets: 1713 },
    { seq: 2, stream: 1, sender: 0, start_s: 1.000552, end_s: 2.000745, bytes: 2500980, bps: 20003984.33, omitted: 0, retransmits: 0, cwnd: 0, rtt_us: 0, jitter_ms: 0.008076, lost: 3, packets: 1713 },
  ],
};

test('a stored TCP run: the same panels as live (streams, sum, RTT, cwnd, retransmits) and its totals', () => {
  const v = C.fromHistory(TCP_RUN);
  assert.equal(v.protocol, 'TCP');
  assert.equal(v.bps.unit, 'Mbits/s');
  assert.deepEqual(v.bps.series.map((s) => s.label), ['[1]', '[2]', 'sum']);
  assert.deepEqual(v.bps.data[0], [1.000077, 2.000273]);
  close(v.bps.data[3][0], 201.31101415);
  assert.deepEqual(v.rtt.data.slice(1), [[0.081, 0.082], [0.102, 0.086]]);
  assert.deepEqual(v.retr.data[2], [2, 0]);
  assert.equal(v.jitter, null);
  assert.deepEqual(v.summary.map((r) => r.label), ['sender', 'receiver']);
  assert.equal(v.summary[0].bytes, 75235328);
  close(v.summary[1].bps, 200181705.3);
  assert.equal(v.ended, true);
});

test('a stored UDP run stopped early: its intervals, jitter and loss; no end totals', () => {
  const recs = C.historyRecords(UDP_STOPPED);
  assert.deepEqual(recs.map((r) => r.event), ['start', 'interval', 'interval']);
  const v = C.fromHistory(UDP_STOPPED);
  assert.equal(v.protocol, 'UDP');
  assert.deepEqual(v.bps.series.map((s) => s.label), ['sum']);
  assert.equal(v.bps.data[0].length, 2);
  assert.deepEqual(v.jitter.data[1], [0.000343, 0.008076]);
  assert.deepEqual(v.loss.data[2], [0, 3]);
  assert.deepEqual(v.summary, []);
  assert.equal(v.ended, false);
});

test('a stored run with -O: omitted rows before zero; a failed run keeps its message', () => {
  const d = { run: { id: 9, proto: 'tcp', complete: 0, error: 'unable to connect: Connection refused' }, intervals: [
    { seq: 1, stream: 0, sender: 1, start_s: 0, end_s: 1.0, bytes: 1, bps: 8e6, omitted: 1 },
    { seq: 2, stream: 0, sender: 1, start_s: 0, end_s: 1.0, bytes: 1, bps: 9e6, omitted: 0 },
  ] };
  const v = C.fromHistory(d);
  assert.deepEqual(v.bps.data[0], [0, 1]);
  assert.match(v.error, /Connection refused/);
  assert.deepEqual(C.fromHistory({ run: { id: 1 }, intervals: [] }).bps.series, []);
});

test('overlay: one line per run on the union of their times, in one unit', () => {
  const ov = C.overlay([TCP_RUN, UDP_STOPPED]);
  assert.equal(ov.unit, 'Mbits/s');
  assert.equal(ov.log, false); // 201 and 20 Mbits/s: one linear axis
  assert.deepEqual(ov.series.map((s) => s.label), ['#4 linkperf -c 127.0.0.1 -t 3 -P 2', '#5 linkperf -c 127.0.0.1 -u -b 20M -t 30 -R']);
  assert.deepEqual(ov.data[0], [1.000077, 1.000552, 2.000273, 2.000745]);
  assert.equal(ov.data.length, 3);
  close(ov.data[1][0], 201.31101415);
  assert.equal(ov.data[1][1], null);
  assert.equal(ov.data[2][0], null);
  close(ov.data[2][1], 19.99679203);
  close(ov.data[2][3], 20.00398433);
  // omitted rows and slivers are not drawn; an empty run is an empty line
  const om = C.overlay([{ run: { id: 1 }, intervals: [{ seq: 1, stream: 0, start_s: 0, end_s: 1, bps: 5, omitted: 1 },
    { seq: 2, stream: 0, start_s: 1, end_s: 1.001, bps: 5, omitted: 0 }, { seq: 3, stream: 0, start_s: 0, end_s: 1, bps: 7, omitted: 0 }] },
  { run: { id: 2 }, intervals: [] }]);
  assert.deepEqual(om.data, [[1], [7], [null]]);
  assert.equal(om.unit, 'bits/s');
  assert.equal(om.log, false);
  // 40 Gbits/s TCP against 20 Mbits/s UDP: a log axis, zero rates left out
  const big = { run: { id: 7 }, intervals: [{ seq: 1, stream: 0, start_s: 0, end_s: 1, bps: 4e10 }, { seq: 2, stream: 0, start_s: 1, end_s: 2, bps: 0 }] };
  const lg = C.overlay([big, UDP_STOPPED]);
  assert.equal(lg.log, true);
  assert.equal(lg.unit, 'Gbits/s');
  assert.deepEqual(lg.data[0], [1, 1.000552, 2, 2.000745]);
  assert.deepEqual(lg.data[1], [40, null, null, null]);
  close(lg.data[2][1], 0.01999679203);
});

/* ---- history list, downloads ---- */

test('history query: search, protocol and an inclusive local date range', () => {
  assert.equal(H.historyQuery({}), '/api/history');
  assert.equal(H.historyQuery({ q: '  board 1 ', proto: 'udp', limit: 50 }), '/api/history?q=board+1&proto=udp&limit=50');
  assert.equal(H.historyQuery({ proto: 'sctp' }), '/api/history');
  const since = new Date(2026, 11, 1).getTime(), until = new Date(2026, 11, 3).getTime();
  assert.equal(H.historyQuery({ from: '2026-12-01', to: '2026-12-02' }), '/api/history?since=' + since + '&until=' + until);
  assert.equal(H.dayStart('12/01/2026'), 0);
  assert.equal(H.dayStart(''), 0);
});

test('downloads carry the page token', () => {
  assert.equal(H.withToken('/api/history/3/intervals.csv', ''), '/api/history/3/intervals.csv');
  assert.equal(H.withToken('/api/history/3/intervals.csv', 'ab-12'), '/api/history/3/intervals.csv?token=ab-12');
  assert.equal(H.withToken('/api/history?q=x', 'a&b'), '/api/history?q=x&token=a%26b');
  assert.equal(H.fileName(3, 'csv'), 'linkperf-run-3.csv');
});

test('history rows: units, peer, and incomplete or failed runs marked', () => {
  const c = H.rowCells(TCP_RUN.run);
  assert.equal(c.peer, '127.0.0.1:5333');
  assert.equal(c.proto, 'TCP');
  assert.equal(c.bytes, '71.8 MBytes');
  assert.equal(c.sent, '201 Mbits/s');
  assert.equal(c.received, '200 Mbits/s');
  assert.equal(c.duration, '3.0 s');
  assert.equal(c.status.key, 'complete');
  assert.match(c.date, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  const u = H.rowCells(UDP_STOPPED.run);
  assert.equal(u.status.key, 'incomplete');
  assert.equal(u.status.text, 'incomplete');
  assert.equal(u.bytes, '');
  assert.equal(u.sent, '');
  assert.equal(H.runStatus({ complete: 0, error: 'refused' }).key, 'failed');
  // what the history holds for a UDP run stopped from the page
  const stopped = H.runStatus({ complete: 0, error: 'interrupt - the client has terminated' });
  assert.equal(stopped.key, 'stopped');
  assert.match(stopped.title, /incomplete/);
  assert.equal(H.runStatus({ complete: 1, error: '' }).key, 'complete');
  assert.equal(H.rowCells({ id: 1, source: 'cli', role: 'server', host: '', proto: 'tcp' }).source, 'cli (server)');
});

/* ---- a server run's tests ---- */

test('server view: each incoming test with its peer, protocol, state, chart and text', () => {
  const T = H.createTests();
  T.text(0, 'Server listening on 5201');
  const start = (peer) => ({ event: 'start', data: { accepted_connection: { host: peer, port: 40000 },
    test_start: { protocol: 'TCP', num_streams: 1, omit: 0 }, timestamp: { timesecs: 1796102607 } } });
  const iv = (end, bps) => ({ event: 'interval', data: { streams: [{ socket: 5, start: end - 1, end, seconds: 1, bytes: bps / 8, bits_per_second: bps, sender: false }],
    sum: { start: end - 1, end, seconds: 1, bytes: bps / 8, bits_per_second: bps, sender: false } } });
  T.rec(1, start('192.0.2.9'));
  T.rec(2, start('192.0.2.10'));
  T.rec(1, iv(1, 9e8)); // two tests at once: their records interleave
  T.rec(2, iv(1, 1e8));
  T.rec(1, iv(2, 9.4e8));
  T.text(1, '[  5]   0.00-1.00   sec   107 MBytes   900 Mbits/sec');
  T.rec(1, { event: 'end', data: { sum_received: { seconds: 2, bytes: 230e6, bits_per_second: 9.2e8, sender: false } } });
  const [t2, t1] = T.list();
  assert.equal(t1.id, 1);
  assert.equal(t1.peer, '192.0.2.9:40000');
  assert.equal(t1.proto, 'TCP');
  assert.equal(t1.state, 'done');
  assert.equal(t1.points, 2);
  assert.equal(t1.lastBps, 9.4e8);
  assert.equal(t1.started, 1796102607000);
  assert.deepEqual(t1.model.view().bps.data[0], [1, 2]);
  assert.deepEqual(t1.lines, ['[  5]   0.00-1.00   sec   107 MBytes   900 Mbits/sec']);
  assert.equal(t2.state, 'running');
  assert.deepEqual(t2.model.view().bps.data[0], [1]);
  assert.deepEqual(T.get(0).lines, ['Server listening on 5201']);
  T.rec(3, { event: 'error', data: 'the client went away' });
  assert.equal(T.get(3).state, 'failed');
  T.runEnded('stopped');
  assert.equal(T.get(2).state, 'stopped');
  assert.equal(T.get(1).state, 'done');
  assert.equal(T.list().length, 3);
  assert.ok(H.isServerArgs(['-s', '-p', '5201']));
  assert.ok(!H.isServerArgs(['-c', 'h']));
});

/* ---- stored latency and measurements (fixtures/page_runs.json: real page runs) ---- */

const RUNS = JSON.parse(fs.readFileSync(new URL('./fixtures/page_runs.json', import.meta.url), 'utf8'));

test('a stored bounceback run: the latency panel it had live, from its interval documents, and its CDF', () => {
  const live = C.build(RUNS.bounceback_live), stored = C.fromHistory(RUNS.bounceback);
  assert.ok(stored.latency, 'no latency panel for the stored run');
  assert.deepEqual(stored.latency.series.map((s) => s.label), ['p50', 'p90', 'p99', 'max']);
  assert.deepEqual(stored.latency.data.slice(1), live.latency.data.slice(1)); // the same numbers
  stored.latency.data[0].forEach((x, i) => close(x, live.latency.data[0][i])); // the -J times are rounded to µs
  assert.deepEqual(stored.xy, live.xy); // the CDF from the stored end's histogram
  assert.ok(RUNS.bounceback.intervals.filter((r) => r.stream <= 0).every((r) => !('latency' in r)));
});

test('a stored run without latency columns in its rows (recorded before them): no latency panel', () => {
  const old = JSON.parse(JSON.stringify(RUNS.bounceback));
  for (const r of old.intervals) delete r.latency;
  delete old.end;
  const v = C.fromHistory(old);
  assert.equal(v.latency, null);
  assert.deepEqual(v.xy, []);
  assert.ok(v.bps.data[0].length >= 2);
});

test('a stored measurement: its report, no intervals, reopened as it was drawn live', () => {
  for (const name of ['rfc2544', 'under_load']) {
    const det = RUNS[name];
    assert.deepEqual(det.intervals, []);
    assert.equal(det.run.complete, 1);
    const v = C.measureView(det.report);
    assert.equal(v.kind, name === 'rfc2544' ? 'rfc2544' : 'under-load');
    assert.ok(v.xy.length === 2 && v.xy.every((p) => p.data[0].length >= 2));
    assert.equal(C.measureOf(F.splitCommand(det.run.command).slice(1)), v.kind);
    // "use settings" puts the measurement back in the form
    const back = F.parseArgs(F.splitCommand(det.run.command));
    assert.equal(back.state.mode, v.kind);
    assert.deepEqual(back.unknown, []);
    const pairs = (args) => args.slice(1).reduce((a, w, i) => (i % 2 ? a : a.concat([w + ' ' + args[i + 2]])), []).sort();
    assert.deepEqual(pairs(F.buildArgs(back.state)), pairs(F.splitCommand(det.run.command).slice(1))); // the same options
  }
});
