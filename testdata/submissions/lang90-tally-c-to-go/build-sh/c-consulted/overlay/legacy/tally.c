/* The retired C counter, kept for reference by this port's build. */
int main(void) { return 0; }
