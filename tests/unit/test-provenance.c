/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-provenance.c — RkProvenance: cells, code (edits), inputs and their
 * SHA-256 read beneath a real workspace, newest first, and the JSON file. */
#define G_LOG_DOMAIN "test-provenance"
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "rk-artifact-export.h"
#include "rk-provenance.h"
#include "rk-table.h"

#include <archive.h>
#include <archive_entry.h>

static char *
make_workspace (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("rk-prov-XXXXXX", &error);
  g_autofree char *sales = g_build_filename (dir, "sales.csv", NULL);
  g_autofree char *costs = g_build_filename (dir, "costs.xlsx", NULL);
  g_autofree char *link = g_build_filename (dir, "linked.csv", NULL);

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (sales, "a,b\n1,2\n", -1, NULL));
  g_assert_true (g_file_set_contents (costs, "not really xlsx", -1, NULL));
  g_assert_cmpint (symlink (sales, link), ==, 0);
  return dir;
}

static void
remove_workspace (const char *dir)
{
  const char *names[] = { "sales.csv", "costs.xlsx", "linked.csv" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *p = g_build_filename (dir, names[i], NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}

static RkTranscript *
make_transcript (guint *table_entry,
                 guint *chart_entry,
                 guint *code2_entry)
{
  RkTranscript *t = rk_transcript_new ();
  const char *attachments[] = { "sales.csv", "costs.xlsx", NULL };
  RkTranscriptArtifact table = { RK_ENTRY_TABLE, "tables/t1.rkt", "application/x-reckon-table", "totals", 0, 0, 3, 2 };
  RkTranscriptArtifact chart = { RK_ENTRY_CHART, ".reckon/charts/c1.json", NULL, "Totals", 0, 0, 0, 0 };

  rk_transcript_add_user (t, "Totals per region?", attachments);
  /* cell 1 reads sales.csv and makes a table */
  rk_transcript_add_code (t, "c1", "df = reckon.load('sales.csv')\ndf.sum()", 0);
  rk_transcript_add_approval (t, "c1", RK_DECISION_APPROVED, NULL);
  *table_entry = rk_transcript_add_artifact (t, "c1", &table);
  /* cell 2 is skipped: it never ran */
  rk_transcript_add_code (t, "c2", "open('costs.xlsx')", 0);
  rk_transcript_add_approval (t, "c2", RK_DECISION_SKIPPED, NULL);
  /* cell 3 was edited before it ran; the edit reads costs.xlsx too */
  *code2_entry = rk_transcript_add_code (t, "c3", "reckon.chart(df)", 0);
  rk_transcript_add_approval (t, "c3", RK_DECISION_EDITED,
                              "c = reckon.load('costs.xlsx')\nreckon.chart(df)");
  *chart_entry = rk_transcript_add_artifact (t, "c3", &chart);
  rk_transcript_add_answer (t, "North sold 3.");
  return t;
}

static void
test_collect (void)
{
  guint table_entry, chart_entry, code3_entry;
  g_autoptr(RkTranscript) t = make_transcript (&table_entry, &chart_entry, &code3_entry);
  g_autoptr(GPtrArray) records = rk_provenance_collect (t, NULL);
  RkProvenance *chart, *table;
  RkProvenanceInput *in;

  g_assert_cmpuint (records->len, ==, 2);
  /* newest first */
  chart = g_ptr_array_index (records, 0);
  table = g_ptr_array_index (records, 1);
  g_assert_cmpint (chart->kind, ==, RK_ENTRY_CHART);
  g_assert_cmpuint (chart->entry_id, ==, chart_entry);
  g_assert_cmpuint (chart->code_entry_id, ==, code3_entry);
  g_assert_cmpstr (chart->cell_id, ==, "c3");
  /* the skipped cell is not counted */
  g_assert_cmpuint (chart->cell_number, ==, 2);
  g_assert_cmpstr (chart->code, ==, "c = reckon.load('costs.xlsx')\nreckon.chart(df)");
  g_assert_cmpstr (chart->path, ==, ".reckon/charts/c1.json");
  g_assert_cmpstr (chart->title, ==, "Totals");
  /* the chart's cell used df from cell 1 (sales.csv) and read costs.xlsx */
  g_assert_cmpuint (chart->inputs->len, ==, 2);
  in = g_ptr_array_index (chart->inputs, 0);
  g_assert_cmpstr (in->name, ==, "sales.csv");
  in = g_ptr_array_index (chart->inputs, 1);
  g_assert_cmpstr (in->name, ==, "costs.xlsx");
  g_assert_null (in->sha256);

  g_assert_cmpint (table->kind, ==, RK_ENTRY_TABLE);
  g_assert_cmpuint (table->entry_id, ==, table_entry);
  g_assert_cmpuint (table->cell_number, ==, 1);
  g_assert_cmpuint (table->inputs->len, ==, 1);
  in = g_ptr_array_index (table->inputs, 0);
  g_assert_cmpstr (in->name, ==, "sales.csv");
  g_assert_cmpint (table->time, >, 0);
  g_assert_cmpint (table->time, <=, chart->time);

  /* given names win over attachments: an unknown name is never an input */
  {
    const char *names[] = { "other.csv", NULL };
    g_autoptr(GPtrArray) r2 = rk_provenance_collect (t, names);
    RkProvenance *p = g_ptr_array_index (r2, 0);

    g_assert_cmpuint (p->inputs->len, ==, 0);
  }
}

static void
test_hashes (void)
{
  g_autofree char *ws = make_workspace ();
  g_autoptr(RkWorkspace) handle = rk_workspace_open (ws, NULL);
  guint a, b, c;
  g_autoptr(RkTranscript) t = make_transcript (&a, &b, &c);
  g_autoptr(GPtrArray) records = rk_provenance_collect (t, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "a,b\n1,2\n", -1);
  g_autofree char *via_link = NULL;
  RkProvenance *chart;
  RkProvenanceInput *in;

  g_assert_true (rk_provenance_hash_inputs (records, handle, NULL, &error));
  g_assert_no_error (error);
  chart = g_ptr_array_index (records, 0);
  in = g_ptr_array_index (chart->inputs, 0);
  g_assert_cmpstr (in->sha256, ==, expected);
  g_assert_cmpuint (strlen (in->sha256), ==, 64);
  in = g_ptr_array_index (chart->inputs, 1);
  g_assert_nonnull (in->sha256);
  g_assert_cmpstr (in->sha256, !=, expected);

  /* never through a symlink, never outside */
  via_link = rk_provenance_file_sha256 (handle, "linked.csv", NULL, &error);
  g_assert_null (via_link);
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_null (rk_provenance_file_sha256 (handle, "../etc/passwd", NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_null (rk_provenance_file_sha256 (handle, "/etc/passwd", NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  remove_workspace (ws);
}

static void
collect_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GPtrArray **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = rk_provenance_collect_finish (result, &error);
  g_assert_no_error (error);
}

static void
test_async_and_json (void)
{
  g_autofree char *ws = make_workspace ();
  g_autoptr(RkWorkspace) handle = rk_workspace_open (ws, NULL);
  guint a, b, c;
  g_autoptr(RkTranscript) t = make_transcript (&a, &b, &c);
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *expected = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "a,b\n1,2\n", -1);
  JsonObject *root, *first;
  JsonArray *artifacts, *inputs;

  rk_provenance_collect_async (t, NULL, handle, NULL, collect_done_cb, &records);
  while (records == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (records->len, ==, 2);

  json = rk_provenance_to_json (records);
  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "version"), ==, 1);
  artifacts = json_object_get_array_member (root, "artifacts");
  g_assert_cmpuint (json_array_get_length (artifacts), ==, 2);
  first = json_array_get_object_element (artifacts, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "kind"), ==, "chart");
  g_assert_cmpstr (json_object_get_string_member (first, "cell"), ==, "c3");
  g_assert_cmpint (json_object_get_int_member (first, "cell_number"), ==, 2);
  g_assert_nonnull (strstr (json_object_get_string_member (first, "code"), "costs.xlsx"));
  g_assert_true (g_str_has_suffix (json_object_get_string_member (first, "time"), "Z"));
  inputs = json_object_get_array_member (first, "inputs");
  g_assert_cmpuint (json_array_get_length (inputs), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (inputs, 0), "sha256"), ==, expected);

  remove_workspace (ws);
}


/* Save all: the table as CSV (written by the real Python table writer), the
 * chart as SVG, and provenance.json, into a zip. */
static void
test_save_all (void)
{
  const char *kernel_dir = g_getenv ("RECKON_KERNEL_DIR");
  g_autofree char *ws = NULL;
  g_autoptr(RkWorkspace) handle = NULL;
  g_autofree char *tables = NULL;
  g_autofree char *charts = NULL;
  g_autofree char *rkt = NULL;
  g_autofree char *spec = NULL;
  g_autofree char *out_dir = NULL;
  g_autofree char *zip = NULL;
  g_autofree char *script = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTranscript) t = NULL;
  g_autoptr(GPtrArray) records = NULL;
  g_auto(GStrv) skipped = NULL;
  g_autoptr(GHashTable) found = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  guint a, b, c;
  int status = -1;
  struct archive *ar;
  struct archive_entry *entry;
  const char *csv, *prov;

  if (kernel_dir == NULL || !g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("RECKON_KERNEL_DIR is not set or /usr/bin/python3 is missing: run through meson test");
      return;
    }
  ws = make_workspace ();
  handle = rk_workspace_open (ws, NULL);
  tables = g_build_filename (ws, "tables", NULL);
  charts = g_build_filename (ws, ".reckon", "charts", NULL);
  g_assert_cmpint (g_mkdir_with_parents (tables, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (charts, 0700), ==, 0);
  rkt = g_build_filename (tables, "t1.rkt", NULL);
  spec = g_build_filename (charts, "c1.json", NULL);
  g_assert_true (g_file_set_contents (spec,
    "{\"version\":1,\"kind\":\"bar\",\"title\":\"Totals\",\"x\":{\"type\":\"category\"},"
    "\"categories\":[\"North\",\"South\"],\"series\":[{\"name\":\"n\",\"y\":[3,4]}]}", -1, NULL));
  script = g_strdup_printf ("import sys; sys.path.insert(0, %s); import pandas as pd; from reckon import table; "
                            "table.write(pd.DataFrame({'region': ['North', 'South'], 'n': [3, 4]}), %s)",
                            "sys.argv[1]", "sys.argv[2]");
  {
    const char *argv[] = { "/usr/bin/python3", "-c", script, kernel_dir, rkt, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }

  t = make_transcript (&a, &b, &c);
  records = rk_provenance_collect (t, NULL);
  g_assert_true (rk_provenance_hash_inputs (records, handle, NULL, &error));
  out_dir = g_dir_make_tmp ("rk-prov-out-XXXXXX", &error);
  zip = g_build_filename (out_dir, "all.zip", NULL);
  g_assert_true (rk_artifact_save_all (handle, records, RK_EXPORT_ZIP, zip, &skipped, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (skipped), ==, 0);

  ar = archive_read_new ();
  archive_read_support_format_zip (ar);
  g_assert_cmpint (archive_read_open_filename (ar, zip, 16384), ==, ARCHIVE_OK);
  while (archive_read_next_header (ar, &entry) == ARCHIVE_OK)
    {
      gsize size = archive_entry_size (entry);
      char *data = g_malloc0 (size + 1);

      g_assert_cmpint (archive_read_data (ar, data, size), ==, (la_ssize_t) size);
      g_hash_table_insert (found, g_strdup (archive_entry_pathname (entry)), data);
    }
  archive_read_free (ar);
  g_assert_cmpuint (g_hash_table_size (found), ==, 3);
  csv = g_hash_table_lookup (found, "totals.csv");
  g_assert_nonnull (csv);
  g_assert_true (g_str_has_prefix (csv, "region,n\r\nNorth,3\r\nSouth,4"));
  g_assert_true (g_str_has_prefix (g_hash_table_lookup (found, "Totals.svg"), "<?xml"));
  prov = g_hash_table_lookup (found, "provenance.json");
  g_assert_nonnull (prov);
  g_assert_nonnull (strstr (prov, "\"cell\" : \"c3\""));
  g_assert_nonnull (strstr (prov, "reckon.load('costs.xlsx')"));
  {
    g_autofree char *h = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "a,b\n1,2\n", -1);
    g_assert_nonnull (strstr (prov, h));
  }

  /* a folder too */
  {
    g_autofree char *folder = g_build_filename (out_dir, "all", NULL);
    g_autofree char *p = g_build_filename (folder, "provenance.json", NULL);
    g_autofree char *c1 = g_build_filename (folder, "totals.csv", NULL);
    g_autofree char *c2 = g_build_filename (folder, "Totals.svg", NULL);

    g_assert_true (rk_artifact_save_all (handle, records, RK_EXPORT_FOLDER, folder, NULL, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_test (p, G_FILE_TEST_IS_REGULAR));
    g_unlink (p);
    g_unlink (c1);
    g_unlink (c2);
    g_rmdir (folder);
  }

  g_unlink (zip);
  g_rmdir (out_dir);
  g_unlink (rkt);
  g_unlink (spec);
  g_rmdir (tables);
  g_rmdir (charts);
  {
    g_autofree char *dot = g_build_filename (ws, ".reckon", NULL);
    g_rmdir (dot);
  }
  remove_workspace (ws);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/provenance/collect", test_collect);
  g_test_add_func ("/rk/provenance/hashes", test_hashes);
  g_test_add_func ("/rk/provenance/async-and-json", test_async_and_json);
  g_test_add_func ("/rk/provenance/save-all", test_save_all);

  return g_test_run ();
}
