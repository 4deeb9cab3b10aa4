"""The ctypes binding of libsatin (client/satin_client.h): its types and
functions, and where the library is found.

Nothing here is public: :mod:`satin.client` wraps it.  The structures
mirror satin_client.h field by field; its numbers (satin_client_rc, the
SGP/1 error codes, the value types) are part of libsatin's API, and so
are copied here.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
from typing import Optional

# satin_client_rc
OK, REJECTED, JOB_FAILED, UNREACHABLE, TIMEOUT, PROTOCOL, INVALID = range(7)
# satin_client_value_type
I64, F64, STR = 1, 2, 3
# satin_client_submit() flags
FLAG_PROGRESS = 0x1
FLAG_PROFILE = 0x2
DEFAULT_TIMEOUT_MS = 5000


class Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("proto_code", ctypes.c_int),
                ("text", ctypes.c_char * 512)]


class Value(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("i64", ctypes.c_int64),
                ("f64", ctypes.c_double), ("str", ctypes.c_char_p)]


class Values(ctypes.Structure):
    _fields_ = [("n", ctypes.c_size_t), ("items", ctypes.POINTER(Value))]


class Report(ctypes.Structure):
    _fields_ = [("job_id", ctypes.c_uint64), ("kind", ctypes.c_char * 64), ("ok", ctypes.c_int),
                ("error", ctypes.c_char_p), ("result", Values), ("stats", Values),
                ("data_type", ctypes.c_char_p), ("data", ctypes.POINTER(ctypes.c_ubyte)),
                ("data_len", ctypes.c_size_t)]


class KindParam(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("required", ctypes.c_int),
                ("has_default", ctypes.c_int), ("default", ctypes.c_char_p),
                ("help", ctypes.c_char_p)]


class Kind(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("summary", ctypes.c_char_p),
                ("nparams", ctypes.c_size_t), ("params", ctypes.POINTER(KindParam)),
                ("module", ctypes.c_char_p), ("module_version", ctypes.c_char_p)]


class Kinds(ctypes.Structure):
    _fields_ = [("n", ctypes.c_size_t), ("items", ctypes.POINTER(Kind))]


class Failover(ctypes.Structure):
    _fields_ = [("job_id", ctypes.c_uint64), ("node_job_id", ctypes.c_uint64),
                ("from_", ctypes.c_char_p), ("cause", ctypes.c_char_p), ("to", ctypes.c_char_p)]


PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64,
                               ctypes.c_void_p)
FAILOVER_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(Failover), ctypes.c_void_p)

_P = ctypes.c_void_p
_E = ctypes.POINTER(Error)
_STRV = ctypes.POINTER(ctypes.c_char_p)
_SIGNATURES = {
    "satin_client_set_connect_timeout": (None, [ctypes.c_int]),
    "satin_client_new": (_P, [ctypes.c_char_p, _E]),
    "satin_client_new_curve": (_P, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, _E]),
    "satin_client_new_multi": (_P, [_STRV, _E]),
    "satin_client_new_multi_curve": (_P, [_STRV, _STRV, ctypes.c_char_p, _E]),
    "satin_client_set_failover_fn": (None, [_P, FAILOVER_FN, _P]),
    "satin_client_destroy": (None, [ctypes.POINTER(_P)]),
    "satin_client_endpoint": (ctypes.c_char_p, [_P]),
    "satin_client_node_job_id": (ctypes.c_uint64, [_P, ctypes.c_uint64]),
    "satin_client_set_request_timeout": (None, [_P, ctypes.c_int]),
    "satin_client_submit": (ctypes.c_int, [_P, ctypes.c_char_p, _STRV, ctypes.c_uint,
                                           ctypes.POINTER(ctypes.c_uint64), _E]),
    "satin_client_submit_named": (ctypes.c_int, [_P, ctypes.c_char_p, _STRV, ctypes.c_uint,
                                                 ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64),
                                                 _E]),
    "satin_client_list_grid": (ctypes.c_int, [_P, ctypes.c_int,
                                              ctypes.POINTER(ctypes.POINTER(Values)),
                                              ctypes.POINTER(ctypes.c_size_t), _E]),
    "satin_client_wait": (ctypes.c_int, [_P, ctypes.c_uint64, ctypes.c_int,
                                         ctypes.POINTER(Report), PROGRESS_FN, _P, _E]),
    "satin_client_cancel_job": (ctypes.c_int, [_P, ctypes.c_uint64,
                                               ctypes.POINTER(ctypes.c_int), _E]),
    "satin_client_list": (ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(ctypes.POINTER(Values)),
                                         ctypes.POINTER(ctypes.c_size_t), _E]),
    "satin_client_grid_status": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.POINTER(Values)),
                                                ctypes.POINTER(ctypes.c_size_t), _E]),
    "satin_client_jobs_free": (None, [ctypes.POINTER(Values), ctypes.c_size_t]),
    "satin_client_status": (ctypes.c_int, [_P, ctypes.POINTER(Values), _E]),
    "satin_client_values_free": (None, [ctypes.POINTER(Values)]),
    "satin_client_list_kinds": (ctypes.c_int, [_P, ctypes.POINTER(Kinds), _E]),
    "satin_client_kinds_free": (None, [ctypes.POINTER(Kinds)]),
    "satin_job_report_free": (None, [ctypes.POINTER(Report)]),
    "satin_client_rc_name": (ctypes.c_char_p, [ctypes.c_int]),
}


def _candidates() -> list:
    """Where libsatin may be, in the order tried: $SATIN_LIBRARY, the
    directory `make install` recorded, the build tree this file sits in,
    then the dynamic linker's own search."""
    out = []
    env = os.environ.get("SATIN_LIBRARY")
    if env:
        out.append(env)
    try:
        from . import _installed  # written by make install
        out.append(os.path.join(_installed.LIBDIR, "libsatin.so.1"))
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.path.join(here, "..", "..", "..", "build", "libsatin.so.1.1.0")
    if os.path.exists(build):
        out.append(os.path.normpath(build))
    found = ctypes.util.find_library("satin")
    if found:
        out.append(found)
    out.append("libsatin.so.1")
    return out


_lib: Optional[ctypes.CDLL] = None


def lib() -> ctypes.CDLL:
    """libsatin, loaded once, with every function's signature set."""
    global _lib
    if _lib is not None:
        return _lib
    errors = []
    for path in _candidates():
        try:
            handle = ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
            continue
        for name, (res, args) in _SIGNATURES.items():
            fn = getattr(handle, name)
            fn.restype = res
            fn.argtypes = args
        _lib = handle
        return handle
    raise OSError("cannot load libsatin (set SATIN_LIBRARY to its path): " + "; ".join(errors))


def text(b: Optional[bytes]) -> Optional[str]:
    return None if b is None else b.decode("utf-8", "replace")


def values(v: Values) -> dict:
    """A satin_client_values as a dict in the daemon's order."""
    out = {}
    for i in range(v.n):
        item = v.items[i]
        if item.type == I64:
            out[text(item.name)] = int(item.i64)
        elif item.type == F64:
            out[text(item.name)] = float(item.f64)
        else:
            out[text(item.name)] = text(item.str)
    return out


def strv(items) -> ctypes.Array:
    """A NULL-terminated char *[] of `items` (str)."""
    arr = (ctypes.c_char_p * (len(items) + 1))()
    for i, s in enumerate(items):
        arr[i] = s.encode("utf-8")
    arr[len(items)] = None
    return arr
