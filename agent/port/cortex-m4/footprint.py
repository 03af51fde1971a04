#!/usr/bin/env python3
"""Cortex-M4 footprint of the linkperf agent: cross-compiles the agent sources for each
configuration (back end x protocols x console), measures them with arm-none-eabi-size per object
and after a --gc-sections link, compares them with lwIP 2.1.3's own lwiperf built the same way,
and writes agent/FOOTPRINT.md. It never runs anything on a board: these are sizes, not timings.

Usage: agent/port/cortex-m4/footprint.py [--lwip SRC_ROOT] [--out FILE] [--check] [--keep DIR]
  --check  exit 1 when a configuration fails to compile or the target configuration (raw
           back end, iperf2 TCP+UDP server and client with the two-way tests, no console: like
           for like with lwiperf) is larger than its goal, TARGET_RATIO x lwiperf's linked
           text, or while the goal is not met, than TARGET_CEILING (it may only shrink).
"""
import argparse
import concurrent.futures
import datetime
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT = os.path.dirname(os.path.dirname(HERE))
REPO = os.path.dirname(AGENT)
SRC = os.path.join(AGENT, "src")
WIRE = os.path.join(REPO, "src", "wire")  # the codecs the agent shares with the host

CC = "arm-none-eabi-gcc"
SIZE = "arm-none-eabi-size"
NM = "arm-none-eabi-nm"
CPU = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]
CFLAGS = CPU + ["-Os", "-ffunction-sections", "-fdata-sections", "-std=c99",
                "-Wall", "-Wextra", "-Werror"]
LWIPERF_EXPECTED_TEXT = 3342  # lwiperf.o text in the testbed README; a different value means
TARGET_RATIO = 2.0            # the build is not the one the comparison is about

# Agent sources by group, as agent/Filelists.mk (or .cmake) names them, relative to agent/; this
# list is the fallback when neither exists. A vendor build adds every file of LPA_FILES (each
# agent file compiles to nothing when its option is 0; the wire codecs always compile, and the
# link drops what the configuration does not call) and the files of one back end; so does this
# build. The conditions only decide whether a file that does not exist yet matters for a
# configuration ("missing").
GROUPS = [
    ("CORE", ["src/lpa_core.c", "src/lpa_flow.c"], lambda c: True),
    ("WIRE", ["../src/wire/iperf2.c", "../src/wire/iperf3_errors.c"], lambda c: True),
    ("IPERF2", ["src/lpa_iperf2.c", "src/lpa_iperf2_udp.c", "src/lpa_iperf2_bb.c"], lambda c: c["LPA_IPERF2"]),
    ("IPERF3", ["src/lpa_iperf3.c", "src/lpa_iperf3_client.c", "src/lpa_json.c"],
     lambda c: c["LPA_IPERF3"]),
    ("CONSOLE", ["src/lpa_cmd.c", "src/lpa_format.c"],
     lambda c: c["LPA_CONSOLE"] or c["LPA_FORMAT"]),
    ("RAW", ["src/lpa_raw.c"], None),
    ("NETCONN", ["src/lpa_netconn.c"], None),
    ("SOCKET", ["src/lpa_socket.c"], None),
]
BACKENDS = {1: "raw", 2: "netconn", 3: "socket"}
# The target row (issue 18): iperf2 TCP+UDP server and client as built by default, with the
# two-way tests (-d, -r, -R, --full-duplex), like lwIP 2.1.3's lwiperf (LWIPERF_DUAL and
# LWIPERF_TRADEOFF clients; its server answers a client's -d/-r, LWIPERF_FLAGS_ANSWER_TEST),
# which has no UDP. Issue 4's row left them out (LPA_IPERF2_BIDIR=0): not like for like.
TARGET_LABEL = "raw, iperf2 TCP+UDP server+client"
ONEWAY_LABEL = TARGET_LABEL + ", LPA_IPERF2_BIDIR=0"
# The target row with iperf 2.1's --bounceback server (LPA_IPERF2_BOUNCEBACK=1, off by default
# and so in the target row): its cost is this row's text less the target's.
BOUNCEBACK_LABEL = TARGET_LABEL + ", bounceback"
# While the goal is not met, the target row may not grow past what it measured last.
TARGET_CEILING = 6698


def configurations():
    """The rows: (label, options). Each base row comes without and with console + formatter."""
    base = [
        ("raw, iperf2 TCP server only", 1, 0, 0, 0, 1),
        (ONEWAY_LABEL, 1, 0, 1, 1, 1),
        (TARGET_LABEL, 1, 0, 1, 1, 1),
        (BOUNCEBACK_LABEL, 1, 0, 1, 1, 1),
        ("raw, iperf2+iperf3", 1, 1, 1, 1, 1),
        ("netconn, iperf2", 2, 0, 1, 1, 1),
        ("netconn, iperf2+iperf3", 2, 1, 1, 1, 1),
        ("socket, iperf2", 3, 0, 1, 1, 1),
        ("socket, iperf2+iperf3", 3, 1, 1, 1, 1),
    ]
    rows = []
    for label, backend, iperf3, udp, client, server in base:
        for console in (0, 1):
            opts = {"LPA_BACKEND": backend, "LPA_IPERF2": 1, "LPA_IPERF3": iperf3, "LPA_UDP": udp,
                    "LPA_CLIENT": client, "LPA_SERVER": server, "LPA_FORMAT": console,
                    "LPA_CONSOLE": console}
            if label == ONEWAY_LABEL:
                opts["LPA_IPERF2_BIDIR"] = 0
            if label == BOUNCEBACK_LABEL:
                opts["LPA_IPERF2_BOUNCEBACK"] = 1
            rows.append((label + (", console+format" if console else ""), opts))
    return rows




def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def filelist_groups():
    """{group: [paths relative to agent/]} from agent/Filelists.mk or .cmake, and which file was
    read."""
    mk = os.path.join(AGENT, "Filelists.mk")
    cm = os.path.join(AGENT, "Filelists.cmake")
    found = {}
    if os.path.exists(mk):
        prog = "LPA_DIR := %s\ninclude %s\n" % (AGENT, mk)
        prog += "".join("$(info %s=$(LPA_%s_FILES))\n" % (g, g) for g, _, _ in GROUPS)
        prog += "all: ;\n"
        r = run(["make", "-s", "--no-print-directory", "-f", "-"], input=prog)
        if r.returncode == 0:
            for line in r.stdout.splitlines():
                g, _, files = line.partition("=")
                found[g] = [os.path.relpath(f, AGENT) for f in files.split() if f.endswith(".c")]
            return found, "agent/Filelists.mk"
    if os.path.exists(cm):
        text = open(cm).read()
        for g, _, _ in GROUPS:
            m = re.search(r"set\(LPA_%s_SOURCES\s([^)]*)\)" % g, text)
            if m:
                found[g] = re.findall(r"\$\{LPA_DIR\}/([\w./]+\.c)", m.group(1))
        return found, "agent/Filelists.cmake"
    return {}, "the list in footprint.py"


def display_name(rel):
    """How the tables name a source: lpa_core.c for the agent's own, wire/iperf2.c for a codec."""
    path = os.path.normpath(os.path.join(AGENT, rel))
    if path.startswith(SRC + os.sep):
        return os.path.relpath(path, SRC)
    return os.path.relpath(path, os.path.join(REPO, "src"))


def source_table():
    """[(name, group, condition, present, path)] and where the lists came from."""
    found, origin = filelist_groups()
    table = []
    for g, default, cond in GROUPS:
        for rel in found.get(g, default):
            path = os.path.normpath(os.path.join(AGENT, rel))
            table.append((display_name(rel), g, cond, os.path.exists(path), path))
    return table, origin


def berkeley(path):
    """(text, data, bss) of an object or ELF file."""
    r = run([SIZE, "-B", path])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    text, data, bss = r.stdout.splitlines()[1].split()[:3]
    return int(text), int(data), int(bss)


class Build:
    def __init__(self, lwip, work):
        self.lwip = lwip
        self.work = work
        self.lwip_inc = os.path.join(lwip, "src", "include")
        # The include root for "wire/..." holds wire/ alone (LPA_WIRE_INCLUDE_DIR), as in the
        # host build: an agent file that included another layer of the host would not compile.
        self.wire_root = os.path.join(work, "wire-root")
        os.makedirs(self.wire_root, exist_ok=True)
        if not os.path.lexists(os.path.join(self.wire_root, "wire")):
            os.symlink(WIRE, os.path.join(self.wire_root, "wire"))

    def includes(self, backend_name):
        return ["-I" + HERE, "-I" + os.path.join(HERE, "opts", backend_name), "-I" + self.lwip_inc,
                "-I" + os.path.join(AGENT, "include"), "-I" + SRC, "-I" + self.wire_root]

    def compile(self, src, obj, defines, backend_name):
        cmd = [CC] + CFLAGS + ["-fstack-usage"] + ["-D%s=%d" % kv for kv in sorted(defines.items())] + \
            self.includes(backend_name) + ["-c", src, "-o", obj]
        r = run(cmd)
        return r.returncode == 0, (r.stderr.strip() or r.stdout.strip())

    def link(self, objs, elf, with_libgcc):
        """--gc-sections link from main; lwIP (and libc) symbols stay undefined."""
        cmd = [CC] + CPU + ["-nostdlib", "-nostartfiles", "-Wl,--gc-sections", "-Wl,-e,main",
                            "-Wl,--unresolved-symbols=ignore-all", "-o", elf] + objs
        if with_libgcc:
            cmd += ["-lgcc"]
        r = run(cmd)
        if r.returncode != 0:
            raise RuntimeError("link failed: " + r.stderr.strip())
        return berkeley(elf)


def undefined(objs):
    """Symbols the objects use but do not define (after merging them)."""
    defined, used = set(), set()
    for o in objs:
        for line in run([NM, o]).stdout.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                used.add(parts[1])
            elif len(parts) == 3 and parts[1] not in ("U", "u"):
                defined.add(parts[2])
    return used - defined


def archive_symbols(flag):
    path = run([CC] + CPU + [flag]).stdout.strip()
    names = set()
    for line in run([NM, "--defined-only", path]).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDRBW":
            names.add(parts[2])
    return names


def measure_config(build, label, opts, sources, index):
    backend_name = BACKENDS[opts["LPA_BACKEND"]]
    d = os.path.join(build.work, "cfg%02d" % index)
    os.makedirs(d, exist_ok=True)
    res = {"label": label, "opts": opts, "missing": [], "errors": [], "files": [], "names": {}}
    objs = []
    backend_group = BACKENDS[opts["LPA_BACKEND"]].upper()
    for name, group, cond, present, path in sources:
        if cond is None and group != backend_group:
            continue
        if not present:
            if cond is None or cond(opts):
                res["missing"].append(name)
            continue
        obj = os.path.join(d, name[:-2].replace("/", "_") + ".o")
        ok, msg = build.compile(path, obj, opts, backend_name)
        if not ok:
            res["errors"].append((name, msg))
            continue
        objs.append(obj)
        res["names"][obj] = name
        res["files"].append((name, berkeley(obj)))
    if res["errors"]:
        return res
    res["obj"] = tuple(sum(f[1][i] for f in res["files"]) for i in range(3))
    main_obj = os.path.join(d, "footprint_main.o")
    ok, msg = build.compile(os.path.join(HERE, "footprint_main.c"), main_obj, opts, backend_name)
    if not ok:
        res["errors"].append(("footprint_main.c", msg))
        return res
    m = berkeley(main_obj)
    elf = build.link([main_obj] + objs, os.path.join(d, "agent.elf"), False)
    elf_gcc = build.link([main_obj] + objs, os.path.join(d, "agent-libgcc.elf"), True)
    res["linked"] = tuple(elf[i] - m[i] for i in range(3))
    res["libgcc"] = sum(elf_gcc) - sum(elf)
    res["undefined"] = undefined(objs)
    res["objs"] = objs
    return res


def measure_lwiperf(build):
    d = os.path.join(build.work, "lwiperf")
    os.makedirs(d, exist_ok=True)
    obj = os.path.join(d, "lwiperf.o")
    ok, msg = build.compile(os.path.join(build.lwip, "src", "apps", "lwiperf", "lwiperf.c"), obj,
                            {}, "raw")
    if not ok:
        raise RuntimeError("lwiperf.c: " + msg)
    main_obj = os.path.join(d, "lwiperf_main.o")
    ok, msg = build.compile(os.path.join(HERE, "lwiperf_main.c"), main_obj, {}, "raw")
    if not ok:
        raise RuntimeError("lwiperf_main.c: " + msg)
    m = berkeley(main_obj)
    elf = build.link([main_obj, obj], os.path.join(d, "lwiperf.elf"), False)
    return {"obj": berkeley(obj), "linked": tuple(elf[i] - m[i] for i in range(3))}


SIZES_C = r"""
/* Sizes of the agent's state, read back with nm -S (a char array as big as the value). */
#include "lpa_core.h"
char lpa_sizeof_session[sizeof(struct lpa_session)];
char lpa_sizeof_flow[sizeof(struct lpa_flow)];
char lpa_sizeof_config[sizeof(struct lpa_config)];
char lpa_sizeof_report[sizeof(struct lpa_report)];
char lpa_value_max_sessions[LPA_MAX_SESSIONS];
char lpa_value_max_streams[LPA_MAX_STREAMS];
char lpa_value_max_conns[LPA_MAX_CONNS];
"""


def ram_details(build, res, tag):
    """Static RAM of one configuration by symbol, and the sizes of the core structs."""
    syms = []
    for obj in res["objs"]:
        for line in run([NM, "-S", "--size-sort", obj]).stdout.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "bBdD":
                syms.append((int(parts[1], 16), parts[3], res["names"][obj]))
    syms.sort(reverse=True)
    src = os.path.join(build.work, "sizes-%s.c" % tag)
    with open(src, "w") as f:
        f.write(SIZES_C)
    obj = os.path.join(build.work, "sizes-%s.o" % tag)
    ok, msg = build.compile(src, obj, res["opts"], BACKENDS[res["opts"]["LPA_BACKEND"]])
    values = {}
    if ok:
        for line in run([NM, "-S", obj]).stdout.splitlines():
            parts = line.split()
            if len(parts) == 4:
                values[parts[3]] = int(parts[1], 16)
    return syms, values


def stack_frames(res, count=12):
    """The largest stack frames (bytes, function, file) of one configuration's objects."""
    frames = []
    for obj in res["objs"]:
        su = obj[:-2] + ".su"
        if not os.path.exists(su):
            continue
        for line in open(su):
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                frames.append((int(parts[1]), parts[0].split(":")[-1], res["names"][obj],
                               parts[2]))
    frames.sort(reverse=True)
    return frames[:count]


def fmt_ratio(a, b):
    return "%.2f" % (a / b) if b else "-"


def render(results, ref, sources, ram, meta, problems):
    out = []
    w = out.append
    w("# Agent footprint on a Cortex-M4")
    w("")
    w("Generated by `%s` on %s; do not edit by hand." % (meta["command"], meta["date"]))
    w("")
    w("- Compiler: `%s`" % meta["compiler"])
    w("- Flags: `%s`" % " ".join(CFLAGS))
    w("- lwIP: %s (headers from `%s`), port and lwipopts.h: `agent/port/cortex-m4/`"
      % (meta["lwip_version"], "src/include"))
    w("- Sources: every file of LPA_FILES plus the back end's, as listed in %s (the agent's "
      "files of options that are off compile to nothing; the codec it shares with the host, "
      "wire/iperf2.c, always compiles, and the link drops what a configuration does not call)"
      % meta["origin"])
    w("- Agent options per row as `-D` (see `agent/include/lpa_opts.h`); everything else at its "
      "default (LPA_MAX_SESSIONS, LPA_MAX_STREAMS, LPA_MAX_CONNS, buffer sizes).")
    w("")
    w("## Method")
    w("")
    w("- **object**: `arm-none-eabi-size` summed over the agent objects of the configuration "
      "(text includes read-only data). This is how the reference figure for lwiperf.o is taken; "
      "it counts functions a firmware may never call.")
    w("- **linked**: the objects linked with a small `main` that calls `lpa_init`, "
      "`lpa_config_defaults`, `lpa_start`, `lpa_stop` (and `lpa_command` / `lpa_format_report` "
      "when the console and formatter are in), `-nostdlib -Wl,--gc-sections "
      "-Wl,--unresolved-symbols=ignore-all`, minus the main object's own size. Only code "
      "reachable from the public API is counted; lwIP, libc and libgcc stay undefined and "
      "are not counted. This is what the agent adds to a firmware.")
    w("- **libgcc**: what linking libgcc adds on top (64-bit division helpers; a firmware that "
      "already uses 64-bit division or printf has them anyway).")
    w("- **lwiperf**: lwIP 2.1.3's `src/apps/lwiperf/lwiperf.c` with the same compiler, flags "
      "and raw lwipopts.h (TCP only, iperf2 only). Its linked figure references its TCP "
      "server, client and abort calls.")
    w("- Asserts: lwIP's `LWIP_ASSERT` is on and stops in place without message strings "
      "(`arch/cc.h`), the build in which lwiperf.o is %d bytes." % LWIPERF_EXPECTED_TEXT)
    w("")
    w("## Sizes (bytes)")
    w("")
    w("lwiperf reference: object text %d, data %d, bss %d; linked text %d."
      % (ref["obj"] + (ref["linked"][0],)))
    if ref["obj"][0] != LWIPERF_EXPECTED_TEXT:
        w("")
        w("**Note: lwiperf.o text is %d here, not the %d the testbed README gives: the ratios "
          "below compare against this build's figure.**" % (ref["obj"][0], LWIPERF_EXPECTED_TEXT))
    w("")
    w("| configuration | text | data | bss | total | text / lwiperf | linked text | linked data "
      "| linked bss | linked text / lwiperf | libgcc |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        label = r["label"] + (" **(target)**" if r["label"] == TARGET_LABEL else "")
        if r["missing"]:
            label += " (missing: %s)" % ", ".join(r["missing"])
        if r["errors"]:
            w("| %s | FAILED: %s | | | | | | | | | |"
              % (label, ", ".join(n for n, _ in r["errors"])))
            continue
        t, d, b = r["obj"]
        lt, ld, lb = r["linked"]
        w("| %s | %d | %d | %d | %d | %s | %d | %d | %d | %s | %d |"
          % (label, t, d, b, t + d + b, fmt_ratio(t, ref["obj"][0]), lt, ld, lb,
             fmt_ratio(lt, ref["linked"][0]), r["libgcc"]))
    w("")
    goal = TARGET_RATIO * ref["linked"][0]
    tgt = next((r for r in results if r["label"] == TARGET_LABEL and not r["errors"]), None)
    if tgt:
        w("**Goal (issue 18): %s.** Target row linked text %d bytes, goal %d (%.0f x lwiperf's "
          "%d)%s." % ("met" if tgt["linked"][0] <= goal else "NOT MET yet",
                      tgt["linked"][0], goal, TARGET_RATIO, ref["linked"][0],
                      "" if tgt["linked"][0] <= goal else
                      ", %d bytes over" % (tgt["linked"][0] - goal)))
        w("")
    w("Target (issue 18): the raw iperf2 TCP+UDP server+client as built by default, with the "
      "two-way tests (-d, -r, -R, --full-duplex), without console, at most %.0f x lwiperf (%d "
      "bytes of linked text: what a firmware pays; lwiperf's linked and object figures are the "
      "same code). That is like for like: lwIP 2.1.3's lwiperf has the two-way tests "
      "(`LWIPERF_DUAL` and `LWIPERF_TRADEOFF` clients, and its server answers a client's -d/-r, "
      "`LWIPERF_FLAGS_ANSWER_TEST`, all in the functions the reference links); it has no UDP, no "
      "iperf3, no -R, no interval reports and 32-bit byte counts. Issue 4's row left the two-way "
      "tests out (`LPA_IPERF2_BIDIR=0`, the row above the target). `make check-footprint` fails "
      "when a configuration does not compile, or when the target row is larger than the goal; "
      "while the goal is not met, than %d bytes (`TARGET_CEILING`, what it measured last: it may "
      "only shrink)."
      % (TARGET_RATIO, TARGET_RATIO * ref["linked"][0], TARGET_CEILING))
    w("")
    if problems:
        w("**Check failed:**")
        w("")
        for p in problems:
            w("- " + p)
        w("")
    w("## Per file")
    w("")
    picks = [r for r in results if not r["errors"] and r["label"] in
             (TARGET_LABEL, "raw, iperf2+iperf3, console+format",
              "netconn, iperf2+iperf3, console+format", "socket, iperf2+iperf3, console+format")]
    names = [n for n, _, _, _, _ in sources]
    w("Object text + data / bss per source file.")
    w("")
    w("| file | " + " | ".join(r["label"] for r in picks) + " |")
    w("|---|" + "---:|" * len(picks))
    for n in names:
        cells = []
        for r in picks:
            f = dict(r["files"]).get(n)
            cells.append("%d / %d" % (f[0] + f[1], f[2]) if f else "")
        if any(cells):
            w("| %s | %s |" % (n, " | ".join(cells)))
    missing = [n for n, _, _, present, _ in sources if not present]
    if missing:
        w("")
        w("Not written yet (missing): %s." % ", ".join(missing))
    w("")
    if ram:
        w("## Static RAM (console+format, iperf2+iperf3, per back end)")
        w("")
        values = ram[0]["values"]
        if values:
            w("Struct sizes: session %d, flow %d, config %d, report %d bytes. "
              "LPA_MAX_SESSIONS %d, LPA_MAX_STREAMS %d, LPA_MAX_CONNS %d."
              % (values.get("lpa_sizeof_session", 0), values.get("lpa_sizeof_flow", 0),
                 values.get("lpa_sizeof_config", 0), values.get("lpa_sizeof_report", 0),
                 values.get("lpa_value_max_sessions", 0), values.get("lpa_value_max_streams", 0),
                 values.get("lpa_value_max_conns", 0)))
            w("")
        rows = {}
        for i, r in enumerate(ram):
            for size, name, f in r["syms"]:
                rows.setdefault((f, name), [0] * len(ram))[i] = size
        w("| file | object | " + " | ".join(r["backend"] for r in ram) + " |")
        w("|---|---|" + "---:|" * len(ram))
        for (f, name), sizes in sorted(rows.items(), key=lambda kv: -max(kv[1])):
            if max(sizes) >= 16:
                w("| %s | %s | %s |" % (f, name, " | ".join(str(x) if x else "" for x in sizes)))
        w("| **all static data + bss** | | %s |"
          % " | ".join(str(sum(x for x, _, _ in r["syms"])) for r in ram))
        w("")
    frames = meta.get("frames")
    if frames:
        w("## Largest stack frames (%s)" % frames["label"])
        w("")
        w("From `-fstack-usage`: one function's own frame, not a call chain. The agent thread "
          "(netconn, socket) and the thread that calls `lpa_command` need the deepest chain "
          "of these plus lwIP's send path down to the Ethernet driver (with "
          "LWIP_TCPIP_CORE_LOCKING the caller runs it); measure the high-water mark on the board.")
        w("")
        w("| function | file | bytes | kind |")
        w("|---|---|---:|---|")
        for size, fn, f, kind in frames["list"]:
            w("| %s | %s | %d | %s |" % (fn, f, size, kind))
        w("")
    ext = meta.get("externals")
    if ext:
        w("## What the agent needs from outside (%s)" % ext["label"])
        w("")
        w("- C library: %s" % (", ".join(sorted(ext["libc"])) or "nothing"))
        w("- libgcc: %s" % (", ".join(sorted(ext["libgcc"])) or "nothing"))
        w("- lwIP and the port: %s" % ", ".join(sorted(ext["other"])))
        w("")
    return "\n".join(out)


# What the report says it was generated by: a path inside the repository relative to it, any
# other path (the lwIP cache, a --keep dir, an --out outside the tree) as the option's
# placeholder, so the committed file names no directory of the machine it was made on.
PATH_OPTS = {"--lwip": "SRC_ROOT", "--out": "FILE", "--keep": "DIR"}


def recorded_command(argv):
    def shown(path, placeholder):
        full = os.path.abspath(path)
        if os.path.commonpath([full, REPO]) == REPO:
            return os.path.relpath(full, REPO)
        return placeholder
    words = [shown(argv[0], "footprint.py")]
    rest = iter(argv[1:])
    for a in rest:
        name, eq, value = a.partition("=")
        if name in PATH_OPTS and eq:
            words.append(name + "=" + shown(value, PATH_OPTS[name]))
        elif a in PATH_OPTS:
            words.append(a)
            value = next(rest, None)
            if value is not None:
                words.append(shown(value, PATH_OPTS[a]))
        else:
            words.append(a)
    return " ".join(shlex.quote(w) for w in words)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lwip", help="lwIP source root (default: agent/port/fetch-lwip.sh)")
    ap.add_argument("--out", default=os.path.join(AGENT, "FOOTPRINT.md"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--keep", help="build here and keep the objects (default: a temporary dir)")
    args = ap.parse_args()

    for tool in (CC, SIZE, NM):
        if run(["sh", "-c", "command -v " + tool]).returncode != 0:
            sys.exit("footprint: %s not found (apt-get install gcc-arm-none-eabi "
                     "libnewlib-arm-none-eabi)" % tool)
    lwip = args.lwip
    if not lwip:
        r = run([os.path.join(AGENT, "port", "fetch-lwip.sh")])
        if r.returncode != 0:
            sys.exit("footprint: fetch-lwip.sh failed:\n" + r.stderr)
        lwip = r.stdout.strip().splitlines()[-1]

    tmp = None
    if args.keep:
        work = os.path.abspath(args.keep)
        os.makedirs(work, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="lpa-footprint-")
        work = tmp.name
    build = Build(lwip, work)
    sources, origin = source_table()
    ref = measure_lwiperf(build)
    configs = configurations()
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda a: measure_config(build, a[1][0], a[1][1], sources, a[0]),
                                enumerate(configs)))

    problems = []
    for r in results:
        for name, msg in r["errors"]:
            problems.append("%s: %s does not compile" % (r["label"], name))
    target = next(r for r in results if r["label"] == TARGET_LABEL)
    # The goal (2 x lwiperf), or while it is not met the ceiling: the row may only shrink.
    limit = max(TARGET_RATIO * ref["linked"][0], TARGET_CEILING)
    if not target["errors"] and target["linked"][0] > limit:
        problems.append("%s: linked text %d > %d bytes (the goal, %.0f x lwiperf, is %d)" % (
            TARGET_LABEL, target["linked"][0], limit, TARGET_RATIO,
            TARGET_RATIO * ref["linked"][0]))

    ram = []
    meta_ext = None
    for backend in ("raw", "netconn", "socket"):
        full = next((r for r in results if r["label"] == backend + ", iperf2+iperf3, console+format"
                     and not r["errors"]), None)
        if not full:
            continue
        syms, values = ram_details(build, full, backend)
        ram.append({"backend": backend, "syms": syms, "values": values})
        if backend == "raw":
            libc, libgcc = archive_symbols("-print-file-name=libc.a"), \
                archive_symbols("-print-libgcc-file-name")
            und = full["undefined"]
            meta_ext = {"label": full["label"], "libc": und & libc - libgcc,
                        "libgcc": und & libgcc, "other": und - libc - libgcc}
    frames = None
    sock = next((r for r in results if r["label"] == "socket, iperf2+iperf3, console+format"
                 and not r["errors"]), None)
    if sock:
        frames = {"label": sock["label"], "list": stack_frames(sock)}
    version = "lwIP"
    init_h = os.path.join(lwip, "src", "include", "lwip", "init.h")
    m = re.findall(r"#define LWIP_VERSION_(MAJOR|MINOR|REVISION)\s+(\d+)", open(init_h).read())
    if m:
        version = "lwIP " + ".".join(v for _, v in m[:3])
    meta = {
        "command": recorded_command(sys.argv),
        "date": datetime.date.today().isoformat(),
        "compiler": run([CC, "--version"]).stdout.splitlines()[0],
        "lwip_version": version,
        "externals": meta_ext,
        "origin": origin,
        "frames": frames,
    }
    text = render(results, ref, sources, ram, meta, problems)
    with open(args.out, "w") as f:
        f.write(text + "\n")
    print(text)
    for r in results:
        for name, msg in r["errors"]:
            print("\n--- %s: %s ---\n%s" % (r["label"], name, msg), file=sys.stderr)
    if tmp:
        tmp.cleanup()
    if args.check and problems:
        print("\nfootprint: FAILED\n" + "\n".join("  " + p for p in problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
