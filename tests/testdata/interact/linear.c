/* Guesses 1, 2, 3, ... : right, but over the budget past a small N. */
#include <stdio.h>
#include <string.h>
int main(void) {
	long n;
	char reply[16];
	if (scanf("%ld", &n) != 1) return 0;
	for (long g = 1; g <= n; g++) {
		printf("%ld\n", g);
		fflush(stdout);
		if (scanf("%15s", reply) != 1 || !strcmp(reply, "correct")) return 0;
	}
	return 0;
}
