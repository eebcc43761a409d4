/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-export-private.h — test hooks of rk-export. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Makes rk_export_open_beneath() take the openat + O_NOFOLLOW path even
 * where openat2 exists, so tests cover both. */
void _rk_export_set_force_fallback (gboolean force);

G_END_DECLS
