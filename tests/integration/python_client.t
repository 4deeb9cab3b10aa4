#!/usr/bin/env bash
# python_client.t - the Python client (client/python) under pytest against
# real daemons, as TAP: one line per pytest test, from its JUnit report.
# The daemons are the tests' own (client/python/tests/conftest.py: a 2x2
# grid and standalone ones, stopped by their pids).  Debian's python3 and
# python3-pytest (make check installs them).
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
if ! "$py" -c 'import pytest' 2>/dev/null; then
    echo "1..0 # SKIP Debian's python3-pytest is not installed (make check installs it)"
    exit 0
fi
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-pyclient.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT
cd "$repo/client/python" || exit 1
# A sanitizer build's libsatin needs its runtime loaded first into python3
# (and python3's own allocations are not this project's leaks).
pyenv=()
if nm -D "$build/libsatin.so.1.1.0" 2>/dev/null | grep -q __asan_; then
    pyenv=(LD_PRELOAD="$(cc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0)
elif nm -D "$build/libsatin.so.1.1.0" 2>/dev/null | grep -q __tsan_; then
    pyenv=(LD_PRELOAD="$(cc -print-file-name=libtsan.so)")
fi
env "${pyenv[@]}" SATIN_BUILD=$build SATIN_LIBRARY=$build/libsatin.so.1.1.0 PYTHONDONTWRITEBYTECODE=1 \
    "$py" -m pytest -q -p no:cacheprovider --junitxml="$tmpdir/junit.xml" tests \
    >"$tmpdir/pytest.out" 2>&1
rc=$?
"$py" - "$tmpdir/junit.xml" "$tmpdir/pytest.out" "$rc" <<'PY'
import sys
import xml.etree.ElementTree as ET
path, out, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    cases = list(ET.parse(path).getroot().iter("testcase"))
except (OSError, ET.ParseError) as e:
    print("Bail out! pytest gave no report (exit %d): %s" % (rc, e))
    for line in open(out, errors="replace"):
        print("# " + line.rstrip())
    sys.exit(1)
failed = 0
for i, c in enumerate(cases, 1):
    name = "%s::%s" % (c.get("classname", ""), c.get("name"))
    bad = c.find("failure") if c.find("failure") is not None else c.find("error")
    if c.find("skipped") is not None:
        print("ok %d - %s # skip %s" % (i, name, c.find("skipped").get("message", "")))
    elif bad is not None:
        failed += 1
        print("not ok %d - %s" % (i, name))
        for line in (bad.text or bad.get("message", "")).splitlines():
            print("#   " + line)
    else:
        print("ok %d - %s" % (i, name))
print("1..%d" % len(cases))
sys.exit(1 if failed or (rc not in (0, 1)) else 0)
PY
