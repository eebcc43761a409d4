/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-code-block.c — code in a GtkSourceView (Python highlighting, a style
 * scheme that follows light and dark), with a Copy button. */
#define G_LOG_DOMAIN "rk-code-block"
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "rk-code-block.h"

struct _RkCodeBlock
{
  GtkWidget      parent_instance;

  GtkWidget     *box;
  GtkLabel      *caption;
  GtkButton     *copy_button;
  GtkSourceView *view;
  GtkSourceBuffer *buffer;
  char          *language;
  gboolean       caption_set;
  guint          copied_id;
};

G_DEFINE_FINAL_TYPE (RkCodeBlock, rk_code_block, GTK_TYPE_WIDGET)

static const char *
language_id (const char *language)
{
  if (language == NULL || *language == '\0')
    return NULL;
  if (g_ascii_strcasecmp (language, "py") == 0 || g_ascii_strncasecmp (language, "python", 6) == 0 ||
      g_ascii_strncasecmp (language, "ipython", 7) == 0 || g_ascii_strcasecmp (language, "py3") == 0)
    return "python3";
  if (g_ascii_strcasecmp (language, "sh") == 0 || g_ascii_strcasecmp (language, "bash") == 0 ||
      g_ascii_strcasecmp (language, "shell") == 0 || g_ascii_strcasecmp (language, "console") == 0)
    return "sh";
  if (g_ascii_strcasecmp (language, "patch") == 0)
    return "diff";
  if (g_ascii_strcasecmp (language, "js") == 0)
    return "js";
  return language;
}

static void
update_scheme (RkCodeBlock *self)
{
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkSourceStyleScheme *scheme;

  scheme = gtk_source_style_scheme_manager_get_scheme (schemes, dark ? "Adwaita-dark" : "Adwaita");
  if (scheme == NULL)
    scheme = gtk_source_style_scheme_manager_get_scheme (schemes, dark ? "classic-dark" : "classic");
  gtk_source_buffer_set_style_scheme (self->buffer, scheme);
}

static gboolean
copied_done_cb (gpointer user_data)
{
  RkCodeBlock *self = user_data;

  self->copied_id = 0;
  gtk_button_set_icon_name (self->copy_button, "edit-copy-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->copy_button), _("Copy"));
  return G_SOURCE_REMOVE;
}

static void
copy_clicked_cb (RkCodeBlock *self)
{
  g_autofree char *code = rk_code_block_get_code (self);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), code);
  /* A tick for a moment says it worked. */
  gtk_button_set_icon_name (self->copy_button, "object-select-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->copy_button), _("Copied"));
  g_clear_handle_id (&self->copied_id, g_source_remove);
  self->copied_id = g_timeout_add_seconds (2, copied_done_cb, self);
}

void
rk_code_block_set_language (RkCodeBlock *self,
                            const char  *language)
{
  GtkSourceLanguage *lang = NULL;
  const char *id;

  g_return_if_fail (RK_IS_CODE_BLOCK (self));

  if (g_strcmp0 (self->language, language) == 0)
    return;
  g_free (self->language);
  self->language = g_strdup (language);
  id = language_id (language);
  if (id != NULL)
    lang = gtk_source_language_manager_get_language (gtk_source_language_manager_get_default (), id);
  gtk_source_buffer_set_language (self->buffer, lang);
  if (!self->caption_set)
    {
      const char *name = lang ? gtk_source_language_get_name (lang) : (language && *language ? language : NULL);
      gtk_label_set_text (self->caption, name ? name : _("Code"));
    }
}

const char *
rk_code_block_get_language (RkCodeBlock *self)
{
  g_return_val_if_fail (RK_IS_CODE_BLOCK (self), NULL);
  return self->language;
}

void
rk_code_block_set_code (RkCodeBlock *self,
                        const char  *code)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;
  g_autofree char *old = NULL;
  gsize old_len;

  g_return_if_fail (RK_IS_CODE_BLOCK (self));

  if (code == NULL)
    code = "";
  buffer = GTK_TEXT_BUFFER (self->buffer);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  old = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  old_len = strlen (old);
  if (strcmp (old, code) == 0)
    return;
  if (old_len > 0 && strncmp (old, code, old_len) == 0)
    gtk_text_buffer_insert (buffer, &end, code + old_len, -1);
  else
    gtk_text_buffer_set_text (buffer, code, -1);
}

char *
rk_code_block_get_code (RkCodeBlock *self)
{
  GtkTextIter start, end;

  g_return_val_if_fail (RK_IS_CODE_BLOCK (self), NULL);
  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (self->buffer), &start, &end);
  return gtk_text_buffer_get_text (GTK_TEXT_BUFFER (self->buffer), &start, &end, TRUE);
}

void
rk_code_block_set_editable (RkCodeBlock *self,
                            gboolean     editable)
{
  g_return_if_fail (RK_IS_CODE_BLOCK (self));

  editable = !!editable;
  if (editable == gtk_text_view_get_editable (GTK_TEXT_VIEW (self->view)))
    return;
  /* The caret stays visible (steady, not blinking, while read-only: it is
   * how a keyboard selects code to copy). Hiding it here crashed GTK 4.8
   * (issue 17): a click on Skip takes the focus first, the view keeps its
   * blink tick, and set_cursor_visible (FALSE) without the focus does not
   * stop it; the next blink asserts the cursor is visible and aborts. */
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->view), editable);
  if (editable)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self), "editing");
      gtk_widget_grab_focus (GTK_WIDGET (self->view));
    }
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "editing");
}

gboolean
rk_code_block_get_editable (RkCodeBlock *self)
{
  g_return_val_if_fail (RK_IS_CODE_BLOCK (self), FALSE);
  return gtk_text_view_get_editable (GTK_TEXT_VIEW (self->view));
}

void
rk_code_block_set_caption (RkCodeBlock *self,
                           const char  *caption)
{
  g_return_if_fail (RK_IS_CODE_BLOCK (self));
  self->caption_set = caption != NULL;
  gtk_label_set_text (self->caption, caption ? caption : "");
}

GtkWidget *
rk_code_block_get_source_view (RkCodeBlock *self)
{
  g_return_val_if_fail (RK_IS_CODE_BLOCK (self), NULL);
  return GTK_WIDGET (self->view);
}

static void
rk_code_block_dispose (GObject *object)
{
  RkCodeBlock *self = RK_CODE_BLOCK (object);

  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  g_clear_handle_id (&self->copied_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_CODE_BLOCK);
  G_OBJECT_CLASS (rk_code_block_parent_class)->dispose (object);
}

static void
rk_code_block_finalize (GObject *object)
{
  RkCodeBlock *self = RK_CODE_BLOCK (object);

  g_free (self->language);
  G_OBJECT_CLASS (rk_code_block_parent_class)->finalize (object);
}

static void
rk_code_block_class_init (RkCodeBlockClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_code_block_dispose;
  object_class->finalize = rk_code_block_finalize;

  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-code-block.ui");
  gtk_widget_class_bind_template_child (widget_class, RkCodeBlock, box);
  gtk_widget_class_bind_template_child (widget_class, RkCodeBlock, caption);
  gtk_widget_class_bind_template_child (widget_class, RkCodeBlock, copy_button);
  gtk_widget_class_bind_template_child (widget_class, RkCodeBlock, view);
  gtk_widget_class_bind_template_callback (widget_class, copy_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-code-block");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
rk_code_block_init (RkCodeBlock *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->view)));
  gtk_source_buffer_set_highlight_matching_brackets (self->buffer, FALSE);
  update_scheme (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (update_scheme), self, G_CONNECT_SWAPPED);
}

GtkWidget *
rk_code_block_new (const char *language)
{
  RkCodeBlock *self = g_object_new (RK_TYPE_CODE_BLOCK, NULL);

  /* without a language, the caption stays the template's "Code" */
  rk_code_block_set_language (self, language);
  return GTK_WIDGET (self);
}
