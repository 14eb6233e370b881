/* The process floor for `fingerlock --help` in bench/bench.sh: a C program that does nothing. */
int main(void) { return 0; }
