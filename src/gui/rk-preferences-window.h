/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-preferences-window.h — Preferences, bound to the app's GSettings.
 * Signal "api-key-changed": a key was stored in or removed from the keyring. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define RK_TYPE_PREFERENCES_WINDOW (rk_preferences_window_get_type ())
G_DECLARE_FINAL_TYPE (RkPreferencesWindow, rk_preferences_window, RK, PREFERENCES_WINDOW, AdwPreferencesWindow)

GtkWidget *rk_preferences_window_new            (GSettings           *settings);
/* Puts the keyboard focus in the model server address. */
void       rk_preferences_window_focus_endpoint (RkPreferencesWindow *self);

G_END_DECLS
