/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-markdown.c — fenced code splitting and text tool-call recovery, on
 * well-formed and hostile model output. */
#include "config.h"

#include <string.h>

#include "rk-markdown.h"

/* Splits and checks the invariants: blocks are in order, cover every byte,
 * prose and code texts are valid UTF-8. */
static GPtrArray *
split (const char *text,
       gssize      len)
{
  GPtrArray *blocks = rk_markdown_split (text, len);
  gsize n = len < 0 ? strlen (text) : (gsize) len;
  gsize pos = 0;

  for (guint i = 0; i < blocks->len; i++)
    {
      RkMarkdownBlock *b = blocks->pdata[i];

      g_assert_cmpuint (b->offset, ==, pos);
      g_assert_cmpuint (b->length, >, 0);
      g_assert_true (g_utf8_validate (b->text, -1, NULL));
      if (b->kind == RK_MARKDOWN_CODE)
        {
          g_assert_nonnull (b->info);
          g_assert_nonnull (b->language);
        }
      else if (i > 0)
        g_assert_cmpint (((RkMarkdownBlock *) blocks->pdata[i - 1])->kind, ==, RK_MARKDOWN_CODE);
      pos += b->length;
    }
  g_assert_cmpuint (pos, ==, n);
  return blocks;
}

#define BLOCK(blocks, i) ((RkMarkdownBlock *) (blocks)->pdata[i])

static void
test_basic (void)
{
  const char *t = "Let me load it.\n\n```python\nimport pandas as pd\ndf = pd.read_csv('x.csv')\n```\n\nThen we look.\n";
  g_autoptr(GPtrArray) b = split (t, -1);
  g_autoptr(GPtrArray) py = NULL;

  g_assert_cmpuint (b->len, ==, 3);
  g_assert_cmpint (BLOCK (b, 0)->kind, ==, RK_MARKDOWN_PROSE);
  g_assert_cmpstr (BLOCK (b, 0)->text, ==, "Let me load it.\n\n");
  g_assert_cmpint (BLOCK (b, 1)->kind, ==, RK_MARKDOWN_CODE);
  g_assert_cmpstr (BLOCK (b, 1)->text, ==, "import pandas as pd\ndf = pd.read_csv('x.csv')\n");
  g_assert_cmpstr (BLOCK (b, 1)->language, ==, "python");
  g_assert_true (BLOCK (b, 1)->closed);
  g_assert_cmpstr (BLOCK (b, 2)->text, ==, "\nThen we look.\n");

  py = rk_markdown_python_blocks (t, -1, RK_MARKDOWN_FLAGS_NONE);
  g_assert_cmpuint (py->len, ==, 1);
  g_assert_cmpstr (py->pdata[0], ==, "import pandas as pd\ndf = pd.read_csv('x.csv')\n");
}

static void
test_languages (void)
{
  const char *t = "~~~py\na = 1\n~~~\n```python3\nb = 2\n```\n``` {.python .numberLines}\nc = 3\n```\n"
                  "```Python\nd = 4\n```\n```ipython3\ne = 5\n```\n```sql\nselect 1\n```\n```\nf = 6\n```\n"
                  "```pycon\n>>> 1\n```\n```python3.11\ng = 7\n```\n";
  g_autoptr(GPtrArray) py = rk_markdown_python_blocks (t, -1, RK_MARKDOWN_FLAGS_NONE);
  g_autoptr(GPtrArray) all = rk_markdown_python_blocks (t, -1, RK_MARKDOWN_FLAGS_UNTAGGED_PYTHON);
  g_autoptr(GPtrArray) b = split (t, -1);

  g_assert_cmpuint (py->len, ==, 6);
  g_assert_cmpstr (py->pdata[0], ==, "a = 1\n");
  g_assert_cmpstr (py->pdata[2], ==, "c = 3\n");
  g_assert_cmpstr (py->pdata[5], ==, "g = 7\n");
  g_assert_cmpuint (all->len, ==, 7);
  g_assert_cmpstr (all->pdata[5], ==, "f = 6\n");
  g_assert_cmpstr (BLOCK (b, 2)->info, ==, "{.python .numberLines}");
  g_assert_cmpstr (BLOCK (b, 2)->language, ==, "python");

  g_assert_true (rk_markdown_is_python_language ("py"));
  g_assert_false (rk_markdown_is_python_language ("pyx"));
  g_assert_false (rk_markdown_is_python_language (""));
  g_assert_false (rk_markdown_is_python_language (NULL));
}

static void
test_unterminated (void)
{
  const char *t = "Here:\n```python\nx = 1\nprint(x";
  g_autoptr(GPtrArray) b = split (t, -1);
  g_autoptr(GPtrArray) py = rk_markdown_python_blocks (t, -1, RK_MARKDOWN_FLAGS_NONE);
  g_autoptr(GPtrArray) closed = rk_markdown_python_blocks (t, -1, RK_MARKDOWN_FLAGS_CLOSED_ONLY);

  g_assert_cmpuint (b->len, ==, 2);
  g_assert_false (BLOCK (b, 1)->closed);
  g_assert_cmpstr (BLOCK (b, 1)->text, ==, "x = 1\nprint(x");
  g_assert_cmpuint (py->len, ==, 1);
  g_assert_cmpuint (closed->len, ==, 0);

  /* A fence alone at the very end: an empty unterminated block. */
  {
    g_autoptr(GPtrArray) b2 = split ("text\n```", -1);
    g_assert_cmpuint (b2->len, ==, 2);
    g_assert_cmpstr (BLOCK (b2, 1)->text, ==, "");
    g_assert_false (BLOCK (b2, 1)->closed);
  }
  /* A shorter run does not close a longer fence. */
  {
    g_autoptr(GPtrArray) b3 = split ("````python\na\n```\nb\n", -1);
    g_assert_cmpuint (b3->len, ==, 1);
    g_assert_cmpstr (BLOCK (b3, 0)->text, ==, "a\n```\nb\n");
    g_assert_false (BLOCK (b3, 0)->closed);
  }
  /* ...and tildes do not close backticks. */
  {
    g_autoptr(GPtrArray) b4 = split ("```\na\n~~~\n", -1);
    g_assert_cmpuint (b4->len, ==, 1);
    g_assert_false (BLOCK (b4, 0)->closed);
  }
}

static void
test_indented (void)
{
  const char *t = "1. Load:\n   ```python\n   import pandas as pd\n     x = 1\n   ```\n2. Plot:\n      ```py\n      plot()\n      ```\n";
  g_autoptr(GPtrArray) py = rk_markdown_python_blocks (t, -1, RK_MARKDOWN_FLAGS_NONE);
  g_autoptr(GPtrArray) b = split (t, -1);

  g_assert_cmpuint (py->len, ==, 2);
  g_assert_cmpstr (py->pdata[0], ==, "import pandas as pd\n  x = 1\n");
  g_assert_cmpstr (py->pdata[1], ==, "plot()\n");
  g_assert_cmpuint (b->len, ==, 4);
}

static void
test_nested (void)
{
  const char *t = "````markdown\nExample:\n```python\nprint(1)\n```\n````\nafter\n```python\nreal()\n```\n";
  g_autoptr(GPtrArray) b = split (t, -1);
  g_autoptr(GPtrArray) py = rk_markdown_python_blocks (t, -1, RK_MARKDOWN_FLAGS_NONE);

  g_assert_cmpuint (b->len, ==, 3);
  g_assert_cmpstr (BLOCK (b, 0)->language, ==, "markdown");
  g_assert_cmpstr (BLOCK (b, 0)->text, ==, "Example:\n```python\nprint(1)\n```\n");
  g_assert_cmpuint (py->len, ==, 1);
  g_assert_cmpstr (py->pdata[0], ==, "real()\n");

  /* Inline triple backticks are not a fence. */
  {
    g_autoptr(GPtrArray) b2 = split ("Use ```python x``` inline\n```python x```\n", -1);
    g_assert_cmpuint (b2->len, ==, 1);
    g_assert_cmpint (BLOCK (b2, 0)->kind, ==, RK_MARKDOWN_PROSE);
  }
  /* Closing fence longer than the opening one, with trailing blanks. */
  {
    g_autoptr(GPtrArray) b3 = split ("```py\na\n`````  \nrest", -1);
    g_assert_cmpuint (b3->len, ==, 2);
    g_assert_true (BLOCK (b3, 0)->closed);
    g_assert_cmpstr (BLOCK (b3, 1)->text, ==, "rest");
  }
}

static void
test_glued (void)
{
  const char *t = "```python\nx = 1\nprint(x)```\nDone. Next:\n```python\ny = 2\n```\n";
  g_autoptr(GPtrArray) py = rk_markdown_python_blocks (t, -1, RK_MARKDOWN_FLAGS_NONE);
  g_autoptr(GPtrArray) b = split (t, -1);

  g_assert_cmpuint (py->len, ==, 2);
  g_assert_cmpstr (py->pdata[0], ==, "x = 1\nprint(x)\n");
  g_assert_cmpstr (py->pdata[1], ==, "y = 2\n");
  g_assert_cmpuint (b->len, ==, 3);
}

static void
test_hostile (void)
{
  /* CRLF */
  {
    const char *t = "Hi\r\n```python\r\nprint(1)\r\n```\r\nbye\r\n";
    g_autoptr(GPtrArray) py = rk_markdown_python_blocks (t, -1, RK_MARKDOWN_FLAGS_NONE);
    g_autoptr(GPtrArray) b = split (t, -1);
    g_assert_cmpuint (py->len, ==, 1);
    g_assert_cmpstr (py->pdata[0], ==, "print(1)\r\n");
    g_assert_cmpuint (b->len, ==, 3);
  }
  /* NUL bytes and invalid UTF-8 are replaced, not cut at. */
  {
    static const char t[] = "a\0b\xff\n```py\nx\0y\n```\n";
    g_autoptr(GPtrArray) b = split (t, sizeof t - 1);
    g_assert_cmpuint (b->len, ==, 2);
    g_assert_cmpstr (BLOCK (b, 0)->text, ==, "a\xef\xbf\xbd" "b\xef\xbf\xbd\n");
    g_assert_cmpstr (BLOCK (b, 1)->text, ==, "x\xef\xbf\xbdy\n");
  }
  /* Empty and NULL. */
  {
    g_autoptr(GPtrArray) b = split ("", 0);
    g_autoptr(GPtrArray) b2 = rk_markdown_split (NULL, -1);
    g_autoptr(GPtrArray) c = rk_markdown_find_tool_calls (NULL, -1);
    g_assert_cmpuint (b->len, ==, 0);
    g_assert_cmpuint (b2->len, ==, 0);
    g_assert_cmpuint (c->len, ==, 0);
  }
  /* A 1 MB line and 20,000 fences. */
  {
    gsize big = 1 << 20;
    g_autoptr(GString) s = g_string_new ("```python\n");
    g_autoptr(GPtrArray) b = NULL;
    g_autoptr(GPtrArray) c = NULL;

    for (gsize i = 0; i < big; i++)
      g_string_append_c (s, "x{\"`"[i % 4]);
    g_string_append (s, "\n```\n");
    for (guint i = 0; i < 20000; i++)
      g_string_append (s, i % 2 ? "```\n" : "~~~\n");
    b = split (s->str, s->len);
    g_assert_cmpuint (BLOCK (b, 0)->length, ==, big + 15);
    c = rk_markdown_find_tool_calls (s->str, s->len);
    g_assert_cmpuint (c->len, ==, 0);
  }
}

static RkMarkdownToolCall *
one_call (const char *text)
{
  g_autoptr(GPtrArray) calls = rk_markdown_find_tool_calls (text, -1);
  RkMarkdownToolCall *c;

  g_assert_cmpuint (calls->len, ==, 1);
  c = g_ptr_array_steal_index (calls, 0);
  g_assert_cmpuint (c->offset + c->length, <=, strlen (text));
  return c;
}

static void
no_call (const char *text)
{
  g_autoptr(GPtrArray) calls = rk_markdown_find_tool_calls (text, -1);
  g_assert_cmpuint (calls->len, ==, 0);
}

static void
test_tool_calls (void)
{
  {
    const char *t = "I'll compute it.\n{\"name\": \"python\", \"arguments\": {\"code\": \"print(1)\"}}\nwait";
    g_autoptr(RkMarkdownToolCall) c = one_call (t);
    g_assert_cmpstr (c->name, ==, "python");
    g_assert_cmpstr (c->code, ==, "print(1)");
    g_assert_cmpuint (c->offset, ==, 17);
    g_assert_cmpuint (c->length, ==, strlen ("{\"name\": \"python\", \"arguments\": {\"code\": \"print(1)\"}}"));
  }
  {
    g_autoptr(RkMarkdownToolCall) c = one_call ("{\"tool\": \"python\", \"code\": \"x = 1\\ny = 2\"}");
    g_assert_cmpstr (c->code, ==, "x = 1\ny = 2");
  }
  {
    const char *t = "ok <tool_call>\n{\"name\":\"python\",\"parameters\":{\"code\":\"a\"}}\n</tool_call> done";
    g_autoptr(RkMarkdownToolCall) c = one_call (t);
    g_assert_cmpstr (c->code, ==, "a");
    g_assert_cmpuint (c->offset, ==, 3);
    g_assert_cmpuint (c->offset + c->length, ==, strlen (t) - 5);
  }
  {
    g_autoptr(RkMarkdownToolCall) c = one_call ("{\"function\": {\"name\": \"python\", \"arguments\": \"{\\\"code\\\": \\\"print(2)\\\"}\"}}");
    g_assert_cmpstr (c->code, ==, "print(2)");
  }
  {
    g_autoptr(RkMarkdownToolCall) c = one_call ("{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"run_python\",\"arguments\":{\"code\":\"q\"}}}");
    g_assert_cmpstr (c->name, ==, "run_python");
    g_assert_cmpstr (c->code, ==, "q");
  }
  {
    g_autoptr(RkMarkdownToolCall) c = one_call ("{\"tool_calls\": [{\"function\": {\"name\": \"search\", \"arguments\": \"{}\"}}, "
                                                "{\"function\": {\"name\": \"python\", \"arguments\": \"{\\\"code\\\":\\\"z\\\"}\"}}]}");
    g_assert_cmpstr (c->code, ==, "z");
  }
  {
    /* In a ```json fence: the whole block is the call. */
    const char *t = "Running:\n```json\n{\"name\": \"python\", \"arguments\": {\"code\": \"df.head()\"}}\n```\nThat's it.";
    g_autoptr(RkMarkdownToolCall) c = one_call (t);
    g_assert_cmpstr (c->code, ==, "df.head()");
    g_assert_cmpuint (c->offset, ==, 9);
    g_assert_cmpuint (c->offset + c->length, ==, strlen (t) - strlen ("That's it."));
  }
  {
    /* Raw newlines and a regex backslash inside the JSON string. */
    g_autoptr(RkMarkdownToolCall) c = one_call ("{\"name\": \"python\", \"arguments\": {\"code\": \"import re\nre.findall('\\d+', s)\"}}");
    g_assert_cmpstr (c->code, ==, "import re\nre.findall('\\d+', s)");
  }
  {
    g_autoptr(RkMarkdownToolCall) c = one_call ("{\"name\": \"python\", \"arguments\": \"print(3)\"}");
    g_assert_cmpstr (c->code, ==, "print(3)");
  }
  {
    g_autoptr(RkMarkdownToolCall) c = one_call ("<tool_call>{\"code\": \"w = 1\"}</tool_call>");
    g_assert_cmpstr (c->name, ==, "python");
    g_assert_cmpstr (c->code, ==, "w = 1");
  }
  {
    g_autoptr(GPtrArray) calls = rk_markdown_find_tool_calls ("{\"name\":\"python\",\"arguments\":{\"code\":\"a\"}} and "
                                                              "{\"name\":\"python\",\"arguments\":{\"code\":\"b\"}}", -1);
    g_assert_cmpuint (calls->len, ==, 2);
    g_assert_cmpstr (((RkMarkdownToolCall *) calls->pdata[1])->code, ==, "b");
  }

  /* Not calls. */
  no_call ("{\"name\": \"python\", \"arguments\": {\"code\": \"pri");
  no_call ("{\"name\": \"python\", \"arguments\": {\"code\": \"x\"]}");
  no_call ("{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\"}}");
  no_call ("{\"code\": \"x = 1\"}");
  no_call ("{\"name\": \"python\", \"arguments\": {\"code\": \"   \"}}");
  no_call ("{\"name\": \"python\", \"arguments\": {\"code\": 42}}");
  no_call ("{\"name\": [\"python\"], \"code\": \"x\"}");
  no_call ("```python\nd = {\"name\": \"python\", \"arguments\": {\"code\": \"x\"}}\n```\n");
  no_call ("{\"name\": \"python\", \"arguments\": \"{\\\"code\\\": \"}");
  no_call ("{{{{{{{{{{\"\"\"\"\"}}}}}");
}

static void
test_tool_calls_hostile (void)
{
  g_autoptr(GString) deep = g_string_new ("{\"name\": \"python\", \"code\": ");
  g_autoptr(GString) many = g_string_new (NULL);
  g_autoptr(GPtrArray) c1 = NULL;
  g_autoptr(GPtrArray) c2 = NULL;

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, ']');
  g_string_append_c (deep, '}');
  c1 = rk_markdown_find_tool_calls (deep->str, deep->len);
  g_assert_cmpuint (c1->len, ==, 0);

  /* Many unterminated candidates: bounded work, no call. */
  for (guint i = 0; i < 50000; i++)
    g_string_append (many, "{\"a\":\"");
  c2 = rk_markdown_find_tool_calls (many->str, many->len);
  g_assert_cmpuint (c2->len, ==, 0);

  /* Arguments as a JSON string whose code is blank: no call (found by
   * fuzz-markdown; a blank cell was offered to run). */
  {
    static const char blank[] = "<tool_call>\n{\"name\": \"python\", \"arguments\": \"{\\\"code\\\": \\\" \\\"}\"}\n</tool_call>";
    g_autoptr(GPtrArray) c3 = rk_markdown_find_tool_calls (blank, strlen (blank));

    g_assert_cmpuint (c3->len, ==, 0);
  }
}

/* The markup must be well-formed with only Pango/GtkLabel tags. */
static void
assert_markup_ok (const char *markup)
{
  g_autofree char *wrapped = g_strdup_printf ("<markup>%s</markup>", markup);
  g_autoptr(GMarkupParseContext) ctx = NULL;
  g_autoptr(GError) error = NULL;
  static const GMarkupParser parser = { NULL, NULL, NULL, NULL, NULL };

  ctx = g_markup_parse_context_new (&parser, 0, NULL, NULL);
  g_assert_true (g_markup_parse_context_parse (ctx, wrapped, -1, &error));
  g_assert_true (g_markup_parse_context_end_parse (ctx, &error));
  g_assert_no_error (error);
}

static char *
pango (const char *md)
{
  char *m = rk_markdown_to_pango (md, -1);
  assert_markup_ok (m);
  return m;
}

static void
test_pango (void)
{
#ifdef RK_HAVE_CMARK_GFM
  struct { const char *md, *markup; } cases[] = {
    { "Sales peaked in **March** and *fell* after.", "Sales peaked in <b>March</b> and <i>fell</i> after." },
    { "Use `df.head()` & <script>x</script>", "Use <tt>df.head()</tt> &amp; &lt;script&gt;x&lt;/script&gt;" },
    { "# Title\n\nBody", "<span weight=\"bold\" size=\"x-large\">Title</span>\n\nBody" },
    { "- one\n- two\n\nafter", "• one\n• two\n\nafter" },
    { "3. c\n4. d", "3. c\n4. d" },
    { "~~old~~ new", "<s>old</s> new" },
    { "[site](https://example.org/?a=1&b=\"2\") [bad](javascript:alert(1))",
      "<a href=\"https://example.org/?a=1&amp;b=&quot;2&quot;\">site</a> bad" },
    { "| a | b |\n|---|---|\n| 1 | 2 |", "a │ b\n1 │ 2" },
    { "> quoted", "<i>quoted</i>" },
    { "![alt](http://x/y.png)", "alt" },
    { "", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *m = pango (cases[i].md);
      g_assert_cmpstr (m, ==, cases[i].markup);
    }
#else
  g_autofree char *m = pango ("**a** <b>");
  g_assert_cmpstr (m, ==, "**a** &lt;b&gt;");
#endif

  /* Hostile: deep nesting, unbalanced markers, NUL, invalid UTF-8. */
  {
    g_autoptr(GString) deep = g_string_new (NULL);
    g_autofree char *m1 = NULL, *m2 = NULL, *m3 = NULL, *m4 = NULL;

    for (guint i = 0; i < 5000; i++)
      g_string_append (deep, "> *_");
    g_string_append (deep, "x");
    m1 = pango (deep->str);
    g_string_truncate (deep, 0);
    for (guint i = 0; i < 3000; i++)
      g_string_append (deep, "**[`<&");
    m2 = pango (deep->str);
    m3 = rk_markdown_to_pango ("a\0b\xff **c**", 10);
    assert_markup_ok (m3);
    m4 = rk_markdown_to_pango (NULL, -1);
    g_assert_cmpstr (m4, ==, "");
  }
}


static void
assert_tree_markup_ok (GPtrArray *nodes)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      RkMarkdownNode *n = nodes->pdata[i];

      if (n->markup != NULL)
        assert_markup_ok (n->markup);
      if (n->text != NULL)
        g_assert_true (g_utf8_validate (n->text, -1, NULL));
      g_assert_nonnull (n->children);
      assert_tree_markup_ok (n->children);
    }
}

static void
test_parse (void)
{
#ifdef RK_HAVE_CMARK_GFM
  const char *md =
    "# Sales\n"
    "\n"
    "Revenue rose **12%** in `Q3`, see [report](https://example.org).\n"
    "\n"
    "- north\n"
    "- south\n"
    "  1. inner\n"
    "\n"
    "| region | total |\n"
    "|:-------|------:|\n"
    "| north  | 1,200 |\n"
    "\n"
    "```python\n"
    "print(1)\n"
    "```\n"
    "> quoted\n"
    "\n"
    "---\n";
  g_autoptr(GPtrArray) nodes = rk_markdown_parse (md, -1);
  RkMarkdownNode *n, *item, *table, *row;

  g_assert_cmpuint (nodes->len, ==, 7);
  assert_tree_markup_ok (nodes);

  n = nodes->pdata[0];
  g_assert_cmpint (n->kind, ==, RK_MARKDOWN_NODE_HEADING);
  g_assert_cmpuint (n->level, ==, 1);
  g_assert_cmpstr (n->markup, ==, "Sales");
  g_assert_cmpuint (n->offset, ==, 0);

  n = nodes->pdata[1];
  g_assert_cmpint (n->kind, ==, RK_MARKDOWN_NODE_PARAGRAPH);
  g_assert_cmpstr (n->markup, ==, "Revenue rose <b>12%</b> in <tt>Q3</tt>, see <a href=\"https://example.org\">report</a>.");
  g_assert_cmpuint (n->start_line, ==, 3);
  g_assert_cmpuint (n->offset, ==, strlen ("# Sales\n\n"));

  n = nodes->pdata[2];
  g_assert_cmpint (n->kind, ==, RK_MARKDOWN_NODE_LIST);
  g_assert_false (n->ordered);
  g_assert_cmpuint (n->children->len, ==, 2);
  item = n->children->pdata[1];
  g_assert_cmpint (item->kind, ==, RK_MARKDOWN_NODE_ITEM);
  g_assert_cmpuint (item->children->len, ==, 2);
  g_assert_cmpint (((RkMarkdownNode *) item->children->pdata[1])->kind, ==, RK_MARKDOWN_NODE_LIST);
  g_assert_true (((RkMarkdownNode *) item->children->pdata[1])->ordered);

  table = nodes->pdata[3];
  g_assert_cmpint (table->kind, ==, RK_MARKDOWN_NODE_TABLE);
  g_assert_cmpuint (table->n_columns, ==, 2);
  g_assert_cmpuint (table->children->len, ==, 2);
  row = table->children->pdata[0];
  g_assert_true (row->header);
  g_assert_cmpstr (((RkMarkdownNode *) row->children->pdata[0])->markup, ==, "region");
  g_assert_cmpint (((RkMarkdownNode *) row->children->pdata[0])->align, ==, 'l');
  g_assert_cmpint (((RkMarkdownNode *) row->children->pdata[1])->align, ==, 'r');
  row = table->children->pdata[1];
  g_assert_false (row->header);
  g_assert_cmpstr (((RkMarkdownNode *) row->children->pdata[1])->markup, ==, "1,200");

  n = nodes->pdata[4];
  g_assert_cmpint (n->kind, ==, RK_MARKDOWN_NODE_CODE);
  g_assert_cmpstr (n->language, ==, "python");
  g_assert_cmpstr (n->text, ==, "print(1)");

  g_assert_cmpint (((RkMarkdownNode *) nodes->pdata[5])->kind, ==, RK_MARKDOWN_NODE_QUOTE);
  g_assert_cmpint (((RkMarkdownNode *) nodes->pdata[6])->kind, ==, RK_MARKDOWN_NODE_RULE);
#else
  g_autoptr(GPtrArray) nodes = rk_markdown_parse ("a <b>\n\nc", -1);
  g_assert_cmpuint (nodes->len, ==, 2);
  g_assert_cmpstr (((RkMarkdownNode *) nodes->pdata[0])->markup, ==, "a &lt;b&gt;");
#endif
}

/* Streaming: a block counts as final only once the next has begun on a
 * complete line, and what is final never changes as text is appended. */
static void
test_count_final (void)
{
  const char *md =
    "Intro line\n"
    "\n"
    "a | b\n"
    "|---|---|\n"
    "| 1 | 2 |\n"
    "\n"
    "Title\n"
    "---\n"
    "- x\n"
    "\n"
    "- y\n"
    "\n"
    "```py\n"
    "x = 1\n"
    "\n"
    "```\n"
    "done.";
  gsize n = strlen (md);
  g_autoptr(GPtrArray) full = rk_markdown_parse (md, -1);
  guint best = 0;

  for (gsize cut = 0; cut <= n; cut++)
    {
      g_autoptr(GPtrArray) part = rk_markdown_parse (md, cut);
      guint final = rk_markdown_count_final (part, md, cut);

      g_assert_cmpuint (final, >=, best);
      best = final;
      for (guint i = 0; i < final; i++)
        {
          RkMarkdownNode *a = part->pdata[i], *b = full->pdata[i];

          g_assert_cmpint (a->kind, ==, b->kind);
          g_assert_cmpstr (a->markup, ==, b->markup);
          g_assert_cmpstr (a->text, ==, b->text);
          g_assert_cmpuint (a->offset, ==, b->offset);
          g_assert_cmpuint (a->children->len, ==, b->children->len);
        }
      /* The text after the final blocks parses alone to the same blocks. */
      if (final > 0 && final < part->len)
        {
          gsize off = ((RkMarkdownNode *) part->pdata[final])->offset;
          g_autoptr(GPtrArray) tail = rk_markdown_parse (md + off, cut - off);

          g_assert_cmpuint (tail->len, ==, part->len - final);
        }
    }
#ifdef RK_HAVE_CMARK_GFM
  g_assert_cmpuint (full->len, ==, 6);
  g_assert_cmpuint (rk_markdown_count_final (full, md, n), ==, 4);
#endif
}

static void
test_parse_hostile (void)
{
  g_autoptr(GString) deep = g_string_new (NULL);
  g_autoptr(GString) many = g_string_new (NULL);
  g_autoptr(GPtrArray) a = NULL, b = NULL, c = NULL, d = NULL;

  for (guint i = 0; i < 3000; i++)
    g_string_append (deep, "> - 1. ");
  g_string_append (deep, "*x*");
  a = rk_markdown_parse (deep->str, -1);
  assert_tree_markup_ok (a);
  for (guint i = 0; i < RK_MARKDOWN_MAX_NODES + 50; i++)
    g_string_append (many, "p\n\n");
  b = rk_markdown_parse (many->str, -1);
#ifdef RK_HAVE_CMARK_GFM
  g_assert_cmpuint (b->len, ==, RK_MARKDOWN_MAX_NODES + 1);
  g_assert_cmpint (((RkMarkdownNode *) b->pdata[b->len - 1])->kind, ==, RK_MARKDOWN_NODE_LITERAL);
#endif
  c = rk_markdown_parse ("a\0b\xff\r\r\n|x|\n|-|\n|\xfe|", 18);
  assert_tree_markup_ok (c);
  d = rk_markdown_parse (NULL, -1);
#ifdef RK_HAVE_CMARK_GFM
  {
    g_autoptr(GPtrArray) tasks = rk_markdown_parse ("- [ ] todo\n- [x] done\n- plain", -1);
    RkMarkdownNode *list = tasks->pdata[0];

    g_assert_cmpuint (list->children->len, ==, 3);
    g_assert_cmpuint (((RkMarkdownNode *) list->children->pdata[0])->task, ==, 1);
    g_assert_cmpuint (((RkMarkdownNode *) list->children->pdata[1])->task, ==, 2);
    g_assert_cmpuint (((RkMarkdownNode *) list->children->pdata[2])->task, ==, 0);
  }
#endif
  g_assert_cmpuint (d->len, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/markdown/basic", test_basic);
  g_test_add_func ("/rk/markdown/languages", test_languages);
  g_test_add_func ("/rk/markdown/unterminated", test_unterminated);
  g_test_add_func ("/rk/markdown/indented", test_indented);
  g_test_add_func ("/rk/markdown/nested", test_nested);
  g_test_add_func ("/rk/markdown/glued", test_glued);
  g_test_add_func ("/rk/markdown/hostile", test_hostile);
  g_test_add_func ("/rk/markdown/tool-calls", test_tool_calls);
  g_test_add_func ("/rk/markdown/tool-calls-hostile", test_tool_calls_hostile);
  g_test_add_func ("/rk/markdown/pango", test_pango);
  g_test_add_func ("/rk/markdown/parse", test_parse);
  g_test_add_func ("/rk/markdown/count-final", test_count_final);
  g_test_add_func ("/rk/markdown/parse-hostile", test_parse_hostile);
  return g_test_run ();
}
