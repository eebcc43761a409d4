/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-info-private.h — RkConversationStore makes and updates
 * the items of its list. */
#pragma once

#include "rk-conversation-info.h"

G_BEGIN_DECLS

RkConversationInfo *_rk_conversation_info_new (const char         *id);
void                _rk_conversation_info_set (RkConversationInfo *self,
                                               const char         *title,
                                               gint64              created,
                                               gint64              updated,
                                               gboolean            expired);

G_END_DECLS
