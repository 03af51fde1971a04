/* The Linux side of the TAP netif: open /dev/net/tun as an Ethernet (TAP) device without
 * packet-info headers. Kept apart from lpa_tapif.c so no Linux socket header meets an lwIP
 * header in one file. */
#ifndef LPA_TAPDEV_H
#define LPA_TAPDEV_H

#include <stddef.h>

/* Attaches to (or creates) TAP device `name` and sets it administratively up; returns
 * the fd, or -1 with a message in err. */
int lpa_tapdev_open(const char *name, char *err, size_t errlen);

#endif
