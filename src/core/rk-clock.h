/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-clock.h — time as a session sees it: the monotonic clock and one-shot
 * timeouts, behind an interface so tests can run idle expiry on a fake clock
 * (RkFakeClock) without sleeping. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define RK_TYPE_CLOCK (rk_clock_get_type ())
G_DECLARE_INTERFACE (RkClock, rk_clock, RK, CLOCK, GObject)

struct _RkClockInterface
{
  GTypeInterface parent_iface;

  gint64 (*now_us)         (RkClock        *self);
  guint  (*add_timeout)    (RkClock        *self,
                            guint64         delay_us,
                            GSourceFunc     func,
                            gpointer        data,
                            GDestroyNotify  notify);
  void   (*remove_timeout) (RkClock        *self,
                            guint           id);
};

/* Monotonic time in microseconds. */
gint64   rk_clock_now_us          (RkClock        *self);
/* Calls @func once, @delay_us from now, in the thread-default main context
 * of the caller (the system clock) or from rk_fake_clock_advance(). Its
 * return value is ignored: timeouts are one-shot. Returns an id > 0. */
guint    rk_clock_add_timeout     (RkClock        *self,
                                   guint64         delay_us,
                                   GSourceFunc     func,
                                   gpointer        data,
                                   GDestroyNotify  notify);
/* Removes a timeout that has not fired yet; 0 and fired ids are ignored. */
void     rk_clock_remove_timeout  (RkClock        *self,
                                   guint           id);

/* The real clock: g_get_monotonic_time() and GLib timeouts. */
#define RK_TYPE_SYSTEM_CLOCK (rk_system_clock_get_type ())
G_DECLARE_FINAL_TYPE (RkSystemClock, rk_system_clock, RK, SYSTEM_CLOCK, GObject)

RkClock *rk_system_clock_new      (void);

/* A clock that moves only when told to. */
#define RK_TYPE_FAKE_CLOCK (rk_fake_clock_get_type ())
G_DECLARE_FINAL_TYPE (RkFakeClock, rk_fake_clock, RK, FAKE_CLOCK, GObject)

RkClock *rk_fake_clock_new        (void);
/* Moves time forward by @delta_us, firing due timeouts in order, each with
 * the clock set to its due time. */
void     rk_fake_clock_advance    (RkFakeClock    *self,
                                   guint64         delta_us);
/* Number of timeouts waiting. */
guint    rk_fake_clock_get_n_pending (RkFakeClock *self);

G_END_DECLS
