/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-file.c — one file of a conversation, the object its card
 * and its sidebar row bind to. */
#define G_LOG_DOMAIN "rk-conversation"
#include "config.h"

#include "rk-conversation-file-private.h"

G_DEFINE_FINAL_TYPE (RkConversationFile, rk_conversation_file, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_NAME,
  PROP_ORIGINAL,
  PROP_PROFILE,
  PROP_ESTIMATE,
  PROP_PROGRESS,
  PROP_STATE,
  PROP_COPIED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

RkConversationFile *
_rk_conversation_file_new (const char *name,
                           const char *original)
{
  RkConversationFile *self = g_object_new (RK_TYPE_CONVERSATION_FILE, NULL);

  self->name = g_strdup (name);
  self->original = g_strdup (original);
  return self;
}

void
_rk_conversation_file_set_name (RkConversationFile *self,
                                const char         *name)
{
  if (g_strcmp0 (self->name, name) == 0)
    return;
  g_free (self->name);
  self->name = g_strdup (name);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
}

void
_rk_conversation_file_set_state (RkConversationFile      *self,
                                 RkConversationFileState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

void
_rk_conversation_file_set_copied (RkConversationFile *self,
                                  gboolean            copied)
{
  copied = !!copied;
  if (self->copied == copied)
    return;
  self->copied = copied;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COPIED]);
}

void
_rk_conversation_file_set_progress (RkConversationFile *self,
                                    double              progress)
{
  progress = progress >= 0 ? MIN (progress, 1.0) : -1;
  if (self->progress == progress)
    return;
  self->progress = progress;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
}

void
_rk_conversation_file_take_estimate (RkConversationFile *self,
                                     RkFileProfile      *estimate)
{
  if (self->estimate == NULL && estimate == NULL)
    return;
  g_clear_pointer (&self->estimate, rk_file_profile_free);
  self->estimate = estimate;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ESTIMATE]);
}

void
_rk_conversation_file_take_profile (RkConversationFile *self,
                                    RkFileProfile      *profile)
{
  g_object_freeze_notify (G_OBJECT (self));
  _rk_conversation_file_take_estimate (self, NULL);
  _rk_conversation_file_set_progress (self, -1);
  if (self->profile != NULL || profile != NULL)
    {
      g_clear_pointer (&self->profile, rk_file_profile_free);
      self->profile = profile;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

const char *
rk_conversation_file_get_name (RkConversationFile *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_FILE (self), NULL);
  return self->name;
}

const char *
rk_conversation_file_get_original (RkConversationFile *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_FILE (self), NULL);
  return self->original;
}

RkFileProfile *
rk_conversation_file_get_profile (RkConversationFile *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_FILE (self), NULL);
  return self->profile;
}

RkFileProfile *
rk_conversation_file_get_estimate (RkConversationFile *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_FILE (self), NULL);
  return self->estimate;
}

double
rk_conversation_file_get_progress (RkConversationFile *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_FILE (self), -1);
  return self->progress;
}

RkConversationFileState
rk_conversation_file_get_state (RkConversationFile *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_FILE (self), RK_CONVERSATION_FILE_REMOVED);
  return self->state;
}

gboolean
rk_conversation_file_get_busy (RkConversationFile *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_FILE (self), FALSE);
  return self->state == RK_CONVERSATION_FILE_COPYING || self->state == RK_CONVERSATION_FILE_WAITING ||
         self->state == RK_CONVERSATION_FILE_PROFILING;
}

gboolean
rk_conversation_file_get_copied (RkConversationFile *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_FILE (self), FALSE);
  return self->copied;
}

guint
rk_conversation_file_get_entry_id (RkConversationFile *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_FILE (self), 0);
  return self->entry_id;
}

static void
rk_conversation_file_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  RkConversationFile *self = RK_CONVERSATION_FILE (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_ORIGINAL:
      g_value_set_string (value, self->original);
      break;
    case PROP_PROFILE:
      g_value_set_boxed (value, self->profile);
      break;
    case PROP_ESTIMATE:
      g_value_set_boxed (value, self->estimate);
      break;
    case PROP_PROGRESS:
      g_value_set_double (value, self->progress);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_COPIED:
      g_value_set_boolean (value, self->copied);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_conversation_file_finalize (GObject *object)
{
  RkConversationFile *self = RK_CONVERSATION_FILE (object);

  g_free (self->name);
  g_free (self->original);
  g_clear_pointer (&self->profile, rk_file_profile_free);
  g_clear_pointer (&self->estimate, rk_file_profile_free);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (rk_conversation_file_parent_class)->finalize (object);
}

static void
rk_conversation_file_class_init (RkConversationFileClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->get_property = rk_conversation_file_get_property;
  object_class->finalize = rk_conversation_file_finalize;

  /**
   * RkConversationFile:name:
   *
   * The file's name in the workspace, the one code reads it by. Predicted
   * while it is copied; if something took that name meanwhile, it changes
   * to the real one once.
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);
  /**
   * RkConversationFile:original:
   *
   * The host path the file was added from (the original is never
   * touched), or NULL when not known (a conversation reopened after Reckon
   * was closed knows it from its saved state).
   */
  properties[PROP_ORIGINAL] = g_param_spec_string ("original", NULL, NULL, NULL, ro);
  /**
   * RkConversationFile:profile:
   *
   * What the profiler found (an #RkFileProfile), or only an error sentence
   * when the file could not be added or read; NULL while it is busy.
   */
  properties[PROP_PROFILE] = g_param_spec_boxed ("profile", NULL, NULL, RK_TYPE_FILE_PROFILE, ro);
  /**
   * RkConversationFile:estimate:
   *
   * While a big CSV is read: its profile from the sample, rows estimated
   * (rows_approximate), until the exact profile comes; else NULL.
   */
  properties[PROP_ESTIMATE] = g_param_spec_boxed ("estimate", NULL, NULL, RK_TYPE_FILE_PROFILE, ro);
  /**
   * RkConversationFile:progress:
   *
   * How much of the file the profiler has read, 0 to 1, a few times a
   * second; -1 when not known (not being read, or nothing reported yet).
   */
  properties[PROP_PROGRESS] = g_param_spec_double ("progress", NULL, NULL, -1, 1, -1, ro);
  /**
   * RkConversationFile:state:
   *
   * Where the file is in its life: copied, waiting, read, ready, failed or
   * removed (#RkConversationFileState).
   */
  properties[PROP_STATE] = g_param_spec_enum ("state", NULL, NULL, RK_TYPE_CONVERSATION_FILE_STATE,
                                              RK_CONVERSATION_FILE_COPYING, ro);
  /**
   * RkConversationFile:copied:
   *
   * It was copied, whole, into the workspace (its size can be shown), and
   * not removed from there since.
   */
  properties[PROP_COPIED] = g_param_spec_boolean ("copied", NULL, NULL, FALSE, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
rk_conversation_file_init (RkConversationFile *self)
{
  self->progress = -1;
  self->skip_lines = -1;
  self->header = RK_PROFILE_HEADER_AUTO;
}
