"""satin - the Python client of a Satin grid, over libsatin.

    import satin
    with satin.Client("ipc:///tmp/g/a0.sock") as c:
        job = c.submit("fib", n=30)             # a concurrent.futures.Future
        print(job.result().result["value"])     # 832040
        # or, in a coroutine: report = await c.submit("uts", tree="T1L")

See :class:`Client` for the calls (submit, wait, cancel, list, status,
grid_status, kinds) and :mod:`satin.errors` for the exceptions.
"""
from .client import CancelState, Client, Job, JobReport, Kind, KindParam, params_from_text
from .errors import (BadMessage, BadParameters, Cancelled, Forbidden, InvalidArgument,
                     JobFailed, LimitReached, ProtocolError, Rejected, SatinError, ShuttingDown,
                     Timeout, TooLarge, Unreachable, UnknownJob, UnknownKind, UnsupportedVersion)
from .profile import Interval, NodeProfile, Profile

__version__ = "0.1.0"

__all__ = [
    "Client", "Job", "JobReport", "Kind", "KindParam", "CancelState", "params_from_text",
    "Profile", "NodeProfile", "Interval",
    "SatinError", "Rejected", "BadMessage", "UnknownKind", "BadParameters", "TooLarge",
    "UnknownJob", "ShuttingDown", "LimitReached", "UnsupportedVersion", "Forbidden",
    "JobFailed", "Cancelled", "Unreachable", "Timeout", "ProtocolError", "InvalidArgument",
]
