/*
 * dashboard_assets.h - the dashboard's files (daemon/dashboard/), compiled
 * into satind by the build (mk/dashboard.mk writes the table), so that the
 * page needs nothing from the network or the disk.
 */
#ifndef SATIN_DASHBOARD_ASSETS_H
#define SATIN_DASHBOARD_ASSETS_H

#include <stddef.h>

typedef struct satin_asset {
    const char *path;            /* "/index.html", "/dashboard.js", ... */
    const char *type;            /* its Content-Type */
    const unsigned char *data;
    size_t len;
} satin_asset;

/* The file served at `path`, or NULL. */
const satin_asset *satin_dashboard_asset(const char *path);

#endif
