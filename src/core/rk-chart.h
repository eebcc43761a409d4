/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart.h — native charts: the one parser of chart specs (docs/chart-spec.md)
 * and their Cairo drawing, hover hit-testing and export. */
#pragma once

#include <cairo.h>
#include <gio/gio.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_TYPE_CHART (rk_chart_get_type ())
G_DECLARE_FINAL_TYPE (RkChart, rk_chart, RK, CHART, GObject)

typedef enum
{
  RK_CHART_STYLE_LIGHT,
  RK_CHART_STYLE_DARK,
} RkChartStyle;

typedef enum
{
  RK_CHART_KIND_LINE,
  RK_CHART_KIND_AREA,
  RK_CHART_KIND_BAR,
  RK_CHART_KIND_SCATTER,
  RK_CHART_KIND_HISTOGRAM,
  RK_CHART_KIND_BOX,
} RkChartKind;

typedef enum
{
  RK_CHART_AXIS_NUMBER,
  RK_CHART_AXIS_TIME,
  RK_CHART_AXIS_CATEGORY,
} RkChartAxisType;

typedef enum
{
  RK_CHART_FORMAT_PNG,
  RK_CHART_FORMAT_SVG,
  RK_CHART_FORMAT_PDF,
} RkChartFormat;

/* What lies under the pointer. For line/area/scatter: the data point
 * (x, y exactly as in the spec). Bar: category @index, y its value. Histogram:
 * bin @index from x to x_end, y its count. Box: box @series (index 0). */
typedef struct
{
  guint  series;
  gsize  index;
  double x;
  double x_end;
  double y;
  double px;   /* where to anchor a tooltip, in the same pixel space */
  double py;
} RkChartHit;

/* Limits of the parser (also documented in docs/chart-spec.md). */
#define RK_CHART_MAX_SPEC_BYTES    (32u * 1024 * 1024)
#define RK_CHART_MAX_SIDECAR_BYTES (256u * 1024 * 1024)
#define RK_CHART_MAX_SERIES        64
#define RK_CHART_MAX_POINTS        (1u << 24)  /* over all series */
#define RK_CHART_MAX_CATEGORIES    10000
#define RK_CHART_MAX_BINS          10000
#define RK_CHART_MAX_OUTLIERS      10000
#define RK_CHART_MAX_STRING        1024        /* bytes */
#define RK_CHART_MAX_DEPTH         16

/* @path is the spec; a sidecar it names is opened only beside it. */
RkChart        *rk_chart_new_from_file     (const char     *path,
                                            GError        **error);
/* A spec in a workspace (the sandbox's, hostile): @rel_path beneath
 * @workspace, and its sidecar beside it, both opened with
 * rk_workspace_open_file_at (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so a
 * folder swapped for a symlink while it is read leads nowhere. Use this for
 * anything the sandbox wrote. */
RkChart        *rk_chart_new_from_workspace (RkWorkspace    *workspace,
                                            const char     *rel_path,
                                            GError        **error);
/* @base_dir: the folder a sidecar may be read from, or NULL to refuse sidecars. */
RkChart        *rk_chart_new_from_bytes    (GBytes         *bytes,
                                            const char     *base_dir,
                                            GError        **error);

RkChartKind     rk_chart_get_kind          (RkChart        *self);
/* The kind as a spec's "kind" names it: "line", "bar", "box", ... */
const char     *rk_chart_kind_to_string    (RkChartKind     kind);
const char     *rk_chart_get_title         (RkChart        *self);
RkChartAxisType rk_chart_get_x_type        (RkChart        *self);
guint           rk_chart_get_n_series      (RkChart        *self);
const char     *rk_chart_get_series_name   (RkChart        *self,
                                            guint           series);
const char     *rk_chart_get_x_label       (RkChart        *self);
const char     *rk_chart_get_y_label       (RkChart        *self);
/* Points in a series (bins for a histogram, 1 for a box). */
gsize           rk_chart_get_n_points      (RkChart        *self,
                                            guint           series);

/* The values a series shows, for tracing numbers back to it: y of each
 * point or bar, the count of each bin, or a box's median, q1, q3, low, high
 * (and mean). rk_chart_get_value() is FALSE for a gap. */
gsize           rk_chart_get_n_values      (RkChart        *self,
                                            guint           series);
gboolean        rk_chart_get_value         (RkChart        *self,
                                            guint           series,
                                            gsize           index,
                                            double         *value);

/* Showing and hiding series (the legend's toggles): the axes fit the
 * visible ones. Emits "changed". */
gboolean        rk_chart_get_series_visible (RkChart       *self,
                                            guint           series);
void            rk_chart_set_series_visible (RkChart       *self,
                                            guint           series,
                                            gboolean        visible);
/* Line, area, bar and scatter are views of the same series (bar only on a
 * category axis); histograms and boxes stay as they are. rk_chart_set_kind()
 * returns FALSE, changing nothing, for a kind this chart cannot show. */
gboolean        rk_chart_can_show_as       (RkChart        *self,
                                            RkChartKind     kind);
gboolean        rk_chart_set_kind          (RkChart        *self,
                                            RkChartKind     kind);
/* A text description for screen readers and reports: kind, title, axes
 * with their ranges, and each visible series with its count and range. */
char           *rk_chart_describe          (RkChart        *self);

void            rk_chart_draw              (RkChart        *self,
                                            cairo_t        *cr,
                                            double          width,
                                            double          height,
                                            RkChartStyle    style);

/* TRUE when (@x, @y) in a @width × @height drawing is over data. */
gboolean        rk_chart_hit_test          (RkChart        *self,
                                            double          width,
                                            double          height,
                                            double          x,
                                            double          y,
                                            RkChartHit     *hit);
/* Fills @hit for point @index of @series (as rk_chart_hit_test would when
 * hovering it), with where it is drawn in a @width × @height drawing: for
 * moving from point to point with the keyboard. FALSE for a gap, a hidden
 * series or an index out of range. */
gboolean        rk_chart_locate            (RkChart        *self,
                                            double          width,
                                            double          height,
                                            guint           series,
                                            gsize           index,
                                            RkChartHit     *hit);
/* The series whose legend entry lies at (@x, @y) of the last drawing of
 * that size, or -1. */
int             rk_chart_legend_hit_test   (RkChart        *self,
                                            double          width,
                                            double          height,
                                            double          x,
                                            double          y);
/* A tooltip for @hit: series name and exact values, one line each. */
char           *rk_chart_describe_hit      (RkChart        *self,
                                            const RkChartHit *hit);

/* Format from the extension of @path when @format is -1. */
gboolean        rk_chart_export            (RkChart        *self,
                                            const char     *path,
                                            int             format,
                                            int             width,
                                            int             height,
                                            RkChartStyle    style,
                                            GError        **error);

G_END_DECLS
