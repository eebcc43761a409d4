/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-a11y.c — accessible names that read right through AT-SPI on GTK 4.8,
 * and small widget helpers GTK 4.8 lacks. */
#define G_LOG_DOMAIN "rk-a11y"
#include "config.h"

#include "rk-a11y.h"

#include <glib/gi18n-lib.h>

void
rk_a11y_name_button (GtkWidget  *button,
                     const char *name)
{
  g_return_if_fail (GTK_IS_WIDGET (button));
  g_return_if_fail (name != NULL);

  gtk_accessible_reset_relation (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
}

/* The text a person reads on @widget's label child, without mnemonic
 * underscores, or NULL. */
static const char *
label_text (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *text;

      if (GTK_IS_LABEL (child) && (text = gtk_label_get_text (GTK_LABEL (child))) != NULL && *text != '\0')
        return text;
      if (!GTK_IS_BUTTON (child) && (text = label_text (child)) != NULL)
        return text;
    }
  return NULL;
}

static char *
without_underscores (const char *text)
{
  GString *s = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    if (*p != '_' || p[1] == '_')
      g_string_append_c (s, *p == '_' ? *++p : *p);
  return g_string_free (s, FALSE);
}

/* What an icon-only button of GTK or libadwaita does, by its icon. */
static const char *
icon_meaning (GtkWidget *button)
{
  static const struct { const char *icon; const char *name; } known[] = {
    { "edit-find-symbolic", N_("Search") },
    { "window-close-symbolic", N_("Close") },
    { "go-previous-symbolic", N_("Back") },
    { "open-menu-symbolic", N_("Menu") },
    { "edit-copy-symbolic", N_("Copy") },
    { "pan-down-symbolic", N_("Menu") },
  };

  for (GtkWidget *child = gtk_widget_get_first_child (button); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_IMAGE (child) && gtk_image_get_icon_name (GTK_IMAGE (child)) != NULL)
      for (guint i = 0; i < G_N_ELEMENTS (known); i++)
        if (g_str_equal (gtk_image_get_icon_name (GTK_IMAGE (child)), known[i].icon))
          return _(known[i].name);
  return NULL;
}

/* The name of a menu button or drop-down, for its toggle and popover. */
static const char *
owner_name (GtkWidget *owner)
{
  if (GTK_IS_MENU_BUTTON (owner) && gtk_menu_button_get_label (GTK_MENU_BUTTON (owner)) != NULL)
    return gtk_menu_button_get_label (GTK_MENU_BUTTON (owner));
  if (GTK_IS_MENU_BUTTON (owner) || GTK_IS_DROP_DOWN (owner))
    return gtk_widget_get_tooltip_text (owner);
  return NULL;
}

static void
name_one (GtkWidget *widget)
{
  GtkWidget *parent = gtk_widget_get_parent (widget);
  const char *text = NULL;
  g_autofree char *owned = NULL;

  if (GTK_IS_BUTTON (widget))
    {
      text = parent != NULL ? owner_name (parent) : NULL;
      if (text == NULL)
        text = label_text (widget);
      if (text == NULL)
        text = gtk_widget_get_tooltip_text (widget);
      if (text == NULL)
        text = icon_meaning (widget);
    }
  else if (GTK_IS_MENU_BUTTON (widget))
    {
      text = owner_name (widget);
      if (text == NULL)
        text = _("Menu");
    }
  else if (GTK_IS_SWITCH (widget) || GTK_IS_CHECK_BUTTON (widget))
    {
      GtkWidget *row = gtk_widget_get_ancestor (widget, ADW_TYPE_PREFERENCES_ROW);

      text = GTK_IS_CHECK_BUTTON (widget) ? label_text (widget) : NULL;
      if (text == NULL && row != NULL)
        text = adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row));
    }
  else if (GTK_IS_SEARCH_ENTRY (widget))
    text = _("Search");
  else if (GTK_IS_POPOVER (widget))
    {
      text = parent != NULL ? owner_name (parent) : NULL;
      if (text == NULL)
        text = _("Menu");
    }
  if (text == NULL || *text == '\0')
    return;
  owned = without_underscores (text);
  rk_a11y_name_button (widget, owned);
}

void
rk_a11y_name_tree (GtkWidget *root)
{
  g_return_if_fail (GTK_IS_WIDGET (root));

  name_one (root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    rk_a11y_name_tree (child);
}

static void
popover_shown_cb (GtkWidget *popover,
                  GtkWidget *button)
{
  gtk_widget_set_has_tooltip (button, FALSE);
}

static void
popover_hidden_cb (GtkWidget *popover,
                   GtkWidget *button)
{
  gtk_widget_set_has_tooltip (button, TRUE);
}

void
rk_menu_button_quiet_tooltip (GtkMenuButton *button)
{
  GtkPopover *popover;

  g_return_if_fail (GTK_IS_MENU_BUTTON (button));

  popover = gtk_menu_button_get_popover (button);
  if (popover == NULL || g_object_get_data (G_OBJECT (popover), "rk-quiet-tooltip") != NULL)
    return;
  g_object_set_data (G_OBJECT (popover), "rk-quiet-tooltip", button);
  g_signal_connect_object (popover, "show", G_CALLBACK (popover_shown_cb), button, 0);
  g_signal_connect_object (popover, "hide", G_CALLBACK (popover_hidden_cb), button, 0);
}

static void
child_revealed_cb (GtkRevealer *revealer)
{
  if (!gtk_revealer_get_reveal_child (revealer) && !gtk_revealer_get_child_revealed (revealer))
    gtk_widget_set_visible (GTK_WIDGET (revealer), FALSE);
}

void
rk_revealer_set_shown (GtkRevealer *revealer,
                       gboolean     reveal)
{
  if (g_object_get_data (G_OBJECT (revealer), "rk-reveal-hooked") == NULL)
    {
      g_object_set_data (G_OBJECT (revealer), "rk-reveal-hooked", GINT_TO_POINTER (TRUE));
      g_signal_connect (revealer, "notify::child-revealed", G_CALLBACK (child_revealed_cb), NULL);
    }
  if (reveal)
    gtk_widget_set_visible (GTK_WIDGET (revealer), TRUE);
  gtk_revealer_set_reveal_child (revealer, reveal);
  if (!reveal && !gtk_widget_get_mapped (GTK_WIDGET (revealer)))
    gtk_widget_set_visible (GTK_WIDGET (revealer), FALSE);
}

void
rk_widget_set_css_class (GtkWidget  *widget,
                         const char *css_class,
                         gboolean    on)
{
  if (on)
    gtk_widget_add_css_class (widget, css_class);
  else
    gtk_widget_remove_css_class (widget, css_class);
}
