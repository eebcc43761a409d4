/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chat-search.h — Ctrl+F in the chat: a search bar over the entries the
 * chat shows, with the next and previous match. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RK_TYPE_CHAT_SEARCH (rk_chat_search_get_type ())
G_DECLARE_FINAL_TYPE (RkChatSearch, rk_chat_search, RK, CHAT_SEARCH, GtkWidget)

/* The RkTranscriptEntry list searched (the chat's shown entries). */
void        rk_chat_search_set_model  (RkChatSearch *self,
                                       GListModel   *entries);
/* Shows the bar with the keyboard focus in its entry. */
void        rk_chat_search_open       (RkChatSearch *self);
/* What is searched for, case-folded; NULL when the bar is closed or empty. */
const char *rk_chat_search_get_needle (RkChatSearch *self);
/* Selects the first occurrence of @needle (case-folded) in a label or text
 * view under @root; FALSE when none shows it. */
gboolean    rk_chat_search_select_in  (GtkWidget    *root,
                                       const char   *needle);

/* Signal "match" (guint position in the model, or G_MAXUINT when nothing
 * matches or the bar closed): the match to show. */

G_END_DECLS
