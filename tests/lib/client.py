"""Our userspace tools in a guest: tool_guest(), an image with one of
build/userspace/'s tools; and kmsvt-test, our libdrm client (userspace/
kmsvt-test/), run in a guest and its output judged: every check passed,
none skipped."""
import os
import re

import initramfs
import vm
from harness import check


def tool_guest(ctx, name, tool, tag):
    """A guest whose image has build/userspace/TOOL."""
    prog = os.path.join(initramfs.BUILD, "userspace", tool)
    check(os.path.exists(prog), "%s not built: run make" % tool)
    return ctx.guest(name, programs=[prog], tag=tag)


def client_guest(ctx, name):
    return tool_guest(ctx, name, "kmsvt-test", "client")


def check_output(g, args, st, out):
    """kmsvt-test's exit status st and output: every check passed."""
    # kmsvt-test skips what a driver lacks (for use on other drivers); kmsvt
    # lacks nothing it checks, so here a skip is a failure.
    failures = [ln for ln in out.splitlines()
                if ln.startswith("not ok") or re.match(r"ok \S+ # SKIP", ln)]
    summary = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    check(st == 0 and not failures and summary and summary.group(2) == "0"
          and "skipped" not in out
          and int(summary.group(1)) > 0,
          "%s: kmsvt-test %s exited %d; failed checks:\n  %s\noutput:\n%s" % (
              g.name, args, st, "\n  ".join(failures) or "(none)", out[-4000:]))


def run_client(g, args, timeout=600):
    """Run kmsvt-test in the guest; every check must pass.  Returns the output."""
    st, out = g.sh("kmsvt-test %s" % args, timeout=timeout)
    with open(os.path.join(vm.LOGDIR, "%s-%s.log" % (g.name, args.replace(" ", "_"))), "w") as f:
        f.write(out)
    check_output(g, args, st, out)
    return out
