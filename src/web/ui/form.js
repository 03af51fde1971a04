/* The linkperf form model: fields, their ranges, validation, the argument list and the
 * shell-quoted command line, and JPerf .jperf import. Pure logic, no DOM, so that Node
 * tests it; app.js draws the fields from FIELDS. Ranges mirror src/cli/options.c. */
(function (root) {
  'use strict';

  // A blank text field means "linkperf's default" (shown as the placeholder); anything typed
  // is passed on as typed, so the command line says exactly what the user asked for.
  const DEFAULTS = Object.freeze({
    mode: 'client', host: '', port: '', parallel: '',
    listenPort: '', allow: '', maxConns: '',
    dialect: 'iperf3', transmitUnit: 'seconds', transmit: '', format: '', interval: '',
    dual: false, tradeoff: false, listenBack: '', file: '', printMss: false, compat: false,
    proto: 'tcp', tcpRate: '', tcpLen: '', tcpWin: '', mss: '', noDelay: false, congestion: '',
    bandwidth: '', udpWin: '', udpLen: '',
    ttl: '', tos: '', dscp: '', bind: '', ipv6: false,
    reverse: false, bidir: false, omit: '', udp64: false, title: '',
  });

  // linkperf's -f letters (iperf3 spelling): lower case bits/s, upper case bytes/s.
  const FORMATS = [['', 'adaptive bits (default)'], ['A', 'adaptive Bytes'],
    ['k', 'Kbits/s'], ['m', 'Mbits/s'], ['g', 'Gbits/s'], ['t', 'Tbits/s'],
    ['K', 'KBytes/s'], ['M', 'MBytes/s'], ['G', 'GBytes/s'], ['T', 'TBytes/s']];

  // RFC 1349 names; JPerf's labels for 0x04 and 0x10 were wrong (see shared/ANCHORS.md).
  const TOS = [['', 'None'], ['0x02', 'Minimize-Cost (0x02)'],
    ['0x04', 'Maximize-Reliability (0x04)'], ['0x08', 'Maximize-Throughput (0x08)'],
    ['0x10', 'Minimize-Delay (0x10)']];

  const DSCP = [['', 'None']].concat(
    [0, 1, 2, 3, 4, 5, 6, 7].map((n) => ['CS' + n, 'CS' + n + ' (' + n * 8 + ')']),
    [11, 12, 13, 21, 22, 23, 31, 32, 33, 41, 42, 43].map((n) => {
      const v = Math.floor(n / 10) * 8 + (n % 10) * 2;
      return ['AF' + n, 'AF' + n + ' (' + v + ')'];
    }),
    [['EF', 'EF (46)'], ['VA', 'VA (44)']]);

  const isClient = (s) => s.mode === 'client';
  const isServer = (s) => s.mode === 'server';
  const tcpClient = (s) => isClient(s) && s.proto === 'tcp';
  const udpClient = (s) => isClient(s) && s.proto === 'udp';
  const always = () => true;

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

  const fmtRange = (lo, hi, zeroOk) => (zeroOk ? '0 or ' : '') + lo + '..' + hi;

  // Checkers return an error message or ''. They see trimmed, non-empty text.
  function intIn(lo, hi, zeroOk) {
    return (t) => {
      const v = parseInt10(t);
      if (Number.isNaN(v)) return "'" + t + "' is not an integer";
      if (zeroOk && v === 0) return '';
      return v < lo || v > hi ? t + ' is out of range (' + fmtRange(lo, hi, zeroOk) + ')' : '';
    };
  }
  function numIn(lo, hi, zeroOk) {
    return (t) => {
      const v = parseNum(t);
      if (Number.isNaN(v)) return "'" + t + "' is not a number";
      if (zeroOk && v === 0) return '';
      return v < lo || v > hi ? t + ' is out of range (' + fmtRange(lo, hi, zeroOk) + ')' : '';
    };
  }
  function sizeIn(lo, hi, hiText) {
    return (t) => {
      const v = parseUnits(t, 1024);
      if (Number.isNaN(v)) return "'" + t + "' is not a size (a number with an optional K, M, G or T suffix)";
      return v < lo || v > hi ? t + ' is out of range (' + lo + '..' + hiText + ')' : '';
    };
  }
  function rate(t) {
    const m = /^([^/]*)(?:\/(.*))?$/.exec(t);
    const v = parseUnits(m[1], 1000);
    if (Number.isNaN(v)) return "'" + m[1] + "' is not a rate (a number with an optional K, M, G or T suffix)";
    if (v > 1e15) return t + ' is out of range (0..1000T)';
    if (m[2] !== undefined) {
      const b = parseInt10(m[2]);
      if (Number.isNaN(b)) return "'" + m[2] + "' is not a burst count";
      if (b < 1 || b > 1000) return 'burst ' + m[2] + ' is out of range (1..1000)';
    }
    return '';
  }
  function host(t) {
    if (/\s/.test(t)) return 'a host name cannot contain spaces';
    const h = t.split('%')[0];
    if (!h) return 'the host is empty';
    if (h.length > 255) return 'the host is too long (at most 255 characters)';
    return t.includes('%') && !/^%[^%]{1,15}$/.test(t.slice(h.length)) ? 'the device after % must be 1..15 characters' : '';
  }
  function allowList(t) {
    if (t.length > 1023) return 'the list is too long (at most 1023 characters)';
    const bad = t.split(',').map((x) => x.trim()).find((x) => !/^[0-9A-Za-z.:\-/]+$/.test(x));
    if (bad === undefined) return '';
    return bad === '' ? 'empty entry in the list' : "'" + bad + "' is not a host name, address or CIDR block";
  }
  const maxLen = (n, re, what) => (t) => (t.length > n ? 'at most ' + n + ' characters' : re && !re.test(t) ? what : '');
  const oneOf = (list) => (t) => (list.some((o) => o[0] === t) ? '' : "'" + t + "' is not one of the choices");

  /* ---- the fields, grouped like JPerf's panes ----
   * flag: the option emitted; applies(state): when the field is live (else greyed, not
   * emitted); check(text, state): its range; hint: the range as shown to the user. */
  const FIELDS = [
    { name: 'mode', group: 'quick', label: 'Mode', kind: 'radio', options: [['client', 'Client'], ['server', 'Server']], applies: always },
    { name: 'host', group: 'quick', label: 'Server address', kind: 'text', flag: '-c', applies: isClient, check: host, hint: 'host name or address (host%dev binds a device)' },
    { name: 'port', group: 'quick', label: 'Port', kind: 'text', flag: '-p', applies: isClient, check: intIn(1, 65535), hint: '1..65535' },
    { name: 'parallel', group: 'quick', label: 'Parallel streams', kind: 'text', flag: '-P', applies: isClient, check: intIn(1, 128), hint: '1..128', placeholder: '1' },
    { name: 'listenPort', group: 'quick', label: 'Listen port', kind: 'text', flag: '-p', applies: isServer, check: intIn(0, 65535), hint: '0..65535 (0 = any free port)', placeholder: '5201 and 5001' },
    { name: 'allow', group: 'quick', label: 'Client limit', kind: 'text', flag: '--allow', applies: isServer, check: allowList, hint: 'hosts, addresses or CIDRs, comma-separated', placeholder: 'any client' },
    { name: 'maxConns', group: 'quick', label: 'Num connections', kind: 'text', flag: '--max-connections', applies: isServer, check: intIn(0, 1000000), hint: '0..1000000 (0 = serve forever)', placeholder: '0' },

    { name: 'dialect', group: 'app', label: 'Dialect', kind: 'select', flag: '--dialect', applies: isClient, options: [['iperf3', 'iperf3'], ['iperf2', 'iperf2 (JPerf, boards)']] },
    { name: 'transmitUnit', group: 'app', label: 'Transmit', kind: 'radio', applies: isClient, options: [['seconds', 'Seconds'], ['bytes', 'Bytes']] },
    { name: 'transmit', group: 'app', label: 'Transmit amount', kind: 'text', flag: '-t', applies: isClient, placeholder: '10',
      check: (t, s) => (s.transmitUnit === 'bytes' ? sizeIn(1, 1125899906842624, '1024T')(t) : intIn(0, 86400)(t)),
      hint: 'seconds 0..86400 (0 = forever), or bytes 1..1024T' },
    { name: 'format', group: 'app', label: 'Output format', kind: 'select', flag: '-f', applies: always, options: FORMATS },
    { name: 'interval', group: 'app', label: 'Report interval (s)', kind: 'text', flag: '-i', applies: always, check: numIn(0.1, 60, true), hint: '0 or 0.1..60 (0 = no interval reports)', placeholder: '1' },
    { name: 'dual', group: 'app', label: 'Dual (iperf2 -d)', kind: 'check', flag: '--dual', applies: isClient },
    { name: 'tradeoff', group: 'app', label: 'Tradeoff (iperf2 -r)', kind: 'check', flag: '--tradeoff', applies: isClient },
    { name: 'listenBack', group: 'app', label: 'Listen port for the reverse connection', kind: 'text', flag: '--listen-port', applies: isClient, check: intIn(0, 65535), hint: '0..65535 (0 = the server port)', placeholder: 'server port' },
    { name: 'file', group: 'app', label: 'Representative file', kind: 'text', flag: '-F', applies: isClient, check: maxLen(4095), hint: 'a path on the machine running linkperf' },
    { name: 'printMss', group: 'app', label: 'Print MSS', kind: 'check', flag: '--print-mss', applies: always },
    { name: 'compat', group: 'app', label: 'Compatibility mode (iperf2 -C)', kind: 'check', flag: '--compat', applies: always },

    { name: 'proto', group: 'transport', label: 'Protocol', kind: 'radio', applies: isClient, options: [['tcp', 'TCP'], ['udp', 'UDP']] },
    { name: 'tcpRate', group: 'tcp', label: 'Rate limit', kind: 'text', flag: '-b', applies: tcpClient, check: rate, hint: 'bits/s per stream, K/M/G/T 1000-based', placeholder: 'unlimited' },
    { name: 'tcpLen', group: 'tcp', label: 'Buffer length', kind: 'text', flag: '-l', applies: tcpClient, check: sizeIn(1, 1048576, '1M'), hint: '1..1M', placeholder: '128K' },
    { name: 'tcpWin', group: 'tcp', label: 'Window size', kind: 'text', flag: '-w', applies: tcpClient, check: sizeIn(0, 536870912, '512M'), hint: '0..512M', placeholder: 'system' },
    { name: 'mss', group: 'tcp', label: 'Max segment size', kind: 'text', flag: '-M', applies: tcpClient, check: intIn(88, 9216, true), hint: '0 or 88..9216 bytes', placeholder: 'system' },
    { name: 'noDelay', group: 'tcp', label: 'No delay', kind: 'check', flag: '-N', applies: tcpClient },
    { name: 'congestion', group: 'tcp', label: 'Congestion control', kind: 'text', flag: '-C', applies: tcpClient, check: maxLen(15, /^[A-Za-z0-9_.-]+$/, 'an algorithm name (letters, digits, _ . -)'), hint: 'e.g. cubic, bbr', placeholder: 'system' },
    { name: 'bandwidth', group: 'udp', label: 'Bandwidth', kind: 'text', flag: '-b', applies: udpClient, check: rate, hint: 'bits/s, K/M/G/T 1000-based, /N bursts; 0 = unlimited', placeholder: '1048576' },
    { name: 'udpWin', group: 'udp', label: 'Buffer size', kind: 'text', flag: '-w', applies: udpClient, check: sizeIn(0, 536870912, '512M'), hint: '0..512M', placeholder: 'system' },
    { name: 'udpLen', group: 'udp', label: 'Packet size', kind: 'text', flag: '-l', applies: udpClient, check: sizeIn(16, 65507, '65507'), hint: '16..65507 bytes' },

    { name: 'ttl', group: 'ip', label: 'TTL (multicast)', kind: 'text', flag: '--ttl', applies: isClient, check: intIn(1, 255), hint: '1..255', placeholder: '1' },
    { name: 'tos', group: 'ip', label: 'Type of service', kind: 'select', flag: '-S', applies: isClient, options: TOS },
    { name: 'dscp', group: 'ip', label: 'DSCP', kind: 'select', flag: '--dscp', applies: isClient, options: DSCP },
    { name: 'bind', group: 'ip', label: 'Bind to host', kind: 'text', flag: '-B', applies: always, check: host, hint: 'local address (host%dev binds a device)' },
    { name: 'ipv6', group: 'ip', label: 'IPv6', kind: 'check', flag: '-6', applies: always },

    { name: 'reverse', group: 'lp', label: 'Reverse (server sends)', kind: 'check', flag: '-R', applies: isClient },
    { name: 'bidir', group: 'lp', label: 'Bidirectional', kind: 'check', flag: '--bidir', applies: isClient },
    { name: 'omit', group: 'lp', label: 'Omit first seconds', kind: 'text', flag: '-O', applies: isClient, check: intIn(0, 600), hint: '0..600', placeholder: '0' },
    { name: 'udp64', group: 'lp', label: '64-bit UDP counters', kind: 'check', flag: '--udp-counters-64bit', applies: udpClient },
    { name: 'title', group: 'lp', label: 'Title', kind: 'text', flag: '-T', applies: isClient, check: maxLen(255), hint: 'prefix of every output line' },
  ];
  const BY_NAME = Object.fromEntries(FIELDS.map((f) => [f.name, f]));
  for (const f of FIELDS) if (f.kind === 'select' || f.kind === 'radio') f.check = oneOf(f.options);

  const GROUPS = [['quick', 'Quick start'], ['app', 'Application'], ['transport', 'Transport'],
    ['tcp', 'TCP'], ['udp', 'UDP'], ['ip', 'IP'], ['lp', 'iperf3 / linkperf']];

  const IPERF2_ONLY = ['dual', 'tradeoff', 'listenBack', 'file', 'ttl']; // client side
  const IPERF3_ONLY = ['omit', 'udp64'];
  const DIRECTIONS = ['reverse', 'bidir', 'dual', 'tradeoff'];

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

  function applies(name, state) {
    return BY_NAME[name].applies(state);
  }

  // Placeholders that depend on other fields: the CLI's defaults change with the dialect.
  function placeholder(name, state) {
    const i2 = state.dialect === 'iperf2';
    if (name === 'port') return i2 ? '5001' : '5201';
    if (name === 'udpLen') return i2 ? (state.ipv6 ? '1450' : '1470') : '1460';
    if (name === 'transmit' && state.transmitUnit === 'bytes') return 'e.g. 100M';
    return BY_NAME[name].placeholder || '';
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
    if (isClient(s)) {
      if (s.host === '') put('host', "enter the server's address");
      if (s.transmitUnit === 'bytes' && s.transmit === '') put('transmit', 'enter the number of bytes to send');
      const i2 = s.dialect === 'iperf2';
      for (const n of IPERF2_ONLY) if (on(n) && !i2) put(n, BY_NAME[n].flag + ' needs dialect iperf2');
      if (on('compat') && !i2) put('compat', '--compat needs dialect iperf2 for a client');
      for (const n of IPERF3_ONLY) if (on(n) && i2) put(n, BY_NAME[n].flag + ' is an iperf3 protocol feature (dialect iperf3)');
      const dirs = DIRECTIONS.filter(on);
      if (dirs.length > 1) put(dirs[1], 'cannot be combined with ' + BY_NAME[dirs[0]].flag);
      if (dirs.length && on('compat')) put('compat', 'cannot be combined with ' + BY_NAME[dirs[0]].flag);
      if (i2 && on('congestion') && on('reverse')) put('congestion', 'cannot be combined with -R in dialect iperf2');
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
    if (isServer(s)) {
      args.push('-s');
      opt('listenPort');
      opt('allow');
      opt('maxConns');
    } else {
      args.push('-c', s.host);
      opt('port');
      if (s.dialect === 'iperf2') args.push('--dialect', 'iperf2');
      if (s.proto === 'udp') args.push('-u');
      opt('tcpRate'); opt('bandwidth');
      opt('transmit', s.transmitUnit === 'bytes' ? '-n' : '-t');
      opt('parallel');
      opt('tcpLen'); opt('udpLen');
      opt('tcpWin'); opt('udpWin');
      opt('mss');
      flag('noDelay');
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

  // POSIX shell quoting: bare when only safe characters, else single quotes.
  function shellQuote(a) {
    if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a)) return a;
    return "'" + a.replace(/'/g, "'\\''") + "'";
  }

  function commandLine(args) {
    return ['linkperf'].concat(args.map(shellQuote)).join(' ');
  }

  // Which field an option named by the server's /api/check belongs to (-l and -w depend on
  // the protocol, -p on the mode). Returns '' when none.
  function fieldForOption(option, input) {
    const s = normalize(input);
    const o = String(option || '').split('=')[0];
    const long = { '--client': '-c', '--port': '-p', '--parallel': '-P', '--time': '-t', '--bytes': '-n',
      '--bitrate': '-b', '--length': '-l', '--window': '-w', '--set-mss': '-M', '--no-delay': '-N',
      '--congestion': '-C', '--interval': '-i', '--format': '-f', '--reverse': '-R', '--file': '-F',
      '--omit': '-O', '--tos': '-S', '--bind': '-B', '--version6': '-6', '--title': '-T',
      '--udp': '-u', '--server': '-s' };
    const f = long[o] || o;
    if (f === '-p') return isServer(s) ? 'listenPort' : 'port';
    if (f === '-l') return s.proto === 'udp' ? 'udpLen' : 'tcpLen';
    if (f === '-w') return s.proto === 'udp' ? 'udpWin' : 'tcpWin';
    if (f === '-b') return s.proto === 'udp' ? 'bandwidth' : 'tcpRate';
    if (f === '-n' || f === '-t') return 'transmit';
    if (f === '-u') return 'proto';
    if (f === '-s') return 'mode';
    const hit = FIELDS.find((x) => x.flag === f);
    return hit ? hit.name : '';
  }

  /* ---- the inverse of buildArgs: an argument list back into a form state ----
   * For profiles and for "use these settings" on a history run. Options the form has no field
   * for are returned in `unknown` (with their values), so the caller can say what was dropped. */

  // option spelling -> [canonical flag, takes a value]
  const ARG_SPEC = {
    '-s': ['-s', false], '--server': ['-s', false],
    '-c': ['-c', true], '--client': ['-c', true],
    '-p': ['-p', true], '--port': ['-p', true],
    '--allow': ['--allow', true], '--max-connections': ['--max-connections', true],
    '--dialect': ['--dialect', true],
    '-u': ['-u', false], '--udp': ['-u', false],
    '-b': ['-b', true], '--bitrate': ['-b', true], '--bandwidth': ['-b', true],
    '-t': ['-t', true], '--time': ['-t', true], '-n': ['-n', true], '--bytes': ['-n', true],
    '-P': ['-P', true], '--parallel': ['-P', true],
    '-l': ['-l', true], '--length': ['-l', true], '-w': ['-w', true], '--window': ['-w', true],
    '-M': ['-M', true], '--set-mss': ['-M', true], '--mss': ['-M', true],
    '-N': ['-N', false], '--no-delay': ['-N', false], '--nodelay': ['-N', false],
    '-C': ['-C', true], '--congestion': ['-C', true],
    '-R': ['-R', false], '--reverse': ['-R', false], '--bidir': ['--bidir', false],
    '--dual': ['--dual', false], '--tradeoff': ['--tradeoff', false],
    '--listen-port': ['--listen-port', true], '-F': ['-F', true], '--file': ['-F', true],
    '-O': ['-O', true], '--omit': ['-O', true],
    '--udp-counters-64bit': ['--udp-counters-64bit', false],
    '--ttl': ['--ttl', true], '-S': ['-S', true], '--tos': ['-S', true], '--dscp': ['--dscp', true],
    '-T': ['-T', true], '--title': ['-T', true],
    '-i': ['-i', true], '--interval': ['-i', true], '-f': ['-f', true], '--format': ['-f', true],
    '--print-mss': ['--print-mss', false], '--compat': ['--compat', false],
    '-B': ['-B', true], '--bind': ['-B', true], '-6': ['-6', false], '--version6': ['-6', false],
  };

  // "-S 16" and "-S 0x10" name the same TOS byte; the form's choices are spelled 0x%02x.
  function tosText(v) {
    const n = /^0x[0-9a-f]+$/i.test(v) ? parseInt(v, 16) : /^0[0-7]+$/.test(v) ? parseInt(v, 8) : parseInt10(v);
    if (Number.isNaN(n)) return v;
    const t = '0x' + n.toString(16).padStart(2, '0');
    return TOS.some((o) => o[0] === t) ? t : v;
  }

  function parseArgs(input) {
    const list = (Array.isArray(input) ? input : []).map(String);
    if (list[0] === 'linkperf') list.shift();
    const s = defaults();
    const unknown = [], seen = [];
    // Split into [flag, value] pairs first: -b, -l and -w go to different fields by protocol.
    for (let i = 0; i < list.length; i++) {
      let a = list[i], val;
      const eq = a.startsWith('--') ? a.indexOf('=') : -1;
      if (eq > 0) { val = a.slice(eq + 1); a = a.slice(0, eq); }
      let spec = ARG_SPEC[a];
      if (!spec && /^-[A-Za-z6]./.test(a) && ARG_SPEC[a.slice(0, 2)] && ARG_SPEC[a.slice(0, 2)][1]) { // -P2
        val = a.slice(2);
        a = a.slice(0, 2);
        spec = ARG_SPEC[a];
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
    s.mode = has('-s') && !has('-c') ? 'server' : 'client';
    s.proto = has('-u') ? 'udp' : 'tcp';
    const udp = s.proto === 'udp';
    const field = {
      '-c': 'host', '-P': 'parallel', '--allow': 'allow', '--max-connections': 'maxConns',
      '-M': 'mss', '-C': 'congestion', '--listen-port': 'listenBack', '-F': 'file', '-O': 'omit',
      '--ttl': 'ttl', '--dscp': 'dscp', '-T': 'title', '-i': 'interval', '-f': 'format', '-B': 'bind',
      '-p': s.mode === 'server' ? 'listenPort' : 'port',
      '-b': udp ? 'bandwidth' : 'tcpRate', '-l': udp ? 'udpLen' : 'tcpLen', '-w': udp ? 'udpWin' : 'tcpWin',
    };
    const flags = { '-N': 'noDelay', '-R': 'reverse', '--bidir': 'bidir', '--dual': 'dual', '--tradeoff': 'tradeoff',
      '--udp-counters-64bit': 'udp64', '--print-mss': 'printMss', '--compat': 'compat', '-6': 'ipv6' };
    for (const [f, v] of seen) {
      if (f === '-s' || f === '-u') continue;
      if (flags[f]) s[flags[f]] = true;
      else if (f === '--dialect') {
        if (v === 'iperf2' || v === 'iperf3') s.dialect = v;
        else unknown.push('--dialect ' + v);
      } else if (f === '-t' || f === '-n') {
        s.transmitUnit = f === '-n' ? 'bytes' : 'seconds';
        s.transmit = v;
      } else if (f === '-S') s.tos = tosText(v);
      else if (f === '-c' && s.mode === 'server') unknown.push('-c ' + v);
      else s[field[f]] = v;
    }
    // iperf2-only options imply the dialect, as on the command line
    if (s.dual || s.tradeoff || (s.compat && s.mode === 'client')) s.dialect = 'iperf2';
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
    put('port', 'server-port', blankIf(5001)(int('server-port')));
    put('parallel', 'serverside-parallel-streams', blankIf(1)(int('serverside-parallel-streams')));
    put('listenPort', 'listen-port', asText(int('listen-port')));
    const limitOn = bool('client-limit-enabled'), limit = given('client-limit');
    if (limitOn !== false) put('allow', 'client-limit', limit);
    put('maxConns', 'clientside-parallel-streams', blankIf(0)(int('clientside-parallel-streams')));

    flag('compat', 'compatibility-mode-enabled');
    put('transmitUnit', 'transmit-unit', choice('transmit-unit', { seconds: 'seconds', bytes: 'bytes' }));
    put('transmit', 'transmit-value', (s.transmitUnit === 'bytes' ? asText : blankIf(10))(int('transmit-value')));
    const fmt = given('output-format');
    if (fmt !== undefined && /^(BITS|BYTES)$/i.test(fmt)) notes.push('output-format ' + fmt + ': linkperf has no plain bits/Bytes format; adaptive is used');
    else put('format', 'output-format', choice('output-format', OUTPUT_FORMATS));
    put('interval', 'report-interval', blankIf(1)(int('report-interval')));
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
      const text = bps === 1048576 ? '' : bps % 1e6 === 0 ? bps / 1e6 + 'M' : bps % 1e3 === 0 ? bps / 1e3 + 'K' : String(bps);
      put('bandwidth', 'udp-bandwidth', text);
    }
    put('udpWin', 'udp-buffer-size', bytes(size('udp-buffer-size')));
    put('udpLen', 'udp-packet-size', asText(size('udp-packet-size')));
    if (Number(s.udpLen) > 1472) notes.push('udp-packet-size ' + s.udpLen + ': datagrams over 1472 bytes do not fit a 1500-byte MTU over IPv4');

    put('ttl', 'ttl', blankIf(1)(int('ttl')));
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

  const api = { DEFAULTS, FIELDS, GROUPS, FORMATS, TOS, DSCP, defaults, normalize, applies,
    placeholder, validate, buildArgs, shellQuote, commandLine, fieldForOption,
    parseProperties, parseJperf, parseUnits, parseArgs, splitCommand };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.LPForm = api;
})(typeof window !== 'undefined' ? window : globalThis);
