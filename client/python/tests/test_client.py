"""The Python client against real daemons: a 2x2 grid for most tests,
standalone daemons where a node is killed."""
import asyncio
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import pytest

import satin
from conftest import BUILD

SUBMIT = os.path.join(BUILD, "satin-submit")


def test_a_job_exact(grid):
    with satin.Client(grid["endpoints"]["a0"]) as c:
        job = c.submit("fib", n=30, threshold=10)
        assert isinstance(job, concurrent.futures.Future)
        rep = job.result(60)
        assert rep.ok and rep.state == "ok" and rep.error == ""
        assert rep.result == {"value": 832040}
        assert rep.kind == "fib" and rep.params == {"n": "30", "threshold": "10"}
        assert isinstance(rep.stats["wall_s"], float) and rep.stats["records_run"] > 0
        # uts: the tree has one right size
        assert c.run("uts", tree="seed-T1", timeout=120).result["nodes"] == 50045


def test_refused_parameters_and_kinds(grid):
    with satin.Client(grid["endpoints"]["b1"]) as c:
        with pytest.raises(satin.BadParameters) as e:
            c.submit("fib", n="0x10")
        assert e.value.code == 3 and "n=0x10" in str(e.value)
        assert isinstance(e.value, satin.Rejected) and e.value.rc == "rejected"
        with pytest.raises(satin.BadParameters):
            c.submit("fib", n=30, nosuch=1)
        with pytest.raises(satin.UnknownKind) as e:
            c.submit("no-such-kind")
        assert e.value.code == 2
        with pytest.raises(satin.InvalidArgument):
            c.submit("fib", **{"": 1})
        with pytest.raises(satin.UnknownJob):
            c.cancel(987654)


def test_cancel(grid):
    with satin.Client(grid["endpoints"]["a1"]) as c:
        job = c.submit("synthetic", depth=1, fanout=1, dist="const", mean_us=600000000)
        deadline = time.monotonic() + 20
        while not any(j["job"] == job.job_id and j["state"] == "running" for j in c.list()):
            assert time.monotonic() < deadline, "the job never ran"
            time.sleep(0.05)
        assert job.cancel() is True
        assert job.cancelled()
        with pytest.raises(concurrent.futures.CancelledError):
            job.result(5)
        # the daemon ended it: cancelled, as --list says
        deadline = time.monotonic() + 20
        while True:
            mine = [j for j in c.list(all=True) if j["job"] == job.job_id]
            if mine and mine[0]["state"] == "cancelled":
                break
            assert time.monotonic() < deadline, mine
            time.sleep(0.05)
        # a finished job is not cancelled again: its result stays
        done = c.submit("fib", n=10)
        assert done.result(30).value == 55
        assert c.cancel(done.job_id) == satin.CancelState.FINISHED
        assert done.cancel() is False


def test_cancelled_by_another_raises_cancelled(grid):
    ep = grid["endpoints"]["b0"]
    with satin.Client(ep) as c:
        job = c.submit("synthetic", depth=1, fanout=1, dist="const", mean_us=600000000)
        subprocess.run([SUBMIT, "--socket", ep, "--cancel", str(job.job_id)], check=True,
                       stdout=subprocess.DEVNULL)
        with pytest.raises(satin.Cancelled) as e:
            job.result(30)
        assert e.value.report is not None and e.value.report.state == "cancelled"


def test_many_concurrent_futures(grid):
    with satin.Client(grid["endpoints"]["a0"]) as c:
        fib = [0, 1]
        while len(fib) < 30:
            fib.append(fib[-1] + fib[-2])
        jobs = [c.submit("fib", n=10 + i % 15) for i in range(200)]
        got = {j.job_id: j.result(120).value for j in concurrent.futures.as_completed(jobs, 180)}
        assert len(got) == 200
        assert all(got[j.job_id] == fib[10 + i % 15] for i, j in enumerate(jobs))

        # and from several threads at once, through one client
        def worker(k):
            return [c.submit("fib", n=k + m).result(120).value for m in range(10)]
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            res = list(pool.map(worker, range(8)))
        assert res == [[fib[k + m] for m in range(10)] for k in range(8)]


def test_asyncio(grid):
    async def main():
        with satin.Client(grid["endpoints"]["b1"]) as c:
            reports = await asyncio.gather(*(c.submit("nqueens", n=k) for k in (6, 7, 8)))
            return [r.result["solutions"] for r in reports]
    assert asyncio.run(main()) == [4, 40, 92]


def test_status_grid_kinds_list(grid):
    with satin.Client(grid["endpoints"]["a0"]) as c:
        st = c.status()
        assert st["grid_nodes"] == 4 and st["workers"] == 1
        nodes = c.grid_status()
        assert [(x["node"], x["cluster"], x["state"]) for x in nodes] == \
            [("a0", "A", "alive"), ("a1", "A", "alive"), ("b0", "B", "alive"), ("b1", "B", "alive")]
        assert all(x["workers"] == 1 for x in nodes)
        kinds = {k.name: k for k in c.kinds()}
        assert "fib" in kinds and "uts" in kinds
        n = [p for p in kinds["fib"].params if p.name == "n"][0]
        assert n.required and n.default is None
        job = c.submit("fib", n=20)
        job.result(30)
        mine = [j for j in c.list(all=True) if j["job"] == job.job_id][0]
        assert mine["kind"] == "fib" and mine["state"] == "ok" and mine["node"] == "a0"
        assert mine["params"] == {"n": "20"}


def test_names_and_the_grids_jobs(grid):
    eps = grid["endpoints"]
    with satin.Client(eps["b1"]) as b1, satin.Client(eps["a0"]) as a0:
        long = b1.submit_with("synthetic", {"depth": 1, "fanout": 1, "dist": "const",
                                            "mean_us": 600000000}, name="long on b1")
        assert long.name == "long on b1"
        done = a0.submit_with("fib", {"n": 21}, name="fib \u00e9t\u00e9").result(30)
        assert done.name == "fib \u00e9t\u00e9" and done.stats["job_name"] == "fib \u00e9t\u00e9"
        deadline = time.monotonic() + 20
        while True:
            jobs = a0.list(all=True, grid=True)
            mine = [j for j in jobs if j["node"] == "b1" and j["job"] == long.job_id]
            if mine and mine[0]["state"] == "running":
                break
            assert time.monotonic() < deadline, jobs
            time.sleep(0.05)
        assert mine[0]["name"] == "long on b1" and mine[0]["params"]["mean_us"] == "600000000"
        assert jobs.unanswered == []
        ours = [j for j in jobs if j["node"] == "a0" and j["name"] == "fib \u00e9t\u00e9"]
        assert len(ours) == 1 and ours[0]["state"] == "ok"
        # this node alone, without grid
        assert not any(j["node"] == "b1" for j in a0.list(all=True))
        # a job named with a control character, or 64 bytes, is refused before it is sent
        with pytest.raises(satin.InvalidArgument):
            a0.submit_with("fib", {"n": 1}, name="a\tb")
        with pytest.raises(satin.InvalidArgument):
            a0.submit_with("fib", {"n": 1}, name="x" * 64)
        assert long.cancel()


def test_data_and_modules(grid):
    """A job's data bytes and type, and each kind's module and version."""
    exact = os.path.join(BUILD, "bench", "raytracer_exact")
    with tempfile.TemporaryDirectory() as d:
        ppm = os.path.join(d, "exact.ppm")
        checksum = int(subprocess.run([exact, "--ppm", ppm, "64", "48", "3"], check=True,
                                      capture_output=True, text=True).stdout)
        with open(ppm, "rb") as f:
            want = f.read()
    assert want.startswith(b"P6\n64 48\n255\n") and len(want) == 13 + 3 * 64 * 48
    with satin.Client(grid["endpoints"]["b0"]) as c:
        rep = c.run("raytracer", width=64, height=48, tile=16, image=1, timeout=120)
        assert rep.ok and rep.result == {"checksum": checksum, "pixels": 64 * 48}
        assert rep.data_type == "image/x-portable-pixmap"
        assert isinstance(rep.data, bytes) and rep.data == want
        plain = c.run("raytracer", width=64, height=48, timeout=120)
        assert plain.result["checksum"] == checksum
        assert plain.data is None and plain.data_type is None
        version = subprocess.run([os.path.join(BUILD, "satind"), "--version"], check=True,
                                 capture_output=True, text=True).stdout.split()[1]
        kinds = {k.name: k for k in c.kinds()}
        assert (kinds["raytracer"].module, kinds["raytracer"].module_version) == \
            ("satin-kinds", version)
        assert all(k.module == "satin-kinds" for k in kinds.values())
        image = [p for p in kinds["raytracer"].params if p.name == "image"][0]
        assert image.default == "0" and not image.required


def test_wait_for_a_job_submitted_elsewhere(grid):
    ep = grid["endpoints"]["a1"]
    out = subprocess.run([SUBMIT, "--socket", ep, "--no-wait", "--parsable", "fib", "n=27"],
                         check=True, capture_output=True, text=True).stdout
    with satin.Client(ep) as c:
        rep = c.wait(int(out))
        assert rep.value == 196418
        with pytest.raises(satin.UnknownJob):
            c.wait(999999)


def test_profile(grid):
    with satin.Client(grid["endpoints"]["a0"]) as c:
        rep = c.submit_with("fib", {"n": 32, "threshold": 12}, profile=True).result(120)
        p = rep.profile
        assert p is not None and p.wall_ns > 0 and not p.bad
        assert sorted(x.node for x in p.nodes) == ["a0", "a1", "b0", "b1"]
        a0 = [x for x in p.nodes if x.node == "a0"][0]
        assert a0.workers == 1
        # The job ran somewhere; not always on a0: another node may steal
        # its root before a0's worker takes it (a loaded machine).
        assert sum(x.busy_ns() for x in p.nodes) > 0
        assert all(iv.end_ns <= p.wall_ns for x in p.nodes for ivs in x.busy().values()
                   for iv in ivs)
        assert not any(k.startswith("profile.") for k in rep.stats)


def test_the_example_runs(grid):
    """examples/sweep.py, as the README offers it, against the grid: its
    counts are exact (a renamed statistic once broke it unnoticed)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    eps = grid["endpoints"]
    r = subprocess.run([sys.executable, os.path.join(here, "examples", "sweep.py"), eps["a0"], eps["b0"]],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=here))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "connected to " + eps["a0"]
    assert lines[1] == "grid: a0(A) alive, a1(A) alive, b0(B) alive, b1(B) alive"
    solutions = {}
    for line in lines:
        if line.startswith("  nqueens n="):
            words = line.split()
            solutions[int(words[1][2:])] = int(words[2])
    assert solutions == {6: 4, 7: 40, 8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200}
    assert "sweep of 7 jobs:" in r.stdout
    assert "refused: " in r.stdout and "twelve" in r.stdout
    assert "uts T3 profiled: 4112897 nodes in " in r.stdout
    assert sum(1 for line in lines if "steal request(s) answered" in line) == 4
    assert lines[-1].startswith("the grid's jobs: [")


def test_dead_node_fails_over(daemons):
    tmp = daemons.tmp
    eps = ["ipc://%s/x.sock" % tmp, "ipc://%s/y.sock" % tmp]
    daemons.start("x", "--workers", "1", "--socket", eps[0])
    daemons.start("y", "--workers", "1", "--socket", eps[1])
    daemons.wait_sockets(eps)
    moves = []
    with satin.Client(eps, on_failover=lambda *a: moves.append(a)) as c:
        assert c.endpoint == eps[0]
        job = c.submit("synthetic", depth=2, fanout=2, dist="const", mean_us=400000)
        with satin.Client(eps[0]) as x:     # until it runs there
            deadline = time.monotonic() + 20
            while not any(j["state"] == "running" for j in x.list()):
                assert time.monotonic() < deadline, "the job never ran on x"
                time.sleep(0.02)
        daemons.kill("x")
        rep = job.result(60)
        assert rep.ok and rep.result["leaves"] == 4
        assert moves == [(job.job_id, eps[0], "connection lost", eps[1])]
        assert c.endpoint == eps[1]
        daemons.kill("y")
        with pytest.raises(satin.Unreachable) as e:
            c.submit("fib", n=5).result(30)
        assert "every endpoint failed" in str(e.value)


def test_unreachable():
    with pytest.raises(satin.Unreachable):
        satin.Client("ipc:///nonexistent/dir/s.sock")
    with pytest.raises(satin.InvalidArgument):
        satin.Client("http://nowhere")


def test_pip_installs_from_the_tree(tmp_path):
    """pip installs the package offline (Debian's setuptools, no index)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # A copy: setuptools writes build/ and *.egg-info where it builds.
    src = tmp_path / "src"
    shutil.copytree(here, src, ignore=shutil.ignore_patterns("tests", "__pycache__", "build",
                                                             "*.egg-info"))
    here = str(src)
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index",
                        "--no-build-isolation", "--no-deps", "--target", str(target), here],
                       capture_output=True, text=True,
                       env=dict(os.environ, PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1"))
    assert r.returncode == 0, r.stderr
    out = subprocess.run([sys.executable, "-c", "import satin, os; print(satin.__version__, "
                          "os.path.dirname(satin.__file__))"], capture_output=True, text=True,
                         cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=str(target)))
    assert out.stdout.split() == ["0.1.0", str(target / "satin")], out.stderr
    assert (target / "satin" / "py.typed").exists()
