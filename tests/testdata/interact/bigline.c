/* Reads N, then writes 1 GiB of digits with no newline, as one line,
   and waits: a line that would take all of a naive interactor's memory. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(void) {
	static char buf[1 << 16];
	long n;
	if (scanf("%ld", &n) != 1) return 0;
	memset(buf, '1', sizeof buf);
	for (long left = 1L << 30; left > 0; left -= sizeof buf)
		if (write(1, buf, sizeof buf) < 0) return 1;
	for (;;) pause();
}
