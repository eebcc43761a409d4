/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-limits.c — rk-limits: sizes as people type them (and hostile ones),
 * seconds, the raised value a button offers, what fills a workspace and the
 * sentence of a kernel that cannot start over its disk limit. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "rk-limits.h"
#include "rk-workspace.h"

#define MIB (G_GUINT64_CONSTANT (1) << 20)
#define GIB (G_GUINT64_CONSTANT (1) << 30)

static void
test_parse_size (void)
{
  static const struct
  {
    const char *text;
    guint64     bytes;
  } good[] = {
    { "512M", 512 * MIB }, { "4G", 4 * GIB }, { "4g", 4 * GIB }, { "4GiB", 4 * GIB }, { "4GB", 4 * GIB },
    { "262144K", 256 * MIB }, { "268435456", 256 * MIB }, { "64G", 64 * GIB },
  };
  static const struct
  {
    const char   *text;
    RkLimitsError code;
  } bad[] = {
    { "", RK_LIMITS_ERROR_INVALID }, { "G", RK_LIMITS_ERROR_INVALID }, { "-1G", RK_LIMITS_ERROR_INVALID },
    { "+4G", RK_LIMITS_ERROR_INVALID }, { " 4G", RK_LIMITS_ERROR_INVALID }, { "4G ", RK_LIMITS_ERROR_INVALID },
    { "4 G", RK_LIMITS_ERROR_INVALID }, { "1.5G", RK_LIMITS_ERROR_INVALID }, { "4X", RK_LIMITS_ERROR_INVALID },
    { "4GiBB", RK_LIMITS_ERROR_INVALID }, { "0x10G", RK_LIMITS_ERROR_INVALID },
    { "18446744073709551616", RK_LIMITS_ERROR_INVALID },   /* 2^64 */
    { "17179869184G", RK_LIMITS_ERROR_INVALID },           /* 2^34 GiB overflows */
    { "4G\n", RK_LIMITS_ERROR_INVALID }, { "4\xff", RK_LIMITS_ERROR_INVALID },
    { "255M", RK_LIMITS_ERROR_RANGE }, { "65G", RK_LIMITS_ERROR_RANGE }, { "0", RK_LIMITS_ERROR_RANGE },
  };
  g_autoptr(GError) error = NULL;
  guint64 bytes = 0;

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_assert_true (rk_limits_parse_size (RK_SANDBOX_LIMIT_MEMORY, "--memory", good[i].text, &bytes, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (bytes, ==, good[i].bytes);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      bytes = 7;
      g_assert_false (rk_limits_parse_size (RK_SANDBOX_LIMIT_MEMORY, "--memory", bad[i].text, &bytes, &error));
      g_assert_error (error, RK_LIMITS_ERROR, (gint) bad[i].code);
      /* One sentence, naming the option; the value as typed, escaped. */
      g_assert_true (g_str_has_prefix (error->message, "--memory "));
      g_assert_true (g_str_has_suffix (error->message, "."));
      g_assert_null (strchr (error->message, '\n'));
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      g_assert_cmpuint (bytes, ==, 7);
      g_clear_error (&error);
    }
  g_assert_false (rk_limits_parse_size (RK_SANDBOX_LIMIT_MEMORY, "--memory", NULL, &bytes, &error));
  g_clear_error (&error);

  g_assert_false (rk_limits_parse_size (RK_SANDBOX_LIMIT_DISK, "--disk", "32M", &bytes, &error));
  g_assert_cmpstr (error->message, ==, "--disk must be between 64M and 1024G.");
  g_clear_error (&error);
  g_assert_true (rk_limits_parse_size (RK_SANDBOX_LIMIT_DISK, "--disk", "1024G", &bytes, NULL));
  g_assert_cmpuint (bytes, ==, 1024 * GIB);
}

static void
test_parse_seconds (void)
{
  g_autoptr(GError) error = NULL;
  guint64 secs = 0;

  g_assert_true (rk_limits_parse_seconds ("--timeout", "1", &secs, NULL));
  g_assert_cmpuint (secs, ==, 1);
  g_assert_true (rk_limits_parse_seconds ("--timeout", "86400", &secs, NULL));
  g_assert_cmpuint (secs, ==, 86400);
  g_assert_false (rk_limits_parse_seconds ("--timeout", "0", &secs, &error));
  g_assert_error (error, RK_LIMITS_ERROR, RK_LIMITS_ERROR_RANGE);
  g_clear_error (&error);
  g_assert_false (rk_limits_parse_seconds ("--timeout", "86401", &secs, &error));
  g_assert_error (error, RK_LIMITS_ERROR, RK_LIMITS_ERROR_RANGE);
  g_clear_error (&error);
  for (guint i = 0; i < 5; i++)
    {
      const char *bad[] = { "soon", "-5", "1.5", "", "99999999999999999999999" };

      g_assert_false (rk_limits_parse_seconds ("--timeout", bad[i], &secs, &error));
      g_assert_error (error, RK_LIMITS_ERROR, RK_LIMITS_ERROR_INVALID);
      g_clear_error (&error);
    }
}

static void
test_format_and_raise (void)
{
  g_autofree char *a = rk_limits_format_flag_size (4 * GIB);
  g_autofree char *b = rk_limits_format_flag_size (1536 * MIB);
  g_autofree char *c = rk_limits_format_flag_size (1000);
  guint64 ram_mib = rk_limits_machine_memory () / MIB;
  guint64 raised = 0;

  g_assert_cmpstr (a, ==, "4G");
  g_assert_cmpstr (b, ==, "1536M");
  g_assert_cmpstr (c, ==, "1000");

  g_assert_cmpstr (rk_sandbox_limit_settings_key (RK_SANDBOX_LIMIT_DISK), ==, "disk-limit");

  g_assert_true (rk_limits_raised (RK_SANDBOX_LIMIT_TIME, 120, &raised));
  g_assert_cmpuint (raised, ==, 240);
  g_assert_true (rk_limits_raised (RK_SANDBOX_LIMIT_TIME, 60000, &raised));
  g_assert_cmpuint (raised, ==, RK_LIMITS_TIME_MAX_S);
  g_assert_false (rk_limits_raised (RK_SANDBOX_LIMIT_TIME, RK_LIMITS_TIME_MAX_S, &raised));
  g_assert_true (rk_limits_raised (RK_SANDBOX_LIMIT_DISK, 1024, &raised));
  g_assert_cmpuint (raised, ==, MIN (2048, MAX (ram_mib, RK_LIMITS_DISK_MIN_MIB)));
  /* Memory: never past the RAM of this computer. */
  g_assert_true (ram_mib > 512);
  g_assert_true (rk_limits_raised (RK_SANDBOX_LIMIT_MEMORY, 256, &raised));
  g_assert_cmpuint (raised, ==, 512);
  g_assert_false (rk_limits_raised (RK_SANDBOX_LIMIT_MEMORY, ram_mib, &raised));
  g_assert_true (rk_limits_raised (RK_SANDBOX_LIMIT_MEMORY, ram_mib - 1, &raised));
  g_assert_cmpuint (raised, ==, MIN (ram_mib, RK_LIMITS_MEMORY_MAX_MIB));
}

static void
write_file (const char *dir,
            const char *name,
            gsize       size)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *data = g_malloc0 (size);

  g_assert_true (g_file_set_contents (path, data, (gssize) size, NULL));
}

/* RkSandboxLimit: every name the sandbox and the kernel write parses to
 * its limit and back; an unknown name stays a limit; each limit has its
 * sentences; the settable three map to their key, option and offer. */
static void
test_sandbox_limit (void)
{
  static const char *const names[] = { "memory", "disk", "time", "cpu", "timeout", "files", "file-size", "processes" };
  g_autofree char *label = NULL;
  g_autofree char *sentence = NULL;
  g_autofree char *minutes = NULL;
  g_autofree char *seconds = NULL;
  guint64 raised = 0;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      RkSandboxLimit limit = rk_sandbox_limit_from_name (names[i]);
      g_autofree char *describe = rk_sandbox_limit_describe (limit);
      g_autofree char *what = NULL, *todo = NULL;

      g_assert_cmpint (limit, >, RK_SANDBOX_LIMIT_NONE);
      g_assert_cmpint (limit, <, RK_SANDBOX_LIMIT_UNKNOWN);
      g_assert_cmpstr (rk_sandbox_limit_to_name (limit), ==, names[i]);
      g_assert_true (g_str_has_prefix (describe, "The cell was stopped because"));
      rk_sandbox_limit_explain (limit, 0, FALSE, &what, &todo);
      g_assert_nonnull (what);
      g_assert_nonnull (todo);
      g_assert_true ((rk_sandbox_limit_settings_key (limit) != NULL) == rk_sandbox_limit_is_settable (limit));
      g_assert_true ((rk_sandbox_limit_cli_option (limit) != NULL) == rk_sandbox_limit_is_settable (limit));
    }
  g_assert_cmpint (rk_sandbox_limit_from_name ("procs"), ==, RK_SANDBOX_LIMIT_PROCESSES);
  g_assert_cmpint (rk_sandbox_limit_from_name (NULL), ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_cmpint (rk_sandbox_limit_from_name (""), ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_cmpint (rk_sandbox_limit_from_name ("Memory"), ==, RK_SANDBOX_LIMIT_UNKNOWN);
  g_assert_cmpint (rk_sandbox_limit_from_name ("none"), ==, RK_SANDBOX_LIMIT_UNKNOWN);
  g_assert_cmpint (rk_sandbox_limit_from_name ("disk\x1b[2J"), ==, RK_SANDBOX_LIMIT_UNKNOWN);
  g_assert_null (rk_sandbox_limit_to_name (RK_SANDBOX_LIMIT_NONE));

  /* Errors nothing named: the exception's name, or an old transcript's detail;
   * a sentence is never read for English words. */
  g_assert_cmpint (rk_sandbox_limit_from_error ("MemoryError", NULL), ==, RK_SANDBOX_LIMIT_MEMORY);
  g_assert_cmpint (rk_sandbox_limit_from_error ("TimeLimitExceeded", ""), ==, RK_SANDBOX_LIMIT_TIME);
  g_assert_cmpint (rk_sandbox_limit_from_error ("CPUTimeLimitExceeded", NULL), ==, RK_SANDBOX_LIMIT_CPU);
  g_assert_cmpint (rk_sandbox_limit_from_error ("SandboxLimit", "files"), ==, RK_SANDBOX_LIMIT_FILES);
  g_assert_cmpint (rk_sandbox_limit_from_error ("SandboxLimit", "The cell was stopped because the workspace grew past its disk limit."),
                   ==, RK_SANDBOX_LIMIT_UNKNOWN);
  g_assert_cmpint (rk_sandbox_limit_from_error ("ValueError", "memory"), ==, RK_SANDBOX_LIMIT_NONE);

  g_assert_cmpstr (rk_sandbox_limit_settings_key (RK_SANDBOX_LIMIT_TIME), ==, "cell-time-limit");
  g_assert_cmpstr (rk_sandbox_limit_cli_option (RK_SANDBOX_LIMIT_MEMORY), ==, "--memory");
  g_assert_null (rk_sandbox_limit_settings_key (RK_SANDBOX_LIMIT_FILES));
  g_assert_cmpuint (rk_sandbox_limit_setting_value (RK_SANDBOX_LIMIT_DISK, 1024), ==, GIB);
  g_assert_cmpuint (rk_sandbox_limit_setting_value (RK_SANDBOX_LIMIT_TIME, 120), ==, 120);
  minutes = rk_sandbox_limit_format_value (RK_SANDBOX_LIMIT_TIME, 240);
  seconds = rk_sandbox_limit_format_value (RK_SANDBOX_LIMIT_TIME, 90);
  g_assert_cmpstr (minutes, ==, "4 minutes");
  g_assert_cmpstr (seconds, ==, "90 seconds");

  g_assert_true (rk_sandbox_limit_propose_raise (RK_SANDBOX_LIMIT_TIME, 120, &raised, &label));
  g_assert_cmpuint (raised, ==, 240);
  g_assert_cmpstr (label, ==, "Raise the time limit to 4 minutes and run again");
  g_assert_false (rk_sandbox_limit_propose_raise (RK_SANDBOX_LIMIT_FILES, 10, &raised, &label));
  g_assert_false (rk_sandbox_limit_propose_raise (RK_SANDBOX_LIMIT_TIME, RK_LIMITS_TIME_MAX_S, &raised, &label));
  sentence = rk_sandbox_limit_cli_sentence (RK_SANDBOX_LIMIT_DISK, 64);
  g_assert_cmpstr (sentence, ==, "the cell reached the sandbox's “disk” limit (64.0\u00a0MiB); run again with --disk 128M to raise it.");
  g_assert_null (rk_sandbox_limit_cli_sentence (RK_SANDBOX_LIMIT_CPU, 10));
}

static void
test_workspace_usage (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rk-limits-XXXXXX", NULL);
  g_autofree char *sub = g_build_filename (dir, "out", NULL);
  g_autofree char *link = g_build_filename (dir, "link", NULL);
  g_autofree char *message = NULL;
  g_autoptr(RkWorkspace) ws = NULL;
  RkWorkspaceUsage usage;

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  write_file (dir, "big.csv", 3 << 20);
  write_file (sub, "part.parquet", 1 << 20);
  write_file (dir, "tiny.txt", 10);
  /* A link is not followed: the file it names is not counted twice. */
  g_assert_cmpint (symlink ("big.csv", link), ==, 0);

  ws = rk_workspace_open (dir, NULL);
  rk_workspace_usage_measure (ws, NULL, 1000, &usage);
  g_assert_cmpuint (usage.total, ==, (3 << 20) + (1 << 20) + 10);
  g_assert_cmpstr (usage.largest[0], ==, "big.csv");
  g_assert_cmpstr (usage.largest[1], ==, "out/part.parquet");
  g_assert_cmpstr (usage.largest[2], ==, "tiny.txt");
  g_assert_false (usage.partial);
  g_assert_cmpuint (rk_workspace_usage_suggested_disk (&usage), ==, GIB);

  message = rk_workspace_usage_over_disk_message (&usage, 2 * MIB);
  g_test_message ("%s", message);
  /* One sentence: what fills it (not the 10-byte file), how far to raise. */
  g_assert_true (strstr (message, "“big.csv” (3.0\u00a0MiB), “out/part.parquet” (1.0\u00a0MiB); ") != NULL);
  g_assert_null (strstr (message, "tiny.txt"));
  g_assert_true (g_str_has_suffix (message, "to start it, raise the disk limit to 1.0\u00a0GiB."));
  g_assert_null (strstr (message, "delete some files first"));
  rk_workspace_usage_clear (&usage);

  /* The files the user added are inputs: the sandbox never counts them,
   * nor does this (a name at the top only: out/big.csv would count). */
  {
    const char *inputs[] = { "big.csv", "part.parquet", NULL };

    rk_workspace_usage_measure (ws, inputs, 1000, &usage);
    g_assert_cmpuint (usage.total, ==, (1 << 20) + 10);
    g_assert_cmpstr (usage.largest[0], ==, "out/part.parquet");
    rk_workspace_usage_clear (&usage);
  }

  /* The walk stops where it is told to. */
  rk_workspace_usage_measure (ws, NULL, 1, &usage);
  g_assert_true (usage.partial);
  rk_workspace_usage_clear (&usage);

  rk_workspace_delete_folder (dir, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/limits/parse-size", test_parse_size);
  g_test_add_func ("/rk/limits/parse-seconds", test_parse_seconds);
  g_test_add_func ("/rk/limits/format-and-raise", test_format_and_raise);
  g_test_add_func ("/rk/limits/sandbox-limit", test_sandbox_limit);
  g_test_add_func ("/rk/limits/workspace-usage", test_workspace_usage);

  return g_test_run ();
}
