/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation.c — one chat: transcript, session, agent and file
 * profiles tied together, saved as it grows, for the window to bind to. */
#define G_LOG_DOMAIN "rk-conversation"
#include "config.h"

#include <errno.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "rk-conversation-file-private.h"
#include "rk-conversation-private.h"
#include "rk-import.h"
#include "rk-json.h"
#include "rk-text.h"
#include "rk-transcript-entry-private.h"
#include "rk-util.h"

/* What the model is told about the files, at most. */
#define FILES_CONTEXT_MAX  12000
#define TITLE_MAX_CHARS    60
/* Sandboxes profiling at once: 20 files dropped together must not start
 * 20 interpreters side by side (each imports pandas, each may use memory). */
#define MAX_PROFILING      2

struct _RkConversation
{
  GObject              parent_instance;

  RkModelClient       *client;
  GObject             *store;        /* NULL: not saved */
  char                *store_dir;
  RkConversationSaveFunc save;
  RkConversationMeta  *meta;
  RkTranscript        *transcript;
  RkSession           *session;
  RkAgent             *agent;
  GSettings           *settings;

  GCancellable        *cancellable;  /* all background work; cancelled by close */
  GListStore          *files;        /* RkConversationFile, in the order added */
  GQueue               waiting;      /* RkConversationFile (a reference) copied, waiting to be profiled */
  guint                n_profiling;
  guint64              profile_memory;  /* the kernel's memory limit, for the profiler too */
  guint                prompt_samples;  /* sample values per column told to the model */

  RkApprovalPolicy     policy;
  gboolean             auto_approve;
  gboolean             busy;
  char                *pending_approval;
  char                *running_cell;
  gint64               cell_started;
  gboolean             expired;
  char                *kernel_error;
  char                *last_question;
  gboolean             asked;        /* a question was asked: the title stays */

  GCancellable        *turn;         /* the question or typed code being handled */
  GCancellable        *caller;       /* the caller's cancellable of that turn */
  gulong               caller_id;

  guint                start_id;
  gboolean             closed;
  gint64               created_us;   /* monotonic: for the kernel-ready debug line */
};

G_DEFINE_FINAL_TYPE (RkConversation, rk_conversation, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_BUSY,
  PROP_PENDING_APPROVAL,
  PROP_RUNNING_CELL,
  PROP_CELL_STARTED,
  PROP_AUTO_APPROVE,
  PROP_TITLE,
  PROP_EXPIRED,
  PROP_KERNEL_ERROR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void start_kernel (RkConversation *self);

/* -- metadata --------------------------------------------------------------- */

RkConversationMeta *
_rk_conversation_meta_new (const char *id)
{
  RkConversationMeta *meta = g_new0 (RkConversationMeta, 1);

  meta->id = g_strdup (id);
  meta->files = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_session_file_free);
  return meta;
}

void
_rk_conversation_meta_free (RkConversationMeta *meta)
{
  if (meta == NULL)
    return;
  g_free (meta->id);
  g_free (meta->title);
  g_free (meta->session_id);
  g_ptr_array_unref (meta->files);
  g_free (meta);
}

/* -- saving ----------------------------------------------------------------- */

static void
save_meta (RkConversation *self)
{
  g_autoptr(GError) error = NULL;

  if (self->store == NULL || self->meta == NULL)
    return;
  if (!self->save (self->store, self->meta, self->expired, &error))
    g_warning ("conversation %s: %s", self->meta->id, error->message);
}

static void
transcript_saved_cb (RkTranscript   *transcript,
                     RkConversation *self)
{
  self->meta->updated = g_get_real_time ();
  save_meta (self);
}

/* The session keeps the records of the files in its workspace (what a
 * restart imports again); the saved state follows them. */
static void
keep_session_files (RkConversation *self)
{
  GPtrArray *files = rk_session_get_files (self->session);

  g_ptr_array_set_size (self->meta->files, 0);
  for (guint i = 0; i < files->len; i++)
    {
      const RkSessionFile *f = g_ptr_array_index (files, i);

      g_ptr_array_add (self->meta->files, rk_session_file_new (f->name, f->original_path));
    }
}

static void
session_files_changed_cb (RkSession      *session,
                          RkConversation *self)
{
  keep_session_files (self);
  save_meta (self);
}

/* -- title ------------------------------------------------------------------ */

static void
set_title_internal (RkConversation *self,
                    const char     *title)
{
  if (g_strcmp0 (self->meta->title, title) == 0)
    return;
  g_free (self->meta->title);
  self->meta->title = g_strdup (title);
  save_meta (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

/* The first line of @text, cut to TITLE_MAX_CHARS characters. */
static char *
title_from (const char *text)
{
  g_autofree char *valid = rk_text_first_line (text);

  if (valid == NULL)
    return NULL;
  if (g_utf8_strlen (valid, -1) <= TITLE_MAX_CHARS)
    return g_steal_pointer (&valid);
  {
    g_autofree char *cut = g_utf8_substring (valid, 0, TITLE_MAX_CHARS - 1);
    return g_strconcat (g_strchomp (cut), "…", NULL);
  }
}

/* -- properties that follow the agent -------------------------------------- */

static void
set_string_prop (RkConversation  *self,
                 char           **field,
                 const char      *value,
                 guint            prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
set_busy (RkConversation *self,
          gboolean        busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
agent_event_cb (RkAgent            *agent,
                const RkAgentEvent *event,
                RkConversation     *self)
{
  switch (event->type)
    {
    case RK_AGENT_EVENT_APPROVAL_NEEDED:
      set_string_prop (self, &self->pending_approval, event->cell_id, PROP_PENDING_APPROVAL);
      break;
    case RK_AGENT_EVENT_RUN_STARTED:
      g_object_freeze_notify (G_OBJECT (self));
      set_string_prop (self, &self->pending_approval, NULL, PROP_PENDING_APPROVAL);
      self->cell_started = g_get_monotonic_time ();
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CELL_STARTED]);
      set_string_prop (self, &self->running_cell, event->cell_id, PROP_RUNNING_CELL);
      g_object_thaw_notify (G_OBJECT (self));
      break;
    case RK_AGENT_EVENT_RUN_FINISHED:
      set_string_prop (self, &self->running_cell, NULL, PROP_RUNNING_CELL);
      break;
    case RK_AGENT_EVENT_TEXT_DELTA:
    case RK_AGENT_EVENT_REASONING_DELTA:
    case RK_AGENT_EVENT_CODE_PROPOSED:
    case RK_AGENT_EVENT_OUTPUT:
    case RK_AGENT_EVENT_TABLE:
    case RK_AGENT_EVENT_FIGURE:
    case RK_AGENT_EVENT_CHART:
    case RK_AGENT_EVENT_FILE:
    case RK_AGENT_EVENT_ERROR:
    case RK_AGENT_EVENT_FINAL_ANSWER:
    default:
      break;
    }
}

static void
update_policy (RkConversation *self)
{
  rk_agent_set_policy (self->agent, self->auto_approve ? RK_APPROVAL_AUTO : self->policy);
}

/* -- session ---------------------------------------------------------------- */

static void
set_expired (RkConversation *self,
             gboolean        expired)
{
  if (self->expired == expired)
    return;
  self->expired = expired;
  save_meta (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXPIRED]);
}

static void
session_state_cb (RkSession      *session,
                  GParamSpec     *pspec,
                  RkConversation *self)
{
  RkSessionState state = rk_session_get_state (session);

  if (state == RK_SESSION_EXPIRED)
    set_expired (self, TRUE);
  else if (state == RK_SESSION_ACTIVE)
    set_expired (self, FALSE);
}

static void
session_expired_cb (RkSession      *session,
                    RkConversation *self)
{
  guint seconds = rk_session_get_idle_timeout (session);
  guint minutes = (seconds + 59) / 60;

  /* Under a minute only where the setting was made in seconds (tests, or
   * the schema key by hand): say what it was, not "1 minute". */
  if (seconds > 0 && seconds < 60)
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "The session ended after %u second without activity, and its files and results were deleted. Restart it to work on.",
                                                            "The session ended after %u seconds without activity, and its files and results were deleted. Restart it to work on.",
                                                            seconds), seconds);
      rk_transcript_add_note (self->transcript, "session-expired", text);
    }
  else if (minutes > 0)
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "The session ended after %u minute without activity, and its files and results were deleted. Restart it to work on.",
                                                            "The session ended after %u minutes without activity, and its files and results were deleted. Restart it to work on.",
                                                            minutes), minutes);
      rk_transcript_add_note (self->transcript, "session-expired", text);
    }
  else
    rk_transcript_add_note (self->transcript, "session-expired",
                            _("The session ended, and its files and results were deleted. Restart it to work on."));
}

static void
set_kernel_error (RkConversation *self,
                  const char     *message)
{
  set_string_prop (self, &self->kernel_error, message, PROP_KERNEL_ERROR);
}

static void
kernel_started_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(RkConversation) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!rk_kernel_start_finish (RK_KERNEL (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        set_kernel_error (self, error->message);
      return;
    }
  /* tests/bench/bench-window.py reads this line (G_MESSAGES_DEBUG=rk-conversation). */
  g_debug ("kernel ready %.1f ms after the conversation was made",
           (g_get_monotonic_time () - self->created_us) / 1000.0);
  set_kernel_error (self, NULL);
}

static gboolean
start_kernel_idle_cb (gpointer data)
{
  RkConversation *self = data;

  self->start_id = 0;
  start_kernel (self);
  return G_SOURCE_REMOVE;
}

/* The kernel starts before the first question, so the user does not wait. */
static void
start_kernel (RkConversation *self)
{
  g_autoptr(GError) error = NULL;

  if (self->closed || rk_session_get_state (self->session) != RK_SESSION_ACTIVE)
    return;
  if (!rk_check_sandbox_parts (&error))
    {
      set_kernel_error (self, error->message);
      return;
    }
  rk_kernel_start_async (rk_session_get_kernel (self->session), self->cancellable,
                         kernel_started_cb, g_object_ref (self));
}

/* -- settings --------------------------------------------------------------- */

static gboolean
settings_has_key (GSettings  *settings,
                  const char *key)
{
  g_autoptr(GSettingsSchema) schema = NULL;

  g_object_get (settings, "settings-schema", &schema, NULL);
  return schema != NULL && g_settings_schema_has_key (schema, key);
}

static void
settings_changed_cb (GSettings      *settings,
                     const char     *key,
                     RkConversation *self)
{
  if (key == NULL || g_str_equal (key, "approval-policy"))
    {
      if (settings_has_key (settings, "approval-policy"))
        rk_conversation_set_approval_policy (self, (RkApprovalPolicy) g_settings_get_enum (settings, "approval-policy"));
    }
  if (key == NULL || g_str_equal (key, "idle-expiry-seconds") || g_str_equal (key, "idle-expiry"))
    {
      if (settings_has_key (settings, "idle-expiry-seconds"))
        rk_conversation_set_idle_timeout (self, g_settings_get_uint (settings, "idle-expiry-seconds"));
      else if (settings_has_key (settings, "idle-expiry"))
        rk_conversation_set_idle_timeout (self, g_settings_get_uint (settings, "idle-expiry") * 60);
    }
  if (key == NULL || g_str_equal (key, "memory-limit") || g_str_equal (key, "cell-time-limit") ||
      g_str_equal (key, "disk-limit"))
    {
      RkKernelLimits limits = { 0 };

      if (settings_has_key (settings, "memory-limit"))
        limits.memory_bytes = (guint64) g_settings_get_uint (settings, "memory-limit") * 1024 * 1024;
      if (settings_has_key (settings, "disk-limit"))
        limits.disk_bytes = (guint64) g_settings_get_uint (settings, "disk-limit") * 1024 * 1024;
      if (settings_has_key (settings, "cell-time-limit"))
        limits.cell_time_seconds = g_settings_get_uint (settings, "cell-time-limit");
      rk_conversation_set_kernel_limits (self, &limits);
    }
  if ((key == NULL || g_str_equal (key, "prompt-samples")) && settings_has_key (settings, "prompt-samples"))
    rk_conversation_set_prompt_samples (self, g_settings_get_uint (settings, "prompt-samples"));
}

void
rk_conversation_set_settings (RkConversation *self,
                              GSettings      *settings)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));
  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));

  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_set_object (&self->settings, settings);
  if (settings == NULL)
    return;
  g_signal_connect (settings, "changed", G_CALLBACK (settings_changed_cb), self);
  settings_changed_cb (settings, NULL, self);
}

void
rk_conversation_set_kernel_limits (RkConversation       *self,
                                   const RkKernelLimits *limits)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));

  rk_session_set_kernel_limits (self->session, limits);
  /* Profiles judge "lazy or not" against the limit reckon.load will have. */
  self->profile_memory = limits != NULL ? limits->memory_bytes : 0;
  /* The time limit applies at once; the rest from the next kernel start. */
  if (limits != NULL)
    rk_kernel_set_cell_time_limit (rk_session_get_kernel (self->session), limits->cell_time_seconds);
}

static void update_files_context (RkConversation *self);

void
rk_conversation_set_prompt_samples (RkConversation *self,
                                    guint           samples)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));

  samples = MIN (samples, RK_PROMPT_SAMPLES_MAX);
  if (samples == self->prompt_samples)
    return;
  self->prompt_samples = samples;
  /* The next request tells the model with the new choice. */
  update_files_context (self);
}

void
rk_conversation_set_idle_timeout (RkConversation *self,
                                  guint           seconds)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));
  rk_session_set_idle_timeout (self->session, seconds);
}

void
rk_conversation_set_approval_policy (RkConversation   *self,
                                     RkApprovalPolicy  policy)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));
  self->policy = policy;
  update_policy (self);
}

/* -- files ------------------------------------------------------------------ */

static void
update_files_context (RkConversation *self)
{
  g_autoptr(GPtrArray) profiles = rk_conversation_dup_profiles (self);
  g_autofree char *context = NULL;

  if (profiles->len > 0)
    context = rk_profiles_to_prompt (profiles, FILES_CONTEXT_MAX, self->prompt_samples);
  rk_agent_set_files_context (self->agent, context);
}

/* The JSON kept in the entry for a profile that is only an error. */
static char *
error_profile_json (const char *name,
                    const char *error)
{
  g_autoptr(JsonBuilder) b = json_builder_new_immutable ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  rk_json_add_string_member (b, "name", name);
  rk_json_add_string_member (b, "kind", "unknown");
  rk_json_add_string_member (b, "error", error);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return json_to_string (root, FALSE);
}

static void finish_removal (RkConversation     *self,
                            RkConversationFile *file);

/* Ends the work on @file with @profile (taken). */
static void
file_done (RkConversation     *self,
           RkConversationFile *file,
           RkFileProfile      *profile)
{
  g_clear_object (&file->cancellable);
  if (file->state == RK_CONVERSATION_FILE_REMOVED)
    {
      rk_file_profile_free (profile);
      finish_removal (self, file);
      return;
    }
  if (profile->raw_json != NULL)
    rk_transcript_set_attachment_profile (self->transcript, file->entry_id, profile->raw_json);
  else
    {
      g_autofree char *json = error_profile_json (file->name, profile->error ? profile->error : "");
      rk_transcript_set_attachment_profile (self->transcript, file->entry_id, json);
    }
  g_object_freeze_notify (G_OBJECT (file));
  _rk_conversation_file_set_state (file, profile->error != NULL ? RK_CONVERSATION_FILE_FAILED
                                                                : RK_CONVERSATION_FILE_READY);
  _rk_conversation_file_take_profile (file, profile);
  update_files_context (self);
  g_object_thaw_notify (G_OBJECT (file));
}

static void
file_failed (RkConversation     *self,
             RkConversationFile *file,
             const GError       *error)
{
  const char *message = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                        ? _("Reading this file was stopped.") : error->message;

  file_done (self, file, rk_file_profile_new_error (file->name, message));
}

typedef struct
{
  RkConversation     *self;
  RkConversationFile *file;
} FileOp;

static FileOp *
file_op_new (RkConversation     *self,
             RkConversationFile *file)
{
  FileOp *op = g_new0 (FileOp, 1);

  op->self = g_object_ref (self);
  op->file = g_object_ref (file);
  return op;
}

static void
file_op_free (FileOp *op)
{
  g_object_unref (op->self);
  g_object_unref (op->file);
  g_free (op);
}

static void start_waiting (RkConversation *self);

/* The profiler read @done of @total bytes of @name (in the GUI thread, a
 * few times a second; never after profiled_cb). */
static void
profile_progress_cb (const char *name,
                     guint64     done,
                     guint64     total,
                     gpointer    user_data)
{
  FileOp *op = user_data;

  if (op->file->state != RK_CONVERSATION_FILE_PROFILING || total == 0 || g_strcmp0 (name, op->file->name) != 0)
    return;
  _rk_conversation_file_set_progress (op->file, (double) done / (double) total);
}

/* A big CSV's profile from its sample, before its rows are counted (in the
 * GUI thread, at most once; never after profiled_cb). */
static void
profile_partial_cb (const RkFileProfile *profile,
                    gpointer             user_data)
{
  FileOp *op = user_data;

  if (op->file->state != RK_CONVERSATION_FILE_PROFILING || op->file->estimate != NULL ||
      g_strcmp0 (profile->name, op->file->name) != 0)
    return;
  _rk_conversation_file_take_estimate (op->file, rk_file_profile_copy (profile));
}

/* The profiler's readings reached the workspace (or not: reckon.load then
 * detects the reading again, as the profiler did). */
static void
readings_taken_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!rk_session_take_staged_finish (RK_SESSION (source), result, &error))
    g_debug ("a reading was not kept for reckon.load: %s", error->message);
}

static void
profiled_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  FileOp *op = user_data;
  RkConversation *self = op->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) profiles = rk_profile_files_finish (result, &error);

  /* Staged beside a kernel whose capped workspace would not see them. */
  rk_session_take_staged_async (self->session, readings_taken_cb, NULL);
  self->n_profiling--;
  if (profiles == NULL)
    file_failed (self, op->file, error);
  else if (profiles->len == 0)
    file_done (self, op->file, rk_file_profile_new_error (op->file->name, _("The file could not be read.")));
  else
    file_done (self, op->file, rk_file_profile_copy (g_ptr_array_index (profiles, 0)));
  start_waiting (self);
  file_op_free (op);
}

static void
start_profile (RkConversation     *self,
               RkConversationFile *file)
{
  const char *names[] = { file->name, NULL };
  g_auto(GStrv) inputs = rk_session_dup_file_names (self->session);
  RkProfileOptions options = RK_PROFILE_OPTIONS_INIT;
  FileOp *op = file_op_new (self, file);

  self->n_profiling++;
  options.stage_readings = TRUE;
  options.inputs = (const char * const *) inputs;
  options.memory_bytes = self->profile_memory;
  options.header = file->header;
  options.skip_lines = file->skip_lines;
  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_PROFILING);
  rk_profile_files_async (rk_session_get_workspace (self->session), names, &options,
                          profile_progress_cb, profile_partial_cb, op, file->cancellable,
                          profiled_cb, op);
}

/* Starts waiting files while there is a free slot. */
static void
start_waiting (RkConversation *self)
{
  while (self->n_profiling < MAX_PROFILING && !g_queue_is_empty (&self->waiting) && !self->closed)
    {
      g_autoptr(RkConversationFile) file = g_queue_pop_head (&self->waiting);

      start_profile (self, file);
    }
}

static void
profile_file (RkConversation     *self,
              RkConversationFile *file)
{
  if (file->cancellable == NULL)
    file->cancellable = g_cancellable_new ();
  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_WAITING);
  g_queue_push_tail (&self->waiting, g_object_ref (file));
  start_waiting (self);
}

/* Takes @file off the queue of files waiting for the profiler. */
static gboolean
unqueue (RkConversation     *self,
         RkConversationFile *file)
{
  if (!g_queue_remove (&self->waiting, file))
    return FALSE;
  g_object_unref (file);
  return TRUE;
}

static void
imported_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  FileOp *op = user_data;
  RkConversation *self = op->self;
  RkConversationFile *file = op->file;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = rk_session_add_file_finish (RK_SESSION (source), result, &error);

  if (name == NULL)
    {
      file_failed (self, file, error);
      file_op_free (op);
      return;
    }
  if (g_strcmp0 (name, file->name) != 0)
    {
      /* Something took the predicted name meanwhile: use the real one. */
      RkTranscriptEntry *entry = rk_transcript_lookup (self->transcript, file->entry_id);

      if (entry != NULL)
        _rk_transcript_entry_set_name (entry, name);
      _rk_conversation_file_set_name (file, name);
    }
  _rk_conversation_file_set_copied (file, TRUE);
  if (g_cancellable_is_cancelled (file->cancellable))
    {
      g_autoptr(GError) cancelled = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "");
      file_failed (self, file, cancelled);
    }
  else
    profile_file (self, file);
  file_op_free (op);
}

RkConversationFile *
rk_conversation_lookup_file (RkConversation *self,
                             const char     *name)
{
  GListModel *files;

  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);

  files = G_LIST_MODEL (self->files);
  for (guint i = 0; name != NULL && i < g_list_model_get_n_items (files); i++)
    {
      g_autoptr(RkConversationFile) file = g_list_model_get_item (files, i);

      if (g_strcmp0 (file->name, name) == 0)
        return file;
    }
  return NULL;
}

/* The name rk_import_file() will give @basename, unless something else
 * takes it first: the same sanitising and numbering, against the files of
 * this conversation (also those still being copied) and the workspace. */
static char *
predict_name (RkConversation *self,
              const char     *basename)
{
  g_autofree char *clean = rk_import_sanitize_name (basename, RK_IMPORT_NAME_MAX);
  const char *workspace = rk_workspace_get_path (rk_session_get_workspace (self->session));

  for (guint n = 1; n < 10000; n++)
    {
      g_autofree char *candidate = n == 1 ? g_strdup (clean) : rk_import_numbered_name (clean, n, RK_IMPORT_NAME_MAX);
      g_autofree char *path = g_build_filename (workspace, candidate, NULL);

      if (rk_conversation_lookup_file (self, candidate) == NULL &&
          !g_file_test (path, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK))
        return g_steal_pointer (&candidate);
    }
  return g_steal_pointer (&clean);
}

void
rk_conversation_add_files (RkConversation  *self,
                           GFile          **files,
                           guint            n_files)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));
  g_return_if_fail (files != NULL || n_files == 0);

  for (guint i = 0; i < n_files; i++)
    {
      g_autofree char *path = g_file_get_path (files[i]);
      g_autofree char *basename = g_file_get_basename (files[i]);
      g_autofree char *display = NULL;
      g_autofree char *name = NULL;
      g_autoptr(RkConversationFile) file = NULL;

      if (basename == NULL)
        basename = g_strdup ("file");
      display = g_filename_display_name (basename);
      name = predict_name (self, basename);
      file = _rk_conversation_file_new (name, path);
      file->cancellable = g_cancellable_new ();
      /* In the list before its entry: a view of the entry finds it there. */
      g_list_store_append (self->files, file);
      file->entry_id = rk_transcript_add_attachment (self->transcript, file->name, display);
      /* Until a question is asked, the first file names the chat. */
      if (!self->asked && !self->meta->title_set && g_list_model_get_n_items (G_LIST_MODEL (self->files)) == 1)
        set_title_internal (self, display);

      if (path == NULL)
        {
          g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                                                         _("Only files on this computer can be added."));
          file_failed (self, file, error);
          continue;
        }
      rk_session_add_file_async (self->session, path, file->cancellable, imported_cb, file_op_new (self, file));
    }
}

GListModel *
rk_conversation_get_files (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return G_LIST_MODEL (self->files);
}

gboolean
rk_conversation_is_profiling (RkConversation *self)
{
  GListModel *files;

  g_return_val_if_fail (RK_IS_CONVERSATION (self), FALSE);

  files = G_LIST_MODEL (self->files);
  for (guint i = 0; i < g_list_model_get_n_items (files); i++)
    {
      g_autoptr(RkConversationFile) file = g_list_model_get_item (files, i);

      if (rk_conversation_file_get_busy (file))
        return TRUE;
    }
  return FALSE;
}

GPtrArray *
rk_conversation_dup_profiles (RkConversation *self)
{
  GPtrArray *profiles;
  GListModel *files;

  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);

  profiles = g_ptr_array_new ();
  files = G_LIST_MODEL (self->files);
  for (guint i = 0; i < g_list_model_get_n_items (files); i++)
    {
      g_autoptr(RkConversationFile) file = g_list_model_get_item (files, i);

      if (file->profile != NULL)
        g_ptr_array_add (profiles, file->profile);
    }
  return profiles;
}

void
rk_conversation_cancel_profile (RkConversation *self,
                                const char     *name)
{
  RkConversationFile *file;

  g_return_if_fail (RK_IS_CONVERSATION (self));

  file = rk_conversation_lookup_file (self, name);
  if (file == NULL || !rk_conversation_file_get_busy (file) || file->cancellable == NULL)
    return;
  g_cancellable_cancel (file->cancellable);
  /* Not started yet: nothing will call back, so end it here. */
  if (unqueue (self, file))
    {
      g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "");
      file_failed (self, file, error);
    }
}

gboolean
rk_conversation_reprofile (RkConversation         *self,
                           const char             *name,
                           const RkProfileOptions *options)
{
  RkConversationFile *file;

  g_return_val_if_fail (RK_IS_CONVERSATION (self), FALSE);
  g_return_val_if_fail (options != NULL, FALSE);

  file = rk_conversation_lookup_file (self, name);
  if (file == NULL || rk_conversation_file_get_busy (file) || file->profile == NULL || self->closed)
    return FALSE;
  file->header = options->header;
  file->skip_lines = options->skip_lines;
  _rk_conversation_file_take_profile (file, NULL);
  update_files_context (self);
  rk_transcript_set_attachment_profile (self->transcript, file->entry_id, NULL);
  profile_file (self, file);
  return TRUE;
}

/* The end of a removal: the file leaves the session (and the workspace). */
static void
finish_removal (RkConversation     *self,
                RkConversationFile *file)
{
  g_autoptr(GError) error = NULL;

  if (!rk_session_remove_file (self->session, file->name, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_warning ("%s stays in the workspace: %s", file->name, error->message);
  _rk_conversation_file_set_copied (file, FALSE);
}

char *
rk_conversation_remove_file (RkConversation *self,
                             const char     *name)
{
  g_autoptr(RkConversationFile) file = NULL;
  RkConversationFile *found;
  gboolean busy;
  guint position;

  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);

  found = rk_conversation_lookup_file (self, name);
  if (found == NULL || !g_list_store_find (self->files, found, &position))
    return NULL;
  file = g_object_ref (found);
  busy = rk_conversation_file_get_busy (file);
  rk_transcript_remove_attachment (self->transcript, file->entry_id);
  file->entry_id = 0;
  g_list_store_remove (self->files, position);
  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_REMOVED);
  update_files_context (self);
  /* Being copied or profiled: it ends as cancelled, and file_done
   * finishes the removal. */
  if (busy && !unqueue (self, file))
    g_cancellable_cancel (file->cancellable);
  else
    finish_removal (self, file);
  return g_strdup (file->original ? file->original : "");
}

/* -- questions and typed code ----------------------------------------------- */

static void
caller_cancelled_cb (GCancellable *caller,
                     GCancellable *turn)
{
  g_cancellable_cancel (turn);
}

static gboolean
begin_turn (RkConversation *self,
            GTask          *task,
            GCancellable   *cancellable)
{
  if (self->busy)
    {
      g_task_return_new_error (task, RK_AGENT_ERROR, RK_AGENT_ERROR_BUSY,
                               _("Reckon is still answering the previous question."));
      return FALSE;
    }
  self->turn = g_cancellable_new ();
  if (cancellable != NULL)
    {
      self->caller = g_object_ref (cancellable);
      self->caller_id = g_cancellable_connect (cancellable, G_CALLBACK (caller_cancelled_cb),
                                               g_object_ref (self->turn), g_object_unref);
    }
  rk_session_keep_alive (self->session);
  set_busy (self, TRUE);
  return TRUE;
}

static void
end_turn (RkConversation *self)
{
  if (self->caller != NULL)
    {
      g_cancellable_disconnect (self->caller, self->caller_id);
      self->caller_id = 0;
      g_clear_object (&self->caller);
    }
  g_clear_object (&self->turn);
  g_object_freeze_notify (G_OBJECT (self));
  set_string_prop (self, &self->pending_approval, NULL, PROP_PENDING_APPROVAL);
  set_string_prop (self, &self->running_cell, NULL, PROP_RUNNING_CELL);
  set_busy (self, FALSE);
  g_object_thaw_notify (G_OBJECT (self));
}

static void
ask_done_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RkConversation *self = g_task_get_source_object (task);
  GError *error = NULL;
  char *answer = rk_agent_ask_finish (RK_AGENT (source), result, &error);

  end_turn (self);
  if (answer == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, answer, g_free);
}

void
rk_conversation_ask_async (RkConversation      *self,
                           const char          *question,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (RK_IS_CONVERSATION (self));
  g_return_if_fail (question != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_conversation_ask_async);
  if (!begin_turn (self, task, cancellable))
    return;

  g_free (self->last_question);
  self->last_question = g_strdup (question);
  if (!self->asked && !self->meta->title_set)
    {
      g_autofree char *title = title_from (question);

      if (title != NULL)
        set_title_internal (self, title);
    }
  self->asked = TRUE;
  rk_agent_ask_async (self->agent, question, self->turn, ask_done_cb, g_steal_pointer (&task));
}

char *
rk_conversation_ask_finish (RkConversation  *self,
                            GAsyncResult    *result,
                            GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
run_done_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RkConversation *self = g_task_get_source_object (task);
  GError *error = NULL;
  char *output = rk_agent_run_code_finish (RK_AGENT (source), result, &error);

  end_turn (self);
  if (output == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, output, g_free);
}

void
rk_conversation_run_code_async (RkConversation      *self,
                                const char          *code,
                                RkCodeOrigin         origin,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (RK_IS_CONVERSATION (self));
  g_return_if_fail (code != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_conversation_run_code_async);
  if (!begin_turn (self, task, cancellable))
    return;
  rk_agent_run_code_async (self->agent, code, origin, self->turn, run_done_cb, g_steal_pointer (&task));
}

char *
rk_conversation_run_code_finish (RkConversation  *self,
                                 GAsyncResult    *result,
                                 GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
rk_conversation_retry (RkConversation *self)
{
  g_autofree char *question = NULL;

  g_return_if_fail (RK_IS_CONVERSATION (self));

  /* After a restart that failed, Retry restarts again. */
  {
    guint n = rk_transcript_get_n_entries (self->transcript);
    RkTranscriptEntry *last = n > 0 ? rk_transcript_get_entry (self->transcript, n - 1) : NULL;

    if (!self->busy && last != NULL && rk_transcript_entry_get_kind (last) == RK_ENTRY_NOTE &&
        g_strcmp0 (rk_transcript_entry_get_name (last), "restart-error") == 0)
      {
        rk_conversation_restart_async (self, TRUE, NULL, NULL, NULL);
        return;
      }
  }
  if (self->busy || self->last_question == NULL)
    return;
  /* The outcome, errors included, shows in the transcript. */
  question = g_strdup (self->last_question);
  rk_conversation_ask_async (self, question, NULL, NULL, NULL);
}

void
rk_conversation_stop (RkConversation *self)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));

  if (self->turn != NULL)
    g_cancellable_cancel (self->turn);
}

void
rk_conversation_approve (RkConversation  *self,
                         RkAgentDecision  decision,
                         const char      *code)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));

  rk_session_keep_alive (self->session);
  rk_agent_approve (self->agent, decision, code);
}

/* -- run a cell again (after a limit was raised) ------------------------------ */

typedef struct
{
  char      *code;      /* the cell's own */
  GPtrArray *earlier;   /* the code that ran before it, replayed quietly */
  guint      next;
} Rerun;

static void
rerun_free (gpointer data)
{
  Rerun *r = data;

  g_free (r->code);
  g_ptr_array_unref (r->earlier);
  g_free (r);
}

static void
rerun_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  char *output = rk_conversation_run_code_finish (RK_CONVERSATION (source), result, &error);

  if (output == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, output, g_free);
}

static void
rerun_cell (GTask *task)
{
  RkConversation *self = g_task_get_source_object (task);
  Rerun *r = g_task_get_task_data (task);

  set_busy (self, FALSE);
  /* Pressing "… and run again" was the approval of this very code. */
  rk_conversation_run_code_async (self, r->code, RK_CODE_TYPED, g_task_get_cancellable (task), rerun_done_cb, task);
}

static void rerun_replay_next (GTask *task);

static void
rerun_replayed_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  RkConversation *self = g_task_get_source_object (task);
  Rerun *r = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(RkKernelEvent) done = rk_kernel_execute_finish (RK_KERNEL (source), result, &error);

  if (done != NULL && done->status != RK_KERNEL_STATUS_OK)
    error = g_error_new (RK_SESSION_ERROR, RK_SESSION_ERROR_REPLAY,
                         _("Running cell %u of %u again did not succeed (%s)."),
                         r->next, r->earlier->len,
                         done->message ? done->message : rk_kernel_status_to_string (done->status));
  if (error != NULL)
    {
      set_busy (self, FALSE);
      rk_transcript_add_note (self->transcript, "error", error->message);
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  rerun_replay_next (task);
}

static void
rerun_replay_next (GTask *task)
{
  RkConversation *self = g_task_get_source_object (task);
  Rerun *r = g_task_get_task_data (task);

  if (r->next >= r->earlier->len)
    {
      rerun_cell (task);
      return;
    }
  rk_kernel_execute_async (rk_session_get_kernel (self->session), r->earlier->pdata[r->next++],
                           g_task_get_cancellable (task), rerun_replayed_cb, task);
}

static void
rerun_restarted_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  RkConversation *self = g_task_get_source_object (task);
  Rerun *r = g_task_get_task_data (task);
  GError *error = NULL;

  if (!rk_kernel_restart_finish (RK_KERNEL (source), result, &error))
    {
      set_busy (self, FALSE);
      rk_transcript_add_note (self->transcript, "error", error->message);
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  rk_transcript_add_note (self->transcript, "kernel-restarted",
                          r->earlier->len > 0
                          ? _("The Python kernel was restarted with the new limits and the code that ran before was run again.")
                          : _("The Python kernel was restarted with the new limits."));
  rerun_replay_next (task);
}

void
rk_conversation_rerun_cell_async (RkConversation      *self,
                                  const char          *cell_id,
                                  gboolean             fresh_kernel,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Rerun *r;

  g_return_if_fail (RK_IS_CONVERSATION (self));
  g_return_if_fail (cell_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_conversation_rerun_cell_async);
  r = g_new0 (Rerun, 1);
  r->earlier = rk_transcript_get_run_code_before (self->transcript, cell_id, &r->code);
  g_task_set_task_data (task, r, rerun_free);
  if (self->busy || r->code == NULL)
    {
      const char *why = self->busy
        ? _("The code was not run again because Reckon is still answering; run it again when it is done.")
        : _("That code did not run in this conversation, so it cannot be run again.");

      /* Said where the user pressed the button, not only to the caller. */
      rk_transcript_add_note (self->transcript, "run-again", why);
      g_task_return_new_error (task, RK_AGENT_ERROR, RK_AGENT_ERROR_BUSY, "%s", why);
      return;
    }
  /* A limit raised a moment ago through another GSettings object. */
  if (self->settings != NULL)
    settings_changed_cb (self->settings, NULL, self);
  if (!fresh_kernel)
    {
      set_busy (self, TRUE);
      rerun_cell (g_steal_pointer (&task));
      return;
    }
  /* The new memory and disk limits hold from the sandbox's next start; a
   * fresh interpreter needs the earlier cells' variables back. */
  set_busy (self, TRUE);
  rk_session_keep_alive (self->session);
  rk_kernel_restart_async (rk_session_get_kernel (self->session), g_task_get_cancellable (task),
                           rerun_restarted_cb, g_steal_pointer (&task));
}

char *
rk_conversation_rerun_cell_finish (RkConversation  *self,
                                   GAsyncResult    *result,
                                   GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

const char *
rk_conversation_get_last_question (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return self->last_question;
}

/* -- restart ---------------------------------------------------------------- */

/* What a restart replays: the cells that succeeded, in order. The data of
 * the restart's task. */
typedef struct
{
  GPtrArray *cells;     /* RkRunCell: every cell that ran */
  GPtrArray *replayed;  /* RkRunCell, borrowed from @cells: the ones replayed */
} Replay;

static void
replay_free (Replay *replay)
{
  g_clear_pointer (&replay->replayed, g_ptr_array_unref);
  g_clear_pointer (&replay->cells, g_ptr_array_unref);
  g_free (replay);
}

/* One sentence or more for the note of a restart that replayed @replay:
 * how many cells ran again, and which were left out or failed, and why. */
static char *
replay_note (Replay    *replay,
             GPtrArray *outcomes)
{
  GString *note = g_string_new (NULL);
  guint n_failed = 0;

  for (guint i = 0; outcomes != NULL && i < outcomes->len; i++)
    n_failed += *(const char *) outcomes->pdata[i] != '\0';
  if (replay->replayed->len == replay->cells->len && n_failed == 0)
    {
      g_string_append (note, _("The session was restarted: its files were added again and the code that ran was run again."));
      return g_string_free (note, FALSE);
    }
  g_string_append_printf (note,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "The session was restarted: its files were added again and %u of %u cell was run again.",
                                       "The session was restarted: its files were added again and %u of %u cells were run again.",
                                       replay->cells->len),
                          replay->replayed->len, replay->cells->len);
  for (guint i = 0; i < replay->cells->len; i++)
    {
      RkRunCell *cell = replay->cells->pdata[i];

      if (cell->failure == NULL)
        continue;
      g_string_append_c (note, ' ');
      /* Translators: a cell left out of a restart's replay; %s is its error */
      g_string_append_printf (note, _("Cell %u was skipped: it failed when it first ran (%s)."),
                              cell->number, cell->failure);
    }
  for (guint i = 0; outcomes != NULL && i < outcomes->len && i < replay->replayed->len; i++)
    {
      RkRunCell *cell = replay->replayed->pdata[i];
      const char *why = outcomes->pdata[i];

      if (*why == '\0')
        continue;
      g_string_append_c (note, ' ');
      /* Translators: a cell that succeeded before and failed in a restart's replay */
      g_string_append_printf (note, _("Cell %u did not succeed this time (%s)."), cell->number, why);
    }
  return g_string_free (note, FALSE);
}

static void
restarted_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RkConversation *self = g_task_get_source_object (task);
  Replay *replay = g_task_get_task_data (task);
  g_autoptr(GPtrArray) outcomes = NULL;
  GError *error = NULL;

  if (!rk_session_restart_finish (RK_SESSION (source), result, &outcomes, &error))
    {
      /* Its Retry restarts again (rk_conversation_retry), not the question. */
      rk_transcript_add_note (self->transcript, "restart-error", error->message);
      g_task_return_error (task, error);
      return;
    }
  if (replay != NULL)
    {
      g_autofree char *note = replay_note (replay, outcomes);

      rk_transcript_add_note (self->transcript, "session-restarted", note);
    }
  else
    rk_transcript_add_note (self->transcript, "session-restarted",
                            _("The session was restarted: its files were added again."));
  set_expired (self, FALSE);
  start_kernel (self);
  g_task_return_boolean (task, TRUE);
}

void
rk_conversation_restart_async (RkConversation      *self,
                               gboolean             replay,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GPtrArray) cells = NULL;

  g_return_if_fail (RK_IS_CONVERSATION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_conversation_restart_async);
  if (self->busy)
    {
      g_task_return_new_error (task, RK_AGENT_ERROR, RK_AGENT_ERROR_BUSY,
                               _("Wait for the current question to finish, or stop it, before restarting."));
      return;
    }
  if (replay)
    {
      /* A cell that failed when it ran (and that the conversation then
       * repaired) is left out: replayed, it would fail again (issue 17). */
      Replay *r = g_new0 (Replay, 1);

      r->cells = rk_transcript_get_run_cells (self->transcript);
      r->replayed = g_ptr_array_new ();
      cells = g_ptr_array_new ();
      for (guint i = 0; i < r->cells->len; i++)
        {
          RkRunCell *cell = r->cells->pdata[i];

          if (cell->failure != NULL)
            continue;
          g_ptr_array_add (r->replayed, cell);
          g_ptr_array_add (cells, cell->code);
        }
      g_ptr_array_add (cells, NULL);
      g_task_set_task_data (task, r, (GDestroyNotify) replay_free);
    }
  rk_session_restart_async (self->session, cells ? (const char * const *) cells->pdata : NULL,
                            cancellable, restarted_cb, g_steal_pointer (&task));
}

gboolean
rk_conversation_restart_finish (RkConversation  *self,
                                GAsyncResult    *result,
                                GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
rk_conversation_keep_alive (RkConversation *self)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));
  rk_session_keep_alive (self->session);
}

/* -- getters ---------------------------------------------------------------- */

const char *
rk_conversation_get_id (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return self->meta->id;
}

RkTranscript *
rk_conversation_get_transcript (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return self->transcript;
}

RkSession *
rk_conversation_get_session (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return self->session;
}

RkAgent *
rk_conversation_get_agent (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return self->agent;
}

RkModelClient *
rk_conversation_get_client (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return self->client;
}

gboolean
rk_conversation_get_busy (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), FALSE);
  return self->busy;
}

const char *
rk_conversation_get_pending_approval (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return self->pending_approval;
}

const char *
rk_conversation_get_running_cell (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return self->running_cell;
}

gint64
rk_conversation_get_cell_started (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), 0);
  return self->cell_started;
}

gboolean
rk_conversation_get_auto_approve (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), FALSE);
  return self->auto_approve;
}

void
rk_conversation_set_auto_approve (RkConversation *self,
                                  gboolean        auto_approve)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));

  auto_approve = !!auto_approve;
  if (self->auto_approve == auto_approve)
    return;
  self->auto_approve = auto_approve;
  update_policy (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTO_APPROVE]);
}

const char *
rk_conversation_get_title (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return self->meta->title ? self->meta->title : "";
}

void
rk_conversation_set_title (RkConversation *self,
                           const char     *title)
{
  g_return_if_fail (RK_IS_CONVERSATION (self));

  self->meta->title_set = TRUE;
  set_title_internal (self, title ? title : "");
}

char *
rk_conversation_dup_full_title (RkConversation *self)
{
  char *title;

  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);

  if (!self->meta->title_set && (title = rk_transcript_dup_title (self->transcript)) != NULL)
    return title;
  return g_strdup (rk_conversation_get_title (self));
}

gboolean
rk_conversation_get_expired (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), FALSE);
  return self->expired;
}

const char *
rk_conversation_get_kernel_error (RkConversation *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION (self), NULL);
  return self->kernel_error;
}

void
rk_conversation_close (RkConversation *self)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (RK_IS_CONVERSATION (self));

  if (self->closed)
    return;
  self->closed = TRUE;
  g_clear_handle_id (&self->start_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  if (self->turn != NULL)
    g_cancellable_cancel (self->turn);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->files)); i++)
    {
      g_autoptr(RkConversationFile) file = g_list_model_get_item (G_LIST_MODEL (self->files), i);

      if (file->cancellable != NULL)
        g_cancellable_cancel (file->cancellable);
    }
  /* Files still waiting are read again when the conversation is reopened. */
  g_queue_clear_full (&self->waiting, g_object_unref);
  if (self->store != NULL && !rk_transcript_flush (self->transcript, &error))
    g_warning ("conversation %s: %s", self->meta->id, error->message);
  save_meta (self);
}

/* -- object ----------------------------------------------------------------- */

static void
connect_parts (RkConversation *self)
{
  g_signal_connect (self->agent, "event", G_CALLBACK (agent_event_cb), self);
  g_signal_connect (self->session, "notify::state", G_CALLBACK (session_state_cb), self);
  g_signal_connect (self->session, "expired", G_CALLBACK (session_expired_cb), self);
  g_signal_connect (self->session, "files-changed", G_CALLBACK (session_files_changed_cb), self);
  g_signal_connect (self->transcript, "saved", G_CALLBACK (transcript_saved_cb), self);
  update_policy (self);
  self->start_id = g_idle_add (start_kernel_idle_cb, self);
}

/* Where the transcript autosaves, when there is a store. */
static gboolean
set_up_saving (RkConversation  *self,
               GError         **error)
{
  g_autofree char *folder = NULL;
  g_autofree char *path = NULL;

  if (self->store == NULL)
    return TRUE;
  folder = g_build_filename (self->store_dir, self->meta->id, NULL);
  if (g_mkdir_with_parents (folder, 0700) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not save the conversation: %s."), g_strerror (errsv));
      return FALSE;
    }
  path = g_build_filename (folder, RK_CONVERSATION_TRANSCRIPT_FILE, NULL);
  rk_transcript_set_autosave_path (self->transcript, path);
  if (!self->save (self->store, self->meta, self->expired, error))
    return FALSE;
  return TRUE;
}

static void
take_saving (RkConversation             *self,
             const RkConversationSaving *saving)
{
  if (saving == NULL)
    return;
  self->store = g_object_ref (saving->store);
  self->store_dir = g_strdup (saving->dir);
  self->save = saving->save;
}

RkConversation *
rk_conversation_new (RkModelClient  *client,
                     GError        **error)
{
  return _rk_conversation_new_saved (client, NULL, error);
}

RkConversation *
_rk_conversation_new_saved (RkModelClient               *client,
                            const RkConversationSaving  *saving,
                            GError                     **error)
{
  g_autoptr(RkConversation) self = NULL;
  g_autofree char *id = NULL;

  g_return_val_if_fail (RK_IS_MODEL_CLIENT (client), NULL);

  self = g_object_new (RK_TYPE_CONVERSATION, NULL);
  self->client = g_object_ref (client);
  take_saving (self, saving);
  self->session = rk_session_new (saving ? saving->sessions_dir : NULL, NULL, error);
  if (self->session == NULL)
    return NULL;
  id = g_uuid_string_random ();
  self->meta = _rk_conversation_meta_new (id);
  self->meta->title = g_strdup (_("New conversation"));
  self->meta->created = self->meta->updated = g_get_real_time ();
  self->meta->session_id = g_strdup (rk_session_get_id (self->session));
  self->transcript = rk_transcript_new ();
  self->agent = rk_agent_new_for_session (client, self->session, self->transcript);
  if (!set_up_saving (self, error))
    return NULL;
  connect_parts (self);
  return g_steal_pointer (&self);
}

/* Whether the last entry of the transcript is a note of @kind. */
static gboolean
ends_with_note (RkTranscript *transcript,
                const char   *kind)
{
  guint n = rk_transcript_get_n_entries (transcript);
  RkTranscriptEntry *last = n > 0 ? rk_transcript_get_entry (transcript, n - 1) : NULL;

  return last != NULL && rk_transcript_entry_get_kind (last) == RK_ENTRY_NOTE
         && g_strcmp0 (rk_transcript_entry_get_name (last), kind) == 0;
}

/* The file of the attachment @e of a reopened conversation, with the
 * profile saved in its entry and where it came from (@meta: the one place
 * both are known by the name, when the conversation is read back). */
static RkConversationFile *
restore_file (RkConversation     *self,
              RkConversationMeta *meta,
              RkTranscriptEntry  *e)
{
  const char *name = rk_transcript_entry_get_name (e);
  const char *detail = rk_transcript_entry_get_detail (e);
  const char *original = NULL;
  RkConversationFile *file;
  RkFileProfile *profile = rk_file_profile_parse_one (detail);

  for (guint i = 0; i < meta->files->len && original == NULL; i++)
    if (g_strcmp0 (((RkSessionFile *) g_ptr_array_index (meta->files, i))->name, name) == 0)
      original = ((RkSessionFile *) g_ptr_array_index (meta->files, i))->original_path;
  file = _rk_conversation_file_new (name, original);
  file->entry_id = rk_transcript_entry_get_id (e);
  file->copied = original != NULL && !self->expired;
  if (profile == NULL)
    {
      /* Closed while it was being read: read it again if it is there. */
      g_autofree char *path = g_build_filename (rk_workspace_get_path (rk_session_get_workspace (self->session)),
                                                name, NULL);

      if (!self->expired && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          file->state = RK_CONVERSATION_FILE_WAITING;
          return file;
        }
      profile = rk_file_profile_new_error (name, _("This file was not read before Reckon closed."));
    }
  file->state = profile->error != NULL ? RK_CONVERSATION_FILE_FAILED : RK_CONVERSATION_FILE_READY;
  file->profile = profile;
  return file;
}

RkConversation *
_rk_conversation_new_restored (RkModelClient               *client,
                               const RkConversationSaving  *saving,
                               RkConversationMeta          *meta,
                               RkTranscript                *transcript,
                               GError                     **error)
{
  g_autoptr(RkConversation) self = NULL;
  g_autoptr(GPtrArray) run = NULL;
  guint n;

  g_return_val_if_fail (RK_IS_MODEL_CLIENT (client), NULL);

  self = g_object_new (RK_TYPE_CONVERSATION, NULL);
  self->client = g_object_ref (client);
  take_saving (self, saving);
  self->meta = _rk_conversation_meta_new (meta->id);
  self->meta->title = g_strdup (meta->title);
  self->meta->title_set = meta->title_set;
  self->meta->created = meta->created;
  self->meta->updated = meta->updated;
  self->meta->session_id = g_strdup (meta->session_id);
  self->session = rk_session_new_restored (saving ? saving->sessions_dir : NULL,
                                           meta->session_id, meta->files, NULL, error);
  if (self->session == NULL)
    return NULL;
  keep_session_files (self);
  self->expired = rk_session_get_state (self->session) != RK_SESSION_ACTIVE;
  self->transcript = g_object_ref (transcript);
  self->agent = rk_agent_new_for_session (client, self->session, transcript);

  /* The files, with the profiles saved in their entries. */
  n = rk_transcript_get_n_entries (transcript);
  for (guint i = 0; i < n; i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (transcript, i);
      g_autoptr(RkConversationFile) file = NULL;

      switch ((int) rk_transcript_entry_get_kind (e))
        {
        case RK_ENTRY_USER:
          self->asked = TRUE;
          g_free (self->last_question);
          self->last_question = g_strdup (rk_transcript_entry_get_text (e));
          continue;
        case RK_ENTRY_ATTACHMENT:
          break;
        default:
          continue;
        }
      file = restore_file (self, meta, e);
      g_list_store_append (self->files, file);
      if (file->state == RK_CONVERSATION_FILE_WAITING)
        profile_file (self, file);
    }
  update_files_context (self);

  run = rk_transcript_get_run_code (transcript);
  if (self->expired)
    {
      if (!ends_with_note (transcript, "session-expired"))
        rk_transcript_add_note (transcript, "session-expired",
                                _("This session ended while Reckon was closed, and its files and results were deleted. Restart it to work on."));
    }
  else if (run->len > 0 && !ends_with_note (transcript, "kernel-restarted"))
    rk_transcript_add_note (transcript, "kernel-restarted",
                            _("Reckon was closed, so Python started afresh: the files are still here, but variables from earlier code are gone."));

  if (!set_up_saving (self, error))
    return NULL;
  connect_parts (self);
  /* Code that waited for approval when Reckon closed waits again, with its
   * Run, Edit and Skip (issue 17), while the session can run it. */
  if (!self->expired)
    {
      g_autoptr(GTask) task = g_task_new (self, NULL, NULL, NULL);

      g_task_set_source_tag (task, rk_conversation_ask_async);
      if (begin_turn (self, task, NULL))
        {
          if (rk_agent_resume_async (self->agent, self->turn, ask_done_cb, task))
            g_steal_pointer (&task);
          else
            {
              end_turn (self);
              g_task_return_boolean (task, TRUE);
            }
        }
    }
  return g_steal_pointer (&self);
}

static void
rk_conversation_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  RkConversation *self = RK_CONVERSATION (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    case PROP_PENDING_APPROVAL:
      g_value_set_string (value, self->pending_approval);
      break;
    case PROP_RUNNING_CELL:
      g_value_set_string (value, self->running_cell);
      break;
    case PROP_CELL_STARTED:
      g_value_set_int64 (value, self->cell_started);
      break;
    case PROP_AUTO_APPROVE:
      g_value_set_boolean (value, self->auto_approve);
      break;
    case PROP_TITLE:
      g_value_set_string (value, rk_conversation_get_title (self));
      break;
    case PROP_EXPIRED:
      g_value_set_boolean (value, self->expired);
      break;
    case PROP_KERNEL_ERROR:
      g_value_set_string (value, self->kernel_error);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_conversation_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  RkConversation *self = RK_CONVERSATION (object);

  switch (prop_id)
    {
    case PROP_AUTO_APPROVE:
      rk_conversation_set_auto_approve (self, g_value_get_boolean (value));
      break;
    case PROP_TITLE:
      rk_conversation_set_title (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_conversation_dispose (GObject *object)
{
  RkConversation *self = RK_CONVERSATION (object);

  if (self->meta != NULL && self->transcript != NULL && self->session != NULL)
    rk_conversation_close (self);
  g_clear_handle_id (&self->start_id, g_source_remove);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  if (self->agent != NULL)
    g_signal_handlers_disconnect_by_data (self->agent, self);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  if (self->transcript != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->transcript, self);
      rk_transcript_set_autosave_path (self->transcript, NULL);
    }
  g_clear_object (&self->settings);
  g_clear_object (&self->agent);
  g_clear_object (&self->session);
  g_clear_object (&self->transcript);
  g_clear_object (&self->client);
  g_clear_object (&self->store);
  g_clear_pointer (&self->store_dir, g_free);

  G_OBJECT_CLASS (rk_conversation_parent_class)->dispose (object);
}

static void
rk_conversation_finalize (GObject *object)
{
  RkConversation *self = RK_CONVERSATION (object);

  g_queue_clear_full (&self->waiting, g_object_unref);
  g_clear_object (&self->files);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->meta, _rk_conversation_meta_free);
  g_free (self->pending_approval);
  g_free (self->running_cell);
  g_free (self->kernel_error);
  g_free (self->last_question);

  G_OBJECT_CLASS (rk_conversation_parent_class)->finalize (object);
}

static void
rk_conversation_class_init (RkConversationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->get_property = rk_conversation_get_property;
  object_class->set_property = rk_conversation_set_property;
  object_class->dispose = rk_conversation_dispose;
  object_class->finalize = rk_conversation_finalize;

  /**
   * RkConversation:busy:
   *
   * Whether a question or typed code is being handled (Send turns into Stop).
   */
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE, ro);
  /**
   * RkConversation:pending-approval:
   *
   * The id of the cell waiting for Run, Edit or Skip, or NULL.
   */
  properties[PROP_PENDING_APPROVAL] = g_param_spec_string ("pending-approval", NULL, NULL, NULL, ro);
  /**
   * RkConversation:running-cell:
   *
   * The id of the cell running now, or NULL.
   */
  properties[PROP_RUNNING_CELL] = g_param_spec_string ("running-cell", NULL, NULL, NULL, ro);
  /**
   * RkConversation:cell-started:
   *
   * g_get_monotonic_time() when the last cell started, for its elapsed time.
   */
  properties[PROP_CELL_STARTED] = g_param_spec_int64 ("cell-started", NULL, NULL, 0, G_MAXINT64, 0, ro);
  /**
   * RkConversation:auto-approve:
   *
   * "Run without asking in this conversation": code runs at once.
   */
  properties[PROP_AUTO_APPROVE] = g_param_spec_boolean ("auto-approve", NULL, NULL, FALSE, rw);
  /**
   * RkConversation:title:
   *
   * The first question (or first file) until the user sets one.
   */
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, "", rw);
  /**
   * RkConversation:expired:
   *
   * The session expired: the transcript stays readable, "Restart session"
   * (rk_conversation_restart_async()) brings the files back.
   */
  properties[PROP_EXPIRED] = g_param_spec_boolean ("expired", NULL, NULL, FALSE, ro);
  /**
   * RkConversation:kernel-error:
   *
   * Why Python could not start (one sentence naming what is missing), or NULL.
   */
  properties[PROP_KERNEL_ERROR] = g_param_spec_string ("kernel-error", NULL, NULL, NULL, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
rk_conversation_init (RkConversation *self)
{
  self->files = g_list_store_new (RK_TYPE_CONVERSATION_FILE);
  self->cancellable = g_cancellable_new ();
  self->policy = RK_APPROVAL_ASK;
  self->prompt_samples = RK_PROMPT_SAMPLES_DEFAULT;
  self->created_us = g_get_monotonic_time ();
}
