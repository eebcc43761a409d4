/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-sandbox-launcher.h — the one place that starts reckon-sandbox: picks the
 * backend once (userns, flatpak), builds its command line, and reads its
 * exit status and status line (docs/sandbox.md, "Backends"). */
#pragma once

#include <gio/gio.h>

#include "rk-limits.h"
#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_SANDBOX_LAUNCHER_ERROR (rk_sandbox_launcher_error_quark ())

typedef enum
{
  RK_SANDBOX_LAUNCHER_ERROR_NO_BACKEND,  /* no way to sandbox code here: it is refused */
  RK_SANDBOX_LAUNCHER_ERROR_SPAWN,       /* the command could not be started */
} RkSandboxLauncherError;

typedef enum
{
  RK_SANDBOX_BACKEND_NONE,     /* nothing works: code is never run */
  RK_SANDBOX_BACKEND_USERNS,   /* reckon-sandbox makes its own namespaces */
  RK_SANDBOX_BACKEND_FLATPAK,  /* flatpak-spawn --sandbox, reckon-sandbox --nested inside */
} RkSandboxBackend;

GQuark            rk_sandbox_launcher_error_quark        (void);

/* Detected once, at the first call, then fixed for the process. */
RkSandboxBackend  rk_sandbox_launcher_get_backend        (void);
/* "userns", "flatpak" or "none": for the About window and --version. */
const char       *rk_sandbox_launcher_get_backend_name   (void);
/* With no backend: one sentence saying why code cannot run; else NULL. */
const char       *rk_sandbox_launcher_get_unavailable_reason (void);

/* Whether the backend can give a run a capped workspace: a tmpfs of its
 * own, sized by the disk and file limits, which the kernel enforces
 * (docs/sandbox.md, "A capped workspace"). Not inside a Flatpak. */
gboolean          rk_sandbox_launcher_has_capped_workspace (void);

/* Paths as the program inside sees them: a file of the kernel folder
 * (sandbox/kernel), and a name in the workspace. */
char             *rk_sandbox_launcher_kernel_path        (const char *name);
char             *rk_sandbox_launcher_workspace_path     (RkWorkspace *workspace,
                                                          const char  *name);

/* reckon-sandbox takes at most this many --input names; further files
 * are ordinary files of the workspace. */
#define RK_SANDBOX_MAX_INPUTS 1024

/* What to run: limits (0 keeps reckon-sandbox's default), extra environment,
 * descriptors handed to the program at fixed numbers, and the program. */
typedef struct
{
  RkWorkspace         *workspace;
  guint64              memory_bytes;
  guint64              cpu_seconds;
  guint64              timeout_seconds;
  guint64              max_procs;
  guint64              max_file_size;
  guint64              disk_bytes;
  guint64              max_files;
  guint64              tmp_size;
  const char * const  *setenv;        /* NAME, VALUE, NAME, VALUE, ..., NULL */
  /* Names of the files at the top of the workspace that the user added
   * (NULL-terminated, or NULL): read-only inside, never counted against the
   * disk limit, never copied into a capped workspace (--input). */
  const char * const  *inputs;
  /* Host fds (taken, closed by the launcher) and the numbers the program
   * gets them at; @status_fd is the number (one of @child_fds) of the
   * sandbox's status line, or -1. */
  int                  host_fds[8];
  int                  child_fds[8];
  guint                n_fds;
  int                  status_fd;
  /* A capped workspace (reckon-sandbox --workspace-fs tmpfs): @sync_fd is
   * the number (one of @child_fds) of its --sync-fd socket. Only where
   * rk_sandbox_launcher_has_capped_workspace() says so. */
  gboolean             capped_workspace;
  int                  sync_fd;
  GSubprocessFlags     flags;         /* stdin/stdout/stderr handling */
  const char * const  *argv;          /* the program inside, and its arguments */
} RkSandboxSpec;

/* One started run. */
typedef struct _RkSandboxChild RkSandboxChild;

/* Starts @spec through the backend; fails with NO_BACKEND (the reason as
 * message) where no sandbox can be made, never running anything then. */
RkSandboxChild   *rk_sandbox_launcher_spawn              (const RkSandboxSpec *spec,
                                                          GError             **error);
GSubprocess      *rk_sandbox_child_get_process           (RkSandboxChild *self);
/* Sends @sig (SIGINT, SIGTERM, ...) to the program inside. */
void              rk_sandbox_child_send_signal           (RkSandboxChild *self,
                                                          int             sig);
/* Ends the run now: every process of it is killed. */
void              rk_sandbox_child_kill                  (RkSandboxChild *self);
/* Frees; a run still going is ended (its processes killed). */
void              rk_sandbox_child_free                  (RkSandboxChild *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkSandboxChild, rk_sandbox_child_free)

/* Reading how a run ended. The exit status as reckon-sandbox documents it
 * (the program's own, 128+N for signal N, 124 timeout, 125 setup). */
int               rk_sandbox_launcher_exit_status        (GSubprocess *process);
/* The limit named by the status line (@status, @status_len) or by the
 * "reckon-sandbox: stopped: LIMIT limit exceeded" line in @err_tail, or
 * RK_SANDBOX_LIMIT_NONE; the status line's exit code and signal (or -1) in @exit_out and
 * @signal_out, if not NULL. */
RkSandboxLimit    rk_sandbox_launcher_find_limit         (const char *status,
                                                          gsize       status_len,
                                                          const char *err_tail,
                                                          gint64     *exit_out,
                                                          gint64     *signal_out);
/* One answer on a capped workspace's --sync-fd (@line, @len bytes, no
 * newline), to a request whose answer has the member @key ("saved" or
 * "loaded"): TRUE with the request's number (its "id", from 1, counted over
 * the run's requests in the order they were written) in *@id_out,
 * *@ok_out, and the sandbox's reason for a FALSE (valid UTF-8, at most 512
 * bytes; NULL if none) in *@reason_out. FALSE with RK_PARSE_ERROR for
 * anything else. */
gboolean          rk_sandbox_launcher_parse_answer       (const char  *line,
                                                          gsize        len,
                                                          const char  *key,
                                                          guint64     *id_out,
                                                          gboolean    *ok_out,
                                                          char       **reason_out,
                                                          GError     **error);
/* The sandbox's own one-line reason for failing to set up (after its last
 * "reckon-sandbox: " prefix), valid UTF-8 and at most 200 characters, or
 * NULL. */
char             *rk_sandbox_launcher_setup_reason       (const char *err_tail);

/* Tests only: forget the detected backend, so the next call detects again. */
void              _rk_sandbox_launcher_reset_for_tests   (void);

G_END_DECLS
