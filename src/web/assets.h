/* The page's files, embedded into the binary at build time by embed_tool.c (the project's
 * own HTML/CSS/JS from src/web/ui and uPlot from npm): nothing is read from disk or fetched
 * from the network at run time. */
#ifndef LP_WEB_ASSETS_H
#define LP_WEB_ASSETS_H

#include <stddef.h>

struct lp_web_asset {
    const char *path; /* URL path: "/", "/app.js" */
    const char *type; /* Content-Type */
    const unsigned char *data;
    size_t len;
};

/* The asset served at path, or NULL. */
const struct lp_web_asset *lp_web_asset_find(const char *path);

#endif
