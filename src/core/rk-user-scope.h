/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-user-scope.h — on a cgroup v2 desktop, puts a process into a transient
 * systemd user scope with MemoryMax and TasksMax (docs/sandbox.md, "cgroup v2"). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* How long a scope may take before the caller goes on without it. */
#define RK_USER_SCOPE_TIMEOUT_MS 3000

/* Whether a scope can be asked for at all: /sys/fs/cgroup is cgroup v2, we
 * are not root, and a session bus is named (DBUS_SESSION_BUS_ADDRESS, or
 * $XDG_RUNTIME_DIR/bus). No bus traffic; G_IO_ERROR_NOT_SUPPORTED with the
 * reason if not. */
gboolean  rk_user_scope_supported      (GError **error);

/* Asks the user's systemd (org.freedesktop.systemd1 on the session bus) for
 * the scope "app-reckon-sandbox-PID-N.scope" holding @pid, with MemoryMax
 * @memory_max bytes (and MemorySwapMax 0, so RAM and swap together stay
 * within it) and TasksMax @tasks_max, collected once empty, and waits for
 * its job to be done: at most RK_USER_SCOPE_TIMEOUT_MS (then
 * G_IO_ERROR_TIMED_OUT). Returns the unit's name. Blocks: for a worker
 * thread only (it runs its own main context, never the caller's). */
char     *rk_user_scope_start_sync     (GPid           pid,
                                        guint64        memory_max,
                                        guint64        tasks_max,
                                        GCancellable  *cancellable,
                                        GError       **error);

G_END_DECLS
