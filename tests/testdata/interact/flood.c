/* Reads N, then writes without reading a reply, without end: on N=1000
   the guess "1" a line, else digits with no newline at all. */
#include <stdio.h>
int main(void) {
	long n;
	if (scanf("%ld", &n) != 1) return 0;
	for (;;) fputs(n == 1000 ? "1\n" : "1111111111", stdout);
}
