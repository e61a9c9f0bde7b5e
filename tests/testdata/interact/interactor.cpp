// interactor.py in C++: the same game, budget, exit codes and messages.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>

static void say(const std::string &s) {
	std::string line = s + "\n";
	if (write(1, line.data(), line.size()) < 0) {} // the program stopped reading: its EOF comes next
}

int main(int argc, char **argv) {
	if (argc != 3) { std::fputs("usage: interactor INPUT ANSWER\n", stderr); return 3; }
	std::signal(SIGPIPE, SIG_IGN);
	std::ifstream in(argv[1]), ans(argv[2]);
	long long n, secret;
	if (!(in >> n) || !(ans >> secret)) { std::fputs("unreadable test files\n", stderr); return 3; }
	int budget = 1;
	for (long long m = n - 1; m > 0; m >>= 1) budget++;
	say(std::to_string(n));
	char line[64];
	for (int guesses = 0;;) {
		if (!std::fgets(line, sizeof line, stdin)) {
			std::fprintf(stderr, "the program's output ended after %d guesses, none correct\n", guesses);
			return 1;
		}
		size_t len = std::strlen(line), i = line[0] == '-';
		bool ok = len >= i + 2 && len <= i + 19 && line[len - 1] == '\n';
		for (size_t j = i; ok && j < len - 1; j++) ok = line[j] >= '0' && line[j] <= '9';
		if (!ok) { std::fprintf(stderr, "not a guess line: %.40s\n", line); return 2; }
		if (++guesses > budget) { std::fprintf(stderr, "over the budget of %d guesses for N=%lld\n", budget, n); return 1; }
		long long x = std::stoll(line);
		if (x < 1 || x > n) { std::fprintf(stderr, "guess %lld is outside 1..%lld\n", x, n); return 1; }
		if (x == secret) {
			say("correct");
			std::fprintf(stderr, "found %lld in %d guesses\n", secret, guesses);
			return 0;
		}
		say(x < secret ? "higher" : "lower");
	}
}
