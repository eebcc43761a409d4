/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-composer.c — the multi-line field at the bottom of the chat: Enter
 * sends, Shift+Enter adds a line; a "Run Python" toggle; Attach, Send, Stop.
 * It only emits signals: the window decides what sending means. */
#define G_LOG_DOMAIN "rk-composer"
#include "config.h"

#include <glib/gi18n.h>

#include "rk-a11y.h"
#include "rk-composer.h"

struct _RkComposer
{
  GtkWidget        parent_instance;

  GtkWidget       *box;
  GtkToggleButton *code_toggle;
  GtkTextView     *text_view;
  GtkLabel        *placeholder;
  GtkButton       *send_button;
  GtkButton       *stop_button;

  guint            busy : 1;
  guint            model_ready : 1;
};

G_DEFINE_FINAL_TYPE (RkComposer, rk_composer, GTK_TYPE_WIDGET)

enum {
  SIGNAL_SEND,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean
is_blank (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (!g_unichar_isspace (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}

static void
update_state (RkComposer *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);
  gboolean empty = gtk_text_buffer_get_char_count (buffer) == 0;
  gboolean code = gtk_toggle_button_get_active (self->code_toggle);
  g_autofree char *text = rk_composer_dup_text (self);
  const char *hint;
  const char *name;

  if (code)
    hint = _("Type Python code to run in the sandbox");
  else if (self->model_ready)
    hint = _("Ask a question about your data");
  else
    hint = _("No model server: add files or use Run Python");
  gtk_label_set_label (self->placeholder, hint);
  gtk_widget_set_visible (GTK_WIDGET (self->placeholder), empty);

  /* Hidden, not merely covered: assistive technologies see one of them. */
  gtk_widget_set_visible (GTK_WIDGET (self->send_button), !self->busy);
  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), self->busy);
  gtk_widget_set_sensitive (GTK_WIDGET (self->send_button), !self->busy && !is_blank (text));

  rk_widget_set_css_class (GTK_WIDGET (self->text_view), "monospace", code);

  name = code ? _("Python code") : _("Your question");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->text_view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, hint,
                                  -1);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->send_button),
                               code ? _("Run the Code (Enter)") : _("Send the Question (Enter)"));
}

static void
send_cb (RkComposer *self)
{
  g_autofree char *text = rk_composer_dup_text (self);

  if (self->busy || is_blank (text))
    return;
  /* The text stays: the window clears it once sending has started. */
  g_signal_emit (self, signals[SIGNAL_SEND], 0, text, rk_composer_get_code_mode (self));
}

static gboolean
key_pressed_cb (RkComposer            *self,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                GtkEventControllerKey *controller)
{
  /* Shift+Tab leaves the field backwards (GTK 4.8's text view keeps it). */
  if (keyval == GDK_KEY_ISO_Left_Tab || (keyval == GDK_KEY_Tab && (state & GDK_SHIFT_MASK)))
    {
      gtk_widget_child_focus (GTK_WIDGET (gtk_widget_get_root (GTK_WIDGET (self))), GTK_DIR_TAB_BACKWARD);
      return GDK_EVENT_STOP;
    }
  if (keyval != GDK_KEY_Return && keyval != GDK_KEY_KP_Enter && keyval != GDK_KEY_ISO_Enter)
    return GDK_EVENT_PROPAGATE;
  /* Shift+Enter (and Ctrl+Enter) add a line: let the text view have it. */
  if (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK))
    {
      if (state & GDK_CONTROL_MASK)
        {
          gtk_text_buffer_insert_at_cursor (gtk_text_view_get_buffer (self->text_view), "\n", 1);
          return GDK_EVENT_STOP;
        }
      return GDK_EVENT_PROPAGATE;
    }
  send_cb (self);
  return GDK_EVENT_STOP;
}

static void
rk_composer_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), RK_TYPE_COMPOSER);
  G_OBJECT_CLASS (rk_composer_parent_class)->dispose (object);
}

static gboolean
rk_composer_grab_focus (GtkWidget *widget)
{
  return gtk_widget_grab_focus (GTK_WIDGET (RK_COMPOSER (widget)->text_view));
}

static void
rk_composer_class_init (RkComposerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_composer_dispose;
  widget_class->grab_focus = rk_composer_grab_focus;

  signals[SIGNAL_SEND] =
    g_signal_new ("send", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-composer.ui");
  gtk_widget_class_bind_template_child (widget_class, RkComposer, box);
  gtk_widget_class_bind_template_child (widget_class, RkComposer, code_toggle);
  gtk_widget_class_bind_template_child (widget_class, RkComposer, text_view);
  gtk_widget_class_bind_template_child (widget_class, RkComposer, placeholder);
  gtk_widget_class_bind_template_child (widget_class, RkComposer, send_button);
  gtk_widget_class_bind_template_child (widget_class, RkComposer, stop_button);
  gtk_widget_class_bind_template_callback (widget_class, key_pressed_cb);
  gtk_widget_class_bind_template_callback (widget_class, send_cb);
  gtk_widget_class_bind_template_callback (widget_class, update_state);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "composer");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
rk_composer_init (RkComposer *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->model_ready = TRUE;
  g_signal_connect_object (gtk_text_view_get_buffer (self->text_view), "changed",
                           G_CALLBACK (update_state), self, G_CONNECT_SWAPPED);
  update_state (self);
}

char *
rk_composer_dup_text (RkComposer *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (RK_IS_COMPOSER (self), NULL);

  buffer = gtk_text_view_get_buffer (self->text_view);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

void
rk_composer_set_text (RkComposer *self,
                      const char *text)
{
  g_return_if_fail (RK_IS_COMPOSER (self));
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->text_view), text ? text : "", -1);
}

gboolean
rk_composer_get_code_mode (RkComposer *self)
{
  g_return_val_if_fail (RK_IS_COMPOSER (self), FALSE);
  return gtk_toggle_button_get_active (self->code_toggle);
}

void
rk_composer_set_code_mode (RkComposer *self,
                           gboolean    code_mode)
{
  g_return_if_fail (RK_IS_COMPOSER (self));
  /* "toggled" updates the state. */
  gtk_toggle_button_set_active (self->code_toggle, code_mode);
}

void
rk_composer_set_busy (RkComposer *self,
                      gboolean    busy)
{
  g_return_if_fail (RK_IS_COMPOSER (self));

  busy = !!busy;
  if (self->busy == busy)
    return;
  self->busy = busy;
  update_state (self);
}

gboolean
rk_composer_get_busy (RkComposer *self)
{
  g_return_val_if_fail (RK_IS_COMPOSER (self), FALSE);
  return self->busy;
}

void
rk_composer_set_model_ready (RkComposer *self,
                             gboolean    ready)
{
  g_return_if_fail (RK_IS_COMPOSER (self));
  self->model_ready = !!ready;
  update_state (self);
}

void
rk_composer_focus (RkComposer *self)
{
  g_return_if_fail (RK_IS_COMPOSER (self));
  gtk_widget_grab_focus (GTK_WIDGET (self));
}
