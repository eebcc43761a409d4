/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-session.c — RkSession: idle expiry on a fake clock (no sleeping),
 * files and artifacts, restart with replay through the real kernel. */
#include "config.h"

#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "rk-export.h"
#include "rk-sandbox-launcher.h"
#include "rk-session.h"
#include "rk-table.h"
#include "rk-workspace.h"

#define MINUTE (G_GINT64_CONSTANT (60) * G_USEC_PER_SEC)

typedef struct
{
  char        *root;
  char        *sessions;
  RkClock     *clock;
  RkSession   *session;
  guint        warnings;
  guint        last_left;
  guint        expired;
} Fixture;

static void
warning_cb (RkSession *session,
            guint      left,
            Fixture   *f)
{
  f->warnings++;
  f->last_left = left;
}

static void
expired_cb (RkSession *session,
            Fixture   *f)
{
  f->expired++;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->root = g_dir_make_tmp ("reckon-test-session-XXXXXX", &error);
  g_assert_no_error (error);
  /* reckon-sandbox (as root) opens the workspace as an unprivileged user,
   * which needs search permission on the workspace's parents. */
  g_assert_cmpint (chmod (f->root, 0755), ==, 0);
  f->sessions = g_build_filename (f->root, "sessions", NULL);
  g_assert_cmpint (g_mkdir (f->sessions, 0755), ==, 0);
  f->clock = rk_fake_clock_new ();
  f->session = rk_session_new (f->sessions, f->clock, &error);
  g_assert_no_error (error);
  g_signal_connect (f->session, "expiry-warning", G_CALLBACK (warning_cb), f);
  g_signal_connect (f->session, "expired", G_CALLBACK (expired_cb), f);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  rk_session_expire (f->session);
  g_assert_finalize_object (f->session);
  g_clear_object (&f->clock);
  rk_workspace_delete_folder (f->root, NULL);
  g_free (f->root);
  g_free (f->sessions);
}

static void
advance (Fixture *f,
         gint64   us)
{
  rk_fake_clock_advance (RK_FAKE_CLOCK (f->clock), us);
}

static void
test_workspace (Fixture       *f,
                gconstpointer  data)
{
  const char *ws = rk_workspace_get_path (rk_session_get_workspace (f->session));
  struct stat st;
  g_autofree char *parent = g_path_get_dirname (ws);
  g_autoptr(RkSession) other = NULL;
  g_autoptr(RkSession) cached = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *cache_parent = NULL;

  g_assert_cmpstr (parent, ==, f->sessions);
  g_assert_cmpint (stat (ws, &st), ==, 0);
  g_assert_true (S_ISDIR (st.st_mode));
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);
  g_assert_cmpint (rk_session_get_state (f->session), ==, RK_SESSION_ACTIVE);

  other = rk_session_new (f->sessions, f->clock, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (rk_session_get_id (other), !=, rk_session_get_id (f->session));
  /* Each session starts empty: nothing of an earlier one is visible. */
  {
    g_autoptr(GDir) d = g_dir_open (rk_workspace_get_path (rk_session_get_workspace (other)), 0, NULL);

    g_assert_nonnull (d);
    g_assert_null (g_dir_read_name (d));
  }
  rk_session_expire (other);

  /* Without a folder: the user cache dir (XDG_CACHE_HOME, set by the test). */
  cached = rk_session_new (NULL, f->clock, &error);
  g_assert_no_error (error);
  cache_parent = g_build_filename (g_get_user_cache_dir (), "reckon", "sessions", NULL);
  g_assert_true (g_str_has_prefix (rk_workspace_get_path (rk_session_get_workspace (cached)), cache_parent));
  rk_session_expire (cached);
}

static void
test_expiry (Fixture       *f,
             gconstpointer  data)
{
  const char *ws = rk_workspace_get_path (rk_session_get_workspace (f->session));
  g_autofree char *file = g_build_filename (ws, "result.csv", NULL);

  g_assert_true (g_file_set_contents (file, "x\n1\n", -1, NULL));
  rk_session_add_artifact (f->session, RK_ARTIFACT_FILE, "result.csv", "c1", NULL);

  /* Nothing before 18 minutes of idleness. */
  advance (f, 18 * MINUTE - 1);
  g_assert_cmpuint (f->warnings, ==, 0);
  /* The warning at 18 minutes, 2 minutes before expiry. */
  advance (f, 1);
  g_assert_cmpuint (f->warnings, ==, 1);
  g_assert_cmpuint (f->last_left, ==, 120);

  /* Keep alive at 19 minutes: no expiry at 20. */
  advance (f, 1 * MINUTE);
  rk_session_keep_alive (f->session);
  advance (f, 2 * MINUTE);
  g_assert_cmpuint (f->expired, ==, 0);
  g_assert_true (g_file_test (ws, G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (f->warnings, ==, 1);

  /* Warned again 18 minutes after the keep-alive (at 37), then expired at 39. */
  advance (f, 16 * MINUTE - 1);
  g_assert_cmpuint (f->warnings, ==, 1);
  advance (f, 1);
  g_assert_cmpuint (f->warnings, ==, 2);
  g_assert_cmpuint (f->expired, ==, 0);
  advance (f, 2 * MINUTE - 1);
  g_assert_cmpuint (f->expired, ==, 0);
  advance (f, 1);
  g_assert_cmpuint (f->expired, ==, 1);

  g_assert_cmpint (rk_session_get_state (f->session), ==, RK_SESSION_EXPIRED);
  g_assert_false (g_file_test (ws, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (rk_session_get_artifacts (f->session)->len, ==, 0);
  g_assert_cmpuint (rk_fake_clock_get_n_pending (RK_FAKE_CLOCK (f->clock)), ==, 0);
  /* Keep-alive after expiry changes nothing. */
  rk_session_keep_alive (f->session);
  advance (f, 60 * MINUTE);
  g_assert_cmpuint (f->expired, ==, 1);
}

static void
test_custom_timeout (Fixture       *f,
                     gconstpointer  data)
{
  rk_session_set_idle_timeout (f->session, 60);
  advance (f, 30 * G_USEC_PER_SEC);
  g_assert_cmpuint (f->warnings, ==, 1);
  g_assert_cmpuint (f->last_left, ==, 30);
  advance (f, 30 * G_USEC_PER_SEC);
  g_assert_cmpuint (f->expired, ==, 1);

  /* Zero turns expiry off. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(RkSession) s = rk_session_new (f->sessions, f->clock, &error);

    g_assert_no_error (error);
    rk_session_set_idle_timeout (s, 0);
    g_assert_cmpint (rk_session_get_expiry_time (s), ==, 0);
    advance (f, 600 * MINUTE);
    g_assert_cmpint (rk_session_get_state (s), ==, RK_SESSION_ACTIVE);
    rk_session_expire (s);
  }
}

static void
add_file_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GError **out_error = ((gpointer *) user_data)[1];
  char **out_name = ((gpointer *) user_data)[0];

  *out_name = rk_session_add_file_finish (RK_SESSION (source), result, out_error);
  if (*out_name == NULL)
    *out_name = g_strdup ("");
}

static char *
add_file (RkSession   *session,
          const char  *path,
          GError     **error)
{
  char *name = NULL;
  gpointer data[2] = { &name, error };

  rk_session_add_file_async (session, path, NULL, add_file_cb, data);
  while (name == NULL)
    g_main_context_iteration (NULL, TRUE);
  if (*name == '\0')
    {
      g_free (name);
      return NULL;
    }
  return name;
}

static void
test_files (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *src = g_build_filename (f->root, "my data.csv", NULL);
  g_autofree char *name = NULL;
  g_autofree char *again = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;
  GPtrArray *files;

  g_assert_true (g_file_set_contents (src, "a,b\n1,2\n", -1, NULL));
  name = add_file (f->session, src, &error);
  g_assert_no_error (error);
  again = add_file (f->session, src, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "my data.csv");
  g_assert_cmpstr (again, ==, "my data (2).csv");

  files = rk_session_get_files (f->session);
  g_assert_cmpuint (files->len, ==, 2);
  g_assert_cmpstr (((RkSessionFile *) g_ptr_array_index (files, 0))->original_path, ==, src);
  names = rk_session_dup_file_names (f->session);
  g_assert_cmpuint (g_strv_length (names), ==, 2);

  /* Adding a file is activity: the warning moves. */
  advance (f, 17 * MINUTE);
  g_clear_pointer (&again, g_free);
  again = add_file (f->session, src, &error);
  advance (f, 2 * MINUTE);
  g_assert_cmpuint (f->warnings, ==, 0);

  rk_session_expire (f->session);
  g_clear_pointer (&again, g_free);
  again = add_file (f->session, src, &error);
  g_assert_error (error, RK_SESSION_ERROR, RK_SESSION_ERROR_EXPIRED);
  g_assert_null (again);
}

static void
count_cb (RkSession *session,
          guint     *n)
{
  (*n)++;
}

static char *
write_in (const char *dir,
          const char *rel,
          const char *contents)
{
  char *path = g_build_filename (dir, rel, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

/* Removing a file: its copy and its reading go, never the original; the
 * names asked for are files of the session only ("../", a path: refused);
 * links made in the workspace (by code in the sandbox) are unlinked or
 * refused, never followed out of it. */
static void
test_remove_file (Fixture       *f,
                  gconstpointer  data)
{
  const char *ws = rk_workspace_get_path (rk_session_get_workspace (f->session));
  g_autofree char *outside_dir = g_build_filename (f->root, "outside", NULL);
  g_autofree char *src = write_in (f->root, "sales.csv", "a,b\n1,2\n");
  g_autofree char *victim = write_in (outside_dir, "victim.csv", "precious\n");
  g_autofree char *outside_reading = write_in (outside_dir, "readings/linked.csv.json", "{}");
  g_autofree char *name = NULL;
  g_autofree char *linked = NULL;
  g_autofree char *dangling = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *reading = NULL;
  g_autofree char *reckon_dir = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;
  guint changed = 0;

  name = add_file (f->session, src, &error);
  g_assert_no_error (error);
  copy = g_build_filename (ws, name, NULL);
  reading = write_in (ws, ".reckon/readings/sales.csv.json", "{}");
  g_signal_connect (f->session, "files-changed", G_CALLBACK (count_cb), &changed);

  /* Hostile or unknown names: refused, nothing deleted anywhere. */
  g_assert_false (rk_session_remove_file (f->session, "../outside/victim.csv", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (rk_session_remove_file (f->session, victim, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (rk_session_remove_file (f->session, "", &error));
  g_clear_error (&error);
  g_assert_false (rk_session_remove_file (f->session, "sales (2).csv", &error));
  g_clear_error (&error);
  g_assert_cmpuint (changed, ==, 0);
  g_assert_true (g_file_test (victim, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (copy, G_FILE_TEST_IS_REGULAR));

  /* The plain case. */
  g_assert_true (rk_session_remove_file (f->session, name, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (reading, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (src, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint (rk_session_get_files (f->session)->len, ==, 0);
  names = rk_session_dup_file_names (f->session);
  g_assert_cmpuint (g_strv_length (names), ==, 0);
  /* Twice: no such file any more. */
  g_assert_false (rk_session_remove_file (f->session, name, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* The copy replaced by a link out of the workspace, and .reckon by a
   * link to a folder outside holding a reading of the same name: the
   * links go, what they point to stays. */
  g_clear_pointer (&name, g_free);
  g_clear_pointer (&src, g_free);
  src = write_in (f->root, "linked.csv", "a\n1\n");
  name = add_file (f->session, src, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "linked.csv");
  linked = g_build_filename (ws, name, NULL);
  g_assert_cmpint (g_unlink (linked), ==, 0);
  g_assert_cmpint (symlink (victim, linked), ==, 0);
  reckon_dir = g_build_filename (ws, ".reckon", NULL);
  g_assert_true (rk_workspace_delete_folder (reckon_dir, NULL));
  g_assert_cmpint (symlink (outside_dir, reckon_dir), ==, 0);
  g_assert_true (rk_session_remove_file (f->session, name, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (linked, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_test (victim, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (outside_reading, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (src, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (g_unlink (reckon_dir), ==, 0);

  /* A copy already gone (or a dangling link in its place) is no error. */
  g_clear_pointer (&name, g_free);
  name = add_file (f->session, src, &error);
  g_assert_no_error (error);
  dangling = g_build_filename (ws, name, NULL);
  g_assert_cmpint (g_unlink (dangling), ==, 0);
  g_assert_cmpint (symlink ("/nonexistent/reckon-test", dangling), ==, 0);
  g_assert_true (rk_session_remove_file (f->session, name, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (dangling, G_FILE_TEST_IS_SYMLINK));
  g_assert_cmpuint (rk_session_get_files (f->session)->len, ==, 0);
  g_assert_true (g_file_test (victim, G_FILE_TEST_IS_REGULAR));
}

static void
test_artifacts_export (Fixture       *f,
                       gconstpointer  data)
{
  const char *ws = rk_workspace_get_path (rk_session_get_workspace (f->session));
  g_autofree char *fig_dir = g_build_filename (ws, ".reckon", "figures", NULL);
  g_autofree char *fig = g_build_filename (fig_dir, "f1.png", NULL);
  g_autofree char *csv = g_build_filename (ws, "out.csv", NULL);
  g_autofree char *dest = g_build_filename (f->root, "saved", NULL);
  g_autofree char *saved_csv = g_build_filename (dest, "out.csv", NULL);
  g_autofree char *saved_fig = g_build_filename (dest, "f1.png", NULL);
  g_autoptr(GStrvBuilder) paths = g_strv_builder_new ();
  g_auto(GStrv) path_list = NULL;
  g_auto(GStrv) skipped = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *artifacts;

  g_assert_cmpint (g_mkdir_with_parents (fig_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (fig, "PNG", -1, NULL));
  g_assert_true (g_file_set_contents (csv, "v\n1\n", -1, NULL));
  rk_session_add_artifact (f->session, RK_ARTIFACT_FIGURE, ".reckon/figures/f1.png", "c1", NULL);
  rk_session_add_artifact (f->session, RK_ARTIFACT_FILE, "out.csv", "c2", NULL);
  rk_session_add_artifact (f->session, RK_ARTIFACT_FILE, "out.csv", "c3", NULL);

  artifacts = rk_session_get_artifacts (f->session);
  g_assert_cmpuint (artifacts->len, ==, 2);
  g_assert_cmpstr (((RkArtifact *) g_ptr_array_index (artifacts, 1))->cell_id, ==, "c3");

  /* The artifacts' paths are what an export of them reads. */
  for (guint i = 0; i < artifacts->len; i++)
    g_strv_builder_add (paths, ((RkArtifact *) g_ptr_array_index (artifacts, i))->path);
  path_list = g_strv_builder_end (paths);
  g_assert_true (rk_export_all (rk_session_get_workspace (f->session), (const char * const *) path_list,
                                RK_EXPORT_FOLDER, dest, NULL, &skipped, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (skipped), ==, 0);
  g_assert_true (g_file_test (saved_csv, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (saved_fig, G_FILE_TEST_IS_REGULAR));
}

/* The results kept beside a transcript: each artifact under its workspace
 * path; one behind a symlink out of the workspace is left out and named. */
static void
test_keep_results (Fixture       *f,
                   gconstpointer  data)
{
  const char *ws = rk_workspace_get_path (rk_session_get_workspace (f->session));
  g_autofree char *fig_dir = g_build_filename (ws, ".reckon", "figures", NULL);
  g_autofree char *fig = g_build_filename (fig_dir, "f1.png", NULL);
  g_autofree char *secret = g_build_filename (f->root, "secret.txt", NULL);
  g_autofree char *link = g_build_filename (ws, "link.txt", NULL);
  g_autofree char *dest = g_build_filename (f->root, "talk.json.results", NULL);
  g_autofree char *kept_fig = g_build_filename (dest, ".reckon", "figures", "f1.png", NULL);
  g_autofree char *kept_link = g_build_filename (dest, "link.txt", NULL);
  g_autofree char *contents = NULL;
  g_auto(GStrv) skipped = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (fig_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (fig, "PNG", -1, NULL));
  g_assert_true (g_file_set_contents (secret, "not yours", -1, NULL));
  g_assert_cmpint (symlink (secret, link), ==, 0);
  rk_session_add_artifact (f->session, RK_ARTIFACT_FIGURE, ".reckon/figures/f1.png", "c1", NULL);
  rk_session_add_artifact (f->session, RK_ARTIFACT_FILE, "link.txt", "c2", NULL);

  g_assert_true (rk_session_keep_results (f->session, dest, &skipped, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (kept_fig, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "PNG");
  g_assert_false (g_file_test (kept_link, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK));
  g_assert_cmpuint (g_strv_length (skipped), ==, 1);
  g_assert_true (g_str_has_prefix (skipped[0], "link.txt: "));
}

/* -- restart with replay (real sandbox and kernel) ----------------------- */

typedef struct
{
  gboolean       done;
  RkKernelEvent *event;
  GError        *error;
} Wait;

static void
execute_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Wait *w = user_data;

  w->event = rk_kernel_execute_finish (RK_KERNEL (source), result, &w->error);
  w->done = TRUE;
}

static void
restart_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Wait *w = user_data;

  rk_session_restart_finish (RK_SESSION (source), result, NULL, &w->error);
  w->done = TRUE;
}

static void
wait_for (Wait *w)
{
  gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  while (!w->done && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (w->done);
}

/* The only table artifact, as text: every cell, row by row. */
static char *
table_text (RkSession *session)
{
  GPtrArray *artifacts = rk_session_get_artifacts (session);
  g_autoptr(GString) s = g_string_new (NULL);
  g_autoptr(RkTable) table = NULL;
  g_autoptr(GError) error = NULL;
  RkArtifact *found = NULL;

  for (guint i = 0; i < artifacts->len; i++)
    {
      RkArtifact *a = g_ptr_array_index (artifacts, i);

      if (a->kind == RK_ARTIFACT_TABLE)
        {
          g_assert_null (found);
          found = a;
        }
    }
  g_assert_nonnull (found);
  table = rk_table_open_beneath (rk_session_get_workspace (session), found->path, &error);
  g_assert_no_error (error);
  for (guint c = 0; c < rk_table_get_n_columns (table); c++)
    g_string_append_printf (s, "%s%s", c ? "|" : "", rk_table_get_column_name (table, c));
  g_string_append_c (s, '\n');
  for (guint r = 0; r < rk_table_get_n_rows (table); r++)
    {
      for (guint c = 0; c < rk_table_get_n_columns (table); c++)
        {
          g_autofree char *cell = rk_table_get_cell_text (table, r, c);

          g_string_append_printf (s, "%s%s", c ? "|" : "", cell);
        }
      g_string_append_c (s, '\n');
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static const char *replay_code =
  "import pandas as pd\n"
  "import reckon\n"
  "df = pd.read_csv('sales.csv')\n"
  "totals = df.groupby('region', as_index=False)['amount'].sum()\n"
  "reckon.show(totals, name='totals')\n";

static void
test_restart_replay (Fixture       *f,
                     gconstpointer  data)
{
  const char *sandbox = g_getenv ("RECKON_SANDBOX");
  g_autofree char *src = g_build_filename (f->root, "sales.csv", NULL);
  g_autofree char *name = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *copy = NULL;
  g_autoptr(GError) error = NULL;
  const char *cells[] = { replay_code, NULL };
  Wait w = { 0, };
  Wait r = { 0, };

  if (sandbox == NULL || !g_file_test (sandbox, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX), so RkKernel cannot run");
      return;
    }

  g_assert_true (g_file_set_contents (src, "region,amount\nNorth,10\nSouth,5\nNorth,2.5\nEast,1\n", -1, NULL));
  name = add_file (f->session, src, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "sales.csv");

  rk_kernel_execute_async (rk_session_get_kernel (f->session), replay_code, NULL, execute_cb, &w);
  wait_for (&w);
  g_assert_no_error (w.error);
  g_assert_cmpint (w.event->status, ==, RK_KERNEL_STATUS_OK);
  g_clear_pointer (&w.event, rk_kernel_event_unref);
  before = table_text (f->session);
  g_test_message ("before:\n%s", before);
  g_assert_nonnull (strstr (before, "North|12.5"));

  /* Idle for 20 minutes: the workspace and the kernel are gone. */
  advance (f, 20 * MINUTE);
  g_assert_cmpuint (f->expired, ==, 1);
  g_assert_false (g_file_test (rk_workspace_get_path (rk_session_get_workspace (f->session)), G_FILE_TEST_EXISTS));

  rk_session_restart_async (f->session, cells, NULL, restart_cb, &r);
  wait_for (&r);
  g_assert_no_error (r.error);
  g_assert_cmpint (rk_session_get_state (f->session), ==, RK_SESSION_ACTIVE);
  copy = g_build_filename (rk_workspace_get_path (rk_session_get_workspace (f->session)), "sales.csv", NULL);
  g_assert_true (g_file_test (copy, G_FILE_TEST_IS_REGULAR));
  after = table_text (f->session);
  g_assert_cmpstr (after, ==, before);

  /* The restarted session expires like a new one. */
  advance (f, 20 * MINUTE);
  g_assert_cmpuint (f->expired, ==, 2);
}

static void
last_error_cb (RkKernel      *kernel,
               RkKernelEvent *ev,
               char         **limit)
{
  g_free (*limit);
  *limit = g_strdup_printf ("%s %s", ev->ename, ev->limit != RK_SANDBOX_LIMIT_NONE ? rk_sandbox_limit_to_name (ev->limit) : "(none)");
}

/* A capped workspace (the sandbox's tmpfs, the disk and file limits held
 * by the kernel): what a cell writes is on the host when the cell's events
 * arrive, a file added while a cell runs reaches that cell and stays, what
 * a cell removes goes, and neither O_TMPFILE nor an unlinked open file
 * gets past the disk limit (issue 10, finding 3, in a session). */
static void
test_capped_workspace (Fixture       *f,
                       gconstpointer  data)
{
  const char *sandbox = g_getenv ("RECKON_SANDBOX");
  const char *ws = rk_workspace_get_path (rk_session_get_workspace (f->session));
  g_autofree char *src = g_build_filename (f->root, "late.csv", NULL);
  g_autofree char *made = g_build_filename (ws, "made.txt", NULL);
  g_autofree char *late = g_build_filename (ws, "late.csv", NULL);
  g_autofree char *staged = g_build_filename (ws, ".reckon-incoming", "late.csv", NULL);
  g_autofree char *text = NULL;
  g_autofree char *name = NULL;
  g_autofree char *last_error = NULL;
  g_autoptr(GError) error = NULL;
  RkKernelLimits limits = { 0 };
  RkKernel *kernel;
  Wait w = { 0, };

  if (sandbox == NULL || !g_file_test (sandbox, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX), so RkKernel cannot run");
      return;
    }
  if (!rk_sandbox_launcher_has_capped_workspace ())
    {
      g_test_skip ("this sandbox backend (inside a Flatpak) has no capped workspace: the walker holds the limits");
      return;
    }
  limits.disk_bytes = 16 * 1024 * 1024;
  rk_session_set_kernel_limits (f->session, &limits);
  kernel = rk_session_get_kernel (f->session);
  g_signal_connect (kernel, "event::error", G_CALLBACK (last_error_cb), &last_error);

  /* A cell's file and table are on the host by the time they are reported. */
  rk_kernel_execute_async (kernel,
                           "import pandas as pd\n"
                           "open('made.txt', 'w').write('x' * 1000)\n"
                           "pd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})\n", NULL, execute_cb, &w);
  wait_for (&w);
  g_assert_no_error (w.error);
  g_assert_cmpint (w.event->status, ==, RK_KERNEL_STATUS_OK);
  g_clear_pointer (&w.event, rk_kernel_event_unref);
  g_assert_true (g_file_test (made, G_FILE_TEST_IS_REGULAR));
  text = table_text (f->session);
  g_assert_cmpstr (text, ==, "a|b\n1|x\n2|y\n");

  /* Added while a cell runs: the cell sees it; it stays on the host. */
  g_assert_true (g_file_set_contents (src, "v\n42\n", -1, NULL));
  memset (&w, 0, sizeof w);
  rk_kernel_execute_async (kernel,
                           "import os, time\n"
                           "for _ in range(400):\n"
                           "    if os.path.exists('late.csv'):\n"
                           "        break\n"
                           "    time.sleep(0.05)\n"
                           "print(open('late.csv').read().split()[1])\n", NULL, execute_cb, &w);
  name = add_file (f->session, src, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "late.csv");
  wait_for (&w);
  g_assert_no_error (w.error);
  g_assert_cmpint (w.event->status, ==, RK_KERNEL_STATUS_OK);
  g_clear_pointer (&w.event, rk_kernel_event_unref);
  g_assert_true (g_file_test (late, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (staged, G_FILE_TEST_EXISTS));

  /* Removed by a cell: gone from the host too, the added file kept. */
  memset (&w, 0, sizeof w);
  rk_kernel_execute_async (kernel, "import os\nos.remove('made.txt')\n", NULL, execute_cb, &w);
  wait_for (&w);
  g_assert_no_error (w.error);
  g_clear_pointer (&w.event, rk_kernel_event_unref);
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (late, G_FILE_TEST_IS_REGULAR));

  /* Bytes no walker sees (O_TMPFILE, an unlinked open file) still count:
   * 32 MiB of them fail at the 16 MiB cap, and the session goes on. */
  memset (&w, 0, sizeof w);
  rk_kernel_execute_async (kernel,
                           "import os\n"
                           "held = [os.open('.', os.O_TMPFILE | os.O_WRONLY), open('gone.bin', 'wb')]\n"
                           "os.remove('gone.bin')\n"
                           "written = 0\n"
                           "try:\n"
                           "    for i in range(32):\n"
                           "        os.write(held[0], b'x' * (512 * 1024))\n"
                           "        held[1].write(b'y' * (512 * 1024)); held[1].flush()\n"
                           "        written += 1 << 20\n"
                           "finally:\n"
                           "    print('written', written)\n", NULL, execute_cb, &w);
  wait_for (&w);
  g_assert_no_error (w.error);
  g_assert_cmpint (w.event->status, ==, RK_KERNEL_STATUS_ERROR);
  g_clear_pointer (&w.event, rk_kernel_event_unref);
  g_assert_cmpstr (last_error, ==, "OSError disk");
  memset (&w, 0, sizeof w);
  rk_kernel_execute_async (kernel, "del held\nprint(open('late.csv').read().split()[1])\n", NULL, execute_cb, &w);
  wait_for (&w);
  g_assert_no_error (w.error);
  g_assert_cmpint (w.event->status, ==, RK_KERNEL_STATUS_OK);
  g_clear_pointer (&w.event, rk_kernel_event_unref);
  g_signal_handlers_disconnect_by_data (kernel, &last_error);
}

static void
test_restart_missing_original (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *src = g_build_filename (f->root, "gone.csv", NULL);
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;
  Wait r = { 0, };

  g_assert_true (g_file_set_contents (src, "a\n1\n", -1, NULL));
  name = add_file (f->session, src, &error);
  g_assert_no_error (error);
  rk_session_expire (f->session);
  g_assert_cmpint (g_unlink (src), ==, 0);

  rk_session_restart_async (f->session, NULL, NULL, restart_cb, &r);
  wait_for (&r);
  g_assert_error (r.error, RK_SESSION_ERROR, RK_SESSION_ERROR_REIMPORT);
  g_test_message ("%s", r.error->message);
  g_clear_error (&r.error);
  /* The fresh workspace exists; the session can go on without the file. */
  g_assert_cmpint (rk_session_get_state (f->session), ==, RK_SESSION_ACTIVE);
}

static void
test_clean_stale (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *old = g_build_filename (f->sessions, "old-session", NULL);
  g_autofree char *old_file = g_build_filename (old, "data.csv", NULL);
  g_autofree char *outside = g_build_filename (f->root, "outside", NULL);
  g_autofree char *outside_file = g_build_filename (outside, "keep.txt", NULL);
  g_autofree char *link = g_build_filename (f->sessions, "link-session", NULL);
  struct utimbuf past = { 0, 0 };
  guint n;

  g_assert_cmpint (g_mkdir (old, 0700), ==, 0);
  g_assert_true (g_file_set_contents (old_file, "x", -1, NULL));
  g_assert_cmpint (g_mkdir (outside, 0700), ==, 0);
  g_assert_true (g_file_set_contents (outside_file, "keep", -1, NULL));
  g_assert_cmpint (symlink (outside, link), ==, 0);
  past.actime = past.modtime = time (NULL) - 3 * 24 * 3600;
  g_assert_cmpint (utime (old, &past), ==, 0);
  {
    struct timeval tv[2] = { { past.actime, 0 }, { past.modtime, 0 } };

    g_assert_cmpint (lutimes (link, tv), ==, 0);
  }

  n = rk_session_clean_stale (f->sessions, 24 * 3600);
  g_assert_cmpuint (n, ==, 2);
  g_assert_false (g_file_test (old, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (link, G_FILE_TEST_EXISTS));
  /* The link's target was not touched, and the live session stays. */
  g_assert_true (g_file_test (outside_file, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (rk_workspace_get_path (rk_session_get_workspace (f->session)), G_FILE_TEST_IS_DIR));
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *cache = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Keep the real user cache untouched. */
  cache = g_dir_make_tmp ("reckon-test-cache-XXXXXX", NULL);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/rk/session/workspace", test_workspace);
  ADD ("/rk/session/expiry", test_expiry);
  ADD ("/rk/session/custom-timeout", test_custom_timeout);
  ADD ("/rk/session/files", test_files);
  ADD ("/rk/session/remove-file", test_remove_file);
  ADD ("/rk/session/artifacts-export", test_artifacts_export);
  ADD ("/rk/session/keep-results", test_keep_results);
  ADD ("/rk/session/restart-replay", test_restart_replay);
  ADD ("/rk/session/restart-missing-original", test_restart_missing_original);
  ADD ("/rk/session/capped-workspace", test_capped_workspace);
  ADD ("/rk/session/clean-stale", test_clean_stale);
#undef ADD

  status = g_test_run ();
  rk_workspace_delete_folder (cache, NULL);
  return status;
}
