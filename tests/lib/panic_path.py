#!/usr/bin/env python3
"""The size of kmsvt's panic path, and a check of its rules.

For each target kernel, build the module once more into
build/stackcheck-<release>/ (a copy of the sources, as `make module-one`
does) with

    KCFLAGS="-fstack-usage -fcallgraph-info=su"

so that gcc writes, next to every object, a .su file (the stack frame of
each function) and a .ci file: the call graph of that translation unit
after inlining, in VCG, every node labelled with its frame size.  The .ci
files are merged (a global function is one node across files), and from
the two entry points the kernel calls on a panic,

    kmsvt_kmsg_dump      the kmsg dumper (draws the screen)
    kmsvt_panic_notify   the panic notifier (keeps the reason, reads clocks)
    kmsvt_pstore_panic_write  pstore_zone's write of the panic's record
    kmsvt_pstore_write   pstore_zone's write of an oops' record (interrupts
                         off, inside the kmsg dump)

this walks every function of the module they can reach, and prints:

  - the reachable functions, with frame size and the deepest stack in use
    when each is entered (sum of the frames along the deepest path from an
    entry point);
  - the external kernel functions they call, from where, and how much of
    our stack is in use at the call: each of those adds its own frames on
    top, which this check cannot see (the kernel's objects are not built
    with these flags);
  - the worst-case stack depth within the module and its path.

What is inlined is part of its caller (its frame is in the caller's), and
what compiles to inline asm is not a call at all: the MMIO accessors
(writel, writew, writeq, readb) and the atomics never appear.

It then checks the rules of the panic path (panic/panic.c): no function
reachable in the module may call

  - the allocator (kmalloc, kzalloc, vmalloc, kmem_cache_alloc, alloc_pages,
    kstrdup, ..., anything named *alloc*, and kfree, vfree, free_pages...),
  - something that sleeps (mutex_lock, down, down_read, rwsem, ww_mutex,
    drm_modeset_lock, wait_for_completion, msleep, schedule, might_sleep...),
  - a spinlock or rwlock other than by trylock (spin_lock, raw_spin_lock,
    _raw_spin_lock_irqsave, read_lock, queued_spin_lock_slowpath...),

and there must be no recursion, no unbounded dynamic stack frame and no
indirect call (its target could be anything).  Any violation, a failed
build, or a missing entry point makes it exit non-zero, so it doubles as a
test: tests/host/test_panic_path.py checks with it, and the benchmarks
report with it (tests/bench/run.py --only panicpath).

usage: tests/lib/panic_path.py [--markdown] [--no-keep] [--src DIR] [KERNEL_RELEASE ...]
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys

import initramfs

REPO = initramfs.REPO

ROOTS = ("kmsvt_kmsg_dump", "kmsvt_panic_notify", "kmsvt_pstore_panic_write",
         "kmsvt_pstore_write")
KCFLAGS = "-fstack-usage -fcallgraph-info=su"
INDIRECT = "__indirect_call"

# (rule, regex on an external function's name).  Trylocks are allowed and
# are excluded from the lock rules before these are tried.
RULES = (
    ("allocator", re.compile(
        r"alloc|^(__)?get_free_page|^get_zeroed_page|^kstrn?dup|^kmemdup|^kv?asprintf|"
        r"^devm_kstr|^kobject_create|^kset_create|"
        r"^kv?free|^vfree|^kmem_cache_free|^_*free_pages|^kfree_sensitive|^mempool_free")),
    ("sleeps", re.compile(
        r"^_*mutex_lock|^_*rt_mutex_lock|^_*ww_mutex_lock|^drm_modeset_lock|"
        r"^_*down($|_)|^_*down_(read|write)|^percpu_down|^_*up_(read|write)|"
        r"^wait_for_completion|^wait_event|^_*wait_(on|var)|^prepare_to_wait|"
        r"^msleep|^ssleep|^usleep|^schedule|^_*cond_resched|^_*might_(sleep|resched|fault)|"
        r"^synchronize_(rcu|srcu|net|irq)|^flush_(work|delayed_work|workqueue)|"
        r"^cancel_\w*_sync$|^kthread_stop|^rcu_barrier|^drain_workqueue")),
    ("non-try spinlock", re.compile(
        r"^_*(raw_)?(spin|read|write)_lock|^queued_(spin|read|write)_lock|"
        r"^do_raw_(spin|read|write)_lock|^_*(raw_)?local_lock|^_*(raw_)?write_seqlock|"
        r"^_*bit_spin_lock")),
)

NODE_RX = re.compile(r'^node: \{ title: "([^"]*)" label: "([^"]*)"(.*)\}\s*$')
EDGE_RX = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"'
                     r'(?: label: "([^"]*)")? \}\s*$')
FRAME_RX = re.compile(r"^(\d+) bytes \(([a-z,]+)\)$")


class CheckError(Exception):
    pass


# ---------------------------------------------------------------- build

def stackcheck_dir(rel):
    return os.path.join(initramfs.BUILD, "stackcheck-" + rel)


def copy_sources(dst, src=REPO):
    """The module's sources, as the Makefile's module-one copies them: the
    repository's list of them, read from @src (which may be such a copy)."""
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    files = initramfs.module_sources()
    for f in files:
        out = os.path.join(dst, f)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copy2(os.path.join(src, f), out)
    return files


def build(rel, kdir=None, src=REPO):
    """Build the instrumented copy; return its directory."""
    # The kernel's own make (scripts/kenv.sh: its compiler, its headers),
    # or make -C a given tree.
    make = ["make", "-C", kdir] if kdir else \
        ["sh", os.path.join(REPO, "scripts", "kenv.sh"), "--make", rel]
    kdir = kdir or os.path.join(REPO, "build", "kernels", rel, "build")
    if not os.path.isdir(kdir):
        raise CheckError("no kernel headers at %s: run make deps" % kdir)
    out = stackcheck_dir(rel)
    copy_sources(out, src)
    res = subprocess.run(make + ["-j%d" % (os.cpu_count() or 1), "M=" + out, "modules",
                                 "KMSVT_WERROR=1", "KCFLAGS=" + KCFLAGS],
                         capture_output=True, text=True)
    if res.returncode:
        raise CheckError("build for %s failed:\n%s%s" % (rel, res.stdout[-3000:],
                                                        res.stderr[-3000:]))
    if not glob.glob(os.path.join(out, "panic", "*.ci")):
        raise CheckError("gcc wrote no .ci files (does it support -fcallgraph-info?)")
    return out


# ---------------------------------------------------------------- graph

class Func:
    def __init__(self, title):
        self.title = title
        self.name = title.rsplit(":", 1)[-1]   # static ones are "file:name"
        self.loc = None         # "file:line" of the definition
        self.frame = None       # bytes, None for a function defined elsewhere
        self.qual = None        # "static", "dynamic", "dynamic,bounded"
        self.calls = collections.OrderedDict()   # callee title -> [call sites]

    @property
    def defined(self):
        return self.frame is not None


class Graph:
    def __init__(self):
        self.funcs = {}

    def func(self, title):
        if title not in self.funcs:
            self.funcs[title] = Func(title)
        return self.funcs[title]


def _short(path, base):
    for prefix in (base.rstrip("/") + "/",):
        if path.startswith(prefix):
            return path[len(prefix):]
    m = re.match(r"^.*/linux-headers-[^/]+/(.*)$", path)
    return m.group(1) if m else path


def parse_ci(paths, base):
    """Merge the VCG call graphs of gcc's -fcallgraph-info."""
    g = Graph()
    for path in paths:
        with open(path) as f:
            for line in f:
                m = NODE_RX.match(line)
                if m:
                    title, label = m.group(1), m.group(2).split("\\n")
                    fn = g.func(title)
                    fm = FRAME_RX.match(label[-1]) if len(label) >= 3 else None
                    if fm:
                        fn.frame, fn.qual = int(fm.group(1)), fm.group(2)
                        fn.loc = ":".join(_short(label[1], base).split(":")[:2])
                    continue
                m = EDGE_RX.match(line)
                if m:
                    src, dst, site = m.groups()
                    sites = g.func(src).calls.setdefault(dst, [])
                    g.func(dst)
                    site = ":".join(_short(site, base).split(":")[:2]) if site else "?"
                    if site not in sites:
                        sites.append(site)
    return g


def find_root(g, name):
    hits = [f for f in g.funcs.values() if f.defined and f.name == name]
    if len(hits) != 1:
        raise CheckError("entry point %s: %d definitions in the call graph" % (name, len(hits)))
    return hits[0]


def rule_of(name):
    """The rule an external callee breaks, or None."""
    if name == INDIRECT:
        return "indirect call"
    base = name.split(".")[0]
    for rule, rx in RULES:
        if rule != "allocator" and "trylock" in base:
            continue
        if rx.search(base):
            return rule
    return None


class Analysis:
    """Everything reachable from ROOTS in one build."""

    def __init__(self, rel, graph, roots=ROOTS):
        self.rel = rel
        self.g = graph
        self.roots = [find_root(graph, r) for r in roots]
        self.reach = self._reachable()
        self.violations = []      # (rule, text)
        self._check_frames()
        self.height, self.deepest_callee = self._heights()
        self.depth_at = self._depths()
        self.external = self._external()

    def _internal_callees(self, fn):
        return [self.g.funcs[t] for t in fn.calls if self.g.funcs[t].defined]

    def _reachable(self):
        seen, order, todo = set(), [], list(self.roots)
        while todo:
            fn = todo.pop(0)
            if fn.title in seen:
                continue
            seen.add(fn.title)
            order.append(fn)
            todo.extend(self._internal_callees(fn))
        return order

    def _check_frames(self):
        for fn in self.reach:
            if fn.qual != "static" and fn.qual != "dynamic,bounded":
                self.violations.append(("unbounded stack", "%s (%s) has a %s frame" % (
                    fn.name, fn.loc, fn.qual)))

    def _heights(self):
        """Stack from entering fn to the deepest return, within the module;
        recursion is a violation (and is cut)."""
        height, best, state = {}, {}, {}

        def visit(fn, stack):
            st = state.get(fn.title)
            if st == "done":
                return height[fn.title]
            if st == "open":
                cyc = stack[stack.index(fn.title):] + [fn.title]
                self.violations.append(("recursion", " -> ".join(
                    self.g.funcs[t].name for t in cyc)))
                return 0
            state[fn.title] = "open"
            h, b = 0, None
            for c in self._internal_callees(fn):
                ch = visit(c, stack + [fn.title])
                if ch > h:
                    h, b = ch, c.title
            state[fn.title] = "done"
            height[fn.title], best[fn.title] = fn.frame + h, b
            return height[fn.title]

        for r in self.roots:
            visit(r, [])
        return height, best

    def _depths(self):
        """Deepest stack in use inside each reachable fn (its frame included),
        over all paths from a root; also the path."""
        depth = {}
        order = self._topo()
        for r in self.roots:
            depth[r.title] = (r.frame, [r.title])
        for fn in order:
            if fn.title not in depth:
                continue
            d, path = depth[fn.title]
            for c in self._internal_callees(fn):
                if c.title in path:
                    continue        # recursion, reported already
                nd = d + c.frame
                if c.title not in depth or nd > depth[c.title][0]:
                    depth[c.title] = (nd, path + [c.title])
        return depth

    def _topo(self):
        seen, out = set(), []

        def visit(fn, onstack):
            if fn.title in seen or fn.title in onstack:
                return
            onstack.add(fn.title)
            for c in self._internal_callees(fn):
                visit(c, onstack)
            onstack.discard(fn.title)
            seen.add(fn.title)
            out.append(fn)

        for r in self.roots:
            visit(r, set())
        return list(reversed(out))

    def _external(self):
        """{external name: {"callers": [(fn, sites)], "stack": bytes in use at
        the deepest call, "rule": broken rule or None}}."""
        ext = collections.OrderedDict()
        for fn in self.reach:
            for t, sites in fn.calls.items():
                callee = self.g.funcs[t]
                if callee.defined:
                    continue
                e = ext.setdefault(callee.name, {"callers": [], "stack": 0,
                                                 "rule": rule_of(callee.name)})
                e["callers"].append((fn, sites))
                e["stack"] = max(e["stack"], self.depth_at.get(fn.title, (0,))[0])
        for name, e in ext.items():
            if e["rule"]:
                for fn, sites in e["callers"]:
                    self.violations.append((e["rule"], "%s calls %s at %s (reached by %s)" % (
                        fn.name, name, ", ".join(sites), " -> ".join(
                            self.g.funcs[t].name for t in self.depth_at[fn.title][1]))))
        return ext

    @property
    def worst(self):
        """(bytes, [function names]) of the deepest path from a root."""
        fn = max(self.roots, key=lambda r: self.height[r.title])
        path, t = [], fn.title
        while t:
            path.append(self.g.funcs[t].name)
            t = self.deepest_callee.get(t)
        return self.height[fn.title], path

    def per_root(self):
        return [(r.name, self.height[r.title]) for r in self.roots]


def analyse(rel, kdir=None, keep=True, src=REPO):
    out = build(rel, kdir, src)
    try:
        cis = sorted(glob.glob(os.path.join(out, "**", "*.ci"), recursive=True))
        cis = [p for p in cis if not p.endswith(".mod.ci")]
        return Analysis(rel, parse_ci(cis, out))
    finally:
        if not keep:
            shutil.rmtree(out, ignore_errors=True)


# ---------------------------------------------------------------- report

def _table(head, rows, markdown=False, right=()):
    if markdown:
        lines = ["| " + " | ".join(head) + " |",
                 "|" + "|".join("---:" if i in right else "---" for i in range(len(head))) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    return "\n".join("  ".join(c.rjust(w) if i in right else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                     for r in [head] + rows)


def func_rows(a, md=False):
    q = (lambda s: "`%s`" % s) if md else (lambda s: s)
    rows = []
    for fn in a.reach:
        callees = [c.name for c in a._internal_callees(fn)]
        rows.append([q(fn.name), fn.loc or "?", str(fn.frame),
                     str(a.depth_at[fn.title][0]),
                     ", ".join(q(c) for c in callees) or "-"])
    return ["function", "defined at", "frame", "stack in use", "calls in the module"], rows


def external_rows(a, md=False):
    q = (lambda s: "`%s`" % s) if md else (lambda s: s)
    rows = []
    for name, e in sorted(a.external.items(), key=lambda kv: kv[0].lstrip("_")):
        rows.append([q(name), ", ".join(q(fn.name) for fn, _ in e["callers"]),
                     str(e["stack"]), "**%s**" % e["rule"] if md and e["rule"]
                     else (e["rule"] or "ok")])
    return ["external function", "called from", "stack in use at the call", "rule"], rows


def report(a, markdown=False):
    worst, path = a.worst
    md = markdown
    code = (lambda s: "`%s`" % s) if md else (lambda s: s)
    lines = []
    lines.append(("Kernel `%s`" if md else "kernel %s") % a.rel + (":" if md else
                 ": panic path of kmsvt.ko (gcc -fstack-usage -fcallgraph-info=su)"))
    lines.append("")
    lines.append("%d functions of the module reachable from %s; %d external functions called." % (
        len(a.reach), " and ".join(code(r.name) for r in a.roots), len(a.external)))
    lines.append("Worst-case stack within the module: %d bytes, %s." % (
        worst, " -> ".join(code(p) for p in path)))
    lines.append("Per entry point: %s." % ", ".join("%s %d bytes" % (code(n), h)
                                                    for n, h in a.per_root()))
    lines.append("")
    head, rows = func_rows(a, md)
    lines.append(_table(head, rows, md, right=(2, 3)))
    lines.append("")
    head, rows = external_rows(a, md)
    lines.append(_table(head, rows, md, right=(2,)))
    lines.append("")
    if a.violations:
        lines.append("VIOLATIONS (%d):" % len(a.violations))
        lines += ["  - %s: %s" % v for v in a.violations]
    else:
        lines.append("Rules: no allocator, no sleeping call, no non-try spinlock, no recursion, "
                     "no unbounded frame, no indirect call: OK.")
    return "\n".join(lines)


def summary_row(a):
    worst, path = a.worst
    return [a.rel, str(len(a.reach)), str(len(a.external)), str(worst),
            str(dict(a.per_root())["kmsvt_panic_notify"]),
            str(len(a.violations))]


def summary_table(analyses, markdown=False):
    head = ["kernel", "functions reachable", "external callees", "worst stack (bytes)",
            "notifier stack (bytes)", "violations"]
    return _table(head, [summary_row(a) for a in analyses], markdown, right=(1, 2, 3, 4, 5))


def run(kernels, markdown=False, keep=True, log=print, src=REPO):
    """Analyse each kernel; return (analyses, number of problems)."""
    analyses, bad = [], 0
    for rel in kernels:
        try:
            a = analyse(rel, keep=keep, src=src)
        except CheckError as e:
            log("panic path %s: FAILED: %s" % (rel, e))
            bad += 1
            continue
        analyses.append(a)
        log(report(a) + "\n")
        bad += len(a.violations)
    if analyses:
        log(summary_table(analyses))
    if markdown:
        for a in analyses:
            log("\n" + report(a, markdown=True))
        log("\n" + summary_table(analyses, markdown=True))
    return analyses, bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown", action="store_true", help="also print the tables as Markdown")
    ap.add_argument("--no-keep", dest="keep", action="store_false",
                    help="remove build/stackcheck-<release>/ afterwards")
    ap.add_argument("--src", default=REPO,
                    help="source tree to check (default: this one; for testing the check)")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args(argv)
    _, bad = run(args.kernels or initramfs.releases(), args.markdown, args.keep,
                 log=lambda m: print(m, flush=True), src=os.path.abspath(args.src))
    if bad:
        print("panic path check: %d problem(s)" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
