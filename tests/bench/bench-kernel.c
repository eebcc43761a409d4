/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-kernel.c — RkKernel's warm round trip and cold start, each against a
 * peer measured in the same run: a bare pipe round trip to a python3 echo
 * loop (no sandbox), and a plain `python3 -c 'import pandas, matplotlib.pyplot'`. */
#include "config.h"

#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

#include "rk-kernel.h"
#include "rk-util.h"
#include "rk-workspace.h"

#define N_CELLS   200
#define N_STARTS  3

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *v,
        guint   n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct
{
  gboolean       finished;
  GError        *error;
  RkKernelEvent *done;
} Wait;

static void
start_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  Wait *w = user_data;

  rk_kernel_start_finish (RK_KERNEL (object), result, &w->error);
  w->finished = TRUE;
}

static void
execute_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Wait *w = user_data;

  w->done = rk_kernel_execute_finish (RK_KERNEL (object), result, &w->error);
  w->finished = TRUE;
}

static void
spin (Wait *w)
{
  while (!w->finished)
    g_main_context_iteration (NULL, TRUE);
}

/* Seconds from rk_kernel_start_async() to "ready", or < 0 on failure. */
static double
time_start (RkKernel **out_kernel,
            RkWorkspace **out_workspace)
{
  g_autoptr(GError) error = NULL;
  RkWorkspace *ws = rk_workspace_new_temporary (NULL, &error);
  RkKernel *kernel;
  Wait w = { 0 };
  gint64 t0;

  if (ws == NULL)
    return -1;
  kernel = rk_kernel_new (ws, NULL);
  t0 = g_get_monotonic_time ();
  rk_kernel_start_async (kernel, NULL, start_cb, &w);
  spin (&w);
  if (w.error != NULL)
    {
      fprintf (stderr, "kernel did not start: %s\n", w.error->message);
      g_error_free (w.error);
      g_object_unref (kernel);
      rk_workspace_delete (ws, NULL);
      g_object_unref (ws);
      return -1;
    }
  *out_kernel = kernel;
  *out_workspace = ws;
  return (g_get_monotonic_time () - t0) / 1e6;
}

static double
time_plain_import (void)
{
  const char *argv[] = { rk_python_path (), "-c", "import pandas, matplotlib.pyplot", NULL };
  gint64 t0 = g_get_monotonic_time ();
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL))
    return -1;
  return (g_get_monotonic_time () - t0) / 1e6;
}

/* Median round trip of one JSON line through a python3 echo loop over plain
 * pipes, in milliseconds. */
static double
time_plain_pipe (void)
{
  static const char *argv[] = { NULL, "-u", "-c",
    "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n", NULL };
  static const char line[] = "{\"type\":\"execute\",\"id\":\"c1\",\"code\":\"1\"}\n";
  g_autoptr(GSubprocess) proc = NULL;
  GOutputStream *in;
  GInputStream *out;
  double times[N_CELLS];
  char buf[256];

  argv[0] = rk_python_path ();
  proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, NULL);
  if (proc == NULL)
    return -1;
  in = g_subprocess_get_stdin_pipe (proc);
  out = g_subprocess_get_stdout_pipe (proc);
  for (guint i = 0; i < N_CELLS; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      gsize got = 0;

      if (!g_output_stream_write_all (in, line, sizeof line - 1, NULL, NULL, NULL))
        return -1;
      while (got < sizeof line - 1)
        {
          gssize n = g_input_stream_read (out, buf + got, sizeof buf - got, NULL, NULL);
          if (n <= 0)
            return -1;
          got += (gsize) n;
        }
      times[i] = (g_get_monotonic_time () - t0) / 1e3;
    }
  g_output_stream_close (in, NULL, NULL);
  g_subprocess_wait (proc, NULL, NULL);
  return median (times, N_CELLS);
}

static const char *
met (gboolean ok)
{
  return ok ? "met" : "NOT met";
}

int
main (int argc, char **argv)
{
  double starts[N_STARTS], imports[N_STARTS], trips[N_CELLS];
  double start_med, import_med, trip_med, pipe_med;
  RkKernel *kernel = NULL;
  RkWorkspace *ws = NULL;

  /* Cold start: N_STARTS sandboxed kernels against N_STARTS plain imports,
   * interleaved so both see the same machine load. */
  for (guint i = 0; i < N_STARTS; i++)
    {
      RkKernel *k = NULL;
      RkWorkspace *w = NULL;

      imports[i] = time_plain_import ();
      starts[i] = time_start (&k, &w);
      if (starts[i] < 0 || imports[i] < 0)
        {
          printf ("SKIP: the sandboxed kernel cannot start here\n");
          return 77;
        }
      if (i + 1 < N_STARTS)
        {
          rk_kernel_shutdown (k);
          g_object_unref (k);
          rk_workspace_delete (w, NULL);
          g_object_unref (w);
        }
      else
        {
          kernel = k;
          ws = w;
        }
    }
  start_med = median (starts, N_STARTS);
  import_med = median (imports, N_STARTS);

  /* Warm round trip of the trivial cell `1`. */
  for (guint i = 0; i < N_CELLS; i++)
    {
      Wait w = { 0 };
      gint64 t0 = g_get_monotonic_time ();

      rk_kernel_execute_async (kernel, "1", NULL, execute_cb, &w);
      spin (&w);
      trips[i] = (g_get_monotonic_time () - t0) / 1e3;
      if (w.error != NULL || w.done->status != RK_KERNEL_STATUS_OK)
        {
          printf ("FAIL: cell %u did not run\n", i);
          return 1;
        }
      rk_kernel_event_unref (w.done);
    }
  trip_med = median (trips, N_CELLS);
  pipe_med = time_plain_pipe ();

  rk_kernel_shutdown (kernel);
  g_object_unref (kernel);
  rk_workspace_delete (ws, NULL);
  g_object_unref (ws);

  printf ("kernel warm round trip (cell `1`, median of %d): %.3f ms\n", N_CELLS, trip_med);
  printf ("  peer: plain pipe round trip to a python3 echo loop, no sandbox: %.3f ms\n", pipe_med);
  printf ("  ratio: %.1fx the bare pipe; target: under 1 ms at the median: %s\n",
          trip_med / pipe_med, met (trip_med < 1.0));
  printf ("kernel start to ready (sandbox + pandas + matplotlib, median of %d): %.3f s\n", N_STARTS, start_med);
  printf ("  peer: python3 -c 'import pandas, matplotlib.pyplot', no sandbox: %.3f s\n", import_med);
  printf ("  ratio: %.2fx; target: at most 1.5x the plain import: %s\n",
          start_med / import_med, met (start_med <= 1.5 * import_med));
  printf ("How Reckon hides the warm-up: a session starts its kernel as soon as it opens\n"
          "(and again right after a restart or a kernel death), while the user reads,\n"
          "drops files or types the question; by the time the model has written the first\n"
          "cell and the user approved it, the kernel is warm and a cell costs only the\n"
          "round trip above.\n");
  return 0;
}
