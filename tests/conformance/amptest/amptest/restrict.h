// Restriction shorthands the tests write on their functions.
#pragma once

// amp.h may already define the first three with the same meaning.
#if !defined(__GPU)
#define __GPU restrict(amp, cpu)
#define __GPU_ONLY restrict(amp)
// Empty, as in amp.h: a function without a restriction is restrict(cpu).
#define __CPU_ONLY
#endif

// The spelled-out form, for tests about the restriction syntax itself.
#define __CPU_ONLY_EXPLICIT restrict(cpu)
