/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-a11y.h — accessible names that read right through AT-SPI on GTK 4.8,
 * and small widget helpers GTK 4.8 lacks. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Names a button with a text label exactly @name. GTK 4.8 gives such a
 * button both its raw label ("_Run") and its label child ("Run"), which
 * AT-SPI reads as "_Run Run"; this keeps only @name. Call it again after
 * the label changes. */
void rk_a11y_name_button (GtkWidget  *button,
                          const char *name);

/* Names the controls under @root that GTK 4.8 and libadwaita 1.2 leave
 * with a class name ("GtkToggleButton", "GtkSwitch") or a doubled one
 * ("_Copy Text Copy Text"): buttons after their label or tooltip, a menu
 * button's toggle after the menu button, switches after their row, search
 * entries and popovers. For widgets Reckon does not build itself (About,
 * Preferences' search): it replaces names set before. */
void rk_a11y_name_tree   (GtkWidget  *root);

/* The pointer rests on a menu button after the click that opens it, so
 * GTK 4.8 shows its tooltip again, over the menu's first item: no tooltip
 * while its popover is open. Call it again if the popover is replaced. */
void rk_menu_button_quiet_tooltip (GtkMenuButton *button);

/* Shows or hides @revealer's child, the revealer itself hidden for real
 * once folded away: assistive technologies would still find a collapsed
 * revealer's content. */
void rk_revealer_set_shown (GtkRevealer *revealer,
                            gboolean     reveal);

/* Adds @css_class to @widget when @on, else removes it. */
void rk_widget_set_css_class (GtkWidget  *widget,
                              const char *css_class,
                              gboolean    on);

G_END_DECLS
