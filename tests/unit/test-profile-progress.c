/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-profile-progress.c — the profiler's progress lines on its stderr:
 * the strict parser and the line reader, over good and hostile bytes. */
#include "config.h"

#include <string.h>

#include "rk-profile-progress.h"

static gboolean
parse (const char *line,
       guint       n_files,
       guint      *index,
       guint64    *done,
       guint64    *total)
{
  return rk_profile_progress_parse (line, strlen (line), n_files, index, done, total);
}

static void
test_parse_good (void)
{
  guint index = 99;
  guint64 done = 99, total = 99;

  g_assert_true (parse ("reckon-progress 0 1048576 209715200", 1, &index, &done, &total));
  g_assert_cmpuint (index, ==, 0);
  g_assert_cmpuint (done, ==, 1048576);
  g_assert_cmpuint (total, ==, 209715200);
  g_assert_true (parse ("reckon-progress 3 0 1", 4, &index, &done, &total));
  g_assert_cmpuint (index, ==, 3);
  g_assert_cmpuint (done, ==, 0);
  g_assert_cmpuint (total, ==, 1);
  /* done == total, and the largest number accepted. */
  g_assert_true (parse ("reckon-progress 0 999999999999999 999999999999999", 1, &index, &done, &total));
  g_assert_cmpuint (done, ==, RK_PROFILE_PROGRESS_MAX_BYTES);
  g_assert_cmpuint (total, ==, RK_PROFILE_PROGRESS_MAX_BYTES);
}

static void
test_parse_hostile (void)
{
  static const char * const bad[] = {
    "",
    "reckon-progress",
    "reckon-progress ",
    "reckon-progress 0",
    "reckon-progress 0 1",
    "reckon-progress 0 1 ",
    "reckon-progress 0 1 2 ",
    "reckon-progress 0 1 2 3",
    " reckon-progress 0 1 2",
    "reckon-progress  0 1 2",
    "reckon-progress 0  1 2",
    "reckon-progress\t0 1 2",
    "reckon-progress 0 1 2\r",
    "Reckon-progress 0 1 2",
    "reckon-progres 0 1 2",
    "reckon-progressX 0 1 2",
    "xreckon-progress 0 1 2",
    "reckon-progress -0 1 2",
    "reckon-progress +0 1 2",
    "reckon-progress 0 -1 2",
    "reckon-progress 0 +1 2",
    "reckon-progress 0 1 +2",
    "reckon-progress 0 1 2.0",
    "reckon-progress 0 1.5 2",
    "reckon-progress 0 1e3 2000",
    "reckon-progress 0 0x10 100",
    "reckon-progress 0 01 2",         /* leading zero */
    "reckon-progress 00 1 2",
    "reckon-progress 0 1 02",
    "reckon-progress 0 3 2",          /* done > total */
    "reckon-progress 0 0 0",          /* nothing to read */
    "reckon-progress 1 1 2",          /* one file only: index 1 is out of range */
    "reckon-progress 4294967296 1 2", /* an index past guint */
    "reckon-progress 0 1 1000000000000000",              /* 16 digits */
    "reckon-progress 0 18446744073709551615 18446744073709551615",
    "reckon-progress 0 99999999999999999999999999 99999999999999999999999999",
    "reckon-progress 0 ١ ٢",          /* Arabic-Indic digits */
    "reckon-progress 0 1 2 # comment",
    "reckon-progress 0 1 2\n",
    NULL,
  };
  guint index = 7;
  guint64 done = 7, total = 7;

  for (guint i = 0; bad[i] != NULL; i++)
    {
      if (parse (bad[i], 1, &index, &done, &total))
        g_error ("accepted %s", bad[i]);
    }
  /* Untouched outputs on failure. */
  g_assert_cmpuint (index, ==, 7);
  g_assert_cmpuint (done, ==, 7);
  g_assert_cmpuint (total, ==, 7);
  /* No files: every index is out of range. */
  g_assert_false (parse ("reckon-progress 0 1 2", 0, &index, &done, &total));
  /* A NUL byte inside the counted length. */
  {
    const char line[] = "reckon-progress 0 1\0 2";

    g_assert_false (rk_profile_progress_parse (line, sizeof line - 1, 1, &index, &done, &total));
  }
  /* Only @len bytes are read: a good prefix of a longer buffer. */
  {
    const char *line = "reckon-progress 0 1 23456";

    g_assert_true (rk_profile_progress_parse (line, strlen (line) - 3, 1, &index, &done, &total));
    g_assert_cmpuint (total, ==, 23);
  }
  /* A line longer than the limit, even if it would parse. */
  {
    g_autofree char *pad = g_strnfill (RK_PROFILE_PROGRESS_MAX_LINE, '0');
    g_autofree char *line = g_strdup_printf ("reckon-progress 0 1 2%s", pad);

    g_assert_false (parse (line, 1, &index, &done, &total));
  }
}

typedef struct
{
  GArray *seen;   /* guint64 triples */
} Seen;

static void
seen_cb (guint    index,
         guint64  done,
         guint64  total,
         gpointer user_data)
{
  Seen *s = user_data;
  guint64 v[3] = { index, done, total };

  g_assert_cmpuint (done, <=, total);
  g_array_append_vals (s->seen, v, 3);
}

/* Feeds @input in pieces of @step bytes; returns what was kept. */
static GByteArray *
read_all (const char *input,
          gsize       len,
          gsize       step,
          guint       n_files,
          gsize       cap,
          Seen       *s)
{
  GByteArray *rest = g_byte_array_new ();
  RkProfileProgressReader r;

  rk_profile_progress_reader_init (&r, n_files, rest, cap, seen_cb, s);
  for (gsize off = 0; off < len; off += step)
    rk_profile_progress_reader_feed (&r, (const guint8 *) input + off, MIN (step, len - off));
  rk_profile_progress_reader_finish (&r);
  return rest;
}

static void
test_reader (void)
{
  static const char input[] =
    "reckon-progress 0 10 100\n"
    "Traceback (most recent call last):\n"
    "reckon-progress 1 20 100\n"            /* index out of range for one file: kept */
    "warning: reckon-progress 0 30 100\n"   /* not at the start of a line: kept */
    "reckon-progress 0 40 100\n"
    "reckon-progress 0 50 100";             /* no newline at the end: kept */
  static const char kept[] =
    "Traceback (most recent call last):\n"
    "reckon-progress 1 20 100\n"
    "warning: reckon-progress 0 30 100\n"
    "reckon-progress 0 50 100";

  /* Every way of splitting the stream gives the same result. */
  for (gsize step = 1; step <= sizeof input; step++)
    {
      Seen s = { g_array_new (FALSE, FALSE, sizeof (guint64)) };
      g_autoptr(GByteArray) rest = read_all (input, sizeof input - 1, step, 1, 65536, &s);

      g_assert_cmpuint (s.seen->len, ==, 6);
      g_assert_cmpuint (g_array_index (s.seen, guint64, 1), ==, 10);
      g_assert_cmpuint (g_array_index (s.seen, guint64, 4), ==, 40);
      g_assert_cmpmem (rest->data, rest->len, kept, sizeof kept - 1);
      g_array_unref (s.seen);
    }
}

static void
test_reader_hostile (void)
{
  Seen s = { g_array_new (FALSE, FALSE, sizeof (guint64)) };
  g_autoptr(GString) input = g_string_new (NULL);
  g_autoptr(GByteArray) rest = NULL;
  g_autoptr(GByteArray) capped = NULL;
  gsize n_progress = 0;

  /* A long line that starts like a progress line, then a good one; NUL
   * bytes and newlines alone; a flood of good lines. */
  g_string_append (input, "reckon-progress 0 1 2");
  for (int i = 0; i < 1000; i++)
    g_string_append (input, "0");
  g_string_append (input, "\nreckon-progress 0 5 9\n");
  g_string_append_len (input, "\0\0reckon-progress 0 1 2\n\n\n", 26);
  for (int i = 0; i < 5000; i++)
    g_string_append_printf (input, "reckon-progress 0 %d 5000\n", i);
  n_progress = 1 + 5000;

  rest = read_all (input->str, input->len, 7, 1, 1 << 20, &s);
  g_assert_cmpuint (s.seen->len, ==, 3 * n_progress);
  g_assert_cmpuint (g_array_index (s.seen, guint64, 1), ==, 5);
  /* The long line and the NUL line are kept whole (1000 zeros and all). */
  g_assert_cmpuint (rest->len, ==, 21 + 1000 + 1 + 2 + 21 + 1 + 2);
  g_array_set_size (s.seen, 0);

  /* What is kept never passes its cap, whatever comes. */
  capped = read_all (input->str, input->len, 4096, 1, 100, &s);
  g_assert_cmpuint (capped->len, ==, 100);
  g_array_unref (s.seen);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/profile/progress/parse", test_parse_good);
  g_test_add_func ("/rk/profile/progress/parse-hostile", test_parse_hostile);
  g_test_add_func ("/rk/profile/progress/reader", test_reader);
  g_test_add_func ("/rk/profile/progress/reader-hostile", test_reader_hostile);
  return g_test_run ();
}
