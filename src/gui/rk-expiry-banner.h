/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-expiry-banner.h — the strip under the header bar that counts down to
 * an idle session's expiry (Save all, Keep alive) and, once it expired,
 * offers Restart session. */
#pragma once

#include <gtk/gtk.h>

#include "rk-session.h"

G_BEGIN_DECLS

#define RK_TYPE_EXPIRY_BANNER (rk_expiry_banner_get_type ())
G_DECLARE_FINAL_TYPE (RkExpiryBanner, rk_expiry_banner, RK, EXPIRY_BANNER, GtkWidget)

void       rk_expiry_banner_set_session (RkExpiryBanner *self,
                                         RkSession      *session);
/* Hides a countdown (after Keep alive); an expired session's banner stays. */
void       rk_expiry_banner_dismiss     (RkExpiryBanner *self);

G_END_DECLS
