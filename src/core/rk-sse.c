/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-sse.c — Server-Sent Events parser following the WHATWG event-stream
 * rules: CRLF, LF or CR line ends, `field: value`, comments, blank line ends an event. */
#define G_LOG_DOMAIN "rk-sse"
#include "config.h"

#include <string.h>

#include "rk-sse.h"
#include "rk-util.h"

struct _RkSseParser
{
  gsize           max_line;
  gsize           max_event;
  RkSseEventFunc  func;
  gpointer        user_data;
  GString        *line;        /* the line being read, without its end */
  GString        *data;        /* data lines of the event, each followed by \n */
  GString        *event;       /* the event field, if any */
  gboolean        has_data;
  gboolean        has_event;
  gboolean        after_cr;    /* the previous byte ended a line with CR */
  gboolean        started;     /* past the optional BOM */
  gboolean        failed;
  guint           n_comments;
};

RkSseParser *
rk_sse_parser_new (gsize          max_line,
                   gsize          max_event,
                   RkSseEventFunc func,
                   gpointer       user_data)
{
  RkSseParser *self = g_new0 (RkSseParser, 1);

  self->max_line = max_line ? max_line : RK_SSE_DEFAULT_MAX_LINE;
  self->max_event = max_event ? max_event : RK_SSE_DEFAULT_MAX_EVENT;
  self->func = func;
  self->user_data = user_data;
  self->line = g_string_sized_new (256);
  self->data = g_string_sized_new (256);
  self->event = g_string_new (NULL);
  return self;
}

void
rk_sse_parser_free (RkSseParser *self)
{
  if (self == NULL)
    return;
  g_string_free (self->line, TRUE);
  g_string_free (self->data, TRUE);
  g_string_free (self->event, TRUE);
  g_free (self);
}

guint
rk_sse_parser_get_n_comments (RkSseParser *self)
{
  return self->n_comments;
}

static gboolean
dispatch (RkSseParser *self,
          GError     **error)
{
  gboolean ok = TRUE;

  if (self->has_data)
    {
      /* The data buffer ends with the \n of its last line; drop it. */
      if (self->data->len > 0)
        g_string_truncate (self->data, self->data->len - 1);
      ok = self->func (self->has_event ? self->event->str : NULL,
                       self->data->str, self->data->len,
                       self->user_data, error);
    }
  g_string_truncate (self->data, 0);
  g_string_truncate (self->event, 0);
  self->has_data = FALSE;
  self->has_event = FALSE;
  return ok;
}

static gboolean
process_line (RkSseParser *self,
              GError     **error)
{
  const char *line = self->line->str;
  gsize len = self->line->len;
  const char *colon;
  gsize name_len;
  const char *value;
  gsize value_len;

  if (len == 0)
    return dispatch (self, error);

  if (line[0] == ':')
    {
      self->n_comments++;
      return TRUE;
    }

  colon = memchr (line, ':', len);
  if (colon != NULL)
    {
      name_len = colon - line;
      value = colon + 1;
      value_len = len - name_len - 1;
      if (value_len > 0 && value[0] == ' ')
        {
          value++;
          value_len--;
        }
    }
  else
    {
      name_len = len;
      value = "";
      value_len = 0;
    }

  if (name_len == 4 && memcmp (line, "data", 4) == 0)
    {
      if (self->data->len + value_len + 1 > self->max_event)
        {
          g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                       "event data over %" G_GSIZE_FORMAT " bytes", self->max_event);
          return FALSE;
        }
      g_string_append_len (self->data, value, value_len);
      g_string_append_c (self->data, '\n');
      self->has_data = TRUE;
    }
  else if (name_len == 5 && memcmp (line, "event", 5) == 0)
    {
      g_string_truncate (self->event, 0);
      g_string_append_len (self->event, value, value_len);
      self->has_event = TRUE;
    }
  /* id, retry and unknown fields are ignored, as the standard says. */
  return TRUE;
}

gboolean
rk_sse_parser_feed (RkSseParser *self,
                    const char  *buf,
                    gsize        len,
                    GError     **error)
{
  const char *p = buf;
  const char *end = buf + len;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (buf != NULL || len == 0, FALSE);

  if (self->failed)
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                           "the event stream already failed");
      return FALSE;
    }

  while (p < end)
    {
      const char *stop;

      if (!self->started)
        {
          /* A UTF-8 byte order mark may open the stream; it may arrive split. */
          static const char bom[] = "\xef\xbb\xbf";
          gsize have = self->line->len;

          if ((guchar) *p == (guchar) bom[have])
            {
              g_string_append_c (self->line, *p++);
              if (self->line->len == 3)
                {
                  g_string_truncate (self->line, 0);
                  self->started = TRUE;
                }
              continue;
            }
          self->started = TRUE;
        }

      if (self->after_cr)
        {
          self->after_cr = FALSE;
          if (*p == '\n')
            {
              p++;
              continue;
            }
        }

      /* Copy up to the next line end in one go. */
      stop = p;
      while (stop < end && *stop != '\n' && *stop != '\r')
        stop++;

      if (stop > p)
        {
          if (self->line->len + (stop - p) > self->max_line)
            {
              self->failed = TRUE;
              g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                           "event stream line over %" G_GSIZE_FORMAT " bytes", self->max_line);
              return FALSE;
            }
          g_string_append_len (self->line, p, stop - p);
        }
      if (stop == end)
        break;

      self->after_cr = (*stop == '\r');
      p = stop + 1;
      if (!process_line (self, error))
        {
          self->failed = TRUE;
          return FALSE;
        }
      g_string_truncate (self->line, 0);
    }
  return TRUE;
}

gboolean
rk_sse_parser_finish (RkSseParser *self,
                      GError     **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->failed)
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                           "the event stream already failed");
      return FALSE;
    }
  if (!self->started)
    {
      /* Only a partial BOM: nothing to deliver. */
      g_string_truncate (self->line, 0);
      self->started = TRUE;
    }
  if (self->line->len > 0)
    {
      if (!process_line (self, error))
        goto fail;
      g_string_truncate (self->line, 0);
    }
  if (!dispatch (self, error))
    goto fail;
  return TRUE;

fail:
  self->failed = TRUE;
  return FALSE;
}
