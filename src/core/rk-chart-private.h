/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-private.h — what the files of RkChart share (rk-chart.c, -parse,
 * -axes, -draw, -hit, -export): its structures, the layout and its cache. */
#pragma once

#include <cairo.h>
#include <glib.h>
#include <math.h>

#include "rk-chart.h"

G_BEGIN_DECLS

/* Ticks at 1-2-5 × 10^k steps covering [@lo, @hi], about @target of them.
 * Returns the number of ticks (0 if the range is not finite); writes at most
 * @max_out values to @out and the step to @step. */
guint   _rk_chart_nice_ticks    (double  lo,
                                 double  hi,
                                 guint   target,
                                 double *out,
                                 guint   max_out,
                                 double *step);

typedef enum
{
  _RK_TIME_MS,
  _RK_TIME_SECOND,
  _RK_TIME_MINUTE,
  _RK_TIME_HOUR,
  _RK_TIME_DAY,
  _RK_TIME_MONTH,
  _RK_TIME_YEAR,
} RkTimeUnit;

/* Ticks for epoch milliseconds (UTC) at calendar boundaries: whole seconds,
 * minutes, hours, days, months (1, 3, 6) or years (1-2-5 steps). */
guint   _rk_chart_time_ticks    (double      lo_ms,
                                 double      hi_ms,
                                 guint       target,
                                 double     *out,
                                 guint       max_out,
                                 RkTimeUnit *unit);

/* A tick label for @value on an axis whose ticks are @step apart. */
char   *_rk_chart_format_number (double  value,
                                 double  step);
/* The same on an axis whose largest |tick| is @magnitude (one suffix for all). */
char   *_rk_chart_format_tick   (double  value,
                                 double  step,
                                 double  magnitude);
char   *_rk_chart_format_time   (double      ms,
                                 RkTimeUnit  unit,
                                 gboolean    first);
/* The shortest decimal text that reads back as exactly @value. */
char   *_rk_chart_format_exact  (double  value);


/* Beyond ±1e300 spans and paddings would overflow to infinity: such values
 * are gaps (or errors where a gap makes no sense). */
#define MAX_MAGNITUDE 1e300
#define IN_RANGE(v) (isfinite (v) && fabs (v) <= MAX_MAGNITUDE)

typedef struct
{
  char   *name;
  double *x;          /* n values; NULL on a category axis (position = index) */
  double *y;          /* n values; NaN is a gap */
  gsize   n;
  gboolean x_sorted;  /* finite x values never decrease: hit tests bisect */
  double *base;       /* stacked area/bar: bottom and top of this layer */
  double *top;
  double *edges;      /* histogram: nbins + 1 edges, nbins counts */
  double *counts;
  gsize   nbins;
  double  q1, median, q3, low, high, mean;  /* box */
  gboolean has_mean;
  double *outliers;
  gsize   n_outliers;
} Series;


#define MAX_TICKS 64
#define FONT_PX 12.0
#define PAD 14.0

typedef struct
{
  double r, g, b;
} Rgb;

#define N_COLORS 10

typedef struct
{
  Rgb    bg, fg, muted, grid, axis;
  Rgb    palette[N_COLORS];
} Palette;

typedef struct
{
  double   w, h;
  double   l, t, r, b;        /* plot rectangle */
  double   x0, x1, y0, y1;    /* data range shown */
  double   xt[MAX_TICKS];
  guint    n_xt;
  double   xstep;
  RkTimeUnit time_unit;
  gboolean time_ticks;
  guint    cat_stride;        /* label every n-th category */
  double   yt[MAX_TICKS];
  guint    n_yt;
  double   ystep;
  double   title_y;
  double   legend_y;
  double   legend_row_h;
  guint    legend_rows;
  double   cat_label_w;       /* max width of a category label */
  gboolean cat_rotate;        /* crowded category labels run diagonally */
  double   cat_rot_w;         /* and are ellipsized to this width */
} Layout;

/* Scatter points bucketed by small pixel squares of the plot, so the
 * nearest point within the hover radius is found by visiting rings of
 * cells around the pointer (rk-chart-hit.c). */
typedef struct
{
  double   cell;
  double   x0, y0;       /* top-left of cell (0, 0) */
  guint    cols, rows;
  guint32 *start;        /* cols * rows + 1 offsets into items */
  guint32 *items;        /* series << 24 | index */
} HitGrid;

struct _RkChart
{
  GObject          parent_instance;
  RkChartKind      kind;
  char            *title;
  char            *x_label;
  char            *y_label;
  RkChartAxisType  x_type;
  gboolean         stacked;
  gboolean         has_ymin;
  gboolean         has_ymax;
  double           fixed_ymin;
  double           fixed_ymax;
  GPtrArray       *categories;
  Series          *series;
  guint            n_series;
  double           xmin, xmax, ymin, ymax;  /* data extent; NaN when empty */
  RkChartKind      spec_kind;               /* the kind and stacking the spec asked for */
  gboolean         spec_stacked;
  guint64          hidden;                  /* bit k: series k hidden (legend) */

  /* The layout of the last size drawn or hit-tested, and the hit-test grid
   * built on it: hovering reuses both until the size or the chart changes.
   * The mutex lets a worker thread export while the GUI hovers. */
  GMutex           cache_lock;
  Layout          *layout;
  HitGrid         *grid;
  /* Where each legend entry was last drawn (x, y, w, h; w = 0 when not
   * drawn), and the size of that drawing: clicks on the legend toggle. */
  double           legend_boxes[RK_CHART_MAX_SERIES][4];
  double           legend_w, legend_h;
};

/* The cached layout for @w × @h, computed on a scratch surface when missing
 * or of another size. Call with cache_lock held. */
const Layout *_rk_chart_cached_layout  (RkChart      *self,
                                        double        w,
                                        double        h);
/* Keeps @L (just drawn) as the cached layout. */
void          _rk_chart_store_layout   (RkChart      *self,
                                        const Layout *L);
/* Forgets the cached layout and hit-test grid: after a change of series,
 * visibility or kind. */
void          _rk_chart_invalidate     (RkChart      *self);
void          _rk_chart_compute_layout (RkChart      *self,
                                        cairo_t      *cr,
                                        double        w,
                                        double        h,
                                        Layout       *L);
void          _rk_chart_text_size      (cairo_t      *cr,
                                        const char   *text,
                                        double        px,
                                        gboolean      bold,
                                        double       *w,
                                        double       *h);
void          _rk_chart_draw_text      (cairo_t      *cr,
                                        const char   *text,
                                        double        px,
                                        gboolean      bold,
                                        double        x,
                                        double        y,
                                        double        ax,
                                        double        ay,
                                        double        max_width);
char         *_rk_chart_x_tick_label   (RkChart      *self,
                                        const Layout *L,
                                        guint         i);
char         *_rk_chart_format_exact_time (double     ms);
/* The largest |tick|, for one SI suffix over an axis. */
double        _rk_chart_axis_magnitude (const double *ticks,
                                        guint         n);
void          _rk_chart_bar_geometry   (RkChart      *self,
                                        const Layout *L,
                                        gsize         i,
                                        guint         k,
                                        double       *x,
                                        double       *w);
void          _rk_chart_hit_grid_free  (HitGrid      *grid);
/* The hit test as it was before the cache: a fresh layout on a scratch
 * surface and a scan of every point (the peer of the hover benchmark). */
gboolean      _rk_chart_hit_test_uncached (RkChart    *self,
                                        double      width,
                                        double      height,
                                        double      x,
                                        double      y,
                                        RkChartHit *hit);
void          _rk_chart_compute_stacks (RkChart      *self);
void          _rk_chart_compute_extent (RkChart      *self);
static inline gboolean
_rk_chart_series_hidden (RkChart *self,
                         guint    k)
{
  return (self->hidden >> k) & 1;
}

static inline double
map_x (const Layout *L, double v)
{
  double p = L->l + (v - L->x0) / (L->x1 - L->x0) * (L->r - L->l);
  return CLAMP (p, -1e6, 1e6);
}

static inline double
map_y (const Layout *L, double v)
{
  double p = L->b - (v - L->y0) / (L->y1 - L->y0) * (L->b - L->t);
  return CLAMP (p, -1e6, 1e6);
}

static inline double
unmap_x (const Layout *L, double p)
{
  return L->x0 + (p - L->l) / (L->r - L->l) * (L->x1 - L->x0);
}


static inline double
series_x (const Series *s, gsize i)
{
  return s->x != NULL ? s->x[i] : (double) i;
}

G_END_DECLS
