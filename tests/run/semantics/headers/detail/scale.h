#pragma once
// Found next to the header that includes it (headers/detail/), not next to
// the program.

inline float scaled(float x) restrict(amp, cpu) {
    return x * 2.0f;
}
