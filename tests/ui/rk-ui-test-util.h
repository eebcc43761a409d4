/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-ui-test-util.h — finding widgets in a tree, for render's GTK tests. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The first widget at or beneath @w that is a button labelled @label
 * (mnemonic included, e.g. "_Run"), of @type, or with @css_class. */
GtkWidget *rk_ui_test_find_button (GtkWidget  *w,
                                   const char *label);
GtkWidget *rk_ui_test_find_type   (GtkWidget  *w,
                                   GType       type);
GtkWidget *rk_ui_test_find_class  (GtkWidget  *w,
                                   const char *css_class);

G_END_DECLS
