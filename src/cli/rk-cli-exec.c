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
#include "rk-import.h"
#include "rk-kernel.h"
#include "rk-util.h"
#include "rk-workspace.h"

/* Exit statuses beyond the shared ones (documented in --help). */
enum
{
  EXIT_CELL_ERROR = 1,
  EXIT_DIED = 3,
  EXIT_INTERRUPTED = 4,
  EXIT_SETUP = 5,
};

typedef struct
{
  RkKernel      *kernel;
  GPtrArray     *artifacts;     /* RkKernelEvent* */
  RkKernelEvent *done;
  GError        *error;
  gboolean       finished;
  gboolean       timed_out;
  gboolean       stdout_at_line_start;
} Exec;

static void
event_cb (RkKernel      *kernel,
          RkKernelEvent *ev,
          Exec          *x)
{
  switch (ev->type)
    {
    case RK_KERNEL_EVENT_STREAM:
      {
        FILE *out = ev->stream == RK_KERNEL_STREAM_STDOUT ? stdout : stderr;
        gsize len = strlen (ev->text);

        fwrite (ev->text, 1, len, out);
        fflush (out);
        if (out == stdout && len > 0)
          x->stdout_at_line_start = ev->text[len - 1] == '\n';
      }
      break;

    case RK_KERNEL_EVENT_RESULT:
      if (!x->stdout_at_line_start)
        fputc ('\n', stdout);
      printf ("%s\n", ev->text);
      fflush (stdout);
      x->stdout_at_line_start = TRUE;
      break;

    case RK_KERNEL_EVENT_ERROR:
      fflush (stdout);
      if (ev->traceback != NULL && ev->traceback[0] != '\0')
        fputs (ev->traceback, stderr);
      else
        fprintf (stderr, "%s\n", ev->evalue);
      fflush (stderr);
      break;

    case RK_KERNEL_EVENT_TABLE:
      fprintf (stderr, _("reckon: table %s: %" G_GINT64_FORMAT " rows × %" G_GINT64_FORMAT " columns\n"),
               ev->name ? ev->name : ev->path, ev->rows, ev->columns);
      g_ptr_array_add (x->artifacts, rk_kernel_event_ref (ev));
      break;

    case RK_KERNEL_EVENT_FIGURE:
      fprintf (stderr, _("reckon: figure %" G_GINT64_FORMAT "×%" G_GINT64_FORMAT "\n"), ev->width, ev->height);
      g_ptr_array_add (x->artifacts, rk_kernel_event_ref (ev));
      break;

    case RK_KERNEL_EVENT_CHART:
      fprintf (stderr, _("reckon: chart %s\n"), ev->title ? ev->title : ev->path);
      g_ptr_array_add (x->artifacts, rk_kernel_event_ref (ev));
      break;

    case RK_KERNEL_EVENT_FILE:
      fprintf (stderr, ev->change == RK_KERNEL_FILE_CREATED ? _("reckon: created %s\n") : _("reckon: changed %s\n"),
               ev->path);
      g_ptr_array_add (x->artifacts, rk_kernel_event_ref (ev));
      break;

    case RK_KERNEL_EVENT_READY:
    case RK_KERNEL_EVENT_STARTED:
    case RK_KERNEL_EVENT_DONE:
    default:
      break;
    }
}

static void
execute_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Exec *x = user_data;

  x->done = rk_kernel_execute_finish (RK_KERNEL (object), result, &x->error);
  x->finished = TRUE;
}

static gboolean
timeout_cb (gpointer user_data)
{
  Exec *x = user_data;

  x->timed_out = TRUE;
  rk_kernel_interrupt (x->kernel);
  return G_SOURCE_CONTINUE;   /* again, should the first one be missed */
}

static gboolean
sigint_cb (gpointer user_data)
{
  Exec *x = user_data;

  rk_kernel_interrupt (x->kernel);
  return G_SOURCE_CONTINUE;
}

int
rk_cli_exec (int    argc,
             char **argv)
{
  g_auto(GStrv) data_files = NULL;
  g_auto(GStrv) rest = NULL;
  g_autofree char *out_dir = NULL;
  int timeout_s = 0;
  GOptionEntry entries[] = {
    { "file", 'f', 0, G_OPTION_ARG_FILENAME_ARRAY, &data_files, N_("Copy DATA into the workspace first (repeatable)"), N_("DATA") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir, N_("Copy tables (as CSV), figures, charts and created files into DIR"), N_("DIR") },
    { "timeout", 't', 0, G_OPTION_ARG_INT, &timeout_s, N_("Interrupt the cell after S seconds"), N_("S") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("CODE.py — run Python code in the sandboxed kernel"));
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;
  g_autofree char *workspace = NULL;
  gsize code_len = 0;
  Exec x = { 0 };
  guint timeout_id = 0, sigint_id;
  int status;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
    _("Runs CODE.py (or “-” for standard input) as one cell in a fresh kernel inside "
      "the sandbox, over a temporary workspace that is deleted afterwards. Output "
      "streams to the terminal as it comes."));
  g_option_context_set_description (context,
    _("Exit status:\n"
      "  0  the cell ran without error\n"
      "  1  the cell raised an exception\n"
      "  2  wrong usage\n"
      "  3  the kernel died (a sandbox limit, a crash)\n"
      "  4  the cell was interrupted (--timeout or Ctrl+C)\n"
      "  5  the workspace, a data file, the sandbox or an artifact could not be set up or saved\n"));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "reckon-cli exec: %s\n", error->message);
      return RK_CLI_EXIT_USAGE;
    }
  if (rest == NULL || rest[0] == NULL || rest[1] != NULL)
    {
      fprintf (stderr, "%s\n", _("reckon-cli exec: name exactly one file of Python code."));
      return RK_CLI_EXIT_USAGE;
    }
  if (timeout_s < 0)
    {
      fprintf (stderr, "%s\n", _("reckon-cli exec: the timeout must be a positive number of seconds."));
      return RK_CLI_EXIT_USAGE;
    }

  if (g_strcmp0 (rest[0], "-") == 0)
    {
      g_autoptr(GInputStream) in = g_unix_input_stream_new (STDIN_FILENO, FALSE);
      g_autoptr(GOutputStream) mem = g_memory_output_stream_new_resizable ();

      if (g_output_stream_splice (mem, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error) < 0)
        {
          fprintf (stderr, "reckon-cli exec: %s\n", error->message);
          return EXIT_SETUP;
        }
      code_len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (mem));
      code = g_malloc (code_len + 1);
      memcpy (code, g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem)), code_len);
      code[code_len] = '\0';
    }
  else if (!g_file_get_contents (rest[0], &code, &code_len, &error))
    {
      fprintf (stderr, "reckon-cli exec: %s\n", error->message);
      return EXIT_SETUP;
    }
  if (!g_utf8_validate (code, (gssize) code_len, NULL) || strlen (code) != code_len)
    {
      fprintf (stderr, _("reckon-cli exec: “%s” is not UTF-8 text.\n"), rest[0]);
      return EXIT_SETUP;
    }

  workspace = rk_workspace_create (NULL, &error);
  if (workspace == NULL)
    {
      fprintf (stderr, "reckon-cli exec: %s\n", error->message);
      return EXIT_SETUP;
    }

  for (guint i = 0; data_files != NULL && data_files[i] != NULL; i++)
    {
      g_autofree char *name = rk_import_file (workspace, data_files[i], NULL, &error);
      g_autofree char *base = g_path_get_basename (data_files[i]);

      if (name == NULL)
        {
          fprintf (stderr, _("reckon-cli exec: could not copy “%s”: %s\n"), data_files[i], error->message);
          rk_workspace_delete (workspace, NULL);
          return EXIT_SETUP;
        }
      if (g_strcmp0 (name, base) != 0)
        fprintf (stderr, _("reckon: “%s” is available as “%s”\n"), data_files[i], name);
    }

  x.kernel = rk_kernel_new (workspace, NULL);
  x.artifacts = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_kernel_event_unref);
  x.stdout_at_line_start = TRUE;
  g_signal_connect (x.kernel, "event", G_CALLBACK (event_cb), &x);

  sigint_id = g_unix_signal_add (SIGINT, sigint_cb, &x);
  rk_kernel_execute_async (x.kernel, code, NULL, execute_cb, &x);
  if (timeout_s > 0)
    timeout_id = g_timeout_add_seconds ((guint) timeout_s, timeout_cb, &x);
  while (!x.finished)
    g_main_context_iteration (NULL, TRUE);
  g_clear_handle_id (&timeout_id, g_source_remove);
  g_source_remove (sigint_id);

  /* The sandbox is killed before anything is copied out of the workspace. */
  g_clear_object (&x.kernel);

  if (x.error != NULL)
    {
      fprintf (stderr, "reckon-cli exec: %s\n", x.error->message);
      status = EXIT_SETUP;
    }
  else
    {
      switch (x.done->status)
        {
        case RK_KERNEL_STATUS_OK: status = RK_CLI_EXIT_OK; break;
        case RK_KERNEL_STATUS_ERROR: status = EXIT_CELL_ERROR; break;
        case RK_KERNEL_STATUS_INTERRUPTED:
          if (x.timed_out)
            fprintf (stderr, _("reckon-cli exec: the cell was interrupted after %d seconds.\n"), timeout_s);
          status = EXIT_INTERRUPTED;
          break;
        case RK_KERNEL_STATUS_DIED:
        default: status = EXIT_DIED; break;
        }
      if (out_dir != NULL && rk_cli_save_artifacts (workspace, x.artifacts, out_dir) > 0 && status == RK_CLI_EXIT_OK)
        status = EXIT_SETUP;
    }

  if (!rk_workspace_delete (workspace, &error))
    fprintf (stderr, "reckon-cli exec: %s\n", error->message);

  g_clear_pointer (&x.done, rk_kernel_event_unref);
  g_clear_error (&x.error);
  g_ptr_array_unref (x.artifacts);
  return status;
}
