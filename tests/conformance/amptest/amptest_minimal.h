// The smaller entry to the helper library: verdicts and logging, without
// the comparison and data helpers of amptest.h.
#pragma once

#include <amp.h>
#include <amptest/platform.h>
#include <amptest/restrict.h>
#include <amptest/runall.h>
#include <amptest/logging.h>
