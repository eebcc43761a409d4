/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-user-scope.c — rk-user-scope and the launcher's start socket: without
 * cgroup v2 nothing is asked of any bus and the launcher is unchanged; with a
 * real systemd user manager (run-user-scope-systemd.py) the sandbox runs in its scope. */
#include "config.h"

#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rk-sandbox-launcher.h"
#include "rk-user-scope.h"
#include "rk-util.h"

/* Set by run-user-scope-systemd.py: a user manager is there, so its absence
 * is a failure, not a skip. */
#define REQUIRED_ENV "RECKON_TEST_USER_SCOPE_REQUIRED"

static gboolean
have_v2 (void)
{
  return g_file_test ("/sys/fs/cgroup/cgroup.controllers", G_FILE_TEST_EXISTS);
}

/* The "0::" line of /proc/PID/cgroup, without "0::". */
static char *
v2_group_of (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/cgroup", (int) pid);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "0::"))
      return g_strdup (lines[i] + 3);
  return NULL;
}

static char *
cmdline_of (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/cmdline", (int) pid);
  char *text = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &text, &len, NULL))
    return NULL;
  for (gsize i = 0; i + 1 < len; i++)
    if (text[i] == '\0')
      text[i] = ' ';
  return text;
}

/* Where /sys/fs/cgroup is not cgroup v2 (these CI machines: v1): the
 * answer is NOT_SUPPORTED, at once, and nothing connects to the session
 * bus (a socket of ours stands at its address and counts connections). */
static void
test_not_supported (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *sock_path = NULL;
  g_autofree char *address = NULL;
  g_autoptr(GSocket) listener = NULL;
  g_autoptr(GSocketAddress) addr = NULL;
  g_autoptr(GSocket) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *unit = NULL;
  g_autofree char *old_address = g_strdup (g_getenv ("DBUS_SESSION_BUS_ADDRESS"));
  gint64 t0;

  if (have_v2 ())
    {
      g_test_skip ("/sys/fs/cgroup is cgroup v2 here: the scope tests below cover this machine");
      return;
    }
  dir = g_dir_make_tmp ("rk-user-scope-XXXXXX", &error);
  g_assert_no_error (error);
  sock_path = g_build_filename (dir, "bus", NULL);
  listener = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error);
  g_assert_no_error (error);
  addr = g_unix_socket_address_new (sock_path);
  g_assert_true (g_socket_bind (listener, addr, TRUE, &error));
  g_assert_true (g_socket_listen (listener, &error));
  g_socket_set_blocking (listener, FALSE);
  address = g_strdup_printf ("unix:path=%s", sock_path);
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", address, TRUE);

  t0 = g_get_monotonic_time ();
  unit = rk_user_scope_start_sync (getpid (), G_GUINT64_CONSTANT (1) << 30, 66, NULL, &error);
  g_test_message ("rk_user_scope_start_sync answered NOT_SUPPORTED after %.3f ms: %s",
                  (g_get_monotonic_time () - t0) / 1000.0, error ? error->message : "(no error)");
  g_assert_null (unit);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);

  /* Nobody knocked. */
  client = g_socket_accept (listener, NULL, &error);
  g_assert_null (client);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);

  if (old_address != NULL)
    g_setenv ("DBUS_SESSION_BUS_ADDRESS", old_address, TRUE);
  else
    g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
  g_socket_close (listener, NULL);
  g_unlink (sock_path);
  g_rmdir (dir);
}

/* Whether the scope tests can run; if not, skips saying why. */
static gboolean
scope_ready (void)
{
  g_autoptr(GError) error = NULL;

  if (!have_v2 ())
    {
      g_test_skip ("/sys/fs/cgroup is not cgroup v2 here (cgroup v1): test-user-scope-systemd runs these "
                   "against a real systemd --user where root can set one up");
      return FALSE;
    }
  if (!rk_user_scope_supported (&error))
    {
      if (g_getenv (REQUIRED_ENV) != NULL)
        g_error ("a user scope should be possible here: %s", error->message);
      g_test_skip (error->message);
      return FALSE;
    }
  return TRUE;
}

static guint64
unit_property (GDBusConnection *bus,
               const char      *unit_path,
               const char      *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) value = NULL;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.systemd1", unit_path,
                                       "org.freedesktop.DBus.Properties", "Get",
                                       g_variant_new ("(ss)", "org.freedesktop.systemd1.Scope", name),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(v)", &value);
  g_assert_true (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64));
  return g_variant_get_uint64 (value);
}

/* What the kernel has for @file of the group, or NULL (no controller). */
static char *
group_file (const char *group,
            const char *file)
{
  g_autofree char *path = g_strdup_printf ("/sys/fs/cgroup%s/%s", group, file);
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return g_strstrip (text);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* A real user manager: the process lands in the scope, which has the
 * limits asked for. */
static void
test_scope (void)
{
  const char *argv[] = { "/bin/sleep", "60", NULL };
  guint64 memory_max = G_GUINT64_CONSTANT (300) << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) sleeper = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *unit = NULL;
  g_autofree char *group = NULL;
  g_autofree char *suffix = NULL;
  g_autofree char *mem = NULL;
  g_autofree char *pids = NULL;
  const char *unit_path;
  GPid pid;

  if (!scope_ready ())
    return;
  sleeper = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_NONE, &error);
  g_assert_no_error (error);
  pid = atoi (g_subprocess_get_identifier (sleeper));

  unit = rk_user_scope_start_sync (pid, memory_max, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (unit, "app-reckon-sandbox-"));
  group = v2_group_of (pid);
  suffix = g_strdup_printf ("/%s", unit);
  g_test_message ("pid %d is in %s", (int) pid, group);
  g_assert_true (g_str_has_suffix (group, suffix));

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                       "org.freedesktop.systemd1.Manager", "GetUnit", g_variant_new ("(s)", unit),
                                       G_VARIANT_TYPE ("(o)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(&o)", &unit_path);
  g_assert_cmpuint (unit_property (bus, unit_path, "MemoryMax"), ==, memory_max);
  g_assert_cmpuint (unit_property (bus, unit_path, "MemorySwapMax"), ==, 0);
  g_assert_cmpuint (unit_property (bus, unit_path, "TasksMax"), ==, 10);

  /* Whether the kernel enforces them depends on the controllers v2 has. */
  mem = group_file (group, "memory.max");
  pids = group_file (group, "pids.max");
  if (mem != NULL)
    g_assert_cmpstr (mem, ==, "314572800");
  else
    g_test_message ("no memory.max in %s: the memory controller is not enabled on cgroup v2 here "
                    "(on these machines it is bound to cgroup v1), so systemd records MemoryMax but the "
                    "kernel does not enforce it", group);
  if (pids != NULL)
    g_assert_cmpstr (pids, ==, "10");
  else
    g_test_message ("no pids.max in %s: no pids controller on cgroup v2 here", group);

  g_subprocess_force_exit (sleeper);
  g_subprocess_wait (sleeper, NULL, NULL);

  /* What a scope costs the start of a run: the sandbox waits that long. */
  {
    double ms[10];

    for (guint i = 0; i < G_N_ELEMENTS (ms); i++)
      {
        g_autoptr(GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_NONE, &error);
        g_autofree char *u = NULL;
        gint64 t0;

        g_assert_no_error (error);
        t0 = g_get_monotonic_time ();
        u = rk_user_scope_start_sync (atoi (g_subprocess_get_identifier (p)), memory_max, 10, NULL, &error);
        ms[i] = (g_get_monotonic_time () - t0) / 1000.0;
        g_assert_no_error (error);
        g_subprocess_force_exit (p);
        g_subprocess_wait (p, NULL, NULL);
      }
    qsort (ms, G_N_ELEMENTS (ms), sizeof ms[0], compare_doubles);
    g_test_message ("a scope took %.2f ms (median of %u; %.2f-%.2f ms)", (ms[4] + ms[5]) / 2,
                    (guint) G_N_ELEMENTS (ms), ms[0], ms[G_N_ELEMENTS (ms) - 1]);
  }
}

/* A process systemd cannot move (gone): an error, quickly, not a hang. */
static void
test_scope_refused (void)
{
  const char *argv[] = { "/bin/true", NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *unit = NULL;
  GPid pid;
  gint64 t0;

  if (!scope_ready ())
    return;
  /* Reaped by us, so its PID is known after it is gone. */
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
  t0 = g_get_monotonic_time ();
  unit = rk_user_scope_start_sync (pid, G_GUINT64_CONSTANT (1) << 30, 10, NULL, &error);
  g_test_message ("refused after %.2f ms: %s", (g_get_monotonic_time () - t0) / 1000.0,
                  error ? error->message : "(no error)");
  g_assert_null (unit);
  g_assert_nonnull (error);
  g_assert_false (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT));
}

/* The launcher: --start-fd only where a scope is possible; there the
 * sandbox runs inside its scope and the program runs. */
static void
test_launcher (void)
{
  const char *argv[] = { "/bin/cat", NULL };
  g_autofree char *ws = NULL;
  g_autofree char *cmdline = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkSandboxChild) child = NULL;
  g_autoptr(GBytes) out = NULL;
  RkSandboxSpec spec = { 0, };
  g_autoptr(RkWorkspace) handle = NULL;
  GSubprocess *proc;
  gboolean scope = have_v2 () && rk_user_scope_supported (NULL);
  GPid pid;

  if (rk_sandbox_launcher_get_backend () != RK_SANDBOX_BACKEND_USERNS)
    {
      g_test_skip ("the launcher's backend here is not userns");
      return;
    }
  ws = g_dir_make_tmp ("rk-user-scope-ws-XXXXXX", &error);
  g_assert_no_error (error);
  handle = rk_workspace_new (ws);
  spec.workspace = handle;
  spec.memory_bytes = G_GUINT64_CONSTANT (512) << 20;
  spec.tmp_size = G_GUINT64_CONSTANT (64) << 20;
  spec.max_procs = 8;
  spec.status_fd = -1;
  spec.flags = G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE;
  spec.argv = argv;
  child = rk_sandbox_launcher_spawn (&spec, &error);
  g_assert_no_error (error);
  proc = rk_sandbox_child_get_process (child);
  pid = atoi (g_subprocess_get_identifier (proc));
  cmdline = cmdline_of (pid);
  g_test_message ("reckon-sandbox %d: %s", (int) pid, cmdline);
  g_assert_nonnull (cmdline);
  if (!scope)
    g_assert_null (strstr (cmdline, "--start-fd"));
  else
    {
      g_autofree char *prefix = g_strdup_printf ("/app-reckon-sandbox-%d-", (int) pid);
      g_autofree char *group = NULL;

      g_assert_nonnull (strstr (cmdline, "--start-fd 10"));
      /* The program (cat) only runs once the sandbox is in its scope: its
       * echo below proves the byte came; the group, that it came after. */
      for (guint i = 0; i < 100; i++)
        {
          g_clear_pointer (&group, g_free);
          group = v2_group_of (pid);
          if (group != NULL && strstr (group, prefix) != NULL)
            break;
          g_usleep (50000);
        }
      g_test_message ("reckon-sandbox %d is in %s", (int) pid, group);
      g_assert_nonnull (strstr (group, prefix));
    }
  {
    g_autoptr(GBytes) in = g_bytes_new_static ("ran\n", 4);
    g_assert_true (g_subprocess_communicate (proc, in, NULL, &out, NULL, &error));
    g_assert_no_error (error);
  }
  g_assert_cmpint (rk_sandbox_launcher_exit_status (proc), ==, 0);
  g_assert_cmpmem (g_bytes_get_data (out, NULL), g_bytes_get_size (out), "ran\n", 4);
  g_rmdir (ws);
}

/* A session bus that accepts and never answers (a socket of ours): the run
 * goes on after RK_USER_SCOPE_TIMEOUT_MS, without a scope; later runs of the
 * process do not wait again. In a subprocess: the bus connection is the
 * process's one. */
static void
test_hung_bus (void)
{
  if (!scope_ready ())
    return;
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDOUT);
      g_test_trap_assert_passed ();
      return;
    }
  {
    const char *argv[] = { "/bin/cat", NULL };
    g_autoptr(GError) error = NULL;
    g_autofree char *dir = g_dir_make_tmp ("rk-user-scope-XXXXXX", NULL);
    g_autofree char *sock_path = g_build_filename (dir, "bus", NULL);
    g_autofree char *address = g_strdup_printf ("unix:path=%s", sock_path);
    g_autofree char *ws = g_dir_make_tmp ("rk-user-scope-ws-XXXXXX", NULL);
    g_autoptr(GSocket) listener = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM,
                                                G_SOCKET_PROTOCOL_DEFAULT, NULL);
    g_autoptr(GSocketAddress) addr = g_unix_socket_address_new (sock_path);
    g_autoptr(RkSandboxChild) child = NULL;
    g_autoptr(GBytes) in = g_bytes_new_static ("ran\n", 4);
    g_autoptr(GBytes) out = NULL;
    g_autofree char *unit = NULL;
    RkSandboxSpec spec = { 0, };
    g_autoptr(RkWorkspace) handle = NULL;
    GSubprocess *proc;
    gint64 t0;

    g_assert_true (g_socket_bind (listener, addr, TRUE, &error));
    g_assert_true (g_socket_listen (listener, &error));
    g_setenv ("DBUS_SESSION_BUS_ADDRESS", address, TRUE);
    _rk_sandbox_launcher_reset_for_tests ();

    handle = rk_workspace_new (ws);
    spec.workspace = handle;
    spec.status_fd = -1;
    spec.flags = G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE;
    spec.argv = argv;
    t0 = g_get_monotonic_time ();
    child = rk_sandbox_launcher_spawn (&spec, &error);
    g_assert_no_error (error);
    proc = rk_sandbox_child_get_process (child);
    g_assert_true (g_subprocess_communicate (proc, in, NULL, &out, NULL, &error));
    g_assert_no_error (error);
    /* (g_test_message is quiet in a test subprocess.) */
    g_print ("# with a bus that never answers the run ended after %.0f ms\n",
             (g_get_monotonic_time () - t0) / 1000.0);
    g_assert_cmpint (rk_sandbox_launcher_exit_status (proc), ==, 0);
    g_assert_cmpmem (g_bytes_get_data (out, NULL), g_bytes_get_size (out), "ran\n", 4);

    t0 = g_get_monotonic_time ();
    unit = rk_user_scope_start_sync (getpid (), G_GUINT64_CONSTANT (1) << 30, 10, NULL, &error);
    g_print ("# the next request failed after %.2f ms: %s\n", (g_get_monotonic_time () - t0) / 1000.0,
             error ? error->message : "(no error)");
    g_assert_null (unit);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
    g_rmdir (ws);
  }
}

/* A session bus without a user manager on it (a private dbus-daemon, which
 * starts nothing): NOT_SUPPORTED, at once. In a subprocess: the bus
 * connection is the process's one. */
static void
test_no_manager (void)
{
  if (!scope_ready ())
    return;
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDOUT);
      g_test_trap_assert_passed ();
      return;
    }
  {
    g_autoptr(GTestDBus) bus = g_test_dbus_new (G_TEST_DBUS_NONE);
    g_autoptr(GError) error = NULL;
    g_autofree char *unit = NULL;
    gint64 t0;

    g_test_dbus_up (bus);
    t0 = g_get_monotonic_time ();
    unit = rk_user_scope_start_sync (getpid (), G_GUINT64_CONSTANT (1) << 30, 10, NULL, &error);
    g_print ("# with no user manager on the bus: %.2f ms: %s\n", (g_get_monotonic_time () - t0) / 1000.0,
             error ? error->message : "(no error)");
    g_assert_null (unit);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
    g_test_dbus_down (bus);
  }
}

/* Freeing the run while its scope is still being asked for (a bus that
 * never answers holds the request for 3 s) closes the start socket: the
 * sandbox exits as a setup failure and the program never runs. */
static void
test_freed_before_answer (void)
{
  if (!scope_ready ())
    return;
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDOUT);
      g_test_trap_assert_passed ();
      return;
    }
  {
    const char *argv[] = { "/bin/sh", "-c", "echo ran", NULL };
    g_autoptr(GError) error = NULL;
    g_autofree char *dir = g_dir_make_tmp ("rk-user-scope-XXXXXX", NULL);
    g_autofree char *sock_path = g_build_filename (dir, "bus", NULL);
    g_autofree char *address = g_strdup_printf ("unix:path=%s", sock_path);
    g_autofree char *ws = g_dir_make_tmp ("rk-user-scope-ws-XXXXXX", NULL);
    g_autoptr(GSocket) listener = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM,
                                                G_SOCKET_PROTOCOL_DEFAULT, NULL);
    g_autoptr(GSocketAddress) addr = g_unix_socket_address_new (sock_path);
    g_autoptr(GSubprocess) proc = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    RkSandboxChild *child;
    RkSandboxSpec spec = { 0, };
    g_autoptr(RkWorkspace) handle = NULL;
    gint64 t0;

    g_assert_true (g_socket_bind (listener, addr, TRUE, &error));
    g_assert_true (g_socket_listen (listener, &error));
    g_setenv ("DBUS_SESSION_BUS_ADDRESS", address, TRUE);
    _rk_sandbox_launcher_reset_for_tests ();

    handle = rk_workspace_new (ws);
    spec.workspace = handle;
    spec.status_fd = -1;
    spec.flags = G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE;
    spec.argv = argv;
    t0 = g_get_monotonic_time ();
    child = rk_sandbox_launcher_spawn (&spec, &error);
    g_assert_no_error (error);
    proc = g_object_ref (rk_sandbox_child_get_process (child));
    rk_sandbox_child_free (child);
    g_assert_true (g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, &err, &error));
    g_assert_no_error (error);
    g_print ("# freed at once, the sandbox exited %d after %.1f ms: %s", rk_sandbox_launcher_exit_status (proc),
             (g_get_monotonic_time () - t0) / 1000.0, err);
    g_assert_cmpint (rk_sandbox_launcher_exit_status (proc), ==, 125);
    g_assert_cmpstr (err, ==, "reckon-sandbox: the caller is gone: --start-fd closed before the start byte\n");
    g_assert_cmpstr (out, ==, "");
    g_rmdir (ws);
  }
}

/* What the scope adds to a whole run (/bin/true through the launcher),
 * against reckon-sandbox started directly in the same place. Printed, never
 * asserted. */
static void
test_spawn_cost (void)
{
  const char *argv[] = { "/bin/true", NULL };
  g_autofree char *ws = NULL;
  double with[9], without[9];

  if (!scope_ready ())
    return;
  ws = g_dir_make_tmp ("rk-user-scope-ws-XXXXXX", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (with); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RkSandboxChild) child = NULL;
      g_autoptr(GSubprocess) direct = NULL;
      RkSandboxSpec spec = { 0, };
      g_autoptr(RkWorkspace) handle = NULL;
      gint64 t0 = g_get_monotonic_time ();

      handle = rk_workspace_new (ws);
      spec.workspace = handle;
      spec.status_fd = -1;
      spec.flags = G_SUBPROCESS_FLAGS_NONE;
      spec.argv = argv;
      child = rk_sandbox_launcher_spawn (&spec, &error);
      g_assert_no_error (error);
      g_assert_true (g_subprocess_wait (rk_sandbox_child_get_process (child), NULL, &error));
      g_assert_cmpint (rk_sandbox_launcher_exit_status (rk_sandbox_child_get_process (child)), ==, 0);
      with[i] = (g_get_monotonic_time () - t0) / 1000.0;

      t0 = g_get_monotonic_time ();
      /* The launcher's command line but --start-fd. */
      direct = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, rk_sandbox_path (), "--workspace", ws,
                                 "--ro-bind", rk_kernel_dir (), "/opt/reckon/kernel", "--", "/bin/true", NULL);
      g_assert_no_error (error);
      g_assert_true (g_subprocess_wait (direct, NULL, &error));
      g_assert_cmpint (rk_sandbox_launcher_exit_status (direct), ==, 0);
      without[i] = (g_get_monotonic_time () - t0) / 1000.0;
    }
  qsort (with, G_N_ELEMENTS (with), sizeof with[0], compare_doubles);
  qsort (without, G_N_ELEMENTS (without), sizeof without[0], compare_doubles);
  g_test_message ("/bin/true through the launcher with a scope: %.1f ms, the same command without "
                  "--start-fd: %.1f ms "
                  "(medians of %u, %.2fx)", with[4], without[4], (guint) G_N_ELEMENTS (with), with[4] / without[4]);
  g_rmdir (ws);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/user-scope/not-supported", test_not_supported);
  g_test_add_func ("/rk/user-scope/scope", test_scope);
  g_test_add_func ("/rk/user-scope/refused", test_scope_refused);
  g_test_add_func ("/rk/user-scope/launcher", test_launcher);
  g_test_add_func ("/rk/user-scope/no-manager", test_no_manager);
  g_test_add_func ("/rk/user-scope/hung-bus", test_hung_bus);
  g_test_add_func ("/rk/user-scope/freed-before-answer", test_freed_before_answer);
  g_test_add_func ("/rk/user-scope/spawn-cost", test_spawn_cost);
  return g_test_run ();
}
