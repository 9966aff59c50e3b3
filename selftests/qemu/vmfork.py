#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Clone a running VM twice and check that /dev/dice's clones diverge.

    vmfork.py --kernel VMLINUZ --initrd INITRD [--timeout SECS] [--name NAME]

The initramfs runs vmfork_guest (selftests/qemu/vmfork_guest.c), which
buffers CRNG bits in an open /dev/dice file and says "vmfork ready".  This
script then saves the VM's whole state to a file (QMP "migrate" to a file),
stops it, and starts two new QEMUs from that file ("migrate-incoming"):
two clones of one machine, as a VM snapshot restored twice.  QEMU's vmgenid
device (guid=auto) gives each clone a new generation ID and raises an ACPI
notification, on which the kernel runs its VM-fork notifiers.  Each clone
then reads 32 rolls.  The clones must print different rolls and each must
count the bits it had buffered as discarded; without the module's
notifier both would serve the same rolls from the same buffer.  Two more
files are compared the same way: a text file whose read faulted before the
fork (whole lines wait in its buffer: the clones must not serve them), and
a read in flight across the fork (stopped inside the kernel on a
userfaultfd page; after the chunk it was copying, the clones must differ
and the file must count its bits as discarded).

Prints TAP, every name prefixed "NAME: " (default vmfork); exit 0 when
every check passed.  Works under TCG; QEMU_CPU, as for run.sh, sets -cpu.
selftests/qemu/vmtest.sh runs it for the test "vmfork" (the vmfork tier).
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

BAD = re.compile(r"WARNING:|BUG:|Oops|KASAN|UBSAN|Kernel panic|Call Trace:")


class Vm:
    def __init__(self, work, tag, kernel, initrd, incoming=False):
        self.tag = tag
        self.verdict = os.path.join(work, "verdict-" + tag)
        self.console = os.path.join(work, "console-" + tag)
        qmp = os.path.join(work, "qmp-" + tag)
        open(self.verdict, "w").close()
        args = ["qemu-system-x86_64", "-accel", "tcg", "-m", "512",
                "-smp", "2", "-no-reboot", "-kernel", kernel,
                "-initrd", initrd, "-append", "console=ttyS0 panic=-1",
                *(["-cpu", os.environ["QEMU_CPU"]]
                  if os.environ.get("QEMU_CPU") else []),
                "-device", "vmgenid,id=vmgen0,guid=auto",
                "-qmp", "unix:%s,server=on,wait=off" % qmp,
                "-display", "none", "-vga", "none", "-monitor", "none",
                "-serial", "file:" + self.console,
                "-serial", "file:" + self.verdict]
        if incoming:
            args += ["-incoming", "defer"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(qmp):
                break
            time.sleep(0.05)
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(qmp)
        self.io = self.sock.makefile("rw")
        self.io.readline()
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.io.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.io.flush()
        while True:
            reply = json.loads(self.io.readline())
            if "event" not in reply:
                return reply

    def said(self):
        with open(self.verdict, errors="replace") as f:
            return f.read()

    def wait_for(self, text, timeout):
        end = time.time() + timeout
        while time.time() < end:
            if text in self.said():
                return True
            if self.proc.poll() is not None:
                return text in self.said()
            time.sleep(0.1)
        return False

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--initrd", required=True)
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--name", default="vmfork")
    opts = ap.parse_args()
    n = 0
    failed = 0

    def tap(ok, what, why=""):
        nonlocal n, failed
        n += 1
        failed += not ok
        print("%s %d - %s: %s%s" % ("ok" if ok else "not ok", n, opts.name,
                                    what, " # " + why if why and not ok
                                    else ""))
        sys.stdout.flush()

    with tempfile.TemporaryDirectory(prefix="dice-vmfork.",
                                     ignore_cleanup_errors=True) as work:
        vms = []
        try:
            orig = Vm(work, "orig", opts.kernel, opts.initrd)
            vms.append(orig)
            ok = orig.wait_for("vmfork ready", opts.timeout)
            tap(ok, "the guest buffered CRNG bits and is ready")
            if not ok:
                print("# " + orig.said()[-2000:].replace("\n", "\n# "))
                return 1
            state = os.path.join(work, "state")
            orig.cmd("migrate", uri="exec:cat > " + state)
            status = ""
            for _ in range(600):
                status = orig.cmd("query-migrate")["return"].get("status")
                if status in ("completed", "failed"):
                    break
                time.sleep(0.1)
            orig.kill()
            tap(status == "completed", "the VM saved to a file (%d MB)" %
                (os.path.getsize(state) >> 20), "migration " + str(status))
            if status != "completed":
                return 1
            clones = []
            for tag in ("a", "b"):
                vm = Vm(work, tag, opts.kernel, opts.initrd, incoming=True)
                vms.append(vm)
                vm.cmd("migrate-incoming", uri="exec:cat " + state)
                clones.append(vm)
            # What each clone reports: "vmfork NAME HEX[ discarded B A]".
            reports = (
                ("rolls", "woke from the fork and rolled",
                 "counted its buffered bits as discarded"),
                ("text", "read its text file", None),
                ("inflight", "finished the read in flight",
                 "dropped the bits of its read in flight at the fork"),
            )
            seen = {name: [] for name, _, _ in reports}
            for vm in clones:
                ok = vm.wait_for("verdict done", opts.timeout)
                said = vm.said()
                for name, did, dropped in reports:
                    m = re.search(r"vmfork %s ([0-9a-f]+)"
                                  r"(?: discarded (\d+) (\d+))?" % name, said)
                    tap(ok and m is not None, "clone %s %s" % (vm.tag, did),
                        "it said: " + said[-300:].replace("\n", " | "))
                    if not m:
                        continue
                    seen[name].append(m.group(1))
                    if dropped:
                        before, after = int(m.group(2)), int(m.group(3))
                        tap(after > before, "clone %s %s (%d -> %d)" %
                            (vm.tag, dropped, before, after),
                            "bits_discarded did not grow")
                bad = [l for l in said.splitlines() if BAD.search(l)]
                tap(not bad, "clone %s kernel log clean" % vm.tag,
                    bad[0] if bad else "")
            rolls, texts, inflight = (seen[name] for name, _, _ in reports)
            for what, got in (("rolled different dice", rolls),
                              ("served different text lines after a "
                               "faulted read", texts),
                              ("finished the read in flight with different "
                               "rolls", inflight)):
                if len(got) == 2:
                    tap(got[0] != got[1],
                        "the clones %s (%s... vs %s...)" %
                        (what, got[0][:8], got[1][:8]),
                        "both clones served the same bytes")
        finally:
            for vm in vms:
                vm.kill()
    print("%s: %d passed, %d failed" % (opts.name, n - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
