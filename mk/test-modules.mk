# mk/test-modules.mk - the kind modules the tests load (tests/modules/): each
# built alone, as a user's module is, against include/satin/ only, with
# satin-kind.pc's flags (KIND_CFLAGS), and with the sanitizer of the build
# (a module loaded into an ASan program is built with ASan too).

CXX ?= g++
TEST_MODULE_SRC := $(wildcard tests/modules/*.c tests/modules/*.cpp)
TEST_MODULES    := $(patsubst tests/modules/%,$(BUILD)/tests/modules/%.so,$(basename $(TEST_MODULE_SRC)))
TEST_MODULE_CFLAGS := -Wall -Wextra -Werror -O2 -g $(CFLAGS_SAN) $(KIND_CFLAGS) -Iinclude

$(BUILD)/tests/modules/%.so: tests/modules/%.c include/satin/satin.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) -std=c11 $(TEST_MODULE_CFLAGS) -shared -o $@ $<
$(BUILD)/tests/modules/%.so: tests/modules/%.cpp include/satin/satin.h
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)$(CXX) -std=c++20 $(TEST_MODULE_CFLAGS) -shared -o $@ $<

# test_modules.t finds them beside itself, with the built-in kinds' module.
$(BUILD)/tests/test_modules.t: | $(TEST_MODULES) $(KINDS_MODULE)
$(BUILD)/obj/tests/unit/test_modules.o: CFLAGS += -DTEST_MODULES_DIR=\"$(abspath $(BUILD))/tests/modules\" \
                                                  $(KINDS_DIR_DEFINE)
all: $(TEST_MODULES)

# Another build of the built-in kinds' module, as the next release would be
# (its version says so, and so its file's digest differs): what a rolling
# upgrade installs node by node (tests/integration/kinds_grid.t).
NEXT_KINDS_MODULE := $(BUILD)/tests/modules/satin-kinds-next.so
$(BUILD)/tests/modules/satin-kinds-next.o: kinds/module.c include/satin/satin.h
	@mkdir -p $(dir $@)
	$(call say,CC,$< for the next build)$(CC) -Iinclude -Ikinds $(CFLAGS) $(KIND_CFLAGS) \
	  -USATIN_VERSION -DSATIN_VERSION=\"$(VERSION)-next\" -c -o $@ $<
$(NEXT_KINDS_MODULE): $(BUILD)/tests/modules/satin-kinds-next.o $(call obj,$(filter-out kinds/module.c,$(KINDS_SRC)))
	$(call say,LD,$@)$(CC) $(LDFLAGS) -shared -o $@ $^ -lcrypto -lm
all: $(NEXT_KINDS_MODULE)
