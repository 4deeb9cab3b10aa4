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
EXTRA_BUILD += $(TEST_MODULES)
