# search.py in another judge's layout, "? x": no guess line to this one.
import sys

lo, hi = 1, int(sys.stdin.readline())
while lo <= hi:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    reply = sys.stdin.readline().strip()
    if reply in ("", "correct"):
        break
    if reply == "higher":
        lo = mid + 1
    else:
        hi = mid - 1
