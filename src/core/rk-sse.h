/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-sse.h — incremental parser of Server-Sent Events (text/event-stream), the
 * framing of OpenAI-compatible streaming replies. Bytes may arrive in any split. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Default limits: one line, and the data of one event. */
#define RK_SSE_DEFAULT_MAX_LINE  (8u * 1024 * 1024)
#define RK_SSE_DEFAULT_MAX_EVENT (16u * 1024 * 1024)

typedef struct _RkSseParser RkSseParser;

/* Called once per complete event. @event is the `event:` field or NULL;
 * @data is the joined `data:` lines (NUL-terminated, @data_len bytes, may
 * contain NULs). Return FALSE and set @error to stop parsing. */
typedef gboolean (*RkSseEventFunc) (const char  *event,
                                    const char  *data,
                                    gsize        data_len,
                                    gpointer     user_data,
                                    GError     **error);

RkSseParser *rk_sse_parser_new    (gsize           max_line,
                                   gsize           max_event,
                                   RkSseEventFunc  func,
                                   gpointer        user_data);
void         rk_sse_parser_free   (RkSseParser    *self);
/* Feeds bytes; calls the event function for each event completed by them.
 * Errors are RK_PARSE_ERROR_TOO_LARGE or whatever the event function set;
 * after an error the parser refuses further input. */
gboolean     rk_sse_parser_feed   (RkSseParser    *self,
                                   const char     *buf,
                                   gsize           len,
                                   GError        **error);
/* End of stream: a last line without its newline and a last event without
 * its blank line are still delivered (servers that close early are common). */
gboolean     rk_sse_parser_finish (RkSseParser    *self,
                                   GError        **error);
/* Number of comment lines seen (llama.cpp and proxies send ": ping"). */
guint        rk_sse_parser_get_n_comments (RkSseParser *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkSseParser, rk_sse_parser_free)

G_END_DECLS
