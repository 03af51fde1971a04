/* iperf3 control framing on a real socket pair: a frame is used only when complete, a zero
 * or over-limit length is refused before anything is allocated, back-to-back frames and
 * state bytes are split correctly, and output goes out as length + body. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/loop.h"
#include "proto/ctrl.h"

struct fixture {
    struct lp_loop loop;
    struct lp_ctrl ctrl;
    int peer;
    size_t want;      /* stop the loop once this many bytes are buffered (or EOF) */
};

static void on_input(struct lp_ctrl *c)
{
    struct fixture *fx = c->owner;
    if (c->in_len >= fx->want || c->eof || c->err)
        lp_loop_stop(&fx->loop);
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(lp_loop_init(&fx->loop), 0);
    assert_int_equal(lp_ctrl_open(&fx->ctrl, &fx->loop, sv[0], on_input, fx), 0);
    fx->peer = sv[1];
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    lp_ctrl_close(&fx->ctrl);
    close(fx->peer);
    lp_loop_destroy(&fx->loop);
    free(fx);
    return 0;
}

/* Send bytes from the peer and run the loop until `want` bytes are buffered. */
static void feed(struct fixture *fx, const void *buf, size_t len, size_t want)
{
    if (len)
        assert_int_equal(write(fx->peer, buf, len), (ssize_t)len);
    fx->want = want;
    atomic_store(&fx->loop.stop_requested, false);
    lp_loop_run(&fx->loop);
}

static void frame_used_only_when_complete(void **state)
{
    struct fixture *fx = *state;
    const char *body;
    size_t len;
    assert_int_equal(lp_ctrl_frame(&fx->ctrl, 100, &body, &len), 0);
    feed(fx, "\x00\x00\x00\x07{\"a\":", 9, 9);
    assert_int_equal(lp_ctrl_frame(&fx->ctrl, 100, &body, &len), 0); /* 5 of 7 bytes */
    feed(fx, "1}", 2, 11);
    assert_int_equal(lp_ctrl_frame(&fx->ctrl, 100, &body, &len), 1);
    assert_int_equal(len, 7);
    assert_memory_equal(body, "{\"a\":1}", 7);
    lp_ctrl_consume_frame(&fx->ctrl, len);
    assert_int_equal(fx->ctrl.in_len, 0);
}

static void bad_lengths_refused(void **state)
{
    struct fixture *fx = *state;
    const char *body;
    size_t len;
    feed(fx, "\x00\x00\x00\x00", 4, 4);
    assert_int_equal(lp_ctrl_frame(&fx->ctrl, 100, &body, &len), -EMSGSIZE);
    lp_ctrl_consume(&fx->ctrl, 4);
    /* 0xFFFFFFFF: the length iperf3 3.12 turned into a zero-size buffer (CVE-2023-38403). */
    feed(fx, "\xff\xff\xff\xff", 4, 4);
    assert_int_equal(lp_ctrl_frame(&fx->ctrl, 8192, &body, &len), -EMSGSIZE);
    lp_ctrl_consume(&fx->ctrl, 4);
    feed(fx, "\x00\x00\x20\x01", 4, 4); /* 8193 > the 8 KiB parameter limit */
    assert_int_equal(lp_ctrl_frame(&fx->ctrl, 8192, &body, &len), -EMSGSIZE);
}

static void buffering_stops_at_the_frame(void **state)
{
    struct fixture *fx = *state;
    const char *body;
    size_t len;
    /* A 3-byte frame followed by a flood: we never buffer more than the frame announced
     * (plus whatever arrived in the same read, bounded by in_max). */
    char big[6000];
    memcpy(big, "\x00\x00\x00\x03" "abc", 7);
    memset(big + 7, 'x', sizeof(big) - 7);
    assert_int_equal(lp_ctrl_frame(&fx->ctrl, 10, &body, &len), 0); /* in_max = 14 */
    feed(fx, big, sizeof(big), 7);
    assert_true(fx->ctrl.in_len <= 14);
    assert_int_equal(lp_ctrl_frame(&fx->ctrl, 10, &body, &len), 1);
    assert_memory_equal(body, "abc", 3);
}

static void frames_and_state_bytes_split(void **state)
{
    struct fixture *fx = *state;
    const char *body;
    size_t len;
    fx->ctrl.in_max = 64;
    feed(fx, "\x0d\x00\x00\x00\x02{}\x0e", 8, 8);
    const uint8_t *p = lp_ctrl_peek(&fx->ctrl, 1);
    assert_non_null(p);
    assert_int_equal(p[0], 13);
    lp_ctrl_consume(&fx->ctrl, 1);
    assert_int_equal(lp_ctrl_frame(&fx->ctrl, 64, &body, &len), 1);
    assert_memory_equal(body, "{}", 2);
    lp_ctrl_consume_frame(&fx->ctrl, len);
    p = lp_ctrl_peek(&fx->ctrl, 1);
    assert_non_null(p);
    assert_int_equal(p[0], 14);
    assert_null(lp_ctrl_peek(&fx->ctrl, 2));
}

static void send_json_is_length_plus_body(void **state)
{
    struct fixture *fx = *state;
    assert_int_equal(lp_ctrl_send_state(&fx->ctrl, 9), 0);
    assert_int_equal(lp_ctrl_send_json(&fx->ctrl, "{\"tcp\":true}"), 0);
    assert_true(lp_ctrl_flushed(&fx->ctrl));
    char got[32];
    assert_int_equal(read(fx->peer, got, sizeof(got)), 1 + 4 + 12);
    assert_memory_equal(got, "\x09\x00\x00\x00\x0c{\"tcp\":true}", 17);
}

static void eof_is_reported(void **state)
{
    struct fixture *fx = *state;
    shutdown(fx->peer, SHUT_WR);
    feed(fx, NULL, 0, 1);
    assert_true(fx->ctrl.eof);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(frame_used_only_when_complete, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_lengths_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(buffering_stops_at_the_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(frames_and_state_bytes_split, setup, teardown),
        cmocka_unit_test_setup_teardown(send_json_is_length_plus_body, setup, teardown),
        cmocka_unit_test_setup_teardown(eof_is_reported, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
