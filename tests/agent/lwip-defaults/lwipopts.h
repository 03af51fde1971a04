/* lwIP's defaults, as a board's first lwipopts.h might be: only what NO_SYS=1 requires.
 * tests/CMakeLists.txt compiles the raw back end against it and expects its #error. */
#ifndef LPA_TEST_DEFAULTS_LWIPOPTS_H
#define LPA_TEST_DEFAULTS_LWIPOPTS_H

#define NO_SYS 1
#define LWIP_NETCONN 0
#define LWIP_SOCKET 0
#define SYS_LIGHTWEIGHT_PROT 0 /* no sys_arch protection on a bare-metal superloop */

#endif
