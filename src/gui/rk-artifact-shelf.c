/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-artifact-shelf.c — the artifact entries of a transcript (tables, charts,
 * figures, files), newest first, in a GtkListBox bound to a filtered and
 * sorted view of the transcript model; provenance on demand
 * (rk_provenance_collect_async), Save one and Save all through the portal. */
#define G_LOG_DOMAIN "rk-artifact-shelf"
#include "config.h"

#include "rk-a11y.h"
#include "rk-artifact-shelf.h"
#include "rk-save.h"
#include "rk-artifact-export.h"
#include "rk-provenance.h"
#include "rk-text.h"
#include "rk-util.h"

#include <adwaita.h>
#include <glib/gi18n-lib.h>
#include <string.h>

struct _RkArtifactShelf
{
  GtkWidget           parent_instance;

  RkTranscript       *transcript;
  RkSession          *session;
  gulong              state_handler;

  GtkWidget          *box;
  GtkWidget          *save_all_button;
  GtkWidget          *stack;
  GtkWidget          *list;
  GtkWidget          *status;
  GtkWidget          *gone_box;     /* "… are gone" and Restart Session */
  GtkWidget          *gone_label;
  guint               n_gone;       /* rows made for results that are gone */
  gulong              restarted_handler;
  GtkFilterListModel *filtered;
  GtkSortListModel   *sorted;
  GCancellable       *cancellable;
};

G_DEFINE_FINAL_TYPE (RkArtifactShelf, rk_artifact_shelf, GTK_TYPE_WIDGET)

enum {
  SIGNAL_ACTIVATE_ENTRY,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean
is_artifact (RkEntryKind kind)
{
  return kind == RK_ENTRY_TABLE || kind == RK_ENTRY_FIGURE ||
         kind == RK_ENTRY_CHART || kind == RK_ENTRY_FILE;
}

static gboolean
can_save (RkArtifactShelf *self)
{
  return self->session != NULL && rk_session_get_state (self->session) == RK_SESSION_ACTIVE;
}

/* Whether the file of @entry is still in the session's workspace: results
 * made before an expiry are gone, also once a restart made a new workspace
 * (issue 17: their Save failed with "Could not open '.reckon/figures/f1.png'").
 * One open of a local file per row as it is made, as Save would open it. */
static gboolean
is_present (RkArtifactShelf   *self,
            RkTranscriptEntry *entry)
{
  const char *rel = rk_transcript_entry_get_path (entry);
  int fd;

  if (!can_save (self) || rel == NULL || !rk_path_is_beneath (rel))
    return FALSE;
  fd = rk_workspace_open_file (rk_session_get_workspace (self->session), rel, NULL);
  if (fd < 0)
    return FALSE;
  close (fd);
  return TRUE;
}

static void
set_status (RkArtifactShelf *self,
            const char      *text)
{
  gtk_label_set_text (GTK_LABEL (self->status), text != NULL ? text : "");
  gtk_widget_set_visible (self->status, text != NULL && *text != '\0');
}

/* The names of the session's files, for the provenance inputs. */
static GStrv
input_names (RkArtifactShelf *self)
{
  GStrv names = self->session != NULL ? rk_session_dup_file_names (self->session) : NULL;

  /* none known (yet): the transcript's attachments stand in */
  if (names != NULL && names[0] == NULL)
    g_clear_pointer (&names, g_strfreev);
  return names;
}

/* The entry of the row that holds @widget (its popover included). */
static RkTranscriptEntry *
row_entry (GtkWidget *widget)
{
  GtkWidget *row = gtk_widget_get_ancestor (widget, GTK_TYPE_LIST_BOX_ROW);

  return row != NULL ? g_object_get_data (G_OBJECT (row), "rk-entry") : NULL;
}

/* ------------------------------------------------------------ provenance */

typedef struct
{
  GtkWidget *label;      /* weak: the popover's label */
  guint      entry_id;
  gboolean   hashed;     /* the session's files could be read */
} DetailsJob;

static void
details_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  DetailsJob *job = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) records = rk_provenance_collect_finish (result, &error);
  g_autoptr(GString) text = g_string_new (NULL);

  if (job->label == NULL)
    {
      g_free (job);
      return;
    }
  g_object_remove_weak_pointer (G_OBJECT (job->label), (gpointer *) &job->label);

  for (guint i = 0; records != NULL && i < records->len; i++)
    {
      RkProvenance *p = g_ptr_array_index (records, i);
      g_autoptr(GDateTime) t = NULL;
      g_autofree char *when = NULL;
      g_autofree char *code = NULL;

      if (p->entry_id != job->entry_id)
        continue;
      t = g_date_time_new_from_unix_local (p->time / G_USEC_PER_SEC);
      when = t != NULL ? g_date_time_format (t, "%x %X") : g_strdup ("");
      if (p->cell_number > 0)
        /* Translators: "Made by cell 2 at 12/01/26 14:02:11" */
        g_string_append_printf (text, _("Made by cell %u at %s"), p->cell_number, when);
      else
        g_string_append_printf (text, _("Made at %s"), when);
      g_string_append (text, "\n\n");
      if (p->inputs->len == 0)
        g_string_append (text, _("No input file is named in its code or the code before it."));
      else
        g_string_append (text, _("Input files (SHA-256):"));
      for (guint k = 0; k < p->inputs->len; k++)
        {
          RkProvenanceInput *in = g_ptr_array_index (p->inputs, k);
          g_autofree char *name = rk_text_sanitize_for_terminal (in->name, RK_TEXT_SANITIZE_SINGLE_LINE);

          /* Without a live session there is no file to hash: say why,
           * rather than "could not be read" (issue 17). */
          g_string_append_printf (text, "\n• %s\n  %s", name,
                                  in->sha256 != NULL ? in->sha256
                                  : job->hashed ? _("(could not be read)")
                                                    : _("(not checked: the session's files are gone until it is restarted)"));
        }
      if (p->code != NULL)
        {
          code = rk_text_sanitize_for_terminal (p->code, RK_TEXT_SANITIZE_DEFAULT);
          g_string_append_printf (text, "\n\n%s\n%s", _("Code:"), code);
        }
      break;
    }
  if (text->len == 0)
    g_string_append (text, error != NULL ? error->message : _("No provenance is known for this result."));
  gtk_label_set_text (GTK_LABEL (job->label), text->str);
  g_free (job);
}

static void
details_show_cb (GtkPopover      *popover,
                 RkArtifactShelf *self)
{
  GtkWidget *label = gtk_popover_get_child (popover);
  DetailsJob *job;
  g_auto(GStrv) names = NULL;

  if (self->transcript == NULL)
    return;
  gtk_label_set_text (GTK_LABEL (label), _("Reading the inputs…"));
  job = g_new0 (DetailsJob, 1);
  job->label = label;
  job->entry_id = rk_transcript_entry_get_id (row_entry (GTK_WIDGET (popover)));
  job->hashed = can_save (self);
  g_object_add_weak_pointer (G_OBJECT (label), (gpointer *) &job->label);
  names = input_names (self);
  rk_provenance_collect_async (self->transcript, (const char * const *) names,
                               can_save (self) ? rk_session_get_workspace (self->session) : NULL,
                               self->cancellable, details_done_cb, job);
}

/* ------------------------------------------------------------ save one */

typedef struct
{
  RkEntryKind  kind;
  RkWorkspace *workspace;
  char        *rel_path;
} SaveJob;

static void
save_job_free (SaveJob *job)
{
  g_clear_object (&job->workspace);
  g_free (job->rel_path);
  g_free (job);
}

static gboolean
save_artifact (const char    *dest,
               gpointer       data,
               GCancellable  *cancellable,
               GError       **error)
{
  SaveJob *job = data;

  return rk_artifact_save (job->workspace, job->kind, job->rel_path, dest, cancellable, error);
}

static void
save_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autofree char *sentence = NULL;

  g_free (rk_save_finish (result, &sentence, NULL));
  if (sentence != NULL)
    set_status (RK_ARTIFACT_SHELF (source), sentence);
}

static void
save_clicked_cb (GtkButton       *button,
                 RkArtifactShelf *self)
{
  RkTranscriptEntry *entry = row_entry (GTK_WIDGET (button));
  g_autofree char *name = NULL;
  SaveJob *job;

  if (entry == NULL || !can_save (self))
    return;
  job = g_new0 (SaveJob, 1);
  job->kind = rk_transcript_entry_get_kind (entry);
  job->workspace = g_object_ref (rk_session_get_workspace (self->session));
  job->rel_path = g_strdup (rk_transcript_entry_get_path (entry));
  name = rk_artifact_save_name (job->kind, job->rel_path, rk_transcript_entry_get_title (entry));
  /* charts: a picture by default (SVG, PDF and .json work by name too) */
  if (job->kind == RK_ENTRY_CHART && g_str_has_suffix (name, ".svg"))
    memcpy (name + strlen (name) - 4, ".png", 4);
  rk_save_async (GTK_WIDGET (self), _("Save Result"), name, NULL, save_artifact, job,
                 (GDestroyNotify) save_job_free, self->cancellable, save_done_cb, NULL);
}

/* ------------------------------------------------------------- save all */

static void
save_all_done_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(RkArtifactShelf) self = user_data;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) skipped = rk_artifact_save_all_finish (result, &error);
  g_autofree char *message = NULL;

  gtk_widget_set_sensitive (self->save_all_button, TRUE);
  if (skipped == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      message = g_strdup_printf (_("The results could not be saved: %s"), error->message);
    }
  else if (skipped[0] != NULL)
    message = g_strdup_printf (ngettext ("Saved, but %u result could not be read.",
                                         "Saved, but %u results could not be read.",
                                         g_strv_length (skipped)),
                               g_strv_length (skipped));
  else
    message = g_strdup (_("All results saved, with their provenance."));
  set_status (self, message);
}

static void
save_all_chosen_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  RkArtifactShelf *self = RK_ARTIFACT_SHELF (source);
  g_autofree char *sentence = NULL;
  g_autofree char *dest = rk_save_finish (result, &sentence, NULL);
  g_auto(GStrv) names = NULL;

  if (dest == NULL || !can_save (self) || self->transcript == NULL)
    {
      if (sentence != NULL)
        set_status (self, sentence);
      return;
    }
  names = input_names (self);
  gtk_widget_set_sensitive (self->save_all_button, FALSE);
  set_status (self, _("Saving…"));
  rk_artifact_save_all_async (self->transcript, (const char * const *) names,
                              rk_session_get_workspace (self->session), GPOINTER_TO_INT (user_data), dest,
                              self->cancellable, save_all_done_cb, g_object_ref (self));
}

static void
save_all_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  RkArtifactShelf *self = RK_ARTIFACT_SHELF (widget);
  gboolean zip = g_str_equal (g_variant_get_string (parameter, NULL), "zip");

  if (!can_save (self))
    {
      set_status (self, _("This session has ended, so its results can no longer be saved."));
      return;
    }
  rk_save_async (widget, zip ? _("Save All as Zip") : _("Save All to Folder"), zip ? _("results.zip") : NULL,
                 NULL, NULL, NULL, NULL, self->cancellable, save_all_chosen_cb,
                 GINT_TO_POINTER (zip ? RK_EXPORT_ZIP : RK_EXPORT_FOLDER));
}

/* ---------------------------------------------------------------- rows */

static const char *
kind_icon (RkEntryKind kind)
{
  switch (kind)
    {
    case RK_ENTRY_TABLE:
      return "x-office-spreadsheet-symbolic";
    case RK_ENTRY_CHART:
      return "x-office-presentation-symbolic";
    case RK_ENTRY_FIGURE:
      return "image-x-generic-symbolic";
    default:
      return "text-x-generic-symbolic";
    }
}

static const char *
kind_label (RkEntryKind kind)
{
  switch (kind)
    {
    case RK_ENTRY_TABLE:
      return _("Table");
    case RK_ENTRY_CHART:
      return _("Chart");
    case RK_ENTRY_FIGURE:
      return _("Figure");
    default:
      return _("File");
    }
}

static GtkWidget *
create_row_cb (gpointer item,
               gpointer user_data)
{
  RkArtifactShelf *self = user_data;
  RkTranscriptEntry *entry = item;
  RkEntryKind kind = rk_transcript_entry_get_kind (entry);
  const char *raw_title = rk_transcript_entry_get_title (entry);
  g_autofree char *base = g_path_get_basename (rk_transcript_entry_get_path (entry) ? rk_transcript_entry_get_path (entry) : "");
  g_autofree char *fallback = NULL;
  g_autofree char *title = NULL;

  /* an untitled table or chart is named by its kind and file ("Table t1"),
   * a figure or file by its file name */
  if (kind == RK_ENTRY_TABLE || kind == RK_ENTRY_CHART)
    {
      char *dot = strrchr (base, '.');

      if (dot != NULL && dot != base)
        *dot = '\0';
      /* Translators: "Table t1", an untitled table and its file */
      fallback = g_strdup_printf (_("%s %s"), kind_label (kind), base);
    }
  else
    fallback = g_strdup (base);
  title = rk_text_sanitize_for_terminal (raw_title != NULL && *raw_title != '\0' ? raw_title : fallback,
                                         RK_TEXT_SANITIZE_SINGLE_LINE);
  g_autoptr(GDateTime) t = g_date_time_new_from_unix_local (rk_transcript_entry_get_timestamp (entry) / G_USEC_PER_SEC);
  g_autofree char *when = t != NULL ? g_date_time_format (t, "%X") : g_strdup ("");
  g_autofree char *subtitle = g_strdup_printf ("%s · %s", kind_label (kind), when);
  g_autoptr(GtkBuilder) builder = gtk_builder_new ();
  g_autoptr(GtkBuilderScope) scope = gtk_builder_cscope_new ();
  GtkWidget *row;
  GtkWidget *details;
  GtkWidget *save;
  g_autofree char *save_name = g_strdup_printf (_("Save %s"), title);
  g_autofree char *details_name = g_strdup_printf (_("Provenance of %s"), title);

  gtk_builder_cscope_add_callback (scope, details_show_cb);
  gtk_builder_cscope_add_callback (scope, save_clicked_cb);
  gtk_builder_set_scope (builder, scope);
  gtk_builder_set_current_object (builder, G_OBJECT (self));
  gtk_builder_add_from_resource (builder, "/io/github/reckon/Reckon/rk-artifact-row.ui", NULL);
  row = GTK_WIDGET (gtk_builder_get_object (builder, "row"));
  details = GTK_WIDGET (gtk_builder_get_object (builder, "details"));
  save = GTK_WIDGET (gtk_builder_get_object (builder, "save"));

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_image_set_from_icon_name (GTK_IMAGE (gtk_builder_get_object (builder, "icon")), kind_icon (kind));
  g_object_set_data_full (G_OBJECT (row), "rk-entry", g_object_ref (entry), g_object_unref);
  rk_menu_button_quiet_tooltip (GTK_MENU_BUTTON (details));
  gtk_accessible_update_property (GTK_ACCESSIBLE (details), GTK_ACCESSIBLE_PROPERTY_LABEL, details_name, -1);
  if (!is_present (self, entry))
    {
      /* Said plainly, not offered and then failed. */
      g_autofree char *gone = g_strdup_printf ("%s · %s", subtitle, _("gone with the session that made it"));

      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), gone);
      gtk_widget_set_tooltip_text (save, _("This result is gone: restart the session to make it again"));
      gtk_widget_set_sensitive (save, FALSE);
      self->n_gone++;
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (save), GTK_ACCESSIBLE_PROPERTY_LABEL, save_name, -1);
  return g_object_ref (row);   /* the builder's reference goes with it */
}

static void
row_activated_cb (GtkListBox      *list,
                  GtkListBoxRow   *row,
                  RkArtifactShelf *self)
{
  RkTranscriptEntry *entry = g_object_get_data (G_OBJECT (row), "rk-entry");

  if (entry != NULL)
    g_signal_emit (self, signals[SIGNAL_ACTIVATE_ENTRY], 0, rk_transcript_entry_get_id (entry));
}

static gboolean
filter_cb (gpointer item,
           gpointer user_data)
{
  return is_artifact (rk_transcript_entry_get_kind (item));
}

static int
newest_first_cb (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  guint ia = rk_transcript_entry_get_id ((RkTranscriptEntry *) a);
  guint ib = rk_transcript_entry_get_id ((RkTranscriptEntry *) b);

  return ia > ib ? -1 : ia < ib ? 1 : 0;
}

static void
update_empty (RkArtifactShelf *self)
{
  guint n = rk_artifact_shelf_get_n_items (self);

  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), n > 0 ? "list" : "empty");
  gtk_widget_set_sensitive (self->save_all_button, n > 0 && can_save (self));
  gtk_widget_set_visible (self->gone_box, n > 0 && self->n_gone > 0);
  if (self->n_gone > 0)
    {
      g_autofree char *text = g_strdup_printf (ngettext ("%u result is gone with the session that made it.",
                                                         "%u results are gone with the session that made them.",
                                                         self->n_gone), self->n_gone);

      gtk_label_set_text (GTK_LABEL (self->gone_label), text);
    }
}

/* Rows are made again (and counted again) on a new binding. */
static void
bind_rows (RkArtifactShelf *self)
{
  self->n_gone = 0;
  gtk_list_box_bind_model (GTK_LIST_BOX (self->list), self->sorted ? G_LIST_MODEL (self->sorted) : NULL,
                           self->sorted ? create_row_cb : NULL, self, NULL);
}

static void
items_changed_cb (GListModel      *model,
                  guint            position,
                  guint            removed,
                  guint            added,
                  RkArtifactShelf *self)
{
  update_empty (self);
}

static void
session_state_cb (RkSession       *session,
                  GParamSpec      *pspec,
                  RkArtifactShelf *self)
{
  /* rows rebind their Save buttons; a message about the old state goes
   * (issue 17: a failed save's message stayed for over an hour) */
  set_status (self, NULL);
  if (self->sorted != NULL)
    bind_rows (self);
  update_empty (self);
}

static void
session_restarted_cb (RkArtifactShelf *self)
{
  session_state_cb (self->session, NULL, self);
}

void
rk_artifact_shelf_set_session (RkArtifactShelf *self,
                               RkTranscript    *transcript,
                               RkSession       *session)
{
  g_return_if_fail (RK_IS_ARTIFACT_SHELF (self));
  g_return_if_fail (transcript == NULL || RK_IS_TRANSCRIPT (transcript));
  g_return_if_fail (session == NULL || RK_IS_SESSION (session));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  if (self->session != NULL)
    {
      g_clear_signal_handler (&self->state_handler, self->session);
      g_clear_signal_handler (&self->restarted_handler, self->session);
    }
  if (self->sorted != NULL)
    g_signal_handlers_disconnect_by_func (self->sorted, items_changed_cb, self);
  gtk_list_box_bind_model (GTK_LIST_BOX (self->list), NULL, NULL, NULL, NULL);
  g_clear_object (&self->sorted);
  g_clear_object (&self->filtered);
  g_set_object (&self->transcript, transcript);
  g_set_object (&self->session, session);
  set_status (self, NULL);

  if (self->session != NULL)
    {
      self->state_handler = g_signal_connect (self->session, "notify::state",
                                              G_CALLBACK (session_state_cb), self);
      /* after the replay, the results it made again are there again */
      self->restarted_handler = g_signal_connect_swapped (self->session, "restarted",
                                                          G_CALLBACK (session_restarted_cb), self);
    }
  if (self->transcript != NULL)
    {
      GtkFilter *filter = GTK_FILTER (gtk_custom_filter_new (filter_cb, NULL, NULL));
      GtkSorter *sorter = GTK_SORTER (gtk_custom_sorter_new (newest_first_cb, NULL, NULL));

      self->filtered = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->transcript)), filter);
      self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->filtered)), sorter);
      g_signal_connect (self->sorted, "items-changed", G_CALLBACK (items_changed_cb), self);
      bind_rows (self);
    }
  update_empty (self);
}

guint
rk_artifact_shelf_get_n_items (RkArtifactShelf *self)
{
  g_return_val_if_fail (RK_IS_ARTIFACT_SHELF (self), 0);
  return self->sorted != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->sorted)) : 0;
}

/* --------------------------------------------------------------- object */

static void
rk_artifact_shelf_dispose (GObject *object)
{
  RkArtifactShelf *self = RK_ARTIFACT_SHELF (object);

  if (self->list != NULL)
    rk_artifact_shelf_set_session (self, NULL, NULL);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_ARTIFACT_SHELF);

  G_OBJECT_CLASS (rk_artifact_shelf_parent_class)->dispose (object);
}

static void
rk_artifact_shelf_class_init (RkArtifactShelfClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_artifact_shelf_dispose;

  /**
   * RkArtifactShelf::activate-entry:
   * @entry_id: the transcript entry of the artifact
   *
   * The user picked an artifact: the chat scrolls to it.
   */
  signals[SIGNAL_ACTIVATE_ENTRY] =
    g_signal_new ("activate-entry", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_install_action (widget_class, "shelf.save-all", "s", save_all_action);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-artifact-shelf.ui");
  gtk_widget_class_bind_template_child (widget_class, RkArtifactShelf, box);
  gtk_widget_class_bind_template_child (widget_class, RkArtifactShelf, save_all_button);
  gtk_widget_class_bind_template_child (widget_class, RkArtifactShelf, stack);
  gtk_widget_class_bind_template_child (widget_class, RkArtifactShelf, list);
  gtk_widget_class_bind_template_child (widget_class, RkArtifactShelf, status);
  gtk_widget_class_bind_template_child (widget_class, RkArtifactShelf, gone_box);
  gtk_widget_class_bind_template_child (widget_class, RkArtifactShelf, gone_label);
  gtk_widget_class_bind_template_callback (widget_class, row_activated_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_css_name (widget_class, "rkartifactshelf");
}

static void
rk_artifact_shelf_init (RkArtifactShelf *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  update_empty (self);
}

GtkWidget *
rk_artifact_shelf_new (void)
{
  return g_object_new (RK_TYPE_ARTIFACT_SHELF, NULL);
}
