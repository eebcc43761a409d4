/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-json.h — the one parse entry and the typed member getters for JSON that
 * came from outside (the kernel, a model server, a saved file), with limits;
 * and the member writers for what Reckon builds. */
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

typedef enum
{
  RK_JSON_SCAN_DEFAULT        = 0,
  /* Also refuse "\u0000" inside strings, which would cut them short unseen. */
  RK_JSON_SCAN_NO_ESCAPED_NUL = 1 << 0,
} RkJsonScanFlags;

/* json-glib's parser recurses once a nesting level, without a cap (1.6): a
 * text of 10^6 '[' overflows the stack. TRUE when @text is nested at most
 * @max_depth levels (and, with _NO_ESCAPED_NUL, has no "\u0000"). */
gboolean     rk_json_scan_ok        (const char      *text,
                                     gsize            len,
                                     guint            max_depth,
                                     RkJsonScanFlags  flags);

/* The one way JSON from outside is read: fails with RK_PARSE_ERROR (one
 * short sentence, for callers to prefix) when @len (-1: NUL-terminated) is
 * over @max_bytes (_TOO_LARGE), when it is not UTF-8, nested deeper than
 * @max_depth (_TOO_LARGE), empty or not JSON (_MALFORMED). The root, owned. */
JsonNode    *rk_json_parse          (const char      *data,
                                     gssize           len,
                                     gsize            max_bytes,
                                     guint            max_depth,
                                     RkJsonScanFlags  flags,
                                     GError         **error);
/* The same, and the root must be an object; a reference to it. */
JsonObject  *rk_json_parse_object   (const char      *data,
                                     gssize           len,
                                     gsize            max_bytes,
                                     guint            max_depth,
                                     RkJsonScanFlags  flags,
                                     GError         **error);

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

/* Writing: @name and its value as the next member of the object @b is
 * building. */
void     rk_json_add_string_member (JsonBuilder *b,
                                    const char  *name,
                                    const char  *value);
void     rk_json_add_int_member    (JsonBuilder *b,
                                    const char  *name,
                                    gint64       value);
void     rk_json_add_bool_member   (JsonBuilder *b,
                                    const char  *name,
                                    gboolean     value);
/* @b's root as pretty-printed text (two-space indent), to be freed. */
char    *rk_json_builder_to_pretty (JsonBuilder *b);

G_END_DECLS
