/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-a11y.c — accessible names that read right through AT-SPI on GTK 4.8. */
#define G_LOG_DOMAIN "rk-a11y"
#include "config.h"

#include "rk-a11y.h"

void
rk_a11y_name_button (GtkWidget  *button,
                     const char *name)
{
  g_return_if_fail (GTK_IS_WIDGET (button));
  g_return_if_fail (name != NULL);

  gtk_accessible_reset_relation (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
}
