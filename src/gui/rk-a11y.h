/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-a11y.h — accessible names that read right through AT-SPI on GTK 4.8. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Names a button with a text label exactly @name. GTK 4.8 gives such a
 * button both its raw label ("_Run") and its label child ("Run"), which
 * AT-SPI reads as "_Run Run"; this keeps only @name. Call it again after
 * the label changes. */
void rk_a11y_name_button (GtkWidget  *button,
                          const char *name);

G_END_DECLS
