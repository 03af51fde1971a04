/* The linkperf form model: fields, validation, the argument list and the shell-quoted
 * command line, its inverse, and JPerf .jperf import. Pure logic, no DOM, so that Node tests
 * it; app.js draws the fields from FIELDS. Option knowledge is not written here: names,
 * letters, ranges, their texts, the words of the messages, the defaults and the named values
 * of the select lists (-f, -S, --dscp) come from the options document the binary makes from
 * its option table (GET /api/options, also `linkperf ui --options`; src/cli/optdoc.c).
 * create(doc) builds the form from it; what stays here is the page's own: labels, groups,
 * which fields apply when, placeholders for "0 = off", the words for "not given", and the
 * page's rules on combinations. */
(function (root) {
  'use strict';

  // A blank text field means "linkperf's default" (shown as the placeholder); anything typed
  // is passed on as typed, so the command line says exactly what the user asked for.
  const DEFAULTS = Object.freeze({
    mode: 'client', host: '', port: '', parallel: '',
    listenPort: '', allow: '', maxConns: '',
    dialect: 'iperf3', transmitUnit: 'seconds', transmit: '', format: '', interval: '',
    dual: false, tradeoff: false, listenBack: '', file: '', printMss: false, compat: false,
    proto: 'tcp', tcpRate: '', tcpLen: '', tcpWin: '', mss: '', noDelay: false, congestion: '', bounceback: false,
    bandwidth: '', udpWin: '', udpLen: '',
    ttl: '', tos: '', dscp: '', bind: '', ipv6: false,
    reverse: false, bidir: false, omit: '', udp64: false, title: '',
    lineRate: '', frames: '', trial: '', resolution: '', maxTime: '', rfcTests: '', ulTime: '', ulStreams: '',
  });

  const GROUPS = [['quick', 'Quick start'], ['app', 'Application'], ['transport', 'Transport'],
    ['tcp', 'TCP'], ['udp', 'UDP'], ['ip', 'IP'], ['lp', 'iperf3 / linkperf']];

  const isClient = (s) => s.mode === 'client';
  const isServer = (s) => s.mode === 'server';
  const tcpClient = (s) => isClient(s) && s.proto === 'tcp';
  const udpClient = (s) => isClient(s) && s.proto === 'udp';
  const always = () => true;

  // The measurement modes run a subcommand (src/cli/rfc2544.c, under_load.c) with options of
  // its own: the fields live in each (the rest of the form is the client's or the server's).
  // The subcommand's parser checks them (POST /api/check); the page checks only their shape.
  const MEASURE_FIELDS = Object.freeze({
    rfc2544: ['host', 'port', 'dialect', 'lineRate', 'frames', 'trial', 'resolution', 'maxTime', 'rfcTests', 'ipv6'],
    'under-load': ['host', 'port', 'ulStreams', 'ulTime', 'congestion', 'ipv6'],
  });
  const isMeasure = (s) => Object.prototype.hasOwnProperty.call(MEASURE_FIELDS, s.mode);
  const inMode = (mode) => (s) => s.mode === mode;

  /* ---- the fields, grouped like JPerf's panes ----
   * opt: the option of the options document the field sets (its flag and range come from
   * there); range: 'narrow' when the option's narrower range applies wherever the field does
   * (a client's port, a UDP datagram); applies(state): when the field is live (else greyed,
   * not emitted); zero: the placeholder when the default is 0 or empty ("system"); note:
   * what the hint adds after the range; options: a select's [value, text] pairs, when its
   * option names none in the document (else they are the option's "choices"); none: the
   * first entry's text, '' (the option not given), for an option without a default. */
  const FIELD_SPECS = [
    { name: 'mode', group: 'quick', label: 'Mode', kind: 'radio', options: [['client', 'Client'], ['server', 'Server'], ['rfc2544', 'RFC 2544'], ['under-load', 'Under load']], applies: always },
    { name: 'host', group: 'quick', label: 'Server address', kind: 'text', opt: 'client', applies: isClient, check: 'host', hint: 'host name or address (host%dev binds a device)' },
    { name: 'port', group: 'quick', label: 'Port', kind: 'text', opt: 'port', range: 'narrow', applies: isClient },
    { name: 'parallel', group: 'quick', label: 'Parallel streams', kind: 'text', opt: 'parallel', applies: isClient },
    { name: 'listenPort', group: 'quick', label: 'Listen port', kind: 'text', opt: 'port', applies: isServer, note: '(0 = any free port)' },
    { name: 'allow', group: 'quick', label: 'Client limit', kind: 'text', opt: 'allow', applies: isServer, check: 'allow', hint: 'hosts, addresses or CIDRs, comma-separated', zero: 'any client' },
    { name: 'maxConns', group: 'quick', label: 'Num connections', kind: 'text', opt: 'max-connections', applies: isServer, note: '(0 = serve forever)' },
    { name: 'lineRate', group: 'quick', label: 'Line rate', kind: 'text', flag: '-b', check: 'units', applies: inMode('rfc2544'), hint: 'bits/s of frames on the wire, 100k..400G (k/m/g 1000-based), e.g. 100m' },
    { name: 'frames', group: 'quick', label: 'Frame sizes', kind: 'text', flag: '--frames', check: 'list', applies: inMode('rfc2544'), placeholder: '64,128,256,512,1024,1280,1518', hint: 'Ethernet frames 64..9018 bytes, comma-separated' },
    { name: 'trial', group: 'quick', label: 'Trial seconds', kind: 'text', flag: '--trial', check: 'number', applies: inMode('rfc2544'), placeholder: '2', hint: '0.5..600 (RFC 2544 asks for 60)' },
    { name: 'resolution', group: 'quick', label: 'Resolution (%)', kind: 'text', flag: '--resolution', check: 'number', applies: inMode('rfc2544'), placeholder: '1', hint: 'the search stops within this % of the line rate, 0.1..50' },
    { name: 'maxTime', group: 'quick', label: 'Max time (s)', kind: 'text', flag: '--max-time', check: 'number', applies: inMode('rfc2544'), placeholder: '3600', hint: 'no trial starts after this long, 1..86400' },
    { name: 'rfcTests', group: 'quick', label: 'Tests', kind: 'text', flag: '--tests', check: 'list', applies: inMode('rfc2544'), placeholder: 'all', hint: 'throughput, latency, loss, back-to-back (latency needs throughput and dialect iperf2)' },
    { name: 'ulStreams', group: 'quick', label: 'Load streams', kind: 'text', flag: '-P', check: 'number', applies: inMode('under-load'), placeholder: '8', hint: 'TCP streams loading the link, 1..128' },
    { name: 'ulTime', group: 'quick', label: 'Seconds a phase', kind: 'text', flag: '-t', check: 'number', applies: inMode('under-load'), placeholder: '10', hint: '2..3600; four phases: idle, up, down, both' },

    { name: 'dialect', group: 'app', label: 'Dialect', kind: 'select', opt: 'dialect', applies: isClient, options: [['iperf3', 'iperf3'], ['iperf2', 'iperf2 (JPerf, boards)']] },
    { name: 'transmitUnit', group: 'app', label: 'Transmit', kind: 'radio', applies: isClient, options: [['seconds', 'Seconds'], ['bytes', 'Bytes']] },
    { name: 'transmit', group: 'app', label: 'Transmit amount', kind: 'text', opt: 'time', applies: isClient },
    { name: 'format', group: 'app', label: 'Output format', kind: 'select', opt: 'format', applies: always },
    { name: 'interval', group: 'app', label: 'Report interval (s)', kind: 'text', opt: 'interval', applies: always, note: '(0 = no interval reports)' },
    { name: 'dual', group: 'app', label: 'Dual (iperf2 -d)', kind: 'check', opt: 'dual', applies: isClient },
    { name: 'tradeoff', group: 'app', label: 'Tradeoff (iperf2 -r)', kind: 'check', opt: 'tradeoff', applies: isClient },
    { name: 'listenBack', group: 'app', label: 'Listen port for the reverse connection', kind: 'text', opt: 'listen-port', applies: isClient, note: '(0 = the server port)', zero: 'server port' },
    { name: 'file', group: 'app', label: 'Representative file', kind: 'text', opt: 'file', applies: isClient, hint: 'a path on the machine running linkperf' },
    { name: 'printMss', group: 'app', label: 'Print MSS', kind: 'check', opt: 'print-mss', applies: always },
    { name: 'compat', group: 'app', label: 'Compatibility mode (iperf2 -C)', kind: 'check', opt: 'compat', applies: always },

    { name: 'proto', group: 'transport', label: 'Protocol', kind: 'radio', applies: isClient, options: [['tcp', 'TCP'], ['udp', 'UDP']] },
    { name: 'tcpRate', group: 'tcp', label: 'Rate limit', kind: 'text', opt: 'bitrate', applies: tcpClient, note: 'bits/s per stream', zero: 'unlimited' },
    { name: 'tcpLen', group: 'tcp', label: 'Buffer length', kind: 'text', opt: 'length', applies: tcpClient },
    { name: 'tcpWin', group: 'tcp', label: 'Window size', kind: 'text', opt: 'window', applies: tcpClient, zero: 'system' },
    { name: 'mss', group: 'tcp', label: 'Max segment size', kind: 'text', opt: 'set-mss', applies: tcpClient, note: 'bytes', zero: 'system' },
    { name: 'noDelay', group: 'tcp', label: 'No delay', kind: 'check', opt: 'no-delay', applies: tcpClient },
    { name: 'bounceback', group: 'tcp', label: 'Bounceback (round trips)', kind: 'check', opt: 'bounceback', applies: tcpClient },
    { name: 'congestion', group: 'tcp', label: 'Congestion control', kind: 'text', opt: 'congestion', applies: tcpClient, check: 'algorithm', hint: 'e.g. cubic, bbr', zero: 'system' },
    { name: 'bandwidth', group: 'udp', label: 'Bandwidth', kind: 'text', opt: 'bitrate', applies: udpClient, note: (o) => 'bits/s (0 = unlimited), /N: bursts of ' + o.burst.range },
    { name: 'udpWin', group: 'udp', label: 'Buffer size', kind: 'text', opt: 'window', applies: udpClient, zero: 'system' },
    { name: 'udpLen', group: 'udp', label: 'Packet size', kind: 'text', opt: 'length', range: 'narrow', applies: udpClient, note: 'bytes' },

    { name: 'ttl', group: 'ip', label: 'TTL (multicast)', kind: 'text', opt: 'ttl', applies: isClient, zero: 'system (1)' },
    { name: 'tos', group: 'ip', label: 'Type of service', kind: 'select', opt: 'tos', applies: isClient, none: 'None' },
    { name: 'dscp', group: 'ip', label: 'DSCP', kind: 'select', opt: 'dscp', applies: isClient, none: 'None' },
    { name: 'bind', group: 'ip', label: 'Bind to host', kind: 'text', opt: 'bind', applies: always, check: 'host', hint: 'local address (host%dev binds a device)' },
    { name: 'ipv6', group: 'ip', label: 'IPv6', kind: 'check', opt: 'version6', applies: always },

    { name: 'reverse', group: 'lp', label: 'Reverse (server sends)', kind: 'check', opt: 'reverse', applies: isClient },
    { name: 'bidir', group: 'lp', label: 'Bidirectional', kind: 'check', opt: 'bidir', applies: isClient },
    { name: 'omit', group: 'lp', label: 'Omit first seconds', kind: 'text', opt: 'omit', applies: isClient },
    { name: 'udp64', group: 'lp', label: '64-bit UDP counters', kind: 'check', opt: 'udp-counters-64bit', applies: udpClient },
    { name: 'title', group: 'lp', label: 'Title', kind: 'text', opt: 'title', applies: isClient, hint: 'prefix of every output line' },
  ];

  // In a measurement mode a field is live when the mode lists it, whatever it says otherwise.
  for (const spec of FIELD_SPECS) {
    const base = spec.applies;
    if (spec.name !== 'mode') spec.applies = (s) => (isMeasure(s) ? MEASURE_FIELDS[s.mode].includes(spec.name) : base(s));
  }

  const DIRECTIONS = ['reverse', 'bidir', 'dual', 'tradeoff']; // at most one (checks.c)

  function defaults() {
    return Object.assign({}, DEFAULTS);
  }

  // The state with every value in its expected type, unknown keys dropped.
  function normalize(state) {
    const s = defaults();
    for (const k of Object.keys(s)) {
      if (!state || !(k in state)) continue;
      s[k] = typeof s[k] === 'boolean' ? state[k] === true : String(state[k] == null ? '' : state[k]).trim();
    }
    return s;
  }

  /* ---- value grammar, as strict as src/cli/values.c ---- */

  function parseInt10(t) {
    return /^[+-]?\d+$/.test(t) ? Number(t) : NaN;
  }
  function parseNum(t) {
    return /^[+-]?(\d+\.?\d*|\.\d+)$/.test(t) ? Number(t) : NaN;
  }
  // A number with an optional K/M/G/T suffix: 1024-based for sizes, 1000-based for rates.
  function parseUnits(t, base) {
    const m = /^([+-]?(?:\d+\.?\d*|\.\d+))([kKmMgGtT]?)$/.exec(t);
    if (!m) return NaN;
    const pow = { '': 0, k: 1, m: 2, g: 3, t: 4 }[m[2].toLowerCase()];
    return Math.trunc(Number(m[1]) * Math.pow(base, pow));
  }

  // A message template of the options document ("%s is out of range (%s)%s"), each %s (or
  // %.0f) by the next argument: the CLI's printf format, filled the same way.
  function fill(template, ...args) {
    let k = 0;
    return String(template).replace(/%[-.0-9]*[sdf]/g, () => String(k < args.length ? args[k++] : ''));
  }

  // The CLI counts a value's bytes (strlen), not its characters.
  const byteLength = (t) => (typeof TextEncoder !== 'undefined' ? new TextEncoder().encode(t).length : t.length);

  // POSIX shell quoting: bare when only safe characters, else single quotes.
  function shellQuote(a) {
    if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a)) return a;
    return "'" + a.replace(/'/g, "'\\''") + "'";
  }

  function commandLine(args) {
    return ['linkperf'].concat(args.map(shellQuote)).join(' ');
  }

  // A command line as the CLI and the history print it (POSIX words: '…', "…", \x) -> words.
  function splitCommand(text) {
    const out = [];
    let cur = '', inWord = false, q = '';
    const t = String(text || '');
    for (let i = 0; i < t.length; i++) {
      const ch = t[i];
      if (q === "'") {
        if (ch === "'") q = ''; else cur += ch;
      } else if (q === '"') {
        if (ch === '"') q = '';
        else if (ch === '\\' && i + 1 < t.length && '"\\$`'.includes(t[i + 1])) cur += t[++i];
        else cur += ch;
      } else if (/\s/.test(ch)) {
        if (inWord) out.push(cur);
        cur = ''; inWord = false;
      } else {
        inWord = true;
        if (ch === "'" || ch === '"') q = ch;
        else if (ch === '\\' && i + 1 < t.length) cur += t[++i];
        else cur += ch;
      }
    }
    if (inWord) out.push(cur);
    return out;
  }

  /* ---- JPerf .jperf import (a java.util.Properties text file) ---- */

  function unescapeProp(t) {
    return t.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (m, e) => {
      if (e[0] === 'u' && e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
      return { t: '\t', n: '\n', r: '\r', f: '\f' }[e] || e;
    });
  }

  // Comments (# !), blank lines, "key=value", "key: value", "key value", and lines
  // continued by a trailing odd backslash, as Properties.load reads them.
  function parseProperties(text) {
    const out = new Map();
    const lines = String(text).replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i].replace(/^[ \t\f]+/, '');
      if (line === '' || line[0] === '#' || line[0] === '!') continue;
      while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < lines.length) {
        line = line.slice(0, -1) + lines[++i].replace(/^[ \t\f]+/, '');
      }
      const m = /^((?:\\.|[^\\=:\s])*)[ \t\f]*[=:]?[ \t\f]*(.*)$/.exec(line);
      out.set(unescapeProp(m[1]), unescapeProp(m[2]));
    }
    return out;
  }

  // Sizes as JPerf passed them to iperf2: the unit's letter is an iperf2 suffix, and iperf2
  // reads k/m/g as 1000-based and K/M/G as 1024-based bytes (so "KBits" was really 1000 bytes).
  const SIZE_UNITS = { BITS: 1, BYTES: 1, KBITS: 1e3, KBYTES: 1024, MBITS: 1e6, MBYTES: 1048576,
    GBITS: 1e9, GBYTES: 1073741824 };
  const OUTPUT_FORMATS = { ADAPTIVE_BITS: '', ADAPTIVE_BYTES: 'A', KBITS: 'k', KBYTES: 'K',
    MBITS: 'm', MBYTES: 'M', GBITS: 'g', GBYTES: 'G' };
  // JPerf wrote the byte it sent under a wrong name for two entries; keep the byte.
  const JPERF_TOS = { NONE: ['', ''], LOW_COST: ['0x02', ''],
    LOW_RELIABILITY: ['0x10', "JPerf's 'Low Reliability' sent 0x10, which is Minimize-Delay"],
    THROUGHPUT: ['0x04', "JPerf's 'Throughput' sent 0x04, which is Maximize-Reliability; choose Maximize-Throughput (0x08) if that was meant"] };

  // Bytes in linkperf's size syntax: the largest exact 1024-based suffix.
  function sizeText(bytes) {
    let v = bytes, i = 0;
    while (i < 3 && v >= 1024 && v % 1024 === 0) { v /= 1024; i++; }
    return v + ['', 'K', 'M', 'G'][i];
  }

  /* ---- the form, from the options document ---- */

  // Everything that needs option knowledge, built from the document doc (GET /api/options).
  // Throws when doc lacks an option a field needs: a page that cannot say its ranges must
  // not guess them.
  function create(doc) {
    if (!doc || !Array.isArray(doc.options) || !doc.messages) throw new Error('not an options document');
    const OPTS = new Map(doc.options.map((o) => [o.name, o]));
    const MSG = doc.messages;
    const optOf = (name) => {
      const o = OPTS.get(name);
      if (!o) throw new Error('the options document has no --' + name);
      return o;
    };
    // How the page writes an option: its letter when it has one (-p), else --name.
    const flagOf = (name) => { const o = optOf(name); return o.letter ? '-' + o.letter : '--' + o.name; };
    // The value the parser leaves for a bare line of this situation (optdoc.c).
    function defaultOf(name, situation) {
      const o = optOf(name);
      return o.defaults && Object.prototype.hasOwnProperty.call(o.defaults, situation) ? o.defaults[situation] : o.default;
    }
    function situation(s) {
      if (isServer(s)) return 'server';
      return s.proto + (s.dialect === 'iperf2' ? '-iperf2' : '') + (s.ipv6 ? '-inet6' : '');
    }

    /* -- checkers: each returns the CLI's words for what it refuses, or ''; they see
     *    trimmed, non-empty text -- */

    function parseAs(o, t) {
      if (o.kind === 'int') return parseInt10(t);
      if (o.kind === 'number') return parseNum(t);
      return parseUnits(t, o.base);
    }
    // The ranges in the order the CLI checks them: the row's as the value is read, then the
    // narrower one once the line is known.
    function ranges(o, narrow) {
      const out = [{ min: o.min, max: o.max, zeroOk: o.zero_ok, range: o.range, suffix: '' }];
      if (narrow && o.narrow) out.push({ min: o.narrow.min, max: o.narrow.max, zeroOk: false, range: o.narrow.range, suffix: o.narrow.suffix });
      return out;
    }
    function numeric(o, narrow) {
      return (t) => {
        const v = parseAs(o, t);
        if (Number.isNaN(v)) return fill(MSG.not_a, t, o.expects);
        for (const r of ranges(o, narrow)) {
          if (r.zeroOk && v === 0) continue;
          if (v < r.min || v > r.max) return fill(MSG.out_of_range, t, r.range, r.suffix);
        }
        return '';
      };
    }
    // RATE[/BURST]: the burst is read first, as parse.c does.
    function rate(o) {
      const number = numeric(o, false);
      return (t) => {
        const slash = t.indexOf('/');
        if (slash < 0 || !o.burst) return number(t);
        const b = t.slice(slash + 1), n = parseInt10(b);
        if (Number.isNaN(n)) return fill(MSG.bad_burst, b);
        if (n < o.burst.min || n > o.burst.max) return fill(MSG.burst_range, b, o.burst.range);
        return number(t.slice(0, slash));
      };
    }
    const tooLong = (o, t) => (o.max_length > 0 && byteLength(t) > o.max_length ? fill(MSG.too_long, o.max_length) : '');
    function text(o) {
      return (t) => tooLong(o, t);
    }
    // host[%dev], as the CLI splits it (setters.c); the device is --bind-dev's length.
    function host(o) {
      const dev = optOf('bind-dev').max_length;
      return (t) => {
        if (/\s/.test(t)) return 'a host name cannot contain spaces';
        const long = tooLong(o, t);
        if (long) return long;
        const h = t.split('%')[0];
        if (!h) return 'the host is empty';
        return t.includes('%') && !new RegExp('^%[^%]{1,' + dev + '}$').test(t.slice(h.length)) ? 'the device after % must be 1..' + dev + ' characters' : '';
      };
    }
    function allowList(o) {
      return (t) => {
        const long = tooLong(o, t);
        if (long) return long;
        const bad = t.split(',').map((x) => x.trim()).find((x) => !/^[0-9A-Za-z.:\-/]+$/.test(x));
        if (bad === undefined) return '';
        return bad === '' ? 'empty entry in the list' : "'" + bad + "' is not a host name, address or CIDR block";
      };
    }
    function algorithm(o) {
      return (t) => tooLong(o, t) || (/^[A-Za-z0-9_.-]+$/.test(t) ? '' : 'an algorithm name (letters, digits, _ . -)');
    }
    const oneOf = (list) => (t) => (list.some((x) => x[0] === t) ? '' : "'" + t + "' is not one of the choices");
    // A select's entries from its option's named values (RFC 1349's TOS values, the DSCP
    // names, the -f letters): first '' (the option not given), shown as the default it
    // leaves ("adaptive bits (default)") or as the field's word for none, then the others in
    // the document's order.
    function choicesOf(spec, o) {
      if (spec.options) return spec.options;
      if (!o || !Array.isArray(o.choices)) throw new Error('the options document lists no choices for --' + spec.opt);
      const d = o.choices.find((c) => c.value === o.default);
      const first = ['', d ? d.label + ' (default)' : spec.none];
      return [first].concat(o.choices.filter((c) => c !== d).map((c) => [c.value, c.label]));
    }

    function checkerOf(spec, o) {
      if (spec.kind === 'select' || spec.kind === 'radio') return oneOf(spec.options);
      if (spec.check === 'number') return (t) => (Number.isFinite(parseNum(t)) ? '' : 'not a number');
      if (spec.check === 'units') return (t) => (Number.isFinite(parseUnits(t, 1000)) ? '' : 'not a rate (e.g. 100m)');
      if (spec.check === 'list') return (t) => (/^[A-Za-z0-9-]+(,[A-Za-z0-9-]+)*$/.test(t) ? '' : 'a comma-separated list');
      if (spec.kind === 'check' || !o) return null;
      if (spec.check === 'host') return host(o);
      if (spec.check === 'allow') return allowList(o);
      if (spec.check === 'algorithm') return algorithm(o);
      if (o.kind === 'rate') return rate(o);
      if (o.range) return numeric(o, spec.range === 'narrow');
      return text(o);
    }
    // The range the field takes, the field's own note, and the unit suffixes' base.
    function hintOf(spec, o) {
      if (spec.hint || !o || !o.range || spec.kind !== 'text') return spec.hint || '';
      const r = spec.range === 'narrow' && o.narrow ? o.narrow.range : o.range;
      const note = typeof spec.note === 'function' ? spec.note(o) : spec.note;
      return r + (note ? ' ' + note : '') + (o.base ? ', K/M/G/T ' + o.base + '-based' : '');
    }

    const FIELDS = FIELD_SPECS.map((spec) => {
      const o = spec.opt ? optOf(spec.opt) : null;
      const f = Object.assign({}, spec);
      if (o) {
        f.flag = flagOf(spec.opt);
        f.help = o.help;
      }
      if (spec.kind === 'select') f.options = choicesOf(spec, o);
      f.check = checkerOf(f, o);
      f.hint = hintOf(spec, o);
      return Object.freeze(f);
    });
    const BY_NAME = Object.fromEntries(FIELDS.map((f) => [f.name, f]));

    // -t or -n: the transmit field's option and checker follow its unit.
    const TRANSMIT = { seconds: 'time', bytes: 'bytes' };
    const transmitCheck = { seconds: numeric(optOf('time'), false), bytes: numeric(optOf('bytes'), false) };
    const transmitHint = 'seconds ' + optOf('time').range + ' (0 = forever), or bytes ' + optOf('bytes').range;
    BY_NAME.transmit = FIELDS[FIELDS.findIndex((f) => f.name === 'transmit')] = Object.freeze(Object.assign({}, BY_NAME.transmit, {
      check: (t, s) => transmitCheck[s.transmitUnit === 'bytes' ? 'bytes' : 'seconds'](t), hint: transmitHint,
    }));

    // The page's dialect rules, from the options' flags: a client option that exists only
    // in iperf2 (or that linkperf has only over iperf2) needs the iperf2 dialect chosen;
    // iperf3 protocol features refuse it.
    const fieldsWith = (pred) => FIELDS.filter((f) => f.opt && pred(optOf(f.opt))).map((f) => f.name);
    const IPERF2_ONLY = fieldsWith((o) => (o.implies_iperf2 || o.needs_iperf2) && o.mode === 'client');
    const IPERF2_FOR_A_CLIENT = fieldsWith((o) => o.implies_iperf2 && o.mode === 'general');
    const IPERF3_ONLY = fieldsWith((o) => o.iperf3_only);
    const IMPLIES_IPERF2 = fieldsWith((o) => o.implies_iperf2);

    function applies(name, state) {
      return BY_NAME[name].applies(state);
    }

    // Placeholders: the parser's default for the situation the field is live in (a greyed
    // UDP field shows the UDP default), or the field's words for a default that means "off".
    function placeholder(name, state) {
      const s = normalize(state), f = BY_NAME[name];
      if (name === 'transmit' && s.transmitUnit === 'bytes') return 'e.g. 100M';
      if (name === 'listenPort') return (doc.server_ports || []).join(' and ');
      if (name === 'port' && isMeasure(s)) return s.mode === 'rfc2544' && s.dialect !== 'iperf2' ? '5201' : '5001';
      if (!f.opt) return f.placeholder || '';
      const where = [s, Object.assign({}, s, { proto: 'udp' }), Object.assign({}, s, { proto: 'tcp' }),
        Object.assign({}, s, { mode: 'client' }), Object.assign({}, s, { mode: 'client', proto: 'udp' }),
        Object.assign({}, s, { mode: 'server' })].find((x) => f.applies(x)) || s;
      const d = defaultOf(name === 'transmit' ? TRANSMIT.seconds : f.opt, situation(where));
      if (d === undefined) return f.zero || '';
      return (d === '' || d === '0') && f.zero ? f.zero : d;
    }

    // One message per field; rules that involve two fields are reported on the later one.
    function validate(input) {
      const s = normalize(input);
      const errors = {};
      const live = (n) => applies(n, s);
      const on = (n) => live(n) && (s[n] === true || (typeof s[n] === 'string' && s[n] !== ''));
      for (const f of FIELDS) {
        if (!f.check || !on(f.name)) continue;
        const msg = f.check(s[f.name], s);
        if (msg) errors[f.name] = msg;
      }
      const put = (n, msg) => { if (!errors[n]) errors[n] = msg; };
      if (isMeasure(s) && s.host === '') put('host', "enter the server's address");
      if (s.mode === 'rfc2544' && s.lineRate === '') put('lineRate', 'enter the line rate (e.g. 100m for Fast Ethernet)');
      if (isClient(s)) {
        if (s.host === '') put('host', "enter the server's address");
        if (s.transmitUnit === 'bytes' && s.transmit === '') put('transmit', 'enter the number of bytes to send');
        const i2 = s.dialect === 'iperf2';
        for (const n of IPERF2_ONLY) if (on(n) && !i2) put(n, BY_NAME[n].flag + ' needs dialect iperf2');
        for (const n of IPERF2_FOR_A_CLIENT) if (on(n) && !i2) put(n, BY_NAME[n].flag + ' needs dialect iperf2 for a client');
        for (const n of IPERF3_ONLY) if (on(n) && i2) put(n, BY_NAME[n].flag + ' is an iperf3 protocol feature (dialect iperf3)');
        const dirs = DIRECTIONS.filter(on);
        if (dirs.length > 1) put(dirs[1], 'cannot be combined with ' + BY_NAME[dirs[0]].flag);
        if (dirs.length && on('compat')) put('compat', 'cannot be combined with ' + BY_NAME[dirs[0]].flag);
        if (i2 && on('congestion') && on('reverse')) put('congestion', 'cannot be combined with ' + BY_NAME.reverse.flag + ' in dialect iperf2');
        if (on('tos') && on('dscp')) put('dscp', 'choose a type of service or a DSCP, not both');
      }
      return errors;
    }

    // The linkperf argument list for the state (valid or not: the UI shows it either way).
    function buildArgs(input) {
      const s = normalize(input);
      const args = [];
      const live = (n) => applies(n, s);
      const opt = (n, flag) => {
        if (live(n) && s[n] !== '' && s[n] !== false) args.push(flag || BY_NAME[n].flag, s[n]);
      };
      const flag = (n) => { if (live(n) && s[n] === true) args.push(BY_NAME[n].flag); };
      if (isMeasure(s)) { // linkperf rfc2544|under-load -c host ...: the subcommand's options
        args.push(s.mode, BY_NAME.host.flag, s.host);
        opt('port');
        if (s.mode === 'rfc2544') {
          opt('lineRate');
          if (s.dialect === 'iperf2') args.push(BY_NAME.dialect.flag, 'iperf2');
          ['frames', 'trial', 'resolution', 'maxTime', 'rfcTests'].forEach((n) => opt(n));
        } else {
          ['ulStreams', 'ulTime', 'congestion'].forEach((n) => opt(n));
        }
        flag('ipv6');
        return args;
      }
      if (isServer(s)) {
        args.push(flagOf('server'));
        opt('listenPort');
        opt('allow');
        opt('maxConns');
      } else {
        args.push(BY_NAME.host.flag, s.host);
        opt('port');
        if (s.dialect === 'iperf2') args.push(BY_NAME.dialect.flag, 'iperf2');
        if (s.proto === 'udp') args.push(flagOf('udp'));
        opt('tcpRate'); opt('bandwidth');
        opt('transmit', flagOf(TRANSMIT[s.transmitUnit === 'bytes' ? 'bytes' : 'seconds']));
        opt('parallel');
        opt('tcpLen'); opt('udpLen');
        opt('tcpWin'); opt('udpWin');
        opt('mss');
        flag('noDelay');
        flag('bounceback');
        opt('congestion');
        DIRECTIONS.forEach(flag);
        opt('listenBack');
        opt('file');
        opt('omit');
        flag('udp64');
        opt('ttl'); opt('tos'); opt('dscp');
        opt('title');
      }
      opt('interval');
      opt('format');
      flag('printMss');
      flag('compat');
      opt('bind');
      flag('ipv6');
      return args;
    }

    /* -- the option spellings the page reads back: every field's option, and the role,
     *    protocol and transmit options, by letter and by long name -- */

    const SPELLINGS = new Map(); // "-p", "--port" -> [canonical flag, takes a value]
    for (const name of new Set(FIELDS.filter((f) => f.opt).map((f) => f.opt).concat(['server', 'udp', 'time', 'bytes']))) {
      const o = optOf(name), entry = [flagOf(name), o.kind !== 'flag'];
      if (o.letter) SPELLINGS.set('-' + o.letter, entry);
      SPELLINGS.set('--' + o.name, entry);
    }
    // "-t/--time" (how the server names an option), "--time", "-t", "--time=5" -> "-t"
    function canonical(option) {
      const o = String(option || '').split('=')[0];
      for (const part of o.split('/')) {
        const hit = SPELLINGS.get(part);
        if (hit) return hit[0];
      }
      return o;
    }
    const FLAG_FIELDS = {}; // canonical flag -> the fields it sets
    for (const f of FIELDS) if (f.flag) (FLAG_FIELDS[f.flag] = FLAG_FIELDS[f.flag] || []).push(f);
    FLAG_FIELDS[flagOf('bytes')] = [BY_NAME.transmit];
    // Of the fields one option sets (-p, -b, -l, -w), the one live in s; for a server, the
    // client's by protocol, so that what it drops is named as before.
    function fieldFor(flag, s) {
      const fs = FLAG_FIELDS[flag] || [];
      return fs.find((f) => f.applies(s)) || fs.find((f) => f.applies(Object.assign({}, s, { mode: 'client' }))) || fs[0];
    }

    // Which field an option named by the server's /api/check belongs to (-l and -w depend on
    // the protocol, -p on the mode). Returns '' when none.
    function fieldForOption(option, input) {
      const s = normalize(input);
      if (isMeasure(s)) { // the subcommand's messages name its own spellings
        const long = { '--client': '-c', '--port': '-p', '--bitrate': '-b', '--parallel': '-P', '--time': '-t', '--congestion': '-C' };
        const flag = long[option] || option;
        const hit = MEASURE_FIELDS[s.mode].map((n) => BY_NAME[n]).find((f) => f.flag === flag);
        return hit ? hit.name : '';
      }
      const f = canonical(option);
      if (f === flagOf('udp')) return 'proto';
      if (f === flagOf('server')) return 'mode';
      const hit = fieldFor(f, s);
      return hit ? hit.name : '';
    }

    /* ---- the inverse of buildArgs: an argument list back into a form state ----
     * For profiles and for "use these settings" on a history run. Options the form has no
     * field for are returned in `unknown` (with their values), so the caller can say what
     * was dropped. */

    // "-S 16" and "-S 0x10" name the same TOS byte: a value read back is the list's entry
    // for that byte when it has one, whichever way the list spells it.
    function tosText(v) {
      const byte = (t) => (/^0x[0-9a-f]+$/i.test(t) ? parseInt(t, 16) : /^0[0-7]+$/.test(t) ? parseInt(t, 8) : parseInt10(t));
      const n = byte(v);
      const hit = Number.isNaN(n) ? undefined : BY_NAME.tos.options.find((o) => o[0] !== '' && byte(o[0]) === n);
      return hit ? hit[0] : v;
    }

    // A measurement's command line (its subcommand first): its fields by their flags.
    function parseMeasure(list) {
      const s = defaults(), unknown = [];
      s.mode = list[0];
      const fields = MEASURE_FIELDS[s.mode].map((n) => BY_NAME[n]);
      const long = { '--client': '-c', '--port': '-p', '--bitrate': '-b', '--parallel': '-P', '--time': '-t', '--congestion': '-C', '--version6': '-6' };
      for (let i = 1; i < list.length; i++) {
        const a = long[list[i]] || list[i];
        const f = fields.find((x) => x.flag === a);
        if (f && f.kind === 'check') s[f.name] = true;
        else if (f && i + 1 < list.length) s[f.name] = list[++i];
        else unknown.push(list[i]);
      }
      return { state: s, unknown };
    }

    function parseArgs(input) {
      const list = (Array.isArray(input) ? input : []).map(String);
      if (list[0] === 'linkperf') list.shift();
      if (Object.prototype.hasOwnProperty.call(MEASURE_FIELDS, list[0])) return parseMeasure(list);
      const s = defaults();
      const unknown = [], seen = [];
      // Split into [flag, value] pairs first: -b, -l and -w go to different fields by protocol.
      for (let i = 0; i < list.length; i++) {
        let a = list[i], val;
        const eq = a.startsWith('--') ? a.indexOf('=') : -1;
        if (eq > 0) { val = a.slice(eq + 1); a = a.slice(0, eq); }
        let spec = SPELLINGS.get(a);
        const short = SPELLINGS.get(a.slice(0, 2));
        if (!spec && /^-[A-Za-z0-9]./.test(a) && short && short[1]) { // -P2
          val = a.slice(2);
          a = a.slice(0, 2);
          spec = short;
        }
        if (!spec) {
          // an option we cannot show: keep its value with it when the next word is not an option
          const next = list[i + 1];
          if (a.startsWith('-') && val === undefined && next !== undefined && !/^-./.test(next)) unknown.push(a + ' ' + next), i++;
          else unknown.push(val === undefined ? a : a + '=' + val);
          continue;
        }
        if (spec[1] && val === undefined) {
          if (i + 1 >= list.length) { unknown.push(a); continue; }
          val = list[++i];
        }
        seen.push([spec[0], val]);
      }
      const has = (f) => seen.some((x) => x[0] === f);
      const SERVER = flagOf('server'), CLIENT = BY_NAME.host.flag, UDP = flagOf('udp');
      s.mode = has(SERVER) && !has(CLIENT) ? 'server' : 'client';
      s.proto = has(UDP) ? 'udp' : 'tcp';
      for (const [f, v] of seen) {
        if (f === SERVER || f === UDP) continue;
        const field = fieldFor(f, s);
        if (field.kind === 'check') s[field.name] = true;
        else if (field.name === 'dialect') {
          if (v === 'iperf2' || v === 'iperf3') s.dialect = v;
          else unknown.push(f + ' ' + v);
        } else if (field.name === 'transmit') {
          s.transmitUnit = f === flagOf('bytes') ? 'bytes' : 'seconds';
          s.transmit = v;
        } else if (field.name === 'tos') s.tos = tosText(v);
        else if (field.kind === 'select' && field.opt && v === optOf(field.opt).default) s[field.name] = ''; // "-f a": the default, listed as 
        else if (field.name === 'host' && s.mode === 'server') unknown.push(f + ' ' + v);
        else s[field.name] = v;
      }
      // iperf2-only options imply the dialect, as on the command line (a server has none)
      if (isClient(s) && IMPLIES_IPERF2.some((n) => s[n] !== DEFAULTS[n])) s.dialect = 'iperf2';
      // options of the other mode (or protocol) that the builder would drop
      for (const f of FIELDS) {
        if (f.name === 'mode' || applies(f.name, s)) continue;
        const v = s[f.name];
        if (v !== DEFAULTS[f.name] && f.flag) {
          unknown.push(f.flag + (typeof v === 'boolean' ? '' : ' ' + v) + ' (not used by a ' + (isServer(s) ? 'server' : s.proto.toUpperCase() + ' client') + ')');
          s[f.name] = DEFAULTS[f.name];
        }
      }
      return { state: s, unknown };
    }

    function parseJperf(text) {
      const props = parseProperties(text);
      const s = defaults();
      s.dialect = 'iperf2'; // JPerf drives iperf 2 only
      const errors = [], notes = [], ignored = [], used = new Set();
      const raw = (k) => (used.add(k), props.has(k) ? props.get(k).trim() : undefined);
      const bad = (k, why) => { errors.push({ key: k, value: props.get(k), message: why }); };
      const given = (k) => { const t = raw(k); return t === undefined || t === '' ? undefined : t; };

      // Each reader returns undefined when the key is missing or its value is rejected.
      function int(k) {
        const t = given(k);
        if (t !== undefined && Number.isNaN(parseInt10(t))) bad(k, 'expected an integer');
        return t === undefined || Number.isNaN(parseInt10(t)) ? undefined : parseInt10(t);
      }
      function bool(k) {
        const t = given(k);
        if (t !== undefined && !/^(true|false)$/i.test(t)) bad(k, 'expected true or false');
        return t === undefined || !/^(true|false)$/i.test(t) ? undefined : t.toLowerCase() === 'true';
      }
      function choice(k, map) {
        const t = given(k);
        const key = t === undefined ? undefined : Object.keys(map).find((x) => x.toLowerCase() === t.toLowerCase());
        if (t !== undefined && key === undefined) bad(k, 'expected one of ' + Object.keys(map).join(', '));
        return key === undefined ? undefined : map[key];
      }
      // A size is value + unit + enabled flag; the result is bytes, or undefined when off.
      function size(k) {
        const on = bool(k + '-enabled');
        const unit = choice(k + '-unit', SIZE_UNITS);
        const t = given(k);
        if (on !== true || t === undefined) return undefined;
        const v = parseNum(t);
        if (Number.isNaN(v) || v <= 0) return bad(k, 'expected a positive number');
        const bytes = Math.round(v * (unit || 1));
        if (/BITS$/i.test(props.get(k + '-unit') || '')) {
          notes.push(k + ': JPerf passed this unit to iperf2 as ' + (unit === 1 ? 'bytes' : '1000-based bytes') + '; imported as ' + bytes + ' bytes');
        }
        return bytes;
      }
      // Store text into a field when the field's own range check accepts it.
      function put(field, k, text) {
        if (text === undefined) return;
        const msg = text !== '' && BY_NAME[field].check ? BY_NAME[field].check(text, s) : '';
        if (msg) bad(k, msg);
        else s[field] = text;
      }
      const asText = (v) => (v === undefined ? undefined : String(v));
      const blankIf = (def) => (v) => (v === def ? '' : asText(v)); // JPerf's value = linkperf's default
      const flag = (field, k) => { const v = bool(k); if (v !== undefined) s[field] = v; };

      put('mode', 'mode', choice('mode', { client: 'client', server: 'server' }));
      put('host', 'server-address', given('server-address'));
      // JPerf drives iperf2: its defaults are linkperf's for a client speaking iperf2
      put('port', 'server-port', blankIf(Number(defaultOf('port', 'tcp-iperf2')))(int('server-port')));
      put('parallel', 'serverside-parallel-streams', blankIf(Number(defaultOf('parallel', 'tcp-iperf2')))(int('serverside-parallel-streams')));
      put('listenPort', 'listen-port', asText(int('listen-port')));
      const limitOn = bool('client-limit-enabled'), limit = given('client-limit');
      if (limitOn !== false) put('allow', 'client-limit', limit);
      put('maxConns', 'clientside-parallel-streams', blankIf(Number(defaultOf('max-connections', 'server')))(int('clientside-parallel-streams')));

      flag('compat', 'compatibility-mode-enabled');
      put('transmitUnit', 'transmit-unit', choice('transmit-unit', { seconds: 'seconds', bytes: 'bytes' }));
      put('transmit', 'transmit-value', (s.transmitUnit === 'bytes' ? asText : blankIf(Number(defaultOf('time', 'tcp-iperf2'))))(int('transmit-value')));
      const fmt = given('output-format');
      if (fmt !== undefined && /^(BITS|BYTES)$/i.test(fmt)) notes.push('output-format ' + fmt + ': linkperf has no plain bits/Bytes format; adaptive is used');
      else put('format', 'output-format', choice('output-format', OUTPUT_FORMATS));
      put('interval', 'report-interval', blankIf(Number(defaultOf('interval', 'tcp-iperf2')))(int('report-interval')));
      flag('dual', 'test-mode-dual-enabled');
      flag('tradeoff', 'test-mode-trade-enabled');
      const back = int('test-mode-port');
      if (s.dual || s.tradeoff) put('listenBack', 'test-mode-port', asText(back)); // JPerf sent -L only then
      flag('printMss', 'print-mss-enabled');

      put('proto', 'transport-protocol', choice('transport-protocol', { tcp: 'tcp', udp: 'udp' }));
      const bytes = (v) => (v === undefined ? undefined : sizeText(v));
      put('tcpLen', 'tcp-buffer-length', bytes(size('tcp-buffer-length')));
      put('tcpWin', 'tcp-window-size', bytes(size('tcp-window-size')));
      put('mss', 'tcp-mss', asText(size('tcp-mss')));
      flag('noDelay', 'tcp-no-delay-enabled');
      // iperf2 reads -b 1M as 1048576 bit/s (its K and M are 1024-based); linkperf's own UDP
      // default is that same 1048576, so JPerf's default leaves the field blank.
      const bwUnit = choice('udp-bandwidth-unit', { KILOBITS_PERSEC: 1024, MEGABITS_PERSEC: 1048576 });
      const bw = given('udp-bandwidth');
      if (bw !== undefined && (Number.isNaN(parseNum(bw)) || parseNum(bw) < 0)) bad('udp-bandwidth', 'expected a number');
      else if (bw !== undefined) {
        const bps = Math.round(parseNum(bw) * (bwUnit || 1048576));
        const text = String(bps) === defaultOf('bitrate', 'udp-iperf2') ? '' : bps % 1e6 === 0 ? bps / 1e6 + 'M' : bps % 1e3 === 0 ? bps / 1e3 + 'K' : String(bps);
        put('bandwidth', 'udp-bandwidth', text);
      }
      put('udpWin', 'udp-buffer-size', bytes(size('udp-buffer-size')));
      put('udpLen', 'udp-packet-size', asText(size('udp-packet-size')));
      if (Number(s.udpLen) > 1472) notes.push('udp-packet-size ' + s.udpLen + ': datagrams over 1472 bytes do not fit a 1500-byte MTU over IPv4');

      put('ttl', 'ttl', blankIf(1)(int('ttl'))); // 1: the system's multicast TTL, linkperf's 0
      const tos = choice('tos', JPERF_TOS);
      if (tos) {
        s.tos = tos[0];
        if (tos[1]) notes.push(tos[1]);
      }
      put('bind', 'bind-to-host', given('bind-to-host'));
      flag('ipv6', 'ipv6-enabled');

      for (const k of props.keys()) if (!used.has(k)) ignored.push(k);
      return { state: s, errors, notes, ignored };
    }

    return Object.assign({}, STATIC, {
      FIELDS, applies, placeholder, validate, buildArgs, fieldForOption, parseArgs, parseJperf,
      situation, defaultOf,
    });
  }

  const STATIC = { DEFAULTS, GROUPS, defaults, normalize, shellQuote,
    commandLine, parseProperties, parseUnits, splitCommand, fill };
  const api = Object.assign({ create }, STATIC);
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.LPForm = api;
})(typeof window !== 'undefined' ? window : globalThis);
