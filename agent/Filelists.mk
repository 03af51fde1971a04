# Source lists of the linkperf agent for make-based builds (vendor SDKs, the Cortex-M footprint
# build). Set LPA_DIR to this directory (or keep the default, this file's own directory) and
# include this file. The same lists for CMake are in Filelists.cmake; agent/CMakeLists.txt
# checks that both name the same files.
#
#   LPA_CORE_FILES     sessions, flows, reports (always)
#   LPA_WIRE_FILES     the iperf2 and iperf3 byte formats (always): the codecs the linkperf host
#                      program uses too, in its src/wire/, one level above this directory. Most
#                      iperf3 ones the agent calls are inline (wire/iperf3.h), its error numbers
#                      by client version in wire/iperf3_errors.c; wire/iperf3.c and
#                      wire/iperf2_extras.c hold what only the host uses
#   LPA_IPERF2_FILES   the iperf2 protocol (LPA_IPERF2)
#   LPA_IPERF3_FILES   the iperf3 protocol and its JSON reader/writer (LPA_IPERF3)
#   LPA_CONSOLE_FILES  lpa_command() and the text formatter (LPA_CONSOLE, LPA_FORMAT)
#   LPA_FILES          all of the above (each file compiles to nothing when its option is 0)
#   LPA_RAW_FILES / LPA_NETCONN_FILES / LPA_SOCKET_FILES   one back end: add exactly one, with
#                      -DLPA_BACKEND=LPA_BACKEND_RAW|NETCONN|SOCKET to match
#   LPA_LWIP_HOOK_FILES  lwIP hooks a server wants (lpa_lwip_hooks.h: a client reusing a port
#                      held in TIME_WAIT connects); compile them with lwIP and set the hook
#                      macros in lwipopts.h as that header shows
#   LPA_INCLUDE_DIRS   public headers (include/), the internal ones (src/) and the directory
#                      that holds wire/ (LPA_WIRE_INCLUDE_DIR, default ../src); LPA_CFLAGS has
#                      them as -I flags

LPA_DIR ?= $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

LPA_CORE_FILES = \
	$(LPA_DIR)/src/lpa_core.c \
	$(LPA_DIR)/src/lpa_flow.c
LPA_WIRE_FILES = \
	$(LPA_DIR)/../src/wire/iperf2.c \
	$(LPA_DIR)/../src/wire/iperf3_errors.c
LPA_IPERF2_FILES = \
	$(LPA_DIR)/src/lpa_iperf2.c \
	$(LPA_DIR)/src/lpa_iperf2_udp.c \
	$(LPA_DIR)/src/lpa_iperf2_bb.c
LPA_IPERF3_FILES = \
	$(LPA_DIR)/src/lpa_iperf3.c \
	$(LPA_DIR)/src/lpa_iperf3_client.c \
	$(LPA_DIR)/src/lpa_json.c
LPA_CONSOLE_FILES = \
	$(LPA_DIR)/src/lpa_cmd.c \
	$(LPA_DIR)/src/lpa_format.c
LPA_FILES = $(LPA_CORE_FILES) $(LPA_WIRE_FILES) $(LPA_IPERF2_FILES) $(LPA_IPERF3_FILES) \
	$(LPA_CONSOLE_FILES)

LPA_RAW_FILES = $(LPA_DIR)/src/lpa_raw.c
LPA_NETCONN_FILES = $(LPA_DIR)/src/lpa_netconn.c
LPA_SOCKET_FILES = $(LPA_DIR)/src/lpa_socket.c
LPA_LWIP_HOOK_FILES = $(LPA_DIR)/src/lpa_lwip_hooks.c

# The agent includes wire/ headers as "wire/iperf2.h"; of the host's src/ it needs nothing else.
LPA_WIRE_INCLUDE_DIR ?= $(LPA_DIR)/../src
LPA_INCLUDE_DIRS = $(LPA_DIR)/include $(LPA_DIR)/src $(LPA_WIRE_INCLUDE_DIR)
LPA_CFLAGS = $(addprefix -I,$(LPA_INCLUDE_DIRS))
