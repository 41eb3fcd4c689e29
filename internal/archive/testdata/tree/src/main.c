#include "lib/util.h"

int main(void) { return answer() - 42; }
