/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-store-private.h — conversation.json, read and written by
 * the store (tests and the fuzz target reach them here). */
#pragma once

#include "rk-conversation-private.h"
#include "rk-conversation-store.h"

G_BEGIN_DECLS

/* Defensive: our file, but it may be damaged. */
RkConversationMeta *_rk_conversation_meta_parse   (const char               *data,
                                                   gsize                     len,
                                                   GError                  **error);
char               *_rk_conversation_meta_to_json (const RkConversationMeta *meta);

/* Writes @meta atomically into its folder and updates (or adds) its item. */
gboolean            _rk_conversation_store_save   (RkConversationStore      *self,
                                                   RkConversationMeta       *meta,
                                                   gboolean                  expired,
                                                   GError                  **error);

G_END_DECLS
