/* Binary search on 1..N, the first guess (1 + N) / 2, flushing each
   guess; at the end of its input it stops, quietly. */
#include <stdio.h>
#include <string.h>
int main(void) {
	long lo = 1, hi, mid;
	char reply[16];
	if (scanf("%ld", &hi) != 1) return 0;
	while (lo <= hi) {
		mid = lo + (hi - lo) / 2;
		printf("%ld\n", mid);
		fflush(stdout);
		if (scanf("%15s", reply) != 1 || !strcmp(reply, "correct")) return 0;
		if (!strcmp(reply, "higher")) lo = mid + 1; else hi = mid - 1;
	}
	return 0;
}
