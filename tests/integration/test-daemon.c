/* placeholder until the test lands */
int main (void) { return 77; }
