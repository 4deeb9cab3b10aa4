# mk/fuzz.mk - libFuzzer targets (make fuzz) and the corpus replayed by make check.
#
#   make fuzz FUZZ_SECONDS=N   build tests/fuzz/fuzz_*.c with clang + libFuzzer + ASan + UBSan
#                              into build-fuzz/ and run each target for N seconds (default 60)
#   make fuzz FUZZ_TARGETS=T   only target T (or the space-separated few given)
#   make check                 builds $(BUILD)/tests/fuzz/replay_<target>.t (the normal compiler
#                              and flags, no libFuzzer) and runs every file of
#                              tests/fuzz/corpus/<target>/ through the target
#
# tests/fuzz/README.md says how a found input becomes a corpus file.

FUZZ_TARGETS  := proto topology params profile records
FUZZ_SECONDS  ?= 60
FUZZ_BUILD    := build-fuzz
FUZZ_CC       ?= clang
# Seconds one input may take before it counts as a hang: the daemon parses on
# its control thread, so anything close to this would stall every client.
FUZZ_TIMEOUT  ?= 5
FUZZ_RSS_MB   ?= 2048
# Bytes: room for the largest seed (etc/das-4x16.yaml, about 5 KB) to grow.
FUZZ_MAX_LEN  ?= 8192

FUZZ_REPLAYS  := $(patsubst %,$(BUILD)/tests/fuzz/replay_%.t,$(FUZZ_TARGETS))
FUZZ_SEEDGEN  := $(BUILD)/tests/fuzz/gen_proto_seeds
FUZZ_RECGEN   := $(BUILD)/tests/fuzz/gen_records_seeds

EXTRA_BUILD   += $(FUZZ_REPLAYS) $(FUZZ_SEEDGEN) $(FUZZ_RECGEN)
EXTRA_TESTS   += $(FUZZ_REPLAYS)

# ---- the replay for make check (any $(BUILD), any compiler) ----------------------

# One replay driver object per target: it learns its corpus directory from FUZZ_TARGET.
$(BUILD)/obj/tests/fuzz/replay_%.o: tests/fuzz/replay_main.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CFLAGS_INC) $(CFLAGS) -DFUZZ_TARGET='"$*"' -MMD -MP -c -o $@ $<

# The kinds are linked in whole (their tasks register themselves).
$(BUILD)/tests/fuzz/replay_%.t: $(BUILD)/obj/tests/fuzz/replay_%.o \
                                $(call obj,tests/fuzz/fuzz_%.c) $(LIB_KINDS) $(LIB_CORE) $(LIB_ENGINE) $(LIB_COMMON) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $(filter %.o,$^) $(LINK_KINDS) $(filter-out $(LIB_KINDS),$(filter %.a,$^)) $(LDLIBS) -ldl

$(FUZZ_SEEDGEN): $(call obj,tests/fuzz/gen_proto_seeds.c) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(FUZZ_RECGEN): $(call obj,tests/fuzz/gen_records_seeds.c) $(LIB_KINDS) $(LIB_CORE) $(LIB_ENGINE) $(LIB_COMMON) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $(filter %.o,$^) $(LINK_KINDS) $(filter-out $(LIB_KINDS),$(filter %.a,$^)) $(LDLIBS) -ldl

# ---- the fuzzers (only meaningful with SAN=fuzz CC=clang, as make fuzz builds them) ----

$(BUILD)/fuzz/fuzz_%: $(call obj,tests/fuzz/fuzz_%.c) $(LIB_KINDS) $(LIB_CORE) $(LIB_ENGINE) $(LIB_COMMON) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(LINK_KINDS) $(filter-out $(LIB_KINDS),$(filter %.a,$^)) $(LDLIBS) -ldl

# clang comes from Debian's clang package (libFuzzer included), installed like deps does.
fuzz-build: deps
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || { \
	  echo "installing Debian package: clang"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang >/dev/null; }
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { \
	  echo "make fuzz needs $(FUZZ_CC) with libFuzzer: run 'sudo apt-get install clang' first" >&2; \
	  exit 1; }
	$(MAKE) BUILD=$(FUZZ_BUILD) SAN=fuzz CC=$(FUZZ_CC) \
	  $(patsubst %,$(FUZZ_BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

fuzz: fuzz-build
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TIMEOUT) $(FUZZ_RSS_MB) \
	  $(FUZZ_MAX_LEN) $(FUZZ_TARGETS)

.PHONY: fuzz fuzz-build
