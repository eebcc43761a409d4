/* rk-cli-exec.c — `reckon-cli exec CODE.py`: run one cell in a fresh
 * sandboxed kernel over a throw-away workspace, stream its output, and copy
 * its artifacts out. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rk-cli.h"
#include "rk-kernel.h"
#include "rk-limits.h"
#include "rk-session.h"

typedef struct
{
  RkKernel         *kernel;
  RkKernelLimits    limits;
  RkKernelEvent    *done;
  GError           *error;
  gboolean          stopped;       /* Ctrl+C */
  gboolean          stdout_at_line_start;
  RkCliResultCount  results;
} Exec;

static void
event_cb (RkKernel      *kernel,
          RkKernelEvent *ev,
          Exec          *x)
{
  g_autofree char *name = NULL;

  switch (ev->type)
    {
    case RK_KERNEL_EVENT_STREAM:
      {
        FILE *out = ev->stream == RK_KERNEL_STREAM_STDOUT ? stdout : stderr;
        gsize len = strlen (ev->text);

        rk_cli_print_untrusted (out, ev->text);
        fflush (out);
        if (out == stdout && len > 0)
          x->stdout_at_line_start = ev->text[len - 1] == '\n';
      }
      break;

    case RK_KERNEL_EVENT_RESULT:
      if (!x->stdout_at_line_start)
        fputc ('\n', stdout);
      rk_cli_print_untrusted (stdout, ev->text);
      fputc ('\n', stdout);
      fflush (stdout);
      x->stdout_at_line_start = TRUE;
      break;

    case RK_KERNEL_EVENT_ERROR:
      fflush (stdout);
      rk_cli_print_untrusted (stderr, ev->traceback != NULL && ev->traceback[0] != '\0' ? ev->traceback : ev->evalue);
      if (ev->traceback == NULL || ev->traceback[0] == '\0')
        fputc ('\n', stderr);
      /* A sandbox limit in words after the bare exception the traceback
       * ends with: its size, and the flag that raises it. */
      if (ev->limit != RK_SANDBOX_LIMIT_NONE)
        {
          g_autofree char *sentence = rk_cli_limit_sentence (&x->limits, ev->limit);

          if (sentence != NULL)
            rk_cli_print (stderr, "reckon: %s\n", sentence);
          else if (ev->evalue != NULL)
            {
              rk_cli_print (stderr, _("reckon: the cell reached the sandbox's “%s” limit: "),
                            rk_sandbox_limit_to_name (ev->limit));
              rk_cli_print_untrusted (stderr, ev->evalue);
              fputc ('\n', stderr);
            }
        }
      fflush (stderr);
      break;

    case RK_KERNEL_EVENT_TABLE:
    case RK_KERNEL_EVENT_FIGURE:
    case RK_KERNEL_EVENT_CHART:
      name = rk_cli_result_label (&x->results, ev);
      rk_cli_print (stderr, "reckon: %s\n", name);
      break;

    case RK_KERNEL_EVENT_FILE:
      if (g_str_has_prefix (ev->path, ".reckon/"))
        break;
      name = rk_cli_name (ev->path);
      rk_cli_print (stderr, ev->change == RK_KERNEL_FILE_CREATED ? _("reckon: created %s\n") : _("reckon: changed %s\n"),
               name);
      break;

    case RK_KERNEL_EVENT_READY:
    case RK_KERNEL_EVENT_STARTED:
    case RK_KERNEL_EVENT_DONE:
    default:
      break;
    }
}

static gboolean
sigint_cb (gpointer user_data)
{
  Exec *x = user_data;

  x->stopped = TRUE;
  rk_kernel_interrupt (x->kernel);
  return G_SOURCE_CONTINUE;
}

/* The code of @path ("-": standard input), as UTF-8 text. */
static char *
read_code (const char  *path,
           GError     **error)
{
  g_autofree char *code = NULL;
  gsize len = 0;

  if (g_strcmp0 (path, "-") == 0)
    {
      g_autoptr(GInputStream) in = g_unix_input_stream_new (STDIN_FILENO, FALSE);
      g_autoptr(GOutputStream) mem = g_memory_output_stream_new_resizable ();

      if (g_output_stream_splice (mem, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, error) < 0)
        return NULL;
      len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (mem));
      code = g_malloc (len + 1);
      memcpy (code, g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem)), len);
      code[len] = '\0';
    }
  else if (!g_file_get_contents (path, &code, &len, error))
    return NULL;
  if (!g_utf8_validate (code, (gssize) len, NULL) || strlen (code) != len)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("“%s” is not UTF-8 text."), path);
      return NULL;
    }
  return g_steal_pointer (&code);
}

/* The exit status for how the cell ended, its reason said on stderr. */
static int
status_of_cell (const Exec *x)
{
  switch (x->done->status)
    {
    case RK_KERNEL_STATUS_OK:
      return RK_CLI_EXIT_OK;
    case RK_KERNEL_STATUS_ERROR:
      /* The limit line said it, with the --timeout to run again with. */
      return x->done->limit == RK_SANDBOX_LIMIT_TIME ? RK_CLI_EXIT_TIME_LIMIT : RK_CLI_EXIT_FAILURE;
    case RK_KERNEL_STATUS_INTERRUPTED:
      rk_cli_print (stderr, "%s\n", _("reckon-cli exec: the cell was stopped (Ctrl+C)."));
      return RK_CLI_EXIT_CANCELLED;
    case RK_KERNEL_STATUS_DIED:
    default:
      if (x->done->message != NULL)
        {
          g_autofree char *why = rk_cli_name (x->done->message);
          rk_cli_print (stderr, "reckon-cli exec: %s\n", why);
        }
      return RK_CLI_EXIT_KERNEL_DIED;
    }
}

/* The kernel could not start over its disk limit: the --disk that would
 * hold what fills the workspace. */
static void
hint_disk (RkSession *session)
{
  g_auto(GStrv) inputs = rk_session_dup_file_names (session);
  RkWorkspaceUsage usage;
  guint64 suggested;

  rk_workspace_usage_measure (rk_session_get_workspace (session), (const char * const *) inputs, 200000, &usage);
  suggested = rk_workspace_usage_suggested_disk (&usage);
  if (suggested > 0)
    {
      g_autofree char *flag = rk_limits_format_flag_size (suggested);

      rk_cli_print (stderr, _("reckon-cli exec: run again with --disk %s.\n"), flag);
    }
  rk_workspace_usage_clear (&usage);
}

int
rk_cli_exec (int    argc,
             char **argv)
{
  g_auto(GStrv) data_files = NULL;
  g_auto(GStrv) rest = NULL;
  g_autofree char *out_dir = NULL;
  g_auto(RkCliLimitOptions) limit_options = { NULL, };
  GOptionEntry entries[] = {
    { "file", 'f', 0, G_OPTION_ARG_FILENAME_ARRAY, &data_files, N_("Copy DATA into the workspace first (repeatable)"), N_("DATA") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir, N_("Copy tables (as CSV), figures, charts and created files into DIR"), N_("DIR") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("CODE.py — run Python code in the sandboxed kernel"));
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;
  g_autoptr(RkSession) session = NULL;
  Exec x = { 0 };
  g_autoptr(GAsyncResult) executed = NULL;
  guint sigint_id;
  int status;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  rk_cli_add_limit_options (context, &limit_options, 't');
  g_option_context_set_summary (context,
    _("Runs CODE.py (or “-” for standard input) as one cell in a fresh kernel inside "
      "the sandbox, over a temporary workspace that is deleted afterwards. Output "
      "streams to the terminal as it comes."));
  rk_cli_set_exit_help (context, _("the cell raised an exception"),
                        RK_CLI_EXIT_USAGE, RK_CLI_EXIT_CANCELLED, RK_CLI_EXIT_SANDBOX,
                        RK_CLI_EXIT_KERNEL_DIED, RK_CLI_EXIT_TIME_LIMIT, RK_CLI_EXIT_NOT_SAVED, -1);
  if (!rk_cli_parse_options (context, "exec", &argc, &argv))
    return RK_CLI_EXIT_USAGE;
  if (rest == NULL || rest[0] == NULL || rest[1] != NULL)
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "%s\n", _("reckon-cli exec: name exactly one file of Python code."));
  if (!rk_cli_limits_parse (&limit_options, &x.limits, &error))
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "reckon-cli exec: %s\n", error->message);

  code = read_code (rest[0], &error);
  if (code == NULL)
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "reckon-cli exec: %s\n", error->message);

  if (out_dir != NULL && !rk_cli_check_out_dir (out_dir, &error))
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "reckon-cli exec: %s\n", error->message);

  session = rk_cli_session_new (&x.limits, &error);
  if (session == NULL)
    return rk_cli_fail (RK_CLI_EXIT_SANDBOX, "reckon-cli exec: %s\n", error->message);

  for (guint i = 0; data_files != NULL && data_files[i] != NULL; i++)
    {
      g_autofree char *name = rk_cli_session_add_file (session, data_files[i], &error);
      g_autofree char *base = g_path_get_basename (data_files[i]);

      if (name == NULL)
        {
          rk_cli_print (stderr, _("reckon-cli exec: could not copy “%s”: %s\n"), data_files[i], error->message);
          rk_session_expire (session);
          return RK_CLI_EXIT_USAGE;
        }
      if (g_strcmp0 (name, base) != 0)
        rk_cli_print (stderr, _("reckon: “%s” is available as “%s”\n"), data_files[i], name);
    }

  x.kernel = rk_session_get_kernel (session);
  x.stdout_at_line_start = TRUE;
  g_signal_connect (x.kernel, "event", G_CALLBACK (event_cb), &x);

  sigint_id = g_unix_signal_add (SIGINT, sigint_cb, &x);
  rk_kernel_execute_async (x.kernel, code, NULL, rk_cli_keep_result_cb, &executed);
  rk_cli_wait (&executed);
  g_source_remove (sigint_id);
  x.done = rk_kernel_execute_finish (x.kernel, executed, &x.error);

  /* The sandbox is stopped before anything is copied out of the workspace. */
  g_signal_handlers_disconnect_by_data (x.kernel, &x);
  rk_kernel_shutdown (x.kernel);
  x.kernel = NULL;

  if (x.error != NULL)
    {
      rk_cli_print (stderr, "reckon-cli exec: %s\n", x.error->message);
      if (g_error_matches (x.error, RK_KERNEL_ERROR, RK_KERNEL_ERROR_LIMIT))
        hint_disk (session);
      status = g_error_matches (x.error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ? RK_CLI_EXIT_CANCELLED
                                                                          : RK_CLI_EXIT_SANDBOX;
    }
  else
    {
      status = status_of_cell (&x);
      if (out_dir != NULL)
        {
          if (rk_cli_save_artifacts (session, out_dir) > 0 && status == RK_CLI_EXIT_OK)
            status = RK_CLI_EXIT_NOT_SAVED;
        }
      else
        rk_cli_hint_out (rk_session_get_artifacts (session)->len);
    }

  rk_session_expire (session);
  g_clear_pointer (&x.done, rk_kernel_event_unref);
  g_clear_error (&x.error);
  return status;
}
