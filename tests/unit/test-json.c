/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-json.c — the typed JSON member getters (rk-json) on well-formed and
 * hostile members: wrong types, nulls, limits, ranges, bad UTF-8 escapes. */
#include "config.h"

#include <string.h>

#include "rk-json.h"
#include "rk-util.h"

static JsonObject *
parse (JsonParser *parser,
       const char *text)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static void
test_string (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o = parse (parser, "{\"s\": \"héllo\", \"n\": null, \"i\": 3, \"a\": [], \"e\": \"\"}");
  g_autoptr(GError) error = NULL;
  g_autofree char *copy = NULL;
  const char *s = "unset";

  g_assert_true (rk_json_get_string (o, "s", 6, RK_JSON_REQUIRED, &s, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (s, ==, "héllo");
  g_assert_true (rk_json_get_string (o, "e", 0, RK_JSON_REQUIRED, &s, &error));
  g_assert_cmpstr (s, ==, "");

  /* Absent and null: NULL when optional, an error when required. */
  g_assert_true (rk_json_get_string (o, "missing", 10, RK_JSON_OPTIONAL, &s, &error));
  g_assert_null (s);
  g_assert_true (rk_json_get_string (o, "n", 10, RK_JSON_OPTIONAL, &s, &error));
  g_assert_null (s);
  g_assert_false (rk_json_get_string (o, "n", 10, RK_JSON_REQUIRED, &s, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_assert_nonnull (strstr (error->message, "“n”"));
  g_clear_error (&error);

  /* Too long by one byte ("héllo" is 6 bytes). */
  g_assert_false (rk_json_get_string (o, "s", 5, RK_JSON_OPTIONAL, &s, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_assert_null (s);
  g_clear_error (&error);

  /* Other types are not strings, even when optional. */
  g_assert_false (rk_json_get_string (o, "i", 10, RK_JSON_OPTIONAL, &s, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_false (rk_json_get_string (o, "a", 10, RK_JSON_OPTIONAL, &s, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);

  g_assert_true (rk_json_dup_string (o, "s", RK_JSON_UNLIMITED, RK_JSON_REQUIRED, &copy, &error));
  g_assert_cmpstr (copy, ==, "héllo");
  g_clear_pointer (&copy, g_free);
  g_assert_false (rk_json_dup_string (o, "i", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &copy, &error));
  g_assert_null (copy);
  g_clear_error (&error);

  /* A NULL object is an absent member. */
  g_assert_true (rk_json_get_string (NULL, "s", 10, RK_JSON_OPTIONAL, &s, &error));
  g_assert_null (s);
}

/* A lone surrogate escape must not come out as invalid UTF-8. */
static void
test_string_surrogate (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  const char *s = NULL;

  if (!json_parser_load_from_data (parser, "{\"s\": \"a\\ud800b\"}", -1, NULL))
    return;   /* refused by json-glib already */
  if (rk_json_get_string (json_node_get_object (json_parser_get_root (parser)), "s", 100,
                          RK_JSON_REQUIRED, &s, &error))
    g_assert_true (g_utf8_validate (s, -1, NULL));
  else
    g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
}

static void
test_int (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o = parse (parser,
                         "{\"i\": 42, \"neg\": -1, \"f\": 1.5, \"e\": 1e3, \"s\": \"7\", \"b\": true,"
                         " \"n\": null, \"big\": 9223372036854775807}");
  g_autoptr(GError) error = NULL;
  gint64 v = 99;

  g_assert_true (rk_json_get_int (o, "i", 0, 100, RK_JSON_REQUIRED, &v, &error));
  g_assert_cmpint (v, ==, 42);
  g_assert_true (rk_json_get_int (o, "big", 0, G_MAXINT64, RK_JSON_REQUIRED, &v, &error));
  g_assert_cmpint (v, ==, G_MAXINT64);

  /* Absent or null leaves the value as it was. */
  v = 7;
  g_assert_true (rk_json_get_int (o, "missing", 0, 100, RK_JSON_OPTIONAL, &v, &error));
  g_assert_true (rk_json_get_int (o, "n", 0, 100, RK_JSON_OPTIONAL, &v, &error));
  g_assert_cmpint (v, ==, 7);
  g_assert_false (rk_json_get_int (o, "missing", 0, 100, RK_JSON_REQUIRED, &v, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);

  /* Range: both ends inclusive. */
  g_assert_true (rk_json_get_int (o, "i", 42, 42, RK_JSON_REQUIRED, &v, &error));
  g_assert_false (rk_json_get_int (o, "i", 0, 41, RK_JSON_REQUIRED, &v, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_false (rk_json_get_int (o, "neg", 0, 100, RK_JSON_OPTIONAL, &v, &error));
  g_clear_error (&error);
  g_assert_cmpint (v, ==, 42);

  /* Not integers: fractions, exponents, strings, booleans. */
  for (guint i = 0; i < 4; i++)
    {
      const char *member = (const char *[]) { "f", "e", "s", "b" }[i];

      g_assert_false (rk_json_get_int (o, member, G_MININT64, G_MAXINT64, RK_JSON_OPTIONAL, &v, &error));
      g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
      g_clear_error (&error);
    }
}

static void
test_double (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o = parse (parser, "{\"i\": 3, \"f\": -2.5, \"huge\": 1e308, \"s\": \"1\", \"n\": null}");
  g_autoptr(GError) error = NULL;
  double v = 7;

  g_assert_true (rk_json_get_double (o, "i", -G_MAXDOUBLE, G_MAXDOUBLE, RK_JSON_REQUIRED, &v, &error));
  g_assert_cmpfloat (v, ==, 3);
  g_assert_true (rk_json_get_double (o, "f", -10, 10, RK_JSON_REQUIRED, &v, &error));
  g_assert_cmpfloat (v, ==, -2.5);
  g_assert_true (rk_json_get_double (o, "n", 0, 1, RK_JSON_OPTIONAL, &v, &error));
  g_assert_cmpfloat (v, ==, -2.5);
  g_assert_false (rk_json_get_double (o, "huge", -1e300, 1e300, RK_JSON_OPTIONAL, &v, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_false (rk_json_get_double (o, "s", -10, 10, RK_JSON_OPTIONAL, &v, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_false (rk_json_get_double (o, "n", 0, 1, RK_JSON_REQUIRED, &v, &error));
  g_clear_error (&error);
}

static void
test_bool_enum (void)
{
  static const char * const words[] = { "stdout", "stderr", NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o = parse (parser, "{\"t\": true, \"f\": false, \"one\": 1, \"w\": \"stderr\", \"x\": \"stdoutX\"}");
  g_autoptr(GError) error = NULL;
  gboolean b = FALSE;
  int word = 5;

  g_assert_true (rk_json_get_bool (o, "t", RK_JSON_REQUIRED, &b, &error));
  g_assert_true (b);
  g_assert_true (rk_json_get_bool (o, "f", RK_JSON_REQUIRED, &b, &error));
  g_assert_false (b);
  b = TRUE;
  g_assert_true (rk_json_get_bool (o, "missing", RK_JSON_OPTIONAL, &b, &error));
  g_assert_true (b);
  g_assert_false (rk_json_get_bool (o, "one", RK_JSON_OPTIONAL, &b, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);

  g_assert_true (rk_json_get_enum (o, "w", words, RK_JSON_REQUIRED, &word, &error));
  g_assert_cmpint (word, ==, 1);
  g_assert_true (rk_json_get_enum (o, "missing", words, RK_JSON_OPTIONAL, &word, &error));
  g_assert_cmpint (word, ==, -1);
  g_assert_false (rk_json_get_enum (o, "x", words, RK_JSON_REQUIRED, &word, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_false (rk_json_get_enum (o, "one", words, RK_JSON_REQUIRED, &word, &error));
  g_clear_error (&error);
}

static void
test_array_object (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o = parse (parser, "{\"a\": [1, 2, 3], \"o\": {\"k\": 1}, \"s\": \"x\", \"n\": null}");
  g_autoptr(GError) error = NULL;
  JsonArray *a = NULL;
  JsonObject *obj = NULL;

  g_assert_true (rk_json_get_array (o, "a", 3, RK_JSON_REQUIRED, &a, &error));
  g_assert_cmpuint (json_array_get_length (a), ==, 3);
  g_assert_false (rk_json_get_array (o, "a", 2, RK_JSON_REQUIRED, &a, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_assert_null (a);
  g_clear_error (&error);
  g_assert_false (rk_json_get_array (o, "o", 10, RK_JSON_OPTIONAL, &a, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_true (rk_json_get_array (o, "n", 10, RK_JSON_OPTIONAL, &a, &error));
  g_assert_null (a);

  g_assert_true (rk_json_get_object (o, "o", RK_JSON_REQUIRED, &obj, &error));
  g_assert_true (json_object_has_member (obj, "k"));
  g_assert_false (rk_json_get_object (o, "a", RK_JSON_OPTIONAL, &obj, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_assert_null (obj);
  g_clear_error (&error);
  g_assert_false (rk_json_get_object (o, "s", RK_JSON_OPTIONAL, &obj, &error));
  g_clear_error (&error);
  g_assert_false (rk_json_get_object (o, "missing", RK_JSON_REQUIRED, &obj, &error));
  g_clear_error (&error);
}

/* rk_json_parse: the one entry for outside JSON refuses, with one sentence
 * and no crash, what json-glib's recursive parser cannot take. */
static void
test_parse_hostile (void)
{
  g_autofree char *deep = g_strnfill (1000000, '[');
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonObject) obj = NULL;
  const char text[] = "{\"a\": [1, {\"b\": \"[[[{{{\"}]}";

  /* 10^6 '[' (a stack overflow in json-glib 1.6): refused, as too deep. */
  node = rk_json_parse (deep, -1, G_MAXSIZE, 64, RK_JSON_SCAN_DEFAULT, &error);
  g_assert_null (node);
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "nested deeper than 64"));
  g_clear_error (&error);

  /* Depth exactly at the cap parses; one more does not. Brackets inside
   * strings do not count. */
  node = rk_json_parse (text, -1, 100, 3, RK_JSON_SCAN_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  g_clear_pointer (&node, json_node_unref);
  g_assert_null (rk_json_parse (text, -1, 100, 2, RK_JSON_SCAN_DEFAULT, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_clear_error (&error);

  /* Size: over the cap by one byte, with a length or without (then it is not
   * read past the cap + 1). */
  g_assert_null (rk_json_parse (text, strlen (text), strlen (text) - 1, 8, RK_JSON_SCAN_DEFAULT, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_clear_error (&error);
  g_assert_null (rk_json_parse (deep, -1, 10, 8, RK_JSON_SCAN_DEFAULT, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "longer than 10 bytes"));
  g_clear_error (&error);

  /* Not UTF-8, an escaped NUL when refused, empty, broken, NULL. */
  g_assert_null (rk_json_parse ("{\"a\": \"\xff\"}", -1, 100, 8, RK_JSON_SCAN_DEFAULT, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_null (rk_json_parse ("{\"a\": \"x\\u0000\"}", -1, 100, 8, RK_JSON_SCAN_NO_ESCAPED_NUL, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_null (rk_json_parse ("  \n", -1, 100, 8, RK_JSON_SCAN_DEFAULT, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_null (rk_json_parse ("{\"a\": }", -1, 100, 8, RK_JSON_SCAN_DEFAULT, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_assert_nonnull (strstr (error->message, "not JSON"));
  g_clear_error (&error);
  g_assert_null (rk_json_parse (NULL, 0, 100, 8, RK_JSON_SCAN_DEFAULT, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);

  /* _object: an array at the top is not an object; a reference otherwise. */
  g_assert_null (rk_json_parse_object ("[1]", -1, 100, 8, RK_JSON_SCAN_DEFAULT, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  obj = rk_json_parse_object (text, -1, 100, 8, RK_JSON_SCAN_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (obj, "a"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/json/string", test_string);
  g_test_add_func ("/rk/json/string-surrogate", test_string_surrogate);
  g_test_add_func ("/rk/json/int", test_int);
  g_test_add_func ("/rk/json/double", test_double);
  g_test_add_func ("/rk/json/bool-enum", test_bool_enum);
  g_test_add_func ("/rk/json/array-object", test_array_object);
  g_test_add_func ("/rk/json/parse-hostile", test_parse_hostile);

  return g_test_run ();
}
