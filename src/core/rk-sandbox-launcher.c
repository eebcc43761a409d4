/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-sandbox-launcher.c — starts reckon-sandbox the one way this machine
 * allows, chosen once: its own namespaces (userns) or, inside a Flatpak,
 * flatpak-spawn --sandbox with reckon-sandbox --nested (docs/sandbox.md). */
#define G_LOG_DOMAIN "rk-sandbox-launcher"
#include "config.h"
#include "rk-sandbox-launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib-unix.h>
#include <json-glib/json-glib.h>
#include <linux/sched.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rk-json.h"
#include "rk-user-scope.h"
#include "rk-util.h"

/* Where the userns backend mounts the kernel folder inside. */
#define KERNEL_MOUNT   "/opt/reckon/kernel"
/* The number the control pipe gets inside (flatpak backend). */
#define CONTROL_FD     9
/* The number the start socket gets (userns backend on cgroup v2): the
 * sandbox waits for one byte there while we put it into a user scope. */
#define START_FD       10
/* Tests only (tests/flatpak-harness): a file that stands for /.flatpak-info.
 * Users never set it; it only ever selects the flatpak backend, which is
 * as strict as the other. */
#define TEST_FLATPAK_INFO_ENV "RECKON_TEST_FLATPAK_INFO"
/* The sandbox's answers and status line: one short flat object. */
#define MAX_ANSWER_BYTES 4096
#define MAX_ANSWER_DEPTH 4

G_DEFINE_QUARK (rk-sandbox-launcher-error-quark, rk_sandbox_launcher_error)

/* Our end of the start socket, shared by the child and the thread that
 * asks for the scope: whichever comes first, the scope's answer (the byte:
 * go) or the end of the child (closed: the sandbox exits), wins. */
typedef struct
{
  GMutex        lock;
  int           fd;
  GCancellable *cancellable;
  GPid          pid;
  guint64       memory_max;
  guint64       tasks_max;
} StartGate;

struct _RkSandboxChild
{
  RkSandboxBackend  backend;
  GSubprocess      *process;
  int               control;     /* flatpak: our end of the control pipe, or -1 */
  StartGate        *gate;        /* userns on cgroup v2: until the scope is asked for, or NULL */
};

static gsize            detected;
static RkSandboxBackend backend;
static gsize            scope_checked;
static gboolean         scope_possible;
static char            *unavailable_reason;
static char            *flatpak_spawn;

/* -- detection (once) ---------------------------------------------------- */

static gboolean
in_flatpak (void)
{
  const char *fake = g_getenv (TEST_FLATPAK_INFO_ENV);

  if (g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    return TRUE;
  return fake != NULL && fake[0] == '/' && g_file_test (fake, G_FILE_TEST_IS_REGULAR);
}

/* Whether this process may make a user namespace: a child tries. */
static gboolean
userns_works (void)
{
  int status = 0;
  pid_t pid = fork ();

  if (pid < 0)
    return FALSE;
  if (pid == 0)
    _exit (syscall (SYS_unshare, CLONE_NEWUSER) == 0 ? 0 : 1);
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return FALSE;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

static void
detect (void)
{
  if (in_flatpak ())
    {
      flatpak_spawn = g_find_program_in_path ("flatpak-spawn");
      if (flatpak_spawn != NULL)
        backend = RK_SANDBOX_BACKEND_FLATPAK;
      else
        {
          backend = RK_SANDBOX_BACKEND_NONE;
          unavailable_reason = g_strdup (_("Reckon runs in a Flatpak without flatpak-spawn, so it cannot start its sandbox and will not run code."));
        }
    }
  else if (userns_works ())
    backend = RK_SANDBOX_BACKEND_USERNS;
  else
    {
      backend = RK_SANDBOX_BACKEND_NONE;
      unavailable_reason = g_strdup (_("This system does not let programs make user namespaces and Reckon is not running in a Flatpak, so it cannot sandbox code and will not run it."));
    }
  g_debug ("sandbox backend: %s", backend == RK_SANDBOX_BACKEND_USERNS ? "userns"
                                   : backend == RK_SANDBOX_BACKEND_FLATPAK ? "flatpak" : "none");
}

RkSandboxBackend
rk_sandbox_launcher_get_backend (void)
{
  if (g_once_init_enter (&detected))
    {
      detect ();
      g_once_init_leave (&detected, 1);
    }
  return backend;
}

const char *
rk_sandbox_launcher_get_backend_name (void)
{
  switch (rk_sandbox_launcher_get_backend ())
    {
    case RK_SANDBOX_BACKEND_USERNS:  return "userns";
    case RK_SANDBOX_BACKEND_FLATPAK: return "flatpak";
    case RK_SANDBOX_BACKEND_NONE:
    default:                         return "none";
    }
}

gboolean
rk_sandbox_launcher_has_capped_workspace (void)
{
  /* --workspace-fs tmpfs needs a mount namespace of reckon-sandbox's own,
   * which --nested does not make. */
  return rk_sandbox_launcher_get_backend () == RK_SANDBOX_BACKEND_USERNS;
}

const char *
rk_sandbox_launcher_get_unavailable_reason (void)
{
  rk_sandbox_launcher_get_backend ();
  return unavailable_reason;
}

void
_rk_sandbox_launcher_reset_for_tests (void)
{
  g_clear_pointer (&unavailable_reason, g_free);
  g_clear_pointer (&flatpak_spawn, g_free);
  detected = 0;
  scope_checked = 0;
}

/* -- a user scope per run (cgroup v2, not root) -------------------------- */

/* Checked once (no bus traffic): where it is FALSE, as on cgroup v1, a
 * spawn is exactly as before, with no start socket and no thread. */
static gboolean
user_scope_possible (void)
{
  if (g_once_init_enter (&scope_checked))
    {
      g_autoptr(GError) error = NULL;

      scope_possible = rk_user_scope_supported (&error);
      if (!scope_possible)
        g_debug ("no user scope for sandbox runs: %s", error->message);
      g_once_init_leave (&scope_checked, 1);
    }
  return scope_possible;
}

static void
gate_free (StartGate *gate)
{
  g_mutex_clear (&gate->lock);
  g_object_unref (gate->cancellable);
}

/* Writes the byte (go) unless the child was freed first; then closes. */
static void
gate_open (StartGate *gate)
{
  g_mutex_lock (&gate->lock);
  if (gate->fd >= 0)
    {
      /* MSG_NOSIGNAL: a sandbox already gone is no SIGPIPE for us. */
      while (send (gate->fd, "g", 1, MSG_NOSIGNAL) < 0 && errno == EINTR)
        ;
      close (gate->fd);
      gate->fd = -1;
    }
  g_mutex_unlock (&gate->lock);
}

/* The child is gone or killed: end of file, so a sandbox still waiting
 * exits (status 125) instead of starting. */
static void
gate_close (StartGate *gate)
{
  g_mutex_lock (&gate->lock);
  if (gate->fd >= 0)
    {
      close (gate->fd);
      gate->fd = -1;
    }
  g_mutex_unlock (&gate->lock);
  g_cancellable_cancel (gate->cancellable);
}

/* Its own thread, not the caller's main context: callers spawn from worker
 * threads and wait synchronously, and the sandbox must never wait on a
 * main loop that is not running. */
static gpointer
gate_thread (gpointer data)
{
  StartGate *gate = data;
  g_autoptr(GError) error = NULL;
  g_autofree char *unit = rk_user_scope_start_sync (gate->pid, gate->memory_max, gate->tasks_max,
                                                    gate->cancellable, &error);

  if (unit != NULL)
    g_debug ("sandbox %d runs in the user scope %s: MemoryMax %" G_GUINT64_FORMAT ", TasksMax %" G_GUINT64_FORMAT,
             (int) gate->pid, unit, gate->memory_max, gate->tasks_max);
  else
    g_debug ("sandbox %d runs without a user scope (%s): its memory is bounded per process (RLIMIT_AS) only",
             (int) gate->pid, error->message);
  gate_open (gate);
  g_atomic_rc_box_release_full (gate, (GDestroyNotify) gate_free);
  return NULL;
}

/* Asks for the scope of the sandbox @pid; the gate opens when that is
 * done or failed (at most RK_USER_SCOPE_TIMEOUT_MS). */
static StartGate *
gate_start (int                  fd,
            GPid                 pid,
            const RkSandboxSpec *spec)
{
  StartGate *gate = g_atomic_rc_box_new0 (StartGate);
  g_autoptr(GError) error = NULL;
  GThread *thread;

  g_mutex_init (&gate->lock);
  gate->fd = fd;
  gate->cancellable = g_cancellable_new ();
  gate->pid = pid;
  /* /tmp and /dev/shm (one tmpfs of --tmp-size) are charged to the scope
   * too: the total is what --memory and --tmp-size allow together. The
   * defaults are reckon-sandbox's. */
  gate->memory_max = (spec->memory_bytes ? spec->memory_bytes : G_GUINT64_CONSTANT (2) << 30) +
                     (spec->tmp_size ? spec->tmp_size : G_GUINT64_CONSTANT (256) << 20);
  /* The program's processes, PID-1 and the monitor. */
  gate->tasks_max = (spec->max_procs ? spec->max_procs : 64) + 2;
  thread = g_thread_try_new ("rk-user-scope", gate_thread, g_atomic_rc_box_acquire (gate), &error);
  if (thread == NULL)
    {
      g_debug ("sandbox %d runs without a user scope (%s): its memory is bounded per process (RLIMIT_AS) only",
               (int) pid, error->message);
      gate_open (gate);
      g_atomic_rc_box_release_full (gate, (GDestroyNotify) gate_free);
    }
  else
    g_thread_unref (thread);
  return gate;
}

static void
gate_drop (StartGate **gate)
{
  if (*gate == NULL)
    return;
  gate_close (*gate);
  g_atomic_rc_box_release_full (*gate, (GDestroyNotify) gate_free);
  *gate = NULL;
}

/* -- paths inside -------------------------------------------------------- */

char *
rk_sandbox_launcher_kernel_path (const char *name)
{
  /* In the sub-sandbox the installed kernel folder (/app/...) is visible
   * where it is; the userns backend binds it at a fixed place. */
  if (rk_sandbox_launcher_get_backend () == RK_SANDBOX_BACKEND_FLATPAK)
    return g_build_filename (rk_kernel_dir (), name, NULL);
  return g_build_filename (KERNEL_MOUNT, name, NULL);
}

char *
rk_sandbox_launcher_workspace_path (RkWorkspace *workspace,
                                    const char  *name)
{
  if (rk_sandbox_launcher_get_backend () == RK_SANDBOX_BACKEND_FLATPAK)
    return g_build_filename (rk_workspace_get_path (workspace), name, NULL);
  return g_build_filename ("/workspace", name, NULL);
}

/* -- the command line ---------------------------------------------------- */

static void
add (GPtrArray  *argv,
     const char *arg)
{
  g_ptr_array_add (argv, g_strdup (arg));
}

static void
add_limit (GPtrArray  *argv,
           const char *option,
           guint64     value)
{
  if (value == 0)
    return;
  add (argv, option);
  g_ptr_array_add (argv, g_strdup_printf ("%" G_GUINT64_FORMAT, value));
}

/* reckon-sandbox's own options, the same for both backends but the mount
 * of the kernel folder and where the workspace is. */
static void
add_sandbox_options (GPtrArray           *argv,
                     const RkSandboxSpec *spec,
                     gboolean             nested,
                     gboolean             start_fd)
{
  add (argv, rk_sandbox_path ());
  if (start_fd)
    {
      add (argv, "--start-fd");
      g_ptr_array_add (argv, g_strdup_printf ("%d", START_FD));
    }
  if (nested)
    {
      add (argv, "--nested");
      add (argv, "--control-fd");
      g_ptr_array_add (argv, g_strdup_printf ("%d", CONTROL_FD));
    }
  add (argv, "--workspace");
  add (argv, rk_workspace_get_path (spec->workspace));
  if (!nested)
    {
      add (argv, "--ro-bind");
      add (argv, rk_kernel_dir ());
      add (argv, KERNEL_MOUNT);
    }
  for (guint i = 0; i < spec->n_fds; i++)
    {
      if (spec->child_fds[i] == spec->status_fd
          || (spec->capped_workspace && spec->child_fds[i] == spec->sync_fd))
        continue;
      add (argv, "--pass-fd");
      g_ptr_array_add (argv, g_strdup_printf ("%d", spec->child_fds[i]));
    }
  if (spec->capped_workspace && !nested)
    {
      add (argv, "--workspace-fs");
      add (argv, "tmpfs");
      add (argv, "--sync-fd");
      g_ptr_array_add (argv, g_strdup_printf ("%d", spec->sync_fd));
    }
  if (spec->status_fd >= 0)
    {
      add (argv, "--status-fd");
      g_ptr_array_add (argv, g_strdup_printf ("%d", spec->status_fd));
    }
  add_limit (argv, "--memory", spec->memory_bytes);
  add_limit (argv, "--cpu-seconds", spec->cpu_seconds);
  add_limit (argv, "--timeout", spec->timeout_seconds);
  add_limit (argv, "--max-procs", spec->max_procs);
  add_limit (argv, "--max-file-size", spec->max_file_size);
  add_limit (argv, "--disk", spec->disk_bytes);
  add_limit (argv, "--max-files", spec->max_files);
  add_limit (argv, "--tmp-size", spec->tmp_size);
  if (nested)
    {
      /* No /workspace there: the workspace is where it is on the host. */
      add (argv, "--setenv");
      add (argv, "HOME");
      add (argv, rk_workspace_get_path (spec->workspace));
      add (argv, "--setenv");
      add (argv, "RECKON_WORKSPACE");
      add (argv, rk_workspace_get_path (spec->workspace));
    }
  for (guint i = 0; spec->inputs != NULL && spec->inputs[i] != NULL && i < RK_SANDBOX_MAX_INPUTS; i++)
    {
      add (argv, "--input");
      add (argv, spec->inputs[i]);
    }
  for (guint i = 0; spec->setenv != NULL && spec->setenv[i] != NULL && spec->setenv[i + 1] != NULL; i += 2)
    {
      add (argv, "--setenv");
      add (argv, spec->setenv[i]);
      add (argv, spec->setenv[i + 1]);
    }
  add (argv, "--");
  for (guint i = 0; spec->argv[i] != NULL; i++)
    add (argv, spec->argv[i]);
}

/* flatpak-spawn, the way the portal's sandboxed Spawn is asked for it:
 * a new sandbox, no network, a clean environment; never expose-pids or
 * share-pids. The workspace is the one path exposed. */
static void
add_flatpak_spawn (GPtrArray           *argv,
                   const RkSandboxSpec *spec)
{
  add (argv, flatpak_spawn);
  add (argv, "--sandbox");
  add (argv, "--no-network");
  add (argv, "--clear-env");
  g_ptr_array_add (argv, g_strdup_printf ("--sandbox-expose-path=%s", rk_workspace_get_path (spec->workspace)));
  g_ptr_array_add (argv, g_strdup_printf ("--directory=%s", rk_workspace_get_path (spec->workspace)));
  for (guint i = 0; i < spec->n_fds; i++)
    g_ptr_array_add (argv, g_strdup_printf ("--forward-fd=%d", spec->child_fds[i]));
  g_ptr_array_add (argv, g_strdup_printf ("--forward-fd=%d", CONTROL_FD));
}

static void
close_spec_fds (const RkSandboxSpec *spec)
{
  for (guint i = 0; i < spec->n_fds; i++)
    if (spec->host_fds[i] >= 0)
      close (spec->host_fds[i]);
}

RkSandboxChild *
rk_sandbox_launcher_spawn (const RkSandboxSpec  *spec,
                           GError              **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) local_error = NULL;
  RkSandboxBackend which = rk_sandbox_launcher_get_backend ();
  int control[2] = { -1, -1 };
  int start[2] = { -1, -1 };
  RkSandboxChild *child;

  g_return_val_if_fail (spec != NULL && RK_IS_WORKSPACE (spec->workspace) && spec->argv != NULL, NULL);
  g_return_val_if_fail (spec->n_fds <= G_N_ELEMENTS (spec->host_fds), NULL);

  if (which == RK_SANDBOX_BACKEND_NONE)
    {
      close_spec_fds (spec);
      g_set_error_literal (error, RK_SANDBOX_LAUNCHER_ERROR, RK_SANDBOX_LAUNCHER_ERROR_NO_BACKEND,
                           unavailable_reason);
      return NULL;
    }

  if (which == RK_SANDBOX_BACKEND_FLATPAK)
    {
      if (!g_unix_open_pipe (control, FD_CLOEXEC, &local_error))
        {
          close_spec_fds (spec);
          g_set_error (error, RK_SANDBOX_LAUNCHER_ERROR, RK_SANDBOX_LAUNCHER_ERROR_SPAWN,
                       "%s", local_error->message);
          return NULL;
        }
      add_flatpak_spawn (argv, spec);
    }
  /* Never in the flatpak backend: no cgroup of ours there. */
  else if (user_scope_possible () && socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, start) != 0)
    {
      int saved = errno;

      close_spec_fds (spec);
      g_set_error (error, RK_SANDBOX_LAUNCHER_ERROR, RK_SANDBOX_LAUNCHER_ERROR_SPAWN,
                   "cannot create the start socket: %s", g_strerror (saved));
      return NULL;
    }
  add_sandbox_options (argv, spec, which == RK_SANDBOX_BACKEND_FLATPAK, start[0] >= 0);
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (spec->flags);
  for (guint i = 0; i < spec->n_fds; i++)
    g_subprocess_launcher_take_fd (launcher, spec->host_fds[i], spec->child_fds[i]);
  if (control[0] >= 0)
    g_subprocess_launcher_take_fd (launcher, control[0], CONTROL_FD);
  if (start[0] >= 0)
    g_subprocess_launcher_take_fd (launcher, start[0], START_FD);

  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &local_error);
  /* The launcher holds the child's ends until it is finalized. */
  g_clear_object (&launcher);
  if (process == NULL)
    {
      if (control[1] >= 0)
        close (control[1]);
      if (start[1] >= 0)
        close (start[1]);
      g_set_error (error, RK_SANDBOX_LAUNCHER_ERROR, RK_SANDBOX_LAUNCHER_ERROR_SPAWN,
                   "%s", local_error->message);
      return NULL;
    }

  child = g_new0 (RkSandboxChild, 1);
  child->backend = which;
  child->process = g_steal_pointer (&process);
  child->control = control[1];
  if (start[1] >= 0)
    {
      /* No identifier: the sandbox already ended (it refused its options
       * before waiting); there is nothing to put into a scope. */
      const char *id = g_subprocess_get_identifier (child->process);

      if (id != NULL)
        child->gate = gate_start (start[1], (GPid) atoi (id), spec);
      else
        close (start[1]);
    }
  return child;
}

GSubprocess *
rk_sandbox_child_get_process (RkSandboxChild *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->process;
}

void
rk_sandbox_child_send_signal (RkSandboxChild *self,
                              int             sig)
{
  g_return_if_fail (self != NULL);

  if (self->backend == RK_SANDBOX_BACKEND_FLATPAK)
    {
      /* Through the portal a signal reaches only bubblewrap: the
       * supervisor inside takes it from the control pipe instead. */
      guint8 byte = (guint8) sig;

      if (self->control >= 0 && write (self->control, &byte, 1) != 1)
        g_debug ("could not pass signal %d to the sandbox: %s", sig, g_strerror (errno));
      return;
    }
  g_subprocess_send_signal (self->process, sig);
}

void
rk_sandbox_child_kill (RkSandboxChild *self)
{
  g_return_if_fail (self != NULL);

  /* End of file on the control pipe: the supervisor inside kills every
   * process of the run, whatever happens to flatpak-spawn. */
  if (self->control >= 0)
    {
      close (self->control);
      self->control = -1;
    }
  gate_drop (&self->gate);
  g_subprocess_force_exit (self->process);
}

void
rk_sandbox_child_free (RkSandboxChild *self)
{
  if (self == NULL)
    return;
  if (self->control >= 0)
    close (self->control);
  gate_drop (&self->gate);
  g_clear_object (&self->process);
  g_free (self);
}

/* -- how it ended -------------------------------------------------------- */

int
rk_sandbox_launcher_exit_status (GSubprocess *process)
{
  if (g_subprocess_get_if_exited (process))
    return g_subprocess_get_exit_status (process);
  if (g_subprocess_get_if_signaled (process))
    return 128 + g_subprocess_get_term_sig (process);
  return -1;
}

gboolean
rk_sandbox_launcher_parse_answer (const char  *line,
                                  gsize        len,
                                  const char  *key,
                                  guint64     *id_out,
                                  gboolean    *ok_out,
                                  char       **reason_out,
                                  GError     **error)
{
  g_autoptr(JsonObject) root = NULL;
  gint64 id = 0;

  *id_out = 0;
  *ok_out = FALSE;
  *reason_out = NULL;
  root = rk_json_parse_object (line, (gssize) len, MAX_ANSWER_BYTES, MAX_ANSWER_DEPTH, RK_JSON_SCAN_DEFAULT, NULL);
  if (root == NULL)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "the sandbox's answer is not a JSON object");
      return FALSE;
    }
  if (!rk_json_get_int (root, "id", 1, G_MAXINT64, RK_JSON_REQUIRED, &id, error)
      || !rk_json_get_bool (root, key, RK_JSON_REQUIRED, ok_out, error)
      || !rk_json_dup_string (root, "error", 512, RK_JSON_OPTIONAL, reason_out, error))
    {
      *ok_out = FALSE;
      g_clear_pointer (reason_out, g_free);
      g_prefix_error (error, "the sandbox's answer: ");
      return FALSE;
    }
  *id_out = (guint64) id;
  return TRUE;
}

RkSandboxLimit
rk_sandbox_launcher_find_limit (const char *status,
                                gsize       status_len,
                                const char *err_tail,
                                gint64     *exit_out,
                                gint64     *signal_out)
{
  g_autoptr(JsonObject) obj = NULL;
  g_auto(GStrv) lines = NULL;
  const char *nl = status != NULL ? memchr (status, '\n', status_len) : NULL;
  gsize len = nl != NULL ? (gsize) (nl - status) : status_len;

  if (exit_out != NULL)
    *exit_out = -1;
  if (signal_out != NULL)
    *signal_out = -1;
  if (status != NULL && len > 0 &&
      (obj = rk_json_parse_object (status, (gssize) len, MAX_ANSWER_BYTES - 1, MAX_ANSWER_DEPTH,
                                   RK_JSON_SCAN_DEFAULT, NULL)) != NULL)
    {
      JsonNode *node;

      if ((node = json_object_get_member (obj, "exit")) && json_node_get_value_type (node) == G_TYPE_INT64 &&
          exit_out != NULL)
        *exit_out = json_node_get_int (node);
      if ((node = json_object_get_member (obj, "signal")) && json_node_get_value_type (node) == G_TYPE_INT64 &&
          signal_out != NULL)
        *signal_out = json_node_get_int (node);
      if ((node = json_object_get_member (obj, "limit")) && json_node_get_value_type (node) == G_TYPE_STRING)
        {
          const char *limit = json_node_get_string (node);
          if (limit != NULL && strlen (limit) < 64 && g_utf8_validate (limit, -1, NULL))
            return rk_sandbox_limit_from_name (limit);
        }
    }

  if (err_tail == NULL)
    return RK_SANDBOX_LIMIT_NONE;
  lines = g_strsplit (err_tail, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *p = strstr (lines[i], "reckon-sandbox: stopped: ");
      const char *end;

      if (p == NULL)
        continue;
      p += strlen ("reckon-sandbox: stopped: ");
      end = strstr (p, " limit exceeded");
      if (end != NULL && end > p && end - p < 64 && g_utf8_validate (p, end - p, NULL))
        {
          g_autofree char *name = g_strndup (p, end - p);

          return rk_sandbox_limit_from_name (name);
        }
    }
  return RK_SANDBOX_LIMIT_NONE;
}

char *
rk_sandbox_launcher_setup_reason (const char *err_tail)
{
  g_auto(GStrv) lines = NULL;
  const char *found = NULL;

  if (err_tail == NULL)
    return NULL;
  lines = g_strsplit (err_tail, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "reckon-sandbox: ") &&
        !g_str_has_prefix (lines[i], "reckon-sandbox: stopped: "))
      found = lines[i] + strlen ("reckon-sandbox: ");
  if (found == NULL || !g_utf8_validate (found, -1, NULL))
    return NULL;
  /* g_utf8_substring() must not be asked past the end (it reads beyond). */
  return g_utf8_substring (found, 0, MIN (g_utf8_strlen (found, -1), 200));
}
