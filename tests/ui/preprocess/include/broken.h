// A header with a mistake: the diagnostic points here, not at the program.
inline int twice(int x) {
    return x * 2
}
