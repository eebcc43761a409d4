/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chat-view.h — the chat: a GtkListView over a conversation's transcript,
 * one row per entry, kept scrolled to the newest content unless the user
 * scrolled up. */
#pragma once

#include <gtk/gtk.h>

#include "rk-transcript.h"

G_BEGIN_DECLS

typedef struct _RkConversation RkConversation;

#define RK_TYPE_CHAT_VIEW (rk_chat_view_get_type ())
G_DECLARE_FINAL_TYPE (RkChatView, rk_chat_view, RK, CHAT_VIEW, GtkWidget)

GtkWidget      *rk_chat_view_new              (void);
/* Shows @conversation's transcript and follows its state (the cell waiting
 * for approval, the running cell, file profiles); Run, Edit, Skip, Stop,
 * Retry and Cancel act on it. NULL shows nothing. */
void            rk_chat_view_set_conversation (RkChatView     *self,
                                               RkConversation *conversation);
/* A transcript on its own (a restored or exported conversation, a preview):
 * artifacts are read beneath @workspace (NULL: none). */
void            rk_chat_view_set_transcript   (RkChatView     *self,
                                               RkTranscript   *transcript,
                                               RkWorkspace    *workspace);
/* The cell waiting for approval, the running cell and when it started
 * (monotonic µs). Set from the conversation when there is one. */
void            rk_chat_view_set_cell_state   (RkChatView     *self,
                                               const char     *pending_cell,
                                               const char     *running_cell,
                                               gint64          cell_started);
/* Shows the entry @entry_id (or the last one shown before it) and stops
 * following the bottom: where a traced number of an answer was computed. */
void            rk_chat_view_scroll_to_entry  (RkChatView     *self,
                                               guint           entry_id);
/* The widget shown for the entry @entry_id (a file's card, ...) while its
 * row is built, else NULL: scroll to it first. */
GtkWidget      *rk_chat_view_get_entry_widget (RkChatView     *self,
                                               guint           entry_id);
/* TRUE while the view follows new content at the bottom. */
gboolean        rk_chat_view_get_following    (RkChatView     *self);
void            rk_chat_view_scroll_to_end    (RkChatView     *self);
GtkListView    *rk_chat_view_get_list_view    (RkChatView     *self);

/* Actions, activated by the rows' controls and acting on the conversation:
 *   chat.approve (run the waiting code; the edit when it is being edited;
 *   also Ctrl+Enter anywhere in the window), chat.edit (s: run this code
 *   instead), chat.skip (then the question field has the focus), chat.stop,
 *   chat.retry, chat.cancel-profile (s: file name), chat.run-code (s: a
 *   one-click analysis, shown for approval), chat.run-again ((sb): cell id,
 *   fresh kernel), chat.show-entry (u: entry id), chat.search (Ctrl+F). */

G_END_DECLS
