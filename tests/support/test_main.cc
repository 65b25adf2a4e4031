// The main of every test binary: GoogleTest's, after giving the tests the
// two paths they need even when a binary is run by hand rather than by
// CTest. CARLOS_BIN is the built `carlos` command, CARLOS_SOURCE_DIR the
// source tree; values already in the environment win.
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  setenv("CARLOS_BIN", CARLOS_TEST_BIN, /*overwrite=*/0);
  setenv("CARLOS_SOURCE_DIR", CARLOS_TEST_SOURCE_DIR, /*overwrite=*/0);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
