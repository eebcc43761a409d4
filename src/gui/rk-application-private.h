/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-application-private.h — what the app's own windows may call. */
#pragma once

#include "rk-application.h"

G_BEGIN_DECLS

/* Looks the endpoint's API key up again (after Preferences stored one). */
void _rk_application_reload_api_key (RkApplication *self);

G_END_DECLS
