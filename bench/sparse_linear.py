"""scikit-learn's ARDRegression (defaults) for bench/sparse_linear.R.

Usage: sparse_linear.py PREFIX N D NTEST
Reads PREFIX_X.bin (N x D), PREFIX_y.bin, PREFIX_Xt.bin (NTEST x D) and
PREFIX_yt.bin: little-endian doubles in R's column-major order. Prints one
tab-separated line: seconds (fit() alone, CPU time of the process), test
RMSE, coverage of the 95% prediction intervals (predict(return_std=True),
whose sd includes the noise), and the 1-based indices of the nonzero
coefficients, comma-separated.
"""
import sys
import time

import numpy as np
from sklearn.linear_model import ARDRegression


def read(path, rows, cols):
    a = np.fromfile(path, dtype="<f8")
    return a.reshape((rows, cols), order="F") if cols > 1 else a


def main():
    prefix, n, d, nt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    X = np.ascontiguousarray(read(prefix + "_X.bin", n, d))
    y = read(prefix + "_y.bin", n, 1)
    Xt = np.ascontiguousarray(read(prefix + "_Xt.bin", nt, d))
    yt = read(prefix + "_yt.bin", nt, 1)
    model = ARDRegression()
    t0 = time.process_time()
    model.fit(X, y)
    sec = time.process_time() - t0
    mean, sd = model.predict(Xt, return_std=True)
    rmse = float(np.sqrt(np.mean((mean - yt) ** 2)))
    cover = float(np.mean(np.abs(yt - mean) < 1.959964 * sd))
    chosen = ",".join(str(j + 1) for j in np.flatnonzero(model.coef_))
    print("%.4f\t%.6f\t%.4f\t%s" % (sec, rmse, cover, chosen))


if __name__ == "__main__":
    main()
