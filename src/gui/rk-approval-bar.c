/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-approval-bar.c — the approval bar: Run, Edit (the code becomes
 * editable in place; Run then runs the edit), Skip, and the switch for
 * running without asking in this conversation. The buttons activate the
 * chat view's chat.approve, chat.edit (s: the code) and chat.skip. */
#define G_LOG_DOMAIN "rk-approval-bar"
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rk-a11y.h"
#include "rk-approval-bar.h"

struct _RkApprovalBar
{
  GtkWidget    parent_instance;

  GtkWidget   *box;
  GtkButton   *run_button;
  GtkButton   *edit_button;
  GtkSwitch   *auto_switch;

  RkCodeBlock *block;
  char        *original;
  gboolean     editing;
};

G_DEFINE_FINAL_TYPE (RkApprovalBar, rk_approval_bar, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_AUTO_APPROVE,
  PROP_EDITING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
set_editing (RkApprovalBar *self,
             gboolean       editing)
{
  if (self->editing == editing)
    return;
  self->editing = editing;
  if (editing)
    {
      g_free (self->original);
      self->original = self->block ? rk_code_block_get_code (self->block) : NULL;
      gtk_widget_add_css_class (GTK_WIDGET (self->edit_button), "accent");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->edit_button), _("Stop editing and bring back the proposed code"));
    }
  else
    {
      /* Leaving without running: the proposed code comes back. */
      if (self->block != NULL && self->original != NULL)
        rk_code_block_set_code (self->block, self->original);
      g_clear_pointer (&self->original, g_free);
      gtk_widget_remove_css_class (GTK_WIDGET (self->edit_button), "accent");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->edit_button), _("Change the code before running it"));
    }
  /* The button keeps its name, Edit, in both states; it is pressed while editing. */
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->edit_button), GTK_ACCESSIBLE_STATE_PRESSED,
                               editing ? GTK_ACCESSIBLE_TRISTATE_TRUE : GTK_ACCESSIBLE_TRISTATE_FALSE, -1);
  if (self->block != NULL)
    rk_code_block_set_editable (self->block, editing);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EDITING]);
}

static void
run_clicked_cb (RkApprovalBar *self)
{
  if (self->editing && self->block != NULL)
    {
      g_autofree char *code = rk_code_block_get_code (self->block);

      /* The cell keeps showing what was proposed; the transcript adds the
       * edited code as run right below it. */
      set_editing (self, FALSE);
      gtk_widget_activate_action (GTK_WIDGET (self), "chat.edit", "s", code);
    }
  else
    gtk_widget_activate_action (GTK_WIDGET (self), "chat.approve", NULL);
}

static void
edit_clicked_cb (RkApprovalBar *self)
{
  set_editing (self, !self->editing);
}

static void
skip_clicked_cb (RkApprovalBar *self)
{
  set_editing (self, FALSE);
  gtk_widget_activate_action (GTK_WIDGET (self), "chat.skip", NULL);
}

static void
switch_active_cb (RkApprovalBar *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTO_APPROVE]);
}

void
rk_approval_bar_set_code_block (RkApprovalBar *self,
                                RkCodeBlock   *block)
{
  g_return_if_fail (RK_IS_APPROVAL_BAR (self));
  g_return_if_fail (block == NULL || RK_IS_CODE_BLOCK (block));

  set_editing (self, FALSE);
  self->block = block;   /* a sibling in the same row: not owned */
}

void
rk_approval_bar_run (RkApprovalBar *self)
{
  g_return_if_fail (RK_IS_APPROVAL_BAR (self));
  run_clicked_cb (self);
}

gboolean
rk_approval_bar_get_editing (RkApprovalBar *self)
{
  g_return_val_if_fail (RK_IS_APPROVAL_BAR (self), FALSE);
  return self->editing;
}

void
rk_approval_bar_reset (RkApprovalBar *self)
{
  g_return_if_fail (RK_IS_APPROVAL_BAR (self));
  set_editing (self, FALSE);
}

static void
rk_approval_bar_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  RkApprovalBar *self = RK_APPROVAL_BAR (object);

  switch (prop_id)
    {
    case PROP_AUTO_APPROVE:
      g_value_set_boolean (value, gtk_switch_get_active (self->auto_switch));
      break;
    case PROP_EDITING:
      g_value_set_boolean (value, self->editing);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_approval_bar_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  RkApprovalBar *self = RK_APPROVAL_BAR (object);

  switch (prop_id)
    {
    case PROP_AUTO_APPROVE:
      gtk_switch_set_active (self->auto_switch, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_approval_bar_dispose (GObject *object)
{
  RkApprovalBar *self = RK_APPROVAL_BAR (object);

  self->block = NULL;
  g_clear_pointer (&self->original, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_APPROVAL_BAR);
  G_OBJECT_CLASS (rk_approval_bar_parent_class)->dispose (object);
}

static void
rk_approval_bar_class_init (RkApprovalBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_approval_bar_dispose;
  object_class->get_property = rk_approval_bar_get_property;
  object_class->set_property = rk_approval_bar_set_property;

  properties[PROP_AUTO_APPROVE] =
    g_param_spec_boolean ("auto-approve", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_EDITING] =
    g_param_spec_boolean ("editing", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-approval-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, RkApprovalBar, box);
  gtk_widget_class_bind_template_child (widget_class, RkApprovalBar, run_button);
  gtk_widget_class_bind_template_child (widget_class, RkApprovalBar, edit_button);
  gtk_widget_class_bind_template_child (widget_class, RkApprovalBar, auto_switch);
  gtk_widget_class_bind_template_callback (widget_class, run_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, edit_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, skip_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, switch_active_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-approval-bar");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_TOOLBAR);
}

static void
rk_approval_bar_init (RkApprovalBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* Run, Edit and Skip, named after their labels without "_" */
  rk_a11y_name_tree (GTK_WIDGET (self));
}

gboolean
rk_approval_bar_focus_run (RkApprovalBar *self)
{
  g_return_val_if_fail (RK_IS_APPROVAL_BAR (self), FALSE);
  return gtk_widget_grab_focus (GTK_WIDGET (self->run_button));
}

GtkWidget *
rk_approval_bar_new (void)
{
  return g_object_new (RK_TYPE_APPROVAL_BAR, NULL);
}
