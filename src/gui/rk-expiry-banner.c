/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-expiry-banner.c — a revealer strip styled like AdwBanner (which
 * libadwaita 1.2 lacks, and which holds only one button where this needs
 * two): a live countdown to expiry with Save all and Keep alive; after
 * expiry, Restart session. It follows RkSession's "warned" and "state". */
#define G_LOG_DOMAIN "rk-expiry-banner"
#include "config.h"

#include <glib/gi18n.h>

#include "rk-a11y.h"
#include "rk-expiry-banner.h"

struct _RkExpiryBanner
{
  GtkWidget     parent_instance;

  GtkRevealer  *revealer;
  GtkSpinner   *spinner;
  GtkLabel     *label;
  GtkButton    *save_button;
  GtkButton    *keep_button;
  GtkButton    *restart_button;

  RkSession    *session;
  GSignalGroup *session_signals;
  guint         tick_source;
  const char   *mode;
};

G_DEFINE_FINAL_TYPE (RkExpiryBanner, rk_expiry_banner, GTK_TYPE_WIDGET)

static void update (RkExpiryBanner *self);

static gint64
seconds_left (RkExpiryBanner *self)
{
  gint64 expiry = rk_session_get_expiry_time (self->session);

  /* The session's system clock is the monotonic one. */
  if (expiry <= 0)
    return -1;
  return MAX (0, (expiry - g_get_monotonic_time () + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC);
}

static gboolean
tick_cb (gpointer user_data)
{
  update (user_data);
  return G_SOURCE_CONTINUE;
}

static void
set_mode (RkExpiryBanner *self,
          const char     *mode)
{
  gboolean countdown = g_str_equal (mode, "countdown");
  gboolean expired = g_str_equal (mode, "expired");
  gboolean restarting = g_str_equal (mode, "restarting");

  self->mode = mode;
  gtk_widget_set_visible (GTK_WIDGET (self->save_button), countdown);
  gtk_widget_set_visible (GTK_WIDGET (self->keep_button), countdown);
  gtk_widget_set_visible (GTK_WIDGET (self->restart_button), expired);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), restarting);
  gtk_spinner_set_spinning (self->spinner, restarting);
  rk_revealer_set_shown (self->revealer, *mode != '\0');

  if (countdown && self->tick_source == 0)
    self->tick_source = g_timeout_add_seconds (1, tick_cb, self);
  else if (!countdown)
    g_clear_handle_id (&self->tick_source, g_source_remove);
  rk_widget_set_css_class (GTK_WIDGET (self), "expired", expired);
}

static void
update (RkExpiryBanner *self)
{
  RkSessionState state;
  g_autofree char *text = NULL;

  if (self->session == NULL)
    {
      set_mode (self, "");
      return;
    }

  state = rk_session_get_state (self->session);
  if (state == RK_SESSION_RESTARTING)
    {
      set_mode (self, "restarting");
      gtk_label_set_label (self->label, _("Restarting the session: adding its files again and running its code…"));
    }
  else if (state == RK_SESSION_EXPIRED)
    {
      set_mode (self, "expired");
      gtk_label_set_label (self->label, _("This session ended after being idle. Its files and results "
                                          "were deleted; the conversation is kept."));
    }
  else if (rk_session_get_warned (self->session))
    {
      gint64 left = seconds_left (self);

      set_mode (self, "countdown");
      if (left < 0)
        left = 0;
      /* Translators: %d:%02d is minutes:seconds. */
      text = g_strdup_printf (_("This session ends in %d:%02d unless you use it. "
                                "Its files and results will then be deleted."),
                              (int) (left / 60), (int) (left % 60));
      gtk_label_set_label (self->label, text);
    }
  else
    set_mode (self, "");

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  gtk_label_get_label (self->label), -1);
}

static void
rk_expiry_banner_dispose (GObject *object)
{
  RkExpiryBanner *self = RK_EXPIRY_BANNER (object);

  g_clear_handle_id (&self->tick_source, g_source_remove);
  if (self->session_signals != NULL)
    g_signal_group_set_target (self->session_signals, NULL);
  g_clear_object (&self->session_signals);
  g_clear_object (&self->session);
  gtk_widget_dispose_template (GTK_WIDGET (object), RK_TYPE_EXPIRY_BANNER);
  G_OBJECT_CLASS (rk_expiry_banner_parent_class)->dispose (object);
}

static void
rk_expiry_banner_class_init (RkExpiryBannerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_expiry_banner_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-expiry-banner.ui");
  gtk_widget_class_bind_template_child (widget_class, RkExpiryBanner, revealer);
  gtk_widget_class_bind_template_child (widget_class, RkExpiryBanner, spinner);
  gtk_widget_class_bind_template_child (widget_class, RkExpiryBanner, label);
  gtk_widget_class_bind_template_child (widget_class, RkExpiryBanner, save_button);
  gtk_widget_class_bind_template_child (widget_class, RkExpiryBanner, keep_button);
  gtk_widget_class_bind_template_child (widget_class, RkExpiryBanner, restart_button);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "expirybanner");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_STATUS);
}

static void
rk_expiry_banner_init (RkExpiryBanner *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->mode = "";
  /* Hidden for real, with its strip, once folded away. */
  g_object_bind_property (self->revealer, "visible", self, "visible", G_BINDING_SYNC_CREATE);
  self->session_signals = g_signal_group_new (RK_TYPE_SESSION);
  g_signal_group_connect_swapped (self->session_signals, "notify::state", G_CALLBACK (update), self);
  g_signal_group_connect_swapped (self->session_signals, "notify::warned", G_CALLBACK (update), self);
  g_signal_group_connect_swapped (self->session_signals, "notify::expiry-time", G_CALLBACK (update), self);

  set_mode (self, "");
}

void
rk_expiry_banner_set_session (RkExpiryBanner *self,
                              RkSession      *session)
{
  g_return_if_fail (RK_IS_EXPIRY_BANNER (self));

  if (!g_set_object (&self->session, session))
    return;
  g_signal_group_set_target (self->session_signals, session);
  update (self);
}

void
rk_expiry_banner_dismiss (RkExpiryBanner *self)
{
  g_return_if_fail (RK_IS_EXPIRY_BANNER (self));

  if (g_str_equal (self->mode, "countdown"))
    set_mode (self, "");
}
