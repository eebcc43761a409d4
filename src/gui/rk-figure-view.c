/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-figure-view.c — a figure file shown inline. The bytes are read beneath
 * the workspace off the GUI thread; the picture shrinks to the row's width
 * and never grows past the figure's own size. */
#define G_LOG_DOMAIN "rk-figure-view"
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rk-figure-viewer.h"
#include "rk-figure-view.h"

struct _RkFigureView
{
  GtkWidget     parent_instance;

  GtkWidget    *box;
  GtkPicture   *picture;
  GtkLabel     *caption;
  GtkLabel     *error_label;
  GtkButton    *open_button;
  GCancellable *cancellable;
  char         *error;
  RkWorkspace  *workspace;
  char         *rel_path;
  char         *title;
};

G_DEFINE_FINAL_TYPE (RkFigureView, rk_figure_view, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_LOADED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
show_error (RkFigureView *self,
            const char   *message)
{
  g_free (self->error);
  self->error = g_strdup (message);
  gtk_label_set_text (self->error_label, message);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->picture), FALSE);
}

static void
read_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(RkFigureView) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = rk_workspace_read_file_finish (RK_WORKSPACE (source), result, &error);
  g_autoptr(GdkTexture) texture = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (bytes != NULL)
    texture = gdk_texture_new_from_bytes (bytes, &error);
  if (texture == NULL)
    {
      g_autofree char *msg = g_strdup_printf (_("The figure cannot be shown: %s"), error->message);
      show_error (self, msg);
    }
  else
    {
      /* Never wider than the figure itself; narrower as the chat narrows. */
      gtk_picture_set_paintable (self->picture, GDK_PAINTABLE (texture));
      gtk_widget_set_visible (GTK_WIDGET (self->open_button), TRUE);
      gtk_widget_set_visible (GTK_WIDGET (self->picture), TRUE);
    }
  g_signal_emit (self, signals[SIGNAL_LOADED], 0);
}

void
rk_figure_view_load (RkFigureView *self,
                     RkWorkspace  *workspace,
                     const char   *rel_path,
                     const char   *title)
{
  g_return_if_fail (RK_IS_FIGURE_VIEW (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->error, g_free);
  g_set_object (&self->workspace, workspace);
  g_free (self->rel_path);
  self->rel_path = g_strdup (rel_path);
  g_free (self->title);
  self->title = g_strdup (title);
  gtk_widget_set_visible (GTK_WIDGET (self->open_button), FALSE);
  gtk_picture_set_paintable (self->picture, NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  gtk_label_set_text (self->caption, title ? title : "");
  gtk_widget_set_visible (GTK_WIDGET (self->caption), title != NULL && *title != '\0');
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->picture), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  title && *title ? title : _("Figure"), -1);

  if (workspace == NULL || rel_path == NULL)
    {
      show_error (self, _("The figure cannot be shown: the session’s workspace is gone."));
      g_signal_emit (self, signals[SIGNAL_LOADED], 0);
      return;
    }
  self->cancellable = g_cancellable_new ();
  rk_workspace_read_file_async (workspace, rel_path, RK_FIGURE_VIEW_MAX_BYTES, self->cancellable,
                                read_cb, g_object_ref (self));
}

/* The figure in a window of its own (results' RkFigureViewer): zoom, save. */
static void
open_clicked_cb (RkFigureView *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GdkPaintable *paintable = gtk_picture_get_paintable (self->picture);
  GtkWidget *viewer;

  if (paintable == NULL)
    return;
  viewer = rk_figure_viewer_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, paintable,
                                 self->title && *self->title ? self->title : _("Figure"),
                                 self->workspace, self->rel_path);
  gtk_window_present (GTK_WINDOW (viewer));
}

static void
picture_pressed_cb (GtkGestureClick *gesture,
                    int              n_press,
                    double           x,
                    double           y,
                    RkFigureView    *self)
{
  if (n_press == 1)
    open_clicked_cb (self);
}

GdkPaintable *
rk_figure_view_get_paintable (RkFigureView *self)
{
  g_return_val_if_fail (RK_IS_FIGURE_VIEW (self), NULL);
  return gtk_picture_get_paintable (self->picture);
}

const char *
rk_figure_view_get_error (RkFigureView *self)
{
  g_return_val_if_fail (RK_IS_FIGURE_VIEW (self), NULL);
  return self->error;
}

static void
rk_figure_view_dispose (GObject *object)
{
  RkFigureView *self = RK_FIGURE_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_FIGURE_VIEW);
  G_OBJECT_CLASS (rk_figure_view_parent_class)->dispose (object);
}

static void
rk_figure_view_finalize (GObject *object)
{
  RkFigureView *self = RK_FIGURE_VIEW (object);

  g_free (self->error);
  g_clear_object (&self->workspace);
  g_free (self->rel_path);
  g_free (self->title);
  G_OBJECT_CLASS (rk_figure_view_parent_class)->finalize (object);
}

/* The figure is laid out at most as wide as it is: narrower windows shrink
 * it, wider ones do not blow it up (a blurry upscale). */
static int
content_width (RkFigureView *self,
               int           width)
{
  int min, nat;

  gtk_widget_measure (self->box, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  return MAX (min, MIN (width, nat));
}

static void
rk_figure_view_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  RkFigureView *self = RK_FIGURE_VIEW (widget);

  if (orientation == GTK_ORIENTATION_VERTICAL && for_size >= 0)
    for_size = content_width (self, for_size);
  gtk_widget_measure (self->box, orientation, for_size, minimum, natural, NULL, NULL);
}

static void
rk_figure_view_size_allocate (GtkWidget *widget,
                              int        width,
                              int        height,
                              int        baseline)
{
  RkFigureView *self = RK_FIGURE_VIEW (widget);

  gtk_widget_allocate (self->box, content_width (self, width), height, -1, NULL);
}

static GtkSizeRequestMode
rk_figure_view_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
rk_figure_view_class_init (RkFigureViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_figure_view_dispose;
  object_class->finalize = rk_figure_view_finalize;
  widget_class->measure = rk_figure_view_measure;
  widget_class->size_allocate = rk_figure_view_size_allocate;
  widget_class->get_request_mode = rk_figure_view_get_request_mode;

  signals[SIGNAL_LOADED] =
    g_signal_new ("loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-figure-view.ui");
  gtk_widget_class_bind_template_child (widget_class, RkFigureView, box);
  gtk_widget_class_bind_template_child (widget_class, RkFigureView, picture);
  gtk_widget_class_bind_template_child (widget_class, RkFigureView, caption);
  gtk_widget_class_bind_template_child (widget_class, RkFigureView, error_label);
  gtk_widget_class_bind_template_child (widget_class, RkFigureView, open_button);
  gtk_widget_class_bind_template_callback (widget_class, open_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, picture_pressed_cb);
  gtk_widget_class_set_css_name (widget_class, "rk-figure-view");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
rk_figure_view_init (RkFigureView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->picture), "zoom-in");
}

GtkWidget *
rk_figure_view_new (void)
{
  return g_object_new (RK_TYPE_FIGURE_VIEW, NULL);
}
