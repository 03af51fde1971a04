/* uPlot drawing shared by every chart on the page: the live run, a test of a server run, a
 * stored run and the overlay of stored runs. A chart set draws a view of chart.js (one panel
 * per measure) into a container; each panel's box carries data-points / data-series so a
 * test (or a curious user) can read what is drawn. */
(function (root) {
  'use strict';

  const PANELS = [['bps', 'Throughput', 260], ['jitter', 'Jitter', 150], ['loss', 'Loss', 150],
    ['latency', 'Latency (percentiles per interval)', 180], ['rtt', 'RTT', 150], ['cwnd', 'Congestion window', 150], ['retr', 'Retransmits', 140]];
  const PALETTE = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#0891b2', '#db2777', '#65a30d', '#7c3aed', '#ea580c', '#0d9488'];

  function fmt(v) {
    if (v == null) return '–';
    if (Number.isInteger(v)) return String(v); // counts: packets, segments
    const a = Math.abs(v);
    return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toPrecision(2);
  }

  // A legend value with its unit ("94.1 Mbits/s", "0.12 %"); none when the series' label
  // already names it ("lost packets").
  function withUnit(v, unit, label) {
    const t = fmt(v);
    if (v == null || !unit || String(label).includes(unit)) return t;
    return unit === '%' ? t + ' %' : t + ' ' + unit;
  }

  // Away from the cursor the legend shows the latest values, like JPerf's legend did: those
  // of the latest interval that has any (a last interval without, e.g. no bounceback
  // exchange in it, would show only dashes).
  function showLatest(u) {
    const n = u.data[0].length;
    if (!n || u.cursor.left >= 0) return;
    let i = n - 1;
    while (i > 0 && u.data.every((c, k) => k === 0 || c[i] == null)) i--;
    u.setLegend({ idx: i }, false);
  }

  function colorOf(s, i) {
    return s.kind === 'sum' ? '#102a43' : s.kind === 'rev' ? '#c2410c' : PALETTE[i % PALETTE.length];
  }

  function tag(box, data) {
    box.dataset.points = String(data[0].length);
    box.dataset.series = String(data.length - 1);
  }

  // A chart set's panels by name ({u, sig, box}): one destroyed and taken off the page.
  function removePlot(plots, name) {
    const old = plots[name];
    if (!old) return;
    old.u.destroy();
    old.box.remove();
    delete plots[name];
  }

  let setCount = 0;

  // opts: panels (names to draw, default all), heights (name -> px), compact (small legend).
  function createChartSet(container, opts) {
    const o = opts || {};
    const key = 'lp' + ++setCount; // cursors and zoom are shared within a set only
    const only = o.panels ? new Set(o.panels) : null;
    const plots = {}; // panel name -> {u, sig, box}
    let zoomed = false, syncing = false;

    function width(name) {
      const w = container.clientWidth - 30; // less the padding
      if (o.width) return o.width(w);
      return Math.max(240, name === 'bps' || name === 'overlay' || w < 760 ? w : Math.floor((w - 16) / 2)); // 16: the gap
    }

    // Zoom is shared by every panel of the set; while zoomed, new data keeps the window.
    function onZoom(u) {
      if (syncing) return;
      const xs = u.data[0];
      const { min, max } = u.scales.x;
      zoomed = xs.length > 1 && (min > xs[0] + 1e-9 || max < xs[xs.length - 1] - 1e-9);
      syncing = true;
      for (const p of Object.values(plots)) if (p.u !== u) p.u.setScale('x', { min, max });
      syncing = false;
    }

    function baseOpts(name, title, height, series, unit, extraAxes, log) {
      const fromZero = { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1] };
      // Rates that differ by orders of magnitude (a TCP and a UDP run overlaid): log axis.
      const y = log ? { distr: 3, log: 10 } : fromZero;
      // Time starts at the test's start (or before it, for -O); a zoom is kept as chosen.
      const x = { time: false, range: (u, min, max) => [min > u.data[0][0] ? min : Math.min(0, min), max] };
      let axes = [name === 'bps' || name === 'overlay' ? { label: 'seconds' } : {}, { label: unit, scale: series[1] && series[1].scale || 'y' }].concat(extraAxes || []);
      if (o.compact) { // a test card: small axes, no labels, no title or legend
        const font = '10px system-ui, sans-serif';
        axes = [{ size: 22, font, ticks: { size: 3 }, gap: 2 }, { size: 34, font, ticks: { size: 3 }, gap: 2 }];
      }
      return {
        title: o.compact ? undefined : title, height, width: width(name), series, axes,
        scales: { x, y, '%': fromZero, packets: fromZero },
        legend: { show: !o.compact, live: true },
        cursor: { sync: { key }, drag: { x: true, y: false } },
        hooks: { setScale: [(u, k) => { if (k === 'x') onZoom(u); }], setCursor: [showLatest] },
      };
    }

    function panelOpts(name, title, height, p) {
      let stream = 0;
      const series = [{ label: 'time (s)', value: (u, v) => (v == null ? '–' : v.toFixed(2)) }];
      for (const s of p.series) {
        series.push({
          label: s.label, stroke: colorOf(s, s.kind === 'stream' ? stream++ : 0), width: s.kind === 'stream' ? 1.25 : 2,
          dash: s.kind === 'rev' ? [6, 3] : undefined, scale: s.scale || 'y',
          value: (u, v) => withUnit(v, s.scale && s.scale !== 'y' ? s.scale : p.unit, s.label), points: { show: p.data[0].length <= 60 },
        });
      }
      const extra = name === 'loss' ? [{ label: 'packets', scale: 'packets', side: 1, grid: { show: false } }] : [];
      return baseOpts(name, title + ' (' + p.unit + ')', height, series, p.unit, extra);
    }

    function remove(name) { removePlot(plots, name); }

    function place(name, box) {
      const order = PANELS.map((x) => x[0]).concat(['overlay']);
      const after = order.slice(order.indexOf(name) + 1).map((n) => plots[n]).find(Boolean);
      container.insertBefore(box, after ? after.box : null);
    }

    // Draws (or updates) the panels of a chart.js view. Returns true when anything is drawn.
    function draw(view) {
      remove('overlay');
      let any = false;
      for (const [name, title, height] of PANELS) {
        const p = view && view[name];
        const has = (!only || only.has(name)) && p && p.series.length && p.data[0].length;
        if (!has) { remove(name); continue; }
        any = true;
        const sig = p.signature + '/' + p.unit;
        const old = plots[name];
        if (old && old.sig === sig) {
          old.u.setData(p.data, !zoomed);
          showLatest(old.u);
          tag(old.box, p.data);
          continue;
        }
        remove(name);
        const box = document.createElement('div');
        box.className = 'panel ' + name;
        place(name, box);
        const h = (o.heights && o.heights[name]) || height;
        plots[name] = { u: new root.uPlot(panelOpts(name, title, h, p), p.data, box), sig, box };
        showLatest(plots[name].u);
        tag(box, p.data);
      }
      return any;
    }

    // Several stored runs, one line each (chart.js overlay()).
    function drawOverlay(ov, title) {
      for (const [name] of PANELS) remove(name);
      remove('overlay');
      if (!ov || !ov.series.length) return false;
      const series = [{ label: 'time (s)', value: (u, v) => (v == null ? '–' : v.toFixed(2)) }];
      ov.series.forEach((s, i) => series.push({ label: s.label, stroke: PALETTE[i % PALETTE.length], width: 2,
        spanGaps: true, value: (u, v) => withUnit(v, ov.unit, s.label), points: { show: ov.data[0].length <= 60 } }));
      const box = document.createElement('div');
      box.className = 'panel overlay';
      place('overlay', box);
      const opts = baseOpts('overlay', (title || 'Throughput') + ' (' + ov.unit + (ov.log ? ', log scale' : '') + ')',
        (o.heights && o.heights.overlay) || 300, series, ov.unit, null, ov.log);
      plots.overlay = { u: new root.uPlot(opts, ov.data, box), sig: 'overlay', box };
      showLatest(plots.overlay.u);
      tag(box, ov.data);
      return true;
    }

    function destroy() {
      for (const name of Object.keys(plots)) remove(name);
      zoomed = false;
    }

    function resize() {
      for (const [name, p] of Object.entries(plots)) p.u.setSize({ width: width(name), height: p.u.height });
    }

    let frame = 0;
    if (typeof ResizeObserver !== 'undefined') {
      new ResizeObserver(() => {
        cancelAnimationFrame(frame);
        frame = requestAnimationFrame(resize);
      }).observe(container);
    }

    // The panels drawn, top to bottom, for a PNG.
    const shown = () => Object.values(plots).sort((a, b) => (a.box.compareDocumentPosition(b.box) & 4 ? -1 : 1)).map((p) => p.u);

    return { draw, drawOverlay, destroy, resize, shown, plots, isZoomed: () => zoomed, resetZoom: () => { zoomed = false; } };
  }

  // Panels on an x axis of their own (chart.js xyPanel: a latency CDF, a measurement's
  // results per frame size or per phase): not time, so no shared cursor or zoom with the
  // time panels. Each box also carries data-values (labels, x and every series' values)
  // for a test to read what is drawn.
  function createXYSet(container) {
    const plots = {}; // name -> {u, sig, box}

    function width() {
      return Math.max(240, container.clientWidth - 30);
    }

    function opts(p) {
      const labels = p.labels;
      const x = labels ? { time: false, range: () => [-0.5, labels.length - 0.5] } : { time: false };
      const series = [{ label: p.xlabel, value: (u, v) => (v == null ? '–' : labels ? labels[v] || '' : fmt(v)) }];
      // Categories (frame sizes, phases): bars, two series side by side; else lines.
      const n = p.series.length;
      p.series.forEach((s, i) => {
        const color = colorOf(s, i);
        series.push(labels && n <= 2
          ? { label: s.label, stroke: color, fill: color + '99', width: 1, value: (u, v) => fmt(v),
            paths: root.uPlot.paths.bars({ size: [n === 1 ? 0.5 : 0.35, 90], align: n === 1 ? 0 : i === 0 ? -1 : 1 }), points: { show: false } }
          : { label: s.label, stroke: color, width: 2, spanGaps: true, dash: s.kind === 'rev' ? [6, 3] : undefined,
            value: (u, v) => fmt(v), points: { show: true, size: 6 } });
      });
      const xAxis = labels ? { label: p.xlabel, splits: () => labels.map((l, i) => i), values: (u, vals) => vals.map((v) => labels[v] || '') }
        : { label: p.xlabel };
      return {
        title: p.title, height: 220, width: width(), series,
        axes: [xAxis, { label: p.unit }],
        scales: { x, y: { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1] } },
        legend: { show: true, live: false }, cursor: { drag: { x: false, y: false } },
      };
    }

    function values(p) {
      const out = { labels: p.labels, x: p.data[0], series: {} };
      p.series.forEach((s, i) => { out.series[s.label] = p.data[i + 1]; });
      return JSON.stringify(out);
    }

    function remove(name) { removePlot(plots, name); }

    // Draws the list (replacing what it had). Returns true when anything is drawn.
    function draw(list) {
      const want = new Set((list || []).filter((p) => p && p.series.length && p.data[0].length).map((p) => p.name));
      for (const name of Object.keys(plots)) if (!want.has(name)) remove(name);
      for (const p of list || []) {
        if (!want.has(p.name)) continue;
        const sig = p.signature + '/' + p.unit + '/' + (p.labels || []).join(',');
        const old = plots[p.name];
        if (old && old.sig === sig) old.u.setData(p.data);
        else {
          remove(p.name);
          const box = document.createElement('div');
          box.className = 'panel xy ' + p.name;
          container.append(box);
          plots[p.name] = { u: new root.uPlot(opts(p), p.data, box), sig, box };
        }
        tag(plots[p.name].box, p.data);
        plots[p.name].box.dataset.values = values(p);
      }
      return want.size > 0;
    }

    function destroy() {
      for (const name of Object.keys(plots)) remove(name);
    }

    if (typeof ResizeObserver !== 'undefined') {
      new ResizeObserver(() => { for (const p of Object.values(plots)) p.u.setSize({ width: width(), height: p.u.height }); }).observe(container);
    }

    return { draw, destroy, shown: () => Object.values(plots).map((p) => p.u) };
  }

  // The drawn panels as one PNG: each panel's title, its canvas (axes and lines) and its
  // legend as colored text, on white. Returns a Promise of a Blob.
  function toPng(us, heading) {
    const ratio = (root.devicePixelRatio || 1);
    const pad = 12 * ratio, titleH = 22 * ratio, legendH = 20 * ratio, headH = heading ? 26 * ratio : 0;
    let w = 0, h = pad + headH;
    for (const u of us) {
      w = Math.max(w, u.ctx.canvas.width);
      h += titleH + u.ctx.canvas.height + legendH + pad;
    }
    const c = document.createElement('canvas');
    c.width = w + 2 * pad;
    c.height = h;
    const g = c.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, c.width, c.height);
    let y = pad;
    const font = (px, bold) => (bold ? 'bold ' : '') + px * ratio + 'px system-ui, sans-serif';
    if (heading) {
      g.fillStyle = '#102a43';
      g.font = font(14, true);
      g.fillText(heading, pad, y + 16 * ratio);
      y += headH;
    }
    for (const u of us) {
      g.fillStyle = '#1f2933';
      g.font = font(13, true);
      const t = u.root.querySelector('.u-title');
      g.fillText(t ? t.textContent : '', pad, y + 15 * ratio);
      y += titleH;
      g.drawImage(u.ctx.canvas, pad, y);
      y += u.ctx.canvas.height;
      g.font = font(12);
      let x = pad;
      u.series.forEach((s, i) => {
        if (i === 0 || !s.show) return;
        const label = s.label + (u.legend && u.legend.values && u.legend.values[i] ? ' ' + (u.legend.values[i]._ || '') : '');
        g.fillStyle = typeof s.stroke === 'function' ? s.stroke(u, i) : s.stroke || '#000';
        g.fillRect(x, y + 6 * ratio, 14 * ratio, 3 * ratio);
        x += 18 * ratio;
        g.fillStyle = '#1f2933';
        g.fillText(label, x, y + 12 * ratio);
        x += g.measureText(label).width + 16 * ratio;
      });
      y += legendH + pad;
    }
    return new Promise((resolve) => c.toBlob(resolve, 'image/png'));
  }

  root.LPPlots = { PANELS, PALETTE, fmt, createChartSet, createXYSet, toPng };
})(window);
