/* The server's first-bytes classifier: a new TCP connection is an iperf3 control or data
 * connection (a 37-byte cookie), an iperf2 test (a header of the length its first word gives,
 * or payload from the first byte: a header-less client), or refused.
 *
 * First the pure classifier (src/proto/detect.c, lp_detect_tcp) on every prefix of the input,
 * with and without the peer having closed: its promises hold (MORE asks for more than it was
 * given and at most LP_DETECT_MAX; a verdict rests on bytes it was given; a verdict reached
 * without EOF does not change when more bytes follow, since the server reads no further), and
 * a reader that reads only what .want says reaches the same verdict.
 *
 * Then the reading around it (src/proto/server.c): its functions are static, so this file
 * includes server.c itself, makes the connection pending with its pending_new() as
 * on_accept() does, and drives its real on_pending_io() as the loop would, on one end
 * of a socketpair whose other end sends the input in two segments (the first byte alone, so
 * the "fewer than 4 bytes" path runs too) and then closes. The dialects' entry points are
 * renamed to the stubs below: they do what the dialects first do with what they are handed
 * (read the cookie, decode the iperf2 header or bounceback message) and close the socket. An AF_UNIX pair: nothing
 * leaves the process. */
#define i3s_connection fuzz_i3s_connection
#define i2s_tcp fuzz_i2s_tcp
#define i2s_bounceback fuzz_i2s_bounceback
#include "proto/server.c"
#undef i3s_connection
#undef i2s_tcp
#undef i2s_bounceback

#include <stdlib.h>

#include "fuzz.h"
#include "proto/detect.h"
#include "wire/iperf2_bb.h"

#define FEED_MAX 1024u /* the classifier reads at most LP_I2_KEYED_HDR_MAX of it */

void fuzz_i3s_connection(struct lp_server *s, int fd, const uint8_t cookie[LP_I3_COOKIE_SIZE],
                         const struct sockaddr_storage *peer, uint64_t seq)
{
    uint8_t copy[LP_I3_COOKIE_SIZE];
    (void)s;
    (void)peer;
    (void)seq;
    memcpy(copy, cookie, sizeof(copy));
    (void)lp_i3_cookie_valid(copy);
    close(fd);
}

void fuzz_i2s_bounceback(struct lp_server *s, int fd, const uint8_t *msg, size_t len,
                         const struct sockaddr_storage *peer)
{
    /* len bytes copied out of the classifier's buffer, as fuzz_i2s_tcp does. */
    uint8_t copy[LP_DETECT_MAX];
    struct lp_i2_bb b;
    (void)s;
    (void)peer;
    if (len > sizeof(copy))
        abort();
    memcpy(copy, msg, len);
    if (!lp_i2_bb_decode(copy, len, &b))
        abort(); /* the classifier said bounceback: its 64 bytes must decode */
    close(fd);
}

void fuzz_i2s_tcp(struct lp_server *s, int fd, const uint8_t *hdr, size_t hlen, size_t extra,
                  const struct sockaddr_storage *peer)
{
    /* hlen + extra bytes copied out of the classifier's buffer: a length that overstates
     * what it holds is a read past that buffer (a sanitizer error), not a silent garbage
     * header. A keyed header's key is in extra: checked as i2s_tcp() checks it. */
    uint8_t *copy = malloc(hlen + extra ? hlen + extra : 1);
    struct lp_i2_header h;
    (void)s;
    (void)peer;
    if (copy && hlen) {
        memcpy(copy, hdr, hlen + extra);
        lp_i2_header_decode(copy, hlen, &h);
        lp_i2_header_start_time(copy, hlen, false, &h.start_sec, &h.start_usec);
        (void)lp_i2_ack_wanted(h.flags);
        if (lp_i2_key_len(copy, hlen) > 0)
            (void)lp_i2_key_matches(copy, hlen + extra, hlen, (const uint8_t *)"secretkey", 9);
    }
    free(copy);
    close(fd);
}

/* Readable events until the classifier decided or read all there is (bounded). */
static void pump(struct pending *p, unsigned times)
{
    for (unsigned i = 0; i < times && !p->dead; i++)
        on_pending_io(&p->h, EPOLLIN);
}

static bool same(const struct lp_detect *a, const struct lp_detect *b)
{
    return a->verdict == b->verdict && a->used == b->used && a->hdr_len == b->hdr_len && a->want == b->want;
}

/* lp_detect_tcp's promises on data[0..n) (see the top of the file); abort() is the finding. */
static void check_pure(const uint8_t *data, size_t n)
{
    struct lp_detect d, e, first = {.verdict = LP_DETECT_MORE};
    bool decided = false;

    for (size_t len = 0; len <= n; len++) {
        for (int eof = 0; eof <= 1; eof++) {
            lp_detect_tcp(data, len, eof, &d);
            if (d.verdict == LP_DETECT_MORE && (eof || d.want <= len || d.want > LP_DETECT_MAX))
                abort();
            if ((d.verdict == LP_DETECT_EMPTY) != (eof && len == 0))
                abort();
            if (d.verdict != LP_DETECT_MORE && (d.used > len || d.hdr_len > LP_I2_TCP_HDR_MAX))
                abort();
            if (d.verdict == LP_DETECT_IPERF3 && d.used != LP_I3_COOKIE_SIZE)
                abort();
            if ((d.verdict == LP_DETECT_I2_PLAIN || d.verdict == LP_DETECT_I2_KEYED ||
                 d.verdict == LP_DETECT_I2_NONE) && d.hdr_len > d.used)
                abort();
            if (d.verdict == LP_DETECT_SHORT && d.hdr_len <= d.used)
                abort();
        }
        lp_detect_tcp(data, len, false, &d);
        if (decided && !same(&d, &first))
            abort();
        if (!decided && d.verdict != LP_DETECT_MORE) {
            decided = true;
            first = d;
        }
    }
    /* A reader that asks for .want at a time ends where the prefixes said it would. */
    size_t got = 0;
    for (;;) {
        lp_detect_tcp(data, got, got == n, &e);
        if (e.verdict != LP_DETECT_MORE)
            break;
        got = e.want < n ? e.want : n;
    }
    if (decided && !same(&e, &first))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_pure(data, size < FEED_MAX ? size : FEED_MAX);

    struct lp_server *s = calloc(1, sizeof(*s));
    int sv[2];
    if (!s)
        return 0;
    if (lp_loop_init(&s->eng.loop) < 0) {
        free(s);
        return 0;
    }
    s->eng.debug = 1; /* its debug lines are formatted too (no sink: they go nowhere) */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
        struct pending *p = pending_new(s, sv[0]);
        size_t n = size < FEED_MAX ? size : FEED_MAX, first = n ? 1 : 0;
        bool sent = write(sv[1], data, first) == (ssize_t)first;
        if (p)
            pump(p, 2); /* the first byte, then "nothing more yet" */
        sent = sent && write(sv[1], data + first, n - first) == (ssize_t)(n - first);
        close(sv[1]);
        if (p) {
            pump(p, sent ? 2 * LP_I2_TCP_HDR_MAX : 0);
            if (!p->dead)
                pending_drop(p, true);
        } else {
            close(sv[0]);
        }
    }
    lp_loop_destroy(&s->eng.loop); /* runs the deferred frees */
    free(s);
    return 0;
}
