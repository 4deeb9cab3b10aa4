# Satin grid - one non-recursive Makefile.
#   make            build everything into $(BUILD)/
#   make deps       install the Debian packages the build and the tests need (apt-get, as root)
#   make check      install Debian build deps if missing, build, run every test under prove
#   make demo       bring up a local grid (2 clusters x 2 nodes, policy CRS; deploy/demo.sh),
#                   run UTS seed-T3 and fib 32 on it, print the results and statistics,
#                   node a0's job list and the grid's status (--status --grid),
#                   bring it down
#   make V=1        print every compile and link command whole (default: one line a step)
#   make check-asan everything under AddressSanitizer + UndefinedBehaviorSanitizer
#   make check-tsan the threaded tests under ThreadSanitizer
#   make check-repeat N=10  the whole suite N times under load: each test file's failure count
#   make bench      bench/overhead
#   make install PREFIX=/usr/local DESTDIR=

VERSION   := 0.1.0
# libsatin.so's ABI number, the one in its soname (libsatin.so.$(LIBSATIN_ABI)).  Raise it
# when, and only when, a program built against an older satin_client.h could break with the
# new library: an exported function removed or its arguments changed, a public struct's layout
# or an enum's numbers changed.  Adding a function does not (mk/shlib.mk).
LIBSATIN_ABI := 1
BUILD     ?= build
# The sanitizer builds' directories name their sanitizer, so that a later
# make in one of them (an install from build-asan, as install.t and
# kind_template.t run it) compiles what it must with the same flags.
ifeq ($(notdir $(BUILD)),build-asan)
  SAN     ?= asan
endif
ifeq ($(notdir $(BUILD)),build-tsan)
  SAN     ?= tsan
endif
SAN       ?=
PREFIX    ?= /usr/local
DESTDIR   ?=
CC        ?= cc

# The libraries, by their pkg-config names (mk/deps.mk has the Debian packages
# and stops a build that lacks one at once).  libsystemd: sd_notify for
# Type=notify and the watchdog (daemon/service.c); libmicrohttpd: the
# --metrics HTTP endpoint (daemon/metrics.c).
PKGS      := libzmq libczmq libcrypto yaml-0.1 libsystemd libmicrohttpd
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wvla \
             -Wstrict-prototypes -Wmissing-prototypes -g -O2 -pthread \
             -DSATIN_VERSION=\"$(VERSION)\"
ifeq ($(SAN),asan)
  CFLAGS_SAN := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
ifeq ($(SAN),tsan)
  CFLAGS_SAN := -O1 -fsanitize=thread -fno-omit-frame-pointer
endif
# make fuzz (mk/fuzz.mk): clang with libFuzzer's coverage hooks; the targets link -fsanitize=fuzzer.
ifeq ($(SAN),fuzz)
  CFLAGS_SAN := -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
CFLAGS    += $(CFLAGS_BASE) $(CFLAGS_SAN) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDFLAGS   += $(CFLAGS_SAN) -pthread
LDLIBS    += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm

PROTO_SRC   := $(wildcard proto/*.c)
# The common layer under everything: topology, log, clock, endpoints, the
# event loop.  It links no policy and no daemon code.
COMMON_SRC  := $(wildcard common/*.c)
# What of it the client library needs.
COMMON_CLIENT_SRC := common/satin_endpoint.c common/zframes.c
RUNTIME_SRC := $(wildcard daemon/runtime/*.c)
# The node engine and the policies: pure (no sockets, threads or clock), so
# that satind, the unit tests and a simulator link the same objects.
ENGINE_SRC  := $(wildcard daemon/engine/*.c) $(wildcard daemon/policy/*.c)
# The built-in kinds: one module, build/kinds/satin-kinds.so, which satind,
# satin-sim, satin-trace and the benchmarks load like any user's; the same
# objects (position-independent) in libsatinkinds.a for the unit tests,
# which link them whole.  KINDS_ORDER is --list-kinds' order (the link's).
KINDS_ORDER := fib uts nqueens integrate ida matmul raytracer synthetic replay setcover knapsack \
               nchoosek primefactors tsp array
KINDS_HELPERS := kinds/kind_shared.c kinds/leaf_wait.c kinds/replay_cache.c kinds/replay_tree.c \
                 kinds/uts_tree.c
KINDS_SRC   := kinds/module.c $(addprefix kinds/,$(addsuffix .c,$(KINDS_ORDER))) $(KINDS_HELPERS)
# accept_guard.c is linked into satind alone (it replaces accept() for the
# whole process: daemon/accept_guard.c says why).
DAEMON_SRC  := $(filter-out daemon/satind.c daemon/accept_guard.c,$(wildcard daemon/*.c))
# satin-submit's own files: its endpoints come from a topology file too,
# which libsatin does not read (it would need the YAML loader).
SUBMIT_SRC  := client/satin_submit.c client/submit_endpoints.c client/submit_interrupt.c \
               client/submit_grid.c client/submit_profile.c client/submit_output.c
CLIENT_SRC  := $(filter-out $(SUBMIT_SRC) client/satin_keygen.c,$(wildcard client/*.c))
UNIT_SRC    := $(wildcard tests/unit/test_*.c)
INTEG_C_SRC := $(wildcard tests/integration/test_*.c)
BENCH_SRC   := $(wildcard bench/*.c)
SHIM_SRC    := $(wildcard shim/*.c)
# satin-sim: its core (sim/*.c but the program's files) is what its unit test links.
SIM_MAIN    := sim/satin_sim.c sim/sim_csv.c
SIM_SRC     := $(filter-out $(SIM_MAIN),$(wildcard sim/*.c))
# satin-trace: the program and the capture, which satin-sim shares.
TRACE_MAIN  := trace/satin_trace.c
TRACE_SRC   := trace/trace_capture.c

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

# Quiet by default: one line per step ("  CC  daemon/peer.c"); V=1 prints
# every command whole.  Compiler errors and warnings show either way.
V ?= 0
ifeq ($(V),1)
  say :=
else
  say = @printf '  %-4s %s\n' '$(1)' '$(2)';
endif

# What each folder may include from where (its README says why): a folder
# sees only the directories below, so an include that crosses a layer the
# wrong way fails to compile instead of waiting for a review.  satind's own
# files (daemon/*.c), the tests and the benchmarks assemble the layers and
# see them all.  They come before CFLAGS, as the project's -I did before
# pkg-config's, so that no library directory shadows a header of ours.
INC_ALL     := -Iinclude -Icommon -Idaemon -Idaemon/runtime -Ikinds -Idaemon/policy -Iproto \
               -Iclient
CFLAGS_INC  := $(INC_ALL)
$(BUILD)/obj/proto/%.o:          CFLAGS_INC := -Iproto
$(BUILD)/obj/common/%.o:         CFLAGS_INC := -Icommon -Iproto
$(BUILD)/obj/daemon/policy/%.o:  CFLAGS_INC := -Idaemon/policy -Icommon -Iproto
$(BUILD)/obj/daemon/engine/%.o:  CFLAGS_INC := -Idaemon/engine -Idaemon/policy -Icommon -Iproto
# A kind sees only the kind API (include/satin/) and its own folder, as a
# module built elsewhere does; it is built as one (satin-kind.pc's flags).
$(BUILD)/obj/kinds/%.o:          CFLAGS_INC := -Iinclude -Ikinds
$(BUILD)/obj/kinds/%.o:          CFLAGS += $(KIND_CFLAGS)
$(BUILD)/obj/daemon/runtime/%.o: CFLAGS_INC := -Iinclude -Idaemon/runtime -Icommon -Iproto
$(BUILD)/obj/client/%.o:         CFLAGS_INC := -Iclient -Icommon -Iproto
# The shim takes only the common layer (topology, log, clock, event loop).
$(BUILD)/obj/shim/%.o:           CFLAGS_INC := -Ishim -Icommon -Iproto
# The simulator drives the engine and the policies, and reads the kinds'
# arguments (apps.h) and parameters (runtime/kinds.h); nothing of satind's
# transport or pool.
$(BUILD)/obj/sim/%.o:            CFLAGS_INC := -Isim -Itrace -Idaemon/engine -Idaemon/policy -Ikinds \
                                               -Iinclude -Idaemon -Idaemon/runtime -Icommon -Iproto \
                                               -Iclient
$(BUILD)/obj/tests/unit/test_sim.o: CFLAGS_INC := $(INC_ALL) -Isim -Itrace
# The tracer runs kinds on the runtime and writes the replay kind's format.
$(BUILD)/obj/trace/%.o:          CFLAGS_INC := -Itrace -Iinclude -Idaemon/runtime -Ikinds -Icommon \
                                               -Iproto

# The dashboard's files, compiled into satind's core (mk/dashboard.mk); its
# rules come before `all`, which stays the default goal.
.DEFAULT_GOAL := all
include mk/dashboard.mk

LIB_PROTO   := $(BUILD)/libsatinproto.a
LIB_COMMON  := $(BUILD)/libsatincommon.a
LIB_CORE    := $(BUILD)/libsatincore.a
LIB_ENGINE  := $(BUILD)/libsatinengine.a
LIB_CLIENT  := $(BUILD)/libsatin.a
LIB_KINDS   := $(BUILD)/libsatinkinds.a
KINDS_MODULE := $(BUILD)/kinds/satin-kinds.so
# What a kind module is compiled with (satin-kind.pc gives users the same):
# position-independent, and every page of a large frame touched in turn,
# so that a kind's overflow meets the stack's guard (runtime/stack_guard.c).
# GCC 12's -O2 vectorizes a small argument struct built for a spawn through
# memory (a store and two loads per spawn, and every register pushed before
# the leaf test): off for the kinds, where compilers know the flag.
NO_SLP := $(shell $(CC) -fno-tree-slp-vectorize -E -x c /dev/null >/dev/null 2>&1 && \
            echo -fno-tree-slp-vectorize)
KIND_CFLAGS := -fPIC -fstack-clash-protection $(NO_SLP)
# Programs that run kinds export the kind API to the modules they load
# (mk/kind-api.list: the runtime's half of <satin/satin.h>).
KIND_API_LDFLAGS := -Wl,--dynamic-list=mk/kind-api.list
# The unit tests link the built-in kinds in, whole: nothing names most of
# their objects, whose tasks register themselves.
LINK_KINDS  := -Wl,--whole-archive $(LIB_KINDS) -Wl,--no-whole-archive
# Where satind, satin-sim and satin-trace look for modules by default: the
# build's own here, the installed ones' in mk/install.mk.
KINDS_DIR_DEFINE := -DSATIN_KINDS_DIR=\"$(abspath $(BUILD))/kinds\"
$(BUILD)/obj/daemon/options.o $(BUILD)/obj/daemon/satind.o $(BUILD)/obj/trace/satin_trace.o \
  $(BUILD)/obj/tests/integration/peer_probe.o \
  $(BUILD)/obj/sim/satin_sim.o: CFLAGS += $(KINDS_DIR_DEFINE)
# The same library, shared: its real file name (libsatin.so.1.1.0: the ABI number, then
# VERSION's minor and patch) and its soname.  mk/shlib.mk builds it from PIC objects.
LIBSATIN_SONAME := libsatin.so.$(LIBSATIN_ABI)
LIB_CLIENT_SO   := $(BUILD)/$(LIBSATIN_SONAME).$(word 2,$(subst ., ,$(VERSION))).$(word 3,$(subst ., ,$(VERSION)))
SATIND      := $(BUILD)/satind
SUBMIT      := $(BUILD)/satin-submit
WANEM       := $(BUILD)/satin-wanem
KEYGEN      := $(BUILD)/satin-keygen
SIM         := $(BUILD)/satin-sim
TRACER      := $(BUILD)/satin-trace
UNIT_TESTS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%.t,$(UNIT_SRC))
INTEG_C_TESTS := $(patsubst tests/integration/%.c,$(BUILD)/tests/integration/%.t,$(INTEG_C_SRC))
BENCHES     := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
# Helper programs of the shell tests (not tests themselves).
TEST_TOOLS  := $(BUILD)/tests/integration/peer-probe

all: $(SATIND) $(SUBMIT) $(WANEM) $(KEYGEN) $(SIM) $(TRACER) $(LIB_CLIENT) $(LIB_CLIENT_SO) $(KINDS_MODULE) $(UNIT_TESTS) $(INTEG_C_TESTS) $(BENCHES) $(TEST_TOOLS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CFLAGS_INC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(LIB_PROTO): $(call obj,$(PROTO_SRC))
	$(call say,AR,$@)rm -f $@; ar rcs $@ $^
$(LIB_CORE): $(call obj,$(RUNTIME_SRC) $(DAEMON_SRC) $(COMMON_SRC)) $(DASHBOARD_OBJ)
	$(call say,AR,$@)rm -f $@; ar rcs $@ $^
$(LIB_KINDS): $(call obj,$(KINDS_SRC))
	$(call say,AR,$@)rm -f $@; ar rcs $@ $^
# uts digests with SHA-1 (libcrypto).  Undefined symbols are the kind API,
# which the program that loads it exports.
$(KINDS_MODULE): $(call obj,$(KINDS_SRC))
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -shared -o $@ $^ -lcrypto -lm
$(LIB_COMMON): $(call obj,$(COMMON_SRC))
	$(call say,AR,$@)rm -f $@; ar rcs $@ $^
$(LIB_ENGINE): $(call obj,$(ENGINE_SRC))
	$(call say,AR,$@)rm -f $@; ar rcs $@ $^
$(LIB_CLIENT): $(call obj,$(CLIENT_SRC) $(PROTO_SRC) $(COMMON_CLIENT_SRC))
	$(call say,AR,$@)rm -f $@; ar rcs $@ $^

$(SATIND): $(call obj,daemon/satind.c daemon/accept_guard.c) $(LIB_CORE) $(LIB_ENGINE) $(LIB_COMMON) $(LIB_PROTO) $(LIB_CLIENT)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $^ $(LDLIBS) -ldl
$(SUBMIT): $(call obj,$(SUBMIT_SRC)) $(LIB_CLIENT) $(LIB_COMMON)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(KEYGEN): $(call obj,client/satin_keygen.c)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# The shim takes only the common layer (topology, log, clock, event loop).
$(WANEM): $(call obj,$(SHIM_SRC)) $(LIB_COMMON) $(LIB_PROTO)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(SIM): $(call obj,$(SIM_MAIN) $(SIM_SRC) $(TRACE_SRC)) $(LIB_CORE) $(LIB_ENGINE) $(LIB_CLIENT) $(LIB_COMMON) $(LIB_PROTO) $(LIB_KINDS)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $(filter %.o,$^) $(LINK_KINDS) $(filter-out $(LIB_KINDS),$(filter %.a,$^)) $(LDLIBS) -ldl
# satin-trace links the kinds' archive for the trace format alone
# (replay_tree.o): its kinds are the modules it loads.
$(TRACER): $(call obj,$(TRACE_MAIN) $(TRACE_SRC)) $(LIB_CORE) $(LIB_ENGINE) $(LIB_COMMON) $(LIB_PROTO) $(LIB_KINDS) | $(KINDS_MODULE)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS) -ldl
$(BUILD)/tests/%.t: $(call obj,tests/unit/%.c) $(LIB_CORE) $(LIB_ENGINE) $(LIB_COMMON) $(LIB_CLIENT) $(LIB_PROTO) $(LIB_KINDS)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $(filter %.o,$^) $(LINK_KINDS) $(filter-out $(LIB_KINDS),$(filter %.a,$^)) $(LDLIBS) -ldl
# The unit test of satin-submit's endpoint list links its object (objects
# go before the libraries in the rule above).
$(BUILD)/tests/test_client_endpoints.t: $(call obj,client/submit_endpoints.c)
$(BUILD)/tests/test_submit_profile.t: $(call obj,client/submit_profile.c)
# The simulator's unit test links its core.
$(BUILD)/tests/test_sim.t: $(call obj,$(SIM_SRC) $(TRACE_SRC))
# The accept guard's test runs libzmq's IPC listener past the open-file
# limit with the guard in front of accept, as satind has it.
$(BUILD)/tests/test_accept_guard.t: $(call obj,daemon/accept_guard.c)
$(BUILD)/tests/integration/%.t: $(call obj,tests/integration/%.c) $(LIB_CORE) $(LIB_ENGINE) $(LIB_COMMON) $(LIB_CLIENT) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -ldl
# It tells the modules of the build's kinds directory in its HELLO, as satind does.
$(BUILD)/tests/integration/peer-probe: $(call obj,tests/integration/peer_probe.c) $(LIB_CORE) $(LIB_ENGINE) $(LIB_COMMON) $(LIB_PROTO) | $(KINDS_MODULE)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $^ $(LDLIBS) -ldl
# The benchmarks load the built-in kinds' module as satind does, and link
# the kinds' helpers (their arguments' layouts, the exact answers) too.
$(BUILD)/bench/%: $(call obj,bench/%.c) $(LIB_KINDS) $(LIB_CORE) $(LIB_ENGINE) $(LIB_COMMON) $(LIB_PROTO) | $(KINDS_MODULE)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS) -ldl
$(BUILD)/obj/bench/%.o: CFLAGS += $(KINDS_DIR_DEFINE)

.SECONDARY:

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ---- tests -----------------------------------------------------------------
PROVE        := prove --exec '' --timer
INTEG_TESTS  := $(wildcard tests/integration/*.t)
TSAN_TESTS   := $(wildcard tests/unit/test_shared_bytes.c tests/unit/test_deque*.c tests/unit/test_pool*.c tests/unit/test_spawn_fast.c tests/unit/test_nqueens.c tests/unit/test_replay.c tests/unit/test_values.c)

# mk/*.mk add their own build products to EXTRA_BUILD and TAP files to EXTRA_TESTS.
check: deps
	$(MAKE) all $(EXTRA_BUILD)
	SATIN_BUILD=$(abspath $(BUILD)) $(PROVE) $(UNIT_TESTS) $(INTEG_C_TESTS) $(INTEG_TESTS) $(EXTRA_TESTS)

check-asan: deps
	$(MAKE) BUILD=build-asan SAN=asan all $(patsubst $(BUILD)/%,build-asan/%,$(EXTRA_BUILD))
	SATIN_BUILD=$(abspath build-asan) ASAN_OPTIONS=detect_leaks=1 \
	  $(PROVE) $(patsubst tests/unit/%.c,build-asan/tests/%.t,$(UNIT_SRC)) \
	  $(patsubst tests/integration/%.c,build-asan/tests/integration/%.t,$(INTEG_C_SRC)) $(INTEG_TESTS) \
	  $(patsubst $(BUILD)/%,build-asan/%,$(EXTRA_TESTS))

# make check-repeat N=10: the whole suite N times with prove -j2 beside two
# CPU-burning processes; prints each test file's failure count and keeps the
# failed runs' output in $(BUILD)/flakes/ (tests/flake-finder).
N ?= 10
check-repeat: deps
	$(MAKE) all $(EXTRA_BUILD)
	SATIN_BUILD=$(abspath $(BUILD)) tests/flake-finder -n $(N) -o $(abspath $(BUILD))/flakes \
	  $(UNIT_TESTS) $(INTEG_C_TESTS) $(INTEG_TESTS) $(EXTRA_TESTS)

# The daemons started by the integration tests run under TSan too (their
# reports go to the node logs and fail the run through exitcode=66).
# grid.t runs every policy but RP: ThreadSanitizer keeps the stack of every
# synchronisation and aborts on one deeper than 65,536 frames (CHECK failed:
# sanitizer_stackdepot.cpp:83), and under RP a worker waiting at a sync
# runs the records pushed to it, nested on its stack (128 records deep at
# most in a normal build over grid.t's jobs; under TSan's slowdown more
# are pushed while each waits, past that limit).  The nesting is legal and
# bounded by the 256 MiB stack's guard, not by TSan's depot.
TSAN_GRID_POLICIES := rs chs cls crs lifeline cluster-lifeline
# test_stack_guard is not among TSAN_TESTS: ThreadSanitizer's own handling
# of SIGSEGV does not let a handler on the alternate stack jump back from a
# stack overflow (the process dies as it would without the guard); under
# AddressSanitizer (check-asan) it runs.
check-tsan: deps
	$(MAKE) BUILD=build-tsan SAN=tsan all
	SATIN_BUILD=$(abspath build-tsan) SATIN_GRID_POLICIES="$(TSAN_GRID_POLICIES)" \
	  TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$(abspath tests/tsan.supp)" \
	  $(PROVE) $(patsubst tests/unit/%.c,build-tsan/tests/%.t,$(TSAN_TESTS)) \
	  $(patsubst tests/integration/%.c,build-tsan/tests/integration/%.t,$(INTEG_C_SRC)) tests/integration/cli.t \
	  tests/integration/curve.t tests/integration/stop.t tests/integration/moves.t \
	  tests/integration/reload.t tests/integration/values.t tests/integration/grid.t

# ---- demo and benchmarks ----------------------------------------------------
demo: deps
	$(MAKE) all
	SATIN_BUILD=$(abspath $(BUILD)) deploy/demo.sh

bench: deps
	$(MAKE) all
	$(BUILD)/bench/overhead

# ---- install: mk/install.mk ------------------------------------------------------

clean:
	rm -rf build build-asan build-tsan build-fuzz

include mk/fuzz.mk mk/shlib.mk mk/install.mk mk/deps.mk mk/test-modules.mk

.PHONY: all check check-repeat check-asan check-tsan demo bench install clean
