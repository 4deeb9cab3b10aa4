"""Fixtures: real satind processes on private sockets, started here and
stopped by their pids whatever the tests did.  SATIN_BUILD names the
build directory (default: ../../../build from here); SATIN_LIBRARY the
libsatin to load (default: the build's)."""
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("SATIN_BUILD") or os.path.normpath(os.path.join(HERE, "..", "..", "..", "build"))
os.environ.setdefault("SATIN_LIBRARY", os.path.join(BUILD, "libsatin.so.1.1.0"))


class Daemons:
    """satind processes of one test (or session), stopped by pid."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.procs = {}

    def start(self, name, *args):
        log = open(os.path.join(self.tmp, name + ".log"), "w")
        p = subprocess.Popen([os.path.join(BUILD, "satind"), "--foreground", *args],
                             stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.procs[name] = p
        return p

    def wait_sockets(self, socks, timeout=20):
        """Until every socket answers a STATUS (satin-submit --status)."""
        deadline = time.monotonic() + timeout
        for s in socks:
            while subprocess.run([os.path.join(BUILD, "satin-submit"), "--socket", s, "--status",
                                  "--timeout", "1"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL).returncode != 0:
                if time.monotonic() > deadline:
                    raise RuntimeError("satind at %s did not start" % s)
                time.sleep(0.05)

    def kill(self, name, sig=signal.SIGKILL):
        p = self.procs[name]
        if p.poll() is None:
            p.send_signal(sig)
        p.wait(30)

    def stop_all(self):
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs.values():
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _grid_yaml(tmp, base):
    nodes = []
    for ci, cl in enumerate("AB"):
        rows = []
        for k in range(2):
            nid = "%s%d" % (cl.lower(), k)
            port = base + ci * 2 + k
            rows.append('      - {id: %s, endpoint: "tcp://127.0.0.1:%d", client: "ipc://%s/%s.sock", '
                        "workers: 1}" % (nid, port, tmp, nid))
        nodes.append("  - name: %s\n    nodes:\n%s" % (cl, "\n".join(rows)))
    return "grid: pytest\npolicy: crs\nsecurity: none\nclusters:\n%s\n" % "\n".join(nodes)


@pytest.fixture(scope="session")
def grid():
    """A 2x2 grid (clusters A and B, one worker a node, CRS); yields a dict
    with the four nodes' endpoints by id, and `daemons`."""
    tmp = tempfile.mkdtemp(prefix="satin-pytest-")
    os.chmod(tmp, 0o700)
    d = Daemons(tmp)
    for attempt in range(5):
        base = 33000 + random.randrange(8000)
        path = os.path.join(tmp, "grid.yaml")
        with open(path, "w") as f:
            f.write(_grid_yaml(tmp, base))
        ids = ["a0", "a1", "b0", "b1"]
        for nid in ids:
            d.start(nid, "--config", path, "--node", nid)
        socks = {nid: "ipc://%s/%s.sock" % (tmp, nid) for nid in ids}
        try:
            d.wait_sockets(socks.values())
            break
        except RuntimeError:
            d.stop_all()          # a port was taken: another draw
            d.procs.clear()
    else:
        raise RuntimeError("no 2x2 grid after 5 draws of ports")
    try:
        yield {"endpoints": socks, "daemons": d, "dir": tmp}
    finally:
        d.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def daemons():
    """Standalone satinds of one test: daemons.start(name, args...)."""
    tmp = tempfile.mkdtemp(prefix="satin-pytest-")
    os.chmod(tmp, 0o700)
    d = Daemons(tmp)
    try:
        yield d
    finally:
        d.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)
