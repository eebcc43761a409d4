/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-profile-progress.c — parses the profiler's progress lines out of its
 * stderr, strictly (the profiler runs on untrusted files in the sandbox). */
#define G_LOG_DOMAIN "rk-profile"
#include "config.h"

#include <string.h>

#include "rk-profile-progress.h"

#define PREFIX "reckon-progress"

/* One number at @p (up to @end): 1 to 15 digits, no leading zero. */
static gboolean
parse_number (const char **p,
              const char  *end,
              guint64     *out)
{
  const char *s = *p;
  guint64 v = 0;
  guint digits = 0;

  while (s < end && *s >= '0' && *s <= '9')
    {
      if (++digits > 15)
        return FALSE;
      v = v * 10 + (guint64) (*s - '0');
      s++;
    }
  if (digits == 0 || (digits > 1 && **p == '0'))
    return FALSE;
  *p = s;
  *out = v;
  return TRUE;
}

gboolean
rk_profile_progress_parse (const char *line,
                           gsize       len,
                           guint       n_files,
                           guint      *index,
                           guint64    *done,
                           guint64    *total)
{
  const char *p = line;
  const char *end = line + len;
  guint64 v[3];

  g_return_val_if_fail (index != NULL && done != NULL && total != NULL, FALSE);

  if (line == NULL || len > RK_PROFILE_PROGRESS_MAX_LINE || len < sizeof PREFIX - 1 ||
      memcmp (line, PREFIX, sizeof PREFIX - 1) != 0)
    return FALSE;
  p += sizeof PREFIX - 1;
  for (guint i = 0; i < 3; i++)
    {
      if (p >= end || *p != ' ')
        return FALSE;
      p++;
      if (!parse_number (&p, end, &v[i]))
        return FALSE;
    }
  if (p != end)
    return FALSE;
  if (v[0] >= n_files || v[2] == 0 || v[1] > v[2])
    return FALSE;
  *index = (guint) v[0];
  *done = v[1];
  *total = v[2];
  return TRUE;
}

void
rk_profile_progress_reader_init (RkProfileProgressReader   *reader,
                                 guint                      n_files,
                                 GByteArray                *rest,
                                 gsize                      rest_cap,
                                 RkProfileProgressLineFunc  func,
                                 gpointer                   user_data)
{
  memset (reader, 0, sizeof *reader);
  reader->n_files = n_files;
  reader->rest = rest;
  reader->rest_cap = rest_cap;
  reader->func = func;
  reader->user_data = user_data;
}

static void
keep (RkProfileProgressReader *reader,
      const void              *data,
      gsize                    len)
{
  if (reader->rest == NULL || reader->rest->len >= reader->rest_cap)
    return;
  g_byte_array_append (reader->rest, data, MIN (len, reader->rest_cap - reader->rest->len));
}

void
rk_profile_progress_reader_feed (RkProfileProgressReader *reader,
                                 const guint8            *data,
                                 gsize                    len)
{
  while (len > 0)
    {
      const guint8 *nl = memchr (data, '\n', len);
      gsize n = nl != NULL ? (gsize) (nl - data) : len;

      if (reader->overlong)
        keep (reader, data, n);
      else if (reader->len + n > RK_PROFILE_PROGRESS_MAX_LINE)
        {
          /* Too long for a progress line: ordinary stderr. */
          keep (reader, reader->line, reader->len);
          keep (reader, data, n);
          reader->len = 0;
          reader->overlong = TRUE;
        }
      else
        {
          memcpy (reader->line + reader->len, data, n);
          reader->len += n;
        }
      if (nl == NULL)
        return;
      if (!reader->overlong)
        {
          guint index;
          guint64 done, total;

          if (rk_profile_progress_parse (reader->line, reader->len, reader->n_files, &index, &done, &total))
            {
              if (reader->func != NULL)
                reader->func (index, done, total, reader->user_data);
            }
          else
            {
              keep (reader, reader->line, reader->len);
              keep (reader, "\n", 1);
            }
        }
      else
        keep (reader, "\n", 1);
      reader->len = 0;
      reader->overlong = FALSE;
      data += n + 1;
      len -= n + 1;
    }
}

void
rk_profile_progress_reader_finish (RkProfileProgressReader *reader)
{
  if (!reader->overlong)
    keep (reader, reader->line, reader->len);
  reader->len = 0;
  reader->overlong = FALSE;
}
