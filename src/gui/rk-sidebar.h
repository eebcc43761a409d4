/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-sidebar.h — the sidebar: saved conversations, this session's files,
 * and a slot for the results helper's artifact shelf. */
#pragma once

#include <gtk/gtk.h>

#include "rk-conversation.h"
#include "rk-conversation-store.h"

G_BEGIN_DECLS

#define RK_TYPE_SIDEBAR (rk_sidebar_get_type ())
G_DECLARE_FINAL_TYPE (RkSidebar, rk_sidebar, RK, SIDEBAR, GtkWidget)

void       rk_sidebar_set_store        (RkSidebar           *self,
                                        RkConversationStore *store);
/* The open conversation: its row is selected, its files listed. */
void       rk_sidebar_set_conversation (RkSidebar           *self,
                                        RkConversation      *conversation);

/* A row activates the window's actions: "win.conversation-open" and
 * "win.conversation-delete" (s: the conversation's id), "win.file-show" and
 * "win.file-remove" (s: the file's name); a result picked in the shelf,
 * "win.show-entry" (u: the transcript entry that made it). */

G_END_DECLS
