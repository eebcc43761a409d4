/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-request-view.c — the window behind a question's "What Was Sent to the
 * Model": the sent record of the question, as text, read-only, with Copy. */
#define G_LOG_DOMAIN "rk-request-view"
#include "config.h"

#include "rk-request-view.h"
#include "rk-sent-record.h"

#include <glib/gi18n-lib.h>

struct _RkRequestView
{
  AdwWindow          parent_instance;

  RkTranscriptEntry *question;
  char              *text;

  GtkLabel          *summary;
  GtkTextView       *text_view;
  AdwToastOverlay   *toasts;
};

G_DEFINE_FINAL_TYPE (RkRequestView, rk_request_view, ADW_TYPE_WINDOW)

/* The lines that head a request or a message, set apart from the text
 * that was sent, so the parts can be found at a glance. */
static void
mark_headings (GtkTextBuffer *buffer)
{
  int n = gtk_text_buffer_get_line_count (buffer);

  for (int line = 0; line < n; line++)
    {
      GtkTextIter start, end;
      g_autofree char *text = NULL;

      gtk_text_buffer_get_iter_at_line (buffer, &start, line);
      end = start;
      if (!gtk_text_iter_ends_line (&end))
        gtk_text_iter_forward_to_line_end (&end);
      text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
      if (g_str_has_prefix (text, "── ") && g_str_has_suffix (text, " ──"))
        gtk_text_buffer_apply_tag_by_name (buffer, "heading", &start, &end);
      else if (line == 0 || g_str_has_prefix (text, "Request "))
        {
          GtkTextIter before = start;

          /* Only the lines rk_sent_record_to_text() starts a request with. */
          if (line == 0 || (gtk_text_iter_backward_line (&before) && gtk_text_iter_ends_line (&before) &&
                            gtk_text_iter_starts_line (&before)))
            gtk_text_buffer_apply_tag_by_name (buffer, "request", &start, &end);
        }
    }
}

static void
show_record (RkRequestView *self)
{
  const char *record = rk_transcript_entry_get_detail (self->question);
  g_autoptr(GPtrArray) requests = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *summary = NULL;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);

  g_clear_pointer (&self->text, g_free);
  if (record == NULL)
    summary = g_strdup (_("Nothing was sent to the model for this question yet."));
  else if ((requests = rk_sent_record_parse (record, &error)) == NULL || requests->len == 0)
    summary = g_strdup (_("What was sent for this question could not be read."));
  else
    {
      const RkSentRequest *first = g_ptr_array_index (requests, 0);

      /* TRANSLATORS: "2 requests; the first had 11634 characters" */
      summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                              "%u request to the model; it had %u characters.",
                                              "%u requests to the model; the first had %u characters.",
                                              requests->len),
                                 requests->len, (guint) MIN (first->chars, G_MAXUINT));
      self->text = rk_sent_record_to_text (requests);
    }
  gtk_label_set_text (self->summary, summary);
  gtk_text_buffer_set_text (buffer, self->text ? self->text : "", -1);
  mark_headings (buffer);
}

static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  RkRequestView *self = RK_REQUEST_VIEW (widget);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), self->text ? self->text : "");
  adw_toast_overlay_add_toast (self->toasts, adw_toast_new (_("Copied")));
}

static void
rk_request_view_dispose (GObject *object)
{
  RkRequestView *self = RK_REQUEST_VIEW (object);

  if (self->question != NULL)
    g_signal_handlers_disconnect_by_data (self->question, self);
  g_clear_object (&self->question);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_REQUEST_VIEW);
  G_OBJECT_CLASS (rk_request_view_parent_class)->dispose (object);
}

static void
rk_request_view_finalize (GObject *object)
{
  RkRequestView *self = RK_REQUEST_VIEW (object);

  g_free (self->text);
  G_OBJECT_CLASS (rk_request_view_parent_class)->finalize (object);
}

static void
rk_request_view_class_init (RkRequestViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_request_view_dispose;
  object_class->finalize = rk_request_view_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-request-view.ui");
  gtk_widget_class_bind_template_child (widget_class, RkRequestView, summary);
  gtk_widget_class_bind_template_child (widget_class, RkRequestView, text_view);
  gtk_widget_class_bind_template_child (widget_class, RkRequestView, toasts);
  gtk_widget_class_install_action (widget_class, "request.copy", NULL, copy_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
rk_request_view_init (RkRequestView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
rk_request_view_new (GtkWindow         *parent,
                     RkTranscriptEntry *question)
{
  RkRequestView *self;

  g_return_val_if_fail (RK_IS_TRANSCRIPT_ENTRY (question), NULL);

  self = g_object_new (RK_TYPE_REQUEST_VIEW, "transient-for", parent, NULL);
  self->question = g_object_ref (question);
  /* The turn may still be going on: later requests add to the record. */
  g_signal_connect_swapped (question, "notify::detail", G_CALLBACK (show_record), self);
  show_record (self);
  return GTK_WIDGET (self);
}
