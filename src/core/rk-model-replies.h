/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-model-replies.h — the small JSON replies of model servers, apart from
 * chat streams: model lists, Ollama's /api/show capabilities, and version
 * reports. Outside bytes: hostile-input tests and a fuzz target cover them. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The wire format of a model server (RkModelClient:api). */
typedef enum
{
  RK_MODEL_API_AUTO,
  RK_MODEL_API_OPENAI,
  RK_MODEL_API_OLLAMA,
} RkModelApi;

#define RK_TYPE_MODEL_API (rk_model_api_get_type ())
GType rk_model_api_get_type (void);

/* One model of a server's list. */
typedef struct
{
  char     *name;
  gboolean  tools_known;  /* TRUE when the server said whether it supports tools */
  gboolean  tools;
} RkModelInfo;

void rk_model_info_free (RkModelInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkModelInfo, rk_model_info_free)

/* /api/tags ({"models": [{"name"}]}) for Ollama, /v1/models ({"data":
 * [{"id"}]}) otherwise. At most 10,000 models; names over 1,024 bytes and
 * entries that are not objects are left out. Fails with RK_PARSE_ERROR
 * when @body is not such a list. */
GPtrArray *rk_model_replies_parse_list         (RkModelApi   api,
                                                GBytes      *body,
                                                GError     **error);

/* Ollama /api/show: TRUE when it lists "capabilities" (older servers do
 * not), with *@tools whether "tools" is among them. */
gboolean   rk_model_replies_parse_capabilities (GBytes      *body,
                                                gboolean    *tools);

/* A version report, the string member @member of a JSON object
 * ({"version"} from Ollama's /api/version and vLLM's /version,
 * {"build_info"} from llama.cpp's /props): one line of at most 80
 * characters with control and bidi characters removed, or NULL. */
char      *rk_model_replies_parse_version      (GBytes      *body,
                                                const char  *member);

G_END_DECLS
