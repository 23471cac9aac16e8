"""scikit-learn's ARDRegression on the data written by bench/ard_vs_sklearn.R.

Usage: ard_vs_sklearn.py PREFIX N D NTEST THRESHOLD
Reads PREFIX_X.bin (N x D), PREFIX_y.bin (N), PREFIX_Xt.bin (NTEST x D) and
PREFIX_yt.bin (NTEST): little-endian doubles in R's column-major order.
Fits ARDRegression twice, with its defaults and with settings close to
ard()'s (see the R script), timing fit() alone with time.perf_counter, and
prints one tab-separated line per fit:
  setting  seconds  iterations  converged  relevant  test_rmse
and lines starting with '#' describing the BLAS the process loaded.
"""
import contextlib
import inspect
import io
import os
import re
import sys
import time

import numpy as np
import sklearn
from sklearn.linear_model import ARDRegression

try:  # limit any BLAS thread pool to the count the R script asks for
    from threadpoolctl import threadpool_info, threadpool_limits
except ImportError:  # pragma: no cover
    threadpool_info = threadpool_limits = None


def read(path, rows, cols):
    a = np.fromfile(path, dtype="<f8")
    if a.size != rows * cols:
        sys.exit("%s: %d values, expected %d" % (path, a.size, rows * cols))
    return a.reshape((rows, cols), order="F") if cols > 1 else a


def blas_in_process():
    """Shared libraries named like a BLAS / LAPACK mapped into this process."""
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()[-1]
            if re.search(r"blas|lapack|mkl|blis", os.path.basename(p)):
                libs.add(os.path.realpath(p))
    return sorted(libs)


def fit(model, X, y, Xt, yt):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):  # verbose=True reports convergence only
        t0 = time.perf_counter()
        model.fit(X, y)
        sec = time.perf_counter() - t0
    m = re.search(r"Converged after (\d+) iterations", buf.getvalue())
    # sklearn counts from 0 and breaks after the check; no message: the cap was hit
    iters = int(m.group(1)) + 1 if m else getattr(model, "n_iter_", None) or max_iter(model)
    rmse = float(np.sqrt(np.mean((model.predict(Xt) - yt) ** 2)))
    return sec, iters, bool(m), int(np.count_nonzero(model.coef_)), rmse


def max_iter(model):
    return getattr(model, "max_iter", None) or getattr(model, "n_iter")


def main():
    prefix, n, d, nt, threshold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    X = read(prefix + "_X.bin", n, d)
    y = read(prefix + "_y.bin", n, 1)
    Xt = read(prefix + "_Xt.bin", nt, d)
    yt = read(prefix + "_yt.bin", nt, 1)
    X, Xt = np.ascontiguousarray(X), np.ascontiguousarray(Xt)  # sklearn's own layout
    # sklearn 1.3 renamed n_iter to max_iter
    it_name = "max_iter" if "max_iter" in inspect.signature(ARDRegression).parameters else "n_iter"
    settings = {
        "defaults": {},
        # ard()'s cap, its tolerance number and its pruning bound alpha_max = 1e6
        # (in standard units) expressed in the units of y
        "matched": {it_name: 10000, "tol": 1e-4, "threshold_lambda": threshold},
    }
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "")
    limit = (threadpool_limits(int(threads)) if threadpool_limits and threads else contextlib.nullcontext())
    with limit:
        # one small fit first, as the R script does, so that first-call costs are not timed
        rng = np.random.default_rng(0)
        ARDRegression().fit(rng.standard_normal((40, 5)), rng.standard_normal(40))
        for name, kw in settings.items():
            model = ARDRegression(verbose=True, **kw)
            sec, iters, conv, rel, rmse = fit(model, X, y, Xt, yt)
            print("%s\t%.4f\t%d\t%s\t%d\t%.5f" % (name, sec, iters, "TRUE" if conv else "FALSE", rel, rmse))
    print("# python %s, numpy %s, scikit-learn %s" % (sys.version.split()[0], np.__version__, sklearn.__version__))
    print("# BLAS/LAPACK mapped: %s" % ", ".join(blas_in_process()))
    info = threadpool_info() if threadpool_info else None
    print("# threadpoolctl: %s" % (info if info is not None else "not installed"))
    print("# OPENBLAS_NUM_THREADS=%s OMP_NUM_THREADS=%s" % (threads or "unset", os.environ.get("OMP_NUM_THREADS", "unset")))


if __name__ == "__main__":
    main()
