/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-store.c — the saved conversations: one folder each with
 * conversation.json (metadata, read here defensively) and transcript.json,
 * listed newest first as a GListModel. */
#define G_LOG_DOMAIN "rk-conversation"
#include "config.h"
#include "rk-conversation-store.h"

#include <errno.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "rk-conversation-info-private.h"
#include "rk-conversation-store-private.h"
#include "rk-json.h"
#include "rk-util.h"
#include "rk-workspace.h"

#define META_FORMAT      "reckon-conversation"
#define META_VERSION     1
#define META_MAX_DEPTH   8
#define META_MAX_FILES   10000

struct _RkConversationStore
{
  GObject     parent_instance;

  char       *dir;
  char       *sessions_dir;
  GPtrArray  *items;         /* RkConversationInfo, newest first */
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RkConversationStore, rk_conversation_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))
G_DEFINE_QUARK (rk-conversation-store-error-quark, rk_conversation_store_error)

/* -- metadata ------------------------------------------------------------- */

/* An id names a folder: one plain component. */
static gboolean
is_plain_name (const char *s)
{
  return s != NULL && rk_path_is_beneath (s) && strchr (s, '/') == NULL && strlen (s) <= 128;
}

static RkConversationMeta *
corrupt (GError **error)
{
  g_set_error_literal (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_CORRUPT,
                       _("The saved conversation is damaged and cannot be opened."));
  return NULL;
}

RkConversationMeta *
_rk_conversation_meta_parse (const char  *data,
                             gsize        len,
                             GError     **error)
{
  g_autoptr(JsonObject) root = NULL;
  g_autoptr(RkConversationMeta) meta = NULL;
  g_autofree char *format = NULL;
  g_autofree char *id = NULL;
  JsonArray *files = NULL;
  gint64 version = 0;

  root = rk_json_parse_object (data, (gssize) len, RK_CONVERSATION_META_MAX, META_MAX_DEPTH,
                               RK_JSON_SCAN_NO_ESCAPED_NUL, NULL);
  if (root == NULL)
    return corrupt (error);
  if (!rk_json_dup_string (root, "format", 64, RK_JSON_REQUIRED, &format, NULL)
      || g_strcmp0 (format, META_FORMAT) != 0
      || !rk_json_get_int (root, "version", 1, G_MAXINT64, RK_JSON_REQUIRED, &version, NULL))
    return corrupt (error);
  if (version > META_VERSION)
    {
      g_set_error_literal (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_CORRUPT,
                           _("The conversation was saved by a newer version of Reckon and cannot be opened."));
      return NULL;
    }
  if (!rk_json_dup_string (root, "id", 128, RK_JSON_REQUIRED, &id, NULL) || !is_plain_name (id))
    return corrupt (error);

  meta = _rk_conversation_meta_new (id);
  if (!rk_json_dup_string (root, "title", 4096, RK_JSON_OPTIONAL, &meta->title, NULL)
      || !rk_json_dup_string (root, "session", 128, RK_JSON_REQUIRED, &meta->session_id, NULL)
      || !is_plain_name (meta->session_id)
      || !rk_json_get_int (root, "created", 0, G_MAXINT64, RK_JSON_OPTIONAL, &meta->created, NULL)
      || !rk_json_get_int (root, "updated", 0, G_MAXINT64, RK_JSON_OPTIONAL, &meta->updated, NULL)
      || !rk_json_get_bool (root, "title_set", RK_JSON_OPTIONAL, &meta->title_set, NULL)
      || !rk_json_get_array (root, "files", META_MAX_FILES, RK_JSON_OPTIONAL, &files, NULL))
    return corrupt (error);

  for (guint i = 0; files != NULL && i < json_array_get_length (files); i++)
    {
      JsonNode *f = json_array_get_element (files, i);
      g_autofree char *name = NULL;
      g_autofree char *original = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (f)
          || !rk_json_dup_string (json_node_get_object (f), "name", 256, RK_JSON_REQUIRED, &name, NULL)
          || !rk_json_dup_string (json_node_get_object (f), "original", 4096, RK_JSON_REQUIRED, &original, NULL)
          || !rk_path_is_beneath (name) || !g_path_is_absolute (original))
        return corrupt (error);
      g_ptr_array_add (meta->files, rk_session_file_new (name, original));
    }
  return g_steal_pointer (&meta);
}

char *
_rk_conversation_meta_to_json (const RkConversationMeta *meta)
{
  g_autoptr(JsonBuilder) b = json_builder_new_immutable ();

  json_builder_begin_object (b);
  rk_json_add_string_member (b, "format", META_FORMAT);
  rk_json_add_int_member (b, "version", META_VERSION);
  rk_json_add_string_member (b, "id", meta->id);
  rk_json_add_string_member (b, "title", meta->title ? meta->title : "");
  rk_json_add_bool_member (b, "title_set", meta->title_set);
  rk_json_add_int_member (b, "created", meta->created);
  rk_json_add_int_member (b, "updated", meta->updated);
  rk_json_add_string_member (b, "session", meta->session_id);
  json_builder_set_member_name (b, "files");
  json_builder_begin_array (b);
  for (guint i = 0; i < meta->files->len; i++)
    {
      const RkSessionFile *f = g_ptr_array_index (meta->files, i);

      json_builder_begin_object (b);
      rk_json_add_string_member (b, "name", f->name);
      rk_json_add_string_member (b, "original", f->original_path);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return rk_json_builder_to_pretty (b);
}

/* -- the list --------------------------------------------------------------- */

static GType
get_item_type (GListModel *model)
{
  return RK_TYPE_CONVERSATION_INFO;
}

static guint
get_n_items (GListModel *model)
{
  return RK_CONVERSATION_STORE (model)->items->len;
}

static gpointer
get_item (GListModel *model,
          guint       position)
{
  RkConversationStore *self = RK_CONVERSATION_STORE (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

/* Where an item updated at @updated belongs: after every newer one. */
static guint
position_for (RkConversationStore *self,
              gint64               updated)
{
  guint pos = 0;

  while (pos < self->items->len
         && rk_conversation_info_get_updated (g_ptr_array_index (self->items, pos)) >= updated)
    pos++;
  return pos;
}

static gboolean
find_item (RkConversationStore *self,
           const char          *id,
           guint               *position)
{
  for (guint i = 0; i < self->items->len; i++)
    if (g_strcmp0 (rk_conversation_info_get_id (g_ptr_array_index (self->items, i)), id) == 0)
      {
        *position = i;
        return TRUE;
      }
  return FALSE;
}

/* Adds or updates the item of @meta, keeping the list newest first. An
 * item that stays where it is only notifies (a sidebar row is not rebuilt
 * on every autosave of the open conversation). */
static void
update_item (RkConversationStore *self,
             RkConversationMeta  *meta,
             gboolean             expired)
{
  g_autoptr(RkConversationInfo) info = NULL;
  guint old_pos, new_pos;

  if (find_item (self, meta->id, &old_pos))
    {
      info = g_object_ref (g_ptr_array_index (self->items, old_pos));
      g_ptr_array_remove_index (self->items, old_pos);
      new_pos = position_for (self, meta->updated);
      g_ptr_array_insert (self->items, (gint) new_pos, g_object_ref (info));
      if (new_pos != old_pos)
        {
          g_list_model_items_changed (G_LIST_MODEL (self), old_pos, 1, 0);
          g_list_model_items_changed (G_LIST_MODEL (self), new_pos, 0, 1);
        }
      _rk_conversation_info_set (info, meta->title, meta->created, meta->updated, expired);
      return;
    }

  info = _rk_conversation_info_new (meta->id);
  _rk_conversation_info_set (info, meta->title, meta->created, meta->updated, expired);
  new_pos = position_for (self, meta->updated);
  g_ptr_array_insert (self->items, (gint) new_pos, g_object_ref (info));
  g_list_model_items_changed (G_LIST_MODEL (self), new_pos, 0, 1);
}

/* <store dir>/<id>. */
static char *
folder_of (RkConversationStore *self,
           const char          *id)
{
  return g_build_filename (self->dir, id, NULL);
}

gboolean
_rk_conversation_store_save (RkConversationStore *self,
                             RkConversationMeta  *meta,
                             gboolean             expired,
                             GError             **error)
{
  g_autofree char *folder = folder_of (self, meta->id);
  g_autofree char *path = g_build_filename (folder, RK_CONVERSATION_META_FILE, NULL);
  g_autofree char *json = _rk_conversation_meta_to_json (meta);

  update_item (self, meta, expired);
  if (g_mkdir_with_parents (folder, 0700) != 0)
    {
      int errsv = errno;

      g_set_error (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_IO,
                   _("Could not save the conversation: %s."), g_strerror (errsv));
      return FALSE;
    }
  /* A temporary file renamed over the old one: never half written. */
  if (!g_file_set_contents_full (path, json, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error))
    return FALSE;
  return TRUE;
}

static gboolean
session_gone (RkConversationStore *self,
              const char          *session_id)
{
  g_autofree char *parent = self->sessions_dir != NULL
                            ? g_strdup (self->sessions_dir)
                            : g_build_filename (g_get_user_cache_dir (), "reckon", "sessions", NULL);
  g_autofree char *workspace = g_build_filename (parent, session_id, NULL);

  return !g_file_test (workspace, G_FILE_TEST_IS_DIR);
}

static RkConversationMeta *
read_meta (RkConversationStore  *self,
           const char           *id,
           GError              **error)
{
  g_autofree char *folder = NULL;
  g_autofree char *path = NULL;
  g_autofree char *data = NULL;
  g_autoptr(GError) local_error = NULL;
  RkConversationMeta *meta;
  gsize len = 0;

  if (!is_plain_name (id))
    {
      g_set_error_literal (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_NOT_FOUND,
                           _("There is no saved conversation with this name."));
      return NULL;
    }
  folder = folder_of (self, id);
  path = g_build_filename (folder, RK_CONVERSATION_META_FILE, NULL);
  /* Not a symlink, not huge: checked before reading. */
  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK) || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error_literal (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_NOT_FOUND,
                           _("There is no saved conversation with this name."));
      return NULL;
    }
  {
    GStatBuf st;

    if (g_stat (path, &st) != 0 || st.st_size > (goffset) RK_CONVERSATION_META_MAX)
      return corrupt (error);
  }
  if (!g_file_get_contents (path, &data, &len, &local_error))
    {
      g_set_error (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_IO,
                   _("Could not read the saved conversation: %s"), local_error->message);
      return NULL;
    }
  meta = _rk_conversation_meta_parse (data, len, error);
  if (meta != NULL && g_strcmp0 (meta->id, id) != 0)
    {
      _rk_conversation_meta_free (meta);
      return corrupt (error);
    }
  return meta;
}

static void
load_list (RkConversationStore *self)
{
  g_autoptr(GDir) dir = g_dir_open (self->dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL && n < RK_CONVERSATION_STORE_MAX)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RkConversationMeta) meta = read_meta (self, name, &error);
      RkConversationInfo *info;

      if (meta == NULL)
        {
          if (!g_error_matches (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_NOT_FOUND))
            g_message ("skipping saved conversation %s: %s", name, error->message);
          continue;
        }
      info = _rk_conversation_info_new (meta->id);
      _rk_conversation_info_set (info, meta->title, meta->created, meta->updated,
                                 session_gone (self, meta->session_id));
      g_ptr_array_insert (self->items, (gint) position_for (self, meta->updated), info);
      n++;
    }
}

/* -- public API --------------------------------------------------------------- */

RkConversationStore *
rk_conversation_store_new (const char  *dir,
                           const char  *sessions_dir,
                           GError     **error)
{
  g_autoptr(RkConversationStore) self = g_object_new (RK_TYPE_CONVERSATION_STORE, NULL);

  self->dir = dir != NULL ? g_strdup (dir)
                          : g_build_filename (g_get_user_data_dir (), "reckon", "conversations", NULL);
  self->sessions_dir = g_strdup (sessions_dir);
  if (g_mkdir_with_parents (self->dir, 0700) != 0)
    {
      int errsv = errno;

      g_set_error (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_IO,
                   _("Could not create the folder for saved conversations: %s."), g_strerror (errsv));
      return NULL;
    }
  load_list (self);
  return g_steal_pointer (&self);
}

const char *
rk_conversation_store_get_dir (RkConversationStore *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_STORE (self), NULL);
  return self->dir;
}

const char *
rk_conversation_store_get_sessions_dir (RkConversationStore *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_STORE (self), NULL);
  return self->sessions_dir;
}

RkConversationInfo *
rk_conversation_store_lookup (RkConversationStore *self,
                              const char          *id)
{
  guint pos;

  g_return_val_if_fail (RK_IS_CONVERSATION_STORE (self), NULL);

  if (id == NULL || !find_item (self, id, &pos))
    return NULL;
  return g_ptr_array_index (self->items, pos);
}

/* How each conversation of the store saves itself. */
static gboolean
save_cb (gpointer             store,
         RkConversationMeta  *meta,
         gboolean             expired,
         GError             **error)
{
  return _rk_conversation_store_save (store, meta, expired, error);
}

static RkConversationSaving
saving_of (RkConversationStore *self)
{
  RkConversationSaving saving = { G_OBJECT (self), self->dir, self->sessions_dir, save_cb };

  return saving;
}

RkConversation *
rk_conversation_store_create (RkConversationStore  *self,
                              RkModelClient        *client,
                              GError              **error)
{
  RkConversationSaving saving;

  g_return_val_if_fail (RK_IS_CONVERSATION_STORE (self), NULL);

  saving = saving_of (self);
  return _rk_conversation_new_saved (client, &saving, error);
}

typedef struct
{
  RkModelClient      *client;
  RkConversationMeta *meta;
} OpenData;

static void
open_data_free (gpointer data)
{
  OpenData *d = data;

  g_clear_object (&d->client);
  _rk_conversation_meta_free (d->meta);
  g_free (d);
}

/* Ends @task with the conversation of @transcript and the meta read before. */
static void
open_return_restored (GTask        *task,
                      RkTranscript *transcript)
{
  RkConversationStore *self = g_task_get_source_object (task);
  OpenData *d = g_task_get_task_data (task);
  RkConversationSaving saving = saving_of (self);
  GError *error = NULL;
  RkConversation *conversation = _rk_conversation_new_restored (d->client, &saving, d->meta, transcript, &error);

  if (conversation == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, conversation, g_object_unref);
}

static void
open_loaded_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(RkTranscript) transcript = NULL;
  GError *error = NULL;

  transcript = rk_transcript_load_finish (result, &error);
  if (transcript == NULL)
    g_task_return_error (task, error);
  else
    open_return_restored (task, transcript);
}

void
rk_conversation_store_open_async (RkConversationStore *self,
                                  const char          *id,
                                  RkModelClient       *client,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *path = NULL;
  GError *error = NULL;
  OpenData *d;

  g_return_if_fail (RK_IS_CONVERSATION_STORE (self));
  g_return_if_fail (id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_conversation_store_open_async);
  d = g_new0 (OpenData, 1);
  d->client = g_object_ref (client);
  g_task_set_task_data (task, d, open_data_free);
  d->meta = read_meta (self, id, &error);
  if (d->meta == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  folder = folder_of (self, id);
  path = g_build_filename (folder, RK_CONVERSATION_TRANSCRIPT_FILE, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autoptr(RkTranscript) transcript = rk_transcript_new ();   /* killed before its first save */

      open_return_restored (task, transcript);
      return;
    }
  rk_transcript_load_async (path, cancellable, open_loaded_cb, g_steal_pointer (&task));
}

RkConversation *
rk_conversation_store_open_finish (RkConversationStore  *self,
                                   GAsyncResult         *result,
                                   GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
rk_conversation_store_delete (RkConversationStore  *self,
                              const char           *id,
                              GError              **error)
{
  g_autoptr(RkConversationMeta) meta = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *folder = NULL;
  guint pos;

  g_return_val_if_fail (RK_IS_CONVERSATION_STORE (self), FALSE);

  meta = read_meta (self, id, &local_error);
  if (meta == NULL && g_error_matches (local_error, RK_CONVERSATION_STORE_ERROR,
                                       RK_CONVERSATION_STORE_ERROR_NOT_FOUND)
      && !find_item (self, id, &pos))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  /* The session's workspace first, then the folder (a damaged one too). */
  if (meta != NULL)
    {
      g_autofree char *parent = self->sessions_dir != NULL
                                ? g_strdup (self->sessions_dir)
                                : g_build_filename (g_get_user_cache_dir (), "reckon", "sessions", NULL);
      g_autofree char *workspace = g_build_filename (parent, meta->session_id, NULL);

      if (!rk_workspace_delete_folder (workspace, error))
        return FALSE;
    }
  if (is_plain_name (id))
    {
      folder = folder_of (self, id);
      if (!rk_workspace_delete_folder (folder, error))
        return FALSE;
    }
  if (find_item (self, id, &pos))
    {
      g_ptr_array_remove_index (self->items, pos);
      g_list_model_items_changed (G_LIST_MODEL (self), pos, 1, 0);
    }
  return TRUE;
}

static void
rk_conversation_store_finalize (GObject *object)
{
  RkConversationStore *self = RK_CONVERSATION_STORE (object);

  g_free (self->dir);
  g_free (self->sessions_dir);
  g_ptr_array_unref (self->items);
  G_OBJECT_CLASS (rk_conversation_store_parent_class)->finalize (object);
}

static void
rk_conversation_store_class_init (RkConversationStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rk_conversation_store_finalize;
}

static void
rk_conversation_store_init (RkConversationStore *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}
