"""Boot a guest under QEMU (TCG) and drive it over serial and QMP.

Vm.sh() runs a shell command in the guest and returns (status, output);
Vm.screendump() returns what the display device scans out, as a
screenreader.Image.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import initramfs
from screenreader import Image

QEMU = "qemu-system-x86_64"
LOGDIR = os.path.join(initramfs.BUILD, "test-logs")
# Seconds from QEMU's start to the guest's init; make test-debug raises it
# for the debug kernel (KASAN, lockdep and kmemleak under TCG).
BOOT_TIMEOUT = float(os.environ.get("KMSVT_BOOT_TIMEOUT", "120"))


class VmError(Exception):
    pass


class Vm:
    def __init__(self, rel, initrd, cmdline="", devices=("-device", "VGA"),
                 mem=512, smp=1, extra_args=(), name="vm", serial_console=True, reboot=False,
                 display="none"):
        self.rel = rel
        self.name = name
        self.tmp = tempfile.mkdtemp(prefix="kmsvt-vm-")
        self.serial_path = os.path.join(self.tmp, "serial")
        self.qmp_path = os.path.join(self.tmp, "qmp")
        os.makedirs(LOGDIR, exist_ok=True)
        self.log_path = os.path.join(LOGDIR, name + ".serial.log")
        self.buf = b""
        self.lock = threading.Condition()
        self.closed = False
        kernel = os.path.join(initramfs.kernel_dir(rel), "vmlinuz")
        # Without serial_console the kernel prints only on the screen; the
        # shell on the serial line is there either way.
        consoles = "console=tty0 console=ttyS0,115200" if serial_console else "console=tty0"
        append = consoles + " consoleblank=0 " + cmdline
        # Multi-threaded TCG runs each vCPU on its own host thread, and then
        # a vCPU can still run code that the kernel's text patching (int3
        # breakpoints, 6.12's static keys at boot) has already rewritten:
        # "Oops: int3" in the idle task, about one boot in 16.  One thread
        # for all vCPUs keeps the guest SMP and its code coherent.
        accel = "tcg,thread=single" if smp > 1 else "tcg"
        self.args = [QEMU, "-accel", accel, "-m", str(mem), "-smp", str(smp),
                     "-nodefaults", "-no-user-config", "-display", display,
                     "-kernel", kernel, "-initrd", initrd,
                     "-append", append.strip(),
                     "-chardev", "socket,id=ser0,path=%s,server=on,wait=off" % self.serial_path,
                     "-serial", "chardev:ser0",
                     "-qmp", "unix:%s,server=on,wait=off" % self.qmp_path]
        # A guest's reboot ends QEMU, unless a test reboots on purpose: then
        # the same QEMU resets the machine (VRAM kept) and boots again.
        if not reboot:
            self.args.append("-no-reboot")
        self.args += list(devices) + list(extra_args)
        self.proc = None

    # -- lifetime -------------------------------------------------------
    def start(self):
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.serial = self._connect(self.serial_path)
        self.qmp = self._connect(self.qmp_path)
        self.qmp_file = self.qmp.makefile("rw")
        self._qmp_read()  # greeting
        self.qmp_cmd("qmp_capabilities")
        self.reader = threading.Thread(target=self._read_serial, daemon=True)
        self.reader.start()
        return self

    def _connect(self, path):
        deadline = time.monotonic() + 20
        while True:
            if self.proc.poll() is not None:
                raise VmError("qemu exited: %s" % self.proc.stdout.read().decode())
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                return s
            except OSError:
                s.close()
                if time.monotonic() > deadline:
                    raise VmError("cannot connect to " + path)
                time.sleep(0.05)

    def _read_serial(self):
        with open(self.log_path, "wb") as log:
            while True:
                try:
                    data = self.serial.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    break
                log.write(data)
                log.flush()
                with self.lock:
                    self.buf += data
                    self.lock.notify_all()
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    def close(self):
        if self.proc and self.proc.poll() is None:
            try:
                self.qmp_cmd("quit")
            except Exception:
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for s in ("serial", "qmp"):
            if hasattr(self, s):
                getattr(self, s).close()
        # The sockets and the last screendump; what a test keeps it saves
        # to LOGDIR.
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    # -- QMP ------------------------------------------------------------
    def _qmp_read(self):
        while True:
            line = self.qmp_file.readline()
            if not line:
                raise VmError("QMP closed")
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def qmp_cmd(self, cmd, **args):
        self.qmp_file.write(json.dumps({"execute": cmd, "arguments": args}) + "\n")
        self.qmp_file.flush()
        reply = self._qmp_read()
        if "error" in reply:
            raise VmError("QMP %s: %s" % (cmd, reply["error"]))
        return reply.get("return")

    def screendump(self, save_as=None):
        path = os.path.join(self.tmp, "shot.ppm")
        if os.path.exists(path):
            os.unlink(path)
        self.qmp_cmd("screendump", filename=path)
        img = Image.load_ppm(path)
        if save_as:
            img.save_ppm(os.path.join(LOGDIR, save_as))
        return img

    def send_key(self, *keys):
        self.qmp_cmd("send-key", keys=[{"type": "qcode", "data": k} for k in keys])

    # -- serial ---------------------------------------------------------
    def output(self):
        with self.lock:
            return self.buf.decode(errors="replace")

    def wait_for(self, pattern, timeout=60, start=0):
        """Wait until regex pattern appears in serial output after start."""
        rx = re.compile(pattern.encode() if isinstance(pattern, str) else pattern)
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                m = rx.search(self.buf, start)
                if m:
                    return m
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise VmError("%s: timed out waiting for %r; serial tail:\n%s" % (
                        self.name, pattern, self.buf[-3000:].decode(errors="replace")))
                self.lock.wait(min(left, 1.0))

    def write(self, text):
        self.serial.sendall(text.encode())

    def boot(self, timeout=None, since=0):
        """Wait for init (after serial offset since: a reboot's) and get a
        quiet shell (no echo)."""
        self.wait_for(r"KMSVT-INIT-READY", timeout or BOOT_TIMEOUT, since)
        self.booted_at = time.monotonic()
        time.sleep(0.3)
        self.sh("stty -echo; dmesg -n 1; PS1=; PS2=", timeout=60)
        return self

    _seq = 0

    def sh(self, cmd, timeout=60, check=False):
        """Run cmd in the guest shell; return (status, output)."""
        Vm._seq += 1
        tag = "K%dV" % Vm._seq
        with self.lock:
            start = len(self.buf)
        # The marker is built by the shell, so the echoed command never matches.
        self.write("{ %s\n} 2>&1; echo \"@@%s-$?-$((7*6))@@\"\n" % (cmd, tag))
        m = self.wait_for(r"@@%s-(\d+)-42@@" % tag, timeout, start)
        with self.lock:
            out = self.buf[start:m.start()].decode(errors="replace")
        out = out.replace("\r", "")
        status = int(m.group(1))
        if check and status:
            raise VmError("%s: %r failed (%d): %s" % (self.name, cmd, status, out))
        return status, out

    def serial_offset(self):
        with self.lock:
            return len(self.buf)

    def dmesg(self):
        return self.sh("dmesg", timeout=60)[1]
