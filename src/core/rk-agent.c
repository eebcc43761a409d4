/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-agent.c — the loop: model → code → approval → sandbox → observation,
 * until the model answers, within bounded steps and repairs. */
#define G_LOG_DOMAIN "rk-agent"
#include "config.h"
#include "rk-agent.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "rk-chat-stream.h"
#include "rk-diff.h"
#include "rk-json.h"
#include "rk-markdown.h"
#include "rk-observation.h"
#include "rk-sent-record.h"
#include "rk-session.h"
#include "rk-util.h"

#define PYTHON_TOOL "python"

struct _RkAgent
{
  GObject           parent_instance;

  RkModelClient    *client;
  RkSession        *session;       /* NULL: a fixed kernel (rk_agent_new) */
  RkKernel         *kernel;        /* the kernel of the current or last run */
  RkTranscript     *transcript;
  gulong            kernel_event_id;

  RkApprovalPolicy  policy;
  guint             max_steps;
  guint             max_repairs;
  gsize             observation_budget;
  char             *files_context;
  gboolean          use_tools;

  JsonArray        *history;       /* messages after the system prompt */
  guint             n_cells;

  /* The question being answered. */
  GTask            *task;
  guint             question_entry; /* its user entry: what was sent is kept there */
  gulong            cancelled_id;
  guint             step;
  guint             repairs;
  char             *last_code;     /* code of the last run */
  guint             last_code_entry;
  gboolean          last_failed;
  guint             text_entry;    /* transcript entry being streamed into */
  guint             reasoning_entry;
  gboolean          tools_this_request;
  gboolean          typed;         /* rk_agent_run_code_async: no model turn */
  RkCodeOrigin      origin;        /* and who wrote that code */

  /* The proposal waiting for approval or running. */
  char             *cell_id;
  char             *code;
  char             *tool_call_id;  /* NULL when the code came as text */
  guint             code_entry;
  gboolean          awaiting_approval;
  RkObservation    *observation;
};

G_DEFINE_FINAL_TYPE (RkAgent, rk_agent, G_TYPE_OBJECT)
G_DEFINE_QUARK (rk-agent-error-quark, rk_agent_error)

enum {
  SIGNAL_EVENT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void request_model (RkAgent *self);

static void
emit (RkAgent          *self,
      RkAgentEventType  type,
      const char       *text,
      RkKernelEvent    *kernel_event)
{
  RkAgentEvent event = {
    .type = type,
    .step = self->step,
    .cell_id = self->cell_id,
    .text = text,
    .code = self->code,
    .kernel_event = kernel_event,
  };

  g_signal_emit (self, signals[SIGNAL_EVENT], 0, &event);
}

static void
clear_proposal (RkAgent *self)
{
  g_clear_pointer (&self->cell_id, g_free);
  g_clear_pointer (&self->code, g_free);
  g_clear_pointer (&self->tool_call_id, g_free);
  g_clear_pointer (&self->observation, rk_observation_free);
  self->awaiting_approval = FALSE;
  self->code_entry = 0;
}

/* Ends the current question. Takes @error. */
static void
finish (RkAgent *self,
        char    *answer,
        GError  *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->task);

  if (task == NULL)
    {
      g_free (answer);
      g_clear_error (&error);
      return;
    }
  if (self->cancelled_id != 0)
    {
      g_cancellable_disconnect (g_task_get_cancellable (task), self->cancelled_id);
      self->cancelled_id = 0;
    }
  clear_proposal (self);
  g_clear_pointer (&self->last_code, g_free);

  if (error != NULL)
    {
      const char *kind = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                         ? "cancelled" : "error";
      rk_transcript_add_note (self->transcript, kind, error->message);
      g_task_return_error (task, error);
      g_free (answer);
    }
  else
    g_task_return_pointer (task, answer, g_free);
}

static gboolean
check_cancelled (RkAgent *self)
{
  GCancellable *cancellable = self->task ? g_task_get_cancellable (self->task) : NULL;

  if (g_cancellable_is_cancelled (cancellable))
    {
      finish (self, NULL, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                               _("Stopped.")));
      return TRUE;
    }
  return FALSE;
}

static JsonNode *
python_tool_list (void)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_array (b);
  json_builder_begin_object (b);
  rk_json_add_string_member (b, "type", "function");
  json_builder_set_member_name (b, "function");
  json_builder_begin_object (b);
  rk_json_add_string_member (b, "name", PYTHON_TOOL);
  json_builder_set_member_name (b, "description");
  json_builder_add_string_value (b,
    "Run Python 3 code in the user's analysis session. Variables persist between calls. "
    "The working directory is /workspace, which holds the user's files. "
    "Returns stdout, stderr, the value of the last expression, and the tables, "
    "figures and files the code produced.");
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_object (b);
  rk_json_add_string_member (b, "type", "object");
  json_builder_set_member_name (b, "properties");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "code");
  json_builder_begin_object (b);
  rk_json_add_string_member (b, "type", "string");
  rk_json_add_string_member (b, "description", "The Python code to run.");
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "required");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "code");
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_array (b);
  return json_builder_get_root (b);
}

static JsonNode *
message_new (const char *role,
             const char *content,
             const char *tool_call_id)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (o, "role", role);
  json_object_set_string_member (o, "content", content);
  if (tool_call_id != NULL)
    json_object_set_string_member (o, "tool_call_id", tool_call_id);
  json_node_take_object (node, o);
  return node;
}

char *
rk_agent_build_system_prompt (RkAgent *self)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (RK_IS_AGENT (self), NULL);

  g_string_append (s,
    "You are a data analyst working for a user who does not write code. You answer "
    "their questions about their files by writing Python that Reckon runs for you, "
    "then explaining the result in plain language.\n\n"
    "Your environment:\n"
    "- Python 3 with pandas, numpy, dask, matplotlib, openpyxl, odfpy and pypdf. Nothing else "
    "can be installed, and there is no network access.\n"
    "- The user's files are in /workspace, which is also the working directory. "
    "Read them from there. They are copies; the originals are safe.\n"
    "- Load a table file with df = reckon.load('name.csv'): it reads the file exactly as "
    "its profile below describes (delimiter, header, skipped lines, dates, sheets, "
    "compression). Do not guess read_csv or read_excel arguments. In a big file, text "
    "columns with few distinct values come back as pandas category, and integer columns "
    "whose values fit as int32 (use .astype('int64') before multiplying them by large "
    "numbers: int32 products overflow silently). A table too big "
    "for memory (its profile says “Lazy”) comes back as a Dask DataFrame: call "
    ".compute() on small results only.\n"
    "- Variables persist between your runs, like cells of a notebook.\n"
    "- Showing a DataFrame (as the last expression of your code, or with "
    "reckon.show(df)) gives the user an interactive table; you see its shape, dtypes "
    "and first rows. The `reckon` module is already imported.\n"
    "- matplotlib figures are shown to the user as images. For a native chart, call "
    "reckon.chart(df, kind='line'|'bar'|'area'|'scatter'|'histogram'|'box', x='col', "
    "y='col' or [...], title=...).\n"
    "- Files you write under /workspace (for example /workspace/result.xlsx) are offered "
    "to the user to save.\n"
    "- Print only what you need: output you see is cut to a few thousand characters. "
    "Never print whole files or tables.\n\n");

  if (self->use_tools)
    g_string_append (s,
      "To run code, call the `python` tool with the code. ");
  else
    g_string_append (s,
      "To run code, write it in one fenced block:\n```python\n# your code\n```\n"
      "and stop; you will get the output back. ");
  g_string_append (s,
    "Run code whenever a question needs the data; never guess numbers. Look at the data "
    "first if you are unsure of its shape. If your code fails, read the error and fix it. "
    "When you have the answer, reply in plain language without code, with the numbers "
    "you computed.\n");

  if (self->files_context != NULL && *self->files_context != '\0')
    g_string_append_printf (s, "\nThe files in /workspace:\n%s\n", self->files_context);
  else
    g_string_append (s, "\nThere are no files in /workspace yet.\n");

  return g_string_free (s, FALSE);
}

/* -- running a cell -- */

static RkEntryKind
artifact_kind (RkKernelEventType type)
{
  switch (type)
    {
    case RK_KERNEL_EVENT_TABLE: return RK_ENTRY_TABLE;
    case RK_KERNEL_EVENT_FIGURE: return RK_ENTRY_FIGURE;
    case RK_KERNEL_EVENT_CHART: return RK_ENTRY_CHART;
    default: return RK_ENTRY_FILE;
    }
}

static void
record_artifact (RkAgent       *self,
                 RkKernelEvent *event)
{
  g_autofree char *content_type = NULL;
  g_autofree char *mime = NULL;
  RkTranscriptArtifact artifact = {
    .kind = artifact_kind (event->type),
    .path = event->path,
    .width = event->width,
    .height = event->height,
    .rows = event->rows,
    .columns = event->columns,
  };

  switch (event->type)
    {
    case RK_KERNEL_EVENT_TABLE:
      artifact.mime_type = "application/x-reckon-table";
      artifact.title = event->name;
      break;
    case RK_KERNEL_EVENT_FIGURE:
      artifact.mime_type = g_strcmp0 (event->format, "svg") == 0 ? "image/svg+xml" : "image/png";
      artifact.title = event->title;
      break;
    case RK_KERNEL_EVENT_CHART:
      artifact.mime_type = "application/x-reckon-chart+json";
      artifact.title = event->title;
      break;
    default:
      content_type = g_content_type_guess (event->path, NULL, 0, NULL);
      mime = g_content_type_get_mime_type (content_type);
      artifact.mime_type = mime;
      artifact.title = event->path;
      break;
    }
  rk_transcript_add_artifact (self->transcript, self->cell_id, &artifact);
}

static void
kernel_event_cb (RkKernel      *kernel,
                 RkKernelEvent *event,
                 RkAgent       *self)
{
  if (self->observation == NULL || self->awaiting_approval)
    return;

  rk_observation_add (self->observation, event);

  switch (event->type)
    {
    case RK_KERNEL_EVENT_STREAM:
      rk_transcript_add_stream (self->transcript, self->cell_id,
                                event->stream == RK_KERNEL_STREAM_STDERR ? RK_STREAM_STDERR : RK_STREAM_STDOUT,
                                event->text);
      emit (self, RK_AGENT_EVENT_OUTPUT, event->text, event);
      break;
    case RK_KERNEL_EVENT_RESULT:
      rk_transcript_add_result (self->transcript, self->cell_id, event->text);
      emit (self, RK_AGENT_EVENT_OUTPUT, event->text, event);
      break;
    case RK_KERNEL_EVENT_TABLE:
      record_artifact (self, event);
      emit (self, RK_AGENT_EVENT_TABLE, NULL, event);
      break;
    case RK_KERNEL_EVENT_FIGURE:
      record_artifact (self, event);
      emit (self, RK_AGENT_EVENT_FIGURE, NULL, event);
      break;
    case RK_KERNEL_EVENT_CHART:
      record_artifact (self, event);
      emit (self, RK_AGENT_EVENT_CHART, NULL, event);
      break;
    case RK_KERNEL_EVENT_FILE:
      record_artifact (self, event);
      emit (self, RK_AGENT_EVENT_FILE, NULL, event);
      break;
    case RK_KERNEL_EVENT_ERROR:
      {
        /* A limit (memory, cpu, time) is named as such, not as a bare
         * MemoryError or interrupt. */
        g_autofree char *line = event->limit != RK_SANDBOX_LIMIT_NONE
          ? g_strdup_printf (_("Stopped at the sandbox's “%s” limit: %s"), rk_sandbox_limit_to_name (event->limit),
                             event->evalue)
          : rk_kernel_error_is_plain (event->ename)
          ? g_strdup (event->evalue)
          : g_strdup_printf ("%s: %s", event->ename, event->evalue);
        rk_transcript_add_error (self->transcript, self->cell_id, event->ename,
                                 event->evalue, event->traceback, event->limit, event->limit_value);
        emit (self, RK_AGENT_EVENT_ERROR, line, event);
      }
      break;
    default:
      break;
    }
}

static void
send_observation (RkAgent    *self,
                  const char *text)
{
  if (self->typed)
    {
      /* The model did not write it, but should know what the user ran. */
      g_autofree char *wrapped = g_strdup_printf ("I ran this code myself:\n```python\n%s\n```\nOutput:\n%s",
                                                  self->code ? self->code : "", text);
      json_array_add_element (self->history, message_new ("user", wrapped, NULL));
    }
  else if (self->tool_call_id != NULL)
    json_array_add_element (self->history, message_new ("tool", text, self->tool_call_id));
  else
    {
      g_autofree char *wrapped = g_strdup_printf ("Output of your code:\n%s", text);
      json_array_add_element (self->history, message_new ("user", wrapped, NULL));
    }
}

static void
execute_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(RkAgent) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkKernelEvent) done = NULL;
  g_autofree char *observation = NULL;
  gboolean failed;

  done = rk_kernel_execute_finish (RK_KERNEL (source), result, &error);
  if (self->task == NULL)
    return;
  if (check_cancelled (self))
    return;
  if (done == NULL)
    {
      finish (self, NULL, g_steal_pointer (&error));
      return;
    }

  rk_observation_add (self->observation, done);
  if (done->status == RK_KERNEL_STATUS_DIED && done->message != NULL)
    {
      /* No traceback here: the entry carries the limit, so a window can say
       * what to do without parsing text. */
      rk_transcript_add_error (self->transcript, self->cell_id, "SandboxLimit", done->message, NULL,
                               done->limit, done->limit_value);
      emit (self, RK_AGENT_EVENT_ERROR, done->message, done);
    }
  else if (done->status == RK_KERNEL_STATUS_INTERRUPTED)
    emit (self, RK_AGENT_EVENT_ERROR, _("The run was interrupted."), done);

  observation = rk_observation_format (self->observation, self->observation_budget);
  failed = rk_observation_failed (self->observation);
  emit (self, RK_AGENT_EVENT_RUN_FINISHED, observation, done);
  send_observation (self, observation);

  if (self->typed)
    {
      /* Typed code: the turn ends with the run, whatever its result. */
      finish (self, g_steal_pointer (&observation), NULL);
      return;
    }

  if (failed)
    {
      g_autofree char *last_error = g_strdup (rk_observation_get_error (self->observation));

      self->repairs++;
      if (self->repairs > self->max_repairs)
        {
          finish (self, NULL,
                  g_error_new (RK_AGENT_ERROR, RK_AGENT_ERROR_REPAIR_LIMIT,
                               g_dngettext (GETTEXT_PACKAGE,
                                            "The code still failed after %u automatic repair; the last error was: %s",
                                            "The code still failed after %u automatic repairs; the last error was: %s",
                                            self->max_repairs),
                               self->max_repairs, last_error ? last_error : _("unknown")));
          return;
        }
    }
  else
    self->repairs = 0;

  g_free (self->last_code);
  self->last_code = g_steal_pointer (&self->code);
  self->last_code_entry = self->code_entry;
  self->last_failed = failed;
  clear_proposal (self);
  request_model (self);
}

/* The kernel to run on: with a session, its current one (RkSession makes a
 * new kernel after a restart or expiry), followed from here on. */
static RkKernel *
current_kernel (RkAgent *self)
{
  RkKernel *kernel;

  if (self->session == NULL)
    return self->kernel;
  kernel = rk_session_get_kernel (self->session);
  if (kernel != self->kernel)
    {
      if (self->kernel != NULL)
        g_clear_signal_handler (&self->kernel_event_id, self->kernel);
      g_set_object (&self->kernel, kernel);
      self->kernel_event_id = g_signal_connect (kernel, "event", G_CALLBACK (kernel_event_cb), self);
    }
  return kernel;
}

static void
run_proposal (RkAgent *self)
{
  RkKernel *kernel;

  self->awaiting_approval = FALSE;
  if (self->session != NULL && rk_session_get_state (self->session) != RK_SESSION_ACTIVE)
    {
      finish (self, NULL,
              g_error_new_literal (RK_SESSION_ERROR, RK_SESSION_ERROR_EXPIRED,
                                   rk_session_get_state (self->session) == RK_SESSION_RESTARTING
                                   ? _("The session is restarting; run the code again once it is ready.")
                                   : _("This session has ended; restart it to run code.")));
      return;
    }
  kernel = current_kernel (self);
  self->observation = rk_observation_new (rk_kernel_get_workspace (kernel));
  emit (self, RK_AGENT_EVENT_RUN_STARTED, NULL, NULL);
  rk_kernel_execute_async (kernel, self->code, g_task_get_cancellable (self->task),
                           execute_cb, g_object_ref (self));
}

void
rk_agent_approve (RkAgent         *self,
                  RkAgentDecision  decision,
                  const char      *code)
{
  g_return_if_fail (RK_IS_AGENT (self));

  if (self->task == NULL || !self->awaiting_approval)
    return;

  switch (decision)
    {
    case RK_AGENT_DECISION_EDIT:
      g_return_if_fail (code != NULL);
      g_free (self->code);
      self->code = g_strdup (code);
      rk_transcript_add_approval (self->transcript, self->cell_id, RK_DECISION_EDITED, code);
      run_proposal (self);
      break;
    case RK_AGENT_DECISION_RUN:
      rk_transcript_add_approval (self->transcript, self->cell_id, RK_DECISION_APPROVED, NULL);
      run_proposal (self);
      break;
    case RK_AGENT_DECISION_SKIP:
    default:
      rk_transcript_add_approval (self->transcript, self->cell_id, RK_DECISION_SKIPPED, NULL);
      send_observation (self, "The user chose not to run this code.");
      finish (self, g_strdup (_("You skipped the code, so nothing was run.")), NULL);
      break;
    }
}

/* -- a model turn -- */

static void
propose (RkAgent    *self,
         const char *code,
         const char *tool_call_id)
{
  g_autofree char *diff = NULL;
  const char *previous = NULL;
  RkAgentEvent event = { 0 };

  self->cell_id = g_strdup_printf ("cell-%u", ++self->n_cells);
  self->code = g_strdup (code);
  self->tool_call_id = g_strdup (tool_call_id);

  if (self->last_failed && self->last_code != NULL)
    {
      previous = self->last_code;
      diff = rk_diff_unified (self->last_code, code, _("before"), _("after"), 3);
    }
  self->code_entry = rk_transcript_add_code (self->transcript, self->cell_id, code,
                                             previous ? self->last_code_entry : 0);

  event.type = RK_AGENT_EVENT_CODE_PROPOSED;
  event.step = self->step;
  event.cell_id = self->cell_id;
  event.code = self->code;
  event.previous_code = previous;
  event.diff = diff;
  g_signal_emit (self, signals[SIGNAL_EVENT], 0, &event);

  switch (self->policy)
    {
    case RK_APPROVAL_NEVER:
      send_observation (self, "The code was shown to the user but not run.");
      finish (self, g_strdup (_("The code was shown but not run, because running code is turned off.")), NULL);
      return;
    case RK_APPROVAL_AUTO:
      rk_transcript_add_approval (self->transcript, self->cell_id, RK_DECISION_AUTO, NULL);
      run_proposal (self);
      return;
    case RK_APPROVAL_ASK:
    default:
      if (self->typed && self->origin == RK_CODE_TYPED)
        {
          /* The user wrote it: asking whether to run it would be noise. */
          rk_transcript_add_approval (self->transcript, self->cell_id, RK_DECISION_APPROVED, NULL);
          run_proposal (self);
          return;
        }
      self->awaiting_approval = TRUE;
      event.type = RK_AGENT_EVENT_APPROVAL_NEEDED;
      g_signal_emit (self, signals[SIGNAL_EVENT], 0, &event);
      return;
    }
}

/* The code of a python tool call's arguments: {"code": "..."}, or the
 * arguments themselves when a model passed bare code. */
static char *
code_from_arguments (const char *arguments)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = rk_json_parse (arguments, -1, RK_CHAT_MAX_TOOL_ARGUMENTS,
                                            RK_CHAT_MAX_JSON_DEPTH, RK_JSON_SCAN_DEFAULT, &error);

  if (root != NULL)
    {
      if (JSON_NODE_HOLDS_OBJECT (root))
        {
          JsonObject *o = json_node_get_object (root);
          const char *keys[] = { "code", "source", "script", "python" };

          for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
            {
              JsonNode *member = json_object_get_member (o, keys[i]);
              if (member != NULL && JSON_NODE_HOLDS_VALUE (member)
                  && json_node_get_value_type (member) == G_TYPE_STRING)
                return g_strdup (json_node_get_string (member));
            }
          return NULL;
        }
      if (JSON_NODE_HOLDS_VALUE (root) && json_node_get_value_type (root) == G_TYPE_STRING)
        return g_strdup (json_node_get_string (root));
      return NULL;
    }
  /* Nested too deeply or too long is not bare code either. */
  if (g_error_matches (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE))
    return NULL;
  if (arguments[0] != '{' && arguments[0] != '\0')
    return g_strdup (arguments);
  return NULL;
}

static gboolean
is_python_tool (const char *name)
{
  return g_ascii_strcasecmp (name, "python") == 0
         || g_ascii_strcasecmp (name, "run_python") == 0
         || g_ascii_strcasecmp (name, "execute_python") == 0
         || g_ascii_strcasecmp (name, "code_interpreter") == 0
         || g_ascii_strcasecmp (name, "ipython") == 0;
}

static void
handle_reply (RkAgent     *self,
              RkChatReply *reply)
{
  g_autoptr(GPtrArray) blocks = NULL;
  g_autoptr(GPtrArray) text_calls = NULL;
  g_autofree char *code = NULL;
  const char *call_id = NULL;

  json_array_add_element (self->history, rk_chat_reply_to_message (reply));

  /* 1. A call of the python tool through the API. Every other call gets an
   * answer too, since OpenAI-style servers insist on one per call. */
  for (guint i = 0; i < reply->tool_calls->len; i++)
    {
      RkToolCall *call = g_ptr_array_index (reply->tool_calls, i);
      g_autofree char *call_code = NULL;

      if (code == NULL && is_python_tool (call->name)
          && (call_code = code_from_arguments (call->arguments)) != NULL)
        {
          code = g_steal_pointer (&call_code);
          call_id = call->id;
          continue;
        }
      json_array_add_element (self->history,
                              message_new ("tool",
                                           code == NULL && is_python_tool (call->name)
                                           ? "Error: the arguments must be a JSON object with a \"code\" string."
                                           : code != NULL ? "Not run: send one call at a time."
                                                          : "Error: there is no such tool; use `python`.",
                                           call->id));
    }

  /* 2. A fenced python block in the text. */
  if (code == NULL)
    {
      blocks = rk_markdown_python_blocks (reply->content, -1, RK_MARKDOWN_FLAGS_NONE);
      if (blocks->len > 0)
        {
          GString *joined = g_string_new (NULL);
          for (guint i = 0; i < blocks->len; i++)
            g_string_append (joined, g_ptr_array_index (blocks, i));
          code = g_string_free (joined, FALSE);
        }
    }

  /* 3. A tool call written out as JSON in the text. */
  if (code == NULL)
    {
      text_calls = rk_markdown_find_tool_calls (reply->content, -1);
      for (guint i = 0; i < text_calls->len && code == NULL; i++)
        {
          RkMarkdownToolCall *call = g_ptr_array_index (text_calls, i);
          if (is_python_tool (call->name))
            code = g_strdup (call->code);
        }
    }

  if (code == NULL && reply->tool_calls->len > 0)
    {
      /* Only calls we could not use: tell the model and let it try again. */
      request_model (self);
      return;
    }

  if (code == NULL)
    {
      const char *answer = reply->content;

      if (*answer == '\0')
        answer = _("The model ended its turn without an answer.");
      rk_transcript_add_answer (self->transcript, answer);
      emit (self, RK_AGENT_EVENT_FINAL_ANSWER, answer, NULL);
      finish (self, g_strdup (answer), NULL);
      return;
    }

  propose (self, code, call_id);
}

static void
delta_cb (const RkChatDelta *delta,
          gpointer           user_data)
{
  RkAgent *self = user_data;
  g_autofree char *text = NULL;

  if (self->task == NULL || (delta->kind != RK_CHAT_DELTA_TEXT && delta->kind != RK_CHAT_DELTA_REASONING))
    return;

  text = g_strndup (delta->text, delta->len);
  if (delta->kind == RK_CHAT_DELTA_TEXT)
    {
      if (self->text_entry == 0)
        self->text_entry = rk_transcript_add_assistant (self->transcript, text);
      else
        rk_transcript_append_text (self->transcript, self->text_entry, text);
      emit (self, RK_AGENT_EVENT_TEXT_DELTA, text, NULL);
    }
  else
    {
      if (self->reasoning_entry == 0)
        self->reasoning_entry = rk_transcript_add_reasoning (self->transcript, text);
      else
        rk_transcript_append_text (self->transcript, self->reasoning_entry, text);
      emit (self, RK_AGENT_EVENT_REASONING_DELTA, text, NULL);
    }
}

static gboolean
error_is_about_tools (const GError *error)
{
  g_autofree char *lower = NULL;

  if (!g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP)
      && !g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_SERVER))
    return FALSE;
  lower = g_ascii_strdown (error->message, -1);
  return strstr (lower, "tool") != NULL;
}

static void
chat_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(RkAgent) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChatReply) reply = NULL;

  reply = rk_model_client_chat_finish (RK_MODEL_CLIENT (source), result, &error);
  if (self->task == NULL)
    return;
  if (check_cancelled (self))
    return;
  if (reply == NULL)
    {
      if (self->tools_this_request && error_is_about_tools (error))
        {
          /* The server or model has no tools: ask again for fenced code. */
          self->use_tools = FALSE;
          self->step--;
          request_model (self);
          return;
        }
      finish (self, NULL, g_steal_pointer (&error));
      return;
    }

  handle_reply (self, reply);
}

/* Keeps what this request sends with the question, for the user to read. */
static void
record_request (RkAgent    *self,
                const char *system)
{
  RkTranscriptEntry *question;
  g_autofree char *record = NULL;

  if (self->question_entry == 0 ||
      (question = rk_transcript_lookup (self->transcript, self->question_entry)) == NULL)
    return;
  record = rk_sent_record_add_request (rk_transcript_entry_get_detail (question), system,
                                       self->history, self->use_tools, RK_SENT_RECORD_KEEP_BYTES);
  rk_transcript_set_sent_record (self->transcript, self->question_entry, record);
}

/* The last question of the transcript, or 0. */
static guint
last_question_entry (RkTranscript *transcript)
{
  for (guint i = rk_transcript_get_n_entries (transcript); i > 0; i--)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (transcript, i - 1);

      if (rk_transcript_entry_get_kind (e) == RK_ENTRY_USER)
        return rk_transcript_entry_get_id (e);
    }
  return 0;
}

static void
request_model (RkAgent *self)
{
  g_autoptr(JsonNode) messages = NULL;
  g_autoptr(JsonNode) tools = NULL;
  g_autofree char *system = NULL;
  JsonArray *array;
  GList *elements;

  if (check_cancelled (self))
    return;
  if (self->step >= self->max_steps)
    {
      finish (self, NULL,
              g_error_new (RK_AGENT_ERROR, RK_AGENT_ERROR_STEP_LIMIT,
                           _("The model did not reach an answer within %u steps."),
                           self->max_steps));
      return;
    }
  self->step++;
  self->text_entry = 0;
  self->reasoning_entry = 0;

  system = rk_agent_build_system_prompt (self);
  array = json_array_new ();
  json_array_add_element (array, message_new ("system", system, NULL));
  elements = json_array_get_elements (self->history);
  for (GList *l = elements; l != NULL; l = l->next)
    json_array_add_element (array, json_node_copy (l->data));
  g_list_free (elements);
  messages = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (messages, array);
  record_request (self, system);

  self->tools_this_request = self->use_tools;
  if (self->use_tools)
    tools = python_tool_list ();

  rk_model_client_chat_async (self->client, messages, tools, NULL,
                              delta_cb, self, NULL,
                              g_task_get_cancellable (self->task),
                              chat_cb, g_object_ref (self));
}

static gboolean
cancel_idle_cb (gpointer user_data)
{
  RkAgent *self = user_data;

  if (self->task != NULL && self->awaiting_approval)
    check_cancelled (self);
  return G_SOURCE_REMOVE;
}

static void
cancelled_cb (GCancellable *cancellable,
              RkAgent      *self)
{
  /* Requests and cells end through their own cancellable; a wait for
   * approval has nothing running, so end it from the main loop. */
  g_idle_add_full (G_PRIORITY_DEFAULT, cancel_idle_cb, g_object_ref (self), g_object_unref);
}

/* Starts the one task an agent runs at a time (@source_tag's); FALSE,
 * with RK_AGENT_ERROR_BUSY for @callback, while another runs. */
static gboolean
begin_task (RkAgent             *self,
            gpointer             source_tag,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  if (self->task != NULL)
    {
      g_task_return_new_error (task, RK_AGENT_ERROR, RK_AGENT_ERROR_BUSY,
                               _("Reckon is still answering the previous question."));
      return FALSE;
    }
  self->task = g_steal_pointer (&task);
  self->repairs = 0;
  self->last_failed = FALSE;
  if (cancellable != NULL)
    self->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (cancelled_cb), self, NULL);
  return TRUE;
}

static gboolean
is_last_user_message (RkAgent    *self,
                      const char *question)
{
  guint n = json_array_get_length (self->history);
  JsonObject *last;

  if (n == 0)
    return FALSE;
  last = json_array_get_object_element (self->history, n - 1);
  return last != NULL
         && g_strcmp0 (json_object_get_string_member_with_default (last, "role", NULL), "user") == 0
         && g_strcmp0 (json_object_get_string_member_with_default (last, "content", NULL), question) == 0;
}

void
rk_agent_ask_async (RkAgent             *self,
                    const char          *question,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_return_if_fail (RK_IS_AGENT (self));
  g_return_if_fail (question != NULL);

  if (!begin_task (self, rk_agent_ask_async, cancellable, callback, user_data))
    return;
  self->typed = FALSE;
  self->step = 0;

  /* Asked again after the model never answered it (Retry): it is already
   * the last message, so neither the model nor the reader sees it twice. */
  if (!is_last_user_message (self, question))
    {
      rk_transcript_add_user (self->transcript, question, NULL);
      json_array_add_element (self->history, message_new ("user", question, NULL));
    }
  self->question_entry = last_question_entry (self->transcript);
  request_model (self);
}

/* The code entry that waits for a decision: the last code entry, with no
 * decision for it and no question or answer after it (notes may follow). */
static RkTranscriptEntry *
pending_code_entry (RkTranscript *transcript)
{
  guint n = rk_transcript_get_n_entries (transcript);

  for (guint i = n; i > 0; i--)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (transcript, i - 1);

      switch ((int) rk_transcript_entry_get_kind (e))
        {
        case RK_ENTRY_NOTE:
        case RK_ENTRY_ASSISTANT:
        case RK_ENTRY_REASONING:
          continue;
        case RK_ENTRY_CODE:
          return rk_transcript_entry_get_cell_id (e) != NULL ? e : NULL;
        default:
          return NULL;
        }
    }
  return NULL;
}

gboolean
rk_agent_resume_async (RkAgent             *self,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  RkTranscriptEntry *entry;
  RkAgentEvent event = { 0 };
  g_autofree char *shown = NULL;

  g_return_val_if_fail (RK_IS_AGENT (self), FALSE);

  if (self->task != NULL || self->policy != RK_APPROVAL_ASK ||
      (entry = pending_code_entry (self->transcript)) == NULL)
    return FALSE;

  begin_task (self, rk_agent_ask_async, cancellable, callback, user_data);   /* not busy: checked above */
  self->typed = FALSE;
  self->step = 0;

  g_clear_pointer (&self->cell_id, g_free);
  g_clear_pointer (&self->code, g_free);
  g_clear_pointer (&self->tool_call_id, g_free);
  self->cell_id = g_strdup (rk_transcript_entry_get_cell_id (entry));
  self->code = g_strdup (rk_transcript_entry_get_text (entry) ? rk_transcript_entry_get_text (entry) : "");
  self->code_entry = rk_transcript_entry_get_id (entry);
  /* The model's tool call is not kept across a reopen: what it proposed goes
   * back into the history as a fenced block, and its output as a message. */
  shown = g_strdup_printf ("```python\n%s\n```", self->code);
  json_array_add_element (self->history, message_new ("assistant", shown, NULL));

  self->question_entry = last_question_entry (self->transcript);
  self->awaiting_approval = TRUE;
  event.type = RK_AGENT_EVENT_APPROVAL_NEEDED;
  event.cell_id = self->cell_id;
  event.code = self->code;
  g_signal_emit (self, signals[SIGNAL_EVENT], 0, &event);
  return TRUE;
}

char *
rk_agent_ask_finish (RkAgent       *self,
                     GAsyncResult  *result,
                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
rk_agent_run_code_async (RkAgent             *self,
                         const char          *code,
                         RkCodeOrigin         origin,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_return_if_fail (RK_IS_AGENT (self));
  g_return_if_fail (code != NULL);

  if (!begin_task (self, rk_agent_run_code_async, cancellable, callback, user_data))
    return;
  self->typed = TRUE;
  self->origin = origin;
  self->question_entry = 0;
  self->step = 1;

  propose (self, code, NULL);
}

char *
rk_agent_run_code_finish (RkAgent       *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* What the model should remember of a conversation restored from disk:
 * the questions, the code the user typed, and the answers. */
static void
history_from_transcript (RkAgent *self)
{
  guint n = rk_transcript_get_n_entries (self->transcript);

  for (guint i = 0; i < n; i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (self->transcript, i);
      const char *text = rk_transcript_entry_get_text (e);

      switch ((int) rk_transcript_entry_get_kind (e))
        {
        case RK_ENTRY_USER:
          json_array_add_element (self->history, message_new ("user", text, NULL));
          break;
        case RK_ENTRY_ANSWER:
          json_array_add_element (self->history, message_new ("assistant", text, NULL));
          break;
        default:
          break;
        }
    }
}

/* -- object -- */

/* The highest N of the "cell-N" ids in @transcript. A reopened conversation
 * numbers its new cells after it: a second "cell-1" was taken for the first
 * (the provenance credited a later cell's code to an earlier figure). */
static guint
last_cell_number (RkTranscript *transcript)
{
  guint last = 0;

  for (guint i = 0; i < rk_transcript_get_n_entries (transcript); i++)
    {
      const char *id = rk_transcript_entry_get_cell_id (rk_transcript_get_entry (transcript, i));
      guint64 n;

      if (id != NULL && g_str_has_prefix (id, "cell-") &&
          g_ascii_string_to_unsigned (id + 5, 10, 1, G_MAXUINT - 1, &n, NULL))
        last = MAX (last, (guint) n);
    }
  return last;
}

RkAgent *
rk_agent_new_for_session (RkModelClient *client,
                          RkSession     *session,
                          RkTranscript  *transcript)
{
  RkAgent *self;

  g_return_val_if_fail (RK_IS_MODEL_CLIENT (client), NULL);
  g_return_val_if_fail (RK_IS_SESSION (session), NULL);

  self = g_object_new (RK_TYPE_AGENT, NULL);
  self->client = g_object_ref (client);
  self->session = g_object_ref (session);
  self->transcript = transcript ? g_object_ref (transcript) : rk_transcript_new ();
  self->n_cells = last_cell_number (self->transcript);
  history_from_transcript (self);
  return self;
}

RkAgent *
rk_agent_new (RkModelClient *client,
              RkKernel      *kernel,
              RkTranscript  *transcript)
{
  RkAgent *self;

  g_return_val_if_fail (RK_IS_MODEL_CLIENT (client), NULL);
  g_return_val_if_fail (RK_IS_KERNEL (kernel), NULL);

  self = g_object_new (RK_TYPE_AGENT, NULL);
  self->client = g_object_ref (client);
  self->kernel = g_object_ref (kernel);
  self->transcript = transcript ? g_object_ref (transcript) : rk_transcript_new ();
  self->n_cells = last_cell_number (self->transcript);
  self->kernel_event_id = g_signal_connect (kernel, "event", G_CALLBACK (kernel_event_cb), self);
  return self;
}

RkTranscript *
rk_agent_get_transcript (RkAgent *self)
{
  g_return_val_if_fail (RK_IS_AGENT (self), NULL);
  return self->transcript;
}

void
rk_agent_set_policy (RkAgent          *self,
                     RkApprovalPolicy  policy)
{
  g_return_if_fail (RK_IS_AGENT (self));
  self->policy = policy;
}

RkApprovalPolicy
rk_agent_get_policy (RkAgent *self)
{
  g_return_val_if_fail (RK_IS_AGENT (self), RK_APPROVAL_ASK);
  return self->policy;
}

void
rk_agent_set_max_steps (RkAgent *self,
                        guint    steps)
{
  g_return_if_fail (RK_IS_AGENT (self));
  self->max_steps = MAX (steps, 1);
}

void
rk_agent_set_max_repairs (RkAgent *self,
                          guint    repairs)
{
  g_return_if_fail (RK_IS_AGENT (self));
  self->max_repairs = repairs;
}

void
rk_agent_set_observation_budget (RkAgent *self,
                                 gsize    bytes)
{
  g_return_if_fail (RK_IS_AGENT (self));
  self->observation_budget = MAX (bytes, 200);
}

void
rk_agent_set_files_context (RkAgent    *self,
                            const char *context)
{
  g_return_if_fail (RK_IS_AGENT (self));
  g_free (self->files_context);
  self->files_context = g_strdup (context);
}

void
rk_agent_set_use_tools (RkAgent  *self,
                        gboolean  use_tools)
{
  g_return_if_fail (RK_IS_AGENT (self));
  self->use_tools = use_tools;
}

static void
rk_agent_dispose (GObject *object)
{
  RkAgent *self = RK_AGENT (object);

  if (self->kernel != NULL)
    g_clear_signal_handler (&self->kernel_event_id, self->kernel);
  g_clear_object (&self->kernel);
  g_clear_object (&self->session);
  g_clear_object (&self->client);
  g_clear_object (&self->transcript);

  G_OBJECT_CLASS (rk_agent_parent_class)->dispose (object);
}

static void
rk_agent_finalize (GObject *object)
{
  RkAgent *self = RK_AGENT (object);

  clear_proposal (self);
  g_clear_pointer (&self->history, json_array_unref);
  g_free (self->files_context);
  g_free (self->last_code);

  G_OBJECT_CLASS (rk_agent_parent_class)->finalize (object);
}

static void
rk_agent_class_init (RkAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rk_agent_dispose;
  object_class->finalize = rk_agent_finalize;

  signals[SIGNAL_EVENT] =
    g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
rk_agent_init (RkAgent *self)
{
  self->policy = RK_APPROVAL_ASK;
  self->max_steps = 8;
  self->max_repairs = 3;
  self->observation_budget = RK_OBSERVATION_DEFAULT_BUDGET;
  self->use_tools = TRUE;
  self->history = json_array_new ();
}
