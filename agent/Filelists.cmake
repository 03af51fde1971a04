# Source lists of the linkperf agent for CMake builds (a vendor SDK's or ours). Set LPA_DIR to
# this directory first, then include() this file; agent/Filelists.mk holds the same lists for
# make, and agent/CMakeLists.txt checks at configure time that the two agree.
#
#   LPA_CORE_SOURCES     sessions, flows, reports (always)
#   LPA_WIRE_SOURCES     the iperf2 and iperf3 byte formats (always): the codecs the linkperf
#                        host program uses too, in its src/wire/, one level above this directory.
#                        Most iperf3 ones the agent calls are inline (wire/iperf3.h), its error
#                        numbers by client version in wire/iperf3_errors.c; wire/iperf3.c and
#                        wire/iperf2_extras.c hold what only the host uses
#   LPA_IPERF2_SOURCES   the iperf2 protocol (LPA_IPERF2)
#   LPA_IPERF3_SOURCES   the iperf3 protocol and its JSON reader/writer (LPA_IPERF3)
#   LPA_CONSOLE_SOURCES  lpa_command() and the text formatter (LPA_CONSOLE, LPA_FORMAT)
#   LPA_SOURCES          all of the above (each file compiles to nothing when its option is 0)
#   LPA_RAW_SOURCES / LPA_NETCONN_SOURCES / LPA_SOCKET_SOURCES   one back end: add exactly one,
#                        with -DLPA_BACKEND=LPA_BACKEND_RAW|NETCONN|SOCKET to match
#   LPA_LWIP_HOOK_SOURCES  lwIP hooks a server wants (lpa_lwip_hooks.h: a client reusing a
#                        port held in TIME_WAIT connects); compile them with lwIP and set the
#                        hook macros in lwipopts.h as that header shows
#   LPA_INCLUDE_DIRS     public headers (include/), the internal ones (src/) and the directory
#                        that holds wire/ (LPA_WIRE_INCLUDE_DIR if set before, else ../src)

if(NOT DEFINED LPA_DIR)
  message(FATAL_ERROR "set LPA_DIR to the agent directory before including Filelists.cmake")
endif()

set(LPA_CORE_SOURCES
  ${LPA_DIR}/src/lpa_core.c
  ${LPA_DIR}/src/lpa_flow.c
)
set(LPA_WIRE_SOURCES
  ${LPA_DIR}/../src/wire/iperf2.c
  ${LPA_DIR}/../src/wire/iperf3_errors.c
)
set(LPA_IPERF2_SOURCES
  ${LPA_DIR}/src/lpa_iperf2.c
  ${LPA_DIR}/src/lpa_iperf2_udp.c
  ${LPA_DIR}/src/lpa_iperf2_bb.c
)
set(LPA_IPERF3_SOURCES
  ${LPA_DIR}/src/lpa_iperf3.c
  ${LPA_DIR}/src/lpa_iperf3_client.c
  ${LPA_DIR}/src/lpa_json.c
)
set(LPA_CONSOLE_SOURCES
  ${LPA_DIR}/src/lpa_cmd.c
  ${LPA_DIR}/src/lpa_format.c
)
set(LPA_SOURCES ${LPA_CORE_SOURCES} ${LPA_WIRE_SOURCES} ${LPA_IPERF2_SOURCES} ${LPA_IPERF3_SOURCES}
  ${LPA_CONSOLE_SOURCES})

set(LPA_RAW_SOURCES ${LPA_DIR}/src/lpa_raw.c)
set(LPA_NETCONN_SOURCES ${LPA_DIR}/src/lpa_netconn.c)
set(LPA_SOCKET_SOURCES ${LPA_DIR}/src/lpa_socket.c)
set(LPA_LWIP_HOOK_SOURCES ${LPA_DIR}/src/lpa_lwip_hooks.c)

# The agent includes wire/ headers as "wire/iperf2.h"; of the host's src/ it needs nothing else
# (agent/CMakeLists.txt points LPA_WIRE_INCLUDE_DIR at a directory that holds wire/ alone).
if(NOT DEFINED LPA_WIRE_INCLUDE_DIR)
  set(LPA_WIRE_INCLUDE_DIR ${LPA_DIR}/../src)
endif()
set(LPA_INCLUDE_DIRS ${LPA_DIR}/include ${LPA_DIR}/src ${LPA_WIRE_INCLUDE_DIR})
