# mk/dashboard.mk - the dashboard's files (daemon/dashboard/) compiled into satind:
# build/gen/dashboard_assets.c holds each file as a byte array and the table
# satin_dashboard_asset() looks paths up in (daemon/dashboard_assets.h).
DASHBOARD_FILES := $(sort $(wildcard daemon/dashboard/*.html daemon/dashboard/*.js daemon/dashboard/*.css))
DASHBOARD_C     := $(BUILD)/gen/dashboard_assets.c
DASHBOARD_OBJ   := $(BUILD)/obj/gen/dashboard_assets.o

$(DASHBOARD_C): $(DASHBOARD_FILES) mk/dashboard.mk
	@mkdir -p $(dir $@)
	$(call say,GEN,$@){ \
	  echo '/* Made by mk/dashboard.mk from daemon/dashboard/: do not edit. */'; \
	  echo '#include "dashboard_assets.h"'; echo '#include <string.h>'; \
	  i=0; for f in $(DASHBOARD_FILES); do \
	    echo "static const unsigned char file$$i[] = {"; \
	    od -An -v -tx1 "$$f" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	    echo "};"; i=$$((i + 1)); \
	  done; \
	  echo 'static const satin_asset assets[] = {'; \
	  i=0; for f in $(DASHBOARD_FILES); do \
	    case $$f in *.html) t='text/html; charset=utf-8';; *.js) t='text/javascript; charset=utf-8';; *) t='text/css; charset=utf-8';; esac; \
	    echo "    {\"/$${f##*/}\", \"$$t\", file$$i, sizeof file$$i},"; i=$$((i + 1)); \
	  done; \
	  echo '};'; \
	  echo 'const satin_asset *satin_dashboard_asset(const char *path)'; \
	  echo '{'; \
	  echo '    for (size_t i = 0; i < sizeof assets / sizeof assets[0]; i++)'; \
	  echo '        if (strcmp(assets[i].path, path) == 0)'; \
	  echo '            return &assets[i];'; \
	  echo '    return NULL;'; \
	  echo '}'; \
	} >$@.tmp && mv $@.tmp $@

$(DASHBOARD_OBJ): $(DASHBOARD_C)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) -Idaemon $(CFLAGS) -c -o $@ $<
