/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart.c — RkChart, a native chart parsed from a spec the sandbox wrote
 * (docs/chart-spec.md): the object, its accessors and the layout cache. Parsing,
 * axes, drawing, hit testing and export live in rk-chart-*.c. */
#define G_LOG_DOMAIN "rk-chart"
#include "config.h"

#include "rk-chart.h"
#include "rk-chart-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

G_DEFINE_FINAL_TYPE (RkChart, rk_chart, G_TYPE_OBJECT)

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
series_clear (Series *s)
{
  g_free (s->name);
  g_free (s->x);
  g_free (s->y);
  g_free (s->base);
  g_free (s->top);
  g_free (s->edges);
  g_free (s->counts);
  g_free (s->outliers);
}

static void
rk_chart_finalize (GObject *object)
{
  RkChart *self = RK_CHART (object);

  for (guint i = 0; i < self->n_series; i++)
    series_clear (&self->series[i]);
  g_free (self->series);
  g_clear_pointer (&self->categories, g_ptr_array_unref);
  g_free (self->title);
  g_free (self->x_label);
  g_free (self->y_label);
  g_clear_pointer (&self->layout, g_free);
  g_clear_pointer (&self->grid, _rk_chart_hit_grid_free);
  g_mutex_clear (&self->cache_lock);

  G_OBJECT_CLASS (rk_chart_parent_class)->finalize (object);
}

static void
rk_chart_class_init (RkChartClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rk_chart_finalize;

  /**
   * RkChart::changed:
   *
   * The kind or the visible series changed: views redraw.
   */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
rk_chart_init (RkChart *self)
{
  self->xmin = self->xmax = self->ymin = self->ymax = NAN;
  g_mutex_init (&self->cache_lock);
}

/* ------------------------------------------------------------ layout cache */

const Layout *
_rk_chart_cached_layout (RkChart *self,
                         double   w,
                         double   h)
{
  if (self->layout == NULL || self->layout->w != w || self->layout->h != h)
    {
      /* measure text the way rk_chart_draw() does, so the layout matches */
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
      cairo_t *cr = cairo_create (surface);

      if (self->layout == NULL)
        self->layout = g_new (Layout, 1);
      _rk_chart_compute_layout (self, cr, w, h, self->layout);
      cairo_destroy (cr);
      cairo_surface_destroy (surface);
      g_clear_pointer (&self->grid, _rk_chart_hit_grid_free);
    }
  return self->layout;
}

void
_rk_chart_store_layout (RkChart      *self,
                        const Layout *L)
{
  g_mutex_lock (&self->cache_lock);
  if (self->layout == NULL || memcmp (self->layout, L, sizeof *L) != 0)
    {
      if (self->layout == NULL)
        self->layout = g_new (Layout, 1);
      *self->layout = *L;
      g_clear_pointer (&self->grid, _rk_chart_hit_grid_free);
    }
  g_mutex_unlock (&self->cache_lock);
}

void
_rk_chart_invalidate (RkChart *self)
{
  g_mutex_lock (&self->cache_lock);
  g_clear_pointer (&self->layout, g_free);
  g_clear_pointer (&self->grid, _rk_chart_hit_grid_free);
  g_mutex_unlock (&self->cache_lock);
}

static void
recompute (RkChart *self)
{
  if (self->stacked)
    _rk_chart_compute_stacks (self);
  _rk_chart_compute_extent (self);
  _rk_chart_invalidate (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* ---------------------------------------------------------------- accessors */

RkChartKind
rk_chart_get_kind (RkChart *self)
{
  g_return_val_if_fail (RK_IS_CHART (self), RK_CHART_KIND_LINE);
  return self->kind;
}

const char *
rk_chart_get_title (RkChart *self)
{
  g_return_val_if_fail (RK_IS_CHART (self), NULL);
  return self->title;
}

RkChartAxisType
rk_chart_get_x_type (RkChart *self)
{
  g_return_val_if_fail (RK_IS_CHART (self), RK_CHART_AXIS_NUMBER);
  return self->x_type;
}

guint
rk_chart_get_n_series (RkChart *self)
{
  g_return_val_if_fail (RK_IS_CHART (self), 0);
  return self->n_series;
}

const char *
rk_chart_get_series_name (RkChart *self,
                          guint    series)
{
  g_return_val_if_fail (RK_IS_CHART (self), NULL);
  g_return_val_if_fail (series < self->n_series, NULL);
  return self->series[series].name;
}

gsize
rk_chart_get_n_points (RkChart *self,
                       guint    series)
{
  g_return_val_if_fail (RK_IS_CHART (self), 0);
  g_return_val_if_fail (series < self->n_series, 0);
  if (self->kind == RK_CHART_KIND_HISTOGRAM)
    return self->series[series].nbins;
  return self->series[series].n;
}


const char *
rk_chart_get_x_label (RkChart *self)
{
  g_return_val_if_fail (RK_IS_CHART (self), NULL);
  return self->x_label;
}

const char *
rk_chart_get_y_label (RkChart *self)
{
  g_return_val_if_fail (RK_IS_CHART (self), NULL);
  return self->y_label;
}

gboolean
rk_chart_get_series_visible (RkChart *self,
                             guint    series)
{
  g_return_val_if_fail (RK_IS_CHART (self), FALSE);
  g_return_val_if_fail (series < self->n_series, FALSE);
  return !_rk_chart_series_hidden (self, series);
}

void
rk_chart_set_series_visible (RkChart  *self,
                             guint     series,
                             gboolean  visible)
{
  guint64 bit;

  g_return_if_fail (RK_IS_CHART (self));
  g_return_if_fail (series < self->n_series);

  bit = G_GUINT64_CONSTANT (1) << series;
  if (visible == !(self->hidden & bit))
    return;
  if (visible)
    self->hidden &= ~bit;
  else
    self->hidden |= bit;
  recompute (self);
}

/* Line, area, bar and scatter show the same (x, y) series; bars need
 * categories. Histograms and boxes stay what they are. */
gboolean
rk_chart_can_show_as (RkChart     *self,
                      RkChartKind  kind)
{
  g_return_val_if_fail (RK_IS_CHART (self), FALSE);

  if (kind == self->spec_kind)
    return TRUE;
  switch (self->spec_kind)
    {
    case RK_CHART_KIND_LINE:
    case RK_CHART_KIND_AREA:
    case RK_CHART_KIND_BAR:
    case RK_CHART_KIND_SCATTER:
      break;
    case RK_CHART_KIND_HISTOGRAM:
    case RK_CHART_KIND_BOX:
    default:
      return FALSE;
    }
  switch (kind)
    {
    case RK_CHART_KIND_LINE:
    case RK_CHART_KIND_AREA:
    case RK_CHART_KIND_SCATTER:
      return TRUE;
    case RK_CHART_KIND_BAR:
      return self->x_type == RK_CHART_AXIS_CATEGORY;
    case RK_CHART_KIND_HISTOGRAM:
    case RK_CHART_KIND_BOX:
    default:
      return FALSE;
    }
}

gboolean
rk_chart_set_kind (RkChart     *self,
                   RkChartKind  kind)
{
  g_return_val_if_fail (RK_IS_CHART (self), FALSE);

  if (!rk_chart_can_show_as (self, kind))
    return FALSE;
  if (kind == self->kind)
    return TRUE;
  self->kind = kind;
  /* The spec's stacking holds for the kinds that stack. */
  self->stacked = self->spec_stacked &&
                  (kind == RK_CHART_KIND_BAR || kind == RK_CHART_KIND_AREA);
  recompute (self);
  return TRUE;
}

static const char *
kind_label (RkChartKind kind)
{
  switch (kind)
    {
    case RK_CHART_KIND_LINE:
      return _("Line chart");
    case RK_CHART_KIND_AREA:
      return _("Area chart");
    case RK_CHART_KIND_BAR:
      return _("Bar chart");
    case RK_CHART_KIND_SCATTER:
      return _("Scatter plot");
    case RK_CHART_KIND_HISTOGRAM:
      return _("Histogram");
    case RK_CHART_KIND_BOX:
      return _("Box plot");
    default:
      return _("Chart");
    }
}

static void
append_range (GString    *out,
              RkChart    *self,
              double      lo,
              double      hi,
              gboolean    time)
{
  g_autofree char *a = time ? _rk_chart_format_exact_time (lo) : _rk_chart_format_exact (lo);
  g_autofree char *b = time ? _rk_chart_format_exact_time (hi) : _rk_chart_format_exact (hi);

  /* Translators: a range of values, "from 3 to 12" */
  g_string_append_printf (out, _("from %s to %s"), a, b);
}

char *
rk_chart_describe (RkChart *self)
{
  GString *out;
  guint visible = 0;

  g_return_val_if_fail (RK_IS_CHART (self), NULL);

  out = g_string_new (kind_label (self->kind));
  if (self->title != NULL && *self->title != '\0')
    g_string_append_printf (out, " “%s”", self->title);
  g_string_append (out, ". ");

  if (self->x_type == RK_CHART_AXIS_CATEGORY && self->kind != RK_CHART_KIND_BOX)
    {
      g_string_append_printf (out, ngettext ("Horizontal axis%s%s: %u category",
                                             "Horizontal axis%s%s: %u categories",
                                             self->categories->len),
                              self->x_label != NULL ? ", " : "",
                              self->x_label != NULL ? self->x_label : "",
                              self->categories->len);
      for (guint i = 0; i < self->categories->len && i < 12; i++)
        g_string_append_printf (out, "%s%s", i == 0 ? " (" : ", ",
                                (const char *) g_ptr_array_index (self->categories, i));
      if (self->categories->len > 0)
        g_string_append (out, self->categories->len > 12 ? ", …). " : "). ");
      else
        g_string_append (out, ". ");
    }
  else if (self->kind != RK_CHART_KIND_BOX && isfinite (self->xmin))
    {
      g_string_append_printf (out, _("Horizontal axis%s%s, "),
                              self->x_label != NULL ? ", " : "",
                              self->x_label != NULL ? self->x_label : "");
      append_range (out, self, self->xmin, self->xmax, self->x_type == RK_CHART_AXIS_TIME);
      g_string_append (out, ". ");
    }
  if (isfinite (self->ymin))
    {
      g_string_append_printf (out, _("Vertical axis%s%s, "),
                              self->y_label != NULL ? ", " : "",
                              self->y_label != NULL ? self->y_label : "");
      append_range (out, self, self->ymin, self->ymax, FALSE);
      g_string_append (out, ". ");
    }

  for (guint k = 0; k < self->n_series; k++)
    if (!_rk_chart_series_hidden (self, k))
      visible++;
  g_string_append_printf (out, ngettext ("%u series", "%u series", visible), visible);
  for (guint k = 0, shown = 0; k < self->n_series; k++)
    {
      const Series *s = &self->series[k];
      double lo = NAN, hi = NAN;
      gsize n = rk_chart_get_n_points (self, k);

      if (_rk_chart_series_hidden (self, k))
        continue;
      g_string_append (out, shown++ == 0 ? ": " : "; ");
      g_string_append (out, s->name);
      if (self->kind == RK_CHART_KIND_BOX)
        {
          g_autofree char *m = _rk_chart_format_exact (s->median);
          g_string_append_printf (out, _(", median %s, "), m);
          append_range (out, self, s->low, s->high, FALSE);
          continue;
        }
      for (gsize i = 0; i < n; i++)
        {
          double v = self->kind == RK_CHART_KIND_HISTOGRAM ? s->counts[i] : s->y[i];
          if (isnan (v))
            continue;
          lo = isnan (lo) || v < lo ? v : lo;
          hi = isnan (hi) || v > hi ? v : hi;
        }
      g_string_append_printf (out, ngettext (", %zu point", ", %zu points", n), n);
      if (!isnan (lo))
        {
          g_string_append (out, ", ");
          append_range (out, self, lo, hi, FALSE);
        }
    }
  g_string_append_c (out, '.');
  return g_string_free (out, FALSE);
}

gsize
rk_chart_get_n_values (RkChart *self,
                       guint    series)
{
  const Series *s;

  g_return_val_if_fail (RK_IS_CHART (self), 0);
  g_return_val_if_fail (series < self->n_series, 0);

  s = &self->series[series];
  switch (self->kind)
    {
    case RK_CHART_KIND_HISTOGRAM:
      return s->nbins;
    case RK_CHART_KIND_BOX:
      return s->has_mean ? 6 : 5;
    case RK_CHART_KIND_LINE:
    case RK_CHART_KIND_AREA:
    case RK_CHART_KIND_BAR:
    case RK_CHART_KIND_SCATTER:
    default:
      return s->n;
    }
}

gboolean
rk_chart_get_value (RkChart *self,
                    guint    series,
                    gsize    index,
                    double  *value)
{
  const Series *s;
  double v;

  g_return_val_if_fail (RK_IS_CHART (self), FALSE);
  g_return_val_if_fail (series < self->n_series, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  if (index >= rk_chart_get_n_values (self, series))
    return FALSE;
  s = &self->series[series];
  switch (self->kind)
    {
    case RK_CHART_KIND_HISTOGRAM:
      v = s->counts[index];
      break;
    case RK_CHART_KIND_BOX:
      {
        const double stats[] = { s->median, s->q1, s->q3, s->low, s->high, s->mean };
        v = stats[index];
      }
      break;
    case RK_CHART_KIND_LINE:
    case RK_CHART_KIND_AREA:
    case RK_CHART_KIND_BAR:
    case RK_CHART_KIND_SCATTER:
    default:
      v = s->y[index];
      break;
    }
  if (isnan (v))
    return FALSE;
  *value = v;
  return TRUE;
}
