/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-export.c — a chart to PNG (its own libpng writer, fast for flat
 * colours), SVG or PDF. */
#define G_LOG_DOMAIN "rk-chart"
#include "config.h"

#include "rk-chart.h"
#include "rk-chart-private.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <png.h>
#include <stdio.h>
#include <string.h>

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

