/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-private.h — what RkConversation, RkConversationStore and
 * RkConversationInfo share: the metadata of a saved conversation. */
#pragma once

#include "rk-conversation-info.h"
#include "rk-conversation-store.h"
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
  GPtrArray *names;        /* char*: the files' names in the workspace */
  GPtrArray *originals;    /* char*: where each was added from */
} RkConversationMeta;

RkConversationMeta *_rk_conversation_meta_new     (const char          *id);
void                _rk_conversation_meta_free    (RkConversationMeta  *meta);
/* Defensive: our file, but it may be damaged. */
RkConversationMeta *_rk_conversation_meta_parse   (const char          *data,
                                                   gsize                len,
                                                   GError             **error);
char               *_rk_conversation_meta_to_json (const RkConversationMeta *meta);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkConversationMeta, _rk_conversation_meta_free)

/* <store dir>/<id>, or NULL without a store. */
char               *_rk_conversation_store_folder (RkConversationStore *self,
                                                   const char          *id);
/* Writes @meta atomically into its folder and updates (or adds) its item. */
gboolean            _rk_conversation_store_save   (RkConversationStore *self,
                                                   RkConversationMeta  *meta,
                                                   gboolean             expired,
                                                   GError             **error);

RkConversationInfo *_rk_conversation_info_new     (const char          *id);
void                _rk_conversation_info_set     (RkConversationInfo  *self,
                                                   const char          *title,
                                                   gint64               created,
                                                   gint64               updated,
                                                   gboolean             expired);

/* A conversation reopened from @meta and its loaded @transcript. */
RkConversation     *_rk_conversation_new_restored (RkModelClient       *client,
                                                   RkConversationStore *store,
                                                   RkConversationMeta  *meta,
                                                   RkTranscript        *transcript,
                                                   GError             **error);

G_END_DECLS
