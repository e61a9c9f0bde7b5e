// search.c in C++: std::endl flushes each guess.
#include <iostream>
#include <string>
int main() {
	long long lo = 1, hi;
	if (!(std::cin >> hi)) return 0;
	std::string reply;
	while (lo <= hi) {
		long long mid = lo + (hi - lo) / 2;
		std::cout << mid << std::endl;
		if (!(std::cin >> reply) || reply == "correct") return 0;
		if (reply == "higher") lo = mid + 1; else hi = mid - 1;
	}
}
