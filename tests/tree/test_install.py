#!/usr/bin/env python3
"""make install, make uninstall and make deb put exactly the files they promise.

Into a temporary DESTDIR with PREFIX=/usr, from the build dir of $LINKPERF (make install's
recipe itself, with its `build` prerequisite taken as done: `make -o build`):

- the installed set is exactly bin/linkperf, the linkperf2 link, the man page and its
  linkperf2 link, bash completion for both names, zsh completion and the systemd unit;
  iperf and iperf3 links only with ALIASES=1, and the completion takes them only then;
- the installed linkperf runs (-v), and as linkperf2 prints iperf 2.1.8's version line;
- the man page renders without a groff warning;
- bash completion offers exactly the options each spelling's --help lists (the table's
  supported rows, read another way than the completion generator reads them), the
  subcommands, and the named values the options document gives -f and --dialect; zsh's
  offers the same options (when zsh is installed: make check's packages have it, a
  check-fast machine need not);
- the unit has the sandbox directives, passes systemd-analyze verify and its offline
  security exposure stays under 2.0 (when systemd-analyze is there);
- make uninstall leaves nothing, not even an empty directory;
- make deb's package (packaging/make-deb.sh) lists the same files in Debian's places, with
  the CMake version, this machine's architecture and the libraries it links in Depends;
  lintian, when installed, reports nothing. The package is never installed here: make
  check-fresh installs and purges it in a fresh Debian 12 root.

Exits 77 with "SKIP: reason" when $LINKPERF is not set (fails instead under CI=true).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get("LP_SOURCE_DIR") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
CI = os.environ.get("CI", "").lower() == "true"
TIMEOUT = 120

FILES = {
    "usr/bin/linkperf": None,
    "usr/bin/linkperf2": "linkperf",
    "usr/share/man/man1/linkperf.1": None,
    "usr/share/man/man1/linkperf2.1": "linkperf.1",
    "usr/share/bash-completion/completions/linkperf": None,
    "usr/share/bash-completion/completions/linkperf2": "linkperf",
    "usr/share/zsh/site-functions/_linkperf": None,
    "usr/lib/systemd/system/linkperf.service": None,
}
ALIAS_FILES = {
    "usr/bin/iperf": "linkperf",
    "usr/bin/iperf3": "linkperf",
    "usr/share/bash-completion/completions/iperf": "linkperf",
    "usr/share/bash-completion/completions/iperf3": "linkperf",
}
DEB_FILES = {
    "usr/bin/linkperf": None,
    "usr/bin/linkperf2": "linkperf",
    "usr/share/man/man1/linkperf.1.gz": None,
    "usr/share/man/man1/linkperf2.1.gz": "linkperf.1.gz",
    "usr/share/bash-completion/completions/linkperf": None,
    "usr/share/bash-completion/completions/linkperf2": "linkperf",
    "usr/share/zsh/vendor-completions/_linkperf": None,
    "lib/systemd/system/linkperf.service": None,
    "usr/share/doc/linkperf/copyright": None,
    "usr/share/doc/linkperf/changelog.gz": None,
}
SANDBOX = ["DynamicUser=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
           "NoNewPrivileges=yes", "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
           "CapabilityBoundingSet=", "MemoryDenyWriteExecute=yes",
           "SystemCallFilter=@system-service", "LockPersonality=yes", "StateDirectory=linkperf"]

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", TIMEOUT)
    return subprocess.run(cmd, **kw)


def tree(top):
    """{relative path: link target or None} of every non-directory under top."""
    out = {}
    for d, dirs, files in os.walk(top):
        for name in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            p = os.path.join(d, name)
            out[os.path.relpath(p, top)] = os.readlink(p) if os.path.islink(p) else None
    return out


def help_options(argv0_args):
    """The option words a spelling's --help lists (supported rows only)."""
    text = run(argv0_args + ["--help"]).stdout
    words = set()
    for line in text.splitlines():
        if line.startswith("iperf3 options that") or line.startswith("iperf2 options that"):
            break
        m = re.match(r"  (-\w), (--[\w-]+)|  (--[\w-]+)", line)
        if m:
            words.update(w for w in m.groups() if w)
    return words


def bash_complete(script, words, env=None):
    """COMPREPLY of _linkperf for COMP_WORDS=words, completing the last word."""
    arr = " ".join("'%s'" % w for w in words)
    code = ("source '%s'; COMP_WORDS=(%s); COMP_CWORD=%d; _linkperf; "
            "printf '%%s\\n' \"${COMPREPLY[@]}\"" % (script, arr, len(words) - 1))
    r = run(["bash", "-c", code], env=env)
    return set(w for w in r.stdout.split("\n") if w)


def check_install(build, dest):
    usr = os.path.join(dest, "usr")
    lp = os.path.join(usr, "bin", "linkperf")
    check(tree(dest) == FILES, "make install: exactly the expected files and links: %s"
          % sorted(tree(dest)))
    r = run([lp, "-v"])
    check(r.returncode == 0 and "iperf3 3.12 protocol" in r.stdout, "installed linkperf -v")
    r = run([os.path.join(usr, "bin", "linkperf2"), "-v"])
    check(r.returncode == 0 and r.stderr.startswith("iperf version 2.1.8 "),
          "installed linkperf2 -v prints iperf 2.1.8's line: %r" % r.stderr[:60])
    man = os.path.join(usr, "share/man/man1/linkperf.1")
    with open(man) as f:
        check(f.read() == run([lp, "--man"]).stdout, "the man page is the binary's --man")
    if shutil.which("groff"):
        r = run(["groff", "-man", "-Tutf8", "-ww", "-z", man])
        check(r.returncode == 0 and not r.stderr, "groff renders the man page: %r" % r.stderr)
    else:
        check(not CI, "groff is installed (scripts/deps.sh fast)")

    comp = os.path.join(usr, "share/bash-completion/completions/linkperf")
    opts3, opts2 = help_options([lp]), help_options([lp, "--iperf2"])
    check(len(opts3) > 50 and len(opts2) > 50, "--help lists both spellings' options")
    got3 = bash_complete(comp, ["linkperf", "-"])
    check(got3 == opts3, "bash: linkperf - offers exactly --help's options (extra %s, missing %s)"
          % (sorted(got3 - opts3), sorted(opts3 - got3)))
    got2 = bash_complete(comp, ["linkperf2", "-"])
    check(got2 == opts2, "bash: linkperf2 - offers exactly iperf2's options (extra %s, missing %s)"
          % (sorted(got2 - opts2), sorted(opts2 - got2)))
    check(bash_complete(comp, ["linkperf", "--iperf2", "--ban"]) == {"--bandwidth"},
          "bash: --iperf2 on the line switches to iperf2's options")
    want_bi = set(w for w in opts3 if w.startswith("--bi"))
    check(bash_complete(comp, ["linkperf", "--bi"]) == want_bi and want_bi,
          "bash: linkperf --bi -> %s" % sorted(want_bi))
    check(bash_complete(comp, ["linkperf", ""]) >= {"ui", "lwip-tune", "under-load", "rfc2544",
                                                      "demo"}, "bash: the subcommands")
    doc = json.loads(run([lp, "ui", "--options"]).stdout)
    fmt = [o for o in doc["options"] if o["name"] == "format"][0]
    letters = set(c["value"] for c in fmt["choices"])
    check(bash_complete(comp, ["linkperf", "-f", ""]) == letters,
          "bash: -f offers the options document's units %s" % sorted(letters))
    check(bash_complete(comp, ["linkperf", "-c", "h", "--dialect", ""]) == {"iperf2", "iperf3"},
          "bash: --dialect offers iperf2 iperf3")
    check(bash_complete(comp, ["linkperf", "-p", ""]) == set(),
          "bash: a number's value is not completed")
    marker = os.path.join(dest, "..", "logfile-marker")
    open(marker, "w").close()
    check(bash_complete(comp, ["linkperf", "--logfile", marker[:-3]]) == {marker},
          "bash: --logfile completes a file name")
    r = run(["bash", "-c", "source '%s'; complete -p iperf3" % comp],
            env=dict(os.environ, PATH=os.path.join(usr, "bin") + ":" + os.environ["PATH"]))
    check(r.returncode != 0, "bash: no completion for iperf3 without the alias")

    zsh_file = os.path.join(usr, "share/zsh/site-functions/_linkperf")
    if shutil.which("zsh"):
        check(run(["zsh", "-n", zsh_file]).returncode == 0, "zsh -n _linkperf")
        for name, want in (("linkperf", opts3), ("linkperf2", opts2)):
            code = ("_describe() { local n=$2; print -rl -- ${(P)n} }; "
                    "words=(%s -); CURRENT=2; PREFIX=-; source '%s'" % (name, zsh_file))
            got = set(l.split(":", 1)[0] for l in run(["zsh", "-f", "-c", code]).stdout.split("\n")
                      if l)
            check(got == want, "zsh: %s - offers exactly --help's options (extra %s, missing %s)"
                  % (name, sorted(got - want), sorted(want - got)))
    else:
        # make check's packages have zsh; check-fast's (the fresh root's) need not.
        print("note: zsh is not installed; its completion file was not loaded")

    unit = os.path.join(usr, "lib/systemd/system/linkperf.service")
    with open(unit) as f:
        lines = set(l.strip() for l in f)
    check("ExecStart=/usr/bin/linkperf -s" in lines, "the unit runs PREFIX/bin/linkperf -s")
    missing = [d for d in SANDBOX if d not in lines]
    check(not missing, "the unit's sandbox directives (missing %s)" % missing)
    if shutil.which("systemd-analyze"):
        tmp = os.path.join(dest, "..", "unit")
        os.makedirs(tmp, exist_ok=True)
        copy = os.path.join(tmp, "linkperf.service")
        with open(unit) as f, open(copy, "w") as g:
            g.write(f.read().replace("ExecStart=/usr/bin/linkperf", "ExecStart=" + lp))
        r = run(["systemd-analyze", "verify", "--man=no", copy])
        check(r.returncode == 0 and not r.stderr.strip(), "systemd-analyze verify: %r" % r.stderr)
        r = run(["systemd-analyze", "security", "--offline=yes", copy])
        m = re.search(r"Overall exposure level for linkperf.service: ([\d.]+)", r.stdout)
        check(m and float(m.group(1)) < 2.0, "systemd-analyze security: exposure %s < 2.0"
              % (m.group(1) if m else r.stdout[-200:] + r.stderr))
    else:
        print("note: systemd-analyze is not installed; the unit's directives were read as text")


def make(build, *args, env=None):
    r = run(["make", "-C", SRC, "-o", "build", "BUILD=" + build] + list(args), env=env)
    if r.returncode != 0:
        print(r.stdout[-2000:], r.stderr[-2000:])
    return r


def check_deb(build, tmp):
    if not check(shutil.which("dpkg-shlibdeps") is not None or not CI,
                 "dpkg-shlibdeps is installed (scripts/deps.sh fast)"):
        return
    if not shutil.which("dpkg-shlibdeps"):
        print("note: dpkg-dev is not installed; make deb was not checked")
        return
    out = os.path.join(tmp, "dist")
    r = run([os.path.join(SRC, "packaging/make-deb.sh"), build, out])
    if not check(r.returncode == 0, "make-deb.sh: %s" % (r.stdout + r.stderr).strip()[-500:]):
        return
    version = re.search(r"^CMAKE_PROJECT_VERSION:STATIC=(.*)$",
                        open(os.path.join(build, "CMakeCache.txt")).read(), re.M).group(1)
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    deb = os.path.join(out, "linkperf_%s_%s.deb" % (version, arch))
    if not check(os.path.isfile(deb), "make deb made %s" % os.path.basename(deb)):
        return
    listing = {}
    for line in run(["dpkg-deb", "-c", deb]).stdout.splitlines():
        f = line.split(None, 5)[5]
        path, _, target = f.partition(" -> ")
        path = path[2:] if path.startswith("./") else path
        if line.startswith("d"):
            continue
        listing[path] = target or None
    check(listing == DEB_FILES, "dpkg-deb -c: exactly the expected files: %s" % sorted(listing))
    fields = {}
    for line in run(["dpkg-deb", "-f", deb]).stdout.splitlines():
        if line and not line.startswith(" "):
            k, _, v = line.partition(":")
            fields[k] = v.strip()
    check(fields.get("Package") == "linkperf" and fields.get("Version") == version
          and fields.get("Architecture") == arch, "dpkg-deb -f: package, version, architecture")
    deps = fields.get("Depends", "")
    libs = [d for d in ("libc6", "libcjson1", "libmicrohttpd12", "libsqlite3-0", "libssl3")
            if not re.search(r"(^|, )%s( |,|$)" % re.escape(d), deps)]
    check(not libs, "Depends names every linked library (missing %s): %s" % (libs, deps))
    if shutil.which("lintian"):
        r = run(["lintian", "--no-tag-display-limit", deb], timeout=300)
        tags = [l for l in r.stdout.splitlines() if re.match(r"[EWI]: ", l)]
        check(not [t for t in tags if t[0] in "EW"], "lintian: %s" % (tags or "clean"))


def main():
    lp = os.environ.get("LINKPERF")
    if not lp or not os.path.isfile(lp):
        reason = "LINKPERF (the built binary; its build dir is installed) is not set"
        if CI:
            print("FATAL: missing requirement under CI=true: " + reason)
            return 1
        print("SKIP: " + reason)
        return 77
    build = os.path.dirname(os.path.abspath(lp))
    r = run(["cmake", "--build", build, "--target", "lp_install_files"], timeout=600)
    if not check(r.returncode == 0, "cmake --build --target lp_install_files"):
        print(r.stdout[-2000:], r.stderr[-2000:])
        return 1
    # What a developer's own make install left in the build dir is put back at the end.
    records = [os.path.join(build, n) for n in ("install_manifest.txt",
                                                 "install_destination.txt")]
    saved = {p: open(p).read() for p in records if os.path.exists(p)}
    tmp = tempfile.mkdtemp(prefix="lp-install-")
    try:
        dest = os.path.join(tmp, "root")
        if check(make(build, "install", "DESTDIR=" + dest, "PREFIX=/usr").returncode == 0,
                 "make install DESTDIR=... PREFIX=/usr"):
            check_install(build, dest)
        r = make(build, "uninstall", "DESTDIR=" + dest, "PREFIX=/usr/local")
        check(r.returncode != 0 and os.path.exists(os.path.join(dest, "usr/bin/linkperf")),
              "make uninstall with another PREFIX than the install's refuses")
        check(make(build, "uninstall", "DESTDIR=" + dest, "PREFIX=/usr").returncode == 0,
              "make uninstall")
        # Under a DESTDIR the directories go too, up to the prefix (/usr here).
        left = [os.path.relpath(os.path.join(d, x), dest) for d, ds, fs in os.walk(dest)
                for x in ds + fs]
        check(left == ["usr"], "make uninstall left nothing but the prefix: %s" % left[:10])

        if check(make(build, "install", "DESTDIR=" + dest, "PREFIX=/usr",
                      "ALIASES=1").returncode == 0, "make install ALIASES=1"):
            want = dict(FILES, **ALIAS_FILES)
            check(tree(dest) == want, "ALIASES=1 adds exactly the iperf and iperf3 links")
            usr_bin = os.path.join(dest, "usr", "bin")
            r = run([os.path.join(usr_bin, "iperf"), "-v"])
            check(r.stderr.startswith("iperf version 2.1.8 "), "the iperf alias is iperf2's")
            comp = os.path.join(dest, "usr/share/bash-completion/completions/linkperf")
            env = dict(os.environ, PATH=usr_bin + ":" + os.environ["PATH"])
            check(bash_complete(comp, ["iperf", "--ban"], env) == {"--bandwidth"},
                  "bash: the iperf alias completes iperf2's options")
            r = run(["bash", "-c", "source '%s'; complete -p iperf3" % comp], env=env)
            check(r.returncode == 0 and "_linkperf" in r.stdout,
                  "bash: iperf3 completes as linkperf when it is the alias")
        make(build, "uninstall", "DESTDIR=" + dest, "PREFIX=/usr")
        check(os.listdir(os.path.join(dest, "usr")) == [], "make uninstall after ALIASES=1")

        check_deb(build, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        for p in records:
            if p in saved:
                with open(p, "w") as f:
                    f.write(saved[p])
            elif os.path.exists(p):
                os.unlink(p)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
