/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-store.h — the saved conversations (one folder each under
 * the XDG data folder): a GListModel of RkConversationInfo for a sidebar,
 * newest first, and new / open / delete. Layout in docs/conversations.md. */
#pragma once

#include <gio/gio.h>

#include "rk-conversation-info.h"
#include "rk-conversation.h"

G_BEGIN_DECLS

#define RK_CONVERSATION_STORE_ERROR (rk_conversation_store_error_quark ())

typedef enum
{
  RK_CONVERSATION_STORE_ERROR_NOT_FOUND,  /* no saved conversation has this id */
  RK_CONVERSATION_STORE_ERROR_CORRUPT,    /* its files are damaged */
  RK_CONVERSATION_STORE_ERROR_IO,         /* could not be read or written */
} RkConversationStoreError;

GQuark rk_conversation_store_error_quark (void);

#define RK_TYPE_CONVERSATION_STORE (rk_conversation_store_get_type ())
G_DECLARE_FINAL_TYPE (RkConversationStore, rk_conversation_store, RK, CONVERSATION_STORE, GObject)

/* The conversations saved in @dir (NULL: g_get_user_data_dir()/reckon/
 * conversations), whose sessions live in @sessions_dir (NULL: the default,
 * g_get_user_cache_dir()/reckon/sessions). Reads only the small metadata
 * file of each (at most RK_CONVERSATION_STORE_MAX conversations, newest
 * first); a damaged one is skipped with a warning. */
RkConversationStore *rk_conversation_store_new        (const char           *dir,
                                                      const char           *sessions_dir,
                                                      GError              **error);
#define RK_CONVERSATION_STORE_MAX 1000

const char          *rk_conversation_store_get_dir    (RkConversationStore  *self);
/* NULL when the default folder is used. */
const char          *rk_conversation_store_get_sessions_dir (RkConversationStore *self);
/* The item of @id, or NULL. */
RkConversationInfo  *rk_conversation_store_lookup     (RkConversationStore  *self,
                                                      const char           *id);

/* A new conversation saved in this store (= rk_conversation_new). */
RkConversation      *rk_conversation_store_create     (RkConversationStore  *self,
                                                      RkModelClient        *client,
                                                      GError              **error);
/* Reopens a saved conversation: its transcript (read in a thread), title,
 * files (their profiles from the transcript) and session. A session whose
 * workspace is gone is expired ("expired" TRUE; restart it to work on);
 * otherwise its kernel starts fresh (files kept, variables gone, which a
 * note says). */
void                 rk_conversation_store_open_async (RkConversationStore  *self,
                                                      const char           *id,
                                                      RkModelClient        *client,
                                                      GCancellable         *cancellable,
                                                      GAsyncReadyCallback   callback,
                                                      gpointer              user_data);
RkConversation      *rk_conversation_store_open_finish (RkConversationStore *self,
                                                      GAsyncResult         *result,
                                                      GError              **error);
/* Deletes a saved conversation: its folder and its session's workspace.
 * Close (and drop) an open RkConversation of it first. */
gboolean             rk_conversation_store_delete     (RkConversationStore  *self,
                                                      const char           *id,
                                                      GError              **error);

G_END_DECLS
