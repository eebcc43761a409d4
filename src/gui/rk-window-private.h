/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-window-private.h — RkWindow's state, shared by its parts:
 * rk-window.c (conversation, chat, composer), rk-window-actions.c,
 * rk-window-dnd.c (drop), rk-window-files.c (a file's card, table and
 * removal) and rk-window-model.c (model picker, connection). */
#pragma once

#include <adwaita.h>

#include "rk-chat-view.h"
#include "rk-composer.h"
#include "rk-conversation.h"
#include "rk-conversation-store.h"
#include "rk-expiry-banner.h"
#include "rk-sidebar.h"
#include "rk-window.h"

G_BEGIN_DECLS

typedef enum
{
  RK_CONNECTION_CHECKING,
  RK_CONNECTION_REACHABLE,
  RK_CONNECTION_UNREACHABLE,
} RkConnection;

struct _RkWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwToastOverlay      *toast_overlay;
  AdwFlap              *flap;
  RkSidebar            *sidebar;
  GtkButton            *connection_button;
  GtkDropDown          *model_dropdown;
  GtkStringList        *model_list;
  GtkMenuButton        *primary_menu_button;
  RkExpiryBanner       *expiry_banner;
  GtkRevealer          *server_strip;
  GtkMenuButton        *server_help_button;
  GtkRevealer          *kernel_strip;
  GtkLabel             *kernel_strip_label;
  GtkStack             *chat_stack;
  RkChatView           *chat_view;
  AdwStatusPage        *empty_page;
  AdwStatusPage        *no_model_page;
  RkComposer           *composer;
  GtkRevealer          *drop_revealer;
  GMenu                *recent_menu;        /* the main menu's Add Recent File */
  GtkFileFilter        *data_filter;        /* Attach Files' filters */
  GtkFileFilter        *all_filter;

  /* Owned */
  GSettings            *settings;
  RkModelClient        *client;
  RkConversationStore  *store;
  RkConversation       *conversation;
  GSignalGroup         *conversation_signals;
  GSignalGroup         *transcript_signals;
  GSignalGroup         *session_signals;
  GCancellable         *cancellable;        /* cancelled when the window goes */
  GCancellable         *send_cancellable;   /* the question or code being sent */
  GCancellable         *open_cancellable;   /* a saved conversation being read */
  gboolean              opening_last;       /* it is the one open last: start a new one if it fails */
  /* What was sent and is still in the composer until the send has started. */
  char                 *pending_text;

  /* Connection to the model server (rk-window-model.c) */
  RkConnection          connection;
  char                 *connection_error;
  char                 *server_version;
  GCancellable         *check_cancellable;
  GCancellable         *version_cancellable;
  guint                 recheck_source;
  gboolean              filling_models;
};

/* rk-window.c */
void  _rk_window_update_chat        (RkWindow       *self);
void  _rk_window_new_conversation   (RkWindow       *self);

/* rk-window-actions.c */
void  _rk_window_class_actions_init (RkWindowClass  *klass);
void  _rk_window_actions_update     (RkWindow       *self);

/* rk-window-files.c */
void  _rk_window_class_files_init   (RkWindowClass  *klass);

/* Entries @position… were added to the transcript: a new file's card is
 * scrolled into view, wherever the chat was. */
void  _rk_window_files_added        (RkWindow       *self,
                                     GListModel     *transcript,
                                     guint           position,
                                     guint           added);

/* rk-window-dnd.c */
void  _rk_window_dnd_init           (RkWindow       *self);

/* rk-window-recent.c */
void  _rk_window_class_recent_init  (RkWindowClass  *klass);
void  _rk_window_recent_init        (RkWindow       *self);
/* Files the user added: into the desktop's recent files. */
void  _rk_window_recent_note        (RkWindow       *self,
                                     GFile         **files,
                                     guint           n_files);

/* rk-window-model.c */
void  _rk_window_model_init         (RkWindow       *self);
void  _rk_window_model_dispose      (RkWindow       *self);
void  _rk_window_check_connection   (RkWindow       *self);

G_END_DECLS
