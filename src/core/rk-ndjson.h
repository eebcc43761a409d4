/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-ndjson.h — incremental splitter of newline-delimited JSON (Ollama's
 * streaming framing) into lines, with a size limit. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RK_NDJSON_DEFAULT_MAX_LINE (16u * 1024 * 1024)

typedef struct _RkNdjsonSplitter RkNdjsonSplitter;

/* Called for each non-blank line, without its LF or CRLF; @line is
 * NUL-terminated but may contain NULs. Return FALSE and set @error to stop. */
typedef gboolean (*RkNdjsonLineFunc) (const char  *line,
                                      gsize        len,
                                      gpointer     user_data,
                                      GError     **error);

RkNdjsonSplitter *rk_ndjson_splitter_new    (gsize              max_line,
                                             RkNdjsonLineFunc   func,
                                             gpointer           user_data);
void              rk_ndjson_splitter_free   (RkNdjsonSplitter  *self);
gboolean          rk_ndjson_splitter_feed   (RkNdjsonSplitter  *self,
                                             const char        *buf,
                                             gsize              len,
                                             GError           **error);
/* End of stream: a last line without its newline is still delivered. */
gboolean          rk_ndjson_splitter_finish (RkNdjsonSplitter  *self,
                                             GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkNdjsonSplitter, rk_ndjson_splitter_free)

G_END_DECLS
