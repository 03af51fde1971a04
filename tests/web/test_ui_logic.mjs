// Node tests of the browser page's pure logic (src/web/ui/form.js and chart.js):
//   node --test tests/web/test_ui_logic.mjs      (LINKPERF=path/to/linkperf, default build/)
// The form is built from the binary's options document, and its checks are held against the
// binary: every range, its text and the message words come from there, none is written here.
// The chart fixtures are real --json-stream lines captured from linkperf on loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { optionsDoc, cliRefusal } from './lpbin.mjs';

const require = createRequire(import.meta.url);
const DOC = optionsDoc();
const OPT = Object.fromEntries(DOC.options.map((o) => [o.name, o]));
const F = require('../../src/web/ui/form.js').create(DOC);
const C = require('../../src/web/ui/chart.js');

const form = (over) => Object.assign(F.defaults(), over);
const cmd = (over) => F.commandLine(F.buildArgs(form(over)));
const errs = (over) => F.validate(form(over));
const parse = (text) => text.trim().split('\n').map((l) => JSON.parse(l));
const close = (a, b, eps = 1e-6) => assert.ok(Math.abs(a - b) <= eps, a + ' is not ' + b);

// linkperf -c 127.0.0.1 -t 3 -b 100M -P 2 --json-stream and others, lines kept as printed.
const FIX = {
  tcpP2: `
{"event":"start","data":{"connected":[{"socket":14,"local_host":"127.0.0.1","local_port":44914,"remote_host":"127.0.0.1","remote_port":5333},{"socket":15,"local_host":"127.0.0.1","local_port":44916,"remote_host":"127.0.0.1","remote_port":5333}],"version":"linkperf 0.1.0","system_info":"Linux vm 6.18.44-fc-v769 #1 SMP PREEMPT_DYNAMIC @0 x86_64","timestamp":{"time":"Tue, 01 Dec 2026 05:23:27 GMT","timesecs":1796102607},"connecting_to":{"host":"127.0.0.1","port":5333},"cookie":"3j6jp25trkps6lj33ljdg5drjron5w67lqhb","tcp_mss_default":32768,"target_bitrate":100000000,"sock_bufsize":0,"sndbuf_actual":4194304,"rcvbuf_actual":131072,"test_start":{"protocol":"TCP","num_streams":2,"blksize":131072,"omit":0,"duration":3,"bytes":0,"blocks":0,"reverse":0,"tos":0,"target_bitrate":100000000}}}
{"event":"interval","data":{"streams":[{"socket":14,"start":0,"end":1.000077,"seconds":1.00007700920105,"bytes":12582912,"bits_per_second":100655507.07555148,"retransmits":0,"snd_cwnd":1178694,"snd_wnd":720896,"rtt":81,"rttvar":56,"pmtu":65535,"omitted":false,"sender":true},{"socket":15,"start":0,"end":1.000077,"seconds":1.00007700920105,"bytes":12582912,"bits_per_second":100655507.07555148,"retransmits":0,"snd_cwnd":1178694,"snd_wnd":328704,"rtt":102,"rttvar":47,"pmtu":65535,"omitted":false,"sender":true}],"sum":{"start":0,"end":1.000077,"seconds":1.00007700920105,"bytes":25165824,"bits_per_second":201311014.151103,"retransmits":0,"omitted":false,"sender":true}}}
{"event":"interval","data":{"streams":[{"socket":14,"start":1.000077,"end":2.000273,"seconds":1.0001959800720215,"bytes":12451840,"bits_per_second":99595255.601221576,"retransmits":0,"snd_cwnd":1178694,"snd_wnd":720896,"rtt":82,"rttvar":53,"pmtu":65535,"omitted":false,"sender":true},{"socket":15,"start":1.000077,"end":2.000273,"seconds":1.0001959800720215,"bytes":12451840,"bits_per_second":99595255.601221576,"retransmits":0,"snd_cwnd":1178694,"snd_wnd":1114112,"rtt":86,"rttvar":69,"pmtu":65535,"omitted":false,"sender":true}],"sum":{"start":1.000077,"end":2.000273,"seconds":1.0001959800720215,"bytes":24903680,"bits_per_second":199190511.20244315,"retransmits":0,"omitted":false,"sender":true}}}
{"event":"end","data":{"streams":[{"sender":{"socket":14,"start":0,"end":3.000257,"seconds":3.000257,"bytes":37617664,"bits_per_second":100305188.68846273,"retransmits":0,"max_snd_cwnd":1178694,"max_snd_wnd":720896,"max_rtt":112,"min_rtt":81,"mean_rtt":91,"sender":true},"receiver":{"socket":14,"start":0,"end":3.006681,"seconds":3.006681,"bytes":37617664,"bits_per_second":100090852.6568995,"sender":true}},{"sender":{"socket":15,"start":0,"end":3.000257,"seconds":3.000257,"bytes":37617664,"bits_per_second":100305188.68846273,"retransmits":0,"max_snd_cwnd":1178694,"max_snd_wnd":1114112,"max_rtt":129,"min_rtt":86,"mean_rtt":105,"sender":true},"receiver":{"socket":15,"start":0,"end":3.006681,"seconds":3.006681,"bytes":37617664,"bits_per_second":100090852.6568995,"sender":true}}],"sum_sent":{"start":0,"end":3.000257,"seconds":3.000257,"bytes":75235328,"bits_per_second":200610377.37692547,"retransmits":0,"sender":true},"sum_received":{"start":0,"end":3.006681,"seconds":3.006681,"bytes":75235328,"bits_per_second":200181705.313799,"sender":true},"cpu_utilization_percent":{"host_total":1.3742378620176714,"host_user":0.34470927406627477,"host_system":1.0295285879513967,"remote_total":1.1866297810210475,"remote_user":0.805608582031161,"remote_system":0.38102119898988651},"sender_tcp_congestion":"bbr","receiver_tcp_congestion":"bbr"}}`,
  udpReverse: `
{"event":"interval","data":{"streams":[{"socket":14,"start":0,"end":1.000552,"seconds":1.00055205821991,"bytes":2500980,"bits_per_second":19996792.032360416,"jitter_ms":0.0003429053479006754,"lost_packets":0,"packets":1713,"lost_percent":0,"omitted":false,"sender":false}],"sum":{"start":0,"end":1.000552,"seconds":1.00055205821991,"bytes":2500980,"bits_per_second":19996792.032360416,"jitter_ms":0.0003429053479006754,"lost_packets":0,"packets":1713,"lost_percent":0,"omitted":false,"sender":false}}}
{"event":"interval","data":{"streams":[{"socket":14,"start":1.000552,"end":2.000745,"seconds":1.0001929998397827,"bytes":2500980,"bits_per_second":20003984.332039922,"jitter_ms":0.00807601276310134,"lost_packets":0,"packets":1713,"lost_percent":0,"omitted":false,"sender":false}],"sum":{"start":1.000552,"end":2.000745,"seconds":1.0001929998397827,"bytes":2500980,"bits_per_second":20003984.332039922,"jitter_ms":0.00807601276310134,"lost_packets":0,"packets":1713,"lost_percent":0,"omitted":false,"sender":false}}}
{"event":"end","data":{"streams":[{"udp":{"socket":14,"start":0,"end":3.000413,"seconds":3.000413,"bytes":7507320,"bits_per_second":20001308.988178045,"jitter_ms":0.0047691441972918186,"lost_packets":0,"packets":5138,"lost_percent":0,"out_of_order":0,"sender":false}}],"sum":{"start":0,"end":3.000413,"seconds":3.000413,"bytes":7507320,"bits_per_second":20001308.988178045,"jitter_ms":0.0047691441972918186,"lost_packets":0,"packets":5138,"lost_percent":0,"sender":false},"sum_sent":{"start":0,"end":3.002731,"seconds":3.002731,"bytes":7507320,"bits_per_second":20001308.988178045,"jitter_ms":0,"lost_packets":0,"packets":5142,"lost_percent":0,"sender":true},"sum_received":{"start":0,"end":3.000413,"seconds":3.000413,"bytes":7501480,"bits_per_second":20001195.115588747,"jitter_ms":0.0047691441972918186,"lost_packets":0,"packets":5138,"lost_percent":0,"sender":false},"cpu_utilization_percent":{"host_total":1.066151426297508,"host_user":0.30781720656154188,"host_system":0.758334219735966,"remote_total":8.5924491687009166,"remote_user":2.2957179478564775,"remote_system":6.2967312208444381}}}`,
  udpSend: `
{"event":"interval","data":{"streams":[{"socket":14,"start":0,"end":1.000169,"seconds":1.000169038772583,"bytes":2500980,"bits_per_second":20004463.946642045,"packets":1713,"omitted":false,"sender":true}],"sum":{"start":0,"end":1.000169,"seconds":1.000169038772583,"bytes":2500980,"bits_per_second":20004463.946642045,"packets":1713,"omitted":false,"sender":true}}}
{"event":"end","data":{"streams":[{"udp":{"socket":14,"start":0,"end":3.000315,"seconds":3.000315,"bytes":7501480,"bits_per_second":20001849.186086334,"jitter_ms":0.00180511215239878,"lost_packets":0,"packets":5138,"lost_percent":0,"out_of_order":0,"sender":true}}],"sum":{"start":0,"end":3.00091,"seconds":3.00091,"bytes":7501480,"bits_per_second":20001849.186086334,"jitter_ms":0.00180511215239878,"lost_packets":0,"packets":5138,"lost_percent":0,"sender":true},"sum_sent":{"start":0,"end":3.000315,"seconds":3.000315,"bytes":7501480,"bits_per_second":20001849.186086334,"jitter_ms":0,"lost_packets":0,"packets":5138,"lost_percent":0,"sender":true},"sum_received":{"start":0,"end":3.00091,"seconds":3.00091,"bytes":7501480,"bits_per_second":19997883.488373943,"jitter_ms":0.00180511215239878,"lost_packets":0,"packets":5138,"lost_percent":0,"sender":false},"cpu_utilization_percent":{"host_total":9.75904966437827,"host_user":2.8360130016652936,"host_system":6.9230366627129758,"remote_total":1.7874444676217967,"remote_user":0.6519307152228343,"remote_system":1.1355137523989625}}}`,
  bidir: `
{"event":"interval","data":{"streams":[{"socket":14,"start":0,"end":1.00045,"seconds":1.0004500150680542,"bytes":12582912,"bits_per_second":100618003.30890051,"retransmits":0,"snd_cwnd":1178694,"snd_wnd":371712,"rtt":172,"rttvar":137,"pmtu":65535,"omitted":false,"sender":true},{"socket":15,"start":0,"end":1.00045,"seconds":1.0004500150680542,"bytes":12582912,"bits_per_second":100618003.30890051,"omitted":false,"sender":false}],"sum":{"start":0,"end":1.00045,"seconds":1.0004500150680542,"bytes":12582912,"bits_per_second":100618003.30890051,"retransmits":0,"omitted":false,"sender":true},"sum_bidir_reverse":{"start":0,"end":1.00045,"seconds":1.0004500150680542,"bytes":12582912,"bits_per_second":100618003.30890051,"omitted":false,"sender":false}}}`,
  dual: `
{"event":"interval","data":{"streams":[{"socket":14,"start":0,"end":1.000174,"seconds":1.0001740455627441,"bytes":6291456,"bits_per_second":50322879.288606837,"retransmits":0,"snd_cwnd":916762,"snd_wnd":1114112,"rtt":2985,"rttvar":5447,"pmtu":65535,"omitted":false,"sender":true},{"socket":15,"start":0,"end":1.000174,"seconds":1.0001740455627441,"bytes":6291456,"bits_per_second":50322879.288606837,"omitted":false,"sender":false}],"sum":{"start":0,"end":1.000174,"seconds":1.0001740455627441,"bytes":12582912,"bits_per_second":100645758.57721367,"omitted":false,"sender":false}}}`,
  omit: `
{"event":"start","data":{"connected":[{"socket":14,"local_host":"127.0.0.1","local_port":50202,"remote_host":"127.0.0.1","remote_port":5333}],"version":"linkperf 0.1.0","system_info":"Linux vm 6.18.44-fc-v769 #1 SMP PREEMPT_DYNAMIC @0 x86_64","timestamp":{"time":"Tue, 01 Dec 2026 05:23:56 GMT","timesecs":1796102636},"connecting_to":{"host":"127.0.0.1","port":5333},"cookie":"lqudg7h3qcuh3qoiwev2nk6bbdo7hvdufs7z","tcp_mss_default":32768,"target_bitrate":100000000,"sock_bufsize":0,"sndbuf_actual":4194304,"rcvbuf_actual":131072,"test_start":{"protocol":"TCP","num_streams":1,"blksize":131072,"omit":1,"duration":3,"bytes":0,"blocks":0,"reverse":0,"tos":0,"target_bitrate":100000000}}}
{"event":"interval","data":{"streams":[{"socket":14,"start":0,"end":1.000048,"seconds":1.000048041343689,"bytes":12582912,"bits_per_second":100658462.88390464,"retransmits":0,"snd_cwnd":1178694,"snd_wnd":328704,"rtt":99,"rttvar":106,"pmtu":65535,"omitted":true,"sender":true}],"sum":{"start":0,"end":1.000048,"seconds":1.000048041343689,"bytes":12582912,"bits_per_second":100658462.88390464,"retransmits":0,"omitted":true,"sender":true}}}
{"event":"interval","data":{"streams":[{"socket":14,"start":1.000048,"end":1.000598,"seconds":0.00054999999701976776,"bytes":0,"bits_per_second":0,"retransmits":0,"snd_cwnd":1178694,"snd_wnd":328704,"rtt":99,"rttvar":106,"pmtu":65535,"omitted":true,"sender":true}],"sum":{"start":1.000048,"end":1.000598,"seconds":0.00054999999701976776,"bytes":0,"bits_per_second":0,"retransmits":0,"omitted":true,"sender":true}}}
{"event":"interval","data":{"streams":[{"socket":14,"start":0,"end":1.000398,"seconds":1.00039803981781,"bytes":12451840,"bits_per_second":99575055.471553564,"retransmits":0,"snd_cwnd":1178694,"snd_wnd":371712,"rtt":60,"rttvar":62,"pmtu":65535,"omitted":false,"sender":true}],"sum":{"start":0,"end":1.000398,"seconds":1.00039803981781,"bytes":12451840,"bits_per_second":99575055.471553564,"retransmits":0,"omitted":false,"sender":true}}}`,
  // linkperf -c 127.0.0.1 --bounceback -t 2 --json-stream (against linkperf -s)
  bounceback: `
{"event":"start","data":{"connected":[{"socket":16,"local_host":"127.0.0.1","local_port":33616,"remote_host":"127.0.0.1","remote_port":5397}],"version":"linkperf 0.1.0","system_info":"Linux vm 6.18.44-fc-v1300 #1 SMP PREEMPT_DYNAMIC @0 x86_64","timestamp":{"time":"Mon, 07 Dec 2026 09:18:43 GMT","timesecs":1796635123,"timemillisecs":1796635123242},"connecting_to":{"host":"","port":0},"cookie":"","tcp_mss_default":32741,"target_bitrate":0,"fq_rate":0,"sock_bufsize":0,"sndbuf_actual":4194304,"rcvbuf_actual":131072,"test_start":{"protocol":"TCP","num_streams":1,"blksize":100,"omit":0,"duration":2,"bytes":0,"blocks":0,"reverse":0,"tos":0,"target_bitrate":0,"bidir":0,"fqrate":0,"interval":1,"gso":0,"gro":0}}}
{"event":"interval","data":{"streams":[{"socket":16,"start":0,"end":1.000129,"seconds":1.0001289844512939,"bytes":2000,"bits_per_second":15997.939833302087,"retransmits":0,"snd_cwnd":589824,"snd_wnd":65536,"rtt":24,"rttvar":32,"pmtu":65535,"reorder":0,"latency":{"count":10,"mean_ms":0.0363716,"min_ms":0.008679,"max_ms":0.232713,"stdev_ms":0.069506410930855064,"p50_ms":0.0097915,"p90_ms":0.1361915,"p99_ms":0.2324475,"p99_9_ms":0.2324475},"omitted":false,"sender":true}],"sum":{"start":0,"end":1.000129,"seconds":1.0001289844512939,"bytes":2000,"bits_per_second":15997.939833302087,"retransmits":0,"latency":{"count":10,"mean_ms":0.0363716,"min_ms":0.008679,"max_ms":0.232713,"stdev_ms":0.069506410930855064,"p50_ms":0.0097915,"p90_ms":0.1361915,"p99_ms":0.2324475,"p99_9_ms":0.2324475},"omitted":false,"sender":true}}}
{"event":"interval","data":{"streams":[{"socket":16,"start":1.000129,"end":2.000173,"seconds":1.0000439882278442,"bytes":2000,"bits_per_second":15999.298958717527,"retransmits":0,"snd_cwnd":589824,"snd_wnd":65536,"rtt":64,"rttvar":110,"pmtu":65535,"reorder":0,"latency":{"count":10,"mean_ms":0.0270921,"min_ms":0.006758,"max_ms":0.033607,"stdev_ms":0.039768312272321651,"p50_ms":0.0075195,"p90_ms":0.0305915,"p99_ms":0.0305915,"p99_9_ms":0.0305915},"omitted":false,"sender":true}],"sum":{"start":1.000129,"end":2.000173,"seconds":1.0000439882278442,"bytes":2000,"bits_per_second":15999.298958717527,"retransmits":0,"latency":{"count":10,"mean_ms":0.0270921,"min_ms":0.006758,"max_ms":0.033607,"stdev_ms":0.039768312272321651,"p50_ms":0.0075195,"p90_ms":0.0305915,"p99_ms":0.0305915,"p99_9_ms":0.0305915},"omitted":false,"sender":true}}}
{"event":"end","data":{"streams":[{"sender":{"socket":16,"start":0,"end":2.000173,"seconds":2.000173,"bytes":4000,"bits_per_second":15998.619367144474,"retransmits":0,"reorder":0,"max_snd_cwnd":589824,"max_snd_wnd":65536,"max_rtt":64,"min_rtt":24,"mean_rtt":44,"latency":{"count":20,"mean_ms":0.03173185,"min_ms":0.006758,"max_ms":0.232713,"stdev_ms":0.055319399849538847,"p50_ms":0.0097915,"p90_ms":0.0360955,"p99_ms":0.2324475,"p99_9_ms":0.2324475,"histogram":{"buckets":[[6720,64,1],[6784,64,1],[6976,64,1],[7488,64,1],[7872,64,1],[7936,64,1],[8576,128,1],[9600,128,2],[9728,128,1],[10368,128,1],[12544,128,1],[12928,128,1],[20992,256,1],[26624,256,1],[30464,256,1],[33280,512,1],[35840,512,1],[135168,2048,1],[231424,2048,1]]}},"sender":true},"receiver":{"socket":16,"start":0,"end":2.000173,"seconds":2.000173,"bytes":0,"bits_per_second":0,"sender":true}}],"sum_sent":{"start":0,"end":2.000173,"seconds":2.000173,"bytes":4000,"bits_per_second":15998.619367144474,"retransmits":0,"sender":true},"sum_received":{"start":0,"end":2.000173,"seconds":2.000173,"bytes":0,"bits_per_second":0,"sender":true},"cpu_utilization_percent":{"host_total":0.074866924391739129,"host_user":0.037433462195869564,"host_system":0.037433462195869564,"remote_total":0,"remote_user":0,"remote_system":0},"sender_tcp_congestion":"bbr"}}`,
};
for (const k of Object.keys(FIX)) FIX[k] = parse(FIX[k]);

/* ---- command line ---- */

test('default form: a client with no address yet', () => {
  assert.deepEqual(F.buildArgs(F.defaults()), ['-c', '']);
  assert.equal(cmd({}), "linkperf -c ''");
  assert.deepEqual(errs({}), { host: "enter the server's address" });
});

test('TCP client with -P 4 -w 256K -N -i 1 -t 20', () => {
  const s = { host: '192.0.2.7', parallel: '4', tcpWin: '256K', noDelay: true, interval: '1', transmit: '20' };
  assert.deepEqual(F.buildArgs(form(s)), ['-c', '192.0.2.7', '-t', '20', '-P', '4', '-w', '256K', '-N', '-i', '1']);
  assert.equal(cmd(s), 'linkperf -c 192.0.2.7 -t 20 -P 4 -w 256K -N -i 1');
  assert.deepEqual(errs(s), {});
});

test('UDP client -b 50M -l 1400: TCP fields are not emitted', () => {
  const s = { host: 'board.local', proto: 'udp', bandwidth: '50M', udpLen: '1400', tcpWin: '1M', noDelay: true, tcpLen: '64K' };
  assert.equal(cmd(s), 'linkperf -c board.local -u -b 50M -l 1400');
  assert.deepEqual(errs(s), {});
  assert.equal(F.applies('tcpWin', form(s)), false);
  assert.equal(cmd({ host: 'h', proto: 'udp', udpWin: '4M', bandwidth: '1G/10', udp64: true }),
    'linkperf -c h -u -b 1G/10 -w 4M --udp-counters-64bit');
});

test('server mode: listen port, client limit, num connections; client fields dropped', () => {
  const s = { mode: 'server', listenPort: '5001', allow: '192.0.2.0/24,10.1.1.1', maxConns: '3',
    host: 'ignored', parallel: '8', interval: '2', format: 'm', bind: '192.0.2.1', proto: 'udp' };
  assert.equal(cmd(s), 'linkperf -s -p 5001 --allow 192.0.2.0/24,10.1.1.1 --max-connections 3 -i 2 -f m -B 192.0.2.1');
  assert.deepEqual(errs(s), {});
  assert.equal(cmd({ mode: 'server' }), 'linkperf -s');
  assert.deepEqual(errs({ mode: 'server' }), {});
});

test('dialect iperf2 with dual and a listen port', () => {
  const s = { host: '192.168.1.20', dialect: 'iperf2', dual: true, listenBack: '5002', transmit: '10', interval: '1' };
  assert.equal(cmd(s), 'linkperf -c 192.168.1.20 --dialect iperf2 -t 10 --dual --listen-port 5002 -i 1');
  assert.deepEqual(errs(s), {});
  // the placeholders are the parser's defaults, which differ by dialect
  assert.equal(F.placeholder('port', form(s)), OPT.port.defaults['tcp-iperf2']);
  assert.equal(F.placeholder('port', form({})), OPT.port.default);
  assert.notEqual(OPT.port.defaults['tcp-iperf2'], OPT.port.default);
  assert.equal(F.placeholder('udpLen', form(s)), OPT.length.defaults['udp-iperf2']);
  assert.equal(F.placeholder('udpLen', form({ ...s, ipv6: true })), OPT.length.defaults['udp-iperf2-inet6']);
});

test('a TCP rate limit uses -b too', () => {
  assert.equal(cmd({ host: 'h', tcpRate: '100M', bandwidth: '5M' }), 'linkperf -c h -b 100M');
  assert.equal(F.fieldForOption('-b', form({})), 'tcpRate');
  assert.equal(F.fieldForOption('--bitrate', form({ proto: 'udp' })), 'bandwidth');
});

test('bytes instead of time: -n', () => {
  assert.equal(cmd({ host: 'h', transmitUnit: 'bytes', transmit: '100M' }), 'linkperf -c h -n 100M');
  assert.deepEqual(errs({ host: 'h', transmitUnit: 'bytes', transmit: '100M' }), {});
  assert.match(errs({ host: 'h', transmitUnit: 'bytes' }).transmit, /number of bytes/);
  assert.match(errs({ host: 'h', transmitUnit: 'bytes', transmit: '1X' }).transmit, /not a size/);
  // a time may not carry a suffix, a byte count may
  assert.match(errs({ host: 'h', transmit: '10K' }).transmit, /not an integer/);
});

test('iperf3 options, IP options and flags', () => {
  assert.equal(cmd({ host: 'h', reverse: true, omit: '2', title: 'lab', tos: '0x08', ipv6: true, printMss: true }),
    'linkperf -c h -R -O 2 -S 0x08 -T lab --print-mss -6');
  assert.equal(cmd({ host: 'h', bidir: true, dscp: 'AF41', congestion: 'bbr', mss: '1400', format: 'A' }),
    'linkperf -c h -M 1400 -C bbr --bidir --dscp AF41 -f A');
  assert.equal(cmd({ host: 'h', dialect: 'iperf2', ttl: '8', compat: true, file: '/tmp/x.bin', tradeoff: false }),
    'linkperf -c h --dialect iperf2 -F /tmp/x.bin --ttl 8 --compat');
});

// The select lists are the binary's: every select whose option names values in the options
// document (-f, -S, --dscp) lists exactly those, in the document's order, after its '' entry
// (the option not given: the default's label, or the field's word when there is none).
test('select lists are the options document\'s choices', () => {
  const selects = F.FIELDS.filter((f) => f.kind === 'select' && f.opt && OPT[f.opt].choices);
  assert.ok(selects.length > 0);
  for (const f of selects) {
    const o = OPT[f.opt];
    const dflt = o.choices.find((c) => c.value === o.default);
    assert.deepEqual(f.options.slice(1), o.choices.filter((c) => c !== dflt).map((c) => [c.value, c.label]), f.name);
    assert.deepEqual(f.options[0], ['', dflt ? dflt.label + ' (default)' : f.none], f.name);
    assert.ok(f.options[0][1], f.name + ': the not-given entry has no text');
    // each value is taken, goes out as typed and comes back into the same field
    for (const [value] of f.options.slice(1)) {
      const s = stateFor(f, value);
      assert.deepEqual(F.validate(s), {}, f.name + ' ' + value);
      const args = F.buildArgs(s);
      assert.equal(args[args.indexOf(f.flag) + 1], value, f.name);
      assert.equal(F.parseArgs(args).state[f.name], value, f.name);
    }
    // and the default, given, reads back as the not-given entry
    if (dflt) assert.equal(F.parseArgs(['-c', 'h', f.flag, dflt.value]).state[f.name], '');
  }
  // the only select the document does not fill is the page's own dialect choice
  assert.deepEqual(F.FIELDS.filter((f) => f.kind === 'select' && !selects.includes(f)).map((f) => f.name), ['dialect']);
});

test('shell quoting of spaces and quotes', () => {
  assert.equal(F.shellQuote('plain-1.2:3/4'), 'plain-1.2:3/4');
  assert.equal(F.shellQuote(''), "''");
  assert.equal(F.shellQuote('two words'), "'two words'");
  assert.equal(F.shellQuote("it's"), "'it'\\''s'");
  assert.equal(F.shellQuote('a"b$c`d'), "'a\"b$c`d'");
  assert.equal(cmd({ host: 'h', title: "Bob's link test" }), "linkperf -c h -T 'Bob'\\''s link test'");
  assert.equal(cmd({ host: 'h', dialect: 'iperf2', file: '/data/my file.bin' }), "linkperf -c h --dialect iperf2 -F '/data/my file.bin'");
});

/* ---- validation ---- */

test('malformed values are flagged on their field, in the CLI\'s words', () => {
  assert.equal(errs({ host: 'h', port: 'http' }).port, F.fill(DOC.messages.not_a, 'http', OPT.port.expects));
  assert.match(errs({ host: 'h', port: 'http' }).port, /'http' is not an integer/);
  assert.deepEqual(errs({ host: 'h', interval: '0' }), {});
  assert.match(errs({ host: 'h', proto: 'udp', bandwidth: '10X' }).bandwidth, /not a rate/);
  assert.match(errs({ host: 'h', proto: 'udp', bandwidth: '10Mbps' }).bandwidth, /not a rate/);
  assert.match(errs({ host: 'h', proto: 'udp', bandwidth: '10M/0' }).bandwidth, /burst 0 is out of range/);
  assert.match(errs({ host: 'h', proto: 'udp', bandwidth: '10M/x' }).bandwidth, /'x' is not a valid burst count/);
  assert.match(errs({ mode: 'server', allow: '10.0.0.1,,10.0.0.2' }).allow, /empty entry/);
  assert.match(errs({ host: 'two words' }).host, /spaces/);
  assert.match(errs({ host: 'h', tos: '0x20' }).tos, /not one of the choices/);
});

/* ---- every range, held against the binary ---- */

// A state in which field f is live, with the dialect its option wants, and text in it.
function stateFor(f, text, over) {
  const o = OPT[f.opt];
  const s = form(Object.assign({ host: '127.0.0.1' }, over));
  for (const base of [{}, { proto: 'udp' }, { mode: 'server' }]) {
    const c = Object.assign({}, s, base);
    if (F.applies(f.name, c)) Object.assign(s, base);
  }
  if (o.implies_iperf2 || o.needs_iperf2) s.dialect = 'iperf2';
  s[f.name] = text;
  return s;
}

// The text fields whose option has a range, with that option (-t or -n for transmit).
function rangedFields() {
  const out = [];
  for (const f of F.FIELDS) {
    if (f.kind !== 'text' || !f.opt) continue;
    if (f.name === 'transmit') {
      out.push([f, OPT.time, { transmitUnit: 'seconds' }], [f, OPT.bytes, { transmitUnit: 'bytes' }]);
    } else if (OPT[f.opt].range) out.push([f, OPT[f.opt], {}]);
  }
  return out;
}

const text = (v) => String(v);

test('every ranged field refuses lo-1 and hi+1 with the CLI\'s own message, and takes lo and hi', () => {
  let refused = 0;
  for (const [f, o, over] of rangedFields()) {
    const narrow = f.range === 'narrow' && o.narrow;
    const ranges = [o].concat(narrow ? [o.narrow] : []);
    const bad = [];
    for (const r of ranges) {
      bad.push(r.min - 1, r.max + 1);
      const between = o.kind === 'number' ? r.min / 2 : Math.trunc(r.min / 2);
      if (r === o && o.zero_ok && between > 0) bad.push(between);
    }
    for (const v of bad) {
      if (o.zero_ok && v === 0 && !narrow) continue; // 0 is "off"
      const s = stateFor(f, text(v), over);
      const page = F.validate(s)[f.name];
      assert.ok(page, f.name + ' ' + v + ' was not flagged');
      assert.ok(ranges.some((r) => page.includes('(' + r.range + ')')), f.name + ': ' + page);
      const cli = cliRefusal(F.buildArgs(s));
      assert.equal(cli.status, 2, f.name + ' ' + v + ': linkperf ' + F.buildArgs(s).join(' ') + ' exited ' + cli.status);
      assert.equal(cli.message, 'option ' + o.label + ': ' + page, f.name + ' ' + v);
      refused++;
    }
    const good = narrow ? [o.narrow.min, o.narrow.max] : [o.min, o.max].concat(o.zero_ok ? [0] : []);
    for (const v of good) {
      assert.equal(F.validate(stateFor(f, text(v), over))[f.name], undefined, f.name + ' ' + v + ' was flagged');
    }
  }
  assert.ok(refused > 30, 'only ' + refused + ' refusals checked');
});

test('bursts, malformed numbers and over-long text: the CLI\'s own message', () => {
  const cases = [];
  for (const [f, o, over] of rangedFields()) {
    cases.push(stateFor(f, 'x1', over));
    if (o.burst) {
      cases.push(stateFor(f, '1M/' + (o.burst.min - 1), over), stateFor(f, '1M/' + (o.burst.max + 1), over),
        stateFor(f, '1M/x', over));
    }
  }
  for (const f of F.FIELDS) {
    const o = f.opt && OPT[f.opt];
    if (f.kind === 'text' && o && o.max_length) cases.push(stateFor(f, 'a'.repeat(o.max_length + 1), {}));
  }
  for (const s of cases) {
    const errors = F.validate(s), names = Object.keys(errors);
    assert.equal(names.length, 1, JSON.stringify(errors));
    const f = F.FIELDS.find((x) => x.name === names[0]);
    const o = f.name === 'transmit' ? OPT[s.transmitUnit === 'bytes' ? 'bytes' : 'time'] : OPT[f.opt];
    const cli = cliRefusal(F.buildArgs(s));
    assert.equal(cli.status, 2, F.buildArgs(s).join(' '));
    assert.equal(cli.message, 'option ' + o.label + ': ' + errors[f.name]);
  }
  assert.ok(cases.length > 20);
});

test('empty server address only matters in client mode', () => {
  assert.match(errs({ host: '  ' }).host, /server's address/);
  assert.equal(errs({ mode: 'server' }).host, undefined);
});

test('bounceback: a TCP check that needs dialect iperf2, not offered for UDP', () => {
  assert.equal(cmd({ host: 'h', dialect: 'iperf2', bounceback: true }), 'linkperf -c h --dialect iperf2 --bounceback');
  assert.deepEqual(errs({ host: 'h', dialect: 'iperf2', bounceback: true }), {});
  assert.match(errs({ host: 'h', bounceback: true }).bounceback, /--bounceback needs dialect iperf2/);
  assert.equal(cmd({ host: 'h', dialect: 'iperf2', proto: 'udp', bounceback: true }), 'linkperf -c h --dialect iperf2 -u');
});

test('combinations: dialect-only options, directions, TOS and DSCP', () => {
  assert.match(errs({ host: 'h', dual: true }).dual, /--dual needs dialect iperf2/);
  assert.match(errs({ host: 'h', tradeoff: true }).tradeoff, /needs dialect iperf2/);
  assert.match(errs({ host: 'h', listenBack: '5002' }).listenBack, /needs dialect iperf2/);
  assert.match(errs({ host: 'h', compat: true }).compat, /needs dialect iperf2/);
  assert.match(errs({ host: 'h', dialect: 'iperf2', omit: '1' }).omit, /iperf3 protocol feature/);
  assert.match(errs({ host: 'h', dialect: 'iperf2', dual: true, tradeoff: true }).tradeoff, /cannot be combined with --dual/);
  assert.match(errs({ host: 'h', reverse: true, bidir: true }).bidir, /cannot be combined with -R/);
  assert.match(errs({ host: 'h', dialect: 'iperf2', compat: true, reverse: true }).compat, /cannot be combined with -R/);
  assert.match(errs({ host: 'h', tos: '0x10', dscp: 'EF' }).dscp, /not both/);
  // compat is fine on a server, where it needs no dialect
  assert.deepEqual(errs({ mode: 'server', compat: true }), {});
});

test('server messages land on the field of the option they name', () => {
  assert.equal(F.fieldForOption('-t', form({})), 'transmit');
  assert.equal(F.fieldForOption('--port', form({ mode: 'server' })), 'listenPort');
  assert.equal(F.fieldForOption('-p', form({})), 'port');
  assert.equal(F.fieldForOption('-w', form({ proto: 'udp' })), 'udpWin');
  assert.equal(F.fieldForOption('-l', form({})), 'tcpLen');
  assert.equal(F.fieldForOption('--dscp', form({})), 'dscp');
  assert.equal(F.fieldForOption('', form({})), '');
  assert.equal(F.fieldForOption('--nonsense', form({})), '');
  // /api/check names the option as the CLI's messages do: -t/--time
  assert.equal(F.fieldForOption('-t/--time', form({})), 'transmit');
  assert.equal(F.fieldForOption('-p/--port', form({ mode: 'server' })), 'listenPort');
  assert.equal(F.fieldForOption('--listen-port', form({})), 'listenBack');
});

/* ---- JPerf import ---- */

// What JPerf 2.0.2's "Save configuration" writes (java.util.Properties.store), plus keys
// JPerf never wrote, which must be ignored.
const JPERF_UDP = `#JPerf 2.0.2 configuration
#Tue Mar 03 14:12:09 CET 2009
mode=client
server-address=192.168.1.50
server-port=5001
serverside-parallel-streams=4
listen-port=5001
client-limit-enabled=false
client-limit=
clientside-parallel-streams=0
compatibility-mode-enabled=false
transmit-value=30
transmit-unit=seconds
output-format=MBITS
report-interval=1
test-mode-dual-enabled=false
test-mode-trade-enabled=false
test-mode-port=5001
print-mss-enabled=false
transport-protocol=udp
tcp-buffer-length-enabled=false
tcp-buffer-length=2.0
tcp-buffer-length-unit=MBYTES
tcp-window-size-enabled=false
tcp-window-size=56.0
tcp-window-size-unit=KBYTES
tcp-mss-enabled=false
tcp-mss=1.0
tcp-mss-unit=KBYTES
tcp-no-delay-enabled=false
udp-bandwidth=10.0
udp-bandwidth-unit=MEGABITS_PERSEC
udp-buffer-size-enabled=false
udp-buffer-size=41.0
udp-buffer-size-unit=KBYTES
udp-packet-size-enabled=true
udp-packet-size=1470.0
udp-packet-size-unit=BYTES
ttl=1
tos=THROUGHPUT
bind-to-host=
ipv6-enabled=false
window-geometry=800x600
last-directory=C\\:\\\\Users\\\\lab
`;

test('.jperf import: a UDP client configuration', () => {
  const r = F.parseJperf(JPERF_UDP);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.ignored, ['window-geometry', 'last-directory']);
  const s = r.state;
  assert.equal(s.mode, 'client');
  assert.equal(s.dialect, 'iperf2');
  assert.equal(s.host, '192.168.1.50');
  assert.equal(s.port, ''); // 5001 is the iperf2 default
  assert.equal(s.parallel, '4');
  assert.equal(s.proto, 'udp');
  assert.equal(s.bandwidth, '10485760'); // iperf2 read JPerf's "-b 10.0M" as 10 x 2^20 bit/s
  assert.equal(s.udpLen, '1470');
  assert.equal(s.transmit, '30');
  assert.equal(s.format, 'm');
  assert.equal(s.tos, '0x04'); // the byte JPerf's "Throughput" really sent
  // JPerf's note names the byte as the -S list labels it (RFC 1349's name, from the binary)
  const label = F.FIELDS.find((f) => f.name === 'tos').options.find((o) => o[0] === s.tos)[1];
  assert.ok(r.notes.some((n) => n.includes(label.replace(/ \(.*\)$/, ''))), label + ' in ' + r.notes);
  assert.equal(s.tcpWin, ''); // disabled in JPerf
  assert.deepEqual(F.validate(s), {});
  assert.equal(F.commandLine(F.buildArgs(s)),
    'linkperf -c 192.168.1.50 --dialect iperf2 -u -b 10485760 -t 30 -P 4 -l 1470 -S 0x04 -f m');
});

test('.jperf import: a server, TCP sizes, dual, and Properties syntax', () => {
  const text = [
    '! a comment', 'mode = server', 'listen-port:5002', 'client-limit-enabled=true',
    'client-limit=10.0.0.7', 'clientside-parallel-streams=5', 'report-interval=2',
    'output-format=ADAPTIVE_BYTES', 'tcp-window-size-enabled=true', 'tcp-window-size=56.0',
    'tcp-window-size-unit=KBYTES', 'tcp-buffer-length-enabled=true', 'tcp-buffer-length=512.0',
    'tcp-buffer-length-unit=KBYTES', 'tcp-mss-enabled=true', 'tcp-mss=1.0', 'tcp-mss-unit=KBYTES',
    'tcp-no-delay-enabled=TRUE', 'test-mode-dual-enabled=true', 'test-mode-port=5003',
    'server-address=board\\', '    .lab', 'bind-to-host=\\u0031\\u0030.0.0.1', 'print-mss-enabled=true',
  ].join('\r\n');
  const r = F.parseJperf(text);
  assert.deepEqual(r.errors, []);
  const s = r.state;
  assert.equal(s.host, 'board.lab'); // a continued line
  assert.equal(s.bind, '10.0.0.1'); // a \\u escape
  assert.equal(F.commandLine(F.buildArgs(s)), 'linkperf -s -p 5002 --allow 10.0.0.7 --max-connections 5 -i 2 -f A --print-mss -B 10.0.0.1');
  // the same file as a client: the TCP fields and dual come through
  s.mode = 'client';
  assert.equal(F.commandLine(F.buildArgs(s)),
    'linkperf -c board.lab --dialect iperf2 -l 512K -w 56K -M 1024 -N --dual --listen-port 5003 -i 2 -f A --print-mss -B 10.0.0.1');
  assert.deepEqual(F.validate(s), {});
});

test('.jperf import: bad values are rejected and the defaults kept', () => {
  const r = F.parseJperf([
    'mode=both', 'server-address=my host', 'server-port=70000', 'serverside-parallel-streams=x',
    'report-interval=abc', 'tos=HIGHEST', 'ipv6-enabled=yes', 'transport-protocol=sctp',
    'udp-bandwidth=fast', 'output-format=BYTES', 'transmit-value=99999999', 'ttl=1',
    // JPerf's own default buffer length, 2 MBytes, is over linkperf's -l limit
    'tcp-buffer-length-enabled=true', 'tcp-buffer-length=2.0', 'tcp-buffer-length-unit=MBYTES',
  ].join('\n'));
  const bad = r.errors.map((e) => e.key).sort();
  assert.deepEqual(bad, ['ipv6-enabled', 'mode', 'report-interval', 'server-address', 'server-port',
    'serverside-parallel-streams', 'tcp-buffer-length', 'tos', 'transmit-value', 'transport-protocol',
    'udp-bandwidth']);
  assert.ok(2 * 1048576 > OPT.length.max);
  assert.equal(r.errors.find((e) => e.key === 'tcp-buffer-length').message,
    F.fill(DOC.messages.out_of_range, '2M', OPT.length.range, ''));
  assert.match(r.errors.find((e) => e.key === 'server-port').message, /out of range/);
  const d = Object.assign(F.defaults(), { dialect: 'iperf2' });
  assert.deepEqual(r.state, d);
  assert.ok(r.notes.some((n) => /no plain bits\/Bytes/.test(n)));
});

test('Properties parser: separators, comments, escapes, continuations', () => {
  const p = F.parseProperties('# c\n\n  a=1\nb : 2\nc 3\nd\\=e=4\nf=x\\\\\ng=long \\\n   value\nh=\\t\\u00e9\n');
  assert.deepEqual([...p.entries()], [['a', '1'], ['b', '2'], ['c', '3'], ['d=e', '4'], ['f', 'x\\'], ['g', 'long value'], ['h', '\té']]);
});

/* ---- chart data from real --json-stream records ---- */

test('unit choice by the largest value', () => {
  assert.deepEqual(C.chooseUnit(0), { div: 1, label: 'bits/s' });
  assert.deepEqual(C.chooseUnit(999), { div: 1, label: 'bits/s' });
  assert.deepEqual(C.chooseUnit(1000), { div: 1e3, label: 'Kbits/s' });
  assert.deepEqual(C.chooseUnit(2.5e6), { div: 1e6, label: 'Mbits/s' });
  assert.deepEqual(C.chooseUnit(999.9e6), { div: 1e6, label: 'Mbits/s' });
  assert.deepEqual(C.chooseUnit(1.2e10), { div: 1e9, label: 'Gbits/s' });
  assert.equal(C.chooseByteUnit(1178694).label, 'MBytes');
  assert.equal(C.chooseByteUnit(65535).label, 'KBytes');
  assert.equal(C.formatRate(94.1e6), '94.1 Mbits/s');
  assert.equal(C.formatRate(1.234e9), '1.23 Gbits/s');
  assert.equal(C.formatRate(512), '512 bits/s');
});

test('TCP -P 2: one series per stream plus the sum, RTT, cwnd, retransmits', () => {
  const v = C.build(FIX.tcpP2);
  assert.equal(v.protocol, 'TCP');
  assert.equal(v.bps.unit, 'Mbits/s');
  assert.deepEqual(v.bps.series.map((s) => s.label), ['[14]', '[15]', 'sum']);
  assert.deepEqual(v.bps.data[0], [1.000077, 2.000273]);
  close(v.bps.data[1][0], 100.65550707555148);
  close(v.bps.data[2][1], 99.595255601221576);
  close(v.bps.data[3][0], 201.311014151103);
  assert.deepEqual(v.rtt.series.map((s) => s.label), ['[14]', '[15]']);
  assert.deepEqual(v.rtt.data.slice(1), [[0.081, 0.082], [0.102, 0.086]]);
  assert.equal(v.cwnd.unit, 'MBytes');
  close(v.cwnd.data[1][0], 1178694 / 1048576);
  assert.deepEqual(v.retr.series.map((s) => s.label), ['[14]', '[15]', 'sum']);
  assert.deepEqual(v.retr.data.slice(1), [[0, 0], [0, 0], [0, 0]]);
  assert.equal(v.jitter, null);
  assert.equal(v.loss, null);
  assert.deepEqual(v.summary.map((r) => r.label), ['sender', 'receiver']);
  assert.equal(v.summary[0].bytes, 75235328);
  assert.equal(v.summary[0].retransmits, 0);
});

test('bounceback: each interval\'s round-trip percentiles in the latency panel', () => {
  const v = C.build(FIX.bounceback);
  assert.equal(v.latency.unit, 'ms');
  assert.deepEqual(v.latency.series.map((s) => s.label), ['p50', 'p90', 'p99', 'max']);
  assert.deepEqual(v.latency.data[0], [1.000129, 2.000173]);
  assert.deepEqual(v.latency.data.slice(1), [[0.0097915, 0.0075195], [0.1361915, 0.0305915], [0.2324475, 0.0305915], [0.232713, 0.033607]]);
  for (let i = 0; i < 2; i++) { // percentiles in order, within the interval's extremes
    const col = v.latency.data.slice(1).map((c) => c[i]);
    assert.deepEqual(col, [...col].sort((a, b) => a - b));
  }
  assert.equal(C.build(FIX.tcpP2).latency, null); // no latency measured, no panel
});

test('UDP -R: the receiver\'s jitter and loss per interval', () => {
  const v = C.build(FIX.udpReverse);
  assert.deepEqual(v.bps.series.map((s) => s.label), ['sum']);
  assert.deepEqual(v.bps.data[0], [1.000552, 2.000745]);
  close(v.bps.data[1][0], 19.996792032360416);
  assert.deepEqual(v.jitter.series.map((s) => s.label), ['sum']);
  assert.deepEqual(v.jitter.data[1], [0.0003429053479006754, 0.00807601276310134]);
  assert.deepEqual(v.loss.series.map((s) => s.label), ['lost %', 'lost packets']);
  assert.deepEqual(v.loss.data.slice(1), [[0, 0], [0, 0]]);
  assert.equal(v.rtt, null);
  const recv = v.summary.find((r) => r.label === 'receiver');
  assert.equal(recv.packets, 5138);
  assert.equal(recv.lost_packets, 0);
  close(recv.jitter_ms, 0.0047691441972918186);
});

test('UDP sending client: no interval jitter, the summary has the receiver\'s', () => {
  const v = C.build(FIX.udpSend);
  assert.equal(v.jitter, null);
  assert.equal(v.loss, null);
  assert.deepEqual(v.bps.data[0], [1.000169]);
  const recv = v.summary.find((r) => r.label === 'receiver');
  close(recv.jitter_ms, 0.00180511215239878);
  assert.equal(v.summary.find((r) => r.label === 'sender').jitter_ms, undefined);
});

test('--bidir: the sum of each direction, the reverse one marked', () => {
  const v = C.build(FIX.bidir);
  assert.deepEqual(v.bps.series.map((s) => [s.label, s.kind]), [['sum sent', 'sum'], ['sum received', 'rev']]);
  close(v.bps.data[1][0], 100.61800330890051);
  close(v.bps.data[2][0], 100.61800330890051);
  assert.deepEqual(v.rtt.series.map((s) => s.label), ['[14] sent']); // only the sending stream has TCP_INFO
});

test('iperf2 --dual: each direction added up from its streams', () => {
  const v = C.build(FIX.dual);
  assert.deepEqual(v.bps.series.map((s) => s.label), ['sum sent', 'sum received']);
  close(v.bps.data[1][0], 50.322879288606837); // not the record's 100.6 over both directions
  close(v.bps.data[2][0], 50.322879288606837);
});

test('-O: omitted intervals before zero, the leftover sliver dropped', () => {
  const v = C.build(FIX.omit);
  assert.equal(v.bps.data[0].length, 2);
  close(v.bps.data[0][0], 0.000048);
  assert.equal(v.bps.data[0][1], 1.000398);
});

test('a record stream with only an error', () => {
  const v = C.build([{ event: 'error', data: 'unable to connect to server 127.0.0.1 port 5334: Connection refused' }]);
  assert.match(v.error, /Connection refused/);
  assert.deepEqual(v.bps.series, []);
  assert.deepEqual(v.summary, []);
});

test('incremental model: a new test after an end starts a fresh chart; junk is ignored', () => {
  const m = C.createModel();
  for (const r of FIX.tcpP2) m.add(r);
  m.add(null);
  m.add({ event: 'interval', data: { streams: 'nope' } });
  assert.equal(m.view().bps.data[0].length, 2);
  m.add(FIX.udpReverse[0]); // an interval of the next test, before its start: appended in order
  m.add(FIX.tcpP2[0]);
  m.add(FIX.tcpP2[1]);
  const v = m.view();
  assert.deepEqual(v.bps.data[0], [1.000077]);
  assert.deepEqual(v.summary, []);
});

/* ---- latency CDF, measurement modes (fixtures/page_runs.json: what the page got) ---- */

const RUNS = JSON.parse(fs.readFileSync(new URL('./fixtures/page_runs.json', import.meta.url), 'utf8'));

test('latency CDF: from the end record\'s histogram, 0 to 100 % over the buckets\' upper bounds', () => {
  const end = RUNS.bounceback_live.find((r) => r.event === 'end').data;
  const buckets = end.streams[0].sender.latency.histogram.buckets;
  const v = C.build(RUNS.bounceback_live);
  assert.equal(v.xy.length, 1);
  const cdf = v.xy[0];
  assert.equal(cdf.name, 'cdf');
  assert.equal(cdf.xlabel, 'ms');
  const total = buckets.reduce((a, b) => a + b[2], 0);
  assert.equal(total, end.streams[0].sender.latency.count);
  assert.equal(cdf.series.length, 1);
  assert.match(cdf.series[0].label, new RegExp('round trip, ' + total + ' samples'));
  const [x, y] = cdf.data;
  assert.equal(x.length, buckets.length + 1);
  close(x[0], buckets[0][0] / 1e6);
  close(x[x.length - 1], (buckets[buckets.length - 1][0] + buckets[buckets.length - 1][1]) / 1e6);
  assert.equal(y[0], 0);
  close(y[y.length - 1], 100);
  close(y[1], (100 * buckets[0][2]) / total);
  for (let i = 1; i < x.length; i++) assert.ok(x[i] > x[i - 1] && y[i] >= y[i - 1], 'not rising at ' + i);
  // the p50 of the run lies where the CDF crosses 50 %
  const p50 = end.streams[0].sender.latency.p50_ms, k = y.findIndex((v) => v >= 50);
  assert.ok(p50 <= x[k] && p50 >= x[k - 1] - 1e-9, p50 + ' not in [' + x[k - 1] + ', ' + x[k] + ']');
});

test('latency CDF: none without a histogram (a TCP run, an end without streams)', () => {
  assert.deepEqual(C.build(FIX.tcpP2).xy, []);
  assert.equal(C.latencyCdf(null), null);
  assert.equal(C.latencyCdf({ streams: [{ sender: { latency: { histogram: { buckets: [[1, 2, 0], 'x'] } } } }] }), null);
});

test('rfc2544 report: throughput per frame size on the line (at most the line rate), loss against the offered load', () => {
  const doc = RUNS.rfc2544.report, r = doc.rfc2544;
  const v = C.measureView(doc);
  assert.equal(v.kind, 'rfc2544');
  const [rate, loss] = v.xy;
  assert.equal(rate.name, 'rfcRate');
  assert.deepEqual(rate.labels, ['64', '1518']);
  assert.deepEqual(rate.data[0], [0, 1]);
  assert.deepEqual(rate.series.map((s) => s.label), ['throughput', 'line rate']);
  assert.match(rate.title, /Mbits\/s on the line/);
  r.frames.forEach((f, i) => close(rate.data[1][i], (f.throughput.line_fraction * r.line_bits_per_second) / 1e6));
  assert.deepEqual(rate.data[2], [50, 50]);
  assert.ok(rate.data[1].every((y) => y > 0 && y <= 50));
  assert.equal(loss.name, 'rfcLoss');
  assert.deepEqual(loss.series.map((s) => s.label), ['64-byte frames', '1518-byte frames']);
  assert.deepEqual(loss.data[0], [90, 100]); // % of the line rate, ascending
  const lost = (t) => (100 * (t.sent - t.received)) / t.sent;
  assert.deepEqual(loss.data[1], [lost(r.frames[0].frame_loss[1]), lost(r.frames[0].frame_loss[0])]);
  assert.deepEqual(v.table.map((t) => [t.frame, t.line_percent]), [[64, 100], [1518, 100]]);
  close(v.table[0].frames_per_second, r.frames[0].throughput.frames_per_second);
});

test('rfc2544 report: skipped frames and a search cut short have no throughput point', () => {
  const doc = { rfc2544: { line_bits_per_second: 1e8, out_of_time: true, frames: [
    { frame_bytes: 64, payload_bytes: 18, skipped: true },
    { frame_bytes: 512, payload_bytes: 466, skipped: false, throughput: { line_fraction: 0.5, frames_per_second: 11748, payload_bits_per_second: 2.19e7, trials: 2 } },
    { frame_bytes: 1518, payload_bytes: 1472, skipped: false }] } };
  const v = C.measureView(doc);
  assert.deepEqual(v.xy.map((p) => p.name), ['rfcRate']);
  assert.deepEqual(v.xy[0].labels, ['512']);
  assert.deepEqual(v.xy[0].data[1], [50]);
  assert.equal(v.xy[0].xlabel, 'frame size (bytes)');
  assert.deepEqual(v.table.map((t) => t.skipped), [true, false, false]);
  assert.equal(v.out_of_time, true);
});

test('under-load report: p50/p99 per phase, the load\'s throughput up and down', () => {
  const doc = RUNS.under_load.report, ph = doc.under_load.phases;
  const v = C.measureView(doc);
  assert.equal(v.kind, 'under-load');
  const [lat, rate] = v.xy;
  assert.deepEqual(lat.labels, ['idle', 'up', 'down', 'both']);
  assert.deepEqual(lat.series.map((s) => s.label), ['p50', 'p99']);
  assert.deepEqual(lat.data[1], ph.map((p) => p.rtt.p50_ms));
  assert.deepEqual(lat.data[2], ph.map((p) => p.rtt.p99_ms));
  const div = { 'Gbits/s': 1e9, 'Mbits/s': 1e6 }[/\((\w+\/s)\)/.exec(rate.title)[1]];
  assert.deepEqual(rate.data[1], ph.map((p) => p.up_bits_per_second / div));
  assert.deepEqual(rate.data[2], ph.map((p) => p.down_bits_per_second / div));
  assert.ok(rate.data[1][1] > 0 && rate.data[1][2] === 0 && rate.data[2][2] > 0 && rate.data[2][1] === 0);
  assert.deepEqual(v.table.map((t) => t.phase), ['idle', 'up', 'down', 'both']);
  close(v.table[1].added_p50_ms, ph[1].added_p50_ms);
  assert.equal(C.measureView({ start: {} }), null);
});

test('measurement progress: the line and how far along; the mode of an argument list', () => {
  const rp = RUNS.rfc2544_progress.map(C.progressOf);
  assert.ok(rp.length >= 4 && rp.every((p) => /^linkperf: rfc2544: .* \(at most \d+ s left\)$/.test(p.line)));
  assert.ok(rp.every((p, i) => p.fraction > 0 && p.fraction < 1 && (i === 0 || p.fraction >= rp[i - 1].fraction)));
  assert.deepEqual([...new Set(RUNS.rfc2544_progress.map((p) => p.frame_bytes))], [64, 1518]);
  const up = RUNS.under_load_progress.map(C.progressOf);
  assert.deepEqual(up.map((p) => p.test), ['idle', 'up', 'down', 'both']);
  assert.match(up[0].line, /^linkperf: under-load: phase 1\/4, idle: 2 s \(10 s left\)$/);
  assert.equal(C.progressOf(null), null);
  assert.equal(C.measureOf(['rfc2544', '-c', 'h']), 'rfc2544');
  assert.equal(C.measureOf(['under-load']), 'under-load');
  assert.equal(C.measureOf(['-c', 'rfc2544']), '');
});

test('form: the measurement modes build the subcommand\'s command line, and read it back', () => {
  const rfc = { mode: 'rfc2544', host: '192.0.2.7', lineRate: '100m', frames: '64,1518', trial: '1', dialect: 'iperf2', rfcTests: 'throughput,latency', ipv6: true };
  assert.equal(cmd(rfc), 'linkperf rfc2544 -c 192.0.2.7 -b 100m --dialect iperf2 --frames 64,1518 --trial 1 --tests throughput,latency -6');
  assert.deepEqual(errs(rfc), {});
  assert.deepEqual(F.parseArgs(F.buildArgs(form(rfc))), { state: form(rfc), unknown: [] });
  assert.match(errs({ mode: 'rfc2544', host: 'h' }).lineRate, /line rate/);
  assert.match(errs({ mode: 'rfc2544', lineRate: '1g' }).host, /address/);
  assert.match(errs({ mode: 'rfc2544', host: 'h', lineRate: 'fast' }).lineRate, /not a rate/);
  const ul = { mode: 'under-load', host: 'h', port: '5002', ulStreams: '4', ulTime: '5', congestion: 'cubic' };
  assert.equal(cmd(ul), 'linkperf under-load -c h -p 5002 -P 4 -t 5 -C cubic');
  assert.deepEqual(F.parseArgs(['linkperf'].concat(F.buildArgs(form(ul)))).state, form(ul));
  // the client's fields stay out of a measurement's command line
  assert.equal(cmd(Object.assign({ parallel: '4', proto: 'udp', interval: '2', format: 'm', transmit: '30' }, ul)),
    'linkperf under-load -c h -p 5002 -P 4 -t 5 -C cubic');
  assert.deepEqual(F.FIELDS.filter((f) => F.applies(f.name, form(ul))).map((f) => f.name),
    ['mode', 'host', 'port', 'ulStreams', 'ulTime', 'congestion', 'ipv6']);
  // defaults the subcommands take, as placeholders
  assert.equal(F.placeholder('port', form({ mode: 'rfc2544' })), '5201');
  assert.equal(F.placeholder('port', form({ mode: 'rfc2544', dialect: 'iperf2' })), '5001');
  assert.equal(F.placeholder('port', form(ul)), '5001');
  assert.equal(F.placeholder('ulStreams', form(ul)), '8');
  // the subcommand's messages name its options: each back to its field
  assert.equal(F.fieldForOption('--frames', form(rfc)), 'frames');
  assert.equal(F.fieldForOption('-b', form(rfc)), 'lineRate');
  assert.equal(F.fieldForOption('-t', form(ul)), 'ulTime');
  assert.equal(F.fieldForOption('-P', form(ul)), 'ulStreams');
  assert.equal(F.fieldForOption('-C', form(ul)), 'congestion');
  assert.equal(F.fieldForOption('-t', form({ mode: 'client' })), 'transmit');
});
