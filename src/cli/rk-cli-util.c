/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-cli-util.c — what the subcommands of reckon-cli share: the one table of
 * exit statuses and its wording in --help. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "rk-cli.h"
#include "rk-limits.h"
#include "rk-text.h"
#include "rk-util.h"

static const struct
{
  RkCliExit   code;
  const char *meaning;
} exit_meanings[] = {
  { RK_CLI_EXIT_OK, N_("success") },
  { RK_CLI_EXIT_FAILURE, N_("the work failed (see each command)") },
  { RK_CLI_EXIT_USAGE, N_("wrong usage: an unknown option, a missing argument, or a named file or --out folder that cannot be used") },
  { RK_CLI_EXIT_UNREACHABLE, N_("no model server answers, or it is not on this computer and --allow-remote is not given") },
  { RK_CLI_EXIT_MODEL_MISSING, N_("the model named by --model is not on the server") },
  { RK_CLI_EXIT_CANCELLED, N_("cancelled (Ctrl+C)") },
  { RK_CLI_EXIT_STEP_LIMIT, N_("the model did not answer within --max-steps requests") },
  { RK_CLI_EXIT_MODEL_ERROR, N_("the model server failed (an HTTP error, a broken stream, a stall)") },
  { RK_CLI_EXIT_REPAIR_LIMIT, N_("the code kept failing after --max-repairs automatic repairs") },
  { RK_CLI_EXIT_DECLINED, N_("code was not run: “n”, or the end of input, at the approval prompt") },
  { RK_CLI_EXIT_SANDBOX, N_("the sandbox could not be started (the message names what is missing)") },
  { RK_CLI_EXIT_KERNEL_DIED, N_("the Python kernel died (a sandbox limit, a crash)") },
  { RK_CLI_EXIT_TIME_LIMIT, N_("the cell was stopped by --timeout") },
  { RK_CLI_EXIT_NOT_SAVED, N_("a result could not be saved in --out") },
};

static const char *
meaning_of (int code)
{
  for (guint i = 0; i < G_N_ELEMENTS (exit_meanings); i++)
    if ((int) exit_meanings[i].code == code)
      return _(exit_meanings[i].meaning);
  return "";
}

void
rk_cli_set_exit_help (GOptionContext *context,
                      const char     *failure,
                      ...)
{
  g_autoptr(GString) s = g_string_new (_("Exit status:"));
  va_list args;
  int code;

  g_string_append_printf (s, "\n  %2d  %s", RK_CLI_EXIT_OK, meaning_of (RK_CLI_EXIT_OK));
  if (failure != NULL)
    g_string_append_printf (s, "\n  %2d  %s", RK_CLI_EXIT_FAILURE, failure);
  va_start (args, failure);
  while ((code = va_arg (args, int)) >= 0)
    g_string_append_printf (s, "\n  %2d  %s", code, meaning_of (code));
  va_end (args);
  g_string_append (s, "\n");
  g_option_context_set_description (context, s->str);
}

char *
rk_cli_exit_table (void)
{
  GString *s = g_string_new (_("Exit status (each command lists those it uses):"));

  for (guint i = 0; i < G_N_ELEMENTS (exit_meanings); i++)
    g_string_append_printf (s, "\n  %2d  %s", exit_meanings[i].code, _(exit_meanings[i].meaning));
  g_string_append (s, "\n");
  return g_string_free (s, FALSE);
}

gboolean
rk_cli_parse_options (GOptionContext   *context,
                      const char       *command,
                      int              *argc,
                      char           ***argv)
{
  g_autoptr(GError) error = NULL;

  if (g_option_context_parse (context, argc, argv, &error))
    return TRUE;
  rk_cli_print (stderr, "reckon-cli %s: %s\n", command, error->message);
  return FALSE;
}

/* -- sessions -- */

gboolean
rk_cli_check_sandbox (GError **error)
{
  g_autoptr(GError) local_error = NULL;

  if (rk_check_sandbox_parts (&local_error))
    return TRUE;
  g_set_error (error, RK_KERNEL_ERROR, RK_KERNEL_ERROR_SPAWN,
               _("The sandbox could not be started: %s"), local_error->message);
  return FALSE;
}

RkSession *
rk_cli_session_new (const RkKernelLimits  *limits,
                    GError               **error)
{
  g_autoptr(RkSession) session = NULL;

  if (!rk_cli_check_sandbox (error))
    return NULL;
  session = rk_session_new (NULL, NULL, error);
  if (session == NULL)
    return NULL;
  rk_session_set_idle_timeout (session, 0);   /* a command ends, it does not idle */
  if (limits != NULL)
    rk_session_set_kernel_limits (session, limits);
  return g_steal_pointer (&session);
}

/* -- limits -- */

void
rk_cli_limit_options_clear (RkCliLimitOptions *options)
{
  g_clear_pointer (&options->memory, g_free);
  g_clear_pointer (&options->disk, g_free);
  g_clear_pointer (&options->timeout, g_free);
}

void
rk_cli_add_limit_options (GOptionContext    *context,
                          RkCliLimitOptions *options,
                          char               timeout_short)
{
  /* The options' names are the limits' own (rk_sandbox_limit_cli_option). */
  GOptionEntry entries[] = {
    { rk_sandbox_limit_cli_option (RK_SANDBOX_LIMIT_MEMORY) + 2, 0, 0, G_OPTION_ARG_STRING, &options->memory,
      N_("Memory the code may use, e.g. 512M or 4G (default 2G)"), N_("SIZE") },
    { rk_sandbox_limit_cli_option (RK_SANDBOX_LIMIT_DISK) + 2, 0, 0, G_OPTION_ARG_STRING, &options->disk,
      N_("Space the files in the workspace may take, e.g. 4G (default 1G)"), N_("SIZE") },
    { rk_sandbox_limit_cli_option (RK_SANDBOX_LIMIT_TIME) + 2, timeout_short, 0, G_OPTION_ARG_STRING, &options->timeout,
      N_("Stop a cell after SECONDS (default 120)"), N_("SECONDS") },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
}

gboolean
rk_cli_limits_parse (const RkCliLimitOptions  *options,
                     RkKernelLimits           *limits,
                     GError                  **error)
{
  memset (limits, 0, sizeof *limits);
  limits->memory_bytes = (guint64) RK_LIMITS_MEMORY_DEFAULT_MIB << 20;
  limits->disk_bytes = (guint64) RK_LIMITS_DISK_DEFAULT_MIB << 20;
  limits->cell_time_seconds = RK_LIMITS_TIME_DEFAULT_S;
  if (options->memory != NULL &&
      !rk_limits_parse_size (RK_SANDBOX_LIMIT_MEMORY, rk_sandbox_limit_cli_option (RK_SANDBOX_LIMIT_MEMORY), options->memory, &limits->memory_bytes, error))
    return FALSE;
  if (options->disk != NULL &&
      !rk_limits_parse_size (RK_SANDBOX_LIMIT_DISK, rk_sandbox_limit_cli_option (RK_SANDBOX_LIMIT_DISK), options->disk, &limits->disk_bytes, error))
    return FALSE;
  if (options->timeout != NULL &&
      !rk_limits_parse_seconds (rk_sandbox_limit_cli_option (RK_SANDBOX_LIMIT_TIME), options->timeout, &limits->cell_time_seconds, error))
    return FALSE;
  return TRUE;
}

char *
rk_cli_limit_sentence (const RkKernelLimits *limits,
                       RkSandboxLimit        limit)
{
  switch (limit)
    {
    case RK_SANDBOX_LIMIT_MEMORY:
      return rk_sandbox_limit_cli_sentence (limit, limits->memory_bytes >> 20);
    case RK_SANDBOX_LIMIT_DISK:
      return rk_sandbox_limit_cli_sentence (limit, limits->disk_bytes >> 20);
    case RK_SANDBOX_LIMIT_TIME:
      return rk_sandbox_limit_cli_sentence (limit, limits->cell_time_seconds);
    default:
      return NULL;
    }
}

void
rk_cli_wait (GAsyncResult **result)
{
  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);
}

void
rk_cli_keep_result_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

char *
rk_cli_session_add_file (RkSession   *session,
                         const char  *path,
                         GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  rk_session_add_file_async (session, path, NULL, rk_cli_keep_result_cb, &result);
  rk_cli_wait (&result);
  return rk_session_add_file_finish (session, result, error);
}

static void G_GNUC_PRINTF (2, 0)
print_va (FILE       *out,
          const char *format,
          va_list     args)
{
  g_autofree char *line = g_strdup_vprintf (format, args);
  g_autofree char *clean = rk_text_sanitize_for_terminal (line, RK_TEXT_SANITIZE_DEFAULT);

  fputs (clean, out);
}

void
rk_cli_print (FILE       *out,
              const char *format,
              ...)
{
  va_list args;

  va_start (args, format);
  print_va (out, format, args);
  va_end (args);
}

int
rk_cli_fail (int         status,
             const char *format,
             ...)
{
  va_list args;

  va_start (args, format);
  print_va (stderr, format, args);
  va_end (args);
  return status;
}

void
rk_cli_print_untrusted (FILE       *out,
                        const char *text)
{
  g_autofree char *clean = rk_text_sanitize_for_terminal (text, RK_TEXT_SANITIZE_DEFAULT);

  if (clean != NULL)
    fputs (clean, out);
}

char *
rk_cli_name (const char *text)
{
  return rk_text_sanitize_for_terminal (text, RK_TEXT_SANITIZE_SINGLE_LINE);
}

char *
rk_cli_result_label (RkCliResultCount    *count,
                     const RkKernelEvent *ev)
{
  g_autofree char *name = NULL;

  switch (ev->type)
    {
    case RK_KERNEL_EVENT_TABLE:
      count->tables++;
      if (ev->name == NULL || ev->name[0] == '\0')
        return g_strdup_printf (_("table %u: %" PRId64 " rows × %" PRId64 " columns"),
                                count->tables, ev->rows, ev->columns);
      name = rk_cli_name (ev->name);
      return g_strdup_printf (_("table “%s”: %" PRId64 " rows × %" PRId64 " columns"),
                              name, ev->rows, ev->columns);
    case RK_KERNEL_EVENT_FIGURE:
      count->figures++;
      return g_strdup_printf (_("figure %u: %" PRId64 "×%" PRId64), count->figures, ev->width, ev->height);
    case RK_KERNEL_EVENT_CHART:
      count->charts++;
      if (ev->title == NULL || ev->title[0] == '\0')
        return g_strdup_printf (_("chart %u"), count->charts);
      name = rk_cli_name (ev->title);
      return g_strdup_printf (_("chart “%s”"), name);
    default:
      return NULL;
    }
}

void
rk_cli_hint_out (guint n_results)
{
  if (n_results == 0)
    return;
  rk_cli_print (stderr, g_dngettext (GETTEXT_PACKAGE,
                                "reckon: %u result was not kept (the workspace is deleted at the end); add --out DIR to save it.\n",
                                "reckon: %u results were not kept (the workspace is deleted at the end); add --out DIR to save them.\n",
                                n_results),
           n_results);
}

gboolean
rk_cli_check_out_dir (const char  *out_dir,
                      GError     **error)
{
  g_autofree char *probe = NULL;
  int fd;

  if (g_file_test (out_dir, G_FILE_TEST_EXISTS) && !g_file_test (out_dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                   _("--out “%s” is a file; name a folder (it is created if missing)."), out_dir);
      return FALSE;
    }
  if (g_mkdir_with_parents (out_dir, 0755) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("--out “%s” cannot be created: %s."), out_dir, g_strerror (errsv));
      return FALSE;
    }
  /* Writable for real (modes, read-only mounts, quotas), not as access() guesses. */
  probe = g_build_filename (out_dir, ".reckon-probe-XXXXXX", NULL);
  fd = g_mkstemp (probe);
  if (fd < 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("--out “%s” cannot be written: %s."), out_dir, g_strerror (errsv));
      return FALSE;
    }
  close (fd);
  g_unlink (probe);
  return TRUE;
}

/* -- model server errors, in the CLI's own terms -- */

int
rk_cli_exit_for_model_error (const GError *error)
{
  if (error == NULL)
    return RK_CLI_EXIT_OK;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return RK_CLI_EXIT_CANCELLED;
  if (error->domain != RK_MODEL_ERROR)
    return RK_CLI_EXIT_FAILURE;
  switch (error->code)
    {
    case RK_MODEL_ERROR_UNREACHABLE:
    case RK_MODEL_ERROR_REMOTE_REFUSED:   /* as `ask` does: Reckon will not reach it */
      return RK_CLI_EXIT_UNREACHABLE;
    case RK_MODEL_ERROR_MODEL_MISSING:
      return RK_CLI_EXIT_MODEL_MISSING;
    case RK_MODEL_ERROR_CANCELLED:
      return RK_CLI_EXIT_CANCELLED;
    default:
      return RK_CLI_EXIT_MODEL_ERROR;
    }
}

/* What `ask` and `models` try when no --endpoint is given (as their --help says). */
const char * const rk_cli_default_endpoints[] = {
  "http://127.0.0.1:11434", "http://127.0.0.1:8080", "http://127.0.0.1:1234", NULL
};

gboolean
rk_cli_parse_api (const char  *api,
                  RkModelApi  *out,
                  GError     **error)
{
  static const char * const words[] = { "auto", "openai", "ollama", NULL };   /* RkModelApi's order */

  for (int i = 0; words[i] != NULL; i++)
    if (api == NULL || g_strcmp0 (api, words[i]) == 0)
      {
        *out = (RkModelApi) i;
        return TRUE;
      }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               _("--api takes auto, openai or ollama, not “%s”."), api);
  return FALSE;
}

RkModelClient *
rk_cli_model_client_new (const char *endpoint,
                         RkModelApi  api,
                         gboolean    allow_remote)
{
  RkModelClient *client = rk_model_client_new ();
  const char *key = g_getenv ("RECKON_API_KEY");

  rk_model_client_set_endpoint (client, endpoint);
  if (endpoint == NULL)
    rk_model_client_set_candidates (client, rk_cli_default_endpoints);
  if (key != NULL && key[0] != '\0')
    rk_model_client_set_api_key (client, key);
  rk_model_client_set_api (client, api);
  rk_model_client_set_allow_remote (client, allow_remote);
  return client;
}

/* The message without its last clause ("...; check the API key in
 * Preferences."), for a hint of the CLI's own. */
static char *
without_last_clause (const char *message)
{
  const char *semicolon = strrchr (message, ';');

  return semicolon != NULL ? g_strndup (message, semicolon - message) : g_strdup (message);
}

char *
rk_cli_model_error_message (const GError *error,
                            const char   *endpoint,
                            RkModelApi    api)
{
  if (g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_REMOTE_REFUSED))
    return g_strdup_printf (_("%s is not on this computer; Reckon sends your data only to a model server on this computer unless you add --allow-remote."),
                            endpoint != NULL ? endpoint : _("The model server"));
  if (g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE) && endpoint == NULL)
    {
      g_autofree char *tried = g_strjoinv (", ", (char **) rk_cli_default_endpoints);

      return g_strdup_printf (_("No model server answers on this computer (tried %s); start Ollama, llama-server or LM Studio, or name the server with --endpoint URL."),
                              tried);
    }
  if (g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP)
      && (strstr (error->message, "HTTP 401") != NULL || strstr (error->message, "HTTP 403") != NULL))
    {
      g_autofree char *head = without_last_clause (error->message);

      return g_strdup_printf (_("%s; put the server's API key in the RECKON_API_KEY environment variable."), head);
    }
  if (g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP) && api != RK_MODEL_API_AUTO
      && strstr (error->message, "HTTP 404") != NULL)
    {
      g_autofree char *head = g_strdup (error->message);

      g_strchomp (head);
      if (g_str_has_suffix (head, "."))
        head[strlen (head) - 1] = '\0';
      return g_strdup_printf (_("%s; the server may speak the other wire format: try --api auto."), head);
    }
  if (g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_MODEL_MISSING) && g_str_has_suffix (error->message, "."))
    {
      g_autofree char *head = g_strndup (error->message, strlen (error->message) - 1);

      /* TRANSLATORS: %s is the sentence naming the models there are, without its full stop. */
      return g_strdup_printf (_("%s (name one with --model)."), head);
    }
  return g_strdup (error->message);
}

void
rk_cli_print_json (const char *json)
{
  GString *out = g_string_sized_new (strlen (json) + 1);

  /* JSON text is UTF-8: a bidi override or a C1 control inside a string
   * would reach the terminal raw. Written as \uXXXX escapes, the data is
   * the same for a JSON reader and inert on a screen. */
  for (const char *p = json; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar u = g_utf8_get_char (p);

      if ((u >= 0x80 && u <= 0x9f) || (u >= 0x202a && u <= 0x202e) || (u >= 0x2066 && u <= 0x2069)
          || u == 0x7f)
        g_string_append_printf (out, "\\u%04x", u);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  g_string_append_c (out, '\n');
  fputs (out->str, stdout);
  fflush (stdout);
  g_string_free (out, TRUE);
}
