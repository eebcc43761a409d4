/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-markdown-view.c — markdown prose (rk_markdown_parse) as native widgets.
 * While text streams in, only the blocks after the last final one are
 * parsed again, and those are updated in place when their shape holds. */
#define G_LOG_DOMAIN "rk-markdown-view"
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "rk-markdown.h"
#include "rk-text.h"
#include "rk-trace.h"
#include "rk-code-block.h"
#include "rk-markdown-view.h"
#include "rk-once-a-frame.h"

struct _RkMarkdownView
{
  GtkWidget          parent_instance;

  GtkWidget         *box;
  GString           *text;
  /* Bytes of text rendered as final blocks: the first n_final children. */
  gsize              done_offset;
  guint              n_final;
  guint              n_built;

  RkTranscriptEntry *entry;
  guint              tick_id;
  gboolean           pending;
  gboolean           fold_python;
  RkTraceIndex      *trace;
};

G_DEFINE_FINAL_TYPE (RkMarkdownView, rk_markdown_view, GTK_TYPE_WIDGET)

static GQuark kind_quark;
static GQuark shape_quark;
static GQuark source_quark;

enum
{
  SIGNAL_TRACE_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Shape of a folded Python fence: a label, not a code block. */
#define SHAPE_FOLDED 100

static GtkWidget *build_block (RkMarkdownView *self, RkMarkdownNode *node);
static gboolean update_block (RkMarkdownView *self, GtkWidget *widget, RkMarkdownNode *node);

#define TRACE_SCHEME "reckon-trace:"

static gboolean
activate_link_cb (GtkLabel       *label,
                  const char     *uri,
                  RkMarkdownView *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (label));

  /* A traced number: computed ones lead to the output they came from; the
   * tooltip says the rest. */
  if (g_str_has_prefix (uri, TRACE_SCHEME))
    {
      const char *rest = uri + strlen (TRACE_SCHEME);
      char *end = NULL;
      guint64 id = g_ascii_strtoull (rest, &end, 10);

      if (end != rest && id > 0 && id <= G_MAXUINT)
        g_signal_emit (self, signals[SIGNAL_TRACE_ACTIVATED], 0, (guint) id);
      return TRUE;
    }
  /* rk_markdown_parse() only makes links of http(s) and mailto. */
  gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, uri, GDK_CURRENT_TIME);
  return TRUE;
}

static void
label_set_markup (RkMarkdownView *self,
                  GtkLabel       *label,
                  const char     *markup)
{
  g_autofree char *marked = NULL;
  const char *shown = markup;
  gboolean has_link;

  if (g_strcmp0 (g_object_get_qdata (G_OBJECT (label), source_quark), markup) == 0)
    return;
  g_object_set_qdata_full (G_OBJECT (label), source_quark, g_strdup (markup), g_free);
  if (self->trace != NULL)
    {
      marked = rk_trace_mark_markup (self->trace, markup, NULL, NULL);
      if (marked != NULL)
        shown = marked;
    }
  gtk_label_set_markup (label, shown);
  /* Only labels with links take keyboard focus: Tab should reach the
   * approval bar without walking through every paragraph. */
  has_link = strstr (shown, "<a href=") != NULL;
  gtk_widget_set_focusable (GTK_WIDGET (label), has_link);
  /* A selectable label that may not take the focus still tells GTK 4.8's
   * focus chain that it took it (gtk_label_focus): without can-focus off,
   * Tab would stop on it for ever. */
  gtk_widget_set_can_focus (GTK_WIDGET (label), has_link);
}

static GtkWidget *
new_label (RkMarkdownView *self,
           const char     *markup,
           const char     *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_focusable (label, FALSE);
  gtk_widget_set_can_focus (label, FALSE);
  gtk_widget_set_hexpand (label, TRUE);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  g_signal_connect (label, "activate-link", G_CALLBACK (activate_link_cb), self);
  if (markup != NULL)
    label_set_markup (self, GTK_LABEL (label), markup);
  return label;
}

static const char *
heading_class (guint level)
{
  switch (level)
    {
    case 1: return "title-2";
    case 2: return "title-3";
    case 3: return "title-4";
    default: return "heading";
    }
}

static gboolean
is_folded (RkMarkdownView *self,
           RkMarkdownNode *node)
{
  return self->fold_python && node->kind == RK_MARKDOWN_NODE_CODE && rk_markdown_is_python_language (node->language);
}

static char *
folded_text (RkMarkdownNode *node)
{
  guint lines = 1;

  for (const char *p = node->text; *p; p++)
    lines += *p == '\n';
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Python code, %u line: it is shown in the cell below.",
                                       "Python code, %u lines: it is shown in the cell below.", lines), lines);
}

/* What must match for a widget to be updated in place rather than rebuilt. */
static guint
shape_of (RkMarkdownView *self,
          RkMarkdownNode *node)
{
  if (is_folded (self, node))
    return SHAPE_FOLDED;
  switch (node->kind)
    {
    case RK_MARKDOWN_NODE_HEADING:
      return node->level;
    case RK_MARKDOWN_NODE_LIST:
      return (node->ordered ? 1u : 0u) | (node->tight ? 2u : 0u);
    case RK_MARKDOWN_NODE_TABLE:
      return node->n_columns;
    default:
      return 0;
    }
}

static void
mark (RkMarkdownView *self,
      GtkWidget      *widget,
      RkMarkdownNode *node)
{
  g_object_set_qdata (G_OBJECT (widget), kind_quark, GUINT_TO_POINTER (node->kind + 1));
  g_object_set_qdata (G_OBJECT (widget), shape_quark, GUINT_TO_POINTER (shape_of (self, node) + 1));
}

static gboolean
same_shape (RkMarkdownView *self,
            GtkWidget      *widget,
            RkMarkdownNode *node)
{
  return GPOINTER_TO_UINT (g_object_get_qdata (G_OBJECT (widget), kind_quark)) == node->kind + 1 &&
         GPOINTER_TO_UINT (g_object_get_qdata (G_OBJECT (widget), shape_quark)) == shape_of (self, node) + 1;
}

/* Brings the children of @box from @first on in line with @nodes: each is
 * updated in place if it can be, else replaced; extra ones go. */
static void
reconcile_children (RkMarkdownView *self,
                    GtkWidget      *box,
                    GtkWidget      *first,
                    GPtrArray      *nodes)
{
  GtkWidget *child = first;
  GtkWidget *prev = first ? gtk_widget_get_prev_sibling (first) : gtk_widget_get_last_child (box);

  for (guint i = 0; i < nodes->len; i++)
    {
      RkMarkdownNode *node = nodes->pdata[i];

      if (child != NULL && update_block (self, child, node))
        {
          prev = child;
          child = gtk_widget_get_next_sibling (child);
          continue;
        }
      {
        GtkWidget *fresh = build_block (self, node);
        GtkWidget *next = child ? gtk_widget_get_next_sibling (child) : NULL;

        if (child != NULL)
          gtk_box_remove (GTK_BOX (box), child);
        gtk_box_insert_child_after (GTK_BOX (box), fresh, prev);
        prev = fresh;
        child = next;
      }
    }
  while (child != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);
      gtk_box_remove (GTK_BOX (box), child);
      child = next;
    }
}

static void
set_item_marker (GtkWidget      *item_row,
                 RkMarkdownNode *list,
                 guint           index)
{
  GtkLabel *marker = GTK_LABEL (gtk_widget_get_first_child (item_row));
  RkMarkdownNode *item = index < list->children->len ? list->children->pdata[index] : NULL;
  g_autofree char *text = NULL;

  if (item != NULL && item->task != 0)
    text = g_strdup (item->task == 2 ? "☑" : "☐");
  else if (list->ordered)
    text = g_strdup_printf ("%u.", list->start + index);
  else
    text = g_strdup ("•");

  if (g_strcmp0 (gtk_label_get_text (marker), text) != 0)
    gtk_label_set_text (marker, text);
}

static GtkWidget *
build_item (RkMarkdownView *self,
            RkMarkdownNode *list,
            RkMarkdownNode *item,
            guint           index)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *marker = gtk_label_new (NULL);
  GtkWidget *content = gtk_box_new (GTK_ORIENTATION_VERTICAL, list->tight ? 2 : 8);

  gtk_widget_add_css_class (row, "rk-md-item");
  gtk_label_set_xalign (GTK_LABEL (marker), 1);
  gtk_label_set_yalign (GTK_LABEL (marker), 0);
  gtk_widget_set_valign (marker, GTK_ALIGN_START);
  gtk_label_set_width_chars (GTK_LABEL (marker), list->ordered ? 3 : 2);
  gtk_widget_add_css_class (marker, "rk-md-marker");
  gtk_box_append (GTK_BOX (row), marker);
  gtk_widget_set_hexpand (content, TRUE);
  gtk_box_append (GTK_BOX (row), content);
  set_item_marker (row, list, index);
  reconcile_children (self, content, NULL, item->children);
  return row;
}

static GtkWidget *
table_grid (GtkWidget *widget)
{
  return g_object_get_data (G_OBJECT (widget), "rk-md-grid");
}

static void
update_table (RkMarkdownView *self,
              GtkWidget      *widget,
              RkMarkdownNode *node)
{
  GtkGrid *grid = GTK_GRID (table_grid (widget));
  guint old_rows = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "rk-md-rows"));

  for (guint r = 0; r < node->children->len; r++)
    {
      RkMarkdownNode *row = node->children->pdata[r];

      for (guint c = 0; c < node->n_columns; c++)
        {
          RkMarkdownNode *cell = c < row->children->len ? row->children->pdata[c] : NULL;
          const char *markup = cell ? cell->markup : "";
          GtkWidget *label = gtk_grid_get_child_at (grid, c, r);

          if (label == NULL)
            {
              label = new_label (self, NULL, row->header ? "rk-md-th" : "rk-md-td");
              gtk_widget_set_hexpand (label, FALSE);
              gtk_label_set_wrap (GTK_LABEL (label), FALSE);
              if (cell && cell->align == 'r')
                gtk_label_set_xalign (GTK_LABEL (label), 1);
              else if (cell && cell->align == 'c')
                gtk_label_set_xalign (GTK_LABEL (label), 0.5);
              if (row->header)
                gtk_widget_add_css_class (label, "heading");
              if (r % 2 == 1)
                gtk_widget_add_css_class (label, "rk-md-odd");
              gtk_grid_attach (grid, label, c, r, 1, 1);
            }
          label_set_markup (self, GTK_LABEL (label), markup);
        }
    }
  for (guint r = node->children->len; r < old_rows; r++)
    gtk_grid_remove_row (grid, node->children->len);
  g_object_set_data (G_OBJECT (widget), "rk-md-rows", GUINT_TO_POINTER (node->children->len));
}

static GtkWidget *
build_block (RkMarkdownView *self,
             RkMarkdownNode *node)
{
  GtkWidget *widget = NULL;

  self->n_built++;
  switch (node->kind)
    {
    case RK_MARKDOWN_NODE_PARAGRAPH:
    case RK_MARKDOWN_NODE_TABLE_CELL:
      widget = new_label (self, node->markup, "rk-md-paragraph");
      break;
    case RK_MARKDOWN_NODE_HEADING:
      widget = new_label (self, node->markup, heading_class (node->level));
      gtk_widget_add_css_class (widget, "rk-md-heading");
      gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LEVEL, node->level, -1);
      break;
    case RK_MARKDOWN_NODE_LITERAL:
      widget = new_label (self, NULL, "rk-md-literal");
      gtk_label_set_text (GTK_LABEL (widget), node->text);
      break;
    case RK_MARKDOWN_NODE_CODE:
      if (is_folded (self, node))
        {
          g_autofree char *text = folded_text (node);
          widget = new_label (self, NULL, "rk-md-folded-code");
          gtk_label_set_text (GTK_LABEL (widget), text);
          gtk_widget_add_css_class (widget, "dim-label");
          break;
        }
      widget = rk_code_block_new (node->language);
      rk_code_block_set_code (RK_CODE_BLOCK (widget), node->text);
      break;
    case RK_MARKDOWN_NODE_RULE:
      widget = gtk_separator_new (GTK_ORIENTATION_HORIZONTAL);
      gtk_widget_add_css_class (widget, "rk-md-rule");
      break;
    case RK_MARKDOWN_NODE_LIST:
      widget = gtk_box_new (GTK_ORIENTATION_VERTICAL, node->tight ? 2 : 8);
      gtk_widget_add_css_class (widget, "rk-md-list");
      gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, _("List"), -1);
      for (guint i = 0; i < node->children->len; i++)
        gtk_box_append (GTK_BOX (widget), build_item (self, node, node->children->pdata[i], i));
      break;
    case RK_MARKDOWN_NODE_QUOTE:
    case RK_MARKDOWN_NODE_ITEM:
      widget = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
      if (node->kind == RK_MARKDOWN_NODE_QUOTE)
        gtk_widget_add_css_class (widget, "rk-md-quote");
      reconcile_children (self, widget, NULL, node->children);
      break;
    case RK_MARKDOWN_NODE_TABLE:
    case RK_MARKDOWN_NODE_TABLE_ROW:
      {
        GtkWidget *grid = gtk_grid_new ();

        widget = gtk_scrolled_window_new ();
        gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (widget), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
        gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (widget), TRUE);
        gtk_widget_set_halign (grid, GTK_ALIGN_START);
        gtk_widget_add_css_class (grid, "rk-md-table");
        gtk_accessible_update_property (GTK_ACCESSIBLE (grid), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Table"), -1);
        gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (widget), grid);
        g_object_set_data (G_OBJECT (widget), "rk-md-grid", grid);
        if (node->kind == RK_MARKDOWN_NODE_TABLE)
          update_table (self, widget, node);
      }
      break;
    default:
      g_assert_not_reached ();
    }
  mark (self, widget, node);
  return widget;
}

/* Updates @widget to show @node; FALSE if it has another shape. */
static gboolean
update_block (RkMarkdownView *self,
              GtkWidget      *widget,
              RkMarkdownNode *node)
{
  if (!same_shape (self, widget, node))
    return FALSE;

  switch (node->kind)
    {
    case RK_MARKDOWN_NODE_PARAGRAPH:
    case RK_MARKDOWN_NODE_HEADING:
    case RK_MARKDOWN_NODE_TABLE_CELL:
      label_set_markup (self, GTK_LABEL (widget), node->markup);
      return TRUE;
    case RK_MARKDOWN_NODE_LITERAL:
      if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), node->text) != 0)
        gtk_label_set_text (GTK_LABEL (widget), node->text);
      return TRUE;
    case RK_MARKDOWN_NODE_CODE:
      if (is_folded (self, node))
        {
          g_autofree char *text = folded_text (node);
          if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) != 0)
            gtk_label_set_text (GTK_LABEL (widget), text);
          return TRUE;
        }
      if (g_strcmp0 (rk_code_block_get_language (RK_CODE_BLOCK (widget)), node->language) != 0)
        return FALSE;
      rk_code_block_set_code (RK_CODE_BLOCK (widget), node->text);
      return TRUE;
    case RK_MARKDOWN_NODE_RULE:
      return TRUE;
    case RK_MARKDOWN_NODE_LIST:
      {
        GtkWidget *row = gtk_widget_get_first_child (widget);
        guint i;

        for (i = 0; i < node->children->len; i++)
          {
            RkMarkdownNode *item = node->children->pdata[i];

            if (row == NULL)
              {
                gtk_box_append (GTK_BOX (widget), build_item (self, node, item, i));
                continue;
              }
            set_item_marker (row, node, i);
            reconcile_children (self, gtk_widget_get_last_child (row),
                                gtk_widget_get_first_child (gtk_widget_get_last_child (row)),
                                item->children);
            row = gtk_widget_get_next_sibling (row);
          }
        while (row != NULL)
          {
            GtkWidget *next = gtk_widget_get_next_sibling (row);
            gtk_box_remove (GTK_BOX (widget), row);
            row = next;
          }
        return TRUE;
      }
    case RK_MARKDOWN_NODE_QUOTE:
    case RK_MARKDOWN_NODE_ITEM:
      reconcile_children (self, widget, gtk_widget_get_first_child (widget), node->children);
      return TRUE;
    case RK_MARKDOWN_NODE_TABLE:
      update_table (self, widget, node);
      return TRUE;
    case RK_MARKDOWN_NODE_TABLE_ROW:
    default:
      return FALSE;
    }
}

static void
clear_blocks (RkMarkdownView *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->box)) != NULL)
    gtk_box_remove (GTK_BOX (self->box), child);
  self->done_offset = 0;
  self->n_final = 0;
}

static void
render (RkMarkdownView *self,
        const char     *text)
{
  g_autoptr(GPtrArray) nodes = NULL;
  g_autofree char *clean = NULL;
  GtkWidget *first_open;
  gsize len;
  guint final;

  if (text == NULL)
    text = "";
  /* A model's text may carry terminal escapes or bidi overrides: shown as
   * the plain text they stand for (rarely needed, so checked first). */
  if (!rk_text_is_terminal_safe (text))
    text = clean = rk_text_sanitize_for_terminal (text, RK_TEXT_SANITIZE_DEFAULT);
  len = strlen (text);
  self->pending = FALSE;
  if (len == self->text->len && memcmp (text, self->text->str, len) == 0)
    return;
  /* Only text appended after the final blocks keeps them. */
  if (len < self->done_offset || memcmp (text, self->text->str, self->done_offset) != 0)
    clear_blocks (self);
  g_string_truncate (self->text, 0);
  g_string_append_len (self->text, text, len);

  nodes = rk_markdown_parse (text + self->done_offset, len - self->done_offset);
  final = rk_markdown_count_final (nodes, text + self->done_offset, len - self->done_offset);

  first_open = gtk_widget_get_first_child (self->box);
  for (guint i = 0; i < self->n_final && first_open != NULL; i++)
    first_open = gtk_widget_get_next_sibling (first_open);
  reconcile_children (self, self->box, first_open, nodes);

  if (final > 0)
    {
      self->n_final += final;
      self->done_offset += ((RkMarkdownNode *) nodes->pdata[final])->offset;
    }
}

void
rk_markdown_view_set_text (RkMarkdownView *self,
                           const char     *text)
{
  g_return_if_fail (RK_IS_MARKDOWN_VIEW (self));
  render (self, text);
}

const char *
rk_markdown_view_get_text (RkMarkdownView *self)
{
  g_return_val_if_fail (RK_IS_MARKDOWN_VIEW (self), NULL);
  return self->text->str;
}

static void
flush_cb (GtkWidget *widget)
{
  rk_markdown_view_flush (RK_MARKDOWN_VIEW (widget));
}

static void
entry_text_cb (RkMarkdownView *self)
{
  /* At 200 tokens a second, render at most once a frame. */
  self->pending = TRUE;
  rk_once_a_frame (GTK_WIDGET (self), &self->tick_id, flush_cb);
}

void
rk_markdown_view_flush (RkMarkdownView *self)
{
  g_return_if_fail (RK_IS_MARKDOWN_VIEW (self));
  if (self->pending && self->entry != NULL)
    render (self, rk_transcript_entry_get_text (self->entry));
  self->pending = FALSE;
}

void
rk_markdown_view_set_entry (RkMarkdownView    *self,
                            RkTranscriptEntry *entry)
{
  g_return_if_fail (RK_IS_MARKDOWN_VIEW (self));
  g_return_if_fail (entry == NULL || RK_IS_TRANSCRIPT_ENTRY (entry));

  if (self->entry == entry)
    return;
  if (self->entry != NULL)
    g_signal_handlers_disconnect_by_data (self->entry, self);
  rk_once_a_frame_cancel (GTK_WIDGET (self), &self->tick_id);
  g_set_object (&self->entry, entry);
  if (entry != NULL)
    {
      g_signal_connect_swapped (entry, "notify::text", G_CALLBACK (entry_text_cb), self);
      render (self, rk_transcript_entry_get_text (entry));
    }
  else
    render (self, "");
}

/* Every block built again from what the view should show now: its entry's
 * text when it follows one (a change may still wait for the next frame:
 * rendering the old text would drop it, as render() clears the pending
 * change), else the text it was given. */
static void
render_afresh (RkMarkdownView *self)
{
  g_autofree char *text = g_strdup (self->entry != NULL ? rk_transcript_entry_get_text (self->entry)
                                                        : self->text->str);

  clear_blocks (self);
  g_string_truncate (self->text, 0);
  render (self, text);
}

void
rk_markdown_view_set_trace_index (RkMarkdownView *self,
                                  RkTraceIndex   *index)
{
  g_return_if_fail (RK_IS_MARKDOWN_VIEW (self));

  g_clear_pointer (&self->trace, rk_trace_index_free);
  self->trace = index;
  /* Every label shows its numbers marked (or not) again. */
  render_afresh (self);
}

void
rk_markdown_view_set_fold_python (RkMarkdownView *self,
                                  gboolean        fold)
{
  g_return_if_fail (RK_IS_MARKDOWN_VIEW (self));

  fold = !!fold;
  if (self->fold_python == fold)
    return;
  self->fold_python = fold;
  /* Everything shown changes shape. */
  render_afresh (self);
}

guint
rk_markdown_view_get_n_built (RkMarkdownView *self)
{
  g_return_val_if_fail (RK_IS_MARKDOWN_VIEW (self), 0);
  return self->n_built;
}

guint
rk_markdown_view_get_n_final (RkMarkdownView *self)
{
  g_return_val_if_fail (RK_IS_MARKDOWN_VIEW (self), 0);
  return self->n_final;
}

GtkWidget *
rk_markdown_view_get_box (RkMarkdownView *self)
{
  g_return_val_if_fail (RK_IS_MARKDOWN_VIEW (self), NULL);
  return self->box;
}

static void
rk_markdown_view_map (GtkWidget *widget)
{
  RkMarkdownView *self = RK_MARKDOWN_VIEW (widget);

  GTK_WIDGET_CLASS (rk_markdown_view_parent_class)->map (widget);
  rk_markdown_view_flush (self);
}

static void
rk_markdown_view_dispose (GObject *object)
{
  RkMarkdownView *self = RK_MARKDOWN_VIEW (object);

  rk_markdown_view_set_entry (self, NULL);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (rk_markdown_view_parent_class)->dispose (object);
}

static void
rk_markdown_view_finalize (GObject *object)
{
  RkMarkdownView *self = RK_MARKDOWN_VIEW (object);

  g_string_free (self->text, TRUE);
  g_clear_pointer (&self->trace, rk_trace_index_free);
  G_OBJECT_CLASS (rk_markdown_view_parent_class)->finalize (object);
}

static void
rk_markdown_view_class_init (RkMarkdownViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_markdown_view_dispose;
  object_class->finalize = rk_markdown_view_finalize;
  widget_class->map = rk_markdown_view_map;

  signals[SIGNAL_TRACE_ACTIVATED] =
    g_signal_new ("trace-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);

  source_quark = g_quark_from_static_string ("rk-md-source");
  kind_quark = g_quark_from_static_string ("rk-md-kind");
  shape_quark = g_quark_from_static_string ("rk-md-shape");

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-markdown");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
rk_markdown_view_init (RkMarkdownView *self)
{
  self->text = g_string_new (NULL);
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Message"), -1);
}

GtkWidget *
rk_markdown_view_new (void)
{
  return g_object_new (RK_TYPE_MARKDOWN_VIEW, NULL);
}
