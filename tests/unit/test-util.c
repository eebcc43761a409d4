/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-util.c — where reckon-sandbox and the kernel are found: the RECKON_*
 * override, the build tree with no variable set, and the missing-part message. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "rk-chart.h"
#include "rk-enum-types.h"
#include "rk-profile.h"
#include "rk-transcript-entry.h"
#include "rk-util.h"

/* The RECKON_* values the test environment set, kept before tests unset them. */
static char *env_sandbox;
static char *env_kernel_dir;

static void
unset_overrides (void)
{
  g_unsetenv ("RECKON_SANDBOX");
  g_unsetenv ("RECKON_KERNEL_DIR");
}

static void
restore_overrides (void)
{
  if (env_sandbox != NULL)
    g_setenv ("RECKON_SANDBOX", env_sandbox, TRUE);
  if (env_kernel_dir != NULL)
    g_setenv ("RECKON_KERNEL_DIR", env_kernel_dir, TRUE);
}

static void
test_override (void)
{
  g_setenv ("RECKON_SANDBOX", "/nonexistent/reckon-sandbox", TRUE);
  g_setenv ("RECKON_KERNEL_DIR", "/nonexistent/kernel", TRUE);
  g_assert_cmpstr (rk_sandbox_path (), ==, "/nonexistent/reckon-sandbox");
  g_assert_cmpstr (rk_kernel_dir (), ==, "/nonexistent/kernel");
  restore_overrides ();
}

static void
test_build_tree (void)
{
  const char *build = g_getenv ("RECKON_BUILD_ROOT");
  const char *source = g_getenv ("RECKON_SOURCE_ROOT");
  g_autofree char *sandbox = NULL;
  g_autofree char *kernel = NULL;
  g_autoptr(GError) error = NULL;

  if (build == NULL || source == NULL)
    {
      g_test_skip ("RECKON_BUILD_ROOT and RECKON_SOURCE_ROOT are not set (run through meson test)");
      return;
    }
  sandbox = g_build_filename (build, "sandbox", "reckon-sandbox", NULL);
  kernel = g_build_filename (source, "sandbox", "kernel", NULL);

  g_assert_cmpstr (rk_build_root (), ==, build);
  unset_overrides ();
  /* This test program lies beneath the build root, so the build tree wins. */
  g_assert_cmpstr (rk_sandbox_path (), ==, sandbox);
  g_assert_cmpstr (rk_kernel_dir (), ==, kernel);
  g_assert_true (rk_check_sandbox_parts (&error));
  g_assert_no_error (error);
  restore_overrides ();
}

static void
test_missing (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *empty = g_dir_make_tmp ("rk-util-XXXXXX", NULL);

  /* A missing sandbox: the message names it and where it looked. */
  g_setenv ("RECKON_SANDBOX", "/nonexistent/bin/reckon-sandbox", TRUE);
  g_assert_false (rk_check_sandbox_parts (&error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "/nonexistent/bin/reckon-sandbox"));
  g_assert_nonnull (strstr (error->message, "reckon-sandbox"));
  g_assert_null (strstr (error->message, "kernel"));
  g_assert_null (strchr (error->message, '\n'));
  g_clear_error (&error);
  restore_overrides ();

  /* A kernel folder without the kernel in it. */
  g_setenv ("RECKON_KERNEL_DIR", empty, TRUE);
  if (env_sandbox != NULL)
    {
      g_assert_false (rk_check_sandbox_parts (&error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
      g_assert_nonnull (strstr (error->message, "kernel"));
      g_assert_nonnull (strstr (error->message, empty));
      g_assert_null (strstr (error->message, "sandbox program"));
      g_clear_error (&error);
    }

  /* Both. */
  g_setenv ("RECKON_SANDBOX", "/nonexistent/bin/reckon-sandbox", TRUE);
  g_assert_false (rk_check_sandbox_parts (&error));
  g_assert_nonnull (strstr (error->message, "/nonexistent/bin/reckon-sandbox"));
  g_assert_nonnull (strstr (error->message, empty));
  g_clear_error (&error);

  restore_overrides ();
  g_rmdir (empty);
}

/* reckon-cli from the build tree, with no RECKON_* variable at all. */
static void
test_cli_without_env (void)
{
  const char *build = g_getenv ("RECKON_BUILD_ROOT");
  g_autofree char *cli = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) envp = NULL;
  g_autoptr(GError) error = NULL;
  const char *argv[4];
  int status = 0;

  if (build == NULL)
    {
      g_test_skip ("RECKON_BUILD_ROOT is not set (run through meson test)");
      return;
    }
  cli = g_build_filename (build, "src", "cli", "reckon-cli", NULL);
  if (!g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE) || env_sandbox == NULL
      || !g_file_test (env_sandbox, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("reckon-cli or reckon-sandbox is not built");
      return;
    }

  dir = g_dir_make_tmp ("rk-util-cli-XXXXXX", NULL);
  script = g_build_filename (dir, "hello.py", NULL);
  g_assert_true (g_file_set_contents (script, "print(6 * 7)\n", -1, NULL));

  envp = g_get_environ ();
  envp = g_environ_unsetenv (envp, "RECKON_SANDBOX");
  envp = g_environ_unsetenv (envp, "RECKON_KERNEL_DIR");
  envp = g_environ_unsetenv (envp, "RECKON_PYTHON");

  argv[0] = cli;
  argv[1] = "exec";
  argv[2] = script;
  argv[3] = NULL;
  g_assert_true (g_spawn_sync (dir, (char **) argv, envp, 0, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL) && strstr (err, "sandbox could not") != NULL)
    {
      g_autofree char *reason = g_strdup_printf ("the sandbox cannot run here: %s", err);
      g_test_skip (reason);
    }
  else
    {
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      g_assert_nonnull (strstr (out, "42"));
    }

  g_unlink (script);
  g_rmdir (dir);
}

/* Saved conversations, profiles and chart specs write these names, so they
 * are a file format: renaming an enum member must not change them. */
static void
test_enum_nicks (void)
{
  static const struct { GType (*type) (void); int value; const char *nick; } names[] = {
    { rk_entry_kind_get_type, RK_ENTRY_USER, "user" },
    { rk_entry_kind_get_type, RK_ENTRY_ASSISTANT, "assistant" },
    { rk_entry_kind_get_type, RK_ENTRY_REASONING, "reasoning" },
    { rk_entry_kind_get_type, RK_ENTRY_CODE, "code" },
    { rk_entry_kind_get_type, RK_ENTRY_APPROVAL, "approval" },
    { rk_entry_kind_get_type, RK_ENTRY_STREAM, "stream" },
    { rk_entry_kind_get_type, RK_ENTRY_RESULT, "result" },
    { rk_entry_kind_get_type, RK_ENTRY_TABLE, "table" },
    { rk_entry_kind_get_type, RK_ENTRY_FIGURE, "figure" },
    { rk_entry_kind_get_type, RK_ENTRY_CHART, "chart" },
    { rk_entry_kind_get_type, RK_ENTRY_FILE, "file" },
    { rk_entry_kind_get_type, RK_ENTRY_ERROR, "error" },
    { rk_entry_kind_get_type, RK_ENTRY_ANSWER, "answer" },
    { rk_entry_kind_get_type, RK_ENTRY_NOTE, "note" },
    { rk_entry_kind_get_type, RK_ENTRY_ATTACHMENT, "attachment" },
    { rk_decision_get_type, RK_DECISION_NONE, "none" },
    { rk_decision_get_type, RK_DECISION_APPROVED, "approved" },
    { rk_decision_get_type, RK_DECISION_EDITED, "edited" },
    { rk_decision_get_type, RK_DECISION_SKIPPED, "skipped" },
    { rk_decision_get_type, RK_DECISION_AUTO, "auto" },
    { rk_file_kind_get_type, RK_FILE_KIND_UNKNOWN, "unknown" },
    { rk_file_kind_get_type, RK_FILE_KIND_CSV, "csv" },
    { rk_file_kind_get_type, RK_FILE_KIND_TSV, "tsv" },
    { rk_file_kind_get_type, RK_FILE_KIND_XLSX, "xlsx" },
    { rk_file_kind_get_type, RK_FILE_KIND_XLS, "xls" },
    { rk_file_kind_get_type, RK_FILE_KIND_ODS, "ods" },
    { rk_file_kind_get_type, RK_FILE_KIND_PDF, "pdf" },
    { rk_file_kind_get_type, RK_FILE_KIND_TEXT, "text" },
    { rk_file_kind_get_type, RK_FILE_KIND_JSON, "json" },
    { rk_column_type_get_type, RK_COLUMN_EMPTY, "empty" },
    { rk_column_type_get_type, RK_COLUMN_INTEGER, "integer" },
    { rk_column_type_get_type, RK_COLUMN_FLOAT, "float" },
    { rk_column_type_get_type, RK_COLUMN_BOOLEAN, "boolean" },
    { rk_column_type_get_type, RK_COLUMN_DATE, "date" },
    { rk_column_type_get_type, RK_COLUMN_DATETIME, "datetime" },
    { rk_column_type_get_type, RK_COLUMN_TEXT, "text" },
    { rk_column_type_get_type, RK_COLUMN_MIXED, "mixed" },
    { rk_chart_kind_get_type, RK_CHART_KIND_LINE, "line" },
    { rk_chart_kind_get_type, RK_CHART_KIND_AREA, "area" },
    { rk_chart_kind_get_type, RK_CHART_KIND_BAR, "bar" },
    { rk_chart_kind_get_type, RK_CHART_KIND_SCATTER, "scatter" },
    { rk_chart_kind_get_type, RK_CHART_KIND_HISTOGRAM, "histogram" },
    { rk_chart_kind_get_type, RK_CHART_KIND_BOX, "box" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      GType type = names[i].type ();

      g_assert_cmpstr (rk_enum_to_nick (type, names[i].value, NULL), ==, names[i].nick);
      g_assert_cmpint (rk_enum_from_nick (type, names[i].nick, -1), ==, names[i].value);
    }

  /* Unknown values and names fall back rather than fail. */
  g_assert_cmpstr (rk_enum_to_nick (RK_TYPE_DECISION, 999, "none"), ==, "none");
  g_assert_cmpint (rk_enum_from_nick (RK_TYPE_DECISION, "Approved", -1), ==, -1);
  g_assert_cmpint (rk_enum_from_nick (RK_TYPE_DECISION, "", -1), ==, -1);
  g_assert_cmpint (rk_enum_from_nick (RK_TYPE_DECISION, NULL, -1), ==, -1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  env_sandbox = g_strdup (g_getenv ("RECKON_SANDBOX"));
  env_kernel_dir = g_strdup (g_getenv ("RECKON_KERNEL_DIR"));

  g_test_add_func ("/rk/util/discovery/override", test_override);
  g_test_add_func ("/rk/util/discovery/build-tree", test_build_tree);
  g_test_add_func ("/rk/util/discovery/missing", test_missing);
  g_test_add_func ("/rk/util/discovery/cli-without-env", test_cli_without_env);

  g_test_add_func ("/rk/util/enum-nicks", test_enum_nicks);

  return g_test_run ();
}
