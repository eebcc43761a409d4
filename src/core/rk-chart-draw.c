/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-draw.c — draws a chart with Cairo: palettes for light and dark,
 * axes, legend, and series (large ones decimated per pixel column). */
#define G_LOG_DOMAIN "rk-chart"
#include "config.h"

#include "rk-chart.h"
#include "rk-chart-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>


/* GNOME HIG palette: darker shades on light, lighter ones on dark. */
static const Palette light_palette = {
  { 1, 1, 1 }, { 0.14, 0.14, 0.16 }, { 0.36, 0.36, 0.40 }, { 0.90, 0.90, 0.91 }, { 0.55, 0.55, 0.58 },
  { { 0.110, 0.443, 0.847 }, { 0.902, 0.380, 0.000 }, { 0.149, 0.635, 0.412 }, { 0.506, 0.239, 0.612 },
    { 0.753, 0.110, 0.157 }, { 0.000, 0.560, 0.560 }, { 0.525, 0.369, 0.235 }, { 0.800, 0.560, 0.000 },
    { 0.839, 0.200, 0.424 }, { 0.369, 0.361, 0.392 } },
};
static const Palette dark_palette = {
  { 0.141, 0.141, 0.141 }, { 0.96, 0.96, 0.96 }, { 0.70, 0.70, 0.72 }, { 0.24, 0.24, 0.25 }, { 0.50, 0.50, 0.52 },
  { { 0.384, 0.627, 0.918 }, { 1.000, 0.639, 0.282 }, { 0.341, 0.890, 0.537 }, { 0.753, 0.380, 0.796 },
    { 0.965, 0.380, 0.318 }, { 0.357, 0.784, 0.686 }, { 0.804, 0.671, 0.561 }, { 0.973, 0.894, 0.361 },
    { 0.945, 0.498, 0.627 }, { 0.753, 0.749, 0.737 } },
};

static void
set_rgb (cairo_t *cr, Rgb c, double alpha)
{
  cairo_set_source_rgba (cr, c.r, c.g, c.b, alpha);
}

typedef struct
{
  double x, y;
} Pt;


/* Min/max decimation: consecutive points that fall in one pixel column are
 * reduced to their first, lowest, highest and last (in data order), so no
 * spike is lost while at most four points a column are drawn. Gaps (NaN)
 * become a break (x = NaN) in @out. */
static void
flush_bucket (const Layout *L,
              const Series *s,
              const double *ys,
              const gsize   idx[4],
              GArray       *out)
{
  gsize o[4] = { idx[0], idx[1], idx[2], idx[3] };

  for (int a = 1; a < 4; a++)
    for (int b = a; b > 0 && o[b] < o[b - 1]; b--)
      {
        gsize t = o[b];
        o[b] = o[b - 1];
        o[b - 1] = t;
      }
  for (int a = 0; a < 4; a++)
    if (a == 0 || o[a] != o[a - 1])
      {
        Pt p = { map_x (L, series_x (s, o[a])), map_y (L, ys[o[a]]) };
        g_array_append_val (out, p);
      }
}

static void
decimate (const Layout *L,
          const Series *s,
          const double *ys,
          GArray       *out)
{
  gint64 col = G_MININT64;
  gsize idx[4] = { 0 };  /* first, min, max, last */
  gboolean open = FALSE;
  const Pt brk = { NAN, NAN };
  /* map_x as one multiply-add, for the hot loop */
  const double sx = (L->r - L->l) / (L->x1 - L->x0);
  const double ox = L->l - L->x0 * sx;
  double ymin = 0, ymax = 0;

  for (gsize i = 0; i < s->n; i++)
    {
      double xv = s->x != NULL ? s->x[i] : (double) i, yv = ys[i], px;
      gint64 c;

      if (G_UNLIKELY (isnan (xv) || isnan (yv)))
        {
          if (open)
            flush_bucket (L, s, ys, idx, out);
          open = FALSE;
          col = G_MININT64;
          if (out->len > 0 && !isnan (g_array_index (out, Pt, out->len - 1).x))
            g_array_append_val (out, brk);
          continue;
        }
      px = xv * sx + ox;
      c = px < -1e6 ? -1000000 : px > 1e6 ? 1000000 : (gint64) floor (px);
      if (G_LIKELY (open && c == col))
        {
          if (yv < ymin)
            {
              ymin = yv;
              idx[1] = i;
            }
          else if (yv > ymax)
            {
              ymax = yv;
              idx[2] = i;
            }
          idx[3] = i;
          continue;
        }
      if (open)
        flush_bucket (L, s, ys, idx, out);
      open = TRUE;
      col = c;
      idx[0] = idx[1] = idx[2] = idx[3] = i;
      ymin = ymax = yv;
    }
  if (open)
    flush_bucket (L, s, ys, idx, out);
}

static void
path_polyline (cairo_t *cr,
               GArray  *pts)
{
  gboolean pen = FALSE;

  for (guint i = 0; i < pts->len; i++)
    {
      Pt p = g_array_index (pts, Pt, i);

      if (isnan (p.x))
        {
          pen = FALSE;
          continue;
        }
      if (pen)
        cairo_line_to (cr, p.x, p.y);
      else
        cairo_move_to (cr, p.x, p.y);
      pen = TRUE;
    }
}

static void
draw_lines (RkChart      *self,
            cairo_t      *cr,
            const Layout *L,
            const Palette *pal)
{
  double baseline = map_y (L, CLAMP (0, L->y0, L->y1));

  for (guint k = 0; k < self->n_series; k++)
    {
      const Series *s = &self->series[k];

      if (_rk_chart_series_hidden (self, k))
        continue;
      Rgb c = pal->palette[k % N_COLORS];
      g_autoptr(GArray) top = g_array_new (FALSE, FALSE, sizeof (Pt));

      decimate (L, s, self->stacked ? s->top : s->y, top);
      if (self->kind == RK_CHART_KIND_AREA)
        {
          if (self->stacked)
            {
              g_autoptr(GArray) bottom = g_array_new (FALSE, FALSE, sizeof (Pt));

              decimate (L, s, s->base, bottom);
              path_polyline (cr, top);
              for (guint i = bottom->len; i > 0; i--)
                {
                  Pt p = g_array_index (bottom, Pt, i - 1);
                  if (!isnan (p.x))
                    cairo_line_to (cr, p.x, p.y);
                }
              cairo_close_path (cr);
              set_rgb (cr, c, 0.55);
              cairo_fill (cr);
            }
          else
            {
              /* each unbroken run is filled down to zero */
              guint start = 0;
              for (guint i = 0; i <= top->len; i++)
                {
                  if (i < top->len && !isnan (g_array_index (top, Pt, i).x))
                    continue;
                  if (i > start)
                    {
                      Pt first = g_array_index (top, Pt, start);
                      Pt last = g_array_index (top, Pt, i - 1);
                      cairo_move_to (cr, first.x, baseline);
                      for (guint j = start; j < i; j++)
                        cairo_line_to (cr, g_array_index (top, Pt, j).x, g_array_index (top, Pt, j).y);
                      cairo_line_to (cr, last.x, baseline);
                      cairo_close_path (cr);
                    }
                  start = i + 1;
                }
              set_rgb (cr, c, 0.25);
              cairo_fill (cr);
            }
        }
      path_polyline (cr, top);
      if (k >= N_COLORS)
        {
          /* colours repeat past the palette: tell those lines apart by dashes */
          static const double dashes[][2] = { { 6, 3 }, { 2, 3 }, { 10, 4 } };
          cairo_set_dash (cr, dashes[(k / N_COLORS - 1) % 3], 2, 0);
        }
      else
        cairo_set_dash (cr, NULL, 0, 0);
      cairo_set_line_width (cr, s->n > (gsize) (L->r - L->l) * 2 ? 1.0 : 2.0);
      cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
      cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
      set_rgb (cr, c, 1);
      cairo_stroke (cr);

      /* a lone point between gaps would not show as a line: mark it */
      if (s->n <= 2000)
        for (guint i = 0; i < top->len; i++)
          {
            Pt p = g_array_index (top, Pt, i);
            gboolean alone = !isnan (p.x) &&
                             (i == 0 || isnan (g_array_index (top, Pt, i - 1).x)) &&
                             (i + 1 == top->len || isnan (g_array_index (top, Pt, i + 1).x));
            if (alone)
              {
                cairo_arc (cr, p.x, p.y, 2.5, 0, 2 * G_PI);
                cairo_fill (cr);
              }
          }
    }
}

static void
draw_scatter (RkChart       *self,
              cairo_t       *cr,
              const Layout  *L,
              const Palette *pal)
{
  int gw = (int) ceil (L->w) + 1, gh = (int) ceil (L->h) + 1;

  for (guint k = 0; k < self->n_series; k++)
    {
      const Series *s = &self->series[k];

      if (_rk_chart_series_hidden (self, k))
        continue;
      Rgb c = pal->palette[k % N_COLORS];

      set_rgb (cr, c, s->n > 5000 ? 0.9 : 0.75);
      if (s->n <= 20000)
        {
          double r = s->n > 2000 ? 2.0 : 3.5;
          for (gsize i = 0; i < s->n; i++)
            {
              double xv = series_x (s, i);
              if (isnan (xv) || isnan (s->y[i]))
                continue;
              cairo_new_sub_path (cr);
              cairo_arc (cr, map_x (L, xv), map_y (L, s->y[i]), r, 0, 2 * G_PI);
            }
          cairo_fill (cr);
        }
      else
        {
          /* many points: one dot per occupied pixel */
          g_autofree guint8 *seen = g_malloc0 ((gsize) gw * gh);

          for (gsize i = 0; i < s->n; i++)
            {
              double xv = series_x (s, i), px, py;
              if (isnan (xv) || isnan (s->y[i]))
                continue;
              px = map_x (L, xv);
              py = map_y (L, s->y[i]);
              if (px < 0 || py < 0 || px >= gw || py >= gh)
                continue;
              seen[(gsize) py * gw + (gsize) px] = 1;
            }
          for (int yy = 0; yy < gh; yy++)
            for (int xx = 0; xx < gw; xx++)
              if (seen[(gsize) yy * gw + xx])
                cairo_rectangle (cr, xx - 0.5, yy - 0.5, 2, 2);
          cairo_fill (cr);
        }
    }
}

void
_rk_chart_bar_geometry (RkChart      *self,
                        const Layout *L,
                        gsize         i,
                        guint         k,
                        double       *x,
                        double       *w)
{
  double slot = (L->r - L->l) / MAX (self->categories->len, 1);
  double group = slot * 0.8;
  double left = map_x (L, (double) i) - group / 2;

  if (self->stacked || self->n_series <= 1)
    {
      *x = left;
      *w = group;
    }
  else
    {
      *w = group / self->n_series;
      *x = left + k * *w;
    }
}

static void
draw_bars (RkChart       *self,
           cairo_t       *cr,
           const Layout  *L,
           const Palette *pal)
{
  int n_cols = (int) ceil (L->w) + 2;
  g_autofree double *col_top = NULL;
  g_autofree double *col_bottom = NULL;

  for (guint k = 0; k < self->n_series; k++)
    {
      const Series *s = &self->series[k];

      if (_rk_chart_series_hidden (self, k))
        continue;
      double x, bw;

      if (s->n == 0)
        continue;
      _rk_chart_bar_geometry (self, L, 0, k, &x, &bw);
      if (bw < 1.5)
        {
          /* thousands of sub-pixel bars: overlapping rectangles are slow to
           * rasterise and look the same as one column per pixel spanning
           * their extremes, so draw that */
          if (col_top == NULL)
            {
              col_top = g_new (double, n_cols);
              col_bottom = g_new (double, n_cols);
            }
          for (int c = 0; c < n_cols; c++)
            {
              col_top[c] = INFINITY;
              col_bottom[c] = -INFINITY;
            }
          for (gsize i = 0; i < s->n; i++)
            {
              double y0, y1;
              int c;

              if (isnan (s->y[i]))
                continue;
              _rk_chart_bar_geometry (self, L, i, k, &x, &bw);
              c = (int) CLAMP (floor (x), 0, n_cols - 1);
              y0 = map_y (L, self->stacked ? s->base[i] : 0);
              y1 = map_y (L, self->stacked ? s->top[i] : s->y[i]);
              col_top[c] = MIN (col_top[c], MIN (y0, y1));
              col_bottom[c] = MAX (col_bottom[c], MAX (y0, y1));
            }
          for (int c = 0; c < n_cols; c++)
            if (col_bottom[c] >= col_top[c])
              cairo_rectangle (cr, c, col_top[c], 1, MAX (col_bottom[c] - col_top[c], 0.5));
          set_rgb (cr, pal->palette[k % N_COLORS], 1);
          cairo_fill (cr);
          continue;
        }

      for (gsize i = 0; i < s->n; i++)
        {
          double y0, y1, gap;

          if (isnan (s->y[i]))
            continue;
          _rk_chart_bar_geometry (self, L, i, k, &x, &bw);
          y0 = map_y (L, self->stacked ? s->base[i] : 0);
          y1 = map_y (L, self->stacked ? s->top[i] : s->y[i]);
          gap = bw > 6 ? 1 : 0;
          cairo_rectangle (cr, x + gap, MIN (y0, y1), MAX (bw - 2 * gap, 1), fabs (y1 - y0));
        }
      set_rgb (cr, pal->palette[k % N_COLORS], 1);
      cairo_fill (cr);
    }
}

static void
draw_histogram (RkChart       *self,
                cairo_t       *cr,
                const Layout  *L,
                const Palette *pal)
{
  double y0 = map_y (L, CLAMP (0, L->y0, L->y1));

  for (guint k = 0; k < self->n_series; k++)
    {
      const Series *s = &self->series[k];

      if (_rk_chart_series_hidden (self, k))
        continue;
      Rgb c = pal->palette[k % N_COLORS];

      for (gsize i = 0; i < s->nbins; i++)
        {
          double xa = map_x (L, s->edges[i]), xb = map_x (L, s->edges[i + 1]);
          double gap = xb - xa > 4 ? 0.5 : 0;
          double y1 = map_y (L, s->counts[i]);
          cairo_rectangle (cr, xa + gap, y1, MAX (xb - xa - 2 * gap, 0.5), y0 - y1);
        }
      set_rgb (cr, c, self->n_series > 1 ? 0.55 : 0.9);
      cairo_fill (cr);
    }
}

static void
draw_boxes (RkChart       *self,
            cairo_t       *cr,
            const Layout  *L,
            const Palette *pal)
{
  double slot = (L->r - L->l) / MAX (self->n_series, 1);
  double bw = MIN (slot * 0.5, 120), cap = bw * 0.5;

  for (guint k = 0; k < self->n_series; k++)
    {
      const Series *s = &self->series[k];

      if (_rk_chart_series_hidden (self, k))
        continue;
      Rgb c = pal->palette[k % N_COLORS];
      double cx = map_x (L, k), cxr = round (cx) + 0.5;
      double yq1 = map_y (L, s->q1), yq3 = map_y (L, s->q3);

      cairo_set_line_width (cr, 1.5);
      set_rgb (cr, c, 1);
      /* whiskers and caps */
      cairo_move_to (cr, cxr, map_y (L, s->high));
      cairo_line_to (cr, cxr, yq3);
      cairo_move_to (cr, cxr, yq1);
      cairo_line_to (cr, cxr, map_y (L, s->low));
      cairo_move_to (cr, cx - cap / 2, map_y (L, s->high));
      cairo_line_to (cr, cx + cap / 2, map_y (L, s->high));
      cairo_move_to (cr, cx - cap / 2, map_y (L, s->low));
      cairo_line_to (cr, cx + cap / 2, map_y (L, s->low));
      cairo_stroke (cr);
      /* the box */
      cairo_rectangle (cr, cx - bw / 2, yq3, bw, yq1 - yq3);
      set_rgb (cr, c, 0.3);
      cairo_fill_preserve (cr);
      set_rgb (cr, c, 1);
      cairo_stroke (cr);
      /* median */
      cairo_set_line_width (cr, 2.5);
      cairo_move_to (cr, cx - bw / 2, map_y (L, s->median));
      cairo_line_to (cr, cx + bw / 2, map_y (L, s->median));
      cairo_stroke (cr);
      /* mean as a small diamond */
      if (s->has_mean)
        {
          double my = map_y (L, s->mean);
          cairo_move_to (cr, cx, my - 4);
          cairo_line_to (cr, cx + 4, my);
          cairo_line_to (cr, cx, my + 4);
          cairo_line_to (cr, cx - 4, my);
          cairo_close_path (cr);
          set_rgb (cr, pal->fg, 0.8);
          cairo_fill (cr);
        }
      /* outliers */
      cairo_set_line_width (cr, 1.2);
      set_rgb (cr, c, 1);
      for (gsize i = 0; i < s->n_outliers; i++)
        {
          cairo_new_sub_path (cr);
          cairo_arc (cr, cx, map_y (L, s->outliers[i]), 2.5, 0, 2 * G_PI);
        }
      cairo_stroke (cr);
    }
}

static void
draw_axes (RkChart       *self,
           cairo_t       *cr,
           const Layout  *L,
           const Palette *pal)
{
  double tick_h;

  _rk_chart_text_size (cr, "0", FONT_PX, FALSE, NULL, &tick_h);

  /* horizontal grid and y labels */
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < L->n_yt; i++)
    {
      double y = round (map_y (L, L->yt[i])) + 0.5;
      g_autofree char *s = _rk_chart_format_tick (L->yt[i], L->ystep, _rk_chart_axis_magnitude (L->yt, L->n_yt));

      if (y < L->t - 1 || y > L->b + 1)
        continue;
      set_rgb (cr, pal->grid, 1);
      cairo_move_to (cr, L->l, y);
      cairo_line_to (cr, L->r, y);
      cairo_stroke (cr);
      set_rgb (cr, pal->muted, 1);
      _rk_chart_draw_text (cr, s, FONT_PX, FALSE, L->l - 8, y, 1, 0.5, 0);
    }

  /* x ticks and labels */
  set_rgb (cr, pal->muted, 1);
  if (self->x_type == RK_CHART_AXIS_CATEGORY)
    {
      double slot = (L->r - L->l) / MAX (self->categories->len, 1);
      double maxw = MAX (2.5 * slot * L->cat_stride - 8, 24);

      maxw = MIN (maxw, slot * L->cat_stride - 4);
      for (guint i = 0; i < self->categories->len; i += L->cat_stride)
        {
          const char *label = g_ptr_array_index (self->categories, i);
          double x = map_x (L, i), tw, ax = 0.5;

          if (L->cat_rotate)
            {
              cairo_save (cr);
              cairo_translate (cr, x, L->b + 4 + tick_h / 2);
              cairo_rotate (cr, -G_PI / 4);
              _rk_chart_draw_text (cr, label, FONT_PX, FALSE, 0, 0, 1, 0.5, L->cat_rot_w);
              cairo_restore (cr);
              continue;
            }
          /* keep edge labels inside the picture */
          _rk_chart_text_size (cr, label, FONT_PX, FALSE, &tw, NULL);
          if (L->cat_label_w > maxw)
            tw = MIN (tw, MAX (maxw, 12));
          if (x - tw / 2 < 2)
            {
              x = 2;
              ax = 0;
            }
          else if (x + tw / 2 > L->w - 2)
            {
              x = L->w - 2;
              ax = 1;
            }
          _rk_chart_draw_text (cr, label, FONT_PX, FALSE, x, L->b + 6, ax, 0,
                     L->cat_label_w > maxw ? MAX (maxw, 12) : 0);
        }
    }
  else
    {
      for (guint i = 0; i < L->n_xt; i++)
        {
          double x = round (map_x (L, L->xt[i])) + 0.5;
          g_autofree char *s = _rk_chart_x_tick_label (self, L, i);
          double tw, ax = 0.5;

          if (x < L->l - 1 || x > L->r + 1)
            continue;
          if (self->kind == RK_CHART_KIND_SCATTER)
            {
              set_rgb (cr, pal->grid, 1);
              cairo_move_to (cr, x, L->t);
              cairo_line_to (cr, x, L->b);
              cairo_stroke (cr);
            }
          set_rgb (cr, pal->axis, 1);
          cairo_move_to (cr, x, L->b);
          cairo_line_to (cr, x, L->b + 4);
          cairo_stroke (cr);
          /* keep edge labels inside the picture */
          _rk_chart_text_size (cr, s, FONT_PX, FALSE, &tw, NULL);
          if (x - tw / 2 < 2)
            ax = 0;
          else if (x + tw / 2 > L->w - 2)
            ax = 1;
          set_rgb (cr, pal->muted, 1);
          _rk_chart_draw_text (cr, s, FONT_PX, FALSE, x, L->b + 6, ax, 0, 0);
        }
    }

  /* the x axis line */
  set_rgb (cr, pal->axis, 1);
  cairo_move_to (cr, L->l, round (L->b) + 0.5);
  cairo_line_to (cr, L->r, round (L->b) + 0.5);
  cairo_stroke (cr);

  /* axis titles */
  set_rgb (cr, pal->fg, 0.85);
  if (self->x_label != NULL && *self->x_label != '\0')
    _rk_chart_draw_text (cr, self->x_label, FONT_PX, FALSE, (L->l + L->r) / 2,
               L->h - PAD, 0.5, 1, L->r - L->l);
  if (self->y_label != NULL && *self->y_label != '\0')
    {
      cairo_save (cr);
      cairo_translate (cr, PAD, (L->t + L->b) / 2);
      cairo_rotate (cr, -G_PI / 2);
      _rk_chart_draw_text (cr, self->y_label, FONT_PX, FALSE, 0, 0, 0.5, 0, L->b - L->t);
      cairo_restore (cr);
    }
}

static void
draw_legend (RkChart       *self,
             cairo_t       *cr,
             const Layout  *L,
             const Palette *pal,
             double         boxes[][4])
{
  double avail = L->w - 2 * PAD;
  guint k = 0;

  for (guint row = 0; row < L->legend_rows && k < self->n_series; row++)
    {
      double widths[RK_CHART_MAX_SERIES];
      double total = 0, x, y = L->legend_y + row * L->legend_row_h;
      gboolean last_row = row + 1 == L->legend_rows;
      g_autofree char *more = NULL;
      double more_w = 0;
      guint first = k;

      for (; k < self->n_series; k++)
        {
          double tw;
          _rk_chart_text_size (cr, self->series[k].name, FONT_PX, FALSE, &tw, NULL);
          widths[k] = MIN (tw, 200) + 12 + 6 + 18;
          /* the last row keeps room to say how many did not fit */
          if (k > first && total + widths[k] > avail - (last_row ? 90 : 0))
            break;
          total += widths[k];
        }
      if (last_row && k < self->n_series)
        {
          more = g_strdup_printf (_("+%u more"), self->n_series - k);
          _rk_chart_text_size (cr, more, FONT_PX, FALSE, &more_w, NULL);
          total += more_w;
        }
      x = MAX (PAD, (L->w - total) / 2);
      for (guint j = first; j < k; j++)
        {
          set_rgb (cr, pal->palette[j % N_COLORS], _rk_chart_series_hidden (self, j) ? 0.25 : 1);
          if (self->kind == RK_CHART_KIND_LINE && j >= N_COLORS)
            {
              /* a line sample, dashed as the line is */
              static const double dashes[][2] = { { 6, 3 }, { 2, 3 }, { 10, 4 } };
              cairo_save (cr);
              cairo_set_line_width (cr, 2);
              cairo_set_dash (cr, dashes[(j / N_COLORS - 1) % 3], 2, 0);
              cairo_move_to (cr, x - 1, y + (L->legend_row_h - 4) / 2);
              cairo_line_to (cr, x + 13, y + (L->legend_row_h - 4) / 2);
              cairo_stroke (cr);
              cairo_restore (cr);
            }
          else
            {
              cairo_rectangle (cr, x, y + (L->legend_row_h - 4) / 2 - 5, 12, 10);
              cairo_fill (cr);
            }
          set_rgb (cr, pal->fg, _rk_chart_series_hidden (self, j) ? 0.4 : 0.9);
          _rk_chart_draw_text (cr, self->series[j].name, FONT_PX, FALSE, x + 18, y, 0, 0, 200);
          boxes[j][0] = x - 2;
          boxes[j][1] = y - 2;
          boxes[j][2] = widths[j] - 2;
          boxes[j][3] = L->legend_row_h;
          x += widths[j];
        }
      if (more != NULL)
        {
          set_rgb (cr, pal->muted, 1);
          _rk_chart_draw_text (cr, more, FONT_PX, FALSE, x, y, 0, 0, 0);
        }
    }
}

void
rk_chart_draw (RkChart      *self,
               cairo_t      *cr,
               double        width,
               double        height,
               RkChartStyle  style)
{
  const Palette *pal = style == RK_CHART_STYLE_DARK ? &dark_palette : &light_palette;
  Layout L;

  g_return_if_fail (RK_IS_CHART (self));
  g_return_if_fail (cr != NULL);

  cairo_save (cr);
  set_rgb (cr, pal->bg, 1);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);

  if (width < 40 || height < 40)
    {
      cairo_restore (cr);
      return;
    }

  _rk_chart_compute_layout (self, cr, width, height, &L);
  _rk_chart_store_layout (self, &L);

  if (self->title != NULL && *self->title != '\0')
    {
      set_rgb (cr, pal->fg, 1);
      _rk_chart_draw_text (cr, self->title, FONT_PX * 1.25, TRUE, width / 2, L.title_y, 0.5, 0, width - 2 * PAD);
    }
  if (L.legend_rows > 0)
    {
      double boxes[RK_CHART_MAX_SERIES][4] = { { 0 } };

      draw_legend (self, cr, &L, pal, boxes);
      g_mutex_lock (&self->cache_lock);
      memcpy (self->legend_boxes, boxes, sizeof boxes);
      self->legend_w = width;
      self->legend_h = height;
      g_mutex_unlock (&self->cache_lock);
    }
  draw_axes (self, cr, &L, pal);

  cairo_save (cr);
  cairo_rectangle (cr, L.l - 4, L.t - 4, L.r - L.l + 8, L.b - L.t + 4);
  cairo_clip (cr);
  switch (self->kind)
    {
    case RK_CHART_KIND_LINE:
    case RK_CHART_KIND_AREA:
      draw_lines (self, cr, &L, pal);
      break;
    case RK_CHART_KIND_SCATTER:
      draw_scatter (self, cr, &L, pal);
      break;
    case RK_CHART_KIND_BAR:
      draw_bars (self, cr, &L, pal);
      break;
    case RK_CHART_KIND_HISTOGRAM:
      draw_histogram (self, cr, &L, pal);
      break;
    case RK_CHART_KIND_BOX:
      draw_boxes (self, cr, &L, pal);
      break;
    default:
      break;
    }
  cairo_restore (cr);

  if (self->n_series == 0)
    {
      set_rgb (cr, pal->muted, 1);
      _rk_chart_draw_text (cr, _("No data"), FONT_PX, FALSE, (L.l + L.r) / 2, (L.t + L.b) / 2, 0.5, 0.5, 0);
    }
  cairo_restore (cr);
}

