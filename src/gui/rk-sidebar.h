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

GtkWidget *rk_sidebar_new              (void);
void       rk_sidebar_set_store        (RkSidebar           *self,
                                        RkConversationStore *store);
/* The open conversation: its row is selected, its files listed. */
void       rk_sidebar_set_conversation (RkSidebar           *self,
                                        RkConversation      *conversation);

/* Signals:
 *   "conversation-selected" (const char *id): the user picked a saved one
 *   "conversation-delete" (const char *id): the user asked to delete one
 *   "artifact-activated" (guint entry_id): the user picked a result in the shelf
 */

G_END_DECLS
