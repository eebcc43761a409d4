/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-workspace-private.h — test hooks of rk-workspace. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Makes the resolver beneath a folder take the openat + O_NOFOLLOW path
 * even where openat2 exists, so tests cover both. */
void _rk_workspace_set_force_fallback (gboolean force);

G_END_DECLS
