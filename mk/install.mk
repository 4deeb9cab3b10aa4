# mk/install.mk - make install and make uninstall, and the test that checks them.
#
#   make install PREFIX=/usr DESTDIR=/tmp/pkg   (PREFIX defaults to /usr/local)
#   make uninstall PREFIX=/usr DESTDIR=/tmp/pkg
#
# What goes where (tests/integration/install.t lists every file):
#   $(BINDIR)       satind satin-submit satin-wanem satin-grid satin-keygen satin-sim
#                   satin-trace satin-slurm
#   $(INCLUDEDIR)/satin/   the public headers: the kind API (satin.h) and the client's
#   $(LIBDIR)       libsatin.so.1.1.0 with its links libsatin.so.1 (the soname) and
#                   libsatin.so (for -lsatin), libsatin.a, pkgconfig/satin.pc and
#                   pkgconfig/satin-kind.pc (a kind module's flags)
#   $(KINDSDIR)     satin-kinds.so, the built-in kinds' module, where the installed
#                   satind, satin-sim and satin-trace load modules by default
#   $(MANDIR)/man1, man3, man8   the pages of man/ (man3: the kind API)
#   $(COMPLETIONDIR)       bash completion of the seven programs
#   $(UNITDIR)      satind.service, satind@.service
#   $(PREFIX)/lib/sysusers.d/satin.conf, $(PREFIX)/lib/tmpfiles.d/satin.conf
#   $(SYSCONFDIR)/satin/grid.yaml.example, $(SYSCONFDIR)/default/satind (kept if it exists)
#   $(PYTHONDIR)/satin/   the Python client (client/python), with _installed.py naming
#                   $(LIBDIR), where it loads libsatin.so.1 from
#
# Nothing here runs systemd-sysusers, systemd-tmpfiles, systemctl or ldconfig:
# with a DESTDIR the target is not this machine.  deploy/README.md says what to run.

ifeq ($(PREFIX),/usr)
  SYSCONFDIR ?= /etc
else
  SYSCONFDIR ?= $(PREFIX)/etc
endif
BINDIR       ?= $(PREFIX)/bin
INCLUDEDIR   ?= $(PREFIX)/include
LIBDIR       ?= $(PREFIX)/lib
MANDIR       ?= $(PREFIX)/share/man
# The installed programs' default --kinds-dir.
KINDSDIR     ?= $(LIBDIR)/satin/kinds
# bash-completion loads a command's file from here when it is first completed.
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
# systemd reads units, sysusers.d and tmpfiles.d under /usr/lib and
# /usr/local/lib alike.
UNITDIR      ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR  ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR  ?= $(PREFIX)/lib/tmpfiles.d
# Where Debian's python3 looks: /usr/lib/python3/dist-packages for its own
# packages, /usr/local/lib/python3.X/dist-packages for local ones.
ifeq ($(PREFIX),/usr)
  PYTHONDIR  ?= $(PREFIX)/lib/python3/dist-packages
else
  PYTHONDIR  ?= $(PREFIX)/lib/python$(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)/dist-packages
endif
INSTALL_PYTHON := $(wildcard client/python/satin/*.py) client/python/satin/py.typed

# satind, satin-sim and satin-trace are linked again for the install, their
# default --kinds-dir being KINDSDIR and not the build's (below).
INSTALLED       := $(BUILD)/installed
INSTALL_PROGRAMS := $(INSTALLED)/satind $(SUBMIT) $(WANEM) $(KEYGEN) $(INSTALLED)/satin-sim \
                    $(INSTALLED)/satin-trace deploy/satin-grid deploy/slurm/satin-slurm
# The kind writer's and the client's APIs; neither includes anything but
# libc, so the codec's headers (proto/) stay private.
INSTALL_HEADERS  := include/satin/satin.h client/satin_client.h
# Installed by earlier builds, before the client API had types of its own;
# uninstall removes them too, so that an upgraded tree leaves nothing behind.
OLD_HEADERS      := satin_kv.h satin_proto.h
INSTALL_MAN1     := $(wildcard man/*.1)
INSTALL_MAN3     := $(wildcard man/*.3)
INSTALL_COMPLETIONS := $(addprefix deploy/completion/,satind satin-submit satin-grid \
                       satin-keygen satin-slurm satin-wanem satin-sim satin-trace)
INSTALL_MAN8     := $(wildcard man/*.8)
INSTALL_UNITS    := deploy/satind.service deploy/satind@.service
# What libsatin's objects call (client/ and proto/): the .pc's Libs.private,
# for a static link of libsatin.a (mk/satin.pc.in says why not Requires.private).
SATIN_PC_LIBS_PRIVATE := -lczmq -lzmq
# In the .pc, directories under the prefix are written as ${prefix}/...: a
# relocated tree (pkg-config --define-prefix) then still finds them.
PC_LIBDIR     = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))
PC_KINDSDIR   = $(patsubst $(PREFIX)/%,$${prefix}/%,$(KINDSDIR))
PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' \
           -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|' -e 's|@KINDSDIR@|$(PC_KINDSDIR)|' \
           -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS_PRIVATE@|$(SATIN_PC_LIBS_PRIVATE)|' \
           -e 's|@KIND_CFLAGS@|-fPIC -fstack-clash-protection|'

# The programs that load modules, with KINDSDIR as their default: their
# main objects compiled again (always: KINDSDIR follows PREFIX, which make
# cannot see change), the rest as built.
INSTALLED_DEFINE := -DSATIN_KINDS_DIR=\"$(KINDSDIR)\"
$(INSTALLED)/obj/%.o: %.c FORCE
	@mkdir -p $(dir $@)
	$(call say,CC,$< for $(KINDSDIR))$(CC) $(INC_ALL) -Isim -Itrace -Idaemon/engine $(CFLAGS) \
	  $(INSTALLED_DEFINE) -c -o $@ $<
$(INSTALLED)/satind: $(INSTALLED)/obj/daemon/satind.o $(INSTALLED)/obj/daemon/options.o \
                     $(call obj,daemon/accept_guard.c) $(LIB_CORE) $(LIB_ENGINE) $(LIB_COMMON) \
                     $(LIB_PROTO) $(LIB_CLIENT)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $^ $(LDLIBS) -ldl
$(INSTALLED)/satin-sim: $(INSTALLED)/obj/sim/satin_sim.o $(call obj,sim/sim_csv.c $(SIM_SRC) $(TRACE_SRC)) \
                        $(LIB_CORE) $(LIB_ENGINE) $(LIB_CLIENT) $(LIB_COMMON) $(LIB_PROTO) $(LIB_KINDS)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $(filter %.o,$^) $(LINK_KINDS) \
	  $(filter-out $(LIB_KINDS),$(filter %.a,$^)) $(LDLIBS) -ldl
$(INSTALLED)/satin-trace: $(INSTALLED)/obj/trace/satin_trace.o $(call obj,$(TRACE_SRC)) $(LIB_CORE) \
                          $(LIB_ENGINE) $(LIB_COMMON) $(LIB_PROTO) $(LIB_KINDS)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $(KIND_API_LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS) -ldl

# The units and tmpfiles snippet name /usr/bin and /etc, right for
# PREFIX=/usr; other prefixes get their own paths.
INSTALL_PATHS_SED := sed -e 's|/usr/bin/|$(BINDIR)/|g' -e 's|/etc/|$(SYSCONFDIR)/|g'

# Not `all`: installing needs the programs and the library, not the tests
# and benchmarks.
install: $(INSTALL_PROGRAMS) $(LIB_CLIENT) $(LIB_CLIENT_SO) $(KINDS_MODULE)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR)/satin $(DESTDIR)$(LIBDIR)/pkgconfig \
	  $(DESTDIR)$(KINDSDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(UNITDIR) \
	  $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(SYSCONFDIR)/satin \
	  $(DESTDIR)$(SYSCONFDIR)/default
	install -m 0755 $(INSTALL_PROGRAMS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(INSTALL_HEADERS) $(DESTDIR)$(INCLUDEDIR)/satin/
	install -m 0644 $(LIB_CLIENT) $(LIB_CLIENT_SO) $(DESTDIR)$(LIBDIR)/
	@# Relative links, so that the tree can move; ldconfig would make the
	@# soname's link itself, but it does not run here.
	ln -sf $(notdir $(LIB_CLIENT_SO)) $(DESTDIR)$(LIBDIR)/$(LIBSATIN_SONAME)
	ln -sf $(notdir $(LIB_CLIENT_SO)) $(DESTDIR)$(LIBDIR)/libsatin.so
	$(PC_SED) mk/satin.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/satin.pc
	$(PC_SED) mk/satin-kind.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/satin-kind.pc
	chmod 0644 $(DESTDIR)$(LIBDIR)/pkgconfig/satin.pc $(DESTDIR)$(LIBDIR)/pkgconfig/satin-kind.pc
	install -m 0644 $(KINDS_MODULE) $(DESTDIR)$(KINDSDIR)/
	install -m 0644 $(INSTALL_MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(INSTALL_MAN3) $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 $(INSTALL_MAN8) $(DESTDIR)$(MANDIR)/man8/
	for u in $(INSTALL_UNITS); do \
	  $(INSTALL_PATHS_SED) $$u >$(DESTDIR)$(UNITDIR)/$${u##*/} && \
	  chmod 0644 $(DESTDIR)$(UNITDIR)/$${u##*/} || exit 1; \
	done
	install -m 0644 deploy/satin.sysusers $(DESTDIR)$(SYSUSERSDIR)/satin.conf
	$(INSTALL_PATHS_SED) deploy/satin.tmpfiles >$(DESTDIR)$(TMPFILESDIR)/satin.conf
	chmod 0644 $(DESTDIR)$(TMPFILESDIR)/satin.conf
	install -m 0644 deploy/etc/grid.yaml $(DESTDIR)$(SYSCONFDIR)/satin/grid.yaml.example
	@# An operator's configuration is never overwritten.
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/satind ] || \
	  install -m 0644 deploy/etc/default-satind $(DESTDIR)$(SYSCONFDIR)/default/satind
	install -d -m 0700 $(DESTDIR)$(SYSCONFDIR)/satin/keys
	install -d $(DESTDIR)$(COMPLETIONDIR)
	install -m 0644 $(INSTALL_COMPLETIONS) $(DESTDIR)$(COMPLETIONDIR)/
	install -d $(DESTDIR)$(PYTHONDIR)/satin
	install -m 0644 $(INSTALL_PYTHON) $(DESTDIR)$(PYTHONDIR)/satin/
	printf '"""Written by make install: where libsatin was installed."""\nLIBDIR = "%s"\n' \
	  '$(LIBDIR)' >$(DESTDIR)$(PYTHONDIR)/satin/_installed.py
	chmod 0644 $(DESTDIR)$(PYTHONDIR)/satin/_installed.py

# Leaves the configuration (/etc/default/satind, /etc/satin/grid.yaml, the
# keys) and the directories that may hold it.
uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(INSTALL_PROGRAMS))) \
	  $(addprefix $(DESTDIR)$(COMPLETIONDIR)/,$(notdir $(INSTALL_COMPLETIONS))) \
	  $(addprefix $(DESTDIR)$(INCLUDEDIR)/satin/,$(notdir $(INSTALL_HEADERS)) $(OLD_HEADERS)) \
	  $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_CLIENT)) $(DESTDIR)$(LIBDIR)/pkgconfig/satin.pc \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/satin-kind.pc $(DESTDIR)$(KINDSDIR)/$(notdir $(KINDS_MODULE)) \
	  $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_CLIENT_SO)) $(DESTDIR)$(LIBDIR)/$(LIBSATIN_SONAME) \
	  $(DESTDIR)$(LIBDIR)/libsatin.so \
	  $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(INSTALL_MAN1))) \
	  $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(INSTALL_MAN3))) \
	  $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(INSTALL_MAN8))) \
	  $(addprefix $(DESTDIR)$(UNITDIR)/,$(notdir $(INSTALL_UNITS))) \
	  $(DESTDIR)$(SYSUSERSDIR)/satin.conf $(DESTDIR)$(TMPFILESDIR)/satin.conf \
	  $(DESTDIR)$(SYSCONFDIR)/satin/grid.yaml.example
	rm -f $(addprefix $(DESTDIR)$(PYTHONDIR)/satin/,$(notdir $(INSTALL_PYTHON)) _installed.py)
	rm -rf $(DESTDIR)$(PYTHONDIR)/satin/__pycache__
	rmdir $(DESTDIR)$(INCLUDEDIR)/satin $(DESTDIR)$(PYTHONDIR)/satin 2>/dev/null || true
	rmdir $(DESTDIR)$(KINDSDIR) $(DESTDIR)$(LIBDIR)/satin 2>/dev/null || true

# tests/integration/*.t already runs every shell test there (INTEG_TESTS);
# listing install.t again would run it twice.
EXTRA_TESTS += $(filter-out $(INTEG_TESTS),tests/integration/install.t)

.PHONY: install uninstall FORCE
FORCE:
