/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-analyses-kernel.c — every one-click analysis run on a real CSV by the
 * real agent, sandbox and kernel with no model server at all (the "Run
 * Python" path): Summary statistics gives a table whose values are pandas'
 * describe(), and the others give their tables, charts and figure without
 * an error. */
#define G_LOG_DOMAIN "test-analyses-kernel"
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "rk-agent.h"
#include "rk-analyses.h"
#include "rk-export.h"
#include "rk-session.h"
#include "rk-table.h"
#include "rk-transcript.h"

static const char csv_text[] =
  "region,units,price,returned\n"
  "North,120,9.5,no\nNorth,80,10.25,yes\nSouth,200,8.75,no\nSouth,,9.0,no\n"
  "East,50,12.5,\nEast,75,11.0,yes\nWest,300,7.25,no\nWest,10,,no\n";

typedef struct
{
  RkSession *session;
  RkAgent   *agent;
  char      *dir;
  char      *csv;
} Fixture;

static void
added_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  char **name = user_data;
  g_autoptr(GError) error = NULL;

  *name = rk_session_add_file_finish (RK_SESSION (source), result, &error);
  g_assert_no_error (error);
}

static void
ran_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  char **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = rk_agent_run_code_finish (RK_AGENT (source), result, &error);
  g_assert_no_error (error);
}

/* Runs @code; returns the id of the first transcript entry it added. */
static guint
run (Fixture *f,
     char    *code)   /* taken */
{
  RkTranscript *t = rk_agent_get_transcript (f->agent);
  guint first = rk_transcript_get_n_entries (t);
  g_autofree char *out = NULL;

  rk_agent_run_code_async (f->agent, code, RK_CODE_PROPOSED, NULL, ran_cb, &out);
  g_free (code);
  while (out == NULL)
    g_main_context_iteration (NULL, TRUE);
  return first;
}

/* Entries of @kind from index @from on; fails on any error entry. */
static guint
count (Fixture     *f,
       guint        from,
       RkEntryKind  kind)
{
  RkTranscript *t = rk_agent_get_transcript (f->agent);
  guint n = 0;

  for (guint i = from; i < rk_transcript_get_n_entries (t); i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (t, i);

      if (rk_transcript_entry_get_kind (e) == RK_ENTRY_ERROR)
        g_error ("the analysis failed: %s\n%s", rk_transcript_entry_get_text (e),
                 rk_transcript_entry_get_detail (e) ? rk_transcript_entry_get_detail (e) : "");
      n += rk_transcript_entry_get_kind (e) == kind;
    }
  return n;
}

static RkTable *
last_table (Fixture *f,
            guint    from)
{
  RkTranscript *t = rk_agent_get_transcript (f->agent);
  g_autoptr(GError) error = NULL;
  const char *path = NULL;

  for (guint i = from; i < rk_transcript_get_n_entries (t); i++)
    if (rk_transcript_entry_get_kind (rk_transcript_get_entry (t, i)) == RK_ENTRY_TABLE)
      path = rk_transcript_entry_get_path (rk_transcript_get_entry (t, i));
  g_assert_nonnull (path);
  {
    RkTable *table = rk_table_open_beneath (rk_session_get_workspace (f->session), path, &error);
    g_assert_no_error (error);
    return table;
  }
}

static gboolean
setup (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkModelClient) client = NULL;
  g_autofree char *name = NULL;

  if (g_getenv ("RECKON_SANDBOX") == NULL)
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset): run through meson test");
      return FALSE;
    }
  f->dir = g_dir_make_tmp ("rk-analyses-XXXXXX", &error);
  g_assert_no_error (error);
  f->csv = g_build_filename (f->dir, "sales.csv", NULL);
  g_assert_true (g_file_set_contents (f->csv, csv_text, -1, NULL));
  f->session = rk_session_new (NULL, NULL, &error);
  g_assert_no_error (error);
  rk_session_add_file_async (f->session, f->csv, NULL, added_cb, &name);
  while (name == NULL)
    g_main_context_iteration (NULL, TRUE);
  /* no model server anywhere: the client is never used */
  client = rk_model_client_new ();
  f->agent = rk_agent_new_for_session (client, f->session, NULL);
  rk_agent_set_policy (f->agent, RK_APPROVAL_AUTO);
  return TRUE;
}

static void
teardown (Fixture *f)
{
  g_clear_object (&f->agent);
  if (f->session != NULL)
    rk_session_expire (f->session);
  g_clear_object (&f->session);
  if (f->csv != NULL)
    g_unlink (f->csv);
  if (f->dir != NULL)
    g_rmdir (f->dir);
  g_free (f->csv);
  g_free (f->dir);
}

/* pandas' own describe() of the same file, as {column: [8 values]}. */
static JsonObject *
pandas_describe (const char *csv)
{
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  int status = -1;
  const char *argv[] = { "/usr/bin/python3", "-c",
    "import sys, json, pandas as pd\n"
    "d = pd.read_csv(sys.argv[1]).describe()\n"
    "print(json.dumps({'index': list(d.index), 'columns': {c: [None if v != v else v for v in d[c]] for c in d.columns}}))\n",
    csv, NULL };

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
test_summary_matches_describe (void)
{
  Fixture f = { 0 };
  char *code = NULL;
  g_autoptr(RkTable) table = NULL;
  g_autoptr(JsonObject) expected = NULL;
  JsonObject *columns;
  JsonArray *index;
  guint from, n_index, checked = 0;

  if (!setup (&f))
    return;
  code = rk_analysis_build_code (RK_ANALYSIS_SUMMARY, "sales.csv", NULL, NULL);
  from = run (&f, code);
  g_assert_cmpuint (count (&f, from, RK_ENTRY_TABLE), ==, 1);
  table = last_table (&f, from);
  expected = pandas_describe (f.csv);
  columns = json_object_get_object_member (expected, "columns");
  index = json_object_get_array_member (expected, "index");
  n_index = rk_table_get_n_index_columns (table);

  g_assert_cmpuint (rk_table_get_n_rows (table), ==, json_array_get_length (index));
  g_assert_cmpuint (rk_table_get_n_columns (table) - n_index, ==, json_object_get_size (columns));
  for (guint c = n_index; c < rk_table_get_n_columns (table); c++)
    {
      JsonArray *values = json_object_get_array_member (columns, rk_table_get_column_name (table, c));

      g_assert_nonnull (values);
      for (guint r = 0; r < rk_table_get_n_rows (table); r++)
        {
          g_autofree char *label = rk_table_get_cell_text (table, r, 0);
          double got = NAN, want = json_array_get_double_element (values, r);

          g_assert_cmpstr (label, ==, json_array_get_string_element (index, r));
          g_assert_true (rk_table_get_double (table, r, c, &got));
          g_assert_cmpfloat_with_epsilon (got, want, fabs (want) * 1e-12 + 1e-12);
          checked++;
        }
    }
  g_assert_cmpuint (checked, ==, 16);   /* units and price: count, mean, std, min, 25%, 50%, 75%, max */
  teardown (&f);
}

/* @lazy: reckon.load returns a Dask DataFrame (the sandbox's memory
 * limit said far smaller, as for a file past a third of it): the same
 * code must give the same results (issue #16). */
static void
every_analysis (gboolean lazy)
{
  Fixture f = { 0 };
  RkGroupBy by = { "region", "units", RK_AGGREGATE_SUM };
  RkGroupBy rows = { "returned", NULL, RK_AGGREGATE_COUNT };
  guint from;

  if (!setup (&f))
    return;
  if (lazy)
    {
      RkTranscript *t = rk_agent_get_transcript (f.agent);
      gboolean said = FALSE;

      from = run (&f, g_strdup ("import os\n"
                                "os.environ['RECKON_MEMORY_LIMIT'] = '100'\n"
                                "import reckon\n"
                                "lazy = reckon.load('sales.csv')\n"
                                "assert reckon.is_lazy(lazy), type(lazy)\n"
                                "lazy\n"));
      /* Shown as its first rows and a note, never read whole. */
      g_assert_cmpuint (count (&f, from, RK_ENTRY_TABLE), ==, 1);
      for (guint i = from; i < rk_transcript_get_n_entries (t); i++)
        {
          const char *text = rk_transcript_entry_get_text (rk_transcript_get_entry (t, i));

          said |= text != NULL && strstr (text, "A lazy Dask DataFrame with 4 columns") != NULL;
        }
      g_assert_true (said);
      from = run (&f, rk_analysis_build_code (RK_ANALYSIS_SUMMARY, "sales.csv", NULL, NULL));
      g_assert_cmpuint (count (&f, from, RK_ENTRY_TABLE), ==, 1);
    }

  from = run (&f, rk_analysis_build_code (RK_ANALYSIS_DISTRIBUTIONS, "sales.csv", NULL, NULL));
  g_assert_cmpuint (count (&f, from, RK_ENTRY_CHART), ==, 2);

  from = run (&f, rk_analysis_build_code (RK_ANALYSIS_CATEGORY_COUNTS, "sales.csv", NULL, NULL));
  g_assert_cmpuint (count (&f, from, RK_ENTRY_CHART), ==, 2);   /* region, returned */
  g_assert_cmpuint (count (&f, from, RK_ENTRY_TABLE), ==, 2);

  from = run (&f, rk_analysis_build_code (RK_ANALYSIS_CORRELATION, "sales.csv", NULL, NULL));
  g_assert_cmpuint (count (&f, from, RK_ENTRY_FIGURE), ==, 1);
  g_assert_cmpuint (count (&f, from, RK_ENTRY_TABLE), ==, 1);

  from = run (&f, rk_analysis_build_code (RK_ANALYSIS_MISSING, "sales.csv", NULL, NULL));
  g_assert_cmpuint (count (&f, from, RK_ENTRY_CHART), ==, 1);
  {
    g_autoptr(RkTable) t = last_table (&f, from);
    gint64 missing = -1;

    g_assert_cmpuint (count (&f, from, RK_ENTRY_TABLE), ==, 1);
    /* units, price, returned each miss one value */
    for (guint r = 0; r < rk_table_get_n_rows (t); r++)
      {
        g_autofree char *col = rk_table_get_cell_text (t, r, 0);
        g_assert_true (rk_table_get_int64 (t, r, 1, &missing));
        g_assert_cmpint (missing, ==, g_str_equal (col, "region") ? 0 : 1);
      }
  }

  from = run (&f, rk_analysis_build_code (RK_ANALYSIS_GROUP_BY, "sales.csv", NULL, &by));
  g_assert_cmpuint (count (&f, from, RK_ENTRY_CHART), ==, 1);
  {
    g_autoptr(RkTable) t = last_table (&f, from);
    g_autofree char *first = rk_table_get_cell_text (t, 0, rk_table_get_n_index_columns (t));
    double total = 0;

    /* largest first: West 300 + 10 */
    g_assert_cmpstr (first, ==, "West");
    g_assert_true (rk_table_get_double (t, 0, rk_table_get_n_index_columns (t) + 1, &total));
    g_assert_cmpfloat (total, ==, 310);
  }
  from = run (&f, rk_analysis_build_code (RK_ANALYSIS_GROUP_BY, "sales.csv", NULL, &rows));
  g_assert_cmpuint (count (&f, from, RK_ENTRY_CHART), ==, 1);
  teardown (&f);
}

static void
test_every_analysis (void)
{
  every_analysis (FALSE);
}

static void
test_every_analysis_lazy (void)
{
  every_analysis (TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/analyses/summary-matches-describe", test_summary_matches_describe);
  g_test_add_func ("/rk/analyses/every-analysis", test_every_analysis);
  g_test_add_func ("/rk/analyses/every-analysis-lazy", test_every_analysis_lazy);

  return g_test_run ();
}
