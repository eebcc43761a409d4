/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-cli-models.c — `reckon-cli models` against reckon-mock-server, both
 * real programs: output, --json, and the documented exit statuses. */
#define G_LOG_DOMAIN "test-cli-models"
#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

typedef struct
{
  GSubprocess *server;
  char        *url;
  char        *dir;
} Mock;

static char *
build_path (const char *rel)
{
  const char *root = g_getenv ("RECKON_BUILD_ROOT");

  g_assert_nonnull (root);
  return g_build_filename (root, rel, NULL);
}

static void
mock_start (Mock       *mock,
            const char *script)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *exe = build_path ("tests/lib/reckon-mock-server");
  g_autofree char *path = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *line = NULL;

  mock->dir = g_dir_make_tmp ("rk-cli-models-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (mock->dir, "script.json", NULL);
  g_assert_true (g_file_set_contents (path, script, -1, NULL));
  mock->server = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, exe, path, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (mock->server));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  mock->url = g_strdup_printf ("http://127.0.0.1:%s", line);
  g_unlink (path);
}

static void
mock_stop (Mock *mock)
{
  g_subprocess_send_signal (mock->server, SIGTERM);
  g_subprocess_wait (mock->server, NULL, NULL);
  g_clear_object (&mock->server);
  g_rmdir (mock->dir);
  g_free (mock->dir);
  g_free (mock->url);
}

static int
run_cli (char      **out,
         char      **err,
         const char *first,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  va_list ap;

  g_ptr_array_add (argv, build_path ("src/cli/reckon-cli"));
  g_ptr_array_add (argv, g_strdup ("models"));
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, g_strdup (a));
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  proc = g_subprocess_newv ((const char * const *) argv->pdata,
                            G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, out, err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  return g_subprocess_get_exit_status (proc);
}

static void
test_list (void)
{
  Mock mock = { 0 };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  mock_start (&mock, "{\"models\":[{\"name\":\"qwen2.5-coder:7b\",\"tools\":true},{\"name\":\"gemma:2b\",\"tools\":false}]}");
  g_assert_cmpint (run_cli (&out, &err, "--endpoint", mock.url, NULL), ==, 0);
  g_assert_cmpstr (out, ==, "qwen2.5-coder:7b\ttools\ngemma:2b\tno-tools\n");
  g_assert_nonnull (strstr (err, "Ollama"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli (&out, &err, "--endpoint", mock.url, "--api", "openai", "--json", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\"name\" : \"gemma:2b\""));
  g_assert_nonnull (strstr (out, "\"tools\" : null"));
  mock_stop (&mock);
}

static void
test_exit_statuses (void)
{
  Mock mock = { 0 };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *dead = NULL;

  /* Started, then gone: the port is closed. */
  mock_start (&mock, "{}");
  dead = g_strdup (mock.url);
  mock_stop (&mock);
  g_assert_cmpint (run_cli (&out, &err, "--endpoint", dead, NULL), ==, 3);
  g_assert_nonnull (strstr (err, dead));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli (&out, &err, "--endpoint", "http://192.0.2.7:11434", NULL), ==, 3);
  g_assert_nonnull (strstr (err, "--allow-remote"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli (&out, &err, "--api", "grpc", NULL), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  mock_start (&mock, "{\"api\":\"openai\",\"health\":\"loading\"}");
  g_assert_cmpint (run_cli (&out, &err, "--endpoint", mock.url, NULL), ==, 7);
  g_assert_nonnull (strstr (err, "still loading"));
  mock_stop (&mock);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli (&out, &err, "--help", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Exit status"));
}

/* Issue 17: a model list nested 10^6 deep killed `reckon-cli models` (and
 * the window's model picker) with SIGSEGV in json-glib's recursion. */
static void
test_hostile_nesting (void)
{
  const char *apis[] = { "ollama", "openai" };

  for (guint i = 0; i < G_N_ELEMENTS (apis); i++)
    {
      Mock mock = { 0 };
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autofree char *deep = g_strnfill (1000000, '[');
      g_autofree char *script = g_strdup_printf ("{\"api\":\"%s\",\"bodies\":{\"%s\":\"%s\"}}", apis[i],
                                                 i == 0 ? "/api/tags" : "/v1/models", deep);

      mock_start (&mock, script);
      /* Probed (the list answers the probe), then named. */
      for (guint named = 0; named < 2; named++)
        {
          g_assert_cmpint (run_cli (&out, &err, "--endpoint", mock.url, "--api", named ? apis[i] : "auto", NULL), ==, 7);
          g_assert_cmpstr (out, ==, "");
          /* One line: the program's name and one sentence naming the server. */
          g_test_message ("%s", err);
          g_assert_true (g_str_has_prefix (err, "reckon-cli models: "));
          g_assert_nonnull (strstr (err, mock.url));
          if (named)
            g_assert_nonnull (strstr (err, "malformed model list"));
          g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
          g_clear_pointer (&out, g_free);
          g_clear_pointer (&err, g_free);
        }
      mock_stop (&mock);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/cli/models/list", test_list);
  g_test_add_func ("/rk/cli/models/exit-statuses", test_exit_statuses);
  g_test_add_func ("/rk/cli/models/hostile-nesting", test_hostile_nesting);
  return g_test_run ();
}
