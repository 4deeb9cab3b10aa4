# mk/shlib.mk - libsatin.so, the shared build of the client library.
#
# The same sources as libsatin.a (client/, proto/ and common/'s endpoint and
# frame helpers), compiled again with -fPIC into $(BUILD)/pic/: every other
# object of the build stays position-dependent and is compiled once, as
# before.  The library exports exactly satin_client.h's functions, under the
# version node of client/libsatin.map; its soname is $(LIBSATIN_SONAME) (the
# Makefile's LIBSATIN_ABI says when that number changes).  Nothing in the
# tree links against it: satin-submit and the tests take libsatin.a, whose
# internals (the JSON writer, the endpoint list) they use.  make install
# puts it, its links and the .pc in place (mk/install.mk).

pic_obj = $(patsubst %.c,$(BUILD)/pic/%.o,$(1))

LIB_CLIENT_SO_SRC := $(CLIENT_SRC) $(PROTO_SRC) $(COMMON_CLIENT_SRC)
LIB_CLIENT_MAP    := client/libsatin.map
# What the library's objects call (the same as the .pc's Libs.private).
LIB_CLIENT_SO_LIBS = $(shell pkg-config --libs libczmq libzmq 2>/dev/null)

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$< (PIC))$(CC) $(CFLAGS_INC) $(CFLAGS) -fPIC -MMD -MP -c -o $@ $<
# The same include rules as their position-dependent twins (Makefile).
$(BUILD)/pic/proto/%.o:  CFLAGS_INC := -Iproto
$(BUILD)/pic/common/%.o: CFLAGS_INC := -Icommon -Iproto
$(BUILD)/pic/client/%.o: CFLAGS_INC := -Iclient -Icommon -Iproto

# --no-undefined: a symbol the library calls but names no library for fails
# here, not in the first program that loads it.  (Not under SAN: the
# sanitizers' runtimes come with the program.)
SO_NO_UNDEFINED := $(if $(SAN),,-Wl,--no-undefined)
$(LIB_CLIENT_SO): $(call pic_obj,$(LIB_CLIENT_SO_SRC)) $(LIB_CLIENT_MAP)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIBSATIN_SONAME) \
	  -Wl,--version-script=$(LIB_CLIENT_MAP) $(SO_NO_UNDEFINED) \
	  -o $@ $(filter %.o,$^) $(LIB_CLIENT_SO_LIBS)

-include $(shell find $(BUILD)/pic -name '*.d' 2>/dev/null)
