/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-profile-parse.c — the parser of the profiler's JSON and the prompt
 * text, with well-formed and hostile input. */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "rk-profile.h"
#include "rk-util.h"

static const char *good =
  "{\"version\": 1, \"files\": [{\"name\": \"s.csv\", \"size\": 120, \"kind\": \"csv\","
  " \"encoding\": \"UTF-8\", \"delimiter\": \";\", \"decimal\": \",\", \"header\": true,"
  " \"notes\": [\"a note\"], \"read_hint\": \"pd.read_csv('s.csv', sep=';')\","
  " \"tables\": [{\"rows\": 3, \"columns\": 2, \"header\": true,"
  "   \"column_info\": [{\"name\": \"city\", \"type\": \"text\", \"missing\": 1, \"unique\": 2, \"values\": [\"Lyon\", \"Nice\"]},"
  "                     {\"name\": \"pop\", \"type\": \"integer\", \"missing\": 0, \"min\": 1, \"max\": 9.5, \"mean\": 4, \"std\": 2}],"
  "   \"head\": [[\"Lyon\", \"1\"], [null, 9.5], [true, \"x\\ny\"]]}]},"
  " {\"name\": \"bad.bin\", \"error\": \"This file is not a spreadsheet: it contains binary data.\"}]}";

static GPtrArray *
parse (const char  *s,
       GError     **error)
{
  return rk_profile_parse (s, strlen (s), error);
}

/* One file's object alone, as an attachment entry keeps it: the good one
 * reads, anything else (several files, a broken or deep document, another
 * JSON value) is refused without a crash. */
static void
test_parse_one (void)
{
  static const char *hostile[] = {
    "", "{", "[]", "null", "\"s.csv\"",
    "{\"name\": \"a.csv\"}, {\"name\": \"b.csv\"}",
    "{\"name\": \"a.csv\"}]}, \"x\": [{",
    "{\"name\": \"a.csv\"}]} trailing",
  };
  g_autoptr(RkFileProfile) one = rk_file_profile_parse_one ("{\"name\": \"s.csv\", \"kind\": \"csv\", \"size\": 7}");
  g_autoptr(GString) deep = g_string_new ("{\"name\": \"d.csv\", \"notes\": ");

  g_assert_nonnull (one);
  g_assert_cmpstr (one->name, ==, "s.csv");
  g_assert_cmpint (one->kind, ==, RK_FILE_KIND_CSV);
  g_assert_cmpuint (one->size, ==, 7);

  g_assert_null (rk_file_profile_parse_one (NULL));
  /* a member of the wrong type reads as absent, as in a whole document */
  {
    g_autoptr(RkFileProfile) nameless = rk_file_profile_parse_one ("{\"name\": 1}");

    g_assert_nonnull (nameless);
    g_assert_cmpstr (nameless->name, ==, "");
  }
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    g_assert_null (rk_file_profile_parse_one (hostile[i]));

  for (guint i = 0; i < 10000; i++)
    g_string_append_c (deep, '[');
  g_string_append (deep, "}");
  g_assert_null (rk_file_profile_parse_one (deep->str));
}

static void
test_good (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) files = parse (good, &error);
  RkFileProfile *p;
  RkTableProfile *t;
  RkColumnProfile *c;
  GStrv row;
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 2);
  p = g_ptr_array_index (files, 0);
  g_assert_cmpstr (p->name, ==, "s.csv");
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_CSV);
  g_assert_cmpuint (p->size, ==, 120);
  g_assert_cmpstr (p->delimiter, ==, ";");
  g_assert_cmpstr (p->notes[0], ==, "a note");
  t = g_ptr_array_index (p->tables, 0);
  g_assert_cmpuint (t->rows, ==, 3);
  g_assert_true (t->header);
  c = g_ptr_array_index (t->columns, 1);
  g_assert_cmpint (c->type, ==, RK_COLUMN_INTEGER);
  g_assert_true (c->has_stats);
  g_assert_cmpfloat (c->max, ==, 9.5);
  c = g_ptr_array_index (t->columns, 0);
  g_assert_false (c->has_stats);
  g_assert_cmpint (c->unique, ==, 2);
  g_assert_cmpstr (c->values[1], ==, "Nice");
  row = g_ptr_array_index (t->head, 1);
  g_assert_cmpstr (row[0], ==, "");
  g_assert_cmpstr (row[1], ==, "9.5");
  row = g_ptr_array_index (t->head, 2);
  g_assert_cmpstr (row[0], ==, "true");
  g_assert_cmpstr (row[1], ==, "x\ny");

  p = g_ptr_array_index (files, 1);
  g_assert_cmpstr (p->error, ==, "This file is not a spreadsheet: it contains binary data.");

  text = rk_profiles_to_prompt (files, 4096, RK_PROMPT_SAMPLES_DEFAULT);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "File “s.csv” (CSV, 120 bytes, UTF-8, semicolon-separated, decimal comma)"));
  g_assert_nonnull (strstr (text, "- city: text, 1 missing, 2 distinct (Lyon, Nice)"));
  g_assert_nonnull (strstr (text, "- pop: integer, min 1, max 9.5, mean 4, std 2"));
  /* A line break inside a cell stays on one line. */
  g_assert_nonnull (strstr (text, "true | x\\ny"));
  g_assert_nonnull (strstr (text, "File “bad.bin”: This file is not a spreadsheet"));

  /* Copies are deep. */
  {
    g_autoptr(RkFileProfile) copy = rk_file_profile_copy (g_ptr_array_index (files, 0));

    g_assert_cmpstr (((RkColumnProfile *) g_ptr_array_index (((RkTableProfile *) g_ptr_array_index (copy->tables, 0))->columns, 0))->values[0], ==, "Lyon");
  }
}

static void
expect_error (const char *s,
              gsize       len,
              int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) files = rk_profile_parse (s, len, &error);

  g_assert_null (files);
  g_assert_error (error, RK_PARSE_ERROR, code);
}

static void
test_hostile (void)
{
  g_autofree char *huge = g_strnfill (RK_PROFILE_MAX_JSON + 1, ' ');
  g_autofree char *deep = NULL;
  g_autoptr(GString) d = g_string_new ("{\"version\": 1, \"files\": ");

  expect_error (huge, strlen (huge), RK_PARSE_ERROR_TOO_LARGE);
  expect_error ("", 0, RK_PARSE_ERROR_MALFORMED);
  expect_error ("{\"version\": 1, \"files\": [{\"name\": \"\xff\"}]}", 33, RK_PARSE_ERROR_MALFORMED);
  expect_error ("{\"version\": 1,\0 \"files\": []}", 28, RK_PARSE_ERROR_MALFORMED);
  expect_error ("{\"version\": 2, \"files\": []}", 27, RK_PARSE_ERROR_UNSUPPORTED);
  expect_error ("{\"version\": \"1\", \"files\": []}", 29, RK_PARSE_ERROR_UNSUPPORTED);
  expect_error ("[1, 2]", 6, RK_PARSE_ERROR_MALFORMED);
  expect_error ("{\"version\": 1, \"files\": {}}", 27, RK_PARSE_ERROR_MALFORMED);
  expect_error ("{\"version\": 1, \"files\": [5]}", 28, RK_PARSE_ERROR_MALFORMED);
  expect_error ("{\"version\": 1, \"files\": [", 25, RK_PARSE_ERROR_MALFORMED);

  for (int i = 0; i < 100000; i++)
    g_string_append_c (d, '[');
  deep = g_string_free (g_steal_pointer (&d), FALSE);
  expect_error (deep, strlen (deep), RK_PARSE_ERROR_TOO_LARGE);
}

static void
test_wrong_types_and_caps (void)
{
  g_autoptr(GString) s = g_string_new ("{\"version\": 1, \"files\": [{\"name\": 5, \"size\": -3, \"kind\": \"exe\","
                                       " \"error\": \"\\u001b[31mred\\u0007\", \"sheets\": 1e300,"
                                       " \"tables\": [{\"rows\": \"12\", \"columns\": 1e20, \"column_info\": [");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) files = NULL;
  RkFileProfile *p;
  RkTableProfile *t;

  for (int i = 0; i < 1000; i++)
    g_string_append_printf (s, "%s{\"name\": \"c%d\", \"type\": \"weird\", \"min\": \"x\"}", i ? "," : "", i);
  g_string_append (s, "], \"head\": [");
  for (int i = 0; i < 100; i++)
    g_string_append_printf (s, "%s[{\"a\": 1}, [1], \"ok\"]", i ? "," : "");
  g_string_append (s, "]}]}]}");

  files = rk_profile_parse (s->str, s->len, &error);
  g_assert_no_error (error);
  p = g_ptr_array_index (files, 0);
  g_assert_cmpstr (p->name, ==, "");
  g_assert_cmpuint (p->size, ==, 0);
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_UNKNOWN);
  g_assert_cmpuint (p->sheets, ==, 0);
  /* Terminal escapes and other control characters are dropped. */
  g_assert_cmpstr (p->error, ==, "[31mred");
  t = g_ptr_array_index (p->tables, 0);
  g_assert_cmpuint (t->rows, ==, 0);
  g_assert_cmpuint (t->n_columns, ==, 0);
  g_assert_cmpuint (t->columns->len, ==, 256);
  g_assert_cmpint (((RkColumnProfile *) g_ptr_array_index (t->columns, 0))->type, ==, RK_COLUMN_TEXT);
  g_assert_false (((RkColumnProfile *) g_ptr_array_index (t->columns, 0))->has_stats);
  g_assert_cmpuint (t->head->len, ==, 10);
  g_assert_cmpstr (((GStrv) g_ptr_array_index (t->head, 0))[0], ==, "");
  g_assert_cmpstr (((GStrv) g_ptr_array_index (t->head, 0))[2], ==, "ok");
}

static void
test_prompt_budget (void)
{
  g_autoptr(GString) s = g_string_new ("{\"version\": 1, \"files\": [");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) files = NULL;
  g_autofree char *text = NULL;

  /* Ten wide files with long names and cells. */
  for (int f = 0; f < 10; f++)
    {
      g_string_append_printf (s, "%s{\"name\": \"file%d.csv\", \"kind\": \"csv\", \"tables\": [{\"rows\": 5, \"columns\": 200, \"column_info\": [", f ? "," : "", f);
      for (int i = 0; i < 200; i++)
        g_string_append_printf (s, "%s{\"name\": \"a rather long column name number %d\", \"type\": \"float\", \"min\": 1, \"max\": 2, \"mean\": 1.5}", i ? "," : "", i);
      g_string_append (s, "], \"head\": [[\"");
      for (int i = 0; i < 400; i++)
        g_string_append (s, "x");
      g_string_append (s, "\"]]}]}");
    }
  g_string_append (s, "]}");
  files = rk_profile_parse (s->str, s->len, &error);
  g_assert_no_error (error);

  text = rk_profiles_to_prompt (files, 8000, RK_PROMPT_SAMPLES_DEFAULT);
  g_test_message ("%zu bytes", strlen (text));
  g_assert_cmpuint (strlen (text), <=, 8000 + 2000);
  /* Every file is named, each gets its share. */
  for (int f = 0; f < 10; f++)
    {
      g_autofree char *name = g_strdup_printf ("file%d.csv", f);

      g_assert_nonnull (strstr (text, name));
    }
  g_assert_nonnull (strstr (text, "more columns"));
}

static void
test_reading (void)
{
  const char *doc =
    "{\"version\": 1, \"files\": [{\"name\": \"m.csv\", \"kind\": \"csv\", \"read_hint\": \"reckon.load('m.csv')\","
    " \"reading\": {\"version\": 1, \"format\": \"csv\", \"compression\": \"zip\", \"member\": \"../../x/m.csv\","
    "   \"encoding\": \"utf-8\", \"delimiter\": \",\", \"header\": true, \"skip_lines\": 2, \"comment_lines\": 1,"
    "   \"decimal\": \".\", \"quoting\": \"none\","
    "   \"skipped\": [{\"line\": 1, \"text\": \"# source\", \"why\": \"comment\"},"
    "               {\"line\": 2, \"text\": \"506,13\", \"why\": \"metadata\"}],"
    "   \"dates\": [{\"column\": 0, \"format\": \"%d-%b-%y\", \"label\": \"day-month name-year (31-Jan-12)\"}],"
    "   \"unsure\": [{\"what\": \"metadata\", \"note\": \"Line 2 looks like metadata.\"}]},"
    " \"tables\": [{\"rows\": 1, \"columns\": 2, \"header\": true, \"column_info\": ["
    "   {\"name\": \"Date\", \"type\": \"date\"}, {\"name\": \"Volume\", \"type\": \"integer\","
    "    \"min\": 27607900, \"max\": 92433800, \"mean\": 55317175.1}], \"head\": []}]},"
    " {\"name\": \"h.csv\", \"reading\": {\"format\": \"exe\"}},"
    " {\"name\": \"w.csv\", \"reading\": {\"format\": \"csv\", \"delimiter\": \";;\", \"compression\": \"rar\","
    "   \"skip_lines\": -4, \"dates\": [{\"column\": 1e9}, {\"column\": \"x\"}, 3, {\"column\": 1}],"
    "   \"unsure\": [{\"what\": \"header\"}, {\"what\": \"header\", \"note\": \"Unsure.\"}], \"header\": false}}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) files = rk_profile_parse (doc, strlen (doc), &error);
  g_autofree char *how = NULL;
  g_autofree char *text = NULL;
  g_autofree char *label = NULL;
  RkProfileOptions options = RK_PROFILE_OPTIONS_INIT;
  RkFileProfile *p;
  RkFileProfile *copy;

  g_assert_no_error (error);
  p = g_ptr_array_index (files, 0);
  g_assert_nonnull (p->reading);
  g_assert_cmpstr (p->reading->format, ==, "csv");
  g_assert_cmpuint (p->reading->skip_lines, ==, 2);
  g_assert_true (p->reading->quotes_are_text);
  g_assert_cmpuint (p->reading->dates->len, ==, 1);
  how = rk_file_profile_describe_reading (p);
  g_test_message ("%s", how);
  g_assert_cmpstr (how, ==, "the file “m.csv” inside a ZIP archive, comma-separated, first row is the header, "
                            "1 comment line skipped, line 2 (506,13) skipped as metadata, quote marks read as text, "
                            "dates in “Date” written day-month name-year (31-Jan-12)");
  /* The metadata line can be kept: one line fewer skipped. */
  g_assert_true (rk_file_profile_get_alternative (p, &options, &label));
  g_assert_cmpint (options.skip_lines, ==, 1);
  g_assert_cmpstr (label, ==, "Keep line 2 as part of the table");
  /* Whole numbers exactly, no exponent. */
  text = rk_file_profile_to_prompt (p, 4000, RK_PROMPT_SAMPLES_DEFAULT);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "min 27607900, max 92433800, mean 55317175.1"));
  g_assert_nonnull (strstr (text, "Read as: the file “m.csv” inside a ZIP archive"));
  copy = rk_file_profile_copy (p);
  g_assert_cmpstr (copy->reading->member, ==, "../../x/m.csv");
  g_assert_cmpuint (copy->reading->skipped->len, ==, 2);
  rk_file_profile_free (copy);

  /* An unknown format is no reading at all. */
  g_assert_null (((RkFileProfile *) g_ptr_array_index (files, 1))->reading);

  /* Wrong types and ranges are dropped, not trusted. */
  p = g_ptr_array_index (files, 2);
  g_assert_nonnull (p->reading);
  g_assert_null (p->reading->delimiter);
  g_assert_null (p->reading->compression);
  g_assert_cmpuint (p->reading->skip_lines, ==, 0);
  g_assert_cmpuint (p->reading->dates->len, ==, 1);
  g_assert_cmpuint (((RkDateColumn *) g_ptr_array_index (p->reading->dates, 0))->column, ==, 1);
  g_assert_cmpuint (p->reading->doubts->len, ==, 1);
  g_clear_pointer (&label, g_free);
  options = (RkProfileOptions) RK_PROFILE_OPTIONS_INIT;
  g_assert_true (rk_file_profile_get_alternative (p, &options, &label));
  g_assert_cmpint (options.header, ==, RK_PROFILE_HEADER_YES);
  g_assert_cmpstr (label, ==, "Read the first row as column names");
}

/* The engine fields of a big file (issue #16): only the exact word "dask"
 * makes a lazy table; every other type or value is the ordinary frame. */
static void
test_engine (void)
{
  static const char *lazy =
    "{\"version\": 1, \"files\": [{\"name\": \"big.csv\", \"size\": 3000000000, \"kind\": \"csv\","
    " \"engine\": \"dask\", \"large\": true, \"memory_estimate\": 2000000000, \"memory_limit\": 2147483648,"
    " \"read_hint\": \"reckon.load('big.csv')\","
    " \"tables\": [{\"rows\": 77000000, \"rows_sampled\": 200000, \"columns\": 1, \"header\": true, \"lazy\": true,"
    "   \"column_info\": [{\"name\": \"region\", \"type\": \"text\", \"dtype\": \"category\"}]}]}]}";
  static const char *hostile[] = {
    "\"engine\": \"Dask\", \"large\": true",
    "\"engine\": \"dask \", \"large\": true",
    "\"engine\": \"\\u0000dask\", \"large\": true",
    "\"engine\": \"da\\u001bsk\", \"large\": true",
    "\"engine\": [\"dask\"], \"large\": true",
    "\"engine\": {\"dask\": 1}, \"large\": true",
    "\"engine\": 1, \"large\": 1",
    "\"engine\": null, \"large\": \"true\"",
    "\"engine\": \"pandas\", \"large\": true, \"memory_estimate\": -5, \"memory_limit\": 1e300",
    "\"engine\": \"pandas\", \"memory_estimate\": \"2000000000\", \"memory_limit\": [1]",
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) files = parse (lazy, &error);
  g_autofree char *text = NULL;
  RkFileProfile *p;
  RkColumnProfile *c;

  g_assert_no_error (error);
  p = g_ptr_array_index (files, 0);
  g_assert_cmpint (p->engine, ==, RK_ENGINE_DASK);
  g_assert_true (p->large);
  g_assert_cmpuint (p->memory_estimate, ==, 2000000000);
  g_assert_cmpuint (p->memory_limit, ==, G_GUINT64_CONSTANT (2147483648));
  c = g_ptr_array_index (((RkTableProfile *) g_ptr_array_index (p->tables, 0))->columns, 0);
  g_assert_true (c->category);
  text = rk_file_profile_to_prompt (p, 4096, RK_PROMPT_SAMPLES_DEFAULT);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "statistics from a sample: the first 200000 rows"));
  g_assert_nonnull (strstr (text, "- region: text, loaded as pandas category"));
  g_assert_nonnull (strstr (text, "reckon.load returns a lazy Dask DataFrame"));
  g_assert_nonnull (strstr (text, ".compute()"));
  g_assert_nonnull (strstr (text, "over a third of the sandbox's 2.0\u00a0GiB limit"));
  /* The closing lines fit the budget a big table leaves them. */
  g_clear_pointer (&text, g_free);
  text = rk_file_profile_to_prompt (p, 1200, RK_PROMPT_SAMPLES_DEFAULT);
  g_assert_nonnull (strstr (text, "lazy Dask DataFrame"));

  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      g_autofree char *doc = g_strdup_printf ("{\"version\": 1, \"files\": [{\"name\": \"x.csv\", \"kind\": \"csv\", %s,"
                                              " \"tables\": [{\"rows\": 1, \"columns\": 1, \"column_info\":"
                                              " [{\"name\": \"a\", \"type\": \"text\", \"dtype\": [\"category\"]}]}]}]}",
                                              hostile[i]);
      g_autoptr(GPtrArray) got = parse (doc, NULL);
      g_autofree char *prompt = NULL;

      if (got == NULL)
        continue;     /* refused whole (a NUL in a string): fine too */
      p = g_ptr_array_index (got, 0);
      g_assert_cmpint (p->engine, ==, RK_ENGINE_PANDAS);
      g_assert_false (p->large);
      g_assert_cmpuint (p->memory_estimate, ==, 0);
      g_assert_cmpuint (p->memory_limit, ==, 0);
      g_assert_false (((RkColumnProfile *) g_ptr_array_index (((RkTableProfile *) g_ptr_array_index (p->tables, 0))->columns, 0))->category);
      prompt = rk_file_profile_to_prompt (p, 4096, RK_PROMPT_SAMPLES_DEFAULT);
      g_assert_null (strstr (prompt, "Dask"));
    }
}

static void
test_options_refused (void)
{
  RkProfileOptions options = RK_PROFILE_OPTIONS_INIT;
  const char *names[] = { "x.csv", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) out = NULL;
  g_autoptr(RkWorkspace) nowhere = rk_workspace_new ("/nonexistent");

  /* Checked before any sandbox is started. */
  options.delimiter = ";;";
  out = rk_profile_files (nowhere, names, &options, NULL, &error);
  g_assert_null (out);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  options.delimiter = "\n";
  out = rk_profile_files (nowhere, names, &options, NULL, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  options.delimiter = "semicolon";
  options.sheet = "";
  out = rk_profile_files (nowhere, names, &options, NULL, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/profile-parse/reading", test_reading);
  g_test_add_func ("/rk/profile-parse/engine", test_engine);
  g_test_add_func ("/rk/profile-parse/options-refused", test_options_refused);

  g_test_add_func ("/rk/profile-parse/good", test_good);
  g_test_add_func ("/rk/profile-parse/one", test_parse_one);
  g_test_add_func ("/rk/profile-parse/hostile", test_hostile);
  g_test_add_func ("/rk/profile-parse/wrong-types-and-caps", test_wrong_types_and_caps);
  g_test_add_func ("/rk/profile-parse/prompt-budget", test_prompt_budget);

  return g_test_run ();
}
