// Escaping text from files before it reaches a terminal.

#include "core/text.hpp"

#include <doctest/doctest.h>

#include <string>

#include "irlite/error.hpp"

using namespace irlite;

TEST_CASE("escape_nonprintable: controls and bytes that are not UTF-8 become escapes") {
  CHECK(escape_nonprintable("plain name/with:punctuation_1.2") ==
        "plain name/with:punctuation_1.2");
  CHECK(escape_nonprintable("a\rb\nc\td") == "a\\rb\\nc\\td");
  CHECK(escape_nonprintable("\x1b[2Jred\x1b[0m") == "\\x1b[2Jred\\x1b[0m");
  CHECK(escape_nonprintable(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(escape_nonprintable("\x7f\x01\x1f") == "\\x7f\\x01\\x1f");
  // UTF-8 text stays, its C1 controls and direction overrides do not.
  CHECK(escape_nonprintable("caf\xc3\xa9 \xe5\x90\x8d \xf0\x9f\x99\x82") ==
        "caf\xc3\xa9 \xe5\x90\x8d \xf0\x9f\x99\x82");
  CHECK(escape_nonprintable("\xc2\x9b"
                            "31m") == "\\u009b31m");
  CHECK(escape_nonprintable("abc\xe2\x80\xae"
                            "fed") == "abc\\u202efed");
  CHECK(escape_nonprintable("x\xe2\x80\xa8y") == "x\\u2028y");
  // A raw C1 byte, a lone continuation, a truncated sequence, an overlong form, a surrogate.
  CHECK(escape_nonprintable("\x9b"
                            "1m") == "\\x9b1m");
  CHECK(escape_nonprintable("\x80") == "\\x80");
  CHECK(escape_nonprintable("\xe5\x90") == "\\xe5\\x90");
  CHECK(escape_nonprintable("\xc0\xaf") == "\\xc0\\xaf");
  CHECK(escape_nonprintable("\xed\xa0\x80") == "\\xed\\xa0\\x80");
  CHECK(escape_nonprintable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");
  // Backslashes are left alone, so escaping what is escaped changes nothing.
  const std::string once = escape_nonprintable("a\\b\x1b\r\xff\xe2\x80\xae");
  CHECK(once == "a\\b\\x1b\\r\\xff\\u202e");
  CHECK(escape_nonprintable(once) == once);
}

TEST_CASE("Error::what() escapes, message() and context() keep the text") {
  ErrorContext c;
  c.file = "dir\r/m.xml";
  c.layer_id = 3;
  c.layer_name = "evil\x1b[2K\rname";
  c.layer_type = "Foo\x07";
  const Error e(ErrorCode::format, std::string("bad value 'a\0b'", 15), c);
  CHECK(std::string(e.what()) ==
        "dir\\r/m.xml: layer 3 'evil\\x1b[2K\\rname' (Foo\\x07): bad value 'a\\x00b'");
  CHECK(e.message() == std::string("bad value 'a\0b'", 15));
  CHECK(e.context().layer_name == "evil\x1b[2K\rname");
  CHECK(format_error(c, "m") == "dir\\r/m.xml: layer 3 'evil\\x1b[2K\\rname' (Foo\\x07): m");
}
