/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-line-splitter.h — a byte stream cut into lines of at most a given
 * length, bytes arriving in any split: the one framing under the kernel
 * protocol, NDJSON (Ollama: RK_LINE_SPLITTER_SKIP_BLANK) and Server-Sent
 * Events (OpenAI-compatible, in rk-sse). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  /* Lines end at LF; a CR just before it is dropped. */
  RK_LINE_SPLITTER_DEFAULT   = 0,
  /* Lines end at CR, LF or CRLF (the event-stream rules). */
  RK_LINE_SPLITTER_ANY_END   = 1 << 0,
  /* A line over the limit is reported once (the line function gets NULL)
   * and skipped up to its end; the lines after it come through. Without
   * this flag, feed fails with RK_PARSE_ERROR_TOO_LARGE and the splitter
   * refuses further input. */
  RK_LINE_SPLITTER_SKIP_LONG = 1 << 1,
  /* Lines of nothing but spaces, tabs and CRs are dropped, not delivered
   * (NDJSON allows them between records). */
  RK_LINE_SPLITTER_SKIP_BLANK = 1 << 2,
} RkLineSplitterFlags;

typedef struct _RkLineSplitter RkLineSplitter;

/* Called for each line, without its end: @line is NUL-terminated and may
 * contain NULs; @len is at most the limit. NULL and 0 for a skipped
 * over-long line (RK_LINE_SPLITTER_SKIP_LONG). Return FALSE and set @error
 * to stop: the splitter then refuses further input. */
typedef gboolean (*RkLineFunc) (const char  *line,
                                gsize        len,
                                gpointer     user_data,
                                GError     **error);

RkLineSplitter *rk_line_splitter_new     (gsize                max_line,
                                          RkLineSplitterFlags  flags,
                                          RkLineFunc           func,
                                          gpointer             user_data);
void            rk_line_splitter_free    (RkLineSplitter      *self);
gboolean        rk_line_splitter_feed    (RkLineSplitter      *self,
                                          const char          *buf,
                                          gsize                len,
                                          GError             **error);
/* End of stream: a last line without its end is still delivered. */
gboolean        rk_line_splitter_finish  (RkLineSplitter      *self,
                                          GError             **error);
/* Bytes of an unfinished line held so far. */
gsize           rk_line_splitter_pending (RkLineSplitter      *self);
/* Forgets an unfinished line and a failure: a new stream begins. */
void            rk_line_splitter_reset   (RkLineSplitter      *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkLineSplitter, rk_line_splitter_free)

G_END_DECLS
