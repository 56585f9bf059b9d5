// The version macros of irlite/version.hpp against the library's version().

#include <doctest/doctest.h>

#include <string>

#include "irlite/irlite.hpp"

TEST_CASE("the version macros name the version of the library") {
  CHECK(irlite::version() == IRLITE_VERSION_STRING);
  CHECK(std::to_string(IRLITE_VERSION_MAJOR) + "." + std::to_string(IRLITE_VERSION_MINOR) + "." +
            std::to_string(IRLITE_VERSION_PATCH) ==
        IRLITE_VERSION_STRING);
}
