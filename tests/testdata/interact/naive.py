# The game's interactor as a naive one is written: it reads a guess
# with an unbounded readline (testlib's readLine and readToken do too),
# so a line without end would take all of its memory. One guess: exit 0
# if it is the secret, else 1 (a wrong answer).
import sys

n = int(open(sys.argv[1]).read().split()[0])
secret = int(open(sys.argv[2]).read().split()[0])
print(n, flush=True)
line = sys.stdin.buffer.readline()
if line.strip() == str(secret).encode():
    print("correct", flush=True)
    sys.exit(0)
sys.stderr.write("not the secret: %r, %d bytes\n" % (line[:20], len(line)))
sys.exit(1)
