"""The Python client of a Satin grid: :class:`Client` and :class:`Job`.

One :class:`Client` is one libsatin client (one connection to a satind, or
an ordered list of endpoints that jobs fail over along, as
``satin_client_new_multi`` does).  libsatin is not thread-safe, so every
call into it holds the client's lock; one thread of the client's own
collects the results of every job in flight and completes their futures.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, Generator, Iterable, List, Mapping, Optional, Sequence, Union

from . import _native as n
from .errors import (Cancelled, InvalidArgument, JobFailed, SatinError, Timeout, UnknownJob,
                     from_rc)
from .profile import Profile

Value = Union[int, float, str]

# How long the collecting thread waits on one job before it looks at the
# others again: replies for any job are read and kept meanwhile, so this
# bounds how late a finished job's future completes, not what is lost.
_POLL_MS = 20


@dataclass
class JobReport:
    """A finished job: what the daemon's RESULT says.

    ``state`` is ``"ok"``, ``"error"`` or ``"cancelled"`` (as
    :meth:`Client.list` names a finished job's state); ``result`` the kind's
    result and ``stats`` the run's statistics, both dicts in the daemon's
    order; ``profile`` the job's :class:`~satin.profile.Profile` when it was
    submitted with ``profile=True`` (its ``profile.*`` items are then left
    out of ``stats``); ``data`` the bytes the kind returned beside its
    result (raytracer ``image=1``'s PPM image) and ``data_type`` their type
    (``"image/x-portable-pixmap"``), None for both when the job has none."""
    job_id: int
    kind: str
    ok: bool
    error: str
    result: Dict[str, Value]
    stats: Dict[str, Value]
    name: str = ""
    params: Optional[Dict[str, str]] = None
    profile: Optional[Profile] = None
    data: Optional[bytes] = None
    data_type: Optional[str] = None

    @property
    def state(self) -> str:
        if self.ok:
            return "ok"
        return "cancelled" if self.error.startswith("cancelled") else "error"

    @property
    def value(self) -> Optional[Value]:
        """The result's only value, for kinds with one (fib's ``value``)."""
        return next(iter(self.result.values())) if len(self.result) == 1 else None


@dataclass
class KindParam:
    """One parameter of a job kind."""
    name: str
    required: bool
    default: Optional[str]
    help: str


@dataclass
class Kind:
    """A job kind the daemon runs (:meth:`Client.kinds`), with the module
    that brings it and that module's version."""
    name: str
    summary: str
    params: List[KindParam] = field(default_factory=list)
    module: str = ""
    module_version: str = ""


class JobList(list):
    """:meth:`Client.list`'s jobs (dicts); ``unanswered``: with ``grid``, the
    nodes whose list did not come."""
    unanswered: List[str] = []


class CancelState:
    """What :meth:`Client.cancel` found (the daemon's OK, PROTOCOL.md 6.8)."""
    STOPPING = "stopping"        # it was running: it is being stopped
    NOT_STARTED = "not_started"  # it waited for a slot: it ended without running
    FINISHED = "finished"        # it had finished: its result stays as it was


_CANCEL_STATES = {0: CancelState.STOPPING, 1: CancelState.NOT_STARTED, 2: CancelState.FINISHED}


def _param_text(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def params_from_text(text: Optional[str]) -> Optional[Dict[str, str]]:
    """A JOBS reply's parameter text (``"n=30 tree=T%203"``: pairs one space
    apart, ``%XX`` in values, PROTOCOL.md 6.14) as a dict; None stays None."""
    if text is None:
        return None
    out: Dict[str, str] = {}
    for word in text.split(" "):
        if not word:
            continue
        key, _, raw = word.partition("=")
        val, i = bytearray(), 0
        b = raw.encode("utf-8")
        while i < len(b):
            if b[i:i + 1] == b"%" and _is_hex(b[i + 1:i + 3]):
                val.append(int(b[i + 1:i + 3], 16))
                i += 3
            else:
                val.append(b[i])
                i += 1
        out[key] = val.decode("utf-8", "replace")
    return out


def _is_hex(b: bytes) -> bool:
    return len(b) == 2 and all(c in b"0123456789ABCDEFabcdef" for c in b)


class Job(concurrent.futures.Future):
    """A submitted job: a :class:`concurrent.futures.Future` whose result is
    the job's :class:`JobReport`, and awaitable from asyncio
    (``report = await job``).

    A job that fails makes the future raise :class:`~satin.JobFailed` (with
    ``.report``); one cancelled by :meth:`cancel` raises
    :class:`concurrent.futures.CancelledError`, one cancelled by someone else
    :class:`~satin.Cancelled`.  ``job_id`` is the client's id of the job (a
    failover client numbers its jobs 1, 2, ...); ``node_job_id`` the id the
    node in use knows it by (``satin-submit --wait`` takes it)."""

    def __init__(self, client: "Client", job_id: int, kind: str, params: Dict[str, str],
                 name: str):
        super().__init__()
        self._client = client
        self.job_id = job_id
        self.kind = kind
        self.params = params
        self.name = name
        self.progress: Optional[tuple] = None  # (elapsed_s, invocations) when asked for
        # While cancel() waits for the daemon's answer, the collector keeps a
        # "cancelled" outcome here instead of completing the future: the
        # RESULT may come before the CANCEL's own reply.
        self._cancelling = False
        self._held: Optional[BaseException] = None

    @property
    def node_job_id(self) -> int:
        return self._client._node_job_id(self.job_id)

    def cancel(self) -> bool:
        """Asks the daemon to stop the job.  True when it was running or
        waiting (the future is then cancelled), False when it had already
        finished (its result stays)."""
        if self.done():
            return False
        lock = self._client._lock
        with lock:
            self._cancelling = True
        try:
            state = self._client.cancel(self.job_id)
        finally:
            with lock:
                self._cancelling = False
                held, self._held = self._held, None
        if state == CancelState.FINISHED:
            # Someone else's cancel, or its own end, came first: as it was.
            if held is not None and not self.done():
                self.set_exception(held)
            return False
        self._client._forget(self.job_id)
        super().cancel()
        return True

    def __await__(self) -> Generator[Any, None, JobReport]:
        return asyncio.wrap_future(self).__await__()

    def __repr__(self) -> str:
        state = "done" if self.done() else "running"
        return "<satin.Job %d %s%s %s>" % (self.job_id, self.kind,
                                           " %r" % self.name if self.name else "", state)


class Client:
    """A client of a Satin grid.

    ``endpoints``: one endpoint (``"ipc:///path"``, a path, ``"tcp://host:port"``),
    a list of them to fail over along (a job whose node dies is submitted
    again, from scratch, to the next that answers; libsatin's guarantee,
    satin_client.h), or None for the default endpoint (``$SATIN_SOCKET``,
    else ``$XDG_RUNTIME_DIR/satin/satind.sock``, else
    ``/run/satin/satind.sock`` for root or ``/tmp/satin-UID/satind.sock``).
    Under CURVE, ``key`` is this client's key pair file and ``server_keys``
    the nodes' public keys (one per endpoint; a string for one endpoint).
    ``connect_timeout`` and ``request_timeout`` are in seconds.
    ``on_failover(job_id, from_endpoint, cause, to_endpoint)`` is called
    (from inside a call on the client) each time a job moves.

    Use it as a context manager, or call :meth:`close`: jobs still running
    keep running on the grid, their futures are left undone."""

    def __init__(self, endpoints: Union[None, str, Sequence[str]] = None, *,
                 key: Optional[str] = None, server_keys: Union[None, str, Sequence[str]] = None,
                 connect_timeout: Optional[float] = None,
                 request_timeout: Optional[float] = None, on_failover=None):
        self._lib = n.lib()
        self._lock = threading.RLock()
        self._jobs: Dict[int, Job] = {}
        self._wake = threading.Condition(self._lock)
        self._closed = False
        self._on_failover = on_failover
        err = n.Error()
        if connect_timeout is not None:
            self._lib.satin_client_set_connect_timeout(int(connect_timeout * 1000))
        if isinstance(endpoints, (list, tuple)):
            eps = list(endpoints)
            if not eps:
                raise InvalidArgument("no endpoint given")
            if key is not None:
                keys = [server_keys] if isinstance(server_keys, str) else list(server_keys or [])
                if len(keys) != len(eps):
                    raise InvalidArgument("server_keys needs one key per endpoint")
                self._c = self._lib.satin_client_new_multi_curve(
                    n.strv(eps), n.strv([k or "" for k in keys]), key.encode(), ctypes.byref(err))
            else:
                self._c = self._lib.satin_client_new_multi(n.strv(eps), ctypes.byref(err))
            self._failover = True
        else:
            ep = endpoints.encode() if endpoints else None
            if key is not None:
                if not isinstance(server_keys, str):
                    raise InvalidArgument("key needs server_keys: the node's public key")
                self._c = self._lib.satin_client_new_curve(ep, key.encode(), server_keys.encode(),
                                                           ctypes.byref(err))
            else:
                self._c = self._lib.satin_client_new(ep, ctypes.byref(err))
            self._failover = False
        if connect_timeout is not None:
            self._lib.satin_client_set_connect_timeout(0)
        if not self._c:
            raise from_rc(err.code, err)
        if request_timeout is not None:
            self._lib.satin_client_set_request_timeout(self._c, int(request_timeout * 1000))
        self._failover_cb = n.FAILOVER_FN(self._failover_event)
        self._lib.satin_client_set_failover_fn(self._c, self._failover_cb, None)
        self._progress_cb = n.PROGRESS_FN(self._progress_event)
        self._thread = threading.Thread(target=self._collect, name="satin-client", daemon=True)
        self._thread.start()

    # ---- life -------------------------------------------------------------------------------

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection.  Jobs keep running on the grid."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._wake.notify_all()
        self._thread.join()
        with self._lock:
            c = ctypes.c_void_p(self._c)
            self._lib.satin_client_destroy(ctypes.byref(c))
            self._c = None

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass

    @property
    def endpoint(self) -> str:
        """The endpoint of the node in use."""
        with self._lock:
            return n.text(self._lib.satin_client_endpoint(self._c)) or ""

    # ---- jobs -------------------------------------------------------------------------------

    def submit(self, kind: str, /, **params: Any) -> Job:
        """Submits one job of ``kind`` with ``params`` (``fib``, ``n=30``) and
        returns its :class:`Job` at once.  Raises :class:`~satin.UnknownKind`,
        :class:`~satin.BadParameters` (the kind's own check, in the daemon),
        :class:`~satin.LimitReached`, :class:`~satin.Unreachable`, ..."""
        return self.submit_with(kind, params)

    def submit_with(self, kind: str, params: Optional[Mapping[str, Any]] = None, *,
                    name: str = "", profile: bool = False, progress: bool = False) -> Job:
        """:meth:`submit` with its options: ``name`` names the job (shown by
        ``list`` and ``satin-submit --list``), ``profile`` records what
        every worker did (``report.profile``), ``progress`` keeps
        ``job.progress`` (elapsed seconds, invocations run) up to date."""
        texts = {str(k): _param_text(v) for k, v in (params or {}).items()}
        words = ["%s=%s" % kv for kv in texts.items()]
        flags = (n.FLAG_PROFILE if profile else 0) | (n.FLAG_PROGRESS if progress else 0)
        job_id = ctypes.c_uint64()
        err = n.Error()
        with self._lock:
            self._check_open()
            rc = self._lib.satin_client_submit_named(self._c, kind.encode(), n.strv(words), flags,
                                                     name.encode() if name else None,
                                                     ctypes.byref(job_id), ctypes.byref(err))
            if rc != n.OK:
                raise from_rc(rc, err)
            job = Job(self, job_id.value, kind, texts, name)
            self._jobs[job.job_id] = job
            self._wake.notify_all()
        return job

    def run(self, kind: str, /, timeout: Optional[float] = None, **params: Any) -> JobReport:
        """Submits a job and waits for its report (raises
        :class:`~satin.JobFailed` when it fails)."""
        return self.submit(kind, **params).result(timeout)

    def wait(self, job_id: int, timeout: Optional[float] = None) -> JobReport:
        """Waits for a job submitted elsewhere (another client, satin-submit)
        by its id on this client's node, and returns its report.  Raises
        :class:`~satin.UnknownJob`, :class:`~satin.Forbidden` (another's
        job), :class:`~satin.JobFailed`, :class:`~satin.Timeout`."""
        rep = n.Report()
        err = n.Error()
        with self._lock:
            self._check_open()
            rc = self._lib.satin_client_wait(self._c, job_id,
                                             -1 if timeout is None else int(timeout * 1000),
                                             ctypes.byref(rep), self._progress_cb, None,
                                             ctypes.byref(err))
            report = self._report(rep, None) if rc in (n.OK, n.JOB_FAILED) else None
            self._lib.satin_job_report_free(ctypes.byref(rep))
        if rc == n.OK:
            return report
        exc = from_rc(rc, err)
        if isinstance(exc, JobFailed):
            exc.report = report
        raise exc

    def cancel(self, job: Union[int, Job]) -> str:
        """Asks the daemon to cancel a job (a :class:`Job` or an id); returns
        what it found: a :class:`CancelState` value.  Raises
        :class:`~satin.UnknownJob` or :class:`~satin.Forbidden`."""
        job_id = job.job_id if isinstance(job, Job) else int(job)
        state = ctypes.c_int()
        err = n.Error()
        with self._lock:
            self._check_open()
            rc = self._lib.satin_client_cancel_job(self._c, job_id, ctypes.byref(state),
                                                   ctypes.byref(err))
        if rc != n.OK:
            raise from_rc(rc, err)
        return _CANCEL_STATES.get(state.value, CancelState.STOPPING)

    def list(self, all: bool = False, grid: bool = False) -> "JobList":
        """The daemon's jobs: unfinished ones as they came, then with ``all``
        the finished ones it keeps; with ``grid`` those of every live node of
        the grid.  Each job is a dict with the keys ``satin-submit --list
        --json`` gives (``job``, ``name``, ``kind``, ``owner``, ``node``,
        ``state``, ``params`` as a dict or None when another's, ``age_s``,
        ``run_s``, ``invocations``, ``error``).  With ``grid``, the ids of the
        nodes that did not answer within a second are the list's ``unanswered``."""
        arr = ctypes.POINTER(n.Values)()
        count = ctypes.c_size_t()
        err = n.Error()
        with self._lock:
            self._check_open()
            if grid:
                rc = self._lib.satin_client_list_grid(self._c, int(all), ctypes.byref(arr),
                                                      ctypes.byref(count), ctypes.byref(err))
            else:
                rc = self._lib.satin_client_list(self._c, int(all), ctypes.byref(arr),
                                                 ctypes.byref(count), ctypes.byref(err))
            if rc != n.OK:
                raise from_rc(rc, err)
            jobs = [n.values(arr[i]) for i in range(count.value)]
            self._lib.satin_client_jobs_free(arr, count)
        out = JobList(j for j in jobs if not j.get("unanswered"))
        out.unanswered = [str(j["node"]) for j in jobs if j.get("unanswered")]
        for j in out:
            j["params"] = params_from_text(j.get("params"))  # type: ignore[arg-type]
            j.setdefault("name", "")
        return out

    def status(self) -> Dict[str, Value]:
        """The daemon's state and counters (what ``satin-submit --status`` shows)."""
        v = n.Values()
        err = n.Error()
        with self._lock:
            self._check_open()
            rc = self._lib.satin_client_status(self._c, ctypes.byref(v), ctypes.byref(err))
            if rc != n.OK:
                raise from_rc(rc, err)
            out = n.values(v)
            self._lib.satin_client_values_free(ctypes.byref(v))
        return out

    def grid_status(self) -> List[Dict[str, Value]]:
        """Every node of the grid as the daemon sees it, in topology order:
        ``node``, ``cluster``, ``state`` (alive, suspected, dead, leaving,
        left), and the node's own figures when it answered (``workers``,
        ``workers_busy``, ``jobs_running``, ``steal_attempts``, ``wan_bytes``, ...)."""
        arr = ctypes.POINTER(n.Values)()
        count = ctypes.c_size_t()
        err = n.Error()
        with self._lock:
            self._check_open()
            rc = self._lib.satin_client_grid_status(self._c, ctypes.byref(arr),
                                                    ctypes.byref(count), ctypes.byref(err))
            if rc != n.OK:
                raise from_rc(rc, err)
            nodes = [n.values(arr[i]) for i in range(count.value)]
            self._lib.satin_client_jobs_free(arr, count)
        return nodes

    def kinds(self) -> List[Kind]:
        """The job kinds the daemon runs, with their parameters and defaults."""
        k = n.Kinds()
        err = n.Error()
        with self._lock:
            self._check_open()
            rc = self._lib.satin_client_list_kinds(self._c, ctypes.byref(k), ctypes.byref(err))
            if rc != n.OK:
                raise from_rc(rc, err)
            out = []
            for i in range(k.n):
                kd = k.items[i]
                params = [KindParam(n.text(p.name), bool(p.required),
                                    n.text(p.default) if p.has_default else None, n.text(p.help))
                          for p in (kd.params[j] for j in range(kd.nparams))]
                out.append(Kind(n.text(kd.name), n.text(kd.summary), params,
                                n.text(kd.module) or "", n.text(kd.module_version) or ""))
            self._lib.satin_client_kinds_free(ctypes.byref(k))
        return out

    # ---- inside -----------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed or not self._c:
            raise SatinError("the client is closed")

    def _node_job_id(self, job_id: int) -> int:
        with self._lock:
            return int(self._lib.satin_client_node_job_id(self._c, job_id)) if self._c else 0

    def _forget(self, job_id: int) -> None:
        with self._lock:
            self._jobs.pop(job_id, None)

    def _report(self, rep: "n.Report", job: Optional[Job]) -> JobReport:
        stats = n.values(rep.stats)
        profile = Profile.from_stats(stats)
        if profile is not None:
            stats = {k: v for k, v in stats.items() if not k.startswith("profile.")}
        data_type = n.text(rep.data_type) or None
        # A copy: the report's bytes are freed with it.
        data = ctypes.string_at(rep.data, rep.data_len) if data_type else None
        return JobReport(int(rep.job_id), n.text(rep.kind) or "", bool(rep.ok),
                         n.text(rep.error) or "", n.values(rep.result), stats,
                         name=job.name if job else str(stats.get("job_name", "")),
                         params=dict(job.params) if job else None, profile=profile,
                         data=data, data_type=data_type)

    def _progress_event(self, job_id, elapsed_ms, jobs_run, _arg) -> None:
        job = self._jobs.get(int(job_id))
        if job is not None:
            job.progress = (elapsed_ms / 1000.0, int(jobs_run))

    def _failover_event(self, ev, _arg) -> None:
        if self._on_failover is not None:
            e = ev.contents
            try:
                self._on_failover(int(e.job_id), n.text(e.from_), n.text(e.cause), n.text(e.to))
            except Exception:  # a callback's error must not unwind through C
                pass

    def _collect(self) -> None:
        """The collecting thread: waits on the jobs in flight in turn, a short
        while each, and completes each future as its RESULT comes."""
        while True:
            with self._lock:
                while not self._jobs and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                ids = list(self._jobs)
                for i, job_id in enumerate(ids):
                    # Every job is asked at once but the first, which is
                    # waited for a little: replies meanwhile are kept.
                    self._wait_one(job_id, _POLL_MS if i == len(ids) - 1 else 0)

    def _wait_one(self, job_id: int, timeout_ms: int) -> None:
        job = self._jobs.get(job_id)
        if job is None:
            return
        rep = n.Report()
        err = n.Error()
        rc = self._lib.satin_client_wait(self._c, job_id, timeout_ms, ctypes.byref(rep),
                                         self._progress_cb, None, ctypes.byref(err))
        if rc == n.TIMEOUT:
            return
        report = self._report(rep, job) if rc in (n.OK, n.JOB_FAILED) else None
        self._lib.satin_job_report_free(ctypes.byref(rep))
        del self._jobs[job_id]
        if job.cancelled():
            return
        if rc == n.OK:
            job.set_result(report)
            return
        exc = from_rc(rc, err)
        if isinstance(exc, JobFailed):
            exc.report = report
        if job._cancelling and isinstance(exc, Cancelled):
            job._held = exc   # Job.cancel decides (under the lock we hold)
            return
        job.set_exception(exc)
