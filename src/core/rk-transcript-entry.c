/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-transcript-entry.c — one entry of the conversation, as plain data. */
#define G_LOG_DOMAIN "rk-transcript"
#include "config.h"

#include "rk-transcript-entry-private.h"

#include <string.h>

#include "rk-enum-types.h"
#include "rk-util.h"

G_DEFINE_FINAL_TYPE (RkTranscriptEntry, rk_transcript_entry, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_TEXT,
  PROP_DETAIL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
rk_transcript_entry_finalize (GObject *object)
{
  RkTranscriptEntry *self = RK_TRANSCRIPT_ENTRY (object);

  g_clear_pointer (&self->cell_id, g_free);
  g_clear_pointer (&self->text, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->detail, g_free);
  g_clear_pointer (&self->attachments, g_strfreev);
  g_clear_pointer (&self->previous_code, g_free);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->mime_type, g_free);
  g_clear_pointer (&self->title, g_free);

  G_OBJECT_CLASS (rk_transcript_entry_parent_class)->finalize (object);
}

static void
rk_transcript_entry_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  RkTranscriptEntry *self = RK_TRANSCRIPT_ENTRY (object);

  switch (prop_id)
    {
    case PROP_TEXT:
      g_value_set_string (value, rk_transcript_entry_get_text (self));
      break;
    case PROP_DETAIL:
      g_value_set_string (value, self->detail);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_transcript_entry_class_init (RkTranscriptEntryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = rk_transcript_entry_finalize;
  object_class->get_property = rk_transcript_entry_get_property;

  /**
   * RkTranscriptEntry:text: (attributes org.gtk.Property.get=rk_transcript_entry_get_text)
   *
   * The entry's text (never NULL). It grows while a model's reply or a
   * cell's output streams into the entry: each growth notifies "text" on
   * the entry, and the transcript does not emit items-changed for it, so
   * a row follows its own entry instead of being rebuilt.
   */
  properties[PROP_TEXT] =
    g_param_spec_string ("text", NULL, NULL, "",
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * RkTranscriptEntry:detail: (attributes org.gtk.Property.get=rk_transcript_entry_get_detail)
   *
   * An error's traceback, or an attachment's profile (the profiler's JSON
   * for that file) once it is known; notified when it is set later.
   */
  properties[PROP_DETAIL] =
    g_param_spec_string ("detail", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

gboolean
_rk_transcript_entry_append_text (RkTranscriptEntry *self,
                                  const char        *delta,
                                  gsize              max)
{
  gsize add;

  if (delta == NULL || *delta == '\0' || self->truncated)
    return FALSE;
  if (self->text == NULL || self->text != self->text_grown)
    {
      self->text_len = self->text ? strlen (self->text) : 0;
      self->text_alloc = self->text_len + 1;
    }
  if (self->text_len >= max)
    {
      self->truncated = TRUE;
      return FALSE;
    }
  add = strlen (delta);
  if (add > max - self->text_len)
    {
      const char *end = delta + (max - self->text_len);

      /* Step back to the start of a character. */
      while (end > delta && ((guchar) *end & 0xc0) == 0x80)
        end--;
      add = (gsize) (end - delta);
      self->truncated = TRUE;
    }
  if (self->text_len + add + 1 > self->text_alloc)
    {
      gsize alloc = MAX (self->text_alloc * 2, self->text_len + add + 1);

      self->text = g_realloc (self->text, MIN (alloc, max + 1));
      self->text_alloc = MIN (alloc, max + 1);
    }
  memcpy (self->text + self->text_len, delta, add);
  self->text_len += add;
  self->text[self->text_len] = '\0';
  self->text_grown = self->text;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXT]);
  return add > 0;
}

void
_rk_transcript_entry_set_name (RkTranscriptEntry *self,
                               const char        *name)
{
  g_free (self->name);
  self->name = g_strdup (name);
}

void
_rk_transcript_entry_set_detail (RkTranscriptEntry *self,
                                 char              *detail)
{
  g_free (self->detail);
  self->detail = detail;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DETAIL]);
}

static void
rk_transcript_entry_init (RkTranscriptEntry *self)
{
}

RkTranscriptEntry *
_rk_transcript_entry_new (RkEntryKind kind)
{
  RkTranscriptEntry *self = g_object_new (RK_TYPE_TRANSCRIPT_ENTRY, NULL);

  self->kind = kind;
  self->timestamp = g_get_real_time ();
  return self;
}

#define GETTER(type, field, fallback)                                   \
  type                                                                  \
  rk_transcript_entry_get_##field (RkTranscriptEntry *self)             \
  {                                                                     \
    g_return_val_if_fail (RK_IS_TRANSCRIPT_ENTRY (self), fallback);     \
    return self->field;                                                 \
  }

GETTER (guint, id, 0)
GETTER (RkEntryKind, kind, RK_ENTRY_NOTE)
GETTER (gint64, timestamp, 0)
GETTER (const char *, cell_id, NULL)
GETTER (const char *, name, NULL)
GETTER (const char *, detail, NULL)
GETTER (RkSandboxLimit, limit, RK_SANDBOX_LIMIT_NONE)
GETTER (gint64, limit_value, 0)
GETTER (guint, revises, 0)
GETTER (const char *, previous_code, NULL)
GETTER (RkDecision, decision, RK_DECISION_NONE)
GETTER (RkStream, stream, RK_STREAM_STDOUT)
GETTER (gboolean, truncated, FALSE)
GETTER (const char *, path, NULL)
GETTER (const char *, mime_type, NULL)
GETTER (const char *, title, NULL)
GETTER (gint64, width, 0)
GETTER (gint64, height, 0)
GETTER (gint64, rows, 0)
GETTER (gint64, columns, 0)

/* Never NULL: entries without text have "". */
const char *
rk_transcript_entry_get_text (RkTranscriptEntry *self)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT_ENTRY (self), NULL);
  return self->text ? self->text : "";
}

const char * const *
rk_transcript_entry_get_attachments (RkTranscriptEntry *self)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT_ENTRY (self), NULL);
  return (const char * const *) self->attachments;
}

const char *
rk_entry_kind_to_string (RkEntryKind kind)
{
  return rk_enum_to_nick (RK_TYPE_ENTRY_KIND, kind, "note");
}

gboolean
rk_entry_kind_from_string (const char  *str,
                           RkEntryKind *kind)
{
  int value = rk_enum_from_nick (RK_TYPE_ENTRY_KIND, str, -1);

  if (value < 0)
    return FALSE;
  *kind = value;
  return TRUE;
}

const char *
rk_decision_to_string (RkDecision decision)
{
  return rk_enum_to_nick (RK_TYPE_DECISION, decision, "none");
}

gboolean
rk_decision_from_string (const char *str,
                         RkDecision *decision)
{
  int value = rk_enum_from_nick (RK_TYPE_DECISION, str, -1);

  if (value < 0)
    return FALSE;
  *decision = value;
  return TRUE;
}
