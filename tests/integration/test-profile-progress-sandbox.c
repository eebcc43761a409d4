/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-profile-progress-sandbox.c — a large generated CSV profiled in the real
 * reckon-sandbox: progress arrives, growing, before the profile; Cancel
 * stops it; RkConversation passes it on as its file's "progress". */
#define G_LOG_DOMAIN "test-profile-progress-sandbox"
#include "config.h"

#include <math.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "rk-conversation-store.h"
#include "rk-profile.h"
#include "rk-test-kernel.h"
#include "rk-workspace.h"

/* Big enough that reading it takes a while on a slow disk. Several reports
 * come however fast the disk is: the line count reports each eighth of the
 * file it has read (reckon/progress.py), besides the timed looks. */
#define BIG_BYTES (256 * 1024 * 1024)
#define ROW       "2024-01-01,North,12345.678,some text in a column,42\n"

static char *root;
static char *workspace;
static RkWorkspace *handle;
static char *big_path;
static guint64 big_rows;
static guint64 big_size;

typedef struct
{
  GMainLoop    *loop;
  GPtrArray    *profiles;
  GError       *error;
  GArray       *fractions;     /* double, in arrival order */
  gboolean      finished;
  gboolean      late;          /* progress after the result */
  GCancellable *cancel_on_progress;
} Run;

/* Out of the page cache, as a file just copied from a slow disk or a
 * network share often is: the profiler reads it from the disk. */
static void
uncache (const char *path)
{
  int fd = open (path, O_RDONLY);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fdatasync (fd), ==, 0);
  g_assert_cmpint (posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED), ==, 0);
  close (fd);
}

static gboolean
skip_without_sandbox (void)
{
  g_autofree char *reason = NULL;

  if (!rk_test_kernel_sandbox_usable (&reason))
    {
      g_test_skip (reason);
      return TRUE;
    }
  return FALSE;
}

static void
progress_cb (const char *name,
             guint64     done,
             guint64     total,
             gpointer    user_data)
{
  Run *run = user_data;
  double f = (double) done / (double) total;

  g_assert_cmpstr (name, ==, "big.csv");
  g_assert_cmpuint (total, ==, big_size);
  g_assert_cmpuint (done, <=, total);
  if (run->finished)
    run->late = TRUE;
  g_array_append_val (run->fractions, f);
  g_test_message ("progress %.3f", f);
  if (run->cancel_on_progress != NULL)
    g_cancellable_cancel (run->cancel_on_progress);
}

static void
profiled_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;

  run->profiles = rk_profile_files_finish (result, &run->error);
  run->finished = TRUE;
  g_main_loop_quit (run->loop);
}

static gboolean
linger_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

/* Runs the main loop a little longer: any late progress would come now. */
static void
linger (GMainLoop *loop)
{
  g_timeout_add (300, linger_cb, loop);
  g_main_loop_run (loop);
}

static void
test_big_csv (void)
{
  const char *names[] = { "big.csv", NULL };
  Run run = { 0, };
  const RkFileProfile *p;
  const RkTableProfile *t;

  if (skip_without_sandbox ())
    return;
  run.loop = g_main_loop_new (NULL, FALSE);
  run.fractions = g_array_new (FALSE, FALSE, sizeof (double));
  uncache (big_path);
  rk_profile_files_async (handle, names, NULL, progress_cb, NULL, &run, NULL, profiled_cb, &run);
  g_main_loop_run (run.loop);
  linger (run.loop);

  g_assert_no_error (run.error);
  g_assert_nonnull (run.profiles);
  g_assert_cmpuint (run.profiles->len, ==, 1);
  p = g_ptr_array_index (run.profiles, 0);
  g_assert_null (p->error);
  g_assert_cmpuint (p->tables->len, ==, 1);
  t = g_ptr_array_index (p->tables, 0);
  g_assert_cmpuint (t->rows, ==, big_rows);
  g_assert_cmpuint (t->n_columns, ==, 5);

  /* Several reports, each further than the one before, all before the
   * profile arrived, and most of the file covered by the last. */
  g_test_message ("%u progress reports", run.fractions->len);
  g_assert_cmpuint (run.fractions->len, >=, 2);
  for (guint i = 0; i < run.fractions->len; i++)
    {
      double f = g_array_index (run.fractions, double, i);

      g_assert_cmpfloat (f, >, 0.0);
      g_assert_cmpfloat (f, <=, 1.0);
      if (i > 0)
        g_assert_cmpfloat (f, >, g_array_index (run.fractions, double, i - 1));
    }
  g_assert_cmpfloat (g_array_index (run.fractions, double, run.fractions->len - 1), >=, 0.5);
  g_assert_false (run.late);

  g_ptr_array_unref (run.profiles);
  g_array_unref (run.fractions);
  g_main_loop_unref (run.loop);
}

typedef struct
{
  Run            run;
  RkFileProfile *partial;
  guint          n_partials;
  gboolean       partial_late;
  gboolean       partial_before_progress_end;
} PartialRun;

static void
partial_cb (const RkFileProfile *profile,
            gpointer             user_data)
{
  PartialRun *pr = user_data;

  g_assert_cmpstr (profile->name, ==, "big.csv");
  if (pr->run.finished)
    pr->partial_late = TRUE;
  pr->n_partials++;
  g_clear_pointer (&pr->partial, rk_file_profile_free);
  pr->partial = rk_file_profile_copy (profile);
  g_test_message ("partial after %u progress reports", pr->run.fractions->len);
}

static void
partial_progress_cb (const char *name,
                     guint64     done,
                     guint64     total,
                     gpointer    user_data)
{
  progress_cb (name, done, total, &((PartialRun *) user_data)->run);
}

static void
partial_profiled_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  profiled_cb (source, result, &((PartialRun *) user_data)->run);
}

/* With a partial callback: the sample's profile comes once, before the
 * result, its rows estimated (within 2 % here: every row is as long); the
 * result has the exact count. The memory limit given is the profiler's. */
static void
test_partial (void)
{
  const char *names[] = { "big.csv", NULL };
  RkProfileOptions options = RK_PROFILE_OPTIONS_INIT;
  PartialRun pr = { { 0, }, };
  const RkFileProfile *p;
  const RkTableProfile *t;
  const RkTableProfile *est;
  guint64 limit = G_GUINT64_CONSTANT (3) * 1024 * 1024 * 1024;

  if (skip_without_sandbox ())
    return;
  options.memory_bytes = limit;
  pr.run.loop = g_main_loop_new (NULL, FALSE);
  pr.run.fractions = g_array_new (FALSE, FALSE, sizeof (double));
  uncache (big_path);
  rk_profile_files_async (handle, names, &options, partial_progress_cb, partial_cb, &pr, NULL,
                          partial_profiled_cb, &pr);
  g_main_loop_run (pr.run.loop);
  linger (pr.run.loop);

  g_assert_no_error (pr.run.error);
  g_assert_cmpuint (pr.run.profiles->len, ==, 1);
  p = g_ptr_array_index (pr.run.profiles, 0);
  g_assert_null (p->error);
  t = g_ptr_array_index (p->tables, 0);
  g_assert_cmpuint (t->rows, ==, big_rows);
  g_assert_false (t->rows_approximate);
  g_assert_cmpuint (p->memory_limit, ==, limit);

  g_assert_cmpuint (pr.n_partials, ==, 1);
  g_assert_false (pr.partial_late);
  g_assert_nonnull (pr.partial);
  est = g_ptr_array_index (pr.partial->tables, 0);
  g_test_message ("estimated %" G_GUINT64_FORMAT " rows, counted %" G_GUINT64_FORMAT, est->rows, t->rows);
  g_assert_true (est->rows_approximate);
  g_assert_cmpuint (est->n_columns, ==, 5);
  g_assert_cmpfloat (fabs ((double) est->rows - (double) big_rows), <=, 0.02 * (double) big_rows);
  g_assert_cmpuint (pr.partial->memory_limit, ==, limit);

  g_clear_pointer (&pr.partial, rk_file_profile_free);
  g_ptr_array_unref (pr.run.profiles);
  g_array_unref (pr.run.fractions);
  g_main_loop_unref (pr.run.loop);
}

/* Cancelled at the first report: the run ends cancelled, nothing after. */
static void
test_cancel (void)
{
  const char *names[] = { "big.csv", NULL };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Run run = { 0, };
  guint n_at_cancel;

  if (skip_without_sandbox ())
    return;
  run.loop = g_main_loop_new (NULL, FALSE);
  run.fractions = g_array_new (FALSE, FALSE, sizeof (double));
  run.cancel_on_progress = cancellable;
  rk_profile_files_async (handle, names, NULL, progress_cb, NULL, &run, cancellable, profiled_cb, &run);
  g_main_loop_run (run.loop);
  n_at_cancel = run.fractions->len;
  linger (run.loop);

  g_assert_null (run.profiles);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (n_at_cancel, ==, 1);
  g_assert_cmpuint (run.fractions->len, ==, 1);
  g_clear_error (&run.error);
  g_array_unref (run.fractions);
  g_main_loop_unref (run.loop);
}

typedef struct
{
  GMainLoop *loop;
  GArray    *fractions;
  gboolean   profiled;
  gboolean   late;
  guint      n_partials;
  guint      n_estimates;    /* notify::estimate: set, then cleared */
  guint      n_resets;       /* notify::progress back to -1 */
  guint      n_profiles;
  guint64    estimated_rows;
} ConvRun;

static void
conv_partial (RkConversationFile *file,
              ConvRun            *run)
{
  RkFileProfile *estimate = rk_conversation_file_get_estimate (file);

  run->n_estimates++;
  if (estimate == NULL)
    {
      /* Cleared with the exact profile, never before. */
      g_assert_nonnull (rk_conversation_file_get_profile (file));
      return;
    }
  g_assert_cmpint (rk_conversation_file_get_state (file), ==, RK_CONVERSATION_FILE_PROFILING);
  g_assert_null (rk_conversation_file_get_profile (file));
  g_assert_true (((RkTableProfile *) estimate->tables->pdata[0])->rows_approximate);
  run->estimated_rows = ((RkTableProfile *) estimate->tables->pdata[0])->rows;
  if (run->profiled)
    run->late = TRUE;
  run->n_partials++;
}

static void
conv_progress (RkConversationFile *file,
               ConvRun            *run)
{
  double fraction = rk_conversation_file_get_progress (file);

  if (fraction < 0)
    {
      /* Back to "not known" with the profile. */
      g_assert_false (rk_conversation_file_get_busy (file));
      run->n_resets++;
      return;
    }
  g_assert_cmpfloat (fraction, <=, 1.0);
  g_assert_cmpint (rk_conversation_file_get_state (file), ==, RK_CONVERSATION_FILE_PROFILING);
  if (run->profiled)
    run->late = TRUE;
  g_array_append_val (run->fractions, fraction);
}

static void
conv_file_notify_cb (RkConversationFile *file,
                     GParamSpec         *pspec,
                     ConvRun            *run)
{
  const char *prop = g_param_spec_get_name (pspec);

  g_assert_cmpstr (rk_conversation_file_get_name (file), ==, "big.csv");
  if (g_str_equal (prop, "estimate"))
    conv_partial (file, run);
  else if (g_str_equal (prop, "progress"))
    conv_progress (file, run);
  else if (g_str_equal (prop, "profile") && rk_conversation_file_get_profile (file) != NULL)
    {
      run->n_profiles++;
      run->profiled = TRUE;
      g_main_loop_quit (run->loop);
    }
}

/* The same file added to a conversation: its RkConversationFile's
 * "progress" grows, its "estimate" comes once, then its "profile". */
static void
test_conversation (void)
{
  g_autofree char *data_dir = g_build_filename (root, "data", NULL);
  g_autofree char *sessions_dir = g_build_filename (root, "sessions", NULL);
  g_autoptr(RkConversationStore) store = NULL;
  g_autoptr(RkModelClient) client = NULL;
  g_autoptr(RkConversation) conv = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(RkConversationFile) added = NULL;
  g_autoptr(GError) error = NULL;
  ConvRun run = { 0, };
  RkFileProfile *p;

  if (skip_without_sandbox ())
    return;
  store = rk_conversation_store_new (data_dir, sessions_dir, &error);
  g_assert_no_error (error);
  client = rk_model_client_new ();
  conv = rk_conversation_store_create (store, client, &error);
  g_assert_no_error (error);
  run.loop = g_main_loop_new (NULL, FALSE);
  run.fractions = g_array_new (FALSE, FALSE, sizeof (double));
  file = g_file_new_for_path (big_path);
  uncache (big_path);
  rk_conversation_add_files (conv, &file, 1);
  g_assert_cmpuint (g_list_model_get_n_items (rk_conversation_get_files (conv)), ==, 1);
  added = g_list_model_get_item (rk_conversation_get_files (conv), 0);
  g_signal_connect (added, "notify", G_CALLBACK (conv_file_notify_cb), &run);
  g_main_loop_run (run.loop);
  linger (run.loop);

  p = rk_conversation_file_get_profile (added);
  g_assert_nonnull (p);
  g_assert_null (p->error);
  g_assert_cmpint (rk_conversation_file_get_state (added), ==, RK_CONVERSATION_FILE_READY);
  g_assert_cmpfloat (rk_conversation_file_get_progress (added), ==, -1);
  g_assert_cmpuint (run.n_profiles, ==, 1);
  g_assert_cmpuint (run.n_resets, ==, 1);
  /* The sample's profile came once, before the exact one, and is gone. */
  g_assert_cmpuint (run.n_partials, ==, 1);
  g_assert_cmpuint (run.n_estimates, ==, 2);
  g_assert_cmpfloat (fabs ((double) run.estimated_rows - (double) big_rows), <=, 0.02 * (double) big_rows);
  g_assert_null (rk_conversation_file_get_estimate (added));
  g_assert_cmpuint (((RkTableProfile *) p->tables->pdata[0])->rows, ==, big_rows);
  g_test_message ("%u progress signals", run.fractions->len);
  /* The conversation's copy of the file is in the page cache, so this
   * read is quick: one report at least. */
  g_assert_cmpuint (run.fractions->len, >=, 1);
  for (guint i = 1; i < run.fractions->len; i++)
    g_assert_cmpfloat (g_array_index (run.fractions, double, i), >, g_array_index (run.fractions, double, i - 1));
  g_assert_false (run.late);

  g_signal_handlers_disconnect_by_data (added, &run);
  rk_conversation_close (conv);
  g_array_unref (run.fractions);
  g_main_loop_unref (run.loop);
}

static void
make_big_csv (const char *path)
{
  g_autoptr(GString) chunk = g_string_new (NULL);
  FILE *f = fopen (path, "w");
  gsize written = 0;
  GStatBuf st;

  g_assert_nonnull (f);
  for (int i = 0; i < 20000; i++)
    g_string_append (chunk, ROW);
  fputs ("date,region,amount,note,count\n", f);
  while (written + strlen (ROW) <= BIG_BYTES)
    {
      gsize n = MIN (chunk->len, BIG_BYTES - written);

      /* Whole rows only. */
      n -= n % strlen (ROW);
      g_assert_cmpuint (n, >, 0);
      g_assert_cmpuint (fwrite (chunk->str, 1, n, f), ==, n);
      written += n;
      big_rows += n / strlen (ROW);
    }
  g_assert_cmpint (fclose (f), ==, 0);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  big_size = st.st_size;
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/profile/progress/big-csv", test_big_csv);
  g_test_add_func ("/rk/profile/progress/partial", test_partial);
  g_test_add_func ("/rk/profile/progress/cancel", test_cancel);
  g_test_add_func ("/rk/profile/progress/conversation", test_conversation);

  root = g_dir_make_tmp ("rk-profile-progress-XXXXXX", NULL);
  g_assert_nonnull (root);
  /* reckon-sandbox opens the workspace as an unprivileged user, which needs
   * search permission on the workspace's parents. */
  g_assert_cmpint (chmod (root, 0755), ==, 0);
  workspace = g_build_filename (root, "ws", NULL);
  g_assert_cmpint (g_mkdir_with_parents (workspace, 0700), ==, 0);
  handle = rk_workspace_open (workspace, NULL);
  big_path = g_build_filename (workspace, "big.csv", NULL);
  make_big_csv (big_path);

  status = g_test_run ();
  rk_workspace_delete_folder (root, NULL);
  g_free (big_path);
  g_clear_object (&handle);
  g_free (workspace);
  g_free (root);
  return status;
}
