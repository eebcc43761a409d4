/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-clock.c — the RkClock interface, the system clock and a fake clock
 * for tests (kept together: each is a few lines). */
#define G_LOG_DOMAIN "rk-clock"
#include "config.h"
#include "rk-clock.h"

G_DEFINE_INTERFACE (RkClock, rk_clock, G_TYPE_OBJECT)

static void
rk_clock_default_init (RkClockInterface *iface)
{
}

gint64
rk_clock_now_us (RkClock *self)
{
  g_return_val_if_fail (RK_IS_CLOCK (self), 0);

  return RK_CLOCK_GET_IFACE (self)->now_us (self);
}

guint
rk_clock_add_timeout (RkClock        *self,
                      guint64         delay_us,
                      GSourceFunc     func,
                      gpointer        data,
                      GDestroyNotify  notify)
{
  g_return_val_if_fail (RK_IS_CLOCK (self), 0);
  g_return_val_if_fail (func != NULL, 0);

  return RK_CLOCK_GET_IFACE (self)->add_timeout (self, delay_us, func, data, notify);
}

void
rk_clock_remove_timeout (RkClock *self,
                         guint    id)
{
  g_return_if_fail (RK_IS_CLOCK (self));

  if (id != 0)
    RK_CLOCK_GET_IFACE (self)->remove_timeout (self, id);
}

/* -- system clock --------------------------------------------------------- */

struct _RkSystemClock
{
  GObject parent_instance;
};

static void rk_system_clock_iface_init (RkClockInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RkSystemClock, rk_system_clock, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (RK_TYPE_CLOCK, rk_system_clock_iface_init))

typedef struct
{
  GSourceFunc    func;
  gpointer       data;
  GDestroyNotify notify;
} OneShot;

static void
one_shot_free (gpointer p)
{
  OneShot *o = p;

  if (o->notify != NULL)
    o->notify (o->data);
  g_free (o);
}

static gboolean
one_shot_cb (gpointer p)
{
  OneShot *o = p;

  o->func (o->data);
  return G_SOURCE_REMOVE;
}

static gint64
system_now_us (RkClock *clock)
{
  return g_get_monotonic_time ();
}

static guint
system_add_timeout (RkClock        *clock,
                    guint64         delay_us,
                    GSourceFunc     func,
                    gpointer        data,
                    GDestroyNotify  notify)
{
  OneShot *o = g_new0 (OneShot, 1);
  guint64 ms = (delay_us + 999) / 1000;

  o->func = func;
  o->data = data;
  o->notify = notify;
  return g_timeout_add_full (G_PRIORITY_DEFAULT, (guint) MIN (ms, G_MAXUINT), one_shot_cb, o, one_shot_free);
}

static void
system_remove_timeout (RkClock *clock,
                       guint    id)
{
  GSource *source = g_main_context_find_source_by_id (g_main_context_get_thread_default (), id);

  if (source == NULL)
    source = g_main_context_find_source_by_id (NULL, id);
  if (source != NULL)
    g_source_destroy (source);
}

static void
rk_system_clock_iface_init (RkClockInterface *iface)
{
  iface->now_us = system_now_us;
  iface->add_timeout = system_add_timeout;
  iface->remove_timeout = system_remove_timeout;
}

static void
rk_system_clock_class_init (RkSystemClockClass *klass)
{
}

static void
rk_system_clock_init (RkSystemClock *self)
{
}

RkClock *
rk_system_clock_new (void)
{
  return g_object_new (RK_TYPE_SYSTEM_CLOCK, NULL);
}

/* -- fake clock ----------------------------------------------------------- */

typedef struct
{
  guint          id;
  gint64         due;
  GSourceFunc    func;
  gpointer       data;
  GDestroyNotify notify;
} FakeTimeout;

struct _RkFakeClock
{
  GObject  parent_instance;
  gint64   now;
  guint    next_id;
  GList   *timeouts;   /* FakeTimeout, in order of due time then id */
};

static void rk_fake_clock_iface_init (RkClockInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RkFakeClock, rk_fake_clock, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (RK_TYPE_CLOCK, rk_fake_clock_iface_init))

static void
fake_timeout_free (FakeTimeout *t)
{
  if (t->notify != NULL)
    t->notify (t->data);
  g_free (t);
}

static gint
fake_timeout_compare (gconstpointer a,
                      gconstpointer b)
{
  const FakeTimeout *x = a, *y = b;

  if (x->due != y->due)
    return x->due < y->due ? -1 : 1;
  return x->id < y->id ? -1 : (x->id > y->id);
}

static gint64
fake_now_us (RkClock *clock)
{
  return RK_FAKE_CLOCK (clock)->now;
}

static guint
fake_add_timeout (RkClock        *clock,
                  guint64         delay_us,
                  GSourceFunc     func,
                  gpointer        data,
                  GDestroyNotify  notify)
{
  RkFakeClock *self = RK_FAKE_CLOCK (clock);
  FakeTimeout *t = g_new0 (FakeTimeout, 1);

  t->id = ++self->next_id;
  t->due = self->now + (gint64) MIN (delay_us, (guint64) G_MAXINT64 / 2);
  t->func = func;
  t->data = data;
  t->notify = notify;
  self->timeouts = g_list_insert_sorted (self->timeouts, t, fake_timeout_compare);
  return t->id;
}

static void
fake_remove_timeout (RkClock *clock,
                     guint    id)
{
  RkFakeClock *self = RK_FAKE_CLOCK (clock);

  for (GList *l = self->timeouts; l != NULL; l = l->next)
    {
      FakeTimeout *t = l->data;

      if (t->id == id)
        {
          self->timeouts = g_list_delete_link (self->timeouts, l);
          fake_timeout_free (t);
          return;
        }
    }
}

void
rk_fake_clock_advance (RkFakeClock *self,
                       guint64      delta_us)
{
  gint64 target;

  g_return_if_fail (RK_IS_FAKE_CLOCK (self));

  target = self->now + (gint64) delta_us;
  while (self->timeouts != NULL && ((FakeTimeout *) self->timeouts->data)->due <= target)
    {
      FakeTimeout *t = self->timeouts->data;

      self->timeouts = g_list_delete_link (self->timeouts, self->timeouts);
      self->now = MAX (self->now, t->due);
      /* The callback may add or remove timeouts; t is already unlinked. */
      t->func (t->data);
      fake_timeout_free (t);
    }
  self->now = target;
}

guint
rk_fake_clock_get_n_pending (RkFakeClock *self)
{
  g_return_val_if_fail (RK_IS_FAKE_CLOCK (self), 0);

  return g_list_length (self->timeouts);
}

static void
rk_fake_clock_finalize (GObject *object)
{
  RkFakeClock *self = RK_FAKE_CLOCK (object);

  g_list_free_full (self->timeouts, (GDestroyNotify) fake_timeout_free);
  G_OBJECT_CLASS (rk_fake_clock_parent_class)->finalize (object);
}

static void
rk_fake_clock_iface_init (RkClockInterface *iface)
{
  iface->now_us = fake_now_us;
  iface->add_timeout = fake_add_timeout;
  iface->remove_timeout = fake_remove_timeout;
}

static void
rk_fake_clock_class_init (RkFakeClockClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rk_fake_clock_finalize;
}

static void
rk_fake_clock_init (RkFakeClock *self)
{
  /* Not zero, so "never" (0) and "now" differ in tests. */
  self->now = G_GINT64_CONSTANT (1000000);
}

RkClock *
rk_fake_clock_new (void)
{
  return g_object_new (RK_TYPE_FAKE_CLOCK, NULL);
}
