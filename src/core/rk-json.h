/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-json.h — typed member getters for JSON that came from outside (the
 * kernel, a model server, a saved file): one set, with explicit limits. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  /* Absent or null: success, and the out value is the default (NULL for
   * strings, arrays and objects; left as it was for numbers and booleans). */
  RK_JSON_OPTIONAL = 0,
  /* Absent or null is an error. */
  RK_JSON_REQUIRED = 1 << 0,
} RkJsonFlags;

/* No limit on a string's length or an array's elements. */
#define RK_JSON_UNLIMITED G_MAXSIZE

/* Each getter fails with RK_PARSE_ERROR: _MALFORMED for a member of the
 * wrong type, out of range, not valid UTF-8, or missing when required;
 * _TOO_LARGE for a string or an array over its limit. The message names
 * the member ("“id” is not a string"); callers prefix what was being read
 * (g_prefix_error). JSON numbers with a fraction or exponent are not
 * integers. */

/* A string of at most @max_len bytes, valid UTF-8, borrowed from @obj. */
gboolean rk_json_get_string  (JsonObject   *obj,
                              const char   *member,
                              gsize         max_len,
                              RkJsonFlags   flags,
                              const char  **out,
                              GError      **error);
/* The same, copied. */
gboolean rk_json_dup_string  (JsonObject   *obj,
                              const char   *member,
                              gsize         max_len,
                              RkJsonFlags   flags,
                              char        **out,
                              GError      **error);
/* One of the NULL-terminated @words; *out is its index (-1 when absent). */
gboolean rk_json_get_enum    (JsonObject          *obj,
                              const char          *member,
                              const char * const  *words,
                              RkJsonFlags          flags,
                              int                 *out,
                              GError             **error);
/* An integer in [@min, @max]. */
gboolean rk_json_get_int     (JsonObject   *obj,
                              const char   *member,
                              gint64        min,
                              gint64        max,
                              RkJsonFlags   flags,
                              gint64       *out,
                              GError      **error);
/* A finite number (a JSON integer or fraction) in [@min, @max]. */
gboolean rk_json_get_double  (JsonObject   *obj,
                              const char   *member,
                              double        min,
                              double        max,
                              RkJsonFlags   flags,
                              double       *out,
                              GError      **error);
/* true or false. */
gboolean rk_json_get_bool    (JsonObject   *obj,
                              const char   *member,
                              RkJsonFlags   flags,
                              gboolean     *out,
                              GError      **error);
/* An array of at most @max_len elements, borrowed. */
gboolean rk_json_get_array   (JsonObject   *obj,
                              const char   *member,
                              gsize         max_len,
                              RkJsonFlags   flags,
                              JsonArray   **out,
                              GError      **error);
/* An object, borrowed. */
gboolean rk_json_get_object  (JsonObject   *obj,
                              const char   *member,
                              RkJsonFlags   flags,
                              JsonObject  **out,
                              GError      **error);

G_END_DECLS
