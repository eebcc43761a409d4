/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chat-search.c — the chat's search bar. It finds the entries whose text
 * holds what is typed and says which one to show; the chat view scrolls to
 * it, marks its row and selects the words there. */
#define G_LOG_DOMAIN "rk-chat-search"
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rk-chat-search.h"
#include "rk-search.h"

struct _RkChatSearch
{
  GtkWidget       parent_instance;

  GtkSearchBar   *bar;
  GtkSearchEntry *entry;
  GtkButton      *previous_button;
  GtkButton      *next_button;
  GtkLabel       *count;

  GListModel     *entries;
  char           *needle;     /* case-folded; NULL when empty or closed */
  guint           current;    /* position of the match shown, or G_MAXUINT */
};

G_DEFINE_FINAL_TYPE (RkChatSearch, rk_chat_search, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_MATCH,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* "2 of 5", read by a screen reader as the entry's description too. */
static void
update_count (RkChatSearch *self)
{
  g_autofree char *text = NULL;
  guint index;
  guint total = rk_search_count (self->entries, self->needle, self->current, &index);

  if (self->needle == NULL)
    text = g_strdup ("");
  else if (total == 0)
    text = g_strdup (_("No matches"));
  else
    /* Translators: the match shown, of how many: "2 of 5" */
    text = g_strdup_printf (_("%u of %u"), index, total);
  gtk_label_set_text (self->count, text);
  gtk_widget_set_sensitive (GTK_WIDGET (self->previous_button), total > 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->next_button), total > 0);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->entry),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

/* The next match from @from in @step's direction, around the end. */
static void
move (RkChatSearch *self,
      guint         from,
      int           step)
{
  self->current = rk_search_next (self->entries, self->needle, from, step);
  update_count (self);
  g_signal_emit (self, signals[SIGNAL_MATCH], 0, self->current);
}

static void
changed_cb (RkChatSearch *self)
{
  g_free (self->needle);
  self->needle = rk_search_fold (gtk_editable_get_text (GTK_EDITABLE (self->entry)));
  move (self, 0, 1);
}

static void
next_cb (RkChatSearch *self)
{
  move (self, self->current == G_MAXUINT ? 0 : self->current + 1, 1);
}

static void
previous_cb (RkChatSearch *self)
{
  guint n = self->entries ? g_list_model_get_n_items (self->entries) : 0;

  if (n > 0)
    move (self, self->current == G_MAXUINT ? n - 1 : (self->current + n - 1) % n, -1);
}

static void
mode_cb (RkChatSearch *self)
{
  if (gtk_search_bar_get_search_mode (self->bar))
    return;
  /* Closed (Escape or the close button): nothing is marked any more, and
   * the keyboard goes back to the question field. */
  g_clear_pointer (&self->needle, g_free);
  self->current = G_MAXUINT;
  g_signal_emit (self, signals[SIGNAL_MATCH], 0, G_MAXUINT);
  gtk_widget_activate_action (GTK_WIDGET (self), "win.focus-composer", NULL);
}

void
rk_chat_search_set_model (RkChatSearch *self,
                          GListModel   *entries)
{
  g_return_if_fail (RK_IS_CHAT_SEARCH (self));

  g_set_object (&self->entries, entries);
  self->current = G_MAXUINT;
}

void
rk_chat_search_open (RkChatSearch *self)
{
  g_return_if_fail (RK_IS_CHAT_SEARCH (self));

  gtk_search_bar_set_search_mode (self->bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->entry));
  gtk_editable_select_region (GTK_EDITABLE (self->entry), 0, -1);
}

const char *
rk_chat_search_get_needle (RkChatSearch *self)
{
  g_return_val_if_fail (RK_IS_CHAT_SEARCH (self), NULL);
  return self->needle;
}

static gboolean
select_in_label (GtkLabel   *label,
                 const char *needle)
{
  int start, end;

  if (!gtk_label_get_selectable (label) || !rk_search_in_text (gtk_label_get_text (label), needle, &start, &end))
    return FALSE;
  gtk_label_select_region (label, start, end);
  return TRUE;
}

static gboolean
select_in_text_view (GtkTextView *view,
                     const char  *needle)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter start, match_start, match_end;

  gtk_text_buffer_get_start_iter (buffer, &start);
  if (!gtk_text_iter_forward_search (&start, needle, GTK_TEXT_SEARCH_CASE_INSENSITIVE,
                                     &match_start, &match_end, NULL))
    return FALSE;
  gtk_text_buffer_select_range (buffer, &match_start, &match_end);
  return TRUE;
}

gboolean
rk_chat_search_select_in (GtkWidget  *root,
                          const char *needle)
{
  if (needle == NULL)
    return FALSE;
  if (GTK_IS_LABEL (root) && select_in_label (GTK_LABEL (root), needle))
    return TRUE;
  if (GTK_IS_TEXT_VIEW (root) && select_in_text_view (GTK_TEXT_VIEW (root), needle))
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    if (rk_chat_search_select_in (child, needle))
      return TRUE;
  return FALSE;
}

static void
rk_chat_search_dispose (GObject *object)
{
  RkChatSearch *self = RK_CHAT_SEARCH (object);

  g_clear_object (&self->entries);
  g_clear_pointer (&self->needle, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_CHAT_SEARCH);
  G_OBJECT_CLASS (rk_chat_search_parent_class)->dispose (object);
}

static void
rk_chat_search_class_init (RkChatSearchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_chat_search_dispose;

  signals[SIGNAL_MATCH] =
    g_signal_new ("match", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-chat-search.ui");
  gtk_widget_class_bind_template_child (widget_class, RkChatSearch, bar);
  gtk_widget_class_bind_template_child (widget_class, RkChatSearch, entry);
  gtk_widget_class_bind_template_child (widget_class, RkChatSearch, previous_button);
  gtk_widget_class_bind_template_child (widget_class, RkChatSearch, next_button);
  gtk_widget_class_bind_template_child (widget_class, RkChatSearch, count);
  gtk_widget_class_bind_template_callback (widget_class, changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, next_cb);
  gtk_widget_class_bind_template_callback (widget_class, previous_cb);
  gtk_widget_class_bind_template_callback (widget_class, mode_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-chat-search");
}

static void
rk_chat_search_init (RkChatSearch *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->current = G_MAXUINT;
  gtk_search_bar_connect_entry (self->bar, GTK_EDITABLE (self->entry));
  update_count (self);
}
