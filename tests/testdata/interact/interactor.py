# The guessing game's interactor, testlib's conventions without testlib:
# run as `interactor INPUT ANSWER`; INPUT's first word is N, ANSWER's the
# secret (anything after it is ignored). It writes N, then answers each
# guess line ("x\n", 1 <= x <= N) with "higher", "lower" or "correct".
# Exit 0 on a correct guess within the budget, ceil(log2 N) + 1 guesses;
# 1 over the budget, out of range, or the program's output ended first;
# 2 on a line that is no guess. Its reason goes to stderr. A reply to a
# program that stopped reading is dropped: its end of output comes next.
import os
import re
import sys

n = int(open(sys.argv[1]).read().split()[0])
secret = int(open(sys.argv[2]).read().split()[0])
budget = (n - 1).bit_length() + 1


def say(s):
    try:
        os.write(1, s.encode() + b"\n")
    except BrokenPipeError:
        pass


def end(code, msg):
    sys.stderr.write(msg + "\n")
    sys.exit(code)


say(str(n))
guesses = 0
while True:
    line = sys.stdin.buffer.readline(64)
    if not line:
        end(1, "the program's output ended after %d guesses, none correct" % guesses)
    if not re.fullmatch(rb"-?[0-9]{1,18}\n", line):
        end(2, "not a guess line: %r" % line[:40])
    guesses += 1
    if guesses > budget:
        end(1, "over the budget of %d guesses for N=%d" % (budget, n))
    x = int(line)
    if not 1 <= x <= n:
        end(1, "guess %d is outside 1..%d" % (x, n))
    if x == secret:
        say("correct")
        end(0, "found %d in %d guesses" % (secret, guesses))
    say("higher" if x < secret else "lower")
