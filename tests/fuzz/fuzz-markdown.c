/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-markdown.c — fenced-code splitting, tool-call recovery and Pango
 * rendering on any bytes: blocks tile the input, calls lie inside it, the
 * markup is well-formed; the block tree's offsets are in order and its
 * markup well-formed. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk-markdown.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Says which invariant broke (a crash report names only the target). */
#define check(ok) \
  G_STMT_START { if (!(ok)) { fprintf (stderr, "fuzz-markdown: check failed at line %d: %s\n", __LINE__, #ok); abort (); } } G_STMT_END

static void
check_markup (const char *markup)
{
  g_autofree char *wrapped = g_strdup_printf ("<m>%s</m>", markup);
  static const GMarkupParser parser = { NULL, NULL, NULL, NULL, NULL };
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, NULL, NULL);

  check (g_markup_parse_context_parse (ctx, wrapped, -1, NULL) &&
         g_markup_parse_context_end_parse (ctx, NULL));
  g_markup_parse_context_free (ctx);
}

static void
check_nodes (GPtrArray *nodes,
             guint      depth)
{
  check (depth <= RK_MARKDOWN_MAX_NESTING + 2);
  for (guint i = 0; i < nodes->len; i++)
    {
      RkMarkdownNode *n = nodes->pdata[i];

      if (n->markup != NULL)
        check_markup (n->markup);
      if (n->text != NULL)
        check (g_utf8_validate (n->text, -1, NULL));
      check_nodes (n->children, depth + 1);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *text = (const char *) data;
  g_autoptr(GPtrArray) blocks = rk_markdown_split (text, size);
  g_autoptr(GPtrArray) py = rk_markdown_python_blocks (text, size, RK_MARKDOWN_FLAGS_UNTAGGED_PYTHON);
  g_autoptr(GPtrArray) calls = rk_markdown_find_tool_calls (text, size);
  gsize pos = 0, last_end = 0;
  guint n_python = 0;

  for (guint i = 0; i < blocks->len; i++)
    {
      RkMarkdownBlock *b = blocks->pdata[i];

      check (b->offset == pos && b->length > 0);
      check (g_utf8_validate (b->text, -1, NULL));
      if (b->kind == RK_MARKDOWN_CODE)
        {
          check (b->info != NULL && b->language != NULL);
          check (g_utf8_validate (b->info, -1, NULL));
          /* Only the last block may be unterminated. */
          check (b->closed || i == blocks->len - 1);
          if ((rk_markdown_is_python_language (b->language) || b->language[0] == '\0') &&
              strspn (b->text, " \t\n\r\v\f") != strlen (b->text))
            n_python++;
        }
      pos += b->length;
    }
  check (pos == size);
  check (py->len == n_python);

  /* Prose to Pango markup: always well-formed. */
  {
    g_autofree char *markup = rk_markdown_to_pango (text, size);
    g_autofree char *wrapped = g_strdup_printf ("<m>%s</m>", markup);
    static const GMarkupParser parser = { NULL, NULL, NULL, NULL, NULL };
    GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, NULL, NULL);

    check (g_markup_parse_context_parse (ctx, wrapped, -1, NULL) &&
           g_markup_parse_context_end_parse (ctx, NULL));
    g_markup_parse_context_free (ctx);
  }

  /* The block tree: offsets in order and inside the input. */
  {
    g_autoptr(GPtrArray) nodes = rk_markdown_parse (text, size);
    guint final = rk_markdown_count_final (nodes, text, size);
    gsize last = 0;

    check (nodes->len <= RK_MARKDOWN_MAX_NODES + 1);
    check (final < nodes->len || nodes->len == 0);
    for (guint i = 0; i < nodes->len; i++)
      {
        RkMarkdownNode *n = nodes->pdata[i];
        check (n->offset >= last && n->offset <= size);
        last = n->offset;
      }
    check_nodes (nodes, 0);
  }

  for (guint i = 0; i < calls->len; i++)
    {
      RkMarkdownToolCall *c = calls->pdata[i];

      check (c->offset >= last_end && c->length > 0 && c->offset + c->length <= size);
      check (c->name != NULL && c->code != NULL && c->code[0] != '\0');
      check (g_utf8_validate (c->code, -1, NULL));
      last_end = c->offset + c->length;
    }
  return 0;
}
