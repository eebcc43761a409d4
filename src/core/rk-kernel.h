/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-kernel.h — client of the sandboxed Python kernel: one reckon-sandbox
 * running reckon_kernel.py a session; start, execute, interrupt, restart. */
#pragma once

#include <gio/gio.h>

#include "rk-enum-types.h"
#include "rk-kernel-protocol.h"
#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_TYPE_KERNEL (rk_kernel_get_type ())
#define RK_KERNEL_ERROR (rk_kernel_error_quark ())

/* Why a kernel could not start (errors of start, restart and execute). */
typedef enum
{
  RK_KERNEL_ERROR_SPAWN,      /* reckon-sandbox could not be run */
  RK_KERNEL_ERROR_SANDBOX,    /* the sandbox could not be set up (exit 125) */
  RK_KERNEL_ERROR_LIMIT,      /* a limit stopped it at once (e.g. a full workspace) */
  RK_KERNEL_ERROR_PROTOCOL,   /* the kernel speaks another protocol version */
  RK_KERNEL_ERROR_DIED,       /* it ended before it was ready */
} RkKernelError;

GQuark rk_kernel_error_quark (void);

G_DECLARE_FINAL_TYPE (RkKernel, rk_kernel, RK, KERNEL, GObject)

typedef enum
{
  RK_KERNEL_STATE_STOPPED,    /* no sandbox: not started yet, shut down or died */
  RK_KERNEL_STATE_STARTING,   /* sandbox spawned, waiting for "ready" */
  RK_KERNEL_STATE_IDLE,
  RK_KERNEL_STATE_BUSY,       /* a cell is running */
} RkKernelState;

/* Limits passed to reckon-sandbox; 0 keeps the sandbox's default
 * (docs/sandbox.md). */
typedef struct
{
  guint64 memory_bytes;
  guint64 cpu_seconds;
  guint64 max_procs;
  guint64 max_file_size;
  guint64 disk_bytes;
  guint64 max_files;
  guint64 tmp_size;
  /* CPU seconds a single cell may use (0: the kernel's default, 600). */
  guint64 cell_cpu_seconds;
  /* Wall-clock seconds a single cell may run (0: the default, 120); then it
   * is interrupted and ends with status ERROR, an error event and ->limit
   * RK_SANDBOX_LIMIT_TIME; the session and its variables go on. */
  guint64 cell_time_seconds;
} RkKernelLimits;

RkKernel       *rk_kernel_new              (RkWorkspace         *workspace,
                                            const RkKernelLimits *limits);

RkWorkspace    *rk_kernel_get_workspace    (RkKernel            *self);
RkKernelState   rk_kernel_get_state        (RkKernel            *self);
/* The "ready" event of the running kernel (versions), or NULL. */
RkKernelEvent  *rk_kernel_get_ready_event  (RkKernel            *self);
/* Id of the running cell, or NULL. */
const char     *rk_kernel_get_running_cell (RkKernel            *self);
/* The per-cell wall-clock limit (RkKernelLimits.cell_time_seconds; 0 sets
 * the default back); applies from the next cell on. */
void            rk_kernel_set_cell_time_limit (RkKernel         *self,
                                            guint64              seconds);
guint64         rk_kernel_get_cell_time_limit (RkKernel         *self);
/* The names of the files the user added to the workspace (NULL-terminated):
 * the sandbox's inputs from the next start on (RkSandboxSpec.inputs). A file
 * added while the kernel runs comes in through rk_kernel_take_incoming_async
 * and is an input of the running sandbox already. */
void            rk_kernel_set_inputs       (RkKernel            *self,
                                            const char * const  *names);
/* All the limits: the cell's time limit applies from the next cell, the
 * others from the next start of the sandbox (a start after it died, or
 * rk_kernel_restart_async()). */
void            rk_kernel_set_limits       (RkKernel            *self,
                                            const RkKernelLimits *limits);
void            rk_kernel_get_limits       (RkKernel            *self,
                                            RkKernelLimits      *limits);
/* Lines from the kernel that were dropped as malformed or hostile. */
guint           rk_kernel_get_n_protocol_errors (RkKernel       *self);

/* Spawns the sandbox and completes once the kernel is warm (pandas and
 * matplotlib imported). Starting a started kernel completes at once. */
void            rk_kernel_start_async      (RkKernel            *self,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
gboolean        rk_kernel_start_finish     (RkKernel            *self,
                                            GAsyncResult        *result,
                                            GError             **error);

/* Queues one cell; cells run one at a time, in order. A stopped or dead
 * kernel is started first (a fresh interpreter; workspace files stay).
 * While it runs, the "event" signal delivers its events. Cancelling a
 * queued cell removes it; cancelling a running cell interrupts it; either
 * way _finish() then fails with G_IO_ERROR_CANCELLED. */
void            rk_kernel_execute_async    (RkKernel            *self,
                                            const char          *code,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
/* Returns the cell's DONE event: status OK, ERROR, INTERRUPTED or DIED (then
 * ->message says why in one sentence and ->limit names the limit, if any).
 * A GError means the cell could not run at all (the sandbox cannot start). */
RkKernelEvent  *rk_kernel_execute_finish   (RkKernel            *self,
                                            GAsyncResult        *result,
                                            GError             **error);

/* SIGINT to the running cell. If it has not stopped within about a second,
 * the kernel is restarted (the cell ends INTERRUPTED; variables are lost). */
void            rk_kernel_interrupt        (RkKernel            *self);

/* A fresh sandbox and interpreter; a running cell ends with status DIED. */
void            rk_kernel_restart_async    (RkKernel            *self,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
gboolean        rk_kernel_restart_finish   (RkKernel            *self,
                                            GAsyncResult        *result,
                                            GError             **error);

/* Moves the files rk_import_file_async() staged (in the workspace's
 * RK_IMPORT_INCOMING folder) into the workspace, where the kernel sees
 * them. With a capped workspace the running sandbox copies them into its
 * tmpfs, after the saves asked before, so a save never removes them;
 * otherwise they are moved at once. Fails with a sentence for the user
 * (the files not moved stay staged). */
void            rk_kernel_take_incoming_async  (RkKernel            *self,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean        rk_kernel_take_incoming_finish (RkKernel            *self,
                                                GAsyncResult        *result,
                                                GError             **error);

/* Asks the kernel to exit and kills the sandbox if it has not after a
 * short grace period. Never blocks. Pending cells fail with CANCELLED. */
void            rk_kernel_shutdown         (RkKernel            *self);

/* Properties:
 *   "state" (RkKernelState, read-only, RK_TYPE_KERNEL_STATE) notified on
 *           every change, just before "state-changed".
 *
 * Signals:
 *   "event"         (RkKernelEvent *event)   detailed by type name, e.g.
 *                   "event::stream", "event::figure"; only events of the
 *                   running cell, already validated (paths beneath the
 *                   workspace, regular files, no symlinks).
 *   "state-changed" (RkKernelState state)
 *   "died"          (RkSandboxLimit limit, const char *message)
 *                   the sandbox ended without being asked to.
 *   "protocol-error" (GError *error)          a line was dropped.
 */

G_END_DECLS
