/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-application.h — the single-instance app: settings, the model client
 * it gives every window, app-wide actions and accelerators. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define RK_TYPE_APPLICATION (rk_application_get_type ())
G_DECLARE_FINAL_TYPE (RkApplication, rk_application, RK, APPLICATION, AdwApplication)

/* The read-only property "settings" is the app's GSettings (for widgets
 * that read a setting without knowing RkApplication). */
RkApplication *rk_application_new (void);

G_END_DECLS
