/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-hit.c — what lies under the pointer, from the cached layout, and
 * its description for tooltips and screen readers. */
#define G_LOG_DOMAIN "rk-chart"
#include "config.h"

#include "rk-chart.h"
#include "rk-chart-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

/* --------------------------------------------------------------- hit test */

/* In a sorted series, the points with values just left and right of @xv
 * (G_MAXSIZE when there is none); @gap when missing values lie between them. */
static void
bracket_sorted (const Series *s,
                const double *ys,
                double        xv,
                gsize        *left,
                gsize        *right,
                gboolean     *gap)
{
  gsize lo = 0, hi = s->n;

  *left = *right = G_MAXSIZE;
  *gap = FALSE;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      /* NaN x values sit anywhere: skip to the next real one */
      gsize m = mid;
      while (m < hi && isnan (s->x[m]))
        m++;
      if (m == hi)
        {
          hi = mid;
          continue;
        }
      if (s->x[m] < xv)
        lo = m + 1;
      else
        hi = mid;
    }
  for (gsize j = lo; j < s->n; j++)
    {
      if (!isnan (s->x[j]) && !isnan (ys[j]))
        {
          *right = j;
          break;
        }
      *gap = TRUE;
    }
  for (gsize j = lo; j > 0; j--)
    {
      if (!isnan (s->x[j - 1]) && !isnan (ys[j - 1]))
        {
          *left = j - 1;
          break;
        }
      *gap = TRUE;
    }
}

/* --------------------------------------------------------- scatter grid */

#define HIT_RADIUS 24.0
/* Small cells: on a dense scatter the nearest point is found among the few
 * hundred points of nine cells, not the thousands within the radius. */
#define HIT_CELL 4.0

void
_rk_chart_hit_grid_free (HitGrid *grid)
{
  if (grid == NULL)
    return;
  g_free (grid->start);
  g_free (grid->items);
  g_free (grid);
}

static inline guint
grid_cell (const HitGrid *g,
           double         px,
           double         py)
{
  double fx = floor ((px - g->x0) / g->cell);
  double fy = floor ((py - g->y0) / g->cell);
  guint cx = (guint) CLAMP (fx, 0, (double) (g->cols - 1));
  guint cy = (guint) CLAMP (fy, 0, (double) (g->rows - 1));

  return cy * g->cols + cx;
}

/* Buckets every visible point by pixel cell (a counting sort: two passes). */
static HitGrid *
grid_build (RkChart      *self,
            const Layout *L)
{
  HitGrid *g = g_new0 (HitGrid, 1);
  g_autofree guint32 *cells = NULL;
  gsize total = 0, n = 0;
  guint n_cells;

  g->cell = HIT_CELL;
  g->x0 = L->l - HIT_RADIUS;
  g->y0 = L->t - HIT_RADIUS;
  g->cols = (guint) ceil ((L->r - L->l + 2 * HIT_RADIUS) / HIT_CELL) + 1;
  g->rows = (guint) ceil ((L->b - L->t + 2 * HIT_RADIUS) / HIT_CELL) + 1;
  n_cells = g->cols * g->rows;
  g->start = g_new0 (guint32, n_cells + 1);

  for (guint k = 0; k < self->n_series; k++)
    if (!_rk_chart_series_hidden (self, k))
      total += self->series[k].n;
  cells = g_new (guint32, MAX (total, 1));
  g->items = g_new (guint32, MAX (total, 1));

  for (guint k = 0; k < self->n_series; k++)
    {
      const Series *s = &self->series[k];
      const double *ys = self->stacked ? s->top : s->y;

      if (_rk_chart_series_hidden (self, k))
        continue;
      for (gsize i = 0; i < s->n; i++, n++)
        {
          double xv = series_x (s, i);

          if (isnan (xv) || isnan (ys[i]))
            {
              cells[n] = G_MAXUINT32;
              continue;
            }
          cells[n] = grid_cell (g, map_x (L, xv), map_y (L, ys[i]));
          g->start[cells[n] + 1]++;
        }
    }
  for (guint c = 0; c < n_cells; c++)
    g->start[c + 1] += g->start[c];

  n = 0;
  {
    g_autofree guint32 *fill = g_memdup2 (g->start, (gsize) n_cells * sizeof (guint32));

    for (guint k = 0; k < self->n_series; k++)
      {
        if (_rk_chart_series_hidden (self, k))
          continue;
        for (gsize i = 0; i < self->series[k].n; i++, n++)
          if (cells[n] != G_MAXUINT32)
            g->items[fill[cells[n]]++] = (guint32) k << 24 | (guint32) i;
      }
  }
  return g;
}

static inline void
grid_scan_cell (RkChart      *self,
                const Layout *L,
                guint         c,
                double        x,
                double        y,
                double       *best,
                guint32      *best_item)
{
  const HitGrid *g = self->grid;

  for (guint32 j = g->start[c]; j < g->start[c + 1]; j++)
    {
      guint32 item = g->items[j];
      const Series *s = &self->series[item >> 24];
      gsize i = item & 0xffffff;
      const double *ys = self->stacked ? s->top : s->y;
      double dx = map_x (L, series_x (s, i)) - x;
      double dy = map_y (L, ys[i]) - y;
      double d = dx * dx + dy * dy;

      if (d < *best || (d == *best && item < *best_item))
        {
          *best = d;
          *best_item = item;
        }
    }
}

/* The point nearest (@x, @y) within the hover radius; ties go to the
 * earlier series and point, as a scan in data order would find. Cells are
 * visited in rings around the pointer's cell; every point in ring r lies
 * more than (r - 1) cells away, so the search stops at the first ring that
 * cannot hold anything nearer (on dense data, after ring 1). */
static gboolean
grid_nearest (RkChart      *self,
              const Layout *L,
              double        x,
              double        y,
              guint        *series,
              gsize        *index)
{
  const HitGrid *g = self->grid;
  guint32 best_item = G_MAXUINT32;
  double best = HIT_RADIUS * HIT_RADIUS;
  int qx = (int) floor ((x - g->x0) / g->cell);
  int qy = (int) floor ((y - g->y0) / g->cell);

  for (int r = 0;; r++)
    {
      double bound = (r - 1) * g->cell;

      if (r > 0 && bound * bound >= best)
        break;
      for (int cy = qy - r; cy <= qy + r; cy++)
        {
          /* Whole rows at the ring's top and bottom, two cells between. */
          int step = (cy == qy - r || cy == qy + r) ? 1 : MAX (2 * r, 1);

          if (cy < 0 || cy >= (int) g->rows)
            continue;
          for (int cx = qx - r; cx <= qx + r; cx += step)
            if (cx >= 0 && cx < (int) g->cols)
              grid_scan_cell (self, L, (guint) cy * g->cols + (guint) cx, x, y, &best, &best_item);
        }
    }
  if (best_item == G_MAXUINT32)
    return FALSE;
  *series = best_item >> 24;
  *index = best_item & 0xffffff;
  return TRUE;
}

/* ------------------------------------------------------------- hit test */

/* Fills in where the point @hit->series, @hit->index sits, in data and
 * in pixels, once a line, area or scatter hit test has chosen it. */
static void
point_hit_fill (RkChart      *self,
                const Layout *L,
                RkChartHit   *hit)
{
  const Series *s = &self->series[hit->series];

  hit->x = hit->x_end = series_x (s, hit->index);
  hit->y = s->y[hit->index];
  hit->px = map_x (L, hit->x);
  hit->py = map_y (L, self->stacked ? s->top[hit->index] : hit->y);
}

static gboolean
hit_test_layout (RkChart      *self,
                 const Layout *layout,
                 gboolean      use_grid,
                 double        x,
                 double        y,
                 RkChartHit   *hit)
{
  Layout L = *layout;
  gboolean found = FALSE;
  double best = INFINITY;

  if (x < L.l - 6 || x > L.r + 6 || y < L.t - 6 || y > L.b + 2)
    return FALSE;

  if (self->kind == RK_CHART_KIND_SCATTER && use_grid)
    {
      if (self->grid == NULL)
        self->grid = grid_build (self, layout);
      found = grid_nearest (self, layout, x, y, &hit->series, &hit->index);
      if (found)
        point_hit_fill (self, &L, hit);
      return found;
    }

  switch (self->kind)
    {
    case RK_CHART_KIND_LINE:
    case RK_CHART_KIND_AREA:
    case RK_CHART_KIND_SCATTER:
      for (guint k = 0; k < self->n_series; k++)
        {
          const Series *s = &self->series[k];

          if (_rk_chart_series_hidden (self, k))
            continue;
          const double *ys = self->stacked ? s->top : s->y;
          gboolean scatter = self->kind == RK_CHART_KIND_SCATTER;

          if (!scatter && s->x_sorted && s->x != NULL)
            {
              double xv = unmap_x (&L, x), line_y, dxl, dxr, d;
              gsize left, right, i;
              gboolean gap;

              bracket_sorted (s, ys, xv, &left, &right, &gap);
              if (left == G_MAXSIZE && right == G_MAXSIZE)
                continue;
              dxl = left != G_MAXSIZE ? fabs (map_x (&L, s->x[left]) - x) : INFINITY;
              dxr = right != G_MAXSIZE ? fabs (map_x (&L, s->x[right]) - x) : INFINITY;
              i = dxl <= dxr ? left : right;

              /* dense data (many points a pixel column, drawn decimated): the
               * point nearest the pointer among those within 3 px of its
               * column, so hovering a spike gives the spike's value */
              if (MIN (dxl, dxr) <= 3)
                {
                  gsize from = right != G_MAXSIZE ? right : left;
                  gsize best_i = G_MAXSIZE, steps = 0;
                  double best_d2 = INFINITY;

                  for (gsize j = from; j < s->n && steps < 2000000; j++, steps++)
                    {
                      double px, py;
                      if (isnan (s->x[j]) || isnan (ys[j]))
                        continue;
                      px = map_x (&L, s->x[j]);
                      if (px - x > 3)
                        break;
                      py = map_y (&L, ys[j]);
                      if ((px - x) * (px - x) + (py - y) * (py - y) < best_d2)
                        {
                          best_d2 = (px - x) * (px - x) + (py - y) * (py - y);
                          best_i = j;
                        }
                    }
                  for (gsize j = from; j > 0 && steps < 4000000; j--, steps++)
                    {
                      double px, py;
                      if (isnan (s->x[j - 1]) || isnan (ys[j - 1]))
                        continue;
                      px = map_x (&L, s->x[j - 1]);
                      if (x - px > 3)
                        break;
                      py = map_y (&L, ys[j - 1]);
                      if ((px - x) * (px - x) + (py - y) * (py - y) < best_d2)
                        {
                          best_d2 = (px - x) * (px - x) + (py - y) * (py - y);
                          best_i = j - 1;
                        }
                    }
                  if (best_i != G_MAXSIZE && sqrt (best_d2) < best)
                    {
                      best = sqrt (best_d2);
                      hit->series = k;
                      hit->index = best_i;
                      found = TRUE;
                    }
                  continue;
                }
              /* pick the line nearest the pointer vertically, where it is
               * drawn (interpolated between its points), and report its
               * nearest data point */
              if (left != G_MAXSIZE && right != G_MAXSIZE && !gap && s->x[right] > s->x[left])
                {
                  double t = (xv - s->x[left]) / (s->x[right] - s->x[left]);
                  line_y = map_y (&L, ys[left] + t * (ys[right] - ys[left]));
                }
              else
                {
                  if (MIN (dxl, dxr) > 40)
                    continue;
                  line_y = map_y (&L, ys[i]);
                }
              d = fabs (line_y - y);
              if (d < best)
                {
                  best = d;
                  hit->series = k;
                  hit->index = i;
                  found = TRUE;
                }
              continue;
            }
          for (gsize i = 0; i < s->n; i++)
            {
              double xv = series_x (s, i), dx, dy, d;
              if (isnan (xv) || isnan (ys[i]))
                continue;
              dx = map_x (&L, xv) - x;
              dy = map_y (&L, ys[i]) - y;
              d = scatter ? dx * dx + dy * dy : fabs (dx) * 1000 + fabs (dy);
              if ((scatter ? d <= 24 * 24 : fabs (dx) <= 40) && d < best)
                {
                  best = d;
                  hit->series = k;
                  hit->index = i;
                  found = TRUE;
                }
            }
        }
      if (found)
        point_hit_fill (self, &L, hit);
      break;

    case RK_CHART_KIND_BAR:
      {
        double pos = unmap_x (&L, x);
        gint64 i = (gint64) floor (pos + 0.5);

        if (i < 0 || i >= (gint64) self->categories->len)
          return FALSE;
        for (guint k = 0; k < self->n_series; k++)
          {
            const Series *s = &self->series[k];

            if (_rk_chart_series_hidden (self, k))
              continue;
            double bx, bw, d;
            double v0, v1;

            if (isnan (s->y[i]))
              continue;
            _rk_chart_bar_geometry (self, &L, (gsize) i, k, &bx, &bw);
            if (x < bx - 2 || x > bx + bw + 2)
              continue;
            v0 = self->stacked ? s->base[i] : 0;
            v1 = self->stacked ? s->top[i] : s->y[i];
            {
              double ya = MIN (map_y (&L, v0), map_y (&L, v1));
              double yb = MAX (map_y (&L, v0), map_y (&L, v1));
              d = y < ya ? ya - y : y > yb ? y - yb : 0;
            }
            if (!self->stacked)
              d = 0;  /* the column under the pointer counts, however tall */
            if (d < best)
              {
                best = d;
                hit->series = k;
                hit->index = (gsize) i;
                hit->x = hit->x_end = (double) i;
                hit->y = s->y[i];
                hit->px = bx + bw / 2;
                hit->py = map_y (&L, v1);
                found = TRUE;
              }
          }
      }
      break;

    case RK_CHART_KIND_HISTOGRAM:
      {
        double xv = unmap_x (&L, x);

        for (guint k = 0; k < self->n_series; k++)
          {
            const Series *s = &self->series[k];

            if (_rk_chart_series_hidden (self, k))
              continue;
            for (gsize i = 0; i < s->nbins; i++)
              if (xv >= s->edges[i] && xv <= s->edges[i + 1])
                {
                  double d = fabs (map_y (&L, s->counts[i]) - y);
                  if (y >= map_y (&L, s->counts[i]))
                    d = 0;
                  if (d < best)
                    {
                      best = d;
                      hit->series = k;
                      hit->index = i;
                      hit->x = s->edges[i];
                      hit->x_end = s->edges[i + 1];
                      hit->y = s->counts[i];
                      hit->px = map_x (&L, (hit->x + hit->x_end) / 2);
                      hit->py = map_y (&L, hit->y);
                      found = TRUE;
                    }
                  break;
                }
          }
      }
      break;

    case RK_CHART_KIND_BOX:
      {
        gint64 k = (gint64) floor (unmap_x (&L, x) + 0.5);

        if (k < 0 || k >= (gint64) self->n_series || _rk_chart_series_hidden (self, (guint) k))
          return FALSE;
        hit->series = (guint) k;
        hit->index = 0;
        hit->x = hit->x_end = (double) k;
        hit->y = self->series[k].median;
        hit->px = map_x (&L, (double) k);
        hit->py = map_y (&L, hit->y);
        found = TRUE;
      }
      break;

    default:
      break;
    }
  return found;
}

gboolean
rk_chart_hit_test (RkChart    *self,
                   double      width,
                   double      height,
                   double      x,
                   double      y,
                   RkChartHit *hit)
{
  gboolean found;

  g_return_val_if_fail (RK_IS_CHART (self), FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  memset (hit, 0, sizeof *hit);
  if (width < 40 || height < 40 || self->n_series == 0)
    return FALSE;

  g_mutex_lock (&self->cache_lock);
  found = hit_test_layout (self, _rk_chart_cached_layout (self, width, height), TRUE, x, y, hit);
  g_mutex_unlock (&self->cache_lock);
  return found;
}

gboolean
_rk_chart_hit_test_uncached (RkChart    *self,
                             double      width,
                             double      height,
                             double      x,
                             double      y,
                             RkChartHit *hit)
{
  cairo_surface_t *surface;
  cairo_t *cr;
  Layout L;

  memset (hit, 0, sizeof *hit);
  if (width < 40 || height < 40 || self->n_series == 0)
    return FALSE;
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cr = cairo_create (surface);
  _rk_chart_compute_layout (self, cr, width, height, &L);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return hit_test_layout (self, &L, FALSE, x, y, hit);
}

gboolean
rk_chart_locate (RkChart    *self,
                 double      width,
                 double      height,
                 guint       series,
                 gsize       index,
                 RkChartHit *hit)
{
  const Series *s;
  gboolean found = TRUE;
  Layout L;

  g_return_val_if_fail (RK_IS_CHART (self), FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  memset (hit, 0, sizeof *hit);
  if (width < 40 || height < 40 || series >= self->n_series || _rk_chart_series_hidden (self, series))
    return FALSE;
  s = &self->series[series];
  g_mutex_lock (&self->cache_lock);
  L = *_rk_chart_cached_layout (self, width, height);
  g_mutex_unlock (&self->cache_lock);

  hit->series = series;
  hit->index = index;
  switch (self->kind)
    {
    case RK_CHART_KIND_HISTOGRAM:
      if (index >= s->nbins)
        return FALSE;
      hit->x = s->edges[index];
      hit->x_end = s->edges[index + 1];
      hit->y = s->counts[index];
      hit->px = map_x (&L, (hit->x + hit->x_end) / 2);
      hit->py = map_y (&L, hit->y);
      break;
    case RK_CHART_KIND_BOX:
      if (index != 0)
        return FALSE;
      hit->x = hit->x_end = (double) series;
      hit->y = s->median;
      hit->px = map_x (&L, (double) series);
      hit->py = map_y (&L, hit->y);
      break;
    case RK_CHART_KIND_BAR:
      {
        double bx, bw;

        if (index >= s->n || index >= self->categories->len || isnan (s->y[index]))
          return FALSE;
        _rk_chart_bar_geometry (self, &L, index, series, &bx, &bw);
        hit->x = hit->x_end = (double) index;
        hit->y = s->y[index];
        hit->px = bx + bw / 2;
        hit->py = map_y (&L, self->stacked ? s->top[index] : s->y[index]);
      }
      break;
    case RK_CHART_KIND_LINE:
    case RK_CHART_KIND_AREA:
    case RK_CHART_KIND_SCATTER:
    default:
      if (index >= s->n || isnan (series_x (s, index)) || isnan (s->y[index]))
        return FALSE;
      hit->x = hit->x_end = series_x (s, index);
      hit->y = s->y[index];
      hit->px = map_x (&L, hit->x);
      hit->py = map_y (&L, self->stacked ? s->top[index] : hit->y);
      break;
    }
  return found;
}

int
rk_chart_legend_hit_test (RkChart *self,
                          double   width,
                          double   height,
                          double   x,
                          double   y)
{
  int series = -1;

  g_return_val_if_fail (RK_IS_CHART (self), -1);

  g_mutex_lock (&self->cache_lock);
  if (self->legend_w == width && self->legend_h == height)
    for (guint k = 0; k < self->n_series; k++)
      {
        const double *b = self->legend_boxes[k];

        if (b[2] > 0 && x >= b[0] && x < b[0] + b[2] && y >= b[1] && y < b[1] + b[3])
          {
            series = (int) k;
            break;
          }
      }
  g_mutex_unlock (&self->cache_lock);
  return series;
}

static char *
format_x (RkChart *self,
          double   v)
{
  if (self->x_type == RK_CHART_AXIS_TIME)
    return _rk_chart_format_exact_time (v);
  return _rk_chart_format_exact (v);
}

char *
rk_chart_describe_hit (RkChart          *self,
                       const RkChartHit *hit)
{
  const Series *s;
  const char *xl, *yl;

  g_return_val_if_fail (RK_IS_CHART (self), NULL);
  g_return_val_if_fail (hit != NULL, NULL);
  g_return_val_if_fail (hit->series < self->n_series, NULL);

  s = &self->series[hit->series];
  xl = self->x_label != NULL ? self->x_label : "x";
  yl = self->y_label != NULL ? self->y_label : "y";

  switch (self->kind)
    {
    case RK_CHART_KIND_BOX:
      {
        g_autofree char *q1 = _rk_chart_format_exact (s->q1);
        g_autofree char *med = _rk_chart_format_exact (s->median);
        g_autofree char *q3 = _rk_chart_format_exact (s->q3);
        g_autofree char *lo = _rk_chart_format_exact (s->low);
        g_autofree char *hi = _rk_chart_format_exact (s->high);
        return g_strdup_printf (_("%s\nmedian: %s\nquartiles: %s – %s\nwhiskers: %s – %s\noutliers: %u"),
                                s->name, med, q1, q3, lo, hi, (guint) s->n_outliers);
      }
    case RK_CHART_KIND_HISTOGRAM:
      {
        g_autofree char *a = _rk_chart_format_exact (hit->x);
        g_autofree char *b = _rk_chart_format_exact (hit->x_end);
        g_autofree char *c = _rk_chart_format_exact (hit->y);
        return g_strdup_printf (_("%s\n%s – %s\ncount: %s"), s->name, a, b, c);
      }
    case RK_CHART_KIND_BAR:
      {
        g_autofree char *v = _rk_chart_format_exact (hit->y);
        const char *cat = hit->index < self->categories->len
                          ? g_ptr_array_index (self->categories, hit->index) : "";
        return g_strdup_printf ("%s\n%s: %s", s->name, cat, v);
      }
    default:
      {
        g_autofree char *xs = self->x_type == RK_CHART_AXIS_CATEGORY && hit->index < self->categories->len
                              ? g_strdup (g_ptr_array_index (self->categories, hit->index))
                              : format_x (self, hit->x);
        g_autofree char *ys = _rk_chart_format_exact (hit->y);
        return g_strdup_printf ("%s\n%s: %s\n%s: %s", s->name, xl, xs, yl, ys);
      }
    }
}

