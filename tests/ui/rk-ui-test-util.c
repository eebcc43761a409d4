/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-ui-test-util.c — finding widgets in a tree, for render's GTK tests. */
#include "config.h"

#include "rk-ui-test-util.h"

typedef gboolean (*Match) (GtkWidget *w, gconstpointer data);

static GtkWidget *
find (GtkWidget     *w,
      Match          match,
      gconstpointer  data)
{
  if (match (w, data))
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find (c, match, data);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
is_button (GtkWidget     *w,
           gconstpointer  label)
{
  return GTK_IS_BUTTON (w) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (w)), label) == 0;
}

static gboolean
is_type (GtkWidget     *w,
         gconstpointer  type)
{
  return G_TYPE_CHECK_INSTANCE_TYPE (w, GPOINTER_TO_SIZE (type));
}

static gboolean
has_class (GtkWidget     *w,
           gconstpointer  css_class)
{
  return gtk_widget_has_css_class (w, css_class);
}

GtkWidget *
rk_ui_test_find_button (GtkWidget  *w,
                        const char *label)
{
  return find (w, is_button, label);
}

GtkWidget *
rk_ui_test_find_type (GtkWidget *w,
                      GType      type)
{
  return find (w, is_type, GSIZE_TO_POINTER (type));
}

GtkWidget *
rk_ui_test_find_class (GtkWidget  *w,
                       const char *css_class)
{
  return find (w, has_class, css_class);
}
