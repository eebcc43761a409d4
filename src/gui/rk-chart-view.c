/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-view.c — draws an RkChart into a GtkDrawingArea from a cached
 * image (redrawn on size, scale, light/dark or chart changes only), shows the
 * nearest point's values on hover as a tooltip and a readout label, toggles
 * series from the legend, switches the kind, and saves PNG, SVG or PDF. */
#define G_LOG_DOMAIN "rk-chart-view"
#include "config.h"

#include "rk-a11y.h"
#include "rk-chart-view.h"
#include "rk-chart-walk.h"
#include "rk-result-window.h"
#include "rk-save.h"

#include "rk-text.h"

#include <adwaita.h>
#include <glib/gi18n-lib.h>
#include <math.h>

#define EXPORT_WIDTH 1200
#define EXPORT_HEIGHT 800

#define COMPACT_HEIGHT 300
#define FULL_MIN_HEIGHT 240

struct _RkChartView
{
  GtkWidget        parent_instance;

  RkChart         *chart;
  gboolean         compact;

  GtkWidget       *box;
  GtkWidget       *toolbar;
  GtkWidget       *kind_dropdown;
  GtkWidget       *series_button;
  GtkWidget       *status;
  GtkWidget       *area;
  GtkWidget       *readout;
  GtkWidget       *save_button;
  GtkWidget       *open_button;
  GtkWidget       *copy_button;
  GCancellable    *cancellable;
  gulong           changed_handler;
  gboolean         exporting;

  cairo_surface_t *cache;        /* the chart without the hover marker */
  int              cache_w, cache_h, cache_scale;
  RkChartStyle     cache_style;

  gboolean         has_hit;
  RkChartHit       hit;
  char            *hover_text;
  gulong           dark_handler;
};

G_DEFINE_FINAL_TYPE (RkChartView, rk_chart_view, GTK_TYPE_WIDGET)

/* The kinds offered in the switcher, in its order. */
static const RkChartKind switch_kinds[] = {
  RK_CHART_KIND_LINE, RK_CHART_KIND_AREA, RK_CHART_KIND_BAR, RK_CHART_KIND_SCATTER,
};

static const char *
switch_kind_label (RkChartKind kind)
{
  switch (kind)
    {
    case RK_CHART_KIND_LINE:
      return _("Line");
    case RK_CHART_KIND_AREA:
      return _("Area");
    case RK_CHART_KIND_BAR:
      return _("Bar");
    case RK_CHART_KIND_SCATTER:
      return _("Scatter");
    case RK_CHART_KIND_HISTOGRAM:
    case RK_CHART_KIND_BOX:
    default:
      return "";
    }
}

static RkChartStyle
current_style (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ())
         ? RK_CHART_STYLE_DARK : RK_CHART_STYLE_LIGHT;
}

static void
invalidate (RkChartView *self)
{
  g_clear_pointer (&self->cache, cairo_surface_destroy);
  gtk_widget_queue_draw (self->area);
}

static void
dark_changed_cb (AdwStyleManager *manager,
                 GParamSpec      *pspec,
                 RkChartView     *self)
{
  invalidate (self);
}

static void
draw_cb (GtkDrawingArea *area,
         cairo_t        *cr,
         int             width,
         int             height,
         gpointer        user_data)
{
  RkChartView *self = user_data;
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (area));
  RkChartStyle style = current_style ();

  if (self->chart == NULL || width <= 0 || height <= 0)
    return;

  if (self->cache == NULL || self->cache_w != width || self->cache_h != height ||
      self->cache_scale != scale || self->cache_style != style)
    {
      cairo_t *ccr;

      g_clear_pointer (&self->cache, cairo_surface_destroy);
      self->cache = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width * scale, height * scale);
      cairo_surface_set_device_scale (self->cache, scale, scale);
      ccr = cairo_create (self->cache);
      rk_chart_draw (self->chart, ccr, width, height, style);
      cairo_destroy (ccr);
      self->cache_w = width;
      self->cache_h = height;
      self->cache_scale = scale;
      self->cache_style = style;
    }

  cairo_set_source_surface (cr, self->cache, 0, 0);
  cairo_paint (cr);

  if (self->has_hit)
    {
      double fg = style == RK_CHART_STYLE_DARK ? 1.0 : 0.0;

      cairo_arc (cr, self->hit.px, self->hit.py, 5.0, 0, 2 * G_PI);
      cairo_set_source_rgba (cr, fg, fg, fg, 0.85);
      cairo_set_line_width (cr, 2.0);
      cairo_stroke (cr);
    }
}

static void update_description (RkChartView *self);

static void
set_hover (RkChartView      *self,
           const RkChartHit *hit)
{
  g_autofree char *text = NULL;

  if (hit != NULL)
    {
      if (self->has_hit && self->hit.series == hit->series && self->hit.index == hit->index)
        return;
      self->hit = *hit;
      self->has_hit = TRUE;
      text = rk_chart_describe_hit (self->chart, hit);
    }
  else
    {
      if (!self->has_hit)
        return;
      self->has_hit = FALSE;
    }

  g_free (self->hover_text);
  self->hover_text = g_steal_pointer (&text);
  if (self->hover_text != NULL)
    {
      /* One line for the readout: "Sales · month: March · value: 12". */
      g_auto(GStrv) lines = g_strsplit (self->hover_text, "\n", -1);
      g_autofree char *line = g_strjoinv (" · ", lines);

      gtk_label_set_text (GTK_LABEL (self->readout), line);
    }
  else
    gtk_label_set_text (GTK_LABEL (self->readout), "");
  gtk_widget_set_tooltip_text (self->area, self->hover_text);
  /* what a screen reader says for the chart: the point, else the summary */
  if (self->hover_text != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->area),
                                    GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->hover_text, -1);
  else
    update_description (self);
  gtk_widget_queue_draw (self->area);
}

gboolean
rk_chart_view_hover (RkChartView *self,
                     double       x,
                     double       y)
{
  RkChartHit hit;
  int w, h;

  g_return_val_if_fail (RK_IS_CHART_VIEW (self), FALSE);

  w = gtk_widget_get_width (self->area);
  h = gtk_widget_get_height (self->area);
  if (self->chart != NULL && w > 0 && h > 0 &&
      rk_chart_hit_test (self->chart, w, h, x, y, &hit))
    {
      set_hover (self, &hit);
      return TRUE;
    }
  set_hover (self, NULL);
  return FALSE;
}

static void
motion_cb (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           RkChartView              *self)
{
  rk_chart_view_hover (self, x, y);
}

static void
leave_cb (GtkEventControllerMotion *controller,
          RkChartView              *self)
{
  set_hover (self, NULL);
}

/* Left/Right: the previous/next point; Up/Down: the previous/next visible
 * series; Home/End: the first/last point. Gaps are skipped. */
static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                RkChartView           *self)
{
  guint series = self->has_hit ? self->hit.series : 0;
  gint64 index = self->has_hit ? (gint64) self->hit.index : -1;
  int step = 0, series_step = 0;
  RkChartHit hit;

  switch (keyval)
    {
    case GDK_KEY_Right: case GDK_KEY_KP_Right: step = 1; break;
    case GDK_KEY_Left: case GDK_KEY_KP_Left: step = -1; break;
    case GDK_KEY_Down: case GDK_KEY_KP_Down: series_step = 1; break;
    case GDK_KEY_Up: case GDK_KEY_KP_Up: series_step = -1; break;
    case GDK_KEY_Home: index = -1; step = 1; break;
    case GDK_KEY_End: index = (gint64) rk_chart_get_n_points (self->chart, series); step = -1; break;
    case GDK_KEY_Escape: set_hover (self, NULL); return TRUE;
    default: return FALSE;
    }
  if (rk_chart_walk (self->chart, gtk_widget_get_width (self->area), gtk_widget_get_height (self->area),
                     series, index, step, series_step, &hit))
    set_hover (self, &hit);
  return TRUE;
}

/* The chart's title on one line, or "Chart" when it has none. */
static char *
display_title (RkChartView *self)
{
  g_autofree char *title = rk_text_sanitize_for_terminal (rk_chart_get_title (self->chart),
                                                          RK_TEXT_SANITIZE_SINGLE_LINE);

  return title != NULL && *title != '\0' ? g_steal_pointer (&title) : g_strdup (_("Chart"));
}

static void
update_description (RkChartView *self)
{
  g_autofree char *title = display_title (self);
  g_autofree char *description = rk_chart_describe (self->chart);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self->area),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, title,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, title,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
}

static void
chart_changed_cb (RkChart     *chart,
                  RkChartView *self)
{
  self->has_hit = FALSE;
  g_clear_pointer (&self->hover_text, g_free);
  gtk_label_set_text (GTK_LABEL (self->readout), "");
  gtk_widget_set_tooltip_text (self->area, NULL);
  update_description (self);
  invalidate (self);
}

/* A click on a legend entry shows or hides its series. */
static void
click_cb (GtkGestureClick *gesture,
          int              n_press,
          double           x,
          double           y,
          RkChartView     *self)
{
  int series = rk_chart_legend_hit_test (self->chart,
                                         gtk_widget_get_width (self->area),
                                         gtk_widget_get_height (self->area), x, y);

  /* a click focuses the chart: the arrow keys then walk its points */
  gtk_widget_grab_focus (self->area);
  if (series < 0)
    return;
  rk_chart_set_series_visible (self->chart, series,
                               !rk_chart_get_series_visible (self->chart, series));
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

static void
series_toggled_cb (GtkCheckButton *check,
                   RkChartView    *self)
{
  guint series = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (check), "rk-series"));

  rk_chart_set_series_visible (self->chart, series, gtk_check_button_get_active (check));
}

/* The series popover is rebuilt each time it opens, so it shows the state the
 * legend clicks left. */
static void
series_popover_show_cb (GtkPopover  *popover,
                        RkChartView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  guint n = rk_chart_get_n_series (self->chart);

  for (guint k = 0; k < n; k++)
    {
      g_autofree char *name = rk_text_sanitize_for_terminal (rk_chart_get_series_name (self->chart, k),
                                                             RK_TEXT_SANITIZE_SINGLE_LINE);
      GtkWidget *check = gtk_check_button_new_with_label (name);

      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), rk_chart_get_series_visible (self->chart, k));
      g_object_set_data (G_OBJECT (check), "rk-series", GUINT_TO_POINTER (k));
      g_signal_connect (check, "toggled", G_CALLBACK (series_toggled_cb), self);
      gtk_box_append (GTK_BOX (box), check);
    }
  gtk_popover_set_child (popover, box);
}

static void
kind_selected_cb (GtkDropDown *dropdown,
                  GParamSpec  *pspec,
                  RkChartView *self)
{
  guint selected = gtk_drop_down_get_selected (dropdown);
  GListModel *model = gtk_drop_down_get_model (dropdown);
  g_autoptr(GObject) item = NULL;
  RkChartKind kind;

  if (selected == GTK_INVALID_LIST_POSITION)
    return;
  item = g_list_model_get_item (model, selected);
  kind = GPOINTER_TO_INT (g_object_get_data (item, "rk-kind"));
  rk_chart_set_kind (self->chart, kind);
}

static void
build_kind_switcher (RkChartView *self)
{
  g_autoptr(GtkStringList) labels = gtk_string_list_new (NULL);
  guint selected = 0, n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (switch_kinds); i++)
    {
      g_autoptr(GObject) item = NULL;

      if (!rk_chart_can_show_as (self->chart, switch_kinds[i]))
        continue;
      gtk_string_list_append (labels, switch_kind_label (switch_kinds[i]));
      item = g_list_model_get_item (G_LIST_MODEL (labels), n);
      g_object_set_data (item, "rk-kind", GINT_TO_POINTER (switch_kinds[i]));
      if (switch_kinds[i] == rk_chart_get_kind (self->chart))
        selected = n;
      n++;
    }
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->kind_dropdown), G_LIST_MODEL (labels));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->kind_dropdown), selected);
  /* A histogram or a box plot has nothing to switch to. */
  gtk_widget_set_visible (self->kind_dropdown, n > 1);
  g_signal_connect (self->kind_dropdown, "notify::selected", G_CALLBACK (kind_selected_cb), self);
}

/* ---------------------------------------------------------------- saving */

typedef struct
{
  RkChart      *chart;
  RkChartFormat format;
  RkChartStyle  style;
} SaveJob;

static SaveJob *
save_job_new (RkChartView   *self,
              RkChartFormat  format)
{
  SaveJob *job = g_new0 (SaveJob, 1);

  job->chart = g_object_ref (self->chart);
  job->format = format;
  job->style = current_style ();
  return job;
}

static void
save_job_free (SaveJob *job)
{
  g_object_unref (job->chart);
  g_free (job);
}

/* An RkSaveFunc: rk_save_async() runs it in a worker thread. */
static gboolean
export_chart (const char    *dest,
              gpointer       data,
              GCancellable  *cancellable,
              GError       **error)
{
  SaveJob *job = data;

  return rk_chart_export (job->chart, dest, job->format, EXPORT_WIDTH, EXPORT_HEIGHT, job->style, error);
}

/* The chart is drawn by the worker meanwhile: leave it as it is. */
static void
set_exporting (RkChartView *self,
               gboolean     exporting)
{
  self->exporting = exporting;
  gtk_widget_set_sensitive (self->kind_dropdown, !exporting);
  gtk_widget_set_sensitive (self->series_button, !exporting);
  gtk_widget_set_sensitive (self->area, !exporting);
  gtk_label_set_text (GTK_LABEL (self->status), exporting ? _("Saving…") : "");
}

static void
save_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  RkChartView *self = RK_CHART_VIEW (object);
  g_autofree char *sentence = NULL;

  g_free (rk_save_finish (result, &sentence, NULL));
  if (self->cancellable == NULL)
    return;   /* the view was disposed: its template children are gone */
  set_exporting (self, FALSE);
  if (sentence != NULL)
    gtk_label_set_text (GTK_LABEL (self->status), sentence);
}

void
rk_chart_view_save (RkChartView   *self,
                    const char    *path,
                    RkChartFormat  format)
{
  g_return_if_fail (RK_IS_CHART_VIEW (self));
  g_return_if_fail (path != NULL);

  if (self->exporting)
    return;
  set_exporting (self, TRUE);
  rk_save_async (GTK_WIDGET (self), NULL, path, NULL, export_chart, save_job_new (self, format),
                 (GDestroyNotify) save_job_free, self->cancellable, save_done_cb, NULL);
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  RkChartView *self = RK_CHART_VIEW (widget);
  const char *kind = g_variant_get_string (parameter, NULL);
  RkChartFormat format = g_str_equal (kind, "svg") ? RK_CHART_FORMAT_SVG
                       : g_str_equal (kind, "pdf") ? RK_CHART_FORMAT_PDF : RK_CHART_FORMAT_PNG;
  const char *ext = format == RK_CHART_FORMAT_SVG ? "svg" : format == RK_CHART_FORMAT_PDF ? "pdf" : "png";
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = rk_save_file_name (rk_chart_get_title (self->chart), _("chart"), ext);

  if (self->exporting)
    return;
  gtk_file_filter_set_name (filter, format == RK_CHART_FORMAT_SVG ? _("SVG Image")
                                   : format == RK_CHART_FORMAT_PDF ? _("PDF Document") : _("PNG Image"));
  gtk_file_filter_add_suffix (filter, ext);
  set_exporting (self, TRUE);
  rk_save_async (widget, _("Save Chart"), name, filter, export_chart, save_job_new (self, format),
                 (GDestroyNotify) save_job_free, self->cancellable, save_done_cb, NULL);
}

/* The chart as an image on the clipboard, drawn as Save as PNG draws it
 * (light, so it pastes well into documents). */
static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  RkChartView *self = RK_CHART_VIEW (widget);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, EXPORT_WIDTH, EXPORT_HEIGHT);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  cairo_t *cr = cairo_create (surface);

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  rk_chart_draw (self->chart, cr, EXPORT_WIDTH, EXPORT_HEIGHT, RK_CHART_STYLE_LIGHT);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  bytes = g_bytes_new (cairo_image_surface_get_data (surface),
                       (gsize) cairo_image_surface_get_stride (surface) * EXPORT_HEIGHT);
  /* Cairo's ARGB32 is GDK_MEMORY_DEFAULT, premultiplied in native order. */
  texture = gdk_memory_texture_new (EXPORT_WIDTH, EXPORT_HEIGHT, GDK_MEMORY_DEFAULT, bytes,
                                    cairo_image_surface_get_stride (surface));
  cairo_surface_destroy (surface);
  gdk_clipboard_set_texture (gtk_widget_get_clipboard (widget), texture);
}

/* The chart in a window of its own, with its toolbar. */
static void
open_window_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  g_autofree char *title = display_title (RK_CHART_VIEW (widget));

  rk_result_window_present (rk_chart_view_new (RK_CHART_VIEW (widget)->chart), title, widget);
}

static void
rk_chart_view_dispose (GObject *object)
{
  RkChartView *self = RK_CHART_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_signal_handler (&self->dark_handler, adw_style_manager_get_default ());
  if (self->chart != NULL)
    g_clear_signal_handler (&self->changed_handler, self->chart);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_CHART_VIEW);
  g_clear_pointer (&self->cache, cairo_surface_destroy);

  G_OBJECT_CLASS (rk_chart_view_parent_class)->dispose (object);
}

static void
rk_chart_view_finalize (GObject *object)
{
  RkChartView *self = RK_CHART_VIEW (object);

  g_clear_object (&self->chart);
  g_free (self->hover_text);

  G_OBJECT_CLASS (rk_chart_view_parent_class)->finalize (object);
}

static void
rk_chart_view_class_init (RkChartViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_chart_view_dispose;
  object_class->finalize = rk_chart_view_finalize;

  gtk_widget_class_install_action (widget_class, "chart.save", "s", save_action);
  gtk_widget_class_install_action (widget_class, "chart.open-window", NULL, open_window_action);
  gtk_widget_class_install_action (widget_class, "chart.copy", NULL, copy_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK, "chart.copy", NULL);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-chart-view.ui");
  gtk_widget_class_bind_template_child (widget_class, RkChartView, box);
  gtk_widget_class_bind_template_child (widget_class, RkChartView, toolbar);
  gtk_widget_class_bind_template_child (widget_class, RkChartView, kind_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RkChartView, series_button);
  gtk_widget_class_bind_template_child (widget_class, RkChartView, status);
  gtk_widget_class_bind_template_child (widget_class, RkChartView, save_button);
  gtk_widget_class_bind_template_child (widget_class, RkChartView, area);
  gtk_widget_class_bind_template_child (widget_class, RkChartView, readout);
  gtk_widget_class_bind_template_child (widget_class, RkChartView, open_button);
  gtk_widget_class_bind_template_child (widget_class, RkChartView, copy_button);
  gtk_widget_class_bind_template_callback (widget_class, series_popover_show_cb);
  gtk_widget_class_bind_template_callback (widget_class, motion_cb);
  gtk_widget_class_bind_template_callback (widget_class, leave_cb);
  gtk_widget_class_bind_template_callback (widget_class, key_pressed_cb);
  gtk_widget_class_bind_template_callback (widget_class, click_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_css_name (widget_class, "rkchartview");
}

static void
rk_chart_view_init (RkChartView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->area), draw_cb, self, NULL);
  rk_a11y_name_button (self->open_button, _("Open Chart"));
  rk_menu_button_quiet_tooltip (GTK_MENU_BUTTON (self->series_button));
  rk_menu_button_quiet_tooltip (GTK_MENU_BUTTON (self->save_button));
  self->dark_handler = g_signal_connect (adw_style_manager_get_default (), "notify::dark",
                                         G_CALLBACK (dark_changed_cb), self);
}

GtkWidget *
rk_chart_view_new (RkChart *chart)
{
  RkChartView *self;
  GtkWidget *menu_buttons[3];

  g_return_val_if_fail (RK_IS_CHART (chart), NULL);

  self = g_object_new (RK_TYPE_CHART_VIEW, NULL);
  self->chart = g_object_ref (chart);
  build_kind_switcher (self);
  gtk_widget_set_visible (self->series_button, rk_chart_get_n_series (chart) > 1);
  /* The menu buttons' own toggles and popovers carry no name in GTK 4.8. */
  menu_buttons[0] = self->kind_dropdown;
  menu_buttons[1] = self->series_button;
  menu_buttons[2] = self->save_button;
  for (guint i = 0; i < G_N_ELEMENTS (menu_buttons); i++)
    for (GtkWidget *child = gtk_widget_get_first_child (menu_buttons[i]); child != NULL;
         child = gtk_widget_get_next_sibling (child))
      rk_a11y_name_tree (child);
  update_description (self);
  self->changed_handler = g_signal_connect (chart, "changed", G_CALLBACK (chart_changed_cb), self);
  return GTK_WIDGET (self);
}

gboolean
rk_chart_view_get_compact (RkChartView *self)
{
  g_return_val_if_fail (RK_IS_CHART_VIEW (self), FALSE);
  return self->compact;
}

void
rk_chart_view_set_compact (RkChartView *self,
                           gboolean     compact)
{
  g_return_if_fail (RK_IS_CHART_VIEW (self));

  self->compact = !!compact;
  gtk_widget_set_visible (self->toolbar, !self->compact);
  gtk_widget_set_visible (self->open_button, self->compact);
  gtk_widget_set_visible (self->copy_button, self->compact);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->area),
                                       self->compact ? COMPACT_HEIGHT : FULL_MIN_HEIGHT);
  gtk_widget_set_vexpand (self->area, !self->compact);
}

const char *
rk_chart_view_get_hover_text (RkChartView *self)
{
  g_return_val_if_fail (RK_IS_CHART_VIEW (self), NULL);
  return self->hover_text != NULL ? self->hover_text : "";
}
