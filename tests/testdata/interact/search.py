# search.c in Python: print(flush=True) each guess.
import sys

line = sys.stdin.readline()
if line:
    lo, hi = 1, int(line)
    while lo <= hi:
        mid = (lo + hi) // 2
        print(mid, flush=True)
        reply = sys.stdin.readline().strip()
        if reply in ("", "correct"):
            break
        if reply == "higher":
            lo = mid + 1
        else:
            hi = mid - 1
