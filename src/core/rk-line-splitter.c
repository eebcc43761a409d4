/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-line-splitter.c — bounded line framing of the byte streams Reckon reads. */
#define G_LOG_DOMAIN "rk-line-splitter"
#include "config.h"

#include <string.h>

#include "rk-line-splitter.h"
#include "rk-util.h"

struct _RkLineSplitter
{
  gsize                max_line;
  RkLineSplitterFlags  flags;
  RkLineFunc           func;
  gpointer             user_data;
  GString             *line;        /* the line being read, without its end */
  gboolean             after_cr;    /* ANY_END: the last line ended with CR */
  gboolean             discarding;  /* SKIP_LONG: inside an over-long line */
  gboolean             failed;
};

RkLineSplitter *
rk_line_splitter_new (gsize                max_line,
                      RkLineSplitterFlags  flags,
                      RkLineFunc           func,
                      gpointer             user_data)
{
  RkLineSplitter *self;

  g_return_val_if_fail (max_line > 0, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  self = g_new0 (RkLineSplitter, 1);
  self->max_line = max_line;
  self->flags = flags;
  self->func = func;
  self->user_data = user_data;
  self->line = g_string_sized_new (MIN (max_line, 256));
  return self;
}

void
rk_line_splitter_free (RkLineSplitter *self)
{
  if (self == NULL)
    return;
  g_string_free (self->line, TRUE);
  g_free (self);
}

gsize
rk_line_splitter_pending (RkLineSplitter *self)
{
  return self->line->len;
}

void
rk_line_splitter_reset (RkLineSplitter *self)
{
  g_string_truncate (self->line, 0);
  self->after_cr = FALSE;
  self->discarding = FALSE;
  self->failed = FALSE;
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
emit (RkLineSplitter *self,
      GError        **error)
{
  gsize len = self->line->len;
  gboolean deliver;

  if (!(self->flags & RK_LINE_SPLITTER_ANY_END) && len > 0 && self->line->str[len - 1] == '\r')
    len--;
  self->line->str[len] = '\0';
  deliver = !(self->flags & RK_LINE_SPLITTER_SKIP_BLANK) || !is_blank (self->line->str, len);
  if (deliver && !self->func (self->line->str, len, self->user_data, error))
    {
      self->failed = TRUE;
      return FALSE;
    }
  g_string_truncate (self->line, 0);
  return TRUE;
}

/* The end of the line that starts at @p, or @end. */
static const char *
find_end (RkLineSplitter *self,
          const char     *p,
          const char     *end)
{
  if (self->flags & RK_LINE_SPLITTER_ANY_END)
    {
      while (p < end && *p != '\n' && *p != '\r')
        p++;
      return p;
    }
  p = memchr (p, '\n', (gsize) (end - p));
  return p != NULL ? p : end;
}

gboolean
rk_line_splitter_feed (RkLineSplitter *self,
                       const char     *buf,
                       gsize           len,
                       GError        **error)
{
  const char *p = buf;
  const char *end = buf + len;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (buf != NULL || len == 0, FALSE);

  if (self->failed)
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "the line stream already failed");
      return FALSE;
    }
  while (p < end)
    {
      const char *stop;

      /* The LF of a CRLF: the line ended at its CR already. */
      if (self->after_cr)
        {
          self->after_cr = FALSE;
          if (*p == '\n')
            {
              p++;
              continue;
            }
        }
      stop = find_end (self, p, end);
      if (self->discarding)
        ;
      else if (self->line->len + (gsize) (stop - p) <= self->max_line)
        g_string_append_len (self->line, p, stop - p);
      else if (self->flags & RK_LINE_SPLITTER_SKIP_LONG)
        {
          /* Report once, then drop bytes up to the line's end. */
          g_string_truncate (self->line, 0);
          self->discarding = TRUE;
          if (!self->func (NULL, 0, self->user_data, error))
            {
              self->failed = TRUE;
              return FALSE;
            }
        }
      else
        {
          self->failed = TRUE;
          g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                       "line over %" G_GSIZE_FORMAT " bytes", self->max_line);
          return FALSE;
        }
      if (stop == end)
        break;
      self->after_cr = *stop == '\r';
      p = stop + 1;
      if (self->discarding)
        self->discarding = FALSE;
      else if (!emit (self, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
rk_line_splitter_finish (RkLineSplitter *self,
                         GError        **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->failed)
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "the line stream already failed");
      return FALSE;
    }
  self->after_cr = FALSE;
  self->discarding = FALSE;
  if (self->line->len > 0)
    return emit (self, error);
  return TRUE;
}
