/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-application.h — the single-instance app: settings, the model client
 * shared by every window, app-wide actions and accelerators. */
#pragma once

#include <adwaita.h>

#include "rk-model-client.h"

G_BEGIN_DECLS

#define RK_TYPE_APPLICATION (rk_application_get_type ())
G_DECLARE_FINAL_TYPE (RkApplication, rk_application, RK, APPLICATION, AdwApplication)

RkApplication *rk_application_new              (void);
/* Also the read-only property "settings". */
GSettings     *rk_application_get_settings     (RkApplication *self);
RkModelClient *rk_application_get_model_client (RkApplication *self);

G_END_DECLS
