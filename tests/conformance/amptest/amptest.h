// The conformance tests' helper library: what `#include <amptest.h>`
// brings in. See ../README.md for the parts that are left out.
#pragma once

#include <amp.h>
// The standard headers the library's own headers bring in, which tests rely
// on without including them.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>
#include <algorithm>
#include <amptest/platform.h>
#include <amptest/restrict.h>
#include <amptest/runall.h>
#include <amptest/logging.h>
#include <amptest/operators.h>
#include <amptest/math.h>
#include <amptest/compare.h>
#include <amptest/amp.compare.h>
#include <amptest/operators.h>
#include <amptest/amp.data.h>
#include <amptest/data.h>
#include <amptest/device.h>
#include <amptest/gpuinvoke.h>
#include <amptest/type_names.h>
