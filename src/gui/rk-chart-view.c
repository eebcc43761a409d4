/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-view.c — draws an RkChart into a GtkDrawingArea from a cached
 * image (redrawn on size, scale or light/dark changes only), and shows the
 * nearest point's values on hover as a tooltip and a readout label. */
#define G_LOG_DOMAIN "rk-chart-view"
#include "config.h"

#include "rk-chart-view.h"

#include <adwaita.h>
#include <glib/gi18n-lib.h>
#include <math.h>

#define COMPACT_HEIGHT 300
#define FULL_MIN_HEIGHT 240

struct _RkChartView
{
  GtkWidget        parent_instance;

  RkChart         *chart;
  gboolean         compact;

  GtkWidget       *box;
  GtkWidget       *area;
  GtkWidget       *readout;

  cairo_surface_t *cache;        /* the chart without the hover marker */
  int              cache_w, cache_h, cache_scale;
  RkChartStyle     cache_style;

  gboolean         has_hit;
  RkChartHit       hit;
  char            *hover_text;
  gulong           dark_handler;
};

G_DEFINE_FINAL_TYPE (RkChartView, rk_chart_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_CHART,
  PROP_COMPACT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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

static char *
describe_chart (RkChart *chart)
{
  GString *out = g_string_new (NULL);
  const char *title = rk_chart_get_title (chart);
  guint n = rk_chart_get_n_series (chart);

  if (title != NULL && *title != '\0')
    g_string_append_printf (out, "%s. ", title);
  /* Translators: "Chart with 3 series: a (120 points), b (120 points)" */
  g_string_append_printf (out, ngettext ("Chart with %u series", "Chart with %u series", n), n);
  for (guint i = 0; i < n; i++)
    {
      gsize points = rk_chart_get_n_points (chart, i);

      g_string_append (out, i == 0 ? ": " : ", ");
      g_string_append_printf (out, ngettext ("%s (%" G_GSIZE_FORMAT " point)",
                                             "%s (%" G_GSIZE_FORMAT " points)", points),
                              rk_chart_get_series_name (chart, i), points);
    }
  g_string_append_c (out, '.');
  return g_string_free (out, FALSE);
}

static void
apply_compact (RkChartView *self)
{
  if (self->compact)
    {
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->area), COMPACT_HEIGHT);
      gtk_widget_set_vexpand (self->area, FALSE);
    }
  else
    {
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->area), FULL_MIN_HEIGHT);
      gtk_widget_set_vexpand (self->area, TRUE);
    }
}

static void
rk_chart_view_constructed (GObject *object)
{
  RkChartView *self = RK_CHART_VIEW (object);
  GtkEventController *motion;
  const char *title;
  g_autofree char *description = NULL;

  G_OBJECT_CLASS (rk_chart_view_parent_class)->constructed (object);

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  self->area = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (self->area), 320);
  gtk_widget_set_hexpand (self->area, TRUE);
  gtk_widget_add_css_class (self->area, "card");
  gtk_widget_set_overflow (self->area, GTK_OVERFLOW_HIDDEN);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->area), draw_cb, self, NULL);
  motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect (motion, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (self->area, motion);
  gtk_box_append (GTK_BOX (self->box), self->area);

  self->readout = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (self->readout), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (self->readout), PANGO_ELLIPSIZE_END);
  gtk_label_set_selectable (GTK_LABEL (self->readout), FALSE);
  gtk_widget_add_css_class (self->readout, "caption");
  gtk_widget_add_css_class (self->readout, "numeric");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->readout), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Value under the pointer"), -1);
  gtk_box_append (GTK_BOX (self->box), self->readout);

  title = self->chart != NULL ? rk_chart_get_title (self->chart) : NULL;
  description = self->chart != NULL ? describe_chart (self->chart) : g_strdup ("");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->area),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  title != NULL && *title != '\0' ? title : _("Chart"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  title != NULL && *title != '\0' ? title : _("Chart"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);

  self->dark_handler = g_signal_connect (adw_style_manager_get_default (), "notify::dark",
                                         G_CALLBACK (dark_changed_cb), self);
  apply_compact (self);
}

static void
rk_chart_view_dispose (GObject *object)
{
  RkChartView *self = RK_CHART_VIEW (object);

  g_clear_signal_handler (&self->dark_handler, adw_style_manager_get_default ());
  g_clear_pointer (&self->box, gtk_widget_unparent);
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
rk_chart_view_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  RkChartView *self = RK_CHART_VIEW (object);

  switch (prop_id)
    {
    case PROP_CHART:
      g_value_set_object (value, self->chart);
      break;
    case PROP_COMPACT:
      g_value_set_boolean (value, self->compact);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_chart_view_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  RkChartView *self = RK_CHART_VIEW (object);

  switch (prop_id)
    {
    case PROP_CHART:
      self->chart = g_value_dup_object (value);
      break;
    case PROP_COMPACT:
      if (self->box == NULL)
        self->compact = g_value_get_boolean (value);
      else
        rk_chart_view_set_compact (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_chart_view_class_init (RkChartViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = rk_chart_view_constructed;
  object_class->dispose = rk_chart_view_dispose;
  object_class->finalize = rk_chart_view_finalize;
  object_class->get_property = rk_chart_view_get_property;
  object_class->set_property = rk_chart_view_set_property;

  properties[PROP_CHART] =
    g_param_spec_object ("chart", NULL, NULL, RK_TYPE_CHART,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_COMPACT] =
    g_param_spec_boolean ("compact", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_css_name (widget_class, "rkchartview");
}

static void
rk_chart_view_init (RkChartView *self)
{
}

GtkWidget *
rk_chart_view_new (RkChart *chart)
{
  g_return_val_if_fail (RK_IS_CHART (chart), NULL);
  return g_object_new (RK_TYPE_CHART_VIEW, "chart", chart, NULL);
}

RkChart *
rk_chart_view_get_chart (RkChartView *self)
{
  g_return_val_if_fail (RK_IS_CHART_VIEW (self), NULL);
  return self->chart;
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

  compact = !!compact;
  if (self->compact == compact)
    return;
  self->compact = compact;
  apply_compact (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPACT]);
}

const char *
rk_chart_view_get_hover_text (RkChartView *self)
{
  g_return_val_if_fail (RK_IS_CHART_VIEW (self), NULL);
  return self->hover_text != NULL ? self->hover_text : "";
}
