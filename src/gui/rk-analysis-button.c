/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-analysis-button.c — a menu button listing the analyses that fit the
 * file's columns, and a small dialog for the group-by's columns. The code
 * comes from rk_analysis_build_code(); this widget only asks and emits it. */
#define G_LOG_DOMAIN "rk-analysis-button"
#include "config.h"

#include "rk-a11y.h"
#include "rk-analysis-button.h"
#include "rk-analyses.h"
#include "rk-text.h"

#include <adwaita.h>
#include <glib/gi18n-lib.h>

struct _RkAnalysisButton
{
  GtkWidget      parent_instance;

  GtkWidget     *button;
  char          *name;
  RkFileProfile *profile;        /* a copy, when it has a table; else NULL */
};

G_DEFINE_FINAL_TYPE (RkAnalysisButton, rk_analysis_button, GTK_TYPE_WIDGET)

/* The analyses work on the file's first table, the one the card shows first. */
static const RkTableProfile *
first_table (RkAnalysisButton *self)
{
  return self->profile != NULL ? g_ptr_array_index (self->profile->tables, 0) : NULL;
}

/* The names of the first table's columns; only its number columns when @numbers. */
static GPtrArray *
column_names (RkAnalysisButton *self,
              gboolean          numbers)
{
  const RkTableProfile *table = first_table (self);
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; table != NULL && table->columns != NULL && i < table->columns->len; i++)
    {
      const RkColumnProfile *c = g_ptr_array_index (table->columns, i);

      if (!numbers || c->type == RK_COLUMN_INTEGER || c->type == RK_COLUMN_FLOAT)
        g_ptr_array_add (names, c->name);
    }
  return names;
}

static void
emit_code (RkAnalysisButton *self,
           RkAnalysis        analysis,
           const RkGroupBy  *group_by)
{
  const RkTableProfile *first = first_table (self);
  g_autofree char *code = NULL;

  if (self->name == NULL || first == NULL)
    return;
  /* With several sheets (or PDF tables) reckon.load gives them all, as a
   * dict: the analysis names the first. */
  code = rk_analysis_build_code (analysis, self->name, self->profile->tables->len > 1 ? first->name : NULL,
                                 group_by);
  if (code != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "chat.run-code", "s", code);
}

/* ------------------------------------------------------- group-by dialog */

/* The order of the Compute list in rk-analysis-group-by.ui. */
static const RkAggregate aggregates[] = {
  RK_AGGREGATE_SUM, RK_AGGREGATE_MEAN, RK_AGGREGATE_MEDIAN, RK_AGGREGATE_MIN, RK_AGGREGATE_MAX,
};

static void
group_by_response_cb (AdwMessageDialog *dialog,
                      const char       *response,
                      RkAnalysisButton *self)
{
  GtkDropDown *group = g_object_get_data (G_OBJECT (dialog), "rk-group");
  GtkDropDown *value = g_object_get_data (G_OBJECT (dialog), "rk-value");
  GtkDropDown *how = g_object_get_data (G_OBJECT (dialog), "rk-how");
  guint g = gtk_drop_down_get_selected (group);
  guint v = gtk_drop_down_get_selected (value);
  guint h = gtk_drop_down_get_selected (how);
  g_autoptr(GPtrArray) columns = column_names (self, FALSE);
  g_autoptr(GPtrArray) numbers = column_names (self, TRUE);
  RkGroupBy by = { 0 };

  if (!g_str_equal (response, "run") || g >= columns->len)
    return;
  by.group_column = g_ptr_array_index (columns, g);
  /* the first value entry is "Number of rows" */
  by.value_column = v > 0 && v - 1 < numbers->len ? g_ptr_array_index (numbers, v - 1) : NULL;
  by.aggregate = by.value_column != NULL && h < G_N_ELEMENTS (aggregates) ? aggregates[h] : RK_AGGREGATE_COUNT;
  emit_code (self, RK_ANALYSIS_GROUP_BY, &by);
}

/* A drop-down's list: @strings (sanitized), after @first when given. */
static void
fill_drop_down (GtkDropDown *drop,
                const char  *first,
                GPtrArray   *strings)
{
  g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);

  if (first != NULL)
    gtk_string_list_append (list, first);
  for (guint i = 0; i < strings->len; i++)
    {
      g_autofree char *clean = rk_text_sanitize_for_terminal (g_ptr_array_index (strings, i),
                                                              RK_TEXT_SANITIZE_SINGLE_LINE);
      gtk_string_list_append (list, clean);
    }
  gtk_drop_down_set_model (drop, G_LIST_MODEL (list));
}

static void
present_group_by (RkAnalysisButton *self)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/reckon/Reckon/rk-analysis-group-by.ui");
  GtkWindow *dialog = GTK_WINDOW (gtk_builder_get_object (builder, "dialog"));
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkDropDown *value = GTK_DROP_DOWN (gtk_builder_get_object (builder, "value"));
  g_autoptr(GPtrArray) numbers = column_names (self, TRUE);
  g_autoptr(GPtrArray) columns = column_names (self, FALSE);

  fill_drop_down (GTK_DROP_DOWN (gtk_builder_get_object (builder, "group")), NULL, columns);
  fill_drop_down (value, _("Number of rows"), numbers);
  if (numbers->len > 0)
    gtk_drop_down_set_selected (value, 1);
  gtk_window_set_transient_for (dialog, GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL);
  g_object_set_data (G_OBJECT (dialog), "rk-group", gtk_builder_get_object (builder, "group"));
  g_object_set_data (G_OBJECT (dialog), "rk-value", value);
  g_object_set_data (G_OBJECT (dialog), "rk-how", gtk_builder_get_object (builder, "how"));
  g_signal_connect_object (dialog, "response", G_CALLBACK (group_by_response_cb), self, 0);
  gtk_window_present (dialog);
}

static void
run_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  RkAnalysisButton *self = RK_ANALYSIS_BUTTON (widget);
  RkAnalysis analysis;

  if (!rk_analysis_from_id (g_variant_get_string (parameter, NULL), &analysis))
    return;
  if (analysis == RK_ANALYSIS_GROUP_BY)
    present_group_by (self);
  else
    emit_code (self, analysis, NULL);
}

/* -------------------------------------------------------------- object */

static void
rebuild_menu (RkAnalysisButton *self)
{
  g_autoptr(GMenu) menu = g_menu_new ();

  for (RkAnalysis a = 0; a < RK_ANALYSIS_N; a++)
    {
      g_autoptr(GMenuItem) item = NULL;

      if (!rk_analysis_is_useful (a, first_table (self)))
        continue;
      item = g_menu_item_new (rk_analysis_get_title (a), NULL);
      g_menu_item_set_action_and_target (item, "analysis.run", "s", rk_analysis_get_id (a));
      g_menu_append_item (menu, item);
    }
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->button), G_MENU_MODEL (menu));
  rk_menu_button_quiet_tooltip (GTK_MENU_BUTTON (self->button));
}

void
rk_analysis_button_set_file (RkAnalysisButton    *self,
                             const char          *name,
                             const RkFileProfile *profile)
{
  const RkTableProfile *first;

  g_return_if_fail (RK_IS_ANALYSIS_BUTTON (self));

  g_free (self->name);
  self->name = g_strdup (name);
  g_clear_pointer (&self->profile, rk_file_profile_free);
  if (profile != NULL && profile->error == NULL && profile->tables != NULL && profile->tables->len > 0)
    self->profile = rk_file_profile_copy (profile);
  first = first_table (self);
  /* Analyses need a table: a PDF without one, or a file still profiled, has none. */
  gtk_widget_set_sensitive (self->button, name != NULL && first != NULL && first->columns != NULL &&
                                          first->columns->len > 0);
  rebuild_menu (self);
}

static void
rk_analysis_button_dispose (GObject *object)
{
  RkAnalysisButton *self = RK_ANALYSIS_BUTTON (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_ANALYSIS_BUTTON);
  G_OBJECT_CLASS (rk_analysis_button_parent_class)->dispose (object);
}

static void
rk_analysis_button_finalize (GObject *object)
{
  RkAnalysisButton *self = RK_ANALYSIS_BUTTON (object);

  g_free (self->name);
  g_clear_pointer (&self->profile, rk_file_profile_free);
  G_OBJECT_CLASS (rk_analysis_button_parent_class)->finalize (object);
}

static void
rk_analysis_button_class_init (RkAnalysisButtonClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_analysis_button_dispose;
  object_class->finalize = rk_analysis_button_finalize;

  gtk_widget_class_install_action (widget_class, "analysis.run", "s", run_action);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-analysis-button.ui");
  gtk_widget_class_bind_template_child (widget_class, RkAnalysisButton, button);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
rk_analysis_button_init (RkAnalysisButton *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  rebuild_menu (self);
}
