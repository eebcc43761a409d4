/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-info.h — one saved conversation as a sidebar lists it:
 * id, title, times, and whether its session expired. Items of
 * RkConversationStore; read-only outside it. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define RK_TYPE_CONVERSATION_INFO (rk_conversation_info_get_type ())
G_DECLARE_FINAL_TYPE (RkConversationInfo, rk_conversation_info, RK, CONVERSATION_INFO, GObject)

const char *rk_conversation_info_get_id      (RkConversationInfo *self);
const char *rk_conversation_info_get_title   (RkConversationInfo *self);
/* Microseconds since the Unix epoch. */
gint64      rk_conversation_info_get_created (RkConversationInfo *self);
gint64      rk_conversation_info_get_updated (RkConversationInfo *self);
gboolean    rk_conversation_info_get_expired (RkConversationInfo *self);

/* Properties (read-only, notified on change): "id", "title", "created",
 * "updated", "expired". */

G_END_DECLS
