/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-test-kernel.c — the kernel fixture shared by the integration tests
 * that run cells in the real sandbox (test-kernel, -table-kernel, -chart-kernel). */
#define G_LOG_DOMAIN "rk-test-kernel"
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "rk-test-kernel.h"
#include "rk-sandbox-launcher.h"
#include "rk-util.h"
#include "rk-workspace.h"

gboolean
rk_test_kernel_sandbox_usable (char **reason)
{
  /* Through rk-sandbox-launcher, as RkKernel starts it: whichever backend
   * this machine (or the flatpak harness) gives. */
  const char *sandbox = rk_sandbox_path ();
  const char *argv[] = { "/bin/true", NULL };
  g_autoptr(RkWorkspace) ws = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkSandboxChild) child = NULL;
  RkSandboxSpec spec = { 0, };
  int status;

  if (!g_file_test (sandbox, G_FILE_TEST_IS_EXECUTABLE))
    {
      *reason = g_strdup_printf ("reckon-sandbox not found at %s", sandbox);
      return FALSE;
    }
  ws = rk_workspace_new_temporary (NULL, NULL);
  spec.workspace = ws;
  spec.status_fd = -1;
  spec.flags = G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE;
  spec.argv = argv;
  child = rk_sandbox_launcher_spawn (&spec, &error);
  if (child == NULL)
    {
      *reason = g_strdup_printf ("no sandbox (%s backend): %s", rk_sandbox_launcher_get_backend_name (),
                                 error->message);
      rk_workspace_delete (ws, NULL);
      return FALSE;
    }
  {
    g_autofree char *err = NULL;
    g_subprocess_communicate_utf8 (rk_sandbox_child_get_process (child), NULL, NULL, NULL, &err, NULL);
    status = rk_sandbox_launcher_exit_status (rk_sandbox_child_get_process (child));
    if (status != 0)
      {
        *reason = g_strdup_printf ("reckon-sandbox (%s, %s backend) cannot run a program on this machine: %s",
                                   sandbox, rk_sandbox_launcher_get_backend_name (), err ? g_strstrip (err) : "");
        rk_workspace_delete (ws, NULL);
        return FALSE;
      }
  }
  rk_workspace_delete (ws, NULL);
  return TRUE;
}

void
rk_test_wait_until (gboolean *flag,
                    int       seconds)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;

  while (!*flag)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      if (!*flag)
        g_usleep (1000);
    }
}

static void
event_cb (RkKernel      *kernel,
          RkKernelEvent *ev,
          RkTestKernel  *self)
{
  g_ptr_array_add (self->events, rk_kernel_event_ref (ev));
}

void
rk_test_kernel_start_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  RkTestKernel *self = user_data;

  rk_kernel_start_finish (RK_KERNEL (object), result, &self->error);
  self->finished = TRUE;
}

void
rk_test_kernel_execute_cb (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  RkTestKernel *self = user_data;

  self->done = rk_kernel_execute_finish (RK_KERNEL (object), result, &self->error);
  self->finished = TRUE;
}

gboolean
rk_test_kernel_init (RkTestKernel         *self,
                     const RkKernelLimits *limits)
{
  g_autofree char *reason = NULL;
  g_autoptr(GError) error = NULL;
  RkKernelLimits defaults = { 0 };

  memset (self, 0, sizeof *self);
  if (!rk_test_kernel_sandbox_usable (&reason))
    {
      g_test_skip (reason);
      return FALSE;
    }
  if (limits == NULL)
    {
      defaults.memory_bytes = 1024u * 1024 * 1024;
      limits = &defaults;
    }
  self->workspace = rk_workspace_new_temporary (NULL, &error);
  g_assert_no_error (error);
  self->kernel = rk_kernel_new (self->workspace, limits);
  self->events = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_kernel_event_unref);
  g_signal_connect (self->kernel, "event", G_CALLBACK (event_cb), self);
  return TRUE;
}

void
rk_test_kernel_start (RkTestKernel *self)
{
  self->finished = FALSE;
  rk_kernel_start_async (self->kernel, NULL, rk_test_kernel_start_cb, self);
  rk_test_wait_until (&self->finished, 120);
  g_assert_no_error (self->error);
}

void
rk_test_kernel_setup (RkTestKernel  *self,
                      gconstpointer  data)
{
  if (rk_test_kernel_init (self, NULL))
    rk_test_kernel_start (self);
}

void
rk_test_kernel_teardown (RkTestKernel  *self,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  /* Skipped: nothing was made. */
  if (self->workspace == NULL)
    return;
  if (self->kernel != NULL)
    {
      rk_kernel_shutdown (self->kernel);
      g_assert_finalize_object (g_steal_pointer (&self->kernel));
    }
  g_clear_pointer (&self->events, g_ptr_array_unref);
  g_clear_pointer (&self->done, rk_kernel_event_unref);
  g_clear_error (&self->error);
  if (!rk_workspace_delete (self->workspace, &error))
    g_test_message ("workspace %s left behind: %s", rk_workspace_get_path (self->workspace), error->message);
  g_clear_object (&self->workspace);
}

RkKernelEvent *
rk_test_kernel_run (RkTestKernel *self,
                    const char   *code)
{
  g_ptr_array_set_size (self->events, 0);
  g_clear_pointer (&self->done, rk_kernel_event_unref);
  self->finished = FALSE;
  rk_kernel_execute_async (self->kernel, code, NULL, rk_test_kernel_execute_cb, self);
  rk_test_wait_until (&self->finished, 120);
  g_assert_no_error (self->error);
  g_assert_nonnull (self->done);
  return self->done;
}

RkKernelEvent *
rk_test_kernel_find (RkTestKernel      *self,
                     RkKernelEventType  type,
                     guint             *index)
{
  for (guint i = 0; i < self->events->len; i++)
    {
      RkKernelEvent *ev = g_ptr_array_index (self->events, i);

      if (ev->type == type)
        {
          if (index != NULL)
            *index = i;
          return ev;
        }
    }
  return NULL;
}
