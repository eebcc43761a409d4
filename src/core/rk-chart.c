/* rk-chart.c — parses chart specs from the sandbox (untrusted, bounded) and
 * draws them with Cairo and Pango; large series are decimated per pixel column. */
#define G_LOG_DOMAIN "rk-chart"
#include "config.h"

#include "rk-chart.h"
#include "rk-chart-private.h"
#include "rk-util.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <png.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
};

G_DEFINE_FINAL_TYPE (RkChart, rk_chart, G_TYPE_OBJECT)

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

  G_OBJECT_CLASS (rk_chart_parent_class)->finalize (object);
}

static void
rk_chart_class_init (RkChartClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rk_chart_finalize;
}

static void
rk_chart_init (RkChart *self)
{
  self->xmin = self->xmax = self->ymin = self->ymax = NAN;
}

/* ------------------------------------------------------------------ parser */

/* Beyond ±1e300 spans and paddings would overflow to infinity: such values
 * are gaps (or errors where a gap makes no sense). */
#define MAX_MAGNITUDE 1e300
#define IN_RANGE(v) (isfinite (v) && fabs (v) <= MAX_MAGNITUDE)

typedef struct
{
  const char *base_dir;
  const char *sidecar_name;
  GBytes     *sidecar;
  gsize       points;  /* counted against RK_CHART_MAX_POINTS */
} ParseCtx;

static gboolean
fail (GError **error, int code, const char *message)
{
  g_set_error_literal (error, RK_PARSE_ERROR, code, message);
  return FALSE;
}

/* Reads at most @max bytes of a regular file, never following a symlink. */
static GBytes *
read_bounded (const char *path,
              gsize       max,
              GError    **error)
{
  struct stat st;
  g_autofree guint8 *buf = NULL;
  gsize done = 0;
  int fd;

  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not open the chart file: %s."), g_strerror (saved));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart file is not a regular file."));
      return NULL;
    }
  if ((guint64) st.st_size > max)
    {
      close (fd);
      fail (error, RK_PARSE_ERROR_TOO_LARGE, _("The chart file is too large."));
      return NULL;
    }
  buf = g_malloc (st.st_size > 0 ? (gsize) st.st_size : 1);
  while (done < (gsize) st.st_size)
    {
      gssize r = read (fd, buf + done, (gsize) st.st_size - done);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      done += (gsize) r;
    }
  close (fd);
  if (done != (gsize) st.st_size)
    {
      fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart file changed while it was read."));
      return NULL;
    }
  return g_bytes_new_take (g_steal_pointer (&buf), done);
}

static gboolean
get_string (JsonObject  *obj,
            const char  *member,
            char       **out,
            GError     **error)
{
  JsonNode *node = json_object_get_member (obj, member);
  const char *s;

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                   _("The chart's “%s” is not text."), member);
      return FALSE;
    }
  s = json_node_get_string (node);
  if (strlen (s) > RK_CHART_MAX_STRING)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                   _("The chart's “%s” is too long."), member);
      return FALSE;
    }
  if (!g_utf8_validate (s, -1, NULL))
    return fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart contains invalid text."));
  *out = g_strdup (s);
  return TRUE;
}

static gboolean
node_number (JsonNode *node,
             double   *out)
{
  GType t;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  t = json_node_get_value_type (node);
  if (t == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else
    return FALSE;
  return TRUE;
}

/* A required or optional finite number. */
static gboolean
get_number (JsonObject  *obj,
            const char  *member,
            gboolean     required,
            double      *out,
            gboolean    *present,
            GError     **error)
{
  JsonNode *node = json_object_get_member (obj, member);

  if (present)
    *present = FALSE;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (!required)
        return TRUE;
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                   _("The chart lacks the number “%s”."), member);
      return FALSE;
    }
  if (!node_number (node, out) || !IN_RANGE (*out))
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                   _("The chart's “%s” is not a finite number."), member);
      return FALSE;
    }
  if (present)
    *present = TRUE;
  return TRUE;
}

static gboolean
load_sidecar (ParseCtx *ctx,
              GError  **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) local = NULL;

  if (ctx->sidecar != NULL)
    return TRUE;
  if (ctx->sidecar_name == NULL)
    return fail (error, RK_PARSE_ERROR_MALFORMED,
                 _("The chart refers to binary data but names no data file."));
  if (ctx->base_dir == NULL)
    return fail (error, RK_PARSE_ERROR_UNSUPPORTED,
                 _("The chart's data file cannot be read from here."));
  /* Only a plain file name, beside the spec: no folders, no “..”, not absolute. */
  if (!rk_path_is_beneath (ctx->sidecar_name) || strchr (ctx->sidecar_name, '/') != NULL)
    return fail (error, RK_PARSE_ERROR_MALFORMED,
                 _("The chart's data file is not beside the chart."));
  path = g_build_filename (ctx->base_dir, ctx->sidecar_name, NULL);
  ctx->sidecar = read_bounded (path, RK_CHART_MAX_SIDECAR_BYTES, &local);
  if (ctx->sidecar == NULL)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                   _("The chart's data file could not be read: %s"), local->message);
      return FALSE;
    }
  return TRUE;
}

/* An array of numbers: inline (null = gap) or {"offset", "count"} into the
 * sidecar as little-endian float64. Non-finite values become gaps. */
static gboolean
get_numbers (ParseCtx    *ctx,
             JsonObject  *obj,
             const char  *member,
             double     **out,
             gsize       *n_out,
             GError     **error)
{
  JsonNode *node = json_object_get_member (obj, member);
  g_autofree double *values = NULL;
  gsize n;

  *out = NULL;
  *n_out = 0;
  if (node == NULL)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                   _("A chart series lacks its “%s” values."), member);
      return FALSE;
    }

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *arr = json_node_get_array (node);

      n = json_array_get_length (arr);
      if (n > RK_CHART_MAX_POINTS - ctx->points)
        return fail (error, RK_PARSE_ERROR_TOO_LARGE, _("The chart has too many points."));
      values = g_new (double, MAX (n, 1));
      for (gsize i = 0; i < n; i++)
        {
          JsonNode *e = json_array_get_element (arr, i);
          double v;

          if (JSON_NODE_HOLDS_NULL (e))
            v = NAN;
          else if (!node_number (e, &v))
            {
              g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                           _("A chart series has a value in “%s” that is not a number."), member);
              return FALSE;
            }
          values[i] = IN_RANGE (v) ? v : NAN;
        }
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *ref = json_node_get_object (node);
      double off, cnt;
      const guint8 *data;
      gsize size;

      if (!get_number (ref, "offset", TRUE, &off, NULL, error) ||
          !get_number (ref, "count", TRUE, &cnt, NULL, error))
        return FALSE;
      if (off < 0 || cnt < 0 || off != floor (off) || cnt != floor (cnt) || fmod (off, 8) != 0)
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("A chart series points to invalid binary data."));
      if (cnt > (double) (RK_CHART_MAX_POINTS - ctx->points))
        return fail (error, RK_PARSE_ERROR_TOO_LARGE, _("The chart has too many points."));
      if (!load_sidecar (ctx, error))
        return FALSE;
      data = g_bytes_get_data (ctx->sidecar, &size);
      if (off > (double) size || cnt * 8 > (double) size - off)
        return fail (error, RK_PARSE_ERROR_MALFORMED,
                     _("A chart series points past the end of its data file."));
      n = (gsize) cnt;
      values = g_new (double, MAX (n, 1));
      for (gsize i = 0; i < n; i++)
        {
          guint64 bits;
          double v;

          memcpy (&bits, data + (gsize) off + i * 8, 8);
          bits = GUINT64_FROM_LE (bits);
          memcpy (&v, &bits, 8);
          values[i] = IN_RANGE (v) ? v : NAN;
        }
    }
  else
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                   _("A chart series' “%s” is not a list of numbers."), member);
      return FALSE;
    }

  ctx->points += n;
  *out = g_steal_pointer (&values);
  *n_out = n;
  return TRUE;
}

static gboolean
parse_xy_series (RkChart    *self,
                 ParseCtx   *ctx,
                 JsonObject *obj,
                 Series     *s,
                 GError    **error)
{
  gsize nx = 0;

  if (!get_numbers (ctx, obj, "y", &s->y, &s->n, error))
    return FALSE;
  if (self->x_type == RK_CHART_AXIS_CATEGORY)
    {
      if (s->n != self->categories->len)
        return fail (error, RK_PARSE_ERROR_MALFORMED,
                     _("A chart series does not have one value for each category."));
      return TRUE;
    }
  if (!get_numbers (ctx, obj, "x", &s->x, &nx, error))
    return FALSE;
  if (nx != s->n)
    return fail (error, RK_PARSE_ERROR_MALFORMED,
                 _("A chart series has different numbers of x and y values."));
  s->x_sorted = TRUE;
  {
    double last = -INFINITY;
    for (gsize i = 0; i < s->n; i++)
      {
        if (isnan (s->x[i]))
          continue;
        if (s->x[i] < last)
          {
            s->x_sorted = FALSE;
            break;
          }
        last = s->x[i];
      }
  }
  return TRUE;
}

static gboolean
parse_histogram_series (ParseCtx   *ctx,
                        JsonObject *obj,
                        Series     *s,
                        GError    **error)
{
  gsize ne = 0, nc = 0;

  if (!get_numbers (ctx, obj, "edges", &s->edges, &ne, error) ||
      !get_numbers (ctx, obj, "counts", &s->counts, &nc, error))
    return FALSE;
  if (nc < 1 || nc > RK_CHART_MAX_BINS || ne != nc + 1)
    return fail (error, RK_PARSE_ERROR_MALFORMED,
                 _("A histogram needs between 1 and 10000 bins and one more edge than bins."));
  for (gsize i = 0; i < ne; i++)
    if (!isfinite (s->edges[i]) || (i > 0 && !(s->edges[i] > s->edges[i - 1])))
      return fail (error, RK_PARSE_ERROR_MALFORMED,
                   _("A histogram's bin edges are not finite and increasing."));
  for (gsize i = 0; i < nc; i++)
    if (!isfinite (s->counts[i]) || s->counts[i] < 0)
      return fail (error, RK_PARSE_ERROR_MALFORMED,
                   _("A histogram's counts are not finite and non-negative."));
  s->nbins = nc;
  return TRUE;
}

static gboolean
parse_box_series (ParseCtx   *ctx,
                  JsonObject *obj,
                  Series     *s,
                  GError    **error)
{
  JsonNode *node;

  if (!get_number (obj, "q1", TRUE, &s->q1, NULL, error) ||
      !get_number (obj, "median", TRUE, &s->median, NULL, error) ||
      !get_number (obj, "q3", TRUE, &s->q3, NULL, error) ||
      !get_number (obj, "low", TRUE, &s->low, NULL, error) ||
      !get_number (obj, "high", TRUE, &s->high, NULL, error) ||
      !get_number (obj, "mean", FALSE, &s->mean, &s->has_mean, error))
    return FALSE;
  if (!(s->low <= s->q1 && s->q1 <= s->median && s->median <= s->q3 && s->q3 <= s->high))
    return fail (error, RK_PARSE_ERROR_MALFORMED,
                 _("A box's statistics are not in order (low ≤ q1 ≤ median ≤ q3 ≤ high)."));
  node = json_object_get_member (obj, "outliers");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      g_autofree double *vals = NULL;
      gsize n = 0, kept = 0;

      if (!get_numbers (ctx, obj, "outliers", &vals, &n, error))
        return FALSE;
      if (n > RK_CHART_MAX_OUTLIERS)
        return fail (error, RK_PARSE_ERROR_TOO_LARGE, _("A box has too many outliers."));
      for (gsize i = 0; i < n; i++)
        if (isfinite (vals[i]))
          vals[kept++] = vals[i];
      s->outliers = g_steal_pointer (&vals);
      s->n_outliers = kept;
    }
  s->n = 1;
  return TRUE;
}

static void
extend (double *lo, double *hi, double v)
{
  if (!isfinite (v))
    return;
  if (isnan (*lo) || v < *lo)
    *lo = v;
  if (isnan (*hi) || v > *hi)
    *hi = v;
}

/* Stacks layers by index (NaN counts as 0); bars stack negatives downwards. */
static void
compute_stacks (RkChart *self)
{
  gsize n = 0;
  g_autofree double *pos = NULL;
  g_autofree double *neg = NULL;

  for (guint k = 0; k < self->n_series; k++)
    n = MAX (n, self->series[k].n);
  pos = g_new0 (double, MAX (n, 1));
  neg = g_new0 (double, MAX (n, 1));
  for (guint k = 0; k < self->n_series; k++)
    {
      Series *s = &self->series[k];

      s->base = g_new (double, MAX (s->n, 1));
      s->top = g_new (double, MAX (s->n, 1));
      for (gsize i = 0; i < s->n; i++)
        {
          double v = isnan (s->y[i]) ? 0 : s->y[i];

          if (self->kind == RK_CHART_KIND_BAR && v < 0)
            {
              s->base[i] = neg[i];
              neg[i] += v;
              s->top[i] = neg[i];
            }
          else
            {
              s->base[i] = pos[i];
              pos[i] += v;
              s->top[i] = pos[i];
            }
        }
    }
}

static void
compute_extent (RkChart *self)
{
  for (guint k = 0; k < self->n_series; k++)
    {
      Series *s = &self->series[k];

      switch (self->kind)
        {
        case RK_CHART_KIND_HISTOGRAM:
          extend (&self->xmin, &self->xmax, s->edges[0]);
          extend (&self->xmin, &self->xmax, s->edges[s->nbins]);
          for (gsize i = 0; i < s->nbins; i++)
            extend (&self->ymin, &self->ymax, s->counts[i]);
          break;
        case RK_CHART_KIND_BOX:
          extend (&self->ymin, &self->ymax, s->low);
          extend (&self->ymin, &self->ymax, s->high);
          for (gsize i = 0; i < s->n_outliers; i++)
            extend (&self->ymin, &self->ymax, s->outliers[i]);
          break;
        default:
          for (gsize i = 0; i < s->n; i++)
            {
              if (isnan (s->y[i]))
                continue;
              if (s->x != NULL)
                {
                  if (isnan (s->x[i]))
                    continue;
                  extend (&self->xmin, &self->xmax, s->x[i]);
                }
              if (s->top != NULL)
                {
                  extend (&self->ymin, &self->ymax, s->top[i]);
                  extend (&self->ymin, &self->ymax, s->base[i]);
                }
              else
                extend (&self->ymin, &self->ymax, s->y[i]);
            }
          break;
        }
    }
  if (self->x_type == RK_CHART_AXIS_CATEGORY)
    {
      self->xmin = -0.5;
      self->xmax = self->categories->len - 0.5;
    }
}

static const char *kind_names[] = { "line", "area", "bar", "scatter", "histogram", "box" };

static gboolean
parse_root (RkChart    *self,
            ParseCtx   *ctx,
            JsonObject *root,
            GError    **error)
{
  g_autofree char *kind = NULL;
  g_autofree char *xtype = NULL;
  JsonNode *node;
  JsonArray *series;
  double version;
  gboolean found = FALSE;
  gsize n_series;

  node = json_object_get_member (root, "version");
  if (node == NULL || !node_number (node, &version))
    return fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart has no version."));
  if (version != 1)
    return fail (error, RK_PARSE_ERROR_UNSUPPORTED,
                 _("The chart was made for a different version of Reckon."));

  if (!get_string (root, "kind", &kind, error))
    return FALSE;
  for (guint i = 0; kind != NULL && i < G_N_ELEMENTS (kind_names); i++)
    if (strcmp (kind, kind_names[i]) == 0)
      {
        self->kind = (RkChartKind) i;
        found = TRUE;
      }
  if (!found)
    return fail (error, RK_PARSE_ERROR_UNSUPPORTED, _("The chart is of an unknown kind."));

  if (!get_string (root, "title", &self->title, error))
    return FALSE;

  node = json_object_get_member (root, "x");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_OBJECT (node))
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart's “x” is not an object."));
      if (!get_string (json_node_get_object (node), "label", &self->x_label, error) ||
          !get_string (json_node_get_object (node), "type", &xtype, error))
        return FALSE;
    }
  if (xtype == NULL || strcmp (xtype, "number") == 0)
    self->x_type = RK_CHART_AXIS_NUMBER;
  else if (strcmp (xtype, "time") == 0)
    self->x_type = RK_CHART_AXIS_TIME;
  else if (strcmp (xtype, "category") == 0)
    self->x_type = RK_CHART_AXIS_CATEGORY;
  else
    return fail (error, RK_PARSE_ERROR_UNSUPPORTED, _("The chart's x axis is of an unknown type."));
  if (self->kind == RK_CHART_KIND_BAR || self->kind == RK_CHART_KIND_BOX)
    self->x_type = RK_CHART_AXIS_CATEGORY;
  else if (self->kind == RK_CHART_KIND_HISTOGRAM)
    self->x_type = RK_CHART_AXIS_NUMBER;

  node = json_object_get_member (root, "y");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      JsonObject *y;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart's “y” is not an object."));
      y = json_node_get_object (node);
      if (!get_string (y, "label", &self->y_label, error) ||
          !get_number (y, "min", FALSE, &self->fixed_ymin, &self->has_ymin, error) ||
          !get_number (y, "max", FALSE, &self->fixed_ymax, &self->has_ymax, error))
        return FALSE;
      if (self->has_ymin && self->has_ymax && !(self->fixed_ymin < self->fixed_ymax))
        self->has_ymin = self->has_ymax = FALSE;
    }

  node = json_object_get_member (root, "stacked");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart's “stacked” is not true or false."));
      self->stacked = json_node_get_boolean (node) &&
                      (self->kind == RK_CHART_KIND_BAR || self->kind == RK_CHART_KIND_AREA);
    }

  node = json_object_get_member (root, "data");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart's “data” is not a file name."));
      ctx->sidecar_name = json_node_get_string (node);
    }

  node = json_object_get_member (root, "series");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart has no list of series."));
  series = json_node_get_array (node);
  n_series = json_array_get_length (series);
  if (n_series > RK_CHART_MAX_SERIES)
    return fail (error, RK_PARSE_ERROR_TOO_LARGE, _("The chart has too many series (at most 64)."));

  self->categories = g_ptr_array_new_with_free_func (g_free);
  if (self->x_type == RK_CHART_AXIS_CATEGORY && self->kind != RK_CHART_KIND_BOX)
    {
      JsonArray *cats;
      gsize n;

      node = json_object_get_member (root, "categories");
      if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart has a category axis but no categories."));
      cats = json_node_get_array (node);
      n = json_array_get_length (cats);
      if (n > RK_CHART_MAX_CATEGORIES)
        return fail (error, RK_PARSE_ERROR_TOO_LARGE, _("The chart has too many categories (at most 10000)."));
      for (gsize i = 0; i < n; i++)
        {
          JsonNode *e = json_array_get_element (cats, i);
          const char *s;

          if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING)
            return fail (error, RK_PARSE_ERROR_MALFORMED, _("A chart category is not text."));
          s = json_node_get_string (e);
          if (strlen (s) > RK_CHART_MAX_STRING || !g_utf8_validate (s, -1, NULL))
            return fail (error, RK_PARSE_ERROR_MALFORMED, _("A chart category is too long or not valid text."));
          g_ptr_array_add (self->categories, g_strdup (s));
        }
    }

  self->series = g_new0 (Series, MAX (n_series, 1));
  for (gsize k = 0; k < n_series; k++)
    {
      JsonNode *e = json_array_get_element (series, k);
      JsonObject *obj;
      Series *s = &self->series[k];
      gboolean ok;

      self->n_series = k + 1;
      if (!JSON_NODE_HOLDS_OBJECT (e))
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("A chart series is not an object."));
      obj = json_node_get_object (e);
      if (!get_string (obj, "name", &s->name, error))
        return FALSE;
      if (s->name == NULL)
        s->name = g_strdup_printf (_("Series %u"), (guint) k + 1);

      if (self->kind == RK_CHART_KIND_HISTOGRAM)
        ok = parse_histogram_series (ctx, obj, s, error);
      else if (self->kind == RK_CHART_KIND_BOX)
        {
          ok = parse_box_series (ctx, obj, s, error);
          g_ptr_array_add (self->categories, g_strdup (s->name));
        }
      else
        ok = parse_xy_series (self, ctx, obj, s, error);
      if (!ok)
        return FALSE;
    }

  if (self->stacked)
    {
      for (guint k = 1; k < self->n_series; k++)
        if (self->series[k].n != self->series[0].n)
          return fail (error, RK_PARSE_ERROR_MALFORMED,
                       _("The series of a stacked chart do not have the same length."));
      compute_stacks (self);
    }
  compute_extent (self);
  return TRUE;
}

RkChart *
rk_chart_new_from_bytes (GBytes     *bytes,
                         const char *base_dir,
                         GError    **error)
{
  g_autoptr(RkChart) self = NULL;
  g_autoptr(JsonParser) parser = NULL;
  ParseCtx ctx = { base_dir, NULL, NULL, 0 };
  const char *data;
  gsize len;
  JsonNode *root;
  gboolean ok;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (bytes, &len);
  if (len > RK_CHART_MAX_SPEC_BYTES)
    {
      fail (error, RK_PARSE_ERROR_TOO_LARGE, _("The chart is too large."));
      return NULL;
    }
  if (len == 0 || !g_utf8_validate_len (data, len, NULL))
    {
      fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart is not valid UTF-8 text."));
      return NULL;
    }
  if (!rk_json_scan_ok (data, len, RK_CHART_MAX_DEPTH, RK_JSON_SCAN_NO_ESCAPED_NUL))
    {
      fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart is nested too deeply or contains a NUL character."));
      return NULL;
    }

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, (gssize) len, NULL))
    {
      fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart is not valid JSON."));
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart is not a JSON object."));
      return NULL;
    }

  self = g_object_new (RK_TYPE_CHART, NULL);
  ok = parse_root (self, &ctx, json_node_get_object (root), error);
  g_clear_pointer (&ctx.sidecar, g_bytes_unref);
  if (!ok)
    return NULL;
  return g_steal_pointer (&self);
}

RkChart *
rk_chart_new_from_file (const char *path,
                        GError    **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *dir = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  bytes = read_bounded (path, RK_CHART_MAX_SPEC_BYTES, error);
  if (bytes == NULL)
    return NULL;
  dir = g_path_get_dirname (path);
  return rk_chart_new_from_bytes (bytes, dir, error);
}

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

/* ------------------------------------------------------------ axis helpers */

guint
_rk_chart_nice_ticks (double  lo,
                      double  hi,
                      guint   target,
                      double *out,
                      guint   max_out,
                      double *step)
{
  double raw, mag, f, nice, st, first;
  gint64 i0, i1;
  guint count = 0;

  if (!isfinite (lo) || !isfinite (hi))
    return 0;
  if (hi < lo)
    {
      double t = lo;
      lo = hi;
      hi = t;
    }
  if (hi - lo < fabs (hi) * 1e-12 || hi == lo)
    {
      double pad = lo == 0 ? 1 : fabs (lo) * 0.1;
      lo -= pad;
      hi += pad;
    }
  target = CLAMP (target, 1, 50);
  raw = (hi - lo) / target;
  if (!isfinite (raw) || raw <= 0)
    return 0;
  mag = pow (10, floor (log10 (raw)));
  f = raw / mag;
  nice = f <= 1.0 + 1e-9 ? 1 : f <= 2.0 + 1e-9 ? 2 : f <= 5.0 + 1e-9 ? 5 : 10;
  st = nice * mag;
  /* rounding the step up can leave too few ticks (one, for [0.001, 0.0095]):
   * then take the next smaller 1-2-5 step, whichever lands nearer the target */
  {
    double smaller = nice == 1 ? 0.5 * mag : nice == 2 ? mag : nice == 5 ? 2 * mag : 5 * mag;
    double n_st = floor (hi / st + 1e-9) - ceil (lo / st - 1e-9) + 1;
    double n_sm = floor (hi / smaller + 1e-9) - ceil (lo / smaller - 1e-9) + 1;

    if (n_st < 2 || (n_st < target && fabs (n_sm - target) < fabs (n_st - target) && n_sm <= 2.0 * target))
      st = smaller;
  }
  i0 = (gint64) ceil (lo / st - 1e-9);
  i1 = (gint64) floor (hi / st + 1e-9);
  if (step)
    *step = st;
  for (gint64 i = i0; i <= i1 && count < 200; i++)
    {
      first = (double) i * st;
      if (fabs (first) < st * 1e-9)
        first = 0;
      if (count < max_out)
        out[count] = first;
      count++;
    }
  return MIN (count, max_out);
}

static const struct
{
  RkTimeUnit unit;
  int        mult;
  double     ms;
} time_steps[] = {
  { _RK_TIME_SECOND, 1, 1e3 }, { _RK_TIME_SECOND, 2, 2e3 }, { _RK_TIME_SECOND, 5, 5e3 },
  { _RK_TIME_SECOND, 10, 10e3 }, { _RK_TIME_SECOND, 15, 15e3 }, { _RK_TIME_SECOND, 30, 30e3 },
  { _RK_TIME_MINUTE, 1, 60e3 }, { _RK_TIME_MINUTE, 2, 120e3 }, { _RK_TIME_MINUTE, 5, 300e3 },
  { _RK_TIME_MINUTE, 10, 600e3 }, { _RK_TIME_MINUTE, 15, 900e3 }, { _RK_TIME_MINUTE, 30, 1800e3 },
  { _RK_TIME_HOUR, 1, 3600e3 }, { _RK_TIME_HOUR, 2, 7200e3 }, { _RK_TIME_HOUR, 3, 10800e3 },
  { _RK_TIME_HOUR, 6, 21600e3 }, { _RK_TIME_HOUR, 12, 43200e3 },
  { _RK_TIME_DAY, 1, 86400e3 }, { _RK_TIME_DAY, 2, 172800e3 }, { _RK_TIME_DAY, 7, 604800e3 },
  { _RK_TIME_DAY, 14, 1209600e3 },
  { _RK_TIME_MONTH, 1, 2629746e3 }, { _RK_TIME_MONTH, 3, 7889238e3 }, { _RK_TIME_MONTH, 6, 15778476e3 },
};

#define MS_PER_YEAR 31556952e3
/* GDateTime covers years 1 to 9999. */
#define MIN_TIME_MS (-62135596800e3)
#define MAX_TIME_MS (253402300799e3)

guint
_rk_chart_time_ticks (double      lo,
                      double      hi,
                      guint       target,
                      double     *out,
                      guint       max_out,
                      RkTimeUnit *unit)
{
  double span = hi - lo;
  guint count = 0;
  guint i;

  if (!isfinite (lo) || !isfinite (hi) || hi <= lo || lo < MIN_TIME_MS || hi > MAX_TIME_MS)
    return 0;
  target = CLAMP (target, 1, 50);

  if (span / target < 1e3)
    {
      double step;
      *unit = _RK_TIME_MS;
      return _rk_chart_nice_ticks (lo, hi, target, out, max_out, &step);
    }

  for (i = 0; i < G_N_ELEMENTS (time_steps); i++)
    if (span / time_steps[i].ms <= target)
      break;

  if (i < G_N_ELEMENTS (time_steps) && time_steps[i].unit <= _RK_TIME_DAY)
    {
      double st = time_steps[i].ms;
      /* weeks start on Mondays: 1970-01-05 was one (the epoch a Thursday) */
      double origin = st >= 604800e3 ? 4 * 86400e3 : 0;
      double v = ceil ((lo - origin) / st) * st + origin;

      *unit = time_steps[i].unit;
      for (; v <= hi && count < max_out; v += st)
        out[count++] = v;
      return count;
    }

  {
    g_autoptr(GDateTime) start = g_date_time_new_from_unix_utc ((gint64) floor (lo / 1e3));
    int year, month, mult;

    if (start == NULL)
      return 0;
    year = g_date_time_get_year (start);
    month = g_date_time_get_month (start);  /* 1..12 */

    if (i < G_N_ELEMENTS (time_steps))
      {
        mult = time_steps[i].mult;
        *unit = _RK_TIME_MONTH;
        /* first month boundary at or after lo, aligned to the step */
        month = ((month - 1 + mult - 1) / mult) * mult + 1;
      }
    else
      {
        double years = span / MS_PER_YEAR / target, step;
        double mag = pow (10, floor (log10 (MAX (years, 1))));
        double f = years / mag;

        step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
        mult = (int) MIN (step, 5000);
        *unit = _RK_TIME_YEAR;
        month = 1;
        year = (int) (ceil ((double) year / mult) * mult);
      }

    while (count < max_out)
      {
        g_autoptr(GDateTime) t = NULL;
        double ms;

        while (month > 12)
          {
            month -= 12;
            year++;
          }
        if (year > 9999)
          break;
        t = g_date_time_new_utc (MAX (year, 1), month, 1, 0, 0, 0);
        if (t == NULL)
          break;
        ms = (double) g_date_time_to_unix (t) * 1e3;
        if (ms > hi)
          break;
        if (ms >= lo)
          out[count++] = ms;
        if (*unit == _RK_TIME_YEAR)
          year += mult;
        else
          month += mult;
      }
  }
  return count;
}

static char *
format_number_ascii (double value,
                     double step,
                     double magnitude);

/* Tick labels use a real minus sign (U+2212), as typography wants. */
char *
_rk_chart_format_number (double value,
                         double step)
{
  return _rk_chart_format_tick (value, step, fabs (value));
}

/* The largest |tick| of an axis: every label of the axis takes its suffix
 * (k, M, ...) from it, so "5k" stands next to "10k", not "5,000". */
static double
axis_magnitude (const double *ticks,
                guint         n)
{
  double m = 0;

  for (guint i = 0; i < n; i++)
    m = MAX (m, fabs (ticks[i]));
  return m;
}

char *
_rk_chart_format_tick (double value,
                       double step,
                       double magnitude)
{
  char *s = format_number_ascii (value, step, magnitude);

  if (s[0] == '-')
    {
      char *t = g_strconcat ("\u2212", s + 1, NULL);
      g_free (s);
      return t;
    }
  return s;
}

static char *
format_number_ascii (double value,
                     double step,
                     double magnitude)
{
  static const struct { double scale; const char *suffix; } si[] = {
    { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "k" },
  };
  double a = fabs (value);
  int decimals;
  char buf[64];

  if (!isfinite (value))
    return g_strdup ("");
  if (step <= 0 || !isfinite (step))
    step = a > 0 ? a : 1;
  if (a < step * 1e-9)
    return g_strdup ("0");
  if (a >= 1e15 || (a < 1e-4 && step < 1e-4))
    return g_strdup_printf ("%.3g", value);

  for (guint i = 0; i < G_N_ELEMENTS (si); i++)
    if (MAX (a, magnitude) >= si[i].scale * (si[i].scale == 1e3 ? 10 : 1) && step >= si[i].scale / 10)
      {
        double v = value / si[i].scale, st = step / si[i].scale;
        decimals = st >= 1 ? 0 : (int) ceil (-log10 (st) - 1e-9);
        g_snprintf (buf, sizeof buf, "%.*f%s", CLAMP (decimals, 0, 6), v, si[i].suffix);
        return g_strdup (buf);
      }

  decimals = step >= 1 ? 0 : (int) ceil (-log10 (step) - 1e-9);
  g_snprintf (buf, sizeof buf, "%.*f", CLAMP (decimals, 0, 10), value);
  if (decimals == 0 && a >= 1e3)
    {
      /* digit grouping for whole numbers below 10 000 000 */
      GString *s = g_string_new (NULL);
      const char *digits = buf[0] == '-' ? buf + 1 : buf;
      gsize len = strlen (digits);

      if (buf[0] == '-')
        g_string_append_c (s, '-');
      for (gsize i = 0; i < len; i++)
        {
          if (i > 0 && (len - i) % 3 == 0)
            g_string_append_c (s, ',');
          g_string_append_c (s, digits[i]);
        }
      return g_string_free (s, FALSE);
    }
  return g_strdup (buf);
}

char *
_rk_chart_format_time (double     ms,
                       RkTimeUnit unit,
                       gboolean   first)
{
  g_autoptr(GDateTime) t = NULL;
  double secs = floor (ms / 1e3);

  if (!isfinite (ms) || ms < MIN_TIME_MS || ms > MAX_TIME_MS)
    return g_strdup ("");
  t = g_date_time_new_from_unix_utc ((gint64) secs);
  if (t == NULL)
    return g_strdup ("");

  switch (unit)
    {
    case _RK_TIME_YEAR:
      return g_date_time_format (t, "%Y");
    case _RK_TIME_MONTH:
      return g_date_time_format (t, (first || g_date_time_get_month (t) == 1) ? "%b %Y" : "%b");
    case _RK_TIME_DAY:
      return g_date_time_format (t, first ? "%b %-d, %Y" : "%b %-d");
    case _RK_TIME_HOUR:
      if (first || (g_date_time_get_hour (t) == 0))
        return g_date_time_format (t, "%b %-d %H:%M");
      return g_date_time_format (t, "%H:%M");
    case _RK_TIME_MINUTE:
      return g_date_time_format (t, first ? "%b %-d %H:%M" : "%H:%M");
    case _RK_TIME_SECOND:
      return g_date_time_format (t, "%H:%M:%S");
    case _RK_TIME_MS:
    default:
      {
        g_autofree char *hms = g_date_time_format (t, "%H:%M:%S");
        return g_strdup_printf ("%s.%03d", hms, (int) (ms - secs * 1e3 + 0.5) % 1000);
      }
    }
}

char *
_rk_chart_format_exact (double value)
{
  char buf[64];

  if (!isfinite (value))
    return g_strdup ("—");
  for (int prec = 1; prec <= 17; prec++)
    {
      g_snprintf (buf, sizeof buf, "%.*g", prec, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  return g_strdup (buf);
}

static char *
format_exact_time (double ms)
{
  g_autoptr(GDateTime) t = NULL;
  double secs = floor (ms / 1e3);
  int frac;

  if (!isfinite (ms) || ms < MIN_TIME_MS || ms > MAX_TIME_MS)
    return _rk_chart_format_exact (ms);
  t = g_date_time_new_from_unix_utc ((gint64) secs);
  if (t == NULL)
    return _rk_chart_format_exact (ms);
  frac = (int) (ms - secs * 1e3 + 0.5);
  if (frac > 0)
    {
      g_autofree char *s = g_date_time_format (t, "%Y-%m-%d %H:%M:%S");
      return g_strdup_printf ("%s.%03d", s, MIN (frac, 999));
    }
  if (g_date_time_get_hour (t) == 0 && g_date_time_get_minute (t) == 0 &&
      g_date_time_get_second (t) == 0)
    return g_date_time_format (t, "%Y-%m-%d");
  return g_date_time_format (t, "%Y-%m-%d %H:%M:%S");
}

/* ----------------------------------------------------------------- drawing */

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

static PangoLayout *
text_layout (cairo_t    *cr,
             const char *text,
             double      px,
             gboolean    bold)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  g_autoptr(PangoFontDescription) desc = pango_font_description_from_string ("Sans");

  pango_font_description_set_absolute_size (desc, px * PANGO_SCALE);
  if (bold)
    pango_font_description_set_weight (desc, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, desc);
  pango_layout_set_text (layout, text, -1);
  return layout;
}

static void
text_size (cairo_t    *cr,
           const char *text,
           double      px,
           gboolean    bold,
           double     *w,
           double     *h)
{
  g_autoptr(PangoLayout) layout = text_layout (cr, text, px, bold);
  int iw, ih;

  pango_layout_get_pixel_size (layout, &iw, &ih);
  if (w)
    *w = iw;
  if (h)
    *h = ih;
}

/* Draws @text with its anchor at (x, y): ax/ay 0 = left/top, 0.5 = centre, 1 = right/bottom. */
static void
draw_text (cairo_t    *cr,
           const char *text,
           double      px,
           gboolean    bold,
           double      x,
           double      y,
           double      ax,
           double      ay,
           double      max_width)
{
  g_autoptr(PangoLayout) layout = text_layout (cr, text, px, bold);
  int iw, ih;

  if (max_width > 0)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
    }
  pango_layout_get_pixel_size (layout, &iw, &ih);
  cairo_move_to (cr, x - ax * iw, y - ay * ih);
  pango_cairo_show_layout (cr, layout);
}

static char *
x_tick_label (RkChart      *self,
              const Layout *L,
              guint         i)
{
  if (L->time_ticks)
    return _rk_chart_format_time (L->xt[i], L->time_unit, i == 0);
  return _rk_chart_format_tick (L->xt[i], L->xstep, axis_magnitude (L->xt, L->n_xt));
}

static void
compute_x_ticks (RkChart *self,
                 Layout  *L,
                 guint    target)
{
  L->time_ticks = FALSE;
  if (self->x_type == RK_CHART_AXIS_TIME)
    {
      L->n_xt = _rk_chart_time_ticks (L->x0, L->x1, target, L->xt, MAX_TICKS, &L->time_unit);
      if (L->n_xt > 0)
        {
          L->time_ticks = TRUE;
          return;
        }
    }
  L->n_xt = _rk_chart_nice_ticks (L->x0, L->x1, target, L->xt, MAX_TICKS, &L->xstep);
  /* nice ticks may fall a hair outside an exact range */
  while (L->n_xt > 0 && L->xt[0] < L->x0 - (L->x1 - L->x0) * 1e-9)
    {
      memmove (L->xt, L->xt + 1, (L->n_xt - 1) * sizeof (double));
      L->n_xt--;
    }
  while (L->n_xt > 0 && L->xt[L->n_xt - 1] > L->x1 + (L->x1 - L->x0) * 1e-9)
    L->n_xt--;
}

static void
compute_layout (RkChart *self,
                cairo_t *cr,
                double   w,
                double   h,
                Layout  *L)
{
  double th = 0, lh = 0, tick_h = 0, max_w = 0;
  gboolean include_zero;
  double lo, hi, plot_w;

  memset (L, 0, sizeof *L);
  L->w = w;
  L->h = h;
  L->t = PAD;
  text_size (cr, "0", FONT_PX, FALSE, NULL, &tick_h);

  if (self->title != NULL && *self->title != '\0')
    {
      text_size (cr, self->title, FONT_PX * 1.25, TRUE, NULL, &th);
      L->title_y = L->t;
      L->t += th + 8;
    }

  /* legend: one row of entries, wrapped as needed, for several series */
  if (self->n_series > 1 && self->kind != RK_CHART_KIND_BOX)
    {
      double row_w = 0, avail = w - 2 * PAD;

      L->legend_rows = 1;
      for (guint k = 0; k < self->n_series; k++)
        {
          double tw;
          text_size (cr, self->series[k].name, FONT_PX, FALSE, &tw, &lh);
          tw = MIN (tw, 200) + 12 + 6 + 18;
          if (row_w > 0 && row_w + tw > avail)
            {
              L->legend_rows++;
              row_w = 0;
            }
          row_w += tw;
        }
      L->legend_rows = MIN (L->legend_rows, 4);
      L->legend_row_h = lh + 4;
      L->legend_y = L->t;
      L->t += L->legend_rows * L->legend_row_h + 6;
    }

  L->b = h - PAD - tick_h - 6;
  if (self->x_label != NULL && *self->x_label != '\0')
    L->b -= tick_h + 6;
  L->l = PAD;
  if (self->y_label != NULL && *self->y_label != '\0')
    L->l += tick_h + 8;
  L->r = w - PAD - 8;

  /* y range */
  lo = self->ymin;
  hi = self->ymax;
  if (isnan (lo))
    {
      lo = 0;
      hi = 1;
    }
  include_zero = self->kind == RK_CHART_KIND_BAR || self->kind == RK_CHART_KIND_AREA ||
                 self->kind == RK_CHART_KIND_HISTOGRAM;
  if (include_zero)
    {
      lo = MIN (lo, 0);
      hi = MAX (hi, 0);
    }
  if (hi == lo)
    {
      double pad = lo == 0 ? 1 : fabs (lo) * 0.1;
      lo -= include_zero && lo == 0 ? 0 : pad;
      hi += pad;
    }
  if (!include_zero)
    {
      double pad = (hi - lo) * (self->kind == RK_CHART_KIND_LINE ? 0.03 : 0.05);
      lo -= pad;
      hi += pad;
    }
  if (self->has_ymin)
    lo = self->fixed_ymin;
  if (self->has_ymax)
    hi = self->fixed_ymax;
  if (!(hi > lo))
    hi = lo + 1;

  /* y ticks, then widen the range to whole steps so the top has a label */
  {
    double target = MAX (3, (L->b - L->t) / 42);
    L->n_yt = _rk_chart_nice_ticks (lo, hi, (guint) target, L->yt, MAX_TICKS, &L->ystep);
    /* bars and areas get a labelled top; lines and points keep their
     * data range (with a margin) so no band of the plot stays empty */
    if (L->ystep > 0 && !self->has_ymin && !self->has_ymax && include_zero)
      {
        double nlo = floor (lo / L->ystep + 1e-9) * L->ystep;
        double nhi = ceil (hi / L->ystep - 1e-9) * L->ystep;
        if (include_zero && self->ymin >= 0 && lo >= 0)
          nlo = MAX (nlo, 0);
        lo = nlo;
        hi = nhi;
        /* same step, now from end to end */
        L->n_yt = 0;
        for (double v = nlo; v <= nhi + L->ystep * 1e-6 && L->n_yt < MAX_TICKS; v += L->ystep)
          L->yt[L->n_yt++] = fabs (v) < L->ystep * 1e-9 ? 0 : round (v / L->ystep) * L->ystep;
      }
  }
  L->y0 = lo;
  L->y1 = hi;
  for (guint i = 0; i < L->n_yt; i++)
    {
      g_autofree char *s = _rk_chart_format_tick (L->yt[i], L->ystep, axis_magnitude (L->yt, L->n_yt));
      double tw;
      text_size (cr, s, FONT_PX, FALSE, &tw, NULL);
      max_w = MAX (max_w, tw);
    }
  L->l += max_w + 8;

  /* x range */
  L->x0 = self->xmin;
  L->x1 = self->xmax;
  if (isnan (L->x0))
    {
      L->x0 = 0;
      L->x1 = 1;
    }
  if (L->x1 == L->x0)
    {
      double pad = self->x_type == RK_CHART_AXIS_TIME ? 43200e3 : (L->x0 == 0 ? 1 : fabs (L->x0) * 0.1);
      L->x0 -= pad;
      L->x1 += pad;
    }
  else if (self->kind == RK_CHART_KIND_SCATTER)
    {
      double pad = (L->x1 - L->x0) * 0.04;
      L->x0 -= pad;
      L->x1 += pad;
    }

  if (L->r - L->l < 20)
    L->r = L->l + 20;
  if (L->b - L->t < 20)
    L->b = L->t + 20;
  plot_w = L->r - L->l;

  if (self->x_type == RK_CHART_AXIS_CATEGORY)
    {
      guint n = self->categories->len;
      double slot = plot_w / MAX (n, 1);

      /* measuring 10 000 labels on every hover would be slow: past 100,
       * measure an even sample (the longest by bytes among them) */
      for (guint i = 0; i < n; i += MAX (1, n / 100))
        {
          const char *label = g_ptr_array_index (self->categories, i);
          double tw;

          for (guint j = i + 1; n > 100 && j < MIN (n, i + n / 100); j++)
            if (strlen (g_ptr_array_index (self->categories, j)) > strlen (label))
              label = g_ptr_array_index (self->categories, j);
          text_size (cr, label, FONT_PX, FALSE, &tw, NULL);
          L->cat_label_w = MAX (L->cat_label_w, tw);
        }
      /* labels longer than 2.5 slots are ellipsized; thin out the rest */
      L->cat_stride = 1;
      while (L->cat_stride < n &&
             MIN (L->cat_label_w, 2.5 * slot * L->cat_stride - 8) + 8 > slot * L->cat_stride)
        L->cat_stride++;

      /* when they would be thinned, run them at 45° instead: more fit */
      if (L->cat_stride > 1)
        {
          double rot_w = MIN (L->cat_label_w, MIN (160, 0.22 * h * G_SQRT2));
          double extent = (rot_w + tick_h) / G_SQRT2;
          double first_w;

          if (L->b - extent + tick_h - L->t >= 60)
            {
              L->cat_rotate = TRUE;
              L->cat_rot_w = rot_w;
              L->b -= extent - tick_h;
              L->cat_stride = MAX (1, (guint) ceil (tick_h * 1.5 / slot));
              /* the first label runs down-left from its bar: keep it inside */
              text_size (cr, g_ptr_array_index (self->categories, 0), FONT_PX, FALSE, &first_w, NULL);
              first_w = MIN (first_w, rot_w);
              if (L->l + slot / 2 - (first_w + tick_h / 2) / G_SQRT2 < 2)
                L->l = MIN ((first_w + tick_h / 2) / G_SQRT2 + 2 - slot / 2, L->r - 40);
            }
        }
    }
  else
    {
      guint target = (guint) MAX (2, plot_w / (L->time_ticks || self->x_type == RK_CHART_AXIS_TIME ? 110 : 80));

      for (int attempt = 0; attempt < 6; attempt++)
        {
          double widest = 0;

          compute_x_ticks (self, L, target);
          for (guint i = 0; i < L->n_xt; i++)
            {
              g_autofree char *s = x_tick_label (self, L, i);
              double tw;
              text_size (cr, s, FONT_PX, FALSE, &tw, NULL);
              widest = MAX (widest, tw);
            }
          if (L->n_xt < 2 || (widest + 16) * L->n_xt <= plot_w || target <= 2)
            break;
          target = MAX (2, (guint) (plot_w / (widest + 16)));
          if (attempt == 4)
            target = 2;
        }
    }
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

static void
set_rgb (cairo_t *cr, Rgb c, double alpha)
{
  cairo_set_source_rgba (cr, c.r, c.g, c.b, alpha);
}

typedef struct
{
  double x, y;
} Pt;

static inline double
series_x (const Series *s, gsize i)
{
  return s->x != NULL ? s->x[i] : (double) i;
}

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

static void
bar_geometry (RkChart      *self,
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
      double x, bw;

      if (s->n == 0)
        continue;
      bar_geometry (self, L, 0, k, &x, &bw);
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
              bar_geometry (self, L, i, k, &x, &bw);
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
          bar_geometry (self, L, i, k, &x, &bw);
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

  text_size (cr, "0", FONT_PX, FALSE, NULL, &tick_h);

  /* horizontal grid and y labels */
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < L->n_yt; i++)
    {
      double y = round (map_y (L, L->yt[i])) + 0.5;
      g_autofree char *s = _rk_chart_format_tick (L->yt[i], L->ystep, axis_magnitude (L->yt, L->n_yt));

      if (y < L->t - 1 || y > L->b + 1)
        continue;
      set_rgb (cr, pal->grid, 1);
      cairo_move_to (cr, L->l, y);
      cairo_line_to (cr, L->r, y);
      cairo_stroke (cr);
      set_rgb (cr, pal->muted, 1);
      draw_text (cr, s, FONT_PX, FALSE, L->l - 8, y, 1, 0.5, 0);
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
              draw_text (cr, label, FONT_PX, FALSE, 0, 0, 1, 0.5, L->cat_rot_w);
              cairo_restore (cr);
              continue;
            }
          /* keep edge labels inside the picture */
          text_size (cr, label, FONT_PX, FALSE, &tw, NULL);
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
          draw_text (cr, label, FONT_PX, FALSE, x, L->b + 6, ax, 0,
                     L->cat_label_w > maxw ? MAX (maxw, 12) : 0);
        }
    }
  else
    {
      for (guint i = 0; i < L->n_xt; i++)
        {
          double x = round (map_x (L, L->xt[i])) + 0.5;
          g_autofree char *s = x_tick_label (self, L, i);
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
          text_size (cr, s, FONT_PX, FALSE, &tw, NULL);
          if (x - tw / 2 < 2)
            ax = 0;
          else if (x + tw / 2 > L->w - 2)
            ax = 1;
          set_rgb (cr, pal->muted, 1);
          draw_text (cr, s, FONT_PX, FALSE, x, L->b + 6, ax, 0, 0);
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
    draw_text (cr, self->x_label, FONT_PX, FALSE, (L->l + L->r) / 2,
               L->h - PAD, 0.5, 1, L->r - L->l);
  if (self->y_label != NULL && *self->y_label != '\0')
    {
      cairo_save (cr);
      cairo_translate (cr, PAD, (L->t + L->b) / 2);
      cairo_rotate (cr, -G_PI / 2);
      draw_text (cr, self->y_label, FONT_PX, FALSE, 0, 0, 0.5, 0, L->b - L->t);
      cairo_restore (cr);
    }
}

static void
draw_legend (RkChart       *self,
             cairo_t       *cr,
             const Layout  *L,
             const Palette *pal)
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
          text_size (cr, self->series[k].name, FONT_PX, FALSE, &tw, NULL);
          widths[k] = MIN (tw, 200) + 12 + 6 + 18;
          /* the last row keeps room to say how many did not fit */
          if (k > first && total + widths[k] > avail - (last_row ? 90 : 0))
            break;
          total += widths[k];
        }
      if (last_row && k < self->n_series)
        {
          more = g_strdup_printf (_("+%u more"), self->n_series - k);
          text_size (cr, more, FONT_PX, FALSE, &more_w, NULL);
          total += more_w;
        }
      x = MAX (PAD, (L->w - total) / 2);
      for (guint j = first; j < k; j++)
        {
          set_rgb (cr, pal->palette[j % N_COLORS], 1);
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
          set_rgb (cr, pal->fg, 0.9);
          draw_text (cr, self->series[j].name, FONT_PX, FALSE, x + 18, y, 0, 0, 200);
          x += widths[j];
        }
      if (more != NULL)
        {
          set_rgb (cr, pal->muted, 1);
          draw_text (cr, more, FONT_PX, FALSE, x, y, 0, 0, 0);
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

  compute_layout (self, cr, width, height, &L);

  if (self->title != NULL && *self->title != '\0')
    {
      set_rgb (cr, pal->fg, 1);
      draw_text (cr, self->title, FONT_PX * 1.25, TRUE, width / 2, L.title_y, 0.5, 0, width - 2 * PAD);
    }
  if (L.legend_rows > 0)
    draw_legend (self, cr, &L, pal);
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
      draw_text (cr, _("No data"), FONT_PX, FALSE, (L.l + L.r) / 2, (L.t + L.b) / 2, 0.5, 0.5, 0);
    }
  cairo_restore (cr);
}

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

gboolean
rk_chart_hit_test (RkChart    *self,
                   double      width,
                   double      height,
                   double      x,
                   double      y,
                   RkChartHit *hit)
{
  cairo_surface_t *surface;
  cairo_t *cr;
  Layout L;
  gboolean found = FALSE;
  double best = INFINITY;

  g_return_val_if_fail (RK_IS_CHART (self), FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  memset (hit, 0, sizeof *hit);
  if (width < 40 || height < 40 || self->n_series == 0)
    return FALSE;

  /* measure text the way rk_chart_draw() does, so the layout matches */
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cr = cairo_create (surface);
  compute_layout (self, cr, width, height, &L);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);

  if (x < L.l - 6 || x > L.r + 6 || y < L.t - 6 || y > L.b + 2)
    return FALSE;

  switch (self->kind)
    {
    case RK_CHART_KIND_LINE:
    case RK_CHART_KIND_AREA:
    case RK_CHART_KIND_SCATTER:
      for (guint k = 0; k < self->n_series; k++)
        {
          const Series *s = &self->series[k];
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
        {
          const Series *s = &self->series[hit->series];
          hit->x = hit->x_end = series_x (s, hit->index);
          hit->y = s->y[hit->index];
          hit->px = map_x (&L, hit->x);
          hit->py = map_y (&L, self->stacked ? s->top[hit->index] : hit->y);
        }
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
            double bx, bw, d;
            double v0, v1;

            if (isnan (s->y[i]))
              continue;
            bar_geometry (self, &L, (gsize) i, k, &bx, &bw);
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

        if (k < 0 || k >= (gint64) self->n_series)
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

static char *
format_x (RkChart *self,
          double   v)
{
  if (self->x_type == RK_CHART_AXIS_TIME)
    return format_exact_time (v);
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

/* ----------------------------------------------------------------- export */

/* Cairo's PNG writer tries every row filter at zlib's default level; charts
 * are flat colours, for which one cheap filter and a fast level lose little
 * size and save most of the time. */
static cairo_status_t
write_png (cairo_surface_t *surface,
           const char      *path)
{
  int w = cairo_image_surface_get_width (surface);
  int h = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  const unsigned char *data = cairo_image_surface_get_data (surface);
  g_autofree guint8 *row = g_malloc ((gsize) w * 3);
  png_structp png;
  png_infop info;
  FILE *fp;

  cairo_surface_flush (surface);
  fp = g_fopen (path, "wb");
  if (fp == NULL)
    return CAIRO_STATUS_WRITE_ERROR;
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png != NULL ? png_create_info_struct (png) : NULL;
  if (png == NULL || info == NULL || setjmp (png_jmpbuf (png)))
    {
      png_destroy_write_struct (&png, &info);
      fclose (fp);
      return CAIRO_STATUS_WRITE_ERROR;
    }
  png_init_io (png, fp);
  png_set_IHDR (png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_filter (png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
  png_set_compression_level (png, 3);
  png_write_info (png, info);
  for (int y = 0; y < h; y++)
    {
      const guint32 *src = (const guint32 *) (data + (gsize) y * stride);
      for (int x = 0; x < w; x++)
        {
          row[x * 3] = (src[x] >> 16) & 0xff;
          row[x * 3 + 1] = (src[x] >> 8) & 0xff;
          row[x * 3 + 2] = src[x] & 0xff;
        }
      png_write_row (png, row);
    }
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  if (fclose (fp) != 0)
    return CAIRO_STATUS_WRITE_ERROR;
  return CAIRO_STATUS_SUCCESS;
}

gboolean
rk_chart_export (RkChart      *self,
                 const char   *path,
                 int           format,
                 int           width,
                 int           height,
                 RkChartStyle  style,
                 GError      **error)
{
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  g_return_val_if_fail (RK_IS_CHART (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (format < 0)
    {
      if (g_str_has_suffix (path, ".png") || g_str_has_suffix (path, ".PNG"))
        format = RK_CHART_FORMAT_PNG;
      else if (g_str_has_suffix (path, ".svg") || g_str_has_suffix (path, ".SVG"))
        format = RK_CHART_FORMAT_SVG;
      else if (g_str_has_suffix (path, ".pdf") || g_str_has_suffix (path, ".PDF"))
        format = RK_CHART_FORMAT_PDF;
      else
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               _("Charts can be saved as PNG, SVG or PDF only."));
          return FALSE;
        }
    }
  if (width < 40 || height < 40 || width > 8192 || height > 8192)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("The chart size must be between 40 and 8192 pixels."));
      return FALSE;
    }

  switch (format)
    {
    case RK_CHART_FORMAT_PNG:
      /* the background is opaque: an RGB PNG is a quarter less to encode */
      surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
      break;
    case RK_CHART_FORMAT_SVG:
      surface = cairo_svg_surface_create (path, width, height);
      break;
    case RK_CHART_FORMAT_PDF:
      surface = cairo_pdf_surface_create (path, width, height);
      break;
    default:
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Charts can be saved as PNG, SVG or PDF only."));
      return FALSE;
    }

  cr = cairo_create (surface);
  rk_chart_draw (self, cr, width, height, style);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == RK_CHART_FORMAT_PNG)
    status = write_png (surface, path);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Could not save the chart to “%s”: %s."), path, cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}
