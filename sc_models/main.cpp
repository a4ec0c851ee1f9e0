#include <cstdio>
#include "version.h"
int sc_main(int, char **) { std::printf("persim %s\n", persim::version()); return 0; }
