# Guesses 1, 2, 3, ... reading each reply with input(), which raises
# EOFError at the end of its input: past the budget the interactor ends
# first (a wrong answer), and this then raises (exit 1). On N=7 it
# raises on its own after its first guess, before any reply: it ends
# first, and the interactor then reads the end of its output.
n = int(input())
for g in range(1, n + 1):
    print(g, flush=True)
    if n == 7:
        raise RuntimeError("failing on its own")
    if input() == "correct":
        break
