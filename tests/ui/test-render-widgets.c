/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-render-widgets.c — the widgets of the chat list, under Xvfb: the
 * markdown view's widget tree and its streaming (final blocks never rebuilt),
 * the approval bar's decisions, output capping, errors and limits, figures
 * read beneath the workspace, file cards from profiles, the chat view. */
#include "config.h"

#include <math.h>

#include <string.h>
#include <unistd.h>
#include <cairo.h>
#include <glib/gstdio.h>
#include <adwaita.h>

#include "rk-agent.h"
#include "rk-analysis-button.h"
#include "rk-conversation-file-private.h"
#include "rk-markdown.h"
#include "rk-transcript.h"
#include "rk-approval-bar.h"
#include "rk-chat-view.h"
#include "rk-code-block.h"
#include "rk-diff-view.h"
#include "rk-entry-row.h"
#include "rk-error-view.h"
#include "rk-figure-view.h"
#include "rk-file-card.h"
#include "rk-file-chip.h"
#include "rk-markdown-view.h"
#include "rk-output-view.h"
#include "rk-ui-test-util.h"

/* -- helpers ---------------------------------------------------------------- */

static guint
n_children (GtkWidget *w)
{
  guint n = 0;

  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    n++;
  return n;
}

static GtkWidget *
nth_child (GtkWidget *w,
           guint      n)
{
  GtkWidget *c = gtk_widget_get_first_child (w);

  while (c != NULL && n-- > 0)
    c = gtk_widget_get_next_sibling (c);
  return c;
}

/* The first button beneath @w whose label is @label (mnemonic included). */
static guint
count_type (GtkWidget *w,
            GType      type)
{
  guint n = G_TYPE_CHECK_INSTANCE_TYPE (w, type) ? 1 : 0;

  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    n += count_type (c, type);
  return n;
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

static gboolean
wait_for (gboolean *flag,
          guint     ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (!*flag && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  return *flag;
}

static void
set_flag_cb (gpointer  object,
             gboolean *flag)
{
  *flag = TRUE;
}

/* The rows' controls activate the chat view's actions: a stand-in "chat"
 * group records the last activation, its parameter and how many there were. */
typedef struct
{
  char     *name;
  char     *code;    /* the string parameter, or the cell of run-again */
  gboolean  fresh;   /* run-again's fresh kernel */
  guint     count;
} Caught;

static void
caught_cb (GSimpleAction *action,
           GVariant      *parameter,
           Caught        *c)
{
  g_free (c->name);
  c->name = g_strdup (g_action_get_name (G_ACTION (action)));
  g_clear_pointer (&c->code, g_free);
  if (parameter != NULL && g_variant_is_of_type (parameter, G_VARIANT_TYPE_STRING))
    c->code = g_variant_dup_string (parameter, NULL);
  else if (parameter != NULL)
    g_variant_get (parameter, "(sb)", &c->code, &c->fresh);
  c->count++;
}

static void
catch_chat_actions (GtkWidget *widget,
                    Caught    *c)
{
  static const struct { const char *name, *type; } actions[] = {
    { "approve", NULL }, { "edit", "s" }, { "skip", NULL }, { "stop", NULL }, { "retry", NULL },
    { "run-again", "(sb)" }, { "cancel-profile", "s" }, { "run-code", "s" },
  };
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();

  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      g_autoptr(GSimpleAction) action =
        g_simple_action_new (actions[i].name, actions[i].type ? G_VARIANT_TYPE (actions[i].type) : NULL);

      g_signal_connect (action, "activate", G_CALLBACK (caught_cb), c);
      g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (action));
    }
  gtk_widget_insert_action_group (widget, "chat", G_ACTION_GROUP (group));
}

static void
caught_clear (Caught *c)
{
  g_clear_pointer (&c->name, g_free);
  g_clear_pointer (&c->code, g_free);
}

/* -- markdown ---------------------------------------------------------------- */

static void
test_markdown_tree (void)
{
  GtkWidget *view = g_object_ref_sink (rk_markdown_view_new ());
  GtkWidget *box = rk_markdown_view_get_box (RK_MARKDOWN_VIEW (view));
  GtkWidget *w;

  rk_markdown_view_set_text (RK_MARKDOWN_VIEW (view),
                             "# Result\n\n"
                             "North sold **more**, see [docs](https://example.org).\n\n"
                             "1. first\n2. second\n   - nested\n\n"
                             "| a | b |\n|---|--:|\n| 1 | 2 |\n| 3 | 4 |\n\n"
                             "```python\nprint('hi')\n```\n\n"
                             "> quoted\n\n---\n");
  g_assert_cmpuint (n_children (box), ==, 7);

  w = nth_child (box, 0);
  g_assert_true (GTK_IS_LABEL (w));
  g_assert_true (gtk_widget_has_css_class (w, "title-2"));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (w)), ==, "Result");

  w = nth_child (box, 1);
  g_assert_true (GTK_IS_LABEL (w));
  g_assert_true (gtk_label_get_selectable (GTK_LABEL (w)));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (w)), ==, "North sold more, see docs.");
  /* A label with a link takes focus, so the link is reachable by keyboard. */
  g_assert_true (gtk_widget_get_focusable (w));
  g_assert_false (gtk_widget_get_focusable (nth_child (box, 0)));

  /* The ordered list: two items, markers 1. and 2., a nested bullet list. */
  w = nth_child (box, 2);
  g_assert_true (GTK_IS_BOX (w));
  g_assert_cmpuint (n_children (w), ==, 2);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_widget_get_first_child (nth_child (w, 0)))), ==, "1.");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_widget_get_first_child (nth_child (w, 1)))), ==, "2.");
  {
    GtkWidget *content = gtk_widget_get_last_child (nth_child (w, 1));
    GtkWidget *nested = nth_child (content, 1);
    g_assert_true (GTK_IS_BOX (nested));
    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_widget_get_first_child (nth_child (nested, 0)))), ==, "•");
  }

  /* The table: a grid of 3 rows × 2 columns, right-aligned second column. */
  w = rk_ui_test_find_type (nth_child (box, 3), GTK_TYPE_GRID);
  g_assert_nonnull (w);
  g_assert_cmpuint (count_type (w, GTK_TYPE_LABEL), ==, 6);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (w), 1, 2))), ==, "4");
  g_assert_cmpfloat (gtk_label_get_xalign (GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (w), 1, 1))), ==, 1.0);
  g_assert_true (gtk_widget_has_css_class (gtk_grid_get_child_at (GTK_GRID (w), 0, 0), "heading"));

  w = nth_child (box, 4);
  g_assert_true (RK_IS_CODE_BLOCK (w));
  {
    g_autofree char *code = rk_code_block_get_code (RK_CODE_BLOCK (w));
    g_assert_cmpstr (code, ==, "print('hi')");
    g_assert_false (rk_code_block_get_editable (RK_CODE_BLOCK (w)));
  }
  g_assert_true (GTK_IS_BOX (nth_child (box, 5)));
  g_assert_true (gtk_widget_has_css_class (nth_child (box, 5), "rk-md-quote"));
  g_assert_true (GTK_IS_SEPARATOR (nth_child (box, 6)));

  /* Escapes and bidi overrides in a model's text are not passed on. */
  rk_markdown_view_set_text (RK_MARKDOWN_VIEW (view), "a \033[1mb\033[0m \xe2\x80\xae" "c\r\nd");
  g_assert_cmpstr (rk_markdown_view_get_text (RK_MARKDOWN_VIEW (view)), ==, "a b c\nd");

  /* Text that does not extend the old one is rendered afresh. */
  rk_markdown_view_set_text (RK_MARKDOWN_VIEW (view), "Just *one* line.");
  g_assert_cmpuint (n_children (box), ==, 1);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (nth_child (box, 0))), ==, "Just <i>one</i> line.");
  g_object_unref (view);
}

static const char *stream_doc =
  "# Sales report\n\n"
  "The north region sold **more** than the south in every month of the first half, "
  "with the widest gap in June. Here is how the months compare:\n\n"
  "- January: north 1,200, south 980\n"
  "- February: north 1,350, south 1,010\n"
  "- March: north 1,510, south 1,190\n\n"
  "| month | north | south |\n|---|--:|--:|\n| Jan | 1,200 | 980 |\n| Feb | 1,350 | 1,010 |\n\n"
  "```python\nby_month = df.groupby('month').sum()\nby_month.plot()\n```\n\n"
  "> The numbers are in euros.\n\n"
  "1. Check the *outliers*\n2. Compare with last year\n\n"
  "That is all for `sales.csv`.";

/* Streaming in tokens of a few bytes: once a block is final its widget is
 * never replaced or rebuilt, and the whole stream builds about one widget
 * per block (plus the few blocks whose kind changes as they grow). */
static void
test_markdown_streaming (void)
{
  GtkWidget *view = g_object_ref_sink (rk_markdown_view_new ());
  GtkWidget *box = rk_markdown_view_get_box (RK_MARKDOWN_VIEW (view));
  gsize len = strlen (stream_doc);
  GPtrArray *final_widgets = g_ptr_array_new ();
  g_autoptr(GPtrArray) nodes = rk_markdown_parse (stream_doc, -1);
  guint n_tokens = 0, built_before;
  gint64 start, total = 0;

  for (gsize cut = 0; cut <= len; cut += 3)
    {
      g_autofree char *prefix = g_strndup (stream_doc, MIN (cut, len));
      guint n_final;

      start = g_get_monotonic_time ();
      rk_markdown_view_set_text (RK_MARKDOWN_VIEW (view), prefix);
      total += g_get_monotonic_time () - start;
      n_tokens++;

      n_final = rk_markdown_view_get_n_final (RK_MARKDOWN_VIEW (view));
      g_assert_cmpuint (n_final, >=, final_widgets->len);
      /* Blocks final before are still the very same widgets. */
      for (guint i = 0; i < final_widgets->len; i++)
        g_assert_true (nth_child (box, i) == final_widgets->pdata[i]);
      for (guint i = final_widgets->len; i < n_final; i++)
        g_ptr_array_add (final_widgets, nth_child (box, i));
    }
  rk_markdown_view_set_text (RK_MARKDOWN_VIEW (view), stream_doc);

  g_assert_cmpuint (n_children (box), ==, nodes->len);
  /* The last line is not complete: the last two blocks stay open. */
  g_assert_cmpuint (final_widgets->len, ==, nodes->len - 2);
  /* Top-level blocks and their nested blocks: built about once each. */
  built_before = rk_markdown_view_get_n_built (RK_MARKDOWN_VIEW (view));
  g_test_message ("%u tokens, %u block widgets built for %u blocks, %.1f µs a token",
                  n_tokens, built_before, nodes->len, (double) total / n_tokens);
  g_assert_cmpuint (built_before, <=, 3 * nodes->len + 12);

  g_ptr_array_unref (final_widgets);
  g_object_unref (view);
}

/* The cost of a token does not grow with the message: only the open tail
 * is parsed again. Reported, not asserted (no timed asserts in tests). */
static void
test_markdown_streaming_cost (void)
{
  GtkWidget *view = g_object_ref_sink (rk_markdown_view_new ());
  g_autoptr(GString) doc = g_string_new (NULL);
  gint64 first = 0, last = 0;
  guint n_first = 0, n_last = 0, built;
  gsize len;

  for (guint i = 0; i < 30; i++)
    g_string_append (doc, stream_doc), g_string_append (doc, "\n\n");
  len = doc->len;
  for (gsize cut = 4; cut <= len; cut += 4)
    {
      char saved = doc->str[cut];
      gint64 start;

      doc->str[cut] = '\0';
      start = g_get_monotonic_time ();
      rk_markdown_view_set_text (RK_MARKDOWN_VIEW (view), doc->str);
      if (cut < len / 10)
        first += g_get_monotonic_time () - start, n_first++;
      else if (cut > len - len / 10)
        last += g_get_monotonic_time () - start, n_last++;
      doc->str[cut] = saved;
    }
  built = rk_markdown_view_get_n_built (RK_MARKDOWN_VIEW (view));
  g_test_message ("%" G_GSIZE_FORMAT " bytes in 4-byte tokens: %.1f µs a token in the first tenth, %.1f µs in the last; "
                  "%u block widgets built for %u final blocks",
                  len, (double) first / MAX (n_first, 1), (double) last / MAX (n_last, 1),
                  built, rk_markdown_view_get_n_final (RK_MARKDOWN_VIEW (view)));
  /* Every top-level block was built about once, not once a token. */
  g_assert_cmpuint (built, <, 4 * (rk_markdown_view_get_n_final (RK_MARKDOWN_VIEW (view)) + 1) + 40);
  g_object_unref (view);
}

static void
test_markdown_entry (void)
{
  g_autoptr(RkTranscript) transcript = rk_transcript_new ();
  GtkWidget *view = g_object_ref_sink (rk_markdown_view_new ());
  GtkWidget *box = rk_markdown_view_get_box (RK_MARKDOWN_VIEW (view));
  guint id = rk_transcript_add_assistant (transcript, "Hello");
  RkTranscriptEntry *entry = rk_transcript_lookup (transcript, id);

  rk_markdown_view_set_entry (RK_MARKDOWN_VIEW (view), entry);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (nth_child (box, 0))), ==, "Hello");
  rk_transcript_append_text (transcript, id, " **world**\n\n- a");
  /* Not mapped: the change waits for a flush (or a frame). */
  rk_markdown_view_flush (RK_MARKDOWN_VIEW (view));
  g_assert_cmpstr (rk_markdown_view_get_text (RK_MARKDOWN_VIEW (view)), ==, "Hello **world**\n\n- a");
  g_assert_cmpuint (n_children (box), ==, 2);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (nth_child (box, 0))), ==, "Hello <b>world</b>");
  rk_markdown_view_set_entry (RK_MARKDOWN_VIEW (view), NULL);
  g_object_unref (view);
}

/* Text streamed in since the last frame is not lost when the view renders
 * again for another reason: the answer's trace index (or the Python fold)
 * arriving before the next frame left "It " of "It is set." on screen. */
static void
test_markdown_entry_rerender (void)
{
  g_autoptr(RkTranscript) transcript = rk_transcript_new ();
  GtkWidget *view = g_object_ref_sink (rk_markdown_view_new ());
  GtkWidget *box = rk_markdown_view_get_box (RK_MARKDOWN_VIEW (view));
  guint id = rk_transcript_add_assistant (transcript, "It ");
  RkTranscriptEntry *entry = rk_transcript_lookup (transcript, id);

  rk_markdown_view_set_entry (RK_MARKDOWN_VIEW (view), entry);
  g_assert_cmpstr (rk_markdown_view_get_text (RK_MARKDOWN_VIEW (view)), ==, "It ");
  /* The rest streams in; no frame has come yet. */
  rk_transcript_append_text (transcript, id, "is ");
  rk_transcript_append_text (transcript, id, "set.");
  rk_transcript_add_answer (transcript, "It is set.");
  rk_markdown_view_set_trace_index (RK_MARKDOWN_VIEW (view), rk_trace_index_new ());
  g_assert_cmpstr (rk_markdown_view_get_text (RK_MARKDOWN_VIEW (view)), ==, "It is set.");
  rk_markdown_view_flush (RK_MARKDOWN_VIEW (view));
  g_assert_cmpstr (rk_markdown_view_get_text (RK_MARKDOWN_VIEW (view)), ==, "It is set.");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (nth_child (box, 0))), ==, "It is set.");

  /* The same when the fold of Python changes. */
  rk_transcript_append_text (transcript, id, " Done.");
  rk_markdown_view_set_fold_python (RK_MARKDOWN_VIEW (view), TRUE);
  g_assert_cmpstr (rk_markdown_view_get_text (RK_MARKDOWN_VIEW (view)), ==, "It is set. Done.");
  rk_markdown_view_set_entry (RK_MARKDOWN_VIEW (view), NULL);
  g_object_unref (view);
}

/* -- code, approval, diff ---------------------------------------------------- */

static void
test_code_block (void)
{
  GtkWidget *block = g_object_ref_sink (rk_code_block_new ("py"));
  g_autofree char *a = NULL, *b = NULL;

  g_assert_cmpstr (rk_code_block_get_language (RK_CODE_BLOCK (block)), ==, "py");
  rk_code_block_set_code (RK_CODE_BLOCK (block), "x = 1\n");
  rk_code_block_set_code (RK_CODE_BLOCK (block), "x = 1\ny = 2\n");
  a = rk_code_block_get_code (RK_CODE_BLOCK (block));
  g_assert_cmpstr (a, ==, "x = 1\ny = 2\n");
  rk_code_block_set_code (RK_CODE_BLOCK (block), "z");
  b = rk_code_block_get_code (RK_CODE_BLOCK (block));
  g_assert_cmpstr (b, ==, "z");
  /* Copy puts the code on the clipboard. */
  {
    GtkWidget *copy = rk_ui_test_find_type (block, GTK_TYPE_BUTTON);
    GdkClipboard *clipboard = gtk_widget_get_clipboard (block);
    GdkContentProvider *content;
    GValue value = G_VALUE_INIT;

    g_signal_emit_by_name (copy, "clicked");
    content = gdk_clipboard_get_content (clipboard);
    g_assert_nonnull (content);
    g_value_init (&value, G_TYPE_STRING);
    g_assert_true (gdk_content_provider_get_value (content, &value, NULL));
    g_assert_cmpstr (g_value_get_string (&value), ==, "z");
    g_value_unset (&value);
    g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (copy)), ==, "object-select-symbolic");
  }
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (rk_code_block_get_source_view (RK_CODE_BLOCK (block)))));
  rk_code_block_set_editable (RK_CODE_BLOCK (block), TRUE);
  g_assert_true (gtk_text_view_get_editable (GTK_TEXT_VIEW (rk_code_block_get_source_view (RK_CODE_BLOCK (block)))));
  g_object_unref (block);
}

static void
test_approval_bar (void)
{
  GtkWidget *box = g_object_ref_sink (gtk_box_new (GTK_ORIENTATION_VERTICAL, 0));
  GtkWidget *block = rk_code_block_new ("python");
  GtkWidget *bar = rk_approval_bar_new ();
  GtkWidget *run, *edit, *skip, *sw;
  Caught d = { 0 };
  gboolean auto_approve = TRUE;

  gtk_box_append (GTK_BOX (box), block);
  gtk_box_append (GTK_BOX (box), bar);
  rk_code_block_set_code (RK_CODE_BLOCK (block), "print(1)\n");
  rk_approval_bar_set_code_block (RK_APPROVAL_BAR (bar), RK_CODE_BLOCK (block));
  catch_chat_actions (box, &d);
  run = rk_ui_test_find_button (bar, "_Run");
  edit = rk_ui_test_find_button (bar, "_Edit");
  skip = rk_ui_test_find_button (bar, "_Skip");
  g_assert_nonnull (run);
  g_assert_nonnull (edit);
  g_assert_nonnull (skip);
  g_assert_true (gtk_widget_get_focusable (run) && gtk_widget_get_focusable (edit) && gtk_widget_get_focusable (skip));

  g_signal_emit_by_name (run, "clicked");
  g_assert_cmpuint (d.count, ==, 1);
  g_assert_cmpstr (d.name, ==, "approve");
  g_assert_null (d.code);

  /* Edit: the code becomes editable; Run then runs the edited code. */
  g_signal_emit_by_name (edit, "clicked");
  g_assert_true (rk_approval_bar_get_editing (RK_APPROVAL_BAR (bar)));
  g_assert_true (rk_code_block_get_editable (RK_CODE_BLOCK (block)));
  rk_code_block_set_code (RK_CODE_BLOCK (block), "print(2)\n");
  g_signal_emit_by_name (run, "clicked");
  g_assert_cmpuint (d.count, ==, 2);
  g_assert_cmpstr (d.name, ==, "edit");
  g_assert_cmpstr (d.code, ==, "print(2)\n");
  g_assert_false (rk_code_block_get_editable (RK_CODE_BLOCK (block)));
  g_assert_false (rk_approval_bar_get_editing (RK_APPROVAL_BAR (bar)));

  /* The cell shows the proposal again (the edit is recorded below it). */
  {
    g_autofree char *code = rk_code_block_get_code (RK_CODE_BLOCK (block));
    g_assert_cmpstr (code, ==, "print(1)\n");
  }

  /* Edit then cancel: the proposed code comes back, nothing is decided. */
  g_signal_emit_by_name (edit, "clicked");
  rk_code_block_set_code (RK_CODE_BLOCK (block), "oops\n");
  g_signal_emit_by_name (edit, "clicked");
  g_assert_cmpuint (d.count, ==, 2);
  {
    g_autofree char *code = rk_code_block_get_code (RK_CODE_BLOCK (block));
    g_assert_cmpstr (code, ==, "print(1)\n");
  }

  g_signal_emit_by_name (skip, "clicked");
  g_assert_cmpuint (d.count, ==, 3);
  g_assert_cmpstr (d.name, ==, "skip");

  /* The switch is the "auto-approve" property, both ways. */
  sw = rk_ui_test_find_type (bar, GTK_TYPE_SWITCH);
  g_object_get (bar, "auto-approve", &auto_approve, NULL);
  g_assert_false (auto_approve);
  gtk_switch_set_active (GTK_SWITCH (sw), TRUE);
  g_object_get (bar, "auto-approve", &auto_approve, NULL);
  g_assert_true (auto_approve);
  g_object_set (bar, "auto-approve", FALSE, NULL);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (sw)));

  caught_clear (&d);
  g_object_unref (box);
}

static void
test_diff_view (void)
{
  GtkWidget *view = g_object_ref_sink (rk_diff_view_new ());
  g_autofree char *text = NULL;

  rk_diff_view_set_texts (RK_DIFF_VIEW (view), "a\nb\nc\n", "a\nB\nc\nd\n");
  g_assert_cmpuint (rk_diff_view_get_n_inserted (RK_DIFF_VIEW (view)), ==, 2);
  g_assert_cmpuint (rk_diff_view_get_n_deleted (RK_DIFF_VIEW (view)), ==, 1);
  text = rk_diff_view_get_text (RK_DIFF_VIEW (view));
  g_assert_cmpstr (text, ==, "@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d");
  g_object_unref (view);
}

/* -- output and errors --------------------------------------------------------- */

static void
test_output_view (void)
{
  GtkWidget *view = g_object_ref_sink (rk_output_view_new ());
  g_autoptr(GString) many = g_string_new (NULL);
  g_autoptr(RkTranscript) transcript = rk_transcript_new ();
  GtkWidget *more, *stop, *label;
  Caught stopped = { 0 };
  guint id;

  for (guint i = 0; i < 100; i++)
    g_string_append_printf (many, "line %u\n", i);
  rk_output_view_set_text (RK_OUTPUT_VIEW (view), many->str, FALSE);
  g_assert_true (rk_output_view_get_capped (RK_OUTPUT_VIEW (view)));
  g_assert_true (g_str_has_suffix (rk_output_view_get_shown (RK_OUTPUT_VIEW (view)), "line 19"));
  more = rk_ui_test_find_button (view, "Show _more");
  g_assert_true (gtk_widget_get_visible (more));
  g_signal_emit_by_name (more, "clicked");
  g_assert_false (rk_output_view_get_capped (RK_OUTPUT_VIEW (view)));
  g_assert_true (g_str_has_suffix (rk_output_view_get_shown (RK_OUTPUT_VIEW (view)), "line 99"));
  g_assert_false (gtk_widget_get_visible (more));

  /* Past the expanded cap, the view says it shows only part. */
  {
    g_autofree char *big = g_strnfill (300 * 1024, 'x');
    GtkWidget *note;

    rk_output_view_set_text (RK_OUTPUT_VIEW (view), big, FALSE);
    g_signal_emit_by_name (rk_ui_test_find_button (view, "Show _more"), "clicked");
    g_assert_true (rk_output_view_get_capped (RK_OUTPUT_VIEW (view)));
    g_assert_cmpuint (strlen (rk_output_view_get_shown (RK_OUTPUT_VIEW (view))), ==, RK_OUTPUT_VIEW_MAX_BYTES);
    note = rk_ui_test_find_class (view, "caption");
    g_assert_nonnull (note);
    g_assert_true (gtk_widget_get_visible (note));
  }

  /* Terminal escapes from a cell show as the plain text they stand for. */
  rk_output_view_set_text (RK_OUTPUT_VIEW (view), "\033[31mred\033[0m 50%\r100%\n", FALSE);
  g_assert_cmpstr (rk_output_view_get_shown (RK_OUTPUT_VIEW (view)), ==, "red 50%\n100%");

  /* A stderr stream entry, growing. */
  id = rk_transcript_add_stream (transcript, "c1", RK_STREAM_STDERR, "warn");
  rk_output_view_set_entry (RK_OUTPUT_VIEW (view), rk_transcript_lookup (transcript, id));
  label = rk_ui_test_find_class (view, "rk-output");
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_has_css_class (label, "rk-stderr"));
  rk_transcript_add_stream (transcript, "c1", RK_STREAM_STDERR, "ing\n");
  g_assert_cmpstr (rk_output_view_get_shown (RK_OUTPUT_VIEW (view)), ==, "warning");

  /* Running: Stop shows and signals. */
  stop = rk_ui_test_find_button (view, "_Stop");
  g_assert_false (gtk_widget_get_visible (gtk_widget_get_parent (stop)));
  rk_output_view_set_running (RK_OUTPUT_VIEW (view), TRUE, g_get_monotonic_time () - 65 * G_USEC_PER_SEC);
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_parent (stop)));
  catch_chat_actions (view, &stopped);
  g_signal_emit_by_name (stop, "clicked");
  g_assert_cmpstr (stopped.name, ==, "stop");
  caught_clear (&stopped);
  rk_output_view_set_running (RK_OUTPUT_VIEW (view), FALSE, 0);
  rk_output_view_set_entry (RK_OUTPUT_VIEW (view), NULL);
  g_object_unref (view);
}

static void
test_error_view (void)
{
  g_autoptr(RkTranscript) transcript = rk_transcript_new ();
  GtkWidget *view = g_object_ref_sink (rk_error_view_new ());
  GtkWidget *retry;
  Caught retried = { 0 };
  guint id;

  id = rk_transcript_add_error (transcript, "c1", "KeyError", "'amount'", "Traceback ...\nKeyError: 'amount'",
                                RK_SANDBOX_LIMIT_NONE, 0);
  rk_error_view_set_entry (RK_ERROR_VIEW (view), rk_transcript_lookup (transcript, id));
  g_assert_cmpstr (rk_error_view_get_message (RK_ERROR_VIEW (view)), ==, "KeyError: 'amount'");
  g_assert_cmpint (rk_error_view_get_limit (RK_ERROR_VIEW (view)), ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_true (gtk_widget_get_visible (rk_ui_test_find_type (view, GTK_TYPE_EXPANDER)));
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (rk_ui_test_find_type (view, GTK_TYPE_EXPANDER))));
  retry = rk_ui_test_find_button (view, "_Retry");
  g_assert_false (gtk_widget_get_visible (retry));

  /* A sandbox limit, by the structured key the kernel gave, whatever the
   * language of its sentence. */
  id = rk_transcript_add_error (transcript, "c2", "SandboxLimit",
                                "Die Zelle wurde angehalten, weil sie mehr Speicher brauchte, als die Sandbox erlaubt.",
                                NULL, RK_SANDBOX_LIMIT_MEMORY, G_GUINT64_CONSTANT (2) << 30);
  rk_error_view_set_entry (RK_ERROR_VIEW (view), rk_transcript_lookup (transcript, id));
  g_assert_cmpint (rk_error_view_get_limit (RK_ERROR_VIEW (view)), ==, RK_SANDBOX_LIMIT_MEMORY);
  g_assert_true (g_str_has_prefix (rk_error_view_get_message (RK_ERROR_VIEW (view)),
                                   "The cell used more memory than allowed"));
  /* An error nothing named: the exception's name says it. */
  id = rk_transcript_add_error (transcript, "c2", "CPUTimeLimitExceeded", "…", "", RK_SANDBOX_LIMIT_NONE, 0);
  rk_error_view_set_entry (RK_ERROR_VIEW (view), rk_transcript_lookup (transcript, id));
  g_assert_cmpint (rk_error_view_get_limit (RK_ERROR_VIEW (view)), ==, RK_SANDBOX_LIMIT_CPU);

  /* A failed model request: the sentence and Retry. */
  id = rk_transcript_add_note (transcript, "error", "The model server could not be reached.");
  rk_error_view_set_entry (RK_ERROR_VIEW (view), rk_transcript_lookup (transcript, id));
  g_assert_cmpstr (rk_error_view_get_message (RK_ERROR_VIEW (view)), ==, "The model server could not be reached.");
  g_assert_true (gtk_widget_get_visible (retry));
  catch_chat_actions (view, &retried);
  g_signal_emit_by_name (retry, "clicked");
  g_assert_cmpstr (retried.name, ==, "retry");
  caught_clear (&retried);
  g_assert_false (gtk_widget_get_sensitive (retry));

  /* An expired session: a status line, no Retry. */
  id = rk_transcript_add_note (transcript, "session-expired", "The session ended.");
  rk_error_view_set_entry (RK_ERROR_VIEW (view), rk_transcript_lookup (transcript, id));
  g_assert_false (gtk_widget_get_visible (retry));
  g_assert_true (gtk_widget_has_css_class (view, "rk-status-line"));
  g_object_unref (view);
}

/* The one-click fix of a limit the user sets: twice the setting, from the
 * kernel's structured limit whatever the language; pressing it sets the key
 * and asks for the cell to run again. */
static void
test_error_view_raise (void)
{
  g_autoptr(RkTranscript) transcript = rk_transcript_new ();
  g_autoptr(GSettings) settings = g_settings_new ("io.github.reckon.Reckon");
  GtkWidget *view = g_object_ref_sink (rk_error_view_new ());
  RkErrorView *ev = RK_ERROR_VIEW (view);
  Caught again = { 0 };
  GtkWidget *button;
  guint mem, disk, time_id, done_id;

  g_settings_set_uint (settings, "memory-limit", 2048);
  g_settings_set_uint (settings, "disk-limit", 1024);
  g_settings_set_uint (settings, "cell-time-limit", 120);
  g_settings_set_enum (settings, "approval-policy", 0);
  catch_chat_actions (view, &again);

  mem = rk_transcript_add_error (transcript, "c1", "MemoryError",
                                 "la cellule avait besoin de plus de mémoire", "Traceback …\nMemoryError",
                                 RK_SANDBOX_LIMIT_MEMORY, G_GUINT64_CONSTANT (2) << 30);
  disk = rk_transcript_add_error (transcript, "c2", "OSError", "[Errno 28] Kein Speicherplatz", "Traceback …",
                                  RK_SANDBOX_LIMIT_DISK, G_GUINT64_CONSTANT (1) << 30);
  time_id = rk_transcript_add_error (transcript, "c3", "TimeLimitExceeded", "…", "", RK_SANDBOX_LIMIT_TIME, 120);
  done_id = rk_transcript_add_error (transcript, "c4", "OSError", "…", "", RK_SANDBOX_LIMIT_FILES, 0);

  rk_error_view_set_entry (ev, rk_transcript_lookup (transcript, mem));
  g_assert_cmpstr (rk_error_view_get_message (ev), ==, "The cell used more memory than allowed (2.0\u00a0GiB).");
  g_assert_cmpstr (rk_error_view_get_raise_label (ev), ==, "Raise the memory limit to 4.0\u00a0GiB and run again");
  button = rk_ui_test_find_button (view, "Raise the memory limit to 4.0\u00a0GiB and run again");
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpuint (g_settings_get_uint (settings, "memory-limit"), ==, 4096);
  g_assert_cmpstr (again.code, ==, "c1");
  g_assert_true (again.fresh);
  g_assert_false (gtk_widget_get_sensitive (button));
  /* Shown again (a recycled row): the size is the one it failed at, and
   * there is nothing left to raise. */
  rk_error_view_set_entry (ev, rk_transcript_lookup (transcript, mem));
  g_assert_cmpstr (rk_error_view_get_message (ev), ==, "The cell used more memory than allowed (2.0\u00a0GiB).");
  g_assert_null (rk_error_view_get_raise_label (ev));

  rk_error_view_set_entry (ev, rk_transcript_lookup (transcript, disk));
  g_assert_cmpint (rk_error_view_get_limit (ev), ==, RK_SANDBOX_LIMIT_DISK);
  g_assert_cmpstr (rk_error_view_get_raise_label (ev), ==, "Raise the disk limit to 2.0\u00a0GiB and run again");

  rk_error_view_set_entry (ev, rk_transcript_lookup (transcript, time_id));
  g_assert_cmpstr (rk_error_view_get_message (ev), ==, "The cell ran longer than allowed (120 seconds).");
  g_assert_cmpstr (rk_error_view_get_raise_label (ev), ==, "Raise the time limit to 4 minutes and run again");
  button = rk_ui_test_find_button (view, "Raise the time limit to 4 minutes and run again");
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpuint (g_settings_get_uint (settings, "cell-time-limit"), ==, 240);
  g_assert_cmpstr (again.code, ==, "c3");
  g_assert_false (again.fresh);

  /* No setting raises the file count; none is offered when code never runs. */
  rk_error_view_set_entry (ev, rk_transcript_lookup (transcript, done_id));
  g_assert_null (rk_error_view_get_raise_label (ev));
  g_settings_set_enum (settings, "approval-policy", 2);
  rk_error_view_set_entry (ev, rk_transcript_lookup (transcript, disk));
  g_assert_null (rk_error_view_get_raise_label (ev));
  g_settings_set_enum (settings, "approval-policy", 0);

  /* A kernel that died at a limit: the SandboxLimit entry after it offers
   * the fix, not this bare one too. */
  done_id = rk_transcript_add_error (transcript, "c5", "KernelDied", "…", "", RK_SANDBOX_LIMIT_DISK, G_GUINT64_CONSTANT (1) << 30);
  rk_error_view_set_entry (ev, rk_transcript_lookup (transcript, done_id));
  g_assert_cmpint (rk_error_view_get_limit (ev), ==, RK_SANDBOX_LIMIT_NONE);
  g_assert_null (rk_error_view_get_raise_label (ev));

  /* At the key's maximum: nothing to offer. */
  g_settings_set_uint (settings, "disk-limit", 1048576);
  rk_error_view_set_entry (ev, rk_transcript_lookup (transcript, disk));
  g_assert_null (rk_error_view_get_raise_label (ev));
  g_settings_reset (settings, "disk-limit");
  g_settings_reset (settings, "memory-limit");
  g_settings_reset (settings, "cell-time-limit");

  caught_clear (&again);
  g_object_unref (view);
}

/* -- artifacts ------------------------------------------------------------------ */

static char *
make_workspace (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("rk-render-XXXXXX", &error);
  g_autofree char *png = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *link = NULL;
  cairo_surface_t *surface;
  cairo_t *cr;

  g_assert_no_error (error);
  png = g_build_filename (dir, "fig.png", NULL);
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 64, 48);
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 0.2, 0.5, 0.9);
  cairo_paint (cr);
  cairo_destroy (cr);
  g_assert_cmpint (cairo_surface_write_to_png (surface, png), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy (surface);
  csv = g_build_filename (dir, "out.csv", NULL);
  g_assert_true (g_file_set_contents (csv, "a,b\n1,2\n", -1, NULL));
  /* A symlink out of the workspace must not be followed. */
  link = g_build_filename (dir, "escape.png", NULL);
  g_assert_cmpint (symlink ("/etc/passwd", link), ==, 0);
  return dir;
}

static void
remove_workspace (const char *dir)
{
  const char *names[] = { "fig.png", "out.csv", "escape.png" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *p = g_build_filename (dir, names[i], NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}

static void
test_figure_view (void)
{
  g_autofree char *ws = make_workspace ();
  g_autoptr(RkWorkspace) handle = rk_workspace_open (ws, NULL);
  GtkWidget *view = g_object_ref_sink (rk_figure_view_new ());
  gboolean loaded = FALSE;

  g_signal_connect (view, "loaded", G_CALLBACK (set_flag_cb), &loaded);
  rk_figure_view_load (RK_FIGURE_VIEW (view), handle, "fig.png", "A figure");
  g_assert_true (wait_for (&loaded, 5000));
  g_assert_null (rk_figure_view_get_error (RK_FIGURE_VIEW (view)));
  g_assert_nonnull (rk_figure_view_get_paintable (RK_FIGURE_VIEW (view)));
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (rk_figure_view_get_paintable (RK_FIGURE_VIEW (view))), ==, 64);

  /* Open shows the figure in a window of its own. */
  {
    GtkWidget *open = rk_ui_test_find_type (view, GTK_TYPE_BUTTON);
    GListModel *toplevels = gtk_window_get_toplevels ();
    guint before = g_list_model_get_n_items (toplevels);

    g_assert_true (gtk_widget_get_visible (open));
    g_signal_emit_by_name (open, "clicked");
    g_assert_cmpuint (g_list_model_get_n_items (toplevels), ==, before + 1);
    for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
      {
        g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);
        if (g_str_equal (G_OBJECT_TYPE_NAME (w), "RkFigureViewer"))
          {
            gtk_window_destroy (w);
            break;
          }
      }
    spin (50);
  }

  loaded = FALSE;
  rk_figure_view_load (RK_FIGURE_VIEW (view), handle, "escape.png", NULL);
  g_assert_true (wait_for (&loaded, 5000));
  g_assert_nonnull (rk_figure_view_get_error (RK_FIGURE_VIEW (view)));
  g_assert_null (rk_figure_view_get_paintable (RK_FIGURE_VIEW (view)));

  loaded = FALSE;
  rk_figure_view_load (RK_FIGURE_VIEW (view), handle, "../fig.png", NULL);
  g_assert_true (wait_for (&loaded, 5000));
  g_assert_nonnull (rk_figure_view_get_error (RK_FIGURE_VIEW (view)));

  g_object_unref (view);
  remove_workspace (ws);
}

static void
test_file_chip (void)
{
  g_autofree char *ws = make_workspace ();
  g_autoptr(RkWorkspace) handle = rk_workspace_open (ws, NULL);
  GtkWidget *chip = g_object_ref_sink (rk_file_chip_new ());
  gboolean known = FALSE;

  g_signal_connect (chip, "size-known", G_CALLBACK (set_flag_cb), &known);
  rk_file_chip_set_file (RK_FILE_CHIP (chip), handle, "out.csv", "text/csv", NULL);
  g_assert_cmpstr (rk_file_chip_get_name (RK_FILE_CHIP (chip)), ==, "out.csv");
  g_assert_true (wait_for (&known, 5000));
  g_assert_cmpstr (rk_file_chip_get_size_text (RK_FILE_CHIP (chip)), ==, "8 bytes");

  known = FALSE;
  rk_file_chip_set_file (RK_FILE_CHIP (chip), handle, "escape.png", "image/png", NULL);
  g_assert_true (wait_for (&known, 5000));
  g_assert_cmpstr (rk_file_chip_get_size_text (RK_FILE_CHIP (chip)), ==, "Gone");
  g_object_unref (chip);
  remove_workspace (ws);
}

static const char *profile_json =
  "{\"version\": 1, \"files\": [{\"name\": \"s.csv\", \"size\": 120, \"kind\": \"csv\","
  " \"notes\": [\"Decimal commas were read as points.\"],"
  " \"tables\": [{\"rows\": 1204, \"columns\": 2, \"header\": true,"
  "   \"column_info\": [{\"name\": \"city\", \"type\": \"text\", \"missing\": 1},"
  "                     {\"name\": \"pop\", \"type\": \"integer\", \"missing\": 0}],"
  "   \"head\": [[\"Lyon\", \"1\"]]}]},"
  " {\"name\": \"bad.bin\", \"error\": \"This file is not a spreadsheet: it contains binary data.\"}]}";

static GtkWidget *
label_containing (GtkWidget  *w,
                  const char *text)
{
  if (GTK_IS_LABEL (w) && strstr (gtk_label_get_text (GTK_LABEL (w)), text) != NULL)
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = label_containing (c, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_file_card (void)
{
  GtkWidget *card = g_object_ref_sink (rk_file_card_new ());
  g_autoptr(GPtrArray) profiles = rk_profile_parse (profile_json, strlen (profile_json), NULL);
  GtkWidget *cancel = rk_ui_test_find_button (card, "_Cancel");
  Caught cancelled = { 0 };

  g_assert_nonnull (profiles);
  rk_file_card_set_file (RK_FILE_CARD (card), "s.csv", "Sales 2024.csv");
  g_assert_true (rk_file_card_get_profiling (RK_FILE_CARD (card)));
  /* A file added 75 s ago and still being read says for how long. */
  rk_file_card_set_started (RK_FILE_CARD (card), g_get_real_time () - 75 * G_USEC_PER_SEC);
  g_assert_cmpstr (rk_file_card_get_summary (RK_FILE_CARD (card)), ==, "Reading the file… 1:15");
  g_assert_true (gtk_widget_get_visible (cancel));
  catch_chat_actions (card, &cancelled);
  g_signal_emit_by_name (cancel, "clicked");
  g_assert_cmpstr (cancelled.name, ==, "cancel-profile");
  g_assert_cmpstr (cancelled.code, ==, "s.csv");
  caught_clear (&cancelled);

  /* The profiler's progress: a bar and the percentage; the time and Cancel
   * stay. Out-of-range fractions are clamped, a negative one (or NaN) is
   * "not known". */
  {
    RkFileCard *c = RK_FILE_CARD (card);
    GtkWidget *bar = rk_ui_test_find_type (card, GTK_TYPE_PROGRESS_BAR);

    g_assert_nonnull (bar);
    g_assert_false (gtk_widget_get_visible (bar));
    g_assert_cmpfloat (rk_file_card_get_progress (c), ==, -1);
    rk_file_card_set_progress (c, 0.456);
    g_assert_true (gtk_widget_get_visible (bar));
    g_assert_cmpfloat_with_epsilon (gtk_progress_bar_get_fraction (GTK_PROGRESS_BAR (bar)), 0.456, 1e-9);
    g_assert_cmpstr (rk_file_card_get_summary (c), ==, "Reading the file… 45 % 1:15");
    rk_file_card_set_size (c, 200000000);
    g_assert_cmpstr (rk_file_card_get_summary (c), ==, "Reading the file (200.0\xc2\xa0MB)… 45 % 1:15");
    g_assert_true (gtk_widget_get_visible (cancel));
    rk_file_card_set_progress (c, 7.0);
    g_assert_cmpstr (rk_file_card_get_summary (c), ==, "Reading the file (200.0\xc2\xa0MB)… 100 % 1:15");
    rk_file_card_set_progress (c, NAN);
    g_assert_false (gtk_widget_get_visible (bar));
    g_assert_cmpstr (rk_file_card_get_summary (c), ==, "Reading the file (200.0\xc2\xa0MB)… 1:15");
    rk_file_card_set_progress (c, 0.5);

    /* A big CSV's sample profile: the columns at once, the rows labelled
     * as estimated, with the percentage counted; bar, time and Cancel stay. */
    {
      RkFileProfile *est = rk_file_profile_copy (profiles->pdata[0]);
      RkTableProfile *table = est->tables->pdata[0];
      GtkWidget *columns;

      table->rows = 260000000;
      table->rows_approximate = TRUE;
      est->size = 10000000000;
      g_assert_null (rk_file_card_get_estimate (c));
      rk_file_card_set_estimate (c, est);
      g_assert_nonnull (rk_file_card_get_estimate (c));
      g_assert_true (rk_file_card_get_profiling (c));
      g_assert_true (gtk_widget_get_visible (cancel));
      g_assert_true (gtk_widget_get_visible (bar));
      g_assert_nonnull (strstr (rk_file_card_get_summary (c), "CSV · 10.0\xc2\xa0GB · about "));
      g_assert_nonnull (strstr (rk_file_card_get_summary (c), " rows × 2 columns, counting… 50 % 1:15"));
      columns = label_containing (card, "city");
      g_assert_nonnull (columns);
      g_assert_true (gtk_widget_get_visible (columns));
      rk_file_card_set_progress (c, 0.75);
      g_assert_nonnull (strstr (rk_file_card_get_summary (c), "counting… 75 % 1:15"));
      rk_file_profile_free (est);
    }
    /* Read: no bar, no progress, no estimate. */
    rk_file_card_set_profile (c, profiles->pdata[0]);
    g_assert_null (rk_file_card_get_estimate (c));
    g_assert_null (strstr (rk_file_card_get_summary (c), "counting"));
    g_assert_false (gtk_widget_get_visible (bar));
    g_assert_cmpfloat (rk_file_card_get_progress (c), ==, -1);
  }

  rk_file_card_set_profile (RK_FILE_CARD (card), profiles->pdata[0]);
  g_assert_false (rk_file_card_get_profiling (RK_FILE_CARD (card)));
  g_assert_false (gtk_widget_get_visible (cancel));
  g_assert_nonnull (strstr (rk_file_card_get_summary (RK_FILE_CARD (card)), "CSV"));
  g_assert_nonnull (strstr (rk_file_card_get_summary (RK_FILE_CARD (card)), "rows × 2 columns"));
  /* one row is "1 row", not "1 rows" */
  {
    RkFileProfile *one = rk_file_profile_copy (profiles->pdata[0]);
    RkTableProfile *table = one->tables->pdata[0];

    table->rows = 1;
    table->rows_approximate = FALSE;
    rk_file_card_set_profile (RK_FILE_CARD (card), one);
    g_assert_nonnull (strstr (rk_file_card_get_summary (RK_FILE_CARD (card)), " · 1 row × 2 columns"));
    rk_file_profile_free (one);
    rk_file_card_set_profile (RK_FILE_CARD (card), profiles->pdata[0]);
  }

  /* The Analyse menu shows for a file that was read; its code goes up. */
  {
    GtkWidget *analyse = rk_ui_test_find_type (card, RK_TYPE_ANALYSIS_BUTTON);
    Caught d = { 0 };

    g_assert_nonnull (analyse);
    g_assert_true (gtk_widget_get_visible (analyse));
    /* (on the button: GTK 4.8 does not re-parent the action muxers of
     * widgets already made when a group is added to an ancestor) */
    catch_chat_actions (analyse, &d);
    g_assert_true (gtk_widget_activate_action (analyse, "analysis.run", "s", "summary"));
    g_assert_cmpuint (d.count, ==, 1);
    g_assert_cmpstr (d.name, ==, "run-code");
    g_assert_nonnull (strstr (d.code, "reckon.load('s.csv')"));
    g_assert_nonnull (strstr (d.code, "describe()"));
    caught_clear (&d);

    /* Group By asks first, in a dialog of its own: the text column to group
     * by, the number column (after "Number of rows") and how to combine it. */
    d.count = 0;
    g_assert_true (gtk_widget_activate_action (analyse, "analysis.run", "s", "group-by"));
    g_assert_cmpuint (d.count, ==, 0);
    {
      GListModel *toplevels = gtk_window_get_toplevels ();
      AdwMessageDialog *dialog = NULL;

      for (guint i = 0; i < g_list_model_get_n_items (toplevels) && dialog == NULL; i++)
        {
          g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

          if (ADW_IS_MESSAGE_DIALOG (window))
            dialog = ADW_MESSAGE_DIALOG (window);
        }
      g_assert_nonnull (dialog);
      g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Group By");
      g_assert_true (adw_message_dialog_has_response (dialog, "run"));
      g_assert_nonnull (label_containing (GTK_WIDGET (dialog), "Compute"));
      adw_message_dialog_response (dialog, "run");
      gtk_window_destroy (GTK_WINDOW (dialog));
    }
    g_assert_cmpuint (d.count, ==, 1);
    g_assert_cmpstr (d.name, ==, "run-code");
    g_assert_nonnull (strstr (d.code, "city"));
    g_assert_nonnull (strstr (d.code, "pop"));
    g_assert_nonnull (strstr (d.code, "sum"));
    caught_clear (&d);
  }

  rk_file_card_set_profile (RK_FILE_CARD (card), profiles->pdata[1]);
  g_assert_false (gtk_widget_get_visible (rk_ui_test_find_type (card, RK_TYPE_ANALYSIS_BUTTON)));
  g_assert_cmpstr (rk_file_card_get_summary (RK_FILE_CARD (card)), ==,
                   "This file is not a spreadsheet: it contains binary data.");
  g_assert_true (gtk_widget_has_css_class (card, "rk-file-error"));
  g_object_unref (card);
}

/* A restored conversation: the card reads the profile stored in the entry.
 * A file being read: the card follows its RkConversationFile (progress,
 * then the profile), and the profile the file's entry saved when it is
 * gone. */
static void
test_attachment_row (void)
{
  static const char late_json[] =
    "{\"version\": 1, \"files\": [{\"name\": \"late.csv\", \"size\": 10, \"kind\": \"csv\", \"tables\":"
    " [{\"rows\": 3, \"columns\": 1, \"header\": true, \"column_info\": [{\"name\": \"a\", \"type\": \"integer\","
    " \"missing\": 0}], \"head\": []}]}]}";
  g_autofree char *path = g_build_filename (g_getenv ("RECKON_TEST_DATA"), "sample-transcript.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTranscript) transcript = rk_transcript_load (path, &error);
  g_autoptr(GPtrArray) late = rk_profile_parse (late_json, strlen (late_json), NULL);
  RkConversationFile *file = _rk_conversation_file_new ("late.csv", NULL);
  GtkWidget *row = g_object_ref_sink (rk_entry_row_new ());
  RkFileCard *card;
  guint id;

  g_assert_no_error (error);
  g_assert_nonnull (late);
  rk_entry_row_bind (RK_ENTRY_ROW (row), rk_transcript_get_entry (transcript, 0), NULL);
  card = RK_FILE_CARD (rk_entry_row_get_content (RK_ENTRY_ROW (row)));
  g_assert_false (rk_file_card_get_profiling (card));
  g_assert_nonnull (strstr (rk_file_card_get_summary (card), "rows × 5 columns"));

  rk_entry_row_bind (RK_ENTRY_ROW (row), rk_transcript_get_entry (transcript, 1), NULL);
  card = RK_FILE_CARD (rk_entry_row_get_content (RK_ENTRY_ROW (row)));
  g_assert_true (g_str_has_prefix (rk_file_card_get_summary (card), "This PDF has no text layer"));
  /* Its file gone, the saved profile stays. */
  rk_entry_row_set_file (RK_ENTRY_ROW (row), NULL);
  g_assert_true (g_str_has_prefix (rk_file_card_get_summary (card), "This PDF has no text layer"));

  /* A file still being read, whose profile comes in later. */
  id = rk_transcript_add_attachment (transcript, "late.csv", "Late.csv");
  rk_entry_row_bind (RK_ENTRY_ROW (row), rk_transcript_lookup (transcript, id), NULL);
  card = RK_FILE_CARD (rk_entry_row_get_content (RK_ENTRY_ROW (row)));
  rk_entry_row_set_file (RK_ENTRY_ROW (row), file);
  g_assert_true (rk_file_card_get_profiling (card));
  _rk_conversation_file_set_progress (file, 0.25);
  g_assert_cmpfloat (rk_file_card_get_progress (card), ==, 0.25);
  _rk_conversation_file_set_name (file, "late (2).csv");
  g_assert_cmpstr (rk_file_card_get_name (card), ==, "late (2).csv");
  _rk_conversation_file_take_profile (file, rk_file_profile_copy (late->pdata[0]));
  g_assert_false (rk_file_card_get_profiling (card));
  g_assert_cmpfloat (rk_file_card_get_progress (card), ==, -1);
  g_assert_nonnull (strstr (rk_file_card_get_summary (card), "3 rows × 1 column"));

  /* Without its file (nothing saved in the entry either): one sentence. */
  rk_entry_row_bind (RK_ENTRY_ROW (row), rk_transcript_lookup (transcript, id), NULL);
  card = RK_FILE_CARD (rk_entry_row_get_content (RK_ENTRY_ROW (row)));
  rk_entry_row_set_file (RK_ENTRY_ROW (row), NULL);
  g_assert_false (rk_file_card_get_profiling (card));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (card), "rk-file-error"));

  rk_entry_row_unbind (RK_ENTRY_ROW (row));
  g_object_unref (row);
  /* The card let go of it with the row. */
  g_assert_finalize_object (file);
}

/* -- the chat view --------------------------------------------------------------- */

/* A Tab key press as the chat view's key controller sees it; when the view
 * lets it through, GTK's own focus chain moves (as the window would). */
static void
press_tab (GtkWidget *view,
           gboolean   shift)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (view);
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_KEY (c))
        g_signal_emit_by_name (c, "key-pressed", shift ? GDK_KEY_ISO_Left_Tab : GDK_KEY_Tab, 23,
                               shift ? GDK_SHIFT_MASK : 0, &handled);
    }
  if (!handled)
    gtk_widget_child_focus (GTK_WIDGET (gtk_widget_get_root (view)), shift ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD);
}

static RkEntryRow *
row_of_cell (GtkWidget  *list,
             RkEntryKind kind,
             const char *cell)
{
  for (GtkWidget *c = gtk_widget_get_first_child (list); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *row = rk_ui_test_find_type (c, RK_TYPE_ENTRY_ROW);
      RkTranscriptEntry *entry = row ? rk_entry_row_get_entry (RK_ENTRY_ROW (row)) : NULL;

      if (entry != NULL && rk_transcript_entry_get_kind (entry) == kind &&
          g_strcmp0 (rk_transcript_entry_get_cell_id (entry), cell) == 0)
        return RK_ENTRY_ROW (row);
    }
  return NULL;
}

static RkEntryRow *
row_of_entry (GtkWidget *list,
              guint      id)
{
  for (GtkWidget *c = gtk_widget_get_first_child (list); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *row = rk_ui_test_find_type (c, RK_TYPE_ENTRY_ROW);
      RkTranscriptEntry *entry = row ? rk_entry_row_get_entry (RK_ENTRY_ROW (row)) : NULL;

      if (entry != NULL && rk_transcript_entry_get_id (entry) == id)
        return RK_ENTRY_ROW (row);
    }
  return NULL;
}

static void
test_chat_view (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("RECKON_TEST_DATA"), "sample-transcript.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTranscript) transcript = rk_transcript_load (path, &error);
  GtkWidget *window, *view;
  GtkListView *list;
  GListModel *model;
  RkEntryRow *row;
  guint n_approvals = 0;

  g_assert_no_error (error);
  window = gtk_window_new ();
  view = rk_chat_view_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 4000);
  gtk_window_set_child (GTK_WINDOW (window), view);
  rk_chat_view_set_transcript (RK_CHAT_VIEW (view), transcript, NULL);
  rk_chat_view_set_cell_state (RK_CHAT_VIEW (view), "c5", NULL, 0);
  gtk_window_present (GTK_WINDOW (window));
  spin (500);

  /* Plain approvals are folded into their code rows. */
  list = rk_chat_view_get_list_view (RK_CHAT_VIEW (view));
  model = G_LIST_MODEL (gtk_list_view_get_model (list));
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (transcript)); i++)
    {
      g_autoptr(RkTranscriptEntry) e = g_list_model_get_item (G_LIST_MODEL (transcript), i);
      RkDecision decision = rk_transcript_entry_get_decision (e);

      if (rk_transcript_entry_get_kind (e) == RK_ENTRY_APPROVAL &&
          decision != RK_DECISION_SKIPPED && decision != RK_DECISION_EDITED)
        n_approvals++;
    }
  g_assert_cmpuint (n_approvals, >, 0);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==,
                    g_list_model_get_n_items (G_LIST_MODEL (transcript)) - n_approvals);

  /* The pending cell's row shows the approval bar; Run reaches the view. */
  rk_chat_view_scroll_to_end (RK_CHAT_VIEW (view));
  spin (300);
  row = row_of_cell (GTK_WIDGET (list), RK_ENTRY_CODE, "c5");
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_get_visible (rk_entry_row_get_approval_bar (row)));
  /* Keyboard: Tab reaches Run, then Edit and Skip (of rows on screen: the
   * screen is shorter than the window asked for, so show that row first). */
  rk_chat_view_scroll_to_entry (RK_CHAT_VIEW (view), rk_transcript_entry_get_id (rk_entry_row_get_entry (row)));
  spin (300);
  row = row_of_cell (GTK_WIDGET (list), RK_ENTRY_CODE, "c5");
  g_assert_nonnull (row);
  {
    GtkWidget *run = rk_ui_test_find_button (rk_entry_row_get_approval_bar (row), "_Run");
    GtkWidget *edit = rk_ui_test_find_button (rk_entry_row_get_approval_bar (row), "_Edit");
    guint steps = 0;

    gtk_widget_grab_focus (GTK_WIDGET (list));
    while (gtk_window_get_focus (GTK_WINDOW (window)) != run && steps++ < 300)
      press_tab (view, FALSE);
    g_test_message ("Run reached after %u Tab presses", steps);
    g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) == run);
    press_tab (view, FALSE);
    g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) == edit);
    press_tab (view, TRUE);
    g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) == run);
  }
  /* Run reaches the view's own action (no conversation here: it does nothing). */
  g_assert_true (gtk_widget_activate_action (rk_ui_test_find_button (rk_entry_row_get_approval_bar (row), "_Run"),
                                             "chat.approve", NULL));

  /* Approved: the bar goes; running: Stop shows. */
  rk_chat_view_set_cell_state (RK_CHAT_VIEW (view), NULL, "c5", g_get_monotonic_time ());
  g_assert_false (gtk_widget_get_visible (rk_entry_row_get_approval_bar (row)));
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_parent (rk_ui_test_find_button (GTK_WIDGET (row), "_Stop"))));

  /* New content while at the bottom: the view follows it. */
  rk_chat_view_scroll_to_end (RK_CHAT_VIEW (view));
  spin (200);
  g_assert_true (rk_chat_view_get_following (RK_CHAT_VIEW (view)));
  rk_transcript_add_answer (transcript, "One more line.");
  spin (300);
  g_assert_true (rk_chat_view_get_following (RK_CHAT_VIEW (view)));
  {
    GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (gtk_widget_get_parent (GTK_WIDGET (list))));
    double bottom = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj);

    g_assert_cmpfloat (gtk_adjustment_get_value (adj), >=, bottom - 1);
    /* The user scrolls up: new content no longer moves the view. */
    gtk_adjustment_set_value (adj, 0);
    g_assert_false (rk_chat_view_get_following (RK_CHAT_VIEW (view)));
    rk_transcript_add_answer (transcript, "And another.");
    spin (300);
    g_assert_false (rk_chat_view_get_following (RK_CHAT_VIEW (view)));
    g_assert_cmpfloat (gtk_adjustment_get_value (adj), <, 1);
    /* Back at the bottom: following again. */
    rk_chat_view_scroll_to_end (RK_CHAT_VIEW (view));
    spin (300);
    g_assert_true (rk_chat_view_get_following (RK_CHAT_VIEW (view)));
  }

  /* A DataFrame's text form right after its table is left out. */
  {
    guint n = g_list_model_get_n_items (model);
    RkTranscriptArtifact table = { RK_ENTRY_TABLE, "tables/t.rkt", "application/x-reckon-table", "t", 0, 0, 2, 2 };

    g_assert_cmpuint (rk_transcript_add_artifact (transcript, "c9", &table), >, 0);
    rk_transcript_add_result (transcript, "c9", "   a  b\n0  1  2");
    g_assert_cmpuint (g_list_model_get_n_items (model), ==, n + 1);
    rk_transcript_add_result (transcript, "c9", "42");
    g_assert_cmpuint (g_list_model_get_n_items (model), ==, n + 2);
  }

  /* A final answer the agent just streamed as prose is not shown twice. */
  {
    guint n = g_list_model_get_n_items (model);
    guint id = rk_transcript_add_assistant (transcript, "The total is **42**.");

    rk_transcript_add_answer (transcript, "The total is **42**.\n");
    g_assert_cmpuint (g_list_model_get_n_items (model), ==, n + 1);
    rk_transcript_append_text (transcript, id, "");
    rk_transcript_add_answer (transcript, "A different answer.");
    g_assert_cmpuint (g_list_model_get_n_items (model), ==, n + 2);
  }

  /* Numbers of the final answer are traced: computed ones link to their
   * output, invented ones are marked. */
  {
    guint id;
    RkEntryRow *prose = NULL;
    GtkWidget *label;
    gint64 end;

    rk_chat_view_scroll_to_end (RK_CHAT_VIEW (view));
    rk_transcript_add_stream (transcript, "c21", RK_STREAM_STDOUT, "total 1234\n");
    id = rk_transcript_add_assistant (transcript, "The total is 1234, not 9876.");
    rk_transcript_add_answer (transcript, "The total is 1234, not 9876.");
    end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
    label = NULL;
    while (g_get_monotonic_time () < end)
      {
        g_main_context_iteration (NULL, FALSE);
        prose = row_of_entry (GTK_WIDGET (list), id);
        label = prose ? rk_ui_test_find_class (rk_entry_row_get_content (prose), "rk-md-paragraph") : NULL;
        if (label != NULL && strstr (gtk_label_get_label (GTK_LABEL (label)), "reckon-trace:") != NULL)
          break;
      }
    g_assert_nonnull (label);
    g_test_message ("traced: %s", gtk_label_get_label (GTK_LABEL (label)));
    g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)), "reckon-trace:not-computed"));
    g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)), "href=\"reckon-trace:"));

    /* Clicking a computed number shows where it came from. */
    rk_chat_view_scroll_to_entry (RK_CHAT_VIEW (view), id - 1);
    g_assert_false (rk_chat_view_get_following (RK_CHAT_VIEW (view)));
  }

  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
}

/* The chat in the window's Tab chain: Tab from the widget above enters the
 * rows' controls (past the question bubble, a selectable label that GTK 4.8
 * would let swallow every Tab), then leaves for the widget below; a cell
 * newly waiting for approval gives Run the focus when the field the question
 * was sent from is empty, never while something is typed there. */
static void
test_chat_view_focus (void)
{
  g_autoptr(RkTranscript) transcript = rk_transcript_new ();
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *above = gtk_button_new_with_label ("Above");
  GtkWidget *view = rk_chat_view_new ();
  GtkWidget *field = gtk_text_view_new ();
  GtkWidget *run;
  RkEntryRow *row;
  gboolean left = FALSE;

  gtk_widget_set_vexpand (view, TRUE);
  gtk_box_append (GTK_BOX (box), above);
  gtk_box_append (GTK_BOX (box), view);
  gtk_box_append (GTK_BOX (box), field);
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 700);
  rk_transcript_add_user (transcript, "What is the total?", NULL);
  rk_transcript_add_assistant (transcript, "Summing.");
  rk_transcript_add_code (transcript, "c1", "print(6 * 7)\n", 0);
  rk_chat_view_set_transcript (RK_CHAT_VIEW (view), transcript, NULL);
  gtk_window_present (GTK_WINDOW (window));
  spin (500);

  /* Tab from above: into the chat, through its controls, out below. */
  gtk_widget_grab_focus (above);
  for (guint i = 0; i < 20 && !left; i++)
    {
      GtkWidget *before = gtk_window_get_focus (GTK_WINDOW (window));

      g_assert_true (gtk_widget_child_focus (window, GTK_DIR_TAB_FORWARD));
      g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) != before);
      left = gtk_window_get_focus (GTK_WINDOW (window)) == field;
      if (!left)
        g_assert_true (gtk_widget_is_ancestor (gtk_window_get_focus (GTK_WINDOW (window)), view));
    }
  g_assert_true (left);
  /* Shift+Tab from below goes back into the chat. */
  g_assert_true (gtk_widget_child_focus (window, GTK_DIR_TAB_BACKWARD));
  g_assert_true (gtk_widget_is_ancestor (gtk_window_get_focus (GTK_WINDOW (window)), view));

  /* The cell waits for approval while the field holds a new question: the
   * focus stays there. */
  gtk_widget_grab_focus (field);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (field)), "And the mean?", -1);
  rk_chat_view_set_cell_state (RK_CHAT_VIEW (view), "c1", NULL, 0);
  spin (500);
  g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) == field);
  rk_chat_view_set_cell_state (RK_CHAT_VIEW (view), NULL, NULL, 0);

  /* The next one, with the field empty: Run takes the focus. */
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (field)), "", -1);
  rk_transcript_add_code (transcript, "c2", "print(2)\n", 0);
  rk_chat_view_set_cell_state (RK_CHAT_VIEW (view), "c2", NULL, 0);
  spin (500);
  row = row_of_cell (GTK_WIDGET (rk_chat_view_get_list_view (RK_CHAT_VIEW (view))), RK_ENTRY_CODE, "c2");
  g_assert_nonnull (row);
  run = rk_ui_test_find_button (rk_entry_row_get_approval_bar (row), "_Run");
  g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) == run);

  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/rk/ui/markdown/tree", test_markdown_tree);
  g_test_add_func ("/rk/ui/markdown/streaming", test_markdown_streaming);
  g_test_add_func ("/rk/ui/markdown/streaming-cost", test_markdown_streaming_cost);
  g_test_add_func ("/rk/ui/markdown/entry", test_markdown_entry);
  g_test_add_func ("/rk/ui/markdown/entry-rerender", test_markdown_entry_rerender);
  g_test_add_func ("/rk/ui/code-block", test_code_block);
  g_test_add_func ("/rk/ui/approval-bar", test_approval_bar);
  g_test_add_func ("/rk/ui/diff-view", test_diff_view);
  g_test_add_func ("/rk/ui/output-view", test_output_view);
  g_test_add_func ("/rk/ui/error-view", test_error_view);
  g_test_add_func ("/rk/ui/error-view/raise", test_error_view_raise);
  g_test_add_func ("/rk/ui/figure-view", test_figure_view);
  g_test_add_func ("/rk/ui/file-chip", test_file_chip);
  g_test_add_func ("/rk/ui/file-card", test_file_card);
  g_test_add_func ("/rk/ui/attachment-row", test_attachment_row);
  g_test_add_func ("/rk/ui/chat-view", test_chat_view);
  g_test_add_func ("/rk/ui/chat-view/focus", test_chat_view_focus);
  return g_test_run ();
}
