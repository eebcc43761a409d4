/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-json.c — the parse entry and the typed JSON member getters every parser
 * of outside JSON uses (model servers, kernel, transcripts, profiles, charts). */
#define G_LOG_DOMAIN "rk-json"
#include "config.h"
#include "rk-json.h"

#include <math.h>
#include <string.h>

#include "rk-util.h"

gboolean
rk_json_scan_ok (const char      *text,
                 gsize            len,
                 guint            max_depth,
                 RkJsonScanFlags  flags)
{
  gboolean in_string = FALSE;
  guint depth = 0;

  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];

      if (in_string)
        {
          if (c == '\\')
            {
              if ((flags & RK_JSON_SCAN_NO_ESCAPED_NUL) && i + 5 < len && text[i + 1] == 'u'
                  && memcmp (text + i + 2, "0000", 4) == 0)
                return FALSE;
              i++;
            }
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE;
      else if (c == '{' || c == '[')
        {
          if (++depth > max_depth)
            return FALSE;
        }
      else if ((c == '}' || c == ']') && depth > 0)
        depth--;
    }
  return TRUE;
}

JsonNode *
rk_json_parse (const char      *data,
               gssize           len,
               gsize            max_bytes,
               guint            max_depth,
               RkJsonScanFlags  flags,
               GError         **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize n;

  if (data == NULL)
    data = "", len = 0;
  /* strnlen: a text without its NUL is not read past @max_bytes + 1. */
  n = len < 0 ? strnlen (data, MIN (max_bytes, (gsize) G_MAXSSIZE - 1) + 1) : (gsize) len;
  if (n > max_bytes)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                   "JSON longer than %" G_GSIZE_FORMAT " bytes", max_bytes);
      return NULL;
    }
  if (!g_utf8_validate_len (data, n, NULL))
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "JSON that is not valid UTF-8");
      return NULL;
    }
  if (!rk_json_scan_ok (data, n, max_depth, flags))
    {
      if (rk_json_scan_ok (data, n, max_depth, RK_JSON_SCAN_DEFAULT))
        g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "JSON with a NUL inside a string");
      else
        g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                     "JSON nested deeper than %u levels", max_depth);
      return NULL;
    }
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, data, (gssize) n, &local_error))
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "not JSON (%s)", local_error->message);
      return NULL;
    }
  /* An empty document (or only blanks) parses, to no root at all. */
  if (json_parser_get_root (parser) == NULL)
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "empty JSON");
      return NULL;
    }
  return json_parser_steal_root (parser);
}

JsonObject *
rk_json_parse_object (const char      *data,
                      gssize           len,
                      gsize            max_bytes,
                      guint            max_depth,
                      RkJsonScanFlags  flags,
                      GError         **error)
{
  g_autoptr(JsonNode) root = rk_json_parse (data, len, max_bytes, max_depth, flags, error);

  if (root == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "not a JSON object");
      return NULL;
    }
  return json_object_ref (json_node_get_object (root));
}

typedef enum
{
  KIND_STRING,
  KIND_INT,
  KIND_NUMBER,
  KIND_BOOL,
  KIND_ARRAY,
  KIND_OBJECT,
} Kind;

static gboolean
holds (JsonNode *node,
       GType     type)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

/* NULL when @node is of @kind, else what it should have been, as the
 * messages name it ("“x” is not …"). */
static const char *
kind_mismatch (JsonNode *node,
               Kind      kind)
{
  switch (kind)
    {
    case KIND_STRING:
      return holds (node, G_TYPE_STRING) ? NULL : "a string";
    case KIND_INT:
      return holds (node, G_TYPE_INT64) ? NULL : "an integer";
    case KIND_NUMBER:
      return holds (node, G_TYPE_INT64) || holds (node, G_TYPE_DOUBLE) ? NULL : "a number";
    case KIND_BOOL:
      return holds (node, G_TYPE_BOOLEAN) ? NULL : "true or false";
    case KIND_ARRAY:
      return JSON_NODE_HOLDS_ARRAY (node) ? NULL : "an array";
    case KIND_OBJECT:
      return JSON_NODE_HOLDS_OBJECT (node) ? NULL : "an object";
    default:
      g_assert_not_reached ();
    }
}

/* The member in *@out when it is of @kind; NULL when it is absent or null
 * and not required. FALSE (with an error) when it is missing but required
 * or of another kind. */
static gboolean
lookup (JsonObject   *obj,
        const char   *member,
        RkJsonFlags   flags,
        Kind          kind,
        JsonNode    **out,
        GError      **error)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, member) : NULL;
  const char *wanted;

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if ((flags & RK_JSON_REQUIRED) == 0)
        return TRUE;
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "“%s” is missing", member);
      return FALSE;
    }
  wanted = kind_mismatch (node, kind);
  if (wanted != NULL)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "“%s” is not %s", member, wanted);
      return FALSE;
    }
  *out = node;
  return TRUE;
}

static gboolean
out_of_range (const char  *member,
              GError     **error)
{
  g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "“%s” is out of range", member);
  return FALSE;
}

gboolean
rk_json_get_string (JsonObject   *obj,
                    const char   *member,
                    gsize         max_len,
                    RkJsonFlags   flags,
                    const char  **out,
                    GError      **error)
{
  JsonNode *node;
  const char *value;
  gsize len;

  g_return_val_if_fail (out != NULL, FALSE);

  *out = NULL;
  if (!lookup (obj, member, flags, KIND_STRING, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  value = json_node_get_string (node);
  if (value == NULL)
    value = "";
  len = strlen (value);
  if (len > max_len)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                   "“%s” is longer than %" G_GSIZE_FORMAT " bytes", member, max_len);
      return FALSE;
    }
  if (!g_utf8_validate (value, (gssize) len, NULL))
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "“%s” is not valid UTF-8", member);
      return FALSE;
    }
  *out = value;
  return TRUE;
}

gboolean
rk_json_dup_string (JsonObject   *obj,
                    const char   *member,
                    gsize         max_len,
                    RkJsonFlags   flags,
                    char        **out,
                    GError      **error)
{
  const char *value;

  g_return_val_if_fail (out != NULL, FALSE);

  *out = NULL;
  if (!rk_json_get_string (obj, member, max_len, flags, &value, error))
    return FALSE;
  *out = g_strdup (value);
  return TRUE;
}

gboolean
rk_json_get_enum (JsonObject          *obj,
                  const char          *member,
                  const char * const  *words,
                  RkJsonFlags          flags,
                  int                 *out,
                  GError             **error)
{
  const char *value;
  gsize longest = 0;

  g_return_val_if_fail (out != NULL && words != NULL, FALSE);

  *out = -1;
  for (guint i = 0; words[i] != NULL; i++)
    longest = MAX (longest, strlen (words[i]));
  if (!rk_json_get_string (obj, member, G_MAXSIZE, flags, &value, error))
    return FALSE;
  if (value == NULL)
    return TRUE;
  if (strlen (value) <= longest)
    for (int i = 0; words[i] != NULL; i++)
      if (strcmp (value, words[i]) == 0)
        {
          *out = i;
          return TRUE;
        }
  g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "“%s” has an unknown value", member);
  return FALSE;
}

gboolean
rk_json_get_int (JsonObject   *obj,
                 const char   *member,
                 gint64        min,
                 gint64        max,
                 RkJsonFlags   flags,
                 gint64       *out,
                 GError      **error)
{
  JsonNode *node;
  gint64 value;

  g_return_val_if_fail (out != NULL, FALSE);

  if (!lookup (obj, member, flags, KIND_INT, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  value = json_node_get_int (node);
  if (value < min || value > max)
    return out_of_range (member, error);
  *out = value;
  return TRUE;
}

gboolean
rk_json_get_double (JsonObject   *obj,
                    const char   *member,
                    double        min,
                    double        max,
                    RkJsonFlags   flags,
                    double       *out,
                    GError      **error)
{
  JsonNode *node;
  double value;

  g_return_val_if_fail (out != NULL, FALSE);

  if (!lookup (obj, member, flags, KIND_NUMBER, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  if (holds (node, G_TYPE_INT64))
    value = (double) json_node_get_int (node);
  else
    value = json_node_get_double (node);
  /* NaN fails both comparisons; infinities are out of any finite range. */
  if (!(value >= min && value <= max) || !isfinite (value))
    return out_of_range (member, error);
  *out = value;
  return TRUE;
}

gboolean
rk_json_get_bool (JsonObject   *obj,
                  const char   *member,
                  RkJsonFlags   flags,
                  gboolean     *out,
                  GError      **error)
{
  JsonNode *node;

  g_return_val_if_fail (out != NULL, FALSE);

  if (!lookup (obj, member, flags, KIND_BOOL, &node, error))
    return FALSE;
  if (node != NULL)
    *out = json_node_get_boolean (node);
  return TRUE;
}

gboolean
rk_json_get_array (JsonObject   *obj,
                   const char   *member,
                   gsize         max_len,
                   RkJsonFlags   flags,
                   JsonArray   **out,
                   GError      **error)
{
  JsonNode *node;
  JsonArray *array;

  g_return_val_if_fail (out != NULL, FALSE);

  *out = NULL;
  if (!lookup (obj, member, flags, KIND_ARRAY, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  array = json_node_get_array (node);
  if (json_array_get_length (array) > max_len)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                   "“%s” has more than %" G_GSIZE_FORMAT " elements", member, max_len);
      return FALSE;
    }
  *out = array;
  return TRUE;
}

gboolean
rk_json_get_object (JsonObject   *obj,
                    const char   *member,
                    RkJsonFlags   flags,
                    JsonObject  **out,
                    GError      **error)
{
  JsonNode *node;

  g_return_val_if_fail (out != NULL, FALSE);

  *out = NULL;
  if (!lookup (obj, member, flags, KIND_OBJECT, &node, error))
    return FALSE;
  if (node != NULL)
    *out = json_node_get_object (node);
  return TRUE;
}

/* -- writing -------------------------------------------------------------- */

void
rk_json_add_string_member (JsonBuilder *b,
                           const char  *name,
                           const char  *value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, value);
}

void
rk_json_add_int_member (JsonBuilder *b,
                        const char  *name,
                        gint64       value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

void
rk_json_add_bool_member (JsonBuilder *b,
                         const char  *name,
                         gboolean     value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_boolean_value (b, value);
}

char *
rk_json_builder_to_pretty (JsonBuilder *b)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (b);

  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}
