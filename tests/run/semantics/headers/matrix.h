// A header with an include guard, included twice by headers.amp.
#ifndef MATRIX_H
#define MATRIX_H

#include <amp.h>
#include "detail/scale.h"

#define TILE 4

struct Cell {
    int row;
    int col;
};

inline int flat(Cell c, int cols) restrict(amp, cpu) {
    return c.row * cols + c.col;
}

#endif
