/* Turns one run's --json-stream records ({event, data}) into uPlot data: bits/s per stream
 * and per direction, TCP sender RTT/cwnd/retransmits, UDP receiver jitter/loss, and the end
 * summary. Pure logic, no DOM: app.js draws, Node tests. Records come from iperf3's schema as
 * linkperf writes it; start/end are seconds since the test started. */
(function (root) {
  'use strict';

  // A stats row over less than this is a leftover sliver (e.g. the end of an -O period):
  // its rate is timer noise, so it is not plotted. -i is at least 0.1 s.
  const MIN_INTERVAL_S = 0.02;
  const LOG_SPREAD = 20;

  const BIT_UNITS = [[1e9, 'Gbits/s'], [1e6, 'Mbits/s'], [1e3, 'Kbits/s'], [1, 'bits/s']];
  const BYTE_UNITS = [[1073741824, 'GBytes'], [1048576, 'MBytes'], [1024, 'KBytes'], [1, 'Bytes']];

  // The largest unit in which the largest value is at least 1, so axes read 1..999.
  function pick(units, max) {
    for (const [div, label] of units) if (max >= div) return { div, label };
    const last = units[units.length - 1];
    return { div: last[0], label: last[1] };
  }
  const chooseUnit = (maxBps) => pick(BIT_UNITS, maxBps);
  const chooseByteUnit = (maxBytes) => pick(BYTE_UNITS, maxBytes);

  // iperf-style: three significant digits, e.g. "94.1 Mbits/s".
  function formatRate(bps) {
    const u = chooseUnit(bps);
    const v = bps / u.div;
    return (v >= 100 || v === 0 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ' + u.label;
  }

  const dirOf = (o) => (o && o.sender === false ? 'received' : 'sent');
  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

  function addUp(list) {
    if (!list.length) return null;
    const out = { bits_per_second: 0, retransmits: 0, packets: 0, lost_packets: 0 };
    let jitter = 0, nj = 0;
    for (const s of list) {
      out.bits_per_second += s.bits_per_second || 0;
      out.retransmits += s.retransmits || 0;
      out.packets += s.packets || 0;
      out.lost_packets += s.lost_packets || 0;
      if (num(s.jitter_ms) !== null) { jitter += s.jitter_ms; nj++; }
    }
    if (nj) { // iperf3 reports the mean of the streams' jitter for a sum
      out.jitter_ms = jitter / nj;
      out.lost_percent = out.packets ? (100 * out.lost_packets) / out.packets : 0;
    }
    return out;
  }

  // The per-direction sums of one interval. iperf3 --bidir sends "sum" and
  // "sum_bidir_reverse"; iperf2 --dual sends one "sum" over both directions, so then each
  // direction is added up from its streams.
  function directionSums(d, streams) {
    const dirs = new Set(streams.map(dirOf));
    const out = {};
    if (dirs.size < 2) {
      out[dirs.size ? [...dirs][0] : dirOf(d.sum)] = d.sum || addUp(streams);
    } else if (d.sum_bidir_reverse) {
      out[dirOf(d.sum)] = d.sum;
      out[dirOf(d.sum_bidir_reverse)] = d.sum_bidir_reverse;
    } else {
      for (const dir of dirs) out[dir] = addUp(streams.filter((s) => dirOf(s) === dir));
    }
    return out;
  }

  // A stream's latency object when it carries percentiles (a count of 0 has none).
  const latOf = (s) => (s && s.latency && typeof s.latency === 'object' && num(s.latency.p50_ms) !== null ? s.latency : null);
  const LAT_ALL = [['p50_ms', 'p50'], ['p90_ms', 'p90'], ['p99_ms', 'p99'], ['max_ms', 'max']];
  const LAT_FEW = [['p50_ms', 'p50'], ['p99_ms', 'p99']];

  function createModel() {
    let rows = [], streamKeys = new Map(), omit = 0, protocol = '', ended = false;
    let end = null, error = '';

    function add(rec) {
      if (!rec || typeof rec !== 'object') return;
      const d = rec.data;
      if (rec.event === 'start') {
        if (ended) { // a server run serves test after test: show the latest
          rows = []; streamKeys = new Map(); end = null; ended = false; error = '';
        }
        const ts = (d && d.test_start) || {};
        omit = num(ts.omit) || 0;
        protocol = ts.protocol || protocol;
      } else if (rec.event === 'interval' && d && Array.isArray(d.streams)) {
        addInterval(d);
      } else if (rec.event === 'end') {
        end = d || {};
        ended = true;
      } else if (rec.event === 'error') {
        error = typeof d === 'string' ? d : JSON.stringify(d);
      }
    }

    function addInterval(d) {
      const streams = d.streams.filter((s) => s && typeof s === 'object');
      const ref = d.sum || streams[0];
      if (!ref || num(ref.end) === null) return;
      const seconds = num(ref.seconds) !== null ? ref.seconds : ref.end - (num(ref.start) || 0);
      if (seconds < MIN_INTERVAL_S) return;
      // iperf3 restarts the clock after -O: omitted rows go to [-omit, 0].
      const x = ref.omitted ? ref.end - omit : ref.end;
      if (rows.length && x <= rows[rows.length - 1].x) return; // uPlot needs x ascending
      const row = { x, streams: new Map(), sums: directionSums(d, streams) };
      for (const s of streams) {
        const key = (s.socket != null ? s.socket : '?') + ':' + dirOf(s);
        if (!streamKeys.has(key)) streamKeys.set(key, { socket: s.socket, dir: dirOf(s) });
        row.streams.set(key, s);
      }
      rows.push(row);
    }

    function view() {
      const x = rows.map((r) => r.x);
      const keys = [...streamKeys.keys()];
      const dirs = ['sent', 'received'].filter((dir) => rows.some((r) => r.sums[dir]));
      const twoWay = dirs.length > 1;
      const perDir = (dir) => keys.filter((k) => streamKeys.get(k).dir === dir);
      const streamLabel = (k) => '[' + streamKeys.get(k).socket + ']' + (twoWay ? ' ' + streamKeys.get(k).dir : '');
      const col = (f) => rows.map((r) => f(r));
      const fromStream = (k, field, scale) => col((r) => {
        const v = r.streams.has(k) ? num(r.streams.get(k)[field]) : null;
        return v === null ? null : v / (scale || 1);
      });

      // bits/s: the streams of a direction (when it has more than one) and its sum.
      const bpsSeries = [], bpsCols = [];
      for (const dir of dirs) {
        const ks = perDir(dir);
        if (ks.length > 1) for (const k of ks) {
          bpsSeries.push({ key: 's' + k, label: streamLabel(k), kind: 'stream' });
          bpsCols.push(fromStream(k, 'bits_per_second'));
        }
        bpsSeries.push({ key: 'sum:' + dir, label: twoWay ? 'sum ' + dir : 'sum', kind: dir === dirs[0] ? 'sum' : 'rev' });
        bpsCols.push(col((r) => (r.sums[dir] ? num(r.sums[dir].bits_per_second) : null)));
      }
      let max = 0;
      for (const c of bpsCols) for (const v of c) if (v !== null && v > max) max = v;
      const unit = chooseUnit(max);
      const bps = panel(x, bpsSeries, bpsCols.map((c) => c.map((v) => (v === null ? null : v / unit.div))));
      bps.unit = unit.label;

      // TCP: what the sender's kernel reports (TCP_INFO) per sending stream.
      const tcpKeys = keys.filter((k) => rows.some((r) => r.streams.has(k) && num(r.streams.get(k).snd_cwnd) !== null));
      let rtt = null, cwnd = null, retr = null;
      if (tcpKeys.length) {
        const label = (k) => (tcpKeys.length > 1 || twoWay ? streamLabel(k) : 'stream ' + streamLabel(k));
        rtt = panel(x, tcpKeys.map((k) => ({ key: 'rtt' + k, label: label(k), kind: 'stream' })),
          tcpKeys.map((k) => fromStream(k, 'rtt', 1000)));
        rtt.unit = 'ms';
        let cmax = 0;
        for (const k of tcpKeys) for (const v of fromStream(k, 'snd_cwnd')) if (v > cmax) cmax = v;
        const cu = chooseByteUnit(cmax);
        cwnd = panel(x, tcpKeys.map((k) => ({ key: 'cwnd' + k, label: label(k), kind: 'stream' })),
          tcpKeys.map((k) => fromStream(k, 'snd_cwnd', cu.div)));
        cwnd.unit = cu.label;
        const rs = tcpKeys.map((k) => ({ key: 'retr' + k, label: label(k), kind: 'stream' }));
        const rc = tcpKeys.map((k) => fromStream(k, 'retransmits'));
        if (tcpKeys.length > 1) {
          rs.push({ key: 'retr:sum', label: 'sum', kind: 'sum' });
          rc.push(col((r) => tcpKeys.reduce((a, k) => a + ((r.streams.get(k) || {}).retransmits || 0), 0)));
        }
        retr = panel(x, rs, rc);
        retr.unit = 'segments';
      }

      // UDP: jitter and loss are measured by the receiver, so they exist only for streams
      // this side receives (-R, --bidir); a sending client gets them in the end summary.
      const udpKeys = keys.filter((k) => rows.some((r) => r.streams.has(k) && num(r.streams.get(k).jitter_ms) !== null));
      let jitter = null, loss = null;
      if (udpKeys.length) {
        const rdir = streamKeys.get(udpKeys[0]).dir;
        const rsum = (r) => {
          const s = r.sums[rdir];
          return s && num(s.jitter_ms) !== null ? s : addUp(udpKeys.map((k) => r.streams.get(k)).filter(Boolean));
        };
        const js = [], jc = [];
        if (udpKeys.length > 1) for (const k of udpKeys) {
          js.push({ key: 'jit' + k, label: streamLabel(k), kind: 'stream' });
          jc.push(fromStream(k, 'jitter_ms'));
        }
        js.push({ key: 'jit:sum', label: twoWay ? 'sum ' + rdir : 'sum', kind: 'sum' });
        jc.push(col((r) => { const s = rsum(r); return s ? num(s.jitter_ms) : null; }));
        jitter = panel(x, js, jc);
        jitter.unit = 'ms';
        loss = panel(x, [{ key: 'loss:pct', label: 'lost %', kind: 'sum', scale: '%' },
          { key: 'loss:pkts', label: 'lost packets', kind: 'rev', scale: 'packets' }],
        [col((r) => { const s = rsum(r); return s ? num(s.lost_percent) : null; }),
          col((r) => { const s = rsum(r); return s ? num(s.lost_packets) : null; })]);
        loss.unit = '%';
      }

      // Latency (bounceback round trips, --trip-times one-way): each interval's percentiles
      // from the stream's histogram, per stream that measures it; one stream gets p50, p90,
      // p99 and max, several get p50 and p99 each.
      const latKeys = keys.filter((k) => rows.some((r) => r.streams.has(k) && latOf(r.streams.get(k))));
      let latency = null;
      if (latKeys.length) {
        const pcts = latKeys.length > 1 ? LAT_FEW : LAT_ALL;
        const ls = [], lc = [];
        for (const k of latKeys) for (const [field, name] of pcts) {
          ls.push({ key: 'lat' + k + field, label: latKeys.length > 1 ? streamLabel(k) + ' ' + name : name, kind: 'stream' });
          lc.push(col((r) => { const l = r.streams.has(k) ? latOf(r.streams.get(k)) : null; return l ? num(l[field]) : null; }));
        }
        latency = panel(x, ls, lc);
        latency.unit = 'ms';
      }

      const cdf = latencyCdf(end);
      return { protocol, bps, rtt, cwnd, retr, jitter, loss, latency, summary: summary(end), ended, error, xy: cdf ? [cdf] : [] };
    }

    return { add, view };
  }

  function panel(x, series, cols) {
    return { series, data: [x].concat(cols), signature: series.map((s) => s.key).join('|') };
  }

  // iperf3's words: the forward direction's sender and receiver, then --bidir's reverse one.
  const SUMMARY_KEYS = [['sum_sent', 'sender'], ['sum_received', 'receiver'],
    ['sum_sent_bidir_reverse', 'reverse sender'], ['sum_received_bidir_reverse', 'reverse receiver']];

  // The end record's totals, one row per direction and side, for a small results table.
  function summary(end) {
    if (!end) return [];
    const out = [];
    for (const [key, label] of SUMMARY_KEYS) {
      const s = end[key];
      if (!s || typeof s !== 'object') continue;
      const row = { label, seconds: num(s.seconds), bytes: num(s.bytes), bps: num(s.bits_per_second) };
      const sent = key.startsWith('sum_sent');
      if (sent && num(s.retransmits) !== null) row.retransmits = s.retransmits;
      if (num(s.packets) !== null) row.packets = s.packets;
      if (!sent && num(s.packets) !== null) { // jitter and loss are the receiver's numbers
        row.jitter_ms = num(s.jitter_ms);
        row.lost_packets = num(s.lost_packets);
        row.lost_percent = num(s.lost_percent);
      }
      out.push(row);
    }
    return out;
  }

  /* ---- panels on an x axis of their own (not time): drawn by plots.js createXYSet ---- */

  // {name, title, unit, xlabel, labels (category names when x is an index), series, data}.
  function xyPanel(name, title, unit, xlabel, series, data, labels) {
    return { name, title, unit, xlabel, labels: labels || null, series, data, signature: series.map((s) => s.key).join('|') };
  }

  // Several [x, y] lists on one x axis (uPlot wants one): the union of the xs, nulls where a
  // list has no point.
  function unionXY(lists) {
    const xs = [...new Set(lists.flatMap((l) => l.map((p) => p[0])))].sort((a, b) => a - b);
    const at = new Map(xs.map((x, i) => [x, i]));
    return [xs].concat(lists.map((l) => {
      const c = new Array(xs.length).fill(null);
      for (const [x, y] of l) c[at.get(x)] = y;
      return c;
    }));
  }

  // The latency CDF of each stream whose end totals carry a histogram (-J "buckets":
  // [lower bound ns, width ns, count]): % of samples at or below each bucket's upper bound.
  function latencyCdf(end) {
    const lists = [], series = [];
    const streams = end && Array.isArray(end.streams) ? end.streams : [];
    for (const st of streams) {
      // A UDP stream is one object ("udp"): its round trips (UDP echo, with "sent") or one way.
      for (const side of ['sender', 'receiver', 'udp']) {
        const lat = st && st[side] && st[side].latency;
        const b = lat && lat.histogram && Array.isArray(lat.histogram.buckets) ? lat.histogram.buckets : null;
        if (!b || !b.length) continue;
        const buckets = b.filter((x) => Array.isArray(x) && x.length >= 3 && x.every((v) => num(v) !== null) && x[2] > 0)
          .sort((p, q) => p[0] - q[0]);
        const total = buckets.reduce((a, x) => a + x[2], 0);
        if (!total) continue;
        let cum = 0;
        const pts = [[buckets[0][0] / 1e6, 0]];
        for (const [low, width, count] of buckets) {
          cum += count;
          pts.push([(low + width) / 1e6, (100 * cum) / total]);
        }
        lists.push(pts);
        series.push({ key: 'cdf' + st[side].socket + side, label: '[' + st[side].socket + '] ' + (side === 'sender' || (side === 'udp' && 'sent' in lat) ? 'round trip' : 'one way') + ', ' + total + ' samples', kind: 'stream' });
      }
    }
    if (!lists.length) return null;
    return xyPanel('cdf', 'Latency CDF (% of samples at or below)', '%', 'ms', series, unionXY(lists));
  }

  /* ---- measurement reports (linkperf rfc2544 / under-load -J) ---- */

  const MEASURES = ['rfc2544', 'under-load'];
  const measureOf = (args) => (Array.isArray(args) && MEASURES.includes(String(args[0])) ? String(args[0]) : '');

  // RFC 2544: the throughput found per frame size (the offered load on the line at which no
  // frame was lost, frames with preamble and gap, so at most the line rate) and, when the
  // loss test ran, the frame loss rate against the offered load.
  function rfc2544View(doc) {
    const r = doc.rfc2544, xy = [], rows = [];
    const line = num(r.line_bits_per_second) || 0;
    const frames = (Array.isArray(r.frames) ? r.frames : []).filter((f) => f && num(f.frame_bytes) !== null);
    const found = frames.filter((f) => f.throughput && num(f.throughput.line_fraction) !== null);
    if (found.length) {
      const unit = chooseUnit(line);
      const x = found.map((f, i) => i);
      xy.push(xyPanel('rfcRate', 'RFC 2544 throughput per frame size (' + unit.label + ' on the line)', unit.label, 'frame size (bytes)',
        [{ key: 'tput', label: 'throughput', kind: 'sum' }, { key: 'line', label: 'line rate', kind: 'rev' }],
        [x, found.map((f) => (f.throughput.line_fraction * line) / unit.div), found.map(() => line / unit.div)],
        found.map((f) => String(f.frame_bytes))));
    }
    const lossy = frames.filter((f) => Array.isArray(f.frame_loss) && f.frame_loss.length);
    if (lossy.length) {
      xy.push(xyPanel('rfcLoss', 'Frame loss rate against the offered load', '% lost', '% of the line rate',
        lossy.map((f) => ({ key: 'loss' + f.frame_bytes, label: f.frame_bytes + '-byte frames', kind: 'stream' })),
        unionXY(lossy.map((f) => f.frame_loss.filter((t) => num(t.line_fraction) !== null && num(t.sent))
          .map((t) => [Math.round(t.line_fraction * 1000) / 10, (100 * (t.sent - (t.received || 0))) / t.sent])))));
    }
    for (const f of frames) {
      const t = f.throughput;
      rows.push({ frame: f.frame_bytes, skipped: !!f.skipped, line_percent: t ? t.line_fraction * 100 : null,
        frames_per_second: t ? num(t.frames_per_second) : null, payload_bps: t ? num(t.payload_bits_per_second) : null,
        rtt_p50_ms: f.latency_rtt ? num(f.latency_rtt.p50_ms) : null, back_to_back: num(f.back_to_back_frames) });
    }
    return { kind: 'rfc2544', xy, table: rows, error: r.error || '', out_of_time: !!r.out_of_time };
  }

  // under-load: each phase's round-trip p50/p99 and its throughput up and down.
  function underLoadView(doc) {
    const u = doc.under_load, xy = [], rows = [];
    const phases = (Array.isArray(u.phases) ? u.phases : []).filter((p) => p && typeof p.name === 'string');
    if (phases.length) {
      const x = phases.map((p, i) => i), names = phases.map((p) => p.name);
      const rtt = (f) => phases.map((p) => (p.rtt ? num(p.rtt[f]) : null));
      xy.push(xyPanel('ulLatency', 'Round trips per phase (ms)', 'ms', 'phase',
        [{ key: 'p50', label: 'p50', kind: 'sum' }, { key: 'p99', label: 'p99', kind: 'rev' }], [x, rtt('p50_ms'), rtt('p99_ms')], names));
      let max = 0;
      for (const p of phases) max = Math.max(max, num(p.up_bits_per_second) || 0, num(p.down_bits_per_second) || 0);
      const unit = chooseUnit(max);
      const rate = (f) => phases.map((p) => (num(p[f]) !== null ? p[f] / unit.div : null));
      xy.push(xyPanel('ulRate', 'Load throughput per phase (' + unit.label + ')', unit.label, 'phase',
        [{ key: 'up', label: 'up', kind: 'sum' }, { key: 'down', label: 'down', kind: 'rev' }], [x, rate('up_bits_per_second'), rate('down_bits_per_second')], names));
    }
    for (const p of phases) {
      rows.push({ phase: p.name, up_bps: num(p.up_bits_per_second), down_bps: num(p.down_bits_per_second),
        p50_ms: p.rtt ? num(p.rtt.p50_ms) : null, p99_ms: p.rtt ? num(p.rtt.p99_ms) : null,
        added_p50_ms: num(p.added_p50_ms), added_p99_ms: num(p.added_p99_ms) });
    }
    return { kind: 'under-load', xy, table: rows, error: u.error || '' };
  }

  // A measurement's report as panels and a table; null when it is none.
  function measureView(doc) {
    if (doc && doc.rfc2544 && typeof doc.rfc2544 === 'object') return rfc2544View(doc);
    if (doc && doc.under_load && typeof doc.under_load === 'object') return underLoadView(doc);
    return null;
  }

  // Progress event data -> what the page shows: the line, and how far along (0..1) when the
  // time left is known (--max-time bounds rfc2544's, so its bar is the bound).
  function progressOf(p) {
    if (!p || typeof p !== 'object') return null;
    const done = num(p.elapsed_s), left = num(p.left_s);
    return { line: String(p.line || ''), fraction: done !== null && left !== null && done + left > 0 ? done / (done + left) : null,
      test: p.test, frame: p.frame_bytes, rate_bps: num(p.rate_bps) };
  }

  function build(recs) {
    const m = createModel();
    for (const r of recs) m.add(r);
    return m.view();
  }

  /* ---- stored runs (GET /api/history/ID) ---- */

  // One stored interval row as a --json-stream stream/sum object, so a stored run is drawn by
  // the same model as a live one. TCP_INFO columns are 0 when the side had none (a receiver).
  function storedStream(row, udp) {
    const o = {
      socket: row.stream, start: num(row.start_s) || 0, end: num(row.end_s) || 0,
      seconds: (num(row.end_s) || 0) - (num(row.start_s) || 0), bytes: num(row.bytes) || 0,
      bits_per_second: num(row.bps) || 0, omitted: !!row.omitted, sender: !!row.sender,
    };
    if (!udp && row.sender && (row.cwnd || row.rtt_us)) {
      o.retransmits = row.retransmits || 0;
      o.snd_cwnd = row.cwnd;
      o.rtt = row.rtt_us;
    }
    if (row.latency && typeof row.latency === 'object') o.latency = row.latency; // from its interval document
    if (udp) {
      o.packets = num(row.packets) || 0;
      if (!row.sender) { // jitter and loss are the receiver's
        o.jitter_ms = num(row.jitter_ms) || 0;
        o.lost_packets = num(row.lost) || 0;
        o.lost_percent = o.packets ? (100 * o.lost_packets) / o.packets : 0;
      }
    }
    return o;
  }

  // {run, intervals} -> the records a live run would have sent: a start, one interval record
  // per seq (streams, "sum" = stream 0, "sum_bidir_reverse" = stream -1) and an end record
  // built from the run's totals.
  function historyRecords(detail) {
    const run = (detail && detail.run) || {};
    const rows = (detail && Array.isArray(detail.intervals)) ? detail.intervals : [];
    const udp = String(run.proto || '').toLowerCase() === 'udp';
    let omit = 0;
    for (const r of rows) if (r.omitted && r.stream === 0 && num(r.end_s) !== null) omit = Math.max(omit, r.end_s);
    const recs = [{ event: 'start', data: { test_start: { protocol: udp ? 'UDP' : 'TCP', omit: Math.round(omit), num_streams: run.streams || 1 } } }];
    const bySeq = new Map();
    for (const r of rows) {
      if (!bySeq.has(r.seq)) bySeq.set(r.seq, []);
      bySeq.get(r.seq).push(r);
    }
    for (const seq of [...bySeq.keys()].sort((a, b) => a - b)) {
      const d = { streams: [] };
      for (const r of bySeq.get(seq)) {
        if (r.stream === 0) d.sum = storedStream(r, udp);
        else if (r.stream === -1) d.sum_bidir_reverse = storedStream(r, udp);
        else d.streams.push(storedStream(r, udp));
      }
      if (!d.sum && d.streams.length === 1) d.sum = d.streams[0];
      if (d.sum || d.streams.length) recs.push({ event: 'interval', data: d });
    }
    if (run.complete || num(run.bytes) !== null) {
      const secs = num(run.duration_s);
      const sent = { seconds: secs, bytes: num(run.bytes), bits_per_second: num(run.bps_sent), sender: true };
      if (!udp) sent.retransmits = num(run.retransmits);
      const recv = { seconds: secs, bytes: num(run.bytes), bits_per_second: num(run.bps_received), sender: false };
      if (udp) {
        recv.packets = num(run.packets);
        recv.jitter_ms = num(run.jitter_ms);
        recv.lost_packets = num(run.lost);
        recv.lost_percent = recv.packets ? (100 * (recv.lost_packets || 0)) / recv.packets : 0;
      }
      const end = {};
      // The stored -J end's streams: their latency histograms (the CDF).
      if (detail.end && Array.isArray(detail.end.streams)) end.streams = detail.end.streams;
      if (sent.bits_per_second) end.sum_sent = sent;
      if (recv.bits_per_second || udp) end.sum_received = recv;
      recs.push({ event: 'end', data: end });
    }
    if (run.error) recs.push({ event: 'error', data: run.error });
    return recs;
  }

  const fromHistory = (detail) => build(historyRecords(detail));

  // Several stored runs on one time axis: each run's sum (stream 0; the forward direction)
  // bits/s against its interval end time. uPlot wants one x array, so x is the union of the
  // runs' times and each run is null where it has no point (drawn with spanGaps).
  function overlay(list) {
    const runs = (list || []).map((d) => {
      const pts = [];
      for (const r of (d && Array.isArray(d.intervals)) ? d.intervals : []) {
        if (r.stream !== 0 || r.omitted || num(r.end_s) === null || num(r.bps) === null) continue;
        if ((r.end_s - (num(r.start_s) || 0)) < MIN_INTERVAL_S) continue;
        pts.push([r.end_s, r.bps]);
      }
      pts.sort((a, b) => a[0] - b[0]);
      const run = (d && d.run) || {};
      return { id: run.id, label: '#' + run.id + ' ' + (run.command || ''), pts };
    });
    const xs = [...new Set(runs.flatMap((r) => r.pts.map((p) => p[0])))].sort((a, b) => a - b);
    let max = 0;
    for (const r of runs) for (const p of r.pts) if (p[1] > max) max = p[1];
    const unit = chooseUnit(max);
    // Runs whose peaks differ more than LOG_SPREAD times would be a flat line at zero on a
    // linear axis: then the axis is logarithmic (and zero rates are gaps).
    const peaks = runs.map((r) => r.pts.reduce((m, p) => Math.max(m, p[1]), 0)).filter((v) => v > 0);
    const log = peaks.length > 1 && Math.max(...peaks) / Math.min(...peaks) > LOG_SPREAD;
    const index = new Map(xs.map((x, i) => [x, i]));
    const cols = runs.map((r) => {
      const c = new Array(xs.length).fill(null);
      for (const p of r.pts) c[index.get(p[0])] = log && p[1] <= 0 ? null : p[1] / unit.div;
      return c;
    });
    return {
      unit: unit.label, log,
      series: runs.map((r) => ({ key: 'run' + r.id, label: r.label, kind: 'stream', id: r.id })),
      data: [xs].concat(cols),
    };
  }

  const api = { createModel, build, chooseUnit, chooseByteUnit, formatRate, MIN_INTERVAL_S,
    historyRecords, fromHistory, overlay, latencyCdf, measureView, measureOf, progressOf, MEASURES };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.LPChart = api;
})(typeof window !== 'undefined' ? window : globalThis);
