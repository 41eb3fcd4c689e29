/* tally: count lines, words and bytes of standard input.
 * Copyright 2026 The srb Authors. MIT licence (see LICENSE). */
#include <ctype.h>
#include <stdio.h>

int main(int argc, char **argv) {
	long lines = 0, words = 0, bytes = 0;
	int c, inword = 0;
	(void)argv;
	if (argc > 1) {
		fputs("usage: tally < FILE\n", stderr);
		return 2;
	}
	while ((c = getchar()) != EOF) {
		bytes++;
		if (c == '\n')
			lines++;
		if (isspace(c)) {
			inword = 0;
		} else if (!inword) {
			inword = 1;
			words++;
		}
	}
	printf("%ld %ld %ld\n", lines, words, bytes);
	return 0;
}
