/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-cli-ask.c — `reckon-cli ask QUESTION`: the window's RkConversation in a
 * terminal. Prints the agent's events, asks before each run (y/n/e, like
 * Open Interpreter), and copies artifacts out at the end. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rk-agent.h"
#include "rk-cli.h"
#include "rk-conversation.h"
#include "rk-kernel.h"
#include "rk-markdown.h"
#include "rk-text.h"
#include "rk-model-client.h"

typedef struct
{
  RkConversation   *conversation;
  GCancellable     *cancellable;
  GDataInputStream *stdin_lines;
  gboolean          json;
  GAsyncResult     *asked;        /* the question's result, once answered */
  char             *answer;
  GError           *error;
  gboolean          at_line_start;
  gboolean          answer_streamed;
  guint             n_interrupts;
  char             *pending_code; /* proposal waiting for y/n/e */
  GString          *turn_text;    /* what the model wrote since its last code */
  RkCliResultCount  results;
  char             *declined;     /* why code was not run, or NULL */
  char             *last_ename;   /* the last error a cell raised */
  char             *last_evalue;
  RkKernelLimits    limits;       /* --memory, --disk, --timeout */
} Ask;

/* -- output -- */

/* --json: one object a line; members in the order they were set. */
static void
print_json_object (JsonObject *o)
{
  g_autoptr(JsonNode) root = json_node_init_object (json_node_alloc (), o);
  g_autofree char *line = json_to_string (root, FALSE);

  rk_cli_print_json (line);
}

static void
print_json_event (const RkAgentEvent *event)
{
  static const char *names[] = {
    "text", "reasoning", "code", "approval", "run", "output", "table",
    "figure", "chart", "file", "error", "run-finished", "answer",
  };
  g_autoptr(JsonObject) o = json_object_new ();
  RkKernelEvent *k = event->kernel_event;

  json_object_set_string_member (o, "event", names[event->type]);
  json_object_set_int_member (o, "step", event->step);
  if (event->cell_id != NULL)
    json_object_set_string_member (o, "cell", event->cell_id);
  if (event->text != NULL)
    json_object_set_string_member (o, "text", event->text);
  if (event->code != NULL && (event->type == RK_AGENT_EVENT_CODE_PROPOSED
                              || event->type == RK_AGENT_EVENT_RUN_STARTED))
    json_object_set_string_member (o, "code", event->code);
  if (event->diff != NULL)
    json_object_set_string_member (o, "diff", event->diff);
  if (k != NULL && k->type == RK_KERNEL_EVENT_STREAM)
    json_object_set_string_member (o, "stream", k->stream == RK_KERNEL_STREAM_STDERR ? "stderr" : "stdout");
  if (k != NULL && k->path != NULL)
    json_object_set_string_member (o, "path", k->path);
  if (k != NULL && k->type == RK_KERNEL_EVENT_TABLE)
    {
      json_object_set_int_member (o, "rows", k->rows);
      json_object_set_int_member (o, "columns", k->columns);
    }
  if (k != NULL && k->type == RK_KERNEL_EVENT_DONE)
    {
      json_object_set_string_member (o, "status", rk_kernel_status_to_string (k->status));
      if (k->limit != RK_SANDBOX_LIMIT_NONE)
        json_object_set_string_member (o, "limit", rk_sandbox_limit_to_name (k->limit));
    }
  print_json_object (o);
}

static void
ensure_line_start (Ask *a)
{
  if (!a->at_line_start)
    {
      fputc ('\n', stdout);
      a->at_line_start = TRUE;
    }
}

/* Text from the model or the sandbox, with no control characters. */
static void
print_untrusted (Ask        *a,
                 FILE       *out,
                 const char *text)
{
  g_autofree char *clean = rk_text_sanitize_for_terminal (text, RK_TEXT_SANITIZE_DEFAULT);
  gsize len = strlen (clean);

  fputs (clean, out);
  fflush (out);
  if (len > 0)
    a->at_line_start = clean[len - 1] == '\n';
}

static void
print_label (Ask        *a,
             const char *label)
{
  ensure_line_start (a);
  rk_cli_print (stdout, "── %s ──\n", label);
  a->at_line_start = TRUE;
}

/* The model's words of one turn, without the code it proposed: fenced
 * Python blocks and tool calls written out as JSON are shown as code. */
static char *
turn_prose (const char *text)
{
  g_autoptr(GPtrArray) calls = rk_markdown_find_tool_calls (text, -1);
  g_autoptr(GPtrArray) blocks = NULL;
  g_autoptr(GString) without_calls = g_string_new (NULL);
  GString *prose = g_string_new (NULL);
  gsize at = 0;

  for (guint i = 0; i < calls->len; i++)
    {
      RkMarkdownToolCall *call = g_ptr_array_index (calls, i);

      if (call->offset < at)
        continue;
      g_string_append_len (without_calls, text + at, call->offset - at);
      at = call->offset + call->length;
    }
  g_string_append (without_calls, text + at);

  blocks = rk_markdown_split (without_calls->str, -1);
  for (guint i = 0; i < blocks->len; i++)
    {
      RkMarkdownBlock *block = g_ptr_array_index (blocks, i);

      if (block->kind == RK_MARKDOWN_PROSE || !rk_markdown_is_python_language (block->language))
        g_string_append_len (prose, without_calls->str + block->offset, block->length);
    }
  g_strstrip (prose->str);
  prose->len = strlen (prose->str);
  return g_string_free (prose, FALSE);
}

static void
print_code (Ask                *a,
            const RkAgentEvent *event)
{
  g_autofree char *prose = turn_prose (a->turn_text->str);

  if (prose[0] != '\0')
    {
      print_label (a, _("Model"));
      print_untrusted (a, stdout, prose);
    }
  if (event->diff != NULL && *event->diff != '\0')
    {
      print_label (a, _("Revised code (changes against the code that failed)"));
      print_untrusted (a, stdout, event->diff);
    }
  else
    {
      print_label (a, _("Code"));
      print_untrusted (a, stdout, event->code);
    }
  ensure_line_start (a);
  rk_cli_print (stdout, "──────────\n");
  fflush (stdout);
}

static void
remember_error (Ask                 *a,
                const RkKernelEvent *k)
{
  g_free (a->last_ename);
  g_free (a->last_evalue);
  a->last_ename = g_strdup (k->ename);
  a->last_evalue = g_strdup (k->evalue);
}

/* -- approval -- */

static void read_decision (Ask *a);

static char *
edit_code (const char *code,
           GError    **error)
{
  const char *editor = g_getenv ("VISUAL");
  g_autofree char *path = NULL;
  g_autofree char *edited = NULL;
  g_autofree char *command = NULL;
  g_auto(GStrv) argv = NULL;
  int fd, wait_status;

  if (editor == NULL || *editor == '\0')
    editor = g_getenv ("EDITOR");
  if (editor == NULL || *editor == '\0' || !isatty (STDIN_FILENO))
    return NULL;

  fd = g_file_open_tmp ("reckon-XXXXXX.py", &path, error);
  if (fd < 0)
    return NULL;
  close (fd);
  if (!g_file_set_contents (path, code, -1, error))
    return NULL;
  command = g_strdup_printf ("%s %s", editor, path);
  if (!g_shell_parse_argv (command, NULL, &argv, error)
      || !g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN,
                        NULL, NULL, NULL, NULL, &wait_status, error)
      || !g_file_get_contents (path, &edited, NULL, error))
    {
      g_unlink (path);
      return NULL;
    }
  g_unlink (path);
  return g_steal_pointer (&edited);
}

/* Without an editor, edited code is read from standard input up to a line
 * holding only a dot. */
typedef struct
{
  Ask     *ask;
  GString *code;
} EditRead;

static void
read_edit_line_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  EditRead *er = user_data;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source),
                                                                      result, NULL, NULL);

  if (line != NULL && strcmp (line, ".") != 0)
    {
      g_string_append_printf (er->code, "%s\n", line);
      g_data_input_stream_read_line_async (er->ask->stdin_lines, G_PRIORITY_DEFAULT,
                                           er->ask->cancellable, read_edit_line_cb, er);
      return;
    }
  rk_conversation_approve (er->ask->conversation, RK_AGENT_DECISION_EDIT, er->code->str);
  g_string_free (er->code, TRUE);
  g_free (er);
}

static void
decision_line_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Ask *a = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source),
                                                                      result, NULL, &error);
  g_autofree char *answer = NULL;

  if (a->asked != NULL || a->pending_code == NULL)
    return;
  if (line == NULL)
    {
      /* End of input: nobody can approve, so nothing runs. */
      rk_cli_print (stdout, "\n");
      g_free (a->declined);
      a->declined = g_strdup (_("the code was not run: the input ended at the approval prompt."));
      rk_conversation_approve (a->conversation, RK_AGENT_DECISION_SKIP, NULL);
      return;
    }

  answer = g_ascii_strdown (g_strstrip (line), -1);
  if (g_strcmp0 (answer, "y") == 0 || g_strcmp0 (answer, "yes") == 0)
    {
      g_clear_pointer (&a->pending_code, g_free);
      rk_conversation_approve (a->conversation, RK_AGENT_DECISION_RUN, NULL);
    }
  else if (g_strcmp0 (answer, "n") == 0 || g_strcmp0 (answer, "no") == 0)
    {
      g_clear_pointer (&a->pending_code, g_free);
      g_free (a->declined);
      a->declined = g_strdup (_("the code was not run: you answered “n”."));
      rk_conversation_approve (a->conversation, RK_AGENT_DECISION_SKIP, NULL);
    }
  else if (g_strcmp0 (answer, "e") == 0 || g_strcmp0 (answer, "edit") == 0)
    {
      g_autoptr(GError) edit_error = NULL;
      g_autofree char *edited = edit_code (a->pending_code, &edit_error);

      if (edited != NULL)
        {
          g_clear_pointer (&a->pending_code, g_free);
          rk_conversation_approve (a->conversation, RK_AGENT_DECISION_EDIT, edited);
        }
      else if (edit_error != NULL)
        {
          rk_cli_print (stderr, _("reckon: could not edit the code: %s\n"), edit_error->message);
          read_decision (a);
        }
      else
        {
          EditRead *er = g_new0 (EditRead, 1);

          rk_cli_print (stdout, "%s\n", _("Type the code to run, then a line with only “.”:"));
          fflush (stdout);
          g_clear_pointer (&a->pending_code, g_free);
          er->ask = a;
          er->code = g_string_new (NULL);
          g_data_input_stream_read_line_async (a->stdin_lines, G_PRIORITY_DEFAULT,
                                               a->cancellable, read_edit_line_cb, er);
        }
    }
  else
    read_decision (a);
}

static void
read_decision (Ask *a)
{
  rk_cli_print (stdout, "%s", _("Run this code? [y]es, [n]o, [e]dit: "));
  fflush (stdout);
  a->at_line_start = FALSE;
  g_data_input_stream_read_line_async (a->stdin_lines, G_PRIORITY_DEFAULT,
                                       a->cancellable, decision_line_cb, a);
}

/* -- agent events -- */

static void
agent_event_cb (RkAgent            *agent,
                const RkAgentEvent *event,
                Ask                *a)
{
  RkKernelEvent *k = event->kernel_event;

  if (a->json)
    {
      print_json_event (event);
      if (event->type == RK_AGENT_EVENT_APPROVAL_NEEDED)
        {
          a->pending_code = g_strdup (event->code);
          g_data_input_stream_read_line_async (a->stdin_lines, G_PRIORITY_DEFAULT,
                                               a->cancellable, decision_line_cb, a);
        }
      return;
    }

  switch (event->type)
    {
    case RK_AGENT_EVENT_TEXT_DELTA:
      /* Held until the turn shows what it is: words before code, or the answer. */
      g_string_append (a->turn_text, event->text);
      break;
    case RK_AGENT_EVENT_REASONING_DELTA:
      break;
    case RK_AGENT_EVENT_CODE_PROPOSED:
      print_code (a, event);
      g_string_truncate (a->turn_text, 0);
      break;
    case RK_AGENT_EVENT_APPROVAL_NEEDED:
      a->pending_code = g_strdup (event->code);
      read_decision (a);
      break;
    case RK_AGENT_EVENT_RUN_STARTED:
      print_label (a, _("Output"));
      break;
    case RK_AGENT_EVENT_OUTPUT:
      if (k != NULL && k->type == RK_KERNEL_EVENT_STREAM && k->stream == RK_KERNEL_STREAM_STDERR)
        print_untrusted (a, stderr, event->text);
      else
        {
          print_untrusted (a, stdout, event->text);
          if (k != NULL && k->type == RK_KERNEL_EVENT_RESULT)
            ensure_line_start (a);
        }
      break;
    case RK_AGENT_EVENT_TABLE:
    case RK_AGENT_EVENT_FIGURE:
    case RK_AGENT_EVENT_CHART:
      {
        g_autofree char *label = rk_cli_result_label (&a->results, k);

        ensure_line_start (a);
        rk_cli_print (stdout, "[%s]\n", label);
      }
      break;
    case RK_AGENT_EVENT_FILE:
      if (!g_str_has_prefix (k->path, ".reckon/"))
        {
          g_autofree char *name = rk_cli_name (k->path);

          ensure_line_start (a);
          rk_cli_print (stdout, _("[file %s]\n"), name);
        }
      break;
    case RK_AGENT_EVENT_ERROR:
      ensure_line_start (a);
      fflush (stdout);
      if (k != NULL && k->type == RK_KERNEL_EVENT_ERROR)
        remember_error (a, k);
      print_untrusted (a, stderr,
                       k != NULL && k->type == RK_KERNEL_EVENT_ERROR && k->traceback != NULL && *k->traceback
                       ? k->traceback : event->text);
      if (!a->at_line_start)
        fputc ('\n', stderr);
      a->at_line_start = TRUE;
      /* A sandbox limit: its size and the flag that raises it. */
      if (k != NULL && k->type == RK_KERNEL_EVENT_ERROR && k->limit != RK_SANDBOX_LIMIT_NONE)
        {
          g_autofree char *sentence = rk_cli_limit_sentence (&a->limits, k->limit);

          if (sentence != NULL)
            rk_cli_print (stderr, "reckon: %s\n", sentence);
        }
      break;
    case RK_AGENT_EVENT_RUN_FINISHED:
      ensure_line_start (a);
      break;
    case RK_AGENT_EVENT_FINAL_ANSWER:
      a->answer_streamed = TRUE;
      print_label (a, _("Answer"));
      print_untrusted (a, stdout, event->text);
      ensure_line_start (a);
      g_string_truncate (a->turn_text, 0);
      break;
    default:
      break;
    }
  fflush (stdout);
}

static gboolean
sigint_cb (gpointer user_data)
{
  Ask *a = user_data;

  if (++a->n_interrupts > 1)
    {
      rk_cli_print (stderr, "%s\n", _("reckon-cli ask: stopped."));
      _exit (RK_CLI_EXIT_CANCELLED);
    }
  g_cancellable_cancel (a->cancellable);
  return G_SOURCE_CONTINUE;
}

/* -- set-up -- */

static int
exit_status_for (const GError *error)
{
  if (g_error_matches (error, RK_AGENT_ERROR, RK_AGENT_ERROR_STEP_LIMIT))
    return RK_CLI_EXIT_STEP_LIMIT;
  if (g_error_matches (error, RK_AGENT_ERROR, RK_AGENT_ERROR_REPAIR_LIMIT))
    return RK_CLI_EXIT_REPAIR_LIMIT;
  if (error->domain == RK_KERNEL_ERROR)
    return RK_CLI_EXIT_SANDBOX;
  return rk_cli_exit_for_model_error (error);
}

/* Reaches the server and, when --model is given, checks that it lists it. */
static gboolean
check_model (RkModelClient *client,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  rk_model_client_check_model_async (client, cancellable, rk_cli_keep_result_cb, &result);
  rk_cli_wait (&result);
  return rk_model_client_check_model_finish (client, result, error);
}

/* The columns of the files given, "a, b, c" (the first table of each). */
static char *
known_columns (GPtrArray *profiles)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; profiles != NULL && i < profiles->len; i++)
    {
      RkFileProfile *p = g_ptr_array_index (profiles, i);
      RkTableProfile *t;

      if (p->tables == NULL || p->tables->len == 0)
        continue;
      t = g_ptr_array_index (p->tables, 0);
      if (s->len > 0)
        g_string_append (s, "; ");
      if (profiles->len > 1)
        g_string_append_printf (s, "%s: ", p->name);
      for (guint c = 0; c < t->columns->len && c < 40; c++)
        g_string_append_printf (s, "%s'%s'", c > 0 ? ", " : "",
                                ((RkColumnProfile *) g_ptr_array_index (t->columns, c))->name);
      if (t->columns->len > 40)
        g_string_append (s, ", …");
    }
  return g_string_free (s, s->len == 0);
}

/* After the repair limit: the last error in plain words, e.g. a KeyError
 * on a DataFrame is "no column 'Weather'; the columns are …". */
static char *
repair_limit_message (Ask       *a,
                      guint      max_repairs,
                      GPtrArray *profiles)
{
  g_autofree char *what = NULL;
  g_autofree char *ename = rk_cli_name (a->last_ename ? a->last_ename : "");
  g_autofree char *evalue = rk_cli_name (a->last_evalue ? a->last_evalue : "");

  if (g_strcmp0 (ename, "KeyError") == 0)
    {
      g_autofree char *columns = known_columns (profiles);

      what = columns != NULL ? g_strdup_printf (_("no column %s; the columns are %s"), evalue, columns)
                             : g_strdup_printf (_("nothing is named %s (a KeyError)"), evalue);
    }
  else if (g_strcmp0 (ename, "FileNotFoundError") == 0)
    what = g_strdup_printf (_("a file was not found (%s)"), evalue);
  else if (ename[0] != '\0')
    what = evalue[0] != '\0' ? g_strdup_printf ("%s: %s", ename, evalue) : g_strdup (ename);
  else
    return rk_cli_name (a->error->message);
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "The code still failed after %u automatic repair: %s.",
                                       "The code still failed after %u automatic repairs: %s.",
                                       max_repairs),
                          max_repairs, what);
}

/* A failure before the question is asked: one sentence on stderr, and with
 * --json one "failed" event on stdout too. */
static void
print_json_failure (const char *message,
                    int         status)
{
  g_autoptr(JsonObject) o = json_object_new ();

  json_object_set_string_member (o, "event", "failed");
  json_object_set_string_member (o, "text", message);
  json_object_set_int_member (o, "exit", status);
  print_json_object (o);
}

static int
fail (gboolean    json,
      int         status,
      const char *message)
{
  if (json)
    print_json_failure (message, status);
  rk_cli_print (stderr, "reckon-cli ask: %s\n", message);
  return status;
}

/* -- the command -- */

typedef struct
{
  char             *endpoint;
  char             *model;
  char             *api;
  char             *approve;
  char             *out_dir;
  char             *transcript_path;
  GStrv             files;
  GStrv             rest;
  gboolean          json;
  gboolean          allow_remote;
  gboolean          no_tools;
  int               max_steps;
  int               max_repairs;
  int               idle_timeout;
  RkCliLimitOptions limit_options;
  /* derived */
  char             *question;
  RkKernelLimits    limits;
  RkApprovalPolicy  policy;
  RkModelApi        model_api;
} AskOptions;

static void
ask_options_clear (AskOptions *o)
{
  g_free (o->endpoint);
  g_free (o->model);
  g_free (o->api);
  g_free (o->approve);
  g_free (o->out_dir);
  g_free (o->transcript_path);
  g_strfreev (o->files);
  g_strfreev (o->rest);
  g_free (o->question);
  rk_cli_limit_options_clear (&o->limit_options);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (AskOptions, ask_options_clear)

/* Fills @o from the command line; returns RK_CLI_EXIT_OK or the status of
 * the usage error it reported. */
static int
parse_options (AskOptions  *o,
               int          argc,
               char       **argv)
{
  GOptionEntry entries[] = {
    { "endpoint", 0, 0, G_OPTION_ARG_STRING, &o->endpoint, N_("Model server URL (default: try 127.0.0.1:11434, :8080, :1234)"), N_("URL") },
    { "model", 'm', 0, G_OPTION_ARG_STRING, &o->model, N_("Model name (default: the first the server lists)"), N_("NAME") },
    { "api", 0, 0, G_OPTION_ARG_STRING, &o->api, N_("Wire format: auto, openai or ollama (default auto)"), N_("API") },
    { "file", 'f', 0, G_OPTION_ARG_FILENAME_ARRAY, &o->files, N_("Give the model a copy of PATH (repeatable)"), N_("PATH") },
    { "approve", 0, 0, G_OPTION_ARG_STRING, &o->approve, N_("Before running code: ask, auto or never (default ask)"), N_("POLICY") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out_dir, N_("Copy tables (as CSV), figures, charts and files into DIR at the end"), N_("DIR") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &o->json, N_("Print one JSON event a line"), NULL },
    { "allow-remote", 0, 0, G_OPTION_ARG_NONE, &o->allow_remote, N_("Allow a model server that is not on this machine"), NULL },
    { "no-tools", 0, 0, G_OPTION_ARG_NONE, &o->no_tools, N_("Ask for fenced code instead of tool calls"), NULL },
    { "max-steps", 0, 0, G_OPTION_ARG_INT, &o->max_steps, N_("Model requests per question (default 8)"), N_("N") },
    { "max-repairs", 0, 0, G_OPTION_ARG_INT, &o->max_repairs, N_("Automatic repairs after an error (default 3)"), N_("N") },
    { "idle-timeout", 0, 0, G_OPTION_ARG_INT, &o->idle_timeout, N_("Seconds of silence before the model counts as stalled (default 60)"), N_("S") },
    { "transcript", 0, 0, G_OPTION_ARG_FILENAME, &o->transcript_path, N_("Save the conversation to FILE as it goes, and its results in FILE.results for export"), N_("FILE") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->rest, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("QUESTION — ask about your data"));
  g_autoptr(GError) error = NULL;

  o->max_steps = 8;
  o->max_repairs = 3;
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  rk_cli_add_limit_options (context, &o->limit_options, 0);
  g_option_context_set_summary (context,
    _("A local model answers QUESTION by writing Python that runs in the sandbox, "
      "over copies of the given files. Code is shown and, by default, run only "
      "when you say yes."));
  rk_cli_set_exit_help (context, _("another failure (a file, the transcript)"),
                        RK_CLI_EXIT_USAGE, RK_CLI_EXIT_UNREACHABLE, RK_CLI_EXIT_MODEL_MISSING,
                        RK_CLI_EXIT_CANCELLED, RK_CLI_EXIT_STEP_LIMIT, RK_CLI_EXIT_MODEL_ERROR,
                        RK_CLI_EXIT_REPAIR_LIMIT, RK_CLI_EXIT_DECLINED, RK_CLI_EXIT_SANDBOX,
                        RK_CLI_EXIT_NOT_SAVED, -1);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      /* --json may be among the options that could not be parsed. */
      for (int i = 1; i < argc && !o->json; i++)
        o->json = g_strcmp0 (argv[i], "--json") == 0;
      return fail (o->json, RK_CLI_EXIT_USAGE, error->message);
    }

  if (o->rest != NULL)
    o->question = g_strstrip (g_strjoinv (" ", o->rest));
  if (o->question == NULL || o->question[0] == '\0')
    return fail (o->json, RK_CLI_EXIT_USAGE,
                 _("the question is empty; ask one, e.g. reckon-cli ask --file sales.csv \"Which month sold most?\""));

  if (o->approve == NULL || g_strcmp0 (o->approve, "ask") == 0)
    o->policy = RK_APPROVAL_ASK;
  else if (g_strcmp0 (o->approve, "auto") == 0)
    o->policy = RK_APPROVAL_AUTO;
  else if (g_strcmp0 (o->approve, "never") == 0)
    o->policy = RK_APPROVAL_NEVER;
  else
    {
      g_autofree char *message = g_strdup_printf (_("--approve takes ask, auto or never, not “%s”."), o->approve);
      return fail (o->json, RK_CLI_EXIT_USAGE, message);
    }

  if (!rk_cli_parse_api (o->api, &o->model_api, &error))
    return fail (o->json, RK_CLI_EXIT_USAGE, error->message);

  if (o->max_steps < 1 || o->max_repairs < 0 || o->idle_timeout < 0)
    return fail (o->json, RK_CLI_EXIT_USAGE, _("the step, repair and timeout limits must be positive numbers."));
  if (!rk_cli_limits_parse (&o->limit_options, &o->limits, &error))
    return fail (o->json, RK_CLI_EXIT_USAGE, error->message);
  if (o->out_dir != NULL && !rk_cli_check_out_dir (o->out_dir, &error))
    return fail (o->json, RK_CLI_EXIT_USAGE, error->message);
  return RK_CLI_EXIT_OK;
}

static RkModelClient *
make_client (const AskOptions *o)
{
  RkModelClient *client = rk_cli_model_client_new (o->endpoint, o->model_api, o->allow_remote);

  rk_model_client_set_model (client, o->model);
  if (o->idle_timeout > 0)
    rk_model_client_set_idle_timeout (client, (guint) o->idle_timeout);
  return client;
}

/* A conversation in memory, as the window has one, holding copies of the
 * files, profiled while its kernel warms up (pandas, matplotlib). Returns
 * RK_CLI_EXIT_OK or the status of the failure it reported. */
static int
open_conversation (const AskOptions  *o,
                   RkModelClient     *client,
                   RkConversation   **conversation_out)
{
  g_autoptr(RkConversation) conversation = NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;
  RkAgent *agent;

  if (!rk_cli_check_sandbox (&error))
    return fail (o->json, RK_CLI_EXIT_SANDBOX, error->message);
  conversation = rk_conversation_new (client, &error);
  if (conversation == NULL)
    return fail (o->json, RK_CLI_EXIT_SANDBOX, error->message);
  rk_conversation_set_idle_timeout (conversation, 0);   /* a command ends, it does not idle */
  rk_conversation_set_kernel_limits (conversation, &o->limits);
  rk_conversation_set_approval_policy (conversation, o->policy);
  agent = rk_conversation_get_agent (conversation);
  rk_agent_set_max_steps (agent, (guint) o->max_steps);
  rk_agent_set_max_repairs (agent, (guint) o->max_repairs);
  rk_agent_set_use_tools (agent, !o->no_tools);
  if (o->transcript_path != NULL)
    rk_transcript_set_autosave_path (rk_conversation_get_transcript (conversation), o->transcript_path);

  for (guint i = 0; o->files != NULL && o->files[i] != NULL; i++)
    g_ptr_array_add (files, g_file_new_for_commandline_arg (o->files[i]));
  rk_conversation_add_files (conversation, (GFile **) files->pdata, files->len);
  while (rk_conversation_is_profiling (conversation))
    g_main_context_iteration (NULL, TRUE);

  for (guint i = 0; i < g_list_model_get_n_items (rk_conversation_get_files (conversation)) && i < files->len; i++)
    {
      g_autoptr(RkConversationFile) file = g_list_model_get_item (rk_conversation_get_files (conversation), i);
      RkFileProfile *profile = rk_conversation_file_get_profile (file);
      g_autofree char *message = NULL;

      if (rk_conversation_file_get_copied (file))
        continue;
      message = g_strdup_printf (_("could not copy “%s”: %s"), o->files[i],
                                 profile != NULL && profile->error != NULL ? profile->error : "");
      rk_session_expire (rk_conversation_get_session (conversation));
      return fail (o->json, RK_CLI_EXIT_USAGE, message);
    }
  *conversation_out = g_steal_pointer (&conversation);
  return RK_CLI_EXIT_OK;
}

/* How the question ended: the exit status, with its sentence reported. */
static int
report_outcome (Ask              *a,
                const AskOptions *o)
{
  ensure_line_start (a);
  if (a->error != NULL)
    {
      g_autoptr(GPtrArray) profiles = rk_conversation_dup_profiles (a->conversation);
      g_autofree char *message = g_error_matches (a->error, RK_AGENT_ERROR, RK_AGENT_ERROR_REPAIR_LIMIT)
                                 ? repair_limit_message (a, (guint) o->max_repairs, profiles)
                                 : rk_cli_model_error_message (a->error, o->endpoint, o->model_api);

      return fail (o->json, exit_status_for (a->error), message);
    }
  if (a->declined != NULL)
    return fail (o->json, RK_CLI_EXIT_DECLINED, a->declined);
  if (!o->json && a->answer != NULL && !a->answer_streamed)
    {
      /* Reckon's own ending (--approve never) */
      print_label (a, _("Answer"));
      print_untrusted (a, stdout, a->answer);
      ensure_line_start (a);
    }
  return RK_CLI_EXIT_OK;
}

/* After the sandbox stopped: the results into --out, and beside the
 * transcript what `reckon-cli export` embeds. Returns @status, or
 * RK_CLI_EXIT_NOT_SAVED when a result could not be saved in --out. */
static int
keep_results (const AskOptions *o,
              RkConversation   *conversation,
              int               status)
{
  RkSession *session = rk_conversation_get_session (conversation);
  RkTranscript *transcript = rk_conversation_get_transcript (conversation);
  g_autoptr(GError) error = NULL;

  if (o->out_dir != NULL)
    {
      if (rk_cli_save_artifacts (session, o->out_dir) > 0 && status == RK_CLI_EXIT_OK)
        status = RK_CLI_EXIT_NOT_SAVED;
    }
  else if (o->transcript_path == NULL)
    rk_cli_hint_out (rk_session_get_artifacts (session)->len);
  if (o->transcript_path == NULL)
    return status;
  if (!rk_transcript_flush (transcript, &error))
    rk_cli_print (stderr, "reckon-cli ask: %s\n", error->message);
  else
    {
      g_autofree char *folder = rk_transcript_results_folder (o->transcript_path);
      g_auto(GStrv) skipped = NULL;

      if (!rk_session_keep_results (session, folder, &skipped, &error))
        rk_cli_print (stderr, "reckon-cli ask: %s\n", error->message);
      for (guint i = 0; skipped != NULL && skipped[i] != NULL; i++)
        rk_cli_print (stderr, _("reckon: not kept for export: %s\n"), skipped[i]);
    }
  /* What follows (the session's end) is not part of the conversation. */
  rk_transcript_set_autosave_path (transcript, NULL);
  return status;
}

static void
ask_clear (Ask *a)
{
  g_clear_object (&a->conversation);
  g_clear_error (&a->error);
  g_clear_pointer (&a->answer, g_free);
  g_clear_object (&a->asked);
  g_clear_pointer (&a->pending_code, g_free);
  g_clear_pointer (&a->declined, g_free);
  g_clear_pointer (&a->last_ename, g_free);
  g_clear_pointer (&a->last_evalue, g_free);
  if (a->turn_text != NULL)
    g_string_free (g_steal_pointer (&a->turn_text), TRUE);
  g_clear_object (&a->stdin_lines);
  g_clear_object (&a->cancellable);
}

int
rk_cli_ask (int    argc,
            char **argv)
{
  g_auto(AskOptions) o = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(RkModelClient) client = NULL;
  g_autoptr(GInputStream) stdin_stream = NULL;
  Ask a = { 0 };
  guint sigint_id;
  int status;

  if ((status = parse_options (&o, argc, argv)) != RK_CLI_EXIT_OK)
    return status;

  client = make_client (&o);
  a.cancellable = g_cancellable_new ();
  sigint_id = g_unix_signal_add (SIGINT, sigint_cb, &a);

  /* The server and the model are checked before anything starts: a model
   * the server does not list is refused (exit 4), even by servers that
   * would answer under any name. */
  if (!check_model (client, a.cancellable, &error))
    {
      g_autofree char *message = rk_cli_model_error_message (error, o.endpoint, o.model_api);

      status = fail (o.json, rk_cli_exit_for_model_error (error), message);
    }
  else
    status = open_conversation (&o, client, &a.conversation);
  if (status != RK_CLI_EXIT_OK)
    {
      g_source_remove (sigint_id);
      ask_clear (&a);
      return status;
    }

  a.json = o.json;
  a.limits = o.limits;
  a.at_line_start = TRUE;
  a.turn_text = g_string_new (NULL);
  stdin_stream = g_unix_input_stream_new (STDIN_FILENO, FALSE);
  a.stdin_lines = g_data_input_stream_new (stdin_stream);
  g_signal_connect (rk_conversation_get_agent (a.conversation), "event", G_CALLBACK (agent_event_cb), &a);

  rk_conversation_ask_async (a.conversation, o.question, a.cancellable, rk_cli_keep_result_cb, &a.asked);
  rk_cli_wait (&a.asked);
  g_source_remove (sigint_id);
  a.answer = rk_conversation_ask_finish (a.conversation, a.asked, &a.error);
  status = report_outcome (&a, &o);

  /* The sandbox stops before anything is copied out of the workspace. */
  g_signal_handlers_disconnect_by_data (rk_conversation_get_agent (a.conversation), &a);
  rk_kernel_shutdown (rk_session_get_kernel (rk_conversation_get_session (a.conversation)));
  status = keep_results (&o, a.conversation, status);
  rk_session_expire (rk_conversation_get_session (a.conversation));
  rk_conversation_close (a.conversation);
  ask_clear (&a);
  return status;
}
