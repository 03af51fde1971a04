#!/usr/bin/env python3
"""No tracked file names a directory of the machine it was made on.

A committed report, README or result that says where its author's checkout, build, cache or
temporary files were is wrong on every other machine: paths are written relative to the
repository (agent/FOOTPRINT.md, build/linkperf) or as the option or variable a user passes
(--lwip SRC_ROOT, LINKPERF_IPERF3=/path/to/iperf3). Generators (footprint.py, bench/run.py)
write them that way, so a regenerated file stays clean.

The rule, over every file `git ls-files` lists (files with a NUL byte are skipped):

- Anywhere, code included: a path starting at /work/ or /root/. No program of the project
  reads or writes there at run time; such a path can only be the author's checkout or
  home (a cache under /root/.cache, a build under /work/...).
- In documents only -- .md, .txt, .json, .csv, .log, .html, .xml, a man page (.1 to .9),
  and everything under bench/results/: a path under /tmp/, /var/tmp/ or /home/<user>/. In
  code (.c, .h, .py, .sh, .mjs, ...) those are what a test or script does at run time (a
  mkstemp template, an option's example value, a user the fresh-machine check creates),
  not a record of where something was.
- Never flagged: /usr/, /proc/, /sys/, /dev/, /etc/ and other system paths; ~/ and
  $XDG_*_HOME defaults (the same on every machine); relative paths.
- Not read: the fuzz corpora (tests/fuzz/corpus/: bytes fed to a parser, a path there is
  input), and this file (it names the patterns).

A path counts only where it starts: after the start of a line, a space, a quote, `=`, `(`,
`[`, `<`, `,`, `:` or a backtick, so "$root/root/..." or "build/tmp/x" is not one.

Prints file:line: text for each hit and exits 1; exits 0 when there is none. Outside a git
checkout, or where git is not installed (a `git archive` tree, as make check-fresh tests it,
or a release tarball), it reads every file under the source directory that .gitignore does
not ignore: there that is what was committed.
"""
import fnmatch
import os
import re
import subprocess
import sys

SRC = os.environ.get("LP_SOURCE_DIR") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
SELF = "tests/tree/test_machine_paths.py"
NOT_READ = ("tests/fuzz/corpus/",)

START = r"(?:^|(?<=[\s\"'=(\[<,:`]))"
ANYWHERE = re.compile(START + r"/(?:work|root)/")
IN_DOCS = re.compile(START + r"/(?:tmp/|var/tmp/|home/[A-Za-z0-9._-]+/)")
DOC_EXT = re.compile(r"\.(?:md|txt|json|csv|log|html|xml|[1-9])$")
DOC_DIRS = ("bench/results/",)


def is_doc(path):
    return bool(DOC_EXT.search(path)) or path.startswith(DOC_DIRS)


def hits(path, text):
    doc = is_doc(path)
    for n, line in enumerate(text.splitlines(), 1):
        if ANYWHERE.search(line) or (doc and IN_DOCS.search(line)):
            yield n, line.strip()


def ignore_rules():
    """.gitignore's patterns as (anchored, directory-only, glob); blank lines and comments out."""
    rules = []
    try:
        with open(os.path.join(SRC, ".gitignore")) as fh:
            lines = fh.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        rules.append((line.startswith("/"), line.endswith("/"), line.strip("/")))
    return rules


def ignored(rel, is_dir, rules):
    name = os.path.basename(rel)
    for anchored, dir_only, glob in rules:
        if dir_only and not is_dir:
            continue
        if fnmatch.fnmatch(rel if anchored else name, glob):
            return True
    return False


def files_outside_git():
    """Every file under SRC that .gitignore does not ignore, .git itself left out."""
    rules = ignore_rules()
    out = []
    for root, dirs, names in os.walk(SRC):
        rel_root = os.path.relpath(root, SRC)
        rel_root = "" if rel_root == "." else rel_root + "/"
        dirs[:] = sorted(d for d in dirs if d != ".git" and
                         not ignored(rel_root + d, True, rules))
        out += [rel_root + n for n in sorted(names) if not ignored(rel_root + n, False, rules)
                and not os.path.islink(os.path.join(root, n))]
    return out


def tracked_files():
    """`git ls-files`, or the files a tree without git holds (see the module's text)."""
    try:
        r = subprocess.run(["git", "-C", SRC, "ls-files", "-z"], capture_output=True)
    except OSError as e:
        print("machine paths: git not runnable (%s): reading the tree under %s" % (e, SRC))
        return files_outside_git()
    if r.returncode != 0:
        print("machine paths: %s is not a git checkout: reading its tree" % SRC)
        return files_outside_git()
    return [f for f in r.stdout.decode().split("\0") if f]


def main():
    files = tracked_files()
    found = []
    for f in files:
        if f == SELF or f.startswith(NOT_READ):
            continue
        try:
            with open(os.path.join(SRC, f), "rb") as fh:
                data = fh.read()
        except OSError:  # deleted in the work tree, not yet in the index
            continue
        if b"\0" in data:
            continue
        for n, line in hits(f, data.decode("utf-8", errors="replace")):
            found.append("%s:%d: %s" % (f, n, line[:160]))
    for h in found:
        print(h)
    if found:
        print("machine paths: %d line(s) in tracked files name a directory of the machine they "
              "were made on; write them relative to the repository or as the option a user "
              "passes (rule: tests/tree/test_machine_paths.py)" % len(found))
        return 1
    print("machine paths: none in %d tracked files" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
