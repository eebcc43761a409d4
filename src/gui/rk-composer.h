/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-composer.h — where the user types: a question for the model, or Python
 * code in "Run Python" mode; Attach, Send and Stop. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RK_TYPE_COMPOSER (rk_composer_get_type ())
G_DECLARE_FINAL_TYPE (RkComposer, rk_composer, RK, COMPOSER, GtkWidget)

/* The typed text (never NULL). */
char      *rk_composer_dup_text      (RkComposer *self);
void       rk_composer_set_text      (RkComposer *self,
                                      const char *text);
/* "Run Python" mode: the text is code to run, no model needed. */
gboolean   rk_composer_get_code_mode (RkComposer *self);
void       rk_composer_set_code_mode (RkComposer *self,
                                      gboolean    code_mode);
/* While a question is answered or code runs: Send gives way to Stop and
 * the text cannot be sent again. */
void       rk_composer_set_busy      (RkComposer *self,
                                      gboolean    busy);
gboolean   rk_composer_get_busy      (RkComposer *self);
/* Whether a model is reachable: only changes the hint shown while empty. */
void       rk_composer_set_model_ready (RkComposer *self,
                                      gboolean    ready);
void       rk_composer_focus         (RkComposer *self);

/* Signals:
 *   "send" (const char *text, gboolean code_mode): Enter or Send with text
 * Attach and Stop activate the actions "win.attach" and "win.stop".
 */

G_END_DECLS
