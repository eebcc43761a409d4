/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-ndjson.c — newline-delimited JSON framing (Ollama) on the line splitter. */
#define G_LOG_DOMAIN "rk-ndjson"
#include "config.h"

#include "rk-line-splitter.h"
#include "rk-ndjson.h"

/* NDJSON is lines of LF (or CRLF) with blank lines between records
 * allowed: the line splitter, and blank lines dropped. */
struct _RkNdjsonSplitter
{
  RkLineSplitter   *lines;
  RkNdjsonLineFunc  func;
  gpointer          user_data;
};

static gboolean
is_blank (const char *s,
          gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
      return FALSE;
  return TRUE;
}

static gboolean
line_cb (const char  *line,
         gsize        len,
         gpointer     user_data,
         GError     **error)
{
  RkNdjsonSplitter *self = user_data;

  if (is_blank (line, len))
    return TRUE;
  return self->func (line, len, self->user_data, error);
}

RkNdjsonSplitter *
rk_ndjson_splitter_new (gsize            max_line,
                        RkNdjsonLineFunc func,
                        gpointer         user_data)
{
  RkNdjsonSplitter *self = g_new0 (RkNdjsonSplitter, 1);

  self->lines = rk_line_splitter_new (max_line ? max_line : RK_NDJSON_DEFAULT_MAX_LINE,
                                      RK_LINE_SPLITTER_DEFAULT, line_cb, self);
  self->func = func;
  self->user_data = user_data;
  return self;
}

void
rk_ndjson_splitter_free (RkNdjsonSplitter *self)
{
  if (self == NULL)
    return;
  rk_line_splitter_free (self->lines);
  g_free (self);
}

gboolean
rk_ndjson_splitter_feed (RkNdjsonSplitter *self,
                         const char       *buf,
                         gsize             len,
                         GError          **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return rk_line_splitter_feed (self->lines, buf, len, error);
}

gboolean
rk_ndjson_splitter_finish (RkNdjsonSplitter *self,
                           GError          **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return rk_line_splitter_finish (self->lines, error);
}
