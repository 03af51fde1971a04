/* linkperf agent (lpa): iperf2- and iperf3-compatible test server and client for lwIP boards.
 * This is the whole public API: start and stop tests, receive reports, run console commands. */
#ifndef LPA_H
#define LPA_H

#include <stddef.h>
#include <stdint.h>

#include "lwip/ip_addr.h"
#include "lpa_opts.h"

enum lpa_role { LPA_ROLE_SERVER = 0, LPA_ROLE_CLIENT = 1 };
enum lpa_proto { LPA_PROTO_TCP = 0, LPA_PROTO_UDP = 1 };
enum lpa_dialect { LPA_DIALECT_IPERF2 = 0, LPA_DIALECT_IPERF3 = 1 };
/* How data flows in a test, seen from the client: ONEWAY client sends; DUAL both ways at once
 * (iperf2 -d: on a second connection; iperf3 --bidir: on a second set of -P streams);
 * TRADEOFF (iperf2 -r) client first, then the server on a second connection; REVERSE (iperf3 -R)
 * the server sends. */
enum lpa_mode { LPA_MODE_ONEWAY = 0, LPA_MODE_DUAL = 1, LPA_MODE_TRADEOFF = 2, LPA_MODE_REVERSE = 3 };

/* One test (client) or one listener (server). Zero means "the default" for every field. */
struct lpa_config {
  uint8_t role;          /* enum lpa_role */
  uint8_t proto;         /* enum lpa_proto; a server listens for both TCP and UDP on its port */
  uint8_t dialect;       /* enum lpa_dialect */
  uint8_t mode;          /* enum lpa_mode (client) */
  ip_addr_t peer;        /* client: the server's address */
  uint16_t port;         /* 0: 5001 (iperf2) or 5201 (iperf3) */
  uint16_t back_port;    /* iperf2 client -L: where the server connects back for -d/-r; 0: port */
  uint32_t duration_ms;  /* -t; 0: 10 s unless amount_bytes is set. Server
                          * (--server-max-duration): iperf2, the longest a test sends back
                          * (-d/-r/-R); iperf3, the longest test it runs;
                          * 0: LPA_SERVER_MAX_SEND_MS */
  uint64_t amount_bytes; /* -n: send this many bytes instead of running for a time */
  uint32_t interval_ms;  /* -i; 0: LPA_DEFAULT_INTERVAL_MS; LPA_INTERVAL_NONE: final report only */
  uint64_t rate_bps;     /* -b; UDP 0: 1 Mbit/s (iperf2) or 1 Mbit/s (iperf3); TCP 0: unlimited */
  uint32_t len;          /* -l: bytes per write / per UDP datagram; 0: protocol default */
  uint8_t streams;       /* iperf3 client -P: parallel streams per direction, 1..LPA_MAX_STREAMS
                          * (--bidir: twice this many in all); 0: 1 */
  uint16_t omit_s;       /* iperf3 client -O: seconds sent first and not counted, 0..600 */
};
#define LPA_INTERVAL_NONE 0xFFFFFFFFu

enum lpa_report_kind {
  LPA_REPORT_START = 0,    /* a test began: peer, proto, direction */
  LPA_REPORT_INTERVAL = 1, /* one -i interval of one direction */
  LPA_REPORT_FINAL = 2,    /* the whole test, one direction, measured here */
  LPA_REPORT_PEER = 3,     /* the whole test as the peer measured it (iperf2 UDP server report,
                            * iperf3 results exchange) */
  LPA_REPORT_ERROR = 4,    /* error says what went wrong; the test has ended */
  LPA_REPORT_DONE = 5      /* the session is free again */
};
enum lpa_dir { LPA_DIR_RX = 0, LPA_DIR_TX = 1 };

/* What went wrong, in the error field of an LPA_REPORT_ERROR report: a code, like lwiperf's
 * report types, so a build without the formatter carries no message strings. The list holds the
 * text too; lpa_error_text() (lpa_format.c) returns it. */
#define LPA_ERRORS(X) \
  X(STOPPED, "stopped") \
  X(RESET, "connection reset") \
  X(BROKEN, "connection broken") \
  X(IDLE, "no data for 30 s") \
  X(NO_HEADER, "no test header") \
  X(CONNECT, "connect failed") \
  X(SEND_HEADER, "cannot send the header") \
  X(CLOSED, "closed by the server") \
  X(NO_DATA, "no data from the server") \
  X(NO_REPORT, "no report from the peer") \
  X(BACK_CONNECT, "cannot connect back") \
  X(BACK_REFUSED, "connection back refused") \
  X(BACK_OPEN, "cannot send back") \
  X(NO_BACK_CONN, "no connection back") \
  X(NO_BACK_FLOW, "no flow back") \
  X(BACK_STOPPED, "flow back stopped") \
  X(I3_OUTPUT, "iperf3 control output does not fit its buffer") \
  X(I3_CTRL_DATA, "unexpected data on the iperf3 control connection") \
  X(I3_JSON_SIZE, "iperf3 JSON message empty or longer than LPA_IPERF3_JSON_MAX") \
  X(I3_JSON_EARLY, "iperf3 peer sent JSON before taking ours") \
  X(I3_SEND_BROKEN, "iperf3 data connection broken while sending") \
  X(I3_RESULTS_SIZE, "iperf3 results do not fit LPA_IPERF3_JSON_MAX") \
  X(I3_PARAMS_SIZE, "iperf3 parameters do not fit LPA_IPERF3_JSON_MAX") \
  X(I3_PROTO, "iperf3 test is neither TCP nor UDP (SCTP is not supported)") \
  X(I3_UDP_PORT, "iperf3 server cannot open its UDP port") \
  X(I3_PARAMS, "iperf3 parameters are not a JSON object") \
  X(I3_OMIT, "iperf3 -O out of 0..600 s") \
  X(I3_DURATION, "iperf3 test longer than the server's maximum duration") \
  X(I3_BLOCKSIZE, "iperf3 block size out of range (UDP -R, --bidir: LPA_UDP_MAX_LEN)") \
  X(I3_STREAMS, "iperf3 client asked for more streams than LPA_MAX_STREAMS (--bidir: twice -P)") \
  X(I3_MSG, "unexpected iperf3 control message") \
  X(I3_CTRL_RESET, "the iperf3 control connection was reset") \
  X(I3_DATA_RESET, "an iperf3 data connection was reset") \
  X(I3_CLIENT_TERMINATED, "the iperf3 client terminated the test") \
  X(I3_CLIENT_MSG, "unknown or misplaced iperf3 control message from the client") \
  X(I3_CLIENT_RESULTS, "iperf3 client results are not valid JSON") \
  X(I3_CLIENT_CLOSED, "the iperf3 client closed the control connection") \
  X(I3_IDLE, "iperf3 test moved no data for 30 s") \
  X(I3_CLIENT_STALL, "iperf3 client made no progress for 10 s") \
  X(I3_STREAM_OPEN, "iperf3 client cannot open a data stream") \
  X(I3_SERVER_TERMINATED, "the iperf3 server has terminated") \
  X(I3_SERVER_BUSY, "the iperf3 server is busy running a test. try again later") \
  X(I3_SERVER_MSG, "unknown or misplaced iperf3 control message from the server") \
  X(I3_SERVER_RESULTS, "iperf3 server results are not valid JSON") \
  X(I3_SERVER_CONNECT, "cannot connect to the iperf3 server") \
  X(I3_STREAM_CONNECT, "cannot connect an iperf3 data stream") \
  X(I3_COOKIE, "cannot send the cookie on an iperf3 data stream") \
  X(I3_SERVER_CLOSED, "the iperf3 server closed the control connection") \
  X(I3_SERVER_STREAM_CLOSED, "the iperf3 server closed a data stream") \
  X(I3_SERVER_IDLE, "no iperf3 data from the server for 30 s") \
  X(I3_SERVER_STALL, "no answer from the iperf3 server for 10 s") \
  X(I3_REFUSED_DURATION, "iperf3 server refused the test duration") \
  X(I3_REFUSED_STREAMS, "iperf3 server refused the number of streams") \
  X(I3_REFUSED_BLOCKSIZE, "iperf3 server refused the block size") \
  X(I3_REFUSED_UNIMP, "iperf3 server does not implement an option of this test") \
  X(I3_REFUSED_AUTH, "iperf3 server requires authentication") \
  X(I3_REFUSED, "iperf3 server reported an error") \
  X(I3_EXPIRED, "iperf3 test without a time limit ended at the server's maximum duration") \
  X(EXPIRED, "the server's time limit ended the test") \
  X(NO_PCB, "lwIP turned a connection away: no pcb or netconn (MEMP_NUM_TCP_PCB, MEMP_NUM_NETCONN)") \
  X(I2_BOUNCEBACK, "bad iperf2 bounceback message")

#define LPA_ERR_ENUM_(name, text) LPA_ERR_##name,
enum lpa_error { LPA_ERR_NONE = 0, LPA_ERRORS(LPA_ERR_ENUM_) LPA_ERR_COUNT };

/* What a report callback receives. Counters are 64-bit: a 1 Gbit/s test passes 4 GiB in 35 s. */
struct lpa_report {
  uint8_t kind;      /* enum lpa_report_kind */
  uint8_t proto;     /* enum lpa_proto */
  uint8_t dialect;   /* enum lpa_dialect */
  uint8_t dir;       /* enum lpa_dir: this side received or sent the bytes; in a PEER report,
                      * the direction of this side's flow the peer measured (a UDP client's
                      * server report: TX) */
  uint8_t session;   /* index of the session (LPA_REPORT_* of one test share it) */
  uint8_t stream;    /* 0: the test's first connection; 1: its second (iperf2 -d/-r back) */
  uint8_t error;     /* LPA_REPORT_ERROR: enum lpa_error; otherwise 0 */
  uint8_t omitted;   /* iperf3 -O: an INTERVAL in the omitted seconds at the start, which
                      * iperf3 shows (tagged "(omitted)") but leaves out of the totals */
  ip_addr_t peer;
  uint16_t peer_port;
  uint32_t start_ms; /* interval bounds, from the start of the test */
  uint32_t end_ms;
  uint64_t bytes;    /* payload bytes (iperf2: the test header is not counted) */
  uint64_t bps;      /* bytes * 8 / (end - start) */
  /* UDP receiver side only (and in LPA_REPORT_PEER for a UDP sender) */
  uint32_t jitter_us;
  uint64_t packets;      /* datagrams expected (highest sequence number seen) */
  uint64_t lost;
  uint64_t out_of_order;
};

typedef void (*lpa_report_fn)(const struct lpa_report *report, void *arg);
typedef void (*lpa_print_fn)(const char *text, void *arg);

/* Errors (negative return values). */
#define LPA_EINVAL (-1)  /* a configuration value is out of range */
#define LPA_EBUSY (-2)   /* no free session (LPA_MAX_SESSIONS) */
#define LPA_ENET (-3)    /* the stack refused: no memory, port in use, no route */
#define LPA_ENOENT (-4)  /* no such session */

/* Start the agent once, after the lwIP stack is up (after tcpip_init() or lwip_init()). */
int lpa_init(void);
/* Start a test or a server. Returns the session index (>= 0) or an LPA_E* error. The callback
 * runs in the agent's context (the tcpip thread for the raw back end, the agent thread
 * otherwise); it must not block. */
int lpa_start(const struct lpa_config *cfg, lpa_report_fn fn, void *arg);
/* Stop one session (index) or all (-1); a running test ends with its final report. */
int lpa_stop(int session);
/* Fill cfg with the defaults for a role, protocol and dialect. */
void lpa_config_defaults(struct lpa_config *cfg, uint8_t role, uint8_t proto, uint8_t dialect);

/* Console entry: "iperf -s", "iperf -c 192.168.1.10 -u -b 50M -t 5 -i 1", "iperf3 -s",
 * "iperf -c HOST -d", "stop", "help". Output (usage, errors, reports) goes through print.
 * Returns the session index started, 0 for commands that start nothing, or an LPA_E* error. */
int lpa_command(const char *line, lpa_print_fn print, void *arg);
/* Print one report as iperf prints it (iperf2 or iperf3 text layout, by report->dialect). */
void lpa_format_report(const struct lpa_report *report, lpa_print_fn print, void *arg);
/* The words for an enum lpa_error ("unknown error" for a code out of range). With LPA_FORMAT. */
const char *lpa_error_text(unsigned error);

#endif
