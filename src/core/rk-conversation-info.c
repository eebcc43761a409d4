/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-info.c — one saved conversation as the sidebar lists it;
 * RkConversationStore creates and updates these. */
#define G_LOG_DOMAIN "rk-conversation"
#include "config.h"

#include "rk-conversation-info-private.h"

struct _RkConversationInfo
{
  GObject   parent_instance;

  char     *id;
  char     *title;
  gint64    created;
  gint64    updated;
  gboolean  expired;
};

G_DEFINE_FINAL_TYPE (RkConversationInfo, rk_conversation_info, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_ID,
  PROP_TITLE,
  PROP_CREATED,
  PROP_UPDATED,
  PROP_EXPIRED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

RkConversationInfo *
_rk_conversation_info_new (const char *id)
{
  RkConversationInfo *self = g_object_new (RK_TYPE_CONVERSATION_INFO, NULL);

  self->id = g_strdup (id);
  return self;
}

void
_rk_conversation_info_set (RkConversationInfo *self,
                           const char         *title,
                           gint64              created,
                           gint64              updated,
                           gboolean            expired)
{
  g_object_freeze_notify (G_OBJECT (self));
  if (g_strcmp0 (self->title, title) != 0)
    {
      g_free (self->title);
      self->title = g_strdup (title);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
    }
  if (self->created != created)
    {
      self->created = created;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CREATED]);
    }
  if (self->updated != updated)
    {
      self->updated = updated;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_UPDATED]);
    }
  if (self->expired != expired)
    {
      self->expired = expired;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXPIRED]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

const char *
rk_conversation_info_get_id (RkConversationInfo *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_INFO (self), NULL);
  return self->id;
}

const char *
rk_conversation_info_get_title (RkConversationInfo *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_INFO (self), NULL);
  return self->title ? self->title : "";
}

gint64
rk_conversation_info_get_created (RkConversationInfo *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_INFO (self), 0);
  return self->created;
}

gint64
rk_conversation_info_get_updated (RkConversationInfo *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_INFO (self), 0);
  return self->updated;
}

gboolean
rk_conversation_info_get_expired (RkConversationInfo *self)
{
  g_return_val_if_fail (RK_IS_CONVERSATION_INFO (self), FALSE);
  return self->expired;
}

static void
rk_conversation_info_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  RkConversationInfo *self = RK_CONVERSATION_INFO (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_TITLE:
      g_value_set_string (value, rk_conversation_info_get_title (self));
      break;
    case PROP_CREATED:
      g_value_set_int64 (value, self->created);
      break;
    case PROP_UPDATED:
      g_value_set_int64 (value, self->updated);
      break;
    case PROP_EXPIRED:
      g_value_set_boolean (value, self->expired);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_conversation_info_finalize (GObject *object)
{
  RkConversationInfo *self = RK_CONVERSATION_INFO (object);

  g_free (self->id);
  g_free (self->title);
  G_OBJECT_CLASS (rk_conversation_info_parent_class)->finalize (object);
}

static void
rk_conversation_info_class_init (RkConversationInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->get_property = rk_conversation_info_get_property;
  object_class->finalize = rk_conversation_info_finalize;

  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, "", flags);
  properties[PROP_CREATED] = g_param_spec_int64 ("created", NULL, NULL, 0, G_MAXINT64, 0, flags);
  properties[PROP_UPDATED] = g_param_spec_int64 ("updated", NULL, NULL, 0, G_MAXINT64, 0, flags);
  properties[PROP_EXPIRED] = g_param_spec_boolean ("expired", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
rk_conversation_info_init (RkConversationInfo *self)
{
}
