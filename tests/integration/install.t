#!/usr/bin/env bash
# install.t - make install into a DESTDIR: exactly the expected files with
# their modes; the pkg-config file compiles and links a program against the
# installed libsatin: libsatin.so has its soname and exports exactly the
# functions of satin_client.h, a program built with `pkg-config --cflags
# --libs satin` runs on the .so against a real satind, one built with
# `pkg-config --static` takes libsatin.a; the systemd units pass systemd-analyze verify; the
# sysusers and tmpfiles snippets make the satin user and its directories;
# every man page matches its program's --help; another PREFIX rewrites the
# units' paths; an existing /etc/default/satind survives a reinstall; make
# uninstall leaves only the configuration.
#
# It never builds: when the build in SATIN_BUILD is older than the sources it
# skips (build first), so that it cannot race a build that runs beside it.
#
# Run from the repo root:  SATIN_BUILD=$PWD/build prove --exec '' tests/integration/install.t
set -u

build=${SATIN_BUILD:-$PWD/build}
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-install.XXXXXX")
root=$tmpdir/root
pid=""    # the installed satind the programs linked against libsatin talk to

cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM    # so that the EXIT trap runs on ^C too

. "$(dirname "$0")/tap.sh"


# The build directory as the Makefile named it (build, not /.../build), so
# that the header dependencies it recorded apply.
mkbuild=$(realpath --relative-to="$repo" "$build" 2>/dev/null || echo "$build")
case $mkbuild in ../*) mkbuild=$build ;; esac

# make in the repo, with only our variables: a parent make's MAKEFLAGS
# (say PREFIX= from its command line) must not leak in.
mk() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEFILES \
        make -s --no-print-directory -C "$repo" BUILD="$mkbuild" "$@"
}

products=("$build/satind" "$build/satin-submit" "$build/satin-wanem" "$build/satin-keygen" "$build/satin-sim"
          "$build/libsatin.a" "$build/libsatin.so.1.1.0")
for f in "${products[@]}"; do
    [ -e "$f" ] || { echo "Bail out! $f is missing (build it, or set SATIN_BUILD)"; exit 1; }
done
if ! mk -q "${products[@]/#$build/$mkbuild}" 2>/dev/null; then
    echo "1..0 # SKIP the build in $build is older than the sources: run make first"
    exit 0
fi

# ---- make install PREFIX=/usr -------------------------------------------------------

run mk install PREFIX=/usr DESTDIR="$root"
is "$rc" 0 "make install PREFIX=/usr DESTDIR=... exits 0"

# Every file with its mode and every link with its target, sorted by path.
listing() {
    (cd "$1" && find . \( -type f -printf '%m %P\n' \) -o \( -type l -printf 'link %P -> %l\n' \) |
        LC_ALL=C sort -k2)
}
expected="644 etc/default/satind
644 etc/satin/grid.yaml.example
755 usr/bin/satin-grid
755 usr/bin/satin-keygen
755 usr/bin/satin-sim
755 usr/bin/satin-slurm
755 usr/bin/satin-submit
755 usr/bin/satin-trace
755 usr/bin/satin-wanem
755 usr/bin/satind
644 usr/include/satin/satin.h
644 usr/include/satin/satin_client.h
644 usr/lib/libsatin.a
link usr/lib/libsatin.so -> libsatin.so.1.1.0
link usr/lib/libsatin.so.1 -> libsatin.so.1.1.0
644 usr/lib/libsatin.so.1.1.0
644 usr/lib/pkgconfig/satin-kind.pc
644 usr/lib/pkgconfig/satin.pc
644 usr/lib/python3/dist-packages/satin/__init__.py
644 usr/lib/python3/dist-packages/satin/_installed.py
644 usr/lib/python3/dist-packages/satin/_native.py
644 usr/lib/python3/dist-packages/satin/client.py
644 usr/lib/python3/dist-packages/satin/errors.py
644 usr/lib/python3/dist-packages/satin/profile.py
644 usr/lib/python3/dist-packages/satin/py.typed
644 usr/lib/satin/kinds/satin-kinds.so
644 usr/lib/systemd/system/satind.service
644 usr/lib/systemd/system/satind@.service
644 usr/lib/sysusers.d/satin.conf
644 usr/lib/tmpfiles.d/satin.conf
644 usr/share/bash-completion/completions/satin-grid
644 usr/share/bash-completion/completions/satin-keygen
644 usr/share/bash-completion/completions/satin-sim
644 usr/share/bash-completion/completions/satin-slurm
644 usr/share/bash-completion/completions/satin-submit
644 usr/share/bash-completion/completions/satin-trace
644 usr/share/bash-completion/completions/satin-wanem
644 usr/share/bash-completion/completions/satind
644 usr/share/man/man1/satin-grid.1
644 usr/share/man/man1/satin-keygen.1
644 usr/share/man/man1/satin-sim.1
644 usr/share/man/man1/satin-slurm.1
644 usr/share/man/man1/satin-submit.1
644 usr/share/man/man1/satin-trace.1
644 usr/share/man/man1/satin-wanem.1
644 usr/share/man/man3/satin-kind.3
644 usr/share/man/man8/satind.8"
is "$(listing "$root")" "$expected" "exactly the expected files, with their modes"
is "$(stat -c %a "$root/etc/satin/keys" 2>&1)" 700 "the keys directory is made 0700"
is "$(ls "$root/usr/include/satin" 2>&1 | grep -E '^satin_(kv|proto|wire|endpoint|steal_flags)\.h$')" "" \
    "the codec's headers are not installed"
is "$(grep -h '^#include' "$root"/usr/include/satin/*.h | grep -v '^#include <[a-z]*\.h>$')" "" \
    "the installed headers include only libc's"

same=yes
for u in satind.service satind@.service; do
    cmp -s "$repo/deploy/$u" "$root/usr/lib/systemd/system/$u" || same=no
done
cmp -s "$repo/deploy/satin.tmpfiles" "$root/usr/lib/tmpfiles.d/satin.conf" || same=no
is "$same" yes "with PREFIX=/usr the units and tmpfiles.d are deploy/'s, unchanged"

run "$root/usr/bin/satind" --check-config "$root/etc/satin/grid.yaml.example"
is "$rc" 0 "the example topology passes satind --check-config"

# ---- libsatin.so: its soname and what it exports ----------------------------------

so=$root/usr/lib/libsatin.so.1.1.0
# The functions a header declares: prototypes begin in column 0; typedefs of
# function types and the inline functions it defines itself are not called
# out of the header.
declared() {
    grep -E '^[a-z]' "$1" | grep -vE '^(typedef|static inline)' | grep -oE '\bsatin_[a-z0-9_]+\(' |
        tr -d '(' | LC_ALL=C sort -u
}
# A library's dynamic symbols that it defines: "TYPE NAME".
exported() { nm -D --defined-only "$1" 2>&1 | awk '{print $2, $3}' | LC_ALL=C sort -k2; }
if command -v readelf >/dev/null && command -v nm >/dev/null; then
    is "$(readelf -d "$so" 2>&1 | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')" libsatin.so.1 \
        "readelf -d: libsatin.so.1.1.0's soname is libsatin.so.1"
    api=$(declared "$root/usr/include/satin/satin_client.h")
    gt "$(echo "$api" | grep -c .)" 20 "the installed satin_client.h declares the client API's functions"
    is "$(exported "$so")" \
        "$( (echo "A LIBSATIN_1"; echo "$api" | sed 's/^/T /; s/$/@@LIBSATIN_1/') | LC_ALL=C sort -k2)" \
        "libsatin.so exports exactly satin_client.h's functions, each at version LIBSATIN_1"
    # The library's own helpers, all global in the archive's objects.
    internal='^(satin_(msg|wire|kvlist|json|endpoint|zframes|digest)_|client_|failover_)'
    gt "$(nm -g --defined-only "$root/usr/lib/libsatin.a" 2>/dev/null | awk '$2 == "T" {print $3}' |
          grep -cE "$internal")" 50 "libsatin.a holds the codec, the JSON writer and the client's internals"
    is "$(nm -D --defined-only "$so" 2>&1 | awk '{print $3}' | grep -E "$internal")" "" \
        "nm -D --defined-only: libsatin.so exports none of them (satin_msg_encode, client_request, ...)"
    # satin.h is the kinds' API: kinds are modules, and the programs that
    # load them export what the header calls (the inline spawn's out-of-line
    # halves included) to them, as dynamic symbols.
    kindapi=$(declared "$root/usr/include/satin/satin.h")
    like "$kindapi" "satin__spawn_queued" "satin.h calls satin__spawn_queued (the queued spawn's path)"
    for p in satind satin-sim satin-trace; do
        is "$(comm -23 <(echo "$kindapi") \
                <(nm -D --defined-only "$root/usr/bin/$p" 2>/dev/null | awk '$2 == "T" {print $3}' |
                  LC_ALL=C sort -u))" "" \
            "the installed $p exports every function satin.h declares or calls"
    done
    is "$(nm -D --defined-only "$root/usr/bin/satind" 2>/dev/null | awk '{print $3}' | grep -c '^satin__hot$')" 1 \
        "and satind exports the spawn's thread-local limit, satin__hot"
    is "$(comm -12 <(echo "$kindapi") <(exported "$so" | awk '{sub(/@.*/, "", $2); print $2}' |
            LC_ALL=C sort -u))" "" \
        "and libsatin exports none of them: satin.h is satind's API, not libsatin's"
else
    for _ in 1 2 3 4 5 6 7 8 9 10 11; do skip "readelf or nm is not installed"; done
fi

# ---- pkg-config and programs linked against libsatin --------------------------------

pc() {
    PKG_CONFIG_PATH=$root/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root pkg-config "$@"
}
# Its arguments as single-spaced words (pkgconf ends its output with a blank).
words() { echo "$*"; }
# The satin, CZMQ and libzmq libraries a program was linked to (readelf's NEEDED).
needed() {
    readelf -d "$1" 2>&1 | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | grep -E '^lib(satin|czmq|zmq)\.'
}
if command -v pkg-config >/dev/null && command -v cc >/dev/null && command -v readelf >/dev/null; then
    is "$(pc --modversion satin 2>&1)" "$("$build/satind" --version | awk '{print $2}')" \
        "pkg-config --modversion satin is satind's version"
    # (pkgconf puts the sysroot in front of variables too, pkg-config 0.29 does not.)
    prefix=$(pc --variable=prefix satin 2>&1)
    is "${prefix#"$root"}" /usr "the .pc's prefix is /usr"
    # shellcheck disable=SC2046  # the flags are words
    flags=$(words $(pc --cflags --libs satin 2>&1))
    like "$flags" "-L$root/usr/lib -lsatin" "pkg-config --libs satin names the installed library"
    is "$flags" "-I$root/usr/include -L$root/usr/lib -lsatin" \
        "pkg-config --cflags --libs satin gives its -I, -L and -lsatin alone (no CZMQ or libzmq flags)"
    # shellcheck disable=SC2046
    static_libs=$(words $(pc --static --libs satin 2>&1))
    is "$static_libs" "-L$root/usr/lib -lsatin -lczmq -lzmq" \
        "pkg-config --static --libs satin adds what libsatin.a calls: CZMQ and libzmq"
    cat >"$tmpdir/prog.c" <<'EOF'
#include <satin/satin_client.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    satin_client_error err;
    satin_client *c = satin_client_new(argc > 1 ? argv[1] : NULL, &err);
    if (!c) {
        /* The result types are the header's own: an empty report, looked up and freed. */
        satin_job_report rep = {0};
        int64_t v = 0;
        int found = satin_client_values_i64(&rep.result, "value", &v) == 0;
        satin_job_report_free(&rep);
        satin_client_kinds kinds = {0};
        satin_client_kinds_free(&kinds);
        printf("code %d found %d\n", (int)err.code, found);
        return 0;
    }
    satin_client_kinds kinds = {0};
    int fib = 0;
    if (satin_client_list_kinds(c, &kinds, &err) == SATIN_CLIENT_OK)
        for (size_t i = 0; i < kinds.n; i++)
            fib |= strcmp(kinds.items[i].name, "fib") == 0;
    satin_client_kinds_free(&kinds);
    const char *params[] = {"n=20", NULL};
    uint64_t job = 0;
    satin_job_report rep = {0};
    int64_t v = -1;
    int rc = satin_client_submit(c, "fib", params, 0, &job, &err);
    if (rc == SATIN_CLIENT_OK)
        rc = satin_client_wait(c, job, 30000, &rep, NULL, NULL, &err);
    if (rc == SATIN_CLIENT_OK)
        satin_client_values_i64(&rep.result, "value", &v);
    printf("fib listed %d, fib n=20: %s %lld\n", fib, satin_client_rc_name(rc), (long long)v);
    satin_job_report_free(&rep);
    satin_client_destroy(&c);
    return rc != SATIN_CLIENT_OK;
}
EOF
    # A sanitizer build's library needs the same runtime in the program.
    san=()
    if nm "$root/usr/lib/libsatin.a" 2>/dev/null | grep -q __asan_; then
        san=(-fsanitize=address,undefined)
    elif nm "$root/usr/lib/libsatin.a" 2>/dev/null | grep -q __tsan_; then
        san=(-fsanitize=thread)
    fi
    # shellcheck disable=SC2086  # the flags are words
    run cc -std=c11 -Wall -Wextra -Werror "${san[@]}" -o "$tmpdir/prog" "$tmpdir/prog.c" $flags
    is "$rc" 0 "a program including <satin/satin_client.h> builds with pkg-config's flags"
    is "$(needed "$tmpdir/prog")" libsatin.so.1 \
        "readelf -d: it needs libsatin.so.1 (the soname), and neither CZMQ nor libzmq itself"
    if ldconfig -p 2>/dev/null | grep -q 'libsatin\.so\.0 '; then
        skip "this machine has a libsatin.so.1 of its own"
    else
        run "$tmpdir/prog" "ipc://$tmpdir/nobody.sock"
        like "$err" "libsatin.so.1: cannot open shared object file" \
            "it does not start without the DESTDIR's libsatin.so.1"
    fi
    lib=$root/usr/lib
    run env LD_LIBRARY_PATH="$lib" ldd "$tmpdir/prog"
    is "$(echo "$out" | sed -n 's/^[[:space:]]*libsatin\.so\.1 => \(.*\) (0x.*$/\1/p')" "$lib/libsatin.so.1" \
        "with LD_LIBRARY_PATH into the DESTDIR, ldd finds the installed libsatin.so.1"
    run env LD_LIBRARY_PATH="$lib" timeout 20 "$tmpdir/prog" "ipc://$tmpdir/nobody.sock"
    is "$out" "code 3 found 0" "and it runs: no daemon there is SATIN_CLIENT_UNREACHABLE"

    # The installed satind, for the programs to talk to.
    sock=$tmpdir/d.sock
    "$root/usr/bin/satind" --workers 1 --socket "ipc://$sock" --foreground \
        --kinds-dir "$root/usr/lib/satin/kinds" 2>"$tmpdir/satind.log" &
    pid=$!
    wait_socket "$sock" "$pid"
    [ -S "$sock" ] || sed 's/^/# satind: /' "$tmpdir/satind.log"
    run env LD_LIBRARY_PATH="$lib" timeout 60 "$tmpdir/prog" "ipc://$sock"
    is "$rc: $out" "0: fib listed 1, fib n=20: ok 6765" \
        "on libsatin.so against the installed satind it lists the kinds and runs fib n=20"

    # -Bstatic around -lsatin: the linker takes libsatin.a although
    # libsatin.so is beside it (CZMQ and libzmq stay shared).
    static=(-Wl,-Bstatic -lsatin -Wl,-Bdynamic)
    # shellcheck disable=SC2046,SC2086
    run cc -std=c11 -Wall -Wextra -Werror "${san[@]}" -o "$tmpdir/prog-static" "$tmpdir/prog.c" \
        $(pc --cflags satin) ${static_libs/-lsatin/${static[*]}}
    is "$rc" 0 "a program links libsatin.a with pkg-config --static --libs satin"
    is "$(needed "$tmpdir/prog-static" | sed 's/\.so\..*//')" "libczmq
libzmq" "readelf -d: it needs CZMQ and libzmq, not libsatin.so"
    run timeout 60 "$tmpdir/prog-static" "ipc://$sock"
    is "$rc: $out" "0: fib listed 1, fib n=20: ok 6765" \
        "and runs without LD_LIBRARY_PATH: it lists the kinds and runs fib n=20"
    # shellcheck disable=SC2086
    run cc -std=c11 -Wall -Wextra -Werror "${san[@]}" -o "$tmpdir/prog-nostatic" "$tmpdir/prog.c" \
        ${flags/-lsatin/${static[*]}}
    like "$rc: $err" "undefined reference to \`zmq_" \
        "without --static the same link of libsatin.a fails on libzmq's functions"
    # The Python client as installed: it loads the libsatin make install
    # recorded (here under DESTDIR, so named by SATIN_LIBRARY) and runs a job.
    is "$(sed -n 's/^LIBDIR = "\(.*\)"$/\1/p' "$root/usr/lib/python3/dist-packages/satin/_installed.py")" \
        /usr/lib "the Python package records where libsatin is installed"
    # A sanitizer build's libsatin needs its runtime loaded first into python3.
    pyenv=()
    if [ "${san[0]-}" = -fsanitize=address,undefined ]; then
        pyenv=(LD_PRELOAD="$(cc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0)
    elif [ "${san[0]-}" = -fsanitize=thread ]; then
        pyenv=(LD_PRELOAD="$(cc -print-file-name=libtsan.so)")
    fi
    run env "${pyenv[@]}" PYTHONPATH="$root/usr/lib/python3/dist-packages" SATIN_LIBRARY="$lib/libsatin.so.1" \
        PYTHONDONTWRITEBYTECODE=1 timeout 60 /usr/bin/python3 -c "import satin, sys
with satin.Client(sys.argv[1]) as c: print(c.run('fib', n=20).value, satin.__file__.startswith(sys.argv[2]))" \
        "ipc://$sock" "$root/"
    is "$rc: $out" "0: 6765 True" "the installed Python client runs fib n=20 through the installed libsatin"
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    pid=""

    bad=""
    for h in "$root"/usr/include/satin/*.h; do
        # shellcheck disable=SC2086
        echo "#include <satin/${h##*/}>" |
            cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c - $flags 2>/dev/null ||
            bad+=" ${h##*/}"
    done
    is "$bad" "" "every installed header compiles on its own"
    bad=""
    for h in "$root"/usr/include/satin/*.h; do
        # shellcheck disable=SC2086
        echo "#include <satin/${h##*/}>" |
            c++ -std=c++20 -Wall -Wextra -Werror -fsyntax-only -x c++ - $flags 2>/dev/null ||
            bad+=" ${h##*/}"
    done
    is "$bad" "" "and as C++20"
    # satin-kind.pc: a module's flags, and where the installed satind loads modules.
    # shellcheck disable=SC2046
    is "$(words $(pc --cflags --libs satin-kind 2>&1))" \
        "-I$root/usr/include -fPIC -fstack-clash-protection -shared" \
        "pkg-config --cflags --libs satin-kind: the include directory, -fPIC, stack-clash protection, -shared"
    kd=$(pc --variable=kindsdir satin-kind 2>&1)
    is "${kd#"$root"}" /usr/lib/satin/kinds "satin-kind.pc's kindsdir is where the installed satind loads modules"
    like "$("$root/usr/bin/satind" --help 2>&1)" "/usr/lib/satin/kinds" \
        "the installed satind's default --kinds-dir is that directory"
else
    for _ in $(seq 16); do skip "pkg-config, cc or readelf is not installed"; done
fi

# ---- the systemd units ---------------------------------------------------------------

# verify checks that ExecStart= is executable: the copies point at the
# DESTDIR's satind.  Documentation=man:... is looked up in the DESTDIR's pages.
if command -v systemd-analyze >/dev/null; then
    mkdir -p "$tmpdir/units"
    for u in satind.service satind@.service; do
        sed "s|^ExecStart=/usr/bin/satind|ExecStart=$root/usr/bin/satind|" \
            "$root/usr/lib/systemd/system/$u" >"$tmpdir/units/$u"
    done
    man=--man=no
    command -v man >/dev/null && man=--man=yes
    run env MANPATH="$root/usr/share/man" systemd-analyze verify "$man" \
        "$tmpdir/units/satind.service" "$tmpdir/units/satind@.service"
    if [ "$rc" != 0 ] && grep -q "sysinit.target not found" "$tmpdir/err"; then
        skip "systemd-analyze verify: this machine has no systemd units to verify against"
        skip "(same)"
    else
        is "$rc" 0 "systemd-analyze verify passes both units ($man)"
        is "$out$err" "" "and has nothing to say about them"
    fi
else
    skip "systemd-analyze is not installed"
    skip "systemd-analyze is not installed"
fi

# The sysusers and tmpfiles snippets, applied to an empty root (tmpfiles
# chowns, so it needs root).
if command -v systemd-sysusers >/dev/null && command -v systemd-tmpfiles >/dev/null &&
   [ "$(id -u)" = 0 ]; then
    sys=$tmpdir/sysroot
    mkdir -p "$sys/etc" "$sys/usr/lib/sysusers.d" "$sys/usr/lib/tmpfiles.d"
    cp "$root/usr/lib/sysusers.d/satin.conf" "$sys/usr/lib/sysusers.d/"
    cp "$root/usr/lib/tmpfiles.d/satin.conf" "$sys/usr/lib/tmpfiles.d/"
    run systemd-sysusers --root="$sys" satin.conf
    uid=$(awk -F: '$1 == "satin" {print $3 ":" $4 ":" $7}' "$sys/etc/passwd")
    gid=$(awk -F: '$1 == "satin" {print $3}' "$sys/etc/group")
    like "$uid" ":$gid:" "sysusers.d makes the system user satin in group satin"
    like "$uid" "nologin" "who cannot log in"
    run systemd-tmpfiles --root="$sys" --create satin.conf
    is "$rc" 0 "tmpfiles.d applies"
    is "$(stat -c '%a %u %g' "$sys/run/satin" 2>&1)" "750 ${uid%%:*} $gid" \
        "/run/satin is 0750 satin:satin"
    is "$(stat -c '%a %u %g' "$sys/etc/satin/keys" 2>&1)" "700 0 0" \
        "/etc/satin/keys is 0700 root:root"
else
    for _ in 1 2 3 4 5; do skip "needs root, systemd-sysusers and systemd-tmpfiles"; done
fi

# ---- the man pages match --help ------------------------------------------------------

# Long options in a text (roff's \- and font changes removed first).
longopts() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u; }
for b in satind satin-submit satin-keygen satin-grid satin-wanem satin-sim satin-trace satin-slurm; do
    page=$root/usr/share/man/man1/$b.1
    [ "$b" = satind ] && page=$root/usr/share/man/man8/$b.8
    help=$("$root/usr/bin/$b" --help 2>&1)
    [ "$b" = satin-wanem ] && help+=$'\n'$("$root/usr/bin/$b" ctl --help 2>&1)
    missing=$(comm -23 <(echo "$help" | longopts) <(longopts <"$page"))
    is "$missing" "" "$b: every option of --help is in its man page"
    # The options the page lists (the lines after .TP under OPTIONS).
    listed=$(awk '/^\.SH OPTIONS/ {o = 1; next} /^\.SH/ {o = 0}
                  o && tp {print} {tp = o && /^\.TP/}' "$page" | longopts)
    # (--help: every program takes it, even satin-grid, whose usage does not say so.)
    stale=$(comm -13 <( (echo "$help"; echo --help) | longopts) <(echo "$listed"))
    is "$stale" "" "$b: every option its man page lists is in --help"
done
if command -v groff >/dev/null; then
    run sh -c 'for p in "$@"; do LC_ALL=C.UTF-8 groff -man -ww -z -K utf8 "$p"; done' sh \
        "$root"/usr/share/man/man*/*
    is "$out$err" "" "groff -ww has nothing to say about the pages"
else
    skip "groff is not installed"
fi

# ---- configuration is kept, other prefixes, uninstall ---------------------------------

echo 'SATIND_OPTS="--workers 3"' >"$root/etc/default/satind"
run mk install PREFIX=/usr DESTDIR="$root"
is "$rc" 0 "installing again exits 0"
is "$(cat "$root/etc/default/satind")" 'SATIND_OPTS="--workers 3"' \
    "an existing /etc/default/satind is not overwritten"

run mk install PREFIX=/usr/local DESTDIR="$tmpdir/local"
is "$rc" 0 "make install PREFIX=/usr/local exits 0"
unit=$tmpdir/local/usr/local/lib/systemd/system/satind@.service
is "$(grep -E '^(ExecStart|LoadCredential)=' "$unit" 2>&1)" \
"ExecStart=/usr/local/bin/satind --foreground --config /usr/local/etc/satin/grid.yaml --node %i
LoadCredential=satind.key:/usr/local/etc/satin/keys/%i.key" \
    "PREFIX=/usr/local: the unit runs /usr/local/bin/satind with /usr/local/etc/satin"
is "$(grep -c '^EnvironmentFile=-/usr/local/etc/default/satind$' \
        "$tmpdir/local/usr/local/lib/systemd/system/satind.service")" 1 \
    "and satind.service reads /usr/local/etc/default/satind"
ok=no
[ -f "$tmpdir/local/usr/local/etc/satin/grid.yaml.example" ] &&
    [ -f "$tmpdir/local/usr/local/lib/pkgconfig/satin.pc" ] &&
    [ "$(readlink "$tmpdir/local/usr/local/lib/libsatin.so.1")" = libsatin.so.1.1.0 ] &&
    [ -f "$tmpdir/local/usr/local/lib/python$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages/satin/client.py" ] &&
    ok=yes
is "$ok" yes "PREFIX=/usr/local: the example under /usr/local/etc, the .pc, libsatin.so.1 and the Python client under /usr/local/lib"

run mk uninstall PREFIX=/usr DESTDIR="$root"
is "$rc" 0 "make uninstall exits 0"
is "$(listing "$root")" "644 etc/default/satind" "make uninstall leaves only the configuration"

echo "1..$n"
[ "$failures" = 0 ]
