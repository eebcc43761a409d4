/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-observation.c — the summary of a run sent back to the model stays
 * within its budget, keeps the head and tail of output, and is valid UTF-8
 * whatever the cell printed. */
#define G_LOG_DOMAIN "test-observation"
#include "config.h"

#include <string.h>

#include "rk-observation.h"

static RkKernelEvent *
stream_event (const char *text,
              gboolean    err)
{
  RkKernelEvent *e = rk_kernel_event_new (RK_KERNEL_EVENT_STREAM);

  e->id = g_strdup ("c1");
  e->stream = err ? RK_KERNEL_STREAM_STDERR : RK_KERNEL_STREAM_STDOUT;
  e->text = g_strdup (text);
  return e;
}

static void
test_cut_middle (void)
{
  g_autofree char *small = rk_observation_cut_middle ("hello", 100);
  g_autoptr(GString) big = g_string_new (NULL);
  g_autofree char *cut = NULL;

  g_assert_cmpstr (small, ==, "hello");

  /* Multi-byte characters everywhere: the cuts must fall between them. */
  for (guint i = 0; i < 5000; i++)
    g_string_append (big, "é€😀");
  cut = rk_observation_cut_middle (big->str, 1000);
  g_assert_true (g_utf8_validate (cut, -1, NULL));
  g_assert_cmpuint (strlen (cut), <=, 1100);
  g_assert_nonnull (strstr (cut, "bytes cut"));
  g_assert_true (g_str_has_prefix (cut, "é€😀"));
  g_assert_true (g_str_has_suffix (cut, "é€😀"));
}

static void
test_flood_is_bounded (void)
{
  g_autoptr(RkObservation) obs = rk_observation_new (NULL);
  g_autofree char *chunk = g_strnfill (64 * 1024, 'A');
  g_autofree char *text = NULL;
  RkKernelEvent *e;

  e = stream_event ("FIRST LINE\n", FALSE);
  rk_observation_add (obs, e);
  rk_kernel_event_unref (e);
  /* 64 MiB of output: kept memory and the text both stay small. */
  for (guint i = 0; i < 1024; i++)
    {
      e = stream_event (chunk, FALSE);
      rk_observation_add (obs, e);
      rk_kernel_event_unref (e);
    }
  e = stream_event ("\nLAST LINE\n", FALSE);
  rk_observation_add (obs, e);
  rk_kernel_event_unref (e);

  text = rk_observation_format (obs, 3000);
  g_assert_cmpuint (strlen (text), <=, 3100);
  g_assert_nonnull (strstr (text, "FIRST LINE"));
  g_assert_nonnull (strstr (text, "LAST LINE"));
  g_assert_nonnull (strstr (text, "bytes cut"));
  g_assert_false (rk_observation_failed (obs));
}

static void
test_error_and_death (void)
{
  g_autoptr(RkObservation) obs = rk_observation_new (NULL);
  g_autoptr(RkKernelEvent) err = rk_kernel_event_new (RK_KERNEL_EVENT_ERROR);
  g_autoptr(RkKernelEvent) done = rk_kernel_event_new (RK_KERNEL_EVENT_DONE);
  g_autoptr(GString) tb = g_string_new ("Traceback (most recent call last):\n");
  g_autofree char *text = NULL;

  for (guint i = 0; i < 50; i++)
    g_string_append_printf (tb, "  File \"<cell>\", line %u, in f%u\n", i, i);
  g_string_append (tb, "ZeroDivisionError: division by zero\n");
  err->id = g_strdup ("c1");
  err->ename = g_strdup ("ZeroDivisionError");
  err->evalue = g_strdup ("division by zero");
  err->traceback = g_string_free (g_steal_pointer (&tb), FALSE);
  rk_observation_add (obs, err);
  done->id = g_strdup ("c1");
  done->status = RK_KERNEL_STATUS_ERROR;
  rk_observation_add (obs, done);

  text = rk_observation_format (obs, RK_OBSERVATION_DEFAULT_BUDGET);
  g_assert_true (rk_observation_failed (obs));
  g_assert_cmpstr (rk_observation_get_error (obs), ==, "division by zero");
  g_assert_nonnull (strstr (text, "Error: ZeroDivisionError: division by zero"));
  /* Only the last frames. */
  g_assert_nonnull (strstr (text, "in f49"));
  g_assert_null (strstr (text, "in f3\n"));

  {
    g_autoptr(RkObservation) died = rk_observation_new (NULL);
    g_autoptr(RkKernelEvent) d = rk_kernel_event_new (RK_KERNEL_EVENT_DONE);
    g_autofree char *t = NULL;

    d->id = g_strdup ("c2");
    d->status = RK_KERNEL_STATUS_DIED;
    d->message = g_strdup ("The code used more than the 2 GiB memory limit.");
    d->limit = RK_SANDBOX_LIMIT_MEMORY;
    rk_observation_add (died, d);
    t = rk_observation_format (died, RK_OBSERVATION_DEFAULT_BUDGET);
    g_assert_true (rk_observation_failed (died));
    g_assert_nonnull (strstr (t, "memory limit"));
    g_assert_nonnull (strstr (t, "files in /workspace remain"));
  }
}

static void
test_artifacts (void)
{
  g_autoptr(RkObservation) obs = rk_observation_new (NULL);
  g_autofree char *text = NULL;

  for (guint i = 0; i < 80; i++)
    {
      g_autoptr(RkKernelEvent) fig = rk_kernel_event_new (RK_KERNEL_EVENT_FIGURE);
      fig->id = g_strdup ("c1");
      fig->path = g_strdup_printf (".reckon/figures/f%u.png", i);
      fig->width = 800;
      fig->height = 600;
      rk_observation_add (obs, fig);
    }
  text = rk_observation_format (obs, RK_OBSERVATION_DEFAULT_BUDGET);
  g_assert_nonnull (strstr (text, "Figure 1 created (800×600)"));
  g_assert_nonnull (strstr (text, "(and 30 more outputs)"));
  g_assert_cmpuint (strlen (text), <=, RK_OBSERVATION_DEFAULT_BUDGET + 100);
}

static void
test_empty (void)
{
  g_autoptr(RkObservation) obs = rk_observation_new (NULL);
  g_autofree char *text = rk_observation_format (obs, 500);

  g_assert_cmpstr (text, ==, "The code ran without output.\n");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/observation/cut-middle", test_cut_middle);
  g_test_add_func ("/rk/observation/flood-is-bounded", test_flood_is_bounded);
  g_test_add_func ("/rk/observation/error-and-death", test_error_and_death);
  g_test_add_func ("/rk/observation/artifacts", test_artifacts);
  g_test_add_func ("/rk/observation/empty", test_empty);
  return g_test_run ();
}
