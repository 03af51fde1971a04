/* Opens a TAP device: /dev/net/tun, TUNSETIFF with IFF_TAP | IFF_NO_PI, then IFF_UP so a
 * device created with `ip tuntap add` needs no further set-up. It does not bridge, address
 * or delete the device: the test topology owns it. */
#include "lpa_tapdev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int set_up(const char *name, char *err, size_t errlen)
{
  struct ifreq ifr;
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int rc = -1;
  if (s < 0) {
    snprintf(err, errlen, "socket: %s", strerror(errno));
    return -1;
  }
  memset(&ifr, 0, sizeof ifr);
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
  if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
    snprintf(err, errlen, "SIOCGIFFLAGS %s: %s", name, strerror(errno));
  } else if (!(ifr.ifr_flags & IFF_UP)) {
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
      snprintf(err, errlen, "SIOCSIFFLAGS %s up: %s", name, strerror(errno));
    else
      rc = 0;
  } else {
    rc = 0;
  }
  close(s);
  return rc;
}

int lpa_tapdev_open(const char *name, char *err, size_t errlen)
{
  struct ifreq ifr;
  int fd;
  if (strlen(name) >= IFNAMSIZ) {
    snprintf(err, errlen, "TAP name '%s' is longer than %d characters", name, IFNAMSIZ - 1);
    return -1;
  }
  fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "open /dev/net/tun: %s%s", strerror(errno),
             errno == EACCES || errno == EPERM ? " (needs root or CAP_NET_ADMIN)" : "");
    return -1;
  }
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    snprintf(err, errlen, "TUNSETIFF %s: %s", name, strerror(errno));
    close(fd);
    return -1;
  }
  if (set_up(name, err, errlen) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}
