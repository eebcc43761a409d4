/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-figure-viewer.c — the full viewer of a matplotlib figure: a picture in a
 * scrolled window at a chosen zoom or fitted, and Save through the portal
 * (rk_export_file: the copy is read beneath the workspace, never through a
 * symlink). */
#define G_LOG_DOMAIN "rk-figure-viewer"
#include "config.h"

#include "rk-figure-viewer.h"
#include "rk-save.h"
#include "rk-text.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#define MIN_ZOOM 0.1
#define MAX_ZOOM 8.0

struct _RkFigureViewer
{
  AdwWindow     parent_instance;

  GdkPaintable *paintable;
  RkWorkspace  *workspace;
  char         *rel_path;
  double        zoom;          /* 0: fit */

  GtkWidget    *scrolled;
  GtkWidget    *picture;
  GtkWidget    *zoom_label;
  GtkWidget    *save_button;
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (RkFigureViewer, rk_figure_viewer, ADW_TYPE_WINDOW)

static void
apply_zoom (RkFigureViewer *self)
{
  g_autofree char *label = NULL;

  if (self->zoom <= 0)
    {
      gtk_picture_set_can_shrink (GTK_PICTURE (self->picture), TRUE);
      gtk_widget_set_size_request (self->picture, -1, -1);
      gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scrolled),
                                      GTK_POLICY_NEVER, GTK_POLICY_NEVER);
      label = g_strdup (_("Fit"));
    }
  else
    {
      int w = gdk_paintable_get_intrinsic_width (self->paintable);
      int h = gdk_paintable_get_intrinsic_height (self->paintable);

      gtk_picture_set_can_shrink (GTK_PICTURE (self->picture), TRUE);
      gtk_widget_set_size_request (self->picture, (int) round (w * self->zoom), (int) round (h * self->zoom));
      gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scrolled),
                                      GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
      /* Translators: a zoom level, "150 %" */
      label = g_strdup_printf (_("%d %%"), (int) round (self->zoom * 100));
    }
  gtk_label_set_text (GTK_LABEL (self->zoom_label), label);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "figure.zoom-in", self->zoom <= 0 || self->zoom < MAX_ZOOM);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "figure.zoom-out", self->zoom <= 0 || self->zoom > MIN_ZOOM);
}

/* The scale the fitted picture is shown at, to zoom from. */
static double
fitted_scale (RkFigureViewer *self)
{
  double w = gdk_paintable_get_intrinsic_width (self->paintable);
  double h = gdk_paintable_get_intrinsic_height (self->paintable);
  double vw = gtk_widget_get_width (self->scrolled);
  double vh = gtk_widget_get_height (self->scrolled);

  if (w <= 0 || h <= 0 || vw <= 0 || vh <= 0)
    return 1.0;
  return MIN (1.0, MIN (vw / w, vh / h));
}

static void
zoom_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  RkFigureViewer *self = RK_FIGURE_VIEWER (widget);
  double current = self->zoom > 0 ? self->zoom : fitted_scale (self);

  if (g_str_equal (action_name, "figure.zoom-in"))
    rk_figure_viewer_set_zoom (self, current * 1.25);
  else if (g_str_equal (action_name, "figure.zoom-out"))
    rk_figure_viewer_set_zoom (self, current / 1.25);
  else if (g_str_equal (action_name, "figure.zoom-original"))
    rk_figure_viewer_set_zoom (self, 1.0);
  else
    rk_figure_viewer_set_zoom (self, 0);
}

/* ---------------------------------------------------------------- save */

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  RkFigureViewer *self = RK_FIGURE_VIEWER (widget);
  g_autofree char *base = NULL;
  g_autofree char *name = NULL;

  if (self->rel_path == NULL)
    return;
  base = g_path_get_basename (self->rel_path);
  name = rk_text_sanitize_for_terminal (base, RK_TEXT_SANITIZE_SINGLE_LINE);
  rk_save_async (widget, _("Save Figure"), name, NULL, rk_save_workspace_file,
                 rk_save_source_new (self->workspace, self->rel_path), (GDestroyNotify) rk_save_source_free,
                 self->cancellable, rk_save_toast_cb, NULL);
}

static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  RkFigureViewer *self = RK_FIGURE_VIEWER (widget);

  if (GDK_IS_TEXTURE (self->paintable))
    {
      gdk_clipboard_set_texture (gtk_widget_get_clipboard (widget), GDK_TEXTURE (self->paintable));
      rk_save_toast (widget, _("Figure copied"));
    }
}

/* --------------------------------------------------------------- object */

static void
rk_figure_viewer_dispose (GObject *object)
{
  RkFigureViewer *self = RK_FIGURE_VIEWER (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->paintable);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_FIGURE_VIEWER);

  G_OBJECT_CLASS (rk_figure_viewer_parent_class)->dispose (object);
}

static void
rk_figure_viewer_finalize (GObject *object)
{
  RkFigureViewer *self = RK_FIGURE_VIEWER (object);

  g_clear_object (&self->workspace);
  g_free (self->rel_path);

  G_OBJECT_CLASS (rk_figure_viewer_parent_class)->finalize (object);
}

static void
rk_figure_viewer_class_init (RkFigureViewerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_figure_viewer_dispose;
  object_class->finalize = rk_figure_viewer_finalize;

  gtk_widget_class_install_action (widget_class, "figure.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "figure.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "figure.zoom-original", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "figure.zoom-fit", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "figure.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "figure.copy", NULL, copy_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK, "figure.copy", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "figure.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "figure.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "figure.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "figure.zoom-original", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, 0, "figure.zoom-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "figure.save", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-figure-viewer.ui");
  gtk_widget_class_bind_template_child (widget_class, RkFigureViewer, scrolled);
  gtk_widget_class_bind_template_child (widget_class, RkFigureViewer, picture);
  gtk_widget_class_bind_template_child (widget_class, RkFigureViewer, zoom_label);
  gtk_widget_class_bind_template_child (widget_class, RkFigureViewer, save_button);
}

static void
rk_figure_viewer_init (RkFigureViewer *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
}

GtkWidget *
rk_figure_viewer_new (GtkWindow    *parent,
                      GdkPaintable *paintable,
                      const char   *title,
                      RkWorkspace  *workspace,
                      const char   *rel_path)
{
  RkFigureViewer *self;
  g_autofree char *clean = NULL;

  g_return_val_if_fail (GDK_IS_PAINTABLE (paintable), NULL);

  self = g_object_new (RK_TYPE_FIGURE_VIEWER, NULL);
  if (parent != NULL)
    gtk_window_set_transient_for (GTK_WINDOW (self), parent);
  self->paintable = g_object_ref (paintable);
  self->workspace = workspace ? g_object_ref (workspace) : NULL;
  self->rel_path = workspace != NULL ? g_strdup (rel_path) : NULL;
  clean = rk_text_sanitize_for_terminal (title != NULL ? title : _("Figure"), RK_TEXT_SANITIZE_SINGLE_LINE);
  gtk_window_set_title (GTK_WINDOW (self), clean);
  gtk_picture_set_paintable (GTK_PICTURE (self->picture), paintable);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->picture), GTK_ACCESSIBLE_PROPERTY_LABEL, clean, -1);
  gtk_widget_set_visible (self->save_button, self->rel_path != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "figure.save", self->rel_path != NULL);
  apply_zoom (self);
  return GTK_WIDGET (self);
}

void
rk_figure_viewer_set_zoom (RkFigureViewer *self,
                           double          zoom)
{
  g_return_if_fail (RK_IS_FIGURE_VIEWER (self));

  self->zoom = zoom <= 0 ? 0 : CLAMP (zoom, MIN_ZOOM, MAX_ZOOM);
  apply_zoom (self);
}

double
rk_figure_viewer_get_zoom (RkFigureViewer *self)
{
  g_return_val_if_fail (RK_IS_FIGURE_VIEWER (self), 0);
  return self->zoom;
}
