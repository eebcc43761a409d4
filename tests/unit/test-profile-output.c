/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-profile-output.c — the profiler's stdout with --partial: a big CSV's
 * partial profile lines, then the final document, over hostile lines. */
#include "config.h"

#include <string.h>

#include "rk-profile-private.h"
#include "rk-util.h"

#define FILE_JSON(rows) \
  "{\"name\": \"big.csv\", \"size\": 10000000000, \"kind\": \"csv\", \"tables\": [{\"rows\": " rows \
  ", \"columns\": 2, \"rows_approximate\": true, \"rows_sampled\": 200000, \"column_info\": " \
  "[{\"name\": \"a\", \"type\": \"integer\"}, {\"name\": \"b\", \"type\": \"text\"}]}]}"
#define PARTIAL(index, rows) \
  "{\"version\": 1, \"partial\": true, \"index\": " index ", \"defused\": true, \"files\": [" FILE_JSON (rows) "]}\n"
#define FINAL(rows) "{\"version\": 1, \"defused\": true, \"files\": [" FILE_JSON (rows) "]}\n"

typedef struct
{
  GPtrArray *got;      /* RkFileProfile */
  GArray    *indices;  /* guint */
} Got;

static void
partial_cb (guint          index,
            RkFileProfile *profile,
            gpointer       user_data)
{
  Got *g = user_data;

  g_ptr_array_add (g->got, profile);
  g_array_append_val (g->indices, index);
}

/* Feeds @text in pieces of @step bytes (0: at once); returns the final
 * document's bytes and fills @g. */
static GByteArray *
run (const char *text,
     gsize       len,
     guint       n_files,
     gsize       cap,
     gsize       step,
     Got        *g,
     gboolean   *fed)
{
  GByteArray *final = g_byte_array_new ();
  RkProfileOutputReader r;

  g->got = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_file_profile_free);
  g->indices = g_array_new (FALSE, FALSE, sizeof (guint));
  _rk_profile_output_reader_init (&r, n_files, final, cap, partial_cb, g);
  *fed = TRUE;
  if (step == 0)
    *fed = _rk_profile_output_reader_feed (&r, (const guint8 *) text, len);
  else
    for (gsize off = 0; off < len && *fed; off += step)
      *fed = _rk_profile_output_reader_feed (&r, (const guint8 *) text + off, MIN (step, len - off));
  if (*fed)
    _rk_profile_output_reader_finish (&r);
  _rk_profile_output_reader_clear (&r);
  return final;
}

static void
got_clear (Got *g)
{
  g_clear_pointer (&g->got, g_ptr_array_unref);
  g_clear_pointer (&g->indices, g_array_unref);
}

static guint64
final_rows (GByteArray *final)
{
  g_autoptr(GPtrArray) files = rk_profile_parse ((const char *) final->data, final->len, NULL);
  const RkFileProfile *p;

  g_assert_nonnull (files);
  g_assert_cmpuint (files->len, ==, 1);
  p = files->pdata[0];
  return ((const RkTableProfile *) p->tables->pdata[0])->rows;
}

static void
test_partial_then_final (void)
{
  const char *text = PARTIAL ("0", "260000000") FINAL ("259999999");

  /* At once, byte by byte and in odd pieces: the same. */
  for (gsize step = 0; step < 8; step += (step == 0 ? 1 : 3))
    {
      Got g = { 0 };
      gboolean fed;
      g_autoptr(GByteArray) final = run (text, strlen (text), 1, RK_PROFILE_MAX_JSON, step, &g, &fed);
      const RkFileProfile *p;

      g_assert_true (fed);
      g_assert_cmpuint (g.got->len, ==, 1);
      g_assert_cmpuint (g_array_index (g.indices, guint, 0), ==, 0);
      p = g.got->pdata[0];
      g_assert_cmpuint (((const RkTableProfile *) p->tables->pdata[0])->rows, ==, 260000000);
      g_assert_true (((const RkTableProfile *) p->tables->pdata[0])->rows_approximate);
      g_assert_cmpuint (final_rows (final), ==, 259999999);
      got_clear (&g);
    }
}

static void
test_old_profiler (void)
{
  /* No partial, and the final document without its newline: as before. */
  const char *text = "{\"version\": 1, \"files\": [" FILE_JSON ("7") "]}";
  Got g = { 0 };
  gboolean fed;
  g_autoptr(GByteArray) final = run (text, strlen (text), 1, RK_PROFILE_MAX_JSON, 0, &g, &fed);

  g_assert_true (fed);
  g_assert_cmpuint (g.got->len, ==, 0);
  g_assert_cmpuint (final_rows (final), ==, 7);
  got_clear (&g);
}

/* CRLF line ends: the CR goes with the LF (the line splitter's framing), so
 * the partial line still parses and the final document is the same text. */
static void
test_crlf (void)
{
  const char *text = "{\"version\": 1, \"partial\": true, \"index\": 0, \"defused\": true, \"files\": ["
                     FILE_JSON ("5") "]}\r\n"
                     "{\"version\": 1, \"defused\": true, \"files\": [" FILE_JSON ("6") "]}\r\n";
  Got g = { 0 };
  gboolean fed;
  g_autoptr(GByteArray) final = run (text, strlen (text), 1, RK_PROFILE_MAX_JSON, 0, &g, &fed);

  g_assert_true (fed);
  g_assert_cmpuint (g.got->len, ==, 1);
  g_assert_cmpuint (final_rows (final), ==, 6);
  g_assert_cmpuint (final->data[final->len - 1], ==, '}');
  got_clear (&g);
}

static void
test_hostile (void)
{
  static const struct
  {
    const char *text;
    guint       n_partials;   /* handed over */
    guint       first_index;
  } cases[] = {
    /* Does not parse: ignored, the final stands. */
    { "{\"version\": 1, \"partial\": true, \"index\": 0, \"files\": [{\"name\": 5}\n" FINAL ("9"), 0, 0 },
    { "{\"version\": 1, \"partial\": true, \"index\": 0, \"files\": [\xff]}\n" FINAL ("9"), 0, 0 },
    { "{\"version\": 1, \"partial\": true, \"index\": 0, \"files\": []}\n" FINAL ("9"), 0, 0 },
    /* Two files in one partial line. */
    { "{\"version\": 1, \"partial\": true, \"index\": 0, \"files\": [" FILE_JSON ("1") ", " FILE_JSON ("1") "]}\n"
      FINAL ("9"), 0, 0 },
    /* An error sentence is no estimate. */
    { "{\"version\": 1, \"partial\": true, \"index\": 0, \"files\": [{\"name\": \"a\", \"error\": \"no\"}]}\n"
      FINAL ("9"), 0, 0 },
    /* Index out of range, with a sign, a leading zero, too many digits, no digits. */
    { PARTIAL ("1", "5") FINAL ("9"), 0, 0 },
    { PARTIAL ("-0", "5") FINAL ("9"), 0, 0 },
    { PARTIAL ("00", "5") FINAL ("9"), 0, 0 },
    { PARTIAL ("4294967296", "5") FINAL ("9"), 0, 0 },
    { PARTIAL ("", "5") FINAL ("9"), 0, 0 },
    { "{\"version\": 1, \"partial\": true, \"index\": 0" "\n" FINAL ("9"), 0, 0 },
    /* A second partial for the same file: only the first counts. */
    { PARTIAL ("0", "5") PARTIAL ("0", "6") FINAL ("9"), 1, 0 },
    /* One that did not parse still uses up the file's one partial. */
    { "{\"version\": 1, \"partial\": true, \"index\": 0, \"files\": [}\n" PARTIAL ("0", "6") FINAL ("9"), 0, 0 },
    /* After the final: refused, and so is a second final. */
    { FINAL ("9") PARTIAL ("0", "5"), 0, 0 },
    { FINAL ("9") FINAL ("8"), 0, 0 },
    /* Blank lines are nothing. */
    { "\n\n" PARTIAL ("0", "5") "\n" FINAL ("9") "\n", 1, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Got g = { 0 };
      gboolean fed;
      g_autoptr(GByteArray) final = run (cases[i].text, strlen (cases[i].text), 1, RK_PROFILE_MAX_JSON, 0,
                                         &g, &fed);

      g_test_message ("case %u", i);
      g_assert_true (fed);
      g_assert_cmpuint (g.got->len, ==, cases[i].n_partials);
      if (g.got->len > 0)
        g_assert_cmpuint (((const RkTableProfile *) ((RkFileProfile *) g.got->pdata[0])->tables->pdata[0])->rows,
                          ==, 5);
      g_assert_cmpuint (final_rows (final), ==, 9);
      got_clear (&g);
    }
}

static void
test_not_partial (void)
{
  /* A line not written exactly as a partial one is the final document:
   * here one the parser refuses, so the run fails; it is never shown. */
  const char *text = "{\"version\": 2, \"partial\": true, \"index\": 0, \"files\": [" FILE_JSON ("1") "]}\n"
    FINAL ("9");
  Got g = { 0 };
  gboolean fed;
  g_autoptr(GByteArray) final = run (text, strlen (text), 1, RK_PROFILE_MAX_JSON, 0, &g, &fed);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) files = rk_profile_parse ((const char *) final->data, final->len, &error);

  g_assert_true (fed);
  g_assert_cmpuint (g.got->len, ==, 0);
  g_assert_null (files);
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);
  got_clear (&g);
}

static void
test_two_files (void)
{
  const char *text = PARTIAL ("1", "5") PARTIAL ("0", "6") PARTIAL ("2", "7")
    "{\"version\": 1, \"files\": [" FILE_JSON ("1") ", " FILE_JSON ("2") "]}\n";
  Got g = { 0 };
  gboolean fed;
  g_autoptr(GByteArray) final = run (text, strlen (text), 2, RK_PROFILE_MAX_JSON, 5, &g, &fed);
  g_autoptr(GPtrArray) files = rk_profile_parse ((const char *) final->data, final->len, NULL);

  g_assert_true (fed);
  g_assert_cmpuint (g.got->len, ==, 2);
  g_assert_cmpuint (g_array_index (g.indices, guint, 0), ==, 1);
  g_assert_cmpuint (g_array_index (g.indices, guint, 1), ==, 0);
  g_assert_cmpuint (files->len, ==, 2);
  got_clear (&g);
}

static void
test_cap (void)
{
  /* A line over the cap stops the reader, partial or final, whole or in
   * pieces; lines under it pass however many there are. */
  g_autoptr(GString) s = g_string_new ("{\"version\": 1, \"partial\": true, \"index\": 0, \"files\": [\"");
  const char *ok = PARTIAL ("0", "5") FINAL ("9");

  for (guint i = 0; i < 5000; i++)
    g_string_append_c (s, 'x');
  for (gsize step = 0; step < 300; step += 97)
    {
      Got g = { 0 };
      gboolean fed;
      g_autoptr(GByteArray) final = run (s->str, s->len, 1, 4096, step, &g, &fed);

      g_assert_false (fed);
      g_assert_cmpuint (g.got->len, ==, 0);
      g_assert_cmpuint (final->len, ==, 0);
      got_clear (&g);
    }
  {
    Got g = { 0 };
    gboolean fed;
    g_autoptr(GByteArray) final = run (ok, strlen (ok), 1, 4096, 0, &g, &fed);

    g_assert_true (fed);
    g_assert_cmpuint (g.got->len, ==, 1);
    g_assert_cmpuint (final_rows (final), ==, 9);
    got_clear (&g);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/profile-output/partial-then-final", test_partial_then_final);
  g_test_add_func ("/rk/profile-output/old-profiler", test_old_profiler);
  g_test_add_func ("/rk/profile-output/crlf", test_crlf);
  g_test_add_func ("/rk/profile-output/hostile", test_hostile);
  g_test_add_func ("/rk/profile-output/not-partial", test_not_partial);
  g_test_add_func ("/rk/profile-output/two-files", test_two_files);
  g_test_add_func ("/rk/profile-output/cap", test_cap);
  return g_test_run ();
}
