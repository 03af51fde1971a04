/* Helpers both iperf3 ends use: cookies, error texts, blocking writes during setup. */
#ifndef LP_I3_COMMON_H
#define LP_I3_COMMON_H

#include <stddef.h>

#include "wire/iperf3.h"

/* A fresh random cookie (36 base32 characters + NUL). */
void lp_i3_new_cookie(char cookie[LP_I3_COOKIE_SIZE]);
/* iperf3's text for an i_errno a server sent (or a generic one). */
const char *lp_i3_error_text(int i_errno);
/* iperf3's name of a control state byte ("PARAM_EXCHANGE"), for -d tracing. */
const char *lp_i3_state_name(int state);
/* Write all of buf to a blocking socket within timeout_ms. Returns 0 or negative errno. */
int lp_i3_write_all(int fd, const void *buf, size_t len, unsigned timeout_ms);

#endif
