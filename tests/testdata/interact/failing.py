# An interactor that fails: it writes N, reads a guess, then on N=11
# dies of SIGSEGV, else exits N (3: testlib's own failure; 4: none of
# testlib's codes). A Python exception would not do: it exits 1, a
# wrong answer.
import os
import sys

n = int(open(sys.argv[1]).read().split()[0])
os.write(1, b"%d\n" % n)
sys.stdin.buffer.readline(64)
if n == 11:
    os.kill(os.getpid(), 11)
sys.stderr.write("failing with %d\n" % n)
sys.exit(n)
