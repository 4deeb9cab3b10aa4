# python.sh - sourced by the shell tests (through tap.sh) and the benchmarks,
# which read satin-submit's JSON with python3.  A version manager's python3
# is a shell shim that costs a second or more per call on a loaded machine:
# enough to let a job end before a test kills its node, or to add to a
# benchmark's timings.  The interpreter is resolved once; python3 below is
# that interpreter.
if [ -z "${SATIN_PYTHON:-}" ]; then
    SATIN_PYTHON=$(command python3 -c 'import sys; print(sys.executable)' 2>/dev/null) ||
        SATIN_PYTHON=python3
    export SATIN_PYTHON
fi
python3() { "$SATIN_PYTHON" "$@"; }
