/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-import.c — real files in, real profiles out: rk-import copies them into
 * a workspace, rk-profile reads them inside the real reckon-sandbox. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-import.h"
#include "rk-profile.h"
#include "rk-workspace.h"

typedef struct
{
  char      *root;       /* everything the test makes lives here */
  char      *fixtures;   /* the originals */
  char      *workspace;
  RkWorkspace *ws;       /* its handle */
  char      *canary;     /* must stay as it is */
  GPtrArray *profiles;   /* of every fixture, computed once */
  GHashTable *by_source; /* fixture file name -> RkFileProfile */
} Fixture;

static Fixture fx;
static gboolean have_sandbox;

static char *
run_python (const char * const *argv,
            GError            **error)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                     &out, &err, &status, error))
    return NULL;
  if (!g_spawn_check_wait_status (status, error))
    {
      g_prefix_error (error, "%s: ", err);
      return NULL;
    }
  return g_steal_pointer (&out);
}

static void
make_fixtures (const char *dir)
{
  g_autofree char *script = g_build_filename (g_getenv ("RECKON_SOURCE_ROOT"), "tests",
                                              "integration", "make-import-fixtures.py", NULL);
  const char *argv[] = { "/usr/bin/python3", script, dir, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *out = run_python (argv, &error);

  g_assert_no_error (error);
  g_assert_nonnull (out);
}

/* Lists @dir recursively as "name:size" lines, sorted: a fingerprint to show
 * that nothing changed there. */
static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

static char *
fingerprint (const char *dir)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  GString *s = g_string_new (NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      struct stat st;

      g_assert_cmpint (lstat (path, &st), ==, 0);
      g_ptr_array_add (lines, g_strdup_printf ("%s:%ld:%o:%ld", name, (long) st.st_size,
                                               st.st_mode, (long) st.st_mtime));
    }
  g_ptr_array_sort (lines, compare_strings);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (s, "%s\n", (char *) g_ptr_array_index (lines, i));
  return g_string_free (s, FALSE);
}

static RkFileProfile *
profile_of (const char *source_name)
{
  RkFileProfile *p = g_hash_table_lookup (fx.by_source, source_name);

  g_assert_nonnull (p);
  return p;
}

static RkTableProfile *
table (RkFileProfile *p,
       guint          i)
{
  g_assert_nonnull (p->tables);
  g_assert_cmpuint (p->tables->len, >, i);
  return g_ptr_array_index (p->tables, i);
}

static RkColumnProfile *
column (RkTableProfile *t,
        guint           i)
{
  g_assert_cmpuint (t->columns->len, >, i);
  return g_ptr_array_index (t->columns, i);
}

static const char *
cell (RkTableProfile *t,
      guint           row,
      guint           col)
{
  GStrv r;

  g_assert_cmpuint (t->head->len, >, row);
  r = g_ptr_array_index (t->head, row);
  g_assert_cmpuint (g_strv_length (r), >, col);
  return r[col];
}

static gboolean
skip_without_sandbox (void)
{
  if (!have_sandbox)
    {
      g_test_skip ("reckon-sandbox is not built or cannot run here (RECKON_SANDBOX)");
      return TRUE;
    }
  return FALSE;
}

/* -- names -------------------------------------------------------------- */

static void
test_sanitize (void)
{
  struct { const char *in, *out; } cases[] = {
    { "sales.csv", "sales.csv" },
    { "../../etc/passwd", "passwd" },
    { "..", "file" },
    { ".", "file" },
    { "...", "file" },
    { "/abs/path/x.xlsx", "x.xlsx" },
    { ".bashrc", "bashrc" },
    { "a/b/", "b" },
    { "new\nline.csv", "newline.csv" },
    { "tab\there.csv", "tabhere.csv" },
    { "esc\x1b[31mred.csv", "esc[31mred.csv" },
    { "caf\xc3\xa9 \xe2\x82\xac.csv", "caf\xc3\xa9 \xe2\x82\xac.csv" },
    { "bad\xff" "byte.csv", "bad\xef\xbf\xbd" "byte.csv" },
    { "rtl\xe2\x80\xaeslx.exe", "rtlslx.exe" },
    { "  spaced  .csv", "spaced.csv" },
    { "", "file" },
    { "C:\\Users\\x.csv", "C:Usersx.csv" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = rk_import_sanitize_name (cases[i].in, RK_IMPORT_NAME_MAX);

      g_assert_cmpstr (got, ==, cases[i].out);
    }
}

static void
test_sanitize_length (void)
{
  g_autoptr(GString) longname = g_string_new (NULL);
  g_autofree char *got = NULL;
  g_autofree char *numbered = NULL;

  /* 300 bytes of two-byte characters, then an extension. */
  for (int i = 0; i < 150; i++)
    g_string_append (longname, "\xc3\xa9");
  g_string_append (longname, ".xlsx");
  got = rk_import_sanitize_name (longname->str, 64);
  g_assert_cmpuint (strlen (got), <=, 64);
  g_assert_true (g_utf8_validate (got, -1, NULL));
  g_assert_true (g_str_has_suffix (got, ".xlsx"));

  numbered = rk_import_numbered_name (got, 12, 64);
  g_assert_cmpuint (strlen (numbered), <=, 64);
  g_assert_true (g_utf8_validate (numbered, -1, NULL));
  g_assert_true (g_str_has_suffix (numbered, " (12).xlsx"));

  g_clear_pointer (&numbered, g_free);
  numbered = rk_import_numbered_name ("report.csv", 2, 200);
  g_assert_cmpstr (numbered, ==, "report (2).csv");
}

/* -- import ------------------------------------------------------------- */

static void
test_import_refusals (void)
{
  g_autofree char *dir = g_build_filename (fx.root, "refusals", NULL);
  g_autofree char *ws = g_build_filename (fx.root, "refusals-ws", NULL);
  g_autofree char *link = g_build_filename (dir, "link.csv", NULL);
  g_autofree char *fifo = g_build_filename (dir, "pipe.csv", NULL);
  g_autofree char *target = g_build_filename (fx.canary, "secret.txt", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  g_autoptr(RkWorkspace) w = rk_workspace_open (ws, NULL);
  g_assert_cmpint (symlink (target, link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  name = rk_import_file (w, link, NULL, &error);
  g_assert_error (error, RK_IMPORT_ERROR, RK_IMPORT_ERROR_NOT_REGULAR);
  g_assert_null (name);
  g_clear_error (&error);

  /* A FIFO with no writer: must fail at once, not block. */
  name = rk_import_file (w, fifo, NULL, &error);
  g_assert_error (error, RK_IMPORT_ERROR, RK_IMPORT_ERROR_NOT_REGULAR);
  g_clear_error (&error);

  name = rk_import_file (w, dir, NULL, &error);
  g_assert_error (error, RK_IMPORT_ERROR, RK_IMPORT_ERROR_NOT_REGULAR);
  g_clear_error (&error);

  name = rk_import_file (w, "/dev/null", NULL, &error);
  g_assert_error (error, RK_IMPORT_ERROR, RK_IMPORT_ERROR_NOT_REGULAR);
  g_clear_error (&error);

  /* Nothing half-copied is left behind. */
  {
    g_autoptr(GDir) d = g_dir_open (ws, 0, NULL);

    g_assert_null (g_dir_read_name (d));
  }
}

static void
import_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  char **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = rk_import_file_finish (result, &error);
  g_assert_no_error (error);
}

static void
test_import_collisions (void)
{
  g_autofree char *ws = g_build_filename (fx.root, "collide-ws", NULL);
  g_autofree char *src = g_build_filename (fx.fixtures, "quoted.csv", NULL);
  /* A source path with ".." components still imports under its basename. */
  g_autofree char *base = g_path_get_basename (fx.fixtures);
  g_autofree char *dotted = g_build_filename (fx.fixtures, "..", base, "quoted.csv", NULL);
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  g_autofree char *orig = NULL, *copy = NULL;
  g_autofree char *copy_path = NULL;
  gsize orig_len, copy_len;

  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  g_autoptr(RkWorkspace) w = rk_workspace_open (ws, NULL);
  a = rk_import_file (w, src, NULL, NULL);
  b = rk_import_file (w, dotted, NULL, NULL);
  rk_import_file_async (w, src, FALSE, NULL, import_done_cb, &c);
  while (c == NULL)
    g_main_context_iteration (NULL, TRUE);

  g_assert_cmpstr (a, ==, "quoted.csv");
  g_assert_cmpstr (b, ==, "quoted (2).csv");
  g_assert_cmpstr (c, ==, "quoted (3).csv");

  g_assert_true (g_file_get_contents (src, &orig, &orig_len, NULL));
  copy_path = g_build_filename (ws, c, NULL);
  g_assert_true (g_file_get_contents (copy_path, &copy, &copy_len, NULL));
  g_assert_cmpmem (orig, orig_len, copy, copy_len);
}

static void
import_count_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  guint *left = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = rk_import_file_finish (result, &error);

  g_assert_no_error (error);
  g_assert_nonnull (name);
  (*left)--;
}

/* Many files added at once into a fresh workspace: the imports make the
 * staging folder at the same moment, and none of them fails for it. */
static void
test_import_staged_at_once (void)
{
  g_autofree char *src = g_build_filename (fx.fixtures, "quoted.csv", NULL);

  for (guint round = 0; round < 20; round++)
    {
      g_autofree char *base = g_strdup_printf ("at-once-%u-ws", round);
      g_autofree char *dir = g_build_filename (fx.root, base, NULL);
      guint left = 8;

      g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
      g_autoptr(RkWorkspace) w = rk_workspace_open (dir, NULL);
      for (guint i = 0; i < 8; i++)
        rk_import_file_async (w, src, TRUE, NULL, import_count_cb, &left);
      while (left > 0)
        g_main_context_iteration (NULL, TRUE);
    }
}

/* Staged for a running kernel: the copy waits in RK_IMPORT_INCOMING under
 * a name free in the workspace as well, until it is placed. */
static void
test_import_staged (void)
{
  g_autofree char *ws = g_build_filename (fx.root, "staged-ws", NULL);
  g_autofree char *src = g_build_filename (fx.fixtures, "quoted.csv", NULL);
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  g_autofree char *staged_b = NULL, *placed_b = NULL, *placed_c = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  g_autoptr(RkWorkspace) w = rk_workspace_open (ws, NULL);
  a = rk_import_file (w, src, NULL, NULL);
  rk_import_file_async (w, src, TRUE, NULL, import_done_cb, &b);
  while (b == NULL)
    g_main_context_iteration (NULL, TRUE);
  rk_import_file_async (w, src, TRUE, NULL, import_done_cb, &c);
  while (c == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (a, ==, "quoted.csv");
  g_assert_cmpstr (b, ==, "quoted (2).csv");
  g_assert_cmpstr (c, ==, "quoted (3).csv");

  staged_b = g_build_filename (ws, RK_IMPORT_INCOMING, b, NULL);
  placed_b = g_build_filename (ws, b, NULL);
  placed_c = g_build_filename (ws, c, NULL);
  g_assert_true (g_file_test (staged_b, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (placed_b, G_FILE_TEST_EXISTS));

  /* A hidden name is a file still being copied: it stays. */
  {
    g_autofree char *half = g_build_filename (ws, RK_IMPORT_INCOMING, ".import-half", NULL);

    g_assert_true (g_file_set_contents (half, "half", -1, NULL));
  }

  /* One that cannot be placed (the name was taken meanwhile) is named,
   * stays staged, and can be dropped. */
  g_assert_true (g_file_set_contents (placed_c, "taken", -1, NULL));
  g_assert_false (rk_import_place_staged (w, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "quoted (3).csv"));
  g_clear_error (&error);
  rk_import_drop_staged (w, c);
  g_assert_true (rk_import_place_staged (w, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (placed_b, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (staged_b, G_FILE_TEST_EXISTS));
  {
    g_autofree char *half = g_build_filename (ws, RK_IMPORT_INCOMING, ".import-half", NULL);
    g_autofree char *placed_half = g_build_filename (ws, ".import-half", NULL);

    g_assert_true (g_file_test (half, G_FILE_TEST_IS_REGULAR));
    g_assert_false (g_file_test (placed_half, G_FILE_TEST_EXISTS));
  }
  {
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (placed_c, &text, NULL, NULL));
    g_assert_cmpstr (text, ==, "taken");
  }
}

static void
test_import_cancelled (void)
{
  g_autofree char *ws = g_build_filename (fx.root, "cancel-ws", NULL);
  g_autofree char *src = g_build_filename (fx.fixtures, "quoted.csv", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;

  g_autofree char *staging = g_build_filename (ws, RK_IMPORT_INCOMING, NULL);

  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  g_autoptr(RkWorkspace) w = rk_workspace_open (ws, NULL);
  g_cancellable_cancel (cancellable);
  name = rk_import_file (w, src, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  /* Nothing half-copied is left, in the workspace or its staging folder. */
  {
    g_autoptr(GDir) d = g_dir_open (ws, 0, NULL);
    const char *entry = g_dir_read_name (d);

    g_assert_true (entry == NULL || g_str_equal (entry, RK_IMPORT_INCOMING));
    g_assert_null (g_dir_read_name (d));
  }
  {
    g_autoptr(GDir) d = g_dir_open (staging, 0, NULL);

    g_assert_true (d == NULL || g_dir_read_name (d) == NULL);
  }
}

static void
test_import_staging_symlink (void)
{
  /* Hostile code replaced the staging folder with a link out of the
   * workspace: the half-copied file must not land at the link's target. */
  g_autofree char *ws = g_build_filename (fx.root, "staging-ws", NULL);
  g_autofree char *link = g_build_filename (ws, RK_IMPORT_INCOMING, NULL);
  g_autofree char *src = g_build_filename (fx.fixtures, "quoted.csv", NULL);
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) d = NULL;

  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  g_autoptr(RkWorkspace) w = rk_workspace_open (ws, NULL);
  g_assert_cmpint (symlink (fx.canary, link), ==, 0);
  name = rk_import_file (w, src, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "quoted.csv");
  d = g_dir_open (fx.canary, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (d), ==, "secret.txt");
  g_assert_null (g_dir_read_name (d));
}

/* -- profiles ----------------------------------------------------------- */

static void
test_profile_csv_shapes (void)
{
  RkFileProfile *p;
  RkTableProfile *t;

  if (skip_without_sandbox ())
    return;

  p = profile_of ("quoted.csv");
  g_assert_null (p->error);
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_CSV);
  t = table (p, 0);
  g_assert_cmpuint (t->rows, ==, 3);
  g_assert_cmpuint (t->n_columns, ==, 3);
  g_assert_true (t->header);
  g_assert_cmpstr (cell (t, 0, 1), ==, "hello, world");
  g_assert_cmpstr (cell (t, 1, 1), ==, "two\nlines \"quoted\"");
  g_assert_cmpint (column (t, 2)->type, ==, RK_COLUMN_FLOAT);
  g_assert_true (column (t, 2)->has_stats);
  g_assert_cmpfloat_with_epsilon (column (t, 2)->max, 5.25, 1e-9);

  p = profile_of ("bom.csv");
  g_assert_null (p->error);
  g_assert_nonnull (strstr (p->encoding, "BOM"));
  t = table (p, 0);
  g_assert_cmpstr (column (t, 0)->name, ==, "name");
  g_assert_cmpstr (cell (t, 1, 0), ==, "Bj\xc3\xb6rn");

  p = profile_of ("latin1.csv");
  g_assert_null (p->error);
  g_assert_cmpstr (p->delimiter, ==, ";");
  t = table (p, 0);
  g_assert_cmpstr (cell (t, 0, 0), ==, "Saint-\xc3\x89tienne");
  g_assert_cmpint (column (t, 1)->type, ==, RK_COLUMN_INTEGER);

  p = profile_of ("semicolon.csv");
  g_assert_null (p->error);
  g_assert_cmpstr (p->delimiter, ==, ";");
  g_assert_cmpstr (p->decimal, ==, ",");
  t = table (p, 0);
  g_assert_cmpint (column (t, 1)->type, ==, RK_COLUMN_FLOAT);
  g_assert_cmpfloat_with_epsilon (column (t, 1)->min, 1.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (column (t, 1)->max, 1234.75, 1e-9);
  g_assert_cmpstr (p->read_hint, ==, "reckon.load('semicolon.csv')");
  g_assert_nonnull (p->reading);
  g_assert_cmpstr (p->reading->decimal, ==, ",");
  g_assert_cmpstr (p->reading->delimiter, ==, ";");

  p = profile_of ("ragged.csv");
  g_assert_null (p->error);
  t = table (p, 0);
  g_assert_cmpuint (t->rows, ==, 4);
  g_assert_cmpuint (t->n_columns, ==, 4);
  g_assert_nonnull (p->notes);
  g_assert_nonnull (p->notes[0]);

  p = profile_of ("empty.csv");
  g_assert_cmpstr (p->error, ==, "This file is empty.");

  p = profile_of ("header-only.csv");
  g_assert_null (p->error);
  t = table (p, 0);
  g_assert_cmpuint (t->rows, ==, 0);
  g_assert_cmpuint (t->n_columns, ==, 3);
  g_assert_cmpstr (column (t, 2)->name, ==, "gamma");

  p = profile_of ("noheader.csv");
  g_assert_null (p->error);
  t = table (p, 0);
  g_assert_false (t->header);
  g_assert_cmpuint (t->rows, ==, 3);

  p = profile_of ("pipe.csv");
  g_assert_cmpstr (p->delimiter, ==, "|");
  /* Excel's "sep=;" line names the delimiter and is skipped. */
  p = profile_of ("excel-sep.csv");
  g_assert_null (p->error);
  g_assert_cmpstr (p->delimiter, ==, ";");
  g_assert_cmpstr (p->decimal, ==, ",");
  t = table (p, 0);
  g_assert_cmpuint (t->rows, ==, 2);
  g_assert_cmpstr (column (t, 0)->name, ==, "name");
  g_assert_cmpfloat_with_epsilon (column (t, 1)->max, 2.25, 1e-9);
  g_assert_cmpuint (p->reading->skip_lines, ==, 1);
  p = profile_of ("tabs.tsv");
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_TSV);
  p = profile_of ("utf16.csv");
  g_assert_null (p->error);
  g_assert_cmpstr (p->encoding, ==, "UTF-16");
  g_assert_cmpstr (cell (table (p, 0), 0, 0), ==, "\xc3\xa4");

  /* Quote marks that enclose nothing are text: no lines merged. */
  p = profile_of ("stray-quotes.tsv");
  g_assert_null (p->error);
  g_assert_cmpuint (table (p, 0)->rows, ==, 3000);
  g_assert_cmpuint (table (p, 0)->n_columns, ==, 3);
  g_assert_true (p->reading->quotes_are_text);
  g_assert_cmpstr (cell (table (p, 0), 3, 1), ==, "\"Big Joe");

  /* .txt files that are tables. */
  p = profile_of ("export-pipes.txt");
  g_assert_null (p->error);
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_CSV);
  g_assert_cmpstr (p->delimiter, ==, "|");
  g_assert_cmpuint (table (p, 0)->rows, ==, 4);
  g_assert_true (table (p, 0)->header);
  g_assert_cmpstr (p->read_hint, ==, "reckon.load('export-pipes.txt')");
  p = profile_of ("codes-semicolons.txt");
  g_assert_null (p->error);
  g_assert_cmpstr (p->delimiter, ==, ";");
  g_assert_cmpuint (table (p, 0)->rows, ==, 4);
  g_assert_cmpuint (table (p, 0)->n_columns, ==, 3);
  g_assert_false (table (p, 0)->header);
  g_assert_cmpuint (p->reading->comment_lines, ==, 1);

  p = profile_of ("garbage.csv");
  g_assert_cmpstr (p->error, ==, "This file is not a spreadsheet: it contains binary data.");

  p = profile_of ("notes.txt");
  g_assert_null (p->error);
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_TEXT);
  g_assert_cmpuint (p->lines, ==, 2);

  p = profile_of ("records.json");
  g_assert_null (p->error);
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_JSON);
  g_assert_cmpuint (table (p, 0)->rows, ==, 3);
}

static void
test_profile_odd_names (void)
{
  const char *names[] = { "odd name with spaces.csv", "caf\xc3\xa9 \xe2\x82\xac.csv", "new\nline.csv" };
  const char *expect[] = { "odd name with spaces.csv", "caf\xc3\xa9 \xe2\x82\xac.csv", "newline.csv" };

  if (skip_without_sandbox ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      RkFileProfile *p = profile_of (names[i]);

      g_assert_cmpstr (p->name, ==, expect[i]);
      g_assert_null (p->error);
      g_assert_cmpuint (table (p, 0)->rows, ==, 1);
    }
}

static void
test_profile_workbooks (void)
{
  RkFileProfile *p;
  RkTableProfile *t;

  if (skip_without_sandbox ())
    return;

  p = profile_of ("book.xlsx");
  g_assert_null (p->error);
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_XLSX);
  g_assert_cmpuint (p->sheets, ==, 3);
  g_assert_cmpuint (p->tables->len, ==, 3);
  t = table (p, 0);
  g_assert_cmpstr (t->name, ==, "Sales");
  g_assert_true (t->header);
  g_assert_cmpstr (column (t, 0)->name, ==, "Region");
  g_assert_cmpint (column (t, 1)->type, ==, RK_COLUMN_INTEGER);
  g_assert_cmpfloat_with_epsilon (column (t, 2)->max, 12.5, 1e-9);
  /* The merged footer keeps its text in its first cell, and a note says so. */
  g_assert_cmpstr (cell (t, 4, 0), ==, "Merged footer");
  g_assert_nonnull (p->notes);
  g_assert_nonnull (strstr (p->notes[0], "Sheet Sales has 1 merged cell ranges"));
  t = table (p, 1);
  g_assert_cmpstr (t->name, ==, "Staff");
  g_assert_cmpuint (t->rows, ==, 20);
  t = table (p, 2);
  g_assert_cmpuint (t->rows, ==, 0);

  /* Title rows above a sheet's table are skipped, and said so. */
  p = profile_of ("titled.xlsx");
  g_assert_null (p->error);
  t = table (p, 0);
  g_assert_true (t->header);
  g_assert_cmpuint (t->rows, ==, 4);
  g_assert_cmpuint (t->n_columns, ==, 4);
  g_assert_cmpstr (column (t, 0)->name, ==, "Region");
  g_assert_cmpint (column (t, 1)->type, ==, RK_COLUMN_DATE);
  g_assert_cmpint (column (t, 3)->type, ==, RK_COLUMN_INTEGER);
  g_assert_nonnull (p->notes);
  g_assert_nonnull (strstr (p->notes[0], "2 title rows above the table (Sales report 2023; 2024-01-15"));

  p = profile_of ("sheet.ods");
  g_assert_null (p->error);
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_ODS);
  g_assert_cmpuint (p->tables->len, ==, 2);
  t = table (p, 0);
  g_assert_cmpstr (t->name, ==, "Cities");
  g_assert_cmpuint (t->rows, ==, 3);
  g_assert_cmpint (column (t, 1)->type, ==, RK_COLUMN_INTEGER);
  g_assert_cmpfloat_with_epsilon (column (t, 1)->max, 522000, 1e-9);
}

static void
test_profile_xls (void)
{
  /* No XLS writer ships in Debian 12: python3-xlrd's own example it is. */
  const char *xls = "/usr/share/doc/python3-xlrd/examples/namesdemo.xls";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) profiles = NULL;
  g_autofree char *name = NULL;
  RkFileProfile *p;
  RkTableProfile *t;

  if (skip_without_sandbox ())
    return;
  if (!g_file_test (xls, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no XLS sample: python3-xlrd's examples are not installed");
      return;
    }
  name = rk_import_file (fx.ws, xls, NULL, &error);
  g_assert_no_error (error);
  {
    const char *names[] = { name, NULL };

    profiles = rk_profile_files (fx.ws, names, NULL, NULL, &error);
  }
  g_assert_no_error (error);
  p = g_ptr_array_index (profiles, 0);
  g_assert_null (p->error);
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_XLS);
  g_assert_cmpuint (p->sheets, ==, 4);
  t = table (p, 0);
  g_assert_cmpstr (t->name, ==, "Sheet1");
  g_assert_cmpstr (cell (t, 0, 0), ==, "42");
  t = table (p, 2);
  g_assert_cmpstr (column (t, 1)->name, ==, "Jan");
}

static void
test_profile_pdfs (void)
{
  RkFileProfile *p;
  RkTableProfile *t;

  if (skip_without_sandbox ())
    return;

  p = profile_of ("report.pdf");
  g_assert_null (p->error);
  g_assert_cmpint (p->kind, ==, RK_FILE_KIND_PDF);
  g_assert_cmpuint (p->pages, ==, 2);
  g_assert_true (p->text_layer);
  g_assert_nonnull (strstr (p->page_text[0], "Quarterly report"));
  /* The table on page 2 comes from pdftotext -layout inside the sandbox. */
  t = table (p, 0);
  g_assert_cmpuint (t->page, ==, 2);
  g_assert_cmpuint (t->rows, ==, 4);
  g_assert_cmpuint (t->n_columns, ==, 3);
  g_assert_cmpstr (column (t, 2)->name, ==, "Revenue");
  g_assert_cmpfloat_with_epsilon (column (t, 2)->max, 4020, 1e-9);

  p = profile_of ("scanned.pdf");
  g_assert_null (p->error);
  g_assert_cmpuint (p->pages, ==, 1);
  g_assert_false (p->text_layer);
  g_assert_nonnull (strstr (p->notes[0], "no text layer"));

  p = profile_of ("locked.pdf");
  g_assert_cmpstr (p->error, ==, "This PDF is encrypted with a password, so its text cannot be read.");
}

static void
test_profile_hostile_xml (void)
{
  RkFileProfile *p;

  if (skip_without_sandbox ())
    return;
  p = profile_of ("laughs.xlsx");
  g_assert_cmpstr (p->error, ==, "This file contains unsafe XML (entity declarations), so it was not opened.");
  /* The same hand-made workbook without the entities profiles fine. */
  p = profile_of ("handmade.xlsx");
  g_assert_null (p->error);
  g_assert_cmpstr (cell (table (p, 0), 0, 0), ==, "hello");
}

static void
test_profile_zip_bomb (void)
{
  g_autofree char *dir = g_build_filename (fx.root, "bomb", NULL);
  g_autofree char *ws = g_build_filename (fx.root, "bomb-ws", NULL);
  g_autofree char *bomb = g_build_filename (dir, "bomb.xlsx", NULL);
  g_autofree char *small = g_build_filename (fx.fixtures, "handmade.xlsx", NULL);
  g_autofree char *a = NULL, *b = NULL;
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_build_filename (g_getenv ("RECKON_SOURCE_ROOT"), "tests",
                                              "integration", "make-import-fixtures.py", NULL);
  const char *argv[] = { "/usr/bin/python3", script, dir, "bomb-xlsx", "1200", NULL };
  g_autofree char *out = NULL;
  struct stat st;

  if (skip_without_sandbox ())
    return;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  g_autoptr(RkWorkspace) w = rk_workspace_open (ws, NULL);
  out = run_python (argv, &error);
  g_assert_no_error (error);
  g_assert_cmpint (stat (bomb, &st), ==, 0);
  /* A small file that inflates to 1.2 GB of shared strings. */
  g_assert_cmpint (st.st_size, <, 4 * 1024 * 1024);

  a = rk_import_file (w, bomb, NULL, &error);
  g_assert_no_error (error);
  b = rk_import_file (w, small, NULL, &error);
  g_assert_no_error (error);

  rk_profile_set_limits (768 * 1024 * 1024, 60);
  {
    const char *names[] = { a, b, NULL };

    profiles = rk_profile_files (w, names, NULL, NULL, &error);
  }
  rk_profile_set_limits (G_GUINT64_CONSTANT (2) * 1024 * 1024 * 1024, 60);
  g_assert_no_error (error);
  g_assert_cmpuint (profiles->len, ==, 2);
  g_test_message ("bomb: %s", ((RkFileProfile *) g_ptr_array_index (profiles, 0))->error);
  g_assert_cmpstr (((RkFileProfile *) g_ptr_array_index (profiles, 0))->error, ==,
                   "This file needs more memory than the sandbox allows, so it was not profiled.");
  g_test_message ("next: %s", ((RkFileProfile *) g_ptr_array_index (profiles, 1))->error);
  /* The next profile works. */
  g_assert_null (((RkFileProfile *) g_ptr_array_index (profiles, 1))->error);
}

static void
test_profile_packed (void)
{
  const char *good[] = { "packed.csv.gz", "packed.csv.bz2", "packed.tsv.xz", "one.zip", "traversal.zip",
                         "notgzip.csv.gz" };
  const char *compression[] = { "gzip", "bz2", "xz", "zip", "zip", NULL };
  RkFileProfile *p;

  if (skip_without_sandbox ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      RkTableProfile *t;

      p = profile_of (good[i]);
      g_test_message ("%s: %s", good[i], p->error);
      g_assert_null (p->error);
      t = table (p, 0);
      g_assert_cmpuint (t->rows, ==, 3);
      g_assert_cmpuint (t->n_columns, ==, 3);
      g_assert_true (t->header);
      g_assert_cmpstr (column (t, 0)->name, ==, "city");
      /* Dates written 2012/01/31 are dates; 27607900 stays a whole number. */
      g_assert_cmpint (column (t, 1)->type, ==, RK_COLUMN_DATE);
      g_assert_cmpint (column (t, 2)->type, ==, RK_COLUMN_INTEGER);
      g_assert_cmpfloat (column (t, 2)->max, ==, 27607900);
      g_assert_nonnull (p->reading);
      g_assert_cmpstr (p->reading->compression, ==, compression[i]);
      g_assert_cmpstr (p->read_hint, !=, NULL);
      g_assert_true (g_str_has_prefix (p->read_hint, "reckon.load("));
    }
  /* A ZIP member named ../../ is only read, never unpacked anywhere, and
   * shown by its base name. */
  p = profile_of ("traversal.zip");
  {
    g_autofree char *how = rk_file_profile_describe_reading (p);

    g_assert_nonnull (strstr (how, "the file “escaped.csv” inside a ZIP archive"));
    g_assert_null (strstr (how, ".."));
  }
  g_assert_false (g_file_test ("/tmp/escaped.csv", G_FILE_TEST_EXISTS));

  g_assert_cmpstr (profile_of ("damaged.csv.gz")->error, ==, "This compressed file is damaged, so it could not be read.");
  g_assert_cmpstr (profile_of ("image.bin.gz")->error, ==,
                   "This compressed file does not hold a table: what it holds is binary data.");
  g_assert_nonnull (strstr (profile_of ("three.zip")->error, "holds 3 files"));
  g_assert_nonnull (strstr (profile_of ("many.zip")->error, "more than 10000 files"));
}

static void
test_profile_gzip_bomb (void)
{
  g_autofree char *dir = g_build_filename (fx.root, "bomb", NULL);
  g_autofree char *ws = g_build_filename (fx.root, "gzbomb-ws", NULL);
  g_autofree char *bomb = g_build_filename (dir, "bomb.csv.gz", NULL);
  g_autofree char *small = g_build_filename (fx.fixtures, "packed.csv.gz", NULL);
  g_autofree char *script = g_build_filename (g_getenv ("RECKON_SOURCE_ROOT"), "tests",
                                              "integration", "make-import-fixtures.py", NULL);
  const char *argv[] = { "/usr/bin/python3", script, bomb, "bomb-gz", "1.1", NULL };
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *a = NULL, *b = NULL;
  struct stat st;

  if (skip_without_sandbox ())
    return;
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  g_autoptr(RkWorkspace) w = rk_workspace_open (ws, NULL);
  out = run_python (argv, &error);
  g_assert_no_error (error);
  /* 2 MB that unpack to 1.1 GiB: refused by the cap on unpacked bytes,
   * before the sandbox's memory limit is needed. */
  g_assert_cmpint (stat (bomb, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, 4 * 1024 * 1024);
  a = rk_import_file (w, bomb, NULL, &error);
  g_assert_no_error (error);
  b = rk_import_file (w, small, NULL, &error);
  g_assert_no_error (error);
  {
    const char *names[] = { a, b, NULL };

    profiles = rk_profile_files (w, names, NULL, NULL, &error);
  }
  g_assert_no_error (error);
  g_assert_cmpstr (((RkFileProfile *) g_ptr_array_index (profiles, 0))->error, ==,
                   "This compressed file unpacks to more than 1024 MB, so it was not read.");
  g_assert_null (((RkFileProfile *) g_ptr_array_index (profiles, 1))->error);
}

static void
async_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
test_csv_spectrum (void)
{
  g_autofree char *dir = g_build_filename (g_getenv ("RECKON_TEST_DATA"), "csv-spectrum", NULL);
  g_autofree char *csvs = g_build_filename (dir, "csvs", NULL);
  g_autofree char *ws = g_build_filename (fx.root, "spectrum-ws", NULL);
  g_autoptr(GDir) d = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GError) error = NULL;
  const char *entry;
  guint checked = 0;

  if (skip_without_sandbox ())
    return;
  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  g_autoptr(RkWorkspace) w = rk_workspace_open (ws, NULL);
  d = g_dir_open (csvs, 0, &error);
  g_assert_no_error (error);
  while ((entry = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *src = g_build_filename (csvs, entry, NULL);

      g_ptr_array_add (names, rk_import_file (w, src, NULL, &error));
      g_assert_no_error (error);
    }
  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);
  /* The asynchronous entry point, as the GUI uses it. */
  {
    GAsyncResult *result = NULL;

    rk_profile_files_async (w, (const char * const *) names->pdata, NULL, NULL, NULL, NULL, NULL, async_done_cb,
                            &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    profiles = rk_profile_files_finish (result, &error);
    g_object_unref (result);
  }
  g_assert_no_error (error);

  for (guint i = 0; i < profiles->len; i++)
    {
      RkFileProfile *p = g_ptr_array_index (profiles, i);
      g_autofree char *stem = g_strndup (p->name, strlen (p->name) - 4);
      g_autofree char *json_name = g_strconcat (stem, ".json", NULL);
      g_autofree char *json_path = g_build_filename (dir, "json", json_name, NULL);
      g_autoptr(JsonParser) parser = json_parser_new ();
      RkTableProfile *t;
      JsonArray *rows;

      g_test_message ("csv-spectrum %s", p->name);
      g_assert_null (p->error);
      t = table (p, 0);
      json_parser_load_from_file (parser, json_path, &error);
      g_assert_no_error (error);
      if (strcmp (stem, "location_coordinates") == 0)
        {
          /* Upstream's JSON for this one disagrees with its CSV (see
           * tests/data/csv-spectrum/LICENSE): check the shape only. */
          g_assert_cmpuint (t->rows, ==, 1);
          g_assert_cmpuint (t->n_columns, ==, 4);
          g_assert_cmpstr (column (t, 1)->name, ==, "Location Coordinates");
          continue;
        }
      rows = json_node_get_array (json_parser_get_root (parser));
      g_assert_cmpuint (t->rows, ==, json_array_get_length (rows));
      for (guint r = 0; r < json_array_get_length (rows); r++)
        {
          JsonObject *o = json_array_get_object_element (rows, r);
          g_autoptr(GList) members = json_object_get_members (o);
          guint c = 0;

          g_assert_cmpuint (g_list_length (members), ==, t->n_columns);
          for (GList *l = members; l != NULL; l = l->next, c++)
            {
              g_assert_cmpstr (column (t, c)->name, ==, l->data);
              g_assert_cmpstr (cell (t, r, c), ==, json_object_get_string_member (o, l->data));
            }
        }
      checked++;
    }
  g_assert_cmpuint (checked, ==, 11);
}

static void
test_prompt_text (void)
{
  g_autoptr(GPtrArray) some = g_ptr_array_new ();
  g_autofree char *text = NULL;
  g_autofree char *tiny = NULL;

  if (skip_without_sandbox ())
    return;
  g_ptr_array_add (some, profile_of ("semicolon.csv"));
  g_ptr_array_add (some, profile_of ("book.xlsx"));
  g_ptr_array_add (some, profile_of ("garbage.csv"));
  text = rk_profiles_to_prompt (some, 8192, RK_PROMPT_SAMPLES_DEFAULT);
  g_test_message ("%s", text);
  g_assert_cmpuint (strlen (text), <=, 8192);
  g_assert_nonnull (strstr (text, "File “semicolon.csv” (CSV"));
  g_assert_nonnull (strstr (text, "semicolon-separated, decimal comma"));
  g_assert_nonnull (strstr (text, "- prix: float, min 1.5, max 1234.75"));
  g_assert_nonnull (strstr (text, "Sheet “Staff”: 20 rows × 2 columns"));
  g_assert_nonnull (strstr (text, "Load: reckon.load('semicolon.csv')"));
  g_assert_nonnull (strstr (text, "Read as: semicolon-separated, first row is the header, decimal comma"));
  g_assert_nonnull (strstr (text, "File “garbage.csv”: This file is not a spreadsheet"));
  /* The schema comes before the rows. */
  g_assert_true (strstr (text, "- prix:") < strstr (text, "First rows:"));

  /* A small budget still yields every file's name and stays bounded. */
  tiny = rk_profiles_to_prompt (some, 1200, RK_PROMPT_SAMPLES_DEFAULT);
  g_assert_cmpuint (strlen (tiny), <=, 1200 + 600);
  g_assert_nonnull (strstr (tiny, "garbage.csv"));
}

static void
test_nothing_outside (void)
{
  g_autofree char *canary_after = fingerprint (fx.canary);
  g_autofree char *root_after = fingerprint (fx.root);
  g_autofree char *expected = g_build_filename (fx.canary, "secret.txt", NULL);
  g_autofree char *contents = NULL;

  g_assert_true (g_file_get_contents (expected, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "do not touch\n");
  g_auto(GStrv) canary_lines = g_strsplit (canary_after, "\n", -1);
  g_auto(GStrv) root_lines = g_strsplit (root_after, "\n", -1);

  g_assert_cmpuint (g_strv_length (canary_lines), ==, 2);
  /* Only the folders the test itself made are at the top. */
  for (char **it = root_lines; *it != NULL; it++)
    {
      if (**it == '\0')
        continue;
      g_assert_true (g_str_has_prefix (*it, "fixtures:") || g_str_has_prefix (*it, "ws:") ||
                     g_str_has_prefix (*it, "canary:") || strstr (*it, "-ws:") != NULL ||
                     g_str_has_prefix (*it, "refusals:") || g_str_has_prefix (*it, "bomb:"));
    }
}

static void
setup_fixture (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) d = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *secret = NULL;
  g_autofree char *before = NULL;
  const char *entry;
  const char *sandbox = g_getenv ("RECKON_SANDBOX");

  fx.root = g_dir_make_tmp ("reckon-test-import-XXXXXX", &error);
  g_assert_no_error (error);
  /* reckon-sandbox (as root) opens the workspace as an unprivileged user,
   * which needs search permission on the workspace's parents. */
  g_assert_cmpint (chmod (fx.root, 0755), ==, 0);
  fx.fixtures = g_build_filename (fx.root, "fixtures", NULL);
  fx.workspace = g_build_filename (fx.root, "ws", NULL);
  fx.canary = g_build_filename (fx.root, "canary", NULL);
  g_assert_cmpint (g_mkdir_with_parents (fx.workspace, 0700), ==, 0);
  fx.ws = rk_workspace_open (fx.workspace, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (fx.canary, 0700), ==, 0);
  secret = g_build_filename (fx.canary, "secret.txt", NULL);
  g_assert_true (g_file_set_contents (secret, "do not touch\n", -1, NULL));
  make_fixtures (fx.fixtures);
  before = fingerprint (fx.fixtures);

  have_sandbox = sandbox != NULL && g_file_test (sandbox, G_FILE_TEST_IS_EXECUTABLE);

  d = g_dir_open (fx.fixtures, 0, &error);
  g_assert_no_error (error);
  while ((entry = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *src = g_build_filename (fx.fixtures, entry, NULL);
      char *name = rk_import_file (fx.ws, src, NULL, &error);

      g_assert_no_error (error);
      g_ptr_array_add (names, name ? g_strdup (name) : NULL);
      g_ptr_array_add (sources, g_strdup (entry));
      g_free (name);
    }
  g_ptr_array_add (names, NULL);

  fx.by_source = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (have_sandbox)
    {
      fx.profiles = rk_profile_files (fx.ws, (const char * const *) names->pdata, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (fx.profiles->len, ==, sources->len);
      for (guint i = 0; i < sources->len; i++)
        g_hash_table_insert (fx.by_source, g_strdup (g_ptr_array_index (sources, i)),
                             g_ptr_array_index (fx.profiles, i));
    }

  /* The originals were only read. */
  {
    g_autofree char *after = fingerprint (fx.fixtures);

    g_assert_cmpstr (before, ==, after);
  }
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  setup_fixture ();

  g_test_add_func ("/rk/import/sanitize", test_sanitize);
  g_test_add_func ("/rk/import/sanitize-length", test_sanitize_length);
  g_test_add_func ("/rk/import/refusals", test_import_refusals);
  g_test_add_func ("/rk/import/collisions", test_import_collisions);
  g_test_add_func ("/rk/import/staged", test_import_staged);
  g_test_add_func ("/rk/import/staged-at-once", test_import_staged_at_once);
  g_test_add_func ("/rk/import/cancelled", test_import_cancelled);
  g_test_add_func ("/rk/import/staging-symlink", test_import_staging_symlink);
  g_test_add_func ("/rk/profile/csv-shapes", test_profile_csv_shapes);
  g_test_add_func ("/rk/profile/odd-names", test_profile_odd_names);
  g_test_add_func ("/rk/profile/workbooks", test_profile_workbooks);
  g_test_add_func ("/rk/profile/xls", test_profile_xls);
  g_test_add_func ("/rk/profile/pdfs", test_profile_pdfs);
  g_test_add_func ("/rk/profile/hostile-xml", test_profile_hostile_xml);
  g_test_add_func ("/rk/profile/zip-bomb", test_profile_zip_bomb);
  g_test_add_func ("/rk/profile/packed", test_profile_packed);
  g_test_add_func ("/rk/profile/gzip-bomb", test_profile_gzip_bomb);
  g_test_add_func ("/rk/profile/csv-spectrum", test_csv_spectrum);
  g_test_add_func ("/rk/profile/prompt-text", test_prompt_text);
  g_test_add_func ("/rk/profile/nothing-outside-workspace", test_nothing_outside);

  status = g_test_run ();

  g_clear_pointer (&fx.by_source, g_hash_table_unref);
  g_clear_pointer (&fx.profiles, g_ptr_array_unref);
  g_clear_object (&fx.ws);
  rk_workspace_delete_folder (fx.root, NULL);
  g_free (fx.root);
  g_free (fx.fixtures);
  g_free (fx.workspace);
  g_free (fx.canary);
  return status;
}
