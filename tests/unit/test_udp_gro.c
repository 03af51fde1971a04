/* A UDP receiver with GRO on (core/stream.c): one message from the kernel holds many
 * datagrams, and each is accounted as if it had come alone — its own sequence number (a gap
 * inside a message is a loss), its own length (the last may be shorter), and a piece too
 * short for a header is not counted. A GSO sender on loopback delivers its whole write as one
 * message to a GRO socket, so these are exactly the messages a linkperf client produces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/stream.h"
#include "core/worker.h"
#include "wire/iperf3.h"

struct ctrl {
    struct lp_loop loop;
    struct lp_workers workers;
    enum lp_stream_event last;
};

static void on_event(struct lp_stream *s, enum lp_stream_event ev)
{
    struct ctrl *c = s->cfg.owner;
    c->last = ev;
    lp_stream_settle(s, ev);
    lp_loop_stop(&c->loop);
}

/* A connected pair of loopback UDP sockets: *rx bound, *tx connected to it and back. */
static void udp_pair(int *rx, int *tx)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    *rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    *tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(*rx >= 0 && *tx >= 0);
    assert_int_equal(bind(*rx, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(*rx, (struct sockaddr *)&a, &len), 0);
    assert_int_equal(connect(*tx, (struct sockaddr *)&a, sizeof(a)), 0);
    struct sockaddr_in b;
    len = sizeof(b);
    assert_int_equal(getsockname(*tx, (struct sockaddr *)&b, &len), 0);
    assert_int_equal(connect(*rx, (struct sockaddr *)&b, sizeof(b)), 0);
}

/* One GSO write of datagrams of seg bytes (the last one last_len bytes), numbered seqs[i]. */
static void send_gso(int tx, size_t seg, const uint64_t *seqs, size_t n, size_t last_len)
{
    static uint8_t buf[65536];
    size_t len = (n - 1) * seg + last_len;
    memset(buf, 'x', len);
    for (size_t i = 0; i < n; i++) {
        struct lp_i3_udp_hdr h = {.sec = 1, .usec = 2, .seq = seqs[i]};
        size_t room = i + 1 < n ? seg : last_len;
        if (room >= LP_I3_UDP_HDR32)
            lp_i3_udp_hdr_put(buf + i * seg, room, &h, false);
    }
    int gso = (int)seg;
    assert_int_equal(setsockopt(tx, IPPROTO_UDP, UDP_SEGMENT, &gso, sizeof(gso)), 0);
    assert_int_equal(send(tx, buf, len, 0), (ssize_t)len);
}

static void run_until(struct ctrl *c, enum lp_stream_event ev)
{
    c->last = LP_SEV_ERROR;
    atomic_store(&c->loop.stop_requested, false); /* lp_loop_stop is for good */
    lp_loop_run(&c->loop);
    assert_int_equal(c->last, ev);
}

static void gro_message_counts_each_datagram(void **state)
{
    (void)state;
    static struct ctrl c;
    int rx, tx;
    memset(&c, 0, sizeof(c));
    assert_int_equal(lp_loop_init(&c.loop), 0);
    assert_int_equal(lp_workers_start(&c.workers, 1), 0);
    udp_pair(&rx, &tx);
    struct lp_stream_config cfg = {
        .kind = LP_STREAM_UDP_RECV, .fd = rx, .blksize = 100, .ctrl_loop = &c.loop,
        .notify = on_event, .owner = &c,
    };
    struct lp_stream *s = lp_stream_new(&cfg);
    assert_non_null(s);
    assert_true(s->gro); /* else this test would pass on the kernel's own segmentation */

    /* 10 datagrams, number 4 missing, the last 60 bytes. */
    const uint64_t a[] = {1, 2, 3, 5, 6, 7, 8, 9, 10, 11};
    send_gso(tx, 100, a, 10, 60);
    /* 3 more; the last only 8 bytes: too short for a header, not ours. */
    const uint64_t b[] = {12, 13, 0};
    send_gso(tx, 100, b, 3, 8);
    /* 128 of 64 bytes in one write (Linux 6.9+ takes 128 a write), number 100 late: sent
     * after 101..141, so it arrives out of order and cancels its counted loss. */
    uint64_t big[128];
    for (size_t i = 0; i < 128; i++)
        big[i] = i < 86 ? 14 + i : 14 + i + 1; /* 14..99, 101..142 */
    send_gso(tx, 64, big, 128, 64);
    const uint64_t late[] = {100};
    send_gso(tx, 64, late, 1, 64);

    lp_stream_attach(s, lp_workers_pick(&c.workers));
    lp_stream_freeze(s);
    run_until(&c, LP_SEV_FROZEN);
    struct lp_stream_counters k;
    lp_stream_read(s, &k);
    assert_int_equal(k.packets, 10 + 2 + 128 + 1);
    assert_int_equal(k.bytes, 9 * 100 + 60 + 2 * 100 + 129 * 64);
    assert_int_equal(k.max_seq, 142);
    assert_int_equal(k.lost, 1);          /* number 4 */
    assert_int_equal(k.out_of_order, 1);  /* number 100 */

    lp_stream_detach(s);
    run_until(&c, LP_SEV_DETACHED);
    lp_workers_stop(&c.workers);
    lp_stream_free(s);
    lp_loop_destroy(&c.loop);
    close(tx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gro_message_counts_each_datagram),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
