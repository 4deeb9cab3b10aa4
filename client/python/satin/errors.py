"""libsatin's failures as exception classes.

Every call that talks to a daemon raises a subclass of :class:`SatinError`
when libsatin returns something other than ``SATIN_CLIENT_OK``:

- :class:`Rejected` (the daemon answered ERROR; ``code`` is the SGP/1 error
  code) and its subclasses, one per code: :class:`UnknownKind`,
  :class:`BadParameters`, :class:`TooLarge`, :class:`UnknownJob`,
  :class:`ShuttingDown`, :class:`LimitReached`, :class:`Forbidden`,
  :class:`UnsupportedVersion`, :class:`BadMessage`;
- :class:`JobFailed` (the job ran and failed; :class:`Cancelled` when it was
  cancelled), with the job's report;
- :class:`Unreachable`, :class:`Timeout`, :class:`ProtocolError`;
- :class:`InvalidArgument` (also a :class:`ValueError`): nothing was sent.
"""
from __future__ import annotations

from typing import Optional, TYPE_CHECKING

from . import _native as n

if TYPE_CHECKING:  # pragma: no cover
    from .client import JobReport


class SatinError(Exception):
    """A libsatin call failed.  ``rc`` is libsatin's satin_client_rc name
    ("rejected", "unreachable", ...), ``code`` the SGP/1 error code (0 when
    the daemon sent none), ``message`` libsatin's or the daemon's text."""

    rc = "error"

    def __init__(self, message: str, code: int = 0):
        super().__init__(message)
        self.message = message
        self.code = code


class Rejected(SatinError):
    """The daemon refused the request (an SGP/1 ERROR)."""
    rc = "rejected"


class BadMessage(Rejected):
    """SGP/1 code 1: the daemon found the request malformed."""


class UnknownKind(Rejected):
    """SGP/1 code 2: the daemon has no such job kind."""


class BadParameters(Rejected):
    """SGP/1 code 3: the kind refused the parameters (the text says which)."""


class TooLarge(Rejected):
    """SGP/1 code 4: the record is larger than the daemon takes."""


class UnknownJob(Rejected):
    """SGP/1 code 5: the daemon does not know the job (any more)."""


class ShuttingDown(Rejected):
    """SGP/1 code 6: the daemon is stopping and takes no new work."""


class LimitReached(Rejected):
    """SGP/1 code 7: the daemon's job or connection limits are reached; try later."""


class UnsupportedVersion(Rejected):
    """SGP/1 code 8: the daemon speaks another protocol version."""


class Forbidden(Rejected):
    """SGP/1 code 9: this client may not do that (another's job, a key not listed)."""


class JobFailed(SatinError):
    """The job ran and failed; ``report`` is its :class:`~satin.JobReport`
    (``report.error`` the daemon's text, ``report.stats`` the run's)."""
    rc = "job_failed"

    def __init__(self, message: str, report: "Optional[JobReport]" = None):
        super().__init__(message)
        self.report = report


class Cancelled(JobFailed):
    """The job was cancelled (by request, or because satind stopped)."""


class Unreachable(SatinError):
    """No daemon answered at the endpoint(s), or the connection was lost."""
    rc = "unreachable"


class Timeout(SatinError):
    """The caller's timeout expired; the job keeps running on the daemon."""
    rc = "timeout"


class ProtocolError(SatinError):
    """The daemon sent something SGP/1 does not allow."""
    rc = "protocol"


class InvalidArgument(SatinError, ValueError):
    """The arguments were bad (a malformed endpoint, a bad parameter name);
    nothing was sent."""
    rc = "invalid"


_BY_CODE = {1: BadMessage, 2: UnknownKind, 3: BadParameters, 4: TooLarge, 5: UnknownJob,
            6: ShuttingDown, 7: LimitReached, 8: UnsupportedVersion, 9: Forbidden}


def from_rc(rc: int, err: "n.Error") -> SatinError:
    """The exception for a libsatin return code and its satin_client_error."""
    msg = err.text.decode("utf-8", "replace")
    if rc == n.REJECTED:
        return _BY_CODE.get(err.proto_code, BadMessage)(msg, err.proto_code)
    if rc == n.JOB_FAILED:
        return (Cancelled if msg.startswith("cancelled") else JobFailed)(msg)
    cls = {n.UNREACHABLE: Unreachable, n.TIMEOUT: Timeout, n.PROTOCOL: ProtocolError,
           n.INVALID: InvalidArgument}.get(rc, SatinError)
    return cls(msg, err.proto_code)
