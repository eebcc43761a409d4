/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-analyses.c — the code of the one-click analyses: it compiles as
 * Python for every analysis, also with hostile file and column names, which
 * read back exactly and cannot break out of their string literals. */
#define G_LOG_DOMAIN "test-analyses"
#include "config.h"

#include <string.h>

#include "rk-analyses.h"

static const char *hostile[] = {
  "sales.csv",
  "it's \"quoted\".csv",
  "back\\slash\\.csv",
  "new\nline'); import os; os.system('x'); ('.csv",
  "tab\there.csv",
  "bidi \xe2\x80\xae" "vsc.exe",
  "\xe5\x90\x8d\xe5\x89\x8d \xe2\x9c\x93.xlsx",
  "bell\x07" "and\x1b[2Jescape.csv",
  "{braces} and f'{x}'.csv",
};

/* Python checks: every code compiles; every literal reads back as the name. */
static void
check_with_python (GPtrArray *codes,
                   GPtrArray *literals,
                   GPtrArray *names)
{
  g_autoptr(GString) script = g_string_new ("import ast, sys\nok = True\n");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = -1;

  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("/usr/bin/python3 is missing");
      return;
    }
  for (guint i = 0; i < codes->len; i++)
    {
      g_autofree char *lit = rk_analysis_py_string (g_ptr_array_index (codes, i));
      g_string_append_printf (script, "compile(%s, 'analysis-%u', 'exec')\n", lit, i);
    }
  for (guint i = 0; i < literals->len; i++)
    {
      g_autofree char *expect = g_base64_encode ((const guchar *) g_ptr_array_index (names, i),
                                                 strlen (g_ptr_array_index (names, i)));
      g_autofree char *source = rk_analysis_py_string (g_ptr_array_index (literals, i));
      g_string_append_printf (script,
                              "v = ast.literal_eval(%s)\n"
                              "import base64\n"
                              "if v.encode('utf-8', 'surrogateescape') != base64.b64decode('%s') and "
                              "v.encode('latin-1', 'replace') != base64.b64decode('%s'):\n"
                              "    print('mismatch', %u, repr(v)); ok = False\n",
                              source, expect, expect, i);
    }
  g_string_append (script, "sys.exit(0 if ok else 1)\n");
  {
    const char *argv[] = { "/usr/bin/python3", "-c", script->str, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL));
  }
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("python rejected the generated code:\n%s\n%s", out, err);
}

static void
test_code_compiles (void)
{
  g_autoptr(GPtrArray) codes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) literals = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint h = 0; h < G_N_ELEMENTS (hostile); h++)
    {
      RkGroupBy by_value = { hostile[(h + 1) % G_N_ELEMENTS (hostile)], hostile[h], RK_AGGREGATE_MEAN };
      RkGroupBy by_count = { hostile[h], NULL, RK_AGGREGATE_COUNT };

      for (RkAnalysis a = 0; a < RK_ANALYSIS_N; a++)
        {
          char *code = rk_analysis_build_code (a, hostile[h], h % 2 ? "Sheet 1" : NULL,
                                               a == RK_ANALYSIS_GROUP_BY ? (h % 3 ? &by_value : &by_count) : NULL);

          g_assert_nonnull (code);
          g_assert_nonnull (strstr (code, "reckon.load("));
          /* nothing of a name ever sits outside a literal or a comment */
          g_assert_null (strstr (code, "\nline'"));
          g_ptr_array_add (codes, code);
        }
      g_ptr_array_add (literals, rk_analysis_py_string (hostile[h]));
      g_ptr_array_add (names, (gpointer) hostile[h]);
    }
  /* invalid UTF-8 still makes a literal */
  {
    char *lit = rk_analysis_py_string ("bad\xff\xfe.csv");
    g_assert_cmpstr (lit, ==, "'bad\\xff\\xfe.csv'");
    g_free (lit);
  }
  check_with_python (codes, literals, names);
}

static void
test_titles_and_ids (void)
{
  for (RkAnalysis a = 0; a < RK_ANALYSIS_N; a++)
    {
      RkAnalysis back = RK_ANALYSIS_N;

      g_assert_cmpstr (rk_analysis_get_title (a), !=, "");
      g_assert_true (rk_analysis_from_id (rk_analysis_get_id (a), &back));
      g_assert_cmpint (back, ==, a);
    }
  g_assert_false (rk_analysis_from_id ("nope", &(RkAnalysis) { 0 }));
  g_assert_false (rk_analysis_from_id (NULL, &(RkAnalysis) { 0 }));
}

static void
test_useful (void)
{
  RkColumnProfile num = { .name = (char *) "units", .type = RK_COLUMN_INTEGER };
  RkColumnProfile num2 = { .name = (char *) "price", .type = RK_COLUMN_FLOAT };
  RkColumnProfile text = { .name = (char *) "region", .type = RK_COLUMN_TEXT };
  g_autoptr(GPtrArray) cols = g_ptr_array_new ();
  RkTableProfile table = { .columns = cols };

  g_ptr_array_add (cols, &text);
  g_assert_false (rk_analysis_is_useful (RK_ANALYSIS_DISTRIBUTIONS, &table));
  g_assert_true (rk_analysis_is_useful (RK_ANALYSIS_CATEGORY_COUNTS, &table));
  g_assert_false (rk_analysis_is_useful (RK_ANALYSIS_GROUP_BY, &table));
  g_ptr_array_add (cols, &num);
  g_assert_true (rk_analysis_is_useful (RK_ANALYSIS_DISTRIBUTIONS, &table));
  g_assert_false (rk_analysis_is_useful (RK_ANALYSIS_CORRELATION, &table));
  g_assert_true (rk_analysis_is_useful (RK_ANALYSIS_GROUP_BY, &table));
  g_ptr_array_add (cols, &num2);
  g_assert_true (rk_analysis_is_useful (RK_ANALYSIS_CORRELATION, &table));
  g_assert_true (rk_analysis_is_useful (RK_ANALYSIS_SUMMARY, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/analyses/code-compiles", test_code_compiles);
  g_test_add_func ("/rk/analyses/titles-and-ids", test_titles_and_ids);
  g_test_add_func ("/rk/analyses/useful", test_useful);

  return g_test_run ();
}
