/* Closes its stdin at once, before N, then waits without end. */
#include <unistd.h>
int main(void) {
	close(0);
	for (;;) sleep(1);
}
