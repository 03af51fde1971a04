/* The address an HTTP endpoint of the binary listens on (the page, --metrics). */
#ifndef LP_WEB_LISTEN_H
#define LP_WEB_LISTEN_H

#include <stddef.h>
#include <sys/socket.h>

/* "HOST:PORT", "[V6]:PORT", "PORT" -> address (port 0: a free one); host is the numeric
 * address ("localhost" taken as 127.0.0.1). 0, or -1 with a message naming --listen in err. */
int lp_web_parse_listen(const char *s, struct sockaddr_storage *ss, char *host, size_t hostlen, int *port,
                        char *err, size_t errlen);

#endif
