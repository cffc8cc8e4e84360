// The conformance tests' helper library, reduced to what the Tessera
// language can state (see ../README.md for what is left out and why).
#pragma once

// Export and exception-specification markers of the library's functions:
// nothing to export here, and the language has no exceptions.
#define AMP_TEST_API
#define AMP_NOEXCEPT
