/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-window.h — the main window: sidebar, chat, composer, banners. */
#pragma once

#include <adwaita.h>

#include "rk-model-client.h"

G_BEGIN_DECLS

#define RK_TYPE_WINDOW (rk_window_get_type ())
G_DECLARE_FINAL_TYPE (RkWindow, rk_window, RK, WINDOW, AdwApplicationWindow)

/* @settings and @client are the app's, shared by its windows. */
RkWindow *rk_window_new       (GtkApplication *application,
                               GSettings      *settings,
                               RkModelClient  *client);
/* Adds files to the current conversation (no model needed). */
void      rk_window_add_files (RkWindow      *self,
                               GFile        **files,
                               guint          n_files);
/* Shows a short message at the bottom of the window. */
void      rk_window_toast     (RkWindow      *self,
                               const char    *message);

/* For the About window's troubleshooting details. */
void      _rk_window_append_debug_info  (RkWindow *self,
                                         GString  *out);
void      _rk_window_append_server_info (RkWindow *self,
                                         GString  *out);

G_END_DECLS
