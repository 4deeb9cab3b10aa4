# python.sh DIR - sourced by the shell tests (through tap.sh) and the
# benchmarks, which read satin-submit's JSON with python3.  A version
# manager's python3 is a shell shim that costs a second or more per call on
# a loaded machine: enough to let a job end before a test kills its node,
# or to add to a benchmark's timings.  The interpreter is resolved once and
# linked as DIR/python/python3, first in PATH (a link, not a shell
# function, so that `python3 ... &` leaves the interpreter's own pid in $!).
if [ -z "${SATIN_PYTHON:-}" ]; then
    SATIN_PYTHON=$(command python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
    export SATIN_PYTHON
fi
if [ -n "$SATIN_PYTHON" ] && mkdir -p "$1/python" && ln -sf "$SATIN_PYTHON" "$1/python/python3"; then
    PATH=$1/python:$PATH
fi
