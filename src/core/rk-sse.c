/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-sse.c — Server-Sent Events parser following the WHATWG event-stream
 * rules: CRLF, LF or CR line ends, `field: value`, comments, blank line ends an event. */
#define G_LOG_DOMAIN "rk-sse"
#include "config.h"

#include <string.h>

#include "rk-line-splitter.h"
#include "rk-sse.h"
#include "rk-util.h"

struct _RkSseParser
{
  RkLineSplitter *lines;
  gsize           max_event;
  RkSseEventFunc  func;
  gpointer        user_data;
  GString        *data;        /* data lines of the event, each followed by \n */
  GString        *event;       /* the event field, if any */
  gboolean        has_data;
  gboolean        has_event;
  gboolean        started;     /* past the optional BOM */
  guint           n_comments;
};

static gboolean line_cb (const char  *line,
                         gsize        len,
                         gpointer     user_data,
                         GError     **error);

RkSseParser *
rk_sse_parser_new (gsize          max_line,
                   gsize          max_event,
                   RkSseEventFunc func,
                   gpointer       user_data)
{
  RkSseParser *self = g_new0 (RkSseParser, 1);

  self->lines = rk_line_splitter_new (max_line ? max_line : RK_SSE_DEFAULT_MAX_LINE, RK_LINE_SPLITTER_ANY_END,
                                      line_cb, self);
  self->max_event = max_event ? max_event : RK_SSE_DEFAULT_MAX_EVENT;
  self->func = func;
  self->user_data = user_data;
  self->data = g_string_sized_new (256);
  self->event = g_string_new (NULL);
  return self;
}

void
rk_sse_parser_free (RkSseParser *self)
{
  if (self == NULL)
    return;
  rk_line_splitter_free (self->lines);
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
line_cb (const char  *line,
         gsize        len,
         gpointer     user_data,
         GError     **error)
{
  static const char bom[] = "\xef\xbb\xbf";
  RkSseParser *self = user_data;
  const char *colon;
  gsize name_len;
  const char *value;
  gsize value_len;

  /* A UTF-8 byte order mark may open the stream. */
  if (!self->started)
    {
      self->started = TRUE;
      if (len >= 3 && memcmp (line, bom, 3) == 0)
        line += 3, len -= 3;
    }
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
  g_return_val_if_fail (self != NULL, FALSE);
  return rk_line_splitter_feed (self->lines, buf, len, error);
}

gboolean
rk_sse_parser_finish (RkSseParser *self,
                      GError     **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  /* The last event may lack its blank line. */
  return rk_line_splitter_finish (self->lines, error) && dispatch (self, error);
}
