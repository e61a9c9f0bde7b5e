# Everyday scientific checks, each a step of the JSON report: true, or
# the exception it raised. Run in the science image's working directory.
import json
import math
import os

report = {}


def step(name):
    def run(f):
        try:
            report[name] = bool(f())  # numpy's bool_ is not JSON's
        except Exception as e:  # the report says what failed
            report[name] = f"{type(e).__name__}: {e}"
        return f
    return run


@step("linear_algebra")
def _():
    import numpy as np
    a, b = np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([9.0, 8.0])
    return bool(np.allclose(np.linalg.solve(a, b), [2.0, 3.0]) and abs(np.linalg.det(a) - 5) < 1e-9)


@step("fft")
def _():
    import numpy as np
    x = np.sin(2 * np.pi * 5 * np.arange(64) / 64)
    return int(np.argmax(np.abs(np.fft.rfft(x)))) == 5


@step("optimisation")
def _():
    from scipy.optimize import minimize
    r = minimize(lambda v: (v[0] - 1) ** 2 + (v[1] + 2) ** 2, [0.0, 0.0])
    return bool(r.success) and abs(r.x[0] - 1) < 1e-4 and abs(r.x[1] + 2) < 1e-4


@step("integration")
def _():
    from scipy.integrate import quad
    v, _ = quad(lambda x: math.exp(-x * x), -math.inf, math.inf)
    return abs(v - math.sqrt(math.pi)) < 1e-8


@step("sparse_solve")
def _():
    import numpy as np
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl
    a = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(1000, 1000), format="csc")
    return bool(np.allclose(a @ spl.spsolve(a, np.ones(1000)), 1))


@step("symbolic_solve")
def _():
    import sympy
    x = sympy.symbols("x")
    return sorted(sympy.solve(x ** 2 - 5 * x + 6, x)) == [2, 3]


@step("pandas_groupby_csv")
def _():
    import pandas as pd
    df = pd.DataFrame({"k": ["a", "b", "a", "b"], "v": [1, 2, 3, 4]})
    sums = df.groupby("k")["v"].sum().to_dict()
    df.to_csv("table.csv", index=False)
    return sums == {"a": 4, "b": 6} and bool(pd.read_csv("table.csv").equals(df))


@step("matplotlib_png")
def _():
    import matplotlib
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [0, 1, 4])
    ax.set_title("squares")
    ax.text(1, 1, "a label")
    fig.savefig("plot.png")
    with open("plot.png", "rb") as f:
        magic = f.read(8)
    return matplotlib.get_backend().lower() == "agg" and magic == b"\x89PNG\r\n\x1a\n" and os.path.getsize("plot.png") > 1000


@step("networkx_path")
def _():
    import networkx as nx
    g = nx.Graph([(1, 2), (2, 3), (3, 4), (1, 5), (5, 4)])
    return nx.shortest_path(g, 1, 4) == [1, 5, 4]


@step("openblas")
def _():
    import numpy as np
    np.ones((64, 64)) @ np.ones((64, 64))
    with open("/proc/self/maps") as f:
        return "libopenblas" in f.read()


print(json.dumps(report, sort_keys=True))
