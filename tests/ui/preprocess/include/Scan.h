#pragma once
inline int scan_width() { return 4; }
