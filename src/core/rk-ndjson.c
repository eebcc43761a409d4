/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "rk-ndjson"
#include "config.h"

#include <string.h>

#include "rk-ndjson.h"
#include "rk-util.h"

struct _RkNdjsonSplitter
{
  gsize             max_line;
  RkNdjsonLineFunc  func;
  gpointer          user_data;
  GString          *line;
  gboolean          failed;
};

RkNdjsonSplitter *
rk_ndjson_splitter_new (gsize            max_line,
                        RkNdjsonLineFunc func,
                        gpointer         user_data)
{
  RkNdjsonSplitter *self = g_new0 (RkNdjsonSplitter, 1);

  self->max_line = max_line ? max_line : RK_NDJSON_DEFAULT_MAX_LINE;
  self->func = func;
  self->user_data = user_data;
  self->line = g_string_sized_new (256);
  return self;
}

void
rk_ndjson_splitter_free (RkNdjsonSplitter *self)
{
  if (self == NULL)
    return;
  g_string_free (self->line, TRUE);
  g_free (self);
}

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
emit_line (RkNdjsonSplitter *self,
           GError          **error)
{
  gsize len = self->line->len;

  if (len > 0 && self->line->str[len - 1] == '\r')
    len--;
  if (is_blank (self->line->str, len))
    return TRUE;
  self->line->str[len] = '\0';
  return self->func (self->line->str, len, self->user_data, error);
}

gboolean
rk_ndjson_splitter_feed (RkNdjsonSplitter *self,
                         const char       *buf,
                         gsize             len,
                         GError          **error)
{
  const char *p = buf;
  const char *end = buf + len;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (buf != NULL || len == 0, FALSE);

  if (self->failed)
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                           "the line stream already failed");
      return FALSE;
    }

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *stop = nl ? nl : end;

      if (self->line->len + (stop - p) > self->max_line)
        {
          self->failed = TRUE;
          g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                       "line over %" G_GSIZE_FORMAT " bytes", self->max_line);
          return FALSE;
        }
      g_string_append_len (self->line, p, stop - p);
      if (nl == NULL)
        break;
      p = nl + 1;
      if (!emit_line (self, error))
        {
          self->failed = TRUE;
          return FALSE;
        }
      g_string_truncate (self->line, 0);
    }
  return TRUE;
}

gboolean
rk_ndjson_splitter_finish (RkNdjsonSplitter *self,
                           GError          **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->failed)
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                           "the line stream already failed");
      return FALSE;
    }
  if (self->line->len > 0)
    {
      if (!emit_line (self, error))
        {
          self->failed = TRUE;
          return FALSE;
        }
      g_string_truncate (self->line, 0);
    }
  return TRUE;
}
