/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-sandbox-launcher.c — rk-sandbox-launcher: the backend chosen once,
 * paths inside per backend, no code run without a backend, and the readers
 * of the sandbox's status line, stderr and --sync-fd answers against
 * hostile bytes. */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "rk-sandbox-launcher.h"
#include "rk-util.h"

static void
test_find_limit (void)
{
  gint64 ex, sig;
  g_autofree char *long_limit = g_strnfill (64, 'x');
  g_autofree char *long_status = g_strdup_printf ("{\"signal\": 9, \"limit\": \"%s\"}\n", long_limit);
  static const char bad_utf8[] = "{\"signal\": 9, \"limit\": \"m\xff\"}\n";
  static const char two[] = "{\"signal\": 24, \"limit\": \"cpu\"}\n{\"limit\": \"x\"}";

  g_assert_cmpint (rk_sandbox_launcher_find_limit ("{\"signal\": 9, \"limit\": \"disk\"}\n", 31, NULL, &ex, &sig),
                   ==, RK_SANDBOX_LIMIT_DISK);
  g_assert_cmpint (sig, ==, 9);
  g_assert_cmpint (ex, ==, -1);

  g_assert_cmpint (rk_sandbox_launcher_find_limit ("{\"exit\": 3}\n", 12, "", &ex, &sig), ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_cmpint (ex, ==, 3);
  g_assert_cmpint (sig, ==, -1);

  /* Only the status line's first line counts; junk after it is ignored. */
  g_assert_cmpint (rk_sandbox_launcher_find_limit (two, sizeof two - 1, NULL, NULL, NULL), ==, RK_SANDBOX_LIMIT_CPU);
  /* A name the host does not know is still a limit. */
  g_assert_cmpint (rk_sandbox_launcher_find_limit ("{\"limit\": \"x\"}", 14, NULL, NULL, NULL), ==, RK_SANDBOX_LIMIT_UNKNOWN);

  /* Hostile: not JSON, wrong types, a limit too long or not UTF-8. */
  g_assert_cmpint (rk_sandbox_launcher_find_limit ("{\"limit\": 7}", 12, NULL, NULL, NULL), ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_cmpint (rk_sandbox_launcher_find_limit ("[\"limit\"]", 9, NULL, NULL, NULL), ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_cmpint (rk_sandbox_launcher_find_limit ("{{{{", 4, NULL, NULL, NULL), ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_cmpint (rk_sandbox_launcher_find_limit (long_status, strlen (long_status), NULL, NULL, NULL), ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_cmpint (rk_sandbox_launcher_find_limit (bad_utf8, sizeof bad_utf8 - 1, NULL, NULL, NULL), ==, RK_SANDBOX_LIMIT_NONE);

  /* The stderr line, when the status line says nothing. */
  g_assert_cmpint (rk_sandbox_launcher_find_limit (NULL, 0, "noise\nreckon-sandbox: stopped: files limit exceeded (100000)\n",
                                                   NULL, NULL), ==, RK_SANDBOX_LIMIT_FILES);
  g_assert_cmpint (rk_sandbox_launcher_find_limit ("", 0, "reckon-sandbox: stopped:  limit exceeded\n", NULL, NULL),
                   ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_cmpint (rk_sandbox_launcher_find_limit ("", 0, "reckon-sandbox: stopped: timeout", NULL, NULL),
                   ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_cmpint (rk_sandbox_launcher_find_limit ("", 0, "reckon-sandbox: stopped: \xff limit exceeded\n", NULL, NULL),
                   ==, RK_SANDBOX_LIMIT_NONE);
}

static void
test_parse_answer (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *long_error = g_strdup_printf ("{\"id\": 1, \"saved\": false, \"error\": \"%0*d\"}", 513, 0);
  static const char bad_utf8[] = "{\"id\": 1, \"saved\": false, \"error\": \"no \xff\"}";
  const char *hostile[] = {
    "", "{", "[true]", "{\"id\": 1, \"saved\": 1}", "{\"id\": 1, \"loaded\": true}",
    "{\"id\": 1, \"saved\": true, \"error\": 7}",
    /* issue 18: an answer without its request's number, or with a bad one */
    "{\"saved\": true}", "{\"id\": 0, \"saved\": true}", "{\"id\": -3, \"saved\": true}",
    "{\"id\": \"1\", \"saved\": true}", "{\"id\": 1.5, \"saved\": true}", NULL,
  };
  gboolean ok = TRUE;
  guint64 id = 0;

#define PARSE(text, key) \
  rk_sandbox_launcher_parse_answer (text, strlen (text), key, &id, &ok, &reason, &error)

  g_assert_true (PARSE ("{\"id\": 1, \"saved\": true}", "saved"));
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpuint (id, ==, 1);
  g_assert_null (reason);

  g_assert_true (PARSE ("{\"id\": 7, \"loaded\": false, \"error\": \"not added a.csv: File exists\"}", "loaded"));
  g_assert_cmpuint (id, ==, 7);
  g_assert_false (ok);
  g_assert_cmpstr (reason, ==, "not added a.csv: File exists");
  g_clear_pointer (&reason, g_free);

  /* Hostile: not an object, the wrong member or type, a reason too long or
   * not UTF-8. Each is refused, with nothing returned. */
  for (guint i = 0; hostile[i] != NULL; i++)
    {
      g_assert_false (PARSE (hostile[i], "saved"));
      g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
      g_assert_false (ok);
      g_assert_cmpuint (id, ==, 0);
      g_assert_null (reason);
      g_clear_error (&error);
    }
  g_assert_false (PARSE (long_error, "saved"));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_assert_null (reason);
  g_clear_error (&error);
  g_assert_false (rk_sandbox_launcher_parse_answer (bad_utf8, sizeof bad_utf8 - 1, "saved", &id, &ok, &reason, &error));
  g_assert_null (reason);
  g_clear_error (&error);
#undef PARSE
}

static void
test_setup_reason (void)
{
  g_autofree char *a = rk_sandbox_launcher_setup_reason ("x\nreckon-sandbox: first\nreckon-sandbox: cannot open the workspace /w: No such file\n");
  g_autofree char *b = rk_sandbox_launcher_setup_reason ("reckon-sandbox: stopped: disk limit exceeded (1)\n");
  g_autofree char *ys = g_strnfill (500, 'y');
  g_autofree char *long_line = g_strconcat ("reckon-sandbox: ", ys, NULL);
  g_autofree char *c = rk_sandbox_launcher_setup_reason (long_line);

  g_assert_cmpstr (a, ==, "cannot open the workspace /w: No such file");
  g_assert_null (b);
  g_assert_cmpuint (g_utf8_strlen (c, -1), ==, 200);
  g_assert_null (rk_sandbox_launcher_setup_reason ("reckon-sandbox: \xfe\xff\n"));
  g_assert_null (rk_sandbox_launcher_setup_reason (NULL));
  g_assert_null (rk_sandbox_launcher_setup_reason ("nothing here"));
}

/* A folder with an executable "flatpak-spawn" that does nothing. */
static char *
fake_flatpak_spawn_dir (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rk-launcher-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "flatpak-spawn", NULL);

  g_assert_true (g_file_set_contents (path, "#!/bin/sh\nexit 99\n", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
  return g_steal_pointer (&dir);
}

static void
test_backend_flatpak (void)
{
  g_autofree char *info_dir = g_dir_make_tmp ("rk-launcher-info-XXXXXX", NULL);
  g_autofree char *info = g_build_filename (info_dir, "flatpak-info", NULL);
  g_autofree char *bin = fake_flatpak_spawn_dir ();
  g_autoptr(RkWorkspace) fake = rk_workspace_new ("/home/u/ws");
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  g_autofree char *kpath = NULL, *wpath = NULL;

  g_assert_true (g_file_set_contents (info, "[Application]\nname=test\n", -1, NULL));
  g_setenv ("RECKON_TEST_FLATPAK_INFO", info, TRUE);

  /* In a Flatpak without flatpak-spawn: nothing works, and it says why. */
  g_setenv ("PATH", "/nonexistent", TRUE);
  _rk_sandbox_launcher_reset_for_tests ();
  g_assert_cmpint (rk_sandbox_launcher_get_backend (), ==, RK_SANDBOX_BACKEND_NONE);
  g_assert_cmpstr (rk_sandbox_launcher_get_backend_name (), ==, "none");
  g_assert_nonnull (strstr (rk_sandbox_launcher_get_unavailable_reason (), "flatpak-spawn"));
  {
    const char *argv[] = { "/bin/true", NULL };
    RkSandboxSpec spec = { 0, };
    g_autoptr(GError) error = NULL;
    g_autoptr(RkWorkspace) ws = rk_workspace_new (info_dir);
    int fds[2];

    g_assert_cmpint (pipe (fds), ==, 0);
    spec.workspace = ws;
    spec.argv = argv;
    spec.status_fd = -1;
    spec.host_fds[0] = fds[1];
    spec.child_fds[0] = 3;
    spec.n_fds = 1;
    g_assert_null (rk_sandbox_launcher_spawn (&spec, &error));
    g_assert_error (error, RK_SANDBOX_LAUNCHER_ERROR, RK_SANDBOX_LAUNCHER_ERROR_NO_BACKEND);
    /* The launcher took the fd and closed it. */
    g_assert_cmpint (fcntl (fds[1], F_GETFD), ==, -1);
    close (fds[0]);
  }

  /* With flatpak-spawn on PATH: the flatpak backend, paths at their place. */
  g_setenv ("PATH", bin, TRUE);
  _rk_sandbox_launcher_reset_for_tests ();
  g_assert_cmpint (rk_sandbox_launcher_get_backend (), ==, RK_SANDBOX_BACKEND_FLATPAK);
  g_assert_cmpstr (rk_sandbox_launcher_get_backend_name (), ==, "flatpak");
  g_assert_null (rk_sandbox_launcher_get_unavailable_reason ());
  kpath = rk_sandbox_launcher_kernel_path ("reckon_kernel.py");
  g_assert_false (g_str_has_prefix (kpath, "/opt/reckon/kernel"));
  wpath = rk_sandbox_launcher_workspace_path (fake, "a.csv");
  g_assert_cmpstr (wpath, ==, "/home/u/ws/a.csv");

  g_setenv ("PATH", old_path, TRUE);
  g_unsetenv ("RECKON_TEST_FLATPAK_INFO");
  _rk_sandbox_launcher_reset_for_tests ();
  g_unlink (info);
  g_rmdir (info_dir);
  {
    g_autofree char *fs = g_build_filename (bin, "flatpak-spawn", NULL);
    g_unlink (fs);
    g_rmdir (bin);
  }
}

static void
test_backend_plain (void)
{
  g_autofree char *kpath = NULL, *wpath = NULL;
  g_autoptr(RkWorkspace) fake = rk_workspace_new ("/home/u/ws");

  g_unsetenv ("RECKON_TEST_FLATPAK_INFO");
  _rk_sandbox_launcher_reset_for_tests ();
  if (g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("running inside a Flatpak");
      return;
    }
  /* userns where user namespaces can be made, else none: never flatpak. */
  g_assert_cmpint (rk_sandbox_launcher_get_backend (), !=, RK_SANDBOX_BACKEND_FLATPAK);
  g_test_message ("backend here: %s", rk_sandbox_launcher_get_backend_name ());
  if (rk_sandbox_launcher_get_backend () == RK_SANDBOX_BACKEND_USERNS)
    {
      kpath = rk_sandbox_launcher_kernel_path ("reckon_kernel.py");
      wpath = rk_sandbox_launcher_workspace_path (fake, "a.csv");
      g_assert_cmpstr (kpath, ==, "/opt/reckon/kernel/reckon_kernel.py");
      g_assert_cmpstr (wpath, ==, "/workspace/a.csv");
    }
  else
    g_assert_nonnull (rk_sandbox_launcher_get_unavailable_reason ());
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/sandbox-launcher/find-limit", test_find_limit);
  g_test_add_func ("/rk/sandbox-launcher/setup-reason", test_setup_reason);
  g_test_add_func ("/rk/sandbox-launcher/parse-answer", test_parse_answer);
  g_test_add_func ("/rk/sandbox-launcher/backend/flatpak", test_backend_flatpak);
  g_test_add_func ("/rk/sandbox-launcher/backend/plain", test_backend_plain);

  return g_test_run ();
}
