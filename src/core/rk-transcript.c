/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-transcript.c — the conversation as data: a GListModel of entries, its
 * JSON form (versioned, loaded defensively) and coalesced atomic autosave. */
#define G_LOG_DOMAIN "rk-transcript"
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "rk-transcript.h"
#include "rk-transcript-entry-private.h"
#include "rk-json.h"
#include "rk-text.h"
#include "rk-util.h"

#define FORMAT_NAME        "reckon-transcript"
#define AUTOSAVE_DELAY_MS  300
#define MAX_JSON_DEPTH     16
#define MAX_ATTACHMENTS    1000

struct _RkTranscript
{
  GObject       parent_instance;

  GPtrArray    *entries;      /* of RkTranscriptEntry */
  GHashTable   *by_id;        /* id -> entry (borrowed) */
  guint         next_id;

  char         *autosave_path;
  guint         autosave_source;
  guint         autosave_delay_ms;
  gboolean      dirty;
  gboolean      saving;
  GCancellable *cancellable;
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RkTranscript, rk_transcript, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

G_DEFINE_QUARK (rk-transcript-error-quark, rk_transcript_error)

enum
{
  SIGNAL_SAVED,
  SIGNAL_AUTOSAVE_FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean write_sync (RkTranscript *self, GError **error);

/* ---- GListModel ---- */

static GType
get_item_type (GListModel *model)
{
  return RK_TYPE_TRANSCRIPT_ENTRY;
}

static guint
get_n_items (GListModel *model)
{
  return RK_TRANSCRIPT (model)->entries->len;
}

static gpointer
get_item (GListModel *model,
          guint       position)
{
  RkTranscript *self = RK_TRANSCRIPT (model);

  if (position >= self->entries->len)
    return NULL;
  return g_object_ref (self->entries->pdata[position]);
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

/* ---- object ---- */

static void
rk_transcript_dispose (GObject *object)
{
  RkTranscript *self = RK_TRANSCRIPT (object);

  /* Nothing typed is lost on close: write what the timer would have. */
  if (self->autosave_source != 0)
    {
      g_autoptr(GError) error = NULL;

      g_clear_handle_id (&self->autosave_source, g_source_remove);
      if (self->dirty && !write_sync (self, &error))
        g_warning ("Could not save the conversation: %s", error->message);
    }
  g_cancellable_cancel (self->cancellable);

  G_OBJECT_CLASS (rk_transcript_parent_class)->dispose (object);
}

static void
rk_transcript_finalize (GObject *object)
{
  RkTranscript *self = RK_TRANSCRIPT (object);

  g_clear_pointer (&self->by_id, g_hash_table_unref);
  g_clear_pointer (&self->entries, g_ptr_array_unref);
  g_clear_pointer (&self->autosave_path, g_free);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (rk_transcript_parent_class)->finalize (object);
}

static void
rk_transcript_class_init (RkTranscriptClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rk_transcript_dispose;
  object_class->finalize = rk_transcript_finalize;

  signals[SIGNAL_SAVED] =
    g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_AUTOSAVE_FAILED] =
    g_signal_new ("autosave-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
rk_transcript_init (RkTranscript *self)
{
  self->entries = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_id = g_hash_table_new (NULL, NULL);
  self->next_id = 1;
  self->autosave_delay_ms = AUTOSAVE_DELAY_MS;
  self->cancellable = g_cancellable_new ();
}

RkTranscript *
rk_transcript_new (void)
{
  return g_object_new (RK_TYPE_TRANSCRIPT, NULL);
}

/* ---- autosave ---- */

/* The oldest format that holds every entry, so older Reckons can still
 * open conversations that do not need the newer one. */
static gint64
needed_version (RkTranscript *self)
{
  for (guint i = 0; i < self->entries->len; i++)
    if (((RkTranscriptEntry *) self->entries->pdata[i])->kind == RK_ENTRY_ATTACHMENT)
      return 2;
  return 1;
}

GBytes *
rk_transcript_to_bytes (RkTranscript *self)
{
  g_autoptr(JsonBuilder) b = json_builder_new_immutable ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  gsize len;
  char *data;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);

  json_builder_begin_object (b);
  rk_json_add_string_member (b, "format", FORMAT_NAME);
  rk_json_add_int_member (b, "version", needed_version (self));
  rk_json_add_int_member (b, "next_id", self->next_id);
  json_builder_set_member_name (b, "entries");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->entries->len; i++)
    {
      RkTranscriptEntry *e = self->entries->pdata[i];

#define STR(key, field) \
      if (e->field) { json_builder_set_member_name (b, key); json_builder_add_string_value (b, e->field); }
#define INT(key, field) \
      if (e->field) { json_builder_set_member_name (b, key); json_builder_add_int_value (b, e->field); }

      json_builder_begin_object (b);
      rk_json_add_int_member (b, "id", e->id);
      rk_json_add_string_member (b, "kind", rk_entry_kind_to_string (e->kind));
      rk_json_add_int_member (b, "time", e->timestamp);
      STR ("cell", cell_id);
      STR ("text", text);
      STR ("name", name);
      STR ("detail", detail);
      if (e->limit != RK_SANDBOX_LIMIT_NONE)
        {
          rk_json_add_string_member (b, "limit", rk_sandbox_limit_to_name (e->limit));
        }
      STR ("previous", previous_code);
      STR ("path", path);
      STR ("mime", mime_type);
      STR ("title", title);
      INT ("revises", revises);
      INT ("width", width);
      INT ("height", height);
      INT ("rows", rows);
      INT ("columns", columns);
      INT ("limit_value", limit_value);
      if (e->kind == RK_ENTRY_APPROVAL)
        {
          rk_json_add_string_member (b, "decision", rk_decision_to_string (e->decision));
        }
      if (e->kind == RK_ENTRY_STREAM)
        {
          rk_json_add_string_member (b, "stream", e->stream == RK_STREAM_STDERR ? "stderr" : "stdout");
        }
      if (e->truncated)
        {
          rk_json_add_bool_member (b, "truncated", TRUE);
        }
      if (e->attachments)
        {
          json_builder_set_member_name (b, "attachments");
          json_builder_begin_array (b);
          for (guint k = 0; e->attachments[k]; k++)
            json_builder_add_string_value (b, e->attachments[k]);
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
#undef STR
#undef INT
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  data = json_generator_to_data (gen, &len);
  return g_bytes_new_take (data, len);
}

static gboolean
write_sync (RkTranscript *self,
            GError      **error)
{
  g_autoptr(GBytes) bytes = rk_transcript_to_bytes (self);
  g_autoptr(GError) local_error = NULL;

  self->dirty = FALSE;
  /* g_file_set_contents writes a temporary file and renames it over. */
  if (!g_file_set_contents_full (self->autosave_path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0600, &local_error))
    {
      self->dirty = TRUE;
      g_set_error (error, RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_IO,
                   _("The conversation could not be saved: %s"), local_error->message);
      return FALSE;
    }
  return TRUE;
}

static void schedule_save (RkTranscript *self);

static void
replace_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(RkTranscript) self = user_data;
  g_autoptr(GError) error = NULL;

  self->saving = FALSE;
  if (!g_file_replace_contents_finish (G_FILE (source), result, NULL, &error))
    {
      /* Still unsaved: the next change or flush() tries again. */
      self->dirty = TRUE;
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      {
        g_autoptr(GError) err = g_error_new (RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_IO,
                                             _("The conversation could not be saved: %s"), error->message);
        g_signal_emit (self, signals[SIGNAL_AUTOSAVE_FAILED], 0, err);
      }
      return;
    }
  if (self->dirty)
    schedule_save (self);
  else
    g_signal_emit (self, signals[SIGNAL_SAVED], 0);
}

static gboolean
autosave_cb (gpointer user_data)
{
  RkTranscript *self = user_data;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GBytes) bytes = NULL;

  self->autosave_source = 0;
  if (self->autosave_path == NULL || !self->dirty)
    return G_SOURCE_REMOVE;

  {
    gint64 t0 = g_get_monotonic_time ();

    bytes = rk_transcript_to_bytes (self);
    /* Serialising is on the main loop: keep it under ~5% of its time for
     * big transcripts by spacing the writes out. */
    self->autosave_delay_ms = CLAMP ((g_get_monotonic_time () - t0) / 1000 * 20,
                                     AUTOSAVE_DELAY_MS, 10000);
  }
  file = g_file_new_for_path (self->autosave_path);
  self->dirty = FALSE;
  self->saving = TRUE;
  /* g_file_replace writes to a temporary file and renames it into place. */
  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE,
                                       G_FILE_CREATE_PRIVATE | G_FILE_CREATE_REPLACE_DESTINATION,
                                       self->cancellable, replace_cb, g_object_ref (self));
  return G_SOURCE_REMOVE;
}

static void
schedule_save (RkTranscript *self)
{
  if (self->autosave_path == NULL)
    return;
  self->dirty = TRUE;
  if (self->autosave_source == 0 && !self->saving)
    self->autosave_source = g_timeout_add (self->autosave_delay_ms, autosave_cb, self);
}

void
rk_transcript_set_autosave_path (RkTranscript *self,
                                 const char   *path)
{
  g_return_if_fail (RK_IS_TRANSCRIPT (self));

  if (g_strcmp0 (path, self->autosave_path) == 0)
    return;
  g_clear_handle_id (&self->autosave_source, g_source_remove);
  g_free (self->autosave_path);
  self->autosave_path = g_strdup (path);
  self->dirty = FALSE;
  if (path != NULL)
    schedule_save (self);
}

const char *
rk_transcript_get_autosave_path (RkTranscript *self)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);
  return self->autosave_path;
}

gboolean
rk_transcript_has_unsaved (RkTranscript *self)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), FALSE);
  return self->dirty || self->saving;
}

gboolean
rk_transcript_flush (RkTranscript  *self,
                     GError       **error)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), FALSE);

  if (self->autosave_path == NULL || !self->dirty)
    return TRUE;
  g_clear_handle_id (&self->autosave_source, g_source_remove);
  return write_sync (self, error);
}

/* ---- entries ---- */

guint
rk_transcript_get_n_entries (RkTranscript *self)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);
  return self->entries->len;
}

RkTranscriptEntry *
rk_transcript_get_entry (RkTranscript *self,
                         guint         position)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);
  if (position >= self->entries->len)
    return NULL;
  return self->entries->pdata[position];
}

RkTranscriptEntry *
rk_transcript_lookup (RkTranscript *self,
                      guint         id)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);
  return g_hash_table_lookup (self->by_id, GUINT_TO_POINTER (id));
}

void
rk_transcript_clear (RkTranscript *self)
{
  guint n;

  g_return_if_fail (RK_IS_TRANSCRIPT (self));
  n = self->entries->len;
  if (n == 0)
    return;
  g_hash_table_remove_all (self->by_id);
  g_ptr_array_set_size (self->entries, 0);
  g_list_model_items_changed (G_LIST_MODEL (self), 0, n, 0);
  schedule_save (self);
}

/* Valid UTF-8, NUL-free, at most @max bytes (cut at a character boundary). */
static char *
bounded_text (const char *text,
              gsize       max,
              gboolean   *truncated)
{
  gsize len;
  g_autofree char *valid = NULL;

  if (text == NULL)
    return NULL;
  len = strlen (text);
  valid = g_utf8_make_valid (text, len);
  len = strlen (valid);
  if (len <= max)
    return g_steal_pointer (&valid);
  if (truncated)
    *truncated = TRUE;
  {
    const char *end = valid + max;
    /* Step back to the start of a character. */
    while (end > valid && ((guchar) *end & 0xc0) == 0x80)
      end--;
    return g_strndup (valid, end - valid);
  }
}

static guint
insert_entry (RkTranscript      *self,
              RkTranscriptEntry *entry)
{
  if (self->entries->len >= RK_TRANSCRIPT_MAX_ENTRIES || self->next_id == G_MAXUINT32)
    {
      g_object_unref (entry);
      return 0;
    }
  entry->id = self->next_id++;
  g_ptr_array_add (self->entries, entry);
  g_hash_table_insert (self->by_id, GUINT_TO_POINTER (entry->id), entry);
  g_list_model_items_changed (G_LIST_MODEL (self), self->entries->len - 1, 0, 1);
  schedule_save (self);
  return entry->id;
}

static guint
add_text_entry (RkTranscript *self,
                RkEntryKind   kind,
                const char   *cell_id,
                const char   *text)
{
  RkTranscriptEntry *e = _rk_transcript_entry_new (kind);

  e->cell_id = bounded_text (cell_id, 256, NULL);
  e->text = bounded_text (text ? text : "", RK_TRANSCRIPT_MAX_TEXT, &e->truncated);
  return insert_entry (self, e);
}

guint
rk_transcript_add_user (RkTranscript       *self,
                        const char         *text,
                        const char * const *attachments)
{
  guint id;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);

  id = add_text_entry (self, RK_ENTRY_USER, NULL, text);
  if (id != 0 && attachments != NULL && attachments[0] != NULL)
    {
      RkTranscriptEntry *e = rk_transcript_lookup (self, id);
      guint n = MIN (g_strv_length ((char **) attachments), MAX_ATTACHMENTS);

      e->attachments = g_new0 (char *, n + 1);
      for (guint i = 0; i < n; i++)
        e->attachments[i] = bounded_text (attachments[i], 4096, NULL);
    }
  return id;
}

guint
rk_transcript_add_assistant (RkTranscript *self,
                             const char   *text)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);
  return add_text_entry (self, RK_ENTRY_ASSISTANT, NULL, text);
}

guint
rk_transcript_add_reasoning (RkTranscript *self,
                             const char   *text)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);
  return add_text_entry (self, RK_ENTRY_REASONING, NULL, text);
}

guint
rk_transcript_add_answer (RkTranscript *self,
                          const char   *text)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);
  return add_text_entry (self, RK_ENTRY_ANSWER, NULL, text);
}

char *
rk_transcript_dup_title (RkTranscript *self)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);

  for (guint i = 0; i < self->entries->len; i++)
    {
      RkTranscriptEntry *e = g_ptr_array_index (self->entries, i);

      if (rk_transcript_entry_get_kind (e) == RK_ENTRY_USER)
        return rk_text_first_line (rk_transcript_entry_get_text (e));
    }
  return NULL;
}

/* @a and @b alike but for blanks at either end. */
static gboolean
same_trimmed (const char *a,
              const char *b)
{
  gsize la, lb;

  if (a == NULL || b == NULL)
    return FALSE;
  while (g_ascii_isspace (*a))
    a++;
  while (g_ascii_isspace (*b))
    b++;
  la = strlen (a);
  lb = strlen (b);
  while (la > 0 && g_ascii_isspace (a[la - 1]))
    la--;
  while (lb > 0 && g_ascii_isspace (b[lb - 1]))
    lb--;
  return la == lb && memcmp (a, b, la) == 0;
}

gboolean
rk_transcript_answer_repeats (RkTranscript      *self,
                              RkTranscriptEntry *entry)
{
  guint id;
  RkTranscriptEntry *prev;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), FALSE);
  g_return_val_if_fail (RK_IS_TRANSCRIPT_ENTRY (entry), FALSE);

  id = rk_transcript_entry_get_id (entry);
  if (rk_transcript_entry_get_kind (entry) != RK_ENTRY_ANSWER || id <= 1)
    return FALSE;
  prev = rk_transcript_lookup (self, id - 1);
  return prev != NULL && rk_transcript_entry_get_kind (prev) == RK_ENTRY_ASSISTANT &&
         same_trimmed (rk_transcript_entry_get_text (prev), rk_transcript_entry_get_text (entry));
}

guint
rk_transcript_add_code (RkTranscript *self,
                        const char   *cell_id,
                        const char   *code,
                        guint         revises)
{
  RkTranscriptEntry *e, *prev;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);

  e = _rk_transcript_entry_new (RK_ENTRY_CODE);
  e->cell_id = bounded_text (cell_id, 256, NULL);
  e->text = bounded_text (code ? code : "", RK_TRANSCRIPT_MAX_TEXT, &e->truncated);
  prev = revises ? rk_transcript_lookup (self, revises) : NULL;
  if (prev != NULL && prev->kind == RK_ENTRY_CODE)
    {
      e->revises = revises;
      e->previous_code = g_strdup (prev->text);
    }
  return insert_entry (self, e);
}

guint
rk_transcript_add_approval (RkTranscript *self,
                            const char   *cell_id,
                            RkDecision    decision,
                            const char   *edited_code)
{
  RkTranscriptEntry *e;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);

  e = _rk_transcript_entry_new (RK_ENTRY_APPROVAL);
  e->cell_id = bounded_text (cell_id, 256, NULL);
  e->decision = decision;
  if (decision == RK_DECISION_EDITED)
    e->text = bounded_text (edited_code ? edited_code : "", RK_TRANSCRIPT_MAX_TEXT, &e->truncated);
  return insert_entry (self, e);
}

guint
rk_transcript_add_stream (RkTranscript *self,
                          const char   *cell_id,
                          RkStream      stream,
                          const char   *text)
{
  RkTranscriptEntry *last, *e;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);

  last = self->entries->len ? self->entries->pdata[self->entries->len - 1] : NULL;
  if (last != NULL && last->kind == RK_ENTRY_STREAM && last->stream == stream &&
      g_strcmp0 (last->cell_id, cell_id) == 0)
    {
      /* Grows in place: notify::text on the entry, no items-changed. */
      if (!last->truncated && text != NULL && *text != '\0')
        {
          g_autofree char *valid = g_utf8_make_valid (text, -1);

          _rk_transcript_entry_append_text (last, valid, RK_TRANSCRIPT_MAX_OUTPUT);
          schedule_save (self);
        }
      return last->id;
    }

  e = _rk_transcript_entry_new (RK_ENTRY_STREAM);
  e->cell_id = bounded_text (cell_id, 256, NULL);
  e->stream = stream == RK_STREAM_STDERR ? RK_STREAM_STDERR : RK_STREAM_STDOUT;
  e->text = bounded_text (text ? text : "", RK_TRANSCRIPT_MAX_OUTPUT, &e->truncated);
  return insert_entry (self, e);
}

guint
rk_transcript_add_result (RkTranscript *self,
                          const char   *cell_id,
                          const char   *text)
{
  RkTranscriptEntry *e;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);

  e = _rk_transcript_entry_new (RK_ENTRY_RESULT);
  e->cell_id = bounded_text (cell_id, 256, NULL);
  e->text = bounded_text (text ? text : "", RK_TRANSCRIPT_MAX_OUTPUT, &e->truncated);
  return insert_entry (self, e);
}

static gboolean
is_artifact_kind (RkEntryKind kind)
{
  return kind == RK_ENTRY_TABLE || kind == RK_ENTRY_FIGURE || kind == RK_ENTRY_CHART || kind == RK_ENTRY_FILE;
}

guint
rk_transcript_add_artifact (RkTranscript               *self,
                            const char                 *cell_id,
                            const RkTranscriptArtifact *artifact)
{
  RkTranscriptEntry *e;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);
  g_return_val_if_fail (artifact != NULL, 0);

  if (!is_artifact_kind (artifact->kind) || !rk_path_is_beneath (artifact->path) ||
      !g_utf8_validate (artifact->path, -1, NULL))
    return 0;

  e = _rk_transcript_entry_new (artifact->kind);
  e->cell_id = bounded_text (cell_id, 256, NULL);
  e->path = g_strdup (artifact->path);
  e->mime_type = bounded_text (artifact->mime_type, 256, NULL);
  e->title = bounded_text (artifact->title, 4096, NULL);
  e->width = CLAMP (artifact->width, 0, G_MAXINT32);
  e->height = CLAMP (artifact->height, 0, G_MAXINT32);
  e->rows = MAX (artifact->rows, 0);
  e->columns = MAX (artifact->columns, 0);
  return insert_entry (self, e);
}

guint
rk_transcript_add_error (RkTranscript   *self,
                         const char     *cell_id,
                         const char     *error_name,
                         const char     *message,
                         const char     *traceback,
                         RkSandboxLimit  limit,
                         guint64         limit_value)
{
  RkTranscriptEntry *e;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);

  e = _rk_transcript_entry_new (RK_ENTRY_ERROR);
  e->cell_id = bounded_text (cell_id, 256, NULL);
  e->name = bounded_text (error_name, 256, NULL);
  e->text = bounded_text (message ? message : "", RK_TRANSCRIPT_MAX_OUTPUT, &e->truncated);
  e->detail = bounded_text (traceback, RK_TRANSCRIPT_MAX_OUTPUT, &e->truncated);
  e->limit = limit != RK_SANDBOX_LIMIT_NONE ? limit : rk_sandbox_limit_from_error (e->name, e->detail);
  e->limit_value = (gint64) MIN (limit_value, (guint64) G_MAXINT64);
  return insert_entry (self, e);
}

guint
rk_transcript_add_note (RkTranscript *self,
                        const char   *note_kind,
                        const char   *text)
{
  RkTranscriptEntry *e;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);

  e = _rk_transcript_entry_new (RK_ENTRY_NOTE);
  e->name = bounded_text (note_kind, 256, NULL);
  e->text = bounded_text (text ? text : "", RK_TRANSCRIPT_MAX_TEXT, &e->truncated);
  return insert_entry (self, e);
}

guint
rk_transcript_add_attachment (RkTranscript *self,
                              const char   *name,
                              const char   *original_name)
{
  RkTranscriptEntry *e;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), 0);

  if (name == NULL || !rk_path_is_beneath (name) || strlen (name) > 256)
    return 0;
  e = _rk_transcript_entry_new (RK_ENTRY_ATTACHMENT);
  e->name = bounded_text (name, 256, NULL);
  e->title = bounded_text (original_name ? original_name : name, 4096, NULL);
  e->text = g_strdup ("");
  return insert_entry (self, e);
}

gboolean
rk_transcript_set_attachment_profile (RkTranscript *self,
                                      guint         id,
                                      const char   *profile_json)
{
  RkTranscriptEntry *e;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), FALSE);

  e = rk_transcript_lookup (self, id);
  if (e == NULL || e->kind != RK_ENTRY_ATTACHMENT)
    return FALSE;
  if (profile_json != NULL && strlen (profile_json) > RK_TRANSCRIPT_MAX_OUTPUT)
    return FALSE;
  _rk_transcript_entry_set_detail (e, profile_json ? g_utf8_make_valid (profile_json, -1) : NULL);
  schedule_save (self);
  return TRUE;
}

gboolean
rk_transcript_set_sent_record (RkTranscript *self,
                               guint         id,
                               const char   *record)
{
  RkTranscriptEntry *e;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), FALSE);

  e = rk_transcript_lookup (self, id);
  if (e == NULL || e->kind != RK_ENTRY_USER)
    return FALSE;
  if (record != NULL && strlen (record) > RK_TRANSCRIPT_MAX_OUTPUT)
    return FALSE;
  _rk_transcript_entry_set_detail (e, record ? g_utf8_make_valid (record, -1) : NULL);
  schedule_save (self);
  return TRUE;
}

gboolean
rk_transcript_remove_attachment (RkTranscript *self,
                                 guint         id)
{
  RkTranscriptEntry *e;
  guint position;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), FALSE);

  e = rk_transcript_lookup (self, id);
  if (e == NULL || e->kind != RK_ENTRY_ATTACHMENT || !g_ptr_array_find (self->entries, e, &position))
    return FALSE;
  g_hash_table_remove (self->by_id, GUINT_TO_POINTER (id));
  g_ptr_array_remove_index (self->entries, position);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
  schedule_save (self);
  return TRUE;
}

gboolean
rk_transcript_append_text (RkTranscript *self,
                           guint         id,
                           const char   *delta)
{
  RkTranscriptEntry *e;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), FALSE);

  e = rk_transcript_lookup (self, id);
  if (e == NULL || (e->kind != RK_ENTRY_ASSISTANT && e->kind != RK_ENTRY_REASONING && e->kind != RK_ENTRY_ANSWER))
    return FALSE;
  if (delta == NULL || *delta == '\0' || e->truncated)
    return TRUE;
  {
    g_autofree char *valid = g_utf8_make_valid (delta, -1);

    /* Grows in place: notify::text on the entry, no items-changed. */
    _rk_transcript_entry_append_text (e, valid, RK_TRANSCRIPT_MAX_TEXT);
  }
  schedule_save (self);
  return TRUE;
}

GPtrArray *
rk_transcript_get_run_code (RkTranscript *self)
{
  g_autoptr(GPtrArray) cells = NULL;
  GPtrArray *out;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);

  cells = rk_transcript_get_run_cells (self);
  out = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < cells->len; i++)
    g_ptr_array_add (out, g_strdup (((RkRunCell *) cells->pdata[i])->code));
  return out;
}

GPtrArray *
rk_transcript_get_run_code_before (RkTranscript  *self,
                                   const char    *cell_id,
                                   char         **cell_code)
{
  g_autoptr(GPtrArray) cells = NULL;
  GPtrArray *out;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);

  if (cell_code != NULL)
    *cell_code = NULL;
  out = g_ptr_array_new_with_free_func (g_free);
  cells = rk_transcript_get_run_cells (self);
  for (guint i = 0; i < cells->len; i++)
    {
      RkRunCell *cell = cells->pdata[i];

      if (cell_id != NULL && g_strcmp0 (cell->cell_id, cell_id) == 0)
        {
          if (cell_code != NULL)
            *cell_code = g_strdup (cell->code);
          break;
        }
      /* A cell that failed as it ran left nothing to rebuild, and replaying
       * it would fail again and stop the rest (as Restart Session does). */
      if (cell->failure == NULL)
        g_ptr_array_add (out, g_strdup (cell->code));
    }
  return out;
}

void
rk_run_cell_free (RkRunCell *cell)
{
  if (cell == NULL)
    return;
  g_free (cell->cell_id);
  g_free (cell->code);
  g_free (cell->failure);
  g_free (cell);
}

GPtrArray *
rk_transcript_get_run_cells (RkTranscript *self)
{
  g_autoptr(GHashTable) pending = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) ran = g_hash_table_new (g_str_hash, g_str_equal);  /* cell id -> RkRunCell */
  GPtrArray *out;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);

  out = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_run_cell_free);
  for (guint i = 0; i < self->entries->len; i++)
    {
      RkTranscriptEntry *e = self->entries->pdata[i];
      RkTranscriptEntry *code;
      RkRunCell *cell;

      if (e->cell_id == NULL)
        continue;
      switch (e->kind)
        {
        case RK_ENTRY_CODE:
          /* A new cell under an id seen before (a conversation saved before
           * ids ran on across a reopen) starts afresh. */
          g_hash_table_replace (pending, e->cell_id, e);
          g_hash_table_remove (ran, e->cell_id);
          break;
        case RK_ENTRY_APPROVAL:
          code = g_hash_table_lookup (pending, e->cell_id);
          if (code == NULL)
            break;
          g_hash_table_remove (pending, e->cell_id);
          if (e->decision != RK_DECISION_APPROVED && e->decision != RK_DECISION_AUTO &&
              e->decision != RK_DECISION_EDITED)
            break;
          cell = g_new0 (RkRunCell, 1);
          cell->cell_id = g_strdup (e->cell_id);
          cell->code = g_strdup (e->decision == RK_DECISION_EDITED ? (e->text ? e->text : "")
                                                                   : (code->text ? code->text : ""));
          cell->number = out->len + 1;
          g_ptr_array_add (out, cell);
          g_hash_table_replace (ran, e->cell_id, cell);
          break;
        case RK_ENTRY_ERROR:
          cell = g_hash_table_lookup (ran, e->cell_id);
          if (cell != NULL && cell->failure == NULL)
            {
              const char *text = e->text != NULL && *e->text != '\0' ? e->text : NULL;

              if (e->name != NULL && *e->name != '\0' && (text == NULL || !g_str_has_prefix (text, e->name)))
                cell->failure = text != NULL ? g_strdup_printf ("%s: %s", e->name, text) : g_strdup (e->name);
              else
                cell->failure = g_strdup (text != NULL ? text : "error");
            }
          break;
        default:
          break;
        }
    }
  return out;
}

/* ---- loading ---- */

static gpointer
corrupt (GError **error)
{
  g_set_error_literal (error, RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_CORRUPT,
                       _("The conversation file is damaged and could not be opened."));
  return NULL;
}

static RkTranscriptEntry *
entry_from_json (JsonNode *node)
{
  g_autoptr(RkTranscriptEntry) e = NULL;
  g_autofree char *kind = NULL, *decision = NULL, *stream = NULL, *limit = NULL;
  JsonObject *o;
  JsonArray *a = NULL;
  RkEntryKind k;
  gint64 id = 0, time = 0, revises = 0;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  o = json_node_get_object (node);
  if (!rk_json_dup_string (o, "kind", 64, RK_JSON_OPTIONAL, &kind, NULL) || kind == NULL || !rk_entry_kind_from_string (kind, &k))
    return NULL;
  e = _rk_transcript_entry_new (k);
  if (!rk_json_get_int (o, "id", 1, G_MAXUINT32 - 1, RK_JSON_OPTIONAL, &id, NULL) || id == 0)
    return NULL;
  e->id = (guint) id;
  if (!rk_json_get_int (o, "time", 0, G_MAXINT64, RK_JSON_OPTIONAL, &time, NULL))
    return NULL;
  e->timestamp = time;
  if (!rk_json_dup_string (o, "cell", 256, RK_JSON_OPTIONAL, &e->cell_id, NULL) ||
      !rk_json_dup_string (o, "text", RK_TRANSCRIPT_MAX_TEXT, RK_JSON_OPTIONAL, &e->text, NULL) ||
      !rk_json_dup_string (o, "name", 256, RK_JSON_OPTIONAL, &e->name, NULL) ||
      !rk_json_dup_string (o, "detail", RK_TRANSCRIPT_MAX_OUTPUT, RK_JSON_OPTIONAL, &e->detail, NULL) ||
      !rk_json_dup_string (o, "limit", 64, RK_JSON_OPTIONAL, &limit, NULL) ||
      !rk_json_dup_string (o, "previous", RK_TRANSCRIPT_MAX_TEXT, RK_JSON_OPTIONAL, &e->previous_code, NULL) ||
      !rk_json_dup_string (o, "path", 4096, RK_JSON_OPTIONAL, &e->path, NULL) ||
      !rk_json_dup_string (o, "mime", 256, RK_JSON_OPTIONAL, &e->mime_type, NULL) ||
      !rk_json_dup_string (o, "title", 4096, RK_JSON_OPTIONAL, &e->title, NULL) ||
      !rk_json_dup_string (o, "decision", 64, RK_JSON_OPTIONAL, &decision, NULL) ||
      !rk_json_dup_string (o, "stream", 64, RK_JSON_OPTIONAL, &stream, NULL) ||
      !rk_json_get_int (o, "revises", 0, G_MAXUINT32 - 1, RK_JSON_OPTIONAL, &revises, NULL) ||
      !rk_json_get_int (o, "width", 0, G_MAXINT32, RK_JSON_OPTIONAL, &e->width, NULL) ||
      !rk_json_get_int (o, "height", 0, G_MAXINT32, RK_JSON_OPTIONAL, &e->height, NULL) ||
      !rk_json_get_int (o, "rows", 0, G_MAXINT64, RK_JSON_OPTIONAL, &e->rows, NULL) ||
      !rk_json_get_int (o, "columns", 0, G_MAXINT64, RK_JSON_OPTIONAL, &e->columns, NULL) ||
      !rk_json_get_int (o, "limit_value", 0, G_MAXINT64, RK_JSON_OPTIONAL, &e->limit_value, NULL))
    return NULL;
  e->revises = (guint) revises;
  /* Saved before errors carried their limit: the name (and detail) say it. */
  e->limit = rk_sandbox_limit_from_name (limit);
  if (e->limit == RK_SANDBOX_LIMIT_NONE && k == RK_ENTRY_ERROR)
    e->limit = rk_sandbox_limit_from_error (e->name, e->detail);
  if (e->text == NULL)
    e->text = g_strdup ("");

  if (!rk_json_get_bool (o, "truncated", RK_JSON_OPTIONAL, &e->truncated, NULL))
    return NULL;

  if (k == RK_ENTRY_APPROVAL && (decision == NULL || !rk_decision_from_string (decision, &e->decision)))
    return NULL;
  if (k == RK_ENTRY_STREAM)
    {
      if (g_strcmp0 (stream, "stdout") == 0)
        e->stream = RK_STREAM_STDOUT;
      else if (g_strcmp0 (stream, "stderr") == 0)
        e->stream = RK_STREAM_STDERR;
      else
        return NULL;
    }
  if (is_artifact_kind (k) && !rk_path_is_beneath (e->path))
    return NULL;
  if (k == RK_ENTRY_ATTACHMENT && !rk_path_is_beneath (e->name))
    return NULL;
  if (!is_artifact_kind (k) && e->path != NULL)
    return NULL;

  if (!rk_json_get_array (o, "attachments", MAX_ATTACHMENTS, RK_JSON_OPTIONAL, &a, NULL))
    return NULL;
  if (a != NULL)
    {
      guint len = json_array_get_length (a);

      e->attachments = g_new0 (char *, len + 1);
      for (guint i = 0; i < len; i++)
        {
          JsonNode *s = json_array_get_element (a, i);
          if (!JSON_NODE_HOLDS_VALUE (s) || json_node_get_value_type (s) != G_TYPE_STRING ||
              strlen (json_node_get_string (s)) > 4096)
            return NULL;
          e->attachments[i] = g_utf8_make_valid (json_node_get_string (s), -1);
        }
    }
  return g_steal_pointer (&e);
}

RkTranscript *
rk_transcript_new_from_bytes (GBytes  *bytes,
                              GError **error)
{
  g_autoptr(RkTranscript) self = NULL;
  g_autoptr(JsonObject) root = NULL;
  g_autofree char *format = NULL;
  const char *data;
  gsize len;
  JsonArray *entries;
  gint64 version = 0, next_id = 1;
  guint n_entries, max_id = 0;

  g_return_val_if_fail (bytes != NULL, NULL);

  data = g_bytes_get_data (bytes, &len);
  if (len > RK_TRANSCRIPT_MAX_FILE)
    {
      g_set_error_literal (error, RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_TOO_LARGE,
                           _("The conversation file is too large to open."));
      return NULL;
    }
  root = rk_json_parse_object (data, (gssize) len, RK_TRANSCRIPT_MAX_FILE, MAX_JSON_DEPTH, RK_JSON_SCAN_DEFAULT, NULL);
  if (root == NULL)
    return corrupt (error);

  if (!rk_json_dup_string (root, "format", 64, RK_JSON_OPTIONAL, &format, NULL) || g_strcmp0 (format, FORMAT_NAME) != 0 ||
      !rk_json_get_int (root, "version", 1, G_MAXINT32, RK_JSON_OPTIONAL, &version, NULL) || version == 0 ||
      !rk_json_get_int (root, "next_id", 1, G_MAXUINT32, RK_JSON_OPTIONAL, &next_id, NULL))
    return corrupt (error);
  if (version > RK_TRANSCRIPT_VERSION)
    {
      g_set_error_literal (error, RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_VERSION,
                           _("The conversation was saved by a newer version of Reckon and cannot be opened."));
      return NULL;
    }

  if (!rk_json_get_array (root, "entries", RK_JSON_UNLIMITED, RK_JSON_REQUIRED, &entries, NULL))
    return corrupt (error);
  n_entries = json_array_get_length (entries);
  if (n_entries > RK_TRANSCRIPT_MAX_ENTRIES)
    {
      g_set_error_literal (error, RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_TOO_LARGE,
                           _("The conversation file is too large to open."));
      return NULL;
    }

  self = rk_transcript_new ();
  for (guint i = 0; i < n_entries; i++)
    {
      RkTranscriptEntry *e = entry_from_json (json_array_get_element (entries, i));

      if (e == NULL || g_hash_table_contains (self->by_id, GUINT_TO_POINTER (e->id)) ||
          (e->revises != 0 && e->revises >= e->id))
        {
          g_clear_object (&e);
          return corrupt (error);
        }
      max_id = MAX (max_id, e->id);
      g_ptr_array_add (self->entries, e);
      g_hash_table_insert (self->by_id, GUINT_TO_POINTER (e->id), e);
    }
  self->next_id = MAX ((guint) next_id, max_id + 1);
  return g_steal_pointer (&self);
}

static GBytes *
read_bounded (const char  *path,
              GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) in = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local_error = NULL;

  in = g_file_read (file, NULL, &local_error);
  if (in != NULL)
    bytes = g_input_stream_read_bytes (G_INPUT_STREAM (in), RK_TRANSCRIPT_MAX_FILE + 1, NULL, &local_error);
  if (bytes == NULL)
    {
      g_set_error (error, RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_IO,
                   _("The conversation could not be read: %s"), local_error->message);
      return NULL;
    }
  return g_steal_pointer (&bytes);
}

RkTranscript *
rk_transcript_load (const char  *path,
                    GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  bytes = read_bounded (path, error);
  if (bytes == NULL)
    return NULL;
  return rk_transcript_new_from_bytes (bytes, error);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  RkTranscript *self = rk_transcript_load (task_data, &error);

  if (self == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, self, g_object_unref);
}

void
rk_transcript_load_async (const char          *path,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (path != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_transcript_load_async);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, load_thread);
}

RkTranscript *
rk_transcript_load_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
