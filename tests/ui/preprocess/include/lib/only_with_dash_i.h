inline int from_lib() { return 7; }
