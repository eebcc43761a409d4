/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-entry-row.c — the row widget of the chat list. A row is recycled by
 * the list view: bind builds the content for its entry, unbind drops it. The
 * row never calls the conversation: its buttons activate the chat view's
 * actions (chat.approve, chat.stop, ...; see rk-chat-view.h). */
#define G_LOG_DOMAIN "rk-entry-row"
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <adwaita.h>

#include "rk-agent.h"
#include "rk-chart.h"
#include "rk-table.h"
#include "rk-text.h"
#include "rk-trace.h"
#include "rk-util.h"
#include "rk-a11y.h"
#include "rk-approval-bar.h"
#include "rk-chart-view.h"
#include "rk-code-block.h"
#include "rk-diff-view.h"
#include "rk-error-view.h"
#include "rk-figure-view.h"
#include "rk-file-card.h"
#include "rk-file-chip.h"
#include "rk-markdown-view.h"
#include "rk-output-view.h"
#include "rk-request-view.h"
#include "rk-table-view.h"
#include "rk-entry-row.h"

struct _RkEntryRow
{
  GtkWidget          parent_instance;

  GtkWidget          *clamp;
  GtkWidget          *frame;
  GtkWidget          *content;
  RkTranscriptEntry  *entry;
  RkWorkspace        *workspace;
  GCancellable       *cancellable;
  RkConversationFile *file;          /* attachment rows */

  /* Parts of the content that bind built, forgotten at once by unbind. */
  struct
  {
    const char       *group;         /* the style class of its kind */
    GtkExpander      *code_expander; /* code rows */
    RkApprovalBar    *approval;
    RkOutputView     *running;
    gboolean          is_running;
    RkFileCard       *card;          /* attachment rows */
    RkMarkdownView   *prose;         /* prose rows, and the answer entry */
    guint             traced_answer; /* their numbers are traced for */
  } built;
};

G_DEFINE_FINAL_TYPE (RkEntryRow, rk_entry_row, GTK_TYPE_WIDGET)

static char *
clean_line (const char *text)
{
  return rk_text_sanitize_for_terminal (text ? text : "", RK_TEXT_SANITIZE_SINGLE_LINE);
}

static GtkWidget *
status_line (const char *icon_name,
             const char *text)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = g_object_new (GTK_TYPE_LABEL, "label", text, "wrap", TRUE, "xalign", 0.0, NULL);

  if (icon_name != NULL)
    {
      GtkWidget *image = g_object_new (GTK_TYPE_IMAGE, "icon-name", icon_name,
                                       "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION, NULL);
      gtk_box_append (GTK_BOX (box), image);
    }
  gtk_box_append (GTK_BOX (box), label);
  gtk_widget_add_css_class (box, "rk-status-line");
  gtk_widget_add_css_class (box, "dim-label");
  gtk_accessible_update_property (GTK_ACCESSIBLE (box), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
  return box;
}

/* -- user ------------------------------------------------------------------ */

static void
show_sent_cb (GtkButton *button,
              gpointer   user_data)
{
  RkEntryRow *self = RK_ENTRY_ROW (user_data);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *view;

  if (self->entry == NULL)
    return;
  view = rk_request_view_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, self->entry);
  gtk_window_present (GTK_WINDOW (view));
}

/* The button is there once something was sent for the question. */
static void
sent_changed_cb (RkTranscriptEntry *entry,
                 GParamSpec        *pspec,
                 GtkWidget         *button)
{
  gtk_widget_set_visible (button, rk_transcript_entry_get_detail (entry) != NULL);
}

/* @id and its children from ui/rk-entry-row.ui, their signals sent to @self
 * and their bindings made to the row's entry ("entry"). */
static GtkBuilder *
build_part (RkEntryRow *self,
            const char *id)
{
  GtkBuilder *builder = gtk_builder_new ();
  g_autoptr(GtkBuilderScope) scope = gtk_builder_cscope_new ();
  const char *ids[] = { id, NULL };

  gtk_builder_cscope_add_callback (scope, show_sent_cb);
  gtk_builder_set_scope (builder, scope);
  gtk_builder_set_current_object (builder, G_OBJECT (self));
  gtk_builder_expose_object (builder, "entry", G_OBJECT (self->entry));
  gtk_builder_add_objects_from_resource (builder, "/io/github/reckon/Reckon/rk-entry-row.ui", ids, NULL);
  return builder;
}

static GtkWidget *
build_user (RkEntryRow *self)
{
  g_autoptr(GtkBuilder) builder = build_part (self, "user");
  GtkWidget *outer = GTK_WIDGET (gtk_builder_get_object (builder, "user"));
  GtkWidget *above = GTK_WIDGET (gtk_builder_get_object (builder, "bubble"));
  GtkWidget *button = GTK_WIDGET (gtk_builder_get_object (builder, "sent"));
  const char * const *attachments = rk_transcript_entry_get_attachments (self->entry);

  for (guint i = 0; attachments != NULL && attachments[i] != NULL; i++)
    {
      g_autofree char *name = clean_line (attachments[i]);
      GtkWidget *chip = status_line ("mail-attachment-symbolic", name);

      gtk_widget_set_halign (chip, GTK_ALIGN_END);
      gtk_box_insert_child_after (GTK_BOX (outer), chip, above);
      above = chip;
    }
  rk_a11y_name_button (button, _("What was sent to the model"));
  g_signal_connect_object (self->entry, "notify::detail", G_CALLBACK (sent_changed_cb), button, 0);
  sent_changed_cb (self->entry, NULL, button);
  return g_object_ref (outer);
}

/* -- reasoning ------------------------------------------------------------- */

/* The label follows the entry's text as the reasoning streams in. */
static GtkWidget *
build_reasoning (RkEntryRow *self)
{
  g_autoptr(GtkBuilder) builder = build_part (self, "reasoning");

  return g_object_ref (GTK_WIDGET (gtk_builder_get_object (builder, "reasoning")));
}

/* -- code -------------------------------------------------------------------- */

static void
approval_editing_cb (RkEntryRow *self)
{
  /* The code must be in view to be edited. */
  if (self->built.code_expander != NULL && rk_approval_bar_get_editing (self->built.approval))
    gtk_expander_set_expanded (self->built.code_expander, TRUE);
}

static GtkWidget *
build_code (RkEntryRow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *code = rk_code_block_new ("python");
  GtkWidget *approval = rk_approval_bar_new ();
  GtkWidget *running = rk_output_view_new ();
  const char *previous = rk_transcript_entry_get_previous_code (self->entry);

  gtk_widget_add_css_class (box, "rk-cell");
  rk_code_block_set_code (RK_CODE_BLOCK (code), rk_transcript_entry_get_text (self->entry));

  if (rk_transcript_entry_get_revises (self->entry) != 0 && previous != NULL)
    {
      GtkWidget *diff = rk_diff_view_new ();
      GtkWidget *expander = gtk_expander_new (_("Whole revised code"));

      rk_diff_view_set_texts (RK_DIFF_VIEW (diff), previous, rk_transcript_entry_get_text (self->entry));
      rk_code_block_set_caption (RK_CODE_BLOCK (code), _("Revised code"));
      gtk_box_append (GTK_BOX (box), diff);
      gtk_expander_set_child (GTK_EXPANDER (expander), code);
      gtk_accessible_update_property (GTK_ACCESSIBLE (expander), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Whole revised code"), -1);
      gtk_box_append (GTK_BOX (box), expander);
      self->built.code_expander = GTK_EXPANDER (expander);
    }
  else
    {
      rk_code_block_set_caption (RK_CODE_BLOCK (code), _("Python"));
      gtk_box_append (GTK_BOX (box), code);
    }

  rk_approval_bar_set_code_block (RK_APPROVAL_BAR (approval), RK_CODE_BLOCK (code));
  gtk_widget_set_visible (approval, FALSE);
  g_signal_connect_swapped (approval, "notify::editing", G_CALLBACK (approval_editing_cb), self);
  gtk_box_append (GTK_BOX (box), approval);
  self->built.approval = RK_APPROVAL_BAR (approval);

  gtk_widget_set_visible (running, FALSE);
  gtk_box_append (GTK_BOX (box), running);
  self->built.running = RK_OUTPUT_VIEW (running);

  gtk_accessible_update_property (GTK_ACCESSIBLE (box), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Code cell"), -1);
  return box;
}

static GtkWidget *
build_approval (RkEntryRow *self)
{
  switch (rk_transcript_entry_get_decision (self->entry))
    {
    case RK_DECISION_SKIPPED:
      return status_line ("media-skip-forward-symbolic", _("Skipped: the code was not run."));
    case RK_DECISION_EDITED:
      {
        GtkWidget *code = rk_code_block_new ("python");
        rk_code_block_set_caption (RK_CODE_BLOCK (code), _("Edited code, as run"));
        rk_code_block_set_code (RK_CODE_BLOCK (code), rk_transcript_entry_get_text (self->entry));
        gtk_widget_add_css_class (code, "rk-cell");
        return code;
      }
    case RK_DECISION_AUTO:
      return status_line ("media-playback-start-symbolic", _("Run without asking."));
    case RK_DECISION_APPROVED:
    case RK_DECISION_NONE:
    default:
      return status_line ("media-playback-start-symbolic", _("Run."));
    }
}

/* -- results ----------------------------------------------------------------- */

typedef struct
{
  RkWorkspace *workspace;
  char        *path;
  RkEntryKind  kind;
} LoadData;

static void
load_data_free (LoadData *data)
{
  g_clear_object (&data->workspace);
  g_free (data->path);
  g_free (data);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadData *data = task_data;
  GError *error = NULL;
  GObject *object = NULL;

  if (data->kind == RK_ENTRY_TABLE)
    {
      object = G_OBJECT (rk_table_open_beneath (data->workspace, data->path, &error));
      /* the rows shown first are read here, not by the GUI thread */
      if (object != NULL)
        rk_table_prefetch_rows (RK_TABLE (object), 0, RK_TABLE_VIEW_COMPACT_ROWS);
    }
  else
    object = G_OBJECT (rk_chart_new_from_workspace (data->workspace, data->path, &error));
  if (object == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, object, g_object_unref);
}

static void
load_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  RkEntryRow *self = RK_ENTRY_ROW (source);
  GtkWidget *slot = user_data;   /* a box in the content; alive while the task is */
  g_autoptr(GError) error = NULL;
  g_autoptr(GObject) object = g_task_propagate_pointer (G_TASK (result), &error);
  const char *title;
  g_autofree char *clean = NULL;
  GtkWidget *child;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->entry == NULL)
    return;
  while ((child = gtk_widget_get_first_child (slot)) != NULL)
    gtk_box_remove (GTK_BOX (slot), child);

  title = rk_transcript_entry_get_title (self->entry);
  clean = title ? clean_line (title) : NULL;
  if (object == NULL)
    {
      g_autofree char *msg = g_strdup_printf (rk_transcript_entry_get_kind (self->entry) == RK_ENTRY_TABLE
                                              ? _("The table cannot be shown: %s")
                                              : _("The chart cannot be shown: %s"),
                                              error->message);
      gtk_box_append (GTK_BOX (slot), status_line ("dialog-warning-symbolic", msg));
      return;
    }
  if (RK_IS_TABLE (object))
    {
      child = rk_table_view_new_compact (RK_TABLE (object));
      rk_table_view_set_title (RK_TABLE_VIEW (child), clean && *clean ? clean : _("Table"));
    }
  else
    {
      child = rk_chart_view_new (RK_CHART (object));
      rk_chart_view_set_compact (RK_CHART_VIEW (child), TRUE);
    }
  gtk_box_append (GTK_BOX (slot), child);
}

static GtkWidget *
build_loaded (RkEntryRow *self)
{
  GtkWidget *slot = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  RkEntryKind kind = rk_transcript_entry_get_kind (self->entry);
  g_autoptr(GTask) task = NULL;
  LoadData *data;

  gtk_widget_add_css_class (slot, "rk-result");
  gtk_accessible_update_property (GTK_ACCESSIBLE (slot), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  kind == RK_ENTRY_TABLE ? _("Table") : _("Chart"), -1);
  if (self->workspace == NULL || rk_transcript_entry_get_path (self->entry) == NULL)
    {
      gtk_box_append (GTK_BOX (slot),
                      status_line ("dialog-information-symbolic",
                                   kind == RK_ENTRY_TABLE ? _("This table was in the session’s workspace, which is gone.")
                                                          : _("This chart was in the session’s workspace, which is gone.")));
      return slot;
    }
  gtk_box_append (GTK_BOX (slot), g_object_new (GTK_TYPE_SPINNER, "spinning", TRUE, "halign", GTK_ALIGN_START, NULL));
  task = g_task_new (self, self->cancellable, load_cb, slot);
  data = g_new0 (LoadData, 1);
  data->workspace = g_object_ref (self->workspace);
  data->path = g_strdup (rk_transcript_entry_get_path (self->entry));
  data->kind = kind;
  g_task_set_task_data (task, data, (GDestroyNotify) load_data_free);
  g_task_run_in_thread (task, load_thread);
  return slot;
}

static GtkWidget *
build_figure (RkEntryRow *self)
{
  GtkWidget *figure = rk_figure_view_new ();
  g_autofree char *title = clean_line (rk_transcript_entry_get_title (self->entry));

  gtk_widget_add_css_class (figure, "rk-result");
  rk_figure_view_load (RK_FIGURE_VIEW (figure), self->workspace,
                       rk_transcript_entry_get_path (self->entry), title);
  return figure;
}

static GtkWidget *
build_file (RkEntryRow *self)
{
  GtkWidget *chip = rk_file_chip_new ();

  gtk_widget_add_css_class (chip, "rk-result");
  rk_file_chip_set_file (RK_FILE_CHIP (chip), self->workspace,
                         rk_transcript_entry_get_path (self->entry),
                         rk_transcript_entry_get_mime_type (self->entry),
                         rk_transcript_entry_get_title (self->entry));
  return chip;
}

static GtkWidget *
build_output (RkEntryRow *self)
{
  GtkWidget *output = rk_output_view_new ();

  gtk_widget_add_css_class (output, "rk-result");
  if (rk_transcript_entry_get_kind (self->entry) == RK_ENTRY_RESULT)
    gtk_widget_add_css_class (output, "rk-value");
  rk_output_view_set_entry (RK_OUTPUT_VIEW (output), self->entry);
  return output;
}

static GtkWidget *
build_error (RkEntryRow *self)
{
  GtkWidget *view = rk_error_view_new ();

  if (rk_transcript_entry_get_kind (self->entry) == RK_ENTRY_ERROR)
    gtk_widget_add_css_class (view, "rk-result");
  rk_error_view_set_entry (RK_ERROR_VIEW (view), self->entry);
  return view;
}

static void
trace_activated_cb (RkEntryRow *self,
                    guint       entry_id)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "chat.show-entry", "u", entry_id);
}

static GtkWidget *
build_prose (RkEntryRow *self)
{
  GtkWidget *view = rk_markdown_view_new ();

  self->built.prose = RK_MARKDOWN_VIEW (view);
  g_signal_connect_swapped (view, "trace-activated", G_CALLBACK (trace_activated_cb), self);
  gtk_widget_add_css_class (view, "rk-assistant");
  /* The agent runs the Python of a reply as a cell of its own. */
  rk_markdown_view_set_fold_python (RK_MARKDOWN_VIEW (view),
                                    rk_transcript_entry_get_kind (self->entry) == RK_ENTRY_ASSISTANT);
  rk_markdown_view_set_entry (RK_MARKDOWN_VIEW (view), self->entry);
  if (rk_transcript_entry_get_kind (self->entry) == RK_ENTRY_ANSWER)
    gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Answer"), -1);
  return view;
}

/* -- attachments ------------------------------------------------------------ */

static void
attachment_size_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(RkEntryRow) self = user_data;
  g_autoptr(GFileInfo) info = g_file_query_info_finish (G_FILE (source), result, NULL);

  if (info != NULL && self->built.card != NULL && g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR)
    rk_file_card_set_size (self->built.card, g_file_info_get_size (info));
}

/* While a big file is read, its size says why it takes a while (only the
 * size is looked up, without following a link; nothing is read). */
static void
query_attachment_size (RkEntryRow *self)
{
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;

  if (self->workspace == NULL || rk_transcript_entry_get_name (self->entry) == NULL ||
      !rk_path_is_beneath (rk_transcript_entry_get_name (self->entry)))
    return;
  path = g_build_filename (rk_workspace_get_path (self->workspace), rk_transcript_entry_get_name (self->entry), NULL);
  file = g_file_new_for_path (path);
  g_file_query_info_async (file, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                           G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, G_PRIORITY_DEFAULT, self->cancellable,
                           attachment_size_cb, g_object_ref (self));
}

static GtkWidget *
build_attachment (RkEntryRow *self)
{
  GtkWidget *card = rk_file_card_new ();
  g_autoptr(RkFileProfile) profile = NULL;

  self->built.card = RK_FILE_CARD (card);
  rk_file_card_set_file (self->built.card, rk_transcript_entry_get_name (self->entry),
                         rk_transcript_entry_get_title (self->entry));
  rk_file_card_set_started (self->built.card, rk_transcript_entry_get_timestamp (self->entry));
  /* The conversation keeps the file's profile in its entry, so that a
   * restored conversation shows it too. */
  profile = rk_file_profile_parse_one (rk_transcript_entry_get_detail (self->entry));
  if (profile != NULL)
    rk_file_card_set_profile (self->built.card, profile);
  else
    query_attachment_size (self);
  return card;
}

/* -- binding ----------------------------------------------------------------- */

/* Each kind of entry: how its content is built, the group of rows it is
 * styled with, and what a screen reader calls the row as a list item. */
static const struct
{
  GtkWidget  *(*build) (RkEntryRow *self);
  const char  *group;
  const char  *name;
} row_kinds[] = {
  [RK_ENTRY_USER]       = { build_user,       "rk-row-user",      N_("Question") },
  [RK_ENTRY_ASSISTANT]  = { build_prose,      "rk-row-assistant", N_("Reply") },
  [RK_ENTRY_REASONING]  = { build_reasoning,  "rk-row-assistant", N_("The model’s reasoning") },
  [RK_ENTRY_CODE]       = { build_code,       "rk-row-cell",      N_("Code") },
  [RK_ENTRY_APPROVAL]   = { build_approval,   "rk-row-cell",      N_("Decision on the code") },
  [RK_ENTRY_STREAM]     = { build_output,     "rk-row-cell",      N_("Output") },
  [RK_ENTRY_RESULT]     = { build_output,     "rk-row-cell",      N_("Output") },
  [RK_ENTRY_TABLE]      = { build_loaded,     "rk-row-cell",      N_("Table") },
  [RK_ENTRY_FIGURE]     = { build_figure,     "rk-row-cell",      N_("Figure") },
  [RK_ENTRY_CHART]      = { build_loaded,     "rk-row-cell",      N_("Chart") },
  [RK_ENTRY_FILE]       = { build_file,       "rk-row-cell",      N_("File made by the code") },
  [RK_ENTRY_ERROR]      = { build_error,      "rk-row-cell",      N_("Error") },
  [RK_ENTRY_ANSWER]     = { build_prose,      "rk-row-assistant", N_("Answer") },
  [RK_ENTRY_NOTE]       = { build_error,      "rk-row-note",      N_("Note") },
  [RK_ENTRY_ATTACHMENT] = { build_attachment, "rk-row-file",      N_("File") },
};

void
rk_entry_row_bind (RkEntryRow        *self,
                   RkTranscriptEntry *entry,
                   RkWorkspace       *workspace)
{
  GtkWidget *parent;
  const char *group = "rk-row-note";
  const char *name = N_("Note");
  guint kind;

  g_return_if_fail (RK_IS_ENTRY_ROW (self));
  g_return_if_fail (RK_IS_TRANSCRIPT_ENTRY (entry));

  parent = gtk_widget_get_parent (GTK_WIDGET (self));
  kind = rk_transcript_entry_get_kind (entry);
  rk_entry_row_unbind (self);
  self->entry = g_object_ref (entry);
  self->workspace = workspace ? g_object_ref (workspace) : NULL;
  self->cancellable = g_cancellable_new ();

  if (kind < G_N_ELEMENTS (row_kinds) && row_kinds[kind].build != NULL)
    {
      self->content = row_kinds[kind].build (self);
      group = row_kinds[kind].group;
      name = row_kinds[kind].name;
      /* an error outside any cell (the model's, the session's) is a note */
      if (kind == RK_ENTRY_ERROR && rk_transcript_entry_get_cell_id (entry) == NULL)
        group = "rk-row-note";
    }
  else
    self->content = status_line (NULL, rk_transcript_entry_get_text (entry));
  /* a part built from ui/rk-entry-row.ui comes as a full reference, the
   * others floating: either way the frame holds the only one */
  if (g_object_is_floating (self->content))
    g_object_ref_sink (self->content);
  gtk_box_append (GTK_BOX (self->frame), self->content);
  g_object_unref (self->content);
  gtk_widget_add_css_class (GTK_WIDGET (self), group);
  rk_widget_set_css_class (self->frame, "rk-cell-group", g_str_equal (group, "rk-row-cell"));
  self->built.group = group;
  /* GTK 4.8 gives the list's own item widget (the row's parent) no name */
  if (parent != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (parent), GTK_ACCESSIBLE_PROPERTY_LABEL, _(name), -1);
}

void
rk_entry_row_unbind (RkEntryRow *self)
{
  g_return_if_fail (RK_IS_ENTRY_ROW (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->entry != NULL)
    g_signal_handlers_disconnect_by_data (self->entry, self);
  if (self->file != NULL)
    g_signal_handlers_disconnect_by_data (self->file, self);
  g_clear_object (&self->file);
  if (self->built.group != NULL)
    gtk_widget_remove_css_class (GTK_WIDGET (self), self->built.group);
  memset (&self->built, 0, sizeof self->built);
  if (self->content != NULL)
    gtk_box_remove (GTK_BOX (self->frame), self->content);
  self->content = NULL;
  g_clear_object (&self->entry);
  g_clear_object (&self->workspace);
}

RkTranscriptEntry *
rk_entry_row_get_entry (RkEntryRow *self)
{
  g_return_val_if_fail (RK_IS_ENTRY_ROW (self), NULL);
  return self->entry;
}

void
rk_entry_row_set_state (RkEntryRow *self,
                        const char *pending_cell,
                        const char *running_cell,
                        gint64      cell_started)
{
  const char *cell;
  gboolean pending, running;

  g_return_if_fail (RK_IS_ENTRY_ROW (self));

  if (self->entry == NULL || self->built.approval == NULL)
    return;
  cell = rk_transcript_entry_get_cell_id (self->entry);
  pending = cell != NULL && g_strcmp0 (cell, pending_cell) == 0;
  running = cell != NULL && g_strcmp0 (cell, running_cell) == 0;

  if (!pending)
    rk_approval_bar_reset (self->built.approval);
  gtk_widget_set_visible (GTK_WIDGET (self->built.approval), pending);
  if (running != self->built.is_running)
    {
      self->built.is_running = running;
      gtk_widget_set_visible (GTK_WIDGET (self->built.running), running);
      rk_output_view_set_running (self->built.running, running, cell_started);
    }
}

static void
trace_built_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(RkEntryRow) self = user_data;
  g_autoptr(GError) error = NULL;
  RkTraceIndex *index = rk_trace_index_build_finish (result, &error);

  if (index == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("no trace index: %s", error->message);
    }
  else if (self->built.prose != NULL)
    rk_markdown_view_set_trace_index (self->built.prose, index);
  else
    rk_trace_index_free (index);
}

void
rk_entry_row_trace_answer (RkEntryRow   *self,
                           RkTranscript *transcript,
                           guint         answer_id)
{
  g_return_if_fail (RK_IS_ENTRY_ROW (self));
  g_return_if_fail (RK_IS_TRANSCRIPT (transcript));

  if (self->built.prose == NULL || self->built.traced_answer == answer_id)
    return;
  self->built.traced_answer = answer_id;
  rk_trace_index_build_async (transcript, answer_id, self->workspace, self->cancellable,
                              trace_built_cb, g_object_ref (self));
}

void
rk_entry_row_set_file (RkEntryRow         *self,
                       RkConversationFile *file)
{
  g_return_if_fail (RK_IS_ENTRY_ROW (self));

  if (self->built.card == NULL)
    return;
  if (file == NULL && rk_transcript_entry_get_detail (self->entry) == NULL)
    {
      g_autoptr(RkFileProfile) gone =
        rk_file_profile_new_error (rk_transcript_entry_get_name (self->entry),
                                   _("This file’s details are not available any more."));
      rk_file_card_set_profile (self->built.card, gone);
    }
  if (file == NULL)
    return;
  g_set_object (&self->file, file);
  rk_file_card_bind (self->built.card, file);
  /* Built while the file was still being copied (no size, or part of
   * it): the copy is whole now. */
  g_signal_connect_object (file, "notify::copied", G_CALLBACK (query_attachment_size), self, G_CONNECT_SWAPPED);
}

GtkWidget *
rk_entry_row_get_content (RkEntryRow *self)
{
  g_return_val_if_fail (RK_IS_ENTRY_ROW (self), NULL);
  return self->content;
}

GtkWidget *
rk_entry_row_get_approval_bar (RkEntryRow *self)
{
  g_return_val_if_fail (RK_IS_ENTRY_ROW (self), NULL);
  return self->built.approval ? GTK_WIDGET (self->built.approval) : NULL;
}

static void
rk_entry_row_dispose (GObject *object)
{
  RkEntryRow *self = RK_ENTRY_ROW (object);

  rk_entry_row_unbind (self);
  self->frame = NULL;
  g_clear_pointer (&self->clamp, gtk_widget_unparent);
  G_OBJECT_CLASS (rk_entry_row_parent_class)->dispose (object);
}

/* GtkListView 4.8 gives a row its minimum height: ask for the natural one,
 * or tables and figures (which can shrink) would be squashed to nothing. */
static void
rk_entry_row_measure (GtkWidget      *widget,
                      GtkOrientation  orientation,
                      int             for_size,
                      int            *minimum,
                      int            *natural,
                      int            *minimum_baseline,
                      int            *natural_baseline)
{
  RkEntryRow *self = RK_ENTRY_ROW (widget);

  gtk_widget_measure (self->clamp, orientation, for_size, minimum, natural, NULL, NULL);
  if (orientation == GTK_ORIENTATION_VERTICAL)
    *minimum = *natural;
}

static void
rk_entry_row_size_allocate (GtkWidget *widget,
                            int        width,
                            int        height,
                            int        baseline)
{
  gtk_widget_allocate (RK_ENTRY_ROW (widget)->clamp, width, height, baseline, NULL);
}

static GtkSizeRequestMode
rk_entry_row_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
rk_entry_row_class_init (RkEntryRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_entry_row_dispose;
  widget_class->measure = rk_entry_row_measure;
  widget_class->size_allocate = rk_entry_row_size_allocate;
  widget_class->get_request_mode = rk_entry_row_get_request_mode;

  gtk_widget_class_set_css_name (widget_class, "rk-entry-row");
}

static void
rk_entry_row_init (RkEntryRow *self)
{
  /* Prose reads best in a column; wide windows get margins. */
  self->clamp = adw_clamp_new ();
  adw_clamp_set_maximum_size (ADW_CLAMP (self->clamp), 880);
  adw_clamp_set_tightening_threshold (ADW_CLAMP (self->clamp), 640);
  gtk_widget_set_parent (self->clamp, GTK_WIDGET (self));
  self->frame = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_add_css_class (self->frame, "rk-row-frame");
  adw_clamp_set_child (ADW_CLAMP (self->clamp), self->frame);
}

GtkWidget *
rk_entry_row_new (void)
{
  return g_object_new (RK_TYPE_ENTRY_ROW, NULL);
}
