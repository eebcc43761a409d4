/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-output-view.c — live output of a cell. The label holds at most a capped
 * head of the text, so a cell printing megabytes does not stall the view. */
#define G_LOG_DOMAIN "rk-output-view"
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "rk-text.h"
#include "rk-a11y.h"
#include "rk-output-view.h"
#include "rk-once-a-frame.h"

struct _RkOutputView
{
  GtkWidget          parent_instance;

  GtkWidget         *box;
  GtkLabel          *output;
  GtkButton         *more_button;
  GtkLabel          *truncated_label;
  GtkWidget         *running_box;
  GtkSpinner        *spinner;
  GtkLabel          *elapsed;
  GtkButton         *stop_button;

  RkTranscriptEntry *entry;
  char              *text;
  gboolean           is_stderr;
  gboolean           expanded;
  gboolean           capped;
  gint64             started_us;
  guint              timer_id;
  guint              tick_id;
};

G_DEFINE_FINAL_TYPE (RkOutputView, rk_output_view, GTK_TYPE_WIDGET)


/* The length of the head of @text within @max_lines lines and @max_bytes
 * bytes, cut at a character boundary. */
static gsize
head_length (const char *text,
             guint       max_lines,
             gsize       max_bytes)
{
  gsize len = strlen (text);
  guint lines = 0;
  const char *p = text;

  if (len > max_bytes)
    len = g_utf8_find_prev_char (text, text + max_bytes + 1) - text;
  while ((p = memchr (p, '\n', len - (p - text))) != NULL)
    {
      if (++lines == max_lines)
        return p - text;
      p++;
    }
  return len;
}

static void
refresh (RkOutputView *self)
{
  /* A stream entry is read in place: only its capped head is copied. */
  const char *text = self->entry ? rk_transcript_entry_get_text (self->entry) : self->text;
  gsize len, shown;
  g_autofree char *head = NULL;
  const char *cut;

  if (text == NULL)
    text = "";
  len = strlen (text);
  if (self->expanded)
    shown = len > RK_OUTPUT_VIEW_MAX_BYTES ? head_length (text, G_MAXUINT, RK_OUTPUT_VIEW_MAX_BYTES) : len;
  else
    shown = head_length (text, RK_OUTPUT_VIEW_CAP_LINES, RK_OUTPUT_VIEW_CAP_BYTES);
  self->capped = shown < len;
  /* Trailing newlines would leave an empty line at the bottom. */
  while (shown > 0 && text[shown - 1] == '\n')
    shown--;
  /* Escape sequences (colours, progress bars), control characters and bidi
   * overrides from the cell are shown as the plain text they stand for. */
  {
    g_autofree char *raw = g_strndup (text, shown);
    head = rk_text_sanitize_for_terminal (raw, RK_TEXT_SANITIZE_DEFAULT);
  }
  if (g_strcmp0 (gtk_label_get_text (self->output), head) != 0)
    gtk_label_set_text (self->output, head);
  gtk_widget_set_visible (GTK_WIDGET (self->output), shown > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->more_button), self->capped && !self->expanded);
  /* Say what is not shown: past the view's own cap once expanded, or what
   * the transcript cut from a flood of output. */
  if (self->expanded && self->capped)
    cut = _("Only the first 256 KiB of the output are shown here.");
  else if (self->entry != NULL && rk_transcript_entry_get_truncated (self->entry) && !self->capped)
    cut = _("The output was longer; Reckon kept the first mebibyte.");
  else
    cut = NULL;
  if (cut != NULL)
    gtk_label_set_text (self->truncated_label, cut);
  gtk_widget_set_visible (GTK_WIDGET (self->truncated_label), cut != NULL);
  if (self->is_stderr)
    gtk_widget_add_css_class (GTK_WIDGET (self->output), "rk-stderr");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->output), "rk-stderr");
  /* A description, not a name: screen readers and tests read the text. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->output), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  self->is_stderr ? _("Error output") : _("Output"), -1);
}

void
rk_output_view_set_text (RkOutputView *self,
                         const char   *text,
                         gboolean      is_stderr)
{
  g_return_if_fail (RK_IS_OUTPUT_VIEW (self));

  rk_output_view_set_entry (self, NULL);
  self->expanded = FALSE;
  g_free (self->text);
  self->text = g_strdup (text);
  self->is_stderr = is_stderr;
  refresh (self);
}

static void
refresh_cb (GtkWidget *widget)
{
  refresh (RK_OUTPUT_VIEW (widget));
}

static void
entry_text_cb (RkOutputView *self)
{
  /* A chatty cell sends many chunks a frame: show them once a frame. */
  if (!rk_once_a_frame (GTK_WIDGET (self), &self->tick_id, refresh_cb))
    refresh (self);
}

void
rk_output_view_set_entry (RkOutputView      *self,
                          RkTranscriptEntry *entry)
{
  g_return_if_fail (RK_IS_OUTPUT_VIEW (self));

  if (self->entry == entry)
    return;
  if (self->entry != NULL)
    g_signal_handlers_disconnect_by_data (self->entry, self);
  rk_once_a_frame_cancel (GTK_WIDGET (self), &self->tick_id);
  g_set_object (&self->entry, entry);
  g_clear_pointer (&self->text, g_free);
  self->expanded = FALSE;
  self->is_stderr = entry != NULL && rk_transcript_entry_get_kind (entry) == RK_ENTRY_STREAM &&
                    rk_transcript_entry_get_stream (entry) == RK_STREAM_STDERR;
  if (entry != NULL)
    g_signal_connect_swapped (entry, "notify::text", G_CALLBACK (entry_text_cb), self);
  refresh (self);
}

static void
update_elapsed (RkOutputView *self)
{
  gint64 secs = MAX (0, (g_get_monotonic_time () - self->started_us) / G_USEC_PER_SEC);
  g_autofree char *text = NULL;

  if (secs < 3600)
    /* TRANSLATORS: time a cell has been running, minutes:seconds */
    text = g_strdup_printf (_("Running… %d:%02d"), (int) (secs / 60), (int) (secs % 60));
  else
    text = g_strdup_printf (_("Running… %d:%02d:%02d"), (int) (secs / 3600), (int) (secs / 60 % 60), (int) (secs % 60));
  gtk_label_set_text (self->elapsed, text);
}

static gboolean
timer_cb (gpointer user_data)
{
  update_elapsed (RK_OUTPUT_VIEW (user_data));
  return G_SOURCE_CONTINUE;
}

void
rk_output_view_set_running (RkOutputView *self,
                            gboolean      running,
                            gint64        started_us)
{
  g_return_if_fail (RK_IS_OUTPUT_VIEW (self));

  self->started_us = started_us > 0 ? started_us : g_get_monotonic_time ();
  gtk_widget_set_visible (self->running_box, running);
  gtk_spinner_set_spinning (self->spinner, running);
  g_clear_handle_id (&self->timer_id, g_source_remove);
  if (running)
    {
      update_elapsed (self);
      self->timer_id = g_timeout_add_seconds (1, timer_cb, self);
    }
}

gboolean
rk_output_view_get_capped (RkOutputView *self)
{
  g_return_val_if_fail (RK_IS_OUTPUT_VIEW (self), FALSE);
  return self->capped;
}

const char *
rk_output_view_get_shown (RkOutputView *self)
{
  g_return_val_if_fail (RK_IS_OUTPUT_VIEW (self), NULL);
  return gtk_label_get_text (self->output);
}

static void
more_clicked_cb (RkOutputView *self)
{
  self->expanded = TRUE;
  refresh (self);
}

static void
stop_clicked_cb (RkOutputView *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "chat.stop", NULL);
}

static void
rk_output_view_dispose (GObject *object)
{
  RkOutputView *self = RK_OUTPUT_VIEW (object);

  rk_output_view_set_entry (self, NULL);
  g_clear_handle_id (&self->timer_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_OUTPUT_VIEW);
  G_OBJECT_CLASS (rk_output_view_parent_class)->dispose (object);
}

static void
rk_output_view_finalize (GObject *object)
{
  RkOutputView *self = RK_OUTPUT_VIEW (object);

  g_free (self->text);
  G_OBJECT_CLASS (rk_output_view_parent_class)->finalize (object);
}

static void
rk_output_view_class_init (RkOutputViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_output_view_dispose;
  object_class->finalize = rk_output_view_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-output-view.ui");
  gtk_widget_class_bind_template_child (widget_class, RkOutputView, box);
  gtk_widget_class_bind_template_child (widget_class, RkOutputView, output);
  gtk_widget_class_bind_template_child (widget_class, RkOutputView, more_button);
  gtk_widget_class_bind_template_child (widget_class, RkOutputView, truncated_label);
  gtk_widget_class_bind_template_child (widget_class, RkOutputView, running_box);
  gtk_widget_class_bind_template_child (widget_class, RkOutputView, spinner);
  gtk_widget_class_bind_template_child (widget_class, RkOutputView, elapsed);
  gtk_widget_class_bind_template_child (widget_class, RkOutputView, stop_button);
  gtk_widget_class_bind_template_callback (widget_class, more_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-output-view");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
rk_output_view_init (RkOutputView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  rk_a11y_name_button (GTK_WIDGET (self->stop_button), _("Stop"));
  rk_a11y_name_button (GTK_WIDGET (self->more_button), _("Show more"));
  refresh (self);
}

GtkWidget *
rk_output_view_new (void)
{
  return g_object_new (RK_TYPE_OUTPUT_VIEW, NULL);
}
