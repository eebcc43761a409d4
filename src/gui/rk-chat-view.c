/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chat-view.c — the chat list. Rows are RkEntryRow, recycled by the list
 * view; the view keeps the set of bound rows so that the conversation's
 * state (approval, running cell, profiles) reaches them without rebinding.
 * Approvals that were simply granted are filtered out: the code row shows
 * its state itself. The rows' controls activate the view's chat.* actions;
 * the wheel scrolls the chat unless an inner view can scroll itself. */
#define G_LOG_DOMAIN "rk-chat-view"
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "rk-a11y.h"
#include "rk-agent.h"
#include "rk-approval-bar.h"
#include "rk-chat-search.h"
#include "rk-entry-row.h"
#include "rk-chat-view.h"
#include "rk-once-a-frame.h"

#include "rk-conversation.h"
#include "rk-session.h"

/* Within this many pixels of the bottom, the view follows new content. */
#define FOLLOW_SLACK 48.0

struct _RkChatView
{
  GtkWidget           parent_instance;

  GtkWidget          *box;       /* the template's child */
  RkChatSearch       *search;
  GtkScrolledWindow  *scroller;
  GtkListView        *list;
  GtkFilterListModel *filtered;

  RkConversation     *conversation;
  RkTranscript       *transcript;
  RkWorkspace        *workspace;
  char               *pending_cell;
  char               *running_cell;
  gint64              cell_started;

  GHashTable         *bound;       /* RkEntryRow set */
  double              last_upper;
  double              last_page;
  double              last_value;
  guint               bottom_tick;
  gboolean            following;
  gboolean            scrolling;
  guint               scroll_idle;

  /* A cell newly waiting for approval whose Run gets the keyboard focus
   * once its row is on screen, and until when to try. */
  char               *focus_cell;
  gint64              focus_until;
  guint               focus_tick;

  /* Where the pointer is (for the wheel), and the entry the search shows. */
  double              pointer_x;
  double              pointer_y;
  guint               match_entry;
};

G_DEFINE_FINAL_TYPE (RkChatView, rk_chat_view, GTK_TYPE_WIDGET)

static gboolean
entry_visible (gpointer item,
               gpointer user_data)
{
  RkChatView *self = user_data;
  RkTranscriptEntry *entry = item;

  switch (rk_transcript_entry_get_kind (entry))
    {
    case RK_ENTRY_APPROVAL:
      /* Skipped and edited code say so; a plain "yes" adds nothing. */
      return rk_transcript_entry_get_decision (entry) == RK_DECISION_SKIPPED ||
             rk_transcript_entry_get_decision (entry) == RK_DECISION_EDITED;
    case RK_ENTRY_ANSWER:
      /* The agent records the final answer it has just streamed as prose:
       * it is already on screen. */
      return self->transcript == NULL || !rk_transcript_answer_repeats (self->transcript, entry);
    case RK_ENTRY_RESULT:
      /* A cell ending in a DataFrame gives its table and then its text
       * form: the table says it better. */
      if (self->transcript != NULL && rk_transcript_entry_get_id (entry) > 1)
        {
          RkTranscriptEntry *prev = rk_transcript_lookup (self->transcript, rk_transcript_entry_get_id (entry) - 1);

          if (prev != NULL && rk_transcript_entry_get_kind (prev) == RK_ENTRY_TABLE &&
              g_strcmp0 (rk_transcript_entry_get_cell_id (prev), rk_transcript_entry_get_cell_id (entry)) == 0)
            return FALSE;
        }
      return TRUE;
    default:
      return TRUE;
    }
}

/* -- following the bottom ---------------------------------------------------- */

/* GtkListView keeps an anchor row and restores it when it allocates, so the
 * value is moved to the bottom on the next frame, after the list has been
 * laid out with its new size, and never from inside its own allocation. */
static void
to_bottom (GtkWidget *widget)
{
  RkChatView *self = RK_CHAT_VIEW (widget);
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);

  if (self->following)
    {
      self->scrolling = TRUE;
      gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj));
      self->scrolling = FALSE;
    }
  self->last_value = gtk_adjustment_get_value (adj);
}

static void
queue_bottom (RkChatView *self)
{
  if (self->following)
    rk_once_a_frame (GTK_WIDGET (self), &self->bottom_tick, to_bottom);
}

static gboolean
scroll_idle_cb (gpointer user_data)
{
  RkChatView *self = user_data;

  self->scroll_idle = 0;
  if (self->following)
    rk_chat_view_scroll_to_end (self);
  return G_SOURCE_REMOVE;
}

static void
queue_follow (RkChatView *self)
{
  if (self->following && self->scroll_idle == 0)
    self->scroll_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE + 20, scroll_idle_cb, self, NULL);
}

static void
adjustment_changed_cb (RkChatView *self)
{
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);

  /* The content grew (or the window shrank): stay at the bottom. */
  self->last_upper = gtk_adjustment_get_upper (adj);
  self->last_page = gtk_adjustment_get_page_size (adj);
  self->last_value = gtk_adjustment_get_value (adj);
  queue_bottom (self);
}

static void
value_changed_cb (RkChatView *self)
{
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  double upper = gtk_adjustment_get_upper (adj);
  double page = gtk_adjustment_get_page_size (adj);
  double value = gtk_adjustment_get_value (adj);

  if (self->scrolling)
    return;
  /* The list moved the value along with a change of its size (rows were
   * added, grew or were measured): that is not the user scrolling away. */
  if (upper != self->last_upper || page != self->last_page)
    {
      adjustment_changed_cb (self);
      return;
    }
  /* Scrolled up by the user: stop following; back at the bottom: follow
   * again. A pending move to the bottom counts as being there. */
  if (value >= upper - page - FOLLOW_SLACK)
    self->following = TRUE;
  else if (value < self->last_value - 0.5 && self->bottom_tick == 0)
    self->following = FALSE;
  self->last_value = value;
}

static void
items_changed_cb (RkChatView *self,
                  guint       position,
                  guint       removed,
                  guint       added)
{
  if (added > 0)
    queue_follow (self);
}

void
rk_chat_view_scroll_to_end (RkChatView *self)
{
  guint n;

  g_return_if_fail (RK_IS_CHAT_VIEW (self));

  self->following = TRUE;
  n = self->filtered ? g_list_model_get_n_items (G_LIST_MODEL (self->filtered)) : 0;
  /* A big jump through the adjustment can leave rows blank in GTK 4.8;
   * the list's own action does not. */
  if (n > 0)
    gtk_widget_activate_action (GTK_WIDGET (self->list), "list.scroll-to-item", "u", n - 1);
  queue_bottom (self);
}

gboolean
rk_chat_view_get_following (RkChatView *self)
{
  g_return_val_if_fail (RK_IS_CHAT_VIEW (self), FALSE);
  return self->following;
}

/* -- keyboard ------------------------------------------------------------------ */

static int
compare_rows (gconstpointer a,
              gconstpointer b)
{
  RkTranscriptEntry *ea = rk_entry_row_get_entry (*(RkEntryRow **) a);
  RkTranscriptEntry *eb = rk_entry_row_get_entry (*(RkEntryRow **) b);
  guint ia = ea ? rk_transcript_entry_get_id (ea) : 0;
  guint ib = eb ? rk_transcript_entry_get_id (eb) : 0;

  /* Entry ids grow in transcript order. */
  return ia < ib ? -1 : ia > ib;
}

/* Scrolls to the entry @entry_id, or to the last one shown before it (it
 * may be folded away); the list's ids grow in transcript order. FALSE if
 * there is none. */
static gboolean
scroll_to_id (RkChatView *self,
              guint       entry_id)
{
  GListModel *model = G_LIST_MODEL (self->filtered);
  guint n = g_list_model_get_n_items (model);
  guint target = G_MAXUINT;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RkTranscriptEntry) e = g_list_model_get_item (model, i);
      if (rk_transcript_entry_get_id (e) > entry_id)
        break;
      target = i;
    }
  if (target == G_MAXUINT)
    return FALSE;
  gtk_widget_activate_action (GTK_WIDGET (self->list), "list.scroll-to-item", "u", target);
  return TRUE;
}

static void
scroll_to_row (RkChatView *self,
               RkEntryRow *row)
{
  RkTranscriptEntry *entry = rk_entry_row_get_entry (row);

  if (entry != NULL)
    scroll_to_id (self, rk_transcript_entry_get_id (entry));
}

/* GtkListView 4.8 keeps Tab off the widgets inside its rows (its own focus
 * handling tries the remembered row only and, when that row has nothing to
 * focus or is not built, gives up or keeps the focus where it was). Tab and
 * Shift+Tab walk them here, row by row in transcript order, so Run, Edit,
 * Skip, Stop and Retry are reachable without a pointer; past the last (or
 * first) one, focus leaves the chat for the next widget of the window. The
 * same walk serves the window's Tab chain (the focus vfunc) and keys pressed
 * inside the list (the key controller). */
/* Moves the focus within or into @row; TRUE only if it really moved: some
 * GTK 4.8 widgets (GtkLabel) answer TRUE without taking it, and trusting
 * them keeps the focus where it is on every Tab. */
static gboolean
row_focus (GtkWidget        *row,
           GtkDirectionType  dir)
{
  GtkRoot *root = gtk_widget_get_root (row);
  GtkWidget *before = root ? gtk_root_get_focus (root) : NULL;
  GtkWidget *after;

  if (!gtk_widget_child_focus (row, dir))
    return FALSE;
  after = root ? gtk_root_get_focus (root) : NULL;
  return after != NULL && after != before && gtk_widget_is_ancestor (after, row);
}

static gboolean
move_focus (RkChatView       *self,
            GtkDirectionType  dir)
{
  g_autoptr(GPtrArray) rows = NULL;
  GtkWidget *focus;
  GtkRoot *root;
  GHashTableIter iter;
  gpointer row;
  int current = -1;

  rows = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, self->bound);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    if (gtk_widget_get_mapped (row))
      g_ptr_array_add (rows, row);
  if (rows->len == 0)
    return FALSE;
  g_ptr_array_sort (rows, compare_rows);

  root = gtk_widget_get_root (GTK_WIDGET (self));
  focus = root ? gtk_root_get_focus (root) : NULL;
  for (guint i = 0; i < rows->len && focus != NULL; i++)
    if (gtk_widget_is_ancestor (focus, rows->pdata[i]))
      current = i;

  if (current >= 0 && row_focus (rows->pdata[current], dir))
    return TRUE;
  if (current < 0)
    current = dir == GTK_DIR_TAB_FORWARD ? -1 : (int) rows->len;
  for (int i = current + (dir == GTK_DIR_TAB_FORWARD ? 1 : -1);
       i >= 0 && i < (int) rows->len;
       i += dir == GTK_DIR_TAB_FORWARD ? 1 : -1)
    {
      if (row_focus (rows->pdata[i], dir))
        {
          scroll_to_row (self, rows->pdata[i]);
          return TRUE;
        }
    }
  return FALSE;
}

static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                RkChatView            *self)
{
  GtkDirectionType dir;

  if (keyval != GDK_KEY_Tab && keyval != GDK_KEY_KP_Tab && keyval != GDK_KEY_ISO_Left_Tab)
    return FALSE;
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK))
    return FALSE;
  dir = (keyval == GDK_KEY_ISO_Left_Tab || (state & GDK_SHIFT_MASK)) ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD;
  return move_focus (self, dir);
}

static gboolean
rk_chat_view_focus (GtkWidget        *widget,
                    GtkDirectionType  dir)
{
  if (dir == GTK_DIR_TAB_FORWARD || dir == GTK_DIR_TAB_BACKWARD)
    return move_focus (RK_CHAT_VIEW (widget), dir);
  return GTK_WIDGET_CLASS (rk_chat_view_parent_class)->focus (widget, dir);
}

/* Run of a cell that starts waiting for approval takes the keyboard focus,
 * so that Enter runs it, but never while the user types: only when nothing
 * has the focus, the chat has it, or it is in an empty text field (the
 * composer just sent from). */
static gboolean
may_take_focus (RkChatView *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus;

  if (root == NULL)
    return FALSE;
  focus = gtk_root_get_focus (root);
  if (focus == NULL || gtk_widget_is_ancestor (focus, GTK_WIDGET (self)))
    return TRUE;
  if (GTK_IS_TEXT_VIEW (focus))
    return gtk_text_buffer_get_char_count (gtk_text_view_get_buffer (GTK_TEXT_VIEW (focus))) == 0;
  return FALSE;
}

/* The row built for the entry @id, or NULL (scrolled away, or folded). */
static RkEntryRow *
bound_row (RkChatView *self,
           guint       id)
{
  GHashTableIter iter;
  gpointer row;

  g_hash_table_iter_init (&iter, self->bound);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    if (rk_entry_row_get_entry (row) != NULL && rk_transcript_entry_get_id (rk_entry_row_get_entry (row)) == id)
      return row;
  return NULL;
}

GtkWidget *
rk_chat_view_get_entry_widget (RkChatView *self,
                               guint       entry_id)
{
  RkEntryRow *row;

  g_return_val_if_fail (RK_IS_CHAT_VIEW (self), NULL);

  row = bound_row (self, entry_id);
  return row != NULL ? rk_entry_row_get_content (row) : NULL;
}

static RkEntryRow *
pending_row (RkChatView *self,
             const char *cell)
{
  GHashTableIter iter;
  gpointer row;

  /* Only a code row has an approval bar. */
  g_hash_table_iter_init (&iter, self->bound);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    if (rk_entry_row_get_approval_bar (row) != NULL &&
        g_strcmp0 (rk_transcript_entry_get_cell_id (rk_entry_row_get_entry (row)), cell) == 0)
      return row;
  return NULL;
}

static void
stop_focus_approval (RkChatView *self)
{
  rk_once_a_frame_cancel (GTK_WIDGET (self), &self->focus_tick);
  g_clear_pointer (&self->focus_cell, g_free);
}

/* Tried each frame until the row is built and shown (or for a while). */
static void
focus_approval_frame (GtkWidget *widget)
{
  RkChatView *self = RK_CHAT_VIEW (widget);
  RkEntryRow *row;
  GtkWidget *bar;

  if (self->focus_cell == NULL || g_strcmp0 (self->focus_cell, self->pending_cell) != 0 ||
      g_get_monotonic_time () > self->focus_until)
    goto done;
  row = pending_row (self, self->focus_cell);
  bar = row ? rk_entry_row_get_approval_bar (row) : NULL;
  if ((bar == NULL || !gtk_widget_get_mapped (bar)) &&
      rk_once_a_frame (widget, &self->focus_tick, focus_approval_frame))
    return;
  if (bar != NULL && may_take_focus (self) && rk_approval_bar_focus_run (RK_APPROVAL_BAR (bar)))
    scroll_to_row (self, row);

done:
  g_clear_pointer (&self->focus_cell, g_free);
}

static void
focus_approval (RkChatView *self,
                const char *cell)
{
  stop_focus_approval (self);
  self->focus_cell = g_strdup (cell);
  self->focus_until = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  rk_once_a_frame (GTK_WIDGET (self), &self->focus_tick, focus_approval_frame);
}

/* -- the wheel ----------------------------------------------------------------- */

static void
motion_cb (GtkEventControllerMotion *motion,
           double                    x,
           double                    y,
           RkChatView               *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
}

/* Whether @widget is a scrolled window that can move by @dy itself: with
 * content taller than it shows, and not already at that end. */
static gboolean
scrolls_itself (GtkWidget *widget,
                double     dy)
{
  GtkPolicyType policy;
  GtkAdjustment *adj;
  double value, lower, upper, page;

  if (!GTK_IS_SCROLLED_WINDOW (widget))
    return FALSE;
  gtk_scrolled_window_get_policy (GTK_SCROLLED_WINDOW (widget), NULL, &policy);
  if (policy == GTK_POLICY_NEVER || policy == GTK_POLICY_EXTERNAL)
    return FALSE;
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (widget));
  value = gtk_adjustment_get_value (adj);
  lower = gtk_adjustment_get_lower (adj);
  upper = gtk_adjustment_get_upper (adj);
  page = gtk_adjustment_get_page_size (adj);
  if (upper - lower - page < 1)
    return FALSE;
  return dy < 0 ? value > lower + 0.5 : value < upper - page - 0.5;
}

/* Seen before the views inside the rows (capture phase): GTK 4.8's scrolled
 * windows keep a vertical wheel even when they cannot scroll that way (a
 * code block scrolls sideways only), so over code and tables the chat hardly
 * moved. The chat scrolls unless the view under the pointer can itself. */
static gboolean
wheel_cb (GtkEventControllerScroll *controller,
          double                    dx,
          double                    dy,
          RkChatView               *self)
{
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  GtkWidget *target;
  double step, value;

  if (dy == 0 || (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)) != 0)
    return GDK_EVENT_PROPAGATE;
  target = gtk_widget_pick (GTK_WIDGET (self), self->pointer_x, self->pointer_y, GTK_PICK_DEFAULT);
  for (GtkWidget *w = target; w != NULL && w != GTK_WIDGET (self->scroller); w = gtk_widget_get_parent (w))
    if (scrolls_itself (w, dy))
      return GDK_EVENT_PROPAGATE;
  /* The step of GtkScrolledWindow's own wheel handling. */
  step = gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL
         ? dy * pow (gtk_adjustment_get_page_size (adj), 2.0 / 3.0) : dy;
  value = CLAMP (gtk_adjustment_get_value (adj) + step, gtk_adjustment_get_lower (adj),
                 gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj));
  gtk_adjustment_set_value (adj, value);
  return GDK_EVENT_STOP;
}

/* -- search -------------------------------------------------------------------- */

static void
mark_match (RkChatView *self,
            RkEntryRow *row)
{
  RkTranscriptEntry *entry = rk_entry_row_get_entry (row);
  gboolean match = entry != NULL && self->match_entry != 0
                   && rk_transcript_entry_get_id (entry) == self->match_entry;

  rk_widget_set_css_class (GTK_WIDGET (row), "rk-search-match", match);
  if (match)
    rk_chat_search_select_in (GTK_WIDGET (row), rk_chat_search_get_needle (self->search));
}

static void
search_match_cb (RkChatView *self,
                 guint       position)
{
  g_autoptr(RkTranscriptEntry) entry = NULL;
  GHashTableIter iter;
  gpointer row;

  if (position != G_MAXUINT)
    entry = g_list_model_get_item (G_LIST_MODEL (self->filtered), position);
  self->match_entry = entry ? rk_transcript_entry_get_id (entry) : 0;
  g_hash_table_iter_init (&iter, self->bound);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    mark_match (self, row);
  if (entry != NULL)
    {
      self->following = FALSE;
      gtk_widget_activate_action (GTK_WIDGET (self->list), "list.scroll-to-item", "u", position);
    }
}

/* -- rows ---------------------------------------------------------------------- */

/* The pending cell's bar when its row is built: Run after Edit runs the
 * edit, from the bar as from Ctrl+Enter. */
static RkApprovalBar *
pending_bar (RkChatView *self)
{
  RkEntryRow *row = self->pending_cell ? pending_row (self, self->pending_cell) : NULL;

  return row ? RK_APPROVAL_BAR (rk_entry_row_get_approval_bar (row)) : NULL;
}

static void
approve_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  RkChatView *self = RK_CHAT_VIEW (widget);
  RkApprovalBar *bar = pending_bar (self);

  if (bar != NULL && rk_approval_bar_get_editing (bar))
    rk_approval_bar_run (bar);   /* activates chat.edit */
  else if (self->conversation != NULL && self->pending_cell != NULL)
    rk_conversation_approve (self->conversation, RK_AGENT_DECISION_RUN, NULL);
}

/* The chat's other actions: show-entry and search act on the view, the
 * rest pass straight on to the conversation. A cell run again, or a file
 * card's one-click analysis (code Reckon wrote, so it is shown before it
 * runs, as the model's is): how it went, a failure too, shows in the
 * transcript. */
static void
chat_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  RkChatView *self = RK_CHAT_VIEW (widget);
  RkConversation *conversation = self->conversation;

  if (g_str_equal (action_name, "chat.show-entry"))
    rk_chat_view_scroll_to_entry (self, g_variant_get_uint32 (parameter));
  else if (g_str_equal (action_name, "chat.search"))
    rk_chat_search_open (self->search);
  else if (conversation == NULL)
    return;
  else if (g_str_equal (action_name, "chat.edit"))
    rk_conversation_approve (conversation, RK_AGENT_DECISION_EDIT, g_variant_get_string (parameter, NULL));
  else if (g_str_equal (action_name, "chat.skip"))
    {
      rk_conversation_approve (conversation, RK_AGENT_DECISION_SKIP, NULL);
      /* Skip hides with its bar: the keyboard goes where the next question
       * is typed, not to the top of the window. */
      gtk_widget_activate_action (widget, "win.focus-composer", NULL);
    }
  else if (g_str_equal (action_name, "chat.stop"))
    rk_conversation_stop (conversation);
  else if (g_str_equal (action_name, "chat.retry"))
    rk_conversation_retry (conversation);
  else if (g_str_equal (action_name, "chat.cancel-profile"))
    rk_conversation_cancel_profile (conversation, g_variant_get_string (parameter, NULL));
  else if (g_str_equal (action_name, "chat.run-code"))
    rk_conversation_run_code_async (conversation, g_variant_get_string (parameter, NULL),
                                    RK_CODE_PROPOSED, NULL, NULL, NULL);
  else if (g_str_equal (action_name, "chat.run-again"))
    {
      const char *cell_id;
      gboolean fresh_kernel;

      g_variant_get (parameter, "(&sb)", &cell_id, &fresh_kernel);
      rk_conversation_rerun_cell_async (conversation, cell_id, fresh_kernel, NULL, NULL, NULL);
    }
}

/* The answer entry whose numbers @entry's prose shows, or 0: an ANSWER
 * shown itself, or the streamed prose that an ANSWER entry repeats. */
static guint
answer_of (RkChatView        *self,
           RkTranscriptEntry *entry)
{
  RkTranscriptEntry *next;

  if (rk_transcript_entry_get_kind (entry) == RK_ENTRY_ANSWER)
    return rk_transcript_entry_get_id (entry);
  if (rk_transcript_entry_get_kind (entry) != RK_ENTRY_ASSISTANT || self->transcript == NULL)
    return 0;
  next = rk_transcript_lookup (self->transcript, rk_transcript_entry_get_id (entry) + 1);
  if (next != NULL && rk_transcript_answer_repeats (self->transcript, next))
    return rk_transcript_entry_get_id (next);
  return 0;
}

static void
trace_row (RkChatView *self,
           RkEntryRow *row)
{
  RkTranscriptEntry *entry = rk_entry_row_get_entry (row);
  guint answer = entry ? answer_of (self, entry) : 0;

  if (answer != 0)
    rk_entry_row_trace_answer (row, self->transcript, answer);
}

/* An ANSWER entry arrived: the prose it repeats, on screen already, gets
 * its numbers traced. */
static void
transcript_items_changed_cb (RkChatView *self,
                             guint       position,
                             guint       removed,
                             guint       added)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(RkTranscriptEntry) e = g_list_model_get_item (G_LIST_MODEL (self->transcript), i);
      RkEntryRow *shown;

      if (e != NULL && rk_transcript_entry_get_kind (e) == RK_ENTRY_ANSWER &&
          (shown = bound_row (self, rk_transcript_entry_get_id (e) - 1)) != NULL)
        trace_row (self, shown);
    }
}

static void
setup_cb (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          RkChatView               *self)
{
  GtkWidget *row = rk_entry_row_new ();

  gtk_list_item_set_activatable (item, FALSE);
  gtk_list_item_set_selectable (item, FALSE);
  gtk_list_item_set_child (item, row);
}

static void
bind_cb (GtkSignalListItemFactory *factory,
         GtkListItem              *item,
         RkChatView               *self)
{
  RkEntryRow *row = RK_ENTRY_ROW (gtk_list_item_get_child (item));
  RkTranscriptEntry *entry = gtk_list_item_get_item (item);

  /* After expiry the workspace is gone: rows say so instead of failing. */
  rk_entry_row_bind (row, entry,
                     self->conversation != NULL && rk_conversation_get_expired (self->conversation)
                     ? NULL : self->workspace);
  rk_entry_row_set_state (row, self->pending_cell, self->running_cell, self->cell_started);
  g_hash_table_add (self->bound, row);
  trace_row (self, row);
  mark_match (self, row);
  if (self->conversation != NULL)
    {
      GtkWidget *bar = rk_entry_row_get_approval_bar (row);

      /* The bar goes with the row's content when it is unbound, and the
       * binding with it. */
      if (bar != NULL)
        g_object_bind_property (self->conversation, "auto-approve", bar, "auto-approve",
                                G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
      if (rk_transcript_entry_get_kind (entry) == RK_ENTRY_ATTACHMENT)
        rk_entry_row_set_file (row, rk_conversation_lookup_file (self->conversation,
                                                                 rk_transcript_entry_get_name (entry)));
    }
}

static void
unbind_cb (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           RkChatView               *self)
{
  RkEntryRow *row = RK_ENTRY_ROW (gtk_list_item_get_child (item));

  g_hash_table_remove (self->bound, row);
  rk_entry_row_unbind (row);
}

static void
teardown_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             RkChatView               *self)
{
  GtkWidget *row = gtk_list_item_get_child (item);

  if (row != NULL)
    g_hash_table_remove (self->bound, row);
}

/* chat.approve, and with it Ctrl+Enter from anywhere in the window (the
 * template's shortcut), only while code waits: else the key goes on (in the
 * question field it adds a line). */
static void
update_approve (RkChatView *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "chat.approve",
                                 self->conversation != NULL && self->pending_cell != NULL);
}

void
rk_chat_view_set_cell_state (RkChatView *self,
                             const char *pending_cell,
                             const char *running_cell,
                             gint64      cell_started)
{
  GHashTableIter iter;
  gpointer row;

  g_return_if_fail (RK_IS_CHAT_VIEW (self));

  if (pending_cell != NULL && g_strcmp0 (pending_cell, self->pending_cell) != 0)
    focus_approval (self, pending_cell);
  g_free (self->pending_cell);
  self->pending_cell = g_strdup (pending_cell);
  g_free (self->running_cell);
  self->running_cell = g_strdup (running_cell);
  self->cell_started = cell_started;
  update_approve (self);
  g_hash_table_iter_init (&iter, self->bound);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    rk_entry_row_set_state (row, pending_cell, running_cell, cell_started);
  queue_follow (self);
}

/* -- conversation ------------------------------------------------------------ */

static void
conversation_state_cb (RkChatView *self)
{
  g_autofree char *pending = NULL;
  g_autofree char *running = NULL;
  gint64 started = 0;

  g_object_get (self->conversation,
                "pending-approval", &pending,
                "running-cell", &running,
                "cell-started", &started,
                NULL);
  rk_chat_view_set_cell_state (self, pending, running, started);
}

void
rk_chat_view_set_transcript (RkChatView   *self,
                             RkTranscript *transcript,
                             RkWorkspace  *workspace)
{
  g_return_if_fail (RK_IS_CHAT_VIEW (self));
  g_return_if_fail (transcript == NULL || RK_IS_TRANSCRIPT (transcript));

  g_set_object (&self->workspace, workspace);
  if (self->transcript != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->filtered, self);
      g_signal_handlers_disconnect_by_data (self->transcript, self);
    }
  g_set_object (&self->transcript, transcript);
  gtk_filter_list_model_set_model (self->filtered, G_LIST_MODEL (transcript));
  if (transcript != NULL)
    {
      g_signal_connect_object (self->filtered, "items-changed", G_CALLBACK (items_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (transcript, "items-changed", G_CALLBACK (transcript_items_changed_cb), self,
                               G_CONNECT_SWAPPED | G_CONNECT_AFTER);
    }
  self->following = TRUE;
  queue_follow (self);
}

void
rk_chat_view_set_conversation (RkChatView     *self,
                               RkConversation *conversation)
{
  g_return_if_fail (RK_IS_CHAT_VIEW (self));

  if (self->conversation == conversation)
    return;
  if (self->conversation != NULL)
    g_signal_handlers_disconnect_by_data (self->conversation, self);
  /* Rows bound to the old conversation drop their bindings first. */
  rk_chat_view_set_transcript (self, NULL, NULL);
  g_set_object (&self->conversation, conversation);
  if (conversation != NULL)
    {
      RkSession *session = rk_conversation_get_session (conversation);

      g_signal_connect_swapped (conversation, "notify::pending-approval", G_CALLBACK (conversation_state_cb), self);
      g_signal_connect_swapped (conversation, "notify::running-cell", G_CALLBACK (conversation_state_cb), self);
      g_signal_connect_swapped (conversation, "notify::cell-started", G_CALLBACK (conversation_state_cb), self);
      conversation_state_cb (self);
      rk_chat_view_set_transcript (self, rk_conversation_get_transcript (conversation),
                                   session ? rk_session_get_workspace (session) : NULL);
    }
  update_approve (self);
}

void
rk_chat_view_scroll_to_entry (RkChatView *self,
                              guint       entry_id)
{
  g_return_if_fail (RK_IS_CHAT_VIEW (self));

  if (scroll_to_id (self, entry_id))
    self->following = FALSE;
}

GtkListView *
rk_chat_view_get_list_view (RkChatView *self)
{
  g_return_val_if_fail (RK_IS_CHAT_VIEW (self), NULL);
  return self->list;
}

/* -- object ---------------------------------------------------------------- */

static void
rk_chat_view_dispose (GObject *object)
{
  RkChatView *self = RK_CHAT_VIEW (object);

  if (self->conversation != NULL)
    rk_chat_view_set_conversation (self, NULL);
  else if (self->transcript != NULL)
    rk_chat_view_set_transcript (self, NULL, NULL);
  g_clear_handle_id (&self->scroll_idle, g_source_remove);
  stop_focus_approval (self);
  rk_once_a_frame_cancel (GTK_WIDGET (self), &self->bottom_tick);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_CHAT_VIEW);
  G_OBJECT_CLASS (rk_chat_view_parent_class)->dispose (object);
}

static void
rk_chat_view_finalize (GObject *object)
{
  RkChatView *self = RK_CHAT_VIEW (object);

  g_clear_object (&self->filtered);
  g_clear_object (&self->transcript);
  g_hash_table_unref (self->bound);
  g_clear_object (&self->workspace);
  g_free (self->pending_cell);
  g_free (self->running_cell);
  G_OBJECT_CLASS (rk_chat_view_parent_class)->finalize (object);
}

static void
rk_chat_view_class_init (RkChatViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_chat_view_dispose;
  object_class->finalize = rk_chat_view_finalize;
  widget_class->focus = rk_chat_view_focus;

  gtk_widget_class_install_action (widget_class, "chat.approve", NULL, approve_action);
  gtk_widget_class_install_action (widget_class, "chat.edit", "s", chat_action);
  gtk_widget_class_install_action (widget_class, "chat.skip", NULL, chat_action);
  gtk_widget_class_install_action (widget_class, "chat.stop", NULL, chat_action);
  gtk_widget_class_install_action (widget_class, "chat.retry", NULL, chat_action);
  gtk_widget_class_install_action (widget_class, "chat.cancel-profile", "s", chat_action);
  gtk_widget_class_install_action (widget_class, "chat.run-code", "s", chat_action);
  gtk_widget_class_install_action (widget_class, "chat.run-again", "(sb)", chat_action);
  gtk_widget_class_install_action (widget_class, "chat.show-entry", "u", chat_action);
  gtk_widget_class_install_action (widget_class, "chat.search", NULL, chat_action);

  g_type_ensure (RK_TYPE_CHAT_SEARCH);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-chat-view.ui");
  gtk_widget_class_bind_template_child (widget_class, RkChatView, box);
  gtk_widget_class_bind_template_child (widget_class, RkChatView, search);
  gtk_widget_class_bind_template_child (widget_class, RkChatView, scroller);
  gtk_widget_class_bind_template_child (widget_class, RkChatView, list);
  gtk_widget_class_bind_template_callback (widget_class, search_match_cb);
  gtk_widget_class_bind_template_callback (widget_class, key_pressed_cb);
  gtk_widget_class_bind_template_callback (widget_class, wheel_cb);
  gtk_widget_class_bind_template_callback (widget_class, motion_cb);
  gtk_widget_class_bind_template_callback (widget_class, setup_cb);
  gtk_widget_class_bind_template_callback (widget_class, bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, unbind_cb);
  gtk_widget_class_bind_template_callback (widget_class, teardown_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-chat-view");
}

static void
rk_chat_view_init (RkChatView *self)
{
  g_autoptr(GtkNoSelection) selection = NULL;
  GtkAdjustment *adj;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->bound = g_hash_table_new (NULL, NULL);
  self->following = TRUE;

  self->filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (gtk_custom_filter_new (entry_visible, self, NULL)));
  selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->filtered)));
  gtk_list_view_set_model (self->list, GTK_SELECTION_MODEL (selection));

  rk_chat_search_set_model (self->search, G_LIST_MODEL (self->filtered));
  update_approve (self);

  adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  g_signal_connect_object (adj, "notify::upper", G_CALLBACK (adjustment_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adj, "notify::page-size", G_CALLBACK (adjustment_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adj, "changed", G_CALLBACK (adjustment_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adj, "value-changed", G_CALLBACK (value_changed_cb), self, G_CONNECT_SWAPPED);
}

GtkWidget *
rk_chat_view_new (void)
{
  return g_object_new (RK_TYPE_CHAT_VIEW, NULL);
}
