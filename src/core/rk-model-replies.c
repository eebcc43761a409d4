/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-model-replies.c — parsers for the small JSON replies of model servers
 * (model lists, capabilities, versions), kept apart from the HTTP code so
 * they can be tested and fuzzed on their own. */
#define G_LOG_DOMAIN "rk-model-client"
#include "config.h"
#include "rk-model-replies.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "rk-json.h"
#include "rk-text.h"
#include "rk-util.h"

#define MAX_MODELS       10000
#define MAX_NAME_BYTES   1024
#define MAX_VERSION_CHARS 80
/* The model client reads at most 4 MiB of a reply (MAX_BODY). */
#define MAX_REPLY_BYTES  (4 * 1024 * 1024)
#define MAX_REPLY_DEPTH  32

/* The root object of @body, or NULL (with @error set) when @body is not
 * JSON with an object at the top, within the limits. */
static JsonObject *
load_object (GBytes  *body,
             GError **error)
{
  gsize len = 0;
  const char *data = body ? g_bytes_get_data (body, &len) : NULL;

  return rk_json_parse_object (data, (gssize) len, MAX_REPLY_BYTES, MAX_REPLY_DEPTH,
                               RK_JSON_SCAN_DEFAULT, error);
}

static const char *
string_member (JsonObject *obj,
               const char *name)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

void
rk_model_info_free (RkModelInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->name);
  g_free (info);
}

GPtrArray *
rk_model_replies_parse_list (RkModelApi   api,
                             GBytes      *body,
                             GError     **error)
{
  g_autoptr(GPtrArray) models = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_model_info_free);
  const char *list_key = api == RK_MODEL_API_OLLAMA ? "models" : "data";
  const char *name_key = api == RK_MODEL_API_OLLAMA ? "name" : "id";
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonObject) root = load_object (body, &local_error);
  JsonNode *list = root ? json_object_get_member (root, list_key) : NULL;
  JsonArray *array;

  if (root == NULL)
    {
      g_set_error (error, RK_PARSE_ERROR, local_error->code, "not a model list: %s", local_error->message);
      return NULL;
    }
  if (list == NULL || !(JSON_NODE_HOLDS_ARRAY (list) || JSON_NODE_HOLDS_NULL (list)))
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "not a model list");
      return NULL;
    }
  if (JSON_NODE_HOLDS_NULL (list))
    return g_steal_pointer (&models);
  array = json_node_get_array (list);
  for (guint i = 0; i < json_array_get_length (array) && i < MAX_MODELS; i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      const char *name;
      RkModelInfo *info;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        continue;
      name = string_member (json_node_get_object (item), name_key);
      if (name == NULL && api == RK_MODEL_API_OLLAMA)
        name = string_member (json_node_get_object (item), "model");
      if (name == NULL || name[0] == '\0' || strlen (name) > MAX_NAME_BYTES)
        continue;
      info = g_new0 (RkModelInfo, 1);
      info->name = g_strdup (name);
      g_ptr_array_add (models, info);
    }
  return g_steal_pointer (&models);
}

gboolean
rk_model_replies_parse_capabilities (GBytes   *body,
                                     gboolean *tools)
{
  g_autoptr(JsonObject) root = load_object (body, NULL);
  JsonNode *caps = root ? json_object_get_member (root, "capabilities") : NULL;
  JsonArray *array;

  *tools = FALSE;
  if (caps == NULL || !JSON_NODE_HOLDS_ARRAY (caps))
    return FALSE;
  array = json_node_get_array (caps);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING &&
          g_strcmp0 (json_node_get_string (item), "tools") == 0)
        *tools = TRUE;
    }
  return TRUE;
}

char *
rk_model_replies_parse_version (GBytes     *body,
                                const char *member)
{
  g_autoptr(JsonObject) root = load_object (body, NULL);
  const char *version = root ? string_member (root, member) : NULL;
  g_autofree char *clean = NULL;
  char *end;

  if (version == NULL)
    return NULL;
  clean = rk_text_sanitize_for_terminal (version, RK_TEXT_SANITIZE_SINGLE_LINE);
  g_strstrip (clean);
  if (clean[0] == '\0')
    return NULL;
  if (g_utf8_strlen (clean, -1) > MAX_VERSION_CHARS)
    {
      end = g_utf8_offset_to_pointer (clean, MAX_VERSION_CHARS);
      *end = '\0';
    }
  return g_steal_pointer (&clean);
}
