/* Reads N and never answers: on N=1000 it waits for a reply the
   interactor is waiting on it for (each reading the other), else sleeps. */
#include <stdio.h>
#include <unistd.h>
int main(void) {
	long n, x;
	if (scanf("%ld", &n) != 1) return 0;
	if (n == 1000) scanf("%ld", &x);
	for (;;) sleep(60);
}
