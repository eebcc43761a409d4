/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-test-kernel.h — a test fixture around a real RkKernel in the real
 * reckon-sandbox: a fresh workspace, the events of the last cell, waits. */
#pragma once

#include "rk-kernel.h"

G_BEGIN_DECLS

typedef struct
{
  RkWorkspace   *workspace;
  RkKernel      *kernel;
  GPtrArray     *events;       /* RkKernelEvent* of the last cell */
  RkKernelEvent *done;         /* DONE event of the last cell */
  GError        *error;
  gboolean       finished;     /* set by the start and execute callbacks */
} RkTestKernel;

/* Whether reckon-sandbox can run a program here; if not, why in @reason. */
gboolean        rk_test_kernel_sandbox_usable (char          **reason);

/* Iterates the default main context until *@flag, failing the test after
 * @seconds. */
void            rk_test_wait_until            (gboolean       *flag,
                                               int             seconds);

/* Zeroes @self and, when the sandbox is usable, makes a workspace and a
 * kernel (not started) with @limits, or a 1 GiB memory limit when NULL,
 * whose events are collected. Otherwise skips the test and returns FALSE,
 * with self->kernel NULL. */
gboolean        rk_test_kernel_init           (RkTestKernel   *self,
                                               const RkKernelLimits *limits);
/* Starts the kernel and waits for it; asserts that it started. */
void            rk_test_kernel_start          (RkTestKernel   *self);

/* g_test_add() fixture functions: init with the default limits and start;
 * shut down (asserting the kernel is finalized) and delete the workspace. */
void            rk_test_kernel_setup          (RkTestKernel   *self,
                                               gconstpointer   data);
void            rk_test_kernel_teardown       (RkTestKernel   *self,
                                               gconstpointer   data);

/* Runs one cell to its end and returns its DONE event (owned by @self);
 * its events are in self->events. Asserts the cell could run. */
RkKernelEvent  *rk_test_kernel_run            (RkTestKernel   *self,
                                               const char     *code);
/* The first event of @type of the last cell, or NULL; its position in
 * self->events in @index if not NULL. */
RkKernelEvent  *rk_test_kernel_find           (RkTestKernel   *self,
                                               RkKernelEventType type,
                                               guint          *index);

/* Callbacks for rk_kernel_start_async()/_restart_async() and
 * rk_kernel_execute_async() with @self as user data: they store the
 * error (and the DONE event) and set self->finished. */
void            rk_test_kernel_start_cb       (GObject        *object,
                                               GAsyncResult   *result,
                                               gpointer        user_data);
void            rk_test_kernel_execute_cb     (GObject        *object,
                                               GAsyncResult   *result,
                                               gpointer        user_data);

G_END_DECLS
