/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-first-card.c — a big CSV's two-step card: seconds to the sample's
 * profile (the first card, rows estimated) and to the exact row count,
 * cold, against `wc -l` on the same file, cold. FILE is hard-linked into a
 * workspace beside it; nothing is copied. Target: the first card < 10 s. */
#include "config.h"

#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-profile.h"
#include "rk-workspace.h"

#define TARGET_S 10.0

typedef struct
{
  GMainLoop *loop;
  gint64     start;
  double     partial_s, final_s;
  guint64    estimated, counted;
  double     last_fraction;
} Bench;

static void
uncache (const char *path)
{
  int fd = open (path, O_RDONLY);

  if (fd < 0)
    return;
  posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
  close (fd);
}

static void
progress_cb (const char *name,
             guint64     done,
             guint64     total,
             gpointer    user_data)
{
  ((Bench *) user_data)->last_fraction = (double) done / (double) total;
}

static void
partial_cb (const RkFileProfile *profile,
            gpointer             user_data)
{
  Bench *b = user_data;

  b->partial_s = (g_get_monotonic_time () - b->start) / 1e6;
  b->estimated = ((RkTableProfile *) profile->tables->pdata[0])->rows;
  printf ("first card (estimated %" G_GUINT64_FORMAT " rows) after %.2f s, %.0f %% counted\n",
          b->estimated, b->partial_s, b->last_fraction * 100);
  fflush (stdout);
}

static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Bench *b = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) profiles = rk_profile_files_finish (result, &error);
  const RkFileProfile *p;

  b->final_s = (g_get_monotonic_time () - b->start) / 1e6;
  g_assert_no_error (error);
  p = profiles->pdata[0];
  if (p->error != NULL)
    g_error ("%s", p->error);
  b->counted = ((RkTableProfile *) p->tables->pdata[0])->rows;
  g_main_loop_quit (b->loop);
}

int
main (int    argc,
      char **argv)
{
  const char *path = argc > 1 ? argv[1] : g_getenv ("RK_FIRST_CARD_FILE");
  g_autofree char *dir = NULL;
  g_autofree char *root = NULL;
  g_autofree char *ws = NULL;
  g_autofree char *in_ws = NULL;
  g_autoptr(RkWorkspace) handle = NULL;
  g_autofree char *quoted = NULL;
  g_autofree char *wc_out = NULL;
  const char *names[] = { "big.csv", NULL };
  Bench b = { 0, };
  gint64 t0;
  double wc_s;

  if (path == NULL)
    {
      printf ("1..0 # SKIP name a big CSV (argument or RK_FIRST_CARD_FILE)\n");
      return 0;
    }
  dir = g_path_get_dirname (path);
  root = g_build_filename (dir, ".first-card-XXXXXX", NULL);
  g_assert_nonnull (g_mkdtemp (root));
  g_assert_cmpint (g_chmod (root, 0755), ==, 0);
  ws = g_build_filename (root, "ws", NULL);
  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  in_ws = g_build_filename (ws, "big.csv", NULL);
  g_assert_cmpint (link (path, in_ws), ==, 0);

  uncache (path);
  b.loop = g_main_loop_new (NULL, FALSE);
  b.start = g_get_monotonic_time ();
  handle = rk_workspace_open (ws, NULL);
  rk_profile_files_async (handle, names, NULL, progress_cb, partial_cb, &b, NULL, done_cb, &b);
  g_main_loop_run (b.loop);
  printf ("exact count %" G_GUINT64_FORMAT " rows after %.2f s (estimate off by %+.3f %%)\n",
          b.counted, b.final_s, 100.0 * ((double) b.estimated - (double) b.counted) / (double) b.counted);

  uncache (path);
  quoted = g_shell_quote (path);
  t0 = g_get_monotonic_time ();
  {
    g_autofree char *cmd = g_strdup_printf ("wc -l %s", quoted);

    g_assert_true (g_spawn_command_line_sync (cmd, &wc_out, NULL, NULL, NULL));
  }
  wc_s = (g_get_monotonic_time () - t0) / 1e6;
  g_strstrip (wc_out);
  printf ("wc -l: %s in %.2f s; exact count / wc -l = %.2fx; first card %s the %.0f s target\n",
          wc_out, wc_s, b.final_s / wc_s, b.partial_s > 0 && b.partial_s < TARGET_S ? "within" : "NOT within",
          TARGET_S);
  rk_workspace_delete_folder (root, NULL);
  g_main_loop_unref (b.loop);
  return b.partial_s > 0 && b.partial_s < TARGET_S ? 0 : 1;
}
