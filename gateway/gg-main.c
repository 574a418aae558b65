#include <gamegate.h>
int main (void) { return 0; }
