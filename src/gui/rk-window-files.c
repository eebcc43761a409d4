/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-window-files.c — what a conversation's files lead to: their card
 * (shown and focused), the whole table, another reading, removal (undone
 * from a toast). The card and the sidebar name the file; this does the rest. */
#define G_LOG_DOMAIN "rk-window"
#include "config.h"

#include <glib/gi18n.h>

#include "rk-a11y.h"
#include "rk-analyses.h"
#include "rk-file-card.h"
#include "rk-table-view.h"
#include "rk-text.h"
#include "rk-window-private.h"

/* Frames a card that is being scrolled to is looked for before giving up. */
#define SHOW_FRAMES 120

typedef struct
{
  guint  entry_id;
  guint  frames;
} ShowCard;

/* The list builds the card's row once it scrolled there: focus it then. */
static gboolean
focus_card_tick_cb (GtkWidget     *widget,
                    GdkFrameClock *clock,
                    gpointer       user_data)
{
  RkWindow *self = RK_WINDOW (widget);
  ShowCard *show = user_data;
  GtkWidget *card = rk_chat_view_get_entry_widget (self->chat_view, show->entry_id);

  if (card != NULL && gtk_widget_get_mapped (card))
    {
      gtk_widget_grab_focus (card);
      return G_SOURCE_REMOVE;
    }
  return ++show->frames < SHOW_FRAMES ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/* Scrolls the chat to @file's card and gives it the keyboard focus. */
static void
show_file (RkWindow           *self,
           RkConversationFile *file)
{
  ShowCard *show;

  if (rk_conversation_file_get_entry_id (file) == 0)
    return;
  if (adw_flap_get_folded (self->flap))
    adw_flap_set_reveal_flap (self->flap, FALSE);
  rk_chat_view_scroll_to_entry (self->chat_view, rk_conversation_file_get_entry_id (file));
  show = g_new0 (ShowCard, 1);
  show->entry_id = rk_conversation_file_get_entry_id (file);
  gtk_widget_add_tick_callback (GTK_WIDGET (self), focus_card_tick_cb, show, g_free);
}

void
_rk_window_files_added (RkWindow   *self,
                        GListModel *transcript,
                        guint       position,
                        guint       added)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(RkTranscriptEntry) e = g_list_model_get_item (transcript, i);

      if (e != NULL && rk_transcript_entry_get_kind (e) == RK_ENTRY_ATTACHMENT)
        {
          rk_chat_view_scroll_to_end (self->chat_view);
          return;
        }
    }
}

/* -- removal ---------------------------------------------------------------- */

/* The toast keeps where the file came from. */
static void
undo_remove_cb (AdwToast       *toast,
                RkConversation *conversation)
{
  g_autoptr(GFile) file = g_file_new_for_path (g_object_get_data (G_OBJECT (toast), "rk-original"));

  rk_conversation_add_files (conversation, &file, 1);
}

static void
remove_file (RkWindow   *self,
             const char *name)
{
  g_autofree char *original = rk_conversation_remove_file (self->conversation, name);
  g_autofree char *shown = NULL;
  g_autofree char *message = NULL;
  AdwToast *toast;

  if (original == NULL)
    return;
  shown = rk_text_sanitize_for_terminal (name, RK_TEXT_SANITIZE_SINGLE_LINE);
  /* TRANSLATORS: %s is a file's name; its original is untouched */
  message = g_strdup_printf (_("“%s” was removed from this conversation"), shown);
  toast = adw_toast_new (message);
  adw_toast_set_timeout (toast, 10);
  /* Undo adds the original again: copied and read as when first added. */
  if (*original != '\0')
    {
      g_object_set_data_full (G_OBJECT (toast), "rk-original", g_steal_pointer (&original), g_free);
      adw_toast_set_button_label (toast, _("_Undo"));
      g_signal_connect_data (toast, "button-clicked", G_CALLBACK (undo_remove_cb), g_object_ref (self->conversation),
                             (GClosureNotify) G_CALLBACK (g_object_unref), 0);
      /* Shown now, over any message before it: the Undo is for this. */
      adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
    }
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
  /* libadwaita 1.2 builds the shown toast, the overlay's last child, only
   * now: its Undo reads "_Undo Undo" on GTK 4.8, its close button nothing. */
  rk_a11y_name_tree (gtk_widget_get_last_child (GTK_WIDGET (self->toast_overlay)));
}

/* What the card and the sidebar ask of a file they name: its card shown,
 * the profiler's other reading, or out of the conversation. */
static void
file_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  RkWindow *self = RK_WINDOW (widget);
  const char *name = g_variant_get_string (parameter, NULL);
  RkConversationFile *file = self->conversation ? rk_conversation_lookup_file (self->conversation, name) : NULL;
  RkFileProfile *profile = file ? rk_conversation_file_get_profile (file) : NULL;
  RkProfileOptions options = RK_PROFILE_OPTIONS_INIT;

  if (file == NULL)
    return;
  if (g_str_equal (action_name, "win.file-show"))
    show_file (self, file);
  else if (g_str_equal (action_name, "win.file-remove"))
    remove_file (self, name);
  else if (profile != NULL && rk_file_profile_get_alternative (profile, &options, NULL))
    rk_conversation_reprofile (self->conversation, name, &options);
}

/* -- the whole table ---------------------------------------------------------- */

typedef struct
{
  RkWindow *window;
  char     *title;
  guint     n_artifacts;     /* before the code ran: a table after them is its */
} OpenTable;

static void
open_table_free (OpenTable *open)
{
  g_object_unref (open->window);
  g_free (open->title);
  g_free (open);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OpenTable, open_table_free)

static void
table_loaded_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(OpenTable) open = user_data;
  RkConversation *conversation = RK_CONVERSATION (source);
  RkSession *session = rk_conversation_get_session (conversation);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = rk_conversation_run_code_finish (conversation, result, &error);
  GPtrArray *artifacts = rk_session_get_artifacts (session);

  if (out == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        rk_window_toast (open->window, error->message);
      return;
    }
  for (guint i = artifacts->len; i > open->n_artifacts; i--)
    {
      const RkArtifact *a = g_ptr_array_index (artifacts, i - 1);
      g_autoptr(RkTable) table = NULL;

      if (a->kind != RK_ARTIFACT_TABLE)
        continue;
      table = rk_table_open_beneath (rk_session_get_workspace (session), a->path, &error);
      if (table == NULL)
        {
          rk_window_toast (open->window, error->message);
          return;
        }
      rk_table_view_open_window (table, open->title, GTK_WIDGET (open->window));
      return;
    }
}

/* The table is read by the kernel, as the file's code would read it, so
 * the chat shows what ran (and asks first, as for any code). */
static void
file_open_table_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  RkWindow *self = RK_WINDOW (widget);
  const char *name, *sheet;
  g_autofree char *py_name = NULL;
  g_autofree char *py_sheet = NULL;
  g_autofree char *code = NULL;
  OpenTable *open;

  if (self->conversation == NULL)
    return;
  g_variant_get (parameter, "(&s&s)", &name, &sheet);
  py_name = rk_analysis_py_string (name);
  if (*sheet != '\0')
    {
      py_sheet = rk_analysis_py_string (sheet);
      code = g_strdup_printf ("reckon.show(reckon.compute(reckon.load(%s, sheet=%s)), name=%s)\n",
                              py_name, py_sheet, py_sheet);
    }
  else
    code = g_strdup_printf ("reckon.show(reckon.compute(reckon.load(%s)), name=%s)\n", py_name, py_name);
  open = g_new0 (OpenTable, 1);
  open->window = g_object_ref (self);
  open->title = rk_text_sanitize_for_terminal (*sheet != '\0' ? sheet : name, RK_TEXT_SANITIZE_SINGLE_LINE);
  open->n_artifacts = rk_session_get_artifacts (rk_conversation_get_session (self->conversation))->len;
  rk_conversation_run_code_async (self->conversation, code, RK_CODE_PROPOSED, self->cancellable, table_loaded_cb, open);
}

void
_rk_window_class_files_init (RkWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.file-show", "s", file_action);
  gtk_widget_class_install_action (widget_class, "win.file-reread", "s", file_action);
  gtk_widget_class_install_action (widget_class, "win.file-remove", "s", file_action);
  gtk_widget_class_install_action (widget_class, "win.file-open-table", "(ss)", file_open_table_action);
}
