/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-kernel-protocol.c — parses what the sandboxed kernel sends. Every byte
 * is hostile: lines are bounded, fields strictly typed, paths kept beneath. */
#define G_LOG_DOMAIN "rk-kernel"
#include "config.h"
#include "rk-kernel-protocol.h"

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "rk-json.h"
#include "rk-util.h"

/* Events are flat objects; anything deeper is refused before json-glib's
 * recursive parser sees it. */
#define MAX_JSON_DEPTH 8

G_DEFINE_BOXED_TYPE (RkKernelEvent, rk_kernel_event, rk_kernel_event_ref, rk_kernel_event_unref)

RkKernelEvent *
rk_kernel_event_new (RkKernelEventType type)
{
  RkKernelEvent *self = g_new0 (RkKernelEvent, 1);

  g_ref_count_init (&self->ref_count);
  self->type = type;
  return self;
}

RkKernelEvent *
rk_kernel_event_ref (RkKernelEvent *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_ref_count_inc (&self->ref_count);
  return self;
}

void
rk_kernel_event_unref (RkKernelEvent *self)
{
  g_return_if_fail (self != NULL);

  if (!g_ref_count_dec (&self->ref_count))
    return;

  g_free (self->id);
  g_free (self->nonce);
  g_free (self->python);
  g_free (self->pandas);
  g_free (self->matplotlib);
  g_free (self->text);
  g_free (self->path);
  g_free (self->name);
  g_free (self->format);
  g_free (self->title);
  g_free (self->ename);
  g_free (self->evalue);
  g_free (self->traceback);
  g_free (self->message);
  g_free (self);
}

/* The "type" of each event, in RkKernelEventType's order. */
static const char * const type_words[] = {
  "ready", "started", "stream", "result", "table", "figure", "chart", "file", "error", "done", NULL,
};

const char *
rk_kernel_event_type_to_string (RkKernelEventType type)
{
  if ((guint) type < G_N_ELEMENTS (type_words) - 1)
    return type_words[type];
  return "unknown";
}

const char *
rk_kernel_status_to_string (RkKernelStatus status)
{
  switch (status)
    {
    case RK_KERNEL_STATUS_OK: return "ok";
    case RK_KERNEL_STATUS_ERROR: return "error";
    case RK_KERNEL_STATUS_INTERRUPTED: return "interrupted";
    case RK_KERNEL_STATUS_DIED: return "died";
    default: return "unknown";
    }
}

/* A workspace-relative path: beneath it, no control characters. */
static gboolean
get_path (JsonObject  *obj,
          const char  *member,
          char       **out,
          GError     **error)
{
  g_autofree char *value = NULL;

  if (!rk_json_dup_string (obj, member, RK_KERNEL_MAX_PATH, RK_JSON_REQUIRED, &value, error))
    return FALSE;
  if (!rk_path_is_beneath (value))
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                   "path is not beneath the workspace");
      return FALSE;
    }
  for (const char *p = value; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      {
        g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                     "path contains control characters");
        return FALSE;
      }
  *out = g_steal_pointer (&value);
  return TRUE;
}

static const char * const stream_words[] = { "stdout", "stderr", NULL };
static const char * const status_words[] = { "ok", "error", "interrupted", NULL };
static const char * const change_words[] = { "created", "modified", NULL };
static const char * const format_words[] = { "png", "svg", NULL };

static gboolean
parse_fields (RkKernelEvent *ev,
              JsonObject    *obj,
              GError       **error)
{
  g_autofree char *limit = NULL;
  int word;

  if (ev->type != RK_KERNEL_EVENT_READY &&
      !rk_json_dup_string (obj, "id", RK_KERNEL_MAX_ID, RK_JSON_REQUIRED, &ev->id, error))
    return FALSE;
  if (ev->id != NULL && ev->id[0] == '\0')
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "“id” is empty");
      return FALSE;
    }
  if (!rk_json_dup_string (obj, "nonce", RK_KERNEL_MAX_ID, RK_JSON_OPTIONAL, &ev->nonce, error))
    return FALSE;

  switch (ev->type)
    {
    case RK_KERNEL_EVENT_READY:
      return rk_json_get_int (obj, "protocol", 0, G_MAXINT32, RK_JSON_REQUIRED, &ev->protocol, error) &&
             rk_json_dup_string (obj, "python", RK_KERNEL_MAX_SHORT, RK_JSON_OPTIONAL, &ev->python, error) &&
             rk_json_dup_string (obj, "pandas", RK_KERNEL_MAX_SHORT, RK_JSON_OPTIONAL, &ev->pandas, error) &&
             rk_json_dup_string (obj, "matplotlib", RK_KERNEL_MAX_SHORT, RK_JSON_OPTIONAL, &ev->matplotlib, error);

    case RK_KERNEL_EVENT_STARTED:
      return TRUE;

    case RK_KERNEL_EVENT_STREAM:
      if (!rk_json_get_enum (obj, "name", stream_words, RK_JSON_REQUIRED, &word, error))
        return FALSE;
      ev->stream = (RkKernelStreamName) word;
      return rk_json_dup_string (obj, "text", RK_KERNEL_MAX_LINE, RK_JSON_REQUIRED, &ev->text, error);

    case RK_KERNEL_EVENT_RESULT:
      return rk_json_dup_string (obj, "text", RK_KERNEL_MAX_LINE, RK_JSON_REQUIRED, &ev->text, error);

    case RK_KERNEL_EVENT_TABLE:
      return get_path (obj, "path", &ev->path, error) &&
             rk_json_dup_string (obj, "name", RK_KERNEL_MAX_SHORT, RK_JSON_OPTIONAL, &ev->name, error) &&
             rk_json_get_int (obj, "rows", 0, G_MAXINT64, RK_JSON_REQUIRED, &ev->rows, error) &&
             rk_json_get_int (obj, "columns", 0, G_MAXINT32, RK_JSON_REQUIRED, &ev->columns, error);

    case RK_KERNEL_EVENT_FIGURE:
      if (!get_path (obj, "path", &ev->path, error) ||
          !rk_json_get_enum (obj, "format", format_words, RK_JSON_REQUIRED, &word, error))
        return FALSE;
      ev->format = g_strdup (format_words[word]);
      return rk_json_get_int (obj, "width", 0, 1000000, RK_JSON_REQUIRED, &ev->width, error) &&
             rk_json_get_int (obj, "height", 0, 1000000, RK_JSON_REQUIRED, &ev->height, error) &&
             rk_json_dup_string (obj, "title", RK_KERNEL_MAX_SHORT, RK_JSON_OPTIONAL, &ev->title, error);

    case RK_KERNEL_EVENT_CHART:
      return get_path (obj, "path", &ev->path, error) &&
             rk_json_dup_string (obj, "title", RK_KERNEL_MAX_SHORT, RK_JSON_OPTIONAL, &ev->title, error);

    case RK_KERNEL_EVENT_FILE:
      if (!get_path (obj, "path", &ev->path, error) ||
          !rk_json_get_int (obj, "size", 0, G_MAXINT64, RK_JSON_REQUIRED, &ev->size, error) ||
          !rk_json_get_enum (obj, "change", change_words, RK_JSON_REQUIRED, &word, error))
        return FALSE;
      ev->change = (RkKernelFileChange) word;
      return TRUE;

    case RK_KERNEL_EVENT_ERROR:
      if (!rk_json_dup_string (obj, "ename", RK_KERNEL_MAX_SHORT, RK_JSON_REQUIRED, &ev->ename, error) ||
          !rk_json_dup_string (obj, "evalue", RK_KERNEL_MAX_LINE, RK_JSON_REQUIRED, &ev->evalue, error) ||
          !rk_json_dup_string (obj, "traceback", RK_KERNEL_MAX_LINE, RK_JSON_REQUIRED, &ev->traceback, error) ||
          !rk_json_dup_string (obj, "limit", RK_KERNEL_MAX_SHORT, RK_JSON_OPTIONAL, &limit, error))
        return FALSE;
      /* Only the limits the kernel itself can see (a capped workspace's
       * tmpfs says disk or files by ENOSPC); anything else is dropped. */
      ev->limit = rk_sandbox_limit_from_name (limit);
      if (ev->limit != RK_SANDBOX_LIMIT_MEMORY && ev->limit != RK_SANDBOX_LIMIT_CPU &&
          ev->limit != RK_SANDBOX_LIMIT_DISK && ev->limit != RK_SANDBOX_LIMIT_FILES)
        ev->limit = RK_SANDBOX_LIMIT_NONE;
      return TRUE;

    case RK_KERNEL_EVENT_DONE:
      if (!rk_json_get_enum (obj, "status", status_words, RK_JSON_REQUIRED, &word, error))
        return FALSE;
      ev->status = (RkKernelStatus) word;
      return rk_json_get_int (obj, "duration_ms", 0, G_MAXINT64, RK_JSON_REQUIRED, &ev->duration_ms, error) &&
             rk_json_get_int (obj, "truncated_bytes", 0, G_MAXINT64, RK_JSON_REQUIRED, &ev->truncated_bytes, error);

    default:
      g_assert_not_reached ();
    }
}

RkKernelEvent *
rk_kernel_event_parse (const char  *line,
                       gsize        len,
                       GError     **error)
{
  g_autoptr(RkKernelEvent) ev = NULL;
  g_autoptr(JsonObject) obj = NULL;
  const char *type = NULL;

  g_return_val_if_fail (line != NULL || len == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Also refuses NUL bytes inside the line. */
  obj = rk_json_parse_object (line, (gssize) len, RK_KERNEL_MAX_LINE, MAX_JSON_DEPTH, RK_JSON_SCAN_DEFAULT, error);
  if (obj == NULL)
    {
      g_prefix_error (error, "kernel event: ");
      return NULL;
    }

  if (!rk_json_get_string (obj, "type", RK_KERNEL_MAX_SHORT, RK_JSON_REQUIRED, &type, error))
    {
      g_prefix_error (error, "kernel event: ");
      return NULL;
    }
  for (int i = 0; type_words[i] != NULL; i++)
    if (strcmp (type, type_words[i]) == 0)
      {
        ev = rk_kernel_event_new ((RkKernelEventType) i);
        break;
      }
  if (ev == NULL)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED,
                   "kernel event has an unknown type");
      return NULL;
    }

  if (!parse_fields (ev, obj, error))
    {
      g_prefix_error (error, "kernel event: ");
      return NULL;
    }

  return g_steal_pointer (&ev);
}

gboolean
rk_kernel_error_is_plain (const char *ename)
{
  return rk_kernel_error_plain_sentence (ename) != NULL;
}

const char *
rk_kernel_error_plain_sentence (const char *ename)
{
  if (g_strcmp0 (ename, RK_KERNEL_ENAME_NO_NETWORK) == 0)
    return _("Code runs without network access; add the file instead.");
  return NULL;
}
