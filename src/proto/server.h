/* The multi-dialect server's shared parts: listeners (one or two ports, TCP and UDP each),
 * connections waiting to be classified, the list of running tests, allowlist and limits.
 * Dialect modules (i3_server.c, i2_server.c) run the tests; this header is their contract. */
#ifndef LP_SERVER_INT_H
#define LP_SERVER_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/run.h"
#include "net/allow.h"
#include "net/sock.h"
#include "wire/iperf2.h"
#include "wire/iperf3.h"

#define LP_SRV_MAX_PENDING 256
#define LP_SRV_CLASSIFY_TIMEOUT_MS 10000u
#define LP_SRV_DEFAULT_MAX_TESTS 64u
/* Without --server-max-duration every test still ends: an untimed (-t 0) iperf3 test and
 * any iperf2 test are ended after this long, a timed iperf3 test longer than it is refused
 * (the -h text says so). LINKPERF_DEFAULT_MAX_DURATION (seconds) overrides it, for tests. */
#define LP_SRV_DEFAULT_MAX_DURATION_S 3600u
#define LP_SRV_MAX_LISTENERS 2

struct lp_server;

struct srv_listener {
    struct lp_server *srv;
    int tcp_fd, udp_fd;
    struct lp_handler tcp_h, udp_h;
    struct lp_addr local;       /* bound address (real port) */
    uint16_t port;
    /* The address the datagram being dispatched was sent to (IP_PKTINFO; family 0 when not
     * known): a flow socket answers from it, as the client expects of a multi-address host
     * (a connected client socket drops datagrams from any other address). */
    struct sockaddr_storage cur_dst;
};

/* What every test has, whatever its dialect; dialect state embeds it first. Owned by the
 * server (linked in lp_server.tests by srv_test_link); freed by its own destroy, which runs
 * after the event batch that unlinked it, or from lp_server_free. Owns its run (streams and
 * their sockets); borrows srv. */
struct srv_test {
    struct lp_server *srv;
    struct lp_run run;
    enum lp_dialect dialect;
    struct sockaddr_storage peer_addr;  /* the client's address */
    bool finishing, unlinked;
    struct srv_test *prev, *next;
    /* The server is stopping: end the test now (partial results, tell the peer). */
    void (*interrupt)(struct srv_test *t);
    /* Free the dialect state; runs after the event batch (deferred through reap). */
    void (*destroy)(struct srv_test *t);
    struct lp_post reap;
};

struct i3_state {
    /* UDP hellos carry no cookie: one iperf3 UDP test at a time creates streams. */
    struct srv_test *udp_setup;
    struct srv_test *udp_queue_head, *udp_queue_tail;
};

struct pending;

/* An address that completed a TCP handshake with us: it receives what we send it. */
#define LP_SRV_PROVEN_MAX 128
#define LP_SRV_PROVEN_NS (600ull * LP_NS_PER_S)
struct srv_proven {
    struct sockaddr_storage addr;
    uint64_t at_ns; /* 0 = empty */
};

/* Sources whose iperf2 UDP -R or full-duplex flow ended recently: their late datagrams (a
 * 2.1.8 client repeats its first datagram, at 0-20 ms gaps, until data arrives) must not
 * start a test of their own. Only those, and only briefly: a board that sends every test
 * from one fixed port must be able to start the next one. */
#define LP_SRV_UDP_ENDED_MAX 64
#define LP_SRV_UDP_ENDED_NS (3ull * LP_NS_PER_S)

/* Owned by whoever called lp_server_new (lp_server_free). Owns its engine, listeners, pending
 * connections and tests; borrows auth (lp_server_set_auth: the caller keeps it until lp_server_free). */
struct lp_server {
    struct lp_engine eng;
    bool eng_ok;
    struct lp_spec spec;
    struct srv_listener lis[LP_SRV_MAX_LISTENERS];
    unsigned nlis;
    unsigned next_id, ntests, npending, tests_done;
    unsigned next_transfer_id;  /* iperf2 numbers its streams server-wide: [  1], [  2], ... */
    uint64_t seq;               /* arrival order of connections */
    struct pending *pendings;
    struct srv_test *tests;
    struct i3_state i3;
    struct lp_allow allow;      /* clients allowed (empty = everyone) */
    struct lp_allow trusted;    /* --trust-udp: proven without a handshake (empty = none) */
    uint64_t udp_refused_log_ns; /* last log line about refused datagrams (rate limit) */
    uint64_t udp_refused_quiet;  /* refused datagrams not logged since */
    uint64_t keyless_log_ns;     /* last log line about iperf2 UDP refused for want of a key */
    struct lp_timer permit_timer; /* --permit-key-timeout: when the server stops accepting */
    bool permit_expired;         /* it fired: no new tests, return once the last one ends */
    struct lp_timer idle_timer;
    struct srv_proven proven[LP_SRV_PROVEN_MAX];
    struct srv_proven udp_ended[LP_SRV_UDP_ENDED_MAX]; /* iperf2 UDP flows that just ended */
    unsigned udp_ended_next;
    unsigned default_max_duration_s; /* LP_SRV_DEFAULT_MAX_DURATION_S or the override */
    unsigned proven_next;       /* the slot the next address takes (oldest first) */
    struct lp_i3auth_server *auth; /* iperf3 authentication required (NULL = none) */
    atomic_bool stop_req;
    bool stopping;
    int result;
};

#define SRV_DBG(srv, id, ...) lp_engine_debug(&(srv)->eng, LP_ROLE_SERVER, id, __VA_ARGS__)

/* ---- services of server.c for the dialects ---- */

/* Register a new test: assigns its id, links it, emits CONNECTING. */
void srv_test_link(struct lp_server *s, struct srv_test *t, enum lp_dialect d, const struct sockaddr_storage *peer,
                   enum lp_proto proto);
/* The test is over (all its streams settled): DONE record, unlink, free after the batch. */
void srv_test_unlink(struct srv_test *t);
/* May the server start another test now (limits, one-off, stopping)? */
bool srv_accepting(const struct lp_server *s);
/* Whether an address is a multicast group. */
bool srv_multicast(const struct sockaddr_storage *ss);
/* Whether we may send more to peer than it sends us: it is on loopback, or in --trust-udp,
 * or it completed a TCP handshake with this server in the last LP_SRV_PROVEN_NS (which a
 * spoofed source cannot: it never sees our SYN-ACK). iperf2 UDP has no handshake of its own. */
bool srv_peer_proven(const struct lp_server *s, const struct sockaddr_storage *peer);
/* Whether addr:port is one of this server's own listeners, reached over loopback or one of
 * its own addresses (local = the address a connection from that peer reached us at):
 * an iperf2 -d/-r leg there would make the server test itself. */
bool srv_own_endpoint(const struct lp_server *s, const struct sockaddr_storage *addr,
                      const struct sockaddr_storage *local);
/* One byte of iperf3's ACCESS_DENIED, best effort. */
void srv_send_refusal(int fd);
/* A UDP socket on the listener's address, connected to peer (the kernel then prefers it for
 * that peer's datagrams). Returns fd or negative errno. */
int srv_udp_flow_socket(const struct srv_listener *l, const struct sockaddr_storage *peer, socklen_t plen);

/* ---- iperf3 (i3_server.c) ---- */

/* A connection whose first 37 bytes are an iperf3 cookie. Takes the descriptor. */
void i3s_connection(struct lp_server *s, int fd, const uint8_t cookie[LP_I3_COOKIE_SIZE],
                    const struct sockaddr_storage *peer, uint64_t seq);
/* A 4-byte datagram on a listener's UDP socket: returns true if it was a stream hello. */
bool i3s_udp_hello(struct lp_server *s, const struct srv_listener *l, const struct sockaddr_storage *peer,
                   socklen_t plen);

/* ---- iperf2 (i2_server.c) ---- */

/* A TCP connection that carries an iperf2 test: hdr holds the header read so far (hlen
 * bytes; 0 for a header-less client), extra the bytes already read past it (a keyed
 * header's key, then payload). Checks the permit key (iperf2 --permit-key). Takes fd. */
void i2s_tcp(struct lp_server *s, int fd, const uint8_t *hdr, size_t hlen, size_t extra,
             const struct sockaddr_storage *peer);
/* Refuse an iperf2 TCP connection for its permit key: 2.1.8's "[drop] ... (permit key
 * fail)" record, then a reset. Takes fd. */
void i2s_drop(struct lp_server *s, int fd, const struct sockaddr_storage *peer);
/* A --bounceback connection: msg is its first len (64) bytes. */
void i2s_bounceback(struct lp_server *s, int fd, const uint8_t *msg, size_t len, const struct sockaddr_storage *peer);
/* A datagram of at least 16 bytes on a listener's UDP socket from a peer not yet served. */
void i2s_udp(struct lp_server *s, const struct srv_listener *l, const uint8_t *buf, size_t head_len, size_t len,
             const struct sockaddr_storage *peer, socklen_t plen, uint64_t arrival_ns);

#endif
