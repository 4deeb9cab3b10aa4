# mk/deps.mk - the Debian packages: `make deps` installs those missing, and any
# other make that compiles stops at once, before compiling anything, when one
# the build needs is missing (instead of hundreds of undefined references at
# the link), naming them and `make deps` as the fix.

# What compiling and linking needs (README.md, "Build, test, install", says
# what each is for).
BUILD_DEB_PKGS := build-essential pkg-config libzmq3-dev libsodium-dev libssl-dev libyaml-dev \
                  libczmq-dev libsystemd-dev libmicrohttpd-dev
# What the tests need besides: prove (perl), curl and the Prometheus client
# library's parser (metrics.t), bash-completion (completion.t), gnuplot
# (satin-sim --lifestory and satin-submit --profile PNGs: sim.t, profile.t);
# prometheus brings promtool (metrics.t); pytest, setuptools and pip test and
# install the Python client (client/python, python_client.t); chromium opens
# the dashboard (dashboard.t); mandoc lints the man pages (conventions.t).
TEST_DEB_PKGS  := perl curl python3-prometheus-client bash-completion gnuplot-nox \
                  prometheus python3-pytest python3-setuptools python3-pip chromium mandoc
DEB_PKGS       := $(BUILD_DEB_PKGS) $(TEST_DEB_PKGS)

# missing_debs PACKAGE...: those of the packages dpkg does not list as installed
missing_debs = $(shell for p in $(1); do \
  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done)

deps:
	@missing="$(call missing_debs,$(DEB_PKGS))"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "not root: run 'sudo apt-get install $$missing' first" >&2; exit 1; fi; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# The goals that install the packages first (they depend on deps and build
# in a make of their own, which checks then), or compile nothing.
DEPS_FIRST := deps check check-asan check-tsan check-repeat demo bench fuzz fuzz-build clean \
              uninstall
ifeq ($(filter $(DEPS_FIRST),$(MAKECMDGOALS)),)
  # The libraries are what pkg-config finds (a build may use its own, with
  # PKG_CONFIG_PATH); only when one is not found are the packages asked.
  MISSING_LIBS := $(shell command -v pkg-config >/dev/null 2>&1 || echo pkg-config; \
    command -v pkg-config >/dev/null 2>&1 && for m in $(PKGS) libsodium; do \
      pkg-config --exists $$m || echo $$m; done; \
    command -v $(CC) >/dev/null 2>&1 || echo $(CC))
  ifneq ($(MISSING_LIBS),)
    MISSING_DEBS := $(call missing_debs,$(BUILD_DEB_PKGS))
    $(error the build needs $(if $(MISSING_DEBS),Debian packages that are missing: $(MISSING_DEBS),$(strip \
      $(MISSING_LIBS)), which pkg-config (or the PATH) does not find). Run 'make deps' (as root: \
      it installs them with apt-get), then make again)
  endif
endif

.PHONY: deps
