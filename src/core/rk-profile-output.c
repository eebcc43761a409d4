/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-profile-output.c — splits the profiler's stdout into its partial
 * profile lines and the final document, strictly (outside bytes). */
#define G_LOG_DOMAIN "rk-profile"
#include "config.h"

#include <string.h>

#include "rk-profile-private.h"

/* INDEX of a partial line, or -1 when @line does not begin as one. */
static gint64
partial_index (const char *line,
               gsize       len)
{
  gsize plen = strlen (RK_PROFILE_PARTIAL_PREFIX);
  gsize i = plen;
  gint64 v = 0;

  if (len < plen || memcmp (line, RK_PROFILE_PARTIAL_PREFIX, plen) != 0)
    return -1;
  while (i < len && line[i] >= '0' && line[i] <= '9' && i - plen < 6)
    v = v * 10 + (line[i++] - '0');
  if (i == plen || (i - plen > 1 && line[plen] == '0') || i + 1 >= len || line[i] != ',' || line[i + 1] != ' ')
    return -2;  /* a partial line, but not a well-formed one */
  return v;
}

static void
take_partial (RkProfileOutputReader *reader,
              const char            *line,
              gsize                  len,
              gint64                 index)
{
  g_autoptr(GPtrArray) parsed = NULL;
  g_autoptr(GError) error = NULL;
  RkFileProfile *p;

  if (reader->have_final)
    {
      g_debug ("a partial profile after the final one, refused");
      return;
    }
  if (index == -2)
    {
      g_debug ("a partial profile line not well formed, ignored");
      return;
    }
  if (index < 0 || index >= reader->n_files)
    {
      g_debug ("a partial profile for no file of the run, ignored");
      return;
    }
  if (reader->seen[index])
    {
      g_debug ("a second partial profile for file %u, ignored", (guint) index);
      return;
    }
  reader->seen[index] = TRUE;
  parsed = rk_profile_parse (line, len, &error);
  if (parsed == NULL || parsed->len != 1)
    {
      g_debug ("a partial profile unreadable, ignored: %s", error ? error->message : "not one file");
      return;
    }
  p = g_ptr_array_index (parsed, 0);
  if (p->error != NULL || p->tables == NULL || p->tables->len == 0)
    {
      g_debug ("a partial profile without a table, ignored");
      return;
    }
  if (reader->func != NULL)
    reader->func ((guint) index, g_ptr_array_steal_index (parsed, 0), reader->user_data);
}

/* One whole line (without its newline). */
static void
take_line (RkProfileOutputReader *reader,
           const char            *line,
           gsize                  len)
{
  gint64 index;

  if (len == 0)
    return;
  index = partial_index (line, len);
  if (index != -1)
    {
      take_partial (reader, line, len, index);
      return;
    }
  if (reader->have_final)
    {
      g_debug ("output after the final profile, ignored");
      return;
    }
  reader->have_final = TRUE;
  g_byte_array_append (reader->final, (const guint8 *) line, len);
}

static gboolean
line_cb (const char  *line,
         gsize        len,
         gpointer     user_data,
         GError     **error)
{
  take_line (user_data, line, len);
  return TRUE;
}

void
_rk_profile_output_reader_init (RkProfileOutputReader    *reader,
                                guint                     n_files,
                                GByteArray               *final,
                                gsize                     cap,
                                RkProfilePartialLineFunc  func,
                                gpointer                  user_data)
{
  memset (reader, 0, sizeof *reader);
  reader->lines = rk_line_splitter_new (cap, RK_LINE_SPLITTER_DEFAULT, line_cb, reader);
  reader->final = final;
  reader->n_files = n_files;
  reader->seen = g_new0 (guint8, MAX (n_files, 1));
  reader->func = func;
  reader->user_data = user_data;
}

void
_rk_profile_output_reader_clear (RkProfileOutputReader *reader)
{
  g_clear_pointer (&reader->lines, rk_line_splitter_free);
  g_clear_pointer (&reader->seen, g_free);
}

gboolean
_rk_profile_output_reader_feed (RkProfileOutputReader *reader,
                                const guint8          *data,
                                gsize                  len)
{
  return rk_line_splitter_feed (reader->lines, (const char *) data, len, NULL);
}

void
_rk_profile_output_reader_finish (RkProfileOutputReader *reader)
{
  rk_line_splitter_finish (reader->lines, NULL);
}
