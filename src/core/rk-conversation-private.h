/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-private.h — what RkConversationStore needs of an
 * RkConversation: the metadata of a saved conversation, and how to make one
 * that saves itself through the store (which the conversation never names). */
#pragma once

#include "rk-conversation.h"

G_BEGIN_DECLS

#define RK_CONVERSATION_META_FILE       "conversation.json"
#define RK_CONVERSATION_TRANSCRIPT_FILE "transcript.json"
#define RK_CONVERSATION_META_MAX        (1u << 20)

/* conversation.json (docs/conversations.md). */
typedef struct
{
  char      *id;
  char      *title;
  gboolean   title_set;    /* chosen by the user: not derived any more */
  gint64     created;      /* µs since the Unix epoch */
  gint64     updated;
  char      *session_id;
  GPtrArray *files;        /* RkSessionFile: each file in the workspace and where it was added from */
} RkConversationMeta;

RkConversationMeta *_rk_conversation_meta_new     (const char          *id);
void                _rk_conversation_meta_free    (RkConversationMeta  *meta);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkConversationMeta, _rk_conversation_meta_free)

/* How a conversation of a store saves itself: the transcript autosaves into
 * <@dir>/<id>, the session's folder goes under @sessions_dir, and @save
 * writes the metadata there and updates @store's list (kept by the
 * conversation as long as it lives). */
typedef gboolean (*RkConversationSaveFunc) (gpointer             store,
                                            RkConversationMeta  *meta,
                                            gboolean             expired,
                                            GError             **error);

typedef struct
{
  GObject                *store;
  const char             *dir;
  const char             *sessions_dir;
  RkConversationSaveFunc  save;
} RkConversationSaving;

/* rk_conversation_new(), saved as @saving says. */
RkConversation     *_rk_conversation_new_saved    (RkModelClient              *client,
                                                   const RkConversationSaving *saving,
                                                   GError                    **error);

/* A conversation reopened from @meta and its loaded @transcript; @saving
 * may be NULL (in memory only). */
RkConversation     *_rk_conversation_new_restored (RkModelClient              *client,
                                                   const RkConversationSaving *saving,
                                                   RkConversationMeta         *meta,
                                                   RkTranscript               *transcript,
                                                   GError                    **error);

G_END_DECLS
