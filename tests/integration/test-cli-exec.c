/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-cli-exec.c — `reckon-cli exec` end to end: real binary, real sandbox,
 * real kernel; output, exit statuses and the artifacts it copies out. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "rk-util.h"
#include "rk-workspace.h"

/* g_format_size() puts a no-break space before the unit. */
#define NBSP "\xc2\xa0"

typedef struct
{
  char *dir;        /* scratch folder: code, data, out/ */
} Fixture;

static char *
cli_path (void)
{
  return g_build_filename (g_getenv ("RECKON_BUILD_ROOT"), "src", "cli", "reckon-cli", NULL);
}

static gboolean
sandbox_usable (char **reason)
{
  const char *argv[] = { rk_sandbox_path (), "--workspace", NULL, "--", "/bin/true", NULL };
  g_autofree char *ws = g_dir_make_tmp ("rk-cli-exec-probe-XXXXXX", NULL);
  int status = 0;
  gboolean ok;

  argv[2] = ws;
  ok = g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, NULL) &&
       g_spawn_check_wait_status (status, NULL);
  g_rmdir (ws);
  if (!ok)
    *reason = g_strdup_printf ("reckon-sandbox (%s) cannot run a program here", rk_sandbox_path ());
  return ok;
}

static void
setup (Fixture       *f,
       gconstpointer  data)
{
  g_autofree char *reason = NULL;

  f->dir = NULL;
  if (!sandbox_usable (&reason))
    {
      g_test_skip (reason);
      return;
    }
  f->dir = g_dir_make_tmp ("rk-cli-exec-XXXXXX", NULL);
}

static void
teardown (Fixture       *f,
          gconstpointer  data)
{
  if (f->dir != NULL)
    rk_workspace_delete_folder (f->dir, NULL);
  g_free (f->dir);
}

/* Runs reckon-cli exec with @code; returns the exit status. */
static int
exec_code (Fixture     *f,
           const char  *code,
           const char **extra,
           char       **out,
           char       **err)
{
  g_autofree char *cli = cli_path ();
  g_autofree char *code_path = g_build_filename (f->dir, "code.py", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_true (g_file_set_contents (code_path, code, -1, NULL));
  g_ptr_array_add (argv, cli);
  g_ptr_array_add (argv, (char *) "exec");
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) extra[i]);
  g_ptr_array_add (argv, code_path);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (f->dir, (char **) argv->pdata, NULL, 0, NULL, NULL, out, err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
test_ok_and_artifacts (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *data_path = NULL, *out_dir = NULL, *csv = NULL, *png = NULL, *made = NULL;
  g_autofree char *contents = NULL;
  const char *extra[5];

  if (f->dir == NULL)
    return;
  data_path = g_build_filename (f->dir, "sales data.csv", NULL);
  g_assert_true (g_file_set_contents (data_path, "month,total\n1,10\n2,30\n", -1, NULL));
  out_dir = g_build_filename (f->dir, "out", NULL);
  extra[0] = "--file";
  extra[1] = data_path;
  extra[2] = "--out";
  extra[3] = out_dir;
  extra[4] = NULL;

  g_assert_cmpint (exec_code (f,
    "import pandas as pd, matplotlib.pyplot as plt, os\n"
    "sales = pd.read_csv('sales data.csv')\n"
    "print('rows', len(sales))\n"
    "plt.bar(sales.month, sales.total)\n"
    "os.makedirs('report', exist_ok=True)\n"
    "open('report/note.txt', 'w').write('done')\n"
    "sales\n", extra, &out, &err), ==, 0);
  g_test_message ("stdout: %s\nstderr: %s", out, err);
  g_assert_nonnull (strstr (out, "rows 2\n"));
  g_assert_nonnull (strstr (out, "total"));

  csv = g_build_filename (out_dir, "sales.csv", NULL);
  png = g_build_filename (out_dir, "figure-1.png", NULL);
  made = g_build_filename (out_dir, "report", "note.txt", NULL);
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_get_contents (made, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "done");
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (csv, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "month,total"));
}

static void
test_statuses (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *out = NULL, *err = NULL;
  const char *timeout[] = { "--timeout", "1", NULL };

  if (f->dir == NULL)
    return;
  g_assert_cmpint (exec_code (f, "raise ValueError('bad input')\n", NULL, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "ValueError: bad input"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* A sandbox limit is named in words after the bare exception, with its
   * size and the flag that raises it. */
  g_assert_cmpint (exec_code (f, "b = bytearray(3 << 30)\n", NULL, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "MemoryError"));
  g_assert_nonnull (strstr (err, "reckon: the cell reached the sandbox's “memory” limit (2.0" NBSP "GiB); "
                                 "run again with --memory 4G to raise it.\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (exec_code (f, "import os\nos._exit(3)\n", NULL, &out, &err), ==, 11);
  g_assert_nonnull (strstr (err, "status 3"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (exec_code (f, "print('start', flush=True)\nwhile True:\n    pass\n", timeout, &out, &err), ==, 12);
  g_assert_nonnull (strstr (out, "start"));
  g_assert_nonnull (strstr (err, "reckon: the cell reached the sandbox's “time” limit (1 second); "
                                 "run again with --timeout 2 to raise it.\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Usage errors. */
  {
    g_autofree char *cli = cli_path ();
    const char *argv[] = { cli, "exec", NULL };
    int status = 0;

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                                 NULL, NULL, NULL, NULL, &status, NULL));
    g_assert_cmpint (WEXITSTATUS (status), ==, 2);
  }
}

/* --memory, --disk and --timeout: each reaches the sandbox, and a cell that
 * hits one is told its size and the flag to run again with. */
static void
test_limit_flags (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *out = NULL, *err = NULL;
  const char *memory[] = { "--memory", "512M", NULL };
  const char *disk[] = { "--disk", "64M", NULL };
  const char *timeout[] = { "--timeout", "2", NULL };

  if (f->dir == NULL)
    return;

  /* 1 GiB passes the default 2 GiB but not 512 MiB. */
  g_assert_cmpint (exec_code (f, "b = bytearray(1 << 30)\nprint('made', len(b))\n", NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "made 1073741824"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (exec_code (f, "b = bytearray(1 << 30)\n", memory, &out, &err), ==, 1);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, "MemoryError"));
  g_assert_nonnull (strstr (err, "reckon: the cell reached the sandbox's “memory” limit (512.0" NBSP "MiB); "
                                 "run again with --memory 1G to raise it.\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* 100 MiB written under a 64 MiB disk limit. */
  g_assert_cmpint (exec_code (f,
    "with open('out.bin', 'wb') as f:\n"
    "    for i in range(100):\n"
    "        f.write(b'x' * (1 << 20))\n", disk, &out, &err), !=, 0);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, "reckon: the cell reached the sandbox's “disk” limit (64.0" NBSP "MiB); "
                                 "run again with --disk 128M to raise it.\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (exec_code (f, "import time\ntime.sleep(60)\n", timeout, &out, &err), ==, 12);
  g_assert_nonnull (strstr (err, "reckon: the cell reached the sandbox's “time” limit (2 seconds); "
                                 "run again with --timeout 4 to raise it.\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
}

/* An added file bigger than --disk: it is an input, never counted (issue
 * 16), so the cell runs. (What a workspace over its limit says, with the
 * --disk that holds it, is tested in tests/unit/test-limits.c.) */
static void
test_input_over_disk (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *big = NULL;
  g_autofree char *line = g_strnfill (1023, 'x');
  g_autoptr(GString) rows = g_string_new (NULL);
  const char *extra[] = { "--disk", "64M", "--file", NULL, NULL };

  if (f->dir == NULL)
    return;
  /* 100 MiB of real bytes, not a sparse file. */
  for (guint i = 0; i < 100 * 1024; i++)
    {
      g_string_append (rows, line);
      g_string_append_c (rows, '\n');
    }
  big = g_build_filename (f->dir, "big.csv", NULL);
  g_assert_true (g_file_set_contents (big, rows->str, (gssize) rows->len, NULL));
  extra[3] = big;

  g_assert_cmpint (exec_code (f, "import os\nprint('ran', os.path.getsize('big.csv'))\n", extra, &out, &err), ==, 0);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (out, "ran 104857600"));
  g_assert_null (strstr (err, "disk"));
}

/* Bad values: one sentence, status 2, nothing run. */
static void
test_limit_flags_usage (Fixture       *f,
                        gconstpointer  data)
{
  static const struct
  {
    const char *option;
    const char *value;
    const char *sentence;
  } cases[] = {
    { "--memory", "lots", "reckon-cli exec: --memory takes a size such as 512M or 4G, not “lots”.\n" },
    { "--memory", "64M", "reckon-cli exec: --memory must be between 256M and 64G.\n" },
    { "--memory", "4GB", NULL },
    { "--memory", "-1G", "reckon-cli exec: --memory takes a size such as 512M or 4G, not “-1G”.\n" },
    { "--disk", "2X", "reckon-cli exec: --disk takes a size such as 512M or 4G, not “2X”.\n" },
    { "--disk", "2T", "reckon-cli exec: --disk must be between 64M and 1024G.\n" },
    { "--disk", "99999999999999999999G", "reckon-cli exec: --disk takes a size such as 512M or 4G, not “99999999999999999999G”.\n" },
    { "--timeout", "0", "reckon-cli exec: --timeout must be between 1 and 86400 seconds.\n" },
    { "--timeout", "soon", "reckon-cli exec: --timeout takes a whole number of seconds, not “soon”.\n" },
  };

  if (f->dir == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *extra[] = { cases[i].option, cases[i].value, NULL };
      int status = exec_code (f, "print('ran')\n", extra, &out, &err);

      g_test_message ("%s %s: %d %s", cases[i].option, cases[i].value, status, err);
      if (cases[i].sentence == NULL)
        {
          g_assert_cmpint (status, ==, 0);
          continue;
        }
      g_assert_cmpint (status, ==, 2);
      g_assert_cmpstr (err, ==, cases[i].sentence);
      g_assert_cmpstr (out, ==, "");
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/rk/cli/exec/artifacts", Fixture, NULL, setup, test_ok_and_artifacts, teardown);
  g_test_add ("/rk/cli/exec/statuses", Fixture, NULL, setup, test_statuses, teardown);
  g_test_add ("/rk/cli/exec/limit-flags", Fixture, NULL, setup, test_limit_flags, teardown);
  g_test_add ("/rk/cli/exec/limit-flags-usage", Fixture, NULL, setup, test_limit_flags_usage, teardown);
  g_test_add ("/rk/cli/exec/input-over-disk", Fixture, NULL, setup, test_input_over_disk, teardown);

  return g_test_run ();
}
