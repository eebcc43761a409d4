/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-parse.c — the one parser of chart specs from the sandbox
 * (untrusted, bounded; docs/chart-spec.md) and of their binary sidecars. */
#define G_LOG_DOMAIN "rk-chart"
#include "config.h"

#include "rk-chart.h"
#include "rk-chart-private.h"
#include "rk-enum-types.h"
#include "rk-json.h"
#include "rk-util.h"
#include "rk-workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ parser */

typedef struct
{
  const char *base_dir;
  /* Or: the workspace open at dirfd and the spec's folder in it, and every
   * read goes through rk_workspace_open_file_at (no path re-resolved). */
  int         dirfd;
  const char *dir_rel;
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

/* Reads at most @max bytes of the regular file open at @fd (taken). */
static GBytes *
read_bounded_fd (int      fd,
                 gsize    max,
                 GError **error)
{
  struct stat st;
  g_autofree guint8 *buf = NULL;
  gsize done = 0;

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

/* Reads at most @max bytes of a regular file, never following a symlink. */
static GBytes *
read_bounded (const char *path,
              gsize       max,
              GError    **error)
{
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0);

  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not open the chart file: %s."), g_strerror (saved));
      return NULL;
    }
  return read_bounded_fd (fd, max, error);
}

/* Reads @rel beneath the folder open at @dirfd: no symlink, no "..", no
 * folder swapped in between is followed (openat2 RESOLVE_BENEATH). */
static GBytes *
read_bounded_beneath (int         dirfd,
                      const char *rel,
                      gsize       max,
                      GError    **error)
{
  int fd = rk_workspace_open_file_at (dirfd, rel, error);

  if (fd < 0)
    return NULL;
  return read_bounded_fd (fd, max, error);
}

static gboolean
get_string (JsonObject  *obj,
            const char  *member,
            char       **out,
            GError     **error)
{
  g_autoptr(GError) local = NULL;
  JsonNode *node;

  *out = NULL;
  if (rk_json_dup_string (obj, member, RK_CHART_MAX_STRING, RK_JSON_OPTIONAL, out, &local))
    return TRUE;
  if (g_error_matches (local, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE))
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                   _("The chart's “%s” is too long."), member);
      return FALSE;
    }
  node = json_object_get_member (obj, member);
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart contains invalid text."));
  g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
               _("The chart's “%s” is not text."), member);
  return FALSE;
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

/* A required or optional finite number, within ±MAX_MAGNITUDE. */
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
  if (!rk_json_get_double (obj, member, -MAX_MAGNITUDE, MAX_MAGNITUDE,
                           required ? RK_JSON_REQUIRED : RK_JSON_OPTIONAL, out, NULL))
    {
      if (node == NULL || JSON_NODE_HOLDS_NULL (node))
        g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                     _("The chart lacks the number “%s”."), member);
      else
        g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                     _("The chart's “%s” is not a finite number."), member);
      return FALSE;
    }
  if (present)
    *present = node != NULL && !JSON_NODE_HOLDS_NULL (node);
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
  if (ctx->base_dir == NULL && ctx->dirfd < 0)
    return fail (error, RK_PARSE_ERROR_UNSUPPORTED,
                 _("The chart's data file cannot be read from here."));
  /* Only a plain file name, beside the spec: no folders, no “..”, not absolute. */
  if (!rk_path_is_beneath (ctx->sidecar_name) || strchr (ctx->sidecar_name, '/') != NULL)
    return fail (error, RK_PARSE_ERROR_MALFORMED,
                 _("The chart's data file is not beside the chart."));
  if (ctx->dirfd >= 0)
    {
      path = ctx->dir_rel != NULL ? g_strconcat (ctx->dir_rel, "/", ctx->sidecar_name, NULL)
                                  : g_strdup (ctx->sidecar_name);
      ctx->sidecar = read_bounded_beneath (ctx->dirfd, path, RK_CHART_MAX_SIDECAR_BYTES, &local);
    }
  else
    {
      path = g_build_filename (ctx->base_dir, ctx->sidecar_name, NULL);
      ctx->sidecar = read_bounded (path, RK_CHART_MAX_SIDECAR_BYTES, &local);
    }
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

/* Stacks layers by index (NaN counts as 0); bars stack negatives downwards.
 * Hidden layers add nothing. Called again when the kind or visibility changes. */
void
_rk_chart_compute_stacks (RkChart *self)
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
      gboolean hidden = _rk_chart_series_hidden (self, k);

      g_free (s->base);
      g_free (s->top);
      s->base = g_new (double, MAX (s->n, 1));
      s->top = g_new (double, MAX (s->n, 1));
      for (gsize i = 0; i < s->n; i++)
        {
          double v = isnan (s->y[i]) || hidden ? 0 : s->y[i];

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

/* The data extent of the visible series. */
void
_rk_chart_compute_extent (RkChart *self)
{
  self->xmin = self->xmax = self->ymin = self->ymax = NAN;
  for (guint k = 0; k < self->n_series; k++)
    {
      Series *s = &self->series[k];

      if (_rk_chart_series_hidden (self, k))
        continue;

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
              if (self->stacked && s->top != NULL)
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

/* A spec names a kind by its nick ("line", "bar"). */
const char *
rk_chart_kind_to_string (RkChartKind kind)
{
  const char *nick = rk_enum_to_nick (RK_TYPE_CHART_KIND, kind, NULL);

  g_return_val_if_fail (nick != NULL, NULL);
  return nick;
}

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
  int kind_value;
  gsize n_series;

  node = json_object_get_member (root, "version");
  if (node == NULL || !node_number (node, &version))
    return fail (error, RK_PARSE_ERROR_MALFORMED, _("The chart has no version."));
  if (version != 1)
    return fail (error, RK_PARSE_ERROR_UNSUPPORTED,
                 _("The chart was made for a different version of Reckon."));

  if (!get_string (root, "kind", &kind, error))
    return FALSE;
  kind_value = rk_enum_from_nick (RK_TYPE_CHART_KIND, kind, -1);
  if (kind_value < 0)
    return fail (error, RK_PARSE_ERROR_UNSUPPORTED, _("The chart is of an unknown kind."));
  self->kind = kind_value;

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
      _rk_chart_compute_stacks (self);
    }
  _rk_chart_compute_extent (self);
  self->spec_kind = self->kind;
  self->spec_stacked = self->stacked;
  return TRUE;
}

static RkChart *
chart_new_from_bytes (GBytes     *bytes,
                      ParseCtx   *ctxp,
                      GError    **error)
{
  g_autoptr(RkChart) self = NULL;
  g_autoptr(JsonObject) root = NULL;
  g_autoptr(GError) local_error = NULL;
  ParseCtx ctx = *ctxp;
  const char *data;
  gsize len;
  gboolean ok;

  data = g_bytes_get_data (bytes, &len);
  root = rk_json_parse_object (data, (gssize) len, RK_CHART_MAX_SPEC_BYTES, RK_CHART_MAX_DEPTH,
                               RK_JSON_SCAN_NO_ESCAPED_NUL, &local_error);
  if (root == NULL)
    {
      /* Over the size or the nesting limit, or not a JSON object. */
      fail (error, local_error->code, local_error->code == RK_PARSE_ERROR_TOO_LARGE ? _("The chart is too large.")
                                                                                    : _("The chart is not valid JSON."));
      return NULL;
    }

  self = g_object_new (RK_TYPE_CHART, NULL);
  ok = parse_root (self, &ctx, root, error);
  g_clear_pointer (&ctx.sidecar, g_bytes_unref);
  if (!ok)
    return NULL;
  return g_steal_pointer (&self);
}

RkChart *
rk_chart_new_from_bytes (GBytes     *bytes,
                         const char *base_dir,
                         GError    **error)
{
  ParseCtx ctx = { base_dir, -1, NULL, NULL, NULL, 0 };

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return chart_new_from_bytes (bytes, &ctx, error);
}

RkChart *
rk_chart_new_from_workspace (RkWorkspace  *workspace,
                             const char   *rel_path,
                             GError      **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *dir_rel = NULL;
  ParseCtx ctx = { NULL, -1, NULL, NULL, NULL, 0 };
  RkChart *chart = NULL;

  g_return_val_if_fail (RK_IS_WORKSPACE (workspace), NULL);
  g_return_val_if_fail (rel_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* One fd for the spec and its sidecar: both beneath the same folder. */
  ctx.dirfd = rk_workspace_dup_fd (workspace, error);
  if (ctx.dirfd < 0)
    return NULL;
  bytes = read_bounded_beneath (ctx.dirfd, rel_path, RK_CHART_MAX_SPEC_BYTES, error);
  if (bytes != NULL)
    {
      dir_rel = g_path_get_dirname (rel_path);
      ctx.dir_rel = g_strcmp0 (dir_rel, ".") == 0 ? NULL : dir_rel;
      chart = chart_new_from_bytes (bytes, &ctx, error);
    }
  close (ctx.dirfd);
  return chart;
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

